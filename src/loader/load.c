/* load.c: the loader's entry points: map the file, unpack it into the model's arena,
 * then validate and index.
 *
 * Memory: the file is mapped, not read, and unmapped as soon as protobuf-c has copied
 * what it needs, so the peak is the mapping plus the unpacked messages, and only the
 * messages afterwards. The descriptor stays open so that an unchanged model can be
 * written back by copying the file itself (emit/write_model.c).
 */
#define _GNU_SOURCE
#include "loader/loader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* protobuf's own limit: messages are addressed with signed 32-bit sizes. */
#define MAX_MODEL_BYTES ((uint64_t)INT32_MAX)

static osh_status fail(osh_error *err, osh_status st, const char *fmt, ...)
{
	if (err) {
		err->status = st;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return st;
}

/* Until the wire pre-scan sizes it exactly, allow generous room: unpacked messages
 * take several times their encoded size (pointers, has_ flags, copies of bytes). */
static uint64_t default_budget(uint64_t size) { return size * 16 + ((uint64_t)256 << 20); }

static osh_model *model_new(const char *path, uint64_t size, const osh_load_options *opts)
{
	uint64_t budget = opts && opts->memory_budget ? opts->memory_budget : default_budget(size);
	arena *a = arena_new(budget);
	if (!a)
		return NULL;
	osh_model *m = arena_zalloc(a, sizeof *m);
	if (!m) {
		arena_free(a);
		return NULL;
	}
	m->arena = a;
	m->budget = budget;
	m->src_fd = -1;
	m->path = arena_strdup(a, path);
	const char *slash = strrchr(path, '/');
	m->dir = slash ? arena_strndup(a, path, (size_t)(slash - path) + (slash == path)) : ".";
	if (!m->path || !m->dir) {
		arena_free(a);
		return NULL;
	}
	strmap_init(&m->opset_index, a);
	symtab_init(&m->syms, a);
	return m;
}

/* model_new failed: a budget too small even for the model's header, or no memory. */
static osh_status no_model(osh_error *err, const char *path, const osh_load_options *opts)
{
	if (opts && opts->memory_budget)
		return fail(err, OSH_ERR_LIMIT, "%s: the memory budget of %llu bytes is too small", path,
			    (unsigned long long)opts->memory_budget);
	return fail(err, OSH_ERR_NOMEM, "%s: out of memory", path);
}

void osh_model_free(osh_model *m)
{
	if (!m)
		return;
	if (m->src_fd >= 0)
		close(m->src_fd);
	arena_free(m->arena);
}

/* Unpacks, validates and indexes `size` bytes at `data` into m. */
static osh_status build(osh_model *m, const uint8_t *data, size_t size, osh_error *err)
{
	if (size == 0)
		return fail(err, OSH_ERR_DECODE, "%s: not an ONNX model: the file is empty", m->path);
	m->proto = onnx__model_proto__unpack(arena_protobuf_allocator(m->arena), size, data);
	if (!m->proto) {
		if (arena_exhausted(m->arena))
			return fail(err, OSH_ERR_LIMIT,
				    "%s: decoding needs more than the memory budget of %llu bytes",
				    m->path, (unsigned long long)m->budget);
		return fail(err, OSH_ERR_DECODE,
			    "%s: not an ONNX model: the protobuf data is truncated or corrupt", m->path);
	}
	if (!validate_model(m) || !index_model(m) || m->nomem) {
		if (arena_exhausted(m->arena))
			return fail(err, OSH_ERR_LIMIT, "%s: indexing needs more than the memory budget of %llu bytes",
				    m->path, (unsigned long long)m->budget);
		return fail(err, OSH_ERR_NOMEM, "%s: out of memory while indexing the model", m->path);
	}
	return OSH_OK;
}

osh_status osh_model_load(osh_model **out, const char *path, const osh_load_options *opts, osh_error *err)
{
	*out = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused below). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return fail(err, OSH_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return fail(err, OSH_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(err, OSH_ERR_IO, "%s: not a regular file", path);
	}
	uint64_t size = (uint64_t)st.st_size;
	if (size > MAX_MODEL_BYTES) {
		close(fd);
		return fail(err, OSH_ERR_LIMIT,
			    "%s: the file is %llu bytes, over protobuf's 2 GiB limit for one message "
			    "(store the weights as external data)",
			    path, (unsigned long long)size);
	}
	osh_model *m = model_new(path, size, opts);
	if (!m) {
		close(fd);
		return no_model(err, path, opts);
	}
	m->src_fd = fd;
	m->src_size = size;
	m->has_src_stat = true;
	m->src_dev = (uint64_t)st.st_dev;
	m->src_ino = (uint64_t)st.st_ino;
	m->src_mtime_sec = (int64_t)st.st_mtim.tv_sec;
	m->src_mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	osh_status s;
	if (size == 0) {
		s = build(m, NULL, 0, err);
	} else {
		void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			s = fail(err, OSH_ERR_IO, "%s: cannot map: %s", path, strerror(errno));
		} else {
			/* protobuf-c reads the bytes front to back exactly once. */
			madvise(map, (size_t)size, MADV_SEQUENTIAL);
			s = build(m, map, (size_t)size, err);
			munmap(map, (size_t)size);
		}
	}
	if (s != OSH_OK) {
		osh_model_free(m);
		return s;
	}
	*out = m;
	return OSH_OK;
}

osh_status osh_model_load_buffer(osh_model **out, const void *data, size_t size, const char *name,
				 const osh_load_options *opts, osh_error *err)
{
	*out = NULL;
	if (!name)
		name = "<memory>";
	if ((uint64_t)size > MAX_MODEL_BYTES)
		return fail(err, OSH_ERR_LIMIT, "%s: %zu bytes, over protobuf's 2 GiB limit", name, size);
	osh_model *m = model_new(name, size, opts);
	if (!m)
		return no_model(err, name, opts);
	uint8_t *copy = arena_alloc(m->arena, size);
	if (!copy) {
		osh_model_free(m);
		return fail(err, OSH_ERR_NOMEM, "%s: out of memory", name);
	}
	if (size)
		memcpy(copy, data, size);
	m->src_copy = copy;
	m->src_size = size;
	osh_status s = build(m, copy, size, err);
	if (s != OSH_OK) {
		osh_model_free(m);
		return s;
	}
	*out = m;
	return OSH_OK;
}
