#!/usr/bin/python3
"""gen_examples.py: writes the example models of tests/models/examples.

Re-run (needs python3-onnx; the .onnx files are committed beside this script, so the
build does not run it):

    /usr/bin/python3 tests/models/examples/gen_examples.py

The examples are what `make demo` shows (demo.sh) and what the shape inference, lint
and rewrite features are built against:

  cnn_residual.onnx            Conv + BatchNormalization + Relu + residual Add, opset 13,
                               symbolic batch dim "N": a clean model.
  transformer_block.onnx       MatMul + bias Add + Softmax, then the exporter's usual
                               Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain
                               computing a target shape at run time.
  paddle_elementwise_add.onnx  Paddle-style paddle::elementwise_add with axis=1:
                               X (2, 3, 4, 5) + Y (3,) means Y along axis 1.
  legacy_add_broadcast.onnx    opset 6 Add with broadcast=1, axis=1: the same meaning
                               in the pre-opset-7 spelling.
  broadcast_bug.onnx           pred (4, 1) + target (4,): numpy rules broadcast this to
                               (4, 4), the classic bug where (4,) was meant.

Weights are small and computed (no random numbers), serialization is deterministic:
running the script twice gives identical bytes. Every model except the Paddle one
(a domain onnx does not know) passes onnx.checker with full shape inference.
"""
import os

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT


def weights(name, shape, scale=0.01, offset=0.0):
    """Deterministic float32 weights: a small ramp, not random."""
    n = int(np.prod(shape))
    data = (np.arange(n, dtype=np.float32) % 17 - 8) * np.float32(scale) + np.float32(offset)
    return numpy_helper.from_array(data.reshape(shape).astype(np.float32), name)


def save(model, name, check=True):
    if check:
        checker.check_model(model, full_check=True)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


def make(nodes, inputs, outputs, inits, opsets, name, ir_version=8):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    m = helper.make_model(graph, opset_imports=opsets, producer_name="onnxshape-examples",
                          producer_version="1")
    m.ir_version = ir_version
    return m


def cnn_residual():
    c = 4
    nodes = [
        helper.make_node("Conv", ["X", "W", "B"], ["conv"], name="conv", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["conv", "scale", "bias", "mean", "var"], ["bn"],
                         name="bn", epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["relu"], name="relu"),
        helper.make_node("Add", ["relu", "X"], ["Y"], name="residual"),
    ]
    inits = [
        weights("W", [c, c, 3, 3]),
        weights("B", [c], 0.1),
        weights("scale", [c], 0.05, 1.0),
        weights("bias", [c], 0.02),
        weights("mean", [c], 0.01),
        weights("var", [c], 0.01, 1.0),
    ]
    return make(nodes, [helper.make_tensor_value_info("X", F, ["N", c, 8, 8])],
                [helper.make_tensor_value_info("Y", F, ["N", c, 8, 8])], inits,
                [helper.make_opsetid("", 13)], "cnn_residual")


def transformer_block():
    d = 8
    nodes = [
        helper.make_node("MatMul", ["X", "Wq"], ["proj"], name="proj"),
        helper.make_node("Add", ["proj", "bq"], ["biased"], name="bias"),
        helper.make_node("Softmax", ["biased"], ["attn"], name="softmax", axis=-1),
        # The target shape (batch, -1), computed from X at run time.
        helper.make_node("Shape", ["X"], ["x_shape"], name="shape"),
        helper.make_node("Gather", ["x_shape", "zero"], ["batch"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch_1d"], name="unsqueeze"),
        helper.make_node("Concat", ["batch_1d", "minus_one"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["attn", "target"], ["Y"], name="reshape"),
    ]
    inits = [
        weights("Wq", [d, d], 0.05),
        weights("bq", [d], 0.1),
        numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus_one"),
    ]
    return make(nodes, [helper.make_tensor_value_info("X", F, ["batch", "seq", d])],
                [helper.make_tensor_value_info("Y", F, ["batch", None])], inits,
                [helper.make_opsetid("", 13)], "transformer_block")


def paddle_elementwise_add():
    nodes = [helper.make_node("elementwise_add", ["X", "Y"], ["Z"], name="elementwise_add_0",
                              domain="paddle", axis=1)]
    return make(nodes, [helper.make_tensor_value_info("X", F, [2, 3, 4, 5]),
                        helper.make_tensor_value_info("Y", F, [3])],
                [helper.make_tensor_value_info("Z", F, [2, 3, 4, 5])], [],
                [helper.make_opsetid("", 13), helper.make_opsetid("paddle", 1)],
                "paddle_elementwise_add")


def legacy_add_broadcast():
    nodes = [helper.make_node("Add", ["A", "B"], ["C"], name="add_axis1", broadcast=1, axis=1)]
    return make(nodes, [helper.make_tensor_value_info("A", F, [2, 3, 4, 5]),
                        helper.make_tensor_value_info("B", F, [3])],
                [helper.make_tensor_value_info("C", F, [2, 3, 4, 5])], [],
                [helper.make_opsetid("", 6)], "legacy_add_broadcast", ir_version=3)


def broadcast_bug():
    # A loss written as pred + target where pred came out of a Linear layer as (4, 1):
    # the sum is (4, 4), sixteen values where four were meant. The output is declared
    # with rank 2 and unknown dims, as an exporter that traced ranks only would.
    nodes = [helper.make_node("Add", ["pred", "target"], ["sum"], name="add")]
    return make(nodes, [helper.make_tensor_value_info("pred", F, [4, 1]),
                        helper.make_tensor_value_info("target", F, [4])],
                [helper.make_tensor_value_info("sum", F, [None, None])], [],
                [helper.make_opsetid("", 13)], "broadcast_bug")


def unet_skip():
    # A U-Net skip connection: down twice (stride 2), up once (x2), add the first
    # level. With a symbolic H the two sizes are floor((H + 1)/2) and 2*floor((H +
    # 3)/4): equal for H = 224, not for H = 225 or 226.
    nodes = [helper.make_node("Conv", ["x", "w1"], ["down1"], name="down1", kernel_shape=[3, 3],
                              strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["down1", "w2"], ["down2"], name="down2", kernel_shape=[3, 3],
                              strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("Resize", ["down2", "", "scales"], ["up"], name="up", mode="nearest"),
             helper.make_node("Add", ["up", "down1"], ["skip"], name="skip")]
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    return make(nodes, [helper.make_tensor_value_info("x", F, ["N", 3, "H", "W"])],
                [helper.make_tensor_value_info("skip", F, ["N", 8, None, None])],
                [weights("w1", [8, 3, 3, 3]), weights("w2", [8, 8, 3, 3]), scales],
                [helper.make_opsetid("", 18)], "unet_skip")


if __name__ == "__main__":
    save(cnn_residual(), "cnn_residual.onnx")
    save(transformer_block(), "transformer_block.onnx")
    save(paddle_elementwise_add(), "paddle_elementwise_add.onnx", check=False)
    save(legacy_add_broadcast(), "legacy_add_broadcast.onnx")
    save(broadcast_bug(), "broadcast_bug.onnx")
    save(unet_skip(), "unet_skip.onnx")
