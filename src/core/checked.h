/* checked.h: integer division and float-to-integer conversion of values a model holds.
 *
 * C leaves `a / b` and `a % b` undefined when b is 0 and, for int64_t, when a is
 * INT64_MIN and b is -1 (the quotient 2^63 does not fit; x86's idiv traps with SIGFPE
 * for both, the remainder included). It leaves a floating value converted to an
 * integer type undefined when the value, truncated, is outside the type (NaN, the
 * infinities, 1e30). Sizes, attributes and tensor contents come from the file, so every
 * such operation on them goes through one of these: each answers whether the result
 * exists, and writes it only then, so a caller treats `false` as an unknown size or
 * an invalid value, never as a number.
 *
 * The operand values being divided are int64_t throughout (sizes, ints attributes,
 * int64 contents); narrower types are widened first, which makes their own
 * overflow cases (INT32_MIN / -1) ordinary results the caller range-checks.
 */
#ifndef OSH_CORE_CHECKED_H
#define OSH_CORE_CHECKED_H

#include <stdbool.h>
#include <stdint.h>

/* a / b truncated toward zero (C's and ONNX Runtime's integer Div). */
static inline bool i64_div(int64_t a, int64_t b, int64_t *q)
{
	if (b == 0 || (b == -1 && a == INT64_MIN))
		return false;
	*q = a / b;
	return true;
}

/* a % b with the sign of a (C's remainder, ONNX's Mod with fmod=1). INT64_MIN % -1
 * is 0, which exists even where the quotient does not. */
static inline bool i64_rem(int64_t a, int64_t b, int64_t *r)
{
	if (b == 0)
		return false;
	*r = b == -1 ? 0 : a % b;
	return true;
}

/* a / b when b divides a and the quotient fits (not for b == 0 nor INT64_MIN / -1). */
static inline bool i64_divexact(int64_t a, int64_t b, int64_t *q)
{
	int64_t r;
	return i64_rem(a, b, &r) && r == 0 && i64_div(a, b, q);
}

/* floor(a / b). */
static inline bool i64_floordiv(int64_t a, int64_t b, int64_t *q)
{
	int64_t t, r;
	if (!i64_div(a, b, &t))
		return false;
	i64_rem(a, b, &r);
	*q = r != 0 && ((r < 0) != (b < 0)) ? t - 1 : t; /* t - 1 > INT64_MIN: |a/b| < 2^63 */
	return true;
}

/* ceil(a / b). */
static inline bool i64_ceildiv(int64_t a, int64_t b, int64_t *q)
{
	int64_t t, r;
	if (!i64_div(a, b, &t))
		return false;
	i64_rem(a, b, &r);
	*q = r != 0 && ((r < 0) == (b < 0)) ? t + 1 : t;
	return true;
}

/* a - b*floor(a/b): the remainder with the sign of b (Python's %, ONNX's Mod with
 * fmod=0). Its magnitude is below |b|, so it fits. */
static inline bool i64_floormod(int64_t a, int64_t b, int64_t *r)
{
	int64_t t;
	if (!i64_rem(a, b, &t))
		return false;
	*r = t != 0 && ((t < 0) != (b < 0)) ? t + b : t;
	return true;
}

/* x truncated toward zero, when that is an int64_t (NaN and the infinities are not).
 * -2^63 and 2^63 are exact as doubles, and no double lies strictly between -2^63 - 1
 * and -2^63 or between 2^63 - 1 and 2^63. */
static inline bool f64_to_i64(double x, int64_t *v)
{
	if (!(x >= -0x1p63 && x < 0x1p63))
		return false;
	*v = (int64_t)x;
	return true;
}

/* The same for int32_t. */
static inline bool f64_to_i32(double x, int32_t *v)
{
	if (!(x > -2147483649.0 && x < 2147483648.0))
		return false;
	*v = (int32_t)x;
	return true;
}

#endif
