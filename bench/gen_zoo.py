#!/usr/bin/python3
"""gen_zoo.py: seeded rebuilds of three classic ImageNet CNNs as ONNX models.

usage: gen_zoo.py [--seed S] OUTDIR NAME...
  NAME  resnet50 | densenet121 | inception_v1 | all

The ONNX model zoo copies of these networks cannot be downloaded here (no network),
so they are rebuilt from the papers' published structure with random weights: the
operators, attributes and tensor shapes are the real ones, which is what a
shape-inference benchmark needs; what the models compute means nothing.

Each model is written twice into OUTDIR: NAME.onnx with its weights inline and
NAME-ext/model.onnx with every initializer as external data in NAME-ext/weights.bin.
A model whose files exist with a stamp (NAME.params: name, seed, VERSION) equal to
this run's is not generated again. Prints one line per file written: path, nodes,
parameters (initializer floats), bytes (for -ext: model.onnx + weights.bin), seconds.

All three: opset 13 (ai.onnx), ir_version 7, input "data" float [batch, 3, 224, 224],
output "prob" float [batch, 1000] (Softmax over a Gemm with transB=1), batch symbolic.
  resnet50      ResNet-50 v1, 176 nodes, 25.6M learned parameters.
  densenet121   DenseNet-121, 428 nodes, 8.0M learned parameters.
  inception_v1  GoogLeNet without the auxiliary classifiers, 143 nodes, 7.0M.
Every Conv has a bias input and every BatchNormalization its four initializers, so
the files hold more floats than the papers count: the biases of convs that the
originals leave without one (all of ResNet's and DenseNet's) and BN's running mean
and variance (statistics, not learned) come on top. GoogLeNet has no BN and its
convs had biases in the original, so its count is the paper's.

Weights come from numpy's default_rng(seed) in graph order, He-normal (std
sqrt(2 / fan_in)) so activations stay finite if someone runs a model; BN variances are
uniform in [0.5, 1.5]. Node names follow the original Caffe releases ("res2a_branch2a",
"conv2_1/x1", "inception_3a/5x5"); a node's output value has the node's name. The same
seed gives the same bytes.
"""
import argparse
import os
import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VERSION = 1  # bump when the models change, so that old stamps stop matching
OPSET = 13
IR_VERSION = 7
NAMES = ("resnet50", "densenet121", "inception_v1")


class Net:
    """Collects nodes and initializers in graph order. Every helper takes the node's
    name, which is also its output value's name, and returns that name."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []

    def param(self, name, arr):
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name))
        return name

    def node(self, op, name, ins, out=None, **attrs):
        self.nodes.append(helper.make_node(op, ins, [out or name], name=name, **attrs))
        return out or name

    def conv(self, name, x, cin, cout, k, stride=1, pad=0):
        w = self.param(name + "_w", self.rng.standard_normal((cout, cin, k, k)) * np.sqrt(2.0 / (cin * k * k)))
        b = self.param(name + "_b", self.rng.standard_normal(cout) * 0.01)
        return self.node("Conv", name, [x, w, b], kernel_shape=[k, k], strides=[stride] * 2, pads=[pad] * 4)

    def bn(self, name, x, c):
        r = self.rng
        ins = [self.param(name + "_scale", r.uniform(0.5, 1.5, c)), self.param(name + "_bias", r.normal(0, 0.01, c)),
               self.param(name + "_mean", r.normal(0, 0.01, c)), self.param(name + "_var", r.uniform(0.5, 1.5, c))]
        return self.node("BatchNormalization", name, [x] + ins, epsilon=1e-5)

    def relu(self, name, x):
        return self.node("Relu", name, [x])

    def pool(self, op, name, x, k, stride, pad=0):
        return self.node(op, name, [x], kernel_shape=[k, k], strides=[stride] * 2, pads=[pad] * 4)

    def head(self, x, c, fc):
        """Flatten, the 1000-way classifier and Softmax: x is [batch, c, 1, 1]."""
        x = self.node("Flatten", "flatten", [x], axis=1)
        w = self.param(fc + "_w", self.rng.standard_normal((1000, c)) * np.sqrt(2.0 / c))
        b = self.param(fc + "_b", np.zeros(1000))
        x = self.node("Gemm", fc, [x, w, b], transB=1)
        return self.node("Softmax", "prob", [x], axis=1)


def resnet50(net):
    """ResNet-50 v1: He, Zhang, Ren and Sun, "Deep Residual Learning for Image
    Recognition" (2015), Table 1. Stem Conv 7x7/2 (64) + BN + Relu + MaxPool 3x3/2;
    stages conv2_x..conv5_x of [3, 4, 6, 3] bottleneck blocks (1x1 w, 3x3 w, 1x1 4w
    with w = 64, 128, 256, 512), each conv followed by BN, Relu after all but the
    last, the shortcut added, then Relu. The first block of a stage has a projection
    shortcut (Conv 1x1 + BN, option B of section 3.3); in stages 3-5 it also
    downsamples, with stride 2 on its first 1x1 conv and on the projection (the
    original v1 placement, as in the authors' Caffe model)."""
    x = net.relu("conv1_relu", net.bn("bn_conv1", net.conv("conv1", "data", 3, 64, 7, 2, 3), 64))
    x = net.pool("MaxPool", "pool1", x, 3, 2, 1)
    cin = 64
    for stage, (blocks, w) in enumerate(zip([3, 4, 6, 3], [64, 128, 256, 512]), start=2):
        for i in range(blocks):
            b = "%d%s" % (stage, "abcdef"[i])
            stride = 2 if i == 0 and stage > 2 else 1
            short = x
            if i == 0:
                short = net.bn("bn%s_branch1" % b, net.conv("res%s_branch1" % b, x, cin, 4 * w, 1, stride), 4 * w)
            y = x
            for br, (ci, co, k, s) in zip("abc", [(cin, w, 1, stride), (w, w, 3, 1), (w, 4 * w, 1, 1)]):
                y = net.conv("res%s_branch2%s" % (b, br), y, ci, co, k, s, k // 2)
                y = net.bn("bn%s_branch2%s" % (b, br), y, co)
                if br != "c":
                    y = net.relu("res%s_branch2%s_relu" % (b, br), y)
            x = net.relu("res%s_relu" % b, net.node("Add", "res" + b, [y, short]))
            cin = 4 * w
    return net.head(net.node("GlobalAveragePool", "pool5", [x]), cin, "fc1000")


def densenet121(net):
    """DenseNet-121: Huang, Liu, van der Maaten and Weinberger, "Densely Connected
    Convolutional Networks" (CVPR 2017), Table 1, DenseNet-BC with growth rate k = 32.
    Stem Conv 7x7/2 (2k = 64) + BN + Relu + MaxPool 3x3/2; dense blocks of [6, 12,
    24, 16] layers, each BN-Relu-Conv 1x1 (4k) -BN-Relu-Conv 3x3 (k) whose output is
    concatenated (axis 1) to the block's running features; between blocks a transition
    BN-Relu-Conv 1x1 halving the channels (compression 0.5) + AveragePool 2x2/2; head
    BN + Relu + GlobalAveragePool + classifier."""
    x = net.relu("conv1/relu", net.bn("conv1/bn", net.conv("conv1", "data", 3, 64, 7, 2, 3), 64))
    x = net.pool("MaxPool", "pool1", x, 3, 2, 1)
    c = 64
    for blk, layers in enumerate([6, 12, 24, 16], start=2):
        for i in range(1, layers + 1):
            n = "conv%d_%d" % (blk, i)
            y = net.relu(n + "/x1/relu", net.bn(n + "/x1/bn", x, c))
            y = net.conv(n + "/x1", y, c, 4 * 32, 1)
            y = net.relu(n + "/x2/relu", net.bn(n + "/x2/bn", y, 4 * 32))
            y = net.conv(n + "/x2", y, 4 * 32, 32, 3, 1, 1)
            x = net.node("Concat", "concat_%d_%d" % (blk, i), [x, y], axis=1)
            c += 32
        n = "conv%d_blk" % blk
        x = net.relu(n + "/relu", net.bn(n + "/bn", x, c))
        if blk < 5:
            x = net.conv(n, x, c, c // 2, 1)
            x = net.pool("AveragePool", "pool%d" % blk, x, 2, 2)
            c //= 2
    return net.head(net.node("GlobalAveragePool", "pool5", [x]), c, "fc6")


# Table 1 of the GoogLeNet paper: #1x1, #3x3 reduce, #3x3, #5x5 reduce, #5x5, pool proj.
INCEPTION = [("3a", 64, 96, 128, 16, 32, 32), ("3b", 128, 128, 192, 32, 96, 64),
             ("4a", 192, 96, 208, 16, 48, 64), ("4b", 160, 112, 224, 24, 64, 64),
             ("4c", 128, 128, 256, 24, 64, 64), ("4d", 112, 144, 288, 32, 64, 64),
             ("4e", 256, 160, 320, 32, 128, 128), ("5a", 256, 160, 320, 32, 128, 128),
             ("5b", 384, 192, 384, 48, 128, 128)]


def inception_v1(net):
    """GoogLeNet: Szegedy et al., "Going Deeper with Convolutions" (2014), Table 1 and
    Figure 3, without the two auxiliary classifiers (training only). Stem Conv 7x7/2
    (64), MaxPool 3x3/2, LRN, Conv 1x1 (64), Conv 3x3 (192), LRN, MaxPool 3x3/2; then
    inception modules 3a, 3b, MaxPool, 4a-4e, MaxPool, 5a, 5b: four branches (1x1;
    1x1 reduce + 3x3; 1x1 reduce + 5x5; MaxPool 3x3/1 + 1x1 pool proj) concatenated on
    axis 1; every conv followed by Relu; head AveragePool 7x7/1, Dropout (40% in the
    paper; a no-op at inference, so the opset-13 default ratio), classifier. The
    max pools downsample with pad 1: 224 -> 112 -> 56 -> 28 -> 14 -> 7, as in the table.
    LRN as in the authors' Caffe model: size 5, alpha 1e-4, beta 0.75, bias 1."""
    def cr(name, x, cin, cout, k, stride=1):
        d, base = name.rsplit("/", 1)
        return net.relu("%s/relu_%s" % (d, base), net.conv(name, x, cin, cout, k, stride, k // 2))

    def lrn(name, x):
        return net.node("LRN", name, [x], size=5, alpha=1e-4, beta=0.75, bias=1.0)

    x = net.pool("MaxPool", "pool1/3x3_s2", cr("conv1/7x7_s2", "data", 3, 64, 7, 2), 3, 2, 1)
    x = cr("conv2/3x3", cr("conv2/3x3_reduce", lrn("pool1/norm1", x), 64, 64, 1), 64, 192, 3)
    x = net.pool("MaxPool", "pool2/3x3_s2", lrn("conv2/norm2", x), 3, 2, 1)
    c = 192
    for m, n1, r3, n3, r5, n5, pp in INCEPTION:
        if m in ("4a", "5a"):
            x = net.pool("MaxPool", "pool%d/3x3_s2" % (int(m[0]) - 1), x, 3, 2, 1)
        p = "inception_%s/" % m
        b1 = cr(p + "1x1", x, c, n1, 1)
        b3 = cr(p + "3x3", cr(p + "3x3_reduce", x, c, r3, 1), r3, n3, 3)
        b5 = cr(p + "5x5", cr(p + "5x5_reduce", x, c, r5, 1), r5, n5, 5)
        bp = cr(p + "pool_proj", net.pool("MaxPool", p + "pool", x, 3, 1, 1), c, pp, 1)
        x = net.node("Concat", p + "output", [b1, b3, b5, bp], axis=1)
        c = n1 + n3 + n5 + pp
    x = net.pool("AveragePool", "pool5/7x7_s1", x, 7, 1)
    x = net.node("Dropout", "pool5/drop_7x7_s1", [x])
    return net.head(x, c, "loss3/classifier")


def build(name, seed):
    net = Net(seed)
    out = {"resnet50": resnet50, "densenet121": densenet121, "inception_v1": inception_v1}[name](net)
    assert out == "prob"
    graph = helper.make_graph(
        net.nodes, name, [helper.make_tensor_value_info("data", TensorProto.FLOAT, ["batch", 3, 224, 224])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, ["batch", 1000])], initializer=net.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="onnxshape-bench")
    model.ir_version = IR_VERSION  # make_model writes onnx's newest (8 in onnx 1.12)
    return model


def report(path, model, nbytes, t0):
    # Counted from the dims, which stay in place when the bytes go to weights.bin.
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    print("%s: %d nodes, %.2fM parameters, %d bytes, generated in %.1f s" % (
        path, len(model.graph.node), params / 1e6, nbytes, time.perf_counter() - t0), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("outdir")
    ap.add_argument("names", nargs="+", choices=NAMES + ("all",), metavar="NAME", help=" | ".join(NAMES) + " | all")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    names = [n for want in a.names for n in (NAMES if want == "all" else (want,))]
    for name in dict.fromkeys(names):  # each once, in the order given
        inline = os.path.join(a.outdir, name + ".onnx")
        ext_dir = os.path.join(a.outdir, name + "-ext")
        ext, weights = os.path.join(ext_dir, "model.onnx"), os.path.join(ext_dir, "weights.bin")
        stamp = os.path.join(a.outdir, name + ".params")
        params = "name=%s seed=%d version=%d\n" % (name, a.seed, VERSION)
        if all(os.path.exists(f) for f in (inline, ext, weights, stamp)) and open(stamp).read() == params:
            print("%s: up to date" % name, flush=True)
            continue
        # The stamp goes first and comes back last, so that a run cut short is redone.
        for f in (stamp, weights):
            if os.path.exists(f):
                # weights.bin too: onnx appends to an existing external data file.
                os.remove(f)
        t0 = time.perf_counter()
        model = build(name, a.seed)
        onnx.save(model, inline)
        report(inline, model, os.path.getsize(inline), t0)
        # Second, because saving as external data moves the tensors' bytes out of model.
        t0 = time.perf_counter()
        os.makedirs(ext_dir, exist_ok=True)
        onnx.save_model(model, ext, save_as_external_data=True, all_tensors_to_one_file=True,
                        location="weights.bin", size_threshold=0)
        report(ext, model, os.path.getsize(ext) + os.path.getsize(weights), t0)
        with open(stamp, "w") as s:
            s.write(params)


if __name__ == "__main__":
    sys.exit(main())
