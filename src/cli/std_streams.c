/* std_streams.c: the tool's standard streams, so that a report that could not be
 * written is never a success.
 *
 * Standard output may be a full disk (or /dev/full), a closed descriptor, a pipe
 * whose reader is gone while SIGPIPE is ignored, or a file over the size limit. Its
 * FILE's error flag says that a write failed, but not why, and stdio drops a buffer
 * it could not write: errno is long gone by the time the command ends. So standard
 * output is a stream of ours (fopencookie; glibc's stdout is a variable a program
 * may set) writing to descriptor 1 and keeping the errno of the first failed write;
 * after it, nothing more is tried. The command's last act is streams_close.
 *
 * A descriptor 0, 1 or 2 that the tool was started without gets a placeholder
 * (/dev/null, opened the wrong way round, so that reading or writing it fails as
 * the closed descriptor would have): otherwise the first file the tool opens
 * becomes its standard output or error, and a report or a message lands in a model
 * or its temporary file.
 */
#define _GNU_SOURCE /* fopencookie */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* The errno of the first write to standard output that failed; 0: none did. Read
 * and written under the stream's lock (stdio calls out_write holding it), and at
 * the end. */
static int out_errno;

static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	size_t done = 0;
	while (done < n && !out_errno) {
		ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			out_errno = w < 0 ? errno : EIO;
		else
			done += (size_t)w;
	}
	/* Short: stdio sets the stream's error flag. */
	return (ssize_t)done;
}

static void hold_closed_descriptors(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free descriptor: fd, as those below it are open. */
		int p = open("/dev/null", (fd == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
		if (p >= 0 && p != fd)
			close(p);
	}
}

void streams_open(void)
{
	hold_closed_descriptors();
	cookie_io_functions_t io = {.write = out_write};
	FILE *out = fopencookie(NULL, "w", io);
	if (!out)
		return; /* stdio's own stream stays: its failures are still caught, with a vaguer reason */
	/* As stdio would buffer descriptor 1: by line on a terminal, so that what a
	 * command prints interleaves with its messages on stderr; else in big blocks. */
	setvbuf(out, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, (size_t)1 << 16);
	stdout = out;
}

int streams_close(const char *cmd, int status)
{
	errno = 0;
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	int e = out_errno ? out_errno : errno ? errno : EIO;
	/* The last errors of a file on a network file system come with its close. */
	if (!failed && close(STDOUT_FILENO) != 0 && errno != EINTR && errno != EBADF)
		failed = true, e = errno;
	if (!failed)
		return status;
	fprintf(stderr, "onnxshape%s%s: cannot write the report to standard output: %s\n", cmd ? " " : "",
		cmd ? cmd : "", strerror(e));
	return EXIT_TROUBLE;
}
