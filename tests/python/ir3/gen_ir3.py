#!/usr/bin/env python3
"""Writes shuffle_ir3.onnx beside this script: a ShuffleNet unit as old exporters
(Caffe2's, IR version 3) wrote it, every initializer also listed among the graph
inputs with its declared shape.

    python3 gen_ir3.py

A convolution, then the channel shuffle (Reshape to groups, Transpose, Reshape
back) whose target shapes are initializers, added to the convolution's output. IR 3
lets a caller replace any initializer that is a graph input, so ONNX Runtime does
not take the Reshape targets as constants, and nor does onnxshape unless told to
(--constant-initializers), or the model is rewritten without them among the inputs
(rewrite --drop-initializer-inputs). Opset 8, the last IR 3 went with, so that ONNX
Runtime's CPU provider has a kernel for every node.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def build():
    rng = np.random.default_rng(3)
    inits = [
        numpy_helper.from_array(rng.standard_normal((8, 4, 3, 3)).astype(np.float32), "conv_w"),
        numpy_helper.from_array(rng.standard_normal((8,)).astype(np.float32), "conv_b"),
        numpy_helper.from_array(np.array([1, 2, 4, 6, 6], dtype=np.int64), "groups_shape"),
        numpy_helper.from_array(np.array([1, 8, 6, 6], dtype=np.int64), "flat_shape"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["conv"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("Reshape", ["relu", "groups_shape"], ["grouped"], name="to_groups"),
        helper.make_node("Transpose", ["grouped"], ["swapped"], perm=[0, 2, 1, 3, 4], name="shuffle"),
        helper.make_node("Reshape", ["swapped", "flat_shape"], ["shuffled"], name="from_groups"),
        helper.make_node("Add", ["shuffled", "conv"], ["y"], name="residual"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])]
    inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in inits]
    graph = helper.make_graph(nodes, "shuffle_unit", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 6, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)], producer_name="gen_ir3.py")
    model.ir_version = 3
    return model


if __name__ == "__main__":
    onnx.save(build(), os.path.join(HERE, "shuffle_ir3.onnx"))
