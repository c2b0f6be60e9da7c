/* main.c: the onnxshape command: dispatch to a subcommand. A word that is no
 * command is a usage error, with the nearest command's name when one is close.
 * Whatever the command, output it could not write is exit 2 (std_streams.c). */
#include "cli.h"

#include <getopt.h>
#include <signal.h>
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
	{"shapes", cmd_shapes, "list every value of a model with its inferred type and shape"},
	{"version", cmd_version, "print the version"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: onnxshape <command> [options] MODEL...\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n'onnxshape <command> --help' describes a command's options.\n"
		   "exit status: 0 no errors, 1 the model has errors, 2 usage error, unreadable or\n"
		   "malformed input, or write failure.\n");
}

int main(int argc, char **argv)
{
	/* A file size limit (ulimit -f) would kill the tool with SIGXFSZ in the middle
	 * of a write: ignored, it is the write's error EFBIG, reported as any other,
	 * the destination unchanged and the temporary file removed. */
	signal(SIGXFSZ, SIG_IGN);
	streams_open();
	if (argc < 2) {
		usage(stderr);
		return EXIT_TROUBLE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return streams_close(NULL, EXIT_CLEAN);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return streams_close("version", cmd_version(argc - 1, argv + 1));
	input_guard_install();
	opterr = 0; /* bad_option says what getopt would, in the tool's style */
	const char *names[NCOMMANDS];
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			cli_set_command(commands[i].name);
			return streams_close(commands[i].name, commands[i].run(argc - 1, argv + 1));
		}
		names[i] = commands[i].name;
	}
	const char *near = closest_name(argv[1], names, NCOMMANDS);
	if (near)
		return usage_error(NULL, "unknown command '%s'; did you mean '%s'?", argv[1], near);
	return usage_error(NULL, "unknown command '%s'", argv[1]);
}

int cmd_version(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: onnxshape version\n\nPrint the version of onnxshape (also: onnxshape --version, -V).");
		return EXIT_CLEAN;
	}
	if (argc > 1)
		return usage_error("version", "version takes no arguments");
	printf("onnxshape %s\n", osh_version());
	return EXIT_CLEAN;
}
