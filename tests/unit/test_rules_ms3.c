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

#include "rule_case.h"

#define H2 "i:num_heads=2"
#define OFFS "|to:INT32:B,S|cum:INT32:C"
#define UNKNOWN "FLOAT (rank unknown)"

/* PackedAttention(input (T, In), weights (In, Hq + Hk + Hv), bias, token_offset (B, S),
 * cumulative_sequence_length (B + 1)[, attention_bias]) -> output (T, Hv), Hv a third
 * of the weights' width or qkv_hidden_sizes[2]. */
static const rule_case packed_attention[] = {
	{"symbolic tokens", 17, "PackedAttention", "x,w,b,to,cum", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|w:8,24|b:24" OFFS, .attrs = H2, .expect = {"FLOAT (T, 8)"}},
	{"qkv_hidden_sizes and attention_bias", 17, "PackedAttention", "x,w,b,to,cum,ab", "y",
	 .domain = "com.microsoft", .decls = "x:T,8|w:8,32|b:32|ab:1,2,S,S" OFFS,
	 .attrs = H2 "|is:qkv_hidden_sizes=8,8,16", .expect = {"FLOAT (T, 16)"}},
	{"known tokens", 17, "PackedAttention", "x,w,b,to,cum", "y", .domain = "com.microsoft",
	 .decls = "x:7,8|w:8,24|b:24|to:INT32:2,4|cum:INT32:3", .attrs = H2, .expect = {"FLOAT (7, 8)"}},
	{"weights not three sizes", 17, "PackedAttention", "x,w,b,to,cum", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|w:8,25|b:25" OFFS, .attrs = H2, .expect = {UNKNOWN}, .diag = "shape-error"},
	{"qkv_hidden_sizes against the width", 17, "PackedAttention", "x,w,b,to,cum", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|w:8,24|b:24" OFFS, .attrs = H2 "|is:qkv_hidden_sizes=8,8,16", .expect = {UNKNOWN},
	 .diag = "shape-error"},
	{"input width against the weights'", 17, "PackedAttention", "x,w,b,to,cum", "y", .domain = "com.microsoft",
	 .decls = "x:T,6|w:8,24|b:24" OFFS, .attrs = H2, .expect = {UNKNOWN}, .diag = "shape-error"},
	{"3-D input", 17, "PackedAttention", "x,w,b,to,cum", "y", .domain = "com.microsoft",
	 .decls = "x:B,S,8|w:8,24|b:24" OFFS, .attrs = H2, .expect = {UNKNOWN}, .diag = "shape-error"},
};

/* PackedMultiHeadAttention(query (T, D) or (T, N, 3, H), key (T, D), value (T, Dv), bias,
 * token_offset, cumulative_sequence_length[, attention_bias]) -> (T, Dv) or (T, N H). */
static const rule_case packed_mha[] = {
	{"separate Q, K, V", 17, "PackedMultiHeadAttention", "q,k,v,,to,cum", "y", .domain = "com.microsoft",
	 .decls = "q:T,8|k:T,8|v:T,12" OFFS, .attrs = H2, .expect = {"FLOAT (T, 12)"}},
	{"bias and attention_bias", 17, "PackedMultiHeadAttention", "q,k,v,b,to,cum,ab", "y",
	 .domain = "com.microsoft", .decls = "q:T,8|k:T,8|v:T,12|b:28|ab:B,2,S,S" OFFS, .attrs = H2,
	 .expect = {"FLOAT (T, 12)"}},
	{"packed QKV", 17, "PackedMultiHeadAttention", "q,,,,to,cum", "y", .domain = "com.microsoft",
	 .decls = "q:T,2,3,4" OFFS, .attrs = H2, .expect = {"FLOAT (T, 8)"}},
	{"hidden not a multiple of heads", 17, "PackedMultiHeadAttention", "q,k,v,,to,cum", "y",
	 .domain = "com.microsoft", .decls = "q:T,9|k:T,9|v:T,9" OFFS, .attrs = H2, .expect = {UNKNOWN},
	 .diag = "shape-error"},
	{"packed QKV of 3 heads", 17, "PackedMultiHeadAttention", "q,,,,to,cum", "y", .domain = "com.microsoft",
	 .decls = "q:T,3,3,4" OFFS, .attrs = H2, .expect = {UNKNOWN}, .diag = "shape-error"},
	{"token counts differ", 17, "PackedMultiHeadAttention", "q,k,v,,to,cum", "y", .domain = "com.microsoft",
	 .decls = "q:5,8|k:6,8|v:6,8" OFFS, .attrs = H2, .expect = {UNKNOWN}, .diag = "shape-error"},
};

/* SparseAttention, 4 query heads and 2 kv heads of 8: query (B, S, 32) or packed
 * (B, S, 64); output (B, S, 32); present_key/value share the past's buffer (B, 2, M, 8). */
#define SPARSE "i:num_heads=4|i:kv_num_heads=2|i:sparse_block_size=16"
#define CACHE "|pk:B,2,M,8|pv:B,2,M,8|t:INT32:|kts:INT32:B"
static const rule_case sparse_attention[] = {
	{"separate Q, K, V", 17, "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts", "y,pko,pvo",
	 .domain = "com.microsoft", .decls = "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:2,5|bci:INT32:2,10" CACHE,
	 .attrs = SPARSE, .expect = {"FLOAT (B, S, 32)", "FLOAT (B, 2, M, 8)", "FLOAT (B, 2, M, 8)"}},
	{"packed QKV, rotary", 17, "SparseAttention", "q,,,pk,pv,bri,bci,t,kts,cos,sin", "y,pko,pvo",
	 .domain = "com.microsoft", .decls = "q:B,S,64|bri:INT32:1,5|bci:INT32:1,10|cos:R,4|sin:R,4" CACHE,
	 .attrs = SPARSE "|i:do_rotary=1",
	 .expect = {"FLOAT (B, S, 32)", "FLOAT (B, 2, M, 8)", "FLOAT (B, 2, M, 8)"}},
	{"3 layouts for 4 heads", 17, "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts", "y,pko",
	 .domain = "com.microsoft", .decls = "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:3,5|bci:INT32:3,10" CACHE,
	 .attrs = SPARSE, .expect = {UNKNOWN, UNKNOWN}, .diag = "shape-error"},
	{"cache of 3 kv heads", 17, "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts", "y,pko,pvo",
	 .domain = "com.microsoft",
	 .decls = "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:1,5|bci:INT32:1,10|pk:B,3,M,8|pv:B,3,M,8|t:INT32:|kts:INT32:B",
	 .attrs = SPARSE, .expect = {"FLOAT (B, S, 32)", UNKNOWN, UNKNOWN}, .diag = "shape-error"},
	{"cache head size 6", 17, "SparseAttention", "q,k,v,pk,pv,bri,bci,t,kts", "y,pko", .domain = "com.microsoft",
	 .decls = "q:B,S,32|k:B,S,16|v:B,S,16|bri:INT32:1,5|bci:INT32:1,10|pk:B,2,M,6|pv:B,2,M,6|t:INT32:|kts:INT32:B",
	 .attrs = SPARSE, .expect = {UNKNOWN, UNKNOWN}, .diag = "shape-error"},
};

/* RelativePositionBias(bias_table (buckets, N), query_length, key_length) ->
 * (1, N, query_length, key_length), the lengths from the inputs' content. */
static const rule_case relative_position_bias[] = {
	{"known lengths", 17, "RelativePositionBias", "bt,ql,kl", "y", .domain = "com.microsoft", .decls = "bt:32,8",
	 .ints = "ql::5|kl::7", .attrs = "i:max_distance=128", .expect = {"FLOAT (1, 8, 5, 7)"}},
	{"lengths at run time", 17, "RelativePositionBias", "bt,ql,kl", "y", .domain = "com.microsoft",
	 .decls = "bt:32,N|ql:INT64:|kl:INT64:", .attrs = "i:max_distance=128|i:is_bidirectional=1",
	 .expect = {"FLOAT (1, N, ?, ?)"}},
	{"1-D bias table", 17, "RelativePositionBias", "bt,ql,kl", "y", .domain = "com.microsoft", .decls = "bt:32",
	 .ints = "ql::5|kl::7", .attrs = "i:max_distance=128", .expect = {UNKNOWN}, .diag = "shape-error"},
	{"negative length", 17, "RelativePositionBias", "bt,ql,kl", "y", .domain = "com.microsoft",
	 .decls = "bt:32,8", .ints = "ql::-1|kl::7", .attrs = "i:max_distance=128", .expect = {UNKNOWN},
	 .diag = "shape-error"},
};

/* GatedRelativePositionBias(query_layer (B, S, N H) or (T, N H), query_bias (N H),
 * rel_pos (1, N, S, S), weight (H, D), bias (D), eco_a (1, N, 1, 1)[, token_offset
 * (B, S)]) -> (B, N, S, S); 2 heads of 4, D 6. */
#define GATE "|qb:8|w:4,6|b:6|eco:1,2,1,1"
static const rule_case gated_relative_position_bias[] = {
	{"3-D query", 17, "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "y", .domain = "com.microsoft",
	 .decls = "ql:B,S,8|rp:1,2,S,S" GATE, .attrs = H2, .expect = {"FLOAT (B, 2, S, S)"}},
	{"2-D query and token_offset", 17, "GatedRelativePositionBias", "ql,qb,rp,w,b,eco,to", "y",
	 .domain = "com.microsoft", .decls = "ql:T,8|rp:1,2,S,S|to:INT32:B,S" GATE, .attrs = H2,
	 .expect = {"FLOAT (B, 2, S, S)"}},
	{"sequence from rel_pos", 17, "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "y", .domain = "com.microsoft",
	 .decls = "ql:2,S,8|rp:1,2,5,5" GATE, .attrs = H2, .expect = {"FLOAT (2, 2, 5, 5)"}},
	{"2-D query without token_offset", 17, "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "y",
	 .domain = "com.microsoft", .decls = "ql:T,8|rp:1,2,S,S" GATE, .attrs = H2, .expect = {UNKNOWN},
	 .diag = "shape-error"},
	{"odd gate width", 17, "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "y", .domain = "com.microsoft",
	 .decls = "ql:B,S,8|rp:1,2,S,S|qb:8|w:4,5|b:5|eco:1,2,1,1", .attrs = H2, .expect = {UNKNOWN},
	 .diag = "shape-error"},
	{"rel_pos of 3 heads", 17, "GatedRelativePositionBias", "ql,qb,rp,w,b,eco", "y", .domain = "com.microsoft",
	 .decls = "ql:B,S,8|rp:1,3,S,S" GATE, .attrs = H2, .expect = {UNKNOWN}, .diag = "shape-error"},
};

/* RemovePadding(input (B, S, H), sequence_token_count (B)) -> output (tokens, H) with
 * tokens known at run time only, token_offset (B, S), cumulated_seq_len (B + 1),
 * max_seq_len (1), int32. RestorePadding(input (tokens, H), token_offset (B, S)) ->
 * (B, S, H). */
static const rule_case padding[] = {
	{"RemovePadding", 17, "RemovePadding", "x,n", "y,off,cum,max", .domain = "com.microsoft",
	 .decls = "x:B,S,8|n:INT32:B", .expect = {"FLOAT (unk__0, 8)", "INT32 (B, S)", "INT32 (B + 1)", "INT32 (1)"}},
	{"RemovePadding, known, two outputs", 17, "RemovePadding", "x,n", "y,,cum", .domain = "com.microsoft",
	 .decls = "x:2,5,8|n:INT32:2", .expect = {"FLOAT (unk__0, 8)", NULL, "INT32 (3)"}},
	{"RemovePadding, counts of 3 for a batch of 2", 17, "RemovePadding", "x,n", "y", .domain = "com.microsoft",
	 .decls = "x:2,5,8|n:INT32:3", .expect = {UNKNOWN}, .diag = "shape-error"},
	{"RemovePadding, 2-D input", 17, "RemovePadding", "x,n", "y", .domain = "com.microsoft",
	 .decls = "x:10,8|n:INT32:2", .expect = {UNKNOWN}, .diag = "shape-error"},
	{"RestorePadding", 17, "RestorePadding", "x,off", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|off:INT32:B,S", .expect = {"FLOAT (B, S, 8)"}},
	{"RestorePadding, known", 17, "RestorePadding", "x,off", "y", .domain = "com.microsoft",
	 .decls = "x:7,8|off:INT32:2,5", .expect = {"FLOAT (2, 5, 8)"}},
	{"RestorePadding, 1-D input", 17, "RestorePadding", "x,off", "y", .domain = "com.microsoft",
	 .decls = "x:T|off:INT32:B,S", .expect = {UNKNOWN}, .diag = "shape-error"},
};

/* MoE(input (T, H) or (B, S, H), router_probs (T, E), fc1 (E, F I, H)[, fc1 bias (E, F I)],
 * fc2 (E, H, I)[, fc2 bias (E, H), fc3 (E, I, H), fc3 bias (E, I)]) -> like input; F 2
 * for fused SwiGLU. 4 experts, H 8, I 16. */
#define FC "|f1:4,16,8|f2:4,8,16"
static const rule_case moe[] = {
	{"2-D input", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft", .decls = "x:T,8|r:T,4" FC,
	 .attrs = "i:k=2", .expect = {"FLOAT (T, 8)"}},
	{"3-D input with biases", 17, "MoE", "x,r,f1,f1b,f2,f2b", "y", .domain = "com.microsoft",
	 .decls = "x:B,S,8|r:R,4|f1b:4,16|f2b:4,8" FC, .attrs = "i:k=1|s:activation_type=gelu",
	 .expect = {"FLOAT (B, S, 8)"}},
	{"fused SwiGLU", 17, "MoE", "x,r,f1,f1b,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:4,32,8|f1b:4,32|f2:4,8,16", .attrs = "s:activation_type=swiglu|i:swiglu_fusion=1",
	 .expect = {"FLOAT (T, 8)"}},
	{"unfused SwiGLU with fc3", 17, "MoE", "x,r,f1,,f2,,f3,f3b", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f3:4,16,8|f3b:4,16" FC, .attrs = "s:activation_type=swiglu",
	 .expect = {"FLOAT (T, 8)"}},
	{"fc2 of hidden 6", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:4,16,8|f2:4,6,16", .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"3 experts in fc1", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:3,16,8|f2:4,8,16", .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"router rows against tokens", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:2,3,8|r:5,4" FC, .expect = {UNKNOWN}, .diag = "shape-error"},
	{"fc1 of two inner sizes without SwiGLU", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:4,32,8|f2:4,8,16", .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"1-D input", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft", .decls = "x:8|r:T,4" FC,
	 .expect = {UNKNOWN}, .diag = "shape-error"},
};

/* QMoE(input, router_probs, fc1 (E, F I, H / pack), fc1_scales, fc1 bias, fc2 (E, H,
 * I / pack), fc2_scales, fc2 bias, fc3..., zero points, router_weights (T, E), ...) ->
 * like input; 4-bit weights (pack 2), 4 experts, H 8, I 16. */
#define QFC "|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:4,8,8|s2:4,8"
static const rule_case qmoe[] = {
	{"2-D input", 17, "QMoE", "x,r,f1,s1,,f2,s2", "y", .domain = "com.microsoft", .decls = "x:T,8|r:T,4" QFC,
	 .attrs = "i:k=2", .expect = {"FLOAT (T, 8)"}},
	{"3-D input, biases, router_weights", 17, "QMoE", "x,r,f1,s1,f1b,f2,s2,f2b,,,,,,,rw", "y",
	 .domain = "com.microsoft", .decls = "x:B,S,8|r:R,4|f1b:4,16|f2b:4,8|rw:R,4" QFC,
	 .attrs = "i:k=2|i:weights_prepacked=0", .expect = {"FLOAT (B, S, 8)"}},
	{"prepacked weights keep the provider's layout", 17, "QMoE", "x,r,f1,s1,,f2,s2", "y",
	 .domain = "com.microsoft", .decls = "x:T,8|r:T,4|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:9,1,1|s2:4,8",
	 .expect = {"FLOAT (T, 8)"}},
	{"raw fc2 of hidden 6", 17, "QMoE", "x,r,f1,s1,,f2,s2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:4,6,8|s2:4,6", .attrs = "i:weights_prepacked=0",
	 .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"router_weights of 3 experts", 17, "QMoE", "x,r,f1,s1,,f2,s2,,,,,,,,rw", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|rw:T,3" QFC, .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"fc2 bias of hidden 6", 17, "QMoE", "x,r,f1,s1,,f2,s2,f2b", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f2b:4,6" QFC, .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
};

/* GroupQueryAttention's present_key/value (B, Nkv, T, H), 4 query heads and 2 kv heads
 * of 8: T is max(past length, total_sequence_length) with the total's content, the new
 * length without a past, the past's (the capacity) with sliding_window_cache; a 4-bit
 * cache keeps the past's packed width; a quantized cache without a past has no known
 * type. Where the total is run-time data and there is a past, T is unknown. */
#define GQA "i:num_heads=4|i:kv_num_heads=2"
#define GQA_IN "q:B,1,32|k:B,1,16|v:B,1,16|sl:INT32:B"
static const rule_case gqa[] = {
	{"symbolic past, known total", 17, "GroupQueryAttention", "q,k,v,pk,pv,sl,t", "y,pko,pvo,qk",
	 .domain = "com.microsoft", .decls = GQA_IN "|pk:B,2,P,8|pv:B,2,P,8", .ints = "t::16", .attrs = GQA,
	 .expect = {"FLOAT (B, 1, 32)", "FLOAT (B, 2, Max(P, 16), 8)", "FLOAT (B, 2, Max(P, 16), 8)", "FLOAT (B, 4, 1, 16)"}},
	{"known past, known total", 17, "GroupQueryAttention", "q,k,v,pk,pv,sl,t", "y,pko", .domain = "com.microsoft",
	 .decls = GQA_IN "|pk:B,2,5,8|pv:B,2,5,8", .ints = "t::6", .attrs = GQA,
	 .expect = {"FLOAT (B, 1, 32)", "FLOAT (B, 2, 6, 8)"}},
	{"past, total at run time", 17, "GroupQueryAttention", "q,k,v,pk,pv,sl,t", "y,pko,pvo",
	 .domain = "com.microsoft", .decls = GQA_IN "|pk:B,2,P,8|pv:B,2,P,8|t:INT32:", .attrs = GQA,
	 .expect = {"FLOAT (B, 1, 32)", "FLOAT (B, 2, ?, 8)", "FLOAT (B, 2, ?, 8)"}},
	{"no past, total at run time", 17, "GroupQueryAttention", "q,k,v,,,sl,t", "y,pko,pvo",
	 .domain = "com.microsoft", .decls = "q:B,S,32|k:B,S,16|v:B,S,16|sl:INT32:B|t:INT32:", .attrs = GQA,
	 .expect = {"FLOAT (B, S, 32)", "FLOAT (B, 2, S, 8)", "FLOAT (B, 2, S, 8)"}},
	{"no past, packed", 17, "GroupQueryAttention", "q,,,,,sl,t", "y,pko", .domain = "com.microsoft",
	 .decls = "q:B,S,64|sl:INT32:B|t:INT32:", .attrs = GQA, .expect = {"FLOAT (B, S, 32)", "FLOAT (B, 2, S, 8)"}},
	{"windowed cache", 17, "GroupQueryAttention", "q,k,v,pk,pv,sl,t", "y,pko,pvo,qk", .domain = "com.microsoft",
	 .decls = GQA_IN "|pk:B,2,C,8|pv:B,2,C,8", .ints = "t::100",
	 .attrs = GQA "|i:sliding_window_cache=1|i:local_window_size=4",
	 .expect = {"FLOAT (B, 1, 32)", "FLOAT (B, 2, C, 8)", "FLOAT (B, 2, C, 8)", "FLOAT (B, 4, 1, ?)"}},
	{"4-bit cache", 17, "GroupQueryAttention", "q,k,v,pk,pv,sl,t,,,,,,ks,vs", "y,pko", .domain = "com.microsoft",
	 .decls = GQA_IN "|pk:UINT8:B,2,P,4|pv:UINT8:B,2,P,4|t:INT32:|ks:1|vs:1",
	 .attrs = GQA "|s:k_quant_type=PER_TENSOR|s:v_quant_type=PER_TENSOR|i:kv_cache_bit_width=4",
	 .expect = {"FLOAT (B, 1, 32)", "UINT8 (B, 2, ?, 4)"}},
	{"quantized cache without a past", 17, "GroupQueryAttention", "q,k,v,,,sl,t,,,,,,ks,vs", "y,pko",
	 .domain = "com.microsoft", .decls = "q:B,S,32|k:B,S,16|v:B,S,16|sl:INT32:B|t:INT32:|ks:1|vs:1",
	 .attrs = GQA "|s:k_quant_type=PER_TENSOR|s:v_quant_type=PER_TENSOR|i:kv_cache_bit_width=8",
	 .expect = {"FLOAT (B, S, 32)", "? (B, 2, S, 8)"}},
	{"query not a multiple of heads", 17, "GroupQueryAttention", "q,k,v,,,sl,t", "y", .domain = "com.microsoft",
	 .decls = "q:B,S,30|k:B,S,16|v:B,S,16|sl:INT32:B|t:INT32:", .attrs = GQA, .expect = {UNKNOWN},
	 .diag = "shape-error"},
};

Test(rules_ms3, packed_attention) { RULE_CASES(packed_attention); }
Test(rules_ms3, packed_multi_head_attention) { RULE_CASES(packed_mha); }
Test(rules_ms3, sparse_attention) { RULE_CASES(sparse_attention); }
Test(rules_ms3, relative_position_bias) { RULE_CASES(relative_position_bias); }
Test(rules_ms3, gated_relative_position_bias) { RULE_CASES(gated_relative_position_bias); }
Test(rules_ms3, remove_and_restore_padding) { RULE_CASES(padding); }
Test(rules_ms3, moe) { RULE_CASES(moe); }
Test(rules_ms3, qmoe) { RULE_CASES(qmoe); }
Test(rules_ms3, group_query_attention_present) { RULE_CASES(gqa); }
