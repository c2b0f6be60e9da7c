/* parse_bytes.c: a size given on the command line (cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>

bool parse_bytes(const char *arg, uint64_t *out)
{
	if (!arg || *arg < '0' || *arg > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno)
		return false;
	unsigned shift = 0;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B')
		end++;
	if (*end || v == 0 || v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}
