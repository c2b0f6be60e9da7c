/* write_ahead.c: osh_load_options.write_ahead_to: writing a model's nodes and weights
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
 * there (the kernel copies, file to file: copy_file_range) while the loader, inference
  * and annotation run on the caller's thread: a copy of the file running beside a
  * check does not slow it down. osh_model_write to the same path then writes the model
 * as it would have anyway, into that file, skipping the bytes already in place
 * (out_pre); a wrong guess costs the copy made ahead: the bytes produced go over it
 * and the file is cut to their length.
 *
 * The write's options come only with osh_model_write. The temporary file is created
 * as for a write in place (a destination that is the input is not refused yet): a
 * write not in place to the input then drops it and refuses as osh_model_write
 * refuses, and `durable` is applied at the commit. A model freed without that write
 * cancels the job (osh_model.pending.write). None of this happens on the plain path. */
#define _GNU_SOURCE
#include "emit/write_ahead.h"
#include "core/quiet_thread.h"
#include "core/error.h"
#include "core/pread_all.h"
#include "core/tuning.h"
#include "emit/pack_stream.h"
#include "emit/write_atomic.h"
#include "emit/write_model.h"
#include "onnx-ml.pb-c.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies ahead from WRITE_AHEAD_MIN bytes (the graph's nodes and initializers): the
 * loader reports a layout for files of SPLIT_SCAN_MIN and more, and from there the
 * thread saves more than it costs. The copy checks for cancellation every
 * WRITE_AHEAD_STEP bytes. Inference is guessed to grow the graph by
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
	pthread_t thread;
	bool running;
	atomic_bool cancel;
	bool copied; /* the thread copied all of pre */
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
	atomic_init(&job->cancel, false);
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

/* The blocks of what the copy writes (the output up to its last initializer),
 * allocated at once: ext4 otherwise reserves them a page at a time as the copy goes.
 * Not the rest of the output: blocks allocated past the end of what is finally
 * written are given back by the truncate that ends every write made ahead
 * (atomic_commit), which slows that truncate down. KEEP_SIZE: the file's length
 * is what is written. Advice: a file system without it, or a disk too full, just goes
 * without. */
static void preallocate(int fd, uint64_t size)
{
#ifdef FALLOC_FL_KEEP_SIZE
	if (size && size <= (uint64_t)INT64_MAX)
		(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size);
#else
	(void)fd, (void)size;
#endif
}

static void *copy_ahead(void *arg)
{
	write_job *job = arg;
	const out_pre *p = &job->pre;
	const sys_io *io = job->file->io;
	/* Here, not on the loader's thread: reserving a big file's blocks takes a while. */
	preallocate(job->file->fd, p->dst_off + p->len);
	uint64_t done = 0;
	while (done < p->len && !atomic_load(&job->cancel)) {
		int64_t from = (int64_t)(p->src_off + done), to = (int64_t)(p->dst_off + done);
		size_t step = p->len - done < WRITE_AHEAD_STEP ? (size_t)(p->len - done) : WRITE_AHEAD_STEP;
		ssize_t c = io->copy(p->fd, &from, job->file->fd, &to, step);
		if (c < 0 && errno == EINTR)
			continue;
		if (c <= 0)
			return NULL; /* any failure: the write produces them the usual way */
		done += (uint64_t)c;
	}
	job->copied = done == p->len;
	return NULL;
}

void write_ahead_layout(void *ctx, const input_layout *l)
{
	write_job *job = ctx;
	if (job->file || l->inits_end - l->graph_start < WRITE_AHEAD_MIN)
		return;
	uint64_t graph_len = l->graph_end - l->graph_start + l->elements * WRITE_AHEAD_GROWTH;
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
	job->file->prefilled = true;
	job->running = quiet_thread_start(&job->thread, copy_ahead, job) == 0;
}

static void end_thread(write_job *job, bool cancel)
{
	if (!job->running)
		return;
	atomic_store(&job->cancel, cancel);
	pthread_join(job->thread, NULL);
	job->running = false;
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

osh_status write_ahead_finish(write_job *job, osh_model *m, const osh_write_options *opts, uint64_t *skipped,
			      osh_error *err)
{
	end_thread(job, false);
	/* Not in place to the input: the file opened in place ahead is not this write's. */
	atomic_opts ao = write_atomic_opts(opts, m);
	if (job->file && !ao.in_place && atomic_dest_is_source(job->file, &ao)) {
		atomic_abort(job->file);
		job->file = NULL;
	}
	osh_status s;
	if (!job->file) {
		s = write_model_fresh(m, job->path, opts, err);
	} else if ((s = write_check_model(m, job->path, err)) != OSH_OK) {
		atomic_abort(job->file);
	} else {
		/* The packer copies from the model's own descriptor of the file (pre.fd). */
		out_pre pre = job->pre;
		pre.fd = m->src.fd;
		bool use = job->copied && same_source(job->src_fd, m);
		job->file->durable = ao.durable;
		/* The file was opened knowing the source only by its descriptor: whether
		 * the destination is the path it was loaded by is known now. */
		atomic_guard_source(job->file, &ao);
		s = write_commit(m, job->path, job->file, opts, use ? &pre : NULL, skipped, err);
	}
	job_free(job);
	return s;
}
