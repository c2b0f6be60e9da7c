/* model_files.c: the files `check DIR` looks at: *.onnx under DIR, depth first, in sorted
 * order, as check.h's walk() promises.
 *
 * What is looked at follows what people keep in model folders: `.onnx` in any case
 * (exports from Windows tools say MODEL.ONNX), a symbolic link to a model is the
 * model (models are often linked into a test folder from a cache), but a link to a
 * directory is not followed, so no loop can make the walk endless. Hidden folders
 * (.git, .cache, .venv) and those matching --exclude are skipped, as git skips what
 * .gitignore names: a pattern with a '/' is matched against the path relative to
 * DIR (a leading '/' anchors it there), one without against each name, and a
 * pattern ending in '/' only matches folders. Patterns apply to files too.
 */
#define _GNU_SOURCE
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

bool path_push(path_list *l, char *p, int err)
{
	if (!grow_array(&l->v, l->n, &l->cap, sizeof *l->v) || !grow_array(&l->err, l->n, &l->cap_err, sizeof *l->err) ||
	    !grow_array(&l->rel, l->n, &l->cap_rel, sizeof *l->rel))
		return false;
	l->err[l->n] = err;
	l->rel[l->n] = -1;
	l->v[l->n++] = p;
	return true;
}

bool path_push_copy(path_list *l, const char *p, int err)
{
	char *q = strdup(p);
	if (!q || !path_push(l, q, err)) {
		free(q);
		return false;
	}
	return true;
}

static bool has_onnx_suffix(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcasecmp(name + n - 5, ".onnx");
}

/* The path of entry `name` of dir as the report shows it (malloc'd), NULL when
 * memory runs out. */
static char *join(const char *dir, const char *name)
{
	/* "check ." reports "a.onnx", not "./a.onnx", as compilers do. */
	if (!strcmp(dir, "."))
		return strdup(name);
	/* "check dir/" gives "dir/a.onnx", not "dir//a.onnx". */
	size_t dn = strlen(dir);
	const char *sep = dn && dir[dn - 1] == '/' ? "" : "/";
	char *p;
	return asprintf(&p, "%s%s%s", dir, sep, name) < 0 ? NULL : p;
}

/* Whether an entry (name, its path relative to the walk's root) is excluded. */
static bool excluded(const walk_opts *o, const char *name, const char *rel, bool is_dir)
{
	for (size_t i = 0; i < o->n_exclude; i++) {
		char pat[4096];
		const char *p = o->exclude[i];
		bool dir_only = false, anchored = *p == '/';
		size_t n = strlen(p);
		if (anchored) /* at the root: the relative path has no leading '/' */
			p++, n--;
		if (n && p[n - 1] == '/')
			dir_only = true, n--;
		if (!n || n >= sizeof pat || (dir_only && !is_dir))
			continue;
		memcpy(pat, p, n);
		pat[n] = '\0';
		bool by_path = anchored || strchr(pat, '/') != NULL;
		if (fnmatch(pat, by_path ? rel : name, by_path ? FNM_PATHNAME : 0) == 0)
			return true;
	}
	return false;
}

/* An entry worth a look: 1 a folder to descend, 2 a model, 0 neither. */
static int classify(const walk_opts *o, const char *path, const char *name, const char *rel)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return name[0] != '.' && !excluded(o, name, rel, true) ? 1 : 0;
	if (!has_onnx_suffix(name) || excluded(o, name, rel, false))
		return 0;
	/* A link counts for the file it leads to, never for a folder. */
	if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
		return 2; /* a dangling link to a model: reported as unreadable, not hidden */
	return S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) ? 2 : 0;
}

/* Appends to `here` the entries of d (the directory dir, at rel under the root)
 * worth a look, each with its kind (classify) in here->err. *err is readdir's errno when it stopped
 * early, else 0. Returns false when memory ran out. */
static bool read_entries(const walk_opts *o, DIR *d, const char *dir, const char *rel, path_list *here, int *err)
{
	for (;;) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (!e) {
			*err = errno;
			return true;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = join(dir, e->d_name), *r = rel[0] ? join(rel, e->d_name) : strdup(e->d_name);
		int kind = p && r ? classify(o, p, e->d_name, r) : 0;
		free(r);
		if (!p || !r)
			return free(p), false;
		/* The kind rides in the errno slot until the entries are sorted. */
		if (!kind || !path_push(here, p, kind)) {
			free(p);
			if (kind)
				return false;
		}
	}
}

typedef struct entry {
	char *path;
	int kind;
} entry;

static int cmp_entry(const void *a, const void *b) { return strcmp(((const entry *)a)->path, ((const entry *)b)->path); }

/* walk, below the root: rel is dir's path relative to it ("" for the root). */
static bool walk_in(const walk_opts *o, const char *dir, const char *rel, path_list *out, size_t *models)
{
	DIR *d = opendir(dir);
	if (!d)
		return path_push_copy(out, dir, errno ? errno : EIO);
	path_list here = {0};
	int err = 0;
	bool ok = read_entries(o, d, dir, rel, &here, &err);
	closedir(d);
	entry *es = here.n ? malloc(here.n * sizeof *es) : NULL;
	if (here.n && !es)
		ok = false;
	for (size_t i = 0; es && i < here.n; i++)
		es[i] = (entry){here.v[i], here.err[i]};
	if (es) /* qsort on a NULL array is undefined even for 0 elements */
		qsort(es, here.n, sizeof *es, cmp_entry);
	for (size_t i = 0; i < here.n; i++) {
		char *p = es ? es[i].path : here.v[i];
		if (ok && es && es[i].kind == 1) {
			/* A name holds no '/': the last component of the path is the name. */
			const char *name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
			char *r = rel[0] ? join(rel, name) : strdup(name);
			ok = r && walk_in(o, p, r, out, models);
			free(r);
			free(p);
		} else if (!ok || !path_push(out, p, 0)) {
			free(p);
			ok = false;
		} else {
			(*models)++;
		}
	}
	free(es);
	free(here.v);
	free(here.err);
	free(here.rel);
	/* A listing cut short: what was read is still checked, and the directory is
	 * reported after it. */
	return ok && (!err || path_push_copy(out, dir, err));
}

bool walk(const walk_opts *o, const char *dir, path_list *out, size_t *models)
{
	*models = 0;
	return walk_in(o, dir, "", out, models);
}

bool collect_models(const walk_opts *o, char *const *args, int n, path_list *out)
{
	for (int i = 0; i < n; i++) {
		struct stat sb;
		size_t models = 0, before = out->n;
		if (is_stdin_path(args[i]) || stat(args[i], &sb) != 0 || !S_ISDIR(sb.st_mode)) {
			if (!path_push_copy(out, args[i], 0))
				return false;
			continue;
		}
		if (!walk(o, args[i], out, &models))
			return false;
		if (!models && out->n == before && !path_push_copy(out, args[i], WALK_EMPTY))
			return false;
		/* join() made each path: "." adds no prefix, "dir/" no second '/'. */
		size_t dn = strlen(args[i]);
		long skip = !strcmp(args[i], ".") ? 0 : (long)dn + (dn && args[i][dn - 1] == '/' ? 0 : 1);
		for (size_t k = before; k < out->n; k++)
			if (!out->err[k])
				out->rel[k] = skip;
	}
	return true;
}

void path_list_free(path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v), free(l->err), free(l->rel);
	*l = (path_list){0};
}
