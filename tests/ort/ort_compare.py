"""ort_compare.py: onnxshape's inferred output shapes against what ONNX Runtime computes.

Shared by shapes_vs_ort.py and ms_vs_ort.py, which only say which one-node models to
build and what to feed them. Each model is inferred with `onnxshape infer
--ignore-declared`, run by ONNX Runtime (run_shapes.js), and every output classified:
  exact          every dim known and equal to the runtime's
  consistent     same rank, every known dim equal, some symbolic or unknown
  unknown        no rank claimed
  contradiction  a wrong rank, a wrong size or a wrong element type
"""
import collections
import json
import os
import subprocess

import onnx


def inferred_dims(tool, model, work, type_names):
    """{output: (element type name, dims with None for unknown)}, or None and why."""
    out = os.path.join(work, "inferred.onnx")
    if os.path.exists(out):
        os.unlink(out)
    r = subprocess.run([tool, "infer", "--ignore-declared", model, "-o", out], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(out):
        return None, r.stderr.strip()
    res = {}
    for o in onnx.load(out).graph.output:
        tt = o.type.tensor_type if o.type.HasField("tensor_type") else None
        elem = type_names.get(tt.elem_type, "?%d" % tt.elem_type) if tt is not None and tt.elem_type else None
        if tt is None or not tt.HasField("shape"):
            res[o.name] = (elem, None)
        else:
            res[o.name] = (elem, [d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim])
    return res, ""


def classify(elem, inferred, real_elem, real):
    if elem is not None and elem != real_elem:
        return "contradiction"
    if inferred is None:
        return "unknown"
    if len(inferred) != len(real):
        return "contradiction"
    if any(i is not None and i != r for i, r in zip(inferred, real)):
        return "contradiction"
    return "exact" if all(i is not None for i in inferred) else "consistent"


def compare(tool, ort_dir, work, cases, build, feeds, type_names, title, widths, strict):
    """Builds, runs and compares every case (dicts with "name" and "outputs"); prints a
    line per output and the summary `TITLE: N outputs: ...`. Returns the exit status:
    1 on a contradiction, and with `strict` also on an unknown output or a case ONNX
    Runtime did not run."""
    os.makedirs(work, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    runs = []
    for c in cases:
        path = os.path.join(work, c["name"] + ".onnx")
        build(c, path)
        runs.append({"model": path, "feeds": feeds(c)})
    with open(os.path.join(work, "cases.json"), "w") as f:
        json.dump(runs, f)
    r = subprocess.run(["node", os.path.join(here, "run_shapes.js"), ort_dir, os.path.join(work, "cases.json")],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("run_shapes.js failed:", r.stderr.strip()[-500:])
        return 1
    real = json.loads(r.stdout.strip().splitlines()[-1])
    counts = collections.Counter()
    name_w, out_w = widths
    for c in cases:
        path = os.path.join(work, c["name"] + ".onnx")
        got = real.get(path, {"error": "no result"})
        if "error" in got:
            print("  %-*s not run by ONNX Runtime: %s" % (name_w, c["name"], got["error"][:150]))
            counts["not run"] += 1
            continue
        inf, err = inferred_dims(tool, path, work, type_names)
        for o in [o for o in c["outputs"] if o]:
            real_elem, real_dims = got["types"][o], got["outputs"][o]
            if inf is None:
                verdict, shown = "contradiction", "infer failed: " + err
            else:
                elem, dims = inf.get(o, (None, None))
                verdict, shown = classify(elem, dims, real_elem, real_dims), "%s %s" % (elem, dims)
            counts[verdict] += 1
            print("  %-*s %-*s %-13s inferred %s, ONNX Runtime %s %s" % (name_w, c["name"], out_w, o, verdict, shown,
                                                                        real_elem, real_dims))
    print("%s: %d outputs: %d exact, %d consistent, %d unknown, %d contradictions; %d cases not run"
          % (title, sum(counts[k] for k in ("exact", "consistent", "unknown", "contradiction")), counts["exact"],
             counts["consistent"], counts["unknown"], counts["contradiction"], counts["not run"]))
    failed = counts["contradiction"] or (strict and (counts["unknown"] or counts["not run"]))
    return 1 if failed else 0
