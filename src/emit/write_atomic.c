/* write_atomic.c: see write_atomic.h.
 *
 * Invariant: from the moment the temporary file exists until write_atomic returns,
 * every exit path either renames it over the destination (complete, and fsynced when
 * durable) or unlinks it. The destination is never opened for writing. A signal that
 * ends the process is an exit path too: while a temporary file exists, a handler
 * unlinks it before the signal takes its course (see "Signals" below). SIGKILL is
 * not, so the temporary file is locked for as long as it is being written, and what
 * a dead writer left is removed by the next write into its directory (see
 * "Temporary files" below).
 */
#define _GNU_SOURCE
#include "emit/write_atomic.h"
#include "emit/flush_behind.h"
#include "core/error.h"
#include "core/pread_all.h"
#include "core/tuning.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static ssize_t copy_range(int in, int64_t *off, int out, int64_t *out_off, size_t n)
{
	off64_t o = (off64_t)*off, d = out_off ? (off64_t)*out_off : 0;
	ssize_t c = copy_file_range(in, &o, out, out_off ? &d : NULL, n, 0);
	*off = (int64_t)o;
	if (out_off)
		*out_off = (int64_t)d;
	return c;
}

const sys_io sys_io_default = {write, copy_range, fsync, close, rename};

/* The output buffer (core/tuning.h): OUT_BUF_FIRST bytes, reused until
 * OUT_GROW_AFTER bytes went through it, then OUT_BUF. Every fresh page costs a fault,
 * zeroing and accounting, and a small model's output fits a small buffer: a big one
 * from the start is only more pages to fault in. A big output gets the big buffer,
 * and its fewer system calls, after its first megabyte. Not a bigger one: with the
 * thread's spare (flush_behind.c) there are two, each a buffer's worth of fresh
 * pages, and a system call per 256 KiB is nothing beside copying them. Writeback is
 * started every WRITEBACK_STEP bytes written (see start_writeback). */

/* A durable output is fsynced before it is renamed into place. Left to fsync alone, all of
 * it would go to the disk only then, after the last byte is packed; started as we go,
 * the disk writes while we pack, and fsync waits for the tail only. Advice: a failure
 * changes nothing, as fsync still writes whatever is left and reports any error. */
static void start_writeback(out_file *o)
{
#ifdef SYNC_FILE_RANGE_WRITE
	if (!o->durable || o->written - o->synced < WRITEBACK_STEP)
		return;
	sync_file_range(o->fd, (off64_t)o->synced, (off64_t)(o->written - o->synced), SYNC_FILE_RANGE_WRITE);
	o->synced = o->written;
#else
	(void)o;
#endif
}

int sys_io_write_all(const sys_io *io, int fd, const void *buf, size_t n, size_t *done)
{
	const unsigned char *b = buf;
	*done = 0;
	while (*done < n) {
		ssize_t w = io->write(fd, b + *done, n - *done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		*done += (size_t)w;
	}
	return 0;
}

/* Writes the buffer now, from this thread. */
static void flush_now(out_file *o)
{
	if (!o->err) {
		size_t done;
		o->err = sys_io_write_all(o->io, o->fd, o->buf, o->len, &done);
		o->written += done;
	}
	o->len = 0;
	if (!o->err)
		start_writeback(o);
}

void out_flush(out_file *o)
{
	if (o->behind && o->len && !o->err) {
		size_t n = o->len;
		o->buf = flush_behind_hand(o->behind, o->buf, n);
		o->written += n;
		o->len = 0;
		return;
	}
	flush_now(o);
}

/* Everything written, by whichever thread: before the file is used otherwise (a
 * copy, a seek, the end). */
static void out_drain(out_file *o)
{
	out_flush(o);
	if (o->behind) {
		int e = flush_behind_drain(o->behind);
		if (e && !o->err)
			o->err = e;
	}
}

/* The buffer is full: written out, and then, once enough went through the first
 * small one, replaced by the big one (never while a thread writes behind: it holds
 * buffers of the size they had). A thread writes the full big buffers from the
 * BEHIND_AFTER-th on (the ninth): below 3 MB of output (the first in small buffers,
 * then eight big ones), starting it costs more than it saves. */
static void out_full(out_file *o)
{
	if (o->cap < OUT_BUF) {
		out_flush(o);
		unsigned char *big = o->written >= OUT_GROW_AFTER && !o->behind ? malloc(OUT_BUF) : NULL;
		if (big) { /* no memory for it: the small one goes on */
			free(o->buf);
			o->buf = big, o->cap = OUT_BUF;
		}
		return;
	}
	if (!o->behind && o->may_flush_behind && ++o->full_flushes > BEHIND_AFTER)
		o->behind = flush_behind_new(o->io, o->fd, o->cap);
	out_flush(o);
}

void out_write(out_file *o, const void *data, size_t n)
{
	if (o->err || n == 0) /* data may be NULL for an empty bytes field */
		return;
	if (o->len + n > o->cap) {
		out_full(o);
		if (n >= o->cap) { /* large blocks go straight out, no copy */
			out_drain(o);
			unsigned char *saved = o->buf;
			size_t cap = o->cap;
			o->buf = (unsigned char *)data, o->len = n, o->cap = n;
			flush_now(o);
			o->buf = saved, o->cap = cap;
			return;
		}
	}
	memcpy(o->buf + o->len, data, n);
	o->len += n;
}

/* The kernel cannot copy from fd to o->fd: EXDEV (another file system, kernels
 * before 5.3 and from 5.19), ENOSYS (before 4.5), EINVAL/EOPNOTSUPP (a file system
 * or file kind that does not support it), EBADF (some kernels, for a special file). */
static bool cannot_copy(int e)
{
	return e == EXDEV || e == ENOSYS || e == EINVAL || e == EOPNOTSUPP || e == EBADF;
}

/* n bytes of fd from off through o's buffer. */
static void out_pread(out_file *o, int fd, uint64_t off, size_t n)
{
	while (n && !o->err) {
		if (o->len == o->cap)
			out_full(o);
		size_t want = o->cap - o->len < n ? o->cap - o->len : n;
		int e = pread_all(fd, o->buf + o->len, want, off);
		if (e) {
			o->err = e < 0 ? ESTALE : e;
			return;
		}
		o->len += want, off += want, n -= want;
	}
}

/* True when the n bytes of fd at off are in place at o's position already (o->pre):
 * the position moves past them. */
static bool skip_pre(out_file *o, int fd, uint64_t off, size_t n)
{
	const out_pre *p = &o->pre;
	uint64_t at = o->written + o->len;
	if (!p->len || fd != p->fd || off < p->src_off || off + n > p->src_off + p->len ||
	    at != p->dst_off + (off - p->src_off))
		return false;
	out_drain(o);
	if (o->err)
		return true;
	if (lseek(o->fd, (off_t)n, SEEK_CUR) < 0)
		o->err = errno;
	else
		o->written += n, o->skipped += n;
	return true;
}

void out_copy(out_file *o, int fd, uint64_t off, const void *data, size_t n)
{
	if (o->err || n == 0 || skip_pre(o, fd, off, n))
		return;
	/* Below OUT_COPY_MIN, a copy is a write from the caller's bytes: a system call
	 * either way. */
	if (fd < 0 || o->no_copy || (n < OUT_COPY_MIN && data)) {
		if (data)
			out_write(o, data, n);
		else
			out_pread(o, fd, off, n);
		return;
	}
	out_drain(o);
	size_t done = 0;
	while (done < n && !o->err) {
		int64_t at = (int64_t)(off + done);
		ssize_t c = o->io->copy(fd, &at, o->fd, NULL, n - done);
		if (c < 0 && errno == EINTR)
			continue;
		if (c < 0 && cannot_copy(errno)) {
			o->no_copy = true;
			out_copy(o, fd, off + done, data ? (const uint8_t *)data + done : NULL, n - done);
			return;
		}
		if (c <= 0)
			o->err = c < 0 ? errno : ESTALE;
		else
			done += (size_t)c, o->written += (uint64_t)c;
	}
	if (!o->err)
		start_writeback(o);
}

/* Splits dest into its directory (malloc'd) and base name. */
static char *dir_of(const char *dest, const char **base)
{
	const char *slash = strrchr(dest, '/');
	*base = slash ? slash + 1 : dest;
	if (!slash)
		return strdup(".");
	if (slash == dest)
		return strdup("/");
	return strndup(dest, (size_t)(slash - dest));
}

/* ---- Temporary files ---------------------------------------------------------
 *
 * The temporary file of a write to BASE is ".BASE.osh-XXXXXXXX.tmp" beside it (eight
 * random lowercase hexadecimal digits). A signal that ends the process removes it
 * (see "Signals"), but nothing of ours runs on SIGKILL, or when a handler of the
 * program's own ends it, and their leftovers would pile up. So the writer holds a
 * write lock on the whole file from its creation to its rename or removal: an open
 * file description lock, which the kernel drops when the last descriptor of that
 * description is closed, as the death of the process does whatever killed it. (Not a classic POSIX lock: those belong to the process,
 * and the sweep of another thread of the same process would be granted them.)
 *
 * Each write begins by sweeping its directory: one readdir, and every regular file
 * whose name has that pattern and whose lock it can take, no live writer holds, so
 * it is removed. The sweep probes with a read lock, through a descriptor for reading
 * only (a temporary file takes the destination's mode, which may deny writing), and
 * removes the file while holding it, only if the name still leads to the file it
 * locked. A writer locks its new file waiting out such a probe, and then checks that
 * the name is still its file: a sweep that came between the creation and the lock
 * removed it, and the writer takes another name. Names of another pattern, links,
 * FIFOs, devices and directories are never opened or removed. Where the file system
 * has no such locks (kernels before 3.15, some network file systems), writers go on
 * without them and sweeps remove nothing.
 */

#define TEMP_TAG ".osh-"
#define TEMP_DIGITS 8
#define TEMP_END ".tmp"

/* Whether name is "." BASE TEMP_TAG, TEMP_DIGITS lowercase hexadecimal digits and
 * TEMP_END, for some non-empty BASE. */
static bool is_temp_name(const char *name)
{
	size_t n = strlen(name), tag = strlen(TEMP_TAG), tail = tag + TEMP_DIGITS + strlen(TEMP_END);
	if (name[0] != '.' || n < 2 + tail)
		return false;
	const char *t = name + n - tail;
	if (memcmp(t, TEMP_TAG, tag) != 0 || strcmp(t + tag + TEMP_DIGITS, TEMP_END) != 0)
		return false;
	for (const char *h = t + tag; h < t + tag + TEMP_DIGITS; h++)
		if (!((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')))
			return false;
	return true;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Locks the whole file fd (l_len 0: to its end, however far it grows). */
static int lock_whole(int fd, int cmd, short type)
{
	struct flock lk = {.l_type = type, .l_whence = SEEK_SET};
	return fcntl(fd, cmd, &lk);
}

/* Removes the entry `name` of directory dfd if it is a regular file that no live
 * writer holds locked. */
static void remove_if_stale(int dfd, const char *name)
{
	struct stat seen, opened, now;
	if (fstatat(dfd, name, &seen, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(seen.st_mode))
		return;
	/* Should the name become a FIFO or a terminal after the check, the open neither
	 * blocks nor adopts it, and the fstat below turns it away. */
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &opened) == 0 && same_file(&opened, &seen) && lock_whole(fd, F_OFD_SETLK, F_RDLCK) == 0 &&
	    fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && same_file(&now, &opened))
		unlinkat(dfd, name, 0);
	close(fd); /* the lock goes only now, with the name */
}

/* The sweep (see above). Best effort: what cannot be read or removed stays for a later
 * write, and a directory we cannot use is reported when the temporary file cannot be
 * created in it. */
static void sweep_stale(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (is_temp_name(e->d_name))
			remove_if_stale(dirfd(d), e->d_name);
	closedir(d);
}

/* Locks the new temporary file fd, named path: false when a sweep removed it between
 * its creation and the lock (a sweep probing it now is waited for). */
static bool lock_new_temp(int fd, const char *path)
{
	while (lock_whole(fd, F_OFD_SETLKW, F_WRLCK) != 0) {
		if (errno != EINTR)
			return true; /* no such locks here: no sweep removes it either */
	}
	struct stat mine, named;
	return fstat(fd, &mine) == 0 && lstat(path, &named) == 0 && same_file(&mine, &named);
}

static int create_temp(const char *dir, const char *base, char **path)
{
	for (int attempt = 0; attempt < 64; attempt++) {
		uint32_t r = 0;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			r = (uint32_t)getpid() * 2654435761u + (uint32_t)attempt;
		char *p = NULL;
		if (asprintf(&p, "%s/.%s" TEMP_TAG "%08" PRIx32 TEMP_END, dir, base, r) < 0)
			return -ENOMEM;
		/* 0666 and O_EXCL: the umask applies as for any new file, and an existing
		 * file (or a symlink planted there) is never opened. */
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd >= 0 && lock_new_temp(fd, p)) {
			*path = p;
			return fd;
		}
		int e = fd >= 0 ? EEXIST : errno; /* swept away: another name */
		if (fd >= 0)
			close(fd);
		free(p);
		if (e != EEXIST)
			return -e;
	}
	return -EEXIST;
}

/* ---- Signals ------------------------------------------------------------------
 *
 * A signal that ends the process during a write must not leave the temporary file
 * behind. This is the library's only global state, and only because a signal
 * handler can reach nothing else: a table of the temporary files being written
 * right now, and the handlers that were in place before the first write in progress
 * installed ours.
 *
 * Which signals: every one whose default action ends the process (signal(7):
 * SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE, SIGXCPU, SIGXFSZ, the faults, the
 * real-time signals...; SIGKILL cannot be caught), while its disposition is that
 * default: a signal the program handles is the program's, and arrives as it would
 * have. SIGINT and SIGTERM are the exception: a program's handler of one of those
 * is called from ours, after the temporary file is gone (they ask the program to
 * stop; the write then fails cleanly if the handler returns).
 *
 * The handler is async-signal-safe: it reads the table (a path is published before
 * its slot is marked armed, with atomics) and calls unlink, nothing else that touches
 * the file system. Then the signal takes the course it would have taken without us:
 * the previous handler is called, or, for the default action, the default is put
 * back and the signal raised again, so the process still dies of it (and its parent
 * sees that). A signal that was ignored stays ignored: no handler is installed for
 * it. When the last write in progress ends, the previous handlers are restored
 * (unless the application replaced ours meanwhile: then its own stay).
 *
 * Limits: TEMP_SLOTS writes at once are protected (more proceed unprotected), and a
 * signal delivered to another thread in the instant between creating the temporary
 * file and arming its slot may leave it (the writing thread blocks them across that
 * instant).
 */

#define TEMP_SLOTS 16

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_ARMED };

typedef struct temp_slot {
	atomic_int state;
	char path[PATH_MAX];
} temp_slot;

/* Those of signal(7)'s signals with a default action of Term or Core that a process
 * can catch. */
static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
#ifdef SIGIO
	SIGIO,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGLOST
	SIGLOST,
#endif
#ifdef SIGEMT
	SIGEMT,
#endif
	SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGSYS,
};

#ifndef NSIG
#define NSIG 65
#endif

static temp_slot temp_slots[TEMP_SLOTS];
static int caught[NSIG];      /* fatal_signals, then SIGRTMIN to SIGRTMAX */
static int ncaught;
static sigset_t caught_set;
static struct sigaction previous[NSIG]; /* by signal: before the first write in progress */
static bool installed[NSIG];
static int writers; /* writes in progress; these under handlers_lock */
static pthread_mutex_t handlers_lock = PTHREAD_MUTEX_INITIALIZER;

/* caught and caught_set, once (under handlers_lock). */
static void list_signals(void)
{
	if (ncaught)
		return;
	sigemptyset(&caught_set);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		if (fatal_signals[i] > 0 && fatal_signals[i] < NSIG)
			caught[ncaught++] = fatal_signals[i];
#if defined(SIGRTMIN) && defined(SIGRTMAX)
	for (int sig = SIGRTMIN; sig <= SIGRTMAX && sig < NSIG && ncaught < NSIG; sig++)
		caught[ncaught++] = sig;
#endif
	for (int i = 0; i < ncaught; i++)
		sigaddset(&caught_set, caught[i]);
}

static bool is_default(const struct sigaction *sa) { return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL; }
static bool is_ignored(const struct sigaction *sa) { return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_IGN; }

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	write_abandon_all();
	const struct sigaction *prev = &previous[sig > 0 && sig < NSIG ? sig : 0];
	if (prev->sa_flags & SA_SIGINFO) {
		prev->sa_sigaction(sig, info, uctx);
	} else if (prev->sa_handler == SIG_DFL) {
		/* The signal is blocked while we run: raised again, it is delivered with
		 * the default action as soon as we return (a fault, by the instruction
		 * that caused it, run again). */
		sigaction(sig, prev, NULL);
		raise(sig);
	} else if (prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
	}
	errno = saved_errno;
}

void write_abandon_all(void)
{
	for (int i = 0; i < TEMP_SLOTS; i++)
		if (atomic_load(&temp_slots[i].state) == SLOT_ARMED)
			unlink(temp_slots[i].path);
}

static void install_handlers(void)
{
	pthread_mutex_lock(&handlers_lock);
	if (writers++ == 0) {
		list_signals();
		struct sigaction sa = {0};
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sa.sa_mask = caught_set;
		for (int i = 0; i < ncaught; i++) {
			int sig = caught[i];
			installed[sig] = false;
			if (sigaction(sig, NULL, &previous[sig]) != 0 || is_ignored(&previous[sig]))
				continue;
			if (!is_default(&previous[sig]) && sig != SIGINT && sig != SIGTERM)
				continue;
			installed[sig] = sigaction(sig, &sa, NULL) == 0;
		}
	}
	pthread_mutex_unlock(&handlers_lock);
}

/* The previous handler back in one call (what was there comes out of the same
 * call, so that a handler the program put in meanwhile is seen, and put back). */
static void restore_handlers(void)
{
	pthread_mutex_lock(&handlers_lock);
	if (--writers == 0) {
		for (int i = 0; i < ncaught; i++) {
			int sig = caught[i];
			struct sigaction cur;
			if (installed[sig] && sigaction(sig, &previous[sig], &cur) == 0 &&
			    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal))
				sigaction(sig, &cur, NULL);
			installed[sig] = false;
		}
	}
	pthread_mutex_unlock(&handlers_lock);
}

/* A free slot, claimed; -1 when all are in use. */
static int claim_slot(void)
{
	for (int i = 0; i < TEMP_SLOTS; i++) {
		int expected = SLOT_FREE;
		if (atomic_compare_exchange_strong(&temp_slots[i].state, &expected, SLOT_CLAIMED))
			return i;
	}
	return -1;
}

static void arm_slot(int slot, const char *path)
{
	if (slot < 0 || strlen(path) >= sizeof temp_slots[slot].path)
		return;
	strcpy(temp_slots[slot].path, path);
	atomic_store(&temp_slots[slot].state, SLOT_ARMED);
}

static void release_slot(int slot)
{
	if (slot >= 0)
		atomic_store(&temp_slots[slot].state, SLOT_FREE);
}

/* Creates the temporary file and arms its slot with the caught signals blocked in
 * this thread, so that they arrive either before the file exists or after the
 * handler knows about it (caught_set is set: install_handlers ran). A fault the
 * thread itself caused meanwhile would end the process at once, as it would have
 * anyway: only a fault sent by another process waits. */
static int create_armed_temp(const char *dir, const char *base, char **path, int slot)
{
	sigset_t old;
	bool masked = pthread_sigmask(SIG_BLOCK, &caught_set, &old) == 0;
	int fd = create_temp(dir, base, path);
	if (fd >= 0)
		arm_slot(slot, *path);
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	return fd;
}

/* dest as a write replaces it (malloc'd into *real): writing to a symbolic link
 * updates what it leads to (as cp does), rather than replacing the link with a file
 * and leaving its target stale. */
static osh_status resolve_dest(const char *dest, char **real, osh_error *err)
{
	struct stat lst;
	if (lstat(dest, &lst) != 0 || !S_ISLNK(lst.st_mode))
		*real = strdup(dest);
	else if (!(*real = realpath(dest, NULL)) && errno == ENOENT)
		return error_set(err, OSH_ERR_IO, "%s: is a symbolic link to a missing file", dest);
	else if (!*real && errno != ENOMEM) /* a loop, a directory we may not search */
		return error_set(err, OSH_ERR_IO, "%s: cannot follow the symbolic link: %s", dest, strerror(errno));
	return *real ? OSH_OK : error_set(err, OSH_ERR_NOMEM, "%s: out of memory", dest);
}

osh_status atomic_dest_dir(const char *dest, char **dir, osh_error *err)
{
	char *real = NULL;
	osh_status s = resolve_dest(dest, &real, err);
	if (s != OSH_OK)
		return s;
	const char *base;
	*dir = dir_of(real, &base);
	free(real);
	return *dir ? OSH_OK : error_set(err, OSH_ERR_NOMEM, "%s: out of memory", dest);
}

/* Only a regular file is replaced: renaming a file over a FIFO or a device would
 * swap what its readers and writers use (as root, the system's /dev/null) for a
 * plain file. `given`: dest as the caller named it, a link that leads to `real`. */
static osh_status refuse_special(const char *given, const char *real, mode_t mode, osh_error *err)
{
	if (S_ISDIR(mode))
		return error_set(err, OSH_ERR_IO, "%s: is a directory", real);
	const char *kind = S_ISFIFO(mode)  ? "a FIFO"
			   : S_ISCHR(mode) ? "a character device"
			   : S_ISBLK(mode) ? "a block device"
			   : S_ISSOCK(mode) ? "a socket"
					    : "of an unknown kind";
	if (strcmp(given, real) != 0)
		return error_set(err, OSH_ERR_IO,
				 "%s: leads to '%s', which is not a regular file (%s); refusing to replace it", given,
				 real, kind);
	return error_set(err, OSH_ERR_IO, "%s: is not a regular file (%s); refusing to replace it", given, kind);
}

/* The new file takes the old one's owner and group, then its mode (a change of owner
 * may clear the set-user-ID and set-group-ID bits), as an edit in place would keep
 * them. Only root may give a file away; another user keeps the group where a member
 * of it. Not being allowed (EPERM; EINVAL: an owner this user namespace cannot name)
 * is no error: the file is then the writer's, as with cp. 0 or an errno. */
static int take_over(int fd, const struct stat *old)
{
	if (fchown(fd, old->st_uid, old->st_gid) != 0) {
		if (errno != EPERM && errno != EINVAL)
			return errno;
		if (fchown(fd, (uid_t)-1, old->st_gid) != 0 && errno != EPERM && errno != EINVAL)
			return errno;
	}
	return fchmod(fd, old->st_mode & 07777) != 0 ? errno : 0;
}

/* open_temp for dest resolved: `real`. */
static osh_status open_temp_at(const char *given, const char *real, const atomic_opts *opts, atomic_file *f,
			       osh_error *err, int slot)
{
	struct stat st;
	bool exists = stat(real, &st) == 0;
	if (exists && !S_ISREG(st.st_mode))
		return refuse_special(given, real, st.st_mode, err);
	if (exists && opts->has_source && st.st_dev == opts->src.dev && st.st_ino == opts->src.ino &&
	    !opts->in_place)
		return error_set(err, OSH_ERR_SAME_FILE,
			    "%s: is the input model; refusing to overwrite it without --in-place", real);
	const char *base;
	char *dir = dir_of(real, &base);
	if (!dir)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", real);
	if (!*base) {
		free(dir);
		return error_set(err, OSH_ERR_IO, "%s: not a file name", real);
	}
	sweep_stale(dir);
	char *tmp = NULL;
	int fd = create_armed_temp(dir, base, &tmp, slot);
	if (fd < 0) {
		error_set(err, OSH_ERR_IO, "%s: cannot create a temporary file in '%s': %s", real, dir,
		     strerror(-fd));
		free(dir);
		return OSH_ERR_IO;
	}
	f->dest = strdup(real);
	f->dir = dir, f->tmp = tmp, f->fd = fd;
	f->mode_err = exists ? take_over(fd, &st) : 0;
	if (!f->dest) {
		unlink(tmp); /* while it is locked: no sweep removes it meanwhile */
		close(fd);
		free(tmp), free(dir);
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", real);
	}
	return OSH_OK;
}

/* Resolves dest, refuses what it must, and creates the temporary file (armed in
 * `slot`) into f. */
static osh_status open_temp(const char *dest, const atomic_opts *opts, atomic_file *f, osh_error *err, int slot)
{
	char *real = NULL;
	osh_status s = resolve_dest(dest, &real, err);
	if (s == OSH_OK)
		s = open_temp_at(dest, real, opts, f, err, slot);
	free(real);
	return s;
}

bool atomic_dest_is_source(const atomic_file *f, const atomic_opts *opts)
{
	struct stat st;
	return opts->has_source && stat(f->dest, &st) == 0 && st.st_dev == opts->src.dev && st.st_ino == opts->src.ino;
}

/* Whether f's destination is the path `src`, resolved as a destination is: the same
 * name in the same directory (compared as files: spelled differently, or through a
 * link, it is the same place). */
static bool dest_is_path(const atomic_file *f, const char *src)
{
	char *real = NULL;
	osh_error ignored;
	if (!src || resolve_dest(src, &real, &ignored) != OSH_OK)
		return false;
	const char *base, *slash = strrchr(f->dest, '/');
	const char *dest_base = slash ? slash + 1 : f->dest;
	char *dir = dir_of(real, &base);
	struct stat a, b;
	bool same = dir && !strcmp(base, dest_base) && stat(dir, &a) == 0 && stat(f->dir, &b) == 0 && same_file(&a, &b);
	free(dir);
	free(real);
	return same;
}

void atomic_guard_source(atomic_file *f, const atomic_opts *opts)
{
	f->guard = opts->has_source && (atomic_dest_is_source(f, opts) || dest_is_path(f, opts->src.path));
	if (f->guard) {
		f->src = opts->src;
		f->src.path = NULL;
	}
}

/* What f's destination names now is the source as it was read (f->guard): 0, or
 * ESTALE. */
static int source_still_there(const atomic_file *f)
{
	struct stat st;
	if (stat(f->dest, &st) != 0)
		return ESTALE; /* removed, or renamed away */
	if (st.st_dev != f->src.dev || st.st_ino != f->src.ino || (uint64_t)st.st_size != f->src.size ||
	    (int64_t)st.st_mtim.tv_sec != f->src.mtime_sec || (int64_t)st.st_mtim.tv_nsec != f->src.mtime_nsec)
		return ESTALE;
	return 0;
}

osh_status atomic_open(const char *dest, const atomic_opts *opts, atomic_file **out, osh_error *err)
{
	*out = NULL;
	atomic_file *f = calloc(1, sizeof *f);
	if (!f)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", dest);
	f->io = opts->io ? opts->io : &sys_io_default;
	f->durable = opts->durable;
	f->plain = opts->plain;
	f->fd = -1;
	install_handlers();
	f->slot = claim_slot();
	osh_status s = open_temp(dest, opts, f, err, f->slot);
	if (s != OSH_OK) {
		release_slot(f->slot);
		restore_handlers();
		free(f);
		return s;
	}
	atomic_guard_source(f, opts);
	*out = f;
	return OSH_OK;
}

static void atomic_free(atomic_file *f)
{
	release_slot(f->slot);
	restore_handlers();
	free(f->tmp), free(f->dir), free(f->dest);
	free(f);
}

void atomic_abort(atomic_file *f)
{
	if (!f)
		return;
	unlink(f->tmp); /* while it is locked: no sweep removes it meanwhile */
	f->io->close(f->fd);
	atomic_free(f);
}

osh_status atomic_commit(atomic_file *f, produce_fn produce, void *ctx, const out_pre *pre, uint64_t *skipped,
			 osh_error *err)
{
	const sys_io *io = f->io;
	int fd = f->fd;
	int e = f->mode_err;
	const char *what = e ? "set the owner and mode of" : "write";
	/* A durable output starts its writeback as it goes (start_writeback), after
	 * each write: it is written by this thread. So is a plain one, with write alone
	 * (no kernel copies, no early writeback: fsync does it all). */
	out_file o = {.fd = fd, .io = io, .buf = malloc(OUT_BUF_FIRST), .cap = OUT_BUF_FIRST,
		      .durable = f->durable && !f->plain, .may_flush_behind = !f->durable && !f->plain,
		      .no_copy = f->plain};
	if (pre)
		o.pre = *pre;
	if (!e && !o.buf)
		e = ENOMEM;
	if (!e) {
		e = produce(&o, ctx);
		if (!e) {
			out_drain(&o);
			e = o.err;
		} else if (o.behind) {
			flush_behind_drain(o.behind); /* done with the file before it goes */
		}
	}
	flush_behind_free(o.behind);
	free(o.buf);
	if (skipped)
		*skipped = o.skipped;
	/* What was copied ahead may reach past the end of what was produced. */
	if (!e && f->prefilled && ftruncate(fd, (off_t)o.written) != 0)
		e = errno, what = "truncate";
	if (!e && f->durable && io->fsync(fd) != 0)
		e = errno, what = "fsync";
	/* The close reports the file's last errors before the rename, but would drop its
	 * lock there, and another write's sweep could take it for a dead writer's: a
	 * second descriptor of it holds the lock until the file is renamed or removed.
	 * Without one (no descriptor left), the worst a sweep does is the rename's
	 * ENOENT. */
	int hold = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	int ce = io->close(fd) != 0 ? errno : 0;
	if (!e && ce)
		e = ce, what = "close";
	/* As late as can be: another program may have replaced the source meanwhile,
	 * renaming its own new file over it, which the source's descriptor never sees.
	 * Its file stays, as for a source changed in place (the same error). */
	if (!e && f->guard)
		e = source_still_there(f);
	if (!e && io->rename(f->tmp, f->dest) != 0)
		e = errno, what = "rename the temporary file over";
	if (e)
		unlink(f->tmp);
	if (hold >= 0)
		close(hold);
	if (e) {
		/* ESTALE is the source's change (source_still_there, or a copy from it
		 * that ended early), which the caller acts on apart from a failed write. */
		osh_status st = e == ESTALE ? OSH_ERR_CHANGED : OSH_ERR_IO;
		error_set(err, st, "%s: cannot %s the output: %s (the destination is unchanged)", f->dest, what,
			  strerror(e));
		atomic_free(f);
		return st;
	}
	/* The rename is durable only once the directory entry is. A failure here cannot be
	 * undone and the new file is complete, so it is not an error. */
	int dfd = f->durable ? open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	atomic_free(f);
	return OSH_OK;
}

osh_status write_atomic(const char *dest, const atomic_opts *opts, produce_fn produce, void *ctx,
			osh_error *err)
{
	atomic_file *f;
	osh_status s = atomic_open(dest, opts, &f, err);
	return s != OSH_OK ? s : atomic_commit(f, produce, ctx, NULL, NULL, err);
}
