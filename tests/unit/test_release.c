/* test_release.c: io/input_release.c, the thread that gives the input's pages back.
 *
 * Pages it is asked to drop leave this process's resident set and come back, with
 * the same bytes, when read again; a request that would leave it more than
 * RELEASE_LAG behind is refused (the caller drops those pages itself); stopping it
 * with work pending returns at once.
 */
#define _GNU_SOURCE
#include "io/input_release.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SIZE ((size_t)32 << 20)

/* Resident pages of [p, p + n), from the kernel's page map of this process. */
static size_t resident(const uint8_t *p, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), count = 0;
	FILE *f = fopen("/proc/self/pagemap", "rb");
	cr_assert(f);
	for (size_t off = 0; off < n; off += page) {
		uint64_t e = 0;
		cr_assert_eq(fseeko(f, (off_t)(((uintptr_t)p + off) / page * 8), SEEK_SET), 0);
		cr_assert_eq(fread(&e, 8, 1, f), 1);
		count += (e >> 63) & 1; /* present */
	}
	fclose(f);
	return count;
}

/* A private read-only mapping of a SIZE-byte file whose byte i is i * 7 mod 251,
 * every page read once. */
static uint8_t *mapped_file(char **dir)
{
	*dir = make_tmpdir_for("release");
	char *path = path_in(*dir, "input.bin");
	uint8_t *buf = malloc(SIZE);
	cr_assert(buf);
	for (size_t i = 0; i < SIZE; i++)
		buf[i] = (uint8_t)(i * 7 % 251);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	cr_assert(fd >= 0 && write(fd, buf, SIZE) == (ssize_t)SIZE);
	free(buf);
	uint8_t *map = mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert(map != MAP_FAILED);
	close(fd);
	free(path);
	unsigned sum = 0;
	for (size_t i = 0; i < SIZE; i += 4096)
		sum += map[i];
	cr_assert_neq(sum, 1); /* read, not optimised away */
	return map;
}

static bool same_bytes(const uint8_t *map)
{
	for (size_t i = 0; i < SIZE; i++)
		if (map[i] != (uint8_t)(i * 7 % 251))
			return false;
	return true;
}

Test(release, dropped_pages_leave_and_come_back)
{
	char *dir;
	uint8_t *map = mapped_file(&dir);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = SIZE / page;
	cr_assert_geq(resident(map, SIZE), pages * 9 / 10, "the file was read: its pages are ours");
	releaser *r = releaser_new(map, SIZE);
	cr_assert(r);
	/* In steps, as the loader asks, dropping what is refused itself. */
	size_t taken = 0;
	for (size_t at = 0; at + (1 << 20) <= SIZE; at += 1 << 20) {
		if (releaser_drop(r, at, at + (1 << 20)))
			taken++;
		else
			cr_assert_eq(madvise(map + at, 1 << 20, MADV_DONTNEED), 0);
	}
	cr_assert_gt(taken, 0, "the thread was given nothing to drop");
	size_t left = pages;
	for (int i = 0; i < 500 && (left = resident(map, SIZE)) > pages / 100; i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	cr_expect_leq(left, pages / 100, "%zu of %zu pages still resident after 5 s", left, pages);
	cr_expect(same_bytes(map), "a dropped page came back with other bytes");
	releaser_free(r);
	munmap(map, SIZE);
	remove_dir(dir);
}

Test(release, a_thread_far_behind_refuses)
{
	char *dir;
	uint8_t *map = mapped_file(&dir);
	releaser *r = releaser_new(map, SIZE);
	cr_assert(r);
	/* Larger than the lag allowed: refused, and nothing is asked; so a request of
	 * the lag itself is taken next. */
	cr_expect_not(releaser_drop(r, 0, RELEASE_LAG + 4096 * 2));
	cr_expect(releaser_drop(r, 0, RELEASE_LAG));
	cr_expect(releaser_drop(r, 4096, 4096), "an empty range is nothing to refuse");
	releaser_free(r); /* with work pending: returns */
	releaser_free(NULL);
	cr_expect(same_bytes(map));
	munmap(map, SIZE);
	remove_dir(dir);
}
