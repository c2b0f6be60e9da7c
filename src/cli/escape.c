/* escape.c: what every report does with the bytes of a model's strings.
 *
 * Names, types and messages come from the model: any bytes at all. A report must
 * read as the model's text without letting those bytes act on whatever shows it:
 * a terminal (escape sequences, a line broken in two), an editor or a browser
 * (the bidirectional formatting characters reorder what is around them, so that a
 * name reads as another: "Trojan Source"). So every output escapes the same
 * characters, each in its own syntax (the text reports here, JSON in
 * format_json.c, HTML in html_text.c):
 *
 *   - the C0 controls and DEL;
 *   - bytes that are not UTF-8 (overlong forms, surrogates, past U+10FFFF);
 *   - the C1 controls (U+0080 to U+009F; U+009B is a terminal's CSI), the line
 *     and paragraph separators (U+2028, U+2029), and the bidirectional formatting
 *     characters: U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069.
 *
 * Everything else, ASCII or valid UTF-8, is written as it is.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_seq(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
	else
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return n;
}

uint32_t utf8_code_point(const unsigned char *p, size_t n)
{
	static const unsigned char lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
	uint32_t c = p[0] & lead_mask[n];
	for (size_t i = 1; i < n; i++)
		c = c << 6 | (p[i] & 0x3F);
	return c;
}

bool hidden_char(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/* How many bytes at p (below end) go out as they are. */
static size_t plain_run(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *q = p;
	while (q < end) {
		if (*q >= 0x20 && *q < 0x7F) {
			q++;
			continue;
		}
		size_t n = *q >= 0x80 ? utf8_seq(q) : 0;
		if (!n || n > (size_t)(end - q) || hidden_char(utf8_code_point(q, n)))
			break;
		q += n;
	}
	return (size_t)(q - p);
}

void put_text_n(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	/* The plain stretches between escapes go out whole: a character at a time
	 * was slow on the many notes of a big model. */
	for (;;) {
		size_t run = plain_run(p, end);
		if (run)
			fwrite(p, 1, run, f);
		p += run;
		if (p >= end)
			return;
		size_t n = *p >= 0x80 ? utf8_seq(p) : 0;
		if (n && n <= (size_t)(end - p)) {
			fprintf(f, "\\u%04x", (unsigned)utf8_code_point(p, n));
			p += n;
			continue;
		}
		if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else
			fprintf(f, "\\x%02x", *p);
		p++;
	}
}

void put_text(FILE *f, const char *s)
{
	if (s)
		put_text_n(f, s, strlen(s));
}

char *text_dup(const char *s)
{
	/* One pass over what is nearly always plain ASCII: the shapes table copies
	 * every value's name and type through here. */
	const unsigned char *q = (const unsigned char *)s;
	while (*q >= 0x20 && *q < 0x7F)
		q++;
	size_t len = (size_t)(q - (const unsigned char *)s);
	if (*q)
		len += strlen((const char *)q);
	if (!*q || plain_run((const unsigned char *)s, (const unsigned char *)s + len) == len) {
		char *copy = malloc(len + 1);
		if (copy)
			memcpy(copy, s, len + 1);
		return copy;
	}
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	if (!f)
		return NULL;
	put_text_n(f, s, len);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
