/* report.c: compiler-style diagnostics for the terminal.
 *
 * One line per finding, the location first so editors and CI annotators can jump to
 * it: "model.onnx: node 12 'Add_12' (Add): error: message [code]". Colour only when
 * asked or on a terminal, never in a pipe.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool parse_color(const char *arg, int fd, style *st)
{
	if (!arg || !strcmp(arg, "auto"))
		st->color = isatty(fd) && getenv("NO_COLOR") == NULL;
	else if (!strcmp(arg, "always"))
		st->color = true;
	else if (!strcmp(arg, "never"))
		st->color = false;
	else
		return false;
	return true;
}

static const char *sev_name[] = {"note", "warning", "error"};
static const char *sev_color[] = {"\033[1;36m", "\033[1;35m", "\033[1;31m"};

void print_diag(FILE *f, const style *st, const char *path, const osh_diag *d)
{
	const char *bold = st->color ? "\033[1m" : "", *reset = st->color ? "\033[0m" : "";
	fprintf(f, "%s%s:", bold, path);
	if (d->graph[0])
		fprintf(f, " graph '%s':", d->graph);
	if (d->node_index >= 0 && d->node_name[0])
		fprintf(f, " node %lld '%s' (%s):", (long long)d->node_index, d->node_name, d->op_type);
	else if (d->node_index >= 0)
		fprintf(f, " node %lld (%s):", (long long)d->node_index, d->op_type);
	fprintf(f, "%s %s%s:%s %s", reset, st->color ? sev_color[d->severity] : "", sev_name[d->severity],
		reset, d->message);
	fprintf(f, " [%s]\n", d->code);
}

size_t print_diags(FILE *f, const style *st, const osh_model *m)
{
	size_t errors = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		print_diag(f, st, osh_model_path(m), d);
		errors += d->severity == OSH_ERROR;
	}
	return errors;
}

void print_error(FILE *f, const style *st, const osh_error *err)
{
	/* The message starts with the file name; put the severity after it, as for
	 * diagnostics. */
	const char *msg = err->message;
	const char *colon = strstr(msg, ": ");
	if (colon)
		fprintf(f, "%s%.*s:%s %serror:%s %s\n", st->color ? "\033[1m" : "", (int)(colon - msg), msg,
			st->color ? "\033[0m" : "", st->color ? sev_color[2] : "", st->color ? "\033[0m" : "",
			colon + 2);
	else
		fprintf(f, "onnxshape: error: %s\n", msg);
}

osh_model *load_or_report(const char *path, const style *st, int *status)
{
	osh_model *m = NULL;
	osh_error err = {0};
	if (osh_model_load(&m, path, NULL, &err) != OSH_OK) {
		print_error(stderr, st, &err);
		*status = EXIT_TROUBLE;
		return NULL;
	}
	print_diags(stderr, st, m);
	if (osh_model_is_malformed(m)) {
		*status = EXIT_TROUBLE;
		osh_model_free(m);
		return NULL;
	}
	*status = osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_CLEAN;
	return m;
}

void format_type_shape(char *buf, size_t cap, const osh_type *t)
{
	size_t len = 0;
#define PUT(...)                                                                       \
	do {                                                                           \
		int w_ = snprintf(buf + len, cap - len, __VA_ARGS__);                  \
		if (w_ > 0)                                                            \
			len = len + (size_t)w_ < cap ? len + (size_t)w_ : cap - 1;     \
	} while (0)
	buf[0] = '\0';
	if (!t->kind[0]) {
		PUT("(no type)");
		return;
	}
	const char *et = osh_elem_type_name(t->elem_type);
	if (strcmp(t->kind, "tensor"))
		PUT("%s ", t->kind);
	if (!strcmp(t->kind, "map"))
		return;
	PUT("%s", et ? et : "?");
	if (t->rank < 0) {
		PUT(" (rank unknown)");
		return;
	}
	PUT(" (");
	for (int32_t i = 0; i < t->rank; i++) {
		const osh_dim *d = &t->dims[i];
		if (d->kind == OSH_DIM_VALUE)
			PUT("%s%lld", i ? ", " : "", (long long)d->value);
		else if (d->kind == OSH_DIM_SYMBOL)
			PUT("%s%s", i ? ", " : "", d->symbol);
		else
			PUT("%s?", i ? ", " : "");
	}
	PUT("%s)", t->rank == 1 ? "," : "");
#undef PUT
}
