/* codes.c: the table of diagnostic codes, and severity overrides.
 *
 * The rows are codes.def's, in its order: one per code the library emits, with its
 * default severity, a one-line summary, a paragraph of description and an example
 * message. Codes are stable: a row may be added, never renamed.
 *
 * Invariant: every code a stage reports has a row here, since a stage can only name a
 * code by its DIAG_ value (core/codes.h), which is its row's position.
 */
#include "core/codes.h"
#include "core/model.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const osh_rule rules[] = {
#define CODE(name, code, severity, summary, description, example) {code, severity, summary, description, example},
#include "core/codes.def"
#undef CODE
};
_Static_assert(sizeof rules / sizeof rules[0] == DIAG_CODE_COUNT, "one row of the table per diag_code");

const char *diag_code_name(diag_code code)
{
	assert((unsigned)code < DIAG_CODE_COUNT);
	return rules[code].code;
}

const osh_rule *codes_table(size_t *n)
{
	if (n)
		*n = sizeof rules / sizeof rules[0];
	return rules;
}

const osh_rule *code_find(const char *code)
{
	for (size_t i = 0; code && i < sizeof rules / sizeof rules[0]; i++)
		if (!strcmp(rules[i].code, code))
			return &rules[i];
	return NULL;
}

osh_status codes_override_severities(osh_model *m, const osh_severity_override *o, size_t n, osh_error *err)
{
	if (!m || (n && !o)) {
		if (err) {
			err->status = OSH_ERR_INVALID;
			snprintf(err->message, sizeof err->message, "osh_model_override_severities: %s is NULL",
				 m ? "the list of overrides" : "the model");
		}
		return OSH_ERR_INVALID;
	}
	/* The lint's diagnostics are not there yet: overriding them later is not possible
	 * from here (core runs no pass), and leaving them out would be silent. */
	if (m->pending.lint) {
		if (err) {
			err->status = OSH_ERR_INVALID;
			snprintf(err->message, sizeof err->message,
				 "%s: the lint was left for the write (osh_infer_lint_later): run osh_lint before overriding severities", m->path);
		}
		return OSH_ERR_INVALID;
	}
	for (size_t i = 0; i < n; i++) {
		int sev = (int)o[i].severity;
		const char *why = NULL;
		if (!o[i].code || !code_find(o[i].code))
			why = "is not a diagnostic code";
		else if (!strcmp(o[i].code, diag_code_name(DIAG_MALFORMED_MODEL)))
			why = "cannot be overridden";
		else if (!o[i].ignore && (sev < (int)OSH_NOTE || sev > (int)OSH_ERROR))
			why = "is given a severity that osh_severity does not name";
		if (why) {
			if (err) {
				err->status = OSH_ERR_INVALID;
				snprintf(err->message, sizeof err->message, "'%s' %s", o[i].code ? o[i].code : "(null)",
					 why);
			}
			return OSH_ERR_INVALID;
		}
	}
	size_t kept = 0;
	bool errors = false;
	for (size_t k = 0; k < m->ndiags; k++) {
		osh_diag d = m->diags[k];
		bool drop = false;
		/* Last match wins, as with compiler flags. */
		for (size_t i = 0; i < n; i++) {
			if (strcmp(o[i].code, d.code))
				continue;
			drop = o[i].ignore;
			if (!drop)
				d.severity = o[i].severity;
		}
		if (drop)
			continue;
		errors |= d.severity == OSH_ERROR;
		m->diags[kept++] = d;
	}
	m->ndiags = kept;
	m->has_errors = errors || m->malformed;
	return OSH_OK;
}
