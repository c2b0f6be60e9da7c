/* shape.c: element counts, and text for dimensions and shapes (diagnostics, dumps).
 *
 * Invariant: every writer behaves like snprintf. It never writes past cap, always
 * NUL-terminates when cap > 0, and returns the full length the text needs, so callers
 * can size a buffer with a first call of cap 0. Lengths are summed in size_t and
 * reported as -1 once they no longer fit an int (a hostile rank could get there).
 */
#include "core/shape.h"

#include "core/strbuf.h"

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

static void put_dim(strbuf *s, dim d, sym_name_fn symname, void *symctx)
{
	switch (d.kind) {
	case DIM_KNOWN:
		strbuf_printf(s, "%" PRId64, d.v);
		return;
	case DIM_SYMBOL: {
		const char *name = symname ? symname(symctx, d.v) : NULL;
		/* Without a name the id still tells symbols apart; "?" would not. */
		if (name)
			strbuf_str(s, name);
		else
			strbuf_printf(s, "s%" PRId64, d.v);
		return;
	}
	case DIM_UNKNOWN:
		break;
	}
	strbuf_str(s, "?");
}


int dim_format(char *buf, size_t cap, dim d, sym_name_fn symname, void *symctx)
{
	strbuf s = strbuf_on(buf, cap);

	put_dim(&s, d, symname, symctx);
	return strbuf_end(&s);
}

int shape_format(char *buf, size_t cap, shape sh, sym_name_fn symname, void *symctx)
{
	strbuf s = strbuf_on(buf, cap);

	if (sh.rank < 0) {
		strbuf_str(&s, "?");
		return strbuf_end(&s);
	}
	strbuf_str(&s, "(");
	for (int32_t i = 0; i < sh.rank; i++) {
		if (i > 0)
			strbuf_str(&s, ", ");
		put_dim(&s, sh.dims[i], symname, symctx);
	}
	/* The trailing comma keeps a rank-1 shape from reading as a parenthesised size. */
	strbuf_str(&s, sh.rank == 1 ? ",)" : ")");
	return strbuf_end(&s);
}
