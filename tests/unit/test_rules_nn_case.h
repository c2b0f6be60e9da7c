/* test_rules_nn_case.h: a one-node test case as one table row, for the neural-network
 * family's rule tests (test_rules_nn*.c).
 *
 * A row names the operator and opset, the node's inputs, the graph inputs with their
 * shapes, INT64/FLOAT initializers with their values, the attributes, and what the
 * first (and optionally second) output must be, as mb_type prints it; `diag` is the
 * diagnostic code the node must raise (NULL: it must raise no shape-error,
 * broadcast-mismatch, symbol-constraint nor any of the schema's arity-error,
 * attribute-error, type-error, op-not-in-opset at all; with a schema error, no
 * shape-error either: the problem is said once). Small text syntaxes keep rows on
 * a line or two:
 *   decls   "x:1,3,5,5|w:INT8:2,3,3,3|s:|u:*"   (FLOAT unless typed; "" scalar; * no shape)
 *   ints    "k:1:5|axes:2:0,-1|n::3"            (name:dims:values; dims "" is a scalar)
 *   floats  "scales:4:1,1,2,2"
 *   attrs   "is:kernel_shape=3,3|s:auto_pad=SAME_UPPER|i:group=2|f:alpha=0.5|fs:scales=1,2"
 * Expected shapes are derived by hand from Operators.md in the rows' comments.
 */
#ifndef OSH_TEST_RULES_NN_CASE_H
#define OSH_TEST_RULES_NN_CASE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb.h"

typedef struct nn_case {
	const char *what;
	int64_t opset;
	const char *op;
	const char *inputs;
	const char *decls;
	const char *ints;
	const char *floats;
	const char *attrs;
	const char *outputs;
	const char *expect;
	const char *expect2;
	const char *diag;
	const char *domain; /* the node's domain, imported at version 1; NULL: ai.onnx */
} nn_case;

/* Splits s on sep into at most cap pieces copied into buf (NUL-separated); returns
 * the count. */
static inline int nn_split(const char *s, char sep, char *buf, size_t bufcap, char **out, int cap)
{
	int n = 0;
	size_t len = strlen(s);
	cr_assert_lt(len, bufcap, "test row text too long");
	memcpy(buf, s, len + 1);
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

static inline int nn_parse_i64(const char *s, int64_t *v, int cap)
{
	int n = 0;
	while (*s && n < cap) {
		char *end;
		v[n++] = strtoll(s, &end, 10);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			break;
	}
	return n;
}

static inline int nn_parse_f(const char *s, float *v, int cap)
{
	int n = 0;
	while (*s && n < cap) {
		char *end;
		v[n++] = strtof(s, &end);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			break;
	}
	return n;
}

static inline int32_t nn_type_named(const char *s)
{
	static const struct {
		const char *name;
		int32_t t;
	} types[] = {{"FLOAT", DT_FLOAT}, {"INT64", DT_INT64}, {"INT32", DT_INT32},  {"INT8", DT_INT8},
		     {"UINT8", DT_UINT8}, {"BOOL", DT_BOOL},   {"DOUBLE", DT_DOUBLE}, {"STRING", DT_STRING}};
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (!strcmp(types[i].name, s))
			return types[i].t;
	return 0;
}

/* Declares the graph inputs of a decls string (the syntax above) in b. */
static inline void nn_declare(mb *b, const char *what, const char *decls)
{
	char buf[1024], sub[1024], *f[32], *g[4];
	int n = nn_split(decls ? decls : "", '|', buf, sizeof buf, f, 32);
	for (int i = 0; i < n; i++) {
		int m = nn_split(f[i], ':', sub, sizeof sub, g, 3);
		int32_t t = m == 3 ? nn_type_named(g[1]) : DT_FLOAT;
		const char *shape = m == 3 ? g[2] : m == 2 ? g[1] : "";
		cr_assert_neq(t, 0, "%s: unknown type in '%s'", what, f[i]);
		mb_input(b, g[0], t, strcmp(shape, "*") ? shape : NULL);
	}
}

/* The com.microsoft rule tests' check (test_rules_ms*.c): the node raised `diag`
 * at least once, or, with diag NULL, no shape-error. */
static inline void nn_expect_diag(osh_model *m, const char *what, const char *op, const char *diag)
{
	if (diag)
		cr_expect_geq(mb_count(m, diag), 1, "%s (%s): expected a %s", what, op, diag);
	else
		cr_expect_eq(mb_count(m, "shape-error"), 0, "%s (%s): unexpected: %s", what, op,
			     mb_message(m, "shape-error"));
}

/* Adds the INT64 (ints) and FLOAT (floats) initializers of the syntax above to b. */
static inline void nn_inits(mb *b, const char *what, const char *ints, const char *floats)
{
	char buf[1024], sub[1024], *f[32], *g[4];
	int n = nn_split(ints ? ints : "", '|', buf, sizeof buf, f, 32);
	for (int i = 0; i < n; i++) {
		int64_t v[64];
		cr_assert_eq(nn_split(f[i], ':', sub, sizeof sub, g, 3), 3, "%s: bad ints '%s'", what, f[i]);
		nn_parse_i64(g[2], v, 64);
		mb_init_ints(b, g[0], g[1], v);
	}
	n = nn_split(floats ? floats : "", '|', buf, sizeof buf, f, 32);
	for (int i = 0; i < n; i++) {
		float v[64];
		cr_assert_eq(nn_split(f[i], ':', sub, sizeof sub, g, 3), 3, "%s: bad floats '%s'", what, f[i]);
		nn_parse_f(g[2], v, 64);
		mb_init_floats(b, g[0], g[1], v);
	}
}

/* Sets the attributes of the syntax above on the last node of b. */
static inline void nn_attrs(mb *b, const char *what, const char *attrs)
{
	char buf[1024], *f[32];
	int n = nn_split(attrs ? attrs : "", '|', buf, sizeof buf, f, 32);
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
			int64_t v[64];
			mb_attr_ints(b, name, nn_parse_i64(val, v, 64), v);
		} else if (!strcmp(kind, "fs")) {
			float v[64];
			mb_attr_floats(b, name, nn_parse_f(val, v, 64), v);
		} else {
			cr_assert_fail("%s: bad attribute kind '%s'", what, kind);
		}
	}
}

/* Declares the node's listed outputs ("y,,z": "" entries omitted) as graph outputs. */
static inline void nn_outputs(mb *b, const char *outputs)
{
	char buf[1024], *f[32];
	int n = nn_split(outputs, ',', buf, sizeof buf, f, 32);
	for (int i = 0; i < n; i++)
		if (*f[i])
			mb_output(b, f[i], 0, NULL);
}

/* A model of opset 17 with com.microsoft 1 and the graph inputs `decls`, for the
 * com.microsoft rule tests (test_rules_ms*.c) to add their node to. */
static inline mb *nn_ms_model(const char *what, const char *decls)
{
	mb *b = mb_new(17);
	mb_opset(b, "com.microsoft", 1);
	nn_declare(b, what, decls);
	return b;
}

/* Builds the row's model and infers it; the caller frees it. */
static inline osh_model *nn_build(const nn_case *k)
{
	mb *b = mb_new(k->opset);
	nn_declare(b, k->what, k->decls);
	nn_inits(b, k->what, k->ints, k->floats);
	mb_node(b, k->op, k->inputs, k->outputs);
	if (k->domain) {
		mb_opset(b, k->domain, 1);
		mb_node_domain(b, k->domain);
	}
	nn_attrs(b, k->what, k->attrs);
	nn_outputs(b, k->outputs);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m, "%s: the model did not load", k->what);
	return m;
}

static inline const char *nn_out(const nn_case *k, int i)
{
	static char buf[256];
	char *f[8];
	char tmp[256];
	int n = nn_split(k->outputs, ',', tmp, sizeof tmp, f, 8);
	cr_assert_lt(i, n);
	strcpy(buf, f[i]);
	return buf;
}

static inline void nn_check(const nn_case *k)
{
	osh_model *m = nn_build(k);
	cr_expect_str_eq(mb_type(m, nn_out(k, 0)), k->expect, "%s (%s-%lld)", k->what, k->op, (long long)k->opset);
	if (k->expect2)
		cr_expect_str_eq(mb_type(m, nn_out(k, 1)), k->expect2, "%s (%s-%lld): second output", k->what, k->op,
				 (long long)k->opset);
	int schema = mb_count(m, "arity-error") + mb_count(m, "attribute-error") + mb_count(m, "type-error") +
		     mb_count(m, "op-not-in-opset");
	if (k->diag) {
		cr_expect_geq(mb_count(m, k->diag), 1, "%s (%s-%lld): expected a %s", k->what, k->op,
			      (long long)k->opset, k->diag);
		/* What the schema refuses is said once: the rule runs quiet. */
		if (schema)
			cr_expect_eq(mb_count(m, "shape-error"), 0, "%s (%s-%lld): said twice: %s", k->what, k->op,
				     (long long)k->opset, mb_message(m, "shape-error"));
	} else {
		int bad = mb_count(m, "shape-error") + mb_count(m, "broadcast-mismatch") +
			  mb_count(m, "symbol-constraint") + schema;
		cr_expect_eq(bad, 0, "%s (%s-%lld): unexpected finding: %s%s%s%s%s", k->what, k->op, (long long)k->opset,
			     mb_message(m, "shape-error"), mb_message(m, "broadcast-mismatch"),
			     mb_message(m, "arity-error"), mb_message(m, "attribute-error"), mb_message(m, "type-error"));
	}
	osh_model_free(m);
}

static inline void nn_check_all(const nn_case *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nn_check(&k[i]);
}

#define NN_CHECK_ALL(table) nn_check_all(table, sizeof(table) / sizeof(table)[0])

#endif
