/* test_rules_attention.c: Attention (23, 24, 25), RotaryEmbedding (23), TensorScatter,
 * LinearAttention (27) and FlexAttention (ai.onnx.preview), one table row per one-node
 * model (see tests/support/rule_case.h). Shapes from Changelog.md
 * (Attention-23):
 *   Q (B, Hq, Sq, E), K (B, Hkv, Skv, E), V (B, Hkv, Skv, Ev); 3-D: (B, S, H * size)
 *   Y (B, Hq, Sq, Ev), 3-D: (B, Sq, Hq * Ev)
 *   present_key (B, Hkv, P + Skv, E), present_value (B, Hkv, P + Skv, Ev)
 *   qk_matmul_output (B, Hq, Sq, P + Skv), P the past_key's sequence length.
 * The 4-D rows take their sizes from the onnx backend tests (test_attention_4d: Q
 * (2, 3, 4, 8), K (2, 3, 6, 8), V (2, 3, 6, 8) -> Y (2, 3, 4, 8); gqa: Q (2, 9, 4, 8);
 * diff_head_sizes: V (2, 3, 6, 10)).
 */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case attention_cases[] = {
	{"4-D", 23, "Attention", "q,k,v", "y", .decls = "q:2,3,4,8|k:2,3,6,8|v:2,3,6,8",
	 .expect = {"FLOAT (2, 3, 4, 8)"}},
	{"4-D group-query", 23, "Attention", "q,k,v", "y", .decls = "q:2,9,4,8|k:2,3,6,8|v:2,3,6,8",
	 .expect = {"FLOAT (2, 9, 4, 8)"}},
	{"4-D V head size differs", 23, "Attention", "q,k,v", "y", .decls = "q:2,3,4,8|k:2,3,6,8|v:2,3,6,10",
	 .expect = {"FLOAT (2, 3, 4, 10)"}},
	/* with past: total = 5 + 6 = 11 */
	{"4-D with past, all outputs", 23, "Attention", "q,k,v,,pk,pv", "y,pko,pvo,qk",
	 .decls = "q:2,3,4,8|k:2,3,6,8|v:2,3,6,10|pk:2,3,5,8|pv:2,3,5,10",
	 .expect = {"FLOAT (2, 3, 4, 10)", "FLOAT (2, 3, 11, 8)", "FLOAT (2, 3, 11, 10)", "FLOAT (2, 3, 4, 11)"}},
	{"4-D with mask, no past", 23, "Attention", "q,k,v,m", "y,,,qk",
	 .decls = "q:2,3,4,8|k:2,3,6,8|v:2,3,6,8|m:BOOL:4,6", .attrs = "i:is_causal=0",
	 .expect = {"FLOAT (2, 3, 4, 8)", "missing", "missing", "FLOAT (2, 3, 4, 6)"}},
	/* 3-D: Q (2, 4, 3 * 8), K (2, 6, 3 * 8), V (2, 6, 3 * 10) -> Y (2, 4, 3 * 10) */
	{"3-D", 23, "Attention", "q,k,v", "y", .decls = "q:2,4,24|k:2,6,24|v:2,6,30",
	 .attrs = "i:q_num_heads=3|i:kv_num_heads=3", .expect = {"FLOAT (2, 4, 30)"}},
	/* 3-D GQA: Hq 9, Hkv 3, Ev = 30 / 3 = 10 -> Y (2, 4, 90); present (2, 3, 5 + 6, 8) */
	{"3-D group-query with past", 23, "Attention", "q,k,v,,pk,pv", "y,pko,pvo,qk",
	 .decls = "q:2,4,72|k:2,6,24|v:2,6,30|pk:2,3,5,8|pv:2,3,5,10", .attrs = "i:q_num_heads=9|i:kv_num_heads=3",
	 .expect = {"FLOAT (2, 4, 90)", "FLOAT (2, 3, 11, 8)", "FLOAT (2, 3, 11, 10)", "FLOAT (2, 9, 4, 11)"}},
	/* symbolic sequence lengths; equal head counts keep V's symbolic hidden size */
	{"3-D symbolic", 23, "Attention", "q,k,v", "y,,,qk", .decls = "q:B,S,64|k:B,T,64|v:B,T,D",
	 .attrs = "i:q_num_heads=4|i:kv_num_heads=4",
	 .expect = {"FLOAT (B, S, D)", "missing", "missing", "FLOAT (B, 4, S, T)"}},
	/* 24: nonpad_kv_seqlen (batch_size) binds B */
	{"opset 24, nonpad_kv_seqlen", 24, "Attention", "q,k,v,,,,n", "y",
	 .decls = "q:B,3,4,8|k:B,3,6,8|v:B,3,6,8|n:INT64:2", .expect = {"FLOAT (2, 3, 4, 8)"}},
	{"opset 24, nonpad_kv_seqlen disagrees", 24, "Attention", "q,k,v,,,,n", "y",
	 .decls = "q:2,3,4,8|k:2,3,6,8|v:2,3,6,8|n:INT64:3", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
	{"opset 25, window", 25, "Attention", "q,k,v", "y", .decls = "q:2,3,4,8|k:2,3,6,8|v:2,3,6,8",
	 .attrs = "i:left_window_size=2|i:right_window_size=0", .expect = {"FLOAT (2, 3, 4, 8)"}},
	{"3-D without head counts", 23, "Attention", "q,k,v", "y", .decls = "q:2,4,24|k:2,6,24|v:2,6,30",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"heads do not divide", 23, "Attention", "q,k,v", "y", .decls = "q:2,4,24|k:2,6,24|v:2,6,30",
	 .attrs = "i:q_num_heads=5|i:kv_num_heads=3", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"ranks mixed", 23, "Attention", "q,k,v", "y", .decls = "q:2,3,4,8|k:2,6,24|v:2,6,24",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"head sizes of Q and K differ", 23, "Attention", "q,k,v", "y", .decls = "q:2,3,4,8|k:2,3,6,7|v:2,3,6,8",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_attention, attention)
{
	RULE_CASES(attention_cases);
}

/* RotaryEmbedding: "output: Tensor with same shape as input" */
static const rule_case rotary_cases[] = {
	{"4-D", 23, "RotaryEmbedding", "x,c,s,p", "y", .decls = "x:2,4,3,8|c:50,4|s:50,4|p:INT64:2,3",
	 .expect = {"FLOAT (2, 4, 3, 8)"}},
	{"3-D without position_ids", 23, "RotaryEmbedding", "x,c,s", "y", .decls = "x:B,S,32|c:B,S,4|s:B,S,4",
	 .attrs = "i:num_heads=4", .expect = {"FLOAT (B, S, 32)"}},
	{"rank 2", 23, "RotaryEmbedding", "x,c,s", "y", .decls = "x:3,8|c:3,4|s:3,4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_attention, rotary_embedding) { RULE_CASES(rotary_cases); }

/* TensorScatter (24): "present_cache: Updated cache. Same shape as past_cache"; update
 * differs from it only along axis (default -2), where it is not longer. */
static const rule_case tensor_scatter_cases[] = {
	{"prefill", 24, "TensorScatter", "p,u", "y", .decls = "p:2,4,10,8|u:2,4,3,8",
	 .expect = {"FLOAT (2, 4, 10, 8)"}},
	{"dims merged from the update and write_indices", 24, "TensorScatter", "p,u,w", "y",
	 .decls = "p:B,H,10,D|u:?,H,3,8|w:INT64:2", .expect = {"FLOAT (2, H, 10, 8)"}},
	{"axis 1, circular", 24, "TensorScatter", "p,u", "y", .decls = "p:2,16,4|u:2,1,4",
	 .attrs = "i:axis=1|s:mode=circular", .expect = {"FLOAT (2, 16, 4)"}},
	{"update longer than the cache", 24, "TensorScatter", "p,u", "y", .decls = "p:2,4,3,8|u:2,4,5,8",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"update differs off the axis", 24, "TensorScatter", "p,u", "y", .decls = "p:2,4,10,8|u:2,4,3,7",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"axis 0", 24, "TensorScatter", "p,u", "y", .decls = "p:2,4,10,8|u:2,4,3,8", .attrs = "i:axis=0",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_attention, tensor_scatter) { RULE_CASES(tensor_scatter_cases); }

/* LinearAttention (opset 27), from Changelog.md: query (B, T, Hq * dk), key
 * (B, T, Hkv * dk), value (B, T, Hkv * dv), past_state (B, Hkv, dk, dv) -> output
 * (B, T, Hq * dv), present_state (B, Hkv, dk, dv); sizes mostly from the onnx 1.23.1
 * backend tests test_linear_attention_*. */
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
	/* the output takes query's type; present_state past_state's (type constraint S),
	 * else query's */
	{"float16", 27, "LinearAttention", "q,k,v", "y,s",
	 .decls = "q:FLOAT16:2,4,64|k:FLOAT16:2,4,32|v:FLOAT16:2,4,32",
	 .attrs = HEADS(8, 4) "|s:update_rule=linear", .expect = {"FLOAT16 (2, 4, 64)", "FLOAT16 (2, 4, 8, 8)"}},
	{"float16 with a float past_state", 27, "LinearAttention", "q,k,v,p", "y,s",
	 .decls = "q:FLOAT16:2,4,64|k:FLOAT16:2,4,32|v:FLOAT16:2,4,32|p:2,4,8,8",
	 .attrs = HEADS(8, 4) "|s:update_rule=linear", .expect = {"FLOAT16 (2, 4, 64)", "FLOAT (2, 4, 8, 8)"}},
};

Test(rules_attention, linear_attention) { RULE_CASES(linear_attention_cases); }

/* FlexAttention (ai.onnx.preview 1): Q (B, Hq, L, E), K (B, Hkv, S, E), V (B, Hkv, S, Ev)
 * -> Y (B, Hq, L, Ev); sizes mostly from the onnx 1.23.1 backend tests
 * test_flexattention_*. */
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

Test(rules_attention, flex_attention) { RULE_CASES(flex_cases); }

/* A score_mod body (a graph attribute, which a table row does not carry): the output
 * keeps Q's shape with V's head size. */
Test(rules_attention, flex_attention_score_mod)
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
