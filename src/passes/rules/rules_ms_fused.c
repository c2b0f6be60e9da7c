/* rules_ms_fused.c: ONNX Runtime's fused com.microsoft operators, which its graph
 * optimiser writes into the models it saves: the activations (FastGelu, BiasGelu,
 * QuickGelu, Gelu, BiasSplitGelu), the fused products (FusedMatMul, TransposeMatMul,
 * FusedGemm, FusedConv), BiasAdd and BiasSoftmax (GemmFastGelu reuses MatMul's rule:
 * ops_ms_fused.def).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md (inputs, outputs, attributes,
 * type constraints) and, where that page is silent on a shape, from what the runtime
 * produces (tests/ort/ms_vs_ort.py checks every output against it):
 *   - the activations keep X's shape and type; a bias is 1-D, of X's last dim;
 *   - Gelu, BiasSoftmax: the output is input 0's shape (infer_ms_same_shape, which the
 *     other com.microsoft families' rows use too);
 *   - BiasAdd: Y like X (N, S, C), skip the same, bias (C);
 *   - BiasSplitGelu: X (N, S, D), bias (D), Y (N, S, D / 2);
 *   - FusedMatMul is numpy.matmul after transA/transB (swap the last two dims) and
 *     transBatchA/transBatchB (the first dim moves behind the batch dims), a 1-D
 *     operand being left as it is;
 *   - FusedGemm is Gemm as ai.onnx opset 11 defines it (C optional), the activation
 *     attributes changing values only;
 *   - FusedConv is Conv with Z (optional) added into the output, of its shape.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rule_protos.h"

#include "core/dtype.h"
#include "passes/rules/ms_inputs.h"
#include "passes/rules/rules_nn.h"

/* ---- the activations ------------------------------------------------------------ */

/* Y: X's shape and type. A bias (input `bias_i`, -1 for none) must be 1-D and of X's
 * last dim: checked when both are known, and X's last dim learnt from it otherwise. */
static void gelu_like(infer_ctx *c, int32_t bias_i)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	const tinfo *x = in(c, 0), *b = bias_i >= 0 ? in(c, bias_i) : NULL;
	dim small[SCRATCH_SMALL];
	dim *d = dims_room(c, small, r);
	if (!d)
		return;
	for (int32_t k = 0; k < r; k++)
		d[k] = x->dims[k];
	int32_t rb = b ? in_rank(c, bias_i) : -1;
	if (b && rb >= 0) {
		if (rb != 1 || r == 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "bias '%s' %s must be 1-D, of the last dim of '%s' %s",
				   in_name(c, bias_i), fmt_shape(c, b), in_name(c, 0), fmt_shape(c, x));
			return;
		}
		if (!nn_merge_dim(c, &d[r - 1], b->dims[0], "the last dim of the input", bias_i))
			return;
	}
	set_out(c, 0, elem, r, d);
}

void infer_ms_fast_gelu(infer_ctx *c) { gelu_like(c, 1); }
void infer_ms_bias_gelu(infer_ctx *c) { gelu_like(c, 1); }
void infer_ms_quick_gelu(infer_ctx *c) { gelu_like(c, -1); }

/* ---- FusedMatMul ---------------------------------------------------------------- */

/* The matrix an operand of rank r >= 2 stands for: its batch dims, then its rows and
 * columns. transBatch moves the first dim behind the batch dims (dims 1 .. r-2 lead),
 * trans swaps the last two. Writes r dims into out. */
static void matmul_view(const dim *raw, int32_t r, bool trans, bool trans_batch, dim *out)
{
	int32_t n = 0, first = trans_batch ? 1 : 0, end = trans_batch ? r - 1 : r - 2;
	for (int32_t k = first; k < end; k++)
		out[n++] = raw[k];
	dim rows = raw[trans_batch ? 0 : r - 2], cols = raw[r - 1];
	out[n++] = trans ? cols : rows;
	out[n] = trans ? rows : cols;
}

/* Y = alpha * A' B' with numpy.matmul's rules on the views (matmul_view); a 1-D
 * operand is promoted as MatMul's and not transposed. */
void infer_ms_fused_matmul(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t ra = in_rank(c, 0), rb = in_rank(c, 1);
	if (ra < 0 || rb < 0)
		return;
	if (ra == 0 || rb == 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' is a scalar; both operands need at least one dimension",
			   in_name(c, ra == 0 ? 0 : 1));
		return;
	}
	const tinfo *ta = in(c, 0), *tb = in(c, 1);
	dim small_a[SCRATCH_SMALL], small_b[SCRATCH_SMALL], small_o[SCRATCH_SMALL];
	dim *va = dims_room(c, small_a, ra), *vb = dims_room(c, small_b, rb);
	if (!va || !vb)
		return;
	if (ra == 1)
		va[0] = ta->dims[0];
	else
		matmul_view(ta->dims, ra, attr_i(c, "transA", 0) != 0, attr_i(c, "transBatchA", 0) != 0, va);
	if (rb == 1)
		vb[0] = tb->dims[0];
	else
		matmul_view(tb->dims, rb, attr_i(c, "transB", 0) != 0, attr_i(c, "transBatchB", 0) != 0, vb);
	dim cols = va[ra - 1], rows = vb[rb == 1 ? 0 : rb - 2], k;
	if (!dim_merge(c, cols, rows, &k)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "the inner dimensions differ: '%s' %s gives %s columns, '%s' %s gives %s rows (after "
			   "the transpositions its attributes ask for)",
			   in_name(c, 0), fmt_shape(c, ta), nn_dim_text(c, cols), in_name(c, 1), fmt_shape(c, tb),
			   nn_dim_text(c, rows));
		return;
	}
	shape batch_a = {ra > 2 ? ra - 2 : 0, va}, batch_b = {rb > 2 ? rb - 2 : 0, vb};
	dim *out = dims_room(c, small_o, (batch_a.rank > batch_b.rank ? batch_a.rank : batch_b.rank) + 2);
	if (!out)
		return;
	int32_t r;
	nn_operand an = {"the batch dims of '%s'", 0}, bn = {"the batch dims of '%s'", 1};
	if (!nn_broadcast(c, BCAST_NUMPY, batch_a, batch_b, -1, an, bn, &r, out))
		return;
	if (ra != 1)
		out[r++] = va[ra - 2];
	if (rb != 1)
		out[r++] = vb[rb - 1];
	set_out(c, 0, elem, r, out);
}

/* ---- FusedGemm ------------------------------------------------------------------ */

/* Gemm (transA, transB, alpha, beta; C optional and unidirectionally broadcast to
 * (M, N)) followed by an activation that keeps the shape. */
void infer_ms_fused_gemm(infer_ctx *c) { nn_gemm(c, 11); }

/* ---- Gelu, BiasSoftmax, BiasAdd, BiasSplitGelu ----------------------------------- */

void infer_ms_same_shape(infer_ctx *c) { ms_like_input(c, 0, 0, in_elem(c, 0)); }

/* X (N, S, C), bias (C), skip (N, S, C): Y like X, its dims merged with skip's. */
void infer_ms_bias_add(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	if (!ms_rank_is(c, 0, 3, "3-D (batch, sequence, channels)") || !ms_rank_is(c, 1, 1, "1-D (channels)") ||
	    !ms_rank_is(c, 2, 3, "3-D, of the input's shape"))
		return;
	const tinfo *x = in_ranked(c, 0), *b = in_ranked(c, 1), *s = in_ranked(c, 2);
	dim d[3] = {dim_unknown(), dim_unknown(), dim_unknown()};
	if (!x && !s)
		return;
	for (int32_t k = 0; k < 3; k++) {
		if (x)
			d[k] = x->dims[k];
		if (s && !nn_merge_dim(c, &d[k], s->dims[k], "the input's dim", 2))
			return;
	}
	if (b && !nn_merge_dim(c, &d[2], b->dims[0], "the channel count (the input's last dim)", 1))
		return;
	set_out(c, 0, elem, 3, d);
}

/* X (N, S, D), bias (D): Y (N, S, D / 2), the second half gating the first. */
void infer_ms_bias_split_gelu(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	if (!ms_rank_is(c, 0, 3, "3-D (batch, sequence, hidden)") || !ms_rank_is(c, 1, 1, "1-D (hidden)"))
		return;
	const tinfo *x = in_ranked(c, 0), *b = in_ranked(c, 1);
	if (!x)
		return;
	dim d[3] = {x->dims[0], x->dims[1], x->dims[2]};
	if (b && !nn_merge_dim(c, &d[2], b->dims[0], "the hidden size (the input's last dim)", 1))
		return;
	if (d[2].kind == DIM_KNOWN && d[2].v % 2 != 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the hidden size of '%s' %s must be even", in_name(c, 0),
			   fmt_shape(c, x));
		return;
	}
	d[2] = dim_floordiv(c, d[2], dim_known(2));
	set_out(c, 0, elem, 3, d);
}

/* ---- FusedConv -------------------------------------------------------------------- */

/* Conv of inputs 0 to 2, with input 3 (FusedConv's Z, NCHWc Conv's Sum) added into
 * the output: it must have the output's shape (the kernels check), and gives it
 * where the convolution's is not known. The activation changes values only. */
void infer_ms_fused_conv(infer_ctx *c)
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
