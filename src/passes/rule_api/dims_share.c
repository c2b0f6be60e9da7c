/* dims_share.c: the shared-dims cache (see dims_share.h). */
#include "passes/rule_api/dims_share.h"
#include "core/table_size.h"

#include <stdint.h>
#include <string.h>

/* Longer arrays (content of a big integer tensor) are rarely repeated. */
#define MAX_SHARED 16

/* Notes p as handed out (and returns it). */
static const dim *own(dims_share *s, const dim *p, int32_t n)
{
	s->owned[dims_share_owned_slot(s, p)] = (dims_share_entry){p, n};
	return p;
}

dims_share *dims_share_new(arena *a, size_t values)
{
	size_t n = table_size(values, DIMS_SHARE_MIN_SLOTS, DIMS_SHARE_SLOTS);
	size_t owned = table_size(values, (size_t)1 << DIMS_SHARE_OWNED_MIN_BITS, (size_t)1 << DIMS_SHARE_OWNED_BITS);
	dims_share *s = arena_zalloc(a, sizeof(dims_share) + (n + owned) * sizeof(dims_share_entry));
	if (s) {
		s->nslots = (int32_t)n;
		s->owned = s->slot + n;
		s->owned_shift = 64 - (unsigned)__builtin_ctzll(owned); /* the owned table's bits */
	}
	return s;
}

/* One multiply per dim: the slot is picked from the low bits (as many as the table
 * has slots for), which the final fold mixes with the high half, where the
 * multiplies carry every input bit. */
static uint64_t hash(const dim *d, int32_t n)
{
	uint64_t h = (uint64_t)n;
	for (int32_t k = 0; k < n; k++)
		h = (h ^ ((uint64_t)d[k].v << 2 | (uint64_t)d[k].kind)) * 0xff51afd7ed558ccdu;
	return h ^ h >> 32;
}

/* A miss: a new copy of d, kept in slot i when `cached`. Out of line, so that the hit,
 * nearly every call, saves no registers. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static const dim *copy_in(dims_share *s, size_t i, bool cached, arena *a, const dim *d, int32_t n)
{
	if ((size_t)n > SIZE_MAX / sizeof(dim))
		return NULL;
	dim *copy = arena_alloc(a, (n > 0 ? (size_t)n : 1) * sizeof *copy);
	if (!copy)
		return NULL;
	if (n > 0)
		memcpy(copy, d, (size_t)n * sizeof *copy);
	if (cached) {
		s->slot[i].d = copy;
		s->slot[i].n = n;
		s->last = (int32_t)i;
		own(s, copy, n);
	}
	return copy;
}

const dim *dims_share_get(dims_share *s, arena *a, const dim *d, int32_t n)
{
	size_t i = 0;
	bool cached = s && n <= MAX_SHARED;
	if (cached) {
		i = hash(d, n) & (size_t)(s->nslots - 1);
		if (s->slot[i].d && s->slot[i].n == n && dims_share_same(s->slot[i].d, d, n)) {
			s->last = (int32_t)i;
			return own(s, s->slot[i].d, n);
		}
	}
	return copy_in(s, i, cached, a, d, n);
}
