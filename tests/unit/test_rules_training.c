/* test_rules_training.c: the ai.onnx.preview.training operators. From Operators.md:
 *   Adagrad(R, T, X1..Xn, G1..Gn, H1..Hn)           -> X1'..Xn', H1'..Hn'
 *   Adam(R, T, X1..Xn, G1..Gn, V1..Vn, H1..Hn)      -> X1'..Xn', V1'..Vn', H1'..Hn'
 *   Momentum(R, T, X1..Xn, G1..Gn, V1..Vn)          -> X1'..Xn', V1'..Vn'
 * each new tensor shaped (and typed) like the one it replaces; Gradient's i-th output
 * is d y / d xs[i], shaped like its i-th input.
 */
#include <criterion/criterion.h>

#include "mb.h"

#define TRAINING "ai.onnx.preview.training"

static mb *training_model(void)
{
	mb *b = mb_new(17);
	mb_opset(b, TRAINING, 1);
	mb_input(b, "r", DT_FLOAT, "");
	mb_input(b, "t", DT_INT64, "");
	return b;
}

static void node(mb *b, const char *op, const char *inputs, const char *outputs)
{
	mb_node(b, op, inputs, outputs);
	mb_node_domain(b, TRAINING);
}

static int findings(osh_model *m) { return mb_count(m, "shape-error") + mb_count(m, "unknown-op"); }

Test(rules_training, adagrad_two_tensors)
{
	mb *b = training_model();
	mb_input(b, "x1", DT_FLOAT, "3,4");
	mb_input(b, "x2", DT_DOUBLE, "5");
	mb_input(b, "g1", DT_FLOAT, "3,4");
	mb_input(b, "g2", DT_DOUBLE, "5");
	mb_input(b, "h1", DT_FLOAT, "3,4");
	mb_input(b, "h2", DT_DOUBLE, "5");
	node(b, "Adagrad", "r,t,x1,x2,g1,g2,h1,h2", "x1n,x2n,h1n,h2n");
	mb_attr_f(b, "decay_factor", 0.1f);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "x1n"), "FLOAT (3, 4)");
	cr_expect_str_eq(mb_type(m, "x2n"), "DOUBLE (5)");
	cr_expect_str_eq(mb_type(m, "h1n"), "FLOAT (3, 4)");
	cr_expect_str_eq(mb_type(m, "h2n"), "DOUBLE (5)");
	cr_expect_eq(findings(m), 0, "%s", mb_message(m, "shape-error"));
	osh_model_free(m);
}

/* The group's shapes are merged: X's unknown dim is the gradient's 4. */
Test(rules_training, adam_merges_the_group)
{
	mb *b = training_model();
	mb_input(b, "x", DT_FLOAT, "N,?");
	mb_input(b, "g", DT_FLOAT, "N,4");
	mb_input(b, "v", DT_FLOAT, NULL);
	mb_input(b, "h", DT_FLOAT, "?,4");
	node(b, "Adam", "r,t,x,g,v,h", "xn,vn,hn");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "xn"), "FLOAT (N, 4)");
	cr_expect_str_eq(mb_type(m, "vn"), "FLOAT (N, 4)");
	cr_expect_str_eq(mb_type(m, "hn"), "FLOAT (N, 4)");
	cr_expect_eq(findings(m), 0, "%s", mb_message(m, "shape-error"));
	osh_model_free(m);
}

/* The attributes Momentum-1 requires besides 'mode' (the rule reads none of them). */
static void momentum_attrs(mb *b)
{
	mb_attr_f(b, "alpha", 0.9f);
	mb_attr_f(b, "beta", 0.1f);
	mb_attr_f(b, "norm_coefficient", 0.0f);
}

/* Only the new X wanted: the trailing outputs are omitted. */
Test(rules_training, momentum_fewer_outputs)
{
	mb *b = training_model();
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_input(b, "g", DT_FLOAT, "2,3");
	mb_input(b, "v", DT_FLOAT, "2,3");
	node(b, "Momentum", "r,t,x,g,v", "xn");
	mb_attr_s(b, "mode", "nesterov");
	momentum_attrs(b);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "xn"), "FLOAT (2, 3)");
	cr_expect_eq(findings(m), 0);
	osh_model_free(m);
}

Test(rules_training, momentum_group_disagrees)
{
	mb *b = training_model();
	mb_input(b, "x", DT_FLOAT, "2,3");
	mb_input(b, "g", DT_FLOAT, "2,4");
	mb_input(b, "v", DT_FLOAT, "2,3");
	node(b, "Momentum", "r,t,x,g,v", "xn,vn");
	mb_attr_s(b, "mode", "standard");
	momentum_attrs(b);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "xn"), "FLOAT (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

/* 2 + 3n inputs for Adagrad: 7 is not. */
Test(rules_training, adagrad_bad_input_count)
{
	mb *b = training_model();
	mb_input(b, "x", DT_FLOAT, "2");
	node(b, "Adagrad", "r,t,x,x,x,x,x", "xn");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "xn"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

/* xs = (a, b), zs = (c): inputs a, b, c; outputs dy/da, dy/db. */
Test(rules_training, gradient)
{
	mb *b = mb_new(17);
	mb_opset(b, TRAINING, 1);
	mb_input(b, "a", DT_FLOAT, "2,3");
	mb_input(b, "b", DT_FLOAT, "N");
	mb_input(b, "c", DT_FLOAT, "3");
	mb_node(b, "Mul", "a,c", "p");
	mb_node(b, "ReduceSum", "p", "q");
	mb_node(b, "Mul", "q,b", "y");
	node(b, "Gradient", "a,b,c", "da,db");
	mb_attr_strings(b, "xs", 2, (const char *const[]){"a", "b"});
	mb_attr_strings(b, "zs", 1, (const char *const[]){"c"});
	mb_attr_s(b, "y", "y");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "da"), "? (2, 3)");
	cr_expect_str_eq(mb_type(m, "db"), "? (N)");
	osh_model_free(m);
}

Test(rules_training, gradient_needs_xs)
{
	mb *b = mb_new(17);
	mb_opset(b, TRAINING, 1);
	mb_input(b, "a", DT_FLOAT, "2,3");
	node(b, "Gradient", "a", "da");
	mb_attr_s(b, "y", "a");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "da"), "unknown");
	/* Gradient-1 requires xs: the schema says so, the rule runs quiet. */
	cr_expect_eq(mb_count(m, "attribute-error"), 1);
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);
}
