/* decode_tensor.c: reads a TensorProto's wire bytes into a message on scratch.
 *
 * Why: the index checks and views each initializer of the main graph from the input
 * (index.c, define_wire_initializers), and through protobuf-c each one was a malloc
 * per message, string, array and external_data entry, then a free for each: on a
  * CNN with external weights, a large part of what `check` did. A weight tensor is a
 * name, dims, a type and raw bytes or an external reference: those are read here
 * into fixed storage that the next tensor reuses.
 *
 * What it reads: dims (1, packed or not), data_type (2), name (8), raw_data (9),
 * doc_string (12), external_data (13: key 1 and value 2 of each entry) and
 * data_location (14). Unknown fields (of the tensor or an entry) are skipped: the
 * index does not look at them, and they stay in the bytes a write packs. Any other
 * field the schema knows (typed data, segment, string_data, metadata_props), a wire
 * type the schema does not give the field, or more than the storage holds returns
 * false, and the caller unpacks that tensor with protobuf-c as before.
 *
 * Invariant: the result is what protobuf-c's unpack makes of the same bytes for the
 * fields it reads: a singular field met twice keeps the last, repeated ones add up
 * in order, integers are truncated to their field's width as protobuf-c does, an
 * absent string is NULL. The bytes were pre-scanned (no NUL in a string), but every
 * read still stops at the end of its range.
 */
#include "loader/decode_tensor.h"
#include "loader/wire.h"
#include "loader/wire_short.h"

#include <string.h>

/* TensorProto and StringStringEntryProto field numbers (onnx.proto). */
enum {
	T_DIMS = 1, T_DATA_TYPE = 2, T_NAME = 8, T_RAW_DATA = 9, T_DOC_STRING = 12, T_EXTERNAL_DATA = 13,
	T_DATA_LOCATION = 14,
};
enum { ENTRY_KEY = 1, ENTRY_VALUE = 2 };
/* The fields of a tensor that is raw data only (tensor_wire.raw_only), as a set. */
#define RAW_ONLY_FIELDS (1u << T_DIMS | 1u << T_DATA_TYPE | 1u << T_NAME | 1u << T_RAW_DATA | 1u << T_DOC_STRING)

/* A NUL-terminated copy of [p, p + n) in w->text; NULL when it does not fit. */
static char *keep_text(tensor_wire *w, const uint8_t *p, size_t n)
{
	if (n >= sizeof w->text - w->text_used)
		return NULL;
	char *s = w->text + w->text_used;
	memcpy(s, p, n);
	s[n] = '\0';
	w->text_used += n + 1;
	return s;
}

static bool add_dim(tensor_wire *w, uint64_t v)
{
	if (w->t.n_dims == TENSOR_WIRE_DIMS)
		return false;
	w->dims[w->t.n_dims++] = (int64_t)v;
	return true;
}

static bool read_dims(tensor_wire *w, const uint8_t *p, const wire_field *f)
{
	if (f->type == 0)
		return add_dim(w, f->value);
	if (f->type != 2)
		return false;
	size_t end = f->payload + f->len;
	for (size_t pos = f->payload; pos < end;) {
		uint64_t v;
		if (!wire_varint(p, end, &pos, &v) || !add_dim(w, v))
			return false;
	}
	return true;
}

static bool read_entry(tensor_wire *w, const uint8_t *p, const wire_field *f)
{
	if (f->type != 2 || w->t.n_external_data == TENSOR_WIRE_ENTRIES)
		return false;
	Onnx__StringStringEntryProto *e = &w->entries[w->t.n_external_data];
	onnx__string_string_entry_proto__init(e);
	size_t end = f->payload + f->len;
	for (size_t pos = f->payload; pos < end;) {
		wire_field g;
		if (!wire_next_short(p, end, &pos, &g))
			return false;
		if (g.number != ENTRY_KEY && g.number != ENTRY_VALUE)
			continue; /* unknown */
		char *s = g.type == 2 ? keep_text(w, p + g.payload, g.len) : NULL;
		if (!s)
			return false;
		if (g.number == ENTRY_KEY)
			e->key = s;
		else
			e->value = s;
	}
	w->entry_at[w->t.n_external_data++] = e;
	return true;
}

/* One field of the tensor; false sends the tensor to protobuf-c. */
static bool read_field(tensor_wire *w, const uint8_t *p, const wire_field *f)
{
	Onnx__TensorProto *t = &w->t;
	switch (f->number) {
	case T_DIMS:
		return read_dims(w, p, f);
	case T_DATA_TYPE:
		if (f->type != 0)
			return false;
		t->has_data_type = 1;
		t->data_type = (int32_t)f->value;
		return true;
	case T_DATA_LOCATION:
		if (f->type != 0)
			return false;
		t->has_data_location = 1;
		t->data_location = (Onnx__TensorProto__DataLocation)(int32_t)f->value;
		return true;
	case T_NAME:
	case T_DOC_STRING: {
		char *s = f->type == 2 ? keep_text(w, p + f->payload, f->len) : NULL;
		if (!s)
			return false;
		*(f->number == T_NAME ? &t->name : &t->doc_string) = s;
		return true;
	}
	case T_RAW_DATA:
		if (f->type != 2)
			return false;
		t->has_raw_data = 1;
		t->raw_data.data = (uint8_t *)p + f->payload;
		t->raw_data.len = f->len;
		return true;
	case T_EXTERNAL_DATA:
		return read_entry(w, p, f);
	default:
		/* The other fields the schema knows (which depend on the onnx it came
		 * from) are left to protobuf-c; unknown ones are skipped. */
		return !protobuf_c_message_descriptor_get_field(&onnx__tensor_proto__descriptor, f->number);
	}
}

void tensor_wire_init(tensor_wire *w) { onnx__tensor_proto__init(&w->blank); }

bool decode_tensor(const uint8_t *p, size_t len, tensor_wire *w)
{
	/* A copy of the initialized message: protobuf-c's init zeroes its 216 bytes
	 * with `rep stos` first, whose start-up cost more than the copy's few vector
	 * moves, at every initializer. */
	w->t = w->blank;
	w->t.dims = w->dims;
	w->t.external_data = w->entry_at;
	w->text_used = 0;
	bool plain = true;
	for (size_t pos = 0; pos < len;) {
		wire_field f;
		if (!wire_next_short(p, len, &pos, &f) || !read_field(w, p, &f))
			return false;
		plain &= f.number < 32 && (RAW_ONLY_FIELDS >> f.number & 1);
	}
	w->raw_only = plain;
	if (!w->t.n_dims)
		w->t.dims = NULL;
	if (!w->t.n_external_data)
		w->t.external_data = NULL;
	return true;
}
