/* report_graph.c: see report_graph.h. Reads the IR (core/model.h) and the
 * provenance walk (passes/bcast/provenance.h); writes nothing into the model.
 *
 * Invariant: a neighbourhood's boxes and edges form a DAG. Upstream boxes (chains,
 * producers) are shared between operands; downstream boxes (consumers) are never
 * shared with upstream ones, so even a cyclic (malformed) graph draws as a DAG.
 */
#include "report_graph.h"
#include "cli.h"

#include "core/model.h"
#include "core/symbols.h"
#include "passes/bcast/bcast_sites.h"
#include "passes/bcast/provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operands drawn with their chains; the rest are one "... N more" box. */
#define SHOW_OPERANDS 6
/* Nodes of a chain drawn before it is cut (the origin is always drawn). */
#define SHOW_HOPS 4
/* Consumers drawn per result. */
#define SHOW_CONSUMERS 4
/* Results drawn. */
#define SHOW_OUTPUTS 4
/* Highlighted (value, dimension) pairs one finding can mark. */
#define HL_SET_MAX 64

typedef struct hl_set {
	const graph *g[HL_SET_MAX];
	int32_t id[HL_SET_MAX], k[HL_SET_MAX];
	int n;
} hl_set;

static void hl_add(hl_set *s, const graph *g, int32_t id, int32_t k)
{
	if (s->n < HL_SET_MAX)
		s->g[s->n] = g, s->id[s->n] = id, s->k[s->n] = k, s->n++;
}

static bool hl_has(const hl_set *s, const graph *g, int32_t id, int32_t k)
{
	for (int i = 0; i < s->n; i++)
		if (s->g[i] == g && s->id[i] == id && s->k[i] == k)
			return true;
	return false;
}

/* The first highlighted dimension of value id, or -1. */
static int32_t hl_first(const hl_set *s, const graph *g, int32_t id)
{
	int32_t best = -1;
	for (int i = 0; i < s->n; i++)
		if (s->g[i] == g && s->id[i] == id && (best < 0 || s->k[i] < best))
			best = s->k[i];
	return best;
}

static graph *graph_of(const osh_model *m, const char *path)
{
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (m->graphs[i] && !strcmp(m->graphs[i]->path, path))
			return m->graphs[i];
	return NULL;
}

/* ---- labels ------------------------------------------------------------------------- */

/* Appends s (up to n bytes, whole UTF-8 characters) to e's label; false when it
 * did not fit. */
static bool label_put(rg_edge *e, size_t *len, const char *s, size_t n)
{
	size_t room = RG_LABEL_MAX - 4 - *len; /* "..." and the NUL stay possible */
	bool fits = n <= room;
	if (!fits) {
		n = room;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(e->label + *len, s, n);
	*len += n;
	e->label[*len] = '\0';
	return fits;
}

/* "name (2, 3, 4)" (with_name) or "(2, 3, 4)", dimension mark_k and each
 * highlighted pair marked. Names are cut short: the shape is what the drawing is
 * for. */
static void make_label(osh_model *m, const graph *g, int32_t id, const hl_set *hs, int32_t mark_k, bool with_name,
		       rg_edge *e)
{
	size_t len = 0;
	e->nhl = 0;
	e->label[0] = '\0';
	const value *v = &g->values[id];
	size_t nlen = strlen(v->name);
	bool ok = !with_name || ((label_put(e, &len, v->name, nlen > 40 ? 40 : nlen) &&
				  (nlen <= 40 || label_put(e, &len, "...", 3))) &&
				 label_put(e, &len, " ", 1));
	const tinfo *t = &v->ti;
	if (ok && (t->kind != TK_TENSOR || t->rank < 0)) {
		bool unknown = t->kind == TK_UNKNOWN || t->kind == TK_TENSOR;
		ok = label_put(e, &len, unknown ? "?" : "(not a tensor)", unknown ? 1 : 14);
		goto done;
	}
	ok = ok && label_put(e, &len, "(", 1);
	for (int32_t k = 0; ok && k < t->rank; k++) {
		char buf[DX_MAX_TEXT + 32];
		dim_format(buf, sizeof buf, t->dims[k], sym_name_cb, &m->syms);
		if (k)
			ok = label_put(e, &len, ", ", 2);
		size_t start = len;
		ok = ok && label_put(e, &len, buf, strlen(buf));
		if (ok && (k == mark_k || hl_has(hs, g, id, k)) && e->nhl < RG_HL_MAX) {
			e->hl[e->nhl][0] = (int16_t)start;
			e->hl[e->nhl][1] = (int16_t)len;
			e->nhl++;
		}
	}
	ok = ok && label_put(e, &len, t->rank == 1 ? ",)" : ")", t->rank == 1 ? 2 : 1);
done:
	if (!ok) {
		memcpy(e->label + len, "...", 4);
		/* A mark cut in half would end past the text. */
		while (e->nhl && (size_t)e->hl[e->nhl - 1][1] > len)
			e->nhl--;
	}
}

/* ---- building ------------------------------------------------------------------------ */

static int32_t box_add(rg_hood *h, rg_box b)
{
	if (!b.downstream)
		for (int32_t i = 0; i < h->nboxes; i++) {
			const rg_box *o = &h->boxes[i];
			if (!o->downstream && o->kind == b.kind && o->kind != RG_MORE && o->key_graph == b.key_graph &&
			    o->key_index == b.key_index)
				return i;
		}
	if (!grow_array(&h->boxes, (size_t)h->nboxes, &h->cap_boxes, sizeof *h->boxes))
		return -1;
	h->boxes[h->nboxes] = b;
	return h->nboxes++;
}

/* An edge from -> to carrying value id of g; false when memory ran out. Repeats
 * (an operand used twice) are drawn once. */
static bool edge_add(rg_hood *h, osh_model *m, int32_t from, int32_t to, const graph *g, int32_t id,
		     const hl_set *hs, int32_t mark_k)
{
	if (from < 0 || to < 0)
		return false;
	for (int32_t i = 0; i < h->nedges; i++)
		if (h->edges[i].from == from && h->edges[i].to == to)
			return true;
	if (!grow_array(&h->edges, (size_t)h->nedges, &h->cap_edges, sizeof *h->edges))
		return false;
	rg_edge *e = &h->edges[h->nedges++];
	e->from = from, e->to = to;
	if (id >= 0) {
		make_label(m, g, id, hs, mark_k, true, e);
	} else {
		e->label[0] = '\0';
		e->nhl = 0;
	}
	h->nhl += e->nhl;
	return true;
}

static int32_t node_box(rg_hood *h, const graph *fg, const graph *g, int32_t ni, bool downstream)
{
	const node *n = &g->nodes[ni];
	return box_add(h, (rg_box){.kind = RG_NODE, .node_index = g == fg ? ni : -1, .name = n->name,
				   .what = n->op_type, .key_graph = g, .key_index = ni, .downstream = downstream});
}

static int32_t more_box(rg_hood *h, int64_t more, const char *what, bool downstream)
{
	return box_add(h, (rg_box){.kind = RG_MORE, .node_index = -1, .name = "", .what = what, .more = more,
				   .key_index = -1, .downstream = downstream});
}

/* The box of whatever defines value id of g (following outer-scope names). */
static int32_t source_box(rg_hood *h, const graph *fg, const graph *g, int32_t id)
{
	const value *v = &g->values[id];
	while (v->origin == VAL_OUTER && value_outer(v) && value_outer_id(v) >= 0) {
		g = value_outer(v);
		id = value_outer_id(v);
		v = &g->values[id];
	}
	if (v->origin == VAL_NODE && v->producer >= 0)
		return node_box(h, fg, g, v->producer, false);
	rg_kind k = v->origin == VAL_INPUT ? RG_INPUT : v->origin == VAL_INITIALIZER ? RG_INITIALIZER : RG_UNDEFINED;
	const char *what = k == RG_INPUT ? "graph input" : k == RG_INITIALIZER ? "initializer" : "undefined";
	return box_add(h, (rg_box){.kind = k, .node_index = -1, .name = v->name, .what = what, .key_graph = g,
				   .key_index = id});
}

/* Operand id of the focus: the chain that carried its dimension k (or only its
 * producer when that cannot be told), ending in an edge into `to`. */
static bool operand(rg_hood *h, osh_model *m, graph *g, int32_t id, int32_t to, const hl_set *hs)
{
	int32_t mark = hl_first(hs, g, id);
	int32_t k = mark >= 0 ? mark : g->values[id].ti.rank - 1;
	/* 4 KB: one walk at a time, on the worker's stack. */
	prov_trace t;
	if (k < 0 || !prov_trace_dim(m, g, id, k, &t) || t.nhops == 0)
		return edge_add(h, m, source_box(h, g, g, id), to, g, id, hs, -1);
	int32_t show = t.nhops <= SHOW_HOPS ? t.nhops : SHOW_HOPS - 1;
	for (int32_t j = 0; j < show; j++) {
		const prov_hop *p = &t.hops[j];
		int32_t b = node_box(h, g, p->g, p->ni, false);
		if (!edge_add(h, m, b, to, p->g, p->id, hs, mark >= 0 ? p->k : -1))
			return false;
		to = b;
	}
	if (show < t.nhops) {
		const prov_hop *p = &t.hops[show];
		int32_t b = more_box(h, t.nhops - show, "nodes", false);
		if (!edge_add(h, m, b, to, p->g, p->id, hs, mark >= 0 ? p->k : -1))
			return false;
		to = b;
	}
	int32_t ob = t.origin == PROV_NODE ? node_box(h, g, t.g, t.ni, false) : source_box(h, g, t.g, t.id);
	return edge_add(h, m, ob, to, t.g, t.id, hs, mark >= 0 ? t.k : -1);
}

/* The consumers of value id (or its graph-output box), to the right of `from`. */
static bool consumers(rg_hood *h, osh_model *m, graph *g, int32_t id, int32_t from, const hl_set *hs)
{
	const value *v = &g->values[id];
	int32_t shown = 0, more = 0, last = -1;
	for (int32_t c = 0; c < v->nconsumers; c++) {
		int32_t ni = v->consumers[c];
		if (ni == last)
			continue;
		last = ni;
		if (shown == SHOW_CONSUMERS) {
			more++;
			continue;
		}
		shown++;
		if (!edge_add(h, m, from, node_box(h, g, g, ni, true), g, id, hs, -1))
			return false;
	}
	if (more && !edge_add(h, m, from, more_box(h, more, "consumers", true), g, id, hs, -1))
		return false;
	if (v->is_output || !v->nconsumers) {
		int32_t b = box_add(h, (rg_box){.kind = RG_OUTPUT, .node_index = -1, .name = v->name,
						.what = v->is_output ? "graph output" : "unused", .key_index = -1,
						.downstream = true});
		return edge_add(h, m, from, b, g, id, hs, -1);
	}
	return true;
}

/* Where dimension 0 of a rank-r operand falls in a result of rank R: numpy aligns
 * on the right; an "axis" attribute places a lower-rank operand at that axis where
 * the node's rule reads it (its axis form: Paddle's operators, ai.onnx's legacy
 * ones before opset 7; a stray one on a later opset is ignored, as runtimes do).
 * A placement that does not fit is shown right-aligned. */
static int32_t offset_of(const node *n, int32_t r, int32_t R)
{
	axis_form f;
	int64_t at = r < R && bsite_axis_form(n, &f) ? bcast_axis_at(f.axis, r, R) : R - r;
	return at >= 0 && at + r <= R ? (int32_t)at : R - r;
}

/* Dimension p (of the result) of input i, resolved; unknown when it has none. */
static dim operand_dim(osh_model *m, const graph *g, const node *n, int32_t i, int32_t p, int32_t R, int32_t *k)
{
	const tinfo *t = n->inputs[i] >= 0 ? &g->values[n->inputs[i]].ti : NULL;
	*k = -1;
	if (!t || !tinfo_has_rank(t))
		return dim_unknown();
	*k = p - offset_of(n, t->rank, R);
	if (*k < 0 || *k >= t->rank) {
		*k = -1;
		return dim_unknown();
	}
	return dim_resolve(&m->syms, t->dims[*k]);
}

/* The dimensions a finding is about: where a broadcasting node's operands disagree
 * (aligned as the node aligns them), else "dimension K" of the finding's value,
 * or every size of it that is not a number (dynamic-shape). */
static void find_highlights(osh_model *m, graph *g, const node *n, const osh_diag *d, int32_t vid, hl_set *hs)
{
	static const char *const bcast_codes[] = {"broadcast-mismatch", "outer-broadcast", "same-size-broadcast",
						  "symbol-constraint", "implicit-broadcast", "axis-broadcast"};
	bool bcast = false;
	for (size_t i = 0; n && i < sizeof bcast_codes / sizeof *bcast_codes; i++)
		bcast |= !strcmp(d->code, bcast_codes[i]);
	/* A mismatch is about the sizes that cannot broadcast: under the rules where
	 * either side's 1 stretches (broadcasting.md), (2, 4) against (2, 1) is no
	 * conflict at 1. Under the strict ones a 1 may be the conflict itself, and the
	 * warnings are about sizes that do broadcast, a 1 included. */
	bsite site;
	bool conflict = n && !strcmp(d->code, "broadcast-mismatch") && bsite_of(n, &site) &&
			(site.rule == BCAST_NUMPY || site.rule == BCAST_PADDLE);
	if (bcast) {
		int32_t R = 0, k;
		for (int32_t i = 0; i < n->ninputs; i++)
			if (n->inputs[i] >= 0 && tinfo_has_rank(&g->values[n->inputs[i]].ti))
				R = g->values[n->inputs[i]].ti.rank > R ? g->values[n->inputs[i]].ti.rank : R;
		for (int32_t p = 0; p < R; p++) {
			dim first = dim_unknown();
			bool differ = false;
			for (int32_t i = 0; i < n->ninputs; i++) {
				dim x = operand_dim(m, g, n, i, p, R, &k);
				if (x.kind == DIM_UNKNOWN || (conflict && dim_is(x, 1)))
					continue;
				if (first.kind == DIM_UNKNOWN)
					first = x;
				else if (!dim_eq(first, x))
					differ = true;
			}
			if (!differ)
				continue;
			for (int32_t i = 0; i < n->ninputs; i++) {
				dim x = operand_dim(m, g, n, i, p, R, &k);
				if (x.kind != DIM_UNKNOWN && !(conflict && dim_is(x, 1)))
					hl_add(hs, g, n->inputs[i], k);
			}
			const tinfo *o = n->noutputs && n->outputs[0] >= 0 ? &g->values[n->outputs[0]].ti : NULL;
			if (o && tinfo_has_rank(o) && o->rank == R)
				hl_add(hs, g, n->outputs[0], p);
		}
		if (hs->n)
			return;
	}
	if (vid < 0)
		return;
	const tinfo *t = &g->values[vid].ti;
	const char *at = strstr(d->message, "dimension ");
	if (at && at[10] >= '0' && at[10] <= '9') {
		long k = strtol(at + 10, NULL, 10);
		if (tinfo_has_rank(t) && k < t->rank)
			hl_add(hs, g, vid, (int32_t)k);
		return;
	}
	if (!strcmp(d->code, "dynamic-shape") && tinfo_has_rank(t))
		for (int32_t k = 0; k < t->rank; k++)
			if (t->dims[k].kind != DIM_KNOWN)
				hl_add(hs, g, vid, k);
}

bool rg_hood_build(osh_model *m, const osh_diag *d, rg_hood *h)
{
	*h = (rg_hood){0};
	graph *g = graph_of(m, d->graph);
	if (!g)
		return false;
	const node *n = d->node_index >= 0 && d->node_index < g->nnodes ? &g->nodes[d->node_index] : NULL;
	int32_t vid = d->value[0] ? strmap_get(&g->names, d->value) : -1;
	if (vid >= g->nvalues)
		vid = -1;
	if (!n && vid < 0)
		return false;
	hl_set hs = {.n = 0};
	find_highlights(m, g, n, d, vid, &hs);
	bool ok = true;
	if (!n) {
		/* A finding about a value alone: where it comes from, and its users. */
		int32_t f = source_box(h, g, g, vid);
		ok = f >= 0;
		if (ok) {
			h->boxes[f].focus = true;
			ok = consumers(h, m, g, vid, f, &hs);
		}
	} else {
		int32_t f = node_box(h, g, g, (int32_t)d->node_index, false);
		ok = f >= 0;
		if (ok)
			h->boxes[f].focus = true;
		int32_t shown = 0;
		for (int32_t i = 0; ok && i < n->ninputs; i++) {
			if (n->inputs[i] < 0)
				continue;
			if (shown++ == SHOW_OPERANDS) {
				ok = edge_add(h, m, more_box(h, n->ninputs - i, "inputs", false), f, g, -1, &hs, -1);
				break;
			}
			ok = operand(h, m, g, n->inputs[i], f, &hs);
		}
		for (int32_t o = 0; ok && o < n->noutputs; o++) {
			if (n->outputs[o] < 0)
				continue;
			if (o == SHOW_OUTPUTS) {
				ok = edge_add(h, m, f, more_box(h, n->noutputs - o, "results", true), g, -1, &hs, -1);
				break;
			}
			ok = consumers(h, m, g, n->outputs[o], f, &hs);
		}
	}
	if (!ok)
		rg_hood_free(h);
	return ok;
}

void rg_hood_free(rg_hood *h)
{
	free(h->boxes);
	free(h->edges);
	*h = (rg_hood){0};
}

/* ---- the value table and the symbols -------------------------------------------------- */

int64_t rg_value_count(const osh_model *m) { return m->main ? m->main->nvalues : 0; }

void rg_value_at(osh_model *m, int64_t i, rg_value *out)
{
	static const char *const origins[] = {"undefined", "input", "initializer", "node", "outer"};
	const value *v = &m->main->values[i];
	const char *elem = v->ti.elem ? osh_elem_type_name(v->ti.elem) : NULL;
	*out = (rg_value){.name = v->name, .elem = elem ? elem : "", .producer = v->origin == VAL_NODE ? v->producer : -1,
			  .origin = v->origin < 5 ? origins[v->origin] : "?"};
	rg_edge e;
	hl_set none = {.n = 0};
	make_label(m, m->main, (int32_t)i, &none, -1, false, &e);
	memcpy(out->shape, e.label, sizeof out->shape);
}

bool rg_node_at(const osh_model *m, int64_t i, const char **name, const char **op_type)
{
	if (!m->main || i < 0 || i >= m->main->nnodes)
		return false;
	*name = m->main->nodes[i].name;
	*op_type = m->main->nodes[i].op_type;
	return true;
}

int64_t rg_symbol_count(const osh_model *m) { return m->syms.n; }

void rg_symbol_at(osh_model *m, int64_t i, rg_symbol *out)
{
	const sym_entry *e = &m->syms.v[i];
	*out = (rg_symbol){.name = e->name, .fresh = e->fresh};
	out->what = e->fresh ? "made up for an unknown size"
		    : e->kind != DX_NAME ? "expression"
		    : e->input ? "size of a graph input"
		    : "dim_param";
	dim r = sym_resolve(&m->syms, i);
	if (r.kind == DIM_SYMBOL && r.v == i)
		return;
	dim_format(out->learned, sizeof out->learned, r, sym_name_cb, &m->syms);
}
