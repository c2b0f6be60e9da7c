/* grow.c: the CLI's growable arrays (see cli.h). */
#include "cli.h"

#include <stdlib.h>

bool grow_array(void *pp, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? *cap * 2 : 8;
	void *q = realloc(*(void **)pp, c * size);
	if (!q)
		return false;
	*(void **)pp = q;
	*cap = c;
	return true;
}
