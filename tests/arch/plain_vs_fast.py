#!/usr/bin/python3
"""plain_vs_fast.py: the tool answers the same on its plain and its fast paths.

usage: plain_vs_fast.py TOOL WORK MODEL_DIR... [--bench GEN_MODELS.PY] [--jobs N]
                        [--against OTHER_TOOL]

The speed devices (threads, mappings, decoding from the wire bytes, streamed
writing) sit behind two seams, each with a plain path (src/core/tuning.h):
ONNXSHAPE_PLAIN_IO=1 takes it, =0 the fast one. Every *.onnx under each MODEL_DIR (copied into WORK first, beside
the files they name) is run through

    check M | check --format json M | print M | infer M -o OUT | rewrite M -o OUT

once each way, with the same paths, and the two runs must give the same exit status,
the same standard output and error, byte for byte, and the same file written (or none
both times), with nothing else left in OUT's directory. With --bench, bench/
gen_models.py generates transformer:10k (inline weights and external data) into WORK
and those are run too. Prints the count and the first difference of each pair that
differs (at most 20); exits 1 on any.

With --against, the two runs are TOOL and OTHER_TOOL, each on the path the environment
chooses, over more commands (SARIF, the rewrites' options): the check that a change
meant to move code, not behaviour, left every answer as it was (OTHER_TOOL built from
the commit before it).
"""
import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys

COMMANDS = [
    ("check", ["check", "{m}"]),
    ("check-json", ["check", "--format", "json", "{m}"]),
    ("print", ["print", "{m}"]),
    ("infer", ["infer", "{m}", "-o", "{out}"]),
    ("rewrite", ["rewrite", "{m}", "-o", "{out}"]),
]

# What --against runs beside COMMANDS: every output format and every rewrite.
MORE_COMMANDS = [
    ("check-sarif", ["check", "--format", "sarif", "{m}"]),
    ("shapes", ["shapes", "{m}"]),
    ("rewrite-explicit", ["rewrite", "--explicit-broadcast", "{m}", "-o", "{out}"]),
    ("rewrite-implicit", ["rewrite", "--implicit-broadcast", "{m}", "-o", "{out}"]),
    ("rewrite-fold", ["rewrite", "--fold-shapes", "{m}", "-o", "{out}"]),
    ("rewrite-opset13", ["rewrite", "--target-opset", "13", "{m}", "-o", "{out}"]),
    ("rewrite-opset21", ["rewrite", "--target-opset", "21", "{m}", "-o", "{out}"]),
    ("rewrite-dry", ["rewrite", "--dry-run", "--target-opset", "17", "--fold-shapes", "{m}"]),
]


def first_difference(a, b, names):
    """Where bytes a and b first differ, as 'byte B (line L), A ... | B ...'."""
    n = min(len(a), len(b))
    i = next((k for k in range(n) if a[k] != b[k]), n)
    line = a[:i].count(b"\n") + 1
    return "byte %d (line %d), %s %r | %s %r (lengths %d, %d)" % (
        i, line, names[False], a[max(0, i - 30):i + 50], names[True], b[max(0, i - 30):i + 50], len(a), len(b))


def listing(d):
    return sorted(os.listdir(d))


def run_once(argv, out, side):
    """side: (tool, plain) with plain True, False or None (as the caller's
    environment says)."""
    tool, plain = side
    env = dict(os.environ)
    if plain is not None:
        env["ONNXSHAPE_PLAIN_IO"] = "1" if plain else "0"
    p = subprocess.run([tool] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=600)
    written = None
    if out and os.path.exists(out):
        with open(out, "rb") as f:
            written = f.read()
        os.unlink(out)
    return p.returncode, p.stdout, p.stderr, written


def compare(sides, commands, model):
    """The differences, one line each, between the two sides' runs on model."""
    problems = []
    names = {False: sides[0][2], True: sides[1][2]}
    d = os.path.dirname(model)
    stem = os.path.basename(model)[:-len(".onnx")]
    out = os.path.join(d, stem + ".pvf-out.onnx")
    for name, template in commands:
        argv = [a.format(m=model, out=out) for a in template]
        before = listing(d)
        got = {}
        for second in (False, True):
            got[second] = run_once(argv, out if "{out}" in template else None, sides[second][:2])
            after = listing(d)
            if after != before:
                problems.append("%s %s (%s): left %s" % (name, model, names[second],
                                                         sorted(set(after) - set(before))))
                for extra in set(after) - set(before):
                    p = os.path.join(d, extra)
                    if os.path.isfile(p):
                        os.unlink(p)
        f, p = got[False], got[True]
        where = "%s %s" % (name, model)
        if f[0] != p[0]:
            problems.append("%s: exit status %s %d, %s %d" % (where, names[False], f[0], names[True], p[0]))
        for k, what in ((1, "stdout"), (2, "stderr")):
            if f[k] != p[k]:
                problems.append("%s: %s differs at %s" % (where, what, first_difference(f[k], p[k], names)))
        if (f[3] is None) != (p[3] is None):
            problems.append("%s: the output was written by %s only" % (where, names[p[3] is None]))
        elif f[3] is not None and f[3] != p[3]:
            problems.append("%s: the files written differ at %s" % (where, first_difference(f[3], p[3], names)))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("work")
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--bench", help="bench/gen_models.py: also run transformer:10k")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--against", help="compare TOOL with this tool instead of plain with fast")
    a = ap.parse_args()
    tool = os.path.abspath(a.tool)
    if a.against:
        sides = ((os.path.abspath(a.against), None, "other"), (tool, None, "this"))
        commands = COMMANDS + MORE_COMMANDS
    else:
        sides = ((tool, False, "fast"), (tool, True, "plain"))
        commands = COMMANDS
    work = os.path.abspath(a.work)
    models = []
    copies = os.path.join(work, "models")
    shutil.rmtree(copies, ignore_errors=True)
    for i, src in enumerate(a.dirs):
        dst = os.path.join(copies, "%d-%s" % (i, os.path.basename(os.path.normpath(src))))
        shutil.copytree(src, dst, symlinks=True)
        for root, _, files in os.walk(dst):
            models += [os.path.join(root, f) for f in files if f.endswith(".onnx")]
    if a.bench:
        bench = os.path.join(work, "bench")
        subprocess.run([sys.executable, a.bench, bench, "transformer:10k"], check=True, stdout=subprocess.DEVNULL)
        models += [os.path.join(bench, "transformer-10k.onnx"), os.path.join(bench, "transformer-10k-ext", "model.onnx")]
    models.sort()
    # One directory at a time per job: each run checks that its directory holds
    # nothing new afterwards.
    by_dir = {}
    for m in models:
        by_dir.setdefault(os.path.dirname(m), []).append(m)
    problems = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for found in pool.map(lambda ms: [p for m in ms for p in compare(sides, commands, m)], by_dir.values()):
            problems += found
    runs = len(models) * len(commands)
    print("%s vs %s: %d models, %d commands each way: %d differ" % (
        sides[0][2], sides[1][2], len(models), runs, len(problems)))
    for line in problems[:20]:
        print("  " + line)
    if len(models) < 10:
        print("too few models: the test tests nothing")
        return 1
    if problems:
        return 1
    # The copies take 100 MB or more; a failure keeps them to look at.
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
