/* rules_ms.h: the rule functions of ONNX Runtime's contrib operators
 * (rules_ms_*.c), for ops_ms_*.def, by family. */
#ifndef OSH_PASSES_RULES_MS_H
#define OSH_PASSES_RULES_MS_H

#include "passes/rule_api/rule_api.h"

/* rules_ms_fused.c */
void infer_ms_fast_gelu(infer_ctx *c);
void infer_ms_bias_gelu(infer_ctx *c);
void infer_ms_quick_gelu(infer_ctx *c);
void infer_ms_fused_matmul(infer_ctx *c);
void infer_ms_fused_gemm(infer_ctx *c);
void infer_ms_same_shape(infer_ctx *c);
void infer_ms_bias_add(infer_ctx *c);
void infer_ms_bias_split_gelu(infer_ctx *c);
void infer_ms_fused_conv(infer_ctx *c);

/* rules_ms_norm.c */
void infer_ms_skip_layer_norm(infer_ctx *c);
void infer_ms_skip_simplified_layer_norm(infer_ctx *c);
void infer_ms_skip_group_norm(infer_ctx *c);
void infer_ms_embed_layer_norm(infer_ctx *c);
void infer_ms_word_conv_embedding(infer_ctx *c);
void infer_ms_torch_embedding(infer_ctx *c);

/* rules_ms_attention.c */
void infer_ms_attention(infer_ctx *c);
void infer_ms_multi_head_attention(infer_ctx *c);
void infer_ms_group_query_attention(infer_ctx *c);
void infer_ms_decoder_masked_mha(infer_ctx *c);
void infer_ms_qattention(infer_ctx *c);
void infer_ms_longformer_attention(infer_ctx *c);
void infer_ms_packed_attention(infer_ctx *c);
void infer_ms_packed_mha(infer_ctx *c);
void infer_ms_sparse_attention(infer_ctx *c);
void infer_ms_relative_position_bias(infer_ctx *c);
void infer_ms_gated_relative_position_bias(infer_ctx *c);
void infer_ms_remove_padding(infer_ctx *c);
void infer_ms_restore_padding(infer_ctx *c);
void infer_ms_gemma_rotary(infer_ctx *c);

/* rules_ms_quant.c */
void infer_ms_qlinear_binary(infer_ctx *c);
void infer_ms_qlinear_where(infer_ctx *c);
void infer_ms_qlinear_concat(infer_ctx *c);
void infer_ms_qlinear_avg_pool(infer_ctx *c);
void infer_ms_qlinear_global_avg_pool(infer_ctx *c);
void infer_ms_qlinear_conv(infer_ctx *c);
void infer_ms_qgemm(infer_ctx *c);
void infer_ms_gather_block_quantized(infer_ctx *c);
void infer_ms_matmul_nbits(infer_ctx *c);
void infer_ms_matmul_integer_to_float(infer_ctx *c);
void infer_ms_matmul_bnb4(infer_ctx *c);

/* rules_ms_layout.c */
void infer_ms_nhwc_conv(infer_ctx *c);
void infer_ms_nhwc_max_pool(infer_ctx *c);
void infer_nchwc_conv(infer_ctx *c);
void infer_nchwc_pool(infer_ctx *c);
void infer_nchwc_global_pool(infer_ctx *c);
void infer_nchwc_reorder_input(infer_ctx *c);
void infer_nchwc_reorder_output(infer_ctx *c);
void infer_nchwc_upsample(infer_ctx *c);

/* rules_ms_other.c */
void infer_ms_rfft(infer_ctx *c);
void infer_ms_irfft(infer_ctx *c);
void infer_ms_complex_mul(infer_ctx *c);
void infer_ms_murmur_hash3(infer_ctx *c);
void infer_ms_moe(infer_ctx *c);
void infer_ms_qmoe(infer_ctx *c);
void infer_ms_range(infer_ctx *c);
void infer_ms_expand_dims(infer_ctx *c);
void infer_ms_cdist(infer_ctx *c);
void infer_ms_unique(infer_ctx *c);

#endif
