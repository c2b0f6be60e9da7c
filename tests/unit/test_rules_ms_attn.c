/* test_rules_ms_attn.c: the rules of rules_ms_attn.c that tests/ort/ms_vs_ort.py cannot
 * check: DecoderMaskedMultiHeadAttention and LongformerAttention (ONNX Runtime runs them
 * on CUDA only) and MultiHeadAttention's qk output (ONNX Runtime's own type inference
 * refuses it). One table row per one-node model; the expected shapes are derived by hand
 * from ONNX Runtime's docs/ContribOperators.md in the rows' comments.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_rules_nn_case.h"

typedef struct attn_case {
	const char *what;
	const char *op;
	const char *inputs;  /* the node's inputs, "" entries for omitted ones */
	const char *decls;   /* "q:2,1,8|k:2,1,8" graph inputs, FLOAT */
	const char *outputs; /* the node's outputs, all checked */
	int64_t heads;       /* num_heads */
	int64_t share;       /* past_present_share_buffer */
	const char *expect[4];
	const char *diag; /* a diagnostic code the node must raise, NULL: no shape-error */
} attn_case;

static void attn_check(const attn_case *k)
{
	mb *b = nn_ms_model(k->what, k->decls);
	mb_node(b, k->op, k->inputs, k->outputs);
	mb_node_domain(b, "com.microsoft");
	mb_attr_i(b, "num_heads", k->heads);
	if (k->share)
		mb_attr_i(b, "past_present_share_buffer", 1);
	char outs[128];
	strcpy(outs, k->outputs);
	const char *names[4] = {NULL, NULL, NULL, NULL};
	int i = 0;
	for (char *p = strtok(outs, ","); p && i < 4; p = strtok(NULL, ","), i++) {
		mb_output(b, p, 0, NULL);
		names[i] = p;
	}
	osh_model *m = mb_infer(b);
	cr_assert(m, "%s: the model did not load", k->what);
	for (i = 0; i < 4 && names[i]; i++)
		cr_expect_str_eq(mb_type(m, names[i]), k->expect[i], "%s (%s): output %d", k->what, k->op, i);
	nn_expect_diag(m, k->what, k->op, k->diag);
	osh_model_free(m);
}

static const attn_case cases[] = {
	/* DecoderMaskedMultiHeadAttention, 2 heads of 4: query (B, 1, 8), key/value (B, 1, 8),
	 * past (B, N, P, H) -> output (B, 1, 8), present (B, N, P + 1, H), qk (B, N, 1, P + 1) */
	{"DMMHA, self attention with past", "DecoderMaskedMultiHeadAttention", "q,k,v,,,pk,pv",
	 "q:2,1,8|k:2,1,8|v:2,1,8|pk:2,2,5,4|pv:2,2,5,4", "y,pko,pvo,qk", 2, 0,
	 {"FLOAT (2, 1, 8)", "FLOAT (2, 2, 6, 4)", "FLOAT (2, 2, 6, 4)", "? (2, 2, 1, 6)"}, NULL},
	/* shared buffer: present is the past's (B, N, max, H); qk's total is run-time data */
	{"DMMHA, shared buffer", "DecoderMaskedMultiHeadAttention", "q,k,v,,,pk,pv,psl",
	 "q:B,1,8|k:B,1,8|v:B,1,8|pk:B,2,16,4|pv:B,2,16,4|psl:", "y,pko,pvo,qk", 2, 1,
	 {"FLOAT (B, 1, 8)", "FLOAT (B, 2, 16, 4)", "FLOAT (B, 2, 16, 4)", "? (B, 2, 1, ?)"}, NULL},
	/* packed QKV (B, 1, 2 * 8 + 8): the head size from the past */
	{"DMMHA, packed QKV", "DecoderMaskedMultiHeadAttention", "q,,,,,pk,pv", "q:2,1,24|pk:2,2,3,4|pv:2,2,3,4",
	 "y,pko,pvo", 2, 0, {"FLOAT (2, 1, 8)", "FLOAT (2, 2, 4, 4)", "FLOAT (2, 2, 4, 4)"}, NULL},
	/* cross attention: key/value are BNSH (B, N, L, H); qk (B, N, 1, L) */
	{"DMMHA, cross attention", "DecoderMaskedMultiHeadAttention", "q,k,v", "q:2,1,8|k:2,2,7,4|v:2,2,7,6",
	 "y,,,qk", 2, 0, {"FLOAT (2, 1, 12)", "? (2, 2, 1, 7)"}, NULL},
	{"DMMHA, query of 5 heads' width", "DecoderMaskedMultiHeadAttention", "q,k,v", "q:2,1,10|k:2,1,10|v:2,1,10",
	 "y", 4, 0, {"FLOAT (rank unknown)"}, "shape-error"},
	/* LongformerAttention: output like input (B, S, D) */
	{"LongformerAttention", "LongformerAttention", "x,w,b,m,gw,gb,g",
	 "x:2,16,8|w:8,24|b:24|m:2,16|gw:8,24|gb:24|g:2,16", "y", 2, 0, {"FLOAT (2, 16, 8)"}, NULL},
	{"LongformerAttention, symbolic", "LongformerAttention", "x,w,b,m,gw,gb,g",
	 "x:B,S,8|w:8,24|b:24|m:B,S|gw:8,24|gb:24|g:B,S", "y", 2, 0, {"FLOAT (B, S, 8)"}, NULL},
	{"LongformerAttention, 2-D input", "LongformerAttention", "x,w,b,m,gw,gb,g",
	 "x:16,8|w:8,24|b:24|m:2,16|gw:8,24|gb:24|g:2,16", "y", 2, 0, {"FLOAT (rank unknown)"}, "shape-error"},
	/* MultiHeadAttention's qk: (B, N, S, P + L), of a type independent of the inputs' */
	{"MHA qk", "MultiHeadAttention", "q,k,v", "q:2,3,8|k:2,4,8|v:2,4,8", "y,pk,pv,qk", 2, 0,
	 {"FLOAT (2, 3, 8)", "FLOAT (2, 2, 4, 4)", "FLOAT (2, 2, 4, 4)", "? (2, 2, 3, 4)"}, NULL},
	{"MHA qk with past", "MultiHeadAttention", "q,k,v,,,,pk,pv", "q:B,3,8|k:B,3,8|v:B,3,8|pk:B,2,5,4|pv:B,2,5,4",
	 "y,,,qk", 2, 0, {"FLOAT (B, 3, 8)", "? (B, 2, 3, 8)"}, NULL},
	/* packed QKV (B, S, N, 3, H) */
	{"MHA packed QKV", "MultiHeadAttention", "q", "q:2,3,2,3,4", "y,pk", 2, 0,
	 {"FLOAT (2, 3, 8)", "FLOAT (2, 2, 3, 4)"}, NULL},
	{"MHA hidden not a multiple of heads", "MultiHeadAttention", "q,k,v", "q:2,3,9|k:2,4,9|v:2,4,9", "y", 2, 0,
	 {"FLOAT (rank unknown)"}, "shape-error"},
};

Test(rules_ms_attn, cuda_only_and_unchecked_outputs)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		attn_check(&cases[i]);
}
