/* arena.h: one bump allocator per model.
 *
 * Everything a model owns (the unpacked protobuf-c messages, the index, inferred
 * shapes, diagnostics, new nodes) is carved out of its arena; arena_free drops it all
 * at once, so no individual object is ever freed. The arena also serves as protobuf-c's
 * allocator (arena_protobuf_allocator) whose free does nothing.
 *
 * A budget caps the total bytes handed out: past it every allocation fails (returns
 * NULL) instead of the process dying of OOM, and arena_exhausted() says so. With
 * OSH_ARENA_MALLOC defined at build time every allocation is a separate malloc,
 * tracked in a list, so AddressSanitizer sees each object's bounds.
 */
#ifndef OSH_CORE_ARENA_H
#define OSH_CORE_ARENA_H

#include "onnxshape.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct arena arena;

/* budget: the most bytes the arena may hand out in total; 0 means no limit.
 * Returns NULL when even the arena header cannot be allocated. */
arena *arena_new(uint64_t budget);
/* The plain path (core/tuning.h): from now on no thread faults the arena's memory in
 * ahead, no chunk asks for huge pages, and arena_expect does nothing; chunks are
 * malloc'd and written by their owner alone. Call it before the first allocation. */
void arena_go_plain(arena *a);
void arena_free(arena *a);

/* Aligned to 8 bytes: enough for every type a model stores (no long double). Returns NULL (never aborts) when the budget or the system
 * refuses; n == 0 returns a valid unique pointer. */
void *arena_alloc(arena *a, size_t n);
void *arena_zalloc(arena *a, size_t n);
/* Overflow-checked n * size, zeroed. */
void *arena_array(arena *a, size_t n, size_t size);
/* arena_array for a table read and written in no order (a hash map's slots): its
 * pages are made writable before it is returned, unless they are huge pages. Fresh
 * memory read before it is written maps the kernel's shared zero page, and the write
 * after it is a copy-on-write fault whose TLB flush interrupts every core the
  * process runs on: for a table in 4 KB pages, one such interrupt per page, and
  * costly ones on a virtual machine. */
void *arena_array_scattered(arena *a, size_t n, size_t size);
char *arena_strdup(arena *a, const char *s);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_printf(arena *a, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* Grows an array allocated from this arena: returns a new block of new_n elements
 * holding the first old_n of *p (the old block is simply abandoned). */
void *arena_grow(arena *a, void *p, size_t old_n, size_t new_n, size_t size);

/* Advice: about `bytes` more are coming (the loader's estimate from the file's
 * outline). From 4 MB up, and within the budget, the next chunk is made that big at
 * once and made resident by the prefault thread a little ahead of the bump pointer
 * (from 32 MB up, with huge pages), instead of the arena growing to it by doubling
 * from 64 KB with every page faulted in by the caller. An estimate too high costs
 * address space, not memory; too low, the chunks after it grow as before. */
void arena_expect(arena *a, size_t bytes);

/* Advice: the caller is about to write [p, p + len), memory of this arena it has not
 * touched (the next rows of a table it fills in order): the prefault thread, when
 * there is one, makes it resident now (prefault.h: whole). A followed chunk's thread
 * leaves a table taken whole from it to its owner; this is how the owner asks for it
 * a little at a time, ahead of its writes, without raising its peak. */
void arena_will_write(arena *a, void *p, size_t len);

bool arena_exhausted(const arena *a);
/* The error for work on `path` that ran out of the arena's memory: over its budget
 * (OSH_ERR_LIMIT, saying the budget and how to raise it), or malloc failed
 * (OSH_ERR_NOMEM). `what` names the work: "the infer pass". */
osh_status arena_error(const arena *a, osh_error *err, const char *path, const char *what);
/* How a user raises the budget, for the end of any message about it. */
#define ARENA_BUDGET_HINT "(raise it with osh_load_options.memory_budget)"
uint64_t arena_used(const arena *a);
void arena_set_budget(arena *a, uint64_t budget);

/* A ProtobufCAllocator whose alloc is arena_alloc and whose free does nothing. The
 * returned object lives in the arena. Typed as void * so this header does not pull
 * in protobuf-c. */
void *arena_protobuf_allocator(arena *a);

#endif
