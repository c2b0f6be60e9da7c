#!/usr/bin/python3
"""run_explicit_proof.py: proves rewrite --explicit-broadcast / --implicit-broadcast,
Broadcast-3 lowering and check --require-explicit on ONNX Runtime.

usage: run_explicit_proof.py --tool ONNXSHAPE --node NODE --modules NODE_MODULES
                             --runner RUN_ORT_JS --work DIR CASES.json

For every case of the manifest (gen_explicit_cases.py writes it):
  explicit  `rewrite --explicit-broadcast` exits 0; `check --require-explicit` on the
            result reports no implicit-broadcast note (and on the original, at least
            one wherever an input lacks the result shape); onnx.checker (full_check)
            accepts it; it uses only ai.onnx operators, at the expected opset, with
            the expected number of Expand nodes where the case says, none of them
            expanding what another made; then
            `rewrite --implicit-broadcast` on it exits 0, passes the checker and has
            the node count of the original (for legacy/Paddle models: of the axis
            rewrite alone). On ONNX Runtime, at every binding of the case (two for
            symbolic models) and on random inputs, the original (or, when ONNX
            Runtime cannot run it, a numpy reference), the explicit and the implicit
            models give the same outputs.
  refuse    `rewrite --explicit-broadcast` exits 1 with a broadcast-mismatch and
            writes nothing.
  b3        Broadcast-3: `infer` gives the output shape the spec's table gives, or for
            a refusal `check` exits 1 with a broadcast-mismatch and `rewrite` writes
            nothing; else `rewrite` lowers it to ai.onnx operators the checker
            accepts, and ONNX Runtime's output equals the numpy reference.
Prints one line per failure and a summary; exits 1 on any failure.
"""
import argparse
import json
import os
import subprocess
import sys
import zlib

import numpy as np
import onnx
from onnx import checker, numpy_helper

NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64, "bool": np.bool_}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def checked(path):
    """onnx.checker's verdict (full_check), or None when it accepts."""
    try:
        checker.check_model(onnx.load(path), full_check=True)
        return None
    except Exception as e:  # the checker's message is the finding
        return "onnx.checker: %s" % str(e).split("\n")[0]


def opset_of(m):
    return next((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), None)


def notes(tool, path):
    """The implicit-broadcast notes check --require-explicit reports on path."""
    r = run([tool, "check", "--require-explicit", "--format", "json", path])
    if r.returncode not in (0, 1):
        raise RuntimeError("check exit %d: %s" % (r.returncode, r.stderr.strip()))
    rep = json.loads(r.stdout)
    files = rep["files"] if "files" in rep else [rep]
    return [d for f in files for d in f.get("diagnostics", []) if d.get("code") == "implicit-broadcast"]


def draw(rng, f):
    shape = tuple(f["shape"])
    if "value" in f:  # a fixed value (If's condition: each branch once)
        return np.full(shape, f["value"], NP[f["dtype"]])
    if f["dtype"] == "bool":
        return rng.random(shape) < 0.5
    return rng.standard_normal(shape).astype(NP[f["dtype"]])


def reference(case, v):
    """numpy references for models ONNX Runtime cannot run as they are."""
    ref = case.get("ref")
    if ref == "legacy_axis":  # pdpd: B (3,) at axis 1 of (2, 3, 4, 5)
        return {"Y": v["X"] + v["B"].reshape(3, 1, 1)}
    if ref == "paddle_axis":  # paddle: Y (3, 4) at axis 1 of (2, 3, 4, 5)
        return {"Out": v["X"] * v["Y"].reshape(3, 4, 1)}
    if case["kind"] == "b3":
        data = v["data"]
        target = v[case["target_from"]].shape if "target_from" in case else tuple(case["target"])
        if case["mode"] == "explicit":  # spec section 6: mapped dims in place, 1 elsewhere
            placed = [1] * len(target)
            for i, ax in enumerate(case["axes_mapping"]):
                placed[ax] = data.shape[i]
            return {"Y": np.broadcast_to(data.reshape(placed), target)}
        if case["mode"] == "bidirectional":  # spec section 5: input * ones(target)
            return {"Y": data * np.ones(target, data.dtype)}
        return {"Y": np.broadcast_to(data, target)}  # numpy mode: unidirectional
    return None


def same(got, want):
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
        return None if np.array_equal(got, want) else "values differ"
    if not np.allclose(got, want, rtol=1e-6, atol=1e-6):
        return "values differ (max abs diff %g)" % float(np.max(np.abs(got.astype(np.float64) - want)))
    return None


class Proof:
    def __init__(self, a):
        self.a = a
        self.failures = []
        self.jobs = []
        self.pending = []  # (what, job index list, compare callback)
        self.counts = {"explicit": 0, "refused": 0, "b3": 0, "b3_refused": 0, "compared": 0, "roundtrip": 0,
                       "implicit": 0}

    def fail(self, what, msg):
        self.failures.append("%s: %s" % (what, msg))

    def job(self, model, feeds, outputs, tag):
        """Queues an ONNX Runtime run; returns the output files by name."""
        files = {o: os.path.join(self.a.work, "%s.out.%s.bin" % (tag, o)) for o in outputs}
        self.jobs.append({"model": model, "feeds": feeds,
                          "outputs": [{"name": o, "file": files[o]} for o in outputs]})
        return len(self.jobs) - 1, files

    def feeds(self, case, k, binding):
        rng = np.random.default_rng(zlib.crc32(("%s/%d" % (case["name"], k)).encode()))
        values, feeds = {}, []
        for f in binding:
            v = draw(rng, f)
            values[f["name"]] = v
            file = os.path.join(self.a.work, "%s.%d.in.%s.bin" % (case["name"], k, f["name"]))
            with open(file, "wb") as fh:
                fh.write(np.ascontiguousarray(v).tobytes())
            feeds.append({"name": f["name"], "dtype": f["dtype"], "dims": list(f["shape"]), "file": file})
        return values, feeds

    # ---- the case kinds ----------------------------------------------------------------

    def explicit(self, case, model):
        a, name = self.a, case["name"]
        what = "%s (rewrite --explicit-broadcast)" % name
        xp = os.path.join(a.work, name + ".explicit.onnx")
        ip = os.path.join(a.work, name + ".implicit.onnx")
        for p in (xp, ip):
            if os.path.exists(p):
                os.unlink(p)
        self.counts["explicit"] += 1
        r = run([a.tool, "rewrite", "--explicit-broadcast", model, "-o", xp])
        if r.returncode != 0 or not os.path.exists(xp):
            return self.fail(what, "exit %d: %s" % (r.returncode, r.stderr.strip()))
        orig, xm = onnx.load(model), onnx.load(xp)
        left = notes(a.tool, xp)
        if case.get("lint_may"):  # sizes no one knows: only "may be" notes may remain
            left = [d for d in left if "may be broadcast" not in d.get("message", "")]
        if left:
            return self.fail(what, "check --require-explicit still reports: %s" % left[0].get("message"))
        before = notes(a.tool, model)
        if case["broadcasts"] and not before:
            return self.fail(what, "check --require-explicit reports nothing on the original")
        if not case["broadcasts"] and (before or open(xp, "rb").read() != open(model, "rb").read()):
            return self.fail(what, "nothing broadcasts, yet the lint reports or the rewrite changes something")
        bad = checked(xp)
        if bad:
            return self.fail(what, bad)
        foreign = sorted({n.domain for n in xm.graph.node if n.domain not in ("", "ai.onnx")})
        if foreign:
            return self.fail(what, "operators of domains %s remain" % foreign)
        if "expect_opset" in case and opset_of(xm) != case["expect_opset"]:
            return self.fail(what, "opset %s, expected %d" % (opset_of(xm), case["expect_opset"]))
        nexp = sum(n.op_type == "Expand" for n in xm.graph.node)
        if "expect_expand" in case and nexp != case["expect_expand"]:
            return self.fail(what, "%d Expand nodes, expected %d (shared)" % (nexp, case["expect_expand"]))
        # Each input is expanded once, to its node's result shape: an Expand the
        # rewrite added that reads another it added is the same Expand again.
        made = {o for n in xm.graph.node for o in n.output} - {o for n in orig.graph.node for o in n.output}
        by_out = {o: n for n in xm.graph.node for o in n.output}
        for n in xm.graph.node:
            src = by_out.get(n.input[0]) if n.op_type == "Expand" and n.input else None
            if n.output[0] in made and src is not None and src.op_type == "Expand" and src.output[0] in made:
                return self.fail(what, "'%s' expands '%s', which the rewrite already expanded" % (n.output[0], n.input[0]))
        # The reverse: back to the original node count.
        base_count = len(orig.graph.node)
        if case.get("ref") != "ort":  # axis forms: the axis rewrite alone is the baseline
            bp = os.path.join(a.work, name + ".axis.onnx")
            rb = run([a.tool, "rewrite", model, "-o", bp])
            if rb.returncode != 0:
                return self.fail(what, "plain rewrite failed: %s" % rb.stderr.strip())
            base_count = len(onnx.load(bp).graph.node)
        wi = "%s (rewrite --implicit-broadcast after --explicit-broadcast)" % name
        r = run([a.tool, "rewrite", "--implicit-broadcast", xp, "-o", ip])
        if r.returncode != 0 or not os.path.exists(ip):
            return self.fail(wi, "exit %d: %s" % (r.returncode, r.stderr.strip()))
        bad = checked(ip)
        if bad:
            return self.fail(wi, bad)
        icount = len(onnx.load(ip).graph.node)
        if case.get("roundtrip", True):
            if icount != base_count:
                return self.fail(wi, "%d nodes, expected the original's %d" % (icount, base_count))
            self.counts["roundtrip"] += 1
        outs = [o.name for o in orig.graph.output]
        for k, binding in enumerate(case["bindings"]):
            values, feeds = self.feeds(case, k, binding)
            values.update({t.name: numpy_helper.to_array(t) for t in orig.graph.initializer})
            tag = "%s.%d" % (name, k)
            runs = [("explicit", self.job(xp, feeds, outs, tag + ".explicit")),
                    ("implicit", self.job(ip, feeds, outs, tag + ".implicit"))]
            want = reference(case, values)
            if want is None:
                want = ("original", self.job(model, feeds, outs, tag + ".original"))
            self.pending.append(("%s, binding %d" % (name, k), runs, want))

    def implicit(self, case, model):
        a, name = self.a, case["name"]
        what = "%s (rewrite --implicit-broadcast)" % name
        ip = os.path.join(a.work, name + ".implicit.onnx")
        if os.path.exists(ip):
            os.unlink(ip)
        self.counts["implicit"] += 1
        r = run([a.tool, "rewrite", "--implicit-broadcast", model, "-o", ip])
        if r.returncode != 0 or not os.path.exists(ip):
            return self.fail(what, "exit %d: %s" % (r.returncode, r.stderr.strip()))
        bad = checked(ip)
        if bad:
            return self.fail(what, bad)
        count = len(onnx.load(ip).graph.node)
        if count != case["expect_nodes"]:
            return self.fail(what, "%d nodes, expected %d" % (count, case["expect_nodes"]))
        outs = [o.name for o in onnx.load(model).graph.output]
        for k, binding in enumerate(case["bindings"]):
            _, feeds = self.feeds(case, k, binding)
            tag = "%s.%d" % (name, k)
            self.pending.append(("%s, binding %d" % (name, k), [("implicit", self.job(ip, feeds, outs, tag + ".i"))],
                                 ("original", self.job(model, feeds, outs, tag + ".original"))))

    def refuse(self, case, model):
        a, name = self.a, case["name"]
        out = os.path.join(a.work, name + ".explicit.onnx")
        if os.path.exists(out):
            os.unlink(out)
        self.counts["refused"] += 1
        r = run([a.tool, "rewrite", "--explicit-broadcast", model, "-o", out])
        if r.returncode != 1 or "[broadcast-mismatch]" not in r.stderr or os.path.exists(out):
            self.fail(name + " (refusal)", "expected exit 1, a broadcast-mismatch and no output; got exit %d: %s"
                      % (r.returncode, (r.stderr or r.stdout).strip()))

    def b3(self, case, model):
        a, name = self.a, case["name"]
        what = "%s (Broadcast-3, mode %s)" % (name, case["mode"])
        low = os.path.join(a.work, name + ".lowered.onnx")
        inf = os.path.join(a.work, name + ".inferred.onnx")
        for p in (low, inf):
            if os.path.exists(p):
                os.unlink(p)
        args = [] if case["domain"] == "org.openvinotoolkit" else ["--broadcast-domain", case["domain"]]
        if case["expect"] is None:
            self.counts["b3_refused"] += 1
            c = run([a.tool, "check", model])
            r = run([a.tool, "rewrite"] + args + [model, "-o", low])
            if c.returncode != 1 or "[broadcast-mismatch]" not in c.stdout + c.stderr:
                self.fail(what, "check: expected exit 1 and a broadcast-mismatch, got exit %d" % c.returncode)
            if r.returncode != 1 or os.path.exists(low):
                self.fail(what, "rewrite: expected exit 1 and nothing written, got exit %d" % r.returncode)
            return
        self.counts["b3"] += 1
        r = run([a.tool, "infer", model, "-o", inf])
        if r.returncode != 0:
            return self.fail(what, "infer exit %d: %s" % (r.returncode, r.stderr.strip()))
        dims = onnx.load(inf).graph.output[0].type.tensor_type.shape.dim
        got = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in dims]
        if got != case["expect"]:
            return self.fail(what, "inferred %s, the spec says %s" % (got, case["expect"]))
        if args:  # another domain is not lowered: the model is left as it is
            other = os.path.join(a.work, name + ".other.onnx")
            r = run([a.tool, "rewrite", "--broadcast-domain", "org.openvinotoolkit", model, "-o", other])
            if r.returncode != 0 or open(other, "rb").read() != open(model, "rb").read():
                return self.fail(what, "--broadcast-domain of another domain changed the model")
        r = run([a.tool, "rewrite"] + args + [model, "-o", low])
        if r.returncode != 0 or not os.path.exists(low):
            return self.fail(what, "rewrite exit %d: %s" % (r.returncode, r.stderr.strip()))
        bad = checked(low)
        if bad:
            return self.fail(what, bad)
        lm = onnx.load(low)
        if any(n.domain not in ("", "ai.onnx") for n in lm.graph.node):
            return self.fail(what, "not lowered: %s" % [n.op_type for n in lm.graph.node])
        for k, binding in enumerate(case["bindings"]):
            values, feeds = self.feeds(case, k, binding)
            want = reference(case, values)
            self.pending.append((what, [("lowered", self.job(low, feeds, ["Y"], "%s.%d" % (name, k)))], want))

    # ---- ONNX Runtime ------------------------------------------------------------------

    def run_jobs(self):
        jobs_file = os.path.join(self.a.work, "jobs.json")
        with open(jobs_file, "w") as f:
            json.dump(self.jobs, f)
        r = run([self.a.node, self.a.runner, self.a.modules, jobs_file])
        if r.returncode != 0:
            print(r.stderr)
            self.failures.append("run_ort.js exit %d" % r.returncode)
            return {}
        results = {}
        for line in r.stdout.splitlines():
            if line.startswith("RESULT "):
                _, i, status = line.split(" ", 2)
                results[int(i)] = status
        return results

    @staticmethod
    def load(file):
        with open(file + ".json") as f:
            meta = json.load(f)
        dt = NP[meta.get("dtype", meta.get("type"))]
        return np.fromfile(file, dtype=dt).reshape(meta["dims"])

    def compare(self, results):
        for what, runs, want in self.pending:
            if isinstance(want, tuple):  # the original model on ONNX Runtime
                (idx, files) = want[1]
                if results.get(idx) != "ok":
                    self.fail(what, "ONNX Runtime on the original: %s" % results.get(idx, "missing"))
                    continue
                want = {o: self.load(f) for o, f in files.items()}
            for label, (idx, files) in runs:
                if results.get(idx) != "ok":
                    self.fail(what, "ONNX Runtime on the %s model: %s" % (label, results.get(idx, "missing")))
                    continue
                for o, f in files.items():
                    bad = same(self.load(f), np.asarray(want[o]))
                    if bad:
                        self.fail(what, "%s model, output '%s': %s" % (label, o, bad))
                    else:
                        self.counts["compared"] += 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", required=True)
    p.add_argument("--node", required=True)
    p.add_argument("--modules", required=True)
    p.add_argument("--runner", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("cases")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    base = os.path.dirname(os.path.abspath(a.cases))
    with open(a.cases) as f:
        cases = json.load(f)
    pr = Proof(a)
    for case in cases:
        model = os.path.join(base, case["model"])
        try:
            getattr(pr, case["kind"])(case, model)
        except Exception as e:  # a crash of the harness is a failure of the case
            pr.fail(case["name"], "%s: %s" % (type(e).__name__, e))
    pr.compare(pr.run_jobs())
    for f in pr.failures:
        print("FAIL " + f)
    c = pr.counts
    print("explicit proof: %d explicit cases (%d round trips to the original node count), %d refused; "
          "%d implicit-only cases; %d Broadcast-3 cases lowered, %d refused; %d outputs equal on ONNX Runtime; "
          "%d failures" % (c["explicit"], c["roundtrip"], c["refused"], c["implicit"], c["b3"], c["b3_refused"],
                           c["compared"], len(pr.failures)))
    return 1 if pr.failures else 0


if __name__ == "__main__":
    sys.exit(main())
