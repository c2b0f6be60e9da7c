/* rules_ms_attn.h: ONNX Runtime's com.microsoft attention operators (rules_ms_attn.c). */
#ifndef OSH_PASSES_RULES_MS_ATTN_H
#define OSH_PASSES_RULES_MS_ATTN_H

#include "passes/rule_api/rule_api.h"

/* Helpers the com.microsoft attention rules share (rules_ms3.c uses them too). */
/* The attribute `name` as a positive head count; reported and 0 when not. */
int64_t ms_heads_attr(infer_ctx *c, const char *name);
/* Input i's rank when known, -1 when not or omitted. */
int32_t ms_rank_of(infer_ctx *c, int32_t i);
/* Dim k of input i, unknown when its rank is not known. */
dim ms_dim_of(infer_ctx *c, int32_t i, int32_t k);
/* Input i, when listed and of known rank, must have one of ranks r1, r2, r3 (-1: none):
 * reported (naming `what` it must be) and false when it has another. */
bool ms_rank_in(infer_ctx *c, int32_t i, int32_t r1, int32_t r2, int32_t r3, const char *what);
/* a / n for a hidden size that must split into n heads: reported and false when a
 * known size does not. */
bool ms_per_head(infer_ctx *c, dim a, int64_t n, dim *out);

void infer_ms_multi_head_attention(infer_ctx *c);
void infer_ms_group_query_attention(infer_ctx *c);
void infer_ms_decoder_masked_mha(infer_ctx *c);
void infer_ms_qattention(infer_ctx *c);
void infer_ms_longformer_attention(infer_ctx *c);

#endif
