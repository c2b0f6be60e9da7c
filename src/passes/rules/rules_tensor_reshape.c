/* rules_tensor_reshape.c: operators that rearrange a tensor's dims: Reshape, Flatten,
 * Transpose, Squeeze, Unsqueeze, Expand, Tile and Pad.
 *
 * Reshape is where shape arithmetic pays off: its target comes as content (from a
 * Constant, or computed by Shape → Gather → Concat), entries being known sizes,
 * symbols or unknown. A -1 entry is solved from the element counts, symbols included:
 * both counts are written as a known factor times a product of symbols, common symbols
 * cancel (a valid run has no zero-sized symbol there, else -1 would be ambiguous), and
 * what is left names the -1 dim when it is a known size or exactly one symbol. A
 * target whose known dims multiply past INT64_MAX is reported, whatever the input: no
 * tensor holds that many elements (an empty input still fits a -1, as 0). So is an
 * Expand whose result would.
 *
 * Content moves along: Reshape, Flatten, Squeeze and Unsqueeze keep the row-major
 * order, so content passes unchanged; Transpose, Expand and Tile move entries through
 * an index map when every dim is known and the tensor small.
 *
 * Invariant: an output dim is written only when certain for a valid model; a size
 * computed at run time (a target shape whose entries are not known) is a fresh
 * symbol; a model no valid run can have is reported (shape-error or
 * broadcast-mismatch) and leaves the output with its element type only.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_tensor.h"

#include "core/checked.h"
#include "core/dtype.h"

#include <stdio.h>
#include <string.h>

/* ---- symbolic element counts -------------------------------------------------- */

/* coef * product(syms[0..nsym)), every sym a resolved root id. */
typedef struct product {
	int64_t coef;
	int64_t *syms;
	int32_t nsym;
} product;

/* Writes dims (except index `skip`) as a product; false when a dim is unknown, a
 * known factor overflows, or memory runs out. */
static bool factorize(infer_ctx *c, const dim *dims, int32_t n, int32_t skip, product *p)
{
	p->coef = 1;
	p->nsym = 0;
	p->syms = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *p->syms);
	if (!p->syms) {
		c->m->nomem = true;
		return false;
	}
	for (int32_t k = 0; k < n; k++) {
		if (k == skip)
			continue;
		dim d = dim_resolve(c->syms, dims[k]);
		if (d.kind == DIM_UNKNOWN)
			return false;
		if (d.kind == DIM_SYMBOL)
			p->syms[p->nsym++] = d.v;
		else if (__builtin_mul_overflow(p->coef, d.v, &p->coef))
			return false;
	}
	return true;
}

/* Removes from a and b the symbols they share (as multisets). */
static void cancel(product *a, product *b)
{
	for (int32_t i = 0; i < b->nsym;) {
		int32_t j = 0;
		while (j < a->nsym && a->syms[j] != b->syms[i])
			j++;
		if (j == a->nsym) {
			i++;
			continue;
		}
		a->syms[j] = a->syms[--a->nsym];
		b->syms[i] = b->syms[--b->nsym];
	}
}

/* ---- Reshape ------------------------------------------------------------------ */

/* The dim a -1 stands for: input count / the other output dims, when certain (*res
 * unknown otherwise). Reports a count no valid model can have (all known, not
 * divisible) and returns false. */
static bool solve(infer_ctx *c, const tinfo *x, const dim *out, int32_t n, int32_t minus, dim *res)
{
	*res = dim_unknown();
	if (x && x->rank >= 0) {
		/* As expressions: (batch*seq*768)/(12*64) is batch*seq. */
		dim ein = dims_product(c, x->dims, x->rank, -1), eout = dims_product(c, out, n, minus);
		if (ein.kind != DIM_UNKNOWN && eout.kind != DIM_UNKNOWN &&
		    (ein.kind == DIM_SYMBOL || eout.kind == DIM_SYMBOL)) {
			dim q = dim_divexact(c, ein, eout);
			if (q.kind != DIM_UNKNOWN) {
				*res = q;
				return true;
			}
		}
	}
	product pin, pout;
	if (!x || x->rank < 0 || !factorize(c, x->dims, x->rank, -1, &pin) || !factorize(c, out, n, minus, &pout))
		return true;
	cancel(&pin, &pout);
	if (pout.nsym > 0)
		return true; /* a symbol of the target the input does not have */
	if (pout.coef == 0) {
		/* 0 elements on the target side leave -1 undetermined, even for an empty
		 * input: ONNX Runtime refuses it ("Invalid Target shape product of 0"). */
		if (pin.nsym == 0)
			tr_error(c, "cannot reshape '%s' %s (%lld elements) to a shape with a 0 and a -1: the -1 is "
				    "undetermined",
				 in_name(c, 0), fmt_shape(c, x), (long long)pin.coef);
		else
			tr_error(c, "cannot reshape '%s' %s to a shape with a 0 and a -1: the -1 is undetermined",
				 in_name(c, 0), fmt_shape(c, x));
		return false;
	}
	int64_t q, rem;
	if (!i64_rem(pin.coef, pout.coef, &rem) || rem != 0) {
		if (pin.nsym == 0) {
			tr_error(c,
				 "cannot reshape '%s' %s (%lld elements): the other target dims multiply to %lld, "
				 "which does not divide it",
				 in_name(c, 0), fmt_shape(c, x), (long long)pin.coef, (long long)pout.coef);
			return false;
		}
		return true;
	}
	if (!i64_div(pin.coef, pout.coef, &q))
		return true;
	if (pin.nsym == 0)
		*res = dim_known(q);
	else if (pin.nsym == 1 && q == 1)
		*res = dim_symbol(pin.syms[0]);
	return true;
}

/* Whether the known dims (but the one at `skip`) multiply past INT64_MAX, none of
 * them 0: no tensor has that many elements, whatever the other dims turn out to be
 * (shape_known_count, the test every node's outputs get in rule_api.c, made here first
 * to say which input asked for it). A symbol counts as unknown, as in a declared
 * shape (validate.c). */
static bool count_overflows(infer_ctx *c, const dim *dims, int32_t n, int32_t skip)
{
	dim r[RULE_MAX_RANK];
	int64_t count;
	if (c->syms->bound && n <= RULE_MAX_RANK) {
		for (int32_t k = 0; k < n; k++)
			r[k] = dim_resolve(c->syms, dims[k]);
		dims = r;
	}
	return !shape_known_count((shape){n, dims}, skip, &count);
}

/* Reports a target shape v[0..n) (with its -1 at `minus`, or none: -1) that
 * count_overflows: it cannot hold the `count` elements of input 0 (-1: not known). */
static void report_overflow(infer_ctx *c, const tinfo *x, int64_t count, const dim *v, int32_t n, int32_t minus)
{
	char target[512], had[64] = "";
	shape_format(target, sizeof target, (shape){n, v}, sym_name_cb, c->syms);
	if (count >= 0)
		snprintf(had, sizeof had, " (%lld elements)", (long long)count);
	tr_error(c, "cannot reshape '%s' %s%s to %s: %s overflows int64", in_name(c, 0), fmt_shape(c, x), had, target,
		 minus >= 0 ? "the product of the other target dims" : "its element count");
}

/* Reshape of input 0 to the shape given as content v[0..n). */
static void reshape_to(infer_ctx *c, const dim *v, int32_t n, bool allowzero)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), xr = in_rank(c, 0);
	if (n > RULE_MAX_RANK) {
		tr_error(c, "the target rank %d is above the supported %d", n, RULE_MAX_RANK);
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	int32_t minus = -1;
	bool zero = false;
	for (int32_t k = 0; k < n; k++) {
		dim d = dim_resolve(c->syms, v[k]);
		out[k] = d;
		if (d.kind == DIM_UNKNOWN) {
			out[k] = dim_fresh(c); /* a size fixed at run time */
			continue;
		}
		if (d.kind != DIM_KNOWN)
			continue;
		if (d.v == -1) {
			if (minus >= 0) {
				tr_error(c, "the target shape has -1 at %d and at %d", minus, k);
				set_out_elem(c, 0, elem);
				return;
			}
			minus = k;
		} else if (d.v < -1) {
			tr_error(c, "the target shape has %lld at %d", (long long)d.v, k);
			set_out_elem(c, 0, elem);
			return;
		} else if (d.v == 0) {
			zero = true;
			if (allowzero)
				continue;
			/* 0 copies the input's dim at the same index. */
			if (xr >= 0 && k >= xr) {
				tr_error(c, "the target shape has 0 at %d, which copies a dim '%s' %s does not have", k,
					 in_name(c, 0), fmt_shape(c, x));
				set_out_elem(c, 0, elem);
				return;
			}
			out[k] = xr >= 0 ? x->dims[k] : dim_unknown();
		}
	}
	if (allowzero && zero && minus >= 0) {
		tr_error(c, "with allowzero=1 the target shape cannot hold both 0 and -1");
		set_out_elem(c, 0, elem);
		return;
	}
	int64_t a = xr >= 0 ? tr_count(c, xr, x->dims) : -1;
	if (count_overflows(c, out, n, minus)) {
		/* Only an empty input fits, as the 0 a -1 then stands for. */
		if (minus < 0 || a != 0) {
			report_overflow(c, x, a, v, n, minus);
			set_out_elem(c, 0, elem);
			return;
		}
		out[minus] = dim_known(0);
	} else if (minus >= 0) {
		if (!solve(c, xr >= 0 ? x : NULL, out, n, minus, &out[minus])) {
			set_out_elem(c, 0, elem);
			return;
		}
		/* Not solvable here: still a size, fixed at run time. */
		if (out[minus].kind == DIM_UNKNOWN)
			out[minus] = dim_fresh(c);
	} else if (xr >= 0) {
		int64_t b = tr_count(c, n, out);
		if (a >= 0 && b >= 0 && a != b) {
			tr_error(c, "cannot reshape '%s' %s (%lld elements) to %lld elements", in_name(c, 0),
				 fmt_shape(c, x), (long long)a, (long long)b);
			set_out_elem(c, 0, elem);
			return;
		}
	}
	set_out(c, 0, elem, n, out);
	tr_pass_content(c, 0, 0);
}

/* x's element count as a dim: a known size (0 when a dim is 0, whatever the symbols)
 * or a single symbol; unknown otherwise (a product of symbols is not a dim). */
static dim count_dim(infer_ctx *c, const tinfo *x)
{
	return x && x->rank >= 0 ? dims_product(c, x->dims, x->rank, -1) : dim_unknown();
}

/* The target is known by its length only: every dim is a size fixed at run time.
 * A single dim holds every element, whatever its entry (-1, 0 copying, allowzero's
 * 0, a size): Reshape keeps the element count in every valid run. */
static void reshape_rank_only(infer_ctx *c, int32_t n)
{
	int32_t elem = in_elem(c, 0);
	if (n < 0 || n > RULE_MAX_RANK) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim *out = dims_alloc(c, n);
	if (!out)
		return;
	for (int32_t k = 0; k < n; k++)
		out[k] = dim_fresh(c);
	dim count = n == 1 ? count_dim(c, in_tensor(c, 0)) : dim_unknown();
	if (count.kind != DIM_UNKNOWN)
		out[0] = count;
	set_out(c, 0, elem, n, out);
	/* Row-major content is the 1-D output's content as it is. */
	if (n == 1)
		tr_pass_content(c, 0, 0);
}

void infer_reshape1(infer_ctx *c)
{
	const int64_t *s;
	int32_t n;
	if (!attr_ints(c, "shape", &s, &n)) {
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	if (n > RULE_MAX_RANK) {
		reshape_to(c, NULL, n, false); /* reports */
		return;
	}
	dim *v = dims_alloc(c, n);
	if (!v)
		return;
	for (int32_t k = 0; k < n; k++)
		v[k] = dim_known(s[k]);
	reshape_to(c, v, n, false);
}

static void reshape_input(infer_ctx *c, bool allowzero)
{
	const tinfo *s = in_tensor(c, 1);
	if (s && s->rank >= 0 && s->rank != 1) {
		tr_error(c, "the shape input '%s' %s must be 1-D", in_name(c, 1), fmt_shape(c, s));
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	const dim *v;
	int32_t n;
	if (in_ints(c, 1, &v, &n)) {
		reshape_to(c, v, n, allowzero);
		return;
	}
	int64_t scratch[1];
	tr_list(c, NULL, 1, scratch, 0, &n);
	reshape_rank_only(c, n);
}

void infer_reshape5(infer_ctx *c) { reshape_input(c, false); }
void infer_reshape14(infer_ctx *c) { reshape_input(c, attr_i(c, "allowzero", 0) != 0); }

/* ---- Flatten ------------------------------------------------------------------ */

/* (d0 * ... * d(axis-1), d(axis) * ... * d(r-1)); an empty product is 1. */
void infer_flatten(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	int64_t axis = attr_i(c, "axis", 1);
	dim out[2] = {dim_unknown(), dim_unknown()};
	if (r < 0) {
		if (axis == 0)
			out[0] = dim_known(1);
		set_out(c, 0, elem, 2, out);
		return;
	}
	/* axis is in [-r, r], a negative one counting from r (not r + 1, as an
	 * insertion position would). */
	int32_t a = r;
	if (axis != r && !shape_axis(axis, r, &a)) {
		tr_error(c, "axis %lld is out of range for '%s' %s (valid: %d to %d)", (long long)axis, in_name(c, 0),
			 fmt_shape(c, x), -r, r);
		set_out_elem(c, 0, elem);
		return;
	}
	out[0] = out[1] = dim_known(1);
	for (int32_t k = 0; k < r; k++)
		out[k >= a] = dim_mul(c, out[k >= a], x->dims[k]);
	set_out(c, 0, elem, 2, out);
	tr_pass_content(c, 0, 0);
}

/* ---- index maps --------------------------------------------------------------- */

/* Input dims and row-major strides, for the src functions. */
typedef struct src_info {
	const int64_t *idims;
	int64_t istride[RULE_MAX_RANK];
	int32_t irank;
	const int64_t *perm; /* Transpose */
} src_info;

static void strides(src_info *s)
{
	int64_t st = 1;
	for (int32_t k = s->irank - 1; k >= 0; k--) {
		s->istride[k] = st;
		st *= s->idims[k] ? s->idims[k] : 1;
	}
}

static int64_t src_transpose(const int64_t *idx, int32_t r, const void *ctx)
{
	const src_info *s = ctx;
	int64_t f = 0;
	for (int32_t k = 0; k < r; k++)
		f += idx[k] * s->istride[s->perm[k]];
	return f;
}

/* Broadcast (Expand): input dims right-aligned; a 1 repeats. */
static int64_t src_broadcast(const int64_t *idx, int32_t r, const void *ctx)
{
	const src_info *s = ctx;
	int64_t f = 0;
	for (int32_t k = 0; k < s->irank; k++) {
		int64_t i = idx[r - s->irank + k];
		f += (s->idims[k] == 1 ? 0 : i) * s->istride[k];
	}
	return f;
}

/* Tile: the input repeats along every axis. */
static int64_t src_tile(const int64_t *idx, int32_t r, const void *ctx)
{
	const src_info *s = ctx;
	int64_t f = 0;
	for (int32_t k = 0; k < r; k++)
		f += (idx[k] % s->idims[k]) * s->istride[k];
	return f;
}

/* Content of output 0 (dims od, rank orank) from input 0 through `src`, when every dim
 * is known, the tensors small and input 0 has content. */
static void map_content(infer_ctx *c, int32_t orank, const dim *od, tr_src_fn src, src_info *s)
{
	const dim *v;
	const double *f;
	int32_t nv;
	if (!in_ints(c, 0, &v, &nv) && !in_floats(c, 0, &f, &nv))
		return;
	int64_t idims[RULE_MAX_RANK], odims[RULE_MAX_RANK];
	if (orank < 0 || orank > RULE_MAX_RANK || tr_known_dims(c, 0, idims) < 0)
		return;
	int64_t n = tr_count(c, orank, od);
	if (n < 0 || n > TINFO_MAX_VALUES)
		return;
	for (int32_t k = 0; k < orank; k++)
		odims[k] = dim_resolve(c->syms, od[k]).v;
	s->idims = idims;
	s->irank = in(c, 0)->rank;
	strides(s);
	int32_t *map = tr_index_map(c, odims, orank, n, src, s);
	if (map)
		tr_map_content(c, 0, 0, map, (int32_t)n);
}

/* ---- Transpose ---------------------------------------------------------------- */

void infer_transpose(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	int64_t perm[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, "perm", -1, perm, RULE_MAX_RANK, &n);
	if (st == TR_UNKNOWN) {
		if (r >= 0 && n >= 0 && n != r)
			tr_error(c, "perm has %d entries, input '%s' %s has rank %d", n, in_name(c, 0), fmt_shape(c, x),
				 r);
		set_out_elem(c, 0, elem);
		return;
	}
	if (st == TR_ABSENT) {
		if (r < 0) {
			set_out_elem(c, 0, elem);
			return;
		}
		n = r;
		for (int32_t k = 0; k < r; k++)
			perm[k] = r - 1 - k;
	}
	if (r >= 0 && n != r) {
		tr_error(c, "perm has %d entries, input '%s' %s has rank %d", n, in_name(c, 0), fmt_shape(c, x), r);
		set_out_elem(c, 0, elem);
		return;
	}
	bool seen[RULE_MAX_RANK];
	memset(seen, 0, (size_t)n * sizeof *seen); /* not all RULE_MAX_RANK: 1 KB a node */
	for (int32_t k = 0; k < n; k++) {
		if (perm[k] < 0 || perm[k] >= n || seen[perm[k]]) {
			tr_error(c, "perm is not a permutation of 0..%d (entry %d is %lld)", n - 1, k,
				 (long long)perm[k]);
			set_out_elem(c, 0, elem);
			return;
		}
		seen[perm[k]] = true;
	}
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0; k < n; k++)
		out[k] = r >= 0 ? x->dims[perm[k]] : dim_unknown();
	set_out(c, 0, elem, n, out);
	if (r >= 0) {
		src_info s; /* not zeroed: istride is 8 KB, and map_content sets what it reads */
		s.perm = perm;
		map_content(c, n, out, src_transpose, &s);
	}
}

/* ---- Squeeze, Unsqueeze ------------------------------------------------------- */

/* Whether a valid run may give dim d the size 1: all but a known size other than 1
 * (a symbol or an unknown dim may be 1). */
static bool may_be_one(infer_ctx *c, dim d)
{
	d = dim_resolve(c->syms, d);
	return d.kind != DIM_KNOWN || d.v == 1;
}

/* Squeeze of n > 0 axes whose values are not known (input 0 of rank r >= 0). A valid
 * run names n distinct axes of size 1, all among the m dims that may be 1: m == n
 * fixes them, and the output is the other dims, every one known; m > n still fixes
 * the dims before the first such dim and after the last (no axis can be dropped
 * there, so their output positions are certain); m < n has no valid run. */
static void squeeze_unknown_axes(infer_ctx *c, int32_t n, int32_t r)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), m = 0, first = r, last = -1;
	for (int32_t k = 0; k < r; k++) {
		if (!may_be_one(c, x->dims[k]))
			continue;
		m++;
		first = k < first ? k : first;
		last = k;
	}
	if (m < n) {
		tr_error(c, "axes has %d entries, but only %d dims of '%s' %s may be 1", n, m, in_name(c, 0),
			 fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	int32_t o = 0;
	if (m == n) {
		for (int32_t k = 0; k < r; k++)
			if (!may_be_one(c, x->dims[k]))
				out[o++] = x->dims[k];
	} else {
		for (; o < r - n; o++)
			out[o] = o < first ? x->dims[o] : o + n > last ? x->dims[o + n] : dim_unknown();
	}
	set_out(c, 0, elem, o, out);
	tr_pass_content(c, 0, 0);
}

static void squeeze_rule(infer_ctx *c, tr_list_state st, int64_t *axes, int32_t n)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	/* An empty list has no value left to know: the empty-axes case below. */
	if (st == TR_UNKNOWN && n == 0)
		st = TR_KNOWN;
	if (r >= 0 && st == TR_UNKNOWN && n > 0) {
		squeeze_unknown_axes(c, n, r);
		return;
	}
	if (r < 0 || st == TR_UNKNOWN) {
		set_out_elem(c, 0, elem);
		return;
	}
	bool drop[RULE_MAX_RANK] = {false};
	if (st == TR_ABSENT || n == 0) {
		/* Every 1 goes; a dim that might be 1 leaves the rank unknown. An empty axes
		 * list means "none" to the ONNX reference and "every 1" to onnxruntime: only
		 * an input without 1s is certain then. */
		for (int32_t k = 0; k < r; k++) {
			dim d = dim_resolve(c->syms, x->dims[k]);
			if (d.kind != DIM_KNOWN || (n == 0 && st != TR_ABSENT && d.v == 1)) {
				set_out_elem(c, 0, elem);
				return;
			}
			drop[k] = d.v == 1;
		}
	} else {
		if (!tr_norm_axes(c, axes, n, r, "axes")) {
			set_out_elem(c, 0, elem);
			return;
		}
		for (int32_t k = 0; k < n; k++) {
			dim m;
			if (!dim_merge(c, x->dims[axes[k]], dim_known(1), &m)) {
				tr_error(c, "axis %lld of '%s' %s is not 1", (long long)axes[k], in_name(c, 0),
					 fmt_shape(c, x));
				set_out_elem(c, 0, elem);
				return;
			}
			drop[axes[k]] = true;
		}
	}
	dim out[RULE_MAX_RANK];
	int32_t o = 0;
	for (int32_t k = 0; k < r; k++)
		if (!drop[k])
			out[o++] = x->dims[k];
	set_out(c, 0, elem, o, out);
	tr_pass_content(c, 0, 0);
}

void infer_squeeze1(infer_ctx *c)
{
	int64_t axes[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, "axes", -1, axes, RULE_MAX_RANK, &n);
	squeeze_rule(c, st, axes, n);
}

void infer_squeeze13(infer_ctx *c)
{
	int64_t axes[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, NULL, 1, axes, RULE_MAX_RANK, &n);
	squeeze_rule(c, st, axes, n);
}

/* Axes count in the output: rank(output) = rank(input) + len(axes). */
static void unsqueeze_rule(infer_ctx *c, tr_list_state st, int64_t *axes, int32_t n)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	if (st == TR_ABSENT) {
		tr_error(c, "axes are required");
		set_out_elem(c, 0, elem);
		return;
	}
	if (r < 0 || n < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	int32_t orank = r + n;
	if (orank > RULE_MAX_RANK) {
		tr_error(c, "the output rank %d is above the supported %d", orank, RULE_MAX_RANK);
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	if (st == TR_UNKNOWN) {
		for (int32_t k = 0; k < orank; k++)
			out[k] = dim_unknown();
		set_out(c, 0, elem, orank, out);
		tr_pass_content(c, 0, 0);
		return;
	}
	if (!tr_norm_axes(c, axes, n, orank, "axes")) {
		set_out_elem(c, 0, elem);
		return;
	}
	bool ins[RULE_MAX_RANK] = {false};
	for (int32_t k = 0; k < n; k++)
		ins[axes[k]] = true;
	int32_t j = 0;
	for (int32_t k = 0; k < orank; k++)
		out[k] = ins[k] ? dim_known(1) : x->dims[j++];
	set_out(c, 0, elem, orank, out);
	tr_pass_content(c, 0, 0);
}

void infer_unsqueeze1(infer_ctx *c)
{
	int64_t axes[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, "axes", -1, axes, RULE_MAX_RANK, &n);
	unsqueeze_rule(c, st, axes, n);
}

void infer_unsqueeze13(infer_ctx *c)
{
	int64_t axes[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, NULL, 1, axes, RULE_MAX_RANK, &n);
	unsqueeze_rule(c, st, axes, n);
}

/* ---- Expand ------------------------------------------------------------------- */

/* infer_broadcast for a target that is not an input's shape (Expand's target is the
 * content of its shape input): same resolution, facts and report. */
static bool broadcast_bidir(infer_ctx *c, const tinfo *x, const dim *target, int32_t tn, int32_t *rank, dim *out)
{
	dim ra[RULE_MAX_RANK], rb[RULE_MAX_RANK];
	for (int32_t k = 0; k < x->rank; k++)
		ra[k] = dim_resolve(c->syms, x->dims[k]);
	for (int32_t k = 0; k < tn; k++)
		rb[k] = dim_resolve(c->syms, target[k]);
	shape sa = {x->rank, ra}, sb = {tn, rb};
	sym_fact facts[64];
	bcast_out bo = {.dims = out, .facts = facts, .facts_cap = 64};
	bcast_error err = {0};
	sym_ctx sc = {sym_eq_cb, c->syms};
	if (!bcast_bidirectional(sa, sb, &sc, &bo, &err)) {
		char why[512], ts[512];
		bcast_error_format(why, sizeof why, &err, in_name(c, 0), "the target shape", sym_name_cb, c->syms);
		shape_format(ts, sizeof ts, sb, sym_name_cb, c->syms);
		infer_diag(c, OSH_ERROR, DIAG_BROADCAST_MISMATCH,
			   "'%s' %s does not expand to the target shape %s given by '%s' (%s rule): %s", in_name(c, 0),
			   fmt_shape(c, x), ts, in_name(c, 1), bcast_rule_name(BCAST_BIDIRECTIONAL), why);
		return false;
	}
	record_facts(c, facts, bo.nfacts);
	*rank = bo.rank;
	return true;
}

void infer_expand(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *s = in_tensor(c, 1);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	if (s && s->rank >= 0 && s->rank != 1) {
		tr_error(c, "the shape input '%s' %s must be 1-D", in_name(c, 1), fmt_shape(c, s));
		set_out_elem(c, 0, elem);
		return;
	}
	const dim *v;
	int32_t n;
	bool known = in_ints(c, 1, &v, &n);
	if (!known) {
		int64_t scratch[1];
		tr_list(c, NULL, 1, scratch, 0, &n);
	}
	if (r < 0 || n < 0 || n > RULE_MAX_RANK) {
		set_out_elem(c, 0, elem);
		return;
	}
	/* Unknown target entries are sizes fixed at run time: fresh symbols, which
	 * broadcasting against the input treats as "1 or the input's size". */
	dim target[RULE_MAX_RANK];
	if (known) {
		for (int32_t k = 0; k < n; k++) {
			dim d = dim_resolve(c->syms, v[k]);
			if (d.kind == DIM_KNOWN && d.v < 0) {
				tr_error(c, "the target shape has %lld at %d", (long long)d.v, k);
				set_out_elem(c, 0, elem);
				return;
			}
			target[k] = d.kind == DIM_UNKNOWN ? dim_fresh(c) : d;
		}
	} else {
		for (int32_t k = 0; k < n; k++)
			target[k] = dim_fresh(c);
	}
	dim out[RULE_MAX_RANK];
	int32_t orank;
	if (!broadcast_bidir(c, x, target, n, &orank, out)) {
		set_out_elem(c, 0, elem);
		return;
	}
	if (count_overflows(c, out, orank, -1)) {
		char shown[512];
		shape_format(shown, sizeof shown, (shape){orank, out}, sym_name_cb, c->syms);
		tr_error(c, "expanding '%s' %s to the target shape given by '%s' gives %s, whose element count "
			 "overflows int64",
			 in_name(c, 0), fmt_shape(c, x), in_name(c, 1), shown);
		set_out_elem(c, 0, elem);
		return;
	}
	set_out(c, 0, elem, orank, out);
	src_info si = {0};
	map_content(c, orank, out, src_broadcast, &si);
}

/* ---- Tile --------------------------------------------------------------------- */

/* output_dim[i] = input_dim[i] * repeats[i]; an unknown repeat gives a size fixed at
 * run time (still 0 where the input dim is 0). */
void infer_tile6(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	const dim *v = NULL;
	int32_t n = -1;
	bool known = in_ints(c, 1, &v, &n);
	if (!known) {
		int64_t scratch[1];
		tr_list(c, NULL, 1, scratch, 0, &n);
	}
	if (r >= 0 && n >= 0 && n != r) {
		tr_error(c, "repeats has %d entries, input '%s' %s has rank %d", n, in_name(c, 0), fmt_shape(c, x), r);
		set_out_elem(c, 0, elem);
		return;
	}
	if (r < 0 && n >= 0 && n <= RULE_MAX_RANK) {
		dim out[RULE_MAX_RANK];
		for (int32_t k = 0; k < n; k++)
			out[k] = dim_unknown();
		set_out(c, 0, elem, n, out);
		return;
	}
	if (r < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0; k < r; k++) {
		dim rep = known ? dim_resolve(c->syms, v[k]) : dim_unknown();
		if (rep.kind == DIM_KNOWN && rep.v < 0) {
			tr_error(c, "repeats[%d] is %lld, must be >= 0", k, (long long)rep.v);
			set_out_elem(c, 0, elem);
			return;
		}
		out[k] = dim_mul(c, x->dims[k], rep);
		if (out[k].kind == DIM_UNKNOWN && rep.kind == DIM_UNKNOWN)
			out[k] = dim_fresh(c);
	}
	set_out(c, 0, elem, r, out);
	src_info si = {0};
	map_content(c, r, out, src_tile, &si);
}

/* Tile-1: one axis, `tiles` copies, both scalar inputs. */
void infer_tile1(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	if (r < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim tiles, axis, out[RULE_MAX_RANK];
	bool has_axis = in_int1(c, 2, &axis) && axis.kind == DIM_KNOWN;
	bool has_tiles = in_int1(c, 1, &tiles);
	if (has_tiles && tiles.kind == DIM_KNOWN && tiles.v < 0) {
		tr_error(c, "tiles is %lld, must be >= 0", (long long)tiles.v);
		set_out_elem(c, 0, elem);
		return;
	}
	int32_t a = -1;
	if (has_axis && !norm_axis(c, axis.v, r, false, "axis", &a)) {
		set_out_elem(c, 0, elem);
		return;
	}
	for (int32_t k = 0; k < r; k++) {
		out[k] = has_axis ? x->dims[k] : dim_unknown();
		if (k == a)
			out[k] = has_tiles ? dim_mul(c, x->dims[k], tiles) : dim_fresh(c);
	}
	set_out(c, 0, elem, r, out);
}

/* ---- Pad ---------------------------------------------------------------------- */

/* pads[0..2m) = begins then ends for the m axes in `axes` (NULL: every axis, m = r);
 * pads NULL: not known. */
static void pad_rule(infer_ctx *c, const dim *pads, int32_t npads, const int64_t *axes, int32_t m)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	const char *mode = attr_s(c, "mode", "constant");
	/* wrap came in Pad-19; ONNX Runtime's kernel runs it at every version. */
	static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
	bool mode_ok = false;
	for (int32_t k = 0; k < 4; k++)
		mode_ok |= !strcmp(mode, modes[k]);
	if (!mode_ok) {
		tr_error(c, "mode '%s' is not one of the operator's modes", mode);
		set_out_elem(c, 0, elem);
		return;
	}
	if (r < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	if (!axes)
		m = r;
	if (npads >= 0 && npads != 2 * m) {
		tr_error(c, "pads has %d entries, expected 2 * %d for '%s' %s", npads, m, in_name(c, 0),
			 fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0; k < r; k++)
		out[k] = x->dims[k];
	for (int32_t i = 0; i < m; i++) {
		int32_t a = axes ? (int32_t)axes[i] : i;
		if (!pads) {
			out[a] = dim_fresh(c);
			continue;
		}
		dim d = dim_add(c, dim_add(c, x->dims[a], pads[i]), pads[m + i]);
		if (d.kind == DIM_KNOWN && d.v < 0) {
			tr_error(c, "padding axis %d of '%s' %s gives the size %lld", a, in_name(c, 0), fmt_shape(c, x),
				 (long long)d.v);
			set_out_elem(c, 0, elem);
			return;
		}
		/* A pad of unknown size leaves a size fixed at run time. */
		if (d.kind == DIM_UNKNOWN && (dim_resolve(c->syms, pads[i]).kind == DIM_UNKNOWN ||
					      dim_resolve(c->syms, pads[m + i]).kind == DIM_UNKNOWN))
			d = dim_fresh(c);
		out[a] = d;
	}
	set_out(c, 0, elem, r, out);
}

static void pad_attr(infer_ctx *c, const char *name)
{
	const int64_t *p;
	int32_t n;
	if (!attr_ints(c, name, &p, &n)) {
		tr_error(c, "attribute '%s' is required", name);
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	if (n > 2 * RULE_MAX_RANK) {
		pad_rule(c, NULL, n, NULL, 0); /* reports the length */
		return;
	}
	dim *v = dims_alloc(c, n);
	if (!v)
		return;
	for (int32_t k = 0; k < n; k++)
		v[k] = dim_known(p[k]);
	pad_rule(c, v, n, NULL, 0);
}

void infer_pad1(infer_ctx *c) { pad_attr(c, "paddings"); }
void infer_pad2(infer_ctx *c) { pad_attr(c, "pads"); }

/* pads (and from 18 axes) as inputs. */
static void pad_input(infer_ctx *c, bool with_axes)
{
	int64_t axes[RULE_MAX_RANK];
	int32_t m = -1;
	tr_list_state st = with_axes ? tr_list(c, NULL, 3, axes, RULE_MAX_RANK, &m) : TR_ABSENT;
	int32_t r = in_rank(c, 0);
	if (st == TR_UNKNOWN) {
		/* Which axes are padded is not known: every dim may change. */
		if (r < 0) {
			set_out_elem(c, 0, in_elem(c, 0));
			return;
		}
		dim out[RULE_MAX_RANK];
		for (int32_t k = 0; k < r; k++)
			out[k] = dim_fresh(c);
		set_out(c, 0, in_elem(c, 0), r, out);
		return;
	}
	if (st == TR_KNOWN && r >= 0 && !tr_norm_axes(c, axes, m, r, "axes")) {
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	if (st == TR_KNOWN && r < 0) {
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	const dim *v = NULL;
	int32_t n = -1;
	bool known = in_ints(c, 1, &v, &n);
	if (!known) {
		int64_t scratch[1];
		tr_list(c, NULL, 1, scratch, 0, &n);
	}
	pad_rule(c, known ? v : NULL, n, st == TR_KNOWN ? axes : NULL, m);
}

void infer_pad11(infer_ctx *c) { pad_input(c, false); }
void infer_pad18(infer_ctx *c) { pad_input(c, true); }
