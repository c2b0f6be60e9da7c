/* wbuf.h: a growable buffer of protobuf wire bytes written by hand, for the tests
 * that build models no encoder would make, or too big for wb.h's fixed buffer
 * (test_load_limits.c, test_scan_split.c, test_load_split.c, test_pack_stream.c).
 * Header-only, as the Criterion assertions need the test's own translation unit:
 * include after <criterion/criterion.h>, with _GNU_SOURCE (mkstemp).
 */
#ifndef OSH_TEST_WBUF_H
#define OSH_TEST_WBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct wbuf {
	uint8_t *p;
	size_t n, cap;
} wbuf;

static inline void put(wbuf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		cr_assert(b->p);
	}
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}

static inline void put_byte(wbuf *b, uint8_t c) { put(b, &c, 1); }

static inline void put_varint(wbuf *b, uint64_t v)
{
	do {
		put_byte(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		v >>= 7;
	} while (v);
}

static inline void put_key(wbuf *b, uint64_t field, unsigned wt) { put_varint(b, field << 3 | wt); }

static inline void put_vfield(wbuf *b, uint64_t field, uint64_t v)
{
	put_key(b, field, 0);
	put_varint(b, v);
}

static inline void put_bytes(wbuf *b, uint64_t field, const void *d, size_t n)
{
	put_key(b, field, 2);
	put_varint(b, n);
	put(b, d, n);
}

static inline void put_str(wbuf *b, uint64_t field, const char *s) { put_bytes(b, field, s, strlen(s)); }

/* Appends `inner` as a length-delimited field and frees it. Returns the offset in b
 * where inner's bytes start. */
static inline size_t put_msg(wbuf *b, uint64_t field, wbuf *inner)
{
	put_bytes(b, field, inner->p, inner->n);
	size_t at = b->n - inner->n;
	free(inner->p);
	*inner = (wbuf){0};
	return at;
}

/* The fields of a ModelProto before its graph: IR version 8, the default domain at
 * `opset`. */
static inline void put_model_header(wbuf *b, int opset)
{
	put_vfield(b, 1, 8);
	wbuf op = {0};
	put_str(&op, 1, "");
	put_vfield(&op, 2, (uint64_t)opset);
	put_msg(b, 8, &op);
}

/* A ValueInfoProto as field `field` of graph g (11 input, 12 output, 13 value_info):
 * `name`, a tensor of elem_type, of one dim `size` (no shape when size < 0). */
static inline void put_tensor_vi(wbuf *g, uint64_t field, const char *name, int elem_type, int64_t size)
{
	wbuf vi = {0}, tp = {0}, tensor = {0};
	put_vfield(&tensor, 1, (uint64_t)elem_type);
	if (size >= 0) {
		wbuf shp = {0}, dm = {0};
		put_vfield(&dm, 1, (uint64_t)size);
		put_msg(&shp, 1, &dm);
		put_msg(&tensor, 2, &shp);
	}
	put_msg(&tp, 1, &tensor);
	put_str(&vi, 1, name);
	put_msg(&vi, 2, &tp);
	put_msg(g, field, &vi);
}

/* n Relu nodes t0 -> t1 -> ... -> tn into graph g; named "relu_number_K" when
 * `named` (at over 32 bytes a node, the loader's pre-scan keeps spans of them). */
static inline void put_relu_chain(wbuf *g, int n, bool named)
{
	char in[32], out[32], name[48];
	for (int i = 0; i < n; i++) {
		wbuf nd = {0};
		snprintf(in, sizeof in, "t%d", i);
		snprintf(out, sizeof out, "t%d", i + 1);
		put_str(&nd, 1, in);
		put_str(&nd, 2, out);
		if (named) {
			snprintf(name, sizeof name, "relu_number_%d", i);
			put_str(&nd, 3, name);
		}
		put_str(&nd, 4, "Relu");
		put_msg(g, 1, &nd);
	}
}

/* Writes b's bytes to a new file named from the mkstemp template `path`, which then
 * holds the name: the caller unlinks it. */
static inline void wbuf_to_temp(const wbuf *b, char *path)
{
	int fd = mkstemp(path);
	cr_assert(fd >= 0, "mkstemp %s", path);
	cr_assert(write(fd, b->p, b->n) == (ssize_t)b->n, "%s: short write", path);
	close(fd);
}

#endif
