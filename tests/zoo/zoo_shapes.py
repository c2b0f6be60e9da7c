#!/usr/bin/env python3
"""onnxshape's inferred shapes on three classic ImageNet networks, against onnx's.

The networks are bench/gen_zoo.py's rebuilds of ResNet-50, DenseNet-121 and GoogLeNet
(the model zoo's copies cannot be downloaded here): the papers' structure, random
weights. Each is written with its weights as external data (onnxshape never reads
them), then `onnxshape infer --ignore-declared` infers every value from the input
[batch, 3, 224, 224] alone, and every value's type and shape it writes must equal what
onnx.shape_inference (strict) infers for the same model: every dim, the symbolic batch
included, and no value left out. Also checks the output's [batch, 1000], so that two
implementations agreeing on nothing cannot pass.

usage: zoo_shapes.py ONNXSHAPE [NAME...]   (default: all three)
Exit status 1 on any difference.
"""
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import gen_zoo  # noqa: E402


def shape_of(t):
    """(element type, dims) of a ValueInfo's tensor type; dims as ints or names."""
    tt = t.type.tensor_type
    if not tt.HasField("shape"):
        return tt.elem_type, None
    return tt.elem_type, [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim]


def compare(osh, name, tmp):
    model = gen_zoo.build(name, 9)
    path = os.path.join(tmp, name, "model.onnx")
    os.makedirs(os.path.dirname(path))
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    out = os.path.join(tmp, name, "inferred.onnx")
    r = subprocess.run([osh, "infer", "--ignore-declared", path, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        print("%s: onnxshape infer exited %d: %s" % (name, r.returncode, r.stderr.strip()))
        return 1
    ours = onnx.load(out, load_external_data=False).graph
    theirs = shape_inference.infer_shapes(onnx.load(path, load_external_data=False), strict_mode=True).graph
    mine = {v.name: shape_of(v) for v in list(ours.value_info) + list(ours.output)}
    want = {v.name: shape_of(v) for v in list(theirs.value_info) + list(theirs.output)}
    bad = 0
    for v, s in sorted(want.items()):
        if mine.get(v) != s:
            bad += 1
            if bad <= 10:
                print("%s: %s: onnxshape %s, onnx %s" % (name, v, mine.get(v, "(none)"), s))
    if want.get("prob") != (onnx.TensorProto.FLOAT, ["batch", 1000]):
        print("%s: prob is %s, not [batch, 1000]" % (name, want.get("prob")))
        bad += 1
    print("%s: %d nodes, %d values compared, %d differ" % (name, len(ours.node), len(want), bad))
    return bad


def main():
    osh = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(gen_zoo.NAMES)
    with tempfile.TemporaryDirectory(prefix="osh-zoo-") as tmp:
        bad = sum(compare(osh, n, tmp) for n in names)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
