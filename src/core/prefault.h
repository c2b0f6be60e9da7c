/* prefault.h: a second thread that makes fresh memory resident ahead of its use.
 *
 * A model of a million nodes fills about a gigabyte of arena, and the kernel zeroes
 * every fresh page the first time it is written: on the virtual machines where these
 * tools run that took as long as all of onnxshape's own work. The arena hands each
 * big chunk to this thread, which faults it in (MADV_POPULATE_WRITE: resident and
 * writable, contents untouched) on another core while the loader fills the chunk.
 * Only an optimisation: where the call or the thread is not available, nothing
 * happens and the pages are faulted in as they are written, as before.
 */
#ifndef OSH_CORE_PREFAULT_H
#define OSH_CORE_PREFAULT_H

#include <stddef.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct prefault prefault;

/* `front`: where the owner is writing now (its bump pointer), which a followed
 * range is kept ahead of; it must outlive the prefault. NULL when no thread can be
 * started (the caller then goes without). */
prefault *prefault_new(const _Atomic uintptr_t *front);
/* Queues [start, start + len); never blocks, and a full queue drops the request.
 * `whole`: all of it (a block about to be written through); else a chunk the owner
 * fills from its start (`start` is where it writes next), made resident up to a
 * 32nd of its length (256 KB to 4 MB) ahead of `front` for as long as `front` is
 * inside it, so a chunk left half empty costs little; a stretch `front` jumps over
 * at once (a table filled row by row later) is left to the owner. The range must
 * stay mapped until prefault_free. */
void prefault_add(prefault *p, void *start, size_t len, bool whole);
/* Stops the thread (abandoning what it has not done) and joins it. */
void prefault_free(prefault *p);

#endif
