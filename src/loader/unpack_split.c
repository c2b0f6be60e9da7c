/* unpack_split.c: unpacks a model in pieces (see unpack_split.h): the main graph's
 * nodes and initializers are cut out of the bytes given to protobuf-c.
 *
 * Nodes: protobuf-c builds a message, a C string per name and an AttributeProto per
 * attribute for each node, several hundred bytes where the file spends fifty; the
 * index needs none of that for a plain node. The main graph's nodes are therefore
 * kept as wire bytes, in the input like the initializers below when they are in one
 * stretch (else copied together: see interleaved), and decode_node.c reads them
 * straight into the IR; a node is unpacked by protobuf-c only when the index meets
 * one it does not decode, or when the model is rewritten or packed (build_messages.c).
 *
 * Initializers: a TensorProto costs protobuf-c over 200 bytes before its name, dims
 * and data, and an external one five more messages for its location, offset and
 * length: more than the rest of a CNN's index. They stay in the input, which the
 * model keeps (mapped or copied) until it is freed: the index unpacks each into
 * scratch memory to check and view it (index.c), and only a rewrite or a packing
 * writer makes them messages of the model for good.
 *
 * The result is the message protobuf-c would have built in one call, less those two
 * fields: a GraphProto's nodes and initializers are its field-1 and field-5 entries
 * in order, each parsed from its own bytes, and cutting them out leaves every other
 * field as it was.
 *
 * Invariant: the input was pre-scanned (prescan.c): the walk here only needs to
 * find fields, and anything it does not expect (several graph fields, which protobuf
 * merges) sends the caller to the plain one-call unpack.
 */
#include "loader/unpack_split.h"
#include "loader/wire.h"

#include <stdlib.h>
#include <string.h>

typedef wire_field span;

/* The graph's node (1) and initializer (5) entries, when the outline did not record
 * them. SPLIT_OK, SPLIT_NOT_USED for an unexpected wire type, SPLIT_NOMEM. */
static split_result collect(const uint8_t *data, const span *gfield, prescan_spans *nodes, prescan_spans *inits)
{
	size_t gend = gfield->payload + gfield->len;
	for (size_t pos = gfield->payload; pos < gend;) {
		span s;
		if (!wire_next(data, gend, &pos, &s))
			return SPLIT_NOT_USED;
		if (s.number != 1 && s.number != 5)
			continue;
		if (s.type != 2)
			return SPLIT_NOT_USED;
		if (!prescan_spans_add(s.number == 1 ? nodes : inits, s.start, s.payload, s.end))
			return SPLIT_NOMEM;
	}
	return SPLIT_OK;
}

/* Each entry's payload extent, in the arena; `copy`: the bytes too, one after
 * another (else `bytes` is the input, which outlives the list). `take`: l's own
 * arrays become the list's (l is an outline's: see unpack_split.h), when the bytes
 * are not copied. */
static bool keep(const uint8_t *data, prescan_spans *l, bool copy, bool take, ProtobufCAllocator *alloc,
		 wire_list *out)
{
	if (take && !copy && l->n) {
		*out = (wire_list){.bytes = data, .off = l->off, .len = l->len, .n = l->n, .tight = !l->loose,
				   .shortest_heads = !l->loose, .owns = true};
		l->given = true;
		return true;
	}
	size_t total = 0;
	for (size_t k = 0; copy && k < l->n; k++)
		total += l->len[k];
	uint8_t *bytes = copy ? alloc->alloc(alloc->allocator_data, total ? total : 1) : NULL;
	size_t size = (l->n ? l->n : 1) * sizeof(uint32_t);
	uint32_t *off = alloc->alloc(alloc->allocator_data, size);
	uint32_t *len = alloc->alloc(alloc->allocator_data, size);
	if ((copy && !bytes) || !off || !len)
		return false;
	if (l->n) /* an empty list may have no arrays, and memcpy takes no NULL */
		memcpy(len, l->len, l->n * sizeof *len);
	if (l->n && !copy)
		memcpy(off, l->off, l->n * sizeof *off);
	for (size_t k = 0, w = 0; copy && k < l->n; k++) {
		memcpy(bytes + w, data + l->off[k], l->len[k]);
		off[k] = (uint32_t)w; /* a model is under 2 GiB: offsets fit */
		w += l->len[k];
	}
	*out = (wire_list){.bytes = copy ? bytes : data, .off = off, .len = len, .n = l->n, .tight = !copy && !l->loose,
			   .shortest_heads = !copy && !l->loose};
	return true;
}

void wire_list_clear(wire_list *w)
{
	if (w->owns)
		free((void *)w->off), free((void *)w->len);
	*w = (wire_list){0};
}

/* Whether an initializer sits between the first node and the last. The index reads
 * the nodes' bytes three times (to count outputs, to decode, to resolve inputs):
 * in place, nodes spread among the weights would page the whole file in each time,
 * so those are copied together; nodes in one stretch, as onnx.save writes them, are
 * read where they are. */
static bool interleaved(const prescan_spans *nodes, const prescan_spans *inits)
{
	if (!nodes->n)
		return false;
	size_t first = nodes->start[0], last = prescan_spans_end(nodes, nodes->n - 1);
	for (size_t k = 0; k < inits->n; k++)
		if (inits->start[k] > first && inits->start[k] < last)
			return true;
	return false;
}

split_result unpack_split(const uint8_t *data, size_t size, prescan_outline_result *outline,
			  ProtobufCAllocator *alloc, Onnx__ModelProto **out, wire_list *nodes_out, wire_list *inits_out)
{
	*out = NULL;
	*nodes_out = (wire_list){0};
	*inits_out = (wire_list){0};
	span g = {0};
	if (!wire_find_one(data, 0, size, 7, &g)) /* the model's graph, once */
		return SPLIT_NOT_USED;
	prescan_spans own[2] = {{0}};
	prescan_spans *nodes = &own[0], *inits = &own[1];
	split_result r = SPLIT_OK;
	if (outline && outline->spans)
		nodes = &outline->nodes, inits = &outline->inits;
	else
		r = collect(data, &g, &own[0], &own[1]);
	if (r != SPLIT_OK || (!nodes->n && !inits->n)) {
		prescan_spans_free(&own[0]), prescan_spans_free(&own[1]);
		return r != SPLIT_OK ? r : SPLIT_NOT_USED;
	}
	/* The model without them: the graph's length prefix is rewritten, nothing else.
	 * The two lists are merged back into file order to copy the gaps between. */
	size_t cut = 0;
	for (size_t k = 0; k < nodes->n; k++)
		cut += prescan_spans_end(nodes, k) - nodes->start[k];
	for (size_t k = 0; k < inits->n; k++)
		cut += prescan_spans_end(inits, k) - inits->start[k];
	size_t gend = g.payload + g.len;
	size_t glen = g.len - cut;
	uint8_t lenbuf[10];
	size_t lenw = wire_put_varint(lenbuf, glen);
	size_t rest = size - g.end;
	size_t keylen = 0;
	{
		size_t pos = g.start;
		uint64_t key;
		wire_varint(data, size, &pos, &key);
		keylen = pos - g.start;
	}
	size_t total = g.start + keylen + lenw + glen + rest;
	uint8_t *b = malloc(total ? total : 1);
	if (!b) {
		prescan_spans_free(&own[0]), prescan_spans_free(&own[1]);
		return SPLIT_NOMEM;
	}
	size_t w = 0;
	memcpy(b, data, g.start + keylen), w = g.start + keylen;
	memcpy(b + w, lenbuf, lenw), w += lenw;
	size_t from = g.payload;
	for (size_t i = 0, j = 0; i < nodes->n || j < inits->n;) {
		bool node_first = j == inits->n || (i < nodes->n && nodes->start[i] < inits->start[j]);
		size_t start = node_first ? nodes->start[i] : inits->start[j];
		size_t end = node_first ? prescan_spans_end(nodes, i++) : prescan_spans_end(inits, j++);
		memcpy(b + w, data + from, start - from), w += start - from;
		from = end;
	}
	memcpy(b + w, data + from, gend - from), w += gend - from;
	memcpy(b + w, data + g.end, rest), w += rest;
	Onnx__ModelProto *m = onnx__model_proto__unpack(alloc, w, b);
	free(b);
	bool take = nodes != &own[0];
	bool ok = m && m->graph && !m->graph->n_initializer && !m->graph->n_node &&
		  keep(data, nodes, interleaved(nodes, inits), take, alloc, nodes_out) &&
		  keep(data, inits, false, take, alloc, inits_out);
	prescan_spans_free(&own[0]), prescan_spans_free(&own[1]);
	if (!ok)
		return SPLIT_FAILED;
	*out = m;
	return SPLIT_OK;
}
