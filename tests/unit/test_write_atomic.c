/* test_write_atomic.c: the promise of io/atomic_file.c under fault injection.
 *
 * A sys_io whose Nth call (write, copy, fsync, close or rename, counted together)
 * fails with EIO or ENOSPC is run for EVERY N of a real multi-megabyte write, part
 * written from memory and part copied from a source file (out_copy): each time
 * write_atomic must return OSH_ERR_IO, the destination must hold exactly its old
 * bytes (or still not exist), and no temporary file may remain. Short writes (down to
 * one byte per call), EINTR and a write that returns 0 are covered too, as are a
 * kernel that cannot copy (the bytes are then written from memory or read from the
 * source), a source that shrank, fsync only when durable, the success path (exact content, the old file's mode kept, nothing left over) and the
 * same-inode refusal unless in_place; and an in-place write whose source another
 * program replaced, wrote or removed meanwhile, refused with that program's file
 * left as it is.
 */
#define _GNU_SOURCE
#include "io/atomic_file.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the faulty sys_io --------------------------------------------------------- */

static struct {
	int calls;        /* io calls so far, all four kinds together */
	int fail_at;      /* the call that fails (1-based), 0 for none */
	int fail_errno;
	size_t max_write; /* most bytes one write() takes, 0 for no limit */
	int writes;       /* write() calls so far */
	int eintr_every;  /* every k-th write() fails with EINTR first, 0 for never */
	bool zero_write;  /* write() returns 0 (nothing written, no error) */
	size_t max_copy;  /* most bytes one copy takes, 0 for no limit */
	int copies, fsyncs; /* successful calls so far */
	int copy_errno;   /* every copy fails with this (EXDEV...), 0 for none */
	pthread_t owner;  /* the test's thread */
	int foreign_writes; /* write() calls made by another thread (flush_behind) */
} fx;

/* Whether the fault-injection runs ask for a durable output (fsync, writeback
 * started as it goes, every write from the caller's thread) or not (full buffers
 * written by a thread of their own: io/flush_behind.c). */
static bool fx_durable = true;

static bool hit(void)
{
	if (++fx.calls == fx.fail_at) {
		errno = fx.fail_errno;
		return true;
	}
	return false;
}

static ssize_t f_write(int fd, const void *buf, size_t n)
{
	if (hit())
		return -1;
	fx.writes++;
	fx.foreign_writes += !pthread_equal(pthread_self(), fx.owner);
	if (fx.eintr_every && fx.writes % fx.eintr_every == 0) {
		errno = EINTR;
		return -1;
	}
	if (fx.zero_write)
		return 0;
	return write(fd, buf, fx.max_write && n > fx.max_write ? fx.max_write : n);
}

static ssize_t f_copy(int in, int64_t *off, int out, int64_t *out_off, size_t n)
{
	if (hit())
		return -1;
	if (fx.copy_errno) {
		errno = fx.copy_errno;
		return -1;
	}
	fx.copies++;
	return sys_io_default.copy(in, off, out, out_off, fx.max_copy && n > fx.max_copy ? fx.max_copy : n);
}

static int f_fsync(int fd)
{
	if (hit())
		return -1;
	fx.fsyncs++;
	return fsync(fd);
}

/* A failing close still closes, as on Linux: the descriptor must not leak. */
static int f_close(int fd)
{
	bool fail = hit();
	int e = errno;
	int r = close(fd);
	if (fail) {
		errno = e;
		return -1;
	}
	return r;
}

static int f_rename(const char *from, const char *to) { return hit() ? -1 : rename(from, to); }

static const sys_io faulty = {f_write, f_copy, f_fsync, f_close, f_rename};

static void arm(int fail_at, int err, size_t max_write)
{
	fx.calls = 0, fx.writes = 0, fx.copies = 0, fx.fsyncs = 0;
	fx.fail_at = fail_at, fx.fail_errno = err, fx.max_write = max_write;
	fx.eintr_every = 0, fx.zero_write = false, fx.max_copy = 0, fx.copy_errno = 0;
	fx.owner = pthread_self(), fx.foreign_writes = 0;
}

/* ---- the content --------------------------------------------------------------- */

typedef struct payload {
	uint8_t *data;
	size_t size;
	const char *dir;  /* checked while writing: exactly one temporary file there */
	const char *dest;
	mode_t want_mode; /* the temporary file's mode while being written, 0: unchecked */
	int fail_with;    /* produce itself fails with this errno after writing half */
	int seen_tmp;     /* temporary files seen by produce */
	int src_fd;       /* a file holding data: big pieces are copied from it; -1: none */
	bool copy_blind;  /* copies pass no data pointer: a fallback reads the file */
	size_t piece;     /* write in pieces of this size; 0: the uneven ones below */
} payload;

static payload make_payload(size_t size)
{
	payload p = {.data = malloc(size), .size = size, .src_fd = -1};
	cr_assert(p.data);
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < size; i++) { /* xorshift: no run of equal bytes to hide a slip */
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p.data[i] = (uint8_t)x;
	}
	return p;
}

static bool is_tmp_name(const char *name, const char *base)
{
	/* ".BASE.XXXXXXXXXXXX.tmp" */
	size_t nb = strlen(base), n = strlen(name);
	return n == 1 + nb + 1 + 12 + 4 && name[0] == '.' && !strncmp(name + 1, base, nb) &&
	       name[1 + nb] == '.' && !strcmp(name + n - 4, ".tmp");
}

/* Writes the payload in uneven pieces: tiny ones that are buffered, ones that fill
 * the 256 KiB buffer over and over, and one bigger than the buffer that goes straight
 * through, so there are many write() calls. */
static int produce(out_file *o, void *ctx)
{
	payload *p = ctx;
	if (p->dir) {
		const char *base = strrchr(p->dest, '/') + 1;
		DIR *d = opendir(p->dir);
		cr_assert(d);
		struct dirent *e;
		while ((e = readdir(d)) != NULL)
			p->seen_tmp += is_tmp_name(e->d_name, base);
		closedir(d);
		struct stat st;
		cr_assert_eq(fstat(o->fd, &st), 0);
		if (p->want_mode)
			cr_expect_eq(st.st_mode & 07777, p->want_mode, "the temporary file has mode %o, want %o",
				     st.st_mode & 07777, p->want_mode);
	}
	static const size_t pieces[] = {1, 7, 300000, 1600000, 3, 700001, 65536};
	size_t off = 0;
	for (size_t i = 0; off < p->size; i++) {
		size_t n = p->piece ? p->piece : pieces[i % (sizeof pieces / sizeof pieces[0])];
		if (n > p->size - off)
			n = p->size - off;
		if (p->src_fd >= 0 && n >= 65536)
			out_copy(o, p->src_fd, off, p->copy_blind ? NULL : p->data + off, n);
		else
			out_write(o, p->data + off, n);
		off += n;
		if (p->fail_with && off >= p->size / 2)
			return p->fail_with;
	}
	return o->err;
}

/* ---- files --------------------------------------------------------------------- */

static void put_file(const char *path, const void *data, size_t n, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, data, n), (ssize_t)n);
	cr_assert_eq(close(fd), 0);
	cr_assert_eq(chmod(path, mode), 0);
}

static bool file_is(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	struct stat st;
	bool same = fstat(fd, &st) == 0 && (size_t)st.st_size == n;
	uint8_t *buf = malloc(n ? n : 1);
	size_t got = 0;
	while (same && got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	same = same && got == n && !memcmp(buf, data, n);
	free(buf);
	close(fd);
	return same;
}

/* expect_listing with the failure point in the context. */
static void expect_listing_at(const char *dir, const char *want, const char *ctx, int n)
{
	char what[256];
	snprintf(what, sizeof what, "%s (N=%d)", ctx, n);
	expect_listing(dir, want, what);
}

static const char old_bytes[] = "the old content, which must survive any failure\n";

/* ---- fault injection ----------------------------------------------------------- */

/* How many io calls a successful write of p makes with this max_write. */
static int count_calls(payload *p, size_t max_write)
{
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "count.bin");
	arm(0, 0, max_write);
	atomic_opts ao = {.io = &faulty, .durable = fx_durable};
	osh_error err = {0};
	cr_assert_eq(write_atomic(dest, &ao, produce, p, &err), OSH_OK, "%s", err.message);
	cr_assert(file_is(dest, p->data, p->size));
	cr_assert_eq(fx.fsyncs, fx_durable, "a durable write fsyncs the file once, another never");
	if (p->src_fd >= 0)
		cr_assert_gt(fx.copies, 0, "nothing was copied from the source file");
	int n = fx.calls;
	free(dest);
	remove_dir(dir);
	return n;
}

/* Fails call N of a write over an existing (or a missing) destination and checks the
 * promise. */
static void fail_once(payload *p, int n, int e, size_t max_write, bool exists, const char *ctx)
{
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "out.bin");
	if (exists)
		put_file(dest, old_bytes, sizeof old_bytes - 1, 0640);
	arm(n, e, max_write);
	atomic_opts ao = {.io = &faulty, .durable = fx_durable};
	osh_error err = {0};
	p->dir = dir, p->dest = dest, p->seen_tmp = 0, p->want_mode = exists ? 0640 : 0;
	osh_status s = write_atomic(dest, &ao, produce, p, &err);
	cr_expect_eq(s, OSH_ERR_IO, "%s (N=%d): status %d", ctx, n, (int)s);
	cr_expect_eq(err.status, OSH_ERR_IO, "%s (N=%d)", ctx, n);
	cr_expect_geq(fx.calls, n, "%s: call %d was never made", ctx, n);
	cr_expect(strstr(err.message, strerror(e)), "%s (N=%d): message lacks the errno: %s", ctx, n, err.message);
	cr_expect(strstr(err.message, "the destination is unchanged"), "%s (N=%d): %s", ctx, n, err.message);
	cr_expect(!strncmp(err.message, dest, strlen(dest)), "%s (N=%d): message does not name the file", ctx, n);
	cr_expect_eq(p->seen_tmp, 1, "%s (N=%d): %d temporary files while writing", ctx, n, p->seen_tmp);
	if (exists) {
		cr_expect(file_is(dest, old_bytes, sizeof old_bytes - 1), "%s (N=%d): the old content is gone", ctx, n);
		struct stat st;
		cr_assert_eq(stat(dest, &st), 0);
		cr_expect_eq(st.st_mode & 07777, 0640, "%s (N=%d)", ctx, n);
		expect_listing_at(dir, "out.bin", ctx, n);
	} else {
		cr_expect_eq(access(dest, F_OK), -1, "%s (N=%d): the destination was created", ctx, n);
		expect_listing_at(dir, "", ctx, n);
	}
	p->dir = p->dest = NULL;
	free(dest);
	remove_dir(dir);
}

/* Puts p's bytes in a file of their own and has produce copy its big pieces from
 * there. Returns the directory, for remove_dir. */
static char *attach_source(payload *p)
{
	char *dir = make_tmpdir_for("write_atomic_src");
	char *src = path_in(dir, "source.bin");
	put_file(src, p->data, p->size, 0600);
	p->src_fd = open(src, O_RDONLY | O_CLOEXEC);
	cr_assert(p->src_fd >= 0);
	free(src);
	return dir;
}

static void detach_source(payload *p, char *dir)
{
	close(p->src_fd);
	p->src_fd = -1;
	remove_dir(dir);
}

static void every_n_of(payload *p, size_t max_write, const char *ctx)
{
	int total = count_calls(p, max_write);
	cr_assert_geq(total, 6, "%s: only %d io calls; the test needs several writes", ctx, total);
	for (int n = 1; n <= total; n++) {
		int e = n % 2 ? EIO : ENOSPC;
		fail_once(p, n, e, max_write, true, ctx);
		fail_once(p, n, e, max_write, false, ctx);
	}
}

static void every_n(size_t size, size_t max_write, const char *ctx)
{
	payload p = make_payload(size);
	every_n_of(&p, max_write, ctx);
	free(p.data);
}

/* 3 MiB in uneven pieces: the small buffer and then the 256 KiB one fill and flush, and a 1.6 MB piece goes
 * straight out. */
Test(write_atomic, fail_every_call)
{
	every_n((size_t)3 << 20, 0, "full writes");
}

/* The same with the pieces of 64 KiB and more copied from a file by the kernel:
 * every copy can fail too, between writes from memory. */
Test(write_atomic, fail_every_call_with_copies)
{
	payload p = make_payload((size_t)3 << 20);
	char *src = attach_source(&p);
	every_n_of(&p, 0, "copies");
	detach_source(&p, src);
	free(p.data);
}

/* Not durable: from the ninth full buffer on, the buffers are written by a thread of
 * their own while produce fills the next one. A failure of any of its writes, or of
 * a copy (which waits for them), still leaves nothing behind. */
Test(write_atomic, fail_every_call_written_behind)
{
	fx_durable = false;
	payload p = make_payload((size_t)6 << 20);
	every_n_of(&p, 0, "written behind");
	char *src = attach_source(&p);
	every_n_of(&p, 0, "written behind, with copies");
	detach_source(&p, src);
	p.piece = 4096;
	every_n_of(&p, 300 * 1024, "written behind, short writes");
	free(p.data);
}

/* ... and those writes do come from another thread, in order: the first MiB goes
 * through the small buffer (16 writes of 64 KiB), then 28 buffers of 256 KiB, of which
 * the first eight are written by the owner. */
Test(write_atomic, full_buffers_written_behind_in_order)
{
	payload p = make_payload((size_t)8 << 20);
	p.piece = 4096;
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "out.bin");
	for (int durable = 0; durable < 2; durable++) {
		arm(0, 0, 0);
		atomic_opts ao = {.io = &faulty, .durable = durable};
		osh_error err = {0};
		cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
		cr_expect(file_is(dest, p.data, p.size), "durable %d: the content differs", durable);
		if (durable)
			cr_expect_eq(fx.foreign_writes, 0, "a durable output was written by another thread");
		else
			cr_expect_eq(fx.foreign_writes, 20, "%d of 28 full big buffers written by another thread, want 20",
				     fx.foreign_writes);
	}
	expect_listing_at(dir, "out.bin", "written behind", 0);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

/* The same with write() taking at most 256 KiB: short writes, and a failure after
 * part of a buffer was written. */
Test(write_atomic, fail_every_call_short_writes)
{
	every_n((size_t)3 << 20, 256 * 1024, "256 KiB writes");
}

/* One byte per write() call: every byte is a separate write. Every N would be too
 * slow, so the first calls, the middle, the last write, fsync, close and rename. */
Test(write_atomic, one_byte_writes)
{
	payload p = make_payload(20000);
	int total = count_calls(&p, 1);
	cr_assert_eq(total, 20000 + 3, "one write per byte, then fsync, close, rename");
	static const int pick[] = {1, 2, 3, 10000, 19999, 20000, 20001, 20002, 20003};
	for (size_t i = 0; i < sizeof pick / sizeof pick[0]; i++) {
		fail_once(&p, pick[i], EIO, 1, true, "1-byte writes");
		fail_once(&p, pick[i], ENOSPC, 1, false, "1-byte writes");
	}
	free(p.data);
	/* And a larger success, byte by byte. */
	p = make_payload(200000);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "out.bin");
	arm(0, 0, 1);
	atomic_opts ao = {.io = &faulty};
	osh_error err = {0};
	cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(fx.writes, 200000);
	cr_expect(file_is(dest, p.data, p.size));
	expect_listing_at(dir, "out.bin", "1-byte success", 0);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

/* EINTR is retried, not an error. */
Test(write_atomic, eintr_is_retried)
{
	payload p = make_payload((size_t)2 << 20);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "out.bin");
	arm(0, 0, 100000);
	fx.eintr_every = 2;
	atomic_opts ao = {.io = &faulty};
	osh_error err = {0};
	cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_expect(file_is(dest, p.data, p.size));
	expect_listing_at(dir, "out.bin", "EINTR", 0);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

/* A write() that makes no progress and reports no error must not loop forever. */
Test(write_atomic, zero_byte_write_is_an_error)
{
	payload p = make_payload(5000);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "out.bin");
	put_file(dest, old_bytes, sizeof old_bytes - 1, 0644);
	arm(0, 0, 0);
	fx.zero_write = true;
	atomic_opts ao = {.io = &faulty};
	osh_error err = {0};
	cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, strerror(EIO)), "%s", err.message);
	cr_expect(file_is(dest, old_bytes, sizeof old_bytes - 1));
	expect_listing_at(dir, "out.bin", "zero write", 0);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

/* The producer itself gives up (say, the model cannot be serialized). */
Test(write_atomic, produce_failure)
{
	payload p = make_payload((size_t)3 << 20);
	p.fail_with = ENOSPC;
	fail_once(&p, 0, ENOSPC, 0, true, "produce fails");
	fail_once(&p, 0, ENOSPC, 0, false, "produce fails");
	free(p.data);
}

/* ---- copies --------------------------------------------------------------------- */

/* Writes p to a fresh destination and checks the content: with the faulty io as
 * armed, or, given pre, with the real system calls and pre's bytes put in the
 * temporary file first (what a copy ahead would have put there), checking how much
 * of them was skipped. */
static void write_exact_pre(payload *p, const out_pre *pre, uint64_t want_skipped, const char *ctx)
{
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "out.bin");
	atomic_opts ao = {.io = pre ? NULL : &faulty};
	osh_error err = {0};
	if (pre) {
		atomic_file *f;
		cr_assert_eq(atomic_open(dest, &ao, &f, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(pwrite(f->fd, p->data + pre->src_off, pre->len, (off_t)pre->dst_off), (ssize_t)pre->len);
		f->prefilled = true;
		uint64_t skipped = 1;
		cr_assert_eq(atomic_commit(f, produce, p, pre, &skipped, &err), OSH_OK, "%s", err.message);
		cr_expect_eq(skipped, want_skipped, "%s: %llu bytes skipped", ctx, (unsigned long long)skipped);
	} else {
		cr_assert_eq(write_atomic(dest, &ao, produce, p, &err), OSH_OK, "%s: %s", ctx, err.message);
	}
	cr_expect(file_is(dest, p->data, p->size), "%s: content not exact", ctx);
	expect_listing_at(dir, "out.bin", ctx, 0);
	free(dest);
	remove_dir(dir);
}

static void write_exact(payload *p, const char *ctx) { write_exact_pre(p, NULL, 0, ctx); }

Test(write_atomic, short_copies_are_continued)
{
	payload p = make_payload((size_t)3 << 20);
	char *src = attach_source(&p);
	arm(0, 0, 0);
	fx.max_copy = 4099; /* odd, so the copies and the buffer never line up */
	write_exact(&p, "short copies");
	cr_expect_gt(fx.copies, 500, "%d copies", fx.copies);
	detach_source(&p, src);
	free(p.data);
}

/* A kernel or file system that cannot copy (EXDEV between file systems, ENOSYS,
 * EINVAL...): the bytes are written from memory, or read from the source when the
 * caller has them only there. The first refusal settles it: no more tries. */
Test(write_atomic, copy_falls_back_to_writes)
{
	static const int refusals[] = {EXDEV, ENOSYS, EINVAL, EOPNOTSUPP};
	payload p = make_payload((size_t)3 << 20);
	char *src = attach_source(&p);
	for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
		for (int blind = 0; blind < 2; blind++) {
			char ctx[64];
			snprintf(ctx, sizeof ctx, "%s%s", strerror(refusals[i]), blind ? ", from the file" : "");
			arm(0, 0, 0);
			fx.copy_errno = refusals[i];
			p.copy_blind = blind;
			write_exact(&p, ctx);
			cr_expect_eq(fx.copies, 0, "%s", ctx);
			cr_expect_eq(fx.calls - fx.writes, 1 + 2, "%s: %d calls that were not writes (the refused "
				     "copy, close, rename)", ctx, fx.calls - fx.writes);
		}
	detach_source(&p, src);
	free(p.data);
}

/* The source is shorter than the caller said (it was truncated since): ESTALE, the
 * destination keeps its old bytes and nothing is left over. */
Test(write_atomic, source_that_shrank_is_an_error)
{
	payload p = make_payload((size_t)3 << 20);
	char *src = attach_source(&p);
	char *sdir_file = NULL;
	cr_assert(asprintf(&sdir_file, "%s/source.bin", src) > 0);
	for (int blind = 0; blind < 2; blind++) {
		cr_assert_eq(truncate(sdir_file, (off_t)(1 << 20)), 0);
		char *dir = make_tmpdir_for("write_atomic");
		char *dest = path_in(dir, "out.bin");
		put_file(dest, old_bytes, sizeof old_bytes - 1, 0644);
		arm(0, 0, 0);
		fx.copy_errno = blind ? EXDEV : 0;
		p.copy_blind = blind;
		atomic_opts ao = {.io = &faulty};
		osh_error err = {0};
		cr_expect_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_ERR_CHANGED);
		cr_expect(strstr(err.message, strerror(ESTALE)), "%s", err.message);
		cr_expect(file_is(dest, old_bytes, sizeof old_bytes - 1));
		expect_listing_at(dir, "out.bin", "source shrank", blind);
		free(dest);
		remove_dir(dir);
	}
	free(sdir_file);
	detach_source(&p, src);
	free(p.data);
}

/* Bytes put in the temporary file before the content is produced (out_pre): a copy
 * of the same source bytes at the same place is skipped; anything else overwrites
 * them, and what lies beyond the content is cut off. */
Test(write_atomic, bytes_in_place_are_skipped)
{
	/* produce's pieces: 1, 7, 300000, 1600000, 3, 700001, 65536, ... The 1.6 MB
	 * piece (from 300008) and the 300 KB one before it are copied from the source. */
	payload p = make_payload((size_t)3 << 20);
	char *src = attach_source(&p);
	out_pre right = {.fd = p.src_fd, .src_off = 300008, .dst_off = 300008, .len = 1600000};
	write_exact_pre(&p, &right, 1600000, "in place");
	out_pre wide = {.fd = p.src_fd, .src_off = 8, .dst_off = 8, .len = 1900000};
	write_exact_pre(&p, &wide, 300000 + 1600000, "two pieces in place");
	out_pre moved = right;
	moved.dst_off++; /* a guess one byte off */
	write_exact_pre(&p, &moved, 0, "one byte off");
	out_pre other = right;
	other.fd = -1; /* the same offsets of another file */
	write_exact_pre(&p, &other, 0, "another file");
	/* Copied ahead to beyond the end of what is produced: cut off. */
	out_pre beyond = {.fd = p.src_fd, .src_off = 0, .dst_off = p.size + 4096, .len = 100000};
	write_exact_pre(&p, &beyond, 0, "beyond the end");
	detach_source(&p, src);
	free(p.data);
}

/* fsync costs a disk round trip per file: only a durable write pays it. */
Test(write_atomic, fsync_only_when_durable)
{
	payload p = make_payload((size_t)2 << 20);
	for (int durable = 0; durable < 2; durable++) {
		char *dir = make_tmpdir_for("write_atomic");
		char *dest = path_in(dir, "out.bin");
		arm(0, 0, 0);
		atomic_opts ao = {.io = &faulty, .durable = durable};
		osh_error err = {0};
		cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
		cr_expect_eq(fx.fsyncs, durable, "durable=%d: %d fsyncs", durable, fx.fsyncs);
		cr_expect(file_is(dest, p.data, p.size));
		free(dest);
		remove_dir(dir);
	}
	free(p.data);
}

/* ---- success and refusals ------------------------------------------------------ */

Test(write_atomic, success_replaces_content_and_keeps_mode)
{
	payload p = make_payload((size_t)3 << 20);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "model.onnx");
	put_file(dest, old_bytes, sizeof old_bytes - 1, 0640);
	struct stat before;
	cr_assert_eq(stat(dest, &before), 0);
	p.dir = dir, p.dest = dest, p.want_mode = 0640;
	atomic_opts ao = {0}; /* the real system calls */
	osh_error err = {0};
	cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(p.seen_tmp, 1, "the temporary file is beside the destination");
	cr_expect(file_is(dest, p.data, p.size), "new content not exact");
	struct stat st;
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0640, "mode %o, want 0640", st.st_mode & 07777);
	cr_expect_neq(st.st_ino, before.st_ino, "the destination was rewritten in place, not replaced");
	expect_listing_at(dir, "model.onnx", "success", 0);

	/* Again, smaller, through the faulty io without a fault. */
	p.size = 1000;
	arm(0, 0, 0);
	ao.io = &faulty;
	cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_expect(file_is(dest, p.data, 1000));
	cr_expect_eq(fx.calls, 3, "write, close, rename: %d calls", fx.calls);
	expect_listing_at(dir, "model.onnx", "success", 1);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

/* produce, then what out_flush has started writing back so far. */
static uint64_t synced_by_produce;
static int produce_and_note_writeback(out_file *o, void *ctx)
{
	int e = produce(o, ctx);
	synced_by_produce = o->synced;
	return e;
}

Test(write_atomic, writeback_starts_while_producing)
{
	/* A big durable output is sent to the disk while it is still being produced (so
	 * the fsync before the rename waits for its tail only), and comes out exact. */
	payload p = make_payload((size_t)21 << 20);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "big.onnx");
	atomic_opts ao = {.durable = true};
	osh_error err = {0};
	synced_by_produce = 0;
	cr_assert_eq(write_atomic(dest, &ao, produce_and_note_writeback, &p, &err), OSH_OK, "%s", err.message);
	cr_expect_geq(synced_by_produce, (uint64_t)16 << 20, "writeback started for %llu bytes of 21 MiB",
		      (unsigned long long)synced_by_produce);
	/* Not durable: the kernel writes back when it likes. */
	ao.durable = false;
	synced_by_produce = 0;
	cr_assert_eq(write_atomic(dest, &ao, produce_and_note_writeback, &p, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(synced_by_produce, 0);
	cr_expect(file_is(dest, p.data, p.size), "content not exact");
	expect_listing_at(dir, "big.onnx", "writeback", 0);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

Test(write_atomic, new_file_gets_the_default_mode)
{
	payload p = make_payload(100);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "new.onnx");
	mode_t old = umask(027);
	atomic_opts ao = {0};
	osh_error err = {0};
	osh_status s = write_atomic(dest, &ao, produce, &p, &err);
	umask(old);
	cr_assert_eq(s, OSH_OK, "%s", err.message);
	cr_expect(file_is(dest, p.data, p.size));
	struct stat st;
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0640, "0666 less the umask 027: got %o", st.st_mode & 07777);
	expect_listing_at(dir, "new.onnx", "new file", 0);

	/* An empty output is a valid output. */
	p.size = 0;
	cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_size, 0);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

Test(write_atomic, same_inode_needs_in_place)
{
	payload p = make_payload(4096);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "model.onnx");
	char *alias = path_in(dir, "alias.onnx");
	put_file(dest, old_bytes, sizeof old_bytes - 1, 0600);
	cr_assert_eq(link(dest, alias), 0);
	struct stat st;
	cr_assert_eq(stat(dest, &st), 0);
	atomic_opts ao = {.has_source = true, .io = &faulty,
			  .src = {.dev = st.st_dev, .ino = st.st_ino, .size = (uint64_t)st.st_size,
				  .mtime_sec = st.st_mtim.tv_sec, .mtime_nsec = st.st_mtim.tv_nsec}};
	osh_error err = {0};
	const char *names[] = {dest, alias};
	for (int i = 0; i < 2; i++) {
		arm(0, 0, 0);
		cr_expect_eq(write_atomic(names[i], &ao, produce, &p, &err), OSH_ERR_SAME_FILE, "%s", names[i]);
		cr_expect_eq(err.status, OSH_ERR_SAME_FILE);
		cr_expect(strstr(err.message, "without --in-place"), "%s", err.message);
		cr_expect_eq(fx.calls, 0, "io used although the write was refused");
		cr_expect(file_is(dest, old_bytes, sizeof old_bytes - 1));
		cr_expect(file_is(alias, old_bytes, sizeof old_bytes - 1));
		expect_listing_at(dir, "alias.onnx model.onnx", "refused", i);
	}
	/* A different file is fine even with has_source set. */
	char *other = path_in(dir, "other.onnx");
	cr_expect_eq(write_atomic(other, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_expect(file_is(other, p.data, p.size));
	/* in_place: allowed, and the file is replaced, not written through. */
	ao.in_place = true;
	cr_assert_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_expect(file_is(dest, p.data, p.size));
	cr_expect(file_is(alias, old_bytes, sizeof old_bytes - 1), "the other link was written through");
	struct stat after;
	cr_assert_eq(stat(dest, &after), 0);
	cr_expect_eq(after.st_mode & 07777, 0600);
	expect_listing_at(dir, "alias.onnx model.onnx other.onnx", "in place", 0);
	free(other);
	free(alias);
	free(dest);
	remove_dir(dir);
	free(p.data);
}

Test(write_atomic, bad_destinations)
{
	payload p = make_payload(10);
	char *dir = make_tmpdir_for("write_atomic");
	atomic_opts ao = {.io = &faulty};
	osh_error err = {0};
	arm(0, 0, 0);

	cr_expect_eq(write_atomic(dir, &ao, produce, &p, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, "is a directory"), "%s", err.message);

	char *missing = path_in(dir, "no/such/dir/out.onnx");
	cr_expect_eq(write_atomic(missing, &ao, produce, &p, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, "cannot create a temporary file"), "%s", err.message);
	cr_expect(strstr(err.message, strerror(ENOENT)), "%s", err.message);

	char *trailing = path_in(dir, "nosuch/");
	cr_expect_eq(write_atomic(trailing, &ao, produce, &p, &err), OSH_ERR_IO);
	cr_expect(strstr(err.message, "not a file name"), "%s", err.message);

	cr_expect_eq(fx.calls, 0);
	expect_listing_at(dir, "", "bad destinations", 0);
	free(missing);
	free(trailing);
	remove_dir(dir);
	free(p.data);
}

/* ---- an in-place write over a source another program replaced ---------------------- */

/* What the other program does, and when: at the close of the temporary file (the
 * last call before the rename), or before the write begins. */
enum { SWAP_RENAME, SWAP_REWRITE, SWAP_REMOVE };

static struct {
	int what;
	const char *dest, *newer;
	bool done;
} swap;

static const char newer_bytes[] = "a newer model, renamed over the old one meanwhile\n";

static void swap_now(void)
{
	if (swap.done)
		return;
	swap.done = true;
	if (swap.what == SWAP_RENAME) {
		cr_assert_eq(rename(swap.newer, swap.dest), 0, "%s", strerror(errno));
	} else if (swap.what == SWAP_REMOVE) {
		cr_assert_eq(unlink(swap.dest), 0);
	} else { /* the same file, written in place */
		int fd = open(swap.dest, O_WRONLY | O_APPEND);
		cr_assert(fd >= 0);
		cr_assert_eq(write(fd, "+", 1), 1);
		close(fd);
	}
}

static int swap_close(int fd)
{
	int r = close(fd);
	swap_now();
	return r;
}

/* The source as it is now, for atomic_opts. */
static source_id identify(const char *path)
{
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	return (source_id){.dev = st.st_dev, .ino = st.st_ino, .size = (uint64_t)st.st_size,
			   .mtime_sec = st.st_mtim.tv_sec, .mtime_nsec = st.st_mtim.tv_nsec, .path = path};
}

/* An in-place write of dest (named `as`) whose source changes (what) during the
 * write, or before it when `early`: refused, the other program's file as it left
 * it, no temporary file. */
static void swapped_under(int what, bool early, const char *as_name)
{
	payload p = make_payload(3 << 20);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "model.onnx"), *newer = path_in(dir, "newer"), *as = path_in(dir, as_name);
	put_file(dest, old_bytes, sizeof old_bytes - 1, 0644);
	put_file(newer, newer_bytes, sizeof newer_bytes - 1, 0644);
	sys_io io = sys_io_default;
	io.close = swap_close;
	atomic_opts ao = {.in_place = true, .has_source = true, .src = identify(dest), .io = &io};
	swap.what = what, swap.dest = dest, swap.newer = newer, swap.done = false;
	if (early)
		swap_now();
	osh_error err = {0};
	char ctx[64];
	snprintf(ctx, sizeof ctx, "change %d%s, written as %s", what, early ? " before the write" : "", as_name);
	cr_expect_eq(write_atomic(as, &ao, produce, &p, &err), OSH_ERR_CHANGED, "%s: written", ctx);
	cr_expect(swap.done, "%s", ctx);
	cr_expect(strstr(err.message, strerror(ESTALE)) && strstr(err.message, "the destination is unchanged"),
		  "%s: %s", ctx, err.message);
	if (what == SWAP_RENAME) {
		cr_expect(file_is(dest, newer_bytes, sizeof newer_bytes - 1), "%s: the newer file was replaced", ctx);
		expect_listing_at(dir, "model.onnx", ctx, 0);
	} else if (what == SWAP_REMOVE) {
		expect_listing_at(dir, "newer", ctx, 0);
	} else {
		struct stat st;
		cr_assert_eq(stat(dest, &st), 0);
		cr_expect_eq(st.st_size, (off_t)sizeof old_bytes, "%s: the file written in place was replaced", ctx);
		expect_listing_at(dir, "model.onnx newer", ctx, 0);
	}
	free(dest), free(newer), free(as);
	remove_dir(dir);
	free(p.data);
}

Test(write_atomic, in_place_over_a_source_replaced_meanwhile)
{
	swapped_under(SWAP_RENAME, false, "model.onnx");
	swapped_under(SWAP_RENAME, true, "model.onnx");
	/* Before the write: the path names another file already; spelled otherwise, it
	 * is still the path the source was read by. */
	swapped_under(SWAP_RENAME, true, "./model.onnx");
	swapped_under(SWAP_REWRITE, false, "model.onnx");
	swapped_under(SWAP_REMOVE, false, "model.onnx");
}

/* The same write, its source left alone, replaces it; and a write elsewhere is not
 * held to the source at all. */
Test(write_atomic, in_place_over_an_unchanged_source)
{
	payload p = make_payload(1 << 20);
	char *dir = make_tmpdir_for("write_atomic");
	char *dest = path_in(dir, "model.onnx"), *other = path_in(dir, "other.onnx");
	put_file(dest, old_bytes, sizeof old_bytes - 1, 0644);
	atomic_opts ao = {.in_place = true, .has_source = true, .src = identify(dest)};
	osh_error err = {0};
	cr_expect_eq(write_atomic(dest, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	cr_expect(file_is(dest, p.data, p.size));
	/* dest changed (our own write): other.onnx is no part of the source. */
	cr_expect_eq(write_atomic(other, &ao, produce, &p, &err), OSH_OK, "%s", err.message);
	expect_listing_at(dir, "model.onnx other.onnx", "unchanged source", 0);
	free(dest), free(other);
	remove_dir(dir);
	free(p.data);
}
