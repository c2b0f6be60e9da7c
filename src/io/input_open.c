/* input_open.c: opening a model file for one of the two inputs (input.h), and what
 * both do alike: the descriptor, the file's identity, closing.
 *
 * Invariant: an input's descriptor is open from input_open to input_close, and its
 * identity is the file's at open; the implementation is chosen here, once.
 */
#define _GNU_SOURCE /* st_mtim */
#include "io/input.h"
#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

osh_status input_open(input **out, const char *path, const input_config *cfg, osh_error *err)
{
	*out = NULL;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused below). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return error_set(err, OSH_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return error_set(err, OSH_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, OSH_ERR_IO, "%s: not a regular file", path);
	}
	input *in = cfg->plain ? input_plain_new() : input_fast_new();
	if (!in) {
		close(fd);
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", path);
	}
	in->cfg = *cfg;
	in->fd = fd;
	in->size = (uint64_t)st.st_size;
	in->dev = (uint64_t)st.st_dev;
	in->ino = (uint64_t)st.st_ino;
	in->mtime_sec = (int64_t)st.st_mtim.tv_sec;
	in->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
	*out = in;
	return OSH_OK;
}

/* A file written to while it was read (same size or not) may have given us half of
 * each version: refused, as a file that shrank is. */
osh_status input_unchanged(const input *in, const char *path, osh_error *err)
{
	struct stat st;
	if (fstat(in->fd, &st) != 0)
		return error_set(err, OSH_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
	if ((uint64_t)st.st_size != in->size || (int64_t)st.st_mtim.tv_sec != in->mtime_sec ||
	    (int64_t)st.st_mtim.tv_nsec != in->mtime_nsec)
		return error_set(err, OSH_ERR_IO, "%s: the input changed while it was read", path);
	return OSH_OK;
}

void input_close(input *in)
{
	if (!in)
		return;
	if (in->data)
		in->methods->drop(in);
	if (in->fd >= 0)
		close(in->fd);
	free(in);
}
