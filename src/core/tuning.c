/* tuning.c: what the environment asks of the library (tuning.h): the plain-or-fast
 * decision, made per load, and the IR checker, per run. */
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

bool plain_io_for(osh_io io)
{
	if (io == OSH_IO_PLAIN)
		return true;
	if (io == OSH_IO_FAST)
		return false;
	return plain_io_chosen();
}

bool verify_ir_chosen(void)
{
	const char *env = getenv("ONNXSHAPE_VERIFY_IR");
	if (env && env[0])
		return strcmp(env, "0") != 0;
#if !defined(NDEBUG) || defined(OSH_VERIFY_IR)
	return true;
#else
	return false;
#endif
}
