/* usage.c: how every command reports a usage error, and the guess behind "did you
 * mean" for a mistyped command or option.
 *
 * One style for all of them, so scripts and people learn one shape: the message on
 * a line of its own after "onnxshape CMD: error: " (the command named, as every
 * message of the tool names it: a script running several sees which one spoke),
 * then a line that says where the options are described. Usage errors exit 2
 * (EXIT_TROUBLE); the caller returns it. getopt's own messages are off (opterr 0):
 * bad_option says the same in this shape, with a guess.
 */
#define _GNU_SOURCE /* getopt_long */
#include "cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

const char *cli_command;
/* Written once, by cli_set_command before any thread starts; read by all. */
static char prefix[64] = "onnxshape";

void cli_set_command(const char *name)
{
	cli_command = name;
	snprintf(prefix, sizeof prefix, "onnxshape %s", name);
}

const char *cli_prefix(void) { return prefix; }

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (cmd)
		fprintf(stderr, "onnxshape %s: error: ", cmd);
	else
		fputs("onnxshape: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "\ntry 'onnxshape %s --help'\n", cmd);
	else
		fputs("\ntry 'onnxshape --help'\n", stderr);
	return EXIT_TROUBLE;
}

/* Levenshtein distance of two short words, with an adjacent swap costing one (the
 * commonest typo: "chekc"); names longer than 31 bytes are never close. */
static size_t distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 31 || nb > 31)
		return (size_t)-1;
	size_t d[32][32];
	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[na][nb];
}

const char *closest_name(const char *word, const char *const *names, size_t n)
{
	/* Two edits at most, and fewer than half the word: "x" is close to nothing. */
	size_t limit = strlen(word) / 2 < 2 ? strlen(word) / 2 : 2;
	const char *best = NULL;
	size_t best_d = limit + 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, names[i]);
		if (d < best_d)
			best = names[i], best_d = d;
	}
	return best;
}

int bad_option(const char *cmd, int c, char **argv, const struct option *longs)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	if (strncmp(arg, "--", 2)) { /* a short option: getopt names its letter */
		if (c == ':')
			return usage_error(cmd, "option '-%c' needs a value", optopt);
		return usage_error(cmd, "unknown option '-%c'", optopt);
	}
	char name[64];
	size_t len = strcspn(arg + 2, "=");
	snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), arg + 2);
	const char *names[128], *prefixed[128];
	size_t n = 0, np = 0;
	for (const struct option *o = longs; o->name && n < 128; o++) {
		if (!strcmp(o->name, name))
			return usage_error(cmd, o->has_arg == no_argument ? "option '--%s' takes no value"
									  : "option '--%s' needs a value",
					   name);
		if (!strncmp(o->name, name, strlen(name)))
			prefixed[np++] = o->name;
		names[n++] = o->name;
	}
	if (np > 1 && name[0]) {
		char list[1024];
		size_t at = 0;
		list[0] = '\0';
		for (size_t i = 0; i < np; i++) {
			int w = snprintf(list + at, sizeof list - at, "%s'--%s'", i ? ", " : "", prefixed[i]);
			if (w > 0 && (size_t)w < sizeof list - at)
				at += (size_t)w;
		}
		return usage_error(cmd, "option '--%s' is ambiguous; it could be %s", name, list);
	}
	const char *near = closest_name(name, names, n);
	if (near)
		return usage_error(cmd, "unknown option '--%s'; did you mean '--%s'?", name, near);
	return usage_error(cmd, "unknown option '--%s'", name);
}
