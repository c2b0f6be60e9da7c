/* input_release.h: giving the input mapping's pages back on another thread.
 *
 * The index reads the weights' headers once more after the pre-scan, and the fast
 * input (input_fast.c) drops the pages behind it as it is told the reader passed
 * them, so that a 1 GB model does not keep a gigabyte of its file mapped. Dropping a
 * page costs the kernel as much as faulting it in (its table entry, its reverse map,
 * its cgroup's count): done by the loading thread itself, that was a noticeable part of `check` on big models. A thread of its own
 * does it meanwhile. Only an optimisation: where no thread starts, the caller drops
 * the pages itself.
 */
#ifndef OSH_IO_INPUT_RELEASE_H
#define OSH_IO_INPUT_RELEASE_H

#include "core/tuning.h" /* RELEASE_LAG */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct releaser releaser;

/* A thread that drops pages of [map, map + size), a private mapping of a file that is
 * never written (a dropped page comes back from the page cache when read again, so
 * dropping one still in use costs time, never data). NULL when none can start. */
releaser *releaser_new(uint8_t *map, size_t size);

/* Asks for [from, upto) (page-aligned offsets) to be dropped; never waits. Requests
 * not yet served are merged into the range that covers them all. Returns false,
 * asking nothing, when that range would hold more than RELEASE_LAG bytes: the caller
 * drops the pages itself, so that memory stays bounded when the thread gets no
 * core. */
bool releaser_drop(releaser *r, size_t from, size_t upto);

/* Stops the thread (abandoning what it has not done: the mapping is about to go
 * anyway) and joins it. NULL is a no-op. */
void releaser_free(releaser *r);

#endif
