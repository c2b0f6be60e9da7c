/* flush_behind.c: see flush_behind.h.
 *
 * Invariant: two buffers, one with the owner and the other either `spare` (written,
 * free) or `pending` (handed over, being written); never both. Everything the two
 * threads share is read and written under `mu`.
 */
#include "io/flush_behind.h"
#include "core/quiet_thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct flush_behind {
	const sys_io *io;
	int fd;
	quiet_worker w;
	unsigned char *pending, *spare;
	size_t pending_len;
	int err;
};

static void *run(void *arg)
{
	flush_behind *f = arg;
	pthread_mutex_lock(&f->w.lock);
	for (;;) {
		while (!f->pending && !f->w.stop)
			pthread_cond_wait(&f->w.wake, &f->w.lock);
		if (!f->pending)
			break; /* stopped, with nothing left to write */
		unsigned char *b = f->pending;
		size_t n = f->pending_len;
		bool failed = f->err != 0; /* after a failure nothing more is written */
		pthread_mutex_unlock(&f->w.lock);
		size_t done;
		int e = failed ? 0 : sys_io_write_all(f->io, f->fd, b, n, &done);
		pthread_mutex_lock(&f->w.lock);
		if (e && !f->err)
			f->err = e;
		f->pending = NULL;
		f->spare = b;
		pthread_cond_broadcast(&f->w.wake);
	}
	pthread_mutex_unlock(&f->w.lock);
	return NULL;
}

flush_behind *flush_behind_new(const sys_io *io, int fd, size_t cap)
{
	flush_behind *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	*f = (flush_behind){.io = io, .fd = fd, .spare = malloc(cap)};
	if (f->spare && quiet_worker_start(&f->w, run, f) == 0)
		return f;
	free(f->spare);
	free(f);
	return NULL;
}

unsigned char *flush_behind_hand(flush_behind *f, unsigned char *buf, size_t len)
{
	pthread_mutex_lock(&f->w.lock);
	while (!f->spare)
		pthread_cond_wait(&f->w.wake, &f->w.lock);
	unsigned char *empty = f->spare;
	f->spare = NULL;
	f->pending = buf;
	f->pending_len = len;
	pthread_cond_broadcast(&f->w.wake);
	pthread_mutex_unlock(&f->w.lock);
	return empty;
}

int flush_behind_drain(flush_behind *f)
{
	pthread_mutex_lock(&f->w.lock);
	while (f->pending)
		pthread_cond_wait(&f->w.wake, &f->w.lock);
	int e = f->err;
	pthread_mutex_unlock(&f->w.lock);
	return e;
}

void flush_behind_free(flush_behind *f)
{
	if (!f)
		return;
	quiet_worker_stop(&f->w); /* it writes what is pending first */
	free(f->spare);
	free(f);
}
