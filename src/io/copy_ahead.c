/* copy_ahead.c: see copy_ahead.h.
 *
 * Invariant: the thread touches only the two descriptors and its own struct, and
 * whether it copied everything is read only after it was joined.
 */
#define _GNU_SOURCE
#include "io/copy_ahead.h"
#include "core/quiet_thread.h"
#include "core/tuning.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The copy checks for cancellation every WRITE_AHEAD_STEP bytes. */
struct copy_ahead {
	const sys_io *io;
	int to;
	out_pre pre;
	pthread_t thread;
	atomic_bool cancel;
	bool copied;
};

/* The blocks of what the copy writes, allocated at once: ext4 otherwise reserves
 * them a page at a time as the copy goes. Not the rest of the output: blocks
 * allocated past the end of what is finally written are given back by the truncate
 * that ends every write made ahead (atomic_commit), which slows that truncate
 * down. KEEP_SIZE: the file's length is what is written. Advice: a file system
 * without it, or a disk too full, just goes without. */
static void preallocate(int fd, uint64_t size)
{
#ifdef FALLOC_FL_KEEP_SIZE
	if (size && size <= (uint64_t)INT64_MAX)
		(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size);
#else
	(void)fd, (void)size;
#endif
}

static void *run(void *arg)
{
	copy_ahead *c = arg;
	const out_pre *p = &c->pre;
	/* Here, not on the starting thread: reserving a big file's blocks takes a while. */
	preallocate(c->to, p->dst_off + p->len);
	uint64_t done = 0;
	while (done < p->len && !atomic_load(&c->cancel)) {
		int64_t from = (int64_t)(p->src_off + done), at = (int64_t)(p->dst_off + done);
		size_t step = p->len - done < WRITE_AHEAD_STEP ? (size_t)(p->len - done) : WRITE_AHEAD_STEP;
		ssize_t n = c->io->copy(p->fd, &from, c->to, &at, step);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return NULL; /* any failure: the write produces them the usual way */
		done += (uint64_t)n;
	}
	c->copied = done == p->len;
	return NULL;
}

copy_ahead *copy_ahead_start(const sys_io *io, int to, const out_pre *pre)
{
	copy_ahead *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->io = io, c->to = to, c->pre = *pre;
	atomic_init(&c->cancel, false);
	if (quiet_thread_start(&c->thread, run, c) != 0) {
		free(c);
		return NULL;
	}
	return c;
}

bool copy_ahead_end(copy_ahead *c, bool cancel)
{
	if (!c)
		return false;
	atomic_store(&c->cancel, cancel);
	pthread_join(c->thread, NULL);
	bool copied = c->copied;
	free(c);
	return copied;
}
