/* scan_job.c: the pre-scan of a big file's main-graph nodes and initializers on a
 * second thread, while the loader unpacks and the index reads them (scan_job.h).
 *
 * Invariant: no byte of a node or initializer reaches a decoder before this job
 * accepted it (the index waits, scan_job_wait_scanned), and the arena never grows past
 * what a file refused for its size could be allowed meanwhile (scan_job_wait_room).
 */
#include "loader/scan_job.h"
#include "loader/budget.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/quiet_thread.h"
#include "core/tuning.h"
#include "onnx-ml.pb-c.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The pre-scan of a big file (SPLIT_SCAN_MIN, core/tuning.h) in two threads. The
 * loader scans the outline (every byte but the content of the main graph's nodes and
 * initializers: little), starts a second thread on the rest, and unpacks and indexes
 * meanwhile; the index waits at each initializer and node until the second thread has accepted it
 * (scan_job_wait_scanned), so no byte reaches a decoder before it was checked, as when
 * the scan ran first. The second thread is the first to read most pages of the file,
 * so it also takes the page faults. Until its counts are in, the arena runs under a
 * budget no accepted file can reach (budget_bound); then the exact one, the same
 * budget_decide decides after a whole scan, replaces it.
 *
 * A file refused for what it would take in memory (a million empty nodes) must not
 * take it meanwhile: while the second thread runs, the loader waits for its verdict
 * before its memory would pass SCAN_AHEAD_PER_BYTE bytes per byte of file (plus
 * SCAN_AHEAD_FLOOR). Real models stay below: weights cost the arena next to nothing,
 * and big models without them stay just below it; a graph of tiny nodes is only
 * slower, the loader waiting for the scan's end.
 *
 * Any verdict against the file, or a failure of the loader's own, is settled by
 * prescan_message on the same bytes, so a refused file gets the message (the first
 * problem in file order) and the status it gets from the one-thread scan. */
enum { JOB_RUNNING, JOB_PASSED, JOB_STOPPED };

struct scan_job {
	const uint8_t *data;
	size_t size;
	uint64_t user_budget; /* the caller's memory_budget, 0 for none */
	prescan_outline_result outline;
	uint64_t budget; /* budget_decide's, once JOB_PASSED */
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic uint64_t done[2]; /* initializers and nodes accepted so far */
	_Atomic int state;
	atomic_bool stop;
};

static bool job_progress(void *ctx, int kind, uint64_t done)
{
	scan_job *j = ctx;
	pthread_mutex_lock(&j->mu);
	atomic_store_explicit(&j->done[kind], done, memory_order_release);
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return !atomic_load_explicit(&j->stop, memory_order_relaxed);
}

static void *job_run(void *arg)
{
	scan_job *j = arg;
	prescan_stats st;
	osh_status s = prescan_graph_elements(j->data, j->size, &j->outline, &st, job_progress, j);
	uint64_t budget = 0;
	if (s == OSH_OK) {
		/* The verdict on the whole, as budget_decide gives it (scan_job_finish says why). */
		prescan_stats all = j->outline.stats;
		prescan_stats_add(&all, &st);
		osh_load_options opts = {.memory_budget = j->user_budget};
		s = budget_decide("", &all, j->size, 0, &opts, &budget, NULL);
	}
	pthread_mutex_lock(&j->mu);
	j->budget = budget;
	atomic_store(&j->state, s == OSH_OK ? JOB_PASSED : JOB_STOPPED);
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

/* Whether the loader may take `more` bytes: the file is accepted, or still being
 * scanned and the arena stays within SCAN_AHEAD_PER_BYTE bytes per byte of file. */
static bool may_grow(const scan_job *j, const osh_model *m, uint64_t more)
{
	int state = atomic_load(&j->state);
	if (state != JOB_RUNNING)
		return state == JOB_PASSED;
	return arena_used(m->arena) + more <= SCAN_AHEAD_PER_BYTE * (uint64_t)j->size + SCAN_AHEAD_FLOOR;
}

/* Whether the loader may take `more` bytes and, when kind >= 0, read element i of
 * that kind (0: initializers, 1: nodes): accepted so far. */
static bool ready(const scan_job *j, const osh_model *m, int kind, size_t i, uint64_t more)
{
	return may_grow(j, m, more) && (kind < 0 || atomic_load_explicit(&j->done[kind], memory_order_acquire) > i);
}

/* Waits until ready. False when it never will be: the scan refused the file, or
 * stopped. */
static bool wait_for(osh_model *m, int kind, size_t i, uint64_t more)
{
	scan_job *j = m->src.scan;
	if (!j || ready(j, m, kind, i, more))
		return true;
	pthread_mutex_lock(&j->mu);
	while (!ready(j, m, kind, i, more) && atomic_load(&j->state) == JOB_RUNNING)
		pthread_cond_wait(&j->cv, &j->mu);
	bool ok = ready(j, m, kind, i, more);
	pthread_mutex_unlock(&j->mu);
	return ok;
}

bool scan_job_wait_scanned(osh_model *m, int kind, size_t i) { return wait_for(m, kind, i, 0); }
bool scan_job_wait_room(osh_model *m, uint64_t bytes) { return wait_for(m, -1, 0, bytes); }

osh_status scan_job_plan(const char *name, const uint8_t *data, size_t size, const osh_load_options *opts,
			   uint64_t *budget, scan_job **out, osh_error *err)
{
	*out = NULL;
	prescan_outline_result o;
	if (prescan_outline(data, size, name, &o, NULL) != OSH_OK)
		return budget_plan(name, data, size, 0, opts, budget, err); /* its verdict */
	scan_job *j = o.deferred ? calloc(1, sizeof *j) : NULL;
	if (!j) {
		prescan_outline_free(&o);
		return budget_plan(name, data, size, 0, opts, budget, err); /* nothing to split, or no memory */
	}
	j->data = data;
	j->size = size;
	j->user_budget = opts ? opts->memory_budget : 0;
	j->outline = o;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	*budget = j->user_budget ? j->user_budget : budget_bound(&o, size);
	*out = j;
	return OSH_OK;
}

void scan_job_start(scan_job *j)
{
	j->started = quiet_thread_start(&j->thread, job_run, j) == 0;
	if (!j->started)
		job_run(j);
}

/* Waits for the second thread (asking it to stop first when `stop`), if one ran. */
static void job_join(scan_job *j, bool stop)
{
	if (stop)
		atomic_store(&j->stop, true);
	if (j->started)
		pthread_join(j->thread, NULL);
}

static void job_free(scan_job *j)
{
	prescan_outline_free(&j->outline);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j);
}

osh_status scan_job_finish(osh_model *m, bool stop, osh_error *err)
{
	scan_job *j = m->src.scan;
	if (!j)
		return OSH_OK;
	m->src.scan = NULL;
	job_join(j, stop);
	uint64_t budget = j->budget;
	osh_status s = OSH_OK;
	if (atomic_load(&j->state) != JOB_PASSED) {
		/* Refused or stopped: the whole scan says which and why. */
		prescan_stats ps;
		osh_load_options opts = {.memory_budget = j->user_budget};
		s = prescan_message(&onnx__model_proto__descriptor, j->data, j->size, m->path, &ps, err);
		if (s == OSH_OK)
			s = budget_decide(m->path, &ps, j->size, 0, &opts, &budget, err);
	}
	job_free(j);
	if (s != OSH_OK)
		return s;
	arena_set_budget(m->arena, budget);
	m->budget = budget;
	if (arena_used(m->arena) > budget)
		return error_set(err, OSH_ERR_LIMIT, "%s: indexing needs more than the memory budget of %llu bytes " ARENA_BUDGET_HINT,
			    m->path, (unsigned long long)budget);
	return OSH_OK;
}

prescan_outline_result *scan_job_outline(scan_job *j) { return &j->outline; }

void scan_job_discard(scan_job *j)
{
	if (!j)
		return;
	job_join(j, true);
	job_free(j);
}
