/* output_plain.c: the plain output (output.h): the reference the fast one must agree
 * with byte for byte. Everything is written by the caller's thread with write: bytes
 * of another file are read into the buffer and written like the rest, writeback is
 * left to the fsync at the end, and what output_fast skips (out_pre) is written again.
 */
#include "io/output.h"

#include <stdlib.h>

static void plain_full(out_file *o)
{
	out_write_buffer(o);
	out_grow(o);
}

static void plain_write_through(out_file *o, const void *data, size_t n)
{
	unsigned char *saved = o->buf;
	size_t cap = o->cap;
	o->buf = (unsigned char *)data, o->len = n, o->cap = n;
	out_write_buffer(o);
	o->buf = saved, o->cap = cap;
}

static void plain_copy_from(out_file *o, int fd, uint64_t off, const void *data, size_t n)
{
	if (data)
		out_write(o, data, n);
	else
		out_pread(o, fd, off, n);
}

static int plain_drain(out_file *o)
{
	out_write_buffer(o);
	return o->err;
}

static void plain_release(out_file *o)
{
	free(o->buf);
	o->buf = NULL, o->len = o->cap = 0;
}

const output_ops output_plain = {
	.full = plain_full,
	.write_through = plain_write_through,
	.copy_from = plain_copy_from,
	.flush = out_write_buffer,
	.drain = plain_drain,
	.release = plain_release,
};
