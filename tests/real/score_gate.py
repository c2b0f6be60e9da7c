#!/usr/bin/python3
"""score_gate.py: onnxshape's inferred shapes on real exported networks, scored by
tests/real/score_real.py (a copy of the reference scorer) against the shapes ONNX Runtime observed, and its
`check` verdict on the same healthy networks.

usage: score_gate.py TOOL SCORER DIR [--min-exact PCT] [--quiet-check | --clean-check]

Fails on
  - any wrong value (a size that contradicts a run);
  - a network with fewer exact values than the better of onnx's and ONNX Runtime's
    symbolic inference on it (as recorded beside the network);
  - fewer than PCT percent exact values over the networks ONNX Runtime's
    symbolic_shape_infer completes (the bar of the symbolic-algebra issue: 99); a peer
    absent from a record (not installable where the set was made) counts as completing
    nothing: 0 exact for the peer check, and no bar where no network has it;
  - with --quiet-check, any warning or symbol-constraint note from `check`;
  - with --clean-check, any error or warning from `check` (its symbol-constraint notes
    are counted and printed, not failed on).
Prints the scorer's table and one line per verdict.
"""
import os
import re
import subprocess
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tool, scorer, root = args[0], args[1], args[2]
    min_exact = 99.0
    if "--min-exact" in sys.argv:
        min_exact = float(sys.argv[sys.argv.index("--min-exact") + 1])
    out = subprocess.run([sys.executable, scorer, tool, root], capture_output=True, text=True, timeout=600)
    print(out.stdout)
    if out.returncode != 0:
        print(out.stderr)
        print("FAIL: the scorer failed")
        return 1
    failures = []
    row = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)/(\d+)/(\d+)/(\d+)\s+(\d+)/(\d+)/(\d+)/(\d+)\s+(\d+)/(\d+)/(\d+)/(\d+)\s*$")
    completed_exact = completed_total = networks = 0
    for line in out.stdout.splitlines():
        if "infer failed" in line:
            failures.append(line.strip())
        m = row.match(line)
        if not m:
            continue
        networks += 1
        name, total = m.group(1), int(m.group(2))
        ours = [int(m.group(k)) for k in range(3, 7)]
        onnx = [int(m.group(k)) for k in range(7, 11)]
        ort = [int(m.group(k)) for k in range(11, 15)]
        if ours[3]:
            failures.append(f"{name}: {ours[3]} wrong values")
        best = max(onnx[0], ort[0])
        if ours[0] < best:
            failures.append(f"{name}: {ours[0]} exact, below the better peer's {best}")
        if ort[2] < total:  # ONNX Runtime completed it
            completed_exact += ours[0]
            completed_total += total
    if networks == 0:
        failures.append("no network scored")
    if completed_total:
        pct = 100.0 * completed_exact / completed_total
        print(f"exact over the networks ONNX Runtime completes: {completed_exact}/{completed_total} ({pct:.2f}%), "
              f"bar {min_exact}%")
        if pct < min_exact:
            failures.append(f"{pct:.2f}% exact, below {min_exact}%")
    else:
        # A set recorded where ONNX Runtime's symbolic inference could not be installed
        # has no such peer (its record says why); the other verdicts still apply.
        print("no network with ONNX Runtime's symbolic inference recorded: the exact bar does not apply")
    quiet = "--quiet-check" in sys.argv
    if quiet or "--clean-check" in sys.argv:
        notes = 0
        for name in sorted(os.listdir(root)):
            model = os.path.join(root, name, "model.onnx")
            if not os.path.exists(model):
                continue
            r = subprocess.run([tool, "check", model], capture_output=True, text=True, timeout=120)
            lines = r.stdout.splitlines() + r.stderr.splitlines()
            constraint = [l for l in lines if "[symbol-constraint]" in l]
            noisy = [l for l in lines if ": warning: " in l or ": error: " in l] + (constraint if quiet else [])
            notes += len(constraint)
            if r.returncode != 0 or noisy:
                failures.append(f"{name}: check exit {r.returncode}, " + (noisy[0] if noisy else "no finding"))
        print(f"check: {networks} networks checked at default severity; {notes} symbol-constraint notes")
    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
