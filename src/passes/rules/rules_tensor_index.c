/* rules_tensor_index.c: operators that pick, join or scatter parts of tensors: Concat,
 * Split, Slice, Gather, GatherElements, GatherND, the Scatter family, NonZero,
 * Compress, Unique, OneHot and ReverseSequence, and ONNX Runtime's Crop.
 *
 * Concat, Split, Slice and Gather carry content (the steps of shape arithmetic:
 * Shape → Gather → Concat, Shape → Slice): output entries are copied from input
 * entries through an index map, so symbols travel with them.
 *
 * Invariant: an output dim is written only when certain for a valid model; the
 * data-dependent sizes (NonZero's count, Compress's and Unique's lengths, slices of
 * unknown bounds) are fresh symbols or unknown, never a guess; a model no valid run
 * can have (dims that must agree and do not, an index out of range) is reported as a
 * shape-error and leaves the output with its element type only.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_tensor.h"

#include "core/dtype.h"

#include <stdlib.h>
#include <string.h>

/* Affine index map: input index along axis k = start[k] + i * step[k]. */
typedef struct affine {
	int64_t istride[RULE_MAX_RANK];
	const int64_t *start, *step;
} affine;

static int64_t src_affine(const int64_t *idx, int32_t r, const void *ctx)
{
	const affine *a = ctx;
	int64_t f = 0;
	for (int32_t k = 0; k < r; k++)
		f += (a->start[k] + idx[k] * a->step[k]) * a->istride[k];
	return f;
}

static void row_major(const int64_t *dims, int32_t r, int64_t *stride)
{
	int64_t st = 1;
	for (int32_t k = r - 1; k >= 0; k--) {
		stride[k] = st;
		st *= dims[k] ? dims[k] : 1;
	}
}

/* Output o's content: input i's entries at start + idx * step per axis, output dims
 * odims (all known), input dims idims. */
static void affine_content(infer_ctx *c, int32_t i, int32_t o, const int64_t *idims, const int64_t *odims,
			   int32_t r, const int64_t *start, const int64_t *step)
{
	const dim *v;
	const double *f;
	int32_t nv;
	if (!in_ints(c, i, &v, &nv) && !in_floats(c, i, &f, &nv))
		return;
	int64_t n = 1;
	for (int32_t k = 0; k < r; k++)
		if (__builtin_mul_overflow(n, odims[k], &n))
			return;
	affine *a = arena_alloc(c->a, sizeof *a);
	if (!a) {
		c->m->nomem = true;
		return;
	}
	row_major(idims, r, a->istride);
	a->start = start;
	a->step = step;
	int32_t *map = tr_index_map(c, odims, r, n, src_affine, a);
	if (map)
		tr_map_content(c, i, o, map, (int32_t)n);
}

/* ---- Concat ------------------------------------------------------------------- */

/* One input of a Concat whose content is copied: its content and the length of one of
 * its rows (its dims from the axis on). */
typedef struct concat_part {
	const dim *v;
	const double *f;
	int64_t row;
} concat_part;

/* Concatenates the contents of every input along `axis` when all are known, with
 * every dim known: for each outer index, each input's row of entries in turn. */
static void concat_content(infer_ctx *c, int32_t axis, int64_t total)
{
	int32_t ni = in_count(c);
	if (total < 0 || total > TINFO_MAX_VALUES)
		return;
	int64_t dims[RULE_MAX_RANK];
	concat_part small[SCRATCH_SMALL];
	concat_part *part = ni <= SCRATCH_SMALL ? small : arena_array(c->a, (size_t)ni, sizeof *part);
	if (!part) {
		c->m->nomem = true;
		return;
	}
	int64_t outer = 1, at = 0;
	bool ints = true, floats = true;
	for (int32_t i = 0; i < ni; i++) {
		int32_t n;
		int64_t cnt = tr_known_dims(c, i, dims);
		if (cnt < 0)
			return;
		ints &= in_ints(c, i, &part[i].v, &n) && n == cnt;
		floats &= in_floats(c, i, &part[i].f, &n) && n == cnt;
		part[i].row = 1;
		for (int32_t k = axis; k < in(c, i)->rank; k++)
			part[i].row *= dims[k];
		if (i == 0)
			for (int32_t k = 0; k < axis; k++)
				outer *= dims[k];
		at += cnt;
	}
	if ((!ints && !floats) || at != total)
		return;
	if (ints) {
		dim small_out[SCRATCH_SMALL];
		dim *out = dims_room(c, small_out, (int32_t)total);
		if (!out)
			return;
		int64_t k = 0;
		for (int64_t o = 0; o < outer; o++)
			for (int32_t i = 0; i < ni; i++)
				for (int64_t j = 0; j < part[i].row; j++)
					out[k++] = part[i].v[o * part[i].row + j];
		set_out_ints(c, 0, out, (int32_t)total);
	}
	if (floats) {
		double *out = arena_array(c->a, total ? (size_t)total : 1, sizeof *out);
		if (!out) {
			c->m->nomem = true;
			return;
		}
		int64_t k = 0;
		for (int64_t o = 0; o < outer; o++)
			for (int32_t i = 0; i < ni; i++)
				for (int64_t j = 0; j < part[i].row; j++)
					out[k++] = part[i].f[o * part[i].row + j];
		set_out_floats(c, 0, out, (int32_t)total);
	}
}

static void concat_rule(infer_ctx *c, int64_t axis)
{
	int32_t ni = in_count(c), elem = 0, r = -1;
	for (int32_t i = 0; i < ni; i++) {
		int32_t ri = in_rank(c, i);
		if (!elem)
			elem = in_elem(c, i);
		if (ri < 0)
			continue;
		if (r >= 0 && ri != r) {
			tr_error(c, "input '%s' %s has rank %d, input '%s' has rank %d", in_name(c, i),
				 fmt_shape(c, in(c, i)), ri, in_name(c, 0), r);
			set_out_elem(c, 0, elem);
			return;
		}
		r = ri;
	}
	if (ni == 0) {
		tr_error(c, "no inputs");
		return;
	}
	if (r < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	int32_t a;
	if (!norm_axis(c, axis, r, false, "axis", &a)) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0; k < r; k++)
		out[k] = dim_unknown();
	dim sum = dim_known(0);
	bool all_ranked = true;
	for (int32_t i = 0; i < ni; i++) {
		const tinfo *t = in_tensor(c, i);
		if (!t || t->rank < 0) {
			all_ranked = false;
			continue;
		}
		for (int32_t k = 0; k < r; k++) {
			if (k == a)
				continue;
			dim was = dim_resolve(c->syms, out[k]);
			if (!dim_merge(c, out[k], t->dims[k], &out[k])) {
				char b1[64], b2[64];
				dim_format(b1, sizeof b1, dim_resolve(c->syms, t->dims[k]), sym_name_cb, c->syms);
				dim_format(b2, sizeof b2, was, sym_name_cb, c->syms);
				tr_error(c,
					 "input '%s' %s has %s in dimension %d where the inputs before it have %s "
					 "(only axis %d may differ)",
					 in_name(c, i), fmt_shape(c, t), b1, k, b2, a);
				set_out_elem(c, 0, elem);
				return;
			}
		}
		sum = dim_add(c, sum, t->dims[a]);
	}
	out[a] = all_ranked ? sum : dim_unknown();
	set_out(c, 0, elem, r, out);
	if (all_ranked)
		concat_content(c, a, tr_count(c, r, out));
}

void infer_concat1(infer_ctx *c) { concat_rule(c, attr_i(c, "axis", 1)); }

void infer_concat4(infer_ctx *c)
{
	if (!attr_has(c, "axis")) {
		tr_error(c, "attribute 'axis' is required");
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	concat_rule(c, attr_i(c, "axis", 0));
}

/* ---- Split -------------------------------------------------------------------- */

static void split_all_elem(infer_ctx *c, int32_t elem)
{
	for (int32_t o = 0; o < out_count(c); o++)
		set_out_elem(c, o, elem);
}

/* Output o: x's shape with `len` along axis a, and x's content from `off` on. */
static void split_out(infer_ctx *c, int32_t o, int32_t a, dim len, int64_t off)
{
	const tinfo *x = in_tensor(c, 0);
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0; k < x->rank; k++)
		out[k] = k == a ? len : x->dims[k];
	set_out(c, o, x->elem, x->rank, out);
	int64_t idims[RULE_MAX_RANK], odims[RULE_MAX_RANK], start[RULE_MAX_RANK], step[RULE_MAX_RANK];
	dim l = dim_resolve(c->syms, len);
	if (off < 0 || l.kind != DIM_KNOWN || tr_known_dims(c, 0, idims) < 0)
		return;
	for (int32_t k = 0; k < x->rank; k++) {
		odims[k] = k == a ? l.v : idims[k];
		start[k] = k == a ? off : 0;
		step[k] = 1;
	}
	affine_content(c, 0, o, idims, odims, x->rank, start, step);
}

/* Output o of a split whose sizes are not known. The sizes are >= 0 and add up to
 * the axis: an empty axis leaves every part empty, and a lone part is the whole axis;
 * otherwise each part is a size fixed at run time. */
static void split_unknown_part(infer_ctx *c, int32_t o, int32_t a)
{
	const tinfo *x = in_tensor(c, 0);
	dim d = dim_resolve(c->syms, x->dims[a]);
	if (d.kind == DIM_KNOWN && d.v == 0)
		split_out(c, o, a, d, 0);
	else if (out_count(c) == 1)
		split_out(c, o, a, x->dims[a], 0);
	else
		split_out(c, o, a, dim_fresh(c), -1);
}

/* split: sizes (st), or equal parts: `parts` of them (-1: one per output); uneven:
 * the last part may be smaller (num_outputs, from 18). */
static void split_rule(infer_ctx *c, int64_t axis, tr_list_state st, const int64_t *split, int32_t ns,
		       int64_t parts, bool uneven)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0), nout = out_count(c);
	if (r < 0) {
		split_all_elem(c, elem);
		return;
	}
	int32_t a;
	if (!norm_axis(c, axis, r, false, "axis", &a)) {
		split_all_elem(c, elem);
		return;
	}
	dim d = dim_resolve(c->syms, x->dims[a]);
	if (st == TR_KNOWN) {
		if (ns != nout) {
			tr_error(c, "split has %d sizes for %d outputs", ns, nout);
			split_all_elem(c, elem);
			return;
		}
		int64_t sum = 0;
		for (int32_t k = 0; k < ns; k++) {
			if (split[k] < 0 || __builtin_add_overflow(sum, split[k], &sum)) {
				tr_error(c, "split[%d] is %lld", k, (long long)split[k]);
				split_all_elem(c, elem);
				return;
			}
		}
		dim m;
		if (!dim_merge(c, d, dim_known(sum), &m)) {
			tr_error(c, "the split sizes add up to %lld, axis %d of '%s' %s has %lld", (long long)sum, a,
				 in_name(c, 0), fmt_shape(c, x), (long long)d.v);
			split_all_elem(c, elem);
			return;
		}
		int64_t off = 0;
		for (int32_t k = 0; k < ns; k++) {
			split_out(c, k, a, dim_known(split[k]), off);
			off += split[k];
		}
		return;
	}
	if (st == TR_UNKNOWN) {
		if (ns >= 0 && ns != nout) {
			tr_error(c, "split has %d sizes for %d outputs", ns, nout);
			split_all_elem(c, elem);
			return;
		}
		for (int32_t k = 0; k < nout; k++)
			split_unknown_part(c, k, a);
		return;
	}
	if (parts >= 0 && parts != nout) {
		tr_error(c, "num_outputs is %lld but the node has %d outputs", (long long)parts, nout);
		split_all_elem(c, elem);
		return;
	}
	if (nout < 1) {
		tr_error(c, "no outputs");
		return;
	}
	if (d.kind != DIM_KNOWN) {
		/* Equal parts: d/n, which a valid run divides exactly; num_outputs (18):
		 * parts of ceil(d/n), the last one what remains. */
		dim n = dim_known(nout);
		dim chunk = uneven ? dim_ceildiv(c, d, n) : dim_floordiv(c, d, n);
		dim last = uneven ? dim_sub(c, d, dim_mul(c, chunk, dim_known(nout - 1))) : chunk;
		for (int32_t k = 0; k < nout; k++)
			split_out(c, k, a, nout == 1 ? x->dims[a] : k == nout - 1 ? last : chunk, nout == 1 ? 0 : -1);
		return;
	}
	int64_t chunk = d.v / nout, last = chunk;
	if (d.v % nout) {
		if (!uneven) {
			tr_error(c, "axis %d of '%s' %s (%lld) does not split into %d equal parts", a, in_name(c, 0),
				 fmt_shape(c, x), (long long)d.v, nout);
			split_all_elem(c, elem);
			return;
		}
		/* Parts of ceil(d / n), the last one what remains. */
		chunk = d.v / nout + 1;
		last = d.v - chunk * (nout - 1);
		if (last < 0) {
			tr_error(c, "axis %d of '%s' %s (%lld) cannot be split into %d parts of %lld", a, in_name(c, 0),
				 fmt_shape(c, x), (long long)d.v, nout, (long long)chunk);
			split_all_elem(c, elem);
			return;
		}
	}
	for (int32_t k = 0; k < nout; k++)
		split_out(c, k, a, dim_known(k == nout - 1 ? last : chunk), k * chunk);
}

/* 1: split as attribute or second input; 2, 11: attribute; 13: input; 18: input or
 * num_outputs (the last part may then be smaller). */
void infer_split1(infer_ctx *c)
{
	int64_t s[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, "split", 1, s, RULE_MAX_RANK, &n);
	split_rule(c, attr_i(c, "axis", 0), st, s, n, -1, false);
}

void infer_split2(infer_ctx *c)
{
	int64_t s[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, "split", -1, s, RULE_MAX_RANK, &n);
	split_rule(c, attr_i(c, "axis", 0), st, s, n, -1, false);
}

void infer_split13(infer_ctx *c)
{
	int64_t s[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, NULL, 1, s, RULE_MAX_RANK, &n);
	split_rule(c, attr_i(c, "axis", 0), st, s, n, -1, false);
}

void infer_split18(infer_ctx *c)
{
	int64_t s[RULE_MAX_RANK];
	int32_t n;
	tr_list_state st = tr_list(c, NULL, 1, s, RULE_MAX_RANK, &n);
	bool has_num = attr_has(c, "num_outputs");
	if (st != TR_ABSENT && has_num) {
		tr_error(c, "both the split input and num_outputs are given");
		split_all_elem(c, in_elem(c, 0));
		return;
	}
	if (st == TR_ABSENT && !has_num) {
		tr_error(c, "neither the split input nor num_outputs is given");
		split_all_elem(c, in_elem(c, 0));
		return;
	}
	int64_t parts = attr_i(c, "num_outputs", -1);
	if (has_num && parts < 1) {
		tr_error(c, "num_outputs is %lld", (long long)parts);
		split_all_elem(c, in_elem(c, 0));
		return;
	}
	split_rule(c, attr_i(c, "axis", 0), st, s, n, parts, true);
}

/* ---- Slice -------------------------------------------------------------------- */

/* One axis of a slice with everything known: the start index (clamped) and length. */
static void slice_known(int64_t d, int64_t s, int64_t e, int64_t t, int64_t *first, int64_t *len)
{
	/* Negative indices count from the end; then starts and ends clamp to
	 * [0, d] for a positive step and to [-1, d - 1] for a negative one (d >= 0, so
	 * adding it to a negative index cannot overflow). */
	if (s < 0)
		s += d;
	if (e < 0)
		e += d;
	uint64_t diff;
	if (t > 0) {
		s = s < 0 ? 0 : s > d ? d : s;
		e = e < 0 ? 0 : e > d ? d : e;
		diff = e > s ? (uint64_t)(e - s) : 0;
	} else {
		s = s < 0 ? -1 : s > d - 1 ? d - 1 : s;
		e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
		diff = s > e ? (uint64_t)(s - e) : 0;
	}
	/* ceil(diff / |t|), with |INT64_MIN| computed without overflow. */
	uint64_t mag = t > 0 ? (uint64_t)t : (uint64_t)(-(t + 1)) + 1;
	*len = (int64_t)(diff / mag + (diff % mag != 0));
	*first = s;
}

/* An index this large is past the end of any axis: no tensor has a dimension of
 * 2^62 (exporters write INT64_MAX for "to the end"). */
#define PAST_ANY_END (INT64_C(1) << 62)

static bool dim_is_past_end(dim x) { return x.kind == DIM_KNOWN && x.v >= PAST_ANY_END; }

/* Index x of an axis of size d, counted from the end when negative and clamped to
 * [0, d] (step > 0) or [-1, d - 1] (step < 0), as an expression. */
static dim slice_clamp(infer_ctx *c, dim d, dim x, bool forward)
{
	dim hi = forward ? d : dim_sub(c, d, dim_known(1)), lo = dim_known(forward ? 0 : -1);
	if (x.kind == DIM_KNOWN) {
		if (x.v >= PAST_ANY_END)
			return hi;
		if (x.v <= -PAST_ANY_END)
			return lo;
		if (x.v < 0)
			return dim_max(c, dim_add(c, d, x), lo);
	}
	return dim_min(c, x, hi); /* a symbol is a size: >= 0 */
}

/* The length of one axis sliced from s to e by t when d, s or e is a symbol:
 * max(0, ceil((end - start)/t)) on the clamped indices. */
static dim slice_symbolic(infer_ctx *c, dim d, dim s, dim e, int64_t t)
{
	if (d.kind == DIM_UNKNOWN || s.kind == DIM_UNKNOWN || e.kind == DIM_UNKNOWN || t == INT64_MIN)
		return dim_unknown();
	/* The last k: d - Max(d - k, 0) is Min(k, d), which the algebra does not see. */
	bool to_end = dim_is_past_end(e) || (e.kind == DIM_SYMBOL && d.kind == DIM_SYMBOL && e.v == d.v);
	if (t == 1 && s.kind == DIM_KNOWN && s.v < 0 && s.v > -PAST_ANY_END && to_end)
		return dim_min(c, dim_known(-s.v), d);
	/* From k to the end: d - Min(k, d) is Max(d - k, 0). */
	if (t == 1 && s.kind == DIM_KNOWN && s.v >= 0 && s.v < PAST_ANY_END && to_end)
		return dim_max(c, dim_sub(c, d, s), dim_known(0));
	/* x[k::t] with 0 <= k < t (strided picks, box decoding's [:, k::4]): ceil((d -
	 * k)/t) when d >= k, and the same floor((d - k + t - 1)/t) is 0 when d < k (its
	 * numerator is then in [0, t - 1)): no clamp, so the picks of a length that is
	 * a multiple of t come out equal (16*L by 4 from 2: 4*L). */
	if (t > 1 && s.kind == DIM_KNOWN && s.v >= 0 && s.v < t && to_end)
		return dim_floordiv(c, dim_add(c, d, dim_known(t - 1 - s.v)), dim_known(t));
	dim sc = slice_clamp(c, d, s, t > 0), ec = slice_clamp(c, d, e, t > 0);
	dim span = t > 0 ? dim_sub(c, ec, sc) : dim_sub(c, sc, ec);
	return dim_max(c, dim_ceildiv(c, span, dim_known(t > 0 ? t : -t)), dim_known(0));
}

/* Slice with lists as dims (starts, ends: content, symbols possible) or integers. */
typedef struct slice_args {
	tr_list_state starts_st, ends_st, axes_st, steps_st;
	const dim *starts, *ends; /* NULL when not known */
	int32_t nstarts, nends, naxes, nsteps;
	int64_t *axes, *steps;
} slice_args;

static void slice_rule(infer_ctx *c, slice_args *sa)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	int32_t n = sa->nstarts >= 0 ? sa->nstarts : sa->nends;
	if (sa->nstarts >= 0 && sa->nends >= 0 && sa->nstarts != sa->nends) {
		tr_error(c, "starts has %d entries, ends %d", sa->nstarts, sa->nends);
		set_out_elem(c, 0, elem);
		return;
	}
	if (sa->axes_st != TR_ABSENT && n >= 0 && sa->naxes >= 0 && sa->naxes != n) {
		tr_error(c, "axes has %d entries, starts %d", sa->naxes, n);
		set_out_elem(c, 0, elem);
		return;
	}
	if (sa->steps_st != TR_ABSENT && n >= 0 && sa->nsteps >= 0 && sa->nsteps != n) {
		tr_error(c, "steps has %d entries, starts %d", sa->nsteps, n);
		set_out_elem(c, 0, elem);
		return;
	}
	if (r < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0; k < r; k++)
		out[k] = x->dims[k];
	/* Which axes are sliced: not known means any of them. */
	bool axes_known = sa->axes_st == TR_KNOWN || (sa->axes_st == TR_ABSENT && n >= 0);
	if (!axes_known) {
		for (int32_t k = 0; k < r; k++)
			out[k] = dim_unknown();
		set_out(c, 0, elem, r, out);
		return;
	}
	if (sa->axes_st == TR_ABSENT) {
		if (n > r) {
			tr_error(c, "%d starts for '%s' %s of rank %d", n, in_name(c, 0), fmt_shape(c, x), r);
			set_out_elem(c, 0, elem);
			return;
		}
		for (int32_t k = 0; k < n; k++)
			sa->axes[k] = k;
		sa->naxes = n;
	} else if (!tr_norm_axes(c, sa->axes, sa->naxes, r, "axes")) {
		set_out_elem(c, 0, elem);
		return;
	}
	if (sa->steps_st == TR_KNOWN) {
		for (int32_t k = 0; k < sa->naxes; k++) {
			if (sa->steps[k] == 0) {
				tr_error(c, "steps[%d] is 0", k);
				set_out_elem(c, 0, elem);
				return;
			}
		}
	}
	bool exact = sa->starts && sa->ends && sa->steps_st != TR_UNKNOWN;
	int64_t first[RULE_MAX_RANK], step[RULE_MAX_RANK], odims[RULE_MAX_RANK], idims[RULE_MAX_RANK];
	for (int32_t k = 0; k < r; k++) {
		first[k] = 0;
		step[k] = 1;
	}
	for (int32_t i = 0; i < sa->naxes; i++) {
		int32_t a = (int32_t)sa->axes[i];
		int64_t t = sa->steps_st == TR_KNOWN ? sa->steps[i] : 1;
		dim d = dim_resolve(c->syms, x->dims[a]);
		if (sa->steps_st == TR_UNKNOWN || !sa->starts || !sa->ends) {
			out[a] = dim_unknown();
			continue;
		}
		dim s = dim_resolve(c->syms, sa->starts[i]), e = dim_resolve(c->syms, sa->ends[i]);
		step[a] = t;
		if (d.kind == DIM_KNOWN && s.kind == DIM_KNOWN && e.kind == DIM_KNOWN) {
			int64_t len;
			slice_known(d.v, s.v, e.v, t, &first[a], &len);
			out[a] = dim_known(len);
		} else {
			out[a] = slice_symbolic(c, d, s, e, t);
			exact = false;
		}
	}
	set_out(c, 0, elem, r, out);
	if (!exact || tr_known_dims(c, 0, idims) < 0)
		return;
	for (int32_t k = 0; k < r; k++)
		odims[k] = dim_resolve(c->syms, out[k]).v;
	affine_content(c, 0, 0, idims, odims, r, first, step);
}

/* Reads list `which` (attribute or input) as dims into *v: known integers (attribute)
 * or content (input, symbols kept). */
static tr_list_state dims_list(infer_ctx *c, const char *attr_name, int32_t input, const dim **v, int32_t *n)
{
	*v = NULL;
	*n = -1;
	const attr_view *a = attr_name ? attr(c, attr_name) : NULL;
	if (a) {
		if (a->type != AT_INTS || a->n < 0 || a->n > RULE_MAX_RANK)
			return TR_UNKNOWN;
		dim *d = dims_alloc(c, a->n);
		if (!d)
			return TR_UNKNOWN;
		for (int32_t k = 0; k < a->n; k++)
			d[k] = dim_known(a->ints[k]);
		*v = d;
		*n = a->n;
		return TR_KNOWN;
	}
	if (input < 0 || !in(c, input))
		return TR_ABSENT;
	if (in_ints(c, input, v, n))
		return TR_KNOWN;
	int64_t scratch[1];
	tr_list(c, NULL, input, scratch, 0, n);
	return TR_UNKNOWN;
}

static void slice_common(infer_ctx *c, bool inputs)
{
	int64_t axes[RULE_MAX_RANK], steps[RULE_MAX_RANK];
	slice_args sa = {.axes = axes, .steps = steps};
	sa.starts_st = dims_list(c, inputs ? NULL : "starts", inputs ? 1 : -1, &sa.starts, &sa.nstarts);
	sa.ends_st = dims_list(c, inputs ? NULL : "ends", inputs ? 2 : -1, &sa.ends, &sa.nends);
	sa.axes_st = tr_list(c, inputs ? NULL : "axes", inputs ? 3 : -1, axes, RULE_MAX_RANK, &sa.naxes);
	sa.steps_st = inputs ? tr_list(c, NULL, 4, steps, RULE_MAX_RANK, &sa.nsteps) : TR_ABSENT;
	if (sa.starts_st == TR_ABSENT || sa.ends_st == TR_ABSENT) {
		tr_error(c, "starts and ends are required");
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	slice_rule(c, &sa);
}

void infer_slice1(infer_ctx *c) { slice_common(c, false); }
void infer_slice10(infer_ctx *c) { slice_common(c, true); }

/* Crop, an experimental operator of ONNX's first opsets that ONNX Runtime still runs
 * up to opset 9: an NCHW tensor cut by border (left, top, right, bottom) or, with
 * scale (height, width), to that size from its left and top borders. */
void infer_crop(infer_ctx *c)
{
	const tinfo *x = in_ranked(c, 0);
	const int64_t *border, *scale;
	int32_t nb = 0, ns = 0;
	if (!attr_ints(c, "border", &border, &nb) || nb != 4) {
		tr_error(c, "Crop needs border, four values (left, top, right, bottom)");
		return;
	}
	bool scaled = attr_ints(c, "scale", &scale, &ns);
	if (scaled && ns != 2) {
		tr_error(c, "Crop's scale has %d values, not two (height, width)", ns);
		return;
	}
	if (!x) {
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	if (x->rank != 4) {
		tr_error(c, "Crop takes an NCHW tensor of rank 4, '%s' has rank %d", in_name(c, 0), x->rank);
		return;
	}
	dim d[4] = {x->dims[0], x->dims[1], dim_unknown(), dim_unknown()};
	for (int32_t k = 0; k < 2; k++) {
		dim size = dim_resolve(c->syms, x->dims[2 + k]);
		int64_t lead = border[1 - k], trail = border[3 - k];
		int64_t want = scaled ? scale[k] : 0;
		if (lead < 0 || trail < 0 || want < 0) {
			tr_error(c, "Crop's border and scale must not be negative");
			return;
		}
		if (size.kind == DIM_KNOWN && (scaled ? lead + want > size.v : lead + trail >= size.v)) {
			tr_error(c, "Crop cuts more than the %s (%lld) of '%s' holds", k ? "width" : "height",
				 (long long)size.v, in_name(c, 0));
			return;
		}
		d[2 + k] = scaled ? dim_known(want) : dim_sub(c, dim_sub(c, x->dims[2 + k], dim_known(lead)), dim_known(trail));
	}
	set_out(c, 0, x->elem, 4, d);
}

/* ---- Gather ------------------------------------------------------------------- */

/* out = data[:axis] + indices.shape + data[axis+1:]. */
void infer_gather(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *ix = in_tensor(c, 1);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0), q = in_rank(c, 1);
	if (r == 0) {
		tr_error(c, "data '%s' is a scalar, it must have rank >= 1", in_name(c, 0));
		set_out_elem(c, 0, elem);
		return;
	}
	int32_t a = 0;
	if (r > 0 && !norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &a)) {
		set_out_elem(c, 0, elem);
		return;
	}
	/* Known indices must lie in [-d, d - 1]. */
	const dim *iv = NULL;
	int32_t ni = 0;
	bool have_ix = in_ints(c, 1, &iv, &ni);
	dim d = r > 0 ? dim_resolve(c->syms, x->dims[a]) : dim_unknown();
	int64_t small_idx[SCRATCH_SMALL];
	int64_t *idx = !have_ix ? NULL : ni <= SCRATCH_SMALL ? small_idx : arena_array(c->a, (size_t)ni, sizeof *idx);
	bool idx_known = idx != NULL;
	for (int32_t k = 0; have_ix && k < ni; k++) {
		dim v = dim_resolve(c->syms, iv[k]);
		if (v.kind != DIM_KNOWN) {
			idx_known = false;
			continue;
		}
		if (d.kind == DIM_KNOWN && (v.v < -d.v || v.v >= d.v)) {
			tr_error(c, "index %lld (indices '%s'[%d]) is out of range for axis %d of '%s' %s",
				 (long long)v.v, in_name(c, 1), k, a, in_name(c, 0), fmt_shape(c, x));
			set_out_elem(c, 0, elem);
			return;
		}
		if (idx)
			idx[k] = v.v < 0 && d.kind == DIM_KNOWN ? v.v + d.v : v.v;
		if (v.v < 0 && d.kind != DIM_KNOWN)
			idx_known = false;
	}
	if (r < 0 || q < 0 || r - 1 + q > RULE_MAX_RANK) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	int32_t o = 0;
	for (int32_t k = 0; k < a; k++)
		out[o++] = x->dims[k];
	for (int32_t k = 0; k < q; k++)
		out[o++] = ix->dims[k];
	for (int32_t k = a + 1; k < r; k++)
		out[o++] = x->dims[k];
	set_out(c, 0, elem, o, out);
	/* Content: each output entry copies data[outer, idx[j], inner]. */
	int64_t idims[RULE_MAX_RANK];
	if (!idx_known || tr_known_dims(c, 0, idims) < 0)
		return;
	int64_t n = tr_count(c, o, out);
	if (n < 0 || n > TINFO_MAX_VALUES || n == 0 || ni == 0)
		return;
	int64_t inner = 1;
	for (int32_t k = a + 1; k < r; k++)
		inner *= idims[k];
	int32_t small_map[SCRATCH_SMALL];
	int32_t *map = n <= SCRATCH_SMALL ? small_map : arena_array(c->a, (size_t)n, sizeof *map);
	if (!map) {
		c->m->nomem = true;
		return;
	}
	int64_t outer = n / ni / (inner ? inner : 1);
	int32_t m = 0;
	for (int64_t u = 0; u < outer; u++)
		for (int32_t j = 0; j < ni; j++)
			for (int64_t w = 0; w < inner; w++)
				map[m++] = (int32_t)((u * idims[a] + idx[j]) * inner + w);
	if (m == n)
		tr_map_content(c, 0, 0, map, m);
}

/* Output of the indices' shape, data's element type; both of the same rank. */
void infer_gather_elements(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *ix = in_tensor(c, 1);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0), q = in_rank(c, 1);
	if (r >= 0 && q >= 0 && r != q) {
		tr_error(c, "indices '%s' %s and data '%s' %s differ in rank", in_name(c, 1), fmt_shape(c, ix),
			 in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	int32_t a;
	if (r >= 0 && !norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &a)) {
		set_out_elem(c, 0, elem);
		return;
	}
	tr_same_shape(c, 0, ix, elem);
}

/* out = indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:]. */
void infer_gather_nd(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *ix = in_tensor(c, 1);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0), q = in_rank(c, 1);
	int64_t b = attr_i(c, "batch_dims", 0);
	if (r < 0 || q < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	if (r < 1 || q < 1 || b < 0 || b >= (q < r ? q : r)) {
		tr_error(c, "data '%s' %s and indices '%s' %s must have rank >= 1 and more dims than batch_dims %lld",
			 in_name(c, 0), fmt_shape(c, x), in_name(c, 1), fmt_shape(c, ix), (long long)b);
		set_out_elem(c, 0, elem);
		return;
	}
	for (int32_t k = 0; k < b; k++) {
		dim m;
		if (!dim_merge(c, x->dims[k], ix->dims[k], &m)) {
			tr_error(c, "batch dimension %d differs: data '%s' %s, indices '%s' %s", k, in_name(c, 0),
				 fmt_shape(c, x), in_name(c, 1), fmt_shape(c, ix));
			set_out_elem(c, 0, elem);
			return;
		}
	}
	dim last = dim_resolve(c->syms, ix->dims[q - 1]);
	if (last.kind != DIM_KNOWN) {
		set_out_elem(c, 0, elem);
		return;
	}
	if (last.v < 1 || last.v > r - b) {
		tr_error(c, "indices '%s' %s index %lld dims, data '%s' %s has %lld after the batch dims",
			 in_name(c, 1), fmt_shape(c, ix), (long long)last.v, in_name(c, 0), fmt_shape(c, x),
			 (long long)(r - b));
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[2 * RULE_MAX_RANK];
	int32_t o = 0;
	for (int32_t k = 0; k < q - 1; k++)
		out[o++] = ix->dims[k];
	for (int64_t k = b + last.v; k < r; k++)
		out[o++] = x->dims[k];
	set_out(c, 0, elem, o, out);
}

/* ---- Scatter ------------------------------------------------------------------ */

/* ScatterElements (and Scatter): output = data; indices and updates share a shape of
 * data's rank. */
void infer_scatter_elements(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *ix = in_tensor(c, 1), *up = in_tensor(c, 2);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0), q = in_rank(c, 1), u = in_rank(c, 2);
	if ((r >= 0 && q >= 0 && r != q) || (q >= 0 && u >= 0 && q != u)) {
		tr_error(c, "data '%s' %s, indices '%s' %s and updates '%s' %s must have one rank", in_name(c, 0),
			 fmt_shape(c, x), in_name(c, 1), fmt_shape(c, ix), in_name(c, 2), fmt_shape(c, up));
		set_out_elem(c, 0, elem);
		return;
	}
	for (int32_t k = 0; q >= 0 && u >= 0 && k < q; k++) {
		dim m;
		if (!dim_merge(c, ix->dims[k], up->dims[k], &m)) {
			tr_error(c, "indices '%s' %s and updates '%s' %s differ in shape", in_name(c, 1),
				 fmt_shape(c, ix), in_name(c, 2), fmt_shape(c, up));
			set_out_elem(c, 0, elem);
			return;
		}
	}
	int32_t a;
	if (r >= 0 && !norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &a)) {
		set_out_elem(c, 0, elem);
		return;
	}
	tr_same_shape(c, 0, x, elem);
}

/* ScatterND: output = data; updates = indices.shape[:-1] + data.shape[indices.shape[-1]:]. */
void infer_scatter_nd(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *ix = in_tensor(c, 1), *up = in_tensor(c, 2);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0), q = in_rank(c, 1), u = in_rank(c, 2);
	if (r >= 0 && q >= 1 && u >= 0) {
		dim last = dim_resolve(c->syms, ix->dims[q - 1]);
		bool bad = last.kind == DIM_KNOWN && (last.v > r || u != q - 1 + r - last.v);
		for (int32_t k = 0; !bad && last.kind == DIM_KNOWN && k < u; k++) {
			dim want = k < q - 1 ? ix->dims[k] : x->dims[last.v + k - (q - 1)], m;
			bad = !dim_merge(c, up->dims[k], want, &m);
		}
		if (bad) {
			tr_error(c,
				 "updates '%s' %s must be indices.shape[:-1] + data.shape[indices.shape[-1]:] for "
				 "indices '%s' %s and data '%s' %s",
				 in_name(c, 2), fmt_shape(c, up), in_name(c, 1), fmt_shape(c, ix), in_name(c, 0),
				 fmt_shape(c, x));
			set_out_elem(c, 0, elem);
			return;
		}
	}
	tr_same_shape(c, 0, x, elem);
}

/* ---- data-dependent sizes ----------------------------------------------------- */

/* The nonzero entries of input i's content, when every entry is known: their count,
 * and which ones (*flags, n entries, in the arena). */
static bool nonzero_content(infer_ctx *c, int32_t i, bool **flags, int32_t *n, int32_t *count)
{
	const dim *v;
	const double *f;
	bool ints = in_ints(c, i, &v, n);
	if (!ints && !in_floats(c, i, &f, n))
		return false;
	bool *fl = arena_array(c->a, *n > 0 ? (size_t)*n : 1, sizeof *fl);
	if (!fl) {
		c->m->nomem = true;
		return false;
	}
	*count = 0;
	for (int32_t k = 0; k < *n; k++) {
		if (ints) {
			dim d = dim_resolve(c->syms, v[k]);
			/* A symbol is a size, possibly 0. */
			if (d.kind != DIM_KNOWN)
				return false;
			fl[k] = d.v != 0;
		} else {
			fl[k] = f[k] != 0;
		}
		*count += fl[k];
	}
	*flags = fl;
	return true;
}

/* (rank(X), number of nonzero entries); the coordinates as content when X is known. */
void infer_nonzero(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t r = in_rank(c, 0);
	/* For a scalar the spec's rank(X) rows and numpy's (1, n) disagree: leave it. */
	dim out[2] = {r > 0 ? dim_known(r) : dim_unknown(), dim_unknown()};
	bool *flags = NULL;
	int32_t nv, count;
	int64_t idims[RULE_MAX_RANK];
	int64_t total = x ? tr_count(c, x->rank, x->dims) : -1;
	if (r >= 0 && nonzero_content(c, 0, &flags, &nv, &count) && (total < 0 || total == nv)) {
		out[1] = dim_known(count);
	} else {
		count = -1;
		out[1] = total == 0 ? dim_known(0) : dim_fresh_same(c);
	}
	set_out(c, 0, DT_INT64, 2, out);
	if (count < 0 || r <= 0 || tr_known_dims(c, 0, idims) < 0 || (int64_t)r * count > TINFO_MAX_VALUES)
		return;
	dim *v = dims_alloc(c, r * count);
	if (!v)
		return;
	int32_t j = 0;
	for (int32_t k = 0; k < nv; k++) {
		if (!flags[k])
			continue;
		int64_t rest = k;
		for (int32_t a = r - 1; a >= 0; a--) {
			v[a * count + j] = dim_known(rest % idims[a]);
			rest /= idims[a];
		}
		j++;
	}
	set_out_ints(c, 0, v, r * count);
}

/* Selected along axis (or from the flattened input): the count of true conditions
 * among the first min(len(condition), size) when known, else a fresh size. */
void infer_compress(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *cond = in_tensor(c, 1);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	if (cond && cond->rank >= 0 && cond->rank != 1) {
		tr_error(c, "condition '%s' %s must be 1-D", in_name(c, 1), fmt_shape(c, cond));
		set_out_elem(c, 0, elem);
		return;
	}
	bool has_axis = attr_has(c, "axis");
	int32_t a = -1;
	if (has_axis && (r < 0 || !norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &a))) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim size = has_axis ? dim_resolve(c->syms, x->dims[a]) : dim_unknown();
	if (!has_axis && x) {
		int64_t t = tr_count(c, x->rank, x->dims);
		size = t >= 0 ? dim_known(t) : dim_unknown();
	}
	bool *flags = NULL;
	int32_t nv, count;
	dim len;
	if (size.kind == DIM_KNOWN && nonzero_content(c, 1, &flags, &nv, &count)) {
		count = 0;
		for (int32_t k = 0; k < nv && k < size.v; k++)
			count += flags[k];
		len = dim_known(count);
	} else {
		len = dim_is(size, 0) ? dim_known(0) : dim_fresh_same(c);
	}
	if (!has_axis) {
		set_out(c, 0, elem, 1, &len);
		return;
	}
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0; k < r; k++)
		out[k] = k == a ? len : x->dims[k];
	set_out(c, 0, elem, r, out);
}

/* The known content of input i, n elements, as exact numbers: integers when every
 * entry is a known integer, else doubles. False when the content is not known, or
 * holds a NaN (whether NaNs are equal to each other differs between runtimes). */
typedef struct content {
	const int64_t *i; /* or NULL */
	const double *f;  /* when i is NULL */
} content;

static bool known_content(infer_ctx *c, int32_t i, int64_t n, content *out)
{
	const dim *v;
	const double *f;
	int32_t nv;
	if (in_ints(c, i, &v, &nv) && nv == n) {
		int64_t *s = arena_array(c->a, nv ? (size_t)nv : 1, sizeof *s);
		bool ok = s != NULL;
		for (int32_t k = 0; ok && k < nv; k++) {
			dim d = dim_resolve(c->syms, v[k]);
			ok = d.kind == DIM_KNOWN;
			s[k] = d.v;
		}
		if (ok) {
			*out = (content){s, NULL};
			return true;
		}
	}
	if (in_floats(c, i, &f, &nv) && nv == n) {
		for (int32_t k = 0; k < nv; k++)
			if (f[k] != f[k])
				return false;
		*out = (content){NULL, f};
		return true;
	}
	return false;
}

static bool content_eq(const content *x, int64_t a, int64_t b)
{
	return x->i ? x->i[a] == x->i[b] : x->f[a] == x->f[b];
}

/* Number of distinct slices x[..., k, ...] (k along the axis of length len, with
 * `outer` elements before it and `inner` after, row-major); with the whole tensor
 * flattened, outer = inner = 1. Each slice is compared with the distinct ones found
 * so far: at most TINFO_MAX_VALUES elements, so at most a few million comparisons. */
static int64_t distinct_slices(infer_ctx *c, const content *x, int64_t outer, int64_t len, int64_t inner)
{
	int64_t *reps = arena_array(c->a, len ? (size_t)len : 1, sizeof *reps);
	if (!reps)
		return -1;
	int64_t nrep = 0;
	for (int64_t k = 0; k < len; k++) {
		bool seen = false;
		for (int64_t r = 0; r < nrep && !seen; r++) {
			bool same = true;
			for (int64_t o = 0; o < outer && same; o++)
				for (int64_t j = 0; j < inner && same; j++)
					same = content_eq(x, (o * len + k) * inner + j, (o * len + reps[r]) * inner + j);
			seen = same;
		}
		if (!seen)
			reps[nrep++] = k;
	}
	return nrep;
}

/* Y: the unique values (flattened) or slices (along axis): u of them, a size fixed at
 * run time unless the content is known; indices and counts (u,); inverse_indices one
 * per input element (flattened) or slice. */
void infer_unique(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	bool has_axis = attr_has(c, "axis");
	int32_t a = -1;
	if (has_axis && r >= 0 && !norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &a)) {
		for (int32_t o = 0; o < out_count(c); o++)
			set_out_elem(c, o, o == 0 ? elem : DT_INT64);
		return;
	}
	dim total = dim_unknown();
	if (r >= 0) {
		total = dim_known(1);
		for (int32_t k = 0; k < r; k++)
			total = dim_mul(c, total, x->dims[k]);
	}
	dim u = dim_is(total, 0) ? dim_known(0) : dim_unknown();
	content xv;
	if (u.kind == DIM_UNKNOWN && total.kind == DIM_KNOWN && total.v <= TINFO_MAX_VALUES &&
	    known_content(c, 0, total.v, &xv)) {
		/* Known content (an initializer, a Constant, --input-data): count. */
		int64_t outer = 1, len = total.v, inner = 1;
		bool dims_known = true;
		if (has_axis) {
			len = 1;
			for (int32_t k = 0; k < r; k++) {
				dim d = dim_resolve(c->syms, x->dims[k]);
				dims_known &= d.kind == DIM_KNOWN;
				if (d.kind == DIM_KNOWN) /* each <= total <= TINFO_MAX_VALUES */
					*(k < a ? &outer : k == a ? &len : &inner) *= d.v;
			}
		}
		int64_t n = dims_known ? distinct_slices(c, &xv, outer, len, inner) : -1;
		if (n >= 0)
			u = dim_known(n);
	}
	if (u.kind == DIM_UNKNOWN)
		u = dim_fresh_same(c);
	if (!has_axis) {
		set_out(c, 0, elem, 1, &u);
		set_out(c, 2, DT_INT64, 1, &total);
	} else if (r >= 0) {
		dim out[RULE_MAX_RANK];
		for (int32_t k = 0; k < r; k++)
			out[k] = k == a ? u : x->dims[k];
		set_out(c, 0, elem, r, out);
		set_out(c, 2, DT_INT64, 1, &x->dims[a]);
	} else {
		set_out_elem(c, 0, elem);
		dim unk = dim_unknown();
		set_out(c, 2, DT_INT64, 1, &unk);
	}
	set_out(c, 1, DT_INT64, 1, &u);
	set_out(c, 3, DT_INT64, 1, &u);
}

/* ---- OneHot, ReverseSequence -------------------------------------------------- */

/* indices' shape with depth inserted at axis (in [-r-1, r]); values' element type. */
void infer_onehot(infer_ctx *c)
{
	const tinfo *ix = in_tensor(c, 0), *depth_t = in_tensor(c, 1), *vals = in_tensor(c, 2);
	int32_t elem = in_elem(c, 2), q = in_rank(c, 0);
	if (vals && vals->rank >= 0 && (vals->rank != 1 || (dim_resolve(c->syms, vals->dims[0]).kind == DIM_KNOWN &&
							   !dim_is(dim_resolve(c->syms, vals->dims[0]), 2)))) {
		tr_error(c, "values '%s' %s must hold [off_value, on_value]", in_name(c, 2), fmt_shape(c, vals));
		set_out_elem(c, 0, elem);
		return;
	}
	if (depth_t && depth_t->rank > 1) {
		tr_error(c, "depth '%s' %s must be a scalar or hold one element", in_name(c, 1), fmt_shape(c, depth_t));
		set_out_elem(c, 0, elem);
		return;
	}
	dim depth;
	const double *f;
	int32_t nf;
	if (in_int1(c, 1, &depth) && depth.kind != DIM_UNKNOWN) {
		/* kept: an integer depth, or a symbol */
	} else if (in_floats(c, 1, &f, &nf) && nf == 1 && f[0] > -9.2e18 && f[0] < 9.2e18) {
		depth = dim_known((int64_t)f[0]); /* non-integer depths are cast to int64 */
	} else {
		depth = dim_fresh(c);
	}
	if (depth.kind == DIM_KNOWN && depth.v < 0) {
		tr_error(c, "depth is %lld", (long long)depth.v);
		set_out_elem(c, 0, elem);
		return;
	}
	if (q < 0 || q + 1 > RULE_MAX_RANK) {
		set_out_elem(c, 0, elem);
		return;
	}
	int32_t a;
	if (!norm_axis(c, attr_i(c, "axis", -1), q, true, "axis", &a)) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	for (int32_t k = 0, j = 0; k <= q; k++)
		out[k] = k == a ? depth : ix->dims[j++];
	set_out(c, 0, elem, q + 1, out);
}

void infer_reverse_sequence(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *lens = in_tensor(c, 1);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	int64_t batch = attr_i(c, "batch_axis", 1), time = attr_i(c, "time_axis", 0);
	/* ONNX Runtime refuses an axis of 2 or more, or the two equal; it runs time-major
	 * for time_axis 0, else batch-major, whatever a negative axis says. */
	if (batch >= 2 || time >= 2 || batch == time) {
		tr_error(c, "batch_axis %lld and time_axis %lld must be 0 and 1", (long long)batch, (long long)time);
		set_out_elem(c, 0, elem);
		return;
	}
	if (batch < 0 || time < 0) {
		infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
			   "batch_axis %lld and time_axis %lld: the spec wants 0 and 1; ONNX Runtime runs it %s-major",
			   (long long)batch, (long long)time, time == 0 ? "time" : "batch");
		batch = time == 0 ? 1 : 0;
	}
	if (r >= 0 && r < 2) {
		tr_error(c, "input '%s' %s must have rank >= 2", in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	if (lens && lens->rank >= 0) {
		dim m;
		if (lens->rank != 1 || (r >= 2 && !dim_merge(c, lens->dims[0], x->dims[batch], &m))) {
			tr_error(c, "sequence_lens '%s' %s must be 1-D of the batch size of '%s' %s", in_name(c, 1),
				 fmt_shape(c, lens), in_name(c, 0), fmt_shape(c, x));
			set_out_elem(c, 0, elem);
			return;
		}
	}
	tr_same_shape(c, 0, x, elem);
}
