/* decode_node.h: a main-graph NodeProto read from its wire bytes into the IR, without
 * protobuf-c (see decode_node.c).
 */
#ifndef OSH_LOADER_DECODE_NODE_H
#define OSH_LOADER_DECODE_NODE_H

#include "core/model.h"
#include "loader/loader.h"

#include <stddef.h>
#include <stdint.h>

typedef enum decode_result {
	DECODE_OK,     /* n is filled; its proto stays NULL */
	DECODE_UNPACK, /* a node this reader leaves to protobuf-c: nothing was filled */
	DECODE_NOMEM,
} decode_result;

#define DECODE_RECENT 64

/* Scratch the caller keeps across nodes and frees with decode_scratch_free. */
typedef struct decode_scratch {
	const char **outs; /* the last node's output names */
	size_t cap;
	attr_presence *attrs; /* the last node's attributes, as the first pass found them */
	size_t attrs_cap;
	/* Strings interned lately (op types, domains, attribute names), by a hash of
	 * their length and end bytes: a graph has few of them, and a hit here costs a
	 * fraction of a probe of m->interned. An empty entry has key NULL. */
	struct {
		const char *key;
		size_t len;
	} recent[DECODE_RECENT];
} decode_scratch;

/* Reads the node in [p, p + len): name, op_type, domain ("ai.onnx" as ""),
 * attributes (attr_view, as view_attrs builds them from a NodeProto), the input and
 * output counts, and arrays for their ids (not filled). The output names are left in
 * s->outs[0 .. n->noutputs) ("" for an omitted output), copied into the arena; the
 * input names stay in the bytes, for decode_next_input. Nodes with attributes that hold
 * tensors, graphs or types, or with anything unexpected, are DECODE_UNPACK. */
decode_result decode_node(osh_model *m, node *n, const uint8_t *p, size_t len, decode_scratch *s);
void decode_scratch_free(decode_scratch *s);

/* The next input name of the node in [p, p + len) from *pos (0 to start): its bytes
 * and length (no NUL). False after the last. */
bool decode_next_input(const uint8_t *p, size_t len, size_t *pos, const char **name, size_t *name_len);

#endif
