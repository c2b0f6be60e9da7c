#!/usr/bin/python3
"""gen_functions.py: fixtures for the inference of model-local functions
(ModelProto.functions), read by tests/unit/test_functions.c.

usage: /usr/bin/python3 gen_functions.py   (writes the .onnx files beside itself)

Each model calls functions of domain "local"; what each output's shape must be is
derived in test_functions.c from the ONNX operator definitions. When the fixtures
were made, ONNX Runtime 1.30 (onnxruntime-node) gave the same output shapes for
fn_linear_relu (N = 5), fn_attr_ref and fn_nested; it refuses fn_own_opset, reading
the body at the model's opset, where the IR says a function's own opset_import
applies (onnxshape follows ONNX Runtime, and warns).
"""
import os

import onnx
from onnx import TensorProto as T
from onnx import helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
LOCAL = "local"


def ref_attr(name, ref, kind):
    a = onnx.AttributeProto()
    a.name = name
    a.ref_attr_name = ref
    a.type = kind
    return a


def node(op, ins, outs, domain="", name="", attrs=()):
    n = h.make_node(op, ins, outs, domain=domain, name=name)
    n.attribute.extend(attrs)
    return n


def save(name, graph, functions, opset=13, local_opset=1, ir=8):
    m = h.make_model(graph, functions=functions, producer_name="onnxshape-tests",
                     opset_imports=[h.make_opsetid("", opset), h.make_opsetid(LOCAL, local_opset)])
    m.ir_version = ir
    # (onnx 1.12's checker wants every output declared with a shape; these leave
    # the outputs to inference on purpose.)
    onnx.save(m, os.path.join(HERE, name + ".onnx"))


def fn(name, ins, outs, nodes, attrs=(), opset=13):
    return h.make_function(LOCAL, name, ins, outs, nodes,
                           [h.make_opsetid("", opset)], attributes=list(attrs))


# 1. A function of three inputs: MatMul, bias Add, Relu; called twice with different
#    shapes, one of them symbolic.
linear_relu = fn("LinearRelu", ["X", "W", "B"], ["Y"], [
    node("MatMul", ["X", "W"], ["XW"]),
    node("Add", ["XW", "B"], ["XWB"]),
    node("Relu", ["XWB"], ["Y"]),
])
save("fn_linear_relu", h.make_graph(
    [node("LinearRelu", ["x", "w1", "b1"], ["h"], LOCAL, "layer1"),
     node("LinearRelu", ["h", "w2", "b2"], ["y"], LOCAL, "layer2")],
    "fn_linear_relu",
    [h.make_tensor_value_info("x", T.FLOAT, ["N", 4])],
    [h.make_tensor_value_info("y", T.FLOAT, None)],
    [h.make_tensor("w1", T.FLOAT, [4, 8], [0.0] * 32), h.make_tensor("b1", T.FLOAT, [8], [0.0] * 8),
     h.make_tensor("w2", T.FLOAT, [8, 3], [0.0] * 24), h.make_tensor("b2", T.FLOAT, [3], [0.0] * 3)]),
    [linear_relu])

# 2. Attributes by reference: Flatten's axis is the function's `axis`; calls with
#    axis=2, axis=0 and none (Flatten's default, 1).
flat = fn("Flat", ["X"], ["Y"], [node("Flatten", ["X"], ["Y"], attrs=[ref_attr("axis", "axis", onnx.AttributeProto.INT)])],
          attrs=["axis"])
save("fn_attr_ref", h.make_graph(
    [node("Flat", ["x"], ["a"], LOCAL, "flat2", [h.make_attribute("axis", 2)]),
     node("Flat", ["x"], ["b"], LOCAL, "flat0", [h.make_attribute("axis", 0)]),
     node("Flat", ["x"], ["c"], LOCAL, "flat_default")],
    "fn_attr_ref",
    [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 4, 5])],
    [h.make_tensor_value_info(v, T.FLOAT, None) for v in "abc"]),
    [flat])

# 3. A function calling a function, the attribute passed down by reference twice,
#    and a Transpose whose perm comes through the chain.
inner = fn("Inner", ["X"], ["Y"], [node("Transpose", ["X"], ["Y"], attrs=[ref_attr("perm", "p", onnx.AttributeProto.INTS)])],
           attrs=["p"])
outer = fn("Outer", ["X"], ["Y"], [
    node("Inner", ["X"], ["T"], LOCAL, attrs=[ref_attr("p", "perm", onnx.AttributeProto.INTS)]),
    node("Relu", ["T"], ["Y"])], attrs=["perm"])
outer.opset_import.extend([h.make_opsetid(LOCAL, 1)])
save("fn_nested", h.make_graph(
    [node("Outer", ["x"], ["y"], LOCAL, "outer", [h.make_attribute("perm", [2, 0, 1])])],
    "fn_nested",
    [h.make_tensor_value_info("x", T.FLOAT, [2, 3, 4])],
    [h.make_tensor_value_info("y", T.FLOAT, None)]),
    [outer, inner])

# 4. A function importing an older opset than the model: its Unsqueeze takes axes as
#    an attribute (opset 11), while the model's own Unsqueeze (opset 13) takes an input.
unsq11 = fn("Unsq", ["X"], ["Y"], [node("Unsqueeze", ["X"], ["Y"], attrs=[h.make_attribute("axes", [0, 3])])],
            opset=11)
save("fn_own_opset", h.make_graph(
    [node("Unsq", ["x"], ["y"], LOCAL, "call"),
     node("Unsqueeze", ["x", "ax"], ["z"], name="direct")],
    "fn_own_opset",
    [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
    [h.make_tensor_value_info("y", T.FLOAT, None), h.make_tensor_value_info("z", T.FLOAT, None)],
    [h.make_tensor("ax", T.INT64, [1], [1])]),
    [unsq11])

# 5. Two outputs, an omitted optional input inside the body, and a broadcast error
#    inside the body surfacing at the call: (N, 3) + (4,) cannot broadcast.
two = fn("Two", ["A", "B"], ["S", "P"], [
    node("Add", ["A", "B"], ["S"]),
    node("Mul", ["A", "B"], ["P"])])
save("fn_two_outputs", h.make_graph(
    [node("Two", ["x", "v"], ["s", "p"], LOCAL, "ok"),
     node("Two", ["x", "bad"], ["s2", "p2"], LOCAL, "bad_call")],
    "fn_two_outputs",
    [h.make_tensor_value_info("x", T.FLOAT, ["N", 3]), h.make_tensor_value_info("v", T.FLOAT, [3]),
     h.make_tensor_value_info("bad", T.FLOAT, [4])],
    [h.make_tensor_value_info(v, T.FLOAT, None) for v in ("s", "p", "s2", "p2")]),
    [two])
