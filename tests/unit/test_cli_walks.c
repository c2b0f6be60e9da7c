/* test_cli_walks.c: what every command of the tool does alike, run as a user runs
 * it (OSH_CLI):
 *  - a directory is walked by every command: shapes, print, rewrite --dry-run list
 *    each model; infer and rewrite write each to the same relative path under -o
 *    DIR, or over itself with --in-place, and refuse a directory without either;
 *  - -o FILE puts check's, shapes' and print's report in FILE, byte for byte what
 *    standard output would have had, replaced atomically: nothing written (and no
 *    temporary file left) on a usage error or a write error, never over an input;
 *  - -q: check prints only errors, shapes and print nothing, infer and rewrite no
 *    notes; the exit status is unchanged;
 *  - the progress line of a long walk, on stderr only when it is a terminal (a
 *    pseudo-terminal here), erased at the end; none in a file or with TERM=dumb;
 *  - --input-shape naming an input a walked model lacks is a note for that model,
 *    not exit 2 for the walk; named alone, the model is still refused;
 *  - a mistyped option gets the nearest option; every message of the tool starts
 *    "onnxshape CMD:"; NO_COLOR counts only when not empty; TERM=dumb, no colour.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include "pristine.h"
#include <poll.h>
#include <pty.h>
#include <stdarg.h>

#define DYNAMIC OSH_MODELS_DIR "/lint/dynamic_shape.onnx" /* x (N, 3), clean */
#define OUTER OSH_MODELS_DIR "/lint/outer_broadcast.onnx" /* col, row: a warning */
#define MISMATCH OSH_MODELS_DIR "/lint/broadcast_mismatch.onnx" /* x, y: an error */
#define PADDLE OSH_MODELS_DIR "/rewrite/paddle_block.onnx"  /* image: Paddle nodes to rewrite */

static char capture_dir[] = "/tmp/osh_test_walks_cap.XXXXXX";

static void setup(void) { cr_assert(mkdtemp(capture_dir), "mkdtemp: %s", strerror(errno)); }
static void teardown(void) { rmdir(capture_dir); }

TestSuite(walks, .init = setup, .fini = teardown, .timeout = 120);

#define MAX_ARGS 32

static cli_result run(const char *arg, ...)
{
	const char *argv[MAX_ARGS] = {OSH_CLI};
	va_list ap;
	va_start(ap, arg);
	cli_args(argv, 1, MAX_ARGS, arg, ap);
	va_end(ap);
	return cli_run(capture_dir, 0, argv);
}

static bool contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* A folder tree: root/a.onnx (DYNAMIC) and root/sub/p.onnx (PADDLE). */
static char *make_tree(char **sub)
{
	char *root = make_tmpdir_for("walks");
	*sub = path_in(root, "sub");
	cr_assert_eq(mkdir(*sub, 0700), 0);
	char *a = path_in(root, "a.onnx"), *p = path_in(*sub, "p.onnx");
	copy_file(DYNAMIC, a);
	copy_file(PADDLE, p);
	free(a), free(p);
	return root;
}

static void remove_tree(char *root, char *sub)
{
	remove_dir(sub);
	remove_dir(root);
}

/* ---- 1. every command takes a directory ------------------------------------------ */

Test(walks, shapes_print_and_dry_run_walk_a_directory)
{
	char *sub, *root = make_tree(&sub);
	static const char *const cmds[][3] = {{"shapes", NULL, NULL}, {"print", NULL, NULL},
					      {"print", "--values", NULL}, {"rewrite", "--dry-run", NULL}};
	for (size_t i = 0; i < 4; i++) {
		cli_result r = cmds[i][1] ? run(cmds[i][0], cmds[i][1], root, NULL) : run(cmds[i][0], root, NULL);
		cr_expect_eq(r.status, 0, "%s: %s", cmds[i][0], r.err);
		cr_expect(!contains(r.err, "not a regular file"), "%s: %s", cmds[i][0], r.err);
		cr_expect(contains(r.out, "a.onnx") && contains(r.out, "sub/p.onnx"), "%s %s: %s", cmds[i][0],
			  cmds[i][1] ? cmds[i][1] : "", r.out);
		cli_result_free(&r);
	}
	/* The dry run says which model each summary is of. */
	cli_result r = run("rewrite", "--dry-run", root, NULL);
	cr_expect(contains(r.out, "sub/p.onnx: rewrote 4 nodes"), "%s", r.out);
	cr_expect(contains(r.out, "a.onnx: rewrote 0 nodes"), "%s", r.out);
	cli_result_free(&r);
	/* A folder with no model fails, as for check. */
	char *empty = path_in(root, "empty");
	cr_assert_eq(mkdir(empty, 0700), 0);
	r = run("shapes", empty, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "onnxshape shapes: error: ") && contains(r.err, "no model (*.onnx) found"), "%s",
		  r.err);
	cli_result_free(&r);
	rmdir(empty);
	free(empty);
	remove_tree(root, sub);
}

Test(walks, rewrite_and_infer_mirror_a_directory)
{
	char *sub, *root = make_tree(&sub);
	char *out = make_tmpdir_for("walks_out");
	char *tree = path_in(out, "tree"); /* made by the tool */
	cli_result r = run("rewrite", root, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "is a directory: say where to write its models: -o OUTDIR"), "%s", r.err);
	cli_result_free(&r);

	r = run("rewrite", root, "-o", tree, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	char *sub_out = path_in(tree, "sub");
	expect_listing(tree, "a.onnx sub", "rewrite -o DIR");
	expect_listing(sub_out, "p.onnx", "rewrite -o DIR, sub");
	/* The copy is the rewritten model: no Paddle operator left; the original is. */
	char *p_out = path_in(sub_out, "p.onnx"), *p_in = path_in(sub, "p.onnx");
	r = run("print", p_out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!contains(r.out, "elementwise_") && contains(r.out, "Mul"), "%s", r.out);
	cli_result_free(&r);
	r = run("print", p_in, NULL);
	cr_expect(contains(r.out, "elementwise_mul"), "%s", r.out);
	cli_result_free(&r);

	/* -o naming a file, or standard output, for a directory: refused. */
	char *a_in = path_in(root, "a.onnx");
	r = run("infer", root, "-o", a_in, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "must be a directory too"), "%s", r.err);
	cli_result_free(&r);
	r = run("infer", root, "-o", "-", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "cannot all go to standard output"), "%s", r.err);
	cli_result_free(&r);

	/* infer --in-place: each model over itself, with shapes written in. */
	r = run("infer", "--in-place", "--input-shape", "x:4,3", root, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(contains(r.err, "graph input 'x' rewritten"), "%s", r.err);
	cli_result_free(&r);
	r = run("print", a_in, NULL);
	cr_expect(contains(r.out, "FLOAT (4, 3)"), "%s", r.out);
	cli_result_free(&r);
	expect_listing(root, "a.onnx sub", "infer --in-place");

	free(p_out), free(p_in), free(a_in);
	remove_dir(sub_out);
	remove_dir(tree);
	remove_dir(out);
	remove_tree(root, sub);
}

/* ---- 2. -o FILE ------------------------------------------------------------------------ */

Test(walks, reports_go_to_a_file_whole)
{
	char *dir = make_tmpdir_for("walks_o");
	char *file = path_in(dir, "report");
	static const char *const cmds[][4] = {{"check", "--format", "json", MISMATCH},
					      {"check", "--format", "sarif", MISMATCH},
					      {"check", "--format", "text", MISMATCH},
					      {"shapes", "--format", "json", DYNAMIC},
					      {"print", "--format", "json", DYNAMIC},
					      {"print", "--format", "text", OUTER}};
	for (size_t i = 0; i < 6; i++) {
		cli_result want = run(cmds[i][0], cmds[i][1], cmds[i][2], cmds[i][3], NULL);
		cli_result got = run(cmds[i][0], cmds[i][1], cmds[i][2], "-o", file, cmds[i][3], NULL);
		cr_expect_eq(got.status, want.status, "%s %s", cmds[i][0], cmds[i][2]);
		cr_expect_str_eq(got.out, "", "%s %s: printed to stdout with -o", cmds[i][0], cmds[i][2]);
		char *written = take_output(file);
		cr_expect_str_eq(written, want.out, "%s %s: the file differs from stdout", cmds[i][0], cmds[i][2]);
		free(written);
		cli_result_free(&want), cli_result_free(&got);
		expect_listing(dir, "", cmds[i][0]); /* no temporary file left */
	}
	/* --list-rules is a report too. */
	cli_result want = run("check", "--list-rules", "--format", "json", NULL);
	cli_result got = run("check", "--list-rules", "--format", "json", "-o", file, NULL);
	cr_expect_eq(got.status, 0);
	cr_expect_str_eq(got.out, "");
	char *rules = take_output(file);
	cr_expect(strlen(want.out) > 100);
	cr_expect_str_eq(rules, want.out);
	free(rules);
	cli_result_free(&want), cli_result_free(&got);
	/* A report that was there stays as it was when the command does not run. */
	spit(file, "old\n", 4);
	cli_result r = run("check", "--format", "jsn", "-o", file, MISMATCH, NULL);
	cr_expect_eq(r.status, 2);
	cli_result_free(&r);
	r = run("check", "--output", file, "--fromat", "json", MISMATCH, NULL);
	cr_expect_eq(r.status, 2);
	cli_result_free(&r);
	char *kept = take_output(file);
	cr_expect_str_eq(kept, "old\n");
	free(kept);
	expect_listing(dir, "", "refused");
	/* A report that cannot be written is exit 2 and says why. */
	r = run("check", "-o", "/nonexistent/dir/report.json", DYNAMIC, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "onnxshape check: error: cannot write the report to '/nonexistent/dir/report.json'"),
		  "%s", r.err);
	cli_result_free(&r);
	/* Never over a model being read. */
	char *model = path_in(dir, "m.onnx");
	copy_file(DYNAMIC, model);
	r = run("check", "-o", model, model, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "would replace a model being checked"), "%s", r.err);
	cli_result_free(&r);
	r = run("print", "-o", model, dir, NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cli_result_free(&r);
	r = run("check", model, NULL);
	cr_expect_eq(r.status, 0, "the model was replaced: %s", r.out);
	cli_result_free(&r);
	free(model);
	free(file);
	remove_dir(dir);
}

/* ---- 3. -q --------------------------------------------------------------------------- */

Test(walks, quiet_keeps_only_errors)
{
	cli_result loud = run("check", OUTER, MISMATCH, NULL);
	cli_result r = run("check", "-q", OUTER, MISMATCH, NULL);
	cr_expect_eq(r.status, loud.status);
	cr_expect_eq(r.status, 1);
	cr_expect(contains(loud.out, "warning:") && contains(loud.out, "in 2 files"), "%s", loud.out);
	cr_expect(!contains(r.out, "warning:") && !contains(r.out, "in 2 files"), "%s", r.out);
	cr_expect_eq(count(r.out, "\n"), 1, "%s", r.out);
	cr_expect(contains(r.out, "broadcast_mismatch.onnx: node 3 'mul' (Mul): error:"), "%s", r.out);
	cli_result_free(&r), cli_result_free(&loud);
	r = run("check", "--quiet", OUTER, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, "");
	cli_result_free(&r);
	/* shapes and print: nothing; the exit status says it. */
	static const char *const cmds[] = {"shapes", "print"};
	for (size_t i = 0; i < 2; i++) {
		r = run(cmds[i], "-q", DYNAMIC, OUTER, NULL);
		cr_expect_eq(r.status, 0, "%s: %s", cmds[i], r.err);
		cr_expect_str_eq(r.out, "", "%s", cmds[i]);
		cr_expect_str_eq(r.err, "", "%s", cmds[i]);
		cli_result_free(&r);
		r = run(cmds[i], "-q", DYNAMIC, "/nonexistent.onnx", NULL);
		cr_expect_eq(r.status, 2, "%s", cmds[i]);
		cr_expect(contains(r.err, "/nonexistent.onnx"), "%s: %s", cmds[i], r.err);
		cli_result_free(&r);
	}
	/* infer and rewrite: no notes, no summary. */
	char *dir = make_tmpdir_for("walks_q");
	char *out = path_in(dir, "out.onnx");
	r = run("infer", "--input-shape", "x:4,3", DYNAMIC, "-o", out, NULL);
	cr_expect(contains(r.err, "note:"), "%s", r.err);
	cli_result_free(&r);
	r = run("infer", "-q", "--input-shape", "x:4,3", DYNAMIC, "-o", out, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.err, "");
	cli_result_free(&r);
	r = run("rewrite", "-q", PADDLE, "-o", out, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.err, "");
	cli_result_free(&r);
	r = run("rewrite", "-q", "--dry-run", PADDLE, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, "");
	cli_result_free(&r);
	r = run("rewrite", "--help", NULL);
	cr_expect(contains(r.out, "-q, --quiet        print only errors"), "%s", r.out);
	cli_result_free(&r);
	free(out);
	remove_dir(dir);
}

/* ---- 4. and 7. what a terminal sees --------------------------------------------------- */

/* Runs OSH_CLI with argv (NULL-terminated, argv[0] included) and the environment
 * changes env ("NAME=VALUE", or "NAME" to unset; NULL-terminated), descriptor `fd`
 * (1 or 2) on a pseudo-terminal, the other into /dev/null. Returns what the terminal
 * got (malloc'd), the exit status in *status. */
static char *on_terminal(int fd, const char *const *env, const char *const *argv, int *status)
{
	int master, slave;
	struct winsize ws = {.ws_row = 24, .ws_col = 200};
	cr_assert_eq(openpty(&master, &slave, NULL, NULL, &ws), 0, "openpty: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		pristine_signals();
		close(master);
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 0) < 0 || dup2(slave, fd) < 0 || dup2(null, fd == 1 ? 2 : 1) < 0)
			_exit(126);
		for (const char *const *e = env; *e; e++) {
			const char *eq = strchr(*e, '=');
			if (!eq) {
				unsetenv(*e);
				continue;
			}
			char name[64];
			snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
			setenv(name, eq + 1, 1);
		}
		execv(OSH_CLI, (char *const *)argv);
		_exit(127);
	}
	close(slave);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	cr_assert(buf);
	/* Until the child's end closes: then Linux answers EIO. */
	for (;;) {
		struct pollfd p = {master, POLLIN, 0};
		if (poll(&p, 1, 60000) <= 0)
			break;
		if (n + 4096 > cap)
			cr_assert(buf = realloc(buf, cap *= 2));
		ssize_t r = read(master, buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(master);
	int wst;
	while (waitpid(pid, &wst, 0) < 0)
		cr_assert_eq(errno, EINTR);
	*status = WIFEXITED(wst) ? WEXITSTATUS(wst) : 128 + WTERMSIG(wst);
	cr_assert_neq(*status, 126);
	cr_assert_neq(*status, 127);
	return buf;
}

/* A folder of 20 models (links to DYNAMIC): a long walk. */
static char *many_models(void)
{
	char *dir = make_tmpdir_for("walks_many");
	for (int i = 0; i < 20; i++) {
		char name[32];
		snprintf(name, sizeof name, "m%02d.onnx", i);
		char *p = path_in(dir, name);
		cr_assert_eq(symlink(DYNAMIC, p), 0);
		free(p);
	}
	return dir;
}

Test(walks, progress_only_on_a_terminal)
{
	char *dir = many_models();
	const char *env[] = {"TERM=xterm", NULL};
	static const char *const cmds[][3] = {{"check", NULL, NULL}, {"shapes", NULL, NULL}, {"print", NULL, NULL},
					      {"rewrite", "--dry-run", NULL}};
	for (size_t i = 0; i < 4; i++) {
		const char *argv[] = {OSH_CLI, cmds[i][0], cmds[i][1] ? cmds[i][1] : dir, cmds[i][1] ? dir : NULL, NULL};
		int status;
		char *tty = on_terminal(2, env, argv, &status);
		cr_expect_eq(status, 0, "%s", cmds[i][0]);
		char want[64];
		snprintf(want, sizeof want, "\r\033[Konnxshape %s: 1/20 files: ", cmds[i][0]);
		cr_expect(contains(tty, want), "%s: no progress line in [%s]", cmds[i][0], tty);
		/* Erased at the end: the terminal is left as it was. */
		size_t n = strlen(tty);
		cr_expect(n >= 4 && !strcmp(tty + n - 4, "\r\033[K"), "%s: not erased at the end: [%s]", cmds[i][0],
			  tty);
		free(tty);
	}
	/* A note printed meanwhile erases the line first: it never continues the
	 * progress line's text (-j1: each file's note comes after the line for the one
	 * before it is drawn). */
	const char *noted[] = {OSH_CLI, "check", "-j1", "--input-shape", "y:4,3", dir, NULL};
	int st;
	char *both = on_terminal(2, env, noted, &st);
	cr_expect_eq(st, 0);
	cr_expect_eq(count(both, "note: "), 20, "%s", both);
	cr_expect(contains(both, "files: "), "%s", both);
	for (const char *p = strstr(both, "onnxshape check: note: "); p; p = strstr(p + 1, "onnxshape check: note: "))
		cr_expect(p == both || p[-1] == '\n' || (p - both >= 4 && !strncmp(p - 4, "\r\033[K", 4)),
			  "a note after the progress text: [%.*s]", (int)(p - both < 60 ? p - both : 60), p - 60 < both ? both : p - 60);
	free(both);
	/* Not for a dumb terminal, not when quiet, not for a short walk. */
	const char *dumb[] = {"TERM=dumb", NULL};
	const char *argv[] = {OSH_CLI, "check", dir, NULL};
	int status;
	char *tty = on_terminal(2, dumb, argv, &status);
	cr_expect_str_eq(tty, "");
	free(tty);
	const char *quiet[] = {OSH_CLI, "check", "-q", dir, NULL};
	tty = on_terminal(2, env, quiet, &status);
	cr_expect_str_eq(tty, "");
	free(tty);
	const char *two[] = {OSH_CLI, "check", DYNAMIC, OUTER, NULL};
	tty = on_terminal(2, env, two, &status);
	cr_expect_str_eq(tty, "");
	free(tty);
	/* In a file (a pipe, a CI log): never. */
	cli_result r = run("check", dir, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.err, "");
	cli_result_free(&r);
	remove_dir(dir);
}

Test(walks, colour_follows_no_color_and_term)
{
	static const struct {
		const char *env[3];
		bool colour;
	} cases[] = {
		{{"TERM=xterm", "NO_COLOR", NULL}, true},
		{{"TERM=xterm", "NO_COLOR=", NULL}, true}, /* empty: not set (no-color.org) */
		{{"TERM=xterm", "NO_COLOR=1", NULL}, false},
		{{"TERM=dumb", "NO_COLOR", NULL}, false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *argv[] = {OSH_CLI, "check", MISMATCH, NULL};
		int status;
		char *tty = on_terminal(1, cases[i].env, argv, &status);
		cr_expect_eq(status, 1);
		cr_expect(contains(tty, "error:"), "%s", tty);
		cr_expect_eq(contains(tty, "\033["), cases[i].colour, "%s %s: [%s]", cases[i].env[0], cases[i].env[1],
			     tty);
		free(tty);
	}
}

/* ---- 5. --input-shape over a walk ---------------------------------------------------- */

Test(walks, input_shape_a_walked_model_lacks_is_a_note)
{
	char *dir = make_tmpdir_for("walks_is");
	char *a = path_in(dir, "a.onnx"), *b = path_in(dir, "b.onnx");
	copy_file(DYNAMIC, a);
	copy_file(OUTER, b);
	static const char *const cmds[] = {"check", "shapes"};
	for (size_t i = 0; i < 2; i++) {
		cli_result r = run(cmds[i], "--input-shape", "x:4,3", dir, NULL);
		cr_expect_eq(r.status, 0, "%s: %s", cmds[i], r.err);
		char want[256];
		snprintf(want, sizeof want,
			 "onnxshape %s: note: %s: no graph input named 'x'; --input-shape x ignored for this file\n", cmds[i],
			 b);
		cr_expect(contains(r.err, want), "%s: %s", cmds[i], r.err);
		cr_expect_eq(count(r.err, "note:"), 1, "%s: %s", cmds[i], r.err);
		cli_result_free(&r);
	}
	/* The model that has x got the shape. */
	cli_result r = run("shapes", "--input-shape", "x:4,3", dir, NULL);
	cr_expect(contains(r.out, "FLOAT (4, 3)"), "%s", r.out);
	cli_result_free(&r);
	/* Named alone, a model without x is a usage mistake: exit 2. */
	r = run("check", "--input-shape", "x:4,3", b, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.out, "no graph input named 'x'"), "%s", r.out);
	cli_result_free(&r);
	/* infer over the folder writes both. */
	char *out = path_in(dir, "out");
	r = run("infer", "--input-shape", "x:4,3", dir, "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	expect_listing(out, "a.onnx b.onnx", "infer -o DIR");
	remove_dir(out);
	free(a), free(b);
	remove_dir(dir);
}

/* ---- 7. habits ------------------------------------------------------------------------ */

Test(walks, mistyped_options_get_a_guess)
{
	static const char *const cmds[] = {"check", "shapes", "print", "infer", "rewrite"};
	for (size_t i = 0; i < 5; i++) {
		cli_result r = run(cmds[i], "--colr=never", DYNAMIC, NULL);
		char want[256];
		snprintf(want, sizeof want,
			 "onnxshape %s: error: unknown option '--colr'; did you mean '--color'?\ntry 'onnxshape %s --help'\n",
			 cmds[i], cmds[i]);
		cr_expect_eq(r.status, 2, "%s", cmds[i]);
		cr_expect_str_eq(r.err, want, "%s", cmds[i]);
		cli_result_free(&r);
	}
	cli_result r = run("check", "--fromat", "json", DYNAMIC, NULL);
	cr_expect_str_eq(r.err, "onnxshape check: error: unknown option '--fromat'; did you mean '--format'?\n"
				"try 'onnxshape check --help'\n");
	cli_result_free(&r);
	r = run("check", "--in", "x", DYNAMIC, NULL);
	cr_expect(contains(r.err, "onnxshape check: error: option '--in' is ambiguous; it could be '--input-shape', "
				  "'--input-data', '--input-value'"),
		  "%s", r.err);
	cli_result_free(&r);
	r = run("check", DYNAMIC, "--format", NULL);
	cr_expect_str_eq(r.err, "onnxshape check: error: option '--format' needs a value\ntry 'onnxshape check --help'\n");
	cli_result_free(&r);
	r = run("check", "--werror=yes", DYNAMIC, NULL);
	cr_expect(contains(r.err, "option '--werror' takes no value"), "%s", r.err);
	cli_result_free(&r);
	r = run("shapes", "-z", DYNAMIC, NULL);
	cr_expect(contains(r.err, "onnxshape shapes: error: unknown option '-z'"), "%s", r.err);
	cli_result_free(&r);
	r = run("check", "--zzzzzzzz", DYNAMIC, NULL);
	cr_expect(contains(r.err, "unknown option '--zzzzzzzz'\n"), "%s", r.err);
	cli_result_free(&r);
}

Test(walks, every_message_names_its_command)
{
	/* Usage errors, I/O the tool does itself: "onnxshape CMD: ". */
	static const char *const cmds[] = {"check", "shapes", "print", "infer", "rewrite"};
	for (size_t i = 0; i < 5; i++) {
		cli_result r = run(cmds[i], "--memory-budget", "lots", DYNAMIC, NULL);
		char head[64];
		snprintf(head, sizeof head, "onnxshape %s: error: ", cmds[i]);
		cr_expect_eq(r.status, 2);
		cr_expect(!strncmp(r.err, head, strlen(head)), "%s: %s", cmds[i], r.err);
		cli_result_free(&r);
	}
	cli_result r = run("check", "--warn", "brodcast-mismatch", DYNAMIC, NULL);
	const char *want = "onnxshape check: error: 'brodcast-mismatch' is not a diagnostic code";
	cr_expect(!strncmp(r.err, want, strlen(want)), "%s", r.err);
	cli_result_free(&r);
}
