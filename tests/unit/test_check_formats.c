/* test_check_formats.c: `onnxshape check` as CI runs it (OSH_CLI, the built binary):
 * its text report against a golden file, the JSON and SARIF documents validated by
 * tests/unit/check_report.py (strict JSON, the README's JSON format, SARIF 2.1.0's
 * required properties and GitHub's needs), escaping of hostile names, exit statuses
 * with --werror/--error/--warn/--ignore, --static with --assume/--input-shape, -j
 * giving the same report whatever the number of jobs, colour only when asked, and the
 * README documenting every code with the example message from the code table.
 *
 * OSH_UPDATE_GOLDEN=1 rewrites tests/models/lint/expected.txt instead of comparing.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include "mb.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINT_DIR OSH_MODELS_DIR "/lint"
#define GOLDEN LINT_DIR "/expected.txt"
#define CHECKER OSH_SOURCE_DIR "/tests/unit/check_report.py"

typedef struct result {
	int status;
	char *out, *err;
} result;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	return buf;
}

static char tmp[] = "/tmp/osh_test_check.XXXXXX";

static void setup(void) { cr_assert_not_null(mkdtemp(tmp)); }

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(check, .init = setup, .fini = teardown);

static const char *in_tmp(const char *name)
{
	static char ring[8][512];
	static int at;
	char *p = ring[at++ % 8];
	snprintf(p, 512, "%s/%s", tmp, name);
	return p;
}

/* Runs argv (argv[0] is the program) in directory dir (NULL: here), stdout and stderr
 * into files; the files are kept as tmp/stdout and tmp/stderr for the checker. */
static result run_in(const char *dir, const char **argv)
{
	const char *out = in_tmp("stdout"), *err = in_tmp("stderr");
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int in = open("/dev/null", O_RDONLY);
		if (o < 0 || e < 0 || in < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 ||
		    (dir && chdir(dir) != 0))
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	result r = {WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), slurp(out), slurp(err)};
	cr_assert_neq(r.status, 126);
	cr_assert_neq(r.status, 127, "cannot run %s", argv[0]);
	return r;
}

#define MAX_ARGS 32

/* onnxshape check ARGS... (NULL-terminated), in dir. */
static result check_in(const char *dir, const char *arg, ...)
{
	const char *argv[MAX_ARGS] = {OSH_CLI, "check", "--runtime", "spec"};
	int argc = 4;
	va_list ap;
	va_start(ap, arg);
	for (const char *a = arg; a; a = va_arg(ap, const char *)) {
		cr_assert(argc < MAX_ARGS - 1);
		argv[argc++] = a;
	}
	va_end(ap);
	return run_in(dir, argv);
}

#define check(...) check_in(NULL, __VA_ARGS__)

static void result_free(result *r)
{
	free(r->out);
	free(r->err);
}

static bool has(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

#define expect_has(hay, needle) cr_expect(has((hay), (needle)), "'%s' not in:\n%s", (needle), (hay))

/* Validates the last report (tmp/stdout, saved as `name`) with check_report.py. */
static void validate(const char *format, const char *name)
{
	char *report = slurp(in_tmp("stdout"));
	FILE *f = fopen(in_tmp(name), "wb");
	cr_assert_not_null(f);
	fputs(report, f);
	fclose(f);
	free(report);
	result codes = check("--list-rules", "--format", "json", NULL);
	cr_assert_eq(codes.status, 0);
	f = fopen(in_tmp("codes.json"), "wb");
	fputs(codes.out, f);
	fclose(f);
	result_free(&codes);
	const char *argv[] = {OSH_PYTHON, CHECKER, format, in_tmp(name), in_tmp("codes.json"), NULL};
	result r = run_in(NULL, argv);
	cr_expect_eq(r.status, 0, "%s report invalid: %s%s", format, r.out, r.err);
	result_free(&r);
}

/* A model whose names hold every character JSON must escape, and bytes that are not
 * UTF-8. */
static const char *hostile_model(void)
{
	const char *path = in_tmp("hostile.onnx");
	mb *b = mb_new(13);
	mb_input(b, "q\"uote\\back\nnew\ttab\x01\x1f \xff\xfe end \xe2\x82\xac", DT_FLOAT, "4,1");
	mb_input(b, "t", DT_FLOAT, "4");
	mb_node(b, "Add", "q\"uote\\back\nnew\ttab\x01\x1f \xff\xfe end \xe2\x82\xac,t", "s");
	mb_save(b, path);
	return path;
}

/* ---- text ------------------------------------------------------------------------------ */

/* The golden report: `check .` over the fixtures, then the ones that need options. */
static char *text_report(void)
{
	static const char *const runs[][6] = {
		{"."},
		{"--static", "dynamic_shape.onnx"},
		{"--static", "--assume", "N=2", "dynamic_shape.onnx"},
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		const char *argv[MAX_ARGS] = {OSH_CLI, "check", "--runtime", "spec", "--color=never"};
		int argc = 5;
		fputs("$ onnxshape check", f);
		for (size_t k = 0; k < 6 && runs[i][k]; k++) {
			argv[argc++] = runs[i][k];
			fprintf(f, " %s", runs[i][k]);
		}
		fputc('\n', f);
		result r = run_in(LINT_DIR, argv);
		fprintf(f, "%s(exit status %d)\n\n", r.out, r.status);
		result_free(&r);
	}
	fclose(f);
	return buf;
}

Test(check, text_report_matches_golden)
{
	char *now = text_report();
	if (getenv("OSH_UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN, "wb");
		cr_assert_not_null(f);
		fputs(now, f);
		fclose(f);
	}
	char *want = slurp(GOLDEN);
	cr_expect_str_eq(now, want, "the report changed (OSH_UPDATE_GOLDEN=1 to accept):\n%s", now);
	free(now);
	free(want);
}

Test(check, summary_and_colour)
{
	result r = check("--color=never", LINT_DIR "/same_size_broadcast.onnx", NULL);
	cr_expect_eq(r.status, 0);
	expect_has(r.out, "same_size_broadcast.onnx: node 0 'add' (Add): warning: ");
	expect_has(r.out, "\n0 errors, 1 warning, 0 notes in 1 file (1 node)\n");
	cr_expect(!has(r.out, "\033["));
	result_free(&r);
	r = check("--color=always", LINT_DIR "/same_size_broadcast.onnx", NULL);
	expect_has(r.out, "\033[1;35mwarning");
	result_free(&r);
	/* Not a terminal: auto means no colour; JSON never has any. */
	r = check(LINT_DIR "/same_size_broadcast.onnx", NULL);
	cr_expect(!has(r.out, "\033["));
	result_free(&r);
	r = check("--color=always", "--format", "json", LINT_DIR "/same_size_broadcast.onnx", NULL);
	cr_expect(!has(r.out, "\033["));
	result_free(&r);
}

Test(check, text_keeps_hostile_names_on_one_line)
{
	/* Newline, tab and control bytes escaped, the rest (bytes >= 0x80 too) as it is,
	 * the stretches between escapes written whole: one line per finding. */
	result r = check("--color=never", hostile_model(), NULL);
	cr_expect_eq(r.status, 0);
	expect_has(r.out, "(Add): warning: 'q\"uote\\back\\nnew\\ttab\\x01\\x1f \xff\xfe end \xe2\x82\xac' (4, 1) "
			  "and 't' (4,) hold 4 elements each");
	const char *nl = strchr(r.out, '\n');
	cr_assert_not_null(nl);
	cr_expect(nl - r.out > 12 && !strncmp(nl - 21, "[same-size-broadcast]", 21), "%s", r.out);
	result_free(&r);
}

/* ---- JSON and SARIF -------------------------------------------------------------------- */

Test(check, json_is_valid_and_complete)
{
	const char *hostile = hostile_model();
	result r = check("--format", "json", LINT_DIR, OSH_MODELS_DIR "/bad", hostile, in_tmp("missing.onnx"), NULL);
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "");
	validate("json", "report.json");
	/* What the README promises, by example. */
	expect_has(r.out, "{\"version\": 1,");
	expect_has(r.out, "\"status\": \"unreadable\", \"nodes\": 0, \"error\": ");
	expect_has(r.out, "\"code\": \"same-size-broadcast\", \"node\": \"add\", \"node_index\": 0, \"op_type\": \"Add\", "
			  "\"graph\": \"\", \"value\": null");
	expect_has(r.out, "\"inputs\": [{\"name\": \"pred\", \"elem_type\": \"FLOAT\", \"shape\": [4, 1]}, "
			  "{\"name\": \"target\", \"elem_type\": \"FLOAT\", \"shape\": [4]}]");
	expect_has(r.out, "\"shape\": [\"N\", 3]");
	expect_has(r.out, "\"node\": null, \"node_index\": null, \"op_type\": null, \"graph\": \"\", \"value\": \"w\"");
	/* Escapes: quote, backslash, newline, tab, control bytes; bad UTF-8 replaced, good kept. */
	expect_has(r.out, "q\\\"uote\\\\back\\nnew\\ttab\\u0001\\u001f \\ufffd\\ufffd end \xe2\x82\xac");
	result_free(&r);
}

Test(check, sarif_is_valid_for_code_scanning)
{
	const char *hostile = hostile_model();
	result r = check("--format", "sarif", LINT_DIR, OSH_MODELS_DIR "/bad/empty.onnx", hostile,
			 in_tmp("missing.onnx"), NULL);
	cr_expect_eq(r.status, 2);
	validate("sarif", "report.sarif");
	expect_has(r.out, "\"version\": \"2.1.0\"");
	expect_has(r.out, "{\"id\": \"broadcast-mismatch\", \"name\": \"BroadcastMismatch\", \"shortDescription\": ");
	expect_has(r.out, "\"defaultConfiguration\": {\"level\": \"error\"}");
	expect_has(r.out, "{\"ruleId\": \"same-size-broadcast\", \"ruleIndex\": 5, \"level\": \"warning\"");
	expect_has(r.out, "\"artifactLocation\": {\"uri\": \"file://" OSH_MODELS_DIR "/lint/same_size_broadcast.onnx\"}");
	expect_has(r.out, "\"logicalLocations\": [{\"name\": \"add\", \"fullyQualifiedName\": \"add\", \"kind\": \"function\"}]");
	expect_has(r.out, "\"executionSuccessful\": false, \"exitCode\": 2");
	/* The empty file is an alert and a notification; the missing one only a notification. */
	expect_has(r.out, "\"ruleId\": \"malformed-model\", \"ruleIndex\": 0, \"level\": \"error\", \"message\": "
			  "{\"text\": \"" OSH_MODELS_DIR "/bad/empty.onnx: not an ONNX model: the file is empty\"}");
	expect_has(r.out, "missing.onnx: cannot open: No such file or directory\"}");
	result_free(&r);
	/* Relative paths stay relative, percent-encoded. */
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "3,1");
	mb_input(b, "b", DT_FLOAT, "1,4");
	mb_node(b, "Mul", "a,b", "c");
	mb_save(b, in_tmp("with space#.onnx"));
	const char *argv[] = {OSH_CLI, "check", "--format", "sarif", "./with space#.onnx", NULL};
	r = run_in(tmp, argv);
	cr_expect_eq(r.status, 0);
	expect_has(r.out, "\"uri\": \"with%20space%23.onnx\"");
	expect_has(r.out, "\"executionSuccessful\": true, \"exitCode\": 0");
	result_free(&r);
}

Test(check, clean_run_documents)
{
	result r = check("--format", "sarif", LINT_DIR "/clean.onnx", NULL);
	cr_expect_eq(r.status, 0);
	validate("sarif", "clean.sarif");
	expect_has(r.out, "\"results\": []");
	result_free(&r);
	r = check("--format", "json", LINT_DIR "/clean.onnx", NULL);
	cr_expect_eq(r.status, 0);
	validate("json", "clean.json");
	expect_has(r.out, "\"status\": \"ok\", \"nodes\": 6, \"error\": null, \"diagnostics\": []");
	expect_has(r.out, "\"summary\": {\"files\": 1, \"nodes\": 6, \"errors\": 0, \"warnings\": 0, \"notes\": 0, "
			  "\"unreadable\": 0}");
	result_free(&r);
}

/* ---- exit statuses and severities ---------------------------------------------------- */

Test(check, exit_statuses)
{
	static const struct {
		const char *args[5];
		int status;
	} cases[] = {
		{{LINT_DIR "/clean.onnx"}, 0},
		{{LINT_DIR "/same_size_broadcast.onnx"}, 0},                  /* a warning */
		{{"--werror", LINT_DIR "/same_size_broadcast.onnx"}, 1},
		{{"--werror", LINT_DIR "/symbol_constraint.onnx"}, 0},        /* a note */
		{{"--error", "same-size-broadcast", LINT_DIR "/same_size_broadcast.onnx"}, 1},
		{{"--error", "same-size-broadcast", "--ignore", "same-size-broadcast", LINT_DIR "/same_size_broadcast.onnx"}, 0},
		{{LINT_DIR "/shape_conflict.onnx"}, 0}, /* sizes only: a warning (ONNX Runtime runs it) */
		{{"--error", "shape-conflict", LINT_DIR "/shape_conflict.onnx"}, 1},
		{{"--warn", "broadcast-mismatch", LINT_DIR "/broadcast_mismatch.onnx"}, 0},
		{{"--ignore", "broadcast-mismatch", LINT_DIR "/broadcast_mismatch.onnx"}, 0},
		{{LINT_DIR "/malformed_model.onnx"}, 2},
		{{LINT_DIR "/malformed_model.onnx", LINT_DIR "/shape_conflict.onnx"}, 2},
		{{"--static", LINT_DIR "/dynamic_shape.onnx"}, 1},
		{{"--static", "--assume", "N=4", LINT_DIR "/dynamic_shape.onnx"}, 0},
		{{"--static", "--input-shape", "x:4,3", LINT_DIR "/dynamic_shape.onnx"}, 0},
		{{"--input-shape", "nope:4", LINT_DIR "/dynamic_shape.onnx"}, 2},  /* no such input: not checked */
		/* usage errors */
		{{"--ignore", "no-such-code", LINT_DIR "/clean.onnx"}, 2},
		{{"--ignore", "malformed-model", LINT_DIR "/clean.onnx"}, 2},
		{{"--format", "xml", LINT_DIR "/clean.onnx"}, 2},
		{{"-j", "x", LINT_DIR "/clean.onnx"}, 2},
		{{"--assume", "N", LINT_DIR "/clean.onnx"}, 2},
		{{NULL}, 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *argv[MAX_ARGS] = {OSH_CLI, "check", "--runtime", "spec"};
		int argc = 4;
		for (size_t k = 0; k < 5 && cases[i].args[k]; k++)
			argv[argc++] = cases[i].args[k];
		result r = run_in(NULL, argv);
		cr_expect_eq(r.status, cases[i].status, "case %zu (%s %s): exit %d\n%s%s", i,
			     cases[i].args[0] ? cases[i].args[0] : "", cases[i].args[1] ? cases[i].args[1] : "",
			     r.status, r.out, r.err);
		result_free(&r);
	}
}

Test(check, ignored_codes_are_gone_and_others_stay)
{
	result r = check("--ignore", "same-size-broadcast", "--error", "axis-broadcast", LINT_DIR, NULL);
	cr_expect(!has(r.out, "[same-size-broadcast]"));
	expect_has(r.out, "elementwise_add_0' (elementwise_add): error: paddle rule");
	result_free(&r);
}

Test(check, unreadable_files_do_not_stop_the_others)
{
	result r = check(in_tmp("missing.onnx"), LINT_DIR "/same_size_broadcast.onnx", NULL);
	cr_expect_eq(r.status, 2);
	expect_has(r.out, "missing.onnx: error: cannot open: No such file or directory\n");
	expect_has(r.out, "[same-size-broadcast]");
	expect_has(r.out, "1 error, 1 warning, 0 notes in 2 files (1 node)");
	result_free(&r);
}

/* ---- parallel ------------------------------------------------------------------------- */

Test(check, jobs_do_not_change_the_report)
{
	static const char *const formats[] = {"text", "json", "sarif"};
	for (size_t f = 0; f < 3; f++) {
		result one = check("-j", "1", "--format", formats[f], OSH_MODELS_DIR, NULL);
		result many = check("-j", "8", "--format", formats[f], OSH_MODELS_DIR, NULL);
		result dflt = check("--format", formats[f], OSH_MODELS_DIR, NULL);
		cr_expect_eq(one.status, many.status);
		cr_expect_str_eq(one.out, many.out, "%s: -j 1 and -j 8 differ", formats[f]);
		cr_expect_str_eq(one.out, dflt.out, "%s: -j 1 and the default differ", formats[f]);
		result_free(&one);
		result_free(&many);
		result_free(&dflt);
	}
}

/* ---- the README ----------------------------------------------------------------------- */

/* Every code is a row of the README's table with its default severity, and its example
 * message (the code table's, which must be real: it appears in the golden report
 * when a fixture makes it) is quoted in docs/diagnostics.md; docs/reports.md
 * describes the JSON report. */
Test(check, readme_documents_every_code)
{
	static const char *const sev[] = {"note", "warning", "error"};
	char *readme = slurp(OSH_SOURCE_DIR "/README.md");
	char *codes = slurp(OSH_SOURCE_DIR "/docs/diagnostics.md");
	char *reports = slurp(OSH_SOURCE_DIR "/docs/reports.md");
	char *golden = slurp(GOLDEN);
	size_t n;
	const osh_rule *rules = osh_rules(&n);
	for (size_t i = 0; i < n; i++) {
		char row[128];
		snprintf(row, sizeof row, "| `%s` | %s |", rules[i].code, sev[rules[i].severity]);
		expect_has(readme, row);
		expect_has(codes, rules[i].example);
		char tag[96];
		snprintf(tag, sizeof tag, "[%s]", rules[i].code);
		if (has(golden, tag))
			cr_expect(has(golden, rules[i].example), "the example of %s is not a line of %s:\n%s",
				  rules[i].code, GOLDEN, rules[i].example);
	}
	expect_has(reports, "--format json");
	expect_has(reports, "\"diagnostics\"");
	free(readme);
	free(codes);
	free(reports);
	free(golden);
}
