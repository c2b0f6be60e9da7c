/* test_rules_tensor_dsl.h: one-node test cases for the tensor family's rule tests,
 * written as table rows (included by test_rules_tensor*.c; static functions only).
 *
 * A row states the graph in three short strings and the expected outcome:
 *   decls  space-separated: "x:FLOAT:2,N,3" a graph input (shape "-": none, "" after
 *          the colon: a scalar); "s=2:0,-1" an INT64 initializer (dims with 'x' between
 *          them, "" for a scalar, then the values); "f~2:1.5,2" a FLOAT initializer;
 *          "b!BOOL:3" a zero-filled initializer of any type
 *   attrs  space-separated: "axis=1", "perm=[1,0,2]", "scale=f1.5", "fs=f[1,2]",
 *          "value=T2x2:1,2,3,4" (INT64 tensor), "value=F1:2.5" (FLOAT tensor),
 *          anything else a string ("mode=reflect")
 *   expect "y=FLOAT (2, 3); z=INT64 ()" (mb_type text per output)
 *   content "y=[2, N]" integer content, "y=f[1.5, 2]" floating content, "y=none"
 *   errors  how many shape-error and broadcast-mismatch diagnostics the node makes
 * Expected values are worked out by hand from the operator's specification.
 */
#ifndef OSH_TESTS_RULES_TENSOR_DSL_H
#define OSH_TESTS_RULES_TENSOR_DSL_H

#include <criterion/criterion.h>

#include "core/model.h"
#include "mb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tcase {
	const char *name;
	int64_t opset;
	const char *decls;
	const char *op;
	const char *ins, *outs;
	const char *attrs;
	const char *expect;
	const char *content; /* NULL: not checked */
	int errors;
} tcase;

static const struct {
	const char *name;
	int32_t t;
} dsl_types[] = {
	{"FLOAT", DT_FLOAT}, {"DOUBLE", DT_DOUBLE}, {"FLOAT16", DT_FLOAT16}, {"INT64", DT_INT64},
	{"INT32", DT_INT32}, {"INT8", DT_INT8},     {"UINT8", DT_UINT8},     {"BOOL", DT_BOOL},
	{"STRING", DT_STRING},
};

static int32_t dsl_type(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof dsl_types / sizeof dsl_types[0]; i++)
		if (strlen(dsl_types[i].name) == len && !strncmp(dsl_types[i].name, s, len))
			return dsl_types[i].t;
	cr_assert_fail("dsl: unknown type '%.*s'", (int)len, s);
	return 0;
}

/* "2x3" → "2,3" in buf. */
static const char *dsl_dims(const char *s, size_t len, char *buf, size_t cap)
{
	snprintf(buf, cap, "%.*s", (int)len, s);
	for (char *p = buf; *p; p++)
		if (*p == 'x')
			*p = ',';
	return buf;
}

static int dsl_ints(const char *s, int64_t *out, int cap)
{
	int n = 0;
	while (*s && *s != ']' && n < cap) {
		char *end;
		long long x = strtoll(s, &end, 10);
		if (end == s)
			break;
		out[n++] = x;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static int dsl_floats(const char *s, float *out, int cap)
{
	int n = 0;
	while (*s && *s != ']' && n < cap) {
		char *end;
		float x = strtof(s, &end);
		if (end == s)
			break;
		out[n++] = x;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

static void dsl_decl(mb *b, const char *tok)
{
	char name[64], dims[128];
	const char *eq = strpbrk(tok, "=~!:");
	cr_assert(eq, "dsl: bad declaration '%s'", tok);
	snprintf(name, sizeof name, "%.*s", (int)(eq - tok), tok);
	const char *rest = eq + 1;
	const char *colon = strchr(rest, ':');
	if (*eq == ':') {
		/* input name:TYPE:shape */
		cr_assert(colon, "dsl: bad input '%s'", tok);
		int32_t t = dsl_type(rest, (size_t)(colon - rest));
		mb_input(b, name, t, !strcmp(colon + 1, "-") ? NULL : colon + 1);
		return;
	}
	if (*eq == '!') {
		cr_assert(colon, "dsl: bad initializer '%s'", tok);
		int32_t t = dsl_type(rest, (size_t)(colon - rest));
		mb_init(b, name, t, dsl_dims(colon + 1, strlen(colon + 1), dims, sizeof dims));
		return;
	}
	cr_assert(colon, "dsl: bad initializer '%s'", tok);
	dsl_dims(rest, (size_t)(colon - rest), dims, sizeof dims);
	if (*eq == '=') {
		static int64_t v[4096];
		dsl_ints(colon + 1, v, 4096);
		mb_init_ints(b, name, dims, v);
	} else {
		static float v[4096];
		dsl_floats(colon + 1, v, 4096);
		mb_init_floats(b, name, dims, v);
	}
}

static void dsl_attr(mb *b, const char *tok)
{
	char name[64], dims[128];
	const char *eq = strchr(tok, '=');
	cr_assert(eq, "dsl: bad attribute '%s'", tok);
	snprintf(name, sizeof name, "%.*s", (int)(eq - tok), tok);
	const char *v = eq + 1;
	static int64_t iv[4096];
	static float fv[4096];
	if (v[0] == '[') {
		mb_attr_ints(b, name, dsl_ints(v + 1, iv, 4096), iv);
	} else if (v[0] == 'f' && v[1] == '[') {
		mb_attr_floats(b, name, dsl_floats(v + 2, fv, 4096), fv);
	} else if (v[0] == 'f' && (v[1] == '-' || (v[1] >= '0' && v[1] <= '9'))) {
		mb_attr_f(b, name, strtof(v + 1, NULL));
	} else if ((v[0] == 'T' || v[0] == 'F') && strchr(v, ':')) {
		const char *colon = strchr(v, ':');
		dsl_dims(v + 1, (size_t)(colon - v - 1), dims, sizeof dims);
		if (v[0] == 'T') {
			dsl_ints(colon + 1, iv, 4096);
			mb_attr_tensor_ints(b, name, dims, iv);
		} else {
			dsl_floats(colon + 1, fv, 4096);
			mb_attr_tensor_floats(b, name, dims, fv);
		}
	} else if (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
		mb_attr_i(b, name, strtoll(v, NULL, 10));
	} else {
		mb_attr_s(b, name, v);
	}
}

/* Calls fn on each space-separated token of s. */
static void dsl_each(mb *b, const char *s, void (*fn)(mb *, const char *))
{
	char tok[8192];
	while (s && *s) {
		while (*s == ' ')
			s++;
		size_t len = strcspn(s, " ");
		if (!len)
			break;
		snprintf(tok, sizeof tok, "%.*s", (int)len, s);
		fn(b, tok);
		s += len;
	}
}

/* Content of a value of the main graph as text: "[2, N, ?]", "f[1.5, 2]" or "none". */
static const char *dsl_content(osh_model *m, const char *name)
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

/* Checks "a=TEXT; b=TEXT" against fn(m, name). */
static void dsl_check(osh_model *m, const char *tname, const char *spec, const char *(*fn)(osh_model *, const char *))
{
	char item[1024];
	while (spec && *spec) {
		size_t len = strcspn(spec, ";");
		snprintf(item, sizeof item, "%.*s", (int)len, spec);
		char *eq = strchr(item, '=');
		cr_assert(eq, "%s: bad expectation '%s'", tname, item);
		*eq = 0;
		const char *got = fn(m, item);
		cr_expect_str_eq(got, eq + 1, "%s: %s is '%s', expected '%s'", tname, item, got, eq + 1);
		spec += len;
		while (*spec == ';' || *spec == ' ')
			spec++;
	}
}

static const char *dsl_type_of(osh_model *m, const char *name) { return mb_type(m, name); }

static void run_case(const tcase *t)
{
	mb *b = mb_new(t->opset);
	dsl_each(b, t->decls, dsl_decl);
	mb_node(b, t->op, t->ins, t->outs);
	dsl_each(b, t->attrs, dsl_attr);
	char outs[256];
	snprintf(outs, sizeof outs, "%s", t->outs);
	for (char *o = strtok(outs, ","); o; o = strtok(NULL, ","))
		mb_output(b, o, 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m, "%s: the model did not load", t->name);
	dsl_check(m, t->name, t->expect, dsl_type_of);
	if (t->content)
		dsl_check(m, t->name, t->content, dsl_content);
	int errors = mb_count(m, "shape-error") + mb_count(m, "broadcast-mismatch") + mb_count(m, "arity-error") +
		     mb_count(m, "type-error") + mb_count(m, "attribute-error");
	cr_expect_eq(errors, t->errors, "%s: %d errors, expected %d (first: %s%s)", t->name, errors, t->errors,
		     mb_message(m, "shape-error"), mb_message(m, "broadcast-mismatch"));
	osh_model_free(m);
}

static void run_cases(const tcase *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_case(&cases[i]);
}

#define RUN_TABLE(t) run_cases((t), sizeof(t) / sizeof((t)[0]))

#endif
