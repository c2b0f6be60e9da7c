/* rule_api_dims.c: dim arithmetic for rules (rule_api.h): sizes computed as numbers
 * where they are known, with an overflow reported, and as expressions over symbols
 * (core/dimexpr.h) where they are not; and the merging of two facts about one dim,
 * which binds symbols.
 */
#include "passes/rule_api/rule_api.h"

static dim overflow(infer_ctx *c, const char *op, int64_t a, int64_t b)
{
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "dimension arithmetic overflows int64: %lld %s %lld",
		   (long long)a, op, (long long)b);
	return dim_unknown();
}

/* Known sizes are computed here, so that an overflow is reported; anything with a
 * symbol is an expression (dimexpr.h), which gives unknown past its bounds. */
dim dim_add(infer_ctx *c, dim a, dim b)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	int64_t r;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return __builtin_add_overflow(a.v, b.v, &r) ? overflow(c, "+", a.v, b.v) : dim_known(r);
	return dx_add(c->syms, a, b);
}

dim dim_sub(infer_ctx *c, dim a, dim b)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	int64_t r;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return __builtin_sub_overflow(a.v, b.v, &r) ? overflow(c, "-", a.v, b.v) : dim_known(r);
	return dx_sub(c->syms, a, b);
}

dim dim_mul(infer_ctx *c, dim a, dim b)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	int64_t r;
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN)
		return __builtin_mul_overflow(a.v, b.v, &r) ? overflow(c, "*", a.v, b.v) : dim_known(r);
	return dx_mul(c->syms, a, b);
}

dim dims_product(infer_ctx *c, const dim *dims, int32_t n, int32_t skip)
{
	dim p = dim_known(1);
	for (int32_t k = 0; k < n; k++) {
		if (k == skip)
			continue;
		dim d = dim_resolve(c->syms, dims[k]);
		/* A 0 anywhere empties the tensor, whatever the unknown dims are. */
		if (dim_is(d, 0))
			return d;
		if (p.kind != DIM_UNKNOWN)
			p = d.kind == DIM_KNOWN && p.kind == DIM_KNOWN ? dim_mul(c, p, d) : dx_mul(c->syms, p, d);
	}
	return p;
}

dim dim_floordiv(infer_ctx *c, dim a, dim b)
{
	return dx_floordiv(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b));
}

dim dim_ceildiv(infer_ctx *c, dim a, dim b)
{
	return dx_ceildiv(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b));
}

dim dim_divexact(infer_ctx *c, dim a, dim b)
{
	return dx_divexact(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b));
}

dim dim_max(infer_ctx *c, dim a, dim b) { return dx_max(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b)); }
dim dim_min(infer_ctx *c, dim a, dim b) { return dx_min(c->syms, dim_resolve(c->syms, a), dim_resolve(c->syms, b)); }

/* dim_merge when a dim may be a symbol or unknown. */
bool dim_merge_symbolic(infer_ctx *c, dim a, dim b, dim *out)
{
	a = dim_resolve(c->syms, a), b = dim_resolve(c->syms, b);
	if (a.kind == DIM_UNKNOWN) {
		*out = b;
		return true;
	}
	if (b.kind == DIM_UNKNOWN) {
		*out = a;
		return true;
	}
	if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN) {
		*out = a;
		return a.v == b.v;
	}
	if (a.kind == DIM_KNOWN || b.kind == DIM_KNOWN) {
		dim k = a.kind == DIM_KNOWN ? a : b, s = a.kind == DIM_KNOWN ? b : a;
		*out = k;
		return sym_bind(c->syms, s.v, k.v);
	}
	*out = a;
	return sym_unify(c->syms, a.v, b.v);
}
