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

#include "test_rules_nn_case.h"

typedef struct ms_case {
	const char *what;
	const char *op;
	const char *inputs;  /* the node's inputs, "" entries for omitted ones */
	const char *decls;   /* "x:2,3,4|b:4" graph inputs, FLOAT; "" after ':' a scalar */
	const char *outputs; /* the node's outputs */
	const char *expect;  /* the first output, as mb_type prints it */
	const char *expect2; /* the second output, NULL: not checked */
	const char *diag;    /* a diagnostic code the node must raise, NULL: no shape-error */
} ms_case;

static void ms_check(const ms_case *k)
{
	mb *b = mb_new(17);
	mb_opset(b, "com.microsoft", 1);
	nn_declare(b, k->what, k->decls);
	mb_node(b, k->op, k->inputs, k->outputs);
	mb_node_domain(b, "com.microsoft");
	char outs[128];
	strcpy(outs, k->outputs);
	const char *first = NULL, *second = NULL;
	int i = 0;
	for (char *p = strtok(outs, ","); p; p = strtok(NULL, ","), i++) {
		mb_output(b, p, 0, NULL);
		if (i == 0)
			first = p;
		else if (i == 1)
			second = p;
	}
	osh_model *m = mb_infer(b);
	cr_assert(m, "%s: the model did not load", k->what);
	cr_expect_str_eq(mb_type(m, first), k->expect, "%s (%s)", k->what, k->op);
	if (k->expect2)
		cr_expect_str_eq(mb_type(m, second), k->expect2, "%s (%s): second output", k->what, k->op);
	nn_expect_diag(m, k->what, k->op, k->diag);
	osh_model_free(m);
}

static const ms_case cases[] = {
	/* BiasAdd: X (N, S, C) + bias (C) + skip (N, S, C) -> Y (N, S, C) */
	{"BiasAdd", "BiasAdd", "x,b,s", "x:2,4,8|b:8|s:2,4,8", "y", .expect = "FLOAT (2, 4, 8)"},
	{"BiasAdd, skip gives the batch", "BiasAdd", "x,b,s", "x:N,4,8|b:8|s:2,4,8", "y", .expect = "FLOAT (2, 4, 8)"},
	{"BiasAdd, symbolic", "BiasAdd", "x,b,s", "x:N,S,8|b:8|s:N,S,8", "y", .expect = "FLOAT (N, S, 8)"},
	{"BiasAdd, bias of another size", "BiasAdd", "x,b,s", "x:2,4,8|b:6|s:2,4,8", "y", .expect = "FLOAT (rank unknown)",
	 NULL, "shape-error"},
	{"BiasAdd, 2-D input", "BiasAdd", "x,b,s", "x:4,8|b:8|s:4,8", "y", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	/* BiasSoftmax: output has data's shape (bias broadcast into it) */
	{"BiasSoftmax", "BiasSoftmax", "x,b", "x:2,3,4,5|b:2,1,4,5", "y", .expect = "FLOAT (2, 3, 4, 5)"},
	{"BiasSoftmax, symbolic", "BiasSoftmax", "x,b", "x:N,3,S,S|b:N,1,S,S", "y", .expect = "FLOAT (N, 3, S, S)"},
	/* BiasSplitGelu: X (N, S, D), bias (D) -> Y (N, S, D / 2) */
	{"BiasSplitGelu", "BiasSplitGelu", "x,b", "x:2,64,2560|b:2560", "y", .expect = "FLOAT (2, 64, 1280)"},
	{"BiasSplitGelu, symbolic", "BiasSplitGelu", "x,b", "x:N,S,640|b:640", "y", .expect = "FLOAT (N, S, 320)"},
	{"BiasSplitGelu, width from bias", "BiasSplitGelu", "x,b", "x:N,S,D|b:640", "y", .expect = "FLOAT (N, S, 320)"},
	{"BiasSplitGelu, odd width", "BiasSplitGelu", "x,b", "x:2,4,7|b:7", "y", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	/* GemmFastGelu: MatMul(X, W) + bias (optional): X (M, K), W (K, N) -> Y (M, N) */
	{"GemmFastGelu", "GemmFastGelu", "x,w,b", "x:2,3,4|w:4,5|b:5", "y", .expect = "FLOAT (2, 3, 5)"},
	{"GemmFastGelu, no bias", "GemmFastGelu", "x,w", "x:3,4|w:4,6", "y", .expect = "FLOAT (3, 6)"},
	{"GemmFastGelu, symbolic", "GemmFastGelu", "x,w", "x:N,S,4|w:4,6", "y", .expect = "FLOAT (N, S, 6)"},
	{"GemmFastGelu, inner dims differ", "GemmFastGelu", "x,w", "x:3,4|w:5,6", "y", .expect = "FLOAT (rank unknown)",
	 .diag = "shape-error"},
	/* GroupNorm: X (N, H, W, C) channels last, gamma (C), beta (C) -> Y like X */
	{"GroupNorm", "GroupNorm", "x,g,b", "x:2,8,8,32|g:32|b:32", "y", .expect = "FLOAT (2, 8, 8, 32)"},
	{"GroupNorm, symbolic", "GroupNorm", "x,g,b", "x:N,H,W,32|g:32|b:32", "y", .expect = "FLOAT (N, H, W, 32)"},
	/* SkipGroupNorm: X, gamma, beta, skip, bias (optional) -> Y and S like X */
	{"SkipGroupNorm, both outputs", "SkipGroupNorm", "x,g,b,s,bi", "x:2,8,8,32|g:32|b:32|s:2,8,8,32|bi:32", "y,s2",
	 .expect = "FLOAT (2, 8, 8, 32)", .expect2 = "FLOAT (2, 8, 8, 32)"},
	{"SkipGroupNorm, no bias, no S", "SkipGroupNorm", "x,g,b,s", "x:N,H,W,32|g:32|b:32|s:N,H,W,32", "y",
	 .expect = "FLOAT (N, H, W, 32)"},
	/* GemmaRotaryEmbedding: emb (B, S, dim), q/q_rot (B, N, S, H), k/k_rot (B, N, S, H)
	 * -> output1 like q, output2 like k */
	{"GemmaRotaryEmbedding", "GemmaRotaryEmbedding", "e,q,qr,k,kr",
	 "e:2,3,16|q:2,8,3,16|qr:2,8,3,16|k:2,4,3,16|kr:2,4,3,16", "o1,o2", .expect = "FLOAT (2, 8, 3, 16)",
	 .expect2 = "FLOAT (2, 4, 3, 16)"},
	{"GemmaRotaryEmbedding, symbolic", "GemmaRotaryEmbedding", "e,q,qr,k,kr",
	 "e:B,S,16|q:B,8,S,16|qr:B,8,S,16|k:B,8,S,16|kr:B,8,S,16", "o1,o2", .expect = "FLOAT (B, 8, S, 16)",
	 .expect2 = "FLOAT (B, 8, S, 16)"},
};

Test(rules_ms, cuda_only_operators)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ms_check(&cases[i]);
}
