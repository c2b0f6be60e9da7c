/* rules_ms3.h: more of ONNX Runtime's com.microsoft operators (rules_ms3.c), for
 * ops_ms3.def: the packed (padding-free) attention family, SparseAttention, the T5 and
 * gated relative position biases, and the mixtures of experts. */
#ifndef OSH_PASSES_RULES_MS3_H
#define OSH_PASSES_RULES_MS3_H

#include "passes/rule_api/rule_api.h"

/* PackedAttention(input (T, In), weights (In, W), bias (W), token_offset, cum_seq_len
 * [, attention_bias]): output (T, v_hidden), v_hidden from qkv_hidden_sizes or W / 3. */
void infer_ms_packed_attention(infer_ctx *c);
/* PackedMultiHeadAttention(query (T, D) or (T, N, 3, H), key, value (T, Dv), ...):
 * output (T, Dv), (T, N H) when packed. */
void infer_ms_packed_mha(infer_ctx *c);
/* SparseAttention: output (B, S, N H); present_key/value the past's shape. */
void infer_ms_sparse_attention(infer_ctx *c);
/* RelativePositionBias(bias_table (buckets, N), query_length, key_length):
 * (1, N, query_length, key_length). */
void infer_ms_relative_position_bias(infer_ctx *c);
/* GatedRelativePositionBias(query_layer, ..., rel_pos, ..., token_offset): (B, N, S, S). */
void infer_ms_gated_relative_position_bias(infer_ctx *c);
/* RemovePadding(input (B, S, H), sequence_token_count (B)): output (tokens, H),
 * token_offset (B, S), cumulated_seq_len (B + 1), max_seq_len (1). */
void infer_ms_remove_padding(infer_ctx *c);
/* RestorePadding(input (tokens, H), token_offset (B, S)): (B, S, H). */
void infer_ms_restore_padding(infer_ctx *c);
/* MoE and QMoE(input, router_probs, experts...): output like input. */
void infer_ms_moe(infer_ctx *c);
void infer_ms_qmoe(infer_ctx *c);

#endif
