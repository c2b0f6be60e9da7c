/* external.c: checks a tensor's external-data reference without reading the weights.
 *
 * The location must name a regular file inside the model's directory. We do not
 * trust the string: it is refused when empty, absolute, containing a backslash or a
 * ".." component, and it is then opened one component at a time relative to the
 * model's directory with O_NOFOLLOW, so a symlink at any level (which could lead
 * outside) is refused too. The opened file is checked with fstat after opening (so
 * what we checked is what we opened): a regular file with a single link, long enough
 * for offset + length, with length equal to what the dims need. Models point
 * thousands of tensors at one file: the last file checked is remembered in the model,
 * so a run of tensors naming it costs one open and one fstat, not one each.
 */
#define _GNU_SOURCE
#include "core/dtype.h"
#include "loader/loader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
 * another name is the first. Three strcmp calls a tensor were a tenth of a
 * CNN-with-external-weights' check. */
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
	for (const char *p = loc; *p;) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "contains a '..' component";
		p += n + (e != NULL);
	}
	return NULL;
}

/* Opens loc under dirfd without following any symlink. Returns an fd or -1 with errno. */
static int open_beneath(int dirfd, const char *loc)
{
	int cur = dup(dirfd);
	if (cur < 0)
		return -1;
	const char *p = loc;
	for (;;) {
		while (*p == '/')
			p++;
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char comp[256];
		if (n >= sizeof comp) {
			close(cur);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		bool last = !e || !e[strspn(e, "/")];
		int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (last ? O_NONBLOCK : O_DIRECTORY);
		int next = openat(cur, comp, flags);
		int saved = errno;
		close(cur);
		if (next < 0) {
			errno = saved;
			return -1;
		}
		if (last)
			return next;
		cur = next;
		p = e;
	}
}

/* Opens and stats loc (beneath the model's directory) into m->ext_last. Only the
 * last file is remembered: tensors pointing at one file come one after another. */
static void stat_location(osh_model *m, const char *loc)
{
	m->ext_last.location = NULL;
	int dirfd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dirfd < 0 ? -1 : open_beneath(dirfd, loc);
	int e = errno;
	if (dirfd >= 0)
		close(dirfd);
	m->ext_last.err = fd < 0 ? (e ? e : EIO) : 0;
	m->ext_last.stat_ok = m->ext_last.regular = false;
	m->ext_last.nlink = m->ext_last.size = 0;
	if (fd >= 0) {
		struct stat st;
		m->ext_last.stat_ok = fstat(fd, &st) == 0;
		close(fd);
		if (m->ext_last.stat_ok) {
			m->ext_last.regular = S_ISREG(st.st_mode);
			m->ext_last.nlink = (uint64_t)st.st_nlink;
			m->ext_last.size = (uint64_t)st.st_size;
		}
	}
	m->ext_last.location = arena_strdup(m->arena, loc); /* NULL (no memory): not cached */
}

/* W: how messages name t (tensor_what), written only when there is a message. */
#define W tensor_what(label, t, buf)

void validate_external(osh_model *m, const graph *g, int32_t ni, const Onnx__TensorProto *t,
		       const char *label)
{
	char buf[TENSOR_WHAT_CAP];
	const char *name = t->name ? t->name : "";
	ext_ref r = parse_ref(t);
	/* The remembered file's location passed location_problem before it was opened:
	 * the same string passes again, and thousands of tensors name it. */
	bool same = m->ext_last.location && r.location && strcmp(m->ext_last.location, r.location) == 0;
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
	if (!same)
		stat_location(m, r.location);
	if (m->ext_last.err) {
		int e = m->ext_last.err;
		malformed(m, g, ni, name, "%s: external data file '%s' %s", W, r.location,
			  e == ELOOP || e == ENOTDIR ? "is or passes through a symbolic link"
			  : e == ENOENT		     ? "does not exist"
						     : strerror(e));
		return;
	}
	if (!m->ext_last.stat_ok || !m->ext_last.regular) {
		malformed(m, g, ni, name, "%s: external data file '%s' is not a regular file", W,
			  r.location);
		return;
	}
	if (m->ext_last.nlink > 1) {
		malformed(m, g, ni, name,
			  "%s: external data file '%s' has %ju hard links (refused: it may be a file outside the model's directory)",
			  W, r.location, (uintmax_t)m->ext_last.nlink);
		return;
	}
	uint64_t size = m->ext_last.size;
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
