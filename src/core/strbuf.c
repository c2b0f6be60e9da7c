/* strbuf.c: the bounded string builder (strbuf.h). */
#include "core/strbuf.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

strbuf strbuf_on(char *buf, size_t cap)
{
	strbuf s = {buf, buf ? cap : 0, 0, false};
	if (s.cap > 0)
		buf[0] = '\0';
	return s;
}

char *strbuf_at(strbuf *s, size_t *room)
{
	if (s->len < s->cap) {
		*room = s->cap - s->len;
		return s->buf + s->len;
	}
	*room = 0;
	return NULL;
}

void strbuf_count(strbuf *s, int n)
{
	if (n < 0)
		s->bad = true;
	else
		s->len += (size_t)n;
}

void strbuf_str(strbuf *s, const char *str)
{
	size_t room, n = strlen(str);
	char *at = strbuf_at(s, &room);
	if (at) {
		size_t k = n < room - 1 ? n : room - 1;
		memcpy(at, str, k);
		at[k] = '\0';
	}
	s->len += n;
}

void strbuf_vprintf(strbuf *s, const char *fmt, va_list ap)
{
	size_t room;
	char *at = strbuf_at(s, &room);
	strbuf_count(s, vsnprintf(at, room, fmt, ap));
}

void strbuf_printf(strbuf *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vprintf(s, fmt, ap);
	va_end(ap);
}

int strbuf_end(const strbuf *s)
{
	if (s->bad || s->len > (size_t)INT_MAX)
		return -1;
	return (int)s->len;
}

size_t strbuf_written(const strbuf *s)
{
	if (!s->cap)
		return 0;
	return s->len < s->cap ? s->len : s->cap - 1;
}
