/* output_fast.c: the fast output (output.h): the same bytes as output_plain, with
 * three devices. Full buffers are written by a thread (flush_behind.h) while the
 * producer fills the next; bytes of another file are copied by the kernel, file to
 * file; a durable file's writeback is started as it goes; and bytes a copy made ahead
 * put in place (o->pre) are skipped.
 *
 * Invariant: while a thread writes behind, nothing else touches o->fd (a copy, a
 * seek, the end) before out_drain has waited for it.
 */
#define _GNU_SOURCE
#include "io/output.h"
#include "core/tuning.h"
#include "io/flush_behind.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* A durable output is fsynced before it is renamed into place. Left to fsync alone, all of
 * it would go to the disk only then, after the last byte is packed; started as we go,
 * the disk writes while we pack, and fsync waits for the tail only. Started every
 * WRITEBACK_STEP bytes written. Advice: a failure changes nothing, as fsync still
 * writes whatever is left and reports any error. */
static void start_writeback(out_file *o)
{
#ifdef SYNC_FILE_RANGE_WRITE
	if (!o->durable || o->written - o->synced < WRITEBACK_STEP)
		return;
	sync_file_range(o->fd, (off64_t)o->synced, (off64_t)(o->written - o->synced), SYNC_FILE_RANGE_WRITE);
	o->synced = o->written;
#else
	(void)o;
#endif
}

/* Writes the buffer now, from this thread. */
static void flush_now(out_file *o)
{
	out_write_buffer(o);
	if (!o->err)
		start_writeback(o);
}

static void fast_flush(out_file *o)
{
	if (o->behind && o->len && !o->err) {
		size_t n = o->len;
		o->buf = flush_behind_hand(o->behind, o->buf, n);
		o->written += n;
		o->len = 0;
		return;
	}
	flush_now(o);
}

/* Everything written, by whichever thread: before the file is used otherwise (a
 * copy, a seek, the end). */
static int fast_drain(out_file *o)
{
	fast_flush(o);
	if (o->behind) {
		int e = flush_behind_drain(o->behind);
		if (e && !o->err)
			o->err = e;
	}
	return o->err;
}

/* The buffer is full: written out, and then, once enough went through the first
 * small one, replaced by the big one (never while a thread writes behind: it holds
 * buffers of the size they had). A thread writes the full big buffers from the
 * BEHIND_AFTER-th on (the ninth): below 3 MB of output (the first in small buffers,
 * then eight big ones), starting it costs more than it saves. A durable output is
 * written by this thread, which starts its writeback after each write. */
static void fast_full(out_file *o)
{
	if (o->cap < OUT_BUF) {
		fast_flush(o);
		if (!o->behind)
			out_grow(o);
		return;
	}
	if (!o->behind && !o->durable && ++o->full_flushes > BEHIND_AFTER)
		o->behind = flush_behind_new(o->io, o->fd, o->cap);
	fast_flush(o);
}

static void fast_write_through(out_file *o, const void *data, size_t n)
{
	fast_drain(o);
	unsigned char *saved = o->buf;
	size_t cap = o->cap;
	o->buf = (unsigned char *)data, o->len = n, o->cap = n;
	flush_now(o);
	o->buf = saved, o->cap = cap;
}

/* The kernel cannot copy from fd to o->fd: EXDEV (another file system, kernels
 * before 5.3 and from 5.19), ENOSYS (before 4.5), EINVAL/EOPNOTSUPP (a file system
 * or file kind that does not support it), EBADF (some kernels, for a special file). */
static bool cannot_copy(int e)
{
	return e == EXDEV || e == ENOSYS || e == EINVAL || e == EOPNOTSUPP || e == EBADF;
}

/* True when the n bytes of fd at off are in place at o's position already (o->pre):
 * the position moves past them. */
static bool skip_pre(out_file *o, int fd, uint64_t off, size_t n)
{
	const out_pre *p = &o->pre;
	uint64_t at = o->written + o->len;
	if (!p->len || fd != p->fd || off < p->src_off || off + n > p->src_off + p->len ||
	    at != p->dst_off + (off - p->src_off))
		return false;
	fast_drain(o);
	if (o->err)
		return true;
	if (lseek(o->fd, (off_t)n, SEEK_CUR) < 0)
		o->err = errno;
	else
		o->written += n, o->skipped += n;
	return true;
}

static void fast_copy_from(out_file *o, int fd, uint64_t off, const void *data, size_t n)
{
	if (skip_pre(o, fd, off, n))
		return;
	/* Below OUT_COPY_MIN, a copy is a write from the caller's bytes: a system call
	 * either way. */
	if (fd < 0 || o->no_copy || (n < OUT_COPY_MIN && data)) {
		if (data)
			out_write(o, data, n);
		else
			out_pread(o, fd, off, n);
		return;
	}
	fast_drain(o);
	size_t done = 0;
	while (done < n && !o->err) {
		int64_t at = (int64_t)(off + done);
		ssize_t c = o->io->copy(fd, &at, o->fd, NULL, n - done);
		if (c < 0 && errno == EINTR)
			continue;
		if (c < 0 && cannot_copy(errno)) {
			o->no_copy = true;
			out_copy(o, fd, off + done, data ? (const uint8_t *)data + done : NULL, n - done);
			return;
		}
		if (c <= 0)
			o->err = c < 0 ? errno : ESTALE;
		else
			done += (size_t)c, o->written += (uint64_t)c;
	}
	if (!o->err)
		start_writeback(o);
}

/* Done with the file before it goes: a thread still writing is waited for. */
static void fast_release(out_file *o)
{
	if (o->behind)
		flush_behind_drain(o->behind);
	flush_behind_free(o->behind);
	o->behind = NULL;
	free(o->buf);
	o->buf = NULL, o->len = o->cap = 0;
}

const output_ops output_fast = {
	.full = fast_full,
	.write_through = fast_write_through,
	.copy_from = fast_copy_from,
	.flush = fast_flush,
	.drain = fast_drain,
	.release = fast_release,
};
