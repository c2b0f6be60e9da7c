/* prefault.c: see prefault.h.
 *
 * Invariant: the thread only ever calls madvise on ranges it was given, which stay
 * mapped until prefault_free has joined it; it never reads or writes them, so the
 * owner fills the same memory meanwhile without any locking. The owner's fill
 * position (`front`) is the one word both touch, atomically.
 */
#define _GNU_SOURCE /* MADV_POPULATE_WRITE */
#include "core/prefault.h"
#include "core/quiet_thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* PREFAULT_QUEUE: a million-node model's arena has a few dozen big chunks. Ranges
 * are faulted in PREFAULT_STEP at a time: stopping waits for one step at most. A
 * followed chunk is made resident far enough ahead of its owner to stay ahead between
 * two looks (PREFAULT_NAP_NS), and little enough ahead that a chunk the owner never
 * fills costs little memory, and that what is resident ahead of its use adds little
 * to the peak: a 32nd of the chunk, PREFAULT_AHEAD_MIN to PREFAULT_AHEAD_MAX. */
#define HUGE_PAGE ((uintptr_t)2 << 20)

typedef struct range {
	uintptr_t lo, hi; /* page-aligned: what is left to do */
	uintptr_t start;  /* where a followed chunk starts (lo moves on from it) */
	bool whole;
	bool huge; /* advised huge pages, and not yet switched to small ones */
} range;

struct prefault {
	quiet_worker w;
	const _Atomic uintptr_t *front;
	range q[PREFAULT_QUEUE];
	size_t head, tail; /* q[head % PREFAULT_QUEUE] .. q[tail % PREFAULT_QUEUE] are queued */
	size_t page;
	uint64_t slow_ns;
	uint32_t huge_steps, slow_steps; /* steps timed in huge pages, and the slow ones */
	/* Huge pages were found slow (see populate_in): from then on, every range goes
	 * without them. Set by the thread, read by the owner. */
	_Atomic bool small;
};

static bool populate(uintptr_t lo, uintptr_t hi)
{
#ifdef MADV_POPULATE_WRITE
	return hi <= lo || madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0;
#else
	(void)lo, (void)hi;
	return false;
#endif
}

static uint64_t thread_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* populate, timed while r is in huge pages (CPU time of this thread, not wall time:
 * a thread preempted in the middle of a step says nothing about the pages). Huge
 * pages are slow here (p->small) from the second step slower than slow_ns, if at
 * least an eighth of the steps so far were: the host had taken back some blocks and
 * not others, and which ones a run gets is luck. A slow step costs many fast ones,
 * and more than its memory in small pages: from an eighth of them slow, small pages
 * are the cheaper bet. */
static bool populate_in(prefault *p, const range *r, uintptr_t lo, uintptr_t hi)
{
	if (!r->huge || atomic_load_explicit(&p->small, memory_order_relaxed))
		return populate(lo, hi);
	uint64_t t = thread_ns();
	bool ok = populate(lo, hi);
	if (!ok || hi <= lo)
		return ok;
	p->huge_steps++;
	p->slow_steps += thread_ns() - t > p->slow_ns;
	if (p->slow_steps >= 2 && (uint64_t)p->slow_steps * 8 >= p->huge_steps)
		atomic_store_explicit(&p->small, true, memory_order_relaxed);
	return ok;
}

/* Once huge pages are slow, the huge pages wholly inside what is left of r are
 * advised small (the huge page a step ended in is resident already). */
static void switch_if_slow(prefault *p, range *r, uintptr_t lo, uintptr_t hi)
{
	if (!r->huge || !atomic_load_explicit(&p->small, memory_order_relaxed))
		return;
	r->huge = false;
#ifdef MADV_NOHUGEPAGE
	lo = (lo + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	hi &= ~(HUGE_PAGE - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE); /* advice: a failure costs time only */
#else
	(void)lo, (void)hi;
#endif
}

static bool stopping(prefault *p)
{
	pthread_mutex_lock(&p->w.lock);
	bool stop = p->w.stop;
	pthread_mutex_unlock(&p->w.lock);
	return stop;
}

/* A block about to be written through (a table being zeroed): all of it, from the
 * end backwards, so that the owner, writing from the start, meets the thread in the
 * middle instead of queueing behind it on the same pages. */
static void do_whole(prefault *p, range r)
{
	while (r.hi > r.lo && !stopping(p)) {
		uintptr_t from = r.hi - r.lo > PREFAULT_STEP ? r.hi - PREFAULT_STEP : r.lo;
		if (!populate_in(p, &r, from, r.hi))
			return; /* not supported, or no memory: the owner's writes will tell */
		r.hi = from;
		switch_if_slow(p, &r, r.lo, r.hi);
	}
}

/* One look at a chunk being filled: makes resident up to `ahead` past the owner's
 * front. Returns false when there is nothing more to do for it (filled, left for
 * another chunk, or done). */
static bool follow_step(prefault *p, range *r)
{
	uintptr_t f = atomic_load_explicit(p->front, memory_order_relaxed);
	/* Against the chunk's start, not lo: lo passes the front whenever the thread
	 * is ahead, so against lo the thread would give every chunk up at its second
	 * look and leave the owner to fault in nearly all of it. */
	if (f < r->start || f > r->hi)
		return false; /* the owner has moved on */
	size_t ahead = (r->hi - r->start) / 32;
	ahead = ahead < PREFAULT_AHEAD_MIN   ? PREFAULT_AHEAD_MIN
		: ahead > PREFAULT_AHEAD_MAX ? PREFAULT_AHEAD_MAX
					     : ahead;
	/* A block the owner took at once (a table it fills row by row over the whole
	 * load) is left to it: made resident early, it added to the peak while the
	 * input's pages were still in memory. */
	if (f > r->lo + ahead)
		r->lo = f & ~(uintptr_t)(p->page - 1);
	/* Half the distance still ahead: nothing yet, so that the thread works in big
	 * steps (it made a call for every few pages the owner filled). */
	if (r->lo > f && r->lo - f >= ahead / 2)
		return true;
	uintptr_t want = r->hi - f > ahead ? (f + ahead) & ~(uintptr_t)(p->page - 1) : r->hi;
	if (want > r->lo) {
		uintptr_t to = want - r->lo > PREFAULT_STEP ? r->lo + PREFAULT_STEP : want;
		if (!populate_in(p, r, r->lo, to))
			return false;
		r->lo = to;
		switch_if_slow(p, r, r->lo, r->hi);
	}
	return r->lo < r->hi;
}

static void *run(void *arg)
{
	prefault *p = arg;
	range follow = {0};
	bool following = false;
	pthread_mutex_lock(&p->w.lock);
	while (!p->w.stop) {
		if (p->head != p->tail) {
			range r = p->q[p->head++ % PREFAULT_QUEUE];
			pthread_mutex_unlock(&p->w.lock);
			switch_if_slow(p, &r, r.lo, r.hi);
			if (r.whole)
				do_whole(p, r);
			else
				follow = r, following = true; /* a newer chunk replaces the last */
			if (following)
				switch_if_slow(p, &follow, follow.lo, follow.hi);
			pthread_mutex_lock(&p->w.lock);
			continue;
		}
		if (!following) {
			pthread_cond_wait(&p->w.wake, &p->w.lock);
			continue;
		}
		pthread_mutex_unlock(&p->w.lock);
		uintptr_t before = follow.lo;
		following = follow_step(p, &follow);
		pthread_mutex_lock(&p->w.lock);
		if (following && follow.lo == before && !p->w.stop && p->head == p->tail) {
			/* Far enough ahead: look again in a moment, or at once on new work. */
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += PREFAULT_NAP_NS;
			if (t.tv_nsec >= 1000000000)
				t.tv_sec++, t.tv_nsec -= 1000000000;
			pthread_cond_timedwait(&p->w.wake, &p->w.lock, &t);
		}
	}
	pthread_mutex_unlock(&p->w.lock);
	return NULL;
}

prefault *prefault_new(const _Atomic uintptr_t *front, uint64_t slow_ns)
{
#ifdef MADV_POPULATE_WRITE
	prefault *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	long ps = sysconf(_SC_PAGESIZE);
	p->page = ps > 0 ? (size_t)ps : 4096;
	p->front = front;
	p->slow_ns = slow_ns;
	if (quiet_worker_start(&p->w, run, p) != 0) {
		free(p);
		return NULL;
	}
	return p;
#else
	(void)front, (void)slow_ns;
	return NULL;
#endif
}

bool prefault_huge_slow(const prefault *p) { return p && atomic_load_explicit(&p->small, memory_order_relaxed); }

void prefault_add(prefault *p, void *start, size_t len, bool whole, bool huge)
{
	if (!p)
		return;
	/* A chunk being filled starts on the page the owner is writing now: rounded up,
	 * its range began past the front, and the thread's first look, before the
	 * owner had filled that page, found the owner "moved on" and gave the chunk up.
	 * Populating a page already written changes nothing in it. */
	uintptr_t lo = whole ? ((uintptr_t)start + p->page - 1) & ~(uintptr_t)(p->page - 1)
			     : (uintptr_t)start & ~(uintptr_t)(p->page - 1);
	uintptr_t hi = ((uintptr_t)start + len) & ~(uintptr_t)(p->page - 1);
	if (hi <= lo)
		return;
	pthread_mutex_lock(&p->w.lock);
	if (p->tail - p->head < PREFAULT_QUEUE) {
		p->q[p->tail++ % PREFAULT_QUEUE] = (range){lo, hi, lo, whole, huge};
		pthread_cond_signal(&p->w.wake);
	}
	pthread_mutex_unlock(&p->w.lock);
}

void prefault_free(prefault *p)
{
	if (!p)
		return;
	quiet_worker_stop(&p->w);
	free(p);
}
