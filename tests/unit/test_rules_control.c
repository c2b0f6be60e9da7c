/* test_rules_control.c: If, Loop and Scan: bodies inferred with the node's inputs,
 * outputs joined where alternatives meet. The bodies use Identity/Add only, whose
 * rules live in the elementwise family; Identity is enough to move shapes through. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb.h"

/* A branch with no inputs that returns `src` (an outer-scope value) through Identity. */
static mb *branch(const char *src, const char *out)
{
	mb *g = mb_new(13);
	mb_node(g, "Identity", src, out);
	mb_output(g, out, 0, NULL);
	return g;
}

Test(rules_control, if_joins_branches)
{
	mb *b = mb_new(13);
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "a", DT_FLOAT, "2,3,N");
	mb_input(b, "c", DT_FLOAT, "2,4,N");
	mb_input(b, "d", DT_FLOAT, "5");
	mb_node(b, "If", "cond", "y,z");
	mb *t = branch("a", "ta");
	mb_node(t, "Identity", "d", "td");
	mb_output(t, "td", 0, NULL);
	mb *e = branch("c", "ec");
	mb_node(e, "Identity", "a", "ea");
	mb_output(e, "ea", 0, NULL);
	mb_attr_graph(b, "then_branch", t);
	mb_attr_graph(b, "else_branch", e);
	mb_output(b, "y", 0, NULL);
	mb_output(b, "z", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	/* equal dims stay, different dims become unknown, different ranks: rank unknown */
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2, ?, N)");
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (rank unknown)");
	osh_model_free(m);
}

Test(rules_control, if_branch_count_mismatch_is_an_error)
{
	mb *b = mb_new(13);
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "a", DT_FLOAT, "2");
	mb_node(b, "If", "cond", "y");
	mb *t = branch("a", "ta");
	mb_node(t, "Identity", "a", "tb");
	mb_output(t, "tb", 0, NULL);
	mb_attr_graph(b, "then_branch", t);
	mb_attr_graph(b, "else_branch", branch("a", "ea"));
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_eq(mb_count(m, "subgraph-error"), 1);
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	cr_expect_str_eq(mb_type(m, "y"), "unknown");
	osh_model_free(m);
}

/* If whose else_branch casts 'a' to `else_elem` (its output declared as such);
 * cond: "known true" (an initializer), else a graph input. Returns the model. */
static osh_model *if_typed(int32_t else_elem, const char *cond, bool declare_else)
{
	mb *b = mb_new(13);
	if (!strcmp(cond, "known true")) {
		mb_init_ints(b, "one", "", (int64_t[]){1});
		mb_node(b, "Cast", "one", "cond");
		mb_attr_i(b, "to", DT_BOOL);
	} else {
		mb_input(b, "cond", DT_BOOL, "");
	}
	mb_input(b, "a", DT_FLOAT, "2");
	mb_node(b, "If", "cond", "y");
	mb_attr_graph(b, "then_branch", branch("a", "ta"));
	mb *e = mb_new(13);
	mb_node(e, "Cast", "a", "ea");
	mb_attr_i(e, "to", else_elem);
	mb_output(e, "ea", declare_else ? else_elem : 0, declare_else ? "2" : NULL);
	mb_attr_graph(b, "else_branch", e);
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

/* ONNX Runtime refuses branches of different element types (If's output has one
 * type), even when the condition is known and one branch never runs: of that
 * branch, what its outputs declare counts. */
Test(rules_control, if_branch_types_differ_is_an_error)
{
	osh_model *m = if_typed(DT_INT64, "input", true);
	cr_expect_eq(mb_count(m, "subgraph-error"), 1);
	cr_expect(strstr(mb_message(m, "subgraph-error"), "FLOAT from then_branch, INT64 from else_branch") != NULL,
		  "got %s", mb_message(m, "subgraph-error"));
	osh_model_free(m);
	m = if_typed(DT_INT64, "known true", true);
	cr_expect_eq(mb_count(m, "subgraph-error"), 1);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2)");
	osh_model_free(m);
	/* The branch that never runs says nothing of its type: nothing to compare. */
	m = if_typed(DT_INT64, "known true", false);
	cr_expect_eq(mb_count(m, "subgraph-error"), 0);
	osh_model_free(m);
	m = if_typed(DT_FLOAT, "input", true);
	cr_expect_eq(mb_count(m, "subgraph-error"), 0);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2)");
	osh_model_free(m);
}

Test(rules_control, loop_carried_and_scan_outputs)
{
	mb *b = mb_new(13);
	mb_input(b, "M", DT_INT64, "");
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "v", DT_FLOAT, "N,3");
	mb_node(b, "Loop", "M,cond,v", "vf,scan");
	mb *body = mb_new(13);
	mb_input(body, "i", DT_INT64, "");
	mb_input(body, "c", DT_BOOL, "");
	mb_input(body, "x", 0, NULL);
	mb_node(body, "Identity", "c", "c_out");
	mb_node(body, "Identity", "x", "x_out");
	mb_node(body, "Identity", "x", "s_out");
	mb_output(body, "c_out", 0, NULL);
	mb_output(body, "x_out", 0, NULL);
	mb_output(body, "s_out", 0, NULL);
	mb_attr_graph(b, "body", body);
	mb_output(b, "vf", 0, NULL);
	mb_output(b, "scan", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "vf"), "FLOAT (N, 3)");
	/* one element per iteration: the trip count is a fresh symbol */
	const char *s = mb_type(m, "scan");
	cr_expect(strstr(s, "FLOAT (") == s && strstr(s, ", N, 3)") != NULL, "got %s", s);
	cr_expect(strstr(s, "(?") == NULL, "trip count should be a symbol: %s", s);
	osh_model_free(m);
}

Test(rules_control, scan9_removes_and_restores_the_scan_axis)
{
	mb *b = mb_new(11);
	mb_input(b, "init", DT_FLOAT, "2");
	mb_input(b, "xs", DT_FLOAT, "2,7");
	mb_node(b, "Scan", "init,xs", "final,ys");
	mb_attr_i(b, "num_scan_inputs", 1);
	mb_attr_ints(b, "scan_input_axes", 1, (int64_t[]){1});
	mb_attr_ints(b, "scan_output_axes", 1, (int64_t[]){-1});
	mb *body = mb_new(11);
	mb_input(body, "s", 0, NULL);
	mb_input(body, "x", 0, NULL);
	mb_node(body, "Identity", "s", "s_out");
	mb_node(body, "Identity", "x", "y_out");
	mb_output(body, "s_out", 0, NULL);
	mb_output(body, "y_out", 0, NULL);
	mb_attr_graph(b, "body", body);
	mb_output(b, "final", 0, NULL);
	mb_output(b, "ys", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "final"), "FLOAT (2)");
	/* x slices are (2,); stacked along the last output axis: (2, 7) */
	cr_expect_str_eq(mb_type(m, "ys"), "FLOAT (2, 7)");
	osh_model_free(m);
}

Test(rules_control, scan8_batch_and_sequence_axes)
{
	mb *b = mb_new(8);
	mb_input(b, "init", DT_FLOAT, "B,2");
	mb_input(b, "xs", DT_FLOAT, "B,5,2");
	mb_node(b, "Scan", ",init,xs", "final,ys");
	mb_attr_i(b, "num_scan_inputs", 1);
	mb *body = mb_new(8);
	mb_input(body, "s", 0, NULL);
	mb_input(body, "x", 0, NULL);
	mb_node(body, "Identity", "s", "s_out");
	mb_node(body, "Identity", "x", "y_out");
	mb_output(body, "s_out", 0, NULL);
	mb_output(body, "y_out", 0, NULL);
	mb_attr_graph(b, "body", body);
	mb_output(b, "final", 0, NULL);
	mb_output(b, "ys", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "final"), "FLOAT (B, 2)");
	cr_expect_str_eq(mb_type(m, "ys"), "FLOAT (B, 5, 2)");
	osh_model_free(m);
}

/* A Loop of trip count M (an initializer) whose condition is built as `cond_kind`
 * says; the body passes x through and stacks it as a scan output. Returns the scan
 * output's type. */
static char *loop_scan_type(int64_t m_value, const char *cond_kind)
{
	mb *b = mb_new(13);
	mb_init_ints(b, "M", "", (int64_t[]){m_value});
	mb_input(b, "x0", DT_FLOAT, "3");
	const char *cond = "cond";
	if (!strcmp(cond_kind, "true") || !strcmp(cond_kind, "true, body ends it")) {
		mb_init_ints(b, "one", "", (int64_t[]){1});
		mb_node(b, "Cast", "one", "cond");
		mb_attr_i(b, "to", DT_BOOL);
	} else if (!strcmp(cond_kind, "false")) {
		mb_init(b, "cond", DT_BOOL, ""); /* zero-filled: false */
	} else if (!strcmp(cond_kind, "omitted")) {
		cond = "";
	} else {
		mb_input(b, "cond", DT_BOOL, ""); /* unknown at inference time */
	}
	char ins[32];
	snprintf(ins, sizeof ins, "M,%s,x0", cond);
	mb_node(b, "Loop", ins, "xf,scan");
	mb *body = mb_new(13);
	mb_input(body, "i", DT_INT64, "");
	mb_input(body, "c", DT_BOOL, "");
	mb_input(body, "x", 0, NULL);
	if (!strcmp(cond_kind, "true, body ends it")) {
		/* cond_out = i < 2: false after three iterations whatever M is */
		mb_init_ints(body, "two", "", (int64_t[]){2});
		mb_node(body, "Less", "i,two", "c_out");
	} else {
		mb_node(body, "Identity", "c", "c_out");
	}
	mb_node(body, "Identity", "x", "x_out");
	mb_node(body, "Identity", "x", "s_out");
	mb_output(body, "c_out", 0, NULL);
	mb_output(body, "x_out", 0, NULL);
	mb_output(body, "s_out", 0, NULL);
	mb_attr_graph(b, "body", body);
	mb_output(b, "xf", 0, NULL);
	mb_output(b, "scan", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	char *t = strdup(mb_type(m, "scan"));
	osh_model_free(m);
	return t;
}

/* The number of iterations is certain (Operators.md, Loop): with cond omitted the
 * loop runs M times; with cond false, never; with cond true and a body that keeps it
 * true (cond_out = cond_in), M times. When the body can end it, or the condition is
 * not known, it is a run-time quantity. */
Test(rules_control, loop_iterations_when_certain)
{
	char *t = loop_scan_type(5, "true");
	cr_expect_str_eq(t, "FLOAT (5, 3)");
	free(t);
	t = loop_scan_type(4, "omitted");
	cr_expect_str_eq(t, "FLOAT (4, 3)");
	free(t);
	t = loop_scan_type(7, "false");
	cr_expect_str_eq(t, "FLOAT (0, 3)");
	free(t);
	t = loop_scan_type(5, "true, body ends it");
	cr_expect(strstr(t, "FLOAT (unk__") == t, "got %s", t);
	free(t);
	t = loop_scan_type(5, "unknown");
	cr_expect(strstr(t, "FLOAT (unk__") == t, "got %s", t);
	free(t);
}

/* A Loop (trip count 2, condition a graph input) carrying x0, FLOAT (2), its body
 * passing it through, but for `defect`. */
static osh_model *loop_with(const char *defect)
{
	bool no_cond = !strcmp(defect, "condition FLOAT, node without one");
	bool cond_in_float = no_cond || !strcmp(defect, "condition FLOAT");
	bool cond_out_float = !strcmp(defect, "condition out FLOAT");
	bool no_cond_input = !strcmp(defect, "no condition input");
	bool x_declared_int = !strcmp(defect, "carried declared INT64");
	bool x_to_int = !strcmp(defect, "carried to INT64");
	mb *b = mb_new(13);
	mb_init_ints(b, "M", "", (int64_t[]){2});
	mb_input(b, "cond", DT_BOOL, "");
	mb_input(b, "x0", DT_FLOAT, "2");
	mb_node(b, "Loop", no_cond ? "M,,x0" : "M,cond,x0", !strcmp(defect, "node output more") ? "xf,s" : "xf");
	mb *body = mb_new(13);
	mb_input(body, "i", !strcmp(defect, "iteration number INT32") ? DT_INT32 : DT_INT64, "");
	if (!no_cond_input)
		mb_input(body, "c", cond_in_float ? DT_FLOAT : DT_BOOL, "");
	mb_input(body, "x", x_declared_int ? DT_INT64 : DT_FLOAT, "2");
	if (!strcmp(defect, "input with a default")) {
		mb_input(body, "k", DT_FLOAT, "2");
		mb_init(body, "k", DT_FLOAT, "2");
	}
	if (cond_in_float || cond_out_float) {
		mb_node(body, "Cast", "c", "c_out");
		mb_attr_i(body, "to", cond_in_float ? DT_BOOL : DT_FLOAT);
	} else {
		mb_node(body, "Identity", no_cond_input ? "cond" : "c", "c_out");
	}
	if (x_declared_int || x_to_int) {
		mb_node(body, "Cast", "x", "x_out");
		mb_attr_i(body, "to", x_declared_int ? DT_FLOAT : DT_INT64);
	} else {
		mb_node(body, "Identity", "x", "x_out");
	}
	mb_output(body, "c_out", 0, NULL);
	mb_output(body, "x_out", 0, NULL);
	if (!strcmp(defect, "body output more")) {
		mb_node(body, "Identity", "x", "s_out");
		mb_output(body, "s_out", 0, NULL);
	}
	mb_attr_graph(b, "body", body);
	mb_output(b, "xf", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

/* What ONNX Runtime 1.30 refuses of a Loop's body (or fails on when it runs), and
 * what it accepts: each checked with tests/validity/judge_ort.js. */
static const struct {
	const char *defect;
	const char *message; /* a subgraph-error's, NULL for none */
} loop_cases[] = {
	{"none", NULL},
	{"no condition input", "Loop's body takes 2 inputs, but the node passes 3"},
	{"input with a default", NULL}, /* ONNX Runtime passes only the inputs without one */
	{"body output more", "Loop's body gives 3 outputs, but the node has 1 output and 1 loop-carried value"},
	{"node output more", "Loop's body gives 2 outputs, but the node has 2 outputs"},
	{"carried to INT64", "turns loop-carried value 0 ('x0') from FLOAT into INT64"},
	{"carried declared INT64", "declares input 2 'x' as INT64, but the node passes FLOAT (a loop-carried value)"},
	{"condition out FLOAT", "gives its condition (output 0 'c_out') as FLOAT"},
	{"condition FLOAT", "declares input 1 'c' as FLOAT, but the node passes BOOL (the condition)"},
	{"condition FLOAT, node without one", NULL},
	{"iteration number INT32", "declares input 0 'i' as INT32, but the node passes INT64 (the iteration number)"},
};

Test(rules_control, loop_body_against_the_node)
{
	for (size_t k = 0; k < sizeof loop_cases / sizeof *loop_cases; k++) {
		const char *defect = loop_cases[k].defect, *want = loop_cases[k].message;
		osh_model *m = loop_with(defect);
		const char *got = mb_message(m, "subgraph-error");
		cr_expect_eq(mb_count(m, "subgraph-error"), want ? 1 : 0, "%s: %d subgraph-errors (%s)", defect,
			     mb_count(m, "subgraph-error"), got);
		cr_expect_eq(mb_count(m, "shape-error"), 0, "%s: %s", defect, mb_message(m, "shape-error"));
		if (want)
			cr_expect(strstr(got, want) != NULL, "%s: got %s", defect, got);
		osh_model_free(m);
	}
}

/* A Scan (opset 11) of one state s0, FLOAT (2), and scan inputs x0 (3, 2) and, with
 * `second`, x1 of shape `second` scanned along axis `axis1`; the body adds the slices
 * to the state, but for `defect`. */
static osh_model *scan_with(const char *defect, const char *second, int64_t axis1)
{
	mb *b = mb_new(11);
	mb_input(b, "s0", DT_FLOAT, "2");
	mb_input(b, "x0", DT_FLOAT, "3,2");
	if (second)
		mb_input(b, "x1", DT_FLOAT, second);
	mb_node(b, "Scan", second ? "s0,x0,x1" : "s0,x0", !strcmp(defect, "node output more") ? "sf,ys,zs" : "sf,ys");
	mb_attr_i(b, "num_scan_inputs", second ? 2 : 1);
	if (second)
		mb_attr_ints(b, "scan_input_axes", 2, (int64_t[]){0, axis1});
	mb *body = mb_new(11);
	mb_input(body, "s", !strcmp(defect, "state declared INT64") ? DT_INT64 : DT_FLOAT, "2");
	if (strcmp(defect, "no scan input"))
		mb_input(body, "x", DT_FLOAT, !strcmp(defect, "slice declared (3)") ? "3" : "2");
	if (second)
		mb_input(body, "z", DT_FLOAT, "2");
	const char *x = strcmp(defect, "no scan input") ? "x" : "s";
	char ins[16];
	snprintf(ins, sizeof ins, "s,%s", x);
	mb_node(body, !strcmp(defect, "state declared INT64") ? "Identity" : "Add",
		!strcmp(defect, "state declared INT64") ? "x" : ins, "t");
	if (!strcmp(defect, "state to INT64")) {
		mb_node(body, "Cast", "t", "s_out");
		mb_attr_i(body, "to", DT_INT64);
	} else if (!strcmp(defect, "state to (4)")) {
		mb_node(body, "Concat", "t,t", "s_out");
		mb_attr_i(body, "axis", 0);
	} else {
		mb_node(body, "Identity", "t", "s_out");
	}
	mb_node(body, "Identity", x, "y");
	mb_output(body, "s_out", 0, NULL);
	mb_output(body, "y", 0, NULL);
	mb_attr_graph(b, "body", body);
	mb_output(b, "sf", 0, NULL);
	mb_output(b, "ys", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

static const struct {
	const char *defect;
	const char *second; /* x1's shape, or NULL for no x1 */
	int64_t axis1;
	const char *message; /* a subgraph-error's, NULL for none */
} scan_cases[] = {
	{"none", NULL, 0, NULL},
	{"none", "3,2", 0, NULL},
	{"none", "2,3", 1, NULL},
	{"none", "2,4", 1, "Scan's inputs 'x0' and 'x1' are 3 and 4 long along their scan axes"},
	{"none", "4,2", 0, "Scan's inputs 'x0' and 'x1' are 3 and 4 long along their scan axes"},
	{"no scan input", NULL, 0, "Scan's body takes 1 input, but the node passes 2: 1 state and 1 scan input"},
	{"node output more", NULL, 0, "Scan's body gives 2 outputs, but the node has 3 outputs and 1 state"},
	{"state to INT64", NULL, 0, "Scan's body turns state 0 ('s0') from FLOAT into INT64 (its output 's_out')"},
	{"state to (4)", NULL, 0, "Scan's body turns state 0 ('s0') from (2,) into (4,) (its output 's_out')"},
	{"state declared INT64", NULL, 0, "declares input 0 's' as INT64, but the node passes FLOAT (a state)"},
	{"slice declared (3)", NULL, 0,
	 "declares input 1 'x' as (3,), but the node passes (2,) (a scan input's slice)"},
};

Test(rules_control, scan_body_against_the_node)
{
	for (size_t k = 0; k < sizeof scan_cases / sizeof *scan_cases; k++) {
		const char *defect = scan_cases[k].defect, *want = scan_cases[k].message;
		osh_model *m = scan_with(defect, scan_cases[k].second, scan_cases[k].axis1);
		const char *got = mb_message(m, "subgraph-error");
		cr_expect_eq(mb_count(m, "subgraph-error"), want ? 1 : 0, "%s, %s: %d subgraph-errors (%s)", defect,
			     scan_cases[k].second ? scan_cases[k].second : "-", mb_count(m, "subgraph-error"), got);
		if (want)
			cr_expect(strstr(got, want) != NULL, "%s: got %s", defect, got);
		osh_model_free(m);
	}
}

/* Scan-8: every input has the batch axis 0, the scan inputs their sequence axis 1. */
Test(rules_control, scan8_batch_and_length_mismatch)
{
	const char *const xs[] = {"1,3,2", "2,3,2"};
	for (int k = 0; k < 2; k++) {
		mb *b = mb_new(8);
		mb_input(b, "s0", DT_FLOAT, "1,2");
		mb_input(b, "x0", DT_FLOAT, xs[k]);
		mb_node(b, "Scan", ",s0,x0", "sf,ys");
		mb_attr_i(b, "num_scan_inputs", 1);
		mb *body = mb_new(8);
		mb_input(body, "s", 0, NULL);
		mb_input(body, "x", 0, NULL);
		mb_node(body, "Add", "s,x", "s_out");
		mb_node(body, "Identity", "x", "y");
		mb_output(body, "s_out", 0, NULL);
		mb_output(body, "y", 0, NULL);
		mb_attr_graph(b, "body", body);
		mb_output(b, "sf", 0, NULL);
		mb_output(b, "ys", 0, NULL);
		osh_model *m = mb_infer(b);
		cr_assert_not_null(m);
		cr_expect_eq(mb_count(m, "subgraph-error"), k, "%s: %s", xs[k], mb_message(m, "subgraph-error"));
		const char *got = mb_message(m, "subgraph-error");
		if (k)
			cr_expect(strstr(got, "'s0' and 'x0' have batch sizes 1 and 2") != NULL, "got %s", got);
		osh_model_free(m);
	}
}
