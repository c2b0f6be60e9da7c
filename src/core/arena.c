/* arena.c: the per-model bump allocator (see arena.h).
 *
 * Invariant: every pointer returned is aligned to ARENA_ALIGN and stays valid until
 * arena_free; `used` never exceeds `budget` when a budget is set. Chunks grow
 * geometrically so a model of any size needs O(log n) mallocs, and a request larger
 * than a chunk gets a chunk of its own so big protobuf bytes fields waste nothing.
 */
#define _GNU_SOURCE /* madvise, MADV_POPULATE_WRITE */
#include "core/arena.h"
#include "core/error.h"
#include "core/prefault.h"
#include "core/tuning.h"

#include <protobuf-c/protobuf-c.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 8: the strictest alignment of anything a model stores (int64, double, pointers).
 * max_align_t's 16 serves long double, which nothing here uses, and would cost an
 * average of 8 bytes on each of the millions of small strings protobuf-c allocates. */
#define ARENA_ALIGN 8

typedef struct chunk {
	struct chunk *next;
	size_t size; /* usable bytes after the header */
	size_t off;
	/* Mapped by the arena itself (munmap'd, not freed): the bytes past `off` are the
	 * kernel's fresh zero pages, never handed out, so arena_zalloc need not clear
	 * them. */
	bool mapped;
	bool huge; /* advised huge pages */
	/* The header is padded to ARENA_ALIGN so data starts aligned. */
	_Alignas(ARENA_ALIGN) unsigned char data[];
} chunk;

struct arena {
	chunk *head;
	prefault *pf; /* started with the first big chunk; NULL before, or without one */
	_Atomic uintptr_t front; /* the head chunk's next free byte, for pf to keep ahead of */
	size_t next_size;
	uint64_t used;
	uint64_t budget;
	bool exhausted;
	bool over_budget; /* exhausted by the budget, not by malloc */
	bool plain;       /* arena_go_plain: no prefault thread, no huge pages */
	ProtobufCAllocator pb;
};

static void *pb_alloc(void *data, size_t n) { return arena_alloc(data, n); }
/* Freed with the arena; protobuf-c's own frees (on unpack errors) must not touch it. */
static void pb_free(void *data, void *p) { (void)data, (void)p; }

arena *arena_new(uint64_t budget)
{
	arena *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->next_size = CHUNK_MIN;
	a->budget = budget;
	a->pb.alloc = pb_alloc;
	a->pb.free = pb_free;
	a->pb.allocator_data = a;
	return a;
}

void arena_go_plain(arena *a) { a->plain = true; }

void arena_free(arena *a)
{
	if (!a)
		return;
	prefault_free(a->pf); /* joined before the chunks it may still be touching go */
	for (chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		if (c->mapped)
			munmap(c, sizeof(chunk) + c->size);
		else
			free(c);
	}
	free(a);
}

static bool charge(arena *a, size_t n)
{
	if (a->budget && (n > a->budget || a->used > a->budget - n)) {
		a->exhausted = a->over_budget = true;
		return false;
	}
	a->used += n;
	return true;
}

#ifdef OSH_ARENA_MALLOC
/* Debug mode: each allocation is its own malloc, chained for arena_free. */
void *arena_alloc(arena *a, size_t n)
{
	if (n > SIZE_MAX - sizeof(chunk) || !charge(a, n)) {
		a->exhausted = true;
		return NULL;
	}
	chunk *c = malloc(sizeof(chunk) + (n ? n : 1));
	if (!c) {
		a->exhausted = true;
		return NULL;
	}
	c->size = n;
	c->off = n;
	c->mapped = false;
	c->huge = false;
	c->next = a->head;
	a->head = c;
	return c->data;
}

void arena_expect(arena *a, size_t bytes) { (void)a, (void)bytes; }
void arena_will_write(arena *a, void *p, size_t len) { (void)a, (void)p, (void)len; }
#else
/* Big chunks ask for transparent huge pages (where the system grants them on
 * request): a model of a million nodes fills gigabytes of chunks, and with 4 KB pages
 * the kernel spent more time faulting them in than we spent filling them. Unless the
 * prefault thread found them slow here (the host faulting each one in too, see
 * prefault.h): then new chunks keep 4 KB pages. */
#define HUGE_PAGE ((size_t)2 << 20)
/* An expected chunk smaller than EXPECT_HUGE keeps 4 KB pages: the index fills several
 * tables of it at once, and each one's huge page was resident in full at its first
 * row, while the input's own pages still were, which raised the peak. From there up
 * the rounding is a few percent, and huge pages are what lets the thread keep ahead. */

static void advise_huge(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	uintptr_t end = ((uintptr_t)p + size) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE); /* advice: failure is harmless */
#else
	(void)p, (void)size;
#endif
}

/* The head chunk when p lies in it, else NULL. */
static const chunk *head_holding(const arena *a, const void *p)
{
	const chunk *c = a->head;
	return c && (const unsigned char *)p >= c->data && (const unsigned char *)p < c->data + c->size ? c : NULL;
}

/* A new chunk of `size` bytes (at least `need`), or a block of its own for need
 * bytes, already rounded. `follow`: the prefault thread keeps ahead of the chunk as
 * it fills, whatever its size. */
static void *alloc_chunk(arena *a, size_t need, size_t size, bool follow)
{
	chunk *c = a->head;
	if (!charge(a, need))
		return NULL;
	if (size > SIZE_MAX - sizeof(chunk)) {
		a->exhausted = true;
		return NULL;
	}
	/* A followed chunk (the expected one) is mapped here, so that it is known to be
	 * zero (see chunk.mapped). */
	chunk *fresh = NULL;
	if (follow) {
		void *map = mmap(NULL, sizeof(chunk) + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		fresh = map == MAP_FAILED ? NULL : map;
	} else {
		fresh = malloc(sizeof(chunk) + size);
	}
	if (!fresh) {
		a->exhausted = true;
		return NULL;
	}
	fresh->mapped = follow;
	bool huge = !a->plain && (follow ? size >= EXPECT_HUGE : size >= 2 * HUGE_PAGE) && !prefault_huge_slow(a->pf);
	if (huge)
		advise_huge(fresh->data, size);
	fresh->huge = huge;
	fresh->size = size;
	fresh->off = need;
	bool oversized = c && need > a->next_size;
	if (oversized) {
		/* An oversized block: keep bump-allocating from the current chunk. */
		fresh->next = c->next;
		c->next = fresh;
	} else {
		fresh->next = c;
		a->head = fresh;
		if (a->next_size < CHUNK_MAX)
			a->next_size *= 2;
		atomic_store_explicit(&a->front, (uintptr_t)(fresh->data + need), memory_order_relaxed);
	}
	/* A block of its own is written through at once (a table zeroed, bytes
	 * copied): all of it is faulted in. A chunk is followed as it fills, from
	 * PREFAULT_CHUNK up, so that smaller models, whose last chunk is a good part of
	 * their memory, never pay for an empty end of it. */
	if (!a->plain && (oversized ? size >= 2 * HUGE_PAGE : (follow || size >= PREFAULT_CHUNK))) {
		if (!a->pf)
			a->pf = prefault_new(&a->front, PREFAULT_SLOW_HUGE_NS);
		prefault_add(a->pf, oversized ? fresh->data : fresh->data + need, oversized ? size : size - need,
			     oversized, huge);
	}
	return fresh->data;
}

/* arena_alloc's slow path, kept out of line so that the common bump is a leaf that
 * saves no registers: it runs on every node and name. */
static __attribute__((noinline)) void *alloc_fresh(arena *a, size_t need)
{
	return alloc_chunk(a, need, need > a->next_size ? need : a->next_size, false);
}

/* Below EXPECT_MIN, a model's arena fills faster than a thread starts and keeps
 * ahead (a 1k-node model's is about a megabyte). */
void arena_expect(arena *a, size_t bytes)
{
	if (a->plain || bytes < EXPECT_MIN || bytes <= a->next_size || bytes > SIZE_MAX / 2 ||
	    (a->budget && bytes > a->budget - a->used))
		return;
	size_t size = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	/* The chunk's first bytes are the caller's next allocation; chunks after it
	 * (an estimate that was short) go on from the size they had reached. */
	size_t next = a->next_size;
	bool exhausted = a->exhausted;
	a->next_size = size;
	alloc_chunk(a, ARENA_ALIGN, size, true);
	a->exhausted = exhausted; /* only advice: a chunk refused here is no verdict */
	a->next_size = next;
}

void arena_will_write(arena *a, void *p, size_t len)
{
	const chunk *c = head_holding(a, p);
	bool huge = c && c->huge;
	if (a->pf && len)
		prefault_add(a->pf, p, len, true, huge && !prefault_huge_slow(a->pf));
}

void *arena_alloc(arena *a, size_t n)
{
	/* n == 0 takes ARENA_ALIGN bytes so that the pointer is unique; n within
	 * ARENA_ALIGN of SIZE_MAX wraps to 0 and is refused. Over the budget, the slow
	 * path's charge refuses and says so. */
	size_t need = n ? (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1) : ARENA_ALIGN;
	if (need < n) {
		a->exhausted = true;
		return NULL;
	}
	chunk *c = a->head;
	if (c && c->size - c->off >= need && (!a->budget || (need <= a->budget && a->used <= a->budget - need))) {
		a->used += need;
		void *p = c->data + c->off;
		c->off += need;
		/* A plain store on the machines we run on; read by the prefault thread. */
		atomic_store_explicit(&a->front, (uintptr_t)(c->data + c->off), memory_order_relaxed);
		return p;
	}
	return alloc_fresh(a, need);
}
#endif

#ifndef OSH_ARENA_MALLOC
/* A table of ZERO_AHEAD_MIN bytes or more, cut from a mapped chunk (already zero), is
 * faulted in by the prefault thread while its owner starts filling it, instead of
 * zeroed (and so faulted in) by the owner first: a value map's slots, a megabyte at
 * 10k nodes. */

/* p was just cut from the head chunk, and the head chunk is one of those mapped. */
static bool fresh_zero(const arena *a, const void *p)
{
	const chunk *c = head_holding(a, p);
	return c && c->mapped;
}
#endif

#ifndef OSH_ARENA_MALLOC
/* Makes [p, p + n) resident and writable on this thread: false where the call is
 * not supported (the caller then writes it). Whole pages: populating a page leaves
 * its contents as they are, whoever else's bytes share it. */
static bool populate_now(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	return madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0;
#else
	(void)p, (void)n;
	return false;
#endif
}
#endif

/* n zeroed bytes. `scattered`: a table read and written in no order (arena.h,
 * arena_array_scattered). */
static void *zeroed(arena *a, size_t n, bool scattered)
{
	void *p = arena_alloc(a, n);
	if (!p)
		return NULL;
#ifndef OSH_ARENA_MALLOC
	if (fresh_zero(a, p)) {
		/* Faulted in by the prefault thread, not cleared here; but a scattered
		 * table in 4 KB pages is made writable before it is read. In huge pages a
		 * table takes few of them, each cleared once whichever way. */
		bool small_pages = !a->head->huge || prefault_huge_slow(a->pf);
		if (!(scattered && small_pages)) {
			if (n >= ZERO_AHEAD_MIN)
				arena_will_write(a, p, n);
			return p;
		}
		if (populate_now(p, n))
			return p;
	}
#else
	(void)scattered;
#endif
	memset(p, 0, n);
	return p;
}

void *arena_zalloc(arena *a, size_t n) { return zeroed(a, n, false); }

/* n * size in *bytes; false (and the arena exhausted) when it overflows. */
static bool array_bytes(arena *a, size_t n, size_t size, size_t *bytes)
{
	if (size && n > SIZE_MAX / size) {
		a->exhausted = true;
		return false;
	}
	*bytes = n * size;
	return true;
}

void *arena_array(arena *a, size_t n, size_t size)
{
	size_t bytes;
	return array_bytes(a, n, size, &bytes) ? zeroed(a, bytes, false) : NULL;
}

void *arena_array_scattered(arena *a, size_t n, size_t size)
{
	size_t bytes;
	return array_bytes(a, n, size, &bytes) ? zeroed(a, bytes, true) : NULL;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *p = arena_alloc(a, n + 1);
	if (p) {
		if (n) /* s may be NULL for an empty protobuf bytes field */
			memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *p = arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void *arena_grow(arena *a, void *p, size_t old_n, size_t new_n, size_t size)
{
	size_t bytes;
	unsigned char *q = array_bytes(a, new_n, size, &bytes) ? arena_alloc(a, bytes) : NULL;
	if (!q)
		return NULL;
	/* Only the new tail is zeroed: the rest is overwritten by the copy. */
	size_t keep = p ? (old_n < new_n ? old_n : new_n) * size : 0;
	if (keep)
		memcpy(q, p, keep);
	memset(q + keep, 0, bytes - keep);
	return q;
}

bool arena_exhausted(const arena *a) { return a->exhausted; }

osh_status arena_error(const arena *a, osh_error *err, const char *path, const char *what)
{
	if (a->over_budget)
		return error_set(err, OSH_ERR_LIMIT,
			    "%s: %s needs more than the memory budget of %llu bytes " ARENA_BUDGET_HINT,
			    path, what, (unsigned long long)a->budget);
	return error_set(err, OSH_ERR_NOMEM, "%s: out of memory in %s", path, what);
}
uint64_t arena_used(const arena *a) { return a->used; }
void arena_set_budget(arena *a, uint64_t budget) { a->budget = budget; }
void *arena_protobuf_allocator(arena *a) { return &a->pb; }
