/* rules_paddle.c: PaddlePaddle's elementwise operators (elementwise_add and its
 * family) under the paddle broadcasting rule.
 *
 * What Paddle computes (spec section 4b): the lower-rank input is placed at `axis` of
 * the higher-rank one (default -1: right-aligned), padded with 1s on both sides, and
 * then the numpy rule applies both ways, so unlike the strict pdpd rule the
 * higher-rank input may grow. The output has X's element type.
 *
 * Invariant: the output is set only when the inputs broadcast; a mismatch is reported
 * (by infer_broadcast, which names the rule) and leaves it unknown.
 */
#include "passes/rules/rule_protos.h"

#include <string.h>

void infer_paddle_elementwise(infer_ctx *c)
{
	if (in_count(c) != 2 || !in(c, 0) || !in(c, 1) || out_count(c) < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s takes 2 inputs (X, Y) and gives 1 output, the node has %d and %d",
			   c->n->op_type, in_count(c), out_count(c));
		return;
	}
	const tinfo *x = in(c, 0), *y = in(c, 1);
	int32_t cap = 0;
	if (x->kind == TK_TENSOR && x->rank > cap)
		cap = x->rank;
	if (y->kind == TK_TENSOR && y->rank > cap)
		cap = y->rank;
	dim *d = dims_alloc(c, cap);
	if (!d)
		return;
	int32_t rank;
	if (!infer_broadcast(c, BCAST_PADDLE, 0, 1, attr_i(c, "axis", -1), &rank, d, cap))
		return;
	int32_t elem = x->kind == TK_TENSOR && x->elem ? x->elem : y->kind == TK_TENSOR ? y->elem : 0;
	set_out(c, 0, elem, rank, d);
}
