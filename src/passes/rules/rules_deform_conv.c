/* rules_deform_conv.c: DeformConv (19, 22).
 *
 * X (N, C, D1..Dn), W (oC, C/group, k1..kn), offset (N, offset_group * k1..kn *
 * n, o1..on), optional B (oC) and mask (N, offset_group * k1..kn, o1..on) give
 * Y (N, oC, o1..on), with o_i = floor((D_i + pad_begin + pad_end - (k_i - 1) *
 * d_i - 1) / s_i) + 1 (no auto_pad, no ceil_mode). The offset and the mask
 * carry the output's spatial sizes too, so they are witnesses of o_i when X's
 * sizes are not known.
 *
 * Invariant: every written dim is either computed from known sizes with checked
 * arithmetic or read from an input that must hold it; all witnesses are merged.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

enum { IN_X, IN_W, IN_OFFSET, IN_B, IN_MASK };

void infer_deform_conv(infer_ctx *c)
{
	int32_t elem = in_elem(c, IN_X);
	set_out_elem(c, 0, elem);
	int32_t r = -1;
	for (int32_t i = 0; i < 5; i++) {
		if (i == IN_B)
			continue;
		int32_t ri = in_rank(c, i);
		if (ri < 0)
			continue;
		if (ri < 3 || (r >= 0 && ri != r)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "'%s' %s: X, W, offset and mask must share one rank of at least 3", in_name(c, i),
				   fmt_shape(c, in(c, i)));
			return;
		}
		r = ri;
	}
	const int64_t *ks;
	int32_t nk;
	if (r < 0 && attr_ints(c, "kernel_shape", &ks, &nk) && nk >= 1 && nk <= RULE_MAX_RANK - 2)
		r = nk + 2;
	if (r < 0)
		return;
	int32_t n = r - 2;
	int64_t *kernel = arena_array(c->a, (size_t)n, sizeof *kernel),
		*strides = arena_array(c->a, (size_t)n, sizeof *strides),
		*dil = arena_array(c->a, (size_t)n, sizeof *dil),
		*pads = arena_array(c->a, (size_t)2 * n, sizeof *pads);
	dim *out = dims_alloc(c, r);
	if (!kernel || !strides || !dil || !pads || !out) {
		c->m->nomem = true;
		return;
	}
	const tinfo *x = in_ranked(c, IN_X), *w = in_ranked(c, IN_W);
	if (x && x->rank != r) /* only above RULE_MAX_RANK, already reported */
		x = NULL;
	if (w && w->rank != r)
		w = NULL;
	if (attr_has(c, "kernel_shape")) {
		if (!nn_ints_attr(c, "kernel_shape", n, 1, 1, kernel))
			return;
		for (int32_t i = 0; w && i < n; i++) {
			dim k = dim_resolve(c->syms, w->dims[2 + i]);
			if (k.kind == DIM_KNOWN && k.v != kernel[i]) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
					   "kernel_shape[%d] is %lld but the weight '%s' %s has %lld there", i,
					   (long long)kernel[i], in_name(c, IN_W), fmt_shape(c, w), (long long)k.v);
				return;
			}
		}
	} else {
		for (int32_t i = 0; i < n; i++) {
			dim k = w ? dim_resolve(c->syms, w->dims[2 + i]) : dim_unknown();
			kernel[i] = k.kind == DIM_KNOWN ? k.v : -1;
		}
	}
	if (!nn_ints_attr(c, "strides", n, 1, 1, strides) || !nn_ints_attr(c, "dilations", n, 1, 1, dil) ||
	    !nn_ints_attr(c, "pads", 2 * n, 0, 0, pads))
		return;
	int64_t group = attr_i(c, "group", 1), ogroup = attr_i(c, "offset_group", 1);
	if (group < 1 || ogroup < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "group (%lld) and offset_group (%lld) must be at least 1",
			   (long long)group, (long long)ogroup);
		return;
	}

	/* N from X, offset and mask; oC from W and B; C from X and W times group. */
	out[0] = dim_unknown();
	out[1] = dim_unknown();
	if (x && !nn_merge_dim(c, &out[0], x->dims[0], "N", IN_X))
		return;
	if (w && !nn_merge_dim(c, &out[1], w->dims[0], "the output channels", IN_W))
		return;
	const tinfo *b = in_ranked(c, IN_B);
	if (b && (b->rank != 1 || !nn_merge_dim(c, &out[1], b->dims[0], "the output channels", IN_B)))
		return;
	if (x && w) {
		dim cin = x->dims[1];
		if (!nn_merge_dim(c, &cin, dim_mul(c, w->dims[1], dim_known(group)), "the input channels", IN_W))
			return;
	}
	for (int32_t i = 0; i < n; i++)
		if (!nn_conv_out(c, i, n, x ? x->dims[2 + i] : dim_unknown(), kernel, strides, dil, pads,
				 &out[2 + i]))
			return;
	/* offset has offset_group * prod(k) * n channels (a 2-D offset per kernel tap),
	 * mask offset_group * prod(k): known when every kernel size is. */
	int64_t taps = ogroup;
	bool taps_known = true;
	for (int32_t i = 0; i < n && taps_known; i++) {
		taps_known = kernel[i] >= 1;
		if (taps_known && __builtin_mul_overflow(taps, kernel[i], &taps))
			taps_known = false;
	}
	for (int32_t i = IN_OFFSET; i <= IN_MASK; i += IN_MASK - IN_OFFSET) {
		const tinfo *t = in_ranked(c, i);
		if (!t || t->rank != r)
			continue;
		if (!nn_merge_dim(c, &out[0], t->dims[0], "N", i))
			return;
		int64_t ch;
		if (taps_known && !__builtin_mul_overflow(taps, i == IN_OFFSET ? n : 1, &ch)) {
			dim want = dim_known(ch);
			if (!nn_merge_dim(c, &want, t->dims[1],
					i == IN_OFFSET ? "offset_group * prod(kernel) * n"
						       : "offset_group * prod(kernel)",
					i))
				return;
		}
		for (int32_t k = 0; k < n; k++)
			if (!nn_merge_dim(c, &out[2 + k], t->dims[2 + k], "an output spatial size", i))
				return;
	}
	set_out(c, 0, elem, r, out);
}
