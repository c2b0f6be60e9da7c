/* rules_tensor.c: the helpers of the tensor family (see rules_tensor.h), and the
 * operators that make tensors or read their shape: Shape, Size, Constant,
 * ConstantOfShape, Range, EyeLike, the Random operators, Multinomial, Bernoulli, Det
 * and the quantize operators.
 *
 * Shape, Size, Constant, ConstantOfShape and Range are where shape arithmetic starts:
 * they publish integer content (dims, symbols kept) for the rest of the family to move.
 *
 * Invariant: an output gets a shape only when every dimension written is certain for a
 * valid model; a size only known at run time (a ConstantOfShape of a computed shape, a
 * Range of computed bounds) is a fresh symbol, never a guess; a model no valid run can
 * have is reported (shape-error) and leaves the output with its element type only.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_tensor.h"

#include "core/checked.h"
#include "core/dtype.h"
#include "core/tensor.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------ */

void tr_error(infer_ctx *c, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s: %s", c->n->op_type, buf);
}

int64_t tr_count(infer_ctx *c, int32_t rank, const dim *dims)
{
	if (rank < 0)
		return -1;
	int64_t n = 1;
	for (int32_t k = 0; k < rank; k++) {
		dim d = dim_resolve(c->syms, dims[k]);
		if (d.kind != DIM_KNOWN || __builtin_mul_overflow(n, d.v, &n))
			return -1;
	}
	return n;
}

int64_t tr_known_dims(infer_ctx *c, int32_t i, int64_t *out)
{
	const tinfo *t = in_tensor(c, i);
	if (!t || t->rank < 0 || t->rank > RULE_MAX_RANK)
		return -1;
	int64_t n = tr_count(c, t->rank, t->dims);
	if (n < 0 || n > TINFO_MAX_VALUES)
		return -1;
	for (int32_t k = 0; k < t->rank; k++)
		out[k] = dim_resolve(c->syms, t->dims[k]).v;
	return n;
}

tr_list_state tr_list(infer_ctx *c, const char *attr_name, int32_t input, int64_t *out, int32_t cap,
		      int32_t *n)
{
	*n = -1;
	const attr_view *a = attr_name ? attr(c, attr_name) : NULL;
	if (a) {
		if (a->type != AT_INTS) {
			tr_error(c, "attribute '%s' must be a list of ints", attr_name);
			return TR_UNKNOWN;
		}
		*n = a->n;
		if (a->n < 0 || a->n > cap)
			return TR_UNKNOWN;
		if (a->n > 0)
			memcpy(out, a->ints, (size_t)a->n * sizeof *out);
		return TR_KNOWN;
	}
	const tinfo *t = input >= 0 ? in(c, input) : NULL;
	if (!t)
		return TR_ABSENT;
	int32_t k;
	if (in_known_ints(c, input, out, cap, &k)) {
		*n = k;
		return TR_KNOWN;
	}
	const dim *v;
	if (in_ints(c, input, &v, &k)) {
		*n = k;
	} else if (t->kind == TK_TENSOR && t->rank == 0) {
		*n = 1;
	} else if (t->kind == TK_TENSOR && t->rank == 1) {
		dim d = dim_resolve(c->syms, t->dims[0]);
		if (d.kind == DIM_KNOWN && d.v <= INT32_MAX)
			*n = (int32_t)d.v;
	}
	return TR_UNKNOWN;
}

void tr_pass_content(infer_ctx *c, int32_t i, int32_t o)
{
	const dim *v;
	const double *f;
	int32_t n;
	if (in_ints(c, i, &v, &n))
		set_out_ints(c, o, v, n);
	if (in_floats(c, i, &f, &n))
		set_out_floats(c, o, f, n);
}

void tr_map_content(infer_ctx *c, int32_t i, int32_t o, const int32_t *map, int32_t n)
{
	const dim *v;
	const double *f;
	int32_t nv;
	if (n < 0 || n > TINFO_MAX_VALUES)
		return;
	if (in_ints(c, i, &v, &nv)) {
		dim small[SCRATCH_SMALL];
		dim *d = dims_room(c, small, n);
		bool ok = d != NULL;
		for (int32_t k = 0; ok && k < n; k++) {
			ok = map[k] >= 0 && map[k] < nv;
			if (ok)
				d[k] = v[map[k]];
		}
		if (ok)
			set_out_ints(c, o, d, n);
	}
	if (in_floats(c, i, &f, &nv)) {
		double small[SCRATCH_SMALL];
		double *x = n <= SCRATCH_SMALL ? small : arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *x);
		bool ok = x != NULL;
		if (!x)
			c->m->nomem = true;
		for (int32_t k = 0; ok && k < n; k++) {
			ok = map[k] >= 0 && map[k] < nv;
			if (ok)
				x[k] = f[map[k]];
		}
		if (ok)
			set_out_floats(c, o, x, n);
	}
}

int32_t *tr_index_map(infer_ctx *c, const int64_t *odims, int32_t r, int64_t n, tr_src_fn src, const void *ctx)
{
	if (n < 0 || n > TINFO_MAX_VALUES || r < 0 || r > RULE_MAX_RANK)
		return NULL;
	int32_t *map = arena_array(c->a, n > 0 ? (size_t)n : 1, sizeof *map);
	int64_t idx[RULE_MAX_RANK] = {0};
	if (!map) {
		c->m->nomem = true;
		return NULL;
	}
	for (int64_t k = 0; k < n; k++) {
		int64_t f = src(idx, r, ctx);
		if (f < 0 || f >= TINFO_MAX_VALUES)
			return NULL;
		map[k] = (int32_t)f;
		/* Step the multi-index like an odometer. */
		for (int32_t j = r - 1; j >= 0; j--) {
			if (++idx[j] < odims[j])
				break;
			idx[j] = 0;
		}
	}
	return map;
}

void tr_same_shape(infer_ctx *c, int32_t o, const tinfo *x, int32_t elem)
{
	if (x && x->kind == TK_TENSOR && x->rank >= 0)
		set_out(c, o, elem, x->rank, x->dims);
	else
		set_out_elem(c, o, elem);
}

bool tr_norm_axes(infer_ctx *c, int64_t *axes, int32_t n, int32_t rank, const char *what)
{
	for (int32_t k = 0; k < n; k++) {
		int32_t a;
		if (!norm_axis(c, axes[k], rank, false, what, &a))
			return false;
		axes[k] = a;
		for (int32_t j = 0; j < k; j++) {
			if (axes[j] == a) {
				tr_error(c, "%s lists axis %d twice", what, a);
				return false;
			}
		}
	}
	return true;
}

/* A dtype attribute: its value when present and valid, `def` when absent; an invalid
 * one is reported and gives 0 (unknown). */
static int32_t dtype_attr(infer_ctx *c, const char *name, int32_t def)
{
	if (!attr_has(c, name))
		return def;
	int64_t t = attr_i(c, name, 0);
	if (!dtype_valid(t)) {
		tr_error(c, "attribute '%s' = %lld is not a tensor element type", name, (long long)t);
		return 0;
	}
	return (int32_t)t;
}

/* ---- Shape, Size -------------------------------------------------------------- */

/* The content of Shape is the input's dims themselves, symbols and unknowns included:
 * that is what lets a later Reshape or Expand see N where the model computed it. */
static void shape_rule(infer_ctx *c, int64_t start, bool has_end, int64_t end)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t r = in_rank(c, 0);
	if (r < 0) {
		dim u = dim_unknown();
		set_out(c, 0, DT_INT64, 1, &u);
		return;
	}
	/* Spec: negative values count from the back, then both clamp to [0, r]. */
	int64_t s = start < 0 ? start + r : start, e = has_end ? (end < 0 ? end + r : end) : r;
	s = s < 0 ? 0 : s > r ? r : s;
	e = e < 0 ? 0 : e > r ? r : e;
	int64_t len = e > s ? e - s : 0;
	dim d = dim_known(len);
	set_out(c, 0, DT_INT64, 1, &d);
	set_out_ints(c, 0, x->dims + s, (int32_t)len);
}

void infer_shape1(infer_ctx *c) { shape_rule(c, 0, false, 0); }

void infer_shape15(infer_ctx *c) { shape_rule(c, attr_i(c, "start", 0), attr_has(c, "end"), attr_i(c, "end", 0)); }

void infer_size(infer_ctx *c)
{
	set_out(c, 0, DT_INT64, 0, NULL);
	const tinfo *x = in_tensor(c, 0);
	if (!x || x->rank < 0)
		return;
	/* N * 1 stays N; a product of two symbols has no name and stays unknown. */
	dim p = dim_known(1);
	for (int32_t k = 0; k < x->rank; k++)
		p = dim_mul(c, p, x->dims[k]);
	set_out_ints(c, 0, &p, 1);
}

/* ---- Constant ----------------------------------------------------------------- */

enum { CONST_VALUE = 1, CONST_SPARSE = 2, CONST_VALUES = 4 };

static const struct const_form {
	const char *name;
	unsigned family; /* which opset introduced it */
	attr_type type;
} const_forms[] = {
	{"value", CONST_VALUE, AT_TENSOR},
	{"sparse_value", CONST_SPARSE, AT_SPARSE_TENSOR},
	{"value_int", CONST_VALUES, AT_INT},
	{"value_ints", CONST_VALUES, AT_INTS},
	{"value_float", CONST_VALUES, AT_FLOAT},
	{"value_floats", CONST_VALUES, AT_FLOATS},
	{"value_string", CONST_VALUES, AT_STRING},
	{"value_strings", CONST_VALUES, AT_STRINGS},
};

/* Output 0 from a TENSOR attribute: its type and dims, and its values when small. */
static void constant_tensor(infer_ctx *c, const tensor_view *tv)
{
	if (!tv || !dtype_valid(tv->dtype) || !tv->valid)
		return;
	if (tv->rank > RULE_MAX_RANK) {
		tr_error(c, "the value has rank %d, above the supported %d", tv->rank, RULE_MAX_RANK);
		return;
	}
	dim *d = dims_alloc(c, tv->rank);
	if (!d)
		return;
	for (int32_t k = 0; k < tv->rank; k++)
		d[k] = dim_known(tv->dims[k]);
	set_out(c, 0, tv->dtype, tv->rank, d);
	if (tv->count < 0 || tv->count > TINFO_MAX_VALUES || tv->external)
		return;
	int32_t n = (int32_t)tv->count;
	int64_t *ints = arena_array(c->a, n ? (size_t)n : 1, sizeof *ints);
	double *floats = arena_array(c->a, n ? (size_t)n : 1, sizeof *floats);
	dim *v = dims_alloc(c, n);
	if (!ints || !floats || !v) {
		c->m->nomem = true;
		return;
	}
	if (tensor_ints(tv, ints)) {
		for (int32_t k = 0; k < n; k++)
			v[k] = dim_known(ints[k]);
		set_out_ints(c, 0, v, n);
	}
	if (tensor_floats(tv, floats))
		set_out_floats(c, 0, floats, n);
}

/* Range's length max(0, ceil((limit - start)/delta)) with a symbol in limit or start
 * (a size the graph read with Shape) and a known delta; false when delta is not one
 * to divide by (0, or INT64_MIN, whose magnitude int64 does not hold). */
static bool symbolic_range(infer_ctx *c, int32_t elem, dim s, dim l, dim d)
{
	if (d.kind != DIM_KNOWN || d.v == 0 || d.v == INT64_MIN)
		return false;
	dim span = d.v > 0 ? dim_sub(c, l, s) : dim_sub(c, s, l);
	dim len = dim_max(c, dim_ceildiv(c, span, dim_known(d.v > 0 ? d.v : -d.v)), dim_known(0));
	if (len.kind == DIM_UNKNOWN)
		len = dim_fresh(c);
	set_out(c, 0, elem, 1, &len);
	return true;
}

static void constant_rule(infer_ctx *c, unsigned allowed)
{
	const attr_view *found = NULL;
	const struct const_form *form = NULL;
	int given = 0;
	/* ONNX Runtime makes a Constant of the main graph an initializer from its first
	 * attribute, by type, whatever its name or the opset (check_schema.c says what
	 * the spec would): that is the value. */
	if (c->g == c->m->main) {
		found = c->n->nattrs ? &c->n->attrs[0] : NULL;
		for (size_t k = 0; found && k < sizeof const_forms / sizeof const_forms[0] && !form; k++)
			if (const_forms[k].type == found->type)
				form = &const_forms[k];
		given = form ? 1 : 0;
		allowed = 0;
	}
	for (size_t k = 0; allowed && k < sizeof const_forms / sizeof const_forms[0]; k++) {
		const attr_view *a = attr(c, const_forms[k].name);
		if (!a)
			continue;
		if (!(const_forms[k].family & allowed)) {
			tr_error(c, "attribute '%s' is not defined at opset %lld", const_forms[k].name,
				 (long long)c->opset);
			return;
		}
		given++;
		found = a;
		form = &const_forms[k];
	}
	if (given != 1) {
		if (c->g != c->m->main)
			tr_error(c, "exactly one value attribute must be given, found %d", given);
		return;
	}
	if (found->type != form->type) {
		tr_error(c, "attribute '%s' has the wrong type (%d)", form->name, (int)found->type);
		return;
	}
	int32_t n = found->n;
	if (n < 0)
		return; /* a list longer than the views can count */
	dim len = dim_known(n);
	switch (form->type) {
	case AT_TENSOR:
		constant_tensor(c, found->t);
		break;
	case AT_INT: {
		dim v = dim_known(found->i);
		set_out(c, 0, DT_INT64, 0, NULL);
		set_out_ints(c, 0, &v, 1);
		double f = (double)found->i;
		set_out_floats(c, 0, &f, 1);
		break;
	}
	case AT_INTS: {
		set_out(c, 0, DT_INT64, 1, &len);
		if (n > TINFO_MAX_VALUES)
			break;
		dim *v = dims_alloc(c, n);
		if (!v)
			break;
		double *f = arena_array(c->a, n ? (size_t)n : 1, sizeof *f);
		if (!f) {
			c->m->nomem = true;
			break;
		}
		/* As for an initializer: integer content, and the same as doubles. */
		for (int32_t k = 0; k < n; k++) {
			v[k] = dim_known(found->ints[k]);
			f[k] = (double)found->ints[k];
		}
		set_out_ints(c, 0, v, n);
		set_out_floats(c, 0, f, n);
		break;
	}
	case AT_FLOAT: {
		double f = found->f;
		set_out(c, 0, DT_FLOAT, 0, NULL);
		set_out_floats(c, 0, &f, 1);
		break;
	}
	case AT_FLOATS: {
		set_out(c, 0, DT_FLOAT, 1, &len);
		if (n > TINFO_MAX_VALUES)
			break;
		double *f = arena_array(c->a, n ? (size_t)n : 1, sizeof *f);
		if (!f) {
			c->m->nomem = true;
			break;
		}
		for (int32_t k = 0; k < n; k++)
			f[k] = found->floats[k];
		set_out_floats(c, 0, f, n);
		break;
	}
	case AT_STRING:
		set_out(c, 0, DT_STRING, 0, NULL);
		break;
	case AT_STRINGS:
		set_out(c, 0, DT_STRING, 1, &len);
		break;
	default:
		/* sparse_value: the loader gives no view of sparse tensors, so the dense
		 * output's type and dims are not known here. */
		break;
	}
}

/* value (1 and 9: 9 only widened the types); sparse_value from 11; value_* from 12. */
void infer_constant1(infer_ctx *c) { constant_rule(c, CONST_VALUE); }
void infer_constant11(infer_ctx *c) { constant_rule(c, CONST_VALUE | CONST_SPARSE); }
void infer_constant12(infer_ctx *c) { constant_rule(c, CONST_VALUE | CONST_SPARSE | CONST_VALUES); }

/* ---- ConstantOfShape ---------------------------------------------------------- */

/* Output dims from a shape given as content: known sizes (checked >= 0), symbols kept,
 * unknown entries a fresh symbol (a size fixed at run time). Returns false (reported)
 * for a negative size. */
static bool dims_from_content(infer_ctx *c, const dim *v, int32_t n, dim *out, const char *what)
{
	for (int32_t k = 0; k < n; k++) {
		dim d = dim_resolve(c->syms, v[k]);
		if (d.kind == DIM_KNOWN && d.v < 0) {
			tr_error(c, "%s[%d] is %lld, a size must be >= 0", what, k, (long long)d.v);
			return false;
		}
		out[k] = d.kind == DIM_UNKNOWN ? dim_fresh(c) : d;
	}
	return true;
}

void infer_constant_of_shape(infer_ctx *c)
{
	int32_t elem = DT_FLOAT;
	const attr_view *va = attr(c, "value");
	const tensor_view *tv = va && va->type == AT_TENSOR ? va->t : NULL;
	if (va) {
		if (!tv || !dtype_valid(tv->dtype)) {
			tr_error(c, "attribute 'value' must be a tensor");
			return;
		}
		if (tv->count != 1) {
			tr_error(c, "attribute 'value' must hold one element, it holds %lld", (long long)tv->count);
			return;
		}
		elem = tv->dtype;
	}
	const tinfo *s = in_tensor(c, 0);
	if (s && s->rank >= 0 && s->rank != 1) {
		tr_error(c, "input '%s' %s must be 1-D", in_name(c, 0), fmt_shape(c, s));
		set_out_elem(c, 0, elem);
		return;
	}
	const dim *v;
	int32_t n;
	tr_list_state st;
	int64_t scratch[1];
	if (in_ints(c, 0, &v, &n)) {
		st = TR_KNOWN;
	} else {
		st = tr_list(c, NULL, 0, scratch, 0, &n);
		v = NULL;
	}
	if (st == TR_ABSENT || n < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	if (n > RULE_MAX_RANK) {
		tr_error(c, "the output rank %d is above the supported %d", n, RULE_MAX_RANK);
		set_out_elem(c, 0, elem);
		return;
	}
	dim *d = dims_alloc(c, n);
	if (!d)
		return;
	if (v) {
		if (!dims_from_content(c, v, n, d, "the shape")) {
			set_out_elem(c, 0, elem);
			return;
		}
	} else {
		for (int32_t k = 0; k < n; k++)
			d[k] = dim_fresh(c);
	}
	set_out(c, 0, elem, n, d);
	/* Content: the value repeated, when the output is small. */
	int64_t count = tr_count(c, n, d);
	if (count < 0 || count > TINFO_MAX_VALUES)
		return;
	int64_t iv = 0;
	double fv = 0;
	/* Without `value` the output is FLOAT zeros. */
	bool has_i = tv && !tv->external && tensor_ints(tv, &iv);
	bool has_f = !tv || (!tv->external && tensor_floats(tv, &fv));
	if (has_i) {
		dim *cv = dims_alloc(c, (int32_t)count);
		if (!cv)
			return;
		for (int64_t k = 0; k < count; k++)
			cv[k] = dim_known(iv);
		set_out_ints(c, 0, cv, (int32_t)count);
	}
	if (has_f) {
		double *f = arena_array(c->a, count ? (size_t)count : 1, sizeof *f);
		if (!f) {
			c->m->nomem = true;
			return;
		}
		for (int64_t k = 0; k < count; k++)
			f[k] = fv;
		set_out_floats(c, 0, f, (int32_t)count);
	}
}

/* ---- Range -------------------------------------------------------------------- */

/* A whole number input i of a floating Range holds, as a dim: its float content
 * when that is a whole number below 2^24 (exact in FLOAT), or the integer a Cast to
 * a floating type made it from (a size read with Shape, cast to float for a
 * positional encoding's Range(0.0, Cast(size), 1.0)): a size is taken to be below
 * 2^24 there, as a size cast to INT32 below 2^31 (docs/symbolic.md). */
static bool whole_float(infer_ctx *c, int32_t i, dim *out)
{
	double f;
	if (in_float1(c, i, &f)) {
		if (f != trunc(f) || fabs(f) >= 16777216.0)
			return false;
		*out = dim_known((int64_t)f);
		return true;
	}
	int32_t id = i < c->n->ninputs ? c->n->inputs[i] : -1;
	if (id < 0 || c->g->values[id].origin != VAL_NODE)
		return false;
	const node *p = &c->g->nodes[c->g->values[id].producer];
	if (strcmp(p->op_type, "Cast") != 0 || p->domain[0] || p->ninputs < 1 || p->inputs[0] < 0)
		return false;
	int32_t to = c->g->values[id].ti.elem;
	const tinfo *src = &c->g->values[p->inputs[0]].ti;
	if ((to != DT_FLOAT && to != DT_DOUBLE) || src->nval != 1 || !src->val ||
	    (src->elem != DT_INT64 && src->elem != DT_INT32))
		return false;
	*out = dim_resolve(c->syms, src->val[0]);
	return out->kind == DIM_SYMBOL || (out->kind == DIM_KNOWN && out->v > -16777216 && out->v < 16777216);
}

/* A scalar input's one value as a double (from float or integer content). */
void infer_range(infer_ctx *c)
{
	int32_t elem = 0;
	for (int32_t i = 0; i < 3 && !elem; i++)
		elem = in_elem(c, i);
	static const char *const names[] = {"start", "limit", "delta"};
	for (int32_t i = 0; i < 3; i++) {
		const tinfo *t = in_tensor(c, i);
		if (!t || t->rank <= 0)
			continue;
		/* ONNX Runtime's kernel takes a tensor of one element for a scalar, and
		 * ONNX's own function bodies compute one (AffineGrid's); its load-time
		 * check refuses one only where the shape is given (an initializer, a
		 * declared input). More than one element is an error. */
		int64_t count = 1;
		bool known = true;
		for (int32_t k = 0; k < t->rank && known; k++) {
			dim d = dim_resolve(c->syms, t->dims[k]);
			known = d.kind == DIM_KNOWN;
			if (known && __builtin_mul_overflow(count, d.v, &count))
				count = INT64_MAX;
		}
		bool given = c->g->values[c->n->inputs[i]].origin != VAL_NODE;
		if ((known && count != 1) || given) {
			tr_error(c, "'%s' (input '%s') must be a scalar, it is %s", names[i], in_name(c, i),
				 fmt_shape(c, t));
			set_out_elem(c, 0, elem);
			return;
		}
		infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
			   "'%s' (input '%s') is %s: the spec wants a scalar (ONNX Runtime runs a computed tensor "
			   "of one element)", names[i], in_name(c, i), fmt_shape(c, t));
	}
	dim s, l, d;
	if (in_int1(c, 0, &s) && in_int1(c, 1, &l) && in_int1(c, 2, &d) && s.kind == DIM_KNOWN &&
	    l.kind == DIM_KNOWN && d.kind == DIM_KNOWN) {
		if (d.v == 0) {
			tr_error(c, "delta is 0");
			set_out_elem(c, 0, elem);
			return;
		}
		int64_t diff, n;
		if (__builtin_sub_overflow(l.v, s.v, &diff) || !i64_ceildiv(diff, d.v, &n)) {
			dim f = dim_fresh(c);
			set_out(c, 0, elem, 1, &f);
			return;
		}
		n = n < 0 ? 0 : n;
		dim len = dim_known(n);
		set_out(c, 0, elem, 1, &len);
		if (n > TINFO_MAX_VALUES)
			return;
		dim *v = dims_alloc(c, (int32_t)n);
		if (!v)
			return;
		/* |i * delta| <= |limit - start| + |delta|: fits, as limit - start did. */
		for (int64_t i = 0; i < n; i++)
			v[i] = dim_known(s.v + i * d.v);
		set_out_ints(c, 0, v, (int32_t)n);
		return;
	}
	if (in_int1(c, 0, &s) && in_int1(c, 1, &l) && in_int1(c, 2, &d) && symbolic_range(c, elem, s, l, d))
		return;
	double fs, fl, fd;
	/* Whole numbers in a floating type: the count as the integer Range's. */
	if (!(in_float1(c, 0, &fs) && in_float1(c, 1, &fl) && in_float1(c, 2, &fd)) &&
	    whole_float(c, 0, &s) && whole_float(c, 1, &l) && whole_float(c, 2, &d) && symbolic_range(c, elem, s, l, d))
		return;
	if (in_float1(c, 0, &fs) && in_float1(c, 1, &fl) && in_float1(c, 2, &fd)) {
		if (fd == 0) {
			tr_error(c, "delta is 0");
			set_out_elem(c, 0, elem);
			return;
		}
		double q = ceil((fl - fs) / fd);
		/* Past 2^53 the count is not exact in a double: claim nothing. */
		if (isfinite(q) && q < 9007199254740992.0) {
			int64_t n = q > 0 ? (int64_t)q : 0;
			dim len = dim_known(n);
			set_out(c, 0, elem, 1, &len);
			if (n <= TINFO_MAX_VALUES) {
				double *v = arena_array(c->a, n ? (size_t)n : 1, sizeof *v);
				if (!v) {
					c->m->nomem = true;
					return;
				}
				for (int64_t i = 0; i < n; i++)
					v[i] = fs + (double)i * fd;
				set_out_floats(c, 0, v, (int32_t)n);
			}
			return;
		}
	}
	dim f = dim_fresh(c);
	set_out(c, 0, elem, 1, &f);
}

/* ---- generators --------------------------------------------------------------- */

void infer_eye_like(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = dtype_attr(c, "dtype", in_elem(c, 0));
	if (x && x->rank >= 0 && x->rank != 2) {
		tr_error(c, "input '%s' %s must be 2-D", in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	tr_same_shape(c, 0, x, elem);
}

/* RandomNormal, RandomUniform: the shape attribute. */
void infer_random(infer_ctx *c)
{
	int32_t elem = dtype_attr(c, "dtype", DT_FLOAT);
	const int64_t *s;
	int32_t n;
	if (!attr_ints(c, "shape", &s, &n)) {
		tr_error(c, "attribute 'shape' is required");
		set_out_elem(c, 0, elem);
		return;
	}
	if (n > RULE_MAX_RANK) {
		tr_error(c, "the output rank %d is above the supported %d", n, RULE_MAX_RANK);
		set_out_elem(c, 0, elem);
		return;
	}
	dim *d = dims_alloc(c, n);
	if (!d)
		return;
	for (int32_t k = 0; k < n; k++) {
		if (s[k] < 0) {
			tr_error(c, "shape[%d] is %lld, a size must be >= 0", k, (long long)s[k]);
			set_out_elem(c, 0, elem);
			return;
		}
		d[k] = dim_known(s[k]);
	}
	set_out(c, 0, elem, n, d);
}

/* RandomNormalLike, RandomUniformLike: the input's shape. */
void infer_random_like(infer_ctx *c) { tr_same_shape(c, 0, in_tensor(c, 0), dtype_attr(c, "dtype", in_elem(c, 0))); }

void infer_bernoulli(infer_ctx *c) { tr_same_shape(c, 0, in_tensor(c, 0), dtype_attr(c, "dtype", in_elem(c, 0))); }

/* (batch_size, class_size) → (batch_size, sample_size). */
void infer_multinomial(infer_ctx *c)
{
	int32_t elem = dtype_attr(c, "dtype", DT_INT32);
	int64_t samples = attr_i(c, "sample_size", 1);
	const tinfo *x = in_tensor(c, 0);
	if (samples < 0) {
		tr_error(c, "sample_size is %lld, must be >= 0", (long long)samples);
		set_out_elem(c, 0, elem);
		return;
	}
	if (x && x->rank >= 0 && x->rank != 2) {
		tr_error(c, "input '%s' %s must be 2-D (batch_size, class_size)", in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	dim d[2] = {x && x->rank == 2 ? x->dims[0] : dim_unknown(), dim_known(samples)};
	set_out(c, 0, elem, 2, d);
}

/* (..., M, M) → (...). */
void infer_det(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	if (r < 0) {
		set_out_elem(c, 0, elem);
		return;
	}
	if (r < 2) {
		tr_error(c, "input '%s' %s must have rank >= 2", in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	dim m;
	if (!dim_merge(c, x->dims[r - 2], x->dims[r - 1], &m)) {
		tr_error(c, "input '%s' %s is not made of square matrices", in_name(c, 0), fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	set_out(c, 0, elem, r - 2, x->dims);
}

/* ---- quantize ----------------------------------------------------------------- */

/* Per-axis quantization: a 1-D scale of more than one element runs along x's `axis`,
 * whose size it must have. Blocked quantization (block_size > 0) is not checked. */
static bool check_per_axis(infer_ctx *c, int32_t scale_input)
{
	const tinfo *x = in_tensor(c, 0), *s = in_tensor(c, scale_input);
	if (!x || !s || x->rank < 0 || s->rank != 1 || attr_i(c, "block_size", 0) > 0)
		return true;
	dim len = dim_resolve(c->syms, s->dims[0]);
	if (len.kind != DIM_KNOWN || len.v == 1)
		return true;
	int32_t a;
	if (!norm_axis(c, attr_i(c, "axis", 1), x->rank, false, "axis", &a))
		return false;
	dim m;
	if (!dim_merge(c, x->dims[a], len, &m)) {
		tr_error(c, "scale '%s' %s does not match axis %d of '%s' %s", in_name(c, scale_input), fmt_shape(c, s),
			 a, in_name(c, 0), fmt_shape(c, x));
		return false;
	}
	return true;
}

/* y's type: y_zero_point's when given, else output_dtype (from 21), else UINT8. */
static void quantize_rule(infer_ctx *c, bool has_output_dtype)
{
	int32_t elem = DT_UINT8;
	int32_t odt = has_output_dtype ? dtype_attr(c, "output_dtype", 0) : 0;
	if (in(c, 2)) {
		elem = in_elem(c, 2);
		if (elem && odt && elem != odt) {
			tr_error(c, "output_dtype %s differs from y_zero_point's type %s", dtype_name(odt),
				 dtype_name(elem));
			set_out_elem(c, 0, 0);
			return;
		}
	} else if (odt) {
		elem = odt;
	}
	if (!check_per_axis(c, 1)) {
		set_out_elem(c, 0, elem);
		return;
	}
	tr_same_shape(c, 0, in_tensor(c, 0), elem);
}

void infer_quantize_linear10(infer_ctx *c) { quantize_rule(c, false); }
void infer_quantize_linear21(infer_ctx *c) { quantize_rule(c, true); }

static void dequantize_rule(infer_ctx *c, int32_t elem)
{
	if (!check_per_axis(c, 1)) {
		set_out_elem(c, 0, elem);
		return;
	}
	tr_same_shape(c, 0, in_tensor(c, 0), elem);
}

/* 10, 13: y is FLOAT; 19, 21: x_scale's type; 23, 25: output_dtype, else x_scale's. */
void infer_dequantize_linear10(infer_ctx *c) { dequantize_rule(c, DT_FLOAT); }
void infer_dequantize_linear19(infer_ctx *c) { dequantize_rule(c, in_elem(c, 1)); }
void infer_dequantize_linear23(infer_ctx *c)
{
	int32_t odt = dtype_attr(c, "output_dtype", 0);
	dequantize_rule(c, odt ? odt : in_elem(c, 1));
}

void infer_dynamic_quantize_linear(infer_ctx *c)
{
	tr_same_shape(c, 0, in_tensor(c, 0), DT_UINT8);
	set_out(c, 1, DT_FLOAT, 0, NULL);
	set_out(c, 2, DT_UINT8, 0, NULL);
}
