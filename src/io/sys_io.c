/* sys_io.c: the real system calls behind sys_io (see sys_io.h). */
#define _GNU_SOURCE
#include "io/sys_io.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static ssize_t copy_range(int in, int64_t *off, int out, int64_t *out_off, size_t n)
{
	off64_t o = (off64_t)*off, d = out_off ? (off64_t)*out_off : 0;
	ssize_t c = copy_file_range(in, &o, out, out_off ? &d : NULL, n, 0);
	*off = (int64_t)o;
	if (out_off)
		*out_off = (int64_t)d;
	return c;
}

const sys_io sys_io_default = {write, copy_range, fsync, close, rename};

int sys_io_write_all(const sys_io *io, int fd, const void *buf, size_t n, size_t *done)
{
	const unsigned char *b = buf;
	*done = 0;
	while (*done < n) {
		ssize_t w = io->write(fd, b + *done, n - *done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		*done += (size_t)w;
	}
	return 0;
}
