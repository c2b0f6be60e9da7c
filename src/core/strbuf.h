/* strbuf.h: the one bounded string builder. Appends never overrun the buffer and
 * leave it terminated; what did not fit is still counted, so a caller can answer as
 * snprintf does (strbuf_end) or take what was written (strbuf_written). The buffer
 * is the caller's: a strbuf allocates nothing.
 */
#ifndef OSH_CORE_STRBUF_H
#define OSH_CORE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf {
	char *buf;
	size_t cap;
	size_t len; /* characters asked for so far, written or not */
	bool bad;   /* a formatting call failed: len means nothing */
} strbuf;

/* A builder over buf[cap] (buf may be NULL with cap 0: count only), emptied. */
strbuf strbuf_on(char *buf, size_t cap);

void strbuf_str(strbuf *s, const char *str);
void strbuf_printf(strbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void strbuf_vprintf(strbuf *s, const char *fmt, va_list ap);

/* Where the next character goes and how much room is left there (NULL and 0 once
 * full), for a writer of its own (snprintf into it, then strbuf_count). */
char *strbuf_at(strbuf *s, size_t *room);
/* Counts what such a writer asked for: n from snprintf (negative: it failed). */
void strbuf_count(strbuf *s, int n);

/* What snprintf would return: every character asked for, or -1 after a failure or
 * past INT_MAX. */
int strbuf_end(const strbuf *s);
/* The characters in the buffer now (what fitted, the terminator not counted). */
size_t strbuf_written(const strbuf *s);

#endif
