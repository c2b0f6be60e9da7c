/* fold_shapes.c: the fold stage of the rewrite (osh_rewrite_options.fold_shapes):
 * what inference already knows replaces the graph that computes it.
 *
 * Per graph, in topological order, each node gets one fate: it stays; its outputs,
 * whose content inference knows exactly, become initializers of the same names
 * (FOLD); a Constant's tensor becomes one (CONST); it changes nothing and its
 * consumers read its input instead (PASS: Identity, and Expand, Tile, Slice,
 * Reshape, Cast, Dropout, Pad, Transpose, and Add, Sub, Mul, Div by their neutral
 * element, proven no-ops by the inferred shapes and their constant inputs; and a Transpose cancelled with its inverse,
 * fold_transpose.c); an Identity whose
 * output is a graph output gives that name to its input's producer (RENAME). A node
 * that stays may have an input rewritten to an exact constant form where the value
 * depends on symbols (a Reshape target, an Expand shape, a Slice's ends). Then, in
 * reverse topological order, a pure node that nothing live reads goes (DEAD), and
 * so do the initializers nothing reads.
 *
 * Exactness: a value is folded only when every entry is a known number after the
 * symbols are resolved, its shape is fully known and it is neither a graph output
 * nor of a type the editor cannot write; a symbolic entry is replaced only by the
 * constant that means the same at every binding (0: the input's own dim at that
 * place; -1: the one entry left, which the element count decides; 1: a dim Expand
 * already has; INT64_MAX: a Slice to the end). Graph inputs and outputs, their names
 * and declared dims, are never touched; a value a subgraph reads from this one is
 * never bypassed or removed (an initializer of the same name still serves it).
 *
 * Invariant: every decision is taken before anything touches the messages, and
 * nothing does on a dry run. The IR is rebuilt and inferred again after the edit by
 * the rows that follow this stage in pipeline.c's table.
 */
#include "passes/rewrite/fold.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/grow.h"
#include "core/schema/schema.h"

#include "loader/build_messages.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(double) == sizeof(uint64_t), "input_key hashes a double's bits as a uint64_t");

static bool same_dim(fs *s, dim a, dim b) { return dim_eq(fold_res(s, a), fold_res(s, b)); }

/* Whether value id can become an initializer: content exactly known, small, of a
 * type the editor writes, and no output of the main graph (whose producers stay:
 * a body may return an initializer, as ONNX Runtime's basic level makes it do). */
static bool foldable(fs *s, int32_t id)
{
	const value *v = &s->g->values[id];
	const tinfo *t = &v->ti;
	if ((v->is_output && s->g == s->r->m->main) || t->kind != TK_TENSOR)
		return false;
	int64_t c = fold_known_count(s, t, FOLD_MAX_RANK, NULL);
	bool is_float;
	if (c < 0 || c > FOLD_MAX_VALUES || !edit_dtype_encodable(t->elem, &is_float))
		return false;
	if (is_float)
		return t->nfval == c;
	if (t->nval != c)
		return false;
	for (int32_t k = 0; k < t->nval; k++)
		if (fold_res(s, t->val[k]).kind != DIM_KNOWN)
			return false;
	return true;
}

/* Whether t's shape is exactly u's (ranks and every dim, known or the same symbol). */
static bool same_shape(fs *s, const tinfo *t, const tinfo *u)
{
	if (!t || !u || t->kind != TK_TENSOR || u->kind != TK_TENSOR || t->rank < 0 || t->rank != u->rank)
		return false;
	for (int32_t k = 0; k < t->rank; k++)
		if (!same_dim(s, t->dims[k], u->dims[k]))
			return false;
	return true;
}

/* Integer content of input i, every entry known: its count, or -1. */
static int32_t known_ints(fs *s, const node *n, int32_t i, int64_t *out, int32_t cap)
{
	const tinfo *t = fold_ti_in(s, n, i);
	if (!t || t->nval < 0 || t->nval > cap)
		return -1;
	for (int32_t k = 0; k < t->nval; k++) {
		dim d = fold_res(s, t->val[k]);
		if (d.kind != DIM_KNOWN)
			return -1;
		out[k] = d.v;
	}
	return t->nval;
}

static bool add_form(fs *s, int32_t ni, int32_t slot, const int64_t *v, int32_t n, bool allowzero_off)
{
	return fold_add_form(s, (form){ni, slot, (int64_t *)v, n, allowzero_off, NULL, slot == 2 ? "ends" : "shape"},
			     true);
}

/* ---- exact constant forms ------------------------------------------------------------ */

/* Reshape(x, target) with symbols in target: 0 where an entry is x's own dim at that
 * place (allowzero=0 copies it), -1 for at most one other. A -1 is worked out as
 * x's count over the product of the other entries, which fails when that product is
 * 0: one is made only where every other entry is a size known positive, so that a
 * binding with an empty dim the original reshapes is not refused by the fold. */
static bool form_reshape(fs *s, int32_t ni)
{
	const node *n = &s->g->nodes[ni];
	const tinfo *x = fold_ti_in(s, n, 0), *t = fold_ti_in(s, n, 1);
	if (!x || !t || t->nval <= 0 || t->nval > FOLD_MAX_RANK || x->kind != TK_TENSOR)
		return false;
	bool allowzero = node_attr_i(n, "allowzero", 0) != 0;
	int64_t v[FOLD_MAX_RANK];
	bool has_neg = false, made_neg = false, symbolic = false, zero_known = false;
	for (int32_t k = 0; k < t->nval; k++) {
		dim d = fold_res(s, t->val[k]);
		if (d.kind == DIM_KNOWN) {
			has_neg |= d.v == -1;
			zero_known |= d.v == 0;
		} else {
			symbolic = true;
		}
	}
	if (!symbolic || (allowzero && zero_known))
		return false;
	for (int32_t k = 0; k < t->nval; k++) {
		dim d = fold_res(s, t->val[k]);
		if (d.kind == DIM_KNOWN) {
			v[k] = d.v;
		} else if (x->rank >= 0 && k < x->rank && d.kind == DIM_SYMBOL && dim_eq(fold_res(s, x->dims[k]), d)) {
			v[k] = 0;
		} else if (!has_neg) {
			v[k] = -1;
			has_neg = made_neg = true;
		} else {
			return false;
		}
	}
	for (int32_t k = 0; made_neg && k < t->nval; k++) {
		bool copies = v[k] == 0 && !allowzero;
		dim kept = copies && x->rank >= 0 && k < x->rank ? fold_res(s, x->dims[k]) : dim_unknown();
		if (v[k] != -1 && !(v[k] > 0 || (copies && kept.kind == DIM_KNOWN && kept.v > 0)))
			return false;
	}
	bool zeros = false;
	for (int32_t k = 0; k < t->nval; k++)
		zeros |= v[k] == 0;
	if (!add_form(s, ni, 1, v, t->nval, allowzero && zeros))
		return false;
	rw_change(s->r, s->g, ni, "fold", "Reshape target -> a constant (0 copies the input's dim, -1 the rest)");
	return true;
}

/* Expand(x, shape) with symbols in shape: 1 where the entry is x's own dim. */
static bool form_expand(fs *s, int32_t ni)
{
	const node *n = &s->g->nodes[ni];
	const tinfo *x = fold_ti_in(s, n, 0), *t = fold_ti_in(s, n, 1);
	if (!x || !t || t->nval <= 0 || t->nval > FOLD_MAX_RANK || x->kind != TK_TENSOR || x->rank < 0)
		return false;
	int64_t v[FOLD_MAX_RANK];
	bool symbolic = false;
	int32_t L = t->nval, r = x->rank;
	for (int32_t k = 0; k < L; k++) {
		dim d = fold_res(s, t->val[k]);
		int32_t kx = k - (L - r);
		if (d.kind == DIM_KNOWN) {
			v[k] = d.v;
		} else if (d.kind == DIM_SYMBOL && kx >= 0 && dim_eq(fold_res(s, x->dims[kx]), d)) {
			v[k] = 1;
			symbolic = true;
		} else {
			return false;
		}
	}
	if (!symbolic || !add_form(s, ni, 1, v, L, false))
		return false;
	rw_change(s->r, s->g, ni, "fold", "Expand shape -> a constant (1 where the input has the dim)");
	return true;
}

/* Slice (opset >= 10) whose ends have symbols: INT64_MAX where the entry is the
 * sliced dim itself and the step is positive. */
static bool form_slice(fs *s, int32_t ni)
{
	const node *n = &s->g->nodes[ni];
	const tinfo *x = fold_ti_in(s, n, 0), *e = fold_ti_in(s, n, 2);
	if (n->opset < 10 || !x || !e || x->kind != TK_TENSOR || x->rank < 0 || e->nval <= 0 ||
	    e->nval > FOLD_MAX_RANK)
		return false;
	int64_t axes[FOLD_MAX_RANK], steps[FOLD_MAX_RANK], starts[FOLD_MAX_RANK], v[FOLD_MAX_RANK];
	int32_t m = e->nval;
	if (known_ints(s, n, 1, starts, FOLD_MAX_RANK) != m)
		return false;
	if (fold_ti_in(s, n, 3) ? known_ints(s, n, 3, axes, FOLD_MAX_RANK) != m : false)
		return false;
	if (!fold_ti_in(s, n, 3))
		for (int32_t k = 0; k < m; k++)
			axes[k] = k;
	if (fold_ti_in(s, n, 4) ? known_ints(s, n, 4, steps, FOLD_MAX_RANK) != m : false)
		return false;
	if (!fold_ti_in(s, n, 4))
		for (int32_t k = 0; k < m; k++)
			steps[k] = 1;
	bool symbolic = false;
	for (int32_t k = 0; k < m; k++) {
		dim d = fold_res(s, e->val[k]);
		int64_t a = axes[k] < 0 ? axes[k] + x->rank : axes[k];
		if (d.kind == DIM_KNOWN) {
			v[k] = d.v;
		} else if (d.kind == DIM_SYMBOL && a >= 0 && a < x->rank && steps[k] > 0 &&
			   dim_eq(fold_res(s, x->dims[a]), d)) {
			v[k] = INT64_MAX;
			symbolic = true;
		} else {
			return false;
		}
	}
	if (!symbolic || !add_form(s, ni, 2, v, m, false))
		return false;
	rw_change(s->r, s->g, ni, "fold", "Slice ends -> a constant (to the end)");
	return true;
}

/* ---- no-ops ------------------------------------------------------------------------- */

/* Whether node n's output 0 is its input 0 unchanged. */
static bool is_noop(fs *s, const node *n)
{
	if (n->domain[0] || n->ninputs < 1 || n->inputs[0] < 0 || n->noutputs < 1 || n->outputs[0] < 0)
		return false;
	const tinfo *x = fold_ti_in(s, n, 0), *y = &s->g->values[n->outputs[0]].ti;
	fold_op op = fold_op_of(s, n);
	if (op == FO_CAST)
		return x->kind == TK_TENSOR && x->elem && x->elem == node_attr_i(n, "to", -1);
	if (op == FO_DROPOUT) {
		if (n->opset < 7)
			return false;
		if (n->noutputs > 1 && n->outputs[1] >= 0) {
			const value *mask = &s->g->values[n->outputs[1]];
			if (mask->nconsumers || mask->is_output || s->outer_read[n->outputs[1]])
				return false;
		}
		int64_t tm[1];
		return !fold_ti_in(s, n, 2) || (known_ints(s, n, 2, tm, 1) == 1 && tm[0] == 0);
	}
	/* The operators below, before the shapes are compared: most nodes are none of
	 * them. */
	if (op != FO_EXPAND && op != FO_RESHAPE && op != FO_TILE && op != FO_SLICE && op != FO_PAD &&
	    op != FO_TRANSPOSE)
		return false;
	if (!same_shape(s, x, y) || x->elem != y->elem)
		return false;
	if (op == FO_EXPAND && n->opset >= 8)
		return true;
	if (op == FO_RESHAPE && n->opset >= 5)
		return true;
	if (op == FO_TILE && n->opset >= 6) {
		int64_t rp[FOLD_MAX_RANK];
		int32_t c = known_ints(s, n, 1, rp, FOLD_MAX_RANK);
		for (int32_t k = 0; k < c; k++)
			if (rp[k] != 1)
				return false;
		return c >= 0;
	}
	if (op == FO_SLICE && n->opset >= 10) {
		int64_t st[FOLD_MAX_RANK];
		const tinfo *e = fold_ti_in(s, n, 2);
		if (!e || e->nval < 0)
			return false;
		if (!fold_ti_in(s, n, 4))
			return true;
		int32_t c = known_ints(s, n, 4, st, FOLD_MAX_RANK);
		for (int32_t k = 0; k < c; k++)
			if (st[k] != 1)
				return false;
		return c >= 0;
	}
	if (op == FO_PAD) {
		/* Zero pads change nothing in any mode; the same shape alone would not do (a
		 * row added at one end and cut at the other moves the data). */
		int64_t p[2 * FOLD_MAX_RANK];
		int32_t c;
		if (n->opset >= 11) {
			c = known_ints(s, n, 1, p, 2 * FOLD_MAX_RANK);
		} else {
			const attr_view *a = node_attr(n, n->opset >= 2 ? "pads" : "paddings");
			c = a && a->type == AT_INTS && a->n <= 2 * FOLD_MAX_RANK ? (int32_t)a->n : -1;
			for (int32_t k = 0; k < c; k++)
				p[k] = a->ints[k];
		}
		for (int32_t k = 0; k < c; k++)
			if (p[k] != 0)
				return false;
		return c >= 0;
	}
	if (op == FO_TRANSPOSE) {
		/* Without perm the dims are reversed: a no-op only up to rank 1. */
		const attr_view *a = node_attr(n, "perm");
		if (!a)
			return x->rank <= 1;
		if (a->type != AT_INTS || a->n != x->rank)
			return false;
		for (int32_t k = 0; k < x->rank; k++)
			if (a->ints[k] != k)
				return false;
		return true;
	}
	return false;
}

/* Whether t's content is known and every entry is v. */
static bool all_entries(fs *s, const tinfo *t, int64_t v)
{
	/* The first entry first: the constants of most Adds and Muls are no zeros or ones. */
	if (t->nfval > 0 ? t->fval[0] != (double)v : t->nval > 0 && fold_res(s, t->val[0]).v != v)
		return false;
	int64_t c = fold_known_count(s, t, FOLD_MAX_RANK, NULL);
	if (c < 0)
		return false;
	if (t->nval == c) {
		for (int32_t k = 0; k < t->nval; k++) {
			dim d = fold_res(s, t->val[k]);
			if (d.kind != DIM_KNOWN || d.v != v)
				return false;
		}
		return true;
	}
	if (t->nfval != c)
		return false;
	for (int32_t k = 0; k < t->nfval; k++)
		if (t->fval[k] != (double)v)
			return false;
	return true;
}

/* Add or Sub of zeros, Mul or Div by ones, that neither broadcasts its other input
 * to a larger shape nor changes its type: the input (0 or 1) its result equals, or -1.
 * (x + 0 is x but for the sign of a zero, -0 + 0 being +0: equal under ==, as
 * ONNX Runtime's basic level takes it too.) */
static int32_t neutral_operand(fs *s, const node *n)
{
	/* Asked of every node: the letters, not a call. */
	const char *op = n->op_type;
	bool three = op[0] && op[1] && op[2] && !op[3];
	bool add = three && op[0] == 'A' && op[1] == 'd' && op[2] == 'd';
	bool sub = three && op[0] == 'S' && op[1] == 'u' && op[2] == 'b';
	bool mul = three && op[0] == 'M' && op[1] == 'u' && op[2] == 'l';
	bool div = three && op[0] == 'D' && op[1] == 'i' && op[2] == 'v';
	if (!(add || sub || mul || div) || n->domain[0] || n->opset < 7 || n->ninputs != 2 || n->noutputs != 1 ||
	    n->inputs[0] < 0 || n->inputs[1] < 0 || n->outputs[0] < 0)
		return -1;
	const tinfo *y = &s->g->values[n->outputs[0]].ti;
	for (int32_t k = 0; k < ((add || mul) ? 2 : 1); k++) {
		const tinfo *x = fold_ti_in(s, n, k), *c = fold_ti_in(s, n, 1 - k);
		if ((c->nval >= 0 || c->nfval >= 0) && all_entries(s, c, (add || sub) ? 0 : 1) && x->elem == y->elem &&
		    same_shape(s, x, y))
			return k;
	}
	return -1;
}

/* ---- duplicates ----------------------------------------------------------------------- */

/* Attributes a duplicate test can compare: plain numbers, strings and their lists. */
static bool attrs_plain(const node *n)
{
	for (int32_t i = 0; i < n->nattrs; i++) {
		const attr_view *a = &n->attrs[i];
		if (a->ref || a->graph_index < 0 ||
		    (a->type != AT_INT && a->type != AT_FLOAT && a->type != AT_STRING && a->type != AT_INTS &&
		     a->type != AT_FLOATS && a->type != AT_STRINGS))
			return false;
	}
	return true;
}

static bool attr_same(const attr_view *a, const attr_view *b)
{
	if (a->type != b->type || strcmp(a->name, b->name))
		return false;
	switch (a->type) {
	case AT_INT: return a->i == b->i;
	case AT_FLOAT: return !memcmp(&a->f, &b->f, sizeof a->f);
	case AT_STRING: return !strcmp(a->s, b->s);
	case AT_INTS: return a->n == b->n && (!a->n || !memcmp(a->ints, b->ints, (size_t)a->n * sizeof *a->ints));
	case AT_FLOATS: return a->n == b->n && (!a->n || !memcmp(a->floats, b->floats, (size_t)a->n * sizeof *a->floats));
	case AT_STRINGS:
		if (a->n != b->n)
			return false;
		for (int32_t k = 0; k < a->n; k++)
			if (strcmp(a->strings[k], b->strings[k]))
				return false;
		return true;
	default: return false;
	}
}

/* Whether value id is a constant whose every entry inference knows: an
 * initializer, or a folded output. */
static bool const_content(fs *s, int32_t id)
{
	const value *v = &s->g->values[id];
	if (v->origin == VAL_NODE ? s->fate[v->producer] != F_FOLD : v->origin != VAL_INITIALIZER)
		return false;
	const tinfo *t = &v->ti;
	int64_t c = fold_known_count(s, t, FOLD_MAX_RANK, NULL);
	if (c < 0 || t->elem == 0)
		return false;
	if (t->nval == c) {
		for (int32_t k = 0; k < t->nval; k++)
			if (fold_res(s, t->val[k]).kind != DIM_KNOWN)
				return false;
		return true;
	}
	return t->nfval == c;
}

/* Whether inputs a and b (present, as read after the bypasses) hold the same: one
 * value, or two constants of the same type, shape and content. */
static bool input_same(fs *s, int32_t a, int32_t b)
{
	if (a == b)
		return true;
	if (!const_content(s, a) || !const_content(s, b))
		return false;
	const tinfo *x = &s->g->values[a].ti, *y = &s->g->values[b].ti;
	if (x->elem != y->elem || !same_shape(s, x, y) || (x->nval >= 0) != (y->nval >= 0))
		return false;
	if (x->nval >= 0) {
		for (int32_t k = 0; k < x->nval; k++)
			if (fold_res(s, x->val[k]).v != fold_res(s, y->val[k]).v)
				return false;
		return true;
	}
	return x->nfval == y->nfval && (!x->nfval || !memcmp(x->fval, y->fval, (size_t)x->nfval * sizeof *x->fval));
}

static uint64_t input_key(fs *s, int32_t id)
{
	if (!const_content(s, id))
		return (uint64_t)(uint32_t)id;
	const tinfo *t = &s->g->values[id].ti;
	uint64_t h = 0x5bd1e995u ^ (uint64_t)t->elem;
	if (t->nval >= 0)
		for (int32_t k = 0; k < t->nval && k < 8; k++)
			h = (h ^ (uint64_t)fold_res(s, t->val[k]).v) * 1099511628211u;
	else
		for (int32_t k = 0; k < t->nfval && k < 8; k++) {
			/* The bits, not a conversion: an infinity or NaN has no integer. Equal
			 * values whose bits differ (0 and -0) only share a bucket less. */
			uint64_t bits;
			memcpy(&bits, &t->fval[k], sizeof bits);
			h = (h ^ bits) * 1099511628211u;
		}
	return h | (UINT64_C(1) << 63);
}

/* Whether nodes a and b compute the same: one operator, the same inputs (as read
 * after the bypasses), the same attributes, the same outputs present. */
static bool nodes_same(fs *s, const node *a, const node *b)
{
	if (a->ninputs != b->ninputs || a->noutputs != b->noutputs || a->nattrs != b->nattrs ||
	    a->opset != b->opset || (a->op_type != b->op_type && strcmp(a->op_type, b->op_type)) ||
	    (a->domain != b->domain && strcmp(a->domain, b->domain)))
		return false;
	for (int32_t i = 0; i < a->ninputs; i++)
		if ((a->inputs[i] < 0) != (b->inputs[i] < 0) ||
		    (a->inputs[i] >= 0 && !input_same(s, fold_current(s, a->inputs[i]), fold_current(s, b->inputs[i]))))
			return false;
	for (int32_t o = 0; o < a->noutputs; o++)
		if ((a->outputs[o] < 0) != (b->outputs[o] < 0))
			return false;
	for (int32_t i = 0; i < a->nattrs; i++) {
		const attr_view *m = node_attr(b, a->attrs[i].name);
		if (!m || !attr_same(&a->attrs[i], m))
			return false;
	}
	return true;
}

static uint64_t hash_str(uint64_t h, const char *p)
{
	for (; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211u;
	return h;
}

static uint64_t node_hash(fs *s, const node *n)
{
	uint64_t h = hash_str(14695981039346656037u, n->op_type);
	for (int32_t i = 0; i < n->ninputs; i++)
		h = (h ^ (n->inputs[i] < 0 ? UINT64_MAX : input_key(s, fold_current(s, n->inputs[i])))) * 1099511628211u;
	for (int32_t i = 0; i < n->nattrs; i++)
		if (n->attrs[i].type == AT_INT)
			h = (h ^ (uint64_t)n->attrs[i].i) * 1099511628211u;
	return h ^ (h >> 29);
}

/* A pure node that computes what an earlier one computes: its consumers read the
 * earlier one's outputs (ONNX Runtime's basic level shares them the same way). */
static bool share_duplicate(fs *s, int32_t ni)
{
	graph *g = s->g;
	const node *n = &g->nodes[ni];
	if (!s->cse || s->form_at[ni] >= 0 || !fold_pure(s, n) || !attrs_plain(n))
		return false;
	for (int32_t o = 0; o < n->noutputs; o++)
		if (n->outputs[o] >= 0 && !fold_bypassable(s, n->outputs[o]))
			return false;
	uint32_t at = (uint32_t)node_hash(s, n) & s->cse_mask;
	for (; s->cse[at] >= 0; at = (at + 1) & s->cse_mask) {
		const node *m = &g->nodes[s->cse[at]];
		if (!nodes_same(s, n, m))
			continue;
		for (int32_t o = 0; o < n->noutputs; o++)
			if (n->outputs[o] >= 0)
				s->repl[n->outputs[o]] = m->outputs[o];
		s->fate[ni] = F_PASS;
		s->r->rep->n_fold_shared++;
		rw_change(s->r, g, ni, "fold", "%s removed: node %d computes the same", n->op_type, (int)s->cse[at]);
		return true;
	}
	s->cse[at] = ni;
	return false;
}

/* ---- decisions ---------------------------------------------------------------------- */

/* Where(Not(c), x, y) is Where(c, y, x): the Where reads c and its branches swap, and
 * the Not goes once nothing else reads it (as ONNX Runtime's basic level does). */
static void absorb_not(fs *s, int32_t ni)
{
	graph *g = s->g;
	const node *n = &g->nodes[ni];
	if (n->ninputs != 3 || n->inputs[0] < 0 || n->inputs[1] < 0 || n->inputs[2] < 0)
		return;
	const value *c = &g->values[fold_current(s, n->inputs[0])];
	if (c->origin != VAL_NODE || c->producer < 0 || s->fate[c->producer] != F_LIVE)
		return;
	const node *p = &g->nodes[c->producer];
	if (fold_op_of(s, p) != FO_NOT || p->ninputs < 1 || p->inputs[0] < 0)
		return;
	if (!s->negated) {
		size_t nn = (size_t)g->nnodes;
		s->negated = arena_array(s->r->m->arena, nn, sizeof *s->negated);
		if (!s->negated) {
			rw_nomem(s->r);
			return;
		}
		memset(s->negated, 0xff, nn * sizeof *s->negated);
	}
	s->negated[ni] = c->producer;
	s->negated[c->producer] = NEGATION_ABSORBED;
	rw_change(s->r, g, ni, "fold", "Where reads the input of Not node %d, its branches swapped", (int)c->producer);
}

static bool mark_outer_reads(const osh_model *m, const graph *g, bool *read)
{
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		const graph *sg = m->graphs[gi];
		for (int32_t v = 0; v < sg->nvalues; v++) {
			int32_t id = value_outer_id(&sg->values[v]);
			if (sg->values[v].origin == VAL_OUTER && value_outer(&sg->values[v]) == g && id >= 0 &&
			    id < g->nvalues)
				read[id] = true;
		}
	}
	return true;
}

/* Whether every present output of node n can become an initializer. */
static bool outputs_foldable(fs *s, const node *n)
{
	bool any = false;
	for (int32_t o = 0; o < n->noutputs; o++) {
		if (n->outputs[o] < 0)
			continue;
		if (!foldable(s, n->outputs[o]))
			return false;
		any = true;
	}
	return any;
}

/* A Constant node's: whether its value is a tensor. */
static bool constant_tensor(const node *n)
{
	const attr_view *a = node_attr(n, "value");
	return a && a->type == AT_TENSOR && n->noutputs == 1 && n->outputs[0] >= 0;
}

static void decide(fs *s, int32_t ni)
{
	graph *g = s->g;
	const node *n = &g->nodes[ni];
	osh_rewrite_report *rep = s->r->rep;
	fold_op op = fold_op_of(s, n);
	bool constant = op == FO_CONSTANT;
	if (fold_pure(s, n) && outputs_foldable(s, n)) {
		s->fate[ni] = F_FOLD;
		if (constant)
			rep->n_fold_constants++;
		else
			rep->n_fold_values++;
		rw_change(s->r, g, ni, "fold", "%s: its output%s, known, become%s initializer%s", n->op_type,
			  n->noutputs == 1 ? "" : "s", n->noutputs == 1 ? "s an" : "", n->noutputs == 1 ? "" : "s");
		return;
	}
	if (!constant && fold_layout_decide(s, ni)) {
		rep->n_fold_values++;
		rw_change(s->r, g, ni, "fold", "%s: its output, a constant's data moved, becomes an initializer", n->op_type);
		return;
	}
	if (constant) {
		if (constant_tensor(n) && !g->values[n->outputs[0]].is_output) {
			s->fate[ni] = F_CONST;
			rep->n_fold_constants++;
			rw_change(s->r, g, ni, "fold", "Constant -> an initializer");
		}
		return;
	}
	if (n->domain[0] || n->ninputs < 1 || n->inputs[0] < 0 || n->noutputs < 1 || n->outputs[0] < 0)
		return;
	int32_t x = n->inputs[0], y = n->outputs[0];
	if (op == FO_IDENTITY) {
		if (s->outer_read[y])
			return;
		if (!g->values[y].is_output) {
			s->fate[ni] = F_PASS;
			s->repl[y] = x;
			rep->n_fold_identity++;
			rw_change(s->r, g, ni, "fold", "Identity removed: its consumers read its input");
			return;
		}
		/* A graph output: its name stays, taken by the producer of the input. */
		const value *xv = &g->values[x];
		if (xv->origin != VAL_NODE || xv->is_output || s->outer_read[x] || s->renamed[x] >= 0)
			return;
		/* A body returning a constant: the initializer itself takes the output's
		 * name (as ONNX Runtime's basic level does); only when nothing else reads
		 * it, and not in the main graph, whose outputs stay node outputs. */
		uint8_t pf = s->fate[xv->producer];
		if (pf != F_LIVE && !((pf == F_FOLD || pf == F_CONST) && g != s->r->m->main && xv->nconsumers == 1))
			return;
		s->fate[ni] = F_RENAME;
		s->renamed[x] = y;
		s->repl[x] = y;
		rep->n_fold_identity++;
		rw_change(s->r, g, ni, "fold", "Identity removed: its input's producer writes the graph output");
		return;
	}
	int32_t keep = fold_bypassable(s, y) ? neutral_operand(s, n) : -1;
	if (keep >= 0 || (fold_bypassable(s, y) && is_noop(s, n))) {
		s->fate[ni] = F_PASS;
		s->repl[y] = keep > 0 ? n->inputs[keep] : x;
		rep->n_fold_noops++;
		rw_change(s->r, g, ni, "fold", "%s removed: it changes nothing", n->op_type);
		return;
	}
	if (op == FO_RESHAPE && n->opset >= 5)
		form_reshape(s, ni);
	else if (op == FO_EXPAND && n->opset >= 8)
		form_expand(s, ni);
	else if (op == FO_SLICE)
		form_slice(s, ni);
	else if (op == FO_WHERE && n->opset >= 9)
		absorb_not(s, ni);
	share_duplicate(s, ni);
}

static void count_reads(fs *s)
{
	graph *g = s->g;
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		if (s->fate[ni] != F_LIVE)
			continue;
		for (int32_t i = 0; i < g->nodes[ni].ninputs; i++) {
			int32_t id = fold_slot_reads(s, ni, i);
			if (id >= 0)
				s->reads[id]++;
		}
	}
}

static bool kept(fs *s, int32_t id)
{
	const value *v = &s->g->values[id];
	return s->reads[id] > 0 || v->is_output || s->outer_read[id] || s->renamed[id] >= 0;
}

/* The name a kept value is written under: a graph output's, where an Identity to it went. */
static const char *final_name(fs *s, int32_t id)
{
	return s->g->values[s->renamed[id] >= 0 ? s->renamed[id] : id].name;
}

/* Whether a Where absorbed node ni, a Not. */
static bool absorbed(const fs *s, int32_t ni) { return s->negated && s->negated[ni] == NEGATION_ABSORBED; }

/* Reverse topological order: every consumer is settled before its producer. */
static void sweep(fs *s)
{
	graph *g = s->g;
	for (int32_t k = g->nnodes - 1; k >= 0; k--) {
		int32_t ni = g->order[k];
		const node *n = &g->nodes[ni];
		if (s->fate[ni] != F_LIVE || !fold_pure(s, n))
			continue;
		bool unread = true;
		for (int32_t o = 0; o < n->noutputs && unread; o++)
			unread = n->outputs[o] < 0 || (!kept(s, n->outputs[o]) && s->renamed[n->outputs[o]] < 0);
		if (!unread)
			continue;
		s->fate[ni] = F_DEAD;
		if (absorbed(s, ni)) {
			s->r->rep->n_fold_absorbed++;
			rw_change(s->r, g, ni, "fold", "%s removed: its consumers absorbed it", n->op_type);
		} else {
			s->r->rep->n_fold_dead++;
			rw_change(s->r, g, ni, "fold", "%s removed: nothing reads it any more", n->op_type);
		}
		for (int32_t i = 0; i < n->ninputs; i++) {
			int32_t id = fold_slot_reads(s, ni, i);
			if (id >= 0)
				s->reads[id]--;
		}
	}
}

static bool put_name(rw *r, strmap *m, const char *name)
{
	if (strmap_put(m, name, 0) == -2) {
		rw_nomem(r);
		return false;
	}
	return true;
}

/* ---- the edit ------------------------------------------------------------------------ */

static bool add_value_init(fs *s, int32_t id)
{
	rw *r = s->r;
	const value *v = &s->g->values[id];
	const tinfo *t = &v->ti;
	int64_t dims[FOLD_MAX_RANK];
	for (int32_t k = 0; k < t->rank; k++)
		dims[k] = fold_res(s, t->dims[k]).v;
	bool is_float = false;
	edit_dtype_encodable(t->elem, &is_float);
	int64_t *iv = NULL;
	if (!is_float) {
		iv = arena_array(r->m->arena, t->nval > 0 ? (size_t)t->nval : 1, sizeof *iv);
		if (!iv)
			return rw_nomem(r), false;
		for (int32_t k = 0; k < t->nval; k++)
			iv[k] = fold_res(s, t->val[k]).v;
	}
	r->rep->n_fold_inits++;
	if (!edit_add_initializer(r->e, s->g, final_name(s, id), t->elem, dims, t->rank, iv, is_float ? t->fval : NULL))
		return rw_nomem(r), false;
	return true;
}

static bool apply_graph(fs *s, strmap *gone, bool *drop)
{
	rw *r = s->r;
	graph *g = s->g;
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *n = &g->nodes[ni];
		drop[ni] = s->fate[ni] != F_LIVE;
		if (s->fate[ni] != F_LIVE)
			continue;
		for (int32_t i = 0; i < n->ninputs; i++) {
			int32_t to = fold_slot_reads(s, ni, i);
			if (to >= 0 && to != n->inputs[i] && !edit_node_set_input(r->e, rw_node(r, g, ni), i, g->values[to].name))
				return rw_nomem(r), false;
		}
		for (int32_t o = 0; o < n->noutputs; o++) {
			int32_t id = n->outputs[o];
			if (id >= 0 && s->renamed[id] >= 0) {
				if (!edit_node_set_output(r->e, rw_node(r, g, ni), o, g->values[s->renamed[id]].name) ||
				    !put_name(r, gone, g->values[id].name))
					return rw_nomem(r), false;
			}
		}
	}
	/* What goes: the removed nodes' outputs not kept as initializers, and the
	 * initializers nothing reads (their value_info with them). */
	for (int32_t id = 0; id < g->nvalues; id++) {
		const value *v = &g->values[id];
		bool remove = false;
		if (v->origin == VAL_INITIALIZER)
			remove = !kept(s, id);
		else if (v->origin == VAL_NODE && v->producer >= 0 && s->fate[v->producer] != F_LIVE)
			remove = !(kept(s, id) && (s->fate[v->producer] == F_FOLD || s->fate[v->producer] == F_CONST ||
						   s->fate[v->producer] == F_RENAME));
		if (remove && v->origin == VAL_INITIALIZER)
			r->rep->n_fold_inits_dropped++;
		/* A value between cancelled Transposes keeps its name in another layout:
		 * its value_info goes (inference writes the new one). */
		remove |= s->relaid && s->relaid[id];
		if (remove && !put_name(r, gone, v->name))
			return false;
	}
	edit_drop(r->e, g, drop, gone);
	for (int32_t ni = 0; ni < g->nnodes; ni++) {
		const node *n = &g->nodes[ni];
		if (s->fate[ni] == F_FOLD) {
			for (int32_t o = 0; o < n->noutputs; o++) {
				int32_t id = n->outputs[o];
				if (id < 0 || !kept(s, id))
					continue;
				if (!fold_moved(s, ni)) {
					if (!add_value_init(s, id))
						return false;
				} else {
					r->rep->n_fold_inits++;
					if (!fold_layout_apply(s, ni, final_name(s, id)))
						return rw_nomem(r), false;
				}
			}
		} else if (s->fate[ni] == F_CONST && kept(s, n->outputs[0])) {
			r->rep->n_fold_inits++;
			if (!edit_constant_initializer(r->e, g, rw_node(r, g, ni), final_name(s, n->outputs[0])))
				return rw_nomem(r), false;
		}
	}
	for (int32_t k = 0; k < s->nforms; k++) {
		const form *f = &s->forms[k];
		if (s->fate[f->ni] != F_LIVE)
			continue;
		if (f->slot == FORM_AXES_ATTR) {
			if (!edit_node_set_attr_ints(r->e, rw_node(r, g, f->ni), "axes", f->v, f->n))
				return rw_nomem(r), false;
			continue;
		}
		const char *name = rw_init_name(r, rw_base(r, g, f->ni), f->role);
		int64_t dims[1] = {f->n};
		r->rep->n_fold_inits++;
		if (r->m->nomem ||
		    !(f->src ? edit_transposed_initializer(r->e, g, name, f->src, f->v, f->v + f->n / 2, f->n / 2, NULL, 0)
			     : edit_add_initializer(r->e, g, name, DT_INT64, dims, 1, f->v, NULL)) ||
		    !edit_node_set_input(r->e, rw_node(r, g, f->ni), f->slot, name) ||
		    (f->allowzero_off && !edit_node_set_attr_i(r->e, rw_node(r, g, f->ni), "allowzero", 0)))
			return rw_nomem(r), false;
	}
	return !r->m->nomem;
}

osh_status rewrite_fold_stage(osh_model *m, const osh_rewrite_options *opts, osh_rewrite_report *rep,
			      bool *edited, osh_error *err)
{
	*edited = false;
	if (!opts->fold_shapes || m->has_errors)
		return OSH_OK;
	rw rr = {.m = m, .opts = opts, .rep = rep};
	rw *r = &rr;
	if (!rw_continue_changes(r))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	fs *states = arena_zalloc(m->arena, (size_t)(m->ngraphs > 0 ? m->ngraphs : 1) * sizeof *states);
	if (!states)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	size_t before = 0, removed = 0;
	fold_ops *ops = arena_zalloc(m->arena, sizeof *ops);
	if (!ops)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	for (int32_t gi = 0; gi < m->ngraphs && !r->m->nomem; gi++) {
		fs *s = &states[gi];
		*s = (fs){.r = r, .g = m->graphs[gi], .ops = ops};
		graph *g = s->g;
		if (!g->proto)
			continue;
		before += (size_t)g->nnodes;
		size_t nn = (size_t)(g->nnodes > 0 ? g->nnodes : 1), nv = (size_t)(g->nvalues > 0 ? g->nvalues : 1);
		s->fate = arena_zalloc(m->arena, nn);
		s->form_at = arena_array(m->arena, nn, sizeof *s->form_at);
		s->repl = arena_array(m->arena, nv, sizeof *s->repl);
		s->renamed = arena_array(m->arena, nv, sizeof *s->renamed);
		s->reads = arena_zalloc(m->arena, nv * sizeof *s->reads);
		s->outer_read = arena_zalloc(m->arena, nv * sizeof *s->outer_read);
		if (!s->fate || !s->form_at || !s->repl || !s->renamed || !s->reads || !s->outer_read)
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
		memset(s->form_at, 0xff, nn * sizeof *s->form_at);
		uint32_t cap = 16;
		while (cap < 2 * nn && cap < (1u << 30))
			cap <<= 1;
		s->cse = arena_array(m->arena, cap, sizeof *s->cse);
		if (!s->cse)
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
		memset(s->cse, 0xff, cap * sizeof *s->cse);
		s->cse_mask = cap - 1;
		memset(s->repl, 0xff, nv * sizeof *s->repl);
		uint8_t *op = arena_alloc(m->arena, nn);
		if (!op)
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
		for (int32_t ni = 0; ni < g->nnodes; ni++)
			op[ni] = fold_op_classify(s, &g->nodes[ni]);
		s->op = op;
		memset(s->renamed, 0xff, nv * sizeof *s->renamed);
		mark_outer_reads(m, g, s->outer_read);
		for (int32_t k = 0; k < g->nnodes && !r->m->nomem; k++)
			decide(s, g->order[k]);
		fold_cancel_transposes(s);
		count_reads(s);
		sweep(s);
		for (int32_t ni = 0; ni < g->nnodes; ni++) {
			const node *n = &g->nodes[ni];
			removed += s->fate[ni] != F_LIVE;
			for (int32_t o = 0; o < n->noutputs && (s->fate[ni] == F_FOLD || s->fate[ni] == F_CONST); o++)
				rep->n_fold_inits += n->outputs[o] >= 0 && kept(s, n->outputs[o]);
		}
		for (int32_t k = 0; k < s->nforms; k++)
			rep->n_fold_inits += s->fate[s->forms[k].ni] == F_LIVE && s->forms[k].slot != FORM_AXES_ATTR;
		for (int32_t id = 0; id < g->nvalues; id++)
			rep->n_fold_inits_dropped += g->values[id].origin == VAL_INITIALIZER && !kept(s, id);
	}
	if (r->m->nomem)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory", m->path);
	rep->n_changes = r->nchanges;
	rep->changes = r->changes;
	rep->fold_nodes_before = before;
	rep->fold_nodes_after = before - removed;
	bool any = removed || rep->n_fold_forms || rep->n_fold_inits_dropped;
	if (!any)
		return OSH_OK;
	rep->changed = true;
	if (opts->dry_run)
		return OSH_OK;
	rep->n_fold_inits_dropped = rep->n_fold_inits = 0; /* counted again by the edit */
	rewrite_grow_budget(m, 0);
	if (!loader_build_value_info(m)) /* edit_drop reads them as messages */
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	r->e = edit_begin(m);
	if (!r->e)
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	r->apply = true;
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		fs *s = &states[gi];
		if (!s->g->proto)
			continue;
		strmap gone;
		strmap_init(&gone, m->arena);
		bool *drop = arena_zalloc(m->arena, (size_t)(s->g->nnodes > 0 ? s->g->nnodes : 1) * sizeof *drop);
		if (!drop || !apply_graph(s, &gone, drop))
			return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	}
	/* Before IR 4 every initializer also had to be a graph input. */
	if (rep->n_fold_inits)
		edit_raise_ir_version(r->e, 4);
	if (!edit_commit(r->e))
		return error_set(err, OSH_ERR_NOMEM, "%s: out of memory rewriting", m->path);
	*edited = true;
	return OSH_OK;
}
