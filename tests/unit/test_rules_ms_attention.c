/* test_rules_ms_attention.c: the com.microsoft attention operators
 * (rules_ms_attention.c): PackedAttention, PackedMultiHeadAttention, SparseAttention,
 * GroupQueryAttention, DecoderMaskedMultiHeadAttention, LongformerAttention,
 * MultiHeadAttention, the rotary embeddings, the position biases and
 * RemovePadding/RestorePadding; symbolic dims, optional inputs and outputs present and
 * absent. Where ONNX Runtime's CPU provider runs an operator, tests/ort/ms_vs_ort.py and
 * tests/ort/ms_layout_vs_ort.py compare the rule with it as well; the CUDA-only operators, the
 * outputs ONNX Runtime's own inference refuses and the models it refuses are checked
 * here alone. One table row per one-node model (tests/support/rule_case.h); the expected
 * shapes are derived by hand from ONNX Runtime's docs/ContribOperators.md (and, for
 * com.microsoft.nchwc, its schemas and kernels) in the rows' comments.
 */
#include <criterion/criterion.h>

#include "rule_case.h"

#define H2 "i:num_heads=2"
#define OFFS "|to:INT32:B,S|cum:INT32:C"
#define UNKNOWN "FLOAT (rank unknown)"
#define SPARSE "i:num_heads=4|i:kv_num_heads=2|i:sparse_block_size=16"
#define CACHE "|pk:B,2,M,8|pv:B,2,M,8|t:INT32:|kts:INT32:B"
#define GATE "|qb:8|w:4,6|b:6|eco:1,2,1,1"
#define GQA "i:num_heads=4|i:kv_num_heads=2"
#define GQA_IN "q:B,1,32|k:B,1,16|v:B,1,16|sl:INT32:B"

static const rule_case cuda_only_operators[] = {
	/* GemmaRotaryEmbedding: emb (B, S, dim), q/q_rot (B, N, S, H), k/k_rot (B, N, S, H)
	 * -> output1 like q, output2 like k */
	{"GemmaRotaryEmbedding", 17, "GemmaRotaryEmbedding", "e,q,qr,k,kr", "o1,o2", .domain = "com.microsoft",
	 .decls = "e:2,3,16|q:2,8,3,16|qr:2,8,3,16|k:2,4,3,16|kr:2,4,3,16",
	 .expect = {"FLOAT (2, 8, 3, 16)", "FLOAT (2, 4, 3, 16)"}},
	{"GemmaRotaryEmbedding, symbolic", 17, "GemmaRotaryEmbedding", "e,q,qr,k,kr", "o1,o2",
	 .domain = "com.microsoft", .decls = "e:B,S,16|q:B,8,S,16|qr:B,8,S,16|k:B,8,S,16|kr:B,8,S,16",
	 .expect = {"FLOAT (B, 8, S, 16)", "FLOAT (B, 8, S, 16)"}},
};

Test(rules_ms_attention, cuda_only_operators) { RULE_CASES(cuda_only_operators); }

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

Test(rules_ms_attention, packed_attention) { RULE_CASES(packed_attention); }

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

Test(rules_ms_attention, packed_multi_head_attention) { RULE_CASES(packed_mha); }

/* SparseAttention, 4 query heads and 2 kv heads of 8: query (B, S, 32) or packed
 * (B, S, 64); output (B, S, 32); present_key/value share the past's buffer (B, 2, M, 8). */
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

Test(rules_ms_attention, sparse_attention) { RULE_CASES(sparse_attention); }

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

Test(rules_ms_attention, relative_position_bias) { RULE_CASES(relative_position_bias); }

/* GatedRelativePositionBias(query_layer (B, S, N H) or (T, N H), query_bias (N H),
 * rel_pos (1, N, S, S), weight (H, D), bias (D), eco_a (1, N, 1, 1)[, token_offset
 * (B, S)]) -> (B, N, S, S); 2 heads of 4, D 6. */
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

Test(rules_ms_attention, gated_relative_position_bias) { RULE_CASES(gated_relative_position_bias); }

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

Test(rules_ms_attention, remove_and_restore_padding) { RULE_CASES(padding); }

/* GroupQueryAttention's present_key/value (B, Nkv, T, H), 4 query heads and 2 kv heads
 * of 8: T is max(past length, total_sequence_length) with the total's content, the new
 * length without a past, the past's (the capacity) with sliding_window_cache; a 4-bit
 * cache keeps the past's packed width; a quantized cache without a past has no known
 * type. Where the total is run-time data and there is a past, T is unknown. */
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

Test(rules_ms_attention, group_query_attention_present) { RULE_CASES(gqa); }

static const rule_case cuda_only_and_unchecked_outputs[] = {
	/* DecoderMaskedMultiHeadAttention, 2 heads of 4: query (B, 1, 8), key/value (B, 1, 8),
	 * past (B, N, P, H) -> output (B, 1, 8), present (B, N, P + 1, H), qk (B, N, 1, P + 1) */
	{"DMMHA, self attention with past", 17, "DecoderMaskedMultiHeadAttention", "q,k,v,,,pk,pv", "y,pko,pvo,qk",
	 .domain = "com.microsoft", .decls = "q:2,1,8|k:2,1,8|v:2,1,8|pk:2,2,5,4|pv:2,2,5,4",
	 .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 1, 8)", "FLOAT (2, 2, 6, 4)", "FLOAT (2, 2, 6, 4)", "? (2, 2, 1, 6)"}},
	/* shared buffer: present is the past's (B, N, max, H); qk's total is run-time data */
	{"DMMHA, shared buffer", 17, "DecoderMaskedMultiHeadAttention", "q,k,v,,,pk,pv,psl", "y,pko,pvo,qk",
	 .domain = "com.microsoft", .decls = "q:B,1,8|k:B,1,8|v:B,1,8|pk:B,2,16,4|pv:B,2,16,4|psl:",
	 .attrs = "i:num_heads=2|i:past_present_share_buffer=1",
	 .expect = {"FLOAT (B, 1, 8)", "FLOAT (B, 2, 16, 4)", "FLOAT (B, 2, 16, 4)", "? (B, 2, 1, ?)"}},
	/* packed QKV (B, 1, 2 * 8 + 8): the head size from the past */
	{"DMMHA, packed QKV", 17, "DecoderMaskedMultiHeadAttention", "q,,,,,pk,pv", "y,pko,pvo",
	 .domain = "com.microsoft", .decls = "q:2,1,24|pk:2,2,3,4|pv:2,2,3,4", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 1, 8)", "FLOAT (2, 2, 4, 4)", "FLOAT (2, 2, 4, 4)"}},
	/* cross attention: key/value are BNSH (B, N, L, H); qk (B, N, 1, L) */
	{"DMMHA, cross attention", 17, "DecoderMaskedMultiHeadAttention", "q,k,v", "y,,,qk",
	 .domain = "com.microsoft", .decls = "q:2,1,8|k:2,2,7,4|v:2,2,7,6", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 1, 12)", NULL, NULL, "? (2, 2, 1, 7)"}},
	{"DMMHA, query of 5 heads' width", 17, "DecoderMaskedMultiHeadAttention", "q,k,v", "y",
	 .domain = "com.microsoft", .decls = "q:2,1,10|k:2,1,10|v:2,1,10", .attrs = "i:num_heads=4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* LongformerAttention: output like input (B, S, D) */
	{"LongformerAttention", 17, "LongformerAttention", "x,w,b,m,gw,gb,g", "y", .domain = "com.microsoft",
	 .decls = "x:2,16,8|w:8,24|b:24|m:2,16|gw:8,24|gb:24|g:2,16", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 16, 8)"}},
	{"LongformerAttention, symbolic", 17, "LongformerAttention", "x,w,b,m,gw,gb,g", "y",
	 .domain = "com.microsoft", .decls = "x:B,S,8|w:8,24|b:24|m:B,S|gw:8,24|gb:24|g:B,S",
	 .attrs = "i:num_heads=2", .expect = {"FLOAT (B, S, 8)"}},
	{"LongformerAttention, 2-D input", 17, "LongformerAttention", "x,w,b,m,gw,gb,g", "y",
	 .domain = "com.microsoft", .decls = "x:16,8|w:8,24|b:24|m:2,16|gw:8,24|gb:24|g:2,16",
	 .attrs = "i:num_heads=2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* MultiHeadAttention's qk: (B, N, S, P + L), of a type independent of the inputs' */
	{"MHA qk", 17, "MultiHeadAttention", "q,k,v", "y,pk,pv,qk", .domain = "com.microsoft",
	 .decls = "q:2,3,8|k:2,4,8|v:2,4,8", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 3, 8)", "FLOAT (2, 2, 4, 4)", "FLOAT (2, 2, 4, 4)", "? (2, 2, 3, 4)"}},
	{"MHA qk with past", 17, "MultiHeadAttention", "q,k,v,,,,pk,pv", "y,,,qk", .domain = "com.microsoft",
	 .decls = "q:B,3,8|k:B,3,8|v:B,3,8|pk:B,2,5,4|pv:B,2,5,4", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (B, 3, 8)", NULL, NULL, "? (B, 2, 3, 8)"}},
	/* packed QKV (B, S, N, 3, H) */
	{"MHA packed QKV", 17, "MultiHeadAttention", "q", "y,pk", .domain = "com.microsoft", .decls = "q:2,3,2,3,4",
	 .attrs = "i:num_heads=2", .expect = {"FLOAT (2, 3, 8)", "FLOAT (2, 2, 3, 4)"}},
	{"MHA hidden not a multiple of heads", 17, "MultiHeadAttention", "q,k,v", "y", .domain = "com.microsoft",
	 .decls = "q:2,3,9|k:2,4,9|v:2,4,9", .attrs = "i:num_heads=2", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
};

Test(rules_ms_attention, cuda_only_and_unchecked_outputs) { RULE_CASES(cuda_only_and_unchecked_outputs); }
