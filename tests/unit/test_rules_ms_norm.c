/* test_rules_ms_norm.c: the com.microsoft normalisations and embeddings
 * (rules_ms_norm.c): GroupNorm, SkipGroupNorm, WordConvEmbedding, TorchEmbedding. Where
 * ONNX Runtime's CPU provider runs an operator, tests/ort/ms_vs_ort.py and
 * tests/ort/ms_layout_vs_ort.py compare the rule with it as well; the CUDA-only operators, the
 * outputs ONNX Runtime's own inference refuses and the models it refuses are checked
 * here alone. One table row per one-node model (tests/support/rule_case.h); the expected
 * shapes are derived by hand from ONNX Runtime's docs/ContribOperators.md (and, for
 * com.microsoft.nchwc, its schemas and kernels) in the rows' comments.
 */
#include <criterion/criterion.h>

#include "rule_case.h"

#define RU "FLOAT (rank unknown)"
#define WCE_DECLS "w:5,1,2,3|b:5|c:10,3"

static const rule_case cuda_only_operators[] = {
	/* GroupNorm: X (N, H, W, C) channels last, gamma (C), beta (C) -> Y like X */
	{"GroupNorm", 17, "GroupNorm", "x,g,b", "y", .domain = "com.microsoft", .decls = "x:2,8,8,32|g:32|b:32",
	 .expect = {"FLOAT (2, 8, 8, 32)"}},
	{"GroupNorm, symbolic", 17, "GroupNorm", "x,g,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,H,W,32|g:32|b:32", .expect = {"FLOAT (N, H, W, 32)"}},
	/* SkipGroupNorm: X, gamma, beta, skip, bias (optional) -> Y and S like X */
	{"SkipGroupNorm, both outputs", 17, "SkipGroupNorm", "x,g,b,s,bi", "y,s2", .domain = "com.microsoft",
	 .decls = "x:2,8,8,32|g:32|b:32|s:2,8,8,32|bi:32", .expect = {"FLOAT (2, 8, 8, 32)", "FLOAT (2, 8, 8, 32)"}},
	{"SkipGroupNorm, no bias, no S", 17, "SkipGroupNorm", "x,g,b,s", "y", .domain = "com.microsoft",
	 .decls = "x:N,H,W,32|g:32|b:32|s:N,H,W,32", .expect = {"FLOAT (N, H, W, 32)"}},
};

Test(rules_ms_norm, cuda_only_operators) { RULE_CASES(cuda_only_operators); }

static const rule_case embedding_cases[] = {
	/* WordConvEmbedding: Sequence (S, W), W (M, 1, window, E), C (V, E) -> (S, M) */
	{"WordConvEmbedding", 17, "WordConvEmbedding", "s,w,b,c", "y", .domain = "com.microsoft",
	 .decls = "s:INT32:4,6|" WCE_DECLS, .expect = {"FLOAT (4, 5)"}},
	{"WordConvEmbedding, symbolic", 17, "WordConvEmbedding", "s,w,b,c", "y", .domain = "com.microsoft",
	 .decls = "s:INT32:S,6|" WCE_DECLS, .expect = {"FLOAT (S, 5)"}},
	/* the kernel requires embedding_size to be W's dim 0 */
	{"WordConvEmbedding, embedding_size gives M", 17, "WordConvEmbedding", "s,w,b,c", "y",
	 .domain = "com.microsoft", .decls = "s:INT32:4,6|w:*|b:*|c:10,3",
	 .attrs = "i:embedding_size=7|i:conv_window_size=2|i:char_embedding_size=3", .expect = {"FLOAT (4, 7)"}},
	{"WordConvEmbedding, embedding_size differs", 17, "WordConvEmbedding", "s,w,b,c", "y",
	 .domain = "com.microsoft", .decls = "s:INT32:4,6|" WCE_DECLS, .attrs = "i:embedding_size=6", .expect = {RU},
	 .diag = "shape-error"},
	{"WordConvEmbedding, char embedding size differs", 17, "WordConvEmbedding", "s,w,b,c", "y",
	 .domain = "com.microsoft", .decls = "s:INT32:4,6|w:5,1,2,3|b:5|c:10,4", .expect = {RU},
	 .diag = "shape-error"},
	{"WordConvEmbedding, 3-D sequence", 17, "WordConvEmbedding", "s,w,b,c", "y", .domain = "com.microsoft",
	 .decls = "s:INT32:2,4,6|" WCE_DECLS, .expect = {RU}, .diag = "shape-error"},
	/* TorchEmbedding: weight (N, M), indices (*) -> (*, M) */
	{"TorchEmbedding", 17, "TorchEmbedding", "w,i", "y", .domain = "com.microsoft", .decls = "w:10,4|i:INT64:2,3",
	 .expect = {"FLOAT (2, 3, 4)"}},
	{"TorchEmbedding, padding_idx", 17, "TorchEmbedding", "w,i,p", "y", .domain = "com.microsoft",
	 .decls = "w:V,D|i:INT64:N|p:INT64:", .expect = {"FLOAT (N, D)"}},
	{"TorchEmbedding, scale_grad_by_freq without padding_idx", 17, "TorchEmbedding", "w,i,,g", "y",
	 .domain = "com.microsoft", .decls = "w:10,4|i:INT64:|g:BOOL:", .expect = {"FLOAT (4)"}},
	{"TorchEmbedding, 1-D weight", 17, "TorchEmbedding", "w,i", "y", .domain = "com.microsoft",
	 .decls = "w:10|i:INT64:2", .expect = {RU}, .diag = "shape-error"},
};

Test(rules_ms_norm, embeddings) { RULE_CASES(embedding_cases); }
