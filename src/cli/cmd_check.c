/* cmd_check.c: `onnxshape check PATH...`: validate models, report, gate CI.
 *
 * The report (one line per finding, then a summary) goes to stdout: it is what the
 * command produces. Files that cannot be read are reported and the others are still
 * checked; the exit status is the worst outcome over all files.
 */
#define _GNU_SOURCE
#include "cli.h"

#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char help[] =
	"usage: onnxshape check [options] PATH...\n"
	"\n"
	"Load and validate each model (directories are searched recursively for *.onnx),\n"
	"infer the shape of every value, and report what is wrong, one line per finding,\n"
	"then a summary.\n"
	"\n"
	"options:\n"
	"  --color=WHEN   colour the report: auto (default), always, never\n"
	"  -h, --help     show this help\n"
	"\n"
	"exit status: 0 no errors; 1 at least one model has errors; 2 a file could not be\n"
	"read or is malformed, or a usage error (the other files are still checked).\n";

typedef struct path_list {
	char **v;
	size_t n, cap;
} path_list;

static bool push(path_list *l, char *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return false;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = p;
	return true;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool has_onnx_suffix(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".onnx");
}

/* Appends the *.onnx files under dir, sorted, depth first. Symlinked directories are
 * not followed (no loops). */
static bool walk(const char *dir, path_list *out)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	path_list here = {0};
	struct dirent *e;
	bool ok = true;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = NULL;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0) {
			ok = false;
			break;
		}
		struct stat st;
		if (lstat(p, &st) == 0 && (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && has_onnx_suffix(e->d_name)))) {
			if (!push(&here, p)) {
				free(p);
				ok = false;
				break;
			}
		} else {
			free(p);
		}
	}
	closedir(d);
	if (here.n) /* qsort on a NULL array is undefined even for 0 elements */
		qsort(here.v, here.n, sizeof *here.v, cmp_str);
	for (size_t i = 0; i < here.n; i++) {
		struct stat st;
		if (ok && lstat(here.v[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			ok = walk(here.v[i], out);
			free(here.v[i]);
		} else if (!ok || !push(out, here.v[i])) {
			free(here.v[i]);
			ok = false;
		}
	}
	free(here.v);
	return ok;
}

int cmd_check(int argc, char **argv)
{
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'}, {"color", required_argument, NULL, 'C'}, {0}};
	const char *color = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return EXIT_CLEAN;
		}
		if (c == 'C')
			color = optarg;
		else {
			fputs(help, stderr);
			return EXIT_TROUBLE;
		}
	}
	style st = {0};
	if (!parse_color(color, 1, &st)) {
		fprintf(stderr, "onnxshape: error: --color must be auto, always or never\n");
		return EXIT_TROUBLE;
	}
	if (optind >= argc) {
		fputs(help, stderr);
		return EXIT_TROUBLE;
	}
	path_list files = {0};
	int worst = EXIT_CLEAN;
	for (int i = optind; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
			if (!walk(argv[i], &files)) {
				fprintf(stdout, "%s: error: cannot read the directory\n", argv[i]);
				worst = EXIT_TROUBLE;
			}
		} else {
			char *p = strdup(argv[i]);
			if (!p || !push(&files, p)) {
				free(p);
				worst = EXIT_TROUBLE;
			}
		}
	}
	size_t errors = 0, warnings = 0, notes = 0, nodes = 0;
	for (size_t i = 0; i < files.n; i++) {
		osh_model *m = NULL;
		osh_error err = {0};
		if (osh_model_load(&m, files.v[i], NULL, &err) != OSH_OK) {
			print_error(stdout, &st, &err);
			errors++;
			worst = EXIT_TROUBLE;
			free(files.v[i]);
			continue;
		}
		/* A malformed model has no reliable graph to infer over: its loader
		 * diagnostics are the report. */
		if (!osh_model_is_malformed(m) && osh_infer(m, NULL, &err) != OSH_OK) {
			print_error(stdout, &st, &err);
			worst = EXIT_TROUBLE;
		}
		for (size_t k = 0; k < osh_model_diag_count(m); k++) {
			const osh_diag *d = osh_model_diag_at(m, k);
			print_diag(stdout, &st, files.v[i], d);
			errors += d->severity == OSH_ERROR;
			warnings += d->severity == OSH_WARNING;
			notes += d->severity == OSH_NOTE;
		}
		const osh_summary *s = osh_model_summary(m);
		if (s)
			nodes += s->n_nodes_total;
		if (osh_model_is_malformed(m))
			worst = EXIT_TROUBLE;
		else if (osh_model_has_errors(m) && worst < EXIT_FINDINGS)
			worst = EXIT_FINDINGS;
		osh_model_free(m);
		free(files.v[i]);
	}
	free(files.v);
	printf("%zu error%s, %zu warning%s, %zu note%s in %zu file%s (%zu nodes)\n", errors,
	       errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s", notes, notes == 1 ? "" : "s",
	       files.n, files.n == 1 ? "" : "s", nodes);
	return worst;
}
