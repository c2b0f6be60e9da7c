/* infer.c: the shape inference pass.
 *
 * Walks each graph in the loader's topological order. Graph inputs start from their
 * declared types (or --input-shape overrides), initializers from their dims and, when
 * small, their values; each node is checked against its schema row (check_schema.c)
 * and its rule (rule_table.c), or the body of the model-local function it calls, sets
 * its outputs through the rule API (rule_api.h); the result is then reconciled with
 * what the file declares for that value: a declaration fills in what inference left
 * unknown; one that contradicts inference is reported as a shape-conflict, an error
 * for another element type or kind (kept as declared then), a warning for other
 * sizes (the inferred ones stay: ONNX Runtime computes them whatever is declared).
 * Subgraphs (If/Loop/Scan bodies) are inferred when their node is, with the outer
 * scope's values as they are at that point (infer_subgraph, which their rules call).
 *
 * Invariant: a value's tinfo is final once the node producing it has been processed;
 * arrays published on a value are never modified afterwards.
 */
#include "passes/rule_api/rule_api.h"

#include "core/dtype.h"
#include "core/grow.h"
#include "core/schema/schema.h"
#include "core/tensor.h"
#include "core/type_memo.h"
#include "passes/infer/check_kernel.h"
#include "passes/infer/check_schema.h"
#include "passes/rule_api/dims_share.h"
#include "passes/rule_api/infer_internal.h"
#include "passes/infer/rule_table.h"
#include "passes/bcast/bcast_ops.h"
#include "passes/pass.h"

#include <stdio.h>
#include <string.h>

/* Float content of an initializer (or of a value given for this run) is decoded only
 * when a rule asks for it, unless it is tiny (EAGER_FLOATS): decoding every weight up
 * front would store each model's weights a second time, as doubles (twice their size),
 * and take much of the inference time, for content hardly any rule reads. Integer
 * content (shapes, axes, sizes: small, read everywhere) stays eager. Eager float
 * content follows a tensor through pass-through nodes (Identity before Resize);
 * 8 entries cover scalars and a scale per axis, where a much higher bound would store
 * every parameter of a CNN's small batch norms as doubles too. */
#define EAGER_FLOATS 8

/* An initializer's sizes (`dims`: a negative one is unknown) or content, published
 * as the rule API publishes an output's (rule_api.c). */
static dim known_int(int64_t v, bool dims) { return v >= 0 || !dims ? dim_known(v) : dim_unknown(); }

static const dim *publish_ints(infer_ctx *c, const int64_t *v, int32_t n, bool dims)
{
	if (n > SHARE_BUF) {
		dim *r = dims_alloc(c, n);
		for (int32_t k = 0; r && k < n; k++)
			r[k] = known_int(v[k], dims);
		return r;
	}
	dim buf[SHARE_BUF];
	for (int32_t k = 0; k < n; k++)
		buf[k] = known_int(v[k], dims);
	return share(c, buf, n);
}

/* What the initializers published last for each rank: a layer's initializers have
 * a few shapes (weight, bias, scale, mean, variance), the same in layer after layer,
 * and an initializer with the dims of its rank's entry gets the same array without
 * building and hashing its dims again (dims_share_again). */
#define INIT_MEMO_RANKS 8
_Static_assert(INIT_MEMO_RANKS <= SHARE_BUF, "a memo rank's dims are published through the cache");

typedef struct init_memo {
	struct {
		const int64_t *dims;
		const dim *published; /* NULL: nothing yet */
		int32_t at;           /* its slot in the cache */
	} rank[INIT_MEMO_RANKS];
} init_memo;

static const dim *initializer_dims(infer_ctx *c, const tensor_view *tv, init_memo *memo)
{
	int32_t n = tv->rank;
	if (n >= INIT_MEMO_RANKS || !c->shared)
		return publish_ints(c, tv->dims, n, true);
	bool same = memo->rank[n].published != NULL;
	for (int32_t k = 0; same && k < n; k++) /* a few entries: no call to memcmp */
		same = tv->dims[k] == memo->rank[n].dims[k];
	if (same && dims_share_again(c->shared, memo->rank[n].published, n, memo->rank[n].at))
		return memo->rank[n].published;
	const dim *d = publish_ints(c, tv->dims, n, true);
	if (d) {
		memo->rank[n].dims = tv->dims;
		memo->rank[n].published = d;
		memo->rank[n].at = c->shared->last; /* n <= SHARE_BUF: d came from the cache */
	}
	return d;
}

/* tinfo of an initializer: its dims, and its values when small. */
static tinfo from_initializer(infer_ctx *c, const tensor_view *tv, bool with_content, init_memo *memo)
{
	tinfo t = tinfo_unknown();
	if (!tv || !dtype_valid(tv->dtype))
		return t;
	t.kind = TK_TENSOR;
	t.elem = tv->dtype;
	if (!(t.dims = initializer_dims(c, tv, memo)))
		return t;
	t.rank = tv->rank;
	if (!with_content || !float_content(tv))
		return t;
	int64_t ints[TINFO_MAX_VALUES];
	/* tensor_ints refuses floats: most small initializers (biases, norms) need not ask. */
	if (tv->dtype != DT_FLOAT && tensor_ints(tv, ints) && (t.val = publish_ints(c, ints, (int32_t)tv->count, false)))
		t.nval = (int32_t)tv->count;
	if (tv->count <= EAGER_FLOATS) { /* larger ones: lazy_floats */
		double floats[EAGER_FLOATS];
		if (tensor_floats(tv, floats)) {
			double *f = arena_alloc(c->a, tv->count ? (size_t)tv->count * sizeof *f : sizeof *f);
			if (f) {
				memcpy(f, floats, (size_t)tv->count * sizeof *f);
				t.nfval = (int32_t)tv->count;
				t.fval = f;
			}
		}
	}
	return t;
}

/* ---- declarations: facts and claims ---------------------------------------------- */

/* What declared dim d of value v (its dimension k) says where inference found
 * nothing. A number, or a size the main graph's inputs decide (batch, 2*seq), means
 * the same wherever it is written: it is taken as it is, resolved. Any other name is
 * a claim of whoever wrote the file (Where68_dim_0), who may have written it for
 * several sizes: it becomes a symbol of this place's own, the name itself where the
 * model declares it once, else a stand-in made from it (sym_claim: Where68_dim_0_2),
 * the same every time this place is inferred (a body is inferred more than once). */
static dim claimed(infer_ctx *c, const value *v, int32_t k, dim d)
{
	symtab *t = c->syms;
	if (d.kind != DIM_SYMBOL || dx_over_inputs(t, d))
		return dim_resolve(t, d);
	if (t->v[d.v].kind == DX_NAME && t->v[d.v].decls <= 1)
		return d;
	char key[64];
	snprintf(key, sizeof key, "%p/%d", (const void *)v->x, (int)k);
	int32_t id = strmap_get(&t->sites, key);
	if (id >= 0)
		return dim_symbol(id);
	const char *copy = arena_strdup(c->a, key);
	int64_t made = copy ? sym_claim(t, d.v) : -1;
	if (made < 0 || !strmap_set(&t->sites, copy, (int32_t)made)) {
		c->m->nomem = true;
		return dim_unknown();
	}
	return dim_symbol(made);
}

/* The declared type of v as inference takes it where it knows nothing: its claims
 * made symbols of their own (claimed). */
static tinfo claimed_type(infer_ctx *c, const value *v, tinfo d)
{
	if (d.rank <= 0 || !d.dims)
		return d;
	int32_t k = 0;
	while (k < d.rank && d.dims[k].kind != DIM_SYMBOL)
		k++;
	if (k == d.rank)
		return d; /* numbers and unknowns: nothing to make */
	dim buf[SHARE_BUF], *out = d.rank <= SHARE_BUF ? buf : dims_alloc(c, d.rank);
	if (!out)
		return d;
	for (int32_t j = 0; j < d.rank; j++)
		out[j] = claimed(c, v, j, d.dims[j]);
	const dim *dims = out == buf ? share(c, buf, d.rank) : out;
	if (dims)
		d.dims = dims;
	return d;
}

/* What inference left unknown of t, v's type, filled in from its declaration d,
 * whose claims become symbols of their own (claimed): the element type, the rank
 * and dims when the rank was unknown, each unknown dim when the ranks agree. */
static void fill_unknown(infer_ctx *c, const value *v, tinfo *t, const tinfo *d)
{
	if (!t->elem)
		t->elem = d->elem;
	if (d->rank < 0)
		return;
	if (t->rank < 0) {
		tinfo filled = claimed_type(c, v, *d);
		t->rank = filled.rank;
		t->dims = filled.dims;
		return;
	}
	if (d->rank != t->rank)
		return;
	int32_t fill = 0;
	while (fill < t->rank && (d->dims[fill].kind == DIM_UNKNOWN ||
				  dim_resolve(c->syms, t->dims[fill]).kind != DIM_UNKNOWN))
		fill++;
	if (fill == t->rank)
		return; /* inference knows every dim the declaration names: no copy */
	dim buf[SHARE_BUF], *merged = t->rank <= SHARE_BUF ? buf : dims_alloc(c, t->rank);
	if (!merged)
		return;
	for (int32_t k = 0; k < t->rank; k++) {
		dim a = dim_resolve(c->syms, t->dims[k]);
		merged[k] = a.kind == DIM_UNKNOWN && k >= fill ? claimed(c, v, k, d->dims[k]) : a;
	}
	const dim *shared = merged == buf ? share(c, buf, t->rank) : merged;
	if (shared)
		t->dims = shared;
}

/* Reconciles what inference found for v with what the file declares. The
 * declaration fills in what inference left unknown and never changes what it found:
 * it binds no symbol and equates no two sizes (an exporter's name on an output is no
 * fact, and an input made dynamic with --input-shape is not pinned by an output
 * declared static). A declared number that inference contradicts with a number is a
 * shape-conflict, and the declaration is kept. */
static void reconcile(infer_ctx *c, value *v, bool use_declared)
{
	/* Most values declare nothing. Asked on its own, that is a load or two; the copy
	 * below, whose address leaves this file (fmt_shape), is built in full. */
	if (!use_declared || value_declared(v).kind == TK_UNKNOWN)
		return;
	tinfo declared = value_declared(v);
	const tinfo *d = &declared;
	tinfo *t = &v->ti;
	if (t->kind == TK_UNKNOWN) {
		*t = claimed_type(c, v, declared);
		return;
	}
	const char *why = NULL;
	char buf[256];
	/* ONNX Runtime refuses a declared type that contradicts the inferred one, and
	 * runs a declared shape that does: it computes the sizes as it goes. */
	bool type_differs = t->kind != d->kind || (t->elem && d->elem && t->elem != d->elem);
	if (t->kind != d->kind) {
		why = "a different kind of value";
	} else if (t->elem && d->elem && t->elem != d->elem) {
		snprintf(buf, sizeof buf, "element type %s, declared %s", dtype_name(t->elem), dtype_name(d->elem));
		why = buf;
	} else if (t->rank >= 0 && d->rank >= 0 && t->rank != d->rank) {
		snprintf(buf, sizeof buf, "rank %d, declared rank %d", t->rank, d->rank);
		why = buf;
	}
	for (int32_t k = 0; !why && t->rank >= 0 && d->rank >= 0 && k < t->rank; k++) {
		dim a = dim_resolve(c->syms, t->dims[k]), b = d->dims[k];
		if (b.kind == DIM_SYMBOL && dx_over_inputs(c->syms, b))
			b = dim_resolve(c->syms, b); /* a size the inputs decide: --assume reaches it */
		if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN && a.v != b.v) {
			snprintf(buf, sizeof buf, "dimension %d is %lld, declared %lld", k, (long long)a.v,
				 (long long)b.v);
			why = buf;
		}
	}
	/* ONNX Runtime makes a Constant of the main graph an initializer, whose tensor
	 * is the value whatever the file declares for it. */
	if (why && c->g == c->m->main && !c->n->domain[0] && !strcmp(c->n->op_type, "Constant")) {
		tinfo inferred = *t;
		model_diag(c->m, OSH_WARNING, DIAG_NOT_IN_SPEC, c->g, v->producer, v->name,
			   "'%s' is declared %s %s but the Constant gives %s: %s; ONNX Runtime makes the Constant an "
			   "initializer and runs it as it is",
			   v->name, d->elem ? dtype_name(d->elem) : "?", fmt_shape(c, d), fmt_shape(c, &inferred), why);
		return;
	}
	if (why) {
		tinfo inferred = *t;
		model_diag(c->m, type_differs ? OSH_ERROR : OSH_WARNING, DIAG_SHAPE_CONFLICT, c->g, v->producer, v->name,
			   "'%s' is declared %s %s but inferred %s: %s", v->name,
			   d->elem ? dtype_name(d->elem) : "?", fmt_shape(c, d), fmt_shape(c, &inferred), why);
		/* ONNX Runtime refuses the other type, and runs the sizes it computes
		 * whatever the declaration says: they are the value's. */
		if (type_differs)
			*t = claimed_type(c, v, declared);
		return;
	}
	fill_unknown(c, v, t, d);
}

static void seed_values(infer_ctx *c, graph *g)
{
	init_memo memo = {{{0}}};
	for (int32_t i = 0; i < g->nvalues; i++) {
		/* The node outputs, set by infer_nodes, lie in a row: not swept here
		 * (most of a graph's values, megabytes of rows on a big one). */
		if (i == g->first_produced && g->nproduced) {
			i += g->nproduced - 1;
			continue;
		}
		value *v = &g->values[i];
		switch (v->origin) {
		case VAL_INPUT:
			/* A default from an initializer can be replaced at run time: take its
			 * shape only where nothing is declared. */
			v->ti = value_declared(v);
			if (value_given(v)) /* supplied for this run: its dims and values are facts */
				v->ti = from_initializer(c, value_given(v), true, &memo);
			else if (v->init_view && g == c->m->main && c->opts->constant_initializers)
				v->ti = from_initializer(c, v->init_view, true, &memo); /* taken as a constant */
			else if (v->ti.kind == TK_UNKNOWN && v->init_view)
				v->ti = from_initializer(c, v->init_view, false, &memo);
			if (g != c->m->main) {
				/* A body's inputs are what its node passes (infer_subgraph):
				 * what they declare is a claim, like any value's. */
				v->ti = claimed_type(c, v, v->ti);
				break;
			}
			/* The model's own sizes: what its main graph's inputs are declared
			 * with binds a symbol. They name a class before what is computed from
			 * them, and before an output's placeholder name (symbols.c). */
			for (int32_t k = 0; v->ti.kind == TK_TENSOR && k < v->ti.rank; k++)
				if (v->ti.dims[k].kind == DIM_SYMBOL && !sym_is_expr(c->syms, v->ti.dims[k].v))
					c->syms->v[v->ti.dims[k].v].input = true;
			break;
		case VAL_INITIALIZER:
			v->ti = from_initializer(c, v->init_view, true, &memo);
			break;
		case VAL_OUTER:
			v->ti = value_outer(v)->values[value_outer_id(v)].ti;
			break;
		case VAL_NODE:
			break; /* infer_nodes, when it reaches the producer (the line is hot then) */
		default:
			v->ti = tinfo_unknown();
			break;
		}
	}
}

static void infer_nodes(infer_ctx *base, graph *g, bool use_declared, pass_state *ps);

/* A call to a model-local function: the body is inferred with the call's input types
 * and attributes, and its outputs become the call's. The body's values keep the types
 * of the last call only; lint does not report on them. The loader has refused
 * recursion and call chains deeper than its limit, so this terminates. */
static void infer_call(infer_ctx *c, graph *body)
{
	int32_t n = c->n->ninputs;
	tinfo *given = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *given);
	if (!given) {
		c->m->nomem = true;
		return;
	}
	for (int32_t k = 0; k < n; k++) {
		const tinfo *t = in(c, k);
		given[k] = t ? *t : tinfo_unknown();
	}
	if (c->sub_depth >= MAX_SUB_DEPTH)
		return; /* outputs stay unknown */
	infer_ctx call = *c;
	call.caller = c;
	infer_subgraph(&call, body, given, n);
	for (int32_t k = 0; k < c->n->noutputs && k < body->noutputs; k++) {
		if (body->outputs[k] < 0)
			continue;
		tinfo t = body->values[body->outputs[k]].ti;
		set_out_info(c, k, &t);
	}
}

/* What runs for a type of node: its rule, or else the body of the model-local
 * function it calls; neither when the type is unknown. */
typedef struct op_handler {
	infer_fn fn;
	graph *body;
	const sch_row *schema; /* the operator's schema at the node's opset, or NULL */
	bool schema_domain;    /* the schemas cover the node's domain (schema_knows_domain) */
	bool lint; /* bcast_may_broadcast: lint looks at the node */
} op_handler;

static op_handler resolve_op(const infer_ctx *c, const node *n)
{
	op_handler h = {NULL, NULL, NULL, false, bcast_may_broadcast(n->domain, n->op_type, n->opset)};
	if (n->opset >= 0) {
		rule_hit hit = rule_lookup(c->rules, n->domain, n->op_type, n->opset);
		h.fn = hit.fn;
		h.schema = hit.schema;
		h.schema_domain = hit.schema_domain;
		if (hit.any_domain && (h.body = model_function(c->m, n->domain, n->op_type)))
			h.fn = NULL; /* the model defines its own */
	}
	if (!h.fn && !h.body)
		h.body = model_function(c->m, n->domain, n->op_type);
	return h;
}

/* resolve_op's answers by node type (core/type_memo.h). */
#define OP_MEMO_SLOTS 128 /* a power of two */

struct op_memo {
	type_key key[OP_MEMO_SLOTS];
	op_handler h[OP_MEMO_SLOTS];
	/* carry_row's question of the operator: how its schema row at before_opset, the
	 * opset of the graph a re-index replaced, stands to the one at this opset
	 * (row_change: a row_change, 0 not asked yet). */
	int64_t before_opset[OP_MEMO_SLOTS];
	uint8_t row_change[OP_MEMO_SLOTS];
};

static op_handler handler_of(const infer_ctx *c, const node *n)
{
	if (!c->ops) /* out of memory for the memo: resolve every node */
		return resolve_op(c, n);
	bool found;
	int32_t i = type_memo_slot(c->ops->key, OP_MEMO_SLOTS, (type_key){n->op_type, n->domain, n->opset}, &found);
	if (i < 0)
		return resolve_op(c, n);
	if (!found)
		c->ops->h[i] = resolve_op(c, n);
	return c->ops->h[i];
}

/* Notes node ni for lint (pass.h); out of memory, lint walks every node instead. */
static void list_for_lint(infer_ctx *c, pass_state *ps, int32_t ni)
{
	if (!ps->lint_listed)
		return;
	if (ps->nlint_nodes == ps->cap_lint_nodes) {
		int32_t *grown = grow_arena_i32(c->a, ps->lint_nodes, &ps->cap_lint_nodes, 1024, sizeof *grown);
		if (!grown) {
			ps->lint_listed = false;
			return;
		}
		ps->lint_nodes = grown;
	}
	ps->lint_nodes[ps->nlint_nodes++] = ni;
}

/* Whether a body of node n (at any depth) reads a value of the main graph marked in
 * stale: the node's outputs depend on it as they depend on their inputs. */
static bool body_reads_stale(const graph *main, const node *n, const bool *stale)
{
	for (int32_t s = 0; s < n->nsubgraphs; s++) {
		const graph *sg = n->subgraphs[s];
		for (int32_t i = 0; i < sg->nvalues; i++) {
			const value *v = &sg->values[i];
			if (v->origin == VAL_OUTER && value_outer(v) == main && value_outer_id(v) >= 0 &&
			    stale[value_outer_id(v)])
				return true;
		}
		for (int32_t j = 0; j < sg->nnodes; j++)
			if (sg->nodes[j].nsubgraphs && body_reads_stale(main, &sg->nodes[j], stale))
				return true;
	}
	return false;
}

/* Whether node n of the main graph depends on a value marked in stale. */
static bool node_reads_stale(const graph *main, const node *n, const bool *stale)
{
	for (int32_t i = 0; i < n->ninputs; i++)
		if (n->inputs[i] >= 0 && stale[n->inputs[i]])
			return true;
	return n->nsubgraphs && body_reads_stale(main, n, stale);
}

/* ---- after a re-index: what the inference before it found --------------------------- */

/* The same entries in the same terms: symbols by id, an unknown as an unknown. */
static bool dims_identical(const dim *a, const dim *b, int32_t n)
{
	if (a == b)
		return true;
	for (int32_t k = 0; k < n; k++)
		if (a[k].kind != b[k].kind || (a[k].kind != DIM_UNKNOWN && a[k].v != b[k].v))
			return false;
	return true;
}

static bool tinfo_identical(const tinfo *a, const tinfo *b)
{
	if (a->kind != b->kind || a->inner != b->inner || a->elem != b->elem || a->key != b->key ||
	    a->rank != b->rank || a->nval != b->nval || a->nfval != b->nfval)
		return false;
	return (a->rank <= 0 || dims_identical(a->dims, b->dims, a->rank)) &&
	       (a->nval <= 0 || dims_identical(a->val, b->val, a->nval)) &&
	       (a->nfval <= 0 || a->fval == b->fval || !memcmp(a->fval, b->fval, (size_t)a->nfval * sizeof *a->fval));
}

/* Whether t names a size onnxshape made up: its rule makes a new one each time it
 * runs (dim_fresh), and a claim's stand-in belongs to the value it was made for
 * (claimed), which a re-index replaced. */
static bool made_up(infer_ctx *c, const tinfo *t)
{
	for (int32_t k = 0; k < t->rank; k++)
		if (dx_mentions_made_up(c->syms, t->dims[k]))
			return true;
	for (int32_t k = 0; k < t->nval; k++)
		if (dx_mentions_made_up(c->syms, t->val[k]))
			return true;
	return false;
}

/* How node n's operator at opset `before` stands to itself at its own opset. */
typedef enum row_change { ROW_SAME = 1, ROW_TYPES, ROW_OTHER } row_change;

static row_change row_change_of(const infer_ctx *c, const node *n, int64_t before)
{
	if (n->opset == before)
		return ROW_SAME;
	bool found;
	int32_t i = c->ops ? type_memo_slot(c->ops->key, OP_MEMO_SLOTS, (type_key){n->op_type, n->domain, n->opset},
					    &found)
			   : -1;
	if (i >= 0 && found && c->ops->row_change[i] && c->ops->before_opset[i] == before)
		return (row_change)c->ops->row_change[i];
	const sch_row *now = schema_lookup(n->domain, n->op_type, n->opset);
	const sch_row *then = schema_lookup(n->domain, n->op_type, before);
	row_change r = !now ? ROW_OTHER : now == then ? ROW_SAME : schema_rows_alike(now, then) ? ROW_TYPES : ROW_OTHER;
	if (i >= 0 && found) {
		c->ops->before_opset[i] = before;
		c->ops->row_change[i] = (uint8_t)r;
	}
	return r;
}

typedef enum carry_verdict { CARRY_NO, CARRY_NOW, CARRY_AFTER_CHECK } carry_verdict;

/* Node ni of the main graph may take its outputs' types from the node it was decoded
 * from, the same bytes, in the graph the last re-index replaced (osh_model.before),
 * when its rule could only find them again: that inference had nothing to say of the
 * node, neither holds a body, and its operator has the same schema row at both opsets
 * (CARRY_NOW: its schema check is what it was too) or rows that differ only in the
 * types they accept (CARRY_AFTER_CHECK: the check must pass first). What it reads
 * and declares is carry_over's to compare. */
static carry_verdict carry_row(infer_ctx *c, const graph *g, int32_t ni)
{
	const graph *old = c->m->before.main;
	int32_t k = g->before_node[ni];
	if (k < 0 || k >= old->nnodes || c->m->before.noisy[k])
		return CARRY_NO;
	const node *n = &g->nodes[ni], *o = &old->nodes[k];
	if (n->nsubgraphs || o->nsubgraphs || n->ninputs != o->ninputs || n->noutputs != o->noutputs)
		return CARRY_NO;
	row_change rc = row_change_of(c, n, o->opset);
	return rc == ROW_SAME ? CARRY_NOW : rc == ROW_TYPES ? CARRY_AFTER_CHECK : CARRY_NO;
}

/* Takes over the types of node ni's outputs from the node carry_row found, when it
 * reads types identical to those it read there, its outputs are declared as they
 * were and name no size made up there. */
static bool carry_over(infer_ctx *c, graph *g, int32_t ni)
{
	const graph *old = c->m->before.main;
	int32_t k = g->before_node[ni];
	const node *n = &g->nodes[ni], *o = &old->nodes[k];
	for (int32_t i = 0; i < n->ninputs; i++) {
		int32_t a = n->inputs[i], b = o->inputs[i];
		if ((a < 0) != (b < 0) || (a >= 0 && !tinfo_identical(&g->values[a].ti, &old->values[b].ti)))
			return false;
	}
	for (int32_t j = 0; j < n->noutputs; j++) {
		int32_t a = n->outputs[j], b = o->outputs[j];
		if ((a < 0) != (b < 0))
			return false;
		if (a < 0)
			continue;
		const value *va = &g->values[a], *vb = &old->values[b];
		tinfo da = value_declared(va), db = value_declared(vb);
		if (va->producer != ni || vb->producer != k || !tinfo_identical(&da, &db))
			return false;
	}
	for (int32_t j = 0; j < n->noutputs; j++)
		if (n->outputs[j] >= 0 && made_up(c, &old->values[o->outputs[j]].ti))
			return false;
	for (int32_t j = 0; j < n->noutputs; j++)
		if (n->outputs[j] >= 0)
			g->values[n->outputs[j]].ti = old->values[o->outputs[j]].ti;
	return true;
}

/* Infers g's nodes in order. ps: where to list the nodes for lint (the main graph's
 * run), else NULL. */
static void infer_nodes(infer_ctx *base, graph *g, bool use_declared, pass_state *ps)
{
	bool *stale = g == base->m->main ? base->rederive : NULL;
	bool carry = g == base->m->main && base->m->before.main && g->before_node && !stale && !base->quiet &&
		     !base->checks_only;
	for (int32_t k = 0; k < g->nnodes; k++) {
		int32_t ni = g->order[k];
		node *n = &g->nodes[ni];
		infer_ctx c = *base;
		c.g = g;
		c.ni = ni;
		c.n = n;
		c.opset = n->opset;
		/* seed_values leaves node outputs to be set here, next to their use. */
		for (int32_t o = 0; o < n->noutputs; o++) {
			int32_t id = n->outputs[o];
			if (id >= 0 && g->values[id].producer == ni)
				g->values[id].ti = tinfo_unknown();
		}
		op_handler h = handler_of(&c, n);
		if (ps && h.lint)
			list_for_lint(&c, ps, ni);
		infer_fn fn = h.fn;
		graph *body = h.body;
		carry_verdict cv = carry && fn && !body ? carry_row(&c, g, ni) : CARRY_NO;
		if (cv == CARRY_NOW && carry_over(&c, g, ni)) {
			base->m->carried++;
			continue;
		}
		/* A node its schema refuses is reported once, as such: its rule runs
		 * quiet (rules cope with any inputs, reading them by position). */
		/* A model-local function of a domain the schemas cover is no operator to
		 * ONNX Runtime, which refuses the call: check_schema_missing says so. */
		/* In a branch that never runs, the schema's findings are still true of
		 * the model: said, and the rule quiet. */
		bool check = !base->quiet || base->checks_only;
		c.quiet = false;
		bool schema_refused = check && (h.schema ? !check_schema_node(&c, h.schema)
							 : h.schema_domain && !check_schema_missing(&c));
		c.quiet = base->quiet || schema_refused;
		if (cv == CARRY_AFTER_CHECK && !schema_refused && carry_over(&c, g, ni)) {
			base->m->carried++;
			continue;
		}
		/* A node no runtime would load is reported as that alone: its missing
		 * shape rule is the lesser news. */
		bool refused = c.opts->runtime_ort && !body && !c.quiet && check_kernel_domain(&c);
		if (base->checks_only) {
			/* No rule runs there: what one found of the sizes, and the facts it
			 * learned of symbols, would not be true of the model. */
			for (int32_t s = 0; s < n->nsubgraphs; s++)
				infer_subgraph_checks(&c, n->subgraphs[s]);
		} else if (fn)
			fn(&c);
		else if (body)
			infer_call(&c, body);
		else if (!c.quiet && !refused)
			model_diag(c.m, OSH_WARNING, DIAG_UNKNOWN_OP, g, ni, NULL,
				   "no shape rule for %s%s%s (opset %lld): its outputs are unknown",
				   n->domain, n->domain[0] ? "::" : "", n->op_type, (long long)n->opset);
		/* Downstream of a replaced input shape, the file's declarations describe
		 * the old one: they are inferred anew, as under ignore_declared. */
		bool rederived = stale && node_reads_stale(g, n, stale);
		for (int32_t o = 0; o < n->noutputs; o++) {
			int32_t id = n->outputs[o];
			if (id < 0 || g->values[id].producer != ni)
				continue;
			if (stale) {
				value *v = &g->values[id];
				stale[id] = rederived;
				if (v->x)
					v->x->declared_stale = rederived;
				/* An element type does not follow from sizes: where the rule
				 * found nothing, the declared one stays, the shape does not. */
				tinfo d = rederived && v->ti.kind == TK_UNKNOWN ? value_declared(v) : tinfo_unknown();
				if (d.kind == TK_TENSOR && d.elem) {
					v->ti = tinfo_unknown();
					v->ti.kind = TK_TENSOR;
					v->ti.elem = d.elem;
				}
			}
			reconcile(&c, &g->values[id], use_declared && !rederived);
		}
		if (c.opts->runtime_ort && h.schema && !c.quiet)
			check_kernel_node(&c, h.schema);
		else if (c.opts->runtime_ort && fn && !c.quiet)
			check_kernel_ms_node(&c);
	}
}

static void infer_nodes(infer_ctx *base, graph *g, bool use_declared, pass_state *ps);

/* Whether a and b have the same rank and every dimension of both is known and equal. */
static bool tinfo_same_shape(infer_ctx *c, const tinfo *a, const tinfo *b)
{
	if (a->rank < 0 || a->rank != b->rank)
		return false;
	for (int32_t k = 0; k < a->rank; k++) {
		dim x = dim_resolve(c->syms, a->dims[k]), y = dim_resolve(c->syms, b->dims[k]);
		if (x.kind != DIM_KNOWN || y.kind != DIM_KNOWN || x.v != y.v)
			return false;
	}
	return true;
}

/* Nodes inferred in bodies (subgraphs, function calls), and how many may be before a
 * body is no longer inferred twice: a margin, then a multiple of the model's nodes
 * that no model repeats its bodies to (a Loop's body runs twice, once more for each
 * enclosing Loop that repeats). */
#define BODY_WORK_MARGIN 16384
#define BODY_WORK_PER_NODE 16

struct body_work {
	uint64_t done, bound;
};

static bool pass_may_repeat(const infer_ctx *c) { return !c->work || c->work->done <= c->work->bound; }

static void pass_subgraph(infer_ctx *c, graph *sg, const tinfo *inputs, int32_t n)
{
	if (c->sub_depth >= MAX_SUB_DEPTH)
		return;
	if (c->work)
		c->work->done += (uint64_t)sg->nnodes;
	infer_ctx sub = *c;
	sub.sub_depth++;
	seed_values(&sub, sg);
	for (int32_t k = 0; k < sg->ninputs && k < n; k++) {
		if (!inputs || inputs[k].kind == TK_UNKNOWN)
			continue;
		value *v = &sg->values[sg->inputs[k]];
		tinfo given = inputs[k];
		tinfo t = value_declared(v);
		if (t.kind == TK_UNKNOWN) {
			v->ti = given;
			continue;
		}
		if (t.kind == given.kind) {
			/* What the node passes is what runs (a loop-carried value declared
			 * (a_dim_0, a_dim_1) may be (1, 17), and a first iteration's shape
			 * need not be the declared one): the declaration fills in only what
			 * that leaves unknown. */
			v->ti = given;
			fill_unknown(&sub, v, &v->ti, &t);
			continue;
		}
		/* Another kind (an optional passed where a tensor is declared): the
		 * declaration wins where it says something. */
		t = claimed_type(&sub, v, t);
		if (!t.elem)
			t.elem = given.elem;
		if (t.rank < 0) {
			t.rank = given.rank;
			t.dims = given.dims;
		}
		/* Content the caller knows (a Loop's condition) survives a declaration
		 * that agrees with its shape. */
		if ((given.nval >= 0 || given.nfval >= 0) && tinfo_same_shape(c, &t, &given)) {
			t.nval = given.nval, t.val = given.val;
			t.nfval = given.nfval, t.fval = given.fval;
		}
		v->ti = t;
	}
	infer_nodes(&sub, sg, true, NULL);
}

static void pass_subgraph_checks(infer_ctx *c, graph *sg)
{
	if (c->sub_depth >= MAX_SUB_DEPTH)
		return;
	infer_ctx sub = *c;
	sub.checks_only = true;
	sub.quiet = true;
	sub.sub_depth++;
	seed_values(&sub, sg);
	infer_nodes(&sub, sg, false, NULL);
}

/* The options every inference after an edit runs with: what it finds, an inference
 * with these options before the edit found too, where nothing changed. */
static bool options_plain(const pass_options *o)
{
	return !o->ignore_declared && !o->require_static && !o->require_explicit && !o->n_assumed && !o->runtime_ort &&
	       !o->n_custom_ops && !o->constant_initializers;
}

bool pass_infer(osh_model *m, const pass_options *opts)
{
	rule_index ri;
	if (!rule_index_build(&ri, m->arena)) {
		m->nomem = true;
		return false;
	}
	size_t values = m->main ? (size_t)m->main->nvalues : 0;
	static const infer_driver driver = {pass_subgraph, pass_may_repeat, pass_subgraph_checks};
	infer_ctx base = {.m = m, .opts = opts, .syms = &m->syms, .a = m->arena, .rules = &ri, .driver = &driver, .shared = dims_share_new(m->arena, values),
			  .ops = arena_zalloc(m->arena, sizeof(struct op_memo)), .fresh_keys = arena_alloc(m->arena, sizeof(strmap))};
	if (base.fresh_keys)
		strmap_init(base.fresh_keys, m->arena);
	base.work = arena_zalloc(m->arena, sizeof *base.work);
	if (base.work) {
		base.work->bound = BODY_WORK_MARGIN;
		for (int32_t i = 0; i < m->ngraphs; i++)
			base.work->bound += BODY_WORK_PER_NODE * (uint64_t)m->graphs[i]->nnodes;
	}
	bool use_declared = !opts->ignore_declared;
	m->ignore_declared = opts->ignore_declared;
	if (!m->main)
		return true;
	if (opts->runtime_ort)
		check_runtime_versions(m);
	/* The inputs whose shape osh_infer_options.input_shapes replaced start the
	 * values whose declarations are set aside (infer_nodes). */
	for (int32_t i = 0; i < m->main->ninputs; i++) {
		const value *v = &m->main->values[m->main->inputs[i]];
		if (!v->x || !v->x->input_override)
			continue;
		if (!base.rederive && !(base.rederive = arena_zalloc(m->arena, (size_t)m->main->nvalues))) {
			m->nomem = true;
			return false;
		}
		base.rederive[m->main->inputs[i]] = true;
	}
	seed_values(&base, m->main);
	m->carried = 0;
	pass_state *ps = opts->state;
	if (ps)
		*ps = (pass_state){.lint_listed = true};
	infer_nodes(&base, m->main, use_declared, ps);
	m->inferred = true;
	m->inferred_plain = options_plain(opts) && !base.rederive;
	m->before.main = NULL; /* what it carried over is its own now */
	return !m->nomem;
}
