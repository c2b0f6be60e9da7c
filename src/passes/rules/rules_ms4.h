/* rules_ms4.h: rule functions for more of ONNX Runtime's contrib operators
 * (rules_ms4.c), for ops_ms4.def: com.microsoft's NHWC convolution and pool, MatMulBnb4,
 * the FFTs, the complex products, the embeddings and MurmurHash3, and the
 * com.microsoft.nchwc operators of ONNX Runtime's NCHWc layout transformer. */
#ifndef OSH_PASSES_RULES_MS4_H
#define OSH_PASSES_RULES_MS4_H

#include "passes/rule_api/rule_api.h"

/* NhwcConv(X (N, D..., C), W (M, C/group, k...), B (M)): Y (N, D'..., M). */
void infer_ms_nhwc_conv(infer_ctx *c);
/* NhwcMaxPool(x (N, D..., C)): y (N, D'..., C). */
void infer_ms_nhwc_max_pool(infer_ctx *c);
/* MatMulBnb4(A, B, absmax): A (..., K) -> (..., N) with transB, A (..., N) ->
 * (..., K) without. */
void infer_ms_matmul_bnb4(infer_ctx *c);
/* Rfft(X (..., n)): (..., n / 2 + 1, 2) one-sided. */
void infer_ms_rfft(infer_ctx *c);
/* Irfft(X (..., m, 2)): (..., 2m - 1) one-sided. */
void infer_ms_irfft(infer_ctx *c);
/* ComplexMul, ComplexMulConj(A (..., 2), B (..., 2)): their broadcast. */
void infer_ms_complex_mul(infer_ctx *c);
/* WordConvEmbedding(Sequence (S, W), W (M, 1, window, E), B (M), C (V, E)): (S, M). */
void infer_ms_word_conv_embedding(infer_ctx *c);
/* TorchEmbedding(weight (N, M), indices (*), ...): (*, M). */
void infer_ms_torch_embedding(infer_ctx *c);
/* MurmurHash3(X): Y like X, UINT32 (positive, the default) or INT32. */
void infer_ms_murmur_hash3(infer_ctx *c);

/* com.microsoft.nchwc: Conv(X, W, B, Sum): ai.onnx Conv's shape, Sum's. */
void infer_nchwc_conv(infer_ctx *c);
void infer_ms_fused_conv(infer_ctx *c);
/* MaxPool, AveragePool: the ai.onnx pools with every window attribute. */
void infer_nchwc_pool(infer_ctx *c);
/* GlobalMaxPool, GlobalAveragePool: (N, C, 1, 1). */
void infer_nchwc_global_pool(infer_ctx *c);
/* ReorderInput(X (N, C, H, W), or (N, H, W, C) channels_last): (N, C', H, W), C'
 * the channels padded to the NCHWc block size. */
void infer_nchwc_reorder_input(infer_ctx *c);
/* ReorderOutput(X (N, C', H, W)): (N, channels, H, W), or (N, H, W, channels). */
void infer_nchwc_reorder_output(infer_ctx *c);
/* Upsample(X (N, C, H, W)): (N, C, H * scales[2], W * scales[3]). */
void infer_nchwc_upsample(infer_ctx *c);

#endif
