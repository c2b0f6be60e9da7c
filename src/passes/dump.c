/* dump.c: the IR as text (dump.h).
 *
 * One line per node in the graph's order, its outputs first as in an SSA listing;
 * sizes resolved through what inference learned of the symbols, so a dump shows
 * what the next stage will read. Long lists (attribute values, content) are cut
 * after a few entries: this is for reading, not for parsing back.
 */
#define _POSIX_C_SOURCE 200809L /* flockfile */
#include "passes/dump.h"
#include "core/dtype.h"
#include "core/symbols.h"

#include <stdarg.h>

/* Attribute lists and value content beyond this many entries end in "...". */
#define DUMP_LIST_MAX 16

/* Where a dump goes. The stream is stdio's, buffered already; ir_dump holds its lock
 * for the whole dump, so these calls only take it again. */
typedef struct out {
	FILE *f;
	symtab *syms;
} out;

static void put(out *o, const char *s) { fputs(s, o->f); }

static void putf(out *o, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void putf(out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

/* A string in double quotes, bytes outside printable ASCII as \xNN. */
static void put_quoted(out *o, const char *s)
{
	put(o, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			putf(o, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			putf(o, "\\x%02x", *p);
		else
			putf(o, "%c", *p);
	}
	put(o, "\"");
}

static void put_dim(out *o, dim d, bool resolve)
{
	char buf[256];
	dim_format(buf, sizeof buf, resolve ? dim_resolve(o->syms, d) : d, sym_name_cb, o->syms);
	put(o, buf);
}

static void put_elem(out *o, int32_t elem)
{
	const char *name = elem ? dtype_name(elem) : NULL;
	if (name)
		put(o, name);
	else if (elem)
		putf(o, "type%d", (int)elem);
	else
		put(o, "?");
}

/* "[N,3]", "[]" for a scalar, "[*]" for an unknown rank. */
static void put_shape(out *o, int32_t rank, const dim *dims)
{
	if (rank < 0) {
		put(o, "[*]");
		return;
	}
	put(o, "[");
	for (int32_t k = 0; k < rank; k++) {
		if (k)
			put(o, ",");
		put_dim(o, dims[k], true);
	}
	put(o, "]");
}

static void put_kind(out *o, uint8_t kind, const tinfo *t)
{
	switch (kind) {
	case TK_TENSOR:
		put_elem(o, t->elem);
		put_shape(o, t->rank, t->dims);
		break;
	case TK_SPARSE:
		put(o, "sparse ");
		put_elem(o, t->elem);
		put_shape(o, t->rank, t->dims);
		break;
	case TK_MAP:
		put(o, "map(");
		put_elem(o, t->key);
		put(o, ",");
		put_elem(o, t->elem);
		put(o, ")");
		break;
	case TK_SEQUENCE:
		put(o, "seq(?)");
		break;
	case TK_OPTIONAL:
		put(o, "opt(?)");
		break;
	default:
		put(o, "?");
		break;
	}
}

/* "FLOAT[N,3]", "seq(INT64[2])", "?" when nothing is known; small integer content
 * follows in braces: "INT64[2]{N,3}". */
static void put_type(out *o, const tinfo *t)
{
	if (t->kind == TK_SEQUENCE || t->kind == TK_OPTIONAL) {
		put(o, t->kind == TK_SEQUENCE ? "seq(" : "opt(");
		put_kind(o, t->inner, t);
		put(o, ")");
	} else {
		put_kind(o, t->kind, t);
	}
	if (t->kind != TK_TENSOR || t->nval < 0)
		return;
	put(o, "{");
	for (int32_t k = 0; k < t->nval && k < DUMP_LIST_MAX; k++) {
		if (k)
			put(o, ",");
		put_dim(o, t->val[k], true);
	}
	put(o, t->nval > DUMP_LIST_MAX ? ",...}" : "}");
}

static const tinfo *type_of_value(const osh_model *m, const value *v, tinfo *scratch)
{
	if (m->inferred)
		return &v->ti;
	*scratch = value_declared(v);
	return scratch;
}

static void put_value(out *o, const osh_model *m, const graph *g, int32_t id, bool typed)
{
	if (id < 0) {
		put(o, "_");
		return;
	}
	const value *v = &g->values[id];
	put(o, "%");
	put(o, v->name);
	if (!typed)
		return;
	tinfo scratch;
	put(o, ": ");
	put_type(o, type_of_value(m, v, &scratch));
}

static void put_tensor(out *o, const tensor_view *t)
{
	put_elem(o, t->dtype);
	put(o, "[");
	for (int32_t k = 0; k < t->rank; k++)
		putf(o, "%s%lld", k ? "," : "", (long long)t->dims[k]);
	put(o, "]");
}

static void put_attr(out *o, const attr_view *a)
{
	put(o, a->name);
	put(o, "=");
	if (a->ref) {
		put(o, "@");
		put(o, a->ref);
		return;
	}
	int32_t n = a->n < DUMP_LIST_MAX ? a->n : DUMP_LIST_MAX;
	switch (a->type) {
	case AT_FLOAT: putf(o, "%g", (double)a->f); return;
	case AT_INT: putf(o, "%lld", (long long)a->i); return;
	case AT_STRING: put_quoted(o, a->s ? a->s : ""); return;
	case AT_TENSOR:
		put(o, "tensor ");
		put_tensor(o, a->t);
		return;
	case AT_GRAPH: put(o, "graph"); return;
	case AT_TYPE_PROTO: put_type(o, a->tp); return;
	case AT_INTS:
	case AT_FLOATS:
	case AT_STRINGS:
		put(o, "[");
		for (int32_t k = 0; k < n; k++) {
			if (k)
				put(o, ",");
			if (a->type == AT_INTS)
				putf(o, "%lld", (long long)a->ints[k]);
			else if (a->type == AT_FLOATS)
				putf(o, "%g", (double)a->floats[k]);
			else
				put_quoted(o, a->strings[k]);
		}
		put(o, a->n > n ? ",...]" : "]");
		return;
	default: putf(o, "(attribute type %d, %d entries)", (int)a->type, (int)a->n); return;
	}
}

static void put_indent(out *o, int depth)
{
	for (int i = 0; i < depth; i++)
		put(o, "  ");
}

static void dump_graph(out *o, const osh_model *m, const graph *g, int depth);

static void dump_node(out *o, const osh_model *m, const graph *g, int32_t ni, int depth)
{
	const node *n = &g->nodes[ni];
	put_indent(o, depth + 1);
	for (int32_t k = 0; k < n->noutputs; k++) {
		if (k)
			put(o, ", ");
		put_value(o, m, g, n->outputs[k], true);
	}
	put(o, n->noutputs ? " = " : "");
	if (n->domain[0]) {
		put(o, n->domain);
		put(o, ".");
	}
	put(o, n->op_type);
	put(o, "(");
	for (int32_t k = 0; k < n->ninputs; k++) {
		if (k)
			put(o, ", ");
		put_value(o, m, g, n->inputs[k], false);
	}
	put(o, ")");
	for (int32_t k = 0; k < n->nattrs; k++) {
		put(o, k ? ", " : " {");
		put_attr(o, &n->attrs[k]);
	}
	put(o, n->nattrs ? "}" : "");
	putf(o, "  # node %d", ni);
	if (n->name[0]) {
		put(o, " ");
		put_quoted(o, n->name);
	}
	put(o, "\n");
	for (int32_t s = 0; s < n->nsubgraphs; s++)
		dump_graph(o, m, n->subgraphs[s], depth + 1);
}

static void dump_graph(out *o, const osh_model *m, const graph *g, int depth)
{
	put_indent(o, depth);
	put(o, "graph ");
	if (g != m->main) {
		put_quoted(o, g->path);
		put(o, " ");
	}
	put(o, "{\n");
	for (int32_t i = 0; i < g->ninputs; i++) {
		put_indent(o, depth + 1);
		put(o, "input ");
		put_value(o, m, g, g->inputs[i], true);
		put(o, "\n");
	}
	for (int32_t v = 0; v < g->nvalues; v++) {
		const value *val = &g->values[v];
		if (!val->init_view && !value_init(val))
			continue;
		put_indent(o, depth + 1);
		put(o, "initializer %");
		put(o, val->name);
		put(o, ": ");
		if (val->init_view) {
			put_tensor(o, val->init_view);
		} else {
			tinfo scratch;
			put_type(o, type_of_value(m, val, &scratch));
		}
		put(o, "\n");
	}
	for (int32_t i = 0; i < g->nnodes; i++)
		dump_node(o, m, g, g->order ? g->order[i] : i, depth);
	for (int32_t i = 0; i < g->noutputs; i++) {
		put_indent(o, depth + 1);
		put(o, "output ");
		put_value(o, m, g, g->outputs[i], true);
		put(o, "\n");
	}
	put_indent(o, depth);
	put(o, "}\n");
}

bool ir_dump(osh_model *m, const char *stage, FILE *f)
{
	out dump = {f, &m->syms}, *o = &dump;
	flockfile(f);
	put(o, "; the IR of ");
	put(o, m->path);
	put(o, " after stage '");
	put(o, stage);
	put(o, "'");
	if (!m->inferred)
		put(o, " (not inferred: the types declared)");
	put(o, "\n; opsets:");
	for (int32_t i = 0; i < m->nopsets; i++) {
		put(o, " ");
		put(o, m->opsets[i].domain[0] ? m->opsets[i].domain : "ai.onnx");
		putf(o, " %lld", (long long)m->opsets[i].version);
	}
	put(o, "\n");
	if (m->main)
		dump_graph(o, m, m->main, 0);
	for (int32_t i = 0; i < m->ngraphs; i++)
		if (m->graphs[i] != m->main && !m->graphs[i]->parent)
			dump_graph(o, m, m->graphs[i], 0);
	funlockfile(f);
	return !ferror(f);
}
