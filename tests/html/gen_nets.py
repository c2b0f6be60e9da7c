#!/usr/bin/python3
"""gen_nets.py OUTDIR: the generated models the HTML report is tested on.

  big.onnx   a 5,000-node network (a chain of Relu, Add and Mul over a (1, 64)
             activation, reshaped every 100 nodes) with three planted mismatches:
             side branches that add a (1, 63) tensor to the chain at nodes 1,000,
             2,500 and 4,000, where the size 64 has come through about 100 nodes
             since the last Reshape set it: a chain the drawing cuts ("... N more").
  many.onnx  1,000 findings: 1,000 Adds of a (2, 4) and a (2, 6) activation, each
             through its own Relus: the size and opening time of a large report.
  mismatch_*.onnx  an Add whose operands conflict at some dimensions and broadcast
             at others (the sizes are in MISMATCHES): the drawing marks the former.
  zoo/       2,000 models of 400 nodes (a chain of Relu, Add and Mul over a (1, 64)
             activation), every twentieth with a (1, 63) operand at node 199: the
             report of a directory of many models, mostly clean.

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


# Operand shapes of the mismatch_* models: (2, 4, 5, 5) + (2, 1, 5, 7) conflict
# only at dimension 3 (4 against 1 broadcasts); against (3, 7) at dimensions 2 and
# 3; against (6, 1, 1, 5) at 0 only.
MISMATCHES = {"mismatch_last": ([2, 4, 5, 5], [2, 1, 5, 7]),
              "mismatch_ranks": ([2, 4, 5, 5], [3, 7]),
              "mismatch_first": ([2, 4, 5, 5], [6, 1, 1, 5])}


def mismatch(path, xs, ys):
    n = helper.make_node("Add", ["x", "y"], ["z"], name="add")
    graph = helper.make_graph([n], "mismatch", [helper.make_tensor_value_info("x", F, xs),
                                                helper.make_tensor_value_info("y", F, ys)],
                              [helper.make_tensor_value_info("z", F, None)])
    save(graph, path)


def chain(nodes, bias):
    """A chain of nodes over a (1, 64) activation; the Add at node 199 adds `bias`."""
    inits = [numpy_helper.from_array(np.ones((1, 64), np.float32), "scale"),
             numpy_helper.from_array(np.ones(bias, np.float32), "bias")]
    out, h = [], "x"
    for i in range(nodes):
        op = ("Relu", "Add", "Mul")[i % 3]
        ins = [h] if op == "Relu" else [h, "bias" if i == 199 else "scale"]
        out.append(helper.make_node(op, ins, ["h%d" % i], name="%s_%d" % (op.lower(), i)))
        h = "h%d" % i
    graph = helper.make_graph(out, "chain", [helper.make_tensor_value_info("x", F, [1, 64])],
                              [helper.make_tensor_value_info(h, F, None)], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnxshape-html-tests", producer_version="1")
    m.ir_version = 8
    return m.SerializeToString(deterministic=True)


def zoo(path, files=2000, nodes=400):
    os.makedirs(path, exist_ok=True)
    clean, bad = chain(nodes, (1, 64)), chain(nodes, (1, 63))
    for i in range(files):
        with open(os.path.join(path, "m%04d.onnx" % i), "wb") as f:
            f.write(bad if i % 20 == 7 else clean)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    big(os.path.join(out, "big.onnx"))
    many(os.path.join(out, "many.onnx"))
    for name, (xs, ys) in MISMATCHES.items():
        mismatch(os.path.join(out, name + ".onnx"), xs, ys)
    zoo(os.path.join(out, "zoo"))


if __name__ == "__main__":
    main()
