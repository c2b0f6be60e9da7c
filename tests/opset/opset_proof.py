#!/usr/bin/python3
"""opset_proof.py: proves `onnxshape rewrite --target-opset N` on ONNX Runtime.

usage: opset_proof.py --tool ONNXSHAPE --node NODE --modules NODE_MODULES --work DIR
                      [--targets 13,17,...] [--sample K] [--only REGEX] [--all-equal]
                      [--peer] [--jobs J]
                      [--corpus DIR]... [--real DIR]... [--zoo DIR]...

For every model of every set and every target that differs from the model's own
ai.onnx opset, the tool converts the model (`rewrite --target-opset N`); the
original and the converted model then run on ONNX Runtime (onnxruntime-node, one
process per batch) at the same inputs, and every output is compared: floats within
1e-3 relative (1e-5 absolute near zero, NaN equal to NaN), integers, booleans and
strings exactly, shapes and element types exactly. Each pair is one of:
  equal      converted, runs, every output the same;
  refused    the tool refused with rewrite-unsupported errors (reasons grouped);
  different  converted, and the converted model fails on the runtime or computes
             something else: must never happen;
  crash      the tool exited with a status other than 0 or 1, or without its
             report: must never happen;
  skipped    the original does not run on the runtime, or takes inputs the runner
             cannot feed (sequences, strings): not counted.
The sets: --corpus, ONNX node-test folders (model.onnx, test_data_set_0/input_*.pb);
--real, exported networks (model.onnx, record.json: inputs drawn seeded from the
record's kinds at its first binding; weights of 256 elements or more that are all
zero filled with seeded random values first); --zoo, the old converted models
(folders with model.onnx and test_data_set_0, found recursively). --sample K takes
every K-th model of each set (deterministic). --peer converts with onnx's own
version_converter instead (targets up to 17 only); --only REGEX keeps the models
whose name it finds, --all-equal fails on a refused pair too; --json keeps every pair's
outcome, --versus OTHER.json lists the pairs another run (the peer's) converted
equal and this one did not. Prints a line per set and
target, the refusal reasons, and every different or crash; exits 1 when any pair is
different or crashed.
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
# The ONNX Runtime runner the proofs share.
RUNNER = os.path.join(HERE, os.pardir, "support", "run_ort.js")
DTYPES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 9: "bool",
          10: "float16", 11: "float64", 12: "uint32", 13: "uint64"}
NP = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16,
      "int32": np.int32, "int64": np.int64, "bool": np.bool_, "float16": np.float16, "float64": np.float64,
      "uint32": np.uint32, "uint64": np.uint64}


def opset_of(model):
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


class Case:
    def __init__(self, set_name, name, model_path, feeds):
        self.set = set_name
        self.name = name
        self.model = model_path
        self.feeds = feeds  # [(name, np.ndarray)] or None when unfeedable


def corpus_cases(d, set_name):
    out = []
    for folder in sorted(glob.glob(os.path.join(d, "*"))):
        mp = os.path.join(folder, "model.onnx")
        ds = os.path.join(folder, "test_data_set_0")
        if not os.path.isfile(mp) or not os.path.isdir(ds):
            continue
        out.append((set_name, os.path.basename(folder), mp, ds))
    return out


def zoo_cases(d, set_name):
    out = []
    for mp in sorted(glob.glob(os.path.join(d, "**", "model.onnx"), recursive=True)):
        ds = os.path.join(os.path.dirname(mp), "test_data_set_0")
        if os.path.isdir(ds):
            out.append((set_name, os.path.relpath(os.path.dirname(mp), d), mp, ds))
    return out


def real_cases(d, set_name):
    out = []
    for folder in sorted(glob.glob(os.path.join(d, "*"))):
        mp, rec = os.path.join(folder, "model.onnx"), os.path.join(folder, "record.json")
        if os.path.isfile(mp) and os.path.isfile(rec):
            out.append((set_name, os.path.basename(folder), mp, rec))
    return out


def load_feeds(model, ds):
    """The recorded inputs, bound to the graph's inputs in order; None when unfeedable."""
    inits = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    files = sorted(glob.glob(os.path.join(ds, "input_*.pb")), key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[0]))
    if len(files) != len(names):
        return None
    feeds = []
    for name, f in zip(names, files):
        t = onnx.TensorProto()
        with open(f, "rb") as fh:
            data = fh.read()
        try:
            t.ParseFromString(data)
        except Exception:
            return None
        if t.data_type not in DTYPES or (not t.dims and not t.raw_data and len(t.ListFields()) <= 1):
            return None
        try:
            a = numpy_helper.to_array(t)
        except Exception:
            return None
        feeds.append((name, a))
    return feeds


def real_feeds(model, rec, work, name):
    """Seeded inputs from the record, and a copy of the model with zeroed weights filled."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    changed = False
    for init in model.graph.initializer:
        if init.data_type == 1 and np.prod(init.dims) >= 256 and not init.external_data:
            a = numpy_helper.to_array(init)
            if not a.any():
                init.CopyFrom(numpy_helper.from_array((rng.standard_normal(a.shape) * 0.05).astype(np.float32), init.name))
                changed = True
    binding = rec["truth"][0]["binding"] if rec.get("truth") else {}
    types = {i.name: i.type.tensor_type.elem_type for i in model.graph.input}
    feeds = []
    for iname, kind, dims in rec["inputs"]:
        shape = [binding.get(x, 1) if isinstance(x, str) else x for x in dims]
        dt = DTYPES.get(types.get(iname, 1))
        if dt is None:
            return None, None
        if kind == "f":
            a = rng.standard_normal(shape).astype(NP[dt])
        elif kind == "i":
            a = rng.integers(0, 10, size=shape).astype(NP[dt])
        else:
            a = np.ones(shape, dtype=NP[dt])
        feeds.append((iname, a))
    path = os.path.join(work, "filled", name.replace("/", "_") + ".onnx")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(model, path)
    return path, feeds


def run_ort(args, jobs, tag):
    """Runs jobs [(model, feeds, out)]; returns {index: None (ok) or error}."""
    if not jobs:
        return {}
    jdir = os.path.join(args.work, "feeds")
    os.makedirs(jdir, exist_ok=True)
    spec = []
    for i, (model, feeds, out) in enumerate(jobs):
        fs = []
        for k, (name, a) in enumerate(feeds):
            f = "%s.in%d" % (out, k)
            if not os.path.exists(f):
                with open(f, "wb") as fh:
                    fh.write(np.ascontiguousarray(a).tobytes())
            fs.append({"name": name, "dtype": DTYPES_BY_NP[a.dtype.type], "dims": list(a.shape), "file": f})
        spec.append({"model": model, "feeds": fs, "out": out})
    # Two runtimes side by side: the halves of the list.
    halves = [spec[: len(spec) // 2], spec[len(spec) // 2:]]
    results = {}

    def go(h, base):
        jf = os.path.join(args.work, "jobs-%s-%d.json" % (tag, base))
        with open(jf, "w") as fh:
            json.dump(h, fh)
        p = subprocess.run([args.node, RUNNER, args.modules, jf],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("opset_proof.py: run_ort.js failed: %s" % p.stderr.strip())
        got = {}
        for line in p.stdout.splitlines():
            m = re.match(r"RESULT (\d+) (ok|error)(?: (.*))?$", line)
            if m:
                got[base + int(m.group(1))] = None if m.group(2) == "ok" else (m.group(3) or "error")
        return got

    with ThreadPoolExecutor(2) as ex:
        for got in ex.map(lambda hb: go(*hb), [(halves[0], 0), (halves[1], len(halves[0]))]):
            results.update(got)
    return results


DTYPES_BY_NP = {v: k for k, v in NP.items()}
RANDOM = {"Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike"}


def read_outputs(out):
    with open(out + ".json") as fh:
        meta = json.load(fh)
    res = []
    for k, m in enumerate(meta):
        if m["dtype"] == "string":
            with open("%s.%d" % (out, k)) as fh:
                res.append((m["name"], "string", m["dims"], json.load(fh)))
            continue
        dt = m["dtype"]
        a = np.fromfile("%s.%d" % (out, k), dtype=NP.get(dt, np.uint8))
        res.append((m["name"], dt, m["dims"], a))
    return res


def compare(a_out, b_out):
    """None when equal, else what differs."""
    if len(a_out) != len(b_out):
        return "%d outputs, %d after" % (len(a_out), len(b_out))
    for (na, ta, da, va), (nb, tb, db, vb) in zip(a_out, b_out):
        if ta != tb or list(da) != list(db):
            return "output %s: %s%s, %s%s after" % (na, ta, da, tb, db)
        if ta == "string":
            if va != vb:
                return "output %s: strings differ" % na
            continue
        if ta in ("float32", "float64", "float16"):
            x, y = va.astype(np.float64), vb.astype(np.float64)
            same = (np.abs(x - y) <= 1e-3 * np.maximum(np.abs(x), np.abs(y)) + 1e-5) | (np.isnan(x) & np.isnan(y)) | (x == y)
            if not same.all():
                i = int(np.argmin(same))
                return "output %s: %g vs %g at %d" % (na, x[i], y[i], i)
        elif not np.array_equal(va, vb):
            return "output %s: values differ" % na
    return None


REASON = re.compile(r"error: (?:cannot convert )?(\w+)(?: from opset \d+ to \d+)?: (.*?)(?: \[rewrite-unsupported\])?$")


def reason_of(line):
    m = REASON.search(line)
    if not m:
        return line.strip()[:120]
    op, why = m.group(1), m.group(2)
    why = re.sub(r"'[^']*'", "'…'", why)
    why = re.sub(r"\b\d+\b", "N", why)
    return "%s: %s" % (op, why[:110])


def convert_ours(args, src, dst, target):
    p = subprocess.run([args.tool, "rewrite", "--target-opset", str(target), src, "-o", dst],
                       capture_output=True, text=True)
    if p.returncode == 0 and os.path.exists(dst):
        return "ok", None
    if p.returncode == 1:
        reasons = sorted({reason_of(l) for l in (p.stdout + p.stderr).splitlines() if "rewrite-unsupported" in l})
        if reasons:
            return "refused", reasons
        errs = sorted({l.split(": error: ")[-1][:100] for l in (p.stdout + p.stderr).splitlines() if " error" in l})
        return "refused", ["the model has errors: " + (errs[0] if errs else "?")]
    return "crash", ["exit %d: %s" % (p.returncode, (p.stderr.strip().splitlines() or ["?"])[-1][:200])]


PEER_WORKER = r"""
import sys, onnx
from onnx import version_converter
for line in sys.stdin:
    src, dst, target = line.rstrip("\n").split("\t")
    try:
        m = onnx.load(src)
        c = version_converter.convert_version(m, int(target))
        onnx.save(c, dst)
        print("DONE ok", flush=True)
    except Exception as e:
        print("DONE refused " + (str(e).strip().splitlines() or ["?"])[-1].replace("\n", " "), flush=True)
"""

_peer = threading.local()


def convert_peer(args, src, dst, target):
    """onnx's version_converter in a long-lived worker per thread (a crash restarts it)."""
    w = getattr(_peer, "w", None)
    if w is None or w.poll() is not None:
        w = _peer.w = subprocess.Popen([sys.executable, "-c", PEER_WORKER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    w.stdin.write("%s\t%s\t%d\n" % (src, dst, target))
    w.stdin.flush()
    line = w.stdout.readline()
    if not line.startswith("DONE "):
        w.wait()
        _peer.w = None
        return "crash", ["the converter died (status %s)" % w.returncode]
    if line.startswith("DONE ok") and os.path.exists(dst):
        return "ok", None
    last = re.sub(r"\b\d+\b", "N", line[len("DONE refused "):].strip())
    return "refused", [last[:140]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--node", default="node")
    ap.add_argument("--modules", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--targets", default="13,17,18,21,23,26")
    ap.add_argument("--sample", type=int, default=1)
    ap.add_argument("--peer", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--corpus", action="append", default=[])
    ap.add_argument("--real", action="append", default=[])
    ap.add_argument("--zoo", action="append", default=[])
    ap.add_argument("--keep", action="store_true", help="keep the work folder (inputs, outputs)")
    ap.add_argument("--json", help="write the figures and every pair's outcome here")
    ap.add_argument("--versus", help="another run's --json: list the pairs it converted equal and this one did not")
    ap.add_argument("--only", help="only the models whose name this regular expression finds")
    ap.add_argument("--all-equal", action="store_true", help="fail on any pair that is not equal (refused too)")
    args = ap.parse_args()
    targets = [int(t) for t in args.targets.split(",")]
    if args.peer:
        targets = [t for t in targets if t <= 17]
    os.makedirs(args.work, exist_ok=True)

    raw = []
    for d in args.corpus:
        raw += [("corpus:" + os.path.basename(os.path.dirname(d.rstrip("/"))) + "/" + os.path.basename(d.rstrip("/")),) + c[1:]
                for c in corpus_cases(d, "")]
    for d in args.zoo:
        raw += [("zoo",) + c[1:] for c in zoo_cases(d, "")]
    for d in args.real:
        raw += [("real:" + os.path.basename(d.rstrip("/")),) + c[1:] for c in real_cases(d, "")]
    by_set = collections.OrderedDict()
    for c in raw:
        by_set.setdefault(c[0], []).append(c)
    cases = []
    for s, cs in by_set.items():
        cases += [c for c in cs if not args.only or re.search(args.only, c[1])][:: args.sample]

    # Load each case: its feeds, its opset. Random outputs cannot be compared.
    items, skipped_random = [], []
    for set_name, name, mp, extra in cases:
        try:
            model = onnx.load(mp)
        except Exception:
            continue
        src = opset_of(model)
        if src is None:
            continue
        if any(n.op_type in RANDOM for n in model.graph.node):
            skipped_random.append(set_name)
            continue
        if extra.endswith(".json"):
            with open(extra) as fh:
                rec = json.load(fh)
            path, feeds = real_feeds(model, rec, args.work, set_name + "_" + name)
        else:
            path, feeds = mp, load_feeds(model, extra)
        items.append((set_name, name, path, src, feeds))

    # The originals on the runtime.
    odir = os.path.join(args.work, "out")
    os.makedirs(odir, exist_ok=True)
    jobs, idx = [], []
    for i, (set_name, name, path, src, feeds) in enumerate(items):
        if feeds is not None:
            jobs.append((path, feeds, os.path.join(odir, "o%d" % i)))
            idx.append(i)
    res = run_ort(args, jobs, "orig")
    runs = {idx[j]: res.get(j, "no result") is None for j in range(len(jobs))}

    # Conversions.
    cdir = os.path.join(args.work, "conv")
    os.makedirs(cdir, exist_ok=True)
    tasks = []
    for i, (set_name, name, path, src, feeds) in enumerate(items):
        if not runs.get(i):
            continue
        for t in targets:
            if t != src:
                tasks.append((i, t, os.path.join(cdir, "c%d_%d.onnx" % (i, t))))
    conv = convert_peer if args.peer else convert_ours

    def do(task):
        i, t, dst = task
        if os.path.exists(dst):
            os.unlink(dst)
        return conv(args, items[i][2], dst, t)

    stats = collections.OrderedDict()
    reasons = collections.defaultdict(collections.Counter)
    bad = []
    pairs = {}

    def judge(chunk):
        """Converts, runs and compares one chunk of tasks, then deletes what it wrote."""
        with ThreadPoolExecutor(args.jobs) as ex:
            outcomes = list(ex.map(do, chunk))
        jobs, jidx = [], []
        for k, ((i, t, dst), (st, why)) in enumerate(zip(chunk, outcomes)):
            if st == "ok":
                jobs.append((dst, items[i][4], os.path.join(odir, "c%d_%d" % (i, t))))
                jidx.append(k)
        res = run_ort(args, jobs, "conv")
        for k, ((i, t, dst), (st, why)) in enumerate(zip(chunk, outcomes)):
            set_name, name = items[i][0], items[i][1]
            key = (set_name, t)
            stats.setdefault(key, collections.Counter())
            pairs["%s/%s->%d" % (set_name, name, t)] = st if st != "ok" else "different"
            if st == "refused":
                stats[key]["refused"] += 1
                for w in why:
                    reasons[t][w] += 1
            elif st == "crash":
                stats[key]["crash"] += 1
                bad.append("CRASH %s/%s -> %d: %s" % (set_name, name, t, why[0]))
        for j, k in enumerate(jidx):
            i, t, dst = chunk[k]
            set_name, name = items[i][0], items[i][1]
            key = (set_name, t)
            err = res.get(j, "no result")
            out = os.path.join(odir, "c%d_%d" % (i, t))
            if err is not None:
                stats[key]["different"] += 1
                bad.append("DIFFERENT %s/%s -> %d: the runtime refuses the converted model: %s" % (set_name, name, t, err[:200]))
            else:
                d = compare(read_outputs(os.path.join(odir, "o%d" % i)), read_outputs(out))
                if d:
                    stats[key]["different"] += 1
                    bad.append("DIFFERENT %s/%s -> %d: %s" % (set_name, name, t, d))
                else:
                    stats[key]["equal"] += 1
                    pairs["%s/%s->%d" % (set_name, name, t)] = "equal"
        for i, t, dst in chunk:
            for f in glob.glob(os.path.join(odir, "c%d_%d.*" % (i, t))) + [dst]:
                if os.path.exists(f):
                    os.unlink(f)

    for c in range(0, len(tasks), 600):
        judge(tasks[c:c + 600])
    skipped = collections.Counter(items[i][0] for i in range(len(items)) if not runs.get(i))
    skipped.update(skipped_random)

    who = "onnx %s version_converter" % onnx.__version__ if args.peer else "onnxshape"
    print("%s, targets %s%s" % (who, ",".join(map(str, targets)), ", every %dth model" % args.sample if args.sample > 1 else ""))
    tot = collections.Counter()
    for (set_name, t), c in stats.items():
        n = sum(c.values())
        tot.update(c)
        print("%-28s -> %2d: %4d pairs: %4d equal, %4d refused, %d different, %d crash" %
              (set_name, t, n, c["equal"], c["refused"], c["different"], c["crash"]))
    n = sum(tot.values())
    print("all: %d pairs: %d equal (%.1f%%), %d refused, %d different, %d crash; %d models skipped (%s)" %
          (n, tot["equal"], 100.0 * tot["equal"] / max(n, 1), tot["refused"], tot["different"], tot["crash"],
           sum(skipped.values()), ", ".join("%s %d" % kv for kv in sorted(skipped.items())) or "none"))
    for t in targets:
        if reasons[t]:
            print("refused at %d, by reason:" % t)
            for w, c in reasons[t].most_common(12):
                print("  %4d  %s" % (c, w))
    for b in bad:
        print(b)
    if not args.keep:
        shutil.rmtree(args.work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"stats": {"%s->%d" % k: dict(v) for k, v in stats.items()}, "pairs": pairs}, fh, indent=0)
    if args.versus:
        with open(args.versus) as fh:
            other = json.load(fh)["pairs"]
        theirs = [k for k, v in sorted(other.items()) if v == "equal" and pairs.get(k) not in (None, "equal")]
        both = sum(1 for k, v in other.items() if v == "equal" and pairs.get(k) == "equal")
        print("versus %s: %d pairs equal by both, %d equal by the other only%s" %
              (args.versus, both, len(theirs), ":" if theirs else ""))
        for k in theirs:
            print("  %s (%s here)" % (k, pairs[k]))
    if args.all_equal and tot["equal"] != n:
        print("not every pair is equal (--all-equal)")
        return 1
    return 1 if tot["different"] or tot["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
