/* main.c: the onnxshape command: dispatch to a subcommand. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} commands[] = {
	{"check", cmd_check, "validate models and report problems (exit 1 on errors)"},
	{"infer", cmd_infer, "infer shapes and write them into the model"},
	{"rewrite", cmd_rewrite, "rewrite axis broadcasting into standard ONNX"},
	{"print", cmd_print, "summarise a model: opsets, inputs, outputs, operators, weights"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: onnxshape <command> [options] MODEL...\n\ncommands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n'onnxshape <command> --help' describes a command's options.\n"
		   "exit status: 0 no errors, 1 the model has errors, 2 usage error, unreadable or\n"
		   "malformed input, or write failure.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_TROUBLE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_CLEAN;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("onnxshape %s\n", osh_version());
		return EXIT_CLEAN;
	}
	input_guard_install();
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "onnxshape: error: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_TROUBLE;
}
