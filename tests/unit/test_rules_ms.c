/* test_rules_ms.c: the com.microsoft rules of rules_ms2.c whose operators ONNX Runtime's
 * CPU provider has no kernel for (BiasAdd, BiasSoftmax, BiasSplitGelu, GemmFastGelu,
 * GroupNorm, SkipGroupNorm, GemmaRotaryEmbedding: CUDA or ROCm only), so that
 * tests/ort/ms_vs_ort.py cannot check them. One table row per one-node model; the
 * expected shapes are derived by hand from ONNX Runtime's docs/ContribOperators.md
 * in the rows' comments.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rule_case.h"

static const rule_case cases[] = {
	/* BiasAdd: X (N, S, C) + bias (C) + skip (N, S, C) -> Y (N, S, C) */
	{"BiasAdd", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft", .decls = "x:2,4,8|b:8|s:2,4,8",
	 .expect = {"FLOAT (2, 4, 8)"}},
	{"BiasAdd, skip gives the batch", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft",
	 .decls = "x:N,4,8|b:8|s:2,4,8", .expect = {"FLOAT (2, 4, 8)"}},
	{"BiasAdd, symbolic", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft", .decls = "x:N,S,8|b:8|s:N,S,8",
	 .expect = {"FLOAT (N, S, 8)"}},
	{"BiasAdd, bias of another size", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft",
	 .decls = "x:2,4,8|b:6|s:2,4,8", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"BiasAdd, 2-D input", 17, "BiasAdd", "x,b,s", "y", .domain = "com.microsoft", .decls = "x:4,8|b:8|s:4,8",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* BiasSoftmax: output has data's shape (bias broadcast into it) */
	{"BiasSoftmax", 17, "BiasSoftmax", "x,b", "y", .domain = "com.microsoft", .decls = "x:2,3,4,5|b:2,1,4,5",
	 .expect = {"FLOAT (2, 3, 4, 5)"}},
	{"BiasSoftmax, symbolic", 17, "BiasSoftmax", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,3,S,S|b:N,1,S,S", .expect = {"FLOAT (N, 3, S, S)"}},
	/* BiasSplitGelu: X (N, S, D), bias (D) -> Y (N, S, D / 2) */
	{"BiasSplitGelu", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft", .decls = "x:2,64,2560|b:2560",
	 .expect = {"FLOAT (2, 64, 1280)"}},
	{"BiasSplitGelu, symbolic", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,S,640|b:640", .expect = {"FLOAT (N, S, 320)"}},
	{"BiasSplitGelu, width from bias", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,S,D|b:640", .expect = {"FLOAT (N, S, 320)"}},
	{"BiasSplitGelu, odd width", 17, "BiasSplitGelu", "x,b", "y", .domain = "com.microsoft",
	 .decls = "x:2,4,7|b:7", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* GemmFastGelu: MatMul(X, W) + bias (optional): X (M, K), W (K, N) -> Y (M, N) */
	{"GemmFastGelu", 17, "GemmFastGelu", "x,w,b", "y", .domain = "com.microsoft", .decls = "x:2,3,4|w:4,5|b:5",
	 .expect = {"FLOAT (2, 3, 5)"}},
	{"GemmFastGelu, no bias", 17, "GemmFastGelu", "x,w", "y", .domain = "com.microsoft", .decls = "x:3,4|w:4,6",
	 .expect = {"FLOAT (3, 6)"}},
	{"GemmFastGelu, symbolic", 17, "GemmFastGelu", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:N,S,4|w:4,6", .expect = {"FLOAT (N, S, 6)"}},
	{"GemmFastGelu, inner dims differ", 17, "GemmFastGelu", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:3,4|w:5,6", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
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
	/* GemmaRotaryEmbedding: emb (B, S, dim), q/q_rot (B, N, S, H), k/k_rot (B, N, S, H)
	 * -> output1 like q, output2 like k */
	{"GemmaRotaryEmbedding", 17, "GemmaRotaryEmbedding", "e,q,qr,k,kr", "o1,o2", .domain = "com.microsoft",
	 .decls = "e:2,3,16|q:2,8,3,16|qr:2,8,3,16|k:2,4,3,16|kr:2,4,3,16",
	 .expect = {"FLOAT (2, 8, 3, 16)", "FLOAT (2, 4, 3, 16)"}},
	{"GemmaRotaryEmbedding, symbolic", 17, "GemmaRotaryEmbedding", "e,q,qr,k,kr", "o1,o2",
	 .domain = "com.microsoft", .decls = "e:B,S,16|q:B,8,S,16|qr:B,8,S,16|k:B,8,S,16|kr:B,8,S,16",
	 .expect = {"FLOAT (B, 8, S, 16)", "FLOAT (B, 8, S, 16)"}},
};

Test(rules_ms, cuda_only_operators)
{
	RULE_CASES(cases);
}
