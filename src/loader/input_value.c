/* input_value.c: model_set_input_value, inputs supplied as constants for inference.
 *
 * The ONNX test-data layout (test_data_set_N/input_K.pb) holds one serialized
 * TensorProto per graph input. We decode it into the model's arena with the same
 * validation as an initializer, and attach it to the graph input it names (or the
 * K-th input that has no initializer, as the test runners match them).
 */
#include "loader/external.h"
#include "loader/loader.h"
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The index-th graph input of the main graph that has no initializer, or -1. */
static int32_t nth_feed(const graph *g, int index)
{
	for (int32_t i = 0, k = 0; i < g->ninputs; i++) {
		if (g->values[g->inputs[i]].init_view) /* has an initializer */
			continue;
		if (k++ == index)
			return g->inputs[i];
	}
	return -1;
}

osh_status model_set_input_value(osh_model *m, const char *name, int index, const void *data,
				     size_t size, osh_error *err)
{
	if (!m)
		return error_set(err, OSH_ERR_INVALID, "osh_model_set_input_value: the model is NULL");
	if (!data && size)
		return error_set(err, OSH_ERR_INVALID, "%s: osh_model_set_input_value: data is NULL with size %zu",
			    m->path, size);
	graph *g = m->main;
	if (!g)
		return error_set(err, OSH_ERR_INVALID, "%s: the model has no graph", m->path);
	Onnx__TensorProto *t = onnx__tensor_proto__unpack(arena_protobuf_allocator(m->arena), size, data);
	if (!t)
		return error_set(err, OSH_ERR_INVALID, "%s: input value #%d is not a valid TensorProto", m->path, index);
	if (!name && t->name && t->name[0])
		name = t->name;
	int32_t id = -1;
	if (name) {
		id = strmap_get(&g->names, name);
		if (id >= 0 && g->values[id].origin != VAL_INPUT)
			id = -1;
	}
	/* The name in the file may be stale; fall back to the position. */
	if (id < 0 && index >= 0)
		id = nth_feed(g, index);
	if (id < 0)
		return error_set(err, OSH_ERR_INVALID, "%s: no graph input named '%s' (input value #%d)", m->path,
			    name ? name : "", index);
	value *v = &g->values[id];
	tinfo declared = value_declared(v);
	if (declared.kind != TK_UNKNOWN && declared.kind != TK_TENSOR)
		return OSH_OK; /* a sequence or optional input: its test data is not a TensorProto */
	size_t before = m->ndiags;
	bool was_malformed = m->malformed, had_errors = m->has_errors;
	char what[300];
	snprintf(what, sizeof what, "input value for '%.256s'", v->name);
	validate_tensor(m, g, -1, t, what);
	osh_status s = loader_external_failure(m, err);
	if (s != OSH_OK)
		return s;
	if (m->ndiags != before) {
		/* validate_tensor reported it as a malformed model, but the model is fine:
		 * it is the supplied value that is wrong. Take the finding back. */
		const char *msg = m->diags[before].message;
		m->ndiags = before;
		m->malformed = was_malformed;
		m->has_errors = had_errors;
		return error_set(err, OSH_ERR_INVALID, "%s: %s", m->path, msg);
	}
	const tensor_view *tv = view_tensor(m, t);
	if (!tv)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	value_extra *x = value_extra_need(m->arena, v);
	if (!x)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	x->given = tv;
	return OSH_OK;
}
