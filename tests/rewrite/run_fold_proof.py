#!/usr/bin/python3
"""run_fold_proof.py: proves `onnxshape rewrite --fold-shapes` on ONNX Runtime.

usage: run_fold_proof.py --tool ONNXSHAPE --node NODE --modules NODE_MODULES --work DIR
                         [--real DIR]... [--corpus DIR]... [--table FILE]
                         [--known FILE] [--max-nodes N]

Real networks (each --real DIR holds NAME/model.onnx with NAME/record.json, whose
inputs and two recorded bindings of the dynamic dims are used): float initializers
that are all zeros (the stored networks' weights are stripped) are filled with
seeded random values first, then the tool folds the model. It must exit 0 and print
its summary line; the folded model's graph inputs and outputs, their names, types and
declared dims (dynamic ones included), must be the original's; ONNX Runtime for node
(graph optimizations off) runs the original and the folded model at both bindings on
the same seeded inputs, and at a third, the first with the first input's first dynamic
dim 0 (where the original runs there, the folded model must too), and every output
must be equal: exactly for integers and
booleans, within 1e-4 relative for floats (a network whose original fails with the
random weights, a detector finding no box and then reshaping none, is run again with
its weights as stored, and marked so). ONNX Runtime's own basic level
(optimizedModelFilePath) writes the model it would run, and the folded model may not
have more nodes than it (all graphs counted), but for the networks --known lists
with the fusion of ONNX Runtime's that makes the difference (listed, and a failure
once the line is not needed). --max-nodes N leaves out the networks of more nodes
(make test's bound on time: the large detectors take minutes on ONNX Runtime).

Corpora (each --corpus DIR holds the ONNX node tests, NAME/model.onnx with
test_data_set_0): every model with shape arithmetic (a Shape, Size,
ConstantOfShape or Range node) that ONNX Runtime runs is folded, a test of the same
name once (the first corpus given has it); the tool
must exit 0, and where it changed the model the folded model must give the test
data's outputs (same tolerances).

Prints a table of the networks (nodes before, after folding, after ONNX Runtime's
basic level; both bindings equal) and a summary; --table writes the table to FILE.
Exits 1 on any failure.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import numpy_helper

DTYPE = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64", np.dtype(np.int32): "int32",
         np.dtype(np.int64): "int64", np.dtype(np.bool_): "bool", np.dtype(np.uint8): "uint8",
         np.dtype(np.int8): "int8"}
NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64, "bool": np.bool_,
      "uint8": np.uint8, "int8": np.int8}
SHAPE_OPS = {"Shape", "Size", "ConstantOfShape", "Range"}
SUMMARY = re.compile(r"fold-shapes: (\d+) nodes \S+ (\d+) \(values: \d+, Constant: \d+, Identity: \d+, "
                     r"no-ops: \d+, shared: \d+, absorbed: \d+, dead: \d+; constant forms: \d+; initializers \+\d+ -\d+\)")


def seed_of(text):
    return zlib.crc32(text.encode())


def count_nodes(graph):
    n = 0
    for node in graph.node:
        n += 1
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                n += count_nodes(a.g)
            for g in a.graphs:
                n += count_nodes(g)
    return n


def fill_weights(model, seed):
    """Stripped weights (all-zero float initializers) get seeded random values."""
    rng = np.random.default_rng(seed)
    for i, t in enumerate(model.graph.initializer):
        if t.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE) or t.data_location == 1:
            continue
        a = numpy_helper.to_array(t)
        if a.size < 2 or np.any(a):
            continue
        r = rng.uniform(-0.5, 0.5, size=a.shape).astype(a.dtype) / np.sqrt(max(1, a.shape[-1] if a.ndim else 1))
        model.graph.initializer[i].CopyFrom(numpy_helper.from_array(r.astype(a.dtype), t.name))


def io_signature(model):
    def sig(vs):
        return [(v.name, v.type.SerializeToString()) for v in vs]
    return sig(model.graph.input), sig(model.graph.output)


def tool(a, *args):
    return subprocess.run([a.tool, "rewrite", "--fold-shapes", *args], capture_output=True, text=True)


def equal(ref, got):
    if ref.dtype != got.dtype or ref.shape != got.shape:
        return False, f"dtype/shape {ref.dtype}{ref.shape} vs {got.dtype}{got.shape}"
    if ref.dtype.kind == "f":
        ok = np.allclose(got, ref, rtol=1e-4, atol=1e-6, equal_nan=True)
        return ok, "" if ok else f"max abs diff {np.nanmax(np.abs(got.astype(np.float64) - ref)):.3g}"
    ok = np.array_equal(ref, got)
    return ok, "" if ok else "integers differ"


def read_out(d, k):
    meta = json.load(open(os.path.join(d, f"{k}.json")))
    raw = open(os.path.join(d, f"{k}.bin"), "rb").read()
    return np.frombuffer(raw, dtype=NP[meta["dtype"]]).reshape(meta["dims"])


class Proof:
    def __init__(self, a):
        self.a = a
        self.jobs = []
        self.failures = []
        self.rows = []
        self.skipped = []
        self.known = {}

    empty_runs = 0  # networks whose original runs with an empty dim

    def fail(self, name, why):
        self.failures.append(f"FAIL {name}: {why}")

    def feeds(self, model, spec, binding, seed, d, prefix):
        """One feed file per input, of the model's own element types."""
        types = {v.name: onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[v.type.tensor_type.elem_type]
                 for v in model.graph.input}
        rng = np.random.default_rng(seed)
        out = []
        for name, kind, dims in spec:
            shape = [binding[x] if isinstance(x, str) else x for x in dims]
            dt = np.dtype(types[name])
            if kind == "m":
                v = np.ones(shape, dt)
            elif kind == "i":
                v = rng.integers(0, 10, size=shape).astype(dt)
            else:
                v = rng.uniform(-1, 1, size=shape).astype(dt)
            f = os.path.join(d, f"{prefix}_{len(out)}.bin")
            v.tofile(f)
            out.append({"name": name, "dtype": DTYPE[dt], "dims": shape, "file": f})
        return out

    def prepare_real(self, net_dir, fill=True):
        name = os.path.basename(net_dir.rstrip("/"))
        d = os.path.join(self.a.work, "real" if fill else "real-stored", name)
        os.makedirs(d, exist_ok=True)
        rec = json.load(open(os.path.join(net_dir, "record.json")))
        model = onnx.load(os.path.join(net_dir, "model.onnx"))
        if self.a.max_nodes and count_nodes(model.graph) > self.a.max_nodes:
            return None
        if fill:
            fill_weights(model, seed_of(name))
        orig = os.path.join(d, "orig.onnx")
        onnx.save(model, orig)
        folded = os.path.join(d, "folded.onnx")
        r = tool(self.a, orig, "-o", folded)
        if r.returncode != 0:
            return self.fail(name, f"exit {r.returncode}: {r.stderr.strip()[-300:]}")
        m = SUMMARY.search(r.stderr)
        if not m and open(folded, "rb").read() != open(orig, "rb").read():
            return self.fail(name, f"changed without a summary line: {r.stderr.strip()[-300:]}")
        fm = onnx.load(folded)
        if io_signature(fm) != io_signature(model):
            return self.fail(name, "graph inputs or outputs changed")
        before, ours = count_nodes(model.graph), count_nodes(fm.graph)
        if m and (int(m.group(1)) != before or int(m.group(2)) != ours):
            return self.fail(name, f"summary says {m.group(1)} -> {m.group(2)}, the models {before} -> {ours}")
        outs = [o.name for o in model.graph.output]
        bindings = [t["binding"] for t in rec["truth"][:2]]
        runs = []
        for b, binding in enumerate(bindings):
            fd = self.feeds(model, rec["inputs"], binding, seed_of(f"{name}/{b}"), d, f"in{b}")
            for which, path in (("orig", orig), ("folded", folded)):
                out = os.path.join(d, f"{which}{b}")
                self.jobs.append({"model": path, "feeds": fd, "outputs": outs, "out": out})
                runs.append(len(self.jobs) - 1)
        # A third binding: the first's with the first input's first dynamic dim 0.
        empty, eruns = empty_binding(rec["inputs"], bindings[0]), []
        if empty:
            fd = self.feeds(model, rec["inputs"], empty, seed_of(f"{name}/empty"), d, "ine")
            for which, path in (("orig", orig), ("folded", folded)):
                self.jobs.append({"model": path, "feeds": fd, "outputs": outs, "out": os.path.join(d, f"{which}e")})
                eruns.append(len(self.jobs) - 1)
        basic = os.path.join(d, "ort_basic.onnx")
        self.jobs.append({"optimize": orig, "to": basic})
        return {"name": name, "d": d, "runs": runs, "opt": len(self.jobs) - 1, "before": before, "ours": ours,
                "basic": basic, "nouts": len(outs), "bindings": bindings, "dir": net_dir, "fill": fill,
                "empty": empty, "eruns": eruns}

    def judge_real(self, p, results):
        name = p["name"]
        eq = []
        for b in range(len(p["bindings"])):
            ro, rf = results[p["runs"][2 * b]], results[p["runs"][2 * b + 1]]
            if ro != "ok":
                # With random weights some detectors find nothing, and their own
                # graph then fails (a Reshape of 0 boxes): judged again with the
                # weights as stored (main()); the stored ones failing too, nothing
                # to compare.
                self.skipped.append(f"{name} at {p['bindings'][b]}: the original fails: {ro[:160]}")
                eq.append("original fails")
                continue
            if rf != "ok":
                self.fail(name, f"the folded model does not run at {p['bindings'][b]}: {rf}")
                eq.append("no")
                continue
            ok = True
            for k in range(p["nouts"]):
                same, why = equal(read_out(os.path.join(p["d"], f"orig{b}"), k),
                                  read_out(os.path.join(p["d"], f"folded{b}"), k))
                if not same:
                    self.fail(name, f"output {k} differs at {p['bindings'][b]}: {why}")
                    ok = False
            eq.append("yes" if ok else "no")
        if p["eruns"]:
            # An empty batch: where the original runs it, the folded model must too
            # and give the same outputs (a -1 worked out over an empty dim fails).
            ro, rf = results[p["eruns"][0]], results[p["eruns"][1]]
            if ro == "ok" and rf != "ok":
                self.fail(name, f"the folded model does not run at {p['empty']}, the original does: {rf}")
            elif ro == "ok":
                for k in range(p["nouts"]):
                    same, why = equal(read_out(os.path.join(p["d"], "orige"), k),
                                      read_out(os.path.join(p["d"], "foldede"), k))
                    if not same:
                        self.fail(name, f"output {k} differs at {p['empty']}: {why}")
            self.empty_runs += ro == "ok"
        basic = None
        if results[p["opt"]] == "ok":
            basic = count_nodes(onnx.load(p["basic"]).graph)
            if p["ours"] > basic and name in self.known:
                self.skipped.append(f"{name}: {p['ours']} nodes, ONNX Runtime's basic level {basic}: {self.known[name]}")
            elif p["ours"] > basic:
                self.fail(name, f"{p['ours']} nodes after folding, ONNX Runtime's basic level leaves {basic}")
            elif name in self.known:
                self.fail(name, f"{p['ours']} nodes, no more than ONNX Runtime's {basic}: drop it from the known list")
        else:
            self.fail(name, f"ONNX Runtime's basic level failed: {results[p['opt']]}")
        self.rows.append((name if p["fill"] else name + " (weights as stored)", p["before"], p["ours"], basic, eq))

    def prepare_corpus(self, case_dir):
        name = os.path.basename(case_dir.rstrip("/"))
        model_path = os.path.join(case_dir, "model.onnx")
        try:
            model = onnx.load(model_path)
        except Exception:
            return None
        if not any(n.op_type in SHAPE_OPS for n in model.graph.node):
            return None
        ins = sorted(glob.glob(os.path.join(case_dir, "test_data_set_0", "input_*.pb")))
        outs = sorted(glob.glob(os.path.join(case_dir, "test_data_set_0", "output_*.pb")))
        init = {t.name for t in model.graph.initializer}
        gin = [v for v in model.graph.input if v.name not in init]
        if len(ins) != len(gin) or len(outs) != len(model.graph.output) or not outs:
            return None
        d = os.path.join(self.a.work, "corpus", str(zlib.crc32(case_dir.encode())), name)
        os.makedirs(d, exist_ok=True)
        feeds = []
        for k, (f, v) in enumerate(zip(ins, gin)):
            if not v.type.HasField("tensor_type"):
                return None
            try:
                t = onnx.TensorProto()
                t.ParseFromString(open(f, "rb").read())
                arr = numpy_helper.to_array(t)
            except Exception:
                return None  # not a tensor run_fold_ort.js feeds
            if arr.dtype not in DTYPE:
                return None
            fp = os.path.join(d, f"in_{k}.bin")
            np.ascontiguousarray(arr).tofile(fp)
            feeds.append({"name": v.name, "dtype": DTYPE[arr.dtype], "dims": list(arr.shape), "file": fp})
        expect = []
        for f, v in zip(outs, model.graph.output):
            if not v.type.HasField("tensor_type"):
                return None
            try:
                t = onnx.TensorProto()
                t.ParseFromString(open(f, "rb").read())
                expect.append(numpy_helper.to_array(t))
            except Exception:
                return None
        folded = os.path.join(d, "folded.onnx")
        r = tool(self.a, model_path, "-o", folded)
        if r.returncode == 1:
            return None  # the model has errors: nothing is folded, nothing written
        if r.returncode != 0:
            return self.fail(name, f"exit {r.returncode}: {r.stderr.strip()[-300:]}")
        if not SUMMARY.search(r.stderr):
            return {"name": name, "changed": False}
        out_names = [o.name for o in model.graph.output]
        self.jobs.append({"model": model_path, "feeds": feeds, "outputs": out_names, "out": os.path.join(d, "orig")})
        self.jobs.append({"model": folded, "feeds": feeds, "outputs": out_names, "out": os.path.join(d, "folded")})
        return {"name": name, "changed": True, "d": d, "runs": (len(self.jobs) - 2, len(self.jobs) - 1),
                "expect": expect}

    def judge_corpus(self, p, results):
        ro, rf = results[p["runs"][0]], results[p["runs"][1]]
        if ro != "ok":
            return "skipped"  # ONNX Runtime does not run the original (a newer opset, a type)
        if rf != "ok":
            self.fail(p["name"], f"the folded model does not run: {rf}")
            return "failed"
        for k, want in enumerate(p["expect"]):
            got = read_out(os.path.join(p["d"], "folded"), k)
            ref = read_out(os.path.join(p["d"], "orig"), k)
            same, why = equal(ref, got)
            if not same:
                self.fail(p["name"], f"output {k} differs from the original's: {why}")
                return "failed"
            if want.dtype == got.dtype and want.shape == got.shape:
                same, why = equal(want.astype(got.dtype), got)
                if not same and equal(want.astype(ref.dtype), ref)[0]:
                    self.fail(p["name"], f"output {k} differs from the test data: {why}")
                    return "failed"
        return "passed"

    def run_jobs(self, procs=2):
        """The jobs in `procs` node processes, each a share of them. ONNX Runtime may
        abort the process on a model (some kernels do on an empty tensor): that job's
        result is the crash, and the process is started again on the rest of its
        share."""
        runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_fold_ort.js")
        results = {}
        pending = [list(range(k, len(self.jobs), procs)) for k in range(procs)]
        while any(pending):
            running = []
            for k, share in enumerate(pending):
                if not share:
                    continue
                path = os.path.join(self.a.work, f"jobs{k}.json")
                json.dump([self.jobs[i] for i in share], open(path, "w"))
                running.append((share, subprocess.Popen([self.a.node, runner, self.a.modules, path],
                                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
            pending = []
            for share, proc in running:
                out, err = proc.communicate()
                for line in out.splitlines():
                    m = re.match(r"RESULT (\d+) (ok|error)(.*)", line)
                    if m:
                        results[share[int(m.group(1))]] = "ok" if m.group(2) == "ok" else m.group(3).strip()
                if proc.returncode != 0:
                    left = [i for i in share if i not in results]
                    if not left:
                        sys.exit(f"run_fold_ort.js failed: {err.strip()[-2000:]}")
                    results[left[0]] = "ONNX Runtime aborted: " + (err.strip().splitlines() or ["?"])[-1][:200]
                    pending.append(left[1:])
        return [results.get(i, "no result") for i in range(len(self.jobs))]


def empty_binding(spec, binding):
    """binding with the first input's first dynamic dim 0, or None if it has none."""
    for _, _, dims in spec[:1]:
        for x in dims:
            if isinstance(x, str):
                return dict(binding, **{x: 0})
    return None


def main():
    p = argparse.ArgumentParser()
    for k in ("tool", "node", "modules", "work"):
        p.add_argument("--" + k, required=True)
    p.add_argument("--real", action="append", default=[])
    p.add_argument("--corpus", action="append", default=[])
    p.add_argument("--table")
    p.add_argument("--known", help="networks ONNX Runtime's fusions leave smaller: NAME WHY per line")
    p.add_argument("--max-nodes", type=int, default=0, help="only real networks of at most this many nodes")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    proof = Proof(a)
    if a.known:
        for line in open(a.known):
            if line.strip() and not line.startswith("#"):
                name, why = (line.split(None, 1) + [""])[:2]
                proof.known[name] = why.strip()
    nets = sorted(d for r in a.real for d in glob.glob(os.path.join(r, "*", "")) if
                  os.path.exists(os.path.join(d, "record.json")))
    cases, seen = [], set()
    for c in a.corpus:
        for d in sorted(glob.glob(os.path.join(c, "*", ""))):
            if os.path.basename(d.rstrip("/")) not in seen:
                seen.add(os.path.basename(d.rstrip("/")))
                cases.append(d)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        real = [x for x in ex.map(proof.prepare_real, nets) if x]
        corpus = [x for x in ex.map(proof.prepare_corpus, cases) if x]
    t0 = time.time()
    results = proof.run_jobs()
    t_ort = time.time() - t0
    again = []
    for x in real:
        if any(results[i] != "ok" for i in x["runs"][0::2]):
            again.append(x["dir"])
            continue
        proof.judge_real(x, results)
    if again:
        # The originals that fail with random weights, with the weights as stored.
        proof.jobs = []
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            stored = [x for x in ex.map(lambda d: proof.prepare_real(d, fill=False), again) if x]
        results = proof.run_jobs()
        t_ort = time.time() - t0
        for x in stored:
            proof.judge_real(x, results)
        proof.rows.sort()
    verdicts = {}
    for x in corpus:
        v = proof.judge_corpus(x, results) if x["changed"] else "unchanged"
        verdicts[v] = verdicts.get(v, 0) + 1
    lines = ["| network | nodes | folded | ORT basic | equal (2 bindings) |", "|---|---:|---:|---:|---|"]
    for name, before, ours, basic, eq in proof.rows:
        lines.append(f"| {name} | {before} | {ours} | {basic if basic is not None else '?'} | {', '.join(eq)} |")
    tb = sum(r[1] for r in proof.rows)
    to = sum(r[2] for r in proof.rows)
    tbas = sum(r[3] or 0 for r in proof.rows)
    lines.append(f"| all {len(proof.rows)} | {tb} | {to} | {tbas} | |")
    table = "\n".join(lines)
    print(table)
    if a.table:
        open(a.table, "w").write(table + "\n")
    print(f"corpus models with shape arithmetic: {len(corpus)}; " +
          ", ".join(f"{k}: {v}" for k, v in sorted(verdicts.items())))
    print(f"networks whose original runs with an empty first dim: {proof.empty_runs}, "
          "each compared with the folded model there")
    for f in proof.skipped:
        print("not compared: " + f)
    for f in proof.failures:
        print(f)
    print(f"{len(proof.rows)} networks, {len(corpus)} corpus models, {len(proof.failures)} failures "
          f"(ONNX Runtime: {t_ort:.0f} s)")
    return 1 if proof.failures else 0


if __name__ == "__main__":
    sys.exit(main())
