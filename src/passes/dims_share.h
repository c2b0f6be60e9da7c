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

typedef struct dims_share dims_share;

/* NULL when the arena is out of memory (sharing is then simply off). */
dims_share *dims_share_new(arena *a);

/* An array in the arena equal to d[0..n), shared when one was published before;
 * NULL when out of memory. s may be NULL: then it is a plain copy. */
const dim *dims_share_get(dims_share *s, arena *a, const dim *d, int32_t n);

#endif
