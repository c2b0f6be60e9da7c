/* test_rules_ms_fused.c: the fused com.microsoft operators (rules_ms_fused.c): BiasAdd,
 * BiasSoftmax, BiasSplitGelu, GemmFastGelu and FusedConv. Where ONNX Runtime's CPU
 * provider runs an operator, tests/ort/ms_vs_ort.py and tests/ort/ms_layout_vs_ort.py compare
 * the rule with it as well; the CUDA-only operators, the outputs ONNX Runtime's own
 * inference refuses and the models it refuses are checked here alone. One table row per
 * one-node model (tests/support/rule_case.h); the expected shapes are derived by hand
 * from ONNX Runtime's docs/ContribOperators.md (and, for com.microsoft.nchwc, its
 * schemas and kernels) in the rows' comments.
 */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case cuda_only_operators[] = {
	/* BiasAdd: X (N, S, C) + bias (C) + skip (N, S, C) -> Y (N, S, C) */
	{"BiasAdd", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft", .decls = "x:2,4,8|b:8|s:2,4,8",
	 .expect = {"FLOAT (2, 4, 8)"}},
	{"BiasAdd, skip gives the batch", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft",
	 .decls = "x:N,4,8|b:8|s:2,4,8", .expect = {"FLOAT (2, 4, 8)"}},
	{"BiasAdd, symbolic", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft", .decls = "x:N,S,8|b:8|s:N,S,8",
	 .expect = {"FLOAT (N, S, 8)"}},
	{"BiasAdd, bias of another size", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft",
	 .decls = "x:2,4,8|b:6|s:2,4,8", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"BiasAdd, 2-D input", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft", .decls = "x:4,8|b:8|s:4,8",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* BiasSoftmax: output has data's shape (bias broadcast into it) */
	{"BiasSoftmax", 17, "BiasSoftmax", "x,b", "y", .domain = "com.microsoft", .decls = "x:2,3,4,5|b:2,1,4,5",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"BiasSoftmax, symbolic", 17, "BiasSoftmax", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,3,S,S|b:N,1,S,S", .expect = {"FLOAT (N, 3, S, S)"}},
	/* BiasSplitGelu: X (N, S, D), bias (D) -> Y (N, S, D / 2) */
	{"BiasSplitGelu", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft", .decls = "x:2,64,2560|b:2560",
	 .expect = {"FLOAT (2, 64, 1280)"}},
	{"BiasSplitGelu, symbolic", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,S,640|b:640", .expect = {"FLOAT (N, S, 320)"}},
	{"BiasSplitGelu, width from bias", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,S,D|b:640", .expect = {"FLOAT (N, S, 320)"}},
	{"BiasSplitGelu, odd width", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:2,4,7|b:7", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* GemmFastGelu: MatMul(X, W) + bias (optional): X (M, K), W (K, N) -> Y (M, N) */
	{"GemmFastGelu", 17, "GemmFastGelu", "x,w,b", "y", .domain = "com.microsoft", .decls = "x:2,3,4|w:4,5|b:5",
	 .expect = {"FLOAT (2, 3, 5)"}},
	{"GemmFastGelu, no bias", 17, "GemmFastGelu", "x,w", "y", .domain = "com.microsoft", .decls = "x:3,4|w:4,6",
	 .expect = {"FLOAT (3, 6)"}},
	{"GemmFastGelu, symbolic", 17, "GemmFastGelu", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:N,S,4|w:4,6", .expect = {"FLOAT (N, S, 6)"}},
	{"GemmFastGelu, inner dims differ", 17, "GemmFastGelu", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:3,4|w:5,6", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_ms_fused, cuda_only_operators) { RULE_CASES(cuda_only_operators); }

static const rule_case fused_conv_cases[] = {
	/* FusedConv: Conv's shape; Z, added into the output, must have it */
	{"FusedConv", 17, "FusedConv", "x,w", "y", .domain = "com.microsoft", .decls = "x:N,2,H,W|w:3,2,3,3",
	 .attrs = "s:activation=Relu", .expect = {"FLOAT (N, 3, H - 2, W - 2)"}},
	{"FusedConv, Z gives the shape", 17, "FusedConv", "x,w,b,z", "y", .domain = "com.microsoft",
	 .decls = "x:*|w:3,2,3,3|b:3|z:N,3,4,4", .expect = {"FLOAT (N, 3, 4, 4)"}},
	{"FusedConv, Z of another shape", 17, "FusedConv", "x,w,b,z", "y", .domain = "com.microsoft",
	 .decls = "x:1,2,5,5|w:3,2,3,3|b:3|z:1,3,4,4", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_ms_fused, fused_conv) { RULE_CASES(fused_conv_cases); }
