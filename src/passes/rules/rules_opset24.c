/* rules_opset24.c: the operators ai.onnx added after opset 23, and ai.onnx.preview's
 * FlexAttention, as Changelog.md defines their shapes.
 *
 *   CausalConvWithState (27)  input (B, C, L), weight (C, 1, k), bias (C),
 *                             past_state (B, C, k - 1):
 *                             output (B, C, L), present_state (B, C, k - 1)
 *   LinearAttention (27)      query (B, T, Hq * dk), key (B, T, Hkv * dk),
 *                             value (B, T, Hkv * dv), past_state (B, Hkv, dk, dv),
 *                             decay (B, T, Hkv * dk or Hkv), beta (B, T, Hkv or 1):
 *                             output (B, T, Hq * dv), present_state (B, Hkv, dk, dv);
 *                             Hq and Hkv are the required q_num_heads and
 *                             kv_num_heads, Hq a multiple of Hkv
 *   SwiGLU (28)               A and B of one shape, no broadcasting: Y that shape
 *   FlexAttention (preview 1) Q (B, Hq, L, E), K (B, Hkv, S, E), V (B, Hkv, S, Ev):
 *                             Y (B, Hq, L, Ev); score_mod and prob_mod bodies see
 *                             (B, Hq, L, S) in softmax_precision's type
 * Outputs take the first input's element type; present_state past_state's (its own
 * type constraint S), else query's.
 *
 * Invariant: every dim with several witnesses is merged (a conflict is reported and
 * the outputs keep their element types only); a per-head size read from a packed
 * hidden size is written only when the head count divides it.
 */
#include "passes/rules/rules_opset24.h"

#include "core/dtype.h"

/* Input i's rank when known; reports a rank other than `want` (naming what the
 * input holds) and sets *bad. -1 when unknown or omitted. */
static int32_t rank_is(infer_ctx *c, int32_t i, int32_t want, const char *layout, bool *bad)
{
	int32_t r = in_rank(c, i);
	if (r >= 0 && r != want) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be %d-D %s", in_name(c, i), fmt_shape(c, in(c, i)),
			   want, layout);
		*bad = true;
		return -1;
	}
	return r;
}

/* ---- CausalConvWithState ---- */

enum { CC_INPUT, CC_WEIGHT, CC_BIAS, CC_PAST };

void infer_causal_conv_with_state(infer_ctx *c)
{
	int32_t elem = in_elem(c, CC_INPUT);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, elem);
	bool bad = false;
	int32_t rx = rank_is(c, CC_INPUT, 3, "(batch_size, channels, length)", &bad),
		rw = rank_is(c, CC_WEIGHT, 3, "(channels, 1, k)", &bad),
		rb = rank_is(c, CC_BIAS, 1, "(channels)", &bad),
		rp = rank_is(c, CC_PAST, 3, "(batch_size, channels, k - 1)", &bad);
	if (bad)
		return;
	dim batch = dim_unknown(), ch = dim_unknown(), len = dim_unknown(), state = dim_unknown();
	if (rx == 3) {
		const tinfo *x = in(c, CC_INPUT);
		batch = x->dims[0], ch = x->dims[1], len = x->dims[2];
	}
	if (rw == 3) {
		const tinfo *w = in(c, CC_WEIGHT);
		dim one = dim_known(1), k = dim_resolve(c->syms, w->dims[2]);
		if (!nn_merge_dim(c, &ch, w->dims[0], "channels", CC_WEIGHT) ||
		    !nn_merge_dim(c, &one, w->dims[1], "the weight's middle dim (depthwise: 1)", CC_WEIGHT))
			return;
		if (k.kind == DIM_KNOWN && k.v < 1) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "weight '%s' %s has kernel size %lld; it must be at least 1",
				   in_name(c, CC_WEIGHT), fmt_shape(c, in(c, CC_WEIGHT)), (long long)k.v);
			return;
		}
		if (k.kind == DIM_KNOWN)
			state = dim_known(k.v - 1);
	}
	if (rb == 1 && !nn_merge_dim(c, &ch, in(c, CC_BIAS)->dims[0], "channels", CC_BIAS))
		return;
	if (rp == 3) {
		const tinfo *p = in(c, CC_PAST);
		if (!nn_merge_dim(c, &batch, p->dims[0], "batch_size", CC_PAST) ||
		    !nn_merge_dim(c, &ch, p->dims[1], "channels", CC_PAST) ||
		    !nn_merge_dim(c, &state, p->dims[2], "k - 1", CC_PAST))
			return;
	}
	if (rx == 3) {
		dim y[3] = {batch, ch, len};
		set_out(c, 0, elem, 3, y);
	}
	dim s[3] = {batch, ch, state};
	set_out(c, 1, elem, 3, s);
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
	int32_t r[6] = {rank_is(c, LA_Q, 3, packed, &bad),
			rank_is(c, LA_K, 3, packed, &bad),
			rank_is(c, LA_V, 3, packed, &bad),
			rank_is(c, LA_PAST, 4, "(B, kv_num_heads, d_k, d_v)", &bad),
			rank_is(c, LA_DECAY, 3, "(B, T, kv_num_heads * d_k or kv_num_heads)", &bad),
			rank_is(c, LA_BETA, 3, "(B, T, kv_num_heads or 1)", &bad)};
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

/* ---- SwiGLU ---- */

void infer_swiglu(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	if (!elem)
		elem = in_elem(c, 1);
	set_out_elem(c, 0, elem);
	const tinfo *a = in_ranked(c, 0), *b = in_ranked(c, 1);
	if (a && b && a->rank != b->rank) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "A '%s' %s and B '%s' %s must have the same shape", in_name(c, 0),
			   fmt_shape(c, a), in_name(c, 1), fmt_shape(c, b));
		return;
	}
	const tinfo *t = a ? a : b;
	if (!t || t->rank > RULE_MAX_RANK)
		return;
	dim small[SCRATCH_SMALL], *y = dims_room(c, small, t->rank);
	if (!y)
		return;
	for (int32_t k = 0; k < t->rank; k++) {
		y[k] = t->dims[k];
		if (a && b && !nn_merge_dim(c, &y[k], b->dims[k], "a dim of A", 1))
			return;
	}
	set_out(c, 0, elem, t->rank, y);
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
	int32_t rq = rank_is(c, FA_Q, 4, layout, &bad), rk = rank_is(c, FA_K, 4, layout, &bad),
		rv = rank_is(c, FA_V, 4, layout, &bad);
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
