/* rewrite.c: the rewrite pass: axis broadcasting (Paddle's elementwise operators,
 * legacy ONNX broadcast=1, stray broadcast/axis attributes) into standard ONNX.
 *
 * Each candidate node is checked under its rule (paddle or strict pdpd, spec
 * sections 4 and 4b, through broadcast.c) and, when the placement differs from what
 * numpy's right alignment gives, the placed operand is reshaped to
 * bcast_pdpd_reshape's shape: a Reshape with a constant shape when every dim is
 * known, else an Unsqueeze (or a Squeeze, when trailing 1s must go), so symbolic
 * dims never block it. The node itself keeps its name and outputs and becomes the
 * standard operator; where Paddle's meaning needs more than one operator (floor
 * division, Python-style float modulo), the extra nodes are inserted before it and
 * it becomes the last of them. Everything inserted goes before the node it serves
 * and reads only that node's inputs, so the order stays topological.
 *
 * Invariant: the planning run (r->apply false) and the editing run execute the same
 * code in the same order, so the names, counts and changes the plan reports are the
 * ones the edit makes; only the editing run touches the messages, and it only runs
 * when the plan found nothing blocking.
 */
#include "passes/rewrite/rewrite.h"
#include "core/schema/schema.h"
#include "core/checked.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/type_memo.h"

#include "core/dtype.h"
#include "passes/bcast/bcast_sites.h"
#include "passes/bcast/broadcast.h"
#include "loader/build_messages.h"

#include <stdio.h>
#include <string.h>


/* ---- the operator tables -------------------------------------------------------------- */

/* How a Paddle operator becomes standard ONNX (paddle_ops.def). */
typedef enum build_kind {
	BUILD_PLAIN,    /* one operator, same inputs */
	BUILD_MOD,      /* integers: Mod (fmod=0, Python-style); floats: fmod adjusted to the divisor's sign */
	BUILD_FLOORDIV, /* floats: Floor(Div); integers: truncated Div corrected toward -inf */
} build_kind;

typedef struct paddle_op {
	const char *paddle;
	const char *onnx;
	build_kind build;
	/* The lowest ai.onnx opset where the operators used exist for this element type. */
	int64_t need_float, need_int;
} paddle_op;

static const paddle_op paddle_ops[] = {
#define PADDLE(op, onnx, build, need_float, need_int) {op, onnx, build, need_float, need_int},
#include "passes/bcast/paddle_ops.def"
#undef PADDLE
};

static const paddle_op *find_paddle(const char *op)
{
	for (size_t i = 0; i < sizeof paddle_ops / sizeof paddle_ops[0]; i++)
		if (!strcmp(paddle_ops[i].paddle, op))
			return &paddle_ops[i];
	return NULL;
}

/* ONNX operators that had broadcast/axis before opset 7 (pdpd rule for B), as their
 * schemas say. Gemm's `broadcast` (for C, without axis) is handled beside them. */
static bool is_legacy_op(const char *op) { return schema_legacy_broadcast(op); }

/* is_legacy_op's answers for the operators seen so far (core/type_memo.h):
 * thousands of nodes have an axis (Concat, Gather, Softmax) while the schema's
 * answer takes a search. */
#define LEGACY_SLOTS 64
typedef struct legacy_memo {
	type_key key[LEGACY_SLOTS];
	bool legacy[LEGACY_SLOTS];
} legacy_memo;

static bool is_legacy_memo(legacy_memo *mm, const char *op)
{
	bool found;
	int32_t i = type_memo_slot(mm->key, LEGACY_SLOTS, (type_key){.op_type = op}, &found);
	if (i >= 0 && found)
		return mm->legacy[i];
	bool legacy = is_legacy_op(op);
	if (i >= 0)
		mm->legacy[i] = legacy;
	return legacy;
}

/* ai.onnx and its sub-domains (ai.onnx.ml, ai.onnx.preview.training) are ONNX's own:
 * Paddle's operators live anywhere else. */
static bool is_standard_domain(const char *d)
{
	return !d[0] || !strcmp(d, "ai.onnx") || !strncmp(d, "ai.onnx.", 8);
}

typedef enum type_class { TC_UNKNOWN, TC_FLOAT, TC_INT, TC_OTHER } type_class;

static type_class classify_type(int32_t elem)
{
	switch (elem) {
	case 0:
		return TC_UNKNOWN;
	case DT_FLOAT:
	case DT_DOUBLE:
	case DT_FLOAT16:
		return TC_FLOAT;
	case DT_INT32:
	case DT_INT64:
		return TC_INT;
	default:
		return TC_OTHER;
	}
}

/* ---- candidates ----------------------------------------------------------------------- */

typedef enum cand_kind { CK_PADDLE, CK_LEGACY, CK_STRAY } cand_kind;
static const char *const kind_names[] = {"paddle", "legacy", "stray"};

/* How the placed operand is brought to its numpy-equivalent shape. */
typedef enum place_how { PLACE_NONE, PLACE_RESHAPE, PLACE_UNSQUEEZE, PLACE_SQUEEZE } place_how;

typedef struct cand {
	graph *g;
	int32_t gi;          /* g's index in m->graphs */
	int32_t ni;
	cand_kind kind;
	const paddle_op *pop; /* CK_PADDLE */
	bool gemm;
	bool pdpd;           /* legacy/stray: broadcast=1, B (or Gemm's C) placed by pdpd */
	int32_t elem;
	int32_t placed;      /* input reshaped, or -1 */
	place_how how;
	int32_t from_rank, to_rank;
	dim *to_dims;        /* to_rank dims */
	int64_t need;        /* lowest ai.onnx opset the result needs (0: any) */
} cand;


/* The operand's tensor info, or NULL when the input is absent. */
static const tinfo *operand(const graph *g, const node *n, int32_t i)
{
	if (i >= n->ninputs || n->inputs[i] < 0)
		return NULL;
	return &g->values[n->inputs[i]].ti;
}

static const char *in_name(const graph *g, const node *n, int32_t i)
{
	return i < n->ninputs && n->inputs[i] >= 0 ? g->values[n->inputs[i]].name : "";
}

/* t's shape with every symbol resolved (a bound symbol is its size), in the arena;
 * rank RANK_UNKNOWN when t is not a tensor of known rank. */
static shape resolved(rw *r, const tinfo *t)
{
	if (!t || t->kind != TK_TENSOR || t->rank < 0)
		return (shape){RANK_UNKNOWN, NULL};
	dim *d = arena_array(r->m->arena, t->rank ? (size_t)t->rank : 1, sizeof *d);
	if (!d) {
		rw_nomem(r);
		return (shape){RANK_UNKNOWN, NULL};
	}
	for (int32_t k = 0; k < t->rank; k++)
		d[k] = dim_resolve(&r->m->syms, t->dims[k]);
	return (shape){t->rank, d};
}

static const char *fmt_shape(rw *r, shape s)
{
	if (s.rank < 0)
		return "(unknown)";
	char buf[512];
	shape_format(buf, sizeof buf, s, sym_name_cb, &r->m->syms);
	const char *c = arena_strdup(r->m->arena, buf);
	return c ? c : "";
}

/* The rule that decides which diagnostics a candidate supersedes: infer's reading
 * of the node under any other rule (numpy, for a stray broadcast=1) is not what the
 * node means. */
static const char *rule_tag(const cand *c)
{
	return c->kind == CK_PADDLE ? "(paddle rule)" : "(pdpd rule)";
}

/* Whether inference already reported this node's mismatch under the rewrite's rule
 * (its message carries provenance: keep it rather than repeat it). */
static bool reported(rw *r, const cand *c)
{
	for (size_t i = 0; i < r->m->ndiags; i++) {
		const osh_diag *d = &r->m->diags[i];
		if (d->node_index == c->ni && !strcmp(d->graph, c->g->path) && !strcmp(d->code, diag_code_name(DIAG_BROADCAST_MISMATCH)) &&
		    strstr(d->message, rule_tag(c)))
			return true;
	}
	return false;
}

/* Checks a and b under rule; on a mismatch reports it as inference would. */
static bool check_rule(rw *r, const cand *c, bcast_rule rule, int32_t ia, int32_t ib, shape a, shape b, int64_t axis)
{
	int32_t cap = a.rank > b.rank ? a.rank : b.rank;
	dim *d = arena_array(r->m->arena, cap > 0 ? (size_t)cap : 1, sizeof *d);
	if (!d) {
		rw_nomem(r);
		return false;
	}
	bcast_out out = {.dims = d};
	bcast_error err = {0};
	sym_ctx sc = {sym_eq_cb, &r->m->syms};
	bool ok = rule == BCAST_PADDLE ? bcast_paddle(a, b, axis, &sc, &out, &err)
				       : bcast_pdpd(a, b, axis, &sc, &out, &err);
	if (ok)
		return true;
	if (reported(r, c)) {
		r->rep->n_errors++; /* inference's diagnostic stands for it */
		return false;
	}
	const node *n = &c->g->nodes[c->ni];
	const char *an = in_name(c->g, n, ia), *bn = in_name(c->g, n, ib);
	char why[512];
	bcast_error_format(why, sizeof why, &err, an, bn, sym_name_cb, &r->m->syms);
	rw_error(r, c->g, c->ni, DIAG_BROADCAST_MISMATCH, "'%s' %s and '%s' %s do not broadcast (%s rule): %s", an,
		 fmt_shape(r, a), bn, fmt_shape(r, b), bcast_rule_name(rule), why);
	return false;
}

static bool all_known(const dim *d, int32_t n)
{
	for (int32_t k = 0; k < n; k++)
		if (d[k].kind != DIM_KNOWN)
			return false;
	return true;
}

static bool all_ones(shape s)
{
	for (int32_t k = 0; k < s.rank; k++)
		if (!dim_is(s.dims[k], 1))
			return false;
	return true;
}

/* Plans how operand `placed` (shape small) reaches its place at `axis` of big. The
 * placement is already known valid. False (after reporting) when it cannot be done. */
static bool plan_place(rw *r, cand *c, shape big, shape small, int64_t axis, int32_t placed)
{
	c->how = PLACE_NONE;
	c->placed = -1;
	/* axis -1 right-aligns the operand as given: exactly numpy's alignment. */
	if (axis == -1)
		return true;
	if (big.rank < 0 || small.rank < 0) {
		const node *n = &c->g->nodes[c->ni];
		rw_error(r, c->g, c->ni, DIAG_REWRITE_UNSUPPORTED,
			 "cannot place '%s' at axis %lld of '%s': the rank of '%s' is unknown",
			 in_name(c->g, n, placed), (long long)axis, in_name(c->g, n, placed == 1 ? 0 : 1),
			 big.rank < 0 ? in_name(c->g, n, placed == 1 ? 0 : 1) : in_name(c->g, n, placed));
		return false;
	}
	dim *d = arena_array(r->m->arena, big.rank > 0 ? (size_t)big.rank : 1, sizeof *d);
	int32_t rank = 0;
	if (!d) {
		rw_nomem(r);
		return false;
	}
	if (!bcast_pdpd_reshape(big, small, axis, d, &rank))
		return true; /* unreachable after a successful broadcast; numpy as is */
	/* bcast_pdpd_reshape gives the operand's leading dims (its trailing 1s dropped)
	 * followed by 1s: the same shape when the rank is the same, and any shape of
	 * all-1 dims broadcasts the same way whatever its rank. */
	if (rank == small.rank || all_ones(small))
		return true;
	c->placed = placed;
	c->from_rank = small.rank;
	c->to_rank = rank;
	c->to_dims = d;
	c->how = all_known(d, rank) ? PLACE_RESHAPE : rank > small.rank ? PLACE_UNSQUEEZE : PLACE_SQUEEZE;
	return true;
}

/* Is node ni of g a candidate? Fills c's identity and kind. */
static bool is_candidate(rw *r, graph *g, int32_t ni, cand *c, legacy_memo *mm)
{
	const node *n = &g->nodes[ni];
	*c = (cand){.g = g, .ni = ni, .placed = -1};
	if (!is_standard_domain(n->domain)) {
		if (r->opts->paddle_domain && strcmp(r->opts->paddle_domain, n->domain))
			return false;
		c->pop = find_paddle(n->op_type);
		c->kind = CK_PADDLE;
		return c->pop != NULL;
	}
	if (n->domain[0] || n->opset < 1)
		return false;
	c->gemm = !strcmp(n->op_type, "Gemm");
	/* Either kind below needs one of the two attributes: most nodes are ruled out
	 * before the schema is asked whether their operator ever had them. */
	if (!c->gemm && !node_attr(n, "broadcast") && !node_attr(n, "axis"))
		return false;
	if (!c->gemm && !is_legacy_memo(mm, n->op_type))
		return false;
	c->pdpd = bsite_axis_read(n).rule == BCAST_PDPD;
	if (n->opset <= 6) {
		c->kind = CK_LEGACY;
		return c->pdpd;
	}
	c->kind = CK_STRAY;
	return node_attr(n, "broadcast") || node_attr(n, "axis");
}

static const char *placement_text(rw *r, const cand *c, shape s)
{
	if (c->how == PLACE_NONE)
		return "numpy alignment already places it";
	const char *what = c->how == PLACE_RESHAPE ? "Reshape" : c->how == PLACE_UNSQUEEZE ? "Unsqueeze" : "Squeeze";
	const char *to = fmt_shape(r, (shape){c->to_rank, c->to_dims});
	const char *t = arena_printf(r->m->arena, "%s '%s' %s to %s", what,
				     in_name(c->g, &c->g->nodes[c->ni], c->placed), fmt_shape(r, s), to);
	return t ? t : "";
}

/* The candidate's axis (bsite_axis_read's); false after reporting one that is not an
 * integer, which the other readers take for the default. */
static bool cand_axis(rw *r, const cand *c, int64_t *axis)
{
	const node *n = &c->g->nodes[c->ni];
	const attr_view *ax = node_attr(n, "axis");
	if (ax && ax->type != AT_INT) {
		rw_error(r, c->g, c->ni, DIAG_REWRITE_UNSUPPORTED, "attribute 'axis' of %s is not an integer", n->op_type);
		return false;
	}
	*axis = bsite_axis_read(n).axis;
	return true;
}

/* Checks a Paddle candidate and plans it. False after reporting what blocks it. */
static bool plan_paddle(rw *r, cand *c)
{
	graph *g = c->g;
	const node *n = &g->nodes[c->ni];
	const tinfo *tx = operand(g, n, 0), *ty = operand(g, n, 1);
	if (n->ninputs != 2 || !tx || !ty || n->noutputs != 1) {
		rw_error(r, g, c->ni, DIAG_REWRITE_UNSUPPORTED, "%s takes inputs X and Y and gives one output Out; the node has %d inputs and %d outputs",
			 n->op_type, n->ninputs, n->noutputs);
		return false;
	}
	int64_t axis;
	if (!cand_axis(r, c, &axis))
		return false;
	c->elem = tx->kind == TK_TENSOR && tx->elem ? tx->elem : ty->kind == TK_TENSOR ? ty->elem : 0;
	type_class tc = classify_type(c->elem);
	if (tc == TC_OTHER || (tc == TC_UNKNOWN && c->pop->build != BUILD_PLAIN)) {
		rw_error(r, g, c->ni, DIAG_REWRITE_UNSUPPORTED, "%s of %s: only FLOAT, DOUBLE, FLOAT16, INT32 and INT64 are rewritten",
			 n->op_type, tc == TC_OTHER ? dtype_name(c->elem) : "an unknown element type");
		return false;
	}
	c->need = tc == TC_FLOAT ? c->pop->need_float
		  : tc == TC_INT ? c->pop->need_int
				 : (c->pop->need_float > c->pop->need_int ? c->pop->need_float : c->pop->need_int);
	shape x = resolved(r, tx), y = resolved(r, ty);
	if (!check_rule(r, c, BCAST_PADDLE, 0, 1, x, y, axis))
		return false;
	bool y_placed = x.rank < 0 || y.rank < 0 || x.rank >= y.rank;
	if (!plan_place(r, c, y_placed ? x : y, y_placed ? y : x, axis, y_placed ? 1 : 0))
		return false;
	const char *into = c->pop->build == BUILD_PLAIN ? c->pop->onnx
			   : c->pop->build == BUILD_MOD
				   ? (tc == TC_INT ? "Mod" : "Mod (fmod=1) adjusted to the divisor's sign")
				   : (tc == TC_INT ? "Div, corrected toward -inf" : "Floor(Div)");
	rw_change(r, g, c->ni, "paddle", "%s -> %s; paddle rule, axis %lld: %s%s", n->op_type, into, (long long)axis,
		  placement_text(r, c, y_placed ? y : x), n->nattrs ? "; attributes removed" : "");
	return true;
}

/* Checks a legacy or stray candidate and plans it. */
static bool plan_onnx(rw *r, cand *c)
{
	graph *g = c->g;
	const node *n = &g->nodes[c->ni];
	c->need = c->kind == CK_LEGACY ? 7 : 0;
	const char *dropped = node_attr(n, "broadcast") && node_attr(n, "axis") ? "broadcast, axis"
			      : node_attr(n, "broadcast")                ? "broadcast"
								     : "axis";
	if (!c->pdpd) {
		rw_change(r, g, c->ni, kind_names[c->kind], "remove %s (no broadcast=1: numpy computes the same)",
			  dropped);
		return true;
	}
	if (c->gemm) {
		/* Gemm's C follows the legacy rule without axis: right alignment into (M, N),
		 * the way opset 7's unidirectional broadcast reads it. Only its validity is
		 * in question. */
		shape a = resolved(r, operand(g, n, 0)), b = resolved(r, operand(g, n, 1));
		shape cs = resolved(r, operand(g, n, 2));
		if (a.rank == 2 && b.rank == 2 && cs.rank >= 0) {
			dim *mn = arena_array(r->m->arena, 2, sizeof *mn);
			if (!mn)
				return rw_nomem(r), false;
			mn[0] = a.dims[node_attr_i(n, "transA", 0) ? 1 : 0];
			mn[1] = b.dims[node_attr_i(n, "transB", 0) ? 0 : 1];
			if (!check_rule(r, c, BCAST_PDPD, 0, 2, (shape){2, mn}, cs, -1))
				return false;
		}
		rw_change(r, g, c->ni, kind_names[c->kind], "remove broadcast (C broadcasts to (M, N) unidirectionally)");
		return true;
	}
	int64_t axis;
	if (!cand_axis(r, c, &axis))
		return false;
	shape a = resolved(r, operand(g, n, 0)), b = resolved(r, operand(g, n, 1));
	if (n->ninputs != 2 || !operand(g, n, 0) || !operand(g, n, 1)) {
		rw_error(r, g, c->ni, DIAG_REWRITE_UNSUPPORTED, "%s takes inputs A and B; the node has %d", n->op_type,
			 n->ninputs);
		return false;
	}
	if (!check_rule(r, c, BCAST_PDPD, 0, 1, a, b, axis))
		return false;
	if (!plan_place(r, c, a, b, axis, 1))
		return false;
	rw_change(r, g, c->ni, kind_names[c->kind], "pdpd rule, axis %lld: %s; remove %s", (long long)axis,
		  placement_text(r, c, b), dropped);
	return true;
}

/* ---- applying a candidate ----------------------------------------------------------- */

/* Inserts what brings operand c->placed to its place; returns the new value's name. */
static const char *place_operand(rw *r, const cand *c, const char *base)
{
	const node *n = &c->g->nodes[c->ni];
	const char *src = in_name(c->g, n, c->placed);
	const char *role = c->kind == CK_PADDLE ? (c->placed == 0 ? "X_reshaped" : "Y_reshaped") : "B_reshaped";
	const char *stem = c->kind == CK_PADDLE ? (c->placed == 0 ? "X" : "Y") : "B";
	struct Onnx__NodeProto *np;
	const char *out = "";
	if (c->how == PLACE_RESHAPE) {
		int64_t v[64];
		int64_t *vals = c->to_rank <= 64 ? v : arena_array(r->m->arena, (size_t)c->to_rank, sizeof *vals);
		if (!vals)
			return rw_nomem(r), "";
		/* Every entry is a known size. A 0 (an empty dim) is Reshape's "copy the input
		 * dim", which here is the same 0: the operand's leading dims are its own. */
		for (int32_t k = 0; k < c->to_rank; k++)
			vals[k] = c->to_dims[k].v;
		const char *shp;
		char srole[64];
		snprintf(srole, sizeof srole, "%s_shape", stem);
		r->rep->n_reshape++;
		if (!rw_ints(r, c->g, base, srole, vals, c->to_rank, &shp))
			return "";
		const char *in[2] = {src, shp};
		rw_insert_uncounted(r, c->g, c->ni, "Reshape", base, role, 2, in, &out, &np);
		return out;
	}
	/* Unsqueeze appends 1s after the operand's own dims; Squeeze drops trailing 1s
	 * (known 1s: trimming only removes those). */
	bool unsq = c->how == PLACE_UNSQUEEZE;
	int32_t lo = unsq ? c->from_rank : c->to_rank, hi = unsq ? c->to_rank : c->from_rank;
	int64_t axes[64];
	int32_t na = 0;
	for (int32_t k = lo; k < hi && na < 64; k++)
		axes[na++] = k;
	if (unsq)
		r->rep->n_unsqueeze++;
	else
		r->rep->n_squeeze++;
	const char *op = unsq ? "Unsqueeze" : "Squeeze";
	/* axes is an attribute before opset 13 and an input from 13. */
	if (r->to >= 13) {
		const char *an;
		char arole[64];
		snprintf(arole, sizeof arole, "%s_axes", stem);
		if (!rw_ints(r, c->g, base, arole, axes, na, &an))
			return "";
		const char *in[2] = {src, an};
		rw_insert_uncounted(r, c->g, c->ni, op, base, role, 2, in, &out, &np);
		return out;
	}
	const char *in[1] = {src};
	if (rw_insert_uncounted(r, c->g, c->ni, op, base, role, 1, in, &out, &np))
		rw_set_attr_ints(r, np, "axes", axes, na);
	return out;
}

static bool set_op(rw *r, struct Onnx__NodeProto *np, const char *op)
{
	if (r->apply && !edit_node_set_op(r->e, np, op, ""))
		return rw_nomem(r), false;
	return true;
}

static bool set_input(rw *r, struct Onnx__NodeProto *np, int32_t k, const char *name)
{
	if (r->apply && !edit_node_set_input(r->e, np, k, name))
		return rw_nomem(r), false;
	return true;
}

/* Paddle's elementwise_floordiv for integers: ONNX Div truncates toward zero, so the
 * quotient is one too high where the remainder is not 0 and its sign differs from
 * the divisor's: q - ((r != 0) and ((r < 0) xor (y < 0))). */
static bool build_int_floordiv(rw *r, const cand *c, const char *base, const char *x, const char *y)
{
	graph *g = c->g;
	int32_t ni = c->ni;
	struct Onnx__NodeProto *np;
	const char *zero, *q, *p, *rem, *rneg, *yneg, *diff, *rzero, *rnz, *adj, *adjc;
	if (!rw_scalar(r, g, base, "zero", c->elem, 0, &zero))
		return false;
	const char *in_q[2] = {x, y};
	if (!rw_insert(r, g, ni, "Div", base, "quotient", 2, in_q, &q, &np))
		return false;
	const char *in_p[2] = {q, y};
	if (!rw_insert(r, g, ni, "Mul", base, "product", 2, in_p, &p, &np))
		return false;
	const char *in_r[2] = {x, p};
	if (!rw_insert(r, g, ni, "Sub", base, "remainder", 2, in_r, &rem, &np))
		return false;
	const char *in_rn[2] = {rem, zero}, *in_yn[2] = {y, zero};
	if (!rw_insert(r, g, ni, "Less", base, "remainder_negative", 2, in_rn, &rneg, &np) ||
	    !rw_insert(r, g, ni, "Less", base, "divisor_negative", 2, in_yn, &yneg, &np))
		return false;
	const char *in_d[2] = {rneg, yneg};
	if (!rw_insert(r, g, ni, "Xor", base, "signs_differ", 2, in_d, &diff, &np))
		return false;
	const char *in_z[2] = {rem, zero};
	if (!rw_insert(r, g, ni, "Equal", base, "remainder_zero", 2, in_z, &rzero, &np))
		return false;
	const char *in_nz[1] = {rzero};
	if (!rw_insert(r, g, ni, "Not", base, "remainder_nonzero", 1, in_nz, &rnz, &np))
		return false;
	const char *in_a[2] = {diff, rnz};
	if (!rw_insert(r, g, ni, "And", base, "adjust", 2, in_a, &adj, &np))
		return false;
	const char *in_c[1] = {adj};
	if (!rw_insert(r, g, ni, "Cast", base, "adjust_cast", 1, in_c, &adjc, &np) ||
	    !rw_set_attr_i(r, np, "to", c->elem))
		return false;
	struct Onnx__NodeProto *me = rw_node(r, c->g, ni);
	return set_op(r, me, "Sub") && set_input(r, me, 0, q) && set_input(r, me, 1, adjc);
}

/* Paddle's elementwise_mod for floats is Python's: fmod, then + y where the remainder
 * is not 0 and its sign differs from the divisor's (ONNX Mod on floats needs fmod=1,
 * the C remainder with the dividend's sign). */
static bool build_float_mod(rw *r, const cand *c, const char *base, const char *x, const char *y)
{
	graph *g = c->g;
	int32_t ni = c->ni;
	struct Onnx__NodeProto *np;
	const char *zero, *rem, *rneg, *rpos, *yneg, *ypos, *a1, *a2, *adj, *sum;
	if (!rw_scalar(r, g, base, "zero", c->elem, 0, &zero))
		return false;
	const char *in_m[2] = {x, y};
	if (!rw_insert(r, g, ni, "Mod", base, "fmod", 2, in_m, &rem, &np) || !rw_set_attr_i(r, np, "fmod", 1))
		return false;
	const char *in_rz[2] = {rem, zero}, *in_yz[2] = {y, zero};
	if (!rw_insert(r, g, ni, "Less", base, "remainder_negative", 2, in_rz, &rneg, &np) ||
	    !rw_insert(r, g, ni, "Greater", base, "remainder_positive", 2, in_rz, &rpos, &np) ||
	    !rw_insert(r, g, ni, "Less", base, "divisor_negative", 2, in_yz, &yneg, &np) ||
	    !rw_insert(r, g, ni, "Greater", base, "divisor_positive", 2, in_yz, &ypos, &np))
		return false;
	const char *in_1[2] = {rneg, ypos}, *in_2[2] = {rpos, yneg};
	if (!rw_insert(r, g, ni, "And", base, "negative_over_positive", 2, in_1, &a1, &np) ||
	    !rw_insert(r, g, ni, "And", base, "positive_over_negative", 2, in_2, &a2, &np))
		return false;
	const char *in_o[2] = {a1, a2};
	if (!rw_insert(r, g, ni, "Or", base, "adjust", 2, in_o, &adj, &np))
		return false;
	const char *in_s[2] = {rem, y};
	if (!rw_insert(r, g, ni, "Add", base, "adjusted", 2, in_s, &sum, &np))
		return false;
	struct Onnx__NodeProto *me = rw_node(r, g, ni);
	return set_op(r, me, "Where") && set_input(r, me, 0, adj) && set_input(r, me, 1, sum) &&
	       set_input(r, me, 2, rem);
}

static bool apply_candidate(rw *r, const cand *c)
{
	graph *g = c->g;
	const node *n = &g->nodes[c->ni];
	struct Onnx__NodeProto *me = rw_node(r, g, c->ni);
	const char *base = rw_base(r, g, c->ni);
	const char *ops[2] = {in_name(g, n, 0), in_name(g, n, 1)};
	if (c->how != PLACE_NONE) {
		ops[c->placed] = place_operand(r, c, base);
		if (!set_input(r, me, c->placed, ops[c->placed]))
			return false;
	}
	if (c->kind != CK_PADDLE) {
		if (r->apply) {
			edit_node_remove_attr(me, "broadcast");
			edit_node_remove_attr(me, "axis");
			edit_node_remove_attr(me, "consumed_inputs");
		}
		return !r->m->nomem;
	}
	/* Paddle's attributes (axis, and whatever else the exporter left: use_mkldnn,
	 * x_data_format...) mean nothing to the standard operators. */
	if (r->apply)
		edit_node_clear_attrs(me);
	type_class tc = classify_type(c->elem);
	switch (c->pop->build) {
	case BUILD_PLAIN:
		return set_op(r, me, c->pop->onnx);
	case BUILD_MOD:
		if (tc == TC_INT)
			return set_op(r, me, "Mod"); /* fmod=0, the default: the divisor's sign */
		return build_float_mod(r, c, base, ops[0], ops[1]);
	case BUILD_FLOORDIV:
		if (tc == TC_INT)
			return build_int_floordiv(r, c, base, ops[0], ops[1]);
		{
			struct Onnx__NodeProto *np;
			const char *q;
			if (!rw_insert(r, g, c->ni, "Div", base, "quotient", 2, ops, &q, &np))
				return false;
			if (!set_op(r, me, "Floor") || !set_input(r, me, 0, q))
				return false;
			if (r->apply)
				edit_node_keep_inputs(me, 1);
			return true;
		}
	}
	return true;
}

/* ---- the pass ------------------------------------------------------------------------- */

/* Graphs the rewrite edits: GraphProtos (the main graph and every subgraph).
 * Function bodies import their own opsets and are left as they are. */
static bool editable(const graph *g) { return g->proto != NULL; }

/* Collects the candidates of every editable graph, in graph and node order. */
static cand *collect(rw *r, size_t *count)
{
	size_t n = 0, cap = 0;
	cand *cs = NULL;
	legacy_memo mm = {0};
	for (int32_t gi = 0; gi < r->m->ngraphs; gi++) {
		graph *g = r->m->graphs[gi];
		if (!editable(g))
			continue;
		for (int32_t ni = 0; ni < g->nnodes; ni++) {
			cand c;
			if (!is_candidate(r, g, ni, &c, &mm))
				continue;
			c.gi = gi;
			if (n == cap) {
				cand *grown = grow_arena(r->m->arena, cs, &cap, 16, sizeof *cs);
				if (!grown) {
					rw_nomem(r);
					return NULL;
				}
				cs = grown;
			}
			cs[n++] = c;
		}
	}
	*count = n;
	return cs;
}

/* Which node each candidate is, both ways: per graph of the model (m->graphs order)
 * its nodes' candidate indices (-1: none; NULL: a graph without one), and the graphs
 * by path, for diagnostics (which name their graph by path; graphs of the same path,
 * from nodes of the same name, are chained). A model can be all candidates (every
  * Add of a legacy model): scanning the candidates per node and per diagnostic took
  * time quadratic in the model's size. */
typedef struct cand_index {
	int32_t **at;       /* [gi][ni] */
	strmap paths;       /* graph path -> the first graph of that path */
	int32_t *same_path; /* [gi]: the next graph of gi's path, or -1 */
} cand_index;

static bool index_cands(rw *r, const cand *cs, size_t n, cand_index *x)
{
	osh_model *m = r->m;
	arena *a = m->arena;
	strmap_init(&x->paths, a);
	x->at = arena_zalloc(a, (size_t)(m->ngraphs > 0 ? m->ngraphs : 1) * sizeof *x->at);
	x->same_path = arena_array(a, m->ngraphs > 0 ? (size_t)m->ngraphs : 1, sizeof *x->same_path);
	if (!x->at || !x->same_path)
		return rw_nomem(r), false;
	for (int32_t gi = m->ngraphs - 1; gi >= 0; gi--) { /* backwards: the first of a path ends up in the map */
		int32_t later = strmap_get(&x->paths, m->graphs[gi]->path);
		x->same_path[gi] = later;
		if (!strmap_set(&x->paths, m->graphs[gi]->path, gi))
			return rw_nomem(r), false;
	}
	for (size_t i = 0; i < n; i++) {
		int32_t **row = &x->at[cs[i].gi];
		if (!*row) {
			int32_t nn = cs[i].g->nnodes;
			if (!(*row = arena_array(a, nn > 0 ? (size_t)nn : 1, sizeof **row)))
				return rw_nomem(r), false;
			for (int32_t k = 0; k < nn; k++)
				(*row)[k] = -1;
		}
		(*row)[cs[i].ni] = (int32_t)i;
	}
	return true;
}

static bool is_cand_node(const cand_index *x, int32_t gi, int32_t ni) { return x->at[gi] && x->at[gi][ni] >= 0; }

/* The candidate that node ni of graph gi or of a later graph of the same path is,
 * from gi on; *gi is where it was found. NULL when none. */
static const cand *next_cand_at(const cand_index *x, const cand *cs, int32_t *gi, const osh_model *m, int32_t ni)
{
	for (; *gi >= 0; *gi = x->same_path[*gi])
		if (x->at[*gi] && ni < m->graphs[*gi]->nnodes && x->at[*gi][ni] >= 0)
			return &cs[x->at[*gi][ni]];
	return NULL;
}

/* The first graph diagnostic d names, or -1 (none, or d is not about a node). */
static int32_t diag_graph(const cand_index *x, const osh_diag *d)
{
	return d->node_index >= 0 ? strmap_get(&x->paths, d->graph) : -1;
}

/* Whether diagnostic d is about a candidate node. */
static bool on_candidate(const cand_index *x, const cand *cs, const osh_model *m, const osh_diag *d)
{
	int32_t gi = diag_graph(x, d);
	return next_cand_at(x, cs, &gi, m, d->node_index) != NULL;
}

/* Drops the diagnostics a candidate's rewrite supersedes: with `all`, everything on
 * the node (the rewrite resolves it); otherwise only broadcast mismatches under a
 * rule other than the node's (a stray broadcast=1 read the numpy way). */
static void drop_superseded(rw *r, const cand *cs, const cand_index *x, bool all)
{
	osh_model *m = r->m;
	size_t out = 0;
	m->has_errors = false;
	for (size_t i = 0; i < m->ndiags; i++) {
		const osh_diag *d = &m->diags[i];
		bool drop = false;
		int32_t gi = diag_graph(x, d);
		for (const cand *c; !drop && (c = next_cand_at(x, cs, &gi, m, d->node_index)); gi = x->same_path[gi])
			drop = all || (!strcmp(d->code, diag_code_name(DIAG_BROADCAST_MISMATCH)) && !strstr(d->message, rule_tag(c)));
		if (drop)
			continue;
		if (d->severity == OSH_ERROR)
			m->has_errors = true;
		m->diags[out++] = *d;
	}
	m->ndiags = out;
}

/* Domains left without a node once the Paddle candidates are standard: their
 * imports go. */
static bool drop_paddle_imports(rw *r, const cand *cs, size_t n, const cand_index *x)
{
	osh_model *m = r->m;
	strmap seen; /* Paddle domains already settled */
	strmap_init(&seen, m->arena);
	for (size_t i = 0; i < n; i++) {
		if (cs[i].kind != CK_PADDLE)
			continue;
		const char *dom = cs[i].g->nodes[cs[i].ni].domain;
		if (strmap_get(&seen, dom) >= 0)
			continue;
		if (strmap_put(&seen, dom, 1) == -2)
			return rw_nomem(r), false;
		bool used = false;
		for (int32_t gi = 0; gi < m->ngraphs && !used; gi++) {
			const graph *g = m->graphs[gi];
			for (int32_t ni = 0; ni < g->nnodes && !used; ni++)
				used = !strcmp(g->nodes[ni].domain, dom) && !(editable(g) && is_cand_node(x, gi, ni));
		}
		if (!used)
			edit_remove_opset(r->e, dom);
	}
	return true;
}

/* One run over every candidate and, when the opset rises, every other ai.onnx node. */
static bool run(rw *r, cand *cs, size_t n, const cand_index *x)
{
	osh_rewrite_report *rep = r->rep;
	rep->n_paddle = rep->n_legacy = rep->n_stray = rep->n_adapted = 0;
	rep->n_reshape = rep->n_unsqueeze = rep->n_squeeze = rep->n_other_inserted = 0;
	r->ninits = 0;
	for (size_t i = 0; i < n && !r->m->nomem; i++) {
		cand *c = &cs[i];
		if (!apply_candidate(r, c))
			return false;
		rep->n_paddle += c->kind == CK_PADDLE;
		rep->n_legacy += c->kind == CK_LEGACY;
		rep->n_stray += c->kind == CK_STRAY;
	}
	if (r->to != r->from && r->from >= 1) {
		/* Most nodes take the new opset as they are: what the planning run found
		 * so, the editing run does not step again (same code, same verdict: a node
		 * that drew no name, listed no change and reported nothing changes nothing). */
		if (!r->apply && !r->opset_idle &&
		    !(r->opset_idle = arena_zalloc(r->m->arena, (size_t)(r->m->ngraphs > 0 ? r->m->ngraphs : 1) *
									    sizeof *r->opset_idle)))
			return rw_nomem(r), false;
		for (int32_t gi = 0; gi < r->m->ngraphs && !r->m->nomem; gi++) {
			graph *g = r->m->graphs[gi];
			if (!editable(g))
				continue;
			uint8_t *idle = r->opset_idle ? r->opset_idle[gi] : NULL;
			if (!r->apply && !idle && g->nnodes > 0 &&
			    !(idle = r->opset_idle[gi] = arena_zalloc(r->m->arena, (size_t)g->nnodes)))
				return rw_nomem(r), false;
			for (int32_t ni = 0; ni < g->nnodes; ni++) {
				const node *nd = &g->nodes[ni];
				if (nd->domain[0] || (r->apply && idle && idle[ni]))
					continue;
				bool quiet = is_cand_node(x, gi, ni);
				size_t fresh = r->nfresh, changes = r->nchanges, inits = r->ninits;
				size_t diags = r->m->ndiags;
				if (!opset_adapt(r, g, ni, quiet))
					return false;
				if (!r->apply && idle && !quiet && fresh == r->nfresh && changes == r->nchanges &&
				    inits == r->ninits && diags == r->m->ndiags)
					idle[ni] = 1;
			}
		}
	}
	return !r->m->nomem;
}

/* The main graph's inputs that are also its initializers (drop_initializer_inputs). */
static size_t initializer_inputs(const osh_model *m)
{
	const graph *g = m->main;
	size_t found = 0;
	for (int32_t k = 0; g && k < g->ninputs; k++)
		found += g->values[g->inputs[k]].init_view != NULL;
	return found;
}

osh_status rewrite_apply(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep, strmap *made,
			 osh_error *err)
{
	rw rr = {.m = m, .opts = opts, .rep = rep, .replay = true};
	rw *r = &rr;
	strmap_init(&r->made, m->arena);
	r->from = model_opset(m, "");
	rep->opset_before = rep->opset_after = r->from;
	if (opts->target_opset && (opts->target_opset < 1 || opts->target_opset > OSH_REWRITE_MAX_OPSET))
		return error_set(err, OSH_ERR_INVALID, "%s: --target-opset %lld: onnxshape converts models to opsets 1 to %d",
			    m->path, (long long)opts->target_opset, OSH_REWRITE_MAX_OPSET);
	/* Room for planning: the index of every name and a change line per candidate
	 * (rewrite_grow_budget; more for the edits once their number is known). */
	rewrite_grow_budget(m, 0);
	/* Planning uses an edit session for its names only (never committed), so the
	 * names it lists are the ones the editing run's fresh session will choose. */
	r->e = edit_begin(m);
	size_t n = 0;
	cand *cs = r->e ? collect(r, &n) : NULL;
	cand_index x;
	if (r->m->nomem || !r->e || !index_cands(r, cs, n, &x))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory planning the rewrite", m->path);
	drop_superseded(r, cs, &x, false);
	/* Errors elsewhere block the rewrite too: the edited model's diagnostics are
	 * rebuilt, and raising the opset may even turn a node that was wrong (legacy
	 * operands of different shapes without broadcast=1) into one that runs. Those on
	 * candidates are the candidates' business (planned below). */
	for (size_t i = 0; i < m->ndiags; i++) {
		const osh_diag *d = &m->diags[i];
		if (d->severity == OSH_ERROR && !on_candidate(&x, cs, m, d))
			rep->n_errors++;
	}
	/* Plan every candidate: their rules decide validity and the opset they need. */
	int64_t need = 0;
	for (size_t i = 0; i < n; i++) {
		cand *c = &cs[i];
		bool ok = c->kind == CK_PADDLE ? plan_paddle(r, c) : plan_onnx(r, c);
		if (ok && c->need > need)
			need = c->need;
	}
	if (r->m->nomem)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory planning the rewrite", m->path);
	/* need is 0 when no candidate needs an opset (stray attributes only, or none). */
	r->to = opts->target_opset ? opts->target_opset : need > 0 && need > r->from ? need : r->from;
	if (opts->target_opset && opts->target_opset < need)
		return error_set(err, OSH_ERR_INVALID, "%s: --target-opset %lld is too low: the rewritten operators need opset %lld",
			    m->path, (long long)opts->target_opset, (long long)need);
	/* A model above that opset with nothing for this stage is left as it is (the
	 * later stages, folding among them, do not raise it). */
	if (r->to > OSH_REWRITE_MAX_OPSET && (n > 0 || r->to != r->from))
		return error_set(err, OSH_ERR_INVALID, "%s: the rewrite needs opset %lld, above %d, the highest onnxshape raises to",
			    m->path, (long long)r->to, OSH_REWRITE_MAX_OPSET);
	/* Lowering the opset converts standard nodes only: the candidates' rules
	 * (numpy broadcasting from 7) are written for a rising opset. */
	if (opts->target_opset && opts->target_opset < r->from && n > 0)
		return error_set(err, OSH_ERR_INVALID, "%s: --target-opset %lld is below the model's opset %lld, and "
			    "onnxshape lowers opsets only of models without Paddle or legacy broadcasting to rewrite",
			    m->path, (long long)opts->target_opset, (long long)r->from);
	if (!rep->n_errors && !run(r, cs, n, &x))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory planning the rewrite", m->path);
	rep->opset_after = r->to;
	rep->ir_version_before = rep->ir_version_after = edit_ir_version(m);
	rep->n_initializer_inputs_dropped = opts->drop_initializer_inputs ? initializer_inputs(m) : 0;
	rep->changed = n > 0 || r->to != r->from || rep->n_initializer_inputs_dropped;
	rep->n_changes = r->nchanges;
	rep->changes = r->changes;
	if (rep->n_errors) {
		rep->changed = false;
		rep->opset_after = r->from;
		rep->n_initializer_inputs_dropped = 0;
		return OSH_OK;
	}
	if (!rep->changed)
		return OSH_OK;
	drop_superseded(r, cs, &x, true);
	if (opts->dry_run) {
		if (rep->n_initializer_inputs_dropped && rep->ir_version_after < 4)
			rep->ir_version_after = 4;
		return OSH_OK;
	}
	/* Room for the edits, the second IR and the inference on it: the load's budget
	 * covers one IR and one inference, and re-indexing a big model needs the second. */
	rewrite_grow_budget(m, (size_t)(rep->n_reshape + rep->n_unsqueeze + rep->n_squeeze + rep->n_other_inserted));
	/* The editing run: a fresh session, the same code, on messages (the main graph's
	 * nodes and initializers a split load keeps as bytes become messages only where
	 * they change: edit_node). */
	if (!loader_build_value_info(m))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	r->e = edit_begin(m);
	r->apply = true;
	if (!r->e || !run(r, cs, n, &x))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	if (r->to != r->from && !edit_set_opset(r->e, "", r->to))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	if (!drop_paddle_imports(r, cs, n, &x))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	int64_t ir = r->to > r->from ? opset_min_ir(r->to) : 0;
	/* Before IR 4 every initializer also had to be a graph input. */
	if ((r->ninits || rep->n_initializer_inputs_dropped) && ir < 4)
		ir = 4;
	if (ir)
		edit_raise_ir_version(r->e, ir);
	if (!edit_commit(r->e))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	if (rep->n_initializer_inputs_dropped)
		edit_drop_initializer_inputs(m);
	rep->ir_version_after = edit_ir_version(m);
	*made = r->made;
	return OSH_OK;
}
