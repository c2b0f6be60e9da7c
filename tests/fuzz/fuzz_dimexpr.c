/* fuzz_dimexpr.c: libFuzzer target for dimension expressions (core/dimexpr.c) and the
 * facts over them (core/symbols.c), called directly rather than through a model: the
 * one target that uses the library's internal functions (it links
 * onnxshape_internal). See fuzz.h.
 *
 * The input is lines. A line "?I=J" unifies the dims of lines I and J, "?I:V" binds
 * line I's dim to the number V (strtoll: INT64_MIN and INT64_MAX are in reach); any
 * other line is a dim_param, read by dx_parse. Every pair of those dims and of the
 * numbers at int64's edges (0, 1, -1, 2, INT64_MIN, INT64_MAX) then goes through
 * every operation (add, sub, mul, floordiv, ceildiv, mod, divexact, max, min) and the
 * queries (nonneg, diff_const, linear, args_of, occurs, printing); the facts are
 * recorded between two rounds of that, and every dim resolved after them.
 *
 * Promises checked: no crash and no undefined behaviour (the sanitizers); every
 * result is a number, unknown, or an id in the table whose text prints; a fact
 * recorded holds (a dim bound to V resolves to V); and every operation is exact
 * wherever it answers: with each name replaced by a size (a value >= 0 that the
 * input does not choose), an operation's result, where it evaluates to a number, is
 * what int64 arithmetic gives on its evaluated operands (an operation may give
 * unknown, never a wrong size; dimexpr.h). Names that are not identifiers ("7",
 * "a b") included: expressions are interned by their text, which quotes them
 * (tests/fuzz/crashes/dimexpr-name-prints-as-number: `7` and 7 were one text).
 */
#include "fuzz.h"

#include "core/arena.h"
#include "core/checked.h"
#include "core/dimexpr.h"
#include "core/symbols.h"

#include <errno.h>

#define MAX_LINES 6
#define MAX_FACTS 8
#define LINE_MAX_LEN (2 * DX_MAX_TEXT)

static const int64_t edges[] = {0, 1, -1, 2, INT64_MIN, INT64_MAX};
#define NEDGES ((int)(sizeof edges / sizeof edges[0]))

typedef struct fact {
	int i, j; /* ?I=J */
	bool bind;
	int64_t v; /* ?I:V */
} fact;

enum { OP_ADD, OP_SUB, OP_MUL, OP_FLOORDIV, OP_CEILDIV, OP_MOD, OP_DIVEXACT, OP_MAX, OP_MIN, NOPS };

static dim apply(symtab *t, int op, dim a, dim b)
{
	switch (op) {
	case OP_ADD: return dx_add(t, a, b);
	case OP_SUB: return dx_sub(t, a, b);
	case OP_MUL: return dx_mul(t, a, b);
	case OP_FLOORDIV: return dx_floordiv(t, a, b);
	case OP_CEILDIV: return dx_ceildiv(t, a, b);
	case OP_MOD: return dx_mod(t, a, b);
	case OP_DIVEXACT: return dx_divexact(t, a, b);
	case OP_MAX: return dx_max(t, a, b);
	default: return dx_min(t, a, b);
	}
}

/* What int64 arithmetic gives for op on numbers, when it is defined there and in
 * the operation's contract (divisors > 0 for floor, ceil and Mod). */
static bool exact(int op, int64_t a, int64_t b, int64_t *r)
{
	switch (op) {
	case OP_ADD: return !__builtin_add_overflow(a, b, r);
	case OP_SUB: return !__builtin_sub_overflow(a, b, r);
	case OP_MUL: return !__builtin_mul_overflow(a, b, r);
	case OP_FLOORDIV: return b > 0 && i64_floordiv(a, b, r);
	case OP_CEILDIV: return b > 0 && i64_ceildiv(a, b, r);
	case OP_MOD: return b > 0 && i64_floormod(a, b, r);
	case OP_DIVEXACT: return i64_divexact(a, b, r);
	case OP_MAX: *r = a > b ? a : b; return true;
	default: *r = a < b ? a : b; return true;
	}
}

static const char *const op_names[] = {"add", "sub", "mul", "floordiv", "ceildiv", "mod", "divexact", "max", "min"};

typedef struct run {
	symtab *t;
	char text[256];
} run;

/* A name's size: fixed by its id, so the input cannot pick it. */
static dim size_of(void *ctx, int64_t atom)
{
	symtab *t = ctx;
	if (t->v[atom].kind != DX_NAME)
		return dim_symbol(atom);
	return dim_known((int64_t)((uint64_t)atom * 2654435761u % 13));
}

static const char *show(run *r, dim d)
{
	dim_format(r->text, sizeof r->text, d, sym_name_cb, r->t);
	return r->text;
}

static void check_dim(run *r, dim d, const char *what)
{
	symtab *t = r->t;
	if (d.kind == DIM_SYMBOL) {
		if (d.v < 0 || d.v >= t->n)
			fuzz_fail("%s: symbol id %lld outside the table (%lld)", what, (long long)d.v, (long long)t->n);
		if (!sym_name(t, d.v))
			fuzz_fail("%s: symbol %lld has no text", what, (long long)d.v);
		if (t->v[d.v].kind > DX_MIN || (t->v[d.v].kind != DX_NAME && !t->v[d.v].def))
			fuzz_fail("%s: symbol %lld ('%s') is kind %d without its definition", what, (long long)d.v,
				  sym_name(t, d.v), (int)t->v[d.v].kind);
	} else if (d.kind != DIM_KNOWN && d.kind != DIM_UNKNOWN) {
		fuzz_fail("%s: a dim of kind %d", what, (int)d.kind);
	}
	char buf[8];
	dim_format(buf, sizeof buf, d, sym_name_cb, t); /* printing into a short buffer */
	(void)show(r, d);
}

static void query(run *r, dim a, dim b)
{
	symtab *t = r->t;
	int64_t diff, atom, c, k, n;
	(void)dx_nonneg(t, a);
	if (dx_diff_const(t, a, b, &diff) && a.kind == DIM_KNOWN && b.kind == DIM_KNOWN) {
		int64_t want;
		if (__builtin_sub_overflow(a.v, b.v, &want) || want != diff)
			fuzz_fail("diff_const(%lld, %lld) = %lld", (long long)a.v, (long long)b.v, (long long)diff);
	}
	if (dx_linear(t, a, &atom, &c, &k) && (atom < 0 || atom >= t->n))
		fuzz_fail("linear: atom %lld outside the table", (long long)atom);
	const dim *args = dx_args_of(t, a, DX_MAX, &n);
	for (int64_t i = 0; args && i < n; i++)
		check_dim(r, args[i], "Max argument");
	args = dx_args_of(t, a, DX_MIN, &n);
	for (int64_t i = 0; args && i < n; i++)
		check_dim(r, args[i], "Min argument");
	if (b.kind == DIM_SYMBOL && t->v[b.v].kind == DX_NAME)
		(void)dx_occurs(t, a, b.v);
}

/* Every pair of pool[0..npool) but those of two edge numbers (from nd on). */
static void operate(run *r, const dim *pool, int nd, int npool)
{
	symtab *t = r->t;
	for (int i = 0; i < npool; i++) {
		for (int j = 0; j < npool; j++) {
			dim a = pool[i], b = pool[j];
			if (i >= nd && j >= nd)
				continue; /* nothing of the input */
			query(r, a, b);
			dim ea = dx_subst(t, a, size_of, t), eb = dx_subst(t, b, size_of, t);
			for (int op = 0; op < NOPS; op++) {
				dim d = apply(t, op, a, b);
				check_dim(r, d, op_names[op]);
				if (ea.kind != DIM_KNOWN || eb.kind != DIM_KNOWN)
					continue;
				dim ed = dx_subst(t, d, size_of, t);
				int64_t want;
				if (ed.kind == DIM_KNOWN && exact(op, ea.v, eb.v, &want) && ed.v != want) {
					char sa[256], sb[256];
					dim_format(sa, sizeof sa, a, sym_name_cb, t);
					dim_format(sb, sizeof sb, b, sym_name_cb, t);
					fuzz_fail("%s(%s, %s) is %s, which evaluates to %lld where the operands are %lld "
						  "and %lld: want %lld",
						  op_names[op], sa, sb, show(r, d), (long long)ed.v, (long long)ea.v,
						  (long long)eb.v, (long long)want);
				}
			}
		}
	}
}

/* "?I=J" or "?I:V" into f; false when the line is neither. */
static bool parse_fact(const char *s, int nlines, fact *f)
{
	if (s[0] != '?' || s[1] < '0' || s[1] > '7' || s[1] - '0' >= nlines)
		return false;
	f->i = s[1] - '0';
	if (s[2] == '=' && s[3] >= '0' && s[3] <= '7' && s[3] - '0' < nlines && !s[4]) {
		f->bind = false;
		f->j = s[3] - '0';
		return true;
	}
	if (s[2] != ':')
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s + 3, &end, 10);
	if (end == s + 3 || *end || errno)
		return false;
	f->bind = true;
	f->v = v;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	arena *a = arena_new(64u << 20);
	if (!a)
		return 0;
	symtab t;
	symtab_init(&t, a);
	run r = {&t, {0}};
	char *lines[MAX_LINES + MAX_FACTS];
	int nl = 0;
	for (size_t at = 0; at < size && nl < MAX_LINES + MAX_FACTS;) {
		size_t end = at;
		while (end < size && data[end] != '\n')
			end++;
		size_t len = end - at < LINE_MAX_LEN ? end - at : LINE_MAX_LEN;
		char *s = arena_alloc(a, len + 1);
		if (!s)
			break;
		memcpy(s, data + at, len);
		s[len] = '\0'; /* a NUL inside cuts the text, as a C string */
		lines[nl++] = s;
		at = end + 1;
	}
	dim pool[MAX_LINES + NEDGES];
	int nd = 0;
	fact facts[MAX_FACTS];
	int nf = 0;
	for (int i = 0; i < nl; i++) {
		fact f;
		if (parse_fact(lines[i], nd, &f)) {
			if (nf < MAX_FACTS)
				facts[nf++] = f;
		} else if (nd < MAX_LINES) {
			pool[nd] = dx_parse(&t, lines[i]);
			check_dim(&r, pool[nd], "dx_parse");
			nd++;
		}
	}
	for (int i = 0; i < NEDGES; i++)
		pool[nd + i] = dim_known(edges[i]);
	operate(&r, pool, nd, nd + NEDGES);
	for (int i = 0; i < nf; i++) {
		const fact *f = &facts[i];
		dim x = dim_resolve(&t, pool[f->i]);
		if (x.kind != DIM_SYMBOL)
			continue;
		if (f->bind) {
			if (sym_bind(&t, x.v, f->v)) {
				dim now = dim_resolve(&t, x);
				if (!t.nomem && !dim_is(now, f->v))
					fuzz_fail("%s bound to %lld resolves to %s", sym_name(&t, x.v), (long long)f->v,
						  show(&r, now));
			}
			continue;
		}
		dim y = dim_resolve(&t, pool[f->j]);
		if (y.kind == DIM_SYMBOL && sym_unify(&t, x.v, y.v)) {
			if (!sym_same(&t, x.v, y.v))
				fuzz_fail("%s and %s unified are not the same", sym_name(&t, x.v), sym_name(&t, y.v));
			dim nx = dim_resolve(&t, x), ny = dim_resolve(&t, y);
			if (!t.nomem && !dim_eq(nx, ny)) {
				char sx[256];
				dim_format(sx, sizeof sx, nx, sym_name_cb, &t);
				fuzz_fail("%s and %s unified resolve to %s and %s", sym_name(&t, x.v), sym_name(&t, y.v), sx,
					  show(&r, ny));
			}
		}
	}
	if (nf > 0) {
		for (int i = 0; i < nd; i++) {
			pool[i] = dim_resolve(&t, pool[i]);
			check_dim(&r, pool[i], "dim_resolve");
		}
		operate(&r, pool, nd, nd + NEDGES);
	}
	arena_free(a);
	return 0;
}
