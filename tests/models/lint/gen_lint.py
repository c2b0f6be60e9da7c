#!/usr/bin/python3
"""gen_lint.py: writes the fixtures of `onnxshape check`'s rules, one small model per
diagnostic code, beside this script.

Re-run (needs python3-onnx; the .onnx files are committed, so the build does not run
it):

    /usr/bin/python3 tests/models/lint/gen_lint.py

Each <code>.onnx (and its variants, <code>_<what>.onnx) makes `check` report that
code, and only the findings listed in tests/unit/test_lint.c's table; clean.onnx is a
model no rule may fire on (broadcasting that is fine: bias adds, scalars, residuals,
symbols against 1). expected.txt is the text report of `check` over this directory
(tests/unit/test_check_formats.c compares it; OSH_UPDATE_GOLDEN=1 rewrites it). The
README's example messages are copied from it.

The output is deterministic: no random data, protobuf's deterministic serialization.
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def save(model, name):
    """No onnx.checker: several of these are wrong on purpose."""
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


def model(nodes, inputs, outputs, inits=(), opsets=(("", 13),), ir_version=8, value_info=()):
    graph = helper.make_graph(list(nodes), "g", list(inputs), list(outputs),
                              initializer=list(inits), value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          producer_name="onnxshape-lint-fixtures", producer_version="1")
    m.ir_version = ir_version
    return m


def tin(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def floats(name, shape):
    n = int(np.prod(shape)) if shape else 1
    return numpy_helper.from_array((np.arange(n, dtype=np.float32) / 8).reshape(shape), name)


def node(op, inputs, outputs, name, domain="", **attrs):
    return helper.make_node(op, inputs, outputs, name=name, domain=domain or None, **attrs)


def broadcast_mismatch():
    # y is reshaped to (2, 3, 6) where (2, 3, 4) was meant; the mismatch shows two
    # nodes later, and the message follows the 6 back to the Reshape.
    return model([node("Relu", ["x"], ["a"], "relu_a"),
                  node("Reshape", ["y", "shape"], ["r"], "reshape"),
                  node("Relu", ["r"], ["b"], "relu_b"),
                  node("Mul", ["a", "b"], ["z"], "mul")],
                 [tin("x", [2, 3, 4]), tin("y", [6, 6])], [tin("z", None)],
                 inits=[ints("shape", [2, 3, 6])])


def shape_conflict():
    return model([node("Relu", ["x"], ["y"], "relu")], [tin("x", [2, 3])], [tin("y", [2, 4])])


def same_size_broadcast():
    # pred (4, 1) + target (4,): four values meant, sixteen computed.
    return model([node("Add", ["pred", "target"], ["sum"], "add")],
                 [tin("pred", [4, 1]), tin("target", [4])], [tin("sum", None)])


def same_size_broadcast_symbolic():
    # The same bug with a symbolic batch: (N, 1) - (N,) is (N, N).
    return model([node("Sub", ["logits", "labels"], ["diff"], "sub")],
                 [tin("logits", ["N", 1]), tin("labels", ["N"])], [tin("diff", None)])


def outer_broadcast():
    return model([node("Mul", ["col", "row"], ["grid"], "mul")],
                 [tin("col", [3, 1]), tin("row", [1, 4])], [tin("grid", None)])


def legacy_broadcast_attr():
    # An opset-6 Add converted to opset 13 with its attributes left on: runtimes now
    # broadcast B (3,) along the LAST axis (which happens to be 3 too), silently, where
    # axis=1 meant the channels.
    return model([node("Add", ["A", "B"], ["C"], "add", broadcast=1, axis=1)],
                 [tin("A", [2, 3, 4, 3]), tin("B", [3])], [tin("C", None)])


def axis_broadcast_paddle():
    return model([node("elementwise_add", ["X", "Y"], ["Z"], "elementwise_add_0", domain="paddle", axis=1)],
                 [tin("X", [2, 3, 4, 5]), tin("Y", [3])], [tin("Z", None)],
                 opsets=(("", 13), ("paddle", 1)))


def axis_broadcast_paddle_other_domain():
    # Any domain but ai.onnx: here one no table row names, reached by the fallback.
    # X has the lower rank, so X is the operand placed at axis 1, inside Y.
    return model([node("elementwise_mul", ["X", "Y"], ["Z"], "mul_0", domain="com.example.paddle", axis=1)],
                 [tin("X", [3]), tin("Y", [2, 3, 4, 5])], [tin("Z", None)],
                 opsets=(("", 13), ("com.example.paddle", 1)))


def axis_broadcast_legacy():
    return model([node("Add", ["A", "B"], ["C"], "add_axis1", broadcast=1, axis=1)],
                 [tin("A", [2, 3, 4, 5]), tin("B", [3])], [tin("C", None)],
                 opsets=(("", 6),), ir_version=3)


def unknown_op():
    return model([node("Frobnicate", ["x"], ["y"], "frob", domain="com.example")],
                 [tin("x", [2, 3])], [tin("y", None)], opsets=(("", 13), ("com.example", 1)))


def dynamic_shape():
    # Symbolic batch N: fine normally, an error under --static unless N is given.
    return model([node("Relu", ["x"], ["h"], "relu"),
                  node("Add", ["h", "bias"], ["y"], "add")],
                 [tin("x", ["N", 3])], [tin("y", ["N", 3])], inits=[floats("bias", [3])])


def symbol_constraint():
    # x (N, 3) + y (8, 3) is only valid for N = 1 or 8.
    return model([node("Add", ["x", "y"], ["s"], "add")],
                 [tin("x", ["N", 3]), tin("y", [8, 3])], [tin("s", None)])


def symbol_constraint_conflict():
    # 'add' needs N in {1, 8}; 'prelu' (the slope broadcasts into X, which may not
    # grow) then fixes N = 5: the facts contradict each other.
    return model([node("Add", ["x", "y"], ["s"], "add"),
                  node("PRelu", ["x", "w"], ["p"], "prelu")],
                 [tin("x", ["N", 3]), tin("y", [8, 3]), tin("w", [5, 3])],
                 [tin("s", None), tin("p", None)])


def symbol_constraint_must_be_one():
    # 'add' needs N in {1, 8}, 'mul' needs N in {1, 5}: together, N is 1.
    return model([node("Add", ["x", "y"], ["s"], "add"),
                  node("Mul", ["x", "w"], ["p"], "mul")],
                 [tin("x", ["N", 3]), tin("y", [8, 3]), tin("w", [5, 3])],
                 [tin("s", None), tin("p", None)])


def malformed_model():
    return model([node("Relu", ["ghost"], ["y"], "relu")], [tin("x", [2])], [tin("y", None)])


def clean():
    # Broadcasting as it is meant: a bias over channels, a scalar, a residual, a
    # symbol against 1, and a variadic Sum of equal shapes.
    return model([node("Conv", ["x", "w"], ["c"], "conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                  node("Add", ["c", "b"], ["cb"], "bias"),
                  node("Mul", ["cb", "half"], ["h"], "scale"),
                  node("Add", ["h", "x"], ["r"], "residual"),
                  node("Add", ["r", "one"], ["q"], "plus_row"),
                  node("Sum", ["q", "r", "x"], ["y"], "sum")],
                 [tin("x", ["N", 4, 8, 8])], [tin("y", ["N", 4, 8, 8])],
                 inits=[floats("w", [4, 4, 3, 3]), floats("b", [4, 1, 1]), floats("half", []),
                        floats("one", [1, 1, 1, 8])])


def clean_masks():
    # The outer products exported transformers build on purpose, none a finding: a
    # causal mask from a Range row against its column, flat indices from a batch
    # column against a sequence row, the attention mask times itself (a pairwise
    # mask), and the causal mask against the attention mask. Only an outer product
    # of two activations is the hazard (outer_broadcast, same_size_broadcast).
    I = TensorProto.INT64
    return model([node("Shape", ["ids"], ["s"], "shape"),
                  node("Gather", ["s", "i0"], ["batch"], "batch"),
                  node("Gather", ["s", "i1"], ["seq"], "seq"),
                  node("Range", ["i0", "seq", "i1"], ["pos"], "positions"),
                  node("Unsqueeze", ["pos", "ax0"], ["row"], "row"),
                  node("Unsqueeze", ["pos", "ax1"], ["col"], "col"),
                  node("LessOrEqual", ["row", "col"], ["causal"], "causal"),
                  node("Range", ["i0", "batch", "i1"], ["bi"], "batch_index"),
                  node("Unsqueeze", ["bi", "ax1"], ["bcol"], "batch_col"),
                  node("Mul", ["bcol", "seq"], ["boff"], "batch_offset"),
                  node("Add", ["boff", "row"], ["flat"], "flat_index"),
                  node("Unsqueeze", ["mask", "ax1"], ["m1"], "mask_row"),
                  node("Unsqueeze", ["mask", "ax2"], ["m2"], "mask_col"),
                  node("Mul", ["m1", "m2"], ["pair"], "pairwise_mask"),
                  node("Cast", ["m1"], ["m1b"], "mask_bool", to=TensorProto.BOOL),
                  node("And", ["causal", "m1b"], ["amask"], "attention_mask")],
                 [tin("ids", ["batch", "seq"], I), tin("mask", ["batch", "seq"])],
                 [tin("flat", None, I), tin("pair", None), tin("amask", None, TensorProto.BOOL)],
                 inits=[ints("i0", 0), ints("i1", 1), ints("ax0", [0]), ints("ax1", [1]), ints("ax2", [2])])


if __name__ == "__main__":
    save(broadcast_mismatch(), "broadcast_mismatch.onnx")
    save(shape_conflict(), "shape_conflict.onnx")
    save(same_size_broadcast(), "same_size_broadcast.onnx")
    save(same_size_broadcast_symbolic(), "same_size_broadcast_symbolic.onnx")
    save(outer_broadcast(), "outer_broadcast.onnx")
    save(legacy_broadcast_attr(), "legacy_broadcast_attr.onnx")
    save(axis_broadcast_paddle(), "axis_broadcast_paddle.onnx")
    save(axis_broadcast_paddle_other_domain(), "axis_broadcast_paddle_other_domain.onnx")
    save(axis_broadcast_legacy(), "axis_broadcast_legacy.onnx")
    save(unknown_op(), "unknown_op.onnx")
    save(dynamic_shape(), "dynamic_shape.onnx")
    save(symbol_constraint(), "symbol_constraint.onnx")
    save(symbol_constraint_conflict(), "symbol_constraint_conflict.onnx")
    save(symbol_constraint_must_be_one(), "symbol_constraint_must_be_one.onnx")
    save(malformed_model(), "malformed_model.onnx")
    save(clean(), "clean.onnx")
    save(clean_masks(), "clean_masks.onnx")
