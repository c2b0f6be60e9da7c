#!/usr/bin/python3
"""gen_nets.py OUTDIR: the generated models the HTML report is tested on.

  big.onnx   a 5,000-node network (a chain of Relu, Add and Mul over a (1, 64)
             activation, reshaped every 100 nodes) with three planted mismatches:
             side branches that add a (1, 63) tensor to the chain at nodes 1,000,
             2,500 and 4,000, where the size 64 has come through about 100 nodes
             since the last Reshape set it: a chain the drawing cuts ("... N more").
  many.onnx  1,000 findings: 1,000 Adds of a (2, 4) and a (2, 6) activation, each
             through its own Relus: the size and opening time of a large report.

Deterministic: no random data, protobuf's deterministic serialization.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def save(graph, path):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnxshape-html-tests", producer_version="1")
    m.ir_version = 8
    with open(path, "wb") as f:
        f.write(m.SerializeToString(deterministic=True))


def big(path, nodes=5000, planted=(1000, 2500, 4000)):
    inits = [numpy_helper.from_array(np.ones((64,), np.float32), "bias"),
             numpy_helper.from_array(np.ones((1, 64), np.float32), "scale"),
             numpy_helper.from_array(np.ones((1, 63), np.float32), "wrong"),
             numpy_helper.from_array(np.array([1, 64], np.int64), "shape64")]
    out, h, made = [], "x", 0
    outputs = []
    while made < nodes:
        if made in planted:
            bad = "bad_%d" % made
            out.append(helper.make_node("Add", [h, "wrong"], [bad], name="planted_%d" % made))
            outputs.append(helper.make_tensor_value_info(bad, F, None))
            made += 1
            continue
        nxt = "h%d" % made
        kind = made % 3
        if made % 100 == 50:
            out.append(helper.make_node("Reshape", [h, "shape64"], [nxt], name="reshape_%d" % made))
        elif kind == 0:
            out.append(helper.make_node("Relu", [h], [nxt], name="relu_%d" % made))
        elif kind == 1:
            out.append(helper.make_node("Add", [h, "bias"], [nxt], name="add_%d" % made))
        else:
            out.append(helper.make_node("Mul", [h, "scale"], [nxt], name="mul_%d" % made))
        h = nxt
        made += 1
    outputs.insert(0, helper.make_tensor_value_info(h, F, None))
    graph = helper.make_graph(out, "big", [helper.make_tensor_value_info("x", F, [1, 64])], outputs,
                              initializer=inits)
    save(graph, path)


def many(path, findings=1000):
    nodes, outputs = [], []
    for i in range(findings):
        nodes.append(helper.make_node("Relu", ["a"], ["ra%d" % i], name="relu_a%d" % i))
        nodes.append(helper.make_node("Relu", ["b"], ["rb%d" % i], name="relu_b%d" % i))
        nodes.append(helper.make_node("Add", ["ra%d" % i, "rb%d" % i], ["s%d" % i], name="add%d" % i))
        outputs.append(helper.make_tensor_value_info("s%d" % i, F, None))
    graph = helper.make_graph(nodes, "many", [helper.make_tensor_value_info("a", F, [2, 4]),
                                              helper.make_tensor_value_info("b", F, [2, 6])], outputs)
    save(graph, path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    big(os.path.join(out, "big.onnx"))
    many(os.path.join(out, "many.onnx"))


if __name__ == "__main__":
    main()
