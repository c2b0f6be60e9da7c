/* input_guard.c: the tool's answer to an input that shrinks while it is mapped.
 *
 * The tool maps the models it reads (osh_model_load_mapped): no copy, and the
 * weights stay the page cache's. The price is that a page read after another
 * process truncated the file raises SIGBUS, in whichever thread reads it, the
 * library's own included. The library leaves signals to the program; here, the
 * program answers: a handler that names the file, removes the temporary file of
 * any write in progress and exits 2, as for any other unreadable input.
 *
 * Going on with the other files of a `check DIR` would mean jumping out of the
 * library in the middle of its work (its locks, threads and arena in an unknown
 * state), so the run ends: what was printed before stays, nothing more is.
 *
 * A signal handler can reach only global state: a fixed table of the mappings in
 * use, one slot per model being loaded or worked on, written with atomics.
 */
#define _GNU_SOURCE
#include "cli.h"

#include "api/devices.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define GUARD_SLOTS 256

typedef struct guard_slot {
	atomic_bool used;
	atomic_uintptr_t start, end; /* the mapping; 0, 0 until the loader maps it */
	const char *_Atomic path;
} guard_slot;

static guard_slot slots[GUARD_SLOTS];

static void put(const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(STDERR_FILENO, s, n);
		if (w <= 0)
			return;
		s += w, n -= (size_t)w;
	}
}

/* The slot whose mapping holds addr; failing that, the only slot in use (a fault
 * the kernel reported without an address inside it); NULL when neither. */
static const char *culprit(uintptr_t addr, int *in_use)
{
	const char *only = NULL;
	*in_use = 0;
	for (int i = 0; i < GUARD_SLOTS; i++) {
		if (!atomic_load(&slots[i].used))
			continue;
		const char *p = atomic_load(&slots[i].path);
		uintptr_t s = atomic_load(&slots[i].start), e = atomic_load(&slots[i].end);
		if (addr >= s && addr < e)
			return p;
		(*in_use)++;
		only = p;
	}
	return *in_use == 1 ? only : NULL;
}

static void on_sigbus(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	int in_use;
	const char *path = culprit((uintptr_t)info->si_addr, &in_use);
	/* BUS_ADRERR: a page of a mapping past the end of its file. */
	if (info->si_code != BUS_ADRERR || (!path && !in_use)) {
		/* Not an input of ours: a fault like any other (or a kill), which must
		 * end the process as it would have, and leave no temporary file, as any
		 * signal that ends it during a write (the library's handler is not
		 * installed for a signal the program handles). */
		osh_write_abandon_all();
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	osh_write_abandon_all();
	if (path) {
		put(path);
		put(": error: the input changed while it was read (it was truncated)\n");
	} else {
		put("onnxshape");
		if (cli_command) {
			put(" ");
			put(cli_command);
		}
		put(": error: an input changed while it was read (it was truncated)\n");
	}
	_exit(EXIT_TROUBLE);
}

void input_guard_install(void)
{
	struct sigaction sa = {0};
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

static void on_map(void *ctx, const void *addr, size_t size)
{
	guard_slot *g = ctx;
	atomic_store(&g->end, 0); /* never a range between the two stores */
	atomic_store(&g->start, (uintptr_t)addr);
	atomic_store(&g->end, (uintptr_t)addr + size);
}

int input_guard_claim(const char *path, cli_load *lo)
{
	for (int i = 0; i < GUARD_SLOTS; i++) {
		bool expected = false;
		if (atomic_load(&slots[i].used) || !atomic_compare_exchange_strong(&slots[i].used, &expected, true))
			continue;
		atomic_store(&slots[i].start, 0);
		atomic_store(&slots[i].end, 0);
		atomic_store(&slots[i].path, path);
		lo->map = true;
		lo->on_map = on_map;
		lo->map_ctx = &slots[i];
		return i;
	}
	/* More models at once than slots: this one is read, not mapped. */
	lo->map = false;
	return -1;
}

void input_guard_release(int slot)
{
	if (slot < 0)
		return;
	atomic_store(&slots[slot].end, 0);
	atomic_store(&slots[slot].start, 0);
	atomic_store(&slots[slot].used, false);
}
