/* test_rules_ms3.c: the rules of rules_ms3.c (PackedAttention, PackedMultiHeadAttention,
 * SparseAttention, RelativePositionBias, GatedRelativePositionBias, RemovePadding,
 * RestorePadding, MoE, QMoE) and GroupQueryAttention's present length (rules_ms_attn.c),
 * with symbolic dims, optional inputs and outputs present and absent, and the models a
 * rule must refuse. tests/ort/ms_vs_ort.py checks the ones ONNX Runtime's CPU provider
 * runs against it; the others (CUDA only) are checked here alone. One table row per
 * one-node model; the expected shapes are derived by hand from ONNX Runtime's
 * docs/ContribOperators.md in the rows' comments.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_rules_nn_case.h"

typedef struct ms3_case {
	const char *what;
	const char *op;
	const char *inputs;  /* the node's inputs, "" entries for omitted ones */
	const char *decls;   /* graph inputs (test_rules_nn_case.h's syntax) */
	const char *ints;    /* INT64 initializers */
	const char *attrs;   /* "i:num_heads=2|s:activation_type=swiglu|is:qkv_hidden_sizes=8,8,16" */
	const char *outputs; /* the node's outputs, "" entries for omitted ones; all checked */
	const char *expect[4];
	const char *diag; /* a diagnostic code the node must raise, NULL: no shape-error */
} ms3_case;

static void ms3_check(const ms3_case *k)
{
	mb *b = nn_ms_model(k->what, k->decls);
	nn_inits(b, k->what, k->ints, NULL);
	mb_node(b, k->op, k->inputs, k->outputs);
	mb_node_domain(b, "com.microsoft");
	nn_attrs(b, k->what, k->attrs);
	nn_outputs(b, k->outputs);
	osh_model *m = mb_infer(b);
	char buf[256], *names[4];
	int n = nn_split(k->outputs, ',', buf, sizeof buf, names, 4);
	cr_assert(m, "%s: the model did not load", k->what);
	for (int i = 0; i < n; i++)
		if (*names[i])
			cr_expect_str_eq(mb_type(m, names[i]), k->expect[i], "%s (%s): output %d", k->what, k->op, i);
	nn_expect_diag(m, k->what, k->op, k->diag);
	osh_model_free(m);
}

#define H2 "i:num_heads=2"
#define OFFS "|to:INT32:B,S|cum:INT32:C"
#define UNKNOWN "FLOAT (rank unknown)"

/* PackedAttention(input (T, In), weights (In, Hq + Hk + Hv), bias, token_offset (B, S),
 * cumulative_sequence_length (B + 1)[, attention_bias]) -> output (T, Hv), Hv a third
 * of the weights' width or qkv_hidden_sizes[2]. */
static const ms3_case packed_attention[] = {
	{"symbolic tokens", "PackedAttention", "x,w,b,to,cum", "x:T,8|w:8,24|b:24" OFFS, NULL, H2, "y",
	 {"FLOAT (T, 8)"}, NULL},
	{"qkv_hidden_sizes and attention_bias", "PackedAttention", "x,w,b,to,cum,ab",
	 "x:T,8|w:8,32|b:32|ab:1,2,S,S" OFFS, NULL, H2 "|is:qkv_hidden_sizes=8,8,16", "y", {"FLOAT (T, 16)"}, NULL},
	{"known tokens", "PackedAttention", "x,w,b,to,cum", "x:7,8|w:8,24|b:24|to:INT32:2,4|cum:INT32:3", NULL, H2,
	 "y", {"FLOAT (7, 8)"}, NULL},
	{"weights not three sizes", "PackedAttention", "x,w,b,to,cum", "x:T,8|w:8,25|b:25" OFFS, NULL, H2, "y",
	 {UNKNOWN}, "shape-error"},
	{"qkv_hidden_sizes against the width", "PackedAttention", "x,w,b,to,cum", "x:T,8|w:8,24|b:24" OFFS, NULL,
	 H2 "|is:qkv_hidden_sizes=8,8,16", "y", {UNKNOWN}, "shape-error"},
	{"input width against the weights'", "PackedAttention", "x,w,b,to,cum", "x:T,6|w:8,24|b:24" OFFS, NULL, H2,
	 "y", {UNKNOWN}, "shape-error"},
	{"3-D input", "PackedAttention", "x,w,b,to,cum", "x:B,S,8|w:8,24|b:24" OFFS, NULL, H2, "y", {UNKNOWN},
	 "shape-error"},
};

/* PackedMultiHeadAttention(query (T, D) or (T, N, 3, H), key (T, D), value (T, Dv), bias,
 * token_offset, cumulative_sequence_length[, attention_bias]) -> (T, Dv) or (T, N H). */
static const ms3_case packed_mha[] = {
	{"separate Q, K, V", "PackedMultiHeadAttention", "q,k,v,,to,cum", "q:T,8|k:T,8|v:T,12" OFFS, NULL, H2, "y",
	 {"FLOAT (T, 12)"}, NULL},
	{"bias and attention_bias", "PackedMultiHeadAttention", "q,k,v,b,to,cum,ab",
	 "q:T,8|k:T,8|v:T,12|b:28|ab:B,2,S,S" OFFS, NULL, H2, "y", {"FLOAT (T, 12)"}, NULL},
	{"packed QKV", "PackedMultiHeadAttention", "q,,,,to,cum", "q:T,2,3,4" OFFS, NULL, H2, "y", {"FLOAT (T, 8)"},
	 NULL},
	{"hidden not a multiple of heads", "PackedMultiHeadAttention", "q,k,v,,to,cum", "q:T,9|k:T,9|v:T,9" OFFS, NULL,
	 H2, "y", {UNKNOWN}, "shape-error"},
	{"packed QKV of 3 heads", "PackedMultiHeadAttention", "q,,,,to,cum", "q:T,3,3,4" OFFS, NULL, H2, "y",
	 {UNKNOWN}, "shape-error"},
	{"token counts differ", "PackedMultiHeadAttention", "q,k,v,,to,cum", "q:5,8|k:6,8|v:6,8" OFFS, NULL, H2, "y",
	 {UNKNOWN}, "shape-error"},
};

/* SparseAttention, 4 query heads and 2 kv heads of 8: query (B, S, 32) or packed
 * (B, S, 64); output (B, S, 32); present_key/value share the past's buffer (B, 2, M, 8). */
#define SPARSE "i:num_heads=4|i:kv_num_heads=2|i:sparse_block_size=16"
#define CACHE "|pk:B,2,M,8|pv:B,2,M,8|t:INT32:|kts:INT32:B"
static const ms3_case sparse_attention[] = {
	{"separate Q, K, V", "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts",
	 "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:2,5|bci:INT32:2,10" CACHE, NULL, SPARSE, "y,pko,pvo",
	 {"FLOAT (B, S, 32)", "FLOAT (B, 2, M, 8)", "FLOAT (B, 2, M, 8)"}, NULL},
	{"packed QKV, rotary", "SparseAttention", "q,,,pk,pv,bri,bci,t,kts,cos,sin",
	 "q:B,S,64|bri:INT32:1,5|bci:INT32:1,10|cos:R,4|sin:R,4" CACHE, NULL, SPARSE "|i:do_rotary=1", "y,pko,pvo",
	 {"FLOAT (B, S, 32)", "FLOAT (B, 2, M, 8)", "FLOAT (B, 2, M, 8)"}, NULL},
	{"3 layouts for 4 heads", "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts",
	 "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:3,5|bci:INT32:3,10" CACHE, NULL, SPARSE, "y,pko",
	 {UNKNOWN, UNKNOWN}, "shape-error"},
	{"cache of 3 kv heads", "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts",
	 "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:1,5|bci:INT32:1,10|pk:B,3,M,8|pv:B,3,M,8|t:INT32:|kts:INT32:B", NULL,
	 SPARSE, "y,pko,pvo", {"FLOAT (B, S, 32)", UNKNOWN, UNKNOWN}, "shape-error"},
	{"cache head size 6", "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts",
	 "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:1,5|bci:INT32:1,10|pk:B,2,M,6|pv:B,2,M,6|t:INT32:|kts:INT32:B", NULL,
	 SPARSE, "y,pko", {UNKNOWN, UNKNOWN}, "shape-error"},
};

/* RelativePositionBias(bias_table (buckets, N), query_length, key_length) ->
 * (1, N, query_length, key_length), the lengths from the inputs' content. */
static const ms3_case relative_position_bias[] = {
	{"known lengths", "RelativePositionBias", "bt,ql,kl", "bt:32,8", "ql::5|kl::7", "i:max_distance=128", "y",
	 {"FLOAT (1, 8, 5, 7)"}, NULL},
	{"lengths at run time", "RelativePositionBias", "bt,ql,kl", "bt:32,N|ql:INT64:|kl:INT64:", NULL,
	 "i:max_distance=128|i:is_bidirectional=1", "y", {"FLOAT (1, N, ?, ?)"}, NULL},
	{"1-D bias table", "RelativePositionBias", "bt,ql,kl", "bt:32", "ql::5|kl::7", "i:max_distance=128", "y",
	 {UNKNOWN}, "shape-error"},
	{"negative length", "RelativePositionBias", "bt,ql,kl", "bt:32,8", "ql::-1|kl::7", "i:max_distance=128", "y",
	 {UNKNOWN}, "shape-error"},
};

/* GatedRelativePositionBias(query_layer (B, S, N H) or (T, N H), query_bias (N H),
 * rel_pos (1, N, S, S), weight (H, D), bias (D), eco_a (1, N, 1, 1)[, token_offset
 * (B, S)]) -> (B, N, S, S); 2 heads of 4, D 6. */
#define GATE "|qb:8|w:4,6|b:6|eco:1,2,1,1"
static const ms3_case gated_relative_position_bias[] = {
	{"3-D query", "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "ql:B,S,8|rp:1,2,S,S" GATE, NULL, H2, "y",
	 {"FLOAT (B, 2, S, S)"}, NULL},
	{"2-D query and token_offset", "GatedRelativePositionBias", "ql,qb,rp,w,b,eco,to",
	 "ql:T,8|rp:1,2,S,S|to:INT32:B,S" GATE, NULL, H2, "y", {"FLOAT (B, 2, S, S)"}, NULL},
	{"sequence from rel_pos", "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "ql:2,S,8|rp:1,2,5,5" GATE, NULL,
	 H2, "y", {"FLOAT (2, 2, 5, 5)"}, NULL},
	{"2-D query without token_offset", "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "ql:T,8|rp:1,2,S,S" GATE,
	 NULL, H2, "y", {UNKNOWN}, "shape-error"},
	{"odd gate width", "GatedRelativePositionBias", "ql,qb,rp,w,b,eco",
	 "ql:B,S,8|rp:1,2,S,S|qb:8|w:4,5|b:5|eco:1,2,1,1", NULL, H2, "y", {UNKNOWN}, "shape-error"},
	{"rel_pos of 3 heads", "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "ql:B,S,8|rp:1,3,S,S" GATE, NULL, H2,
	 "y", {UNKNOWN}, "shape-error"},
};

/* RemovePadding(input (B, S, H), sequence_token_count (B)) -> output (tokens, H) with
 * tokens known at run time only, token_offset (B, S), cumulated_seq_len (B + 1),
 * max_seq_len (1), int32. RestorePadding(input (tokens, H), token_offset (B, S)) ->
 * (B, S, H). */
static const ms3_case padding[] = {
	{"RemovePadding", "RemovePadding", "x,n", "x:B,S,8|n:INT32:B", NULL, NULL, "y,off,cum,max",
	 {"FLOAT (unk__0, 8)", "INT32 (B, S)", "INT32 (B + 1)", "INT32 (1)"}, NULL},
	{"RemovePadding, known, two outputs", "RemovePadding", "x,n", "x:2,5,8|n:INT32:2", NULL, NULL, "y,,cum",
	 {"FLOAT (unk__0, 8)", NULL, "INT32 (3)"}, NULL},
	{"RemovePadding, counts of 3 for a batch of 2", "RemovePadding", "x,n", "x:2,5,8|n:INT32:3", NULL, NULL, "y",
	 {UNKNOWN}, "shape-error"},
	{"RemovePadding, 2-D input", "RemovePadding", "x,n", "x:10,8|n:INT32:2", NULL, NULL, "y", {UNKNOWN},
	 "shape-error"},
	{"RestorePadding", "RestorePadding", "x,off", "x:T,8|off:INT32:B,S", NULL, NULL, "y", {"FLOAT (B, S, 8)"},
	 NULL},
	{"RestorePadding, known", "RestorePadding", "x,off", "x:7,8|off:INT32:2,5", NULL, NULL, "y",
	 {"FLOAT (2, 5, 8)"}, NULL},
	{"RestorePadding, 1-D input", "RestorePadding", "x,off", "x:T|off:INT32:B,S", NULL, NULL, "y", {UNKNOWN},
	 "shape-error"},
};

/* MoE(input (T, H) or (B, S, H), router_probs (T, E), fc1 (E, F I, H)[, fc1 bias (E, F I)],
 * fc2 (E, H, I)[, fc2 bias (E, H), fc3 (E, I, H), fc3 bias (E, I)]) -> like input; F 2
 * for fused SwiGLU. 4 experts, H 8, I 16. */
#define FC "|f1:4,16,8|f2:4,8,16"
static const ms3_case moe[] = {
	{"2-D input", "MoE", "x,r,f1,,f2", "x:T,8|r:T,4" FC, NULL, "i:k=2", "y", {"FLOAT (T, 8)"}, NULL},
	{"3-D input with biases", "MoE", "x,r,f1,f1b,f2,f2b", "x:B,S,8|r:R,4|f1b:4,16|f2b:4,8" FC, NULL,
	 "i:k=1|s:activation_type=gelu", "y", {"FLOAT (B, S, 8)"}, NULL},
	{"fused SwiGLU", "MoE", "x,r,f1,f1b,f2", "x:T,8|r:T,4|f1:4,32,8|f1b:4,32|f2:4,8,16", NULL,
	 "s:activation_type=swiglu|i:swiglu_fusion=1", "y", {"FLOAT (T, 8)"}, NULL},
	{"unfused SwiGLU with fc3", "MoE", "x,r,f1,,f2,,f3,f3b", "x:T,8|r:T,4|f3:4,16,8|f3b:4,16" FC, NULL,
	 "s:activation_type=swiglu", "y", {"FLOAT (T, 8)"}, NULL},
	{"fc2 of hidden 6", "MoE", "x,r,f1,,f2", "x:T,8|r:T,4|f1:4,16,8|f2:4,6,16", NULL, NULL, "y",
	 {"FLOAT (T, 8)"}, "shape-error"},
	{"3 experts in fc1", "MoE", "x,r,f1,,f2", "x:T,8|r:T,4|f1:3,16,8|f2:4,8,16", NULL, NULL, "y",
	 {"FLOAT (T, 8)"}, "shape-error"},
	{"router rows against tokens", "MoE", "x,r,f1,,f2", "x:2,3,8|r:5,4" FC, NULL, NULL, "y", {UNKNOWN},
	 "shape-error"},
	{"fc1 of two inner sizes without SwiGLU", "MoE", "x,r,f1,,f2", "x:T,8|r:T,4|f1:4,32,8|f2:4,8,16", NULL, NULL,
	 "y", {"FLOAT (T, 8)"}, "shape-error"},
	{"1-D input", "MoE", "x,r,f1,,f2", "x:8|r:T,4" FC, NULL, NULL, "y", {UNKNOWN}, "shape-error"},
};

/* QMoE(input, router_probs, fc1 (E, F I, H / pack), fc1_scales, fc1 bias, fc2 (E, H,
 * I / pack), fc2_scales, fc2 bias, fc3..., zero points, router_weights (T, E), ...) ->
 * like input; 4-bit weights (pack 2), 4 experts, H 8, I 16. */
#define QFC "|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:4,8,8|s2:4,8"
static const ms3_case qmoe[] = {
	{"2-D input", "QMoE", "x,r,f1,s1,,f2,s2", "x:T,8|r:T,4" QFC, NULL, "i:k=2", "y", {"FLOAT (T, 8)"}, NULL},
	{"3-D input, biases, router_weights", "QMoE", "x,r,f1,s1,f1b,f2,s2,f2b,,,,,,,rw",
	 "x:B,S,8|r:R,4|f1b:4,16|f2b:4,8|rw:R,4" QFC, NULL, "i:k=2|i:weights_prepacked=0", "y", {"FLOAT (B, S, 8)"},
	 NULL},
	{"prepacked weights keep the provider's layout", "QMoE", "x,r,f1,s1,,f2,s2",
	 "x:T,8|r:T,4|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:9,1,1|s2:4,8", NULL, NULL, "y", {"FLOAT (T, 8)"}, NULL},
	{"raw fc2 of hidden 6", "QMoE", "x,r,f1,s1,,f2,s2", "x:T,8|r:T,4|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:4,6,8|s2:4,6",
	 NULL, "i:weights_prepacked=0", "y", {"FLOAT (T, 8)"}, "shape-error"},
	{"router_weights of 3 experts", "QMoE", "x,r,f1,s1,,f2,s2,,,,,,,,rw", "x:T,8|r:T,4|rw:T,3" QFC, NULL, NULL, "y",
	 {"FLOAT (T, 8)"}, "shape-error"},
	{"fc2 bias of hidden 6", "QMoE", "x,r,f1,s1,,f2,s2,f2b", "x:T,8|r:T,4|f2b:4,6" QFC, NULL, NULL, "y",
	 {"FLOAT (T, 8)"}, "shape-error"},
};

/* GroupQueryAttention's present_key/value (B, Nkv, T, H), 4 query heads and 2 kv heads
 * of 8: T is max(past length, total_sequence_length) with the total's content, the new
 * length without a past, the past's (the capacity) with sliding_window_cache; a 4-bit
 * cache keeps the past's packed width; a quantized cache without a past has no known
 * type. Where the total is run-time data and there is a past, T is unknown. */
#define GQA "i:num_heads=4|i:kv_num_heads=2"
#define GQA_IN "q:B,1,32|k:B,1,16|v:B,1,16|sl:INT32:B"
static const ms3_case gqa[] = {
	{"symbolic past, known total", "GroupQueryAttention", "q,k,v,pk,pv,sl,t", GQA_IN "|pk:B,2,P,8|pv:B,2,P,8",
	 "t::16", GQA, "y,pko,pvo,qk",
	 {"FLOAT (B, 1, 32)", "FLOAT (B, 2, Max(P, 16), 8)", "FLOAT (B, 2, Max(P, 16), 8)", "FLOAT (B, 4, 1, 16)"},
	 NULL},
	{"known past, known total", "GroupQueryAttention", "q,k,v,pk,pv,sl,t", GQA_IN "|pk:B,2,5,8|pv:B,2,5,8",
	 "t::6", GQA, "y,pko", {"FLOAT (B, 1, 32)", "FLOAT (B, 2, 6, 8)"}, NULL},
	{"past, total at run time", "GroupQueryAttention", "q,k,v,pk,pv,sl,t",
	 GQA_IN "|pk:B,2,P,8|pv:B,2,P,8|t:INT32:", NULL, GQA, "y,pko,pvo",
	 {"FLOAT (B, 1, 32)", "FLOAT (B, 2, ?, 8)", "FLOAT (B, 2, ?, 8)"}, NULL},
	{"no past, total at run time", "GroupQueryAttention", "q,k,v,,,sl,t",
	 "q:B,S,32|k:B,S,16|v:B,S,16|sl:INT32:B|t:INT32:", NULL, GQA, "y,pko,pvo",
	 {"FLOAT (B, S, 32)", "FLOAT (B, 2, S, 8)", "FLOAT (B, 2, S, 8)"}, NULL},
	{"no past, packed", "GroupQueryAttention", "q,,,,,sl,t", "q:B,S,64|sl:INT32:B|t:INT32:", NULL, GQA, "y,pko",
	 {"FLOAT (B, S, 32)", "FLOAT (B, 2, S, 8)"}, NULL},
	{"windowed cache", "GroupQueryAttention", "q,k,v,pk,pv,sl,t", GQA_IN "|pk:B,2,C,8|pv:B,2,C,8", "t::100",
	 GQA "|i:sliding_window_cache=1|i:local_window_size=4", "y,pko,pvo,qk",
	 {"FLOAT (B, 1, 32)", "FLOAT (B, 2, C, 8)", "FLOAT (B, 2, C, 8)", "FLOAT (B, 4, 1, ?)"}, NULL},
	{"4-bit cache", "GroupQueryAttention", "q,k,v,pk,pv,sl,t,,,,,,ks,vs",
	 GQA_IN "|pk:UINT8:B,2,P,4|pv:UINT8:B,2,P,4|t:INT32:|ks:1|vs:1", NULL,
	 GQA "|s:k_quant_type=PER_TENSOR|s:v_quant_type=PER_TENSOR|i:kv_cache_bit_width=4", "y,pko",
	 {"FLOAT (B, 1, 32)", "UINT8 (B, 2, ?, 4)"}, NULL},
	{"quantized cache without a past", "GroupQueryAttention", "q,k,v,,,sl,t,,,,,,ks,vs",
	 "q:B,S,32|k:B,S,16|v:B,S,16|sl:INT32:B|t:INT32:|ks:1|vs:1", NULL,
	 GQA "|s:k_quant_type=PER_TENSOR|s:v_quant_type=PER_TENSOR|i:kv_cache_bit_width=8", "y,pko",
	 {"FLOAT (B, S, 32)", "? (B, 2, S, 8)"}, NULL},
	{"query not a multiple of heads", "GroupQueryAttention", "q,k,v,,,sl,t",
	 "q:B,S,30|k:B,S,16|v:B,S,16|sl:INT32:B|t:INT32:", NULL, GQA, "y", {UNKNOWN}, "shape-error"},
};

static void check_all(const ms3_case *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ms3_check(&k[i]);
}

#define CHECK_ALL(table) check_all(table, sizeof(table) / sizeof(table)[0])

Test(rules_ms3, packed_attention) { CHECK_ALL(packed_attention); }
Test(rules_ms3, packed_multi_head_attention) { CHECK_ALL(packed_mha); }
Test(rules_ms3, sparse_attention) { CHECK_ALL(sparse_attention); }
Test(rules_ms3, relative_position_bias) { CHECK_ALL(relative_position_bias); }
Test(rules_ms3, gated_relative_position_bias) { CHECK_ALL(gated_relative_position_bias); }
Test(rules_ms3, remove_and_restore_padding) { CHECK_ALL(padding); }
Test(rules_ms3, moe) { CHECK_ALL(moe); }
Test(rules_ms3, qmoe) { CHECK_ALL(qmoe); }
Test(rules_ms3, group_query_attention_present) { CHECK_ALL(gqa); }
