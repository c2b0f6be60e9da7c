/* atomic_file.c: see atomic_file.h.
 *
 * Invariant: from the moment the temporary file exists until write_atomic returns,
 * every exit path either renames it over the destination (complete, and fsynced when
 * durable) or unlinks it. The destination is never opened for writing. A signal that
 * ends the process is an exit path too: while a temporary file exists, a handler
 * unlinks it before the signal takes its course (temp_guard.c). SIGKILL is not, so
 * the temporary file is locked for as long as it is being written, and what a dead
 * writer left is removed by the next write into its directory (temp_file.c).
 */
#define _GNU_SOURCE
#include "io/atomic_file.h"
#include "core/error.h"
#include "io/temp_file.h"
#include "io/temp_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	temp_sweep(dir);
	char *tmp = NULL;
	int fd = temp_guard_create(dir, base, &tmp, slot);
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
	bool same = dir && !strcmp(base, dest_base) && stat(dir, &a) == 0 && stat(f->dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
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
	f->slot = temp_guard_begin();
	osh_status s = open_temp(dest, opts, f, err, f->slot);
	if (s != OSH_OK) {
		temp_guard_end(f->slot);
		free(f);
		return s;
	}
	atomic_guard_source(f, opts);
	*out = f;
	return OSH_OK;
}

static void atomic_free(atomic_file *f)
{
	temp_guard_end(f->slot);
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
	/* The output chosen once, for the whole file: the plain one writes with write
	 * alone (no kernel copies, no early writeback: fsync does it all). */
	out_file o;
	int oe = out_open(&o, f->plain ? &output_plain : &output_fast, fd, io, f->durable, pre);
	if (!e)
		e = oe;
	if (!e) {
		int pe = produce(&o, ctx);
		int fe = out_finish(&o, pe == 0); /* done with the file before it goes */
		e = pe ? pe : fe;
	} else if (!oe) {
		out_finish(&o, false);
	}
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
