/* build_messages.h: the main graph's NodeProtos and TensorProtos that a split load left
 * in wire bytes (unpack_split.c), built when messages are needed: to edit them (the
 * rewrite pass) or to pack the model into one buffer (osh_model_pack). A streamed
 * write does not need them (emit/pack_stream.c writes the bytes). The same for the
 * value_info entries annotation adds to the main graph (m->pending.value_info).
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

#endif
