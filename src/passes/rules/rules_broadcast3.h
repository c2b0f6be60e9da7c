/* rules_broadcast3.h: OpenVINO's Broadcast (opset 3) as a custom-domain ONNX node,
 * for ops_broadcast3.def, and the fallback that serves it in any non-ONNX domain. */
#ifndef OSH_PASSES_RULES_BROADCAST3_H
#define OSH_PASSES_RULES_BROADCAST3_H

#include "passes/infer/rule_api.h"

/* Broadcast(data, target_shape[, axes_mapping]), attribute mode: "numpy" (default;
 * the unidirectional rule: data broadcasts to the target, the result is the target),
 * "bidirectional" (Expand's rule) or "explicit" (axes_mapping places each data axis
 * in the target). Output: data's element type; the shape per the rule. */
void infer_broadcast3(infer_ctx *c);

/* Whether (domain, op_type) is a Broadcast-3 node: op_type "Broadcast" in a domain
 * other than ai.onnx and its sub-domains (ONNX has no Broadcast operator). */
bool broadcast3_is(const char *domain, const char *op_type);

/* infer_broadcast3 for a Broadcast-3 node in a domain the table does not list. */
infer_fn broadcast3_fallback(const char *domain, const char *op_type);

#endif
