/* load.c: the loader's entry points: read the file, pre-scan the bytes, unpack them
 * into the model's arena, then validate and index.
 *
 * protobuf-c never sees bytes the wire pre-scan (prescan.c) refused, and the arena's
 * budget comes from what the pre-scan counted: what unpacking will take, exactly,
 * plus room for the index and the passes in proportion to it. A file that would
 * expand far beyond its size is refused before anything is allocated for it.
 *
 * Memory: the file is mapped (read-only, private); only where it cannot be is it
 * read into an anonymous mapping. The main graph's initializers are not
 * unpacked with the rest (unpack_split.c): the index reads each from the input,
 * big weights pointing into it rather than copied, so the model keeps the input;
 * pages of a mapped file go back to the page cache as soon as the loader has read
 * past them (they come back if a pass reads the weights). Mapped, the weights are
 * never even read unless a pass needs their values or the model is written: reading
 * them into fresh memory (the kernel zeroing each page, then copying into it) was
 * most of the time of loading a big model, and twice its size in memory.
 *
 * What mapping gives up: a file rewritten by another process while we run is seen as
 * it changes (the pre-scan and protobuf-c then disagree: protobuf-c refuses the bytes
 * or the arena's budget stops it, an error either way), and a file truncated under
 * the mapping is SIGBUS when a page past its new end is touched. A model whose
 * weights point into the mapping is not written if the file's size or time changed
 * since it was loaded (emit/write_model.c). Small files are mapped too: a page read
 * into fresh memory costs a page of it, faulted in and zeroed before the copy, while a
  * mapped one is the page cache's own. The descriptor stays open so that an unchanged model can
 * be written back by copying the file itself (emit/write_model.c).
 *
 * All of the above is the fast path. The plain one (osh_model.plain_io, core/tuning.h)
 * is the reference it must agree with: the file read with pread into memory from
 * malloc, pre-scanned by the loading thread, unpacked whole by protobuf-c and freed,
 * then validated and indexed from the messages; no mapping, no second thread, no
 * advice to the kernel. The checks, the budget and every message are the same.
 */
#define _GNU_SOURCE
#include "loader/loader.h"
#include "loader/external.h"
#include "core/quiet_thread.h"
#include "core/tuning.h"
#include "loader/release.h"
#include "core/error.h"
#include "core/pread_all.h"
#include "loader/prescan.h"
#include "loader/unpack_split.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* protobuf's own limit: messages are addressed with signed 32-bit sizes. */
#define MAX_MODEL_BYTES ((uint64_t)INT32_MAX)

/* A file whose messages would take more than this many bytes per byte of input
 * (beyond EXPANSION_FLOOR) is refused: real models stay far below it (weights decode
  * to their own size, a node or a shape to a small multiple of its encoding), while
  * messages that exist only to be allocated (a million empty nodes) go far above. */
#define MAX_EXPANSION 32
#define EXPANSION_FLOOR ((uint64_t)16 << 20)

/* Room for the index and the passes beside the unpacked messages. They cost per
 * message (a node's entry, its attributes' views, a declared type) and per string
 * (a value name: its table entry, its consumers, its inferred type), not per byte:
 * weights cost them nothing. The figures below cover the most that load, infer and
 * annotate take per node, with room to spare (bench/README.md), and test_hostile's
 * budget test checks them against the heaviest use (load, infer,
 * annotate and pack). A node with its op_type, an input and an output is allowed
 * 416 + 3 * 224 = 1,088. */
#define INDEX_BYTES_PER_MESSAGE 416
#define INDEX_BYTES_PER_STRING 224
#define BUDGET_MARGIN ((uint64_t)64 << 20)

/* The arena budget for a model of `size` bytes whose pre-scan counted ps; `copy` is
 * the bytes of input copied into the arena (osh_model_load_buffer). The main graph's
 * nodes are kept as bytes besides (unpack_split.c): at most the file again. */
static uint64_t budget_for(const prescan_stats *ps, uint64_t size, uint64_t copy)
{
	return copy + size + ps->unpack_bytes + ps->messages * INDEX_BYTES_PER_MESSAGE +
	       ps->strings * INDEX_BYTES_PER_STRING + BUDGET_MARGIN;
}

/* Decides the budget for a model whose pre-scan counted ps: the caller's, or
 * budget_for. Refuses a file that would expand beyond MAX_EXPANSION, or beyond the
 * caller's budget. */
static osh_status plan_budget(const char *name, const prescan_stats *ps, size_t size, uint64_t copy,
			      const osh_load_options *opts, uint64_t *budget, osh_error *err)
{
	uint64_t need = copy + ps->unpack_bytes;
	if (opts && opts->memory_budget) {
		if (need > opts->memory_budget)
			return error_set(err, OSH_ERR_LIMIT,
				    "%s: decoding needs %llu bytes, more than the memory budget of %llu bytes " ARENA_BUDGET_HINT,
				    name, (unsigned long long)need, (unsigned long long)opts->memory_budget);
		*budget = opts->memory_budget;
		return OSH_OK;
	}
	if (ps->unpack_bytes > (uint64_t)size * MAX_EXPANSION + EXPANSION_FLOOR)
		return error_set(err, OSH_ERR_LIMIT,
			    "%s: refused: its %llu messages would take %llu bytes in memory, %llu times the "
			    "file's %zu bytes (the limit is %d times): a file built to exhaust memory, not a model",
			    name, (unsigned long long)ps->messages, (unsigned long long)ps->unpack_bytes,
			    (unsigned long long)(ps->unpack_bytes / (size ? size : 1)), size, MAX_EXPANSION);
	*budget = budget_for(ps, size, copy);
	return OSH_OK;
}

/* Pre-scans the input and decides the budget (plan_budget). */
static osh_status plan(const char *name, const uint8_t *data, size_t size, uint64_t copy,
		       const osh_load_options *opts, uint64_t *budget, osh_error *err)
{
	prescan_stats ps;
	osh_status s = prescan_message(&onnx__model_proto__descriptor, data, size, name, &ps, err);
	return s == OSH_OK ? plan_budget(name, &ps, size, copy, opts, budget, err) : s;
}

/* The pre-scan of a big file (SPLIT_SCAN_MIN, core/tuning.h) in two threads. The
 * loader scans the outline (every byte but the content of the main graph's nodes and
 * initializers: little), starts a second thread on the rest, and unpacks and indexes meanwhile; the index waits at
 * each initializer and node until the second thread has accepted it
 * (loader_wait_scanned), so no byte reaches a decoder before it was checked, as when
 * the scan ran first. The second thread is the first to read most pages of the file,
 * so it also takes the page faults. Until its counts are in, the arena runs under a
 * budget no accepted file can reach (budget_bound); then the exact one, the same
 * plan_budget decides after a whole scan, replaces it.
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

typedef struct scan_job {
	const uint8_t *data;
	size_t size;
	uint64_t user_budget; /* the caller's memory_budget, 0 for none */
	prescan_outline_result outline;
	uint64_t budget; /* plan_budget's, once JOB_PASSED */
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic uint64_t done[2]; /* initializers and nodes accepted so far */
	_Atomic int state;
	atomic_bool stop;
} scan_job;

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
		/* The verdict on the whole, as plan_budget gives it (job_finish says why). */
		prescan_stats all = j->outline.stats;
		prescan_stats_add(&all, &st);
		osh_load_options opts = {.memory_budget = j->user_budget};
		s = plan_budget("", &all, j->size, 0, &opts, &budget, NULL);
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

bool loader_wait_scanned(osh_model *m, int kind, size_t i) { return wait_for(m, kind, i, 0); }
bool loader_wait_room(osh_model *m, uint64_t bytes) { return wait_for(m, -1, 0, bytes); }

/* A budget no model that passes the pre-scan reaches: budget_for with the worst the
 * unscanned nodes and initializers could add (a message and a string every two
 * bytes, everything unpacked to MAX_EXPANSION times the file). */
static uint64_t budget_bound(const prescan_outline_result *o, uint64_t size)
{
	prescan_stats ps = o->stats;
	uint64_t rest = o->graph_end - o->graph_start;
	ps.unpack_bytes = size * MAX_EXPANSION + EXPANSION_FLOOR;
	ps.messages += rest / 2;
	ps.strings += rest / 2;
	return budget_for(&ps, size, 0);
}

/* Scans the outline of a mapped file and prepares the job for the rest; the
 * budget to start under. A refused outline gets prescan_message's verdict. */
static osh_status plan_split(const char *name, const uint8_t *data, size_t size, const osh_load_options *opts,
			     uint64_t *budget, scan_job **out, osh_error *err)
{
	*out = NULL;
	prescan_outline_result o;
	if (prescan_outline(data, size, name, &o, NULL) != OSH_OK)
		return plan(name, data, size, 0, opts, budget, err); /* its verdict */
	scan_job *j = o.deferred ? calloc(1, sizeof *j) : NULL;
	if (!j) {
		prescan_outline_free(&o);
		return plan(name, data, size, 0, opts, budget, err); /* nothing to split, or no memory */
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

/* Starts the second thread; where none can start, this one scans the rest first. */
static void job_start(scan_job *j)
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

/* Ends m's scan job, if any (stopping it first when `stop`: the loader failed and
 * needs no more), and settles the pre-scan as a whole: its verdict against the file,
 * or the exact budget in place of the bound. */
static osh_status job_finish(osh_model *m, bool stop, osh_error *err)
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
			s = plan_budget(m->path, &ps, j->size, 0, &opts, &budget, err);
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

/* A model loaded the plain way when `plain`, its arena too. */
static osh_model *model_new(const char *path, uint64_t budget, bool plain)
{
	arena *a = arena_new(budget);
	if (!a)
		return NULL;
	if (plain)
		arena_go_plain(a);
	osh_model *m = arena_zalloc(a, sizeof *m);
	if (!m) {
		arena_free(a);
		return NULL;
	}
	m->arena = a;
	m->budget = budget;
	m->plain_io = plain;
	m->src.fd = -1;
	m->path = arena_strdup(a, path);
	const char *slash = strrchr(path, '/');
	m->dir = slash ? arena_strndup(a, path, (size_t)(slash - path) + (slash == path)) : ".";
	if (!m->path || !m->dir) {
		arena_free(a);
		return NULL;
	}
	strmap_init(&m->opset_index, a);
	strmap_init(&m->interned, a);
	symtab_init(&m->syms, a);
	return m;
}

/* model_new failed: a budget too small even for the model's header, or no memory. */
static osh_status no_model(osh_error *err, const char *path, const osh_load_options *opts)
{
	if (opts && opts->memory_budget)
		return error_set(err, OSH_ERR_LIMIT, "%s: the memory budget of %llu bytes is too small " ARENA_BUDGET_HINT, path,
			    (unsigned long long)opts->memory_budget);
	return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", path);
}

void model_free(osh_model *m)
{
	if (!m)
		return;
	if (m->pending.write.job) /* a write begun and never made: its temporary file goes */
		m->pending.write.cancel(m->pending.write.job);
	if (m->src.scan) { /* left by a failed load: before the input it reads goes */
		job_join(m->src.scan, true);
		job_free(m->src.scan);
	}
	if (m->src.fd >= 0)
		close(m->src.fd);
	releaser_free(m->src.releaser); /* joined before the mapping it drops pages of goes */
	if (m->src.map)
		munmap(m->src.map, m->src.map_size);
	wire_list_clear(&m->src.wire_nodes);
	wire_list_clear(&m->src.wire_inits);
	arena_free(m->arena);
}

/* The pre-scanned input build reads: a mapping of ours (`mapped`: the file itself
 * when `file_mapped`, else an anonymous copy), memory from malloc (`heap`: the plain
 * path's read) or bytes the model owns already. */
typedef struct input {
	uint8_t *data;
	size_t size;
	bool mapped, file_mapped, heap;
} input;

/* Pages go back RELEASE_STEP at a time: the index reads the weights right after the
 * pre-scan faulted them in, and fills the arena meanwhile; in bigger steps, what
 * it filled before the first step made the peak of a small model, and smaller
 * steps cost no time over them. From RELEASER_MIN up, a thread drops them
 * (release.h); below, starting it costs more than it saves. */
void loader_release_input(osh_model *m, size_t upto)
{
	if (!m->src.map_is_file || upto > m->src.map_size || m->src.map_size < INPUT_DROP_MIN)
		return;
	/* Called per initializer: most calls end here, before asking for the page size. */
	if (upto < m->src.released + RELEASE_STEP && upto < m->src.map_size)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	upto = upto / page * page;
	size_t end = m->src.map_size / page * page;
	if (upto < m->src.released + RELEASE_STEP && upto != end)
		return;
	/* To the end: everything, pages read again behind the mark included (the
	 * nodes' bytes, which come before the initializers, are read after them). */
	size_t from = upto == end ? 0 : m->src.released;
	/* The last call, which drops everything left (the nodes' pages, read after the
	 * weights), is the loader's own: left to the thread, it was still dropping while
	 * inference filled the arena, and the peak rose. */
	if (upto > from && !(m->src.releaser && upto != end && releaser_drop(m->src.releaser, from, upto)))
		madvise(m->src.map + from, upto - from, MADV_DONTNEED);
	m->src.released = upto;
}

/* The plain path's build: protobuf-c unpacks the whole input into the arena (its
 * bytes fields copied: nothing points into the input afterwards, which goes when the
 * loader read it), then validate and index read the messages. */
static osh_status build_plain(osh_model *m, input *in, osh_error *err)
{
	m->proto = onnx__model_proto__unpack(arena_protobuf_allocator(m->arena), in->size, in->data);
	if (in->heap)
		free(in->data);
	in->data = NULL;
	if (!m->proto) {
		if (arena_exhausted(m->arena))
			return arena_error(m->arena, err, m->path, "decoding");
		return error_set(err, OSH_ERR_DECODE,
			    "%s: not an ONNX model: the protobuf data is truncated or corrupt", m->path);
	}
	bool indexed = validate_model(m) && index_model(m) && !m->nomem;
	osh_status s = loader_external_failure(m, err);
	if (s != OSH_OK)
		return s;
	if (!indexed)
		return arena_error(m->arena, err, m->path, "indexing");
	return OSH_OK;
}

/* Unpacks, validates and indexes the pre-scanned input into m. The model keeps a
 * mapped input whose nodes and initializers it reads from (unpack_split.c); other
 * mappings are unmapped once unpacked. The arena's size is told ahead (the
 * ARENA_BYTES_PER_ELEMENT a node or initializer takes, from the indexes to the
 * annotation `infer` writes: a little above what bench/'s models take). */
static osh_status build(osh_model *m, input *in, osh_error *err)
{
	if (m->plain_io)
		return build_plain(m, in, err);
	ProtobufCAllocator *alloc = arena_protobuf_allocator(m->arena);
	/* Cutting the nodes and initializers out takes memory per element: a file with
	 * a million tiny ones is refused first if it is to be. */
	if (m->src.scan &&
	    !loader_wait_room(m, m->src.scan->outline.deferred * (uint64_t)UNPACK_SPLIT_BYTES_PER_ELEMENT)) {
		osh_status js = job_finish(m, false, err);
		if (in->mapped)
			munmap(in->data, in->size);
		in->data = NULL;
		return js != OSH_OK ? js : error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	}
	/* What the index and the passes will fill, from the outline: one chunk, faulted
	 * in ahead by another core. */
	if (m->src.scan) {
		uint64_t expect = m->src.scan->outline.deferred * (uint64_t)ARENA_BYTES_PER_ELEMENT;
		arena_expect(m->arena, expect > SIZE_MAX ? SIZE_MAX : (size_t)expect);
	}
	split_result r = unpack_split(in->data, in->size, m->src.scan ? &m->src.scan->outline : NULL, alloc,
				      &m->proto, &m->src.wire_nodes, &m->src.wire_inits);
	bool whole = r == SPLIT_NOT_USED || r == SPLIT_NOMEM;
	bool keep = in->mapped && r == SPLIT_OK && (m->src.wire_nodes.n || m->src.wire_inits.n);
	osh_status js = OSH_OK;
	/* protobuf-c is to read every byte, or the input is about to go: the pre-scan
	 * ends first. */
	if (whole || (in->mapped && !keep))
		js = job_finish(m, false, err);
	if (whole && js == OSH_OK)
		m->proto = onnx__model_proto__unpack(alloc, in->size, in->data);
	if (in->mapped) {
		if (keep) {
			m->src.map = in->data;
			m->src.map_size = in->size;
			m->src.map_is_file = in->file_mapped;
			if (in->file_mapped && in->size >= RELEASER_MIN)
				m->src.releaser = releaser_new(m->src.map, m->src.map_size);
			/* The pre-scan and then finding the fields read a field header on
			 * nearly every page, weights or not (a 4 KB weight leaves no page
			 * without one): the whole file is resident in our mapping. The
			 * index reads the initializers' headers again, first thing, and
			 * gives their pages back behind it (loader_release_input), before
			 * the nodes fill the arena. Dropped here instead, every page was
			 * faulted in twice. */
		} else {
			munmap(in->data, in->size);
		}
		in->data = NULL; /* the model's now, or gone */
	}
	if (js != OSH_OK)
		return js;
	if (!m->proto) {
		if ((js = job_finish(m, true, err)) != OSH_OK)
			return js;
		if (arena_exhausted(m->arena))
			return arena_error(m->arena, err, m->path, "decoding");
		/* The pre-scan accepts only what protobuf-c reads: this is a bug of ours. */
		return error_set(err, OSH_ERR_DECODE,
			    "%s: not an ONNX model: the protobuf data is truncated or corrupt", m->path);
	}
	bool indexed = validate_model(m) && index_model(m) && !m->nomem;
	/* The pre-scan's verdict before the index's: a refused file stopped the index
	 * at the first node or initializer it could not read. */
	if ((js = job_finish(m, !indexed, err)) != OSH_OK)
		return js;
	if ((js = loader_external_failure(m, err)) != OSH_OK)
		return js;
	if (!indexed) {
		return arena_error(m->arena, err, m->path, "indexing");
	}
	/* What the index read of the weights: the page cache keeps it. */
	loader_release_input(m, m->src.map_size);
	return OSH_OK;
}

static osh_status empty(const char *name, osh_error *err)
{
	return error_set(err, OSH_ERR_DECODE, "%s: not an ONNX model: the file is empty", name);
}

/* The input the loader reads.
 *
 * Mapped (opts->map_file), the pages are the page cache's: nothing is copied and
 * the loader can give them back piecemeal (unpack_split, release.c); the program
 * answers for the SIGBUS of a page read after someone truncated the file.
 * Otherwise, or where the file cannot be mapped (some file systems), it is read
 * into a private anonymous mapping: from then on nothing another process does to
 * the file reaches what we read. */
/* What a read that failed with e (pread_all's) is told as. */
static osh_status read_error(const char *path, int e, osh_error *err)
{
	if (e < 0)
		return error_set(err, OSH_ERR_IO, "%s: the input changed while it was read (it shrank)", path);
	return error_set(err, OSH_ERR_IO, "%s: cannot read: %s", path, strerror(e));
}

static osh_status read_all(int fd, const char *path, size_t size, const osh_load_options *opts, uint8_t **out,
			   bool *file_mapped, osh_error *err)
{
	*file_mapped = false;
	if (opts && opts->map_file) {
		uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			if (opts->on_map)
				opts->on_map(opts->map_ctx, map, size);
			*out = map;
			*file_mapped = true;
			return OSH_OK;
		}
	}
	uint8_t *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, size);
#ifdef MADV_HUGEPAGE
	/* Fewer page faults for a big file (see arena.c); mere advice. */
	if (size >= INPUT_HUGE_MIN)
		madvise(buf, size, MADV_HUGEPAGE);
#endif
	int e = pread_all(fd, buf, size, 0);
	if (e) {
		munmap(buf, size);
		return read_error(path, e, err);
	}
	*out = buf;
	return OSH_OK;
}

/* The plain path's read: the whole file into memory from malloc, map_file or not. */
static osh_status read_plain(int fd, const char *path, size_t size, uint8_t **out, osh_error *err)
{
	uint8_t *buf = malloc(size);
	if (!buf)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, size);
	int e = pread_all(fd, buf, size, 0);
	if (e) {
		free(buf);
		return read_error(path, e, err);
	}
	*out = buf;
	return OSH_OK;
}

/* Tells how->on_layout where the initializers are, if the outline recorded them
 * as one stretch laid out as a writer lays it out. */
static void report_layout(int fd, uint64_t size, const prescan_outline_result *o, const load_how *how)
{
	const prescan_spans *in = &o->inits;
	if (!how || !how->on_layout || !o->spans || !in->n || in->loose)
		return;
	input_layout l = {.fd = fd, .size = size, .graph_key = o->graph_key, .graph_start = o->graph_start,
			  .graph_end = o->graph_end, .inits_start = in->start[0],
			  .inits_end = prescan_spans_end(in, in->n - 1), .elements = o->deferred};
	how->on_layout(how->layout_ctx, &l);
}

/* A file written to while it was read (same size or not) may have given us half of
 * each version: refused, as a file that shrank is. */
static osh_status unchanged_since_open(const osh_model *m, osh_error *err)
{
	struct stat st;
	if (fstat(m->src.fd, &st) != 0)
		return error_set(err, OSH_ERR_IO, "%s: cannot stat: %s", m->path, strerror(errno));
	if ((uint64_t)st.st_size != m->src.size || (int64_t)st.st_mtim.tv_sec != m->src.mtime_sec ||
	    (int64_t)st.st_mtim.tv_nsec != m->src.mtime_nsec)
		return error_set(err, OSH_ERR_IO, "%s: the input changed while it was read", m->path);
	return OSH_OK;
}

osh_status loader_load_file(osh_model **out, const char *path, const osh_load_options *opts, const load_how *how,
			    osh_error *err)
{
	*out = NULL;
	bool plain = how && how->plain;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused below). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return error_set(err, OSH_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return error_set(err, OSH_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, OSH_ERR_IO, "%s: not a regular file", path);
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size > MAX_MODEL_BYTES) {
		close(fd);
		return error_set(err, OSH_ERR_LIMIT,
			    "%s: the file is %llu bytes, over protobuf's 2 GiB limit for one message "
			    "(store the weights as external data)",
			    path, (unsigned long long)size);
	}
	if (size == 0) {
		close(fd);
		return empty(path, err);
	}
	uint8_t *data = NULL;
	uint64_t budget = 0;
	bool file_mapped = false;
	scan_job *job = NULL;
	osh_status s = plain ? read_plain(fd, path, (size_t)size, &data, err)
			     : read_all(fd, path, (size_t)size, opts, &data, &file_mapped, err);
	if (s == OSH_OK)
		s = !plain && size >= SPLIT_SCAN_MIN ? plan_split(path, data, (size_t)size, opts, &budget, &job, err)
						     : plan(path, data, (size_t)size, 0, opts, &budget, err);
	osh_model *m = NULL;
	if (s == OSH_OK && !(m = model_new(path, budget, plain)))
		s = no_model(err, path, opts);
	if (s != OSH_OK) {
		if (job)
			job_free(job); /* not started */
		if (data && plain)
			free(data);
		else if (data)
			munmap(data, (size_t)size);
		close(fd);
		return s;
	}
	if (job) {
		m->src.scan = job;
		job_start(job);
		report_layout(fd, size, &job->outline, how);
	}
	m->src.fd = fd;
	m->src.size = size;
	m->src.has_stat = true;
	m->src.dev = (uint64_t)st.st_dev;
	m->src.ino = (uint64_t)st.st_ino;
	m->src.mtime_sec = (int64_t)st.st_mtim.tv_sec;
	m->src.mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	input in = {.data = data, .size = (size_t)size, .mapped = !plain, .file_mapped = file_mapped, .heap = plain};
	s = build(m, &in, err); /* frees or unmaps data, or gives it to m */
	if (s == OSH_OK)
		s = unchanged_since_open(m, err);
	if (s != OSH_OK) {
		model_free(m);
		return s;
	}
	*out = m;
	return OSH_OK;
}

osh_status loader_load_buffer(osh_model **out, const void *data, size_t size, const char *name,
				 const osh_load_options *opts, osh_error *err)
{
	if (!out)
		return error_set(err, OSH_ERR_INVALID, "osh_model_load_buffer: out is NULL");
	*out = NULL;
	if (!name)
		name = "<memory>";
	if (!data && size)
		return error_set(err, OSH_ERR_INVALID, "%s: osh_model_load_buffer: data is NULL with size %zu", name, size);
	if ((uint64_t)size > MAX_MODEL_BYTES)
		return error_set(err, OSH_ERR_LIMIT, "%s: %zu bytes, over protobuf's 2 GiB limit", name, size);
	if (size == 0)
		return empty(name, err);
	/* Copied first, then checked and unpacked: what the pre-scan saw is what
	 * protobuf-c gets, whatever the caller does to its buffer meanwhile. The model
	 * keeps the copy to write an unchanged model back. */
	osh_model *m = model_new(name, 0, plain_io_chosen());
	if (!m)
		return no_model(err, name, NULL);
	uint8_t *copy = arena_alloc(m->arena, size);
	if (!copy) {
		model_free(m);
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", name);
	}
	memcpy(copy, data, size);
	uint64_t budget;
	osh_status s = plan(name, copy, size, size, opts, &budget, err);
	if (s == OSH_OK && arena_used(m->arena) > budget)
		s = no_model(err, name, opts);
	if (s != OSH_OK) {
		model_free(m);
		return s;
	}
	arena_set_budget(m->arena, budget);
	m->budget = budget;
	m->src.copy = copy;
	m->src.size = size;
	/* The copy lives in the arena as long as the model: weights may point into it. */
	input in = {.data = copy, .size = size};
	s = build(m, &in, err);
	if (s != OSH_OK) {
		model_free(m);
		return s;
	}
	*out = m;
	return OSH_OK;
}
