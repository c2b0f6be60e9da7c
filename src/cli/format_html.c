/* format_html.c: `check --format html`, one self-contained page for the whole run.
 *
 * Each worker writes its file's section (findings with their drawings, symbols,
 * operators, the value table) while its model is alive, and its counts as lines
 * in r->aux; html_document adds them up for the summary at the top, so the
 * document is written once every file is done (as SARIF is).
 *
 * Among several files a clean one is a line and a file with findings lists only
 * what they are about, so that a report of a model zoo stays one a browser opens.
 *
 * Ids: "fI" is file I's section (or line), "fI-dK" its K-th finding, "fI-nN" the value-table
 * row of node N of its main graph (the node's first result), the target of each
 * finding's link. Every finding carries data-severity, data-code, data-node and
 * data-graph, which the filter and the browser test read.
 */
#define _GNU_SOURCE
#include "html.h"
#include "report_graph.h"

#include <stdlib.h>
#include <string.h>

/* Value-table rows beyond which only the findings' nodes' rows are listed. */
#define VALUE_ROWS 20000
/* Symbols listed per file (a model has thousands of made-up ones), and per file of
 * a report of many, which must stay small enough for a browser to open. */
#define SYMBOL_ROWS 300
#define SYMBOL_ROWS_MANY 40
/* Operators in a histogram. */
#define OP_ROWS 40

static const char *const sev_name[] = {"note", "warning", "error"};

/* s, escaped, as <code>. */
static void code(FILE *f, const char *s)
{
	fputs("<code>", f);
	html_text(f, s);
	fputs("</code>", f);
}

/* A horizontal bar, count of max, as SVG (the policy refuses style attributes). */
static void bar(FILE *f, size_t count, size_t max)
{
	double w = max ? 160.0 * (double)count / (double)max : 0;
	fprintf(f, "<svg class=\"bar\" width=\"162\" height=\"10\"><rect width=\"%.1f\" height=\"10\"/></svg>",
		w < 1 ? 1 : w);
}

/* A histogram row: "domain::op" (domain "" for ai.onnx), its count and bar. */
static void op_row(FILE *f, const char *domain, const char *op, size_t count, size_t max)
{
	fputs("<tr><td><code>", f);
	if (domain[0]) {
		html_text(f, domain);
		fputs("::", f);
	}
	html_text(f, op);
	fprintf(f, "</code></td><td class=\"n\">%zu</td><td>", count);
	bar(f, count, max);
	fputs("</td></tr>", f);
}

/* The row that says how many operators the histogram left out. */
static void op_rest(FILE *f, size_t n)
{
	if (n > OP_ROWS)
		fprintf(f, "<tr><td colspan=\"3\" class=\"muted\">... %zu more operators</td></tr>", n - OP_ROWS);
}

/* ---- one file ------------------------------------------------------------------------- */

static void ops_table(FILE *f, const osh_summary *s)
{
	fprintf(f, "<details class=\"ops\"><summary>Operators (%zu kind%s)</summary><table><tr><th>operator</th>"
		   "<th>nodes</th><th></th></tr>",
		s->n_op_counts, s->n_op_counts == 1 ? "" : "s");
	size_t max = s->n_op_counts ? s->op_counts[0].count : 0;
	for (size_t i = 0; i < s->n_op_counts && i < OP_ROWS; i++)
		op_row(f, s->op_counts[i].domain, s->op_counts[i].op_type, s->op_counts[i].count, max);
	op_rest(f, s->n_op_counts);
	fputs("</table></details>\n", f);
}

/* Whether finding d states a fact about symbol `name` (symbol-constraint messages
 * quote it). */
static bool mentions(const osh_diag *d, const char *name)
{
	if (strcmp(d->code, "symbol-constraint"))
		return false;
	size_t n = strlen(name);
	for (const char *p = strchr(d->message, '\''); p; p = strchr(p + 1, '\''))
		if (!strncmp(p + 1, name, n) && p[1 + n] == '\'')
			return true;
	return false;
}

static void symbols_table(FILE *f, osh_model *m, size_t idx, int64_t rows)
{
	int64_t n = rg_symbol_count(m), listed = 0, fresh = 0;
	size_t nd = osh_model_diag_count(m);
	rg_symbol s;
	for (int64_t i = 0; i < n; i++) {
		rg_symbol_at(m, i, &s);
		fresh += s.fresh && !s.learned[0];
	}
	fprintf(f, "<details class=\"symbols\"%s><summary>Symbols (%lld)</summary>", n - fresh ? " open" : "",
		(long long)n);
	if (n - fresh == 0)
		fputs("<p class=\"muted\">No named or computed symbolic sizes.</p>", f);
	else
		fputs("<table><tr><th>symbol</th><th>what it is</th><th>learned</th><th>facts</th></tr>", f);
	for (int64_t i = 0; i < n && listed < rows; i++) {
		rg_symbol_at(m, i, &s);
		if (s.fresh && !s.learned[0])
			continue;
		listed++;
		fputs("<tr><td>", f);
		code(f, s.name);
		fputs("</td><td>", f);
		html_text(f, s.what);
		fputs("</td><td><code>", f);
		if (s.learned[0]) {
			fputs("= ", f);
			html_text(f, s.learned);
		}
		fputs("</code></td><td>", f);
		for (size_t k = 0, shown = 0; k < nd; k++)
			if (mentions(osh_model_diag_at(m, k), s.name))
				fprintf(f, "%s<a href=\"#f%zu-d%zu\">finding %zu</a>", shown++ ? ", " : "", idx, k, k + 1);
		fputs("</td></tr>", f);
	}
	if (n - fresh)
		fputs("</table>", f);
	if (n - fresh > listed)
		fprintf(f, "<p class=\"muted\">... %lld more symbols not listed.</p>", (long long)(n - fresh - listed));
	if (fresh)
		fprintf(f, "<p class=\"muted\">%lld sizes made up for unknowns, about which nothing was learned, are not "
			   "listed.</p>",
			(long long)fresh);
	fputs("</details>\n", f);
}

/* The main graph's nodes that findings name: their rows are always listed. */
static bool *finding_nodes(const osh_model *m, int64_t nnodes)
{
	bool *b = calloc((size_t)nnodes + 1, 1);
	for (size_t k = 0; b && k < osh_model_diag_count(m); k++) {
		const osh_diag *d = osh_model_diag_at(m, k);
		if (!d->graph[0] && d->node_index >= 0 && d->node_index < nnodes)
			b[d->node_index] = true;
	}
	return b;
}

/* all: list every value up to VALUE_ROWS (a report of one file), not only those
 * of the findings' nodes. */
static bool listed(int64_t i, const rg_value *v, const bool *wanted, bool all)
{
	return (all && i < VALUE_ROWS) || (v->producer >= 0 && wanted[v->producer]);
}

/* Which main-graph nodes get a row id: the first listed result of each. */
static bool *node_anchors(osh_model *m, int64_t nnodes, const bool *wanted, bool all)
{
	bool *a = calloc((size_t)nnodes + 1, 1);
	rg_value v;
	for (int64_t i = 0; a && i < rg_value_count(m); i++) {
		rg_value_at(m, i, &v);
		if (listed(i, &v, wanted, all) && v.producer >= 0 && v.producer < nnodes)
			a[v.producer] = true;
	}
	return a;
}

static void values_table(FILE *f, osh_model *m, size_t idx, int64_t nnodes, const bool *wanted, bool all)
{
	int64_t n = rg_value_count(m), shown = 0;
	bool *done = calloc((size_t)nnodes + 1, 1);
	fprintf(f, "<details class=\"values\" id=\"f%zu-values\"><summary>Values of the main graph (%lld)</summary>"
		   "<table><tr><th>value</th><th>type</th><th>shape</th><th>made by</th></tr>",
		idx, (long long)n);
	rg_value v;
	for (int64_t i = 0; done && i < n; i++) {
		rg_value_at(m, i, &v);
		if (!listed(i, &v, wanted, all))
			continue;
		shown++;
		fputs("<tr", f);
		if (v.producer >= 0 && v.producer < nnodes && !done[v.producer]) {
			done[v.producer] = true;
			fprintf(f, " id=\"f%zu-n%lld\"", idx, (long long)v.producer);
		}
		fputs("><td>", f);
		code(f, v.name);
		fputs("</td><td>", f);
		html_text(f, v.elem[0] ? v.elem : "?");
		fputs("</td><td>", f);
		code(f, v.shape);
		fputs("</td><td>", f);
		const char *name, *op;
		if (v.producer >= 0 && rg_node_at(m, v.producer, &name, &op)) {
			fprintf(f, "node %lld ", (long long)v.producer);
			if (name[0]) {
				code(f, name);
				fputc(' ', f);
			}
			fputc('(', f);
			html_text(f, op);
			fputc(')', f);
		} else {
			html_text(f, v.origin);
		}
		fputs("</td></tr>", f);
	}
	fputs("</table>", f);
	if (shown < n && all)
		fprintf(f, "<p class=\"muted\">%lld values not listed (only the first %d and those of the findings' "
			   "nodes are).</p>",
			(long long)(n - shown), VALUE_ROWS);
	else if (shown < n)
		fprintf(f, "<p class=\"muted\">%lld values not listed: a report of several files lists those of the "
			   "findings' nodes; a report of this file alone lists them all.</p>",
			(long long)(n - shown));
	fputs("</details>\n", f);
	free(done);
}

static void finding(FILE *f, osh_model *m, size_t idx, size_t k, const bool *anchors)
{
	const osh_diag *d = osh_model_diag_at(m, k);
	const char *sev = sev_name[d->severity];
	fprintf(f, "<li class=\"finding sev-%s\" id=\"f%zu-d%zu\" data-severity=\"%s\" data-code=\"", sev, idx, k, sev);
	html_text(f, d->code);
	fprintf(f, "\" data-node=\"%lld\" data-graph=\"", (long long)d->node_index);
	html_text(f, d->graph);
	fprintf(f, "\"><p class=\"head\"><span class=\"%s\">%s</span> ", sev, sev);
	code(f, d->code);
	/* Where, as the text report says it, with the node linked to its row. */
	if (d->graph[0]) {
		fputs(" in graph ", f);
		code(f, d->graph);
	}
	if (d->node_index >= 0) {
		bool link = !d->graph[0] && anchors && anchors[d->node_index];
		fprintf(f, " at node %lld ", (long long)d->node_index);
		if (link)
			fprintf(f, "<a href=\"#f%zu-n%lld\">", idx, (long long)d->node_index);
		code(f, d->node_name[0] ? d->node_name : "(unnamed)");
		fputs(link ? "</a> (" : " (", f);
		html_text(f, d->op_type);
		fputc(')', f);
	} else if (d->value[0]) {
		fputs(" on value ", f);
		code(f, d->value);
	}
	fputs("</p><p class=\"msg\">", f);
	html_text(f, d->message);
	fputs("</p><div class=\"figure\">", f);
	char prefix[32];
	snprintf(prefix, sizeof prefix, "f%zu", idx);
	html_draw(f, m, d, prefix, anchors);
	fputs("</div></li>\n", f);
}

/* The counts html_document adds up: per code and severity, per operator. */
static void counts(file_result *r, const osh_model *m, const osh_summary *s)
{
	FILE *f = open_memstream(&r->aux, &r->aux_len);
	if (!f)
		return;
	size_t n = m ? osh_model_diag_count(m) : 0;
	for (size_t k = 0; k < n; k++) {
		const osh_diag *d = osh_model_diag_at(m, k);
		fprintf(f, "c\t%s\t%s\t1\n", d->code, sev_name[d->severity]);
	}
	for (size_t i = 0; s && i < s->n_op_counts; i++) {
		const osh_op_count *c = &s->op_counts[i];
		/* Names with a tab or newline would break the line: such an operator is
		 * only left out of the totals, not of its file's section. */
		if (strpbrk(c->op_type, "\t\n") || strpbrk(c->domain, "\t\n"))
			continue;
		fprintf(f, "o\t%s%s%s\t%zu\n", c->domain, c->domain[0] ? "::" : "", c->op_type, c->count);
	}
	fclose(f);
}

/* The file's counts, as its heading says them: "2 errors, 1 warning", "ok", or
 * "unreadable"; the class colours them by the worst. A refusal to check counts as
 * an error, as in the summary, and is listed among the findings. */
static void status_words(FILE *f, const file_result *r)
{
	const char *cls = r->failed || r->trouble || r->errors ? "error" : r->warnings ? "warning"
							      : r->notes ? "note" : "muted";
	fprintf(f, "<span class=\"status %s\">", cls);
	if (r->unreadable) {
		fputs("unreadable</span>", f);
		return;
	}
	const size_t count[] = {r->errors, r->warnings, r->notes};
	const char *const word[] = {"error", "warning", "note"};
	bool any = false;
	for (int i = 0; i < 3; i++)
		if (count[i]) {
			fprintf(f, "%s%zu %s%s", any ? ", " : "", count[i], word[i], count[i] == 1 ? "" : "s");
			any = true;
		}
	fputs(any ? "</span>" : "ok</span>", f);
}

/* "N nodes (M in the main graph), ..., IR version V; opsets ...; made by P", no end. */
static void model_facts(FILE *f, const osh_summary *s)
{
	fprintf(f, "%zu node%s (%zu in the main graph), %zu initializers, IR version %lld", s->n_nodes_total,
		s->n_nodes_total == 1 ? "" : "s", s->n_nodes, s->n_initializers, (long long)s->ir_version);
	for (size_t i = 0; i < s->n_opsets; i++) {
		fputs(i ? ", " : "; opsets ", f);
		html_text(f, s->opsets[i].domain[0] ? s->opsets[i].domain : "ai.onnx");
		fprintf(f, " %lld", (long long)s->opsets[i].version);
	}
	if (s->producer_name && s->producer_name[0]) {
		fputs("; made by ", f);
		html_text(f, s->producer_name);
		fputc(' ', f);
		html_text(f, s->producer_version);
	}
}

/* What stopped the check (the file could not be read, or inference refused), as
 * the first entry of the findings, since the counts include it. data-stopped tells
 * it from the model's own findings, which --format json lists as diagnostics. */
static void stopped(FILE *f, const file_result *r, const osh_error *error)
{
	fprintf(f, "<li class=\"finding sev-error\" id=\"f%zu-stop\" data-severity=\"error\" data-code=\"\" "
		   "data-node=\"-1\" data-graph=\"\" data-stopped=\"\"><p class=\"head\"><span class=\"error\">error"
		   "</span> %s</p><p class=\"msg\">",
		r->index, r->unreadable ? "the file could not be read" : "the check stopped");
	html_text(f, error->message);
	fputs("</p></li>\n", f);
}

void html_file(file_result *r, osh_model *m, const osh_error *error, bool alone)
{
	FILE *f = open_memstream(&r->out, &r->out_len);
	if (!f)
		return;
	size_t idx = r->index;
	const osh_summary *s = m ? osh_model_summary(m) : NULL;
	size_t n = m ? osh_model_diag_count(m) : 0;
	/* Among many files, a clean one is a line: a report of a model zoo is mostly
	 * those, and a full section each made such reports too large to open. */
	if (!alone && !error && !r->unreadable && !n) {
		fprintf(f, "<p class=\"file clean\" id=\"f%zu\" data-path=\"", idx);
		html_text(f, r->path);
		fputs("\">", f);
		code(f, r->path);
		fputc(' ', f);
		status_words(f, r);
		if (s) {
			fputs(" <span class=\"muted\">", f);
			model_facts(f, s);
			fputs("</span>", f);
		}
		fputs("</p>\n", f);
		fclose(f);
		counts(r, m, s);
		return;
	}
	fprintf(f, "<section class=\"file\" id=\"f%zu\" data-path=\"", idx);
	html_text(f, r->path);
	fputs("\"><h2>", f);
	code(f, r->path);
	fputc(' ', f);
	status_words(f, r);
	fputs("</h2>\n", f);
	if (s) {
		fputs("<p class=\"muted\">", f);
		model_facts(f, s);
		fputs(".</p>\n", f);
	}
	if (s && alone)
		ops_table(f, s);
	if (m)
		symbols_table(f, m, idx, alone ? SYMBOL_ROWS : SYMBOL_ROWS_MANY);
	int64_t nnodes = 0;
	const char *name, *op;
	while (m && rg_node_at(m, nnodes, &name, &op))
		nnodes++;
	bool *wanted = m ? finding_nodes(m, nnodes) : NULL;
	bool *anchors = wanted ? node_anchors(m, nnodes, wanted, alone) : NULL;
	fprintf(f, "<h3>Findings (%zu)</h3>\n<ol class=\"findings\">\n", n + (error != NULL));
	if (error)
		stopped(f, r, error);
	for (size_t k = 0; k < n; k++)
		finding(f, m, idx, k, anchors);
	fputs("</ol>\n", f);
	if (!n && !error)
		fputs("<p class=\"muted\">Nothing to report.</p>\n", f);
	if (wanted)
		values_table(f, m, idx, nnodes, wanted, alone);
	fputs("</section>\n", f);
	fclose(f);
	free(wanted);
	free(anchors);
	counts(r, m, s);
}

/* ---- the document ------------------------------------------------------------------------ */

typedef struct tally {
	char *key; /* "code\tseverity" or the operator */
	size_t n;
} tally;

typedef struct tallies {
	tally *v;
	size_t n, cap;
} tallies;

static void tally_add(tallies *t, const char *key, size_t len, size_t n)
{
	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->v[i].key) == len && !memcmp(t->v[i].key, key, len)) {
			t->v[i].n += n;
			return;
		}
	char *k = strndup(key, len);
	if (!k || !grow_array(&t->v, t->n, &t->cap, sizeof *t->v)) {
		free(k);
		return;
	}
	t->v[t->n++] = (tally){k, n};
}

static int by_count(const void *a, const void *b)
{
	const tally *x = a, *y = b;
	return x->n != y->n ? (x->n < y->n ? 1 : -1) : strcmp(x->key, y->key);
}

static void tallies_free(tallies *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].key);
	free(t->v);
}

/* Reads every file's aux lines into per-code and per-operator totals. */
static void add_up(const file_result *files, size_t n, tallies *codes, tallies *ops)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = files[i].aux, *end = p ? p + files[i].aux_len : NULL;
		while (p && p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *last = nl ? nl : end;
			const char *tab = last;
			while (tab > p && tab[-1] != '\t')
				tab--;
			if (tab > p + 2)
				tally_add(*p == 'c' ? codes : ops, p + 2, (size_t)(tab - 1 - (p + 2)),
					  strtoull(tab, NULL, 10));
			p = last + 1;
		}
	}
	if (codes->n)
		qsort(codes->v, codes->n, sizeof *codes->v, by_count);
	if (ops->n)
		qsort(ops->v, ops->n, sizeof *ops->v, by_count);
}

static void summary(FILE *f, const check_totals *t, const tallies *codes, const tallies *ops)
{
	fprintf(f, "<section id=\"summary\"><h2>Summary</h2><table><tr><th>files</th><th>nodes</th><th>errors</th>"
		   "<th>warnings</th><th>notes</th><th>unreadable</th></tr><tr><td class=\"n\">%zu</td>"
		   "<td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>"
		   "<td class=\"n\">%zu</td></tr></table>\n",
		t->files, t->nodes, t->errors, t->warnings, t->notes, t->unreadable);
	fputs("<h3>Findings by code</h3><table><tr><th>code</th><th>severity</th><th>findings</th><th>what it means"
	      "</th></tr>",
	      f);
	for (size_t i = 0; i < codes->n; i++) {
		const char *tab = strchr(codes->v[i].key, '\t');
		char name[128];
		snprintf(name, sizeof name, "%.*s", tab ? (int)(tab - codes->v[i].key) : 0, codes->v[i].key);
		const osh_rule *r = osh_rule_find(name);
		fputs("<tr><td>", f);
		code(f, name);
		fprintf(f, "</td><td class=\"%s\">%s</td><td class=\"n\">%zu</td><td>", tab ? tab + 1 : "",
			tab ? tab + 1 : "", codes->v[i].n);
		html_text(f, r ? r->summary : "");
		fputs("</td></tr>", f);
	}
	if (!codes->n)
		fputs("<tr><td colspan=\"4\" class=\"muted\">No findings.</td></tr>", f);
	fputs("</table>\n<details><summary>Operators over all files</summary><table><tr><th>operator</th>"
	      "<th>nodes</th><th></th></tr>",
	      f);
	for (size_t i = 0; i < ops->n && i < OP_ROWS; i++)
		op_row(f, "", ops->v[i].key, ops->v[i].n, ops->v[0].n);
	op_rest(f, ops->n);
	fputs("</table></details></section>\n", f);
}

/* The filter: hidden until the script shows it (it does nothing without). */
static void filter(FILE *f, const tallies *codes)
{
	fputs("<form id=\"filter\" hidden><fieldset><legend>severity</legend>", f);
	for (int s = OSH_ERROR; s >= OSH_NOTE; s--)
		fprintf(f, "<label><input type=\"checkbox\" name=\"severity\" value=\"%s\" checked> %s</label>",
			sev_name[s], sev_name[s]);
	fputs("</fieldset><fieldset><legend>code</legend>", f);
	for (size_t i = 0; i < codes->n; i++) {
		const char *tab = strchr(codes->v[i].key, '\t');
		bool again = false;
		for (size_t j = 0; j < i && tab; j++)
			again |= !strncmp(codes->v[j].key, codes->v[i].key, (size_t)(tab - codes->v[i].key) + 1);
		if (!tab || again)
			continue;
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(tab - codes->v[i].key), codes->v[i].key);
		fputs("<label><input type=\"checkbox\" name=\"code\" value=\"", f);
		html_text(f, name);
		fputs("\" checked> ", f);
		html_text(f, name);
		fputs("</label>", f);
	}
	fputs("</fieldset> <output id=\"shown\"></output></form>\n", f);
}

void html_document(FILE *f, const file_result *files, size_t n, const check_totals *t)
{
	char style_hash[CSP_HASH_SIZE], script_hash[CSP_HASH_SIZE];
	csp_hash(html_style(), style_hash);
	csp_hash(html_script(), script_hash);
	tallies codes = {0}, ops = {0};
	add_up(files, n, &codes, &ops);
	char line[256];
	summary_line(line, sizeof line, t);
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src %s; script-src %s; "
		"base-uri 'none'; form-action 'none'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"onnxshape %s\">\n<title>onnxshape check: %s</title>\n"
		"<style>%s</style></head>\n<body>\n<h1>onnxshape check</h1>\n<p>%s.</p>\n",
		style_hash, script_hash, osh_version(), line, html_style(), line);
	summary(f, t, &codes, &ops);
	filter(f, &codes);
	for (size_t i = 0; i < n; i++)
		if (files[i].out)
			fwrite(files[i].out, 1, files[i].out_len, f);
	fprintf(f, "<script>%s</script>\n</body></html>\n", html_script());
	tallies_free(&codes);
	tallies_free(&ops);
}
