/* materialize.h: the main graph's NodeProtos, built from the bytes a split load kept
 * (loader/unpack_split.c) when messages are needed: to edit them (the rewrite pass)
 * or to pack them (a write of a changed model).
 */
#ifndef OSH_EMIT_MATERIALIZE_H
#define OSH_EMIT_MATERIALIZE_H

#include "core/model.h"

/* Unpacks each main-graph node that decode_node.c read from its bytes (a node the
 * index unpacked keeps its message), in file order, into the GraphProto's node list
 * and the IR nodes' proto. Nothing to do when m->lazy is empty; empties it. False
 * when memory ran out. */
bool emit_materialize(osh_model *m);

#endif
