/* shape.c: element counts, and text for dimensions and shapes (diagnostics, dumps).
 *
 * Invariant: every writer behaves like snprintf. It never writes past cap, always
 * NUL-terminates when cap > 0, and returns the full length the text needs, so callers
 * can size a buffer with a first call of cap 0. Lengths are summed in size_t and
 * reported as -1 once they no longer fit an int (a hostile rank could get there).
 */
#include "core/shape.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool shape_known_count(shape sh, int32_t skip, int64_t *count)
{
	int64_t p = 1;
	bool over = false;
	for (int32_t k = 0; k < sh.rank; k++) {
		if (k == skip || sh.dims[k].kind != DIM_KNOWN)
			continue;
		if (sh.dims[k].v == 0) {
			*count = 0;
			return true;
		}
		/* Not a return: a 0 further on still empties the tensor. */
		over |= __builtin_mul_overflow(p, sh.dims[k].v, &p);
	}
	*count = p;
	return !over;
}

/* Appends to a bounded buffer while counting everything it was asked to write. */
typedef struct sink {
	char *buf;
	size_t cap;
	size_t len; /* characters asked for so far, written or not */
	bool bad;   /* a formatting call failed: the count is meaningless */
} sink;

static char *sink_at(sink *s, size_t *room)
{
	if (s->len < s->cap) {
		*room = s->cap - s->len;
		return s->buf + s->len;
	}
	*room = 0;
	return NULL;
}

static void sink_count(sink *s, int n)
{
	if (n < 0)
		s->bad = true;
	else
		s->len += (size_t)n;
}

static void sink_str(sink *s, const char *str)
{
	size_t room;
	char *at = sink_at(s, &room);
	size_t n = strlen(str);

	if (at) {
		size_t k = n < room - 1 ? n : room - 1;
		memcpy(at, str, k);
		at[k] = '\0';
	}
	s->len += n;
}

static void sink_i64(sink *s, const char *prefix, int64_t v)
{
	size_t room;
	char *at = sink_at(s, &room);

	sink_count(s, snprintf(at, room, "%s%" PRId64, prefix, v));
}

static int sink_end(const sink *s)
{
	if (s->bad || s->len > (size_t)INT_MAX)
		return -1;
	return (int)s->len;
}

static void put_dim(sink *s, dim d, sym_name_fn symname, void *symctx)
{
	switch (d.kind) {
	case DIM_KNOWN:
		sink_i64(s, "", d.v);
		return;
	case DIM_SYMBOL: {
		const char *name = symname ? symname(symctx, d.v) : NULL;
		/* Without a name the id still tells symbols apart; "?" would not. */
		if (name)
			sink_str(s, name);
		else
			sink_i64(s, "s", d.v);
		return;
	}
	case DIM_UNKNOWN:
		break;
	}
	sink_str(s, "?");
}

static sink sink_open(char *buf, size_t cap)
{
	sink s = {buf, buf ? cap : 0, 0, false};

	if (s.cap > 0)
		buf[0] = '\0';
	return s;
}

int dim_format(char *buf, size_t cap, dim d, sym_name_fn symname, void *symctx)
{
	sink s = sink_open(buf, cap);

	put_dim(&s, d, symname, symctx);
	return sink_end(&s);
}

int shape_format(char *buf, size_t cap, shape sh, sym_name_fn symname, void *symctx)
{
	sink s = sink_open(buf, cap);

	if (sh.rank < 0) {
		sink_str(&s, "?");
		return sink_end(&s);
	}
	sink_str(&s, "(");
	for (int32_t i = 0; i < sh.rank; i++) {
		if (i > 0)
			sink_str(&s, ", ");
		put_dim(&s, sh.dims[i], symname, symctx);
	}
	/* The trailing comma keeps a rank-1 shape from reading as a parenthesised size. */
	sink_str(&s, sh.rank == 1 ? ",)" : ")");
	return sink_end(&s);
}
