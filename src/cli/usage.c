/* usage.c: how every command reports a usage error, and the guess behind "did you
 * mean" for a mistyped command.
 *
 * One style for all of them, so scripts and people learn one shape: the message on
 * a line of its own after "onnxshape: error: ", then a line that says where the
 * options are described. Usage errors exit 2 (EXIT_TROUBLE); the caller returns it.
 */
#include "cli.h"

#include <stdarg.h>
#include <string.h>

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
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
