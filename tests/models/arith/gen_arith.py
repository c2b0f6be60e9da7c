#!/usr/bin/python3
"""gen_arith.py: models whose sizes meet int64 arithmetic at its edges, read by
tests/unit/test_arith_models.c and tests/python/test_api.py.

usage: /usr/bin/python3 gen_arith.py   (writes the .onnx files beside itself)

Each model is valid ONNX that a shape rule or the size algebra must compute with
numbers where C's integer division or remainder is undefined (a zero divisor,
INT64_MIN / -1, INT64_MIN % -1) or where a float converted to an integer is past the
integer's range. The tool must answer every command on them with a report, never
with a signal: what the sizes are is beside the point, so the tests check only that.

  reshape_int64_min.onnx  Shape(x) * INT64_MIN feeds a ConstantOfShape, Shape(x) * -1
                          concatenated with -1 is the target of a Reshape of it: the
                          -1 is solved as (N * INT64_MIN) / (-N).
  dim_param_int64_min.onnx  an input dimension written `(-9223372036854775807 - 1)/-1`.
  dim_param_mod_int64_min.onnx  an input dimension `Mod(-9223372036854775807 - 1, -1)`
                          and one `floor((-9223372036854775807 - 1)/-1)`.
  dim_param_floor_negative.onnx  input dimensions `floor(-5/N)`, a floor of INT64_MIN
                          by N and `Mod(-3, N)`: a negative number over a symbol.
  div_mod_int64_min.onnx  integer Div and Mod of INT64_MIN by -1 and by 0 on constant
                          tensors (shape arithmetic carried as values).
  range_int64_min.onnx    Range from INT64_MIN to INT64_MAX by -1, and by INT64_MIN.
  slice_int64_min.onnx    Slice of a symbolic dimension with step INT64_MIN and -1.
  resize_huge_scale.onnx  Resize by scales of 1e30, inf, 3e38 and -3e38.
  resize_huge_size.onnx   Resize whose output size passes 2^63: a size of 2^40 scaled
                          by 2^30, and sizes (2^62, 1) for an input (1, 2^62) kept
                          in aspect (one scale of 2^62 for both axes).
  upsample_huge_scale.onnx  Upsample (opset 9) by scales of 3e38 and inf.
  clip_pad_huge_bounds.onnx  Pad-2 with a value of 1e30 and Clip-6 with bounds of
                          -3e38 and inf: raising the opset (rewrite --target-opset
                          11) makes them inputs.
"""
import os

import onnx
from onnx import TensorProto as T
from onnx import helper as h

HERE = os.path.dirname(os.path.abspath(__file__))
MIN = -2**63
MAX = 2**63 - 1


def i64(name, vals, dims=None):
    return h.make_tensor(name, T.INT64, [len(vals)] if dims is None else dims, vals)


def f32(name, vals):
    return h.make_tensor(name, T.FLOAT, [len(vals)], vals)


def save(name, nodes, inputs, outputs, inits=(), opset=17):
    g = h.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = h.make_model(g, producer_name="onnxshape-tests", opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    with open(os.path.join(HERE, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString(deterministic=True))


def vi(name, elem, shape):
    return h.make_tensor_value_info(name, elem, shape)


n = h.make_node

save("reshape_int64_min", [
    n("Shape", ["x"], ["s"]),
    n("Mul", ["s", "min"], ["sm"]),
    n("ConstantOfShape", ["sm"], ["z"]),
    n("Mul", ["s", "neg"], ["sn"]),
    n("Concat", ["sn", "minus1"], ["target"], axis=0),
    n("Reshape", ["z", "target"], ["y"]),
], [vi("x", T.FLOAT, ["N"])], [vi("y", T.FLOAT, None)],
    [i64("min", [MIN]), i64("neg", [-1]), i64("minus1", [-1])])

save("dim_param_int64_min", [
    n("Shape", ["x"], ["s"]),
    n("Reshape", ["x", "target"], ["y"]),
], [vi("x", T.FLOAT, ["(-9223372036854775807 - 1)/-1", "N"])],
    [vi("s", T.INT64, None), vi("y", T.FLOAT, None)], [i64("target", [-1])])

save("dim_param_mod_int64_min", [
    n("Add", ["x", "x"], ["y"]),
    n("Shape", ["y"], ["s"]),
], [vi("x", T.FLOAT, ["Mod(-9223372036854775807 - 1, -1)", "floor((-9223372036854775807 - 1)/-1)",
                      "FloorDiv(-9223372036854775807 - 1, -1)", "CeilDiv(-9223372036854775807 - 1, -1)"])],
    [vi("y", T.FLOAT, None), vi("s", T.INT64, None)])

save("dim_param_floor_negative", [
    n("Add", ["x", "x"], ["y"]),
], [vi("x", T.FLOAT, ["floor(-5/N)", "floor((-9223372036854775807 - 1)/N)", "Mod(-3, N)"])],
    [vi("y", T.FLOAT, None)])

save("div_mod_int64_min", [
    n("Div", ["min", "neg"], ["q"]),
    n("Mod", ["min", "neg"], ["r"]),
    n("Mod", ["min", "neg"], ["rf"], fmod=1),
    n("Div", ["min", "zero"], ["q0"]),
    n("Mod", ["min", "zero"], ["r0"]),
    n("ConstantOfShape", ["q"], ["z"]),
], [], [vi(v, T.INT64, None) for v in ("q", "r", "rf", "q0", "r0")] + [vi("z", T.FLOAT, None)],
    [i64("min", [MIN]), i64("neg", [-1]), i64("zero", [0])])

save("range_int64_min", [
    n("Range", ["min", "max", "neg"], ["a"]),
    n("Range", ["max", "min", "neg"], ["b"]),
    n("Range", ["max", "min", "min"], ["c"]),
    n("Range", ["min", "max", "max"], ["d"]),
], [], [vi(v, T.INT64, None) for v in "abcd"],
    [i64("min", [MIN], []), i64("max", [MAX], []), i64("neg", [-1], [])])

save("slice_int64_min", [
    n("Slice", ["x", "starts", "ends", "axes", "steps_min"], ["a"]),
    n("Slice", ["x", "ends", "starts", "axes", "steps_neg"], ["b"]),
    n("Slice", ["x", "starts", "ends", "axes", "steps_max"], ["c"]),
], [vi("x", T.FLOAT, ["N", 5])], [vi(v, T.FLOAT, None) for v in "abc"],
    [i64("starts", [MIN, MIN]), i64("ends", [MAX, MAX]), i64("axes", [0, 1]),
     i64("steps_min", [MIN, MIN]), i64("steps_neg", [-1, -1]), i64("steps_max", [MAX, MAX])])

save("resize_huge_scale", [
    n("Resize", ["x", "", "s_big"], ["a"]),
    n("Resize", ["x", "", "s_inf"], ["b"]),
    n("Resize", ["x", "", "s_max"], ["c"]),
    n("Resize", ["x", "", "s_neg"], ["d"]),
    n("Resize", ["xs", "", "s_big"], ["e"]),
], [vi("x", T.FLOAT, [1, 1, 4, 4]), vi("xs", T.FLOAT, [1, 1, "H", "W"])], [vi(v, T.FLOAT, None) for v in "abcde"],
    [f32("s_big", [1, 1, 1e30, 1e30]), f32("s_inf", [1, 1, float("inf"), float("inf")]),
     f32("s_max", [1, 1, 3e38, 3e38]), f32("s_neg", [1, 1, -3e38, -3e38])])

save("resize_huge_size", [
    n("Resize", ["x", "", "s"], ["a"]),
    n("Resize", ["y", "", "", "sizes"], ["b"], axes=[2, 3], keep_aspect_ratio_policy="not_smaller"),
    n("Resize", ["y", "", "", "sizes"], ["c"], axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
], [vi("x", T.FLOAT, [1, 1, 2**40, 1]), vi("y", T.FLOAT, [1, 1, 1, 2**62])], [vi(v, T.FLOAT, None) for v in "abc"],
    [f32("s", [1, 1, 2.0**30, 1]), i64("sizes", [2**62, 1])], opset=18)

save("upsample_huge_scale", [
    n("Upsample", ["x", "s"], ["a"]),
    n("Upsample", ["xs", "s"], ["b"]),
], [vi("x", T.FLOAT, [1, 1, 4, 2**40]), vi("xs", T.FLOAT, [1, 1, "H", "W"])], [vi(v, T.FLOAT, None) for v in "ab"],
    [f32("s", [1, 1, 3e38, float("inf")])], opset=9)

save("clip_pad_huge_bounds", [
    n("Pad", ["x"], ["a"], pads=[1, 1], value=1e30),
    n("Clip", ["x"], ["b"], min=-3e38, max=float("inf")),
], [vi("x", T.FLOAT, [4])], [vi(v, T.FLOAT, None) for v in "ab"], opset=6)
