/* unpack_split.c: unpacks a model in pieces (see unpack_split.h): the main graph's
 * nodes and initializers are cut out of the bytes given to protobuf-c.
 *
 * Nodes: protobuf-c builds a message, a C string per name and an AttributeProto per
 * attribute for each node, several hundred bytes where the file spends fifty; the
 * index needs none of that for a plain node. The main graph's nodes are therefore
 * kept as their wire bytes (copied into the arena, in file order) and decode_node.c
 * reads them straight into the IR; a node is unpacked by protobuf-c only when the
 * index meets one it does not decode, or when the model is rewritten or written
 * (index_materialize).
 *
 * Weights:
 * protobuf-c copies every bytes field on unpack, so unpacking a model in one call
 * needs the whole input and the whole output at once: twice the weights. Instead the
 * main graph's initializers (where inline weights live) are cut out of the input: the
 * rest of the model (nodes, types, everything else) is unpacked from a small copy of
 * the bytes without them, then each initializer is unpacked from its own slice of the
 * input, in file order, and the pages of input behind it are unmapped at once. The
 * result is the message protobuf-c would have built in one call: a GraphProto's
 * initializers are its field-5 entries in order, each a TensorProto parsed from its
 * own bytes, and cutting them out leaves every other field as it was.
 *
 * Big weights are not even copied when the caller allows it (alias_ok: the input
 * lives as long as the model): the TensorProto is unpacked without its raw_data and
 * raw_data then points at the bytes in the input, which stay mapped while the pages
 * around them go. The model then costs the file once, not twice, and the kernel no
 * longer zeroes fresh pages for a copy (that zeroing was most of loading's time).
 *
 * Invariant: the input was pre-scanned (prescan.c): the walk here only needs to
 * find fields, and anything it does not expect (several graph fields, which protobuf
 * merges) sends the caller to the plain one-call unpack. Cutting nodes out changes
 * nothing protobuf-c would build: a GraphProto's nodes are its field-1 entries in
 * order, each parsed from its own bytes.
 */
#define _GNU_SOURCE
#include "loader/unpack_split.h"
#include "loader/wire.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Input is given back in steps of at least this much: one munmap per initializer
 * would be a system call per tensor. */
#define RELEASE_STEP ((size_t)8 << 20)
/* raw_data of a page or more is not copied but pointed to in the input (alias_ok):
 * mapped, its pages are not even read. */
#define ALIAS_MIN ((size_t)4 << 10)

typedef wire_field span;

static size_t put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

/* The model-level graph field (7) when there is exactly one; false otherwise. */
static bool find_graph(const uint8_t *data, size_t size, span *gfield)
{
	size_t pos = 0;
	int count = 0;
	while (pos < size) {
		span s;
		if (!wire_next(data, size, &pos, &s))
			return false;
		if (s.number == 7) {
			if (s.type != 2)
				return false;
			*gfield = s;
			count++;
		}
	}
	return count == 1;
}

/* Unmaps the whole pages inside [in->released, upto) when they are at least `step`
 * bytes, and moves in->released to upto. Pages at the edges stay: they may hold
 * bytes still in use (aliased weights). */
static void release_to(split_input *in, size_t upto, size_t step)
{
	if (!in->releasable || upto <= in->released)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t from = (in->released + page - 1) / page * page, end = upto / page * page;
	if (end < from + step)
		return;
	if (end > from)
		munmap(in->data + from, end - from);
	in->released = end;
}

/* The raw_data field (9) of the TensorProto in [s.payload, s.payload + s.len), when
 * it occurs exactly once and is length-delimited. */
static bool find_raw(const uint8_t *data, const span *s, span *raw)
{
	size_t end = s->payload + s->len;
	int count = 0;
	for (size_t pos = s->payload; pos < end;) {
		span f;
		if (!wire_next(data, end, &pos, &f))
			return false;
		if (f.number == 9) {
			if (f.type != 2)
				return false;
			*raw = f;
			count++;
		}
	}
	return count == 1;
}

/* Unpacks the initializer at s with its raw_data pointing into the input instead of
 * copied: the TensorProto is unpacked from its bytes without that field, which is
 * then set. NULL when protobuf-c refuses it or memory ran out. */
static Onnx__TensorProto *unpack_aliased(split_input *in, ProtobufCAllocator *alloc, const span *s,
					 const span *raw, uint8_t **tmp, size_t *tmp_cap)
{
	size_t cut = raw->end - raw->start, len = s->len - cut;
	if (len > *tmp_cap) {
		uint8_t *b = realloc(*tmp, len);
		if (!b)
			return NULL;
		*tmp = b, *tmp_cap = len;
	}
	size_t head = raw->start - s->payload;
	memcpy(*tmp, in->data + s->payload, head);
	memcpy(*tmp + head, in->data + raw->end, len - head);
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(alloc, len, *tmp);
	if (!t || t->has_raw_data)
		return NULL;
	t->has_raw_data = 1;
	t->raw_data.len = raw->len;
	t->raw_data.data = in->data + raw->payload;
	return t;
}

/* A growable list of spans (malloc: scratch for one call). */
typedef struct span_list {
	span *v;
	size_t n, cap;
} span_list;

static bool push(span_list *l, const span *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		span *grown = realloc(l->v, cap * sizeof *grown);
		if (!grown)
			return false;
		l->v = grown, l->cap = cap;
	}
	l->v[l->n++] = *s;
	return true;
}

/* The graph's node (1) and initializer (5) entries. SPLIT_OK, SPLIT_NOT_USED for an
 * unexpected wire type, SPLIT_NOMEM. */
static split_result collect(const uint8_t *data, const span *gfield, span_list *nodes, span_list *inits)
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
		if (!push(s.number == 1 ? nodes : inits, &s))
			return SPLIT_NOMEM;
	}
	return SPLIT_OK;
}

/* The nodes' bytes, copied into the arena one after another; each node's extent. */
static bool keep_nodes(const uint8_t *data, const span_list *nodes, ProtobufCAllocator *alloc, wire_nodes *out)
{
	size_t total = 0;
	for (size_t k = 0; k < nodes->n; k++)
		total += nodes->v[k].len;
	uint8_t *bytes = alloc->alloc(alloc->allocator_data, total ? total : 1);
	uint32_t *off = alloc->alloc(alloc->allocator_data, nodes->n * sizeof *off);
	uint32_t *len = alloc->alloc(alloc->allocator_data, nodes->n * sizeof *len);
	if (!bytes || !off || !len)
		return false;
	size_t w = 0;
	for (size_t k = 0; k < nodes->n; k++) {
		memcpy(bytes + w, data + nodes->v[k].payload, nodes->v[k].len);
		off[k] = (uint32_t)w; /* a model is under 2 GiB */
		len[k] = (uint32_t)nodes->v[k].len;
		w += nodes->v[k].len;
	}
	*out = (wire_nodes){.bytes = bytes, .off = off, .len = len, .n = nodes->n};
	return true;
}

split_result unpack_split(split_input *in, ProtobufCAllocator *alloc, Onnx__ModelProto **out, wire_nodes *nodes_out)
{
	*out = NULL;
	*nodes_out = (wire_nodes){0};
	const uint8_t *data = in->data;
	size_t size = in->size;
	span g = {0};
	if (!find_graph(data, size, &g))
		return SPLIT_NOT_USED;
	span_list nodes = {0}, inits = {0};
	split_result r = collect(data, &g, &nodes, &inits);
	if (r != SPLIT_OK || (!nodes.n && !inits.n)) {
		free(nodes.v), free(inits.v);
		return r != SPLIT_OK ? r : SPLIT_NOT_USED;
	}
	/* The model without them: the graph's length prefix is rewritten, nothing else.
	 * The two lists are merged back into file order to copy the gaps between. */
	size_t cut = 0;
	for (size_t k = 0; k < nodes.n; k++)
		cut += nodes.v[k].end - nodes.v[k].start;
	for (size_t k = 0; k < inits.n; k++)
		cut += inits.v[k].end - inits.v[k].start;
	size_t gend = g.payload + g.len;
	size_t glen = g.len - cut;
	uint8_t lenbuf[10];
	size_t lenw = put_varint(lenbuf, glen);
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
		free(nodes.v), free(inits.v);
		return SPLIT_NOMEM;
	}
	size_t w = 0;
	memcpy(b, data, g.start + keylen), w = g.start + keylen;
	memcpy(b + w, lenbuf, lenw), w += lenw;
	size_t from = g.payload;
	for (size_t i = 0, j = 0; i < nodes.n || j < inits.n;) {
		bool node_first = j == inits.n || (i < nodes.n && nodes.v[i].start < inits.v[j].start);
		const span *s = node_first ? &nodes.v[i++] : &inits.v[j++];
		memcpy(b + w, data + from, s->start - from), w += s->start - from;
		from = s->end;
	}
	memcpy(b + w, data + from, gend - from), w += gend - from;
	memcpy(b + w, data + g.end, rest), w += rest;
	Onnx__ModelProto *m = onnx__model_proto__unpack(alloc, w, b);
	free(b);
	if (!m || !m->graph || m->graph->n_initializer || m->graph->n_node || !keep_nodes(data, &nodes, alloc, nodes_out)) {
		free(nodes.v), free(inits.v);
		return SPLIT_FAILED;
	}
	free(nodes.v);
	size_t n = inits.n;
	Onnx__TensorProto **arr = alloc->alloc(alloc->allocator_data, (n ? n : 1) * sizeof *arr);
	if (!arr) {
		free(inits.v);
		return SPLIT_FAILED;
	}
	uint8_t *tmp = NULL;
	size_t tmp_cap = 0;
	for (size_t k = 0; k < n; k++) {
		span raw;
		if (in->alias_ok && find_raw(data, &inits.v[k], &raw) && raw.len >= ALIAS_MIN) {
			arr[k] = unpack_aliased(in, alloc, &inits.v[k], &raw, &tmp, &tmp_cap);
			/* Everything before the weights is unpacked and may go, in steps (a
			 * hole per tensor would split the mapping into as many areas); the
			 * weights stay, and so does a stretch too short to unmap. */
			release_to(in, raw.payload, RELEASE_STEP);
			in->released = raw.payload + raw.len;
			in->aliased = true;
		} else {
			arr[k] = onnx__tensor_proto__unpack(alloc, inits.v[k].len, data + inits.v[k].payload);
			release_to(in, inits.v[k].end, RELEASE_STEP);
		}
		if (!arr[k]) {
			free(tmp);
			free(inits.v);
			return SPLIT_FAILED;
		}
	}
	free(tmp);
	free(inits.v);
	m->graph->initializer = arr;
	m->graph->n_initializer = n;
	*out = m;
	return SPLIT_OK;
}
