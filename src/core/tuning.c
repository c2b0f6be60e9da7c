/* tuning.c: the plain-or-fast decision (tuning.h), made per load. */
#include "core/tuning.h"

#include <stdlib.h>
#include <string.h>

/* The build's default: -DONNXSHAPE_PLAIN_IO=ON defines it to 1. */
#ifndef OSH_PLAIN_IO_DEFAULT
#define OSH_PLAIN_IO_DEFAULT 0
#endif

bool plain_io_chosen(void)
{
	const char *v = getenv(PLAIN_IO_ENV);
	if (v && !strcmp(v, "1"))
		return true;
	if (v && !strcmp(v, "0"))
		return false;
	return OSH_PLAIN_IO_DEFAULT;
}
