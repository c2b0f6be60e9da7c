/* cmd_print.c: `onnxshape print MODEL...`, a readable summary of what a file holds. */
#include "cli.h"

#include <getopt.h>
#include <string.h>

static const char help[] =
	"usage: onnxshape print [options] MODEL...\n"
	"\n"
	"Print a summary of each model: IR version, producer, opsets, graph inputs and\n"
	"outputs with their declared types and shapes, node count per operator, and\n"
	"initializer count and bytes (external data marked).\n"
	"\n"
	"options:\n"
	"  --color=WHEN   colour diagnostics: auto (default), always, never\n"
	"  --memory-budget SIZE\n"
	"                 most memory a model may take (512M, 4G...)\n"
	"  -h, --help     show this help\n";

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

static void print_values(const char *title, const osh_value_summary *vs, size_t n)
{
	printf("%s (%zu):\n", title, n);
	for (size_t i = 0; i < n; i++) {
		char buf[1024];
		format_type_shape(buf, sizeof buf, &vs[i].type);
		printf("  %-24s %s\n", vs[i].name, buf);
	}
}

static void print_summary(const char *path, const osh_summary *s)
{
	printf("%s\n", path);
	printf("  ir_version: %lld\n", (long long)s->ir_version);
	if (s->producer_name[0] || s->producer_version[0])
		printf("  producer:   %s %s\n", s->producer_name, s->producer_version);
	if (s->graph_name[0])
		printf("  graph:      %s\n", s->graph_name);
	printf("  opsets:    ");
	for (size_t i = 0; i < s->n_opsets; i++)
		printf(" %s %lld%s", s->opsets[i].domain[0] ? s->opsets[i].domain : "ai.onnx",
		       (long long)s->opsets[i].version, i + 1 < s->n_opsets ? "," : "");
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
		printf("  %-24s %zu\n", name, o->count);
	}
	char inl[32], ext[32];
	human_bytes(inl, sizeof inl, s->initializer_bytes);
	human_bytes(ext, sizeof ext, s->external_bytes);
	printf("initializers: %zu, %s inline", s->n_initializers - s->n_external, inl);
	if (s->n_external)
		printf(", %zu external (%s, not read)", s->n_external, ext);
	printf("\n");
}

int cmd_print(int argc, char **argv)
{
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"color", required_argument, NULL, 'C'},
		{"memory-budget", required_argument, NULL, 'M'},
		{0}};
	style st = {0};
	const char *color = NULL;
	uint64_t budget = 0;
	int c;
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return EXIT_CLEAN;
		}
		if (c == 'C') {
			color = optarg;
		} else if (c == 'M') {
			if (!parse_bytes(optarg, &budget)) {
				fprintf(stderr, "onnxshape print: error: bad --memory-budget '%s' (expected bytes, or 512M, 4G...)\n",
					optarg);
				return EXIT_TROUBLE;
			}
		} else {
			fputs(help, stderr);
			return EXIT_TROUBLE;
		}
	}
	if (!parse_color(color, 2, &st)) {
		fprintf(stderr, "onnxshape: error: --color must be auto, always or never\n");
		return EXIT_TROUBLE;
	}
	if (optind >= argc) {
		fputs(help, stderr);
		return EXIT_TROUBLE;
	}
	int worst = EXIT_CLEAN;
	for (int i = optind; i < argc; i++) {
		int status;
		osh_load_options lo = {.memory_budget = budget};
		int guard = input_guard_claim(argv[i], &lo);
		osh_model *m = load_or_report(argv[i], &lo, &st, &status);
		if (status > worst)
			worst = status;
		if (!m) {
			input_guard_release(guard);
			continue;
		}
		const osh_summary *s = osh_model_summary(m);
		if (s) {
			if (i > optind)
				printf("\n");
			print_summary(argv[i], s);
		}
		osh_model_free(m);
		input_guard_release(guard);
	}
	return worst;
}
