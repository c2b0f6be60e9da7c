/* describe.c: the last pass: attaches to each diagnostic the types of its node's
 * inputs, as inference left them, so reports (check --format json) can show the
 * shapes involved without reaching into the model.
 *
 * Run last because a symbol's value may only be learned after the diagnostic was
 * made: types are resolved here, once every fact is in.
 *
 * Invariant: every osh_diag with a node in an indexed graph gets n_inputs equal to
 * that node's input count; the others keep 0 and NULL. All memory is the model's.
 */
#include "passes/pass.h"

#include <string.h>

bool type_of(osh_model *m, const tinfo *t, osh_type *out)
{
	static const char *const kinds[] = {"", "tensor", "sparse_tensor", "sequence", "optional", "map"};
	*out = (osh_type){.kind = kinds[t->kind], .elem_type = t->elem, .rank = t->rank};
	if (t->rank > 0) {
		osh_dim *d = arena_array(m->arena, (size_t)t->rank, sizeof *d);
		if (!d)
			return false;
		for (int32_t k = 0; k < t->rank; k++) {
			dim x = dim_resolve(&m->syms, t->dims[k]);
			d[k] = x.kind == DIM_KNOWN    ? (osh_dim){OSH_DIM_VALUE, x.v, NULL}
			       : x.kind == DIM_SYMBOL ? (osh_dim){OSH_DIM_SYMBOL, 0, sym_name(&m->syms, x.v)}
						      : (osh_dim){OSH_DIM_UNKNOWN, 0, NULL};
		}
		out->dims = d;
	}
	return true;
}

/* Reports show no shape for a value of unknown kind, nor for a map (whose tinfo
 * shape is its values'). */
static bool summarise(osh_model *m, const value *v, osh_value_summary *out)
{
	*out = (osh_value_summary){.name = v->name};
	if (!type_of(m, &v->ti, &out->type))
		return false;
	if (v->ti.kind == TK_UNKNOWN || v->ti.kind == TK_MAP)
		out->type.rank = RANK_UNKNOWN, out->type.dims = NULL;
	return true;
}

bool pass_describe(osh_model *m, const pass_options *opts)
{
	(void)opts;
	/* Diagnostics name their graph by path: index the paths once (the first graph of
	 * a path wins), not a scan of every graph per diagnostic. */
	strmap by_path;
	strmap_init(&by_path, m->arena);
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (strmap_put(&by_path, m->graphs[i]->path, i) == -2) {
			m->nomem = true;
			return false;
		}
	for (size_t i = 0; i < m->ndiags; i++) {
		osh_diag *d = &m->diags[i];
		int32_t gi = d->node_index >= 0 ? strmap_get(&by_path, d->graph) : -1;
		const graph *g = gi >= 0 ? m->graphs[gi] : NULL;
		if (!g || d->node_index >= g->nnodes)
			continue;
		const node *n = &g->nodes[d->node_index];
		osh_value_summary *in = arena_array(m->arena, n->ninputs > 0 ? (size_t)n->ninputs : 1, sizeof *in);
		if (!in) {
			m->nomem = true;
			return false;
		}
		for (int32_t k = 0; k < n->ninputs; k++) {
			if (n->inputs[k] < 0) {
				in[k] = (osh_value_summary){.name = "", .type = {.kind = "", .rank = RANK_UNKNOWN}};
			} else if (!summarise(m, &g->values[n->inputs[k]], &in[k])) {
				m->nomem = true;
				return false;
			}
		}
		d->n_inputs = (size_t)n->ninputs;
		d->inputs = in;
	}
	return true;
}
