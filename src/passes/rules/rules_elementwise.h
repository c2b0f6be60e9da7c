/* rules_elementwise.h: the rule functions of rules_elementwise.c, for ops_elementwise.def. */
#ifndef OSH_PASSES_RULES_ELEMENTWISE_H
#define OSH_PASSES_RULES_ELEMENTWISE_H

#include "passes/rule_api/rule_api.h"

/* Same shape; element type and content by operator (IsInf/IsNaN: BOOL; Neg/Abs: content). */
void infer_unary_elementwise(infer_ctx *c);
void infer_identity(infer_ctx *c);
/* Binary: numpy (opset >= 7), or none/pdpd by `broadcast` and `axis` (opsets 1, 6). */
void infer_binary_elementwise(infer_ctx *c);
void infer_binary_legacy(infer_ctx *c);
/* Sum, Mean, Max, Min: numpy over all inputs (opset >= 8), or identical shapes. */
void infer_variadic_elementwise(infer_ctx *c);
void infer_variadic_legacy(infer_ctx *c);
void infer_where(infer_ctx *c);
void infer_prelu1(infer_ctx *c);
void infer_prelu7(infer_ctx *c);
void infer_clip1(infer_ctx *c);
void infer_clip11(infer_ctx *c);
void infer_cast1(infer_ctx *c);
void infer_cast(infer_ctx *c);
void infer_castlike(infer_ctx *c);
void infer_dropout1(infer_ctx *c);
void infer_dropout7(infer_ctx *c);
void infer_dropout10(infer_ctx *c);
void infer_dropout12(infer_ctx *c);
/* Softmax, LogSoftmax, Hardmax. */
void infer_softmax1(infer_ctx *c);
void infer_softmax11(infer_ctx *c);
void infer_softmax13(infer_ctx *c);
void infer_batchnorm1(infer_ctx *c);
void infer_batchnorm7(infer_ctx *c);
void infer_batchnorm9(infer_ctx *c);
void infer_batchnorm14(infer_ctx *c);
void infer_instancenorm(infer_ctx *c);
void infer_layernorm(infer_ctx *c);
void infer_groupnorm18(infer_ctx *c);
void infer_groupnorm21(infer_ctx *c);
void infer_rmsnorm(infer_ctx *c);
void infer_lpnorm(infer_ctx *c);
void infer_mvn(infer_ctx *c);
void infer_swiglu(infer_ctx *c);

#endif
