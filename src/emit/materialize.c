/* materialize.c: see materialize.h.
 *
 * Invariant: while m->lazy.n > 0 the main GraphProto has no nodes and IR node k is
 * lazy node k (loader/index.c builds them so); protobuf-c unpacks the same bytes the
 * one-call unpack would have, so the messages are the ones it would have built.
 */
#include "emit/materialize.h"
#include "onnx-ml.pb-c.h"

bool emit_materialize(osh_model *m)
{
	if (!m->lazy.n)
		return true;
	Onnx__GraphProto *gp = m->proto->graph;
	graph *g = m->main;
	Onnx__NodeProto **v = arena_array(m->arena, m->lazy.n, sizeof *v);
	if (!v)
		return false;
	ProtobufCAllocator *alloc = arena_protobuf_allocator(m->arena);
	for (size_t i = 0; i < m->lazy.n; i++) {
		/* The index may have stopped short of the last nodes (a malformed model). */
		node *n = g && (int64_t)i < g->nnodes ? &g->nodes[i] : NULL;
		v[i] = n && n->proto ? n->proto
				     : onnx__node_proto__unpack(alloc, m->lazy.len[i], m->lazy.bytes + m->lazy.off[i]);
		if (!v[i])
			return false;
		if (n)
			n->proto = v[i];
	}
	gp->node = v;
	gp->n_node = m->lazy.n;
	m->lazy = (wire_nodes){0};
	return true;
}
