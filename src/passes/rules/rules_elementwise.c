/* rules_elementwise.c: elementwise operators, activations and normalisations.
 *
 * Most of these operators give an output of their input's shape: unary maths and
 * activations, Cast, Dropout, Softmax, the normalisations. The binary and variadic
 * ones broadcast their inputs: numpy rules from opset 7 (8 for Sum/Mean/Max/Min),
 * before that either identical shapes or, with `broadcast=1`, the pdpd placement of B
 * inside A at `axis`. Which operator does what beyond its shape (its output element
 * type, its data propagation) is read from small tables keyed by op_type, so one rule
 * function serves a whole family of rows in ops_elementwise.def. SwiGLU (28) takes A
 * and B of one shape, no broadcasting, and gives that shape.
 *
 * Data propagation: when every input's integer content is known (shapes, sizes) the
 * output's content is computed elementwise with broadcasting, entry by entry. An entry
 * is a dim: a known integer, a symbol (a size, so >= 0) or unknown. Arithmetic keeps a
 * symbol only where the result is exact whatever its value (N + 0, N * 1, N - N = 0,
 * max(N, 0) = N); a known result that does not fit the output's element type, or
 * overflows, becomes an unknown entry, never a wrapped guess (the model would wrap at
 * run time; we simply do not claim the value).
 *
 * Invariant: a rule either sets an output to what is certain, or reports the problem
 * (shape-error, broadcast-mismatch) and leaves the outputs it cannot vouch for unknown.
 */
#include "passes/rules/rule_protos.h"

#include "core/checked.h"
#include "core/dtype.h"
#include "passes/rules/rules_nn.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Data propagation over more operands than this (a Sum of hundreds of shapes) is not
 * attempted: no real shape computation needs it and the cost grows with it. */
#define MAX_CONTENT_OPS 64

/* ---- small helpers --------------------------------------------------------------- */

static bool is_tensor(const tinfo *t) { return t && t->kind == TK_TENSOR; }

static bool to_float(double x, int32_t to, double *out);

/* Integer tensors carry their content as integers (exact): only these types use the
 * floating content. */
static bool is_floating(int32_t dt)
{
	return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_FLOAT16 || dt == DT_BFLOAT16;
}

static int32_t elem_of(const tinfo *t) { return is_tensor(t) ? t->elem : 0; }

/* Whether op_type `op` is `name`: the per-operator tables below are searched on every
 * node, and most rows differ from the first letter, which saves strcmp's call. */
static bool op_is(const char *op, const char *name) { return op[0] == name[0] && !strcmp(op, name); }

/* The element type shared by inputs [first, first + n) (type variable T): the first
 * one that is known. */
static int32_t shared_elem(infer_ctx *c, int32_t first, int32_t n)
{
	for (int32_t i = first; i < first + n; i++) {
		int32_t e = elem_of(in(c, i));
		if (e)
			return e;
	}
	return 0;
}

/* Output o: a tensor of element type elem with x's shape (rank unknown when x has none). */
static void same_shape(infer_ctx *c, int32_t o, const tinfo *x, int32_t elem)
{
	if (is_tensor(x) && x->rank >= 0)
		set_out(c, o, elem, x->rank, x->dims);
	else
		set_out(c, o, elem, RANK_UNKNOWN, NULL);
}

static const char *fmt_dim(infer_ctx *c, dim d)
{
	char buf[96];
	dim_format(buf, sizeof buf, dim_resolve(c->syms, d), sym_name_cb, c->syms);
	const char *s = arena_strdup(c->a, buf);
	return s ? s : "?";
}

/* arity's checks in their order, reporting the first that fails; true when none does.
 * Out of line: arity calls it only for a node that fails one. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool arity_error(infer_ctx *c, int32_t in_lo, int32_t in_hi, int32_t out_hi)
{
	int32_t n = in_count(c);
	if (n < in_lo || (in_hi >= 0 && n > in_hi)) {
		if (in_hi < 0)
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s takes at least %d input%s, the node has %d",
				   c->n->op_type, in_lo, in_lo == 1 ? "" : "s", n);
		else if (in_lo == in_hi)
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s takes %d input%s, the node has %d", c->n->op_type,
				   in_lo, in_lo == 1 ? "" : "s", n);
		else
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s takes %d to %d inputs, the node has %d",
				   c->n->op_type, in_lo, in_hi, n);
		return false;
	}
	for (int32_t i = 0; i < in_lo; i++) {
		if (!in(c, i)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s: input %d is required but omitted", c->n->op_type,
				   i);
			return false;
		}
	}
	if (out_count(c) > out_hi) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s has at most %d output%s, the node has %d", c->n->op_type,
			   out_hi, out_hi == 1 ? "" : "s", out_count(c));
		return false;
	}
	return true;
}

/* Checks the node's input and output counts against the schema: between in_lo and
 * in_hi inputs (in_hi < 0: variadic), the first in_lo of them given, at most out_hi
 * outputs. Reports and returns false otherwise. Inline: every node of these
 * operators asks, and nearly all pass. */
static inline bool arity(infer_ctx *c, int32_t in_lo, int32_t in_hi, int32_t out_hi)
{
	int32_t n = in_count(c);
	if (n < in_lo || (in_hi >= 0 && n > in_hi) || out_count(c) > out_hi)
		return arity_error(c, in_lo, in_hi, out_hi);
	for (int32_t i = 0; i < in_lo; i++)
		if (!in(c, i))
			return arity_error(c, in_lo, in_hi, out_hi);
	return true;
}

/* Normalises an axis attribute against x's rank; true with *axis set, or when the rank
 * is unknown (*axis = -1: nothing to check yet). false after reporting. */
static bool axis_of(infer_ctx *c, const tinfo *x, int64_t given, bool inclusive, int32_t *axis)
{
	*axis = -1;
	if (!is_tensor(x) || x->rank < 0)
		return true;
	/* norm_axis's answer for an axis in range, without naming it for a report first. */
	if (shape_axis(given, (int64_t)x->rank + (inclusive ? 1 : 0), axis))
		return true;
	char what[64];
	snprintf(what, sizeof what, "%s axis", c->n->op_type);
	return norm_axis(c, given, x->rank, inclusive, what, axis);
}

/* Number of elements of t, or -1 when not known. */
static int64_t known_count(infer_ctx *c, const tinfo *t)
{
	if (!is_tensor(t) || t->rank < 0)
		return -1;
	int64_t n = 1;
	for (int32_t k = 0; k < t->rank; k++) {
		dim d = dim_resolve(c->syms, t->dims[k]);
		if (d.kind != DIM_KNOWN)
			return -1;
		if (__builtin_mul_overflow(n, d.v, &n))
			return -1;
	}
	return n;
}

/* ---- integer content ----------------------------------------------------------------- */

/* Integer element types: their width and signedness, for range checks and Cast. */
typedef struct int_type {
	int32_t dt;
	int bits;
	bool is_signed;
} int_type;

static const int_type int_types[] = {
	{DT_BOOL, 1, false},    {DT_INT8, 8, true},    {DT_UINT8, 8, false},   {DT_INT16, 16, true},
	{DT_UINT16, 16, false}, {DT_INT32, 32, true},  {DT_UINT32, 32, false}, {DT_INT64, 64, true},
	{DT_UINT64, 64, false},
};

static const int_type *int_type_of(int32_t dt)
{
	for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++)
		if (int_types[i].dt == dt)
			return &int_types[i];
	return NULL;
}

/* Whether v is a value of element type dt. Content is int64: UINT64 values past
 * INT64_MAX cannot be represented and count as not fitting. */
static bool fits(int32_t dt, int64_t v)
{
	const int_type *t = int_type_of(dt);
	if (!t)
		return false;
	if (t->bits == 1)
		return v == 0 || v == 1;
	if (t->bits == 64)
		return t->is_signed || v >= 0;
	int64_t hi = t->is_signed ? (INT64_C(1) << (t->bits - 1)) - 1 : (INT64_C(1) << t->bits) - 1;
	int64_t lo = t->is_signed ? -(INT64_C(1) << (t->bits - 1)) : 0;
	return v >= lo && v <= hi;
}

static dim known_in(int32_t dt, int64_t v) { return fits(dt, v) ? dim_known(v) : dim_unknown(); }

static bool same_sym(dim a, dim b) { return a.kind == DIM_SYMBOL && b.kind == DIM_SYMBOL && a.v == b.v; }

/* Content arithmetic on resolved entries; dt is the result's element type. Entries
 * with a symbol give the expression (core/dimexpr.h): shape computations (Shape,
 * Gather, Mul by the head count...) keep `batch*4` rather than losing it. */
typedef dim (*binary_fn)(symtab *t, dim a, dim b, int32_t dt);

/* A known result checked against dt; an expression as it is. */
static dim in_type(int32_t dt, dim r) { return r.kind == DIM_KNOWN ? known_in(dt, r.v) : r; }

static dim cv_add(symtab *t, dim a, dim b, int32_t dt) { return in_type(dt, dx_add(t, a, b)); }
static dim cv_sub(symtab *t, dim a, dim b, int32_t dt) { return in_type(dt, dx_sub(t, a, b)); }
static dim cv_mul(symtab *t, dim a, dim b, int32_t dt) { return in_type(dt, dx_mul(t, a, b)); }

/* Integer Div truncates toward zero: the ONNX reference computes np.divide and casts
 * back to the integer type (truncation), and onnxruntime uses C++ `/`. That is the
 * floor for a dividend >= 0 and a divisor > 0, which sizes are. Division by zero is
 * undefined: unknown. */
static dim cv_div(symtab *t, dim a, dim b, int32_t dt)
{
	if (dim_is(b, 1))
		return a;
	int64_t q;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return i64_div(a.v, b.v, &q) ? known_in(dt, q) : dim_unknown();
	if (!dx_nonneg(t, a) || !dx_nonneg(t, b) || dim_is(b, 0))
		return dim_unknown();
	return in_type(dt, dx_floordiv(t, a, b));
}

/* Mod (fmod 0) takes the divisor's sign: the floored remainder, for a divisor > 0. */
static dim cv_mod(symtab *t, dim a, dim b, int32_t dt)
{
	int64_t r;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return i64_floormod(a.v, b.v, &r) ? known_in(dt, r) : dim_unknown();
	if (!dx_nonneg(t, b) || dim_is(b, 0))
		return dim_unknown();
	return in_type(dt, dx_mod(t, a, b));
}

/* Equal gives BOOL 0/1. Sizes are >= 0, so a symbol never equals a negative number;
 * two expressions whose difference is a number other than 0 differ. */
static dim cv_equal(symtab *t, dim a, dim b, int32_t dt)
{
	(void)dt;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return dim_known(a.v == b.v);
	if (same_sym(a, b))
		return dim_known(1);
	if (a.kind == DIM_UNKNOWN || b.kind == DIM_UNKNOWN)
		return dim_unknown();
	if ((a.kind == DIM_KNOWN && a.v < 0 && dx_nonneg(t, b)) || (b.kind == DIM_KNOWN && b.v < 0 && dx_nonneg(t, a)))
		return dim_known(0);
	int64_t diff;
	if (dx_diff_const(t, a, b, &diff))
		return dim_known(diff == 0);
	return dim_unknown();
}

static dim cv_max(symtab *t, dim a, dim b, int32_t dt) { return in_type(dt, dx_max(t, a, b)); }
static dim cv_min(symtab *t, dim a, dim b, int32_t dt) { return in_type(dt, dx_min(t, a, b)); }

typedef dim (*unary_fn)(symtab *t, dim a, int32_t dt);

static dim cv_neg(symtab *t, dim a, int32_t dt)
{
	if (a.kind == DIM_KNOWN)
		return a.v == INT64_MIN ? dim_unknown() : known_in(dt, -a.v);
	return in_type(dt, dx_sub(t, dim_known(0), a));
}

static dim cv_abs(symtab *t, dim a, int32_t dt)
{
	if (a.kind == DIM_SYMBOL && dx_nonneg(t, a))
		return a;
	if (a.kind != DIM_KNOWN || a.v == INT64_MIN)
		return dim_unknown();
	return known_in(dt, a.v < 0 ? -a.v : a.v);
}

/* Combines the entries of n operands at one output position. */
typedef dim (*combine_fn)(symtab *t, const dim *e, int32_t n, int32_t dt, binary_fn f);

static dim fold_combine(symtab *t, const dim *e, int32_t n, int32_t dt, binary_fn f)
{
	dim r = e[0];
	for (int32_t k = 1; k < n; k++)
		r = f(t, r, e[k], dt);
	return r;
}

/* Where(cond, X, Y): the chosen entry, or the common one when cond is not known. */
static dim where_combine(symtab *t, const dim *e, int32_t n, int32_t dt, binary_fn f)
{
	(void)t, (void)n, (void)dt, (void)f;
	if (e[0].kind == DIM_KNOWN)
		return e[0].v ? e[1] : e[2];
	return dim_eq(e[1], e[2]) ? e[1] : dim_unknown();
}

/* The shapes of inputs 0..n-1 into s, as operand shapes for content_map (rank unknown
 * for anything that is not a tensor with a rank). */
static void fill_operand_shapes(infer_ctx *c, int32_t n, shape *s)
{
	for (int32_t i = 0; i < n; i++) {
		const tinfo *t = in(c, i);
		s[i] = is_tensor(t) ? tinfo_shape(t) : (shape){RANK_UNKNOWN, NULL};
	}
}

/* The same in the arena, for any number of operands; NULL when out of memory. */
static shape *operand_shapes(infer_ctx *c, int32_t n)
{
	shape *s = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *s);
	if (!s) {
		c->m->nomem = true;
		return NULL;
	}
	fill_operand_shapes(c, n, s);
	return s;
}

/* How to walk a broadcast output entry by entry: its dims (od) and size (count), and
 * per operand and output axis the operand's stride along it (0 where the operand is
 * broadcast: size 1, or absent on the left). False unless every shape is fully known,
 * aligns with the output, and operand i holds nvals[i] entries. */
typedef struct walk_plan {
	int32_t rank, n;
	const int64_t *od;
	const int64_t *stride; /* n * rank */
	int64_t count;
} walk_plan;

static bool plan_walk(infer_ctx *c, int32_t o, int32_t rank, const dim *odims, const shape *shp, int32_t n,
		      const int32_t *nvals, walk_plan *w)
{
	if (!out_present(c, o) || rank < 0 || rank > RULE_MAX_RANK || n < 1 || n > MAX_CONTENT_OPS || !shp)
		return false;
	int64_t *od = arena_array(c->a, rank > 0 ? (size_t)rank : 1, sizeof *od);
	int64_t *stride = arena_array(c->a, (size_t)n * (size_t)(rank > 0 ? rank : 1), sizeof *stride);
	if (!od || !stride) {
		c->m->nomem = true;
		return false;
	}
	int64_t count = 1;
	for (int32_t k = 0; k < rank; k++) {
		dim d = dim_resolve(c->syms, odims[k]);
		if (d.kind != DIM_KNOWN || __builtin_mul_overflow(count, d.v, &count))
			return false;
		od[k] = d.v;
	}
	if (count > TINFO_MAX_VALUES)
		return false;
	for (int32_t i = 0; i < n; i++) {
		shape sh = shp[i];
		if (sh.rank < 0 || sh.rank > rank)
			return false;
		int64_t *st = stride + (size_t)i * (size_t)rank;
		int64_t size = 1;
		for (int32_t k = sh.rank - 1; k >= 0; k--) {
			dim d = dim_resolve(c->syms, sh.dims[k]);
			int32_t ok = rank - sh.rank + k;
			if (d.kind != DIM_KNOWN || (d.v != 1 && d.v != od[ok]))
				return false;
			st[ok] = d.v == 1 ? 0 : size;
			/* Every factor is 1 or an output dim, so this is at most count, but
			 * count may be 0 beside dims whose product overflows. */
			if (__builtin_mul_overflow(size, d.v, &size))
				return false;
		}
		for (int32_t k = 0; k < rank - sh.rank; k++)
			st[k] = 0;
		if (size != nvals[i])
			return false;
	}
	*w = (walk_plan){rank, n, od, stride, count};
	return true;
}

/* Index into operand i's content of output entry `at`. */
static int64_t walk_index(const walk_plan *w, int32_t i, int64_t at)
{
	int64_t idx = 0;
	for (int32_t k = w->rank - 1; k >= 0; k--) {
		idx += (at % w->od[k]) * w->stride[(size_t)i * (size_t)w->rank + (size_t)k];
		at /= w->od[k];
	}
	return idx;
}

/* Content of output o (element type dt, shape rank/odims) from the integer contents of
 * inputs 0..n-1, whose shapes (numpy-aligned to the output) are shp. Needs every shape
 * fully known and every content known; otherwise sets nothing. */
static void content_map(infer_ctx *c, int32_t o, int32_t dt, int32_t rank, const dim *odims, const shape *shp,
			int32_t n, combine_fn comb, binary_fn f)
{
	if (n < 1 || n > MAX_CONTENT_OPS)
		return;
	const dim *vals[MAX_CONTENT_OPS];
	int32_t nvals[MAX_CONTENT_OPS];
	for (int32_t i = 0; i < n; i++)
		if (!in_ints(c, i, &vals[i], &nvals[i]))
			return;
	walk_plan w;
	if (!plan_walk(c, o, rank, odims, shp, n, nvals, &w))
		return;
	dim *out = dims_alloc(c, (int32_t)(w.count > 0 ? w.count : 1));
	if (!out)
		return;
	dim e[MAX_CONTENT_OPS];
	for (int64_t at = 0; at < w.count; at++) {
		for (int32_t i = 0; i < n; i++)
			e[i] = dim_resolve(c->syms, vals[i][walk_index(&w, i, at)]);
		out[at] = comb(c->syms, e, n, dt, f);
	}
	set_out_ints(c, o, out, (int32_t)w.count);
}

/* The same for floating content (FLOAT, DOUBLE...): each result is computed in double
 * and rounded to dt, which for + - * / of floats gives exactly the float result
 * (double holds more than twice float's precision). A NaN, or a value dt cannot be
 * rounded to here, and nothing is set: runtimes differ on NaNs' bits. */
typedef double (*fbinary_fn)(double a, double b);

static void content_map_f(infer_ctx *c, int32_t o, int32_t dt, int32_t rank, const dim *odims, const shape *shp,
			  fbinary_fn f)
{
	const double *vals[2];
	int32_t nvals[2];
	for (int32_t i = 0; i < 2; i++)
		if (!in_floats(c, i, &vals[i], &nvals[i]))
			return;
	walk_plan w;
	if (!plan_walk(c, o, rank, odims, shp, 2, nvals, &w))
		return;
	double *out = arena_array(c->a, w.count > 0 ? (size_t)w.count : 1, sizeof *out);
	if (!out) {
		c->m->nomem = true;
		return;
	}
	for (int64_t at = 0; at < w.count; at++) {
		double r = f(vals[0][walk_index(&w, 0, at)], vals[1][walk_index(&w, 1, at)]);
		if (isnan(r) || !to_float(r, dt, &out[at]))
			return;
	}
	set_out_floats(c, o, out, (int32_t)w.count);
}

/* ---- broadcasting -------------------------------------------------------------------- */

static int32_t max_rank(infer_ctx *c, int32_t first, int32_t n)
{
	int32_t r = 0;
	for (int32_t i = first; i < first + n; i++) {
		const tinfo *t = in(c, i);
		if (is_tensor(t) && t->rank > r)
			r = t->rank;
	}
	return r > RULE_MAX_RANK ? RULE_MAX_RANK : r;
}

/* Broadcasts inputs ia and ib under rule into *dims: `small` (SCRATCH_SMALL dims, the
 * caller's) when the result fits there, else arena dims. False after a reported
 * mismatch. */
static bool bcast2(infer_ctx *c, bcast_rule rule, int32_t ia, int32_t ib, int64_t axis, dim *small, int32_t *rank,
		   dim **dims)
{
	/* The usual pair, both ranks known and small: what infer_broadcast would find
	 * first (bcast_plain), without sizing the room by max_rank. */
	const tinfo *ta = in(c, ia), *tb = in(c, ib);
	if (is_tensor(ta) && is_tensor(tb) && ta->rank >= 0 && tb->rank >= 0 && ta->rank <= SCRATCH_SMALL &&
	    tb->rank <= SCRATCH_SMALL && bcast_plain(c, rule, tinfo_shape(ta), tinfo_shape(tb), small)) {
		*dims = small;
		*rank = ta->rank > tb->rank ? ta->rank : tb->rank;
		return true;
	}
	int32_t ra = max_rank(c, ia, 1), rb = max_rank(c, ib, 1), cap = ra > rb ? ra : rb;
	*dims = dims_room(c, small, cap);
	*rank = RANK_UNKNOWN;
	if (!*dims)
		return false;
	return infer_broadcast(c, rule, ia, ib, axis, rank, *dims, cap);
}

/* Numpy broadcast of all inputs 0..n-1, left to right (Sum, Max, Where...). On a
 * mismatch the pair of inputs that disagree is reported (by infer_broadcast, which
 * names both); when the mismatch only shows against the combined earlier inputs, the
 * message names the failing input and the result so far. */
static bool bcast_fold(infer_ctx *c, int32_t n, int32_t *rank, dim **dims)
{
	int32_t cap = max_rank(c, 0, n);
	shape *ops = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *ops);
	*dims = dims_alloc(c, cap);
	*rank = RANK_UNKNOWN;
	if (!ops || !*dims) {
		c->m->nomem = true;
		return false;
	}
	for (int32_t i = 0; i < n; i++) {
		const tinfo *t = in(c, i);
		ops[i] = (shape){RANK_UNKNOWN, NULL};
		if (!is_tensor(t) || t->rank < 0 || t->rank > RULE_MAX_RANK)
			continue;
		dim *d = dims_alloc(c, t->rank);
		if (!d)
			return false;
		for (int32_t k = 0; k < t->rank; k++)
			d[k] = dim_resolve(c->syms, t->dims[k]);
		ops[i] = (shape){t->rank, d};
	}
	sym_ctx sc = {sym_eq_cb, c->syms};
	bcast_out out = {.dims = *dims};
	bcast_error err = {0};
	if (bcast_numpy_n(ops, n, &sc, &out, &err)) {
		*rank = out.rank;
		return true;
	}
	int32_t k = err.input;
	dim *scratch = dims_alloc(c, cap);
	for (int32_t j = 0; scratch && j < k; j++) {
		int32_t r;
		if (!infer_broadcast(c, BCAST_NUMPY, j, k, -1, &r, scratch, cap))
			return false;
	}
	infer_diag(c, OSH_ERROR, DIAG_BROADCAST_MISMATCH,
		   "'%s' %s does not broadcast with inputs 0 to %d together (numpy rule): size %s meets %s",
		   in_name(c, k), fmt_shape(c, in(c, k)), k - 1, fmt_dim(c, err.b), fmt_dim(c, err.a));
	return false;
}

/* ---- unary ---------------------------------------------------------------------------- */

/* Unary operators that differ from "same shape, same type, no content". */
typedef struct unary_op {
	const char *op;
	int32_t out_elem; /* 0: the input's */
	unary_fn content;
	double (*fcontent)(double); /* on floating content: exact in any floating type */
} unary_op;

static double fv_neg(double a) { return -a; }
static double fv_relu(double a) { return a > 0 ? a : 0.0; }

static const unary_op unary_ops[] = {
	{"IsInf", DT_BOOL, NULL, NULL},
	{"IsNaN", DT_BOOL, NULL, NULL},
	{"Neg", 0, cv_neg, fv_neg},
	{"Abs", 0, cv_abs, fabs},
	{"Ceil", 0, NULL, ceil},
	{"Floor", 0, NULL, floor},
	{"Relu", 0, NULL, fv_relu},
};

void infer_unary_elementwise(infer_ctx *c)
{
	if (!arity(c, 1, 1, 1))
		return;
	const unary_op *u = NULL;
	for (size_t i = 0; i < sizeof unary_ops / sizeof unary_ops[0] && !u; i++)
		if (op_is(c->n->op_type, unary_ops[i].op))
			u = &unary_ops[i];
	const tinfo *x = in(c, 0);
	int32_t elem = u && u->out_elem ? u->out_elem : elem_of(x);
	same_shape(c, 0, x, elem);
	const dim *v;
	const double *fv;
	int32_t nv;
	if (u && u->fcontent && is_floating(elem) && in_floats(c, 0, &fv, &nv) && known_count(c, x) == nv) {
		double *r = arena_array(c->a, nv > 0 ? (size_t)nv : 1, sizeof *r);
		if (!r) {
			c->m->nomem = true;
			return;
		}
		for (int32_t k = 0; k < nv; k++)
			if (isnan(r[k] = u->fcontent(fv[k])))
				return;
		set_out_floats(c, 0, r, nv);
		return;
	}
	if (!u || !u->content || !in_ints(c, 0, &v, &nv) || known_count(c, x) != nv)
		return;
	dim *r = dims_alloc(c, nv);
	if (!r)
		return;
	for (int32_t k = 0; k < nv; k++)
		r[k] = u->content(c->syms, dim_resolve(c->syms, v[k]), elem);
	set_out_ints(c, 0, r, nv);
}

/* Identity copies everything: tensors, sequences, optionals, and their content. */
void infer_identity(infer_ctx *c)
{
	if (!arity(c, 1, 1, 1))
		return;
	const tinfo *x = in(c, 0);
	if (x && x->kind != TK_UNKNOWN)
		set_out_info(c, 0, x);
}

/* ---- binary --------------------------------------------------------------------------- */

typedef enum out_type {
	OUT_SAME,  /* T, shared by both inputs */
	OUT_FIRST, /* the first input's type (Pow: base T, exponent T1) */
	OUT_BOOL,  /* comparisons and logic */
} out_type;

typedef struct binary_op {
	const char *op;
	out_type out;
	binary_fn content;
	fbinary_fn fcontent; /* on floating content */
} binary_op;

static double fv_add(double a, double b) { return a + b; }
static double fv_sub(double a, double b) { return a - b; }
static double fv_mul(double a, double b) { return a * b; }
static double fv_div(double a, double b) { return a / b; }

static const binary_op binary_ops[] = {
	{"Add", OUT_SAME, cv_add, fv_add},
	{"Sub", OUT_SAME, cv_sub, fv_sub},
	{"Mul", OUT_SAME, cv_mul, fv_mul},
	{"Div", OUT_SAME, cv_div, fv_div},
	{"Pow", OUT_FIRST, NULL, NULL},
	{"Mod", OUT_SAME, cv_mod, NULL},
	{"BitShift", OUT_SAME, NULL, NULL},
	{"BitwiseAnd", OUT_SAME, NULL, NULL},
	{"BitwiseOr", OUT_SAME, NULL, NULL},
	{"BitwiseXor", OUT_SAME, NULL, NULL},
	{"And", OUT_BOOL, NULL, NULL},
	{"Or", OUT_BOOL, NULL, NULL},
	{"Xor", OUT_BOOL, NULL, NULL},
	{"Equal", OUT_BOOL, cv_equal, NULL},
	{"Greater", OUT_BOOL, NULL, NULL},
	{"Less", OUT_BOOL, NULL, NULL},
	{"GreaterOrEqual", OUT_BOOL, NULL, NULL},
	{"LessOrEqual", OUT_BOOL, NULL, NULL},
};

static const binary_op *find_binary(const char *op)
{
	for (size_t i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
		if (op_is(op, binary_ops[i].op))
			return &binary_ops[i];
	return NULL;
}

static int32_t binary_elem(infer_ctx *c, const binary_op *op)
{
	if (!op)
		return 0;
	switch (op->out) {
	case OUT_BOOL: return DT_BOOL;
	case OUT_FIRST: return elem_of(in(c, 0));
	case OUT_SAME: break;
	}
	return shared_elem(c, 0, 2);
}

/* Shared by both rules; shp are the operand shapes numpy-aligned to the result. */
static void binary_finish(infer_ctx *c, const binary_op *op, int32_t rank, const dim *d, const shape *shp)
{
	int32_t elem = binary_elem(c, op);
	set_out(c, 0, elem, rank, d);
	/* Mod with fmod 1 truncates, as C's fmod: not what cv_mod computes. */
	if (op && op->content && !(op->content == cv_mod && attr_i(c, "fmod", 0) != 0))
		content_map(c, 0, elem, rank, d, shp, 2, fold_combine, op->content);
	if (op && op->fcontent && is_floating(elem))
		content_map_f(c, 0, elem, rank, d, shp, op->fcontent);
}

/* Opset >= 7: numpy broadcasting. A `broadcast`/`axis` attribute left over from an
 * older opset is ignored here (the lint pass reports it). */
void infer_binary_elementwise(infer_ctx *c)
{
	if (!arity(c, 2, 2, 1))
		return;
	int32_t rank;
	dim small[SCRATCH_SMALL], *d;
	if (!bcast2(c, BCAST_NUMPY, 0, 1, -1, small, &rank, &d))
		return;
	shape shp[2];
	fill_operand_shapes(c, 2, shp);
	binary_finish(c, find_binary(c->n->op_type), rank, d, shp);
}

/* Opsets 1 and 6: B must have A's shape, unless broadcast=1, when B is placed inside A
 * at `axis` (pdpd rule); the result always has A's shape. */
void infer_binary_legacy(infer_ctx *c)
{
	if (!arity(c, 2, 2, 1))
		return;
	bool pdpd = attr_i(c, "broadcast", 0) != 0;
	int64_t axis = attr_i(c, "axis", -1);
	int32_t rank;
	dim small[SCRATCH_SMALL], *d;
	if (!bcast2(c, pdpd ? BCAST_PDPD : BCAST_NONE, 0, 1, axis, small, &rank, &d))
		return;
	shape ops[2], *shp = ops;
	fill_operand_shapes(c, 2, ops);
	if (pdpd) {
		/* Content maps like numpy once B is reshaped to its pdpd placement. */
		bool placed = false;
		if (shp[0].rank >= 0 && shp[0].rank <= RULE_MAX_RANK) {
			dim *b = dims_alloc(c, shp[0].rank);
			int32_t brank;
			if (b && bcast_pdpd_reshape(shp[0], shp[1], axis, b, &brank)) {
				shp[1] = (shape){brank, b};
				placed = true;
			}
		}
		if (!placed)
			shp = NULL;
	}
	binary_finish(c, find_binary(c->n->op_type), rank, d, shp);
}

/* ---- variadic ------------------------------------------------------------------------- */

typedef struct variadic_op {
	const char *op;
	binary_fn content;
} variadic_op;

/* Mean has no integer types, so no content. */
static const variadic_op variadic_ops[] = {
	{"Sum", cv_add},
	{"Max", cv_max},
	{"Min", cv_min},
	{"Mean", NULL},
};

static binary_fn variadic_content(const char *op)
{
	for (size_t i = 0; i < sizeof variadic_ops / sizeof variadic_ops[0]; i++)
		if (op_is(op, variadic_ops[i].op))
			return variadic_ops[i].content;
	return NULL;
}

/* Whether all n inputs are given: the variadic operators have no optional input. */
static bool none_omitted(infer_ctx *c, int32_t n)
{
	for (int32_t i = 0; i < n; i++) {
		if (!in(c, i)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s: input %d is omitted; no input is optional",
				   c->n->op_type, i);
			return false;
		}
	}
	return true;
}

/* Opset >= 8: numpy broadcasting over all inputs. */
void infer_variadic_elementwise(infer_ctx *c)
{
	if (!arity(c, 1, -1, 1))
		return;
	int32_t n = in_count(c);
	/* Trailing empty inputs the schema check let through (a branch ONNX Runtime
	 * inlines without them) are not operands. */
	while (n > 1 && !in(c, n - 1))
		n--;
	if (!none_omitted(c, n))
		return;
	int32_t rank;
	dim *d;
	if (!bcast_fold(c, n, &rank, &d))
		return;
	int32_t elem = shared_elem(c, 0, n);
	set_out(c, 0, elem, rank, d);
	binary_fn f = variadic_content(c->n->op_type);
	if (f)
		content_map(c, 0, elem, rank, d, operand_shapes(c, n), n, fold_combine, f);
}

/* Opsets 1 and 6: every input has the same shape. */
void infer_variadic_legacy(infer_ctx *c)
{
	if (!arity(c, 1, -1, 1))
		return;
	int32_t n = in_count(c);
	if (!none_omitted(c, n))
		return;
	/* Compare every input with the first one whose rank is known: what each
	 * comparison knows (known beats unknown, symbols bound) is the result. */
	int32_t base = -1;
	for (int32_t i = 0; i < n && base < 0; i++)
		if (tinfo_has_rank(in(c, i)) && in(c, i)->rank <= RULE_MAX_RANK)
			base = i;
	int32_t rank = RANK_UNKNOWN;
	dim *acc = NULL;
	if (base >= 0) {
		rank = in(c, base)->rank;
		acc = dims_dup(c, in(c, base)->dims, rank);
		if (!acc)
			return;
	}
	for (int32_t k = base + 1; base >= 0 && k < n; k++) {
		int32_t r;
		dim small[SCRATCH_SMALL], *d;
		if (!bcast2(c, BCAST_NONE, base, k, -1, small, &r, &d))
			return;
		for (int32_t j = 0; j < rank && r == rank; j++)
			dim_merge(c, acc[j], d[j], &acc[j]);
	}
	int32_t elem = shared_elem(c, 0, n);
	set_out(c, 0, elem, rank, acc);
	binary_fn f = variadic_content(c->n->op_type);
	if (f)
		content_map(c, 0, elem, rank, acc, operand_shapes(c, n), n, fold_combine, f);
}

/* Where(condition, X, Y): numpy over the three; the type is X's (and Y's). */
void infer_where(infer_ctx *c)
{
	if (!arity(c, 3, 3, 1))
		return;
	int32_t rank;
	dim *d;
	if (!bcast_fold(c, 3, &rank, &d))
		return;
	int32_t elem = shared_elem(c, 1, 2);
	set_out(c, 0, elem, rank, d);
	content_map(c, 0, elem, rank, d, operand_shapes(c, 3), 3, where_combine, NULL);
}

/* ---- PRelu, Clip ------------------------------------------------------------------------ */

/* Opsets 1 and 6: Y has X's shape (slope is per channel or a single value). */
void infer_prelu1(infer_ctx *c)
{
	if (!arity(c, 2, 2, 1))
		return;
	same_shape(c, 0, in(c, 0), shared_elem(c, 0, 2));
}

/* Opset >= 7: slope broadcasts to X, unidirectionally. */
void infer_prelu7(infer_ctx *c)
{
	if (!arity(c, 2, 2, 1))
		return;
	int32_t rank;
	dim small[SCRATCH_SMALL], *d;
	if (!bcast2(c, BCAST_UNIDIRECTIONAL, 0, 1, -1, small, &rank, &d))
		return;
	set_out(c, 0, shared_elem(c, 0, 2), rank, d);
}

/* Opsets 1 and 6: min and max are attributes. */
void infer_clip1(infer_ctx *c)
{
	if (!arity(c, 1, 1, 1))
		return;
	same_shape(c, 0, in(c, 0), elem_of(in(c, 0)));
}

/* Opset >= 11: optional min and max inputs, each a single value ("a scalar"; a
 * one-element tensor is accepted as runtimes do). */
void infer_clip11(infer_ctx *c)
{
	if (!arity(c, 1, 3, 1))
		return;
	static const char *const names[] = {NULL, "min", "max"};
	for (int32_t i = 1; i < in_count(c); i++) {
		int64_t n = known_count(c, in(c, i));
		if (n >= 0 && n != 1) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Clip: '%s' (%s) must be a scalar, it has shape %s",
				   in_name(c, i), names[i], fmt_shape(c, in(c, i)));
			return;
		}
	}
	same_shape(c, 0, in(c, 0), shared_elem(c, 0, in_count(c)));
}

/* ---- Cast, CastLike ----------------------------------------------------------------------- */

/* One integer entry cast to integer type `to`: ONNX casts between integer types keep
 * the low bits (two's complement), as C and numpy do. A symbol is kept where it fits:
 * 64-bit types (a size is below 2^63), and INT32, which exporters cast sizes to for
 * their index arithmetic (an anchor grid's Range over a feature map's width): a size
 * of 2^31 along one axis is past any tensor such arithmetic is written for. Narrower
 * types could wrap a size we do not know, so the entry becomes unknown. */
static dim cast_int_entry(dim a, const int_type *to)
{
	if (a.kind == DIM_SYMBOL)
		return to->bits == 64 || (to->bits == 32 && to->is_signed) ? a : dim_unknown();
	if (a.kind != DIM_KNOWN)
		return a;
	if (to->bits == 1)
		return dim_known(a.v != 0);
	if (to->bits == 64)
		return to->is_signed || a.v >= 0 ? a : dim_unknown();
	uint64_t mask = (UINT64_C(1) << to->bits) - 1, u = (uint64_t)a.v & mask;
	if (to->is_signed && (u >> (to->bits - 1)))
		return dim_known((int64_t)u - (int64_t)(mask + 1));
	return dim_known((int64_t)u);
}

/* One floating entry cast to an integer type: truncation toward zero; NaN, infinities
 * and values out of the type's range are undefined in ONNX: unknown. */
static dim cast_float_entry(double x, const int_type *to)
{
	if (to->bits == 1)
		return dim_known(x != 0.0);
	int64_t v;
	return f64_to_i64(x, &v) && fits(to->dt, v) ? dim_known(v) : dim_unknown();
}

/* A value as stored in floating type `to`, when we can round to it exactly: double and
 * float are what C gives; half and bfloat16 only for values they hold exactly. */
static bool to_float(double x, int32_t to, double *out)
{
	switch (to) {
	case DT_DOUBLE: *out = x; return true;
	case DT_FLOAT: *out = (double)(float)x; return true;
	case DT_FLOAT16: *out = x; return x == trunc(x) && fabs(x) <= 2048.0;
	case DT_BFLOAT16: *out = x; return x == trunc(x) && fabs(x) <= 256.0;
	default: return false;
	}
}

/* Output 0 = input 0's shape as element type `to`, with the content it can carry. */
static void cast_to(infer_ctx *c, int32_t to)
{
	const tinfo *x = in(c, 0);
	same_shape(c, 0, x, to);
	if (!to || !is_tensor(x))
		return;
	int64_t count = known_count(c, x);
	const int_type *it = int_type_of(to);
	const dim *v;
	const double *fv;
	int32_t n;
	if (in_ints(c, 0, &v, &n) && n == count) {
		if (it) {
			dim *r = dims_alloc(c, n);
			if (!r)
				return;
			for (int32_t k = 0; k < n; k++)
				r[k] = cast_int_entry(dim_resolve(c->syms, v[k]), it);
			set_out_ints(c, 0, r, n);
			return;
		}
		double *f = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *f);
		if (!f)
			return;
		/* Beyond 2^53 the int64 -> double step could round before the float one. */
		for (int32_t k = 0; k < n; k++) {
			dim d = dim_resolve(c->syms, v[k]);
			if (d.kind != DIM_KNOWN || d.v > (INT64_C(1) << 53) || d.v < -(INT64_C(1) << 53) ||
			    !to_float((double)d.v, to, &f[k]))
				return;
		}
		set_out_floats(c, 0, f, n);
		return;
	}
	if (in_floats(c, 0, &fv, &n) && n == count) {
		if (it) {
			dim *r = dims_alloc(c, n);
			if (!r)
				return;
			for (int32_t k = 0; k < n; k++)
				r[k] = cast_float_entry(fv[k], it);
			set_out_ints(c, 0, r, n);
			return;
		}
		double *f = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *f);
		if (!f)
			return;
		for (int32_t k = 0; k < n; k++)
			if (isnan(fv[k]) || !to_float(fv[k], to, &f[k]))
				return;
		set_out_floats(c, 0, f, n);
	}
}

/* Opset 1: `to` is a type name ("FLOAT", "INT64"). */
void infer_cast1(infer_ctx *c)
{
	if (!arity(c, 1, 1, 1))
		return;
	const char *s = attr_s(c, "to", NULL);
	int32_t to = 0;
	for (int32_t t = 1; s && t < DT_COUNT && !to; t++)
		if (dtype_name(t) && !strcmp(dtype_name(t), s))
			to = t;
	if (!to) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Cast: attribute 'to' must name an element type, got %s%s%s",
			   s ? "'" : "", s ? s : "none", s ? "'" : "");
		return;
	}
	cast_to(c, to);
}

/* Opset >= 6: `to` is a TensorProto.DataType. */
void infer_cast(infer_ctx *c)
{
	if (!arity(c, 1, 1, 1))
		return;
	const attr_view *a = attr(c, "to");
	if (!a || a->type != AT_INT || !dtype_valid(a->i)) {
		if (a && a->type == AT_INT)
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Cast: attribute 'to' (%lld) is not an element type",
				   (long long)a->i);
		else
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Cast: required attribute 'to' (an int) is missing");
		return;
	}
	cast_to(c, (int32_t)a->i);
}

/* CastLike(input, target_type): target_type gives only the element type. */
void infer_castlike(infer_ctx *c)
{
	if (!arity(c, 2, 2, 1))
		return;
	cast_to(c, elem_of(in(c, 1)));
}

/* ---- Dropout ------------------------------------------------------------------------------ */

/* Output = data; the optional mask has data's shape, and mask_elem (0: data's type). */
static void dropout(infer_ctx *c, int32_t in_hi, int32_t mask_elem, bool mask_filled)
{
	if (!arity(c, 1, in_hi, 2))
		return;
	/* ratio and training_mode (opset >= 12) are scalars. */
	static const char *const names[] = {NULL, "ratio", "training_mode"};
	for (int32_t i = 1; i < in_count(c) && i < 3; i++) {
		const tinfo *t = in(c, i);
		if (is_tensor(t) && t->rank > 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Dropout: '%s' (%s) must be a scalar, it has shape %s",
				   in_name(c, i), names[i], fmt_shape(c, t));
			return;
		}
	}
	const tinfo *x = in(c, 0);
	same_shape(c, 0, x, elem_of(x));
	if (mask_filled)
		same_shape(c, 1, x, mask_elem ? mask_elem : elem_of(x));
}

/* Opsets 1 and 6: the mask has data's type and is not filled when is_test != 0. */
void infer_dropout1(infer_ctx *c) { dropout(c, 1, 0, attr_i(c, "is_test", 0) == 0); }
/* Opset 7: no is_test; the mask still has data's type. */
void infer_dropout7(infer_ctx *c) { dropout(c, 1, 0, true); }
/* Opset 10: the mask is BOOL. */
void infer_dropout10(infer_ctx *c) { dropout(c, 1, DT_BOOL, true); }
/* Opset >= 12: ratio and training_mode are optional inputs. */
void infer_dropout12(infer_ctx *c) { dropout(c, 3, DT_BOOL, true); }

/* ---- Softmax, LogSoftmax, Hardmax ----------------------------------------------------------- */

static void softmax(infer_ctx *c, int64_t def_axis, bool inclusive)
{
	if (!arity(c, 1, 1, 1))
		return;
	const tinfo *x = in(c, 0);
	int32_t axis;
	if (!axis_of(c, x, attr_i(c, "axis", def_axis), inclusive, &axis))
		return;
	same_shape(c, 0, x, elem_of(x));
}

/* Opset 1: the input is coerced to 2-D at `axis` (default 1); axis = rank leaves an
 * empty second factor, which the coercion allows, so only axes past it are errors. */
void infer_softmax1(infer_ctx *c) { softmax(c, 1, true); }
/* Opset 11: axis in [-r, r-1], default 1. */
void infer_softmax11(infer_ctx *c) { softmax(c, 1, false); }
/* Opset >= 13: one axis, default -1. */
void infer_softmax13(infer_ctx *c) { softmax(c, -1, false); }

/* ---- normalisations --------------------------------------------------------------------------- */

/* Checks that input i is 1-D and that its size agrees with *size (known beats unknown;
 * a symbol is bound), merging into *size. `what` names the expected size. */
/* check_vector's report, out of line: the check runs for every parameter of every
 * normalisation, the report almost never. `before` is the size expected. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool vector_error(infer_ctx *c, int32_t i, const tinfo *t, dim before, const char *what)
{
	if (t->rank != 1)
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s: '%s' must be 1-D of size %s (%s), it has shape %s",
			   c->n->op_type, in_name(c, i), what, fmt_dim(c, before), fmt_shape(c, t));
	else
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s: '%s' has %s elements, it must have %s (%s)",
			   c->n->op_type, in_name(c, i), fmt_dim(c, t->dims[0]), what, fmt_dim(c, before));
	return false;
}

static inline bool check_vector(infer_ctx *c, int32_t i, dim *size, const char *what)
{
	const tinfo *t = in(c, i);
	if (!is_tensor(t) || t->rank < 0)
		return true;
	dim before = *size;
	if (t->rank != 1 || !dim_merge(c, *size, t->dims[0], size))
		return vector_error(c, i, t, before, what);
	return true;
}

/* The channel count C of an (N, C, ...) input: dim 1; for rank 1, 1 where the version
 * allows it (BatchNormalization >= 9), else an error, as is rank 0. */
static bool channels(infer_ctx *c, const tinfo *x, bool rank1_is_one, dim *ch)
{
	*ch = dim_unknown();
	if (!is_tensor(x) || x->rank < 0)
		return true;
	if (x->rank >= 2)
		*ch = x->dims[1];
	else if (x->rank == 1 && rank1_is_one)
		*ch = dim_known(1);
	else {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s: '%s' has shape %s; it must be (N, C, ...)",
			   c->n->op_type, in_name(c, 0), fmt_shape(c, x));
		return false;
	}
	return true;
}

typedef enum bn_outputs {
	BN_FIVE,     /* opsets 1-9: running mean/var and saved mean/var, type T */
	BN_TRAINING, /* opsets 14, 15: running mean/var only in training mode, type of input mean/var */
} bn_outputs;

static void batchnorm(infer_ctx *c, bool has_spatial, bool rank1_is_one, bn_outputs outs)
{
	if (!arity(c, 5, 5, outs == BN_FIVE ? 5 : 3))
		return;
	const tinfo *x = in(c, 0);
	bool spatial = !has_spatial || attr_i(c, "spatial", 1) != 0;
	bool training = outs == BN_TRAINING && attr_i(c, "training_mode", 0) != 0;
	if (outs == BN_TRAINING && !training && (out_present(c, 1) || out_present(c, 2))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "BatchNormalization: running_mean and running_var are only produced with "
			   "training_mode=1, but the node lists them with training_mode=0");
		return;
	}
	dim ch = dim_unknown();
	if (!channels(c, x, rank1_is_one, &ch))
		return;
	/* Not spatial (opsets 1-7): statistics are per (C, D1, ..., Dn), any shape. */
	if (spatial) {
		static const char *const what = "C, the channels of X";
		for (int32_t i = 1; i < 5; i++)
			if (!check_vector(c, i, &ch, what))
				return;
	}
	same_shape(c, 0, x, elem_of(x));
	if (outs == BN_TRAINING) {
		if (training) {
			set_out(c, 1, elem_of(in(c, 3)), 1, &ch);
			set_out(c, 2, elem_of(in(c, 4)), 1, &ch);
		}
		return;
	}
	for (int32_t o = 1; o < 5; o++) {
		if (spatial)
			set_out(c, o, elem_of(x), 1, &ch);
		else
			same_shape(c, o, in(c, 3), elem_of(x));
	}
}

/* Opsets 1 and 6: `spatial`, `is_test`; five outputs. */
void infer_batchnorm1(infer_ctx *c) { batchnorm(c, true, false, BN_FIVE); }
/* Opset 7: no is_test. */
void infer_batchnorm7(infer_ctx *c) { batchnorm(c, true, false, BN_FIVE); }
/* Opset 9: no spatial (always per channel); a 1-D X has C = 1. */
void infer_batchnorm9(infer_ctx *c) { batchnorm(c, false, true, BN_FIVE); }
/* Opsets 14 and 15: training_mode; three outputs. */
void infer_batchnorm14(infer_ctx *c) { batchnorm(c, false, true, BN_TRAINING); }

/* InstanceNormalization(input, scale, B): scale and B are (C). */
void infer_instancenorm(infer_ctx *c)
{
	if (!arity(c, 3, 3, 1))
		return;
	const tinfo *x = in(c, 0);
	dim ch;
	if (!channels(c, x, false, &ch) || !check_vector(c, 1, &ch, "C, the channels of the input") ||
	    !check_vector(c, 2, &ch, "C, the channels of the input"))
		return;
	same_shape(c, 0, x, elem_of(x));
}

/* Checks that inputs [first, last] broadcast unidirectionally to X (input 0). */
static bool into_x(infer_ctx *c, int32_t first, int32_t last)
{
	for (int32_t i = first; i <= last && i < in_count(c); i++) {
		int32_t rank;
		dim small[SCRATCH_SMALL], *d;
		if (in(c, i) && !bcast2(c, BCAST_UNIDIRECTIONAL, 0, i, -1, small, &rank, &d))
			return false;
	}
	return true;
}

/* Whether t is known to hold no element: a dimension of 0. */
static bool holds_no_element(const tinfo *t)
{
	for (int32_t k = 0; t && k < t->rank; k++)
		if (t->dims[k].kind == DIM_KNOWN && t->dims[k].v == 0)
			return true;
	return false;
}

/* LayerNormalization (17): Y = X; Mean and InvStdDev keep X's dims before `axis` and
 * have 1 from there on; their type is stash_type. Scale and B broadcast to X; a B of
 * no element ONNX Runtime's kernel takes for none. */
void infer_layernorm(infer_ctx *c)
{
	if (!arity(c, 2, 3, 3))
		return;
	const tinfo *x = in(c, 0);
	int32_t axis;
	if (!axis_of(c, x, attr_i(c, "axis", -1), false, &axis) || !into_x(c, 1, holds_no_element(in(c, 2)) ? 1 : 2))
		return;
	same_shape(c, 0, x, elem_of(x));
	int64_t stash = attr_i(c, "stash_type", DT_FLOAT);
	int32_t selem = dtype_valid(stash) ? (int32_t)stash : 0;
	if (axis < 0) {
		set_out(c, 1, selem, RANK_UNKNOWN, NULL);
		set_out(c, 2, selem, RANK_UNKNOWN, NULL);
		return;
	}
	dim small[SCRATCH_SMALL];
	dim *d = dims_room(c, small, x->rank);
	if (!d)
		return;
	memcpy(d, x->dims, (size_t)axis * sizeof *d);
	for (int32_t k = axis; k < x->rank; k++)
		d[k] = dim_known(1);
	set_out(c, 1, selem, x->rank, d);
	set_out(c, 2, selem, x->rank, d);
}

/* GroupNormalization: num_groups must divide C; scale and bias are (num_groups) in
 * opset 18, (C) from 21. */
static void groupnorm(infer_ctx *c, bool per_channel)
{
	if (!arity(c, 3, 3, 1))
		return;
	const attr_view *a = attr(c, "num_groups");
	if (!a || a->type != AT_INT || a->i <= 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "GroupNormalization: attribute 'num_groups' (required) must be a positive int");
		return;
	}
	const tinfo *x = in(c, 0);
	dim ch;
	if (!channels(c, x, false, &ch))
		return;
	dim r = dim_resolve(c->syms, ch);
	if (r.kind == DIM_KNOWN && r.v % a->i != 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "GroupNormalization: num_groups (%lld) must divide the channels of '%s' (%lld)",
			   (long long)a->i, in_name(c, 0), (long long)r.v);
		return;
	}
	dim g = dim_known(a->i);
	dim *size = per_channel ? &ch : &g;
	const char *what = per_channel ? "C, the channels of X" : "num_groups";
	if (!check_vector(c, 1, size, what) || !check_vector(c, 2, size, what))
		return;
	same_shape(c, 0, x, elem_of(x));
}

void infer_groupnorm18(infer_ctx *c) { groupnorm(c, false); }
void infer_groupnorm21(infer_ctx *c) { groupnorm(c, true); }

/* RMSNormalization (23): Y has X's shape and scale's type (V); scale broadcasts to X. */
void infer_rmsnorm(infer_ctx *c)
{
	if (!arity(c, 2, 2, 1))
		return;
	const tinfo *x = in(c, 0);
	int32_t axis;
	if (!axis_of(c, x, attr_i(c, "axis", -1), false, &axis) || !into_x(c, 1, 1))
		return;
	same_shape(c, 0, x, elem_of(in(c, 1)));
}

/* LpNormalization: one axis, p 1 or 2. */
void infer_lpnorm(infer_ctx *c)
{
	if (!arity(c, 1, 1, 1))
		return;
	const tinfo *x = in(c, 0);
	int64_t p = attr_i(c, "p", 2);
	int32_t axis;
	if (p != 1 && p != 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "LpNormalization: p must be 1 or 2, got %lld", (long long)p);
		return;
	}
	if (!axis_of(c, x, attr_i(c, "axis", -1), false, &axis))
		return;
	same_shape(c, 0, x, elem_of(x));
}

/* MeanVarianceNormalization: given `axes` must lie in X's rank (the default [0, 2, 3]
 * is the spec's, not checked: it describes the usual NCHW input). */
void infer_mvn(infer_ctx *c)
{
	if (!arity(c, 1, 1, 1))
		return;
	const tinfo *x = in(c, 0);
	const int64_t *axes;
	int32_t n, axis;
	if (attr_ints(c, "axes", &axes, &n))
		for (int32_t k = 0; k < n; k++)
			if (!axis_of(c, x, axes[k], false, &axis))
				return;
	same_shape(c, 0, x, elem_of(x));
}

/* ---- SwiGLU ---- */

void infer_swiglu(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	if (!elem)
		elem = in_elem(c, 1);
	set_out_elem(c, 0, elem);
	const tinfo *a = in_ranked(c, 0), *b = in_ranked(c, 1);
	if (a && b && a->rank != b->rank) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "A '%s' %s and B '%s' %s must have the same shape", in_name(c, 0),
			   fmt_shape(c, a), in_name(c, 1), fmt_shape(c, b));
		return;
	}
	const tinfo *t = a ? a : b;
	if (!t || t->rank > RULE_MAX_RANK)
		return;
	dim small[SCRATCH_SMALL], *y = dims_room(c, small, t->rank);
	if (!y)
		return;
	for (int32_t k = 0; k < t->rank; k++) {
		y[k] = t->dims[k];
		if (a && b && !nn_merge_dim(c, &y[k], b->dims[k], "a dim of A", 1))
			return;
	}
	set_out(c, 0, elem, t->rank, y);
}
