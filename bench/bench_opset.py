#!/usr/bin/python3
"""bench_opset.py: `rewrite --target-opset` against plain `rewrite` on a 100k-node model.

usage: bench_opset.py ONNXSHAPE WORK_DIR [SPEC]

Generates gen_models.py's transformer (SPEC, default transformer:100k; opset 17, with
LayerNormalization) into WORK_DIR once, then times, in rounds of a seeded shuffled
order, `rewrite` without a target (the pass finding nothing to do), `rewrite
--target-opset 21` (every node checked against opset 21's schema, Reduce, Split and
the like moved to their new forms) and `--target-opset 13` (down: LayerNormalization
decomposed), 5 runs each, and prints the medians and their ratios to the plain
rewrite. The bar: within 2x.
"""
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    osh, work = sys.argv[1], sys.argv[2]
    spec = sys.argv[3] if len(sys.argv) == 4 else "transformer:100k"
    os.makedirs(work, exist_ok=True)
    name = spec.replace(":", "-")
    model = os.path.join(work, name + ".onnx")
    if not os.path.exists(model):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_models.py"), "--inline-only", work, spec], check=True)
        made = [f for f in os.listdir(work) if f.startswith(name)]
        src = os.path.join(work, made[0])
        if os.path.isdir(src):
            src = os.path.join(src, "model.onnx")
        if src != model:
            os.replace(src, model)
    out = os.path.join(work, "out.onnx")
    tools = {
        "rewrite": [osh, "rewrite", model, "-o", out],
        "rewrite --target-opset 21": [osh, "rewrite", "--target-opset", "21", model, "-o", out],
        "rewrite --target-opset 13": [osh, "rewrite", "--target-opset", "13", model, "-o", out],
    }
    times = {k: [] for k in tools}
    rng = random.Random(1)
    for _ in range(5):
        order = list(tools)
        rng.shuffle(order)
        for k in order:
            if os.path.exists(out):
                os.unlink(out)
            t0 = time.perf_counter()
            p = subprocess.run(tools[k], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            times[k].append(time.perf_counter() - t0)
            if p.returncode != 0:
                sys.exit("bench_opset.py: %s exited %d: %s" % (k, p.returncode, p.stderr.strip()[-300:]))
    base = statistics.median(times["rewrite"])
    print("%s (%s): median of 5 runs" % (spec, model))
    worst = 0.0
    for k, v in times.items():
        m = statistics.median(v)
        worst = max(worst, m / base)
        print("  %-28s %7.3f s  (%.2fx the plain rewrite)" % (k, m, m / base))
    print("  within 2x: %s" % ("yes" if worst <= 2.0 else "NO"))
    return 0 if worst <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
