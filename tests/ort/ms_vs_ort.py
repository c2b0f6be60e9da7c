#!/usr/bin/env python3
"""onnxshape's shapes for ONNX Runtime's com.microsoft operators against the runtime's.

For every case below a one-node model is written with python3-onnx (inputs may carry
symbolic dims, bound to sizes for the run), `onnxshape infer --ignore-declared` infers
it, ONNX Runtime (tests/ort/run_shapes.js) runs it, and every listed output is compared:
  exact          every dim known and equal to the runtime's
  consistent     same rank, every known dim equal, some symbolic or unknown
  unknown        no rank claimed
  contradiction  a wrong rank, a wrong size or a wrong element type: the test fails
Cases ONNX Runtime refuses to run are listed and not compared.

The operators (src/passes/rules/rules_ms_*.c): FastGelu, BiasGelu, QuickGelu, FusedMatMul,
FusedGemm, SkipLayerNormalization, SkipSimplifiedLayerNormalization; and those others
that ONNX Runtime's CPU provider runs: Gelu, TransposeMatMul,
RotaryEmbedding, EmbedLayerNormalization, Attention, MatMulNBits, MatMulIntegerToFloat,
DynamicQuantizeMatMul (the CUDA-only ones are in tests/unit/test_rules_ms_*.c); the attention
operators of rules_ms_attention.c (ATTN_CASES), the quantized ones of rules_ms_quant.c and
rules_ms_other.c's (QUANT_CASES), and MoE and QMoE, with GroupQueryAttention's present
length (MS3_CASES). PackedAttention, PackedMultiHeadAttention,
RelativePositionBias, GatedRelativePositionBias, RemovePadding and RestorePadding have no
CPU kernel, and the CPU SparseAttention runs only with past and present bound to one
buffer, which a plain run cannot do: tests/unit/test_rules_ms_attention.c checks those. The cases
take optional inputs and outputs present and absent, and attributes on and off defaults.
Integer inputs (ti) are fed filled with one value; INT8 ones become initializers.

usage: ms_vs_ort.py ONNXSHAPE ORT_DIR WORK_DIR
"""
import sys

import onnx

import ort_compare
from onnx import TensorProto as T
from onnx import helper as h

MS = "com.microsoft"
F = T.FLOAT
NP_TYPES = {T.FLOAT: "float32", T.DOUBLE: "float64", T.INT64: "int64", T.INT32: "int32", T.UINT8: "uint8",
            T.UINT32: "uint32", T.STRING: "string"}
# Sizes the symbolic dims are run with.
BIND = {"N": 3, "S": 5, "M": 4}


def case(name, op, inputs, outputs, attrs=None, node_inputs=None):
    """inputs: [(name, elem, dims)], dims may hold symbols (BIND); node_inputs: the node's
    input list when it omits optional ones (""), else the inputs' names; outputs: "" for an
    omitted optional output."""
    return dict(name=name, op=op, inputs=inputs, outputs=outputs, attrs=attrs or {},
                node_inputs=node_inputs if node_inputs is not None else [i[0] for i in inputs])


def x(name, *dims):
    return (name, F, list(dims))


def ti(name, elem, dims, fill=0):
    """An integer input, every element `fill` (token ids, positions, a mask of ones).
    INT8 ones (which run_shapes.js cannot feed) become initializers."""
    return (name, elem, list(dims), fill)


SLN_ALL = ["y", "mean", "inv_std_var", "sum"]
CASES = [
    # ---- activations ----
    case("fast_gelu", "FastGelu", [x("x", 2, 3, 4)], ["y"]),
    case("fast_gelu_bias", "FastGelu", [x("x", 2, 3, 4), x("b", 4)], ["y"]),
    case("fast_gelu_sym_bias", "FastGelu", [x("x", "N", "S", 8), x("b", 8)], ["y"]),
    case("fast_gelu_1d", "FastGelu", [x("x", 6)], ["y"]),
    case("bias_gelu", "BiasGelu", [x("a", 2, 3, 4), x("b", 4)], ["y"]),
    case("bias_gelu_sym", "BiasGelu", [x("a", "N", "S", 8), x("b", 8)], ["y"]),
    case("bias_gelu_2d", "BiasGelu", [x("a", 5, 6), x("b", 6)], ["y"]),
    case("quick_gelu", "QuickGelu", [x("x", 2, 5)], ["y"]),
    case("quick_gelu_alpha", "QuickGelu", [x("x", "N", 7)], ["y"], dict(alpha=1.0)),
    case("quick_gelu_4d", "QuickGelu", [x("x", 1, 2, 3, 4)], ["y"], dict(alpha=2.5)),
    # ---- FusedMatMul ----
    case("fmm_4d", "FusedMatMul", [x("a", 2, 3, 4, 5), x("b", 2, 3, 5, 6)], ["y"]),
    case("fmm_alpha", "FusedMatMul", [x("a", 2, 4, 5), x("b", 2, 5, 6)], ["y"], dict(alpha=0.125)),
    case("fmm_transA", "FusedMatMul", [x("a", 2, 5, 4), x("b", 2, 5, 6)], ["y"], dict(transA=1)),
    case("fmm_transB", "FusedMatMul", [x("a", 2, 4, 5), x("b", 2, 6, 5)], ["y"], dict(transB=1)),
    case("fmm_transAB", "FusedMatMul", [x("a", 3, 5, 4), x("b", 6, 5)], ["y"], dict(transA=1, transB=1, alpha=0.5)),
    case("fmm_trans_off", "FusedMatMul", [x("a", 4, 5), x("b", 5, 6)], ["y"], dict(transA=0, transB=0)),
    case("fmm_2d", "FusedMatMul", [x("a", 4, 5), x("b", 5, 6)], ["y"]),
    case("fmm_1d_a", "FusedMatMul", [x("a", 5), x("b", 2, 5, 6)], ["y"]),
    case("fmm_1d_b", "FusedMatMul", [x("a", 2, 4, 5), x("b", 5)], ["y"]),
    case("fmm_1d_transB", "FusedMatMul", [x("a", 4, 5), x("b", 5)], ["y"], dict(transB=1)),
    case("fmm_broadcast", "FusedMatMul", [x("a", 1, 3, 4, 5), x("b", 2, 1, 5, 6)], ["y"]),
    case("fmm_rank3x2", "FusedMatMul", [x("a", 2, 4, 5), x("b", 6, 5)], ["y"], dict(transB=1)),
    case("fmm_sym", "FusedMatMul", [x("a", "N", "S", 8), x("b", 8, 3)], ["y"]),
    case("fmm_sym_transA", "FusedMatMul", [x("a", "N", 8, "S"), x("b", "N", 8, 3)], ["y"], dict(transA=1)),
    case("fmm_tbA", "FusedMatMul", [x("a", 4, 2, 3, 5), x("b", 2, 3, 5, 6)], ["y"], dict(transBatchA=1)),
    case("fmm_tbA_transA", "FusedMatMul", [x("a", 5, 2, 3, 4), x("b", 2, 3, 5, 6)], ["y"],
         dict(transBatchA=1, transA=1)),
    case("fmm_tbB", "FusedMatMul", [x("a", 2, 3, 4, 5), x("b", 5, 2, 3, 6)], ["y"], dict(transBatchB=1)),
    case("fmm_tbB_transB", "FusedMatMul", [x("a", 2, 3, 4, 5), x("b", 6, 2, 3, 5)], ["y"],
         dict(transBatchB=1, transB=1)),
    case("fmm_tbAB", "FusedMatMul", [x("a", 4, 2, 5), x("b", 5, 2, 6)], ["y"], dict(transBatchA=1, transBatchB=1)),
    case("fmm_tbAB_trans", "FusedMatMul", [x("a", 5, 2, 4), x("b", 6, 2, 5)], ["y"],
         dict(transBatchA=1, transBatchB=1, transA=1, transB=1, alpha=2.0)),
    case("fmm_tbA_sym", "FusedMatMul", [x("a", "S", "N", 8), x("b", "N", 8, 3)], ["y"], dict(transBatchA=1)),
    # ---- FusedGemm (ONNX Runtime's kernel refuses a node without `activation`) ----
    case("fgemm", "FusedGemm", [x("a", 4, 5), x("b", 5, 6), x("c", 6)], ["y"], dict(activation="Relu")),
    case("fgemm_no_c", "FusedGemm", [x("a", 4, 5), x("b", 5, 6)], ["y"], dict(activation="Relu")),
    case("fgemm_trans", "FusedGemm", [x("a", 5, 4), x("b", 6, 5), x("c", 4, 6)], ["y"],
         dict(transA=1, transB=1, activation="Relu")),
    case("fgemm_relu", "FusedGemm", [x("a", 4, 5), x("b", 6, 5), x("c", 1, 6)], ["y"],
         dict(transB=1, activation="Relu", alpha=0.5, beta=2.0)),
    case("fgemm_leaky", "FusedGemm", [x("a", 4, 5), x("b", 5, 6), x("c", 4, 1)], ["y"],
         dict(activation="LeakyRelu", activation_alpha=0.1)),
    case("fgemm_sym", "FusedGemm", [x("a", "M", 5), x("b", 5, 6), x("c", 6)], ["y"], dict(activation="Sigmoid")),
    case("fgemm_scalar_c", "FusedGemm", [x("a", 4, 5), x("b", 5, 6), x("c")], ["y"], dict(activation="Tanh")),
    # ---- SkipLayerNormalization ----
    case("sln", "SkipLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4)], ["y"], dict(epsilon=1e-5)),
    case("sln_all", "SkipLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4), x("be", 4), x("bi", 4)],
         SLN_ALL),
    case("sln_sum", "SkipLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4), x("be", 4)],
         ["y", "", "", "sum"], dict(epsilon=1e-12)),
    case("sln_mean", "SkipLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4)], ["y", "mean"]),
    case("sln_bias_no_beta", "SkipLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4), x("bi", 4)],
         SLN_ALL, node_inputs=["x", "s", "g", "", "bi"]),
    case("sln_skip_1sh", "SkipLayerNormalization", [x("x", 2, 3, 4), x("s", 1, 3, 4), x("g", 4)], SLN_ALL),
    case("sln_skip_2d", "SkipLayerNormalization", [x("x", 2, 3, 4), x("s", 3, 4), x("g", 4)], ["y", "", "", "sum"]),
    case("sln_2d", "SkipLayerNormalization", [x("x", 5, 4), x("s", 5, 4), x("g", 4), x("be", 4)], SLN_ALL),
    case("sln_sym", "SkipLayerNormalization", [x("x", "N", "S", 8), x("s", "N", "S", 8), x("g", 8), x("be", 8)],
         SLN_ALL),
    case("sln_sym_hidden", "SkipLayerNormalization", [x("x", "N", "S", "M"), x("s", "N", "S", "M"), x("g", 4)],
         SLN_ALL),
    # ---- SkipSimplifiedLayerNormalization ----
    case("ssln", "SkipSimplifiedLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4)], ["y"]),
    case("ssln_all", "SkipSimplifiedLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4), x("bi", 4)],
         SLN_ALL, dict(epsilon=1e-6)),
    case("ssln_sum", "SkipSimplifiedLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4)],
         ["y", "", "", "sum"]),
    case("ssln_stats", "SkipSimplifiedLayerNormalization", [x("x", 2, 3, 4), x("s", 2, 3, 4), x("g", 4)],
         ["y", "mean", "inv_std_var"]),
    case("ssln_2d", "SkipSimplifiedLayerNormalization", [x("x", 6, 4), x("s", 6, 4), x("g", 4), x("bi", 4)], SLN_ALL),
    case("ssln_sym", "SkipSimplifiedLayerNormalization", [x("x", "N", "S", 8), x("s", "N", "S", 8), x("g", 8)],
         SLN_ALL),
    # ---- Gelu ----
    case("gelu", "Gelu", [x("x", 2, 3, 4)], ["y"]),
    case("gelu_sym", "Gelu", [x("x", "N", "S", 8)], ["y"]),
    case("gelu_1d", "Gelu", [x("x", 6)], ["y"]),
    # ---- TransposeMatMul (FusedMatMul's rule) ----
    case("tmm", "TransposeMatMul", [x("a", 2, 4, 5), x("b", 2, 5, 6)], ["y"]),
    case("tmm_transA", "TransposeMatMul", [x("a", 2, 5, 4), x("b", 5, 6)], ["y"], dict(transA=1, alpha=0.5)),
    case("tmm_transB_sym", "TransposeMatMul", [x("a", "N", "S", 8), x("b", 3, 8)], ["y"], dict(transB=1)),
    case("tmm_trans_off", "TransposeMatMul", [x("a", 4, 5), x("b", 5, 6)], ["y"], dict(transA=0, transB=0)),
    # ---- RotaryEmbedding: input, position_ids, cos_cache, sin_cache ----
    case("rot_4d", "RotaryEmbedding", [x("x", 2, 2, 3, 8), ti("p", T.INT64, [2, 3]), x("cos", 4, 4),
                                       x("sin", 4, 4)], ["y"]),
    case("rot_3d", "RotaryEmbedding", [x("x", 2, 3, 16), ti("p", T.INT64, [2, 3]), x("cos", 4, 4), x("sin", 4, 4)],
         ["y"], dict(num_heads=2)),
    case("rot_interleaved", "RotaryEmbedding", [x("x", 2, 3, 16), ti("p", T.INT64, [2, 3]), x("cos", 4, 4),
                                                x("sin", 4, 4)], ["y"], dict(num_heads=2, interleaved=1)),
    case("rot_sym", "RotaryEmbedding", [x("x", "N", 2, "S", 8), ti("p", T.INT64, ["N", "S"]), x("cos", 8, 4),
                                        x("sin", 8, 4)], ["y"]),
    case("rot_partial", "RotaryEmbedding", [x("x", 2, 3, 16), ti("p", T.INT64, [2, 3]), x("cos", 4, 2),
                                            x("sin", 4, 2)], ["y"], dict(num_heads=2, rotary_embedding_dim=4)),
    # ---- EmbedLayerNormalization: ids, segment_ids, word, position, segment embeddings, gamma, beta, mask ----
    case("eln", "EmbedLayerNormalization",
         [ti("ids", T.INT32, [2, 3]), ti("seg", T.INT32, [2, 3]), x("we", 10, 4), x("pe", 8, 4), x("se", 2, 4),
          x("g", 4), x("b", 4)], ["y", "mi"]),
    case("eln_mask_sum", "EmbedLayerNormalization",
         [ti("ids", T.INT32, [2, 3]), ti("seg", T.INT32, [2, 3]), x("we", 10, 4), x("pe", 8, 4), x("se", 2, 4),
          x("g", 4), x("b", 4), ti("m", T.INT32, [2, 3], 1)], ["y", "mi", "sum"], dict(epsilon=1e-5)),
    case("eln_no_segment", "EmbedLayerNormalization",
         [ti("ids", T.INT32, [2, 3]), x("we", 10, 6), x("pe", 8, 6), x("g", 6), x("b", 6)], ["y", "mi", "sum"],
         node_inputs=["ids", "", "we", "pe", "", "g", "b"]),
    case("eln_sym", "EmbedLayerNormalization",
         [ti("ids", T.INT32, ["N", "S"]), ti("seg", T.INT32, ["N", "S"]), x("we", 10, 4), x("pe", 8, 4),
          x("se", 2, 4), x("g", 4), x("b", 4)], ["y", "mi", "sum"]),
    # ---- Attention: input, weights, bias, mask_index, past ----
    case("att", "Attention", [x("x", 2, 3, 8), x("w", 8, 24), x("b", 24)], ["y"], dict(num_heads=2)),
    case("att_present", "Attention", [x("x", 2, 3, 8), x("w", 8, 24), x("b", 24)], ["y", "present"],
         dict(num_heads=2)),
    case("att_past", "Attention", [x("x", 2, 3, 8), x("w", 8, 24), x("b", 24), x("past", 2, 2, 2, 4, 4)],
         ["y", "present"], dict(num_heads=2, unidirectional=1), node_inputs=["x", "w", "b", "", "past"]),
    case("att_mask", "Attention", [x("x", 2, 3, 8), x("w", 8, 24), x("b", 24), ti("m", T.INT32, [2, 3], 1)],
         ["y"], dict(num_heads=4)),
    case("att_qkv", "Attention", [x("x", 2, 3, 8), x("w", 8, 32), x("b", 32)], ["y"],
         dict(num_heads=2, qkv_hidden_sizes=[8, 8, 16])),
    case("att_sym", "Attention", [x("x", "N", "S", 8), x("w", 8, 24), x("b", 24)], ["y", "present"],
         dict(num_heads=2)),
    # ---- MatMulNBits: A, B (N, blocks, blob), scales[, zero_points, g_idx, bias] ----
    case("mnb", "MatMulNBits", [x("a", 2, 3, 16), ti("b", T.UINT8, [8, 1, 8], 17), x("s", 8)], ["y"],
         dict(K=16, N=8, bits=4, block_size=16)),
    case("mnb_2d_blocks", "MatMulNBits", [x("a", 3, 32), ti("b", T.UINT8, [6, 2, 8], 17), x("s", 12)], ["y"],
         dict(K=32, N=6, bits=4, block_size=16)),
    case("mnb_sym", "MatMulNBits", [x("a", "N", "S", 16), ti("b", T.UINT8, [8, 1, 8], 17), x("s", 8)], ["y"],
         dict(K=16, N=8, bits=4, block_size=16)),
    case("mnb_bias", "MatMulNBits", [x("a", 2, 16), ti("b", T.UINT8, [8, 1, 8], 17), x("s", 8), x("bias", 8)], ["y"],
         dict(K=16, N=8, bits=4, block_size=16), node_inputs=["a", "b", "s", "", "", "bias"]),
    case("mnb_zp", "MatMulNBits", [x("a", 2, 16), ti("b", T.UINT8, [8, 1, 8], 17), x("s", 8),
                                   ti("zp", T.UINT8, [8], 136)], ["y"], dict(K=16, N=8, bits=4, block_size=16)),
    # ---- MatMulIntegerToFloat: A, B, a_scale, b_scale[, a_zero_point, b_zero_point, bias] ----
    case("mitf", "MatMulIntegerToFloat", [ti("a", T.UINT8, [2, 3, 4], 3), ti("b", T.UINT8, [4, 5], 2), x("as"),
                                          x("bs")], ["y"]),
    case("mitf_zp_bias", "MatMulIntegerToFloat", [ti("a", T.UINT8, [3, 4], 3), ti("b", T.UINT8, [4, 5], 2),
                                                  x("as"), x("bs"), ti("az", T.UINT8, [], 1),
                                                  ti("bz", T.UINT8, [], 1), x("bias", 5)], ["y"]),
    case("mitf_sym", "MatMulIntegerToFloat", [ti("a", T.UINT8, ["N", "S", 4], 3), ti("b", T.UINT8, [4, 5], 2),
                                              x("as"), x("bs", 5)], ["y"]),
    # ---- DynamicQuantizeMatMul: A, B (int8), b_scale[, b_zero_point, bias] ----
    case("dqmm", "DynamicQuantizeMatMul", [x("a", 2, 3, 4), ti("b", T.INT8, [4, 5], 1), x("bs")], ["y"]),
    case("dqmm_bias", "DynamicQuantizeMatMul", [x("a", 3, 4), ti("b", T.INT8, [4, 5], 1), x("bs", 5),
                                                ti("bz", T.INT8, [5], 0), x("bias", 5)], ["y"]),
    case("dqmm_sym", "DynamicQuantizeMatMul", [x("a", "N", "S", 4), ti("b", T.INT8, [4, 5], 1), x("bs")], ["y"]),
]


# ---- attention operators (rules_ms_attention.c): MultiHeadAttention, GroupQueryAttention,
# QAttention; DecoderMaskedMultiHeadAttention and LongformerAttention (CUDA only) are in
# tests/unit/test_rules_ms_attention.c. num_heads 2 of head size 4 (MHA, QAttention); GQA has
# 4 query heads and 2 key/value heads of size 4.
I32, U8 = T.INT32, T.UINT8
MHA = dict(num_heads=2)
GQA = dict(num_heads=4, kv_num_heads=2)
ATTN_CASES = [
    case("mha", "MultiHeadAttention", [x("q", 2, 3, 8), x("k", 2, 4, 8), x("v", 2, 4, 8)], ["y"], MHA),
    case("mha_sym", "MultiHeadAttention", [x("q", "N", "S", 8), x("k", "N", "M", 8), x("v", "N", "M", 8)],
         ["y", "pk", "pv"], MHA),
    case("mha_v_wider", "MultiHeadAttention", [x("q", 2, 3, 8), x("k", 2, 4, 8), x("v", 2, 4, 12)],
         ["y", "pk", "pv"], MHA),
    case("mha_bias_past", "MultiHeadAttention",
         [x("q", 2, 3, 8), x("k", 2, 3, 8), x("v", 2, 3, 8), x("b", 24), x("pk0", 2, 2, 5, 4), x("pv0", 2, 2, 5, 4)],
         ["y", "pk", "pv"], MHA, node_inputs=["q", "k", "v", "b", "", "", "pk0", "pv0"]),
    case("mha_mask", "MultiHeadAttention",
         [x("q", 2, 3, 8), x("k", 2, 4, 8), x("v", 2, 4, 8), ti("m", I32, [2, 4], 1)], ["y", "", "pv"], MHA,
         node_inputs=["q", "k", "v", "", "m"]),
    case("mha_attn_bias", "MultiHeadAttention",
         [x("q", 2, 3, 8), x("k", 2, 4, 8), x("v", 2, 4, 8), x("ab", 1, 2, 3, 4)], ["y"], MHA,
         node_inputs=["q", "k", "v", "", "", "ab"]),
    case("mha_bnsh_kv", "MultiHeadAttention", [x("q", 2, 3, 8), x("k", 2, 2, 4, 4), x("v", 2, 2, 4, 4)], ["y"], MHA),
    case("gqa_prompt", "GroupQueryAttention",
         [x("q", 1, 5, 32), x("k", 1, 5, 16), x("v", 1, 5, 16), ti("sl", I32, [1], 4), ti("t", I32, [], 5)],
         ["y", "pk", "pv"], GQA, node_inputs=["q", "k", "v", "", "", "sl", "t"]),
    case("gqa_batch", "GroupQueryAttention",
         [x("q", 2, 5, 32), x("k", 2, 5, 16), x("v", 2, 5, 16), ti("sl", I32, [2], 4), ti("t", I32, [], 5)],
         ["y"], GQA, node_inputs=["q", "k", "v", "", "", "sl", "t"]),
    case("gqa_sym", "GroupQueryAttention",
         [x("q", "N", "S", 32), x("k", "N", "S", 16), x("v", "N", "S", 16), ti("sl", I32, ["N"], 4),
          ti("t", I32, [], 5)], ["y", "pk", "pv"], GQA, node_inputs=["q", "k", "v", "", "", "sl", "t"]),
    case("gqa_past", "GroupQueryAttention",
         [x("q", 1, 1, 32), x("k", 1, 1, 16), x("v", 1, 1, 16), x("pk0", 1, 2, 3, 8), x("pv0", 1, 2, 3, 8),
          ti("sl", I32, [1], 3), ti("t", I32, [], 4)], ["y", "pk", "pv"], GQA),
    case("gqa_packed", "GroupQueryAttention",
         [x("q", 1, 5, 64), ti("sl", I32, [1], 4), ti("t", I32, [], 5)], ["y", "pk", "pv"], GQA,
         node_inputs=["q", "", "", "", "", "sl", "t"]),
    case("qattn", "QAttention",
         [ti("i", U8, [2, 3, 4], 1), ti("w", T.INT8, [4, 24], 1), x("b", 24), x("is"), x("ws")], ["y"], MHA),
    case("qattn_all", "QAttention",
         [ti("i", U8, [2, 3, 4], 1), ti("w", T.INT8, [4, 24], 1), x("b", 24), x("is"), x("ws"),
          ti("m", I32, [2], 3), ti("iz", U8, [], 0), ti("wz", T.INT8, [], 0), x("past", 2, 2, 2, 5, 4)],
         ["y", "present"], MHA),
    case("qattn_sym", "QAttention",
         [ti("i", U8, ["N", "S", 4], 1), ti("w", T.INT8, [4, 24], 1), x("b", 24), x("is"), x("ws")],
         ["y", "present"], MHA),
]
CASES += ATTN_CASES
# ---- end of the attention operators ----


# ---- begin: quantized and other com.microsoft operators ----
def const(name, elem, dims, vals):
    """An initializer: vals one value for every element, or the list of them."""
    return (name, elem, list(dims), vals, "init")


def is_init(i):
    return i[1] == T.INT8 or len(i) > 4


NP_TYPES.setdefault(T.BOOL, "bool")
NP_TYPES.setdefault(T.INT8, "int8")
U8 = T.UINT8


def q(p, scale=0.5, zp=128, elem=T.UINT8):
    """A quantized operand's scale and zero point, both initializers (p_s, p_z)."""
    return [const(p + "_s", F, [], scale), const(p + "_z", elem, [], zp)]


def u8(name, *dims):
    return ti(name, U8, list(dims), 131)


QUANT_CASES = [
    case("msq_quantize", "QuantizeLinear", [x("x", 2, 3, 4)] + q("y"), ["y"]),
    case("msq_quantize_no_zp", "QuantizeLinear", [x("x", "N", 3), const("y_s", F, [], 0.5)], ["y"]),
    case("msq_quantize_axis", "QuantizeLinear", [x("x", 2, 3, 4), const("y_s", F, [3], 0.5),
                                                 const("y_z", T.INT8, [3], 1)], ["y"], dict(axis=1)),
    case("msq_dequantize", "DequantizeLinear", [u8("x", 2, 3, 4)] + q("x"), ["y"]),
    case("msq_dequantize_no_zp", "DequantizeLinear", [u8("x", "N", 5), const("x_s", F, [], 0.5)], ["y"]),
    case("msq_add", "QLinearAdd", [u8("a", 2, 3, 4)] + q("a") + [u8("b", 4)] + q("b") + q("c"), ["c"]),
    case("msq_add_sym", "QLinearAdd", [u8("a", "N", "S", 4)] + q("a") + [u8("b", "N", 1, 1)] + q("b") + q("c"),
         ["c"]),
    case("msq_mul", "QLinearMul", [u8("a", 3, 1)] + q("a") + [u8("b", 2, 1, 4)] + q("b") + q("c"), ["c"]),
    case("msq_sigmoid", "QLinearSigmoid", [u8("x", 2, 5)] + q("x") + q("y"), ["y"]),
    case("msq_leaky", "QLinearLeakyRelu", [u8("x", "N", 3, 4)] + q("x") + q("y"), ["y"], dict(alpha=0.2)),
    case("msq_softmax", "QLinearSoftmax", [u8("x", 2, 3, 4)] + q("x", 1 / 256.0, 0) + q("y", 1 / 256.0, 0),
         ["y"], dict(axis=-1, opset=13)),
    case("msq_concat", "QLinearConcat", q("y") + [u8("a", 2, 3)] + q("a") + [u8("b", 2, 5)] + q("b"), ["y"],
         dict(axis=1)),
    case("msq_concat3", "QLinearConcat", q("y") + [u8("a", 1, 4)] + q("a") + [u8("b", 2, 4)] + q("b") +
         [u8("d", "N", 4)] + q("d"), ["y"], dict(axis=0)),
    case("msq_where", "QLinearWhere", [ti("cond", T.BOOL, [2, 1, 4], 1), u8("x", 3, 1)] + q("x") +
         [u8("y", 4)] + q("y") + q("z"), ["z"]),
    case("msq_avgpool", "QLinearAveragePool", [u8("x", 1, 2, 5, 5)] + q("x") + q("y"), ["y"],
         dict(kernel_shape=[2, 2], strides=[2, 2])),
    case("msq_avgpool_ceil", "QLinearAveragePool", [u8("x", 1, 2, 5, 5)] + q("x") + q("y"), ["y"],
         dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
    case("msq_avgpool_pads", "QLinearAveragePool", [u8("x", 2, 2, 6)] + q("x") + q("y"), ["y"],
         dict(kernel_shape=[3], pads=[1, 1], count_include_pad=1)),
    case("msq_avgpool_same", "QLinearAveragePool", [u8("x", 1, 1, 5, 7)] + q("x") + q("y"), ["y"],
         dict(kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_UPPER")),
    case("msq_avgpool_last", "QLinearAveragePool", [u8("x", 1, 5, 7, 2)] + q("x") + q("y"), ["y"],
         dict(kernel_shape=[2, 3], strides=[2, 2], channels_last=1)),
    case("msq_gap", "QLinearGlobalAveragePool", [u8("x", 1, 3, 4, 4)] + q("x") + q("y"), ["y"]),
    case("msq_gap_last", "QLinearGlobalAveragePool", [u8("x", 2, 4, 4, 3)] + q("x") + q("y"), ["y"],
         dict(channels_last=1)),
    case("msq_conv", "QLinearConv", [u8("x", 1, 2, 5, 5)] + q("x") + [const("w", T.INT8, [3, 2, 3, 3], 1)] +
         q("w", 0.5, 0, T.INT8) + q("y"), ["y"]),
    case("msq_conv_bias", "QLinearConv", [u8("x", 1, 2, 6, 6)] + q("x") + [const("w", T.INT8, [4, 2, 3, 3], 1)] +
         q("w", 0.5, 0, T.INT8) + q("y") + [const("b", T.INT32, [4], 1)], ["y"],
         dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    case("msq_conv_last", "QLinearConv", [u8("x", 1, 5, 6, 2)] + q("x") + [const("w", T.INT8, [3, 2, 3, 3], 1)] +
         q("w", 0.5, 0, T.INT8) + q("y"), ["y"], dict(channels_last=1, pads=[0, 1, 0, 1])),
    case("msq_range_no_delta_f", "Range", [const("s", F, [], 0.5), const("l", F, [], 3.0)], ["y"]),
    case("msq_qgemm", "QGemm", [u8("a", 4, 5)] + q("a") + [u8("b", 5, 6)] + q("b") + q("y"), ["y"],
         node_inputs=["a", "a_s", "a_z", "b", "b_s", "b_z", "", "y_s", "y_z"]),
    case("msq_qgemm_float", "QGemm", [u8("a", 5, 4)] + q("a") + [const("b", T.INT8, [6, 5], 1)] +
         q("b", 0.5, 0, T.INT8) + [const("c", T.INT32, [6], 1)], ["y"], dict(transA=1, transB=1, alpha=0.5)),
    case("msq_mmi16", "MatMulInteger16", [const("a", T.INT16, [2, 3, 4], 1), const("b", T.INT16, [4, 5], 2)],
         ["y"]),
    case("msq_gbq", "GatherBlockQuantized", [const("d", U8, [4, 8], 17), ti("i", T.INT64, [2], 1), x("s", 4, 1)],
         ["y"], dict(block_size=16)),
    case("msq_gbq_2d_idx", "GatherBlockQuantized", [const("d", U8, [4, 16], 17), ti("i", T.INT64, [2, 3], 2),
                                                    x("s", 4, 1), const("z", U8, [4, 1], 136)],
         ["y"], dict(block_size=32, bits=4)),
    case("msq_gbq_8bit", "GatherBlockQuantized", [const("d", U8, [5, 16], 17), ti("i", T.INT64, ["N"], 1),
                                                  x("s", 5, 1)], ["y"], dict(block_size=16, bits=8)),
    case("msq_gbq_3d", "GatherBlockQuantized", [const("d", U8, [2, 4, 8], 17), ti("i", T.INT32, [3], 1),
                                                x("s", 2, 4, 1)], ["y"], dict(block_size=16, quantize_axis=2)),
    case("msq_expand_dims", "ExpandDims", [x("x", 2, 3), const("axis", T.INT32, [], -1)], ["y"]),
    case("msq_expand_dims0", "ExpandDims", [x("x", "N", 3), const("axis", T.INT32, [], 0)], ["y"]),
    case("msq_trilu", "Trilu", [x("x", 3, 4)], ["y"]),
    case("msq_trilu_k", "Trilu", [x("x", 2, 3, 4), const("k", T.INT64, [], 1)], ["y"], dict(upper=0)),
    case("msq_range", "Range", [const("s", F, [], 0.0), const("l", F, [], 5.0), const("d", F, [], 2.0)], ["y"]),
    case("msq_range_no_delta", "Range", [const("s", T.INT64, [], 2), const("l", T.INT64, [], 9)], ["y"]),
    case("msq_inverse", "Inverse", [x("x", 2, 3, 3)], ["y"]),
    case("msq_cdist", "CDist", [x("a", 4, 3), x("b", 5, 3)], ["y"], dict(metric="euclidean")),
    case("msq_cdist_sq", "CDist", [x("a", "N", 3), x("b", 2, 3)], ["y"], dict(metric="sqeuclidean")),
    case("msq_unique", "Unique", [x("x", 6)], ["y", "idx", "counts"]),
    case("msq_grid_sample", "GridSample", [x("x", 1, 2, 4, 4), x("g", 1, 3, 5, 2)], ["y"]),
    case("msq_grid_sample_opts", "GridSample", [x("x", 2, 1, 4, 6), x("g", 2, 2, 3, 2)], ["y"],
         dict(mode="nearest", padding_mode="border", align_corners=1)),
    case("msq_pad", "Pad", [x("x", 2, 3), const("p", T.INT64, [4], [1, 0, 0, 2])], ["y"]),
    case("msq_pad_value", "Pad", [x("x", 2, 3), const("p", T.INT64, [4], [0, 1, 1, 0]),
                                  const("v", F, [], 1.5)], ["y"]),
    case("msq_pad_reflect", "Pad", [x("x", 3, 4), const("p", T.INT64, [1, 4], [1, 1, 1, 1])], ["y"],
         dict(mode="reflect")),
]
CASES += QUANT_CASES
# ---- end: quantized and other com.microsoft operators ----


# ---- begin: MoE, QMoE (rules_ms_other.c) and GroupQueryAttention's present length ----
# MoE and QMoE: 4 experts, hidden 8, inner 16 (QMoE's weights 4-bit unless said, two
# values a byte); the CPU MoE runs no fc3. GQA: 4 query heads, 2 kv heads of 8.
def moe_w(*shapes):
    return [x(n, *d) for n, d in zip(("f1", "f2"), shapes)]


def qmoe_w(f1, s1, f2, s2):
    return [const("f1", U8, f1, 17), x("s1", *s1), const("f2", U8, f2, 17), x("s2", *s2)]


MOE_IN = ["x", "r", "f1", "", "f2"]
QMOE_IN = ["x", "r", "f1", "s1", "", "f2", "s2"]
QW = qmoe_w([4, 16, 4], [4, 16], [4, 8, 8], [4, 8])
MS3_CASES = [
    case("ms3_moe", "MoE", [x("x", 4, 8), x("r", 4, 4)] + moe_w([4, 16, 8], [4, 8, 16]), ["y"], dict(k=2),
         node_inputs=MOE_IN),
    case("ms3_moe_3d_bias", "MoE", [x("x", "N", "S", 8), x("r", 15, 4), x("f1", 4, 16, 8), x("f1b", 4, 16),
                                    x("f2", 4, 8, 16), x("f2b", 4, 8)], ["y"], dict(k=1, activation_type="gelu")),
    case("ms3_moe_swiglu", "MoE", [x("x", 4, 8), x("r", 4, 4)] + moe_w([4, 32, 8], [4, 8, 16]), ["y"],
         dict(k=2, activation_type="swiglu", swiglu_fusion=1), node_inputs=MOE_IN),
    case("ms3_moe_identity", "MoE", [x("x", "N", 8), x("r", "N", 2)] + moe_w([2, 4, 8], [2, 8, 4]), ["y"],
         dict(k=1, activation_type="identity"), node_inputs=MOE_IN),
    case("ms3_qmoe", "QMoE", [x("x", 4, 8), x("r", 4, 4)] + QW, ["y"], dict(k=2, expert_weight_bits=4),
         node_inputs=QMOE_IN),
    case("ms3_qmoe_sym", "QMoE", [x("x", "N", 8), x("r", "N", 4)] + QW, ["y"], dict(k=1), node_inputs=QMOE_IN),
    case("ms3_qmoe_bias_raw", "QMoE", [x("x", 2, 3, 8), x("r", 6, 4), const("f1", U8, [4, 16, 4], 17),
                                       x("s1", 4, 16), x("b1", 4, 16), const("f2", U8, [4, 8, 8], 17),
                                       x("s2", 4, 8), x("b2", 4, 8)], ["y"],
         dict(k=2, expert_weight_bits=4, weights_prepacked=0)),
    case("ms3_qmoe_8bit", "QMoE", [x("x", 4, 8), x("r", 4, 4)] + qmoe_w([4, 16, 8], [4, 16], [4, 8, 16], [4, 8]),
         ["y"], dict(k=2, expert_weight_bits=8), node_inputs=QMOE_IN),
    case("ms3_qmoe_rw", "QMoE", [x("x", 4, 8), x("r", 4, 4)] + QW + [x("rw", 4, 4)], ["y"],
         dict(k=2), node_inputs=QMOE_IN + [""] * 7 + ["rw"]),
    case("ms3_qmoe_swiglu", "QMoE", [x("x", 4, 8), x("r", 4, 4)] + qmoe_w([4, 32, 4], [4, 32], [4, 8, 8], [4, 8]),
         ["y"], dict(k=2, activation_type="swiglu", swiglu_fusion=1), node_inputs=QMOE_IN),
    case("ms3_qmoe_block", "QMoE", [x("x", 4, 32), x("r", 4, 2)] + qmoe_w([2, 32, 16], [2, 32, 2], [2, 32, 16],
                                                                           [2, 32, 2]), ["y"],
         dict(k=1, block_size=16), node_inputs=QMOE_IN),
    # present: the new length without a past (the total fed at run time), Max(past, total)
    # with the total's content, the past's (the capacity) with a windowed cache even
    # where the total passes it
    case("ms3_gqa_no_past", "GroupQueryAttention",
         [x("q", "N", "S", 32), x("k", "N", "S", 16), x("v", "N", "S", 16), ti("sl", I32, ["N"], 4),
          ti("t", I32, [], 5)], ["y", "pk", "pv"], GQA, node_inputs=["q", "k", "v", "", "", "sl", "t"]),
    case("ms3_gqa_packed", "GroupQueryAttention", [x("q", 1, "S", 64), ti("sl", I32, [1], 4), ti("t", I32, [], 5)],
         ["y", "pk", "pv"], GQA,
         node_inputs=["q", "", "", "", "", "sl", "t"]),
    case("ms3_gqa_past_max", "GroupQueryAttention",
         [x("q", 1, 1, 32), x("k", 1, 1, 16), x("v", 1, 1, 16), x("pk0", 1, 2, "M", 8), x("pv0", 1, 2, "M", 8),
          ti("sl", I32, [1], 4), const("t", I32, [], 5)], ["y", "pk", "pv"], GQA),
    case("ms3_gqa_shared", "GroupQueryAttention",
         [x("q", 1, 1, 32), x("k", 1, 1, 16), x("v", 1, 1, 16), x("pk0", 1, 2, 16, 8), x("pv0", 1, 2, 16, 8),
          ti("sl", I32, [1], 4), const("t", I32, [], 5)], ["y", "pk", "pv"], GQA),
    case("ms3_gqa_window", "GroupQueryAttention",
         [x("q", 1, 1, 32), x("k", 1, 1, 16), x("v", 1, 1, 16), x("pk0", 1, 2, 8, 8), x("pv0", 1, 2, 8, 8),
          ti("sl", I32, [1], 9), const("t", I32, [], 10)], ["y", "pk", "pv"],
         dict(GQA, sliding_window_cache=1, local_window_size=4)),
]
CASES += MS3_CASES
# ---- end: MoE, QMoE and GroupQueryAttention's present length ----


def build(c, path):
    node = h.make_node(c["op"], c["node_inputs"], c["outputs"], domain=c.get("domain", MS), **c["attrs"])
    ins = [h.make_tensor_value_info(i[0], i[1], i[2]) for i in c["inputs"] if not is_init(i)]
    inits = [h.make_tensor(i[0], i[1], i[2], i[3] if isinstance(i[3], list) else [i[3]] * count(i[2]))
             for i in c["inputs"] if is_init(i)]
    outs = [h.make_value_info(o, onnx.TypeProto()) for o in c["outputs"] if o]
    g = h.make_graph([node], c["name"], ins, outs, initializer=inits)
    imports = c.get("imports", [("", 17), (MS, 1)])
    m = h.make_model(g, opset_imports=[h.make_opsetid(d, v) for d, v in imports])
    m.ir_version = 9
    onnx.save(m, path)


def count(dims):
    n = 1
    for v in dims:
        n *= v
    return n


def feeds(c):
    out = {}
    for i in c["inputs"]:
        n, e, d = i[:3]
        if is_init(i):
            continue
        dims = [BIND[v] if isinstance(v, str) else v for v in d]
        data = [i[3]] * count(dims) if len(i) > 3 else [round(k * 0.37 - 1.0, 3) for k in range(count(dims))]
        out[n] = {"type": NP_TYPES[e], "dims": dims, "data": data}
    return out


def main():
    tool, ort_dir, work = sys.argv[1:4]
    return ort_compare.compare(tool, ort_dir, work, CASES, build, feeds, NP_TYPES, "com.microsoft shapes vs ONNX Runtime", (20, 11), True)


if __name__ == "__main__":
    sys.exit(main())
