#!/usr/bin/python3
"""bench_opset.py: `rewrite --target-opset` against plain `rewrite`, and `rewrite
--fold-shapes` against `infer`, on a 100k-node model.

usage: bench_opset.py ONNXSHAPE WORK_DIR [SPEC]

Generates gen_models.py's transformer (SPEC, default transformer:100k; opset 17, with
LayerNormalization) into WORK_DIR once, then times, in rounds of a seeded shuffled
order, `rewrite` without a target (the pass finding nothing to do), `rewrite
--target-opset 21` (every node checked against opset 21's schema, Reduce, Split and
the like moved to their new forms), `--target-opset 13` (down: LayerNormalization
decomposed), `infer -o` and `rewrite --fold-shapes` (every Reshape target computed
from a Shape given a constant form, the computation dropped), BENCH_RUNS runs each
(default 5), each into a file deleted before it, and prints the medians of wall
and of CPU time (user+system of the child) and their ratios: of the opset targets
to the plain rewrite, of the fold to infer. The bar: within 2x, in wall time.
"""
import os
import random
import resource
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
        "infer": [osh, "infer", model, "-o", out],
        "rewrite --fold-shapes": [osh, "rewrite", "--fold-shapes", model, "-o", out],
    }
    # What each is held to: its ratio is to that one's median.
    against = {"rewrite --target-opset 21": "rewrite", "rewrite --target-opset 13": "rewrite",
               "rewrite --fold-shapes": "infer"}
    runs = int(os.environ.get("BENCH_RUNS", "5"))
    wall = {k: [] for k in tools}
    cpu = {k: [] for k in tools}
    rng = random.Random(1)
    for _ in range(runs):
        order = list(tools)
        rng.shuffle(order)
        for k in order:
            if os.path.exists(out):
                os.unlink(out)
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.run(tools[k], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wall[k].append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[k].append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
            if p.returncode != 0:
                sys.exit("bench_opset.py: %s exited %d: %s" % (k, p.returncode, p.stderr.strip()[-300:]))
    load = os.getloadavg()[0]
    print("%s (%s): median of %d runs, load average %.2f at the end" % (spec, model, runs, load))
    worst = 0.0
    for k in tools:
        w, c = statistics.median(wall[k]), statistics.median(cpu[k])
        line = "  %-28s wall %7.3f s, cpu %7.3f s" % (k, w, c)
        if k in against:
            bw, bc = statistics.median(wall[against[k]]), statistics.median(cpu[against[k]])
            worst = max(worst, w / bw)
            line += "  (%.2fx, %.2fx `%s`)" % (w / bw, c / bc, against[k])
        print(line)
    print("  within 2x in wall time: %s" % ("yes" if worst <= 2.0 else "NO"))
    return 0 if worst <= 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
