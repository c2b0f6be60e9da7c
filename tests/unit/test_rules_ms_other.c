/* test_rules_ms_other.c: the other com.microsoft operators (rules_ms_other.c): MoE,
 * QMoE, Rfft, Irfft, ComplexMul(Conj), CDist, ExpandDims, Inverse, MurmurHash3, Unique.
 * Where ONNX Runtime's CPU provider runs an operator, tests/ort/ms_vs_ort.py and
 * tests/ort/ms_layout_vs_ort.py compare the rule with it as well; the CUDA-only operators, the
 * outputs ONNX Runtime's own inference refuses and the models it refuses are checked
 * here alone. One table row per one-node model (tests/support/rule_case.h); the expected
 * shapes are derived by hand from ONNX Runtime's docs/ContribOperators.md (and, for
 * com.microsoft.nchwc, its schemas and kernels) in the rows' comments.
 */
#include <criterion/criterion.h>

#include "rule_case.h"

#define UNKNOWN "FLOAT (rank unknown)"
#define FC "|f1:4,16,8|f2:4,8,16"
#define QFC "|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:4,8,8|s2:4,8"
#define RU "FLOAT (rank unknown)"

/* MoE(input (T, H) or (B, S, H), router_probs (T, E), fc1 (E, F I, H)[, fc1 bias (E, F I)],
 * fc2 (E, H, I)[, fc2 bias (E, H), fc3 (E, I, H), fc3 bias (E, I)]) -> like input; F 2
 * for fused SwiGLU. 4 experts, H 8, I 16. */
static const rule_case moe[] = {
	{"2-D input", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft", .decls = "x:T,8|r:T,4" FC,
	 .attrs = "i:k=2", .expect = {"FLOAT (T, 8)"}},
	{"3-D input with biases", 17, "MoE", "x,r,f1,f1b,f2,f2b", "y", .domain = "com.microsoft",
	 .decls = "x:B,S,8|r:R,4|f1b:4,16|f2b:4,8" FC, .attrs = "i:k=1|s:activation_type=gelu",
	 .expect = {"FLOAT (B, S, 8)"}},
	{"fused SwiGLU", 17, "MoE", "x,r,f1,f1b,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:4,32,8|f1b:4,32|f2:4,8,16", .attrs = "s:activation_type=swiglu|i:swiglu_fusion=1",
	 .expect = {"FLOAT (T, 8)"}},
	{"unfused SwiGLU with fc3", 17, "MoE", "x,r,f1,,f2,,f3,f3b", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f3:4,16,8|f3b:4,16" FC, .attrs = "s:activation_type=swiglu",
	 .expect = {"FLOAT (T, 8)"}},
	{"fc2 of hidden 6", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:4,16,8|f2:4,6,16", .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"3 experts in fc1", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:3,16,8|f2:4,8,16", .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"router rows against tokens", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:2,3,8|r:5,4" FC, .expect = {UNKNOWN}, .diag = "shape-error"},
	{"fc1 of two inner sizes without SwiGLU", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:4,32,8|f2:4,8,16", .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"1-D input", 17, "MoE", "x,r,f1,,f2", "y", .domain = "com.microsoft", .decls = "x:8|r:T,4" FC,
	 .expect = {UNKNOWN}, .diag = "shape-error"},
};

Test(rules_ms_other, moe) { RULE_CASES(moe); }

/* QMoE(input, router_probs, fc1 (E, F I, H / pack), fc1_scales, fc1 bias, fc2 (E, H,
 * I / pack), fc2_scales, fc2 bias, fc3..., zero points, router_weights (T, E), ...) ->
 * like input; 4-bit weights (pack 2), 4 experts, H 8, I 16. */
static const rule_case qmoe[] = {
	{"2-D input", 17, "QMoE", "x,r,f1,s1,,f2,s2", "y", .domain = "com.microsoft", .decls = "x:T,8|r:T,4" QFC,
	 .attrs = "i:k=2", .expect = {"FLOAT (T, 8)"}},
	{"3-D input, biases, router_weights", 17, "QMoE", "x,r,f1,s1,f1b,f2,s2,f2b,,,,,,,rw", "y",
	 .domain = "com.microsoft", .decls = "x:B,S,8|r:R,4|f1b:4,16|f2b:4,8|rw:R,4" QFC,
	 .attrs = "i:k=2|i:weights_prepacked=0", .expect = {"FLOAT (B, S, 8)"}},
	{"prepacked weights keep the provider's layout", 17, "QMoE", "x,r,f1,s1,,f2,s2", "y",
	 .domain = "com.microsoft", .decls = "x:T,8|r:T,4|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:9,1,1|s2:4,8",
	 .expect = {"FLOAT (T, 8)"}},
	{"raw fc2 of hidden 6", 17, "QMoE", "x,r,f1,s1,,f2,s2", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f1:UINT8:4,16,4|s1:4,16|f2:UINT8:4,6,8|s2:4,6", .attrs = "i:weights_prepacked=0",
	 .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"router_weights of 3 experts", 17, "QMoE", "x,r,f1,s1,,f2,s2,,,,,,,,rw", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|rw:T,3" QFC, .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
	{"fc2 bias of hidden 6", 17, "QMoE", "x,r,f1,s1,,f2,s2,f2b", "y", .domain = "com.microsoft",
	 .decls = "x:T,8|r:T,4|f2b:4,6" QFC, .expect = {"FLOAT (T, 8)"}, .diag = "shape-error"},
};

Test(rules_ms_other, qmoe) { RULE_CASES(qmoe); }

static const rule_case fft_complex_cases[] = {
	/* Rfft: (..., n) -> (..., n / 2 + 1, 2) */
	{"Rfft", 17, "Rfft", "x", "y", .domain = "com.microsoft", .decls = "x:2,8", .expect = {"FLOAT (2, 5, 2)"}},
	{"Rfft, symbolic", 17, "Rfft", "x", "y", .domain = "com.microsoft", .decls = "x:N,L",
	 .expect = {"FLOAT (N, floor(L/2) + 1, 2)"}},
	{"Rfft, two signal axes", 17, "Rfft", "x", "y", .domain = "com.microsoft", .decls = "x:3,4,6",
	 .attrs = "i:signal_ndim=2", .expect = {"FLOAT (3, 4, 4, 2)"}},
	/* not one-sided: (..., n, 2) */
	{"Rfft, onesided 0", 17, "Rfft", "x", "y", .domain = "com.microsoft", .decls = "x:2,8",
	 .attrs = "i:onesided=0", .expect = {"FLOAT (2, 8, 2)"}},
	{"Rfft, fewer axes than signal_ndim", 17, "Rfft", "x", "y", .domain = "com.microsoft", .decls = "x:4,6",
	 .attrs = "i:signal_ndim=3", .expect = {RU}, .diag = "shape-error"},
	{"Rfft, signal_ndim 0", 17, "Rfft", "x", "y", .domain = "com.microsoft", .decls = "x:4,6",
	 .attrs = "i:signal_ndim=0", .expect = {RU}, .diag = "attribute-error"},
	/* Irfft: (..., m, 2) -> (..., 2m - 1) */
	{"Irfft", 17, "Irfft", "x", "y", .domain = "com.microsoft", .decls = "x:2,5,2", .attrs = "i:signal_ndim=1",
	 .expect = {"FLOAT (2, 9)"}},
	{"Irfft, symbolic", 17, "Irfft", "x", "y", .domain = "com.microsoft", .decls = "x:N,M,2",
	 .attrs = "i:signal_ndim=1", .expect = {"FLOAT (N, 2*M - 1)"}},
	{"Irfft, onesided 0", 17, "Irfft", "x", "y", .domain = "com.microsoft", .decls = "x:2,5,2",
	 .attrs = "i:signal_ndim=1|i:onesided=0", .expect = {"FLOAT (2, 5)"}},
	{"Irfft, last dim not 2", 17, "Irfft", "x", "y", .domain = "com.microsoft", .decls = "x:2,5,3",
	 .attrs = "i:signal_ndim=1", .expect = {RU}, .diag = "shape-error"},
	{"Irfft, no signal_ndim", 17, "Irfft", "x", "y", .domain = "com.microsoft", .decls = "x:2,5,2",
	 .expect = {RU}, .diag = "attribute-error"},
	{"Irfft, no signal axis", 17, "Irfft", "x", "y", .domain = "com.microsoft", .decls = "x:2",
	 .attrs = "i:signal_ndim=1", .expect = {RU}, .diag = "shape-error"},
	/* ComplexMul, ComplexMulConj: the broadcast, last dims 2 */
	{"ComplexMul", 17, "ComplexMul", "a,b", "y", .domain = "com.microsoft", .decls = "a:3,4,2|b:4,2",
	 .expect = {"FLOAT (3, 4, 2)"}},
	{"ComplexMulConj, symbolic", 17, "ComplexMulConj", "a,b", "y", .domain = "com.microsoft",
	 .decls = "a:N,1,2|b:5,2", .expect = {"FLOAT (N, 5, 2)"}},
	{"ComplexMul, last dim not 2", 17, "ComplexMul", "a,b", "y", .domain = "com.microsoft",
	 .decls = "a:3,4|b:3,4", .expect = {RU}, .diag = "shape-error"},
	{"ComplexMulConj, scalar", 17, "ComplexMulConj", "a,b", "y", .domain = "com.microsoft", .decls = "a:|b:3,2",
	 .expect = {RU}, .diag = "shape-error"},
	{"ComplexMul, no broadcast", 17, "ComplexMul", "a,b", "y", .domain = "com.microsoft", .decls = "a:3,2|b:4,2",
	 .expect = {RU}, .diag = "broadcast-mismatch"},
};

Test(rules_ms_other, fft_complex) { RULE_CASES(fft_complex_cases); }

static const rule_case hash_cases[] = {
	/* MurmurHash3: Y like X, UINT32 when positive is 1 (the default), else INT32 */
	{"MurmurHash3", 17, "MurmurHash3", "x", "y", .domain = "com.microsoft", .decls = "x:INT32:2,3",
	 .expect = {"UINT32 (2, 3)"}},
	{"MurmurHash3, positive 0", 17, "MurmurHash3", "x", "y", .domain = "com.microsoft", .decls = "x:INT64:N,4",
	 .attrs = "i:positive=0|i:seed=42", .expect = {"INT32 (N, 4)"}},
	{"MurmurHash3, strings", 17, "MurmurHash3", "x", "y", .domain = "com.microsoft", .decls = "x:STRING:3",
	 .expect = {"UINT32 (3)"}},
	{"MurmurHash3, bool input", 17, "MurmurHash3", "x", "y", .domain = "com.microsoft", .decls = "x:BOOL:2",
	 .expect = {"UINT32 (rank unknown)"}, .diag = "type-error"},
};

Test(rules_ms_other, murmur_hash) { RULE_CASES(hash_cases); }

static const rule_case refused_models[] = {
	/* ExpandDims: axis in [-r - 1, r] */
	{"ExpandDims, axis r", 17, "ExpandDims", "x,axis", "y", .domain = "com.microsoft", .decls = "x:2,3",
	 .ints = "axis::2", .expect = {"FLOAT (2, 3, 1)"}},
	{"ExpandDims, axis -r - 1", 17, "ExpandDims", "x,axis", "y", .domain = "com.microsoft", .decls = "x:2,3",
	 .ints = "axis::-3", .expect = {"FLOAT (1, 2, 3)"}},
	{"ExpandDims, axis out of range", 17, "ExpandDims", "x,axis", "y", .domain = "com.microsoft",
	 .decls = "x:2,3", .ints = "axis::3", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* CDist: A (N, K), B (M, K) */
	{"CDist, feature counts differ", 17, "CDist", "a,b", "y", .domain = "com.microsoft", .decls = "a:4,3|b:5,2",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"CDist, 3-D", 17, "CDist", "a,b", "y", .domain = "com.microsoft", .decls = "a:2,4,3|b:5,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* Unique takes a 1-D x */
	{"Unique, 2-D", 17, "Unique", "x", "y", .domain = "com.microsoft", .decls = "x:2,3",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* Inverse: (..., M, M) -> the same */
	{"Inverse, symbolic", 17, "Inverse", "x", "y", .domain = "com.microsoft", .decls = "x:N,4,4",
	 .expect = {"FLOAT (N, 4, 4)"}},
};

Test(rules_ms_other, refused_models) { RULE_CASES(refused_models); }
