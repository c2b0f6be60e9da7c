/* rules_ms_attn.h: ONNX Runtime's com.microsoft attention operators (rules_ms_attn.c). */
#ifndef OSH_PASSES_RULES_MS_ATTN_H
#define OSH_PASSES_RULES_MS_ATTN_H

#include "passes/infer.h"

void infer_ms_multi_head_attention(infer_ctx *c);
void infer_ms_group_query_attention(infer_ctx *c);
void infer_ms_decoder_masked_mha(infer_ctx *c);
void infer_ms_qattention(infer_ctx *c);
void infer_ms_longformer_attention(infer_ctx *c);

#endif
