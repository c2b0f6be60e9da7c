/* rules_ms_quant.c: ONNX Runtime's com.microsoft quantized operators: the QLinear*
 * family, QGemm, MatMulInteger16, GatherBlockQuantized, and the products with
 * quantised weights (MatMulNBits, MatMulBnb4, MatMulIntegerToFloat). Rows whose inputs
 * sit where the ai.onnx rule reads them reuse that rule (ops_ms_quant.def); the
 * functions here serve the rest.
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md, checked against what its CPU
 * kernels produce (tests/ort/ms_vs_ort.py, ms_layout_vs_ort.py) or, where they do not run,
 * by the unit tests:
 *   - QLinearAdd, QLinearMul: A (0) and B (3) broadcast numpy-style, C of A's type;
 *   - QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax: Y like X;
 *   - QLinearConcat(Y_scale, Y_zero_point, (X, scale, zero point)...): Concat of the
 *     X's along axis, of Y_zero_point's type;
 *   - QLinearWhere(cond, X, .., .., Y, .., .., z_scale, z_zero_point): the three-way
 *     broadcast of cond, X and Y, of X's type;
 *   - QLinearAveragePool, QLinearGlobalAveragePool: AveragePool's and
 *     GlobalAveragePool's shapes, (N, D..., C) when channels_last;
 *   - QLinearConv: Conv's shape, X and Y (N, D..., C) when channels_last;
 *   - QGemm(A, .., .., B, .., .., C, y_scale, y_zero_point): (M, N), y_zero_point's type
 *     with y_scale, FLOAT without;
 *   - GatherBlockQuantized(data, indices, scales, ..): Gather of the unpacked data,
 *     UINT8 data holding 8 / bits values a byte along its last axis, of scales' type;
 *   - MatMulNBits: A (..., K), Y (..., N), N and K attributes;
 *   - MatMulIntegerToFloat: MatMul's shape, a_scale's element type;
 *   - MatMulBnb4: A (..., K) -> (..., N) with transB (the default), A (..., N) ->
 *     (..., K) without; B is 1-D of (N * K + 1) / 2 bytes, absmax one scale a block.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rule_protos.h"

#include <math.h>

#include "core/dtype.h"
#include "passes/rules/ms_channels_last.h"
#include "passes/rules/ms_inputs.h"
#include "passes/rules/rules_tensor.h"
#include "passes/rules/rules_nn.h"

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

/* ---- MatMulNBits, MatMulIntegerToFloat ----------------------------------------- */

static bool ms_kn_attrs(infer_ctx *c, int64_t *k, int64_t *n)
{
	*k = attr_i(c, "K", 0);
	*n = attr_i(c, "N", 0);
	if (*k > 0 && *n > 0)
		return true;
	infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "K and N must be positive (K %lld, N %lld)", (long long)*k,
		   (long long)*n);
	return false;
}

static void ms_matmul_sized(infer_ctx *c, int64_t in_size, int64_t out_size)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	if (r == 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' is a scalar; it needs at least one dimension", in_name(c, 0));
		return;
	}
	dim small[SCRATCH_SMALL];
	dim *d = dims_room(c, small, r);
	if (!d)
		return;
	const tinfo *a = in(c, 0);
	for (int32_t i = 0; i < r; i++)
		d[i] = a->dims[i];
	if (!nn_merge_dim(c, &d[r - 1], dim_known(in_size), "the weight's input size (an attribute)", 0))
		return;
	d[r - 1] = dim_known(out_size);
	set_out(c, 0, elem, r, d);
}

/* A (..., K) times the dequantised B (K, N): Y (..., N), of A's type. */
void infer_ms_matmul_nbits(infer_ctx *c)
{
	int64_t k, n;
	set_out_elem(c, 0, in_elem(c, 0));
	if (ms_kn_attrs(c, &k, &n))
		ms_matmul_sized(c, k, n);
}

/* A, B, a_scale, b_scale, ...: MatMul(A, B)'s shape, of a_scale's type. */
void infer_ms_matmul_integer_to_float(infer_ctx *c)
{
	infer_matmul(c);
	const tinfo *y = &c->g->values[c->n->outputs[0]].ti;
	tinfo t = *y;
	t.elem = in_elem(c, 2);
	set_out_info(c, 0, &t);
}

/* ---- MatMulBnb4 -------------------------------------------------------------------- */

/* Input i, when of known rank, must be 1-D of `size` entries (a known one): false,
 * reported, if not. */
static bool packed_1d(infer_ctx *c, int32_t i, int64_t size, const char *what)
{
	if (!ms_rank_is(c, i, 1, "1-D"))
		return false;
	const tinfo *t = in_ranked(c, i);
	dim d = t ? dim_resolve(c->syms, t->dims[0]) : dim_unknown();
	if (d.kind != DIM_KNOWN || d.v == size)
		return true;
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must hold %lld entries (%s)", in_name(c, i), fmt_shape(c, t),
		   (long long)size, what);
	return false;
}

/* B is the (N, K) weight quantised to 4 bits, absmax one scale per block_size of it. */
void infer_ms_matmul_bnb4(infer_ctx *c)
{
	int64_t k, n, kn;
	set_out_elem(c, 0, in_elem(c, 0));
	if (!ms_kn_attrs(c, &k, &n))
		return;
	int64_t bs = attr_i(c, "block_size", 0);
	if (bs < 16 || (bs & (bs - 1))) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "block_size is %lld; it must be a power of 2, at least 16",
			   (long long)bs);
		return;
	}
	if (__builtin_mul_overflow(k, n, &kn)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "N * K (%lld * %lld) overflows int64", (long long)n,
			   (long long)k);
		return;
	}
	if (!packed_1d(c, 1, kn / 2 + kn % 2, "(N * K + 1) / 2 bytes") ||
	    !packed_1d(c, 2, kn / bs + (kn % bs != 0), "one scale per block_size weights"))
		return;
	bool trans = attr_i(c, "transB", 1) != 0;
	ms_matmul_sized(c, trans ? k : n, trans ? n : k);
}
