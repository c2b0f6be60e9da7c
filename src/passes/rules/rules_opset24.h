/* rules_opset24.h: the rule functions of ops_opset24.def, the operators ai.onnx
 * added after opset 23 (CausalConvWithState, LinearAttention, SwiGLU) and
 * ai.onnx.preview's FlexAttention, all in rules_opset24.c. The versions of older
 * operators that only widened their types point at those operators' rules in
 * the other ops_*.def files.
 */
#ifndef OSH_PASSES_RULES_OPSET24_H
#define OSH_PASSES_RULES_OPSET24_H

#include "passes/rules/rules_nn.h"

void infer_causal_conv_with_state(infer_ctx *c);
void infer_linear_attention(infer_ctx *c);
void infer_swiglu(infer_ctx *c);
void infer_flex_attention(infer_ctx *c);

#endif
