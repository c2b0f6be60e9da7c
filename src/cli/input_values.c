/* input_values.c: --input-data DIR and --input-value NAME=FILE.pb, shared by the
 * commands that infer: read TensorProto files and hand them to the library. */
#define _GNU_SOURCE
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = malloc(cap);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len < cap)
			break;
		unsigned char *nb = cap < ((size_t)1 << 31) ? realloc(buf, cap * 2) : NULL;
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	*size = len;
	return buf;
}

static bool give(osh_model *m, const char *name, int index, const char *path, const style *st)
{
	size_t size = 0;
	void *data = read_all(path, &size);
	if (!data) {
		fprintf(stderr, "%s: error: cannot read: %s\n", path, strerror(errno ? errno : EIO));
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
			FILE *probe = fopen(path, "rb");
			if (!probe)
				break; /* a model may have no inputs at all */
			fclose(probe);
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
