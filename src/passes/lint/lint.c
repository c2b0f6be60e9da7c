/* lint.c: the hazards of the broadcasting spec (section 7) and the facts about
 * symbols (section 8), found on top of inference; run right after it.
 *
 * Per node, in each graph's topological order:
 *   legacy-broadcast-attr  broadcast/axis on an opset >= 7 elementwise node
 *   axis-broadcast         a Paddle elementwise_* node, or legacy broadcast=1: which
 *                          rule applies and the reshape that makes numpy agree
 *   same-size-broadcast    inputs of equal element count, result larger
 *   outer-broadcast        result larger than every input
 *                          (both: only where every operand is computed from a graph
 *                          input's content, reads_input: not a mask or index grid,
 *                          and not from one tensor with itself)
 *   symbol-constraint      facts about symbols the node's broadcast needs (each
 *                          distinct fact once, at the first node); an error when the
 *                          symbols' final values break one
 * then, only when asked (check --static), dynamic-shape for the main graph's values.
 *
 * Which nodes broadcast, under which rule and over which inputs, comes from the
 * operator schemas and Paddle's operators (bcast/bcast_ops.h).
 * Facts are found by
 * running the node's broadcast again over its inputs' shapes as inference stored them
 * (symbols not replaced by values learned later), so a fact learned at one node and
 * broken by a value bound further down the graph is caught here, which inference,
 * seeing one node at a time, cannot do.
 *
 * Invariant: lint only reads inferred types and adds diagnostics; it never changes a
 * value's type or the symbol table's facts (sym_root's path compression aside).
 */
#include "core/grow.h"
#include "core/schema/schema.h"
#include "core/strbuf.h"
#include "core/type_memo.h"
#include "passes/pass.h"

#include "passes/bcast/bcast_sites.h"
#include "passes/bcast/broadcast.h"
#include "passes/bcast/bcast_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shapes of higher rank are not linted (the per-node state is on the stack). */
#define MAX_LINT_RANK 64
/* Operands of a variadic node beyond this are not linted. */
#define MAX_OPERANDS 64

/* ---- which nodes broadcast, and how --------------------------------------------- */

/* How one node broadcasts: rule, axis (pdpd/paddle), operands [first, first + n). */
typedef struct bnode {
	bcast_rule rule;
	int64_t axis;
	int32_t n;
	bool legacy_op; /* an ONNX operator that had broadcast/axis before opset 7 */
	bool axis_rule; /* pdpd or paddle: an axis-broadcast note applies */
} bnode;


/* bcast_family_of by op_type (core/type_memo.h): it depends on the op_type string alone,
 * and most nodes do not broadcast: a look-up per type, not per node. */
#define ROW_MEMO_SLOTS 64 /* a power of two */

typedef struct row_memo {
	type_key key[ROW_MEMO_SLOTS];
	int32_t row[ROW_MEMO_SLOTS]; /* bcast_family_of */
} row_memo;

static int32_t bcast_row(row_memo *rm, const char *op_type)
{
	bool found;
	int32_t i = type_memo_slot(rm->key, ROW_MEMO_SLOTS, (type_key){.op_type = op_type}, &found);
	if (i < 0)
		return bcast_family_of(op_type);
	if (!found)
		rm->row[i] = bcast_family_of(op_type);
	return rm->row[i];
}

/* False for a node that does not broadcast (or whose opset is not imported). */
static bool broadcast_of(row_memo *rm, const node *n, bnode *b)
{
	*b = (bnode){.rule = BCAST_NUMPY, .axis = -1, .n = 2};
	if (n->opset < 0)
		return false;
	/* The nodes bsite_axis_form takes, told by the family memo (FAM_BINARY: the
	 * legacy attributes) without its schema look-up per node. */
	if (n->domain[0] && !paddle_is_elementwise(n->op_type))
		return false;
	int32_t fam = n->domain[0] ? -1 : bcast_row(rm, n->op_type);
	if (n->domain[0] || (fam == FAM_BINARY && n->opset < 7)) {
		axis_form f = bsite_axis_read(n);
		b->rule = f.rule;
		b->axis = f.axis;
		b->axis_rule = f.rule != BCAST_NONE;
		b->legacy_op = f.rule != BCAST_PADDLE;
		return true;
	}
	if (fam >= 0) {
		switch ((bcast_family)fam) {
		case FAM_BINARY:
			b->legacy_op = true;
			return true;
		case FAM_BINARY7:
			return true;
		case FAM_VARIADIC:
			b->n = n->ninputs;
			b->rule = n->opset >= 8 ? BCAST_NUMPY : BCAST_NONE;
			return true;
		case FAM_WHERE:
			b->n = 3;
			return true;
		case FAM_PRELU:
			b->rule = BCAST_UNIDIRECTIONAL;
			return n->opset >= 7;
		}
	}
	return false;
}

/* ---- small helpers ------------------------------------------------------------------ */

typedef struct lint {
	osh_model *m;
	const pass_options *opts;
	strmap seen_facts; /* canonical fact key → 1 */
	bool *flagged;     /* per node of the graph being linted: inference reported a
			    * broadcast-mismatch or shape-error there */
	bool *fact_error;  /* per node: inference already reported a symbol-constraint error */
	/* The first "1 or k" fact per symbol class (key "or:<root>"), to notice two of
	 * them with different k: together they say the symbol is 1. */
	strmap one_or;
	struct one_or_fact *ors;
	int32_t nors, cap_ors;
	/* Scratch for lint_growth, allocated once: operand and result shapes, counts. */
	dim (*dims)[MAX_LINT_RANK];
	struct mono *counts;
	/* Scratch for lint_facts, grown as needed and reused for every node: the facts
	 * only live while one node is linted, and an array per broadcasting node adds up
	 * on a big model. */
	sym_fact *facts;
	int32_t cap_facts;
	row_memo rows;    /* bcast_family_of by op_type */
	/* Per value of the graph being linted, whether its content is computed from a
	 * graph input's content (reads_input: 0 not known yet); made on first need. */
	uint8_t *from_input;
	int32_t *stack;
	struct silent_key *silent; /* SILENT_SLOTS broadcasts that said nothing (lint_facts) */
} lint;

/* A message under construction: its buffer, and the builder writing into it. */
typedef struct text {
	char buf[2048];
	strbuf s;
} text;

static void text_open(text *t) { t->s = strbuf_on(t->buf, sizeof t->buf); }

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void put(text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(&t->s, fmt, ap);
	va_end(ap);
}

static void put_shape(text *t, osh_model *m, shape s)
{
	char buf[512];
	shape_format(buf, sizeof buf, s, sym_name_cb, &m->syms);
	put(t, "%s", buf);
}

/* "'x' (2, N)": a value and its shape. */
static void put_operand(text *t, osh_model *m, const value *v, shape s)
{
	put(t, "'%s' ", v->name);
	put_shape(t, m, s);
}

/* "'x' (2, 3), 'y' (3,) and 'z' ()". */
/* The first n inputs of node nd of g (every one present: the callers checked), with
 * their shapes s. */
static void put_operands(text *t, osh_model *m, const graph *g, const node *nd, const shape *s, int32_t n)
{
	for (int32_t i = 0; i < n; i++) {
		if (i)
			put(t, i == n - 1 ? " and " : ", ");
		put_operand(t, m, &g->values[nd->inputs[i]], s[i]);
	}
}

static void put_node(text *t, const graph *g, int32_t ni)
{
	const node *n = &g->nodes[ni];
	if (n->name[0])
		put(t, "node '%s'", n->name);
	else
		put(t, "node %d (%s)", ni, n->op_type);
}

/* The shape of t with every symbol replaced by its value or class root, in dims
 * (capacity MAX_LINT_RANK). False when t is not a tensor of known rank that fits. */
static bool resolved(osh_model *m, const tinfo *t, dim *dims, shape *out)
{
	if (!t || t->kind != TK_TENSOR || t->rank < 0 || t->rank > MAX_LINT_RANK)
		return false;
	for (int32_t k = 0; k < t->rank; k++)
		dims[k] = dim_resolve(&m->syms, t->dims[k]);
	*out = (shape){t->rank, dims};
	return true;
}

/* The shape as stored (symbols as written). */
static bool stored(const tinfo *t, shape *out)
{
	if (!t || t->kind != TK_TENSOR || t->rank < 0 || t->rank > MAX_LINT_RANK)
		return false;
	*out = tinfo_shape(t);
	return true;
}

static bool same_shape(shape a, shape b)
{
	if (a.rank != b.rank)
		return false;
	for (int32_t k = 0; k < a.rank; k++)
		if (!dim_eq(a.dims[k], b.dims[k]))
			return false;
	return true;
}

/* ---- element counts with symbols -------------------------------------------------- */

/* coef * product(syms): an element count where symbols stand for sizes >= 1. */
typedef struct mono {
	int64_t coef;
	int32_t nsyms;
	int64_t syms[MAX_LINT_RANK]; /* class roots, sorted */
} mono;

/* Inserts x into the sorted s[0..n): a shape has a few symbols at most, where
 * qsort's call and setup cost more than the sorting. */
static void insert_sorted(int64_t *s, int32_t n, int64_t x)
{
	int32_t i = n;
	for (; i > 0 && s[i - 1] > x; i--)
		s[i] = s[i - 1];
	s[i] = x;
}

/* False when a dim is unknown or the count overflows. s must be resolved. */
static bool mono_of(shape s, mono *out)
{
	out->coef = 1;
	out->nsyms = 0;
	for (int32_t k = 0; k < s.rank; k++) {
		dim d = s.dims[k];
		if (d.kind == DIM_UNKNOWN)
			return false;
		if (d.kind == DIM_SYMBOL)
			insert_sorted(out->syms, out->nsyms++, d.v);
		else if (__builtin_mul_overflow(out->coef, d.v, &out->coef))
			return false;
	}
	return true;
}

static bool mono_eq(const mono *a, const mono *b)
{
	if (a->coef != b->coef || a->nsyms != b->nsyms)
		return false;
	for (int32_t i = 0; i < a->nsyms; i++)
		if (a->syms[i] != b->syms[i])
			return false;
	return true;
}

/* a > b whatever the symbols' values (>= 1, where a symbol of a that b lacks counts as
 * growth: a symbol is a size, usually a batch or sequence length, rarely 1). Empty
 * tensors never grow. */
static bool mono_gt(const mono *a, const mono *b)
{
	if (a->coef <= 0 || b->coef <= 0 || a->coef < b->coef || mono_eq(a, b))
		return false;
	/* b's symbols must all be in a (a multiset inclusion over sorted lists). */
	int32_t i = 0;
	for (int32_t j = 0; j < b->nsyms; j++) {
		while (i < a->nsyms && a->syms[i] < b->syms[j])
			i++;
		if (i == a->nsyms || a->syms[i] != b->syms[j])
			return false;
		i++;
	}
	return true;
}

static void put_mono(text *t, osh_model *m, const mono *c)
{
	if (c->coef != 1 || !c->nsyms)
		put(t, "%lld", (long long)c->coef);
	for (int32_t i = 0; i < c->nsyms; i++)
		put(t, "%s%s", i || c->coef != 1 ? "*" : "", sym_name(&m->syms, c->syms[i]));
}

/* ---- same-size-broadcast, outer-broadcast -------------------------------------------- */

/* Whether out's shape is, as stored, the shape of one of the first nin inputs (one
 * array: published shapes are shared, dims_share.h): then out is not larger than
 * that input, which rules out both findings before anything is resolved. Most
 * elementwise nodes are such (x + bias). */
static bool has_shape_of(const value *out, const node *n, int32_t nin, const graph *g)
{
	if (out->ti.kind != TK_TENSOR || out->ti.rank < 0)
		return false;
	for (int32_t i = 0; i < nin; i++) {
		const tinfo *t = n->inputs[i] >= 0 ? &g->values[n->inputs[i]].ti : NULL;
		if (t && t->kind == TK_TENSOR && t->rank == out->ti.rank && t->dims == out->ti.dims)
			return true;
	}
	return false;
}

enum { RI_UNSEEN = 0, RI_PENDING, RI_NO, RI_YES };

/* Whether value v's content is computed from the content of a graph input: the
 * activations of a network, as against the index grids and masks it builds from
 * Range, Shape, constants and initializers. A node's output is when any input is
 * (Shape and Size read only a shape); a graph input is, and so, not knowing better,
 * is a value from an enclosing graph or from a node with subgraphs. A walk back over
 * the producers, iterative (a chain may be as long as the graph), memoised per
 * graph. */
static bool reads_input(lint *L, graph *g, int32_t v)
{
	if (!L->from_input) {
		size_t n = g->nvalues > 0 ? (size_t)g->nvalues : 1;
		L->from_input = arena_array(L->m->arena, n, sizeof *L->from_input);
		L->stack = arena_array(L->m->arena, n, sizeof *L->stack);
		if (!L->from_input || !L->stack) {
			L->m->nomem = true;
			L->from_input = NULL;
			return true;
		}
	}
	uint8_t *st = L->from_input;
	int32_t top = 0;
	if (st[v] < RI_NO) {
		st[v] = RI_PENDING;
		L->stack[top++] = v;
	}
	while (top > 0) {
		int32_t x = L->stack[top - 1];
		const value *val = &g->values[x];
		uint8_t verdict = RI_NO;
		bool pushed = false;
		if (val->origin == VAL_INITIALIZER) {
			verdict = RI_NO;
		} else if (val->origin != VAL_NODE) {
			verdict = RI_YES;
		} else {
			const node *n = &g->nodes[val->producer];
			bool shape_only = !n->domain[0] && (!strcmp(n->op_type, "Shape") || !strcmp(n->op_type, "Size"));
			if (n->nsubgraphs > 0)
				verdict = RI_YES;
			for (int32_t i = 0; !shape_only && verdict == RI_NO && i < n->ninputs; i++) {
				int32_t in = n->inputs[i];
				if (in < 0)
					continue;
				if (st[in] == RI_YES)
					verdict = RI_YES;
				else if (st[in] == RI_UNSEEN) {
					st[in] = RI_PENDING;
					L->stack[top++] = in;
					pushed = true;
					break;
				}
			}
		}
		if (pushed)
			continue;
		st[x] = verdict;
		top--;
	}
	return st[v] == RI_YES;
}

/* The value v is a view of: followed back through the operators that only move or
 * convert its elements (the schemas' view column: Unsqueeze, Reshape, Cast...), a
 * bounded number of steps. */
static int32_t view_of(const graph *g, int32_t v)
{
	for (int hops = 0; hops < 64 && v >= 0 && g->values[v].origin == VAL_NODE; hops++) {
		const node *n = &g->nodes[g->values[v].producer];
		const sch_row *r = n->ninputs > 0 ? schema_lookup(n->domain, n->op_type, n->opset) : NULL;
		if (!r || !r->view)
			break;
		v = n->inputs[0];
	}
	return v;
}

static void lint_growth(lint *L, graph *g, int32_t ni, const bnode *b)
{
	osh_model *m = L->m;
	node *n = &g->nodes[ni];
	if (b->rule != BCAST_NUMPY && b->rule != BCAST_PADDLE)
		return; /* the other rules never grow an input */
	if (b->n < 2 || b->n > MAX_OPERANDS || b->n > n->ninputs || n->noutputs < 1 || n->outputs[0] < 0)
		return;
	dim(*dims)[MAX_LINT_RANK] = L->dims;
	mono *counts = L->counts;
	shape s[MAX_OPERANDS + 1];
	const value *out = &g->values[n->outputs[0]];
	if (out->producer != ni || has_shape_of(out, n, b->n, g))
		return;
	if (!resolved(m, &out->ti, dims[b->n], &s[b->n]) || !mono_of(s[b->n], &counts[b->n]))
		return;
	bool all_same_count = true, all_same_shape = true;
	int64_t largest = 0;
	bool known = counts[b->n].nsyms == 0;
	for (int32_t i = 0; i < b->n; i++) {
		if (n->inputs[i] < 0)
			return;
		if (!resolved(m, &g->values[n->inputs[i]].ti, dims[i], &s[i]) || !mono_of(s[i], &counts[i]))
			return;
		if (!mono_gt(&counts[b->n], &counts[i]))
			return; /* only a result larger than every input is reported */
		all_same_count &= mono_eq(&counts[i], &counts[0]);
		all_same_shape &= same_shape(s[i], s[0]);
		known &= counts[i].nsyms == 0;
		if (counts[i].coef > largest)
			largest = counts[i].coef;
	}
	/* An outer product is meant where an operand is not an activation: a mask or
	 * position grid built from Range, Shape or constants (a (1, seq) index row
	 * against a (batch, 1) column, a causal mask against the attention mask). */
	for (int32_t i = 0; i < b->n; i++)
		if (!reads_input(L, g, n->inputs[i]))
			return;
	/* So is the product of a tensor with itself (mask_i * mask_j: a pairwise mask). */
	if (b->n == 2 && view_of(g, n->inputs[0]) == view_of(g, n->inputs[1]))
		return;
	text t;
	text_open(&t);
	put_operands(&t, m, g, n, s, b->n);
	if (all_same_count && !all_same_shape) {
		put(&t, " hold ");
		put_mono(&t, m, &counts[0]);
		put(&t, " element%s each but broadcast to ", counts[0].coef == 1 && !counts[0].nsyms ? "" : "s");
		put_shape(&t, m, s[b->n]);
		put(&t, ", ");
		put_mono(&t, m, &counts[b->n]);
		put(&t, " elements: numpy aligns shapes on the right; if an elementwise result was meant, "
			"reshape one to the other's shape");
		model_diag(m, OSH_WARNING, DIAG_SAME_SIZE_BROADCAST, g, ni, NULL, "%s", t.buf);
		return;
	}
	put(&t, " broadcast to ");
	put_shape(&t, m, s[b->n]);
	put(&t, ": ");
	put_mono(&t, m, &counts[b->n]);
	put(&t, " elements, more than any input has");
	if (known)
		put(&t, " (at most %lld)", (long long)largest);
	put(&t, ": an outer product");
	model_diag(m, OSH_WARNING, DIAG_OUTER_BROADCAST, g, ni, NULL, "%s", t.buf);
}

/* ---- legacy-broadcast-attr, axis-broadcast ------------------------------------------- */

/* "'B' (3,) would be reshaped to (3, 1, 1)", or that numpy needs no reshape, for B
 * placed at axis inside A (the higher-rank operand). False when the placement does
 * not fit or a shape is unknown. */
static bool put_reshape(text *t, osh_model *m, shape a, const value *vb, shape b, int64_t axis)
{
	dim r[MAX_LINT_RANK];
	int32_t rank;
	if (a.rank < 0 || b.rank < 0 || a.rank > MAX_LINT_RANK || b.rank > MAX_LINT_RANK)
		return false;
	/* The placement must be valid under the pdpd rule itself (A may not grow) before
	 * anything is said about its numpy equivalent. */
	dim out[MAX_LINT_RANK];
	sym_fact facts[2 * MAX_LINT_RANK];
	bcast_out bo = {.dims = out, .facts = facts, .facts_cap = 2 * MAX_LINT_RANK};
	bcast_error err = {0};
	sym_ctx sc = {sym_eq_cb, &m->syms};
	if (!bcast_pdpd(a, b, axis, &sc, &bo, &err)) {
		char why[512];
		bcast_error_format(why, sizeof why, &err, NULL, NULL, sym_name_cb, &m->syms);
		put(t, "the shapes do not broadcast even so: %s (rewrite refuses this node)", why);
		return true;
	}
	if (!bcast_pdpd_reshape(a, b, axis, r, &rank))
		return false;
	if (same_shape((shape){rank, r}, b)) {
		put(t, "numpy broadcasting gives the same result without a reshape");
		return true;
	}
	put_operand(t, m, vb, b);
	put(t, " would be reshaped to ");
	put_shape(t, m, (shape){rank, r});
	return true;
}

static void lint_legacy_attrs(lint *L, graph *g, int32_t ni, const bnode *b)
{
	osh_model *m = L->m;
	node *n = &g->nodes[ni];
	if (!b->legacy_op || n->opset < 7)
		return;
	const attr_view *bc = node_attr(n, "broadcast"), *ax = node_attr(n, "axis");
	if (!bc && !ax)
		return;
	text t;
	text_open(&t);
	if (bc && ax)
		put(&t, "attributes 'broadcast' and 'axis' are");
	else
		put(&t, "attribute '%s' is", bc ? "broadcast" : "axis");
	put(&t, " not part of %s since opset 7 (the model imports opset %lld): runtimes reject the node or "
		"ignore %s and broadcast the numpy way", n->op_type, (long long)n->opset, bc && ax ? "them" : "it");
	shape sa, sb;
	axis_form f = bsite_axis_read(n); /* what a runtime that kept them would read */
	if (f.rule == BCAST_PDPD && n->ninputs >= 2 && n->inputs[0] >= 0 && n->inputs[1] >= 0 &&
	    stored(&g->values[n->inputs[0]].ti, &sa) && stored(&g->values[n->inputs[1]].ti, &sb)) {
		text r;
		text_open(&r);
		if (put_reshape(&r, m, sa, &g->values[n->inputs[1]], sb, f.axis)) {
			put(&t, "; read as pdpd broadcasting at axis %lld, %s", (long long)f.axis, r.buf);
		}
	}
	model_diag(m, OSH_WARNING, DIAG_LEGACY_BROADCAST_ATTR, g, ni, NULL, "%s", t.buf);
}

static void lint_axis_rule(lint *L, graph *g, int32_t ni, const bnode *b)
{
	osh_model *m = L->m;
	node *n = &g->nodes[ni];
	if (!b->axis_rule || L->flagged[ni] || n->ninputs < 2 || n->inputs[0] < 0 || n->inputs[1] < 0)
		return;
	const value *vx = &g->values[n->inputs[0]], *vy = &g->values[n->inputs[1]];
	shape sx, sy;
	bool known = stored(&vx->ti, &sx) && stored(&vy->ti, &sy);
	text t;
	text_open(&t);
	if (b->rule == BCAST_PADDLE)
		put(&t, "paddle rule");
	else
		put(&t, "pdpd rule (opset %lld, broadcast=1)", (long long)n->opset);
	if (!known) {
		put(&t, " with axis %lld: the input shapes are not known, so the numpy equivalent cannot be worked out",
		    (long long)b->axis);
		model_diag(m, OSH_NOTE, DIAG_AXIS_BROADCAST, g, ni, NULL, "%s", t.buf);
		return;
	}
	/* pdpd places B in A; paddle places the lower-rank one (Y on a tie). */
	bool swap = b->rule == BCAST_PADDLE && sx.rank < sy.rank;
	const value *host = swap ? vy : vx, *placed = swap ? vx : vy;
	shape sh = swap ? sy : sx, sp = swap ? sx : sy;
	int64_t axis = bcast_axis_at(b->axis, sp.rank, sh.rank);
	put(&t, ": ");
	put_operand(&t, m, placed, sp);
	put(&t, " is placed at axis %lld%s of ", (long long)axis, b->axis == -1 ? " (the default, -1)" : "");
	put_operand(&t, m, host, sh);
	put(&t, "; ");
	text r;
	text_open(&r);
	if (!put_reshape(&r, m, sh, placed, sp, b->axis))
		return; /* does not fit: inference reported it */
	if (strstr(r.buf, " would be reshaped"))
		put(&t, "with numpy broadcasting%s, %s", b->rule == BCAST_PDPD ? " (opset 7)" : "", r.buf);
	else
		put(&t, "%s", r.buf);
	model_diag(m, OSH_NOTE, DIAG_AXIS_BROADCAST, g, ni, NULL, "%s", t.buf);
}

/* ---- symbol-constraint --------------------------------------------------------------- */

typedef struct one_or_fact {
	int64_t k;
	const graph *g;
	int32_t ni;
	bool merged; /* the "must be 1" note was given */
} one_or_fact;

typedef enum fact_state { F_OPEN, F_HOLDS, F_BROKEN } fact_state;

static fact_state fact_eval(symtab *s, const sym_fact *f)
{
	int64_t vs = 0, vo = 0;
	bool ks = sym_value(s, f->sym, &vs);
	bool ko = f->kind >= FACT_ONE_OR_SYM && sym_value(s, f->other, &vo);
	switch (f->kind) {
	case FACT_ONE_OR:
		return !ks ? F_OPEN : vs == 1 || vs == f->k ? F_HOLDS : F_BROKEN;
	case FACT_EQUALS:
		return !ks ? F_OPEN : vs == f->k ? F_HOLDS : F_BROKEN;
	case FACT_ONE_OR_SYM:
		if (sym_same(s, f->sym, f->other) || (ks && vs == 1) || (ko && vo == 1))
			return F_HOLDS;
		return ks && ko ? (vs == vo ? F_HOLDS : F_BROKEN) : F_OPEN;
	case FACT_SYM_EQ_OR_ONE:
		if (sym_same(s, f->sym, f->other) || (ko && vo == 1))
			return F_HOLDS;
		return ks && ko ? (vs == vo ? F_HOLDS : F_BROKEN) : F_OPEN;
	case FACT_SYM_EQUALS:
		if (sym_same(s, f->sym, f->other))
			return F_HOLDS;
		return ks && ko ? (vs == vo ? F_HOLDS : F_BROKEN) : F_OPEN;
	}
	return F_OPEN;
}

/* Whether the user's --assume settles symbol id (so a fact that holds is no news). */
static bool assumed(lint *L, int64_t id)
{
	symtab *s = &L->m->syms;
	for (size_t i = 0; i < L->opts->n_assumed; i++) {
		int32_t a = L->opts->assumed[i].symbol ? strmap_get(&s->names, L->opts->assumed[i].symbol) : -1;
		if (a >= 0 && sym_same(s, a, id))
			return true;
	}
	return false;
}

/* Whether the open fact f relates two sizes that onnxshape made up itself for what
 * it could not know (every name in both fresh: data-dependent counts, a Reshape's -1
 * over them, stand-ins for claims). Such a note would name no size the model
 * declares or the user binds: --input-shape cannot break it and an --assume of a
 * made-up name means nothing to the model, and the run decides the counts (a box
 * decoder's x[:, 0::4] against x[:, 2::4] of a row count over a run-time count).
 * It is not a note; nothing is recorded either, so no shape changes. A fact against
 * a number, or over one size the model names, is still a note. */
static bool between_made_up(symtab *s, const sym_fact *f)
{
	if (f->kind < FACT_ONE_OR_SYM)
		return false;
	return dx_made_up(s, dim_resolve(s, dim_symbol(f->sym))) && dx_made_up(s, dim_resolve(s, dim_symbol(f->other)));
}

/* True the first time this fact (up to symbol classes) is seen. */
static bool first_time(lint *L, const sym_fact *f)
{
	symtab *s = &L->m->syms;
	int64_t a = sym_root(s, f->sym), b = f->kind >= FACT_ONE_OR_SYM ? sym_root(s, f->other) : -1;
	/* The symmetric facts do not depend on the order of their symbols. */
	if ((f->kind == FACT_ONE_OR_SYM || f->kind == FACT_SYM_EQUALS) && b < a) {
		int64_t x = a;
		a = b;
		b = x;
	}
	char key[96];
	snprintf(key, sizeof key, "%d:%lld:%lld:%lld", (int)f->kind, (long long)a, (long long)f->k, (long long)b);
	if (strmap_get(&L->seen_facts, key) >= 0)
		return false;
	char *k = arena_strdup(L->m->arena, key);
	if (!k || strmap_put(&L->seen_facts, k, 1) == -2)
		L->m->nomem = true;
	return true;
}

static void put_fact(text *t, symtab *s, const sym_fact *f)
{
	const char *a = sym_name(s, f->sym), *b = f->kind >= FACT_ONE_OR_SYM ? sym_name(s, f->other) : "";
	switch (f->kind) {
	case FACT_ONE_OR: put(t, "'%s' must be 1 or %lld", a, (long long)f->k); break;
	case FACT_EQUALS: put(t, "'%s' must be %lld", a, (long long)f->k); break;
	case FACT_ONE_OR_SYM: put(t, "'%s' and '%s' must be equal, or one of them 1,", a, b); break;
	case FACT_SYM_EQ_OR_ONE: put(t, "'%s' must be 1 or equal to '%s'", b, a); break;
	case FACT_SYM_EQUALS: put(t, "'%s' and '%s' must be equal", a, b); break;
	}
}

/* What the broken fact's symbols were found to be. */
static void put_found(text *t, symtab *s, const sym_fact *f)
{
	int64_t v;
	bool two = f->kind >= FACT_ONE_OR_SYM;
	put(t, "; but '%s' ", sym_name(s, f->sym));
	if (sym_value(s, f->sym, &v))
		put(t, "was found to be %lld", (long long)v);
	else
		put(t, "is not known");
	if (two) {
		put(t, " and '%s' ", sym_name(s, f->other));
		if (sym_value(s, f->other, &v))
			put(t, "%lld", (long long)v);
		else
			put(t, "is not known");
	}
}

/* A second "1 or k" fact about a symbol with another k: the symbol must be 1. Said
 * once per symbol class. */
static void merge_one_or(lint *L, graph *g, int32_t ni, const sym_fact *f)
{
	osh_model *m = L->m;
	char key[48];
	snprintf(key, sizeof key, "or:%lld", (long long)sym_root(&m->syms, f->sym));
	int32_t i = strmap_get(&L->one_or, key);
	if (i < 0) {
		if (L->nors == L->cap_ors) {
			one_or_fact *o = grow_arena_i32(m->arena, L->ors, &L->cap_ors, 16, sizeof *o);
			if (!o) {
				m->nomem = true;
				return;
			}
			L->ors = o;
		}
		char *k = arena_strdup(m->arena, key);
		if (!k || strmap_put(&L->one_or, k, L->nors) == -2) {
			m->nomem = true;
			return;
		}
		L->ors[L->nors++] = (one_or_fact){f->k, g, ni, false};
		return;
	}
	one_or_fact *o = &L->ors[i];
	if (o->merged || o->k == f->k)
		return;
	o->merged = true;
	text t;
	text_open(&t);
	put(&t, "'%s' must be 1: ", sym_name(&m->syms, f->sym));
	put_node(&t, o->g, o->ni);
	put(&t, "%s needs it to be 1 or %lld, and ", o->g != g ? " (another graph)" : "", (long long)o->k);
	put_node(&t, g, ni);
	put(&t, " 1 or %lld", (long long)f->k);
	model_diag(m, OSH_NOTE, DIAG_SYMBOL_CONSTRAINT, g, ni, NULL, "%s", t.buf);
}

/* Broadcasts that said nothing (no fact, or no broadcast), by rule, axis and operand
 * shapes as stored: the same shapes say the same nothing again, since shapes are
 * never modified once published and lint binds no symbol. Published shapes are
 * shared (dims_share.h), so the elementwise nodes of a model have a few such keys,
 * and comparing arrays by pointer is enough. Lossy: a slot keeps its last key. */
#define SILENT_SLOTS 64 /* a power of two */
#define SILENT_OPERANDS 3

typedef struct silent_key {
	bcast_rule rule;
	int32_t n; /* 0: empty slot */
	int64_t axis;
	shape s[SILENT_OPERANDS];
} silent_key;

/* The slot for node b's broadcast over the operand shapes s; NULL when it has too
 * many operands to be remembered. */
static silent_key *silent_slot(lint *L, const bnode *b, const shape *s)
{
	if (b->n > SILENT_OPERANDS)
		return NULL;
	uint64_t h = (uint64_t)b->rule ^ (uint64_t)b->axis << 3;
	for (int32_t i = 0; i < b->n; i++)
		h = (h ^ (uint64_t)(uintptr_t)s[i].dims ^ (uint64_t)s[i].rank) * 0x9e3779b97f4a7c15u;
	return &L->silent[(h >> 40) % SILENT_SLOTS];
}

static bool silent_holds(const silent_key *k, const bnode *b, const shape *s)
{
	if (k->rule != b->rule || k->n != b->n || k->axis != b->axis)
		return false;
	for (int32_t i = 0; i < b->n; i++)
		if (k->s[i].rank != s[i].rank || k->s[i].dims != s[i].dims)
			return false;
	return true;
}

static void silent_keep(silent_key *k, const bnode *b, const shape *s)
{
	k->rule = b->rule;
	k->n = b->n;
	k->axis = b->axis;
	for (int32_t i = 0; i < b->n; i++)
		k->s[i] = s[i];
}

static void lint_facts(lint *L, graph *g, int32_t ni, const bnode *b)
{
	osh_model *m = L->m;
	node *n = &g->nodes[ni];
	if (L->flagged[ni] || b->n < 2 || b->n > MAX_OPERANDS || b->n > n->ninputs)
		return;
	shape s[MAX_OPERANDS];
	int32_t total = 0;
	for (int32_t i = 0; i < b->n; i++) {
		if (n->inputs[i] < 0 || !stored(&g->values[n->inputs[i]].ti, &s[i]))
			return;
		total += s[i].rank;
	}
	silent_key *silent = silent_slot(L, b, s);
	if (silent && silent_holds(silent, b, s))
		return;
	dim out[MAX_LINT_RANK];
	if (total + 1 > L->cap_facts) {
		/* Nothing in it is kept: a new block, not a copy. */
		size_t cap = grow_capacity((size_t)L->cap_facts, (size_t)total + 1, (size_t)total + 1, INT32_MAX,
					   sizeof *L->facts);
		sym_fact *grown = cap ? arena_array(m->arena, cap, sizeof *grown) : NULL;
		if (!grown) {
			m->nomem = true;
			return;
		}
		L->facts = grown, L->cap_facts = (int32_t)cap;
	}
	sym_fact *facts = L->facts;
	bcast_out bo = {.dims = out, .facts = facts, .facts_cap = total + 1};
	sym_ctx sc = {sym_eq_cb, &m->syms};
	bool ok = false;
	switch (b->rule) {
	case BCAST_NONE:
		ok = true; /* pairwise against the first operand, as inference does */
		for (int32_t i = 1; i < b->n && ok; i++) {
			bcast_out one = {.dims = out, .facts = facts + bo.nfacts, .facts_cap = total + 1 - bo.nfacts};
			ok = bcast_none(s[0], s[i], &sc, &one, NULL);
			bo.nfacts += one.nfacts;
		}
		break;
	case BCAST_NUMPY: ok = bcast_numpy_n(s, b->n, &sc, &bo, NULL); break;
	case BCAST_UNIDIRECTIONAL: ok = bcast_unidirectional(s[0], s[1], &sc, &bo, NULL); break;
	case BCAST_PDPD: ok = bcast_pdpd(s[0], s[1], b->axis, &sc, &bo, NULL); break;
	case BCAST_PADDLE: ok = bcast_paddle(s[0], s[1], b->axis, &sc, &bo, NULL); break;
	default: break;
	}
	if (silent && (!ok || !bo.nfacts))
		silent_keep(silent, b, s);
	if (!ok)
		return;
	for (int32_t k = 0; k < bo.nfacts; k++) {
		const sym_fact *f = &facts[k];
		fact_state st = fact_eval(&m->syms, f);
		bool quiet = (st == F_BROKEN && L->fact_error[ni]) || /* inference said so already */
			     (st == F_HOLDS && assumed(L, f->sym) && (f->kind < FACT_ONE_OR_SYM || assumed(L, f->other))) ||
			     (st == F_OPEN && between_made_up(&m->syms, f));
		if (!quiet && first_time(L, f)) {
			text t;
			text_open(&t);
			put_fact(&t, &m->syms, f);
			put(&t, " at ");
			put_node(&t, g, ni);
			put(&t, ": ");
			put_operands(&t, m, g, n, s, b->n);
			put(&t, " broadcast only then (%s rule)", bcast_rule_name(b->rule));
			if (st == F_BROKEN)
				put_found(&t, &m->syms, f);
			model_diag(m, st == F_BROKEN ? OSH_ERROR : OSH_NOTE, DIAG_SYMBOL_CONSTRAINT, g, ni, NULL, "%s", t.buf);
		}
		if (st == F_OPEN && f->kind == FACT_ONE_OR)
			merge_one_or(L, g, ni, f);
	}
}

/* ---- dynamic-shape --------------------------------------------------------------------- */

static void dynamic_value(lint *L, graph *g, int32_t id, const char *what)
{
	osh_model *m = L->m;
	const value *v = &g->values[id];
	const tinfo *ti = &v->ti;
	if (ti->kind != TK_UNKNOWN && ti->kind != TK_TENSOR)
		return; /* sequences and maps have no static shape to ask for */
	int32_t ni = v->origin == VAL_NODE ? v->producer : -1;
	text t;
	text_open(&t);
	put(&t, "%s'%s' ", what, v->name);
	if (ti->kind == TK_UNKNOWN) {
		put(&t, "has no known type or shape, so not a static one");
	} else if (ti->rank < 0) {
		put(&t, "has an unknown rank, so no static shape");
	} else {
		dim d[MAX_LINT_RANK];
		shape s;
		if (!resolved(m, ti, d, &s))
			return;
		/* A fresh symbol (unk__0) is onnxshape's name for a size nobody knows. */
		int32_t sym[MAX_LINT_RANK], unk[MAX_LINT_RANK], nsym = 0, nunk = 0;
		for (int32_t k = 0; k < s.rank; k++) {
			if (d[k].kind == DIM_SYMBOL && !m->syms.v[d[k].v].fresh) {
				bool dup = false;
				for (int32_t j = 0; j < nsym; j++)
					dup |= d[sym[j]].v == d[k].v;
				if (!dup)
					sym[nsym++] = k;
			} else if (d[k].kind != DIM_KNOWN) {
				unk[nunk++] = k;
			}
		}
		if (!nsym && !nunk)
			return;
		put(&t, "has shape ");
		put_shape(&t, m, s);
		put(&t, ", not static: ");
		for (int32_t i = 0; i < nsym; i++)
			put(&t, "%s'%s'", i == 0 ? "" : i == nsym - 1 ? " and " : ", ", sym_name(&m->syms, d[sym[i]].v));
		if (nsym)
			put(&t, " %s symbolic%s", nsym == 1 ? "is" : "are", nunk ? "; " : "");
		if (nunk) {
			put(&t, "dimension%s ", nunk == 1 ? "" : "s");
			for (int32_t i = 0; i < nunk; i++)
				put(&t, "%s%d", i == 0 ? "" : i == nunk - 1 ? " and " : ", ", unk[i]);
			put(&t, " %s unknown", nunk == 1 ? "is" : "are");
		}
	}
	if (v->origin == VAL_INPUT)
		put(&t, " (give --input-shape or --assume)");
	model_diag(m, OSH_ERROR, DIAG_DYNAMIC_SHAPE, g, ni, v->name, "%s", t.buf);
}

static void lint_dynamic(lint *L, graph *g)
{
	bool *done = arena_array(L->m->arena, g->nvalues > 0 ? (size_t)g->nvalues : 1, sizeof *done);
	if (!done) {
		L->m->nomem = true;
		return;
	}
	for (int32_t i = 0; i < g->ninputs; i++) {
		int32_t id = g->inputs[i];
		if (id >= 0 && !done[id] && g->values[id].origin == VAL_INPUT) {
			done[id] = true;
			dynamic_value(L, g, id, "graph input ");
		}
	}
	for (int32_t i = 0; i < g->noutputs; i++) {
		int32_t id = g->outputs[i];
		if (id >= 0 && !done[id]) {
			done[id] = true;
			dynamic_value(L, g, id, "graph output ");
		}
	}
	for (int32_t k = 0; k < g->nnodes; k++) {
		const node *n = &g->nodes[g->order[k]];
		for (int32_t o = 0; o < n->noutputs; o++) {
			int32_t id = n->outputs[o];
			if (id >= 0 && !done[id] && g->values[id].producer == g->order[k]) {
				done[id] = true;
				dynamic_value(L, g, id, "");
			}
		}
	}
}

/* ---- the pass ------------------------------------------------------------------------ */

/* Marks the nodes of g that inference already found wrong. */
static void mark_flagged(lint *L, graph *g)
{
	osh_model *m = L->m;
	for (size_t i = 0; i < m->ndiags; i++) {
		const osh_diag *d = &m->diags[i];
		if (d->node_index < 0 || d->node_index >= g->nnodes || d->severity != OSH_ERROR || strcmp(d->graph, g->path))
			continue;
		if (!strcmp(d->code, diag_code_name(DIAG_BROADCAST_MISMATCH)) || !strcmp(d->code, diag_code_name(DIAG_SHAPE_ERROR)))
			L->flagged[d->node_index] = true;
		else if (!strcmp(d->code, diag_code_name(DIAG_SYMBOL_CONSTRAINT)))
			L->fact_error[d->node_index] = true;
	}
}

bool pass_lint(osh_model *m, const pass_options *opts)
{
	if (!m->inferred || !m->main)
		return true;
	lint L = {.m = m, .opts = opts};
	strmap_init(&L.seen_facts, m->arena);
	strmap_init(&L.one_or, m->arena);
	/* Scratch that resolved and mono_of write before anything reads it: not zeroed,
	 * so that only the rows a node uses are ever touched (zeroed, every page of the
	 * two would be faulted in by every run, a large part of a small model's). */
	L.dims = arena_alloc(m->arena, (MAX_OPERANDS + 1) * sizeof *L.dims);
	L.counts = arena_alloc(m->arena, (MAX_OPERANDS + 1) * sizeof *L.counts);
	L.silent = arena_array(m->arena, SILENT_SLOTS, sizeof *L.silent);
	if (!L.dims || !L.counts || !L.silent) {
		m->nomem = true;
		return false;
	}
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		graph *g = m->graphs[gi];
		if (g->function)
			continue; /* a body holds the types of its last call only: its calls are linted */
		L.flagged = arena_array(m->arena, g->nnodes > 0 ? (size_t)g->nnodes : 1, sizeof *L.flagged);
		L.fact_error = arena_array(m->arena, g->nnodes > 0 ? (size_t)g->nnodes : 1, sizeof *L.fact_error);
		if (!L.flagged || !L.fact_error) {
			m->nomem = true;
			return false;
		}
		mark_flagged(&L, g);
		L.from_input = NULL; /* per graph, made by reads_input when needed */
		/* The main graph's nodes that may broadcast, as inference listed them
		 * (pass.h), else every node of the graph, in the same order. */
		const pass_state *ps = opts->state;
		bool listed = g == m->main && ps && ps->lint_listed;
		const int32_t *nodes = listed ? ps->lint_nodes : g->order;
		int32_t count = listed ? ps->nlint_nodes : g->nnodes;
		for (int32_t k = 0; k < count; k++) {
			int32_t ni = nodes[k];
			bnode b;
			if (!broadcast_of(&L.rows, &g->nodes[ni], &b))
				continue;
			lint_legacy_attrs(&L, g, ni, &b);
			lint_axis_rule(&L, g, ni, &b);
			lint_growth(&L, g, ni, &b);
			lint_facts(&L, g, ni, &b);
		}
	}
	if (opts->require_static)
		lint_dynamic(&L, m->main);
	if (opts->require_explicit && !lint_explicit(m))
		return false;
	return !m->nomem;
}
