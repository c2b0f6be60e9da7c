/* test_grow.c: arrays that grow by doubling (core/grow.c).
 *
 * The capacity is doubled from the first one until it holds what is asked, is the
 * old one when that already does, and stops at the type's limit and at SIZE_MAX
 * bytes: asking past them is refused, never wrapped around. A heap or arena array
 * keeps its content when it grows, and a refusal leaves it and its capacity alone.
 */
#include "core/grow.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

Test(grow, capacity_doubles_from_first)
{
	cr_assert_eq(grow_capacity(0, 1, 16, SIZE_MAX, 4), 16);
	cr_assert_eq(grow_capacity(0, 40, 16, SIZE_MAX, 4), 64);
	cr_assert_eq(grow_capacity(16, 17, 16, SIZE_MAX, 4), 32);
	cr_assert_eq(grow_capacity(16, 100, 8, SIZE_MAX, 4), 128);
	cr_assert_eq(grow_capacity(32, 20, 8, SIZE_MAX, 4), 32, "a capacity that holds need is kept");
	cr_assert_eq(grow_capacity(0, 0, 4096, SIZE_MAX, 1), 4096);
}

Test(grow, capacity_stops_at_the_limits)
{
	/* The last doubling is cut at the limit rather than refused... */
	cr_assert_eq(grow_capacity((size_t)1 << 30, ((size_t)1 << 30) + 1, 8, INT32_MAX, 4), INT32_MAX);
	cr_assert_eq(grow_capacity(SIZE_MAX / 16 + 1, SIZE_MAX / 16 + 2, 8, SIZE_MAX, 8), SIZE_MAX / 8);
	/* ...and anything past it is refused. */
	cr_assert_eq(grow_capacity(INT32_MAX, (size_t)INT32_MAX + 1, 8, INT32_MAX, 4), 0);
	cr_assert_eq(grow_capacity(0, SIZE_MAX / 8 + 1, 8, SIZE_MAX, 8), 0);
	cr_assert_eq(grow_capacity(0, 100, 1000, 50, 1), 0);
	cr_assert_eq(grow_capacity(0, 10, 1000, 50, 1), 50, "a first capacity past the limit is cut to it");
}

Test(grow, heap_keeps_content)
{
	size_t cap = 0;
	int *p = NULL;
	for (int i = 0; i < 1000; i++) {
		if ((size_t)i == cap) {
			int *q = grow_heap(p, &cap, (size_t)i + 1, 8, sizeof *q);
			cr_assert(q);
			p = q;
		}
		p[i] = i;
	}
	cr_assert_eq(cap, 1024);
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(p[i], i);
	cr_assert_eq(grow_heap(p, &cap, 10, 8, sizeof *p), p, "room already there: the same array");
	size_t before = cap;
	cr_assert_null(grow_heap(p, &cap, SIZE_MAX, 8, sizeof *p));
	cr_assert_eq(cap, before);
	free(p);
}

Test(grow, arena_keeps_content_and_zeroes_the_tail)
{
	arena *a = arena_new(0);
	cr_assert(a);
	int32_t cap = 0, n = 0;
	int64_t *p = NULL;
	for (; n < 100; n++) {
		if (n == cap) {
			int64_t *q = grow_arena_i32(a, p, &cap, 16, sizeof *q);
			cr_assert(q);
			for (int32_t k = n; k < cap; k++)
				cr_assert_eq(q[k], 0);
			p = q;
		}
		p[n] = n * 3;
	}
	cr_assert_eq(cap, 128);
	for (int32_t k = 0; k < n; k++)
		cr_assert_eq(p[k], k * 3);
	int32_t full = INT32_MAX;
	cr_assert_null(grow_arena_i32(a, p, &full, 16, sizeof *p));
	cr_assert_eq(full, INT32_MAX);
	size_t scap = 0;
	char *s = grow_arena(a, NULL, &scap, 4, 1);
	cr_assert(s);
	cr_assert_eq(scap, 4);
	arena_free(a);
}
