/* test_rules_ms_attn.c: the rules of rules_ms_attn.c that tests/ort/ms_vs_ort.py cannot
 * check: DecoderMaskedMultiHeadAttention and LongformerAttention (ONNX Runtime runs them
 * on CUDA only) and MultiHeadAttention's qk output (ONNX Runtime's own type inference
 * refuses it). One table row per one-node model; the expected shapes are derived by hand
 * from ONNX Runtime's docs/ContribOperators.md in the rows' comments.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rule_case.h"

static const rule_case cases[] = {
	/* DecoderMaskedMultiHeadAttention, 2 heads of 4: query (B, 1, 8), key/value (B, 1, 8),
	 * past (B, N, P, H) -> output (B, 1, 8), present (B, N, P + 1, H), qk (B, N, 1, P + 1) */
	{"DMMHA, self attention with past", 17, "DecoderMaskedMultiHeadAttention", "q,k,v,,,pk,pv", "y,pko,pvo,qk",
	 .domain = "com.microsoft", .decls = "q:2,1,8|k:2,1,8|v:2,1,8|pk:2,2,5,4|pv:2,2,5,4",
	 .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 1, 8)", "FLOAT (2, 2, 6, 4)", "FLOAT (2, 2, 6, 4)", "? (2, 2, 1, 6)"}},
	/* shared buffer: present is the past's (B, N, max, H); qk's total is run-time data */
	{"DMMHA, shared buffer", 17, "DecoderMaskedMultiHeadAttention", "q,k,v,,,pk,pv,psl", "y,pko,pvo,qk",
	 .domain = "com.microsoft", .decls = "q:B,1,8|k:B,1,8|v:B,1,8|pk:B,2,16,4|pv:B,2,16,4|psl:",
	 .attrs = "i:num_heads=2|i:past_present_share_buffer=1",
	 .expect = {"FLOAT (B, 1, 8)", "FLOAT (B, 2, 16, 4)", "FLOAT (B, 2, 16, 4)", "? (B, 2, 1, ?)"}},
	/* packed QKV (B, 1, 2 * 8 + 8): the head size from the past */
	{"DMMHA, packed QKV", 17, "DecoderMaskedMultiHeadAttention", "q,,,,,pk,pv", "y,pko,pvo",
	 .domain = "com.microsoft", .decls = "q:2,1,24|pk:2,2,3,4|pv:2,2,3,4", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 1, 8)", "FLOAT (2, 2, 4, 4)", "FLOAT (2, 2, 4, 4)"}},
	/* cross attention: key/value are BNSH (B, N, L, H); qk (B, N, 1, L) */
	{"DMMHA, cross attention", 17, "DecoderMaskedMultiHeadAttention", "q,k,v", "y,,,qk",
	 .domain = "com.microsoft", .decls = "q:2,1,8|k:2,2,7,4|v:2,2,7,6", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 1, 12)", NULL, NULL, "? (2, 2, 1, 7)"}},
	{"DMMHA, query of 5 heads' width", 17, "DecoderMaskedMultiHeadAttention", "q,k,v", "y",
	 .domain = "com.microsoft", .decls = "q:2,1,10|k:2,1,10|v:2,1,10", .attrs = "i:num_heads=4",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* LongformerAttention: output like input (B, S, D) */
	{"LongformerAttention", 17, "LongformerAttention", "x,w,b,m,gw,gb,g", "y", .domain = "com.microsoft",
	 .decls = "x:2,16,8|w:8,24|b:24|m:2,16|gw:8,24|gb:24|g:2,16", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 16, 8)"}},
	{"LongformerAttention, symbolic", 17, "LongformerAttention", "x,w,b,m,gw,gb,g", "y",
	 .domain = "com.microsoft", .decls = "x:B,S,8|w:8,24|b:24|m:B,S|gw:8,24|gb:24|g:B,S",
	 .attrs = "i:num_heads=2", .expect = {"FLOAT (B, S, 8)"}},
	{"LongformerAttention, 2-D input", 17, "LongformerAttention", "x,w,b,m,gw,gb,g", "y",
	 .domain = "com.microsoft", .decls = "x:16,8|w:8,24|b:24|m:2,16|gw:8,24|gb:24|g:2,16",
	 .attrs = "i:num_heads=2", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* MultiHeadAttention's qk: (B, N, S, P + L), of a type independent of the inputs' */
	{"MHA qk", 17, "MultiHeadAttention", "q,k,v", "y,pk,pv,qk", .domain = "com.microsoft",
	 .decls = "q:2,3,8|k:2,4,8|v:2,4,8", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (2, 3, 8)", "FLOAT (2, 2, 4, 4)", "FLOAT (2, 2, 4, 4)", "? (2, 2, 3, 4)"}},
	{"MHA qk with past", 17, "MultiHeadAttention", "q,k,v,,,,pk,pv", "y,,,qk", .domain = "com.microsoft",
	 .decls = "q:B,3,8|k:B,3,8|v:B,3,8|pk:B,2,5,4|pv:B,2,5,4", .attrs = "i:num_heads=2",
	 .expect = {"FLOAT (B, 3, 8)", NULL, NULL, "? (B, 2, 3, 8)"}},
	/* packed QKV (B, S, N, 3, H) */
	{"MHA packed QKV", 17, "MultiHeadAttention", "q", "y,pk", .domain = "com.microsoft", .decls = "q:2,3,2,3,4",
	 .attrs = "i:num_heads=2", .expect = {"FLOAT (2, 3, 8)", "FLOAT (2, 2, 3, 4)"}},
	{"MHA hidden not a multiple of heads", 17, "MultiHeadAttention", "q,k,v", "y", .domain = "com.microsoft",
	 .decls = "q:2,3,9|k:2,4,9|v:2,4,9", .attrs = "i:num_heads=2", .expect = {"FLOAT (rank unknown)"},
	 .diag = "shape-error"},
};

Test(rules_ms_attn, cuda_only_and_unchecked_outputs)
{
	RULE_CASES(cases);
}
