/* model_values.c: model_values() (model_values.h), over the library's IR. */
#include "model_values.h"

#include "core/dtype.h"
#include "core/model.h"
#include "passes/pass.h"

#include <stdlib.h>

/* v's type as model_value shows it: dims in *scratch (malloc'd, grown as needed). */
static bool value_type(osh_model *m, const value *v, osh_type *out, osh_dim **scratch, int32_t *cap)
{
	if (m->inferred)
		return type_of(m, &v->ti, out);
	const tensor_view *t = v->init_view;
	*out = (osh_type){.kind = "", .rank = -1};
	if (!t)
		return true;
	if (t->rank > *cap) {
		osh_dim *d = realloc(*scratch, (size_t)t->rank * sizeof *d);
		if (!d)
			return false;
		*scratch = d, *cap = t->rank;
	}
	for (int32_t k = 0; k < t->rank; k++)
		(*scratch)[k] = (osh_dim){OSH_DIM_VALUE, t->dims[k], NULL};
	*out = (osh_type){.kind = "tensor", .elem_type = t->dtype, .rank = t->rank, .dims = *scratch};
	return true;
}

bool model_values(osh_model *m, bool (*fn)(void *ctx, const model_value *v), void *ctx)
{
	osh_dim *scratch = NULL;
	int32_t cap = 0;
	bool ok = true, go = true;
	for (int32_t gi = 0; gi < m->ngraphs && ok && go; gi++) {
		graph *g = m->graphs[gi];
		if (!g->proto)
			continue;
		/* Three sweeps in the order the listing promises. */
		for (int sweep = 0; sweep < 3 && ok && go; sweep++) {
			int32_t n = sweep == 0 ? g->ninputs : sweep == 1 ? g->nvalues : g->nnodes;
			for (int32_t i = 0; i < n && ok && go; i++) {
				int32_t ids[1] = {-1}, *outs = ids, nouts = 1;
				const node *nd = NULL;
				if (sweep == 0)
					ids[0] = g->inputs[i];
				else if (sweep == 1)
					ids[0] = g->values[i].origin == VAL_INITIALIZER ? i : -1;
				else
					nd = &g->nodes[g->order[i]], outs = nd->outputs, nouts = nd->noutputs;
				for (int32_t k = 0; k < nouts && ok && go; k++) {
					if (outs[k] < 0)
						continue;
					const value *v = &g->values[outs[k]];
					model_value mv = {
						.graph = g->path,
						.name = v->name,
						.source = sweep == 0 ? SRC_INPUT : sweep == 1 ? SRC_INITIALIZER : SRC_NODE,
						.node_index = nd ? g->order[i] : -1,
						.op_type = nd ? nd->op_type : "",
						.is_output = v->is_output,
					};
					const tensor_view *t = v->init_view;
					if (t) {
						mv.elements = t->count;
						if (!dtype_raw_bytes(t->dtype, t->count, &mv.bytes))
							mv.bytes = 0;
					}
					ok = value_type(m, v, &mv.type, &scratch, &cap);
					go = ok && fn(ctx, &mv);
				}
			}
		}
	}
	free(scratch);
	return ok;
}
