#!/usr/bin/env python3
"""test_ir3_ort.py: rewrite --drop-initializer-inputs against ONNX Runtime (ctest python/ir3-ort).

    test_ir3_ort.py ONNXSHAPE NODE_MODULES RUN_ORT_JS WORK

The oracle is ONNX Runtime (onnxruntime-node) running the model as it was: the
fixture fixtures/shuffle_ir3.onnx (IR 3, every initializer a graph input, only x
fed: the initializers are the defaults ONNX Runtime then uses) and the ONNX
project's old converted IR 3 models copied beside it (fixtures/converted: Conv2d,
ConvTranspose2d and Embedding of the PyTorch 0.3 era, from the archive of the
ONNX project's converted test models, with their test data). Each is rewritten with
--drop-initializer-inputs, and the rewritten model must load (IR 4, the inputs
only x), run on the same feeds and give the same outputs, bit for bit: dropping
inputs changes no computation. The converted models are also compared with their
own expected outputs (test_data_set_0/output_0.pb). Exit status 1 on any difference.
"""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
DTYPES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64", np.dtype(np.int64): "int64",
          np.dtype(np.int32): "int32"}


def cases():
    """(name, model path, feeds {name: array}, expected outputs or None)."""
    rng = np.random.default_rng(11)
    yield "shuffle_ir3", os.path.join(FIXTURES, "shuffle_ir3.onnx"), {
        "x": rng.standard_normal((1, 4, 6, 6)).astype(np.float32)}, None
    converted = os.path.join(FIXTURES, "converted")
    for name in sorted(os.listdir(converted)):
        folder = os.path.join(converted, name)
        data = os.path.join(folder, "test_data_set_0")
        model = onnx.load(os.path.join(folder, "model.onnx"))
        inits = {t.name for t in model.graph.initializer}
        fed = [i.name for i in model.graph.input if i.name not in inits]
        feeds = {n: numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f"input_{k}.pb")))
                 for k, n in enumerate(fed)}
        outs = [numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f"output_{k}.pb")))
                for k in range(len(model.graph.output))]
        yield name, os.path.join(folder, "model.onnx"), feeds, outs


def run_ort(modules, runner, work, jobs):
    """Runs each (model, feeds, output names) job; their outputs, or an error string."""
    listed = []
    for j, (model, feeds, names) in enumerate(jobs):
        fl = []
        for n, a in feeds.items():
            path = os.path.join(work, f"job{j}_{n}.bin")
            with open(path, "wb") as f:
                f.write(np.ascontiguousarray(a).tobytes())
            fl.append({"name": n, "dtype": DTYPES[a.dtype], "dims": list(a.shape), "file": path})
        listed.append({"model": model, "feeds": fl,
                       "outputs": [{"name": n, "file": os.path.join(work, f"job{j}_out_{k}.bin")}
                                   for k, n in enumerate(names)]})
    spec = os.path.join(work, "jobs.json")
    with open(spec, "w") as f:
        json.dump(listed, f)
    r = subprocess.run(["node", runner, modules, spec], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit(f"run_ort.js failed: {r.stderr.strip()}")
    status = dict(line.split(" ", 2)[1:] for line in r.stdout.splitlines() if line.startswith("RESULT "))
    results = []
    for j, job in enumerate(listed):
        if not status.get(str(j), "").startswith("ok"):
            results.append(status.get(str(j), "no result"))
            continue
        arrays = []
        for o in job["outputs"]:
            with open(o["file"] + ".json") as f:
                meta = json.load(f)
            arrays.append(np.fromfile(o["file"], dtype=meta["dtype"]).reshape(meta["dims"]))
        results.append(arrays)
    return results


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    tool, modules, runner, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    bad = 0
    jobs, meta = [], []
    for name, model, feeds, expected in cases():
        out = os.path.join(work, name + ".dropped.onnx")
        r = subprocess.run([tool, "rewrite", "--drop-initializer-inputs", model, "-o", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name}: rewrite exited {r.returncode}: {r.stderr.strip()}")
            bad += 1
            continue
        m = onnx.load(out)
        if m.ir_version < 4 or [i.name for i in m.graph.input] != list(feeds):
            print(f"{name}: rewritten IR {m.ir_version}, inputs {[i.name for i in m.graph.input]}")
            bad += 1
        names = [o.name for o in m.graph.output]
        jobs += [(model, feeds, names), (out, feeds, names)]
        meta.append((name, expected))
    results = run_ort(modules, runner, work, jobs)
    for k, (name, expected) in enumerate(meta):
        before, after = results[2 * k], results[2 * k + 1]
        if isinstance(before, str) or isinstance(after, str):
            print(f"{name}: ONNX Runtime: as it was: {before if isinstance(before, str) else 'ok'}; "
                  f"rewritten: {after if isinstance(after, str) else 'ok'}")
            bad += 1
            continue
        if len(before) != len(after) or any(a.shape != b.shape or not np.array_equal(a, b)
                                            for a, b in zip(before, after)):
            print(f"{name}: the rewritten model's outputs differ from the model's")
            bad += 1
        if expected is not None and not all(np.allclose(a, e, rtol=1e-3, atol=1e-4) for a, e in zip(after, expected)):
            print(f"{name}: the outputs differ from test_data_set_0's")
            bad += 1
        print(f"{name}: {'ok' if not bad else 'checked'}")
    print(f"{len(meta)} models, {bad} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
