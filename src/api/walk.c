/* walk.c: the public API's walk of the model's IR (osh_model_graph_count, osh_graph_value_at,
 * osh_graph_node_at): graphs, their values with their types, their nodes.
 *
 * It reads the index as it is, and converts a type as osh_value_type does (type_of,
 * describe.c), so a walk and a lookup by name never disagree. Nothing is cached: a
 * rewrite rebuilds the index and inference changes the types, and a cache would have
 * to follow both; each answer is built from the index at the time of the call.
 */
#include "passes/pass.h"

#include <assert.h>

size_t osh_model_graph_count(const osh_model *m) { return m && m->graphs ? (size_t)m->ngraphs : 0; }

/* Graph gi, or NULL for a NULL model or an index past the last graph: the header
 * answers those with NULL, 0 or false rather than leaving them undefined. */
static const graph *graph_at(const osh_model *m, size_t gi)
{
	return gi < osh_model_graph_count(m) ? m->graphs[gi] : NULL;
}

const char *osh_graph_path(const osh_model *m, size_t gi)
{
	const graph *g = graph_at(m, gi);
	return g ? g->path : NULL;
}

size_t osh_graph_value_count(const osh_model *m, size_t gi)
{
	const graph *g = graph_at(m, gi);
	return g ? (size_t)g->nvalues : 0;
}

size_t osh_graph_node_count(const osh_model *m, size_t gi)
{
	const graph *g = graph_at(m, gi);
	return g ? (size_t)g->nnodes : 0;
}

bool osh_graph_value_at(osh_model *m, size_t gi, size_t vi, osh_value_info *out)
{
	const graph *g = graph_at(m, gi);
	if (!g || vi >= (size_t)g->nvalues || !out)
		return false;
	const value *v = &g->values[vi];
	bool produced = v->origin == VAL_NODE;
	*out = (osh_value_info){
		.name = v->name,
		.origin = (osh_value_origin)v->origin,
		.producer = produced ? v->producer : -1,
		.producer_output = produced ? v->producer_out : -1,
		.is_graph_output = v->is_output,
	};
	/* Before inference a value's ti is not meaningful: the file's declaration is
	 * what is known. */
	tinfo declared = value_declared(v);
	return type_of(m, m->inferred ? &v->ti : &declared, &out->type);
}

static const char **names_of(osh_model *m, const graph *g, const int32_t *ids, int32_t n)
{
	const char **names = arena_array(m->arena, n > 0 ? (size_t)n : 1, sizeof *names);
	if (!names)
		return NULL;
	for (int32_t k = 0; k < n; k++)
		names[k] = ids[k] >= 0 ? g->values[ids[k]].name : "";
	return names;
}

/* The index of a subgraph in m->graphs. Only nodes that hold graphs look, and models
 * have few graphs beside their nodes. */
static size_t graph_index(const osh_model *m, const graph *sg)
{
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (m->graphs[i] == sg)
			return (size_t)i;
	assert(!"a node's subgraph is not among the model's graphs");
	return 0;
}

bool osh_graph_node_at(osh_model *m, size_t gi, size_t ni, osh_node_info *out)
{
	const graph *g = graph_at(m, gi);
	if (!g || ni >= (size_t)g->nnodes || !out)
		return false;
	const node *n = &g->nodes[ni];
	*out = (osh_node_info){
		.name = n->name,
		.op_type = n->op_type,
		.domain = n->domain,
		.n_inputs = (size_t)n->ninputs,
		.n_outputs = (size_t)n->noutputs,
	};
	const char **in = names_of(m, g, n->inputs, n->ninputs);
	const char **outs = names_of(m, g, n->outputs, n->noutputs);
	if (!in || !outs)
		return false;
	out->inputs = in, out->outputs = outs;
	size_t *sub = arena_array(m->arena, n->nsubgraphs > 0 ? (size_t)n->nsubgraphs : 1, sizeof *sub);
	if (!sub)
		return false;
	for (int32_t k = 0; k < n->nsubgraphs; k++)
		sub[k] = graph_index(m, n->subgraphs[k]);
	out->n_subgraphs = (size_t)n->nsubgraphs, out->subgraphs = sub;
	return true;
}
