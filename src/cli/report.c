/* report.c: compiler-style diagnostics for the terminal, and check's text format.
 *
 * One line per finding, the location first so editors and CI annotators can jump to
 * it: "model.onnx: node 12 'Add_12' (Add): error: message [code]". Colour only when
 * asked or on a terminal, never in a pipe. What the model names is escaped
 * (put_text): a name holding a newline, an escape sequence or a bidirectional
 * override must neither break the line nor act on the terminal.
 */
#define _POSIX_C_SOURCE 200809L /* fileno, fdopen */
#include "check.h"
#include "core/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool parse_color(const char *arg, int fd, style *st)
{
	/* NO_COLOR counts when it is set and not empty (no-color.org); a terminal that
	 * says it is dumb shows escape sequences as they are. */
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
	if (!arg || !strcmp(arg, "auto"))
		st->color = fd >= 0 && isatty(fd) && !(no_color && no_color[0]) && !(term && !strcmp(term, "dumb"));
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
	fputs(bold, f);
	put_text(f, path);
	fputc(':', f);
	if (d->graph[0]) {
		fputs(" graph '", f);
		put_text(f, d->graph);
		fputs("':", f);
	}
	if (d->node_index >= 0) {
		fprintf(f, " node %lld", (long long)d->node_index);
		if (d->node_name[0]) {
			fputs(" '", f);
			put_text(f, d->node_name);
			fputc('\'', f);
		}
		fputs(" (", f);
		put_text(f, d->op_type);
		fputs("):", f);
	}
	fprintf(f, "%s %s%s:%s ", reset, st->color ? sev_color[d->severity] : "", sev_name[d->severity], reset);
	put_text(f, d->message);
	fprintf(f, " [%s]\n", d->code);
}

/* Unbuffered (stderr), a diagnostic is a dozen write calls, and a big legacy model
 * has a note per node. So f's descriptor gets
 * a buffered stream of its own for the span, flushed before returning; f itself, if
 * that cannot be had. */
void print_diag_span(FILE *f, const style *st, const char *path, const osh_model *m, size_t from, bool errors_only)
{
	size_t n = osh_model_diag_count(m);
	if (from >= n)
		return;
	fflush(f);
	int fd = fileno(f), dup_fd = fd >= 0 ? dup(fd) : -1;
	FILE *out = dup_fd >= 0 ? fdopen(dup_fd, "w") : NULL;
	if (!out && dup_fd >= 0)
		close(dup_fd);
	for (size_t i = from; i < n; i++) {
		const osh_diag *d = osh_model_diag_at(m, i);
		if (!errors_only || d->severity == OSH_ERROR)
			print_diag(out ? out : f, st, path, d);
	}
	if (out)
		fclose(out);
}

void error_in_cli_terms(osh_error *err)
{
	static const char field[] = "osh_load_options.memory_budget", flag[] = "--memory-budget";
	char *at = strstr(err->message, field);
	if (!at)
		return;
	/* The flag is the shorter: the rest of the message moves left, its end too. */
	const char *rest = at + strlen(field);
	memmove(at + strlen(flag), rest, strlen(rest) + 1);
	memcpy(at, flag, strlen(flag));
}

/* print_error into f. */
static void put_error(FILE *f, const style *st, const osh_error *library_err)
{
	osh_error cli_err = *library_err, *err = &cli_err;
	error_in_cli_terms(err);
	/* The message starts with the file name; put the severity after it, as for
	 * diagnostics. Both name what the model holds: escaped as a diagnostic is. */
	const char *msg = err->message;
	const char *colon = strstr(msg, ": ");
	if (colon) {
		fputs(st->color ? "\033[1m" : "", f);
		put_text_n(f, msg, (size_t)(colon - msg));
		fprintf(f, ":%s %serror:%s ", st->color ? "\033[0m" : "", st->color ? sev_color[2] : "",
			st->color ? "\033[0m" : "");
		put_text(f, colon + 2);
	} else {
		fprintf(f, "%s: error: ", cli_prefix());
		put_text(f, msg);
	}
	fputc('\n', f);
}

void print_error(FILE *f, const style *st, const osh_error *err)
{
	/* One write, as one fprintf to an unbuffered stderr is: a line of its own
	 * beside what other threads print. */
	char *line = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&line, &n);
	if (mem) {
		put_error(mem, st, err);
		if (fclose(mem) == 0)
			fwrite(line, 1, n, f);
		else
			put_error(f, st, err);
		free(line);
	} else {
		put_error(f, st, err);
	}
}

void text_file(FILE *f, const style *st, const char *path, const osh_model *m, const osh_error *error,
	       bool errors_only)
{
	if (error)
		print_error(f, st, error);
	for (size_t i = 0; m && i < osh_model_diag_count(m); i++)
		if (!errors_only || osh_model_diag_at(m, i)->severity == OSH_ERROR)
			print_diag(f, st, path, osh_model_diag_at(m, i));
}

void summary_line(char *buf, size_t cap, const check_totals *t)
{
	snprintf(buf, cap, "%zu error%s, %zu warning%s, %zu note%s in %zu file%s (%zu node%s)", t->errors,
		 t->errors == 1 ? "" : "s", t->warnings, t->warnings == 1 ? "" : "s", t->notes, t->notes == 1 ? "" : "s",
		 t->files, t->files == 1 ? "" : "s", t->nodes, t->nodes == 1 ? "" : "s");
}

void text_summary(FILE *f, const check_totals *t)
{
	char line[256];
	summary_line(line, sizeof line, t);
	fprintf(f, "%s\n", line);
}

void format_type_shape(char *buf, size_t cap, const osh_type *t)
{
	strbuf s = strbuf_on(buf, cap);
	if (!t->kind[0]) {
		strbuf_str(&s, "(no type)");
		return;
	}
	const char *et = osh_elem_type_name(t->elem_type);
	if (strcmp(t->kind, "tensor"))
		strbuf_printf(&s, "%s ", t->kind);
	if (!strcmp(t->kind, "map"))
		return;
	strbuf_printf(&s, "%s", et ? et : "?");
	if (t->rank < 0) {
		strbuf_str(&s, " (rank unknown)");
		return;
	}
	strbuf_str(&s, " (");
	for (int32_t i = 0; i < t->rank; i++) {
		const osh_dim *d = &t->dims[i];
		if (d->kind == OSH_DIM_VALUE)
			strbuf_printf(&s, "%s%lld", i ? ", " : "", (long long)d->value);
		else if (d->kind == OSH_DIM_SYMBOL)
			strbuf_printf(&s, "%s%s", i ? ", " : "", d->symbol);
		else
			strbuf_printf(&s, "%s?", i ? ", " : "");
	}
	strbuf_printf(&s, "%s)", t->rank == 1 ? "," : "");
}
