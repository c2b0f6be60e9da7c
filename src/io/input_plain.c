/* input_plain.c: the plain input (input.h), the reference the fast one must agree
 * with: the whole file read with pread into memory from malloc, on the caller's
 * thread; no mapping, no thread, no advice to the kernel. Being told the reader
 * passed an offset does nothing: the memory goes when the loader drops it.
 */
#include "io/input.h"
#include "core/pread_all.h"
#include "core/error.h"

#include <stdlib.h>

static osh_status plain_read(input *in, const char *path, osh_error *err)
{
	size_t size = (size_t)in->size;
	uint8_t *buf = malloc(size);
	if (!buf)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, size);
	int e = pread_all(in->fd, buf, size, 0);
	if (e) {
		free(buf);
		return input_read_error(path, e, err);
	}
	in->data = buf;
	return OSH_OK;
}

static void plain_passed(input *in, size_t upto)
{
	(void)in;
	(void)upto;
}

static void plain_drop(input *in)
{
	free(in->data);
	in->data = NULL;
}

static const input_methods plain_methods = {.read = plain_read, .passed = plain_passed, .drop = plain_drop};

input *input_plain_new(void)
{
	input *in = calloc(1, sizeof *in);
	if (in) {
		in->methods = &plain_methods;
		in->fd = -1;
	}
	return in;
}
