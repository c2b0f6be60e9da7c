/* test_rules_ms4.c: the rules of rules_ms4.c, every operator: com.microsoft NhwcConv,
 * NhwcMaxPool, MatMulBnb4, Rfft, Irfft, ComplexMul(Conj), WordConvEmbedding,
 * TorchEmbedding, MurmurHash3 and the com.microsoft.nchwc operators; symbolic dims,
 * optional inputs present and absent, and the models the rules must refuse. The CUDA-only
 * ones (NhwcConv, Rfft, Irfft, ComplexMul, TorchEmbedding) are checked only here;
 * tests/ort/ms4_vs_ort.py compares the others with ONNX Runtime. One table row per
 * one-node model (tests/support/rule_case.h); the expected shapes are derived by hand from
 * ONNX Runtime's docs/ContribOperators.md, its nchwc schemas and kernels, in the rows'
 * comments. Also: how a model using com.microsoft.nchwc loads with and without
 * importing it.
 */
#include <criterion/criterion.h>

#include <criterion/criterion.h>

#include "rule_case.h"

#define RU "FLOAT (rank unknown)"
#define BNB4 "i:K=16|i:N=8|i:block_size=16|i:quant_type=1"

static const rule_case nhwc_cases[] = {
	/* FusedConv: Conv's shape; Z, added into the output, must have it */
	{"FusedConv", 17, "FusedConv", "x,w", "y", .domain = "com.microsoft", .decls = "x:N,2,H,W|w:3,2,3,3",
	 .attrs = "s:activation=Relu", .expect = {"FLOAT (N, 3, H - 2, W - 2)"}},
	{"FusedConv, Z gives the shape", 17, "FusedConv", "x,w,b,z", "y", .domain = "com.microsoft",
	 .decls = "x:*|w:3,2,3,3|b:3|z:N,3,4,4", .expect = {"FLOAT (N, 3, 4, 4)"}},
	{"FusedConv, Z of another shape", 17, "FusedConv", "x,w,b,z", "y", .domain = "com.microsoft",
	 .decls = "x:1,2,5,5|w:3,2,3,3|b:3|z:1,3,4,4", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* NhwcConv: X (N, H, W, C), W (M, C/group, kH, kW) -> (N, H', W', M) */
	{"NhwcConv", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft", .decls = "x:1,5,5,2|w:3,2,3,3",
	 .expect = {"FLOAT (1, 3, 3, 3)"}},
	/* (6 + 2 - 3) / 2 + 1 = 3; C 4 = 2 * group 2; bias of the M 4 feature maps */
	{"NhwcConv, bias, pads, group", 17, "NhwcConv", "x,w,b", "y", .domain = "com.microsoft",
	 .decls = "x:N,6,6,4|w:4,2,3,3|b:4", .attrs = "is:pads=1,1,1,1|is:strides=2,2|i:group=2",
	 .expect = {"FLOAT (N, 3, 3, 4)"}},
	/* stride 1, pads filling the kernel: H and W kept */
	{"NhwcConv, symbolic sizes kept", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:N,H,W,2|w:8,2,3,3", .attrs = "is:pads=1,1,1,1", .expect = {"FLOAT (N, H, W, 8)"}},
	{"NhwcConv, channels differ", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft",
	 .decls = "x:1,5,5,3|w:3,2,3,3", .expect = {RU}, .diag = "shape-error"},
	{"NhwcConv, 2-D input", 17, "NhwcConv", "x,w", "y", .domain = "com.microsoft", .decls = "x:5,2|w:3,2,3",
	 .expect = {RU}, .diag = "shape-error"},
	/* NhwcMaxPool: x (N, H, W, C) -> (N, H', W', C), every window attribute */
	{"NhwcMaxPool", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft", .decls = "x:UINT8:1,6,6,3",
	 .attrs = "is:kernel_shape=2,2|is:strides=2,2", .expect = {"UINT8 (1, 3, 3, 3)"}},
	{"NhwcMaxPool, symbolic kept", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft",
	 .decls = "x:UINT8:N,H,W,C", .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1",
	 .expect = {"UINT8 (N, H, W, C)"}},
	/* ceil((5 - 2) / 2) + 1 = 3 */
	{"NhwcMaxPool, ceil_mode", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft", .decls = "x:UINT8:1,5,5,2",
	 .attrs = "is:kernel_shape=2,2|is:strides=2,2|i:ceil_mode=1", .expect = {"UINT8 (1, 3, 3, 2)"}},
	/* dilated kernel 3: 7 - 3 + 1 = 5 */
	{"NhwcMaxPool, dilations", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft", .decls = "x:INT8:1,7,7,2",
	 .attrs = "is:kernel_shape=2,2|is:dilations=2,2", .expect = {"INT8 (1, 5, 5, 2)"}},
	{"NhwcMaxPool, no kernel_shape", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft",
	 .decls = "x:UINT8:1,6,6,3", .expect = {"UINT8 (rank unknown)"}, .diag = "shape-error"},
	{"NhwcMaxPool, kernel_shape too long", 17, "NhwcMaxPool", "x", "y", .domain = "com.microsoft",
	 .decls = "x:UINT8:1,6,6,3", .attrs = "is:kernel_shape=2,2,2", .expect = {"UINT8 (rank unknown)"},
	 .diag = "shape-error"},
};

static const rule_case matmul_fft_cases[] = {
	/* MatMulBnb4: A (..., K) -> (..., N); B (N * K + 1) / 2 = 64 bytes, absmax 128 / 16 */
	{"MatMulBnb4", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft", .decls = "a:2,3,16|b:UINT8:64|m:8",
	 .attrs = BNB4, .expect = {"FLOAT (2, 3, 8)"}},
	{"MatMulBnb4, symbolic", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:N,S,16|b:UINT8:*|m:*", .attrs = BNB4, .expect = {"FLOAT (N, S, 8)"}},
	/* transB 0: A (..., N) -> (..., K) */
	{"MatMulBnb4, transB 0", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:N,8|b:UINT8:64|m:8", .attrs = BNB4 "|i:transB=0", .expect = {"FLOAT (N, 16)"}},
	{"MatMulBnb4, A's last dim is not K", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,12|b:UINT8:64|m:8", .attrs = BNB4, .expect = {RU}, .diag = "shape-error"},
	{"MatMulBnb4, B of another size", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:60|m:8", .attrs = BNB4, .expect = {RU}, .diag = "shape-error"},
	{"MatMulBnb4, absmax of another size", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:64|m:4", .attrs = BNB4, .expect = {RU}, .diag = "shape-error"},
	{"MatMulBnb4, block_size not a power of 2", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:64|m:8", .attrs = "i:K=16|i:N=8|i:block_size=24|i:quant_type=1", .expect = {RU},
	 .diag = "attribute-error"},
	{"MatMulBnb4, no K", 17, "MatMulBnb4", "a,b,m", "y", .domain = "com.microsoft",
	 .decls = "a:2,16|b:UINT8:64|m:8", .attrs = "i:N=8|i:block_size=16|i:quant_type=1", .expect = {RU},
	 .diag = "attribute-error"},
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

#define WCE_DECLS "w:5,1,2,3|b:5|c:10,3"

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

static const rule_case nchwc_cases[] = {
	/* Conv: ai.onnx Conv's shape; Sum (input 3) is the output's shape */
	{"nchwc Conv", 17, "Conv", "x,w", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,7,7|w:16,16,3,3",
	 .expect = {"FLOAT (1, 16, 5, 5)"}},
	{"nchwc Conv, bias and Sum", 17, "Conv", "x,w,b,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,16,7,7|w:16,16,3,3|b:16|s:N,16,5,5", .expect = {"FLOAT (N, 16, 5, 5)"}},
	{"nchwc Conv, Sum without bias", 17, "Conv", "x,w,,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:2,16,6,6|w:16,16,1,1|s:2,16,6,6", .expect = {"FLOAT (2, 16, 6, 6)"}},
	/* X unknown: Sum gives the sizes the window cannot */
	{"nchwc Conv, Sum's shape", 17, "Conv", "x,w,b,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:*|w:16,16,3,3|b:16|s:2,16,5,5", .expect = {"FLOAT (2, 16, 5, 5)"}},
	{"nchwc Conv, Sum of another shape", 17, "Conv", "x,w,b,s", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,7,7|w:16,16,3,3|b:16|s:1,16,4,4", .expect = {RU}, .diag = "shape-error"},
	{"nchwc Conv, 3-D", 17, "Conv", "x,w", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,7|w:16,16,3",
	 .expect = {RU}, .diag = "shape-error"},
	{"nchwc Conv, channels differ", 17, "Conv", "x,w", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,8,7,7|w:16,16,3,3", .expect = {RU}, .diag = "shape-error"},
	/* the pools: every window attribute of the latest ai.onnx pools */
	{"nchwc MaxPool", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,6,6",
	 .attrs = "is:kernel_shape=2,2|is:strides=2,2", .expect = {"FLOAT (1, 16, 3, 3)"}},
	/* dilated kernel 3, stride 2, ceil: ceil((8 - 3) / 2) + 1 = 4 */
	{"nchwc MaxPool, dilations and ceil", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,8,8", .attrs = "is:kernel_shape=2,2|is:dilations=2,2|is:strides=2,2|i:ceil_mode=1",
	 .expect = {"FLOAT (1, 16, 4, 4)"}},
	{"nchwc MaxPool, symbolic kept", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,16,H,W", .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1", .expect = {"FLOAT (N, 16, H, W)"}},
	{"nchwc MaxPool, 3-D kernel", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:*",
	 .attrs = "is:kernel_shape=2,2,2", .expect = {RU}, .diag = "shape-error"},
	{"nchwc MaxPool, 5-D", 17, "MaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,4,4,4",
	 .attrs = "is:kernel_shape=2,2", .expect = {RU}, .diag = "shape-error"},
	{"nchwc AveragePool", 17, "AveragePool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,6,6",
	 .attrs = "is:kernel_shape=3,3", .expect = {"FLOAT (1, 16, 4, 4)"}},
	/* (5 + 2 - 3) / 2 + 1 = 3 */
	{"nchwc AveragePool, pads", 17, "AveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:2,32,5,5", .attrs = "is:kernel_shape=3,3|is:pads=1,1,1,1|is:strides=2,2|i:count_include_pad=1",
	 .expect = {"FLOAT (2, 32, 3, 3)"}},
	{"nchwc AveragePool, no kernel_shape", 17, "AveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,6,6", .expect = {RU}, .diag = "shape-error"},
	{"nchwc GlobalMaxPool", 17, "GlobalMaxPool", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:N,16,H,W",
	 .expect = {"FLOAT (N, 16, 1, 1)"}},
	{"nchwc GlobalAveragePool", 17, "GlobalAveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,32,3,3", .expect = {"FLOAT (1, 32, 1, 1)"}},
	{"nchwc GlobalAveragePool, 3-D", 17, "GlobalAveragePool", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,32,3", .expect = {RU}, .diag = "shape-error"},
	/* ReorderInput: channels padded to the CPU's block (8 or 16): 32 stays, 4 is not known */
	{"ReorderInput", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,32,5,5",
	 .expect = {"FLOAT (1, 32, 5, 5)"}},
	{"ReorderInput, padded channels", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:2,4,3,3", .expect = {"FLOAT (2, ?, 3, 3)"}},
	{"ReorderInput, channels_last", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,H,W,16", .attrs = "i:channels_last=1", .expect = {"FLOAT (N, 16, H, W)"}},
	{"ReorderInput, channels not a multiple of 4", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,6,5,5", .expect = {RU}, .diag = "shape-error"},
	{"ReorderInput, 3-D", 17, "ReorderInput", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,8,5",
	 .expect = {RU}, .diag = "shape-error"},
	/* ReorderOutput: `channels` channels, first or last */
	{"ReorderOutput", 17, "ReorderOutput", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,32,5,5",
	 .attrs = "i:channels=30", .expect = {"FLOAT (1, 30, 5, 5)"}},
	{"ReorderOutput, channels_last", 17, "ReorderOutput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:N,16,H,W", .attrs = "i:channels=10|i:channels_last=1", .expect = {"FLOAT (N, H, W, 10)"}},
	{"ReorderOutput, no channels", 17, "ReorderOutput", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,32,5,5", .expect = {RU}, .diag = "attribute-error"},
	{"ReorderOutput, more channels than the input", 17, "ReorderOutput", "x", "y",
	 .domain = "com.microsoft.nchwc", .decls = "x:1,32,5,5", .attrs = "i:channels=40", .expect = {RU},
	 .diag = "shape-error"},
	/* Upsample: H and W times integer scales */
	{"nchwc Upsample", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,3,4",
	 .attrs = "is:scales=1,1,2,3", .expect = {"FLOAT (1, 16, 6, 12)"}},
	{"nchwc Upsample, symbolic", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:N,16,H,W",
	 .attrs = "is:scales=1,1,2,2|s:mode=linear", .expect = {"FLOAT (N, 16, 2*H, 2*W)"}},
	{"nchwc Upsample, no scales", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,3,4", .expect = {RU}, .diag = "attribute-error"},
	{"nchwc Upsample, scaling channels", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc",
	 .decls = "x:1,16,3,4", .attrs = "is:scales=1,2,2,2", .expect = {RU}, .diag = "attribute-error"},
	{"nchwc Upsample, 3-D", 17, "Upsample", "x", "y", .domain = "com.microsoft.nchwc", .decls = "x:1,16,3",
	 .attrs = "is:scales=1,1,2,2", .expect = {RU}, .diag = "shape-error"},
};

Test(rules_ms4, nhwc) { RULE_CASES(nhwc_cases); }
Test(rules_ms4, matmul_fft_complex) { RULE_CASES(matmul_fft_cases); }
Test(rules_ms4, embeddings_hash) { RULE_CASES(embedding_cases); }
Test(rules_ms4, nchwc) { RULE_CASES(nchwc_cases); }

/* A ReorderInput of x (1, 32, 5, 5), with com.microsoft.nchwc imported at `version`
 * (0: not imported). */
static osh_model *reorder_model(int64_t version)
{
	mb *b = mb_new(17);
	if (version)
		mb_opset(b, "com.microsoft.nchwc", version);
	mb_input(b, "x", DT_FLOAT, "1,32,5,5");
	mb_node(b, "ReorderInput", "x", "y");
	mb_node_domain(b, "com.microsoft.nchwc");
	mb_output(b, "y", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

/* ONNX Runtime runs a node of com.microsoft.nchwc whether or not the model imports the
 * domain (it takes its own newest, 1), and refuses an import of version 2. */
Test(rules_ms4, nchwc_domain_import)
{
	osh_model *m = reorder_model(1);
	cr_expect_eq(mb_count(m, "opset-error"), 0, "%s", mb_message(m, "opset-error"));
	cr_expect_eq(mb_count(m, "not-in-spec"), 0);
	cr_expect_eq(mb_count(m, "unknown-op"), 0);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (1, 32, 5, 5)");
	osh_model_free(m);

	m = reorder_model(0);
	cr_expect_eq(mb_count(m, "opset-error"), 0, "%s", mb_message(m, "opset-error"));
	cr_expect_eq(mb_count(m, "not-in-spec"), 1);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (1, 32, 5, 5)");
	osh_model_free(m);

	m = reorder_model(2);
	cr_expect_eq(mb_count(m, "opset-error"), 1);
	osh_model_free(m);
}
