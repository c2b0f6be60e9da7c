/* load.c: the loader's entry points: open the input, pre-scan its bytes, unpack
 * them into the model's arena, then validate and index.
 *
 * protobuf-c never sees bytes the wire pre-scan (prescan.c) refused, and the arena's
 * budget comes from what the pre-scan counted (budget.c); a big file's nodes and
 * initializers are pre-scanned on a second thread while the index reads them
 * (scan_job.c). The bytes come through the input interface (io/input.h), plain or
 * fast, chosen once here from load_how.plain; nothing below knows which serves them.
 *
 * On the fast path the main graph's nodes and initializers are not unpacked with the
 * rest (unpack_split.c): the index reads each from the input's view, big weights
 * pointing into it rather than copied, so the model keeps the input, and tells it
 * what it has passed (the fast input gives those pages back to the page cache; they
 * come back if a pass reads the weights). A model whose weights point into a mapped
 * file is not written if the file's size or time changed since it was loaded
 * (emit/write_model.c). The descriptor stays open so that an unchanged model can be
 * written back by copying the file itself.
 *
 * The plain path (osh_model.plain_io, core/tuning.h) is the reference the fast one
 * must agree with: the plain input, pre-scanned by the loading thread, unpacked whole
 * by protobuf-c and dropped, then validated and indexed from the messages. The
 * checks, the budget and every message are the same.
 */
#include "loader/loader.h"
#include "core/error.h"
#include "core/tuning.h"
#include "io/input.h"
#include "loader/budget.h"
#include "loader/external.h"
#include "loader/prescan.h"
#include "loader/scan_job.h"
#include "loader/unpack_split.h"

#include <stdint.h>
#include <string.h>

/* protobuf's own limit: messages are addressed with signed 32-bit sizes. */
#define MAX_MODEL_BYTES ((uint64_t)INT32_MAX)

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
	scan_job_discard(m->src.scan); /* left by a failed load: before the input it reads goes */
	input_close(m->src.input); /* the descriptor, and the view if the model kept it */
	wire_list_clear(&m->src.wire_nodes);
	wire_list_clear(&m->src.wire_inits);
	arena_free(m->arena);
}

/* What build reads: a file's input, which the model holds (in), or bytes the model
 * owns already (in NULL: osh_model_load_buffer's copy). */
typedef struct build_bytes {
	input *in;
	const uint8_t *data;
	size_t size;
} build_bytes;

/* The plain path's build: protobuf-c unpacks the whole input into the arena (its
 * bytes fields copied: nothing points into the input afterwards, which goes when the
 * loader read it), then validate and index read the messages. */
static osh_status build_plain(osh_model *m, const build_bytes *b, osh_error *err)
{
	m->proto = onnx__model_proto__unpack(arena_protobuf_allocator(m->arena), b->size, b->data);
	if (b->in)
		b->in->methods->drop(b->in);
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

/* Unpacks, validates and indexes the pre-scanned input into m. The model keeps the
 * view of a file's input whose nodes and initializers it reads from (unpack_split.c);
 * other views are dropped once unpacked. The arena's size is told ahead (the
 * ARENA_BYTES_PER_ELEMENT a node or initializer takes, from the indexes to the
 * annotation `infer` writes: a little above what bench/'s models take). */
static osh_status build(osh_model *m, const build_bytes *b, osh_error *err)
{
	if (m->plain_io)
		return build_plain(m, b, err);
	input *in = b->in;
	ProtobufCAllocator *alloc = arena_protobuf_allocator(m->arena);
	/* Cutting the nodes and initializers out takes memory per element: a file with
	 * a million tiny ones is refused first if it is to be. */
	if (m->src.scan &&
	    !scan_job_wait_room(m, scan_job_outline(m->src.scan)->deferred * (uint64_t)UNPACK_SPLIT_BYTES_PER_ELEMENT)) {
		osh_status js = scan_job_finish(m, false, err);
		if (in)
			in->methods->drop(in);
		return js != OSH_OK ? js : error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	}
	/* What the index and the passes will fill, from the outline: one chunk, faulted
	 * in ahead by another core. */
	if (m->src.scan) {
		uint64_t expect = scan_job_outline(m->src.scan)->deferred * (uint64_t)ARENA_BYTES_PER_ELEMENT;
		arena_expect(m->arena, expect > SIZE_MAX ? SIZE_MAX : (size_t)expect);
	}
	split_result r = unpack_split(b->data, b->size, m->src.scan ? scan_job_outline(m->src.scan) : NULL, alloc,
				      &m->proto, &m->src.wire_nodes, &m->src.wire_inits);
	bool whole = r == SPLIT_NOT_USED || r == SPLIT_NOMEM;
	bool keep = in && r == SPLIT_OK && (m->src.wire_nodes.n || m->src.wire_inits.n);
	osh_status js = OSH_OK;
	/* protobuf-c is to read every byte, or the input is about to go: the pre-scan
	 * ends first. */
	if (whole || (in && !keep))
		js = scan_job_finish(m, false, err);
	if (whole && js == OSH_OK)
		m->proto = onnx__model_proto__unpack(alloc, b->size, b->data);
	if (in) {
		if (keep) {
			m->src.map = b->data;
			m->src.map_size = b->size;
			m->src.map_is_file = in->file_mapped;
			/* The pre-scan and then finding the fields read a field header on
			 * nearly every page, weights or not (a 4 KB weight leaves no page
			 * without one): the whole file is resident in our mapping. The
			 * index reads the initializers' headers again, first thing, and
			 * tells the input it passed them (input_passed), before
			 * the nodes fill the arena. Dropped here instead, every page was
			 * faulted in twice. */
		} else {
			in->methods->drop(in);
		}
	}
	if (js != OSH_OK)
		return js;
	if (!m->proto) {
		if ((js = scan_job_finish(m, true, err)) != OSH_OK)
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
	if ((js = scan_job_finish(m, !indexed, err)) != OSH_OK)
		return js;
	if ((js = loader_external_failure(m, err)) != OSH_OK)
		return js;
	if (!indexed)
		return arena_error(m->arena, err, m->path, "indexing");
	/* What the index read of the weights: the page cache keeps it. */
	input_passed(m->src.input, m->src.map_size);
	return OSH_OK;
}

static osh_status empty(const char *name, osh_error *err)
{
	return error_set(err, OSH_ERR_DECODE, "%s: not an ONNX model: the file is empty", name);
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

osh_status loader_load_file(osh_model **out, const char *path, const osh_load_options *opts, const load_how *how,
			    osh_error *err)
{
	*out = NULL;
	bool plain = how && how->plain;
	input_config cfg = {.plain = plain,
			    .map_file = how && how->map_file,
			    .on_map = how ? how->on_map : NULL,
			    .map_ctx = how ? how->map_ctx : NULL};
	input *in;
	osh_status s = input_open(&in, path, &cfg, err);
	if (s != OSH_OK)
		return s;
	uint64_t size = in->size;
	if (size > MAX_MODEL_BYTES) {
		input_close(in);
		return error_set(err, OSH_ERR_LIMIT,
			    "%s: the file is %llu bytes, over protobuf's 2 GiB limit for one message "
			    "(store the weights as external data)",
			    path, (unsigned long long)size);
	}
	if (size == 0) {
		input_close(in);
		return empty(path, err);
	}
	uint64_t budget = 0;
	scan_job *job = NULL;
	const uint8_t *data = NULL;
	s = in->methods->read(in, path, err);
	if (s == OSH_OK) {
		data = input_view(in, 0, (size_t)size);
		s = !plain && size >= SPLIT_SCAN_MIN ? scan_job_plan(path, data, (size_t)size, opts, &budget, &job, err)
						     : budget_plan(path, data, (size_t)size, 0, opts, &budget, err);
	}
	osh_model *m = NULL;
	if (s == OSH_OK && !(m = model_new(path, budget, plain)))
		s = no_model(err, path, opts);
	if (s != OSH_OK) {
		scan_job_discard(job); /* not started */
		input_close(in);
		return s;
	}
	m->src.input = in;
	if (job) {
		m->src.scan = job;
		scan_job_start(job);
		report_layout(in->fd, size, scan_job_outline(job), how);
	}
	/* The writer's copy of the source's identity: it copies from the descriptor and
	 * refuses to write over the file by accident. */
	m->src.fd = in->fd;
	m->src.size = size;
	m->src.has_stat = true;
	m->src.dev = in->dev;
	m->src.ino = in->ino;
	m->src.mtime_sec = in->mtime_sec;
	m->src.mtime_nsec = in->mtime_nsec;
	build_bytes b = {.in = in, .data = data, .size = (size_t)size};
	s = build(m, &b, err); /* drops the input's view, or keeps it for the model */
	if (s == OSH_OK)
		s = input_unchanged(in, m->path, err);
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
	osh_model *m = model_new(name, 0, plain_io_for(opts ? opts->io : OSH_IO_DEFAULT));
	if (!m)
		return no_model(err, name, NULL);
	uint8_t *copy = arena_alloc(m->arena, size);
	if (!copy) {
		model_free(m);
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", name);
	}
	memcpy(copy, data, size);
	uint64_t budget;
	osh_status s = budget_plan(name, copy, size, size, opts, &budget, err);
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
	build_bytes b = {.data = copy, .size = size};
	s = build(m, &b, err);
	if (s != OSH_OK) {
		model_free(m);
		return s;
	}
	*out = m;
	return OSH_OK;
}
