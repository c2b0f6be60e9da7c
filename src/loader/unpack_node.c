/* unpack_node.c: a NodeProto message built from its wire bytes without protobuf-c's
 * descriptor walk (see unpack_node.h).
 *
 * An edit needs the message of every node it changes, and protobuf-c's unpack
 * spends thousands of instructions on a node of a few names and two attributes
 * (a scan of every field, then a descriptor look-up and a switch per field). A node
 * of names and scalar or list attributes is built here in two passes, as protobuf-c
 * builds it: the first counts each repeated field's elements, the second fills
 * arrays of exactly that size in the order the elements come; a singular field
 * met twice keeps the last. Strings are NUL-terminated copies (an empty one is "",
 * not NULL); a bytes field or element of no bytes has a NULL data pointer and
 * length 0, as protobuf-c leaves it; a float is read from 4 little-endian bytes;
 * an int64 is the varint's 64 bits, an enum its low 32 bits.
 *
 * What it takes: NodeProto input (1), output (2), name (3), op_type (4), attribute
 * (5), doc_string (6), domain (7); AttributeProto name (1), f (2), i (3), s (4),
 * floats (7) and ints (8) one element per key, strings (9), doc_string (13), type
 * (20), ref_attr_name (21), each with its schema's wire type. Anything else (an
 * unknown field, which protobuf-c keeps; a packed list; an attribute holding a
 * tensor, graph or type; a wire type the schema does not give the field; a schema
 * with other fields) goes to protobuf-c.
 *
 * Invariant: the message is field for field the one protobuf-c would unpack from
 * the same bytes, allocated in the same arena (protobuf-c's allocator there is the
 * arena's).
 */
#include "loader/unpack_node.h"
#include "loader/wire.h"
#include "loader/node_fields.h"

#include <string.h>


/* The fields of NodeProto and AttributeProto in the schema this reader knows. */
#define NODE_FIELDS 7
#define ATTR_FIELDS 18

typedef struct attr_count {
	size_t floats, ints, strings;
} attr_count;

/* Whether field f of an AttributeProto is one read here, with its wire type; counts
 * the elements of the repeated ones. */
static bool attr_field_plain(const wire_field *f, attr_count *c)
{
	switch (f->number) {
	case ATTR_NAME:
	case ATTR_S:
	case ATTR_DOC:
	case ATTR_REF:
		return f->type == 2;
	case ATTR_STRINGS:
		c->strings++;
		return f->type == 2;
	case ATTR_F:
		return f->type == 5;
	case ATTR_FLOATS:
		c->floats++;
		return f->type == 5;
	case ATTR_I:
	case ATTR_TYPE:
		return f->type == 0;
	case ATTR_INTS:
		c->ints++;
		return f->type == 0;
	default:
		return false;
	}
}

static bool attr_plain(const uint8_t *p, size_t start, size_t end, attr_count *c)
{
	for (size_t pos = start; pos < end;) {
		wire_field f;
		if (!wire_next(p, end, &pos, &f) || !attr_field_plain(&f, c))
			return false;
	}
	return true;
}

static char *str_of(arena *a, const uint8_t *p, const wire_field *f)
{
	return arena_strndup(a, (const char *)p + f->payload, f->len);
}

static bool bytes_of(arena *a, const uint8_t *p, const wire_field *f, ProtobufCBinaryData *out)
{
	out->len = f->len;
	out->data = NULL;
	if (!f->len)
		return true;
	out->data = arena_alloc(a, f->len);
	if (!out->data)
		return false;
	memcpy(out->data, p + f->payload, f->len);
	return true;
}

static float f32_of(const uint8_t *p, const wire_field *f)
{
	const uint8_t *b = p + f->payload;
	uint32_t bits = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	float v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

/* Fills a (initialized) from the attribute in [start, end), counted by attr_plain. */
static bool fill_attr(arena *ar, const uint8_t *p, size_t start, size_t end, const attr_count *c,
		      Onnx__AttributeProto *a)
{
	if ((c->floats && !(a->floats = arena_array(ar, c->floats, sizeof *a->floats))) ||
	    (c->ints && !(a->ints = arena_array(ar, c->ints, sizeof *a->ints))) ||
	    (c->strings && !(a->strings = arena_array(ar, c->strings, sizeof *a->strings))))
		return false;
	for (size_t pos = start; pos < end;) {
		wire_field f;
		if (!wire_next(p, end, &pos, &f)) /* read by attr_plain: it does not fail */
			return false;
		switch (f.number) {
		case ATTR_NAME:
			if (!(a->name = str_of(ar, p, &f)))
				return false;
			break;
		case ATTR_F:
			a->has_f = 1, a->f = f32_of(p, &f);
			break;
		case ATTR_I:
			a->has_i = 1, a->i = (int64_t)f.value;
			break;
		case ATTR_S:
			a->has_s = 1;
			if (!bytes_of(ar, p, &f, &a->s))
				return false;
			break;
		case ATTR_FLOATS:
			a->floats[a->n_floats++] = f32_of(p, &f);
			break;
		case ATTR_INTS:
			a->ints[a->n_ints++] = (int64_t)f.value;
			break;
		case ATTR_STRINGS:
			if (!bytes_of(ar, p, &f, &a->strings[a->n_strings++]))
				return false;
			break;
		case ATTR_DOC:
			if (!(a->doc_string = str_of(ar, p, &f)))
				return false;
			break;
		case ATTR_TYPE:
			a->has_type = 1, a->type = (Onnx__AttributeProto__AttributeType)(int32_t)(uint32_t)f.value;
			break;
		default: /* ATTR_REF: attr_field_plain took no other */
			if (!(a->ref_attr_name = str_of(ar, p, &f)))
				return false;
			break;
		}
	}
	return true;
}

static bool schema_known(void)
{
	return onnx__node_proto__descriptor.n_fields == NODE_FIELDS &&
	       onnx__attribute_proto__descriptor.n_fields == ATTR_FIELDS;
}

/* Whether the node in [0, len) is one this reader takes; counts its repeated fields. */
static bool node_plain(const uint8_t *p, size_t len, size_t *nin, size_t *nout, size_t *nattr)
{
	for (size_t pos = 0; pos < len;) {
		wire_field f;
		if (!wire_next(p, len, &pos, &f) || f.type != 2 || f.number < NODE_INPUT || f.number > NODE_DOMAIN)
			return false;
		*nin += f.number == NODE_INPUT;
		*nout += f.number == NODE_OUTPUT;
		if (f.number == NODE_ATTRIBUTE) {
			attr_count c = {0};
			if (!attr_plain(p, f.payload, f.payload + f.len, &c))
				return false;
			++*nattr;
		}
	}
	return true;
}

static bool fill_node(arena *ar, const uint8_t *p, size_t len, Onnx__NodeProto *n)
{
	for (size_t pos = 0; pos < len;) {
		wire_field f;
		if (!wire_next(p, len, &pos, &f)) /* read by node_plain: it does not fail */
			return false;
		char **one = NULL;
		switch (f.number) {
		case NODE_INPUT:
			if (!(n->input[n->n_input++] = str_of(ar, p, &f)))
				return false;
			continue;
		case NODE_OUTPUT:
			if (!(n->output[n->n_output++] = str_of(ar, p, &f)))
				return false;
			continue;
		case NODE_ATTRIBUTE: {
			Onnx__AttributeProto *a = arena_alloc(ar, sizeof *a);
			attr_count c = {0};
			if (!a)
				return false;
			onnx__attribute_proto__init(a);
			attr_plain(p, f.payload, f.payload + f.len, &c);
			if (!fill_attr(ar, p, f.payload, f.payload + f.len, &c, a))
				return false;
			n->attribute[n->n_attribute++] = a;
			continue;
		}
		case NODE_NAME:
			one = &n->name;
			break;
		case NODE_OP_TYPE:
			one = &n->op_type;
			break;
		case NODE_DOC:
			one = &n->doc_string;
			break;
		default: /* NODE_DOMAIN */
			one = &n->domain;
			break;
		}
		if (!(*one = str_of(ar, p, &f)))
			return false;
	}
	return true;
}

Onnx__NodeProto *unpack_node_plain(arena *ar, const uint8_t *p, size_t len, bool *plain)
{
	size_t nin = 0, nout = 0, nattr = 0;
	*plain = schema_known() && node_plain(p, len, &nin, &nout, &nattr);
	if (!*plain)
		return NULL;
	Onnx__NodeProto *n = arena_alloc(ar, sizeof *n);
	if (!n)
		return NULL;
	onnx__node_proto__init(n);
	if ((nin && !(n->input = arena_array(ar, nin, sizeof *n->input))) ||
	    (nout && !(n->output = arena_array(ar, nout, sizeof *n->output))) ||
	    (nattr && !(n->attribute = arena_array(ar, nattr, sizeof *n->attribute))))
		return NULL;
	return fill_node(ar, p, len, n) ? n : NULL;
}

Onnx__NodeProto *unpack_node(arena *ar, const uint8_t *p, size_t len)
{
	bool plain;
	Onnx__NodeProto *n = unpack_node_plain(ar, p, len, &plain);
	if (plain)
		return n;
	return onnx__node_proto__unpack(arena_protobuf_allocator(ar), len, p);
}
