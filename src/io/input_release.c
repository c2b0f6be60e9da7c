/* input_release.c: see input_release.h.
 *
 * Invariant: the thread only calls madvise(MADV_DONTNEED) on ranges of the mapping it
 * was given, which stays mapped until releaser_free has joined it; it never reads or
 * writes the mapping, so the loader reads it meanwhile without any locking.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "io/input_release.h"
#include "core/quiet_thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

struct releaser {
	quiet_worker w;
	uint8_t *map;
	size_t size;
	size_t lo, hi; /* pending: [lo, hi), empty when lo >= hi; under w.lock */
};

static void *run(void *arg)
{
	releaser *r = arg;
	pthread_mutex_lock(&r->w.lock);
	for (;;) {
		while (!r->w.stop && r->lo >= r->hi)
			pthread_cond_wait(&r->w.wake, &r->w.lock);
		if (r->w.stop)
			break;
		size_t lo = r->lo, hi = r->hi;
		r->lo = r->hi = 0;
		pthread_mutex_unlock(&r->w.lock);
		madvise(r->map + lo, hi - lo, MADV_DONTNEED); /* advice: a failure loses nothing */
		pthread_mutex_lock(&r->w.lock);
	}
	pthread_mutex_unlock(&r->w.lock);
	return NULL;
}

releaser *releaser_new(uint8_t *map, size_t size)
{
	releaser *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->map = map, r->size = size;
	if (quiet_worker_start(&r->w, run, r) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

bool releaser_drop(releaser *r, size_t from, size_t upto)
{
	if (upto > r->size)
		upto = r->size;
	if (from >= upto)
		return true;
	pthread_mutex_lock(&r->w.lock);
	size_t lo = r->lo < r->hi && r->lo < from ? r->lo : from;
	size_t hi = r->lo < r->hi && r->hi > upto ? r->hi : upto;
	bool taken = hi - lo <= RELEASE_LAG;
	if (taken) {
		r->lo = lo, r->hi = hi;
		pthread_cond_signal(&r->w.wake);
	}
	pthread_mutex_unlock(&r->w.lock);
	return taken;
}

void releaser_free(releaser *r)
{
	if (!r)
		return;
	quiet_worker_stop(&r->w);
	free(r);
}
