/* input_fast.c: the fast input (input.h).
 *
 * The file is mapped (read-only, private: osh_model_load_mapped); only where it
 * cannot be is it read into an anonymous mapping, with huge pages when big. Mapped,
 * nothing is copied: reading a big model into fresh memory (the kernel zeroing each
 * page, then copying into it) was most of the time of loading it, and twice its size
 * in memory. Small files are mapped too: a page read into fresh memory costs a page
 * of it, faulted in and zeroed before the copy, while a mapped one is the page
 * cache's own. As the reader passes an offset, the mapping's pages behind it go back
 * to the page cache, in steps, by a thread of their own for a big file
 * (input_release.c); they come back if read again.
 *
 * What mapping gives up: a file rewritten by another process while we run is seen as
 * it changes (the pre-scan and protobuf-c then disagree: an error either way), and a
 * file truncated under the mapping is SIGBUS when a page past its new end is touched
 * (the program answers for it: on_map tells it where). Read into a private anonymous
 * mapping, nothing another process does to the file reaches what we read.
 *
 * Invariant: the release thread only drops pages of the mapping, which stays mapped
 * until drop has joined it.
 */
#define _GNU_SOURCE /* MADV_HUGEPAGE */
#include "io/input.h"
#include "io/input_release.h"
#include "core/error.h"
#include "core/pread_all.h"
#include "core/tuning.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct fast_input {
	input in; /* first: the interface's view of it */
	size_t released;    /* pages before this offset were dropped */
	releaser *releaser; /* drops them on its own thread, or NULL */
	bool releaser_tried;
} fast_input;

static osh_status fast_read(input *in, const char *path, osh_error *err)
{
	size_t size = (size_t)in->size;
	if (in->cfg.map_file) {
		uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, in->fd, 0);
		if (map != MAP_FAILED) {
			if (in->cfg.on_map)
				in->cfg.on_map(in->cfg.map_ctx, map, size);
			in->data = map;
			in->file_mapped = true;
			return OSH_OK;
		}
	}
	uint8_t *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, size);
#ifdef MADV_HUGEPAGE
	/* Fewer page faults for a big file (see core/arena.c); mere advice. */
	if (size >= INPUT_HUGE_MIN)
		madvise(buf, size, MADV_HUGEPAGE);
#endif
	int e = pread_all(in->fd, buf, size, 0);
	if (e) {
		munmap(buf, size);
		return input_read_error(path, e, err);
	}
	in->data = buf;
	return OSH_OK;
}

/* Pages go back RELEASE_STEP at a time: the index reads the weights right after the
 * pre-scan faulted them in, and fills the arena meanwhile; in bigger steps, what
 * it filled before the first step made the peak of a small model, and smaller
 * steps cost no time over them. From RELEASER_MIN up, a thread drops them
 * (input_release.h), started when the reader first passes a step; below,
 * starting it costs more than it saves. Only a mapping of the file gives pages back:
 * a private copy's would come back as zeros. */
static void fast_passed(input *in, size_t upto)
{
	fast_input *f = (fast_input *)in;
	size_t size = (size_t)in->size;
	if (!in->file_mapped || upto > size || size < INPUT_DROP_MIN)
		return;
	/* Told per initializer: most calls end here, before asking for the page size. */
	if (upto < f->released + RELEASE_STEP && upto < size)
		return;
	if (!f->releaser_tried && size >= RELEASER_MIN)
		f->releaser = releaser_new(in->data, size);
	f->releaser_tried = true;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	upto = upto / page * page;
	size_t end = size / page * page;
	if (upto < f->released + RELEASE_STEP && upto != end)
		return;
	/* To the end: everything, pages read again behind the mark included (the
	 * nodes' bytes, which come before the initializers, are read after them). */
	size_t from = upto == end ? 0 : f->released;
	/* The last call, which drops everything left (the nodes' pages, read after the
	 * weights), is the caller's own: left to the thread, it was still dropping while
	 * inference filled the arena, and the peak rose. */
	if (upto > from && !(f->releaser && upto != end && releaser_drop(f->releaser, from, upto)))
		madvise(in->data + from, upto - from, MADV_DONTNEED);
	f->released = upto;
}

static void fast_drop(input *in)
{
	fast_input *f = (fast_input *)in;
	releaser_free(f->releaser); /* joined before the mapping it drops pages of goes */
	f->releaser = NULL;
	munmap(in->data, (size_t)in->size);
	in->data = NULL;
	in->file_mapped = false;
}

static const input_methods fast_methods = {.read = fast_read, .passed = fast_passed, .drop = fast_drop};

input *input_fast_new(void)
{
	fast_input *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->in.methods = &fast_methods;
	f->in.fd = -1;
	return &f->in;
}
