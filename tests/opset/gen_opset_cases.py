#!/usr/bin/python3
"""gen_opset_cases.py: one-node models for decompositions the ONNX corpora never reach.

    /usr/bin/python3 tests/opset/gen_opset_cases.py DIR

Writes node-test folders (model.onnx, test_data_set_0/input_*.pb) into DIR/low (each
converts to 13, 21 and 26) and DIR/dft (each converts to 18, 21 and 26), for
opset_proof.py --corpus ... --all-equal (ctest opset/ort-generated): DFT with its axis
a constant input (opset 20) or an attribute (17), CumProd with a constant axis,
Trilu of booleans with dims known only at run time, ONNX Runtime's LayerNormalization
of opset 14 with its Mean and InvStdDev used and its SimplifiedLayerNormalization,
Swish with alpha, and a ReduceMax whose axes are a graph input. The corpora feed
CumProd's and DFT's axes as graph inputs, and have no ONNX Runtime operators of the
default domain. Deterministic: the same bytes each run.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

IR = {13: 7, 14: 7, 17: 8, 18: 8, 20: 9, 24: 10, 26: 11}


def write(root, name, opset, nodes, inputs, feeds, outputs, inits=()):
    folder = os.path.join(root, name)
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR[opset]
    with open(os.path.join(folder, "model.onnx"), "wb") as fh:
        fh.write(model.SerializeToString())
    for k, a in enumerate(feeds):
        with open(os.path.join(folder, "test_data_set_0", "input_%d.pb" % k), "wb") as fh:
            fh.write(numpy_helper.from_array(a, inputs[k].name).SerializeToString())


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_opset_cases.py DIR\n")
        return 2
    low, dft = os.path.join(argv[1], "low"), os.path.join(argv[1], "dft")
    rng = np.random.default_rng(44)
    F = TensorProto.FLOAT

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    # CumProd, axis a constant: exclusive and reversed, and plain along axis 0.
    for name, attrs, axis in [("cumprod_const_axis_exclusive_reverse", {"exclusive": 1, "reverse": 1}, 1),
                              ("cumprod_const_axis_0", {}, 0)]:
        write(low, name, 26,
              [helper.make_node("CumProd", ["x", "axis"], ["y"], **attrs)],
              [vi("x", F, [3, 4])], [f32(3, 4)], [vi("y", F, [3, 4])],
              [numpy_helper.from_array(np.array(axis, np.int64), "axis")])
    # Trilu of booleans, its dims symbolic (the mask is computed), k a constant.
    write(low, "trilu_bool_symbolic_dims", 14,
          [helper.make_node("Trilu", ["x", "k"], ["y"], upper=0)],
          [vi("x", TensorProto.BOOL, ["n", "m"])], [rng.random((4, 5)) > 0.3], [vi("y", TensorProto.BOOL, ["n", "m"])],
          [numpy_helper.from_array(np.array(1, np.int64), "k")])
    # ONNX Runtime's LayerNormalization of opset 14, every output used.
    write(low, "ort_layernorm_opset14_stats", 14,
          [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y", "mean", "inv_std"], axis=-1,
                            epsilon=1e-5)],
          [vi("x", F, [2, 3, 8])], [f32(2, 3, 8)],
          [vi("y", F, [2, 3, 8]), vi("mean", F, [2, 3, 1]), vi("inv_std", F, [2, 3, 1])],
          [numpy_helper.from_array(f32(8), "scale"), numpy_helper.from_array(f32(8), "bias")])
    # ONNX Runtime's SimplifiedLayerNormalization (RMS normalisation).
    write(low, "ort_simplified_layernorm", 17,
          [helper.make_node("SimplifiedLayerNormalization", ["x", "scale"], ["y"], axis=-1, epsilon=1e-6)],
          [vi("x", F, [2, 3, 8])], [f32(2, 3, 8)], [vi("y", F, [2, 3, 8])],
          [numpy_helper.from_array(f32(8), "scale")])
    write(low, "swish_alpha", 24, [helper.make_node("Swish", ["x"], ["y"], alpha=0.5)],
          [vi("x", F, [2, 5])], [f32(2, 5) * 4], [vi("y", F, [2, 5])])
    # ReduceMax over axes fed at run time, without keepdims.
    write(low, "reduce_max_axes_fed", 18,
          [helper.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=0)],
          [vi("x", F, [2, 3, 4]), vi("axes", TensorProto.INT64, [2])], [f32(2, 3, 4), np.array([0, -1], np.int64)],
          [vi("y", F, [3])])

    # DFT: axis a constant input at 20 (down to 18), an attribute at 17 (up to 21, 26).
    sig = f32(2, 8, 1)
    for name, attrs in [("dft20_const_axis", {}), ("dft20_const_axis_inverse", {"inverse": 1}),
                        ("dft20_const_axis_rfft", {"onesided": 1})]:
        n_out = 5 if attrs.get("onesided") else 8
        write(dft, name, 20, [helper.make_node("DFT", ["x", "", "axis"], ["y"], **attrs)],
              [vi("x", F, [2, 8, 1])], [sig], [vi("y", F, [2, n_out, 2])],
              [numpy_helper.from_array(np.array(1, np.int64), "axis")])
    write(dft, "dft17_axis_attribute", 17, [helper.make_node("DFT", ["x"], ["y"], axis=1)],
          [vi("x", F, [2, 8, 1])], [sig], [vi("y", F, [2, 8, 2])])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
