/* pack_node.h: packing a plain NodeProto without protobuf-c's descriptor walk.
 *
 * The bytes are exactly protobuf_c_message_pack's, and the sizes
 * protobuf_c_message_get_packed_size's; pack_stream.c uses them for the nodes a
 * rewrite made or changed.
 */
#ifndef OSH_EMIT_PACK_NODE_H
#define OSH_EMIT_PACK_NODE_H

#include "onnx-ml.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether this build's NodeProto and AttributeProto have exactly the fields
 * pack_node writes, with its encodings. Constant for a build; false sends every
 * node to protobuf-c. */
bool pack_node_schema(void);

/* Whether msg is a NodeProto pack_node packs: no unknown fields in it or its
 * attributes, and no attribute holding a tensor, graph, sparse tensor or type. */
bool pack_node_plain(const ProtobufCMessage *msg);

/* The packed size of n (pack_node_plain). */
size_t pack_node_size(const Onnx__NodeProto *n);

/* Packs n (pack_node_plain) into out, pack_node_size(n) bytes; returns that size. */
size_t pack_node(const Onnx__NodeProto *n, uint8_t *out);

#endif
