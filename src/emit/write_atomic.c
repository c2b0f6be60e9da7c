/* write_atomic.c: see write_atomic.h.
 *
 * Invariant: from the moment the temporary file exists until write_atomic returns,
 * every exit path either renames it over the destination (complete and fsynced) or
 * unlinks it. The destination is never opened for writing.
 */
#define _GNU_SOURCE
#include "emit/write_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

const sys_io sys_io_default = {write, fsync, close, rename};

#define OUT_BUF (1u << 20)

void out_flush(out_file *o)
{
	size_t off = 0;
	while (!o->err && off < o->len) {
		ssize_t w = o->io->write(o->fd, o->buf + off, o->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			o->err = w < 0 ? errno : EIO;
		else
			off += (size_t)w;
	}
	o->len = 0;
}

void out_write(out_file *o, const void *data, size_t n)
{
	if (o->err || n == 0) /* data may be NULL for an empty bytes field */
		return;
	if (o->len + n > o->cap) {
		out_flush(o);
		if (n >= o->cap) { /* large blocks go straight out, no copy */
			unsigned char *saved = o->buf;
			size_t cap = o->cap;
			o->buf = (unsigned char *)data, o->len = n, o->cap = n;
			out_flush(o);
			o->buf = saved, o->cap = cap;
			return;
		}
	}
	memcpy(o->buf + o->len, data, n);
	o->len += n;
}

static osh_status fail(osh_error *err, osh_status st, const char *fmt, ...)
{
	if (err) {
		err->status = st;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return st;
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

static int create_temp(const char *dir, const char *base, char **path)
{
	for (int attempt = 0; attempt < 64; attempt++) {
		uint64_t r = 0;
		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
			r = (uint64_t)getpid() * 2654435761u + (uint64_t)attempt;
		char *p = NULL;
		if (asprintf(&p, "%s/.%s.%012llx.tmp", dir, base, (unsigned long long)(r & 0xffffffffffffull)) < 0)
			return -ENOMEM;
		/* 0666 and O_EXCL: the umask applies as for any new file, and an existing
		 * file (or a symlink planted there) is never opened. */
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd >= 0) {
			*path = p;
			return fd;
		}
		int e = errno;
		free(p);
		if (e != EEXIST)
			return -e;
	}
	return -EEXIST;
}

osh_status write_atomic(const char *dest, const atomic_opts *opts, produce_fn produce, void *ctx,
			osh_error *err)
{
	const sys_io *io = opts->io ? opts->io : &sys_io_default;
	/* Writing to a symlink updates what it points to (as cp does), rather than
	 * replacing the link with a file and leaving its target stale. */
	struct stat lst;
	char *resolved = NULL;
	if (lstat(dest, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		resolved = realpath(dest, NULL);
		if (!resolved)
			return fail(err, OSH_ERR_IO, "%s: is a symbolic link to a missing file", dest);
		osh_status s = write_atomic(resolved, opts, produce, ctx, err);
		free(resolved);
		return s;
	}
	struct stat st;
	bool exists = stat(dest, &st) == 0;
	if (exists && S_ISDIR(st.st_mode))
		return fail(err, OSH_ERR_IO, "%s: is a directory", dest);
	if (exists && opts->has_source && st.st_dev == opts->src_dev && st.st_ino == opts->src_ino &&
	    !opts->in_place)
		return fail(err, OSH_ERR_SAME_FILE,
			    "%s: is the input model; refusing to overwrite it without --in-place", dest);
	const char *base;
	char *dir = dir_of(dest, &base);
	if (!dir)
		return fail(err, OSH_ERR_NOMEM, "%s: out of memory", dest);
	if (!*base) {
		free(dir);
		return fail(err, OSH_ERR_IO, "%s: not a file name", dest);
	}
	char *tmp = NULL;
	int fd = create_temp(dir, base, &tmp);
	if (fd < 0) {
		fail(err, OSH_ERR_IO, "%s: cannot create a temporary file in '%s': %s", dest, dir,
		     strerror(-fd));
		free(dir);
		return OSH_ERR_IO;
	}
	int e = 0;
	const char *what = "write";
	if (exists && fchmod(fd, st.st_mode & 07777) != 0)
		e = errno, what = "set the mode of";
	out_file o = {.fd = fd, .io = io, .buf = malloc(OUT_BUF), .cap = OUT_BUF};
	if (!e && !o.buf)
		e = ENOMEM;
	if (!e) {
		e = produce(&o, ctx);
		if (!e) {
			out_flush(&o);
			e = o.err;
		}
	}
	free(o.buf);
	if (!e && io->fsync(fd) != 0)
		e = errno, what = "fsync";
	int ce = io->close(fd) != 0 ? errno : 0;
	if (!e && ce)
		e = ce, what = "close";
	if (!e && io->rename(tmp, dest) != 0)
		e = errno, what = "rename the temporary file over";
	if (e) {
		unlink(tmp);
		free(tmp);
		free(dir);
		return fail(err, OSH_ERR_IO, "%s: cannot %s the output: %s (the destination is unchanged)",
			    dest, what, strerror(e));
	}
	/* The rename is durable only once the directory entry is. A failure here cannot be
	 * undone and the new file is complete, so it is not an error. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
	free(dir);
	return OSH_OK;
}
