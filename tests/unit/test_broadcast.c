/* test_broadcast.c: the broadcasting spec (/work/shared/spec/broadcasting.md) as tests.
 *
 * Every example row of every table in the spec is one test, with its exact result or
 * its exact refusal (kind, dimension, the two sizes). Expected values were worked out
 * by hand from the spec and the semantics notes, never by running the code. Further
 * tables cover what the spec states in prose: symbols (section 8), unknown ranks,
 * folds, the pdpd rewrite, refusal messages and shape text.
 *
 * Shapes are written as in the spec: "(2, 3)", "(5,)", "()"; a name such as N is a
 * symbol, "?" an unknown dimension, and a lone "?" an unknown rank.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "passes/bcast/broadcast.h"

#define MAXR 16
#define NROWS(t) (sizeof(t) / sizeof(t)[0])

/* Criterion runs each parameter in a fresh process image, so parameters must not hold
 * pointers: each parameterized test gets row indices and reads its own table. */
#define TABLE_TEST(suite, name, table, check)                                                  \
	ParameterizedTestParameters(suite, name)                                               \
	{                                                                                      \
		static size_t idx[NROWS(table)];                                               \
		for (size_t i = 0; i < NROWS(table); i++)                                      \
			idx[i] = i;                                                            \
		return cr_make_param_array(size_t, idx, NROWS(table));                         \
	}                                                                                      \
	ParameterizedTest(size_t *i, suite, name)                                              \
	{                                                                                      \
		check(&(table)[*i]);                                                           \
	}

/* ---- symbols and shape text -------------------------------------------------------- */

/* Symbol ids start at 100 so that an id never passes for a plausible size. */
#define SYM_BASE 100
static char sym_text[16][16];
static int nsyms;

static int64_t sym_n(const char *name, size_t len)
{
	for (int i = 0; i < nsyms; i++)
		if (strlen(sym_text[i]) == len && memcmp(sym_text[i], name, len) == 0)
			return SYM_BASE + i;
	cr_assert(nsyms < 16 && len < sizeof sym_text[0], "too many symbols");
	memcpy(sym_text[nsyms], name, len);
	sym_text[nsyms][len] = '\0';
	return SYM_BASE + nsyms++;
}

static int64_t sym(const char *name)
{
	return sym_n(name, strlen(name));
}

static const char *sym_name(void *ctx, int64_t id)
{
	(void)ctx;
	return id >= SYM_BASE && id < SYM_BASE + nsyms ? sym_text[id - SYM_BASE] : NULL;
}

typedef struct tshape {
	int32_t rank;
	dim d[MAXR];
} tshape;

static tshape parse(const char *text)
{
	tshape t = {0};
	const char *p = text;

	if (strcmp(text, "?") == 0) {
		t.rank = RANK_UNKNOWN;
		return t;
	}
	cr_assert(*p == '(', "bad shape text %s", text);
	p++;
	for (;;) {
		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			break;
		cr_assert(t.rank < MAXR, "shape text too long: %s", text);
		if (*p == '?') {
			t.d[t.rank++] = dim_unknown();
			p++;
		} else if (isdigit((unsigned char)*p)) {
			int64_t v = 0;
			while (isdigit((unsigned char)*p))
				v = v * 10 + (*p++ - '0');
			t.d[t.rank++] = dim_known(v);
		} else if (isalpha((unsigned char)*p)) {
			const char *s = p;
			while (isalnum((unsigned char)*p) || *p == '_')
				p++;
			t.d[t.rank++] = dim_symbol(sym_n(s, (size_t)(p - s)));
		} else {
			cr_assert_fail("bad shape text %s", text);
		}
	}
	return t;
}

static shape view(const tshape *t)
{
	return (shape){t->rank, t->d};
}

static const char *show(char *buf, size_t cap, int32_t rank, const dim *dims)
{
	shape_format(buf, cap, (shape){rank, dims}, sym_name, NULL);
	return buf;
}

static void expect_dims(int32_t rank, const dim *dims, const char *want, const char *what)
{
	tshape w = parse(want);
	char got[256];

	show(got, sizeof got, rank, dims);
	cr_assert_eq(rank, w.rank, "%s: got %s, want %s", what, got, want);
	for (int32_t i = 0; i < rank; i++) {
		bool same = dims[i].kind == w.d[i].kind &&
			    (dims[i].kind == DIM_UNKNOWN || dims[i].v == w.d[i].v);
		cr_assert(same, "%s: got %s, want %s (dim %d)", what, got, want, (int)i);
	}
}

static const char *err_text(char *buf, size_t cap, const bcast_error *e)
{
	bcast_error_format(buf, cap, e, "A", "B", sym_name, NULL);
	return buf;
}

/* ---- one adapter signature for every binary rule ------------------------------------ */

typedef bool (*rule_fn)(shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
			bcast_error *err);

static bool run_none(shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
		     bcast_error *err)
{
	(void)axis;
	return bcast_none(a, b, sc, out, err);
}

static bool run_numpy(shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
		      bcast_error *err)
{
	(void)axis;
	return bcast_numpy(a, b, sc, out, err);
}

static bool run_uni(shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
		    bcast_error *err)
{
	(void)axis;
	return bcast_unidirectional(a, b, sc, out, err);
}

static bool run_bidir(shape a, shape b, int64_t axis, const sym_ctx *sc, bcast_out *out,
		      bcast_error *err)
{
	(void)axis;
	return bcast_bidirectional(a, b, sc, out, err);
}

static const rule_fn rules[] = {
	[BCAST_NONE] = run_none,
	[BCAST_NUMPY] = run_numpy,
	[BCAST_UNIDIRECTIONAL] = run_uni,
	[BCAST_PDPD] = bcast_pdpd,
	[BCAST_PADDLE] = bcast_paddle,
	[BCAST_BIDIRECTIONAL] = run_bidir,
};

/* ---- rows with known dims: result or exact refusal --------------------------------- */

typedef struct brow {
	const char *a, *b;
	int64_t axis;       /* pdpd/paddle only */
	const char *result; /* NULL: refused */
	bcast_fail fail;
	int32_t dim;        /* MISMATCH/GROW: where, and the two sizes that met */
	int64_t sa, sb;
} brow;

#define OK(A, B, R) {A, B, -1, R, BFAIL_NONE, -1, 0, 0}
#define NO(A, B, F, DIM, SA, SB) {A, B, -1, NULL, F, DIM, SA, SB}
#define OKX(A, B, AXIS, R) {A, B, AXIS, R, BFAIL_NONE, -1, 0, 0}
#define NOX(A, B, AXIS, F, DIM, SA, SB) {A, B, AXIS, NULL, F, DIM, SA, SB}
/* Refusals that name no dimension (rank, axis). */
#define NOR(A, B, AXIS, F) {A, B, AXIS, NULL, F, -1, 0, 0}

static void check_brow(bcast_rule rule, const brow *r, bool swap)
{
	tshape a = parse(swap ? r->b : r->a), b = parse(swap ? r->a : r->b);
	dim dims[MAXR];
	sym_fact facts[MAXR];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = MAXR};
	bcast_error err;
	char what[160], msg[256];
	bool ok;

	snprintf(what, sizeof what, "%s(%s, %s, axis %" PRId64 ")", bcast_rule_name(rule),
		 swap ? r->b : r->a, swap ? r->a : r->b, r->axis);
	ok = rules[rule](view(&a), view(&b), r->axis, NULL, &out, &err);
	if (r->result) {
		cr_assert(ok, "%s: refused (%s), want %s", what, err_text(msg, sizeof msg, &err),
			  r->result);
		expect_dims(out.rank, out.dims, r->result, what);
		cr_assert_eq(out.nfacts, 0, "%s: %d facts from known dims", what, (int)out.nfacts);
		return;
	}
	cr_assert(!ok, "%s: accepted as %s, want a refusal", what,
		  show(msg, sizeof msg, out.rank, out.dims));
	cr_assert_eq(err.rule, rule, "%s: error names rule %d", what, (int)err.rule);
	cr_assert_eq(err.fail, r->fail, "%s: refusal kind %d (%s), want %d", what, (int)err.fail,
		     err_text(msg, sizeof msg, &err), (int)r->fail);
	if (r->fail == BFAIL_MISMATCH || r->fail == BFAIL_GROW) {
		int64_t sa = swap ? r->sb : r->sa, sb = swap ? r->sa : r->sb;
		cr_assert_eq(err.dim, r->dim, "%s: refused at dim %d, want %d", what, (int)err.dim,
			     (int)r->dim);
		cr_assert(dim_is(err.a, sa) && dim_is(err.b, sb), "%s: sizes (%s), want %" PRId64
			  " vs %" PRId64, what, err_text(msg, sizeof msg, &err), sa, sb);
	}
	if ((r->fail == BFAIL_AXIS_NEGATIVE || r->fail == BFAIL_AXIS_RANGE) && r->axis != -1)
		cr_assert_eq(err.axis, r->axis, "%s: error axis %" PRId64, what, err.axis);
}

/* numpy is symmetric: every row also holds with A and B swapped. */
static void check_numpy(const brow *r)
{
	check_brow(BCAST_NUMPY, r, false);
	check_brow(BCAST_NUMPY, r, true);
}

static void check_none(const brow *r) { check_brow(BCAST_NONE, r, false); }
static void check_uni(const brow *r) { check_brow(BCAST_UNIDIRECTIONAL, r, false); }
static void check_pdpd(const brow *r) { check_brow(BCAST_PDPD, r, false); }
static void check_paddle(const brow *r) { check_brow(BCAST_PADDLE, r, false); }
static void check_bidir(const brow *r) { check_brow(BCAST_BIDIRECTIONAL, r, false); }

/* Section 2's table, row by row. */
static const brow numpy_spec[] = {
	OK("()", "()", "()"),
	OK("(2, 3)", "(1,)", "(2, 3)"),
	OK("(3,)", "(2, 3)", "(2, 3)"),
	OK("(2, 3, 5)", "()", "(2, 3, 5)"),
	OK("(2, 1, 5)", "(1, 4, 5)", "(2, 4, 5)"),
	OK("(6, 5)", "(2, 1, 5)", "(2, 6, 5)"),
	OK("(2, 1, 5)", "(4, 1)", "(2, 4, 5)"),
	OK("(3, 2, 1, 4)", "(5, 4)", "(3, 2, 5, 4)"),
	OK("(1, 5, 3)", "(5, 2, 1, 3)", "(5, 2, 5, 3)"),
	OK("(5, 7, 3)", "(5, 7, 3)", "(5, 7, 3)"),
	OK("(5, 3, 4, 1)", "(3, 1, 1)", "(5, 3, 4, 1)"),
	OK("(5, 1, 4, 1)", "(3, 1, 1)", "(5, 3, 4, 1)"),
	OK("(1,)", "(3, 1, 7)", "(3, 1, 7)"),
	OK("(2, 1, 4)", "(3, 1)", "(2, 3, 4)"),
	OK("(2, 3, 1, 5)", "(3, 4, 1)", "(2, 3, 4, 5)"),
	OK("(4, 1)", "(4,)", "(4, 4)"),
	OK("(4, 1)", "(3,)", "(4, 3)"),
	OK("(2, 3, 4, 5, 1, 1, 1)", "(4, 1, 6, 7, 8)", "(2, 3, 4, 5, 6, 7, 8)"),
	NO("(3,)", "(2,)", BFAIL_MISMATCH, 0, 3, 2),
	NO("(3, 1, 5)", "(4, 4, 5)", BFAIL_MISMATCH, 0, 3, 4),
	NO("(5, 2, 4, 1)", "(3, 1, 1)", BFAIL_MISMATCH, 1, 2, 3),
	NO("(2, 3, 4)", "(2, 3, 6)", BFAIL_MISMATCH, 2, 4, 6),
	NO("(2, 1, 4)", "(3, 2)", BFAIL_MISMATCH, 2, 4, 2),
};
TABLE_TEST(numpy, spec_table, numpy_spec, check_numpy)

/* Section 2's steps beyond the table: 0 is an ordinary size; the rightmost of several
 * disagreements is named; unknown ranks give an unknown rank; known dims still refuse
 * next to symbols and unknowns. */
static const brow numpy_more[] = {
	OK("(0,)", "(1,)", "(0,)"),
	NO("(0,)", "(3,)", BFAIL_MISMATCH, 0, 0, 3),
	OK("(0, 1)", "(1, 0)", "(0, 0)"),
	NO("(2, 3)", "(4, 5)", BFAIL_MISMATCH, 1, 3, 5),
	OK("?", "(2, 3)", "?"),
	OK("?", "?", "?"),
	NO("(3, ?)", "(2, N)", BFAIL_MISMATCH, 0, 3, 2),
	NO("(N, 3)", "(?, 2)", BFAIL_MISMATCH, 1, 3, 2),
};
TABLE_TEST(numpy, more, numpy_more, check_numpy)

/* Section 5's table. */
static const brow bidir_spec[] = {
	OK("(5,)", "(1,)", "(5,)"),
	OK("(2, 3)", "(3,)", "(2, 3)"),
	OK("(3, 1)", "(3, 4)", "(3, 4)"),
	OK("(3, 4)", "()", "(3, 4)"),
	OK("(3, 1)", "(2, 1, 6)", "(2, 3, 6)"),
	OK("(16, 1, 1)", "(1, 1, 50, 50)", "(1, 16, 50, 50)"),
};
TABLE_TEST(bidirectional, spec_table, bidir_spec, check_bidir)

static const brow bidir_more[] = {
	NO("(3,)", "(2, 4)", BFAIL_MISMATCH, 1, 3, 4),
	OK("(2, 3)", "?", "?"),
};
TABLE_TEST(bidirectional, more, bidir_more, check_bidir)

/* Section 3: PyTorch's two in-place examples, then the rule's edges. */
static const brow uni_spec[] = {
	OK("(5, 3, 4, 1)", "(3, 1, 1)", "(5, 3, 4, 1)"),
	NO("(1, 3, 1)", "(3, 1, 7)", BFAIL_GROW, 2, 1, 7),
};
TABLE_TEST(unidirectional, spec_examples, uni_spec, check_uni)

static const brow uni_more[] = {
	OK("(2, 3)", "(3,)", "(2, 3)"),
	OK("(2, 3)", "()", "(2, 3)"),
	OK("(2, 3)", "(1, 1)", "(2, 3)"),
	OK("(2, 3)", "(2, 3)", "(2, 3)"),
	OK("(0,)", "(1,)", "(0,)"),
	OK("()", "()", "()"),
	NOR("(3,)", "(1, 3)", -1, BFAIL_RANK),
	NOR("()", "(1,)", -1, BFAIL_RANK),
	NO("(2, 3)", "(4,)", BFAIL_MISMATCH, 1, 3, 4),
	NO("(2, 1)", "(2, 3)", BFAIL_GROW, 1, 1, 3),
	NO("(1,)", "(0,)", BFAIL_GROW, 0, 1, 0),
	NO("(3, 1)", "(2, 1)", BFAIL_MISMATCH, 0, 3, 2),
	OK("?", "(1, 2, 3)", "?"),
	OK("(2, 3)", "?", "(2, 3)"),
};
TABLE_TEST(unidirectional, more, uni_more, check_uni)

/* Section 4's table. Where B disagrees with A at several dims, the rightmost is named. */
static const brow pdpd_spec[] = {
	OKX("(2, 3, 4, 5)", "(3, 4)", 1, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "(3, 1)", 1, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "(4, 5)", -1, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "(4, 5)", 2, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "(1, 3)", 0, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "()", -1, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "(5,)", -1, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "(5,)", 3, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4, 5)", "(3,)", 1, "(2, 3, 4, 5)"),
	NOX("(2, 1, 4)", "(3, 1)", 1, BFAIL_GROW, 1, 1, 3),
	NOX("(2, 3, 4, 5)", "(5, 1)", -1, BFAIL_MISMATCH, 2, 4, 5),
	NOX("(2, 3, 4, 5)", "(4, 5)", 1, BFAIL_MISMATCH, 2, 4, 5),
	NOX("(8, 1, 6, 1)", "(7, 1, 5)", 1, BFAIL_GROW, 3, 1, 5),
	NOR("(2, 3, 4)", "(3,)", 3, BFAIL_AXIS_RANGE),
	NOR("(2, 3, 4)", "(3,)", -2, BFAIL_AXIS_NEGATIVE),
};
TABLE_TEST(pdpd, spec_table, pdpd_spec, check_pdpd)

static const brow pdpd_more[] = {
	OKX("(2, 3)", "(3, 1)", 1, "(2, 3)"),           /* step 2: (3, 1) becomes (3) */
	OKX("(2, 3, 4)", "(3, 1, 1)", 1, "(2, 3, 4)"),
	NOR("(2, 3)", "(1, 1)", 2, BFAIL_AXIS_RANGE),   /* never trimmed below rank 1 */
	OKX("(2, 3)", "(1, 1)", -1, "(2, 3)"),
	OKX("(2, 3)", "()", 2, "(2, 3)"),               /* a scalar may sit at the end */
	NOR("(2, 3)", "()", 3, BFAIL_AXIS_RANGE),
	NOR("(2,)", "(3, 4, 5)", -1, BFAIL_RANK),
	NOR("(2, 3)", "(1, 3, 1)", -1, BFAIL_RANK),     /* step 1 counts B's rank as given */
	OKX("(2, 3)", "(2, 3)", 0, "(2, 3)"),
	NOX("(1, 3)", "(2, 3)", 0, BFAIL_GROW, 0, 1, 2),
	NOX("(0, 3)", "(2,)", 0, BFAIL_MISMATCH, 0, 0, 2),
	NOR("(2, 3)", "(3,)", INT64_MAX, BFAIL_AXIS_RANGE),
	NOR("(2, 3)", "(3,)", INT64_MIN, BFAIL_AXIS_NEGATIVE),
	NOR("(2, 3)", "(3, 4)", 1, BFAIL_AXIS_RANGE),   /* a known 4 cannot be dropped */
	NOR("(2, 3)", "(N, 1)", 2, BFAIL_AXIS_RANGE),   /* nor anything below rank 1 */
	OKX("?", "(3,)", 5, "?"),
	OKX("(2, 3)", "?", 1, "(2, 3)"),
	OKX("(2, 3)", "?", 2, "(2, 3)"),
	NOR("(2, 3)", "?", 3, BFAIL_AXIS_RANGE),
	NOR("?", "?", -2, BFAIL_AXIS_NEGATIVE),
};
TABLE_TEST(pdpd, more, pdpd_more, check_pdpd)

/* Section 4b's table; a is always X's size and b Y's, whichever was placed. */
static const brow paddle_spec[] = {
	OKX("(2, 1, 4)", "(3, 1)", 1, "(2, 3, 4)"),
	NOX("(2, 3, 4, 5)", "(4, 5)", 1, BFAIL_MISMATCH, 2, 4, 5),
	OKX("(2, 3, 4, 5)", "(3,)", 1, "(2, 3, 4, 5)"),
	OKX("(2, 3, 4)", "(2, 3, 4)", -1, "(2, 3, 4)"),
	OKX("(3,)", "(2, 3, 4)", 1, "(2, 3, 4)"),
};
TABLE_TEST(paddle, spec_table, paddle_spec, check_paddle)

static const brow paddle_more[] = {
	NOX("(4, 5)", "(2, 3, 4, 5)", 1, BFAIL_MISMATCH, 2, 5, 4),
	NOX("(3,)", "(2, 3, 4)", -1, BFAIL_MISMATCH, 2, 3, 4),
	OKX("(1, 3, 1)", "(2, 1, 7)", -1, "(2, 3, 7)"),  /* the higher rank may grow */
	OKX("(2, 3)", "(3, 1)", 1, "(2, 3)"),            /* Y trimmed as in pdpd */
	OKX("(3, 1)", "(2, 3, 4)", 1, "(2, 3, 4)"),      /* X trimmed when it is placed */
	OKX("(8, 1, 6, 1)", "(7, 1, 5)", 1, "(8, 7, 6, 5)"),
	OKX("()", "(2, 3)", -1, "(2, 3)"),
	NOR("(2, 3, 4)", "(3,)", -2, BFAIL_AXIS_NEGATIVE),
	NOR("(2, 3, 4)", "(4,)", 3, BFAIL_AXIS_RANGE),
	NOR("(3,)", "(2, 3)", 2, BFAIL_AXIS_RANGE),
	NOR("(2, 3)", "(3,)", INT64_MAX, BFAIL_AXIS_RANGE),
	OKX("?", "(3,)", 1, "?"),
};
TABLE_TEST(paddle, more, paddle_more, check_paddle)

/* Section 1. */
static const brow none_rows[] = {
	OK("(2, 3)", "(2, 3)", "(2, 3)"),
	OK("()", "()", "()"),
	NOR("(2, 3)", "(2, 3, 1)", -1, BFAIL_RANK),
	NOR("(3,)", "(1, 3)", -1, BFAIL_RANK),
	NO("(2, 3)", "(2, 1)", BFAIL_MISMATCH, 1, 3, 1),
	NO("(1, 3)", "(2, 3)", BFAIL_MISMATCH, 0, 1, 2),
	OK("?", "(2, 3)", "(2, 3)"),
	OK("(2, 3)", "?", "(2, 3)"),
	OK("?", "?", "?"),
};
TABLE_TEST(none, rows, none_rows, check_none)

/* ---- explicit ----------------------------------------------------------------------- */

typedef struct erow {
	const char *in, *target;
	int32_t naxes;
	int64_t map[4];
	const char *result;
	bcast_fail fail;
	int32_t dim;  /* MISMATCH: target axis; MAPPING_*: index into axes_mapping */
	int64_t axis; /* MISMATCH: input axis; MAPPING_*: the entry (or length) */
	int64_t sa, sb;
} erow;

#define EOK(IN, T, N, M, R) {IN, T, N, M, R, BFAIL_NONE, -1, 0, 0, 0}
#define ENO(IN, T, N, M, F, DIM, AXIS, SA, SB) {IN, T, N, M, NULL, F, DIM, AXIS, SA, SB}
#define MAP(...) {__VA_ARGS__}

static void check_explicit(const erow *r)
{
	tshape in = parse(r->in), t = parse(r->target);
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;
	char what[160], msg[256];
	bool ok;

	snprintf(what, sizeof what, "explicit(%s, %s, %d axes)", r->in, r->target, (int)r->naxes);
	ok = bcast_explicit(view(&in), view(&t), r->map, r->naxes, NULL, &out, &err);
	if (r->result) {
		cr_assert(ok, "%s: refused (%s)", what, err_text(msg, sizeof msg, &err));
		expect_dims(out.rank, out.dims, r->result, what);
		return;
	}
	cr_assert(!ok, "%s: accepted", what);
	cr_assert_eq(err.rule, BCAST_EXPLICIT);
	cr_assert_eq(err.fail, r->fail, "%s: refusal %d (%s), want %d", what, (int)err.fail,
		     err_text(msg, sizeof msg, &err), (int)r->fail);
	cr_assert_eq(err.axis, r->axis, "%s: axis %" PRId64 ", want %" PRId64, what, err.axis,
		     r->axis);
	if (r->fail != BFAIL_MAPPING_LENGTH)
		cr_assert_eq(err.dim, r->dim, "%s: dim %d, want %d", what, (int)err.dim, (int)r->dim);
	if (r->fail == BFAIL_MISMATCH)
		cr_assert(dim_is(err.a, r->sa) && dim_is(err.b, r->sb), "%s: %s", what,
			  err_text(msg, sizeof msg, &err));
}

/* Section 6's table. */
static const erow explicit_spec[] = {
	EOK("(16,)", "(1, 16, 50, 50)", 1, MAP(1), "(1, 16, 50, 50)"),
	EOK("(50, 50)", "(1, 50, 50, 16)", 2, MAP(1, 2), "(1, 50, 50, 16)"),
	EOK("(3,)", "(2, 3, 4, 5)", 1, MAP(1), "(2, 3, 4, 5)"),
	ENO("(3,)", "(2, 3, 4)", 1, MAP(2), BFAIL_MISMATCH, 2, 0, 3, 4),
	ENO("(2, 3)", "(2, 3, 4)", 2, MAP(1, 0), BFAIL_MAPPING_ORDER, 1, 0, 0, 0),
};
TABLE_TEST(explicit, spec_table, explicit_spec, check_explicit)

static const erow explicit_more[] = {
	EOK("(1,)", "(2, 3, 4)", 1, MAP(1), "(2, 3, 4)"),
	EOK("()", "(2, 3)", 0, MAP(0), "(2, 3)"),
	EOK("(2, 4)", "(2, 3, 4)", 2, MAP(0, 2), "(2, 3, 4)"),
	ENO("(3,)", "(2, 1, 4)", 1, MAP(1), BFAIL_MISMATCH, 1, 0, 3, 1),
	ENO("(5, 6)", "(2, 3, 4)", 2, MAP(0, 2), BFAIL_MISMATCH, 2, 1, 6, 4),
	ENO("(2, 3)", "(2, 3, 4)", 1, MAP(0), BFAIL_MAPPING_LENGTH, -1, 1, 0, 0),
	ENO("(2, 3)", "(2, 3, 4)", 2, MAP(1, 1), BFAIL_MAPPING_ORDER, 1, 1, 0, 0),
	ENO("(3,)", "(2, 3)", 1, MAP(2), BFAIL_MAPPING_RANGE, 0, 2, 0, 0),
	ENO("(3,)", "(2, 3)", 1, MAP(-1), BFAIL_MAPPING_RANGE, 0, -1, 0, 0),
	ENO("(3,)", "(2, 3)", 1, MAP(INT64_MAX), BFAIL_MAPPING_RANGE, 0, INT64_MAX, 0, 0),
	ENO("(2, 3)", "(2, 3)", 2, MAP(0, INT64_MIN), BFAIL_MAPPING_RANGE, 1, INT64_MIN, 0, 0),
	EOK("?", "(2, 3)", 1, MAP(1), "(2, 3)"),
	EOK("(3,)", "?", 1, MAP(7), "?"),
	ENO("(3,)", "?", 1, MAP(-1), BFAIL_MAPPING_RANGE, 0, -1, 0, 0),
	ENO("(3,)", "?", 2, MAP(0, 1), BFAIL_MAPPING_LENGTH, -1, 2, 0, 0),
	ENO("?", "?", 2, MAP(3, 3), BFAIL_MAPPING_ORDER, 1, 3, 0, 0),
};
TABLE_TEST(explicit, more, explicit_more, check_explicit)

/* ---- symbols (section 8) ------------------------------------------------------------ */

typedef struct srow {
	const char *a, *b;
	int64_t axis;
	const char *result;
	int32_t nfacts;        /* 0 or 1: rows with more facts are separate tests */
	fact_kind kind;
	const char *sym, *other;
	int64_t k;
	int32_t dim;
} srow;

#define SOK(A, B, R) {A, B, -1, R, 0, FACT_ONE_OR, NULL, NULL, 0, 0}
#define SF(A, B, R, KIND, SYM, K, OTHER, DIM) {A, B, -1, R, 1, KIND, SYM, OTHER, K, DIM}
#define SOKX(A, B, AXIS, R) {A, B, AXIS, R, 0, FACT_ONE_OR, NULL, NULL, 0, 0}
#define SFX(A, B, AXIS, R, KIND, SYM, K, OTHER, DIM) {A, B, AXIS, R, 1, KIND, SYM, OTHER, K, DIM}

static void expect_fact(const sym_fact *f, fact_kind kind, const char *s, int64_t k,
			const char *other, int32_t at, const char *what)
{
	cr_assert_eq(f->kind, kind, "%s: fact kind %d, want %d", what, (int)f->kind, (int)kind);
	cr_assert_eq(f->sym, sym(s), "%s: fact about symbol %" PRId64 ", want %s", what, f->sym, s);
	if (kind == FACT_ONE_OR || kind == FACT_EQUALS)
		cr_assert_eq(f->k, k, "%s: fact size %" PRId64 ", want %" PRId64, what, f->k, k);
	else
		cr_assert_eq(f->other, sym(other), "%s: other symbol %" PRId64 ", want %s", what,
			     f->other, other);
	cr_assert_eq(f->dim, at, "%s: fact at dim %d, want %d", what, (int)f->dim, (int)at);
}

static void check_srow(bcast_rule rule, const srow *r)
{
	tshape a = parse(r->a), b = parse(r->b);
	dim dims[MAXR];
	sym_fact facts[MAXR];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = MAXR};
	bcast_error err;
	char what[160], msg[256];

	snprintf(what, sizeof what, "%s(%s, %s, axis %" PRId64 ")", bcast_rule_name(rule), r->a,
		 r->b, r->axis);
	cr_assert(rules[rule](view(&a), view(&b), r->axis, NULL, &out, &err), "%s: refused (%s)",
		  what, err_text(msg, sizeof msg, &err));
	expect_dims(out.rank, out.dims, r->result, what);
	cr_assert_eq(out.nfacts, r->nfacts, "%s: %d facts, want %d", what, (int)out.nfacts,
		     (int)r->nfacts);
	if (r->nfacts)
		expect_fact(&facts[0], r->kind, r->sym, r->k, r->other, r->dim, what);
}

static void check_numpy_sym(const srow *r) { check_srow(BCAST_NUMPY, r); }
static void check_uni_sym(const srow *r) { check_srow(BCAST_UNIDIRECTIONAL, r); }
static void check_none_sym(const srow *r) { check_srow(BCAST_NONE, r); }
static void check_pdpd_sym(const srow *r) { check_srow(BCAST_PDPD, r); }
static void check_paddle_sym(const srow *r) { check_srow(BCAST_PADDLE, r); }

static const srow numpy_sym[] = {
	SOK("(N,)", "(1,)", "(N,)"),
	SOK("(1,)", "(N,)", "(N,)"),
	SOK("(N,)", "(N,)", "(N,)"),
	SF("(N,)", "(3,)", "(3,)", FACT_ONE_OR, "N", 3, NULL, 0),
	SF("(3,)", "(N,)", "(3,)", FACT_ONE_OR, "N", 3, NULL, 0),
	SF("(N,)", "(0,)", "(0,)", FACT_ONE_OR, "N", 0, NULL, 0),
	SF("(N,)", "(M,)", "(?,)", FACT_ONE_OR_SYM, "N", 0, "M", 0),
	SF("(M,)", "(N,)", "(?,)", FACT_ONE_OR_SYM, "M", 0, "N", 0),
	SOK("(?,)", "(3,)", "(3,)"),
	SOK("(3,)", "(?,)", "(3,)"),
	SOK("(?,)", "(1,)", "(?,)"),
	SOK("(1,)", "(?,)", "(?,)"),
	SOK("(0,)", "(?,)", "(0,)"),
	SOK("(?,)", "(0,)", "(0,)"),
	SOK("(N,)", "(?,)", "(?,)"),
	SOK("(?,)", "(N,)", "(?,)"),
	SOK("(?,)", "(?,)", "(?,)"),
	SOK("(2, N)", "(5, 1, 1)", "(5, 2, N)"),
	SF("(2, N)", "(7, 1, 4)", "(7, 2, 4)", FACT_ONE_OR, "N", 4, NULL, 2),
	SOK("(N, ?)", "(N, 1)", "(N, ?)"),
};
TABLE_TEST(symbols, numpy, numpy_sym, check_numpy_sym)

static const srow uni_sym[] = {
	SF("(N,)", "(3,)", "(N,)", FACT_EQUALS, "N", 3, NULL, 0),
	SF("(3,)", "(M,)", "(3,)", FACT_ONE_OR, "M", 3, NULL, 0),
	SF("(1,)", "(M,)", "(1,)", FACT_EQUALS, "M", 1, NULL, 0),
	SF("(0,)", "(M,)", "(0,)", FACT_ONE_OR, "M", 0, NULL, 0),
	SF("(N,)", "(M,)", "(N,)", FACT_SYM_EQ_OR_ONE, "N", 0, "M", 0),
	SOK("(N,)", "(N,)", "(N,)"),
	SOK("(N,)", "(1,)", "(N,)"),
	SOK("(?,)", "(3,)", "(?,)"),
	SOK("(3,)", "(?,)", "(3,)"),
	SOK("(N, ?)", "(1,)", "(N, ?)"),
	SF("(2, N)", "(3,)", "(2, N)", FACT_EQUALS, "N", 3, NULL, 1),
};
TABLE_TEST(symbols, unidirectional, uni_sym, check_uni_sym)

static const srow none_sym[] = {
	SF("(N,)", "(3,)", "(3,)", FACT_EQUALS, "N", 3, NULL, 0),
	SF("(3,)", "(N,)", "(3,)", FACT_EQUALS, "N", 3, NULL, 0),
	SF("(1,)", "(N,)", "(1,)", FACT_EQUALS, "N", 1, NULL, 0),
	SF("(N,)", "(M,)", "(N,)", FACT_SYM_EQUALS, "N", 0, "M", 0),
	SOK("(N,)", "(N,)", "(N,)"),
	SOK("(N,)", "(?,)", "(N,)"),
	SOK("(?,)", "(N,)", "(N,)"),
	SOK("(?,)", "(3,)", "(3,)"),
	SOK("(3,)", "(?,)", "(3,)"),
	SOK("(?,)", "(?,)", "(?,)"),
};
TABLE_TEST(symbols, none, none_sym, check_none_sym)

static const srow pdpd_sym[] = {
	SFX("(2, N)", "(3,)", 1, "(2, N)", FACT_EQUALS, "N", 3, NULL, 1),
	SFX("(2, 3)", "(M,)", 1, "(2, 3)", FACT_ONE_OR, "M", 3, NULL, 1),
	SFX("(2, N, 4)", "(M, 4)", 1, "(2, N, 4)", FACT_SYM_EQ_OR_ONE, "N", 0, "M", 1),
	/* B's N would sit past A's end: valid exactly when N is 1, so not refused. */
	SFX("(2, 3)", "(3, N)", 1, "(2, 3)", FACT_EQUALS, "N", 1, NULL, -1),
	SFX("(2, 5, 3)", "(3, N, 1)", 2, "(2, 5, 3)", FACT_EQUALS, "N", 1, NULL, -1),
	SOKX("(2, 3)", "(3, ?)", 1, "(2, 3)"),
	SOKX("(2, ?)", "(5,)", -1, "(2, ?)"),
};
TABLE_TEST(symbols, pdpd, pdpd_sym, check_pdpd_sym)

static const srow paddle_sym[] = {
	SFX("(2, N, 4)", "(M,)", 1, "(2, ?, 4)", FACT_ONE_OR_SYM, "N", 0, "M", 1),
	SFX("(3,)", "(2, N, 4)", 1, "(2, 3, 4)", FACT_ONE_OR, "N", 3, NULL, 1),
	SFX("(2, 3)", "(3, N)", 1, "(2, 3)", FACT_EQUALS, "N", 1, NULL, -1),
	SOKX("(2, ?)", "(5,)", -1, "(2, 5)"),
};
TABLE_TEST(symbols, paddle, paddle_sym, check_paddle_sym)

/* N and M are known to be equal: the result stays N and nothing new is assumed. */
static bool n_is_m(void *ctx, int64_t a, int64_t b)
{
	(void)ctx;
	return (a == sym("N") && b == sym("M")) || (a == sym("M") && b == sym("N"));
}

Test(symbols, equal_symbols_stay_precise)
{
	tshape a = parse("(N, 2)"), b = parse("(M, 2)");
	dim dims[2];
	sym_fact facts[2];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 2};
	sym_ctx sc = {n_is_m, NULL};

	cr_assert(bcast_numpy(view(&a), view(&b), &sc, &out, NULL));
	expect_dims(out.rank, out.dims, "(N, 2)", "numpy with N = M");
	cr_assert_eq(out.nfacts, 0);
	cr_assert(bcast_unidirectional(view(&a), view(&b), &sc, &out, NULL));
	cr_assert_eq(out.nfacts, 0);
	cr_assert(bcast_none(view(&a), view(&b), &sc, &out, NULL));
	cr_assert_eq(out.nfacts, 0);
	/* Without the callback the same meeting is unknown, with the constraint recorded. */
	cr_assert(bcast_numpy(view(&a), view(&b), NULL, &out, NULL));
	expect_dims(out.rank, out.dims, "(?, 2)", "numpy without N = M");
	cr_assert_eq(out.nfacts, 1);
}

Test(symbols, facts_listed_left_to_right)
{
	tshape a = parse("(N, 1, M)"), b = parse("(3, K, 4)");
	dim dims[3];
	sym_fact facts[3];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 3};

	cr_assert(bcast_numpy(view(&a), view(&b), NULL, &out, NULL));
	expect_dims(out.rank, out.dims, "(3, K, 4)", "numpy");
	cr_assert_eq(out.nfacts, 2);
	expect_fact(&facts[0], FACT_ONE_OR, "N", 3, NULL, 0, "first fact");
	expect_fact(&facts[1], FACT_ONE_OR, "M", 4, NULL, 2, "second fact");
}

Test(symbols, explicit_facts)
{
	tshape in = parse("(N,)"), t1 = parse("(2, 3, 4)"), c = parse("(3,)"), t2 = parse("(2, T, 4)"),
	       t3 = parse("(2, M, 4)");
	int64_t map[] = {1};
	dim dims[3];
	sym_fact facts[3];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 3};

	cr_assert(bcast_explicit(view(&in), view(&t1), map, 1, NULL, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, 3, 4)", "explicit N into 3");
	cr_assert_eq(out.nfacts, 1);
	expect_fact(&facts[0], FACT_ONE_OR, "N", 3, NULL, 1, "explicit N into 3");

	cr_assert(bcast_explicit(view(&c), view(&t2), map, 1, NULL, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, T, 4)", "explicit 3 into T");
	cr_assert_eq(out.nfacts, 1);
	expect_fact(&facts[0], FACT_EQUALS, "T", 3, NULL, 1, "explicit 3 into T");

	cr_assert(bcast_explicit(view(&in), view(&t3), map, 1, NULL, &out, NULL));
	cr_assert_eq(out.nfacts, 1);
	expect_fact(&facts[0], FACT_SYM_EQ_OR_ONE, "M", 0, "N", 1, "explicit N into M");
}

Test(symbols, facts_respect_capacity)
{
	tshape a = parse("(N, M, K)"), b = parse("(2, 3, 4)");
	dim dims[3];
	sym_fact facts[3];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 1};

	facts[1].kind = (fact_kind)77; /* a sentinel just past the capacity */
	cr_assert(bcast_numpy(view(&a), view(&b), NULL, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, 3, 4)", "numpy");
	cr_assert_eq(out.nfacts, 1);
	cr_assert_eq((int)facts[1].kind, 77, "wrote past facts_cap");

	out = (bcast_out){.dims = dims, .facts = NULL, .facts_cap = 3};
	cr_assert(bcast_numpy(view(&a), view(&b), NULL, &out, NULL));
	cr_assert_eq(out.nfacts, 0);
	expect_dims(out.rank, out.dims, "(2, 3, 4)", "numpy without facts");
}

/* ---- folds: Sum/Mean/Max/Min and Where ------------------------------------------------ */

static bool fold(const char *const *texts, int n, bcast_out *out, bcast_error *err)
{
	static tshape t[8];
	shape ops[8];

	for (int i = 0; i < n; i++) {
		t[i] = parse(texts[i]);
		ops[i] = view(&t[i]);
	}
	return bcast_numpy_n(ops, n, NULL, out, err);
}

Test(numpy_n, sum_of_three)
{
	const char *ops[] = {"(2, 1, 4)", "(3, 1)", "(4,)"};
	dim dims[MAXR];
	bcast_out out = {.dims = dims};

	cr_assert(fold(ops, 3, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, 3, 4)", "Sum");
}

Test(numpy_n, where_three_way)
{
	const char *ops[] = {"(2, 1, 1)", "(3, 1)", "(4,)"};
	const char *ops2[] = {"(1, 5)", "(3, 1)", "()"};
	dim dims[MAXR];
	bcast_out out = {.dims = dims};

	cr_assert(fold(ops, 3, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, 3, 4)", "Where");
	cr_assert(fold(ops2, 3, &out, NULL));
	expect_dims(out.rank, out.dims, "(3, 5)", "Where with a scalar");
}

Test(numpy_n, refusal_names_the_operand)
{
	const char *ops[] = {"(2, 3)", "(3,)", "(4,)"};
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;

	cr_assert_not(fold(ops, 3, &out, &err));
	cr_assert_eq(err.fail, BFAIL_MISMATCH);
	cr_assert_eq(err.input, 2);
	cr_assert_eq(err.dim, 1);
	cr_assert(dim_is(err.a, 3) && dim_is(err.b, 4));
}

Test(numpy_n, unknown_rank_operands)
{
	const char *ok[] = {"(2, 3)", "?", "(3,)"};
	const char *bad[] = {"(3,)", "?", "(2,)"};
	const char *first[] = {"?", "(2, 1)", "(1, 5)"};
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;

	cr_assert(fold(ok, 3, &out, NULL));
	cr_assert_eq(out.rank, RANK_UNKNOWN);
	/* The known operands still disagree, whatever the unknown one is. */
	cr_assert_not(fold(bad, 3, &out, &err));
	cr_assert_eq(err.input, 2);
	cr_assert_eq(err.dim, 0);
	cr_assert(fold(first, 3, &out, NULL));
	cr_assert_eq(out.rank, RANK_UNKNOWN);
}

Test(numpy_n, one_and_zero_operands)
{
	const char *one[] = {"(2, N)"};
	dim dims[MAXR];
	bcast_out out = {.dims = dims};

	cr_assert(fold(one, 1, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, N)", "one operand");
	cr_assert(bcast_numpy_n(NULL, 0, NULL, &out, NULL));
	cr_assert_eq(out.rank, RANK_UNKNOWN);
}

Test(numpy_n, facts_accumulate_per_operand)
{
	const char *ops[] = {"(N, M)", "(3, 4)", "(K, 1)"};
	dim dims[MAXR];
	sym_fact facts[8];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 8};

	cr_assert(fold(ops, 3, &out, NULL));
	expect_dims(out.rank, out.dims, "(3, 4)", "fold");
	cr_assert_eq(out.nfacts, 3);
	expect_fact(&facts[0], FACT_ONE_OR, "N", 3, NULL, 0, "fact 0");
	expect_fact(&facts[1], FACT_ONE_OR, "M", 4, NULL, 1, "fact 1");
	expect_fact(&facts[2], FACT_ONE_OR, "K", 3, NULL, 0, "fact 2");
}

/* The result may be written over an operand's own storage. */
Test(numpy, in_place)
{
	dim buf[3] = {dim_known(2), dim_known(1), dim_known(4)};
	dim buf2[3] = {dim_known(4)};
	tshape b = parse("(3, 1)"), c = parse("(2, 3, 1)");
	bcast_out out = {.dims = buf};

	cr_assert(bcast_numpy((shape){3, buf}, view(&b), NULL, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, 3, 4)", "in place, A longer");
	out.dims = buf2;
	cr_assert(bcast_numpy((shape){1, buf2}, view(&c), NULL, &out, NULL));
	expect_dims(out.rank, out.dims, "(2, 3, 4)", "in place, A shorter");
}

Test(numpy, err_may_be_null)
{
	tshape a = parse("(3,)"), b = parse("(2,)");
	dim dims[1];
	bcast_out out = {.dims = dims};

	cr_assert_not(bcast_numpy(view(&a), view(&b), NULL, &out, NULL));
	cr_assert_not(bcast_pdpd(view(&a), view(&b), -5, NULL, &out, NULL));
}

/* ---- the pdpd rewrite into numpy ------------------------------------------------------ */

typedef struct rrow {
	const char *a, *b;
	int64_t axis;
	const char *reshaped; /* NULL: invalid placement */
} rrow;

static void check_reshape(const rrow *r)
{
	tshape a = parse(r->a), b = parse(r->b);
	dim dims[MAXR];
	int32_t rank = -7;
	char what[160];
	bool ok = bcast_pdpd_reshape(view(&a), view(&b), r->axis, dims, &rank);

	snprintf(what, sizeof what, "reshape(%s, %s, axis %" PRId64 ")", r->a, r->b, r->axis);
	if (!r->reshaped) {
		cr_assert_not(ok, "%s: accepted", what);
		return;
	}
	cr_assert(ok, "%s: refused", what);
	expect_dims(rank, dims, r->reshaped, what);
}

static const rrow reshape_rows[] = {
	{"(2, 3, 4, 5)", "(3,)", 1, "(3, 1, 1)"},
	{"(2, 3, 4, 5)", "(3, 4)", 1, "(3, 4, 1)"},
	{"(2, 3, 4, 5)", "(3, 1)", 1, "(3, 1, 1)"},
	{"(2, 3, 4, 5)", "(4, 5)", -1, "(4, 5)"},
	{"(2, 3, 4, 5)", "(1, 3)", 0, "(1, 3, 1, 1)"},
	{"(2, 3, 4, 5)", "()", -1, "()"},
	{"(2, 3, 4, 5)", "(5, 1)", -1, "(5, 1)"},
	{"(2, 3)", "(3, N)", 1, "(3,)"},
	{"(2, 3, 4)", "(3,)", 3, NULL},
	{"(2, 3, 4)", "(3,)", -2, NULL},
	{"(2, 3, 4)", "(3,)", INT64_MAX, NULL},
	{"(2,)", "(1, 2)", -1, NULL},
	{"?", "(2,)", -1, NULL},
	{"(2,)", "?", -1, NULL},
};
TABLE_TEST(pdpd_reshape, rows, reshape_rows, check_reshape)

/* ---- refusal messages ------------------------------------------------------------------ */

typedef struct frow {
	bcast_rule rule;
	const char *a, *b;
	int64_t axis;
	const char *an, *bn; /* NULL: the default names */
	const char *want;
} frow;

static void check_format(const frow *r)
{
	tshape a = parse(r->a), b = parse(r->b);
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;
	char buf[512];
	int n;

	cr_assert_not(rules[r->rule](view(&a), view(&b), r->axis, NULL, &out, &err),
		      "%s(%s, %s) accepted", bcast_rule_name(r->rule), r->a, r->b);
	n = bcast_error_format(buf, sizeof buf, &err, r->an, r->bn, sym_name, NULL);
	cr_assert_str_eq(buf, r->want);
	cr_assert_eq(n, (int)strlen(r->want));
}

static const frow format_rows[] = {
	{BCAST_NUMPY, "(2, 3, 4)", "(2, 3, 6)", -1, NULL, NULL,
	 "the size of A (4) must match the size of B (6) at non-singleton dimension 2"},
	{BCAST_NUMPY, "(5, 2, 4, 1)", "(3, 1, 1)", -1, "x", "bias",
	 "the size of x (2) must match the size of bias (3) at non-singleton dimension 1"},
	{BCAST_BIDIRECTIONAL, "(3,)", "(2, 4)", -1, "input", "shape",
	 "the size of input (3) must match the size of shape (4) at non-singleton dimension 1"},
	{BCAST_UNIDIRECTIONAL, "(1, 3, 1)", "(3, 1, 7)", -1, NULL, NULL,
	 "the expanded size of B (7) must match the existing size of A (1) at non-singleton "
	 "dimension 2: A may not grow under the unidirectional rule"},
	{BCAST_UNIDIRECTIONAL, "(2, 3)", "(4,)", -1, "x", "y",
	 "the expanded size of y (4) must match the existing size of x (3) at non-singleton "
	 "dimension 1"},
	{BCAST_UNIDIRECTIONAL, "(3,)", "(1, 3)", -1, NULL, NULL,
	 "the rank of B (2) must not exceed the rank of A (1) under the unidirectional rule: "
	 "A may not grow"},
	{BCAST_NONE, "(2, 3)", "(2, 1)", -1, NULL, NULL,
	 "the size of A (3) must match the size of B (1) at dimension 1: the none rule does "
	 "not broadcast"},
	{BCAST_NONE, "(2, 3)", "(2, 3, 1)", -1, NULL, NULL,
	 "the rank of A (2) must equal the rank of B (3) under the none rule"},
	{BCAST_PDPD, "(2, 3, 4, 5)", "(5, 1)", -1, NULL, NULL,
	 "the size of A (4) must match the size of B (5) at non-singleton dimension 2: B is "
	 "placed at axis 2 under the pdpd rule"},
	{BCAST_PDPD, "(2, 1, 4)", "(3, 1)", 1, NULL, NULL,
	 "the expanded size of B (3) must match the existing size of A (1) at non-singleton "
	 "dimension 1: A may not grow under the pdpd rule (B is placed at axis 1)"},
	{BCAST_PDPD, "(2, 3, 4)", "(3,)", 3, NULL, NULL,
	 "axis 3 places B (rank 1 without trailing 1s) past the end of A (rank 3) under the "
	 "pdpd rule: axis + rank(B) must not exceed rank(A)"},
	{BCAST_PDPD, "(2, 3, 4)", "(3, 4, 1)", 2, NULL, NULL,
	 "axis 2 places B (rank 2 without trailing 1s) past the end of A (rank 3) under the "
	 "pdpd rule: axis + rank(B) must not exceed rank(A)"},
	{BCAST_PDPD, "(2, 3, 4)", "(3,)", -2, NULL, NULL,
	 "axis -2 is not allowed under the pdpd rule: the only negative axis is -1, the "
	 "default (A has rank 3, B rank 1)"},
	{BCAST_PDPD, "(2, 3, 4)", "?", 5, NULL, NULL,
	 "axis 5 is past the end of A (rank 3) under the pdpd rule"},
	{BCAST_PDPD, "(2,)", "(3, 4, 5)", -1, NULL, NULL,
	 "the rank of B (3) must not exceed the rank of A (1) under the pdpd rule: A may not "
	 "grow"},
	{BCAST_PADDLE, "(2, 3, 4, 5)", "(4, 5)", 1, "X", "Y",
	 "the size of X (4) must match the size of Y (5) at non-singleton dimension 2: Y is "
	 "placed at axis 1 under the paddle rule"},
	{BCAST_PADDLE, "(4, 5)", "(2, 3, 4, 5)", 1, "X", "Y",
	 "the size of X (5) must match the size of Y (4) at non-singleton dimension 2: X is "
	 "placed at axis 1 under the paddle rule"},
	{BCAST_PADDLE, "(3,)", "(2, 3)", 2, "X", "Y",
	 "axis 2 places X (rank 1 without trailing 1s) past the end of Y (rank 2) under the "
	 "paddle rule: axis + rank(X) must not exceed rank(Y)"},
};
TABLE_TEST(format, rows, format_rows, check_format)

typedef struct xfrow {
	const char *in, *target;
	int32_t naxes;
	int64_t map[2];
	const char *want;
} xfrow;

static void check_xformat(const xfrow *r)
{
	tshape in = parse(r->in), t = parse(r->target);
	dim dims[MAXR];
	bcast_out out = {.dims = dims};
	bcast_error err;
	char buf[512];

	cr_assert_not(bcast_explicit(view(&in), view(&t), r->map, r->naxes, NULL, &out, &err));
	bcast_error_format(buf, sizeof buf, &err, "input", "target", NULL, NULL);
	cr_assert_str_eq(buf, r->want);
}

static const xfrow xformat_rows[] = {
	{"(3,)", "(2, 3, 4)", 1, {2},
	 "the size of input (3) at axis 0 must be 1 or match the size of target (4) at "
	 "dimension 2, where axes_mapping places it"},
	{"(2, 3)", "(2, 3, 4)", 2, {1, 0},
	 "axes_mapping[1] = 0 does not exceed the entry before it: axes_mapping must be "
	 "strictly ascending"},
	{"(3,)", "(2, 3, 4)", 1, {5}, "axes_mapping[0] = 5 is outside the axes of target (rank 3)"},
	{"(3,)", "?", 1, {-1}, "axes_mapping[0] = -1 is negative"},
	{"(2, 3)", "(2, 3, 4)", 1, {0},
	 "axes_mapping has length 1 but input has rank 2: it needs one entry per axis of input"},
};
TABLE_TEST(format, explicit_rows, xformat_rows, check_xformat)

Test(format, snprintf_contract)
{
	tshape a = parse("(2, 3, 4)"), b = parse("(2, 3, 6)");
	dim dims[3];
	bcast_out out = {.dims = dims};
	bcast_error err;
	const char *full = "the size of A (4) must match the size of B (6) at non-singleton "
			   "dimension 2";
	char buf[11];

	cr_assert_not(bcast_numpy(view(&a), view(&b), NULL, &out, &err));
	cr_assert_eq(bcast_error_format(NULL, 0, &err, NULL, NULL, NULL, NULL), (int)strlen(full));
	memset(buf, 'x', sizeof buf);
	cr_assert_eq(bcast_error_format(buf, sizeof buf, &err, NULL, NULL, NULL, NULL),
		     (int)strlen(full));
	cr_assert_str_eq(buf, "the size o");
	cr_assert_eq(bcast_error_format(buf, 1, &err, NULL, NULL, NULL, NULL), (int)strlen(full));
	cr_assert_str_eq(buf, "");
}

Test(format, no_error)
{
	bcast_error err = {.rule = BCAST_NUMPY, .fail = BFAIL_NONE};
	char buf[32];

	bcast_error_format(buf, sizeof buf, &err, NULL, NULL, NULL, NULL);
	cr_assert_str_eq(buf, "no error");
}

Test(format, rule_names)
{
	cr_assert_str_eq(bcast_rule_name(BCAST_NONE), "none");
	cr_assert_str_eq(bcast_rule_name(BCAST_NUMPY), "numpy");
	cr_assert_str_eq(bcast_rule_name(BCAST_UNIDIRECTIONAL), "unidirectional");
	cr_assert_str_eq(bcast_rule_name(BCAST_PDPD), "pdpd");
	cr_assert_str_eq(bcast_rule_name(BCAST_PADDLE), "paddle");
	cr_assert_str_eq(bcast_rule_name(BCAST_BIDIRECTIONAL), "bidirectional");
	cr_assert_str_eq(bcast_rule_name(BCAST_EXPLICIT), "explicit");
	cr_assert_str_eq(bcast_rule_name((bcast_rule)99), "?");
}

/* ---- shape text --------------------------------------------------------------------- */

typedef struct shrow {
	const char *shape;
	bool names; /* with the symbol-name callback */
	const char *want;
} shrow;

static void check_shape_text(const shrow *r)
{
	tshape t = parse(r->shape);
	char buf[128];
	int n = shape_format(buf, sizeof buf, view(&t), r->names ? sym_name : NULL, NULL);
	cr_assert_str_eq(buf, r->want);
	cr_assert_eq(n, (int)strlen(r->want));
}

static const shrow shape_rows[] = {
	{"(2, N, ?)", true, "(2, N, ?)"},
	{"()", true, "()"},
	{"?", true, "?"},
	{"(3,)", true, "(3,)"},
	{"(0, 1)", true, "(0, 1)"},
	{"(12345678901234,)", false, "(12345678901234,)"},
};
TABLE_TEST(shape_format, rows, shape_rows, check_shape_text)

static const char *no_name(void *ctx, int64_t id)
{
	(void)ctx;
	(void)id;
	return NULL;
}

Test(shape_format, snprintf_contract)
{
	dim d[3] = {dim_known(2), dim_symbol(3), dim_unknown()};
	shape s = {3, d};
	char buf[6];

	char big[32];

	/* Without names a symbol prints as s and its id. */
	cr_assert_eq(shape_format(big, sizeof big, s, NULL, NULL), 10);
	cr_assert_str_eq(big, "(2, s3, ?)");
	cr_assert_eq(shape_format(big, sizeof big, s, no_name, NULL), 10);
	cr_assert_str_eq(big, "(2, s3, ?)");
	cr_assert_eq(shape_format(NULL, 0, s, NULL, NULL), 10);
	memset(buf, 'x', sizeof buf);
	cr_assert_eq(shape_format(buf, sizeof buf, s, NULL, NULL), 10);
	cr_assert_str_eq(buf, "(2, s");
	cr_assert_eq(dim_format(buf, sizeof buf, dim_known(-7), NULL, NULL), 2);
	cr_assert_str_eq(buf, "-7");
	cr_assert_eq(dim_format(buf, sizeof buf, dim_unknown(), NULL, NULL), 1);
	cr_assert_str_eq(buf, "?");
	cr_assert_eq(dim_format(buf, 3, dim_symbol(12345), NULL, NULL), 6);
	cr_assert_str_eq(buf, "s1");
}
