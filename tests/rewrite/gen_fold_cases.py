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
  transpose_regions    x (batch, 8, 5, 6) through three Transpose pairs: a LayerNorm
                       over the channels spelled out in NHWC (ReduceMean with axes
                       as an attribute, a [8] weight, a [8] bias from a Constant
                       node); a Mul by a [6, 8]
                       constant, whose data must be permuted in NCHW, and a
                       ReduceSum with axes as an input; and a MatMul between the
                       two Transposes, which keeps them. The first two pairs go.
  pad_not_where        a Pad of zero pads before an AveragePool (it goes), one of
                       real pads (it stays), a Mul by ones, an Add of zeros before
                       the other input and a Div by one (they go) and a Sub of zeros
                       that broadcasts its input up (it stays), then
                       Where(Not(x < 0), x, -x) (the Not goes, the branches swap).
  moved_weights        weights of more entries (4,608) than inference holds, moved by
                       Transpose, a Transpose of that, Reshape, Unsqueeze and
                       Flatten (of a Constant node's tensor) before they meet x:
                       each becomes an initializer; a Transpose after a Reshape
                       of a transposed weight too.
  declared_conflict    x (batch, 4, 6) through a Relu whose output value_info says
                       (batch, 4, 7), a shape-conflict warning the fold leaves as it
                       is, then a Reshape to (batch, 24) whose target comes from the
                       Relu's Shape: the inference after the fold says the warning
                       again, of a node it would otherwise take over unchanged.
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


def transpose_regions():
    f32 = lambda name, dims, vals: helper.make_tensor(name, TensorProto.FLOAT, dims, vals)
    nchw, nhwc = [0, 2, 3, 1], [0, 3, 1, 2]
    nodes = [
        # A LayerNorm over the channels, in NHWC.
        helper.make_node("Transpose", ["x"], ["t0"], perm=nchw),
        helper.make_node("ReduceMean", ["t0"], ["mean"], axes=[-1]),
        helper.make_node("Sub", ["t0", "mean"], ["d"]),
        helper.make_node("Pow", ["d", "two"], ["d2"]),
        helper.make_node("ReduceMean", ["d2"], ["var"], axes=[3]),
        helper.make_node("Add", ["var", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["sd"]),
        helper.make_node("Div", ["d", "sd"], ["n"]),
        helper.make_node("Mul", ["n", "gamma"], ["ng"]),
        helper.make_node("Constant", [], ["beta"], value=f32("b", [8], [0.25 * k - 1.0 for k in range(8)])),
        helper.make_node("Add", ["ng", "beta"], ["ln"]),
        helper.make_node("Transpose", ["ln"], ["y0"], perm=nhwc),
        # A [6, 8] constant (w, c): in NCHW its data is in another order.
        helper.make_node("Transpose", ["y0"], ["t1"], perm=nchw),
        helper.make_node("Mul", ["t1", "wc"], ["m"]),
        helper.make_node("ReduceSum", ["m", "ax"], ["rs"], keepdims=1),
        helper.make_node("Sub", ["m", "rs"], ["ms"]),
        helper.make_node("Transpose", ["ms"], ["y1"], perm=nhwc),
        # A MatMul over the channels: the pair stays.
        helper.make_node("Transpose", ["y1"], ["t2"], perm=nchw),
        helper.make_node("MatMul", ["t2", "proj"], ["p"]),
        helper.make_node("Relu", ["p"], ["pr"]),
        helper.make_node("Transpose", ["pr"], ["y"], perm=nhwc),
    ]
    inits = [
        f32("two", [], [2.0]), f32("eps", [], [1e-5]),
        f32("gamma", [8], [0.5 + 0.125 * k for k in range(8)]),
        f32("wc", [6, 8], [((7 * k) % 11) / 4.0 - 1.0 for k in range(48)]),
        helper.make_tensor("ax", TensorProto.INT64, [1], [1]),
        f32("proj", [8, 8], [((5 * k) % 13) / 6.0 - 1.0 for k in range(64)]),
    ]
    graph = helper.make_graph(
        nodes, "transpose_regions",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8, 5, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 8, 5, 6])], inits)
    model = helper.make_model(graph, producer_name="gen_fold_cases", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    record = {"inputs": [["x", "f", ["batch", 8, 5, 6]]],
              "truth": [{"binding": {"batch": 2}}, {"binding": {"batch": 1}}]}
    return model, record


def pad_not_where():
    i64 = lambda name, vals: helper.make_tensor(name, TensorProto.INT64, [len(vals)], vals)
    nodes = [
        helper.make_node("Pad", ["x", "zeros"], ["p0"], mode="constant"),
        helper.make_node("AveragePool", ["p0"], ["a0"], kernel_shape=[3, 3]),
        helper.make_node("Pad", ["a0", "ones"], ["p1"], mode="reflect"),
        helper.make_node("Mul", ["p1", "one_c"], ["m1"]),
        helper.make_node("Add", ["zero", "m1"], ["m2"]),
        helper.make_node("Div", ["m2", "one_c"], ["m3"]),
        helper.make_node("Sub", ["m3", "zero_wide"], ["m4"]),
        helper.make_node("ReduceMax", ["m4"], ["m5"], axes=[0], keepdims=0),
        helper.make_node("Add", ["m5", "p1"], ["p2"]),
        helper.make_node("Less", ["p2", "zero"], ["neg"]),
        helper.make_node("Not", ["neg"], ["pos"]),
        helper.make_node("Neg", ["p2"], ["minus"]),
        helper.make_node("Where", ["pos", "p2", "minus"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "pad_not_where",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 7, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3, 7, 7])],
        [i64("zeros", [0] * 8), i64("ones", [0, 0, 1, 1, 0, 0, 1, 1]),
         helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
         helper.make_tensor("one_c", TensorProto.FLOAT, [3, 1, 1], [1.0] * 3),
         helper.make_tensor("zero_wide", TensorProto.FLOAT, [2, 1, 1, 1, 1], [0.0] * 2)])
    model = helper.make_model(graph, producer_name="gen_fold_cases", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    record = {"inputs": [["x", "f", ["batch", 3, 7, 7]]],
              "truth": [{"binding": {"batch": 2}}, {"binding": {"batch": 1}}]}
    return model, record


def moved_weights():
    f32 = lambda name, dims, vals: helper.make_tensor(name, TensorProto.FLOAT, dims, vals)
    nodes = [
        # (8, 9, 64) transposed twice (to (64, 8, 9), then (64, 9, 8)), reshaped
        # to (64, 72) and unsqueezed: (1, 64, 72).
        helper.make_node("Transpose", ["w"], ["wt"], perm=[2, 0, 1]),
        helper.make_node("Transpose", ["wt"], ["wtt"], perm=[0, 2, 1]),
        helper.make_node("Reshape", ["wtt", "shape46"], ["wtr"]),
        helper.make_node("Unsqueeze", ["wtr", "ax0"], ["wu"]),
        helper.make_node("Mul", ["x", "wu"], ["a"]),
        # (4608,) reshaped to (64, 72).
        helper.make_node("Reshape", ["b", "shape46"], ["br"]),
        helper.make_node("Add", ["a", "br"], ["c"]),
        # A Constant's (2, 32, 72) flattened to (2, 2304), reshaped to (64, 72).
        helper.make_node("Constant", [], ["k"], value=f32("kv", [2, 32, 72], [(k % 7) - 3.0 for k in range(4608)])),
        helper.make_node("Flatten", ["k"], ["kf"], axis=1),
        helper.make_node("Reshape", ["kf", "shape46"], ["kr"]),
        helper.make_node("Sub", ["c", "kr"], ["d"]),
        # (64, 8, 9) from a transpose, reshaped to (64, 72), transposed again to (72, 64).
        helper.make_node("Reshape", ["wt", "shape46"], ["wr"]),
        helper.make_node("Transpose", ["wr"], ["wrt"], perm=[1, 0]),
        helper.make_node("MatMul", ["d", "wrt"], ["y"]),
    ]
    inits = [
        f32("w", [8, 9, 64], [((5 * k) % 11) / 4.0 - 1.0 for k in range(4608)]),
        f32("b", [4608], [((3 * k) % 7) / 2.0 - 1.5 for k in range(4608)]),
        helper.make_tensor("ax0", TensorProto.INT64, [1], [0]),
        helper.make_tensor("shape46", TensorProto.INT64, [2], [64, 72]),
    ]
    graph = helper.make_graph(
        nodes, "moved_weights",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64, 72])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 64, 64])], inits)
    model = helper.make_model(graph, producer_name="gen_fold_cases", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    record = {"inputs": [["x", "f", ["batch", 64, 72]]],
              "truth": [{"binding": {"batch": 2}}, {"binding": {"batch": 1}}]}
    return model, record


def declared_conflict():
    i64 = lambda name, vals: helper.make_tensor(name, TensorProto.INT64, [len(vals)], vals)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Shape", ["r"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["b"], axis=0),
        helper.make_node("Concat", ["b", "n24"], ["target"], axis=0),
        helper.make_node("Reshape", ["r", "target"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "declared_conflict",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 24])],
        [i64("i0", [0]), i64("n24", [24])],
        value_info=[helper.make_tensor_value_info("r", TensorProto.FLOAT, ["batch", 4, 7])])
    model = helper.make_model(graph, producer_name="gen_fold_cases", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    record = {"inputs": [["x", "f", ["batch", 4, 6]]],
              "truth": [{"binding": {"batch": 2}}, {"binding": {"batch": 1}}]}
    return model, record


def main(out):
    for name, make in (("reshape_empty_batch", reshape_empty_batch), ("transpose_regions", transpose_regions),
                       ("pad_not_where", pad_not_where), ("moved_weights", moved_weights),
                       ("declared_conflict", declared_conflict)):
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
