/* rewrite_opset.c: converting a model's ai.onnx opset, up or down: every node adapted
 * so that it means the same at the target version, or refused.
 *
 * The steps are every version of every operator in the schema table
 * (src/core/schema), each with an adapter for each direction: KEPT where the change
 * kept the meaning of every valid node (new types, new optional inputs or attributes
 * whose defaults are the old behaviour), NONE where no exact adapter exists. Only the
 * versions that need an adapter or a refusal are kept by hand (opset_steps.def, which
 * says what the others get; tests/opset/check_steps.py holds every changed version to
 * a row there or a review). A node is taken through every
 * step between the model's opset and the target, in order (downward: the newest
 * first), following a rename onto the new operator's rows (Upsample to Resize at 10,
 * Scatter to ScatterElements at 11, and back); an operator the target predates is
 * replaced by its first row's downward adapter (a decomposition by the operator's own
 * definition: Gelu, LayerNormalization, RMSNormalization...) or refused. Then the
 * node as adapted is checked against the target's schema row (fit): an attribute the
 * target does not know is dropped when it holds its default, refused otherwise;
 * inputs and outputs within the target's counts; downward, the element types the
 * target takes; and a version ONNX Runtime has no kernel for, where it ran the
 * node's own, is refused. A default that changed between versions is written out
 * (RoiAlign's coordinate_transformation_mode at 16, Resize's at 11, Selu's alpha at
 * 6), so the rewrite never writes a model that runs and computes something else.
 *
 * Adapters work on a scratch copy of the node (op, attributes, inputs, output count;
 * opset_node.h, with the kit they edit it with) and the editing run writes the copy
 * back, touching only what changed; nodes and initializers they need are created for
 * the target opset, before the node. The decompositions of operators a target
 * predates are in opset_decompose.c and opset_attention.c.
 *
 * Invariant: an adapter decides from the node's IR (its attributes as loaded and
 * what inference knows about its inputs) and the copy, never from the messages, so
 * the planning and editing runs take the same decisions.
 */
#include "core/dtype.h"
#include "core/grow.h"
#include "core/schema/kernels.h"
#include "core/schema/schema.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "core/type_memo.h"
#include "passes/rewrite/opset_node.h"
#include "passes/rewrite/rewrite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t opset_min_ir(int64_t opset)
{
	/* From onnx/helper.py's VERSION_TABLE: the IR version each opset came with. */
	static const int64_t ir[] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5, 6, 7, 7, 7, 8, 8, 8, 8, 9, 9, 10, 10, 11, 12, 13, 13};
	if (opset < 1)
		return 3;
	return opset < (int64_t)(sizeof ir / sizeof ir[0]) ? ir[opset] : 13;
}

/* ---- the adapters ---------------------------------------------------------------------- */

/* Opset 6 removed consumed_inputs (an optimisation hint) from every operator. */
static bool up_drop_consumed(nstate *s)
{
	ns_removed(s, "consumed_inputs");
	return true;
}

/* Opset 7: numpy broadcasting replaced broadcast/axis. Nodes with broadcast=1 are
 * the rewrite's candidates (B reshaped first); without it the shapes had to be
 * equal, which numpy computes the same way. */
static bool up_drop_broadcast(nstate *s)
{
	ns_removed(s, "broadcast");
	ns_removed(s, "axis");
	return true;
}

/* is_test=0, stated: the node runs in training mode (batch statistics, random
 * drops), which the operators lost at opset 7 (onnx's own version converter refuses
 * it too). Absent, the old default, is read as the inference models mean it. */
static bool training_refused(nstate *s)
{
	sattr *a = ns_get(s, "is_test");
	if (a && a->type == AT_INT && a->i == 0)
		return ns_refuse(s, "is_test=0 asks for training mode, which opset 7 has no attribute for");
	return false;
}

static bool up_batchnorm7(nstate *s)
{
	if (training_refused(s))
		return true;
	ns_removed(s, "is_test");
	return ns_drop_outputs_after(s, 1, "opset 7 gives running statistics only in training mode");
}

static bool up_batchnorm9(nstate *s)
{
	sattr *a = ns_get(s, "spatial");
	if (a && a->type == AT_INT && a->i == 0)
		return ns_refuse(s, "spatial=0 (per-activation statistics) has no equivalent from opset 9");
	ns_removed(s, "spatial");
	return true;
}

static bool up_batchnorm14(nstate *s)
{
	return ns_drop_outputs_after(s, 1, "opset 14 gives running statistics only in training mode");
}

/* Cast-1 names the type ("FLOAT"); Cast-6 takes the DataType number. */
static bool up_cast6(nstate *s)
{
	sattr *a = ns_get(s, "to");
	if (!a || a->type != AT_STRING)
		return true;
	for (int32_t t = 1; t < DT_COUNT; t++) {
		const char *name = dtype_name(t);
		if (name && a->s && !strcmp(name, a->s)) {
			ns_note(s, "to '%s' becomes %d", a->s, t);
			return ns_put_i(s, "to", t);
		}
	}
	return ns_refuse(s, "attribute 'to' names no data type ('%s')", a->s ? a->s : "");
}

/* Clip-11 takes min and max as inputs (absent: no bound). */
static bool up_clip11(nstate *s)
{
	sattr *lo = ns_get(s, "min"), *hi = ns_get(s, "max");
	if (lo && (!ns_scalar_to_input(s, "min", 1, lo->f) || s->refused))
		return !s->r->m->nomem;
	if (hi && (!ns_scalar_to_input(s, "max", 2, hi->f) || s->refused))
		return !s->r->m->nomem;
	if (lo)
		lo->gone = true;
	if (hi)
		hi->gone = true;
	return true;
}

/* Concat-1's axis defaulted to 1; Concat-4 requires it. */
static bool up_concat4(nstate *s)
{
	if (ns_get(s, "axis"))
		return true;
	ns_note(s, "axis 1 (the old default) made explicit");
	return ns_put_i(s, "axis", 1);
}

/* Dropout-7 has no is_test: runtimes run it as inference (identity). */
static bool up_dropout7(nstate *s)
{
	if (training_refused(s))
		return true;
	ns_removed(s, "is_test");
	return true;
}

/* Dropout-10's mask is BOOL (it had the data's type). */
static bool up_dropout10(nstate *s) { return ns_drop_outputs_after(s, 1, "its type changes to BOOL at opset 10"); }

/* Dropout-12 takes ratio as an input (a float scalar; absent: 0.5). */
static bool up_dropout12(nstate *s)
{
	sattr *a = ns_get(s, "ratio");
	if (!a)
		return true;
	const char *name;
	if (!rw_scalar(s->r, s->g, s->base, "ratio", DT_FLOAT, a->f, &name))
		return false;
	a->gone = true;
	ns_note(s, "attribute ratio becomes input 1 '%s'", name);
	return ns_set_input(s, 1, name);
}

/* Upsample-1 had height_scale/width_scale on NCHW and mode bilinear; 7 has scales
 * over every axis and mode linear. */
static bool up_upsample7(nstate *s)
{
	sattr *h = ns_get(s, "height_scale"), *w = ns_get(s, "width_scale"), *mode = ns_get(s, "mode");
	if (!h || !w)
		return ns_refuse(s, "height_scale and width_scale are required");
	float *sc = arena_array(s->r->m->arena, 4, sizeof *sc);
	if (!sc)
		return rw_nomem(s->r), false;
	sc[0] = sc[1] = 1.0f;
	sc[2] = h->f;
	sc[3] = w->f;
	h->gone = w->gone = true;
	ns_note(s, "height_scale, width_scale become scales [1, 1, %g, %g]", (double)sc[2], (double)sc[3]);
	if (mode && mode->type == AT_STRING && mode->s && !strcmp(mode->s, "bilinear")) {
		ns_note(s, "mode bilinear becomes linear");
		if (!ns_put_s(s, "mode", "linear"))
			return false;
	}
	return ns_put_floats(s, "scales", sc, 4);
}

/* Upsample-9 takes scales as an input. */
static bool up_upsample9(nstate *s)
{
	sattr *a = ns_get(s, "scales");
	if (!a || a->type != AT_FLOATS)
		return ns_refuse(s, "attribute 'scales' is missing");
	double v[64];
	if (a->n > 64)
		return ns_refuse(s, "more than 64 scales");
	for (int32_t k = 0; k < a->n; k++)
		v[k] = a->floats[k];
	const char *name = rw_init_name(s->r, s->base, "scales");
	int64_t dims[1] = {a->n};
	if (s->r->apply && !edit_add_initializer(s->r->e, s->g, name, DT_FLOAT, dims, 1, NULL, v))
		return rw_nomem(s->r), false;
	s->r->ninits++;
	a->gone = true;
	ns_note(s, "attribute scales becomes input 1 '%s'", name);
	return ns_set_input(s, 1, name);
}

/* RNN, GRU, LSTM: opset 7 dropped output_sequence (Y is simply optional). */
static bool up_rnn7(nstate *s)
{
	ns_removed(s, "output_sequence");
	return true;
}

/* LpPool-2, GlobalLpPool-2: p is an integer (it was a float). */
static bool up_lppool2(nstate *s)
{
	sattr *a = ns_get(s, "p");
	if (!a || a->type != AT_FLOAT)
		return true;
	if (a->f != floorf(a->f) || a->f < 1 || a->f > 1e9f)
		return ns_refuse(s, "p = %g is not a positive integer", (double)a->f);
	ns_note(s, "p becomes an integer");
	return ns_put_i(s, "p", (int64_t)a->f);
}

/* PRelu before 7 read a slope of one element as shared and a 1-D slope as one value
 * per channel: axis 1 of X (the operator and its wording came from Caffe2, whose
 * PRelu is per channel). PRelu-7 broadcasts the slope numpy's way, right-aligned: a
 * 1-D slope of C values on X of rank n > 2 must become (C, 1, ..., 1) to stay on
 * the channels. A slope of X's own shape means the same under both; any other
 * shape had no stated meaning and is refused rather than guessed. */
static bool up_prelu7(nstate *s)
{
	dim x[64], sl[64];
	int32_t xr = ns_input_dims(s, 0, x), sr = ns_input_dims(s, 1, sl);
	if (xr < 0 || sr < 0)
		return ns_refuse(s, "the ranks of X and slope must be known: PRelu-7 broadcasts slope numpy's way, "
				 "where a 1-D slope was per channel before");
	bool ones = true, same = sr == xr;
	for (int32_t k = 0; k < sr; k++) {
		ones = ones && sl[k].kind == DIM_KNOWN && sl[k].v == 1;
		same = same && dim_eq(sl[k], x[k]);
	}
	if (ones || same || (sr == 1 && xr == 2))
		return true; /* shared, elementwise, or right alignment is already axis 1 */
	if (sr != 1 || xr < 2)
		return ns_refuse(s, "slope of rank %d on X of rank %d: only a slope of one element, of X's shape, or of "
				 "one value per channel has a meaning before opset 7", sr, xr);
	if (sl[0].kind == DIM_KNOWN && x[1].kind == DIM_KNOWN && sl[0].v != x[1].v)
		return ns_refuse(s, "slope has %lld values for %lld channels", (long long)sl[0].v, (long long)x[1].v);
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
	ns_note(s, "the per-channel slope '%s' reshaped to rank %d ('%s')", slope, xr - 1, placed);
	return ns_set_input(s, 1, placed);
}

/* Pad-2 renamed paddings to pads. */
static bool up_pad2(nstate *s)
{
	sattr *a = ns_get(s, "paddings");
	if (!a)
		return true;
	if (a->type != AT_INTS)
		return ns_refuse(s, "attribute 'paddings' is not a list of integers");
	const int64_t *v = a->ints;
	int32_t n = a->n;
	a->gone = true;
	ns_note(s, "paddings renamed pads");
	return ns_put_ints(s, "pads", v, n);
}

/* Pad-11 takes pads and the constant as inputs. */
static bool up_pad11(nstate *s)
{
	if (!ns_ints_to_input(s, "pads", 1, true) || s->refused)
		return !s->r->m->nomem;
	sattr *v = ns_get(s, "value");
	if (!v)
		return true;
	v->gone = true;
	if (v->f == 0.0f) {
		ns_note(s, "remove value 0 (the default constant)");
		return true;
	}
	return ns_scalar_to_input(s, "value", 2, v->f);
}

static bool up_reshape5(nstate *s)
{
	ns_removed(s, "consumed_inputs");
	return ns_ints_to_input(s, "shape", 1, true);
}

static bool up_slice10(nstate *s)
{
	if (!ns_ints_to_input(s, "starts", 1, true) || s->refused || !ns_ints_to_input(s, "ends", 2, true) || s->refused)
		return !s->r->m->nomem;
	return ns_ints_to_input(s, "axes", 3, false);
}

/* Split-1 could take `split` as a second input; Split-2 only as an attribute. */
static bool up_split2(nstate *s)
{
	const value *v = ns_input_value(s, 1);
	if (!v)
		return true;
	if (v->ti.nval < 0 || v->ti.nval > 64)
		return ns_refuse(s, "its 'split' input is not a known constant");
	int64_t *sp = arena_array(s->r->m->arena, v->ti.nval ? (size_t)v->ti.nval : 1, sizeof *sp);
	if (!sp)
		return rw_nomem(s->r), false;
	for (int32_t k = 0; k < v->ti.nval; k++) {
		dim d = dim_resolve(&s->r->m->syms, v->ti.val[k]);
		if (d.kind != DIM_KNOWN)
			return ns_refuse(s, "its 'split' input is not a known constant");
		sp[k] = d.v;
	}
	s->ninputs = 1;
	s->inputs_set = true;
	ns_note(s, "input 'split' becomes an attribute");
	return ns_put_ints(s, "split", sp, v->ti.nval);
}

static bool up_split13(nstate *s) { return ns_ints_to_input(s, "split", 1, false); }
/* Squeeze, Unsqueeze, ReduceSum at 13: axes is an input. */
static bool up_axes_input(nstate *s) { return ns_ints_to_input(s, "axes", 1, false); }

static bool up_topk10(nstate *s)
{
	sattr *a = ns_get(s, "k");
	if (!a || a->type != AT_INT)
		return ns_refuse(s, "attribute 'k' is missing");
	const char *name;
	if (!rw_ints(s->r, s->g, s->base, "k", &a->i, 1, &name))
		return false;
	a->gone = true;
	ns_note(s, "attribute k becomes input 1 '%s'", name);
	return ns_set_input(s, 1, name);
}

/* Softmax, LogSoftmax, Hardmax before 13 flatten the input to 2-D at `axis` (default
 * 1) and normalise each row; from 13 they normalise along `axis` (default -1). The
 * same when axis is the last one; otherwise Flatten, the operator on rows, and a
 * Reshape back to the input's shape (this node becomes the Reshape). */
static bool up_softmax13(nstate *s)
{
	sattr *a = ns_get(s, "axis");
	int64_t axis = a && a->type == AT_INT ? a->i : 1;
	const value *x = ns_input_value(s, 0);
	int32_t rank = x && x->ti.kind == TK_TENSOR ? x->ti.rank : RANK_UNKNOWN;
	if (axis == -1 || (rank >= 0 && axis == rank - 1)) {
		if (axis == -1 && a)
			return true;
		ns_note(s, "axis %lld stated as -1 (the new default meaning)", (long long)axis);
		return ns_put_i(s, "axis", -1);
	}
	if (rank < 0)
		return ns_refuse(s, "axis %lld is not known to be the last one (the rank of the input is unknown)",
			      (long long)axis);
	/* Flatten's axis: [-rank, rank], a negative one counting from rank. */
	int32_t at = rank;
	if (axis != rank && !shape_axis(axis, rank, &at))
		return ns_refuse(s, "axis %lld is out of range for rank %d", (long long)axis, rank);
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
	if (!ns_set_input(s, 0, rows) || !ns_set_input(s, 1, shp))
		return false;
	/* allowzero: a 0 in the shape is a size, not "copy" (the input may be empty). */
	if (r->to >= 14 && !ns_put_i(s, "allowzero", 1))
		return false;
	ns_note(s, "axis %lld of rank %d: Flatten, %s on rows, Reshape back (this node becomes the Reshape)",
	     (long long)axis, rank, s->n->op_type);
	return true;
}

/* Selu-6 changed alpha's default from 1.6732 to 1.67326: the old one is written. */
static bool up_selu6(nstate *s)
{
	ns_removed(s, "consumed_inputs");
	if (ns_get(s, "alpha"))
		return true;
	sattr *a = ns_put(s, "alpha", AT_FLOAT);
	if (!a)
		return false;
	a->f = 1.6732f;
	ns_note(s, "alpha 1.6732 (the old default) made explicit");
	return true;
}

/* ---- the adapters of opset 10 and later ------------------------------------------------ */

/* Axes counted from the back came with opset 11; before, they must be positive. */
static bool dn_neg_axis(nstate *s)
{
	int32_t rank = ns_rank0(s);
	for (int32_t i = 0; i < s->nattrs; i++) {
		sattr *a = &s->attrs[i];
		if (a->gone || (strcmp(a->name, "axis") && strcmp(a->name, "axes")))
			continue;
		int32_t n = a->type == AT_INT ? 1 : a->type == AT_INTS ? a->n : 0;
		const int64_t *v = a->type == AT_INT ? &a->i : a->ints;
		bool neg = false;
		for (int32_t k = 0; k < n; k++)
			neg = neg || v[k] < 0;
		if (!neg)
			continue;
		/* Unsqueeze's axes count in the output's rank. */
		int32_t r = rank < 0 ? -1 : !strcmp(s->op, "Unsqueeze") ? rank + n : rank;
		if (r < 0)
			return ns_refuse(s, "its %s counts from the back, which needs opset 11, and the rank of '%s' is unknown",
				      a->name, ns_input_name(s, 0));
		int64_t *c = arena_array(s->r->m->arena, (size_t)n, sizeof *c);
		if (!c)
			return rw_nomem(s->r), false;
		for (int32_t k = 0; k < n; k++)
			c[k] = v[k] < 0 ? v[k] + r : v[k];
		ns_note(s, "%s counted from the front", a->name);
		if (a->type == AT_INT) {
			if (!ns_put_i(s, a->name, c[0]))
				return false;
		} else if (!ns_put_ints(s, a->name, c, n))
			return false;
	}
	return true;
}

/* ReduceSum-13, Squeeze-13, Unsqueeze-13 and the other Reduce operators at 18 take
 * axes as an input; before, an attribute. noop_with_empty_axes came with the input:
 * set, an empty axes list means "no reduction", which the attribute form cannot say. */
static bool dn_axes_input(nstate *s)
{
	bool reduce = !strncmp(s->op, "Reduce", 6);
	int64_t v[64];
	if (reduce && s->step == 18 && !ns_absent(s, 1) && ns_const_ints(s, 1, v, 64) < 0) {
		bool done = false;
		if (!dn_reduce_axes_computed(s, &done))
			return false;
		if (done || s->refused)
			return true;
	}
	if (reduce && ns_attr_i(s, "noop_with_empty_axes", 0)) {
		if (ns_absent(s, 1) || ns_const_ints(s, 1, v, 64) == 0)
			return ns_refuse(s, "noop_with_empty_axes=1 with no axes (no reduction) has no form before opset %lld",
				      (long long)s->step);
		if (ns_const_ints(s, 1, v, 64) < 0)
			return ns_refuse(s, "noop_with_empty_axes=1 and axes '%s' not a known constant", ns_input_name(s, 1));
	}
	if (reduce && ns_get(s, "noop_with_empty_axes"))
		ns_removed(s, "noop_with_empty_axes");
	if (!ns_absent(s, 1) && ns_const_ints(s, 1, v, 64) == 0) {
		/* An empty list reduces every axis, as no attribute does. */
		ns_note(s, "empty axes input '%s' removed", ns_input_name(s, 1));
		ns_drop_input(s, 1);
		return true;
	}
	return ns_input_to_ints(s, 1, "axes");
}

/* Split-13 takes split as an input; Split-11 an attribute. */
static bool dn_split13(nstate *s) { return ns_input_to_ints(s, 1, "split"); }

/* Split-18 requires split or num_outputs: the equal split of earlier versions is
 * num_outputs = the number of outputs. */
static bool up_split18(nstate *s)
{
	if (!ns_absent(s, 1) || ns_get(s, "num_outputs"))
		return true;
	ns_note(s, "num_outputs %d (the equal split) made explicit", s->noutputs);
	return ns_put_i(s, "num_outputs", s->noutputs);
}

/* Split-18's num_outputs on an axis whose size is known only at run time: the
 * sizes computed, parts - 1 chunks of ceil(n / parts) and the rest (Shape, Gather,
 * Add, Div, Mul, Sub, Concat), as Split-13's split input. */
static bool split18_computed(nstate *s, int64_t axis, int64_t parts)
{
	rw *r = s->r;
	const char *n, *p, *pm1, *t, *chunk, *c1, *used, *last, *l1, *sizes[64];
	static const int64_t at0[1] = {0};
	struct Onnx__NodeProto *np;
	if (!ns_ins_dim(s, "axis_size", ns_input_name(s, 0), axis, &n) ||
	    !rw_scalar(r, s->g, s->base, "parts", DT_INT64, (double)parts, &p) ||
	    !rw_scalar(r, s->g, s->base, "parts_less_one", DT_INT64, (double)(parts - 1), &pm1) ||
	    !ns_ins2(s, "Add", "rounded_up", n, pm1, &t) || !ns_ins2(s, "Div", "chunk", t, p, &chunk) ||
	    !ns_ins_unsqueeze(s, "chunk_1d", chunk, at0, 1, &c1) || !ns_ins2(s, "Mul", "chunks_before", chunk, pm1, &used) ||
	    !ns_ins2(s, "Sub", "last_chunk", n, used, &last) || !ns_ins_unsqueeze(s, "last_1d", last, at0, 1, &l1))
		return false;
	for (int64_t k = 0; k < parts - 1; k++)
		sizes[k] = c1;
	sizes[parts - 1] = l1;
	const char *split;
	if (!ns_insn(s, "Concat", "split", (int32_t)parts, sizes, &split, &np) || !rw_set_attr_i(r, np, "axis", 0))
		return false;
	ns_note(s, "num_outputs %lld becomes split sizes computed from the axis's size ('%s')", (long long)parts, split);
	return ns_set_input(s, 1, split);
}

/* num_outputs came with 18, and with it chunks of ceil(n / num_outputs), the last
 * smaller: the sizes are written out when the split axis has a known size. */
static bool dn_split18(nstate *s)
{
	sattr *a = ns_get(s, "num_outputs");
	if (!a)
		return true;
	int64_t parts = a->i;
	a->gone = true;
	int64_t axis = ns_attr_i(s, "axis", 0);
	dim d[64];
	int32_t rank = ns_input_dims(s, 0, d);
	int32_t at;
	if (parts > 1 && parts <= 64 && s->r->to >= 13 && (rank < 0 || (shape_axis(axis, rank, &at) && d[at].kind != DIM_KNOWN)))
		return split18_computed(s, axis, parts);
	if (rank < 0 || !shape_axis(axis, rank, &at) || d[at].kind != DIM_KNOWN || parts <= 0)
		return ns_refuse(s, "num_outputs=%lld on an axis whose size is unknown (Split-13 splits equally only what "
				 "divides)", (long long)parts);
	int64_t n = d[at].v, chunk = (n + parts - 1) / parts;
	if (n % parts == 0) {
		ns_note(s, "num_outputs removed (the equal split)");
		return true;
	}
	int64_t sizes[64];
	if (parts > 64)
		return ns_refuse(s, "more than 64 outputs");
	for (int64_t k = 0; k < parts; k++)
		sizes[k] = k + 1 < parts ? chunk : n - chunk * (parts - 1);
	const char *name;
	if (!rw_ints(s->r, s->g, s->base, "split", sizes, (int32_t)parts, &name))
		return false;
	ns_note(s, "num_outputs %lld becomes split sizes '%s'", (long long)parts, name);
	return ns_set_input(s, 1, name);
}

/* DFT-20 takes the axis as input 2 (a scalar, default -2, the last signal axis);
 * DFT-17 as an attribute (default 1). The same axis of the input either way,
 * written counted from the front where the rank is known. */
static bool up_dft20(nstate *s)
{
	sattr *a = ns_get(s, "axis");
	int64_t axis = a && a->type == AT_INT ? a->i : 1;
	int32_t rank = ns_rank0(s), at;
	if (axis < 0 && rank >= 0 && shape_axis(axis, rank, &at))
		axis = at;
	const char *name;
	if (!rw_scalar(s->r, s->g, s->base, "axis", DT_INT64, (double)axis, &name))
		return false;
	if (a)
		a->gone = true;
	ns_note(s, "axis %lld becomes input 2 '%s'", (long long)axis, name);
	return ns_set_input(s, 2, name);
}

static bool dn_dft20(nstate *s)
{
	int64_t axis = -2;
	if (!ns_absent(s, 2) && ns_const_ints(s, 2, &axis, 1) != 1)
		return ns_refuse(s, "axis '%s' is not a known constant (DFT-17 takes it as an attribute)", ns_input_name(s, 2));
	int32_t rank = ns_rank0(s), at;
	if (axis < 0) {
		if (rank < 0 || !shape_axis(axis, rank, &at))
			return ns_refuse(s, "axis %lld counts from the back and the rank of '%s' is unknown", (long long)axis,
				      ns_input_name(s, 0));
		axis = at;
	}
	ns_note(s, "axis %lld becomes an attribute", (long long)axis);
	ns_drop_input(s, 2);
	return ns_put_i(s, "axis", axis);
}

/* Clip-11 takes min and max as inputs; Clip-6 attributes (floats). */
static bool dn_clip11(nstate *s)
{
	if (!ns_input_to_float(s, 2, "max") || s->refused)
		return !s->r->m->nomem;
	return ns_input_to_float(s, 1, "min");
}

/* Dropout-12 takes ratio and training_mode as inputs. Inference (training_mode false
 * or absent) is the identity whatever the ratio; training is refused. */
static bool dn_dropout12(nstate *s)
{
	if (!ns_absent(s, 2)) {
		int64_t t;
		if (ns_const_ints(s, 2, &t, 1) != 1 || t)
			return ns_refuse(s, "training_mode '%s' is not known to be false", ns_input_name(s, 2));
		ns_note(s, "training_mode input removed (false)");
		ns_drop_input(s, 2);
	}
	if (ns_get(s, "seed"))
		ns_removed(s, "seed");
	return ns_input_to_float(s, 1, "ratio");
}

/* TopK-10 takes K as an input; TopK-1 an attribute. */
static bool dn_topk10(nstate *s)
{
	int64_t k;
	if (ns_const_ints(s, 1, &k, 1) != 1)
		return ns_refuse(s, "K ('%s') is not a known constant", ns_input_name(s, 1));
	ns_note(s, "input K '%s' becomes attribute k", ns_input_name(s, 1));
	ns_drop_input(s, 1);
	return ns_put_i(s, "k", k);
}

/* Slice-10 takes starts, ends, axes and steps as inputs; Slice-1 has no steps. */
static bool dn_slice10(nstate *s)
{
	if (!ns_absent(s, 4)) {
		int64_t st[64];
		int32_t n = ns_const_ints(s, 4, st, 64);
		for (int32_t k = 0; k < n; k++)
			if (st[k] != 1)
				n = -1;
		if (n < 0)
			return ns_refuse(s, "steps '%s' are not known to be all 1", ns_input_name(s, 4));
		ns_drop_input(s, 4);
	}
	if (!ns_input_to_ints(s, 3, "axes") || s->refused || !ns_input_to_ints(s, 2, "ends") || s->refused)
		return !s->r->m->nomem;
	if (ns_absent(s, 1))
		return ns_refuse(s, "starts is missing");
	return ns_input_to_ints(s, 1, "starts");
}

/* Pad-11 takes pads and the constant as inputs; Pad-2 attributes. */
static bool dn_pad11(nstate *s)
{
	if (!ns_absent(s, 2)) {
		double v;
		if (!ns_const_float(s, 2, &v))
			return ns_refuse(s, "constant_value '%s' is not a known constant", ns_input_name(s, 2));
	}
	if (!ns_input_to_float(s, 2, "value") || s->refused)
		return !s->r->m->nomem;
	if (ns_absent(s, 1))
		return ns_refuse(s, "pads is missing");
	return ns_input_to_ints(s, 1, "pads");
}

/* Pad-18's axes and pads known only at run time, on an input of known rank: the
 * pads placed into a zero list for every axis by ScatterElements, at each axis
 * (counted from the front: Mod) and that plus the rank. */
static bool pad18_computed(nstate *s, int32_t rank)
{
	rw *r = s->r;
	int64_t zeros[128] = {0};
	const char *axes = ns_input_name(s, 3), *pads = ns_input_name(s, 1), *a64, *rn, *sh, *pos, *end, *both, *zn, *full;
	struct Onnx__NodeProto *np;
	if (!ns_ins_cast(s, "axes_int64", axes, DT_INT64, &a64) || !rw_scalar(r, s->g, s->base, "rank", DT_INT64, rank, &rn) ||
	    !ns_ins2(s, "Add", "axes_shifted", a64, rn, &sh) || !ns_ins2(s, "Mod", "axes_positive", sh, rn, &pos) ||
	    !ns_ins2(s, "Add", "axes_end", pos, rn, &end) ||
	    !rw_insert(r, s->g, s->ni, "Concat", s->base, "pad_positions", 2, (const char *const[]){pos, end}, &both, &np) ||
	    !rw_set_attr_i(r, np, "axis", 0) || !rw_ints(r, s->g, s->base, "no_pads", zeros, 2 * rank, &zn) ||
	    !rw_insert(r, s->g, s->ni, "ScatterElements", s->base, "pads", 3, (const char *const[]){zn, both, pads}, &full,
		       &np) ||
	    !ns_set_input(s, 1, full))
		return false;
	ns_note(s, "axes '%s' removed, pads placed for every axis by ScatterElements ('%s')", axes, full);
	ns_drop_input(s, 3);
	return true;
}

/* Pad-18 added axes (pads for those axes only). */
static bool dn_pad18(nstate *s)
{
	if (ns_absent(s, 3))
		return true;
	int64_t ax[64], pads[128], full[128];
	int32_t rank = ns_rank0(s), na = ns_const_ints(s, 3, ax, 64);
	if ((na < 0 || ns_const_ints(s, 1, pads, 128) != 2 * na) && rank >= 1 && rank <= 64 && s->r->to >= 13 &&
	    ns_input_elem(s, 1) == DT_INT64)
		return pad18_computed(s, rank);
	if (rank < 0 || rank > 64 || na < 0 || ns_const_ints(s, 1, pads, 128) != 2 * na)
		return ns_refuse(s, "axes '%s' (pads of some axes only) came with opset 18, and the rank, axes or pads are "
				 "not known", ns_input_name(s, 3));
	for (int32_t k = 0; k < 2 * rank; k++)
		full[k] = 0;
	for (int32_t i = 0; i < na; i++) {
		int32_t at;
		if (!shape_axis(ax[i], rank, &at))
			return ns_refuse(s, "axis %lld is out of range", (long long)ax[i]);
		full[at] = pads[i];
		full[at + rank] = pads[i + na];
	}
	const char *name;
	if (!rw_ints(s->r, s->g, s->base, "pads", full, 2 * rank, &name) || !ns_set_input(s, 1, name))
		return false;
	ns_note(s, "axes '%s' removed, pads written for every axis ('%s')", ns_input_name(s, 3), name);
	ns_drop_input(s, 3);
	return true;
}

static bool dn_pad19(nstate *s)
{
	if (!strcmp(ns_attr_s(s, "mode", "constant"), "wrap"))
		return ns_refuse(s, "mode 'wrap' came with opset 19");
	return true;
}

/* Shape-15 slices the shape with start and end: a Slice of the whole shape. */
static bool dn_shape15(nstate *s)
{
	int64_t start = ns_attr_i(s, "start", 0);
	sattr *e = ns_get(s, "end");
	if (start == 0 && !e) {
		if (ns_get(s, "start"))
			ns_removed(s, "start");
		return true;
	}
	const char *shp, *st, *en, *ax;
	int64_t zero = 0, end = e && e->type == AT_INT ? e->i : INT64_MAX;
	if (!ns_ins2(s, "Shape", "whole_shape", ns_input_name(s, 0), NULL, &shp) ||
	    !rw_ints(s->r, s->g, s->base, "start", &start, 1, &st) || !rw_ints(s->r, s->g, s->base, "end", &end, 1, &en) ||
	    !rw_ints(s->r, s->g, s->base, "axes", &zero, 1, &ax))
		return false;
	if (!ns_become(s, "Slice", shp, st) || !ns_set_input(s, 2, en) || !ns_set_input(s, 3, ax))
		return false;
	ns_note(s, "start %lld, end %lld: Shape, then Slice (this node becomes the Slice)", (long long)start,
	     (long long)end);
	return true;
}

/* RoiAlign-16 added coordinate_transformation_mode, default half_pixel; before it,
 * every RoiAlign computed output_half_pixel. */
static bool up_roialign16(nstate *s)
{
	if (ns_get(s, "coordinate_transformation_mode"))
		return true;
	ns_note(s, "coordinate_transformation_mode output_half_pixel (the old behaviour) made explicit");
	return ns_put_s(s, "coordinate_transformation_mode", "output_half_pixel");
}

static bool dn_roialign16(nstate *s)
{
	const char *mode = ns_attr_s(s, "coordinate_transformation_mode", "half_pixel");
	if (strcmp(mode, "output_half_pixel"))
		return ns_refuse(s, "coordinate_transformation_mode %s: RoiAlign before 16 computes output_half_pixel only",
			      mode);
	ns_removed(s, "coordinate_transformation_mode");
	return true;
}

/* GridSample-20 renamed the modes bilinear and bicubic linear and cubic (and took
 * N-D inputs); the default is the same one. */
static bool up_gridsample20(nstate *s)
{
	const char *m = ns_attr_s(s, "mode", NULL);
	if (!m || (strcmp(m, "bilinear") && strcmp(m, "bicubic")))
		return true;
	ns_note(s, "mode %s renamed", m);
	return ns_put_s(s, "mode", !strcmp(m, "bilinear") ? "linear" : "cubic");
}

static bool dn_gridsample20(nstate *s)
{
	if (ns_rank0(s) != 4)
		return ns_refuse(s, "GridSample before 20 takes 4-D inputs only (the rank of '%s' is %s)", ns_input_name(s, 0),
			      ns_rank0(s) < 0 ? "unknown" : "not 4");
	const char *m = ns_attr_s(s, "mode", NULL);
	if (!m || (strcmp(m, "linear") && strcmp(m, "cubic")))
		return true;
	ns_note(s, "mode %s renamed", m);
	return ns_put_s(s, "mode", !strcmp(m, "linear") ? "bilinear" : "bicubic");
}

/* ScatterElements and ScatterND: reductions min and max came with 18. */
static bool dn_scatter18(nstate *s)
{
	const char *red = ns_attr_s(s, "reduction", "none");
	if (!strcmp(red, "min") || !strcmp(red, "max"))
		return ns_refuse(s, "reduction '%s' came with opset 18", red);
	return true;
}

/* Scatter-9 became ScatterElements-11, the same operator renamed. */
/* A rename: the operator becomes op, which the walk then follows onto op's own
 * versions; refused where the target predates `lowest` (0: none does). */
static bool rename_to(nstate *s, int64_t lowest, const char *op, const char *why)
{
	if (s->r->to < lowest)
		return ns_no_adapter(s);
	s->op = op;
	s->op_set = s->renamed = true;
	ns_note(s, "%s", why);
	return true;
}

static bool up_scatter11(nstate *s)
{
	return rename_to(s, 0, "ScatterElements", "Scatter (deprecated at 11) becomes ScatterElements");
}

static bool dn_scatter_elements11(nstate *s)
{
	return rename_to(s, 9, "Scatter", "ScatterElements becomes Scatter (its name before opset 11)");
}

/* Upsample-9 and Resize-10 are one operator: X, scales, mode nearest or linear. */
static bool up_upsample10(nstate *s) { return rename_to(s, 0, "Resize", "Upsample (deprecated at 10) becomes Resize"); }

static bool dn_resize10(nstate *s)
{
	return rename_to(s, 9, "Upsample", "Resize becomes Upsample (its name before opset 10)");
}

/* Resize-10 maps output pixel x to x / scale (asymmetric) and, for nearest, takes
 * the floor; Resize-11 says so with coordinate_transformation_mode and nearest_mode,
 * whose defaults (half_pixel, round_prefer_floor) are other rules, and takes roi and
 * scales as inputs 1 and 2. */
static bool up_resize11(nstate *s)
{
	const char *mode = ns_attr_s(s, "mode", "nearest");
	const char *roi, *scales = ns_input_name(s, 1);
	if (!ns_empty_floats(s, "roi", &roi))
		return false;
	if (!ns_set_input(s, 1, roi) || !ns_set_input(s, 2, scales) ||
	    !ns_put_s(s, "coordinate_transformation_mode", "asymmetric"))
		return false;
	if (!strcmp(mode, "nearest") && !ns_put_s(s, "nearest_mode", "floor"))
		return false;
	ns_note(s, "roi '%s' added, scales moved to input 2, coordinate_transformation_mode asymmetric%s (Resize-10's "
		"rule) made explicit", roi, !strcmp(mode, "nearest") ? " and nearest_mode floor" : "");
	return true;
}

static bool dn_resize11(nstate *s)
{
	const char *mode = ns_attr_s(s, "mode", "nearest");
	const char *ctm = ns_attr_s(s, "coordinate_transformation_mode", "half_pixel");
	if (strcmp(mode, "nearest") && strcmp(mode, "linear"))
		return ns_refuse(s, "mode %s came with opset 11", mode);
	if (strcmp(ctm, "asymmetric"))
		return ns_refuse(s, "coordinate_transformation_mode %s: Resize-10 computes asymmetric only", ctm);
	if (!strcmp(mode, "nearest") && strcmp(ns_attr_s(s, "nearest_mode", "round_prefer_floor"), "floor"))
		return ns_refuse(s, "nearest_mode %s: Resize-10 takes the floor only",
			      ns_attr_s(s, "nearest_mode", "round_prefer_floor"));
	if (ns_attr_i(s, "exclude_outside", 0))
		return ns_refuse(s, "exclude_outside=1 came with opset 11");
	if (!ns_absent(s, 3))
		return ns_refuse(s, "sizes '%s' came with opset 11 (Resize-10 takes scales only)", ns_input_name(s, 3));
	dim sd[1];
	if (ns_absent(s, 2) || (ns_input_dims(s, 2, sd) == 1 && sd[0].kind == DIM_KNOWN && sd[0].v == 0))
		return ns_refuse(s, "it has no scales");
	const char *x = ns_input_name(s, 0), *scales = ns_input_name(s, 2);
	static const char *const gone[] = {"coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
					   "exclude_outside", "extrapolation_value"};
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
		if (ns_get(s, gone[i]))
			ns_removed(s, gone[i]);
	s->ninputs = 0;
	ns_note(s, "roi dropped, scales moved to input 1");
	return ns_set_input(s, 0, x) && ns_set_input(s, 1, scales);
}

/* Resize-13 made roi and scales optional; Resize-11 needs them, empty when unused. */
static bool dn_resize13(nstate *s)
{
	const char *name;
	for (int32_t k = 1; k <= 2; k++)
		if (ns_absent(s, k) && (k == 1 || !ns_absent(s, 3))) {
			if (!ns_empty_floats(s, k == 1 ? "roi" : "scales", &name) || !ns_set_input(s, k, name))
				return false;
			ns_note(s, "empty %s '%s' given", k == 1 ? "roi" : "scales", name);
		}
	return true;
}

static bool dn_resize19(nstate *s)
{
	if (!strcmp(ns_attr_s(s, "coordinate_transformation_mode", "half_pixel"), "half_pixel_symmetric"))
		return ns_refuse(s, "coordinate_transformation_mode half_pixel_symmetric came with opset 19");
	return true;
}

/* Softmax-13 normalises along one axis; Softmax-12 along the flattened axes from
 * `axis` on. The same for the last axis; another one is moved last and back with a
 * Transpose that swaps it with the last (its own inverse). */
static bool dn_softmax13(nstate *s)
{
	int64_t axis = ns_attr_i(s, "axis", -1);
	int32_t rank = ns_rank0(s), at;
	bool last = axis == -1 || (rank >= 0 && axis == rank - 1);
	if (last && (s->r->to >= 11 || rank >= 0)) {
		int64_t v = s->r->to >= 11 ? -1 : rank - 1;
		ns_note(s, "axis %lld (the last one) stated", (long long)v);
		return ns_put_i(s, "axis", v);
	}
	if (rank < 0)
		return ns_refuse(s, "axis %lld is not known to be the last one (the rank of '%s' is unknown)", (long long)axis,
			      ns_input_name(s, 0));
	if (!shape_axis(axis, rank, &at))
		return ns_refuse(s, "axis %lld is out of range for rank %d", (long long)axis, rank);
	int64_t perm[64];
	for (int32_t k = 0; k < rank; k++)
		perm[k] = k;
	perm[at] = rank - 1;
	perm[rank - 1] = at;
	rw *r = s->r;
	struct Onnx__NodeProto *np;
	const char *moved, *norm;
	const char *in0[1] = {ns_input_name(s, 0)};
	if (!rw_insert(r, s->g, s->ni, "Transpose", s->base, "axis_last", 1, in0, &moved, &np) ||
	    !rw_set_attr_ints(r, np, "perm", perm, rank))
		return false;
	const char *in1[1] = {moved};
	if (!rw_insert(r, s->g, s->ni, s->op, s->base, "normalised", 1, in1, &norm, &np) ||
	    !rw_set_attr_i(r, np, "axis", rank - 1))
		return false;
	if (!ns_become(s, "Transpose", norm, NULL) || !ns_put_ints(s, "perm", perm, rank))
		return false;
	ns_note(s, "axis %d of rank %d: Transpose it last, %s, Transpose back (this node becomes the Transpose)", at, rank,
	     s->n->op_type);
	return true;
}

/* Resize-18 added axes (roi, scales or sizes for those axes only): before, they
 * cover every axis, 1 (scales), the input's size (sizes) or the whole extent 0 to 1
 * (roi) for the others. Constants are written out; values known only at run time
 * are placed into the full list by ScatterElements at the axes' positions. */
static bool resize_full(nstate *s, int32_t k, int32_t rank, const int64_t *at, int32_t n, const char **out)
{
	rw *r = s->r;
	int32_t per = k == 1 ? 2 : 1, elem = k == 3 ? DT_INT64 : ns_input_elem(s, k);
	int64_t pos[128], dims[1] = {(int64_t)per * rank};
	double base[128];
	for (int32_t j = 0; j < per; j++)
		for (int32_t i = 0; i < n; i++)
			pos[j * n + i] = at[i] + (int64_t)j * rank;
	for (int32_t i = 0; i < per * rank; i++)
		base[i] = k == 1 ? (i < rank ? 0.0 : 1.0) : 1.0;
	const char *bn, *pn;
	if (k == 3) {
		if (!ns_ins2(s, "Shape", "dims", ns_input_name(s, 0), NULL, &bn))
			return false;
	} else {
		if (elem != DT_FLOAT && elem != DT_DOUBLE)
			return ns_refuse(s, "%s '%s' is neither float nor double", k == 1 ? "roi" : "scales", ns_input_name(s, k));
		bn = rw_init_name(r, s->base, k == 1 ? "roi_whole" : "scales_ones");
		r->ninits++;
		if (r->apply && !edit_add_initializer(r->e, s->g, bn, elem, dims, 1, NULL, base))
			return rw_nomem(r), false;
	}
	if (!rw_ints(r, s->g, s->base, "axes_at", pos, per * n, &pn))
		return false;
	struct Onnx__NodeProto *np;
	const char *in[3] = {bn, pn, ns_input_name(s, k)};
	return ns_insn(s, "ScatterElements", k == 1 ? "roi" : k == 2 ? "scales" : "sizes", 3, in, out, &np);
}

static bool dn_resize18(nstate *s)
{
	sattr *ax = ns_get(s, "axes");
	if (!ax || ax->type != AT_INTS)
		return true;
	int32_t rank = ns_rank0(s);
	dim d[64];
	if (rank < 0 || ns_input_dims(s, 0, d) != rank)
		return ns_refuse(s, "axes given and the rank of '%s' unknown", ns_input_name(s, 0));
	int32_t pos[64];
	int64_t at[64];
	for (int32_t k = 0; k < rank; k++)
		pos[k] = -1;
	if (ax->n > rank)
		return ns_refuse(s, "more axes than the rank");
	for (int32_t i = 0; i < ax->n; i++) {
		int32_t a;
		if (!shape_axis(ax->ints[i], rank, &a))
			return ns_refuse(s, "axis %lld is out of range", (long long)ax->ints[i]);
		pos[a] = i;
		at[i] = a;
	}
	rw *r = s->r;
	const char *name;
	int64_t dims[1] = {rank};
	bool known = true;
	if (!ns_absent(s, 3)) {
		int64_t v[64], full[64];
		if (ns_const_ints(s, 3, v, 64) != ax->n)
			known = false;
		for (int32_t k = 0; k < rank && known; k++) {
			if (pos[k] < 0 && d[k].kind != DIM_KNOWN)
				known = false;
			else
				full[k] = pos[k] >= 0 ? v[pos[k]] : d[k].v;
		}
		if (known && !rw_ints(r, s->g, s->base, "sizes", full, rank, &name))
			return false;
		if (!known && (!resize_full(s, 3, rank, at, ax->n, &name) || s->refused))
			return !r->m->nomem;
		if (!ns_set_input(s, 3, name))
			return false;
	} else {
		const value *sv = ns_absent(s, 2) ? NULL : ns_input_value(s, 2);
		if (sv && sv->ti.nfval == ax->n) {
			double full[64];
			for (int32_t k = 0; k < rank; k++)
				full[k] = pos[k] >= 0 ? sv->ti.fval[pos[k]] : 1.0;
			name = rw_init_name(r, s->base, "scales");
			r->ninits++;
			if (r->apply && !edit_add_initializer(r->e, s->g, name, DT_FLOAT, dims, 1, NULL, full))
				return rw_nomem(r), false;
		} else {
			known = false;
			if (ns_absent(s, 2))
				return ns_refuse(s, "neither scales nor sizes given");
			if (!resize_full(s, 2, rank, at, ax->n, &name) || s->refused)
				return !r->m->nomem;
		}
		if (!ns_set_input(s, 2, name))
			return false;
	}
	const char *roi = NULL;
	dim rd[64];
	if (!ns_absent(s, 1) && !(ns_input_dims(s, 1, rd) == 1 && rd[0].kind == DIM_KNOWN && rd[0].v == 0)) {
		if (!resize_full(s, 1, rank, at, ax->n, &roi) || s->refused)
			return !r->m->nomem;
		if (!ns_set_input(s, 1, roi))
			return false;
	}
	ax->gone = true;
	ns_note(s, "axes removed, %s %s for every axis ('%s')%s", ns_absent(s, 3) ? "scales" : "sizes",
		known ? "written" : "placed by ScatterElements", name, roi ? ", and roi" : "");
	return true;
}

/* ---- the table ------------------------------------------------------------------------- */

typedef struct op_step {
	const char *op;
	int32_t since;
	adapt_fn up, down; /* NULL (KEPT): the schema fit check is enough */
} op_step;

#define KEPT NULL
#define NONE ns_no_adapter
static const op_step hand_steps[] = {
#define OPSET_STEP(op, since, up, down) {op, since, up, down},
#include "passes/rewrite/opset_steps.def"
#undef OPSET_STEP
};
#undef KEPT
#undef NONE

#define NHAND ((int32_t)(sizeof hand_steps / sizeof hand_steps[0]))

/* An operator's versions: its ai.onnx rows of the schema table (contiguous,
 * ascending) and its hand-kept rows of opset_steps.def (contiguous, ascending). */
typedef struct op_history {
	const sch_row *rows;
	int32_t nrows;
	int32_t hand, nhand; /* hand_steps[hand .. hand + nhand) */
} op_history;

static bool has_attr(const sch_row *row, const char *name)
{
	for (int32_t k = 0; k < row->nattrs; k++)
		if (!strcmp(row->attrs[k].name, name))
			return true;
	return false;
}

/* The step at version i of h: its hand-kept row, else what the schema's history
 * implies (opset_steps.def says what). */
static op_step step_at(const op_history *h, int32_t i)
{
	const sch_row *row = &h->rows[i];
	for (int32_t k = h->hand; k < h->hand + h->nhand; k++)
		if (hand_steps[k].since == row->since)
			return hand_steps[k];
	op_step st = {row->op_type, row->since, NULL, NULL};
	if (i == 0)
		st.down = ns_no_adapter;
	else if (has_attr(&h->rows[i - 1], "consumed_inputs") && !has_attr(row, "consumed_inputs"))
		st.up = up_drop_consumed;
	return st;
}

/* The indexes, built once per model: operator → its first ai.onnx schema row
 * (steps_index) and → its first hand-kept row (hand_index). */
static bool build_index(rw *r)
{
	strmap_init(&r->steps_index, r->m->arena);
	strmap_init(&r->hand_index, r->m->arena);
	int32_t n = 0;
	const sch_row *rows = schema_rows(&n);
	for (int32_t i = 0; i < n && !rows[i].domain[0]; i++)
		if ((i == 0 || strcmp(rows[i - 1].op_type, rows[i].op_type)) &&
		    strmap_put(&r->steps_index, rows[i].op_type, i) == -2)
			return false;
	for (int32_t i = 0; i < NHAND; i++)
		if ((i == 0 || strcmp(hand_steps[i - 1].op, hand_steps[i].op)) &&
		    strmap_put(&r->hand_index, hand_steps[i].op, i) == -2)
			return false;
	return true;
}

/* The history of op; false when the operator is not in the schema's ai.onnx rows. */
static bool find_history(rw *r, const char *op, op_history *h)
{
	if (!r->steps_built) {
		if (!build_index(r)) {
			rw_nomem(r);
			return false;
		}
		r->steps_built = true;
	}
	int32_t first = strmap_get(&r->steps_index, op);
	if (first < 0)
		return false;
	int32_t n = 0;
	const sch_row *rows = schema_rows(&n);
	*h = (op_history){.rows = &rows[first], .nrows = 1, .hand = strmap_get(&r->hand_index, op)};
	while (first + h->nrows < n && !rows[first + h->nrows].domain[0] &&
	       !strcmp(rows[first + h->nrows].op_type, op))
		h->nrows++;
	if (h->hand >= 0)
		while (h->hand + h->nhand < NHAND && !strcmp(hand_steps[h->hand + h->nhand].op, op))
			h->nhand++;
	return true;
}

/* find_history's answers by op_type (core/type_memo.h): every node of a type asks
 * the same, once to plan and once to edit. */
#define HISTORY_MEMO_SLOTS 128 /* a power of two */

struct history_memo {
	type_key key[HISTORY_MEMO_SLOTS];
	op_history h[HISTORY_MEMO_SLOTS];
	bool known[HISTORY_MEMO_SLOTS];
};

static bool history_of(rw *r, const char *op, op_history *h)
{
	if (!r->histories && !(r->histories = arena_array(r->m->arena, 1, sizeof *r->histories)))
		return rw_nomem(r), false;
	bool found;
	int32_t i = type_memo_slot(r->histories->key, HISTORY_MEMO_SLOTS, (type_key){.op_type = op}, &found);
	if (i < 0)
		return find_history(r, op, h);
	if (!found) {
		r->histories->known[i] = find_history(r, op, &r->histories->h[i]);
		if (r->m->nomem)
			return false;
	}
	*h = r->histories->h[i];
	return r->histories->known[i];
}

/* The row of history h in force at opset v, or NULL before its first. */
static const sch_row *row_at(const op_history *h, int64_t v)
{
	const sch_row *row = NULL;
	for (int32_t i = 0; i < h->nrows && h->rows[i].since <= v; i++)
		row = &h->rows[i];
	return row;
}

/* ---- the schema fit check -------------------------------------------------------------- */

static bool is_default(const sattr *a, const sch_attr *d)
{
	if (a->type == AT_INTS && (!strcmp(a->name, "dilations") || !strcmp(a->name, "strides"))) {
		for (int32_t k = 0; k < a->n; k++)
			if (a->ints[k] != 1)
				return false;
		return true;
	}
	if (!d || !d->default_text || d->type != a->type)
		return false;
	char *end;
	switch (a->type) {
	case AT_INT: {
		long long v = strtoll(d->default_text, &end, 10);
		return !*end && v == a->i;
	}
	case AT_FLOAT: {
		double v = strtod(d->default_text, &end);
		return !*end && fabs(v - a->f) <= 1e-6 * fabs(v);
	}
	case AT_STRING:
		return a->s && !strcmp(a->s, d->default_text);
	default:
		return false;
	}
}

static const sch_attr *row_attr(const sch_row *row, const char *name)
{
	for (int32_t i = 0; row && i < row->nattrs; i++)
		if (!strcmp(row->attrs[i].name, name))
			return &row->attrs[i];
	return NULL;
}

static bool type_allowed(const sch_row *row, const sch_param *p, int32_t elem)
{
	const sch_types *t = p->constraint >= 0 ? &row->constraints[p->constraint].allowed : &p->types;
	uint64_t bit = elem > 0 && elem < 64 ? UINT64_C(1) << elem : 0;
	return (t->tensor | t->opt_tensor | t->sparse) & bit;
}

/* Whether value v (an input or output the node keeps) fits formal parameter k of row. */
static bool fits_param(nstate *s, const sch_row *row, const sch_param *ps, int32_t np, int32_t k, const value *v,
		       const char *what)
{
	if (!v || v->ti.kind != TK_TENSOR || v->ti.elem <= 0 || np == 0)
		return true;
	const sch_param *p = k < np ? &ps[k] : ps[np - 1].option == SCH_VARIADIC ? &ps[np - 1] : NULL;
	if (!p)
		return true;
	if (type_allowed(row, p, v->ti.elem))
		return true;
	ns_refuse(s, "%s %d ('%s') is %s, which %s-%d does not take", what, k, v->name, dtype_name(v->ti.elem), s->op,
	       row->since);
	return false;
}

/* Whether ONNX Runtime runs row for some binding of its types (kernels.h). A row the
 * runtime runs at the node's own version but not at the target's would make a model
 * that does not load. */
static bool runs(const sch_row *row)
{
	if (!row)
		return false;
	const kernel_row *k = &kernel_rows()[schema_index(row)];
	for (const char *c = k->states; c && *c; c++)
		if (*c == KV_KERNEL)
			return true;
	return false;
}

/* The node, as the adapters left it, against the target's schema of its operator:
 * every attribute known there (one it does not know is dropped when it holds the
 * default of the node's own version, refused otherwise), the inputs and outputs in
 * its counts, and (downward) the element types it takes. */
static bool fit(nstate *s)
{
	rw *r = s->r;
	op_history h;
	const sch_row *row = history_of(r, s->op, &h) ? row_at(&h, r->to) : NULL;
	if (r->m->nomem)
		return false;
	if (!row || row->deprecated)
		return ns_refuse(s, "%s does not exist at opset %lld", s->op, (long long)r->to);
	const sch_row *own = history_of(r, s->n->op_type, &h) ? row_at(&h, r->from) : NULL;
	if (r->m->nomem)
		return false;
	for (int32_t i = 0; i < s->nattrs; i++) {
		sattr *a = &s->attrs[i];
		if (a->gone)
			continue;
		const sch_attr *t = row_attr(row, a->name);
		if (t && t->type == a->type)
			continue;
		if (!t && is_default(a, row_attr(own, a->name))) {
			a->gone = true;
			ns_note(s, "remove %s (its default)", a->name);
			continue;
		}
		return ns_refuse(s, "attribute '%s' %s at opset %lld", a->name, t ? "has another type" : "does not exist",
			      (long long)r->to);
	}
	/* ONNX Runtime 1.30 runs Swish (no kernel: its function body) only in a model of
	 * the opset it came with, 24; in an opset-26 model it finds no implementation, so
	 * there the node is decomposed. */
	if (!strcmp(s->op, "Swish") && r->to != row->since) {
		s->adapted = true;
		return dn_swish(s);
	}
	if (runs(own) && !runs(row))
		return ns_refuse(s, "%s has no kernel for %s-%d (it runs %s-%d): the converted model would not load",
			      kernel_runtime, s->op, row->since, own->op_type, own->since);
	int32_t nin = s->ninputs;
	while (nin > 0 && ns_absent(s, nin - 1))
		nin--;
	if (nin > row->max_inputs)
		return ns_refuse(s, "input %d ('%s') has no place at opset %lld (%s-%d takes %d)", nin - 1,
			      ns_input_name(s, nin - 1), (long long)r->to, s->op, row->since, row->max_inputs);
	if (nin < row->min_inputs)
		return ns_refuse(s, "%s-%d needs %d inputs, it has %d", s->op, row->since, row->min_inputs, nin);
	if (nin < s->ninputs) {
		s->ninputs = nin;
		s->inputs_set = true;
	}
	if (s->noutputs > row->max_outputs &&
	    (!ns_drop_outputs_after(s, row->max_outputs, "the target's version has fewer outputs") || s->refused))
		return !r->m->nomem;
	if (!s->down)
		return true;
	for (int32_t k = 0; k < s->ninputs && k < s->n->ninputs; k++)
		if (!ns_absent(s, k) && s->n->inputs[k] >= 0 && !strcmp(s->inputs[k], s->g->values[s->n->inputs[k]].name) &&
		    !fits_param(s, row, row->inputs, row->ninputs, k, ns_input_value(s, k), "input"))
			return true;
	for (int32_t k = 0; k < s->noutputs; k++)
		if (s->n->outputs[k] >= 0 &&
		    !fits_param(s, row, row->outputs, row->noutputs, k, &s->g->values[s->n->outputs[k]], "output"))
			return true;
	return true;
}

/* Writes the copy back into the node's message: only what changed. */
static bool write_back(nstate *s)
{
	rw *r = s->r;
	struct Onnx__NodeProto *np = rw_node(r, s->g, s->ni);
	if (!np)
		return false;
	if (s->op_set && !edit_node_set_op(r->e, np, s->op, ""))
		return rw_nomem(r), false;
	for (int32_t i = 0; i < s->n->nattrs; i++)
		if (!ns_get(s, s->n->attrs[i].name))
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
			return rw_nomem(r), false;
	}
	if (s->inputs_set) {
		for (int32_t k = 0; k < s->ninputs; k++)
			if (!edit_node_set_input(r->e, np, k, s->inputs[k]))
				return rw_nomem(r), false;
		edit_node_keep_inputs(np, s->ninputs);
	}
	if (s->noutputs < s->n->noutputs)
		edit_node_keep_outputs(np, s->noutputs);
	return true;
}

/* Takes the copy through every step of its operator between the two opsets, in
 * order (downward: the newest first), following a rename onto the new operator's
 * rows. */
static bool walk(nstate *s)
{
	rw *r = s->r;
	int64_t at = r->from;
	for (int hops = 0; hops < 4; hops++) {
		op_history h;
		if (!history_of(r, s->op, &h)) {
			if (r->m->nomem)
				return false;
			s->adapted = true;
			if (!hops && !strcmp(s->op, "SimplifiedLayerNormalization"))
				return dn_ort_simplified_layernorm(s);
			return ns_refuse(s, "onnxshape knows no history for %s", s->op);
		}
		if (!hops && h.rows[0].since > at && !strcmp(s->op, "LayerNormalization")) {
			s->adapted = true;
			return dn_ort_layernorm(s, h.rows[0].since);
		}
		if (!hops && h.rows[0].since > at)
			return ns_refuse(s, "%s does not exist at opset %lld (it came with opset %d)", s->op, (long long)at,
				      h.rows[0].since);
		for (int32_t j = 0; j < h.nrows; j++) {
			int32_t i = s->down ? h.nrows - 1 - j : j;
			op_step st = step_at(&h, i);
			bool in = s->down ? st.since > r->to && st.since <= at : st.since > at && st.since <= r->to;
			if (!in)
				continue;
			adapt_fn fn = s->down ? st.down : i == 0 ? NULL : st.up;
			if (!fn)
				continue;
			s->step = st.since;
			s->first_row = i == 0;
			s->adapted = true;
			if (!fn(s))
				return false;
			if (s->refused || s->built)
				return true;
			if (s->renamed) {
				s->renamed = false;
				at = s->down ? st.since - 1 : st.since;
				goto next;
			}
		}
		return true;
	next:;
	}
	return ns_refuse(s, "too many renames");
}

/* A node's signature, for what the planning run decides of a node that no adapter
 * touches: the operator, its attributes' names and types, and for each input and
 * output whether it is there and, when inference knows it, its element type. Walking
 * an operator none of whose steps between the two opsets has an adapter changes
 * nothing, and the fit check reads nothing else of such a node while it finds it
 * fitting (an attribute's value only for one the target does not know, which
 * changes the node), so two nodes of one signature get the same verdict. The
 * strings are named by address (the loader interns operators and attribute names;
 * a string never changes nor moves), so equal signatures may differ only in that
 * one node's strings are copies: a miss, never a wrong answer. Written into w; the
 * number of words, 0 when it does not fit or says too little. */
#define SIG_WORDS 64

static int32_t signature(const graph *g, const node *n, uint64_t *w)
{
	int32_t len = 0, fill = 0;
	uint64_t pack = 0;
	if (n->nattrs > 255 || n->ninputs > 255 || n->noutputs > 255)
		return 0;
	w[len++] = (uintptr_t)n->op_type;
	w[len++] = (uint64_t)n->nattrs | (uint64_t)n->ninputs << 8 | (uint64_t)n->noutputs << 16;
	/* Small fields (types, codes), 16 bits each, four to a word. */
#define SIG_SMALL(x)                                                                                             \
	do {                                                                                                     \
		pack = pack << 16 | (uint64_t)(x);                                                               \
		if (++fill == 4) {                                                                               \
			if (len == SIG_WORDS)                                                                    \
				return 0;                                                                        \
			w[len++] = pack, pack = 0, fill = 0;                                                     \
		}                                                                                                \
	} while (0)
	for (int32_t i = 0; i < n->nattrs; i++) {
		const attr_view *a = &n->attrs[i];
		if (a->ref || a->type < 0 || a->type > 0xffff || len == SIG_WORDS)
			return 0;
		w[len++] = (uintptr_t)a->name;
		SIG_SMALL(a->type);
	}
	for (int32_t io = 0; io < 2; io++) {
		int32_t count = io ? n->noutputs : n->ninputs;
		const int32_t *ids = io ? n->outputs : n->inputs;
		for (int32_t k = 0; k < count; k++) {
			const value *v = ids[k] >= 0 ? &g->values[ids[k]] : NULL;
			int32_t code = !v ? 0 : v->ti.kind != TK_TENSOR || v->ti.elem <= 0 ? 1 : 2 + v->ti.elem;
			if (code > 0xffff)
				return 0;
			SIG_SMALL(code);
		}
	}
#undef SIG_SMALL
	if (fill) {
		if (len == SIG_WORDS)
			return 0;
		w[len++] = pack << (16 * (4 - fill)) | (uint64_t)fill;
	}
	return len;
}

static uint64_t sig_hash(const uint64_t *w, int32_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	for (int32_t i = 0; i < len; i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdu, h ^= h >> 29;
	return h ? h : 1;
}

/* The signatures found idle (rw.idle_sigs): open addressing on the hash. */
struct sig_set {
	uint64_t *hash; /* 0: empty */
	const uint64_t **key;
	int32_t *len;
	size_t cap, n; /* cap: a power of two */
};

static size_t sig_slot(const struct sig_set *t, const uint64_t *w, int32_t len, uint64_t h)
{
	size_t j = (size_t)h & (t->cap - 1);
	for (; t->hash[j]; j = (j + 1) & (t->cap - 1))
		if (t->hash[j] == h && t->len[j] == len && !memcmp(t->key[j], w, (size_t)len * sizeof *w))
			break;
	return j;
}

static bool sig_known(const struct sig_set *t, const uint64_t *w, int32_t len, uint64_t h)
{
	return t && t->cap && t->hash[sig_slot(t, w, len, h)];
}

static bool sig_grow(rw *r, struct sig_set *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct sig_set g = {.cap = cap, .n = t->n};
	g.hash = arena_zalloc(r->m->arena, cap * sizeof *g.hash);
	g.key = arena_array(r->m->arena, cap, sizeof *g.key);
	g.len = arena_array(r->m->arena, cap, sizeof *g.len);
	if (!g.hash || !g.key || !g.len)
		return false;
	for (size_t i = 0; i < t->cap; i++)
		if (t->hash[i]) {
			size_t j = sig_slot(&g, t->key[i], t->len[i], t->hash[i]);
			g.hash[j] = t->hash[i], g.key[j] = t->key[i], g.len[j] = t->len[i];
		}
	*t = g;
	return true;
}

static bool sig_add(rw *r, const uint64_t *w, int32_t len, uint64_t h)
{
	struct sig_set *t = r->idle_sigs;
	if (!t && !(t = r->idle_sigs = arena_zalloc(r->m->arena, sizeof *t)))
		return false;
	if ((t->n + 1) * 4 > t->cap * 3 && !sig_grow(r, t))
		return false;
	size_t j = sig_slot(t, w, len, h);
	if (t->hash[j])
		return true;
	uint64_t *k = arena_array(r->m->arena, (size_t)len, sizeof *k);
	if (!k)
		return false;
	memcpy(k, w, (size_t)len * sizeof *k);
	t->hash[j] = h, t->key[j] = k, t->len[j] = len;
	t->n++;
	return true;
}

bool opset_adapt(rw *r, graph *g, int32_t ni, bool quiet)
{
	const node *n = &g->nodes[ni];
	/* Most nodes of a model share the few signatures of its operators: what the
	 * planning run found of one, it knows of the others (the editing run skips them
	 * anyway: rewrite.c's opset_idle). */
	uint64_t sig[SIG_WORDS], sigh = 0;
	int32_t siglen = 0;
	if (!r->apply && !quiet) {
		siglen = signature(g, n, sig);
		if (siglen && sig_known(r->idle_sigs, sig, siglen, sigh = sig_hash(sig, siglen)))
			return true;
	}
	op_history h;
	if (!history_of(r, n->op_type, &h)) {
		if (r->m->nomem)
			return false;
		/* A model-local function of the default domain is the model's own. */
		for (int32_t gi = 0; gi < r->m->ngraphs; gi++)
			if (r->m->graphs[gi]->function && !strcmp(r->m->graphs[gi]->path + strlen("function "), n->op_type))
				return true;
	}
	nstate st = {.r = r, .g = g, .ni = ni, .n = n, .op = n->op_type, .ninputs = n->ninputs,
		     .noutputs = n->noutputs, .down = r->to < r->from};
	st.base = rw_base(r, g, ni);
	st.attrs = arena_array(r->m->arena, (size_t)n->nattrs + 1, sizeof *st.attrs);
	st.inputs = arena_array(r->m->arena, (size_t)n->ninputs + 1, sizeof *st.inputs);
	if (!st.attrs || !st.inputs)
		return rw_nomem(r), false;
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
	/* A candidate of the axis rewrite loses its axis and broadcast there. */
	if (quiet)
		for (int32_t i = 0; i < st.nattrs; i++)
			if (!strcmp(st.attrs[i].name, "axis") || !strcmp(st.attrs[i].name, "broadcast"))
				st.attrs[i].gone = true;
	if (!walk(&st))
		return false;
	if (!st.refused && !st.built && !fit(&st))
		return false;
	if (st.refused)
		return !r->m->nomem;
	if (siglen && !st.adapted && !st.built && !st.changed && !sig_add(r, sig, siglen, sigh))
		return rw_nomem(r), false;
	if (st.changed && !quiet) {
		r->rep->n_adapted++;
		rw_change(r, g, ni, "opset", "%s %lld -> %lld: %.*s", n->op_type, (long long)r->from, (long long)r->to,
			  (int)st.wlen, st.what);
	}
	if (r->apply && st.changed && !write_back(&st))
		return false;
	return !r->m->nomem;
}
