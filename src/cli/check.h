/* check.h: what `onnxshape check` shares between its driver (cmd_check.c) and its
 * output formats: text (report.c), JSON (format_json.c), SARIF (format_sarif.c)
 * and HTML (format_html.c).
 *
 * Each file is checked by a worker thread, which renders that file's part of the
 * report into memory while the model is still alive (diagnostics belong to it); the
 * driver prints the parts in input order and wraps them in the format's document.
 * Formatters are pure functions of their arguments: no global state, so workers run
 * them concurrently.
 */
#ifndef OSH_CLI_CHECK_H
#define OSH_CLI_CHECK_H

#include "cli.h"

typedef enum check_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF, FORMAT_HTML } check_format;

/* What one file contributed; filled by the worker that checked it. */
typedef struct file_result {
	const char *path;
	size_t index;   /* its place among the files, from 0 */
	char *out;      /* this file's part of the report (malloc'ed; may be NULL) */
	size_t out_len;
	/* SARIF: toolExecutionNotifications objects, comma-separated; HTML: this
	 * file's counts for the summary, lines "c CODE SEVERITY N" and "o OP N"
	 * (tab-separated). */
	char *aux;
	size_t aux_len;
	size_t errors, warnings, notes; /* diagnostics by severity, after overrides */
	size_t nodes;                   /* every node, subgraphs and functions included */
	bool walked;     /* met in a directory walk (input_shapes_for) */
	bool unreadable; /* the file could not be loaded at all */
	bool trouble;    /* exit status 2: unreadable, malformed, or inference refused */
	bool failed;     /* errors (or warnings under --werror): exit status 1 at least */
	timings time;    /* --timings: this file's stages */
} file_result;

/* Totals over every file, for the summary. */
typedef struct check_totals {
	size_t files, nodes, errors, warnings, notes, unreadable;
	int status; /* the exit status */
} check_totals;

/* ---- the files to check (model_files.c) ---- */

/* Paths to check, each with the errno of a directory that could not be read (0 for
 * a file; WALK_EMPTY for a directory given that holds no model): such a directory
 * is reported in its place among the files. */
typedef struct path_list {
	char **v;
	int *err;
	size_t n, cap, cap_err;
	/* collect_models: for each path, -1 when it was named as it is, else where its
	 * path relative to the directory walked starts (v[i] + rel[i]). */
	long *rel;
	size_t cap_rel;
} path_list;
#define WALK_EMPTY (-1)
bool path_push(path_list *l, char *p, int err);
/* path_push of a copy of p. */
bool path_push_copy(path_list *l, const char *p, int err);

typedef struct walk_opts {
	const char **exclude; /* --exclude patterns */
	size_t n_exclude, cap_exclude;
} walk_opts;
/* Appends the models under dir to out, sorted, depth first, and counts them in
 * *models. A directory that cannot be opened or read goes into out too, with its
 * errno, where it was met, and the walk goes on: one unreadable folder must not
 * hide the files after it. Returns false only when memory ran out. */
bool walk(const walk_opts *o, const char *dir, path_list *out, size_t *models);

/* The models that the arguments name, as every command takes them: a file or '-'
 * as it is, a directory walked (walk; one that holds no model goes in with
 * WALK_EMPTY, so that a typo'd folder does not pass). rel says which came from a
 * walk. Returns false when memory ran out. */
bool collect_models(const walk_opts *o, char *const *args, int n, path_list *out);
void path_list_free(path_list *l);

/* ---- progress on a terminal (progress.c) ---- */

/* One line on stderr, "onnxshape check: 12/340 files: dir/a.onnx", redrawn as the
 * files of a long run (PROGRESS_MIN_FILES or more) are done, and erased at the end:
 * only when stderr is a terminal that can erase a line (not TERM=dumb) and the run
 * is not quiet, so never in a pipe, a file or a CI log. clear: before anything
 * else is printed on the terminal (the next step draws it again). */
#define PROGRESS_MIN_FILES 16
typedef struct progress {
	bool on, shown;
	size_t total, done;
	double last_ms;
} progress;
void progress_start(progress *p, size_t total, bool quiet);
void progress_step(progress *p, const char *path);
void progress_clear(progress *p);
/* A line on stderr (fmt ends it with '\n') from any thread, the progress line
 * erased first if one is shown (the next step draws it again). */
void progress_note(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* ---- -o FILE: the report into a file (report_out.c) ---- */

/* Standard output becomes a temporary file beside path, renamed over it once the
 * report is whole (report_out_close with commit): a report is never half written,
 * and nothing is left when the command fails. "-" (or standard output's own file)
 * leaves standard output as it is; an existing file that is not a regular one
 * (/dev/null, a FIFO) is written directly. open: false after printing why. close:
 * restores standard output and returns status, or EXIT_TROUBLE after saying why the
 * report could not be written (then path is as it was). */
typedef struct report_out {
	const char *path;
	char *tmp; /* NULL: written directly, or not redirected */
	FILE *saved;
} report_out;
bool report_out_open(report_out *r, const char *cmd, const char *path);
int report_out_close(report_out *r, const char *cmd, int status, bool commit);
/* Whether path is (or would replace) one of the models of l: -o must not overwrite
 * an input with a report. */
bool report_out_is_input(const char *path, const path_list *l);

/* ---- --input-shape in a walk (input_shapes.c) ---- */

/* For a model met in a directory walk: io's input shapes without those that name no
 * graph input of m, each of those a note on stderr ("onnxshape CMD: note: PATH: no
 * graph input named 'y'; --input-shape y ignored for this file"): a folder of
 * models rarely shares every input name. *kept (free it) holds the shapes kept
 * when some were dropped, and io points at it. False when memory ran out. */
bool input_shapes_for(osh_model *m, const char *path, osh_infer_options *io, osh_input_shape **kept);

/* The status word of a file in JSON: "ok", "errors" or "unreadable". */
const char *file_status(const file_result *r);

/* ---- text (report.c) ---- */
/* Every diagnostic of m (only its errors, with errors_only: check -q), one line
 * each; `error` (may be NULL) is a failure to check the file after loading it
 * (inference refused), printed first. */
void text_file(FILE *f, const style *st, const char *path, const osh_model *m, const osh_error *error,
	       bool errors_only);
/* "N errors, M warnings, K notes in F files (X nodes)". */
/* "1 error, 0 warnings, 2 notes in 3 files (7 nodes)", the last line of a report. */
void summary_line(char *buf, size_t cap, const check_totals *t);
void text_summary(FILE *f, const check_totals *t);

/* ---- JSON (format_json.c) ---- */
/* A JSON string literal, escaped; bytes that are not UTF-8 become U+FFFD, and the
 * controls and hidden characters (escape.c) are written as \u escapes. */
void json_string(FILE *f, const char *s);
/* A shape: [2, "N", null], or null when the rank is unknown. */
void json_shape(FILE *f, const osh_type *t);
/* One element of "files": m is NULL when the file could not be loaded; error is the
 * message of whatever stopped the check (NULL when nothing did). */
void json_file(FILE *f, const file_result *r, const osh_model *m, const char *error);
void json_begin(FILE *f);
/* parts: the files' objects in input order. */
void json_end(FILE *f, const check_totals *t);

/* ---- SARIF 2.1.0 (format_sarif.c) ---- */
/* This file's results (comma-separated result objects) into r->out, and a
 * notification for a file that could not be checked into r->aux. */
void sarif_file(file_result *r, const osh_model *m, const osh_error *error);
/* The whole log: one run, the rules of osh_rules, every file's results. */
void sarif_document(FILE *f, const file_result *files, size_t n, const check_totals *t);

/* ---- HTML (format_html.c) ---- */
/* This file's section into r->out and its counts into r->aux; m is NULL when the
 * file could not be loaded (inference reads the model, hence not const). alone: the
 * run checks this one file (its section is complete; among many, a clean file is one
 * line and a file with findings lists only what they are about). */
void html_file(file_result *r, osh_model *m, const osh_error *error, bool alone);
/* The whole document: policy, style, summary, filter, every file's section, script. */
void html_document(FILE *f, const file_result *files, size_t n, const check_totals *t);

#endif
