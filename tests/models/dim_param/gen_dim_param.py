#!/usr/bin/python3
"""gen_dim_param.py: writes the dim_param text fixtures beside this script.

Re-run (needs python3-onnx; the .onnx files are committed, so the build does not run
it):

    /usr/bin/python3 tests/models/dim_param/gen_dim_param.py

What a dim_param's text means (docs/symbolic.md): an expression only when written as
onnxshape and sympy write one, any other text one opaque name, as ONNX Runtime reads
every dim_param. tests/unit/test_symbolic.c runs `infer` and `check` on these:
  number_texts.onnx  inputs whose dims read `1 - 2`, `a - a - 5` and `a - b`: texts
                     whose value is a number are names, and `a - b` (an expression)
                     never becomes a negative size, even with --assume a=1 --assume b=5;
  odd_names.onnx     names with a hyphen, a space, dots, slashes and a backquote, each
                     doubled by a Concat: the written expression reads back as twice
                     the same name.
Each graph passes its inputs through Relu or Concat, operators ONNX Runtime runs with
any sizes.
"""
import os

from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def save(graph, name):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnxshape-dim-param-fixtures", producer_version="1")
    m.ir_version = 8
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(m.SerializeToString(deterministic=True))


def number_texts():
    texts = {"x": "1 - 2", "y": "a - a - 5", "z": "a - b"}
    inputs = [helper.make_tensor_value_info(n, F, [t, 3]) for n, t in texts.items()]
    nodes = [helper.make_node("Relu", [n], [n + "_out"], name="relu_" + n) for n in texts]
    outputs = [helper.make_tensor_value_info(n + "_out", F, None) for n in texts]
    save(helper.make_graph(nodes, "number_texts", inputs, outputs), "number_texts.onnx")


ODD = {"h": "batch-size", "s": "my dim", "d": "conv.out.0", "p": "feat/len", "q": "a`b"}


def odd_names():
    inputs = [helper.make_tensor_value_info(n, F, [t, 2]) for n, t in ODD.items()]
    nodes = [helper.make_node("Concat", [n, n], [n + "2"], name="twice_" + n, axis=0) for n in ODD]
    outputs = [helper.make_tensor_value_info(n + "2", F, None) for n in ODD]
    save(helper.make_graph(nodes, "odd_names", inputs, outputs), "odd_names.onnx")


if __name__ == "__main__":
    number_texts()
    odd_names()
