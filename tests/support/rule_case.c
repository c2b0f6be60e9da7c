/* rule_case.c: the runner of rule_case.h's table rows. */
#include "rule_case.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/shape.h"
#include "core/symbols.h"

/* Splits s on sep into at most cap pieces copied into buf (NUL-separated); returns
 * the count ("" gives none). */
static int split(const char *s, char sep, char *buf, size_t bufcap, char **out, int cap)
{
	int n = 0;
	size_t len = strlen(s ? s : "");
	cr_assert_lt(len, bufcap, "test row text too long");
	memcpy(buf, s ? s : "", len + 1);
	if (!*buf)
		return 0;
	char *p = buf;
	while (n < cap) {
		out[n++] = p;
		char *q = strchr(p, sep);
		if (!q)
			break;
		*q = 0;
		p = q + 1;
	}
	return n;
}

static int parse_i64(const char *s, int64_t *v, int cap)
{
	int n = 0;
	while (*s && n < cap) {
		char *end;
		long long x = strtoll(s, &end, 10);
		if (end == s)
			break;
		v[n++] = x;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static int parse_f(const char *s, float *v, int cap)
{
	int n = 0;
	while (*s && n < cap) {
		char *end;
		float x = strtof(s, &end);
		if (end == s)
			break;
		v[n++] = x;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* The element type named s; -1 if none is. */
static int32_t type_named(const char *s)
{
	static const struct {
		const char *name;
		int32_t t;
	} types[] = {{"FLOAT", DT_FLOAT}, {"DOUBLE", DT_DOUBLE}, {"FLOAT16", DT_FLOAT16}, {"INT64", DT_INT64},
		     {"INT32", DT_INT32}, {"INT16", DT_INT16}, {"INT8", DT_INT8},       {"UINT16", DT_UINT16},
		     {"UINT8", DT_UINT8}, {"BOOL", DT_BOOL},   {"STRING", DT_STRING},   {"UNDEFINED", 0}};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (!strcmp(types[i].name, s))
			return types[i].t;
	return -1;
}

void rule_case_decls(mb *b, const char *what, const char *decls)
{
	char buf[2048], sub[1024], *f[64], *g[4];
	int n = split(decls, '|', buf, sizeof buf, f, 64);
	for (int i = 0; i < n; i++) {
		int m = split(f[i], ':', sub, sizeof sub, g, 3);
		int32_t t = m == 3 ? type_named(g[1]) : DT_FLOAT;
		const char *dims = m == 3 ? g[2] : m == 2 ? g[1] : "";
		cr_assert_neq(t, -1, "%s: unknown type in '%s'", what, f[i]);
		mb_input(b, g[0], t, strcmp(dims, "*") ? dims : NULL);
	}
}

void rule_case_inits(mb *b, const char *what, const char *ints, const char *floats, const char *zeros)
{
	char buf[8192], sub[8192], *f[64], *g[4];
	static int64_t iv[4096];
	static float fv[4096];
	int n = split(ints, '|', buf, sizeof buf, f, 64);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(split(f[i], ':', sub, sizeof sub, g, 3), 3, "%s: bad ints '%s'", what, f[i]);
		parse_i64(g[2], iv, 4096);
		mb_init_ints(b, g[0], g[1], iv);
	}
	n = split(floats, '|', buf, sizeof buf, f, 64);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(split(f[i], ':', sub, sizeof sub, g, 3), 3, "%s: bad floats '%s'", what, f[i]);
		parse_f(g[2], fv, 4096);
		mb_init_floats(b, g[0], g[1], fv);
	}
	n = split(zeros, '|', buf, sizeof buf, f, 64);
	for (int i = 0; i < n; i++) {
		cr_assert_eq(split(f[i], ':', sub, sizeof sub, g, 3), 3, "%s: bad zeros '%s'", what, f[i]);
		int32_t t = type_named(g[1]);
		cr_assert_neq(t, -1, "%s: unknown type in '%s'", what, f[i]);
		mb_init(b, g[0], t, g[2]);
	}
}

void rule_case_attrs(mb *b, const char *what, const char *attrs)
{
	char buf[8192], *f[64];
	static int64_t iv[4096];
	static float fv[4096];
	int n = split(attrs, '|', buf, sizeof buf, f, 64);
	for (int i = 0; i < n; i++) {
		char *colon = strchr(f[i], ':'), *eq = strchr(f[i], '=');
		cr_assert(colon && eq && colon < eq, "%s: bad attribute '%s'", what, f[i]);
		*colon = *eq = 0;
		const char *kind = f[i], *name = colon + 1, *val = eq + 1;
		if (!strcmp(kind, "i")) {
			mb_attr_i(b, name, strtoll(val, NULL, 10));
		} else if (!strcmp(kind, "f")) {
			mb_attr_f(b, name, strtof(val, NULL));
		} else if (!strcmp(kind, "s")) {
			mb_attr_s(b, name, val);
		} else if (!strcmp(kind, "is")) {
			mb_attr_ints(b, name, parse_i64(val, iv, 4096), iv);
		} else if (!strcmp(kind, "fs")) {
			mb_attr_floats(b, name, parse_f(val, fv, 4096), fv);
		} else if (!strcmp(kind, "t") || !strcmp(kind, "ft")) {
			char *dims = (char *)val, *vals = strchr(val, ':');
			cr_assert(vals, "%s: bad tensor attribute '%s'", what, name);
			*vals++ = 0;
			if (kind[0] == 't') {
				parse_i64(vals, iv, 4096);
				mb_attr_tensor_ints(b, name, dims, iv);
			} else {
				parse_f(vals, fv, 4096);
				mb_attr_tensor_floats(b, name, dims, fv);
			}
		} else {
			cr_assert_fail("%s: bad attribute kind '%s'", what, kind);
		}
	}
}

const char *rule_case_content(osh_model *m, const char *name)
{
	static char ring[4][4096];
	static int at;
	char *buf = ring[at++ % 4];
	int32_t id = strmap_get(&m->main->names, name);
	if (id < 0)
		return "missing";
	const tinfo *t = &m->main->values[id].ti;
	size_t len = 0;
	if (t->nval >= 0) {
		len += (size_t)snprintf(buf + len, 4096 - len, "[");
		for (int32_t k = 0; k < t->nval && len < 4000; k++) {
			char d[64];
			dim_format(d, sizeof d, dim_resolve(&m->syms, t->val[k]), sym_name_cb, &m->syms);
			len += (size_t)snprintf(buf + len, 4096 - len, "%s%s", k ? ", " : "", d);
		}
		snprintf(buf + len, 4096 - len, "]");
		return buf;
	}
	if (t->nfval >= 0) {
		len += (size_t)snprintf(buf + len, 4096 - len, "f[");
		for (int32_t k = 0; k < t->nfval && len < 4000; k++)
			len += (size_t)snprintf(buf + len, 4096 - len, "%s%g", k ? ", " : "", t->fval[k]);
		snprintf(buf + len, 4096 - len, "]");
		return buf;
	}
	return "none";
}

static const char *const schema_codes[] = {"arity-error", "attribute-error", "type-error", "op-not-in-opset"};
static const char *const rule_codes[] = {"shape-error", "broadcast-mismatch", "symbol-constraint", "unknown-op"};

static int errors(osh_model *m)
{
	int n = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		n += osh_model_diag_at(m, i)->severity == OSH_ERROR;
	return n;
}

static void check_findings(osh_model *m, const rule_case *k, const char *at)
{
	if (k->quiet)
		cr_expect_eq(osh_model_diag_count(m), 0, "%s: %zu diagnostics, expected none", at,
			     osh_model_diag_count(m));
	int schema = 0, all = 0;
	for (size_t i = 0; i < sizeof schema_codes / sizeof schema_codes[0]; i++)
		schema += mb_count(m, schema_codes[i]);
	all = schema;
	for (size_t i = 0; i < sizeof rule_codes / sizeof rule_codes[0]; i++)
		all += mb_count(m, rule_codes[i]);
	if (k->diag)
		cr_expect_geq(mb_count(m, k->diag), 1, "%s: expected a %s", at, k->diag);
	if (k->findings) {
		cr_expect_eq(all, k->findings, "%s: %d findings, expected %d (first: %s%s%s)", at, all, k->findings,
			     mb_message(m, "shape-error"), mb_message(m, "broadcast-mismatch"),
			     mb_message(m, "type-error"));
	} else if (k->diag) {
		/* What the schema refuses is said once: the rule runs quiet. */
		if (schema)
			cr_expect_eq(mb_count(m, "shape-error"), 0, "%s: said twice: %s", at,
				     mb_message(m, "shape-error"));
	} else {
		cr_expect_eq(errors(m), 0, "%s: %d errors", at, errors(m));
		cr_expect_eq(all, 0, "%s: unexpected finding: %s%s%s%s%s%s%s%s", at, mb_message(m, "shape-error"),
			     mb_message(m, "broadcast-mismatch"), mb_message(m, "symbol-constraint"),
			     mb_message(m, "unknown-op"), mb_message(m, "arity-error"), mb_message(m, "attribute-error"),
			     mb_message(m, "type-error"), mb_message(m, "op-not-in-opset"));
	}
}

void rule_case_run(const rule_case *k)
{
	char at[256];
	snprintf(at, sizeof at, "%s (%s%s%s-%lld)", k->what, k->domain ? k->domain : "", k->domain ? "." : "", k->op,
		 (long long)k->opset);
	mb *b = mb_new(k->opset);
	if (k->domain)
		mb_opset(b, k->domain, 1);
	rule_case_decls(b, k->what, k->decls);
	rule_case_inits(b, k->what, k->ints, k->floats, k->zeros);
	mb_node(b, k->op, k->inputs ? k->inputs : "", k->outputs);
	if (k->domain)
		mb_node_domain(b, k->domain);
	rule_case_attrs(b, k->what, k->attrs);
	char buf[512], *outs[RC_OUTPUTS];
	int n = split(k->outputs, ',', buf, sizeof buf, outs, RC_OUTPUTS);
	for (int i = 0; i < n; i++)
		if (*outs[i])
			mb_output(b, outs[i], 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m, "%s: the model did not load", at);
	for (int i = 0; i < RC_OUTPUTS; i++) {
		if (!k->expect[i] && !k->content[i])
			continue;
		cr_assert(i < n, "%s: output %d is expected but not in the row's outputs", at, i);
		if (k->expect[i])
			cr_expect_str_eq(mb_type(m, outs[i]), k->expect[i], "%s: output %s", at, outs[i]);
		if (k->content[i]) {
			const char *got = rule_case_content(m, outs[i]);
			cr_expect_str_eq(got, k->content[i], "%s: %s holds '%s', expected '%s'", at, outs[i], got,
					 k->content[i]);
		}
	}
	check_findings(m, k, at);
	osh_model_free(m);
}

void rule_cases_run(const rule_case *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rule_case_run(&k[i]);
}
