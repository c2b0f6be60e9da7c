/* test_rules_ms_quant.c: the quantized com.microsoft operators (rules_ms_quant.c): the
 * QLinear operators, QGemm, MatMulBnb4, GatherBlockQuantized, and the models a rule must
 * refuse with a shape-error and no shape claimed. Where ONNX Runtime's CPU provider runs
 * an operator, tests/ort/ms_vs_ort.py and tests/ort/ms_layout_vs_ort.py compare the rule with
 * it as well; the CUDA-only operators, the outputs ONNX Runtime's own inference refuses
 * and the models it refuses are checked here alone. One table row per one-node model
 * (tests/support/rule_case.h); the expected shapes are derived by hand from ONNX
 * Runtime's docs/ContribOperators.md (and, for com.microsoft.nchwc, its schemas and
 * kernels) in the rows' comments.
 */
#include <criterion/criterion.h>

#include "rule_case.h"

#define RU "FLOAT (rank unknown)"
#define BNB4 "i:K=16|i:N=8|i:block_size=16|i:quant_type=1"
#define Q2(p) p "_s," p "_z"
#define Q2D(p) p "_s:|" p "_z:"

static const rule_case matmul_bnb4_cases[] = {
	/* MatMulBnb4: A (..., K) -> (..., N); B (N * K + 1) / 2 = 64 bytes, absmax 128 / 16 */
	{"MatMulBnb4", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft", .decls = "a:2,3,16|b:UINT8:64|m:8",
	 .attrs = BNB4, .expect = {"FLOAT (2, 3, 8)"}},
	{"MatMulBnb4, symbolic", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:N,S,16|b:UINT8:*|m:*", .attrs = BNB4, .expect = {"FLOAT (N, S, 8)"}},
	/* transB 0: A (..., N) -> (..., K) */
	{"MatMulBnb4, transB 0", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:N,8|b:UINT8:64|m:8", .attrs = BNB4 "|i:transB=0", .expect = {"FLOAT (N, 16)"}},
	{"MatMulBnb4, A's last dim is not K", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,12|b:UINT8:64|m:8", .attrs = BNB4, .expect = {RU}, .diag = "shape-error"},
	{"MatMulBnb4, B of another size", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:60|m:8", .attrs = BNB4, .expect = {RU}, .diag = "shape-error"},
	{"MatMulBnb4, absmax of another size", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:64|m:4", .attrs = BNB4, .expect = {RU}, .diag = "shape-error"},
	{"MatMulBnb4, block_size not a power of 2", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:64|m:8", .attrs = "i:K=16|i:N=8|i:block_size=24|i:quant_type=1", .expect = {RU},
	 .diag = "attribute-error"},
	{"MatMulBnb4, no K", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:64|m:8", .attrs = "i:N=8|i:block_size=16|i:quant_type=1", .expect = {RU},
	 .diag = "attribute-error"},
};

Test(rules_ms_quant, matmul_bnb4) { RULE_CASES(matmul_bnb4_cases); }

static const rule_case quantized_operators[] = {
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
	/* GatherBlockQuantized: bits is 2, 4 or 8 */
	{"GatherBlockQuantized, bits 3", 17, "GatherBlockQuantized", "d,i,s", "y", .domain = "com.microsoft",
	 .decls = "d:4,8|i:2|s:4,1", .attrs = "i:bits=3", .expect = {"FLOAT (rank unknown)"},
	 .diag = "attribute-error"},
};

Test(rules_ms_quant, operators) { RULE_CASES(quantized_operators); }
