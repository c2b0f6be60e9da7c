/* write_model.c: osh_model_write and osh_model_pack.
 *
 * A model no pass changed is written by copying its source bytes, so it comes back
 * byte-identical whatever encoder made it (non-canonical varints, packed repeated
 * fields, field order). A changed model is packed straight into the output file
 * (pack_stream.c: protobuf-c's bytes, in one pass), never into a buffer the size of
 * the model. Unknown fields (newer than our schema) are kept in both cases.
 */
#define _GNU_SOURCE
#include "core/model.h"
#include "core/error.h"
#include "loader/materialize.h"
#include "emit/pack_stream.h"
#include "emit/write_atomic.h"
#include "emit/write_job.h"
#include "onnx-ml.pb-c.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 when the source file is as it was loaded, else an errno (ESTALE: it changed). */
static int source_changed(const osh_model *m)
{
	struct stat st;
	if (fstat(m->src_fd, &st) != 0)
		return errno;
	if ((uint64_t)st.st_size != m->src_size || (int64_t)st.st_mtim.tv_sec != m->src_mtime_sec ||
	    (int64_t)st.st_mtim.tv_nsec != m->src_mtime_nsec)
		return ESTALE;
	return 0;
}

typedef struct pack_job {
	osh_model *m;
	bool too_big; /* pack_stream refused: over 2 GiB (EFBIG from it, not from a write) */
} pack_job;

static pack_source source_of(const osh_model *m)
{
	return (pack_source){.lazy = &m->lazy,
			     .nodes = m->main ? m->main->nodes : NULL,
			     .nnodes = m->main ? (size_t)m->main->nnodes : 0,
			     .lazy_inits = &m->lazy_inits,
			     .map = m->input_file_mapped ? m->input_map : NULL,
			     .map_size = m->input_map_size,
			     .fd = m->src_fd};
}

static int produce_packed(out_file *o, void *ctx)
{
	pack_job *job = ctx;
	osh_model *m = job->m;
	/* Weights pointing into the mapped source are read now: they must be the bytes
	 * that were loaded (loader/load.c). */
	int e = m->input_map && m->src_fd >= 0 ? source_changed(m) : 0;
	if (!e) {
		pack_source src = source_of(m);
		e = pack_stream_model(o, m->proto, &src, NULL);
		job->too_big = e == EFBIG;
	}
	return e ? e : o->err;
}

static int produce_copy(out_file *o, void *ctx)
{
	osh_model *m = ctx;
	if (m->src_copy) {
		out_write(o, m->src_copy, (size_t)m->src_size);
		return o->err;
	}
	/* The copy must be the bytes we loaded: refuse if the file changed since. */
	int changed = source_changed(m);
	if (changed)
		return changed;
	out_copy(o, m->src_fd, 0, NULL, (size_t)m->src_size);
	return o->err;
}

static osh_status check_writable(osh_model *m, const char *path, osh_error *err)
{
	if (m->malformed)
		return error_set(err, OSH_ERR_INVALID, "%s: the model is malformed; nothing written to '%s'",
			    m->path, path ? path : "memory");
	if (!m->proto)
		return error_set(err, OSH_ERR_INVALID, "%s: no model to write", m->path);
	return OSH_OK;
}

static osh_status too_big(osh_model *m, const char *path, osh_error *err)
{
	return error_set(err, OSH_ERR_LIMIT, "%s: the model would be over protobuf's 2 GiB limit; nothing written",
		    path ? path : m->path);
}

static bool has_external_data(const osh_model *m)
{
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		const graph *g = m->graphs[gi];
		for (int32_t v = 0; v < g->nvalues; v++)
			if (g->values[v].init_view && g->values[v].init_view->external)
				return true;
		for (int32_t n = 0; n < g->nnodes; n++)
			for (int32_t a = 0; a < g->nodes[n].nattrs; a++) {
				/* t shares a union with the other payloads: only a TENSOR has one. */
				const attr_view *at = &g->nodes[n].attrs[a];
				if (at->type == AT_TENSOR && at->t && at->t->external)
					return true;
			}
	}
	return false;
}

/* External data locations are relative to the model's directory: a copy of the model
 * elsewhere would point at files that are not there. */
static osh_status check_external_dir(osh_model *m, const char *path, osh_error *err)
{
	if (!has_external_data(m))
		return OSH_OK;
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
	struct stat a, b;
	bool same = dir && stat(dir, &a) == 0 && stat(m->dir, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino;
	free(dir);
	if (same)
		return OSH_OK;
	return error_set(err, OSH_ERR_INVALID,
		    "%s: the model keeps weights in external data files relative to '%s'; write it into that "
		    "directory (the output would point at files that are not beside it)",
		    path, m->dir);
}

static atomic_opts atomic_opts_of(const osh_model *m, const osh_write_options *opts)
{
	return (atomic_opts){
		.in_place = opts && opts->in_place,
		.durable = opts && opts->durable,
		.has_source = m->has_src_stat,
		.src_dev = (dev_t)m->src_dev,
		.src_ino = (ino_t)m->src_ino,
	};
}

/* The refusals of osh_model_write that depend on the model, not the file system. */
static osh_status check_model(osh_model *m, const char *path, osh_error *err)
{
	osh_status s = check_writable(m, path, err);
	return s == OSH_OK ? check_external_dir(m, path, err) : s;
}

/* Fills the temporary file f with the model as it is now (pre: bytes in place already,
 * or NULL) and renames it over path. */
static osh_status commit(osh_model *m, const char *path, atomic_file *f, const osh_write_options *opts,
			 const out_pre *pre, uint64_t *skipped, osh_error *err)
{
	bool pack = m->modified || (opts && opts->force_pack);
	pack_job job = {.m = m};
	osh_status s = pack ? atomic_commit(f, produce_packed, &job, pre, skipped, err)
			    : atomic_commit(f, produce_copy, m, pre, skipped, err);
	if (job.too_big)
		return too_big(m, path, err); /* pack_stream sized it before writing a byte */
	if (s == OSH_ERR_IO && err && strstr(err->message, strerror(ESTALE)))
		snprintf(err->message, sizeof err->message,
			 "%s: the input changed on disk since it was loaded; nothing written to '%s'", m->path,
			 path);
	return s;
}

osh_status osh_model_write(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err)
{
	osh_status s = check_model(m, path, err);
	if (s != OSH_OK)
		return s;
	atomic_opts ao = atomic_opts_of(m, opts);
	atomic_file *f;
	s = atomic_open(path, &ao, &f, err);
	return s != OSH_OK ? s : commit(m, path, f, opts, NULL, NULL, err);
}

/* ---- Writing ahead ---------------------------------------------------------------
 *
 * Most of a model with inline weights is its initializers, which infer writes back
 * as they were: only the value_info and the outputs after them change. Their place in
 * the output is known before inference but for the graph's length, whose varint
 * grows by a byte only where the graph crosses a power of 128. So osh_write_start
 * creates the temporary file and a thread copies the initializers' bytes to where
 * they will go (the kernel copies, file to file), while the caller infers; at
 * osh_write_finish the model is packed into the file as usual, and pack_stream's
 * copy of the same bytes to the same place is skipped (out_pre). A wrong guess only
 * costs the copy made ahead: the bytes produced overwrite it, and the file is cut
 * to their length. */

/* Copies ahead from this many bytes of initializers: below, the thread costs more
 * than the copy. */
#define AHEAD_MIN ((uint64_t)4 << 20)
/* The copy checks for cancellation between steps this long. */
#define AHEAD_STEP ((size_t)16 << 20)
/* How much inference is assumed to grow the graph per value: a value_info entry of a
 * short name and a 4-D shape. Only which power of 128 the graph's length reaches
 * depends on it. */
#define GROWTH_PER_VALUE 48

struct osh_write_job {
	osh_model *m;
	char *path;
	osh_write_options opts;
	atomic_file *file;
	out_pre pre;        /* what the thread copies */
	pthread_t thread;
	bool running;
	atomic_bool cancel;
	bool copied;        /* the thread copied all of pre */
};

static void *copy_ahead(void *arg)
{
	osh_write_job *job = arg;
	const out_pre *p = &job->pre;
	const sys_io *io = job->file->io;
	uint64_t done = 0;
	while (done < p->len && !atomic_load(&job->cancel)) {
		int64_t from = (int64_t)(p->src_off + done), to = (int64_t)(p->dst_off + done);
		size_t step = p->len - done < AHEAD_STEP ? (size_t)(p->len - done) : AHEAD_STEP;
		ssize_t c = io->copy(p->fd, &from, job->file->fd, &to, step);
		if (c < 0 && errno == EINTR)
			continue;
		if (c <= 0)
			return NULL; /* any failure: finish writes them the usual way */
		done += (uint64_t)c;
	}
	job->copied = done == p->len;
	return NULL;
}

/* Where the thread is to copy what, or false when nothing is worth copying ahead. */
static bool plan_ahead(osh_model *m, out_pre *pre)
{
	pack_source src = source_of(m);
	uint64_t off, len;
	if (!src.map || m->src_fd < 0 || m->modified || !pack_stream_inits_range(&src, &off, &len) ||
	    len < AHEAD_MIN)
		return false;
	/* A dry run of the packer (nothing written) says where the initializers go now. */
	char buf[4096];
	out_file dry = {.fd = -1, .io = &sys_io_none, .buf = (unsigned char *)buf, .cap = sizeof buf};
	pack_layout l;
	if (pack_stream_model(&dry, m->proto, &src, &l) != 0 || dry.err || l.inits_at == UINT64_MAX)
		return false;
	uint64_t values = 0;
	for (int32_t g = 0; g < m->ngraphs; g++)
		values += (uint64_t)m->graphs[g]->nvalues;
	*pre = (out_pre){.fd = m->src_fd, .src_off = off, .len = len,
			 .dst_off = pack_layout_inits_at(&l, values * GROWTH_PER_VALUE)};
	return true;
}

osh_status osh_write_start(osh_model *m, const char *path, const osh_write_options *opts, osh_write_job **out,
			   osh_error *err)
{
	*out = NULL;
	osh_status s = check_model(m, path, err);
	if (s != OSH_OK)
		return s;
	osh_write_job *job = calloc(1, sizeof *job);
	if (!job || !(job->path = strdup(path))) {
		free(job);
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", path);
	}
	job->m = m;
	if (opts)
		job->opts = *opts;
	atomic_opts ao = atomic_opts_of(m, opts);
	s = atomic_open(path, &ao, &job->file, err);
	if (s != OSH_OK) {
		free(job->path);
		free(job);
		return s;
	}
	atomic_init(&job->cancel, false);
	if (plan_ahead(m, &job->pre))
		job->running = pthread_create(&job->thread, NULL, copy_ahead, job) == 0;
	*out = job;
	return OSH_OK;
}

static void end_thread(osh_write_job *job, bool cancel)
{
	if (!job->running)
		return;
	atomic_store(&job->cancel, cancel);
	pthread_join(job->thread, NULL);
	job->running = false;
}

static void job_free(osh_write_job *job)
{
	free(job->path);
	free(job);
}

osh_status osh_write_finish(osh_write_job *job, osh_error *err) { return write_job_finish(job, NULL, err); }

osh_status write_job_finish(osh_write_job *job, uint64_t *skipped, osh_error *err)
{
	if (skipped)
		*skipped = 0;
	end_thread(job, false);
	osh_model *m = job->m;
	osh_status s = check_model(m, job->path, err);
	if (s != OSH_OK) {
		atomic_abort(job->file);
	} else {
		/* The bytes copied ahead are the source's as it is now: commit refuses a
		 * source that changed since it was loaded before reading a byte of it. */
		const out_pre *pre = job->copied ? &job->pre : NULL;
		s = commit(m, job->path, job->file, &job->opts, pre, skipped, err);
	}
	job_free(job);
	return s;
}

void osh_write_cancel(osh_write_job *job)
{
	if (!job)
		return;
	end_thread(job, true);
	atomic_abort(job->file);
	job_free(job);
}

osh_status osh_model_pack(osh_model *m, uint8_t **data, size_t *size, osh_error *err)
{
	*data = NULL;
	*size = 0;
	osh_status s = check_writable(m, NULL, err);
	if (s != OSH_OK)
		return s;
	/* One buffer, packed by protobuf-c: every node a message. */
	if (!loader_materialize(m))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory building the nodes to pack", m->path);
	size_t packed = protobuf_c_message_get_packed_size(&m->proto->base);
	if (packed > PACK_MAX)
		return too_big(m, NULL, err);
	uint8_t *buf = malloc(packed ? packed : 1);
	if (!buf)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory packing %zu bytes", m->path, packed);
	*size = protobuf_c_message_pack(&m->proto->base, buf);
	*data = buf;
	return OSH_OK;
}
