/* codes.c: the public API's diagnostic codes (onnxshape.h, "Diagnostic codes"), as
 * core/codes.c keeps them. */
#include "core/model.h"

const osh_rule *osh_rules(size_t *n) { return codes_table(n); }

const osh_rule *osh_rule_find(const char *code) { return code_find(code); }

osh_status osh_model_override_severities(osh_model *m, const osh_severity_override *o, size_t n, osh_error *err)
{
	return codes_override_severities(m, o, n, err);
}
