/* dims_share.h: one array for every published shape that is the same.
 *
 * A million-node model publishes a few million dim arrays (each output's shape,
 * each initializer's) but only a few thousand distinct ones: [batch, seq, 768] over
 * and over. Published arrays are never modified (tinfo.h), so values with equal
 * dims can share one. The cache is lossy and fixed in size: a slot holds the last
 * array that hashed to it, a miss just allocates, and a result is always right.
 */
#ifndef OSH_PASSES_DIMS_SHARE_H
#define OSH_PASSES_DIMS_SHARE_H

#include "core/arena.h"
#include "core/shape.h"

#include <stddef.h>
#include <stdint.h>

/* At most 4096 slots, 64 KB per model: enough that a million-node model's distinct
 * shapes nearly all find a slot. A smaller graph gets fewer (dims_share_new): the
 * table is zeroed, and each page of it is a page fault in a run of milliseconds. */
#define DIMS_SHARE_SLOTS 4096
#define DIMS_SHARE_MIN_SLOTS 256
/* The arrays handed out lately, by address (dims_share_owns): enough for the shapes
 * the nodes of a few layers pass on; a small graph gets fewer, as it gets fewer slots. */
#define DIMS_SHARE_OWNED_BITS 10
#define DIMS_SHARE_OWNED_MIN_BITS 6

typedef struct dims_share_entry {
	const dim *d;
	int32_t n;
} dims_share_entry;

/* In the header only for dims_share_owns to be inline (asked once per node output);
 * the rest is dims_share.c's. */
typedef struct dims_share {
	dims_share_entry *owned; /* 1 << (64 - owned_shift) entries, after slot[] */
	unsigned owned_shift;
	int32_t last;   /* the slot of the last answer from the cache (dims_share_again) */
	int32_t nslots; /* a power of two */
	dims_share_entry slot[];
} dims_share;

static inline size_t dims_share_owned_slot(const dims_share *s, const dim *d)
{
	return (size_t)(((uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15u) >> s->owned_shift);
}

/* Whether a[0..n) and b[0..n) are the same dims, field by field (dim has padding
 * after kind, which memcmp would read). */
static inline bool dims_share_same(const dim *a, const dim *b, int32_t n)
{
	for (int32_t k = 0; k < n; k++)
		if (a[k].kind != b[k].kind || a[k].v != b[k].v)
			return false;
	return true;
}

/* A cache for a model of about `values` values; NULL when the arena is out of memory
 * (sharing is then simply off). */
dims_share *dims_share_new(arena *a, size_t values);

/* An array in the arena equal to d[0..n), shared when one was published before;
 * NULL when out of memory. s may be NULL: then it is a plain copy. */
const dim *dims_share_get(dims_share *s, arena *a, const dim *d, int32_t n);

/* Whether p (n entries), an answer of dims_share_get from slot `at` (the call's
 * `last`), is still what the cache holds there, and so what a call with dims equal
 * to p's would answer now. Then it is noted as handed out again, as that call would:
 * a caller that keeps what it published for some dims (the initializers of a layer
 * have a few shapes, over and over) saves building and hashing them. s may be NULL. */
static inline bool dims_share_again(dims_share *s, const dim *p, int32_t n, int32_t at)
{
	if (!s || !p || at < 0 || at >= s->nslots || s->slot[at].d != p || s->slot[at].n != n)
		return false;
	s->owned[dims_share_owned_slot(s, p)] = (dims_share_entry){p, n};
	return true;
}

/* Whether d (n entries) is an array dims_share_get handed out, as far as the cache
 * remembers (lossy: false is always safe). Such an array is already shared: a rule
 * that passes an input's dims on (Relu, BatchNormalization, x + bias) can publish
 * it as it is, which saves the hash and compare of dims_share_get and keeps equal
 * shapes one array (lint and emit compare shapes by address). s may be NULL. */
static inline bool dims_share_owns(const dims_share *s, const dim *d, int32_t n)
{
	if (!s || !d) /* an empty slot holds NULL; a scalar's dims may be NULL too */
		return false;
	const dims_share_entry *e = &s->owned[dims_share_owned_slot(s, d)];
	return e->d == d && e->n == n;
}

#endif
