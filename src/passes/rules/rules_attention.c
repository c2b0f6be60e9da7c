/* rules_attention.c: Attention (23, 24, 25), RotaryEmbedding (23), TensorScatter (24),
 * the KV cache update (described where it is defined), LinearAttention (27) and
 * ai.onnx.preview's FlexAttention.
 *
 * Attention takes Q, K, V all 4-D, (batch, heads, seq, head_size), or all 3-D,
 * (batch, seq, heads * head_size) with the head counts in q_num_heads and
 * kv_num_heads; V's head size may differ from Q's and K's. With past_key and
 * past_value (batch, kv_heads, past_seq, ...) the keys seen are
 * total = past_seq + kv_seq.
 *   Y                 (batch, q_heads, q_seq, v_head_size),
 *                     3-D: (batch, q_seq, q_heads * v_head_size)
 *   present_key       (batch, kv_heads, total, head_size)
 *   present_value     (batch, kv_heads, total, v_head_size)
 *   qk_matmul_output  (batch, q_heads, q_seq, total)
 * Y and qk_matmul_output take Q's type, present_key K's, present_value V's.
 * Opset 24's extra input, nonpad_kv_seqlen (batch), is one more witness of
 * batch; opset 25's window attributes change no shape. RotaryEmbedding keeps
 * X's shape.
 *
 * LinearAttention (27): query (B, T, Hq * dk), key (B, T, Hkv * dk), value
 * (B, T, Hkv * dv), past_state (B, Hkv, dk, dv), decay (B, T, Hkv * dk or Hkv), beta
 * (B, T, Hkv or 1): output (B, T, Hq * dv), present_state (B, Hkv, dk, dv); Hq and Hkv
 * are the required q_num_heads and kv_num_heads, Hq a multiple of Hkv. Output takes
 * query's type, present_state past_state's (its own type constraint S), else query's.
 * ai.onnx.preview's FlexAttention (1): Q (B, Hq, L, E), K (B, Hkv, S, E), V
 * (B, Hkv, S, Ev): Y (B, Hq, L, Ev); the score_mod and prob_mod bodies see
 * (B, Hq, L, S) in softmax_precision's type.
 *
 * Invariant: a head size read from a 3-D hidden size is written only when the
 * head count divides it; every dim with several witnesses is merged (a conflict
 * is reported and the outputs keep their element types only).
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include "core/dtype.h"

enum { IN_Q, IN_K, IN_V, IN_MASK, IN_PAST_KEY, IN_PAST_VALUE, IN_NONPAD };
enum { OUT_Y, OUT_PRESENT_KEY, OUT_PRESENT_VALUE, OUT_QK };

typedef struct att_dims {
	dim batch, q_heads, kv_heads, q_seq, kv_seq, past, head, v_head;
} att_dims;

/* hidden / heads when both are known and heads divides hidden; hidden itself
 * for one head; unknown otherwise. False (reported) when heads does not divide
 * hidden. */
static bool head_size(infer_ctx *c, int32_t i, dim hidden, dim heads, dim *out)
{
	hidden = dim_resolve(c->syms, hidden), heads = dim_resolve(c->syms, heads);
	*out = dim_unknown();
	if (dim_is(heads, 1)) {
		*out = hidden;
		return true;
	}
	if (hidden.kind != DIM_KNOWN || heads.kind != DIM_KNOWN || heads.v < 1)
		return true;
	if (hidden.v % heads.v) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s: its hidden size %lld is not a multiple of %lld heads",
			   in_name(c, i), fmt_shape(c, in(c, i)), (long long)hidden.v, (long long)heads.v);
		return false;
	}
	*out = dim_known(hidden.v / heads.v);
	return true;
}

/* A head-count attribute as a dim (unknown when absent); false when invalid. */
static bool heads_attr(infer_ctx *c, const char *name, dim *out)
{
	*out = dim_unknown();
	if (!attr_has(c, name))
		return true;
	int64_t h = attr_i(c, name, 0);
	if (h < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s is %lld; it must be at least 1", name, (long long)h);
		return false;
	}
	*out = dim_known(h);
	return true;
}

static bool read_qkv(infer_ctx *c, int32_t rank, att_dims *a)
{
	const tinfo *q = in(c, IN_Q), *k = in(c, IN_K), *v = in(c, IN_V);
	bool ok = nn_merge_dim(c, &a->batch, q->dims[0], "batch_size", IN_Q) &&
		  nn_merge_dim(c, &a->batch, k->dims[0], "batch_size", IN_K) &&
		  nn_merge_dim(c, &a->batch, v->dims[0], "batch_size", IN_V);
	if (!ok)
		return false;
	if (rank == 4)
		return nn_merge_dim(c, &a->q_heads, q->dims[1], "q_num_heads", IN_Q) &&
		       nn_merge_dim(c, &a->kv_heads, k->dims[1], "kv_num_heads", IN_K) &&
		       nn_merge_dim(c, &a->kv_heads, v->dims[1], "kv_num_heads", IN_V) &&
		       nn_merge_dim(c, &a->q_seq, q->dims[2], "q_sequence_length", IN_Q) &&
		       nn_merge_dim(c, &a->kv_seq, k->dims[2], "kv_sequence_length", IN_K) &&
		       nn_merge_dim(c, &a->kv_seq, v->dims[2], "kv_sequence_length", IN_V) &&
		       nn_merge_dim(c, &a->head, q->dims[3], "head_size", IN_Q) &&
		       nn_merge_dim(c, &a->head, k->dims[3], "head_size", IN_K) &&
		       nn_merge_dim(c, &a->v_head, v->dims[3], "v_head_size", IN_V);
	/* 3-D: the head counts come from the attributes, the spec requires them. */
	if (a->q_heads.kind == DIM_UNKNOWN || a->kv_heads.kind == DIM_UNKNOWN) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "3-D Q, K and V need the q_num_heads and kv_num_heads attributes");
		return false;
	}
	dim hq, hk, hv;
	return nn_merge_dim(c, &a->q_seq, q->dims[1], "q_sequence_length", IN_Q) &&
	       nn_merge_dim(c, &a->kv_seq, k->dims[1], "kv_sequence_length", IN_K) &&
	       nn_merge_dim(c, &a->kv_seq, v->dims[1], "kv_sequence_length", IN_V) &&
	       head_size(c, IN_Q, q->dims[2], a->q_heads, &hq) && head_size(c, IN_K, k->dims[2], a->kv_heads, &hk) &&
	       head_size(c, IN_V, v->dims[2], a->kv_heads, &hv) && nn_merge_dim(c, &a->head, hq, "head_size", IN_Q) &&
	       nn_merge_dim(c, &a->head, hk, "head_size", IN_K) && nn_merge_dim(c, &a->v_head, hv, "v_head_size", IN_V);
}

/* past_key (batch, kv_heads, past, head) and past_value (..., v_head). */
static bool read_past(infer_ctx *c, att_dims *a, bool *has_past)
{
	*has_past = false;
	for (int32_t i = IN_PAST_KEY; i <= IN_PAST_VALUE; i++) {
		const tinfo *p = in(c, i);
		if (!p)
			continue;
		*has_past = true;
		int32_t r = in_rank(c, i);
		if (r < 0)
			continue;
		if (r != 4) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "'%s' %s must be 4-D (batch, kv_num_heads, past, head size)", in_name(c, i),
				   fmt_shape(c, p));
			return false;
		}
		if (!nn_merge_dim(c, &a->batch, p->dims[0], "batch_size", i) ||
		    !nn_merge_dim(c, &a->kv_heads, p->dims[1], "kv_num_heads", i) ||
		    !nn_merge_dim(c, &a->past, p->dims[2], "past_sequence_length", i) ||
		    !nn_merge_dim(c, i == IN_PAST_KEY ? &a->head : &a->v_head, p->dims[3],
			       i == IN_PAST_KEY ? "head_size" : "v_head_size", i))
			return false;
	}
	return true;
}

void infer_attention(infer_ctx *c)
{
	int32_t eq = in_elem(c, IN_Q), ek = in_elem(c, IN_K), ev = in_elem(c, IN_V);
	set_out_elem(c, OUT_Y, eq);
	set_out_elem(c, OUT_PRESENT_KEY, ek);
	set_out_elem(c, OUT_PRESENT_VALUE, ev);
	set_out_elem(c, OUT_QK, eq);
	att_dims a = {dim_unknown(), dim_unknown(), dim_unknown(), dim_unknown(),
		      dim_unknown(), dim_unknown(), dim_unknown(), dim_unknown()};
	int32_t rq = in_rank(c, IN_Q), rk = in_rank(c, IN_K), rv = in_rank(c, IN_V);
	if (rq < 0 || rk < 0 || rv < 0)
		return;
	if ((rq != 3 && rq != 4) || rk != rq || rv != rq) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Q %s, K %s and V %s must be all 3-D or all 4-D",
			   fmt_shape(c, in(c, IN_Q)), fmt_shape(c, in(c, IN_K)), fmt_shape(c, in(c, IN_V)));
		return;
	}
	if (rq == 3 && (!heads_attr(c, "q_num_heads", &a.q_heads) || !heads_attr(c, "kv_num_heads", &a.kv_heads)))
		return;
	bool has_past;
	if (!read_qkv(c, rq, &a) || !read_past(c, &a, &has_past))
		return;
	const tinfo *np = c->opset >= 24 ? in_ranked(c, IN_NONPAD) : NULL;
	if (np && np->rank != 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "nonpad_kv_seqlen '%s' %s must be (batch_size)",
			   in_name(c, IN_NONPAD), fmt_shape(c, np));
		return;
	}
	if (np && !nn_merge_dim(c, &a.batch, np->dims[0], "batch_size", IN_NONPAD))
		return;
	dim total = has_past ? dim_add(c, a.past, a.kv_seq) : a.kv_seq;
	if (rq == 4) {
		dim y[4] = {a.batch, a.q_heads, a.q_seq, a.v_head};
		set_out(c, OUT_Y, eq, 4, y);
	} else {
		dim y[3] = {a.batch, a.q_seq, dim_mul(c, a.q_heads, a.v_head)};
		/* q_heads == kv_heads: V's hidden size as it is, even when symbolic */
		if (dim_eq(dim_resolve(c->syms, a.q_heads), dim_resolve(c->syms, a.kv_heads)))
			y[2] = in(c, IN_V)->dims[2];
		set_out(c, OUT_Y, eq, 3, y);
	}
	dim pk[4] = {a.batch, a.kv_heads, total, a.head}, pv[4] = {a.batch, a.kv_heads, total, a.v_head};
	dim qk[4] = {a.batch, a.q_heads, a.q_seq, total};
	set_out(c, OUT_PRESENT_KEY, ek, 4, pk);
	set_out(c, OUT_PRESENT_VALUE, ev, 4, pv);
	set_out(c, OUT_QK, eq, 4, qk);
}

void infer_rotary_embedding(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	const tinfo *x = in_ranked(c, 0);
	if (x && x->rank != 3 && x->rank != 4) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must be 3-D or 4-D", in_name(c, 0),
			   fmt_shape(c, x));
		x = NULL;
	}
	if (x)
		set_out(c, 0, elem, x->rank, x->dims);
	else
		set_out_elem(c, 0, elem);
	/* ONNX Runtime's checks, at load and at run: a 3-D input needs num_heads, and
	 * the caches' last dim is half the rotary dim (the head size by default). */
	int64_t heads = attr_i(c, "num_heads", 0), rot = attr_i(c, "rotary_embedding_dim", 0);
	if (x && x->rank == 3 && heads <= 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s is 3-D: num_heads must be given", in_name(c, 0),
			   fmt_shape(c, x));
		return;
	}
	dim last = x ? dim_resolve(c->syms, x->dims[x->rank - 1]) : dim_unknown();
	if (!rot && last.kind == DIM_KNOWN)
		rot = x->rank == 4 ? last.v : last.v % heads == 0 ? last.v / heads : 0;
	for (int32_t k = 1; k <= 2 && rot > 0; k++) {
		const tinfo *cache = in_ranked(c, k);
		dim half = cache && cache->rank >= 1 ? dim_resolve(c->syms, cache->dims[cache->rank - 1]) : dim_unknown();
		if (half.kind == DIM_KNOWN && half.v != rot / 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "'%s' %s: its last dim must be half the rotary dim (%lld), %lld", in_name(c, k),
				   fmt_shape(c, cache), (long long)rot, (long long)(rot / 2));
			return;
		}
	}
}

/* TensorScatter (24): present_cache has past_cache's shape; update may differ from it
 * only along `axis` (the sequence, never the batch axis 0), where it is no longer;
 * write_indices is (batch). Every other dim is merged from the three inputs. */
void infer_tensor_scatter(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t rp = in_rank(c, 0), ru = in_rank(c, 1);
	const tinfo *p = rp >= 0 ? in(c, 0) : NULL, *u = ru >= 0 ? in(c, 1) : NULL, *w = in_ranked(c, 2);
	if (p && u && rp != ru) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "past_cache '%s' %s and update '%s' %s differ in rank",
			   in_name(c, 0), fmt_shape(c, p), in_name(c, 1), fmt_shape(c, u));
		return;
	}
	int32_t r = p ? rp : u ? ru : -1, ax;
	if (r < 0)
		return;
	if (r < 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the caches need a batch and a sequence axis; rank %d has not",
			   r);
		return;
	}
	if (!norm_axis(c, attr_i(c, "axis", -2), r, false, "axis", &ax))
		return;
	if (ax == 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "axis cannot be 0, the batch axis");
		return;
	}
	dim *out = dims_alloc(c, r);
	if (!out)
		return;
	for (int32_t k = 0; k < r; k++) {
		out[k] = p ? p->dims[k] : dim_unknown();
		if (k == ax) {
			dim mx = dim_resolve(c->syms, out[k]),
			    sq = u ? dim_resolve(c->syms, u->dims[k]) : dim_unknown();
			if (mx.kind == DIM_KNOWN && sq.kind == DIM_KNOWN && sq.v > mx.v) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
					   "update '%s' %s is longer along axis %d than past_cache '%s' %s",
					   in_name(c, 1), fmt_shape(c, u), ax, in_name(c, 0), fmt_shape(c, p));
				return;
			}
			continue;
		}
		if (u && !nn_merge_dim(c, &out[k], u->dims[k], "a cache dimension", 1))
			return;
	}
	if (w && (w->rank != 1 || !nn_merge_dim(c, &out[0], w->dims[0], "batch_size", 2)))
		return;
	set_out(c, 0, elem, r, out);
}

/* ---- LinearAttention ---- */

enum { LA_Q, LA_K, LA_V, LA_PAST, LA_DECAY, LA_BETA };

/* hidden / heads into *out when both are known (hidden itself for one head);
 * unknown otherwise. False (reported) when heads does not divide hidden. */
static bool per_head(infer_ctx *c, int32_t i, dim hidden, int64_t heads, dim *out)
{
	hidden = dim_resolve(c->syms, hidden);
	*out = heads == 1 ? hidden : dim_unknown();
	if (heads == 1 || hidden.kind != DIM_KNOWN)
		return true;
	if (hidden.v % heads) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s: its last dim %lld is not a multiple of %lld heads",
			   in_name(c, i), fmt_shape(c, in(c, i)), (long long)hidden.v, (long long)heads);
		return false;
	}
	*out = dim_known(hidden.v / heads);
	return true;
}

/* A known last dim of decay or beta must be one of the two sizes the spec allows
 * (b unknown: only a). */
static bool last_is_one_of(infer_ctx *c, int32_t i, dim a, dim b, const char *sizes)
{
	const tinfo *t = in(c, i);
	dim d = dim_resolve(c->syms, t->dims[2]);
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	if (d.kind != DIM_KNOWN || a.kind != DIM_KNOWN || b.kind != DIM_KNOWN || d.v == a.v || d.v == b.v)
		return true;
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s: its last dim must be %s (%lld or %lld)", in_name(c, i),
		   fmt_shape(c, t), sizes, (long long)a.v, (long long)b.v);
	return false;
}

void infer_linear_attention(infer_ctx *c)
{
	int32_t eq = in_elem(c, LA_Q), ep = in(c, LA_PAST) ? in_elem(c, LA_PAST) : eq;
	set_out_elem(c, 0, eq);
	set_out_elem(c, 1, ep);
	int64_t hq = attr_i(c, "q_num_heads", 0), hkv = attr_i(c, "kv_num_heads", 0);
	if (!attr_has(c, "q_num_heads") || !attr_has(c, "kv_num_heads"))
		return; /* the schema check reports the missing attribute */
	if (hq < 1 || hkv < 1 || hq % hkv) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "q_num_heads %lld must be a positive multiple of kv_num_heads %lld", (long long)hq,
			   (long long)hkv);
		return;
	}
	bool bad = false;
	const char *packed = "(B, T, heads * head size)";
	int32_t r[6] = {nn_rank_want(c, LA_Q, 3, packed, &bad),
			nn_rank_want(c, LA_K, 3, packed, &bad),
			nn_rank_want(c, LA_V, 3, packed, &bad),
			nn_rank_want(c, LA_PAST, 4, "(B, kv_num_heads, d_k, d_v)", &bad),
			nn_rank_want(c, LA_DECAY, 3, "(B, T, kv_num_heads * d_k or kv_num_heads)", &bad),
			nn_rank_want(c, LA_BETA, 3, "(B, T, kv_num_heads or 1)", &bad)};
	if (bad)
		return;
	dim batch = dim_unknown(), seq = dim_unknown(), heads = dim_known(hkv), dk = dim_unknown(),
	    dv = dim_unknown();
	for (int32_t i = LA_Q; i <= LA_BETA; i++) {
		if (r[i] < 0)
			continue;
		const tinfo *t = in(c, i);
		if (!nn_merge_dim(c, &batch, t->dims[0], "B", i))
			return;
		if (i == LA_PAST) {
			if (!nn_merge_dim(c, &heads, t->dims[1], "kv_num_heads", i) ||
			    !nn_merge_dim(c, &dk, t->dims[2], "d_k", i) || !nn_merge_dim(c, &dv, t->dims[3], "d_v", i))
				return;
			continue;
		}
		if (!nn_merge_dim(c, &seq, t->dims[1], "T", i))
			return;
		dim d;
		if (i == LA_Q || i == LA_K) {
			if (!per_head(c, i, t->dims[2], i == LA_Q ? hq : hkv, &d) || !nn_merge_dim(c, &dk, d, "d_k", i))
				return;
		} else if (i == LA_V) {
			if (!per_head(c, i, t->dims[2], hkv, &d) || !nn_merge_dim(c, &dv, d, "d_v", i))
				return;
		}
	}
	if (r[LA_DECAY] == 3 &&
	    !last_is_one_of(c, LA_DECAY, dim_mul(c, dim_known(hkv), dk), dim_known(hkv), "kv_num_heads * d_k or kv_num_heads"))
		return;
	if (r[LA_BETA] == 3 && !last_is_one_of(c, LA_BETA, dim_known(hkv), dim_known(1), "kv_num_heads or 1"))
		return;
	/* Hq == Hkv: value's hidden size as it is, even when symbolic. */
	dim hidden = hq == hkv && r[LA_V] == 3 ? in(c, LA_V)->dims[2] : dim_mul(c, dim_known(hq), dv);
	dim y[3] = {batch, seq, hidden}, s[4] = {batch, heads, dk, dv};
	set_out(c, 0, eq, 3, y);
	set_out(c, 1, ep, 4, s);
}

/* ---- FlexAttention (ai.onnx.preview) ---- */

enum { FA_Q, FA_K, FA_V };

/* Infers modifier body `name` on scores of shape s and type elem. */
static void flex_body(infer_ctx *c, const char *name, int32_t elem, const dim *s)
{
	graph *g = attr_graph(c, name);
	if (!g)
		return;
	tinfo t = tinfo_unknown();
	t.kind = TK_TENSOR, t.elem = elem, t.rank = 4, t.dims = dims_dup(c, s, 4);
	if (!t.dims)
		return;
	infer_subgraph(c, g, &t, 1);
}

void infer_flex_attention(infer_ctx *c)
{
	int32_t eq = in_elem(c, FA_Q);
	set_out_elem(c, 0, eq);
	bool bad = false;
	const char *layout = "(batch_size, heads, sequence_length, head size)";
	int32_t rq = nn_rank_want(c, FA_Q, 4, layout, &bad), rk = nn_rank_want(c, FA_K, 4, layout, &bad),
		rv = nn_rank_want(c, FA_V, 4, layout, &bad);
	if (bad)
		return;
	dim batch = dim_unknown(), hq = dim_unknown(), hkv = dim_unknown(), l = dim_unknown(), s = dim_unknown(),
	    e = dim_unknown(), ev = dim_unknown();
	const tinfo *q = in(c, FA_Q), *k = in(c, FA_K), *v = in(c, FA_V);
	if (rq == 4)
		batch = q->dims[0], hq = q->dims[1], l = q->dims[2], e = q->dims[3];
	if (rk == 4 &&
	    (!nn_merge_dim(c, &batch, k->dims[0], "batch_size", FA_K) ||
	     !nn_merge_dim(c, &hkv, k->dims[1], "kv_num_heads", FA_K) ||
	     !nn_merge_dim(c, &s, k->dims[2], "kv_sequence_length", FA_K) ||
	     !nn_merge_dim(c, &e, k->dims[3], "head_size", FA_K)))
		return;
	if (rv == 4 &&
	    (!nn_merge_dim(c, &batch, v->dims[0], "batch_size", FA_V) ||
	     !nn_merge_dim(c, &hkv, v->dims[1], "kv_num_heads", FA_V) ||
	     !nn_merge_dim(c, &s, v->dims[2], "kv_sequence_length", FA_V)))
		return;
	if (rv == 4)
		ev = v->dims[3];
	dim a = dim_resolve(c->syms, hq), b = dim_resolve(c->syms, hkv);
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN && (b.v < 1 || a.v % b.v)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Q's %lld heads are not a multiple of K's and V's %lld",
			   (long long)a.v, (long long)b.v);
		return;
	}
	/* The scores' type: softmax_precision, else float (double for double inputs). */
	int32_t sp = (int32_t)attr_i(c, "softmax_precision", eq == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
	dim scores[4] = {batch, hq, l, s};
	flex_body(c, "score_mod", sp, scores);
	flex_body(c, "prob_mod", sp, scores);
	dim y[4] = {batch, hq, l, ev};
	set_out(c, 0, eq, 4, y);
}
