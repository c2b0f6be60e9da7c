/* grow.c: arrays that grow by doubling (grow.h). */
#include "core/grow.h"

#include <assert.h>
#include <stdlib.h>

size_t grow_capacity(size_t cap, size_t need, size_t first, size_t max, size_t size)
{
	assert(first >= 1);
	size_t limit = size ? SIZE_MAX / size : SIZE_MAX;
	if (max < limit)
		limit = max;
	if (need > limit)
		return 0;
	size_t c = cap ? cap : first < limit ? first : limit;
	while (c < need)
		c = c <= limit / 2 ? c * 2 : limit;
	return c;
}

void *grow_heap(void *p, size_t *cap, size_t need, size_t first, size_t size)
{
	if (p && need <= *cap)
		return p;
	size_t c = grow_capacity(*cap, need, first, SIZE_MAX, size);
	void *q = c ? realloc(p, c * size) : NULL;
	if (q)
		*cap = c;
	return q;
}

void *grow_arena(arena *a, void *p, size_t *cap, size_t first, size_t size)
{
	size_t c = grow_capacity(*cap, *cap + 1, first, SIZE_MAX, size);
	void *q = c > *cap ? arena_grow(a, p, *cap, c, size) : NULL;
	if (q)
		*cap = c;
	return q;
}

void *grow_arena_i32(arena *a, void *p, int32_t *cap, int32_t first, size_t size)
{
	size_t old = *cap > 0 ? (size_t)*cap : 0;
	size_t c = grow_capacity(old, old + 1, first > 0 ? (size_t)first : 1, INT32_MAX, size);
	void *q = c > old ? arena_grow(a, p, old, c, size) : NULL;
	if (q)
		*cap = (int32_t)c;
	return q;
}
