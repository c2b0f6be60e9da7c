/* test_arena.c: the per-model arena (core/arena.c) and the string map built on it
 * (core/strmap.c).
 *
 * The arena's promises: every pointer aligned to 8, zero-size requests give distinct
 * valid pointers, blocks never overlap however many chunks they span, a block bigger
 * than a chunk works, the budget is never exceeded and running into it returns NULL
 * and sets arena_exhausted instead of aborting, arena_array refuses n * size overflow,
 * arena_grow keeps the content. The map's: every key found with its value among 100k
 * keys, put keeps the first value and set overwrites, keys with the same full hash
 * still kept apart. The prefault thread's: a range it is given becomes resident
 * with what its owner wrote meanwhile intact, a chunk being filled is kept resident
 * ahead of its owner for as long as the owner fills it (and not where the owner
 * jumped past), stopping it does not wait for queued work, and a step in huge pages
 * slower than its limit switches what is left, and what comes after, to small pages. arena_expect's: the
 * expected bytes come from one chunk, which reads as zero where nothing was written,
 * without touching the budget or the exhausted flag when it cannot be had.
 */
#define _GNU_SOURCE /* mincore, madvise, MAP_ANONYMOUS, RUSAGE_THREAD */
#include "core/arena.h"
#include "core/prefault.h"
#include "core/strmap.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define ALIGN 8

static bool aligned(const void *p) { return ((uintptr_t)p & (ALIGN - 1)) == 0; }

Test(arena, alignment)
{
	arena *a = arena_new(0);
	cr_assert(a);
	for (size_t n = 0; n < 200; n++) {
		void *p = arena_alloc(a, n);
		cr_assert(p, "alloc %zu", n);
		cr_expect(aligned(p), "alloc %zu: %p not aligned to %d", n, p, ALIGN);
		memset(p, 0xab, n);
	}
	cr_expect(aligned(arena_strdup(a, "x")));
	cr_expect(aligned(arena_array(a, 3, 5)));
	cr_expect(aligned(arena_printf(a, "%d", 7)));
	cr_expect(!arena_exhausted(a));
	arena_free(a);
}

Test(arena, zero_size)
{
	arena *a = arena_new(0);
	void *p = arena_alloc(a, 0), *q = arena_alloc(a, 0);
	cr_assert(p && q);
	cr_expect_neq(p, q, "two zero-size blocks share an address");
	void *z = arena_zalloc(a, 0), *arr = arena_array(a, 0, 8), *arr2 = arena_array(a, 5, 0);
	cr_expect(z && arr && arr2);
	char *s = arena_strdup(a, "");
	cr_assert(s);
	cr_expect_str_eq(s, "");
	arena_free(a);
}

/* Many blocks over many chunks: each keeps its own bytes. */
Test(arena, many_allocations_do_not_overlap)
{
	arena *a = arena_new(0);
	enum { N = 20000 };
	unsigned char **ps = malloc(N * sizeof *ps);
	size_t *ns = malloc(N * sizeof *ns);
	cr_assert(ps && ns);
	size_t total = 0;
	for (size_t i = 0; i < N; i++) {
		ns[i] = (i * 37) % 301 + 1;
		ps[i] = arena_alloc(a, ns[i]);
		cr_assert(ps[i], "block %zu", i);
		memset(ps[i], (int)(i & 0xff), ns[i]);
		total += ns[i];
	}
	cr_assert_gt(total, 2 * 1024 * 1024, "spans several chunks (64 KiB, 128 KiB, ...)");
	for (size_t i = 0; i < N; i++)
		for (size_t k = 0; k < ns[i]; k++)
			cr_assert_eq(ps[i][k], (unsigned char)(i & 0xff), "block %zu byte %zu overwritten", i, k);
	cr_expect_geq(arena_used(a), total);
	free(ps);
	free(ns);
	arena_free(a);
}

/* A block larger than any chunk, then small blocks again, then another large one. */
Test(arena, large_allocations)
{
	arena *a = arena_new(0);
	unsigned char *small1 = arena_alloc(a, 100);
	size_t big = (size_t)80 << 20; /* over the 64 MiB chunk cap */
	unsigned char *b = arena_alloc(a, big);
	cr_assert(small1 && b);
	cr_expect(aligned(b));
	b[0] = 1, b[big - 1] = 2;
	unsigned char *small2 = arena_alloc(a, 100);
	cr_assert(small2);
	memset(small1, 3, 100), memset(small2, 4, 100);
	cr_expect(small2 + 100 <= b || small2 >= b + big, "a small block inside the big one");
	unsigned char *b2 = arena_alloc(a, (size_t)1 << 20);
	cr_assert(b2);
	memset(b2, 5, (size_t)1 << 20);
	cr_expect_eq(b[0], 1);
	cr_expect_eq(b[big - 1], 2);
	cr_expect_eq(small1[99], 3);
	cr_expect_eq(small2[0], 4);
	cr_expect_geq(arena_used(a), big + 200 + ((size_t)1 << 20));
	arena_free(a);
}

Test(arena, budget_exhaustion)
{
	const uint64_t budget = 10000;
	arena *a = arena_new(budget);
	cr_assert(a);
	size_t got = 0;
	for (int i = 0; i < 10000; i++) {
		void *p = arena_alloc(a, 100);
		if (!p)
			break;
		memset(p, 0, 100);
		got++;
		cr_assert_leq(arena_used(a), budget, "used %llu over the budget", (unsigned long long)arena_used(a));
	}
	cr_expect(arena_exhausted(a));
	cr_expect_gt(got, 50, "only %zu blocks of 100 bytes in a 10000-byte budget", got);
	cr_expect_leq(got, 100);
	cr_expect_leq(arena_used(a), budget);
	/* Once over, every further request fails, zero-size and strings too. */
	cr_expect_null(arena_alloc(a, 4096));
	cr_expect_null(arena_zalloc(a, 4096));
	cr_expect_null(arena_strdup(a, "this string does not fit in what is left of the budget, surely not"));
	cr_expect(arena_exhausted(a));
	/* A larger budget lets it go on. */
	arena_set_budget(a, budget * 2);
	cr_expect(arena_alloc(a, 100));
	arena_free(a);
}

Test(arena, request_larger_than_budget)
{
	arena *a = arena_new(1000);
	cr_expect_null(arena_alloc(a, 1001));
	cr_expect(arena_exhausted(a));
	cr_expect_eq(arena_used(a), 0);
	arena_free(a);
	a = arena_new(0);
	cr_expect_null(arena_alloc(a, SIZE_MAX));
	cr_expect_null(arena_alloc(a, SIZE_MAX - 8));
	cr_expect(arena_exhausted(a));
	arena_free(a);
}

Test(arena, array_overflow)
{
	arena *a = arena_new(0);
	cr_expect_null(arena_array(a, SIZE_MAX / 2 + 1, 2));
	cr_expect_null(arena_array(a, (SIZE_MAX >> 4) + 1, 16));
	cr_expect_null(arena_array(a, SIZE_MAX, SIZE_MAX));
	cr_expect(arena_exhausted(a));
	arena_free(a);
	a = arena_new(0);
	int *v = arena_array(a, 1000, sizeof *v);
	cr_assert(v);
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(v[i], 0, "arena_array is zeroed");
	cr_expect(!arena_exhausted(a));
	arena_free(a);
}

Test(arena, grow_keeps_content)
{
	arena *a = arena_new(0);
	int64_t *v = NULL;
	size_t cap = 0;
	for (size_t n = 0; n < 100000; n++) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 4;
			int64_t *w = arena_grow(a, v, cap, ncap, sizeof *w);
			cr_assert(w);
			for (size_t k = cap; k < ncap; k++)
				cr_assert_eq(w[k], 0, "grown part is zeroed");
			v = w, cap = ncap;
		}
		v[n] = (int64_t)n * 7 - 3;
	}
	for (size_t n = 0; n < 100000; n++)
		cr_assert_eq(v[n], (int64_t)n * 7 - 3, "element %zu lost", n);
	/* Shrinking keeps the prefix; growing NULL gives a fresh zeroed array. */
	int64_t *s = arena_grow(a, v, cap, 10, sizeof *s);
	cr_assert(s);
	for (size_t n = 0; n < 10; n++)
		cr_expect_eq(s[n], (int64_t)n * 7 - 3);
	int32_t *f = arena_grow(a, NULL, 0, 8, sizeof *f);
	cr_assert(f);
	cr_expect_eq(f[7], 0);
	cr_expect_null(arena_grow(a, v, cap, SIZE_MAX / 4, 8), "overflowing growth fails");
	arena_free(a);
}

Test(arena, strings)
{
	arena *a = arena_new(0);
	cr_expect_str_eq(arena_strndup(a, "abcdef", 3), "abc");
	cr_expect_str_eq(arena_printf(a, "%s-%d-%05.1f", "x", 42, 3.14159), "x-42-003.1");
	char big[5000];
	memset(big, 'q', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	char *p = arena_printf(a, "<%s>", big);
	cr_assert(p);
	cr_expect_eq(strlen(p), sizeof big + 1);
	cr_expect_eq(p[0], '<');
	cr_expect_eq(p[sizeof big], '>');
	arena_free(a);
	arena_free(NULL);
}

/* ---- strmap -------------------------------------------------------------------- */

Test(strmap, hundred_thousand_keys)
{
	arena *a = arena_new(0);
	strmap m;
	strmap_init(&m, a);
	cr_expect_eq(strmap_get(&m, "anything"), -1, "an empty map finds nothing");
	enum { N = 100000 };
	const char **keys = malloc(N * sizeof *keys);
	cr_assert(keys);
	for (int32_t i = 0; i < N; i++) {
		keys[i] = arena_printf(a, "value_%d/%x", i, (unsigned)i * 2654435761u);
		cr_assert(keys[i]);
		cr_assert_eq(strmap_put(&m, keys[i], i), i, "put %s", keys[i]);
	}
	cr_expect_eq(m.len, N);
	cr_expect_leq(m.len * 2, m.cap, "load factor over 1/2");
	for (int32_t i = 0; i < N; i++)
		cr_assert_eq(strmap_get(&m, keys[i]), i, "get %s", keys[i]);
	/* Lookups with a copy of the key (not the same pointer), and misses. */
	char buf[64];
	for (int32_t i = 0; i < N; i += 997) {
		snprintf(buf, sizeof buf, "value_%d/%x", i, (unsigned)i * 2654435761u);
		cr_expect_eq(strmap_get(&m, buf), i);
		snprintf(buf, sizeof buf, "value_%d/%x!", i, (unsigned)i * 2654435761u);
		cr_expect_eq(strmap_get(&m, buf), -1);
	}
	cr_expect_eq(strmap_get(&m, ""), -1);
	/* put keeps the first value, set overwrites. */
	cr_expect_eq(strmap_put(&m, keys[5], 77), 5);
	cr_expect_eq(strmap_get(&m, keys[5]), 5);
	cr_expect(strmap_set(&m, keys[5], 77));
	cr_expect_eq(strmap_get(&m, keys[5]), 77);
	cr_expect_eq(m.len, N, "overwriting adds nothing");
	free(keys);
	arena_free(a);
}

/* "w3266" and "wb202" collide in strmap_hash's 32 bits (found by search): same full
 * hash, so only the string comparison tells them apart. */
Test(strmap, full_hash_collision)
{
	cr_assert_eq(strmap_hash("w3266"), strmap_hash("wb202"), "not a collision: fix the test");
	cr_assert_eq(strmap_hash(""), strmap_hashn("xyz", 0));
	/* Every length through each of the hash's paths (word loop, 4-8 byte and 1-3
	 * byte tails): only the first len bytes count, and one byte more changes it. */
	static const char text[] = "/layers.17/self_attn/q_proj/MatMul_output_0";
	char prefix[sizeof text];
	for (size_t n = 0; n + 1 < sizeof text; n++) {
		memcpy(prefix, text, n);
		prefix[n] = '\0';
		cr_assert_eq(strmap_hash(prefix), strmap_hashn(text, n), "length %zu", n);
		cr_expect_neq(strmap_hashn(text, n), strmap_hashn(text, n + 1), "length %zu", n);
	}
	arena *a = arena_new(0);
	strmap m;
	strmap_init(&m, a);
	cr_expect_eq(strmap_put(&m, "w3266", 1), 1);
	cr_expect_eq(strmap_get(&m, "wb202"), -1);
	cr_expect_eq(strmap_put(&m, "wb202", 2), 2);
	cr_expect_eq(strmap_get(&m, "w3266"), 1);
	cr_expect_eq(strmap_get(&m, "wb202"), 2);
	cr_expect(strmap_set(&m, "wb202", 3));
	cr_expect_eq(strmap_get(&m, "w3266"), 1);
	cr_expect_eq(strmap_get(&m, "wb202"), 3);
	cr_expect_eq(m.len, 2);
	arena_free(a);
}

/* The map's own memory comes from the arena: with a small budget it reports -2 /
 * false instead of crashing, and what it holds stays findable. */
Test(strmap, out_of_budget)
{
	arena *a = arena_new(4096);
	strmap m;
	strmap_init(&m, a);
	static char names[1000][8];
	int32_t i, r = 0;
	for (i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof names[i], "k%d", i);
		r = strmap_put(&m, names[i], i);
		if (r == -2)
			break;
		cr_assert_eq(r, i);
	}
	cr_assert_eq(r, -2, "4096 bytes held 1000 keys");
	cr_expect(arena_exhausted(a));
	for (int32_t k = 0; k < i; k++)
		cr_expect_eq(strmap_get(&m, names[k]), k, "key %d lost after a failed growth", k);
	cr_expect(!strmap_set(&m, names[i], i));
	arena_free(a);
}

/* ---- prefault (core/prefault.c): big chunks made resident by a second thread ---- */

/* Pages of [p, p + len) that are resident. */
static size_t resident(void *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), k = 0;
	/* From the page p is on: mincore takes page-aligned addresses. */
	uintptr_t at = (uintptr_t)p & ~(uintptr_t)(page - 1);
	len += (uintptr_t)p - at;
	size_t n = (len + page - 1) / page;
	unsigned char *v = malloc(n);
	cr_assert(v);
	cr_assert_eq(mincore((void *)at, len, v), 0);
	for (size_t i = 0; i < n; i++)
		k += v[i] & 1;
	free(v);
	return k;
}

Test(prefault, range_becomes_resident_and_keeps_its_content)
{
	size_t len = (size_t)32 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(m != MAP_FAILED);
	madvise(m, len, MADV_NOHUGEPAGE); /* count 4 KB pages, not what THP would map */
	_Atomic uintptr_t front = 0;
	prefault *p = prefault_new(&front, PREFAULT_SLOW_HUGE_NS);
	cr_assert(p, "the thread could not start");
	/* The owner writes the first half while the thread works (from the end). */
	prefault_add(p, m, len, true, false);
	for (size_t i = 0; i < len / 2; i += page)
		m[i] = (unsigned char)(i / page);
	struct timespec pause = {0, 10 * 1000 * 1000};
	for (int tries = 0; tries < 500 && resident(m, len) < len / page; tries++)
		nanosleep(&pause, NULL);
	cr_expect_eq(resident(m, len), len / page, "the thread made %zu of %zu pages resident", resident(m, len),
		     len / page);
	for (size_t i = 0; i < len / 2; i += page)
		cr_assert_eq(m[i], (unsigned char)(i / page), "page %zu lost what the owner wrote", i / page);
	for (size_t i = len / 2; i < len; i += page)
		cr_assert_eq(m[i], 0, "page %zu is not zero", i / page);
	prefault_free(p);
	munmap(m, len);
}

Test(prefault, followed_chunk_stays_a_few_megabytes_ahead)
{
	/* A chunk the owner fills from its start: made resident ahead of the owner's
	 * front, but not far beyond it (a chunk left half empty must not cost all of
	 * its memory), and left alone once the front is elsewhere. */
	size_t len = (size_t)64 << 20, page = (size_t)sysconf(_SC_PAGESIZE), mb = (size_t)1 << 20;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(m != MAP_FAILED);
	madvise(m, len, MADV_NOHUGEPAGE);
	_Atomic uintptr_t front = (uintptr_t)(m + 8 * mb);
	prefault *p = prefault_new(&front, PREFAULT_SLOW_HUGE_NS);
	cr_assert(p);
	prefault_add(p, m, len, false, false);
	struct timespec pause = {0, 10 * 1000 * 1000};
	for (int tries = 0; tries < 500 && resident(m + 8 * mb, 2 * mb) < 2 * mb / page; tries++)
		nanosleep(&pause, NULL);
	cr_expect_eq(resident(m + 8 * mb, 2 * mb), 2 * mb / page, "the 2 MB past the front are not resident");
	nanosleep(&pause, NULL);
	cr_expect_eq(resident(m + 16 * mb, len - 16 * mb), 0, "pages 8 MB past the front were faulted in");
	/* The owner moves to another chunk: the rest of this one stays out. */
	atomic_store(&front, (uintptr_t)0);
	nanosleep(&pause, NULL);
	cr_expect_eq(resident(m + 16 * mb, len - 16 * mb), 0);
	prefault_free(p);
	munmap(m, len);
}

/* Waits (up to 2 s) for all of [p, p + len) to be resident. */
static bool becomes_resident(unsigned char *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct timespec pause = {0, 2 * 1000 * 1000};
	for (int tries = 0; tries < 1000; tries++) {
		uintptr_t at = (uintptr_t)p & ~(uintptr_t)(page - 1);
		if (resident(p, len) == (len + ((uintptr_t)p - at) + page - 1) / page)
			return true;
		nanosleep(&pause, NULL);
	}
	return false;
}

Test(prefault, followed_chunk_kept_ahead_as_the_front_moves_on)
{
	/* The thread keeps up with an owner that fills the chunk: once ahead of the
	 * front it goes on following (it used to take "ahead" for "moved on" and give
	 * the chunk up at its second look), from a start that is not page-aligned
	 * (the first allocation's end), and a stretch the front jumps over at once is
	 * left to the owner. */
	size_t len = (size_t)64 << 20, page = (size_t)sysconf(_SC_PAGESIZE), mb = (size_t)1 << 20;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(m != MAP_FAILED);
	madvise(m, len, MADV_NOHUGEPAGE);
	m[0] = 1; /* the owner's first allocation, on the page the chunk starts on */
	_Atomic uintptr_t front = (uintptr_t)(m + 40);
	prefault *p = prefault_new(&front, PREFAULT_SLOW_HUGE_NS);
	cr_assert(p);
	prefault_add(p, m + 40, len - 40, false, false);
	cr_expect(becomes_resident(m, mb), "the first megabyte past the front is not resident");
	/* The owner fills on, a megabyte at a time, each step after the thread is ahead. */
	for (size_t at = 1; at <= 6; at++) {
		atomic_store(&front, (uintptr_t)(m + at * mb));
		cr_expect(becomes_resident(m + at * mb, mb), "the megabyte past a front at %zu MB is not resident",
			  at);
	}
	/* A jump: the stretch jumped over is not the thread's to fault in. */
	atomic_store(&front, (uintptr_t)(m + 40 * mb));
	cr_expect(becomes_resident(m + 40 * mb, mb), "the megabyte past a front at 40 MB is not resident");
	cr_expect_lt(resident(m + 12 * mb, 26 * mb), 26 * mb / page / 4,
		     "%zu pages of the 26 MB jumped over were faulted in", resident(m + 12 * mb, 26 * mb));
	prefault_free(p);
	munmap(m, len);
}

/* Whether the mapping holding address p has flag `flag` ("hg": huge pages advised,
 * "nh": advised against) in /proc/self/smaps. */
static bool vma_has_flag(const void *p, const char *flag)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	cr_assert(f);
	char line[512];
	bool inside = false, found = false;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (inside && !strncmp(line, "VmFlags:", 8)) {
			for (char *t = strtok(line + 8, " \n"); t; t = strtok(NULL, " \n"))
				found |= !strcmp(t, flag);
			break;
		}
	}
	fclose(f);
	return found;
}

/* 16 MB on a huge-page boundary, advised huge pages; skips where there are none. */
static unsigned char *huge_region(size_t len, void **map, size_t *map_len)
{
	size_t huge = (size_t)2 << 20;
	*map_len = len + huge;
	*map = mmap(NULL, *map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(*map != MAP_FAILED);
	unsigned char *m = (unsigned char *)(((uintptr_t)*map + huge - 1) & ~(uintptr_t)(huge - 1));
	if (madvise(m, len, MADV_HUGEPAGE) != 0)
		cr_skip_test("no transparent huge pages here");
	return m;
}

Test(prefault, slow_huge_pages_switch_what_is_left_to_small_pages)
{
	/* With every step "slow" (a limit of 0 ns), the second step in huge pages
	 * switches the rest of its range, and a range queued after, to small pages;
	 * the owner is told. */
	size_t len = (size_t)16 << 20, map_len, huge = (size_t)2 << 20;
	void *map;
	unsigned char *m = huge_region(len, &map, &map_len);
	_Atomic uintptr_t front = 0;
	prefault *p = prefault_new(&front, 0);
	cr_assert(p);
	cr_expect(!prefault_huge_slow(p), "slow before a step was made");
	prefault_add(p, m, len / 2, true, true);
	cr_expect(becomes_resident(m, len / 2));
	cr_expect(prefault_huge_slow(p));
	/* A whole range is done from its end, a huge page a step: its last two were
	 * made in huge pages; what was left then, in small ones. */
	cr_expect(vma_has_flag(m + len / 2 - 1, "hg"), "the first step's huge page lost its advice");
	cr_expect(vma_has_flag(m + len / 2 - huge - 1, "hg"), "switched after one slow step");
	cr_expect(vma_has_flag(m, "nh"), "the rest of the range kept huge pages");
	cr_expect(vma_has_flag(m + len / 2 - 2 * huge - 1, "nh"));
	/* Queued after the switch: small pages from the start. */
	prefault_add(p, m + len / 2, len / 2, true, true);
	cr_expect(becomes_resident(m + len / 2, len / 2));
	cr_expect(vma_has_flag(m + len - 1, "nh"), "a range queued after the switch kept huge pages");
	for (size_t i = 0; i < len; i += 4096)
		cr_assert_eq(m[i], 0, "byte %zu is not zero", i);
	prefault_free(p);
	munmap(map, map_len);
}

/* Has a thread with limit slow_ns make [m, m + len) resident (advised huge pages or
 * not); returns whether it found huge pages slow. */
static bool slow_after_populating(unsigned char *m, size_t len, uint64_t slow_ns, bool huge)
{
	_Atomic uintptr_t front = 0;
	prefault *p = prefault_new(&front, slow_ns);
	cr_assert(p);
	prefault_add(p, m, len, true, huge);
	cr_expect(becomes_resident(m, len));
	bool slow = prefault_huge_slow(p);
	prefault_free(p);
	return slow;
}

Test(prefault, fast_huge_pages_kept)
{
	/* No step is slower than the limit: the advice stays as the owner gave it. */
	size_t len = (size_t)8 << 20, map_len;
	void *map;
	unsigned char *m = huge_region(len, &map, &map_len);
	cr_expect(!slow_after_populating(m, len, UINT64_MAX, true));
	cr_expect(vma_has_flag(m, "hg") && !vma_has_flag(m, "nh"));
	munmap(map, map_len);
}

Test(prefault, ranges_not_in_huge_pages_never_switch)
{
	/* Small pages are never timed: even at a limit of 0 ns nothing switches. */
	size_t len = (size_t)8 << 20;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(m != MAP_FAILED);
	cr_expect(!slow_after_populating(m, len, 0, false));
	munmap(m, len);
}

Test(prefault, freed_at_once_with_work_queued)
{
	/* Stopping must not wait for queued work, nor touch a range after the join. */
	size_t len = (size_t)64 << 20;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(m != MAP_FAILED);
	_Atomic uintptr_t front = (uintptr_t)m;
	prefault *p = prefault_new(&front, PREFAULT_SLOW_HUGE_NS);
	cr_assert(p);
	for (int k = 0; k < 100; k++) /* more than the queue holds: the rest is dropped */
		prefault_add(p, m, len, k % 2, k % 3 == 0);
	prefault_free(p);
	munmap(m, len);
	prefault_free(NULL);
	prefault_add(NULL, m, len, true, true);
	cr_expect(!prefault_huge_slow(NULL));
}

Test(arena, big_chunks_prefaulted_and_freed)
{
	/* Chunks of 4 MB and more go to the prefault thread; the blocks keep their
	 * content, and arena_free joins the thread before freeing them. */
	arena *a = arena_new(0);
	cr_assert(a);
	unsigned char *blocks[6];
	size_t sizes[6] = {(size_t)5 << 20, (size_t)9 << 20, 100, (size_t)17 << 20, 1000, (size_t)33 << 20};
	for (int i = 0; i < 6; i++) {
		blocks[i] = arena_alloc(a, sizes[i]);
		cr_assert(blocks[i]);
		memset(blocks[i], 'a' + i, sizes[i]);
	}
	for (int i = 0; i < 6; i++)
		for (size_t k = 0; k < sizes[i]; k += 4093)
			cr_assert_eq(blocks[i][k], 'a' + i, "block %d byte %zu", i, k);
	arena_free(a);
}

#ifndef OSH_ARENA_MALLOC /* each allocation a malloc of its own: there are no chunks */
Test(arena, expected_bytes_come_from_one_chunk)
{
	/* After arena_expect, what was expected is carved from one block in a row
	 * (without it, the arena grows from 64 KB chunks); past it, chunks go on. */
	arena *a = arena_new(0);
	cr_assert(a);
	arena_expect(a, (size_t)8 << 20);
	unsigned char *first = arena_alloc(a, 1000), *prev = first;
	cr_assert(first);
	memset(first, 0xAB, 1000);
	for (int i = 1; i < 8000; i++) { /* 8 MB */
		unsigned char *b = arena_alloc(a, 1000);
		cr_assert(b);
		cr_assert_eq(b, prev + 1000, "block %d is not right after the one before", i);
		memset(b, i & 0xFF, 1000);
		prev = b;
	}
	/* Past the estimate: more chunks, nothing lost. */
	unsigned char *more[2000];
	for (int i = 0; i < 2000; i++) {
		more[i] = arena_alloc(a, 1000);
		cr_assert(more[i]);
		memset(more[i], (i * 7) & 0xFF, 1000);
	}
	cr_assert_eq(first[999], 0xAB);
	for (int i = 0; i < 2000; i++)
		cr_assert_eq(more[i][500], (i * 7) & 0xFF, "block %d past the estimate", i);
	cr_assert_not(arena_exhausted(a));
	arena_free(a);
}

Test(arena, expected_chunk_is_zero_and_tables_made_resident_on_request)
{
	/* The expected chunk is mapped, so arena_zalloc hands out its never-used bytes
	 * without clearing them: they must read as zero however the bytes before them
	 * were written. A table cut from it is left to the caller by the thread that
	 * follows the chunk, until arena_will_write asks for it. */
	arena *a = arena_new(0);
	cr_assert(a);
	arena_expect(a, (size_t)8 << 20);
	unsigned char *head = arena_alloc(a, 100000);
	cr_assert(head);
	memset(head, 0xFF, 100000);
	size_t len = (size_t)2 << 20;
	unsigned char *table = arena_zalloc(a, len);
	cr_assert(table);
	for (size_t i = 0; i < len; i += 997)
		cr_assert_eq(table[i], 0, "byte %zu of a zeroed block is %d", i, table[i]);
	cr_assert_eq(table[len - 1], 0);
	unsigned char *rows = arena_alloc(a, len);
	cr_assert(rows);
	arena_will_write(a, rows, len);
	cr_expect(becomes_resident(rows, len), "the rows asked for are not resident");
	memset(rows, 7, len);
	unsigned char *more = arena_zalloc(a, 3000);
	cr_assert(more);
	for (size_t i = 0; i < 3000; i++)
		cr_assert_eq(more[i], 0);
	cr_assert_eq(head[99999], 0xFF);
	arena_free(a);
}

static long minor_faults(void)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

Test(arena, scattered_table_is_writable_at_once)
{
	/* A hash map's slots are probed (read) before they are written, in no order:
	 * fresh pages read first would map the zero page, and each write after it
	 * fault again (a copy on write and a TLB flush on every core). From a chunk in
	 * 4 KB pages the table comes resident and writable: reading then writing
	 * every page of it, from its start, faults nowhere. */
	arena *a = arena_new(0);
	cr_assert(a);
	arena_expect(a, (size_t)16 << 20); /* below huge pages' 32 MB */
	cr_assert(arena_alloc(a, 1000));
	size_t n = ((size_t)4 << 20) / 16;
	unsigned char *t = arena_array_scattered(a, n, 16);
	cr_assert(t);
	long page = sysconf(_SC_PAGESIZE), sum = 0;
	long before = minor_faults();
	for (size_t i = 0; i < n * 16; i += (size_t)page) {
		sum += t[i];
		t[i] = 1;
	}
	long faults = minor_faults() - before;
	cr_expect_eq(sum, 0, "the table is not zero");
	cr_expect_leq(faults, 4, "%ld faults on %zu pages", faults, n * 16 / (size_t)page);
	/* Not from a fresh chunk: zeroed over what was written before. */
	arena_free(a);
	a = arena_new(0);
	cr_assert(a);
	unsigned char *used = arena_alloc(a, 1 << 16);
	cr_assert(used);
	memset(used, 0xEE, 1 << 16);
	arena_free(a);
	a = arena_new(0);
	cr_assert(a);
	unsigned char *small = arena_array_scattered(a, 1000, 16);
	cr_assert(small);
	for (size_t i = 0; i < 16000; i++)
		cr_assert_eq(small[i], 0);
	cr_assert_null(arena_array_scattered(a, SIZE_MAX / 8, 16), "n * size overflows");
	arena_free(a);
}

Test(arena, expect_is_advice_only)
{
	/* Below 4 MB, or beyond the budget, nothing happens: the allocations keep
	 * their limits, and a refused estimate does not mark the arena exhausted. */
	arena *a = arena_new((uint64_t)6 << 20);
	cr_assert(a);
	arena_expect(a, (size_t)8 << 20); /* more than the budget */
	cr_assert_not(arena_exhausted(a));
	arena_expect(a, (size_t)1 << 20); /* too small to be worth a thread */
	arena_expect(a, SIZE_MAX);
	cr_assert_not(arena_exhausted(a));
	size_t got = 0;
	while (arena_alloc(a, 4096))
		got += 4096;
	cr_assert(arena_exhausted(a));
	cr_assert_leq(got, (size_t)6 << 20);
	cr_assert_geq(got, ((size_t)6 << 20) - 4096);
	arena_free(a);
	/* An estimate that fits the budget is taken, and the budget still holds. */
	a = arena_new((uint64_t)16 << 20);
	cr_assert(a);
	arena_expect(a, (size_t)8 << 20);
	got = 0;
	while (arena_alloc(a, 100000))
		got += 100000;
	cr_assert_leq(got, (size_t)16 << 20);
	cr_assert_geq(got, ((size_t)16 << 20) - 200000);
	arena_free(a);
}
#endif
