/* decode_node.c: reads a NodeProto's wire bytes straight into the IR.
 *
 * Why: a model of a million nodes spent more memory, and with it more time (every
 * fresh page is zeroed by the kernel), on protobuf-c's NodeProtos than on anything
 * else: a message, a C string per name and a 248-byte AttributeProto per attribute.
 * The index needs a node's type, names and plain attributes, which fit in the IR as
 * it is; op types, domains and attribute names repeat across nodes and are stored
 * once (m->interned).
 *
 * What it reads: NodeProto input (1), output (2), name (3), op_type (4), attribute
 * (5), domain (7); AttributeProto name (1), f (2), i (3), s (4), floats (7, packed or
 * not), ints (8, packed or not), strings (9), type (20), ref_attr_name (21). Other
 * known fields (doc strings) and unknown ones are skipped: they stay in the bytes,
 * which are what a write packs (build_messages.c, emit/pack_stream.c). An attribute
 * holding a tensor, a graph, a sparse tensor or a type (or of such a type without
 * one), a type that is not an AttributeType, or a wire type the schema does not give
 * the field sends the node to protobuf-c, whose messages the index checks as before.
 * Singular fields met twice keep the last, as protobuf does; repeated ones add up in
 * order.
 *
 * Invariant: the bytes were pre-scanned (no NUL in a string, lengths within their
 * message), and the result is what view_attrs makes of protobuf-c's message.
 */
#include "core/grow.h"
#include "loader/decode_node.h"
#include "loader/loader.h"
#include "loader/wire.h"
#include "loader/wire_short.h"
#include "onnx-ml.pb-c.h"

#include <stdlib.h>
#include <string.h>

/* NodeProto and AttributeProto field numbers (onnx.proto). */
enum {
	NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_NAME = 3, NODE_OP_TYPE = 4, NODE_ATTRIBUTE = 5, NODE_DOMAIN = 7,
};
enum {
	ATTR_NAME = 1, ATTR_F = 2, ATTR_I = 3, ATTR_S = 4, ATTR_T = 5, ATTR_G = 6, ATTR_FLOATS = 7, ATTR_INTS = 8,
	ATTR_STRINGS = 9, ATTR_TENSORS = 10, ATTR_GRAPHS = 11, ATTR_TP = 14, ATTR_TYPE_PROTOS = 15, ATTR_TYPE = 20,
	ATTR_REF = 21, ATTR_SPARSE = 22, ATTR_SPARSES = 23,
};

/* The interned copy of [p, p + len) (m->interned), through s->recent. */
static const char *intern(osh_model *m, decode_scratch *s, const uint8_t *p, size_t len)
{
	size_t slot = len ? (len * 31 + p[0] * 7 + p[len - 1]) % DECODE_RECENT : 0;
	const char *k = s->recent[slot].key;
	if (k && s->recent[slot].len == len && !memcmp(k, p, len))
		return k; /* k holds len bytes and a NUL: it was stored with this length */
	if (strmap_getn(&m->interned, (const char *)p, len, &k) < 0) {
		char *c = arena_strndup(m->arena, (const char *)p, len);
		if (!c || !strmap_set(&m->interned, c, 0))
			return NULL;
		k = c;
	}
	s->recent[slot].key = k;
	s->recent[slot].len = len;
	return k;
}

static float read_f32(const uint8_t *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static size_t count_varints(const uint8_t *p, size_t start, size_t end)
{
	size_t n = 0;
	for (size_t i = start; i < end; i++)
		n += !(p[i] & 0x80);
	return n;
}

/* First pass over an attribute: counts, and whether this reader can take it.
 * *chars grows by the bytes its strings may need (each with its NUL). */
static bool scan_attr(const uint8_t *p, size_t start, size_t end, attr_presence *c, size_t *chars)
{
	*c = (attr_presence){0};
	for (size_t pos = start; pos < end;) {
		wire_field f;
		if (!wire_next_short(p, end, &pos, &f))
			return false;
		switch (f.number) {
		case ATTR_NAME:
			if (f.type != 2)
				return false;
			break;
		case ATTR_REF:
			if (f.type != 2)
				return false;
			*chars += f.len + 1;
			break;
		case ATTR_F:
			if (f.type != 5)
				return false;
			c->f = true;
			break;
		case ATTR_I:
			if (f.type != 0)
				return false;
			c->i = true;
			break;
		case ATTR_S:
			if (f.type != 2)
				return false;
			c->s = true;
			*chars += f.len + 1;
			break;
		case ATTR_FLOATS:
			if (f.type == 5)
				c->floats++;
			else if (f.type == 2 && f.len % 4 == 0)
				c->floats += f.len / 4;
			else
				return false;
			break;
		case ATTR_INTS:
			if (f.type == 0)
				c->ints++;
			else if (f.type == 2)
				c->ints += count_varints(p, f.payload, f.payload + f.len);
			else
				return false;
			break;
		case ATTR_STRINGS:
			if (f.type != 2)
				return false;
			c->strings++;
			*chars += f.len + 1;
			break;
		case ATTR_TYPE:
			if (f.type != 0)
				return false;
			c->has_type = true;
			c->type = (int32_t)f.value; /* an enum is an int32 on the wire */
			break;
		case ATTR_T:
		case ATTR_G:
		case ATTR_TENSORS:
		case ATTR_GRAPHS:
		case ATTR_TP:
		case ATTR_TYPE_PROTOS:
		case ATTR_SPARSE:
		case ATTR_SPARSES:
			return false; /* nested messages: protobuf-c's, checked by the index */
		default:
			break; /* doc_string, unknown fields */
		}
	}
	/* A type the enum does not know is reported by the index's check of the message:
	 * attr_type_of passes it through and the switch below refuses it, as it
	 * refuses every type but the ones listed (a lookup in protobuf-c's enum
	 * descriptor first cost a call per attribute and decided nothing more). */
	/* A type whose payload is a message (tensor, graph, type) but without that
	 * message: view_attrs gives it what the passes expect (a TYPE_PROTO's tp is
	 * never NULL), which this reader cannot build. */
	switch (attr_type_of(c)) {
	case AT_UNDEFINED:
	case AT_FLOAT:
	case AT_INT:
	case AT_STRING:
	case AT_FLOATS:
	case AT_INTS:
	case AT_STRINGS:
		return true;
	default:
		return false;
	}
}

/* The one block a node's arrays and strings are carved from (see decode_node):
 * `wide` for 8-byte aligned arrays, `chars` for strings. */
typedef struct carve {
	unsigned char *wide;
	char *chars;
} carve;

/* The bytes of the array an attribute of these counts gets (see fill_attr), a
 * multiple of 8 so the next array stays aligned. */
static size_t attr_array_bytes(const attr_presence *c)
{
	switch (attr_type_of(c)) {
	case AT_INTS:
		return (c->ints ? c->ints : 1) * sizeof(int64_t);
	case AT_FLOATS:
		return ((c->floats ? c->floats : 1) * sizeof(float) + 7) & ~(size_t)7;
	case AT_STRINGS:
		return (c->strings ? c->strings : 1) * sizeof(const char *);
	default:
		return 0;
	}
}

static void *take_wide(carve *k, size_t bytes)
{
	void *p = k->wide;
	k->wide += bytes;
	return p;
}

static const char *take_str(carve *k, const char *s, size_t n)
{
	char *p = k->chars;
	memcpy(p, s, n);
	p[n] = '\0';
	k->chars += n + 1;
	return p;
}

/* Second pass: fills v. Only the type's own payload is read, as view_attrs does:
 * the payload pointers share a union, so a string met on an attribute of another
 * type (protobuf keeps every field) must not land in it. The arrays and strings come
 * from k, which the first pass sized. */
static decode_result fill_attr(osh_model *m, decode_scratch *s, const uint8_t *p, size_t start, size_t end,
			       const attr_presence *c, attr_view *v, carve *k)
{
	/* Field by field, not as a compound literal: see value_new (index.c). */
	v->name = "";
	v->ref = NULL;
	v->s = NULL;
	v->i = 0;
	v->type = attr_type_of(c);
	v->f = 0;
	v->n = 0;
	/* No graph is read here. */
	v->graph_index = !(c->has_type && c->type) ? ATTR_UNTYPED : attr_fields_mixed(c) ? ATTR_MIXED : 0;
	int64_t *ints = NULL;
	float *floats = NULL;
	const char **strings = NULL;
	size_t bytes = attr_array_bytes(c);
	if (v->type == AT_INTS)
		ints = take_wide(k, bytes);
	else if (v->type == AT_FLOATS)
		floats = take_wide(k, bytes);
	else if (v->type == AT_STRINGS)
		strings = take_wide(k, bytes);
	size_t ni = 0, nf = 0, ns = 0;
	for (size_t pos = start; pos < end;) {
		wire_field f;
		if (!wire_next_short(p, end, &pos, &f))
			break; /* cannot happen: scan_attr read these bytes already */
		const char *str = (const char *)p + f.payload;
		switch (f.number) {
		case ATTR_NAME:
			if (!(v->name = intern(m, s, p + f.payload, f.len)))
				return DECODE_NOMEM;
			break;
		case ATTR_REF:
			v->ref = take_str(k, str, f.len);
			break;
		case ATTR_F:
			v->f = read_f32(p + f.payload);
			break;
		case ATTR_I:
			v->i = (int64_t)f.value;
			break;
		case ATTR_S:
			/* Sized for every s field met; only the string type keeps one. */
			if (v->type == AT_STRING)
				v->s = take_str(k, str, f.len);
			break;
		case ATTR_FLOATS:
			if (!floats)
				break;
			if (f.type == 5)
				floats[nf++] = read_f32(p + f.payload);
			else
				for (size_t q = 0; q < f.len; q += 4)
					floats[nf++] = read_f32(p + f.payload + q);
			break;
		case ATTR_INTS:
			if (!ints)
				break;
			if (f.type == 0) {
				ints[ni++] = (int64_t)f.value;
			} else {
				for (size_t q = f.payload; q < f.payload + f.len;) {
					uint64_t x = 0;
					if (!wire_varint(p, f.payload + f.len, &q, &x))
						break;
					ints[ni++] = (int64_t)x;
				}
			}
			break;
		case ATTR_STRINGS:
			if (strings)
				strings[ns++] = take_str(k, str, f.len);
			break;
		default:
			break;
		}
	}
	if (ints)
		v->ints = ints, v->n = (int32_t)ni;
	if (floats)
		v->floats = floats, v->n = (int32_t)nf;
	if (strings)
		v->strings = strings, v->n = (int32_t)ns;
	return DECODE_OK;
}

decode_result decode_node(osh_model *m, node *n, const uint8_t *p, size_t len, decode_scratch *s)
{
	/* First pass: counts, the bytes the arrays and strings need, and whether every
	 * field is one this reader takes. */
	size_t nin = 0, nout = 0, nattr = 0, wide = 0, chars = 0;
	for (size_t pos = 0; pos < len;) {
		wire_field f;
		if (!wire_next_str(p, len, &pos, &f))
			return DECODE_UNPACK;
		switch (f.number) {
		case NODE_INPUT:
			if (f.type != 2)
				return DECODE_UNPACK;
			nin++;
			break;
		case NODE_OUTPUT:
			if (f.type != 2)
				return DECODE_UNPACK;
			nout++;
			chars += f.len ? f.len + 1 : 0; /* "" is not copied */
			break;
		case NODE_NAME:
			if (f.type != 2)
				return DECODE_UNPACK;
			chars += f.len + 1;
			break;
		case NODE_OP_TYPE:
		case NODE_DOMAIN:
			if (f.type != 2)
				return DECODE_UNPACK;
			break;
		case NODE_ATTRIBUTE: {
			if (f.type != 2)
				return DECODE_UNPACK;
			attr_presence *a = grow_heap(s->attrs, &s->attrs_cap, nattr + 1, 8, sizeof *a);
			if (!a)
				return DECODE_NOMEM;
			s->attrs = a;
			if (!scan_attr(p, f.payload, f.payload + f.len, &s->attrs[nattr], &chars))
				return DECODE_UNPACK;
			wide += attr_array_bytes(&s->attrs[nattr]);
			nattr++;
			break;
		}
		default:
			break;
		}
	}
	if (nin > INT32_MAX || nout > INT32_MAX || nattr > INT32_MAX)
		return DECODE_UNPACK;
	const char **outs = grow_heap(s->outs, &s->cap, nout, 8, sizeof *outs);
	if (!outs && nout)
		return DECODE_NOMEM;
	s->outs = outs;
	/* One block per node, not one allocation per array and string: a node's
	 * attributes, their arrays, its input and output ids, then its strings. Nothing
	 * in it is zeroed: every byte handed out is written before it is read (the ids
	 * by the index). Every count and length is within the node's bytes (at most
	 * 4 GB), so none of these sums overflows. */
	size_t ids = ((nin + nout) * sizeof(int32_t) + 7) & ~(size_t)7;
	size_t head = nattr * sizeof(attr_view) + wide;
	unsigned char *block = arena_alloc(m->arena, head + ids + chars);
	if (!block)
		return DECODE_NOMEM;
	carve k = {.wide = block + nattr * sizeof(attr_view), .chars = (char *)block + head + ids};
	node d = {.name = "", .op_type = "", .domain = "", .ninputs = (int32_t)nin, .noutputs = (int32_t)nout,
		  .nattrs = (int32_t)nattr};
	d.inputs = (int32_t *)(block + head);
	d.outputs = d.inputs + nin;
	/* Most nodes of large models have no attribute: they get no array at all. */
	d.attrs = nattr ? (attr_view *)block : NULL;
	size_t o = 0, a = 0;
	for (size_t pos = 0; pos < len;) {
		wire_field f;
		if (!wire_next_str(p, len, &pos, &f))
			break; /* cannot happen: the first pass read these bytes */
		const char *str = (const char *)p + f.payload;
		switch (f.number) {
		case NODE_OUTPUT:
			s->outs[o++] = f.len ? take_str(&k, str, f.len) : "";
			break;
		case NODE_NAME:
			d.name = take_str(&k, str, f.len);
			break;
		case NODE_OP_TYPE:
			if (!(d.op_type = intern(m, s, p + f.payload, f.len)))
				return DECODE_NOMEM;
			break;
		case NODE_DOMAIN:
			if (!(d.domain = intern(m, s, p + f.payload, f.len)))
				return DECODE_NOMEM;
			break;
		case NODE_ATTRIBUTE: {
			decode_result r = fill_attr(m, s, p, f.payload, f.payload + f.len, &s->attrs[a], &d.attrs[a], &k);
			if (r != DECODE_OK)
				return r;
			a++;
			break;
		}
		default:
			break;
		}
	}
	/* Most domains are "": one byte decides, not a strcmp call a node. */
	if (d.domain[0] == 'a' && !strcmp(d.domain, "ai.onnx"))
		d.domain = "";
	*n = d;
	return DECODE_OK;
}

void decode_scratch_free(decode_scratch *s)
{
	free(s->outs);
	free(s->attrs);
	*s = (decode_scratch){0};
}

bool decode_next_input(const uint8_t *p, size_t len, size_t *pos, const char **name, size_t *name_len)
{
	while (*pos < len) {
		wire_field f;
		if (!wire_next_str(p, len, pos, &f))
			return false;
		if (f.number == NODE_INPUT) {
			*name = (const char *)p + f.payload;
			*name_len = f.len;
			return true;
		}
	}
	return false;
}
