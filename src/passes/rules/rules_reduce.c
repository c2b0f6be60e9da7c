/* rules_reduce.c: reductions: the Reduce family (axes as an attribute, or from opset
 * 13 (ReduceSum) / 18 (the others) as an input, with keepdims and
 * noop_with_empty_axes), ArgMax/ArgMin and TopK.
 *
 * ReduceSum, ReduceProd, ReduceMax and ReduceMin also carry small integer content
 * (a shape, an axis list) through, so ReduceProd over a slice of a Shape gives the
 * element count to a later Reshape. Content arithmetic never reports anything: it is
 * what the model computes at run time, and an overflow there just leaves the content
 * unknown.
 *
 * Invariant: with the axes unknown, only what holds for every choice of axes is
 * written (keepdims keeps the rank; a dim of 1 stays 1).
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include "core/dtype.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- content -------------------------------------------------------------- */

typedef enum red_op { RED_NONE, RED_SUM, RED_PROD, RED_MAX, RED_MIN } red_op;

/* Which reductions carry content, and how they combine it. */
static const struct {
	const char *op;
	red_op red;
} red_ops[] = {
	{"ReduceSum", RED_SUM},
	{"ReduceProd", RED_PROD},
	{"ReduceMax", RED_MAX},
	{"ReduceMin", RED_MIN},
};

static red_op red_of(const char *op)
{
	for (size_t i = 0; i < sizeof red_ops / sizeof red_ops[0]; i++)
		if (!strcmp(red_ops[i].op, op))
			return red_ops[i].red;
	return RED_NONE;
}

/* acc op x; with a symbol, the expression (ReduceProd over a Shape's slice gives
 * batch*seq). */
static dim combine(symtab *t, red_op op, dim acc, dim x)
{
	switch (op) {
	case RED_SUM: return dx_add(t, acc, x);
	case RED_PROD: return dx_mul(t, acc, x);
	case RED_MAX: return dx_max(t, acc, x);
	case RED_MIN: return dx_min(t, acc, x);
	default: return dim_unknown();
	}
}

/* Reduces the content of input 0 (shape x, every dim known) over the axes marked in
 * `red`, into output 0 (already set with the reduced shape). */
static void reduce_content(infer_ctx *c, red_op op, const tinfo *x, const bool *red)
{
	const dim *v;
	int32_t nv, r = x->rank, elem = in_elem(c, 0);
	/* Narrower types wrap at run time where int64 would not. */
	if (op == RED_NONE || (elem != DT_INT64 && elem != DT_INT32) || !in_ints(c, 0, &v, &nv))
		return;
	int64_t *idx = arena_array(c->a, (size_t)(r ? r : 1), sizeof *idx);
	int64_t *size = arena_array(c->a, (size_t)(r ? r : 1), sizeof *size);
	int64_t *ostride = arena_array(c->a, (size_t)(r ? r : 1), sizeof *ostride);
	if (!idx || !size || !ostride)
		return;
	int64_t total = 1, nout = 1;
	for (int32_t k = r - 1; k >= 0; k--) {
		dim d = dim_resolve(c->syms, x->dims[k]);
		if (d.kind != DIM_KNOWN || __builtin_mul_overflow(total, d.v, &total))
			return;
		size[k] = d.v;
		idx[k] = 0;
		ostride[k] = red[k] ? 0 : nout;
		if (!red[k])
			nout *= d.v; /* bounded by total */
	}
	if (total != nv || nout > TINFO_MAX_VALUES)
		return;
	dim *out = dims_alloc(c, (int32_t)nout);
	bool *seen = arena_array(c->a, (size_t)(nout ? nout : 1), sizeof *seen);
	if (!out || !seen)
		return;
	for (int64_t e = 0; e < nv; e++) {
		int64_t o = 0;
		for (int32_t k = 0; k < r; k++)
			o += idx[k] * ostride[k];
		dim x1 = dim_resolve(c->syms, v[e]);
		out[o] = seen[o] ? combine(c->syms, op, out[o], x1) : x1;
		seen[o] = true;
		for (int32_t k = r - 1; k >= 0 && ++idx[k] == size[k]; k--)
			idx[k] = 0;
	}
	/* An empty reduction gives the identity: 0 for a sum, 1 for a product; the
	 * lowest value of the type for max/min, which content does not carry. */
	for (int64_t o = 0; o < nout; o++) {
		if (seen[o])
			continue;
		if (op != RED_SUM && op != RED_PROD)
			return;
		out[o] = dim_known(op == RED_SUM ? 0 : 1);
	}
	for (int64_t o = 0; elem == DT_INT32 && o < nout; o++)
		if (out[o].kind == DIM_KNOWN && (out[o].v < INT32_MIN || out[o].v > INT32_MAX))
			return;
	set_out_ints(c, 0, out, (int32_t)nout);
}

/* ---- Reduce* ---------------------------------------------------------------- */

/* axes_known: the axes are axes[0..naxes) (none: all of them, or none with noop). */
static void reduce_shape(infer_ctx *c, bool axes_known, const int64_t *axes, int32_t naxes, bool noop)
{
	int32_t elem = in_elem(c, 0);
	bool keep = attr_i(c, "keepdims", 1) == 1; /* ONNX Runtime keeps for 1 only */
	red_op op = red_of(c->n->op_type);
	set_out_elem(c, 0, elem);
	int32_t r = in_rank(c, 0);
	const tinfo *x = r >= 0 ? in(c, 0) : NULL;
	if (axes_known && naxes == 0 && noop) {
		/* Reduction over no axes: the identity for these, the square (log, exp...)
		 * elementwise for the composite ones, whose content is not carried. */
		if (!x)
			return;
		set_out(c, 0, elem, r, x->dims);
		const dim *v;
		int32_t nv;
		if (op != RED_NONE && in_ints(c, 0, &v, &nv))
			set_out_ints(c, 0, v, nv);
		return;
	}
	if (!x) {
		if (axes_known && naxes == 0 && !keep)
			set_out(c, 0, elem, 0, NULL);
		return;
	}
	dim *out = dims_alloc(c, r);
	bool *red = arena_array(c->a, (size_t)(r ? r : 1), sizeof *red);
	if (!out || !red)
		return;
	if (!axes_known) {
		/* Any axes may be reduced: only the rank (with keepdims) and 1s are certain. */
		if (!keep)
			return;
		for (int32_t k = 0; k < r; k++)
			out[k] = dim_is(dim_resolve(c->syms, x->dims[k]), 1) ? dim_known(1) : dim_unknown();
		set_out(c, 0, elem, r, out);
		return;
	}
	for (int32_t k = 0; k < r; k++)
		red[k] = naxes == 0;
	for (int32_t i = 0; i < naxes; i++) {
		int32_t k;
		if (!norm_axis(c, axes[i], r, false, "axis", &k))
			return;
		red[k] = true;
	}
	int32_t nr = 0;
	for (int32_t k = 0; k < r; k++) {
		if (!red[k])
			out[nr++] = x->dims[k];
		else if (keep)
			out[nr++] = dim_known(1);
	}
	set_out(c, 0, elem, nr, out);
	reduce_content(c, op, x, red);
}

/* Before opset 13 (ReduceSum) or 18 (the others): axes is an attribute; absent means
 * every axis. */
void infer_reduce_attr(infer_ctx *c)
{
	const int64_t *axes = NULL;
	int32_t n = 0;
	attr_ints(c, "axes", &axes, &n);
	reduce_shape(c, true, axes, n, false);
}

/* From opset 13 (ReduceSum) or 18: axes is an optional input. */
void infer_reduce_input(infer_ctx *c)
{
	bool noop = attr_i(c, "noop_with_empty_axes", 0) != 0;
	if (!in(c, 1)) {
		/* An axes attribute left over from the earlier versions (an
		 * attribute-error of its schema): runtimes reading it reduce those axes,
		 * strict ones every axis. */
		if (attr_has(c, "axes")) {
			reduce_shape(c, false, NULL, 0, noop);
			return;
		}
		reduce_shape(c, true, NULL, 0, noop);
		return;
	}
	const tinfo *at = in_ranked(c, 1);
	if (at && at->rank != 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "axes '%s' %s must be 1-D", in_name(c, 1), fmt_shape(c, at));
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	int64_t axes[RULE_MAX_RANK];
	int32_t n;
	if (in_known_ints(c, 1, axes, RULE_MAX_RANK, &n)) {
		reduce_shape(c, true, axes, n, noop);
		return;
	}
	/* Content unknown but known empty: as absent. */
	if (at && dim_is(dim_resolve(c->syms, at->dims[0]), 0)) {
		reduce_shape(c, true, NULL, 0, noop);
		return;
	}
	/* One axis, which one unknown, without keepdims: one dimension goes, so the rank
	 * is certain, and output dim k is input dim k or k + 1, known where those agree. */
	const tinfo *x = in_ranked(c, 0);
	if (at && dim_is(dim_resolve(c->syms, at->dims[0]), 1) && attr_i(c, "keepdims", 1) != 1 && x && x->rank >= 1) {
		dim *out = dims_alloc(c, x->rank - 1);
		if (!out)
			return;
		for (int32_t k = 0; k + 1 < x->rank; k++) {
			dim a = dim_resolve(c->syms, x->dims[k]), b = dim_resolve(c->syms, x->dims[k + 1]);
			out[k] = dim_eq(a, b) ? a : dim_unknown();
		}
		set_out(c, 0, in_elem(c, 0), x->rank - 1, out);
		return;
	}
	reduce_shape(c, false, NULL, 0, noop);
}

/* ---- ArgMax, ArgMin ----------------------------------------------------------- */

void infer_argmax(infer_ctx *c)
{
	set_out_elem(c, 0, DT_INT64);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	const tinfo *x = in(c, 0);
	int32_t axis;
	if (!norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &axis))
		return;
	bool keep = attr_i(c, "keepdims", 1) == 1; /* ONNX Runtime keeps for 1 only */
	dim *out = dims_alloc(c, r);
	if (!out)
		return;
	int32_t nr = 0;
	for (int32_t k = 0; k < r; k++) {
		if (k != axis)
			out[nr++] = x->dims[k];
		else if (keep)
			out[nr++] = dim_known(1);
	}
	set_out(c, 0, DT_INT64, nr, out);
}

/* ---- TopK --------------------------------------------------------------------- */

/* Values and Indices (INT64): X's shape with K along axis. A K not known before run
 * time is one fresh symbol shared by both outputs. */
static void topk_shape(infer_ctx *c, bool have_k, dim k)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, DT_INT64);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	const tinfo *x = in(c, 0);
	int32_t axis;
	if (!norm_axis(c, attr_i(c, "axis", -1), r, false, "axis", &axis))
		return;
	dim d = dim_resolve(c->syms, x->dims[axis]);
	if (have_k && k.kind == DIM_KNOWN) {
		if (k.v < 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "K is %lld, must not be negative", (long long)k.v);
			return;
		}
		if (d.kind == DIM_KNOWN && k.v > d.v) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "K (%lld) exceeds the size of axis %d of '%s' %s",
				   (long long)k.v, axis, in_name(c, 0), fmt_shape(c, x));
			return;
		}
	}
	if (!have_k)
		k = dim_fresh_same(c);
	dim *out = dims_dup(c, x->dims, r);
	if (!out)
		return;
	out[axis] = k;
	set_out(c, 0, elem, r, out);
	set_out(c, 1, DT_INT64, r, out);
}

void infer_topk1(infer_ctx *c)
{
	if (!attr_has(c, "k")) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the k attribute is required before opset 10");
		set_out_elem(c, 0, in_elem(c, 0));
		set_out_elem(c, 1, DT_INT64);
		return;
	}
	topk_shape(c, true, dim_known(attr_i(c, "k", 0)));
}

void infer_topk10(infer_ctx *c)
{
	const tinfo *kt = in_ranked(c, 1);
	if (kt && (kt->rank != 1 || (dim_resolve(c->syms, kt->dims[0]).kind == DIM_KNOWN &&
				     !dim_is(dim_resolve(c->syms, kt->dims[0]), 1)))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "K '%s' %s must be a 1-D tensor of one value", in_name(c, 1),
			   fmt_shape(c, kt));
		set_out_elem(c, 0, in_elem(c, 0));
		set_out_elem(c, 1, DT_INT64);
		return;
	}
	dim k;
	bool have = in_int1(c, 1, &k);
	topk_shape(c, have, have ? k : dim_unknown());
}
