#!/usr/bin/python3
"""run_rewrite_proof.py: proves `onnxshape rewrite` on ONNX Runtime.

usage: run_rewrite_proof.py --tool ONNXSHAPE --node NODE --modules NODE_MODULES
                            --work DIR CASES.json...

For every case of every manifest (gen_rewrite_cases.py writes them), the tool run
as `rewrite` and as `rewrite --dry-run` (which must write nothing):
  - valid under its rule: `onnxshape rewrite` exits 0; its summary line (and the dry
    run's) has the issue's format and the numbers the case calls for (nodes by kind,
    Reshape/Unsqueeze/Squeeze inserted, opsets before and after), and so does the
    model: the placing nodes inserted, only ai.onnx operators at opset >= 7, no
    axis/broadcast left, the rewritten node keeping its name, the original nodes in
    their order, no clashing node or initializer names, value_info for every new
    value agreeing with onnx's own shape inference, and onnx.checker's full_check
    passing. Then ONNX Runtime (onnxruntime-node, through run_ort.js, one process for
    all cases) runs it on random inputs (seeded by the case's name), and its outputs
    have the original output's element type and equal the reference (ref_broadcast.py,
    or the fixture's numpy function here): exactly for integers and booleans, within
    1e-6 relative for floats;
  - invalid: exit status 1, a broadcast-mismatch diagnostic naming the rule, no
    output file (dry run included), and for Paddle and legacy nodes the same
    diagnostic from `onnxshape check`;
  - nothing to rewrite: exit 0 and the output byte-identical to the input.
Prints one line per failure and a summary; exits 1 on any failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import checker, mapping, numpy_helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
# The ONNX Runtime runner the proofs share.
RUNNER = os.path.join(HERE, os.pardir, "support", "run_ort.js")
sys.path.insert(0, HERE)
import gen_rewrite_cases as gen  # noqa: E402
import ref_broadcast as ref  # noqa: E402

NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64, "bool": np.bool_}
ORT_TYPE = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int64", "bool": "bool"}


# ---- references of the whole-graph fixtures ------------------------------------------

def softmax_rows(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def ref_legacy_mixed6(v):
    x, bias = v["X"].astype(np.float64), v["bias"].astype(np.float64)
    i = {k: v[k].astype(np.float64) for k in ("scale", "shift", "mean", "var", "gain")}
    c = (1, 3, 1, 1)
    t1 = x + bias.reshape(c)
    t2 = np.maximum(t1, 0)
    t3 = (t2 - i["mean"].reshape(c)) / np.sqrt(i["var"].reshape(c) + 1e-5) * i["scale"].reshape(c) + \
        i["shift"].reshape(c)
    t5 = t3.reshape(2, 3, 2, 2, 2, 2).max(axis=(3, 5))
    t6 = t2.reshape(2, 3, 2, 2, 2, 2).mean(axis=(3, 5))
    t7 = t5 + t6
    # Softmax before opset 13: coerced to 2-D at axis 1, normalised per row.
    t8 = softmax_rows(t7.reshape(2, 12)).reshape(2, 3, 2, 2)
    t9 = t8.reshape(2, 12)
    return {"Y": softmax_rows(t9), "Z": t9 * i["gain"]}


def ref_legacy_v1(v):
    x, b = v["X"], v["b"]
    a1 = x + b.reshape(1, 3, 1)
    r1 = a1.reshape(2, 12)
    c1 = np.concatenate([r1, r1], axis=1)
    s1 = c1[0:2, 2:10]
    p1 = np.pad(s1, ((0, 0), (1, 1)), constant_values=np.float32(1.5))
    cl = np.clip(p1, np.float32(-1.0), np.float32(2.0))
    idx = np.argsort(-s1, axis=1, kind="stable")[:, :3]
    return {"RS": cl.sum(axis=1, keepdims=True), "TV": np.take_along_axis(s1, idx, axis=1),
            "TI": idx.astype(np.float32), "SP0": cl[:, :4], "SP1": cl[:, 4:]}


def ref_legacy_prelu(v):
    """PRelu-6's slope is per channel; the legacy Add places bias at axis 1."""
    t = v["X"] + v["bias"].reshape(3, 1, 1)
    return {"Y": np.where(t < 0, v["slope"].reshape(3, 1, 1) * t, t)}


def ref_paddle_block(v):
    e = ref.elementwise
    shifted = e("paddle", "add", e("paddle", "mul", v["image"], v["bn_scale"], 1), v["bn_bias"], 1)
    clamped = e("paddle", "max", np.maximum(shifted, np.float32(0)), v["floor"], -1)
    return {"out": e("paddle", "floordiv", clamped, v["step"], 1)}


def ref_name_clash(v):
    e = ref.elementwise
    t = e("paddle", "add", v["X"], v["b"], 1)
    u = e("paddle", "mul", np.maximum(t, np.float32(0)), v["elementwise_mul_2/Y_reshaped"], 1)
    return {"Out": e("paddle", "sub", u, v["n/Y_shape"], 1) + v["elementwise_mul_2/Y_shape"]}


def ref_paddle_in_if(v):
    op = "add" if v["cond"] else "mul"
    return {"Out": ref.elementwise("paddle", op, v["X"], v["Y"], 1)}


def ref_name_clash_scopes(v):
    t = np.maximum(v["X"], np.float32(0)) if v["cond"] else -v["X"]
    return {"Out": ref.elementwise("paddle", "add", t, v["Y"], 1)}


def ref_legacy_upsample(v):
    t = v["X"] + v["bias"].reshape(3, 1, 1)
    return {"Y": np.repeat(np.repeat(t, 2, axis=2), 3, axis=3)}


GRAPH_REFS = {"legacy_upsample": ref_legacy_upsample, "name_clash_scopes": ref_name_clash_scopes, "legacy_prelu_known": ref_legacy_prelu, "legacy_prelu_symbolic": ref_legacy_prelu, "paddle_in_if": ref_paddle_in_if, "legacy_mixed6": ref_legacy_mixed6, "legacy_v1": ref_legacy_v1, "paddle_block": ref_paddle_block,
              "name_clash": ref_name_clash}


def reference(case, values):
    r = case["ref"]
    if r["type"] == "elementwise":
        return {r["out"]: ref.elementwise(r["rule"], r["op"], values[r["a"]], values[r["b"]], r["axis"])}
    if r["type"] == "chain":
        t = values[r["x"]]
        for op, y, axis in r["steps"]:
            t = ref.elementwise(r["rule"], op, t, values[y], axis)
        return {r["out"]: t}
    if r["type"] == "gemm":
        a = values["A"].T if r["transA"] else values["A"]
        b = values["B"].T if r["transB"] else values["B"]
        return {r["out"]: r["alpha"] * (a.astype(np.float64) @ b.astype(np.float64)) + r["beta"] * values["C"]}
    return GRAPH_REFS[r["fn"]](values)


# ---- checks ---------------------------------------------------------------------------

def same(got, want, dtype):
    """Exact for integers and booleans; within 1e-6 relative for floats. got must have
    the element type the original model declares for the output."""
    if got.dtype != dtype:
        return "element type %s, expected %s" % (got.dtype, np.dtype(dtype))
    if got.shape != want.shape:
        return "shape %s, expected %s" % (list(got.shape), list(want.shape))
    if got.dtype == np.bool_ or np.issubdtype(got.dtype, np.integer):
        bad = got != want.astype(got.dtype)
    else:
        w = want.astype(np.float64)
        g = got.astype(np.float64)
        bad = ~((np.abs(g - w) <= 1e-6 * np.abs(w)) | (np.isnan(g) & np.isnan(w)))
    if bad.any():
        k = tuple(np.argwhere(bad)[0])
        return "%d of %d values differ; at %s got %r, expected %r" % (bad.sum(), bad.size, k, got[k], want[k])
    return None


# The issue's summary line: "rewrote K nodes (paddle: a, legacy: b, stray: c); inserted
# R Reshape, U Unsqueeze; opset 6 → 7", with Squeeze and other inserted nodes when
# there are, the adapted nodes after the opsets (counted per operator), and "opset N
# unchanged".
SUMMARY = re.compile(r"^rewrote (\d+) nodes? \(paddle: (\d+), legacy: (\d+), stray: (\d+)\); "
                     r"inserted (\d+) Reshape, (\d+) Unsqueeze(?:, (\d+) Squeeze)?(?:, (\d+) other nodes?)?; "
                     r"(?:opset (\d+) \u2192 (\d+)(?: \(\d+ other nodes? adapted: \w+ \d+(?:, \w+ \d+)*\))?|opset (\d+) unchanged)$",
                     re.M)
INSERTED = ("Reshape", "Unsqueeze", "Squeeze")


def summary_line(text):
    lines = [m.group(0) for m in SUMMARY.finditer(text)]
    return lines[0] if len(lines) == 1 else None


def check_summary(text, exp):
    """The summary line in text says what exp says."""
    line = summary_line(text)
    if line is None:
        return "no summary line in the issue's format in %r" % text.strip()
    g = SUMMARY.match(line).groups()
    n = [int(x) if x else 0 for x in g]
    got = {"total": n[0], "paddle": n[1], "legacy": n[2], "stray": n[3], "Reshape": n[4], "Unsqueeze": n[5],
           "Squeeze": n[6], "opset": [n[8], n[9]] if g[8] else [n[10], n[10]]}
    want = dict(exp, total=exp["paddle"] + exp["legacy"] + exp["stray"])
    diff = ["%s %s" % (k, want[k]) for k in want if got[k] != want[k]]
    return "summary %r, expected %s" % (line, ", ".join(diff)) if diff else None


def count_ops(m):
    c = {k: 0 for k in INSERTED}
    for n in m.graph.node:
        if n.op_type in c:
            c[n.op_type] += 1
    return c


def names_of(m):
    g = m.graph
    return {v.name for v in list(g.input) + list(g.output) + list(g.value_info)} | \
        {t.name for t in g.initializer} | {o for n in g.node for o in n.output}


def check_value_info(orig, m):
    """Every value the rewrite made is described in value_info, and agrees with what
    onnx's own shape inference finds for it (run on the model without value_info)."""
    before = names_of(orig)
    made = [o for n in m.graph.node for o in n.output if o and o not in before]
    vi = {v.name: v.type.tensor_type for v in m.graph.value_info}
    bare = onnx.ModelProto()
    bare.CopyFrom(m)
    del bare.graph.value_info[:]
    theirs = {v.name: v.type.tensor_type for v in shape_inference.infer_shapes(bare).graph.value_info}
    for name in made:
        t = vi.get(name)
        if t is None or not t.elem_type or not t.HasField("shape"):
            return "the new value '%s' has no value_info with a type and a shape" % name
        o = theirs.get(name)
        if o is None:
            continue
        if o.elem_type != t.elem_type:
            return "value_info of '%s': element type %d, onnx infers %d" % (name, t.elem_type, o.elem_type)
        if o.HasField("shape"):
            ours, its = list(t.shape.dim), list(o.shape.dim)
            if len(ours) != len(its) or any(a.HasField("dim_value") and b.HasField("dim_value") and
                                             a.dim_value != b.dim_value for a, b in zip(ours, its)):
                return "value_info of '%s': shape %s, onnx infers %s" % (
                    name, [d.dim_value or d.dim_param or "?" for d in ours],
                    [d.dim_value or d.dim_param or "?" for d in its])
    return None


def structure(case, model, path):
    """What the rewritten model must look like besides running."""
    orig = onnx.load(model)
    m = onnx.load(path)
    checker.check_model(m, full_check=True)
    opset = {o.domain or "ai.onnx": o.version for o in m.opset_import}
    if opset.get("ai.onnx", 0) < 7:
        return "ai.onnx opset %s" % opset.get("ai.onnx")
    nodes = list(m.graph.node)
    for n in nodes:
        if n.domain not in ("", "ai.onnx"):
            return "node '%s' is still %s::%s" % (n.name, n.domain, n.op_type)
        for a in n.attribute:
            if n.op_type in ("Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less",
                             "Gemm") and a.name in ("broadcast", "axis"):
                return "node '%s' still has '%s'" % (n.name, a.name)
    if set(opset) - {"ai.onnx"}:
        return "opsets %s still imported" % sorted(set(opset) - {"ai.onnx"})
    names = [n.name for n in nodes if n.name]
    if len(names) != len(set(names)):
        return "node names clash"
    inits = [t.name for t in m.graph.initializer]
    if len(inits) != len(set(inits)) or set(inits) & {o for n in nodes for o in n.output}:
        return "initializer names clash"
    # Every original node is still there, by name, in the same relative order.
    old = [n.name for n in orig.graph.node if n.name]
    kept = [n.name for n in nodes if n.name in set(old)]
    if kept != old:
        return "original nodes %s became %s" % (old, kept)
    r = case["ref"]
    if r["type"] == "elementwise" and r.get("out"):
        producer = [n for n in nodes if r["out"] in n.output]
        if not producer or producer[0].name != case["name"]:
            return "'%s' is not produced by the original node '%s'" % (r["out"], case["name"])
    if r["type"] in ("elementwise", "gemm", "chain"):
        got, was = count_ops(m), count_ops(orig)
        want = {k: was[k] + case["expect"][k] for k in INSERTED}
        if got != want:
            return "inserted %s, expected %s" % ({k: got[k] - was[k] for k in INSERTED},
                                                {k: case["expect"][k] for k in INSERTED})
    return check_value_info(orig, m)


def tool(args):
    return subprocess.run(args, capture_output=True, text=True)


def run_cli(a, case, model, out):
    """The CLI part of a case; returns (failures, ORT job or None)."""
    name, args = case["name"], case["args"]
    what = "%s (%s)" % (name, " ".join(["rewrite"] + args))
    dry_out = out + ".dry.onnx"
    for f in (out, dry_out):
        if os.path.exists(f):
            os.unlink(f)
    r = tool([a.tool, "rewrite"] + args + [model, "-o", out])
    dry = tool([a.tool, "rewrite", "--dry-run"] + args + [model, "-o", dry_out])
    fails = []
    if os.path.exists(dry_out):
        fails.append("%s: --dry-run wrote %s" % (what, dry_out))
    if case["ref"]["type"] == "identical":
        if r.returncode != 0 or open(model, "rb").read() != open(out, "rb").read():
            fails.append("%s: expected a byte-identical copy (exit %d) %s" % (what, r.returncode, r.stderr.strip()))
        if dry.returncode != 0 or dry.stdout.strip() != "" and not dry.stdout.startswith("rewrote 0 nodes"):
            fails.append("%s: --dry-run: exit %d, %r" % (what, dry.returncode, dry.stdout))
        return fails, None
    if not case["valid"]:
        rule = "(%s rule)" % case["ref"]["rule"]
        # One diagnostic line names the node, the rule and the code.
        said = [ln for ln in r.stderr.splitlines()
                if "[broadcast-mismatch]" in ln and rule in ln and "'%s'" % name in ln]
        if r.returncode != 1 or not said:
            fails.append("%s: invalid under the %s rule: expected exit 1 and a broadcast-mismatch, got exit %d: %s"
                         % (what, case["ref"]["rule"], r.returncode, (r.stderr or r.stdout).strip()))
        elif os.path.exists(out):
            fails.append("%s: invalid, yet %s was written" % (what, out))
        if dry.returncode != 1 or "[broadcast-mismatch]" not in dry.stderr or \
                not re.search(r"^rewrite blocked by \d+ errors?; nothing would change$", dry.stdout, re.M):
            fails.append("%s: --dry-run of an invalid case: exit %d: %s" % (what, dry.returncode, dry.stderr.strip()))
        # `check` reports the same mismatch, where it reads the node by the same rule
        # (a stray broadcast=1 it only warns about: numpy is what runtimes do).
        if case.get("kind") in ("paddle", "legacy"):
            c = tool([a.tool, "check", model])
            mine = [ln for ln in r.stderr.splitlines() if "[broadcast-mismatch]" in ln]
            if c.returncode != 1 or not mine or mine[0] not in c.stdout + c.stderr:
                fails.append("%s: check does not report rewrite's diagnostic (exit %d): %s" % (
                    what, c.returncode, (c.stdout + c.stderr).strip()))
        return fails, None
    if r.returncode != 0 or not os.path.exists(out):
        return fails + ["%s: valid, but exit %d: %s" % (what, r.returncode, r.stderr.strip())], None
    for text, who in ((r.stderr, "summary"), (dry.stdout, "--dry-run summary")):
        bad = check_summary(text, case["expect"])
        if bad:
            fails.append("%s: %s: %s" % (what, who, bad))
    nchanges = len(re.findall(r": (?:paddle|legacy|stray): ", dry.stdout))
    want = case["expect"]["paddle"] + case["expect"]["legacy"] + case["expect"]["stray"]
    if dry.returncode != 0 or nchanges != want:
        fails.append("%s: --dry-run: exit %d, %d rewritten nodes listed, expected %d" % (what, dry.returncode,
                                                                                         nchanges, want))
    try:
        bad = structure(case, model, out)
    except Exception as e:  # the checker's verdict
        bad = "onnx.checker: %s" % str(e).split("\n")[0]
    if bad:
        return fails + ["%s: %s" % (what, bad)], None
    # Inputs: drawn per case; initializer operands come from the model.
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    orig = onnx.load(model)
    values = {t.name: numpy_helper.to_array(t) for t in orig.graph.initializer}
    feeds = []
    for f in case["feeds"]:
        v = gen.draw(f["gen"], f["dtype"], f["shape"], rng).astype(NP[f["dtype"]])
        values[f["name"]] = v
        file = os.path.join(a.work, "%s.in.%s.bin" % (name, f["name"].replace("/", "_")))
        with open(file, "wb") as fh:
            fh.write(np.ascontiguousarray(v).tobytes())
        feeds.append({"name": f["name"], "dtype": ORT_TYPE[f["dtype"]], "dims": list(f["shape"]), "file": file})
    want = reference(case, values)
    types = {o.name: mapping.TENSOR_TYPE_TO_NP_TYPE[o.type.tensor_type.elem_type] for o in orig.graph.output}
    outputs = [{"name": k, "file": os.path.join(a.work, "%s.out.%s.bin" % (name, k))} for k in want]
    return fails, ({"model": out, "feeds": feeds, "outputs": outputs}, (what, want, types, outputs))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", required=True)
    p.add_argument("--node", default="node")
    p.add_argument("--modules", required=True, help="a node_modules directory holding onnxruntime-node")
    p.add_argument("--work", required=True)
    p.add_argument("--min-random", type=int, default=0,
                   help="fail unless the random cases (rand*) number this many, valid and invalid, with "
                        "placements by Reshape, by Unsqueeze and by nothing among them")
    p.add_argument("manifests", nargs="+")
    a = p.parse_args()
    os.makedirs(a.work, exist_ok=True)
    failures = []
    counts = {"valid": 0, "invalid": 0, "identical": 0, "compared": 0}
    work = []
    for man in a.manifests:
        base = os.path.dirname(os.path.abspath(man))
        with open(man) as f:
            for case in json.load(f):
                work.append((case, os.path.join(base, case["model"]), os.path.join(a.work, case["name"] + ".onnx")))
                kind = "identical" if case["ref"]["type"] == "identical" else "valid" if case["valid"] else "invalid"
                counts[kind] += 1
    if a.min_random:
        rand = [c for c, _, _ in work if c["name"].startswith("rand")]
        kinds = {next((k for k in INSERTED if c["expect"][k]), "none") for c in rand if c["valid"]}
        if len(rand) < a.min_random or all(c["valid"] for c in rand) or not any(c["valid"] for c in rand) or \
                not {"Reshape", "Unsqueeze", "none"} <= kinds:
            print("FAIL: %d random cases, placements %s: expected at least %d, valid and invalid, placed by "
                  "Reshape, Unsqueeze and nothing" % (len(rand), sorted(kinds), a.min_random))
            return 1
    # The tool runs are independent: two at a time (the machine has two cores).
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda w: run_cli(a, *w), work))
    jobs, pending = [], []
    for fails, job in done:
        failures += fails
        if job:
            jobs.append(job[0])
            pending.append(job[1])
    jobs_file = os.path.join(a.work, "jobs.json")
    with open(jobs_file, "w") as f:
        json.dump(jobs, f)
    r = subprocess.run([a.node, RUNNER, a.modules, jobs_file], capture_output=True,
                       text=True)
    if r.returncode != 0:
        print(r.stderr)
        print("FAIL: run_ort.js exit %d" % r.returncode)
        return 1
    results = {}
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            _, i, status = line.split(" ", 2)
            results[int(i)] = status
    ran = 0
    for i, (what, want, types, outputs) in enumerate(pending):
        status = results.get(i, "missing")
        if status != "ok":
            failures.append("%s: ONNX Runtime: %s" % (what, status))
            continue
        ran += 1
        for o in outputs:
            with open(o["file"] + ".json") as f:
                meta = json.load(f)
            dt = NP[meta["dtype"]]
            got = np.fromfile(o["file"], dtype=dt).reshape(meta["dims"])
            bad = same(got, np.asarray(want[o["name"]]), types[o["name"]])
            if bad:
                failures.append("%s: output '%s': %s" % (what, o["name"], bad))
            else:
                counts["compared"] += 1
    for f in failures:
        print("FAIL " + f)
    rand = [c for c, _, _ in work if c["name"].startswith("rand")]
    chains = [c for c, _, _ in work if c["ref"]["type"] == "chain"]
    print("random cases: %d (%d valid, %d invalid); random graphs: %d, %d nodes rewritten" % (
        len(rand), sum(c["valid"] for c in rand), sum(not c["valid"] for c in rand), len(chains),
        sum(c["expect"]["paddle"] + c["expect"]["legacy"] for c in chains)))
    print("rewrite proof: %d valid cases (%d run on ONNX Runtime, %d outputs equal to the reference), %d invalid "
          "cases refused, %d unchanged byte-identical; %d failures" % (counts["valid"], ran, counts["compared"],
                                                                        counts["invalid"], counts["identical"],
                                                                        len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
