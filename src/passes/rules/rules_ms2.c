/* rules_ms2.c: more of ONNX Runtime's com.microsoft operators: Gelu, BiasAdd,
 * BiasSoftmax, BiasSplitGelu, RotaryEmbedding, GemmaRotaryEmbedding, GroupNorm,
 * SkipGroupNorm, EmbedLayerNormalization, Attention, MatMulNBits and
 * MatMulIntegerToFloat (GemmFastGelu, TransposeMatMul, DynamicQuantizeMatMul and
 * com.microsoft SimplifiedLayerNormalization reuse other families' rules: ops_ms2.def).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md (inputs, outputs, attributes)
 * and, where the runtime's CPU kernels run the operator, from what they produce
 * (tests/ort/ms_vs_ort.py); the CUDA-only ones are checked by tests/unit/test_rules_ms.c:
 *   - Gelu, BiasSoftmax, RotaryEmbedding, GroupNorm: the output is input 0's shape;
 *   - BiasAdd: Y like X (N, S, C), skip the same, bias (C);
 *   - BiasSplitGelu: X (N, S, D), bias (D), Y (N, S, D / 2);
 *   - GemmaRotaryEmbedding: output1 like q, output2 like k;
 *   - SkipGroupNorm: Y and S like X;
 *   - EmbedLayerNormalization: output and embedding_sum (B, S, H), H the embeddings'
 *     width, mask_index (B) int32;
 *   - Attention: output (B, S, v_hidden), present (2, B, N, P + S, k_hidden / N), the
 *     hidden sizes from qkv_hidden_sizes or a third of the weights' width each;
 *   - MatMulNBits: A (..., K), Y (..., N), N and K attributes;
 *   - MatMulIntegerToFloat: MatMul's shape, a_scale's element type.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rules_ms2.h"
#include "passes/rules/rules_ms_attn.h"

#include "core/dtype.h"
#include "passes/rules/rules_nn.h"

void ms_like_input(infer_ctx *c, int32_t o, int32_t i, int32_t elem)
{
	int32_t r = in_rank(c, i);
	if (r < 0) {
		set_out_elem(c, o, elem);
		return;
	}
	set_out(c, o, elem, r, in(c, i)->dims);
}

void infer_ms_same_shape(infer_ctx *c) { ms_like_input(c, 0, 0, in_elem(c, 0)); }

bool ms_rank_is(infer_ctx *c, int32_t i, int32_t r, const char *what) { return ms_rank_in(c, i, r, -1, -1, what); }

/* ---- BiasAdd, BiasSplitGelu ------------------------------------------------------ */

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

/* ---- GemmaRotaryEmbedding, SkipGroupNorm --------------------------------------- */

/* emb, q, q_rot, k, k_rot: output1 like q, output2 like k; both of q's type. */
void infer_ms_gemma_rotary(infer_ctx *c)
{
	int32_t elem = in_elem(c, 1);
	ms_like_input(c, 0, 1, elem);
	ms_like_input(c, 1, 3, elem);
}

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

/* ---- Attention ------------------------------------------------------------------ */

bool ms_qkv_sizes(infer_ctx *c, int32_t wi, int64_t heads, dim sizes[3])
{
	const tinfo *w = in_ranked(c, wi);
	const int64_t *qkv;
	int32_t nq;
	sizes[0] = sizes[1] = sizes[2] = dim_unknown();
	if (attr_ints(c, "qkv_hidden_sizes", &qkv, &nq)) {
		if (nq != 3 || qkv[0] <= 0 || qkv[1] <= 0 || qkv[2] <= 0) {
			infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "qkv_hidden_sizes must hold three positive sizes");
			return false;
		}
		for (int32_t k = 0; k < 3; k++)
			sizes[k] = dim_known(qkv[k]);
	} else if (w && w->rank == 2 && w->dims[1].kind == DIM_KNOWN) {
		if (w->dims[1].v % 3 != 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "the width of weights '%s' %s must be three hidden sizes (no qkv_hidden_sizes)",
				   in_name(c, wi), fmt_shape(c, w));
			return false;
		}
		for (int32_t k = 0; k < 3; k++)
			sizes[k] = dim_known(w->dims[1].v / 3);
	}
	for (int32_t k = 0; k < 2; k++)
		if (sizes[k].kind == DIM_KNOWN && sizes[k].v % heads != 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "hidden size %lld is not a multiple of num_heads %lld",
				   (long long)sizes[k].v, (long long)heads);
			return false;
		}
	return true;
}

/* input (B, S, In), weights (In, Hq + Hk + Hv), bias, mask_index, past (2, B, N, P,
 * Hk / N), attention_bias, past_sequence_length; num_heads N. */
void infer_ms_attention(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, elem);
	if (!ms_rank_is(c, 0, 3, "3-D (batch, sequence, input hidden)") || !ms_rank_is(c, 1, 2, "2-D") ||
	    !ms_rank_is(c, 4, 5, "5-D (2, batch, heads, past sequence, head size)"))
		return;
	int64_t heads = attr_i(c, "num_heads", 0);
	if (heads <= 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "num_heads must be positive, not %lld", (long long)heads);
		return;
	}
	const tinfo *x = in_ranked(c, 0), *w = in_ranked(c, 1), *past = in_ranked(c, 4);
	dim sizes[3];
	if (!ms_qkv_sizes(c, 1, heads, sizes))
		return;
	dim width = x ? x->dims[2] : dim_unknown();
	if (w && !nn_merge_dim(c, &width, w->dims[0], "the input hidden size (the input's last dim)", 1))
		return;
	dim batch = x ? x->dims[0] : dim_unknown(), seq = x ? x->dims[1] : dim_unknown();
	dim o[3] = {batch, seq, sizes[2]};
	set_out(c, 0, elem, 3, o);
	dim head = dim_floordiv(c, sizes[1], dim_known(heads));
	dim total = seq, pd[5] = {dim_known(2), batch, dim_known(heads), dim_unknown(), head};
	if (past) {
		for (int32_t k = 0; k < 5; k++)
			if (k != 3 && !nn_merge_dim(c, &pd[k], past->dims[k], "the present state's dim", 4))
				return;
		total = attr_i(c, "past_present_share_buffer", 0) ? past->dims[3] : dim_add(c, past->dims[3], seq);
	}
	pd[3] = total;
	set_out(c, 1, elem, 5, pd);
}

/* ---- MatMulNBits, MatMulIntegerToFloat ----------------------------------------- */

bool ms_kn_attrs(infer_ctx *c, int64_t *k, int64_t *n)
{
	*k = attr_i(c, "K", 0);
	*n = attr_i(c, "N", 0);
	if (*k > 0 && *n > 0)
		return true;
	infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "K and N must be positive (K %lld, N %lld)", (long long)*k,
		   (long long)*n);
	return false;
}

void ms_matmul_sized(infer_ctx *c, int64_t in_size, int64_t out_size)
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
