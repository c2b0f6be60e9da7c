/* output.c: the output interface (output.h): what a producer calls, dispatched to the
 * implementation the output was opened with, and the buffer handling both share.
 *
 * Invariant: o->len <= o->cap, and the bytes handed to the kernel (o->written) plus
 * those in the buffer (o->len) are every byte appended, in order.
 *
 * The buffer (core/tuning.h): OUT_BUF_FIRST bytes, reused until OUT_GROW_AFTER bytes
 * went through it, then OUT_BUF. Every fresh page costs a fault, zeroing and
 * accounting, and a small model's output fits a small buffer: a big one from the
 * start is only more pages to fault in. A big output gets the big buffer, and its
 * fewer system calls, after its first megabyte. Not a bigger one: with the
 * flush-behind thread's spare there are two, each a buffer's worth of fresh pages,
 * and a system call per 256 KiB is nothing beside copying them.
 */
#include "io/output.h"
#include "core/pread_all.h"
#include "core/tuning.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int out_open(out_file *o, const output_ops *ops, int fd, const sys_io *io, bool durable, const out_pre *pre)
{
	*o = (out_file){.ops = ops, .fd = fd, .io = io, .buf = malloc(OUT_BUF_FIRST), .cap = OUT_BUF_FIRST,
			.durable = durable};
	if (pre)
		o->pre = *pre;
	return o->buf ? 0 : ENOMEM;
}

void out_write(out_file *o, const void *data, size_t n)
{
	if (o->err || n == 0) /* data may be NULL for an empty bytes field */
		return;
	if (o->len + n > o->cap) {
		o->ops->full(o);
		if (n >= o->cap) { /* large blocks go straight out, no copy */
			o->ops->write_through(o, data, n);
			return;
		}
	}
	memcpy(o->buf + o->len, data, n);
	o->len += n;
}

void out_flush(out_file *o) { o->ops->flush(o); }

void out_copy(out_file *o, int fd, uint64_t off, const void *data, size_t n)
{
	if (o->err || n == 0)
		return;
	o->ops->copy_from(o, fd, off, data, n);
}

int out_finish(out_file *o, bool produced)
{
	int e = produced ? o->ops->drain(o) : o->err;
	o->ops->release(o);
	return e;
}

void out_write_buffer(out_file *o)
{
	if (!o->err) {
		size_t done;
		o->err = sys_io_write_all(o->io, o->fd, o->buf, o->len, &done);
		o->written += done;
	}
	o->len = 0;
}

void out_grow(out_file *o)
{
	if (o->cap >= OUT_BUF || o->written < OUT_GROW_AFTER)
		return;
	unsigned char *big = malloc(OUT_BUF);
	if (big) { /* no memory for it: the small one goes on */
		free(o->buf);
		o->buf = big, o->cap = OUT_BUF;
	}
}

void out_pread(out_file *o, int fd, uint64_t off, size_t n)
{
	while (n && !o->err) {
		if (o->len == o->cap)
			o->ops->full(o);
		size_t want = o->cap - o->len < n ? o->cap - o->len : n;
		int e = pread_all(fd, o->buf + o->len, want, off);
		if (e) {
			o->err = e < 0 ? ESTALE : e;
			return;
		}
		o->len += want, off += want, n -= want;
	}
}
