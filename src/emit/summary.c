/* summary.c: summary_build, the facts `onnxshape print` shows.
 *
 * Computed once from the messages and the index, stored in the arena. Declared types
 * only: this is what the file says, not what inference concludes.
 */
#include "emit/summary.h"

#include "core/dtype.h"
#include "core/grow.h"
#include "core/type_memo.h"
#include "core/model.h"
#include "loader/loader.h"
#include "onnx-ml.pb-c.h"

#include <stdlib.h>
#include <string.h>

static const char *str(const char *s) { return s ? s : ""; }

const char *summary_elem_type_name(int32_t t) { return dtype_valid(t) ? dtype_name(t) : NULL; }

/* Fills *out from a declared TypeProto: the kind and, for tensors (also the innermost
 * tensor of a sequence or optional), element type and shape. */
static bool type_from(arena *a, const Onnx__TypeProto *tp, osh_type *out)
{
	*out = (osh_type){.kind = "", .rank = -1};
	const char *kind = NULL;
	for (int depth = 0; tp && depth < 64; depth++) {
		const Onnx__TensorShapeProto *shp = NULL;
		switch (tp->value_case) {
		case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: {
			bool dense = tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
			if (!kind)
				kind = dense ? "tensor" : "sparse_tensor";
			if (dense && tp->tensor_type) {
				out->elem_type = tp->tensor_type->elem_type;
				shp = tp->tensor_type->shape;
			} else if (!dense && tp->sparse_tensor_type) {
				out->elem_type = tp->sparse_tensor_type->elem_type;
				shp = tp->sparse_tensor_type->shape;
			}
			out->kind = kind;
			if (!shp)
				return true;
			osh_dim *dims = arena_array(a, shp->n_dim ? shp->n_dim : 1, sizeof *dims);
			if (!dims)
				return false;
			for (size_t i = 0; i < shp->n_dim; i++) {
				const Onnx__TensorShapeProto__Dimension *d = shp->dim[i];
				if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
					dims[i] = (osh_dim){OSH_DIM_VALUE, d->dim_value, NULL};
				else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param)
					dims[i] = (osh_dim){OSH_DIM_SYMBOL, 0, d->dim_param};
				else
					dims[i] = (osh_dim){OSH_DIM_UNKNOWN, 0, NULL};
			}
			out->rank = (int32_t)shp->n_dim;
			out->dims = dims;
			return true;
		}
		case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
			if (!kind)
				kind = "sequence";
			tp = tp->sequence_type ? tp->sequence_type->elem_type : NULL;
			break;
		case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
			if (!kind)
				kind = "optional";
			tp = tp->optional_type ? tp->optional_type->elem_type : NULL;
			break;
		case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
			out->kind = "map";
			return true;
		default:
			out->kind = kind ? kind : "";
			return true;
		}
	}
	out->kind = kind ? kind : "";
	return true;
}

static int cmp_ops(const void *pa, const void *pb)
{
	const osh_op_count *a = pa, *b = pb;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	int c = strcmp(a->domain, b->domain);
	return c ? c : strcmp(a->op_type, b->op_type);
}

/* Rows of the counts by node type (core/type_memo.h), in front of the index by name:
 * for a domain other than ai.onnx, the name index also costs a key printed. */
#define TYPE_MEMO_SLOTS 64 /* a power of two */

static bool count_ops(osh_model *m, osh_summary *s)
{
	strmap idx;
	strmap_init(&idx, m->arena);
	size_t cap = 16, n = 0;
	osh_op_count *ops = arena_array(m->arena, cap, sizeof *ops);
	type_key memo[TYPE_MEMO_SLOTS] = {{0}};
	int32_t memo_row[TYPE_MEMO_SLOTS];
	if (!ops)
		return false;
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		const graph *g = m->graphs[gi];
		if (g->function)
			continue; /* bodies of functions are definitions, not uses */
		for (int32_t i = 0; i < g->nnodes; i++) {
			const node *nd = &g->nodes[i];
			bool found;
			int32_t slot = type_memo_slot(memo, TYPE_MEMO_SLOTS, (type_key){nd->op_type, nd->domain, 0}, &found);
			if (found) {
				ops[memo_row[slot]].count++;
				continue;
			}
			const char *key = nd->domain[0] ? arena_printf(m->arena, "%s::%s", nd->domain, nd->op_type)
							: nd->op_type;
			if (!key)
				return false;
			int32_t at = strmap_put(&idx, key, (int32_t)n);
			if (at == -2)
				return false;
			if ((size_t)at == n) {
				if (n == cap && !(ops = grow_arena(m->arena, ops, &cap, 16, sizeof *ops)))
					return false;
				ops[n++] = (osh_op_count){nd->domain, nd->op_type, 0};
			}
			if (slot >= 0)
				memo_row[slot] = at;
			ops[at].count++;
		}
	}
	qsort(ops, n, sizeof *ops, cmp_ops);
	s->op_counts = ops;
	s->n_op_counts = n;
	return true;
}

static bool values_from(osh_model *m, const graph *g, const int32_t *ids, int32_t n, bool skip_init,
			const osh_value_summary **out, size_t *count)
{
	osh_value_summary *vs = arena_array(m->arena, n > 0 ? (size_t)n : 1, sizeof *vs);
	if (!vs)
		return false;
	size_t k = 0;
	for (int32_t i = 0; i < n; i++) {
		const value *v = &g->values[ids[i]];
		if (skip_init && v->init_view) /* an initializer, as a message or still in the input */
			continue;
		vs[k].name = v->name;
		const Onnx__ValueInfoProto *decl = value_decl(v);
		if (!type_from(m->arena, decl ? decl->type : NULL, &vs[k].type))
			return false;
		k++;
	}
	*out = vs;
	*count = k;
	return true;
}

size_t summary_node_count(const osh_model *m)
{
	size_t n = 0;
	for (int32_t gi = 0; m && gi < m->ngraphs; gi++)
		n += (size_t)m->graphs[gi]->nnodes;
	return n;
}

const osh_summary *summary_build(osh_model *m)
{
	if (!m)
		return NULL;
	if (m->summary)
		return m->summary;
	osh_summary *s = arena_zalloc(m->arena, sizeof *s);
	if (!s)
		return NULL;
	const Onnx__ModelProto *mp = m->proto;
	s->ir_version = mp->has_ir_version ? mp->ir_version : -1;
	s->producer_name = str(mp->producer_name);
	s->producer_version = str(mp->producer_version);
	s->domain = str(mp->domain);
	s->model_version = mp->has_model_version ? mp->model_version : -1;
	s->graph_name = mp->graph ? str(mp->graph->name) : "";
	osh_opset *ops = arena_array(m->arena, m->nopsets ? (size_t)m->nopsets : 1, sizeof *ops);
	if (!ops)
		return NULL;
	for (int32_t i = 0; i < m->nopsets; i++)
		ops[i] = (osh_opset){m->opsets[i].domain, m->opsets[i].version};
	s->opsets = ops;
	s->n_opsets = (size_t)m->nopsets;
	s->n_functions = mp->n_functions;
	/* The main graph's initializers the loader left in the input were counted
	 * when it read them. */
	tensor_stats ts = m->src.wire_init_stats;
	s->n_nodes_total = summary_node_count(m);
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		const graph *g = m->graphs[gi];
		if (g->parent)
			s->n_subgraphs++;
		if (g->proto)
			for (size_t i = 0; i < g->proto->n_initializer; i++)
				tensor_stats_add(&ts, g->proto->initializer[i]);
	}
	s->n_initializers = ts.n;
	s->n_external = ts.n_external;
	s->initializer_bytes = ts.inline_bytes;
	s->external_bytes = ts.external_bytes;
	if (m->main) {
		s->n_nodes = (size_t)m->main->nnodes;
		if (!values_from(m, m->main, m->main->inputs, m->main->ninputs, true, &s->inputs, &s->n_inputs) ||
		    !values_from(m, m->main, m->main->outputs, m->main->noutputs, false, &s->outputs, &s->n_outputs))
			return NULL;
	}
	if (!count_ops(m, s))
		return NULL;
	m->summary = s;
	return s;
}
