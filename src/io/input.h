/* input.h: the input interface: a model file's bytes, however they are brought in.
 *
 * As SQLite's VFS, a table of methods with two implementations, chosen once when the
 * file is opened (input_open): the plain one (input_plain.c) reads the file with
 * pread into memory from malloc and does nothing else, on the caller's thread; the
 * fast one (input_fast.c) maps the file, or reads it into an anonymous mapping with
 * huge pages, and gives the pages back as the reader passes them, on a thread of
 * its own for a big file (input_release.c). The loader reads through the table and
 * never knows which serves it; what differs is time and memory, never the bytes.
 *
 * Invariant: between read and drop, the view [data, data + size) holds the file's
 * bytes as they were read; a page given back comes back, the same, when read again.
 */
#ifndef OSH_IO_INPUT_H
#define OSH_IO_INPUT_H

#include "core/error.h"
#include "onnxshape.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct input input;

typedef struct input_methods {
	/* Brings the file's `size` bytes into memory (the view); `path` names the file
	 * in an error. Once per input. */
	osh_status (*read)(input *in, const char *path, osh_error *err);
	/* The reader has passed offset `upto` and will not read before it soon: its
	 * pages may go back (to be read again from the file if needed). Mere advice. */
	void (*passed)(input *in, size_t upto);
	/* The bytes are no longer needed: the view goes (the descriptor stays). */
	void (*drop)(input *in);
} input_methods;

/* How input_open brings the bytes in. */
typedef struct input_config {
	bool plain; /* the plain implementation (core/tuning.h: osh_model.plain_io) */
	/* The fast one maps the file itself, where it can (osh_model_load_mapped),
	 * and tells on_map the mapping's range before anyone reads it. */
	bool map_file;
	void (*on_map)(void *ctx, const void *addr, size_t size);
	void *map_ctx;
} input_config;

struct input {
	const input_methods *methods;
	input_config cfg;
	int fd;        /* open for reading until input_close */
	uint64_t size; /* at open */
	/* The file's identity at open, to refuse writing over it by accident and to see
	 * it changed while it was read. */
	uint64_t dev, ino;
	int64_t mtime_sec, mtime_nsec;
	/* The view, between read and drop; NULL outside. */
	uint8_t *data;
	/* The view is the file's own pages (the page cache's), not a copy: a page read
	 * after another process truncated the file is SIGBUS. */
	bool file_mapped;
};

/* Opens `path` for reading (a FIFO is not waited on) and notes its size and
 * identity; refuses what is not a regular file. The bytes are not read yet
 * (in->methods->read). *out is freed with input_close. */
osh_status input_open(input **out, const char *path, const input_config *cfg, osh_error *err);
/* The input's file was written to since it was opened (size or time differ): an
 * error naming `path`. OSH_OK when it is as it was. */
osh_status input_unchanged(const input *in, const char *path, osh_error *err);
/* Drops the view, if any, closes the descriptor and frees in. NULL is a no-op. */
void input_close(input *in);

/* The bytes [off, off + len) of the file, inside the view. */
static inline const uint8_t *input_view(const input *in, uint64_t off, size_t len)
{
	assert(in->data && off <= in->size && len <= in->size - off);
	(void)len;
	return in->data + off;
}

/* Tells in that the reader passed `upto` (its methods' passed); NULL, or an input
 * whose view went, is told nothing. */
static inline void input_passed(input *in, size_t upto)
{
	if (in && in->data)
		in->methods->passed(in, upto);
}

/* The two implementations, for input_open: an input with its methods set. */
input *input_plain_new(void);
input *input_fast_new(void);
/* For the implementations: the error of a read of path that failed with e
 * (pread_all's: -1 when the file ended first). Here rather than in input_open.c, so
 * that the implementations call nothing of the file that chooses them. */
static inline osh_status input_read_error(const char *path, int e, osh_error *err)
{
	if (e < 0)
		return error_set(err, OSH_ERR_IO, "%s: the input changed while it was read (it shrank)", path);
	return error_set(err, OSH_ERR_IO, "%s: cannot read: %s", path, strerror(e));
}

#endif
