/* test_external_hostile.c: external data and input values the file system makes
 * awkward.
 *
 *  - folders: a model and its weights in folders that can be searched but not
 *    listed load (only search permission is needed); the check runs as 'nobody' in a
 *    child process, since root bypasses permissions.
 *  - cache: a file named by thousands of tensors, under several spellings and
 *    interleaved with another file, is opened once per distinct file (the cache's
 *    walk counter), not once per tensor.
 *  - locations: a trailing slash is refused; a file used as a folder, a symbolic
 *    link, a name too long and a file that cannot be read each get their own
 *    message, errno's text after "': ".
 *  - descriptors: with no descriptor left to open the weights (ulimit -n 5), the
 *    4,096 tensors that name one file get no finding each: the load fails once,
 *    naming the file and errno's text, and the tool exits 2.
 *  - input values: --input-value and --input-data refuse what is not a regular file
 *    (a FIFO would wait for a writer, /dev/zero never ends) without reading it.
 *
 * Every file is written in a fresh mkdtemp folder.
 */
#define _GNU_SOURCE
#include "core/model.h"
#include "loader/external.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include "wbuf.h"
#include <grp.h>

#define NOBODY 65534
/* What the child of as_nobody exits with. */
enum { CHILD_OK = 0, CHILD_FINDING = 1, CHILD_FAILED = 2, CHILD_UNTESTABLE = 3 };

/* ---- helpers ------------------------------------------------------------------- */

static bool contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* Writes a model whose initializers w0, w1, ... are FLOAT [4] tensors stored at
 * locs[i], 16 bytes each, tensor i at offset 16 * i. */
static void write_model(const char *path, const char *const *locs, size_t n)
{
	wbuf b = {0}, op = {0}, g = {0};
	put_vfield(&b, 1, 8); /* ir_version */
	put_str(&op, 1, "");
	put_vfield(&op, 2, 13);
	put_msg(&b, 8, &op);
	put_str(&g, 2, "g");
	for (size_t i = 0; i < n; i++) {
		wbuf t = {0}, e = {0};
		char name[32], offset[32];
		snprintf(name, sizeof name, "w%zu", i);
		snprintf(offset, sizeof offset, "%zu", 16 * i);
		put_vfield(&t, 1, 4);  /* dims */
		put_vfield(&t, 2, 1);  /* FLOAT */
		put_str(&t, 8, name);
		const char *kv[][2] = {{"location", locs[i]}, {"offset", offset}, {"length", "16"}};
		for (size_t k = 0; k < 3; k++) {
			put_str(&e, 1, kv[k][0]);
			put_str(&e, 2, kv[k][1]);
			put_msg(&t, 13, &e);
		}
		put_vfield(&t, 14, 1); /* EXTERNAL */
		put_msg(&g, 5, &t);
	}
	/* An output, so that there is something to run: w0. */
	wbuf out = {0};
	put_str(&out, 1, "w0");
	put_msg(&g, 12, &out);
	put_msg(&b, 7, &g);
	spit(path, b.p, b.n);
	free(b.p);
}

/* A file of n zero bytes at path, readable by everyone. */
static void write_zeros(const char *path, size_t n)
{
	void *z = calloc(1, n ? n : 1);
	cr_assert(z);
	spit(path, z, n);
	free(z);
	cr_assert_eq(chmod(path, 0644), 0, "%s: %s", path, strerror(errno));
}

/* Loads path (which must load); *first gets the first diagnostic's message ("" for
 * none), in a static buffer. */
static osh_model *load(const char *path, const char **first)
{
	static char msg[4096];
	osh_model *m = NULL;
	osh_error err = {0};
	osh_status s = osh_model_load(&m, path, NULL, &err);
	cr_assert_eq(s, OSH_OK, "%s: %s", path, err.message);
	snprintf(msg, sizeof msg, "%s", osh_model_diag_count(m) ? osh_model_diag_at(m, 0)->message : "");
	*first = msg;
	return m;
}

/* The first diagnostic of loading the model at path with the one location loc. */
static const char *finding_for(const char *dir, const char *loc)
{
	char *model = path_in(dir, "m.onnx");
	write_model(model, &loc, 1);
	const char *first;
	osh_model *m = load(model, &first);
	osh_model_free(m);
	unlink(model);
	free(model);
	return first;
}

/* Loads `model` in a child process that drops root's privileges to 'nobody' (as
 * anyone else, permissions apply already), after checking that `unlistable` then
 * cannot be listed. Returns CHILD_OK (no finding), CHILD_FINDING (msg holds the
 * first), CHILD_FAILED (the load failed; msg says why) or CHILD_UNTESTABLE. */
static int as_nobody(const char *model, const char *unlistable, char *msg, size_t cap)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0))
			_exit(CHILD_UNTESTABLE);
		DIR *d = opendir(unlistable);
		if (d) /* some capability still bypasses the permission */
			_exit(CHILD_UNTESTABLE);
		osh_model *m = NULL;
		osh_error err = {0};
		if (osh_model_load(&m, model, NULL, &err) != OSH_OK) {
			dprintf(p[1], "%s", err.message);
			_exit(CHILD_FAILED);
		}
		if (osh_model_diag_count(m)) {
			dprintf(p[1], "%s", osh_model_diag_at(m, 0)->message);
			_exit(CHILD_FINDING);
		}
		_exit(CHILD_OK);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < cap && (r = read(p[0], msg + n, cap - 1 - n)) > 0)
		n += (size_t)r;
	msg[n] = '\0';
	close(p[0]);
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	cr_assert(WIFEXITED(ws), "the child died of signal %d", WTERMSIG(ws));
	return WEXITSTATUS(ws);
}

/* Removes the tree under dir (files and folders, whatever their modes) and frees
 * dir. */
static void remove_tree(char *dir)
{
	char *cmd = NULL;
	cr_assert(asprintf(&cmd, "chmod -R u+rwx '%s' && rm -rf '%s'", dir, dir) > 0);
	cr_expect_eq(system(cmd), 0, "%s", cmd);
	free(cmd);
	free(dir);
}

/* ---- folders ------------------------------------------------------------------- */

/* top (0711) / m (0311: search, no listing) / m.onnx and x (0311) / w.bin: the
 * model's folder and the weights' folder can be searched, not listed, and that is
 * all the check needs. */
Test(external_hostile, unlistable_folders_are_enough)
{
	char *top = make_tmpdir_for("ext");
	char *mdir = path_in(top, "m");
	cr_assert_eq(mkdir(mdir, 0700), 0);
	char *xdir = path_in(mdir, "x"), *model = path_in(mdir, "m.onnx"), *bin = path_in(xdir, "w.bin");
	cr_assert_eq(mkdir(xdir, 0700), 0);
	const char *loc = "x/w.bin";
	write_model(model, &loc, 1);
	cr_assert_eq(chmod(model, 0644), 0);
	write_zeros(bin, 16);
	cr_assert_eq(chmod(xdir, 0311), 0);
	cr_assert_eq(chmod(mdir, 0311), 0);
	cr_assert_eq(chmod(top, 0711), 0);

	char msg[4096];
	int st = as_nobody(model, xdir, msg, sizeof msg);
	if (st == CHILD_UNTESTABLE) {
		remove_tree(top);
		cr_skip_test("cannot take away the permission to list a folder here (not root, and the "
			     "permission bits do not bind this user)");
	}
	cr_expect_eq(st, CHILD_OK, "a searchable, unlistable folder: %s", msg);
	free(xdir), free(model), free(bin), free(mdir);
	remove_tree(top);
}

/* A weights file its reader may not read: errno's text, after "': ". */
Test(external_hostile, unreadable_file_message)
{
	char *top = make_tmpdir_for("ext");
	char *model = path_in(top, "m.onnx"), *xdir = path_in(top, "x"), *bin = path_in(xdir, "w.bin");
	cr_assert_eq(mkdir(xdir, 0711), 0);
	const char *loc = "x/w.bin";
	write_model(model, &loc, 1);
	cr_assert_eq(chmod(model, 0644), 0);
	write_zeros(bin, 16);
	cr_assert_eq(chmod(bin, 0), 0);
	cr_assert_eq(chmod(top, 0711), 0);
	/* The top folder stays listable for the owner: make the probe a folder that no
	 * one but root can list. */
	char *probe = path_in(top, "probe");
	cr_assert_eq(mkdir(probe, 0), 0);

	char msg[4096];
	int st = as_nobody(model, probe, msg, sizeof msg);
	if (st == CHILD_UNTESTABLE) {
		remove_tree(top);
		cr_skip_test("cannot take away the permission to read a file here");
	}
	cr_expect_eq(st, CHILD_FINDING, "%s", msg);
	cr_expect(contains(msg, "external data file 'x/w.bin': Permission denied"), "%s", msg);
	free(model), free(xdir), free(bin), free(probe);
	remove_tree(top);
}

/* ---- cache --------------------------------------------------------------------- */

#define MANY 5000

/* All tensors at one location, then one file under three spellings interleaved with
 * another file: each distinct file is opened once. */
Test(external_hostile, walks_once_per_distinct_file, .timeout = 60)
{
	char *dir = make_tmpdir_for("ext");
	char *xdir = path_in(dir, "x"), *model = path_in(dir, "m.onnx");
	char *w = path_in(xdir, "w.bin"), *v = path_in(xdir, "v.bin");
	cr_assert_eq(mkdir(xdir, 0700), 0);
	write_zeros(w, 16 * MANY);
	write_zeros(v, 16 * MANY);
	static const char *locs[MANY];

	for (size_t i = 0; i < MANY; i++)
		locs[i] = "./././x/w.bin";
	write_model(model, locs, MANY);
	const char *first;
	osh_model *m = load(model, &first);
	cr_expect_eq(osh_model_diag_count(m), 0, "%s", first);
	cr_assert(m->src.ext_files, "no external-file cache");
	cr_expect_eq(m->src.ext_files->walks, 1, "one location: %u walks", m->src.ext_files->walks);
	osh_model_free(m);

	static const char *const spelled[] = {"./././x/w.bin", "x/v.bin", "x//w.bin", "./x/./v.bin", "x/./w.bin"};
	for (size_t i = 0; i < MANY; i++)
		locs[i] = spelled[i % 5];
	write_model(model, locs, MANY);
	m = load(model, &first);
	cr_expect_eq(osh_model_diag_count(m), 0, "%s", first);
	cr_assert(m->src.ext_files, "no external-file cache");
	cr_expect_eq(m->src.ext_files->walks, 2, "two files, five spellings, interleaved: %u walks",
		     m->src.ext_files->walks);
	osh_model_free(m);

	free(xdir), free(model), free(w), free(v);
	remove_tree(dir);
}

/* ---- locations ----------------------------------------------------------------- */

/* 'w.bin/' names a folder: refused, though w.bin is a file. */
Test(external_hostile, trailing_slash_refused)
{
	char *dir = make_tmpdir_for("ext");
	char *bin = path_in(dir, "w.bin");
	write_zeros(bin, 16);
	const char *first = finding_for(dir, "w.bin/");
	cr_expect(contains(first, "external data location 'w.bin/' ends with '/'"), "%s", first);
	first = finding_for(dir, "./w.bin/.");
	cr_expect(contains(first, "external data location './w.bin/.' ends with a '.' component"), "%s", first);
	free(bin);
	remove_tree(dir);
}

/* A regular file used as a folder is not a symbolic link; a symbolic link used as a
 * folder still is one. */
Test(external_hostile, file_used_as_folder)
{
	char *dir = make_tmpdir_for("ext");
	char *bin = path_in(dir, "w.bin"), *sub = path_in(dir, "x"), *inner = path_in(sub, "w.bin");
	char *ln = path_in(dir, "ln");
	write_zeros(bin, 16);
	cr_assert_eq(mkdir(sub, 0700), 0);
	write_zeros(inner, 16);
	cr_assert_eq(symlink("x", ln), 0);

	const char *first = finding_for(dir, "w.bin/x");
	cr_expect(contains(first, "external data file 'w.bin/x': 'w.bin' is not a directory"), "%s", first);
	first = finding_for(dir, "./x/w.bin/y/z");
	cr_expect(contains(first, "external data file './x/w.bin/y/z': 'x/w.bin' is not a directory"), "%s", first);
	first = finding_for(dir, "ln/w.bin");
	cr_expect(contains(first, "external data file 'ln/w.bin' is or passes through a symbolic link"), "%s", first);
	free(bin), free(sub), free(inner), free(ln);
	remove_tree(dir);
}

/* errno's text follows "': ", as every other message has it. */
Test(external_hostile, name_too_long_message)
{
	char *dir = make_tmpdir_for("ext");
	char loc[400];
	memset(loc, 'a', 300);
	strcpy(loc + 300, "/w.bin");
	const char *first = finding_for(dir, loc);
	char want[480];
	snprintf(want, sizeof want, "external data file '%s': File name too long", loc);
	cr_expect(contains(first, want), "%s", first);
	remove_tree(dir);
}

/* ---- descriptors --------------------------------------------------------------- */

#define TENSORS 4096

/* How often needle occurs in hay. */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* `onnxshape check model` with at most `fds` descriptors (RLIMIT_NOFILE; every
 * descriptor but 0, 1 and 2 closed first, so the tool has the rest); what it printed,
 * stdout and stderr together, in out. Returns its exit status. */
static int check_with_fds(const char *model, int fds, char *out, size_t cap)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(126);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		struct rlimit rl = {(rlim_t)fds, (rlim_t)fds};
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(126);
		execl(OSH_CLI, "onnxshape", "check", model, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* Read to the end, what does not fit dropped: a child left blocked on a full
	 * pipe would never be reaped. */
	size_t n = 0;
	ssize_t r;
	char drop[4096];
	while ((r = n + 1 < cap ? read(p[0], out + n, cap - 1 - n) : read(p[0], drop, sizeof drop)) > 0)
		n += n + 1 < cap ? (size_t)r : 0;
	out[n] = '\0';
	close(p[0]);
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	cr_assert(WIFEXITED(ws), "the tool died of signal %d", WTERMSIG(ws));
	cr_assert_neq(WEXITSTATUS(ws), 126, "could not set up the child");
	return WEXITSTATUS(ws);
}

Test(external_hostile, no_descriptor_left_is_one_error, .timeout = 60)
{
	char *dir = make_tmpdir_for("ext");
	char *model = path_in(dir, "m.onnx"), *bin = path_in(dir, "w.bin");
	static const char *locs[TENSORS];
	for (size_t i = 0; i < TENSORS; i++)
		locs[i] = "w.bin";
	write_model(model, locs, TENSORS);
	write_zeros(bin, 16 * TENSORS);
	static char out[1 << 20];

	/* Descriptors enough: the weights are fine. */
	cr_expect_eq(check_with_fds(model, 64, out, sizeof out), 0, "%s", out);
	/* 0, 1, 2, the model, and no more: the weights' folder or file cannot be opened. */
	int st = check_with_fds(model, 5, out, sizeof out);
	cr_expect_eq(st, 2, "exit %d:\n%.2000s", st, out);
	cr_expect_eq(count_of(out, "external data file"), 1, "%.2000s", out);
	cr_expect(contains(out, "cannot check external data file 'w.bin': Too many open files"), "%.2000s", out);
	cr_expect_not(contains(out, "[malformed-model]"), "%.2000s", out);
	cr_expect(contains(out, "1 error,"), "%.2000s", out);

	/* The library: the load fails, OSH_ERR_IO, with nothing to free. */
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		int lowest = dup(0);
		if (lowest < 0)
			_exit(10);
		close(lowest);
		/* The model's own file is opened and read before the weights. */
		struct rlimit rl = {(rlim_t)lowest + 1, (rlim_t)lowest + 1};
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(10);
		osh_model *m = (osh_model *)&rl;
		osh_error err = {0};
		osh_status s = osh_model_load(&m, model, NULL, &err);
		_exit(s == OSH_ERR_IO && !m && strstr(err.message, "external data file 'w.bin': Too many open files") ? 0
		      : s == OSH_OK ? 1 : 2);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "osh_model_load: child status %d", ws);
	free(model), free(bin);
	remove_tree(dir);
}

/* ---- input values --------------------------------------------------------------- */

#define MODEL OSH_MODELS_DIR "/lint/dynamic_shape.onnx"

/* check with one input value from `file`: refused as not a regular file, at once. */
static void expect_refused(const char *dir, const char *opt, const char *arg)
{
	const char *argv[] = {"onnxshape", "check", opt, arg, MODEL, NULL};
	cli_result r = cli_run(dir, 0, argv);
	cr_expect_eq(r.status, 2, "%s %s: exit %d\n%s%s", opt, arg, r.status, r.out, r.err);
	cr_expect(contains(r.err, "not a regular file"), "%s %s:\n%s%s", opt, arg, r.out, r.err);
	cli_result_free(&r);
}

Test(external_hostile, input_value_fifo_refused, .timeout = 10)
{
	char *dir = make_tmpdir_for("ext");
	char *fifo = path_in(dir, "x.pb"), *arg = NULL;
	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
	cr_assert(asprintf(&arg, "x=%s", fifo) > 0);
	expect_refused(dir, "--input-value", arg);
	free(arg), free(fifo);
	remove_tree(dir);
}

Test(external_hostile, input_value_dev_zero_refused, .timeout = 30)
{
	char *dir = make_tmpdir_for("ext");
	expect_refused(dir, "--input-value", "x=/dev/zero");
	remove_tree(dir);
}

Test(external_hostile, input_data_fifo_refused, .timeout = 10)
{
	char *dir = make_tmpdir_for("ext");
	char *data = path_in(dir, "data"), *fifo = path_in(data, "input_0.pb");
	cr_assert_eq(mkdir(data, 0700), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
	expect_refused(dir, "--input-data", data);
	free(data), free(fifo);
	remove_tree(dir);
}
