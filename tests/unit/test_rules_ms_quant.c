/* test_rules_ms_quant.c: the rules of rules_ms_quant.c that tests/ort/ms_vs_ort.py
 * cannot check: QLinearReduceMean (no CPU kernel in ONNX Runtime) and the models the
 * runtime refuses, for which a rule must report a shape-error and claim no shape. One
 * table row per one-node model; the expected shapes are derived by hand from ONNX
 * Runtime's docs/ContribOperators.md in the rows' comments.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_rules_nn_case.h"

typedef struct msq_case {
	const char *what;
	const char *op;
	const char *inputs; /* the node's inputs, "" entries for omitted ones */
	const char *decls;  /* "x:2,3,4|b:4" graph inputs, FLOAT; "" after ':' a scalar */
	const char *expect; /* output y, as mb_type prints it */
	const char *diag;   /* a diagnostic code the node must raise, NULL: no shape-error */
	const char *iname;  /* an INT attribute, NULL: none */
	int64_t ival;
	const char *lname; /* an INTS attribute, NULL: none */
	int nl;
	int64_t lval[4];
	const char *axis_init; /* an INT64 scalar initializer named "axis" holding axis_val */
	int64_t axis_val;
} msq_case;

static void msq_check(const msq_case *k)
{
	mb *b = mb_new(17);
	mb_opset(b, "com.microsoft", 1);
	nn_declare(b, k->what, k->decls);
	if (k->axis_init)
		mb_init_ints(b, k->axis_init, "", &k->axis_val);
	mb_node(b, k->op, k->inputs, "y");
	mb_node_domain(b, "com.microsoft");
	if (k->iname)
		mb_attr_i(b, k->iname, k->ival);
	if (k->lname)
		mb_attr_ints(b, k->lname, k->nl, k->lval);
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert(m, "%s: the model did not load", k->what);
	cr_expect_str_eq(mb_type(m, "y"), k->expect, "%s (%s)", k->what, k->op);
	nn_expect_diag(m, k->what, k->op, k->diag);
	osh_model_free(m);
}

#define Q2(p) p "_s," p "_z"
#define Q2D(p) p "_s:|" p "_z:"

static const msq_case cases[] = {
	/* QLinearReduceMean(data, data_scale, data_zp, reduced_scale, reduced_zp): ReduceMean
	 * over the `axes` attribute, keepdims 1 by default */
	{"QLinearReduceMean", "QLinearReduceMean", "x," Q2("x") "," Q2("y"), "x:2,3,4|" Q2D("x") "|" Q2D("y"),
	 "FLOAT (2, 1, 4)", .lname = "axes", .nl = 1, .lval = {1}},
	{"QLinearReduceMean, keepdims 0", "QLinearReduceMean", "x," Q2("x") "," Q2("y"),
	 "x:N,3,4|" Q2D("x") "|" Q2D("y"), "FLOAT (N, 3)", .iname = "keepdims", .ival = 0, .lname = "axes", .nl = 1,
	 .lval = {-1}},
	{"QLinearReduceMean, two axes", "QLinearReduceMean", "x," Q2("x") "," Q2("y"),
	 "x:2,3,4,5|" Q2D("x") "|" Q2D("y"), "FLOAT (2, 1, 1, 5)", .lname = "axes", .nl = 2, .lval = {1, 2}},
	{"QLinearReduceMean, axis out of range", "QLinearReduceMean", "x," Q2("x") "," Q2("y"),
	 "x:2,3|" Q2D("x") "|" Q2D("y"), "FLOAT (rank unknown)", .diag = "shape-error", .lname = "axes", .nl = 1,
	 .lval = {2}},
	/* QLinearAdd: A (0) and B (3) broadcast; sizes that do not broadcast are an error */
	{"QLinearAdd, no broadcast", "QLinearAdd", "a," Q2("a") ",b," Q2("b") "," Q2("c"),
	 "a:2,3|" Q2D("a") "|b:4|" Q2D("b") "|" Q2D("c"), "FLOAT (rank unknown)", .diag = "broadcast-mismatch"},
	/* QLinearWhere: condition (0), X (1), Y (4) broadcast three ways */
	{"QLinearWhere, symbolic", "QLinearWhere", "c,x," Q2("x") ",w," Q2("w") "," Q2("z"),
	 "c:N,1,1|x:3,1|" Q2D("x") "|w:1,4|" Q2D("w") "|" Q2D("z"), "FLOAT (N, 3, 4)", .diag = NULL},
	{"QLinearWhere, Y does not broadcast", "QLinearWhere", "c,x," Q2("x") ",w," Q2("w") "," Q2("z"),
	 "c:2,1|x:2,3|" Q2D("x") "|w:5|" Q2D("w") "|" Q2D("z"), "FLOAT (rank unknown)",
	 .diag = "broadcast-mismatch"},
	/* QLinearConcat: Y_scale, Y_zero_point, then (X, scale, zero point) triples */
	{"QLinearConcat, dims off the axis differ", "QLinearConcat", Q2("y") ",a," Q2("a") ",b," Q2("b"),
	 Q2D("y") "|a:2,3|" Q2D("a") "|b:3,3|" Q2D("b"), "FLOAT (rank unknown)", .diag = "shape-error", .iname = "axis",
	 .ival = 1},
	{"QLinearConcat, an incomplete triple", "QLinearConcat", Q2("y") ",a," Q2("a") ",b",
	 Q2D("y") "|a:2,3|" Q2D("a") "|b:2,3", "FLOAT (rank unknown)", .diag = "shape-error", .iname = "axis",
	 .ival = 1},
	/* QLinearGlobalAveragePool, channels_last: (N, D..., C) -> (N, 1..., C) */
	{"QLinearGlobalAveragePool, channels last, 3-D", "QLinearGlobalAveragePool", "x," Q2("x") "," Q2("y"),
	 "x:N,7,C|" Q2D("x") "|" Q2D("y"), "FLOAT (N, 1, C)", .iname = "channels_last", .ival = 1},
	/* QGemm: A (M, K) against B (K, N): the inner sizes must agree */
	{"QGemm, inner sizes differ", "QGemm", "a," Q2("a") ",b," Q2("b"), "a:4,5|" Q2D("a") "|b:6,3|" Q2D("b"),
	 "FLOAT (rank unknown)", .diag = "shape-error"},
	{"QGemm, 3-D A", "QGemm", "a," Q2("a") ",b," Q2("b"), "a:2,4,5|" Q2D("a") "|b:5,3|" Q2D("b"),
	 "FLOAT (rank unknown)", .diag = "shape-error"},
	/* ExpandDims: axis in [-r - 1, r] */
	{"ExpandDims, axis r", "ExpandDims", "x,axis", "x:2,3", "FLOAT (2, 3, 1)", .axis_init = "axis", .axis_val = 2},
	{"ExpandDims, axis -r - 1", "ExpandDims", "x,axis", "x:2,3", "FLOAT (1, 2, 3)", .axis_init = "axis",
	 .axis_val = -3},
	{"ExpandDims, axis out of range", "ExpandDims", "x,axis", "x:2,3", "FLOAT (rank unknown)",
	 .diag = "shape-error", .axis_init = "axis", .axis_val = 3},
	/* CDist: A (N, K), B (M, K) */
	{"CDist, feature counts differ", "CDist", "a,b", "a:4,3|b:5,2", "FLOAT (rank unknown)", .diag = "shape-error"},
	{"CDist, 3-D", "CDist", "a,b", "a:2,4,3|b:5,3", "FLOAT (rank unknown)", .diag = "shape-error"},
	/* Unique takes a 1-D x */
	{"Unique, 2-D", "Unique", "x", "x:2,3", "FLOAT (rank unknown)", .diag = "shape-error"},
	/* GatherBlockQuantized: bits is 2, 4 or 8 */
	{"GatherBlockQuantized, bits 3", "GatherBlockQuantized", "d,i,s", "d:4,8|i:2|s:4,1", "FLOAT (rank unknown)",
	 .diag = "attribute-error", .iname = "bits", .ival = 3},
	/* Inverse: (..., M, M) -> the same */
	{"Inverse, symbolic", "Inverse", "x", "x:N,4,4", "FLOAT (N, 4, 4)", .diag = NULL},
};

Test(rules_ms_quant, operators)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		msq_check(&cases[i]);
}
