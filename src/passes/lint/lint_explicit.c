/* lint_explicit.c: check --require-explicit: an implicit-broadcast note on every node
 * that still broadcasts implicitly, for deployment targets where every elementwise
 * operator must see inputs of identical shape (accelerators, DSP compilers,
 * OpenVINO's auto_broadcast="none").
 *
 * A node is reported when one of its broadcasting inputs (bcast_sites.h, the table
 * rewrite --explicit-broadcast works from) is not proven to have the node's result
 * shape: a different shape, or one inference could not pin down (an unknown rank or
 * dimension may hide a broadcast; the note then says "may"). One note per node,
 * naming every such input. Runs after the other lint rules, reads types only.
 */
#include "passes/pass.h"

#include "passes/bcast/bcast_sites.h"

#include <stdio.h>
#include <string.h>

static void put_shape(char *buf, size_t cap, size_t *len, osh_model *m, const tinfo *t)
{
	if (*len >= cap)
		return;
	if (!t || t->kind != TK_TENSOR || t->rank < 0) {
		*len += (size_t)snprintf(buf + *len, cap - *len, "(unknown)");
		return;
	}
	dim d[64];
	int32_t r = t->rank < 64 ? t->rank : 64;
	for (int32_t k = 0; k < r; k++)
		d[k] = dim_resolve(&m->syms, t->dims[k]);
	int w = shape_format(buf + *len, cap - *len, (shape){r, d}, sym_name_cb, &m->syms);
	if (w > 0)
		*len += (size_t)w;
}

/* Whether t certainly differs from want (another rank, or two different known
 * sizes), as opposed to merely not being proven equal: a symbol facing a size may
 * turn out to be that size. */
static bool certainly_differs(symtab *s, const tinfo *t, const tinfo *want)
{
	if (!tinfo_has_rank(t) || !tinfo_has_rank(want))
		return false;
	if (t->rank != want->rank)
		return true;
	for (int32_t k = 0; k < t->rank; k++) {
		dim a = dim_resolve(s, t->dims[k]), b = dim_resolve(s, want->dims[k]);
		if (a.kind == DIM_KNOWN && b.kind == DIM_KNOWN && a.v != b.v)
			return true;
	}
	return false;
}

static void lint_node(osh_model *m, graph *g, int32_t ni)
{
	const node *n = &g->nodes[ni];
	bsite s;
	if (!bsite_of(n, &s) || n->outputs[0] < 0)
		return;
	const tinfo *out = &g->values[n->outputs[0]].ti;
	bool one_value = s.n > 1; /* x + x broadcasts nothing */
	for (int32_t j = 1; j < s.n; j++)
		one_value = one_value && n->inputs[s.slot[j]] == n->inputs[s.slot[0]];
	if (one_value)
		return;
	char buf[1536];
	size_t len = 0;
	int32_t count = 0;
	bool sure = false;
	for (int32_t j = 0; j < s.n && len < sizeof buf; j++) {
		int32_t id = n->inputs[s.slot[j]];
		const tinfo *t = &g->values[id].ti;
		if (bsite_same_shape(&m->syms, t, out))
			continue;
		sure = sure || certainly_differs(&m->syms, t, out);
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s'%s' ", count ? ", " : "", g->values[id].name);
		put_shape(buf, sizeof buf, &len, m, t);
		count++;
	}
	if (!count)
		return;
	char res[512];
	size_t rl = 0;
	put_shape(res, sizeof res, &rl, m, out);
	model_diag(m, OSH_NOTE, DIAG_IMPLICIT_BROADCAST, g, ni, NULL,
		   "%s %s broadcast implicitly to the result %s (%s rule); a target without implicit broadcasting "
		   "needs %s expanded (rewrite --explicit-broadcast)",
		   buf, sure ? (count == 1 ? "is" : "are") : "may be", res,
		   bcast_rule_name(s.rule), count == 1 ? "it" : "them");
}

bool lint_explicit(osh_model *m)
{
	for (int32_t gi = 0; gi < m->ngraphs; gi++) {
		graph *g = m->graphs[gi];
		if (g->function)
			continue; /* function bodies are not inferred */
		for (int32_t k = 0; k < g->nnodes; k++)
			lint_node(m, g, g->order[k]);
	}
	return !m->nomem;
}
