/* rule_api_broadcast.c: broadcasting two of a node's inputs for its rule
 * (rule_api.h's infer_broadcast): the plain cases decided at once, the others by
 * broadcast.c's rule tables, with the facts they learn about symbols recorded and a
 * mismatch reported with where the shapes came from (provenance.h).
 */
#include "passes/rule_api/rule_api.h"

#include "passes/bcast/provenance.h"

bool bcast_plain(infer_ctx *c, bcast_rule rule, shape a, shape b, dim *dims)
{
	bool numpy = rule == BCAST_NUMPY || rule == BCAST_BIDIRECTIONAL;
	if (!numpy && rule != BCAST_UNIDIRECTIONAL)
		return false;
	if (a.rank < 0 || b.rank < 0 || (!numpy && b.rank > a.rank))
		return false;
	int32_t n = a.rank > b.rank ? a.rank : b.rank, oa = n - a.rank, ob = n - b.rank;
	for (int32_t i = n - 1; i >= 0; i--) {
		dim da = i >= oa ? dim_resolve(c->syms, a.dims[i - oa]) : dim_known(1);
		dim db = i >= ob ? dim_resolve(c->syms, b.dims[i - ob]) : dim_known(1);
		if (dim_eq(da, db) || dim_is(db, 1))
			dims[i] = da;
		else if (numpy && dim_is(da, 1))
			dims[i] = db;
		else if (!numpy && (da.kind == DIM_UNKNOWN || db.kind == DIM_UNKNOWN))
			dims[i] = da;
		else
			return false;
	}
	return true;
}

void record_facts(infer_ctx *c, const sym_fact *facts, int32_t n)
{
	for (int32_t k = 0; k < n; k++) {
		const sym_fact *f = &facts[k];
		if (f->kind == FACT_EQUALS && !sym_bind(c->syms, f->sym, f->k)) {
			int64_t was = 0;
			sym_value(c->syms, f->sym, &was);
			infer_diag(c, OSH_ERROR, DIAG_SYMBOL_CONSTRAINT,
				   "'%s' must be %lld here, but it was found to be %lld earlier",
				   sym_name(c->syms, f->sym), (long long)f->k, (long long)was);
		}
	}
}

/* infer_broadcast past bcast_plain: the rule tables, the facts, the report. Out of
 * line, with its buffers, so that the usual case sets up no frame for them. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static bool broadcast_by_rule(infer_ctx *c, bcast_rule rule, int32_t ia, int32_t ib, int64_t axis, int32_t *rank,
			      dim *dims, const tinfo *ta, const tinfo *tb, int32_t need)
{
	sym_fact facts[64];
	bcast_out out = {.dims = dims, .facts = facts, .facts_cap = 64};
	bcast_error err = {0};
	sym_ctx sc = {sym_eq_cb, c->syms};
	/* Resolve symbols with known values first, so facts already learned apply. */
	dim ra[need > 0 ? need : 1], rb[need > 0 ? need : 1];
	for (int32_t k = 0; k < ta->rank; k++)
		ra[k] = dim_resolve(c->syms, ta->dims[k]);
	for (int32_t k = 0; k < tb->rank; k++)
		rb[k] = dim_resolve(c->syms, tb->dims[k]);
	shape sa = {ta->rank, ra}, sb = {tb->rank, rb};
	if (!bcast_two(rule, sa, sb, axis, &sc, &out, &err)) {
		char why[512], origin[1024];
		const char *an = in_name(c, ia), *bn = in_name(c, ib);
		bcast_error_format(why, sizeof why, &err, an, bn, sym_name_cb, c->syms);
		prov_broadcast(c->m, c->g, c->ni, ia, ib, &err, origin, sizeof origin);
		infer_diag(c, OSH_ERROR, DIAG_BROADCAST_MISMATCH, "'%s' %s and '%s' %s do not broadcast (%s rule): %s%s",
			   an, fmt_shape(c, ta), bn, fmt_shape(c, tb), bcast_rule_name(rule), why, origin);
		*rank = RANK_UNKNOWN;
		return false;
	}
	record_facts(c, facts, out.nfacts);
	*rank = out.rank;
	return true;
}

bool infer_broadcast(infer_ctx *c, bcast_rule rule, int32_t ia, int32_t ib, int64_t axis, int32_t *rank,
		     dim *dims, int32_t cap)
{
	const tinfo *ta = in(c, ia), *tb = in(c, ib);
	if (!ta || !tb || ta->kind != TK_TENSOR || tb->kind != TK_TENSOR) {
		*rank = RANK_UNKNOWN;
		return true;
	}
	int32_t need = ta->rank > tb->rank ? ta->rank : tb->rank;
	if (need > cap) {
		*rank = RANK_UNKNOWN;
		return true;
	}
	if (bcast_plain(c, rule, tinfo_shape(ta), tinfo_shape(tb), dims)) {
		*rank = need;
		return true;
	}
	return broadcast_by_rule(c, rule, ia, ib, axis, rank, dims, ta, tb, need);
}
