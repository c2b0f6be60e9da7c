/* write_ahead.c: osh_load_options.write_to: writing a model's nodes and weights
 * while it is loaded and inferred, for the osh_model_write to that path that follows.
 *
 * Most of a model with inline weights is its initializers, and `infer` writes them
 * back as they were, and its nodes too: what changes is value_info and the outputs,
 * which follow them in the graph (protobuf-c packs fields in number order: node 1,
 * name 2, initializer 5, input 11, output 12, value_info 13). So where the graph's
 * content up to its last initializer goes in the output is known as soon as the
 * loader has framed the file (input_layout), but for two things:
 *
 *   - the model's fields before the graph, as protobuf-c packs them: read and packed
 *     here (they are small), and placed as pack_stream places the graph
 *     (pack_stream_graph_content_at);
 *   - the graph's length, whose varint grows by a byte only where the graph crosses a
 *     power of 128 (guessed from the elements: GROWTH_PER_ELEMENT).
 *
 * That the graph's fields before its initializers (nodes, name) come back as they
 * are is assumed: they do from a file packed in field order without repeats, as
 * onnx.save writes it; from any other, the guess is wrong.
 *
 * With the guess, the job creates the temporary file and a thread copies that stretch
 * there (io/copy_ahead.h: the kernel copies, file to file) while the loader, inference
 * and annotation run on the caller's thread: a copy of the file running beside a
 * check does not slow it down. osh_model_write to the same path (write_model.c)
 * then writes the model as it would have anyway, into that file, skipping the bytes
 * already in place (out_pre); a wrong guess costs the copy made ahead: the bytes
 * produced go over it and the file is cut to their length.
 *
 * An edit (osh_rewrite) moves what follows the nodes it changes: the copy made ahead
 * is then in the wrong place, overwritten by the write. Once the edit is committed,
 * the messages say where the initializers go (pack_stream_init_stretch: the nodes
 * sized as the writer will size them), but for the graph's length, guessed as at the
 * load: write_ahead_relayout ends the copy and starts it again for the longest
 * stretch of initializers still the input's bytes, while the rewritten model is
 * indexed and inferred again, as the first one ran while it loaded. Only the
 * thread and what it copies change: the temporary file is the same.
 *
 * The write's options come only with osh_model_write. The temporary file is created
 * as for a write in place (a destination that is the input is not refused yet): a
 * write not in place to the input then drops it and refuses as osh_model_write
 * refuses, and `durable` is applied at the commit. A model freed without that write
 * cancels the job (osh_model.pending.write). None of this happens on the plain path. */
#define _GNU_SOURCE
#include "emit/write_ahead.h"
#include "core/pread_all.h"
#include "core/tuning.h"
#include "emit/pack_stream.h"
#include "io/atomic_file.h"
#include "io/copy_ahead.h"
#include "onnx-ml.pb-c.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies ahead from WRITE_AHEAD_MIN bytes (the graph's nodes and initializers): the
 * loader reports a layout for files of SPLIT_SCAN_MIN and more, and from there the
 * thread saves more than it costs. Inference is guessed to grow the graph by
 * WRITE_AHEAD_GROWTH bytes per node or initializer (a value_info entry of a short
 * name and a 4-D shape): only which power of 128 the graph's length reaches depends
 * on it. The model's fields other than the graph are read to place the graph; more
 * than WRITE_AHEAD_HEADER_MAX of them (large functions or metadata), and nothing is
 * copied ahead. */

struct write_job {
	char *path;
	atomic_file *file; /* the temporary file, from the layout on; NULL before or without */
	int src_fd;        /* the input, from the layout (a duplicate), or -1 */
	out_pre pre;       /* what the thread copies */
	copy_ahead *copy;  /* the thread, until it is ended; NULL before or without */
	bool copied;       /* it copied all of pre */
	/* The graph's bytes after its initializers, guessed at the layout as there
	 * (the file's, grown by inference): what a relayout adds to place the graph. */
	uint64_t tail;
};

write_job *write_ahead_new(const char *path)
{
	write_job *job = calloc(1, sizeof *job);
	if (!job || !(job->path = strdup(path))) {
		free(job);
		return NULL;
	}
	job->src_fd = -1;
	job->pre.dst_off = UINT64_MAX;
	return job;
}

/* Where the output's graph content will start when the graph packs to graph_len
 * bytes: the model's other fields (before and after the graph in the file)
 * unpacked and placed as pack_stream places the graph. UINT64_MAX when they cannot
 * be read or are too big to bother. */
static uint64_t graph_content_at(const input_layout *l, uint64_t graph_len)
{
	uint64_t before = l->graph_key, after = l->size - l->graph_end;
	if (before + after > WRITE_AHEAD_HEADER_MAX)
		return UINT64_MAX;
	uint8_t *b = malloc(before + after + 1);
	if (!b)
		return UINT64_MAX;
	uint64_t at = UINT64_MAX;
	if (!pread_all(l->fd, b, (size_t)before, 0) && !pread_all(l->fd, b + before, (size_t)after, l->graph_end)) {
		Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, (size_t)(before + after), b);
		if (m) {
			at = pack_stream_graph_content_at(m, graph_len);
			onnx__model_proto__free_unpacked(m, NULL);
		}
	}
	free(b);
	return at;
}

void write_ahead_layout(void *ctx, const input_layout *l)
{
	write_job *job = ctx;
	if (job->file || l->inits_end - l->graph_start < WRITE_AHEAD_MIN)
		return;
	uint64_t growth = l->elements * WRITE_AHEAD_GROWTH;
	uint64_t graph_len = l->graph_end - l->graph_start + growth;
	uint64_t dst = graph_content_at(l, graph_len);
	struct stat st;
	if (dst == UINT64_MAX || fstat(l->fd, &st) != 0)
		return;
	/* Opened as osh_model_write opens it for this source in place (see above):
	 * whatever it refuses now it refuses again, and reports, at the write. */
	atomic_opts ao = {.in_place = true, .has_source = true,
			  .src = {.dev = st.st_dev, .ino = st.st_ino, .size = (uint64_t)st.st_size,
				  .mtime_sec = (int64_t)st.st_mtim.tv_sec, .mtime_nsec = (int64_t)st.st_mtim.tv_nsec}};
	osh_error ignored;
	if (atomic_open(job->path, &ao, &job->file, &ignored) != OSH_OK) {
		job->file = NULL;
		return;
	}
	job->src_fd = fcntl(l->fd, F_DUPFD_CLOEXEC, 0);
	if (job->src_fd < 0)
		return;
	job->pre = (out_pre){.fd = job->src_fd, .src_off = l->graph_start, .dst_off = dst,
			     .len = l->inits_end - l->graph_start};
	job->tail = l->graph_end - l->inits_end + growth;
	job->file->prefilled = true;
	job->copy = copy_ahead_start(job->file->io, job->file->fd, &job->pre);
}

static void end_thread(write_job *job, bool cancel)
{
	if (!job->copy)
		return;
	job->copied = copy_ahead_end(job->copy, cancel);
	job->copy = NULL;
}

void write_ahead_relayout(osh_model *m)
{
	write_job *job = m->pending.write.job;
	if (!job || !job->file || job->src_fd < 0)
		return;
	/* The stretch is found in the model's view of its file, and copied from the
	 * job's descriptor of the same file (same_source holds it to that at the end). */
	pack_source src = pack_stream_source(m);
	pack_stretch st;
	out_pre pre = {.fd = job->src_fd, .dst_off = UINT64_MAX};
	if (pack_stream_init_stretch(m->proto, &src, WRITE_AHEAD_PER_MESSAGE, &st) && st.len >= WRITE_AHEAD_MIN) {
		uint64_t at = pack_stream_graph_content_at(m->proto, st.upto + job->tail);
		if (at != UINT64_MAX)
			pre = (out_pre){.fd = job->src_fd, .src_off = st.src_off, .dst_off = at + st.graph_off, .len = st.len};
	}
	/* The copy under way puts that stretch where it goes already (the edit moved
	 * nothing before it): it stands, running or done. */
	const out_pre *old = &job->pre;
	if (pre.len && old->len && pre.src_off >= old->src_off && pre.src_off + pre.len <= old->src_off + old->len &&
	    pre.dst_off + old->src_off == old->dst_off + pre.src_off)
		return;
	end_thread(job, true);
	job->copied = false;
	job->pre = pre;
	if (pre.len)
		job->copy = copy_ahead_start(job->file->io, job->file->fd, &job->pre);
}

static void job_free(write_job *job)
{
	if (job->src_fd >= 0)
		close(job->src_fd);
	free(job->path);
	free(job);
}

void write_ahead_cancel(void *ctx)
{
	write_job *job = ctx;
	if (!job)
		return;
	end_thread(job, true);
	if (job->file)
		atomic_abort(job->file);
	job_free(job);
}

void write_ahead_attach(osh_model *m, write_job *job)
{
	m->pending.write = (pending_write){.job = job, .cancel = write_ahead_cancel};
}

write_job *write_ahead_take(osh_model *m, const char *path)
{
	write_job *job = m->pending.write.job;
	if (!job || strcmp(job->path, path) != 0)
		return NULL;
	m->pending.write = (pending_write){0};
	return job;
}

uint64_t write_ahead_guess(const osh_model *m)
{
	const write_job *job = m->pending.write.job;
	return job && job->pre.len ? job->pre.dst_off : UINT64_MAX;
}

/* Whether fd is the file m was loaded from (the job may have been told the layout of
 * another load). Whether it changed since is the commit's to check: it refuses a
 * changed source before writing a byte (write_model.c, source_changed). */
static bool same_source(int fd, const osh_model *m)
{
	struct stat st;
	return m->src.fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == m->src.dev &&
	       (uint64_t)st.st_ino == m->src.ino;
}

atomic_file *write_ahead_end(write_job *job, const osh_model *m, const atomic_opts *ao, out_pre *pre, bool *use)
{
	end_thread(job, false);
	atomic_file *f = job->file;
	*use = false;
	/* Not in place to the input: the file opened in place ahead is not this write's. */
	if (f && !ao->in_place && atomic_dest_is_source(f, ao)) {
		atomic_abort(f);
		f = NULL;
	}
	if (f) {
		/* The packer copies from the model's own descriptor of the file (pre.fd). */
		*pre = job->pre;
		pre->fd = m->src.fd;
		*use = job->copied && same_source(job->src_fd, m);
		f->durable = ao->durable;
		/* The file was opened knowing the source only by its descriptor: whether
		 * the destination is the path it was loaded by is known now. */
		atomic_guard_source(f, ao);
	}
	job_free(job);
	return f;
}
