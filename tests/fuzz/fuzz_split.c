/* fuzz_split.c: libFuzzer target for the two-thread load of a big file (loader/load.c):
 * the input, padded past a megabyte with a doc_string (ModelProto field 6) after its
 * own bytes, is loaded from a file, its main graph's nodes and initializers
 * pre-scanned by a second thread while the index reads them, and from memory, in one
 * thread. The two must agree: status and message, or the same diagnostics. See fuzz.h.
 *
 * The file is written in a fresh directory of its own, so that external data
 * references resolve to nothing there, as under FUZZ_NAME.
 */
#define _GNU_SOURCE /* mkdtemp */
#include "fuzz.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAD ((size_t)1 << 20)
/* The padding's key and length: field 6, length-delimited; 2^20 as a varint. */
static const uint8_t pad_head[] = {6 << 3 | 2, 0x80, 0x80, 0x40};

/* The scratch file: made on the first input, removed at exit. */
static char dir[64], path[96];

static void remove_scratch(void)
{
	unlink(path);
	rmdir(dir);
}

static void make_scratch(void)
{
	if (path[0])
		return;
	snprintf(dir, sizeof dir, "/tmp/osh_fuzz_split.XXXXXX");
	if (!mkdtemp(dir))
		fuzz_fail("mkdtemp failed");
	snprintf(path, sizeof path, "%s/model.onnx", dir);
	atexit(remove_scratch);
}

static void write_file(const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		fuzz_fail("cannot write %s", path);
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, p + done, n - done);
		if (w <= 0)
			fuzz_fail("cannot write %s", path);
		done += (size_t)w;
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	make_scratch();
	size_t n = size + sizeof pad_head + PAD;
	uint8_t *b = malloc(n);
	if (!b)
		return 0;
	memcpy(b, data, size);
	memcpy(b + size, pad_head, sizeof pad_head);
	memset(b + size + sizeof pad_head, 'd', PAD);
	write_file(b, n);

	osh_model *mf = NULL, *mm = NULL;
	osh_error ef = {0}, em = {0};
	osh_status sf = osh_model_load(&mf, path, NULL, &ef);
	osh_status sm = osh_model_load_buffer(&mm, b, n, path, NULL, &em);
	if (sf != sm)
		fuzz_fail("status %d from the file, %d from memory: %s | %s", (int)sf, (int)sm, ef.message, em.message);
	if (sf != OSH_OK && strcmp(ef.message, em.message))
		fuzz_fail("the file: %s | memory: %s", ef.message, em.message);
	if (sf == OSH_OK) {
		size_t k = osh_model_diag_count(mf);
		if (k != osh_model_diag_count(mm) || osh_model_is_malformed(mf) != osh_model_is_malformed(mm))
			fuzz_fail("%zu diagnostics from the file, %zu from memory", k, osh_model_diag_count(mm));
		for (size_t i = 0; i < k; i++)
			if (strcmp(osh_model_diag_at(mf, i)->message, osh_model_diag_at(mm, i)->message))
				fuzz_fail("diagnostic %zu: %s | %s", i, osh_model_diag_at(mf, i)->message,
					  osh_model_diag_at(mm, i)->message);
	}
	osh_model_free(mf);
	osh_model_free(mm);
	free(b);
	return 0;
}
