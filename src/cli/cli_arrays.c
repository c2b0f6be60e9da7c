/* cli_arrays.c: the CLI's growable arrays (see cli.h), grown as the library grows its own
 * (core/grow.h). */
#include "cli.h"

#include "core/grow.h"

bool grow_array(void *pp, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return true;
	void *q = grow_heap(*(void **)pp, cap, n + 1, 8, size);
	if (!q)
		return false;
	*(void **)pp = q;
	return true;
}
