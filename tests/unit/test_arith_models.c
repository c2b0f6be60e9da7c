/* test_arith_models.c: the tool and the library on the models of tests/models/arith
 * (gen_arith.py), whose sizes meet int64 division, remainder and float-to-integer
 * conversion at their edges: INT64_MIN / -1 in Reshape's -1, in a dim_param and in
 * Div, Mod, Range and Slice; Resize and Upsample scales of 1e30, 3e38 and inf.
 *
 * Every command (check in each format, infer, shapes, print, rewrite) ends with a
 * report and the exit status of one (0, 1 or 2), never by a signal (SIGFPE was the
 * symptom; under the sanitizer build, an undefined conversion aborts); the library's
 * own calls (load, infer, lint, annotate) return a status. What the sizes come out
 * as is beside the point: none of these sizes exists.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"

#define ARITH_DIR OSH_MODELS_DIR "/arith"

static char *work;

static void setup(void) { work = make_tmpdir_for("arith"); }
static void teardown(void) { remove_dir(work); }

TestSuite(arith_models, .init = setup, .fini = teardown);

static cli_result run(const char *const *argv) { return cli_run(work, 0, argv); }

static void expect_report(const char *const *argv)
{
	char cmd[1024] = "onnxshape";
	for (size_t i = 1; argv[i]; i++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s", argv[i]);
	cli_result r = run(argv);
	cr_expect(r.status >= 0 && r.status <= 2, "%s: exit %d (%s)\n%s%s", cmd, r.status,
		  r.status > 128 ? strsignal(r.status - 128) : "not a report's status", r.out, r.err);
	cli_result_free(&r);
}

static void commands_on(const char *path, void *ctx)
{
	size_t len = strlen(path);
	if (len < 5 || strcmp(path + len - 5, ".onnx"))
		return;
	++*(size_t *)ctx;
	char *out = path_in(work, "out.onnx");
	const char *const cmds[][8] = {
		{OSH_CLI, "check", path, NULL},
		{OSH_CLI, "check", "--format", "json", path, NULL},
		{OSH_CLI, "check", "--format", "sarif", path, NULL},
		{OSH_CLI, "check", "--format", "html", path, NULL},
		{OSH_CLI, "infer", path, "-o", out, NULL},
		{OSH_CLI, "shapes", path, NULL},
		{OSH_CLI, "print", path, NULL},
		{OSH_CLI, "rewrite", path, "-o", out, NULL},
		{OSH_CLI, "rewrite", "--explicit-broadcast", path, "-o", out, NULL},
		{OSH_CLI, "rewrite", "--target-opset", "11", path, "-o", out, NULL},
	};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		expect_report(cmds[i]);
		unlink(out);
	}
	free(out);
}

Test(arith_models, every_command_ends_with_a_report, .timeout = 120)
{
	size_t n = 0;
	for_each_file(ARITH_DIR, false, commands_on, &n);
	cr_expect_geq(n, 10, "the fixtures of %s", ARITH_DIR);
}

static void library_on(const char *path, void *ctx)
{
	size_t len = strlen(path);
	if (len < 5 || strcmp(path + len - 5, ".onnx"))
		return;
	++*(size_t *)ctx;
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, path, NULL, &err), OSH_OK, "%s: %s", path, err.message);
	cr_expect(!osh_model_is_malformed(m), "%s loads as valid ONNX", path);
	cr_expect_eq(osh_infer(m, NULL, &err), OSH_OK, "%s: %s", path, err.message);
	cr_expect_eq(osh_lint(m, &err), OSH_OK, "%s: %s", path, err.message);
	if (!osh_model_has_errors(m))
		cr_expect_eq(osh_annotate(m, &err), OSH_OK, "%s: %s", path, err.message);
	osh_model_free(m);
}

Test(arith_models, the_library_returns_a_status)
{
	size_t n = 0;
	for_each_file(ARITH_DIR, false, library_on, &n);
	cr_expect_geq(n, 10);
}
