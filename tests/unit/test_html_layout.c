/* test_html_layout.c: the layered layout of the HTML report's drawings
 * (src/cli/html_layout.c) on random DAGs: boxes never overlap, edges never pass
 * through a box or a label, labels lie in the gaps, every edge is drawn, left to
 * right.
 */
#include "html_layout.h"

#include <criterion/criterion.h>
#include <math.h>

typedef struct rect {
	double x, y, w, h;
} rect;

static bool overlap(rect a, rect b)
{
	return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

static bool strictly_inside(double px, double py, const lay_node *n)
{
	return px > n->x + 0.5 && px < n->x + n->w - 0.5 && py > n->y + 0.5 && py < n->y + n->h - 0.5;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The point at t of the curve the renderer draws between a and b (html_draw.c):
 * a line when level, else a cubic with horizontal tangents at the middle x. */
static void curve_at(const double *a, const double *b, double t, double *x, double *y)
{
	double mx = (a[0] + b[0]) / 2, u = 1 - t;
	*x = u * u * u * a[0] + 3 * u * u * t * mx + 3 * u * t * t * mx + t * t * t * b[0];
	*y = u * u * u * a[1] + 3 * u * u * t * a[1] + 3 * u * t * t * b[1] + t * t * t * b[1];
}

/* Edge e's label: right-aligned at lx, 11 px text on baseline ly. */
static rect label_of(const lay_edge *e) { return (rect){e->lx - e->label_w, e->ly - 9, e->label_w, 11}; }

static bool in_rect(double x, double y, rect r)
{
	return x > r.x + 0.5 && x < r.x + r.w - 0.5 && y > r.y + 0.5 && y < r.y + r.h - 0.5;
}

static void check(lay_graph *g, int32_t nreal)
{
	for (int32_t i = 0; i < nreal; i++)
		for (int32_t j = i + 1; j < nreal; j++) {
			const lay_node *a = &g->nodes[i], *b = &g->nodes[j];
			cr_assert(!overlap((rect){a->x, a->y, a->w, a->h}, (rect){b->x, b->y, b->w, b->h}),
				  "boxes %d and %d overlap", i, j);
		}
	for (int32_t e = 0; e < g->nedges; e++) {
		const lay_edge *ed = &g->edges[e];
		cr_assert_geq(ed->npts, 2, "edge %d not drawn", e);
		const double *p = g->pts + 2 * ed->first;
		for (int32_t k = 1; k < ed->npts; k++) {
			cr_assert_geq(p[2 * k], p[2 * k - 2], "edge %d goes right to left", e);
			for (int s = 0; s <= 32; s++) {
				double x, y;
				curve_at(p + 2 * k - 2, p + 2 * k, s / 32.0, &x, &y);
				for (int32_t i = 0; i < nreal; i++)
					cr_assert(!strictly_inside(x, y, &g->nodes[i]), "edge %d crosses box %d", e, i);
				for (int32_t o = 0; o < g->nedges; o++)
					cr_assert(g->edges[o].label_w <= 0 || !in_rect(x, y, label_of(&g->edges[o])),
						  "edge %d crosses the label of edge %d", e, o);
			}
		}
		rect label = label_of(ed);
		for (int32_t i = 0; ed->label_w > 0 && i < nreal; i++) {
			const lay_node *n = &g->nodes[i];
			cr_assert(!overlap(label, (rect){n->x, n->y, n->w, n->h}), "label of edge %d on box %d", e, i);
		}
	}
	cr_assert_gt(g->width, 0);
	cr_assert_gt(g->height, 0);
}

/* A random DAG: edges only from lower to higher index, some long, some fan-in. */
Test(html_layout, random_dags_keep_the_guarantees)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;
	for (int round = 0; round < 300; round++) {
		lay_graph g = {0};
		int32_t n = 2 + (int32_t)(rnd(&seed) % 30);
		for (int32_t i = 0; i < n; i++)
			cr_assert_geq(lay_add_node(&g, 30 + (double)(rnd(&seed) % 150), rnd(&seed) % 3 ? 38 : 24), 0);
		int32_t m = (int32_t)(rnd(&seed) % (unsigned)(2 * n));
		for (int32_t k = 0; k < m; k++) {
			int32_t a = (int32_t)(rnd(&seed) % (unsigned)(n - 1));
			int32_t b = a + 1 + (int32_t)(rnd(&seed) % (unsigned)(n - 1 - a));
			cr_assert_geq(lay_add_edge(&g, a, b, (double)(rnd(&seed) % 200)), 0);
		}
		cr_assert(lay_run(&g));
		check(&g, n);
		lay_free(&g);
	}
}

/* A node with many inputs grows to give each its port and label. */
Test(html_layout, fan_in_grows_the_box)
{
	lay_graph g = {0};
	int32_t sink = lay_add_node(&g, 50, 38);
	for (int i = 0; i < 9; i++)
		lay_add_edge(&g, lay_add_node(&g, 40, 38), sink, 80);
	cr_assert(lay_run(&g));
	cr_assert_geq(g.nodes[sink].h, LAY_PORT_TOP + 8 * LAY_PORT);
	check(&g, 10);
	lay_free(&g);
}

/* A cycle (only a malformed graph has one) is laid out without looping; the edge
 * against the layers is left undrawn. */
Test(html_layout, cycle_terminates)
{
	lay_graph g = {0};
	int32_t a = lay_add_node(&g, 40, 38), b = lay_add_node(&g, 40, 38);
	lay_add_edge(&g, a, b, 10);
	lay_add_edge(&g, b, a, 10);
	cr_assert(lay_run(&g));
	int drawn = (g.edges[0].npts >= 2) + (g.edges[1].npts >= 2);
	cr_assert_leq(drawn, 1);
	lay_free(&g);
}
