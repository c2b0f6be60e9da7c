/* opset_attention.c: Attention (opsets 23 and 24) expressed by older operators for
 * a target before 23: the heads split and merged (3-D inputs), the past key and
 * value concatenated into the present ones, kv heads repeated for grouped queries,
 * the scaled, softcapped and masked scores, Softmax, and qk_matmul_output in each of
 * its modes. What the operator's definition does not settle exactly here (the
 * numbers of heads or the head sizes unknown, a mask that may be shorter than the
 * keys) is refused.
 */
#include "core/dtype.h"
#include "core/shape.h"
#include "passes/rewrite/opset_node.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Q, K or V in 4-D (batch, heads, sequence, head size): a 3-D one split into heads. */
static bool attention_heads(nstate *s, const char *x, int32_t rank, int64_t heads, const char *role, const char **out)
{
	if (rank == 4) {
		*out = x;
		return true;
	}
	static const int64_t perm[4] = {0, 2, 1, 3};
	int64_t to[4] = {0, 0, heads, -1};
	const char *split;
	return ns_ins_reshape(s, "heads", x, to, 4, &split) && ns_ins_perm(s, role, split, perm, 4, out);
}

/* The last dim of a 4-D view of input k (head size), or -1 when unknown. */
static int64_t head_size(nstate *s, int32_t k, int64_t heads)
{
	dim d[64];
	int32_t rank = ns_input_dims(s, k, d);
	if (rank != 3 && rank != 4)
		return -1;
	dim last = d[rank - 1];
	if (last.kind != DIM_KNOWN)
		return -1;
	if (rank == 4)
		return last.v;
	return heads > 0 && last.v % heads == 0 ? last.v / heads : -1;
}

/* K or V of kv heads repeated for q heads (grouped-query attention): head h of Q reads
 * kv head h / (q heads / kv heads). Unsqueeze, Expand, Reshape. */
static bool attention_repeat(nstate *s, const char *x, int64_t qh, int64_t kvh, int64_t size, const char *role,
			     const char **out)
{
	if (qh == kvh) {
		*out = x;
		return true;
	}
	static const int64_t at2[1] = {2};
	int64_t ex[5] = {1, 1, qh / kvh, 1, 1}, to[4] = {0, qh, -1, size};
	const char *u, *exn, *e;
	return ns_ins_unsqueeze(s, "kv_group", x, at2, 1, &u) && rw_ints(s->r, s->g, s->base, "group", ex, 5, &exn) &&
	       ns_ins2(s, "Expand", "kv_repeated", u, exn, &e) && ns_ins_reshape(s, role, e, to, 4, out);
}

bool dn_attention(nstate *s)
{
	rw *r = s->r;
	if (r->to < 13)
		return ns_refuse(s, "the decomposition needs opset 13 (Unsqueeze with axes as an input, Softmax on one axis)");
	dim dq[64], dk[64], dv[64];
	int32_t rq = ns_input_dims(s, 0, dq), rk = ns_input_dims(s, 1, dk), rv = ns_input_dims(s, 2, dv);
	if (rq < 0 || rk < 0 || rv < 0 || rq != rk || rq != rv || (rq != 3 && rq != 4))
		return ns_refuse(s, "Q, K and V must be known to be all 3-D or all 4-D");
	int32_t t = ns_input_elem(s, 0);
	if (t != DT_FLOAT && t != DT_DOUBLE && t != DT_FLOAT16)
		return ns_refuse(s, "the decomposition is written for float, double and float16 inputs");
	int32_t c = t == DT_FLOAT16 ? DT_FLOAT : t;
	int64_t sp = ns_attr_i(s, "softmax_precision", c);
	if (sp != c && sp != t)
		return ns_refuse(s, "softmax_precision %lld is neither the inputs' type nor float", (long long)sp);
	int64_t qh, kvh;
	if (rq == 3) {
		qh = ns_attr_i(s, "q_num_heads", 0);
		kvh = ns_attr_i(s, "kv_num_heads", 0);
	} else {
		qh = dq[1].kind == DIM_KNOWN ? dq[1].v : 0;
		kvh = dk[1].kind == DIM_KNOWN ? dk[1].v : 0;
	}
	if (qh <= 0 || kvh <= 0 || qh % kvh)
		return ns_refuse(s, "the numbers of query and key/value heads are not known (or do not divide)");
	int64_t dh = head_size(s, 0, qh), dkh = head_size(s, 1, kvh), dvh = head_size(s, 2, kvh);
	sattr *sc = ns_get(s, "scale");
	if (!sc && dh <= 0)
		return ns_refuse(s, "the head size of Q is unknown, and with it the default scale");
	if (qh != kvh && (dkh <= 0 || dvh <= 0))
		return ns_refuse(s, "the head sizes of K and V are unknown, which repeating kv heads needs");
	bool past = !ns_absent(s, 4), nonpad = !ns_absent(s, 6), causal = ns_attr_i(s, "is_causal", 0) != 0;
	if (past != !ns_absent(s, 5))
		return ns_refuse(s, "past_key and past_value must be given together");
	int64_t mode = ns_attr_i(s, "qk_matmul_output_mode", 0);
	bool qk_out = s->noutputs > 3 && ns_output_used(s, 3);
	if (qk_out && (mode < 0 || mode > 3))
		return ns_refuse(s, "qk_matmul_output_mode %lld is not 0 to 3", (long long)mode);
	int32_t melem = 0;
	if (!ns_absent(s, 3)) {
		const value *mv = ns_input_value(s, 3);
		dim dm[64];
		int32_t rm = ns_input_dims(s, 3, dm);
		melem = mv && mv->ti.kind == TK_TENSOR ? mv->ti.elem : 0;
		if (melem != DT_BOOL && melem != t)
			return ns_refuse(s, "attn_mask '%s' is neither boolean nor of Q's type", ns_input_name(s, 3));
		/* A mask shorter than the keys is padded with -inf: written only where its last
		 * dim is known to cover every key (or to broadcast). */
		dim pk[64];
		int32_t rp = past ? ns_input_dims(s, 4, pk) : 0;
		int64_t kv = dk[rq == 4 ? 2 : 1].kind == DIM_KNOWN ? dk[rq == 4 ? 2 : 1].v : -1;
		int64_t pl = !past ? 0 : rp == 4 && pk[2].kind == DIM_KNOWN ? pk[2].v : -1;
		if (rm < 1 || dm[rm - 1].kind != DIM_KNOWN || kv < 0 || pl < 0 ||
		    (dm[rm - 1].v != 1 && dm[rm - 1].v != kv + pl))
			return ns_refuse(s, "the last dim of attn_mask '%s' is not known to cover every key (a shorter mask is "
					 "padded)", ns_input_name(s, 3));
	}
	const char *q, *k, *v, *x;
	struct Onnx__NodeProto *np;
	if (!attention_heads(s, ns_input_name(s, 0), rq, qh, "q_heads", &q) ||
	    !attention_heads(s, ns_input_name(s, 1), rq, kvh, "k_heads", &k) ||
	    !attention_heads(s, ns_input_name(s, 2), rq, kvh, "v_heads", &v))
		return false;
	/* The present key and value: the past and the new ones, in the inputs' type. */
	for (int32_t i = 0; i < 2; i++) {
		const char **kvx = i ? &v : &k;
		bool used = s->noutputs > 1 + i && ns_output_used(s, 1 + i);
		if (past) {
			const char *in[2] = {ns_input_name(s, 4 + i), *kvx};
			if (used) {
				if (!ns_ins_output(s, "Concat", i ? "present_value" : "present_key", 1 + i, 2, in, &np) ||
				    !rw_set_attr_i(r, np, "axis", 2))
					return false;
				*kvx = s->g->values[s->n->outputs[1 + i]].name;
			} else if (!ns_insn(s, "Concat", i ? "all_values" : "all_keys", 2, in, kvx, &np) ||
				   !rw_set_attr_i(r, np, "axis", 2)) {
				return false;
			}
		} else if (used) {
			const char *in[1] = {*kvx};
			if (!ns_ins_output(s, "Identity", i ? "present_value" : "present_key", 1 + i, 1, in, &np))
				return false;
		}
	}
	if (c != t && (!ns_ins_cast(s, "q_float", q, c, &q) || !ns_ins_cast(s, "k_float", k, c, &k) ||
		       !ns_ins_cast(s, "v_float", v, c, &v)))
		return false;
	if (!attention_repeat(s, k, qh, kvh, dkh, "k_repeated", &k) ||
	    !attention_repeat(s, v, qh, kvh, dvh, "v_repeated", &v))
		return false;
	static const int64_t kt_perm[4] = {0, 1, 3, 2};
	const char *kt, *qk, *scale, *scores;
	double scv = sc && sc->type == AT_FLOAT ? sc->f : 1.0 / sqrt((double)dh);
	if (!ns_ins_perm(s, "k_transposed", k, kt_perm, 4, &kt) || !ns_ins2(s, "MatMul", "qk", q, kt, &qk) ||
	    !rw_scalar(r, s->g, s->base, "scale", c, scv, &scale) || !ns_ins2(s, "Mul", "qk_scaled", qk, scale, &scores))
		return false;
	const char *stage[4] = {scores, NULL, NULL, NULL};
	sattr *cap = ns_get(s, "softcap");
	if (cap && cap->type == AT_FLOAT && cap->f > 0) {
		const char *cv, *d, *th;
		if (!rw_scalar(r, s->g, s->base, "softcap", c, cap->f, &cv) || !ns_ins2(s, "Div", "capped_in", scores, cv, &d) ||
		    !ns_ins2(s, "Tanh", "capped_tanh", d, NULL, &th) || !ns_ins2(s, "Mul", "capped", th, cv, &scores))
			return false;
	}
	stage[1] = scores;
	const char *mask = ns_input_name(s, 3), *blocked = NULL;
	if (melem == t) {
		const char *m = mask;
		if (c != t && !ns_ins_cast(s, "mask_float", mask, c, &m))
			return false;
		if (!ns_ins2(s, "Add", "masked", scores, m, &scores))
			return false;
	} else if (melem == DT_BOOL && !ns_ins2(s, "Not", "mask_blocked", mask, NULL, &blocked)) {
		return false;
	}
	if (causal || nonpad) {
		const char *sq, *tot, *rows, *cols, *bl;
		static const int64_t at1[1] = {1}, b4[4] = {-1, 1, 1, 1};
		if (!ns_ins_dim(s, "q_length", q, 2, &sq) || !ns_ins_dim(s, "total_length", k, 2, &tot) ||
		    !ns_ins_iota(s, "key_index", tot, &cols))
			return false;
		const char *lens = NULL;
		if (nonpad) {
			const char *l = ns_input_name(s, 6), *nl;
			if (!ns_ins_reshape(s, "nonpad_per_batch", l, b4, 4, &lens) || !ns_ins2(s, "Less", "key_valid", cols, lens, &nl) ||
			    !ns_ins2(s, "Not", "key_padding", nl, NULL, &bl))
				return false;
			if (blocked && !ns_ins2(s, "Or", "blocked", blocked, bl, &bl))
				return false;
			blocked = bl;
		}
		if (causal) {
			const char *ri, *off;
			if (!ns_ins_iota(s, "query_index", sq, &ri) || !ns_ins_unsqueeze(s, "query_column", ri, at1, 1, &rows))
				return false;
			/* The offset: the past's length, or the valid keys before the queries. */
			if (nonpad) {
				if (!ns_ins2(s, "Sub", "causal_offset", lens, sq, &off) || !ns_ins2(s, "Add", "query_last_key", rows, off, &rows))
					return false;
			} else if (past) {
				if (!ns_ins_dim(s, "past_length", ns_input_name(s, 4), 2, &off) ||
				    !ns_ins2(s, "Add", "query_last_key", rows, off, &rows))
					return false;
			}
			if (!ns_ins2(s, "Greater", "causal_blocked", cols, rows, &bl))
				return false;
			if (blocked && !ns_ins2(s, "Or", "blocked", blocked, bl, &bl))
				return false;
			blocked = bl;
		}
	}
	const char *ninf = NULL;
	if (blocked && (!rw_scalar(r, s->g, s->base, "minus_inf", c, -INFINITY, &ninf) ||
			!rw_insert(r, s->g, s->ni, "Where", s->base, "blocked_scores", 3,
				   (const char *const[]){blocked, ninf, scores}, &scores, &np)))
		return false;
	stage[2] = scores;
	const char *probs, *zero;
	const char *in_s[1] = {scores};
	if (!ns_insn(s, "Softmax", "probs", 1, in_s, &probs, &np) || !rw_set_attr_i(r, np, "axis", -1))
		return false;
	/* A row of -inf only (every key blocked) is NaN after Softmax: zero, as said. The
	 * row is told by its maximum, so a NaN the inputs brought stays NaN. */
	if (blocked || melem == t) {
		const char *top, *none;
		static const int64_t last[1] = {-1};
		if (!ninf && !rw_scalar(r, s->g, s->base, "minus_inf", c, -INFINITY, &ninf))
			return false;
		if (r->to >= 18) {
			const char *an;
			if (!rw_ints(r, s->g, s->base, "last_axis", last, 1, &an) ||
			    !rw_insert(r, s->g, s->ni, "ReduceMax", s->base, "row_max", 2, (const char *const[]){scores, an}, &top,
				       &np))
				return false;
		} else if (!ns_insn(s, "ReduceMax", "row_max", 1, (const char *const[]){scores}, &top, &np) ||
			   !rw_set_attr_ints(r, np, "axes", last, 1)) {
			return false;
		}
		if (!ns_ins2(s, "Equal", "row_blocked", top, ninf, &none) || !rw_scalar(r, s->g, s->base, "zero", c, 0, &zero) ||
		    !rw_insert(r, s->g, s->ni, "Where", s->base, "probs_guarded", 3, (const char *const[]){none, zero, probs},
			       &probs, &np))
			return false;
	}
	stage[3] = probs;
	if (qk_out) {
		const char *in[1] = {stage[mode]};
		if (!ns_ins_output(s, c != t ? "Cast" : "Identity", "qk_matmul_output", 3, 1, in, &np) ||
		    (c != t && !rw_set_attr_i(r, np, "to", t)))
			return false;
	}
	const char *y;
	if (!ns_ins2(s, "MatMul", "attended", probs, v, &y))
		return false;
	static const int64_t merge_perm[4] = {0, 2, 1, 3}, merged[3] = {0, 0, -1};
	if (rq == 3) {
		const char *yt;
		if (!ns_ins_perm(s, "heads_last", y, merge_perm, 4, &yt))
			return false;
		if (c != t) {
			if (!ns_ins_reshape(s, "merged", yt, merged, 3, &y) || !ns_become(s, "Cast", y, NULL) || !ns_put_i(s, "to", t))
				return false;
		} else {
			const char *sh;
			if (!rw_ints(r, s->g, s->base, "merged_shape", merged, 3, &sh) || !ns_become(s, "Reshape", yt, sh))
				return false;
		}
	} else if (c != t) {
		if (!ns_become(s, "Cast", y, NULL) || !ns_put_i(s, "to", t))
			return false;
	} else {
		if (!ns_become(s, "Identity", y, NULL))
			return false;
	}
	x = s->op;
	s->noutputs = 1;
	ns_note(s, "decomposed (%d-D, %lld query and %lld kv heads%s%s%s%s%s%s) into MatMul, Softmax and their reshaping "
		"(this node becomes the last %s)", rq, (long long)qh, (long long)kvh, past ? ", past" : "",
	     causal ? ", causal" : "", melem == DT_BOOL ? ", boolean mask" : melem ? ", float mask" : "",
	     nonpad ? ", nonpad_kv_seqlen" : "", cap && cap->f > 0 ? ", softcap" : "", c != t ? ", in float" : "", x);
	return true;
}

bool dn_attention24(nstate *s)
{
	if (ns_absent(s, 6))
		return true;
	return dn_attention(s);
}
