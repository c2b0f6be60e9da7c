/* test_write_hostile.c: destinations that would make a write go wrong,
 * each in a directory of its own from mkdtemp.
 *
 *  - ext_dir: the rule that a model with external data is written only beside its
 *    data files is decided on the directory the file really lands in: a `-o` that
 *    is a symbolic link (a chain of them) into another directory is refused, exit 2,
 *    nothing written; one from elsewhere into the model's directory is allowed.
 *  - special: a FIFO, a socket or a device node as the destination (directly or
 *    through a symbolic link) is refused, exit 2, and stays what it was; the file
 *    replaced keeps its owner and group (as root) and its mode.
 *  - stale: the temporary file of a writer killed by SIGKILL (no handler runs) is
 *    removed by the next write into its directory; one a live writer holds is not;
 *    names that are not ours, and files of our pattern that are not regular files,
 *    are never touched; writers in one directory at once do not remove each
 *    other's temporary files.
 */
#define _GNU_SOURCE
#include "io/atomic_file.h"
#include "onnxshape.h"

#include <criterion/criterion.h>
#include "test_files.h"
#include <ftw.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#define GOOD_DIR OSH_MODELS_DIR "/good"

/* ---- helpers ------------------------------------------------------------------- */

static bool contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

static bool file_is(const char *path, const char *text)
{
	size_t n;
	uint8_t *got = slurp(path, &n);
	bool same = n == strlen(text) && !memcmp(got, text, n);
	free(got);
	return same;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

/* Removes dir with everything under it (links not followed) and frees it. */
static void remove_tree(char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/* "dir/name" made a directory (malloc'd). */
static char *subdir(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	cr_assert_eq(mkdir(p, 0755), 0, "%s: %s", p, strerror(errno));
	return p;
}

static void symlink_at(const char *target, const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	cr_assert_eq(symlink(target, p), 0, "%s: %s", p, strerror(errno));
	free(p);
}

static cli_result run_cli(const char *dir, const char *cmd, const char *in, const char *out)
{
	const char *argv[] = {OSH_CLI, cmd, in, "-o", out, NULL};
	return cli_run(dir, 0, argv);
}

static bool is_kind(const char *path, mode_t kind)
{
	struct stat st;
	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

/* ---- the external-data rule on the resolved destination ------------------------ */

/* root/extm holds the model and its data file external_ok.bin; root/other a file
 * t.onnx. Returns the model's path. */
static char *external_model(const char *root, char **extm, char **other)
{
	*extm = subdir(root, "extm");
	*other = subdir(root, "other");
	char *model = path_in(*extm, "model.onnx"), *bin = path_in(*extm, "external_ok.bin");
	char *t = path_in(*other, "t.onnx");
	copy_file(GOOD_DIR "/external_ok.onnx", model);
	copy_file(GOOD_DIR "/external_ok.bin", bin);
	spit(t, "old\n", 4);
	free(bin), free(t);
	return model;
}

/* extm/link.onnx -> hop.onnx -> ../other/t.onnx: the first link stays in the model's
 * directory, the file it leads to does not. */
Test(write_hostile, ext_dir_rule_follows_a_symlinked_output)
{
	char *root = make_tmpdir_for("write_hostile"), *extm, *other;
	char *model = external_model(root, &extm, &other);
	symlink_at("hop.onnx", extm, "link.onnx");
	symlink_at("../other/t.onnx", extm, "hop.onnx");
	char *link = path_in(extm, "link.onnx"), *t = path_in(other, "t.onnx");
	static const char *const cmds[] = {"infer", "rewrite"};
	for (size_t i = 0; i < 2; i++) {
		cli_result r = run_cli(root, cmds[i], model, link);
		cr_expect_eq(r.status, 2, "%s: exit %d: %s", cmds[i], r.status, r.err);
		cr_expect(contains(r.err, "external data"), "%s: %s", cmds[i], r.err);
		cr_expect(file_is(t, "old\n"), "%s: other/t.onnx was written", cmds[i]);
		expect_listing(other, "t.onnx", cmds[i]);
		expect_listing(extm, "external_ok.bin hop.onnx link.onnx model.onnx", cmds[i]);
		cr_expect(is_kind(link, S_IFLNK), "%s: the link was replaced", cmds[i]);
		cli_result_free(&r);
	}
	/* The library says the same. */
	osh_model *m = NULL;
	osh_error err = {0};
	cr_assert_eq(osh_model_load(&m, model, NULL, &err), OSH_OK, "%s", err.message);
	cr_expect_neq(osh_model_write(m, link, NULL, &err), OSH_OK, "written through the link");
	cr_expect(contains(err.message, "external data"), "%s", err.message);
	cr_expect(file_is(t, "old\n"));
	osh_model_free(m);
	free(model), free(link), free(t), free(extm), free(other);
	remove_tree(root);
}

/* other/in.onnx -> ../extm/t.onnx: given in another directory, the file lands beside
 * its data files, where its locations hold. */
Test(write_hostile, ext_dir_rule_allows_a_link_into_the_model_directory)
{
	char *root = make_tmpdir_for("write_hostile"), *extm, *other;
	char *model = external_model(root, &extm, &other);
	char *t = path_in(extm, "t.onnx"), *in = path_in(other, "in.onnx");
	spit(t, "old\n", 4);
	symlink_at("../extm/t.onnx", other, "in.onnx");
	cli_result r = run_cli(root, "rewrite", model, in);
	cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	size_t a, b;
	uint8_t *want = slurp(model, &a), *got = slurp(t, &b);
	cr_expect(a == b && !memcmp(want, got, a), "extm/t.onnx is not the model");
	cr_expect(is_kind(in, S_IFLNK), "the link was replaced");
	expect_listing(other, "in.onnx t.onnx", "other");
	expect_listing(extm, "external_ok.bin model.onnx t.onnx", "extm");
	cli_result_free(&r);
	free(want), free(got);
	free(model), free(t), free(in), free(extm), free(other);
	remove_tree(root);
}

/* ---- special files ------------------------------------------------------------- */

/* A socket bound at path (the descriptor; the file stays after it is closed). */
static void make_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	cr_assert(strlen(path) < sizeof sa.sun_path, "%s: too long for a socket", path);
	strcpy(sa.sun_path, path);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert(s >= 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof sa), 0, "%s: %s", path, strerror(errno));
	close(s);
}

/* `infer model -o dest` is refused, exit 2, naming the kind of file; dest (and what
 * a link leads to) stays of `kind`; dir holds `listed` before and after. */
static void refused(const char *dir, const char *model, const char *dest, const char *real, mode_t kind,
		    const char *what, const char *listed)
{
	cli_result r = run_cli(dir, "infer", model, dest);
	cr_expect_eq(r.status, 2, "%s: exit %d: %s", dest, r.status, r.err);
	cr_expect(contains(r.err, "is not a regular file"), "%s: %s", dest, r.err);
	cr_expect(contains(r.err, what), "%s: want '%s' in: %s", dest, what, r.err);
	cr_expect(is_kind(real, kind), "%s: no longer of its kind", real);
	expect_listing(dir, listed, dest);
	cli_result_free(&r);
}

Test(write_hostile, special_files_are_refused, .timeout = 30)
{
	char *dir = make_tmpdir_for("write_hostile");
	char *model = path_in(dir, "model.onnx"), *fifo = path_in(dir, "fifo.onnx"), *sock = path_in(dir, "sock.onnx");
	copy_file(GOOD_DIR "/if_outer.onnx", model);
	cr_assert_eq(mkfifo(fifo, 0644), 0, "%s", strerror(errno));
	make_socket(sock);
	symlink_at("fifo.onnx", dir, "to_fifo.onnx");
	char *to_fifo = path_in(dir, "to_fifo.onnx");
	const char *all = "fifo.onnx model.onnx sock.onnx to_fifo.onnx";
	refused(dir, model, fifo, fifo, S_IFIFO, "(a FIFO)", all);
	refused(dir, model, to_fifo, fifo, S_IFIFO, "(a FIFO)", all);
	refused(dir, model, sock, sock, S_IFSOCK, "(a socket)", all);

	/* The library: the same refusal, and nothing opened (a FIFO would block). */
	atomic_opts ao = {0};
	osh_error err = {0};
	atomic_file *f = NULL;
	cr_expect_eq(atomic_open(fifo, &ao, &f, &err), OSH_ERR_IO);
	cr_expect(contains(err.message, "fifo.onnx: is not a regular file (a FIFO)"), "%s", err.message);
	atomic_abort(f); /* NULL when refused */

	/* A device: as root, a copy of /dev/null made here, so that a failure cannot
	 * replace the system's (without the right to make one, none is tried);
	 * otherwise a link to /dev/null, which this user cannot replace anyway. Either
	 * way /dev/null stays a character device. */
	char *dev = path_in(dir, "null.onnx");
	bool root = geteuid() == 0;
	if (root && mknod(dev, S_IFCHR | 0666, makedev(1, 3)) != 0) {
		cr_log_warn("mknod: %s: the device case is not tried", strerror(errno));
	} else if (root) {
		symlink_at("null.onnx", dir, "to_null.onnx");
		char *to_null = path_in(dir, "to_null.onnx");
		const char *now = "fifo.onnx model.onnx null.onnx sock.onnx to_fifo.onnx to_null.onnx";
		refused(dir, model, dev, dev, S_IFCHR, "(a character device)", now);
		refused(dir, model, to_null, dev, S_IFCHR, "(a character device)", now);
		free(to_null);
	} else {
		symlink_at("/dev/null", dir, "null.onnx");
		const char *now = "fifo.onnx model.onnx null.onnx sock.onnx to_fifo.onnx";
		refused(dir, model, dev, "/dev/null", S_IFCHR, "(a character device)", now);
	}
	cr_expect(is_kind("/dev/null", S_IFCHR), "/dev/null is no longer a character device");
	free(model), free(fifo), free(sock), free(to_fifo), free(dev);
	remove_dir(dir);
}

static int produce_text(out_file *o, void *ctx)
{
	out_write(o, ctx, strlen(ctx));
	return o->err;
}

/* write_atomic of the text to dest. */
static osh_status write_text(const char *dest, const char *text, osh_error *err)
{
	atomic_opts ao = {0};
	return write_atomic(dest, &ao, produce_text, (void *)text, err);
}

/* The file replaced keeps its owner and group, which only root may give away. */
Test(write_hostile, owner_and_group_are_kept)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: only root may give a file to another user");
	char *dir = make_tmpdir_for("write_hostile");
	char *dest = path_in(dir, "model.onnx");
	spit(dest, "old\n", 4);
	cr_assert_eq(chown(dest, 12345, 12345), 0, "%s", strerror(errno));
	cr_assert_eq(chmod(dest, 0640), 0);
	osh_error err = {0};
	cr_assert_eq(write_text(dest, "new\n", &err), OSH_OK, "%s", err.message);
	struct stat st;
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect(file_is(dest, "new\n"));
	cr_expect_eq(st.st_uid, 12345, "owner %u", (unsigned)st.st_uid);
	cr_expect_eq(st.st_gid, 12345, "group %u", (unsigned)st.st_gid);
	cr_expect_eq(st.st_mode & 07777, 0640, "mode %o", st.st_mode & 07777);
	/* Through the tool, over a model. */
	char *model = path_in(dir, "in.onnx");
	copy_file(GOOD_DIR "/if_outer.onnx", model);
	cli_result r = run_cli(dir, "infer", model, dest);
	cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	cr_assert_eq(stat(dest, &st), 0);
	cr_expect(st.st_uid == 12345 && st.st_gid == 12345, "the tool's output is %u:%u", (unsigned)st.st_uid,
		  (unsigned)st.st_gid);
	cli_result_free(&r);
	expect_listing(dir, "in.onnx model.onnx", "owner kept");
	free(model), free(dest);
	remove_dir(dir);
}

/* ---- temporary files left by SIGKILL ------------------------------------------- */

/* The names in dir that begin with ".BASE." and end in ".tmp". */
static int temporaries(const char *dir, const char *base)
{
	char prefix[NAME_MAX + 2];
	snprintf(prefix, sizeof prefix, ".%s.", base);
	DIR *d = opendir(dir);
	cr_assert(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		n += !strncmp(e->d_name, prefix, strlen(prefix)) && len > 4 && !strcmp(e->d_name + len - 4, ".tmp");
	}
	closedir(d);
	return n;
}

/* A child holding an open write to dest until the parent closes `go`; then it
 * abandons it and exits 0. Returns its pid once the temporary file exists. */
static pid_t live_writer(const char *dest, int *go)
{
	int ready[2], wait_for[2];
	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(wait_for), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		close(ready[0]), close(wait_for[1]);
		atomic_opts ao = {0};
		osh_error err;
		atomic_file *f;
		if (atomic_open(dest, &ao, &f, &err) != OSH_OK || write(f->fd, "partial", 7) != 7 ||
		    write(ready[1], "r", 1) != 1)
			_exit(3);
		char c;
		while (read(wait_for[0], &c, 1) > 0) {
		}
		atomic_abort(f);
		_exit(0);
	}
	close(ready[1]), close(wait_for[0]);
	char c;
	cr_assert_eq(read(ready[0], &c, 1), 1, "the writer did not start");
	close(ready[0]);
	*go = wait_for[1];
	return pid;
}

/* The live writer killed by SIGKILL: no handler runs, nothing is cleaned up. */
static void kill_writer(pid_t pid, int go)
{
	cr_assert_eq(kill(pid, SIGKILL), 0);
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "the writer did not die of SIGKILL (status %x)", ws);
	close(go);
}

Test(write_hostile, stale_temporaries_are_removed_by_the_next_write)
{
	char *dir = make_tmpdir_for("write_hostile");
	char *dest = path_in(dir, "model.onnx"), *other = path_in(dir, "other.onnx");
	spit(dest, "old\n", 4);
	/* Alive together, so that none of them sweeps up the others'. */
	pid_t pids[4];
	int go[4];
	for (int i = 0; i < 4; i++)
		pids[i] = live_writer(i < 3 ? dest : other, &go[i]);
	for (int i = 0; i < 4; i++)
		kill_writer(pids[i], go[i]);
	cr_assert_eq(temporaries(dir, "model.onnx"), 3, "the killed writers left no temporary file");
	cr_assert_eq(temporaries(dir, "other.onnx"), 1);
	cr_expect(file_is(dest, "old\n"));
	/* Any write into the directory removes them, whatever its destination. */
	char *third = path_in(dir, "third.onnx");
	osh_error err = {0};
	cr_assert_eq(write_text(third, "third\n", &err), OSH_OK, "%s", err.message);
	expect_listing(dir, "model.onnx third.onnx", "after a later write");
	cr_expect(file_is(dest, "old\n"));
	/* And the tool's. */
	pids[0] = live_writer(dest, &go[0]);
	kill_writer(pids[0], go[0]);
	cr_assert_eq(temporaries(dir, "model.onnx"), 1);
	char *model = path_in(dir, "in.onnx");
	copy_file(GOOD_DIR "/if_outer.onnx", model);
	cli_result r = run_cli(dir, "infer", model, dest);
	cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
	expect_listing(dir, "in.onnx model.onnx third.onnx", "after the tool's write");
	cli_result_free(&r);
	free(model), free(third), free(other), free(dest);
	remove_dir(dir);
}

Test(write_hostile, live_writers_temporary_is_kept)
{
	char *dir = make_tmpdir_for("write_hostile");
	char *dest = path_in(dir, "model.onnx"), *other = path_in(dir, "other.onnx");
	int go;
	pid_t pid = live_writer(dest, &go);
	cr_assert_eq(temporaries(dir, "model.onnx"), 1);
	osh_error err = {0};
	/* Another destination in the directory, and the same one. */
	cr_assert_eq(write_text(other, "other\n", &err), OSH_OK, "%s", err.message);
	cr_assert_eq(write_text(dest, "mine\n", &err), OSH_OK, "%s", err.message);
	cr_expect_eq(temporaries(dir, "model.onnx"), 1, "a live writer's temporary file was removed");
	close(go);
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the writer ended with status %x", ws);
	expect_listing(dir, "model.onnx other.onnx", "after the live writer gave up");
	cr_expect(file_is(dest, "mine\n"));
	free(other), free(dest);
	remove_dir(dir);
}

/* Names like ours but not ours, and files of our pattern that are not regular
 * files, stay; a FIFO is not opened (that would block). */
Test(write_hostile, only_our_stale_temporaries_are_touched, .timeout = 30)
{
	char *dir = make_tmpdir_for("write_hostile");
	char *outside = make_tmpdir_for("write_hostile");
	char *target = path_in(outside, "target");
	spit(target, "keep\n", 5);
	static const char *const files[] = {
		".model.onnx.0123456789ab.tmp", /* the 12-digit names before the lock */
		".model.onnx.osh-0123456z.tmp", /* not hexadecimal */
		".model.onnx.osh-0123456.tmp",  /* too short */
		"model.onnx.osh-01234567.tmp",  /* no leading dot */
		".osh-01234567.tmp",            /* no destination name */
		".model.onnx.osh-01234567.tmp~",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *p = path_in(dir, files[i]);
		spit(p, "x", 1);
		free(p);
	}
	char *fifo = path_in(dir, ".fifo.osh-01234567.tmp"), *sub = path_in(dir, ".dir.osh-01234567.tmp");
	cr_assert_eq(mkfifo(fifo, 0644), 0);
	cr_assert_eq(mkdir(sub, 0755), 0);
	symlink_at(target, dir, ".link.osh-01234567.tmp");
	char *before = listing(dir);
	char *dest = path_in(dir, "x.onnx"); /* listed last */
	osh_error err = {0};
	cr_assert_eq(write_text(dest, "new\n", &err), OSH_OK, "%s", err.message);
	char *want = NULL;
	cr_assert(asprintf(&want, "%s x.onnx", before) > 0);
	expect_listing(dir, want, "foreign names");
	cr_expect(file_is(target, "keep\n"), "the link's target changed");
	free(want), free(before), free(dest), free(fifo), free(target);
	rmdir(sub), free(sub);
	remove_dir(dir);
	remove_tree(outside);
}

/* Writers into one directory at once: each one's sweep must leave the others'
 * temporary files alone, from the moment they are created to their rename. */
Test(write_hostile, concurrent_writers_keep_their_temporaries, .timeout = 60)
{
	enum { WRITERS = 4, WRITES = 200 };
	char *dir = make_tmpdir_for("write_hostile");
	pid_t pids[WRITERS];
	fflush(NULL);
	for (int w = 0; w < WRITERS; w++) {
		pids[w] = fork();
		cr_assert(pids[w] >= 0);
		if (pids[w] == 0) {
			char name[32];
			snprintf(name, sizeof name, "w%d.onnx", w);
			char *dest = path_in(dir, name);
			osh_error err;
			for (int i = 0; i < WRITES; i++)
				if (write_text(dest, "content\n", &err) != OSH_OK) {
					fprintf(stderr, "%s\n", err.message);
					_exit(1);
				}
			_exit(0);
		}
	}
	for (int w = 0; w < WRITERS; w++) {
		int ws;
		cr_assert_eq(waitpid(pids[w], &ws, 0), pids[w]);
		cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "writer %d failed (status %x)", w, ws);
	}
	expect_listing(dir, "w0.onnx w1.onnx w2.onnx w3.onnx", "concurrent writers");
	remove_dir(dir);
}
