#!/usr/bin/python3
"""gen_cases.py: the validity battery's models (run_battery.py, ctest validity/battery).

    /usr/bin/python3 tests/validity/gen_cases.py OUT_DIR

Writes, for every case, a deliberately INVALID model and its VALID twin (the same model
with the one defect fixed) as OUT_DIR/FAMILY/CASE_invalid.onnx and
OUT_DIR/FAMILY/CASE_valid.onnx, and OUT_DIR/cases.json listing them:
[{"id": "FAMILY/CASE", "family", "case", "what", "files": {"invalid": path, "valid":
path}}] (paths relative to OUT_DIR; the family "guards" has valid models only: models
ONNX Runtime runs that `onnxshape check` must not flag).

The intent ("invalid") is only the author's: ONNX Runtime 1.30 is the judge
(judge_ort.js), and run_battery.py classifies every file by its verdict. Models are
built with onnx.helper and saved with onnx.save without onnx.checker (most of them are
meant to fail it); the malformed ones are built as protos by hand. Opsets 7-24 and IR
versions 3-11, all of which ONNX Runtime 1.30 reads, except where the version is the
defect (opset 99, IR 99; and none above ONNX Runtime's opset 26, which it refuses as
such); every graph input has a small static shape so that the
judge can feed it, and every "huge" size overflows int64 or size_t instead of asking
for memory that might exist. Deterministic: the same bytes every run.
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper, shape_inference

F, I8, I32, I64, B, S = (TensorProto.FLOAT, TensorProto.INT8, TensorProto.INT32, TensorProto.INT64,
                         TensorProto.BOOL, TensorProto.STRING)
BIG = 1 << 40

CASES = []  # (family, case, what, builder)


def case(family, name, what):
    def reg(fn):
        CASES.append((family, name, what, fn))
        return fn
    return reg


# ---- builders ------------------------------------------------------------------------

def vi(name, elem, shape=None):
    """A tensor ValueInfo; shape None leaves the rank unknown (outputs)."""
    return helper.make_tensor_value_info(name, elem, shape)


def node(op, ins, outs, domain=None, **attrs):
    n = helper.make_node(op, ins, outs, **attrs)
    if domain is not None:
        n.domain = domain
    return n


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def i64(name, vals):
    return init(name, np.array(vals, dtype=np.int64))


def f32(name, vals):
    return init(name, np.array(vals, dtype=np.float32))


def graph(nodes, inputs, outputs, inits=(), value_info=(), name="g"):
    return helper.make_graph(list(nodes), name, list(inputs), list(outputs), initializer=list(inits),
                             value_info=list(value_info))


def model(nodes, inputs, outputs, inits=(), opset=13, ir=7, opsets=None, functions=(), value_info=()):
    g = graph(nodes, inputs, outputs, inits, value_info)
    ops = opsets if opsets is not None else [helper.make_opsetid("", opset)]
    m = helper.make_model(g, opset_imports=ops, ir_version=ir)
    m.producer_name = "onnxshape-validity"
    for f in functions:
        m.functions.append(f)
    return m


def unary(op, elem, opset=13, shape=(2, 3), out_elem=None, **attrs):
    """One node, one input X, one output Y."""
    return model([node(op, ["X"], ["Y"], **attrs)], [vi("X", elem, list(shape))],
                 [vi("Y", out_elem if out_elem is not None else elem)], opset=opset)


def binary(op, ea, eb, opset=13, sa=(2, 3), sb=(2, 3), out_elem=None, **attrs):
    return model([node(op, ["A", "B"], ["Y"], **attrs)], [vi("A", ea, list(sa)), vi("B", eb, list(sb))],
                 [vi("Y", out_elem if out_elem is not None else ea)], opset=opset)


# ---- types ---------------------------------------------------------------------------

@case("types", "add_int8_op13", "Add on int8 at opset 13 (int8 arrives in Add-14)")
def _():
    return binary("Add", I8, I8, opset=13), binary("Add", I8, I8, opset=14)


@case("types", "ort_layernorm_bias_uint32",
      "LayerNormalization at opset 14 (ONNX Runtime's own schema) with a uint32 bias")
def _():
    def m(bias):
        return model([node("LayerNormalization", ["X", "S", "B"], ["Y"], axis=-1)], [vi("X", F, [2, 4])], [vi("Y", F)],
                     [f32("S", [1.0] * 4), init("B", np.ones(4, bias))], opset=14)
    return m(np.uint32), m(np.float32)


@case("types", "add_float_int64", "Add(float, int64): T must be one type")
def _():
    return binary("Add", F, I64), binary("Add", F, F)


@case("types", "matmul_bool", "MatMul on bool")
def _():
    return (binary("MatMul", B, B, sa=(2, 3), sb=(3, 2)), binary("MatMul", F, F, sa=(2, 3), sb=(3, 2)))


@case("types", "relu_int32_op13", "Relu on int32 at opset 13 (integers arrive in Relu-14)")
def _():
    return unary("Relu", I32, opset=13), unary("Relu", F, opset=13)


@case("types", "conv_int64", "Conv on int64 tensors")
def _():
    def m(e):
        return model([node("Conv", ["X", "W"], ["Y"])], [vi("X", e, [1, 1, 3, 3]), vi("W", e, [1, 1, 2, 2])],
                     [vi("Y", e)])
    return m(I64), m(F)


@case("types", "where_float_cond", "Where with a float condition")
def _():
    def m(e):
        return model([node("Where", ["C", "A", "B"], ["Y"])],
                     [vi("C", e, [2]), vi("A", F, [2]), vi("B", F, [2])], [vi("Y", F)])
    return m(F), m(B)


@case("types", "less_strings", "Less on strings")
def _():
    return binary("Less", S, S, out_elem=B), binary("Less", F, F, out_elem=B)


@case("types", "reshape_int32_shape", "Reshape with an int32 shape")
def _():
    def m(e):
        return model([node("Reshape", ["X", "shape"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                     [init("shape", np.array([3, 2], dtype=np.int32 if e == I32 else np.int64))])
    return m(I32), m(I64)


@case("types", "topk_int32_k", "TopK with an int32 k")
def _():
    def m(dt):
        return model([node("TopK", ["X", "K"], ["V", "I"])], [vi("X", F, [2, 3])], [vi("V", F), vi("I", I64)],
                     [init("K", np.array([1], dtype=dt))])
    return m(np.int32), m(np.int64)


@case("types", "equal_float_op10", "Equal on float at opset 10 (floats arrive in Equal-11)")
def _():
    return binary("Equal", F, F, opset=10, out_elem=B), binary("Equal", F, F, opset=11, out_elem=B)


@case("types", "cast_to_undefined", "Cast to UNDEFINED (0)")
def _():
    return unary("Cast", F, out_elem=F, to=0), unary("Cast", I32, out_elem=F, to=F)


@case("types", "gather_float_indices", "Gather with float indices")
def _():
    def m(e):
        return model([node("Gather", ["X", "idx"], ["Y"])], [vi("X", F, [3, 2]), vi("idx", e, [2])], [vi("Y", F)])
    return m(F), m(I64)


@case("types", "sqrt_int32", "Sqrt on int32")
def _():
    return unary("Sqrt", I32), unary("Sqrt", F)


@case("types", "and_float", "And on float (T is bool)")
def _():
    return binary("And", F, F, out_elem=B), binary("And", B, B, out_elem=B)


@case("types", "output_elem_type_wrong", "Relu's float output declared int64 in the graph outputs")
def _():
    return unary("Relu", F, out_elem=I64), unary("Relu", F, out_elem=F)


# ---- arity ---------------------------------------------------------------------------

@case("arity", "conv_one_input", "Conv with only X (W is required)")
def _():
    def m(ins):
        return model([node("Conv", ins, ["Y"])], [vi("X", F, [1, 1, 3, 3]), vi("W", F, [1, 1, 2, 2])], [vi("Y", F)])
    return m(["X"]), m(["X", "W"])


@case("arity", "reshape_one_input", "Reshape with only data")
def _():
    def m(ins):
        return model([node("Reshape", ins, ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)], [i64("shape", [3, 2])])
    return m(["X"]), m(["X", "shape"])


@case("arity", "reshape_shape_empty_name", "Reshape whose required shape input is given as ''")
def _():
    def m(ins):
        return model([node("Reshape", ins, ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)], [i64("shape", [3, 2])])
    return m(["X", ""]), m(["X", "shape"])


@case("arity", "matmul_one_input", "MatMul with one input")
def _():
    def m(ins):
        return model([node("MatMul", ins, ["Y"])], [vi("A", F, [2, 3]), vi("B", F, [3, 2])], [vi("Y", F)])
    return m(["A"]), m(["A", "B"])


@case("arity", "gather_one_input", "Gather without indices")
def _():
    def m(ins):
        return model([node("Gather", ins, ["Y"])], [vi("X", F, [3, 2])], [vi("Y", F)], [i64("idx", [0, 1])])
    return m(["X"]), m(["X", "idx"])


@case("arity", "gemm_four_inputs", "Gemm with four inputs (at most three)")
def _():
    def m(ins):
        return model([node("Gemm", ins, ["Y"])], [vi("A", F, [2, 3]), vi("B", F, [3, 2])], [vi("Y", F)],
                     [f32("C", [0.0, 0.0]), f32("D", [0.0, 0.0])])
    return m(["A", "B", "C", "D"]), m(["A", "B", "C"])


@case("arity", "topk_no_k", "TopK-13 without its k input")
def _():
    def m(ins):
        return model([node("TopK", ins, ["V", "I"])], [vi("X", F, [2, 3])], [vi("V", F), vi("I", I64)],
                     [i64("K", [1])])
    return m(["X"]), m(["X", "K"])


@case("arity", "relu_two_outputs", "Relu with two outputs")
def _():
    def m(outs):
        return model([node("Relu", ["X"], outs)], [vi("X", F, [2, 3])], [vi("Y", F)])
    return m(["Y", "Z"]), m(["Y"])


@case("arity", "concat_zero_inputs", "Concat with no inputs")
def _():
    def m(ins):
        return model([node("Concat", ins, ["Y"], axis=0)], [vi("X", F, [2, 3])], [vi("Y", F)])
    return m([]), m(["X"])


@case("arity", "add_three_inputs", "Add with three inputs")
def _():
    def m(ins):
        return model([node("Add", ins, ["Y"])], [vi("A", F, [2]), vi("B", F, [2]), vi("C", F, [2])], [vi("Y", F)])
    return m(["A", "B", "C"]), m(["A", "B"])


@case("arity", "where_two_inputs", "Where with two inputs")
def _():
    def m(ins):
        return model([node("Where", ins, ["Y"])], [vi("C", B, [2]), vi("A", F, [2]), vi("B", F, [2])], [vi("Y", F)])
    return m(["C", "A"]), m(["C", "A", "B"])


@case("arity", "dropout_three_outputs", "Dropout with three outputs (at most two)")
def _():
    def m(outs):
        return model([node("Dropout", ["X"], outs)], [vi("X", F, [2, 3])], [vi("Y", F)])
    return m(["Y", "M", "Z"]), m(["Y", "M"])


# ---- attributes ----------------------------------------------------------------------

@case("arity", "squeeze_axes_listed_empty", "Squeeze-13 whose optional axes is listed as ''")
def _():
    def m(ins):
        return model([node("Squeeze", ins, ["Y"])], [vi("X", F, [1, 3])], [vi("Y", F)])
    return m(["X", ""]), m(["X"])


@case("guards", "squeeze_axes_empty_in_fixed_branch",
      "Squeeze-13 with axes '' in a branch of an If on a constant (ONNX Runtime inlines it without the input)")
def _():
    then_g = graph([node("Squeeze", ["X", ""], ["o"])], [], [vi("o", F, [3])], name="then")
    else_g = graph([node("Squeeze", ["X"], ["o"])], [], [vi("o", F, [3])], name="else")
    return None, model([node("If", ["c"], ["Y"], then_branch=then_g, else_branch=else_g)], [vi("X", F, [1, 3])],
                       [vi("Y", F)], [init("c", np.array(True))])


@case("attributes", "split_num_outputs_and_split", "Split-18 with num_outputs and its split input listed as ''")
def _():
    def m(ins):
        return model([node("Split", ins, ["A", "B"], axis=1, num_outputs=2)], [vi("X", F, [2, 4])],
                     [vi("A", F), vi("B", F)], opset=18)
    return m(["X", ""]), m(["X"])


@case("attributes", "regex_without_pattern", "RegexFullMatch without its pattern (optional in the schema)")
def _():
    def m(pattern):
        kw = {"pattern": pattern} if pattern else {}
        words = helper.make_tensor("w", S, [2], [b"ab", b"cd"])
        return model([node("Constant", [], ["W"], value=words), node("RegexFullMatch", ["W"], ["Y"], **kw)], [],
                     [vi("Y", B)], opset=20, ir=9)
    return m(None), m("a.")


@case("attributes", "relu_unknown_attr", "Relu with an attribute 'foo' it does not have")
def _():
    return unary("Relu", F, foo=1), unary("Relu", F)


@case("attributes", "concat_axis_float", "Concat whose axis is a FLOAT attribute")
def _():
    def m(axis):
        return model([node("Concat", ["A", "B"], ["Y"], axis=axis)], [vi("A", F, [2, 3]), vi("B", F, [2, 3])],
                     [vi("Y", F)])
    return m(1.0), m(1)


@case("attributes", "attr_twice", "Concat with its axis attribute given twice")
def _():
    def m(twice):
        n = node("Concat", ["A", "B"], ["Y"], axis=1)
        if twice:
            n.attribute.append(helper.make_attribute("axis", 0))
        return model([n], [vi("A", F, [2, 3]), vi("B", F, [2, 3])], [vi("Y", F)])
    return m(True), m(False)


@case("attributes", "transpose_perm_length", "Transpose perm of length 3 on a rank-2 tensor")
def _():
    return unary("Transpose", F, perm=[1, 0, 2]), unary("Transpose", F, perm=[1, 0])


@case("attributes", "transpose_perm_range", "Transpose perm naming axis 5 of a rank-2 tensor")
def _():
    return unary("Transpose", F, perm=[0, 5]), unary("Transpose", F, perm=[1, 0])


@case("attributes", "transpose_perm_repeat", "Transpose perm [0, 0] (not a permutation)")
def _():
    return unary("Transpose", F, perm=[0, 0]), unary("Transpose", F, perm=[1, 0])


@case("attributes", "conv_auto_pad_foo", "Conv auto_pad 'FOO'")
def _():
    def m(pad):
        return model([node("Conv", ["X", "W"], ["Y"], auto_pad=pad)],
                     [vi("X", F, [1, 1, 3, 3]), vi("W", F, [1, 1, 2, 2])], [vi("Y", F)])
    return m("FOO"), m("VALID")


@case("attributes", "softmax_axis_range", "Softmax axis 3 on a rank-2 tensor")
def _():
    return unary("Softmax", F, axis=3), unary("Softmax", F, axis=1)


@case("attributes", "concat_no_axis", "Concat without its required axis")
def _():
    def m(**a):
        return model([node("Concat", ["A", "B"], ["Y"], **a)], [vi("A", F, [2, 3]), vi("B", F, [2, 3])], [vi("Y", F)])
    return m(), m(axis=0)


@case("attributes", "cast_no_to", "Cast without its required 'to'")
def _():
    return unary("Cast", I32, out_elem=F), unary("Cast", I32, out_elem=F, to=F)


@case("attributes", "gather_axis_range", "Gather axis 2 on a rank-2 tensor")
def _():
    def m(axis):
        return model([node("Gather", ["X", "idx"], ["Y"], axis=axis)], [vi("X", F, [3, 2])], [vi("Y", F)],
                     [i64("idx", [0, 1])])
    return m(2), m(1)


@case("attributes", "leakyrelu_alpha_string", "LeakyRelu alpha as a STRING attribute")
def _():
    return unary("LeakyRelu", F, alpha="0.1"), unary("LeakyRelu", F, alpha=0.1)


@case("attributes", "flatten_axis_range", "Flatten axis 5 on a rank-2 tensor")
def _():
    return unary("Flatten", F, axis=5), unary("Flatten", F, axis=1)


@case("attributes", "attr_no_type", "LeakyRelu whose alpha attribute has no type (UNDEFINED)")
def _():
    def m(typed):
        n = node("LeakyRelu", ["X"], ["Y"])
        a = AttributeProto(name="alpha", f=0.1)
        if typed:
            a.type = AttributeProto.FLOAT
        n.attribute.append(a)
        return model([n], [vi("X", F, [2, 3])], [vi("Y", F)])
    return m(False), m(True)


# ---- opset ---------------------------------------------------------------------------

@case("opset", "gelu_op13", "Gelu at opset 13 (defined in opset 20)")
def _():
    def m(opset, ir):
        return model([node("Gelu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F, [2, 3])], opset=opset, ir=ir)
    return m(13, 7), m(20, 9)


@case("opset", "hardswish_op13", "HardSwish at opset 13 (defined in opset 14)")
def _():
    return unary("HardSwish", F, opset=13), unary("HardSwish", F, opset=14)


@case("opset", "layernorm_op16", "LayerNormalization at opset 16 (defined in opset 17)")
def _():
    def m(opset):
        return model([node("LayerNormalization", ["X", "scale"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                     [f32("scale", [1.0, 1.0, 1.0])], opset=opset, ir=8)
    return m(16), m(17)


@case("opset", "upsample_op11", "Upsample at opset 11 (deprecated since opset 10)")
def _():
    def m(opset):
        return model([node("Upsample", ["X", "scales"], ["Y"])], [vi("X", F, [1, 1, 2, 2])], [vi("Y", F)],
                     [f32("scales", [1.0, 1.0, 2.0, 2.0])], opset=opset)
    return m(11), m(9)


@case("opset", "scatter_op11", "Scatter at opset 11 (deprecated in opset 11)")
def _():
    def m(opset):
        return model([node("Scatter", ["X", "idx", "upd"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                     [i64("idx", [[0, 1, 0]]), f32("upd", [[5.0, 6.0, 7.0]])], opset=opset)
    return m(11), m(10)


@case("opset", "opset_99", "ai.onnx opset 99")
def _():
    return unary("Relu", F, opset=99), unary("Relu", F, opset=13)


@case("opset", "ir_version_99", "IR version 99")
def _():
    bad = unary("Relu", F)
    bad.ir_version = 99
    return bad, unary("Relu", F)


@case("opset", "ir_too_old", "IR version 3 with opset 13 (opset 13 needs IR 7)")
def _():
    bad = unary("Relu", F)
    bad.ir_version = 3
    return bad, unary("Relu", F)


@case("opset", "domain_not_imported", "A com.microsoft node without com.microsoft in opset_import")
def _():
    def m(imported):
        ops = [helper.make_opsetid("", 13)] + ([helper.make_opsetid("com.microsoft", 1)] if imported else [])
        return model([node("Gelu", ["X"], ["Y"], domain="com.microsoft")], [vi("X", F, [2, 3])],
                     [vi("Y", F, [2, 3])], opsets=ops)
    return m(False), m(True)


@case("opset", "no_opset_import", "A model with no opset_import at all")
def _():
    return model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)], opsets=[]), unary("Relu", F)


@case("opset", "reducesum_axes_attr_op13", "ReduceSum-13 with the axes attribute of ReduceSum-11")
def _():
    bad = unary("ReduceSum", F, opset=13, axes=[1])
    good = model([node("ReduceSum", ["X", "axes"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)], [i64("axes", [1])])
    return bad, good


@case("opset", "unknown_op", "An ai.onnx operator that does not exist (Relu6)")
def _():
    return unary("Relu6", F), unary("Relu", F)


@case("opset", "unknown_domain_version", "com.microsoft imported at version 99")
def _():
    def m(v):
        return model([node("Gelu", ["X"], ["Y"], domain="com.microsoft")], [vi("X", F, [2, 3])],
                     [vi("Y", F, [2, 3])],
                     opsets=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", v)])
    return m(99), m(1)


# ---- graph ---------------------------------------------------------------------------

@case("graph", "input_no_type", "A graph input with no type")
def _():
    bad = unary("Relu", F)
    bad.graph.input[0].ClearField("type")
    return bad, unary("Relu", F)


@case("graph", "init_type_contradicts_input", "An initializer int64 where the graph input of its name is float")
def _():
    def m(arr):
        return model([node("Add", ["X", "W"], ["Y"])], [vi("X", F, [2]), vi("W", F, [2])], [vi("Y", F)], [arr])
    return m(i64("W", [1, 2])), m(f32("W", [1.0, 2.0]))


@case("graph", "output_no_producer", "A graph output that nothing produces")
def _():
    def m(out):
        return model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi(out, F, [2, 3])])
    return m("Z"), m("Y")


@case("graph", "output_shape_wrong", "A graph output declared (3,) where Relu gives (2, 3)")
def _():
    def m(shape):
        return model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F, shape)])
    return m([3]), m([2, 3])


@case("graph", "value_info_type_wrong", "value_info declares an intermediate int64 where it is float")
def _():
    def m(e):
        return model([node("Relu", ["X"], ["T"]), node("Neg", ["T"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                     value_info=[vi("T", e, [2, 3])])
    return m(I64), m(F)


@case("graph", "input_undefined", "A node input that nothing defines")
def _():
    def m(name):
        return model([node("Relu", [name], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)])
    return m("ghost"), m("X")


@case("graph", "output_produced_twice", "Two nodes writing the same value")
def _():
    def m(second):
        return model([node("Relu", ["X"], ["T"]), node("Neg", ["X"], [second]), node("Add", ["T", "U"], ["Y"])]
                     if second == "U" else
                     [node("Relu", ["X"], ["T"]), node("Neg", ["X"], ["T"]), node("Add", ["T", "T"], ["Y"])],
                     [vi("X", F, [2, 3])], [vi("Y", F)])
    return m("T"), m("U")


@case("graph", "cycle", "Two nodes feeding each other")
def _():
    def m(cyc):
        a = node("Add", ["X", "V" if cyc else "X"], ["U"])
        b = node("Relu", ["U"], ["V"])
        return model([a, b], [vi("X", F, [2])], [vi("V", F)])
    return m(True), m(False)


@case("graph", "raw_data_size", "A float[2] initializer with 3 bytes of raw_data")
def _():
    def m(n):
        t = TensorProto(name="W", data_type=F, dims=[2], raw_data=np.array([1.0, 2.0], np.float32).tobytes()[:n])
        return model([node("Add", ["X", "W"], ["Y"])], [vi("X", F, [2])], [vi("Y", F)], [t])
    return m(3), m(8)


@case("graph", "duplicate_input", "The same graph input declared twice")
def _():
    bad = unary("Relu", F)
    bad.graph.input.append(vi("X", F, [2, 3]))
    return bad, unary("Relu", F)


@case("graph", "nodes_out_of_order", "Nodes not in topological order")
def _():
    def m(rev):
        ns = [node("Relu", ["X"], ["T"]), node("Neg", ["T"], ["Y"])]
        return model(ns[::-1] if rev else ns, [vi("X", F, [2, 3])], [vi("Y", F)])
    return m(True), m(False)


@case("graph", "init_dims_no_data", "A float[2, 2] initializer with no data")
def _():
    def m(data):
        t = TensorProto(name="W", data_type=F, dims=[2, 2])
        if data:
            t.float_data.extend([1.0, 2.0, 3.0, 4.0])
        return model([node("Add", ["X", "W"], ["Y"])], [vi("X", F, [2, 2])], [vi("Y", F)], [t])
    return m(False), m(True)


@case("graph", "node_name_twice", "Two nodes with the same name")
def _():
    def m(second):
        return model([node("Relu", ["X"], ["T"], name="n"), node("Neg", ["T"], ["Y"], name=second)],
                     [vi("X", F, [2, 3])], [vi("Y", F)])
    return m("n"), m("n2")


@case("graph", "elem_type_undefined", "A graph input of elem_type UNDEFINED")
def _():
    bad = unary("Relu", F)
    bad.graph.input[0].type.tensor_type.elem_type = 0
    return bad, unary("Relu", F)


# ---- subgraphs -----------------------------------------------------------------------

def if_model(then_g, else_g, out_elem=F, cond_elem=B):
    return model([node("If", ["cond"], ["Y"], then_branch=then_g, else_branch=else_g)],
                 [vi("cond", cond_elem, []), vi("X", F, [2])], [vi("Y", out_elem)])


def branch(nodes, out="o", elem=F, inits=(), name="b"):
    return graph(nodes, [], [vi(out, elem, [2])], inits, name=name)


@case("subgraphs", "if_then_type_error", "An If whose then-branch adds float and int64")
def _():
    def m(c):
        then_g = branch([node("Add", ["X", "c"], ["o"])], inits=[c], name="then")
        else_g = branch([node("Identity", ["X"], ["o"])], name="else")
        return if_model(then_g, else_g)
    return m(i64("c", [1, 1])), m(f32("c", [1.0, 1.0]))


@case("subgraphs", "if_branch_types_differ", "If branches giving float and int64")
def _():
    def m(e):
        then_g = branch([node("Identity", ["X"], ["o"])], name="then")
        else_g = branch([node("Cast", ["X"], ["o"], to=e)], elem=e, name="else")
        return if_model(then_g, else_g)
    return m(I64), m(F)


@case("subgraphs", "if_cond_float", "If with a float condition")
def _():
    def m(e):
        return if_model(branch([node("Identity", ["X"], ["o"])], name="then"),
                        branch([node("Neg", ["X"], ["o"])], name="else"), cond_elem=e)
    return m(F), m(B)


@case("subgraphs", "if_branch_output_count", "If then-branch with two outputs, else with one")
def _():
    def m(two):
        outs = [vi("o", F, [2])] + ([vi("p", F, [2])] if two else [])
        then_g = graph([node("Identity", ["X"], ["o"])] + ([node("Neg", ["X"], ["p"])] if two else []), [], outs,
                       name="then")
        return if_model(then_g, branch([node("Neg", ["X"], ["o"])], name="else"))
    return m(True), m(False)


@case("subgraphs", "if_no_else", "If without its else_branch")
def _():
    then_g = branch([node("Identity", ["X"], ["o"])], name="then")
    bad = model([node("If", ["cond"], ["Y"], then_branch=then_g)], [vi("cond", B, []), vi("X", F, [2])],
                [vi("Y", F)])
    return bad, if_model(then_g, branch([node("Neg", ["X"], ["o"])], name="else"))


@case("subgraphs", "if_body_undefined_name", "An If branch reading a name defined nowhere")
def _():
    def m(name):
        return if_model(branch([node("Identity", [name], ["o"])], name="then"),
                        branch([node("Neg", ["X"], ["o"])], name="else"))
    return m("ghost"), m("X")


def loop_model(body, cond_init=None, v_elem=F):
    cond_init = cond_init if cond_init is not None else init("c0", np.array(True))
    return model([node("Loop", ["M", "c0", "v0"], ["vN"], body=body)], [vi("v0", v_elem, [2])], [vi("vN", v_elem, [2])],
                 [i64("M", 2), cond_init])


def loop_body(nodes, ins=None, outs=None, inits=()):
    ins = ins if ins is not None else [vi("i", I64, []), vi("ci", B, []), vi("v", F, [2])]
    outs = outs if outs is not None else [vi("co", B, []), vi("vo", F, [2])]
    return graph(nodes, ins, outs, inits, name="body")


@case("subgraphs", "loop_body_type_error", "A Loop body adding float and int64")
def _():
    def m(c):
        return loop_model(loop_body([node("Identity", ["ci"], ["co"]), node("Add", ["v", "k"], ["vo"])], inits=[c]))
    return m(i64("k", [1, 1])), m(f32("k", [1.0, 1.0]))


@case("subgraphs", "loop_cond_float", "Loop with a float condition")
def _():
    body = loop_body([node("Identity", ["ci"], ["co"]), node("Neg", ["v"], ["vo"])])
    bad_body = loop_body([node("Identity", ["ci"], ["co"]), node("Neg", ["v"], ["vo"])],
                         ins=[vi("i", I64, []), vi("ci", F, []), vi("v", F, [2])],
                         outs=[vi("co", F, []), vi("vo", F, [2])])
    return loop_model(bad_body, init("c0", np.array(1.0, np.float32))), loop_model(body)


@case("subgraphs", "loop_carried_type_change", "A Loop-carried value entering float and leaving int64")
def _():
    bad = loop_body([node("Identity", ["ci"], ["co"]), node("Cast", ["v"], ["vo"], to=I64)],
                    outs=[vi("co", B, []), vi("vo", I64, [2])])
    good = loop_body([node("Identity", ["ci"], ["co"]), node("Cast", ["v"], ["vo"], to=F)])
    return loop_model(bad), loop_model(good)


@case("subgraphs", "loop_body_input_count", "A Loop body without its condition input")
def _():
    bad = loop_body([node("Identity", ["v"], ["vo"]), node("Constant", [], ["co"], value=helper.make_tensor(
        "t", B, [], [True]))], ins=[vi("i", I64, []), vi("v", F, [2])])
    good = loop_body([node("Identity", ["ci"], ["co"]), node("Identity", ["v"], ["vo"])])
    return loop_model(bad), loop_model(good)


def scan_model(body, x_shapes=((3, 2),), nscan=1):
    ins = [vi("s0", F, [2])] + [vi("x%d" % k, F, list(s)) for k, s in enumerate(x_shapes)]
    return model([node("Scan", [i.name for i in ins], ["sN", "ys"], body=body, num_scan_inputs=nscan)], ins,
                 [vi("sN", F), vi("ys", F)])


def scan_body(nodes, ins, outs):
    return graph(nodes, ins, outs, name="body")


@case("subgraphs", "scan_body_type_error", "A Scan body adding float and int64")
def _():
    def m(c):
        body = graph([node("Add", ["s", "x"], ["t"]), node("Add", ["t", "k"], ["so"]), node("Identity", ["t"], ["y"])],
                     [vi("s", F, [2]), vi("x", F, [2])], [vi("so", F, [2]), vi("y", F, [2])], [c], name="body")
        return scan_model(body)
    return m(i64("k", [1, 1])), m(f32("k", [1.0, 1.0]))


@case("subgraphs", "scan_length_mismatch", "Scan over two inputs of lengths 3 and 4")
def _():
    def m(shapes):
        body = scan_body([node("Add", ["s", "x"], ["t"]), node("Add", ["t", "z"], ["so"]),
                          node("Identity", ["t"], ["y"])],
                         [vi("s", F, [2]), vi("x", F, [2]), vi("z", F, [2])], [vi("so", F, [2]), vi("y", F, [2])])
        return scan_model(body, shapes, nscan=2)
    return m(((3, 2), (4, 2))), m(((3, 2), (3, 2)))


@case("subgraphs", "scan_body_input_count", "A Scan body with one input for one state and one scan input")
def _():
    def m(two):
        if two:
            body = scan_body([node("Add", ["s", "x"], ["so"]), node("Identity", ["x"], ["y"])],
                             [vi("s", F, [2]), vi("x", F, [2])], [vi("so", F, [2]), vi("y", F, [2])])
        else:
            body = scan_body([node("Identity", ["s"], ["so"]), node("Identity", ["s"], ["y"])],
                             [vi("s", F, [2])], [vi("so", F, [2]), vi("y", F, [2])])
        return scan_model(body)
    return m(False), m(True)


@case("subgraphs", "scan_state_type_change", "A Scan state entering float and leaving int64")
def _():
    def m(e):
        body = scan_body([node("Add", ["s", "x"], ["t"]), node("Cast", ["t"], ["so"], to=e),
                          node("Identity", ["x"], ["y"])],
                         [vi("s", F, [2]), vi("x", F, [2])], [vi("so", e, [2]), vi("y", F, [2])])
        return scan_model(body)
    return m(I64), m(F)


# ---- functions -----------------------------------------------------------------------

LOCAL = "local.fn"


def fn(name, nodes, ins=("x",), outs=("y",), opsets=None, attrs=()):
    ops = opsets if opsets is not None else [helper.make_opsetid("", 13)]
    return helper.make_function(LOCAL, name, list(ins), list(outs), list(nodes), ops, list(attrs))


def fn_model(funcs, call_ins=("X",), call_outs=("Y",), op="Foo", import_local=True, out_elem=F, attrs=None,
             inputs=None):
    ops = [helper.make_opsetid("", 13)] + ([helper.make_opsetid(LOCAL, 1)] if import_local else [])
    n = node(op, list(call_ins), list(call_outs), domain=LOCAL)
    for a in attrs or []:
        n.attribute.append(a)
    return model([n], inputs or [vi("X", F, [2, 3])], [vi(o, out_elem) for o in call_outs], ir=8, opsets=ops,
                 functions=funcs)


def const_node(out, arr):
    return node("Constant", [], [out], value=numpy_helper.from_array(np.asarray(arr), out))


@case("functions", "function_in_the_default_domain", "A model-local function in the default domain, called there")
def _():
    bad = fn_model([fn("Foo", [node("Relu", ["x"], ["y"])])])
    bad.functions[0].domain = ""
    bad.graph.node[0].domain = ""
    return bad, fn_model([fn("Foo", [node("Relu", ["x"], ["y"])])])


@case("functions", "body_type_error", "A model-local function adding float and int64 in its body")
def _():
    def m(dt):
        return fn_model([fn("Foo", [const_node("c", np.array([1], dt)), node("Add", ["x", "c"], ["y"])])])
    return m(np.int64), m(np.float32)


@case("functions", "body_unknown_op", "A function body calling an operator that does not exist")
def _():
    def m(op):
        return fn_model([fn("Foo", [node(op, ["x"], ["y"])])])
    return m("NoSuchOp"), m("Relu")


@case("functions", "body_opset_missing", "A function body using ai.onnx ops without importing ai.onnx")
def _():
    def m(ops):
        return fn_model([fn("Foo", [node("Relu", ["x"], ["y"])], opsets=ops)])
    return m([helper.make_opsetid("com.example", 1)]), m([helper.make_opsetid("", 13)])


@case("functions", "call_too_many_inputs", "A call with two inputs to a function declaring one")
def _():
    def m(ins):
        return fn_model([fn("Foo", [node("Relu", ["x"], ["y"])])], call_ins=ins,
                        inputs=[vi("X", F, [2, 3]), vi("X2", F, [2, 3])])
    return m(("X", "X2")), m(("X",))


@case("functions", "call_too_many_outputs", "A call with two outputs to a function declaring one")
def _():
    def m(outs):
        mm = fn_model([fn("Foo", [node("Relu", ["x"], ["y"])])], call_outs=outs)
        for o in mm.graph.output:
            o.type.tensor_type.shape.dim.add()
            o.type.tensor_type.shape.dim.add()
        return mm
    return m(("Y", "Z")), m(("Y",))


@case("functions", "domain_not_imported", "A call to a model-local function whose domain is not imported")
def _():
    def m(imported):
        return fn_model([fn("Foo", [node("Relu", ["x"], ["y"])])], import_local=imported)
    return m(False), m(True)


@case("functions", "output_not_produced", "A function whose declared output its body never produces")
def _():
    def m(out):
        return fn_model([fn("Foo", [node("Relu", ["x"], [out])])])
    return m("z"), m("y")


@case("functions", "body_undefined_name", "A function body reading a name defined nowhere")
def _():
    def m(name):
        return fn_model([fn("Foo", [node("Relu", [name], ["y"])])])
    return m("ghost"), m("x")


@case("functions", "attr_ref_unbound", "A body Concat whose axis refers to an attribute the call does not give")
def _():
    def m(bound):
        ref = AttributeProto(name="axis", ref_attr_name="axis", type=AttributeProto.INT)
        cat = node("Concat", ["x", "x"], ["y"])
        cat.attribute.append(ref)
        attrs = [helper.make_attribute("axis", 0)] if bound else []
        return fn_model([fn("Foo", [cat], attrs=["axis"])], attrs=attrs)
    return m(False), m(True)


@case("functions", "recursive", "A function that calls itself")
def _():
    def m(rec):
        body = node("Foo", ["x"], ["y"], domain=LOCAL) if rec else node("Relu", ["x"], ["y"])
        ops = [helper.make_opsetid("", 13), helper.make_opsetid(LOCAL, 1)]
        return fn_model([fn("Foo", [body], opsets=ops)])
    return m(True), m(False)


@case("functions", "unknown_function", "A call in the function's domain to a name no function has")
def _():
    def m(op):
        return fn_model([fn("Foo", [node("Relu", ["x"], ["y"])])], op=op)
    return m("Bar"), m("Foo")


@case("functions", "body_arity", "A function body with a one-input Gemm")
def _():
    def m(ins):
        return fn_model([fn("Foo", [node("Gemm", ins, ["y"], transB=1)])])
    return m(["x"]), m(["x", "x"])


# ---- overflow ------------------------------------------------------------------------

@case("overflow", "reshape_huge", "Reshape a 4-element tensor to (2^40, 2^40)")
def _():
    def m(shape):
        return model([node("Reshape", ["X", "shape"], ["Y"])], [vi("X", F, [4])], [vi("Y", F)], [i64("shape", shape)])
    return m([BIG, BIG]), m([2, 2])


@case("overflow", "input_declared_huge", "A graph input declared (2^40, 2^40)")
def _():
    return unary("Relu", F, shape=(BIG, BIG)), unary("Relu", F, shape=(2, 2))


@case("overflow", "expand_huge", "Expand to (2^40, 2^40)")
def _():
    def m(shape):
        return model([node("Expand", ["X", "shape"], ["Y"])], [vi("X", F, [1])], [vi("Y", F)], [i64("shape", shape)])
    return m([BIG, BIG]), m([2, 2])


@case("overflow", "constantofshape_huge", "ConstantOfShape (2^40, 2^40)")
def _():
    def m(shape):
        return model([node("ConstantOfShape", ["shape"], ["Y"])], [], [vi("Y", F)], [i64("shape", shape)])
    return m([BIG, BIG]), m([2, 2])


@case("overflow", "tile_huge", "Tile a (2,) tensor 2^62 times")
def _():
    def m(rep):
        return model([node("Tile", ["X", "rep"], ["Y"])], [vi("X", F, [2])], [vi("Y", F)], [i64("rep", [rep])])
    return m(1 << 62), m(2)


@case("overflow", "init_dims_overflow", "An initializer declared (2^40, 2^40) with no data")
def _():
    def m(big):
        if big:
            t = TensorProto(name="W", data_type=F, dims=[BIG, BIG])
        else:
            t = f32("W", [[1.0, 2.0], [3.0, 4.0]])
        return model([node("Add", ["X", "W"], ["Y"])], [vi("X", F, [2, 2])], [vi("Y", F)], [t])
    return m(True), m(False)


@case("overflow", "range_huge", "Range(0, 2^62, 1) on int64")
def _():
    def m(limit):
        return model([node("Range", ["s", "l", "d"], ["Y"])], [], [vi("Y", I64)],
                     [i64("s", 0), i64("l", limit), i64("d", 1)])
    return m(1 << 62), m(4)


@case("overflow", "pad_huge", "Pad a (2,) tensor by 2^62 at its end")
def _():
    def m(p):
        return model([node("Pad", ["X", "pads"], ["Y"])], [vi("X", F, [2])], [vi("Y", F)], [i64("pads", [0, p])])
    return m(1 << 62), m(1)


@case("overflow", "resize_huge", "Resize by scales 1e10 on both spatial axes")
def _():
    def m(s):
        return model([node("Resize", ["X", "", "scales"], ["Y"])], [vi("X", F, [1, 1, 2, 2])], [vi("Y", F)],
                     [f32("scales", [1.0, 1.0, s, s])])
    return m(1e10), m(2.0)


@case("overflow", "concat_declared_huge", "Concat of two inputs declared (2^62,) and (2^62,)")
def _():
    def m(n):
        return model([node("Concat", ["A", "B"], ["Y"], axis=0)], [vi("A", F, [n]), vi("B", F, [n])], [vi("Y", F)])
    return m(1 << 62), m(2)


# ---- values: attributes and constant inputs whose values ONNX Runtime refuses --------

X4 = [1, 2, 4, 4]


def one(op, ins, extra_inputs, inits, outs=("Y",), opset=13, **attrs):
    """One node over X (1, 2, 4, 4) and more inputs or initializers."""
    return model([node(op, ins, list(outs), **attrs)], [vi("X", F, X4)] + list(extra_inputs),
                 [vi(o, F) for o in outs], inits=inits, opset=opset)


@case("values", "unsqueeze_axes_2d", "Unsqueeze-13 whose axes initializer has shape (1, 1)")
def _():
    def m(axes):
        return model([node("Unsqueeze", ["X", "a"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)], [i64("a", axes)])
    return m([[0]]), m([0])


@case("values", "squeeze_axes_scalar", "Squeeze-13 whose axes initializer is a scalar (Unsqueeze takes one, Squeeze not)")
def _():
    def m(axes):
        return model([node("Squeeze", ["X", "a"], ["Y"])], [vi("X", F, [1, 3])], [vi("Y", F)], [i64("a", axes)])
    return m(0), m([0])


@case("values", "slice_starts_scalar", "Slice-13 whose starts and ends initializers are scalars")
def _():
    def m(s, e):
        return model([node("Slice", ["X", "s", "e"], ["Y"])], [vi("X", F, [4, 3])], [vi("Y", F)],
                     [i64("s", s), i64("e", e)])
    return m(0, 2), m([0], [2])


@case("values", "resize_sizes_input_2d", "Resize whose sizes is a graph input of shape (4, 1)")
def _():
    def m(shape):
        return model([node("Resize", ["X", "", "", "sizes"], ["Y"])], [vi("X", F, [1, 1, 2, 2]), vi("sizes", I64, shape)],
                     [vi("Y", F)])
    return m([4, 1]), m([4])


@case("guards", "resize_sizes_initializer_2d", "Resize whose sizes is an initializer of shape (4, 1) (its content is read)")
def _():
    return None, model([node("Resize", ["X", "", "", "sizes"], ["Y"])], [vi("X", F, [1, 1, 2, 2])], [vi("Y", F)],
                       [init("sizes", np.array([[1], [1], [4], [4]], np.int64))])


@case("values", "resize_scales_input_count", "Resize whose scales is a graph input of 8 values for a rank-4 X")
def _():
    def m(shape):
        return model([node("Resize", ["X", "", "scales"], ["Y"])], [vi("X", F, [1, 1, 2, 2]), vi("scales", F, shape)],
                     [vi("Y", F)])
    return m([4, 2]), m([4])


@case("values", "conv_kernel_shape_length", "Conv kernel_shape of one value for a 2-D convolution")
def _():
    w = f32("W", np.zeros((2, 2, 3, 3)))
    return (one("Conv", ["X", "W"], [], [w], kernel_shape=[3]), one("Conv", ["X", "W"], [], [w], kernel_shape=[3, 3]))


@case("values", "pad_pads_length", "Pad with 6 pads for a rank-4 input")
def _():
    return (one("Pad", ["X", "P"], [], [i64("P", [0] * 6)]), one("Pad", ["X", "P"], [], [i64("P", [0] * 8)]))


@case("values", "transpose_perm_repeated", "Transpose perm naming an axis twice")
def _():
    return one("Transpose", ["X"], [], [], perm=[0, 0, 1, 2]), one("Transpose", ["X"], [], [], perm=[0, 1, 3, 2])


@case("values", "split_sizes_sum", "Split sizes summing to 4 on an axis of 2")
def _():
    return (one("Split", ["X", "S"], [], [i64("S", [1, 3])], outs=("A", "B"), axis=1),
            one("Split", ["X", "S"], [], [i64("S", [1, 1])], outs=("A", "B"), axis=1))


@case("values", "slice_axis_out_of_range", "Slice on axis 7 of a rank-4 input")
def _():
    def m(ax):
        return one("Slice", ["X", "S", "E", "A"], [], [i64("S", [0]), i64("E", [1]), i64("A", [ax])])
    return m(7), m(1)


@case("values", "concat_ranks_differ", "Concat of a rank-4 and a rank-2 tensor")
def _():
    return (one("Concat", ["X", "Z"], [vi("Z", F, [2, 4])], [], axis=0),
            one("Concat", ["X", "Z"], [vi("Z", F, X4)], [], axis=0))


@case("values", "reshape_two_minus_one", "Reshape to (-1, -1)")
def _():
    return one("Reshape", ["X", "S"], [], [i64("S", [-1, -1])]), one("Reshape", ["X", "S"], [], [i64("S", [-1, 8])])


@case("values", "gather_axis_out_of_range", "Gather on axis 5 of a rank-4 input")
def _():
    return (one("Gather", ["X", "I"], [], [i64("I", [0])], axis=5), one("Gather", ["X", "I"], [], [i64("I", [0])], axis=1))


@case("values", "topk_k_larger_than_axis", "TopK with k = 5 on an axis of 4")
def _():
    def m(k):
        return one("TopK", ["X", "K"], [], [i64("K", [k])], outs=("V", "I"))
    bad, good = m(5), m(2)
    for mm in (bad, good):
        mm.graph.output[1].type.tensor_type.elem_type = I64
    return bad, good


@case("values", "lrn_even_size", "LRN of size 2 (ONNX Runtime's kernel takes odd sizes)")
def _():
    return one("LRN", ["X"], [], [], size=2), one("LRN", ["X"], [], [], size=3)


@case("values", "matmul_inner_mismatch", "MatMul (2, 3) x (4, 5)")
def _():
    return binary("MatMul", F, F, sa=(2, 3), sb=(4, 5)), binary("MatMul", F, F, sa=(2, 3), sb=(3, 5))


@case("values", "where_condition_mismatch", "Where with a condition of 3 against operands of 2")
def _():
    def m(n):
        return model([node("Where", ["C", "A", "B"], ["Y"])], [vi("C", B, [n]), vi("A", F, [2]), vi("B", F, [2])],
                     [vi("Y", F)])
    return m(3), m(2)


@case("types", "clip_min_int64_for_float", "Clip of a float tensor with an int64 min")
def _():
    def m(arr):
        return model([node("Clip", ["X", "M"], ["Y"])], [vi("X", F, [2])], [vi("Y", F)], inits=[init("M", arr)])
    return m(np.array(0, dtype=np.int64)), m(np.array(0, dtype=np.float32))


@case("types", "sequence_of_mixed_types", "SequenceConstruct of a float and an int64 tensor")
def _():
    def m(e):
        return model([node("SequenceConstruct", ["A", "B"], ["S"]), node("SequenceLength", ["S"], ["Y"])],
                     [vi("A", F, [2]), vi("B", e, [2])], [vi("Y", I64, [])])
    return m(I64), m(F)


@case("guards", "range_of_a_computed_one_element_limit", "Range whose limit is a computed (1,) tensor")
def _():
    return None, model([node("Unsqueeze", ["N", "AX"], ["N1"]), node("Range", ["S", "N1", "D"], ["Y"])],
                       [vi("N", I64, [])], [vi("Y", I64)],
                       inits=[i64("AX", [0]), init("S", np.array(0, dtype=np.int64)), init("D", np.array(1, dtype=np.int64))])


@case("guards", "dropout_double_ratio", "Dropout of a float tensor with a double ratio")
def _():
    return None, model([node("Dropout", ["X", "R"], ["Y"])], [vi("X", F, [2])], [vi("Y", F)],
                       inits=[init("R", np.array(0.5, dtype=np.float64))])


@case("guards", "cast_to_string", "Cast of floats to strings")
def _():
    return None, model([node("Cast", ["X"], ["Y"], to=S)], [vi("X", F, [2])], [vi("Y", S, [2])])


@case("guards", "optional_round_trip", "Optional then OptionalGetElement (opset 18)")
def _():
    return None, model([node("Optional", ["X"], ["O"]), node("OptionalGetElement", ["O"], ["Y"])],
                       [vi("X", F, [2])], [vi("Y", F, [2])], opset=18, ir=8)


@case("guards", "sequence_through_identity", "An empty sequence passed through Identity (opset 16)")
def _():
    return None, model([node("SequenceEmpty", [], ["S"], dtype=F), node("Identity", ["S"], ["T"]),
                        node("SequenceLength", ["T"], ["Y"])], [], [vi("Y", I64, [])], opset=16, ir=8)


# ---- guards (valid only) -------------------------------------------------------------

@case("guards", "custom_domain_only", "opset_import names only com.microsoft; default-domain ops still "
                                      "resolve (IR.md: the default set is implicitly imported)")
def _():
    return None, model([node("Relu", ["X"], ["T"]), node("Gelu", ["T"], ["Y"], domain="com.microsoft")],
                       [vi("X", F, [2, 3])], [vi("Y", F, [2, 3])], opsets=[helper.make_opsetid("com.microsoft", 1)])


@case("guards", "default_domain_twice", "opset_import lists the default domain twice (same version)")
def _():
    return None, model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                       opsets=[helper.make_opsetid("", 13), helper.make_opsetid("", 13)])


@case("guards", "ai_onnx_alias", "opset_import spells the default domain 'ai.onnx'")
def _():
    return None, model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                       opsets=[helper.make_opsetid("ai.onnx", 13)])


@case("guards", "symbolic_dims", "A graph input with a symbolic batch dimension")
def _():
    return None, unary("Relu", F, shape=("N", 3))


@case("guards", "optional_input_omitted", "Clip with its optional min given as ''")
def _():
    return None, model([node("Clip", ["X", "", "hi"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                       [f32("hi", 1.0)])


@case("guards", "unused_initializer", "An initializer no node reads")
def _():
    return None, model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)], [f32("unused", [1.0])])


@case("guards", "overridable_initializer", "A graph input that also has an initializer (a default value)")
def _():
    return None, model([node("Add", ["X", "W"], ["Y"])], [vi("X", F, [2]), vi("W", F, [2])], [vi("Y", F)],
                       [f32("W", [1.0, 2.0])])


@case("guards", "input_is_output", "A graph output that is a graph input, no node between")
def _():
    return None, model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F, [2, 3]), vi("X", F, [2, 3])])


@case("guards", "zero_size_dim", "A graph input of shape (0, 3)")
def _():
    return None, unary("Relu", F, shape=(0, 3))


@case("guards", "opset21_ir10", "Opset 21 at IR version 10")
def _():
    m = unary("Relu", F, opset=21)
    m.ir_version = 10
    return None, m


@case("guards", "outer_scope_in_if", "If branches reading the outer graph's X")
def _():
    return None, if_model(branch([node("Relu", ["X"], ["o"])], name="then"),
                          branch([node("Neg", ["X"], ["o"])], name="else"))


@case("guards", "function_with_default_attr", "A model-local function called twice, with and without attributes")
def _():
    ref = AttributeProto(name="alpha", ref_attr_name="alpha", type=AttributeProto.FLOAT)
    lr = node("LeakyRelu", ["x"], ["y"])
    lr.attribute.append(ref)
    f = fn("Foo", [lr], attrs=["alpha"])
    ops = [helper.make_opsetid("", 13), helper.make_opsetid(LOCAL, 1)]
    n1 = node("Foo", ["X"], ["T"], domain=LOCAL, alpha=0.2)
    n2 = node("Foo", ["T"], ["Y"], domain=LOCAL)
    return None, model([n1, n2], [vi("X", F, [2, 3])], [vi("Y", F)], ir=8, opsets=ops, functions=[f])


@case("guards", "unnamed_nodes", "Nodes without names")
def _():
    return None, model([node("Relu", ["X"], ["T"]), node("Neg", ["T"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)])


@case("guards", "if_branch_shapes_differ", "If branches giving (2,) and (3,): the output's size is unknown")
def _():
    then_g = branch([node("Relu", ["X"], ["o"])], name="then")
    else_g = graph([node("Concat", ["X", "one"], ["o"], axis=0)], [], [vi("o", F, [3])], [f32("one", [1.0])],
                   name="else")
    return None, model([node("If", ["cond"], ["Y"], then_branch=then_g, else_branch=else_g)],
                       [vi("cond", B, []), vi("X", F, [2])], [vi("Y", F, [None])])


@case("guards", "reshape_zero_minus_one", "Reshape with 0 (copy) and -1 (infer) in its shape")
def _():
    return None, model([node("Reshape", ["X", "shape"], ["Y"])], [vi("X", F, [2, 3, 4])], [vi("Y", F, [2, 12])],
                       [i64("shape", [0, -1])])


@case("guards", "broadcast_add", "Add of (2, 3) and (3,), numpy broadcasting")
def _():
    return None, binary("Add", F, F, sa=(2, 3), sb=(3,))


@case("guards", "old_opset_ir_newer", "Opset 9 at IR version 7")
def _():
    return None, unary("Relu", F, opset=9)


@case("guards", "value_info_for_input", "value_info repeating a graph input's declaration")
def _():
    return None, model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                       value_info=[vi("X", F, [2, 3])])


# ---- scoping: the rules ONNX's checker holds a subgraph to, which ONNX Runtime runs on it --

def main_if(then_g, else_g, before=(), after=(), inits=(), outs=None):
    nodes = list(before) + [node("If", ["cond"], ["Y"], then_branch=then_g, else_branch=else_g)] + list(after)
    return model(nodes, [vi("cond", B, []), vi("X", F, [2])], outs or [vi("Y", F)], inits)


@case("scoping", "if_output_outer_value", "An If branch returning the outer X itself (ONNX Runtime wants an Identity)")
def _():
    def m(direct):
        then_g = graph([], [], [vi("X", F, [2])], name="then") if direct else branch([node("Identity", ["X"], ["o"])],
                                                                                      name="then")
        return if_model(then_g, branch([node("Neg", ["X"], ["o"])], name="else"))
    return m(True), m(False)


@case("scoping", "loop_output_outer_value", "A Loop body returning the outer v0 as its carried value")
def _():
    def m(direct):
        nodes = [node("Identity", ["ci"], ["co"])] + ([] if direct else [node("Identity", ["v0"], ["vo"])])
        return loop_model(loop_body(nodes, outs=[vi("co", B, []), vi("v0" if direct else "vo", F, [2])]))
    return m(True), m(False)


@case("scoping", "if_output_outer_initializer", "An If branch returning an initializer of the main graph")
def _():
    def m(direct):
        then_g = graph([], [], [vi("W", F, [2])], name="then") if direct else branch([node("Identity", ["W"], ["o"])],
                                                                                      name="then")
        return main_if(then_g, branch([node("Neg", ["X"], ["o"])], name="else"), inits=[f32("W", [1.0, 1.0])])
    return m(True), m(False)


@case("scoping", "ssa_across_scopes", "An If branch node writing T, which the main graph defined before the If")
def _():
    def m(name):
        then_g = branch([node("Relu", ["X"], [name]), node("Neg", [name], ["o"])], name="then")
        return main_if(then_g, branch([node("Neg", ["X"], ["o"])], name="else"), before=[node("Relu", ["X"], ["T"])],
                       after=[node("Add", ["Y", "T"], ["Z"])], outs=[vi("Z", F)])
    return m("T"), m("T2")


@case("scoping", "ssa_shadows_input", "An If branch node writing X, a graph input of the main graph")
def _():
    def m(name):
        then_g = branch([node("Relu", ["X"], [name]), node("Neg", [name], ["o"])], name="then")
        return main_if(then_g, branch([node("Neg", ["X"], ["o"])], name="else"))
    return m("X"), m("X2")


@case("scoping", "ssa_two_levels_down", "A branch of a nested If writing T, which the main graph defined")
def _():
    def m(name):
        inner = branch([node("Relu", ["X"], [name]), node("Neg", [name], ["o"])], name="inner_then")
        outer_then = branch([node("If", ["cond"], ["o"], then_branch=inner,
                                   else_branch=branch([node("Neg", ["X"], ["o"])], name="inner_else"))], name="then")
        return main_if(outer_then, branch([node("Neg", ["T"], ["o"])], name="else"), before=[node("Relu", ["X"], ["T"])])
    return m("T"), m("T2")


@case("scoping", "if_branch_declares_input", "An If branch with a formal input (no initializer gives it a value)")
def _():
    def m(ins):
        then_g = graph([node("Identity", ["X"], ["o"])], ins, [vi("o", F, [2])], name="then")
        return if_model(then_g, branch([node("Neg", ["X"], ["o"])], name="else"))
    return m([vi("q", F, [2])]), m([])


@case("scoping", "ir3_subgraph_initializer", "IR 3: a branch's initializer that the branch does not list as an input")
def _():
    def m(listed):
        then_g = graph([node("Add", ["X", "c"], ["o"])], [vi("c", F, [2])] if listed else [], [vi("o", F, [2])],
                       [f32("c", [1.0, 1.0])], name="then")
        mm = if_model(then_g, branch([node("Neg", ["X"], ["o"])], name="else"))
        mm.ir_version = 3
        mm.opset_import[0].version = 8
        return mm
    return m(False), m(True)


@case("scoping", "ir3_unread_initializer", "IR 3: an initializer not among the graph inputs that no node reads")
def _():
    def m(listed):
        return model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2])] + ([vi("W", F, [2])] if listed else []),
                     [vi("Y", F)], [f32("W", [1.0, 2.0])], opset=8, ir=3)
    return m(False), m(True)


@case("scoping", "if_branch_unsorted", "An If branch whose nodes are not in topological order")
def _():
    def m(rev):
        ns = [node("Relu", ["X"], ["t"]), node("Neg", ["t"], ["o"])]
        return if_model(branch(ns[::-1] if rev else ns, name="then"), branch([node("Neg", ["X"], ["o"])], name="else"))
    return m(True), m(False)


@case("scoping", "loop_body_unsorted", "A Loop body whose nodes are not in topological order")
def _():
    def m(rev):
        ns = [node("Identity", ["ci"], ["co"]), node("Relu", ["v"], ["t"]), node("Neg", ["t"], ["vo"])]
        return loop_model(loop_body(ns[::-1] if rev else ns))
    return m(True), m(False)


@case("scoping", "scan_body_unsorted", "A Scan body whose nodes are not in topological order")
def _():
    def m(rev):
        ns = [node("Add", ["s", "x"], ["t"]), node("Identity", ["t"], ["so"]), node("Identity", ["t"], ["y"])]
        body = graph(ns[::-1] if rev else ns, [vi("s", F, [2]), vi("x", F, [2])], [vi("so", F, [2]), vi("y", F, [2])],
                     name="body")
        return scan_model(body)
    return m(True), m(False)


@case("guards", "if_branches_share_a_name", "Both If branches define t (separate scopes)")
def _():
    return None, if_model(branch([node("Relu", ["X"], ["t"]), node("Neg", ["t"], ["o"])], name="then"),
                          branch([node("Neg", ["X"], ["t"]), node("Relu", ["t"], ["o"])], name="else"))


@case("guards", "branch_defines_a_later_name", "An If branch defines T, which the main graph defines after the If")
def _():
    then_g = branch([node("Relu", ["X"], ["T"]), node("Neg", ["T"], ["o"])], name="then")
    return None, main_if(then_g, branch([node("Neg", ["X"], ["o"])], name="else"), after=[node("Relu", ["Y"], ["T"])],
                         outs=[vi("T", F)])


@case("guards", "subgraph_shadows_with_input_and_initializer",
      "A Loop body input and a branch initializer named like values of the main graph")
def _():
    body = graph([node("Identity", ["ci"], ["co"]), node("Neg", ["v0"], ["vo"])],
                 [vi("i", I64, []), vi("ci", B, []), vi("v0", F, [2])], [vi("co", B, []), vi("vo", F, [2])], name="body")
    return None, loop_model(body)


@case("guards", "body_returns_its_own_input", "A Loop body returning its own carried input as it is")
def _():
    return None, loop_model(loop_body([node("Identity", ["ci"], ["co"])], outs=[vi("co", B, []), vi("v", F, [2])]))


def loop_writing(name, before=(), after=(), v0="v0"):
    """A Loop (its inputs initializers, then v0) whose body names its condition output
    `name`, among main-graph nodes `before` and `after` it; the output is vN + T."""
    body = loop_body([node("Identity", ["ci"], [name]), node("Neg", ["v"], ["vo"])],
                     outs=[vi(name, B, []), vi("vo", F, [2])])
    nodes = list(before) + [node("Loop", ["M", "c0", v0], ["vN"], body=body)] + list(after)
    return model(nodes + [node("Add", ["vN", "T"], ["Z"])], [vi("X", F, [2])], [vi("Z", F, [2])],
                 [i64("M", 2), init("c0", np.array(True))])


@case("scoping", "ssa_value_the_loop_reads_from",
      "A Loop body writing T, which the main graph computes on the way to the Loop's carried input")
def _():
    def m(name):
        return loop_writing(name, before=[node("Relu", ["X"], ["T"]), node("Neg", ["T"], ["v0"])])
    return m("T"), m("T2")


@case("scoping", "ssa_value_of_a_node_put_first",
      "A Loop body writing T, which a main-graph node after the Loop defines from a graph input only "
      "(ONNX Runtime's order puts such nodes first)")
def _():
    def m(name):
        return loop_writing(name, before=[node("Identity", ["X"], ["v0"])], after=[node("Relu", ["X"], ["T"])])
    return m("T"), m("T2")


@case("guards", "ssa_value_defined_after",
      "A Loop of initializers only, whose body writes T, which a main-graph node after the Loop defines "
      "(ONNX Runtime checks the body first)")
def _():
    mm = loop_writing("T", after=[node("Relu", ["X"], ["T"])], v0="w")
    mm.graph.initializer.append(f32("w", [1.0, 2.0]))
    return None, mm


@case("guards", "ssa_value_on_another_path",
      "A Loop body writing T, which the main graph computes before the Loop on a path the Loop does not need")
def _():
    return None, loop_writing("T", before=[node("Relu", ["X"], ["R"]), node("Neg", ["R"], ["T"]),
                                           node("Identity", ["X"], ["v0"])])


@case("subgraphs", "variadic_trailing_empty_input",
      "An If branch's Concat with a trailing '' input, the If's condition a graph input")
def _():
    def m(ins):
        then_g = branch([node("Concat", ins, ["o"], axis=0)], name="then")
        then_g.output[0].type.tensor_type.shape.dim[0].dim_value = 4
        else_g = branch([node("Concat", ["X", "X"], ["o"], axis=0)], name="else")
        else_g.output[0].type.tensor_type.shape.dim[0].dim_value = 4
        return main_if(then_g, else_g)
    return m(["X", "X", ""]), m(["X", "X"])


@case("guards", "variadic_trailing_empty_in_fixed_branch",
      "An If on a constant condition whose branch's Max has a trailing '' input (ONNX Runtime inlines the "
      "branch without it)")
def _():
    then_g = branch([node("Max", ["X", "X", ""], ["o"])], name="then")
    return None, model([node("If", ["c"], ["Y"], then_branch=then_g,
                             else_branch=branch([node("Neg", ["X"], ["o"])], name="else"))],
                       [vi("X", F, [2])], [vi("Y", F)], [init("c", np.array(True))])


# ---- names -------------------------------------------------------------------------

@case("names", "single_output_empty", "Relu whose output is ''")
def _():
    def m(out):
        return model([node("Relu", ["X"], [out]), node("Neg", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)])
    return m(""), m("R")


@case("names", "variadic_input_empty", "Concat with an input given as ''")
def _():
    def m(ins):
        return model([node("Concat", ins, ["Y"], axis=0)], [vi("X", F, [2, 3])], [vi("Y", F)])
    return m(["X", "", "X"]), m(["X", "X"])


@case("names", "loop_output_empty", "A Loop with its scan output left ''")
def _():
    def m(second):
        body = loop_body([node("Identity", ["ci"], ["co"]), node("Neg", ["v"], ["vo"]), node("Identity", ["v"], ["sc"])],
                         outs=[vi("co", B, []), vi("vo", F, [2]), vi("sc", F, [2])])
        outs = [vi("vN", F)] + ([vi(second, F)] if second else [])
        return model([node("Loop", ["M", "c0", "v0"], ["vN", second], body=body)], [vi("v0", F, [2])], outs,
                     [i64("M", 2), init("c0", np.array(True))])
    return m(""), m("scans")


@case("names", "graph_input_no_name", "A graph input with the empty name")
def _():
    def m(name):
        return model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3]), vi(name, F, [2])], [vi("Y", F)])
    return m(""), m("unused")


@case("names", "body_input_no_name", "A Loop body whose iteration-number input has the empty name")
def _():
    def m(name):
        body = graph([node("Identity", ["ci"], ["co"]), node("Neg", ["v"], ["vo"])],
                     [vi(name, I64, []), vi("ci", B, []), vi("v", F, [2])], [vi("co", B, []), vi("vo", F, [2])],
                     name="body")
        return loop_model(body)
    return m(""), m("i")


@case("names", "unnamed_initializer_read", "An unnamed initializer and an omitted input: ONNX Runtime reads it there")
def _():
    def m(name):
        return model([node("Clip", ["X", "", "hi"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)],
                     [f32("hi", 1.0), f32(name, 0.5)])
    return m(""), m("lo")


@case("names", "required_input_empty_in_branch", "A branch's MaxPool with its input '' (the branch never runs)")
def _():
    def m(inp):
        then_g = branch([node("Relu", ["X"], ["o"])], name="then")
        else_g = branch([node("Neg", [inp], ["o"])], name="else")
        return model([node("Constant", [], ["cond"], value=helper.make_tensor("c", B, [], [True])),
                      node("If", ["cond"], ["Y"], then_branch=then_g, else_branch=else_g)], [vi("X", F, [2])],
                     [vi("Y", F)])
    return m(""), m("X")


@case("names", "no_outputs", "A graph without outputs")
def _():
    def m(outs):
        return model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2])], outs)
    return m([]), m([vi("Y", F)])


@case("guards", "optional_output_empty", "Dropout with its optional mask output ''")
def _():
    return None, model([node("Dropout", ["X"], ["Y", ""])], [vi("X", F, [2, 3])], [vi("Y", F)])


@case("guards", "unnamed_initializer_unread", "An initializer without a name that nothing can read")
def _():
    return None, model([node("Relu", ["X"], ["Y"])], [vi("X", F, [2, 3])], [vi("Y", F)], [f32("", [1.0])])


# ---- encoding: attributes and tensors as bytes --------------------------------------

def leaky(**fields):
    n = node("LeakyRelu", ["X"], ["Y"])
    n.attribute.append(AttributeProto(name="alpha", **fields))
    return model([n], [vi("X", F, [2, 3])], [vi("Y", F)])


@case("encoding", "attr_type_vs_field", "LeakyRelu's alpha typed FLOAT with its value in i")
def _():
    return leaky(type=AttributeProto.FLOAT, i=1), leaky(type=AttributeProto.FLOAT, f=0.1)


@case("encoding", "attr_two_fields", "LeakyRelu's alpha holding both f and i")
def _():
    return leaky(type=AttributeProto.FLOAT, f=0.1, i=1), leaky(type=AttributeProto.FLOAT, f=0.1)


@case("encoding", "attr_list_in_scalar", "Concat's axis typed INT with its value in ints")
def _():
    def m(**fields):
        n = node("Concat", ["A", "B"], ["Y"])
        n.attribute.append(AttributeProto(name="axis", type=AttributeProto.INT, **fields))
        return model([n], [vi("A", F, [2, 3]), vi("B", F, [2, 3])], [vi("Y", F)])
    return m(ints=[1]), m(i=1)


def sparse(vals, idx, dims, name="S", idx_dtype=np.int64):
    from onnx import SparseTensorProto
    return SparseTensorProto(values=f32(name, vals), indices=init("", np.array(idx, dtype=idx_dtype)), dims=dims)


def sparse_model(st, shape=(4,)):
    mm = model([node("Add", ["X", "S"], ["Y"])], [vi("X", F, list(shape))], [vi("Y", F)])
    mm.graph.sparse_initializer.append(st)
    return mm


@case("encoding", "sparse_index_out_of_range", "A sparse initializer of dims (4,) with index 7")
def _():
    return sparse_model(sparse([1.0, 2.0], [0, 7], [4])), sparse_model(sparse([1.0, 2.0], [0, 3], [4]))


@case("encoding", "sparse_index_negative", "A sparse initializer with index -1")
def _():
    return sparse_model(sparse([1.0, 2.0], [-1, 2], [4])), sparse_model(sparse([1.0, 2.0], [1, 2], [4]))


@case("encoding", "sparse_index_count", "A sparse initializer of 2 values and 3 indices")
def _():
    return sparse_model(sparse([1.0, 2.0], [0, 1, 3], [4])), sparse_model(sparse([1.0, 2.0], [1, 3], [4]))


@case("encoding", "sparse_coordinates_out_of_range", "A sparse (2, 3) initializer with coordinates (1, 3)")
def _():
    def m(last):
        return sparse_model(sparse([1.0, 2.0], [[0, 1], [1, last]], [2, 3]), (2, 3))
    return m(3), m(2)


@case("encoding", "sparse_dims_unlike_reader",
      "A sparse (2, 3) weight of a MatMul over (2, 4) inputs (ONNX Runtime makes it a dense (2, 3) first)")
def _():
    def m(rows):
        mm = model([node("MatMul", ["X", "S"], ["Y"])], [vi("X", F, [2, 4])], [vi("Y", F)])
        mm.graph.sparse_initializer.append(sparse([1.0, 2.0], [0, 5], [rows, 3]))
        return mm
    return m(2), m(4)


@case("encoding", "sparse_constant_out_of_range", "A Constant's sparse_value of dims (4,) with index 9")
def _():
    def m(k):
        n = node("Constant", [], ["S"], sparse_value=sparse([1.0, 2.0], [0, k], [4], name="sv"))
        return model([n, node("Add", ["X", "S"], ["Y"])], [vi("X", F, [4])], [vi("Y", F)])
    return m(9), m(3)


def raw_and_typed(name, typed=True):
    t = TensorProto(name=name, data_type=F, dims=[2], raw_data=np.array([1.0, 2.0], np.float32).tobytes())
    if typed:
        t.float_data.extend([5.0, 6.0])
    return t


@case("encoding", "raw_and_typed_in_branch", "A branch's initializer holding raw_data and float_data")
def _():
    def m(typed):
        return if_model(branch([node("Add", ["X", "c"], ["o"])], inits=[raw_and_typed("c", typed)], name="then"),
                        branch([node("Neg", ["X"], ["o"])], name="else"))
    return m(True), m(False)


@case("encoding", "raw_and_typed_in_attribute", "ConstantOfShape's value holding raw_data and float_data")
def _():
    def m(typed):
        t = TensorProto(name="v", data_type=F, dims=[1], raw_data=np.array([1.0], np.float32).tobytes())
        if typed:
            t.float_data.extend([5.0])
        return model([node("ConstantOfShape", ["s"], ["Y"], value=t)], [], [vi("Y", F)], [i64("s", [2])])
    return m(True), m(False)


@case("guards", "sparse_indices_unsorted_and_int32", "A sparse initializer with unsorted int32 indices")
def _():
    return None, sparse_model(sparse([1.0, 2.0], [3, 0], [4], idx_dtype=np.int32))


@case("guards", "sparse_of_no_element", "A sparse initializer of dims (0, 4) whose indices fall outside them "
      "(ONNX Runtime reads no index of an empty tensor)")
def _():
    return None, sparse_model(sparse([1.0, 2.0], [0, 7], [0, 4]), (1, 4))


@case("guards", "dims_named_like_made_up_ones",
      "Inputs whose 80 dims are named unk__0 to unk__79, as ONNX Runtime's optimizer names them, then "
      "NonZero, whose size check makes up")
def _():
    ins = [vi("X%d" % k, F, ["unk__%d" % (2 * k), "unk__%d" % (2 * k + 1)]) for k in range(40)]
    nodes = [node("Add", ["X%d" % k, "X%d" % (k + 1)], ["S%d" % k]) for k in range(39)]
    nodes += [node("NonZero", ["S%d" % k], ["N%d" % k]) for k in range(39)]
    return None, model(nodes, ins, [vi("N%d" % k, I64) for k in range(39)])


@case("guards", "raw_and_typed_initializer", "A main-graph initializer holding raw_data and float_data (raw is read)")
def _():
    return None, model([node("Add", ["X", "W"], ["Y"])], [vi("X", F, [2])], [vi("Y", F)], [raw_and_typed("W")])


@case("guards", "attr_typed_without_value", "LeakyRelu's alpha typed FLOAT with no value field")
def _():
    return None, leaky(type=AttributeProto.FLOAT)


# ---- runtime: values the file fixes that the kernel cannot run ----------------------

@case("runtime", "optional_get_of_empty", "OptionalGetElement of an Optional built without its input")
def _():
    def m(empty):
        opt = node("Optional", [], ["O"], type=helper.make_tensor_type_proto(F, [2])) if empty else \
            node("Optional", ["X"], ["O"])
        return model([opt, node("OptionalGetElement", ["O"], ["Y"])], [vi("X", F, [2])], [vi("Y", F, [2])],
                     opset=18, ir=8)
    return m(True), m(False)


def seq_model(op_nodes, out_elem=F, inits=()):
    return model([node("SequenceConstruct", ["A", "B"], ["S"])] + op_nodes, [vi("A", F, [2]), vi("B", F, [2])],
                 [vi("Y", out_elem)], inits, opset=13)


@case("runtime", "sequence_at_out_of_range", "SequenceAt position 2 of a sequence of two")
def _():
    def m(k):
        return seq_model([node("SequenceAt", ["S", "k"], ["Y"])], inits=[i64("k", k)])
    return m(2), m(-2)


@case("runtime", "sequence_erase_out_of_range", "SequenceErase position 5 of a sequence of two")
def _():
    def m(k):
        return seq_model([node("SequenceErase", ["S", "k"], ["S2"]), node("SequenceLength", ["S2"], ["Y"])], I64,
                         [i64("k", k)])
    return m(5), m(1)


@case("runtime", "sequence_insert_out_of_range", "SequenceInsert at position 3 of a sequence of two")
def _():
    def m(k):
        return seq_model([node("SequenceInsert", ["S", "A", "k"], ["S2"]), node("SequenceLength", ["S2"], ["Y"])], I64,
                         [i64("k", k)])
    return m(3), m(2)


@case("runtime", "sequence_at_after_split", "SequenceAt position 2 of SplitToSequence's two parts")
def _():
    def m(k):
        return model([node("SplitToSequence", ["X"], ["S"], axis=0), node("SequenceAt", ["S", "k"], ["Y"])],
                     [vi("X", F, [2, 3])], [vi("Y", F)], [i64("k", k)], opset=13)
    return m(2), m(1)


@case("runtime", "scan_zero_iterations", "Scan over an input of length 0")
def _():
    def m(n):
        body = graph([node("Add", ["s", "x"], ["so"]), node("Identity", ["x"], ["y"])],
                     [vi("s", F, [2]), vi("x", F, [2])], [vi("so", F, [2]), vi("y", F, [2])], name="body")
        return scan_model(body, ((n, 2),))
    return m(0), m(3)


def attr_case(op, ins, decls, outs, opset, ir, good, bad, inits=(), out_elem=F, domain=None, opsets=None):
    def m(attrs):
        return model([node(op, ins, outs, domain=domain, **attrs)], decls, [vi(o, out_elem) for o in outs if o], inits,
                     opset=opset, ir=ir, opsets=opsets)
    return m(bad), m(good)


@case("runtime", "gelu_approximate", "Gelu approximate 'fast' (none or tanh)")
def _():
    return attr_case("Gelu", ["X"], [vi("X", F, [2, 3])], ["Y"], 20, 9, {"approximate": "tanh"}, {"approximate": "fast"})


@case("runtime", "gridsample16_mode", "GridSample-16 mode 'linear' (bilinear, nearest or bicubic there)")
def _():
    return attr_case("GridSample", ["X", "G"], [vi("X", F, [1, 1, 4, 4]), vi("G", F, [1, 2, 2, 2])], ["Y"], 16, 8,
                     {"mode": "bicubic"}, {"mode": "linear"})


@case("runtime", "gridsample20_mode", "GridSample-20 mode 'bilinear' (linear, nearest or cubic there)")
def _():
    return attr_case("GridSample", ["X", "G"], [vi("X", F, [1, 1, 4, 4]), vi("G", F, [1, 2, 2, 2])], ["Y"], 20, 9,
                     {"mode": "linear"}, {"mode": "bilinear"})


@case("runtime", "resize_mode_bilinear", "Resize mode 'bilinear' (nearest, linear or cubic)")
def _():
    return attr_case("Resize", ["X", "", "S"], [vi("X", F, [1, 1, 2, 2])], ["Y"], 13, 7, {"mode": "linear"},
                     {"mode": "bilinear"}, inits=[f32("S", [1, 1, 2, 2])])


@case("runtime", "bitshift_direction_case", "BitShift direction 'left' (LEFT or RIGHT)")
def _():
    u8 = TensorProto.UINT8
    return attr_case("BitShift", ["A", "B"], [vi("A", u8, [2]), vi("B", u8, [2])], ["Y"], 11, 6, {"direction": "LEFT"},
                     {"direction": "left"}, out_elem=u8)


@case("runtime", "rnn_activation_case", "RNN activation 'relu' (RNN's kernel matches names exactly)")
def _():
    return attr_case("RNN", ["X", "W", "R"], [vi("X", F, [1, 1, 2])], ["", "Yh"], 13, 7,
                     {"hidden_size": 3, "activations": ["Relu"]}, {"hidden_size": 3, "activations": ["relu"]},
                     inits=[f32("W", np.zeros((1, 3, 2))), f32("R", np.zeros((1, 3, 3)))])


@case("runtime", "roialign_mode", "RoiAlign mode 'bogus' (avg or max, in any case)")
def _():
    return attr_case("RoiAlign", ["X", "R", "I"], [vi("X", F, [1, 1, 4, 4])], ["Y"], 16, 8, {"mode": "Max"},
                     {"mode": "bogus"}, inits=[f32("R", [[0, 0, 2, 2]]), i64("I", [0])])


@case("runtime", "normalizer_norm_case", "ai.onnx.ml Normalizer norm 'l1' (MAX, L1 or L2)")
def _():
    ml = [helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 3)]
    return attr_case("Normalizer", ["X"], [vi("X", F, [2, 3])], ["Y"], 13, 7, {"norm": "L1"}, {"norm": "l1"},
                     domain="ai.onnx.ml", opsets=ml)


@case("runtime", "cast_saturate_not_float8", "Cast to int32 with saturate 0 (float8 targets only)")
def _():
    return attr_case("Cast", ["X"], [vi("X", F, [2, 3])], ["Y"], 19, 9, {"to": I32, "saturate": 1},
                     {"to": I32, "saturate": 0}, out_elem=I32)


@case("runtime", "castlike_saturate_not_float8", "CastLike to float with saturate 0 (float8 targets only)")
def _():
    def m(sat):
        return model([node("CastLike", ["X", "L"], ["Y"], saturate=sat)], [vi("X", F, [2, 3]), vi("L", I32, [1])],
                     [vi("Y", I32)], opset=19, ir=9)
    return m(0), m(1)


@case("runtime", "cast_round_mode_not_e8m0", "Cast-24 to float with round_mode 'down' (float8e8m0 only)")
def _():
    return attr_case("Cast", ["X"], [vi("X", F, [2])], ["Y"], 24, 11, {"to": F, "round_mode": "up"},
                     {"to": F, "round_mode": "down"})


@case("runtime", "mod_fmod_two", "Mod with fmod 2 (0 or 1)")
def _():
    return attr_case("Mod", ["A", "B"], [vi("A", I32, [2]), vi("B", I32, [2])], ["Y"], 13, 7, {"fmod": 1},
                     {"fmod": 2}, out_elem=I32)


@case("runtime", "cumsum_exclusive_two", "CumSum with exclusive 2 (0 or 1)")
def _():
    return attr_case("CumSum", ["X", "A"], [vi("X", F, [4])], ["Y"], 13, 7, {"exclusive": 1}, {"exclusive": 2},
                     inits=[init("A", np.array(0, np.int64))])


@case("runtime", "maxpool_storage_order_two", "MaxPool with storage_order 2 (0 or 1)")
def _():
    def m(so):
        return model([node("MaxPool", ["X"], ["Y", "I"], kernel_shape=[2, 2], storage_order=so)],
                     [vi("X", F, [1, 1, 4, 4])], [vi("Y", F), vi("I", I64)], opset=13)
    return m(2), m(1)


@case("runtime", "nms_center_point_box_two", "NonMaxSuppression with center_point_box 2 (0 or 1)")
def _():
    return attr_case("NonMaxSuppression", ["B", "S"], [vi("B", F, [1, 2, 4]), vi("S", F, [1, 1, 2])], ["Y"], 13, 7,
                     {"center_point_box": 1}, {"center_point_box": 2}, out_elem=I64)


@case("runtime", "attention_qk_mode", "Attention-23 asked for qk_matmul_output in mode 4 (0 to 3)")
def _():
    def m(mode):
        return model([node("Attention", ["Q", "K", "V"], ["Y", "", "", "QK"], qk_matmul_output_mode=mode)],
                     [vi("Q", F, [1, 1, 2, 4]), vi("K", F, [1, 1, 2, 4]), vi("V", F, [1, 1, 2, 4])],
                     [vi("Y", F), vi("QK", F)], opset=23, ir=10)
    return m(4), m(3)


@case("runtime", "gru_without_hidden_size", "GRU without hidden_size (optional in the schema, required by the kernel)")
def _():
    return attr_case("GRU", ["X", "W", "R"], [vi("X", F, [1, 1, 2])], ["", "Yh"], 13, 7, {"hidden_size": 3}, {},
                     inits=[f32("W", np.zeros((1, 9, 2))), f32("R", np.zeros((1, 9, 3)))])


@case("runtime", "keepdims_two_reduces", "ReduceSum keepdims 2 (reduces: only 1 keeps), then Add to a (2, 3)")
def _():
    def m(kd):
        return model([node("ReduceSum", ["X", "ax"], ["R"], keepdims=kd), node("Add", ["R", "Z"], ["Y"])],
                     [vi("X", F, [2, 3]), vi("Z", F, [2, 3])], [vi("Y", F)], [i64("ax", [1])], opset=13)
    return m(2), m(1)


@case("runtime", "reshape_zero_and_minus_one", "Reshape of an empty (0, 3) to (0, -1): the -1 is undetermined")
def _():
    def m(shape):
        return model([node("Reshape", ["X", "s"], ["Y"])], [vi("X", F, [0, 3])], [vi("Y", F)], [i64("s", shape)],
                     opset=14)
    return m([0, -1]), m([-1, 3])


@case("runtime", "rotary_cache_size", "RotaryEmbedding of head size 8 with caches of last dim 3 (half the head: 4)")
def _():
    def m(half):
        return model([node("RotaryEmbedding", ["X", "C", "S"], ["Y"])],
                     [vi("X", F, [2, 4, 3, 8]), vi("C", F, [2, 3, half]), vi("S", F, [2, 3, half])], [vi("Y", F)],
                     opset=23, ir=10)
    return m(3), m(4)


@case("guards", "auto_pad_empty", "MaxPool with auto_pad '' (read as NOTSET)")
def _():
    return None, model([node("MaxPool", ["X"], ["Y"], kernel_shape=[2, 2], auto_pad="")], [vi("X", F, [1, 1, 4, 4])],
                       [vi("Y", F)], opset=13)


@case("guards", "scatter_reduction_undocumented", "ScatterElements reduction 'bogus' (ONNX Runtime does not test it)")
def _():
    return None, model([node("ScatterElements", ["X", "I", "U"], ["Y"], reduction="bogus")], [vi("X", F, [3])],
                       [vi("Y", F)], [i64("I", [0]), f32("U", [1.0])], opset=16, ir=8)


@case("guards", "loss_reduction_undocumented", "NegativeLogLikelihoodLoss reduction 'Sum', weight of 8 for 3 classes")
def _():
    return None, model([node("NegativeLogLikelihoodLoss", ["X", "T", "W"], ["Y"], reduction="Sum")],
                       [vi("X", F, [2, 3]), vi("T", I64, [2])], [vi("Y", F)], [f32("W", np.ones(8))], opset=13)


@case("guards", "pad_wrap_at_13", "Pad mode 'wrap' at opset 13 (Pad-19's, which ONNX Runtime runs at 13)")
def _():
    return None, model([node("Pad", ["X", "P"], ["Y"], mode="wrap")], [vi("X", F, [3, 3])], [vi("Y", F)],
                       [i64("P", [1, 1, 1, 1])], opset=13)


@case("guards", "rnn_hidden_size_zero", "RNN with hidden_size 0")
def _():
    return None, model([node("RNN", ["X", "W", "R"], ["", "Yh"], hidden_size=0)], [vi("X", F, [1, 1, 2])],
                       [vi("Yh", F)], [f32("W", np.zeros((1, 0, 2))), f32("R", np.zeros((1, 0, 0)))], opset=13)


@case("guards", "reverse_sequence_negative_batch_axis", "ReverseSequence batch_axis -1, time_axis 0")
def _():
    return None, model([node("ReverseSequence", ["X", "L"], ["Y"], batch_axis=-1, time_axis=0)],
                       [vi("X", F, [2, 2, 3])], [vi("Y", F)], [i64("L", [1, 2])], opset=13)


@case("guards", "roialign_mode_any_case", "RoiAlign mode 'AVG' (its kernel lowers the string)")
def _():
    return None, model([node("RoiAlign", ["X", "R", "I"], ["Y"], mode="AVG")], [vi("X", F, [1, 1, 4, 4])],
                       [vi("Y", F)], [f32("R", [[0, 0, 2, 2]]), i64("I", [0])], opset=16, ir=8)


@case("guards", "value_info_contradicts_sizes", "value_info declaring (2, 4) for a (2, 3), then an Add to a (2, 3)")
def _():
    return None, model([node("Relu", ["X"], ["T"]), node("Add", ["T", "X"], ["Y"])], [vi("X", F, [2, 3])],
                       [vi("Y", F)], value_info=[vi("T", F, [2, 4])])


# ---- tolerated: what ONNX Runtime runs although the spec forbids it ------------------

@case("tolerated", "crop_removed_in_opset_10", "Crop, an experimental operator ONNX removed, at opset 10 (ORT: up to 9)")
def _():
    def m(opset):
        return model([node("Crop", ["X"], ["Y"], border=[0, 0, 1, 1])], [vi("X", F, [1, 1, 4, 4])], [vi("Y", F)],
                     opset=opset, ir=4)
    return m(10), m(9)


@case("tolerated", "image_scaler_removed_in_opset_10", "ImageScaler at opset 10 (ORT runs it up to 9)")
def _():
    def m(opset):
        return model([node("ImageScaler", ["X"], ["Y"], bias=[1.0, 2.0], scale=2.0)], [vi("X", F, [1, 2, 2, 2])],
                     [vi("Y", F)], opset=opset, ir=4)
    return m(10), m(7)


@case("tolerated", "thresholded_relu_before_10", "ThresholdedRelu at opset 9 on int32 (its float kernel of then)")
def _():
    def m(e):
        return model([node("ThresholdedRelu", ["X"], ["Y"], alpha=0.5)], [vi("X", e, [2, 3])], [vi("Y", e)], opset=9,
                     ir=4)
    return m(I32), m(F)


@case("guards", "mvn_before_9", "MeanVarianceNormalization at opset 7, ONNX Runtime's experimental kernel")
def _():
    return None, model([node("MeanVarianceNormalization", ["X"], ["Y"], across_channels=1)],
                       [vi("X", F, [1, 2, 4, 4])], [vi("Y", F)], opset=7, ir=3)


@case("guards", "constant_value_float_before_12", "Constant value_float at opset 9 (the main graph's: an initializer)")
def _():
    return None, model([node("Constant", [], ["Y"], value_float=1.0)], [], [vi("Y", F)], opset=9)


@case("guards", "constant_extra_attribute", "Constant with value and an unknown attribute (the first one is read)")
def _():
    return None, model([node("Constant", [], ["Y"], value=helper.make_tensor("t", F, [1], [1.0]), zzz=1.0)], [],
                       [vi("Y", F)])


@case("guards", "constant_in_another_domain", "A Constant in a domain nobody imports")
def _():
    return None, model([node("Constant", [], ["Y"], domain="org.example", value=f32("t", [1.0, 2.0]))], [],
                       [vi("Y", F)], opset=13)


@case("guards", "constant_shares_a_node_name", "A Constant and an Add of one name")
def _():
    return None, model([node("Constant", [], ["C"], value=f32("c", [1.0, 2.0]), name="n"),
                        node("Add", ["X", "C"], ["Y"], name="n")], [vi("X", F, [2])], [vi("Y", F)])


@case("tolerated", "constant_in_branch_value_float", "A branch's Constant value_float at opset 9 (checked as a node)")
def _():
    def m(opset):
        then_g = graph([node("Constant", [], ["c"], value_float=1.0), node("Add", ["X", "c"], ["o"])], [],
                       [vi("o", F, [2])], name="then")
        mm = if_model(then_g, branch([node("Neg", ["X"], ["o"])], name="else"))
        mm.opset_import[0].version = opset
        return mm
    return m(9), m(12)


@case("tolerated", "constant_tensor_typed_without_tensor", "A main-graph Constant typed TENSOR holding only f")
def _():
    def m(empty):
        n = node("Constant", [], ["Y"])
        n.attribute.append(AttributeProto(name="value", type=AttributeProto.TENSOR, f=1.0) if empty else
                           AttributeProto(name="value", type=AttributeProto.TENSOR, t=helper.make_tensor("t", F, [1],
                                                                                                        [1.0])))
        return model([n], [], [vi("Y", F)])
    return m(True), m(False)


@case("guards", "ref_attr_in_main_graph", "A main-graph Concat whose axis is a ref_attr_name (its i, 0, is read)")
def _():
    n = node("Concat", ["A", "B"], ["Y"])
    n.attribute.append(AttributeProto(name="axis", ref_attr_name="axis", type=AttributeProto.INT))
    return None, model([n], [vi("A", F, [2, 3]), vi("B", F, [2, 3])], [vi("Y", F)])


@case("tolerated", "initializer_twice_other_shape", "Two initializers W, (3,) then (2,): the last does not fit")
def _():
    def m(first):
        return model([node("Add", ["X", "W"], ["Y"])], [vi("X", F, [2])], [vi("Y", F)],
                     [f32("W", first), f32("W", [3.0, 4.0])])
    return m([1.0, 2.0, 3.0]), m([1.0, 2.0])


@case("tolerated", "sparse_like_dense_other_shape", "A sparse initializer S of dims (4,) beside a dense S of (2,)")
def _():
    def m(dense):
        mm = model([node("Add", ["X", "S"], ["Y"])], [vi("X", F, [4])], [vi("Y", F)], [f32("S", dense)])
        mm.graph.sparse_initializer.append(sparse([1.0, 2.0], [0, 3], [4]))
        return mm
    return m([9.0, 9.0]), m([9.0, 9.0, 9.0, 9.0])


@case("guards", "graph_input_dim_minus_one", "A graph input declared (-1, 3)")
def _():
    return None, unary("Relu", F, shape=(-1, 3))


@case("guards", "window_size_of_one_element",
      "HannWindow whose size is a graph input of shape (1,) (ONNX Runtime's kernel takes one element)")
def _():
    return None, model([node("HannWindow", ["n"], ["Y"])], [vi("n", I64, [1])], [vi("Y", F)], opset=17)


@case("values", "window_size_initializer_1d", "HannWindow whose size is an initializer of shape (1,)")
def _():
    def m(arr):
        return model([node("HannWindow", ["n"], ["Y"])], [], [vi("Y", F)], [init("n", arr)], opset=17)
    return m(np.array([4], np.int64)), m(np.array(4, np.int64))


@case("guards", "layernorm_bias_of_no_element",
      "LayerNormalization-17 over (2, 3, 4, 5) from axis -2 with a B of dims (4, 0) (ONNX Runtime reads it as none)")
def _():
    return None, model([node("LayerNormalization", ["X", "S", "B"], ["Y"], axis=-2)], [vi("X", F, [2, 3, 4, 5])],
                       [vi("Y", F)], [f32("S", np.ones((4, 5))), f32("B", np.ones((4, 0)))], opset=17, ir=8)


@case("guards", "layernorm_unknown_attribute", "LayerNormalization with an attribute it does not have")
def _():
    return None, model([node("LayerNormalization", ["X", "S"], ["Y"], zzz=1)], [vi("X", F, [2, 3])], [vi("Y", F)],
                       [f32("S", [1.0, 1.0, 1.0])], opset=17, ir=8)


@case("tolerated", "unread_initializer_bad_data", "An initializer whose data does not fit its dims, read by a node")
def _():
    def m(read):
        t = TensorProto(name="W", data_type=F, dims=[2])
        t.float_data.extend([1.0, 2.0, 3.0])
        nodes = [node("Add", ["X", "W"], ["Y"])] if read else [node("Relu", ["X"], ["Y"])]
        return model(nodes, [vi("X", F, [2])], [vi("Y", F)], [t])
    return m(True), m(False)


# ---- functions: ONNX Runtime inlines a called body into the model --------------------

@case("functions", "body_at_the_models_opset", "A body importing opset 13 (Squeeze's axes input) in a model of 11")
def _():
    def m(model_opset):
        f = helper.make_function(LOCAL, "Foo", ["x"], ["y"], [const_node("ax", np.array([0], np.int64)),
                                                              node("Squeeze", ["x", "ax"], ["y"])],
                                 [helper.make_opsetid("", 13)])
        return model([node("Foo", ["X"], ["Y"], domain=LOCAL)], [vi("X", F, [1, 3])], [vi("Y", F)], ir=8,
                     opsets=[helper.make_opsetid("", model_opset), helper.make_opsetid(LOCAL, 1)], functions=[f])
    return m(11), m(13)


@case("functions", "call_omits_an_input_the_body_uses", "A call giving 1 input to a function of 2 whose Add uses both")
def _():
    def m(ins):
        return fn_model([fn("Foo", [node("Add", ["x", "z"], ["y"])], ins=("x", "z"))], call_ins=ins,
                        inputs=[vi("X", F, [2, 3]), vi("Z", F, [2, 3])])
    return m(("X",)), m(("X", "Z"))


@case("functions", "body_reads_what_the_caller_lacks", "A body reading T, which the calling graph does not define")
def _():
    def m(defined):
        before = [node("Relu", ["X"], ["T"])] if defined else []
        return model(before + [node("Foo", ["X"], ["Y"], domain=LOCAL)], [vi("X", F, [2, 3])], [vi("Y", F)], ir=8,
                     opsets=[helper.make_opsetid("", 13), helper.make_opsetid(LOCAL, 1)],
                     functions=[fn("Foo", [node("Add", ["x", "T"], ["y"])])])
    return m(False), m(True)


@case("functions", "called_body_unsorted", "A called function whose body is not in topological order")
def _():
    def m(rev):
        ns = [node("Relu", ["x"], ["t"]), node("Neg", ["t"], ["y"])]
        return fn_model([fn("Foo", ns[::-1] if rev else ns)])
    return m(True), m(False)


@case("functions", "defined_twice_last_broken", "A function defined twice, the last (which ONNX Runtime takes) reading ghost")
def _():
    def m(last):
        return fn_model([fn("Foo", [node("Relu", ["x"], ["y"])]), fn("Foo", [node("Relu", [last], ["y"])])])
    return m("ghost"), m("x")


@case("guards", "function_body_newer_than_its_import", "A body importing opset 13 using Gelu, in a model of 20")
def _():
    f = helper.make_function(LOCAL, "Foo", ["x"], ["y"], [node("Gelu", ["x"], ["y"])], [helper.make_opsetid("", 13)])
    return None, model([node("Foo", ["X"], ["Y"], domain=LOCAL)], [vi("X", F, [2, 3])], [vi("Y", F)], ir=9,
                       opsets=[helper.make_opsetid("", 20), helper.make_opsetid(LOCAL, 1)], functions=[f])


def call_with(op, name, given, atype, extra=None):
    """A call of Foo, whose body's `op` takes attribute `name` from the call's p,
    given as `given` (an AttributeProto named p)."""
    inner = node(op, ["x"], ["y"])
    inner.attribute.append(AttributeProto(name=name, ref_attr_name="p", type=atype))
    return fn_model([fn("Foo", [inner], attrs=["p"])], attrs=[given])


@case("functions", "call_attr_param_type", "A call giving LeakyRelu's alpha, through the body's reference, as an int")
def _():
    return (call_with("LeakyRelu", "alpha", helper.make_attribute("p", 2), AttributeProto.FLOAT),
            call_with("LeakyRelu", "alpha", helper.make_attribute("p", 0.5), AttributeProto.FLOAT))


@case("functions", "call_attr_param_string_value",
      "A call giving Gelu's approximate, through the body's reference, as 'bogus'")
def _():
    def m(v):
        mm = call_with("Gelu", "approximate", helper.make_attribute("p", v), AttributeProto.STRING)
        mm.opset_import[0].version = 20
        mm.functions[0].opset_import[0].version = 20
        return mm
    return m("bogus"), m("tanh")


@case("functions", "call_attr_graph_typed_int", "A call's attribute typed GRAPH that holds an int")
def _():
    def m(typed_graph):
        a = helper.make_attribute("p", 1)
        if typed_graph:
            a.type = AttributeProto.GRAPH
        return call_with("Flatten", "axis", a, AttributeProto.INT)
    return m(True), m(False)


@case("functions", "uncalled_body_too_many_inputs",
      "A function no node calls whose body gives Div three inputs (ONNX Runtime still makes it a schema)")
def _():
    def m(ins):
        return fn_model([fn("Foo", [node("Relu", ["x"], ["y"])]),
                         fn("Bar", [node("Div", ins, ["y"])], ins=("x", "z"))])
    return m(["x", "z", "x"]), m(["x", "z"])


@case("functions", "body_inputs_beyond_own_opset",
      "A called function importing opset 15 whose body gives ReduceProd an axes input (from 18), in a model of 18")
def _():
    def m(ins):
        f = helper.make_function(LOCAL, "Foo", ["x", "a"], ["y"], [node("ReduceProd", ins, ["y"])],
                                 [helper.make_opsetid("", 15)])
        return model([node("Foo", ["X", "A"], ["Y"], domain=LOCAL)], [vi("X", F, [2, 3])], [vi("Y", F)],
                     [i64("A", [1])], ir=8, opsets=[helper.make_opsetid("", 18), helper.make_opsetid(LOCAL, 1)],
                     functions=[f])
    return m(["x", "a"]), m(["x"])


@case("functions", "uncalled_body_too_many_outputs",
      "A function no node calls whose body's Dropout lists three outputs, in an If branch")
def _():
    def m(outs):
        then_g = graph([node("Dropout", ["x"], outs)], [], [vi("o", F)], name="then")
        else_g = graph([node("Identity", ["x"], ["o"])], [], [vi("o", F)], name="else")
        body = [node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
        return fn_model([fn("Foo", [node("Relu", ["x"], ["y"])]), fn("Bar", body, ins=("x", "c"))])
    return m(["o", "m", "z"]), m(["o", "m"])


@case("guards", "uncalled_function_broken", "An uncalled function whose body reads a name defined nowhere, and is unsorted")
def _():
    return None, fn_model([fn("Foo", [node("Relu", ["x"], ["y"])]),
                           fn("Bar", [node("Neg", ["t"], ["y"]), node("Add", ["x", "ghost"], ["t"])])])


# ---- writing -------------------------------------------------------------------------

def declare_output_shapes(bad, good):
    """onnx.checker wants a shape on every graph output. Every output declared without
    one gets the rank onnx infers for the valid twin, with unknown dims, in both twins:
    they still differ by their one defect only, and no declared size can conflict with
    the invalid model's (a conflict would be caught for the wrong reason). Outputs onnx
    1.12 cannot infer (newer opsets, contrib domains) keep what the case declared."""
    ranks = {}
    try:
        g = shape_inference.infer_shapes(good).graph
        ranks = {o.name: len(o.type.tensor_type.shape.dim) for o in g.output if o.type.tensor_type.HasField("shape")}
    except Exception:  # noqa: BLE001 - the valid twin may be beyond onnx 1.12
        pass
    for m in (bad, good):
        if m is None:
            continue
        for o in m.graph.output:
            t = o.type.tensor_type
            if o.HasField("type") and not t.HasField("shape") and o.name in ranks:
                t.shape.SetInParent()
                for _ in range(ranks[o.name]):
                    t.shape.dim.add()


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_cases.py OUT_DIR\n")
        return 2
    out = argv[1]
    listing = []
    seen = set()
    for family, name, what, build in CASES:
        cid = family + "/" + name
        assert cid not in seen, cid
        seen.add(cid)
        bad, good = build()
        declare_output_shapes(bad, good)
        os.makedirs(os.path.join(out, family), exist_ok=True)
        files = {}
        for kind, m in (("invalid", bad), ("valid", good)):
            if m is None:
                continue
            rel = "%s/%s_%s.onnx" % (family, name, kind)
            onnx.save(m, os.path.join(out, rel))
            files[kind] = rel
        listing.append({"id": cid, "family": family, "case": name, "what": what, "files": files})
    tmp = os.path.join(out, "cases.json.tmp")
    with open(tmp, "w") as f:
        json.dump(listing, f, indent=1)
        f.write("\n")
    os.replace(tmp, os.path.join(out, "cases.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
