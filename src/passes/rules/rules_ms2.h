/* rules_ms2.h: rule functions for more of ONNX Runtime's com.microsoft operators
 * (rules_ms2.c), for ops_ms2.def. Rows that reuse a rule of another family
 * (GemmFastGelu and DynamicQuantizeMatMul: MatMul's; TransposeMatMul: FusedMatMul's;
 * SimplifiedLayerNormalization: LayerNormalization's) need no function here. */
#ifndef OSH_PASSES_RULES_MS2_H
#define OSH_PASSES_RULES_MS2_H

#include "passes/rule_api/rule_api.h"

/* Output `o` takes input `i`'s shape, with element type elem (the other com.microsoft
 * rule files use it too). */
void ms_like_input(infer_ctx *c, int32_t o, int32_t i, int32_t elem);
/* The Q, K and V hidden sizes of merged QKV weights (input wi, (In, W)): the attribute
 * qkv_hidden_sizes, else a third of W each (unknown when W is). False, reported, when
 * the attribute is malformed, W is not three sizes or Q's or K's do not split into
 * `heads` heads. Attention and PackedAttention share it. */
bool ms_qkv_sizes(infer_ctx *c, int32_t wi, int64_t heads, dim sizes[3]);
/* Input i, when listed and of known rank, must have rank r: false, reported as "'x'
 * (shape) must be WHAT", if not. */
bool ms_rank_is(infer_ctx *c, int32_t i, int32_t r, const char *what);
/* Gelu, BiasSoftmax, RotaryEmbedding, GroupNorm: output 0 has input 0's shape and type. */
void infer_ms_same_shape(infer_ctx *c);
/* BiasAdd(X (N, S, C), bias (C), skip (N, S, C)): Y like X. */
void infer_ms_bias_add(infer_ctx *c);
/* BiasSplitGelu(X (N, S, D), bias (D)): Y (N, S, D / 2). */
void infer_ms_bias_split_gelu(infer_ctx *c);
/* GemmaRotaryEmbedding(emb, q, q_rot, k, k_rot): output1 like q, output2 like k. */
void infer_ms_gemma_rotary(infer_ctx *c);
/* SkipGroupNorm(X, gamma, beta, skip[, bias]): Y and S like X. */
void infer_ms_skip_group_norm(infer_ctx *c);
/* EmbedLayerNormalization: output (B, S, H), mask_index (B) int32, embedding_sum
 * (B, S, H). */
void infer_ms_embed_layer_norm(infer_ctx *c);
/* Attention (com.microsoft): output (B, S, v_hidden), present (2, B, N, P + S, head). */
void infer_ms_attention(infer_ctx *c);
/* The K and N attributes of a product with a quantised weight (MatMulNBits,
 * MatMulBnb4): false, reported, unless both are positive. */
bool ms_kn_attrs(infer_ctx *c, int64_t *k, int64_t *n);
/* A (..., in_size) times a weight the attributes size: Y (..., out_size), of A's
 * type; A's last dim must be in_size. */
void ms_matmul_sized(infer_ctx *c, int64_t in_size, int64_t out_size);
/* MatMulNBits(A (..., K), B, scales, ...): Y (..., N), N and K attributes. */
void infer_ms_matmul_nbits(infer_ctx *c);
/* MatMulIntegerToFloat(A, B, a_scale, b_scale, ...): MatMul's shape, a_scale's type. */
void infer_ms_matmul_integer_to_float(infer_ctx *c);

#endif
