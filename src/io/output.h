/* output.h: the output interface: bytes appended to a file descriptor through a
 * buffer, by one of two implementations chosen once, when the output is opened
 * (SQLite's VFS: a method table, and the packer never knows which serves it).
 *
 *   output_plain (output_plain.c): the reference. The caller's thread writes every
 *     byte with write, bytes of another file included (read with pread); no thread,
 *     no kernel copies, no advice to the kernel.
 *   output_fast (output_fast.c): full buffers written by a thread of their own
 *     (flush_behind.c), bytes of another file copied by the kernel
 *     (copy_file_range), writeback started as it goes for a durable file, and bytes
 *     a copy made ahead put in place already (out_pre, copy_ahead.h) skipped.
 *
 * Both write the same bytes in the same order; what they promise about the file as a
 * whole (a temporary file, fsync, rename, refusals) is atomic_file.h's, for both.
 */
#ifndef OSH_IO_OUTPUT_H
#define OSH_IO_OUTPUT_H

#include "io/sys_io.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes already in the output file: the `len` bytes of file `fd` from src_off, copied
 * to dst_off before the content was produced (copy_ahead.h, while the model is loaded
 * and inferred). Producing the same bytes there again is skipped (output_fast). */
typedef struct out_pre {
	int fd;
	uint64_t src_off, dst_off, len;
} out_pre;

typedef struct output_ops output_ops;
struct flush_behind;

/* Buffered output onto a file descriptor through a sys_io. The first error sticks. */
typedef struct out_file {
	const output_ops *ops;
	int fd;
	const sys_io *io;
	unsigned char *buf;
	size_t len, cap;
	int err; /* errno of the first failure, 0 if none */
	uint64_t written; /* bytes handed to the kernel so far */
	uint64_t synced;  /* of which writeback has been started (output_fast) */
	bool durable;     /* the file is fsynced at the end: output_fast starts writeback as it goes */
	out_pre pre;      /* len 0: none */
	uint64_t skipped; /* bytes of pre not written again */
	/* output_fast's own. Full buffers are written by a thread from the
	 * BEHIND_AFTER-th on, unless durable; an error of theirs reaches `err` at the
	 * next operation that needs the file itself, or the end. */
	unsigned full_flushes;
	struct flush_behind *behind;
	bool no_copy; /* the kernel cannot copy between these files: write instead */
} out_file;

/* An implementation. out_write, out_copy, out_flush and out_finish below are what
 * producers call; these are what they call in turn. */
struct output_ops {
	/* The buffer is full (or the next bytes do not fit): make room. */
	void (*full)(out_file *o);
	/* n bytes at data, at least a buffer's worth, written without passing through the
	 * buffer (which is empty: full ran). */
	void (*write_through)(out_file *o, const void *data, size_t n);
	/* out_copy, with o->err clear and n not 0. */
	void (*copy_from)(out_file *o, int fd, uint64_t off, const void *data, size_t n);
	void (*flush)(out_file *o);
	/* Everything handed over written, by whichever thread; then o->err. */
	int (*drain)(out_file *o);
	/* Ends the output: no thread writes to o->fd any more, and the buffers are freed.
	 * o->written and o->skipped stay. */
	void (*release)(out_file *o);
};

extern const output_ops output_plain;
extern const output_ops output_fast;

/* Opens an output onto fd with the implementation ops (durable: the file will be
 * fsynced; pre: what is in place already, or NULL): 0, or ENOMEM (o holds nothing
 * to release). */
int out_open(out_file *o, const output_ops *ops, int fd, const sys_io *io, bool durable, const out_pre *pre);

void out_write(out_file *o, const void *data, size_t n);
void out_flush(out_file *o);

/* Appends n bytes that are the bytes of file `fd` at offset off (and, when data is
 * not NULL, the n bytes at data too, say a mapping of that file). output_fast has the
 * kernel copy them from file to file, so they never pass through this process's
 * memory and no page of a mapping at data is touched; where it cannot (another file
 * system, an old kernel), and always on output_plain, they are written from data, or
 * read from fd when data is NULL. A source file that ends early is the error ESTALE
 * (OSH_ERR_CHANGED): it changed since the caller looked. */
void out_copy(out_file *o, int fd, uint64_t off, const void *data, size_t n);

/* Ends the output o: everything written when `produced` (returns 0 or o->err), else
 * only the thread stopped (returns o->err). Either way the buffers are freed. */
int out_finish(out_file *o, bool produced);

/* For the implementations: n bytes of fd from off through o's buffer (ESTALE when
 * the file ends first); the buffer written from this thread (no advice); the small
 * first buffer replaced by the big one once OUT_GROW_AFTER bytes went through it. */
void out_pread(out_file *o, int fd, uint64_t off, size_t n);
void out_write_buffer(out_file *o);
void out_grow(out_file *o);

#endif
