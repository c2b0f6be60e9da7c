/* flush_behind.c: see flush_behind.h.
 *
 * Invariant: two buffers, one with the owner and the other either `spare` (written,
 * free) or `pending` (handed over, being written); never both. Everything the two
 * threads share is read and written under `mu`.
 */
#include "emit/flush_behind.h"
#include "core/quiet_thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct flush_behind {
	const sys_io *io;
	int fd;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *pending, *spare;
	size_t pending_len;
	int err;
	bool stop;
};

static void *run(void *arg)
{
	flush_behind *f = arg;
	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (!f->pending && !f->stop)
			pthread_cond_wait(&f->cv, &f->mu);
		if (!f->pending)
			break; /* stopped, with nothing left to write */
		unsigned char *b = f->pending;
		size_t n = f->pending_len;
		bool failed = f->err != 0; /* after a failure nothing more is written */
		pthread_mutex_unlock(&f->mu);
		size_t done;
		int e = failed ? 0 : sys_io_write_all(f->io, f->fd, b, n, &done);
		pthread_mutex_lock(&f->mu);
		if (e && !f->err)
			f->err = e;
		f->pending = NULL;
		f->spare = b;
		pthread_cond_broadcast(&f->cv);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

flush_behind *flush_behind_new(const sys_io *io, int fd, size_t cap)
{
	flush_behind *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	*f = (flush_behind){.io = io, .fd = fd, .spare = malloc(cap)};
	bool mu = f->spare && pthread_mutex_init(&f->mu, NULL) == 0;
	bool cv = mu && pthread_cond_init(&f->cv, NULL) == 0;
	int started = -1;
	if (cv)
		started = quiet_thread_start(&f->thread, run, f);
	if (started == 0)
		return f;
	if (cv)
		pthread_cond_destroy(&f->cv);
	if (mu)
		pthread_mutex_destroy(&f->mu);
	free(f->spare);
	free(f);
	return NULL;
}

unsigned char *flush_behind_hand(flush_behind *f, unsigned char *buf, size_t len)
{
	pthread_mutex_lock(&f->mu);
	while (!f->spare)
		pthread_cond_wait(&f->cv, &f->mu);
	unsigned char *empty = f->spare;
	f->spare = NULL;
	f->pending = buf;
	f->pending_len = len;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	return empty;
}

int flush_behind_drain(flush_behind *f)
{
	pthread_mutex_lock(&f->mu);
	while (f->pending)
		pthread_cond_wait(&f->cv, &f->mu);
	int e = f->err;
	pthread_mutex_unlock(&f->mu);
	return e;
}

void flush_behind_free(flush_behind *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->thread, NULL); /* it writes what is pending first */
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f->spare);
	free(f);
}
