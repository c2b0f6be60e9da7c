/* rules_ms3.c: more of ONNX Runtime's com.microsoft operators: PackedAttention,
 * PackedMultiHeadAttention, SparseAttention, RelativePositionBias,
 * GatedRelativePositionBias, RemovePadding, RestorePadding, MoE and QMoE.
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md; those the CPU provider runs are
 * checked against it by tests/ort/ms_vs_ort.py (MS3_CASES), all of them by
 * tests/unit/test_rules_ms3.c:
 *   - PackedAttention: input (T, In), weights (In, W): output (T, Hv), Hv the third of
 *     qkv_hidden_sizes or W / 3;
 *   - PackedMultiHeadAttention: query (T, D) with value (T, Dv), or packed QKV
 *     (T, N, 3, H): output (T, Dv) or (T, N H);
 *   - SparseAttention: query (B, S, N H) or packed (B, S, (N + 2 Nkv) H): output
 *     (B, S, N H); present_key/value share the past's buffer, so have its shape;
 *   - RelativePositionBias: (1, N, query_length, key_length), the lengths from the
 *     inputs' content, N the bias table's width;
 *   - GatedRelativePositionBias: (B, N, S, S), B and S from the 3-D query_layer or
 *     from token_offset (B, S) with a 2-D one;
 *   - RemovePadding: output (tokens, H) with tokens a run-time size, token_offset (B, S),
 *     cumulated_seq_len (B + 1), max_seq_len (1), the last three int32;
 *   - RestorePadding: (B, S, H) from token_offset (B, S) and input (tokens, H);
 *   - MoE, QMoE: output like the input (tokens, H) or (B, S, H), the experts' sizes
 *     checked against it where the layout is certain (QMoE's weights only when
 *     weights_prepacked is 0: prepacked layouts are the provider's choice).
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rules_ms3.h"

#include <string.h>

#include "core/dtype.h"
#include "passes/rules/rules_ms2.h"
#include "passes/rules/rules_ms_attn.h"
#include "passes/rules/rules_nn.h"

/* Merges dim k of input i, when listed, into *acc (a size the doc says they share). */
static bool same(infer_ctx *c, dim *acc, int32_t i, int32_t k, const char *what)
{
	return !in(c, i) || nn_merge_dim(c, acc, ms_dim_of(c, i, k), what, i);
}

/* Sets output 0's element type to input 0's, which every rule here gives it, before
 * anything can refuse the model; returns it. */
static int32_t out_type(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	return elem;
}

/* ---- PackedAttention, PackedMultiHeadAttention ------------------------------------ */

/* input (T, In), weights (In, Hq + Hk + Hv), bias (Hq + Hk + Hv), token_offset (B, S),
 * cumulative_sequence_length (B + 1), attention_bias. */
void infer_ms_packed_attention(infer_ctx *c)
{
	int32_t elem = out_type(c);
	if (!ms_rank_in(c, 0, 2, -1, -1, "2-D (tokens, input hidden)") || !ms_rank_in(c, 1, 2, -1, -1, "2-D") ||
	    !ms_rank_in(c, 2, 1, -1, -1, "1-D") || !ms_rank_in(c, 3, 2, -1, -1, "2-D (batch, sequence)") ||
	    !ms_rank_in(c, 4, 1, -1, -1, "1-D (batch + 1)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	dim sizes[3], width = ms_dim_of(c, 0, 1), w = ms_dim_of(c, 1, 1);
	if (!n || !ms_qkv_sizes(c, 1, n, sizes) || !same(c, &width, 1, 0, "the input hidden size (the input's last dim)") ||
	    !same(c, &w, 2, 0, "the merged weights' width"))
		return;
	dim sum = dim_add(c, dim_add(c, sizes[0], sizes[1]), sizes[2]);
	if (w.kind == DIM_KNOWN && sum.kind == DIM_KNOWN && w.v != sum.v) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "qkv_hidden_sizes add up to %lld, but the weights are %lld wide",
			   (long long)sum.v, (long long)w.v);
		return;
	}
	dim o[2] = {ms_dim_of(c, 0, 0), sizes[2]};
	set_out(c, 0, elem, 2, o);
}

/* query (T, D) or packed QKV (T, N, 3, H), key (T, D), value (T, Dv), bias, token_offset
 * (B, S), cumulative_sequence_length (B + 1), attention_bias. */
void infer_ms_packed_mha(infer_ctx *c)
{
	int32_t elem = out_type(c);
	if (!ms_rank_in(c, 0, 2, 4, -1, "2-D (tokens, hidden) or 4-D packed QKV (tokens, heads, 3, head size)") ||
	    !ms_rank_in(c, 1, 2, -1, -1, "2-D (tokens, hidden)") || !ms_rank_in(c, 2, 2, -1, -1, "2-D (tokens, v hidden)") ||
	    !ms_rank_in(c, 4, 2, -1, -1, "2-D (batch, sequence)") || !ms_rank_in(c, 5, 1, -1, -1, "1-D (batch + 1)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	if (!n)
		return;
	dim tokens = ms_dim_of(c, 0, 0), v = dim_unknown(), head;
	if (!same(c, &tokens, 1, 0, "the token count") || !same(c, &tokens, 2, 0, "the token count"))
		return;
	if (ms_rank_of(c, 0) == 4) {
		dim heads = dim_known(n), three = dim_known(3);
		if (!same(c, &heads, 0, 1, "num_heads") || !same(c, &three, 0, 2, "the packed Q, K, V count"))
			return;
		v = dim_mul(c, dim_known(n), ms_dim_of(c, 0, 3));
	} else {
		dim hidden = ms_dim_of(c, 0, 1);
		if (!ms_per_head(c, hidden, n, &head) || !same(c, &hidden, 1, 1, "the query's hidden size"))
			return;
		if (in(c, 2) && !ms_per_head(c, ms_dim_of(c, 2, 1), n, &head))
			return;
		if (in(c, 2))
			v = ms_dim_of(c, 2, 1);
	}
	dim o[2] = {tokens, v};
	set_out(c, 0, elem, 2, o);
}

/* ---- SparseAttention -------------------------------------------------------------- */

/* present (1 or 2) from past (3 or 4): the shared buffer (B, Nkv, max, H). */
static bool sparse_present(infer_ctx *c, int32_t o, int32_t past, dim batch, int64_t nkv, dim head, int32_t elem)
{
	if (!in(c, past))
		return true;
	dim d[4] = {batch, dim_known(nkv), ms_dim_of(c, past, 2), head};
	if (!same(c, &d[0], past, 0, "the batch size") || !same(c, &d[1], past, 1, "kv_num_heads") ||
	    !same(c, &d[3], past, 3, "the head size"))
		return false;
	set_out(c, o, elem, 4, d);
	return true;
}

/* query, key, value, past_key, past_value, block_row_indices, block_col_indices,
 * total_sequence_length, key_total_sequence_lengths, cos_cache, sin_cache. */
void infer_ms_sparse_attention(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	for (int32_t o = 0; o < 3; o++)
		set_out_elem(c, o, elem);
	const char *cache = "4-D (batch, kv heads, max cache sequence, head size)";
	if (!ms_rank_in(c, 0, 3, -1, -1, "3-D (batch, sequence, hidden)") || !ms_rank_in(c, 1, 3, -1, -1, "3-D") ||
	    !ms_rank_in(c, 2, 3, -1, -1, "3-D") || !ms_rank_in(c, 3, 4, -1, -1, cache) || !ms_rank_in(c, 4, 4, -1, -1, cache) ||
	    !ms_rank_in(c, 5, 2, -1, -1, "2-D (layouts, max blocks + 1)") ||
	    !ms_rank_in(c, 6, 2, -1, -1, "2-D (layouts, max non-zero blocks)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads"), nkv = n ? ms_heads_attr(c, "kv_num_heads") : 0;
	if (!n || !nkv)
		return;
	dim layouts = ms_dim_of(c, 5, 0);
	if (layouts.kind == DIM_KNOWN && (layouts.v == 0 || n % layouts.v != 0)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "num_heads %lld is not a multiple of the %lld block mask layouts",
			   (long long)n, (long long)layouts.v);
		return;
	}
	dim batch = ms_dim_of(c, 0, 0), seq = ms_dim_of(c, 0, 1), head;
	if (!ms_per_head(c, ms_dim_of(c, 0, 2), in(c, 1) ? n : n + 2 * nkv, &head))
		return;
	if (!same(c, &head, 3, 3, "the head size"))
		return;
	dim o[3] = {batch, seq, dim_mul(c, head, dim_known(n))};
	set_out(c, 0, elem, 3, o);
	if (sparse_present(c, 1, 3, batch, nkv, head, elem))
		sparse_present(c, 2, 4, batch, nkv, head, elem);
}

/* ---- RelativePositionBias, GatedRelativePositionBias ------------------------------ */

/* bias_table (buckets, N), query_length, key_length (int64 scalars). */
void infer_ms_relative_position_bias(infer_ctx *c)
{
	int32_t elem = out_type(c);
	if (!ms_rank_in(c, 0, 2, -1, -1, "2-D (buckets, heads)"))
		return;
	dim len[2] = {dim_unknown(), dim_unknown()};
	for (int32_t k = 0; k < 2; k++) {
		if (!in_int1(c, 1 + k, &len[k]))
			len[k] = dim_unknown();
		else if (!nn_sizes_ok(c, 1 + k, &len[k], 1))
			return;
	}
	dim o[4] = {dim_known(1), ms_dim_of(c, 0, 1), len[0], len[1]};
	set_out(c, 0, elem, 4, o);
}

/* query_layer (B, S, N H) or (T, N H), query_bias (N H), rel_pos (1, N, S, S), weight
 * (H, D), bias (D), eco_a (1, N, 1, 1), token_offset (B, S). */
void infer_ms_gated_relative_position_bias(infer_ctx *c)
{
	int32_t elem = out_type(c);
	if (!ms_rank_in(c, 0, 2, 3, -1, "3-D (batch, sequence, hidden) or 2-D (tokens, hidden)") ||
	    !ms_rank_in(c, 1, 1, -1, -1, "1-D") || !ms_rank_in(c, 2, 4, -1, -1, "4-D (1, heads, sequence, sequence)") ||
	    !ms_rank_in(c, 3, 2, -1, -1, "2-D") || !ms_rank_in(c, 4, 1, -1, -1, "1-D") ||
	    !ms_rank_in(c, 5, 4, -1, -1, "4-D (1, heads, 1, 1)") || !ms_rank_in(c, 6, 2, -1, -1, "2-D (batch, sequence)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	int32_t rq = ms_rank_of(c, 0);
	if (!n)
		return;
	if (rq == 2 && !in(c, 6)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "a 2-D query_layer '%s' needs token_offset for its batch",
			   in_name(c, 0));
		return;
	}
	dim batch = rq == 3 ? ms_dim_of(c, 0, 0) : dim_unknown(), seq = rq == 3 ? ms_dim_of(c, 0, 1) : dim_unknown();
	dim hidden = rq > 0 ? ms_dim_of(c, 0, rq - 1) : dim_unknown(), heads = dim_known(n), head;
	dim d = ms_dim_of(c, 3, 1);
	if (!same(c, &batch, 6, 0, "the batch size") || !same(c, &seq, 6, 1, "the sequence length") ||
	    !same(c, &seq, 2, 2, "the sequence length") || !same(c, &seq, 2, 3, "the sequence length") ||
	    !same(c, &heads, 2, 1, "num_heads") || !same(c, &heads, 5, 1, "num_heads") ||
	    !same(c, &hidden, 1, 0, "the query's hidden size") || !ms_per_head(c, hidden, n, &head) ||
	    !same(c, &head, 3, 0, "the head size") || !same(c, &d, 4, 0, "the gate's width"))
		return;
	if (d.kind == DIM_KNOWN && d.v % 2 != 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the gate's width %lld is not even", (long long)d.v);
		return;
	}
	dim o[4] = {batch, dim_known(n), seq, seq};
	set_out(c, 0, elem, 4, o);
}

/* ---- RemovePadding, RestorePadding ------------------------------------------------ */

/* input (B, S, H), sequence_token_count (B). */
void infer_ms_remove_padding(infer_ctx *c)
{
	int32_t elem = out_type(c);
	for (int32_t o = 1; o < 4; o++)
		set_out_elem(c, o, DT_INT32);
	if (!ms_rank_in(c, 0, 3, -1, -1, "3-D (batch, sequence, hidden)") || !ms_rank_in(c, 1, 1, -1, -1, "1-D (batch)"))
		return;
	dim batch = ms_dim_of(c, 0, 0), seq = ms_dim_of(c, 0, 1);
	if (!same(c, &batch, 1, 0, "the batch size"))
		return;
	/* The count of real tokens is the content of sequence_token_count. */
	dim o[2] = {dim_fresh_same(c), ms_dim_of(c, 0, 2)}, offs[2] = {batch, seq};
	dim cum = dim_add(c, batch, dim_known(1)), one = dim_known(1);
	set_out(c, 0, elem, 2, o);
	set_out(c, 1, DT_INT32, 2, offs);
	set_out(c, 2, DT_INT32, 1, &cum);
	set_out(c, 3, DT_INT32, 1, &one);
}

/* input (tokens, H), token_offset (B, S). */
void infer_ms_restore_padding(infer_ctx *c)
{
	int32_t elem = out_type(c);
	if (!ms_rank_in(c, 0, 2, -1, -1, "2-D (tokens, hidden)") || !ms_rank_in(c, 1, 2, -1, -1, "2-D (batch, sequence)"))
		return;
	dim o[3] = {ms_dim_of(c, 1, 0), ms_dim_of(c, 1, 1), ms_dim_of(c, 0, 1)};
	set_out(c, 0, elem, 3, o);
}

/* ---- MoE, QMoE -------------------------------------------------------------------- */

/* What MoE and QMoE share: input (tokens, H) or (B, S, H), router_probs (tokens, E);
 * sets the output like the input and returns H and E, false on a mismatch. */
static bool moe_input(infer_ctx *c, dim *hidden, dim *experts)
{
	int32_t elem = out_type(c);
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
		if (!same(c, &e, i, 0, "the expert count"))
			return;
	if (!same(c, &hidden, 2, 2, "the hidden size") || !same(c, &hidden, 4, 1, "the hidden size") ||
	    !same(c, &hidden, 5, 1, "the hidden size") || !same(c, &hidden, 6, 2, "the hidden size") ||
	    !same(c, &inter, 6, 1, "the inner size") || !same(c, &inter, 7, 1, "the inner size") ||
	    !same(c, &f1, 3, 1, "fc1's width"))
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
		    !ms_rank_in(c, biases[k], 2, -1, -1, "2-D (experts, width)") || !same(c, &e, biases[k], 0, "the expert count"))
			return;
	dim rows = ms_dim_of(c, 1, 0);
	if (!ms_rank_in(c, 14, 2, -1, -1, "2-D like router_probs") || !same(c, &rows, 14, 0, "router_probs' rows") ||
	    !same(c, &e, 14, 1, "the expert count") || !same(c, &hidden, 7, 1, "the hidden size"))
		return;
	/* The weights' own layout is the provider's unless they are declared raw. */
	if (attr_i(c, "weights_prepacked", -1) != 0)
		return;
	for (int32_t k = 0; k < 3; k++)
		if (!same(c, &e, weights[k], 0, "the expert count"))
			return;
	same(c, &hidden, 5, 1, "the hidden size");
}
