/* pack_node.c: packs plain NodeProtos, byte for byte as protobuf-c does (see
 * pack_node.h).
 *
 * protobuf-c sizes and packs a message by walking its descriptor, field by field,
 * through a switch on every field's label and type: a rewrite that makes or changes
 * tens of thousands of nodes spends more on that walk than on its own work. A node
 * of names and scalar or list attributes is packed here by its struct's fields
 * instead, in the order protobuf-c writes them (known fields in field-number order;
 * here no unknown fields, which it writes last), with its encodings: a key as a
 * varint of number << 3 | wire type; a string as its length (a NULL element of a
 * repeated string as an empty one) and bytes; an optional field only when present
 * (a string not NULL, a scalar with its has_ flag); a float as 4 little-endian
 * bytes; an int64 as the varint of its two's complement, an enum as an int32 (a
 * negative one sign-extended to 10 bytes); repeated scalars unpacked, one key per
 * element (onnx.proto is proto2 and does not mark them packed).
 *
 * Invariant: pack_node_plain holds for every node given to the other two; anything
 * else (an attribute holding a tensor, graph or type, unknown fields, a schema whose
 * messages have fields beyond those written here) goes to protobuf-c.
 */
#include "emit/pack_node.h"
#include "loader/node_fields.h"

#include <string.h>

enum { WT_VARINT = 0, WT_FIXED32 = 5, WT_LEN = 2 };

/* The fields of NodeProto and AttributeProto this file writes all of (onnx.proto). */
#define NODE_FIELDS 7
#define ATTR_FIELDS 18

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

static size_t put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static size_t key_len(uint32_t number) { return varint_len((uint64_t)number << 3); }

static size_t put_key(uint8_t *out, uint32_t number, unsigned wt) { return put_varint(out, (uint64_t)number << 3 | wt); }

/* An int32 as protobuf-c writes it: negative ones as 64-bit two's complement. */
static uint64_t int32_bits(int32_t v) { return (uint64_t)(int64_t)v; }

static size_t str_field_len(uint32_t number, size_t len) { return key_len(number) + varint_len(len) + len; }

static size_t put_bytes(uint8_t *out, uint32_t number, const void *data, size_t len)
{
	size_t n = put_key(out, number, WT_LEN);
	n += put_varint(out + n, len);
	if (len)
		memcpy(out + n, data, len);
	return n + len;
}

static size_t put_fixed32(uint8_t *out, uint32_t number, float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	size_t n = put_key(out, number, WT_FIXED32);
	for (int i = 0; i < 4; i++)
		out[n++] = (uint8_t)(bits >> (8 * i));
	return n;
}

bool pack_node_schema(void)
{
	/* Repeated scalars are written unpacked: the schema must not ask otherwise. */
	const ProtobufCFieldDescriptor *ints =
		protobuf_c_message_descriptor_get_field(&onnx__attribute_proto__descriptor, ATTR_INTS);
	const ProtobufCFieldDescriptor *floats =
		protobuf_c_message_descriptor_get_field(&onnx__attribute_proto__descriptor, ATTR_FLOATS);
	return onnx__node_proto__descriptor.n_fields == NODE_FIELDS &&
	       onnx__attribute_proto__descriptor.n_fields == ATTR_FIELDS && ints && floats &&
	       !(ints->flags & PROTOBUF_C_FIELD_FLAG_PACKED) && !(floats->flags & PROTOBUF_C_FIELD_FLAG_PACKED);
}

static bool attr_plain(const Onnx__AttributeProto *a)
{
	return a && a->base.descriptor == &onnx__attribute_proto__descriptor && !a->base.n_unknown_fields && !a->t &&
	       !a->g && !a->sparse_tensor && !a->tp && !a->n_tensors && !a->n_graphs && !a->n_sparse_tensors &&
	       !a->n_type_protos;
}

bool pack_node_plain(const ProtobufCMessage *msg)
{
	if (msg->descriptor != &onnx__node_proto__descriptor || msg->n_unknown_fields)
		return false;
	const Onnx__NodeProto *n = (const Onnx__NodeProto *)msg;
	for (size_t i = 0; i < n->n_attribute; i++)
		if (!attr_plain(n->attribute[i]))
			return false;
	return true;
}

static size_t opt_str_len(uint32_t number, const char *s) { return s ? str_field_len(number, strlen(s)) : 0; }

static size_t strs_len(uint32_t number, char *const *s, size_t n)
{
	size_t total = n * key_len(number);
	for (size_t i = 0; i < n; i++) {
		size_t len = s[i] ? strlen(s[i]) : 0;
		total += varint_len(len) + len;
	}
	return total;
}

static size_t attr_size(const Onnx__AttributeProto *a)
{
	size_t n = opt_str_len(ATTR_NAME, a->name);
	if (a->has_f)
		n += key_len(ATTR_F) + 4;
	if (a->has_i)
		n += key_len(ATTR_I) + varint_len((uint64_t)a->i);
	if (a->has_s)
		n += str_field_len(ATTR_S, a->s.len);
	n += a->n_floats * (key_len(ATTR_FLOATS) + 4);
	n += a->n_ints * key_len(ATTR_INTS);
	for (size_t i = 0; i < a->n_ints; i++)
		n += varint_len((uint64_t)a->ints[i]);
	for (size_t i = 0; i < a->n_strings; i++)
		n += str_field_len(ATTR_STRINGS, a->strings[i].len);
	n += opt_str_len(ATTR_DOC, a->doc_string);
	if (a->has_type)
		n += key_len(ATTR_TYPE) + varint_len(int32_bits((int32_t)a->type));
	n += opt_str_len(ATTR_REF, a->ref_attr_name);
	return n;
}

size_t pack_node_size(const Onnx__NodeProto *n)
{
	size_t s = strs_len(NODE_INPUT, n->input, n->n_input) + strs_len(NODE_OUTPUT, n->output, n->n_output) +
		   opt_str_len(NODE_NAME, n->name) + opt_str_len(NODE_OP_TYPE, n->op_type);
	for (size_t i = 0; i < n->n_attribute; i++) {
		size_t a = attr_size(n->attribute[i]);
		s += key_len(NODE_ATTRIBUTE) + varint_len(a) + a;
	}
	return s + opt_str_len(NODE_DOC, n->doc_string) + opt_str_len(NODE_DOMAIN, n->domain);
}

static size_t put_opt_str(uint8_t *out, uint32_t number, const char *s)
{
	return s ? put_bytes(out, number, s, strlen(s)) : 0;
}

static size_t put_strs(uint8_t *out, uint32_t number, char *const *s, size_t count)
{
	size_t n = 0;
	for (size_t i = 0; i < count; i++)
		n += put_bytes(out + n, number, s[i], s[i] ? strlen(s[i]) : 0);
	return n;
}

static size_t put_attr(uint8_t *out, const Onnx__AttributeProto *a)
{
	size_t n = put_opt_str(out, ATTR_NAME, a->name);
	if (a->has_f)
		n += put_fixed32(out + n, ATTR_F, a->f);
	if (a->has_i) {
		n += put_key(out + n, ATTR_I, WT_VARINT);
		n += put_varint(out + n, (uint64_t)a->i);
	}
	if (a->has_s)
		n += put_bytes(out + n, ATTR_S, a->s.data, a->s.len);
	for (size_t i = 0; i < a->n_floats; i++)
		n += put_fixed32(out + n, ATTR_FLOATS, a->floats[i]);
	for (size_t i = 0; i < a->n_ints; i++) {
		n += put_key(out + n, ATTR_INTS, WT_VARINT);
		n += put_varint(out + n, (uint64_t)a->ints[i]);
	}
	for (size_t i = 0; i < a->n_strings; i++)
		n += put_bytes(out + n, ATTR_STRINGS, a->strings[i].data, a->strings[i].len);
	n += put_opt_str(out + n, ATTR_DOC, a->doc_string);
	if (a->has_type) {
		n += put_key(out + n, ATTR_TYPE, WT_VARINT);
		n += put_varint(out + n, int32_bits((int32_t)a->type));
	}
	return n + put_opt_str(out + n, ATTR_REF, a->ref_attr_name);
}

size_t pack_node(const Onnx__NodeProto *n, uint8_t *out)
{
	size_t k = put_strs(out, NODE_INPUT, n->input, n->n_input);
	k += put_strs(out + k, NODE_OUTPUT, n->output, n->n_output);
	k += put_opt_str(out + k, NODE_NAME, n->name);
	k += put_opt_str(out + k, NODE_OP_TYPE, n->op_type);
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		k += put_key(out + k, NODE_ATTRIBUTE, WT_LEN);
		/* Packed behind a length of one byte, which most attributes have; moved
		 * up behind a longer one (the bytes fit: pack_node_size counted it). */
		size_t body = put_attr(out + k + 1, a), head = varint_len(body);
		if (head > 1)
			memmove(out + k + head, out + k + 1, body);
		put_varint(out + k, body);
		k += head + body;
	}
	k += put_opt_str(out + k, NODE_DOC, n->doc_string);
	return k + put_opt_str(out + k, NODE_DOMAIN, n->domain);
}
