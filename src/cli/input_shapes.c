/* input_shapes.c: --input-shape over a directory walk (check.h).
 *
 * Named for one model, an input it lacks is a typo, and the library refuses it
 * (exit 2). Over a folder of models, one --input-shape usually fits some of them:
 * the others are told, one note each, and checked as they are, instead of the whole
 * walk failing on the first file that lacks the name.
 */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static bool has_input(const osh_summary *s, const char *name)
{
	for (size_t k = 0; k < s->n_inputs; k++)
		if (!strcmp(s->inputs[k].name, name))
			return true;
	return false;
}

bool input_shapes_for(osh_model *m, const char *path, osh_infer_options *io, osh_input_shape **kept)
{
	*kept = NULL;
	const osh_summary *s = io->n_input_shapes ? osh_model_summary(m) : NULL;
	if (!s)
		return true;
	size_t n = 0;
	for (size_t i = 0; i < io->n_input_shapes; i++)
		n += has_input(s, io->input_shapes[i].name);
	if (n == io->n_input_shapes)
		return true;
	osh_input_shape *v = n ? malloc(n * sizeof *v) : NULL;
	if (n && !v)
		return false;
	n = 0;
	for (size_t i = 0; i < io->n_input_shapes; i++) {
		const osh_input_shape *x = &io->input_shapes[i];
		if (has_input(s, x->name)) {
			v[n++] = *x;
			continue;
		}
		char *p = text_dup(path), *name = text_dup(x->name);
		if (p && name)
			progress_note("%s: note: %s: no graph input named '%s'; --input-shape %s ignored for this file\n",
				      cli_prefix(), p, name, name);
		free(p), free(name);
	}
	io->input_shapes = v;
	io->n_input_shapes = n;
	*kept = v;
	return true;
}
