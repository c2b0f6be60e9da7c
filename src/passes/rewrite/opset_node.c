/* opset_node.c: the kit the opset conversion's adapters edit a node's scratch copy
 * with (opset_node.h): its attributes and inputs, what inference knows of them, the
 * nodes and initializers inserted before it, and refusals. Nothing here touches a
 * message while planning (r->apply false): the rw_ helpers it calls write only in
 * the editing run, so both runs take the same path.
 */
#include "core/checked.h"
#include "core/dtype.h"
#include "core/grow.h"
#include "core/shape.h"
#include "passes/rewrite/opset_node.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ns_note(nstate *s, const char *fmt, ...)
{
	s->changed = true;
	/* The text is for the change list, which only the planning run writes. */
	if (s->r->apply || s->wlen >= sizeof s->what - 1)
		return;
	int w = snprintf(s->what + s->wlen, sizeof s->what - s->wlen, "%s", s->wlen ? ", " : "");
	if (w > 0)
		s->wlen += (size_t)w;
	if (s->wlen >= sizeof s->what - 1) {
		s->wlen = sizeof s->what - 1;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	w = vsnprintf(s->what + s->wlen, sizeof s->what - s->wlen, fmt, ap);
	va_end(ap);
	if (w > 0)
		s->wlen += (size_t)w;
	if (s->wlen >= sizeof s->what)
		s->wlen = sizeof s->what - 1;
}

bool ns_refuse(nstate *s, const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	rw_error(s->r, s->g, s->ni, DIAG_REWRITE_UNSUPPORTED, "cannot convert %s from opset %lld to %lld: %s", s->n->op_type,
		 (long long)s->r->from, (long long)s->r->to, buf);
	s->refused = true;
	return true;
}

sattr *ns_get(nstate *s, const char *name)
{
	for (int32_t i = 0; i < s->nattrs; i++)
		if (!s->attrs[i].gone && !strcmp(s->attrs[i].name, name))
			return &s->attrs[i];
	return NULL;
}

bool ns_removed(nstate *s, const char *name)
{
	sattr *a = ns_get(s, name);
	if (!a)
		return false;
	a->gone = true;
	ns_note(s, "remove %s", name);
	return true;
}

sattr *ns_put(nstate *s, const char *name, attr_type type)
{
	sattr *a = ns_get(s, name);
	if (a)
		a->gone = true;
	if (s->nattrs == s->cap_attrs) {
		sattr *v = grow_arena_i32(s->r->m->arena, s->attrs, &s->cap_attrs, 8, sizeof *v);
		if (!v) {
			rw_nomem(s->r);
			return NULL;
		}
		s->attrs = v;
	}
	a = &s->attrs[s->nattrs++];
	*a = (sattr){.name = name, .type = type, .set = true};
	return a;
}

bool ns_put_i(nstate *s, const char *name, int64_t v)
{
	sattr *a = ns_put(s, name, AT_INT);
	if (!a)
		return false;
	a->i = v;
	return true;
}

bool ns_put_ints(nstate *s, const char *name, const int64_t *v, int32_t n)
{
	sattr *a = ns_put(s, name, AT_INTS);
	if (!a)
		return false;
	a->ints = v;
	a->n = n;
	return true;
}

bool ns_put_floats(nstate *s, const char *name, const float *v, int32_t n)
{
	sattr *a = ns_put(s, name, AT_FLOATS);
	if (!a)
		return false;
	a->floats = v;
	a->n = n;
	return true;
}

bool ns_put_s(nstate *s, const char *name, const char *v)
{
	sattr *a = ns_put(s, name, AT_STRING);
	if (!a)
		return false;
	a->s = v;
	return true;
}

bool ns_set_input(nstate *s, int32_t k, const char *name)
{
	if (k >= s->ninputs) {
		const char **in = arena_array(s->r->m->arena, (size_t)k + 1, sizeof *in);
		if (!in) {
			rw_nomem(s->r);
			return false;
		}
		for (int32_t i = 0; i < k; i++)
			in[i] = i < s->ninputs ? s->inputs[i] : "";
		s->inputs = in;
		s->ninputs = k + 1;
	}
	s->inputs[k] = name;
	s->inputs_set = true;
	return true;
}

const value *ns_input_value(nstate *s, int32_t k)
{
	if (k >= s->n->ninputs || s->n->inputs[k] < 0)
		return NULL;
	return &s->g->values[s->n->inputs[k]];
}

bool ns_output_used(nstate *s, int32_t k)
{
	if (k >= s->n->noutputs || s->n->outputs[k] < 0)
		return false;
	const value *v = &s->g->values[s->n->outputs[k]];
	return v->nconsumers > 0 || v->is_output;
}

bool ns_drop_outputs_after(nstate *s, int32_t n, const char *why)
{
	if (s->noutputs <= n)
		return true;
	for (int32_t k = n; k < s->noutputs; k++)
		if (ns_output_used(s, k))
			return ns_refuse(s, "output %d ('%s') is used, and %s", k,
				      s->g->values[s->n->outputs[k]].name, why);
	s->noutputs = n;
	ns_note(s, "drop unused outputs from %d on", n);
	return true;
}

bool ns_ints_to_input(nstate *s, const char *attr, int32_t k, bool required)
{
	sattr *a = ns_get(s, attr);
	if (!a) {
		if (required)
			return ns_refuse(s, "attribute '%s' is missing", attr);
		return true;
	}
	if (a->type != AT_INTS)
		return ns_refuse(s, "attribute '%s' is not a list of integers", attr);
	const char *name;
	if (!rw_ints(s->r, s->g, s->base, attr, a->ints, a->n, &name))
		return false;
	a->gone = true;
	ns_note(s, "attribute %s becomes input %d '%s'", attr, k, name);
	return ns_set_input(s, k, name);
}

int32_t ns_input_elem(nstate *s, int32_t k)
{
	const value *v = ns_input_value(s, k);
	bool is_float;
	if (!v || v->ti.kind != TK_TENSOR || !edit_dtype_encodable(v->ti.elem, &is_float))
		return 0;
	return v->ti.elem;
}

bool ns_scalar_to_input(nstate *s, const char *attr, int32_t k, double v)
{
	int32_t elem = ns_input_elem(s, 0);
	if (!elem)
		return ns_refuse(s, "the element type of '%s' is unknown, so '%s' cannot become an input",
			      ns_input_value(s, 0) ? ns_input_value(s, 0)->name : "input 0", attr);
	bool is_float = false;
	int64_t whole;
	edit_dtype_encodable(elem, &is_float);
	if (!is_float && !f64_to_i64(v, &whole))
		return ns_refuse(s, "'%s' is %g, which input '%s' (%s) cannot hold", attr, v,
			      ns_input_value(s, 0)->name, dtype_name(elem));
	const char *name;
	if (!rw_scalar(s->r, s->g, s->base, attr, elem, v, &name))
		return false;
	ns_note(s, "attribute %s becomes input %d '%s'", attr, k, name);
	return ns_set_input(s, k, name);
}

int32_t ns_input_dims(nstate *s, int32_t k, dim *d)
{
	const value *v = ns_input_value(s, k);
	if (!v || v->ti.kind != TK_TENSOR || v->ti.rank < 0 || v->ti.rank > 64)
		return -1;
	for (int32_t i = 0; i < v->ti.rank; i++)
		d[i] = dim_resolve(&s->r->m->syms, v->ti.dims[i]);
	return v->ti.rank;
}

bool ns_absent(nstate *s, int32_t k) { return k >= s->ninputs || !s->inputs[k] || !s->inputs[k][0]; }

void ns_drop_input(nstate *s, int32_t k)
{
	if (k < s->ninputs)
		s->inputs[k] = "";
	while (s->ninputs > 0 && ns_absent(s, s->ninputs - 1))
		s->ninputs--;
	s->inputs_set = true;
}

int32_t ns_const_ints(nstate *s, int32_t k, int64_t *out, int32_t max)
{
	const value *v = ns_absent(s, k) ? NULL : ns_input_value(s, k);
	if (!v || v->ti.nval < 0 || v->ti.nval > max)
		return -1;
	for (int32_t i = 0; i < v->ti.nval; i++) {
		dim d = dim_resolve(&s->r->m->syms, v->ti.val[i]);
		if (d.kind != DIM_KNOWN)
			return -1;
		out[i] = d.v;
	}
	return v->ti.nval;
}

bool ns_const_float(nstate *s, int32_t k, double *out)
{
	const value *v = ns_absent(s, k) ? NULL : ns_input_value(s, k);
	if (!v)
		return false;
	if (v->ti.nfval == 1) {
		*out = v->ti.fval[0];
		return true;
	}
	if (v->ti.nval == 1) {
		dim d = dim_resolve(&s->r->m->syms, v->ti.val[0]);
		if (d.kind == DIM_KNOWN) {
			*out = (double)d.v;
			return true;
		}
	}
	return false;
}

const char *ns_input_name(nstate *s, int32_t k) { return ns_absent(s, k) ? "" : s->inputs[k]; }

bool ns_input_to_ints(nstate *s, int32_t k, const char *attr)
{
	if (ns_absent(s, k))
		return true;
	int64_t v[64];
	int32_t n = ns_const_ints(s, k, v, 64);
	if (n < 0)
		return ns_refuse(s, "input %d ('%s') is not a known constant, and attribute '%s' of opset %lld must be one", k,
			      ns_input_name(s, k), attr, (long long)s->step - 1);
	int64_t *c = arena_array(s->r->m->arena, n ? (size_t)n : 1, sizeof *c);
	if (!c)
		return rw_nomem(s->r), false;
	memcpy(c, v, (size_t)n * sizeof *c);
	ns_note(s, "input %d '%s' becomes attribute %s", k, ns_input_name(s, k), attr);
	ns_drop_input(s, k);
	return ns_put_ints(s, attr, c, n);
}

bool ns_input_to_float(nstate *s, int32_t k, const char *attr)
{
	if (ns_absent(s, k))
		return true;
	double v;
	if (!ns_const_float(s, k, &v))
		return ns_refuse(s, "input %d ('%s') is not a known constant, and attribute '%s' of opset %lld must be one", k,
			      ns_input_name(s, k), attr, (long long)s->step - 1);
	ns_note(s, "input %d '%s' becomes attribute %s", k, ns_input_name(s, k), attr);
	ns_drop_input(s, k);
	sattr *a = ns_put(s, attr, AT_FLOAT);
	if (!a)
		return false;
	a->f = (float)v;
	return true;
}

const char *ns_attr_s(nstate *s, const char *name, const char *dflt)
{
	sattr *a = ns_get(s, name);
	return a && a->type == AT_STRING && a->s ? a->s : dflt;
}

int64_t ns_attr_i(nstate *s, const char *name, int64_t dflt)
{
	sattr *a = ns_get(s, name);
	return a && a->type == AT_INT ? a->i : dflt;
}

int32_t ns_rank0(nstate *s)
{
	const value *v = ns_input_value(s, 0);
	return v && v->ti.kind == TK_TENSOR && v->ti.rank >= 0 ? v->ti.rank : -1;
}

bool ns_empty_floats(nstate *s, const char *role, const char **out)
{
	rw *r = s->r;
	*out = rw_init_name(r, s->base, role);
	int64_t dims[1] = {0};
	double none[1] = {0};
	r->ninits++;
	if (r->apply && !edit_add_initializer(r->e, s->g, *out, DT_FLOAT, dims, 1, NULL, none))
		return rw_nomem(r), false;
	return true;
}

bool ns_const_like(nstate *s, const char *role, double v, const char **out)
{
	int32_t elem = ns_input_elem(s, 0);
	bool is_float = false;
	if (!elem || !edit_dtype_encodable(elem, &is_float) || !is_float)
		return ns_refuse(s, "the element type of '%s' is not known to be a floating one", ns_input_name(s, 0)), true;
	return rw_scalar(s->r, s->g, s->base, role, elem, v, out);
}

bool ns_become(nstate *s, const char *op, const char *a, const char *b)
{
	for (int32_t i = 0; i < s->nattrs; i++)
		s->attrs[i].gone = true;
	s->op = op;
	s->op_set = true;
	s->built = true;
	s->ninputs = 0;
	return ns_set_input(s, 0, a) && (!b || ns_set_input(s, 1, b));
}

bool ns_ins2(nstate *s, const char *op, const char *role, const char *a, const char *b, const char **out)
{
	const char *in[2] = {a, b};
	struct Onnx__NodeProto *np;
	return rw_insert(s->r, s->g, s->ni, op, s->base, role, b ? 2 : 1, in, out, &np);
}

bool ns_insn(nstate *s, const char *op, const char *role, int32_t nin, const char *const *in, const char **out,
		 struct Onnx__NodeProto **np)
{
	return rw_insert(s->r, s->g, s->ni, op, s->base, role, nin, in, out, np);
}

bool ns_ins_output(nstate *s, const char *op, const char *role, int32_t k, int32_t nin, const char *const *in,
		       struct Onnx__NodeProto **np)
{
	return rw_insert_making(s->r, s->g, s->ni, op, s->base, role, nin, in, s->g->values[s->n->outputs[k]].name, np);
}

bool ns_ins_perm(nstate *s, const char *role, const char *x, const int64_t *perm, int32_t n, const char **out)
{
	struct Onnx__NodeProto *np;
	const char *in[1] = {x};
	return ns_insn(s, "Transpose", role, 1, in, out, &np) && rw_set_attr_ints(s->r, np, "perm", perm, n);
}

bool ns_ins_reshape(nstate *s, const char *role, const char *x, const int64_t *to, int32_t n, const char **out)
{
	const char *sh;
	return rw_ints(s->r, s->g, s->base, "shape", to, n, &sh) && ns_ins2(s, "Reshape", role, x, sh, out);
}

bool ns_ins_unsqueeze(nstate *s, const char *role, const char *x, const int64_t *axes, int32_t n, const char **out)
{
	const char *ax;
	return rw_ints(s->r, s->g, s->base, "axes", axes, n, &ax) && ns_ins2(s, "Unsqueeze", role, x, ax, out);
}

bool ns_ins_cast(nstate *s, const char *role, const char *x, int32_t to, const char **out)
{
	struct Onnx__NodeProto *np;
	const char *in[1] = {x};
	return ns_insn(s, "Cast", role, 1, in, out, &np) && rw_set_attr_i(s->r, np, "to", to);
}

bool ns_ins_dim(nstate *s, const char *role, const char *x, int64_t axis, const char **out)
{
	const char *sh, *at;
	return ns_ins2(s, "Shape", "shape_of", x, NULL, &sh) && rw_scalar(s->r, s->g, s->base, "dim_index", DT_INT64, (double)axis, &at) &&
	       ns_ins2(s, "Gather", role, sh, at, out);
}

bool ns_ins_iota(nstate *s, const char *role, const char *n, const char **out)
{
	const char *zero, *one;
	if (!rw_scalar(s->r, s->g, s->base, "zero", DT_INT64, 0, &zero) ||
	    !rw_scalar(s->r, s->g, s->base, "one", DT_INT64, 1, &one))
		return false;
	const char *in[3] = {zero, n, one};
	struct Onnx__NodeProto *np;
	return ns_insn(s, "Range", role, 3, in, out, &np);
}

bool ns_ins_slice(nstate *s, const char *role, const char *x, int64_t start, int64_t end, int64_t axis, int64_t step,
		      const char **out)
{
	const char *st, *en, *ax, *sp;
	if (!rw_ints(s->r, s->g, s->base, "starts", &start, 1, &st) || !rw_ints(s->r, s->g, s->base, "ends", &end, 1, &en) ||
	    !rw_ints(s->r, s->g, s->base, "axes", &axis, 1, &ax) || !rw_ints(s->r, s->g, s->base, "steps", &step, 1, &sp))
		return false;
	struct Onnx__NodeProto *np;
	const char *in[5] = {x, st, en, ax, sp};
	return ns_insn(s, "Slice", role, 5, in, out, &np);
}

bool ns_no_adapter(nstate *s)
{
	if (s->first_row)
		return ns_refuse(s, "%s does not exist at opset %lld (it came with opset %lld)", s->op, (long long)s->r->to,
			      (long long)s->step);
	return ns_refuse(s, "%s changed at opset %lld and onnxshape has no adapter %s", s->op, (long long)s->step,
		      s->down ? "back to the version before" : "to it");
}

bool ns_set_attr_f(nstate *s, struct Onnx__NodeProto *np, const char *name, float v)
{
	if (s->r->apply && !edit_node_set_attr_f(s->r->e, np, name, v))
		return rw_nomem(s->r), false;
	return true;
}

bool ns_reduce_mean(nstate *s, const char *role, const char *x, const int64_t *axes, int32_t na, const char **out)
{
	rw *r = s->r;
	struct Onnx__NodeProto *np;
	if (r->to >= 18) {
		const char *an;
		if (!rw_ints(r, s->g, s->base, "axes", axes, na, &an))
			return false;
		const char *in[2] = {x, an};
		return rw_insert(r, s->g, s->ni, "ReduceMean", s->base, role, 2, in, out, &np);
	}
	const char *in[1] = {x};
	return rw_insert(r, s->g, s->ni, "ReduceMean", s->base, role, 1, in, out, &np) &&
	       rw_set_attr_ints(r, np, "axes", axes, na);
}
