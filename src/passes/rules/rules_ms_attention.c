/* rules_ms_attention.c: ONNX Runtime's com.microsoft attention operators and their
 * companions: Attention, MultiHeadAttention, GroupQueryAttention,
 * DecoderMaskedMultiHeadAttention, QAttention, LongformerAttention, PackedAttention,
 * PackedMultiHeadAttention, SparseAttention, GemmaRotaryEmbedding, the T5 and gated
 * relative position biases, RemovePadding and RestorePadding (RotaryEmbedding keeps
 * its input's shape: ops_ms_attention.def).
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md; those the CPU provider runs are
 * checked against it by tests/ort/ms_vs_ort.py, the others by the unit tests:
 *   - Attention: output (B, S, v_hidden), present (2, B, N, P + S, k_hidden / N), the
 *     hidden sizes from qkv_hidden_sizes or a third of the weights' width each;
 *   - MultiHeadAttention: query (B, S, D) or packed QKV (B, S, N, 3, H); key (B, L, D),
 *     packed KV (B, L, N, 2, H) or BNSH (B, N, L, H); value (B, L, Dv) or (B, N, L, Hv);
 *     output (B, S, Dv), present_key/value (B, N, P + L, H / Hv) (the past's length
 *     when past_sequence_length shares the buffer), qk (B, N, S, P + L);
 *   - GroupQueryAttention: query (B, S, D) or packed (B, S, (N + 2 Nkv) H); output
 *     (B, S, N H), present (B, Nkv, T, H) with T max(past length, total_sequence_length)
 *     when the latter's content is known (a symbol gives Max(P, t)), the new length
 *     without a past, the past's with a windowed cache (sliding_window_cache), and the
 *     past's packed width for 4-bit caches; output_qk (B, N, S, total_sequence_length);
 *   - DecoderMaskedMultiHeadAttention: query (B, 1, D) or packed; output (B, S, Dv),
 *     present (B, N, P + 1, H) or the past's shape when the buffer is shared, qk
 *     (B, N, 1, total);
 *   - QAttention: output (B, S, W / 3) of the scales' type, present (2, B, N, P + S, H);
 *   - LongformerAttention: output like the input;
 *   - PackedAttention: input (T, In), weights (In, W): output (T, Hv), Hv the third of
 *     qkv_hidden_sizes or W / 3;
 *   - PackedMultiHeadAttention: query (T, D) with value (T, Dv), or packed QKV
 *     (T, N, 3, H): output (T, Dv) or (T, N H);
 *   - SparseAttention: query (B, S, N H) or packed (B, S, (N + 2 Nkv) H): output
 *     (B, S, N H); present_key/value share the past's buffer, so have its shape;
 *   - GemmaRotaryEmbedding: output1 like q, output2 like k;
 *   - RelativePositionBias: (1, N, query_length, key_length), the lengths from the
 *     inputs' content, N the bias table's width;
 *   - GatedRelativePositionBias: (B, N, S, S), B and S from the 3-D query_layer or
 *     from token_offset (B, S) with a 2-D one;
 *   - RemovePadding: output (tokens, H) with tokens a run-time size, token_offset (B, S),
 *     cumulated_seq_len (B + 1), max_seq_len (1), the last three int32;
 *   - RestorePadding: (B, S, H) from token_offset (B, S) and input (tokens, H).
 * The qk outputs' element type is independent of the inputs' and left unknown.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rule_protos.h"

#include <string.h>

#include "core/dtype.h"
#include "passes/rules/ms_inputs.h"
#include "passes/rules/rules_nn.h"

/* ---- Attention ------------------------------------------------------------------ */

static bool ms_qkv_sizes(infer_ctx *c, int32_t wi, int64_t heads, dim sizes[3])
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

/* ---- MultiHeadAttention ---------------------------------------------------------- */

/* query, key, value, bias, key_padding_mask, attention_bias, past_key, past_value,
 * past_sequence_length, cache_indirection. */
void infer_ms_multi_head_attention(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, elem);
	set_out_elem(c, 2, elem);
	if (!ms_rank_in(c, 0, 3, 5, -1, "3-D (batch, sequence, hidden) or 5-D packed QKV") ||
	    !ms_rank_in(c, 1, 3, 4, 5, "3-D, 4-D (BNSH) or 5-D packed KV") ||
	    !ms_rank_in(c, 2, 3, 4, -1, "3-D or 4-D (BNSH)") ||
	    !ms_rank_in(c, 6, 4, -1, -1, "4-D (batch, heads, past sequence, head size)") ||
	    !ms_rank_in(c, 7, 4, -1, -1, "4-D (batch, heads, past sequence, head size)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	if (!n)
		return;
	int32_t rq = ms_rank_of(c, 0), rk = ms_rank_of(c, 1), rv = ms_rank_of(c, 2);
	if (rq < 0)
		return;
	dim batch = ms_dim_of(c, 0, 0), seq = ms_dim_of(c, 0, 1), head, vhead, kvlen = dim_unknown();
	if (rq == 5) {
		/* packed QKV: key and value omitted, L = S */
		head = ms_dim_of(c, 0, 4);
		vhead = head;
		kvlen = seq;
	} else {
		if (!ms_per_head(c, ms_dim_of(c, 0, 2), n, &head))
			return;
		vhead = dim_unknown();
		if (rk == 5) {
			kvlen = ms_dim_of(c, 1, 1);
			vhead = ms_dim_of(c, 1, 4);
		} else if (rk == 3) {
			kvlen = ms_dim_of(c, 1, 1);
		} else if (rk == 4) {
			kvlen = ms_dim_of(c, 1, 2);
		}
		if (rv == 3) {
			if (!ms_per_head(c, ms_dim_of(c, 2, 2), n, &vhead))
				return;
		} else if (rv == 4) {
			vhead = ms_dim_of(c, 2, 3);
		}
	}
	dim o[3] = {batch, seq, dim_mul(c, vhead, dim_known(n))};
	set_out(c, 0, elem, 3, o);
	/* present: the past's length when past_sequence_length says the buffer is shared,
	 * else past + new (new only without a past); BNSH key and value are used as they are. */
	dim total = kvlen;
	if (in(c, 6)) {
		dim p = ms_dim_of(c, 6, 2);
		total = in(c, 8) ? p : dim_add(c, p, kvlen);
	} else if (in(c, 8)) {
		total = dim_unknown();
	}
	dim pk[4] = {batch, dim_known(n), total, head}, pv[4] = {batch, dim_known(n), total, vhead};
	set_out(c, 1, elem, 4, pk);
	set_out(c, 2, elem, 4, pv);
	dim qk[4] = {batch, dim_known(n), seq, total};
	set_out(c, 3, 0, 4, qk);
}

/* ---- GroupQueryAttention --------------------------------------------------------- */

/* present_key's length (its dim 2). With a windowed cache (sliding_window_cache) it is
 * the capacity, past_key's length. Otherwise it is max(past length, total): the past's
 * max_sequence_length when past and present share a buffer, past + new when they do
 * not; which of the two a model does is not in the graph, so it takes the total's
 * content (t, when has_t) to decide. Without a past nothing is shared: the new keys
 * alone (the total when known, else the key's length, the query's when packed). */
static dim gqa_present_len(infer_ctx *c, dim seq, bool has_t, dim t)
{
	bool window = attr_i(c, "sliding_window_cache", 0) != 0;
	if (window)
		return in(c, 3) ? ms_dim_of(c, 3, 2) : dim_unknown();
	if (!in(c, 3))
		return has_t ? t : in(c, 1) ? ms_dim_of(c, 1, 1) : seq;
	return has_t ? dim_max(c, ms_dim_of(c, 3, 2), t) : dim_unknown();
}

/* query, key, value, past_key, past_value, seqlens_k, total_sequence_length, cos_cache,
 * sin_cache, position_ids, attention_bias, head_sink, k_scale, v_scale, q/k_norm_weight. */
void infer_ms_group_query_attention(infer_ctx *c)
{
	/* A quantized cache's type is past_key's; without a past nothing says it. */
	bool quant = strcmp(attr_s(c, "k_quant_type", "NONE"), "NONE") ||
		     strcmp(attr_s(c, "v_quant_type", "NONE"), "NONE");
	int32_t elem = in_elem(c, 0), celem = in(c, 3) ? in_elem(c, 3) : quant ? 0 : elem;
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, celem);
	set_out_elem(c, 2, celem);
	set_out_elem(c, 3, elem);
	if (!ms_rank_in(c, 0, 3, -1, -1, "3-D (batch, sequence, hidden)") || !ms_rank_in(c, 1, 3, -1, -1, "3-D") ||
	    !ms_rank_in(c, 3, 4, -1, -1, "4-D (batch, kv heads, past sequence, head size)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads"), nkv = n ? ms_heads_attr(c, "kv_num_heads") : 0;
	if (!n || !nkv)
		return;
	if (ms_rank_of(c, 0) < 0)
		return;
	dim batch = ms_dim_of(c, 0, 0), seq = ms_dim_of(c, 0, 1), head;
	if (in(c, 1)) {
		if (!ms_per_head(c, ms_dim_of(c, 0, 2), n, &head))
			return;
	} else if (!ms_per_head(c, ms_dim_of(c, 0, 2), n + 2 * nkv, &head)) {
		return;
	}
	dim o[3] = {batch, seq, dim_mul(c, head, dim_known(n))};
	set_out(c, 0, elem, 3, o);
	dim t = dim_unknown();
	bool has_t = in_int1(c, 6, &t) && t.kind != DIM_UNKNOWN;
	dim pk[4] = {batch, dim_known(nkv), gqa_present_len(c, seq, has_t, t), head};
	if (attr_i(c, "kv_cache_bit_width", 0) == 4)
		pk[3] = ms_dim_of(c, 3, 3); /* two 4-bit values a byte: the past's packed width */
	set_out(c, 1, celem, 4, pk);
	set_out(c, 2, celem, 4, pk);
	/* output_qk's last dim is the total; with a windowed cache the doc gives none. */
	bool window = attr_i(c, "sliding_window_cache", 0) != 0;
	dim qk[4] = {batch, dim_known(n), seq, has_t && !window ? t : dim_unknown()};
	set_out(c, 3, elem, 4, qk);
}

/* ---- DecoderMaskedMultiHeadAttention --------------------------------------------- */

/* query, key, value, mask_index, attention_bias, past_key, past_value,
 * past_sequence_length, beam_width, cache_indirection, bias. */
void infer_ms_decoder_masked_mha(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, elem);
	set_out_elem(c, 2, elem);
	if (!ms_rank_in(c, 0, 3, -1, -1, "3-D (batch, 1, hidden)") || !ms_rank_in(c, 1, 3, 4, -1, "3-D or 4-D (BNSH)") ||
	    !ms_rank_in(c, 2, 3, 4, -1, "3-D or 4-D (BNSH)") ||
	    !ms_rank_in(c, 5, 4, -1, -1, "4-D (batch, heads, past sequence, head size)") ||
	    !ms_rank_in(c, 6, 4, -1, -1, "4-D (batch, heads, past sequence, head size)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	if (!n || ms_rank_of(c, 0) < 0)
		return;
	int32_t rk = ms_rank_of(c, 1), rv = ms_rank_of(c, 2);
	bool share = attr_i(c, "past_present_share_buffer", 0) != 0;
	dim batch = ms_dim_of(c, 0, 0), seq = ms_dim_of(c, 0, 1), head = dim_unknown(), vhead = dim_unknown();
	dim total = dim_unknown();
	if (in(c, 1)) {
		if (!ms_per_head(c, ms_dim_of(c, 0, 2), n, &head))
			return;
		if (rv == 3 && !ms_per_head(c, ms_dim_of(c, 2, 2), n, &vhead))
			return;
		if (rv == 4)
			vhead = ms_dim_of(c, 2, 3);
		if (rk == 4)
			total = ms_dim_of(c, 1, 2); /* cross attention: the keys as given */
	} else {
		/* packed QKV (B, 1, 2 D + Dv): the head size from the past */
		head = ms_dim_of(c, 5, 3);
		dim w = dim_sub(c, ms_dim_of(c, 0, 2), dim_mul(c, dim_known(2 * n), head));
		if (!ms_per_head(c, w, n, &vhead))
			return;
	}
	if (rk != 4) {
		if (in(c, 5))
			total = share ? dim_unknown() : dim_add(c, ms_dim_of(c, 5, 2), seq);
		else if (rk == 3)
			total = ms_dim_of(c, 1, 1);
	}
	dim o[3] = {batch, seq, dim_mul(c, vhead, dim_known(n))};
	set_out(c, 0, elem, 3, o);
	dim cache = share && in(c, 5) ? ms_dim_of(c, 5, 2) : total;
	dim pk[4] = {batch, dim_known(n), cache, head}, pv[4] = {batch, dim_known(n), cache, vhead};
	if (rk == 4)
		pk[2] = pv[2] = dim_unknown();
	set_out(c, 1, elem, 4, pk);
	set_out(c, 2, elem, 4, pv);
	dim qk[4] = {batch, dim_known(n), dim_known(1), total};
	set_out(c, 3, 0, 4, qk);
}

/* ---- QAttention, LongformerAttention --------------------------------------------- */

/* input (B, S, In) quantised, weight (In, 3 D), bias (3 D), input_scale, weight_scale,
 * mask_index, input_zero_point, weight_zero_point, past (2, B, N, P, H): float output
 * of the bias's type. */
void infer_ms_qattention(infer_ctx *c)
{
	int32_t elem = in_elem(c, 2);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, elem);
	if (!ms_rank_in(c, 0, 3, -1, -1, "3-D (batch, sequence, input hidden)") || !ms_rank_in(c, 1, 2, -1, -1, "2-D") ||
	    !ms_rank_in(c, 2, 1, -1, -1, "1-D") || !ms_rank_in(c, 8, 5, -1, -1, "5-D (2, batch, heads, past sequence, head size)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	if (!n || ms_rank_of(c, 0) < 0)
		return;
	dim w3 = ms_dim_of(c, 1, 1);
	if (in(c, 2) && !nn_merge_dim(c, &w3, ms_dim_of(c, 2, 0), "three hidden sizes (the weight's width)", 2))
		return;
	dim width = ms_dim_of(c, 0, 2);
	if (!nn_merge_dim(c, &width, ms_dim_of(c, 1, 0), "the input hidden size (the input's last dim)", 1))
		return;
	if (w3.kind == DIM_KNOWN && w3.v % 3 != 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the weight's width %lld is not three hidden sizes",
			   (long long)w3.v);
		return;
	}
	dim hidden = dim_floordiv(c, w3, dim_known(3)), head;
	if (!ms_per_head(c, hidden, n, &head))
		return;
	dim batch = ms_dim_of(c, 0, 0), seq = ms_dim_of(c, 0, 1);
	dim o[3] = {batch, seq, hidden};
	set_out(c, 0, elem, 3, o);
	dim total = seq;
	if (in(c, 8))
		total = attr_i(c, "past_present_share_buffer", 0) ? ms_dim_of(c, 8, 3) : dim_add(c, ms_dim_of(c, 8, 3), seq);
	dim pd[5] = {dim_known(2), batch, dim_known(n), total, head};
	set_out(c, 1, elem, 5, pd);
}

/* input (B, S, D), weight, bias, mask, global_weight, global_bias, global: output
 * like the input. */
void infer_ms_longformer_attention(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	if (!ms_rank_in(c, 0, 3, -1, -1, "3-D (batch, sequence, hidden)"))
		return;
	int32_t r = ms_rank_of(c, 0);
	if (r == 3)
		set_out(c, 0, elem, 3, in(c, 0)->dims);
}

/* ---- PackedAttention, PackedMultiHeadAttention ------------------------------------ */

/* input (T, In), weights (In, Hq + Hk + Hv), bias (Hq + Hk + Hv), token_offset (B, S),
 * cumulative_sequence_length (B + 1), attention_bias. */
void infer_ms_packed_attention(infer_ctx *c)
{
	int32_t elem = ms_out_type(c);
	if (!ms_rank_in(c, 0, 2, -1, -1, "2-D (tokens, input hidden)") || !ms_rank_in(c, 1, 2, -1, -1, "2-D") ||
	    !ms_rank_in(c, 2, 1, -1, -1, "1-D") || !ms_rank_in(c, 3, 2, -1, -1, "2-D (batch, sequence)") ||
	    !ms_rank_in(c, 4, 1, -1, -1, "1-D (batch + 1)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	dim sizes[3], width = ms_dim_of(c, 0, 1), w = ms_dim_of(c, 1, 1);
	if (!n || !ms_qkv_sizes(c, 1, n, sizes) || !ms_same_dim(c, &width, 1, 0, "the input hidden size (the input's last dim)") ||
	    !ms_same_dim(c, &w, 2, 0, "the merged weights' width"))
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
	int32_t elem = ms_out_type(c);
	if (!ms_rank_in(c, 0, 2, 4, -1, "2-D (tokens, hidden) or 4-D packed QKV (tokens, heads, 3, head size)") ||
	    !ms_rank_in(c, 1, 2, -1, -1, "2-D (tokens, hidden)") || !ms_rank_in(c, 2, 2, -1, -1, "2-D (tokens, v hidden)") ||
	    !ms_rank_in(c, 4, 2, -1, -1, "2-D (batch, sequence)") || !ms_rank_in(c, 5, 1, -1, -1, "1-D (batch + 1)"))
		return;
	int64_t n = ms_heads_attr(c, "num_heads");
	if (!n)
		return;
	dim tokens = ms_dim_of(c, 0, 0), v = dim_unknown(), head;
	if (!ms_same_dim(c, &tokens, 1, 0, "the token count") || !ms_same_dim(c, &tokens, 2, 0, "the token count"))
		return;
	if (ms_rank_of(c, 0) == 4) {
		dim heads = dim_known(n), three = dim_known(3);
		if (!ms_same_dim(c, &heads, 0, 1, "num_heads") || !ms_same_dim(c, &three, 0, 2, "the packed Q, K, V count"))
			return;
		v = dim_mul(c, dim_known(n), ms_dim_of(c, 0, 3));
	} else {
		dim hidden = ms_dim_of(c, 0, 1);
		if (!ms_per_head(c, hidden, n, &head) || !ms_same_dim(c, &hidden, 1, 1, "the query's hidden size"))
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
	if (!ms_same_dim(c, &d[0], past, 0, "the batch size") || !ms_same_dim(c, &d[1], past, 1, "kv_num_heads") ||
	    !ms_same_dim(c, &d[3], past, 3, "the head size"))
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
	if (!ms_same_dim(c, &head, 3, 3, "the head size"))
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
	int32_t elem = ms_out_type(c);
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
	int32_t elem = ms_out_type(c);
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
	if (!ms_same_dim(c, &batch, 6, 0, "the batch size") || !ms_same_dim(c, &seq, 6, 1, "the sequence length") ||
	    !ms_same_dim(c, &seq, 2, 2, "the sequence length") || !ms_same_dim(c, &seq, 2, 3, "the sequence length") ||
	    !ms_same_dim(c, &heads, 2, 1, "num_heads") || !ms_same_dim(c, &heads, 5, 1, "num_heads") ||
	    !ms_same_dim(c, &hidden, 1, 0, "the query's hidden size") || !ms_per_head(c, hidden, n, &head) ||
	    !ms_same_dim(c, &head, 3, 0, "the head size") || !ms_same_dim(c, &d, 4, 0, "the gate's width"))
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
	int32_t elem = ms_out_type(c);
	for (int32_t o = 1; o < 4; o++)
		set_out_elem(c, o, DT_INT32);
	if (!ms_rank_in(c, 0, 3, -1, -1, "3-D (batch, sequence, hidden)") || !ms_rank_in(c, 1, 1, -1, -1, "1-D (batch)"))
		return;
	dim batch = ms_dim_of(c, 0, 0), seq = ms_dim_of(c, 0, 1);
	if (!ms_same_dim(c, &batch, 1, 0, "the batch size"))
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
	int32_t elem = ms_out_type(c);
	if (!ms_rank_in(c, 0, 2, -1, -1, "2-D (tokens, hidden)") || !ms_rank_in(c, 1, 2, -1, -1, "2-D (batch, sequence)"))
		return;
	dim o[3] = {ms_dim_of(c, 1, 0), ms_dim_of(c, 1, 1), ms_dim_of(c, 0, 1)};
	set_out(c, 0, elem, 3, o);
}

/* ---- GemmaRotaryEmbedding --------------------------------------------------------- */

/* emb, q, q_rot, k, k_rot: output1 like q, output2 like k; both of q's type. */
void infer_ms_gemma_rotary(infer_ctx *c)
{
	int32_t elem = in_elem(c, 1);
	ms_like_input(c, 0, 1, elem);
	ms_like_input(c, 1, 3, elem);
}
