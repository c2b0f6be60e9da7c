/* html_layout.h: a small layered (Sugiyama-style) layout, left to right, for the
 * drawings of the HTML report: a few dozen boxes joined by labelled edges.
 *
 * Guarantees, by construction rather than by search: boxes never overlap (each
 * layer is a column, and boxes are stacked in it with a gap); an edge never
 * crosses a box (it runs horizontally inside its own slot of a column, through a
 * placeholder where it skips a layer, and curves only in the gaps between columns);
 * an edge's label lies in the gap before its target, which is made wide enough.
 * Crossings between edges are only made rarer (barycentre ordering), not excluded.
 */
#ifndef OSH_CLI_HTML_LAYOUT_H
#define OSH_CLI_HTML_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct lay_node {
	double w, h;   /* in: the box's size (h may grow to fit its inputs' ports) */
	double x, y;   /* out: top left */
	int32_t layer; /* out */
	int32_t order; /* out: position in its layer, top down */
	bool dummy;    /* a placeholder where an edge crosses a layer */
} lay_node;

typedef struct lay_edge {
	int32_t from, to; /* in: node indices */
	double label_w;   /* in: the label's width (0: none) */
	/* out: the path, npts points from pts[2 * first] (x, y pairs), to be joined by
	 * curves with horizontal tangents; npts is 0 for an edge that goes against the
	 * layers (only in a cyclic graph) and is not drawn. */
	int32_t first, npts;
	double lx, ly; /* out: where the label ends (right-aligned), on its baseline */
} lay_edge;

typedef struct lay_graph {
	lay_node *nodes;
	int32_t nnodes;
	size_t cap_nodes;
	lay_edge *edges;
	int32_t nedges;
	size_t cap_edges;
	double *pts;
	int32_t npts;
	size_t cap_pts;
	double width, height; /* out: the drawing's size */
} lay_graph;

/* Adds a box or an edge; -1 when memory ran out. */
int32_t lay_add_node(lay_graph *g, double w, double h);
int32_t lay_add_edge(lay_graph *g, int32_t from, int32_t to, double label_w);
/* Lays g out. False when memory ran out. */
bool lay_run(lay_graph *g);
void lay_free(lay_graph *g);

/* Vertical room an input port takes on a box's left side (the label above it). */
#define LAY_PORT 16.0
/* From a box's top to its first input port. */
#define LAY_PORT_TOP 18.0

#endif
