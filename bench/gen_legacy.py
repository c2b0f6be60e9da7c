#!/usr/bin/python3
"""gen_legacy.py: models for `onnxshape rewrite` to rewrite, at scale.

usage: gen_legacy.py OUTDIR NODES...   (NODES as 1k, 10k, 100k)

Each model, OUTDIR/legacy-NODES.onnx, is what old converters (Caffe2, early
PaddlePaddle exports) produced: an ai.onnx opset 6 chain over x (batch, 16, 8, 8)
whose blocks are a per-channel bias Add and scale Mul with broadcast=1 axis=1 (each
operand of shape (16,) placed at axis 1), a PaddlePaddle elementwise_sub (domain
"paddle", axis=1) and a Relu. Every block but its Relu is a candidate: `rewrite`
inserts a Reshape (16,) -> (16, 1, 1) before each of the three, with its shape as a
new initializer, raises the opset to 7 and drops the Paddle import. The weights are
small (64 bytes per operand): this is about nodes. Seeded; a model that exists is
kept.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

C = 16


def parse_nodes(s):
    s = s.lower()
    mult = {"k": 1000, "m": 1000000}.get(s[-1], 1)
    return int(s.rstrip("km")) * mult


def build(nodes, seed=9):
    rng = np.random.default_rng(seed)
    blocks = max(1, nodes // 4)
    ns, inits = [], []
    x = "x"
    for i in range(blocks):
        b, s, o = "bias%d" % i, "scale%d" % i, "off%d" % i
        for name in (b, s, o):
            inits.append(numpy_helper.from_array(rng.standard_normal(C).astype(np.float32), name))
        ns.append(helper.make_node("Add", [x, b], ["a%d" % i], name="add%d" % i, broadcast=1, axis=1))
        ns.append(helper.make_node("Mul", ["a%d" % i, s], ["m%d" % i], name="mul%d" % i, broadcast=1, axis=1))
        ns.append(helper.make_node("elementwise_sub", ["m%d" % i, o], ["d%d" % i], name="sub%d" % i,
                                   domain="paddle", axis=1))
        ns.append(helper.make_node("Relu", ["d%d" % i], ["y%d" % i], name="relu%d" % i))
        x = "y%d" % i
    g = helper.make_graph(ns, "legacy", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", C, 8, 8])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", C, 8, 8])], inits)
    return helper.make_model(g, producer_name="onnxshape-bench", ir_version=3,
                             opset_imports=[helper.make_opsetid("", 6), helper.make_opsetid("paddle", 1)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for spec in sys.argv[2:]:
        path = os.path.join(out, "legacy-%s.onnx" % spec)
        if os.path.exists(path):
            print("%s: up to date" % path)
            continue
        tmp = path + ".part"
        onnx.save(build(parse_nodes(spec)), tmp)
        os.rename(tmp, path)
        print("%s: written" % path)


if __name__ == "__main__":
    main()
