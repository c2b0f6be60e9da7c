/* test_dimexpr.c: dimension expressions (core/dimexpr.c) and facts over them
 * (core/symbols.c).
 *
 * The promises: equal expressions get the same id however they were built; the
 * simplifications the issue names (a convolution of stride 1 keeps H, a product
 * divided by its factor is the rest, strided convolutions chain into one floor); the
 * text is sympy's printing and reads back to the same id; every expression evaluates,
 * after binding its symbols, to what integer arithmetic gives (checked over a grid of
 * values); a bound passed gives unknown, never a wrong form; facts reach expressions.
 */
#include "core/dimexpr.h"
#include "core/symbols.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static arena *A;
static symtab T;

static void setup(void)
{
	A = arena_new(0);
	symtab_init(&T, A);
}

static void teardown(void) { arena_free(A); }

TestSuite(dimexpr, .init = setup, .fini = teardown);

static dim S(const char *name) { return dim_symbol(sym_intern(&T, name)); }
static dim K(int64_t v) { return dim_known(v); }
static const char *txt(dim d)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8];
	dim_format(b, 256, d, sym_name_cb, &T);
	return b;
}

#define EXPECT_TEXT(d, want) cr_expect_str_eq(txt(d), want)

Test(dimexpr, sums_and_products_print_as_sympy)
{
	dim b = S("batch"), s = S("seq");
	EXPECT_TEXT(dx_mul(&T, b, s), "batch*seq");
	EXPECT_TEXT(dx_mul(&T, s, b), "batch*seq");
	EXPECT_TEXT(dx_add(&T, dx_mul(&T, K(2), s), K(1)), "2*seq + 1");
	EXPECT_TEXT(dx_sub(&T, s, K(1)), "seq - 1");
	EXPECT_TEXT(dx_mul(&T, s, s), "seq**2");
	EXPECT_TEXT(dx_sub(&T, K(0), s), "-seq");
	EXPECT_TEXT(dx_add(&T, dx_mul(&T, b, s), b), "batch*seq + batch");
	cr_expect(dim_eq(dx_sub(&T, dx_add(&T, s, K(5)), K(5)), s), "seq + 5 - 5 is the atom seq");
	cr_expect(dim_is(dx_sub(&T, dx_mul(&T, b, s), dx_mul(&T, s, b)), 0));
}

Test(dimexpr, equal_forms_share_an_id)
{
	dim b = S("batch"), s = S("seq");
	dim x = dx_add(&T, dx_mul(&T, b, dx_add(&T, s, K(1))), K(2));
	dim y = dx_add(&T, dx_add(&T, b, K(2)), dx_mul(&T, s, b));
	cr_assert_eq(x.kind, DIM_SYMBOL);
	cr_expect(dim_eq(x, y));
}

Test(dimexpr, the_issues_simplifications)
{
	dim H = S("H"), b = S("batch"), s = S("seq");
	/* floor((H + 2 - 3)/1) + 1 is H */
	dim conv = dx_add(&T, dx_floordiv(&T, dx_sub(&T, dx_add(&T, H, K(2)), K(3)), K(1)), K(1));
	cr_expect(dim_eq(conv, H));
	/* (batch*seq*64)/64 is batch*seq */
	dim prod = dx_mul(&T, dx_mul(&T, b, s), K(64));
	cr_expect(dim_eq(dx_floordiv(&T, prod, K(64)), dx_mul(&T, b, s)));
	cr_expect(dim_eq(dx_divexact(&T, prod, K(64)), dx_mul(&T, b, s)));
	/* Reshape (batch, seq, 768) to (batch, -1): the rest is 768*seq */
	dim total = dx_mul(&T, prod, K(12));
	EXPECT_TEXT(dx_divexact(&T, total, b), "768*seq");
	cr_expect_eq(dx_divexact(&T, dx_add(&T, s, K(1)), s).kind, DIM_UNKNOWN);
	/* A quotient with a constant term: (32*b*f - 32*b)/(32*b) is f - 1. */
	dim f = dx_floordiv(&T, S("samples"), K(5));
	dim bf = dx_mul(&T, dx_mul(&T, b, K(32)), dx_sub(&T, f, K(1)));
	cr_expect(dim_eq(dx_divexact(&T, bf, dx_mul(&T, b, K(32))), dx_sub(&T, f, K(1))));
}

/* Output size of a convolution: floor((x + pads - k)/stride) + 1. */
static dim conv(dim x, int64_t k, int64_t s, int64_t pads)
{
	return dx_add(&T, dx_floordiv(&T, dx_sub(&T, dx_add(&T, x, K(pads)), K(k)), K(s)), K(1));
}

Test(dimexpr, strided_convolutions_chain_into_one_floor)
{
	dim H = S("H");
	dim x = conv(H, 7, 2, 6); /* resnet's stem */
	EXPECT_TEXT(x, "floor((H + 1)/2)");
	x = conv(x, 3, 2, 2); /* its max pool */
	EXPECT_TEXT(x, "floor((H + 3)/4)");
	dim down = conv(x, 1, 2, 0), main = conv(x, 3, 2, 2);
	cr_expect(dim_eq(down, main), "a 1x1 stride-2 shortcut and a 3x3 stride-2 pad-1 branch agree");
	x = conv(conv(conv(main, 3, 2, 2), 3, 2, 2), 1, 1, 0);
	EXPECT_TEXT(x, "floor((H + 31)/32)");
}

Test(dimexpr, max_min_and_mod)
{
	dim a = S("a"), b = S("b");
	EXPECT_TEXT(dx_max(&T, b, a), "Max(a, b)");
	cr_expect(dim_eq(dx_max(&T, a, b), dx_max(&T, b, a)));
	cr_expect(dim_eq(dx_max(&T, dx_add(&T, a, K(1)), a), dx_add(&T, a, K(1))));
	cr_expect(dim_eq(dx_min(&T, dx_add(&T, a, K(1)), a), a));
	cr_expect(dim_eq(dx_max(&T, a, K(0)), a), "a size is >= 0");
	EXPECT_TEXT(dx_max(&T, a, K(1)), "Max(a, 1)");
	cr_expect(dim_eq(dx_max(&T, dx_max(&T, a, b), a), dx_max(&T, a, b)));
	cr_expect(dim_is(dx_mod(&T, dx_mul(&T, a, K(4)), K(2)), 0));
	EXPECT_TEXT(dx_ceildiv(&T, a, K(4)), "floor((a + 3)/4)");
}

Test(dimexpr, parse_reads_back_what_it_printed_and_sympys_forms)
{
	dim H = S("H"), b = S("batch"), s = S("seq");
	dim exprs[] = {dx_mul(&T, b, s), dx_add(&T, dx_mul(&T, K(2), s), K(1)), conv(conv(H, 7, 2, 6), 3, 2, 2),
		       dx_max(&T, b, dx_sub(&T, s, K(1))), dx_floordiv(&T, b, s)};
	for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
		dim back = dx_parse(&T, sym_name(&T, exprs[i].v));
		cr_expect(dim_eq(back, exprs[i]), "%s read back as %s", sym_name(&T, exprs[i].v), txt(back));
	}
	/* sympy writes floor(H/32 + 31/32) for what is here floor((H + 31)/32). */
	dim sym = dx_parse(&T, "floor(H/32 + 31/32)");
	EXPECT_TEXT(sym, "floor((H + 31)/32)");
	cr_expect(dim_eq(dx_parse(&T, "past + seq"), dx_add(&T, S("past"), s)));
	/* A text whose value is a number is a name, as ONNX Runtime reads it. */
	dim seven = dx_parse(&T, "2*3 + 1");
	cr_assert_eq(seven.kind, DIM_SYMBOL);
	cr_expect_str_eq(sym_name(&T, seven.v), "2*3 + 1");
	/* Names stay names. */
	dim n = dx_parse(&T, "batch-size");
	cr_expect_str_eq(sym_name(&T, n.v), "batch-size");
	cr_expect(!sym_is_expr(&T, n.v));
	dim bad = dx_parse(&T, "floor(H/");
	cr_expect(!sym_is_expr(&T, bad.v));
}

/* Every expression built from a grid of operations agrees, once its atoms are bound,
 * with integer arithmetic on the values. */
typedef struct env {
	int64_t a, b;
} env;

static dim bind_ab(void *ctx, int64_t atom)
{
	const env *e = ctx;
	const char *n = sym_name(&T, atom);
	return !strcmp(n, "a") ? K(e->a) : !strcmp(n, "b") ? K(e->b) : dim_symbol(atom);
}

static int64_t fdiv(int64_t x, int64_t y)
{
	int64_t q = x / y;
	return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}

Test(dimexpr, values_agree_with_integer_arithmetic)
{
	dim a = S("a"), b = S("b");
	for (int64_t q = 1; q <= 5; q++) {
		for (int64_t c = -4; c <= 4; c++) {
			dim e1 = dx_floordiv(&T, dx_add(&T, dx_mul(&T, a, K(3)), K(c)), K(q));
			dim e2 = dx_floordiv(&T, dx_add(&T, e1, dx_mul(&T, b, K(c))), K(q + 1));
			dim e3 = dx_ceildiv(&T, dx_add(&T, a, b), K(q));
			dim e4 = dx_mod(&T, dx_add(&T, a, K(c)), K(q));
			dim e5 = dx_max(&T, dx_sub(&T, a, K(c)), dx_floordiv(&T, b, K(q)));
			for (int64_t va = 0; va <= 9; va++) {
				for (int64_t vb = 0; vb <= 9; vb++) {
					env e = {va, vb};
					int64_t w1 = fdiv(3 * va + c, q), w2 = fdiv(w1 + vb * c, q + 1);
					int64_t w3 = fdiv(va + vb + q - 1, q), w4 = va + c - q * fdiv(va + c, q);
					int64_t w5 = va - c > fdiv(vb, q) ? va - c : fdiv(vb, q);
					dim got[] = {dx_subst(&T, e1, bind_ab, &e), dx_subst(&T, e2, bind_ab, &e),
						     dx_subst(&T, e3, bind_ab, &e), dx_subst(&T, e4, bind_ab, &e),
						     dx_subst(&T, e5, bind_ab, &e)};
					int64_t want[] = {w1, w2, w3, w4, w5};
					for (int k = 0; k < 5; k++)
						cr_assert(dim_is(got[k], want[k]), "e%d with a=%lld b=%lld c=%lld q=%lld: %s, want %lld",
							  k + 1, (long long)va, (long long)vb, (long long)c, (long long)q,
							  txt(got[k]), (long long)want[k]);
				}
			}
		}
	}
}

Test(dimexpr, bounds_give_unknown)
{
	dim a = S("a");
	dim big = dx_mul(&T, a, K(INT64_MAX / 2));
	cr_expect_eq(dx_mul(&T, big, K(4)).kind, DIM_UNKNOWN);
	dim p = dx_mul(&T, dx_mul(&T, a, a), dx_mul(&T, a, a));
	cr_expect_eq(dx_mul(&T, p, a).kind, DIM_UNKNOWN, "degree past DX_MAX_DEG");
	dim s = K(0);
	char name[8];
	for (int i = 0; i < DX_MAX_TERMS + 1; i++) {
		snprintf(name, sizeof name, "x%d", i);
		s = dx_add(&T, s, S(name));
	}
	cr_expect_eq(s.kind, DIM_UNKNOWN, "terms past DX_MAX_TERMS");
}

Test(dimexpr, facts_reach_expressions)
{
	dim b = S("batch"), s = S("seq"), u = dim_symbol(sym_fresh(&T, NULL));
	dim bu = dx_mul(&T, b, u);
	cr_assert(sym_unify(&T, u.v, s.v));
	cr_expect(dim_eq(dim_resolve(&T, bu), dx_mul(&T, b, s)), "unk = seq makes batch*unk batch*seq");
	cr_expect(dim_eq(dim_resolve(&T, u), s), "a user's name represents its class");
	cr_assert(sym_bind(&T, s.v, 8));
	cr_expect(dim_eq(dim_resolve(&T, bu), dx_mul(&T, b, K(8))));
	dim lin = dx_add(&T, dx_mul(&T, K(2), b), K(1));
	cr_assert(sym_bind(&T, lin.v, 7), "2*batch + 1 = 7 binds batch to 3");
	cr_expect(dim_is(dim_resolve(&T, b), 3));
	cr_expect(dim_is(dim_resolve(&T, bu), 24));
	cr_expect(!sym_bind(&T, lin.v, 9), "a contradiction is refused");
}

Test(dimexpr, a_class_never_contains_its_representative)
{
	dim x = dim_symbol(sym_fresh(&T, NULL));
	dim e = dx_add(&T, x, K(1));
	/* x = x + 1 has no solution in sizes; what matters is that resolving ends. */
	sym_unify(&T, x.v, e.v);
	(void)dim_resolve(&T, e);
	(void)dim_resolve(&T, x);
	dim y = dim_symbol(sym_fresh(&T, NULL)), f = dx_floordiv(&T, y, K(2));
	cr_assert(sym_unify(&T, y.v, dx_mul(&T, f, K(2)).v));
	(void)dim_resolve(&T, f);
}

/* ---- what a dim_param's text is ------------------------------------------------------ */

Test(dimexpr, a_text_is_an_expression_only_when_written_as_one)
{
	/* {text, what it reads as}: NULL, the text itself as one name. */
	static const char *const table[][2] = {
		{"1 - 2", NULL},             /* a number: a name, never -1 */
		{"a - a - 5", NULL},         /* likewise, never -5 */
		{"a - a", NULL},
		{"2*3 + 1", NULL},
		{"(batch)", NULL},           /* a single name is no expression */
		{"batch-size", NULL},        /* `-` without spaces is part of the name */
		{"batch size", NULL},
		{"batch * seq", NULL},       /* neither printer writes these spaces */
		{"batch+seq", NULL},
		{"conv/out.0", NULL},        /* `/` outside a floor is part of the name */
		{"Squeeze/m/roi_heads/box_roi_pool/Squeeze_1_output_0_dim_0", NULL},
		{"floor(a/0)", NULL},        /* no size */
		{"floor(a/(-2))", NULL},
		{"Mod(a, 0)", NULL},
		{"99999999999999999999*a", NULL},
		{"a**5", NULL},              /* past DX_MAX_DEG */
		{"2*`batch`", NULL},         /* backquotes where none are needed */
		{"2*`a - b`", NULL},         /* a quoted expression is no name */
		{"foo(a)", NULL},
		{"seq + batch", "batch + seq"},
		{"-seq + 1", "-seq + 1"},
		{"Max(1, seq)", "Max(seq, 1)"},  /* sympy's order */
		{"Max(a, b, c)", "Max(a, b, c)"},
		{"Mod(a, 4)", "a - 4*floor(a/4)"},
		{"ceiling(a/4)", "floor((a + 3)/4)"},
		{"floor(H/32 + 31/32)", "floor((H + 31)/32)"},
		{"2*`batch-size`", "2*`batch-size`"},
		{"2*`1 - 2`", "2*`1 - 2`"},
		{"`a``b` + 1", "`a``b` + 1"},
	};
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		dim d = dx_parse(&T, table[i][0]);
		cr_assert_eq(d.kind, DIM_SYMBOL, "%s is a symbol, never a number", table[i][0]);
		if (!table[i][1]) {
			cr_expect(!sym_is_expr(&T, d.v), "%s read as the expression %s", table[i][0], txt(d));
			cr_expect_str_eq(sym_name(&T, d.v), table[i][0]);
		} else {
			cr_expect(sym_is_expr(&T, d.v), "%s read as a name", table[i][0]);
			EXPECT_TEXT(d, table[i][1]);
		}
	}
}

Test(dimexpr, every_name_written_in_an_expression_reads_back)
{
	static const char *const names[] = {"batch-size", "my dim", "conv.out.0", "feat/len", "a`b", "1 - 2",
					    "floor", "x)", "`", "seq + 1 -", "über"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		dim n = S(names[i]);
		cr_assert(!sym_is_expr(&T, n.v), "%s is a name", names[i]);
		dim exprs[] = {dx_mul(&T, n, K(2)), dx_add(&T, n, S("seq")), dx_floordiv(&T, n, K(4)),
			       dx_max(&T, n, K(1)), dx_mul(&T, n, n)};
		for (size_t k = 0; k < sizeof exprs / sizeof exprs[0]; k++) {
			cr_assert_eq(exprs[k].kind, DIM_SYMBOL);
			const char *text = sym_name(&T, exprs[k].v);
			symtab fresh;
			symtab_init(&fresh, A);
			dim back = dx_parse(&T, text), again = dx_parse(&fresh, text);
			cr_expect(dim_eq(back, exprs[k]), "%s read back as %s", text, txt(back));
			cr_expect(again.kind == DIM_SYMBOL && sym_is_expr(&fresh, again.v) &&
					  !strcmp(sym_name(&fresh, again.v), text),
				  "%s in a table of its own", text);
		}
	}
}

Test(dimexpr, no_fact_makes_a_size_negative)
{
	dim a = S("a"), b = S("b"), seq = S("seq");
	dim d = dx_parse(&T, "a - b");
	cr_assert(sym_is_expr(&T, d.v));
	cr_assert(sym_bind(&T, a.v, 1) && sym_bind(&T, b.v, 5));
	dim r = dim_resolve(&T, d);
	cr_expect(r.kind == DIM_SYMBOL, "a - b with a = 1 and b = 5 stays a - b, got %s", txt(r));
	cr_expect(dim_is(dim_resolve(&T, dx_sub(&T, b, a)), 4), "b - a is 4");
	/* seq + 5 = 3 has no size for seq: the expression is bound alone. */
	dim s5 = dx_add(&T, seq, K(5));
	cr_expect(sym_bind(&T, s5.v, 3));
	cr_expect(dim_resolve(&T, seq).kind == DIM_SYMBOL, "seq stays unknown");
	cr_expect(!sym_bind(&T, S("n").v, -1), "no size is -1");
}

/* Min and Max of sizes built from floors agree, at every value on a grid, with the
 * arithmetic: dropping an argument is only done when provably right. */
Test(dimexpr, min_and_max_of_floors_agree_with_integer_arithmetic)
{
	dim L = S("a");
	EXPECT_TEXT(dx_min(&T, L, dx_floordiv(&T, L, K(2))), "floor(a/2)");
	EXPECT_TEXT(dx_max(&T, L, dx_floordiv(&T, L, K(2))), "a");
	EXPECT_TEXT(dx_min(&T, dx_ceildiv(&T, L, K(2)), L), "floor((a + 1)/2)");
	cr_expect(sym_is_expr(&T, dx_min(&T, dx_sub(&T, L, K(1)), dx_floordiv(&T, L, K(2))).v) &&
		  T.v[dx_min(&T, dx_sub(&T, L, K(1)), dx_floordiv(&T, L, K(2))).v].kind == DX_MIN,
		  "a - 1 is below floor(a/2) at a = 0: both stay");
	dim forms[] = {L, dx_floordiv(&T, L, K(2)), dx_ceildiv(&T, L, K(3)), dx_sub(&T, L, K(1)),
		       dx_add(&T, dx_floordiv(&T, L, K(4)), K(2)), dx_sub(&T, L, dx_floordiv(&T, L, K(2))),
		       dx_min(&T, L, K(5))};
	size_t n = sizeof forms / sizeof forms[0];
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++) {
			dim mn = dx_min(&T, forms[i], forms[j]), mx = dx_max(&T, forms[i], forms[j]);
			for (int64_t va = 0; va <= 20; va++) {
				env e = {va, 0};
				dim x = dx_subst(&T, forms[i], bind_ab, &e), y = dx_subst(&T, forms[j], bind_ab, &e);
				cr_assert(x.kind == DIM_KNOWN && y.kind == DIM_KNOWN);
				dim gmn = dx_subst(&T, mn, bind_ab, &e), gmx = dx_subst(&T, mx, bind_ab, &e);
				cr_assert(dim_is(gmn, x.v < y.v ? x.v : y.v), "Min(%s, %s) = %s at a=%lld: %s", txt(forms[i]),
					  txt(forms[j]), txt(mn), (long long)va, txt(gmn));
				cr_assert(dim_is(gmx, x.v > y.v ? x.v : y.v), "Max(%s, %s) = %s at a=%lld: %s", txt(forms[i]),
					  txt(forms[j]), txt(mx), (long long)va, txt(gmx));
			}
		}
	}
}
