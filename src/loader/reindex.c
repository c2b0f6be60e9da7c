/* reindex.c: model_reindex (reindex.h), the loader's validate and index stages run
 * again over edited messages.
 *
 * Invariant: after it returns true, every IR field is exactly what loading the
 * packed messages would have built, except the symbol table, which is kept.
 */
#include "loader/reindex.h"

#include "loader/loader.h"

/* Per node of the main graph, whether a diagnostic names it, or a value it produces:
 * what the inference after the re-index must work out again (it would say it again).
 * NULL when memory ran out. */
static uint8_t *noisy_nodes(osh_model *m)
{
	const graph *g = m->main;
	uint8_t *noisy = arena_zalloc(m->arena, g->nnodes > 0 ? (size_t)g->nnodes : 1);
	if (!noisy)
		return NULL;
	for (size_t i = 0; i < m->ndiags; i++) {
		const osh_diag *d = &m->diags[i];
		if (d->graph[0])
			continue; /* a body's: its node holds a body, which is always inferred again */
		int64_t ni = d->node_index;
		if (ni < 0 && d->value[0]) {
			int32_t id = strmap_get(&g->names, d->value);
			ni = id >= 0 && g->values[id].origin == VAL_NODE ? g->values[id].producer : -1;
		}
		if (ni >= 0 && ni < g->nnodes)
			noisy[ni] = 1;
	}
	return noisy;
}

bool model_reindex(osh_model *m)
{
	m->before.main = NULL;
	if (m->main && m->inferred && m->inferred_plain && (m->before.noisy = noisy_nodes(m)))
		m->before.main = m->main;
	/* Everything validate_model and index_model fill in, back to its state before
	 * loading. The arrays are abandoned in the arena, not freed; the old main graph's
	 * nodes are read by the index once more (model_source.reindex_from). */
	m->src.reindex_from = m->main;
	m->main = NULL;
	m->ngraphs = 0;
	m->opsets = NULL;
	m->nopsets = 0;
	strmap_init(&m->opset_index, m->arena);
	m->ndiags = 0;
	m->has_errors = false;
	m->malformed = false;
	m->inferred = false;
	m->inferred_plain = false;
	m->ignore_declared = false;
	m->summary = NULL;
	dx_forget_declared(&m->syms); /* the index counts them again */
	bool ok = validate_model(m) && index_model(m) && !m->nomem;
	m->src.reindex_from = NULL;
	m->src.wire_nodes.from = NULL; /* the list is now what the new IR was built from */
	return ok;
}
