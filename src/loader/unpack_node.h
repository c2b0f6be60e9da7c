/* unpack_node.h: one NodeProto message from its wire bytes, as protobuf-c unpacks it,
 * for the nodes an edit changes (see unpack_node.c).
 */
#ifndef OSH_LOADER_UNPACK_NODE_H
#define OSH_LOADER_UNPACK_NODE_H

#include "core/arena.h"
#include "onnx-ml.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The NodeProto in [p, p + len), in arena a, built here when *plain says the bytes
 * are a node this reader takes (names and scalar or list attributes only, no
 * unknown fields); NULL with *plain true when memory ran out, NULL with *plain
 * false when protobuf-c must unpack it. The bytes are not referenced afterwards. */
Onnx__NodeProto *unpack_node_plain(arena *a, const uint8_t *p, size_t len, bool *plain);

/* unpack_node_plain's message, or protobuf-c's (allocated in a) for other bytes.
 * NULL when memory ran out or protobuf-c refuses the bytes. */
Onnx__NodeProto *unpack_node(arena *a, const uint8_t *p, size_t len);

#endif
