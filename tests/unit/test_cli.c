/* test_cli.c: the onnxshape command as a user runs it (OSH_CLI, the built binary),
 * run with fork/exec, its stdout and stderr captured in files.
 *
 * Covers the contract of src/cli: --version and every --help exit 0; usage errors
 * exit 2; `check` exits 2 on every bad fixture and names the problem, also when it
 * walks directories; `rewrite` (and `infer`) of a bad model exits 2 and leaves
 * neither the output nor a temporary file; `rewrite` of a good model is
 * byte-identical, also with --repack; writing over the input (same path, another
 * spelling, a hard link) needs --in-place; a missing output directory, or a write
 * that fails midway (a file size limit), is exit 2 with nothing left behind; `print`
 * shows opsets and inputs; --timings reports each file's stages on stderr, changing
 * nothing else. Exact messages are test_loader.c's business: here only
 * the key phrase and the file name.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BAD_DIR OSH_MODELS_DIR "/bad"
#define GOOD_DIR OSH_MODELS_DIR "/good"

/* What `check` must say about each bad fixture (the loader's wording; test_loader.c
 * checks the details). Every *.onnx in tests/models/bad needs a row. */
static const struct {
	const char *file, *phrase;
} bad[] = {
	{"undefined_input.onnx", "input 'ghost' is not produced by any node"},
	{"produced_twice.onnx", "value 't' is produced twice"},
	{"cycle.onnx", "the graph has a cycle"},
	{"no_opset_import.onnx", "opset_import is missing"},
	{"init_unknown_dtype.onnx", "has an unknown data type 99"},
	{"input_unknown_elem_type.onnx", "'x' has an unknown element type 99"},
	{"value_info_unknown_elem_type.onnx", "'t' has an unknown element type 99"},
	{"init_negative_dim.onnx", "has a negative dimension -2"},
	{"init_dims_overflow.onnx", "element count overflows int64"},
	{"raw_data_length.onnx", "raw_data holds 20 bytes"},
	{"typed_count.onnx", "dims give 6 elements but the data holds 5"},
	{"truncated.onnx", "truncated or corrupt"},
	{"corrupt.onnx", "truncated or corrupt"},
	{"empty.onnx", "the file is empty"},
	{"no_ir_version.onnx", "ir_version is missing"},
	{"no_graph.onnx", "the model has no graph"},
	{"ext_absolute.onnx", "is an absolute path"},
	{"ext_dotdot.onnx", "contains a '..' component"},
	{"ext_backslash.onnx", "contains a backslash"},
	{"ext_symlink.onnx", "is or passes through a symbolic link"},
	{"ext_missing.onnx", "does not exist"},
	{"ext_length.onnx", "external data length 20 disagrees"},
	{"ext_offset.onnx", "external data offset 100 is past the end"},
	{"subgraph_undefined.onnx", "graph 'If_0/then_branch': node 0 'then_id' (Identity): error: input 'nope'"},
	{"nested_33.onnx", "subgraphs are nested more than 32 levels deep"},
};
#define NBAD (sizeof bad / sizeof bad[0])

static const char *const good[] = {
	"external_ok.onnx", "if_outer.onnx", "unknown_field.onnx", "local_function.onnx", "nested_32.onnx",
};
#define NGOOD (sizeof good / sizeof good[0])

/* ---- running the tool ---------------------------------------------------------- */

typedef cli_result result;

static char capture_dir[] = "/tmp/osh_test_cli_cap.XXXXXX";

static void setup(void) { cr_assert(mkdtemp(capture_dir), "mkdtemp: %s", strerror(errno)); }
static void teardown(void) { rmdir(capture_dir); }

TestSuite(cli, .init = setup, .fini = teardown);

/* cli_run in the capture directory. */
static result run_argv(long fsize, const char *const *argv) { return cli_run(capture_dir, fsize, argv); }

#define MAX_ARGS 32

static result run_va(long fsize, const char *arg, va_list ap)
{
	const char *argv[MAX_ARGS] = {OSH_CLI};
	cli_args(argv, 1, MAX_ARGS, arg, ap);
	return run_argv(fsize, argv);
}

/* Runs OSH_CLI with the NULL-terminated arguments. */
static result run(const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	result r = run_va(0, arg, ap);
	va_end(ap);
	return r;
}

/* The same, with files limited to fsize bytes. */
static result run_limited(long fsize, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	result r = run_va(fsize, arg, ap);
	va_end(ap);
	return r;
}


static bool contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* ---- files --------------------------------------------------------------------- */

static bool same_bytes(const char *a, const char *b)
{
	size_t na, nb;
	uint8_t *da = slurp(a, &na), *db = slurp(b, &nb);
	bool same = na == nb && !memcmp(da, db, na);
	free(da);
	free(db);
	return same;
}

/* ---- usage --------------------------------------------------------------------- */

Test(cli, version)
{
	result r = run("--version", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, "onnxshape " OSH_VERSION "\n");
	cr_expect_str_eq(r.err, "");
	cli_result_free(&r);
}

Test(cli, help)
{
	result r = run("--help", NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(contains(r.out, "usage: onnxshape <command>"), "%s", r.out);
	cli_result_free(&r);
	static const char *const cmds[] = {"check", "print", "infer", "rewrite"};
	for (size_t i = 0; i < 4; i++) {
		for (int shortopt = 0; shortopt < 2; shortopt++) {
			r = run(cmds[i], shortopt ? "-h" : "--help", NULL);
			char want[64];
			snprintf(want, sizeof want, "usage: onnxshape %s ", cmds[i]);
			cr_expect_eq(r.status, 0, "%s --help: exit %d", cmds[i], r.status);
			cr_expect(contains(r.out, want), "%s --help printed: %s", cmds[i], r.out);
			cr_expect_str_eq(r.err, "", "%s --help", cmds[i]);
			cli_result_free(&r);
		}
	}
}

Test(cli, usage_errors)
{
	result r = run("frobnicate", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "unknown command 'frobnicate'"), "%s", r.err);
	cr_expect_str_eq(r.out, "");
	cli_result_free(&r);

	r = run(NULL);
	cr_expect_eq(r.status, 2, "no command");
	cr_expect(contains(r.err, "usage:"), "%s", r.err);
	cli_result_free(&r);

	static const char *const cmds[] = {"check", "print", "infer", "rewrite"};
	for (size_t i = 0; i < 4; i++) {
		r = run(cmds[i], NULL);
		cr_expect_eq(r.status, 2, "%s without a model: exit %d", cmds[i], r.status);
		cli_result_free(&r);
		r = run(cmds[i], "--no-such-option", GOOD_DIR "/if_outer.onnx", NULL);
		cr_expect_eq(r.status, 2, "%s with a bad option: exit %d", cmds[i], r.status);
		cli_result_free(&r);
		bool writes = i >= 2; /* infer and rewrite need -o */
		r = run(cmds[i], "--color=sometimes", GOOD_DIR "/if_outer.onnx", writes ? "-o" : NULL,
			"/nonexistent/x", NULL);
		cr_expect_eq(r.status, 2, "%s --color=sometimes: exit %d", cmds[i], r.status);
		cr_expect(contains(r.err, "--color must be auto, always or never"), "%s: %s", cmds[i], r.err);
		cli_result_free(&r);
	}
}

/* ---- check --------------------------------------------------------------------- */

Test(cli, bad_table_matches_directory)
{
	DIR *d = opendir(BAD_DIR);
	cr_assert(d);
	size_t seen = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".onnx"))
			continue;
		bool found = false;
		for (size_t i = 0; i < NBAD; i++)
			found |= !strcmp(bad[i].file, e->d_name);
		cr_expect(found, "%s/%s has no row in test_cli.c", BAD_DIR, e->d_name);
		seen++;
	}
	closedir(d);
	cr_expect_eq(seen, NBAD);
}

Test(cli, check_bad_fixtures)
{
	for (size_t i = 0; i < NBAD; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", BAD_DIR, bad[i].file);
		result r = run("check", "--color=never", path, NULL);
		cr_expect_eq(r.status, 2, "check %s: exit %d", bad[i].file, r.status);
		cr_expect(contains(r.out, bad[i].phrase), "check %s does not say \"%s\":\n%s", bad[i].file,
			  bad[i].phrase, r.out);
		char located[PATH_MAX + 16];
		snprintf(located, sizeof located, "%s: ", path);
		cr_expect(contains(r.out, located), "check %s: the report does not name the file:\n%s",
			  bad[i].file, r.out);
		cr_expect(contains(r.out, "error: "), "%s", r.out);
		cr_expect(!contains(r.out, "\033["), "check %s: colour with --color=never", bad[i].file);
		cr_expect(contains(r.out, " in 1 file "), "check %s: no summary line:\n%s", bad[i].file, r.out);
		cli_result_free(&r);
	}
}

Test(cli, check_good_fixtures)
{
	for (size_t i = 0; i < NGOOD; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", GOOD_DIR, good[i]);
		result r = run("check", path, NULL);
		cr_expect_eq(r.status, 0, "check %s: exit %d\n%s", good[i], r.status, r.out);
		/* Warnings (an operator without a shape rule yet) do not matter here. */
		cr_expect(contains(r.out, "\n0 errors, ") || !strncmp(r.out, "0 errors, ", 10), "%s", r.out);
		cr_expect(contains(r.out, " in 1 file "), "%s", r.out);
		cr_expect(!contains(r.out, "malformed-model"), "%s", r.out);
		cli_result_free(&r);
	}
}

Test(cli, check_directory_of_good_models)
{
	result r = run("check", GOOD_DIR, NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	char want[64];
	snprintf(want, sizeof want, " in %zu files ", NGOOD);
	cr_expect(contains(r.out, want), "%s", r.out);
	cr_expect(!contains(r.out, "error:"), "%s", r.out);
	cli_result_free(&r);
}

/* One unreadable or bad file makes the exit 2, but every file is still checked and
 * counted. */
Test(cli, check_several_files)
{
	result r = run("check", BAD_DIR "/empty.onnx", GOOD_DIR "/if_outer.onnx", BAD_DIR "/no-such.onnx", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.out, "the file is empty"), "%s", r.out);
	cr_expect(contains(r.out, BAD_DIR "/no-such.onnx: error: cannot open"), "%s", r.out);
	cr_expect(contains(r.out, "\n2 errors, "), "%s", r.out);
	cr_expect(contains(r.out, " in 3 files (3 nodes)"), "%s", r.out);
	cli_result_free(&r);
}

/* Directories are searched recursively for *.onnx, including subdirectories that hold
 * no model at all (tests/models/bad/ext, empty/ below). Under UBSan this found
 * qsort(NULL, 0, ...) in walk() of src/cli/cmd_check.c for such a directory. */
Test(cli, check_walks_subdirectories)
{
	char *dir = make_tmpdir_for("cli");
	char *empty = path_in(dir, "empty"), *sub = path_in(dir, "sub"), *notes = path_in(dir, "notes.txt");
	char *inner = path_in(dir, "sub/inner.onnx"), *top = path_in(dir, "top.onnx");
	cr_assert_eq(mkdir(empty, 0700), 0);
	cr_assert_eq(mkdir(sub, 0700), 0);
	copy_file(GOOD_DIR "/if_outer.onnx", inner);
	copy_file(BAD_DIR "/cycle.onnx", top);
	copy_file(GOOD_DIR "/external_ok.bin", notes);
	result r = run("check", dir, NULL);
	cr_expect_eq(r.status, 2, "exit %d\n%s%s", r.status, r.out, r.err);
	cr_expect(contains(r.out, "top.onnx: node 0 'A' (Add): error: the graph has a cycle"), "%s", r.out);
	cr_expect(contains(r.out, " in 2 files "), "%s", r.out);
	cli_result_free(&r);
	unlink(inner), unlink(top), unlink(notes), rmdir(sub), rmdir(empty), rmdir(dir);
	free(empty), free(sub), free(notes), free(inner), free(top), free(dir);

	r = run("check", BAD_DIR, NULL);
	cr_expect_eq(r.status, 2, "exit %d\n%s", r.status, r.err);
	/* The hostile-input fixtures (test_load_limits.c) are walked too. */
	size_t hostile = 0;
	DIR *hd = opendir(BAD_DIR "/hostile");
	for (struct dirent *he; hd && (he = readdir(hd)) != NULL;)
		hostile += strlen(he->d_name) > 5 && !strcmp(he->d_name + strlen(he->d_name) - 5, ".onnx");
	if (hd)
		closedir(hd);
	char want[64];
	snprintf(want, sizeof want, " in %zu files ", NBAD + hostile);
	cr_expect(contains(r.out, want), "%s", r.out);
	for (size_t i = 0; i < NBAD; i++)
		cr_expect(contains(r.out, bad[i].phrase), "check of the directory misses %s", bad[i].file);
	cli_result_free(&r);
}

/* A directory given with a trailing slash: paths are joined with one slash. */
Test(cli, check_directory_with_trailing_slash)
{
	result r = run("check", BAD_DIR "/", NULL);
	cr_expect(contains(r.out, BAD_DIR "/cycle.onnx: "), "%s", r.out);
	cr_expect(!contains(r.out, "//"), "a path with a doubled slash:\n%s", r.out);
	cli_result_free(&r);
}

/* A FIFO given by name is refused, not waited on. */
Test(cli, check_fifo_does_not_block, .timeout = 10)
{
	char *dir = make_tmpdir_for("cli");
	char *fifo = path_in(dir, "model.onnx");
	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
	result r = run("check", fifo, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.out, "not a regular file"), "%s", r.out);
	cli_result_free(&r);
	free(fifo);
	remove_dir(dir);
}

/* ---- rewrite and infer --------------------------------------------------------- */

Test(cli, rewrite_bad_writes_nothing)
{
	char *dir = make_tmpdir_for("cli");
	char *out = path_in(dir, "out.onnx");
	for (size_t i = 0; i < NBAD; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", BAD_DIR, bad[i].file);
		static const char *const cmds[] = {"rewrite", "infer"};
		for (size_t k = 0; k < 2; k++) {
			result r = run(cmds[k], path, "-o", out, NULL);
			cr_expect_eq(r.status, 2, "%s %s: exit %d", cmds[k], bad[i].file, r.status);
			cr_expect(contains(r.err, bad[i].phrase), "%s %s: stderr lacks \"%s\":\n%s", cmds[k],
				  bad[i].file, bad[i].phrase, r.err);
			cr_expect_eq(access(out, F_OK), -1, "%s %s: the output exists", cmds[k], bad[i].file);
			expect_listing(dir, "", bad[i].file);
			cli_result_free(&r);
		}
	}
	free(out);
	remove_dir(dir);
}

Test(cli, rewrite_good_is_byte_identical)
{
	char *dir = make_tmpdir_for("cli");
	char *out = path_in(dir, "out.onnx");
	for (size_t i = 0; i < NGOOD; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", GOOD_DIR, good[i]);
		/* external data is only written beside its files: see the next test */
		if (!strcmp(good[i], "external_ok.onnx"))
			continue;
		/* (infer is left out: it writes the inferred shapes into the model.) */
		static const char *const modes[][2] = {{"rewrite", NULL}, {"rewrite", "--repack"}};
		for (size_t k = 0; k < 2; k++) {
			unlink(out);
			result r = modes[k][1] ? run(modes[k][0], modes[k][1], path, "-o", out, NULL)
					       : run(modes[k][0], path, "-o", out, NULL);
			cr_expect_eq(r.status, 0, "%s %s %s: exit %d\n%s", modes[k][0], modes[k][1] ? modes[k][1] : "",
				     good[i], r.status, r.err);
			cr_expect_str_eq(r.err, "", "%s %s", modes[k][0], good[i]);
			cr_expect(r.status == 0 && same_bytes(path, out), "%s %s %s: output differs", modes[k][0],
				  modes[k][1] ? modes[k][1] : "", good[i]);
			expect_listing(dir, "out.onnx", good[i]);
			cli_result_free(&r);
		}
	}
	free(out);
	remove_dir(dir);
}

/* A model with external data is written only into the directory of its data files:
 * elsewhere its relative locations would point at nothing. */
Test(cli, rewrite_external_data_stays_beside_its_files)
{
	char *dir = make_tmpdir_for("cli");
	char *out = path_in(dir, "out.onnx");
	result r = run("rewrite", GOOD_DIR "/external_ok.onnx", "-o", out, NULL);
	cr_expect_eq(r.status, 2, "exit %d", r.status);
	cr_expect(contains(r.err, "external data"), "%s", r.err);
	expect_listing(dir, "", "refused external write");
	cli_result_free(&r);
	/* Beside its data file it round-trips byte for byte. */
	char *model = path_in(dir, "m.onnx"), *bin = path_in(dir, "external_ok.bin");
	copy_file(GOOD_DIR "/external_ok.onnx", model);
	copy_file(GOOD_DIR "/external_ok.bin", bin);
	r = run("rewrite", model, "-o", out, NULL);
	cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_expect(same_bytes(model, out));
	cli_result_free(&r);
	free(model);
	free(bin);
	free(out);
	remove_dir(dir);
}

/* A copy of if_outer.onnx in a fresh directory, so tests may write over it. */
static char *scratch_model(char **dir)
{
	*dir = make_tmpdir_for("cli");
	char *p = path_in(*dir, "model.onnx");
	copy_file(GOOD_DIR "/if_outer.onnx", p);
	return p;
}

Test(cli, rewrite_over_input_needs_in_place)
{
	char *dir;
	char *model = scratch_model(&dir);
	struct stat before;
	cr_assert_eq(stat(model, &before), 0);

	result r = run("rewrite", model, "-o", model, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "--in-place"), "%s", r.err);
	cr_expect(contains(r.err, "is the input model"), "%s", r.err);
	cr_expect(same_bytes(GOOD_DIR "/if_outer.onnx", model), "the input changed");
	expect_listing(dir, "model.onnx", "same path");
	cli_result_free(&r);

	/* Another name for the same inode is the same file. */
	char *alias = path_in(dir, "alias.onnx");
	cr_assert_eq(link(model, alias), 0);
	r = run("rewrite", model, "-o", alias, NULL);
	cr_expect_eq(r.status, 2, "a hard link to the input was overwritten");
	cr_expect(contains(r.err, "--in-place"), "%s", r.err);
	cr_expect(same_bytes(GOOD_DIR "/if_outer.onnx", model));
	struct stat st;
	cr_assert_eq(stat(alias, &st), 0);
	cr_expect_eq(st.st_ino, before.st_ino, "the link was replaced");
	cr_expect_eq(st.st_nlink, 2);
	expect_listing(dir, "alias.onnx model.onnx", "hard link");
	cli_result_free(&r);
	unlink(alias);
	free(alias);

	/* The same path through a different spelling. */
	char *dotted = path_in(dir, "./model.onnx");
	r = run("rewrite", model, "-o", dotted, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "--in-place"), "%s", r.err);
	cli_result_free(&r);
	free(dotted);

	/* infer shares the rule. */
	r = run("infer", model, "-o", model, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "--in-place"), "%s", r.err);
	cli_result_free(&r);

	cr_assert_eq(stat(model, &st), 0);
	cr_expect_eq(st.st_ino, before.st_ino, "the input was replaced");
	free(model);
	remove_dir(dir);
}

Test(cli, rewrite_in_place)
{
	char *dir;
	char *model = scratch_model(&dir);
	cr_assert_eq(chmod(model, 0640), 0);
	result r = run("rewrite", "--in-place", model, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	cr_expect(same_bytes(GOOD_DIR "/if_outer.onnx", model), "in-place rewrite changed the bytes");
	struct stat st;
	cr_assert_eq(stat(model, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
	expect_listing(dir, "model.onnx", "in place");
	cli_result_free(&r);

	/* -o naming the input plus --in-place is the same request. */
	r = run("rewrite", "--repack", "--in-place", model, "-o", model, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(same_bytes(GOOD_DIR "/if_outer.onnx", model));
	expect_listing(dir, "model.onnx", "in place, repacked");
	cli_result_free(&r);
	free(model);
	remove_dir(dir);
}

/* infer's --input-shape and --assume: what they set is written, and a value that is
 * not a size (or overflows one) is a usage error that writes nothing. */
Test(cli, infer_input_shape_and_assume)
{
	char *dir = make_tmpdir_for("cli");
	char *out = path_in(dir, "out.onnx");
	const char *model = OSH_MODELS_DIR "/lint/dynamic_shape.onnx";
	/* x is (N, 3): given 4 rows, or with N bound, y is (4, 3). */
	const char *given[][2] = {{"--input-shape", "x:4,3"}, {"--assume", "N=4"}};
	for (size_t i = 0; i < 2; i++) {
		result r = run("infer", given[i][0], given[i][1], model, "-o", out, NULL);
		cr_expect_eq(r.status, 0, "%s %s: %s", given[i][0], given[i][1], r.err);
		cli_result_free(&r);
		r = run("print", out, NULL);
		cr_expect(strstr(r.out, "y                        FLOAT (4, 3)"), "%s %s:\n%s", given[i][0], given[i][1],
			  r.out);
		cli_result_free(&r);
		remove(out);
	}
	static const char *const refused[][2] = {
		{"--input-shape", "x:99999999999999999999,3"}, {"--input-shape", "x:-1,3"}, {"--input-shape", "x"},
		{"--input-shape", "x:4,,3"}, {"--assume", "N=99999999999999999999"}, {"--assume", "N=-4"},
		{"--assume", "N"},
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		result r = run("infer", refused[i][0], refused[i][1], model, "-o", out, NULL);
		cr_expect_eq(r.status, 2, "%s %s: exit %d", refused[i][0], refused[i][1], r.status);
		cr_expect(strstr(r.err, "bad "), "%s %s: %s", refused[i][0], refused[i][1], r.err);
		cli_result_free(&r);
	}
	expect_listing(dir, "", "nothing written by a usage error");
	free(out);
	remove_dir(dir);
}

/* --fsync changes when the bytes reach the disk, not what they are. */
Test(cli, fsync_writes_the_same_bytes)
{
	char *dir;
	char *model = scratch_model(&dir);
	char *plain = path_in(dir, "plain.onnx"), *synced = path_in(dir, "synced.onnx");
	result r = run("infer", model, "-o", plain, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cli_result_free(&r);
	r = run("infer", "--fsync", model, "-o", synced, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	cli_result_free(&r);
	cr_expect(same_bytes(plain, synced), "--fsync wrote other bytes");
	r = run("rewrite", "--fsync", "--in-place", model, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(same_bytes(GOOD_DIR "/if_outer.onnx", model));
	cli_result_free(&r);
	expect_listing(dir, "model.onnx plain.onnx synced.onnx", "fsync");
	free(plain), free(synced), free(model);
	remove_dir(dir);
}

Test(cli, rewrite_needs_an_output)
{
	result r = run("rewrite", GOOD_DIR "/if_outer.onnx", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "say where to write: -o OUT, or --in-place"), "%s", r.err);
	cli_result_free(&r);

	r = run("rewrite", GOOD_DIR "/if_outer.onnx", GOOD_DIR "/local_function.onnx", "-o", "/nonexistent/x",
		NULL);
	cr_expect_eq(r.status, 2, "two models");
	cr_expect(contains(r.err, "expected exactly one MODEL"), "%s", r.err);
	cli_result_free(&r);
}

Test(cli, rewrite_into_missing_directory)
{
	char *dir = make_tmpdir_for("cli");
	char *out = path_in(dir, "missing/out.onnx");
	result r = run("rewrite", GOOD_DIR "/if_outer.onnx", "-o", out, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "cannot create a temporary file"), "%s", r.err);
	cr_expect(contains(r.err, strerror(ENOENT)), "%s", r.err);
	expect_listing(dir, "", "missing directory");
	cli_result_free(&r);
	free(out);

	/* An existing directory as the output is refused too. */
	r = run("rewrite", GOOD_DIR "/if_outer.onnx", "-o", dir, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "is a directory"), "%s", r.err);
	expect_listing(dir, "", "directory as output");
	cli_result_free(&r);
	remove_dir(dir);
}

Test(cli, rewrite_replaces_existing_output_keeping_its_mode)
{
	char *dir = make_tmpdir_for("cli");
	char *out = path_in(dir, "out.onnx");
	FILE *f = fopen(out, "w");
	cr_assert(f);
	fputs("old content", f);
	fclose(f);
	cr_assert_eq(chmod(out, 0600), 0);
	result r = run("rewrite", GOOD_DIR "/local_function.onnx", "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(same_bytes(GOOD_DIR "/local_function.onnx", out));
	struct stat st;
	cr_assert_eq(stat(out, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	expect_listing(dir, "out.onnx", "replace");
	cli_result_free(&r);
	free(out);
	remove_dir(dir);
}

/* A write that fails midway (the file size limit makes write() fail with EFBIG after
 * 4096 bytes): exit 2, the old output intact or still absent, no temporary file. */
Test(cli, rewrite_write_failure_leaves_nothing)
{
	const char *model = GOOD_DIR "/nested_32.onnx";
	struct stat st;
	cr_assert_eq(stat(model, &st), 0);
	cr_assert_gt(st.st_size, 4096, "the model must be larger than the limit");
	char *dir = make_tmpdir_for("cli");
	char *out = path_in(dir, "out.onnx");
	for (int exists = 0; exists < 2; exists++) {
		if (exists) {
			FILE *f = fopen(out, "w");
			cr_assert(f);
			fputs("old content", f);
			fclose(f);
		}
		result r = run_limited(4096, "rewrite", model, "-o", out, NULL);
		cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
		cr_expect(contains(r.err, "cannot write the output"), "%s", r.err);
		cr_expect(contains(r.err, strerror(EFBIG)), "%s", r.err);
		cr_expect(contains(r.err, "the destination is unchanged"), "%s", r.err);
		if (exists) {
			size_t n;
			uint8_t *data = slurp(out, &n);
			cr_expect(n == 11 && !memcmp(data, "old content", 11), "the old output was changed");
			free(data);
			expect_listing(dir, "out.onnx", "failed write over an old output");
		} else {
			expect_listing(dir, "", "failed write");
		}
		cli_result_free(&r);
	}
	/* Without the limit the same command works. */
	result r = run("rewrite", model, "-o", out, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(same_bytes(model, out));
	cli_result_free(&r);
	free(out);
	remove_dir(dir);
}

/* ---- print --------------------------------------------------------------------- */

Test(cli, print_shows_opsets_and_inputs)
{
	result r = run("print", GOOD_DIR "/if_outer.onnx", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(contains(r.out, "ir_version: 8"), "%s", r.out);
	cr_expect(contains(r.out, "opsets:     ai.onnx 13\n"), "%s", r.out);
	cr_expect(contains(r.out, "inputs (2):\n"), "%s", r.out);
	cr_expect(contains(r.out, "  c                        BOOL ()\n"), "%s", r.out);
	cr_expect(contains(r.out, "  x                        FLOAT (2,)\n"), "%s", r.out);
	cr_expect(contains(r.out, "outputs (1):\n  y "), "%s", r.out);
	cr_expect(contains(r.out, "nodes: 1 (3 with 2 subgraphs and 0 functions)"), "%s", r.out);
	cli_result_free(&r);

	r = run("print", GOOD_DIR "/local_function.onnx", GOOD_DIR "/external_ok.onnx", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(contains(r.out, "opsets:     ai.onnx 13, local 1\n"), "%s", r.out);
	cr_expect(contains(r.out, "local::AddRelu"), "%s", r.out);
	cr_expect(contains(r.out, "1 external (24 B, not read)"), "%s", r.out);
	cli_result_free(&r);

	r = run("print", BAD_DIR "/cycle.onnx", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "the graph has a cycle"), "%s", r.err);
	cr_expect_str_eq(r.out, "", "no summary of a malformed model");
	cli_result_free(&r);
}

/* ---- --timings ----------------------------------------------------------------------- */

/* One "onnxshape: timings: PATH: STAGE X ms, ...; T ms in all[, N nodes, U us a node]"
 * line, parsed: the stages named in order, each a time, T their sum (to the printed
 * rounding), U = T / N. Returns the number of stages, or -1 when malformed. */
static int parse_timings(const char *line, const char *path, const char *const *want, size_t *nodes)
{
	char head[PATH_MAX + 32];
	snprintf(head, sizeof head, "onnxshape: timings: %s:", path);
	cr_assert(!strncmp(line, head, strlen(head)), "expected '%s' at the start of: %s", head, line);
	const char *p = line + strlen(head);
	double sum = 0, all = -1, per = -1;
	int n = 0;
	for (;; n++) {
		char stage[32];
		double ms;
		int used = 0;
		if (sscanf(p, " %31[a-z] %lf ms%n", stage, &ms, &used) != 2 || !used)
			return -1;
		cr_expect(want[n] && !strcmp(stage, want[n]), "stage %d is '%s', expected '%s': %s", n, stage,
			  want[n] ? want[n] : "(none)", line);
		cr_expect(ms >= 0, "%s", line);
		sum += ms;
		p += used;
		if (*p == ';')
			break;
		if (*p++ != ',')
			return -1;
	}
	cr_expect(!want[n + 1], "stages missing after '%s': %s", want[n], line);
	int used = 0;
	if (sscanf(p, "; %lf ms in all%n", &all, &used) != 1 || !used)
		return -1;
	p += used;
	/* Each figure is rounded to a microsecond: n + 1 stages and the whole. */
	cr_expect(all >= sum - 0.0005 * (n + 2) && all <= sum + 0.0005 * (n + 2), "%f ms in all, stages sum to %f: %s",
		  all, sum, line);
	*nodes = 0;
	if (*p == ',') {
		cr_assert_eq(sscanf(p, ", %zu nodes, %lf us a node", nodes, &per), 2, "%s", line);
		/* T is printed to the microsecond, U to the nanosecond. */
		double tol = *nodes ? 0.5 / (double)*nodes + 0.001 : 0;
		cr_expect(*nodes > 0 && per >= all * 1e3 / (double)*nodes - tol && per <= all * 1e3 / (double)*nodes + tol,
			  "%f us a node for %zu nodes in %f ms: %s", per, *nodes, all, line);
	}
	return n + 1;
}

/* The lines of s, split in place. */
static size_t split_lines(char *s, char **lines, size_t cap)
{
	size_t n = 0;
	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l && n < cap; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	return n;
}

/* check --timings: a line per file on stderr, in input order also with two jobs, with
 * the stages the file went through; stdout as without it. */
Test(cli, check_timings)
{
	const char *files[] = {GOOD_DIR "/if_outer.onnx", BAD_DIR "/empty.onnx", GOOD_DIR "/nested_32.onnx"};
	result plain = run("check", "-j", "2", files[0], files[1], files[2], NULL);
	result r = run("check", "--timings", "-j", "2", files[0], files[1], files[2], NULL);
	cr_expect_eq(r.status, plain.status);
	cr_expect_str_eq(r.out, plain.out);
	char *lines[8];
	size_t n = split_lines(r.err, lines, 8);
	cr_assert_eq(n, 3, "%zu lines on stderr", n);
	static const char *const checked[] = {"load", "infer", "lint", "report", "free", NULL};
	static const char *const unreadable[] = {"load", "report", NULL};
	size_t nodes[3];
	cr_expect_eq(parse_timings(lines[0], files[0], checked, &nodes[0]), 5, "%s", lines[0]);
	cr_expect_eq(parse_timings(lines[1], files[1], unreadable, &nodes[1]), 2, "%s", lines[1]);
	cr_expect_eq(parse_timings(lines[2], files[2], checked, &nodes[2]), 5, "%s", lines[2]);
	/* The summary counts the same nodes. */
	char total[64];
	snprintf(total, sizeof total, " in 3 files (%zu nodes)", nodes[0] + nodes[1] + nodes[2]);
	cr_expect(nodes[0] && !nodes[1] && nodes[2] && contains(r.out, total), "%s", r.out);
	cli_result_free(&plain);
	cli_result_free(&r);
}

/* infer and rewrite --timings: their stages, and the same output file as without. */
Test(cli, write_timings)
{
	char *dir = make_tmpdir_for("cli");
	char *a = path_in(dir, "a.onnx"), *b = path_in(dir, "b.onnx");
	const char *model = GOOD_DIR "/if_outer.onnx";
	static const char *const infer_stages[] = {"load", "infer", "annotate", "write", "free", NULL};
	static const char *const rewrite_stages[] = {"load", "infer", "rewrite", "write", "free", NULL};
	static const struct {
		const char *cmd;
		const char *const *stages;
	} cmds[] = {{"infer", infer_stages}, {"rewrite", rewrite_stages}};
	for (size_t k = 0; k < 2; k++) {
		unlink(a), unlink(b);
		result plain = run(cmds[k].cmd, model, "-o", a, NULL);
		result r = run(cmds[k].cmd, "--timings", model, "-o", b, NULL);
		cr_expect_eq(plain.status, 0, "%s", plain.err);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect(same_bytes(a, b), "%s --timings wrote other bytes", cmds[k].cmd);
		char *lines[4];
		cr_assert_eq(split_lines(r.err, lines, 4), 1, "%s: %s", cmds[k].cmd, r.err);
		size_t nodes;
		cr_expect_eq(parse_timings(lines[0], model, cmds[k].stages, &nodes), 5, "%s", lines[0]);
		cr_expect_gt(nodes, 0);
		cli_result_free(&plain);
		cli_result_free(&r);
	}
	/* A model that cannot be loaded: the one stage it reached. */
	result r = run("infer", "--timings", BAD_DIR "/empty.onnx", "-o", a, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.err, "onnxshape: timings: " BAD_DIR "/empty.onnx: load "), "%s", r.err);
	cr_expect(contains(r.err, " ms in all\n"), "%s", r.err);
	cli_result_free(&r);
	free(a), free(b);
	remove_dir(dir);
}

/* A file that cannot be mapped is read instead. A sysfs attribute refuses mmap and
 * says it has 4096 bytes, then reads as fewer: the read path's own check reports it. */
Test(cli, unmappable_file_is_read)
{
	const char *path = "/sys/kernel/mm/transparent_hugepage/enabled";
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 4096)
		cr_skip_test("no sysfs attribute to read here");
	result r = run("check", path, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(contains(r.out, "enabled: error: the input changed while it was read (it shrank)"), "%s", r.out);
	cli_result_free(&r);
}

/* --memory-budget on every command that loads: a budget too small is named, with how
 * to raise it, in the stage that ran into it; a bad size is a usage error. */
Test(cli, memory_budget_option)
{
	const char *model = GOOD_DIR "/if_outer.onnx";
	result r = run("check", "--memory-budget", "20K", model, NULL);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(contains(r.out, "the memory budget of 20480 bytes (raise it with --memory-budget)"), "%s", r.out);
	cr_expect(!contains(r.out, "out of memory"), "%s", r.out);
	cli_result_free(&r);
	r = run("check", "--memory-budget", "64M", model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cli_result_free(&r);
	r = run("print", "--memory-budget", "64MiB", model, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cli_result_free(&r);
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/budget_out.onnx", capture_dir);
	r = run("infer", "--memory-budget", "40K", model, "-o", out, NULL);
	cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
	cr_expect(contains(r.err, "the memory budget of 40960 bytes"), "%s", r.err);
	cr_expect(contains(r.err, "nothing written"), "%s", r.err);
	cr_expect(access(out, F_OK) != 0, "infer wrote under a budget too small");
	cli_result_free(&r);
	const char *sizes[] = {"0", "12Q", "-5", "", "1e9"};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		r = run("check", "--memory-budget", sizes[i], model, NULL);
		cr_expect_eq(r.status, 2, "'%s' accepted", sizes[i]);
		cli_result_free(&r);
	}
}
