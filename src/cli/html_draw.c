/* html_draw.c: a finding's neighbourhood (report_graph.h) laid out (html_layout.h)
 * and written as inline SVG.
 *
 * Text is monospace so that its width, which the layout needs before any browser
 * measures it, is the character count times a fixed advance (0.6 em in the
 * monospace faces browsers ship); names are cut so that a box stays readable.
 * Every box is a <g class="box ..."> whose first child is its <rect>: the browser
 * test checks those rectangles for overlaps.
 */
#include "html.h"
#include "html_layout.h"
#include "report_graph.h"

#include <string.h>

#define BOX_FONT 12.0
#define LABEL_FONT 11.0
#define ADVANCE 0.6 /* em */
#define NAME_CHARS 28
#define BOX_PAD 8.0
#define BOX_H 38.0
#define MORE_H 24.0

static double text_w(size_t chars, double font) { return (double)chars * font * ADVANCE; }

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

static const char *const kind_class[] = {"node", "input", "initializer", "output", "undefined", "more"};

static void box_size(const rg_box *b, double *w, double *h)
{
	if (b->kind == RG_MORE) {
		char t[64];
		snprintf(t, sizeof t, "... %lld more %s", (long long)b->more, b->what);
		*w = text_w(strlen(t), BOX_FONT) + 2 * BOX_PAD;
		*h = MORE_H;
		return;
	}
	size_t name = min_sz(utf8_chars(b->name[0] ? b->name : "(unnamed)"), NAME_CHARS);
	size_t what = min_sz(utf8_chars(b->what), NAME_CHARS);
	*w = text_w(name > what ? name : what, BOX_FONT) + 2 * BOX_PAD;
	*h = BOX_H;
}

/* A label, its highlighted ranges as <tspan class="hl">. */
static void put_label(FILE *f, const rg_edge *e)
{
	size_t at = 0, len = strlen(e->label);
	char buf[RG_LABEL_MAX];
	for (int32_t i = 0; i <= e->nhl; i++) {
		size_t start = i < e->nhl ? (size_t)e->hl[i][0] : len;
		size_t end = i < e->nhl ? (size_t)e->hl[i][1] : len;
		memcpy(buf, e->label + at, start - at);
		buf[start - at] = '\0';
		html_text(f, buf);
		if (i == e->nhl)
			break;
		memcpy(buf, e->label + start, end - start);
		buf[end - start] = '\0';
		fputs("<tspan class=\"hl\">", f);
		html_text(f, buf);
		fputs("</tspan>", f);
		at = end;
	}
}

static void put_box(FILE *f, const rg_box *b, const lay_node *n, const char *anchors, const bool *main_nodes)
{
	bool link = b->kind == RG_NODE && b->node_index >= 0 && main_nodes && main_nodes[b->node_index];
	if (link)
		fprintf(f, "<a href=\"#%s-n%lld\">", anchors, (long long)b->node_index);
	fprintf(f, "<g class=\"box %s%s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\"/>",
		kind_class[b->kind], b->focus ? " focus" : "", n->x, n->y, n->w, n->h);
	double tx = n->x + BOX_PAD;
	if (b->kind == RG_MORE) {
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">... %lld more ", tx, n->y + 16, (long long)b->more);
		html_text(f, b->what);
		fputs("</text></g>", f);
	} else {
		fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%.1f\">", tx, n->y + 16);
		html_text_cut(f, b->name[0] ? b->name : "(unnamed)", NAME_CHARS);
		fprintf(f, "</text><text class=\"what\" x=\"%.1f\" y=\"%.1f\">", tx, n->y + 31);
		html_text_cut(f, b->what, NAME_CHARS);
		fputs("</text></g>", f);
	}
	if (link)
		fputs("</a>", f);
}

static void put_edge(FILE *f, const lay_graph *lg, const lay_edge *le, const rg_edge *e)
{
	const double *p = lg->pts + 2 * le->first;
	fprintf(f, "<path class=\"edge%s\" d=\"M%.1f %.1f", e->nhl ? " hl" : "", p[0], p[1]);
	for (int32_t i = 1; i < le->npts; i++) {
		double x0 = p[2 * i - 2], y0 = p[2 * i - 1], x1 = p[2 * i], y1 = p[2 * i + 1];
		double mx = (x0 + x1) / 2;
		if (y0 == y1)
			fprintf(f, " L%.1f %.1f", x1, y1);
		else
			fprintf(f, " C%.1f %.1f %.1f %.1f %.1f %.1f", mx, y0, mx, y1, x1, y1);
	}
	double ex = p[2 * le->npts - 2], ey = p[2 * le->npts - 1];
	fprintf(f, "\"/><path class=\"arrow\" d=\"M%.1f %.1f l-6 -3.5 v7 z\"/>", ex, ey);
	if (e->label[0]) {
		fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", le->lx, le->ly);
		put_label(f, e);
		fputs("</text>", f);
	}
}

void html_draw(FILE *f, osh_model *m, const osh_diag *d, const char *anchors, const bool *main_nodes)
{
	rg_hood h;
	if (!m || !rg_hood_build(m, d, &h)) {
		rg_hood_free(&h);
		fputs("<p class=\"nodraw\">No drawing: the finding names no node or value of the graph.</p>", f);
		return;
	}
	lay_graph lg = {0};
	bool ok = true;
	for (int32_t i = 0; ok && i < h.nboxes; i++) {
		double w, bh;
		box_size(&h.boxes[i], &w, &bh);
		ok = lay_add_node(&lg, w, bh) >= 0;
	}
	for (int32_t i = 0; ok && i < h.nedges; i++)
		ok = lay_add_edge(&lg, h.edges[i].from, h.edges[i].to,
				  text_w(utf8_chars(h.edges[i].label), LABEL_FONT)) >= 0;
	if (!ok || !lay_run(&lg)) {
		fputs("<p class=\"nodraw\">No drawing: out of memory.</p>", f);
	} else {
		fprintf(f, "<svg class=\"hood\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
			   "data-hl=\"%d\"><title>",
			lg.width, lg.height, lg.width, lg.height, (int)h.nhl);
		html_text(f, d->message);
		fputs("</title>", f);
		for (int32_t i = 0; i < h.nedges; i++)
			if (lg.edges[i].npts >= 2)
				put_edge(f, &lg, &lg.edges[i], &h.edges[i]);
		for (int32_t i = 0; i < h.nboxes; i++)
			put_box(f, &h.boxes[i], &lg.nodes[i], anchors, main_nodes);
		fputs("</svg>", f);
	}
	lay_free(&lg);
	rg_hood_free(&h);
}
