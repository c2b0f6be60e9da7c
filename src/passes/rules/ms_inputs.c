/* ms_inputs.c: what the com.microsoft rule files read off their inputs and
 * attributes alike (ms_inputs.h). */
#include "passes/rules/ms_inputs.h"

#include "passes/rules/rules_nn.h"

void ms_like_input(infer_ctx *c, int32_t o, int32_t i, int32_t elem)
{
	int32_t r = in_rank(c, i);
	if (r < 0) {
		set_out_elem(c, o, elem);
		return;
	}
	set_out(c, o, elem, r, in(c, i)->dims);
}

bool ms_rank_is(infer_ctx *c, int32_t i, int32_t r, const char *what) { return ms_rank_in(c, i, r, -1, -1, what); }

/* The attribute `name` as a positive head count; reported and 0 when not. */
int64_t ms_heads_attr(infer_ctx *c, const char *name)
{
	int64_t h = attr_i(c, name, 0);
	if (h <= 0) {
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR, "%s must be positive, not %lld", name, (long long)h);
		return 0;
	}
	return h;
}

/* Input i's rank when known, -1 when not or omitted. */
int32_t ms_rank_of(infer_ctx *c, int32_t i) { return in(c, i) ? in_rank(c, i) : -1; }

/* Dim k of input i, unknown when its rank is not known. */
dim ms_dim_of(infer_ctx *c, int32_t i, int32_t k)
{
	const tinfo *t = in(c, i) ? in_ranked(c, i) : NULL;
	return t && k < t->rank ? t->dims[k] : dim_unknown();
}

/* Input i, when listed and of known rank, must have one of ranks r1, r2, r3 (0: none). */
bool ms_rank_in(infer_ctx *c, int32_t i, int32_t r1, int32_t r2, int32_t r3, const char *what)
{
	int32_t r = ms_rank_of(c, i);
	if (r < 0 || r == r1 || r == r2 || r == r3)
		return true;
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s must be %s", in_name(c, i), fmt_shape(c, in(c, i)), what);
	return false;
}

/* a / n for a hidden size that must split into n heads: reported when it does not. */
bool ms_per_head(infer_ctx *c, dim a, int64_t n, dim *out)
{
	if (a.kind == DIM_KNOWN && a.v % n != 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "hidden size %lld is not a multiple of %lld heads", (long long)a.v,
			   (long long)n);
		return false;
	}
	*out = dim_floordiv(c, a, dim_known(n));
	return true;
}

/* Merges dim k of input i, when listed, into *acc (a size the doc says they share). */
bool ms_same_dim(infer_ctx *c, dim *acc, int32_t i, int32_t k, const char *what)
{
	return !in(c, i) || nn_merge_dim(c, acc, ms_dim_of(c, i, k), what, i);
}

/* Sets output 0's element type to input 0's, which every rule here gives it, before
 * anything can refuse the model; returns it. */
int32_t ms_out_type(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	return elem;
}
