#!/usr/bin/env python3
"""Conformance of onnxshape's inference on the ONNX backend node-test corpus.

Used for each corpus ctest knows (onnx 1.12, generated at test time, and onnx 1.23.1,
unpacked from tests/data); what differs between them is given as arguments.

For every model: `onnxshape infer --ignore-declared` (declared shapes of graph outputs
and value_info are ignored: everything is inferred from the graph inputs), then each
graph output's inferred shape is compared with the dims of the real output in
test_data_set_0/output_N.pb. Per output:
  exact          every dim known and equal
  consistent     same rank, every known dim equal, some unknown or symbolic
  unknown        no shape inferred (not even the rank): no claim made
  contradiction  anything else: a wrong rank or a wrong size
A failed run is a model that inference refused (a non-zero exit, a crash, a time-out
or nothing written) although the corpus runs it; its outputs are counted apart.
Non-tensor outputs (sequences, optionals, maps) are counted apart too.

usage: conformance.py ONNXSHAPE CORPUS_NODE_DIR [FILTER] [--values]
         [--known FILE] [--max-contradictions N] [--min-exact PCT] [--target-exact PCT]

--known FILE lists contradictions and failed runs already understood, one a line:
    MODEL OUTPUT REASON...
OUTPUT is a graph output's name, or * for every output of MODEL (a failed run);
REASON is required. `#` starts a comment. Entries not seen in this run are printed
(the file serves both modes, so one may apply to a single mode) but do not fail.

Exit status 1 when contradictions plus failed runs not in --known number more than
--max-contradictions (default 0), or when the exact share is under --min-exact.
--target-exact only prints whether the share reaches it.
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto

RUN_TIMEOUT_S = 60


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


def read_known(path):
    """{(model, output): reason} from a known-issues file; a bad line ends the run (status 1)."""
    known = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                sys.exit("%s:%d: expected MODEL OUTPUT REASON" % (path, n))
            known[(parts[0], parts[1])] = parts[2]
    return known


def run_infer(cmd):
    """(ok, why) for one `onnxshape infer` run."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, "timed out after %d s" % RUN_TIMEOUT_S
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or ["?"])[-1]
        return False, "exit status %d: %s" % (r.returncode, why)
    return True, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("corpus")
    ap.add_argument("filter", nargs="?", default="")
    ap.add_argument("--values", action="store_true", help="pass --input-data test_data_set_0 (values mode)")
    ap.add_argument("--known", help="known contradictions and failed runs: MODEL OUTPUT|* REASON a line")
    ap.add_argument("--max-contradictions", type=int, default=0,
                    help="unlisted contradictions plus failed runs allowed (default 0)")
    ap.add_argument("--min-exact", type=float, help="fail when under this exact share, in percent")
    ap.add_argument("--target-exact", type=float, help="print whether this exact share is reached; never fails")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_intermixed_args()
    known = read_known(args.known) if args.known else {}

    counts = collections.Counter()
    by_op = collections.defaultdict(list)
    seen_known = set()
    unlisted = 0  # contradictions and failed runs not in --known
    failed_runs = known_failed = known_contra = 0
    tmp = tempfile.TemporaryDirectory(prefix="osh-conf-")
    out = os.path.join(tmp.name, "out.onnx")
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
        ok, why = run_infer(cmd)
        if ok and not os.path.exists(out):
            ok, why = False, "nothing written"
        inferred = onnx.load(out) if ok else None
        if inferred is None:
            failed_runs += 1
            if (name, "*") in known:
                seen_known.add((name, "*"))
                known_failed += 1
                why += " (known: %s)" % known[(name, "*")]
            else:
                unlisted += 1
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
                verdict = "failed run"
                detail = "infer failed: " + why
            else:
                verdict = classify(inferred.graph.output[i].type, real_dims(real))
                shp = inferred.graph.output[i].type.tensor_type.shape
                detail = "inferred %s, real %s" % (
                    [x.dim_value if x.HasField("dim_value") else (x.dim_param or "?") for x in shp.dim]
                    if inferred.graph.output[i].type.tensor_type.HasField("shape") else "?",
                    real_dims(real))
            counts[verdict] += 1
            if verdict == "contradiction":
                key = next((k for k in ((name, o.name), (name, "*")) if k in known), None)
                if key:
                    seen_known.add(key)
                    known_contra += 1
                    detail += " (known: %s)" % known[key]
                else:
                    unlisted += 1
            if verdict != "exact":
                by_op[op].append((verdict, name, o.name, detail))

    total = sum(counts[k] for k in ("exact", "consistent", "unknown", "contradiction", "failed run"))
    exact_pct = 100.0 * counts["exact"] / max(total, 1)
    print("conformance (%s mode): %d tensor outputs: %d exact (%.1f%%), %d consistent, %d unknown, "
          "%d contradictions, %d failed runs (%d outputs)"
          % ("values" if args.values else "static", total, counts["exact"], exact_pct, counts["consistent"],
             counts["unknown"], counts["contradiction"], failed_runs, counts["failed run"]))
    print("  (not compared: %d non-tensor outputs, %d without data)" % (counts["non-tensor"], counts["no data"]))
    if known:
        print("  known issues: %d contradictions, %d failed runs listed in %s"
              % (known_contra, known_failed, args.known))
    for op in sorted(by_op, key=lambda k: (-len(by_op[k]), k)):
        items = by_op[op]
        kinds = collections.Counter(v for v, *_ in items)
        print("  %-28s %s" % (op, ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items()))))
        for v, name, oname, detail in items:
            if v in ("contradiction", "failed run") or args.verbose:
                print("      %s: %s %s: %s" % (v, name, oname, detail))
    for key in sorted(set(known) - seen_known):
        if args.filter in key[0]:
            print("  known issue not seen in this run: %s %s (%s)" % (key[0], key[1], known[key]))

    status = 0
    if unlisted > args.max_contradictions:
        print("FAIL: %d contradictions and failed runs not listed as known (at most %d allowed)"
              % (unlisted, args.max_contradictions))
        status = 1
    if args.min_exact is not None and exact_pct < args.min_exact:
        print("FAIL: %.2f%% exact, under the minimum %.2f%%" % (exact_pct, args.min_exact))
        status = 1
    if args.target_exact is not None:
        print("exact target %.1f%%: %s (%.2f%%; not enforced)"
              % (args.target_exact, "met" if exact_pct >= args.target_exact else "NOT met", exact_pct))
    return status


if __name__ == "__main__":
    sys.exit(main())
