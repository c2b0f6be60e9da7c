/* rewrite_explicit.c: the explicit-broadcast stage of the rewrite: every
 * implicit broadcast made explicit with Expand, and Broadcast-3 nodes lowered to
 * standard ONNX. It runs after the axis stage (rewrite.c), on the re-indexed and
 * re-inferred model, so Paddle and legacy nodes are already numpy ones here. It only
 * edits the messages: the re-index, inference and value_info after it are rows of
 * pipeline.c's table.
 *
 * For a node that broadcasts implicitly (bcast_sites.h), each site input whose shape
 * is not proven equal to the node's result gets Expand(input, target). Expand
 * broadcasts bidirectionally with right alignment (spec section 5), so a lower-rank
 * input needs no Unsqueeze first: Expand pads it on the left exactly as numpy would,
 * and since the target is the result shape, the Expand gives the result shape. The
 * target is a constant when every result dimension is known; otherwise it is
 * computed in the graph, so the model stays valid for every binding of its symbols:
 *   - an input (any input of the node) already of the result shape: Shape(it);
 *   - else each result dimension is a known size or a symbol some input of the node
 *     carries (inference proved them equal): Gather over Concat(Shape(...), sizes);
 *   - else (an unknown or unrelated size) the numpy rule itself, evaluated on the
 *     inputs' shapes left-padded with 1s: Where(Equal(acc, 1), next, acc), folded
 *     over the site inputs (needs opset 9 for Where).
 * Targets and Expands are shared within a graph: one target per result shape
 * (sizes and symbols alike: one symbol is one size at run time; a size inference
 * cannot name is never shared), one Expand per value and target. Each is placed
 * before the first node that needs it, so the order stays topological.
 *
 * Invariant: as in rewrite.c, a planning run and an editing run execute the same
 * code in the same order (same names, same counts); only the editing run touches the
 * messages, and only when the plan found nothing blocking.
 */
#include "passes/rewrite/rewrite.h"
#include "core/error.h"
#include "core/grow.h"

#include "core/dtype.h"
#include "passes/bcast/bcast_sites.h"
#include "passes/bcast/bcast_ops.h"
#include "loader/build_messages.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define X_MAX_RANK 64

typedef struct xrun {
	rw *r;
	strmap memo;        /* sharing: key → index into vals */
	const char **vals;
	int32_t nvals, cap_vals;
	int64_t opset;      /* the model's ai.onnx opset at this stage */
} xrun;

/* ---- small helpers --------------------------------------------------------------------- */

static const char *memo_get(xrun *x, const char *key)
{
	int32_t i = strmap_get(&x->memo, key);
	return i >= 0 ? x->vals[i] : NULL;
}

static void memo_put(xrun *x, const char *key, const char *val)
{
	rw *r = x->r;
	if (x->nvals == x->cap_vals) {
		const char **v = grow_arena_i32(r->m->arena, x->vals, &x->cap_vals, 32, sizeof *v);
		if (!v) {
			rw_nomem(r);
			return;
		}
		x->vals = v;
	}
	const char *k = arena_strdup(r->m->arena, key);
	if (!k || strmap_put(&x->memo, k, x->nvals) == -2) {
		rw_nomem(r);
		return;
	}
	x->vals[x->nvals++] = val;
}

/* A node before node ni of g making one new value "<base>/<role>" (also its name). */
static const char *add_node(xrun *x, graph *g, int32_t ni, const char *op, const char *base, const char *role,
			    int32_t nin, const char *const *inputs, struct Onnx__NodeProto **np)
{
	rw *r = x->r;
	const char *name = rw_value(r, base, role);
	*np = NULL;
	if (r->apply && !r->m->nomem) {
		*np = edit_node_new(r->e, g, ni, op, "", name, nin, inputs, 1, &name);
		if (!*np)
			rw_nomem(r);
	}
	return name;
}

static const char *vname(const graph *g, int32_t id) { return id >= 0 ? g->values[id].name : ""; }

/* The resolved shape of t into d (capacity X_MAX_RANK); its rank, or -1. */
static int32_t resolved(rw *r, const tinfo *t, dim *d)
{
	if (!t || t->kind != TK_TENSOR || t->rank < 0 || t->rank > X_MAX_RANK)
		return -1;
	for (int32_t k = 0; k < t->rank; k++)
		d[k] = dim_resolve(&r->m->syms, t->dims[k]);
	return t->rank;
}

static const char *shape_text(rw *r, const tinfo *t)
{
	dim d[X_MAX_RANK];
	int32_t n = resolved(r, t, d);
	if (n < 0)
		return "(unknown)";
	char buf[512];
	shape_format(buf, sizeof buf, (shape){n, d}, sym_name_cb, &r->m->syms);
	const char *s = arena_strdup(r->m->arena, buf);
	return s ? s : "";
}


/* ---- target shapes ---------------------------------------------------------------------- */

/* A constant 1-D INT64 target, one initializer per graph and value list. */
static const char *const_target(xrun *x, graph *g, const char *base, const int64_t *v, int32_t n, const char *key)
{
	const char *have = memo_get(x, key);
	if (have)
		return have;
	const char *name = "";
	if (!rw_ints(x->r, g, base, "target_shape", v, n, &name))
		rw_nomem(x->r);
	memo_put(x, key, name);
	return name;
}

/* Shape(input i of node ni), once per node (shapes[i] caches it). */
static const char *shape_of(xrun *x, graph *g, int32_t ni, const char *base, int32_t i, const char **shapes)
{
	if (shapes[i])
		return shapes[i];
	struct Onnx__NodeProto *np;
	char role[32];
	snprintf(role, sizeof role, "shape_%d", (int)i);
	const char *in[1] = {vname(g, g->nodes[ni].inputs[i])};
	shapes[i] = add_node(x, g, ni, "Shape", base, role, 1, in, &np);
	x->r->rep->n_target_nodes++;
	return shapes[i];
}

/* The numpy rule on the site inputs' run-time shapes (see the file comment). */
static const char *fold_target(xrun *x, graph *g, int32_t ni, const bsite *s, int32_t R, const char *base,
			       const char **shapes)
{
	rw *r = x->r;
	const node *n = &g->nodes[ni];
	if (s->rule != BCAST_NUMPY) {
		rw_error(r, g, ni, DIAG_REWRITE_UNSUPPORTED,
			 "cannot compute the result shape of %s in the graph: a result dimension is neither known nor "
			 "carried by an input, and its rule is %s", n->op_type, bcast_rule_name(s->rule));
		return NULL;
	}
	if (x->opset < 9) {
		rw_error(r, g, ni, DIAG_REWRITE_UNSUPPORTED,
			 "computing the result shape of %s in the graph needs Where (ai.onnx opset 9); the model is at "
			 "opset %lld: rerun with --target-opset 9", n->op_type, (long long)x->opset);
		return NULL;
	}
	for (int32_t j = 0; j < s->n; j++) {
		const tinfo *t = &g->values[n->inputs[s->slot[j]]].ti;
		if (!tinfo_has_rank(t)) {
			rw_error(r, g, ni, DIAG_REWRITE_UNSUPPORTED,
				 "cannot compute the result shape of %s in the graph: the rank of '%s' is unknown",
				 n->op_type, vname(g, n->inputs[s->slot[j]]));
			return NULL;
		}
	}
	struct Onnx__NodeProto *np;
	/* A vector of R ones, not a scalar: Equal must not broadcast implicitly either. */
	int64_t ones_r[X_MAX_RANK];
	for (int32_t k = 0; k < R; k++)
		ones_r[k] = 1;
	const char *one = "";
	if (!rw_ints(r, g, base, "ones", ones_r, R, &one))
		return rw_nomem(r), NULL;
	const char *acc = NULL;
	for (int32_t j = 0; j < s->n; j++) {
		int32_t slot = s->slot[j];
		const tinfo *t = &g->values[n->inputs[slot]].ti;
		const char *p = shape_of(x, g, ni, base, slot, shapes);
		if (t->rank < R) {
			int64_t ones[X_MAX_RANK];
			for (int32_t k = 0; k < R - t->rank; k++)
				ones[k] = 1;
			const char *pad = "";
			char role[32];
			snprintf(role, sizeof role, "ones_%d", (int)slot);
			if (!rw_ints(r, g, base, role, ones, R - t->rank, &pad))
				return rw_nomem(r), NULL;
			const char *in[2] = {pad, p};
			snprintf(role, sizeof role, "padded_shape_%d", (int)slot);
			p = add_node(x, g, ni, "Concat", base, role, 2, in, &np);
			if (r->apply && np && !rw_set_attr_i(r, np, "axis", 0))
				return NULL;
			r->rep->n_target_nodes++;
		}
		if (!acc) {
			acc = p;
			continue;
		}
		char role[32];
		const char *ie[2] = {acc, one};
		snprintf(role, sizeof role, "is_one_%d", (int)j);
		const char *eq = add_node(x, g, ni, "Equal", base, role, 2, ie, &np);
		const char *iw[3] = {eq, p, acc};
		snprintf(role, sizeof role, "broadcast_%d", (int)j);
		acc = add_node(x, g, ni, "Where", base, role, 3, iw, &np);
		r->rep->n_target_nodes += 2;
	}
	return acc;
}

/* The target for node ni's result od (rank R, some dims not known), computed in the
 * graph. NULL after reporting when it cannot be. */
static const char *computed_target(xrun *x, graph *g, int32_t ni, const bsite *s, const dim *od, int32_t R,
				   const char *base)
{
	rw *r = x->r;
	const node *n = &g->nodes[ni];
	const char **shapes = arena_array(r->m->arena, n->ninputs > 0 ? (size_t)n->ninputs : 1, sizeof *shapes);
	if (!shapes)
		return rw_nomem(r), NULL;
	/* PRelu's result is X's shape by its rule: Shape(X) is the target. */
	if (!strcmp(n->op_type, "PRelu"))
		return shape_of(x, g, ni, base, 0, shapes);
	/* Where each result dimension can be read at run time: input src[k], dim pos[k]. */
	int32_t src[X_MAX_RANK], pos[X_MAX_RANK];
	dim d[X_MAX_RANK];
	for (int32_t i = 0; i < n->ninputs; i++) {
		int32_t rk = n->inputs[i] >= 0 ? resolved(r, &g->values[n->inputs[i]].ti, d) : -1;
		bool same = rk == R;
		for (int32_t k = 0; k < rk && same; k++)
			same = dim_eq(d[k], od[k]);
		if (same)
			return shape_of(x, g, ni, base, i, shapes);
	}
	bool sourced = true;
	for (int32_t k = 0; k < R; k++) {
		src[k] = pos[k] = -1;
		if (od[k].kind == DIM_KNOWN)
			continue;
		for (int32_t i = 0; i < n->ninputs && src[k] < 0 && od[k].kind == DIM_SYMBOL; i++) {
			int32_t rk = n->inputs[i] >= 0 ? resolved(r, &g->values[n->inputs[i]].ti, d) : -1;
			for (int32_t j = 0; j < rk; j++) {
				if (dim_eq(d[j], od[k])) {
					src[k] = i;
					pos[k] = j;
					break;
				}
			}
		}
		sourced = sourced && src[k] >= 0;
	}
	if (!sourced)
		return fold_target(x, g, ni, s, R, base, shapes);
	/* Concat(Shape(a), Shape(b), ..., known sizes) and one Gather picking each dim. */
	const char *parts[X_MAX_RANK + 1];
	int32_t part_of[X_MAX_RANK], off[X_MAX_RANK], nparts = 0, total = 0;
	int32_t first_input[X_MAX_RANK];
	int64_t consts[X_MAX_RANK], idx[X_MAX_RANK];
	int32_t nconst = 0;
	for (int32_t k = 0; k < R; k++) {
		if (src[k] < 0)
			continue;
		int32_t p = -1;
		for (int32_t q = 0; q < nparts; q++)
			if (first_input[q] == src[k])
				p = q;
		if (p < 0) {
			p = nparts++;
			first_input[p] = src[k];
			parts[p] = shape_of(x, g, ni, base, src[k], shapes);
			off[p] = total;
			total += resolved(r, &g->values[n->inputs[src[k]]].ti, d);
		}
		part_of[k] = p;
	}
	for (int32_t k = 0; k < R; k++) {
		if (src[k] >= 0) {
			idx[k] = off[part_of[k]] + pos[k];
		} else {
			idx[k] = total + nconst;
			consts[nconst++] = od[k].v;
		}
	}
	struct Onnx__NodeProto *np;
	if (nconst) {
		const char *cn = "";
		if (!rw_ints(r, g, base, "known_sizes", consts, nconst, &cn))
			return rw_nomem(r), NULL;
		parts[nparts++] = cn;
	}
	const char *all = parts[0];
	if (nparts > 1) {
		all = add_node(x, g, ni, "Concat", base, "shape_parts", nparts, parts, &np);
		if (r->apply && np && !rw_set_attr_i(r, np, "axis", 0))
			return NULL;
		r->rep->n_target_nodes++;
	}
	const char *in_idx = "";
	if (!rw_ints(r, g, base, "target_index", idx, R, &in_idx))
		return rw_nomem(r), NULL;
	const char *ig[2] = {all, in_idx};
	r->rep->n_target_nodes++;
	return add_node(x, g, ni, "Gather", base, "target_shape", 2, ig, &np);
}

/* ---- one implicitly broadcasting node -------------------------------------------------- */

static bool set_input(rw *r, struct Onnx__NodeProto *np, int32_t k, const char *name)
{
	if (r->apply && !edit_node_set_input(r->e, np, k, name))
		return rw_nomem(r), false;
	return true;
}

static void make_explicit(xrun *x, graph *g, int32_t ni)
{
	rw *r = x->r;
	const node *n = &g->nodes[ni];
	bsite s;
	if (n->domain[0] || !bsite_of(n, &s) || !bsite_numpy_like(&s) || n->outputs[0] < 0)
		return;
	const tinfo *out = &g->values[n->outputs[0]].ti;
	bool need[BSITE_MAX_INPUTS];
	int32_t count = 0;
	/* One value in every slot (x + x) broadcasts nothing, whatever its shape. */
	bool one_value = s.n > 1;
	for (int32_t j = 1; j < s.n; j++)
		one_value = one_value && n->inputs[s.slot[j]] == n->inputs[s.slot[0]];
	if (one_value)
		return;
	for (int32_t j = 0; j < s.n; j++) {
		need[j] = !bsite_same_shape(&r->m->syms, &g->values[n->inputs[s.slot[j]]].ti, out);
		count += need[j];
	}
	if (!count)
		return;
	dim od[X_MAX_RANK];
	int32_t R = resolved(r, out, od);
	if (R < 0) {
		rw_error(r, g, ni, DIAG_REWRITE_UNSUPPORTED,
			 "cannot make %s's broadcast explicit: the rank of its result '%s' is unknown", n->op_type,
			 vname(g, n->outputs[0]));
		return;
	}
	const char *base = rw_base(r, g, ni);
	/* The target's key: the graph and each dim, a size (k) or a symbol (s). Results
	 * with the same key have the same shape whatever the binding (one symbol is one
	 * size), so one target, constant or computed, serves them all: it is placed
	 * before the first of them. Only a dim inference cannot name is never shared. */
	bool known = true, named = true;
	int64_t kv[X_MAX_RANK];
	char key[1536];
	int kl = snprintf(key, sizeof key, "%s\x1f", g->path);
	for (int32_t k = 0; k < R; k++) {
		known = known && od[k].kind == DIM_KNOWN;
		named = named && od[k].kind != DIM_UNKNOWN;
		kv[k] = od[k].v;
		if (kl > 0 && (size_t)kl < sizeof key)
			kl += snprintf(key + kl, sizeof key - (size_t)kl, ",%c%lld", od[k].kind == DIM_SYMBOL ? 's' : 'k',
				       (long long)od[k].v);
	}
	bool fits = kl > 0 && (size_t)kl < sizeof key; /* else computed for this node alone */
	const char *target = NULL;
	if (known && fits) {
		target = const_target(x, g, base, kv, R, key);
	} else if (named && fits && (target = memo_get(x, key)) == NULL) {
		target = computed_target(x, g, ni, &s, od, R, base);
		if (target)
			memo_put(x, key, target);
	} else if (!target) {
		target = computed_target(x, g, ni, &s, od, R, base);
	}
	if (!target || r->m->nomem)
		return;
	char what[1024];
	int wl = snprintf(what, sizeof what, "%s", "expand");
	for (int32_t j = 0; j < s.n; j++) {
		if (!need[j])
			continue;
		int32_t slot = s.slot[j];
		const char *v = vname(g, n->inputs[slot]);
		char ekey[2048];
		snprintf(ekey, sizeof ekey, "%s\x1f%s\x1f%s", g->path, v, known ? key : target);
		const char *e = memo_get(x, ekey);
		if (!e) {
			struct Onnx__NodeProto *np;
			const char *in[2] = {v, target};
			char role[32];
			snprintf(role, sizeof role, "expand_%d", (int)slot);
			e = add_node(x, g, ni, "Expand", base, role, 2, in, &np);
			memo_put(x, ekey, e);
			r->rep->n_expand++;
		}
		if (!set_input(r, rw_node(r, g, ni), slot, e))
			return;
		if (wl > 0 && (size_t)wl < sizeof what)
			wl += snprintf(what + wl, sizeof what - (size_t)wl, "%s '%s' %s", wl > 6 ? "," : "", v,
				       shape_text(r, &g->values[n->inputs[slot]].ti));
	}
	r->rep->n_explicit++;
	rw_change(r, g, ni, "explicit", "%s to %s (%s)", what, shape_text(r, out),
		  known ? "constant shape" : "shape computed in the graph");
}

/* ---- Broadcast-3 lowering --------------------------------------------------------------- */

/* A Broadcast-3 node this run lowers (--broadcast-domain restricts the domain). */
static bool wanted_b3(const osh_rewrite_options *opts, const node *n)
{
	if (!broadcast3_is(n->domain, n->op_type))
		return false;
	return !opts->broadcast_domain || !strcmp(opts->broadcast_domain, n->domain);
}

static void lower_broadcast3(xrun *x, graph *g, int32_t ni)
{
	rw *r = x->r;
	const node *n = &g->nodes[ni];
	const attr_view *ma = node_attr(n, "mode");
	/* A STRING attribute may hold no string at all (s absent): the default. */
	const char *mode = ma && ma->type == AT_STRING && ma->s ? ma->s : "numpy";
	bool expl = !strcmp(mode, "explicit");
	if (!expl && strcmp(mode, "numpy") && strcmp(mode, "bidirectional")) {
		rw_error(r, g, ni, DIAG_REWRITE_UNSUPPORTED, "Broadcast mode '%s' is not lowered (numpy, explicit and "
			 "bidirectional are)", mode);
		return;
	}
	if (n->ninputs < 2 || n->inputs[0] < 0 || n->inputs[1] < 0 || n->noutputs < 1) {
		rw_error(r, g, ni, DIAG_REWRITE_UNSUPPORTED, "Broadcast needs data and target_shape");
		return;
	}
	const char *data = vname(g, n->inputs[0]);
	const char *placed = data, *how = "";
	const char *base = rw_base(r, g, ni);
	if (expl) {
		/* Put each data axis at its mapped target axis (1s elsewhere), then Expand. */
		const tinfo *mt = n->ninputs > 2 && n->inputs[2] >= 0 ? &g->values[n->inputs[2]].ti : NULL;
		const tinfo *tt = &g->values[n->inputs[1]].ti, *dt = &g->values[n->inputs[0]].ti;
		int64_t map[X_MAX_RANK];
		int32_t nm = mt && mt->nval >= 0 && mt->nval <= X_MAX_RANK ? mt->nval : -1;
		for (int32_t k = 0; k < nm; k++) {
			dim v = dim_resolve(&r->m->syms, mt->val[k]);
			if (v.kind != DIM_KNOWN)
				nm = -1;
			else
				map[k] = v.v;
		}
		int32_t R = tt->nval >= 0 ? tt->nval : -1;
		if (R < 0 && tinfo_has_rank(tt) && tt->rank == 1) {
			dim l = dim_resolve(&r->m->syms, tt->dims[0]);
			R = l.kind == DIM_KNOWN && l.v <= X_MAX_RANK ? (int32_t)l.v : -1;
		}
		if (nm < 0 || R < 0 || R > X_MAX_RANK || !tinfo_has_rank(dt) || dt->rank != nm) {
			rw_error(r, g, ni, DIAG_REWRITE_UNSUPPORTED,
				 "cannot lower explicit Broadcast: axes_mapping, the target's length and the data's rank "
				 "must be known (and agree)");
			return;
		}
		dim d[X_MAX_RANK];
		resolved(r, dt, d);
		bool all_known = true;
		for (int32_t k = 0; k < nm; k++)
			all_known = all_known && d[k].kind == DIM_KNOWN;
		struct Onnx__NodeProto *np;
		if (R != nm && all_known) {
			int64_t shp[X_MAX_RANK];
			for (int32_t k = 0; k < R; k++)
				shp[k] = 1;
			for (int32_t k = 0; k < nm; k++)
				shp[map[k]] = d[k].v;
			const char *sn = "";
			if (!rw_ints(r, g, base, "placed_shape", shp, R, &sn))
				{ rw_nomem(r); return; }
			const char *in[2] = {data, sn};
			placed = add_node(x, g, ni, "Reshape", base, "placed", 2, in, &np);
			how = "Reshape + ";
			r->rep->n_reshape++;
		} else if (R != nm) {
			/* Symbolic data: Unsqueeze at the target axes no data axis maps to. */
			int64_t axes[X_MAX_RANK];
			int32_t na = 0, q = 0;
			for (int32_t k = 0; k < R; k++) {
				if (q < nm && map[q] == k)
					q++;
				else
					axes[na++] = k;
			}
			if (x->opset >= 13) {
				const char *an = "";
				if (!rw_ints(r, g, base, "placed_axes", axes, na, &an))
					{ rw_nomem(r); return; }
				const char *in[2] = {data, an};
				placed = add_node(x, g, ni, "Unsqueeze", base, "placed", 2, in, &np);
			} else {
				const char *in[1] = {data};
				placed = add_node(x, g, ni, "Unsqueeze", base, "placed", 1, in, &np);
				if (r->apply && np)
					rw_set_attr_ints(r, np, "axes", axes, na);
			}
			how = "Unsqueeze + ";
			r->rep->n_unsqueeze++;
		}
	}
	if (r->apply) {
		struct Onnx__NodeProto *me = rw_node(r, g, ni);
		if (!me || !edit_node_set_op(r->e, me, "Expand", "") || !edit_node_set_input(r->e, me, 0, placed))
			{ rw_nomem(r); return; }
		edit_node_keep_inputs(me, 2);
		edit_node_clear_attrs(me);
	}
	r->rep->n_lowered++;
	rw_change(r, g, ni, "lowered", "%s::Broadcast mode %s to %sExpand", n->domain, mode, how);
}

/* Drops the imports of the domains whose every node was lowered. */
static void drop_lowered_imports(xrun *x)
{
	osh_model *m = x->r->m;
	for (int32_t i = 0; i < m->nopsets; i++) {
		const char *dom = m->opsets[i].domain;
		if (!dom[0])
			continue;
		bool lowered = false, other = false;
		for (int32_t gi = 0; gi < m->ngraphs && !other; gi++) {
			const graph *g = m->graphs[gi];
			for (int32_t ni = 0; ni < g->nnodes && !other; ni++) {
				const node *n = &g->nodes[ni];
				if (strcmp(n->domain, dom))
					continue;
				if (g->proto && wanted_b3(x->r->opts, n))
					lowered = true;
				else
					other = true;
			}
		}
		if (lowered && !other)
			edit_remove_opset(x->r->e, dom);
	}
}

/* ---- the stage ------------------------------------------------------------------------- */

static bool has_b3(const osh_model *m, const osh_rewrite_options *opts)
{
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		const graph *g = m->graphs[gi];
		if (!g->proto)
			continue;
		for (int32_t ni = 0; ni < g->nnodes; ni++)
			if (wanted_b3(opts, &g->nodes[ni]))
				return true;
	}
	return false;
}

/* Whether some node will get an Expand: a Broadcast-3 node to lower, or (with
 * explicit_broadcast) a site input without its node's result shape, under any rule
 * (legacy and Paddle nodes become numpy ones in the axis stage). A model where
 * nothing broadcasts keeps its opset. */
static bool needs_expand(osh_model *m, const osh_rewrite_options *opts)
{
	if (has_b3(m, opts))
		return true;
	if (!opts->explicit_broadcast)
		return false;
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		const graph *g = m->graphs[gi];
		if (!g->proto)
			continue;
		for (int32_t ni = 0; ni < g->nnodes; ni++) {
			const node *n = &g->nodes[ni];
			bsite s;
			if (!bsite_of(n, &s) || n->outputs[0] < 0)
				continue;
			for (int32_t j = 0; j < s.n; j++)
				if (!bsite_same_shape(&m->syms, &g->values[n->inputs[s.slot[j]]].ti,
						      &g->values[n->outputs[0]].ti))
					return true;
		}
	}
	return false;
}

int64_t rewrite_explicit_need(osh_model *m, const osh_rewrite_options *opts)
{
	if (opts->implicit_broadcast || model_opset(m, "") >= 8)
		return 0;
	return needs_expand(m, opts) ? 8 : 0;
}

static void run(xrun *x, bool explicit_on)
{
	rw *r = x->r;
	strmap_init(&x->memo, r->m->arena);
	x->nvals = x->cap_vals = 0;
	x->vals = NULL;
	for (int32_t gi = 0; gi < r->m->ngraphs && !r->m->nomem; gi++) {
		graph *g = r->m->graphs[gi];
		if (!g->proto) /* function bodies import their own opsets: left as they are */
			continue;
		for (int32_t ni = 0; ni < g->nnodes && !r->m->nomem; ni++) {
			if (wanted_b3(r->opts, &g->nodes[ni]))
				lower_broadcast3(x, g, ni);
			else if (explicit_on)
				make_explicit(x, g, ni);
		}
	}
}

/* The stage (rewrite.h). It runs once (pipeline.c says why). */
osh_status rewrite_explicit_stage(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep,
				  strmap *made, bool *edited, osh_error *err)
{
	*edited = false;
	if (opts->implicit_broadcast || m->has_errors || (!opts->explicit_broadcast && !has_b3(m, opts)))
		return OSH_OK;
	rw rr = {.m = m, .opts = opts, .rep = rep};
	rw *r = &rr;
	strmap_init(&r->made, m->arena);
	if (!rw_continue_changes(r))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	xrun x = {.r = r, .opset = model_opset(m, "")};
	osh_rewrite_report before = *rep;
	size_t errors = rep->n_errors;
	r->e = edit_begin(m);
	if (!r->e)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory planning the rewrite", m->path);
	run(&x, opts->explicit_broadcast);
	if (r->m->nomem)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory planning the rewrite", m->path);
	rep->n_changes = r->nchanges;
	rep->changes = r->changes;
	bool changed = rep->n_explicit + rep->n_lowered > before.n_explicit + before.n_lowered;
	if (rep->n_errors > errors) {
		rep->changed = false;
		return OSH_OK;
	}
	if (!changed)
		return OSH_OK;
	rep->changed = true;
	if (opts->dry_run)
		return OSH_OK;
	/* The editing run: a fresh session, the same code, the counts counted again. */
	size_t added = rep->n_expand + rep->n_target_nodes + rep->n_reshape + rep->n_unsqueeze - before.n_expand -
		       before.n_target_nodes - before.n_reshape - before.n_unsqueeze;
	rep->n_explicit = before.n_explicit, rep->n_expand = before.n_expand;
	rep->n_target_nodes = before.n_target_nodes, rep->n_lowered = before.n_lowered;
	rep->n_reshape = before.n_reshape, rep->n_unsqueeze = before.n_unsqueeze;
	rewrite_grow_budget(m, added);
	if (!loader_build_value_info(m)) /* edits change messages (rewrite.c) */
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	r->e = edit_begin(m);
	r->apply = true;
	r->ninits = 0;
	if (!r->e)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	run(&x, opts->explicit_broadcast);
	if (r->m->nomem)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	drop_lowered_imports(&x);
	if (r->ninits)
		edit_raise_ir_version(r->e, 4); /* before IR 4 initializers had to be inputs */
	if (!edit_commit(r->e))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	*made = r->made;
	*edited = true;
	return OSH_OK;
}
