#!/usr/bin/python3
"""timing.py: onnxshape.check() in Python against `onnxshape check` (ctest python/timing).

usage: timing.py CLI MODEL [RUNS]

Prints the median wall time of each, over RUNS alternating runs (default 21): the
Python call as a program that has imported onnxshape sees it, the tool as a shell
sees it (a process started and waited for). The aim is Python within 10% of the
tool; printed, not asserted (the machine's load decides too much). Fails only when
the two disagree on the findings.
"""
import statistics
import subprocess
import sys
import time

import onnxshape


def main():
    cli, model = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 21
    report = onnxshape.check(model)  # warm: the file in the page cache, the library loaded
    out = subprocess.run([cli, "check", model], capture_output=True, text=True)
    summary = report.summary().split(" (")[0]
    if summary not in out.stdout:
        print(f"timing: the tool says {out.stdout.strip()!r}, Python {report.summary()!r}")
        return 1
    py, tool = [], []
    for _ in range(runs):
        t = time.perf_counter()
        onnxshape.check(model)
        py.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([cli, "check", model], stdout=subprocess.DEVNULL, check=False)
        tool.append(time.perf_counter() - t)
    p, c = statistics.median(py), statistics.median(tool)
    print(f"{model}: {report.nodes} nodes, {report.summary()}")
    print(f"onnxshape.check(): {p * 1e3:.1f} ms; onnxshape check: {c * 1e3:.1f} ms "
          f"(medians of {runs}); Python/tool {p / c:.2f} ({'within' if p <= 1.1 * c else 'over'} 10%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
