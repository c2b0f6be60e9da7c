/* test_files.h: scratch directories for the tests that write files (test_cli.c,
 * test_load_limits.c, test_write_atomic.c): create one, name files in it, see what it
 * holds, read a file whole, remove it; and running the tool (cli_run). And the backend corpus the corpus tests read (corpus_dir). Header-only, as the Criterion assertions need the test's own
 * translation unit. Include after <criterion/criterion.h>, with _GNU_SOURCE (asprintf).
 */
#ifndef OSH_TEST_FILES_H
#define OSH_TEST_FILES_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh directory /tmp/osh_test_<tag>.XXXXXX (malloc'd; remove_dir frees it). */
static inline char *make_tmpdir_for(const char *tag)
{
	char *dir = NULL;
	cr_assert(asprintf(&dir, "/tmp/osh_test_%s.XXXXXX", tag) > 0 && mkdtemp(dir), "mkdtemp: %s",
		  strerror(errno));
	return dir;
}

/* Calls fn(path, ctx) for every regular file under dir, in directory order, going
 * into subdirectories when `recurse` (hidden names skipped). Returns how many. */
static inline size_t for_each_file(const char *dir, bool recurse, void (*fn)(const char *path, void *ctx),
				   void *ctx)
{
	DIR *d = opendir(dir);
	cr_assert(d, "%s: %s", dir, strerror(errno));
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *p = NULL;
		cr_assert(asprintf(&p, "%s/%s", dir, e->d_name) > 0);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) && recurse)
			n += for_each_file(p, true, fn, ctx);
		else if (S_ISREG(st.st_mode))
			fn(p, ctx), n++;
		free(p);
	}
	closedir(d);
	return n;
}

/* The whole file at path (malloc'd, one byte spare), its size in *size. */
static inline uint8_t *slurp(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	uint8_t *buf = malloc((size_t)st.st_size + 1);
	cr_assert(buf);
	size_t len = 0;
	while (len < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + len, (size_t)st.st_size - len);
		cr_assert(r > 0, "%s: short read", path);
		len += (size_t)r;
	}
	close(fd);
	*size = len;
	return buf;
}

/* Writes the n bytes at data as the file at path, replacing it. */
static inline void spit(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, n, f), n, "%s: short write", path);
	cr_assert_eq(fclose(f), 0, "%s: %s", path, strerror(errno));
}

/* Copies the file at from to `to`, replacing it. */
static inline void copy_file(const char *from, const char *to)
{
	size_t n;
	uint8_t *data = slurp(from, &n);
	spit(to, data, n);
	free(data);
}

/* "dir/name", malloc'd. */
static inline char *path_in(const char *dir, const char *name)
{
	char *p = NULL;
	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

/* The names in dir, sorted and joined by spaces ("" when empty); at most 64. */
static inline char *listing(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert(d, "%s: %s", dir, strerror(errno));
	char *names[64];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			cr_assert(n < 64, "%s: more than 64 entries", dir);
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	for (size_t i = 1; i < n; i++) /* insertion sort: a handful of names */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1], names[j - 1] = t;
		}
	char *s = calloc(1, 64 * (NAME_MAX + 1));
	cr_assert(s);
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, names[i]);
		free(names[i]);
	}
	return s;
}

static inline void expect_listing(const char *dir, const char *want, const char *ctx)
{
	char *got = listing(dir);
	cr_expect_str_eq(got, want, "%s: the directory holds [%s], want [%s]", ctx, got, want);
	free(got);
}

/* Removes the files in dir, then dir itself, and frees dir. */
static inline void remove_dir(char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				char *p = path_in(dir, e->d_name);
				unlink(p);
				free(p);
			}
		}
		closedir(d);
	}
	rmdir(dir);
	free(dir);
}

/* Declares `var`, the generated backend corpus that ctest's corpus tests point
 * OSH_CORPUS_DIR at; run alone, the test is skipped. */
#define CORPUS_DIR_OR_SKIP(var, ctest_name)                                                   \
	const char *var = getenv("OSH_CORPUS_DIR");                                           \
	if (!var)                                                                             \
	cr_skip_test("OSH_CORPUS_DIR is not set (ctest's " ctest_name " sets it)")

/* ---- running the tool ----------------------------------------------------------- */

typedef struct cli_result {
	int status;      /* exit status, or 128 + signal */
	char *out, *err; /* what it printed (malloc'd, NUL-terminated) */
} cli_result;

/* The file at path whole, NUL-terminated (malloc'd), and the file removed. */
static inline char *take_output(const char *path)
{
	size_t n;
	char *s = (char *)slurp(path, &n); /* slurp leaves a byte spare */
	s[n] = '\0';
	unlink(path);
	return s;
}

/* Runs OSH_CLI with argv (argv[0] included, NULL-terminated), stdin from /dev/null,
 * stdout and stderr into files of dir (removed once read). fsize > 0 limits the size
 * of any file the tool writes (RLIMIT_FSIZE, with SIGXFSZ ignored so write() fails
 * with EFBIG instead of killing it). */
static inline cli_result cli_run(const char *dir, long fsize, const char *const *argv)
{
	char *out = path_in(dir, "stdout"), *err = path_in(dir, "stderr");
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || o < 0 || e < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		if (fsize > 0) {
			struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
			signal(SIGXFSZ, SIG_IGN);
			if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
				_exit(126);
		}
		execv(OSH_CLI, (char *const *)argv);
		_exit(127);
	}
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		cr_assert_eq(errno, EINTR);
	cli_result r = {WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws), take_output(out), take_output(err)};
	free(out), free(err);
	cr_assert_neq(r.status, 126, "could not set up the child");
	cr_assert_neq(r.status, 127, "cannot run %s", OSH_CLI);
	return r;
}

/* Appends the arguments from arg on (NULL-terminated, as a variadic caller got
 * them) to argv, which holds argc and has room for cap; NULL-terminates it and
 * returns the new count. */
static inline int cli_args(const char **argv, int argc, int cap, const char *arg, va_list ap)
{
	for (const char *a = arg; a; a = va_arg(ap, const char *)) {
		cr_assert(argc < cap - 1, "more than %d arguments", cap - 1);
		argv[argc++] = a;
	}
	argv[argc] = NULL;
	return argc;
}

static inline void cli_result_free(cli_result *r)
{
	free(r->out);
	free(r->err);
}

#endif
