/* report_out.c: `-o FILE` for the commands that print a report (check, shapes,
 * print), as check.h describes.
 *
 * The report is written where the commands always write it, standard output, which
 * for the run is a temporary file in FILE's directory: the rename that replaces
 * FILE is atomic, so a reader (a CI step, a browser reloading the HTML) sees the
 * old report or the new one, never a part; a command that fails leaves FILE as it
 * was. The temporary file is hidden (".FILE.XXXXXX"), as an editor's is, and gets
 * the mode a new file would (0666 less the umask), not mkstemp's 0600.
 */
#define _GNU_SOURCE
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool report_out_open(report_out *r, const char *cmd, const char *path)
{
	*r = (report_out){.path = path};
	if (!path || is_stdout_path(path))
		return true;
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		usage_error(cmd, "-o %s: is a directory; -o wants the report's file", path);
		return false;
	}
	FILE *f = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		f = fopen(path, "w"); /* a device or a FIFO: nothing to rename over */
	} else {
		char *d = strdup(path), *b = strdup(path);
		if (d && b && asprintf(&r->tmp, "%s/.%s.XXXXXX", dirname(d), basename(b)) < 0)
			r->tmp = NULL;
		free(d), free(b);
		int fd = r->tmp ? mkstemp(r->tmp) : -1;
		if (fd >= 0) {
			mode_t mask = umask(0);
			umask(mask);
			if (fchmod(fd, 0666 & ~mask) != 0 || !(f = fdopen(fd, "w")))
				close(fd);
		}
		if (!f && r->tmp && fd >= 0)
			unlink(r->tmp);
	}
	if (!f) {
		fprintf(stderr, "onnxshape %s: error: cannot write the report to '%s': %s\n", cmd, path, strerror(errno));
		free(r->tmp);
		r->tmp = NULL;
		return false;
	}
	r->saved = stdout;
	stdout = f;
	return true;
}

int report_out_close(report_out *r, const char *cmd, int status, bool commit)
{
	if (!r->saved)
		return status;
	FILE *f = stdout;
	stdout = r->saved;
	r->saved = NULL;
	errno = 0;
	bool failed = fflush(f) != 0 || ferror(f);
	int e = errno ? errno : EIO;
	if (fclose(f) != 0 && !failed)
		failed = true, e = errno;
	if (!failed && commit && r->tmp && rename(r->tmp, r->path) != 0)
		failed = true, e = errno;
	if (r->tmp && (failed || !commit))
		unlink(r->tmp);
	free(r->tmp);
	r->tmp = NULL;
	if (!failed)
		return status;
	fprintf(stderr, "onnxshape %s: error: cannot write the report to '%s': %s\n", cmd, r->path, strerror(e));
	return EXIT_TROUBLE;
}

bool report_out_is_input(const char *path, const path_list *l)
{
	struct stat a, b;
	if (!path || is_stdout_path(path) || stat(path, &a) != 0)
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (!is_stdin_path(l->v[i]) && stat(l->v[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return true;
	return false;
}
