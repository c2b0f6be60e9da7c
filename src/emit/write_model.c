/* write_model.c: osh_model_write and osh_model_pack: the output seam.
 *
 * A model no pass changed is written by copying its source bytes, so it comes back
 * byte-identical whatever encoder made it (non-canonical varints, packed repeated
 * fields, field order). A changed model is packed straight into the output file
 * (pack_stream.c: protobuf-c's bytes, in one pass), never into a buffer the size of
 * the model. Unknown fields (newer than our schema) are kept in both cases. A write
 * begun while the model loaded (write_ahead.c) is finished here, into the temporary
 * file it made.
 *
 * The bytes go through the output interface (io/output.h) into a temporary file
 * renamed over the destination (io/atomic_file.h), which serves a model loaded the
 * plain way (osh_model.plain_io, core/tuning.h) with the plain output and any other
 * with the fast one; nothing here knows which. What differs here is what is
 * produced: a plain model's messages are built whole and packed by protobuf-c into
 * one buffer, the deferred lint run before it on this thread; the same temporary
 * file, refusals, fsync and rename.
 */
#define _GNU_SOURCE
#include "core/model.h"
#include "core/error.h"
#include "loader/build_messages.h"
#include "emit/pack_stream.h"
#include "emit/write_ahead.h"
#include "emit/write_model.h"
#include "io/atomic_file.h"
#include "onnx-ml.pb-c.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* 0 when the source file is as it was loaded, else an errno (ESTALE: it changed). */
static int source_changed(const osh_model *m)
{
	struct stat st;
	if (fstat(m->src.fd, &st) != 0)
		return errno;
	if ((uint64_t)st.st_size != m->src.size || (int64_t)st.st_mtim.tv_sec != m->src.mtime_sec ||
	    (int64_t)st.st_mtim.tv_nsec != m->src.mtime_nsec)
		return ESTALE;
	return 0;
}

typedef struct pack_job {
	osh_model *m;
	bool too_big; /* pack_stream refused: over 2 GiB (EFBIG from it, not from a write) */
	produce_fn produce; /* produce_packed, produce_plain or produce_copy */
	/* The lint inference deferred (osh_infer_lint_later) ran alongside the write: */
	bool linted;
	bool lint_nomem; /* and ran out of memory */
	bool findings;   /* and found errors: the file is not committed */
	bool build_nomem; /* building the messages to pack ran out of the arena */
} pack_job;

static int produce_packed(out_file *o, void *ctx)
{
	pack_job *job = ctx;
	osh_model *m = job->m;
	/* Weights pointing into the mapped source are read now: they must be the bytes
	 * that were loaded (loader/load.c). */
	int e = m->src.map && m->src.fd >= 0 ? source_changed(m) : 0;
	if (!e) {
		pack_source src = pack_stream_source(m);
		e = pack_stream_model(o, m->proto, &src);
		job->too_big = e == EFBIG;
	}
	return e ? e : o->err;
}

/* Every message built (loader_build_messages: the value_info annotation added) and
 * packed by protobuf-c into one buffer from malloc, *buf, of *n bytes: 0, or EFBIG
 * (over protobuf's limit), or ENOMEM building the messages (*buf NULL, *n 0) or the
 * buffer (*buf NULL, *n the bytes it needed). Both the plain write and
 * osh_model_pack make their bytes so. */
static int pack_whole(osh_model *m, uint8_t **buf, size_t *n)
{
	*buf = NULL;
	*n = 0;
	if (!loader_build_messages(m))
		return ENOMEM;
	*n = protobuf_c_message_get_packed_size(&m->proto->base);
	if (*n > PACK_MAX)
		return EFBIG;
	if (!(*buf = malloc(*n ? *n : 1)))
		return ENOMEM;
	*n = protobuf_c_message_pack(&m->proto->base, *buf);
	return 0;
}

/* The plain path's bytes (pack_whole), on a model the plain loader unpacked whole.
 * A changed source is refused as produce_packed refuses it, though nothing here
 * reads it, so that the two paths answer alike. The lint deferred ran before, on
 * this thread (passes/pipeline.c starts none for a plain model): the arena is this
 * thread's to fill. */
static int produce_plain(out_file *o, void *ctx)
{
	pack_job *job = ctx;
	osh_model *m = job->m;
	int e = m->src.fd >= 0 ? source_changed(m) : 0;
	if (e)
		return e;
	uint8_t *buf;
	size_t n;
	if ((e = pack_whole(m, &buf, &n)) != 0) {
		job->too_big = e == EFBIG;
		job->build_nomem = e == ENOMEM && !n;
		return e;
	}
	out_write(o, buf, n);
	free(buf);
	return o->err;
}

static int produce_copy(out_file *o, void *ctx)
{
	osh_model *m = ((pack_job *)ctx)->m;
	if (m->src.copy) {
		out_write(o, m->src.copy, (size_t)m->src.size);
		return o->err;
	}
	/* The copy must be the bytes we loaded: refuse if the file changed since. */
	int changed = source_changed(m);
	if (changed)
		return changed;
	/* A copy made ahead of the graph's nodes and initializers into the place they
	 * have in the file (write_ahead.c's guess for an unchanged graph) is this
	 * copy's middle: copied apart, so that the output skips it. */
	const out_pre *p = &o->pre;
	uint64_t size = m->src.size, from = 0;
	if (p->len && p->fd == m->src.fd && p->dst_off == p->src_off && p->src_off + p->len <= size) {
		out_copy(o, m->src.fd, 0, NULL, (size_t)p->src_off);
		out_copy(o, m->src.fd, p->src_off, NULL, (size_t)p->len);
		from = p->src_off + p->len;
	}
	out_copy(o, m->src.fd, from, NULL, (size_t)(size - from));
	return o->err;
}

/* The bytes, with the lint inference deferred (osh_infer_lint_later) run on
 * another core meanwhile: packing only reads the messages and the input, the lint
 * only the IR, and it adds its diagnostics in the model's arena, which nothing here
 * touches (core/model.h, beside_write). An error it finds keeps the file from being
 * committed: the job says so (findings), which write_commit tells as
 * OSH_ERR_FINDINGS; the ECANCELED returned only stops atomic_commit. */
static int produce_alongside_lint(out_file *o, void *ctx)
{
	pack_job *job = ctx;
	const beside_write *b = job->m->pending.beside;
	void *l = b ? b->start(job->m) : NULL;
	int e = job->produce(o, job);
	job->linted = l != NULL;
	job->lint_nomem = b && !b->join(job->m, l);
	if (job->lint_nomem)
		return e ? e : ENOMEM;
	job->findings = !e && job->linted && job->m->has_errors;
	if (job->findings)
		return ECANCELED;
	return e;
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
	if (!m->src.viewed_external) /* none was ever viewed: no walk over every value */
		return false;
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
 * elsewhere would point at files that are not there. Elsewhere is judged where the
 * file will land, as the writer resolves path (a symbolic link is followed to the
 * file it leads to), and directories are compared as files (device and inode), not
 * by how they are spelled. */
static osh_status check_external_dir(osh_model *m, const char *path, osh_error *err)
{
	if (!has_external_data(m))
		return OSH_OK;
	char *dir = NULL;
	osh_status s = atomic_dest_dir(path, &dir, err);
	if (s != OSH_OK)
		return s;
	struct stat a, b;
	bool same = stat(dir, &a) == 0 && stat(m->dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (!same)
		error_set(err, OSH_ERR_INVALID,
			  "%s: the model keeps weights in external data files relative to '%s', and the output would "
			  "land in '%s', where they are not; write it into the model's directory",
			  path, m->dir, dir);
	free(dir);
	return same ? OSH_OK : OSH_ERR_INVALID;
}

static atomic_opts write_atomic_opts(const osh_write_options *opts, const osh_model *m)
{
	const model_source *src = &m->src;
	return (atomic_opts){
		.in_place = opts && opts->in_place,
		.durable = opts && opts->durable,
		.has_source = src->has_stat,
		.src = {.dev = (dev_t)src->dev, .ino = (ino_t)src->ino, .size = src->size,
			.mtime_sec = src->mtime_sec, .mtime_nsec = src->mtime_nsec, .path = src->has_stat ? m->path : NULL},
		.plain = m->plain_io,
	};
}

static osh_status write_check_model(osh_model *m, const char *path, osh_error *err)
{
	osh_status s = check_writable(m, path, err);
	return s == OSH_OK ? check_external_dir(m, path, err) : s;
}

static osh_status write_commit(osh_model *m, const char *path, atomic_file *f, const osh_write_options *opts,
				const out_pre *pre, uint64_t *skipped, osh_error *err)
{
	bool pack = m->modified || (opts && opts->force_pack);
	pack_job job = {.m = m, .produce = !pack ? produce_copy : m->plain_io ? produce_plain : produce_packed};
	osh_status s = atomic_commit(f, produce_alongside_lint, &job, pre, skipped, err);
	if (job.too_big)
		return too_big(m, path, err); /* pack_stream sized it before writing a byte */
	/* The arena's refusal names the budget when it was the budget that ran out. */
	if (job.lint_nomem || job.build_nomem)
	{
		const char *what = job.lint_nomem ? "the lint" : "building the messages to write";
		osh_status s2 = arena_error(m->arena, err, m->path, what);
		if (err) {
			size_t n = strlen(err->message);
			snprintf(err->message + n, sizeof err->message - n, "; nothing written to '%s'", path);
		}
		return s2;
	}
	if (job.findings)
		return error_set(err, OSH_ERR_FINDINGS, "%s: the model has errors; nothing written to '%s'", m->path, path);
	if (s == OSH_ERR_CHANGED)
		error_set(err, s, "%s: the input changed on disk since it was loaded; nothing written to '%s'", m->path,
			  path);
	return s;
}

static osh_status write_model_fresh(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err)
{
	osh_status s = write_check_model(m, path, err);
	if (s != OSH_OK)
		return s;
	atomic_opts ao = write_atomic_opts(opts, m);
	atomic_file *f;
	s = atomic_open(path, &ao, &f, err);
	return s != OSH_OK ? s : write_commit(m, path, f, opts, NULL, NULL, err);
}

osh_status write_model(osh_model *m, const char *path, const osh_write_options *opts, uint64_t *skipped,
		       osh_error *err)
{
	if (skipped)
		*skipped = 0;
	write_job *job = write_ahead_take(m, path);
	if (!job)
		return write_model_fresh(m, path, opts, err);
	atomic_opts ao = write_atomic_opts(opts, m);
	out_pre pre;
	bool use;
	atomic_file *f = write_ahead_end(job, m, &ao, &pre, &use);
	if (!f)
		return write_model_fresh(m, path, opts, err);
	osh_status s = write_check_model(m, path, err);
	if (s != OSH_OK) {
		atomic_abort(f);
		return s;
	}
	return write_commit(m, path, f, opts, use ? &pre : NULL, skipped, err);
}

osh_status model_write(osh_model *m, const char *path, const osh_write_options *opts, osh_error *err)
{
	if (!m || !path)
		return error_set(err, OSH_ERR_INVALID, "osh_model_write: the %s is NULL", m ? "path" : "model");
	return write_model(m, path, opts, NULL, err);
}

osh_status model_pack(osh_model *m, uint8_t **data, size_t *size, osh_error *err)
{
	if (!m || !data || !size)
		return error_set(err, OSH_ERR_INVALID, "osh_model_pack: %s is NULL", !m ? "the model" : !data ? "data" : "size");
	*data = NULL;
	*size = 0;
	osh_status s = check_writable(m, NULL, err);
	if (s != OSH_OK)
		return s;
	/* The work deferred to the write (the lint), on this thread: nothing runs beside
	 * it here. */
	const beside_write *b = m->pending.beside;
	if (b && (s = b->run(m, err)) != OSH_OK)
		return s;
	/* One buffer, packed by protobuf-c: every node a message. */
	uint8_t *buf;
	size_t n;
	int e = pack_whole(m, &buf, &n);
	if (e == EFBIG)
		return too_big(m, NULL, err);
	if (e && !n)
		return arena_error(m->arena, err, m->path, "building the messages to pack");
	if (e)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory packing %zu bytes", m->path, n);
	*data = buf;
	*size = n;
	return OSH_OK;
}
