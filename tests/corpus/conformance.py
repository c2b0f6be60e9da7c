#!/usr/bin/env python3
"""Conformance of onnxshape's inference on the ONNX backend node-test corpus.

For every model: `onnxshape infer --ignore-declared` (declared shapes of graph outputs
and value_info are ignored: everything is inferred from the graph inputs), then each
graph output's inferred shape is compared with the dims of the real output in
test_data_set_0/output_N.pb. Per output:
  exact          every dim known and equal
  consistent     same rank, every known dim equal, some unknown or symbolic
  unknown        no shape inferred (not even the rank): no claim made
  contradiction  anything else: a wrong rank or a wrong size, or a model that
                 inference refused (nothing written) although the corpus runs it
Non-tensor outputs (sequences, optionals, maps) are counted apart.

usage: conformance.py ONNXSHAPE CORPUS_NODE_DIR [FILTER] [--values] [--max-contradictions N]
Exit status 1 when there are contradictions (more than --max-contradictions).
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto


def real_dims(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return list(t.dims)


def classify(inferred_type, dims):
    if not inferred_type.HasField("tensor_type") or not inferred_type.tensor_type.HasField("shape"):
        return "unknown"
    shape = inferred_type.tensor_type.shape
    if len(shape.dim) != len(dims):
        return "contradiction"
    exact = True
    for d, real in zip(shape.dim, dims):
        if d.HasField("dim_value"):
            if d.dim_value != real:
                return "contradiction"
        else:
            exact = False
    return "exact" if exact else "consistent"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("corpus")
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--values", action="store_true", help="pass --input-data test_data_set_0 (values mode)")
    ap.add_argument("--max-contradictions", type=int, default=0)
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()

    counts = collections.Counter()
    by_op = collections.defaultdict(list)
    tmp = tempfile.mkdtemp(prefix="osh-conf-")
    out = os.path.join(tmp, "out.onnx")
    for name in sorted(os.listdir(args.corpus)):
        if args.filter not in name:
            continue
        d = os.path.join(args.corpus, name)
        model_path = os.path.join(d, "model.onnx")
        data = os.path.join(d, "test_data_set_0")
        if not os.path.exists(model_path) or not os.path.isdir(data):
            continue
        model = onnx.load(model_path)
        producers = {o: n.op_type for n in model.graph.node for o in n.output}
        if os.path.exists(out):
            os.unlink(out)
        cmd = [args.tool, "infer", "--ignore-declared", model_path, "-o", out]
        if args.values:
            cmd[2:2] = ["--input-data", data]
        r = subprocess.run(cmd, capture_output=True, text=True)
        inferred = onnx.load(out) if r.returncode == 0 and os.path.exists(out) else None
        for i, o in enumerate(model.graph.output):
            op = producers.get(o.name, "(input)")
            if not o.type.HasField("tensor_type"):
                counts["non-tensor"] += 1
                continue
            real = os.path.join(data, "output_%d.pb" % i)
            if not os.path.exists(real):
                counts["no data"] += 1
                continue
            if inferred is None:
                verdict = "contradiction"
                detail = "infer failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
            else:
                verdict = classify(inferred.graph.output[i].type, real_dims(real))
                shp = inferred.graph.output[i].type.tensor_type.shape
                detail = "inferred %s, real %s" % (
                    [x.dim_value if x.HasField("dim_value") else (x.dim_param or "?") for x in shp.dim]
                    if inferred.graph.output[i].type.tensor_type.HasField("shape") else "?",
                    real_dims(real))
            counts[verdict] += 1
            if verdict != "exact":
                by_op[op].append((verdict, name, o.name, detail))
    total = counts["exact"] + counts["consistent"] + counts["unknown"] + counts["contradiction"]
    print("conformance (%s mode): %d tensor outputs: %d exact (%.1f%%), %d consistent, %d unknown, %d contradictions"
          % ("values" if args.values else "static", total, counts["exact"],
             100.0 * counts["exact"] / max(total, 1), counts["consistent"], counts["unknown"], counts["contradiction"]))
    print("  (not compared: %d non-tensor outputs, %d without data)" % (counts["non-tensor"], counts["no data"]))
    for op in sorted(by_op, key=lambda k: (-len(by_op[k]), k)):
        items = by_op[op]
        kinds = collections.Counter(v for v, *_ in items)
        print("  %-28s %s" % (op, ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items()))))
        for v, name, oname, detail in items:
            if v == "contradiction" or args.verbose:
                print("      %s: %s %s: %s" % (v, name, oname, detail))
    return 1 if counts["contradiction"] > args.max_contradictions else 0


if __name__ == "__main__":
    sys.exit(main())
