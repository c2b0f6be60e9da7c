/* prefault.h: a second thread that makes fresh memory resident ahead of its use.
 *
 * A model of a million nodes fills about a gigabyte of arena, and the kernel zeroes
 * every fresh page the first time it is written, which on a virtual machine can cost
 * as much as all of onnxshape's own work. The arena hands each
 * big chunk to this thread, which faults it in (MADV_POPULATE_WRITE: resident and
 * writable, contents untouched) on another core while the loader fills the chunk.
 * Only an optimisation: where the call or the thread is not available, nothing
 * happens and the pages are faulted in as they are written.
 */
#ifndef OSH_CORE_PREFAULT_H
#define OSH_CORE_PREFAULT_H

#include "core/tuning.h" /* PREFAULT_SLOW_HUGE_NS */

#include <stddef.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct prefault prefault;

/* Huge pages are not always the cheaper kind. Where the host takes free memory back
 * (a virtual machine with free page reporting: free memory is handed back in 2 MB
 * blocks, and a huge page is exactly such a block), the first touch of a huge page
 * after the machine was idle for a few seconds costs the host's own fault too, many
 * times a huge page's usual cost, while 4 KB pages mostly come from memory the guest
 * still has. So the thread times each step it makes in huge pages; once enough of
 * them were slower than `slow_ns` (CPU time, between the two cases; how many:
 * prefault.c), what is left of its ranges, and every range after, goes to small
 * pages, and prefault_huge_slow tells the owner to stop asking for them
 * (PREFAULT_SLOW_HUGE_NS, core/tuning.h, is the library's `slow_ns`). */

/* `front`: where the owner is writing now (its bump pointer), which a followed
 * range is kept ahead of; it must outlive the prefault. `slow_ns`: see above
 * (PREFAULT_SLOW_HUGE_NS; tests pass their own). NULL when no thread can be started
 * (the caller then goes without). */
prefault *prefault_new(const _Atomic uintptr_t *front, uint64_t slow_ns);
/* Queues [start, start + len); never blocks, and a full queue drops the request.
 * `whole`: all of it (a block about to be written through); else a chunk the owner
 * fills from its start (`start` is where it writes next), made resident up to a
 * 32nd of its length (256 KB to 4 MB) ahead of `front` for as long as `front` is
 * inside it, so a chunk left half empty costs little; a stretch `front` jumps over
 * at once (a table filled row by row later) is left to the owner. `huge`: the range
 * was advised huge pages (MADV_HUGEPAGE), which the thread may take back (see
 * above). The range must stay mapped until prefault_free. */
void prefault_add(prefault *p, void *start, size_t len, bool whole, bool huge);
/* Whether a step in huge pages was slow: new memory should not ask for them. False
 * for NULL. */
bool prefault_huge_slow(const prefault *p);
/* Stops the thread (abandoning what it has not done) and joins it. */
void prefault_free(prefault *p);

#endif
