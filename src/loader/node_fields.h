/* node_fields.h: the field numbers of NodeProto and AttributeProto (onnx.proto),
 * which the node reader (unpack_node.c) and the node packer (emit/pack_node.c) both
 * walk by hand.
 */
#ifndef OSH_LOADER_NODE_FIELDS_H
#define OSH_LOADER_NODE_FIELDS_H

enum {
	NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_NAME = 3, NODE_OP_TYPE = 4, NODE_ATTRIBUTE = 5, NODE_DOC = 6,
	NODE_DOMAIN = 7,
};
enum {
	ATTR_NAME = 1, ATTR_F = 2, ATTR_I = 3, ATTR_S = 4, ATTR_FLOATS = 7, ATTR_INTS = 8, ATTR_STRINGS = 9,
	ATTR_DOC = 13, ATTR_TYPE = 20, ATTR_REF = 21,
};

#endif
