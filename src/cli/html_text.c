/* html_text.c: text into HTML. Every string from a model goes through here: names
 * are the model's bytes, and a report must neither break its markup nor carry
 * invalid UTF-8.
 *
 * The page shows the text `--format json` holds: bytes that are not UTF-8 are
 * U+FFFD there as here, and the characters escape.c hides (controls, DEL, the C1
 * controls, line separators, bidirectional formatting), which JSON writes as
 * escapes and HTML cannot show (a control character is no HTML text; a
 * bidirectional override would reorder the page around it), are shown as the very
 * escape JSON writes: "\r", "\u001b", "\u202e". A node named with a carriage return
 * reads the same in both reports.
 */
#include "html.h"

#include <string.h>

/* The escape JSON writes for the character at p, into buf (at least 7 bytes), and
 * in *len the bytes it takes; NULL when the character is shown as it is, *len 1 for
 * a byte that is not UTF-8 (shown as U+FFFD). */
static const char *escape_of(const char *p, char buf[8], size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = (unsigned char)*p;
	*len = 1;
	if (c < 0x20) {
		const char *short_form = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
				       : c == '\f' ? "\\f" : NULL;
		if (short_form)
			return short_form;
		memcpy(buf, "\\u00", 4);
		buf[4] = hex[c >> 4], buf[5] = hex[c & 15], buf[6] = '\0';
		return buf;
	}
	if (c == 0x7F)
		return "\\u007f";
	if (c < 0x80)
		return NULL;
	size_t n = utf8_seq((const unsigned char *)p);
	if (!n)
		return NULL;
	*len = n;
	uint32_t cp = utf8_code_point((const unsigned char *)p, n);
	if (!hidden_char(cp))
		return NULL;
	memcpy(buf, "\\u", 2);
	for (int i = 0; i < 4; i++)
		buf[2 + i] = hex[(cp >> (12 - 4 * i)) & 15];
	buf[6] = '\0';
	return buf;
}

/* The character at p as the page shows it: its escape, its markup or its bytes;
 * returns how many bytes it took, and in *shown how many characters it shows. */
static size_t put_char(FILE *f, const char *p, size_t *shown)
{
	unsigned char c = (unsigned char)*p;
	*shown = 1;
	switch (c) {
	case '<': fputs("&lt;", f); return 1;
	case '>': fputs("&gt;", f); return 1;
	case '&': fputs("&amp;", f); return 1;
	case '"': fputs("&quot;", f); return 1;
	case '\'': fputs("&#39;", f); return 1;
	default: break;
	}
	char buf[8];
	size_t len;
	const char *esc = escape_of(p, buf, &len);
	if (esc) {
		fputs(esc, f);
		*shown = strlen(esc);
	} else if (c >= 0x80 && len == 1) {
		fputs("\xEF\xBF\xBD", f);
	} else {
		fwrite(p, 1, len, f);
	}
	return len;
}

void html_text(FILE *f, const char *s)
{
	size_t shown;
	for (const char *p = s ? s : ""; *p;)
		p += put_char(f, p, &shown);
}

size_t utf8_chars(const char *s)
{
	size_t n = 0;
	char buf[8];
	for (const char *p = s ? s : ""; *p;) {
		size_t len;
		const char *esc = escape_of(p, buf, &len);
		n += esc ? strlen(esc) : 1;
		p += len;
	}
	return n;
}

void html_text_cut(FILE *f, const char *s, size_t chars)
{
	if (!s)
		return;
	bool cut = utf8_chars(s) > chars;
	size_t keep = cut && chars ? chars - 1 : chars, done = 0;
	const char *p = s;
	char buf[8];
	/* Whole characters, and whole escapes: never half of "\u202e". */
	while (*p) {
		size_t len;
		const char *esc = escape_of(p, buf, &len);
		size_t w = esc ? strlen(esc) : 1;
		if (done + w > keep)
			break;
		size_t shown;
		p += put_char(f, p, &shown);
		done += shown;
	}
	if (cut)
		fputs("\xE2\x80\xA6", f); /* … */
}
