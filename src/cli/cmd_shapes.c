/* cmd_shapes.c: `onnxshape shapes MODEL...` (also `print --values`): every value of
 * a model with the type and shape inference gives it, as an aligned table or JSON.
 *
 * The table is built whole before it is printed, so its columns fit the longest
 * entry of the model; findings are check's business: only errors are printed (on
 * stderr), as what makes the shapes unreliable, and they make the exit status 1.
 */
#define _GNU_SOURCE /* asprintf */
#include "check.h"
#include "model_values.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
	"usage: onnxshape shapes [options] MODEL...\n"
	"\n"
	"Infer every shape and list every value of each model: graph inputs, what each\n"
	"node produces, subgraphs' values with their graph's path, with its element type\n"
	"and shape. MODEL '-' reads standard input; a directory is searched for *.onnx\n"
	"as check searches it. Also: onnxshape print --values.\n"
	"\n"
	"options:\n"
	"      --format FORMAT       text (default) or json (docs/schemas/shapes.json)\n"
	"  -o, --output FILE         write the listing to FILE (atomically; left as it\n"
	"                            was on a usage or write error)\n"
	"  -q, --quiet               list nothing: only errors (stderr) and the exit\n"
	"                            status\n"
	"      --initializers        list the initializers (weights) too\n"
	"      --input-shape NAME:D,D,...\n"
	"                            override a graph input's shape; D is a size, a\n"
	"                            symbol, or ? (repeatable); a model found in a\n"
	"                            directory without input NAME gets a note instead\n"
	"      --assume SYMBOL=SIZE  bind a symbolic dimension everywhere (repeatable)\n"
	"      --constant-initializers\n"
	"                            take initializers that are also graph inputs (IR 3\n"
	"                            lists them all so) as constants\n"
	"      --error CODE, --warn CODE, --ignore CODE\n"
	"                            change a code's severity, or drop it (repeatable)\n"
	"      --color=WHEN          colour diagnostics: auto (default; not with NO_COLOR\n"
	"                            set or TERM=dumb), always, never\n"
	"      --memory-budget SIZE  most memory a model may take (512M, 4G...)\n"
	"  -h, --help                show this help\n"
	"\n"
	"exit status: 0 listed; 1 a model has errors (printed on stderr); 2 a model could\n"
	"not be read, or a usage error.\n";

typedef struct shapes_opts {
	bool json, initializers, quiet;
	style st;
	uint64_t budget;
	infer_args args;
	severities sev;
} shapes_opts;

/* One line of the table, its cells malloc'd. */
typedef struct row {
	char *graph, *name, *source, *type;
	bool is_output;
} row;

typedef struct table {
	const shapes_opts *o;
	row *rows;
	size_t n, cap;
	bool nomem;
	FILE *json;   /* JSON: each value is written as it comes */
	size_t count; /* JSON: values written */
} table;

static char *source_of(const model_value *v)
{
	char *s = NULL;
	if (v->source == SRC_INPUT)
		return strdup(v->elements ? "input (initializer)" : "input");
	if (v->source == SRC_INITIALIZER)
		return strdup("initializer");
	char *op = text_dup(v->op_type);
	if (op && asprintf(&s, "node %lld (%s)", (long long)v->node_index, op) < 0)
		s = NULL;
	free(op);
	return s;
}

static void json_value(FILE *f, const model_value *v, size_t i)
{
	static const char *const sources[] = {"input", "initializer", "node"};
	fputs(i ? ",\n   {\"graph\": " : "\n   {\"graph\": ", f);
	json_string(f, v->graph);
	fputs(", \"name\": ", f);
	json_string(f, v->name);
	fprintf(f, ", \"source\": \"%s\", \"node_index\": ", sources[v->source]);
	if (v->source == SRC_NODE) {
		fprintf(f, "%lld, \"op_type\": ", (long long)v->node_index);
		json_string(f, v->op_type);
	} else {
		fputs("null, \"op_type\": null", f);
	}
	fprintf(f, ", \"output\": %s, \"kind\": ", v->is_output ? "true" : "false");
	json_string(f, v->type.kind);
	fputs(", \"elem_type\": ", f);
	const char *et = osh_elem_type_name(v->type.elem_type);
	if (et && v->type.kind[0])
		json_string(f, et);
	else
		fputs("null", f);
	fputs(", \"shape\": ", f);
	json_shape(f, &v->type);
	fputc('}', f);
}

static bool add_value(void *ctx, const model_value *v)
{
	table *t = ctx;
	if (v->source == SRC_INITIALIZER && !t->o->initializers)
		return true;
	if (t->json) {
		json_value(t->json, v, t->count++);
		return true;
	}
	if (!grow_array(&t->rows, t->n, &t->cap, sizeof *t->rows)) {
		t->nomem = true;
		return false;
	}
	char type[1024];
	format_type_shape(type, sizeof type, &v->type);
	/* Escaped for the terminal (escape.c) before the columns are measured. */
	row r = {text_dup(v->graph), text_dup(v->name), source_of(v), text_dup(type), v->is_output};
	t->rows[t->n++] = r;
	t->nomem |= !r.graph || !r.name || !r.source || !r.type;
	return !t->nomem;
}

static size_t width(const row *rows, size_t n, size_t off, size_t least)
{
	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(*(char *const *)((const char *)&rows[i] + off));
		least = w > least ? w : least;
	}
	return least;
}

/* The table: a graph column only when some value lives in a subgraph. */
static void print_table(const table *t)
{
	bool sub = false;
	for (size_t i = 0; i < t->n; i++)
		sub |= t->rows[i].graph[0] != '\0';
	int wg = (int)width(t->rows, t->n, offsetof(row, graph), 5), wn = (int)width(t->rows, t->n, offsetof(row, name), 5),
	    ws = (int)width(t->rows, t->n, offsetof(row, source), 6);
	if (sub)
		printf("%-*s  ", wg, "graph");
	printf("%-*s  %-*s  %s\n", wn, "value", ws, "source", "type");
	for (size_t i = 0; i < t->n; i++) {
		const row *r = &t->rows[i];
		if (sub)
			printf("%-*s  ", wg, r->graph[0] ? r->graph : "-");
		printf("%-*s  %-*s  %s%s\n", wn, r->name, ws, r->source, r->type, r->is_output ? "  (output)" : "");
	}
}

static void table_free(table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].graph), free(t->rows[i].name), free(t->rows[i].source), free(t->rows[i].type);
	free(t->rows);
}

/* Loads, infers and lists one model. Returns its exit status. */
static int shapes_one(const shapes_opts *o, const char *path, bool walked, bool several, size_t *listed)
{
	int status;
	cli_load lo = {.lo = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = o->budget}};
	int guard = input_guard_claim(shown_path(path), &lo);
	osh_model *m = load_or_report(path, &lo, &o->st, &status);
	if (!m) {
		input_guard_release(guard);
		return status;
	}
	osh_error err = {0};
	osh_infer_options io = {.version = OSH_INFER_OPTIONS_VERSION};
	infer_args_apply(&o->args, &io);
	osh_input_shape *kept = NULL;
	if (walked && !input_shapes_for(m, shown_path(path), &io, &kept)) {
		fprintf(stderr, "%s: error: out of memory\n", shown_path(path));
		osh_model_free(m);
		input_guard_release(guard);
		return EXIT_TROUBLE;
	}
	osh_status inferred = osh_infer(m, &io, &err);
	free(kept);
	if (inferred != OSH_OK ||
	    (o->sev.n && osh_model_override_severities(m, o->sev.v, o->sev.n, &err) != OSH_OK)) {
		print_error(stderr, &o->st, &err);
		osh_model_free(m);
		input_guard_release(guard);
		return EXIT_TROUBLE;
	}
	print_diag_span(stderr, &o->st, shown_path(path), m, 0, true);
	status = osh_model_has_errors(m) ? EXIT_FINDINGS : EXIT_CLEAN;
	if (o->quiet) {
		osh_model_free(m);
		input_guard_release(guard);
		return status;
	}
	table t = {.o = o, .json = o->json ? stdout : NULL};
	size_t index = (*listed)++;
	if (o->json) {
		fputs(index ? ",\n {\"path\": " : " {\"path\": ", stdout);
		json_string(stdout, shown_path(path));
		fputs(", \"values\": [", stdout);
	}
	bool ok = model_values(m, add_value, &t) && !t.nomem;
	if (o->json) {
		fputs(t.count ? "\n  ]}" : "]}", stdout);
	} else if (ok) {
		if (several) {
			fputs(index ? "\n" : "", stdout);
			put_text(stdout, shown_path(path));
			fputs(":\n", stdout);
		}
		print_table(&t);
	}
	if (!ok) {
		fprintf(stderr, "%s: error: out of memory listing the values\n", shown_path(path));
		status = EXIT_TROUBLE;
	}
	table_free(&t);
	osh_model_free(m);
	input_guard_release(guard);
	return status;
}

int cmd_shapes(int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_INITIALIZERS, OPT_INPUT_SHAPE, OPT_ASSUME, OPT_ERROR, OPT_WARN, OPT_IGNORE,
	       OPT_COLOR, OPT_MEMORY_BUDGET, OPT_CONSTANT_INITIALIZERS };
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"initializers", no_argument, NULL, OPT_INITIALIZERS},
		{"input-shape", required_argument, NULL, OPT_INPUT_SHAPE},
		{"assume", required_argument, NULL, OPT_ASSUME},
		{"error", required_argument, NULL, OPT_ERROR},
		{"warn", required_argument, NULL, OPT_WARN},
		{"ignore", required_argument, NULL, OPT_IGNORE},
		{"color", required_argument, NULL, OPT_COLOR},
		{"memory-budget", required_argument, NULL, OPT_MEMORY_BUDGET},
		{"constant-initializers", no_argument, NULL, OPT_CONSTANT_INITIALIZERS},
		{0},
	};
	shapes_opts o = {0};
	const char *color = NULL, *output = NULL;
	int c, status = -1;
	while (status < 0 && (c = getopt_long(argc, argv, ":ho:q", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help, stdout);
			status = EXIT_CLEAN;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				status = usage_error("shapes", "--format must be text or json");
			o.json = !strcmp(optarg, "json");
			break;
		case OPT_INITIALIZERS: o.initializers = true; break;
		case OPT_CONSTANT_INITIALIZERS: o.args.constant_initializers = true; break;
		case 'o': output = optarg; break;
		case 'q': o.quiet = o.st.quiet = true; break;
		case OPT_INPUT_SHAPE:
			if (!infer_args_add_shape(&o.args, optarg))
				status = usage_error("shapes", "bad --input-shape value '%s' (expected NAME:D,D,...)", optarg);
			break;
		case OPT_ASSUME:
			if (!infer_args_add_assume(&o.args, optarg))
				status = usage_error("shapes", "bad --assume value '%s' (expected SYMBOL=SIZE)", optarg);
			break;
		case OPT_ERROR:
		case OPT_WARN:
		case OPT_IGNORE:
			if (!severities_add(&o.sev, "shapes", optarg, c == OPT_IGNORE,
					    c == OPT_ERROR ? OSH_ERROR : c == OPT_WARN ? OSH_WARNING : OSH_NOTE))
				status = EXIT_TROUBLE;
			break;
		case OPT_COLOR: color = optarg; break;
		case OPT_MEMORY_BUDGET:
			if (!parse_bytes(optarg, &o.budget))
				status = usage_error("shapes", "bad --memory-budget '%s' (expected bytes, or 512M, 4G...)", optarg);
			break;
		default:
			status = bad_option("shapes", c, argv, longs);
			break;
		}
	}
	if (status < 0 && !parse_color(color, 2, &o.st))
		status = usage_error("shapes", "--color must be auto, always or never");
	if (status < 0 && optind >= argc)
		status = usage_error("shapes", "no model given ('-' reads standard input)");
	path_list files = {0};
	report_out out = {0};
	if (status < 0 && !collect_models(&(walk_opts){0}, argv + optind, argc - optind, &files)) {
		fprintf(stderr, "onnxshape shapes: error: out of memory\n");
		status = EXIT_TROUBLE;
	}
	if (status < 0 && report_out_is_input(output, &files))
		status = usage_error("shapes", "-o %s would replace a model being listed", output);
	if (status < 0 && !report_out_open(&out, "shapes", output))
		status = EXIT_TROUBLE;
	if (status < 0) {
		status = EXIT_CLEAN;
		size_t listed = 0;
		progress pg;
		progress_start(&pg, files.n, o.quiet);
		if (o.json && !o.quiet)
			fputs("{\"version\": 1,\n \"files\": [\n", stdout);
		for (size_t i = 0; i < files.n; i++) {
			int s;
			progress_clear(&pg);
			if (files.err[i]) {
				fprintf(stderr, "onnxshape shapes: error: %s: %s\n", files.v[i],
					files.err[i] == WALK_EMPTY ? "no model (*.onnx) found under this directory"
								   : strerror(files.err[i]));
				s = EXIT_TROUBLE;
			} else {
				s = shapes_one(&o, files.v[i], files.rel[i] >= 0, files.n > 1, &listed);
			}
			status = s > status ? s : status;
			progress_step(&pg, files.v[i]);
		}
		progress_clear(&pg);
		if (o.json && !o.quiet)
			fputs("\n]}\n", stdout);
		status = report_out_close(&out, "shapes", status, true);
	}
	path_list_free(&files);
	infer_args_free(&o.args);
	severities_free(&o.sev);
	return status;
}
