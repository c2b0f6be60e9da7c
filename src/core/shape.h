/* shape.h: the shape lattice, as pure data.
 *
 * A dimension is known (a size >= 0), a symbol (an interned dim_param, identified by a
 * small integer id) or unknown. A shape has a rank, or rank -1 when even the rank is
 * unknown. Nothing here allocates or knows about protobuf.
 */
#ifndef OSH_CORE_SHAPE_H
#define OSH_CORE_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dim_kind {
	DIM_UNKNOWN = 0, /* nothing known: could be any size */
	DIM_KNOWN,       /* v is the size, >= 0 */
	DIM_SYMBOL,      /* v is a symbol id (see symbols.h) */
} dim_kind;

typedef struct dim {
	dim_kind kind;
	int64_t v;
} dim;

#define RANK_UNKNOWN (-1)

/* A shape view: dims points at rank entries owned by someone else (the model arena,
 * a stack buffer). rank == RANK_UNKNOWN means dims is unused. */
typedef struct shape {
	int32_t rank;
	const dim *dims;
} shape;

static inline dim dim_known(int64_t v) { return (dim){DIM_KNOWN, v}; }
static inline dim dim_symbol(int64_t id) { return (dim){DIM_SYMBOL, id}; }
static inline dim dim_unknown(void) { return (dim){DIM_UNKNOWN, 0}; }
static inline bool dim_eq(dim a, dim b) { return a.kind == b.kind && (a.kind == DIM_UNKNOWN ? false : a.v == b.v); }
static inline bool dim_is(dim a, int64_t v) { return a.kind == DIM_KNOWN && a.v == v; }

/* An axis among n positions (a rank, or rank + 1 where an axis may also name the
 * place after the last dim), a negative one counting from the end: its index in
 * [0, n) and true, or false when it is out of [-n, n). Callers word the refusal:
 * what the axis is and its valid range differ from operator to operator. */
static inline bool shape_axis(int64_t axis, int64_t n, int32_t *out)
{
	int64_t a = axis < 0 ? axis + n : axis;
	if (a < 0 || a >= n)
		return false;
	*out = (int32_t)a;
	return true;
}

/* The element count a shape's known dims make, ignoring the one at `skip` (-1: none):
 * symbols and unknown dims count as 1 (a known 0 anywhere makes the count 0, whatever
 * the rest). Sets *count and returns true, or returns false when the product overflows
 * int64: no tensor has that shape, whatever the other dims turn out to be. Symbols are
 * taken as they are (resolve them first to count bound ones). Rank RANK_UNKNOWN: 1. */
bool shape_known_count(shape s, int32_t skip, int64_t *count);

typedef const char *(*sym_name_fn)(void *ctx, int64_t id);

/* Writes one dimension: its size, its symbol's name, or "?" when unknown. Symbol
 * names come from `symname` (may be NULL, or return NULL: the symbol then prints as
 * "s" and its id, e.g. "s3"). Like snprintf: writes at most cap - 1 characters and a
 * NUL (buf may be NULL when cap is 0) and returns the length the whole text needs, or
 * -1 past INT_MAX. */
int dim_format(char *buf, size_t cap, dim d, sym_name_fn symname, void *symctx);

/* Writes a shape as "(2, N, ?)" ("()" for a scalar, "(3,)" for rank 1 as in the spec's
 * notation, "?" for unknown rank). Returns as dim_format. */
int shape_format(char *buf, size_t cap, shape s, sym_name_fn symname, void *symctx);

#endif
