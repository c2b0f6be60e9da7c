/* bcast_ops.h: which operators broadcast their inputs, and how: the one place the
 * passes ask (inference for its fallbacks and the lint hand-off, lint, the rewrites,
 * provenance and the broadcast sites).
 *
 * ai.onnx operators by their newest schema row (core/schema): how its description
 * says it broadcasts, its inputs, and whether it had the legacy broadcast/axis
 * attributes before opset 7. Outside ONNX: PaddlePaddle's elementwise operators
 * (paddle_ops.def, in whatever domain a converter put them) and OpenVINO's
 * Broadcast-3 as a custom-domain node.
 */
#ifndef OSH_PASSES_BCAST_OPS_H
#define OSH_PASSES_BCAST_OPS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum bcast_family {
	FAM_BINARY,   /* numpy from opset 7; before: none, or pdpd with broadcast=1 */
	FAM_BINARY7,  /* numpy; the operator has no version before 7 */
	FAM_VARIADIC, /* numpy over every input from opset 8; before: identical shapes */
	FAM_WHERE,    /* numpy over the three inputs */
	FAM_PRELU,    /* slope broadcasts into X (unidirectional) from opset 7 */
} bcast_family;

/* The family of an ai.onnx operator, or -1 when it does not broadcast its inputs
 * elementwise (Gemm's C, LayerNormalization's scale are not a family's). */
int bcast_family_of(const char *op_type);

/* True for a Paddle elementwise operator name (elementwise_add, ...). */
bool paddle_is_elementwise(const char *op_type);

/* Whether (domain, op_type) is a Broadcast-3 node: op_type "Broadcast" in a domain
 * other than ai.onnx and its sub-domains (ONNX has no Broadcast operator). */
bool broadcast3_is(const char *domain, const char *op_type);

/* Whether a node of this type may broadcast its inputs (an ai.onnx family, or a
 * Paddle elementwise operator in another domain); false when its opset is not
 * imported (opset < 0). */
bool bcast_may_broadcast(const char *domain, const char *op_type, int64_t opset);

#endif
