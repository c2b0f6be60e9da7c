/* rules_paddle.h: the rule functions of rules_paddle.c (Paddle's elementwise_*), for
 * ops_paddle.def. */
#ifndef OSH_PASSES_RULES_PADDLE_H
#define OSH_PASSES_RULES_PADDLE_H

#include "passes/rule_api/rule_api.h"

/* elementwise_add/sub/mul/div/pow/max/min/mod/floordiv: X, Y, attribute axis
 * (default -1); the output Out has the paddle rule's shape and X's element type. */
void infer_paddle_elementwise(infer_ctx *c);

#endif
