/* initializer_inputs.c: the note that says why sizes read from initializers that
 * are also graph inputs stay unknown.
 *
 * Before IR 4 every initializer had to be listed among the graph inputs, and a
 * graph input may be fed: ONNX Runtime takes such an initializer as a default that
 * a caller may replace, and inference does the same (infer.c, seed_values), so a
 * Reshape target or a Slice bound held in one is not a constant. A ShuffleNet
 * exported that way has every channel shuffle unknown, and each of those sizes
 * meeting a known one is a symbol-constraint note: without this one, nothing says
 * where they come from or what makes them constants.
 */
#include "core/dtype.h"
#include "core/model.h"
#include "passes/pass.h"

#include <stdio.h>
#include <string.h>

/* Integers that a shape rule may read as sizes (Reshape, Expand, Tile, Slice,
 * ConstantOfShape, Pad, TopK...): the weights' values decide no shape. */
static bool holds_sizes(const tensor_view *t) { return t && (t->dtype == DT_INT64 || t->dtype == DT_INT32); }

bool note_initializer_inputs(osh_model *m, const pass_options *opts)
{
	graph *g = m->main;
	if (!g || opts->constant_initializers)
		return true;
	int32_t n = 0, first = -1;
	char names[192] = "";
	size_t len = 0;
	for (int32_t i = 0; i < g->ninputs; i++) {
		const value *v = &g->values[g->inputs[i]];
		if (v->origin != VAL_INPUT || !holds_sizes(v->init_view) || !v->nconsumers || value_given(v))
			continue;
		if (n++ == 0)
			first = g->inputs[i];
		/* The first few by name; the count says how many more. */
		if (n <= 3 && len < sizeof names) {
			int w = snprintf(names + len, sizeof names - len, "%s'%s'", n > 1 ? ", " : "", v->name);
			len = w < 0 ? sizeof names : len + (size_t)w;
		}
	}
	if (!n)
		return true;
	char more[48] = "";
	if (n > 3)
		snprintf(more, sizeof more, " and %d more", (int)(n - 3));
	model_diag(m, OSH_NOTE, DIAG_SYMBOL_CONSTRAINT, g, -1, g->values[first].name,
		   "%d integer initializer%s %s also graph input%s (%s%s): a caller may feed %s (IR 3 lists every "
		   "initializer among the inputs, and ONNX Runtime takes %s as defaults), so the sizes %s values "
		   "decide are unknown; --constant-initializers takes %s as constants, rewrite "
		   "--drop-initializer-inputs removes %s from the inputs",
		   (int)n, n == 1 ? "" : "s", n == 1 ? "is" : "are", n == 1 ? "" : "s", names, more,
		   n == 1 ? "it" : "them", n == 1 ? "it" : "them", n == 1 ? "its" : "their", n == 1 ? "it" : "them",
		   n == 1 ? "it" : "them");
	return !m->nomem;
}
