/* test_rules_control.c: If, Loop and Scan: bodies inferred with the node's inputs,
 * outputs joined where alternatives meet. The bodies use Identity/Add only, whose
 * rules live in the elementwise family; Identity is enough to move shapes through. */
#include <criterion/criterion.h>

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
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect_str_eq(mb_type(m, "y"), "unknown");
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
