/* opset_decompose.c: operators a target opset predates (or that ONNX Runtime runs
 * only at their own opset), expressed by older ones where that is exact: Gelu,
 * LayerNormalization, RMSNormalization, HardSwish, Swish, Mish, CastLike,
 * GreaterOrEqual, Trilu, CumProd, RotaryEmbedding, CenterCropPad,
 * TensorScatter, GroupNormalization-21, the window functions, the Reduce operators
 * of opset 18 whose axes are computed, and ONNX Runtime's own LayerNormalization and
 * SimplifiedLayerNormalization of the default domain. Each follows the operator's
 * definition; what it cannot say exactly it refuses. Attention is opset_attention.c.
 *
 * A decomposition inserts its nodes before the node, which becomes the last of them
 * (ns_become) and keeps output 0; other outputs come from inserted nodes that make
 * them under their own names (ns_ins_output).
 */
#include "core/dtype.h"
#include "core/schema/kernels.h"
#include "core/shape.h"
#include "passes/rewrite/opset_node.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A Reduce node of op over x with the axes and attributes of this node (axes an
 * input: ReduceSum from 13), or this node becoming it (out NULL). */
static bool reduce_sum_like(nstate *s, const char *role, const char *x, const char **out)
{
	bool keep = ns_attr_i(s, "keepdims", 1) != 0, noop = ns_attr_i(s, "noop_with_empty_axes", 0) != 0;
	const char *axes = ns_input_name(s, 1);
	if (!out)
		return ns_become(s, "ReduceSum", x, axes) && ns_put_i(s, "keepdims", keep) &&
		       (!noop || ns_put_i(s, "noop_with_empty_axes", 1));
	struct Onnx__NodeProto *np;
	const char *in[2] = {x, axes};
	return ns_insn(s, "ReduceSum", role, 2, in, out, &np) && rw_set_attr_i(s->r, np, "keepdims", keep) &&
	       (!noop || rw_set_attr_i(s->r, np, "noop_with_empty_axes", 1));
}

/* ReduceMax, ReduceMin, ReduceProd over axes known only at run time, on x of known
 * dims: along each axis k that the axes name, the reduction broadcast back over k
 * (Where on whether k is named), then the named axes cut to one element (Slice) and,
 * without keepdims, removed (Reshape to the dims kept, Compress). Each reduction is
 * the operator's own, over one axis at a time. */
static bool reduce_by_axis(nstate *s, int32_t rank, const dim *d)
{
	rw *r = s->r;
	bool keep = ns_attr_i(s, "keepdims", 1) != 0, noop = ns_attr_i(s, "noop_with_empty_axes", 0) != 0;
	const char *x = ns_input_name(s, 0), *axes = ns_input_name(s, 1), *rn, *shifted, *norm, *empty = NULL, *zero, *flags[8];
	const char *cur = x;
	struct Onnx__NodeProto *np;
	static const int64_t at0[1] = {0};
	if (!rw_scalar(r, s->g, s->base, "rank", DT_INT64, rank, &rn) || !rw_scalar(r, s->g, s->base, "zero", DT_INT64, 0, &zero) ||
	    !ns_ins2(s, "Add", "axes_shifted", axes, rn, &shifted) || !ns_ins2(s, "Mod", "axes_positive", shifted, rn, &norm))
		return false;
	if (!noop) {
		const char *n;
		if (!ns_ins2(s, "Size", "axes_count", axes, NULL, &n) || !ns_ins2(s, "Equal", "axes_empty", n, zero, &empty))
			return false;
	}
	for (int32_t k = 0; k < rank; k++) {
		const char *kv, *eq, *ei, *cnt, *red;
		if (!rw_scalar(r, s->g, s->base, "axis", DT_INT64, k, &kv) || !ns_ins2(s, "Equal", "names_axis", norm, kv, &eq) ||
		    !ns_ins_cast(s, "names_axis_count", eq, DT_INT64, &ei))
			return false;
		const char *in1[1] = {ei};
		if (!ns_insn(s, "ReduceSum", "axis_named", 1, in1, &cnt, &np) || !rw_set_attr_i(r, np, "keepdims", 0) ||
		    !ns_ins2(s, "Greater", "axis_reduced", cnt, zero, &flags[k]))
			return false;
		if (empty && !ns_ins2(s, "Or", "axis_reduced", flags[k], empty, &flags[k]))
			return false;
		int64_t one_axis[1] = {k};
		const char *in2[1] = {cur};
		if (!ns_insn(s, s->op, "along_axis", 1, in2, &red, &np) || !rw_set_attr_ints(r, np, "axes", one_axis, 1) ||
		    !rw_insert(r, s->g, s->ni, "Where", s->base, "reduced", 3, (const char *const[]){flags[k], red, cur}, &cur,
			       &np))
			return false;
		if (!ns_ins_unsqueeze(s, "axis_flag", flags[k], at0, 1, &flags[k]))
			return false;
	}
	int64_t dims[8], ones[8], zeros[8], all[8];
	for (int32_t k = 0; k < rank; k++)
		dims[k] = d[k].v, ones[k] = 1, zeros[k] = 0, all[k] = k;
	const char *flagv, *dn, *on, *zn, *an, *ends;
	if (!ns_insn(s, "Concat", "axes_reduced", rank, flags, &flagv, &np) || !rw_set_attr_i(r, np, "axis", 0) ||
	    !rw_ints(r, s->g, s->base, "dims", dims, rank, &dn) || !rw_ints(r, s->g, s->base, "ones", ones, rank, &on) ||
	    !rw_ints(r, s->g, s->base, "starts", zeros, rank, &zn) || !rw_ints(r, s->g, s->base, "all_axes", all, rank, &an) ||
	    !rw_insert(r, s->g, s->ni, "Where", s->base, "ends", 3, (const char *const[]){flagv, on, dn}, &ends, &np))
		return false;
	if (keep) {
		if (!ns_become(s, "Slice", cur, zn) || !ns_set_input(s, 2, ends) || !ns_set_input(s, 3, an))
			return false;
	} else {
		const char *cut, *kept, *to;
		if (!rw_insert(r, s->g, s->ni, "Slice", s->base, "cut", 4, (const char *const[]){cur, zn, ends, an}, &cut, &np) ||
		    !ns_ins2(s, "Not", "axes_kept", flagv, NULL, &kept) || !ns_ins2(s, "Compress", "kept_dims", dn, kept, &to) ||
		    !ns_become(s, "Reshape", cut, to))
			return false;
	}
	ns_note(s, "axes '%s' not a known constant: %s along each named axis, broadcast back by Where, then cut by Slice%s "
		"(this node becomes the last)", axes, s->n->op_type, keep ? "" : " and Reshape");
	return true;
}

bool dn_reduce_axes_computed(nstate *s, bool *done)
{
	rw *r = s->r;
	const char *op = s->op, *x = ns_input_name(s, 0), *axes = ns_input_name(s, 1), *pre = x, *sum, *one, *sh, *ones, *cnt;
	int32_t elem = ns_input_elem(s, 0);
	bool fl = elem == DT_FLOAT || elem == DT_DOUBLE, in = elem == DT_INT32 || elem == DT_INT64;
	dim d[64];
	int32_t rank = ns_input_dims(s, 0, d);
	if (r->to < 13 || !(fl || in))
		return true;
	if (!strcmp(op, "ReduceMax") || !strcmp(op, "ReduceMin") || !strcmp(op, "ReduceProd")) {
		if (rank < 1 || rank > 8)
			return true;
		for (int32_t k = 0; k < rank; k++)
			if (d[k].kind != DIM_KNOWN || d[k].v < 1)
				return true;
		*done = true;
		return reduce_by_axis(s, rank, d);
	}
	if (!strcmp(op, "ReduceL1")) {
		if (!ns_ins2(s, "Abs", "abs", x, NULL, &pre) || !reduce_sum_like(s, "sum", pre, NULL))
			return false;
	} else if (!strcmp(op, "ReduceSumSquare")) {
		if (!ns_ins2(s, "Mul", "squared", x, x, &pre) || !reduce_sum_like(s, "sum", pre, NULL))
			return false;
	} else if (!fl) {
		return true;
	} else if (!strcmp(op, "ReduceL2")) {
		if (!ns_ins2(s, "Mul", "squared", x, x, &pre) || !reduce_sum_like(s, "sum", pre, &sum) ||
		    !ns_become(s, "Sqrt", sum, NULL))
			return false;
	} else if (!strcmp(op, "ReduceLogSum")) {
		if (!reduce_sum_like(s, "sum", x, &sum) || !ns_become(s, "Log", sum, NULL))
			return false;
	} else if (!strcmp(op, "ReduceMean")) {
		if (!reduce_sum_like(s, "sum", x, &sum) || !rw_scalar(r, s->g, s->base, "one", elem, 1, &one) ||
		    !ns_ins2(s, "Shape", "shape_of", x, NULL, &sh) || !ns_ins2(s, "Expand", "ones", one, sh, &ones) ||
		    !reduce_sum_like(s, "count", ones, &cnt) || !ns_become(s, "Div", sum, cnt))
			return false;
	} else {
		return true;
	}
	*done = true;
	ns_note(s, "axes '%s' not a known constant: through ReduceSum-13, which takes them as an input (this node becomes "
		"the last)", axes);
	return true;
}

bool dn_gelu(nstate *s)
{
	if (s->r->to < 9)
		return ns_no_adapter(s);
	const char *approx = ns_attr_s(s, "approximate", "none");
	const char *x = ns_input_name(s, 0), *half, *one, *t, *u, *v;
	if (!ns_const_like(s, "half", 0.5, &half) || s->refused || !ns_const_like(s, "one", 1.0, &one))
		return !s->r->m->nomem;
	if (!strcmp(approx, "tanh")) {
		const char *k, *c, *x2, *x3;
		if (!ns_const_like(s, "cubic", 0.044715, &c) || !ns_const_like(s, "sqrt_2_over_pi", 0.7978845608028654, &k) ||
		    !ns_ins2(s, "Mul", "x2", x, x, &x2) || !ns_ins2(s, "Mul", "x3", x2, x, &x3) ||
		    !ns_ins2(s, "Mul", "cubic_term", x3, c, &t) || !ns_ins2(s, "Add", "inner", x, t, &u) ||
		    !ns_ins2(s, "Mul", "scaled", u, k, &v) || !ns_ins2(s, "Tanh", "tanh", v, NULL, &t))
			return false;
	} else if (!strcmp(approx, "none")) {
		const char *k;
		if (!ns_const_like(s, "inv_sqrt2", 0.7071067811865476, &k) || !ns_ins2(s, "Mul", "scaled", x, k, &v) ||
		    !ns_ins2(s, "Erf", "erf", v, NULL, &t))
			return false;
	} else {
		return ns_refuse(s, "approximate '%s' is neither none nor tanh", approx);
	}
	if (!ns_ins2(s, "Add", "one_plus", t, one, &u) || !ns_ins2(s, "Mul", "x_times", x, u, &v) ||
	    !ns_become(s, "Mul", v, half))
		return false;
	ns_note(s, "decomposed (approximate %s) into Mul, %s, Add (this node becomes the last Mul)", approx,
	     !strcmp(approx, "tanh") ? "Tanh" : "Erf");
	return true;
}

bool dn_layernorm(nstate *s)
{
	rw *r = s->r;
	int32_t rank = ns_rank0(s), at;
	int32_t elem = ns_input_elem(s, 0);
	if (r->to < 7)
		return ns_no_adapter(s);
	if (elem != DT_FLOAT && elem != DT_DOUBLE)
		return ns_refuse(s, "the decomposition is exact for float and double inputs only");
	if (rank < 0 || !shape_axis(ns_attr_i(s, "axis", -1), rank, &at))
		return ns_refuse(s, "the rank of '%s' is unknown", ns_input_name(s, 0));
	/* Mean and InvStdDev are of stash_type (float); given where that is X's type. */
	for (int32_t k = 1; k < s->noutputs && k < 3; k++)
		if (ns_output_used(s, k) && s->g->values[s->n->outputs[k]].ti.elem != elem)
			return ns_refuse(s, "output %d ('%s') is used and not of X's type", k, s->g->values[s->n->outputs[k]].name);
	int64_t axes[64];
	int32_t na = 0;
	for (int32_t k = at; k < rank; k++)
		axes[na++] = k;
	sattr *ea = ns_get(s, "epsilon");
	double eps = ea && ea->type == AT_FLOAT ? ea->f : 1e-5;
	const char *x = ns_input_name(s, 0), *scale = ns_input_name(s, 1), *bias = ns_input_name(s, 2);
	const char *mean, *d, *sq, *var, *ve, *sd, *nrm, *e, *sc;
	struct Onnx__NodeProto *np;
	const char *in_x[1] = {x};
	if (!ns_const_like(s, "epsilon", (float)eps, &e) || s->refused)
		return !r->m->nomem;
	if (!rw_insert(r, s->g, s->ni, "ReduceMean", s->base, "mean", 1, in_x, &mean, &np) ||
	    !rw_set_attr_ints(r, np, "axes", axes, na) || !ns_ins2(s, "Sub", "centred", x, mean, &d) ||
	    !ns_ins2(s, "Mul", "squared", d, d, &sq))
		return false;
	const char *in_sq[1] = {sq};
	if (!rw_insert(r, s->g, s->ni, "ReduceMean", s->base, "variance", 1, in_sq, &var, &np) ||
	    !rw_set_attr_ints(r, np, "axes", axes, na) || !ns_ins2(s, "Add", "variance_eps", var, e, &ve) ||
	    !ns_ins2(s, "Sqrt", "std", ve, NULL, &sd) || !ns_ins2(s, "Div", "normalised", d, sd, &nrm))
		return false;
	bool stats = false;
	for (int32_t k = 1; k < s->noutputs && k < 3; k++) {
		if (!ns_output_used(s, k))
			continue;
		const char *in[1] = {k == 1 ? mean : sd};
		stats = true;
		if (!ns_ins_output(s, k == 1 ? "Identity" : "Reciprocal", k == 1 ? "mean_out" : "inv_std_dev", k, 1, in, &np))
			return false;
	}
	if (bias[0]) {
		if (!ns_ins2(s, "Mul", "scaled", nrm, scale, &sc) || !ns_become(s, "Add", sc, bias))
			return false;
	} else if (!ns_become(s, "Mul", nrm, scale)) {
		return false;
	}
	s->noutputs = 1;
	ns_note(s, "decomposed over axes %d..%d into ReduceMean, Sub, Mul, ReduceMean, Add, Sqrt, Div, Mul%s%s (this node "
		"becomes the last)", at, rank - 1, bias[0] ? ", Add" : "",
	     stats ? ", Mean and InvStdDev given by Identity and Reciprocal" : "");
	return true;
}

bool dn_rmsnorm(nstate *s)
{
	int32_t rank = ns_rank0(s), at;
	int32_t elem = ns_input_elem(s, 0);
	if (s->r->to < 7)
		return ns_no_adapter(s);
	if (elem != DT_FLOAT && elem != DT_DOUBLE)
		return ns_refuse(s, "the decomposition is exact for float and double inputs only");
	if (rank < 0 || !shape_axis(ns_attr_i(s, "axis", -1), rank, &at))
		return ns_refuse(s, "the rank of '%s' is unknown", ns_input_name(s, 0));
	int64_t axes[64];
	int32_t na = 0;
	for (int32_t k = at; k < rank; k++)
		axes[na++] = k;
	sattr *ea = ns_get(s, "epsilon");
	double eps = ea && ea->type == AT_FLOAT ? ea->f : 1e-5;
	const char *x = ns_input_name(s, 0), *scale = ns_input_name(s, 1), *e, *sq, *ms, *ve, *sd, *nrm;
	if (!ns_const_like(s, "epsilon", (float)eps, &e) || s->refused)
		return !s->r->m->nomem;
	if (!ns_ins2(s, "Mul", "squared", x, x, &sq) || !ns_reduce_mean(s, "mean_square", sq, axes, na, &ms) ||
	    !ns_ins2(s, "Add", "mean_square_eps", ms, e, &ve) || !ns_ins2(s, "Sqrt", "rms", ve, NULL, &sd) ||
	    !ns_ins2(s, "Div", "normalised", x, sd, &nrm) || !ns_become(s, "Mul", nrm, scale))
		return false;
	ns_note(s, "decomposed over axes %d..%d into Mul, ReduceMean, Add, Sqrt, Div, Mul (this node becomes the last)", at,
	     rank - 1);
	return true;
}

bool dn_castlike(nstate *s)
{
	const value *like = ns_input_value(s, 1);
	if (!like || like->ti.kind != TK_TENSOR || like->ti.elem <= 0)
		return ns_refuse(s, "the element type of '%s' is unknown", ns_input_name(s, 1));
	s->op = "Cast";
	s->op_set = true;
	ns_drop_input(s, 1);
	ns_note(s, "becomes Cast to %s", dtype_name(like->ti.elem));
	return ns_put_i(s, "to", like->ti.elem);
}

bool dn_hardswish(nstate *s)
{
	rw *r = s->r;
	const char *x = ns_input_name(s, 0), *h;
	struct Onnx__NodeProto *np;
	const char *in[1] = {x};
	if (!rw_insert(r, s->g, s->ni, "HardSigmoid", s->base, "hard_sigmoid", 1, in, &h, &np) ||
	    !ns_set_attr_f(s, np, "alpha", 1.0f / 6) || !ns_set_attr_f(s, np, "beta", 0.5f) || !ns_become(s, "Mul", x, h))
		return false;
	ns_note(s, "decomposed into HardSigmoid (alpha 1/6, beta 0.5) and Mul (this node becomes the Mul)");
	return true;
}

bool dn_swish(nstate *s)
{
	sattr *a = ns_get(s, "alpha");
	double alpha = a && a->type == AT_FLOAT ? a->f : 1.0;
	const char *x = ns_input_name(s, 0), *ax = x, *al, *sg;
	if (alpha != 1.0 && (!ns_const_like(s, "alpha", alpha, &al) || s->refused || !ns_ins2(s, "Mul", "scaled", x, al, &ax)))
		return !s->r->m->nomem && s->refused;
	if (!ns_ins2(s, "Sigmoid", "sigmoid", ax, NULL, &sg) || !ns_become(s, "Mul", x, sg))
		return false;
	ns_note(s, "decomposed (alpha %g) into %sSigmoid and Mul (this node becomes the Mul)", alpha, alpha != 1.0 ? "Mul, " : "");
	return true;
}

bool dn_mish(nstate *s)
{
	const char *x = ns_input_name(s, 0), *sp, *t;
	if (!ns_ins2(s, "Softplus", "softplus", x, NULL, &sp) || !ns_ins2(s, "Tanh", "tanh", sp, NULL, &t) ||
	    !ns_become(s, "Mul", x, t))
		return false;
	ns_note(s, "decomposed into Softplus, Tanh and Mul (this node becomes the Mul)");
	return true;
}

bool dn_or_equal(nstate *s)
{
	if (s->r->to < 11)
		return ns_no_adapter(s);
	const char *a = ns_input_name(s, 0), *b = ns_input_name(s, 1), *st, *eq;
	bool ge = !strcmp(s->op, "GreaterOrEqual");
	if (!ns_ins2(s, ge ? "Greater" : "Less", ge ? "greater" : "less", a, b, &st) || !ns_ins2(s, "Equal", "equal", a, b, &eq) ||
	    !ns_become(s, "Or", st, eq))
		return false;
	ns_note(s, "decomposed into %s, Equal and Or (this node becomes the Or)", ge ? "Greater" : "Less");
	return true;
}

/* This node keeps x where the boolean mask is true, zero elsewhere: Where, or And
 * for a boolean x (ONNX Runtime's Where has no boolean kernel), for the types the
 * runtime's Where runs. */
static bool trilu_keep(nstate *s, const char *mask)
{
	int32_t elem = ns_input_elem(s, 0);
	const char *x = ns_input_name(s, 0), *zero;
	if (elem == DT_BOOL)
		return ns_become(s, "And", mask, x);
	if (elem && elem != DT_FLOAT && elem != DT_DOUBLE && elem != DT_INT32 && elem != DT_INT64 && elem != DT_UINT8)
		return ns_refuse(s, "%s has no Where for %s", kernel_runtime, dtype_name(elem));
	if (!elem || !rw_scalar(s->r, s->g, s->base, "zero", elem, 0, &zero))
		return s->r->m->nomem ? false : ns_refuse(s, "the element type of '%s' is unknown", x);
	return ns_become(s, "Where", mask, x) && ns_set_input(s, 2, zero);
}

/* Trilu where k or the last two dims are known only at run time: the mask computed,
 * column index minus row index against k (Range, Sub, Less or Greater, Not). */
static bool trilu_computed(nstate *s, int32_t rank)
{
	rw *r = s->r;
	bool upper = ns_attr_i(s, "upper", 1) != 0;
	int32_t elem = ns_input_elem(s, 0);
	const char *x = ns_input_name(s, 0), *nr, *nc, *ri, *rows, *cols, *diff, *k, *out, *keep;
	static const int64_t at1[1] = {1};
	if (!elem)
		return ns_refuse(s, "the element type of '%s' is unknown", x);
	if (ns_absent(s, 1)) {
		if (!rw_scalar(r, s->g, s->base, "k", DT_INT64, 0, &k))
			return false;
	} else {
		k = ns_input_name(s, 1);
	}
	if (!ns_ins_dim(s, "rows", x, rank - 2, &nr) || !ns_ins_dim(s, "cols", x, rank - 1, &nc) ||
	    !ns_ins_iota(s, "row_index", nr, &ri) || !ns_ins_unsqueeze(s, "row_column", ri, at1, 1, &rows) ||
	    !ns_ins_iota(s, "col_index", nc, &cols) || !ns_ins2(s, "Sub", "diagonal", cols, rows, &diff) ||
	    !ns_ins2(s, upper ? "Less" : "Greater", "outside", diff, k, &out) || !ns_ins2(s, "Not", "mask", out, NULL, &keep))
		return false;
	const char *kname = ns_absent(s, 1) ? "0" : ns_input_name(s, 1);
	if (!trilu_keep(s, keep))
		return false;
	ns_note(s, "%s triangle kept by %s over a mask computed from k '%s' (Range, Sub, %s, Not)", upper ? "upper" : "lower",
	     elem == DT_BOOL ? "And" : "Where", kname, upper ? "Less" : "Greater");
	return true;
}

bool dn_trilu(nstate *s)
{
	rw *r = s->r;
	dim d[64];
	int32_t rank = ns_input_dims(s, 0, d);
	if (r->to < 9)
		return ns_no_adapter(s);
	int64_t k = 0;
	bool known = rank >= 2 && d[rank - 2].kind == DIM_KNOWN && d[rank - 1].kind == DIM_KNOWN;
	if (!known || (!ns_absent(s, 1) && ns_const_ints(s, 1, &k, 1) != 1)) {
		if (r->to >= 11 && rank >= 2)
			return trilu_computed(s, rank);
		if (!known)
			return ns_refuse(s, "the last two dims of '%s' are not known", ns_input_name(s, 0));
		return ns_refuse(s, "k '%s' is not a known constant (a computed mask needs Range, opset 11)",
			      ns_input_name(s, 1));
	}
	int64_t rows = d[rank - 2].v, cols = d[rank - 1].v, count;
	if (__builtin_mul_overflow(rows, cols, &count) || count > (INT64_C(1) << 22))
		return ns_refuse(s, "a %lld x %lld mask is too big to write out", (long long)rows, (long long)cols);
	bool upper = ns_attr_i(s, "upper", 1) != 0;
	const char *mask = rw_init_name(r, s->base, "mask");
	r->ninits++;
	if (r->apply) {
		int64_t *m = arena_array(r->m->arena, count ? (size_t)count : 1, sizeof *m);
		if (!m)
			return rw_nomem(r), false;
		for (int64_t i = 0; i < rows; i++)
			for (int64_t j = 0; j < cols; j++)
				m[i * cols + j] = upper ? j - i >= k : j - i <= k;
		int64_t dims[2] = {rows, cols};
		if (!edit_add_initializer(r->e, s->g, mask, DT_BOOL, dims, 2, m, NULL))
			return rw_nomem(r), false;
	}
	if (!trilu_keep(s, mask))
		return false;
	ns_note(s, "%s triangle (k %lld) kept by %s over a constant mask", upper ? "upper" : "lower", (long long)k,
	     ns_input_elem(s, 0) == DT_BOOL ? "And" : "Where");
	return true;
}

/* CumProd along axis `at` of n elements: each slice (Gather) times the running
 * product before it, in the operator's order (reversed: from the end), concatenated
 * back; exclusive shifts the products by one, a slice of ones first (Expand). The
 * Concat is inserted (out), or this node becomes it (out NULL). */
static bool cumprod_along(nstate *s, int32_t at, int32_t n, int32_t elem, const char **out)
{
	rw *r = s->r;
	bool exclusive = ns_attr_i(s, "exclusive", 0) != 0, reverse = ns_attr_i(s, "reverse", 0) != 0;
	const char *x = ns_input_name(s, 0), *parts[64], *run = NULL;
	struct Onnx__NodeProto *np;
	for (int32_t j = 0; j < n; j++) {
		int32_t i = reverse ? n - 1 - j : j;
		int64_t idx[1] = {i};
		const char *ix, *slice;
		if (!rw_ints(r, s->g, s->base, "index", idx, 1, &ix))
			return false;
		const char *in[2] = {x, ix};
		if (!ns_insn(s, "Gather", "slice", 2, in, &slice, &np) || !rw_set_attr_i(r, np, "axis", at))
			return false;
		if (!exclusive) {
			if (run && !ns_ins2(s, "Mul", "product", run, slice, &slice))
				return false;
			parts[i] = run = slice;
			continue;
		}
		if (!run) {
			const char *one, *sh;
			if (!rw_scalar(r, s->g, s->base, "one", elem, 1, &one) ||
			    !ns_ins2(s, "Shape", "slice_shape", slice, NULL, &sh) || !ns_ins2(s, "Expand", "ones", one, sh, &parts[i]))
				return false;
		} else {
			parts[i] = run;
		}
		if (j + 1 < n) {
			if (!run)
				run = slice;
			else if (!ns_ins2(s, "Mul", "product", run, slice, &run))
				return false;
		}
	}
	if (out) {
		if (!ns_insn(s, "Concat", "cumprod", n, parts, out, &np) || !rw_set_attr_i(r, np, "axis", at))
			return false;
		return true;
	}
	if (!ns_become(s, "Concat", parts[0], NULL))
		return false;
	for (int32_t i = 1; i < n; i++)
		if (!ns_set_input(s, i, parts[i]))
			return false;
	return ns_put_i(s, "axis", at);
}

bool dn_cumprod(nstate *s)
{
	rw *r = s->r;
	dim d[64];
	int32_t rank = ns_input_dims(s, 0, d), at = 0;
	int32_t elem = ns_input_elem(s, 0), aelem = ns_input_elem(s, 1);
	int64_t axis;
	if (r->to < 11)
		return ns_no_adapter(s);
	if (elem != DT_FLOAT && elem != DT_DOUBLE && elem != DT_INT32 && elem != DT_INT64)
		return ns_refuse(s, "the decomposition is written for float, double, int32 and int64 inputs");
	if (rank < 1)
		return ns_refuse(s, "the rank of '%s' is unknown", ns_input_name(s, 0));
	bool fixed = ns_const_ints(s, 1, &axis, 1) == 1;
	if (fixed && !shape_axis(axis, rank, &at))
		return ns_refuse(s, "axis %lld is out of range for rank %d", (long long)axis, rank);
	if (!fixed && rank == 1)
		fixed = true, at = 0;
	if (!fixed && (rank > 4 || (aelem != DT_INT32 && aelem != DT_INT64)))
		return ns_refuse(s, "axis '%s' is not a known constant (and X has more than 4 axes to choose from)",
			      ns_input_name(s, 1));
	for (int32_t k = 0; k < rank; k++)
		if ((!fixed || k == at) && (d[k].kind != DIM_KNOWN || d[k].v < 1 || d[k].v > 64))
			return ns_refuse(s, "axis %d of '%s' is not known to have 1 to 64 elements", k, ns_input_name(s, 0));
	if (fixed) {
		if (!cumprod_along(s, at, (int32_t)d[at].v, elem, NULL))
			return false;
		ns_note(s, "decomposed along axis %d into Gather, Mul and Concat (this node becomes the Concat)", at);
		return true;
	}
	const char *pick = NULL, *axis_name = ns_input_name(s, 1);
	for (int32_t k = rank - 1; k >= 0; k--) {
		const char *y, *kv, *kn, *e1, *e2, *is;
		if (!cumprod_along(s, k, (int32_t)d[k].v, elem, &y))
			return false;
		if (!pick) {
			pick = y;
			continue;
		}
		if (!rw_scalar(r, s->g, s->base, "axis", aelem, k, &kv) || !rw_scalar(r, s->g, s->base, "axis", aelem, k - rank, &kn) ||
		    !ns_ins2(s, "Equal", "is_axis", ns_input_name(s, 1), kv, &e1) ||
		    !ns_ins2(s, "Equal", "is_axis", ns_input_name(s, 1), kn, &e2) || !ns_ins2(s, "Or", "is_axis", e1, e2, &is))
			return false;
		if (k == 0) {
			if (!ns_become(s, "Where", is, y) || !ns_set_input(s, 2, pick))
				return false;
		} else if (!rw_insert(r, s->g, s->ni, "Where", s->base, "picked", 3, (const char *const[]){is, y, pick}, &pick,
				      &(struct Onnx__NodeProto *){NULL})) {
			return false;
		}
	}
	ns_note(s, "decomposed along each of the %d axes into Gather, Mul and Concat, the axis '%s' picked by Equal and Where "
		"(this node becomes the last Where)", rank, axis_name);
	return true;
}

bool dn_rotary(nstate *s)
{
	rw *r = s->r;
	if (r->to < 13)
		return ns_refuse(s, "the decomposition needs opset 13 (Unsqueeze with axes as an input)");
	dim d[64];
	int32_t rank = ns_input_dims(s, 0, d);
	int32_t t = ns_input_elem(s, 0);
	if (t != DT_FLOAT)
		return ns_refuse(s, "the decomposition is written for float inputs");
	if (rank != 3 && rank != 4)
		return ns_refuse(s, "the rank of '%s' is not known to be 3 or 4", ns_input_name(s, 0));
	int64_t heads = ns_attr_i(s, "num_heads", 0), hs = -1;
	if (d[rank - 1].kind == DIM_KNOWN)
		hs = rank == 4 ? d[3].v : heads > 0 && d[2].v % heads == 0 ? d[2].v / heads : -1;
	if (hs <= 0)
		return ns_refuse(s, "the head size is not known");
	int64_t rot = ns_attr_i(s, "rotary_embedding_dim", 0);
	if (rot <= 0)
		rot = hs;
	if (rot > hs || rot % 2)
		return ns_refuse(s, "rotary_embedding_dim %lld does not fit head size %lld", (long long)rot, (long long)hs);
	bool inter = ns_attr_i(s, "interleaved", 0) != 0;
	static const int64_t perm[4] = {0, 2, 1, 3}, at2[1] = {2}, at4[1] = {4};
	const char *x = ns_input_name(s, 0), *xt, *xr, *xp = NULL, *cs, *sn, *x1, *x2, *a, *b, *re, *im, *o;
	struct Onnx__NodeProto *np;
	if (rank == 4) {
		if (!ns_ins_perm(s, "seq_heads", x, perm, 4, &xt))
			return false;
	} else {
		int64_t to[4] = {0, 0, heads, hs};
		if (!ns_ins_reshape(s, "seq_heads", x, to, 4, &xt))
			return false;
	}
	xr = xt;
	if (rot < hs && (!ns_ins_slice(s, "rotated_part", xt, 0, rot, 3, 1, &xr) ||
			 !ns_ins_slice(s, "passed_part", xt, rot, INT64_MAX, 3, 1, &xp)))
		return false;
	cs = ns_input_name(s, 1);
	sn = ns_input_name(s, 2);
	if (!ns_absent(s, 3) && (!ns_ins2(s, "Gather", "cos_at", cs, ns_input_name(s, 3), &cs) ||
			      !ns_ins2(s, "Gather", "sin_at", sn, ns_input_name(s, 3), &sn)))
		return false;
	if (!ns_ins_unsqueeze(s, "cos", cs, at2, 1, &cs) || !ns_ins_unsqueeze(s, "sin", sn, at2, 1, &sn))
		return false;
	if (inter ? !ns_ins_slice(s, "x1", xr, 0, rot, 3, 2, &x1) || !ns_ins_slice(s, "x2", xr, 1, rot, 3, 2, &x2)
		  : !ns_ins_slice(s, "x1", xr, 0, rot / 2, 3, 1, &x1) || !ns_ins_slice(s, "x2", xr, rot / 2, rot, 3, 1, &x2))
		return false;
	if (!ns_ins2(s, "Mul", "cos_x1", cs, x1, &a) || !ns_ins2(s, "Mul", "sin_x2", sn, x2, &b) ||
	    !ns_ins2(s, "Sub", "real", a, b, &re) || !ns_ins2(s, "Mul", "sin_x1", sn, x1, &a) ||
	    !ns_ins2(s, "Mul", "cos_x2", cs, x2, &b) || !ns_ins2(s, "Add", "imag", a, b, &im))
		return false;
	if (inter) {
		int64_t to[4] = {0, 0, 0, rot};
		if (!ns_ins_unsqueeze(s, "real_pair", re, at4, 1, &re) || !ns_ins_unsqueeze(s, "imag_pair", im, at4, 1, &im) ||
		    !rw_insert(r, s->g, s->ni, "Concat", s->base, "pairs", 2, (const char *const[]){re, im}, &o, &np) ||
		    !rw_set_attr_i(r, np, "axis", 4) || !ns_ins_reshape(s, "rotated", o, to, 4, &o))
			return false;
	} else if (!rw_insert(r, s->g, s->ni, "Concat", s->base, "rotated", 2, (const char *const[]){re, im}, &o, &np) ||
		   !rw_set_attr_i(r, np, "axis", 3)) {
		return false;
	}
	if (xp && (!rw_insert(r, s->g, s->ni, "Concat", s->base, "joined", 2, (const char *const[]){o, xp}, &o, &np) ||
		   !rw_set_attr_i(r, np, "axis", 3)))
		return false;
	if (rank == 4) {
		if (!ns_become(s, "Transpose", o, NULL) || !ns_put_ints(s, "perm", perm, 4))
			return false;
	} else {
		static const int64_t merged[3] = {0, 0, -1};
		const char *sh;
		if (!rw_ints(r, s->g, s->base, "merged_shape", merged, 3, &sh) || !ns_become(s, "Reshape", o, sh))
			return false;
	}
	ns_note(s, "decomposed (%d-D, head size %lld, %lld rotated%s) into Slice, Gather, Mul, Sub, Add, Concat (this node "
		"becomes the last %s)", rank, (long long)hs, (long long)rot, inter ? ", interleaved" : "", s->op);
	return true;
}

bool dn_center_crop_pad(nstate *s)
{
	rw *r = s->r;
	if (r->to < 13)
		return ns_no_adapter(s);
	int32_t rank = ns_rank0(s), elem = ns_input_elem(s, 0);
	if (rank < 1 || rank > 64)
		return ns_refuse(s, "the rank of '%s' is unknown", ns_input_name(s, 0));
	if (elem != DT_FLOAT && elem != DT_DOUBLE && elem != DT_INT32 && elem != DT_INT64 && elem != DT_UINT8)
		return ns_refuse(s, "the decomposition is written for float, double, int32, int64 and uint8 inputs");
	if (ns_input_elem(s, 1) != DT_INT64)
		return ns_refuse(s, "shape '%s' is not known to be int64", ns_input_name(s, 1));
	sattr *ax = ns_get(s, "axes");
	int64_t axes[64], pos[128];
	int32_t n = 0;
	if (ax && ax->type == AT_INTS) {
		if (ax->n > rank)
			return ns_refuse(s, "more axes than the rank");
		for (int32_t i = 0; i < ax->n; i++) {
			int32_t at;
			if (!shape_axis(ax->ints[i], rank, &at))
				return ns_refuse(s, "axis %lld is out of range", (long long)ax->ints[i]);
			axes[n++] = at;
		}
	} else {
		for (int32_t k = 0; k < rank; k++)
			axes[n++] = k;
	}
	for (int32_t i = 0; i < n; i++)
		pos[i] = axes[i], pos[n + i] = axes[i] + rank;
	const char *x = ns_input_name(s, 0), *size = ns_input_name(s, 1), *sh, *an, *dims, *diff, *zero, *two, *crop, *start, *lo,
		   *end, *ndiff, *padn, *before, *after, *both, *zn, *idx, *pads, *cut, *ax_in;
	int64_t zeros[128] = {0};
	struct Onnx__NodeProto *np;
	if (!ns_ins2(s, "Shape", "shape_of", x, NULL, &sh) || !rw_ints(r, s->g, s->base, "axes", axes, n, &an) ||
	    !ns_ins2(s, "Gather", "dims", sh, an, &dims) || !ns_ins2(s, "Sub", "excess", dims, size, &diff) ||
	    !rw_scalar(r, s->g, s->base, "zero", DT_INT64, 0, &zero) || !rw_scalar(r, s->g, s->base, "two", DT_INT64, 2, &two) ||
	    !ns_ins2(s, "Max", "crop", diff, zero, &crop) || !ns_ins2(s, "Div", "crop_start", crop, two, &start) ||
	    !ns_ins2(s, "Min", "kept", dims, size, &lo) || !ns_ins2(s, "Add", "crop_end", start, lo, &end) ||
	    !ns_ins2(s, "Neg", "shortfall", diff, NULL, &ndiff) || !ns_ins2(s, "Max", "pad", ndiff, zero, &padn) ||
	    !ns_ins2(s, "Div", "pad_before", padn, two, &before) || !ns_ins2(s, "Sub", "pad_after", padn, before, &after))
		return false;
	if (!rw_ints(r, s->g, s->base, "axes", axes, n, &ax_in) ||
	    !rw_insert(r, s->g, s->ni, "Slice", s->base, "cropped", 4, (const char *const[]){x, start, end, ax_in}, &cut, &np))
		return false;
	if (!rw_insert(r, s->g, s->ni, "Concat", s->base, "pads_given", 2, (const char *const[]){before, after}, &both, &np) ||
	    !rw_set_attr_i(r, np, "axis", 0) || !rw_ints(r, s->g, s->base, "no_pads", zeros, 2 * rank, &zn) ||
	    !rw_ints(r, s->g, s->base, "pad_positions", pos, 2 * n, &idx) ||
	    !rw_insert(r, s->g, s->ni, "ScatterElements", s->base, "pads", 3, (const char *const[]){zn, idx, both}, &pads, &np))
		return false;
	if (!ns_become(s, "Pad", cut, pads))
		return false;
	ns_note(s, "decomposed over %d axes into Shape, Gather, Sub, Max, Min, Div, Slice and Pad (this node becomes the Pad)", n);
	return true;
}

bool dn_ort_layernorm(nstate *s, int32_t since)
{
	if (s->r->to >= since) {
		ns_note(s, "ONNX Runtime's LayerNormalization of opset %lld is LayerNormalization-%d", (long long)s->r->from, since);
		return true;
	}
	s->first_row = true;
	s->step = since;
	return dn_layernorm(s);
}

bool dn_ort_simplified_layernorm(nstate *s)
{
	if (!ns_drop_outputs_after(s, 1, "the decomposition computes Y only") || s->refused)
		return !s->r->m->nomem;
	s->first_row = true;
	s->step = 1;
	return dn_rmsnorm(s);
}

bool dn_window(nstate *s)
{
	rw *r = s->r;
	if (r->to < 11)
		return ns_no_adapter(s);
	int32_t st = ns_input_elem(s, 0);
	int64_t out = ns_attr_i(s, "output_datatype", DT_FLOAT);
	if (st != DT_INT32 && st != DT_INT64)
		return ns_refuse(s, "size '%s' is not known to be int32 or int64", ns_input_name(s, 0));
	if (out != DT_FLOAT && out != DT_DOUBLE && out != DT_FLOAT16 && out != DT_INT32 && out != DT_INT64)
		return ns_refuse(s, "output_datatype %lld is not one the decomposition writes", (long long)out);
	double a0, a1, a2 = 0;
	if (!strcmp(s->op, "HannWindow"))
		a0 = 0.5, a1 = 0.5;
	else if (!strcmp(s->op, "HammingWindow"))
		a0 = 25.0 / 46.0, a1 = 1 - 25.0 / 46.0;
	else
		a0 = 0.42, a1 = 0.5, a2 = 0.08;
	bool periodic = ns_attr_i(s, "periodic", 1) != 0;
	const char *size = ns_input_name(s, 0), *zero, *one, *n, *nf, *len, *den, *tau, *ang, *c1, *t1, *k0, *k1, *w;
	if (!rw_scalar(r, s->g, s->base, "zero", st, 0, &zero) || !rw_scalar(r, s->g, s->base, "one", st, 1, &one) ||
	    !ns_insn(s, "Range", "index", 3, (const char *const[]){zero, size, one}, &n, &(struct Onnx__NodeProto *){NULL}) ||
	    !ns_ins_cast(s, "index_float", n, DT_FLOAT, &nf) || !ns_ins_cast(s, "length", size, DT_FLOAT, &len))
		return false;
	den = len;
	if (!periodic) {
		const char *onef;
		if (!rw_scalar(r, s->g, s->base, "one_float", DT_FLOAT, 1, &onef) || !ns_ins2(s, "Sub", "span", len, onef, &den))
			return false;
	}
	if (!rw_scalar(r, s->g, s->base, "two_pi", DT_FLOAT, 6.283185307179586, &tau) || !ns_ins2(s, "Mul", "turns", nf, tau, &ang) ||
	    !ns_ins2(s, "Div", "angle", ang, den, &ang) || !ns_ins2(s, "Cos", "cos", ang, NULL, &c1) ||
	    !rw_scalar(r, s->g, s->base, "a0", DT_FLOAT, a0, &k0) || !rw_scalar(r, s->g, s->base, "a1", DT_FLOAT, a1, &k1) ||
	    !ns_ins2(s, "Mul", "first_term", c1, k1, &t1) || !ns_ins2(s, "Sub", "window", k0, t1, &w))
		return false;
	if (a2 != 0) {
		const char *two, *ang2, *c2, *k2, *t2;
		if (!rw_scalar(r, s->g, s->base, "two", DT_FLOAT, 2, &two) || !ns_ins2(s, "Mul", "angle2", ang, two, &ang2) ||
		    !ns_ins2(s, "Cos", "cos2", ang2, NULL, &c2) || !rw_scalar(r, s->g, s->base, "a2", DT_FLOAT, a2, &k2) ||
		    !ns_ins2(s, "Mul", "second_term", c2, k2, &t2) || !ns_ins2(s, "Add", "window2", w, t2, &w))
			return false;
	}
	if (!ns_become(s, "Cast", w, NULL) || !ns_put_i(s, "to", out))
		return false;
	ns_note(s, "decomposed (%s) into Range, Cast, Mul, Div, Cos, Sub%s (this node becomes the Cast)",
		periodic ? "periodic" : "symmetric", a2 != 0 ? ", Add" : "");
	return true;
}

bool dn_tensor_scatter(nstate *s)
{
	rw *r = s->r;
	if (r->to < 13)
		return ns_no_adapter(s);
	int32_t rank = ns_rank0(s), at;
	if (rank < 2 || rank > 64)
		return ns_refuse(s, "the rank of '%s' is unknown", ns_input_name(s, 0));
	int64_t axis = ns_attr_i(s, "axis", -2);
	if (!shape_axis(axis, rank, &at) || at == 0)
		return ns_refuse(s, "axis %lld is out of range or the batch axis", (long long)axis);
	const char *mode = ns_attr_s(s, "mode", "linear");
	bool circular = !strcmp(mode, "circular");
	if (!circular && strcmp(mode, "linear"))
		return ns_refuse(s, "mode '%s' is neither linear nor circular", mode);
	const char *past = ns_input_name(s, 0), *upd = ns_input_name(s, 1), *len, *seq, *idx, *ush;
	int64_t along[64], batch[64];
	for (int32_t k = 0; k < rank; k++)
		along[k] = k == at ? -1 : 1, batch[k] = k == 0 ? -1 : 1;
	if (!ns_ins_dim(s, "update_length", upd, at, &len) || !ns_ins_iota(s, "offset", len, &seq) ||
	    !ns_ins_reshape(s, "offset_along_axis", seq, along, rank, &idx))
		return false;
	if (!ns_absent(s, 2)) {
		const char *w;
		if (!ns_ins_reshape(s, "write_index", ns_input_name(s, 2), batch, rank, &w) ||
		    !ns_ins2(s, "Add", "cache_index", idx, w, &idx))
			return false;
	}
	if (circular) {
		const char *cap;
		if (!ns_ins_dim(s, "cache_length", past, at, &cap) || !ns_ins2(s, "Mod", "cache_index_wrapped", idx, cap, &idx))
			return false;
	}
	if (!ns_ins2(s, "Shape", "update_shape", upd, NULL, &ush) || !ns_ins2(s, "Expand", "indices", idx, ush, &idx))
		return false;
	if (!ns_become(s, "ScatterElements", past, idx) || !ns_set_input(s, 2, upd) || !ns_put_i(s, "axis", at))
		return false;
	ns_note(s, "decomposed (%s, axis %d) into Range, Reshape, Add, %sExpand and ScatterElements (this node becomes the "
		"ScatterElements)", mode, at, circular ? "Mod, " : "");
	return true;
}

bool dn_group_norm21(nstate *s)
{
	rw *r = s->r;
	if (r->to < 13)
		return ns_no_adapter(s);
	dim d[64];
	int32_t rank = ns_input_dims(s, 0, d), elem = ns_input_elem(s, 0);
	if (elem != DT_FLOAT && elem != DT_DOUBLE)
		return ns_refuse(s, "the decomposition is exact for float and double inputs only");
	int64_t groups = ns_attr_i(s, "num_groups", 0);
	if (rank < 2 || rank > 64 || d[1].kind != DIM_KNOWN || groups <= 0 || d[1].v % groups)
		return ns_refuse(s, "the channels of '%s' are not known to divide into %lld groups", ns_input_name(s, 0),
				 (long long)groups);
	sattr *ea = ns_get(s, "epsilon");
	double eps = ea && ea->type == AT_FLOAT ? ea->f : 1e-5;
	int64_t grouped[3] = {0, groups, -1}, per_channel[64] = {d[1].v}, at2[1] = {2};
	for (int32_t k = 1; k < rank - 1; k++)
		per_channel[k] = 1;
	const char *x = ns_input_name(s, 0), *scale = ns_input_name(s, 1), *bias = ns_input_name(s, 2);
	const char *xg, *mean, *dv, *sq, *var, *e, *ve, *sd, *nrm, *sh, *back, *sc, *bc, *scaled;
	if (!ns_const_like(s, "epsilon", (float)eps, &e) || s->refused)
		return !r->m->nomem;
	if (!ns_ins_reshape(s, "grouped", x, grouped, 3, &xg) || !ns_reduce_mean(s, "mean", xg, at2, 1, &mean) ||
	    !ns_ins2(s, "Sub", "centred", xg, mean, &dv) || !ns_ins2(s, "Mul", "squared", dv, dv, &sq) ||
	    !ns_reduce_mean(s, "variance", sq, at2, 1, &var) || !ns_ins2(s, "Add", "variance_eps", var, e, &ve) ||
	    !ns_ins2(s, "Sqrt", "std", ve, NULL, &sd) || !ns_ins2(s, "Div", "normalised", dv, sd, &nrm) ||
	    !ns_ins2(s, "Shape", "shape_of", x, NULL, &sh) || !ns_ins2(s, "Reshape", "ungrouped", nrm, sh, &back) ||
	    !ns_ins_reshape(s, "scale_per_channel", scale, per_channel, rank - 1, &sc) ||
	    !ns_ins_reshape(s, "bias_per_channel", bias, per_channel, rank - 1, &bc) ||
	    !ns_ins2(s, "Mul", "scaled", back, sc, &scaled) || !ns_become(s, "Add", scaled, bc))
		return false;
	ns_note(s, "decomposed (%lld groups) into Reshape, ReduceMean, Sub, Mul, Add, Sqrt, Div, and the per-channel scale "
		"and bias (this node becomes the last Add)", (long long)groups);
	return true;
}
