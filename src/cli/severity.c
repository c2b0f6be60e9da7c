/* severity.c: --error/--warn/--ignore CODE, shared by every command that reports
 * findings (check, infer, rewrite, shapes), so a code silenced for one is silenced
 * for all. The codes are checked as the options are read: a typo is a usage error
 * before any model is loaded, not a silent no-op.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

bool severities_add(severities *s, const char *cmd, const char *code, bool ignore, osh_severity sev)
{
	if (!osh_rule_find(code)) {
		size_t n;
		const osh_rule *r = osh_rules(&n);
		const char *names[64];
		size_t k = n < 64 ? n : 64;
		for (size_t i = 0; i < k; i++)
			names[i] = r[i].code;
		const char *near = closest_name(code, names, k);
		if (near) {
			usage_error(cmd, "'%s' is not a diagnostic code; did you mean '%s'?", code, near);
			return false;
		}
		fprintf(stderr, "onnxshape %s: error: '%s' is not a diagnostic code; the codes are:", cmd, code);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %s", r[i].code);
		fprintf(stderr, "\ntry 'onnxshape %s --help'\n", cmd);
		return false;
	}
	if (!strcmp(code, "malformed-model")) {
		usage_error(cmd, "malformed-model cannot be changed: a malformed model cannot be checked");
		return false;
	}
	if (!grow_array(&s->v, s->n, &s->cap, sizeof *s->v)) {
		fprintf(stderr, "onnxshape %s: error: out of memory\n", cmd);
		return false;
	}
	s->v[s->n++] = (osh_severity_override){code, ignore, sev};
	return true;
}

void severities_free(severities *s)
{
	free(s->v);
	*s = (severities){0};
}
