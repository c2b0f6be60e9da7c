#!/usr/bin/python3
"""gen_claims.py: writes the fixtures of declared dims as claims beside this script.

Re-run (needs python3-onnx; the .onnx files are committed, so the build does not run
it):

    /usr/bin/python3 tests/models/claims/gen_claims.py

What PyTorch 1.13's exporter writes, reduced: a dim_param on anything but a graph input
of the main graph names a size the exporter guessed, and it reuses one name for sizes
that differ at run time. ONNX Runtime runs each of these (tests/unit/test_symbolic.c
states the sizes it observes); onnxshape must neither equate those sizes nor refuse
the model:
  where_reused.onnx  a masked_fill result (N, L, 16) and the rows a nonzero index picks
                     (count, 16), both declared with Where68_dim_0 first;
  if_one_name.onnx   two If nodes whose branches pick rows of x by a condition on one
                     column each: four data-dependent counts, every branch output and
                     both If outputs declared (lvl_dim_0, 4), then concatenated;
  loop_claim.onnx    a Loop whose body declares its carried input (p_dim_0, p_dim_1),
                     really (1, 17), concatenated in the body with a (1, 17) row, while
                     an output of the main graph, (3, 5), declares the same two names.
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def save(graph, name):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="onnxshape-claims-fixtures", producer_version="1")
    m.ir_version = 8
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(m.SerializeToString(deterministic=True))


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def where_reused():
    nodes = [
        helper.make_node("Where", ["mask", "zero", "x"], ["masked"], name="Where68"),
        helper.make_node("Reshape", ["x", "rows16"], ["flat"], name="flatten_rows"),
        helper.make_node("Reshape", ["mask", "all"], ["flat_mask"], name="flatten_mask"),
        helper.make_node("NonZero", ["flat_mask"], ["nz"], name="nonzero"),
        helper.make_node("Squeeze", ["nz", "axis0"], ["idx"], name="squeeze"),
        helper.make_node("Gather", ["flat", "idx"], ["picked"], name="pick", axis=0),
    ]
    inits = [numpy_helper.from_array(np.zeros((), np.float32), "zero"), ints("rows16", [-1, 16]),
             ints("all", [-1]), ints("axis0", [0])]
    graph = helper.make_graph(
        nodes, "where_reused", [vi("x", F, ["N", "L", 16]), vi("mask", B, ["N", "L", 1])],
        [vi("masked", F, ["Where68_dim_0", "Where68_dim_1", 16]), vi("picked", F, ["Where68_dim_0", 16])],
        initializer=inits)
    save(graph, "where_reused.onnx")


def rows_where(col, op, tag):
    """A branch: the rows of the outer x whose column `col` is `op` 0."""
    nodes = [
        helper.make_node("Gather", ["x", "c" + tag], ["col" + tag], name="col" + tag, axis=1),
        helper.make_node(op, ["col" + tag, "zero"], ["keep" + tag], name="test" + tag),
        helper.make_node("NonZero", ["keep" + tag], ["nz" + tag], name="nz" + tag),
        helper.make_node("Squeeze", ["nz" + tag, "axis0"], ["idx" + tag], name="sq" + tag),
        helper.make_node("Gather", ["x", "idx" + tag], ["rows" + tag], name="rows" + tag, axis=0),
    ]
    return helper.make_graph(nodes, "branch" + tag, [], [vi("rows" + tag, F, ["lvl_dim_0", 4])],
                             initializer=[ints("c" + tag, col)])


def if_one_name():
    nodes = [
        helper.make_node("If", ["c"], ["lvl0"], name="level0", then_branch=rows_where(0, "Greater", "t0"),
                         else_branch=rows_where(1, "Greater", "e0")),
        helper.make_node("If", ["c"], ["lvl1"], name="level1", then_branch=rows_where(2, "Less", "t1"),
                         else_branch=rows_where(3, "Less", "e1")),
        helper.make_node("Concat", ["lvl0", "lvl1"], ["all"], name="levels", axis=0),
    ]
    inits = [numpy_helper.from_array(np.zeros((), np.float32), "zero"), ints("axis0", [0])]
    graph = helper.make_graph(nodes, "if_one_name", [vi("x", F, ["N", 4]), vi("c", B, [])],
                              [vi("all", F, ["lvl_dim_0", 4])], initializer=inits,
                              value_info=[vi("lvl0", F, ["lvl_dim_0", 4]), vi("lvl1", F, ["lvl_dim_0", 4])])
    save(graph, "if_one_name.onnx")


def loop_claim():
    row = numpy_helper.from_array(np.ones((1, 17), np.float32), "row")
    body = helper.make_graph(
        [
            helper.make_node("Constant", [], ["row"], name="row", value=row),
            helper.make_node("Concat", ["v_in", "row"], ["both"], name="both", axis=0),
            helper.make_node("Slice", ["both", "s0", "s1", "s0"], ["v_out"], name="first"),
            helper.make_node("Identity", ["cond_in"], ["cond_out"], name="go_on"),
        ],
        "body", [vi("iter", I64, []), vi("cond_in", B, []), vi("v_in", F, ["p_dim_0", "p_dim_1"])],
        [vi("cond_out", B, []), vi("v_out", F, ["p_dim_0", "p_dim_1"])],
        initializer=[ints("s0", [0]), ints("s1", [1])])
    nodes = [
        helper.make_node("Relu", ["u"], ["e"], name="relu"),
        helper.make_node("Loop", ["trips", "go", "init"], ["y"], name="loop", body=body),
    ]
    graph = helper.make_graph(
        nodes, "loop_claim", [vi("u", F, [3, 5]), vi("init", F, [1, 17])],
        [vi("e", F, ["p_dim_0", "p_dim_1"]), vi("y", F, None)],
        initializer=[ints("trips", 2), numpy_helper.from_array(np.array(True), "go")])
    save(graph, "loop_claim.onnx")


if __name__ == "__main__":
    where_reused()
    if_one_name()
    loop_claim()
