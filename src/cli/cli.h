/* cli.h: what the subcommands of the onnxshape tool share.
 *
 * The CLI is a client of the public header (include/onnxshape.h): it parses
 * arguments, calls the library, formats diagnostics and chooses the exit status.
 * One exception, model_values.c, lists a model's values from the library's IR
 * until the public header can.
 */
#ifndef OSH_CLI_H
#define OSH_CLI_H

#include "onnxshape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Stable exit statuses. */
enum {
	EXIT_CLEAN = 0,     /* success, no errors found */
	EXIT_FINDINGS = 1,  /* the model has errors */
	EXIT_TROUBLE = 2,   /* usage error, unreadable or malformed input, write failure */
};

typedef struct style {
	bool color;
	bool quiet; /* -q: of the model's findings, only errors are printed */
} style;

/* --color=auto|always|never; auto means "if fd is a terminal". Returns false on a
 * bad value. */
bool parse_color(const char *arg, int fd, style *st);

/* The bytes of a model's strings in a report (escape.c says which characters are
 * escaped, and why). utf8_seq: the length of the valid UTF-8 sequence at p (>=
 * 0x80), or 0: no overlongs, no surrogates, nothing past U+10FFFF; reads no further
 * than a byte that ends it. utf8_code_point: the code point of such a sequence of n
 * bytes. hidden_char: whether code point c is one that is escaped although valid
 * (C1 controls, line and paragraph separators, bidirectional formatting). */
size_t utf8_seq(const unsigned char *p);
uint32_t utf8_code_point(const unsigned char *p, size_t n);
bool hidden_char(uint32_t c);
/* s (NULL: nothing; put_text_n: its first len bytes) for a terminal or a log, on one
 * line: \n, \t and \xNN for the C0 controls, DEL and bytes that are not UTF-8,
 * \uNNNN for the hidden characters. text_dup: the same into a string from malloc,
 * NULL when memory ran out. */
void put_text(FILE *f, const char *s);
void put_text_n(FILE *f, const char *s, size_t len);
char *text_dup(const char *s);

/* "model.onnx: graph 'If_1/then_branch': node 3 'Add_3' (Add): error: ... [code]" */
void print_diag(FILE *f, const style *st, const char *path, const osh_diag *d);
/* Prints the model's diagnostics from index `from` on (only its errors with
 * errors_only), f's descriptor written a block at a time. */
void print_diag_span(FILE *f, const style *st, const char *path, const osh_model *m, size_t from, bool errors_only);
void print_error(FILE *f, const style *st, const osh_error *err);
/* The library's message in the tool's terms: the option it names is the flag that
 * sets it (osh_load_options.memory_budget is --memory-budget). */
void error_in_cli_terms(osh_error *err);

/* How the tool loads a model: the public options, and whether the file is mapped
 * (input_guard_claim sets it), with the hook told where. */
typedef struct cli_load {
	osh_load_options lo;
	bool map;
	void (*on_map)(void *ctx, const void *addr, size_t size);
	void *map_ctx;
} cli_load;

/* Loads a model ("-": standard input), printing every diagnostic to stderr. Returns NULL
 * (after printing why) when the file cannot be read or the model is malformed;
 * *status gets the exit status to use then. */
osh_model *load_or_report(const char *path, const cli_load *how, const style *st, int *status);

/* The models the tool reads are mapped (osh_model_load_mapped, api/devices.h), and a
 * SIGBUS from one truncated meanwhile ends the run with exit 2 and a message naming
 * it (input_guard.c). install: once, in main. claim: before loading `path` (which
 * must outlive the claim), sets how's mapping fields; returns the slot to release
 * once the model is freed, or -1 (then how asks for a copy, which needs no guard). */
void input_guard_install(void);
int input_guard_claim(const char *path, cli_load *how);
void input_guard_release(int slot);

/* Standard output and error as the tool uses them (std_streams.c). open: first in
 * main: a descriptor 0, 1 or 2 the tool was started without gets a placeholder
 * (no file it opens takes its place), and stdout becomes a stream that keeps why a
 * write to it failed. close: last: flushes and closes standard output, and returns
 * status, or EXIT_TROUBLE after saying on stderr why what the command printed
 * could not be written ("onnxshape CMD: cannot write the report to standard output:
 * No space left on device"; cmd NULL: the tool's own help). */
void streams_open(void);
int streams_close(const char *cmd, int status);

/* --memory-budget SIZE: bytes, or with a suffix K, M, G or T (powers of 1024, "MiB"
 * and "MB" alike); false for anything else or 0. (parse_bytes.c) */
bool parse_bytes(const char *arg, uint64_t *out);

/* "(1, 3, N, ?)" into buf. */
void format_type_shape(char *buf, size_t cap, const osh_type *t);

/* Makes room for one more element in the array *pp (n used, *cap allocated),
 * doubling it; false when memory ran out (*pp is unchanged then). (cli_arrays.c) */
bool grow_array(void *pp, size_t n, size_t *cap, size_t size);

/* --input-shape NAME:D,D,... and --assume SYMBOL=SIZE (infer_args.c). The add
 * functions cut arg (which must outlive the arrays) in place and return false for a
 * malformed value or when memory runs out. */
typedef struct infer_args {
	osh_input_shape *shapes;
	size_t nshapes, cap_shapes;
	osh_assumption *assume;
	size_t nassume, cap_assume;
	bool constant_initializers; /* --constant-initializers */
} infer_args;
bool infer_args_add_shape(infer_args *a, char *arg);
bool infer_args_add_assume(infer_args *a, char *arg);
/* Points o's input shapes and assumptions at a's, and sets what a's flags ask. */
void infer_args_apply(const infer_args *a, osh_infer_options *o);
void infer_args_free(infer_args *a);

/* --input-data DIR / --input-value NAME=FILE.pb (input_values.c). */
typedef struct input_values {
	const char *data_dir;
	const char *names[256];
	const char *paths[256];
	size_t n;
} input_values;
bool parse_input_value(char *arg, input_values *iv);
/* Reads the files and gives them to the model; prints why and returns false on failure. */
bool apply_input_values(osh_model *m, const input_values *iv, const style *st);

/* --timings (timings.c): the wall time of each stage of one model, printed to stderr
 * (once its path is set) as "onnxshape: timings: PATH: load 0.712 ms, infer 0.141
 * ms, ...; 0.97 ms in all, 1014 nodes, 0.957 us a node". A lap ends a stage; `in all`
 * is the sum of the laps, from timings_start to the last lap. Off, every call does
 * nothing. */
#define TIMINGS_MAX 8
typedef struct timings {
	bool on;
	int n;
	double start, last; /* milliseconds, CLOCK_MONOTONIC */
	const char *stage[TIMINGS_MAX];
	double ms[TIMINGS_MAX];
	const char *path; /* the model's; NULL: nothing to print */
	size_t nodes;     /* 0: not loaded, not printed */
} timings;
void timings_start(timings *t, bool on);
void timings_lap(timings *t, const char *stage);
void timings_print(FILE *f, const timings *t);

/* The CLI is done with model m: frees it, unless it is the `last` thing the process
 * does before it exits (model_done.c). */
void model_done(osh_model *m, bool last);

/* The command running ("check", "shapes"...; NULL before main has chosen one), set
 * once by main (cli_set_command, before any thread starts), so that every message
 * the tool prints starts the same way: "onnxshape check: error: ...". cli_prefix:
 * "onnxshape check" (or "onnxshape"). */
extern const char *cli_command;
void cli_set_command(const char *name);
const char *cli_prefix(void);

/* A usage error, in the one style of every command: "onnxshape CMD: error: MESSAGE"
 * and the line "try 'onnxshape CMD --help'" (cmd NULL: the tool's own help), on
 * stderr. Returns EXIT_TROUBLE. (usage.c) */
int usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* The name of names closest to word (a typo away), or NULL when none is. */
const char *closest_name(const char *word, const char *const *names, size_t n);
/* What getopt_long refused (it returned '?' or ':', with opterr 0 and an optstring
 * starting with ':'), as a usage error for cmd: an unknown option with the nearest
 * of longs ("did you mean '--format'?"), an ambiguous abbreviation with its
 * candidates, or a missing value. Returns EXIT_TROUBLE. (usage.c) */
struct option;
int bad_option(const char *cmd, int c, char **argv, const struct option *longs);

/* --dump-after STAGE (dump_after.c): true when STAGE is one of cmd's stages;
 * otherwise, and for "help", prints a usage error for cmd listing them and returns
 * false. */
bool dump_after_valid(const char *cmd, const char *stage);

/* --error/--warn/--ignore CODE, as every command that reports takes them
 * (severity.c). add: prints a usage error for `cmd` and returns false for a code
 * that is not one, or malformed-model, or when memory runs out. */
typedef struct severities {
	osh_severity_override *v;
	size_t n, cap;
} severities;
bool severities_add(severities *s, const char *cmd, const char *code, bool ignore, osh_severity sev);
void severities_free(severities *s);

/* `-` as a model: standard input, and `-o -` (or -o /dev/stdout, or a path that is
 * stdout's file) standard output (stdio_model.c). */
bool is_stdin_path(const char *path);
/* Whether writing to `out` means writing to standard output. */
bool is_stdout_path(const char *out);
/* osh_model_load, from standard input when path is "-" (named "<stdin>" then). */
osh_status load_model_from(osh_model **m, const char *path, const cli_load *how, osh_error *err);
/* The name reports give path: "<stdin>" for "-". */
const char *shown_path(const char *path);
/* Packs m onto standard output; false (after printing why) on failure. */
bool write_stdout(osh_model *m, const style *st);

int cmd_check(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_infer(int argc, char **argv);
int cmd_rewrite(int argc, char **argv);
int cmd_shapes(int argc, char **argv);
int cmd_version(int argc, char **argv);

#endif
