/* rewrite_opset.c: raising a model's ai.onnx opset: every node adapted so that it
 * means the same at the new version.
 *
 * The table lists, per operator, every since_version up to OSH_REWRITE_MAX_OPSET and
 * what changed there: NULL where the change kept the meaning of every valid node
 * (new types, new optional inputs or attributes whose defaults are the old
 * behaviour: Conv, MaxPool's storage_order and Indices, AveragePool's
 * count_include_pad and ceil_mode, negative axes...), an adapter where attributes
 * were removed, became inputs or changed meaning. A node is taken through each step
 * between the model's opset and the target, in order. An operator missing from the
 * table, or a step an adapter cannot take (Upsample past 9, BatchNormalization with
 * spatial=0, a Dropout mask someone reads...), is a rewrite-unsupported error: the
 * rewrite never writes a model it is not sure means the same.
 *
 * Adapters work on a scratch copy of the node (op, attributes, inputs, output count)
 * and the editing run writes the copy back, touching only what changed; nodes and
 * initializers they need are created for the target opset, before the node.
 *
 * Invariant: an adapter decides from the node's IR (its attributes as loaded and
 * what inference knows about its inputs) and the copy, never from the messages, so
 * the planning and editing runs take the same decisions.
 */
#include "core/checked.h"
#include "core/dtype.h"
#include "core/grow.h"
#include "core/tensor.h"
#include "passes/rewrite/rewrite.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define OOM(r) ((r)->nomem = (r)->m->nomem = true)

int64_t opset_min_ir(int64_t opset)
{
	/* From onnx/helper.py's VERSION_TABLE: the IR version each opset came with. */
	static const int64_t ir[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8, 8};
	if (opset < 1)
		return 3;
	return opset < (int64_t)(sizeof ir / sizeof ir[0]) ? ir[opset] : 8;
}

/* ---- the scratch copy of a node -------------------------------------------------------- */

typedef struct sattr {
	const char *name;
	attr_type type;
	int64_t i;
	float f;
	const char *s;
	const int64_t *ints;
	const float *floats;
	int32_t n;
	bool set;  /* added or changed: written back */
	bool gone; /* removed */
} sattr;

typedef struct nstate {
	rw *r;
	graph *g;
	int32_t ni;
	const node *n;
	int64_t step; /* the since_version being taken */
	const char *op;
	bool op_set;
	sattr *attrs;
	int32_t nattrs, cap_attrs;
	const char **inputs;
	int32_t ninputs;
	bool inputs_set;
	int32_t noutputs;
	const char *base;
	char what[768];
	size_t wlen;
	bool changed, refused;
} nstate;

static void note(nstate *s, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void note(nstate *s, const char *fmt, ...)
{
	s->changed = true;
	if (s->wlen >= sizeof s->what - 1)
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

static bool refuse(nstate *s, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static bool refuse(nstate *s, const char *fmt, ...)
{
	char buf[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	rw_error(s->r, s->g, s->ni, "rewrite-unsupported", "cannot raise %s from opset %lld to %lld: %s", s->n->op_type,
		 (long long)s->r->from, (long long)s->r->to, buf);
	s->refused = true;
	return true;
}

static sattr *get(nstate *s, const char *name)
{
	for (int32_t i = 0; i < s->nattrs; i++)
		if (!s->attrs[i].gone && !strcmp(s->attrs[i].name, name))
			return &s->attrs[i];
	return NULL;
}

static bool removed(nstate *s, const char *name)
{
	sattr *a = get(s, name);
	if (!a)
		return false;
	a->gone = true;
	note(s, "remove %s", name);
	return true;
}

/* A new (or replaced) attribute entry, marked for writing back. */
static sattr *put(nstate *s, const char *name, attr_type type)
{
	sattr *a = get(s, name);
	if (a)
		a->gone = true;
	if (s->nattrs == s->cap_attrs) {
		sattr *v = grow_arena_i32(s->r->m->arena, s->attrs, &s->cap_attrs, 8, sizeof *v);
		if (!v) {
			OOM(s->r);
			return NULL;
		}
		s->attrs = v;
	}
	a = &s->attrs[s->nattrs++];
	*a = (sattr){.name = name, .type = type, .set = true};
	return a;
}

static bool put_i(nstate *s, const char *name, int64_t v)
{
	sattr *a = put(s, name, AT_INT);
	if (!a)
		return false;
	a->i = v;
	return true;
}

static bool put_ints(nstate *s, const char *name, const int64_t *v, int32_t n)
{
	sattr *a = put(s, name, AT_INTS);
	if (!a)
		return false;
	a->ints = v;
	a->n = n;
	return true;
}

static bool put_floats(nstate *s, const char *name, const float *v, int32_t n)
{
	sattr *a = put(s, name, AT_FLOATS);
	if (!a)
		return false;
	a->floats = v;
	a->n = n;
	return true;
}

static bool put_s(nstate *s, const char *name, const char *v)
{
	sattr *a = put(s, name, AT_STRING);
	if (!a)
		return false;
	a->s = v;
	return true;
}

static bool set_input(nstate *s, int32_t k, const char *name)
{
	if (k >= s->ninputs) {
		const char **in = arena_array(s->r->m->arena, (size_t)k + 1, sizeof *in);
		if (!in) {
			OOM(s->r);
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

/* Input k's value: what inference knows about it, NULL when absent. */
static const value *input_value(nstate *s, int32_t k)
{
	if (k >= s->n->ninputs || s->n->inputs[k] < 0)
		return NULL;
	return &s->g->values[s->n->inputs[k]];
}

/* Whether output k is read by anything: a node, a subgraph, the graph's outputs. */
static bool output_used(nstate *s, int32_t k)
{
	if (k >= s->n->noutputs || s->n->outputs[k] < 0)
		return false;
	const value *v = &s->g->values[s->n->outputs[k]];
	return v->nconsumers > 0 || v->is_output;
}

/* Keeps the first n outputs when the others are unused; refuses otherwise. */
static bool drop_outputs_after(nstate *s, int32_t n, const char *why)
{
	if (s->noutputs <= n)
		return true;
	for (int32_t k = n; k < s->noutputs; k++)
		if (output_used(s, k))
			return refuse(s, "output %d ('%s') is used, and %s", k,
				      s->g->values[s->n->outputs[k]].name, why);
	s->noutputs = n;
	note(s, "drop unused outputs from %d on", n);
	return true;
}

/* An attribute turned into input k: a 1-D INT64 initializer. */
static bool ints_to_input(nstate *s, const char *attr, int32_t k, bool required)
{
	sattr *a = get(s, attr);
	if (!a) {
		if (required)
			return refuse(s, "attribute '%s' is missing", attr);
		return true;
	}
	if (a->type != AT_INTS)
		return refuse(s, "attribute '%s' is not a list of integers", attr);
	const char *name;
	if (!rw_ints(s->r, s->g, s->base, attr, a->ints, a->n, &name))
		return false;
	a->gone = true;
	note(s, "attribute %s becomes input %d '%s'", attr, k, name);
	return set_input(s, k, name);
}

/* The element type of input k, when inference knows it and initializers can hold it. */
static int32_t input_elem(nstate *s, int32_t k)
{
	const value *v = input_value(s, k);
	bool is_float;
	if (!v || v->ti.kind != TK_TENSOR || !edit_dtype_encodable(v->ti.elem, &is_float))
		return 0;
	return v->ti.elem;
}

/* A scalar attribute turned into input k: a rank-0 initializer of input 0's type. */
static bool scalar_to_input(nstate *s, const char *attr, int32_t k, double v)
{
	int32_t elem = input_elem(s, 0);
	if (!elem)
		return refuse(s, "the element type of '%s' is unknown, so '%s' cannot become an input",
			      input_value(s, 0) ? input_value(s, 0)->name : "input 0", attr);
	bool is_float = false;
	int64_t whole;
	edit_dtype_encodable(elem, &is_float);
	if (!is_float && !f64_to_i64(v, &whole))
		return refuse(s, "'%s' is %g, which input '%s' (%s) cannot hold", attr, v,
			      input_value(s, 0)->name, dtype_name(elem));
	const char *name;
	if (!rw_scalar(s->r, s->g, s->base, attr, elem, v, &name))
		return false;
	note(s, "attribute %s becomes input %d '%s'", attr, k, name);
	return set_input(s, k, name);
}

/* ---- the adapters ---------------------------------------------------------------------- */

typedef bool (*adapt_fn)(nstate *s);

/* Opset 6 removed consumed_inputs (an optimisation hint) from every operator. */
static bool drop_consumed(nstate *s)
{
	removed(s, "consumed_inputs");
	return true;
}

/* Opset 7: numpy broadcasting replaced broadcast/axis. Nodes with broadcast=1 are
 * the rewrite's candidates (B reshaped first); without it the shapes had to be
 * equal, which numpy computes the same way. */
static bool drop_broadcast(nstate *s)
{
	removed(s, "broadcast");
	removed(s, "axis");
	return true;
}

/* is_test=0, stated: the node runs in training mode (batch statistics, random
 * drops), which the operators lost at opset 7 (onnx's own version converter refuses
 * it too). Absent, the old default, is read as the inference models mean it. */
static bool training_refused(nstate *s)
{
	sattr *a = get(s, "is_test");
	if (a && a->type == AT_INT && a->i == 0)
		return refuse(s, "is_test=0 asks for training mode, which opset 7 has no attribute for");
	return false;
}

static bool batchnorm7(nstate *s)
{
	if (training_refused(s))
		return true;
	removed(s, "is_test");
	return drop_outputs_after(s, 1, "opset 7 gives running statistics only in training mode");
}

static bool batchnorm9(nstate *s)
{
	sattr *a = get(s, "spatial");
	if (a && a->type == AT_INT && a->i == 0)
		return refuse(s, "spatial=0 (per-activation statistics) has no equivalent from opset 9");
	removed(s, "spatial");
	return true;
}

static bool batchnorm14(nstate *s)
{
	return drop_outputs_after(s, 1, "opset 14 gives running statistics only in training mode");
}

/* Cast-1 names the type ("FLOAT"); Cast-6 takes the DataType number. */
static bool cast6(nstate *s)
{
	sattr *a = get(s, "to");
	if (!a || a->type != AT_STRING)
		return true;
	for (int32_t t = 1; t < DT_COUNT; t++) {
		const char *name = dtype_name(t);
		if (name && a->s && !strcmp(name, a->s)) {
			note(s, "to '%s' becomes %d", a->s, t);
			return put_i(s, "to", t);
		}
	}
	return refuse(s, "attribute 'to' names no data type ('%s')", a->s ? a->s : "");
}

/* Clip-11 takes min and max as inputs (absent: no bound). */
static bool clip11(nstate *s)
{
	sattr *lo = get(s, "min"), *hi = get(s, "max");
	if (lo && (!scalar_to_input(s, "min", 1, lo->f) || s->refused))
		return !s->r->nomem;
	if (hi && (!scalar_to_input(s, "max", 2, hi->f) || s->refused))
		return !s->r->nomem;
	if (lo)
		lo->gone = true;
	if (hi)
		hi->gone = true;
	return true;
}

/* Concat-1's axis defaulted to 1; Concat-4 requires it. */
static bool concat4(nstate *s)
{
	if (get(s, "axis"))
		return true;
	note(s, "axis 1 (the old default) made explicit");
	return put_i(s, "axis", 1);
}

/* Dropout-7 has no is_test: runtimes run it as inference (identity). */
static bool dropout7(nstate *s)
{
	if (training_refused(s))
		return true;
	removed(s, "is_test");
	return true;
}

/* Dropout-10's mask is BOOL (it had the data's type). */
static bool dropout10(nstate *s) { return drop_outputs_after(s, 1, "its type changes to BOOL at opset 10"); }

/* Dropout-12 takes ratio as an input (a float scalar; absent: 0.5). */
static bool dropout12(nstate *s)
{
	sattr *a = get(s, "ratio");
	if (!a)
		return true;
	const char *name;
	if (!rw_scalar(s->r, s->g, s->base, "ratio", DT_FLOAT, a->f, &name))
		return false;
	a->gone = true;
	note(s, "attribute ratio becomes input 1 '%s'", name);
	return set_input(s, 1, name);
}

/* Upsample-1 had height_scale/width_scale on NCHW and mode bilinear; 7 has scales
 * over every axis and mode linear. */
static bool upsample7(nstate *s)
{
	sattr *h = get(s, "height_scale"), *w = get(s, "width_scale"), *mode = get(s, "mode");
	if (!h || !w)
		return refuse(s, "height_scale and width_scale are required");
	float *sc = arena_array(s->r->m->arena, 4, sizeof *sc);
	if (!sc)
		return OOM(s->r), false;
	sc[0] = sc[1] = 1.0f;
	sc[2] = h->f;
	sc[3] = w->f;
	h->gone = w->gone = true;
	note(s, "height_scale, width_scale become scales [1, 1, %g, %g]", (double)sc[2], (double)sc[3]);
	if (mode && mode->type == AT_STRING && mode->s && !strcmp(mode->s, "bilinear")) {
		note(s, "mode bilinear becomes linear");
		if (!put_s(s, "mode", "linear"))
			return false;
	}
	return put_floats(s, "scales", sc, 4);
}

/* Upsample-9 takes scales as an input. */
static bool upsample9(nstate *s)
{
	sattr *a = get(s, "scales");
	if (!a || a->type != AT_FLOATS)
		return refuse(s, "attribute 'scales' is missing");
	double v[64];
	if (a->n > 64)
		return refuse(s, "more than 64 scales");
	for (int32_t k = 0; k < a->n; k++)
		v[k] = a->floats[k];
	const char *name = rw_init_name(s->r, s->base, "scales");
	int64_t dims[1] = {a->n};
	if (s->r->apply && !edit_add_initializer(s->r->e, s->g, name, DT_FLOAT, dims, 1, NULL, v))
		return OOM(s->r), false;
	s->r->ninits++;
	a->gone = true;
	note(s, "attribute scales becomes input 1 '%s'", name);
	return set_input(s, 1, name);
}

static bool deprecated(nstate *s)
{
	return refuse(s, "%s is deprecated at opset %lld (raise to %lld at most, or replace it)", s->n->op_type,
		      (long long)s->step, (long long)s->step - 1);
}

static bool changed_meaning(nstate *s)
{
	return refuse(s, "%s changed its inputs or meaning at opset %lld and onnxshape has no adapter for it",
		      s->n->op_type, (long long)s->step);
}

/* RNN, GRU, LSTM: opset 7 dropped output_sequence (Y is simply optional). */
static bool rnn7(nstate *s)
{
	removed(s, "output_sequence");
	return true;
}

/* LpPool-2, GlobalLpPool-2: p is an integer (it was a float). */
static bool lppool2(nstate *s)
{
	sattr *a = get(s, "p");
	if (!a || a->type != AT_FLOAT)
		return true;
	if (a->f != floorf(a->f) || a->f < 1 || a->f > 1e9f)
		return refuse(s, "p = %g is not a positive integer", (double)a->f);
	note(s, "p becomes an integer");
	return put_i(s, "p", (int64_t)a->f);
}

/* The dims of input k as inference knows them (symbols resolved); rank -1 when
 * unknown. At most 64 dims. */
static int32_t input_dims(nstate *s, int32_t k, dim *d)
{
	const value *v = input_value(s, k);
	if (!v || v->ti.kind != TK_TENSOR || v->ti.rank < 0 || v->ti.rank > 64)
		return -1;
	for (int32_t i = 0; i < v->ti.rank; i++)
		d[i] = dim_resolve(&s->r->m->syms, v->ti.dims[i]);
	return v->ti.rank;
}

/* PRelu before 7 read a slope of one element as shared and a 1-D slope as one value
 * per channel: axis 1 of X (the operator and its wording came from Caffe2, whose
 * PRelu is per channel). PRelu-7 broadcasts the slope numpy's way, right-aligned: a
 * 1-D slope of C values on X of rank n > 2 must become (C, 1, ..., 1) to stay on
 * the channels. A slope of X's own shape means the same under both; any other
 * shape had no stated meaning and is refused rather than guessed. */
static bool prelu7(nstate *s)
{
	dim x[64], sl[64];
	int32_t xr = input_dims(s, 0, x), sr = input_dims(s, 1, sl);
	if (xr < 0 || sr < 0)
		return refuse(s, "the ranks of X and slope must be known: PRelu-7 broadcasts slope numpy's way, "
				 "where a 1-D slope was per channel before");
	bool ones = true, same = sr == xr;
	for (int32_t k = 0; k < sr; k++) {
		ones = ones && sl[k].kind == DIM_KNOWN && sl[k].v == 1;
		same = same && dim_eq(sl[k], x[k]);
	}
	if (ones || same || (sr == 1 && xr == 2))
		return true; /* shared, elementwise, or right alignment is already axis 1 */
	if (sr != 1 || xr < 2)
		return refuse(s, "slope of rank %d on X of rank %d: only a slope of one element, of X's shape, or of "
				 "one value per channel has a meaning before opset 7", sr, xr);
	if (sl[0].kind == DIM_KNOWN && x[1].kind == DIM_KNOWN && sl[0].v != x[1].v)
		return refuse(s, "slope has %lld values for %lld channels", (long long)sl[0].v, (long long)x[1].v);
	rw *r = s->r;
	int64_t axes[63];
	for (int32_t k = 0; k < xr - 2; k++)
		axes[k] = k + 1;
	struct Onnx__NodeProto *np;
	const char *placed, *slope = s->inputs[1];
	if (sl[0].kind == DIM_KNOWN) {
		int64_t shp[64] = {sl[0].v};
		for (int32_t k = 1; k < xr - 1; k++)
			shp[k] = 1;
		const char *sn;
		const char *in[2] = {slope, NULL};
		if (!rw_ints(r, s->g, s->base, "slope_shape", shp, xr - 1, &sn))
			return false;
		in[1] = sn;
		if (!rw_insert(r, s->g, s->ni, "Reshape", s->base, "slope_per_channel", 2, in, &placed, &np))
			return false;
	} else if (r->to >= 13) {
		const char *an;
		if (!rw_ints(r, s->g, s->base, "slope_axes", axes, xr - 2, &an))
			return false;
		const char *in[2] = {slope, an};
		if (!rw_insert(r, s->g, s->ni, "Unsqueeze", s->base, "slope_per_channel", 2, in, &placed, &np))
			return false;
	} else {
		const char *in[1] = {slope};
		if (!rw_insert(r, s->g, s->ni, "Unsqueeze", s->base, "slope_per_channel", 1, in, &placed, &np) ||
		    !rw_set_attr_ints(r, np, "axes", axes, xr - 2))
			return false;
	}
	note(s, "the per-channel slope '%s' reshaped to rank %d ('%s')", slope, xr - 1, placed);
	return set_input(s, 1, placed);
}

/* Pad-2 renamed paddings to pads. */
static bool pad2(nstate *s)
{
	sattr *a = get(s, "paddings");
	if (!a)
		return true;
	if (a->type != AT_INTS)
		return refuse(s, "attribute 'paddings' is not a list of integers");
	const int64_t *v = a->ints;
	int32_t n = a->n;
	a->gone = true;
	note(s, "paddings renamed pads");
	return put_ints(s, "pads", v, n);
}

/* Pad-11 takes pads and the constant as inputs. */
static bool pad11(nstate *s)
{
	if (!ints_to_input(s, "pads", 1, true) || s->refused)
		return !s->r->nomem;
	sattr *v = get(s, "value");
	if (!v)
		return true;
	v->gone = true;
	if (v->f == 0.0f) {
		note(s, "remove value 0 (the default constant)");
		return true;
	}
	return scalar_to_input(s, "value", 2, v->f);
}

static bool reshape5(nstate *s)
{
	removed(s, "consumed_inputs");
	return ints_to_input(s, "shape", 1, true);
}

static bool slice10(nstate *s)
{
	if (!ints_to_input(s, "starts", 1, true) || s->refused || !ints_to_input(s, "ends", 2, true) || s->refused)
		return !s->r->nomem;
	return ints_to_input(s, "axes", 3, false);
}

/* Split-1 could take `split` as a second input; Split-2 only as an attribute. */
static bool split2(nstate *s)
{
	const value *v = input_value(s, 1);
	if (!v)
		return true;
	if (v->ti.nval < 0 || v->ti.nval > 64)
		return refuse(s, "its 'split' input is not a known constant");
	int64_t *sp = arena_array(s->r->m->arena, v->ti.nval ? (size_t)v->ti.nval : 1, sizeof *sp);
	if (!sp)
		return OOM(s->r), false;
	for (int32_t k = 0; k < v->ti.nval; k++) {
		dim d = dim_resolve(&s->r->m->syms, v->ti.val[k]);
		if (d.kind != DIM_KNOWN)
			return refuse(s, "its 'split' input is not a known constant");
		sp[k] = d.v;
	}
	s->ninputs = 1;
	s->inputs_set = true;
	note(s, "input 'split' becomes an attribute");
	return put_ints(s, "split", sp, v->ti.nval);
}

static bool split13(nstate *s) { return ints_to_input(s, "split", 1, false); }
/* Squeeze, Unsqueeze, ReduceSum at 13: axes is an input. */
static bool axes13(nstate *s) { return ints_to_input(s, "axes", 1, false); }

static bool topk10(nstate *s)
{
	sattr *a = get(s, "k");
	if (!a || a->type != AT_INT)
		return refuse(s, "attribute 'k' is missing");
	const char *name;
	if (!rw_ints(s->r, s->g, s->base, "k", &a->i, 1, &name))
		return false;
	a->gone = true;
	note(s, "attribute k becomes input 1 '%s'", name);
	return set_input(s, 1, name);
}

/* Softmax, LogSoftmax, Hardmax before 13 flatten the input to 2-D at `axis` (default
 * 1) and normalise each row; from 13 they normalise along `axis` (default -1). The
 * same when axis is the last one; otherwise Flatten, the operator on rows, and a
 * Reshape back to the input's shape (this node becomes the Reshape). */
static bool softmax13(nstate *s)
{
	sattr *a = get(s, "axis");
	int64_t axis = a && a->type == AT_INT ? a->i : 1;
	const value *x = input_value(s, 0);
	int32_t rank = x && x->ti.kind == TK_TENSOR ? x->ti.rank : RANK_UNKNOWN;
	if (axis == -1 || (rank >= 0 && axis == rank - 1)) {
		if (axis == -1 && a)
			return true;
		note(s, "axis %lld stated as -1 (the new default meaning)", (long long)axis);
		return put_i(s, "axis", -1);
	}
	if (rank < 0)
		return refuse(s, "axis %lld is not known to be the last one (the rank of the input is unknown)",
			      (long long)axis);
	/* Flatten's axis: [-rank, rank], a negative one counting from rank. */
	int32_t at = rank;
	if (axis != rank && !shape_axis(axis, rank, &at))
		return refuse(s, "axis %lld is out of range for rank %d", (long long)axis, rank);
	axis = at;
	rw *r = s->r;
	struct Onnx__NodeProto *np;
	const char *flat, *rows, *shp;
	const char *in_f[1] = {x->name};
	if (!rw_insert(r, s->g, s->ni, "Flatten", s->base, "flattened", 1, in_f, &flat, &np) ||
	    !rw_set_attr_i(r, np, "axis", axis))
		return false;
	const char *in_o[1] = {flat};
	if (!rw_insert(r, s->g, s->ni, s->n->op_type, s->base, "rows", 1, in_o, &rows, &np) ||
	    !rw_set_attr_i(r, np, "axis", 1))
		return false;
	if (!rw_insert(r, s->g, s->ni, "Shape", s->base, "input_shape", 1, in_f, &shp, &np))
		return false;
	for (int32_t i = 0; i < s->nattrs; i++)
		s->attrs[i].gone = true;
	s->op = "Reshape";
	s->op_set = true;
	s->ninputs = 0;
	if (!set_input(s, 0, rows) || !set_input(s, 1, shp))
		return false;
	/* allowzero: a 0 in the shape is a size, not "copy" (the input may be empty). */
	if (r->to >= 14 && !put_i(s, "allowzero", 1))
		return false;
	note(s, "axis %lld of rank %d: Flatten, %s on rows, Reshape back (this node becomes the Reshape)",
	     (long long)axis, rank, s->n->op_type);
	return true;
}

/* ---- the table ------------------------------------------------------------------------- */

typedef struct op_step {
	const char *op;
	int64_t since;
	adapt_fn fn; /* NULL: the meaning of every valid node is kept */
} op_step;

/* Every ai.onnx operator up to opset 17 with every since_version (onnx 1.12's schema
 * history), grouped by operator, versions ascending. */
static const op_step steps[] = {
	{"Abs", 1, NULL}, {"Abs", 6, drop_consumed}, {"Abs", 13, NULL},
	{"Acos", 7, NULL}, {"Acosh", 9, NULL},
	{"Add", 1, NULL}, {"Add", 6, drop_consumed}, {"Add", 7, drop_broadcast}, {"Add", 13, NULL}, {"Add", 14, NULL},
	{"And", 1, NULL}, {"And", 7, drop_broadcast},
	{"ArgMax", 1, NULL}, {"ArgMax", 11, NULL}, {"ArgMax", 12, NULL}, {"ArgMax", 13, NULL},
	{"ArgMin", 1, NULL}, {"ArgMin", 11, NULL}, {"ArgMin", 12, NULL}, {"ArgMin", 13, NULL},
	{"Asin", 7, NULL}, {"Asinh", 9, NULL}, {"Atan", 7, NULL}, {"Atanh", 9, NULL},
	{"AveragePool", 1, NULL}, {"AveragePool", 7, NULL}, {"AveragePool", 10, NULL}, {"AveragePool", 11, NULL},
	{"BatchNormalization", 1, NULL}, {"BatchNormalization", 6, drop_consumed},
	{"BatchNormalization", 7, batchnorm7}, {"BatchNormalization", 9, batchnorm9},
	{"BatchNormalization", 14, batchnorm14}, {"BatchNormalization", 15, NULL},
	{"Bernoulli", 15, NULL}, {"BitShift", 11, NULL}, {"BlackmanWindow", 17, NULL},
	{"Cast", 1, NULL}, {"Cast", 6, cast6}, {"Cast", 9, NULL}, {"Cast", 13, NULL},
	{"CastLike", 15, NULL},
	{"Ceil", 1, NULL}, {"Ceil", 6, drop_consumed}, {"Ceil", 13, NULL},
	{"Celu", 12, NULL},
	{"Clip", 1, NULL}, {"Clip", 6, drop_consumed}, {"Clip", 11, clip11}, {"Clip", 12, NULL}, {"Clip", 13, NULL},
	{"Compress", 9, NULL}, {"Compress", 11, NULL},
	{"Concat", 1, NULL}, {"Concat", 4, concat4}, {"Concat", 11, NULL}, {"Concat", 13, NULL},
	{"ConcatFromSequence", 11, NULL},
	{"Constant", 1, NULL}, {"Constant", 9, NULL}, {"Constant", 11, NULL}, {"Constant", 12, NULL},
	{"Constant", 13, NULL},
	{"ConstantOfShape", 9, NULL},
	{"Conv", 1, NULL}, {"Conv", 11, NULL},
	{"ConvInteger", 10, NULL},
	{"ConvTranspose", 1, NULL}, {"ConvTranspose", 11, NULL},
	{"Cos", 7, NULL}, {"Cosh", 9, NULL},
	{"CumSum", 11, NULL}, {"CumSum", 14, NULL},
	{"DFT", 17, NULL},
	{"DepthToSpace", 1, NULL}, {"DepthToSpace", 11, NULL}, {"DepthToSpace", 13, NULL},
	{"DequantizeLinear", 10, NULL}, {"DequantizeLinear", 13, NULL},
	{"Det", 11, NULL},
	{"Div", 1, NULL}, {"Div", 6, drop_consumed}, {"Div", 7, drop_broadcast}, {"Div", 13, NULL}, {"Div", 14, NULL},
	{"Dropout", 1, NULL}, {"Dropout", 6, drop_consumed}, {"Dropout", 7, dropout7}, {"Dropout", 10, dropout10},
	{"Dropout", 12, dropout12}, {"Dropout", 13, NULL},
	{"DynamicQuantizeLinear", 11, NULL},
	{"Einsum", 12, NULL},
	{"Elu", 1, NULL}, {"Elu", 6, drop_consumed},
	{"Equal", 1, NULL}, {"Equal", 7, drop_broadcast}, {"Equal", 11, NULL}, {"Equal", 13, NULL},
	{"Erf", 9, NULL}, {"Erf", 13, NULL},
	{"Exp", 1, NULL}, {"Exp", 6, drop_consumed}, {"Exp", 13, NULL},
	{"Expand", 8, NULL}, {"Expand", 13, NULL},
	{"EyeLike", 9, NULL},
	{"Flatten", 1, NULL}, {"Flatten", 9, NULL}, {"Flatten", 11, NULL}, {"Flatten", 13, NULL},
	{"Floor", 1, NULL}, {"Floor", 6, drop_consumed}, {"Floor", 13, NULL},
	{"GRU", 1, NULL}, {"GRU", 3, NULL}, {"GRU", 7, rnn7}, {"GRU", 14, NULL},
	{"Gather", 1, NULL}, {"Gather", 11, NULL}, {"Gather", 13, NULL},
	{"GatherElements", 11, NULL}, {"GatherElements", 13, NULL},
	{"GatherND", 11, NULL}, {"GatherND", 12, NULL}, {"GatherND", 13, NULL},
	{"Gemm", 1, NULL}, {"Gemm", 6, drop_consumed}, {"Gemm", 7, drop_broadcast}, {"Gemm", 9, NULL},
	{"Gemm", 11, NULL}, {"Gemm", 13, NULL},
	{"GlobalAveragePool", 1, NULL},
	{"GlobalLpPool", 1, NULL}, {"GlobalLpPool", 2, lppool2},
	{"GlobalMaxPool", 1, NULL},
	{"Greater", 1, NULL}, {"Greater", 7, drop_broadcast}, {"Greater", 9, NULL}, {"Greater", 13, NULL},
	{"GreaterOrEqual", 12, NULL}, {"GreaterOrEqual", 16, NULL},
	{"GridSample", 16, NULL},
	{"HammingWindow", 17, NULL}, {"HannWindow", 17, NULL},
	{"HardSigmoid", 1, NULL}, {"HardSigmoid", 6, drop_consumed},
	{"HardSwish", 14, NULL},
	{"Hardmax", 1, NULL}, {"Hardmax", 11, NULL}, {"Hardmax", 13, softmax13},
	{"Identity", 1, NULL}, {"Identity", 13, NULL}, {"Identity", 14, NULL}, {"Identity", 16, NULL},
	{"If", 1, NULL}, {"If", 11, NULL}, {"If", 13, NULL}, {"If", 16, NULL},
	{"InstanceNormalization", 1, NULL}, {"InstanceNormalization", 6, drop_consumed},
	{"IsInf", 10, NULL},
	{"IsNaN", 9, NULL}, {"IsNaN", 13, NULL},
	{"LRN", 1, NULL}, {"LRN", 13, NULL},
	{"LSTM", 1, NULL}, {"LSTM", 7, rnn7}, {"LSTM", 14, NULL},
	{"LayerNormalization", 17, NULL},
	{"LeakyRelu", 1, NULL}, {"LeakyRelu", 6, drop_consumed}, {"LeakyRelu", 16, NULL},
	{"Less", 1, NULL}, {"Less", 7, drop_broadcast}, {"Less", 9, NULL}, {"Less", 13, NULL},
	{"LessOrEqual", 12, NULL}, {"LessOrEqual", 16, NULL},
	{"Log", 1, NULL}, {"Log", 6, drop_consumed}, {"Log", 13, NULL},
	{"LogSoftmax", 1, NULL}, {"LogSoftmax", 11, NULL}, {"LogSoftmax", 13, softmax13},
	{"Loop", 1, NULL}, {"Loop", 11, NULL}, {"Loop", 13, NULL}, {"Loop", 16, NULL},
	{"LpNormalization", 1, NULL},
	{"LpPool", 1, NULL}, {"LpPool", 2, lppool2}, {"LpPool", 11, NULL},
	{"MatMul", 1, NULL}, {"MatMul", 9, NULL}, {"MatMul", 13, NULL},
	{"MatMulInteger", 10, NULL},
	{"Max", 1, NULL}, {"Max", 6, drop_consumed}, {"Max", 8, NULL}, {"Max", 12, NULL}, {"Max", 13, NULL},
	{"MaxPool", 1, NULL}, {"MaxPool", 8, NULL}, {"MaxPool", 10, NULL}, {"MaxPool", 11, NULL},
	{"MaxPool", 12, NULL},
	{"MaxRoiPool", 1, NULL},
	{"MaxUnpool", 9, NULL}, {"MaxUnpool", 11, NULL},
	{"Mean", 1, NULL}, {"Mean", 6, drop_consumed}, {"Mean", 8, NULL}, {"Mean", 13, NULL},
	{"MeanVarianceNormalization", 9, NULL}, {"MeanVarianceNormalization", 13, NULL},
	{"MelWeightMatrix", 17, NULL},
	{"Min", 1, NULL}, {"Min", 6, drop_consumed}, {"Min", 8, NULL}, {"Min", 12, NULL}, {"Min", 13, NULL},
	{"Mod", 10, NULL}, {"Mod", 13, NULL},
	{"Mul", 1, NULL}, {"Mul", 6, drop_consumed}, {"Mul", 7, drop_broadcast}, {"Mul", 13, NULL}, {"Mul", 14, NULL},
	{"Multinomial", 7, NULL},
	{"Neg", 1, NULL}, {"Neg", 6, drop_consumed}, {"Neg", 13, NULL},
	{"NegativeLogLikelihoodLoss", 12, NULL}, {"NegativeLogLikelihoodLoss", 13, NULL},
	{"NonMaxSuppression", 10, NULL}, {"NonMaxSuppression", 11, NULL},
	{"NonZero", 9, NULL}, {"NonZero", 13, NULL},
	{"Not", 1, NULL},
	{"OneHot", 9, NULL}, {"OneHot", 11, NULL},
	{"Optional", 15, NULL}, {"OptionalGetElement", 15, NULL}, {"OptionalHasElement", 15, NULL},
	{"Or", 1, NULL}, {"Or", 7, drop_broadcast},
	{"PRelu", 1, NULL}, {"PRelu", 6, drop_consumed}, {"PRelu", 7, prelu7}, {"PRelu", 9, NULL}, {"PRelu", 16, NULL},
	{"Pad", 1, NULL}, {"Pad", 2, pad2}, {"Pad", 11, pad11}, {"Pad", 13, NULL},
	{"Pow", 1, NULL}, {"Pow", 7, drop_broadcast}, {"Pow", 12, NULL}, {"Pow", 13, NULL}, {"Pow", 15, NULL},
	{"QLinearConv", 10, NULL}, {"QLinearMatMul", 10, NULL},
	{"QuantizeLinear", 10, NULL}, {"QuantizeLinear", 13, NULL},
	{"RNN", 1, NULL}, {"RNN", 7, rnn7}, {"RNN", 14, NULL},
	{"RandomNormal", 1, NULL}, {"RandomNormalLike", 1, NULL}, {"RandomUniform", 1, NULL},
	{"RandomUniformLike", 1, NULL},
	{"Range", 11, NULL},
	{"Reciprocal", 1, NULL}, {"Reciprocal", 6, drop_consumed}, {"Reciprocal", 13, NULL},
	{"ReduceL1", 1, NULL}, {"ReduceL1", 11, NULL}, {"ReduceL1", 13, NULL},
	{"ReduceL2", 1, NULL}, {"ReduceL2", 11, NULL}, {"ReduceL2", 13, NULL},
	{"ReduceLogSum", 1, NULL}, {"ReduceLogSum", 11, NULL}, {"ReduceLogSum", 13, NULL},
	{"ReduceLogSumExp", 1, NULL}, {"ReduceLogSumExp", 11, NULL}, {"ReduceLogSumExp", 13, NULL},
	{"ReduceMax", 1, NULL}, {"ReduceMax", 11, NULL}, {"ReduceMax", 12, NULL}, {"ReduceMax", 13, NULL},
	{"ReduceMean", 1, NULL}, {"ReduceMean", 11, NULL}, {"ReduceMean", 13, NULL},
	{"ReduceMin", 1, NULL}, {"ReduceMin", 11, NULL}, {"ReduceMin", 12, NULL}, {"ReduceMin", 13, NULL},
	{"ReduceProd", 1, NULL}, {"ReduceProd", 11, NULL}, {"ReduceProd", 13, NULL},
	{"ReduceSum", 1, NULL}, {"ReduceSum", 11, NULL}, {"ReduceSum", 13, axes13},
	{"ReduceSumSquare", 1, NULL}, {"ReduceSumSquare", 11, NULL}, {"ReduceSumSquare", 13, NULL},
	{"Relu", 1, NULL}, {"Relu", 6, drop_consumed}, {"Relu", 13, NULL}, {"Relu", 14, NULL},
	{"Reshape", 1, NULL}, {"Reshape", 5, reshape5}, {"Reshape", 13, NULL}, {"Reshape", 14, NULL},
	{"Resize", 10, NULL}, {"Resize", 11, changed_meaning}, {"Resize", 13, NULL},
	{"ReverseSequence", 10, NULL},
	{"RoiAlign", 10, NULL}, {"RoiAlign", 16, NULL},
	{"Round", 11, NULL},
	{"STFT", 17, NULL},
	{"Scan", 8, NULL}, {"Scan", 9, changed_meaning}, {"Scan", 11, NULL}, {"Scan", 16, NULL},
	{"Scatter", 9, NULL}, {"Scatter", 11, NULL},
	{"ScatterElements", 11, NULL}, {"ScatterElements", 13, NULL}, {"ScatterElements", 16, NULL},
	{"ScatterND", 11, NULL}, {"ScatterND", 13, NULL}, {"ScatterND", 16, NULL},
	{"Selu", 1, NULL}, {"Selu", 6, drop_consumed},
	{"SequenceAt", 11, NULL}, {"SequenceConstruct", 11, NULL}, {"SequenceEmpty", 11, NULL},
	{"SequenceErase", 11, NULL}, {"SequenceInsert", 11, NULL}, {"SequenceLength", 11, NULL},
	{"SequenceMap", 17, NULL},
	{"Shape", 1, NULL}, {"Shape", 13, NULL}, {"Shape", 15, NULL},
	{"Shrink", 9, NULL},
	{"Sigmoid", 1, NULL}, {"Sigmoid", 6, drop_consumed}, {"Sigmoid", 13, NULL},
	{"Sign", 9, NULL}, {"Sign", 13, NULL},
	{"Sin", 7, NULL}, {"Sinh", 9, NULL},
	{"Size", 1, NULL}, {"Size", 13, NULL},
	{"Slice", 1, NULL}, {"Slice", 10, slice10}, {"Slice", 11, NULL}, {"Slice", 13, NULL},
	{"Softmax", 1, NULL}, {"Softmax", 11, NULL}, {"Softmax", 13, softmax13},
	{"SoftmaxCrossEntropyLoss", 12, NULL}, {"SoftmaxCrossEntropyLoss", 13, NULL},
	{"Softplus", 1, NULL}, {"Softsign", 1, NULL},
	{"SpaceToDepth", 1, NULL}, {"SpaceToDepth", 13, NULL},
	{"Split", 1, NULL}, {"Split", 2, split2}, {"Split", 11, NULL}, {"Split", 13, split13},
	{"SplitToSequence", 11, NULL},
	{"Sqrt", 1, NULL}, {"Sqrt", 6, drop_consumed}, {"Sqrt", 13, NULL},
	{"Squeeze", 1, NULL}, {"Squeeze", 11, NULL}, {"Squeeze", 13, axes13},
	{"StringNormalizer", 10, NULL},
	{"Sub", 1, NULL}, {"Sub", 6, drop_consumed}, {"Sub", 7, drop_broadcast}, {"Sub", 13, NULL}, {"Sub", 14, NULL},
	{"Sum", 1, NULL}, {"Sum", 6, drop_consumed}, {"Sum", 8, NULL}, {"Sum", 13, NULL},
	{"Tan", 7, NULL},
	{"Tanh", 1, NULL}, {"Tanh", 6, drop_consumed}, {"Tanh", 13, NULL},
	{"TfIdfVectorizer", 9, NULL},
	{"ThresholdedRelu", 10, NULL},
	{"Tile", 1, NULL}, {"Tile", 6, changed_meaning}, {"Tile", 13, NULL},
	{"TopK", 1, NULL}, {"TopK", 10, topk10}, {"TopK", 11, NULL},
	{"Transpose", 1, NULL}, {"Transpose", 13, NULL},
	{"Trilu", 14, NULL},
	{"Unique", 11, NULL},
	{"Unsqueeze", 1, NULL}, {"Unsqueeze", 11, NULL}, {"Unsqueeze", 13, axes13},
	{"Upsample", 1, NULL}, {"Upsample", 7, upsample7}, {"Upsample", 9, upsample9}, {"Upsample", 10, deprecated},
	{"Where", 9, NULL}, {"Where", 16, NULL},
	{"Xor", 1, NULL}, {"Xor", 7, drop_broadcast},
};

#define NSTEPS ((int32_t)(sizeof steps / sizeof steps[0]))

/* The first row of op, through a map built once per model (rows of one operator are
 * contiguous). -1 when the operator is not in the table. */
static int32_t first_step(rw *r, const char *op)
{
	if (!r->steps_built) {
		strmap_init(&r->steps_index, r->m->arena);
		for (int32_t i = 0; i < NSTEPS; i++)
			if (strmap_put(&r->steps_index, steps[i].op, i) == -2) {
				OOM(r);
				return -1;
			}
		r->steps_built = true;
	}
	return strmap_get(&r->steps_index, op);
}

/* Writes the copy back into the node's message: only what changed. */
static bool write_back(nstate *s)
{
	rw *r = s->r;
	struct Onnx__NodeProto *np = s->n->proto;
	if (s->op_set && !edit_node_set_op(r->e, np, s->op, ""))
		return OOM(r), false;
	for (int32_t i = 0; i < s->n->nattrs; i++)
		if (!get(s, s->n->attrs[i].name))
			edit_node_remove_attr(np, s->n->attrs[i].name);
	for (int32_t i = 0; i < s->nattrs; i++) {
		const sattr *a = &s->attrs[i];
		if (!a->set || a->gone)
			continue;
		bool ok = a->type == AT_INT      ? edit_node_set_attr_i(r->e, np, a->name, a->i)
			  : a->type == AT_INTS   ? edit_node_set_attr_ints(r->e, np, a->name, a->ints, a->n)
			  : a->type == AT_FLOATS ? edit_node_set_attr_floats(r->e, np, a->name, a->floats, a->n)
			  : a->type == AT_FLOAT  ? edit_node_set_attr_f(r->e, np, a->name, a->f)
						 : edit_node_set_attr_s(r->e, np, a->name, a->s ? a->s : "");
		if (!ok)
			return OOM(r), false;
	}
	if (s->inputs_set) {
		for (int32_t k = 0; k < s->ninputs; k++)
			if (!edit_node_set_input(r->e, np, k, s->inputs[k]))
				return OOM(r), false;
		edit_node_keep_inputs(np, s->ninputs);
	}
	if (s->noutputs < s->n->noutputs)
		edit_node_keep_outputs(np, s->noutputs);
	return true;
}

bool opset_adapt(rw *r, graph *g, int32_t ni, bool quiet)
{
	const node *n = &g->nodes[ni];
	int32_t first = first_step(r, n->op_type);
	if (r->nomem)
		return false;
	if (first < 0) {
		/* A model-local function of the default domain is the model's own. */
		for (int32_t gi = 0; gi < r->m->ngraphs; gi++)
			if (r->m->graphs[gi]->function && !strcmp(r->m->graphs[gi]->path + strlen("function "), n->op_type))
				return true;
		rw_error(r, g, ni, "rewrite-unsupported",
			 "cannot raise %s from opset %lld to %lld: onnxshape knows no history for this operator",
			 n->op_type, (long long)r->from, (long long)r->to);
		return true;
	}
	if (steps[first].since > r->from) {
		rw_error(r, g, ni, "rewrite-unsupported", "%s does not exist at opset %lld (it came with opset %lld)",
			 n->op_type, (long long)r->from, (long long)steps[first].since);
		return true;
	}
	nstate st = {.r = r, .g = g, .ni = ni, .n = n, .op = n->op_type, .ninputs = n->ninputs,
		     .noutputs = n->noutputs};
	st.base = rw_base(r, g, ni);
	st.attrs = arena_array(r->m->arena, (size_t)n->nattrs + 1, sizeof *st.attrs);
	st.inputs = arena_array(r->m->arena, (size_t)n->ninputs + 1, sizeof *st.inputs);
	if (!st.attrs || !st.inputs)
		return OOM(r), false;
	st.nattrs = st.cap_attrs = n->nattrs;
	for (int32_t i = 0; i < n->nattrs; i++) {
		const attr_view *a = &n->attrs[i];
		/* attr_view's payload pointers share a union: copy only the type's own,
		 * or an INTS attribute would also read as a string here. */
		st.attrs[i] = (sattr){.name = a->name, .type = a->type, .i = a->i, .f = a->f,
				      .s = a->type == AT_STRING ? a->s : NULL,
				      .ints = a->type == AT_INTS ? a->ints : NULL,
				      .floats = a->type == AT_FLOATS ? a->floats : NULL, .n = a->n};
	}
	for (int32_t k = 0; k < n->ninputs; k++)
		st.inputs[k] = n->inputs[k] >= 0 ? g->values[n->inputs[k]].name : "";
	for (int32_t i = first; i < NSTEPS && !strcmp(steps[i].op, n->op_type); i++) {
		if (steps[i].since <= r->from || steps[i].since > r->to || !steps[i].fn)
			continue;
		st.step = steps[i].since;
		if (!steps[i].fn(&st))
			return false;
		/* A refusal ends the node; a node that became another operator was built
		 * for the target opset already. */
		if (st.refused || st.op_set)
			break;
	}
	if (st.refused)
		return !r->nomem;
	if (st.changed && !quiet) {
		r->rep->n_adapted++;
		rw_change(r, g, ni, "opset", "%s %lld -> %lld: %.*s", n->op_type, (long long)r->from, (long long)r->to,
			  (int)st.wlen, st.what);
	}
	if (r->apply && st.changed && !write_back(&st))
		return false;
	return !r->nomem;
}
