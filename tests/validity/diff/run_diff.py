#!/usr/bin/python3
"""run_diff.py: the differential harness against ONNX Runtime (ctest validity/diff-ort,
`make diff-ort`): valid models, mutated (mutate.py), judged by ONNX Runtime and by
`onnxshape check`; every disagreement reported.

    /usr/bin/python3 tests/validity/diff/run_diff.py --build BUILD [--seed N] [--count M]
        [--tool ONNXSHAPE] [--node NODE] [--ort-dir ORT_DIR] [--work DIR]
        [--source NAME=DIR[,DIR...] ...] [--weight NAME=W ...] [--known FILE]
        [--jobs J] [--only I,J,...] [-v]

--build names a build tree where the ctest fixtures have put what the harness
reads: its onnxshape, ORT in BUILD/ort, the corpora in BUILD/corpus and
BUILD/corpus123, the real networks in BUILD/real; with the valid fixtures of
tests/models, those are the default sources (SOURCES below) and WORK is
BUILD/diff-ort/seedN.

1. The seed models: every *.onnx under each source (sorted; tests/models/bad and
   models over --max-seed-bytes or with external data left out). Mutant i draws its
   seed model and its mutation from random.Random("SEED:i") alone, so a mutant is
   the same whatever COUNT is, and `--only i` makes it again.
2. ONNX Runtime (tests/validity/judge_ort.js, one node process serving every model
   on stdin) and `onnxshape check` judge each seed model; a mutant is made only
   from a seed ONNX Runtime loads and runs.
3. Each mutant is judged the same way. ONNX Runtime refuses a model when its load
   or its first run (inputs of ones, judge_ort.js) fails; check refuses it when it
   exits 1 or 2. A disagreement is a miss (ORT refuses, check exits 0) or a false
   alarm (ORT runs, check refuses). A mutant ONNX Runtime hangs on (no answer in
   --ort-timeout seconds) or dies on, or one the judge cannot feed, is skipped with
   its reason; a check crash or timeout is a failure.
4. Disagreements are grouped by class key, KIND/DIRECTION/DETAIL (mutate.py's
   mutation, "miss" or "false-alarm", the mutation's detail); a false alarm on a
   mutant of a seed check already refuses is charged to the seed
   (seed/false-alarm/SOURCE). The known-differences file lists classes as glob
   patterns, one a line, the reason after '#'; exit 1 on a disagreement no pattern
   matches (or a check crash). Disagreeing mutants are kept under WORK/kept, each
   listed in WORK/disagreements.txt (mutant, class, ORT's message, check's verdict)
   and WORK/disagreements.jsonl.
"""
import argparse
import concurrent.futures
import fnmatch
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
JUDGE = os.path.join(os.path.dirname(HERE), "judge_ort.js")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
# The default sources, under --build (the corpora, the real networks) or the
# repository (the fixtures ONNX Runtime runs; the lint fixtures are meant to be
# flagged, tests/models/bad to be refused). The real networks and the fixtures are
# few: drawn less often than their number alone would make them.
SOURCES = [("corpus", ["{build}/corpus"]), ("corpus123", ["{build}/corpus123/node"]), ("real", ["{build}/real"]),
           ("fixtures", ["{repo}/tests/models/" + d for d in ("good", "functions", "explicit", "examples", "rewrite")])]
WEIGHTS = {"real": 0.3, "fixtures": 0.5}
CHECK_TIMEOUT_S = 30
CHUNK = 256
# The judge's own limits, not the model's: such a verdict is a skip, not a refusal.
JUDGE_LIMITS = ("which the judge cannot feed", "the judge feeds tensors only")
# What ONNX Runtime refuses for want of an implementation, not for a fault of the
# model: a miss of this kind is charged to the runtime (class runtime/CATEGORY/KIND).
RUNTIME_LIMITS = (
    ("Could not find an implementation for", "no-kernel"),
    ("Unsupported model IR version", "ir-newer"),
    ("Current official support for domain", "opset-newer"),
    ("Unsupported data type", "type-unsupported"),
    ("Non tensor type is temporarily not supported", "non-tensor"),
    ("Failed to construct locale", "locale"),
)


UNKNOWN_OP = re.compile(r"Fatal error: ([^:\s]+):\S+\(-?\d+\) is not a registered function/op")


def runtime_limit(message):
    for text, cat in RUNTIME_LIMITS:
        if text in message:
            return cat
    # An operator the runtime does not have in a domain other than ai.onnx (where
    # a missing operator is the model's fault: a wrong name or opset).
    m = UNKNOWN_OP.search(message)
    if m and m.group(1) not in ("", "ai.onnx"):
        return "unknown-op"
    return None


# ---- ONNX Runtime, one process for every model -----------------------------------


class OrtJudge:
    """judge_ort.js serving on stdin. judge(path) gives its verdict, or a skip when
    the runtime hangs on the model (killed after `timeout` s) or dies on it; the
    process is started again for the next model."""

    def __init__(self, node, ort_dir, timeout):
        self.argv = [node, JUDGE, ort_dir, "-"]
        self.timeout = timeout
        self.proc = None
        self.restarts = 0

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.err = []
        proc, lines, err = self.proc, self.lines, self.err

        def pump():
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True).start()

    def stop(self):
        if self.proc:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def judge(self, path):
        if self.proc is None:
            self.start()
        try:
            self.proc.stdin.write(path + "\n")
            self.proc.stdin.flush()
            line = self.lines.get(timeout=self.timeout)
        except (BrokenPipeError, OSError):
            line = None
        except queue.Empty:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            self.restarts += 1
            return {"skip": "ORT hung (no answer in %d s)" % self.timeout}
        if line is None:
            self.proc.wait()
            rc = self.proc.returncode
            stderr = "".join(self.err).strip()
            self.proc = None
            if stderr.startswith("judge_ort.js:"):
                raise SystemExit("run_diff.py: %s" % stderr.splitlines()[0])
            self.restarts += 1
            return {"skip": "ORT crashed (%s)" % ("signal %d" % -rc if rc < 0 else "exit %d" % rc)}
        r = json.loads(line)
        if r["load"] == "ok" and r["run"] == "ok":
            return {"ok": True, "message": ""}
        if any(x in r["message"] for x in JUDGE_LIMITS):
            return {"skip": "judge cannot feed: " + r["message"]}
        return {"ok": False, "message": "%s: %s" % ("load" if r["load"] != "ok" else "run", tidy_ort(r["message"]))}


def tidy_ort(text, n=220):
    """ORT's first line without what says nothing about the model: the 'Load model
    from PATH failed:' prefix and the C++ location before ORT_ENFORCE's '... was
    false.'; a long message's end (where ORT puts the reason)."""
    text = " ".join(str(text).split())
    if text.startswith("Load model from ") and " failed:" in text:
        text = text.split(" failed:", 1)[1]
    if " was false. " in text:
        text = text.split(" was false. ", 1)[1]
    return text if len(text) <= n else "..." + text[-(n - 3):]


# ---- onnxshape check --------------------------------------------------------------


def run_check(tool, path):
    try:
        p = subprocess.run([tool, "check", "--format", "json", path], capture_output=True, text=True,
                           timeout=CHECK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"rc": None, "crash": "timed out after %d s" % CHECK_TIMEOUT_S, "codes": [], "message": ""}
    r = {"rc": p.returncode, "codes": [], "message": ""}
    if p.returncode not in (0, 1, 2):
        r["crash"] = "exit %d: %s" % (p.returncode, p.stderr.strip()[-200:])
        return r
    try:
        f = json.loads(p.stdout)["files"][0]
        errs = [d for d in f["diagnostics"] if d["severity"] == "error"]
        r["codes"] = sorted({d["code"] for d in errs})
        r["message"] = f.get("error") or (errs[0]["message"] if errs else "")
    except (ValueError, KeyError, IndexError) as e:
        if p.returncode == 2:
            r["message"] = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        else:
            r["crash"] = "unreadable JSON report (%s)" % e
    return r


def check_text(c):
    if "crash" in c:
        return "CRASH " + c["crash"]
    if c["rc"] == 0:
        return "exit 0"
    return "exit %d %s: %s" % (c["rc"], ",".join(c["codes"]) or "-", " ".join(c["message"].split())[:200])


# ---- seeds ------------------------------------------------------------------------


def has_external_data(model):
    from onnx import TensorProto
    for t in model.graph.initializer:
        if t.data_location == TensorProto.EXTERNAL:
            return True
    return False


def list_seeds(sources, max_bytes):
    """(source name, [paths]) in the order first given, each list sorted."""
    out = {}
    for name, root in sources:
        paths = out.setdefault(name, [])
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if x != "bad")
            for f in sorted(files):
                p = os.path.join(d, f)
                if f.endswith(".onnx") and os.path.getsize(p) <= max_bytes:
                    paths.append(os.path.abspath(p))
    return [(name, sorted(set(paths))) for name, paths in out.items()]


def draw(seed, i, pools, weights):
    """Mutant i's random state, source and seed model: from SEED and i alone."""
    rng = random.Random("%d:%d" % (seed, i))
    names = [n for n, paths in pools if paths]
    w = [weights.get(n, 1.0) for n in names]
    src = rng.choices(names, w)[0]
    paths = dict(pools)[src]
    return rng, src, paths[rng.randrange(len(paths))]


# ---- the run ----------------------------------------------------------------------


def judge_many(items, ort, tool, jobs):
    """items: [(key, path)]; both verdicts for each, ORT on one thread (its process
    is sequential), check on the pool. Returns {key: (ort, check)}."""
    out = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs + 1) as pool:
        checks = {k: pool.submit(run_check, tool, p) for k, p in items}
        orts = pool.submit(lambda: {k: ort.judge(p) for k, p in items})
        o = orts.result()
        for k, _ in items:
            out[k] = (o[k], checks[k].result())
    return out


def read_known(path):
    """PATTERN [PATTERN...]  # reason  ->  [(pattern, reason)], in the file's order."""
    out = []
    if path and os.path.exists(path):
        for line in open(path):
            body, _, reason = line.partition("#")
            out.extend((p, reason.strip()) for p in body.split())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", help="a build tree: the defaults of --tool, --ort-dir, --work and --source")
    ap.add_argument("--tool")
    ap.add_argument("--node", default=shutil.which("node") or "node")
    ap.add_argument("--ort-dir")
    ap.add_argument("--work")
    ap.add_argument("--source", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--weight", action="append", default=[], metavar="NAME=W",
                    help="how often a source's models are drawn against the others' (1 unless told)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--only", default="", help="comma-separated mutant numbers: make and judge only those")
    ap.add_argument("--known", default=os.path.join(os.path.dirname(HERE), "known_diff_ort.txt"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-seed-bytes", type=int, default=2 << 20)
    ap.add_argument("--ort-timeout", type=int, default=30)
    ap.add_argument("--transform-rate", type=float, default=0.3)
    ap.add_argument("--keep-all", action="store_true", help="keep every mutant, not only the disagreeing ones")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per mutant")
    a = ap.parse_args()
    t0 = time.time()
    if a.build:
        b = os.path.abspath(a.build)
        a.tool = a.tool or os.path.join(b, "onnxshape")
        a.ort_dir = a.ort_dir or os.path.join(b, "ort")
        a.work = a.work or os.path.join(b, "diff-ort", "seed%d" % a.seed)
        if not a.source:
            a.source = ["%s=%s" % (n, ",".join(d.format(build=b, repo=REPO) for d in ds)) for n, ds in SOURCES]
            a.weight = ["%s=%s" % kv for kv in WEIGHTS.items()] + a.weight
    if not (a.tool and a.ort_dir and a.work and a.source):
        ap.error("--tool, --ort-dir, --work and --source are needed without --build")

    import onnx  # noqa: F401 - fails early, with its own message, where python3-onnx is missing
    from mutate import mutate

    sources = []
    for s in a.source:
        name, _, dirs = s.partition("=")
        for d in dirs.split(","):
            if not os.path.isdir(d):
                raise SystemExit("run_diff.py: source %s: no directory %s" % (name, d))
            sources.append((name, d))
    weights = {n: float(w) for n, _, w in (s.partition("=") for s in a.weight)}
    pools = list_seeds(sources, a.max_seed_bytes)
    if not any(p for _, p in pools):
        raise SystemExit("run_diff.py: no seed models in the sources")
    work = os.path.abspath(a.work)
    mdir = os.path.join(work, "mutants")
    kept = os.path.join(work, "kept")
    for d in (mdir, kept):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    indices = [int(x) for x in a.only.split(",") if x.strip()] if a.only else list(range(a.count))
    draws = {i: draw(a.seed, i, pools, weights) for i in indices}

    ort = OrtJudge(a.node, a.ort_dir, a.ort_timeout)
    # Seed models: the baseline. External data would have to travel with each mutant.
    seeds = sorted({p for _, _, p in draws.values()})
    base = judge_many([(p, p) for p in seeds], ort, a.tool, a.jobs)
    seed_bytes = {}

    results = []  # one dict per mutant
    skipped = {}
    known = read_known(a.known)
    for c0 in range(0, len(indices), CHUNK):
        batch = []
        for i in indices[c0:c0 + CHUNK]:
            rng, src, path = draws[i]
            o, _ = base[path]
            if not o.get("ok"):
                why = "seed refused by ORT" if "skip" not in o else "seed skipped: " + o["skip"]
                skipped[why] = skipped.get(why, 0) + 1
                continue
            if path not in seed_bytes:
                raw = open(path, "rb").read()
                m = onnx.ModelProto()
                m.ParseFromString(raw)
                seed_bytes[path] = None if has_external_data(m) else raw
            raw = seed_bytes[path]
            if raw is None:
                skipped["seed has external data"] = skipped.get("seed has external data", 0) + 1
                continue
            model = onnx.ModelProto()
            model.ParseFromString(raw)
            try:
                got = mutate(model, rng, a.transform_rate)
            except Exception as e:  # noqa: BLE001 - a mutation's bug is reported, not fatal
                why = "mutation failed: %s" % type(e).__name__
                skipped[why] = skipped.get(why, 0) + 1
                if a.verbose:
                    print("m%06d mutation failed: %r" % (i, e))
                continue
            if got is None:
                skipped["no mutation applies"] = skipped.get("no mutation applies", 0) + 1
                continue
            out = model.SerializeToString()
            if out == raw:
                skipped["mutation changed nothing"] = skipped.get("mutation changed nothing", 0) + 1
                continue
            mp = os.path.join(mdir, "m%06d.onnx" % i)
            with open(mp, "wb") as f:
                f.write(out)
            batch.append((i, mp, src, path, got))
        verdicts = judge_many([(i, mp) for i, mp, _, _, _ in batch], ort, a.tool, a.jobs)
        for i, mp, src, path, (kind, detail) in batch:
            o, c = verdicts[i]
            r = dict(i=i, source=src, seed_model=path, kind=kind, detail=detail, ort=o, check=c)
            if "skip" in o:
                skipped[o["skip"].split(":")[0]] = skipped.get(o["skip"].split(":")[0], 0) + 1
                r["verdict"] = "skipped"
            elif "crash" in c:
                r["verdict"] = "crash"
            else:
                flagged = c["rc"] in (1, 2)
                if o["ok"] == (not flagged):
                    r["verdict"] = "agree"
                elif o["ok"]:
                    r["verdict"] = "false-alarm"
                else:
                    r["verdict"] = "miss"
            if r["verdict"] in ("miss", "false-alarm", "crash"):
                seed_flagged = base[path][1].get("rc") in (1, 2)
                cat = runtime_limit(o.get("message", "")) if r["verdict"] == "miss" else None
                if r["verdict"] == "false-alarm" and seed_flagged:
                    r["key"] = "seed/false-alarm/%s" % src
                elif cat:
                    r["key"] = "runtime/%s/%s" % (cat, kind)
                elif r["verdict"] == "miss":
                    r["key"] = "%s/miss-%s/%s" % (kind, o["message"].split(":")[0], detail)
                else:
                    r["key"] = "%s/%s/%s" % (kind, r["verdict"], detail)
                name = "%s__m%06d.onnx" % (r["key"].replace("/", "__").replace(":", "-").replace("+", "-"), i)
                r["kept"] = os.path.join(kept, name)
                shutil.move(mp, r["kept"])
            elif not a.keep_all:
                os.unlink(mp)
            results.append(r)
            if a.verbose:
                print("m%06d %-9s %-48s ORT %s; check %s" % (
                    i, r["verdict"], "%s/%s" % (kind, detail), "ok" if o.get("ok") else o.get("skip") or o["message"],
                    check_text(c)))
    ort.stop()

    # Seed models ORT runs and check refuses: false alarms with no mutation at all.
    seed_fas = [p for p in seeds if base[p][0].get("ok") and base[p][1].get("rc") in (1, 2)]
    seed_misses = [p for p in seeds if base[p][0].get("ok") is False and base[p][1].get("rc") == 0]

    dis = [r for r in results if r["verdict"] in ("miss", "false-alarm", "crash")]
    # A seed model itself refused is a false alarm of its own, mutated or not (and a
    # check crash on one fails the run as a mutant's does).
    source_of = {p: src for _, src, p in draws.values()}
    for p in seeds:
        o, c = base[p]
        if "crash" in c or (o.get("ok") and c.get("rc") in (1, 2)):
            verdict = "crash" if "crash" in c else "false-alarm"
            dis.append(dict(i=-1, source=source_of[p], seed_model=p, kind="seed", detail=source_of[p], ort=o, check=c,
                            verdict=verdict, key="seed/%s/%s" % (verdict, source_of[p]), kept=p))
    with open(os.path.join(work, "disagreements.jsonl"), "w") as f:
        for r in dis:
            f.write(json.dumps(r) + "\n")
    # Every disagreement for a reader: the mutant, its class, both verdicts.
    with open(os.path.join(work, "disagreements.txt"), "w") as f:
        for r in dis:
            f.write("%s\t%s\tfrom %s\n\tORT %s\n\tcheck %s\n" % (
                r["kept"], r["key"], r["seed_model"], "runs it" if r["ort"].get("ok") else r["ort"].get("message"),
                check_text(r["check"])))
    classes = {}
    for r in dis:
        classes.setdefault(r["key"], []).append(r)
    judged = [r for r in results if r["verdict"] != "skipped"]
    agree = sum(r["verdict"] == "agree" for r in judged)
    ort_refused = sum(1 for r in judged if r["ort"].get("ok") is False)

    failures = []
    print("diff-ort: seed %d, %d mutants drawn from %d seed models (%s)" % (
        a.seed, len(indices), len(seeds), ", ".join("%s %d" % (n, len(p)) for n, p in pools)))
    print("judged %d (ORT refuses %d, runs %d); skipped %d%s" % (
        len(judged), ort_refused, len(judged) - ort_refused, sum(skipped.values()),
        "".join("; %s %d" % kv for kv in sorted(skipped.items()))))
    if seed_fas:
        print("\nseed models ORT runs and check refuses (false alarms with no mutation):")
        for p in seed_fas:
            print("  %s: %s" % (p, check_text(base[p][1])))
    if seed_misses:
        cats = {}
        for p in seed_misses:
            c = runtime_limit(base[p][0]["message"]) or base[p][0]["message"].split(":")[0]
            cats.setdefault(c, []).append(p)
        print("\nseed models ORT refuses and check passes (no mutants made from them): %s" % "; ".join(
            "%s %d" % (c, len(ps)) for c, ps in sorted(cats.items())))
        if a.verbose:
            for p in seed_misses:
                print("  %s: ORT %s" % (p, base[p][0]["message"]))
    if classes:
        print("\ndisagreements by class (KIND/DIRECTION/DETAIL):")
    for key in sorted(classes, key=lambda k: (-len(classes[k]), k)):
        rs = classes[key]
        pat = next(((p, why) for p, why in known if fnmatch.fnmatchcase(key, p)), None)
        if rs[0]["verdict"] == "crash":
            tag = "CRASH"
            failures.append(key)
        elif pat:
            tag = "known"
        else:
            tag = "NEW"
            failures.append(key)
        r = rs[0]
        print("  [%s] %s: %d (e.g. %s, from %s)" % (tag, key, len(rs), r["kept"], r["seed_model"]))
        print("        ORT %s" % ("runs it" if r["ort"].get("ok") else r["ort"]["message"]))
        print("        check %s" % check_text(r["check"]))
        if pat:
            print("        listed as %s: %s" % (pat[0], pat[1][:150]))
    n = len(judged)
    with open(os.path.join(work, "summary.json"), "w") as f:
        json.dump(dict(seed=a.seed, count=len(indices), judged=n, agree=agree, ort_refused=ort_refused,
                       skipped=skipped, classes={k: len(v) for k, v in classes.items()},
                       kinds={k: sum(r["kind"] == k for r in judged) for k in sorted({r["kind"] for r in judged})},
                       seconds=round(time.time() - t0, 1)), f, indent=1, sort_keys=True)
    print("\nagree %d/%d (%.1f%%); missed %d; false alarms %d; check crashed %d (%.1f s, ORT restarted %d times)" % (
        agree, n, 100.0 * agree / n if n else 100.0, sum(r["verdict"] == "miss" for r in judged),
        sum(r["verdict"] == "false-alarm" for r in judged), sum(r["verdict"] == "crash" for r in judged),
        time.time() - t0, ort.restarts))
    if failures:
        print("FAIL: %d class(es) not in %s: %s" % (len(failures), a.known, ", ".join(failures)))
        print("(every disagreement: %s; a mutant again: --seed %d --only NUMBER -v)" % (
            os.path.join(work, "disagreements.txt"), a.seed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
