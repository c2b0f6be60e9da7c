/* table_size.h: how many slots a cache table keyed by values gets.
 *
 * The passes keep small direct-mapped caches (shared dims, annotated types) sized to
 * the model: a slot for every four values, far more than the distinct shapes of a
 * graph, so that a big graph's cache holds them all, and a small one's costs a
 * small model nothing to clear.
 */
#ifndef OSH_CORE_TABLE_SIZE_H
#define OSH_CORE_TABLE_SIZE_H

#include <stddef.h>

/* A power of two from min to max (both powers of two): at least a slot per four of
 * `values`, where max allows. */
static inline size_t table_size(size_t values, size_t min, size_t max)
{
	size_t n = min;
	while (n < max && n < values / 4)
		n *= 2;
	return n;
}

#endif
