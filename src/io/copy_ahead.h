/* copy_ahead.h: a thread that copies a stretch of one file into an output file
 * before the output's content is produced, so that the producer can skip those bytes
 * (out_pre, output_fast). emit/write_ahead.c decides what to copy and where; this is
 * the device that copies.
 */
#ifndef OSH_IO_COPY_AHEAD_H
#define OSH_IO_COPY_AHEAD_H

#include "io/output.h"

#include <stdbool.h>

typedef struct copy_ahead copy_ahead;

/* Starts copying pre->len bytes of file pre->fd from pre->src_off to pre->dst_off of
 * file `to` through io, the kernel copying file to file (the blocks of `to` up to the
 * end of the stretch reserved first). NULL when no thread could be had: nothing is
 * copied. The caller keeps both descriptors open until copy_ahead_end. */
copy_ahead *copy_ahead_start(const sys_io *io, int to, const out_pre *pre);

/* Ends the copy, at once when `cancel` (else once it is done), and frees c: whether
 * every byte of the stretch was copied. NULL is fine: false. */
bool copy_ahead_end(copy_ahead *c, bool cancel);

#endif
