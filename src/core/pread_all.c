/* pread_all.c: see pread_all.h. */
#define _XOPEN_SOURCE 700 /* pread */
#include "core/pread_all.h"

#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	for (uint8_t *p = buf; n;) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return -1;
		p += r, n -= (size_t)r, off += (uint64_t)r;
	}
	return 0;
}
