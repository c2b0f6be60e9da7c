/* test_rules_ms_layout.c: the com.microsoft NHWC operators and the com.microsoft.nchwc
 * ones (rules_ms_layout.c): NhwcConv, NhwcMaxPool, ReorderInput, ReorderOutput, Conv,
 * the pools and Upsample of nchwc; also how a model using com.microsoft.nchwc loads with
 * and without importing it. Where ONNX Runtime's CPU provider runs an operator,
 * tests/ort/ms_vs_ort.py and tests/ort/ms_layout_vs_ort.py compare the rule with it as well;
 * the CUDA-only operators, the outputs ONNX Runtime's own inference refuses and the
 * models it refuses are checked here alone. One table row per one-node model
 * (tests/support/rule_case.h); the expected shapes are derived by hand from ONNX
 * Runtime's docs/ContribOperators.md (and, for com.microsoft.nchwc, its schemas and
 * kernels) in the rows' comments.
 */
#include <criterion/criterion.h>

#include "rule_case.h"

#define RU "FLOAT (rank unknown)"

static const rule_case nhwc_cases[] = {
	/* NhwcConv: X (N, H, W, C), W (M, C/group, kH, kW) -> (N, H', W', M) */
	{"NhwcConv", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft", .decls = "x:1,5,5,2|w:3,2,3,3",
	 .expect = {"FLOAT (1, 3, 3, 3)"}},
	/* (6 + 2 - 3) / 2 + 1 = 3; C 4 = 2 * group 2; bias of the M 4 feature maps */
	{"NhwcConv, bias, pads, group", 17, "NhwcConv", "x,w,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,6,6,4|w:4,2,3,3|b:4", .attrs = "is:pads=1,1,1,1|is:strides=2,2|i:group=2",
	 .expect = {"FLOAT (N, 3, 3, 4)"}},
	/* stride 1, pads filling the kernel: H and W kept */
	{"NhwcConv, symbolic sizes kept", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:N,H,W,2|w:8,2,3,3", .attrs = "is:pads=1,1,1,1", .expect = {"FLOAT (N, H, W, 8)"}},
	{"NhwcConv, channels differ", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:1,5,5,3|w:3,2,3,3", .expect = {RU}, .diag = "shape-error"},
	{"NhwcConv, 2-D input", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft", .decls = "x:5,2|w:3,2,3",
	 .expect = {RU}, .diag = "shape-error"},
	/* NhwcMaxPool: x (N, H, W, C) -> (N, H', W', C), every window attribute */
	{"NhwcMaxPool", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft", .decls = "x:UINT8:1,6,6,3",
	 .attrs = "is:kernel_shape=2,2|is:strides=2,2", .expect = {"UINT8 (1, 3, 3, 3)"}},
	{"NhwcMaxPool, symbolic kept", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft",
	 .decls = "x:UINT8:N,H,W,C", .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1",
	 .expect = {"UINT8 (N, H, W, C)"}},
	/* ceil((5 - 2) / 2) + 1 = 3 */
	{"NhwcMaxPool, ceil_mode", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft", .decls = "x:UINT8:1,5,5,2",
	 .attrs = "is:kernel_shape=2,2|is:strides=2,2|i:ceil_mode=1", .expect = {"UINT8 (1, 3, 3, 2)"}},
	/* dilated kernel 3: 7 - 3 + 1 = 5 */
	{"NhwcMaxPool, dilations", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft", .decls = "x:INT8:1,7,7,2",
	 .attrs = "is:kernel_shape=2,2|is:dilations=2,2", .expect = {"INT8 (1, 5, 5, 2)"}},
	{"NhwcMaxPool, no kernel_shape", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft",
	 .decls = "x:UINT8:1,6,6,3", .expect = {"UINT8 (rank unknown)"}, .diag = "shape-error"},
	{"NhwcMaxPool, kernel_shape too long", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft",
	 .decls = "x:UINT8:1,6,6,3", .attrs = "is:kernel_shape=2,2,2", .expect = {"UINT8 (rank unknown)"},
	 .diag = "shape-error"},
};

Test(rules_ms_layout, nhwc) { RULE_CASES(nhwc_cases); }

static const rule_case nchwc_cases[] = {
	/* Conv: ai.onnx Conv's shape; Sum (input 3) is the output's shape */
	{"nchwc Conv", 17, "Conv", "x,w", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,7,7|w:16,16,3,3",
	 .expect = {"FLOAT (1, 16, 5, 5)"}},
	{"nchwc Conv, bias and Sum", 17, "Conv", "x,w,b,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,16,7,7|w:16,16,3,3|b:16|s:N,16,5,5", .expect = {"FLOAT (N, 16, 5, 5)"}},
	{"nchwc Conv, Sum without bias", 17, "Conv", "x,w,,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:2,16,6,6|w:16,16,1,1|s:2,16,6,6", .expect = {"FLOAT (2, 16, 6, 6)"}},
	/* X unknown: Sum gives the sizes the window cannot */
	{"nchwc Conv, Sum's shape", 17, "Conv", "x,w,b,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:*|w:16,16,3,3|b:16|s:2,16,5,5", .expect = {"FLOAT (2, 16, 5, 5)"}},
	{"nchwc Conv, Sum of another shape", 17, "Conv", "x,w,b,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,7,7|w:16,16,3,3|b:16|s:1,16,4,4", .expect = {RU}, .diag = "shape-error"},
	{"nchwc Conv, 3-D", 17, "Conv", "x,w", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,7|w:16,16,3",
	 .expect = {RU}, .diag = "shape-error"},
	{"nchwc Conv, channels differ", 17, "Conv", "x,w", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,8,7,7|w:16,16,3,3", .expect = {RU}, .diag = "shape-error"},
	/* the pools: every window attribute of the latest ai.onnx pools */
	{"nchwc MaxPool", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,6,6",
	 .attrs = "is:kernel_shape=2,2|is:strides=2,2", .expect = {"FLOAT (1, 16, 3, 3)"}},
	/* dilated kernel 3, stride 2, ceil: ceil((8 - 3) / 2) + 1 = 4 */
	{"nchwc MaxPool, dilations and ceil", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,8,8", .attrs = "is:kernel_shape=2,2|is:dilations=2,2|is:strides=2,2|i:ceil_mode=1",
	 .expect = {"FLOAT (1, 16, 4, 4)"}},
	{"nchwc MaxPool, symbolic kept", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,16,H,W", .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1", .expect = {"FLOAT (N, 16, H, W)"}},
	{"nchwc MaxPool, 3-D kernel", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:*",
	 .attrs = "is:kernel_shape=2,2,2", .expect = {RU}, .diag = "shape-error"},
	{"nchwc MaxPool, 5-D", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,4,4,4",
	 .attrs = "is:kernel_shape=2,2", .expect = {RU}, .diag = "shape-error"},
	{"nchwc AveragePool", 17, "AveragePool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,6,6",
	 .attrs = "is:kernel_shape=3,3", .expect = {"FLOAT (1, 16, 4, 4)"}},
	/* (5 + 2 - 3) / 2 + 1 = 3 */
	{"nchwc AveragePool, pads", 17, "AveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:2,32,5,5", .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1|is:strides=2,2|i:count_include_pad=1",
	 .expect = {"FLOAT (2, 32, 3, 3)"}},
	{"nchwc AveragePool, no kernel_shape", 17, "AveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,6,6", .expect = {RU}, .diag = "shape-error"},
	{"nchwc GlobalMaxPool", 17, "GlobalMaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:N,16,H,W",
	 .expect = {"FLOAT (N, 16, 1, 1)"}},
	{"nchwc GlobalAveragePool", 17, "GlobalAveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,32,3,3", .expect = {"FLOAT (1, 32, 1, 1)"}},
	{"nchwc GlobalAveragePool, 3-D", 17, "GlobalAveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,32,3", .expect = {RU}, .diag = "shape-error"},
	/* ReorderInput: channels padded to the CPU's block (8 or 16): 32 stays, 4 is not known */
	{"ReorderInput", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,32,5,5",
	 .expect = {"FLOAT (1, 32, 5, 5)"}},
	{"ReorderInput, padded channels", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:2,4,3,3", .expect = {"FLOAT (2, ?, 3, 3)"}},
	{"ReorderInput, channels_last", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,H,W,16", .attrs = "i:channels_last=1", .expect = {"FLOAT (N, 16, H, W)"}},
	{"ReorderInput, channels not a multiple of 4", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,6,5,5", .expect = {RU}, .diag = "shape-error"},
	{"ReorderInput, 3-D", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,8,5",
	 .expect = {RU}, .diag = "shape-error"},
	/* ReorderOutput: `channels` channels, first or last */
	{"ReorderOutput", 17, "ReorderOutput", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,32,5,5",
	 .attrs = "i:channels=30", .expect = {"FLOAT (1, 30, 5, 5)"}},
	{"ReorderOutput, channels_last", 17, "ReorderOutput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,16,H,W", .attrs = "i:channels=10|i:channels_last=1", .expect = {"FLOAT (N, H, W, 10)"}},
	{"ReorderOutput, no channels", 17, "ReorderOutput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,32,5,5", .expect = {RU}, .diag = "attribute-error"},
	{"ReorderOutput, more channels than the input", 17, "ReorderOutput", "x", "y",
	 .domain = "com.microsoft.nchwc", .decls = "x:1,32,5,5", .attrs = "i:channels=40", .expect = {RU},
	 .diag = "shape-error"},
	/* Upsample: H and W times integer scales */
	{"nchwc Upsample", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,3,4",
	 .attrs = "is:scales=1,1,2,3", .expect = {"FLOAT (1, 16, 6, 12)"}},
	{"nchwc Upsample, symbolic", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:N,16,H,W",
	 .attrs = "is:scales=1,1,2,2|s:mode=linear", .expect = {"FLOAT (N, 16, 2*H, 2*W)"}},
	{"nchwc Upsample, no scales", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,3,4", .expect = {RU}, .diag = "attribute-error"},
	{"nchwc Upsample, scaling channels", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,3,4", .attrs = "is:scales=1,2,2,2", .expect = {RU}, .diag = "attribute-error"},
	{"nchwc Upsample, 3-D", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,3",
	 .attrs = "is:scales=1,1,2,2", .expect = {RU}, .diag = "shape-error"},
};

Test(rules_ms_layout, nchwc) { RULE_CASES(nchwc_cases); }

/* A ReorderInput of x (1, 32, 5, 5), with com.microsoft.nchwc imported at `version`
 * (0: not imported). */
static osh_model *reorder_model(int64_t version)
{
	mb *b = mb_new(17);
	if (version)
		mb_opset(b, "com.microsoft.nchwc", version);
	mb_input(b, "x", DT_FLOAT, "1,32,5,5");
	mb_node(b, "ReorderInput", "x", "y");
	mb_node_domain(b, "com.microsoft.nchwc");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

/* ONNX Runtime runs a node of com.microsoft.nchwc whether or not the model imports the
 * domain (it takes its own newest, 1), and refuses an import of version 2. */
Test(rules_ms_layout, nchwc_domain_import)
{
	osh_model *m = reorder_model(1);
	cr_expect_eq(mb_count(m, "opset-error"), 0, "%s", mb_message(m, "opset-error"));
	cr_expect_eq(mb_count(m, "not-in-spec"), 0);
	cr_expect_eq(mb_count(m, "unknown-op"), 0);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (1, 32, 5, 5)");
	osh_model_free(m);

	m = reorder_model(0);
	cr_expect_eq(mb_count(m, "opset-error"), 0, "%s", mb_message(m, "opset-error"));
	cr_expect_eq(mb_count(m, "not-in-spec"), 1);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (1, 32, 5, 5)");
	osh_model_free(m);

	m = reorder_model(2);
	cr_expect_eq(mb_count(m, "opset-error"), 1);
	osh_model_free(m);
}
