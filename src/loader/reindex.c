/* reindex.c: model_reindex (reindex.h), the loader's validate and index stages run
 * again over edited messages.
 *
 * Invariant: after it returns true, every IR field is exactly what loading the
 * packed messages would have built, except the symbol table, which is kept.
 */
#include "loader/reindex.h"

#include "loader/loader.h"

bool model_reindex(osh_model *m)
{
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
	m->ignore_declared = false;
	m->summary = NULL;
	dx_forget_declared(&m->syms); /* the index counts them again */
	bool ok = validate_model(m) && index_model(m) && !m->nomem;
	m->src.reindex_from = NULL;
	m->src.wire_nodes.from = NULL; /* the list is now what the new IR was built from */
	return ok;
}
