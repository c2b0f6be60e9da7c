/* cmd_print.c: `onnxshape print MODEL...`, a readable summary of what a file holds,
 * or the same as JSON (--format json, docs/schemas/print.json). `print --values` is
 * `shapes` (cmd_shapes.c). */
#include "check.h"
#include "model_values.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char help[] =
	"usage: onnxshape print [options] MODEL...\n"
	"\n"
	"Print a summary of each model: IR version, producer, opsets, graph inputs and\n"
	"outputs with their declared types and shapes, node count per operator, and\n"
	"initializer count and bytes (external data marked), and the parameters: the\n"
	"elements of every initializer, with their bytes by element type. MODEL '-'\n"
	"reads standard input; a directory is searched for *.onnx as check searches it.\n"
	"\n"
	"options:\n"
	"  --values       list every value with its inferred type and shape instead\n"
	"                 (onnxshape shapes; its options apply)\n"
	"  --format FORMAT\n"
	"                 text (default) or json (docs/schemas/print.json)\n"
	"  -o, --output FILE\n"
	"                 write the summary to FILE (atomically; left as it was on a\n"
	"                 usage or write error)\n"
	"  -q, --quiet    print nothing: only errors (stderr) and the exit status\n"
	"  --color=WHEN   colour diagnostics: auto (default; not with NO_COLOR set or\n"
	"                 TERM=dumb), always, never\n"
	"  --memory-budget SIZE\n"
	"                 most memory a model may take (512M, 4G...)\n"
	"  -h, --help     show this help\n"
	"\n"
	"exit status: 0 printed; 1 a model has errors; 2 a model could not be read, or a\n"
	"usage error.\n";

static void human_bytes(char *buf, size_t cap, uint64_t b)
{
	static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	int u = 0;
	while (v >= 1024 && u < 4)
		v /= 1024, u++;
	if (u == 0)
		snprintf(buf, cap, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, cap, "%.1f %s", v, unit[u]);
}

/* s as put_text writes it, padded with spaces to `width` bytes. */
static void put_padded(const char *s, int width)
{
	char *e = text_dup(s);
	printf("%-*s", width, e ? e : "?");
	free(e);
}

static void print_values(const char *title, const osh_value_summary *vs, size_t n)
{
	printf("%s (%zu):\n", title, n);
	for (size_t i = 0; i < n; i++) {
		char buf[1024];
		format_type_shape(buf, sizeof buf, &vs[i].type);
		fputs("  ", stdout);
		put_padded(vs[i].name, 24);
		putchar(' ');
		put_text(stdout, buf);
		putchar('\n');
	}
}

/* Elements and bytes of the initializers of one element type. */
typedef struct param_count {
	int32_t elem_type;
	uint64_t elements, bytes;
} param_count;

typedef struct params {
	param_count by_type[64];
	size_t n;
	uint64_t elements;
} params;

static bool count_param(void *ctx, const model_value *v)
{
	params *p = ctx;
	if (!v->elements && v->source != SRC_INITIALIZER)
		return true;
	p->elements += (uint64_t)v->elements;
	size_t i = 0;
	while (i < p->n && p->by_type[i].elem_type != v->type.elem_type)
		i++;
	if (i == p->n && p->n < sizeof p->by_type / sizeof p->by_type[0])
		p->by_type[p->n++] = (param_count){v->type.elem_type, 0, 0};
	if (i < p->n) {
		p->by_type[i].elements += (uint64_t)v->elements;
		p->by_type[i].bytes += v->bytes;
	}
	return true;
}

/* "parameters: 1234 (FLOAT 1200, 4.7 KiB; INT64 34, 272 B)": every initializer's
 * elements (subgraphs' too), and what they take by element type. */
static void print_params(osh_model *m)
{
	params p = {0};
	if (!model_values(m, count_param, &p))
		return;
	printf("parameters: %llu", (unsigned long long)p.elements);
	for (size_t i = 0; i < p.n; i++) {
		char b[32];
		const char *et = osh_elem_type_name(p.by_type[i].elem_type);
		human_bytes(b, sizeof b, p.by_type[i].bytes);
		printf("%s%s %llu, %s", i ? "; " : " (", et ? et : "?", (unsigned long long)p.by_type[i].elements, b);
	}
	printf("%s\n", p.n ? ")" : "");
}

/* What a model names is escaped (put_text, escape.c): the summary is for a terminal. */
static void print_summary(const char *path, const osh_summary *s)
{
	put_text(stdout, path);
	printf("\n  ir_version: %lld\n", (long long)s->ir_version);
	if (s->producer_name[0] || s->producer_version[0]) {
		fputs("  producer:   ", stdout);
		put_text(stdout, s->producer_name);
		putchar(' ');
		put_text(stdout, s->producer_version);
		putchar('\n');
	}
	if (s->graph_name[0]) {
		fputs("  graph:      ", stdout);
		put_text(stdout, s->graph_name);
		putchar('\n');
	}
	printf("  opsets:    ");
	for (size_t i = 0; i < s->n_opsets; i++) {
		putchar(' ');
		put_text(stdout, s->opsets[i].domain[0] ? s->opsets[i].domain : "ai.onnx");
		printf(" %lld%s", (long long)s->opsets[i].version, i + 1 < s->n_opsets ? "," : "");
	}
	printf("\n");
	print_values("inputs", s->inputs, s->n_inputs);
	print_values("outputs", s->outputs, s->n_outputs);
	printf("nodes: %zu", s->n_nodes);
	if (s->n_nodes_total != s->n_nodes)
		printf(" (%zu with %zu subgraph%s and %zu function%s)", s->n_nodes_total, s->n_subgraphs,
		       s->n_subgraphs == 1 ? "" : "s", s->n_functions, s->n_functions == 1 ? "" : "s");
	printf("\n");
	for (size_t i = 0; i < s->n_op_counts; i++) {
		const osh_op_count *o = &s->op_counts[i];
		char name[512];
		snprintf(name, sizeof name, "%s%s%s", o->domain, o->domain[0] ? "::" : "", o->op_type);
		fputs("  ", stdout);
		put_padded(name, 24);
		printf(" %zu\n", o->count);
	}
	char inl[32], ext[32];
	human_bytes(inl, sizeof inl, s->initializer_bytes);
	human_bytes(ext, sizeof ext, s->external_bytes);
	printf("initializers: %zu, %s inline", s->n_initializers - s->n_external, inl);
	if (s->n_external)
		printf(", %zu external (%s, not read)", s->n_external, ext);
	printf("\n");
}

/* ---- --format json -------------------------------------------------------------------- */

static void json_values(const osh_value_summary *vs, size_t n)
{
	fputs("[", stdout);
	for (size_t i = 0; i < n; i++) {
		const char *et = osh_elem_type_name(vs[i].type.elem_type);
		fputs(i ? ", {\"name\": " : "{\"name\": ", stdout);
		json_string(stdout, vs[i].name);
		fputs(", \"kind\": ", stdout);
		json_string(stdout, vs[i].type.kind);
		fputs(", \"elem_type\": ", stdout);
		if (et && vs[i].type.kind[0])
			json_string(stdout, et);
		else
			fputs("null", stdout);
		fputs(", \"shape\": ", stdout);
		json_shape(stdout, &vs[i].type);
		fputs("}", stdout);
	}
	fputs("]", stdout);
}

/* One element of "files": what print_summary and print_params say, as data. */
static void json_summary(const char *path, const osh_summary *s, osh_model *m, size_t index)
{
	fputs(index ? ",\n {\"path\": " : " {\"path\": ", stdout);
	json_string(stdout, path);
	printf(", \"ir_version\": %lld, \"producer_name\": ", (long long)s->ir_version);
	json_string(stdout, s->producer_name);
	fputs(", \"producer_version\": ", stdout);
	json_string(stdout, s->producer_version);
	fputs(", \"graph\": ", stdout);
	json_string(stdout, s->graph_name);
	fputs(",\n  \"opsets\": [", stdout);
	for (size_t i = 0; i < s->n_opsets; i++) {
		fputs(i ? ", {\"domain\": " : "{\"domain\": ", stdout);
		json_string(stdout, s->opsets[i].domain);
		printf(", \"version\": %lld}", (long long)s->opsets[i].version);
	}
	fputs("],\n  \"inputs\": ", stdout);
	json_values(s->inputs, s->n_inputs);
	fputs(",\n  \"outputs\": ", stdout);
	json_values(s->outputs, s->n_outputs);
	printf(",\n  \"nodes\": %zu, \"nodes_total\": %zu, \"subgraphs\": %zu, \"functions\": %zu,\n  \"operators\": [",
	       s->n_nodes, s->n_nodes_total, s->n_subgraphs, s->n_functions);
	for (size_t i = 0; i < s->n_op_counts; i++) {
		fputs(i ? ", {\"domain\": " : "{\"domain\": ", stdout);
		json_string(stdout, s->op_counts[i].domain);
		fputs(", \"op_type\": ", stdout);
		json_string(stdout, s->op_counts[i].op_type);
		printf(", \"count\": %zu}", s->op_counts[i].count);
	}
	printf("],\n  \"initializers\": {\"count\": %zu, \"inline\": %zu, \"inline_bytes\": %llu, \"external\": %zu, "
	       "\"external_bytes\": %llu}",
	       s->n_initializers, s->n_initializers - s->n_external, (unsigned long long)s->initializer_bytes,
	       s->n_external, (unsigned long long)s->external_bytes);
	params p = {0};
	bool counted = model_values(m, count_param, &p);
	fputs(",\n  \"parameters\": ", stdout);
	if (!counted) {
		fputs("null}", stdout);
		return;
	}
	printf("{\"elements\": %llu, \"by_type\": [", (unsigned long long)p.elements);
	for (size_t i = 0; i < p.n; i++) {
		const char *et = osh_elem_type_name(p.by_type[i].elem_type);
		fputs(i ? ", {\"elem_type\": " : "{\"elem_type\": ", stdout);
		if (et)
			json_string(stdout, et);
		else
			fputs("null", stdout);
		printf(", \"elements\": %llu, \"bytes\": %llu}", (unsigned long long)p.by_type[i].elements,
		       (unsigned long long)p.by_type[i].bytes);
	}
	fputs("]}}", stdout);
}

/* argv without its --values (before any "--"), for shapes; NULL when there is none
 * or memory ran out. */
static char **without_values(int argc, char **argv, bool *found)
{
	*found = false;
	char **v = calloc((size_t)argc + 1, sizeof *v);
	int n = 0;
	for (int i = 0; v && i < argc; i++) {
		bool opts_end = false;
		for (int k = 1; k < i; k++)
			opts_end |= !strcmp(argv[k], "--");
		if (i > 0 && !opts_end && !strcmp(argv[i], "--values"))
			*found = true;
		else
			v[n++] = argv[i];
	}
	if (v && *found)
		return v;
	free(v);
	return NULL;
}

int cmd_print(int argc, char **argv)
{
	bool values;
	char **shapes_argv = without_values(argc, argv, &values);
	if (values) {
		int status = shapes_argv ? cmd_shapes(argc - 1, shapes_argv) : EXIT_TROUBLE;
		free(shapes_argv);
		return status;
	}
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"color", required_argument, NULL, 'C'},
		{"memory-budget", required_argument, NULL, 'M'},
		{"format", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{0}};
	style st = {0};
	const char *color = NULL, *output = NULL;
	uint64_t budget = 0;
	bool json = false, quiet = false;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:q", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return EXIT_CLEAN;
		}
		if (c == 'C') {
			color = optarg;
		} else if (c == 'o') {
			output = optarg;
		} else if (c == 'q') {
			quiet = st.quiet = true;
		} else if (c == 'F') {
			if (strcmp(optarg, "text") && strcmp(optarg, "json"))
				return usage_error("print", "--format must be text or json");
			json = !strcmp(optarg, "json");
		} else if (c == 'M') {
			if (!parse_bytes(optarg, &budget)) {
				return usage_error("print", "bad --memory-budget '%s' (expected bytes, or 512M, 4G...)", optarg);
			}
		} else {
			return bad_option("print", c, argv, longs);
		}
	}
	if (!parse_color(color, 2, &st))
		return usage_error("print", "--color must be auto, always or never");
	if (optind >= argc)
		return usage_error("print", "no model given ('-' reads standard input)");
	path_list files = {0};
	if (!collect_models(&(walk_opts){0}, argv + optind, argc - optind, &files)) {
		path_list_free(&files);
		fprintf(stderr, "onnxshape print: error: out of memory\n");
		return EXIT_TROUBLE;
	}
	report_out out;
	if (report_out_is_input(output, &files) || !report_out_open(&out, "print", output)) {
		if (report_out_is_input(output, &files))
			usage_error("print", "-o %s would replace a model being printed", output);
		path_list_free(&files);
		return EXIT_TROUBLE;
	}
	int worst = EXIT_CLEAN;
	size_t printed = 0;
	progress pg;
	progress_start(&pg, files.n, quiet);
	if (json && !quiet)
		fputs("{\"version\": 1,\n \"files\": [\n", stdout);
	for (size_t i = 0; i < files.n; i++) {
		int status;
		const char *path = files.v[i];
		progress_clear(&pg);
		if (files.err[i]) {
			fprintf(stderr, "onnxshape print: error: %s: %s\n", path,
				files.err[i] == WALK_EMPTY ? "no model (*.onnx) found under this directory"
							   : strerror(files.err[i]));
			worst = EXIT_TROUBLE;
			continue;
		}
		cli_load lo = {.lo = {.version = OSH_LOAD_OPTIONS_VERSION, .memory_budget = budget}};
		int guard = input_guard_claim(shown_path(path), &lo);
		osh_model *m = load_or_report(path, &lo, &st, &status);
		if (status > worst)
			worst = status;
		if (!m) {
			input_guard_release(guard);
			progress_step(&pg, path);
			continue;
		}
		const osh_summary *s = osh_model_summary(m);
		if (s && !quiet && json) {
			json_summary(shown_path(path), s, m, printed++);
		} else if (s && !quiet) {
			if (printed++)
				printf("\n");
			print_summary(shown_path(path), s);
			print_params(m);
		} else if (!s) {
			fprintf(stderr, "onnxshape print: error: %s: out of memory\n", shown_path(path));
			worst = EXIT_TROUBLE;
		}
		osh_model_free(m);
		input_guard_release(guard);
		progress_step(&pg, path);
	}
	progress_clear(&pg);
	if (json && !quiet)
		fputs("\n]}\n", stdout);
	path_list_free(&files);
	return report_out_close(&out, "print", worst, true);
}
