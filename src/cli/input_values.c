/* input_values.c: --input-data DIR and --input-value NAME=FILE.pb, shared by the
 * commands that infer: read TensorProto files and hand them to the library. */
#define _GNU_SOURCE
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* protobuf's limit for one message: a TensorProto file cannot be bigger. */
#define MAX_VALUE_BYTES (((size_t)2 << 30) - 1)

/* Opens path if it is a regular file that a TensorProto can fill: an fd and the
 * file's size, or -1 with *why. Anything else is refused before a byte is read, as
 * the model path is (osh_model_load): /dev/zero never ends, and a FIFO would wait
 * for a writer (O_NONBLOCK: not even the open waits). */
static int open_value(const char *path, size_t *size, const char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0)
		*why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if ((uint64_t)st.st_size > MAX_VALUE_BYTES)
		*why = "over protobuf's 2 GiB limit for one message";
	else {
		*size = (size_t)st.st_size;
		return fd;
	}
	close(fd);
	return -1;
}

/* The file at path whole (malloc'd, *size bytes), or NULL with *why. */
static void *read_value(const char *path, size_t *size, const char **why)
{
	size_t want;
	int fd = open_value(path, &want, why);
	if (fd < 0)
		return NULL;
	unsigned char *buf = malloc(want ? want : 1);
	if (!buf)
		*why = strerror(ENOMEM);
	/* Up to the size fstat saw: a file that grows meanwhile is read as it was. */
	size_t len = 0;
	while (buf && len < want) {
		ssize_t n = read(fd, buf + len, want - len);
		if (n > 0) {
			len += (size_t)n;
		} else if (n == 0) {
			break; /* it shrank: what is left is the value */
		} else if (errno != EINTR) {
			*why = strerror(errno);
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	*size = len;
	return buf;
}

static bool give(osh_model *m, const char *name, int index, const char *path, const style *st)
{
	size_t size = 0;
	const char *why = NULL;
	void *data = read_value(path, &size, &why);
	if (!data) {
		fprintf(stderr, "%s: error: cannot read: %s\n", path, why);
		return false;
	}
	osh_error err = {0};
	osh_status s = osh_model_set_input_value(m, name, index, data, size, &err);
	free(data);
	if (s != OSH_OK)
		print_error(stderr, st, &err);
	return s == OSH_OK;
}

bool apply_input_values(osh_model *m, const input_values *iv, const style *st)
{
	if (iv->data_dir) {
		DIR *d = opendir(iv->data_dir);
		if (!d) {
			fprintf(stderr, "%s: error: cannot read the directory: %s\n", iv->data_dir, strerror(errno));
			return false;
		}
		closedir(d);
		/* input_0.pb, input_1.pb, ... in order, as the ONNX test runners read them. */
		for (int i = 0;; i++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/input_%d.pb", iv->data_dir, i);
			/* Not opened here: a FIFO would wait for a writer (read_value refuses
			 * it without waiting). */
			if (access(path, F_OK) != 0)
				break; /* a model may have no inputs at all */
			if (!give(m, NULL, i, path, st))
				return false;
		}
	}
	for (size_t i = 0; i < iv->n; i++)
		if (!give(m, iv->names[i], -1, iv->paths[i], st))
			return false;
	return true;
}

bool parse_input_value(char *arg, input_values *iv)
{
	char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1] || iv->n == sizeof iv->names / sizeof iv->names[0])
		return false;
	*eq = '\0';
	iv->names[iv->n] = arg;
	iv->paths[iv->n++] = eq + 1;
	return true;
}
