/* annotate.c: osh_annotate's work (the annotate stage of passes/pipeline.c), writing
 * inferred types back into the messages.
 *
 * For each graph that is a GraphProto (the main graph and every subgraph): each value
 * a node produces gets a value_info entry (an existing entry has its type replaced,
 * so the file's order is kept; new entries are appended), and each graph output gets
 * its inferred type; a graph input whose shape the caller overrode is declared with
 * that shape. Where inference kept a declaration because of a conflict, the
 * value's tinfo is the declaration, so it is written back as it was. New messages
 * live in the model's arena, like the unpacked ones.
 */
#include "core/model.h"
#include "core/error.h"
#include "core/table_size.h"
#include "emit/edit.h"
#include "emit/type_proto.h"
#include "loader/build_messages.h"
#include "loader/prescan.h"
#include "onnx-ml.pb-c.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values of equal types share one TypeProto (packing a message twice is fine, and
 * nothing changes one once written): a TypeProto per value would be messages for
 * every dimension of every value, as much memory as the index. A lossy cache, as for
 * the dims it keys on: inference publishes equal shapes as one array (passes/
 * rule_api/dims_share.c), so the array's address stands for the shape. A shape with an
 * unknown size is never shared: each such size gets a name of its own. */
#define TYPE_SLOTS 4096
/* A smaller model gets a slot for every four values, at least this many: the table is
 * zeroed, and its fresh pages would be most of annotating a small model (as for the
 * shared dims, passes/rule_api/dims_share.h). */
#define TYPE_SLOTS_MIN 256

typedef struct type_cache {
	size_t mask; /* slots - 1, a power of two less one */
	struct {
		const dim *dims;
		int32_t elem, rank;
		Onnx__TypeProto *tp;
	} slot[];
} type_cache;

/* A cache for a model of `values` values; NULL when there is no memory for one. */
static type_cache *type_cache_new(size_t values)
{
	size_t n = table_size(values, TYPE_SLOTS_MIN, TYPE_SLOTS);
	type_cache *c = calloc(1, sizeof *c + n * sizeof c->slot[0]);
	if (c)
		c->mask = n - 1;
	return c;
}

static Onnx__TypeProto *tensor_type_of(osh_model *m, type_cache *c, const tinfo *t, bool *skip)
{
	bool shareable = c && t->kind == TK_TENSOR && t->rank >= 0 && t->dims;
	size_t i = 0;
	if (shareable) {
		/* Looked up before the dims are checked for unknown sizes: only shareable
		 * dims are ever stored, and no symbol is resolved differently while the
		 * model is annotated, so a hit is shareable still. */
		i = (((uintptr_t)t->dims >> 3) ^ (uint32_t)t->elem * 31u ^ (uint32_t)t->rank) & c->mask;
		if (c->slot[i].tp && c->slot[i].dims == t->dims && c->slot[i].elem == t->elem &&
		    c->slot[i].rank == t->rank) {
			*skip = false;
			return c->slot[i].tp;
		}
	}
	for (int32_t k = 0; shareable && k < t->rank; k++)
		shareable = dim_resolve(&m->syms, t->dims[k]).kind != DIM_UNKNOWN;
	Onnx__TypeProto *tp = emit_type_proto(m, t, true, skip);
	if (shareable && tp) {
		c->slot[i].dims = t->dims;
		c->slot[i].elem = t->elem;
		c->slot[i].rank = t->rank;
		c->slot[i].tp = tp;
	}
	return tp;
}

/* Where the new entries of a graph go: ValueInfoProto messages appended to its list,
 * or, for the main graph, names and types (m->pending.value_info), packed as such. */
typedef struct new_entries {
	Onnx__ValueInfoProto **vis; /* the graph's list, grown; NULL for the main graph */
	Onnx__ValueInfoProto *pool; /* their messages, in one block */
	vi_list *lazy;              /* the main graph's */
	size_t cap, used;
} new_entries;

static bool entries_new(osh_model *m, graph *g, size_t fresh, new_entries *e)
{
	Onnx__GraphProto *gp = g->proto;
	*e = (new_entries){.cap = fresh};
	/* Written through from the start: the prefault thread faults them in from the
	 * end (a megabyte past the arena's front, they were the annotation's own to
	 * fault in, and much of its time on a big model). */
	if (g == m->main) {
		vi_list *l = e->lazy = &m->pending.value_info;
		size_t bytes = (fresh + 1) * sizeof *l->names; /* fresh < the value count */
		l->names = arena_alloc(m->arena, bytes);
		l->types = arena_alloc(m->arena, bytes);
		l->n = 0;
		if (!l->names || !l->types)
			return false;
		arena_will_write(m->arena, l->names, bytes);
		arena_will_write(m->arena, l->types, bytes);
		return true;
	}
	e->vis = arena_array(m->arena, gp->n_value_info + fresh + 1, sizeof *e->vis);
	/* The new entries, in one block: one allocation instead of one per value. */
	e->pool = fresh <= SIZE_MAX / sizeof *e->pool ? arena_alloc(m->arena, fresh * sizeof *e->pool) : NULL;
	if (!e->vis || !e->pool)
		return false;
	arena_will_write(m->arena, e->pool, fresh * sizeof *e->pool);
	if (gp->n_value_info)
		memcpy(e->vis, gp->value_info, gp->n_value_info * sizeof *e->vis);
	return true;
}

static void entry_add(new_entries *e, Onnx__GraphProto *gp, const char *name, Onnx__TypeProto *tp)
{
	if (e->used == e->cap)
		return;
	if (e->lazy) {
		e->lazy->names[e->lazy->n] = name;
		e->lazy->types[e->lazy->n++] = tp;
		e->used++;
		return;
	}
	static const Onnx__ValueInfoProto vi_init = ONNX__VALUE_INFO_PROTO__INIT;
	Onnx__ValueInfoProto *vi = &e->pool[e->used++];
	*vi = vi_init;
	vi->name = (char *)name;
	vi->type = tp;
	e->vis[gp->n_value_info + e->used - 1] = vi;
}

/* A graph output: its value and its place in the GraphProto's output list. */
typedef struct output_at {
	int32_t id, k;
} output_at;

static int output_at_cmp(const void *a, const void *b)
{
	const output_at *x = a, *y = b;
	return x->id != y->id ? (x->id > y->id) - (x->id < y->id) : (x->k > y->k) - (x->k < y->k);
}

/* The graph's outputs by value id, so that the walk over the values, in id order,
 * finds each one's places in the output list without comparing names: a model with
 * 100k outputs compared every output with every other. The loader made g->outputs
 * from the GraphProto's list, one for one. An output without a name gets no type,
 * as before. NULL with *n 0 when there are none, or when memory ran out (*nomem). */
static output_at *outputs_by_value(const graph *g, size_t *n, bool *nomem)
{
	const Onnx__GraphProto *gp = g->proto;
	size_t count = (size_t)g->noutputs < gp->n_output ? (size_t)g->noutputs : gp->n_output;
	*n = 0;
	*nomem = false;
	if (!count)
		return NULL;
	output_at *o = malloc(count * sizeof *o);
	if (!o) {
		*nomem = true;
		return NULL;
	}
	for (size_t k = 0; k < count; k++)
		if (gp->output[k]->name)
			o[(*n)++] = (output_at){g->outputs[k], (int32_t)k};
	qsort(o, *n, sizeof *o, output_at_cmp);
	return o;
}

static bool annotate_graph(osh_model *m, graph *g, type_cache *types)
{
	Onnx__GraphProto *gp = g->proto;
	size_t nouts, next_out = 0;
	bool nomem;
	output_at *outs = outputs_by_value(g, &nouts, &nomem);
	if (nomem)
		return false;
	bool ok = false;
	strmap existing;
	strmap_init(&existing, m->arena);
	for (size_t i = 0; i < gp->n_value_info; i++)
		if (gp->value_info[i]->name && strmap_put(&existing, gp->value_info[i]->name, (int32_t)i) == -2)
			goto done;
	/* Most graphs come without value_info (inference is what adds it): then no name
	 * needs looking up. */
	bool listed = gp->n_value_info > 0;
	/* How many entries are new: at most every value a node produces (graph outputs
	 * among them get none), counted by the loader, or a walk over the whole value
	 * table to find out. */
	size_t fresh = (size_t)g->nproduced;
	if (listed) {
		fresh = 0;
		for (int32_t i = 0; i < g->nvalues; i++)
			fresh += g->values[i].origin == VAL_NODE && !g->values[i].is_output &&
				 strmap_get(&existing, g->values[i].name) < 0;
	}
	new_entries e;
	if (!entries_new(m, g, fresh, &e))
		goto done;
	for (int32_t i = 0; i < g->nvalues; i++) {
		value *v = &g->values[i];
		if (v->origin != VAL_NODE && !v->is_output)
			continue;
		bool skip;
		Onnx__TypeProto *tp = tensor_type_of(m, types, &v->ti, &skip);
		if (!tp && !skip)
			goto done;
		/* Inference found nothing to say: keep what the file declares, unless the
		 * declarations were to be ignored, or were written for an input shape since
		 * replaced (then they must not pass for results). */
		if (skip && !(m->ignore_declared && g == m->main) && !(v->x && v->x->declared_stale))
			continue;
		if (v->is_output) {
			while (next_out < nouts && outs[next_out].id < i)
				next_out++;
			for (; next_out < nouts && outs[next_out].id == i; next_out++)
				gp->output[outs[next_out].k]->type = tp;
			continue;
		}
		int32_t at = listed ? strmap_get(&existing, v->name) : -1;
		if (at >= 0) {
			gp->value_info[at]->type = tp;
			continue;
		}
		if (tp)
			entry_add(&e, gp, v->name, tp);
	}
	if (e.vis) {
		gp->value_info = e.vis;
		gp->n_value_info += e.used;
	}
	ok = true;
done:
	free(outs);
	return ok;
}

/* g->inputs is the GraphProto's input list, one for one (the loader made it so): an
 * input declared twice is one value at both places, and both get its type. */
bool annotate_overridden_inputs(osh_model *m)
{
	graph *g = m->main;
	Onnx__GraphProto *gp = g ? g->proto : NULL;
	size_t count = gp ? ((size_t)g->ninputs < gp->n_input ? (size_t)g->ninputs : gp->n_input) : 0;
	for (size_t k = 0; k < count; k++) {
		value *v = &g->values[g->inputs[k]];
		if (!v->x || !v->x->input_override || !v->x->declared || !gp->input[k]->name)
			continue;
		bool skip;
		Onnx__TypeProto *tp = emit_type_proto(m, v->x->declared, false, &skip);
		if (!tp && !skip)
			return false;
		if (tp)
			gp->input[k]->type = tp;
		m->modified |= tp != NULL;
	}
	return true;
}

/* Subgraphs nested deeper than this get no value_info: each level nests a graph three
 * messages deeper (node, attribute, graph) and a value_info's dims five more (value
 * info, type, tensor type, shape, dim; a sequence's two more), so at depth 30 a
 * written dim would sit past the 100 levels protobuf readers accept (onnx's C++
 * protobuf, and onnxshape's own loader: prescan.h), and the annotated model could
 * no longer be read. */
#define ANNOTATE_MAX_DEPTH 29
/* A graph at depth d sits 1 + 3d messages below the model; the deepest dim written
 * (value info, type, sequence, element, optional, element, tensor type, shape, dim)
 * nine below that. */
_Static_assert(1 + 3 * ANNOTATE_MAX_DEPTH + 9 <= PRESCAN_MAX_DEPTH,
	       "annotations must stay within the nesting the loader (and protobuf) reads");

osh_status annotate_model(osh_model *m, osh_error *err)
{
	if (!m->inferred)
		return error_set(err, OSH_ERR_INVALID, "%s: run inference before writing its results", m->path);
	/* Entries an earlier call left as names and types become messages first: they
	 * are the graph's own to this one. */
	if (!loader_build_value_info(m))
		return arena_error(m->arena, err, m->path, "writing value_info");
	size_t values = 0;
	for (int32_t i = 0; i < m->ngraphs; i++)
		values += (size_t)m->graphs[i]->nvalues;
	type_cache *types = type_cache_new(values); /* NULL: nothing is shared */
	bool ok = annotate_overridden_inputs(m);
	for (int32_t i = 0; i < m->ngraphs && ok; i++)
		ok = !m->graphs[i]->proto || m->graphs[i]->depth > ANNOTATE_MAX_DEPTH ||
		     annotate_graph(m, m->graphs[i], types);
	free(types);
	/* Over the budget is the budget's refusal, which names it and how to raise it
	 * (a Concat of 300k uses of one symbolic input writes a 300k-term size). */
	if (!ok)
		return arena_error(m->arena, err, m->path, "writing value_info");
	m->modified = true;
	return OSH_OK;
}
