/* provenance.c: following a dimension back to where it was set (see provenance.h).
 *
 * The operator schemas say which operators pass a dimension through: PASS_SAME ones
 * (their shape column) give output 0 the shape of input 0; PASS_BROADCAST ones (those
 * that broadcast multidirectionally) give each output dimension the size of one of
 * their inputs (right-aligned), and the walk follows the first input that has
 * exactly that size there. Anything else (Reshape, Transpose, Concat, an
 * unknown operator) is where the size was set. The walk crosses into enclosing graphs
 * for outer-scope values and is bounded, so a long chain costs a bounded amount.
 *
 * Invariant: the walk only moves to an input whose dimension, after symbol
 * resolution, equals the one being traced: the text never claims an origin that has
 * another size.
 */
#include "passes/bcast/provenance.h"

#include "core/strbuf.h"
#include "core/schema/schema.h"

#include "passes/bcast/bcast_ops.h"

#include <stdarg.h>
#include <stdio.h>

/* Nodes named in the "passed through" list; the rest are counted. */
#define SHOW_FIRST 3

typedef enum pass_kind { PASS_NONE = 0, PASS_SAME, PASS_BROADCAST } pass_kind;

static pass_kind pass_of(const node *n)
{
	/* Paddle's elementwise operators keep the higher-rank input's dims in place; the
	 * same-size search below finds them (the placed input is only followed where its
	 * right-aligned dim has the same size, which is then a correct origin too). */
	if (n->domain[0])
		return paddle_is_elementwise(n->op_type) ? PASS_BROADCAST : PASS_NONE;
	const sch_row *r = schema_lookup("", n->op_type, n->opset);
	if (r && r->shape == SCH_SHAPE_SAME)
		return PASS_SAME;
	return schema_multi_broadcast_since(n->op_type) ? PASS_BROADCAST : PASS_NONE;
}

static void put_node(strbuf *s, const graph *g, int32_t ni)
{
	const node *n = &g->nodes[ni];
	if (n->name[0])
		strbuf_printf(s, "'%s' (%s)", n->name, n->op_type);
	else
		strbuf_printf(s, "node %d (%s)", ni, n->op_type);
}

/* Dimension k of t, resolved; unknown when there is none. */
static dim dim_at(osh_model *m, const tinfo *t, int32_t k)
{
	if (t->kind != TK_TENSOR || t->rank < 0 || k < 0 || k >= t->rank)
		return dim_unknown();
	return dim_resolve(&m->syms, t->dims[k]);
}

bool prov_trace_dim(osh_model *m, graph *g, int32_t id, int32_t k, prov_trace *t)
{
	t->nhops = 0;
	if (!g || id < 0 || id >= g->nvalues)
		return false;
	dim want = dim_at(m, &g->values[id].ti, k);
	if (want.kind == DIM_UNKNOWN)
		return false;
	for (;;) {
		const value *v = &g->values[id];
		if (v->origin == VAL_OUTER && value_outer(v)) {
			g = value_outer(v);
			id = value_outer_id(v);
			continue;
		}
		t->g = g, t->ni = -1, t->id = id, t->k = k;
		if (v->origin == VAL_INPUT || v->origin == VAL_INITIALIZER) {
			t->origin = v->origin == VAL_INPUT ? PROV_INPUT : PROV_INITIALIZER;
			return true;
		}
		if (v->origin != VAL_NODE || v->producer < 0)
			return false;
		const node *n = &g->nodes[v->producer];
		pass_kind pk = v->producer_out == 0 ? pass_of(n) : PASS_NONE;
		int32_t next = -1, next_k = -1;
		int32_t orank = v->ti.rank;
		for (int32_t i = 0; pk != PASS_NONE && i < n->ninputs && next < 0; i++) {
			if (n->inputs[i] < 0 || (pk == PASS_SAME && i > 0))
				continue;
			const tinfo *ti = &g->values[n->inputs[i]].ti;
			if (ti->kind != TK_TENSOR || ti->rank < 0 || (pk == PASS_SAME && ti->rank != orank))
				continue;
			int32_t ik = k - (orank - ti->rank);
			dim d = dim_at(m, ti, ik);
			if (dim_eq(d, want) && (pk == PASS_SAME || !dim_is(d, 1) || dim_is(want, 1))) {
				next = n->inputs[i];
				next_k = ik;
			}
		}
		if (next >= 0 && t->nhops == PROV_MAX_HOPS)
			return false;
		if (next < 0) {
			t->origin = PROV_NODE;
			t->ni = v->producer;
			return true;
		}
		t->hops[t->nhops++] = (prov_hop){g, v->producer, id, k};
		id = next;
		k = next_k;
	}
}

bool prov_dim(osh_model *m, graph *g, int32_t id, int32_t k, char *buf, size_t cap)
{
	if (cap)
		buf[0] = '\0';
	/* 4 KB of hops: on the heap would be an allocation per traced operand. */
	prov_trace t;
	if (!prov_trace_dim(m, g, id, k, &t))
		return false;
	strbuf s = strbuf_on(buf, cap);
	const value *v = &t.g->values[t.id];
	if (t.origin == PROV_INPUT) {
		strbuf_printf(&s, "comes from graph input '%s'", v->name);
	} else if (t.origin == PROV_INITIALIZER) {
		strbuf_printf(&s, "comes from initializer '%s'", v->name);
	} else {
		strbuf_printf(&s, "was set by node ");
		put_node(&s, t.g, t.ni);
	}
	int32_t nhops = t.nhops;
	/* hops run from the operand back to the origin; say them forwards. */
	if (nhops)
		strbuf_printf(&s, ", then passed through ");
	for (int32_t j = 0; j < nhops; j++) {
		if (j == SHOW_FIRST && nhops > SHOW_FIRST + 1) {
			strbuf_printf(&s, ", %d more, ", nhops - SHOW_FIRST - 1);
			j = nhops - 1;
		} else if (j) {
			strbuf_printf(&s, ", ");
		}
		put_node(&s, t.hops[nhops - 1 - j].g, t.hops[nhops - 1 - j].ni);
	}
	return true;
}

/* Operand dimension indices of a refusal's `dim` (see bcast_error in broadcast.h). */
static bool operand_dims(const bcast_error *e, int32_t ra, int32_t rb, int32_t *ka, int32_t *kb)
{
	int32_t r = ra > rb ? ra : rb;
	switch (e->rule) {
	case BCAST_PDPD:
		*ka = e->dim;
		*kb = (int32_t)(e->dim - e->axis);
		return true;
	case BCAST_PADDLE:
		/* The lower-rank operand is placed at axis; Y on a tie. */
		*ka = ra >= rb ? e->dim : (int32_t)(e->dim - e->axis);
		*kb = ra >= rb ? (int32_t)(e->dim - e->axis) : e->dim;
		return true;
	case BCAST_NONE:
	case BCAST_NUMPY:
	case BCAST_UNIDIRECTIONAL:
	case BCAST_BIDIRECTIONAL:
		*ka = e->dim - (r - ra);
		*kb = e->dim - (r - rb);
		return true;
	case BCAST_EXPLICIT:
		break;
	}
	return false;
}

/* "a's 4 comes from ..." for one operand, when its dimension holds the refused size. */
static void say_operand(osh_model *m, graph *g, int32_t id, int32_t k, dim size, strbuf *s)
{
	if (id < 0)
		return;
	const value *v = &g->values[id];
	dim d = dim_at(m, &v->ti, k);
	if (d.kind == DIM_UNKNOWN || !dim_eq(d, dim_resolve(&m->syms, size)))
		return;
	char where[640], sz[96];
	if (!prov_dim(m, g, id, k, where, sizeof where))
		return;
	dim_format(sz, sizeof sz, d, sym_name_cb, &m->syms);
	strbuf_printf(s, "; %s's %s %s", v->name, sz, where);
}

void prov_broadcast(osh_model *m, graph *g, int32_t ni, int32_t ia, int32_t ib, const bcast_error *e, char *buf,
		    size_t cap)
{
	if (cap)
		buf[0] = '\0';
	if (e->fail != BFAIL_MISMATCH && e->fail != BFAIL_GROW)
		return;
	const node *n = &g->nodes[ni];
	int32_t a = ia >= 0 && ia < n->ninputs ? n->inputs[ia] : -1;
	int32_t b = ib >= 0 && ib < n->ninputs ? n->inputs[ib] : -1;
	if (a < 0 || b < 0)
		return;
	const tinfo *ta = &g->values[a].ti, *tb = &g->values[b].ti;
	int32_t ka, kb;
	if (!operand_dims(e, ta->rank, tb->rank, &ka, &kb))
		return;
	strbuf s = strbuf_on(buf, cap);
	say_operand(m, g, a, ka, e->a, &s);
	say_operand(m, g, b, kb, e->b, &s);
}
