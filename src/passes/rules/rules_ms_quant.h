/* rules_ms_quant.h: ONNX Runtime's com.microsoft quantized and other operators
 * (rules_ms_quant.c), for ops_ms_quant.def. Rows that reuse an ai.onnx rule
 * (QuantizeLinear, DequantizeLinear, QLinearReduceMean, MatMulInteger16, Trilu,
 * GridSample, Pad) need no function here. */
#ifndef OSH_PASSES_RULES_MS_QUANT_H
#define OSH_PASSES_RULES_MS_QUANT_H

#include "passes/rule_api/rule_api.h"

/* Runs `rule`, which reads input 0 as (N, C, D...), on a channels-last input 0
 * (N, D..., C): the input is shown to it with C moved to axis 1 for the call, and
 * output 0 gets C moved back to the end (rules_ms4.c's NHWC operators use it too). */
void ms_channels_last(infer_ctx *c, infer_fn rule);
/* A pooling rule (infer_pool) with the window attributes of the operator's latest
 * ai.onnx version (dilations, ceil_mode, a required kernel_shape), for the contrib
 * pools that take them all: AveragePool's when the op_type is not an ai.onnx pool's. */
void ms_pool_latest(infer_ctx *c);
/* QLinearAdd, QLinearMul: C is the broadcast of A (input 0) and B (input 3). */
void infer_ms_qlinear_binary(infer_ctx *c);
/* QLinearWhere: the broadcast of condition (0), X (1) and Y (4), X's type. */
void infer_ms_qlinear_where(infer_ctx *c);
/* QLinearConcat(Y_scale, Y_zero_point, (X, scale, zero point)...): Concat's shape. */
void infer_ms_qlinear_concat(infer_ctx *c);
/* QLinearAveragePool: AveragePool's shape; (N, D..., C) when channels_last. */
void infer_ms_qlinear_avg_pool(infer_ctx *c);
/* QLinearGlobalAveragePool: (N, C, 1...), or (N, 1..., C) when channels_last. */
void infer_ms_qlinear_global_avg_pool(infer_ctx *c);
/* QLinearConv: ai.onnx QLinearConv's shape; X and Y (N, D..., C) when channels_last. */
void infer_ms_qlinear_conv(infer_ctx *c);
/* QGemm(A, .., .., B, .., .., C, y_scale, y_zero_point): Y (M, N). */
void infer_ms_qgemm(infer_ctx *c);
/* GatherBlockQuantized(data, indices, scales[, zero_points]): Gather of data's
 * unpacked values along gather_axis, of scales' type. */
void infer_ms_gather_block_quantized(infer_ctx *c);
/* Range(start, limit[, delta]): ai.onnx Range's shape, delta 1 when omitted. */
void infer_ms_range(infer_ctx *c);
/* ExpandDims(X, axis): X with a 1 inserted at axis. */
void infer_ms_expand_dims(infer_ctx *c);
/* CDist(A (N, K), B (M, K)): (N, M). */
void infer_ms_cdist(infer_ctx *c);
/* Unique(x (L)): y (U), idx (L) INT64, counts (U) INT64. */
void infer_ms_unique(infer_ctx *c);

#endif
