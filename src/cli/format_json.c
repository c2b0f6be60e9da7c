/* format_json.c: `check --format json`, one document for the whole run.
 *
 *   {"version": 1,
 *    "files": [{"path", "status": "ok"|"errors"|"unreadable", "nodes", "error",
 *               "diagnostics": [{"severity", "code", "node", "node_index", "op_type",
 *                                "graph", "value", "message",
 *                                "inputs": [{"name", "elem_type", "shape"}]}]}],
 *    "summary": {"files", "nodes", "errors", "warnings", "notes", "unreadable"}}
 *
 * The format is stable (docs/reports.md): keys are only ever added. Shapes are
 * arrays of integers (sizes) and strings (symbols), null for an unknown size, and
 * null for a shape of unknown rank. Every string is escaped here and always valid
 * UTF-8, whatever bytes the model holds (invalid sequences become U+FFFD); the
 * characters escape.c hides are \u escapes, so the document shown as it is (cat in
 * a terminal) acts on nothing, and reads the same once parsed.
 */
#include "check.h"

#include <string.h>

void json_string(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc((int)c, f);
			p++;
		} else if (c < 0x20) {
			const char *esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
					: c == '\f' ? "\\f" : NULL;
			if (esc)
				fputs(esc, f);
			else
				fprintf(f, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
			p++;
		} else if (c < 0x7F) {
			fputc((int)c, f);
			p++;
		} else if (c == 0x7F) { /* valid JSON raw, but a terminal's to act on */
			fputs("\\u007f", f);
			p++;
		} else {
			size_t n = utf8_seq(p);
			uint32_t cp = n ? utf8_code_point(p, n) : 0;
			if (n && hidden_char(cp))
				fprintf(f, "\\u%04x", (unsigned)cp);
			else if (n)
				fwrite(p, 1, n, f);
			else
				fputs("\\ufffd", f);
			p += n ? n : 1;
		}
	}
	fputc('"', f);
}

/* A string, or null for NULL. */
static void json_string_or_null(FILE *f, const char *s)
{
	if (s)
		json_string(f, s);
	else
		fputs("null", f);
}

void json_shape(FILE *f, const osh_type *t)
{
	if (!t->kind[0] || !strcmp(t->kind, "map") || t->rank < 0) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	for (int32_t k = 0; k < t->rank; k++) {
		if (k)
			fputs(", ", f);
		const osh_dim *d = &t->dims[k];
		if (d->kind == OSH_DIM_VALUE)
			fprintf(f, "%lld", (long long)d->value);
		else if (d->kind == OSH_DIM_SYMBOL)
			json_string(f, d->symbol);
		else
			fputs("null", f);
	}
	fputc(']', f);
}

static const char *const severity_names[] = {"note", "warning", "error"};

static void json_diag(FILE *f, const osh_diag *d)
{
	bool has_node = d->node_index >= 0;
	fputs("{\"severity\": ", f);
	json_string(f, severity_names[d->severity]);
	fputs(", \"code\": ", f);
	json_string(f, d->code);
	fputs(", \"node\": ", f);
	json_string_or_null(f, has_node ? d->node_name : NULL);
	if (has_node)
		fprintf(f, ", \"node_index\": %lld", (long long)d->node_index);
	else
		fputs(", \"node_index\": null", f);
	fputs(", \"op_type\": ", f);
	json_string_or_null(f, has_node ? d->op_type : NULL);
	fputs(", \"graph\": ", f);
	json_string(f, d->graph);
	fputs(", \"value\": ", f);
	json_string_or_null(f, d->value[0] ? d->value : NULL);
	fputs(", \"message\": ", f);
	json_string(f, d->message);
	fputs(", \"inputs\": [", f);
	for (size_t i = 0; i < d->n_inputs; i++) {
		const osh_value_summary *in = &d->inputs[i];
		const char *elem = osh_elem_type_name(in->type.elem_type);
		fputs(i ? ", {\"name\": " : "{\"name\": ", f);
		json_string(f, in->name);
		fputs(", \"elem_type\": ", f);
		json_string_or_null(f, in->type.elem_type ? elem : NULL);
		fputs(", \"shape\": ", f);
		json_shape(f, &in->type);
		fputc('}', f);
	}
	fputs("]}", f);
}

const char *file_status(const file_result *r)
{
	return r->unreadable ? "unreadable" : r->failed || r->trouble ? "errors" : "ok";
}

void json_file(FILE *f, const file_result *r, const osh_model *m, const char *error)
{
	fputs("  {\"path\": ", f);
	json_string(f, r->path);
	fputs(", \"status\": ", f);
	json_string(f, file_status(r));
	fprintf(f, ", \"nodes\": %zu, \"error\": ", r->nodes);
	json_string_or_null(f, error);
	fputs(", \"diagnostics\": [", f);
	size_t n = m ? osh_model_diag_count(m) : 0;
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_diag(f, osh_model_diag_at(m, i));
	}
	fputs("]}", f);
}

void json_begin(FILE *f) { fputs("{\"version\": 1,\n \"files\": [\n", f); }

void json_end(FILE *f, const check_totals *t)
{
	fprintf(f,
		"],\n \"summary\": {\"files\": %zu, \"nodes\": %zu, \"errors\": %zu, \"warnings\": %zu, "
		"\"notes\": %zu, \"unreadable\": %zu}}\n",
		t->files, t->nodes, t->errors, t->warnings, t->notes, t->unreadable);
}
