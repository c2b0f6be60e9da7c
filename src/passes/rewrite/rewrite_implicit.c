/* rewrite_implicit.c: the implicit-broadcast stage of the rewrite: the
 * cleanup after converters that broadcast explicitly. Removes Expand nodes, and Tile
 * nodes whose repeats only replicate dims of size 1 (an Expand in disguise), whose
 * output every consumer reads through an implicitly broadcasting input
 * (bcast_sites.h), when reading the Expand's input instead leaves every consumer's
 * result shape exactly what it was; then the nodes and initializers that only fed
 * the removed ones (the target shape's computation) go too.
 *
 * Decisions are taken one node at a time in graph order against the state the
 * earlier removals left (a consumer with two expanded inputs may lose only one of
 * them), so each removal is checked against the graph as it will be. Proofs use the
 * inferred shapes: a dimension that is unknown is never proven equal, so such an
 * Expand stays.
 *
 * Invariant: nothing touches the messages until every decision is taken, and not at
 * all on a dry run; node removal happens before anything is queued (edit_drop). The
 * IR is rebuilt and inferred again after the edit by the rows that follow this stage
 * in pipeline.c's table.
 */
#include "passes/rewrite/rewrite.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/schema/schema.h"

#include "passes/bcast/bcast_sites.h"
#include "loader/build_messages.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define I_MAX_RANK 64

/* A node that computes from its inputs alone (its schema's pure column: no
 * randomness, no subgraph) may go once nothing reads it; the target-shape
 * computations the explicit stage and converters emit are such nodes. */
static bool is_pure(const node *n)
{
	const sch_row *r = schema_lookup(n->domain, n->op_type, n->opset);
	return r && r->pure && !r->deprecated;
}

typedef struct ig {
	rw *r;
	graph *g;
	strmap repl;     /* value name → the name consumers read instead */
	const char **repl_names;
	int32_t nrepl, cap_repl;
	strmap live;     /* inputs of removed nodes that consumers now read */
	bool *dead;
	bool *outer_read; /* per value of g: read by a subgraph */
	strmap gone;     /* names of removed values and initializers */
	dim (*scratch)[I_MAX_RANK]; /* BSITE_MAX_INPUTS operand shapes, for consumer_keeps */
} ig;

static const char *current(ig *s, const char *name)
{
	int32_t i = strmap_get(&s->repl, name);
	return i >= 0 ? s->repl_names[i] : name;
}

static const tinfo *info_of(ig *s, const char *name)
{
	int32_t id = graph_lookup(s->g, name);
	return id >= 0 ? &s->g->values[id].ti : NULL;
}

static int32_t resolved(ig *s, const tinfo *t, dim *d)
{
	if (!t || t->kind != TK_TENSOR || t->rank < 0 || t->rank > I_MAX_RANK)
		return -1;
	for (int32_t k = 0; k < t->rank; k++)
		d[k] = dim_resolve(&s->r->m->syms, t->dims[k]);
	return t->rank;
}

/* Marks the values of g that a subgraph reads from the outer scope: never removed.
 * One scan of every graph's values, so each question is then one lookup. */
static bool mark_outer_reads(const osh_model *m, const graph *g, bool *read)
{
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		const graph *sg = m->graphs[gi];
		for (int32_t v = 0; v < sg->nvalues; v++) {
			int32_t id = value_outer_id(&sg->values[v]);
			if (sg->values[v].origin == VAL_OUTER && value_outer(&sg->values[v]) == g && id >= 0 &&
			    id < g->nvalues)
				read[id] = true;
		}
	}
	return true;
}

/* Whether consumer c of g, reading `from` instead of `y` in every slot where it reads
 * y, keeps its result shape; false when y is read outside c's broadcasting inputs. */
static bool consumer_keeps(ig *s, int32_t ci, const char *y, const char *from)
{
	const node *c = &s->g->nodes[ci];
	bsite b;
	if (s->dead[ci] || c->domain[0] || !bsite_of(c, &b) || !bsite_numpy_like(&b) || c->outputs[0] < 0)
		return false;
	for (int32_t i = 0; i < c->ninputs; i++) {
		if (c->inputs[i] < 0 || strcmp(current(s, s->g->values[c->inputs[i]].name), y))
			continue;
		bool site = false;
		for (int32_t j = 0; j < b.n; j++)
			site = site || b.slot[j] == i;
		if (!site)
			return false;
	}
	dim want[I_MAX_RANK];
	int32_t wr = resolved(s, &s->g->values[c->outputs[0]].ti, want);
	if (wr < 0)
		return false;
	dim (*dims)[I_MAX_RANK] = s->scratch;
	shape ops[BSITE_MAX_INPUTS];
	for (int32_t j = 0; j < b.n; j++) {
		const char *nm = current(s, s->g->values[c->inputs[b.slot[j]]].name);
		if (!strcmp(nm, y))
			nm = from;
		int32_t rk = resolved(s, info_of(s, nm), dims[j]);
		if (rk < 0)
			return false;
		ops[j] = (shape){rk, dims[j]};
	}
	dim out[I_MAX_RANK];
	bcast_out bo = {.dims = out};
	sym_ctx sc = {sym_eq_cb, &s->r->m->syms};
	bool ok = b.rule == BCAST_NUMPY ? bcast_numpy_n(ops, b.n, &sc, &bo, NULL)
					: bcast_unidirectional((shape){wr, want}, ops[0], &sc, &bo, NULL);
	if (!ok || bo.rank != wr)
		return false;
	for (int32_t k = 0; k < wr; k++)
		if (!dim_eq(out[k], want[k]))
			return false;
	return true;
}

/* A Tile that only replicates size-1 dims: an Expand to its own output. */
static bool tile_is_expand(ig *s, const node *n)
{
	if (n->ninputs < 2 || n->inputs[1] < 0)
		return false;
	const tinfo *rp = &s->g->values[n->inputs[1]].ti, *x = &s->g->values[n->inputs[0]].ti;
	dim d[I_MAX_RANK];
	int32_t rk = resolved(s, x, d);
	if (rk < 0 || rp->nval != rk)
		return false;
	for (int32_t k = 0; k < rk; k++) {
		dim v = dim_resolve(&s->r->m->syms, rp->val[k]);
		if (v.kind != DIM_KNOWN || (v.v != 1 && !dim_is(d[k], 1)))
			return false;
	}
	return true;
}

static bool put_name(rw *r, strmap *m, const char *name)
{
	if (strmap_put(m, name, 0) == -2) {
		rw_nomem(r);
		return false;
	}
	return true;
}

/* Marks the producers of node ni's inputs from `first` on dead when nothing live
 * reads them any more, recursively; initializers only it read are dropped. */
static void sweep(ig *s, int32_t ni, int32_t first)
{
	graph *g = s->g;
	const node *n = &g->nodes[ni];
	for (int32_t i = first; i < n->ninputs; i++) {
		int32_t id = n->inputs[i];
		if (id < 0)
			continue;
		const value *v = &g->values[id];
		if (strmap_get(&s->live, v->name) >= 0 || v->is_output || s->outer_read[id])
			continue;
		bool unread = true;
		for (int32_t k = 0; k < v->nconsumers && unread; k++)
			unread = s->dead[v->consumers[k]];
		if (!unread)
			continue;
		if (v->origin == VAL_INITIALIZER) {
			put_name(s->r, &s->gone, v->name);
			continue;
		}
		if (v->origin != VAL_NODE || s->dead[v->producer] || !is_pure(&g->nodes[v->producer]))
			continue;
		const node *p = &g->nodes[v->producer];
		bool all = true; /* every output of the producer unread */
		for (int32_t o = 0; o < p->noutputs && all; o++) {
			int32_t oid = p->outputs[o];
			if (oid < 0)
				continue;
			const value *ov = &g->values[oid];
			if (ov->is_output || strmap_get(&s->live, ov->name) >= 0 || s->outer_read[oid])
				all = false;
			for (int32_t k = 0; k < ov->nconsumers && all; k++)
				all = s->dead[ov->consumers[k]];
		}
		if (!all)
			continue;
		s->dead[v->producer] = true;
		s->r->rep->n_dead_removed++;
		for (int32_t o = 0; o < p->noutputs; o++)
			if (p->outputs[o] >= 0)
				put_name(s->r, &s->gone, g->values[p->outputs[o]].name);
		sweep(s, v->producer, 0);
	}
}

static void remove_redundant(ig *s, int32_t ni)
{
	rw *r = s->r;
	graph *g = s->g;
	const node *n = &g->nodes[ni];
	bool expand = !strcmp(n->op_type, "Expand") && n->opset >= 8;
	bool tile = !strcmp(n->op_type, "Tile");
	if (n->domain[0] || (!expand && !tile) || n->ninputs < 2 || n->inputs[0] < 0 || n->noutputs < 1 ||
	    n->outputs[0] < 0)
		return;
	const value *y = &g->values[n->outputs[0]];
	if (y->is_output || !y->nconsumers || s->outer_read[n->outputs[0]])
		return;
	if (tile && !tile_is_expand(s, n))
		return;
	const char *from = current(s, g->values[n->inputs[0]].name);
	for (int32_t k = 0; k < y->nconsumers; k++)
		if (!consumer_keeps(s, y->consumers[k], y->name, from))
			return;
	s->dead[ni] = true;
	r->rep->n_removed++;
	if (s->nrepl == s->cap_repl) {
		const char **v = grow_arena_i32(r->m->arena, s->repl_names, &s->cap_repl, 16, sizeof *v);
		if (!v)
			{ rw_nomem(r); return; }
		s->repl_names = v;
	}
	if (strmap_put(&s->repl, y->name, s->nrepl) == -2)
		{ rw_nomem(r); return; }
	s->repl_names[s->nrepl++] = from;
	put_name(r, &s->live, from);
	put_name(r, &s->gone, y->name);
	rw_change(r, g, ni, "implicit", "remove %s: %s read '%s' instead and broadcast it implicitly to the same shape%s",
		  n->op_type, y->nconsumers == 1 ? "its consumer" : "its consumers", from, y->nconsumers == 1 ? "" : "s");
}

/* Rewires every input of a live node that reads a removed value. */
static bool rewire(ig *s)
{
	rw *r = s->r;
	graph *g = s->g;
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		if (s->dead[ni])
			continue;
		const node *n = &g->nodes[ni];
		for (int32_t i = 0; i < n->ninputs; i++) {
			if (n->inputs[i] < 0)
				continue;
			const char *nm = g->values[n->inputs[i]].name, *to = current(s, nm);
			if (to != nm && !edit_node_set_input(r->e, edit_node(r->e, g, ni), i, to))
				return rw_nomem(r), false;
		}
	}
	return true;
}

osh_status rewrite_implicit_stage(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep,
				  bool *edited, osh_error *err)
{
	*edited = false;
	if (!opts->implicit_broadcast || m->has_errors)
		return OSH_OK;
	rw rr = {.m = m, .opts = opts, .rep = rep};
	rw *r = &rr;
	if (!rw_continue_changes(r))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	ig *states = arena_array(m->arena, m->ngraphs > 0 ? (size_t)m->ngraphs : 1, sizeof *states);
	if (!states)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	size_t removed = rep->n_removed;
	for (int32_t gi = 0; gi < m->ngraphs && !r->m->nomem; gi++) {
		ig *s = &states[gi];
		*s = (ig){.r = r, .g = m->graphs[gi]};
		if (!s->g->proto)
			continue;
		strmap_init(&s->repl, m->arena);
		strmap_init(&s->live, m->arena);
		strmap_init(&s->gone, m->arena);
		s->dead = arena_zalloc(m->arena, (size_t)(s->g->nnodes > 0 ? s->g->nnodes : 1) * sizeof *s->dead);
		s->scratch = arena_array(m->arena, BSITE_MAX_INPUTS, sizeof *s->scratch);
		size_t nv = (size_t)(s->g->nvalues > 0 ? s->g->nvalues : 1);
		s->outer_read = arena_zalloc(m->arena, nv * sizeof *s->outer_read);
		if (!s->dead || !s->scratch || !s->outer_read)
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
		mark_outer_reads(m, s->g, s->outer_read);
		for (int32_t k = 0; k < s->g->nnodes && !r->m->nomem; k++)
			remove_redundant(s, s->g->order[k]);
		for (int32_t ni = 0; ni < s->g->nnodes && !r->m->nomem; ni++)
			if (s->dead[ni] && (!strcmp(s->g->nodes[ni].op_type, "Expand") ||
					    !strcmp(s->g->nodes[ni].op_type, "Tile")))
				sweep(s, ni, 1);
	}
	if (r->m->nomem)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	rep->n_changes = r->nchanges;
	rep->changes = r->changes;
	if (rep->n_removed == removed)
		return OSH_OK;
	rep->changed = true;
	if (opts->dry_run)
		return OSH_OK;
	rewrite_grow_budget(m, 0); /* a second IR and inference (removal adds no node) */
	if (!loader_build_value_info(m)) /* edits change messages (rewrite.c) */
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	r->e = edit_begin(m);
	if (!r->e)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		ig *s = &states[gi];
		if (!s->g->proto)
			continue;
		if (!rewire(s))
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
		edit_drop(r->e, s->g, s->dead, &s->gone);
	}
	if (!edit_commit(r->e))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	*edited = true;
	return OSH_OK;
}
