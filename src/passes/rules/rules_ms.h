/* rules_ms.h: rule functions for ONNX Runtime's com.microsoft operators (rules_ms.c),
 * for ops_ms.def. */
#ifndef OSH_PASSES_RULES_MS_H
#define OSH_PASSES_RULES_MS_H

#include "passes/rule_api/rule_api.h"

/* FastGelu(X[, bias]), BiasGelu(A, B), QuickGelu(X): Y has X's shape and type. */
void infer_ms_fast_gelu(infer_ctx *c);
void infer_ms_bias_gelu(infer_ctx *c);
void infer_ms_quick_gelu(infer_ctx *c);
/* FusedMatMul(A, B): numpy.matmul after transA/transB/transBatchA/transBatchB. */
void infer_ms_fused_matmul(infer_ctx *c);
/* FusedGemm(A, B[, C]): Gemm of ai.onnx opset 11 with a fused activation. */
void infer_ms_fused_gemm(infer_ctx *c);
/* SkipLayerNormalization(input, skip, gamma[, beta][, bias]) and
 * SkipSimplifiedLayerNormalization(input, skip, gamma[, bias]): output,
 * mean, inv_std_var, input_skip_bias_sum. */
void infer_ms_skip_layer_norm(infer_ctx *c);
void infer_ms_skip_simplified_layer_norm(infer_ctx *c);

#endif
