/* test_rules_ms_quant.c: the rules of rules_ms_quant.c that tests/ort/ms_vs_ort.py
 * cannot check: QLinearReduceMean (no CPU kernel in ONNX Runtime) and the models the
 * runtime refuses, for which a rule must report a shape-error and claim no shape. One
 * table row per one-node model; the expected shapes are derived by hand from ONNX
 * Runtime's docs/ContribOperators.md in the rows' comments.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rule_case.h"

#define Q2(p) p "_s," p "_z"
#define Q2D(p) p "_s:|" p "_z:"

static const rule_case cases[] = {
	/* QLinearReduceMean(data, data_scale, data_zp, reduced_scale, reduced_zp): ReduceMean
	 * over the `axes` attribute, keepdims 1 by default */
	{"QLinearReduceMean", 17, "QLinearReduceMean", "x," Q2("x") "," Q2("y"), "y", .domain = "com.microsoft",
	 .decls = "x:2,3,4|" Q2D("x") "|" Q2D("y"), .attrs = "is:axes=1", .expect = {"FLOAT (2, 1, 4)"}},
	{"QLinearReduceMean, keepdims 0", 17, "QLinearReduceMean", "x," Q2("x") "," Q2("y"), "y",
	 .domain = "com.microsoft", .decls = "x:N,3,4|" Q2D("x") "|" Q2D("y"), .attrs = "i:keepdims=0|is:axes=-1",
	 .expect = {"FLOAT (N, 3)"}},
	{"QLinearReduceMean, two axes", 17, "QLinearReduceMean", "x," Q2("x") "," Q2("y"), "y",
	 .domain = "com.microsoft", .decls = "x:2,3,4,5|" Q2D("x") "|" Q2D("y"), .attrs = "is:axes=1,2",
	 .expect = {"FLOAT (2, 1, 1, 5)"}},
	{"QLinearReduceMean, axis out of range", 17, "QLinearReduceMean", "x," Q2("x") "," Q2("y"), "y",
	 .domain = "com.microsoft", .decls = "x:2,3|" Q2D("x") "|" Q2D("y"), .attrs = "is:axes=2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* QLinearAdd: A (0) and B (3) broadcast; sizes that do not broadcast are an error */
	{"QLinearAdd, no broadcast", 17, "QLinearAdd", "a," Q2("a") ",b," Q2("b") "," Q2("c"), "y",
	 .domain = "com.microsoft", .decls = "a:2,3|" Q2D("a") "|b:4|" Q2D("b") "|" Q2D("c"),
	 .expect = {"FLOAT (rank unknown)"}, .diag = "broadcast-mismatch"},
	/* QLinearWhere: condition (0), X (1), Y (4) broadcast three ways */
	{"QLinearWhere, symbolic", 17, "QLinearWhere", "c,x," Q2("x") ",w," Q2("w") "," Q2("z"), "y",
	 .domain = "com.microsoft", .decls = "c:N,1,1|x:3,1|" Q2D("x") "|w:1,4|" Q2D("w") "|" Q2D("z"),
	 .expect = {"FLOAT (N, 3, 4)"}},
	{"QLinearWhere, Y does not broadcast", 17, "QLinearWhere", "c,x," Q2("x") ",w," Q2("w") "," Q2("z"), "y",
	 .domain = "com.microsoft", .decls = "c:2,1|x:2,3|" Q2D("x") "|w:5|" Q2D("w") "|" Q2D("z"),
	 .expect = {"FLOAT (rank unknown)"}, .diag = "broadcast-mismatch"},
	/* QLinearConcat: Y_scale, Y_zero_point, then (X, scale, zero point) triples */
	{"QLinearConcat, dims off the axis differ", 17, "QLinearConcat", Q2("y") ",a," Q2("a") ",b," Q2("b"), "y",
	 .domain = "com.microsoft", .decls = Q2D("y") "|a:2,3|" Q2D("a") "|b:3,3|" Q2D("b"), .attrs = "i:axis=1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"QLinearConcat, an incomplete triple", 17, "QLinearConcat", Q2("y") ",a," Q2("a") ",b", "y",
	 .domain = "com.microsoft", .decls = Q2D("y") "|a:2,3|" Q2D("a") "|b:2,3", .attrs = "i:axis=1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* QLinearGlobalAveragePool, channels_last: (N, D..., C) -> (N, 1..., C) */
	{"QLinearGlobalAveragePool, channels last, 3-D", 17, "QLinearGlobalAveragePool", "x," Q2("x") "," Q2("y"),
	 "y", .domain = "com.microsoft", .decls = "x:N,7,C|" Q2D("x") "|" Q2D("y"), .attrs = "i:channels_last=1",
	 .expect = {"FLOAT (N, 1, C)"}},
	/* QGemm: A (M, K) against B (K, N): the inner sizes must agree */
	{"QGemm, inner sizes differ", 17, "QGemm", "a," Q2("a") ",b," Q2("b"), "y", .domain = "com.microsoft",
	 .decls = "a:4,5|" Q2D("a") "|b:6,3|" Q2D("b"), .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"QGemm, 3-D A", 17, "QGemm", "a," Q2("a") ",b," Q2("b"), "y", .domain = "com.microsoft",
	 .decls = "a:2,4,5|" Q2D("a") "|b:5,3|" Q2D("b"), .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* ExpandDims: axis in [-r - 1, r] */
	{"ExpandDims, axis r", 17, "ExpandDims", "x,axis", "y", .domain = "com.microsoft", .decls = "x:2,3",
	 .ints = "axis::2", .expect = {"FLOAT (2, 3, 1)"}},
	{"ExpandDims, axis -r - 1", 17, "ExpandDims", "x,axis", "y", .domain = "com.microsoft", .decls = "x:2,3",
	 .ints = "axis::-3", .expect = {"FLOAT (1, 2, 3)"}},
	{"ExpandDims, axis out of range", 17, "ExpandDims", "x,axis", "y", .domain = "com.microsoft",
	 .decls = "x:2,3", .ints = "axis::3", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* CDist: A (N, K), B (M, K) */
	{"CDist, feature counts differ", 17, "CDist", "a,b", "y", .domain = "com.microsoft", .decls = "a:4,3|b:5,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"CDist, 3-D", 17, "CDist", "a,b", "y", .domain = "com.microsoft", .decls = "a:2,4,3|b:5,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* Unique takes a 1-D x */
	{"Unique, 2-D", 17, "Unique", "x", "y", .domain = "com.microsoft", .decls = "x:2,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* GatherBlockQuantized: bits is 2, 4 or 8 */
	{"GatherBlockQuantized, bits 3", 17, "GatherBlockQuantized", "d,i,s", "y", .domain = "com.microsoft",
	 .decls = "d:4,8|i:2|s:4,1", .attrs = "i:bits=3", .expect = {"FLOAT (rank unknown)"},
	 .diag = "attribute-error"},
	/* Inverse: (..., M, M) -> the same */
	{"Inverse, symbolic", 17, "Inverse", "x", "y", .domain = "com.microsoft", .decls = "x:N,4,4",
	 .expect = {"FLOAT (N, 4, 4)"}},
};

Test(rules_ms_quant, operators)
{
	RULE_CASES(cases);
}
