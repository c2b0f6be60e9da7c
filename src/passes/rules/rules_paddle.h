/* rules_paddle.h: the rule functions of rules_paddle.c (Paddle's elementwise_*), for
 * ops_paddle.def, and the fallback that serves them in any other non-ONNX domain. */
#ifndef OSH_PASSES_RULES_PADDLE_H
#define OSH_PASSES_RULES_PADDLE_H

#include "passes/infer/rule_api.h"

/* elementwise_add/sub/mul/div/pow/max/min/mod/floordiv: X, Y, attribute axis
 * (default -1); the output Out has the paddle rule's shape and X's element type. */
void infer_paddle_elementwise(infer_ctx *c);

/* True for a Paddle elementwise operator name (elementwise_add, ...). */
bool paddle_is_elementwise(const char *op_type);

/* The rule for (domain, op_type) when the table has no row: Paddle's elementwise
 * operators in any domain other than ai.onnx (""), whatever a converter named it.
 * NULL otherwise. */
infer_fn paddle_fallback(const char *domain, const char *op_type);

#endif
