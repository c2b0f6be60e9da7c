/* build_messages.c: see build_messages.h.
 *
 * Invariant: while m->src.wire_nodes.n > 0 the main GraphProto has no nodes and IR
 * node k is wire node k (until an edit's commit reorders the list: the IR is then
 * stale until the re-index); while m->src.wire_inits.n > 0 it has no initializers
 * and each is the init_view of the value of its name (loader/index.c builds them
 * so). A list with messages (wire_list.msg) holds every message its elements have,
 * the IR nodes' protos among them, so it never needs the IR to find one. protobuf-c
 * unpacks the same bytes the one-call unpack would have, so the messages are the
 * ones it would have built, but for weights pointing into the input.
 */
#include "loader/build_messages.h"
#include "loader/unpack_node.h"
#include "loader/unpack_split.h"
#include "loader/unpack_tensor.h"
#include "onnx-ml.pb-c.h"

#include <string.h>

static bool nodes(osh_model *m)
{
	Onnx__GraphProto *gp = m->proto->graph;
	graph *g = m->main;
	Onnx__NodeProto **v = arena_array(m->arena, m->src.wire_nodes.n, sizeof *v);
	if (!v)
		return false;
	ProtobufCAllocator *alloc = arena_protobuf_allocator(m->arena);
	const wire_list *w = &m->src.wire_nodes;
	for (size_t i = 0; i < w->n; i++) {
		/* The index may have stopped short of the last nodes (a malformed model). An
		 * edited list is its own record of its messages: the IR may be stale. */
		node *n = !w->msg && g && (int64_t)i < g->nnodes ? &g->nodes[i] : NULL;
		v[i] = w->msg && w->msg[i] ? (Onnx__NodeProto *)w->msg[i]
		       : n && n->proto	    ? n->proto
					    : onnx__node_proto__unpack(alloc, w->len[i], w->bytes + w->off[i]);
		if (!v[i])
			return false;
		if (n)
			n->proto = v[i];
	}
	gp->node = v;
	gp->n_node = m->src.wire_nodes.n;
	wire_list_clear(&m->src.wire_nodes);
	return true;
}

static bool initializers(osh_model *m)
{
	Onnx__GraphProto *gp = m->proto->graph;
	graph *g = m->main;
	const wire_list *w = &m->src.wire_inits;
	Onnx__TensorProto **v = arena_array(m->arena, w->n, sizeof *v);
	if (!v)
		return false;
	ProtobufCAllocator *alloc = arena_protobuf_allocator(m->arena);
	tensor_scratch scratch = {0};
	bool ok = true;
	for (size_t i = 0; i < w->n && ok; i++) {
		bool aliased;
		v[i] = w->msg && w->msg[i] ? (Onnx__TensorProto *)w->msg[i]
					   : unpack_tensor(alloc, w->bytes + w->off[i], w->len[i], &scratch, &aliased);
		ok = v[i] != NULL;
		/* The value it defined: the last of its name gives the data, as the index
		 * decided (ONNX Runtime's choice). */
		int32_t id = ok && g && v[i]->name ? strmap_get(&g->names, v[i]->name) : -1;
		if (id >= 0 && g->values[id].init_view) {
			value_extra *x = value_extra_need(m->arena, &g->values[id]);
			ok = x != NULL;
			if (x)
				x->init = v[i];
		}
	}
	tensor_scratch_free(&scratch);
	if (!ok)
		return false;
	gp->initializer = v;
	gp->n_initializer = w->n;
	wire_list_clear(&m->src.wire_inits);
	/* They are messages now, which the summary counts as such. */
	m->src.wire_init_stats = (tensor_stats){0};
	return true;
}

bool loader_build_value_info(osh_model *m)
{
	const vi_list *l = &m->pending.value_info;
	if (!l->n || !m->proto || !m->proto->graph)
		return true;
	Onnx__GraphProto *gp = m->proto->graph;
	Onnx__ValueInfoProto **v = arena_array(m->arena, gp->n_value_info + l->n, sizeof *v);
	Onnx__ValueInfoProto *pool = arena_array(m->arena, l->n, sizeof *pool);
	if (!v || !pool)
		return false;
	if (gp->n_value_info)
		memcpy(v, gp->value_info, gp->n_value_info * sizeof *v);
	for (size_t i = 0; i < l->n; i++) {
		onnx__value_info_proto__init(&pool[i]);
		pool[i].name = (char *)l->names[i];
		pool[i].type = l->types[i];
		v[gp->n_value_info + i] = &pool[i];
	}
	gp->value_info = v;
	gp->n_value_info += l->n;
	m->pending.value_info = (vi_list){0};
	return true;
}

bool loader_build_messages(osh_model *m)
{
	if (!m->proto || !m->proto->graph)
		return true;
	return (!m->src.wire_nodes.n || nodes(m)) && (!m->src.wire_inits.n || initializers(m)) &&
	       loader_build_value_info(m);
}

bool loader_keep_node_messages(osh_model *m)
{
	wire_list *w = &m->src.wire_nodes;
	graph *g = m->main;
	if (w->msg || !w->n || !g)
		return true;
	/* Every message the nodes have already (the index unpacked those it does not
	 * decode, and their subgraphs are messages inside them), so that the list alone
	 * says which are messages; none, and it has none. */
	int32_t k = 0;
	while (k < g->nnodes && (size_t)k < w->n && !g->nodes[k].proto)
		k++;
	if (k == g->nnodes || (size_t)k == w->n)
		return true;
	w->msg = arena_zalloc(m->arena, w->n * sizeof *w->msg);
	if (!w->msg)
		return false;
	for (; k < g->nnodes && (size_t)k < w->n; k++)
		if (g->nodes[k].proto)
			w->msg[k] = &g->nodes[k].proto->base;
	return true;
}

struct Onnx__NodeProto *loader_node_message(osh_model *m, int32_t ni)
{
	wire_list *w = &m->src.wire_nodes;
	graph *g = m->main;
	if (!g || ni < 0 || ni >= g->nnodes || (size_t)ni >= w->n)
		return NULL;
	if (!loader_keep_node_messages(m) ||
	    (!w->msg && !(w->msg = arena_zalloc(m->arena, w->n * sizeof *w->msg))))
		return NULL;
	if (!w->msg[ni]) {
		Onnx__NodeProto *np = unpack_node(m->arena, w->bytes + w->off[ni], w->len[ni]);
		if (!np)
			return NULL;
		w->msg[ni] = &np->base;
		g->nodes[ni].proto = np;
	}
	return (Onnx__NodeProto *)w->msg[ni];
}
