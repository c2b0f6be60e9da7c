/* rules_ms_quant.c: ONNX Runtime's com.microsoft quantized operators (the QLinear*
 * family, QGemm, MatMulInteger16) and the other com.microsoft operators that ONNX later
 * took in or that ai.onnx has under another shape (ExpandDims, Inverse, CDist, Unique).
 * Rows whose inputs sit where the ai.onnx rule reads them reuse that rule
 * (ops_ms_quant.def); the functions here serve the rest.
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md, checked against what its CPU
 * kernels produce (tests/ort/ms_vs_ort.py) or, where they do not run, by
 * tests/unit/test_rules_ms_quant.c:
 *   - QLinearAdd, QLinearMul: A (0) and B (3) broadcast numpy-style, C of A's type;
 *   - QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, Inverse: Y like X;
 *   - QLinearConcat(Y_scale, Y_zero_point, (X, scale, zero point)...): Concat of the
 *     X's along axis, of Y_zero_point's type;
 *   - QLinearWhere(cond, X, .., .., Y, .., .., z_scale, z_zero_point): the three-way
 *     broadcast of cond, X and Y, of X's type;
 *   - QLinearAveragePool, QLinearGlobalAveragePool: AveragePool's and
 *     GlobalAveragePool's shapes, (N, D..., C) when channels_last;
 *   - QLinearConv: Conv's shape, X and Y (N, D..., C) when channels_last;
 *   - Range: ai.onnx Range's, delta optional (1);
 *   - QGemm(A, .., .., B, .., .., C, y_scale, y_zero_point): (M, N), y_zero_point's type
 *     with y_scale, FLOAT without;
 *   - GatherBlockQuantized(data, indices, scales, ..): Gather of the unpacked data,
 *     UINT8 data holding 8 / bits values a byte along its last axis, of scales' type;
 *   - ExpandDims(X, axis): X with a 1 inserted at axis, in [-r - 1, r];
 *   - CDist(A (N, K), B (M, K)): (N, M);
 *   - Unique(x (L)): y (U), idx (L) INT64, counts (U) INT64, U known at run time.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rules_ms_quant.h"

#include <math.h>

#include "core/dtype.h"
#include "passes/rules/rules_tensor.h"
#include "passes/rules/rules_nn.h"


/* Numpy broadcast of inputs ins[0..n) into output 0 of type elem. */
static void broadcast_inputs(infer_ctx *c, const int32_t *ins, int32_t n, int32_t elem)
{
	set_out_elem(c, 0, elem);
	int32_t rmax = 0;
	for (int32_t k = 0; k < n; k++) {
		int32_t r = in_rank(c, ins[k]);
		if (r < 0)
			return;
		if (r > rmax)
			rmax = r;
	}
	dim *acc = dims_alloc(c, rmax ? rmax : 1), *next = dims_alloc(c, rmax ? rmax : 1);
	if (!acc || !next)
		return;
	const tinfo *t0 = in(c, ins[0]);
	int32_t racc = t0->rank;
	for (int32_t j = 0; j < racc; j++)
		acc[j] = t0->dims[j];
	for (int32_t k = 1; k < n; k++) {
		const tinfo *t = in(c, ins[k]);
		shape a = {racc, acc}, b = {t->rank, t->dims};
		nn_operand an = {k == 1 ? "'%s'" : "the broadcast of the inputs before it", k == 1 ? ins[0] : -1};
		nn_operand bn = {"'%s'", ins[k]};
		if (!nn_broadcast(c, BCAST_NUMPY, a, b, -1, an, bn, &racc, next))
			return;
		dim *tmp = acc;
		acc = next;
		next = tmp;
	}
	set_out(c, 0, elem, racc, acc);
}

/* ---- element-wise ------------------------------------------------------------------ */

void infer_ms_qlinear_binary(infer_ctx *c)
{
	static const int32_t ins[2] = {0, 3};
	broadcast_inputs(c, ins, 2, in_elem(c, 0));
}

void infer_ms_qlinear_where(infer_ctx *c)
{
	static const int32_t ins[3] = {0, 1, 4};
	broadcast_inputs(c, ins, 3, in_elem(c, 1));
}


/* ---- QLinearConcat ------------------------------------------------------------------ */

void infer_ms_qlinear_concat(infer_ctx *c)
{
	int32_t elem = in_elem(c, 1), n = in_count(c), r = -1;
	set_out_elem(c, 0, elem);
	if (n < 5 || (n - 2) % 3 != 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "QLinearConcat takes Y_scale, Y_zero_point and (tensor, scale, zero point) triples, not "
			   "%d inputs",
			   n);
		return;
	}
	for (int32_t i = 2; i < n; i += 3) {
		int32_t ri = in_rank(c, i);
		if (ri < 0)
			continue;
		if (r >= 0 && ri != r) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s has rank %d where '%s' has rank %d",
				   in_name(c, i), fmt_shape(c, in(c, i)), ri, in_name(c, 2), r);
			return;
		}
		r = ri;
	}
	if (r < 0)
		return;
	int32_t a;
	if (!norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &a))
		return;
	dim *out = dims_alloc(c, r ? r : 1);
	if (!out)
		return;
	for (int32_t k = 0; k < r; k++)
		out[k] = dim_unknown();
	dim sum = dim_known(0);
	bool all = true;
	for (int32_t i = 2; i < n; i += 3) {
		const tinfo *t = in_ranked(c, i);
		if (!t) {
			all = false;
			continue;
		}
		for (int32_t k = 0; k < r; k++)
			if (k != a && !nn_merge_dim(c, &out[k], t->dims[k], "a dim off the axis", i))
				return;
		sum = dim_add(c, sum, t->dims[a]);
	}
	out[a] = all ? sum : dim_unknown();
	set_out(c, 0, elem, r, out);
}

/* ---- pools and conv ------------------------------------------------------------------- */

/* Its messages name the moved shape: the one the rule saw. */
void ms_channels_last(infer_ctx *c, infer_fn rule)
{
	int32_t r = in_rank(c, 0);
	if (r < 3) {
		if (r >= 0)
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "input '%s' %s needs at least 3 dimensions (N, D..., C)", in_name(c, 0),
				   fmt_shape(c, in(c, 0)));
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	value *xv = &c->g->values[c->n->inputs[0]];
	tinfo saved = xv->ti;
	dim *moved = dims_alloc(c, r);
	if (!moved)
		return;
	moved[0] = saved.dims[0];
	moved[1] = saved.dims[r - 1];
	for (int32_t k = 1; k < r - 1; k++)
		moved[k + 1] = saved.dims[k];
	xv->ti.dims = moved;
	rule(c);
	xv->ti = saved;
	if (!out_present(c, 0))
		return;
	const tinfo *y = &c->g->values[c->n->outputs[0]].ti;
	if (y->kind != TK_TENSOR || y->rank != r)
		return;
	dim *back = dims_alloc(c, r);
	if (!back)
		return;
	back[0] = y->dims[0];
	for (int32_t k = 1; k < r - 1; k++)
		back[k] = y->dims[k + 1];
	back[r - 1] = y->dims[1];
	set_out(c, 0, y->elem, r, back);
}

/* Opset 19 has every window attribute: ceil_mode, which QLinearAveragePool has, came
 * in AveragePool-10, dilations in AveragePool-19 (MaxPool-10). */
void ms_pool_latest(infer_ctx *c)
{
	infer_ctx d = *c;
	d.opset = 19;
	infer_pool(&d);
}

void infer_ms_qlinear_avg_pool(infer_ctx *c)
{
	if (attr_i(c, "channels_last", 0))
		ms_channels_last(c, ms_pool_latest);
	else
		ms_pool_latest(c);
}

void infer_ms_qlinear_global_avg_pool(infer_ctx *c)
{
	if (attr_i(c, "channels_last", 0))
		ms_channels_last(c, infer_global_pool);
	else
		infer_global_pool(c);
}

void infer_ms_qlinear_conv(infer_ctx *c)
{
	if (attr_i(c, "channels_last", 0))
		ms_channels_last(c, infer_qlinear_conv);
	else
		infer_qlinear_conv(c);
}

/* ---- Range --------------------------------------------------------------------------- */

/* Range's rule; without delta (which defaults to 1 here) the length is
 * max(ceil(limit - start), 0) from known start and limit. */
void infer_ms_range(infer_ctx *c)
{
	if (in(c, 2)) {
		infer_range(c);
		return;
	}
	int32_t elem = in_elem(c, 0);
	if (!elem)
		elem = in_elem(c, 1);
	dim len = dim_fresh(c);
	int64_t s[1], l[1];
	int32_t ns, nl;
	const double *fs, *fl;
	if (in_known_ints(c, 0, s, 1, &ns) && in_known_ints(c, 1, l, 1, &nl) && ns == 1 && nl == 1) {
		dim d = dim_sub(c, dim_known(l[0]), dim_known(s[0]));
		if (d.kind == DIM_KNOWN)
			len = dim_known(d.v > 0 ? d.v : 0);
	} else if (in_floats(c, 0, &fs, &ns) && ns == 1 && in_floats(c, 1, &fl, &nl) && nl == 1) {
		double n = ceil(fl[0] - fs[0]);
		if (n <= 0)
			len = dim_known(0);
		else if (n < 9.0e15)
			len = dim_known((int64_t)n);
	}
	set_out(c, 0, elem, 1, &len);
}

/* ---- QGemm ------------------------------------------------------------------------- */

void infer_ms_qgemm(infer_ctx *c)
{
	int32_t elem = in(c, 7) ? in_elem(c, 8) : DT_FLOAT;
	set_out_elem(c, 0, elem);
	const char *what[2] = {"2-D (M, K)", "2-D (K, N)"};
	const int32_t ins[2] = {0, 3};
	for (int32_t k = 0; k < 2; k++) {
		int32_t r = in_rank(c, ins[k]);
		if (r >= 0 && r != 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be %s", in_name(c, ins[k]),
				   fmt_shape(c, in(c, ins[k])), what[k]);
			return;
		}
	}
	const tinfo *a = in_ranked(c, 0), *b = in_ranked(c, 3);
	bool ta = attr_i(c, "transA", 0) != 0, tb = attr_i(c, "transB", 0) != 0;
	dim m = a ? a->dims[ta ? 1 : 0] : dim_unknown(), n = b ? b->dims[tb ? 0 : 1] : dim_unknown();
	if (a && b) {
		dim ka = a->dims[ta ? 0 : 1], kb = b->dims[tb ? 1 : 0], k;
		if (!dim_merge(c, ka, kb, &k)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the inner dimensions of '%s' %s and '%s' %s differ",
				   in_name(c, 0), fmt_shape(c, a), in_name(c, 3), fmt_shape(c, b));
			return;
		}
	}
	dim out[2] = {m, n};
	set_out(c, 0, elem, 2, out);
}

/* ---- GatherBlockQuantized ---------------------------------------------------------- */

/* data, indices, scales[, zero_points]: Gather of data along gather_axis, data read as
 * its unpacked values: a UINT8 data packs 8 / bits values into each byte of its last
 * axis (bits 4 by default); INT4 and UINT4 data are their own values. Output of
 * scales' type. */
void infer_ms_gather_block_quantized(infer_ctx *c)
{
	int32_t elem = in_elem(c, 2), r = in_rank(c, 0), ri = in_rank(c, 1);
	set_out_elem(c, 0, elem);
	int64_t bits = attr_i(c, "bits", 4);
	if (bits != 2 && bits != 4 && bits != 8) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "bits must be 2, 4 or 8, not %lld", (long long)bits);
		return;
	}
	if (r < 0 || ri < 0)
		return;
	const tinfo *d = in(c, 0), *ix = in(c, 1);
	if (r < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "data '%s' %s must have at least one dimension", in_name(c, 0),
			   fmt_shape(c, d));
		return;
	}
	int32_t g;
	if (!norm_axis(c, attr_i(c, "gather_axis", 0), r, false, "gather_axis", &g))
		return;
	dim *out = dims_alloc(c, r - 1 + ri > 0 ? r - 1 + ri : 1);
	if (!out)
		return;
	int32_t n = 0;
	for (int32_t k = 0; k < r; k++) {
		if (k != g) {
			dim v = d->dims[k];
			if (k == r - 1 && in_elem(c, 0) == DT_UINT8)
				v = dim_mul(c, v, dim_known(8 / bits));
			out[n++] = v;
			continue;
		}
		for (int32_t j = 0; j < ri; j++)
			out[n++] = ix->dims[j];
	}
	set_out(c, 0, elem, n, out);
}

/* ---- ExpandDims, CDist, Unique -------------------------------------------------------- */

void infer_ms_expand_dims(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	set_out_elem(c, 0, elem);
	dim axis;
	if (r < 0 || !in_int1(c, 1, &axis) || axis.kind != DIM_KNOWN)
		return;
	int32_t a;
	if (!norm_axis(c, axis.v, r, true, "axis", &a))
		return;
	const tinfo *x = in(c, 0);
	dim *out = dims_alloc(c, r + 1);
	if (!out)
		return;
	for (int32_t k = 0, j = 0; k <= r; k++)
		out[k] = k == a ? dim_known(1) : x->dims[j++];
	set_out(c, 0, elem, r + 1, out);
}

void infer_ms_cdist(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	for (int32_t i = 0; i < 2; i++) {
		int32_t r = in_rank(c, i);
		if (r >= 0 && r != 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be 2-D (rows, features)", in_name(c, i),
				   fmt_shape(c, in(c, i)));
			return;
		}
	}
	const tinfo *a = in_ranked(c, 0), *b = in_ranked(c, 1);
	if (a && b) {
		dim k = a->dims[1];
		if (!nn_merge_dim(c, &k, b->dims[1], "the feature count (A's second dim)", 1))
			return;
	}
	dim out[2] = {a ? a->dims[0] : dim_unknown(), b ? b->dims[0] : dim_unknown()};
	set_out(c, 0, elem, 2, out);
}

void infer_ms_unique(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	if (r >= 0 && r != 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be 1-D", in_name(c, 0), fmt_shape(c, in(c, 0)));
		set_out_elem(c, 0, elem);
		set_out_elem(c, 1, DT_INT64);
		set_out_elem(c, 2, DT_INT64);
		return;
	}
	dim u = dim_fresh(c);
	set_out(c, 0, elem, 1, &u);
	if (r == 1)
		set_out(c, 1, DT_INT64, 1, in(c, 0)->dims);
	else
		set_out_elem(c, 1, DT_INT64);
	set_out(c, 2, DT_INT64, 1, &u);
}
