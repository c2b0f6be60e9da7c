/* fold_transpose.c: Transpose pairs that cancel around elementwise nodes.
 *
 * Exporters write a layer that works on the last axis of an NCHW tensor (a
 * LayerNorm spelled out as ReduceMean, Sub, Pow, ..., Mul and Add by a [C] weight) as
 * Transpose to NHWC, the layer, Transpose back. When every node between the two is
 * elementwise or a reduction that keeps its dims, the same nodes can work in the
 * input's own layout: both Transposes go, each reduction's axes move to where the
 * permutation took them, and each constant operand gets the dims it has in that
 * layout. That is a reshape of its data only when its dims other than 1 keep their
 * order (a [C] weight becomes [C, 1, 1]), and otherwise a copy of its data in the
 * permuted order. ONNX Runtime's transpose optimizer removes the same pairs.
 *
 * Runs after every node's fate is decided and before the reads are counted: the
 * region is read through the decisions (fold_slot_reads), and what it changes is
 * recorded as forms and bypasses like the rest of the stage's decisions.
 */
#include "passes/rewrite/fold.h"
#include "core/error.h"

#include <string.h>

#define PERM_MAX EDIT_MAX_PERM
#define REGION_MAX 512
/* The largest constant operand a region copies in another order: weights of that
 * size are a layer's, read once; a transpose of its input is then no saving. */
#define FOLD_MAX_PERMUTED (1 << 20)

/* The ai.onnx operators whose every output element depends on the elements at the
 * same place in the inputs (broadcast by numpy's rule from `since`). */
static const struct {
	const char *op;
	int64_t since;
} elementwise[] = {
	{"Abs", 1},	      {"Acos", 7},	  {"Acosh", 9},	      {"Add", 7},
	{"And", 7},	      {"Asin", 7},	  {"Asinh", 9},	      {"Atan", 7},
	{"Atanh", 9},	      {"BitShift", 11},	  {"BitwiseAnd", 18}, {"BitwiseNot", 18},
	{"BitwiseOr", 18},    {"BitwiseXor", 18}, {"Cast", 6},	      {"Ceil", 6},
	{"Celu", 12},	      {"Clip", 11},	  {"Cos", 7},	      {"Cosh", 9},
	{"Div", 7},	      {"Elu", 6},	  {"Equal", 7},	      {"Erf", 9},
	{"Exp", 6},	      {"Floor", 6},	  {"Gelu", 20},	      {"Greater", 7},
	{"GreaterOrEqual", 12}, {"HardSigmoid", 6}, {"HardSwish", 14}, {"Identity", 1},
	{"IsInf", 10},	      {"IsNaN", 9},	  {"LeakyRelu", 6},   {"Less", 7},
	{"LessOrEqual", 12},  {"Log", 6},	  {"Max", 8},	      {"Mean", 8},
	{"Min", 8},	      {"Mish", 18},	  {"Mod", 10},	      {"Mul", 7},
	{"Neg", 6},	      {"Not", 1},	  {"Or", 7},	      {"Pow", 7},
	{"PRelu", 7},	      {"Reciprocal", 6},  {"Relu", 6},	      {"Round", 11},
	{"Selu", 6},	      {"Shrink", 9},	  {"Sigmoid", 6},     {"Sign", 9},
	{"Sin", 7},	      {"Sinh", 9},	  {"Softplus", 1},    {"Softsign", 1},
	{"Sqrt", 6},	      {"Sub", 7},	  {"Sum", 8},	      {"Tan", 7},
	{"Tanh", 6},	      {"ThresholdedRelu", 10}, {"Where", 9}, {"Xor", 7},
};

/* The reductions, and the opset from which their axes are an input. */
static const struct {
	const char *op;
	int64_t axes_input;
} reductions[] = {
	{"ReduceL1", 18},  {"ReduceL2", 18},	     {"ReduceLogSum", 18}, {"ReduceLogSumExp", 18},
	{"ReduceMax", 18}, {"ReduceMean", 18},	     {"ReduceMin", 18},	   {"ReduceProd", 18},
	{"ReduceSum", 13}, {"ReduceSumSquare", 18},
};

typedef enum role { R_NONE, R_ELEMENTWISE, R_REDUCE, R_EXIT } role;

/* What an operator at an opset can be in a region, looked up once per operator
 * (core/type_memo.h; the tables are searched by name). */
#define KIND_SLOTS 64
typedef struct kind_memo {
	type_key key[KIND_SLOTS];
	uint8_t kind[KIND_SLOTS]; /* role: R_NONE, R_ELEMENTWISE, R_REDUCE */
} kind_memo;

typedef struct region {
	fs *s;
	/* Who reads a value through the decisions: its consumers and those of the
	 * values bypassed to it (alias_head, alias_next: -1 ends), or, once a Where
	 * reads another node's input, every live node's slots indexed (CSR:
	 * reader[first[v] .. first[v + 1]) read v). */
	int32_t *alias_head, *alias_next;
	int32_t *first, *reader;
	int32_t *readers, nreaders; /* one value's, found by readers_of */
	int32_t *node_mark, *value_mark; /* 1 + the Transpose whose region holds it, or 0 */
	int32_t *nodes, nnodes;  /* the region's nodes, then its exits */
	int32_t *exits, nexits;
	int32_t *values, nvalues;
	int64_t p[PERM_MAX], pinv[PERM_MAX];
	int32_t rank;
	kind_memo memo;
} region;

static bool is_elementwise(const node *n)
{
	for (size_t k = 0; k < sizeof elementwise / sizeof *elementwise; k++)
		if (!strcmp(n->op_type, elementwise[k].op))
			return n->opset >= elementwise[k].since;
	return false;
}

/* The opset from which reduction n takes its axes as an input; 0: n is none. */
static int64_t reduction_axes_input(const node *n)
{
	for (size_t k = 0; k < sizeof reductions / sizeof *reductions; k++)
		if (!strcmp(n->op_type, reductions[k].op))
			return reductions[k].axes_input;
	return 0;
}

static bool is_transpose(region *R, const node *n) { return fold_op_of(R->s, n) == FO_TRANSPOSE; }

static role region_kind(const node *n)
{
	return reduction_axes_input(n) ? R_REDUCE : is_elementwise(n) ? R_ELEMENTWISE : R_NONE;
}

static role kind_of(region *R, const node *n)
{
	kind_memo *mm = &R->memo;
	bool found;
	int32_t i = type_memo_slot(mm->key, KIND_SLOTS, (type_key){n->op_type, n->domain, n->opset}, &found);
	if (i >= 0 && found)
		return (role)mm->kind[i];
	role k = region_kind(n);
	if (i >= 0)
		mm->kind[i] = (uint8_t)k;
	return k;
}

static role role_of(region *R, int32_t ni)
{
	fs *s = R->s;
	const node *n = &s->g->nodes[ni];
	if (n->domain[0] || n->nsubgraphs || s->form_at[ni] >= 0)
		return R_NONE;
	if (is_transpose(R, n)) {
		int64_t q[PERM_MAX];
		if (!fold_perm(n, R->rank, q) || fold_slot_reads(s, ni, 0) < 0 || !fold_bypassable(s, n->outputs[0]))
			return R_NONE;
		for (int32_t k = 0; k < R->rank; k++)
			if (q[k] != R->pinv[k])
				return R_NONE;
		return R_EXIT;
	}
	role k = kind_of(R, n);
	if (k == R_REDUCE)
		return node_attr_i(n, "keepdims", 1) == 1 ? R_REDUCE : R_NONE;
	return k;
}

/* Whether value id can be in the region: a tensor of the region's rank whose
 * name and layout nothing outside the graph's nodes sees. */
static bool region_value_ok(region *R, int32_t id)
{
	fs *s = R->s;
	const tinfo *t = &s->g->values[id].ti;
	return fold_bypassable(s, id) && s->renamed[id] < 0 && t->kind == TK_TENSOR && t->rank == R->rank &&
	       !(s->relaid && s->relaid[id]);
}

static bool reads(fs *s, int32_t ni, int32_t v)
{
	for (int32_t i = 0; i < s->g->nodes[ni].ninputs; i++)
		if (fold_slot_reads(s, ni, i) == v)
			return true;
	return false;
}

/* The live nodes that read v, into R->readers (a node may be there twice); false
 * when they are more than a region can hold. */
static bool readers_of(region *R, int32_t v)
{
	fs *s = R->s;
	R->nreaders = 0;
	if (R->first) {
		int32_t n = R->first[v + 1] - R->first[v];
		if (n > REGION_MAX)
			return false;
		memcpy(R->readers, R->reader + R->first[v], (size_t)n * sizeof *R->readers);
		R->nreaders = n;
		return true;
	}
	for (int32_t u = v; u >= 0; u = u == v ? R->alias_head[v] : R->alias_next[u]) {
		const value *val = &s->g->values[u];
		for (int32_t k = 0; k < val->nconsumers; k++) {
			int32_t ni = val->consumers[k];
			if (s->fate[ni] != F_LIVE || !reads(s, ni, v))
				continue;
			if (R->nreaders == REGION_MAX)
				return false;
			R->readers[R->nreaders++] = ni;
		}
	}
	return true;
}

/* Grows the region from Transpose ti's output: every reader of a region value joins
 * (an exit, or a node whose outputs become region values); false when a reader
 * cannot, or the region grows too large. */
static bool grow(region *R, int32_t ti)
{
	fs *s = R->s;
	graph *g = s->g;
	R->nnodes = R->nexits = R->nvalues = 0;
	int32_t y = g->nodes[ti].outputs[0];
	R->values[R->nvalues++] = y;
	R->value_mark[y] = ti + 1;
	for (int32_t k = 0; k < R->nvalues; k++) {
		int32_t v = R->values[k];
		if (!readers_of(R, v))
			return false;
		for (int32_t e = 0; e < R->nreaders; e++) {
			int32_t ni = R->readers[e];
			if (R->node_mark[ni] == ti + 1)
				continue;
			role ro = role_of(R, ni);
			if (ro == R_NONE || R->nnodes + R->nexits >= REGION_MAX)
				return false;
			R->node_mark[ni] = ti + 1;
			if (ro == R_EXIT) {
				R->exits[R->nexits++] = ni;
				continue;
			}
			R->nodes[R->nnodes++] = ni;
			const node *n = &g->nodes[ni];
			for (int32_t o = 0; o < n->noutputs; o++) {
				int32_t id = n->outputs[o];
				if (id < 0)
					continue;
				if (!region_value_ok(R, id) || R->nvalues >= 2 * REGION_MAX)
					return false;
				R->values[R->nvalues++] = id;
				R->value_mark[id] = ti + 1;
			}
		}
	}
	return R->nexits > 0;
}

static bool all_ones(fs *s, const tinfo *t)
{
	for (int32_t k = 0; k < t->rank; k++) {
		dim d = fold_res(s, t->dims[k]);
		if (d.kind != DIM_KNOWN || d.v != 1)
			return false;
	}
	return true;
}

/* Checks (apply: records) what region node ni needs in the input's layout: its
 * constant operands relaid, its reduction axes moved. */
static bool relayout(region *R, int32_t ti, int32_t ni, bool apply)
{
	fs *s = R->s;
	graph *g = s->g;
	const node *n = &g->nodes[ni];
	int64_t since = reduction_axes_input(n);
	if (since) {
		int32_t x = fold_slot_reads(s, ni, 0), ax = n->ninputs > 1 ? fold_slot_reads(s, ni, 1) : -1;
		if (x < 0 || R->value_mark[x] != ti + 1 || (ax >= 0 && R->value_mark[ax] == ti + 1))
			return false;
		for (int32_t i = 2; i < n->ninputs; i++)
			if (fold_slot_reads(s, ni, i) >= 0)
				return false;
		int64_t axes[PERM_MAX];
		int32_t c = 0;
		bool as_input = n->opset >= since;
		if (as_input) {
			if (n->ninputs < 2 || n->inputs[1] < 0)
				return true; /* every axis, or none: the layout does not matter */
			const tinfo *t = fold_ti_in(s, n, 1);
			if (!t || t->nval < 0 || t->nval > PERM_MAX)
				return false;
			for (; c < t->nval; c++) {
				dim d = fold_res(s, t->val[c]);
				if (d.kind != DIM_KNOWN)
					return false;
				axes[c] = d.v;
			}
		} else {
			const attr_view *a = node_attr(n, "axes");
			if (!a)
				return true;
			if (a->type != AT_INTS || a->n > PERM_MAX)
				return false;
			for (; c < a->n; c++)
				axes[c] = a->ints[c];
		}
		for (int32_t k = 0; k < c; k++) {
			int64_t a = axes[k] < 0 ? axes[k] + R->rank : axes[k];
			if (a < 0 || a >= R->rank)
				return false;
			axes[k] = R->p[a];
		}
		if (!apply || !c)
			return true;
		return fold_add_form(s, (form){ni, as_input ? 1 : FORM_AXES_ATTR, axes, c, false, NULL, "axes"}, false);
	}
	for (int32_t i = 0; i < n->ninputs; i++) {
		int32_t id = fold_slot_reads(s, ni, i);
		if (id < 0 || R->value_mark[id] == ti + 1)
			continue;
		const value *v = &g->values[id];
		const tinfo *t = &v->ti;
		if (t->kind != TK_TENSOR || t->rank < 0 || t->rank > R->rank || (s->relaid && s->relaid[id]))
			return false;
		if (all_ones(s, t))
			continue; /* broadcast the same in any layout */
		const tensor_view *tv = fold_constant_view(s, id);
		if (!edit_view_copyable(tv) || tv->rank != t->rank ||
		    tv->count > FOLD_MAX_PERMUTED)
			return false;
		/* Its dims with 1s before them up to the region's rank (as it broadcasts),
		 * then the permutation that takes them to the input's layout. */
		int64_t dp[2 * PERM_MAX];
		int32_t pad = R->rank - tv->rank;
		for (int32_t k = 0; k < R->rank; k++) {
			dp[k] = k < pad ? 1 : tv->dims[k - pad];
			dp[R->rank + k] = R->pinv[k];
		}
		if (apply && !fold_add_form(s, (form){ni, i, dp, 2 * R->rank, false, tv, "relaid"}, false))
			return false;
	}
	return true;
}

static bool mark_relaid(fs *s, const region *R)
{
	if (!s->relaid && !(s->relaid = arena_zalloc(s->r->m->arena, (size_t)s->g->nvalues * sizeof *s->relaid))) {
		rw_nomem(s->r);
		return false;
	}
	for (int32_t k = 1; k < R->nvalues; k++) /* the first is the Transpose's own output */
		s->relaid[R->values[k]] = true;
	return true;
}

/* Who reads what, as the decisions have it: from the consumers and the bypasses,
 * unless a Where reads its Not's input (no consumer list says so): then an index of
 * every live node's slots. */
static bool index_readers(region *R)
{
	fs *s = R->s;
	graph *g = s->g;
	arena *a = s->r->m->arena;
	size_t nv = (size_t)g->nvalues, nn = (size_t)g->nnodes;
	R->node_mark = arena_zalloc(a, nn * sizeof *R->node_mark);
	R->value_mark = arena_zalloc(a, nv * sizeof *R->value_mark);
	R->nodes = arena_array(a, REGION_MAX, sizeof *R->nodes);
	R->exits = arena_array(a, REGION_MAX, sizeof *R->exits);
	R->values = arena_array(a, 2 * REGION_MAX + 1, sizeof *R->values);
	R->readers = arena_array(a, REGION_MAX, sizeof *R->readers);
	if (!R->node_mark || !R->value_mark || !R->nodes || !R->exits || !R->values || !R->readers)
		return false;
	if (!s->negated) {
		R->alias_head = arena_array(a, nv, sizeof *R->alias_head);
		R->alias_next = arena_array(a, nv, sizeof *R->alias_next);
		if (!R->alias_head || !R->alias_next)
			return false;
		memset(R->alias_head, 0xff, nv * sizeof *R->alias_head);
		for (int32_t u = 0; u < g->nvalues; u++) {
			if (s->repl[u] < 0)
				continue;
			int32_t t = fold_current(s, u);
			R->alias_next[u] = R->alias_head[t];
			R->alias_head[t] = u;
		}
		return true;
	}
	R->first = arena_zalloc(a, (nv + 2) * sizeof *R->first);
	if (!R->first)
		return false;
	size_t edges = 0;
	for (int32_t ni = 0; ni < g->nnodes; ni++)
		for (int32_t i = 0; s->fate[ni] == F_LIVE && i < g->nodes[ni].ninputs; i++) {
			int32_t id = fold_slot_reads(s, ni, i);
			if (id >= 0) {
				R->first[id + 2]++;
				edges++;
			}
		}
	for (size_t v = 2; v < nv + 2; v++)
		R->first[v] += R->first[v - 1];
	R->reader = arena_array(a, edges ? edges : 1, sizeof *R->reader);
	if (!R->reader)
		return false;
	/* first[v + 1] is where v's next reader goes; once all are placed, v's end,
	 * and first[v] its start. A node reading v twice is there twice. */
	for (int32_t ni = 0; ni < g->nnodes; ni++)
		for (int32_t i = 0; s->fate[ni] == F_LIVE && i < g->nodes[ni].ninputs; i++) {
			int32_t id = fold_slot_reads(s, ni, i);
			if (id >= 0)
				R->reader[R->first[id + 1]++] = ni;
		}
	return true;
}

static void try_region(region *R, int32_t ti)
{
	fs *s = R->s;
	graph *g = s->g;
	const node *t = &g->nodes[ti];
	if (t->ninputs < 1 || t->noutputs < 1 || t->outputs[0] < 0 || !fold_bypassable(s, t->outputs[0]))
		return;
	int32_t x = fold_slot_reads(s, ti, 0);
	if (x < 0)
		return;
	const tinfo *xt = &g->values[x].ti;
	if (xt->kind != TK_TENSOR || !fold_perm(t, xt->rank, R->p))
		return;
	R->rank = xt->rank;
	bool identity = true;
	for (int32_t k = 0; k < R->rank; k++) {
		R->pinv[R->p[k]] = k;
		identity &= R->p[k] == k;
	}
	if (identity)
		return;
	if (!R->node_mark && !index_readers(R)) {
		rw_nomem(s->r);
		return;
	}
	if (!grow(R, ti))
		return;
	for (int32_t k = 0; k < R->nnodes; k++)
		if (!relayout(R, ti, R->nodes[k], false))
			return;
	for (int32_t k = 0; k < R->nnodes; k++)
		if (!relayout(R, ti, R->nodes[k], true))
			return;
	if (!mark_relaid(s, R))
		return;
	s->fate[ti] = F_PASS;
	s->repl[t->outputs[0]] = x;
	s->r->rep->n_fold_absorbed++;
	rw_change(s->r, g, ti, "fold", "Transpose removed: the %d node%s after it work in its input's layout, up to %d inverse Transpose%s",
		  (int)R->nnodes, R->nnodes == 1 ? "" : "s", (int)R->nexits, R->nexits == 1 ? "" : "s");
	for (int32_t k = 0; k < R->nexits; k++) {
		int32_t ei = R->exits[k];
		s->fate[ei] = F_PASS;
		s->repl[g->nodes[ei].outputs[0]] = fold_slot_reads(s, ei, 0);
		s->r->rep->n_fold_absorbed++;
		rw_change(s->r, g, ei, "fold", "Transpose removed: it undid node %d's permutation", (int)ti);
	}
}

void fold_cancel_transposes(fs *s)
{
	graph *g = s->g;
	region R = {.s = s};
	for (int32_t k = 0; k < g->nnodes && !s->r->m->nomem; k++) {
		int32_t ni = g->order[k];
		if (s->fate[ni] == F_LIVE && is_transpose(&R, &g->nodes[ni]))
			try_region(&R, ni);
	}
}
