#!/usr/bin/env python3
"""onnxshape's shapes for the layout, FFT and embedding contrib operators vs ONNX Runtime's.

One-node models as in ms_vs_ort.py (whose case builders, model writer and feeds this
reuses), compared by the shared harness (ort_compare.py): a wrong rank, size or element
type is a contradiction and fails the test. The operators: com.microsoft FusedConv, NhwcConv,
NhwcMaxPool, MatMulBnb4, Rfft, Irfft, ComplexMul, ComplexMulConj, WordConvEmbedding,
TorchEmbedding, MurmurHash3, and com.microsoft.nchwc's Conv, MaxPool, AveragePool,
GlobalMaxPool, GlobalAveragePool, ReorderInput, ReorderOutput and Upsample (whose CPU
kernels ONNX Runtime registers where MLAS has an NCHWc block size, x86-64 among them).
Cases ONNX Runtime refuses to run (kernels of the CUDA provider only) are listed and not
compared; the unit tests of their families (tests/unit/test_rules_ms_*.c) check those
rules.

usage: ms_layout_vs_ort.py ONNXSHAPE ORT_DIR WORK_DIR
"""
import sys

import ms_vs_ort as ms
import ort_compare
from ms_vs_ort import case, const, ti, x
from onnx import TensorProto as T

NCHWC = "com.microsoft.nchwc"
NCHWC_IMPORTS = [("", 17), (NCHWC, 1)]


def nc(name, op, inputs, outputs, attrs=None, node_inputs=None, imports=NCHWC_IMPORTS):
    """A case of the com.microsoft.nchwc domain."""
    return dict(case(name, op, inputs, outputs, attrs, node_inputs), domain=NCHWC, imports=imports)


def u8(name, *dims):
    return ti(name, T.UINT8, list(dims), 7)


# MatMulBnb4 with K 16, N 8, block_size 16: B is (8 * 16 + 1) / 2 = 64 bytes, absmax 8.
BNB4 = [const("b", T.UINT8, [64], 17), x("absmax", 8)]
# WordConvEmbedding: words of 6 characters, 5 filters over windows of 2 of 3-wide char
# embeddings, a vocabulary of 10 characters.
WCE = [x("w", 5, 1, 2, 3), x("b", 5), x("ch", 10, 3)]

CASES = [
    # ---- FusedConv ----
    case("fused_conv", "FusedConv", [x("x", 1, 2, 5, 5), x("w", 3, 2, 3, 3)], ["y"], dict(activation="Relu")),
    case("fused_conv_sym_z", "FusedConv", [x("x", "N", 2, 6, 6), x("w", 4, 2, 3, 3), x("b", 4), x("z", "N", 4, 3, 3)],
         ["y"], dict(activation="Relu", strides=[2, 2], pads=[1, 1, 0, 0])),
    case("fused_conv_1d", "FusedConv", [x("x", 2, 2, 9), x("w", 3, 2, 3)], ["y"], dict(activation="Sigmoid", dilations=[2])),
    # ---- NhwcConv, NhwcMaxPool ----
    case("nhwc_conv", "NhwcConv", [x("x", 1, 5, 5, 2), x("w", 3, 2, 3, 3)], ["y"]),
    case("nhwc_conv_bias_pads", "NhwcConv", [x("x", "N", 6, 6, 4), x("w", 4, 2, 3, 3), x("b", 4)], ["y"],
         dict(pads=[1, 1, 1, 1], strides=[2, 2], group=2)),
    case("nhwc_conv_same", "NhwcConv", [x("x", 1, 7, 5, 2), x("w", 3, 2, 3, 3)], ["y"],
         dict(auto_pad="SAME_UPPER", strides=[2, 2])),
    case("nhwc_max_pool", "NhwcMaxPool", [u8("x", 1, 6, 6, 3)], ["y"], dict(kernel_shape=[2, 2], strides=[2, 2])),
    case("nhwc_max_pool_sym", "NhwcMaxPool", [u8("x", "N", 5, 7, 2)], ["y"], dict(kernel_shape=[3, 3])),
    case("nhwc_max_pool_pads", "NhwcMaxPool", [u8("x", 2, 5, 5, 4)], ["y"],
         dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])),
    case("nhwc_max_pool_ceil", "NhwcMaxPool", [u8("x", 1, 5, 5, 2)], ["y"],
         dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
    case("nhwc_max_pool_dil", "NhwcMaxPool", [u8("x", 1, 7, 7, 2)], ["y"], dict(kernel_shape=[2, 2], dilations=[2, 2])),
    case("nhwc_max_pool_same", "NhwcMaxPool", [u8("x", 1, 5, 7, 2)], ["y"],
         dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")),
    case("nhwc_max_pool_1d", "NhwcMaxPool", [u8("x", 2, 9, 3)], ["y"], dict(kernel_shape=[3], strides=[2])),
    # ---- MatMulBnb4 ----
    case("bnb4", "MatMulBnb4", [x("a", 2, 3, 16)] + BNB4, ["y"], dict(K=16, N=8, block_size=16, quant_type=1)),
    case("bnb4_sym", "MatMulBnb4", [x("a", "N", "S", 16)] + BNB4, ["y"], dict(K=16, N=8, block_size=16, quant_type=0)),
    case("bnb4_1d", "MatMulBnb4", [x("a", 16)] + BNB4, ["y"], dict(K=16, N=8, block_size=16, quant_type=1)),
    case("bnb4_no_transB", "MatMulBnb4", [x("a", 4, 8)] + BNB4, ["y"],
         dict(K=16, N=8, block_size=16, quant_type=1, transB=0)),
    # ---- Rfft, Irfft, ComplexMul, ComplexMulConj ----
    case("rfft", "Rfft", [x("x", 2, 8)], ["y"]),
    case("rfft_2d", "Rfft", [x("x", 3, 4, 6)], ["y"], dict(signal_ndim=2)),
    case("irfft", "Irfft", [x("x", 2, 5, 2)], ["y"], dict(signal_ndim=1)),
    case("complex_mul", "ComplexMul", [x("a", 3, 4, 2), x("b", 4, 2)], ["y"]),
    case("complex_mul_conj", "ComplexMulConj", [x("a", "N", 1, 2), x("b", 5, 2)], ["y"]),
    # ---- WordConvEmbedding, TorchEmbedding ----
    case("wce", "WordConvEmbedding", [ti("s", T.INT32, [4, 6], 1)] + WCE, ["y"]),
    case("wce_sym", "WordConvEmbedding", [ti("s", T.INT32, ["S", 6], 1)] + WCE, ["y"]),
    case("wce_attrs", "WordConvEmbedding", [ti("s", T.INT32, [3, 6], 2)] + WCE, ["y"],
         dict(embedding_size=5, conv_window_size=2, char_embedding_size=3)),
    case("torch_embedding", "TorchEmbedding", [x("w", 10, 4), ti("i", T.INT64, [2, 3], 1)], ["y"]),
    case("torch_embedding_pad", "TorchEmbedding", [x("w", 10, 4), ti("i", T.INT64, ["N"], 1),
                                                   const("p", T.INT64, [], 0)], ["y"]),
    # ---- MurmurHash3 ----
    case("murmur", "MurmurHash3", [ti("x", T.INT32, [2, 3], 5)], ["y"]),
    case("murmur_signed", "MurmurHash3", [ti("x", T.INT64, ["N", 4], 5)], ["y"], dict(positive=0, seed=42)),
    case("murmur_string", "MurmurHash3", [ti("x", T.STRING, [3], "abc")], ["y"]),
    case("murmur_float", "MurmurHash3", [x("x", 2, 2, 2)], ["y"], dict(positive=1)),
    # ---- com.microsoft.nchwc: ReorderInput, ReorderOutput ----
    nc("reorder_in", "ReorderInput", [x("x", 1, 32, 5, 5)], ["y"]),
    nc("reorder_in_pad", "ReorderInput", [x("x", 2, 4, 3, 3)], ["y"]),
    nc("reorder_in_last", "ReorderInput", [x("x", "N", 5, 6, 16)], ["y"], dict(channels_last=1)),
    nc("reorder_in_no_import", "ReorderInput", [x("x", 1, 16, 2, 2)], ["y"], imports=[("", 17)]),
    nc("reorder_out", "ReorderOutput", [x("x", 1, 32, 5, 5)], ["y"], dict(channels=30, channels_last=0)),
    nc("reorder_out_last", "ReorderOutput", [x("x", "N", 16, 3, 4)], ["y"], dict(channels=10, channels_last=1)),
    # ---- Conv ----
    nc("conv", "Conv", [x("x", 1, 16, 7, 7), x("w", 16, 16, 3, 3)], ["y"]),
    nc("conv_bias_pads", "Conv", [x("x", "N", 16, 8, 8), x("w", 32, 16, 3, 3), x("b", 32)], ["y"],
       dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    nc("conv_nchw_input", "Conv", [x("x", 1, 3, 9, 9), x("w", 16, 3, 3, 3), x("b", 16)], ["y"],
       dict(strides=[2, 2], activation="Relu")),
    nc("conv_depthwise", "Conv", [x("x", 1, 16, 6, 6), x("w", 16, 1, 3, 3)], ["y"], dict(group=16, pads=[1, 1, 1, 1])),
    nc("conv_same", "Conv", [x("x", 1, 16, 7, 5), x("w", 16, 16, 3, 3)], ["y"],
       dict(auto_pad="SAME_UPPER", strides=[2, 2])),
    nc("conv_dil", "Conv", [x("x", 1, 16, 9, 9), x("w", 16, 16, 3, 3)], ["y"], dict(dilations=[2, 2])),
    nc("conv_sum", "Conv", [x("x", 1, 16, 7, 7), x("w", 16, 16, 3, 3), x("b", 16), x("s", 1, 16, 5, 5)], ["y"]),
    nc("conv_sum_no_bias", "Conv", [x("x", 2, 16, 6, 6), x("w", 16, 16, 1, 1), x("s", 2, 16, 6, 6)], ["y"],
       node_inputs=["x", "w", "", "s"]),
    # ---- pools ----
    nc("max_pool", "MaxPool", [x("x", 1, 16, 6, 6)], ["y"], dict(kernel_shape=[2, 2], strides=[2, 2])),
    nc("max_pool_ceil", "MaxPool", [x("x", "N", 16, 5, 5)], ["y"], dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
    nc("max_pool_pads", "MaxPool", [x("x", 1, 16, 7, 7)], ["y"], dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
    nc("max_pool_same", "MaxPool", [x("x", 1, 16, 5, 7)], ["y"],
       dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")),
    nc("max_pool_dil", "MaxPool", [x("x", 1, 16, 8, 8)], ["y"], dict(kernel_shape=[2, 2], dilations=[2, 2])),
    nc("avg_pool", "AveragePool", [x("x", 1, 16, 6, 6)], ["y"], dict(kernel_shape=[3, 3], strides=[1, 1])),
    nc("avg_pool_pads", "AveragePool", [x("x", 2, 32, 5, 5)], ["y"],
       dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2], count_include_pad=1)),
    nc("avg_pool_ceil", "AveragePool", [x("x", 1, 16, 6, 6)], ["y"],
       dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
    nc("global_max", "GlobalMaxPool", [x("x", "N", 16, 5, 4)], ["y"]),
    nc("global_avg", "GlobalAveragePool", [x("x", 1, 32, 3, 3)], ["y"]),
    # ---- Upsample ----
    nc("upsample", "Upsample", [x("x", 1, 16, 3, 4)], ["y"], dict(scales=[1, 1, 2, 3])),
    nc("upsample_linear", "Upsample", [x("x", "N", 16, 4, 4)], ["y"], dict(scales=[1, 1, 2, 2], mode="linear")),
    nc("upsample_one", "Upsample", [x("x", 1, 32, 5, 3)], ["y"], dict(scales=[1, 1, 1, 1])),
]


def main():
    tool, ort_dir, work = sys.argv[1:4]
    return ort_compare.compare(tool, ort_dir, work, CASES, ms.build, ms.feeds, ms.NP_TYPES,
                               "layout, FFT and embedding contrib shapes vs ONNX Runtime", (22, 3), False)


if __name__ == "__main__":
    sys.exit(main())
