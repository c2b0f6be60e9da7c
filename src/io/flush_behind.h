/* flush_behind.h: a thread that writes an output's full buffers while its owner fills
 * the next one.
 *
  * Why: what `infer` packs itself (the value_info of every value: tens of megabytes
  * for a million-node model) was packed and then written by one thread, and the write
  * system calls, a copy into the page cache, were a good part of that tail; the other core
 * is idle by then. The owner hands a full buffer over and gets an empty one back at
 * once, unless the thread is still writing the one before (two buffers in all).
 *
 * The thread writes at the file's position, so the owner must not move it, copy into
 * the file or close it before flush_behind_drain returns. The first error sticks and
 * is returned by drain; later buffers are dropped.
 */
#ifndef OSH_IO_FLUSH_BEHIND_H
#define OSH_IO_FLUSH_BEHIND_H

#include "io/sys_io.h"

#include <stddef.h>

typedef struct flush_behind flush_behind;

/* A thread writing to fd through io, with a spare buffer of `cap` bytes. NULL when
 * either cannot be had (the owner then writes itself). */
flush_behind *flush_behind_new(const sys_io *io, int fd, size_t cap);
/* Hands buf[0, len) over, to be written after everything handed over before, and
 * returns an empty buffer of the same capacity for the owner to fill next (the one
 * handed over before this one, once it is written). */
unsigned char *flush_behind_hand(flush_behind *f, unsigned char *buf, size_t len);
/* Waits until everything handed over is written: 0, or the errno of the first
 * failure. */
int flush_behind_drain(flush_behind *f);
/* Drains, stops the thread and frees the buffer it holds. NULL is fine. */
void flush_behind_free(flush_behind *f);

#endif
