/* test_rules_elementwise.c: elementwise operators, activations (SwiGLU among them) and
 * normalisations.
 *
 * Expected shapes come from Operators.md/Changelog.md and ../shared/spec/broadcasting.md
 * (its numpy and pdpd example tables are replayed through Add), worked out by hand.
 * Content (data propagation) is read from the inferred tinfo directly, as the public
 * API does not expose it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/model.h"
#include "mb.h"
#include "rule_case.h"

/* ---- helpers ---------------------------------------------------------------------- */

static const tinfo *info(osh_model *m, const char *name)
{
	int32_t id = strmap_get(&m->main->names, name);
	return id < 0 ? NULL : &m->main->values[id].ti;
}

/* Integer content as "[2, N, ?]", or "none". */
static const char *content(osh_model *m, const char *name)
{
	static char ring[8][512];
	static int at;
	char *buf = ring[at++ % 8];
	const tinfo *t = info(m, name);
	if (!t || t->nval < 0)
		return "none";
	size_t len = (size_t)snprintf(buf, 512, "[");
	for (int32_t k = 0; k < t->nval && len < 480; k++) {
		dim d = dim_resolve(&m->syms, t->val[k]);
		const char *sep = k ? ", " : "";
		if (d.kind == DIM_KNOWN)
			len += (size_t)snprintf(buf + len, 512 - len, "%s%lld", sep, (long long)d.v);
		else if (d.kind == DIM_SYMBOL)
			len += (size_t)snprintf(buf + len, 512 - len, "%s%s", sep, sym_name(&m->syms, d.v));
		else
			len += (size_t)snprintf(buf + len, 512 - len, "%s?", sep);
	}
	snprintf(buf + len, 512 - len, "]");
	return buf;
}

/* Floating content as "[1.5, 2]", or "none". */
static const char *fcontent(osh_model *m, const char *name)
{
	static char ring[4][512];
	static int at;
	char *buf = ring[at++ % 4];
	const tinfo *t = info(m, name);
	if (!t || t->nfval < 0)
		return "none";
	size_t len = (size_t)snprintf(buf, 512, "[");
	for (int32_t k = 0; k < t->nfval && len < 480; k++)
		len += (size_t)snprintf(buf + len, 512 - len, "%s%g", k ? ", " : "", t->fval[k]);
	snprintf(buf + len, 512 - len, "]");
	return buf;
}

static int errors(osh_model *m)
{
	int n = 0;
	for (size_t i = 0; i < osh_model_diag_count(m); i++)
		n += osh_model_diag_at(m, i)->severity == OSH_ERROR;
	return n;
}

/* z = op(a, b) with inputs of the given shapes ("" scalar, "?" entries unknown). */
static osh_model *binop(int64_t opset, const char *op, int32_t ea, const char *a, int32_t eb, const char *b)
{
	mb *g = mb_new(opset);
	mb_input(g, "a", ea, a);
	mb_input(g, "b", eb, b);
	mb_node(g, op, "a,b", "z");
	mb_output(g, "z", 0, NULL);
	return g ? mb_infer(g) : NULL;
}

/* ---- numpy broadcasting: every example of the spec, through Add --------------------- */

static const rule_case numpy_cases[] = {
	{"() + ()", 14, "Add", "a,b", "z", .decls = "a:|b:", .expect = {"FLOAT ()"}},
	{"(2,3) + (1)", 14, "Add", "a,b", "z", .decls = "a:2,3|b:1", .expect = {"FLOAT (2, 3)"}},
	{"(3) + (2,3)", 14, "Add", "a,b", "z", .decls = "a:3|b:2,3", .expect = {"FLOAT (2, 3)"}},
	{"(2,3,5) + ()", 14, "Add", "a,b", "z", .decls = "a:2,3,5|b:", .expect = {"FLOAT (2, 3, 5)"}},
	{"(2,1,5) + (1,4,5)", 14, "Add", "a,b", "z", .decls = "a:2,1,5|b:1,4,5", .expect = {"FLOAT (2, 4, 5)"}},
	{"(6,5) + (2,1,5)", 14, "Add", "a,b", "z", .decls = "a:6,5|b:2,1,5", .expect = {"FLOAT (2, 6, 5)"}},
	{"(2,1,5) + (4,1)", 14, "Add", "a,b", "z", .decls = "a:2,1,5|b:4,1", .expect = {"FLOAT (2, 4, 5)"}},
	{"(3,2,1,4) + (5,4)", 14, "Add", "a,b", "z", .decls = "a:3,2,1,4|b:5,4", .expect = {"FLOAT (3, 2, 5, 4)"}},
	{"(1,5,3) + (5,2,1,3)", 14, "Add", "a,b", "z", .decls = "a:1,5,3|b:5,2,1,3",
	 .expect = {"FLOAT (5, 2, 5, 3)"}},
	{"(5,7,3) + (5,7,3)", 14, "Add", "a,b", "z", .decls = "a:5,7,3|b:5,7,3", .expect = {"FLOAT (5, 7, 3)"}},
	{"(5,3,4,1) + (3,1,1)", 14, "Add", "a,b", "z", .decls = "a:5,3,4,1|b:3,1,1",
	 .expect = {"FLOAT (5, 3, 4, 1)"}},
	{"(5,1,4,1) + (3,1,1)", 14, "Add", "a,b", "z", .decls = "a:5,1,4,1|b:3,1,1",
	 .expect = {"FLOAT (5, 3, 4, 1)"}},
	{"(1) + (3,1,7)", 14, "Add", "a,b", "z", .decls = "a:1|b:3,1,7", .expect = {"FLOAT (3, 1, 7)"}},
	{"(2,1,4) + (3,1)", 14, "Add", "a,b", "z", .decls = "a:2,1,4|b:3,1", .expect = {"FLOAT (2, 3, 4)"}},
	{"(2,3,1,5) + (3,4,1)", 14, "Add", "a,b", "z", .decls = "a:2,3,1,5|b:3,4,1",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(4,1) + (4)", 14, "Add", "a,b", "z", .decls = "a:4,1|b:4", .expect = {"FLOAT (4, 4)"}},
	{"(4,1) + (3)", 14, "Add", "a,b", "z", .decls = "a:4,1|b:3", .expect = {"FLOAT (4, 3)"}},
	{"(2,3,4,5,1,1,1) + (4,1,6,7,8)", 14, "Add", "a,b", "z", .decls = "a:2,3,4,5,1,1,1|b:4,1,6,7,8",
	 .expect = {"FLOAT (2, 3, 4, 5, 6, 7, 8)"}},
	{"(3) + (2)", 14, "Add", "a,b", "z", .decls = "a:3|b:2", .expect = {"unknown"}, .diag = "broadcast-mismatch",
	 .findings = 1},
	{"(3,1,5) + (4,4,5)", 14, "Add", "a,b", "z", .decls = "a:3,1,5|b:4,4,5", .expect = {"unknown"},
	 .diag = "broadcast-mismatch", .findings = 1},
	{"(5,2,4,1) + (3,1,1)", 14, "Add", "a,b", "z", .decls = "a:5,2,4,1|b:3,1,1", .expect = {"unknown"},
	 .diag = "broadcast-mismatch", .findings = 1},
	{"(2,3,4) + (2,3,6)", 14, "Add", "a,b", "z", .decls = "a:2,3,4|b:2,3,6", .expect = {"unknown"},
	 .diag = "broadcast-mismatch", .findings = 1},
	{"(2,1,4) + (3,2)", 14, "Add", "a,b", "z", .decls = "a:2,1,4|b:3,2", .expect = {"unknown"},
	 .diag = "broadcast-mismatch", .findings = 1},
	/* symbols and unknowns (section 8): N against 3 is 3, N said to be 1 or 3; N against
	 * N stays N */
	{"(N,3) + (3,1)", 14, "Add", "a,b", "z", .decls = "a:N,3|b:3,1", .expect = {"FLOAT (3, 3)"},
	 .diag = "symbol-constraint"},
	{"(N,3) + (N,1)", 14, "Add", "a,b", "z", .decls = "a:N,3|b:N,1", .expect = {"FLOAT (N, 3)"}},
	{"(N,3) + (1)", 14, "Add", "a,b", "z", .decls = "a:N,3|b:1", .expect = {"FLOAT (N, 3)"}},
	{"(N) + (M)", 14, "Add", "a,b", "z", .decls = "a:N|b:M", .expect = {"FLOAT (?)"},
	 .diag = "symbol-constraint"},
	{"(?,2) + (3,1)", 14, "Add", "a,b", "z", .decls = "a:?,2|b:3,1", .expect = {"FLOAT (3, 2)"}},
	/* a 0 is an ordinary size */
	{"(0,3) + (1,3)", 14, "Add", "a,b", "z", .decls = "a:0,3|b:1,3", .expect = {"FLOAT (0, 3)"}},
	{"(0) + ()", 14, "Add", "a,b", "z", .decls = "a:0|b:", .expect = {"FLOAT (0)"}},
	{"(0) + (3)", 14, "Add", "a,b", "z", .decls = "a:0|b:3", .expect = {"unknown"}, .diag = "broadcast-mismatch",
	 .findings = 1},
};

Test(rules_elementwise, numpy_spec_examples_through_add) { RULE_CASES(numpy_cases); }

Test(rules_elementwise, symbol_against_size_gives_the_size)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "N,3");
	mb_input(b, "b", DT_FLOAT, "3,3");
	mb_input(b, "c", DT_FLOAT, "N");
	mb_node(b, "Add", "a,b", "z");
	mb_node(b, "Relu", "c", "r");
	mb_output(b, "z", 0, NULL);
	mb_output(b, "r", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (3, 3)");
	/* N is 1 or 3 here, not bound: a later use of N stays N */
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (N)");
	osh_model_free(m);
}

Test(rules_elementwise, mismatch_message_names_both_inputs)
{
	osh_model *m = binop(13, "Mul", DT_FLOAT, "2,3,4", DT_FLOAT, "2,3,6");
	cr_assert_not_null(m);
	cr_assert_eq(mb_count(m, "broadcast-mismatch"), 1);
	const char *msg = mb_message(m, "broadcast-mismatch");
	cr_expect(strstr(msg, "'a'") && strstr(msg, "'b'"), "message: %s", msg);
	cr_expect(strstr(msg, "(2, 3, 4)") && strstr(msg, "(2, 3, 6)"), "message: %s", msg);
	cr_expect(strstr(msg, "4") && strstr(msg, "6") && strstr(msg, "numpy"), "message: %s", msg);
	cr_expect_str_eq(mb_type(m, "z"), "unknown");
	osh_model_free(m);
}

/* ---- the output element type of every binary operator -------------------------------- */

static const rule_case binary_types[] = {
	{"Add-14", 14, "Add", "a,b", "z", .decls = "a:INT64:2,1,5|b:INT64:1,4,5", .expect = {"INT64 (2, 4, 5)"}},
	{"Sub-14", 14, "Sub", "a,b", "z", .decls = "a:FLOAT:2,1,5|b:FLOAT:1,4,5", .expect = {"FLOAT (2, 4, 5)"}},
	{"Mul-14", 14, "Mul", "a,b", "z", .decls = "a:INT32:2,1,5|b:INT32:1,4,5", .expect = {"INT32 (2, 4, 5)"}},
	{"Div-14", 14, "Div", "a,b", "z", .decls = "a:DOUBLE:2,1,5|b:DOUBLE:1,4,5", .expect = {"DOUBLE (2, 4, 5)"}},
	{"Pow-15", 15, "Pow", "a,b", "z", .decls = "a:FLOAT:2,1,5|b:INT64:1,4,5", .expect = {"FLOAT (2, 4, 5)"}},
	{"Pow-7", 7, "Pow", "a,b", "z", .decls = "a:FLOAT:2,1,5|b:FLOAT:1,4,5", .expect = {"FLOAT (2, 4, 5)"}},
	{"Mod-13", 13, "Mod", "a,b", "z", .decls = "a:INT32:2,1,5|b:INT32:1,4,5", .expect = {"INT32 (2, 4, 5)"}},
	/* direction is required: the schema says so, the type is still given */
	{"BitShift-11", 11, "BitShift", "a,b", "z", .decls = "a:UINT8:2,1,5|b:UINT8:1,4,5",
	 .expect = {"UINT8 (2, 4, 5)"}, .diag = "attribute-error"},
	{"BitwiseAnd-18", 18, "BitwiseAnd", "a,b", "z", .decls = "a:INT16:2,1,5|b:INT16:1,4,5",
	 .expect = {"INT16 (2, 4, 5)"}},
	{"BitwiseOr-18", 18, "BitwiseOr", "a,b", "z", .decls = "a:INT16:2,1,5|b:INT16:1,4,5",
	 .expect = {"INT16 (2, 4, 5)"}},
	{"BitwiseXor-18", 18, "BitwiseXor", "a,b", "z", .decls = "a:INT16:2,1,5|b:INT16:1,4,5",
	 .expect = {"INT16 (2, 4, 5)"}},
	{"And-7", 7, "And", "a,b", "z", .decls = "a:BOOL:2,1,5|b:BOOL:1,4,5", .expect = {"BOOL (2, 4, 5)"}},
	{"Or-7", 7, "Or", "a,b", "z", .decls = "a:BOOL:2,1,5|b:BOOL:1,4,5", .expect = {"BOOL (2, 4, 5)"}},
	{"Xor-7", 7, "Xor", "a,b", "z", .decls = "a:BOOL:2,1,5|b:BOOL:1,4,5", .expect = {"BOOL (2, 4, 5)"}},
	{"Equal-19", 19, "Equal", "a,b", "z", .decls = "a:FLOAT:2,1,5|b:FLOAT:1,4,5", .expect = {"BOOL (2, 4, 5)"}},
	{"Greater-13", 13, "Greater", "a,b", "z", .decls = "a:INT64:2,1,5|b:INT64:1,4,5",
	 .expect = {"BOOL (2, 4, 5)"}},
	{"Less-9", 9, "Less", "a,b", "z", .decls = "a:FLOAT:2,1,5|b:FLOAT:1,4,5", .expect = {"BOOL (2, 4, 5)"}},
	{"GreaterOrEqual-16", 16, "GreaterOrEqual", "a,b", "z", .decls = "a:FLOAT:2,1,5|b:FLOAT:1,4,5",
	 .expect = {"BOOL (2, 4, 5)"}},
	{"LessOrEqual-12", 12, "LessOrEqual", "a,b", "z", .decls = "a:FLOAT:2,1,5|b:FLOAT:1,4,5",
	 .expect = {"BOOL (2, 4, 5)"}},
	/* T shared: the second input's type when the first is not known */
	{"Add-14", 14, "Add", "a,b", "z", .decls = "a:UNDEFINED:2,1,5|b:FLOAT16:1,4,5",
	 .expect = {"FLOAT16 (2, 4, 5)"}},
};

Test(rules_elementwise, binary_output_types) { RULE_CASES(binary_types); }

/* ---- legacy broadcasting (opsets 1 and 6) ------------------------------------------------ */

/* The pdpd table of the spec (section 4), as Add-6 with broadcast=1. */
static const rule_case pdpd_cases[] = {
	{"(2,3,4,5) + (3,4) axis 1", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:3,4",
	 .attrs = "i:broadcast=1|i:axis=1", .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + (3,1) axis 1", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:3,1",
	 .attrs = "i:broadcast=1|i:axis=1", .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + (4,5) axis none", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:4,5", .attrs = "i:broadcast=1",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + (4,5) axis 2", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:4,5",
	 .attrs = "i:broadcast=1|i:axis=2", .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + (1,3) axis 0", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:1,3",
	 .attrs = "i:broadcast=1|i:axis=0", .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + () axis none", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:", .attrs = "i:broadcast=1",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + (5) axis none", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:5", .attrs = "i:broadcast=1",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + (5) axis 3", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:5", .attrs = "i:broadcast=1|i:axis=3",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,3,4,5) + (3) axis 1", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:3", .attrs = "i:broadcast=1|i:axis=1",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"(2,1,4) + (3,1) axis 1", 6, "Add", "a,b", "z", .decls = "a:2,1,4|b:3,1", .attrs = "i:broadcast=1|i:axis=1",
	 .expect = {"unknown"}, .diag = "broadcast-mismatch", .findings = 1},
	{"(2,3,4,5) + (5,1) axis none", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:5,1", .attrs = "i:broadcast=1",
	 .expect = {"unknown"}, .diag = "broadcast-mismatch", .findings = 1},
	{"(2,3,4,5) + (4,5) axis 1", 6, "Add", "a,b", "z", .decls = "a:2,3,4,5|b:4,5",
	 .attrs = "i:broadcast=1|i:axis=1", .expect = {"unknown"}, .diag = "broadcast-mismatch", .findings = 1},
	{"(8,1,6,1) + (7,1,5) axis 1", 6, "Add", "a,b", "z", .decls = "a:8,1,6,1|b:7,1,5",
	 .attrs = "i:broadcast=1|i:axis=1", .expect = {"unknown"}, .diag = "broadcast-mismatch", .findings = 1},
	{"(2,3,4) + (3) axis 3", 6, "Add", "a,b", "z", .decls = "a:2,3,4|b:3", .attrs = "i:broadcast=1|i:axis=3",
	 .expect = {"unknown"}, .diag = "broadcast-mismatch", .findings = 1},
	{"(2,3,4) + (3) axis -2", 6, "Add", "a,b", "z", .decls = "a:2,3,4|b:3", .attrs = "i:broadcast=1|i:axis=-2",
	 .expect = {"unknown"}, .diag = "broadcast-mismatch", .findings = 1},
	/* hostile axes */
	{"(2,3,4) + (3) axis 9223372036854775807", 6, "Add", "a,b", "z", .decls = "a:2,3,4|b:3",
	 .attrs = "i:broadcast=1|i:axis=9223372036854775807", .expect = {"unknown"}, .diag = "broadcast-mismatch",
	 .findings = 1},
	{"(2,3,4) + (3) axis -9223372036854775807", 6, "Add", "a,b", "z", .decls = "a:2,3,4|b:3",
	 .attrs = "i:broadcast=1|i:axis=-9223372036854775807", .expect = {"unknown"}, .diag = "broadcast-mismatch",
	 .findings = 1},
};

Test(rules_elementwise, pdpd_spec_examples_through_add6) { RULE_CASES(pdpd_cases); }

Test(rules_elementwise, legacy_pdpd_message_names_the_rule)
{
	mb *b = mb_new(6);
	mb_input(b, "a", DT_FLOAT, "2,3,4,5");
	mb_input(b, "b", DT_FLOAT, "4,5");
	mb_node(b, "Mul", "a,b", "z");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 1);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	const char *msg = mb_message(m, "broadcast-mismatch");
	cr_expect(strstr(msg, "pdpd") && strstr(msg, "'a'") && strstr(msg, "'b'"), "message: %s", msg);
	osh_model_free(m);
}

Test(rules_elementwise, legacy_without_broadcast_needs_equal_shapes)
{
	static const struct {
		int64_t opset;
		const char *op, *a, *b, *out;
	} cases[] = {
		{6, "Add", "2,3", "2,3", "FLOAT (2, 3)"},
		{6, "Add", "2,3", "3", NULL},   /* broadcast=0: no numpy */
		{1, "Sub", "2,3", "1,3", NULL}, /* not even size 1 */
		{1, "Equal", "N,3", "2,3", "BOOL (2, 3)"},
		{6, "Pow", "4", "4", "FLOAT (4)"},
		{1, "And", "4", "5", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int32_t e = !strcmp(cases[i].op, "And") ? DT_BOOL : !strcmp(cases[i].op, "Equal") ? DT_INT32 : DT_FLOAT;
		osh_model *m = binop(cases[i].opset, cases[i].op, e, cases[i].a, e, cases[i].b);
		cr_assert_not_null(m);
		if (cases[i].out) {
			cr_expect_str_eq(mb_type(m, "z"), cases[i].out, "case %zu", i);
			cr_expect_eq(errors(m), 0, "case %zu", i);
		} else {
			cr_expect_str_eq(mb_type(m, "z"), "unknown", "case %zu", i);
			cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1, "case %zu", i);
		}
		osh_model_free(m);
	}
}

/* The shape is numpy's, whatever the attributes say; ONNX Runtime refuses the node
 * (Add-7 has no such attributes): two attribute-errors. */
Test(rules_elementwise, stray_broadcast_attributes_are_ignored_from_opset_7)
{
	mb *b = mb_new(7);
	mb_input(b, "a", DT_FLOAT, "2,3");
	mb_input(b, "b", DT_FLOAT, "3");
	mb_node(b, "Add", "a,b", "z");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 0); /* pdpd would place (3) on the 2 and fail */
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (2, 3)");
	cr_expect_eq(mb_count(m, "attribute-error"), 2);
	cr_expect_eq(errors(m), 2);
	osh_model_free(m);
}

/* ---- variadic, Where ------------------------------------------------------------------ */

static osh_model *variadic(int64_t opset, const char *op, int n, const char *const *shapes)
{
	mb *b = mb_new(opset);
	char names[256] = "";
	for (int i = 0; i < n; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "x%d", i);
		mb_input(b, nm, DT_FLOAT, shapes[i]);
		strcat(names, i ? "," : "");
		strcat(names, nm);
	}
	mb_node(b, op, names, "z");
	mb_output(b, "z", 0, NULL);
	return mb_infer(b);
}

Test(rules_elementwise, variadic_folds_numpy_from_opset_8)
{
	static const struct {
		int64_t opset;
		const char *op;
		int n;
		const char *shapes[4];
		const char *out;
	} cases[] = {
		{13, "Sum", 3, {"2,1,4", "3,1", "4"}, "FLOAT (2, 3, 4)"},
		{8, "Mean", 3, {"5", "", "1,5"}, "FLOAT (1, 5)"},
		{12, "Max", 2, {"N,1", "1,7"}, "FLOAT (N, 7)"},
		{13, "Min", 1, {"3,N"}, "FLOAT (3, N)"},
		{13, "Sum", 3, {"3,1", "1,4", "3,5"}, NULL}, /* pairwise 0-1 and 0-2 fine, 1-2 not */
		{6, "Sum", 3, {"2,3", "2,3", "2,3"}, "FLOAT (2, 3)"},
		{6, "Sum", 2, {"2,3", "3"}, NULL}, /* before 8: identical shapes */
		{1, "Max", 2, {"?,3", "2,?"}, "FLOAT (2, 3)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		osh_model *m = variadic(cases[i].opset, cases[i].op, cases[i].n, cases[i].shapes);
		cr_assert_not_null(m);
		if (cases[i].out) {
			cr_expect_str_eq(mb_type(m, "z"), cases[i].out, "case %zu", i);
			cr_expect_eq(errors(m), 0, "case %zu", i);
		} else {
			cr_expect_str_eq(mb_type(m, "z"), "unknown", "case %zu", i);
			cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1, "case %zu", i);
		}
		osh_model_free(m);
	}
}

Test(rules_elementwise, variadic_mismatch_names_the_two_inputs)
{
	const char *shapes[] = {"3,1", "1,4", "3,5"};
	osh_model *m = variadic(13, "Sum", 3, shapes);
	cr_assert_not_null(m);
	const char *msg = mb_message(m, "broadcast-mismatch");
	cr_expect(strstr(msg, "'x1'") && strstr(msg, "'x2'"), "message: %s", msg);
	osh_model_free(m);
}

Test(rules_elementwise, where_broadcasts_three_ways)
{
	mb *b = mb_new(16);
	mb_input(b, "c", DT_BOOL, "2,1,1");
	mb_input(b, "x", DT_INT64, "1,3,1");
	mb_input(b, "y", DT_INT64, "4");
	mb_node(b, "Where", "c,x,y", "z");
	mb_input(b, "c2", DT_BOOL, "2");
	mb_node(b, "Where", "c2,x,y", "bad");
	mb_output(b, "z", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "z"), "INT64 (2, 3, 4)");
	/* (2) against y's (4): the condition and Y disagree */
	cr_expect_str_eq(mb_type(m, "bad"), "unknown");
	cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1);
	const char *msg = mb_message(m, "broadcast-mismatch");
	cr_expect(strstr(msg, "'c2'") && strstr(msg, "'y'"), "message: %s", msg);
	osh_model_free(m);
}

/* ---- PRelu, Clip ----------------------------------------------------------------------- */

Test(rules_elementwise, prelu_slope_broadcasts_into_x)
{
	static const struct {
		int64_t opset;
		const char *x, *slope, *out;
	} cases[] = {
		{16, "2,3,4,5", "3,1,1", "FLOAT (2, 3, 4, 5)"},
		{9, "N,3", "3", "FLOAT (N, 3)"},
		{7, "1,3,1", "3,1,7", NULL}, /* X may not grow (PyTorch in-place example) */
		{9, "2,3", "4", NULL},
		{6, "2,3", "3", "FLOAT (2, 3)"}, /* before 7: Y = X */
		{1, "2,3,4", "1", "FLOAT (2, 3, 4)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		osh_model *m = binop(cases[i].opset, "PRelu", DT_FLOAT, cases[i].x, DT_FLOAT, cases[i].slope);
		cr_assert_not_null(m);
		if (cases[i].out) {
			cr_expect_str_eq(mb_type(m, "z"), cases[i].out, "case %zu", i);
			cr_expect_eq(errors(m), 0, "case %zu", i);
		} else {
			cr_expect_str_eq(mb_type(m, "z"), "unknown", "case %zu", i);
			cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1, "case %zu", i);
		}
		osh_model_free(m);
	}
}

Test(rules_elementwise, clip_bounds)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_INT32, "N,3");
	mb_input(b, "lo", DT_INT32, "");
	mb_input(b, "hi1", DT_INT32, "1");
	mb_input(b, "hi2", DT_INT32, "2");
	mb_node(b, "Clip", "x,lo", "y1");
	mb_node(b, "Clip", "x,,hi1", "y2");
	mb_node(b, "Clip", "x,lo,hi2", "y3");
	mb_node(b, "Clip", "x", "y4");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y1"), "INT32 (N, 3)");
	cr_expect_str_eq(mb_type(m, "y2"), "INT32 (N, 3)");
	cr_expect_str_eq(mb_type(m, "y3"), "unknown");
	cr_expect_str_eq(mb_type(m, "y4"), "INT32 (N, 3)");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect(strstr(mb_message(m, "shape-error"), "'hi2' (max)") != NULL, "%s", mb_message(m, "shape-error"));
	osh_model_free(m);

	/* Input 1 is min, input 2 max: a message names the one at fault. */
	b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "3");
	mb_input(b, "lo2", DT_FLOAT, "2");
	mb_node(b, "Clip", "x,lo2", "y");
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect(strstr(mb_message(m, "shape-error"), "'lo2' (min)") != NULL, "%s", mb_message(m, "shape-error"));
	osh_model_free(m);

	b = mb_new(6);
	mb_input(b, "x", DT_FLOAT, "2,0");
	mb_node(b, "Clip", "x", "y");
	mb_attr_f(b, "min", -1.0f);
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2, 0)");
	osh_model_free(m);
}

/* ---- unary ------------------------------------------------------------------------------- */

static const rule_case unary_cases[] = {
	{"Abs-13", 13, "Abs", "x", "y", .decls = "x:INT32:N,0,3", .expect = {"INT32 (N, 0, 3)"}, .quiet = true},
	{"Acos-22", 22, "Acos", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Acosh-9", 9, "Acosh", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Asin-7", 7, "Asin", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Asinh-9", 9, "Asinh", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Atan-7", 7, "Atan", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Atanh-22", 22, "Atanh", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Ceil-13", 13, "Ceil", "x", "y", .decls = "x:DOUBLE:N,0,3", .expect = {"DOUBLE (N, 0, 3)"}, .quiet = true},
	{"Cos-7", 7, "Cos", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Cosh-9", 9, "Cosh", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Elu-6", 6, "Elu", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Erf-13", 13, "Erf", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Exp-1", 1, "Exp", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Floor-6", 6, "Floor", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"HardSigmoid-22", 22, "HardSigmoid", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"HardSwish-14", 14, "HardSwish", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"LeakyRelu-16", 16, "LeakyRelu", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"Log-13", 13, "Log", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Mish-18", 18, "Mish", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Neg-13", 13, "Neg", "x", "y", .decls = "x:INT8:N,0,3", .expect = {"INT8 (N, 0, 3)"}, .quiet = true},
	{"Reciprocal-6", 6, "Reciprocal", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"Relu-14", 14, "Relu", "x", "y", .decls = "x:INT8:N,0,3", .expect = {"INT8 (N, 0, 3)"}, .quiet = true},
	{"Round-11", 11, "Round", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Selu-1", 1, "Selu", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Shrink-9", 9, "Shrink", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Sigmoid-13", 13, "Sigmoid", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"Sign-13", 13, "Sign", "x", "y", .decls = "x:INT64:N,0,3", .expect = {"INT64 (N, 0, 3)"}, .quiet = true},
	{"Sin-7", 7, "Sin", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Sinh-9", 9, "Sinh", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Softplus-1", 1, "Softplus", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"Softsign-22", 22, "Softsign", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"Sqrt-13", 13, "Sqrt", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Tan-7", 7, "Tan", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Tanh-6", 6, "Tanh", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"ThresholdedRelu-10", 10, "ThresholdedRelu", "x", "y", .decls = "x:FLOAT:N,0,3",
	 .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Celu-12", 12, "Celu", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Gelu-20", 20, "Gelu", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"BitwiseNot-18", 18, "BitwiseNot", "x", "y", .decls = "x:UINT16:N,0,3", .expect = {"UINT16 (N, 0, 3)"},
	 .quiet = true},
	{"Not-1", 1, "Not", "x", "y", .decls = "x:BOOL:N,0,3", .expect = {"BOOL (N, 0, 3)"}, .quiet = true},
	{"IsInf-10", 10, "IsInf", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"BOOL (N, 0, 3)"}, .quiet = true},
	{"IsNaN-20", 20, "IsNaN", "x", "y", .decls = "x:FLOAT16:N,0,3", .expect = {"BOOL (N, 0, 3)"}, .quiet = true},
	{"Identity-21", 21, "Identity", "x", "y", .decls = "x:STRING:N,0,3", .expect = {"STRING (N, 0, 3)"},
	 .quiet = true},
	{"LpNormalization-22", 22, "LpNormalization", "x", "y", .decls = "x:FLOAT:N,0,3",
	 .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"MeanVarianceNormalization-13", 13, "MeanVarianceNormalization", "x", "y", .decls = "x:FLOAT:N,0,3",
	 .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Softmax-13", 13, "Softmax", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"LogSoftmax-11", 11, "LogSoftmax", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
	{"Hardmax-1", 1, "Hardmax", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"}, .quiet = true},
	{"Dropout-22", 22, "Dropout", "x", "y", .decls = "x:FLOAT:N,0,3", .expect = {"FLOAT (N, 0, 3)"},
	 .quiet = true},
};

Test(rules_elementwise, unary_keep_shape) { RULE_CASES(unary_cases); }

Test(rules_elementwise, unary_of_unknown_rank_and_wrong_arity)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, NULL);
	mb_input(b, "w", DT_FLOAT, "2");
	mb_node(b, "Relu", "x", "y");
	mb_node(b, "Relu", "x,w", "bad1");
	mb_node(b, "Add", "w", "bad2");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (rank unknown)");
	cr_expect_str_eq(mb_type(m, "bad1"), "unknown");
	cr_expect_str_eq(mb_type(m, "bad2"), "unknown");
	/* Said once, by the schema: the rule runs quiet. */
	cr_expect_eq(mb_count(m, "arity-error"), 2);
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);
}

Test(rules_elementwise, lp_and_mvn_attributes)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_FLOAT, "2,3,4,5");
	mb_node(b, "LpNormalization", "x", "p3");
	mb_attr_i(b, "p", 3);
	mb_node(b, "LpNormalization", "x", "ax");
	mb_attr_i(b, "axis", 4);
	mb_node(b, "LpNormalization", "x", "ok");
	mb_attr_i(b, "axis", -4);
	mb_attr_i(b, "p", 1);
	mb_node(b, "MeanVarianceNormalization", "x", "mvn_bad");
	mb_attr_ints(b, "axes", 2, (int64_t[]){0, 5});
	mb_node(b, "MeanVarianceNormalization", "x", "mvn");
	mb_attr_ints(b, "axes", 2, (int64_t[]){0, -1});
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "p3"), "unknown");
	cr_expect_str_eq(mb_type(m, "ax"), "unknown");
	cr_expect_str_eq(mb_type(m, "ok"), "FLOAT (2, 3, 4, 5)");
	cr_expect_str_eq(mb_type(m, "mvn_bad"), "unknown");
	cr_expect_str_eq(mb_type(m, "mvn"), "FLOAT (2, 3, 4, 5)");
	cr_expect_eq(mb_count(m, "shape-error"), 3);
	osh_model_free(m);
}

/* ---- Softmax family axes --------------------------------------------------------------------- */

Test(rules_elementwise, softmax_axis_range_by_opset)
{
	static const struct {
		int64_t opset;
		const char *op;
		int64_t axis; /* INT64_MIN: default */
		const char *x;
		bool ok;
	} cases[] = {
		{13, "Softmax", INT64_MIN, "3", true},   /* default -1 */
		{13, "Softmax", 1, "2,3", true},
		{13, "Softmax", 2, "2,3", false},
		{13, "Softmax", -3, "2,3", false},
		{13, "LogSoftmax", -2, "2,3", true},
		{11, "Softmax", 2, "2,3", false},
		{11, "Softmax", INT64_MIN, "3", false},  /* default 1 on rank 1 */
		{11, "Hardmax", -2, "2,3", true},
		{11, "Hardmax", -3, "2,3", false},
		{1, "Softmax", 2, "2,3", true},          /* coerced to (6, 1) */
		{1, "Softmax", 3, "2,3", false},
		{1, "LogSoftmax", INT64_MIN, "2,3,4", true},
		{13, "Softmax", INT64_MAX, "2,3", false},
		{13, "Softmax", INT64_MIN + 1, "2,3", false},
		{13, "Softmax", 0, "", false},           /* a scalar has no axis */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mb *b = mb_new(cases[i].opset);
		mb_input(b, "x", DT_FLOAT, cases[i].x);
		mb_node(b, cases[i].op, "x", "y");
		if (cases[i].axis != INT64_MIN)
			mb_attr_i(b, "axis", cases[i].axis);
		osh_model *m = mb_infer(b);
		cr_assert_not_null(m);
		if (cases[i].ok) {
			cr_expect_eq(errors(m), 0, "case %zu: %s", i, mb_message(m, "shape-error"));
			cr_expect(strstr(mb_type(m, "y"), "FLOAT (") != NULL, "case %zu: %s", i, mb_type(m, "y"));
		} else {
			cr_expect_eq(mb_count(m, "shape-error"), 1, "case %zu", i);
			cr_expect_str_eq(mb_type(m, "y"), "unknown", "case %zu", i);
		}
		osh_model_free(m);
	}
}

/* ---- Cast, CastLike, Dropout -------------------------------------------------------------- */

Test(rules_elementwise, cast_types)
{
	mb *b = mb_new(15); /* CastLike is new in 15 */
	mb_input(b, "x", DT_FLOAT, "N,2");
	mb_input(b, "like", DT_FLOAT16, "7");
	mb_node(b, "Cast", "x", "i64");
	mb_attr_i(b, "to", DT_INT64);
	mb_node(b, "Cast", "x", "bad_to");
	mb_attr_i(b, "to", 999);
	mb_node(b, "Cast", "x", "no_to");
	mb_node(b, "CastLike", "x,like", "h");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "i64"), "INT64 (N, 2)");
	cr_expect_str_eq(mb_type(m, "bad_to"), "unknown");
	cr_expect_str_eq(mb_type(m, "no_to"), "unknown");
	cr_expect_str_eq(mb_type(m, "h"), "FLOAT16 (N, 2)");
	/* 'to' out of range is the rule's; 'to' missing is the schema's (Cast-13
	 * requires it), said once. */
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect_eq(mb_count(m, "attribute-error"), 1);
	osh_model_free(m);

	/* Cast-1 names the type */
	b = mb_new(1);
	mb_input(b, "x", DT_FLOAT, "3");
	mb_node(b, "Cast", "x", "y");
	mb_attr_s(b, "to", "INT32");
	mb_node(b, "Cast", "x", "bad");
	mb_attr_s(b, "to", "int33");
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "INT32 (3)");
	cr_expect_str_eq(mb_type(m, "bad"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

Test(rules_elementwise, dropout_mask_by_opset)
{
	static const struct {
		int64_t opset;
		int64_t is_test; /* -1: absent */
		const char *mask;
	} cases[] = {
		{6, -1, "FLOAT (N, 3)"},
		{6, 1, "unknown"}, /* not filled in test mode */
		{7, -1, "FLOAT (N, 3)"},
		{10, -1, "BOOL (N, 3)"},
		{13, -1, "BOOL (N, 3)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		mb *b = mb_new(cases[i].opset);
		mb_input(b, "x", DT_FLOAT, "N,3");
		mb_node(b, "Dropout", "x", "y,mask");
		if (cases[i].is_test >= 0)
			mb_attr_i(b, "is_test", cases[i].is_test);
		osh_model *m = mb_infer(b);
		cr_assert_not_null(m);
		cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 3)", "case %zu", i);
		cr_expect_str_eq(mb_type(m, "mask"), cases[i].mask, "case %zu", i);
		osh_model_free(m);
	}

	mb *b = mb_new(12);
	mb_input(b, "x", DT_FLOAT, "4");
	mb_input(b, "r", DT_FLOAT, "1");
	mb_input(b, "t", DT_BOOL, "");
	mb_node(b, "Dropout", "x,r", "bad");
	mb_node(b, "Dropout", "x,,t", "ok,okm");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "bad"), "unknown");
	cr_expect_str_eq(mb_type(m, "ok"), "FLOAT (4)");
	cr_expect_str_eq(mb_type(m, "okm"), "BOOL (4)");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

/* ---- normalisations ----------------------------------------------------------------------------- */

Test(rules_elementwise, layer_normalization_outputs)
{
	mb *b = mb_new(17);
	mb_input(b, "x", DT_FLOAT16, "N,3,4,5");
	mb_input(b, "s", DT_FLOAT16, "4,5");
	mb_input(b, "bias", DT_FLOAT16, "5");
	mb_node(b, "LayerNormalization", "x,s,bias", "y,mean,inv");
	mb_attr_i(b, "axis", 2);
	mb_node(b, "LayerNormalization", "x,bias", "y2,mean2");
	mb_attr_i(b, "stash_type", DT_DOUBLE);
	mb_node(b, "LayerNormalization", "x,s", "bad_axis");
	mb_attr_i(b, "axis", 4);
	mb_node(b, "LayerNormalization", "x,s", "scale2d"); /* (4, 5) broadcasts into X */
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT16 (N, 3, 4, 5)");
	/* stash_type (default 1, FLOAT) is the statistics' type; dims from axis on are 1 */
	cr_expect_str_eq(mb_type(m, "mean"), "FLOAT (N, 3, 1, 1)");
	cr_expect_str_eq(mb_type(m, "inv"), "FLOAT (N, 3, 1, 1)");
	cr_expect_str_eq(mb_type(m, "y2"), "FLOAT16 (N, 3, 4, 5)");
	cr_expect_str_eq(mb_type(m, "mean2"), "DOUBLE (N, 3, 4, 1)");
	cr_expect_str_eq(mb_type(m, "bad_axis"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect_str_eq(mb_type(m, "scale2d"), "FLOAT16 (N, 3, 4, 5)");
	cr_expect_eq(mb_count(m, "broadcast-mismatch"), 0);
	osh_model_free(m);

	b = mb_new(17);
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_input(b, "s", DT_FLOAT, "2");
	mb_node(b, "LayerNormalization", "x,s", "y");
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "unknown");
	cr_expect_eq(mb_count(m, "broadcast-mismatch"), 1);
	osh_model_free(m);
}

static osh_model *batchnorm(int64_t opset, const char *x, const char *c, int32_t mean_elem, const char *outs,
			    int64_t training)
{
	mb *b = mb_new(opset);
	mb_input(b, "x", DT_FLOAT, x);
	mb_input(b, "scale", DT_FLOAT, c);
	mb_input(b, "bias", DT_FLOAT, c);
	mb_input(b, "mean", mean_elem, c);
	mb_input(b, "var", mean_elem, c);
	mb_node(b, "BatchNormalization", "x,scale,bias,mean,var", outs);
	if (training >= 0)
		mb_attr_i(b, "training_mode", training);
	return mb_infer(b);
}

Test(rules_elementwise, batch_normalization_training_outputs)
{
	osh_model *m = batchnorm(14, "N,3,H,W", "C", DT_FLOAT, "y,rm,rv", 1);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (N, 3, H, W)");
	cr_expect_str_eq(mb_type(m, "rm"), "FLOAT (3)");
	cr_expect_str_eq(mb_type(m, "rv"), "FLOAT (3)");
	cr_expect_eq(errors(m), 0);
	osh_model_free(m);

	/* opset 15: the running statistics have input_mean's type (T2) */
	m = batchnorm(15, "2,4", "4", DT_DOUBLE, "y,rm", 1);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "rm"), "DOUBLE (4)");
	osh_model_free(m);

	/* training_mode=0 produces only Y */
	m = batchnorm(15, "2,4", "4", DT_FLOAT, "y,rm,rv", 0);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);

	/* inference: Y only */
	m = batchnorm(15, "2,4,8", "4", DT_FLOAT, "y", -1);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2, 4, 8)");
	cr_expect_eq(errors(m), 0);
	osh_model_free(m);
}

Test(rules_elementwise, batch_normalization_channels)
{
	/* scale of size 4 on 3 channels */
	osh_model *m = batchnorm(9, "2,3,5", "4", DT_FLOAT, "y", -1);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect(strstr(mb_message(m, "shape-error"), "'scale'") != NULL, "%s", mb_message(m, "shape-error"));
	osh_model_free(m);

	/* three vectors agree with the 3 channels, the last one has 4 */
	mb *vb = mb_new(15);
	mb_input(vb, "x", DT_FLOAT, "2,3,5,5");
	mb_input(vb, "scale", DT_FLOAT, "3");
	mb_input(vb, "bias", DT_FLOAT, "3");
	mb_input(vb, "mean", DT_FLOAT, "3");
	mb_input(vb, "var", DT_FLOAT, "4");
	mb_node(vb, "BatchNormalization", "x,scale,bias,mean,var", "y");
	m = mb_infer(vb);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect(strstr(mb_message(m, "shape-error"), "'var' has 4 elements") != NULL, "%s",
		  mb_message(m, "shape-error"));
	osh_model_free(m);

	/* opset 9: a 1-D X has one channel */
	m = batchnorm(9, "5", "1", DT_FLOAT, "y", -1);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (5)");
	cr_expect_eq(errors(m), 0);
	osh_model_free(m);

	/* opset 7, five outputs of (C) */
	m = batchnorm(7, "2,3,5,5", "3", DT_FLOAT, "y,m1,v1,sm,sv", -1);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "m1"), "FLOAT (3)");
	cr_expect_str_eq(mb_type(m, "sv"), "FLOAT (3)");
	osh_model_free(m);

	/* opset 6, spatial=0: statistics per (C, D1...): the outputs follow the mean input */
	mb *b = mb_new(6);
	mb_input(b, "x", DT_FLOAT, "2,3,5");
	mb_input(b, "scale", DT_FLOAT, "3,5");
	mb_input(b, "bias", DT_FLOAT, "3,5");
	mb_input(b, "mean", DT_FLOAT, "3,5");
	mb_input(b, "var", DT_FLOAT, "3,5");
	mb_node(b, "BatchNormalization", "x,scale,bias,mean,var", "y,m1");
	mb_attr_i(b, "spatial", 0);
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2, 3, 5)");
	cr_expect_str_eq(mb_type(m, "m1"), "FLOAT (3, 5)");
	cr_expect_eq(errors(m), 0);
	osh_model_free(m);

	/* a 2-D scale with spatial (default) is an error */
	m = batchnorm(14, "2,3", "3,1", DT_FLOAT, "y", -1);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

Test(rules_elementwise, instance_group_rms_normalization)
{
	mb *b = mb_new(22);
	mb_input(b, "x", DT_FLOAT, "N,6,7");
	mb_input(b, "c6", DT_FLOAT, "6");
	mb_input(b, "c3", DT_FLOAT, "3");
	mb_input(b, "h7", DT_FLOAT16, "7");
	mb_node(b, "InstanceNormalization", "x,c6,c6", "in_ok");
	mb_node(b, "InstanceNormalization", "x,c3,c6", "in_bad");
	mb_node(b, "GroupNormalization", "x,c6,c6", "gn21");
	mb_attr_i(b, "num_groups", 3);
	mb_node(b, "GroupNormalization", "x,c6,c6", "gn_div");
	mb_attr_i(b, "num_groups", 4);
	mb_node(b, "GroupNormalization", "x,c6,c6", "gn_none");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "in_ok"), "FLOAT (N, 6, 7)");
	cr_expect_str_eq(mb_type(m, "in_bad"), "unknown");
	cr_expect_str_eq(mb_type(m, "gn21"), "FLOAT (N, 6, 7)");
	cr_expect_str_eq(mb_type(m, "gn_div"), "unknown");
	cr_expect_str_eq(mb_type(m, "gn_none"), "unknown");
	/* gn_none: GroupNormalization-21 requires num_groups, the schema says so */
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	cr_expect_eq(mb_count(m, "attribute-error"), 1);
	osh_model_free(m);

	/* opset 18: scale and bias per group */
	b = mb_new(18);
	mb_input(b, "x", DT_FLOAT, "N,6,7");
	mb_input(b, "c6", DT_FLOAT, "6");
	mb_input(b, "c3", DT_FLOAT, "3");
	mb_node(b, "GroupNormalization", "x,c3,c3", "ok");
	mb_attr_i(b, "num_groups", 3);
	mb_node(b, "GroupNormalization", "x,c6,c6", "bad");
	mb_attr_i(b, "num_groups", 3);
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "ok"), "FLOAT (N, 6, 7)");
	cr_expect_str_eq(mb_type(m, "bad"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);

	/* RMSNormalization: Y has scale's type (V) */
	b = mb_new(23);
	mb_input(b, "x", DT_FLOAT, "N,6,7");
	mb_input(b, "h7", DT_FLOAT16, "7");
	mb_node(b, "RMSNormalization", "x,h7", "y");
	mb_node(b, "RMSNormalization", "x,h7", "bad");
	mb_attr_i(b, "axis", -4);
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT16 (N, 6, 7)");
	cr_expect_str_eq(mb_type(m, "bad"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

/* ---- data propagation ---------------------------------------------------------------------------- */

Test(rules_elementwise, content_arithmetic)
{
	mb *b = mb_new(14);
	mb_init_ints(b, "v", "2", (int64_t[]){2, 3});
	mb_init_ints(b, "ten", "1", (int64_t[]){10});
	mb_init_ints(b, "two", "", (int64_t[]){2});
	mb_init_ints(b, "zero", "", (int64_t[]){0});
	mb_init_ints(b, "d", "2", (int64_t[]){-7, 7});
	mb_init_ints(b, "big", "1", (int64_t[]){INT64_MAX});
	mb_init_ints(b, "m", "2,2", (int64_t[]){1, 2, 3, 4});
	mb_init_ints(b, "col", "2,1", (int64_t[]){10, 20});
	mb_node(b, "Add", "v,ten", "add");
	mb_node(b, "Sub", "v,ten", "sub");
	mb_node(b, "Mul", "v,two", "mul");
	mb_node(b, "Div", "d,two", "div");   /* truncation toward zero */
	mb_node(b, "Div", "d,zero", "div0"); /* undefined: unknown entries */
	mb_node(b, "Mul", "big,two", "ovf"); /* overflow: unknown, not wrapped */
	mb_node(b, "Add", "m,col", "bc");    /* (2,2) + (2,1) */
	mb_node(b, "Equal", "v,two", "eq");
	mb_node(b, "Neg", "d", "neg");
	mb_node(b, "Abs", "d", "abs");
	mb_node(b, "Identity", "d", "id");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(content(m, "add"), "[12, 13]");
	cr_expect_str_eq(content(m, "sub"), "[-8, -7]");
	cr_expect_str_eq(content(m, "mul"), "[4, 6]");
	cr_expect_str_eq(content(m, "div"), "[-3, 3]");
	cr_expect_str_eq(content(m, "div0"), "[?, ?]");
	cr_expect_str_eq(content(m, "ovf"), "[?]");
	cr_expect_str_eq(content(m, "bc"), "[11, 12, 23, 24]");
	cr_expect_str_eq(mb_type(m, "eq"), "BOOL (2)");
	cr_expect_str_eq(content(m, "eq"), "[1, 0]");
	cr_expect_str_eq(content(m, "neg"), "[7, -7]");
	cr_expect_str_eq(content(m, "abs"), "[7, 7]");
	cr_expect_str_eq(content(m, "id"), "[-7, 7]");
	cr_expect_eq(errors(m), 0);
	osh_model_free(m);
}

Test(rules_elementwise, content_variadic_and_where)
{
	mb *b = mb_new(13);
	mb_init_ints(b, "a", "2", (int64_t[]){1, 5});
	mb_init_ints(b, "b", "", (int64_t[]){3});
	mb_init_ints(b, "c", "2", (int64_t[]){2, 2});
	mb_init_ints(b, "s", "3", (int64_t[]){2, -1, 4});
	mb_init_ints(b, "minus1", "", (int64_t[]){-1});
	mb_init_ints(b, "seven", "1", (int64_t[]){7});
	mb_node(b, "Max", "a,b,c", "max");
	mb_node(b, "Min", "a,b,c", "min");
	mb_node(b, "Sum", "a,b,c", "sum");
	mb_node(b, "Equal", "s,minus1", "is_neg");
	mb_node(b, "Where", "is_neg,seven,s", "fixed");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(content(m, "max"), "[3, 5]");
	cr_expect_str_eq(content(m, "min"), "[1, 2]");
	cr_expect_str_eq(content(m, "sum"), "[6, 10]");
	cr_expect_str_eq(content(m, "is_neg"), "[0, 1, 0]");
	cr_expect_str_eq(mb_type(m, "fixed"), "INT64 (3)");
	cr_expect_str_eq(content(m, "fixed"), "[2, 7, 4]");
	osh_model_free(m);
}

Test(rules_elementwise, content_legacy_pdpd_placement)
{
	/* B (2) at axis 0 of A (2, 2) adds along rows, unlike numpy (along columns) */
	mb *b = mb_new(6);
	mb_init_ints(b, "a", "2,2", (int64_t[]){1, 2, 3, 4});
	mb_init_ints(b, "r", "2", (int64_t[]){10, 20});
	mb_node(b, "Add", "a,r", "rows");
	mb_attr_i(b, "broadcast", 1);
	mb_attr_i(b, "axis", 0);
	mb_node(b, "Add", "a,r", "cols");
	mb_attr_i(b, "broadcast", 1);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "rows"), "INT64 (2, 2)");
	cr_expect_str_eq(content(m, "rows"), "[11, 12, 23, 24]");
	cr_expect_str_eq(content(m, "cols"), "[11, 22, 13, 24]");
	osh_model_free(m);
}

Test(rules_elementwise, content_cast)
{
	mb *b = mb_new(13);
	mb_init_ints(b, "v", "3", (int64_t[]){300, -1, 0});
	mb_init_floats(b, "f", "3", (float[]){2.75f, -2.75f, 1e30f});
	mb_node(b, "Cast", "v", "u8");
	mb_attr_i(b, "to", DT_UINT8);
	mb_node(b, "Cast", "v", "i8");
	mb_attr_i(b, "to", DT_INT8);
	mb_node(b, "Cast", "v", "bl");
	mb_attr_i(b, "to", DT_BOOL);
	mb_node(b, "Cast", "v", "fl");
	mb_attr_i(b, "to", DT_FLOAT);
	mb_node(b, "Cast", "f", "fi");
	mb_attr_i(b, "to", DT_INT64);
	mb_node(b, "Cast", "v", "i32");
	mb_attr_i(b, "to", DT_INT32);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	/* integer casts keep the low bits */
	cr_expect_str_eq(content(m, "u8"), "[44, 255, 0]");
	cr_expect_str_eq(content(m, "i8"), "[44, -1, 0]");
	cr_expect_str_eq(content(m, "bl"), "[1, 1, 0]");
	cr_expect_str_eq(content(m, "i32"), "[300, -1, 0]");
	cr_expect_str_eq(content(m, "fl"), "none");
	cr_expect_str_eq(fcontent(m, "fl"), "[300, -1, 0]");
	/* float to int truncates; out of range is undefined */
	cr_expect_str_eq(content(m, "fi"), "[2, -2, ?]");
	osh_model_free(m);
}

/* Floating content through + - * / and Ceil, Floor, Relu, Neg, Abs: what Range's
 * function body computes from its start, limit and delta (ceil((limit - start) /
 * delta), clamped at 0, cast to INT64). Results are rounded to float: 0.1f + 0.2f is
 * the float nearest 0.3000000119..., not the double 0.30000000000000004. A NaN
 * (0/0) is not claimed; integer tensors keep integer content. */
Test(rules_elementwise, content_floating)
{
	mb *b = mb_new(13);
	mb_init_floats(b, "start", "", (float[]){1.0f});
	mb_init_floats(b, "limit", "", (float[]){5.5f});
	mb_init_floats(b, "delta", "", (float[]){2.0f});
	mb_init_floats(b, "p", "2", (float[]){0.1f, -2.5f});
	mb_init_floats(b, "q", "2", (float[]){0.2f, 0.0f});
	mb_init_ints(b, "k", "2", (int64_t[]){7, -3});
	mb_node(b, "Sub", "limit,start", "span");
	mb_node(b, "Div", "span,delta", "steps");
	mb_node(b, "Ceil", "steps", "up");
	mb_node(b, "Relu", "up", "pos");
	mb_node(b, "Cast", "pos", "n");
	mb_attr_i(b, "to", DT_INT64);
	mb_node(b, "Add", "p,q", "sum");
	mb_node(b, "Mul", "p,q", "prod");
	mb_node(b, "Div", "q,q", "nan");
	mb_node(b, "Floor", "p", "fl");
	mb_node(b, "Neg", "p", "neg");
	mb_node(b, "Abs", "p", "abs");
	mb_node(b, "Relu", "p", "relu");
	mb_node(b, "Neg", "k", "negk");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(fcontent(m, "steps"), "[2.25]");
	cr_expect_str_eq(fcontent(m, "up"), "[3]");
	cr_expect_str_eq(content(m, "n"), "[3]");
	const tinfo *t = info(m, "sum");
	cr_assert(t && t->nfval == 2);
	cr_expect_eq(t->fval[0], (double)(0.1f + 0.2f));
	cr_expect_eq(t->fval[1], -2.5);
	cr_expect_str_eq(fcontent(m, "prod"), "[0.02, -0]");
	cr_expect_str_eq(fcontent(m, "nan"), "none");
	cr_expect_str_eq(fcontent(m, "fl"), "[0, -3]");
	cr_expect_str_eq(fcontent(m, "neg"), "[-0.1, 2.5]");
	cr_expect_str_eq(fcontent(m, "abs"), "[0.1, 2.5]");
	cr_expect_str_eq(fcontent(m, "relu"), "[0.1, 0]");
	cr_expect_str_eq(content(m, "negk"), "[-7, 3]");
	osh_model_free(m);
}

/* Shape -> arithmetic: the chains that give Reshape exact targets. Shape is another
 * family's rule: a missing one fails the test. */
Test(rules_elementwise, content_through_shape_arithmetic)
{
	mb *b = mb_new(14);
	mb_input(b, "x", DT_FLOAT, "N,3");
	mb_input(b, "k", DT_FLOAT, "2,3");
	mb_init_ints(b, "two", "", (int64_t[]){2});
	mb_init_ints(b, "one_two", "2", (int64_t[]){1, 2});
	mb_init_ints(b, "zero_one", "2", (int64_t[]){0, 1});
	mb_init_ints(b, "minus1", "", (int64_t[]){-1});
	mb_node(b, "Shape", "x", "s");
	mb_node(b, "Shape", "k", "sk");
	mb_node(b, "Mul", "sk,two", "sk2");
	mb_node(b, "Mul", "s,one_two", "s12");
	mb_node(b, "Add", "s,zero_one", "s01");
	mb_node(b, "Sub", "s,s", "s0");
	mb_node(b, "Mul", "s,two", "s2");
	mb_node(b, "Equal", "s,minus1", "neg");
	mb_node(b, "Equal", "s,s", "same");
	mb_node(b, "Max", "s,minus1", "mx");
	mb_node(b, "Cast", "s", "s32");
	mb_attr_i(b, "to", DT_INT32);
	mb_node(b, "Cast", "s", "s16");
	mb_attr_i(b, "to", DT_INT16);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "unknown-op"), 0, "every operator here has a rule");
	cr_expect_str_eq(content(m, "sk2"), "[4, 6]");
	cr_expect_str_eq(content(m, "s12"), "[N, 6]");
	cr_expect_str_eq(content(m, "s01"), "[N, 4]");
	cr_expect_str_eq(content(m, "s0"), "[0, 0]");
	cr_expect_str_eq(content(m, "s2"), "[2*N, 6]");
	cr_expect_str_eq(content(m, "neg"), "[0, 0]");
	cr_expect_str_eq(content(m, "same"), "[1, 1]");
	cr_expect_str_eq(content(m, "mx"), "[N, 3]");
	/* A size cast to INT32 is taken to fit (an anchor grid's Range over a width);
	 * INT16 could wrap one. */
	cr_expect_str_eq(content(m, "s32"), "[N, 3]");
	cr_expect_str_eq(content(m, "s16"), "[?, 3]");
	osh_model_free(m);
}

Test(rules_elementwise, identity_copies_everything)
{
	mb *b = mb_new(13);
	mb_input(b, "x", DT_BFLOAT16, "N,?,4");
	mb_node(b, "Identity", "x", "y");
	mb_node(b, "Identity", "y", "z");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "z"), "BFLOAT16 (N, ?, 4)");
	osh_model_free(m);
}

/* ---- limits ----------------------------------------------------------------------------------- */

Test(rules_elementwise, huge_ranks_and_many_inputs_stay_bounded)
{
	/* rank 1500 is past what broadcasting works on: the rank is left unknown */
	static char big[1500 * 2 + 1];
	for (int i = 0; i < 1500; i++) {
		big[2 * i] = '1';
		big[2 * i + 1] = ',';
	}
	big[2 * 1500 - 1] = '\0';
	mb *b = mb_new(14);
	mb_input(b, "a", DT_FLOAT, big);
	mb_input(b, "s", DT_FLOAT, "1");
	mb_node(b, "Add", "a,s", "z");
	mb_node(b, "Relu", "a", "r");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (rank unknown)");
	cr_expect(strncmp(mb_type(m, "r"), "FLOAT (1, 1, 1", 14) == 0, "%s", mb_type(m, "r"));
	cr_expect_eq(errors(m), 0);
	osh_model_free(m);

	/* 70 contents summed: the shape, not the content (over the operand limit) */
	b = mb_new(13);
	char names[70 * 8] = "";
	for (int i = 0; i < 70; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "v%d", i);
		mb_init_ints(b, nm, "2", (int64_t[]){i, 1});
		strcat(names, i ? "," : "");
		strcat(names, nm);
	}
	mb_node(b, "Sum", names, "sum");
	mb_node(b, "Sum", "v0,,v1", "gap");
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "sum"), "INT64 (2)");
	cr_expect_str_eq(content(m, "sum"), "none");
	cr_expect_str_eq(mb_type(m, "gap"), "unknown");
	/* An empty argument of the variadic: ONNX Runtime fails on it (arity-error). */
	cr_expect_eq(mb_count(m, "arity-error"), 1);
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);
}

/* SwiGLU (opset 28): A and B of one shape (no broadcasting) -> Y that shape; sizes
 * mostly from the onnx 1.23.1 backend tests test_swiglu*. */
/* ---- SwiGLU (28) ---- */

static const rule_case swiglu_cases[] = {
	{"same shapes", 28, "SwiGLU", "a,b", "y", .decls = "a:2,4|b:2,4", .expect = {"FLOAT (2, 4)"}},
	{"alpha, double", 28, "SwiGLU", "a,b", "y", .decls = "a:DOUBLE:2,4|b:DOUBLE:2,4", .attrs = "f:alpha=0.5",
	 .expect = {"DOUBLE (2, 4)"}},
	{"float16", 28, "SwiGLU", "a,b", "y", .decls = "a:FLOAT16:2,4|b:FLOAT16:2,4", .expect = {"FLOAT16 (2, 4)"}},
	{"dims merged from both", 28, "SwiGLU", "a,b", "y", .decls = "a:B,?,?|b:?,S,11008",
	 .expect = {"FLOAT (B, S, 11008)"}},
	{"one shape unknown", 28, "SwiGLU", "a,b", "y", .decls = "a:*|b:B,8", .expect = {"FLOAT (B, 8)"}},
	{"no broadcasting", 28, "SwiGLU", "a,b", "y", .decls = "a:2,4|b:2,1", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"ranks differ", 28, "SwiGLU", "a,b", "y", .decls = "a:2,4|b:4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	/* B's leading dims match A's whole shape: only the ranks tell them apart. */
	{"ranks differ, A's lower", 28, "SwiGLU", "a,b", "y", .decls = "a:4|b:4,4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_elementwise, swiglu) { RULE_CASES(swiglu_cases); }

/* Below its opset SwiGLU has no rule. */
Test(rules_elementwise, not_before_their_opset)
{
	mb *b = mb_new(27);
	mb_input(b, "a", DT_FLOAT, "2,4");
	mb_node(b, "SwiGLU", "a,a", "sy");
	mb_output(b, "sy", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_neq(mb_type(m, "sy"), "FLOAT (2, 4)");
	osh_model_free(m);
}
