/* rules_ms_norm.c: ONNX Runtime's com.microsoft normalisations and embeddings:
 * SkipLayerNormalization, SkipSimplifiedLayerNormalization, SkipGroupNorm,
 * EmbedLayerNormalization, WordConvEmbedding and TorchEmbedding (GroupNorm, and
 * LayerNormalization and SimplifiedLayerNormalization in ai.onnx, reuse other rules:
 * ops_ms_norm.def).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md and, where its CPU kernels run
 * the operator, from what they produce (tests/ort/ms_vs_ort.py, ms_layout_vs_ort.py):
 *   - Skip*LayerNormalization: output and input_skip_bias_sum have the input's shape
 *     and type, mean and inv_std_var the input's shape with a last dim of 1, float;
 *   - SkipGroupNorm: Y and S like X;
 *   - EmbedLayerNormalization: output and embedding_sum (B, S, H), H the embeddings'
 *     width, mask_index (B) int32;
 *   - WordConvEmbedding: Sequence (S, W) int32, conv weight (M, 1, window, E), char
 *     embedding (V, E) -> Y (S, M); the size attributes, set, must match the weights;
 *   - TorchEmbedding: weight (N, M), indices (*) -> (*, M).
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rule_protos.h"

#include "core/dtype.h"
#include "passes/rules/ms_inputs.h"
#include "passes/rules/rules_nn.h"

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

/* ---- SkipGroupNorm ---------------------------------------------------------------- */

/* X, gamma, beta, skip, bias: Y and the sum S like X. */
void infer_ms_skip_group_norm(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	ms_like_input(c, 0, 0, elem);
	ms_like_input(c, 1, 0, elem);
}

/* ---- EmbedLayerNormalization --------------------------------------------------- */

/* input_ids (B, S), segment_ids, word_embedding (V, H), position_embedding (P, H),
 * segment_embedding, gamma (H), beta (H), mask (B, S), position_ids. */
void infer_ms_embed_layer_norm(infer_ctx *c)
{
	int32_t elem = in_elem(c, 2);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, DT_INT32);
	set_out_elem(c, 2, elem);
	if (!ms_rank_is(c, 0, 2, "2-D (batch, sequence)") || !ms_rank_is(c, 2, 2, "2-D (vocabulary, hidden)") ||
	    !ms_rank_is(c, 3, 2, "2-D (positions, hidden)") || !ms_rank_is(c, 5, 1, "1-D (hidden)"))
		return;
	const tinfo *ids = in_ranked(c, 0), *w = in_ranked(c, 2), *p = in_ranked(c, 3), *g = in_ranked(c, 5);
	dim hidden = w ? w->dims[1] : dim_unknown();
	if (p && !nn_merge_dim(c, &hidden, p->dims[1], "the hidden size (the word embedding's width)", 3))
		return;
	if (g && !nn_merge_dim(c, &hidden, g->dims[0], "the hidden size (the word embedding's width)", 5))
		return;
	dim d[3] = {dim_unknown(), dim_unknown(), hidden};
	if (ids) {
		d[0] = ids->dims[0];
		d[1] = ids->dims[1];
	}
	set_out(c, 0, elem, 3, d);
	set_out(c, 1, DT_INT32, 1, d);
	set_out(c, 2, elem, 3, d);
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
