/* test_cli_habits.c: the command line's habits, as a user meets them,
 * running the built tool (OSH_CLI):
 *  - --input-shape declares the input it overrides in the model written (infer and
 *    rewrite), and says so;
 *  - `-` reads standard input, `-o -` and `-o /dev/stdout` write standard output;
 *  - `shapes` (and `print --values`) lists every value; `print` counts parameters;
 *  - directory walks: .onnx in any case, links to files followed, links to folders
 *    not, hidden folders and --exclude skipped, a walk that finds nothing an error;
 *  - --error/--warn/--ignore on infer and rewrite; -V, `version`; one style of usage
 *    error with a hint; "did you mean" for a mistyped command.
 * Shell pipelines run through sh -c (system), the model bytes passing through files.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define GOOD_DIR OSH_MODELS_DIR "/good"
#define DYNAMIC OSH_MODELS_DIR "/lint/dynamic_shape.onnx" /* x (N, 3) -> Relu -> Add -> y */
#define PADDLE OSH_MODELS_DIR "/rewrite/paddle_block.onnx" /* image (N, 3, 2, 4) */

static char capture_dir[] = "/tmp/osh_test_habits_cap.XXXXXX";

static void setup(void) { cr_assert(mkdtemp(capture_dir), "mkdtemp: %s", strerror(errno)); }
static void teardown(void) { rmdir(capture_dir); }

TestSuite(habits, .init = setup, .fini = teardown);

#define MAX_ARGS 32

/* Runs OSH_CLI with the NULL-terminated arguments. */
static cli_result run(const char *arg, ...)
{
	const char *argv[MAX_ARGS] = {OSH_CLI};
	va_list ap;
	va_start(ap, arg);
	cli_args(argv, 1, MAX_ARGS, arg, ap);
	va_end(ap);
	return cli_run(capture_dir, 0, argv);
}

/* Runs a shell command line (a printf format); returns its exit status. */
static int sh(const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	cr_assert(vasprintf(&cmd, fmt, ap) >= 0);
	va_end(ap);
	fflush(NULL);
	int ws = system(cmd);
	free(cmd);
	cr_assert(ws != -1 && WIFEXITED(ws));
	return WEXITSTATUS(ws);
}

static bool contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* The declared shape of main-graph input `name` of the model at path, formatted
 * as "(4, 3)" into buf (the file must load). */
static void declared_input(const char *path, const char *name, char *buf, size_t cap)
{
	osh_model *m;
	osh_error err;
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s", err.message);
	const osh_summary *s = osh_model_summary(m);
	buf[0] = '\0';
	for (size_t i = 0; i < s->n_inputs; i++) {
		if (strcmp(s->inputs[i].name, name))
			continue;
		size_t len = 0;
		len += (size_t)snprintf(buf + len, cap - len, "(");
		for (int32_t k = 0; k < s->inputs[i].type.rank; k++) {
			const osh_dim *d = &s->inputs[i].type.dims[k];
			if (d->kind == OSH_DIM_VALUE)
				len += (size_t)snprintf(buf + len, cap - len, "%s%lld", k ? ", " : "", (long long)d->value);
			else
				len += (size_t)snprintf(buf + len, cap - len, "%s%s", k ? ", " : "",
							d->kind == OSH_DIM_SYMBOL ? d->symbol : "?");
		}
		snprintf(buf + len, cap - len, ")");
	}
	osh_model_free(m);
}

/* ---- 1. --input-shape declares the input it overrides -------------------------- */

Test(habits, input_shape_rewrites_the_graph_input)
{
	char *dir = make_tmpdir_for("habits");
	char *out = path_in(dir, "ts.onnx"), shape[128];
	declared_input(DYNAMIC, "x", shape, sizeof shape);
	cr_expect_str_eq(shape, "(N, 3)");

	cli_result r = run("infer", "--input-shape", "x:4,3", DYNAMIC, "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(contains(r.err, "graph input 'x' rewritten: FLOAT (N, 3) \xe2\x86\x92 FLOAT (4, 3)"), "%s", r.err);
	cli_result_free(&r);
	declared_input(out, "x", shape, sizeof shape);
	cr_expect_str_eq(shape, "(4, 3)", "infer wrote the input as %s", shape);
	/* And the model written checks clean: its input and value_info agree. */
	r = run("check", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	cli_result_free(&r);
	remove(out);

	/* A symbol and an unknown size are declared as given. */
	r = run("infer", "--input-shape", "x:batch,?", DYNAMIC, "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	declared_input(out, "x", shape, sizeof shape);
	cr_expect_str_eq(shape, "(batch, ?)");
	remove(out);

	/* rewrite takes it too, with or without anything else to rewrite. */
	const char *models[][3] = {{PADDLE, "image:1,3,2,4", "(1, 3, 2, 4)"}, {DYNAMIC, "x:2,3", "(2, 3)"}};
	for (size_t i = 0; i < 2; i++) {
		const char *name = i ? "x" : "image";
		r = run("rewrite", "--input-shape", models[i][1], models[i][0], "-o", out, NULL);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect(contains(r.err, "rewritten: "), "%s", r.err);
		cli_result_free(&r);
		declared_input(out, name, shape, sizeof shape);
		cr_expect_str_eq(shape, models[i][2], "rewrite of %s", models[i][0]);
		remove(out);
	}
	/* --dry-run writes nothing and says nothing was rewritten. */
	r = run("rewrite", "--dry-run", "--input-shape", "image:1,3,2,4", PADDLE, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!contains(r.err, "rewritten"), "%s", r.err);
	cli_result_free(&r);
	free(out);
	remove_dir(dir);
}

/* ---- 2. standard input and output ---------------------------------------------- */

Test(habits, stdin_and_stdout)
{
	char *dir = make_tmpdir_for("habits");
	char *out = path_in(dir, "out.onnx"), *txt = path_in(dir, "out.txt"), *err = path_in(dir, "err.txt");
	char shape[128];

	cr_expect_eq(sh("%s check - < %s > %s", OSH_CLI, DYNAMIC, txt), 0);
	char *s = take_output(txt);
	cr_expect(contains(s, "0 errors, 0 warnings, 0 notes in 1 file (2 nodes)"), "%s", s);
	free(s);

	/* A pipeline: infer from stdin to stdout, the result declared and loadable. */
	cr_expect_eq(sh("cat %s | %s infer --input-shape x:2,3 - -o - > %s 2>/dev/null", DYNAMIC, OSH_CLI, out), 0);
	declared_input(out, "x", shape, sizeof shape);
	cr_expect_str_eq(shape, "(2, 3)");
	remove(out);
	cr_expect_eq(sh("%s rewrite %s -o - 2>/dev/null | %s check - > %s", OSH_CLI, PADDLE, OSH_CLI, txt), 0);
	s = take_output(txt);
	cr_expect(contains(s, "0 errors"), "%s", s);
	free(s);

	/* /dev/stdout into a pipe: written there, no file named '-' or link refused. */
	cr_expect_eq(sh("cd %s && %s infer %s -o /dev/stdout | cat > %s", dir, OSH_CLI, DYNAMIC, out), 0);
	declared_input(out, "x", shape, sizeof shape);
	cr_expect_str_eq(shape, "(N, 3)");
	remove(out);
	cr_expect_eq(sh("cd %s && %s infer %s -o - > %s", dir, OSH_CLI, DYNAMIC, out), 0);
	char *dash = path_in(dir, "-");
	cr_expect(access(dash, F_OK) != 0, "-o - made a file named '-'");
	free(dash);
	remove(out);

	/* An empty standard input is an unreadable model, named as such. */
	cr_expect_eq(sh("%s check - < /dev/null > %s", OSH_CLI, txt), 2);
	s = take_output(txt);
	cr_expect(contains(s, "<stdin>: error: "), "%s", s);
	free(s);
	/* --in-place has no file to write over. */
	cr_expect_eq(sh("%s infer --in-place - < %s 2> %s", OSH_CLI, DYNAMIC, err), 2);
	s = take_output(err);
	cr_expect(contains(s, "onnxshape infer: error: --in-place needs a file"), "%s", s);
	free(s);
	free(out), free(txt), free(err);
	remove_dir(dir);
}

/* ---- 3. shapes, print --values, and print's parameters ---------------------------- */

Test(habits, shapes_lists_every_value)
{
	cli_result r = run("shapes", DYNAMIC, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.out, "value  source         type\n"
				"x      input          FLOAT (N, 3)\n"
				"h      node 0 (Relu)  FLOAT (N, 3)\n"
				"y      node 1 (Add)   FLOAT (N, 3)  (output)\n");
	cli_result_free(&r);

	r = run("print", "--values", DYNAMIC, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(contains(r.out, "h      node 0 (Relu)  FLOAT (N, 3)\n"), "%s", r.out);
	cli_result_free(&r);

	/* Subgraphs' values carry their graph's path; initializers on request. */
	r = run("shapes", "--initializers", "--input-shape", "x:4,3", GOOD_DIR "/if_outer.onnx", DYNAMIC, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	/* The branch declares (2,); with x (4, 3) its Relu gives (4, 3), as ONNX Runtime runs it. */
	cr_expect(contains(r.out, "If_0/then_branch  t      node 0 (Relu)  FLOAT (4, 3)  (output)\n"), "%s", r.out);
	cr_expect(contains(r.out, "initializer"), "%s", r.out);
	cli_result_free(&r);

	r = run("shapes", "--format", "json", GOOD_DIR "/if_outer.onnx", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(contains(r.out, "{\"graph\": \"If_0/then_branch\", \"name\": \"t\", \"source\": \"node\", "
				  "\"node_index\": 0, \"op_type\": \"Relu\", \"output\": true, \"kind\": \"tensor\", "
				  "\"elem_type\": \"FLOAT\", \"shape\": [2]}"),
		  "%s", r.out);
	cli_result_free(&r);

	r = run("print", DYNAMIC, NULL);
	cr_expect(contains(r.out, "parameters: 3 (FLOAT 3, 12 B)\n"), "%s", r.out);
	cli_result_free(&r);
	r = run("print", PADDLE, NULL);
	cr_expect(contains(r.out, "parameters: 13 (FLOAT 13, 52 B)\n"), "%s", r.out);
	cli_result_free(&r);
}

/* ---- 4. directory walks --------------------------------------------------------- */

Test(habits, walks_follow_files_skip_hidden_and_excluded)
{
	char *dir = make_tmpdir_for("habits");
	char path[4096], target[4096];
	const char *dirs[] = {"sub", ".hidden", "build", "a", "a/build", "empty"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, dirs[i]);
		cr_assert_eq(mkdir(path, 0700), 0);
	}
	const char *files[] = {"sub/UPPER.ONNX", ".hidden/h.onnx", "build/b.onnx", "a/build/c.onnx"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		copy_file(GOOD_DIR "/if_outer.onnx", path);
	}
	snprintf(path, sizeof path, "%s/a/link.onnx", dir);
	cr_assert_eq(symlink("../sub/UPPER.ONNX", path), 0);
	snprintf(path, sizeof path, "%s/dirlink.onnx", dir);
	cr_assert_eq(symlink("sub", path), 0); /* a link to a folder: not followed */

	cli_result r = run("check", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	cr_expect(contains(r.out, " in 4 files "), "%s", r.out);
	cli_result_free(&r);
	/* Which four: JSON names every file. */
	r = run("check", "--format", "json", dir, NULL);
	const char *seen[] = {"/a/build/c.onnx\"", "/a/link.onnx\"", "/build/b.onnx\"", "/sub/UPPER.ONNX\""};
	for (size_t i = 0; i < 4; i++)
		cr_expect(contains(r.out, seen[i]), "%s is missing:\n%s", seen[i], r.out);
	cr_expect(!contains(r.out, ".hidden") && !contains(r.out, "dirlink"), "%s", r.out);
	cli_result_free(&r);

	static const struct {
		const char *pattern;
		const char *want;
	} excl[] = {
		{"build", " in 2 files "},   /* any folder named build */
		{"/build", " in 3 files "},  /* the top one only */
		{"a/build/", " in 3 files "}, /* by relative path, folders only */
		{"*.onnx", " in 1 file "},    /* files too: UPPER.ONNX is left */
	};
	for (size_t i = 0; i < sizeof excl / sizeof excl[0]; i++) {
		r = run("check", "--exclude", excl[i].pattern, dir, NULL);
		cr_expect_eq(r.status, 0, "--exclude %s: %s", excl[i].pattern, r.out);
		cr_expect(contains(r.out, excl[i].want), "--exclude %s: %s", excl[i].pattern, r.out);
		cli_result_free(&r);
	}

	/* A folder with no model: exit 2, said so. */
	snprintf(target, sizeof target, "%s/empty", dir);
	r = run("check", target, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.out, "empty: error: no model (*.onnx) found under this directory"), "%s", r.out);
	cli_result_free(&r);
	remove_dir(dir);
}

/* ---- 5. severities, version, usage errors ---------------------------------------- */

Test(habits, severities_on_infer_and_rewrite)
{
	char *dir = make_tmpdir_for("habits");
	char *out = path_in(dir, "out.onnx");
	const char *bad = OSH_MODELS_DIR "/lint/broadcast_mismatch.onnx", *unknown = OSH_MODELS_DIR "/lint/unknown_op.onnx";
	cli_result r = run("infer", bad, "-o", out, NULL);
	cr_expect_eq(r.status, 1);
	cli_result_free(&r);
	cr_expect(access(out, F_OK) != 0);
	r = run("infer", "--ignore", "broadcast-mismatch", bad, "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(!contains(r.err, "broadcast-mismatch"), "%s", r.err);
	cli_result_free(&r);
	cr_expect(access(out, F_OK) == 0);
	remove(out);
	r = run("infer", "--error", "unknown-op", unknown, "-o", out, NULL);
	cr_expect_eq(r.status, 1, "%s", r.err);
	cr_expect(contains(r.err, "error: no shape rule"), "%s", r.err);
	cli_result_free(&r);
	r = run("rewrite", "--warn", "broadcast-mismatch", bad, "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	remove(out);
	r = run("rewrite", "--ignore", "no-such-code", bad, "-o", out, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "onnxshape rewrite: error: 'no-such-code' is not a diagnostic code"), "%s", r.err);
	cli_result_free(&r);
	free(out);
	remove_dir(dir);
}

Test(habits, version_and_usage_errors)
{
	const char *spellings[][2] = {{"-V", NULL}, {"--version", NULL}, {"version", NULL}};
	for (size_t i = 0; i < 3; i++) {
		cli_result r = run(spellings[i][0], NULL);
		cr_expect_eq(r.status, 0);
		cr_expect_str_eq(r.out, "onnxshape " OSH_VERSION "\n");
		cli_result_free(&r);
	}
	cli_result r = run("chek", "x.onnx", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "onnxshape: error: unknown command 'chek'; did you mean 'check'?\n"
				"try 'onnxshape --help'\n");
	cli_result_free(&r);
	r = run("shaeps", NULL);
	cr_expect(contains(r.err, "did you mean 'shapes'?"), "%s", r.err);
	cli_result_free(&r);
	r = run("zzzzzz", NULL);
	cr_expect(!contains(r.err, "did you mean"), "%s", r.err);
	cli_result_free(&r);

	/* Every command: the message, then the hint naming it. */
	static const char *const cmds[] = {"check", "infer", "rewrite", "print", "shapes"};
	for (size_t i = 0; i < 5; i++) {
		bool writes = i == 1 || i == 2; /* infer and rewrite need -o */
		r = run(cmds[i], "--color=sometimes", DYNAMIC, writes ? "-o" : NULL, "/nonexistent/x", NULL);
		char want[128];
		snprintf(want, sizeof want,
			 "onnxshape %s: error: --color must be auto, always or never\ntry 'onnxshape %s --help'\n", cmds[i],
			 cmds[i]);
		cr_expect_eq(r.status, 2, "%s", cmds[i]);
		cr_expect(contains(r.err, want), "%s: %s", cmds[i], r.err);
		cli_result_free(&r);
		r = run(cmds[i], NULL);
		cr_expect_eq(r.status, 2, "%s", cmds[i]);
		char head[64];
		snprintf(want, sizeof want, "try 'onnxshape %s --help'\n", cmds[i]);
		snprintf(head, sizeof head, "onnxshape %s: error: ", cmds[i]);
		cr_expect(!strncmp(r.err, head, strlen(head)) && contains(r.err, want), "%s: %s", cmds[i], r.err);
		cli_result_free(&r);
	}
}
