/* rules_ms.c: ONNX Runtime's com.microsoft operators that its graph optimiser writes
 * into saved models: the fused activations (FastGelu, BiasGelu, QuickGelu), the fused
 * products (FusedMatMul, FusedGemm) and the fused residual normalisations
 * (SkipLayerNormalization, SkipSimplifiedLayerNormalization).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md (inputs, outputs, attributes,
 * type constraints) and, where that page is silent on a shape, from what the runtime
 * produces (tests/ort/ms_vs_ort.py checks every output against it):
 *   - the activations keep X's shape and type; a bias is 1-D, of X's last dim;
 *   - FusedMatMul is numpy.matmul after transA/transB (swap the last two dims) and
 *     transBatchA/transBatchB (the first dim moves behind the batch dims), a 1-D
 *     operand being left as it is;
 *   - FusedGemm is Gemm as ai.onnx opset 11 defines it (C optional), the activation
 *     attributes changing values only;
 *   - Skip*LayerNormalization: output and input_skip_bias_sum have the input's shape
 *     and type, mean and inv_std_var the input's shape with a last dim of 1, float.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rules_ms.h"

#include "core/dtype.h"
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

/* ---- SkipLayerNormalization, SkipSimplifiedLayerNormalization ------------------- */

/* Input `i`, when listed and of known rank, must be 1-D and of the hidden size. */
static bool hidden_vector(infer_ctx *c, int32_t i, dim *hidden)
{
	const tinfo *t = in(c, i);
	int32_t r = t ? in_rank(c, i) : -1;
	if (r < 0)
		return true;
	if (r != 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be 1-D, of the hidden size", in_name(c, i),
			   fmt_shape(c, t));
		return false;
	}
	return nn_merge_dim(c, hidden, t->dims[0], "the hidden size (the input's last dim)", i);
}

/* input (batch, sequence, hidden) or (tokens, hidden); skip of the same last dim;
 * gamma, beta (index beta_i, -1: none) and bias (index bias_i) 1-D of the hidden size.
 * Outputs: output and input_skip_bias_sum (3) like input; mean (1) and inv_std_var (2)
 * like input with a last dim of 1, float. */
static void skip_layer_norm(infer_ctx *c, int32_t beta_i, int32_t bias_i)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, DT_FLOAT);
	set_out_elem(c, 2, DT_FLOAT);
	set_out_elem(c, 3, elem);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	const tinfo *x = in(c, 0);
	if (r != 2 && r != 3) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must be 2-D or 3-D", in_name(c, 0),
			   fmt_shape(c, x));
		return;
	}
	dim d[3], stats[3];
	for (int32_t k = 0; k < r; k++)
		d[k] = x->dims[k];
	const tinfo *s = in(c, 1);
	int32_t rs = s ? in_rank(c, 1) : -1;
	if (rs == 0 || rs > 3) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "skip '%s' %s must be 2-D or 3-D", in_name(c, 1),
			   fmt_shape(c, s));
		return;
	}
	if (rs > 0 && !nn_merge_dim(c, &d[r - 1], s->dims[rs - 1], "the hidden size (the input's last dim)", 1))
		return;
	if (!hidden_vector(c, 2, &d[r - 1]) || (beta_i >= 0 && !hidden_vector(c, beta_i, &d[r - 1])) ||
	    !hidden_vector(c, bias_i, &d[r - 1]))
		return;
	for (int32_t k = 0; k < r; k++)
		stats[k] = k == r - 1 ? dim_known(1) : d[k];
	set_out(c, 0, elem, r, d);
	set_out(c, 1, DT_FLOAT, r, stats);
	set_out(c, 2, DT_FLOAT, r, stats);
	set_out(c, 3, elem, r, d);
}

/* input, skip, gamma, beta (optional), bias (optional) */
void infer_ms_skip_layer_norm(infer_ctx *c) { skip_layer_norm(c, 3, 4); }
/* input, skip, gamma, bias (optional): no beta */
void infer_ms_skip_simplified_layer_norm(infer_ctx *c) { skip_layer_norm(c, -1, 3); }
