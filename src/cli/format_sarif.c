/* format_sarif.c: `check --format sarif`, a SARIF 2.1.0 log that GitHub code
 * scanning accepts (github/codeql-action/upload-sarif).
 *
 * One run. tool.driver.rules lists every code of osh_rules (id, name, short and full
 * description, default level, help with an example). Each diagnostic is a result with
 * ruleId, ruleIndex, level, message, a physical location (the model file, as a
 * relative URI when the path is relative; region line 1, since GitHub requires a
 * region and a model has no lines) and a logical location naming the graph and node,
 * plus a partialFingerprints entry computed from the file, code, graph, node and
 * message, because GitHub's own fingerprinting reads the file as text lines, which a
 * binary model does not have. A file that could not be read is a
 * toolExecutionNotification; when it is not an ONNX model at all (corrupt,
 * truncated, empty, too large) it is also a malformed-model result, so it shows as an
 * alert.
 *
 * The tool's informationUri and each rule's helpUri (its section of diagnostics.md)
 * are under OSH_DOCS_URL, the documentation as installed unless the build says
 * where it is published (CMake's ONNXSHAPE_DOCS_URL).
 *
 * Required properties of SARIF 2.1.0 (section 3) met here: sarifLog.version and
 * runs; run.tool; tool.driver; toolComponent.name; reportingDescriptor.id;
 * result.message; message.text; invocation.executionSuccessful;
 * notification.message. tests/unit/check_sarif.py checks them.
 */
#define _GNU_SOURCE
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef OSH_DOCS_URL
#define OSH_DOCS_URL "file:///usr/local/share/doc/onnxshape"
#endif

static const char *const levels[] = {"note", "warning", "error"};

/* "broadcast-mismatch" → "BroadcastMismatch" (reportingDescriptor.name). */
static void put_pascal(FILE *f, const char *code)
{
	bool up = true;
	for (const char *p = code; *p; p++) {
		if (*p == '-') {
			up = true;
			continue;
		}
		fputc(up && *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
		up = false;
	}
}

/* The model file as a URI reference: a relative path stays relative (GitHub resolves
 * it against the repository root), an absolute one becomes file://; everything but
 * RFC 3986's unreserved characters and '/' is percent-encoded. */
static void put_uri(FILE *f, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	fputc('"', f);
	if (path[0] == '/')
		fputs("file://", f);
	else
		while (path[0] == '.' && path[1] == '/')
			path += 2;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		unsigned c = *p;
		bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
			    c == '.' || c == '_' || c == '~' || c == '/';
		if (keep)
			fputc((int)c, f);
		else
			fprintf(f, "%%%c%c", hex[c >> 4], hex[c & 15]);
	}
	fputc('"', f);
}

/* FNV-1a, 64 bits, over NUL-separated fields: a stable identity for a finding. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * UINT64_C(0x100000001b3);
	return (h ^ 0xff) * UINT64_C(0x100000001b3);
}

/* Opens a location object with its physical location; the caller closes it. */
static void put_location(FILE *f, const char *path)
{
	fputs("{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ", f);
	put_uri(f, path);
	fputs("}, \"region\": {\"startLine\": 1}}", f);
}

static void put_result(FILE *f, const char *path, const osh_diag *d)
{
	size_t nrules;
	const osh_rule *rules = osh_rules(&nrules);
	const osh_rule *r = osh_rule_find(d->code);
	fputs("{\"ruleId\": ", f);
	json_string(f, d->code);
	if (r)
		fprintf(f, ", \"ruleIndex\": %td", r - rules);
	fprintf(f, ", \"level\": \"%s\", \"message\": {\"text\": ", levels[d->severity]);
	json_string(f, d->message);
	fputs("}, \"locations\": [", f);
	put_location(f, path);
	/* The logical location: the node (a function-like step of the graph), or else the
	 * value the finding is about. */
	const char *name = NULL, *kind = NULL;
	char buf[64];
	if (d->node_index >= 0) {
		if (d->node_name[0]) {
			name = d->node_name;
		} else {
			snprintf(buf, sizeof buf, "node %lld", (long long)d->node_index);
			name = buf;
		}
		kind = "function";
	} else if (d->value[0]) {
		name = d->value;
		kind = "variable";
	}
	if (name) {
		fputs(", \"logicalLocations\": [{\"name\": ", f);
		json_string(f, name);
		fputs(", \"fullyQualifiedName\": ", f);
		char *fq = NULL;
		if (asprintf(&fq, "%s%s%s", d->graph, d->graph[0] ? "/" : "", name) < 0)
			fq = NULL;
		json_string(f, fq ? fq : name);
		free(fq);
		fprintf(f, ", \"kind\": \"%s\"}]", kind);
	}
	fputs("}]", f);
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	char idx[32];
	snprintf(idx, sizeof idx, "%lld", (long long)d->node_index);
	h = fnv(fnv(fnv(fnv(fnv(fnv(h, path), d->code), d->graph), idx), d->value), d->message);
	fprintf(f, ", \"partialFingerprints\": {\"onnxshapeFinding/v1\": \"%016llx\"}", (unsigned long long)h);
	fputs(", \"properties\": {\"graph\": ", f);
	json_string(f, d->graph);
	if (d->node_index >= 0) {
		fprintf(f, ", \"nodeIndex\": %lld, \"opType\": ", (long long)d->node_index);
		json_string(f, d->op_type);
	}
	if (d->value[0]) {
		fputs(", \"value\": ", f);
		json_string(f, d->value);
	}
	fputs("}}", f);
}

void sarif_file(file_result *r, const osh_model *m, const osh_error *error)
{
	FILE *f = open_memstream(&r->out, &r->out_len);
	if (!f)
		return;
	size_t n = m ? osh_model_diag_count(m) : 0;
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "    ", f);
		put_result(f, r->path, osh_model_diag_at(m, i));
	}
	/* Not an ONNX model at all: an alert too, not only a notification. */
	if (!m && error && (error->status == OSH_ERR_DECODE || error->status == OSH_ERR_LIMIT)) {
		osh_diag d = {.severity = OSH_ERROR, .code = "malformed-model", .graph = "", .node_index = -1,
			      .node_name = "", .op_type = "", .value = "", .message = error->message};
		fputs(n ? ",\n    " : "    ", f);
		put_result(f, r->path, &d);
	}
	fclose(f);
	if (!error)
		return;
	f = open_memstream(&r->aux, &r->aux_len);
	if (!f)
		return;
	fputs("{\"level\": \"error\", \"message\": {\"text\": ", f);
	json_string(f, error->message);
	fputs("}, \"locations\": [", f);
	put_location(f, r->path);
	fputs("}]}", f);
	fclose(f);
}

static void put_rules(FILE *f)
{
	size_t n;
	const osh_rule *rules = osh_rules(&n);
	for (size_t i = 0; i < n; i++) {
		const osh_rule *r = &rules[i];
		fputs(i ? ",\n        " : "\n        ", f);
		fputs("{\"id\": ", f);
		json_string(f, r->code);
		fputs(", \"name\": \"", f);
		put_pascal(f, r->code);
		fputs("\", \"shortDescription\": {\"text\": ", f);
		json_string(f, r->summary);
		fputs("}, \"fullDescription\": {\"text\": ", f);
		json_string(f, r->description);
		fprintf(f, "}, \"defaultConfiguration\": {\"level\": \"%s\"}, \"help\": {\"text\": ", levels[r->severity]);
		char *help = NULL;
		if (asprintf(&help, "%s\n\nExample:\n%s", r->description, r->example) < 0)
			help = NULL;
		json_string(f, help ? help : r->description);
		free(help);
		/* A code is lower case, digits and '-': its own anchor, as Markdown
		 * renderers make one from the heading "## `CODE`". */
		fputs("}, \"helpUri\": ", f);
		char *uri = NULL;
		if (asprintf(&uri, "%s/diagnostics.md#%s", OSH_DOCS_URL, r->code) < 0)
			uri = NULL;
		json_string(f, uri ? uri : OSH_DOCS_URL "/diagnostics.md");
		free(uri);
		fputs(", \"properties\": {\"tags\": [\"onnx\", \"shapes\"]}}", f);
	}
}

/* Joins the non-empty parts with ",\n    ". */
static void put_joined(FILE *f, const file_result *files, size_t n, bool aux)
{
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		const char *s = aux ? files[i].aux : files[i].out;
		size_t len = aux ? files[i].aux_len : files[i].out_len;
		if (!s || !len)
			continue;
		fputs(first ? "\n" : ",\n", f);
		if (aux)
			fputs("        ", f);
		fwrite(s, 1, len, f);
		first = false;
	}
}

void sarif_document(FILE *f, const file_result *files, size_t n, const check_totals *t)
{
	fputs("{\"$schema\": \"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
	      "sarif-schema-2.1.0.json\",\n \"version\": \"2.1.0\",\n \"runs\": [{\n",
	      f);
	fprintf(f, "  \"tool\": {\"driver\": {\"name\": \"onnxshape\", \"version\": \"%s\", \"semanticVersion\": \"%s\", "
		   "\"informationUri\": ", osh_version(), osh_version());
	json_string(f, OSH_DOCS_URL "/README.md");
	fputs(", \"rules\": [", f);
	put_rules(f);
	fprintf(f, "]}},\n  \"invocations\": [{\"executionSuccessful\": %s, \"exitCode\": %d, "
		   "\"toolExecutionNotifications\": [", t->status == EXIT_TROUBLE ? "false" : "true", t->status);
	put_joined(f, files, n, true);
	fputs("]}],\n  \"results\": [", f);
	put_joined(f, files, n, false);
	fputs("]\n }]}\n", f);
}
