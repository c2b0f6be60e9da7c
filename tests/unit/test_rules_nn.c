/* test_rules_nn.c: MatMul, Gemm, Einsum, the convolutions (CausalConvWithState among
 * them) and the pools: one table per operator group, each row a one-node model (see
 * tests/support/rule_case.h), expected shapes worked out by hand from Operators.md in
 * the comments. */
#include <criterion/criterion.h>

#include "rule_case.h"

/* ---- MatMul ---- */

static const rule_case matmul_cases[] = {
	/* numpy.matmul: a 1-D A is (1, K) and the 1 removed afterwards */
	{"1-D x 2-D", 13, "MatMul", "a,b", "y", .decls = "a:3|b:3,4", .expect = {"FLOAT (4)"}},
	{"2-D x 1-D", 13, "MatMul", "a,b", "y", .decls = "a:2,3|b:3", .expect = {"FLOAT (2)"}},
	{"1-D x 1-D is a scalar", 13, "MatMul", "a,b", "y", .decls = "a:3|b:3", .expect = {"FLOAT ()"}},
	/* batch dims (2,1) and (5) broadcast to (2,5) */
	{"batched broadcast", 13, "MatMul", "a,b", "y", .decls = "a:2,1,3,4|b:5,4,6",
	 .expect = {"FLOAT (2, 5, 3, 6)"}},
	{"1-D against batched", 13, "MatMul", "a,b", "y", .decls = "a:4|b:7,4,6", .expect = {"FLOAT (7, 6)"}},
	{"symbolic outer dims", 13, "MatMul", "a,b", "y", .decls = "a:N,3|b:3,M", .expect = {"FLOAT (N, M)"}},
	/* K must be 3: the symbol is bound, nothing reported */
	{"symbolic inner dim", 13, "MatMul", "a,b", "y", .decls = "a:B,2,K|b:3,4", .expect = {"FLOAT (B, 2, 4)"}},
	{"empty rows", 13, "MatMul", "a,b", "y", .decls = "a:0,3|b:3,4", .expect = {"FLOAT (0, 4)"}},
	{"empty inner dim", 9, "MatMul", "a,b", "y", .decls = "a:2,0|b:0,4", .expect = {"FLOAT (2, 4)"}},
	{"opset 1", 1, "MatMul", "a,b", "y", .decls = "a:3,4|b:4,5", .expect = {"FLOAT (3, 5)"}},
	{"rank unknown", 13, "MatMul", "a,b", "y", .decls = "a:*|b:4,5", .expect = {"FLOAT (rank unknown)"}},
	{"inner mismatch", 13, "MatMul", "a,b", "y", .decls = "a:2,3|b:4,5", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"inner mismatch, 1-D", 13, "MatMul", "a,b", "y", .decls = "a:3|b:4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"batch mismatch", 13, "MatMul", "a,b", "y", .decls = "a:2,3,4|b:5,4,6", .expect = {"FLOAT (rank unknown)"},
	 .diag = "broadcast-mismatch"},
	{"scalar operand", 13, "MatMul", "a,b", "y", .decls = "a:|b:4,5", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"MatMulInteger gives INT32", 10, "MatMulInteger", "a,b", "y", .decls = "a:UINT8:2,3|b:INT8:3,4",
	 .expect = {"INT32 (2, 4)"}},
	{"MatMulInteger with zero points", 10, "MatMulInteger", "a,b,az,bz", "y",
	 .decls = "a:UINT8:N,2,3|b:UINT8:3,4|az:UINT8:|bz:UINT8:", .expect = {"INT32 (N, 2, 4)"}},
	/* a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point */
	{"QLinearMatMul takes y_zero_point's type", 10, "QLinearMatMul", "a,as,az,b,bs,bz,ys,yz", "y",
	 .decls = "a:UINT8:2,3|as:|az:UINT8:|b:UINT8:3,4|bs:|bz:UINT8:|ys:|yz:INT8:", .expect = {"INT8 (2, 4)"}},
	{"QLinearMatMul-21 batched", 21, "QLinearMatMul", "a,as,az,b,bs,bz,ys,yz", "y",
	 .decls = "a:UINT8:2,2,3|as:|az:UINT8:|b:UINT8:3,4|bs:|bz:UINT8:|ys:|yz:UINT8:",
	 .expect = {"UINT8 (2, 2, 4)"}},
};

Test(rules_nn, matmul) { RULE_CASES(matmul_cases); }

/* ---- Gemm ---- */

static const rule_case gemm_cases[] = {
	{"no C (optional from 11)", 13, "Gemm", "a,b", "y", .decls = "a:3,5|b:5,4", .expect = {"FLOAT (3, 4)"}},
	/* transA: A' = (3, 5) from (5, 3) */
	{"transA", 13, "Gemm", "a,b", "y", .decls = "a:5,3|b:5,4", .attrs = "i:transA=1", .expect = {"FLOAT (3, 4)"}},
	{"transB", 13, "Gemm", "a,b", "y", .decls = "a:3,5|b:4,5", .attrs = "i:transB=1", .expect = {"FLOAT (3, 4)"}},
	{"transA and transB", 11, "Gemm", "a,b,c", "y", .decls = "a:5,3|b:4,5|c:4", .attrs = "i:transA=1|i:transB=1",
	 .expect = {"FLOAT (3, 4)"}},
	{"C (N)", 7, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:4", .expect = {"FLOAT (3, 4)"}},
	{"C (M, 1)", 9, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:3,1", .expect = {"FLOAT (3, 4)"}},
	{"C scalar", 13, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:", .expect = {"FLOAT (3, 4)"}},
	{"symbolic M", 13, "Gemm", "a,b,c", "y", .decls = "a:M,5|b:5,4|c:1,4", .expect = {"FLOAT (M, 4)"}},
	/* unidirectional: C may not grow (M, N) */
	{"C does not broadcast", 13, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:2,4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "broadcast-mismatch"},
	{"C of rank 3", 13, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:1,3,4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"K mismatch", 13, "Gemm", "a,b", "y", .decls = "a:3,5|b:6,4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"K mismatch after transB", 13, "Gemm", "a,b", "y", .decls = "a:3,5|b:5,4", .attrs = "i:transB=1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"A of rank 3", 13, "Gemm", "a,b", "y", .decls = "a:2,3,5|b:5,4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"C required before 11", 9, "Gemm", "a,b", "y", .decls = "a:3,5|b:5,4", .expect = {"FLOAT (rank unknown)"},
	 .diag = "arity-error"},
	/* opset < 7: broadcast=1 places C under the legacy rule, broadcast=0 wants (M, N) */
	{"legacy broadcast=1", 6, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:4", .attrs = "i:broadcast=1",
	 .expect = {"FLOAT (3, 4)"}},
	{"legacy broadcast=0, C (M, N)", 1, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:3,4",
	 .expect = {"FLOAT (3, 4)"}},
	{"legacy broadcast=0, C (N)", 6, "Gemm", "a,b,c", "y", .decls = "a:3,5|b:5,4|c:4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "broadcast-mismatch"},
};

Test(rules_nn, gemm) { RULE_CASES(gemm_cases); }

/* ---- Einsum ---- */

static const rule_case einsum_cases[] = {
	{"batched matmul", 12, "Einsum", "a,b", "y", .decls = "a:2,3,4|b:2,4,5", .attrs = "s:equation=bij,bjk->bik",
	 .expect = {"FLOAT (2, 3, 5)"}},
	/* implicit: '...' dims first, then the labels seen once (i, k) */
	{"implicit with ellipsis", 12, "Einsum", "a,b", "y", .decls = "a:7,2,3|b:7,3,4",
	 .attrs = "s:equation=...ij,...jk", .expect = {"FLOAT (7, 2, 4)"}},
	{"ellipsis broadcasts", 12, "Einsum", "a,b", "y", .decls = "a:7,2,3|b:1,3,4",
	 .attrs = "s:equation=...ij,...jk", .expect = {"FLOAT (7, 2, 4)"}},
	{"explicit ellipsis, symbolic", 12, "Einsum", "a,b", "y", .decls = "a:N,2,3|b:N,3,4",
	 .attrs = "s:equation=...ij,...jk->...ik", .expect = {"FLOAT (N, 2, 4)"}},
	{"transpose", 12, "Einsum", "a", "y", .decls = "a:3,4", .attrs = "s:equation=ij->ji",
	 .expect = {"FLOAT (4, 3)"}},
	{"diagonal", 12, "Einsum", "a", "y", .decls = "a:3,3", .attrs = "s:equation=ii->i", .expect = {"FLOAT (3)"}},
	{"batch diagonal", 12, "Einsum", "a", "y", .decls = "a:5,3,3", .attrs = "s:equation=...ii->...i",
	 .expect = {"FLOAT (5, 3)"}},
	{"inner product is a scalar", 12, "Einsum", "a,b", "y", .decls = "a:5|b:5", .attrs = "s:equation=i,i",
	 .expect = {"FLOAT ()"}},
	{"sum", 12, "Einsum", "a", "y", .decls = "a:3,4", .attrs = "s:equation=ij->i", .expect = {"FLOAT (3)"}},
	/* implicit output sorts labels: "ba" is the transpose */
	{"implicit sorts labels", 12, "Einsum", "a", "y", .decls = "a:3,4", .attrs = "s:equation=ba",
	 .expect = {"FLOAT (4, 3)"}},
	/* upper case sorts before lower case: Z=2, A=4 -> "AZ" */
	{"upper case first", 12, "Einsum", "a,b", "y", .decls = "a:2,3|b:3,4", .attrs = "s:equation=Zb,bA",
	 .expect = {"FLOAT (4, 2)"}},
	{"spaces allowed", 12, "Einsum", "a,b", "y", .decls = "a:2,3,4|b:2,4,5",
	 .attrs = "s:equation=b i j, b j k -> b i k", .expect = {"FLOAT (2, 3, 5)"}},
	{"label broadcast 1 vs n", 12, "Einsum", "a,b", "y", .decls = "a:1,3|b:2,3", .attrs = "s:equation=ij,ij->ij",
	 .expect = {"FLOAT (2, 3)"}},
	{"term count", 12, "Einsum", "a", "y", .decls = "a:2,3", .attrs = "s:equation=ij,jk->ik",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"rank differs from the term", 12, "Einsum", "a", "y", .decls = "a:3", .attrs = "s:equation=ij->i",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"label sizes differ", 12, "Einsum", "a,b", "y", .decls = "a:2,3|b:4,5", .attrs = "s:equation=ij,jk->ik",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "broadcast-mismatch"},
	{"output label not in inputs", 12, "Einsum", "a", "y", .decls = "a:2,3", .attrs = "s:equation=ij->k",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"output label twice", 12, "Einsum", "a", "y", .decls = "a:2,3", .attrs = "s:equation=ij->ii",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"ellipsis of different lengths", 12, "Einsum", "a,b", "y", .decls = "a:7,2,3|b:3,4",
	 .attrs = "s:equation=...ij,...jk", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"bad character", 12, "Einsum", "a", "y", .decls = "a:2,3", .attrs = "s:equation=i1->i",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* Einsum-12 requires equation: the schema says so */
	{"no equation", 12, "Einsum", "a", "y", .decls = "a:2,3", .expect = {"FLOAT (rank unknown)"},
	 .diag = "attribute-error"},
};

Test(rules_nn, einsum) { RULE_CASES(einsum_cases); }

/* ---- Conv ---- */

static const rule_case conv_cases[] = {
	/* floor((in + pads - dilation * (k - 1) - 1) / stride) + 1 */
	{"no padding", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3", .expect = {"FLOAT (1, 1, 3, 3)"}},
	{"padding", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3", .attrs = "is:pads=1,1,1,1",
	 .expect = {"FLOAT (1, 1, 5, 5)"}},
	/* (7 + 2 - 3) / 2 + 1 = 4, (5 + 2 - 3) / 2 + 1 = 3 */
	{"strides and padding", 11, "Conv", "x,w", "y", .decls = "x:1,1,7,5|w:1,1,3,3",
	 .attrs = "is:pads=1,1,1,1|is:strides=2,2", .expect = {"FLOAT (1, 1, 4, 3)"}},
	/* pads [H begin, W begin, H end, W end]: W gets none: (5 - 3) / 2 + 1 = 2 */
	{"asymmetric padding", 11, "Conv", "x,w", "y", .decls = "x:1,1,7,5|w:1,1,3,3",
	 .attrs = "is:pads=1,0,1,0|is:strides=2,2", .expect = {"FLOAT (1, 1, 4, 2)"}},
	/* effective kernel (3 - 1) * 2 + 1 = 5 */
	{"dilations", 11, "Conv", "x,w", "y", .decls = "x:1,1,7,7|w:1,1,3,3", .attrs = "is:dilations=2,2",
	 .expect = {"FLOAT (1, 1, 3, 3)"}},
	/* ceil(7 / 2) = 4 either way; only where the odd padding goes differs */
	{"SAME_UPPER, odd size", 11, "Conv", "x,w", "y", .decls = "x:1,1,7,7|w:1,1,3,3",
	 .attrs = "s:auto_pad=SAME_UPPER|is:strides=2,2", .expect = {"FLOAT (1, 1, 4, 4)"}},
	{"SAME_LOWER, odd size", 11, "Conv", "x,w", "y", .decls = "x:1,1,7,7|w:1,1,3,3",
	 .attrs = "s:auto_pad=SAME_LOWER|is:strides=2,2", .expect = {"FLOAT (1, 1, 4, 4)"}},
	{"SAME keeps symbols at stride 1", 11, "Conv", "x,w", "y", .decls = "x:N,3,H,W|w:8,3,3,3",
	 .attrs = "s:auto_pad=SAME_UPPER", .expect = {"FLOAT (N, 8, H, W)"}},
	{"VALID", 11, "Conv", "x,w", "y", .decls = "x:1,1,7,7|w:1,1,3,3", .attrs = "s:auto_pad=VALID|is:strides=2,2",
	 .expect = {"FLOAT (1, 1, 3, 3)"}},
	/* X channels 4 = W dim 1 (2) * group 2; M = 8 */
	{"group conv", 11, "Conv", "x,w", "y", .decls = "x:1,4,5,5|w:8,2,3,3", .attrs = "i:group=2",
	 .expect = {"FLOAT (1, 8, 3, 3)"}},
	{"depthwise", 11, "Conv", "x,w,b", "y", .decls = "x:1,3,5,5|w:3,1,3,3|b:3",
	 .attrs = "i:group=3|is:pads=1,1,1,1", .expect = {"FLOAT (1, 3, 5, 5)"}},
	{"channels differ from W * group", 11, "Conv", "x,w", "y", .decls = "x:1,4,5,5|w:8,3,3,3",
	 .attrs = "i:group=2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"channels differ from W", 11, "Conv", "x,w,b", "y", .decls = "x:1,3,5,5|w:2,4,3,3|b:2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"M not a multiple of group", 11, "Conv", "x,w", "y", .decls = "x:1,4,5,5|w:7,2,3,3", .attrs = "i:group=2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"symbolic N, symbolic H", 11, "Conv", "x,w", "y", .decls = "x:N,1,H,5|w:1,1,3,3",
	 .expect = {"FLOAT (N, 1, H - 2, 3)"}},
	{"symbolic channels bound by W", 11, "Conv", "x,w", "y", .decls = "x:N,C,5,5|w:2,3,3,3",
	 .expect = {"FLOAT (N, 2, 3, 3)"}},
	{"empty batch", 11, "Conv", "x,w", "y", .decls = "x:0,1,5,5|w:1,1,3,3", .expect = {"FLOAT (0, 1, 3, 3)"}},
	{"1-D, strides 3", 11, "Conv", "x,w", "y", .decls = "x:1,2,10|w:4,2,3", .attrs = "is:strides=3",
	 .expect = {"FLOAT (1, 4, 3)"}},
	{"3-D", 22, "Conv", "x,w", "y", .decls = "x:1,1,4,5,6|w:2,1,2,2,2", .expect = {"FLOAT (1, 2, 3, 4, 5)"}},
	/* Past 16 spatial axes the window's arrays and the output dims come from the
	 * arena rather than the stack: (5 + 1 + 2 - 3) / 2 + 1 = 3, and 4 for a 7. */
	{"16 spatial axes", 11, "Conv", "x,w", "y",
	 .decls = "x:1,1,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,7|w:1,1,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3",
	 .attrs = "is:pads=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"
		  "|is:strides=2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2",
	 .expect = {"FLOAT (1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4)"}},
	{"17 spatial axes", 11, "Conv", "x,w", "y",
	 .decls = "x:1,1,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,7|w:1,1,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3",
	 .attrs = "is:pads=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"
		  "|is:strides=2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2",
	 .expect = {"FLOAT (1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4)"}},
	{"opset 1", 1, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3", .expect = {"FLOAT (1, 1, 3, 3)"}},
	{"kernel larger than the input", 11, "Conv", "x,w", "y", .decls = "x:1,1,2,2|w:1,1,3,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"bias of the wrong size", 11, "Conv", "x,w,b", "y", .decls = "x:1,1,5,5|w:1,1,3,3|b:2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"kernel_shape contradicts W", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3",
	 .attrs = "is:kernel_shape=2,2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"kernel_shape without W's shape", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:*",
	 .attrs = "is:kernel_shape=2,2", .expect = {"FLOAT (1, ?, 4, 4)"}},
	{"strides of the wrong length", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3",
	 .attrs = "is:strides=1", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"negative pads", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3", .attrs = "is:pads=-1,0,0,0",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"zero stride", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3", .attrs = "is:strides=0,1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID: the schema says so */
	{"unknown auto_pad", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3", .attrs = "s:auto_pad=SAME",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "attribute-error"},
	{"pads beside auto_pad", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3",
	 .attrs = "s:auto_pad=SAME_UPPER|is:pads=1,1,1,1", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"rank of X and W differ", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"huge pads overflow", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3",
	 .attrs = "is:pads=9223372036854775807,0,9223372036854775807,0", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"huge dilation", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3",
	 .attrs = "is:dilations=9223372036854775807,1", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"huge stride", 11, "Conv", "x,w", "y", .decls = "x:1,1,5,5|w:1,1,3,3",
	 .attrs = "is:strides=9223372036854775807,1", .expect = {"FLOAT (1, 1, 1, 3)"}},
	{"ConvInteger", 10, "ConvInteger", "x,w", "y", .decls = "x:UINT8:1,1,5,5|w:UINT8:1,1,3,3",
	 .attrs = "is:pads=1,1,1,1", .expect = {"INT32 (1, 1, 5, 5)"}},
	/* x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point */
	{"QLinearConv", 10, "QLinearConv", "x,xs,xz,w,ws,wz,ys,yz", "y",
	 .decls = "x:UINT8:1,1,7,7|xs:|xz:UINT8:|w:UINT8:1,1,1,1|ws:|wz:UINT8:|ys:|yz:INT8:",
	 .expect = {"INT8 (1, 1, 7, 7)"}},
};

Test(rules_nn, conv) { RULE_CASES(conv_cases); }

/* ---- ConvTranspose ---- */

static const rule_case conv_transpose_cases[] = {
	/* stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pads; channels
	 * W dim 1 * group */
	{"basic", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3", .expect = {"FLOAT (1, 2, 5, 5)"}},
	/* H: 3 * 2 + 1 + 3 = 10, W: 2 * 2 + 1 + 3 = 8 */
	{"output_padding", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3",
	 .attrs = "is:strides=3,2|is:output_padding=1,1", .expect = {"FLOAT (1, 2, 10, 8)"}},
	{"output_shape", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3",
	 .attrs = "is:strides=3,2|is:output_shape=10,8", .expect = {"FLOAT (1, 2, 10, 8)"}},
	{"output_shape beats output_padding", 1, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3",
	 .attrs = "is:strides=3,2|is:output_shape=9,7|is:output_padding=1,1", .expect = {"FLOAT (1, 2, 9, 7)"}},
	/* H: 3 * 2 + 3 - 2 = 7, W: 2 * 2 + 3 - 4 = 3 */
	{"pads", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3",
	 .attrs = "is:strides=3,2|is:pads=1,2,1,2", .expect = {"FLOAT (1, 2, 7, 3)"}},
	{"dilations", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,1,2,2", .attrs = "is:dilations=2,2",
	 .expect = {"FLOAT (1, 1, 5, 5)"}},
	/* SAME: in * stride */
	{"SAME_UPPER", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3",
	 .attrs = "s:auto_pad=SAME_UPPER|is:strides=2,2", .expect = {"FLOAT (1, 2, 6, 6)"}},
	{"SAME_LOWER", 22, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,4|w:1,2,3,3",
	 .attrs = "s:auto_pad=SAME_LOWER|is:strides=2,2", .expect = {"FLOAT (1, 2, 6, 8)"}},
	/* a 1x1 kernel cannot fill a stride of 3: runtimes differ, so unknown */
	{"SAME with a kernel smaller than the stride", 11, "ConvTranspose", "x,w", "y",
	 .decls = "x:1,1,3,3|w:1,2,1,1", .attrs = "s:auto_pad=SAME_UPPER|is:strides=3,3",
	 .expect = {"FLOAT (1, 2, ?, ?)"}},
	{"group", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,4,3,3|w:4,3,3,3", .attrs = "i:group=2",
	 .expect = {"FLOAT (1, 6, 5, 5)"}},
	{"channel mismatch", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,2,3,3|w:3,2,3,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"output_padding too large", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3",
	 .attrs = "is:strides=2,2|is:output_padding=2,0", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"symbolic input grows", 11, "ConvTranspose", "x,w", "y", .decls = "x:N,1,H,W|w:1,2,3,3",
	 .expect = {"FLOAT (N, 2, H + 2, W + 2)"}},
	/* (H - 1) + 3 - 2 = H */
	{"symbolic input kept", 11, "ConvTranspose", "x,w", "y", .decls = "x:N,1,H,W|w:1,2,3,3",
	 .attrs = "is:pads=1,1,1,1", .expect = {"FLOAT (N, 2, H, W)"}},
	{"1-D", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3|w:1,2,3", .expect = {"FLOAT (1, 2, 5)"}},
	/* 2 * (3 - 1) + 1 + 1 + (3 - 1) - 1 = 7, and 9 for a 4, along 17 axes */
	{"17 spatial axes", 11, "ConvTranspose", "x,w", "y",
	 .decls = "x:1,1,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,4|w:1,1,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3",
	 .attrs = "is:pads=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
		  "|is:strides=2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2|is:output_padding=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
	 .expect = {"FLOAT (1, 1, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 9)"}},
	{"output_shape of the wrong length", 11, "ConvTranspose", "x,w", "y", .decls = "x:1,1,3,3|w:1,2,3,3",
	 .attrs = "is:output_shape=10", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_nn, conv_transpose) { RULE_CASES(conv_transpose_cases); }

/* ---- pools ---- */

static const rule_case pool_cases[] = {
	{"MaxPool default", 12, "MaxPool", "x", "y", .decls = "x:1,3,32,32", .attrs = "is:kernel_shape=2,2",
	 .expect = {"FLOAT (1, 3, 31, 31)"}},
	/* ceil((4 - 3) / 2) + 1 = 2; floor gives 1 */
	{"MaxPool ceil_mode", 12, "MaxPool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=3,3|is:strides=2,2|i:ceil_mode=1", .expect = {"FLOAT (1, 1, 2, 2)"}},
	{"MaxPool floor mode", 12, "MaxPool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=3,3|is:strides=2,2", .expect = {"FLOAT (1, 1, 1, 1)"}},
	/* ceil((6 - 1) / 3) + 1 = 3, but the third window would start at 6, past the
	 * input: it is dropped */
	{"ceil_mode drops a window past the input", 22, "MaxPool", "x", "y", .decls = "x:1,1,6",
	 .attrs = "is:kernel_shape=1|is:strides=3|i:ceil_mode=1", .expect = {"FLOAT (1, 1, 2)"}},
	{"ceil_mode with pads", 11, "AveragePool", "x", "y", .decls = "x:1,1,5",
	 .attrs = "is:kernel_shape=3|is:strides=2|is:pads=1,1|i:ceil_mode=1", .expect = {"FLOAT (1, 1, 3)"}},
	/* ceil_mode came in MaxPool-10: on a MaxPool-8 it is an attribute-error of the
	 * schema, and runtimes differ on the sizes it would change (not on a 0) */
	{"MaxPool-8 has no ceil_mode", 8, "MaxPool", "x", "y", .decls = "x:N,1,4,4",
	 .attrs = "is:kernel_shape=3,3|is:strides=2,2|i:ceil_mode=1", .expect = {"FLOAT (N, 1, ?, ?)"},
	 .diag = "attribute-error"},
	{"MaxPool-8 with ceil_mode 0", 8, "MaxPool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=3,3|is:strides=2,2|i:ceil_mode=0", .expect = {"FLOAT (1, 1, 1, 1)"},
	 .diag = "attribute-error"},
	{"MaxPool Indices", 12, "MaxPool", "x", "y,i", .decls = "x:N,3,5,5",
	 .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1", .expect = {"FLOAT (N, 3, 5, 5)", "INT64 (N, 3, 5, 5)"}},
	/* (5 + 1 - 2) / 2 + 1 = 3, and 4 for an 8, along 17 axes */
	{"MaxPool, 17 spatial axes", 12, "MaxPool", "x", "y,i", .decls = "x:1,1,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,5,8",
	 .attrs = "is:kernel_shape=2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"
		  "|is:pads=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
		  "|is:strides=2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2",
	 .expect = {"FLOAT (1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4)",
		    "INT64 (1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4)"}},
	{"MaxPool uint8", 12, "MaxPool", "x", "y", .decls = "x:UINT8:1,1,5,5", .attrs = "is:kernel_shape=5,5",
	 .expect = {"UINT8 (1, 1, 1, 1)"}},
	/* effective kernel (2 - 1) * 2 + 1 = 3 */
	{"MaxPool dilations", 12, "MaxPool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=2,2|is:dilations=2,2", .expect = {"FLOAT (1, 1, 2, 2)"}},
	/* dilations came in AveragePool-19: an attribute-error of the schema before */
	{"AveragePool-11 has no dilations", 11, "AveragePool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=2,2|is:dilations=2,2", .expect = {"FLOAT (1, 1, ?, ?)"},
	 .diag = "attribute-error"},
	{"AveragePool-11 with dilations of 1", 11, "AveragePool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=2,2|is:dilations=1,1", .expect = {"FLOAT (1, 1, 3, 3)"},
	 .diag = "attribute-error"},
	{"AveragePool-19 dilations", 19, "AveragePool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=2,2|is:dilations=2,2", .expect = {"FLOAT (1, 1, 2, 2)"}},
	{"AveragePool SAME_UPPER", 7, "AveragePool", "x", "y", .decls = "x:1,3,32,32",
	 .attrs = "is:kernel_shape=2,2|s:auto_pad=SAME_UPPER", .expect = {"FLOAT (1, 3, 32, 32)"}},
	{"AveragePool SAME_LOWER strides", 10, "AveragePool", "x", "y", .decls = "x:1,3,7,8",
	 .attrs = "is:kernel_shape=3,3|is:strides=2,2|s:auto_pad=SAME_LOWER", .expect = {"FLOAT (1, 3, 4, 4)"}},
	{"AveragePool pads", 1, "AveragePool", "x", "y", .decls = "x:1,3,28,28",
	 .attrs = "is:kernel_shape=3,3|is:pads=2,2,2,2", .expect = {"FLOAT (1, 3, 30, 30)"}},
	{"AveragePool strides", 22, "AveragePool", "x", "y", .decls = "x:1,3,32,32",
	 .attrs = "is:kernel_shape=5,5|is:strides=3,3", .expect = {"FLOAT (1, 3, 10, 10)"}},
	{"symbolic spatial dims kept", 11, "AveragePool", "x", "y", .decls = "x:N,3,H,W",
	 .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1", .expect = {"FLOAT (N, 3, H, W)"}},
	{"symbolic spatial dims shrink", 11, "MaxPool", "x", "y", .decls = "x:N,3,H,W",
	 .attrs = "is:kernel_shape=3,3", .expect = {"FLOAT (N, 3, H - 2, W - 2)"}},
	/* MaxPool-11 requires kernel_shape: the schema says so */
	{"kernel_shape required", 11, "MaxPool", "x", "y", .decls = "x:1,3,5,5", .expect = {"FLOAT (rank unknown)"},
	 .diag = "attribute-error"},
	{"kernel_shape of the wrong length", 11, "MaxPool", "x", "y", .decls = "x:1,3,5,5",
	 .attrs = "is:kernel_shape=2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"rank below 2", 11, "MaxPool", "x", "y", .decls = "x:5", .attrs = "is:kernel_shape=2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"LpPool-1 without kernel_shape", 1, "LpPool", "x", "y", .decls = "x:1,3,8,8",
	 .expect = {"FLOAT (1, 3, ?, ?)"}},
	{"LpPool-2 needs kernel_shape", 2, "LpPool", "x", "y", .decls = "x:1,3,8,8",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "attribute-error"}, /* required from LpPool-2: the schema says so */
	{"LpPool-18 ceil_mode", 18, "LpPool", "x", "y", .decls = "x:1,1,4,4",
	 .attrs = "is:kernel_shape=3,3|is:strides=2,2|i:ceil_mode=1", .expect = {"FLOAT (1, 1, 2, 2)"}},
	{"rank from kernel_shape", 11, "MaxPool", "x", "y", .decls = "x:*", .attrs = "is:kernel_shape=3,3",
	 .expect = {"FLOAT (?, ?, ?, ?)"}},
	{"GlobalAveragePool, symbolic N", 1, "GlobalAveragePool", "x", "y", .decls = "x:N,3,H,W",
	 .expect = {"FLOAT (N, 3, 1, 1)"}},
	{"GlobalMaxPool 3-D", 22, "GlobalMaxPool", "x", "y", .decls = "x:1,3,5,5,5",
	 .expect = {"FLOAT (1, 3, 1, 1, 1)"}},
	{"GlobalLpPool no spatial axes", 2, "GlobalLpPool", "x", "y", .decls = "x:2,3", .expect = {"FLOAT (2, 3)"}},
	{"GlobalAveragePool rank 1", 1, "GlobalAveragePool", "x", "y", .decls = "x:3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"MaxRoiPool", 1, "MaxRoiPool", "x,r", "y", .decls = "x:1,3,8,8|r:R,5", .attrs = "is:pooled_shape=2,3",
	 .expect = {"FLOAT (R, 3, 2, 3)"}},
	{"MaxRoiPool rois of 4", 22, "MaxRoiPool", "x,r", "y", .decls = "x:1,3,8,8|r:5,4",
	 .attrs = "is:pooled_shape=2,2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"RoiAlign", 16, "RoiAlign", "x,r,b", "y", .decls = "x:N,3,8,8|r:R,4|b:INT64:R",
	 .attrs = "i:output_height=2|i:output_width=5", .expect = {"FLOAT (R, 3, 2, 5)"}},
	{"RoiAlign defaults 1x1", 10, "RoiAlign", "x,r,b", "y", .decls = "x:N,3,8,8|r:7,4|b:INT64:*",
	 .expect = {"FLOAT (7, 3, 1, 1)"}},
	{"RoiAlign num_rois differ", 22, "RoiAlign", "x,r,b", "y", .decls = "x:N,3,8,8|r:7,4|b:INT64:6",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* (2 - 1) * 2 + 2 = 4 */
	{"MaxUnpool", 11, "MaxUnpool", "x,i", "y", .decls = "x:1,1,2,2|i:INT64:1,1,2,2",
	 .attrs = "is:kernel_shape=2,2|is:strides=2,2", .expect = {"FLOAT (1, 1, 4, 4)"}},
	{"MaxUnpool output_shape", 9, "MaxUnpool", "x,i,s", "y", .decls = "x:1,1,2,2|i:INT64:1,1,2,2",
	 .ints = "s:4:1,1,5,5", .attrs = "is:kernel_shape=2,2|is:strides=2,2", .expect = {"FLOAT (1, 1, 5, 5)"}},
	{"MaxUnpool output_shape unknown", 22, "MaxUnpool", "x,i,s", "y",
	 .decls = "x:1,1,2,2|i:INT64:1,1,2,2|s:INT64:4", .attrs = "is:kernel_shape=2,2|is:strides=2,2",
	 .expect = {"FLOAT (?, ?, ?, ?)"}},
	{"MaxUnpool indices of another shape", 11, "MaxUnpool", "x,i", "y", .decls = "x:1,1,2,2|i:INT64:1,1,2,3",
	 .attrs = "is:kernel_shape=2,2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"MaxUnpool negative output_shape", 11, "MaxUnpool", "x,i,s", "y", .decls = "x:1,1,2,2|i:INT64:1,1,2,2",
	 .ints = "s:4:1,1,-5,5", .attrs = "is:kernel_shape=2,2", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	/* C = 12 / (2 * 2) = 3; L = (3 - 2 + 1) * (4 - 2 + 1) = 6 */
	{"Col2Im", 18, "Col2Im", "x,is,bs", "y", .decls = "x:2,12,6", .ints = "is:2:3,4|bs:2:2,2",
	 .expect = {"FLOAT (2, 3, 3, 4)"}},
	{"Col2Im block count", 18, "Col2Im", "x,is,bs", "y", .decls = "x:1,5,25", .ints = "is:2:5,5|bs:2:1,5",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"Col2Im negative image size", 18, "Col2Im", "x,is,bs", "y", .decls = "x:1,5,5", .ints = "is:2:-5,5|bs:2:1,5",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"Col2Im channels", 18, "Col2Im", "x,is,bs", "y", .decls = "x:1,6,5", .ints = "is:2:5,5|bs:2:1,5",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_nn, pools) { RULE_CASES(pool_cases); }

/* CausalConvWithState (opset 27), from Changelog.md: input (B, C, L), weight (C, 1, k),
 * past_state (B, C, k - 1) -> output (B, C, L), present_state (B, C, k - 1); most rows
 * take their sizes from the onnx 1.23.1 backend tests test_causal_conv_with_state_*. */
/* ---- CausalConvWithState (27) ---- */

static const rule_case causal_conv_cases[] = {
	{"basic", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:2,4,8|w:4,1,4",
	 .expect = {"FLOAT (2, 4, 8)", "FLOAT (2, 4, 3)"}},
	{"decode step with bias and past", 27, "CausalConvWithState", "x,w,b,p", "y,s",
	 .decls = "x:2,4,1|w:4,1,4|b:4|p:2,4,3", .expect = {"FLOAT (2, 4, 1)", "FLOAT (2, 4, 3)"}},
	{"kernel size one: an empty state", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:2,4,8|w:4,1,1",
	 .expect = {"FLOAT (2, 4, 8)", "FLOAT (2, 4, 0)"}},
	{"short input, no past", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:2,4,2|w:4,1,5",
	 .expect = {"FLOAT (2, 4, 2)", "FLOAT (2, 4, 4)"}},
	{"silu", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:2,4,8|w:4,1,4", .attrs = "s:activation=silu",
	 .expect = {"FLOAT (2, 4, 8)", "FLOAT (2, 4, 3)"}},
	{"symbolic, channels from the weight", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:B,?,L|w:64,1,4",
	 .expect = {"FLOAT (B, 64, L)", "FLOAT (B, 64, 3)"}},
	{"state size from past_state alone", 27, "CausalConvWithState", "x,w,,p", "y,s",
	 .decls = "x:B,C,L|w:*|p:B,C,3", .expect = {"FLOAT (B, C, L)", "FLOAT (B, C, 3)"}},
	{"channels disagree", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:2,4,8|w:5,1,4",
	 .expect = {"FLOAT (rank unknown)", "FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"past_state of the wrong length", 27, "CausalConvWithState", "x,w,,p", "y,s",
	 .decls = "x:2,4,8|w:4,1,4|p:2,4,2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"weight not depthwise", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:2,4,8|w:4,2,4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"input not 3-D", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:4,8|w:4,1,4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* the outputs take the input's type */
	{"float16", 27, "CausalConvWithState", "x,w", "y,s", .decls = "x:FLOAT16:2,4,8|w:FLOAT16:4,1,4",
	 .expect = {"FLOAT16 (2, 4, 8)", "FLOAT16 (2, 4, 3)"}},
};

Test(rules_nn, causal_conv_with_state) { RULE_CASES(causal_conv_cases); }

