/* test_write_signals.c: every signal that would end the process, during
 * write_atomic, removes the temporary file and still ends the process by that
 * signal; a signal the program handles is left to its handler.
 *
 * The list below is signal(7)'s, written out here (the test does not ask the code
 * which signals it catches): every signal whose default action is Term or Core but
 * SIGKILL, and the real-time signals. Each is sent to a child blocked in the middle
 * of a write (the temporary file exists and holds data), over an old file and over
 * none, on the fast path (a thread writing full buffers behind) and the plain one.
 * test_load_limits.c covers SIGINT and SIGTERM with a handler of the program's chained.
 */
#define _GNU_SOURCE
#include "pristine.h"
#include "io/atomic_file.h"

#include <criterion/criterion.h>
#include "test_files.h"

#include <signal.h>
#include <sys/resource.h>

static const struct {
	int sig;
	const char *name;
} fatal[] = {
	{SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},     {SIGQUIT, "SIGQUIT"},   {SIGILL, "SIGILL"},
	{SIGTRAP, "SIGTRAP"},     {SIGABRT, "SIGABRT"},   {SIGBUS, "SIGBUS"},     {SIGFPE, "SIGFPE"},
	{SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},   {SIGUSR2, "SIGUSR2"},   {SIGPIPE, "SIGPIPE"},
	{SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"},   {SIGSTKFLT, "SIGSTKFLT"}, {SIGXCPU, "SIGXCPU"},
	{SIGXFSZ, "SIGXFSZ"},     {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGIO, "SIGIO"},
	{SIGPWR, "SIGPWR"},       {SIGSYS, "SIGSYS"},
};
#define NFATAL (sizeof fatal / sizeof fatal[0])

static const char old_bytes[] = "the old content, which must survive the signal\n";

static void put_old(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, old_bytes, sizeof old_bytes - 1), (ssize_t)(sizeof old_bytes - 1));
	cr_assert_eq(close(fd), 0);
}

static bool holds_old(const char *path)
{
	size_t n;
	uint8_t *b = slurp(path, &n);
	bool same = n == sizeof old_bytes - 1 && !memcmp(b, old_bytes, n);
	free(b);
	return same;
}

typedef struct block_ctx {
	int ready_fd; /* a byte is written here once the temporary file holds data */
	int raise;    /* 0: wait to be killed; else raise it and go on */
	size_t bytes; /* written before that */
} block_ctx;

static int produce_then_wait(out_file *o, void *ctx)
{
	block_ctx *b = ctx;
	static uint8_t chunk[1 << 20];
	memset(chunk, 'x', sizeof chunk);
	for (size_t done = 0; done < b->bytes; done += sizeof chunk)
		out_write(o, chunk, sizeof chunk);
	out_flush(o);
	if (b->raise) {
		raise(b->raise);
	} else {
		if (write(b->ready_fd, "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	out_write(o, "end", 3);
	return o->err;
}

/* AddressSanitizer keeps handlers of its own for the faults (it reports them and
 * exits): such a signal is not left to its default action there, and so is not the
 * write's to clean up after. */
static bool sanitizer_handles(int sig)
{
#if defined(__SANITIZE_ADDRESS__)
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
#else
	(void)sig;
	return false;
#endif
}

/* A child writes over an old file (or a new one), 8 MiB (past the point where a
 * thread writes behind, unless plain), and is sent sig while it waits: it dies of
 * the signal, and the directory holds exactly what it held before. */
static void killed_mid_write(int sig, const char *name, bool exists, bool plain)
{
	char *dir = make_tmpdir_for("signals");
	char *dest = path_in(dir, "model.onnx");
	if (exists)
		put_old(dest);
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		pristine_signals();
		close(fds[0]);
		block_ctx ctx = {fds[1], 0, 8u << 20};
		atomic_opts ao = {.plain = plain};
		osh_error err;
		write_atomic(dest, &ao, produce_then_wait, &ctx, &err);
		_exit(3); /* not reached: the signal ends the process */
	}
	close(fds[1]);
	char c;
	cr_assert_eq(read(fds[0], &c, 1), 1, "%s: the child did not start writing", name);
	close(fds[0]);
	char *during = listing(dir);
	cr_expect(strstr(during, ".model.onnx.osh-"), "%s: no temporary file while writing: [%s]", name, during);
	free(during);
	cr_assert_eq(kill(pid, sig), 0);
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_expect(WIFSIGNALED(ws) && WTERMSIG(ws) == sig, "%s%s: the child did not die of it (status %#x)", name,
		  plain ? " (plain)" : "", ws);
	if (exists) {
		cr_expect(holds_old(dest), "%s: the old file changed", name);
		expect_listing(dir, "model.onnx", name);
	} else {
		expect_listing(dir, "", name);
	}
	free(dest);
	remove_dir(dir);
}

Test(write_signals, every_fatal_signal_removes_the_temporary_file, .timeout = 120)
{
	for (size_t i = 0; i < NFATAL; i++)
		for (int plain = 0; plain < 2; plain++)
			if (!sanitizer_handles(fatal[i].sig))
				killed_mid_write(fatal[i].sig, fatal[i].name, plain == 0, plain == 1);
}

Test(write_signals, real_time_signals_remove_the_temporary_file, .timeout = 120)
{
	char name[32];
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		snprintf(name, sizeof name, "SIGRTMIN+%d", sig - SIGRTMIN);
		killed_mid_write(sig, name, sig % 2 == 0, sig % 3 == 0);
	}
}

static volatile sig_atomic_t usr1_seen;
static void on_usr1(int sig) { usr1_seen = sig; }

static bool same_action(const struct sigaction *a, const struct sigaction *b)
{
	return (a->sa_flags & SA_SIGINFO) == (b->sa_flags & SA_SIGINFO) &&
	       ((a->sa_flags & SA_SIGINFO) ? a->sa_sigaction == b->sa_sigaction : a->sa_handler == b->sa_handler);
}

/* SIGUSR1 handled by the program during the write: its handler runs, as it would
 * have, and the write goes on to replace the file; every disposition is as it was
 * afterwards. */
Test(write_signals, a_handled_signal_is_the_programs, .timeout = 30)
{
	struct sigaction app = {0}, before[NSIG], after;
	app.sa_handler = on_usr1;
	sigemptyset(&app.sa_mask);
	cr_assert_eq(sigaction(SIGUSR1, &app, NULL), 0);
	for (int s = 1; s < NSIG; s++)
		sigaction(s, NULL, &before[s]);
	char *dir = make_tmpdir_for("signals");
	char *dest = path_in(dir, "model.onnx");
	put_old(dest);
	block_ctx ctx = {-1, SIGUSR1, 1u << 20};
	atomic_opts ao = {0};
	osh_error err = {0};
	usr1_seen = 0;
	cr_expect_eq(write_atomic(dest, &ao, produce_then_wait, &ctx, &err), OSH_OK, "%s", err.message);
	cr_expect_eq(usr1_seen, SIGUSR1, "the program's handler did not run");
	struct stat st;
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect_eq(st.st_size, (1 << 20) + 3, "the write did not go through");
	expect_listing(dir, "model.onnx", "handled SIGUSR1");
	for (int s = 1; s < NSIG; s++) {
		if (sigaction(s, NULL, &after) == 0)
			cr_expect(same_action(&after, &before[s]), "signal %d: its disposition changed", s);
	}
	signal(SIGUSR1, SIG_DFL);
	free(dest);
	remove_dir(dir);
}

/* An ignored SIGHUP (nohup) stays ignored: the write goes through. */
Test(write_signals, an_ignored_signal_stays_ignored, .timeout = 30)
{
	cr_assert_neq(signal(SIGHUP, SIG_IGN), SIG_ERR);
	char *dir = make_tmpdir_for("signals");
	char *dest = path_in(dir, "model.onnx");
	block_ctx ctx = {-1, SIGHUP, 1u << 20};
	atomic_opts ao = {0};
	osh_error err = {0};
	cr_expect_eq(write_atomic(dest, &ao, produce_then_wait, &ctx, &err), OSH_OK, "%s", err.message);
	expect_listing(dir, "model.onnx", "ignored SIGHUP");
	struct sigaction now;
	cr_assert_eq(sigaction(SIGHUP, NULL, &now), 0);
	cr_expect(!(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_IGN, "SIGHUP is no longer ignored");
	signal(SIGHUP, SIG_DFL);
	free(dest);
	remove_dir(dir);
}
