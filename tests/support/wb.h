/* wb.h: protobuf wire bytes written by hand, for what protobuf-c's packer never
 * emits (packed arrays where it writes them one by one, fields repeated or unknown,
 * wrong wire types). Little-endian hosts only, as the tool.
 */
#ifndef OSH_TEST_WB_H
#define OSH_TEST_WB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct wb {
	uint8_t b[8192];
	size_t n;
} wb;

static inline void varint(wb *w, uint64_t v)
{
	do {
		w->b[w->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}
static inline void key(wb *w, uint32_t field, uint32_t type) { varint(w, (uint64_t)field << 3 | type); }
static inline void bytes(wb *w, uint32_t field, const void *p, size_t n)
{
	key(w, field, 2);
	varint(w, n);
	memcpy(w->b + w->n, p, n);
	w->n += n;
}
static inline void str(wb *w, uint32_t field, const char *s) { bytes(w, field, s, strlen(s)); }
static inline void vfield(wb *w, uint32_t field, uint64_t v) { key(w, field, 0), varint(w, v); }
static inline void f32(wb *w, uint32_t field, float f)
{
	key(w, field, 5);
	memcpy(w->b + w->n, &f, 4);
	w->n += 4;
}
static inline void sub(wb *w, uint32_t field, const wb *inner) { bytes(w, field, inner->b, inner->n); }

#endif
