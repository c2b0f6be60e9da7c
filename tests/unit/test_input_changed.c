/* test_input_changed.c: a model file truncated while it is being read, and one
 * replaced (another file renamed over it) before it is written back in place.
 *
 * The library reads a private copy unless told to map the file; mapped, the fault is
 * the program's, and the tool turns it into exit 2 and a message naming the file.
 * Both kinds of load are driven through the loader's layout hook (load_how.on_layout,
 * the fast path's), which the loader calls after the pre-scan has framed the file and
 * before the index reads its initializers: the truncation lands exactly between the
 * two. The tool is driven by timing: it is
 * truncated while it loads a 1M-node model, until one run caught it mid-read.
 */
#define _GNU_SOURCE
#include "core/tuning.h"
#include "loader/loader.h"
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include "wbuf.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* n Relu nodes t0 -> ... -> tn, and `inits` initializers of 1 KiB (unused): the
 * layout hook is called only for a file with initializers. */
static wbuf relu_model(int n, int inits)
{
	wbuf b = {0}, g = {0};
	put_model_header(&b, 13);
	char in[32], out[32];
	put_relu_chain(&g, n, true); /* named: the pre-scan keeps spans (the layout hook) */
	static uint8_t kib[1024];
	for (int i = 0; i < inits; i++) {
		wbuf t = {0};
		put_vfield(&t, 1, 256);
		put_vfield(&t, 2, 1); /* FLOAT */
		snprintf(in, sizeof in, "w%d", i);
		put_str(&t, 8, in);
		put_bytes(&t, 9, kib, sizeof kib);
		put_msg(&g, 5, &t);
	}
	put_tensor_vi(&g, 11, "t0", 1, 8);
	snprintf(out, sizeof out, "t%d", n);
	put_tensor_vi(&g, 12, out, 1, 8);
	put_msg(&b, 7, &g);
	return b;
}

typedef struct truncating {
	const char *path;
	bool called;
	uintptr_t map_start, map_end; /* from on_map */
} truncating;

static void truncate_now(void *ctx, const input_layout *layout)
{
	(void)layout;
	truncating *t = ctx;
	t->called = true;
	cr_assert_eq(truncate(t->path, 1000), 0);
}

static void note_map(void *ctx, const void *addr, size_t size)
{
	truncating *t = ctx;
	t->map_start = (uintptr_t)addr;
	t->map_end = (uintptr_t)addr + size;
}

static void rewrite_now(void *ctx, const input_layout *layout)
{
	(void)layout;
	truncating *t = ctx;
	t->called = true;
	struct timespec later[2] = {{0, UTIME_OMIT}, {0, 0}};
	cr_assert_eq(clock_gettime(CLOCK_REALTIME, &later[1]), 0);
	later[1].tv_sec += 2; /* a new mtime even on a coarse clock */
	int fd = open(t->path, O_WRONLY);
	cr_assert(fd >= 0);
	cr_assert_eq(pwrite(fd, "\x08", 1, 0), 1); /* the same byte: only the time tells */
	cr_assert_eq(futimens(fd, later), 0);
	close(fd);
}

/* The default load reads a copy: a file truncated or written to during the load is
 * refused with a message, never a signal. */
static void load_refused(void (*change)(void *, const input_layout *))
{
	char *dir = make_tmpdir_for("changed");
	char *in = path_in(dir, "m.onnx");
	wbuf b = relu_model(60000, 64);
	spit(in, b.p, b.n);
	truncating t = {.path = in};
	load_how how = {.on_layout = change, .layout_ctx = &t};
	osh_model *m = NULL;
	osh_error err = {0};
	cr_expect_eq(loader_load_file(&m, in, NULL, &how, &err), OSH_ERR_IO);
	cr_assert(t.called, "the layout hook was not called: the change did not happen mid-load");
	cr_expect(m == NULL);
	cr_expect(strstr(err.message, "m.onnx: the input changed while it was read"), "%s", err.message);
	free(b.p);
	free(in);
	remove_dir(dir);
}

Test(input_changed, truncated_during_the_load, .timeout = 60) { load_refused(truncate_now); }
Test(input_changed, written_during_the_load, .timeout = 60) { load_refused(rewrite_now); }

/* Truncated after the load, the model is whole (a copy) and writing it back, which
 * copies its bytes from the file, is refused. */
Test(input_changed, truncated_before_the_write, .timeout = 60)
{
	char *dir = make_tmpdir_for("changed");
	char *in = path_in(dir, "m.onnx"), *out = path_in(dir, "out.onnx");
	wbuf b = relu_model(60000, 64);
	spit(in, b.p, b.n);
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, in, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(truncate(in, 1000), 0);
	cr_expect_eq(osh_model_node_count(m), 60000);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
	cr_expect_neq(osh_model_write(m, out, NULL, &err), OSH_OK, "a changed source was written from");
	cr_expect(strstr(err.message, "changed"), "%s", err.message);
	expect_listing(dir, "m.onnx", "after the refused write");
	osh_model_free(m);
	free(b.p);
	free(in), free(out);
	remove_dir(dir);
}

static truncating *mapped; /* for the handler */

enum { FAULT_INSIDE = 42, FAULT_OUTSIDE, LOAD_RETURNED, NOT_MAPPED };

static void on_bus(int sig, siginfo_t *info, void *uctx)
{
	(void)sig, (void)uctx;
	uintptr_t a = (uintptr_t)info->si_addr;
	if (!mapped->map_end)
		_exit(NOT_MAPPED);
	_exit(a >= mapped->map_start && a < mapped->map_end ? FAULT_INSIDE : FAULT_OUTSIDE);
}

/* A load told to map (osh_model_load_mapped) maps: the fault of a page past the new end is SIGBUS, whichever thread
 * reads it, at an address inside the range given to on_map before the loader read
 * anything. In a child, whose handler tells which by its exit status. */
Test(input_changed, a_mapping_faults_inside_the_range_given_to_on_map, .timeout = 60)
{
	char *dir = make_tmpdir_for("changed");
	char *in = path_in(dir, "m.onnx");
	wbuf b = relu_model(60000, 64);
	spit(in, b.p, b.n);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		truncating t = {.path = in};
		mapped = &t;
		load_how how = {.map_file = true, .on_map = note_map, .map_ctx = &t, .on_layout = truncate_now, .layout_ctx = &t};
		struct sigaction sa = {0};
		sa.sa_sigaction = on_bus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		osh_model *m = NULL;
		loader_load_file(&m, in, NULL, &how, NULL);
		_exit(LOAD_RETURNED);
	}
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_assert(WIFEXITED(ws), "the child died of signal %d: the handler did not run", WTERMSIG(ws));
	cr_expect_eq(WEXITSTATUS(ws), FAULT_INSIDE,
		     "exit %d: 43 a fault outside the mapping, 44 the load returned, 45 on_map not called",
		     WEXITSTATUS(ws));
	free(b.p);
	free(in);
	remove_dir(dir);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Runs argv with stdout and stderr into err_path (check reports an unreadable input
 * on stdout, the tool's SIGBUS handler on stderr); truncates `victim` to 1,000,000
 * bytes after delay_ms; returns the wait status. */
static int run_and_truncate(const char *const *argv, const char *err_path, const char *victim, int delay_ms)
{
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
		if (e < 0 || dup2(e, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(OSH_CLI, (char *const *)argv);
		_exit(127);
	}
	sleep_ms(delay_ms);
	cr_assert_eq(truncate(victim, 1000000), 0);
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	return ws;
}

/* The tool, truncated under it at delays from 5 to 200 ms: never a signal, and
 * once caught, exit 2 naming the file; `infer -o` writes nothing then. */
static void tool_survives(const char *cmd)
{
	char *dir = make_tmpdir_for("changed");
	char *in = path_in(dir, "t.onnx"), *errp = path_in(dir, "stderr"), *out = path_in(dir, "out.onnx");
	wbuf b = relu_model(1000000, 8);
	int caught = 0, runs = 0;
	const int delays[] = {5, 10, 20, 30, 50, 80, 120, 200};
	for (size_t k = 0; k < sizeof delays / sizeof delays[0]; k++) {
		spit(in, b.p, b.n);
		const char *check[] = {"onnxshape", "check", in, NULL};
		const char *infer[] = {"onnxshape", "infer", in, "-o", out, NULL};
		int ws = run_and_truncate(strcmp(cmd, "check") ? infer : check, errp, in, delays[k]);
		runs++;
		cr_assert(!WIFSIGNALED(ws), "%s, truncated after %d ms: killed by signal %d", cmd, delays[k],
			  WTERMSIG(ws));
		cr_assert(WIFEXITED(ws));
		size_t n;
		char *err = (char *)slurp(errp, &n);
		err[n] = '\0';
		if (WEXITSTATUS(ws) == 2 && strstr(err, "the input changed while it was read")) {
			caught++;
			cr_expect(strstr(err, in), "the message does not name the file: %s", err);
			cr_expect(access(out, F_OK) != 0, "%s wrote an output", cmd);
			expect_listing(dir, "stderr t.onnx", "after the run caught mid-read");
		}
		free(err);
		unlink(out);
	}
	cr_expect(caught > 0, "%s: no run of %d was caught mid-read (the machine is too fast for the delays?)", cmd,
		  runs);
	free(b.p);
	free(in), free(errp), free(out);
	remove_dir(dir);
}

Test(input_changed, check_exits_2_never_a_signal, .timeout = 120) { tool_survives("check"); }
Test(input_changed, infer_exits_2_never_a_signal, .timeout = 120) { tool_survives("infer"); }

/* ---- replaced before an in-place write ------------------------------------------ */

static const char newer_bytes[] = "a newer model, renamed over the one loaded\n";

/* Another program renames a new file over the model after it was loaded: writing it
 * back in place is refused, as for a source changed in place, and leaves the newer
 * file and no temporary file. With the write begun while loading (ahead: the
 * temporary file exists, opened when the path was still the source), on the plain
 * path, and for a model written back unchanged (its bytes copied from the old file,
 * still open). */
static void replaced_before_the_write(bool ahead, bool plain, bool inferred)
{
	char ctx[64];
	snprintf(ctx, sizeof ctx, "%s%s%s", ahead ? "written ahead" : "fresh", plain ? ", plain" : "",
		 inferred ? ", inferred" : ", unchanged");
	char *dir = make_tmpdir_for("changed");
	char *in = path_in(dir, "m.onnx"), *newer = path_in(dir, "newer");
	wbuf b = relu_model(2000, ahead ? 2048 : 4); /* 2 MiB of weights: copied ahead */
	spit(in, b.p, b.n);
	spit(newer, newer_bytes, sizeof newer_bytes - 1);
	setenv(PLAIN_IO_ENV, plain ? "1" : "0", 1);
	osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .write_to = ahead ? in : NULL};
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, in, &lo, &err), OSH_OK, "%s", err.message);
	unsetenv(PLAIN_IO_ENV);
	char *during = listing(dir);
	cr_expect(!ahead || plain || strstr(during, ".m.onnx.osh-"), "%s: nothing written ahead: [%s]", ctx, during);
	free(during);
	cr_assert_eq(rename(newer, in), 0);
	if (inferred) {
		cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
		cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
	}
	osh_write_options wo = {.version = OSH_WRITE_OPTIONS_VERSION, .in_place = true};
	cr_expect_eq(osh_model_write(m, in, &wo, &err), OSH_ERR_CHANGED, "%s: written over the newer file", ctx);
	cr_expect(strstr(err.message, "m.onnx: the input changed on disk since it was loaded; nothing written"),
		  "%s: %s", ctx, err.message);
	size_t n;
	uint8_t *now = slurp(in, &n);
	cr_expect(n == sizeof newer_bytes - 1 && !memcmp(now, newer_bytes, n), "%s: the newer file changed", ctx);
	free(now);
	expect_listing(dir, "m.onnx", ctx);
	osh_model_free(m);
	expect_listing(dir, "m.onnx", ctx);
	free(b.p);
	free(in), free(newer);
	remove_dir(dir);
}

Test(input_changed, replaced_before_an_in_place_write, .timeout = 60)
{
	for (int plain = 0; plain < 2; plain++) {
		replaced_before_the_write(true, plain, true);
		replaced_before_the_write(false, plain, true);
		replaced_before_the_write(false, plain, false);
	}
}

/* Left alone, the same in-place write goes through. */
Test(input_changed, an_unchanged_source_is_written_in_place, .timeout = 60)
{
	char *dir = make_tmpdir_for("changed");
	char *in = path_in(dir, "m.onnx");
	wbuf b = relu_model(2000, 2048);
	spit(in, b.p, b.n);
	osh_load_options lo = {.version = OSH_LOAD_OPTIONS_VERSION, .write_to = in};
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, in, &lo, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_infer(m, NULL, &err), OSH_OK, "%s", err.message);
	cr_assert_eq(osh_annotate(m, &err), OSH_OK, "%s", err.message);
	osh_write_options wo = {.version = OSH_WRITE_OPTIONS_VERSION, .in_place = true};
	cr_expect_eq(osh_model_write(m, in, &wo, &err), OSH_OK, "%s", err.message);
	osh_model_free(m);
	expect_listing(dir, "m.onnx", "in place");
	struct stat st;
	cr_assert_eq(stat(in, &st), 0);
	cr_expect_gt(st.st_size, (off_t)b.n, "the inferred model was not written");
	free(b.p);
	free(in);
	remove_dir(dir);
}
