/* test_cli_output.c: the tool's output, whatever becomes of it (OSH_CLI, the built
 * binary, run with fork/exec).
 *
 *  - A report that cannot be written (standard output /dev/full, closed, a pipe whose
 *    reader is gone while SIGPIPE is ignored, a file cut by the size limit) is exit
 *    2 with a message, for every command that prints, --help and version too.
 *  - infer -o and rewrite -o under a file size limit (ulimit -f): exit 2 with the
 *    write's EFBIG, the destination unchanged, no temporary file; not SIGXFSZ.
 *  - Every signal whose default action ends the process, during infer -o: the tool
 *    dies of it, the destination is the old file or the whole new one, and no
 *    temporary file is left.
 *  - infer and rewrite --in-place of a model another program renamed a new file
 *    over meanwhile: exit 2, the newer file kept, no temporary file.
 *  - Names holding controls, bidirectional formatting characters and bytes that are
 *    not UTF-8: escaped in the text reports (check, print, shapes, messages), and
 *    valid JSON.
 * The writes run both ways (ONNXSHAPE_PLAIN_IO=0 and 1).
 *
 * The tool is held at a known point by its own stderr: with --dump-after=load it
 * prints the IR once the model is loaded (on the fast path, its temporary file,
 * begun while loading, exists then), more than the one-page pipe it writes to
 * holds, and waits until the test reads on. What a test sees there is decided by
 * no timing.
 */
#define _GNU_SOURCE
#include "pristine.h"
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "mb.h"
#include "test_files.h"

#include <sys/resource.h>
#include <time.h>

#define GOOD_DIR OSH_MODELS_DIR "/good"
#define LINT_DIR OSH_MODELS_DIR "/lint"
#define GOOD_MODEL GOOD_DIR "/if_outer.onnx"

/* ---- running the tool ----------------------------------------------------------- */

typedef enum { OUT_FILE, OUT_FULL, OUT_CLOSED, OUT_GONE } out_kind;
static const char *const out_names[] = {"a file", "/dev/full", "closed", "a pipe whose reader is gone"};

typedef struct spawn {
	const char *const *argv; /* argv[0] included, NULL-terminated */
	out_kind out;
	const char *out_path; /* OUT_FILE; NULL: /dev/null */
	const char *err_path; /* stderr into this file, unless err_fd >= 0 */
	int err_fd;
	long fsize; /* > 0: RLIMIT_FSIZE, SIGXFSZ left to its default */
	int plain;  /* ONNXSHAPE_PLAIN_IO: 0 or 1, or -1 as the test runs */
} spawn;

static pid_t start(const spawn *s)
{
	int gone[2] = {-1, -1};
	if (s->out == OUT_GONE) {
		cr_assert_eq(pipe2(gone, O_CLOEXEC), 0);
		close(gone[0]); /* the reader is gone before the tool starts */
	}
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		pristine_signals();
		if (s->out == OUT_GONE)
			signal(SIGPIPE, SIG_IGN); /* kept across exec */
		int in = open("/dev/null", O_RDONLY);
		int err = s->err_fd >= 0 ? s->err_fd : open(s->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || err < 0 || dup2(in, 0) < 0 || dup2(err, 2) < 0)
			_exit(126);
		int out = -1;
		if (s->out == OUT_FILE)
			out = s->out_path ? open(s->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600) : open("/dev/null", O_WRONLY);
		else if (s->out == OUT_FULL)
			out = open("/dev/full", O_WRONLY);
		else if (s->out == OUT_GONE)
			out = gone[1];
		if (s->out == OUT_CLOSED)
			close(1);
		else if (out < 0 || dup2(out, 1) < 0)
			_exit(126);
		if (s->plain >= 0)
			setenv("ONNXSHAPE_PLAIN_IO", s->plain ? "1" : "0", 1);
		if (s->fsize > 0) {
			struct rlimit rl = {(rlim_t)s->fsize, (rlim_t)s->fsize};
			if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
				_exit(126);
		}
		execv(s->argv[0], (char *const *)s->argv);
		_exit(127);
	}
	if (gone[1] >= 0)
		close(gone[1]);
	return pid;
}

/* The exit status, or 128 + the signal that ended it. */
static int finish(pid_t pid)
{
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	int status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	cr_assert_neq(status, 126, "could not set up the child");
	cr_assert_neq(status, 127, "cannot run the program");
	return status;
}

static char capture[] = "/tmp/osh_test_cli_output.XXXXXX";
static char *err_file; /* in capture */

static void setup(void)
{
	cr_assert(mkdtemp(capture), "mkdtemp: %s", strerror(errno));
	err_file = path_in(capture, "stderr");
}

static void teardown(void)
{
	unlink(err_file);
	free(err_file);
	rmdir(capture);
}

TestSuite(cli_output, .init = setup, .fini = teardown, .timeout = 240);

/* Runs s with stderr into err_file; returns the status, *err what it printed there
 * (malloc'd). */
static int run_spawn(spawn *s, char **err)
{
	s->err_path = err_file;
	s->err_fd = -1;
	int status = finish(start(s));
	size_t n;
	*err = (char *)slurp(err_file, &n);
	(*err)[n] = '\0';
	return status;
}

/* Holds the tool at its first page of stderr: stderr is a pipe of one page, read
 * up to its first byte. Returns the read end, to release() it. */
static int start_held(spawn *s, pid_t *pid)
{
	int p[2];
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert(fcntl(p[1], F_SETPIPE_SZ, 4096) > 0, "F_SETPIPE_SZ: %s", strerror(errno));
	s->err_fd = p[1];
	*pid = start(s);
	close(p[1]);
	char c;
	cr_assert_eq(read(p[0], &c, 1), 1, "the tool printed nothing on stderr");
	return p[0];
}

/* Reads the rest of the tool's stderr (malloc'd) and closes the pipe. */
static char *release(int rd)
{
	size_t n = 0, cap = 1 << 16;
	char *s = malloc(cap);
	cr_assert(s);
	for (;;) {
		if (n + 4096 > cap)
			cr_assert(s = realloc(s, cap *= 2));
		ssize_t r = read(rd, s + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		cr_assert(r >= 0, "read: %s", strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	s[n] = '\0';
	close(rd);
	return s;
}

static bool contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

static bool same_file_bytes(const char *a, const void *data, size_t n)
{
	size_t m;
	uint8_t *d = slurp(a, &m);
	bool same = m == n && !memcmp(d, data, n);
	free(d);
	return same;
}

/* ---- models ---------------------------------------------------------------------- */

/* x -> Add(w) -> `relus` Relu nodes -> y, w a FLOAT initializer of `floats` zeros:
 * enough nodes that the IR dump (--dump-after) is many pages; 1 MiB of weights and
 * more, and infer copies them into its output while it loads. */
static void big_model(const char *path, int relus, const char *w_dims)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, w_dims);
	mb_init(b, "w", DT_FLOAT, w_dims);
	mb_node(b, "Add", "x,w", "t0");
	char in[32], out[32];
	for (int i = 0; i < relus; i++) {
		snprintf(in, sizeof in, "t%d", i);
		snprintf(out, sizeof out, "t%d", i + 1);
		mb_node(b, "Relu", in, out);
	}
	mb_output(b, out, DT_FLOAT, NULL);
	mb_save(b, path);
}

static const char old_bytes[] = "the old output, which a failed write leaves as it is\n";

/* ---- a report that cannot be written ---------------------------------------------- */

/* Every command that prints to standard output, on a model it reads cleanly. */
static const char *const printing[][8] = {
	{"check", GOOD_MODEL},
	{"check", "--format", "json", GOOD_MODEL},
	{"check", "--format", "sarif", GOOD_MODEL},
	{"check", "--format", "html", GOOD_MODEL},
	{"check", "--list-rules"},
	{"check", "--list-rules", "--format", "json"},
	{"shapes", GOOD_MODEL},
	{"shapes", "--format", "json", GOOD_MODEL},
	{"print", GOOD_MODEL},
	{"print", "--values", GOOD_MODEL},
	{"rewrite", "--dry-run", GOOD_MODEL},
	{"--help"},
	{"check", "--help"},
	{"infer", "--help"},
	{"rewrite", "--help"},
	{"print", "--help"},
	{"shapes", "--help"},
	{"version"},
	{"--version"},
};

Test(cli_output, reports_that_cannot_be_written_exit_2)
{
	static const int why[] = {0, ENOSPC, EBADF, EPIPE};
	for (size_t i = 0; i < sizeof printing / sizeof printing[0]; i++) {
		const char *argv[10] = {OSH_CLI};
		for (int k = 0; printing[i][k]; k++)
			argv[k + 1] = printing[i][k];
		char what[128];
		snprintf(what, sizeof what, "%s %s %s", printing[i][0], printing[i][1] ? printing[i][1] : "",
			 printing[i][2] ? printing[i][2] : "");
		for (int out = OUT_FILE; out <= OUT_GONE; out++) {
			spawn s = {.argv = argv, .out = (out_kind)out, .plain = -1};
			char *err;
			int status = run_spawn(&s, &err);
			if (out == OUT_FILE) {
				cr_expect_eq(status, 0, "%s: exit %d: %s", what, status, err);
				cr_expect(!contains(err, "cannot write"), "%s: %s", what, err);
			} else {
				cr_expect_eq(status, 2, "%s, standard output %s: exit %d", what, out_names[out], status);
				cr_expect(contains(err, "cannot write the report to standard output") &&
						  contains(err, strerror(why[out])),
					  "%s, standard output %s: %s", what, out_names[out], err);
			}
			free(err);
		}
	}
}

/* What the report says comes first: the exit status of a model with errors, 1, is
 * 2 when its report could not be written. */
Test(cli_output, findings_unwritten_are_exit_2)
{
	const char *argv[] = {OSH_CLI, "check", LINT_DIR "/broadcast_mismatch.onnx", NULL};
	spawn s = {.argv = argv, .out = OUT_FILE, .plain = -1};
	char *err;
	cr_expect_eq(run_spawn(&s, &err), 1, "%s", err);
	free(err);
	s.out = OUT_FULL;
	cr_expect_eq(run_spawn(&s, &err), 2, "%s", err);
	cr_expect(contains(err, "onnxshape check: cannot write the report to standard output"), "%s", err);
	free(err);
}

/* A SARIF report into a file the size limit cuts at 8 KB (a full file system, as
 * far as the tool can tell): exit 2, File too large, not SIGXFSZ. */
Test(cli_output, a_report_cut_by_the_size_limit_exits_2)
{
	char *report = path_in(capture, "report.sarif");
	const char *argv[] = {OSH_CLI, "check", "--format", "sarif", GOOD_DIR, LINT_DIR "/broadcast_mismatch.onnx", NULL};
	spawn s = {.argv = argv, .out = OUT_FILE, .out_path = report, .plain = -1};
	char *err;
	int whole = run_spawn(&s, &err);
	free(err);
	struct stat st;
	cr_assert_eq(stat(report, &st), 0);
	cr_assert_gt(st.st_size, 8192, "the report must be larger than the limit");
	cr_assert_lt(whole, 2);
	s.fsize = 8192;
	cr_expect_eq(run_spawn(&s, &err), 2, "%s", err);
	cr_expect(contains(err, "cannot write the report to standard output") && contains(err, strerror(EFBIG)), "%s",
		  err);
	free(err);
	cr_assert_eq(stat(report, &st), 0);
	cr_expect_eq(st.st_size, 8192);
	unlink(report);
	free(report);
}

/* ---- writes under a file size limit ------------------------------------------------ */

/* cmd model -o OUT limited to `limit` bytes: exit 2 with the write's error, OUT as it
 * was (old or absent), nothing else in its directory. */
static void limited_write(const char *cmd, const char *model, long limit, int plain)
{
	char *dir = make_tmpdir_for("cli_output");
	char *out = path_in(dir, "out.onnx");
	char what[256];
	for (int exists = 0; exists < 2; exists++) {
		snprintf(what, sizeof what, "%s %s, limit %ld, plain %d, %s", cmd, model, limit, plain,
			 exists ? "over an old output" : "a new output");
		if (exists)
			spit(out, old_bytes, sizeof old_bytes - 1);
		const char *argv[] = {OSH_CLI, cmd, model, "-o", out, NULL};
		spawn s = {.argv = argv, .out = OUT_FILE, .fsize = limit, .plain = plain};
		char *err;
		int status = run_spawn(&s, &err);
		cr_expect_eq(status, 2, "%s: exit %d (153: SIGXFSZ): %s", what, status, err);
		cr_expect(contains(err, "cannot write the output") && contains(err, strerror(EFBIG)) &&
				  contains(err, "the destination is unchanged"),
			  "%s: %s", what, err);
		free(err);
		if (exists) {
			cr_expect(same_file_bytes(out, old_bytes, sizeof old_bytes - 1), "%s: the old output changed", what);
			expect_listing(dir, "out.onnx", what);
		} else {
			expect_listing(dir, "", what);
		}
	}
	free(out);
	remove_dir(dir);
}

Test(cli_output, writes_under_a_size_limit_fail_cleanly)
{
	char *dir = make_tmpdir_for("cli_output");
	char *big = path_in(dir, "big.onnx");
	big_model(big, 50, "512,1024"); /* 2 MiB of weights: written ahead */
	for (int plain = 0; plain < 2; plain++) {
		limited_write("infer", GOOD_DIR "/nested_32.onnx", 4096, plain);
		limited_write("rewrite", GOOD_DIR "/nested_32.onnx", 4096, plain);
		limited_write("infer", big, 1 << 16, plain);
		limited_write("rewrite", big, 1 << 16, plain);
	}
	free(big);
	remove_dir(dir);
}

/* ---- signals during infer -o -------------------------------------------------------- */

static const struct {
	int sig;
	const char *name;
} fatal[] = {
	{SIGHUP, "SIGHUP"},     {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"},     {SIGILL, "SIGILL"},
	{SIGTRAP, "SIGTRAP"},   {SIGABRT, "SIGABRT"},     {SIGBUS, "SIGBUS"},       {SIGFPE, "SIGFPE"},
	{SIGUSR1, "SIGUSR1"},   {SIGSEGV, "SIGSEGV"},     {SIGUSR2, "SIGUSR2"},     {SIGPIPE, "SIGPIPE"},
	{SIGALRM, "SIGALRM"},   {SIGTERM, "SIGTERM"},     {SIGSTKFLT, "SIGSTKFLT"}, {SIGXCPU, "SIGXCPU"},
	{SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},   {SIGIO, "SIGIO"},         {SIGPWR, "SIGPWR"},
	{SIGSYS, "SIGSYS"},     {0, "SIGRTMIN"},          {-1, "SIGRTMAX"},
}; /* SIGXFSZ aside: the tool ignores it (a size limit is a write error) */
#define NFATAL (sizeof fatal / sizeof fatal[0])

static int sig_of(size_t i) { return fatal[i].sig == 0 ? SIGRTMIN : fatal[i].sig == -1 ? SIGRTMAX : fatal[i].sig; }

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

typedef struct sig_case {
	char *dir, *model, *out;
	uint8_t *new_bytes; /* the output of an undisturbed run */
	size_t new_size;
	double run_ms;      /* how long that run took */
} sig_case;

static void sleep_ms(double ms)
{
	struct timespec ts = {(time_t)(ms / 1e3), 0};
	ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1e3) * 1e6);
	while (nanosleep(&ts, &ts) != 0)
		;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static sig_case sig_case_new(int plain)
{
	sig_case c = {.dir = make_tmpdir_for("cli_output")};
	c.model = path_in(c.dir, "m.onnx");
	c.out = path_in(c.dir, "out.onnx");
	big_model(c.model, 400, "4096,1024"); /* 16 MiB of weights */
	const char *argv[] = {OSH_CLI, "infer", c.model, "-o", c.out, NULL};
	spawn s = {.argv = argv, .out = OUT_FILE, .plain = plain};
	char *err;
	double t0 = now_ms();
	cr_assert_eq(run_spawn(&s, &err), 0, "%s", err);
	c.run_ms = now_ms() - t0;
	free(err);
	c.new_bytes = slurp(c.out, &c.new_size);
	return c;
}

static void sig_case_free(sig_case *c)
{
	free(c->model), free(c->out), free(c->new_bytes);
	remove_dir(c->dir);
}

/* After a run ended by sig (or done before it came): the output old or new, whole,
 * and nothing else beside the model. */
static void expect_old_or_new(const sig_case *c, int status, int sig, const char *what)
{
	cr_expect(status == 128 + sig || status == 0, "%s: exit %d, not the signal's %d", what, status, 128 + sig);
	bool old = same_file_bytes(c->out, old_bytes, sizeof old_bytes - 1);
	cr_expect(old || same_file_bytes(c->out, c->new_bytes, c->new_size), "%s: the output is neither old nor new",
		  what);
	cr_expect(status != 0 || !old, "%s: exit 0, the output not written", what);
	expect_listing(c->dir, "m.onnx out.onnx", what);
}

/* Each signal while the tool is held after the load (the temporary file begun
 * while loading exists, on the fast path), then at points during the rest of the
 * run, timed from an undisturbed one. */
static void signals_during_infer(int plain, const double *points, size_t npoints)
{
	sig_case c = sig_case_new(plain);
	char what[128];
	for (size_t i = 0; i < NFATAL; i++) {
		int sig = sig_of(i);
		if (sanitizer_handles(sig))
			continue;
		snprintf(what, sizeof what, "%s after the load%s", fatal[i].name, plain ? ", plain" : "");
		spit(c.out, old_bytes, sizeof old_bytes - 1);
		const char *held[] = {OSH_CLI, "infer", c.model, "-o", c.out, "--dump-after=load", NULL};
		spawn s = {.argv = held, .out = OUT_FILE, .plain = plain};
		pid_t pid;
		int rd = start_held(&s, &pid);
		char *during = listing(c.dir);
		cr_expect(plain || contains(during, ".out.onnx.osh-"), "%s: no temporary file while held: [%s]", what,
			  during);
		free(during);
		cr_assert_eq(kill(pid, sig), 0);
		int status = finish(pid); /* before the pipe closes: no SIGPIPE of ours */
		close(rd);
		cr_expect_eq(status, 128 + sig, "%s: exit %d", what, status);
		cr_expect(same_file_bytes(c.out, old_bytes, sizeof old_bytes - 1), "%s: the output changed", what);
		expect_listing(c.dir, "m.onnx out.onnx", what);

		for (size_t k = 0; k < npoints; k++) {
			snprintf(what, sizeof what, "%s at %.0f%% of the run%s", fatal[i].name, points[k] * 100,
				 plain ? ", plain" : "");
			spit(c.out, old_bytes, sizeof old_bytes - 1);
			const char *argv[] = {OSH_CLI, "infer", c.model, "-o", c.out, NULL};
			spawn t = {.argv = argv, .out = OUT_FILE, .plain = plain, .err_path = err_file, .err_fd = -1};
			pid = start(&t);
			sleep_ms(c.run_ms * points[k]);
			kill(pid, sig);
			expect_old_or_new(&c, finish(pid), sig, what);
		}
	}
	sig_case_free(&c);
}

Test(cli_output, fatal_signals_during_infer_leave_no_temporary_file)
{
	static const double points[] = {0.3, 0.6, 0.9};
	signals_during_infer(0, points, 3);
}

Test(cli_output, fatal_signals_during_plain_infer_leave_no_temporary_file)
{
	static const double points[] = {0.5};
	signals_during_infer(1, points, 1);
}

/* ---- a model replaced under --in-place ---------------------------------------------- */

static const char newer_bytes[] = "a newer model, renamed over the one being inferred\n";

/* cmd --in-place on a model that another program replaces, renaming a new file
 * over it, once the tool has loaded it: exit 2, the newer file kept, nothing else
 * left. */
static void replaced_in_place(const char *cmd, bool big, int plain)
{
	char what[128];
	snprintf(what, sizeof what, "%s --in-place, %s model, plain %d", cmd, big ? "a big" : "a small", plain);
	char *dir = make_tmpdir_for("cli_output");
	char *model = path_in(dir, "m.onnx"), *newer = path_in(dir, "newer");
	big_model(model, 400, big ? "512,1024" : "2,3");
	spit(newer, newer_bytes, sizeof newer_bytes - 1);
	const char *argv[] = {OSH_CLI, cmd, "--in-place", "--dump-after=load", model, NULL};
	spawn s = {.argv = argv, .out = OUT_FILE, .plain = plain};
	pid_t pid;
	int rd = start_held(&s, &pid);
	if (big && !plain && !strcmp(cmd, "infer")) {
		char *during = listing(dir);
		cr_expect(contains(during, ".m.onnx.osh-"), "%s: nothing written ahead: [%s]", what, during);
		free(during);
	}
	cr_assert_eq(rename(newer, model), 0);
	char *err = release(rd);
	int status = finish(pid);
	cr_expect_eq(status, 2, "%s: exit %d", what, status);
	cr_expect(contains(err, "m.onnx: error: the input changed on disk since it was loaded; nothing written"),
		  "%s: %s", what, err + (strlen(err) > 400 ? strlen(err) - 400 : 0));
	cr_expect(same_file_bytes(model, newer_bytes, sizeof newer_bytes - 1), "%s: the newer file was replaced",
		  what);
	expect_listing(dir, "m.onnx", what);
	free(err);
	free(model), free(newer);
	remove_dir(dir);
}

Test(cli_output, in_place_refuses_a_model_replaced_meanwhile)
{
	for (int plain = 0; plain < 2; plain++)
		for (int big = 0; big < 2; big++) {
			replaced_in_place("infer", big, plain);
			replaced_in_place("rewrite", big, plain);
		}
}

/* Left alone, the same command writes over its model. */
Test(cli_output, in_place_over_an_unchanged_model)
{
	char *dir = make_tmpdir_for("cli_output");
	char *model = path_in(dir, "m.onnx");
	big_model(model, 400, "512,1024");
	size_t before;
	free(slurp(model, &before));
	const char *argv[] = {OSH_CLI, "infer", "--in-place", model, NULL};
	spawn s = {.argv = argv, .out = OUT_FILE, .plain = -1};
	char *err;
	cr_expect_eq(run_spawn(&s, &err), 0, "%s", err);
	free(err);
	size_t after;
	free(slurp(model, &after));
	cr_expect_gt(after, before, "the inferred model was not written");
	expect_listing(dir, "m.onnx", "in place");
	free(model);
	remove_dir(dir);
}

/* ---- names that must not reach a terminal as they are ----------------------------- */

/* An input named with ESC, a right-to-left override, a byte that is not UTF-8 and a
 * carriage return, and a node named with a left-to-right isolate, CSI (U+009B), DEL,
 * the Arabic letter mark, a right-to-left mark and an encoded surrogate; Add of
 * (2, 3) and (4, 5): an error naming both. */
#define EVIL_INPUT "x\xe2\x80\xae\x1b[31m\xff\r"
#define EVIL_NODE "n\xe2\x81\xa6\xc2\x9b\x7f\xd8\x9c\xe2\x80\x8f\xed\xa0\x80"

static char *evil_model(void)
{
	char *path = path_in(capture, "evil.onnx");
	mb *b = mb_new(13);
	mb_input(b, EVIL_INPUT, DT_FLOAT, "2,3");
	mb_input(b, "b", DT_FLOAT, "4,5");
	mb_node(b, "Add", EVIL_INPUT ",b", "y");
	mb_node_name(b, EVIL_NODE);
	mb_output(b, "y", 0, NULL);
	mb_save(b, path);
	return path;
}

/* Whether s is valid UTF-8 holding no control character but newline (and no DEL),
 * no C1 control, separator or bidirectional formatting character: nothing a
 * terminal acts on, nothing that reorders what is shown. Else *why says what. */
static bool shows_safely(const char *s, char *why, size_t cap)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t at = (size_t)(p - (const unsigned char *)s);
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f) {
			snprintf(why, cap, "byte %#x at %zu", *p, at);
			return false;
		}
		if (*p < 0x80) {
			p++;
			continue;
		}
		uint32_t c;
		size_t n;
		if (*p >= 0xC2 && *p <= 0xDF)
			n = 2, c = *p & 0x1F;
		else if (*p >= 0xE0 && *p <= 0xEF)
			n = 3, c = *p & 0x0F;
		else if (*p >= 0xF0 && *p <= 0xF4)
			n = 4, c = *p & 0x07;
		else
			n = 0, c = 0;
		for (size_t i = 1; i < n; i++) {
			if ((p[i] & 0xC0) != 0x80) {
				n = 0;
				break;
			}
			c = c << 6 | (p[i] & 0x3F);
		}
		bool overlong = (n == 3 && c < 0x800) || (n == 4 && c < 0x10000);
		if (!n || overlong || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) {
			snprintf(why, cap, "invalid UTF-8 at %zu", at);
			return false;
		}
		if ((c >= 0x80 && c <= 0x9F) || c == 0x61C || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
		    (c >= 0x2066 && c <= 0x2069)) {
			snprintf(why, cap, "U+%04X at %zu", (unsigned)c, at);
			return false;
		}
		p += n;
	}
	return true;
}

/* Runs argv (standard output into a file); returns what it printed on stdout, and
 * in *err on stderr (both malloc'd). */
static char *output_of(const char *const *argv, int *status, char **err)
{
	char *outp = path_in(capture, "stdout");
	spawn s = {.argv = argv, .out = OUT_FILE, .out_path = outp, .plain = -1};
	*status = run_spawn(&s, err);
	char *out = take_output(outp);
	free(outp);
	return out;
}

static void expect_safe(const char *text, const char *what)
{
	char why[64];
	cr_expect(shows_safely(text, why, sizeof why), "%s: %s in:\n%s", what, why, text);
}

Test(cli_output, text_reports_escape_what_a_terminal_would_act_on)
{
	char *model = evil_model();
	int status;
	char *err;
	const char *check[] = {OSH_CLI, "check", "--color=never", model, NULL};
	char *out = output_of(check, &status, &err);
	cr_expect_eq(status, 1, "%s", err);
	expect_safe(out, "check");
	cr_expect(contains(out, "node 0 'n\\u2066\\u009b\\x7f\\u061c\\u200f\\xed\\xa0\\x80' (Add): error:"), "%s", out);
	cr_expect(contains(out, "'x\\u202e\\x1b[31m\\xff\\x0d' (2, 3) and 'b' (4, 5)"), "%s", out);
	/* One line per finding ("... [code]"), then the summary. */
	size_t lines = 0;
	for (const char *l = out, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1, lines++)
		if (nl[1])
			cr_expect(nl > l && nl[-1] == ']', "a finding's line is broken: %.*s", (int)(nl - l), l);
	cr_expect_geq(lines, 2, "%s", out);
	free(out), free(err);

	const char *print[] = {OSH_CLI, "print", model, NULL};
	out = output_of(print, &status, &err);
	cr_expect_eq(status, 0, "%s", err); /* print does not infer */
	expect_safe(out, "print");
	expect_safe(err, "print's messages");
	cr_expect(contains(out, "  x\\u202e\\x1b[31m\\xff\\x0d"), "%s", out);
	free(out), free(err);

	const char *shapes[] = {OSH_CLI, "shapes", model, NULL};
	out = output_of(shapes, &status, &err);
	cr_expect_eq(status, 1, "%s", err);
	expect_safe(out, "shapes");
	expect_safe(err, "shapes' messages");
	cr_expect(contains(out, "x\\u202e\\x1b[31m\\xff\\x0d"), "%s", out);
	cr_expect(contains(err, "'n\\u2066\\u009b\\x7f\\u061c\\u200f\\xed\\xa0\\x80' (Add): error:"), "%s", err);
	free(out), free(err);

	const char *infer[] = {OSH_CLI, "infer", model, "-o", "-", NULL};
	out = output_of(infer, &status, &err);
	cr_expect_eq(status, 1, "%s", err);
	expect_safe(err, "infer's messages");
	free(out), free(err);
	free(model);
}

/* JSON by its rules: every string valid UTF-8 (U+FFFD for what is not), the controls
 * escaped; the hidden characters written as \u escapes, so that the document shown
 * as it is acts on nothing and parses to the same text. */
Test(cli_output, json_reports_are_valid_and_safe_to_show)
{
	char *model = evil_model();
	int status;
	char *err;
	const char *json[] = {OSH_CLI, "check", "--format", "json", model, NULL};
	char *out = output_of(json, &status, &err);
	cr_expect_eq(status, 1, "%s", err);
	expect_safe(out, "check --format json");
	cr_expect(contains(out, "\"message\": \"'x\\u202e\\u001b[31m\\ufffd\\r' (2, 3) and 'b' (4, 5)"), "%s", out);
	cr_expect(contains(out, "\"node\": \"n\\u2066\\u009b\\u007f\\u061c\\u200f\\ufffd\\ufffd\\ufffd\""), "%s", out);
	char *doc = path_in(capture, "report.json");
	spit(doc, out, strlen(out));
	const char *parse[] = {OSH_PYTHON, "-c",
			       "import json, sys\n"
			       "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
			       "m = d['files'][0]['diagnostics'][0]\n"
			       "assert m['node'] == 'n\\u2066\\u009b\\x7f\\u061c\\u200f\\ufffd\\ufffd\\ufffd', repr(m['node'])\n"
			       "assert m['message'].startswith(\"'x\\u202e\\x1b[31m\\ufffd\\r'\"), repr(m['message'])\n",
			       doc, NULL};
	free(out), free(err);
	out = output_of(parse, &status, &err);
	cr_expect_eq(status, 0, "the JSON does not parse to the names: %s", err);
	unlink(doc);
	free(doc);
	free(out), free(err);

	const char *sarif[] = {OSH_CLI, "check", "--format", "sarif", model, NULL};
	out = output_of(sarif, &status, &err);
	cr_expect_eq(status, 1, "%s", err);
	expect_safe(out, "check --format sarif");
	free(out), free(err);
	const char *values[] = {OSH_CLI, "shapes", "--format", "json", model, NULL};
	out = output_of(values, &status, &err);
	expect_safe(out, "shapes --format json");
	cr_expect(contains(out, "\"name\": \"x\\u202e\\u001b[31m\\ufffd\\r\""), "%s", out);
	free(out), free(err);
	free(model);
}
