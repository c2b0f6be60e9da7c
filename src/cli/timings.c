/* timings.c: --timings, the wall time of each stage of one model's run (see cli.h).
 *
 * For a user, where a big model's seconds go; for bench/run.py, the tool's own time
 * per node: the work from the start of loading to the model freed, without starting
  * and ending a process (most of a small model's check).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cli.h"

#include <time.h>

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

void timings_start(timings *t, bool on)
{
	*t = (timings){.on = on};
	if (on)
		t->start = t->last = now_ms();
}

void timings_lap(timings *t, const char *stage)
{
	if (!t->on || t->n == TIMINGS_MAX)
		return;
	double now = now_ms();
	t->stage[t->n] = stage;
	t->ms[t->n++] = now - t->last;
	t->last = now;
}

void timings_print(FILE *f, const timings *t)
{
	if (!t->on || !t->path)
		return;
	fprintf(f, "onnxshape: timings: %s:", t->path);
	for (int i = 0; i < t->n; i++)
		fprintf(f, "%s %s %.3f ms", i ? "," : "", t->stage[i], t->ms[i]);
	double all = t->last - t->start;
	fprintf(f, "; %.3f ms in all", all);
	if (t->nodes)
		fprintf(f, ", %zu nodes, %.3f us a node", t->nodes, all * 1e3 / (double)t->nodes);
	fputc('\n', f);
}
