/* ms_inputs.h: what the com.microsoft rule files (rules_ms_*.c) read off their inputs
 * and attributes alike, defined in ms_inputs.c. */
#ifndef OSH_PASSES_RULES_MS_INPUTS_H
#define OSH_PASSES_RULES_MS_INPUTS_H

#include "passes/rule_api/rule_api.h"

/* Output `o` takes input `i`'s shape, with element type elem. */
void ms_like_input(infer_ctx *c, int32_t o, int32_t i, int32_t elem);

/* The attribute `name` as a positive head count; reported and 0 when not. */
int64_t ms_heads_attr(infer_ctx *c, const char *name);

/* Input i's rank when known, -1 when not or omitted. */
int32_t ms_rank_of(infer_ctx *c, int32_t i);

/* Dim k of input i, unknown when its rank is not known. */
dim ms_dim_of(infer_ctx *c, int32_t i, int32_t k);

/* Input i, when listed and of known rank, must have one of ranks r1, r2, r3 (-1: none):
 * reported (naming `what` it must be) and false when it has another. */
bool ms_rank_in(infer_ctx *c, int32_t i, int32_t r1, int32_t r2, int32_t r3, const char *what);

/* Input i, when listed and of known rank, must have rank r: false, reported as "'x'
 * (shape) must be WHAT", if not. */
bool ms_rank_is(infer_ctx *c, int32_t i, int32_t r, const char *what);

/* a / n for a hidden size that must split into n heads: reported and false when a
 * known size does not. */
bool ms_per_head(infer_ctx *c, dim a, int64_t n, dim *out);

/* Merges dim k of input i, when listed, into *acc (a size the operator's inputs
 * share): false, reported, on a conflict. */
bool ms_same_dim(infer_ctx *c, dim *acc, int32_t i, int32_t k, const char *what);

/* Sets output 0's element type to input 0's before anything can refuse the model;
 * returns it. */
int32_t ms_out_type(infer_ctx *c);

#endif
