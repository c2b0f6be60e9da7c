/* rules_misc.h: the rule functions of rules_signal.c (window generators,
 * MelWeightMatrix, ImageDecoder), rules_string.c (the string operators and
 * TfIdfVectorizer) and rules_seqmap.c (SequenceMap), for ops_misc.def. */
#ifndef OSH_PASSES_RULES_MISC_H
#define OSH_PASSES_RULES_MISC_H

#include "passes/rule_api/rule_api.h"

/* rules_signal.c */
void infer_window(infer_ctx *c);
void infer_mel_weight_matrix(infer_ctx *c);
void infer_image_decoder(infer_ctx *c);

/* rules_string.c */
void infer_string_normalizer(infer_ctx *c);
void infer_tfidf_vectorizer(infer_ctx *c);
void infer_regex_full_match(infer_ctx *c);
void infer_string_concat(infer_ctx *c);
void infer_string_split(infer_ctx *c);

/* rules_seqmap.c */
void infer_sequence_map(infer_ctx *c);

#endif
