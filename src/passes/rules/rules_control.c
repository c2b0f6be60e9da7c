/* rules_control.c: If, Loop and Scan, whose outputs come from subgraphs.
 *
 * Bodies are inferred with infer_subgraph, given the types their formal inputs take
 * from the node's inputs; their outputs then decide the node's. Where two
 * possibilities meet (If's branches, a loop-carried value before and after an
 * iteration) only what they agree on is kept: equal dims stay, different dims become
 * unknown, different ranks leave the rank unknown.
 *
 * Where a body meets its node, what ONNX Runtime checks (when it loads the model, or
 * when the node runs) is reported as subgraph-error: the counts of inputs and
 * outputs, element types known on both sides that differ (If's branches, a
 * loop-carried value or a scan state before and after the body, a body input against
 * what the node passes it), scan lengths known to differ. Only facts known on both
 * sides are compared: what is unknown, or a symbol, is never a finding.
 */
#include "passes/rules/rule_protos.h"

#include "core/dtype.h"

#include <stdio.h>
#include <string.h>

#define MAX_IO 4096

static const tinfo *sub_out(graph *sg, int32_t k)
{
	return k < sg->noutputs ? &sg->values[sg->outputs[k]].ti : NULL;
}

/* What two possible tinfos of one value agree on. */
static tinfo join(infer_ctx *c, const tinfo *a, const tinfo *b)
{
	if (!a || !b || a->kind != b->kind)
		return tinfo_unknown();
	tinfo t = tinfo_unknown();
	t.kind = a->kind;
	t.inner = a->inner == b->inner ? a->inner : TK_UNKNOWN;
	t.elem = a->elem == b->elem ? a->elem : 0;
	if (a->rank < 0 || a->rank != b->rank)
		return t;
	dim *d = dims_alloc(c, a->rank);
	if (!d)
		return t;
	for (int32_t k = 0; k < a->rank; k++) {
		dim x = dim_resolve(c->syms, a->dims[k]), y = dim_resolve(c->syms, b->dims[k]);
		d[k] = dim_eq(x, y) ? x : dim_unknown();
	}
	t.rank = a->rank;
	t.dims = d;
	return t;
}

static bool same_info(infer_ctx *c, const tinfo *a, const tinfo *b)
{
	if (a->kind != b->kind || a->elem != b->elem || a->rank != b->rank)
		return false;
	for (int32_t k = 0; k < a->rank; k++)
		if (!dim_eq(dim_resolve(c->syms, a->dims[k]), dim_resolve(c->syms, b->dims[k])))
			return false;
	return true;
}

/* Shape without content: a body sees a value that may change from one run to the next. */
static tinfo shape_only(const tinfo *t)
{
	tinfo x = t ? *t : tinfo_unknown();
	x.nval = -1;
	x.val = NULL;
	x.nfval = -1;
	x.fval = NULL;
	return x;
}

/* Any shape of t's kind and element type: what a loop-carried value may be at some
 * iteration when the body is inferred only once. */
static tinfo any_shape(const tinfo *t)
{
	tinfo x = shape_only(t);
	x.rank = -1;
	x.dims = NULL;
	return x;
}

static tinfo scalar(int32_t elem)
{
	tinfo t = tinfo_unknown();
	t.kind = TK_TENSOR;
	t.elem = elem;
	t.rank = 0;
	return t;
}

/* t with a dimension d inserted at position axis (0 <= axis <= rank). */
static tinfo insert_dim(infer_ctx *c, const tinfo *t, int32_t axis, dim d)
{
	tinfo x = shape_only(t);
	if (x.kind != TK_TENSOR || x.rank < 0 || axis < 0 || axis > x.rank)
		return (tinfo){.kind = x.kind, .elem = x.elem, .rank = RANK_UNKNOWN, .nval = -1, .nfval = -1};
	dim *nd = dims_alloc(c, x.rank + 1);
	if (!nd)
		return tinfo_unknown();
	for (int32_t k = 0, j = 0; k <= x.rank; k++)
		nd[k] = k == axis ? d : x.dims[j++];
	x.dims = nd;
	x.rank++;
	return x;
}

/* t with dimension axis removed; rank unknown when t's rank is. */
static tinfo remove_dim(infer_ctx *c, const tinfo *t, int32_t axis, dim *removed)
{
	tinfo x = shape_only(t);
	*removed = dim_unknown();
	if (x.kind != TK_TENSOR || x.rank <= 0 || axis < 0 || axis >= x.rank) {
		x.rank = RANK_UNKNOWN;
		x.dims = NULL;
		return x;
	}
	dim *nd = dims_alloc(c, x.rank - 1);
	if (!nd)
		return tinfo_unknown();
	for (int32_t k = 0, j = 0; k < x.rank; k++) {
		if (k == axis)
			*removed = x.dims[k];
		else
			nd[j++] = x.dims[k];
	}
	x.dims = nd;
	x.rank--;
	return x;
}

/* Element types known on both sides and different: ONNX Runtime compares them
 * exactly where a value crosses into or out of a body. Kinds are left alone (an
 * optional carried value may come back as what it holds, Loop-16). */
static bool elem_clash(const tinfo *a, const tinfo *b)
{
	return a && b && a->kind != TK_UNKNOWN && a->kind == b->kind && a->inner == b->inner && a->elem && b->elem &&
	       a->elem != b->elem;
}

/* Shapes known to differ, as ONNX's shape merge refuses them: both ranks known and
 * different, or a dimension known on both sides with different sizes. */
static bool shape_clash(infer_ctx *c, const tinfo *a, const tinfo *b)
{
	if (!a || !b || a->kind != TK_TENSOR || b->kind != TK_TENSOR || a->rank < 0 || b->rank < 0)
		return false;
	if (a->rank != b->rank)
		return true;
	for (int32_t k = 0; k < a->rank; k++) {
		dim x = dim_resolve(c->syms, a->dims[k]), y = dim_resolve(c->syms, b->dims[k]);
		if (x.kind == DIM_KNOWN && y.kind == DIM_KNOWN && x.v != y.v)
			return true;
	}
	return false;
}

/* "FLOAT", "sequence of FLOAT": the element type as messages show it. */
static const char *type_text(infer_ctx *c, const tinfo *t)
{
	static const char *const kinds[] = {"", "", "sparse ", "sequence of ", "optional ", "map to "};
	const char *kind = t->kind < sizeof kinds / sizeof *kinds ? kinds[t->kind] : "";
	char buf[64];
	snprintf(buf, sizeof buf, "%s%s", kind, dtype_name(t->elem));
	const char *s = arena_strdup(c->a, buf);
	return s ? s : dtype_name(t->elem);
}

static const char *out_name(infer_ctx *c, int32_t k)
{
	return k < c->n->noutputs && c->n->outputs[k] >= 0 ? c->g->values[c->n->outputs[k]].name : "";
}

static const char *plural(int32_t n) { return n == 1 ? "" : "s"; }

static const char *sub_name(graph *sg, int32_t id) { return id >= 0 ? sg->values[id].name : ""; }

/* ONNX Runtime passes a body either all its inputs or only those without an
 * initializer (a default the caller need not give). */
static bool body_takes(const graph *body, int32_t n)
{
	if (body->ninputs == n)
		return true;
	int32_t required = 0;
	for (int32_t k = 0; k < body->ninputs; k++)
		required += body->inputs[k] >= 0 && !body->values[body->inputs[k]].init_view;
	return required == n;
}

/* Body input k against what the node passes it (`given`, described by `what`):
 * ONNX Runtime refuses a declared element type, or (with `shapes`) a declared shape,
 * that contradicts it. Reports it; returns false when it did. */
static bool check_body_input(infer_ctx *c, graph *body, int32_t k, const tinfo *given, bool shapes,
			     const char *what)
{
	if (k >= body->ninputs || body->inputs[k] < 0 || !given)
		return true;
	const value *v = &body->values[body->inputs[k]];
	tinfo d = value_declared(v);
	bool types = elem_clash(&d, given);
	if (!types && !(shapes && shape_clash(c, &d, given)))
		return true;
	infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
		   "%s's body declares input %d '%s' as %s, but the node passes %s (%s)", c->n->op_type, k, v->name,
		   types ? type_text(c, &d) : fmt_shape(c, &d), types ? type_text(c, given) : fmt_shape(c, given),
		   what);
	return false;
}

/* The scan length (or, with `batch`, Scan-8's batch size) d of input k against the
 * first one known (input *first, size *len): ONNX Runtime refuses different ones. */
static void check_length(infer_ctx *c, dim d, int32_t k, int32_t *first, dim *len, bool batch)
{
	d = dim_resolve(c->syms, d);
	if (d.kind != DIM_KNOWN)
		return;
	if (*first < 0) {
		*first = k;
		*len = d;
	} else if (len->v != d.v) {
		if (batch)
			infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
				   "Scan's inputs '%s' and '%s' have batch sizes %lld and %lld (axis 0): every input "
				   "needs the same",
				   in_name(c, *first), in_name(c, k), (long long)len->v, (long long)d.v);
		else
			infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
				   "Scan's inputs '%s' and '%s' are %lld and %lld long along their scan axes: every "
				   "scan input needs the same length",
				   in_name(c, *first), in_name(c, k), (long long)len->v, (long long)d.v);
	}
}

/* State k of a Scan against what the body gives back for it (its output k): a state
 * keeps its element type (ONNX Runtime fails when the node runs) and its shape
 * (refused at load). */
static void check_state(infer_ctx *c, graph *body, int32_t k, const tinfo *before, int32_t in_index)
{
	const tinfo *after = sub_out(body, k);
	bool types = elem_clash(before, after);
	if (!types && !shape_clash(c, before, after))
		return;
	infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
		   "Scan's body turns state %d ('%s') from %s into %s (its output '%s'): a state keeps its %s", k,
		   in_name(c, in_index), types ? type_text(c, before) : fmt_shape(c, before),
		   types ? type_text(c, after) : fmt_shape(c, after), sub_name(body, body->outputs[k]),
		   types ? "type" : "shape");
}

void infer_if(infer_ctx *c)
{
	graph *then_g = attr_graph(c, "then_branch"), *else_g = attr_graph(c, "else_branch");
	if (!then_g || !else_g) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "If needs both then_branch and else_branch graphs");
		return;
	}
	/* A condition known at load time (a function body choosing by rank, as
	 * AffineGrid's does) leaves one branch that never runs: not inferred (what
	 * it would find of the sizes, facts included, is not true of the model), and
	 * the outputs are the other's. */
	int64_t cond = -1;
	int32_t nk;
	if (!(in(c, 0) && in_known_ints(c, 0, &cond, 1, &nk) && nk == 1))
		cond = -1;
	if (cond != 0)
		infer_subgraph(c, then_g, NULL, 0);
	if (cond != 1)
		infer_subgraph(c, else_g, NULL, 0);
	/* ONNX Runtime holds the other branch's nodes to their schemas all the same. */
	if (cond == 0)
		infer_subgraph_checks(c, then_g);
	if (cond == 1)
		infer_subgraph_checks(c, else_g);
	if (then_g->noutputs != else_g->noutputs || then_g->noutputs != out_count(c)) {
		infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
			   "If's branches produce %d and %d outputs but the node has %d", then_g->noutputs,
			   else_g->noutputs, out_count(c));
		return;
	}
	for (int32_t k = 0; k < out_count(c); k++) {
		/* ONNX Runtime types both branches, the one that never runs too: of that
		 * one, what its outputs declare. */
		tinfo then_t = cond == 0 ? value_declared(&then_g->values[then_g->outputs[k]]) : *sub_out(then_g, k);
		tinfo else_t = cond == 1 ? value_declared(&else_g->values[else_g->outputs[k]]) : *sub_out(else_g, k);
		if (elem_clash(&then_t, &else_t))
			infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
				   "If's branches give output %d ('%s') different types: %s from then_branch, %s from "
				   "else_branch",
				   k, out_name(c, k), type_text(c, &then_t), type_text(c, &else_t));
		tinfo t = cond == 1 ? then_t : cond == 0 ? else_t : join(c, &then_t, &else_t);
		set_out_info(c, k, &t);
	}
}

void infer_loop(infer_ctx *c)
{
	graph *body = attr_graph(c, "body");
	if (!body)
		return;
	int32_t ncarried = in_count(c) - 2;
	if (ncarried < 0 || ncarried > MAX_IO || !body_takes(body, ncarried + 2)) {
		infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
			   "Loop's body takes %d input%s, but the node passes %d: the iteration number, the condition "
			   "and %d loop-carried value%s",
			   body->ninputs, plural(body->ninputs), ncarried < 0 ? 2 : ncarried + 2,
			   ncarried < 0 ? 0 : ncarried, plural(ncarried));
		return;
	}
	if (body->noutputs != out_count(c) + 1 || out_count(c) < ncarried) {
		infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
			   "Loop's body gives %d output%s, but the node has %d output%s and %d loop-carried value%s: "
			   "the body gives the condition, then the loop-carried values, then the scan outputs",
			   body->noutputs, plural(body->noutputs), out_count(c), plural(out_count(c)), ncarried,
			   plural(ncarried));
		return;
	}
	tinfo ins[MAX_IO + 2];
	ins[0] = scalar(DT_INT64);
	ins[1] = scalar(DT_BOOL);
	/* The number of iterations, when it is certain: trip count M, unless the
	 * condition can end the loop sooner. With a known true condition the body is
	 * inferred with cond_in known true (and nothing known of the other carried
	 * values' content): if cond_out is then known true, it is true at every
	 * iteration, and the loop runs M times. */
	int64_t m = -1, cond0 = -1;
	int32_t nk;
	bool m_known = in_count(c) > 0 && in(c, 0) && in_known_ints(c, 0, &m, 1, &nk) && nk == 1 && m >= 0;
	bool has_cond = in_count(c) > 1 && in(c, 1);
	if (has_cond && !(in_known_ints(c, 1, &cond0, 1, &nk) && nk == 1))
		cond0 = -1;
	dim *truth = cond0 == 1 ? dims_alloc(c, 1) : NULL;
	if (truth) {
		truth[0] = dim_known(1);
		ins[1].nval = 1;
		ins[1].val = truth;
	}
	/* Past the pass's bound on bodies (infer_subgraph_may_repeat), the body is
	 * inferred once, for loop-carried values of any shape. */
	bool once = !infer_subgraph_may_repeat(c);
	for (int32_t k = 0; k < ncarried; k++)
		ins[k + 2] = once ? any_shape(in(c, k + 2)) : shape_only(in(c, k + 2));
	/* What the body declares of its inputs meets what ONNX Runtime passes: the
	 * iteration number, the node's condition (none when omitted), and the
	 * loop-carried values' element types (their shapes may change). */
	bool fits[MAX_IO + 2];
	for (int32_t k = 0; k < ncarried + 2; k++) {
		const char *what = k == 0 ? "the iteration number" : k == 1 ? "the condition" : "a loop-carried value";
		fits[k] = body->ninputs != ncarried + 2 ||
			  check_body_input(c, body, k, k == 1 ? in(c, 1) : &ins[k], false, what);
	}
	infer_subgraph(c, body, ins, ncarried + 2);
	const tinfo *cond_out = sub_out(body, 0);
	if (cond_out->kind == TK_TENSOR && cond_out->elem && cond_out->elem != DT_BOOL)
		infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
			   "Loop's body gives its condition (output 0 '%s') as %s: ONNX Runtime runs it only as BOOL",
			   sub_name(body, body->outputs[0]), type_text(c, cond_out));
	/* A loop-carried value may change shape from one iteration to the next: if the
	 * body's result differs from what went in, run the body again on what both
	 * agree on, which then covers every iteration (or, when the bodies have cost
	 * the pass its bound meanwhile, on any shape). Not its element type: ONNX
	 * Runtime refuses that. */
	bool again = false;
	for (int32_t k = 0; k < ncarried; k++) {
		const tinfo *after = sub_out(body, k + 1);
		if (fits[k + 2] && elem_clash(&ins[k + 2], after))
			infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
				   "Loop's body turns loop-carried value %d ('%s') from %s into %s (its output '%s'): "
				   "a loop-carried value keeps its type",
				   k, in_name(c, k + 2), type_text(c, &ins[k + 2]), type_text(c, after),
				   sub_name(body, body->outputs[k + 1]));
		if (!once && !same_info(c, &ins[k + 2], after)) {
			ins[k + 2] = join(c, &ins[k + 2], after);
			again = true;
		}
	}
	if (again) {
		if (!infer_subgraph_may_repeat(c))
			for (int32_t k = 0; k < ncarried; k++)
				ins[k + 2] = any_shape(&ins[k + 2]);
		infer_subgraph(c, body, ins, ncarried + 2);
	}
	for (int32_t k = 0; k < ncarried; k++) {
		tinfo t = join(c, &ins[k + 2], sub_out(body, k + 1));
		set_out_info(c, k, &t);
	}
	/* Scan outputs stack one element per iteration: a leading dim of the number of
	 * iterations, a run-time quantity unless certain (above). */
	dim iterations = dim_unknown();
	if (has_cond && cond0 == 0) {
		iterations = dim_known(0);
	} else if (m_known && !has_cond) {
		iterations = dim_known(m);
	} else if (m_known && cond0 == 1) {
		const dim *v;
		int32_t nv;
		cond_out = sub_out(body, 0); /* after the last run of the body */
		if (cond_out && cond_out->nval == 1 && (v = cond_out->val, nv = cond_out->nval, nv == 1) &&
		    dim_is(dim_resolve(c->syms, v[0]), 1))
			iterations = dim_known(m);
	}
	for (int32_t k = ncarried; k < out_count(c); k++) {
		const tinfo *e = sub_out(body, k + 1);
		if (!e)
			continue;
		tinfo t = insert_dim(c, e, 0, iterations.kind == DIM_KNOWN ? iterations : dim_fresh(c));
		set_out_info(c, k, &t);
	}
}

/* The body's counts against the node's, for Scan: nin inputs (states, then scan
 * inputs), and as many outputs as the node. Reports a mismatch; false then. */
static bool scan_fits(infer_ctx *c, graph *body, int32_t nin, int32_t nstate)
{
	if (!body_takes(body, nin)) {
		infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
			   "Scan's body takes %d input%s, but the node passes %d: %d state%s and %d scan input%s",
			   body->ninputs, plural(body->ninputs), nin, nstate, plural(nstate), nin - nstate,
			   plural(nin - nstate));
		return false;
	}
	if (body->noutputs != out_count(c) || out_count(c) < nstate) {
		infer_diag(c, OSH_ERROR, DIAG_SUBGRAPH_ERROR,
			   "Scan's body gives %d output%s, but the node has %d output%s and %d state%s: the body gives "
			   "the states, then the scan outputs",
			   body->noutputs, plural(body->noutputs), out_count(c), plural(out_count(c)), nstate,
			   plural(nstate));
		return false;
	}
	return true;
}

/* Scan from version 9: N state variables, then M scan inputs. */
void infer_scan9(infer_ctx *c)
{
	graph *body = attr_graph(c, "body");
	int64_t m = attr_i(c, "num_scan_inputs", -1);
	int32_t nin = in_count(c);
	if (!body || m < 1 || m > nin || nin > MAX_IO) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Scan's num_scan_inputs %lld does not fit its %d inputs",
			   (long long)m, nin);
		return;
	}
	int32_t nstate = nin - (int32_t)m;
	if (!scan_fits(c, body, nin, nstate))
		return;
	const int64_t *in_axes = NULL, *out_axes = NULL;
	int32_t n_in_axes = 0, n_out_axes = 0;
	attr_ints(c, "scan_input_axes", &in_axes, &n_in_axes);
	attr_ints(c, "scan_output_axes", &out_axes, &n_out_axes);
	tinfo ins[MAX_IO];
	dim seq = dim_unknown(), len = dim_unknown();
	int32_t first = -1;
	for (int32_t k = 0; k < nin; k++) {
		if (k < nstate) {
			ins[k] = shape_only(in(c, k));
			continue;
		}
		const tinfo *t = in(c, k);
		int64_t axis = k - nstate < n_in_axes ? in_axes[k - nstate] : 0;
		int32_t a = 0;
		dim removed = dim_unknown();
		if (t && t->rank >= 0) {
			if (!norm_axis(c, axis, t->rank, false, "scan_input_axes entry", &a))
				return;
			ins[k] = remove_dim(c, t, a, &removed);
		} else {
			ins[k] = shape_only(t);
			ins[k].rank = RANK_UNKNOWN;
		}
		check_length(c, removed, k, &first, &len, false);
		if (seq.kind == DIM_UNKNOWN)
			seq = removed;
	}
	bool fits[MAX_IO];
	for (int32_t k = 0; k < nin; k++)
		fits[k] = body->ninputs != nin ||
			  check_body_input(c, body, k, &ins[k], true, k < nstate ? "a state" : "a scan input's slice");
	infer_subgraph(c, body, ins, nin);
	for (int32_t k = 0; k < nstate; k++)
		if (fits[k])
			check_state(c, body, k, &ins[k], k);
	for (int32_t k = 0; k < nstate && k < out_count(c); k++) {
		tinfo t = join(c, &ins[k], sub_out(body, k));
		set_out_info(c, k, &t);
	}
	for (int32_t k = nstate; k < out_count(c); k++) {
		const tinfo *e = sub_out(body, k);
		if (!e)
			continue;
		int64_t axis = k - nstate < n_out_axes ? out_axes[k - nstate] : 0;
		int32_t a = 0;
		if (e->rank >= 0 && !norm_axis(c, axis, e->rank, true, "scan_output_axes entry", &a))
			continue;
		tinfo t = insert_dim(c, e, a, seq);
		set_out_info(c, k, &t);
	}
}

/* Scan-8: a leading batch axis on every input, the scan axis is 1, and the first
 * input is the optional sequence_lens. */
void infer_scan8(infer_ctx *c)
{
	graph *body = attr_graph(c, "body");
	int64_t m = attr_i(c, "num_scan_inputs", -1);
	int32_t nin = in_count(c) - 1;
	if (!body || m < 1 || m > nin || nin > MAX_IO) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "Scan's num_scan_inputs %lld does not fit its inputs",
			   (long long)m);
		return;
	}
	int32_t nstate = nin - (int32_t)m;
	if (!scan_fits(c, body, nin, nstate))
		return;
	tinfo ins[MAX_IO];
	dim batch = dim_unknown(), seq = dim_unknown(), d, batch0 = dim_unknown(), len = dim_unknown();
	int32_t first_batch = -1, first_len = -1;
	for (int32_t k = 0; k < nin; k++) {
		const tinfo *t = in(c, k + 1);
		tinfo x = remove_dim(c, t, 0, &d);
		check_length(c, d, k + 1, &first_batch, &batch0, true);
		if (batch.kind == DIM_UNKNOWN)
			batch = d;
		if (k >= nstate) {
			x = remove_dim(c, &x, 0, &d);
			check_length(c, d, k + 1, &first_len, &len, false);
			if (seq.kind == DIM_UNKNOWN)
				seq = d;
		}
		ins[k] = x;
	}
	bool fits[MAX_IO];
	for (int32_t k = 0; k < nin; k++)
		fits[k] = body->ninputs != nin ||
			  check_body_input(c, body, k, &ins[k], true, k < nstate ? "a state" : "a scan input's slice");
	infer_subgraph(c, body, ins, nin);
	for (int32_t k = 0; k < nstate; k++)
		if (fits[k])
			check_state(c, body, k, &ins[k], k + 1);
	for (int32_t k = 0; k < out_count(c); k++) {
		const tinfo *e = sub_out(body, k);
		if (!e)
			continue;
		tinfo t = k < nstate ? insert_dim(c, e, 0, batch) : insert_dim(c, e, 0, seq);
		if (k >= nstate)
			t = insert_dim(c, &t, 0, batch);
		set_out_info(c, k, &t);
	}
}
