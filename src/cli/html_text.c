/* html_text.c: text into HTML. Every string from a model goes through here: names
 * are the model's bytes, and a report must neither break its markup nor carry
 * invalid UTF-8 (utf8_seq, from the JSON writer, decides what is valid).
 */
#include "html.h"

#include <string.h>

/* One character at p: its escape or its bytes; returns how many bytes it took. */
static size_t put_char(FILE *f, const char *p)
{
	unsigned char c = (unsigned char)*p;
	switch (c) {
	case '<': fputs("&lt;", f); return 1;
	case '>': fputs("&gt;", f); return 1;
	case '&': fputs("&amp;", f); return 1;
	case '"': fputs("&quot;", f); return 1;
	case '\'': fputs("&#39;", f); return 1;
	default: break;
	}
	if (c < 0x80) {
		/* Control characters are not allowed in HTML text: shown as U+FFFD. */
		if (c < 0x20 && c != '\t' && c != '\n')
			fputs("\xEF\xBF\xBD", f);
		else
			fputc(c, f);
		return 1;
	}
	size_t n = utf8_seq((const unsigned char *)p);
	if (!n) {
		fputs("\xEF\xBF\xBD", f);
		return 1;
	}
	fwrite(p, 1, n, f);
	return n;
}

void html_text(FILE *f, const char *s)
{
	for (const char *p = s ? s : ""; *p;)
		p += put_char(f, p);
}

size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; n++) {
		size_t k = *p < 0x80 ? 1 : utf8_seq(p);
		p += k ? k : 1;
	}
	return n;
}

void html_text_cut(FILE *f, const char *s, size_t chars)
{
	if (!s)
		return;
	bool cut = utf8_chars(s) > chars;
	size_t keep = cut && chars ? chars - 1 : chars;
	const char *p = s;
	for (size_t i = 0; *p && i < keep; i++)
		p += put_char(f, p);
	if (cut)
		fputs("\xE2\x80\xA6", f); /* … */
}
