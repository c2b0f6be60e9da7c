/* rules_control.c: If, Loop and Scan, whose outputs come from subgraphs.
 *
 * Bodies are inferred with infer_subgraph, given the types their formal inputs take
 * from the node's inputs; their outputs then decide the node's. Where two
 * possibilities meet (If's branches, a loop-carried value before and after an
 * iteration) only what they agree on is kept: equal dims stay, different dims become
 * unknown, different ranks leave the rank unknown.
 */
#include "passes/rules_control.h"

#include "core/dtype.h"

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

void infer_if(infer_ctx *c)
{
	graph *then_g = attr_graph(c, "then_branch"), *else_g = attr_graph(c, "else_branch");
	if (!then_g || !else_g) {
		infer_diag(c, OSH_ERROR, "shape-error", "If needs both then_branch and else_branch graphs");
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
	if (then_g->noutputs != else_g->noutputs || then_g->noutputs != out_count(c)) {
		infer_diag(c, OSH_ERROR, "shape-error",
			   "If's branches produce %d and %d outputs but the node has %d", then_g->noutputs,
			   else_g->noutputs, out_count(c));
		return;
	}
	for (int32_t k = 0; k < out_count(c); k++) {
		tinfo t = cond == 1	? *sub_out(then_g, k)
			  : cond == 0 ? *sub_out(else_g, k)
				      : join(c, sub_out(then_g, k), sub_out(else_g, k));
		set_out_info(c, k, &t);
	}
}

void infer_loop(infer_ctx *c)
{
	graph *body = attr_graph(c, "body");
	if (!body)
		return;
	int32_t ncarried = in_count(c) - 2;
	if (ncarried < 0 || ncarried > MAX_IO || body->ninputs != ncarried + 2 || body->noutputs < ncarried + 1) {
		infer_diag(c, OSH_ERROR, "shape-error",
			   "Loop's body takes %d inputs and gives %d outputs, but the node passes %d loop-carried values",
			   body->ninputs, body->noutputs, ncarried < 0 ? 0 : ncarried);
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
	for (int32_t k = 0; k < ncarried; k++)
		ins[k + 2] = shape_only(in(c, k + 2));
	infer_subgraph(c, body, ins, ncarried + 2);
	/* A loop-carried value may change shape from one iteration to the next: if the
	 * body's result differs from what went in, run the body again on what both
	 * agree on, which then covers every iteration. */
	bool again = false;
	for (int32_t k = 0; k < ncarried; k++) {
		const tinfo *after = sub_out(body, k + 1);
		if (!same_info(c, &ins[k + 2], after)) {
			ins[k + 2] = join(c, &ins[k + 2], after);
			again = true;
		}
	}
	if (again)
		infer_subgraph(c, body, ins, ncarried + 2);
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
		const tinfo *cond_out = sub_out(body, 0);
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

/* Scan from version 9: N state variables, then M scan inputs. */
void infer_scan9(infer_ctx *c)
{
	graph *body = attr_graph(c, "body");
	int64_t m = attr_i(c, "num_scan_inputs", -1);
	int32_t nin = in_count(c);
	if (!body || m < 1 || m > nin || nin > MAX_IO) {
		infer_diag(c, OSH_ERROR, "shape-error", "Scan's num_scan_inputs %lld does not fit its %d inputs",
			   (long long)m, nin);
		return;
	}
	int32_t nstate = nin - (int32_t)m;
	const int64_t *in_axes = NULL, *out_axes = NULL;
	int32_t n_in_axes = 0, n_out_axes = 0;
	attr_ints(c, "scan_input_axes", &in_axes, &n_in_axes);
	attr_ints(c, "scan_output_axes", &out_axes, &n_out_axes);
	tinfo ins[MAX_IO];
	dim seq = dim_unknown();
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
		if (seq.kind == DIM_UNKNOWN)
			seq = removed;
	}
	infer_subgraph(c, body, ins, nin);
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
		infer_diag(c, OSH_ERROR, "shape-error", "Scan's num_scan_inputs %lld does not fit its inputs",
			   (long long)m);
		return;
	}
	int32_t nstate = nin - (int32_t)m;
	tinfo ins[MAX_IO];
	dim batch = dim_unknown(), seq = dim_unknown(), d;
	for (int32_t k = 0; k < nin; k++) {
		const tinfo *t = in(c, k + 1);
		tinfo x = remove_dim(c, t, 0, &d);
		if (batch.kind == DIM_UNKNOWN)
			batch = d;
		if (k >= nstate) {
			x = remove_dim(c, &x, 0, &d);
			if (seq.kind == DIM_UNKNOWN)
				seq = d;
		}
		ins[k] = x;
	}
	infer_subgraph(c, body, ins, nin);
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
