/* rules_ms_attn.c: ONNX Runtime's com.microsoft attention operators: MultiHeadAttention,
 * GroupQueryAttention, DecoderMaskedMultiHeadAttention, QAttention, LongformerAttention.
 *
 * Facts from ONNX Runtime's docs/ContribOperators.md; those the CPU provider runs
 * (MultiHeadAttention, GroupQueryAttention, QAttention) are checked against it by
 * tests/ort/ms_vs_ort.py, the others by tests/unit/test_rules_ms_attn.c:
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
 *   - LongformerAttention: output like the input.
 * The qk outputs' element type is independent of the inputs' and left unknown.
 *
 * Invariant: as every rule (rule_api.h), outputs are set to what is certain; a problem
 * is reported and leaves the outputs it concerns with no shape.
 */
#include "passes/rules/rules_ms_attn.h"

#include <string.h>

#include "passes/rules/rules_nn.h"

/* The attribute `name` as a positive head count; reported and 0 when not. */
int64_t ms_heads_attr(infer_ctx *c, const char *name)
{
	int64_t h = attr_i(c, name, 0);
	if (h <= 0) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "%s must be positive, not %lld", name, (long long)h);
		return 0;
	}
	return h;
}

/* Input i's rank when known, -1 when not or omitted. */
int32_t ms_rank_of(infer_ctx *c, int32_t i) { return in(c, i) ? in_rank(c, i) : -1; }

/* Dim k of input i, unknown when its rank is not known. */
dim ms_dim_of(infer_ctx *c, int32_t i, int32_t k)
{
	const tinfo *t = in(c, i) ? in_ranked(c, i) : NULL;
	return t && k < t->rank ? t->dims[k] : dim_unknown();
}

/* Input i, when listed and of known rank, must have one of ranks r1, r2, r3 (0: none). */
bool ms_rank_in(infer_ctx *c, int32_t i, int32_t r1, int32_t r2, int32_t r3, const char *what)
{
	int32_t r = ms_rank_of(c, i);
	if (r < 0 || r == r1 || r == r2 || r == r3)
		return true;
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be %s", in_name(c, i), fmt_shape(c, in(c, i)), what);
	return false;
}

/* a / n for a hidden size that must split into n heads: reported when it does not. */
bool ms_per_head(infer_ctx *c, dim a, int64_t n, dim *out)
{
	if (a.kind == DIM_KNOWN && a.v % n != 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "hidden size %lld is not a multiple of %lld heads", (long long)a.v,
			   (long long)n);
		return false;
	}
	*out = dim_floordiv(c, a, dim_known(n));
	return true;
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
