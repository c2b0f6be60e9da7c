/* html_layout.c: see html_layout.h. The classic steps of a layered layout, each
 * the simplest that keeps the guarantees: longest-path layers, a placeholder per
 * layer an edge skips, barycentre ordering, then coordinates, with boxes stacked
 * top down in each column so that nothing can overlap whatever the earlier steps
 * chose.
 *
 * Some steps scan every edge per node (quadratic): the drawings are small, the
 * report cuts neighbourhoods at a few dozen boxes, and plain loops stay legible.
 */
#include "html_layout.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 8.0
#define VGAP 14.0       /* between boxes of a column */
#define HGAP_MIN 40.0   /* between columns */
#define LABEL_ROOM 18.0 /* a label's margins in its gap: the arrowhead, its start */
#define CURVE_MIN 40.0  /* room for the curves of a gap, left of its labels */
#define DUMMY_H 10.0
#define SWEEPS 8

int32_t lay_add_node(lay_graph *g, double w, double h)
{
	if (!grow_array(&g->nodes, (size_t)g->nnodes, &g->cap_nodes, sizeof *g->nodes))
		return -1;
	g->nodes[g->nnodes] = (lay_node){.w = w, .h = h};
	return g->nnodes++;
}

int32_t lay_add_edge(lay_graph *g, int32_t from, int32_t to, double label_w)
{
	if (!grow_array(&g->edges, (size_t)g->nedges, &g->cap_edges, sizeof *g->edges))
		return -1;
	g->edges[g->nedges] = (lay_edge){.from = from, .to = to, .label_w = label_w};
	return g->nedges++;
}

void lay_free(lay_graph *g)
{
	free(g->nodes);
	free(g->edges);
	free(g->pts);
	*g = (lay_graph){0};
}

/* A segment joins two nodes of adjacent layers: a piece of an edge. */
typedef struct seg {
	int32_t u, v, edge;
	int32_t out_port, in_port; /* index among u's outgoing / v's incoming segments */
} seg;

typedef struct work {
	lay_graph *g;
	seg *segs;
	int32_t nsegs;
	size_t cap_segs;
	int32_t *chain_first; /* per edge: its first segment (its segments are in a row) */
	int32_t *chain_n;
	int32_t nlayers;
	int32_t **layer;  /* node ids per layer, in order */
	int32_t *layer_n;
	int32_t *nin, *nout; /* segments into / out of each node */
	double *key;
} work;

/* Longest-path layering from the sources (Kahn's order); what a cycle leaves
 * unreached stays in layer 0. */
static bool assign_layers(lay_graph *g)
{
	int32_t n = g->nnodes;
	int32_t *indeg = calloc((size_t)n + 1, sizeof *indeg), *queue = malloc(((size_t)n + 1) * sizeof *queue);
	if (!indeg || !queue) {
		free(indeg), free(queue);
		return false;
	}
	for (int32_t e = 0; e < g->nedges; e++)
		indeg[g->edges[e].to]++;
	int32_t head = 0, tail = 0;
	for (int32_t i = 0; i < n; i++) {
		g->nodes[i].layer = 0;
		if (!indeg[i])
			queue[tail++] = i;
	}
	/* Edges are few: a scan per node costs less than building adjacency lists. */
	while (head < tail) {
		int32_t u = queue[head++];
		for (int32_t e = 0; e < g->nedges; e++) {
			if (g->edges[e].from != u)
				continue;
			int32_t v = g->edges[e].to;
			if (g->nodes[v].layer < g->nodes[u].layer + 1)
				g->nodes[v].layer = g->nodes[u].layer + 1;
			if (--indeg[v] == 0)
				queue[tail++] = v;
		}
	}
	/* Then every node that has successors as late as they allow: a chain's origin
	 * sits right before the node it feeds, not in the first column with the
	 * longest chain's. queue holds the nodes in topological order. */
	int32_t low = INT32_MAX;
	for (int32_t q = tail - 1; q >= 0; q--) {
		int32_t u = queue[q], next = INT32_MAX;
		for (int32_t e = 0; e < g->nedges; e++)
			if (g->edges[e].from == u && g->nodes[g->edges[e].to].layer < next)
				next = g->nodes[g->edges[e].to].layer;
		if (next != INT32_MAX && next - 1 > g->nodes[u].layer)
			g->nodes[u].layer = next - 1;
	}
	for (int32_t i = 0; i < n; i++)
		low = g->nodes[i].layer < low ? g->nodes[i].layer : low;
	for (int32_t i = 0; i < n; i++)
		g->nodes[i].layer -= low;
	free(indeg), free(queue);
	return true;
}

static bool add_seg(work *w, int32_t u, int32_t v, int32_t edge)
{
	if (!grow_array(&w->segs, (size_t)w->nsegs, &w->cap_segs, sizeof *w->segs))
		return false;
	w->segs[w->nsegs++] = (seg){u, v, edge, 0, 0};
	return true;
}

/* Splits every edge into segments between adjacent layers, through placeholders. */
static bool split_edges(work *w)
{
	lay_graph *g = w->g;
	w->chain_first = calloc((size_t)g->nedges + 1, sizeof *w->chain_first);
	w->chain_n = calloc((size_t)g->nedges + 1, sizeof *w->chain_n);
	if (!w->chain_first || !w->chain_n)
		return false;
	int32_t nedges = g->nedges;
	for (int32_t e = 0; e < nedges; e++) {
		int32_t u = g->edges[e].from, v = g->edges[e].to;
		int32_t lu = g->nodes[u].layer, lv = g->nodes[v].layer;
		w->chain_first[e] = w->nsegs;
		if (lv <= lu)
			continue; /* against the layers: not drawn */
		int32_t prev = u;
		for (int32_t l = lu + 1; l < lv; l++) {
			int32_t d = lay_add_node(g, 0, DUMMY_H);
			if (d < 0)
				return false;
			g->nodes[d].layer = l;
			g->nodes[d].dummy = true;
			if (!add_seg(w, prev, d, e))
				return false;
			prev = d;
		}
		if (!add_seg(w, prev, v, e))
			return false;
		w->chain_n[e] = w->nsegs - w->chain_first[e];
	}
	return true;
}

static bool build_layers(work *w)
{
	lay_graph *g = w->g;
	int32_t n = g->nnodes;
	w->nlayers = 0;
	for (int32_t i = 0; i < n; i++)
		if (g->nodes[i].layer + 1 > w->nlayers)
			w->nlayers = g->nodes[i].layer + 1;
	w->layer = calloc((size_t)w->nlayers + 1, sizeof *w->layer);
	w->layer_n = calloc((size_t)w->nlayers + 1, sizeof *w->layer_n);
	w->nin = calloc((size_t)n + 1, sizeof *w->nin);
	w->nout = calloc((size_t)n + 1, sizeof *w->nout);
	w->key = calloc((size_t)n + 1, sizeof *w->key);
	if (!w->layer || !w->layer_n || !w->nin || !w->nout || !w->key)
		return false;
	for (int32_t i = 0; i < n; i++)
		w->layer_n[g->nodes[i].layer]++;
	for (int32_t l = 0; l < w->nlayers; l++) {
		w->layer[l] = malloc(((size_t)w->layer_n[l] + 1) * sizeof **w->layer);
		if (!w->layer[l])
			return false;
		w->layer_n[l] = 0;
	}
	for (int32_t i = 0; i < n; i++) {
		int32_t l = g->nodes[i].layer;
		g->nodes[i].order = w->layer_n[l];
		w->layer[l][w->layer_n[l]++] = i;
	}
	for (int32_t s = 0; s < w->nsegs; s++)
		w->nin[w->segs[s].v]++, w->nout[w->segs[s].u]++;
	return true;
}

/* Insertion sort of a layer by key (stable; layers are short). */
static void sort_layer(work *w, int32_t l)
{
	int32_t *a = w->layer[l];
	for (int32_t i = 1; i < w->layer_n[l]; i++) {
		int32_t x = a[i], j = i;
		while (j > 0 && w->key[a[j - 1]] > w->key[x]) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
	for (int32_t i = 0; i < w->layer_n[l]; i++)
		w->g->nodes[a[i]].order = i;
}

/* One sweep: each node of a layer moves to the mean position of its neighbours in
 * the layer before (down) or after (up); a node without any keeps its place. */
static void sweep(work *w, bool down)
{
	lay_graph *g = w->g;
	int32_t n = g->nnodes;
	double *sum = w->key;
	for (int32_t step = 1; step < w->nlayers; step++) {
		int32_t l = down ? step : w->nlayers - 1 - step;
		for (int32_t i = 0; i < w->layer_n[l]; i++)
			sum[w->layer[l][i]] = 0;
		int32_t *seen = calloc((size_t)n + 1, sizeof *seen);
		if (!seen)
			return; /* the order so far is still a valid one */
		for (int32_t s = 0; s < w->nsegs; s++) {
			const seg *sg = &w->segs[s];
			int32_t me = down ? sg->v : sg->u, other = down ? sg->u : sg->v;
			if (g->nodes[me].layer != l)
				continue;
			sum[me] += g->nodes[other].order;
			seen[me]++;
		}
		for (int32_t i = 0; i < w->layer_n[l]; i++) {
			int32_t v = w->layer[l][i];
			/* A small bias keeps ties in their current order. */
			sum[v] = seen[v] ? sum[v] / seen[v] + i * 1e-6 : i;
		}
		free(seen);
		sort_layer(w, l);
	}
}

/* Ports: each node's incoming segments numbered by their source's position, its
 * outgoing ones by their target's, so that edges leave and arrive in order. */
static void number_ports(work *w)
{
	lay_graph *g = w->g;
	for (int32_t s = 0; s < w->nsegs; s++) {
		seg *a = &w->segs[s];
		a->in_port = a->out_port = 0;
		for (int32_t t = 0; t < w->nsegs; t++) {
			const seg *b = &w->segs[t];
			if (b->v == a->v && (g->nodes[b->u].order < g->nodes[a->u].order ||
					     (b->u == a->u && t < s)))
				a->in_port++;
			if (b->u == a->u && (g->nodes[b->v].order < g->nodes[a->v].order ||
					     (b->v == a->v && t < s)))
				a->out_port++;
		}
	}
	for (int32_t i = 0; i < g->nnodes; i++) {
		lay_node *nd = &g->nodes[i];
		if (nd->dummy)
			continue;
		double need = LAY_PORT_TOP + (w->nin[i] ? (w->nin[i] - 1) * LAY_PORT : 0) + 10;
		if (nd->h < need)
			nd->h = need;
	}
}

static double in_port_y(const work *w, const seg *s)
{
	const lay_node *v = &w->g->nodes[s->v];
	return v->dummy ? v->y + v->h / 2 : v->y + LAY_PORT_TOP + s->in_port * LAY_PORT;
}

static double out_port_y(const work *w, const seg *s)
{
	const lay_node *u = &w->g->nodes[s->u];
	return u->dummy ? u->y + u->h / 2 : u->y + u->h * (s->out_port + 1) / (w->nout[s->u] + 1);
}

/* Places the nodes of layer l top down in order, each at its wish (want[v], NAN:
 * none) or just under the one above, whichever is lower: no two overlap. */
static void stack(work *w, int32_t l, const double *want)
{
	double bottom = MARGIN - VGAP;
	for (int32_t i = 0; i < w->layer_n[l]; i++) {
		lay_node *nd = &w->g->nodes[w->layer[l][i]];
		double y = want[w->layer[l][i]];
		if (isnan(y) || y < bottom + VGAP)
			y = bottom + VGAP;
		nd->y = y;
		bottom = y + nd->h;
	}
}

/* Vertical coordinates: each node lines its ports up with its neighbours' where
 * the stacking allows, first from the left, then sources from the right. */
static bool place_y(work *w)
{
	lay_graph *g = w->g;
	int32_t n = g->nnodes;
	double *want = malloc(((size_t)n + 1) * sizeof *want), *cnt = malloc(((size_t)n + 1) * sizeof *cnt);
	if (!want || !cnt) {
		free(want), free(cnt);
		return false;
	}
	for (int32_t i = 0; i < n; i++)
		want[i] = NAN;
	for (int32_t l = 0; l < w->nlayers; l++)
		stack(w, l, want);
	for (int pass = 0; pass < 2; pass++) {
		bool down = pass == 0;
		for (int32_t step = 1; step < w->nlayers; step++) {
			int32_t l = down ? step : w->nlayers - 1 - step;
			for (int32_t i = 0; i < w->layer_n[l]; i++)
				want[w->layer[l][i]] = 0, cnt[w->layer[l][i]] = 0;
			for (int32_t s = 0; s < w->nsegs; s++) {
				const seg *sg = &w->segs[s];
				int32_t me = down ? sg->v : sg->u;
				if (g->nodes[me].layer != l || (!down && w->nin[me]))
					continue;
				/* Where my port would meet the other end's. */
				double other = down ? out_port_y(w, sg) : in_port_y(w, sg);
				double mine = down ? in_port_y(w, sg) - g->nodes[me].y : out_port_y(w, sg) - g->nodes[me].y;
				want[me] += other - mine;
				cnt[me]++;
			}
			for (int32_t i = 0; i < w->layer_n[l]; i++) {
				int32_t v = w->layer[l][i];
				want[v] = cnt[v] ? want[v] / cnt[v] : (down ? NAN : g->nodes[v].y);
			}
			stack(w, l, want);
		}
	}
	free(want), free(cnt);
	/* Up to the top margin. */
	double top = 1e300;
	for (int32_t i = 0; i < n; i++)
		top = g->nodes[i].y < top ? g->nodes[i].y : top;
	for (int32_t i = 0; i < n; i++)
		g->nodes[i].y += MARGIN - top;
	return true;
}

static bool put_pt(lay_graph *g, double x, double y)
{
	if (!grow_array(&g->pts, (size_t)g->npts, &g->cap_pts, 2 * sizeof *g->pts))
		return false;
	g->pts[2 * g->npts] = x;
	g->pts[2 * g->npts + 1] = y;
	g->npts++;
	return true;
}

/* Columns as wide as their widest box, gaps as wide as the labels that end in them;
 * then each edge's points. */
static bool place_x(work *w)
{
	lay_graph *g = w->g;
	double *colw = calloc((size_t)w->nlayers + 1, sizeof *colw), *colx = calloc((size_t)w->nlayers + 1, sizeof *colx);
	double *gap = calloc((size_t)w->nlayers + 1, sizeof *gap);
	bool ok = colw && colx && gap;
	for (int32_t i = 0; ok && i < g->nnodes; i++)
		if (g->nodes[i].w > colw[g->nodes[i].layer])
			colw[g->nodes[i].layer] = g->nodes[i].w;
	for (int32_t e = 0; ok && e < g->nedges; e++) {
		int32_t l = g->nodes[g->edges[e].to].layer;
		if (w->chain_n[e] && g->edges[e].label_w > gap[l])
			gap[l] = g->edges[e].label_w;
	}
	/* gap[l] is now the widest label ending in layer l: every edge into the layer
	 * runs straight (at its port's height) under the labels, and curves only to
	 * their left, so no curve crosses a label. */
	double *labw = calloc((size_t)w->nlayers + 1, sizeof *labw);
	ok = ok && labw;
	for (int32_t l = 0; ok && l < w->nlayers; l++) {
		labw[l] = gap[l];
		gap[l] = labw[l] ? labw[l] + LABEL_ROOM + CURVE_MIN : 0;
	}
	for (int32_t l = 0; ok && l < w->nlayers; l++) {
		double gl = gap[l] > HGAP_MIN ? gap[l] : HGAP_MIN;
		colx[l] = l ? colx[l - 1] + colw[l - 1] + gl : MARGIN;
	}
	double bottom = 0;
	for (int32_t i = 0; ok && i < g->nnodes; i++) {
		g->nodes[i].x = colx[g->nodes[i].layer];
		if (g->nodes[i].y + g->nodes[i].h > bottom)
			bottom = g->nodes[i].y + g->nodes[i].h;
	}
	for (int32_t e = 0; ok && e < g->nedges; e++) {
		lay_edge *ed = &g->edges[e];
		ed->first = g->npts;
		ed->npts = 0;
		if (!w->chain_n[e])
			continue;
		const seg *first = &w->segs[w->chain_first[e]];
		const lay_node *u = &g->nodes[ed->from];
		double y = out_port_y(w, first);
		ok = put_pt(g, u->x + u->w, y);
		/* Along the rest of the source's column, inside its own slot. */
		if (ok && u->w < colw[u->layer])
			ok = put_pt(g, colx[u->layer] + colw[u->layer], y);
		for (int32_t k = 0; ok && k < w->chain_n[e]; k++) {
			const seg *s = &w->segs[w->chain_first[e] + k];
			const lay_node *v = &g->nodes[s->v];
			double yv = in_port_y(w, s);
			if (labw[v->layer])
				ok = put_pt(g, v->x - labw[v->layer] - LABEL_ROOM, yv);
			ok = ok && put_pt(g, v->x, yv);
			if (ok && v->dummy)
				ok = put_pt(g, v->x + colw[v->layer], yv);
			if (!v->dummy) {
				ed->lx = v->x - LABEL_ROOM / 2;
				ed->ly = yv - 4;
			}
		}
		ed->npts = g->npts - ed->first;
	}
	if (ok) {
		g->width = colx[w->nlayers - 1] + colw[w->nlayers - 1] + MARGIN;
		g->height = bottom + MARGIN;
	}
	free(colw), free(colx), free(gap), free(labw);
	return ok;
}

bool lay_run(lay_graph *g)
{
	g->npts = 0;
	g->width = g->height = 2 * MARGIN;
	if (!g->nnodes)
		return true;
	work w = {.g = g};
	bool ok = assign_layers(g) && split_edges(&w) && build_layers(&w);
	for (int i = 0; ok && i < SWEEPS; i++)
		sweep(&w, i % 2 == 0);
	if (ok) {
		number_ports(&w);
		ok = place_y(&w) && place_x(&w);
	}
	for (int32_t l = 0; w.layer && l < w.nlayers; l++)
		free(w.layer[l]);
	free(w.layer), free(w.layer_n), free(w.nin), free(w.nout), free(w.key);
	free(w.segs), free(w.chain_first), free(w.chain_n);
	return ok;
}
