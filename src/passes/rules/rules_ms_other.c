/* rules_ms_other.c: ONNX Runtime's com.microsoft operators of no family above: the
 * FFTs (Rfft, Irfft), the complex products (ComplexMul, ComplexMulConj), MurmurHash3,
 * the mixtures of experts (MoE, QMoE), and the operators that ONNX later took in or
 * that ai.onnx has under another shape (Range, ExpandDims, CDist, Unique; Trilu,
 * GridSample, Pad and Inverse reuse other rules: ops_ms_other.def).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md and what its kernels check and
 * allocate (tests/ort/ms_vs_ort.py, ms_layout_vs_ort.py; the unit tests for the CUDA-only):
 *   - Rfft: (..., n) -> (..., n / 2 + 1, 2), or (..., n, 2) not one-sided; Irfft:
 *     (..., m, 2) -> (..., 2m - 1), or (..., m) not one-sided (the CUDA kernel, the
 *     only one, allocates these); either needs signal_ndim signal axes;
 *   - ComplexMul, ComplexMulConj: A and B broadcast, each with a last dim of 2 (real
 *     and imaginary parts);
 *   - MurmurHash3: Y like X, UINT32 when positive is 1 (the default), else INT32;
 *   - MoE, QMoE: output like the input (tokens, H) or (B, S, H), the experts' sizes
 *     checked against it where the layout is certain (QMoE's weights only when
 *     weights_prepacked is 0: prepacked layouts are the provider's choice);
 *   - Range: ai.onnx Range's, delta optional (1);
 *   - ExpandDims(X, axis): X with a 1 inserted at axis, in [-r - 1, r];
 *   - CDist(A (N, K), B (M, K)): (N, M);
 *   - Unique(x (L)): y (U), idx (L) INT64, counts (U) INT64, U known at run time.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rule_protos.h"

#include <math.h>

#include "core/dtype.h"
#include "passes/rules/ms_inputs.h"
#include "passes/rules/rules_tensor.h"
#include "passes/rules/rules_nn.h"

/* ---- Rfft, Irfft ------------------------------------------------------------------- */

/* Input 0's rank (-1 unknown) into *r when it holds signal_ndim signal axes and, with
 * `complex`, the trailing (real, imaginary) axis: false, reported, if not. */
static bool fft_rank(infer_ctx *c, bool complex, int32_t *r)
{
	int64_t nd = attr_i(c, "signal_ndim", 1);
	*r = in_rank(c, 0);
	if (nd < 1) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "signal_ndim is %lld; it must be at least 1",
			   (long long)nd);
		return false;
	}
	if (*r >= 0 && *r < nd + complex) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s has fewer than signal_ndim (%lld)%s axes",
			   in_name(c, 0), fmt_shape(c, in(c, 0)), (long long)nd,
			   complex ? " + 1 (real, imaginary)" : "");
		return false;
	}
	return true;
}

void infer_ms_rfft(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0), r;
	set_out_elem(c, 0, elem);
	if (!fft_rank(c, false, &r) || r < 0 || r >= RULE_MAX_RANK)
		return;
	dim small[SCRATCH_SMALL];
	dim *d = dims_room(c, small, r + 1);
	if (!d)
		return;
	const tinfo *x = in(c, 0);
	for (int32_t i = 0; i < r; i++)
		d[i] = x->dims[i];
	if (attr_i(c, "onesided", 1))
		d[r - 1] = dim_add(c, dim_floordiv(c, d[r - 1], dim_known(2)), dim_known(1));
	d[r] = dim_known(2);
	set_out(c, 0, elem, r + 1, d);
}

/* The kernel takes the signal's length to be 2m - 1, whatever the forward
 * transform's n was (for an even n that is n + 1). */
void infer_ms_irfft(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0), r;
	set_out_elem(c, 0, elem);
	if (!attr_has(c, "signal_ndim")) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "the signal_ndim attribute is required");
		return;
	}
	if (!fft_rank(c, true, &r) || r < 0)
		return;
	const tinfo *x = in(c, 0);
	dim two = dim_known(2);
	if (!nn_merge_dim(c, &two, x->dims[r - 1], "the last dim (real, imaginary)", 0))
		return;
	dim small[SCRATCH_SMALL];
	dim *d = dims_room(c, small, r - 1);
	if (!d)
		return;
	for (int32_t i = 0; i < r - 1; i++)
		d[i] = x->dims[i];
	if (attr_i(c, "onesided", 1))
		d[r - 2] = dim_sub(c, dim_mul(c, d[r - 2], dim_known(2)), dim_known(1));
	set_out(c, 0, elem, r - 1, d);
}

/* ---- ComplexMul, ComplexMulConj ---------------------------------------------------- */

void infer_ms_complex_mul(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	for (int32_t i = 0; i < 2; i++) {
		const tinfo *t = in_ranked(c, i);
		dim two = dim_known(2);
		if (t && t->rank == 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "'%s' is a scalar; its last dim must hold (real, imaginary)", in_name(c, i));
			return;
		}
		if (t && !nn_merge_dim(c, &two, t->dims[t->rank - 1], "the last dim (real, imaginary)", i))
			return;
	}
	int32_t ra = in_rank(c, 0), rb = in_rank(c, 1), r = RANK_UNKNOWN;
	if (ra < 0 || rb < 0)
		return;
	int32_t cap = ra > rb ? ra : rb;
	dim small[SCRATCH_SMALL];
	dim *d = dims_room(c, small, cap);
	if (!d || !infer_broadcast(c, BCAST_NUMPY, 0, 1, -1, &r, d, cap) || r < 0)
		return;
	set_out(c, 0, elem, r, d);
}

/* ---- MurmurHash3 ------------------------------------------------------------------- */

static bool hashable(int32_t elem)
{
	switch (elem) {
	case DT_INT32:
	case DT_UINT32:
	case DT_INT64:
	case DT_UINT64:
	case DT_FLOAT:
	case DT_DOUBLE:
	case DT_STRING: return true;
	default: return false;
	}
}

void infer_ms_murmur_hash3(infer_ctx *c)
{
	int32_t out = attr_i(c, "positive", 1) == 1 ? DT_UINT32 : DT_INT32, e = in_elem(c, 0);
	if (e && !hashable(e)) {
		infer_diag(c, OSH_ERROR, DIAG_TYPE_ERROR,
			   "'%s' is %s; MurmurHash3 hashes int32, uint32, int64, uint64, float, double or string",
			   in_name(c, 0), dtype_name(e));
		set_out_elem(c, 0, out);
		return;
	}
	ms_like_input(c, 0, 0, out);
}

/* ---- MoE, QMoE -------------------------------------------------------------------- */

/* What MoE and QMoE share: input (tokens, H) or (B, S, H), router_probs (tokens, E);
 * sets the output like the input and returns H and E, false on a mismatch. */
static bool moe_input(infer_ctx *c, dim *hidden, dim *experts)
{
	int32_t elem = ms_out_type(c);
	if (!ms_rank_in(c, 0, 2, 3, -1, "2-D (tokens, hidden) or 3-D (batch, sequence, hidden)") ||
	    !ms_rank_in(c, 1, 2, -1, -1, "2-D (tokens, experts)"))
		return false;
	int32_t r = ms_rank_of(c, 0);
	dim tokens = r == 2 ? ms_dim_of(c, 0, 0) : dim_unknown(), rows = ms_dim_of(c, 1, 0);
	if (r == 3)
		tokens = dim_mul(c, ms_dim_of(c, 0, 0), ms_dim_of(c, 0, 1));
	if (tokens.kind == DIM_KNOWN && rows.kind == DIM_KNOWN && tokens.v != rows.v) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "router_probs '%s' %s has %lld rows for %lld tokens",
			   in_name(c, 1), fmt_shape(c, in(c, 1)), (long long)rows.v, (long long)tokens.v);
		return false;
	}
	ms_like_input(c, 0, 0, elem);
	*hidden = r > 0 ? ms_dim_of(c, 0, r - 1) : dim_unknown();
	*experts = ms_dim_of(c, 1, 1);
	return true;
}

/* input, router_probs, fc1 weights (E, F I, H), fc1 bias (E, F I), fc2 weights (E, H, I),
 * fc2 bias (E, H), fc3 weights (E, I, H), fc3 bias (E, I); F is 2 for fused SwiGLU. */
void infer_ms_moe(infer_ctx *c)
{
	dim hidden, e;
	if (!moe_input(c, &hidden, &e))
		return;
	for (int32_t i = 2; i < 8; i++)
		if (!ms_rank_in(c, i, i % 2 ? 2 : 3, -1, -1, i % 2 ? "2-D (experts, width)" : "3-D (experts, rows, cols)"))
			return;
	dim inter = ms_dim_of(c, 4, 2), f1 = ms_dim_of(c, 2, 1);
	for (int32_t i = 2; i < 8; i++)
		if (!ms_same_dim(c, &e, i, 0, "the expert count"))
			return;
	if (!ms_same_dim(c, &hidden, 2, 2, "the hidden size") || !ms_same_dim(c, &hidden, 4, 1, "the hidden size") ||
	    !ms_same_dim(c, &hidden, 5, 1, "the hidden size") || !ms_same_dim(c, &hidden, 6, 2, "the hidden size") ||
	    !ms_same_dim(c, &inter, 6, 1, "the inner size") || !ms_same_dim(c, &inter, 7, 1, "the inner size") ||
	    !ms_same_dim(c, &f1, 3, 1, "fc1's width"))
		return;
	/* fc1 holds both SwiGLU halves only when they are fused; unfused ones split to fc3. */
	bool swiglu = !strcmp(attr_s(c, "activation_type", "relu"), "swiglu");
	int64_t fusion = swiglu ? (attr_i(c, "swiglu_fusion", 0) ? 2 : 0) : 1;
	dim want = fusion ? dim_mul(c, dim_known(fusion), inter) : dim_unknown();
	if (want.kind == DIM_KNOWN && f1.kind == DIM_KNOWN && want.v != f1.v)
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "fc1's width %lld is not %lld inner sizes of %lld", (long long)f1.v,
			   (long long)fusion, (long long)inter.v);
}

/* input, router_probs, (fc weights, scales, bias) for fc1, fc2, fc3, their zero points,
 * router_weights (tokens, E), global and activation scales. */
void infer_ms_qmoe(infer_ctx *c)
{
	dim hidden, e;
	if (!moe_input(c, &hidden, &e))
		return;
	static const int32_t weights[3] = {2, 5, 8}, biases[3] = {4, 7, 10};
	for (int32_t k = 0; k < 3; k++)
		if (!ms_rank_in(c, weights[k], 3, -1, -1, "3-D (experts, rows, packed cols)") ||
		    !ms_rank_in(c, biases[k], 2, -1, -1, "2-D (experts, width)") || !ms_same_dim(c, &e, biases[k], 0, "the expert count"))
			return;
	dim rows = ms_dim_of(c, 1, 0);
	if (!ms_rank_in(c, 14, 2, -1, -1, "2-D like router_probs") || !ms_same_dim(c, &rows, 14, 0, "router_probs' rows") ||
	    !ms_same_dim(c, &e, 14, 1, "the expert count") || !ms_same_dim(c, &hidden, 7, 1, "the hidden size"))
		return;
	/* The weights' own layout is the provider's unless they are declared raw. */
	if (attr_i(c, "weights_prepacked", -1) != 0)
		return;
	for (int32_t k = 0; k < 3; k++)
		if (!ms_same_dim(c, &e, weights[k], 0, "the expert count"))
			return;
	ms_same_dim(c, &hidden, 5, 1, "the hidden size");
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
