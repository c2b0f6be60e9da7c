/* test_rules_opset24.c: the operators ai.onnx added after opset 23 (CausalConvWithState
 * and LinearAttention, 27; SwiGLU, 28) and ai.onnx.preview's FlexAttention, one table
 * row per one-node model (see test_rules_nn_case.h). Shapes from Changelog.md:
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
#include "test_rules_nn_case.h"

/* ---- CausalConvWithState (27) ---- */

static const nn_case causal_conv_cases[] = {
	{"basic", 27, "CausalConvWithState", "x,w", "x:2,4,8|w:4,1,4", .outputs = "y,s", .expect = "FLOAT (2, 4, 8)",
	 .expect2 = "FLOAT (2, 4, 3)"},
	{"decode step with bias and past", 27, "CausalConvWithState", "x,w,b,p", "x:2,4,1|w:4,1,4|b:4|p:2,4,3",
	 .outputs = "y,s", .expect = "FLOAT (2, 4, 1)", .expect2 = "FLOAT (2, 4, 3)"},
	{"kernel size one: an empty state", 27, "CausalConvWithState", "x,w", "x:2,4,8|w:4,1,1", .outputs = "y,s",
	 .expect = "FLOAT (2, 4, 8)", .expect2 = "FLOAT (2, 4, 0)"},
	{"short input, no past", 27, "CausalConvWithState", "x,w", "x:2,4,2|w:4,1,5", .outputs = "y,s",
	 .expect = "FLOAT (2, 4, 2)", .expect2 = "FLOAT (2, 4, 4)"},
	{"silu", 27, "CausalConvWithState", "x,w", "x:2,4,8|w:4,1,4", .attrs = "s:activation=silu", .outputs = "y,s",
	 .expect = "FLOAT (2, 4, 8)", .expect2 = "FLOAT (2, 4, 3)"},
	{"symbolic, channels from the weight", 27, "CausalConvWithState", "x,w", "x:B,?,L|w:64,1,4",
	 .outputs = "y,s", .expect = "FLOAT (B, 64, L)", .expect2 = "FLOAT (B, 64, 3)"},
	{"state size from past_state alone", 27, "CausalConvWithState", "x,w,,p", "x:B,C,L|w:*|p:B,C,3",
	 .outputs = "y,s", .expect = "FLOAT (B, C, L)", .expect2 = "FLOAT (B, C, 3)"},
	{"channels disagree", 27, "CausalConvWithState", "x,w", "x:2,4,8|w:5,1,4", .outputs = "y,s",
	 .expect = "FLOAT (rank unknown)", .expect2 = "FLOAT (rank unknown)", .diag = "shape-error"},
	{"past_state of the wrong length", 27, "CausalConvWithState", "x,w,,p", "x:2,4,8|w:4,1,4|p:2,4,2",
	 .outputs = "y,s", .expect = "FLOAT (rank unknown)", .diag = "shape-error"},
	{"weight not depthwise", 27, "CausalConvWithState", "x,w", "x:2,4,8|w:4,2,4", .outputs = "y,s",
	 .expect = "FLOAT (rank unknown)", .diag = "shape-error"},
	{"input not 3-D", 27, "CausalConvWithState", "x,w", "x:4,8|w:4,1,4", .outputs = "y,s",
	 .expect = "FLOAT (rank unknown)", .diag = "shape-error"},
};

Test(rules_opset24, causal_conv_with_state) { NN_CHECK_ALL(causal_conv_cases); }

/* ---- LinearAttention (27) ---- */

#define HEADS(q, kv) "i:q_num_heads=" #q "|i:kv_num_heads=" #kv

static const nn_case linear_attention_cases[] = {
	{"gated_delta", 27, "LinearAttention", "q,k,v,,d,bt", "q:2,4,32|k:2,4,32|v:2,4,32|d:2,4,32|bt:2,4,4",
	 .attrs = HEADS(4, 4), .outputs = "y,s", .expect = "FLOAT (2, 4, 32)", .expect2 = "FLOAT (2, 4, 8, 8)"},
	{"gqa", 27, "LinearAttention", "q,k,v,,d,bt", "q:2,4,64|k:2,4,32|v:2,4,32|d:2,4,32|bt:2,4,4",
	 .attrs = HEADS(8, 4), .outputs = "y,s", .expect = "FLOAT (2, 4, 64)", .expect2 = "FLOAT (2, 4, 8, 8)"},
	{"mqa, scalar beta", 27, "LinearAttention", "q,k,v,,d,bt", "q:2,4,64|k:2,4,8|v:2,4,8|d:2,4,8|bt:2,4,1",
	 .attrs = HEADS(8, 1), .outputs = "y,s", .expect = "FLOAT (2, 4, 64)", .expect2 = "FLOAT (2, 1, 8, 8)"},
	{"decode step with past, per-head decay", 27, "LinearAttention", "q,k,v,p,d,bt",
	 "q:2,1,32|k:2,1,32|v:2,1,32|p:2,4,8,8|d:2,1,4|bt:2,1,4", .attrs = HEADS(4, 4), .outputs = "y,s",
	 .expect = "FLOAT (2, 1, 32)", .expect2 = "FLOAT (2, 4, 8, 8)"},
	{"linear", 27, "LinearAttention", "q,k,v", "q:2,4,64|k:2,4,32|v:2,4,32",
	 .attrs = HEADS(8, 4) "|s:update_rule=linear", .outputs = "y,s", .expect = "FLOAT (2, 4, 64)",
	 .expect2 = "FLOAT (2, 4, 8, 8)"},
	{"symbolic value kept with equal heads", 27, "LinearAttention", "q,k,v", "q:B,T,32|k:B,T,32|v:B,T,D",
	 .attrs = HEADS(4, 4) "|s:update_rule=linear", .outputs = "y,s", .expect = "FLOAT (B, T, D)",
	 .expect2 = "FLOAT (B, 4, 8, ?)"},
	{"d_v from past_state", 27, "LinearAttention", "q,k,v,p", "q:B,T,64|k:B,T,32|v:B,T,?|p:B,4,8,16",
	 .attrs = HEADS(8, 4) "|s:update_rule=linear", .outputs = "y,s", .expect = "FLOAT (B, T, 128)",
	 .expect2 = "FLOAT (B, 4, 8, 16)"},
	{"q heads not a multiple of kv heads", 27, "LinearAttention", "q,k,v", "q:2,4,48|k:2,4,32|v:2,4,32",
	 .attrs = HEADS(6, 4) "|s:update_rule=linear", .outputs = "y,s", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	{"hidden size not a multiple of the heads", 27, "LinearAttention", "q,k,v", "q:2,4,30|k:2,4,32|v:2,4,32",
	 .attrs = HEADS(4, 4) "|s:update_rule=linear", .outputs = "y,s", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	{"d_k of query and key disagree", 27, "LinearAttention", "q,k,v", "q:2,4,64|k:2,4,32|v:2,4,32",
	 .attrs = HEADS(4, 4) "|s:update_rule=linear", .outputs = "y,s", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	{"beta of a wrong size", 27, "LinearAttention", "q,k,v,,d,bt", "q:2,4,32|k:2,4,32|v:2,4,32|d:2,4,32|bt:2,4,3",
	 .attrs = HEADS(4, 4), .outputs = "y,s", .expect = "FLOAT (rank unknown)", .diag = "shape-error"},
	{"past_state not 4-D", 27, "LinearAttention", "q,k,v,p", "q:2,4,32|k:2,4,32|v:2,4,32|p:2,4,64",
	 .attrs = HEADS(4, 4) "|s:update_rule=linear", .outputs = "y,s", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
};

Test(rules_opset24, linear_attention) { NN_CHECK_ALL(linear_attention_cases); }

/* ---- SwiGLU (28) ---- */

static const nn_case swiglu_cases[] = {
	{"same shapes", 28, "SwiGLU", "a,b", "a:2,4|b:2,4", .outputs = "y", .expect = "FLOAT (2, 4)"},
	{"alpha, double", 28, "SwiGLU", "a,b", "a:DOUBLE:2,4|b:DOUBLE:2,4", .attrs = "f:alpha=0.5", .outputs = "y",
	 .expect = "DOUBLE (2, 4)"},
	{"dims merged from both", 28, "SwiGLU", "a,b", "a:B,?,?|b:?,S,11008", .outputs = "y",
	 .expect = "FLOAT (B, S, 11008)"},
	{"one shape unknown", 28, "SwiGLU", "a,b", "a:*|b:B,8", .outputs = "y", .expect = "FLOAT (B, 8)"},
	{"no broadcasting", 28, "SwiGLU", "a,b", "a:2,4|b:2,1", .outputs = "y", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	{"ranks differ", 28, "SwiGLU", "a,b", "a:2,4|b:4", .outputs = "y", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	/* B's leading dims match A's whole shape: only the ranks tell them apart. */
	{"ranks differ, A's lower", 28, "SwiGLU", "a,b", "a:4|b:4,4", .outputs = "y", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
};

Test(rules_opset24, swiglu) { NN_CHECK_ALL(swiglu_cases); }

/* ---- element types: FLOAT16 (test_rules_nn_case.h's rows know no FLOAT16) ---- */

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

typedef struct flex_case {
	const char *what;
	int32_t elem;
	const char *q, *k, *v;
	bool score_mod;
	const char *expect;
	const char *diag; /* NULL: no shape-error */
} flex_case;

static const flex_case flex_cases[] = {
	{"basic", DT_FLOAT, "2,4,8,16", "2,4,6,16", "2,4,6,16", false, "FLOAT (2, 4, 8, 16)", NULL},
	{"diff head sizes", DT_FLOAT, "2,4,8,16", "2,4,6,16", "2,4,6,32", false, "FLOAT (2, 4, 8, 32)", NULL},
	{"gqa", DT_FLOAT, "2,8,4,16", "2,2,6,16", "2,2,6,16", false, "FLOAT (2, 8, 4, 16)", NULL},
	{"double", DT_DOUBLE, "2,4,8,16", "2,4,6,16", "2,4,6,16", false, "DOUBLE (2, 4, 8, 16)", NULL},
	{"score_mod body", DT_FLOAT, "1,2,3,4", "1,2,3,4", "1,2,3,4", true, "FLOAT (1, 2, 3, 4)", NULL},
	{"symbolic, merged", DT_FLOAT16, "B,H,L,?", "?,2,S,64", "B,?,S,Ev", false, "FLOAT16 (B, H, L, Ev)", NULL},
	{"heads not a multiple", DT_FLOAT, "2,3,8,16", "2,2,6,16", "2,2,6,16", false, "FLOAT (rank unknown)",
	 "shape-error"},
	{"head sizes of Q and K differ", DT_FLOAT, "2,4,8,16", "2,4,6,8", "2,4,6,16", false, "FLOAT (rank unknown)",
	 "shape-error"},
	{"3-D", DT_FLOAT, "2,8,16", "2,6,16", "2,6,16", false, "FLOAT (rank unknown)", "shape-error"},
};

Test(rules_opset24, flex_attention)
{
	for (size_t i = 0; i < sizeof flex_cases / sizeof flex_cases[0]; i++) {
		const flex_case *k = &flex_cases[i];
		mb *b = mb_new(26);
		mb_opset(b, "ai.onnx.preview", 1);
		mb_input(b, "q", k->elem, k->q);
		mb_input(b, "k", k->elem, k->k);
		mb_input(b, "v", k->elem, k->v);
		mb_node(b, "FlexAttention", "q,k,v", "y");
		mb_node_domain(b, "ai.onnx.preview");
		if (k->score_mod) {
			mb *g = mb_new(26);
			mb_input(g, "scores", DT_FLOAT, NULL);
			mb_node(g, "Neg", "scores", "out");
			mb_output(g, "out", 0, NULL);
			mb_attr_graph(b, "score_mod", g);
		}
		mb_output(b, "y", 0, NULL);
		osh_model *m = mb_infer(b);
		cr_assert_not_null(m, "%s: the model did not load", k->what);
		cr_expect_str_eq(mb_type(m, "y"), k->expect, "%s", k->what);
		if (k->diag)
			cr_expect_geq(mb_count(m, k->diag), 1, "%s: expected a %s", k->what, k->diag);
		else
			cr_expect_eq(mb_count(m, "shape-error") + mb_count(m, "unknown-op") + mb_count(m, "type-error") +
					     mb_count(m, "arity-error") + mb_count(m, "attribute-error"),
				     0, "%s: unexpected finding: %s%s", k->what, mb_message(m, "shape-error"),
				     mb_message(m, "type-error"));
		osh_model_free(m);
	}
}
