/* release.c: see release.h.
 *
 * Invariant: the thread only calls madvise(MADV_DONTNEED) on ranges of the mapping it
 * was given, which stays mapped until releaser_free has joined it; it never reads or
 * writes the mapping, so the loader reads it meanwhile without any locking.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "loader/release.h"
#include "core/quiet_thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>

struct releaser {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint8_t *map;
	size_t size;
	size_t lo, hi; /* pending: [lo, hi), empty when lo >= hi; under lock */
	bool stop;     /* under lock */
};

static void *run(void *arg)
{
	releaser *r = arg;
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->stop && r->lo >= r->hi)
			pthread_cond_wait(&r->wake, &r->lock);
		if (r->stop)
			break;
		size_t lo = r->lo, hi = r->hi;
		r->lo = r->hi = 0;
		pthread_mutex_unlock(&r->lock);
		madvise(r->map + lo, hi - lo, MADV_DONTNEED); /* advice: a failure loses nothing */
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

releaser *releaser_new(uint8_t *map, size_t size)
{
	releaser *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->map = map, r->size = size;
	if (pthread_mutex_init(&r->lock, NULL) != 0) {
		free(r);
		return NULL;
	}
	if (pthread_cond_init(&r->wake, NULL) != 0 || quiet_thread_start(&r->thread, run, r) != 0) {
		pthread_cond_destroy(&r->wake);
		pthread_mutex_destroy(&r->lock);
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
	pthread_mutex_lock(&r->lock);
	size_t lo = r->lo < r->hi && r->lo < from ? r->lo : from;
	size_t hi = r->lo < r->hi && r->hi > upto ? r->hi : upto;
	bool taken = hi - lo <= RELEASE_LAG;
	if (taken) {
		r->lo = lo, r->hi = hi;
		pthread_cond_signal(&r->wake);
	}
	pthread_mutex_unlock(&r->lock);
	return taken;
}

void releaser_free(releaser *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
