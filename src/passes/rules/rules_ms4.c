/* rules_ms4.c: more of ONNX Runtime's contrib operators: com.microsoft NhwcConv,
 * NhwcMaxPool, MatMulBnb4, Rfft, Irfft, ComplexMul, ComplexMulConj, WordConvEmbedding,
 * TorchEmbedding and MurmurHash3, and the com.microsoft.nchwc operators that ONNX
 * Runtime's NCHWc layout transformer writes (Conv, MaxPool, AveragePool, GlobalMaxPool,
 * GlobalAveragePool, ReorderInput, ReorderOutput, Upsample).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md, the nchwc domain's schemas
 * (onnxruntime/core/graph/contrib_ops/nchwc_schema_defs.cc) and, where those leave a
 * size out, what the kernels check and allocate:
 *   - NhwcConv, NhwcMaxPool: ai.onnx Conv's and MaxPool's windows over X (N, D..., C),
 *     Y (N, D'..., M or C), through ms_channels_last;
 *   - MatMulBnb4: A (..., K) -> (..., N) with transB (the default), A (..., N) ->
 *     (..., K) without; B is 1-D of (N * K + 1) / 2 bytes, absmax one scale a block;
 *   - Rfft: (..., n) -> (..., n / 2 + 1, 2), or (..., n, 2) not one-sided; Irfft:
 *     (..., m, 2) -> (..., 2m - 1), or (..., m) not one-sided (the CUDA kernel, the
 *     only one, allocates these); either needs signal_ndim signal axes;
 *   - ComplexMul, ComplexMulConj: A and B broadcast, each with a last dim of 2 (real
 *     and imaginary parts);
 *   - WordConvEmbedding: Sequence (S, W) int32, conv weight (M, 1, window, E), char
 *     embedding (V, E) -> Y (S, M); the size attributes, set, must match the weights;
 *   - TorchEmbedding: weight (N, M), indices (*) -> (*, M);
 *   - MurmurHash3: Y like X, UINT32 when positive is 1 (the default), else INT32;
 *   - nchwc: every kernel takes 4-D tensors only; Conv and the pools are ai.onnx's
 *     with every window attribute, Conv's Sum has the output's shape; ReorderInput pads
 *     the channels (a multiple of 4) to the CPU's block size; ReorderOutput gives
 *     `channels` channels, first or last; Upsample multiplies H and W by integer
 *     scales.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rules_ms4.h"

#include "core/dtype.h"
#include "passes/rules/rules_ms2.h"
#include "passes/rules/rules_ms_quant.h"
#include "passes/rules/rules_nn.h"

/* MLAS's NCHWc block: 8 channels with AVX2, 16 with AVX-512; the nchwc kernels are
 * registered only where it is above 1. Every block size divides this one, so a channel
 * count that is a multiple of it is padded to itself on any CPU. */
#define NCHWC_BLOCK_MAX 16

/* ---- NhwcConv, NhwcMaxPool -------------------------------------------------------- */

void infer_ms_nhwc_conv(infer_ctx *c) { ms_channels_last(c, infer_conv); }

void infer_ms_nhwc_max_pool(infer_ctx *c) { ms_channels_last(c, ms_pool_latest); }

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

/* ---- WordConvEmbedding, TorchEmbedding --------------------------------------------- */

/* A size attribute of WordConvEmbedding (-1 or absent: take the weights'), which the
 * kernel requires to equal *size, the dim it names: false, reported, if it cannot. */
static bool size_attr(infer_ctx *c, const char *name, dim *size, const char *whose)
{
	int64_t v = attr_i(c, name, -1);
	if (v == -1)
		return true;
	dim d = dim_resolve(c->syms, *size);
	if (v < 0 || (d.kind == DIM_KNOWN && d.v != v)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s is %lld, but %s is %s", name, (long long)v, whose,
			   nn_dim_text(c, d));
		return false;
	}
	*size = dim_known(v);
	return true;
}

enum { WCE_SEQUENCE, WCE_W, WCE_B, WCE_C };

void infer_ms_word_conv_embedding(infer_ctx *c)
{
	int32_t elem = in_elem(c, WCE_W) ? in_elem(c, WCE_W) : in_elem(c, WCE_C);
	set_out_elem(c, 0, elem);
	if (!ms_rank_is(c, WCE_SEQUENCE, 2, "2-D (words, characters)") ||
	    !ms_rank_is(c, WCE_W, 4, "4-D (filters, 1, window, char embedding size)") ||
	    !ms_rank_is(c, WCE_C, 2, "2-D (characters, char embedding size)"))
		return;
	const tinfo *s = in_ranked(c, WCE_SEQUENCE), *w = in_ranked(c, WCE_W), *ce = in_ranked(c, WCE_C);
	dim filters = w ? w->dims[0] : dim_unknown(), window = w ? w->dims[2] : dim_unknown();
	dim width = w ? w->dims[3] : dim_unknown();
	if (ce && !nn_merge_dim(c, &width, ce->dims[1], "the char embedding size (the conv weight's dim 3)", WCE_C))
		return;
	if (!size_attr(c, "embedding_size", &filters, "the conv weight's dim 0") ||
	    !size_attr(c, "conv_window_size", &window, "the conv weight's dim 2") ||
	    !size_attr(c, "char_embedding_size", &width, "the char embedding's dim 1"))
		return;
	dim d[2] = {s ? s->dims[0] : dim_unknown(), filters};
	set_out(c, 0, elem, 2, d);
}

void infer_ms_torch_embedding(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	if (!ms_rank_is(c, 0, 2, "2-D (entries, embedding size)"))
		return;
	int32_t r = in_rank(c, 1);
	if (r < 0 || r >= RULE_MAX_RANK)
		return;
	dim small[SCRATCH_SMALL];
	dim *d = dims_room(c, small, r + 1);
	if (!d)
		return;
	const tinfo *w = in_ranked(c, 0), *ix = in(c, 1);
	for (int32_t i = 0; i < r; i++)
		d[i] = ix->dims[i];
	d[r] = w ? w->dims[1] : dim_unknown();
	set_out(c, 0, elem, r + 1, d);
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

/* ---- com.microsoft.nchwc ----------------------------------------------------------- */

/* Every NCHWc kernel enforces 4-D inputs. */
static bool nchwc_4d(infer_ctx *c, int32_t i)
{
	return ms_rank_is(c, i, 4, "4-D: ONNX Runtime's NCHWc kernels take no other rank");
}

/* Input 0 when it is known 4-D, else NULL (another rank reported). */
static const tinfo *nchwc_x(infer_ctx *c) { return nchwc_4d(c, 0) ? in_ranked(c, 0) : NULL; }

/* Conv of inputs 0 to 2, with input 3 (FusedConv's Z, NCHWc Conv's Sum) added into
 * the output: it must have the output's shape (the kernels check), and gives it
 * where the convolution's is not known. */
static void conv_with_sum(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	infer_conv(c);
	const tinfo *sum = in_ranked(c, 3);
	if (!sum || !out_present(c, 0))
		return;
	const tinfo *y = &c->g->values[c->n->outputs[0]].ti;
	int32_t r = sum->rank;
	if (tinfo_has_rank(y) && y->rank != r) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s is added into the output %s: it must have its shape",
			   in_name(c, 3), fmt_shape(c, sum), fmt_shape(c, y));
		set_out_elem(c, 0, elem);
		return;
	}
	dim small[SCRATCH_SMALL], *d = dims_room(c, small, r);
	if (!d)
		return;
	for (int32_t k = 0; k < r; k++) {
		d[k] = tinfo_has_rank(y) ? y->dims[k] : dim_unknown();
		if (!nn_merge_dim(c, &d[k], sum->dims[k], "the output's dim", 3)) {
			set_out_elem(c, 0, elem);
			return;
		}
	}
	set_out(c, 0, elem, r, d);
}

void infer_nchwc_conv(infer_ctx *c)
{
	set_out_elem(c, 0, in_elem(c, 0));
	if (nchwc_4d(c, 0) && nchwc_4d(c, 1) && nchwc_4d(c, 3))
		conv_with_sum(c);
}

/* Conv with an activation applied and Z (optional) added: Conv's shape. */
void infer_ms_fused_conv(infer_ctx *c) { conv_with_sum(c); }

/* The kernels pool over H and W only: kernel_shape has two entries. */
void infer_nchwc_pool(infer_ctx *c)
{
	set_out_elem(c, 0, in_elem(c, 0));
	const int64_t *k;
	int32_t nk;
	if (attr_ints(c, "kernel_shape", &k, &nk) && nk != 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "kernel_shape has %d values; the NCHWc pools are 2-D", nk);
		return;
	}
	if (nchwc_4d(c, 0))
		ms_pool_latest(c);
}

void infer_nchwc_global_pool(infer_ctx *c)
{
	set_out_elem(c, 0, in_elem(c, 0));
	if (nchwc_4d(c, 0))
		infer_global_pool(c);
}

void infer_nchwc_reorder_input(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const tinfo *x = nchwc_x(c);
	if (!x)
		return;
	bool last = attr_i(c, "channels_last", 0) != 0;
	dim ch = dim_resolve(c->syms, x->dims[last ? 3 : 1]);
	if (ch.kind == DIM_KNOWN && ch.v % 4) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s has %lld channels; ReorderInput takes a multiple of 4",
			   in_name(c, 0), fmt_shape(c, x), (long long)ch.v);
		return;
	}
	dim d[4] = {x->dims[0], dim_unknown(), x->dims[last ? 1 : 2], x->dims[last ? 2 : 3]};
	if (ch.kind == DIM_KNOWN && ch.v % NCHWC_BLOCK_MAX == 0)
		d[1] = ch;
	set_out(c, 0, elem, 4, d);
}

void infer_nchwc_reorder_output(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int64_t ch = attr_i(c, "channels", 0);
	if (ch <= 0) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "channels is %lld; it must be positive", (long long)ch);
		return;
	}
	const tinfo *x = nchwc_x(c);
	if (!x)
		return;
	dim padded = dim_resolve(c->syms, x->dims[1]);
	if (padded.kind == DIM_KNOWN && padded.v < ch) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s has %lld channels, fewer than channels (%lld)",
			   in_name(c, 0), fmt_shape(c, x), (long long)padded.v, (long long)ch);
		return;
	}
	dim d[4] = {x->dims[0], dim_known(ch), x->dims[2], x->dims[3]};
	if (attr_i(c, "channels_last", 0)) {
		d[1] = x->dims[2];
		d[2] = x->dims[3];
		d[3] = dim_known(ch);
	}
	set_out(c, 0, elem, 4, d);
}

/* The kernel wants scales (1, 1, h, w), h and w at least 1. */
void infer_nchwc_upsample(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const int64_t *s;
	int32_t ns;
	if (!attr_ints(c, "scales", &s, &ns) || ns != 4 || s[0] != 1 || s[1] != 1 || s[2] < 1 || s[3] < 1) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "scales must be four integers (1, 1, h, w), h and w at least 1");
		return;
	}
	const tinfo *x = nchwc_x(c);
	if (!x)
		return;
	dim d[4] = {x->dims[0], x->dims[1], dim_mul(c, x->dims[2], dim_known(s[2])),
		    dim_mul(c, x->dims[3], dim_known(s[3]))};
	set_out(c, 0, elem, 4, d);
}
