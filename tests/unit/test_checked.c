/* test_checked.c: the checked division and float-to-integer conversion of
 * core/checked.h, and the size algebra (core/dimexpr.c, core/symbols.c) where its
 * divisions meet INT64_MIN and -1.
 *
 * The helpers are checked against 128-bit arithmetic over every pair of a set of
 * int64 values that holds the edges (INT64_MIN, -1, 0, INT64_MAX and their
 * neighbours): each answers false exactly when the true result is not an int64 (or
 * the divisor is 0), and otherwise gives the true result. The conversions are checked
 * at the doubles next to -2^63 and 2^63 (and the int32 bounds), NaN and the
 * infinities. The algebra's divisions of INT64_MIN by -1, as numbers, as an
 * expression's coefficient (where the table keeps one), through a divisor with a
 * symbol and through a dim_param text, raised SIGFPE before: each must give unknown
 * (there is no such size) without a signal; one above INT64_MIN divides exactly.
 */
#include "core/checked.h"
#include "core/dimexpr.h"
#include "core/symbols.h"

#include <criterion/criterion.h>
#include <math.h>

static const int64_t edges[] = {
	INT64_MIN, INT64_MIN + 1, INT64_MIN / 2, -4294967296, -7, -3, -2, -1, 0, 1, 2, 3, 7, 4294967296,
	INT64_MAX / 2, INT64_MAX - 1, INT64_MAX,
};
#define NEDGES (sizeof edges / sizeof edges[0])

__extension__ typedef __int128 wide; /* GCC and clang: 128-bit reference arithmetic */

static bool fits(wide v) { return v >= INT64_MIN && v <= INT64_MAX; }

/* Floor division and modulo in 128 bits (b != 0): C's / truncates. */
static wide wfloordiv(wide a, wide b)
{
	wide q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static wide wceildiv(wide a, wide b)
{
	wide q = a / b;
	return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

Test(checked, division_agrees_with_128_bit_arithmetic)
{
	for (size_t i = 0; i < NEDGES; i++) {
		for (size_t j = 0; j < NEDGES; j++) {
			int64_t a = edges[i], b = edges[j], got = 12345;
			wide wa = a, wb = b;
			bool ok = i64_div(a, b, &got);
			cr_expect_eq(ok, b != 0 && fits(wa / wb), "i64_div(%lld, %lld)", (long long)a, (long long)b);
			if (ok)
				cr_expect(got == wa / wb, "i64_div(%lld, %lld) = %lld", (long long)a, (long long)b,
					  (long long)got);
			ok = i64_rem(a, b, &got);
			cr_expect_eq(ok, b != 0, "i64_rem(%lld, %lld)", (long long)a, (long long)b);
			if (ok)
				cr_expect(got == wa % wb, "i64_rem(%lld, %lld) = %lld", (long long)a, (long long)b,
					  (long long)got);
			ok = i64_floordiv(a, b, &got);
			cr_expect_eq(ok, b != 0 && fits(wfloordiv(wa, wb)), "i64_floordiv(%lld, %lld)", (long long)a,
				     (long long)b);
			if (ok)
				cr_expect(got == wfloordiv(wa, wb), "i64_floordiv(%lld, %lld) = %lld", (long long)a,
					  (long long)b, (long long)got);
			ok = i64_ceildiv(a, b, &got);
			cr_expect_eq(ok, b != 0 && fits(wceildiv(wa, wb)), "i64_ceildiv(%lld, %lld)", (long long)a,
				     (long long)b);
			if (ok)
				cr_expect(got == wceildiv(wa, wb), "i64_ceildiv(%lld, %lld) = %lld", (long long)a,
					  (long long)b, (long long)got);
			ok = i64_floormod(a, b, &got);
			cr_expect_eq(ok, b != 0, "i64_floormod(%lld, %lld)", (long long)a, (long long)b);
			if (ok)
				cr_expect(got == wa - wb * wfloordiv(wa, wb), "i64_floormod(%lld, %lld) = %lld",
					  (long long)a, (long long)b, (long long)got);
			ok = i64_divexact(a, b, &got);
			cr_expect_eq(ok, b != 0 && wa % wb == 0 && fits(wa / wb), "i64_divexact(%lld, %lld)",
				     (long long)a, (long long)b);
			if (ok)
				cr_expect(got == wa / wb);
		}
	}
}

Test(checked, a_failed_division_leaves_the_result_alone)
{
	int64_t q = 42;
	cr_expect(!i64_div(INT64_MIN, -1, &q) && q == 42);
	cr_expect(!i64_div(5, 0, &q) && q == 42);
	cr_expect(!i64_floordiv(INT64_MIN, -1, &q) && q == 42);
	cr_expect(!i64_ceildiv(INT64_MIN, -1, &q) && q == 42);
	cr_expect(!i64_divexact(INT64_MIN, -1, &q) && q == 42);
	cr_expect(!i64_floormod(1, 0, &q) && q == 42);
	cr_expect(i64_rem(INT64_MIN, -1, &q) && q == 0, "the remainder exists where the quotient does not");
}

Test(checked, float_to_int64_at_the_edges)
{
	int64_t v = 7;
	cr_expect(f64_to_i64(-0x1p63, &v) && v == INT64_MIN);
	v = 7;
	cr_expect(!f64_to_i64(nextafter(-0x1p63, -INFINITY), &v) && v == 7);
	cr_expect(!f64_to_i64(0x1p63, &v) && v == 7);
	cr_expect(f64_to_i64(nextafter(0x1p63, 0), &v) && v == INT64_MAX - 1023);
	v = 7;
	cr_expect(!f64_to_i64(NAN, &v) && !f64_to_i64(INFINITY, &v) && !f64_to_i64(-INFINITY, &v));
	cr_expect(!f64_to_i64(1e30, &v) && !f64_to_i64(3e38, &v) && !f64_to_i64(-3e38, &v) && v == 7);
	cr_expect(f64_to_i64(-0.9, &v) && v == 0, "truncation toward zero");
	cr_expect(f64_to_i64(2.5, &v) && v == 2);
	cr_expect(f64_to_i64(-2.5, &v) && v == -2);
}

Test(checked, float_to_int32_at_the_edges)
{
	int32_t v = 7;
	cr_expect(f64_to_i32(-2147483648.0, &v) && v == INT32_MIN);
	cr_expect(f64_to_i32(-2147483648.9, &v) && v == INT32_MIN, "truncates to INT32_MIN");
	cr_expect(!f64_to_i32(-2147483649.0, &v));
	cr_expect(f64_to_i32(2147483647.9, &v) && v == INT32_MAX);
	v = 7;
	cr_expect(!f64_to_i32(2147483648.0, &v) && v == 7);
	cr_expect(!f64_to_i32(NAN, &v) && !f64_to_i32(INFINITY, &v) && !f64_to_i32(1e30, &v) && v == 7);
}

/* ---- the size algebra at INT64_MIN / -1 ------------------------------------------ */

static arena *A;
static symtab T;

static void setup(void)
{
	A = arena_new(0);
	symtab_init(&T, A);
}

static void teardown(void) { arena_free(A); }

TestSuite(algebra_edges, .init = setup, .fini = teardown);

static dim S(const char *name) { return dim_symbol(sym_intern(&T, name)); }
static dim K(int64_t v) { return dim_known(v); }

Test(algebra_edges, numbers)
{
	cr_expect_eq(dx_divexact(&T, K(INT64_MIN), K(-1)).kind, DIM_UNKNOWN);
	cr_expect(dim_is(dx_divexact(&T, K(INT64_MIN), K(1)), INT64_MIN));
	cr_expect(dim_is(dx_divexact(&T, K(INT64_MIN), K(2)), INT64_MIN / 2));
	cr_expect_eq(dx_divexact(&T, K(5), K(0)).kind, DIM_UNKNOWN);
	cr_expect(dim_is(dx_floordiv(&T, K(INT64_MIN), K(INT64_MAX)), -2));
	dim r = dx_mod(&T, K(INT64_MIN), K(INT64_MAX)); /* a - b*floor(a/b): b*(-2) overflows */
	cr_expect(r.kind == DIM_UNKNOWN || dim_is(r, INT64_MAX - 1));
	cr_expect_eq(dx_ceildiv(&T, K(INT64_MIN), K(-1)).kind, DIM_UNKNOWN, "a divisor <= 0 is not a size");
}

Test(algebra_edges, expressions)
{
	dim n = S("N"), m = S("M"), minus_n = dx_sub(&T, K(0), n);
	/* A coefficient of INT64_MIN has no text that reads back, and the table may
	 * refuse it (unknown); where it keeps one, dividing it by -1 must be unknown. */
	dim big = dx_mul(&T, n, K(INT64_MIN)); /* -9223372036854775808*N */
	if (big.kind != DIM_UNKNOWN) {
		cr_expect_eq(dx_divexact(&T, big, K(-1)).kind, DIM_UNKNOWN);
		cr_expect_eq(dx_divexact(&T, big, minus_n).kind, DIM_UNKNOWN, "Reshape's -1: (N*INT64_MIN)/(-N)");
		cr_expect(dx_floordiv(&T, big, minus_n).kind != DIM_KNOWN, "no number is INT64_MIN / -1");
		(void)dx_ceildiv(&T, big, minus_n);
		(void)dx_mod(&T, big, minus_n);
	}
	/* One above it divides by -1 exactly: by a number, by a term, by a sum. */
	dim near = dx_mul(&T, n, K(INT64_MIN + 1));
	cr_assert_eq(near.kind, DIM_SYMBOL);
	cr_expect(dim_eq(dx_divexact(&T, near, K(-1)), dx_mul(&T, n, K(INT64_MAX))));
	cr_expect(dim_is(dx_divexact(&T, near, n), INT64_MIN + 1));
	cr_expect(dim_is(dx_divexact(&T, near, minus_n), INT64_MAX));
	dim two = dx_add(&T, near, dx_mul(&T, m, K(INT64_MIN + 1)));
	cr_assert_eq(two.kind, DIM_SYMBOL);
	cr_expect(dim_is(dx_divexact(&T, two, dx_sub(&T, minus_n, m)), INT64_MAX));
	cr_expect_eq(dx_divexact(&T, near, K(0)).kind, DIM_UNKNOWN);
	cr_expect_eq(dx_divexact(&T, near, K(2)).kind, DIM_UNKNOWN, "INT64_MIN + 1 is odd");
}

Test(algebra_edges, dim_params)
{
	static const char *const texts[] = {
		"(-9223372036854775807 - 1)/-1",
		"floor((-9223372036854775807 - 1)/-1)",
		"ceiling((-9223372036854775807 - 1)/-1)",
		"Mod(-9223372036854775807 - 1, -1)",
		"FloorDiv(-9223372036854775807 - 1, -1)",
		"CeilDiv(-9223372036854775807 - 1, -1)",
		"(-9223372036854775807 - 1)*N/(-N)",
		"(-9223372036854775807 - 1)*N/-1",
		"N/0",
		"Mod(N, 0)",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		dim d = dx_parse(&T, texts[i]);
		cr_expect(d.kind == DIM_SYMBOL, "%s: a name (no number is the value), not %d", texts[i], (int)d.kind);
	}
}

/* c*x + k = v solved for x, with c = -1 and v - k near int64's edge: no size is
 * negative, so a negative v is refused and a negative solution binds the expression
 * alone. */
Test(algebra_edges, binding_a_linear_expression)
{
	dim neg = dx_sub(&T, K(0), S("N")), m = S("M");
	cr_assert_eq(neg.kind, DIM_SYMBOL);
	cr_expect(!sym_bind(&T, neg.v, INT64_MIN), "-N = INT64_MIN: no size is negative");
	dim lin = dx_add(&T, dx_mul(&T, m, K(-1)), K(1));
	cr_assert_eq(lin.kind, DIM_SYMBOL);
	cr_expect(sym_bind(&T, lin.v, INT64_MAX), "1 - M = INT64_MAX: M would be negative, the expression is bound");
	cr_expect(!sym_value(&T, m.v, &(int64_t){0}), "M itself stays unbound");
	cr_expect(dim_is(dim_resolve(&T, lin), INT64_MAX));
}
