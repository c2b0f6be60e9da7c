/* ms_channels_last.h: the channels-last wrapper of ONNX Runtime's NHWC operators and
 * of the quantized pools and convolution with channels_last set, defined in
 * rules_ms_layout.c. */
#ifndef OSH_PASSES_RULES_MS_CHANNELS_LAST_H
#define OSH_PASSES_RULES_MS_CHANNELS_LAST_H

#include "passes/rule_api/rule_api.h"

/* Runs `rule`, which reads input 0 as (N, C, D...), on a channels-last input 0
 * (N, D..., C): the input is shown to it with C moved to axis 1 for the call, and
 * output 0 gets C moved back to the end. */
void ms_channels_last(infer_ctx *c, infer_fn rule);

/* A pooling rule (infer_pool) with the window attributes of the operator's latest
 * ai.onnx version (dilations, ceil_mode, a required kernel_shape), for the contrib
 * pools that take them all: AveragePool's when the op_type is not an ai.onnx pool's. */
void ms_pool_latest(infer_ctx *c);

#endif
