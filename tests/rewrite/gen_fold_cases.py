#!/usr/bin/python3
"""gen_fold_cases.py: the hand-made networks of the fold proof (tests/models/fold).

usage: gen_fold_cases.py OUT_DIR

Each is NAME/model.onnx with NAME/record.json in the real networks' layout (inputs
with their dynamic dims, two bindings), so run_fold_proof.py --real runs them as it
runs the exported ones, the empty-batch binding included:

  reshape_empty_batch  x (batch, seq, 64) reshaped to (batch, seq*8, 8), the target
                       built from x's Shape as PyTorch's exporter builds a view's.
                       A fold to the constant (0, -1, 8) is wrong at batch 0: a -1
                       is worked out over the product of the other entries, 0 there,
                       and ONNX Runtime refuses it where the original runs.
"""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper


def reshape_empty_batch():
    i64 = lambda name, vals: helper.make_tensor(name, TensorProto.INT64, [len(vals)], vals)
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["b"], axis=0),
        helper.make_node("Gather", ["s", "i1"], ["q"], axis=0),
        helper.make_node("Mul", ["q", "eight"], ["q8"]),
        helper.make_node("Concat", ["b", "q8", "eight"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "reshape_empty_batch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", None, 8])],
        [i64("i0", [0]), i64("i1", [1]), i64("eight", [8])])
    model = helper.make_model(graph, producer_name="gen_fold_cases", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    record = {"inputs": [["x", "f", ["batch", "seq", 64]]],
              "truth": [{"binding": {"batch": 2, "seq": 3}}, {"binding": {"batch": 1, "seq": 5}}]}
    return model, record


def main(out):
    for name, make in (("reshape_empty_batch", reshape_empty_batch),):
        model, record = make()
        onnx.checker.check_model(model)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "model.onnx"), "wb").write(model.SerializeToString())
        with open(os.path.join(d, "record.json"), "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
