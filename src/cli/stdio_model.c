/* stdio_model.c: `-` as a model (standard input) and as an output (standard
 * output), for pipelines: `cat m.onnx | onnxshape infer - -o - | onnxshape check -`.
 *
 * Standard input is read whole and loaded from memory (osh_model_load_buffer): a
 * pipe cannot be mapped, and external data is then looked for relative to the
 * current directory. Standard output gets the packed model (osh_model_pack): the
 * atomic write of a file (a temporary file renamed over the destination) has no
 * meaning for a stream. /dev/stdout, or any path that is the very file standard
 * output is when that is not a regular file (a pipe, a terminal), means standard
 * output too: the library would refuse to replace a pipe, and through /proc its
 * link names no file at all.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "api/devices.h"

#include "core/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What messages call standard input. */
#define STDIN_NAME "<stdin>"

bool is_stdin_path(const char *path) { return !strcmp(path, "-"); }

bool is_stdout_path(const char *out)
{
	if (!strcmp(out, "-") || !strcmp(out, "/dev/stdout") || !strcmp(out, "/dev/fd/1") ||
	    !strcmp(out, "/proc/self/fd/1"))
		return true;
	struct stat a, b;
	return stat(out, &a) == 0 && fstat(1, &b) == 0 && !S_ISREG(a.st_mode) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* Standard input, whole, into *data (malloc'd); false with errno on failure. */
static bool read_stdin(uint8_t **data, size_t *size)
{
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL;
	for (;;) {
		if (n == cap) {
			uint8_t *bigger = grow_heap(buf, &cap, n + 1, (size_t)1 << 16, 1);
			if (!bigger) {
				free(buf);
				errno = ENOMEM;
				return false;
			}
			buf = bigger;
		}
		ssize_t r = read(0, buf + n, cap - n);
		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return false;
		}
		n += (size_t)r;
	}
	*data = buf;
	*size = n;
	return true;
}

osh_status load_model_from(osh_model **m, const char *path, const cli_load *how, osh_error *err)
{
	if (!is_stdin_path(path) && how->map)
		return osh_model_load_mapped(m, path, &how->lo, how->on_map, how->map_ctx, err);
	if (!is_stdin_path(path))
		return osh_model_load(m, path, &how->lo, err);
	*m = NULL;
	uint8_t *data;
	size_t size;
	if (!read_stdin(&data, &size)) {
		err->status = OSH_ERR_IO;
		snprintf(err->message, sizeof err->message, STDIN_NAME ": cannot read: %s", strerror(errno));
		return OSH_ERR_IO;
	}
	osh_status s = osh_model_load_buffer(m, data, size, STDIN_NAME, &how->lo, err);
	free(data);
	return s;
}

const char *shown_path(const char *path) { return is_stdin_path(path) ? STDIN_NAME : path; }

bool write_stdout(osh_model *m, const style *st)
{
	uint8_t *data;
	size_t size;
	osh_error err = {0};
	if (osh_model_pack(m, &data, &size, &err) != OSH_OK) {
		print_error(stderr, st, &err);
		return false;
	}
	fflush(stdout);
	for (size_t done = 0; done < size;) {
		ssize_t w = write(1, data + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fprintf(stderr, "%s: error: cannot write the model to standard output: %s\n", cli_prefix(),
				strerror(errno));
			free(data);
			return false;
		}
		done += (size_t)w;
	}
	free(data);
	return true;
}

/* A model named on the command line, its load errors and the findings of the load
 * printed; NULL (status EXIT_TROUBLE) when it could not be loaded or is malformed. */
osh_model *load_or_report(const char *path, const cli_load *how, const style *st, int *status)
{
	osh_model *m = NULL;
	osh_error err = {0};
	if (load_model_from(&m, path, how, &err) != OSH_OK) {
		print_error(stderr, st, &err);
		*status = EXIT_TROUBLE;
		return NULL;
	}
	print_diag_span(stderr, st, shown_path(path), m, 0, st->quiet);
	if (osh_model_is_malformed(m)) {
		*status = EXIT_TROUBLE;
		osh_model_free(m);
		return NULL;
	}
	*status = osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_CLEAN;
	return m;
}
