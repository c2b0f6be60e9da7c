/* rules_broadcast3.h: OpenVINO's Broadcast (opset 3) as a custom-domain ONNX node,
 * for ops_broadcast3.def. */
#ifndef OSH_PASSES_RULES_BROADCAST3_H
#define OSH_PASSES_RULES_BROADCAST3_H

#include "passes/rule_api/rule_api.h"

/* Broadcast(data, target_shape[, axes_mapping]), attribute mode: "numpy" (default;
 * the unidirectional rule: data broadcasts to the target, the result is the target),
 * "bidirectional" (Expand's rule) or "explicit" (axes_mapping places each data axis
 * in the target). Output: data's element type; the shape per the rule. */
void infer_broadcast3(infer_ctx *c);

#endif
