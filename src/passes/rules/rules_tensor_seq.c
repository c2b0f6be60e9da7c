/* rules_tensor_seq.c: sequences and optionals: SequenceConstruct, SequenceEmpty,
 * SequenceAt, SequenceLength, SequenceInsert, SequenceErase, ConcatFromSequence,
 * SplitToSequence, Optional, OptionalHasElement and OptionalGetElement.
 *
 * A sequence's tinfo describes its elements (tinfo.h): their element type, and the
 * shape they all share, dim by dim where they agree (a dim where they may differ is
 * unknown; ranks that differ leave the rank unknown). An optional describes the value
 * it may hold, one level deep: an optional sequence knows it holds a sequence, not the
 * sequence's elements.
 *
 * Invariant: element descriptions only get less precise when sequences meet (a join),
 * so whatever is written holds for every element; content is never carried.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_tensor.h"

#include "core/dtype.h"

#include <stdio.h>

/* A sequence of tensors described by t's element type and shape (content dropped). */
static tinfo seq_of(const tinfo *t)
{
	tinfo s = tinfo_unknown();
	s.kind = TK_SEQUENCE;
	s.inner = TK_TENSOR;
	if (t) {
		s.elem = t->elem;
		s.rank = t->rank;
		s.dims = t->dims;
	}
	return s;
}

/* The element description shared by a and b (both sequences' element views, or
 * tensors): equal dims kept, others unknown, different ranks: rank unknown. Reports
 * different element types, naming t as `what` with input i's name for its %s (formatted
 * only then), and returns false. */
static bool join(infer_ctx *c, tinfo *acc, const tinfo *t, const char *what_fmt, int32_t i)
{
	if (acc->elem && t->elem && acc->elem != t->elem) {
		char what[96];
		snprintf(what, sizeof what, what_fmt, in_name(c, i));
		tr_error(c, "%s has element type %s, the sequence holds %s", what, dtype_name(t->elem),
			 dtype_name(acc->elem));
		return false;
	}
	if (!acc->elem)
		acc->elem = t->elem;
	if (acc->rank < 0 || t->rank < 0 || acc->rank != t->rank) {
		acc->rank = RANK_UNKNOWN;
		acc->dims = NULL;
		return true;
	}
	dim *d = dims_alloc(c, acc->rank);
	if (!d)
		return false;
	for (int32_t k = 0; k < acc->rank; k++) {
		dim a = dim_resolve(c->syms, acc->dims[k]), b = dim_resolve(c->syms, t->dims[k]);
		d[k] = dim_eq(a, b) ? a : dim_unknown();
	}
	acc->dims = d;
	return true;
}

/* Input i when it is a sequence of tensors (or of unknown elements), else NULL;
 * reports a known value of another kind. */
static const tinfo *seq_in(infer_ctx *c, int32_t i)
{
	const tinfo *t = in(c, i);
	if (!t || t->kind == TK_UNKNOWN)
		return NULL;
	if (t->kind != TK_SEQUENCE) {
		tr_error(c, "input '%s' must be a sequence", in_name(c, i));
		return NULL;
	}
	return t->inner == TK_TENSOR || t->inner == TK_UNKNOWN ? t : NULL;
}

static void set_seq(infer_ctx *c, int32_t o, const tinfo *elem_view)
{
	tinfo s = seq_of(elem_view);
	set_out_info(c, o, &s);
}

void infer_sequence_construct(infer_ctx *c)
{
	tinfo acc = tinfo_unknown();
	for (int32_t i = 0; i < in_count(c); i++) {
		const tinfo *t = in_tensor(c, i);
		tinfo u = tinfo_unknown();
		if (!t)
			t = &u;
		if (i == 0) {
			acc = *t;
			continue;
		}
		if (!join(c, &acc, t, "input '%s'", i)) {
			set_seq(c, 0, NULL);
			return;
		}
	}
	set_seq(c, 0, &acc);
}

void infer_sequence_empty(infer_ctx *c)
{
	int64_t dt = attr_i(c, "dtype", DT_FLOAT);
	tinfo t = tinfo_unknown();
	if (!dtype_valid(dt))
		tr_error(c, "dtype %lld is not a tensor element type", (long long)dt);
	else
		t.elem = (int32_t)dt;
	/* No element yet: their shape is whatever is inserted later. */
	set_seq(c, 0, &t);
}

/* The tensor at a position: any element, so what all elements share. */
void infer_sequence_at(infer_ctx *c)
{
	const tinfo *s = seq_in(c, 0);
	if (!s)
		return;
	set_out(c, 0, s->elem, s->rank, s->dims);
}

void infer_sequence_length(infer_ctx *c) { set_out(c, 0, DT_INT64, 0, NULL); }

void infer_sequence_insert(infer_ctx *c)
{
	const tinfo *s = seq_in(c, 0), *t = in_tensor(c, 1);
	if (!s) {
		set_seq(c, 0, NULL);
		return;
	}
	tinfo acc = *s, u = tinfo_unknown();
	if (!join(c, &acc, t ? t : &u, "tensor '%s'", 1)) {
		set_seq(c, 0, NULL);
		return;
	}
	set_seq(c, 0, &acc);
}

void infer_sequence_erase(infer_ctx *c)
{
	const tinfo *s = seq_in(c, 0);
	set_seq(c, 0, s);
}

/* The elements joined along axis (their count, a size fixed at run time) or stacked
 * on a new axis (new_axis = 1). */
void infer_concat_from_sequence(infer_ctx *c)
{
	const tinfo *s = seq_in(c, 0);
	int32_t elem = s ? s->elem : 0;
	if (!attr_has(c, "axis")) {
		tr_error(c, "attribute 'axis' is required");
		set_out_elem(c, 0, elem);
		return;
	}
	bool stack = attr_i(c, "new_axis", 0) != 0;
	if (!s || s->rank < 0 || s->rank >= RULE_MAX_RANK) {
		set_out_elem(c, 0, elem);
		return;
	}
	int32_t r = s->rank, a;
	if (!norm_axis(c, attr_i(c, "axis", 0), r, stack, "axis", &a)) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim out[RULE_MAX_RANK];
	int32_t o = 0;
	for (int32_t k = 0; k < r; k++) {
		if (k == a && stack)
			out[o++] = dim_fresh(c);
		out[o] = s->dims[k];
		if (k == a && !stack)
			out[o] = dim_is(dim_resolve(c->syms, s->dims[k]), 0) ? dim_known(0) : dim_fresh(c);
		o++;
	}
	if (stack && a == r)
		out[o++] = dim_fresh(c);
	set_out(c, 0, elem, o, out);
}

/* Elements of the input's shape with the axis dim: 1 (or removed, keepdims = 0)
 * without split; the common size of the parts when they all have one. */
void infer_split_to_sequence(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *sp = in_tensor(c, 1);
	int32_t r = in_rank(c, 0);
	tinfo e = tinfo_unknown();
	e.elem = in_elem(c, 0);
	if (r < 0) {
		set_seq(c, 0, &e);
		return;
	}
	int32_t a;
	if (!norm_axis(c, attr_i(c, "axis", 0), r, false, "axis", &a)) {
		set_seq(c, 0, &e);
		return;
	}
	dim d = dim_resolve(c->syms, x->dims[a]), part = dim_unknown();
	bool keep = true;
	if (!sp) {
		part = dim_known(1);
		keep = attr_i(c, "keepdims", 1) != 0;
	} else if (sp->rank == 0) {
		dim s;
		if (in_int1(c, 1, &s) && s.kind == DIM_KNOWN) {
			if (s.v <= 0) {
				tr_error(c, "split is %lld, must be > 0", (long long)s.v);
				set_seq(c, 0, &e);
				return;
			}
			/* Parts of s, the last one smaller unless s divides the axis. */
			if (d.kind == DIM_KNOWN && (d.v % s.v == 0 || d.v < s.v))
				part = d.v < s.v ? d : s;
		}
	} else {
		int64_t v[RULE_MAX_RANK];
		int32_t n;
		if (tr_list(c, NULL, 1, v, RULE_MAX_RANK, &n) == TR_KNOWN) {
			int64_t sum = 0;
			bool same = n > 0;
			for (int32_t k = 0; k < n; k++) {
				if (v[k] < 0 || __builtin_add_overflow(sum, v[k], &sum)) {
					tr_error(c, "split[%d] is %lld", k, (long long)v[k]);
					set_seq(c, 0, &e);
					return;
				}
				same &= v[k] == v[0];
			}
			dim m;
			if (!dim_merge(c, d, dim_known(sum), &m)) {
				tr_error(c, "the split sizes add up to %lld, axis %d of '%s' %s has %lld",
					 (long long)sum, a, in_name(c, 0), fmt_shape(c, x), (long long)d.v);
				set_seq(c, 0, &e);
				return;
			}
			if (same)
				part = dim_known(v[0]);
		}
	}
	dim *out = dims_alloc(c, r);
	if (!out)
		return;
	int32_t o = 0;
	for (int32_t k = 0; k < r; k++) {
		if (k == a && !keep)
			continue;
		out[o++] = k == a ? part : x->dims[k];
	}
	e.rank = o;
	e.dims = out;
	set_seq(c, 0, &e);
}

/* ---- optionals ---------------------------------------------------------------- */

/* An optional holding a value described by t (one level: a sequence's elements are
 * not described inside an optional). */
static void set_optional(infer_ctx *c, const tinfo *t)
{
	tinfo o = tinfo_unknown();
	o.kind = TK_OPTIONAL;
	o.inner = t->kind;
	if (t->kind == TK_TENSOR) {
		o.elem = t->elem;
		o.rank = t->rank;
		o.dims = t->dims;
	}
	set_out_info(c, 0, &o);
}

void infer_optional(infer_ctx *c)
{
	const tinfo *t = in(c, 0);
	if (t) {
		if (t->kind != TK_UNKNOWN)
			set_optional(c, t);
		return;
	}
	const attr_view *a = attr(c, "type");
	if (!a || a->type != AT_TYPE_PROTO) {
		tr_error(c, "without an input, attribute 'type' is required");
		return;
	}
	set_optional(c, a->tp);
}

void infer_optional_has_element(infer_ctx *c) { set_out(c, 0, DT_BOOL, 0, NULL); }

/* The value an optional holds; from 18 a tensor or sequence passes as it is. */
static void get_element(infer_ctx *c, bool plain_ok)
{
	const tinfo *t = in(c, 0);
	if (!t || t->kind == TK_UNKNOWN)
		return;
	if (t->kind != TK_OPTIONAL) {
		if (!plain_ok) {
			tr_error(c, "input '%s' must be an optional", in_name(c, 0));
			return;
		}
		tinfo same = *t;
		set_out_info(c, 0, &same);
		return;
	}
	tinfo v = tinfo_unknown();
	v.kind = t->inner;
	if (t->inner == TK_TENSOR) {
		v.elem = t->elem;
		v.rank = t->rank;
		v.dims = t->dims;
	} else if (t->inner == TK_SEQUENCE) {
		v.inner = TK_UNKNOWN;
	}
	set_out_info(c, 0, &v);
}

void infer_optional_get_element15(infer_ctx *c) { get_element(c, false); }
void infer_optional_get_element18(infer_ctx *c) { get_element(c, true); }
