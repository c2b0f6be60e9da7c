/* progress.c: the progress line of a long run on a terminal (check.h).
 *
 * A walk over thousands of models is minutes of silence otherwise. The line is for
 * a person watching: drawn only on a terminal that can erase it (a pipe, a file or
 * a CI log would keep every redraw), at most ten times a second, cut to the
 * terminal's width (a wrapped line cannot be erased with a carriage return), and
 * erased before anything else is printed and at the end, so it never mixes with
 * the report. A note a worker thread prints meanwhile (progress_note) takes the
 * same lock and erases the line first.
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* Whether a progress line is on the terminal now; under `lock`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool line_shown;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void progress_start(progress *p, size_t total, bool quiet)
{
	const char *term = getenv("TERM");
	*p = (progress){.total = total};
	p->on = !quiet && total >= PROGRESS_MIN_FILES && isatty(2) && !(term && (!term[0] || !strcmp(term, "dumb")));
}

void progress_step(progress *p, const char *path)
{
	if (!p->on)
		return;
	p->done++;
	double t = now_ms();
	/* The first file is drawn at once (a person sees the run has started), and
	 * the line again at once when a note erased it. */
	pthread_mutex_lock(&lock);
	bool visible = line_shown;
	pthread_mutex_unlock(&lock);
	if (visible && t - p->last_ms < 100 && p->done < p->total)
		return;
	p->last_ms = t;
	struct winsize ws;
	int width = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
	char line[1024];
	int n = snprintf(line, sizeof line, "%s: %zu/%zu files: ", cli_prefix(), p->done, p->total);
	if (n < 0 || (size_t)n >= sizeof line)
		return;
	/* The path's last bytes (they name the file), escaped, in what is left of one
	 * line, the last column kept free: writing in it wraps on some terminals. */
	char *shown = text_dup(path);
	size_t room = width - 1 > n ? (size_t)(width - 1 - n) : 0, len = shown ? strlen(shown) : 0;
	const char *tail = shown ? shown + (len > room ? len - room : 0) : "";
	while ((*tail & 0xC0) == 0x80) /* not inside a character */
		tail++;
	if (room >= sizeof line - (size_t)n)
		room = sizeof line - (size_t)n - 1;
	snprintf(line + n, sizeof line - (size_t)n, "%.*s", (int)room, tail);
	free(shown);
	pthread_mutex_lock(&lock);
	fprintf(stderr, "\r\033[K%s", line);
	p->shown = line_shown = true;
	pthread_mutex_unlock(&lock);
}

void progress_clear(progress *p)
{
	if (!p->on || !p->shown)
		return;
	pthread_mutex_lock(&lock);
	if (line_shown)
		fputs("\r\033[K", stderr);
	p->shown = line_shown = false;
	pthread_mutex_unlock(&lock);
}

void progress_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&lock);
	if (line_shown)
		fputs("\r\033[K", stderr);
	line_shown = false;
	vfprintf(stderr, fmt, ap);
	pthread_mutex_unlock(&lock);
	va_end(ap);
}
