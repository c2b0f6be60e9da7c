/* wire.h: reading protobuf wire bytes the pre-scan already accepted (prescan.c).
 *
 * The loader walks a few messages itself instead of through protobuf-c: to cut a
 * graph's nodes and initializers out before unpacking the rest (unpack_split.c) and
 * to decode plain nodes straight into the IR (decode_node.c). The bytes were checked,
 * but these readers still stop at the end of their range and report anything odd
 * (a group, a truncated field) as false, which sends the caller to protobuf-c.
 */
#ifndef OSH_LOADER_WIRE_H
#define OSH_LOADER_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One field: [start, end) is the whole of it (key, length, payload); the payload is
 * [payload, payload + len) for length-delimited and fixed-width fields; a varint's
 * value is in `value` (len 0). */
typedef struct wire_field {
	uint32_t number;
	uint32_t type; /* wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
	size_t start, end;
	size_t payload, len;
	uint64_t value;
} wire_field;

/* The bytes of v as the shortest varint (what protobuf writers write). */
static inline size_t wire_varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80)
		v >>= 7, n++;
	return n;
}

/* The bytes of a length-delimited field's key and length (shortest encodings): what
 * comes before its `len` bytes of content. */
static inline size_t wire_head_len(uint32_t number, uint64_t len)
{
	return wire_varint_len((uint64_t)number << 3 | 2) + wire_varint_len(len);
}

/* Writes v at out as the shortest varint; returns its length (wire_varint_len). */
static inline size_t wire_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static inline bool wire_varint(const uint8_t *p, size_t end, size_t *pos, uint64_t *out)
{
	/* Keys, lengths of names and small values: most varints are one byte. */
	if (*pos < end && p[*pos] < 0x80) {
		*out = p[(*pos)++];
		return true;
	}
	uint64_t v = 0;
	for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
		uint8_t b = p[(*pos)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* Reads the field at *pos in [*pos, end) and moves *pos past it. Always inlined:
  * gcc kept it a call, and inlined, its result lives in registers and the switch on
  * the wire type folds into the callers' own. */
static inline __attribute__((always_inline)) bool wire_next(const uint8_t *p, size_t end, size_t *pos, wire_field *f)
{
	f->start = *pos;
	uint64_t key;
	if (!wire_varint(p, end, pos, &key))
		return false;
	f->number = (uint32_t)(key >> 3);
	f->type = (uint32_t)(key & 7);
	f->value = 0;
	switch (f->type) {
	case 0:
		if (!wire_varint(p, end, pos, &f->value))
			return false;
		f->payload = *pos, f->len = 0;
		break;
	case 1:
	case 5: {
		size_t w = f->type == 1 ? 8 : 4;
		if (end - *pos < w)
			return false;
		f->payload = *pos, f->len = w;
		*pos += w;
		break;
	}
	case 2: {
		uint64_t n;
		if (!wire_varint(p, end, pos, &n) || n > end - *pos)
			return false;
		f->payload = *pos, f->len = (size_t)n;
		*pos += (size_t)n;
		break;
	}
	default: /* groups: not in ONNX */
		return false;
	}
	f->end = *pos;
	return true;
}

/* The field `number` of the message in [start, end) when it occurs exactly once and
 * is length-delimited; false otherwise (absent, repeated, another wire type, or
 * bytes that do not parse). */
static inline bool wire_find_one(const uint8_t *p, size_t start, size_t end, uint32_t number, wire_field *out)
{
	int count = 0;
	for (size_t pos = start; pos < end;) {
		wire_field f;
		if (!wire_next(p, end, &pos, &f))
			return false;
		if (f.number == number) {
			if (f.type != 2)
				return false;
			*out = f;
			count++;
		}
	}
	return count == 1;
}

#endif
