/* test_rules_opset24.c: the operators ai.onnx added after opset 23 (CausalConvWithState
 * and LinearAttention, 27; SwiGLU, 28) and ai.onnx.preview's FlexAttention, one table
 * row per one-node model (see tests/support/rule_case.h). Shapes from Changelog.md:
 *   CausalConvWithState  input (B, C, L), weight (C, 1, k), past_state (B, C, k - 1)
 *                        -> output (B, C, L), present_state (B, C, k - 1)
 *   LinearAttention      query (B, T, Hq * dk), key (B, T, Hkv * dk), value
 *                        (B, T, Hkv * dv), past_state (B, Hkv, dk, dv)
 *                        -> output (B, T, Hq * dv), present_state (B, Hkv, dk, dv)
 *   SwiGLU               A and B of one shape (no broadcasting) -> Y that shape
 *   FlexAttention        Q (B, Hq, L, E), K (B, Hkv, S, E), V (B, Hkv, S, Ev)
 *                        -> Y (B, Hq, L, Ev)
 * Most rows take their sizes from the onnx 1.23.1 backend tests of the same names
 * (test_causal_conv_with_state_*, test_linear_attention_*, test_swiglu*,
 * test_flexattention_*), whose real outputs have these shapes.
 */
#include <criterion/criterion.h>

#include "rule_case.h"

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
};

Test(rules_opset24, causal_conv_with_state) { RULE_CASES(causal_conv_cases); }

/* ---- LinearAttention (27) ---- */

#define HEADS(q, kv) "i:q_num_heads=" #q "|i:kv_num_heads=" #kv

static const rule_case linear_attention_cases[] = {
	{"gated_delta", 27, "LinearAttention", "q,k,v,,d,bt", "y,s",
	 .decls = "q:2,4,32|k:2,4,32|v:2,4,32|d:2,4,32|bt:2,4,4", .attrs = HEADS(4, 4),
	 .expect = {"FLOAT (2, 4, 32)", "FLOAT (2, 4, 8, 8)"}},
	{"gqa", 27, "LinearAttention", "q,k,v,,d,bt", "y,s", .decls = "q:2,4,64|k:2,4,32|v:2,4,32|d:2,4,32|bt:2,4,4",
	 .attrs = HEADS(8, 4), .expect = {"FLOAT (2, 4, 64)", "FLOAT (2, 4, 8, 8)"}},
	{"mqa, scalar beta", 27, "LinearAttention", "q,k,v,,d,bt", "y,s",
	 .decls = "q:2,4,64|k:2,4,8|v:2,4,8|d:2,4,8|bt:2,4,1", .attrs = HEADS(8, 1),
	 .expect = {"FLOAT (2, 4, 64)", "FLOAT (2, 1, 8, 8)"}},
	{"decode step with past, per-head decay", 27, "LinearAttention", "q,k,v,p,d,bt", "y,s",
	 .decls = "q:2,1,32|k:2,1,32|v:2,1,32|p:2,4,8,8|d:2,1,4|bt:2,1,4", .attrs = HEADS(4, 4),
	 .expect = {"FLOAT (2, 1, 32)", "FLOAT (2, 4, 8, 8)"}},
	{"linear", 27, "LinearAttention", "q,k,v", "y,s", .decls = "q:2,4,64|k:2,4,32|v:2,4,32",
	 .attrs = HEADS(8, 4) "|s:update_rule=linear", .expect = {"FLOAT (2, 4, 64)", "FLOAT (2, 4, 8, 8)"}},
	{"symbolic value kept with equal heads", 27, "LinearAttention", "q,k,v", "y,s",
	 .decls = "q:B,T,32|k:B,T,32|v:B,T,D", .attrs = HEADS(4, 4) "|s:update_rule=linear",
	 .expect = {"FLOAT (B, T, D)", "FLOAT (B, 4, 8, ?)"}},
	{"d_v from past_state", 27, "LinearAttention", "q,k,v,p", "y,s",
	 .decls = "q:B,T,64|k:B,T,32|v:B,T,?|p:B,4,8,16", .attrs = HEADS(8, 4) "|s:update_rule=linear",
	 .expect = {"FLOAT (B, T, 128)", "FLOAT (B, 4, 8, 16)"}},
	{"q heads not a multiple of kv heads", 27, "LinearAttention", "q,k,v", "y,s",
	 .decls = "q:2,4,48|k:2,4,32|v:2,4,32", .attrs = HEADS(6, 4) "|s:update_rule=linear",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"hidden size not a multiple of the heads", 27, "LinearAttention", "q,k,v", "y,s",
	 .decls = "q:2,4,30|k:2,4,32|v:2,4,32", .attrs = HEADS(4, 4) "|s:update_rule=linear",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"d_k of query and key disagree", 27, "LinearAttention", "q,k,v", "y,s",
	 .decls = "q:2,4,64|k:2,4,32|v:2,4,32", .attrs = HEADS(4, 4) "|s:update_rule=linear",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"beta of a wrong size", 27, "LinearAttention", "q,k,v,,d,bt", "y,s",
	 .decls = "q:2,4,32|k:2,4,32|v:2,4,32|d:2,4,32|bt:2,4,3", .attrs = HEADS(4, 4),
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"past_state not 4-D", 27, "LinearAttention", "q,k,v,p", "y,s",
	 .decls = "q:2,4,32|k:2,4,32|v:2,4,32|p:2,4,64", .attrs = HEADS(4, 4) "|s:update_rule=linear",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_opset24, linear_attention) { RULE_CASES(linear_attention_cases); }

/* ---- SwiGLU (28) ---- */

static const rule_case swiglu_cases[] = {
	{"same shapes", 28, "SwiGLU", "a,b", "y", .decls = "a:2,4|b:2,4", .expect = {"FLOAT (2, 4)"}},
	{"alpha, double", 28, "SwiGLU", "a,b", "y", .decls = "a:DOUBLE:2,4|b:DOUBLE:2,4", .attrs = "f:alpha=0.5",
	 .expect = {"DOUBLE (2, 4)"}},
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

Test(rules_opset24, swiglu) { RULE_CASES(swiglu_cases); }

/* ---- element types: FLOAT16 ---- */

/* CausalConvWithState's and LinearAttention's outputs take the first input's type;
 * LinearAttention's present_state past_state's (type constraint S), else query's. */
Test(rules_opset24, fp16)
{
	mb *b = mb_new(28);
	mb_input(b, "x", DT_FLOAT16, "2,4,8");
	mb_input(b, "w", DT_FLOAT16, "4,1,4");
	mb_node(b, "CausalConvWithState", "x,w", "cy,cs");
	mb_input(b, "q", DT_FLOAT16, "2,4,64");
	mb_input(b, "k", DT_FLOAT16, "2,4,32");
	mb_input(b, "v", DT_FLOAT16, "2,4,32");
	mb_node(b, "LinearAttention", "q,k,v", "ly,ls");
	mb_attr_i(b, "q_num_heads", 8);
	mb_attr_i(b, "kv_num_heads", 4);
	mb_attr_s(b, "update_rule", "linear");
	mb_input(b, "p", DT_FLOAT, "2,4,8,8");
	mb_node(b, "LinearAttention", "q,k,v,p", "py,ps");
	mb_attr_i(b, "q_num_heads", 8);
	mb_attr_i(b, "kv_num_heads", 4);
	mb_attr_s(b, "update_rule", "linear");
	mb_input(b, "a", DT_FLOAT16, "2,4");
	mb_node(b, "SwiGLU", "a,a", "sy");
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "cy"), "FLOAT16 (2, 4, 8)");
	cr_expect_str_eq(mb_type(m, "cs"), "FLOAT16 (2, 4, 3)");
	cr_expect_str_eq(mb_type(m, "ly"), "FLOAT16 (2, 4, 64)");
	cr_expect_str_eq(mb_type(m, "ls"), "FLOAT16 (2, 4, 8, 8)");
	cr_expect_str_eq(mb_type(m, "py"), "FLOAT16 (2, 4, 64)");
	cr_expect_str_eq(mb_type(m, "ps"), "FLOAT (2, 4, 8, 8)");
	cr_expect_str_eq(mb_type(m, "sy"), "FLOAT16 (2, 4)");
	cr_expect_eq(mb_count(m, "shape-error") + mb_count(m, "type-error") + mb_count(m, "unknown-op"), 0, "%s%s",
		     mb_message(m, "shape-error"), mb_message(m, "type-error"));
	osh_model_free(m);
}

/* Below their opsets the operators have no rule. */
Test(rules_opset24, not_before_their_opset)
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

/* ---- FlexAttention (ai.onnx.preview 1) ---- */

#define FLEX "FlexAttention", "q,k,v", "y", .domain = "ai.onnx.preview"
#define FU "FLOAT (rank unknown)"

static const rule_case flex_cases[] = {
	{"basic", 26, FLEX, .decls = "q:2,4,8,16|k:2,4,6,16|v:2,4,6,16", .expect = {"FLOAT (2, 4, 8, 16)"}},
	{"diff head sizes", 26, FLEX, .decls = "q:2,4,8,16|k:2,4,6,16|v:2,4,6,32", .expect = {"FLOAT (2, 4, 8, 32)"}},
	{"gqa", 26, FLEX, .decls = "q:2,8,4,16|k:2,2,6,16|v:2,2,6,16", .expect = {"FLOAT (2, 8, 4, 16)"}},
	{"double", 26, FLEX, .decls = "q:DOUBLE:2,4,8,16|k:DOUBLE:2,4,6,16|v:DOUBLE:2,4,6,16",
	 .expect = {"DOUBLE (2, 4, 8, 16)"}},
	{"symbolic, merged", 26, FLEX, .decls = "q:FLOAT16:B,H,L,?|k:FLOAT16:?,2,S,64|v:FLOAT16:B,?,S,Ev",
	 .expect = {"FLOAT16 (B, H, L, Ev)"}},
	{"heads not a multiple", 26, FLEX, .decls = "q:2,3,8,16|k:2,2,6,16|v:2,2,6,16", .expect = {FU},
	 .diag = "shape-error"},
	{"head sizes of Q and K differ", 26, FLEX, .decls = "q:2,4,8,16|k:2,4,6,8|v:2,4,6,16", .expect = {FU},
	 .diag = "shape-error"},
	{"3-D", 26, FLEX, .decls = "q:2,8,16|k:2,6,16|v:2,6,16", .expect = {FU}, .diag = "shape-error"},
};

Test(rules_opset24, flex_attention) { RULE_CASES(flex_cases); }

/* A score_mod body (a graph attribute, which a table row does not carry): the output
 * keeps Q's shape with V's head size. */
Test(rules_opset24, flex_attention_score_mod)
{
	mb *b = mb_new(26);
	mb_opset(b, "ai.onnx.preview", 1);
	rule_case_decls(b, "score_mod body", "q:1,2,3,4|k:1,2,3,4|v:1,2,3,4");
	mb_node(b, "FlexAttention", "q,k,v", "y");
	mb_node_domain(b, "ai.onnx.preview");
	mb *g = mb_new(26);
	mb_input(g, "scores", DT_FLOAT, NULL);
	mb_node(g, "Neg", "scores", "out");
	mb_output(g, "out", 0, NULL);
	mb_attr_graph(b, "score_mod", g);
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m, "score_mod body: the model did not load");
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (1, 2, 3, 4)");
	cr_expect_eq(mb_count(m, "shape-error") + mb_count(m, "unknown-op") + mb_count(m, "type-error") +
			     mb_count(m, "arity-error") + mb_count(m, "attribute-error"),
		     0, "score_mod body: unexpected finding: %s%s", mb_message(m, "shape-error"),
		     mb_message(m, "type-error"));
	osh_model_free(m);
}
