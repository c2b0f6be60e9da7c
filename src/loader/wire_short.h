/* wire_short.h: wire_next with a fast path for the fields a node or an initializer is
 * mostly made of: a one-byte key and a one-byte length (a name) or value (an enum, a
 * small int). The loader's own readers (decode_node.c, decode_tensor.c, index.c) walk
 * every node's bytes several times; on the general path each field takes a switch on
 * the wire type and two calls' worth of varint checks.
 *
 * Two flavours, because a test that fails costs too: a NodeProto's
 * own fields are all strings (wire_next_str), a tensor's and an attribute's mix strings
 * and varints (wire_next_short).
 *
 * Invariant: the same result as wire_next for every input (a short field is read
 * only when it lies within [*pos, end); everything else goes to wire_next).
 */
#ifndef OSH_LOADER_WIRE_SHORT_H
#define OSH_LOADER_WIRE_SHORT_H

#include "loader/wire.h"

/* Fills f for the length-delimited field at `at` with a one-byte key and length. */
static inline __attribute__((always_inline)) void short_str(const uint8_t *p, size_t at, size_t *pos, wire_field *f)
{
	f->start = at;
	f->number = p[at] >> 3;
	f->type = 2;
	f->value = 0;
	f->payload = at + 2;
	f->len = p[at + 1];
	f->end = *pos = at + 2 + f->len;
}

/* Whether the field at `at` (< end) is a short string: key with bit 7 clear (one
 * byte) and wire type 2, length one byte, within end. It is then 2 + p[at + 1]
 * bytes long. */
static inline __attribute__((always_inline)) bool is_short_str(const uint8_t *p, size_t end, size_t at)
{
	return end - at >= 2 && (p[at] & 0x87) == 2 && p[at + 1] < 0x80 && p[at + 1] <= end - at - 2;
}

/* wire_next, for *pos < end, fast for a short string field. */
static inline __attribute__((always_inline)) bool wire_next_str(const uint8_t *p, size_t end, size_t *pos,
							       wire_field *f)
{
	size_t at = *pos;
	if (is_short_str(p, end, at)) {
		short_str(p, at, pos, f);
		return true;
	}
	return wire_next(p, end, pos, f);
}

/* wire_next, for *pos < end, fast for a short string field and a one-byte varint. */
static inline __attribute__((always_inline)) bool wire_next_short(const uint8_t *p, size_t end, size_t *pos,
								 wire_field *f)
{
	size_t at = *pos;
	if (end - at >= 2 && p[at] < 0x80 && p[at + 1] < 0x80) {
		uint32_t type = p[at] & 7;
		if (type == 2 && p[at + 1] <= end - at - 2) {
			short_str(p, at, pos, f);
			return true;
		}
		if (type == 0) {
			f->start = at;
			f->number = p[at] >> 3;
			f->type = 0;
			f->value = p[at + 1];
			f->payload = f->end = *pos = at + 2;
			f->len = 0;
			return true;
		}
	}
	return wire_next(p, end, pos, f);
}

#endif
