/* temp_file.c: a write's temporary file, created locked, and the sweep that removes
 * what dead writers left (see temp_file.h).
 *
 * Invariant: a temporary file is removed only by its writer, or by a sweep holding
 * its lock, which no live writer then holds.
 *
 * The temporary file of a write to BASE is ".BASE.osh-XXXXXXXX.tmp" beside it (eight
 * random lowercase hexadecimal digits). A signal that ends the process removes it
 * (temp_guard.c), but nothing of ours runs on SIGKILL, or when a handler of the
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

#define _GNU_SOURCE
#include "io/temp_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

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
void temp_sweep(const char *dir)
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

int temp_create(const char *dir, const char *base, char **path)
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
