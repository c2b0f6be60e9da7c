/* build_messages.h: the main graph's NodeProtos and TensorProtos that a split load left
 * in wire bytes (unpack_split.c), built when messages are needed: one node at a time
 * to edit it (the rewrite passes, through emit/edit.c), or all of them to pack the
 * model into one buffer (osh_model_pack, the plain write). A streamed write does not
 * need them (emit/pack_stream.c writes the bytes). The same for the value_info
 * entries annotation adds to the main graph (m->pending.value_info).
 */
#ifndef OSH_LOADER_BUILD_MESSAGES_H
#define OSH_LOADER_BUILD_MESSAGES_H

#include "core/model.h"

/* Unpacks, in file order, each main-graph node that decode_node.c read from its bytes
 * (a node the index unpacked keeps its message) into the GraphProto's node list and
 * the IR nodes' proto, and each initializer into the GraphProto's initializer list
 * and its value's init (big weights pointing into the input). Nothing to do when
 * there are none; empties m->src.wire_nodes and m->src.wire_inits. False when memory
 * ran out. */
bool loader_build_messages(osh_model *m);
/* The value_info entries annotation left as names and types
 * (m->pending.value_info), as ValueInfoProto messages after the main graph's own;
 * loader_build_messages does this too. Empties m->pending.value_info. False when memory
 * ran out. */
bool loader_build_value_info(osh_model *m);
/* The message of the main graph's node ni while the nodes are wire bytes
 * (m->src.wire_nodes.n > 0, the IR current): unpacked from its bytes the first
 * time, kept in the list's messages (wire_list.msg) and as the IR node's proto. An
 * edit needs messages only for the nodes it changes: the others stay bytes, which
 * the re-index decodes and the writer copies. NULL when memory ran out. */
struct Onnx__NodeProto *loader_node_message(osh_model *m, int32_t ni);
/* Records in the main graph's wire list (wire_list.msg) the messages its nodes
 * already have (those the index unpacked: their subgraphs are messages inside
 * them, which an edit may have changed), before the list is reordered or the
 * model re-indexed from it. False when memory ran out. */
bool loader_keep_node_messages(osh_model *m);

#endif
