/* verify.c: the IR checker (verify.h), run between the pipeline's stages when asked.
 *
 * It recomputes from the nodes what the loader derives (each value's producer and
 * consumers, the order) and compares, rather than trusting one to check the other.
 * The consumers of a value are what loader/index.c builds: the nodes that read it as
 * an input, in node order, each once; then, in node order, the nodes whose subgraphs
 * read it from outside (a node already last on the list is not added again). A
 * malformed model (a value produced twice, a cycle) is indexed in full but without
 * those agreements: for it only ranges and the order's permutation are checked.
 * Scratch memory is malloc'd so that the check never touches the model's arena,
 * whoever else may be using it.
 */
#include "passes/verify.h"
#include "core/dimexpr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct checker {
	const osh_model *m;
	char *why;
	size_t cap;
	/* Per value of the graph at hand: how many of its consumers were matched, and the
	 * last node matched; per node: its place in the order. */
	int32_t *pos, *last, *rank;
} checker;

static bool fail(checker *c, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static bool fail(checker *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->why, c->cap, fmt, ap);
	va_end(ap);
	return false;
}

static bool dim_ok(const osh_model *m, dim d, bool size)
{
	switch (d.kind) {
	case DIM_UNKNOWN:
		return true;
	case DIM_KNOWN:
		return !size || d.v >= 0;
	case DIM_SYMBOL:
		return d.v >= 0 && d.v < m->syms.n;
	default:
		return false;
	}
}

/* A type as inference leaves it: kinds in range, a rank with its dims, sizes and
 * content of the right kinds. */
static bool tinfo_ok(checker *c, const graph *g, int32_t id)
{
	const tinfo *t = &g->values[id].ti;
	const char *name = g->values[id].name;
	if (t->kind > TK_MAP || t->inner > TK_MAP)
		return fail(c, "value %d ('%s') of graph '%s' has type kind %d (inner %d), not one of tinfo.h's", id, name,
			    g->path, t->kind, t->inner);
	if (t->rank < RANK_UNKNOWN)
		return fail(c, "value %d ('%s') of graph '%s' has rank %d", id, name, g->path, t->rank);
	if (t->rank > 0 && !t->dims)
		return fail(c, "value %d ('%s') of graph '%s' has rank %d but no dims", id, name, g->path, t->rank);
	for (int32_t k = 0; k < t->rank; k++)
		if (!dim_ok(c->m, t->dims[k], true))
			return fail(c, "value %d ('%s') of graph '%s': dim %d is kind %d, value %lld (%lld symbols known)",
				    id, name, g->path, k, (int)t->dims[k].kind, (long long)t->dims[k].v,
				    (long long)c->m->syms.n);
	if (t->nval < -1 || t->nval > TINFO_MAX_VALUES || (t->nval > 0 && !t->val))
		return fail(c, "value %d ('%s') of graph '%s' has %d content values%s", id, name, g->path, t->nval,
			    t->val ? "" : " and no array for them");
	for (int32_t k = 0; k < t->nval; k++)
		if (!dim_ok(c->m, t->val[k], false))
			return fail(c, "value %d ('%s') of graph '%s': content value %d is kind %d, value %lld", id, name,
				    g->path, k, (int)t->val[k].kind, (long long)t->val[k].v);
	if (t->nfval < -1 || t->nfval > TINFO_MAX_VALUES || (t->nfval > 0 && !t->fval))
		return fail(c, "value %d ('%s') of graph '%s' has %d floating content values%s", id, name, g->path,
			    t->nfval, t->fval ? "" : " and no array for them");
	return true;
}

/* Whether node ni of g reads value v: as an input, or from a subgraph. */
static bool node_reads(const graph *g, int32_t ni, int32_t v)
{
	const node *n = &g->nodes[ni];
	for (int32_t k = 0; k < n->ninputs; k++)
		if (n->inputs[k] == v)
			return true;
	for (int32_t s = 0; s < n->nsubgraphs; s++) {
		const graph *sg = n->subgraphs[s];
		for (int32_t i = 0; i < sg->nvalues; i++)
			if (sg->values[i].origin == VAL_OUTER && value_outer(&sg->values[i]) == g &&
			    value_outer_id(&sg->values[i]) == v)
				return true;
	}
	return false;
}

/* The next consumer of v the loader would have listed is node ni: compares it with
 * the list. */
static bool consumer_next(checker *c, const graph *g, int32_t v, int32_t ni)
{
	if (v < 0 || v >= g->nvalues)
		return fail(c, "node %d of graph '%s' reads value %d, of %d values", ni, g->path, v, g->nvalues);
	if (c->last[v] == ni)
		return true; /* a node once in a row */
	c->last[v] = ni;
	const value *val = &g->values[v];
	int32_t at = c->pos[v]++;
	if (at < val->nconsumers && val->consumers[at] == ni)
		return true;
	if (at >= val->nconsumers)
		return fail(c, "node %d of graph '%s' reads value %d ('%s'), but the value's %d consumers leave it out",
			    ni, g->path, v, val->name, val->nconsumers);
	int32_t other = val->consumers[at];
	if (!node_reads(g, other, v))
		return fail(c, "value %d ('%s') of graph '%s' lists node %d as a consumer, but node %d does not read it",
			    v, val->name, g->path, other, other);
	return fail(c, "value %d ('%s') of graph '%s' lists its consumers out of order: node %d at %d, where node %d reads it",
		    v, val->name, g->path, other, at, ni);
}

static bool check_consumers(checker *c, const graph *g)
{
	for (int32_t v = 0; v < g->nvalues; v++)
		c->pos[v] = 0, c->last[v] = -1;
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *n = &g->nodes[ni];
		for (int32_t k = 0; k < n->ninputs; k++)
			if (n->inputs[k] >= 0 && !consumer_next(c, g, n->inputs[k], ni))
				return false;
	}
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *n = &g->nodes[ni];
		for (int32_t s = 0; s < n->nsubgraphs; s++) {
			const graph *sg = n->subgraphs[s];
			for (int32_t i = 0; i < sg->nvalues; i++)
				if (sg->values[i].origin == VAL_OUTER && value_outer(&sg->values[i]) == g &&
				    !consumer_next(c, g, value_outer_id(&sg->values[i]), ni))
					return false;
		}
	}
	for (int32_t v = 0; v < g->nvalues; v++) {
		const value *val = &g->values[v];
		if (c->pos[v] == val->nconsumers)
			continue;
		int32_t other = val->consumers[c->pos[v]];
		if (!node_reads(g, other, v))
			return fail(c, "value %d ('%s') of graph '%s' lists node %d as a consumer, but node %d does not read it",
				    v, val->name, g->path, other, other);
		return fail(c, "value %d ('%s') of graph '%s' lists node %d as a consumer more often than it reads it", v,
			    val->name, g->path, other);
	}
	return true;
}

static bool check_values(checker *c, const graph *g, bool whole)
{
	int32_t produced = 0;
	for (int32_t v = 0; v < g->nvalues; v++) {
		const value *val = &g->values[v];
		if (!val->name)
			return fail(c, "value %d of graph '%s' has no name", v, g->path);
		if (val->origin > VAL_OUTER)
			return fail(c, "value %d ('%s') of graph '%s' has origin %d", v, val->name, g->path, val->origin);
		if (strmap_get(&g->names, val->name) != v)
			return fail(c, "graph '%s' maps the name '%s' to value %d, not to value %d that has it", g->path,
				    val->name, strmap_get(&g->names, val->name), v);
		if (val->nconsumers < 0 || (val->nconsumers > 0 && !val->consumers))
			return fail(c, "value %d ('%s') of graph '%s' has %d consumers", v, val->name, g->path,
				    val->nconsumers);
		for (int32_t k = 0; k < val->nconsumers; k++)
			if (val->consumers[k] < 0 || val->consumers[k] >= g->nnodes)
				return fail(c, "value %d ('%s') of graph '%s' lists node %d as a consumer, of %d nodes", v,
					    val->name, g->path, val->consumers[k], g->nnodes);
		if (val->origin == VAL_NODE) {
			produced++;
			if (whole && (v < g->first_produced || v >= g->first_produced + g->nproduced))
				return fail(c, "value %d ('%s') of graph '%s' is a node's output outside the row of them (%d to %d)",
					    v, val->name, g->path, g->first_produced, g->first_produced + g->nproduced - 1);
			if (val->producer < 0 || val->producer >= g->nnodes)
				return fail(c, "value %d ('%s') of graph '%s' has producer %d, of %d nodes", v, val->name,
					    g->path, val->producer, g->nnodes);
			const node *p = &g->nodes[val->producer];
			if (whole && (val->producer_out < 0 || val->producer_out >= p->noutputs ||
				      p->outputs[val->producer_out] != v))
				return fail(c, "value %d ('%s') of graph '%s' names node %d output %d as its producer, but that is not it",
					    v, val->name, g->path, val->producer, val->producer_out);
		} else if (val->producer != -1) {
			return fail(c, "value %d ('%s') of graph '%s' is no node's output but has producer %d", v, val->name,
				    g->path, val->producer);
		}
		if (val->origin == VAL_OUTER) {
			const graph *o = value_outer(val);
			int32_t oid = value_outer_id(val);
			if (!g->parent || o != g->parent)
				return fail(c, "value %d ('%s') of graph '%s' comes from outside, but not from its parent graph", v,
					    val->name, g->path);
			if (oid < 0 || oid >= o->nvalues || strcmp(o->values[oid].name, val->name))
				return fail(c, "value %d ('%s') of graph '%s' refers to value %d of graph '%s', which is not it", v,
					    val->name, g->path, oid, o->path);
		}
		if (c->m->inferred && !tinfo_ok(c, g, v))
			return false;
	}
	if (whole && produced != g->nproduced)
		return fail(c, "graph '%s' counts %d node outputs, but %d values are", g->path, g->nproduced, produced);
	/* The other way round: every name the map holds is a value's. */
	for (size_t s = 0; s < g->names.cap; s++) {
		const strmap_slot *e = &g->names.slots[s];
		if (!e->key || e->val < 0)
			continue;
		if (e->val >= g->nvalues || strcmp(g->values[e->val].name, e->key))
			return fail(c, "graph '%s' maps the name '%s' to value %d, which is not named so", g->path, e->key,
				    e->val);
	}
	return true;
}

static bool check_nodes(checker *c, const graph *g, bool whole)
{
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *n = &g->nodes[ni];
		if (n->ninputs < 0 || n->noutputs < 0 || n->nattrs < 0 || n->nsubgraphs < 0 ||
		    (n->ninputs && !n->inputs) || (n->noutputs && !n->outputs) || (n->nattrs && !n->attrs) ||
		    (n->nsubgraphs && !n->subgraphs))
			return fail(c, "node %d of graph '%s' has %d inputs, %d outputs, %d attributes, %d subgraphs, not all there",
				    ni, g->path, n->ninputs, n->noutputs, n->nattrs, n->nsubgraphs);
		for (int32_t k = 0; k < n->ninputs; k++)
			if (n->inputs[k] < -1 || n->inputs[k] >= g->nvalues)
				return fail(c, "node %d of graph '%s': input %d is value %d, of %d values", ni, g->path, k,
					    n->inputs[k], g->nvalues);
		for (int32_t k = 0; k < n->noutputs; k++) {
			int32_t v = n->outputs[k];
			if (v < -1 || v >= g->nvalues)
				return fail(c, "node %d of graph '%s': output %d is value %d, of %d values", ni, g->path, k, v,
					    g->nvalues);
			if (whole && v >= 0 &&
			    (g->values[v].origin != VAL_NODE || g->values[v].producer != ni || g->values[v].producer_out != k))
				return fail(c, "node %d of graph '%s': output %d is value %d ('%s'), whose producer is node %d output %d",
					    ni, g->path, k, v, g->values[v].name, g->values[v].producer,
					    g->values[v].producer_out);
		}
		for (int32_t s = 0; s < n->nsubgraphs; s++) {
			const graph *sg = n->subgraphs[s];
			if (!sg || sg->parent != g || sg->parent_node != ni || sg->depth != g->depth + 1)
				return fail(c, "node %d of graph '%s': subgraph %d does not name the node as its parent", ni,
					    g->path, s);
		}
	}
	return true;
}

/* A permutation of the nodes; topological: each value's producer before every
 * node that reads it (the consumers, checked before this against the nodes). */
static bool check_order(checker *c, const graph *g, bool whole)
{
	if (g->nnodes && !g->order)
		return fail(c, "graph '%s' has %d nodes and no order", g->path, g->nnodes);
	for (int32_t ni = 0; ni < g->nnodes; ni++)
		c->rank[ni] = -1;
	for (int32_t i = 0; i < g->nnodes; i++) {
		int32_t ni = g->order[i];
		if (ni < 0 || ni >= g->nnodes || c->rank[ni] >= 0)
			return fail(c, "the order of graph '%s' is not a permutation of its %d nodes: node %d at %d", g->path,
				    g->nnodes, ni, i);
		c->rank[ni] = i;
	}
	if (!whole)
		return true;
	for (int32_t v = 0; v < g->nvalues; v++) {
		const value *val = &g->values[v];
		if (val->origin != VAL_NODE)
			continue;
		for (int32_t k = 0; k < val->nconsumers; k++)
			if (c->rank[val->consumers[k]] <= c->rank[val->producer])
				return fail(c, "the order of graph '%s' puts node %d, which reads value %d ('%s'), before node %d that makes it",
					    g->path, val->consumers[k], v, val->name, val->producer);
	}
	return true;
}

static bool check_ends(checker *c, const graph *g)
{
	for (int32_t i = 0; i < g->ninputs; i++)
		if (g->inputs[i] < 0 || g->inputs[i] >= g->nvalues)
			return fail(c, "graph '%s': input %d is value %d, of %d values", g->path, i, g->inputs[i], g->nvalues);
	for (int32_t i = 0; i < g->noutputs; i++)
		if (g->outputs[i] < 0 || g->outputs[i] >= g->nvalues)
			return fail(c, "graph '%s': output %d is value %d, of %d values", g->path, i, g->outputs[i],
				    g->nvalues);
	/* is_output says whether a value is among the outputs (last[] as scratch). */
	for (int32_t v = 0; v < g->nvalues; v++)
		c->last[v] = 0;
	for (int32_t i = 0; i < g->noutputs; i++)
		c->last[g->outputs[i]] = 1;
	for (int32_t v = 0; v < g->nvalues; v++)
		if (g->values[v].is_output != (c->last[v] == 1))
			return fail(c, "value %d ('%s') of graph '%s' is %s the graph's outputs, but marked otherwise", v,
				    g->values[v].name, g->path, c->last[v] ? "among" : "not among");
	if (g->parent) {
		const graph *p = g->parent;
		bool held = g->parent_node >= 0 && g->parent_node < p->nnodes;
		for (int32_t s = 0; held && s < p->nodes[g->parent_node].nsubgraphs; s++)
			if (p->nodes[g->parent_node].subgraphs[s] == g)
				return true;
		return fail(c, "graph '%s' names node %d of graph '%s' as its parent, which does not hold it", g->path,
			    g->parent_node, p->path);
	}
	return true;
}

static bool check_graph(checker *c, const graph *g)
{
	bool whole = !c->m->malformed;
	if (g->nvalues < 0 || g->nnodes < 0 || g->ninputs < 0 || g->noutputs < 0 || !g->path)
		return fail(c, "graph '%s' has %d values, %d nodes, %d inputs, %d outputs", g->path ? g->path : "?",
			    g->nvalues, g->nnodes, g->ninputs, g->noutputs);
	return check_nodes(c, g, whole) && check_values(c, g, whole) && check_ends(c, g) &&
	       (!whole || check_consumers(c, g)) && check_order(c, g, whole);
}

osh_status ir_verify(const osh_model *m, char *why, size_t cap)
{
	checker c = {.m = m, .why = why, .cap = cap};
	if (cap)
		why[0] = '\0';
	if (m->ngraphs < 0 || (m->ngraphs > 0 && m->graphs[0] != m->main)) {
		fail(&c, "the model's %d graphs do not start with the main graph", m->ngraphs);
		return OSH_ERR_INVALID;
	}
	int32_t values = 1, nodes = 1;
	for (int32_t i = 0; i < m->ngraphs; i++) {
		if (!m->graphs[i]) {
			fail(&c, "graph %d of the model is missing", i);
			return OSH_ERR_INVALID;
		}
		if (m->graphs[i]->nvalues > values)
			values = m->graphs[i]->nvalues;
		if (m->graphs[i]->nnodes > nodes)
			nodes = m->graphs[i]->nnodes;
	}
	c.pos = malloc((size_t)values * sizeof *c.pos);
	c.last = malloc((size_t)values * sizeof *c.last);
	c.rank = malloc((size_t)nodes * sizeof *c.rank);
	osh_status s = OSH_ERR_NOMEM;
	if (c.pos && c.last && c.rank) {
		s = OSH_OK;
		for (int32_t i = 0; i < m->ngraphs && s == OSH_OK; i++)
			if (!check_graph(&c, m->graphs[i]))
				s = OSH_ERR_INVALID;
	}
	free(c.pos);
	free(c.last);
	free(c.rank);
	return s;
}
