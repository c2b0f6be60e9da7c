/* temp_guard.c: the signal handlers that remove the temporary files of the writes
 * in progress (see temp_guard.h).
 *
 * A signal that ends the process during a write must not leave the temporary file
 * behind. This is the library's only global state, and only because a signal
 * handler can reach nothing else: a table of the temporary files being written
 * right now, and the handlers that were in place before the first write in progress
 * installed ours.
 *
 * Which signals: every one whose default action ends the process (signal(7):
 * SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, SIGPIPE, SIGXCPU, SIGXFSZ, the faults, the
 * real-time signals...; SIGKILL cannot be caught), while its disposition is that
 * default: a signal the program handles is the program's, and arrives as it would
 * have. SIGINT and SIGTERM are the exception: a program's handler of one of those
 * is called from ours, after the temporary file is gone (they ask the program to
 * stop; the write then fails cleanly if the handler returns).
 *
 * The handler is async-signal-safe: it reads the table (a path is published before
 * its slot is marked armed, with atomics) and calls unlink, nothing else that touches
 * the file system. Then the signal takes the course it would have taken without us:
 * the previous handler is called, or, for the default action, the default is put
 * back and the signal raised again, so the process still dies of it (and its parent
 * sees that). A signal that was ignored stays ignored: no handler is installed for
 * it. When the last write in progress ends, the previous handlers are restored
 * (unless the application replaced ours meanwhile: then its own stay).
 *
 * Limits: TEMP_SLOTS writes at once are protected (more proceed unprotected), and a
 * signal delivered to another thread in the instant between creating the temporary
 * file and arming its slot may leave it (the writing thread blocks them across that
 * instant).
 */
#define _GNU_SOURCE
#include "io/temp_guard.h"
#include "io/temp_file.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define TEMP_SLOTS 16

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_ARMED };

typedef struct temp_slot {
	atomic_int state;
	char path[PATH_MAX];
} temp_slot;

/* Those of signal(7)'s signals with a default action of Term or Core that a process
 * can catch. */
static const int fatal_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
#ifdef SIGIO
	SIGIO,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGLOST
	SIGLOST,
#endif
#ifdef SIGEMT
	SIGEMT,
#endif
	SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGSEGV, SIGSYS,
};

#ifndef NSIG
#define NSIG 65
#endif

static temp_slot temp_slots[TEMP_SLOTS];
static int caught[NSIG];      /* fatal_signals, then SIGRTMIN to SIGRTMAX */
static int ncaught;
static sigset_t caught_set;
static struct sigaction previous[NSIG]; /* by signal: before the first write in progress */
static bool installed[NSIG];
static int writers; /* writes in progress; these under handlers_lock */
static pthread_mutex_t handlers_lock = PTHREAD_MUTEX_INITIALIZER;

/* caught and caught_set, once (under handlers_lock). */
static void list_signals(void)
{
	if (ncaught)
		return;
	sigemptyset(&caught_set);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		if (fatal_signals[i] > 0 && fatal_signals[i] < NSIG)
			caught[ncaught++] = fatal_signals[i];
#if defined(SIGRTMIN) && defined(SIGRTMAX)
	for (int sig = SIGRTMIN; sig <= SIGRTMAX && sig < NSIG && ncaught < NSIG; sig++)
		caught[ncaught++] = sig;
#endif
	for (int i = 0; i < ncaught; i++)
		sigaddset(&caught_set, caught[i]);
}

static bool is_default(const struct sigaction *sa) { return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL; }
static bool is_ignored(const struct sigaction *sa) { return !(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_IGN; }

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	int saved_errno = errno;
	write_abandon_all();
	const struct sigaction *prev = &previous[sig > 0 && sig < NSIG ? sig : 0];
	if (prev->sa_flags & SA_SIGINFO) {
		prev->sa_sigaction(sig, info, uctx);
	} else if (prev->sa_handler == SIG_DFL) {
		/* The signal is blocked while we run: raised again, it is delivered with
		 * the default action as soon as we return (a fault, by the instruction
		 * that caused it, run again). */
		sigaction(sig, prev, NULL);
		raise(sig);
	} else if (prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
	}
	errno = saved_errno;
}

void write_abandon_all(void)
{
	for (int i = 0; i < TEMP_SLOTS; i++)
		if (atomic_load(&temp_slots[i].state) == SLOT_ARMED)
			unlink(temp_slots[i].path);
}

static void install_handlers(void)
{
	pthread_mutex_lock(&handlers_lock);
	if (writers++ == 0) {
		list_signals();
		struct sigaction sa = {0};
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sa.sa_mask = caught_set;
		for (int i = 0; i < ncaught; i++) {
			int sig = caught[i];
			installed[sig] = false;
			if (sigaction(sig, NULL, &previous[sig]) != 0 || is_ignored(&previous[sig]))
				continue;
			if (!is_default(&previous[sig]) && sig != SIGINT && sig != SIGTERM)
				continue;
			installed[sig] = sigaction(sig, &sa, NULL) == 0;
		}
	}
	pthread_mutex_unlock(&handlers_lock);
}

/* The previous handler back in one call (what was there comes out of the same
 * call, so that a handler the program put in meanwhile is seen, and put back). */
static void restore_handlers(void)
{
	pthread_mutex_lock(&handlers_lock);
	if (--writers == 0) {
		for (int i = 0; i < ncaught; i++) {
			int sig = caught[i];
			struct sigaction cur;
			if (installed[sig] && sigaction(sig, &previous[sig], &cur) == 0 &&
			    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal))
				sigaction(sig, &cur, NULL);
			installed[sig] = false;
		}
	}
	pthread_mutex_unlock(&handlers_lock);
}

/* A free slot, claimed; -1 when all are in use. */
static int claim_slot(void)
{
	for (int i = 0; i < TEMP_SLOTS; i++) {
		int expected = SLOT_FREE;
		if (atomic_compare_exchange_strong(&temp_slots[i].state, &expected, SLOT_CLAIMED))
			return i;
	}
	return -1;
}

static void arm_slot(int slot, const char *path)
{
	if (slot < 0 || strlen(path) >= sizeof temp_slots[slot].path)
		return;
	strcpy(temp_slots[slot].path, path);
	atomic_store(&temp_slots[slot].state, SLOT_ARMED);
}

static void release_slot(int slot)
{
	if (slot >= 0)
		atomic_store(&temp_slots[slot].state, SLOT_FREE);
}

/* Creates the temporary file and arms its slot with the caught signals blocked in
 * this thread, so that they arrive either before the file exists or after the
 * handler knows about it (caught_set is set: temp_guard_begin ran). A fault the
 * thread itself caused meanwhile would end the process at once, as it would have
 * anyway: only a fault sent by another process waits. */
int temp_guard_create(const char *dir, const char *base, char **path, int slot)
{
	sigset_t old;
	bool masked = pthread_sigmask(SIG_BLOCK, &caught_set, &old) == 0;
	int fd = temp_create(dir, base, path);
	if (fd >= 0)
		arm_slot(slot, *path);
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	return fd;
}

int temp_guard_begin(void)
{
	install_handlers();
	return claim_slot();
}

void temp_guard_end(int slot)
{
	release_slot(slot);
	restore_handlers();
}
