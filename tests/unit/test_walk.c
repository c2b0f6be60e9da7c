/* test_walk.c: `onnxshape check DIR` meeting a subdirectory it may not read: the
 * walk reports that subdirectory by its own path, with the reason, and goes
 * on, so the files after it are still checked and their findings reported.
 *
 * Root reads every directory, so when the test runs as root the tool runs as nobody
 * (uid and gid 65534), to whom a root-owned folder of mode 0700 is closed; run as
 * anyone else, the folder is closed to its owner (mode 0). The tree is made readable
 * to everyone but that folder, which is checked from the tool's side before it runs.
 */
#define _GNU_SOURCE
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <grp.h>

#define NOBODY 65534
#define SKIP_STATUS 125 /* the child found the folder readable after all */

static void copy_readable(const char *from, const char *to)
{
	size_t n;
	uint8_t *data = slurp(from, &n);
	spit(to, data, n);
	free(data);
	cr_assert_eq(chmod(to, 0644), 0, "chmod %s: %s", to, strerror(errno));
}

/* Runs OSH_CLI with argv as nobody when root, stdout and stderr into files of dir.
 * The tool runs from a copy in dir (readable to all), as the build tree may not be
 * (a checkout in a private folder). Skips the test when `closed` can be read after
 * all (a process with CAP_DAC_READ_SEARCH but not root, say). */
static cli_result run_unprivileged(const char *dir, const char *closed, const char *const *argv)
{
	char *out = path_in(dir, "stdout"), *err = path_in(dir, "stderr"), *tool = path_in(dir, "onnxshape");
	copy_readable(OSH_CLI, tool);
	cr_assert_eq(chmod(tool, 0755), 0, "chmod %s: %s", tool, strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		/* The group first: without root, setgid would no longer be allowed. */
		if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0))
			_exit(126);
		DIR *d = opendir(closed);
		if (d) {
			closedir(d);
			_exit(SKIP_STATUS);
		}
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	cli_result r = {WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), take_output(out), take_output(err)};
	cr_assert_neq(r.status, 126, "could not set up the child (drop to uid %d)", NOBODY);
	cr_assert_neq(r.status, 127, "cannot run %s as uid %d", tool, NOBODY);
	free(out), free(err), free(tool);
	if (r.status == SKIP_STATUS)
		cr_skip_test("%s is readable to the tool: nothing to test", closed);
	return r;
}

/* The tree of the issue, in a fresh directory readable to all:
 *   walk/a.onnx     a clean model
 *   walk/b_sub/     closed to the tool
 *   walk/c.onnx     a model with a broadcast-mismatch error (exit 1 on its own) */
typedef struct tree {
	char *top, *walk, *a, *sub, *c;
} tree;

static tree make_tree(void)
{
	tree t = {.top = make_tmpdir_for("walk")};
	cr_assert_eq(chmod(t.top, 0755), 0, "chmod %s: %s", t.top, strerror(errno));
	t.walk = path_in(t.top, "walk");
	t.a = path_in(t.walk, "a.onnx");
	t.sub = path_in(t.walk, "b_sub");
	t.c = path_in(t.walk, "c.onnx");
	cr_assert_eq(mkdir(t.walk, 0755), 0, "mkdir %s: %s", t.walk, strerror(errno));
	cr_assert_eq(chmod(t.walk, 0755), 0); /* whatever the umask */
	copy_readable(OSH_MODELS_DIR "/lint/clean.onnx", t.a);
	copy_readable(OSH_MODELS_DIR "/lint/broadcast_mismatch.onnx", t.c);
	cr_assert_eq(mkdir(t.sub, 0700), 0, "mkdir %s: %s", t.sub, strerror(errno));
	cr_assert_eq(chmod(t.sub, geteuid() == 0 ? 0700 : 0), 0);
	return t;
}

static void remove_tree(tree *t)
{
	rmdir(t->sub);
	unlink(t->a), unlink(t->c);
	rmdir(t->walk);
	free(t->walk), free(t->a), free(t->sub), free(t->c);
	remove_dir(t->top);
}

static bool contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/* The run: the closed folder is named (not its parent), with the errno text,
 * in its place between a.onnx and c.onnx, and c.onnx is still checked. */
Test(walk, unreadable_subdirectory_is_reported_and_skipped)
{
	tree t = make_tree();
	const char *argv[] = {OSH_CLI, "check", "-j", "1", t.walk, NULL};
	cli_result r = run_unprivileged(t.top, t.sub, argv);

	char *sub_line = NULL, *parent_line = NULL, *c_line = NULL;
	cr_assert(asprintf(&sub_line, "%s: error: cannot read the directory: %s\n", t.sub, strerror(EACCES)) > 0);
	cr_assert(asprintf(&parent_line, "%s: error:", t.walk) > 0);
	cr_assert(asprintf(&c_line, "%s: node 3 'mul' (Mul): error: ", t.c) > 0);
	cr_expect_eq(r.status, 2, "exit %d, want 2 (a folder could not be read)\n%s%s", r.status, r.out, r.err);
	const char *at_sub = strstr(r.out, sub_line), *at_c = strstr(r.out, c_line);
	cr_expect(at_sub, "no line naming the folder itself:\n%s", r.out);
	cr_expect(!contains(r.out, parent_line), "the parent folder is blamed:\n%s", r.out);
	cr_expect(at_c, "c.onnx, after the folder, was not checked:\n%s", r.out);
	cr_expect(!at_sub || !at_c || at_sub < at_c, "the folder is not reported in its place:\n%s", r.out);
	cr_expect(contains(r.out, "[broadcast-mismatch]"), "%s", r.out);
	/* a.onnx, the folder and c.onnx; the folder and c.onnx's finding are the errors. */
	cr_expect(contains(r.out, "\n2 errors, 0 warnings, 0 notes in 3 files "), "%s", r.out);
	free(sub_line), free(parent_line), free(c_line);
	cli_result_free(&r);
	remove_tree(&t);
}

/* The same with worker threads and as JSON: the folder is a file entry of its own. */
Test(walk, unreadable_subdirectory_in_json_with_jobs)
{
	tree t = make_tree();
	const char *argv[] = {OSH_CLI, "check", "-j", "4", "--format", "json", t.walk, NULL};
	cli_result r = run_unprivileged(t.top, t.sub, argv);
	cr_expect_eq(r.status, 2, "exit %d\n%s%s", r.status, r.out, r.err);
	char *sub_path = NULL, *c_path = NULL;
	cr_assert(asprintf(&sub_path, "\"%s\"", t.sub) > 0);
	cr_assert(asprintf(&c_path, "\"%s\"", t.c) > 0);
	cr_expect(contains(r.out, sub_path), "the folder has no entry:\n%s", r.out);
	cr_expect(contains(r.out, c_path), "c.onnx has no entry:\n%s", r.out);
	cr_expect(contains(r.out, "broadcast-mismatch"), "%s", r.out);
	free(sub_path), free(c_path);
	cli_result_free(&r);
	remove_tree(&t);
}

/* The closed folder given by name: reported as before, by its own path. */
Test(walk, unreadable_directory_given_by_name)
{
	tree t = make_tree();
	const char *argv[] = {OSH_CLI, "check", t.sub, NULL};
	cli_result r = run_unprivileged(t.top, t.sub, argv);
	char *line = NULL;
	cr_assert(asprintf(&line, "%s: error: cannot read the directory: %s\n", t.sub, strerror(EACCES)) > 0);
	cr_expect_eq(r.status, 2, "exit %d\n%s%s", r.status, r.out, r.err);
	cr_expect(contains(r.out, line), "%s", r.out);
	cr_expect(contains(r.out, " in 1 file "), "%s", r.out);
	free(line);
	cli_result_free(&r);
	remove_tree(&t);
}
