/* infer_args.c: --input-shape NAME:D,D,... and --assume SYMBOL=SIZE, as check, infer
 * and rewrite take them (see cli.h), and --constant-initializers (check, infer,
 * shapes).
 *
 * The arrays grow as options come: a fixed table for the most options anyone could
 * give would be zeroed memory that every run of infer faults in, however few options
 * it has, and a small model's run is short.
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One size of a shape: a size, ?, or a symbol (anything not starting like a number). */
static bool parse_dim(const char *p, osh_dim *d)
{
	if (!*p)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(p, &end, 10);
	if (!*end && v >= 0 && !errno)
		*d = (osh_dim){OSH_DIM_VALUE, v, NULL};
	else if (!strcmp(p, "?"))
		*d = (osh_dim){OSH_DIM_UNKNOWN, 0, NULL};
	else if (*p != '-' && !(*p >= '0' && *p <= '9'))
		*d = (osh_dim){OSH_DIM_SYMBOL, 0, p};
	else
		return false;
	return true;
}

bool infer_args_add_shape(infer_args *a, char *arg)
{
	/* The last ':' separates, so names may hold ':'. */
	char *colon = strrchr(arg, ':');
	if (!colon || colon == arg || !grow_array(&a->shapes, a->nshapes, &a->cap_shapes, sizeof *a->shapes))
		return false;
	*colon = '\0';
	size_t cap = 1;
	for (const char *p = colon + 1; *p; p++)
		cap += *p == ',';
	osh_dim *d = calloc(cap, sizeof *d);
	if (!d)
		return false;
	osh_input_shape s = {.name = arg, .dims = d, .rank = 0};
	for (char *p = colon + 1; *p;) {
		char *e = strchr(p, ',');
		if (e)
			*e = '\0';
		if (!parse_dim(p, &d[s.rank])) {
			free(d);
			return false;
		}
		s.rank++;
		if (!e)
			break;
		p = e + 1;
	}
	a->shapes[a->nshapes++] = s;
	return true;
}

bool infer_args_add_assume(infer_args *a, char *arg)
{
	char *eq = strrchr(arg, '=');
	if (!eq || eq == arg || !grow_array(&a->assume, a->nassume, &a->cap_assume, sizeof *a->assume))
		return false;
	*eq = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(eq + 1, &end, 10);
	if (!eq[1] || *end || v < 0 || errno)
		return false;
	a->assume[a->nassume++] = (osh_assumption){arg, v};
	return true;
}

void infer_args_apply(const infer_args *a, osh_infer_options *o)
{
	o->n_input_shapes = a->nshapes;
	o->input_shapes = a->shapes;
	o->n_assumptions = a->nassume;
	o->assumptions = a->assume;
	o->constant_initializers = a->constant_initializers;
}

void infer_args_free(infer_args *a)
{
	for (size_t i = 0; i < a->nshapes; i++)
		free((void *)a->shapes[i].dims);
	free(a->shapes);
	free(a->assume);
	*a = (infer_args){0};
}
