/* external.c: checks a tensor's external-data reference without reading the weights.
 *
 * The location must name a regular file inside the model's directory. We do not
 * trust the string: it is refused when empty, absolute, containing a backslash or a
 * ".." component, or ending in a form that names a directory ("w.bin/", "x/."). It
 * is then opened one component at a time relative to the model's directory with
 * O_NOFOLLOW, so a symlink at any level (which could lead outside) is refused too;
 * the directories are opened with O_PATH, so that, as for any path, searching them
 * is all the permission needed. The opened file is checked with fstat after opening
 * (so what we checked is what we opened): a regular file with a single link, long
 * enough for offset + length, with length equal to what the dims need. Models point
 * thousands of tensors at a few files, under several spellings: the model's cache
 * (external.h) opens and checks each distinct file once.
 */
#define _GNU_SOURCE
#include "core/dtype.h"
#include "core/error.h"
#include "core/grow.h"
#include "loader/external.h"
#include "loader/loader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct ext_ref {
	const char *location;
	bool has_offset, has_length, bad_number;
	uint64_t offset, length;
} ext_ref;

static bool parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return false;
	/* Up to 19 digits cannot overflow (10^19 - 1 < 2^64): only a longer number
	 * pays for the check. */
	uint64_t v = 0;
	for (size_t i = 0; s[i]; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d > 9 || (i >= 19 && v > (UINT64_MAX - d) / 10))
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* strcmp(k, lit) == 0 for a literal of n bytes, inlined and unrolled: it stops at
 * the first byte that differs (so never reads past k's NUL), which for the keys of
 * another name is the first. It runs three times a tensor, a real part of checking a
 * model whose weights are external. */
#define KEY_IS(k, lit) key_is((k), (lit), sizeof(lit) - 1)
static inline bool key_is(const char *k, const char *lit, size_t n)
{
#pragma GCC unroll 16
	for (size_t i = 0; i < n; i++)
		if (k[i] != lit[i])
			return false;
	return k[n] == '\0';
}

static ext_ref parse_ref(const Onnx__TensorProto *t)
{
	ext_ref r = {0};
	for (size_t i = 0; i < t->n_external_data; i++) {
		const char *k = t->external_data[i]->key ? t->external_data[i]->key : "";
		const char *v = t->external_data[i]->value;
		if (KEY_IS(k, "location"))
			r.location = v ? v : "";
		else if (KEY_IS(k, "offset"))
			r.has_offset = true, r.bad_number |= !parse_u64(v, &r.offset);
		else if (KEY_IS(k, "length"))
			r.has_length = true, r.bad_number |= !parse_u64(v, &r.length);
	}
	return r;
}

/* Why a location string is refused before touching the file system, or NULL. */
static const char *location_problem(const char *loc)
{
	if (!loc || !*loc)
		return "is empty";
	if (loc[0] == '/')
		return "is an absolute path";
	if (strchr(loc, '\\'))
		return "contains a backslash";
	const char *p = loc;
	for (;;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "contains a '..' component";
		if (!e)
			break;
		p = e + 1;
	}
	/* p is the last component. The kernel would open "w.bin/" as w.bin, but the
	 * writer meant a directory: what the location names is not the file we check. */
	if (!*p)
		return "ends with '/' (a location names a file, not a directory)";
	if (p[0] == '.' && !p[1])
		return "ends with a '.' component (a location names a file, not a directory)";
	return NULL;
}

/* loc without empty and "." components into out (cap bytes): one file has one
 * spelling in the cache, and the walk opens no component twice. loc passed
 * location_problem, so what is left is not empty. Returns false when it does not
 * fit. */
static bool normalize(const char *loc, char *out, size_t cap)
{
	size_t len = 0;
	for (const char *p = loc; *p;) {
		size_t n = strcspn(p, "/");
		if (n && !(n == 1 && p[0] == '.')) {
			if (len + (len > 0) + n >= cap)
				return false;
			if (len)
				out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n + (p[n] == '/');
	}
	out[len] = '\0';
	return true;
}

/* After ENOTDIR opening the directory `name` under cur: a symbolic link there (which
 * O_PATH | O_NOFOLLOW | O_DIRECTORY also refuses with ENOTDIR) is ELOOP, what it is
 * for the last component. The open decided the refusal: this only names it. */
static int not_dir_errno(int cur, const char *name)
{
	struct stat st;
	return fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
}

/* Opens path (normalized) under dirfd without following any symlink: directories
 * with O_PATH, the file for reading. Returns an fd, or -1 with errno and *failed the
 * length of the leading components up to the one that failed. path is cut at each
 * '/' in turn and put back. */
static int open_beneath(int dirfd, char *path, size_t *failed)
{
	int cur = dirfd;
	for (char *p = path;;) {
		char *e = strchr(p, '/');
		if (e)
			*e = '\0';
		int flags = O_CLOEXEC | O_NOFOLLOW | (e ? O_PATH | O_DIRECTORY : O_RDONLY | O_NONBLOCK);
		int next = openat(cur, p, flags);
		int err = next < 0 && errno == ENOTDIR && e ? not_dir_errno(cur, p) : errno;
		if (e)
			*e = '/';
		if (cur != dirfd)
			close(cur);
		if (next < 0) {
			*failed = (size_t)((e ? e : p + strlen(p)) - path);
			errno = err;
			return -1;
		}
		if (!e)
			return next;
		cur = next;
		p = e + 1;
	}
}

/* Opens and checks path (normalized) beneath the model's directory. */
static ext_file check_path(osh_model *m, char *path)
{
	ext_file f = {0};
	int dirfd = open(m->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	size_t failed = 0;
	int fd = dirfd < 0 ? -1 : open_beneath(dirfd, path, &failed);
	int e = errno;
	if (dirfd >= 0)
		close(dirfd);
	if (fd < 0) {
		f.err = e ? e : EIO;
		if (f.err == ENOTDIR)
			f.at = arena_strndup(m->arena, path, failed); /* NULL: named without it */
		return f;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		f.err = errno ? errno : EIO;
	} else {
		f.regular = S_ISREG(st.st_mode);
		f.nlink = (uint64_t)st.st_nlink;
		f.size = (uint64_t)st.st_size;
	}
	close(fd);
	return f;
}

/* The model's cache, made on first use; NULL when memory ran out. */
static ext_cache *cache_of(osh_model *m)
{
	if (!m->src.ext_files && (m->src.ext_files = arena_zalloc(m->arena, sizeof *m->src.ext_files)))
		strmap_init(&m->src.ext_files->index, m->arena);
	return m->src.ext_files;
}

/* Stores f as the file of key (copied). Returns its index, -1 when memory ran out;
 * *stored gets the key as stored. */
static int32_t add_file(ext_cache *c, arena *a, const char *key, const ext_file *f, const char **stored)
{
	if (c->nfiles == c->cap) {
		ext_file *g = grow_arena_i32(a, c->files, &c->cap, 8, sizeof *g);
		if (!g)
			return -1;
		c->files = g;
	}
	char *k = arena_strdup(a, key);
	if (!k || strmap_put(&c->index, k, c->nfiles) < 0)
		return -1;
	c->files[c->nfiles] = *f;
	*stored = k;
	return c->nfiles++;
}

/* The process ran out of something, not the file of anything: no finding about the
 * model, and every later open would fail alike: not remembered as the file's. */
static bool out_of_resources(int e) { return e == EMFILE || e == ENFILE || e == ENOMEM; }

/* What the file at loc (which passed location_problem) is: from the cache when
 * this spelling, or its normalized form, was checked before; else opened and
 * checked now, and remembered under both. */
static ext_file file_at(osh_model *m, const char *loc)
{
	ext_cache *c = cache_of(m);
	const char *key = NULL;
	int32_t i = c ? strmap_getn(&c->index, loc, strlen(loc), &key) : -1;
	if (i < 0) {
		char norm[PATH_MAX];
		if (!normalize(loc, norm, sizeof norm))
			return (ext_file){.err = ENAMETOOLONG};
		i = c ? strmap_getn(&c->index, norm, strlen(norm), &key) : -1;
		if (i < 0) {
			ext_file f = check_path(m, norm);
			if (c)
				c->walks++;
			if (!c || out_of_resources(f.err) || (i = add_file(c, m->arena, norm, &f, &key)) < 0)
				return f; /* checked, not remembered */
		}
		const char *spelled;
		if (strcmp(loc, key) != 0 && (spelled = arena_strdup(m->arena, loc)) &&
		    strmap_put(&c->index, spelled, i) >= 0)
			key = spelled;
	}
	c->last = key, c->last_file = i;
	return c->files[i];
}

/* What is wrong with f as the file of a tensor's data, written into buf as it
 * follows "external data file 'LOCATION'" (errno's text after "': "). Returns false
 * when nothing is. */
static bool file_problem(const ext_file *f, char *buf, size_t cap)
{
	if (f->err == ELOOP)
		snprintf(buf, cap, " is or passes through a symbolic link");
	else if (f->err == ENOENT)
		snprintf(buf, cap, " does not exist");
	else if (f->err == ENOTDIR && f->at)
		snprintf(buf, cap, ": '%.256s' is not a directory", f->at);
	else if (f->err == ENOTDIR)
		snprintf(buf, cap, ": a component is not a directory");
	else if (f->err)
		snprintf(buf, cap, ": %s", strerror(f->err));
	else if (!f->regular)
		snprintf(buf, cap, " is not a regular file");
	else if (f->nlink > 1)
		snprintf(buf, cap, " has %ju hard links (refused: it may be a file outside the model's directory)",
			 (uintmax_t)f->nlink);
	else
		return false;
	return true;
}

osh_status loader_external_failure(osh_model *m, osh_error *err)
{
	ext_cache *c = m->src.ext_files;
	if (!c || !c->failed)
		return OSH_OK;
	int e = c->failed;
	c->failed = 0;
	return error_set(err, OSH_ERR_IO, "%s: cannot check external data file '%s': %s", m->path,
			 c->failed_at ? c->failed_at : "?", strerror(e));
}

/* W: how messages name t (tensor_what), written only when there is a message. */
#define W tensor_what(label, t, buf)

void validate_external(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t,
		       const char *label)
{
	char buf[TENSOR_WHAT_CAP];
	const char *name = t->name ? t->name : "";
	ext_ref r = parse_ref(t);
	/* The location the last tensor named passed location_problem before: the same
	 * string passes again, and thousands of tensors name it. */
	ext_cache *c = m->src.ext_files;
	if (c && c->failed)
		return;
	bool same = c && c->last && r.location && strcmp(c->last, r.location) == 0;
	const char *why = same ? NULL : location_problem(r.location);
	if (why) {
		malformed(m, g, ni, name, "%s: external data location '%s' %s", W,
			  r.location ? r.location : "", why);
		return;
	}
	if (r.bad_number) {
		malformed(m, g, ni, name, "%s: external data offset or length is not a non-negative integer",
			  W);
		return;
	}
	ext_file f = same ? c->files[c->last_file] : file_at(m, r.location);
	if (out_of_resources(f.err)) {
		/* Without a cache (memory ran out making it) there is nowhere to say it:
		 * the load fails as for any memory that ran out. */
		if (!(c = m->src.ext_files)) {
			m->nomem = true;
			return;
		}
		c->failed = f.err;
		c->failed_at = arena_strdup(m->arena, r.location);
		return;
	}
	char why_file[320];
	if (file_problem(&f, why_file, sizeof why_file)) {
		malformed(m, g, ni, name, "%s: external data file '%s'%s", W, r.location, why_file);
		return;
	}
	uint64_t size = f.size;
	int64_t n = 1;
	for (size_t i = 0; i < t->n_dims; i++)
		n *= t->dims[i]; /* validate_tensor checked the product for overflow */
	uint64_t need;
	if (!dtype_raw_bytes(t->data_type, n, &need)) {
		malformed(m, g, ni, name, "%s: a %s tensor cannot be stored as external data", W,
			  dtype_name(t->data_type));
		return;
	}
	if (r.offset > size) {
		malformed(m, g, ni, name, "%s: external data offset %" PRIu64 " is past the end of '%s' (%" PRIu64 " bytes)",
			  W, r.offset, r.location, size);
		return;
	}
	uint64_t avail = size - r.offset;
	if (r.has_length && r.length != need)
		malformed(m, g, ni, name,
			  "%s: external data length %" PRIu64 " disagrees with %lld elements of %s (%" PRIu64 " bytes)",
			  W, r.length, (long long)n, dtype_name(t->data_type), need);
	else if ((r.has_length ? r.length : need) > avail)
		malformed(m, g, ni, name,
			  "%s: external data needs %" PRIu64 " bytes at offset %" PRIu64 " but '%s' has only %" PRIu64,
			  W, r.has_length ? r.length : need, r.offset, r.location, size);
}

#undef W
