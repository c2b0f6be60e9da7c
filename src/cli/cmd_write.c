/* cmd_write.c: the subcommands that load a model, run passes and write it back:
 * `infer` and `rewrite`. They share option parsing and the write discipline: an
 * output path (-o) or an explicit --in-place, nothing written when the model is
 * malformed or has errors, and the write itself atomic (the library's job).
 */
#include "cli.h"

#include <getopt.h>
#include <string.h>

typedef struct write_cmd {
	const char *name;
	const char *help;
} write_cmd;

static const write_cmd infer_cmd = {
	"infer",
	"usage: onnxshape infer [options] MODEL -o OUT\n"
	"\n"
	"Infer the shape of every value and write the model with them to OUT.\n"
	"(This version validates the model and writes it back unchanged.)\n"
	"\n"
	"options:\n"
	"  -o, --output OUT   where to write the model (required unless --in-place)\n"
	"      --in-place     write over MODEL itself (atomically)\n"
	"      --color=WHEN   colour diagnostics: auto (default), always, never\n"
	"  -h, --help         show this help\n",
};

static const write_cmd rewrite_cmd = {
	"rewrite",
	"usage: onnxshape rewrite [options] MODEL -o OUT\n"
	"\n"
	"Rewrite Paddle-style and legacy axis broadcasting into standard ONNX and write\n"
	"the model to OUT. A model with nothing to rewrite is written back byte-identical.\n"
	"(This version validates the model and writes it back unchanged.)\n"
	"\n"
	"options:\n"
	"  -o, --output OUT   where to write the model (required unless --in-place)\n"
	"      --in-place     write over MODEL itself (atomically)\n"
	"      --color=WHEN   colour diagnostics: auto (default), always, never\n"
	"  -h, --help         show this help\n",
};

static int run(const write_cmd *cmd, int argc, char **argv)
{
	enum { OPT_IN_PLACE = 256, OPT_COLOR, OPT_REPACK };
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"output", required_argument, NULL, 'o'},
		{"in-place", no_argument, NULL, OPT_IN_PLACE},
		{"color", required_argument, NULL, OPT_COLOR},
		/* Undocumented, for tests: serialize even an unchanged model. */
		{"repack", no_argument, NULL, OPT_REPACK},
		{0},
	};
	const char *out = NULL, *color = NULL;
	osh_write_options wo = {0};
	int c;
	while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(cmd->help, stdout);
			return EXIT_CLEAN;
		case 'o':
			out = optarg;
			break;
		case OPT_IN_PLACE:
			wo.in_place = true;
			break;
		case OPT_COLOR:
			color = optarg;
			break;
		case OPT_REPACK:
			wo.force_pack = true;
			break;
		default:
			fputs(cmd->help, stderr);
			return EXIT_TROUBLE;
		}
	}
	style st = {0};
	if (!parse_color(color, 2, &st)) {
		fprintf(stderr, "onnxshape %s: error: --color must be auto, always or never\n", cmd->name);
		return EXIT_TROUBLE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "onnxshape %s: error: expected exactly one MODEL\n", cmd->name);
		fputs(cmd->help, stderr);
		return EXIT_TROUBLE;
	}
	const char *in = argv[optind];
	if (!out && !wo.in_place) {
		fprintf(stderr, "onnxshape %s: error: say where to write: -o OUT, or --in-place\n", cmd->name);
		return EXIT_TROUBLE;
	}
	if (!out)
		out = in;
	int status;
	osh_model *m = load_or_report(in, &st, &status);
	if (!m)
		return status;
	if (status != EXIT_CLEAN) {
		fprintf(stderr, "%s: note: the model has errors; nothing written to '%s'\n", in, out);
		osh_model_free(m);
		return status;
	}
	osh_error err = {0};
	if (osh_model_write(m, out, &wo, &err) != OSH_OK) {
		print_error(stderr, &st, &err);
		osh_model_free(m);
		return EXIT_TROUBLE;
	}
	osh_model_free(m);
	return EXIT_CLEAN;
}

int cmd_infer(int argc, char **argv) { return run(&infer_cmd, argc, argv); }
int cmd_rewrite(int argc, char **argv) { return run(&rewrite_cmd, argc, argv); }
