/* diag.c: the model's list of findings.
 *
 * Invariant: diagnostics are appended in the order the stages find them and every
 * string they point to lives in the model's arena.
 */
#include "core/grow.h"
#include "core/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void model_diag(osh_model *m, osh_severity sev, diag_code code, const graph *g, int32_t node_index,
		const char *val, const char *fmt, ...)
{
	if (m->ndiags == m->cap_diags) {
		osh_diag *d = grow_arena(m->arena, m->diags, &m->cap_diags, 16, sizeof *d);
		if (!d) {
			m->nomem = true;
			return;
		}
		m->diags = d;
	}
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	const node *n = g && node_index >= 0 && node_index < g->nnodes ? &g->nodes[node_index] : NULL;
	osh_diag d = {
		.severity = sev,
		.code = diag_code_name(code),
		.graph = g ? g->path : "",
		.node_index = n ? node_index : -1,
		.node_name = n ? n->name : "",
		.op_type = n ? n->op_type : "",
		.value = val ? arena_strdup(m->arena, val) : "",
		.message = arena_strdup(m->arena, buf),
	};
	if (!d.value || !d.message) {
		m->nomem = true;
		return;
	}
	m->diags[m->ndiags++] = d;
	if (sev == OSH_ERROR)
		m->has_errors = true;
}

int64_t model_opset(const osh_model *m, const char *domain)
{
	if (!strcmp(domain, "ai.onnx"))
		domain = "";
	int32_t i = strmap_get(&m->opset_index, domain);
	return i < 0 ? -1 : m->opsets[i].version;
}
