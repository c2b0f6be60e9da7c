#!/usr/bin/python3
"""run_battery.py: the validity battery (ctest validity/battery): does a clean
`onnxshape check` mean that ONNX Runtime loads and runs the model?

    /usr/bin/python3 tests/validity/run_battery.py ONNXSHAPE_BIN CASES_DIR NODE ORT_DIR
        [--known-misses FILE] [--known-false-alarms FILE] [--jobs N]

1. Generates the cases into CASES_DIR with gen_cases.py (again whenever the generator
   is newer than CASES_DIR/cases.json): invalid models and their valid twins.
2. ONNX Runtime judges every file once (judge_ort.js, under NODE with ORT_DIR's
   onnxruntime-node): a model is INVALID only if ORT refuses to load it or fails to
   run it. That verdict, not the author's intent, classifies each file.
3. `ONNXSHAPE_BIN check --format json FILE` per file (in parallel): exit 0 is clean;
   1 (errors) and 2 (refused, malformed) are "flagged"; anything else is a crash.
4. onnx.checker.check_model(full_check=True) per file (python3-onnx), shown beside.

Prints a table per family and then exactly `agree N/M; missed K; false alarms F`
(over all files: a miss is ORT-invalid and check-clean, a false alarm ORT-valid and
flagged). Exit 1 on a miss not listed in known_misses.txt, a false alarm not listed in
known_false_alarms.txt, or an onnxshape crash; listed entries that no longer happen
are reported (so the lists can shrink) without failing. Both lists hold one file id
per line (FAMILY/CASE_invalid or FAMILY/CASE_valid: the file's path without .onnx)
with the reason after '#'.
"""
import argparse
import concurrent.futures
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "gen_cases.py")
JUDGE = os.path.join(HERE, "judge_ort.js")
CHECK_TIMEOUT_S = 30
WORKER_SILENCE_S = 30  # a worker silent this long on one model has hung on it


def generate(cases_dir):
    listing = os.path.join(cases_dir, "cases.json")
    if os.path.exists(listing) and os.path.getmtime(listing) >= os.path.getmtime(GEN):
        return
    shutil.rmtree(cases_dir, ignore_errors=True)
    os.makedirs(cases_dir)
    subprocess.run([sys.executable, GEN, cases_dir], check=True)


def read_list(path):
    """FILE_ID  # reason  ->  {id: reason}"""
    out = {}
    if not path or not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            body, _, reason = line.partition("#")
            body = body.strip()
            if body:
                out[body] = reason.strip()
    return out


def run_worker(argv, files, cwd):
    """Runs a worker that prints one JSON line per file of `files` (given as a list
    file), in order. A worker that dies or goes silent on a file is charged with that
    file ({"crash": reason}) and restarted on the files after it."""
    results = []
    pending = list(files)
    fd, listfile = tempfile.mkstemp(prefix=".worker_", suffix=".txt", dir=cwd)
    os.close(fd)
    while pending:
        with open(listfile, "w") as f:
            f.write("\n".join(pending) + "\n")
        proc = subprocess.Popen(argv + [listfile], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = queue.Queue()

        def pump(stream, q):
            for line in stream:
                q.put(line)
            q.put(None)

        err_chunks = []
        threading.Thread(target=pump, args=(proc.stdout, lines), daemon=True).start()
        err_reader = threading.Thread(target=lambda: err_chunks.append(proc.stderr.read()), daemon=True)
        err_reader.start()
        got = 0
        hung = False
        while True:
            try:
                line = lines.get(timeout=WORKER_SILENCE_S)
            except queue.Empty:
                hung = True
                proc.kill()
                break
            if line is None:
                break
            line = line.strip()
            if not line:
                continue
            results.append(json.loads(line))
            got += 1
        proc.wait()
        err_reader.join(timeout=5)
        pending = pending[got:]
        if pending:
            stderr = "".join(err_chunks).strip().splitlines()
            if not hung and proc.returncode > 0:
                # The workers report every model's failure themselves: an exit status
                # means the worker could not work (no onnxruntime-node, no onnx).
                raise SystemExit("run_battery.py: %s exited %d: %s" % (
                    " ".join(argv[:2]), proc.returncode, stderr[0] if stderr else "?"))
            why = "hung (no answer in %d s)" % WORKER_SILENCE_S if hung else "exited %d" % proc.returncode
            results.append({"file": pending[0], "crash": why})
            pending = pending[1:]
    os.unlink(listfile)
    return results


def checker_worker(listfile):
    """--checker-worker: onnx.checker (full_check) on each file listed, one JSON line each."""
    import onnx
    for path in open(listfile).read().splitlines():
        try:
            onnx.checker.check_model(onnx.load(path), full_check=True)
            r = {"file": path, "ok": True, "message": ""}
        except Exception as e:  # noqa: BLE001 - every refusal is a verdict
            r = {"file": path, "ok": False, "message": str(e).strip().split("\n")[0]}
        print(json.dumps(r), flush=True)
    return 0


def run_check(tool, path):
    try:
        p = subprocess.run([tool, "check", "--format", "json", path], capture_output=True, text=True,
                           timeout=CHECK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"rc": None, "flagged": True, "crash": "timed out", "codes": [], "message": ""}
    r = {"rc": p.returncode, "flagged": p.returncode in (1, 2), "codes": [], "message": ""}
    if p.returncode not in (0, 1, 2):
        r["crash"] = "exit %d: %s" % (p.returncode, p.stderr.strip()[-200:])
        return r
    try:
        doc = json.loads(p.stdout)
        f = doc["files"][0]
        errs = [d for d in f["diagnostics"] if d["severity"] == "error"]
        r["codes"] = sorted({d["code"] for d in errs})
        r["message"] = f.get("error") or (errs[0]["message"] if errs else "")
    except (ValueError, KeyError, IndexError) as e:
        r["crash"] = "unreadable JSON report (%s)" % e
    return r


def short(text, n=110):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 3] + "..."


def tidy_ort(text, n=150):
    """ORT's first line without the parts that say nothing about the model: the
    'Load model from PATH failed:' prefix and the C++ location and signature before
    ORT_ENFORCE's '... was false.'; the end of a long message (where ORT puts the
    reason) rather than its start."""
    text = " ".join(str(text).split())
    if text.startswith("Load model from ") and " failed:" in text:
        text = text.split(" failed:", 1)[1]
    if " was false. " in text:
        text = text.split(" was false. ", 1)[1]
    return text if len(text) <= n else "..." + text[-(n - 3):]


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--checker-worker":
        return checker_worker(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tool")
    ap.add_argument("cases_dir")
    ap.add_argument("node")
    ap.add_argument("ort_dir")
    ap.add_argument("--known-misses", default=os.path.join(HERE, "known_misses.txt"))
    ap.add_argument("--known-false-alarms", default=os.path.join(HERE, "known_false_alarms.txt"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per model: the three verdicts")
    a = ap.parse_args()
    t0 = time.time()

    cases_dir = os.path.abspath(a.cases_dir)
    generate(cases_dir)
    cases = json.load(open(os.path.join(cases_dir, "cases.json")))
    files = []  # (file id, family, intent, case)
    for c in cases:
        for intent in ("invalid", "valid"):
            if intent in c["files"]:
                files.append((c["files"][intent][: -len(".onnx")], c["family"], intent, c))
    paths = [os.path.join(cases_dir, fid + ".onnx") for fid, _, _, _ in files]

    # The three verdicts: the two workers in threads while check runs on the pool.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs) + 2) as pool:
        judge_f = pool.submit(run_worker, [a.node, JUDGE, a.ort_dir], paths, cases_dir)
        checker_f = pool.submit(run_worker, [sys.executable, os.path.abspath(__file__), "--checker-worker"], paths,
                                cases_dir)
        checks = list(pool.map(lambda p: run_check(a.tool, p), paths))
        judged = {r["file"]: r for r in judge_f.result()}
        checked = {r["file"]: r for r in checker_f.result()}

    known_miss = read_list(a.known_misses)
    known_fa = read_list(a.known_false_alarms)
    rows = []
    for (fid, family, intent, c), path, chk in zip(files, paths, checks):
        j = judged[path]
        if "crash" in j:
            ort_ok, ort_msg = False, "ORT crashed: " + j["crash"]
        else:
            ort_ok = j["load"] == "ok" and j["run"] == "ok"
            ort_msg = "" if ort_ok else "%s: %s" % ("load" if j["load"] != "ok" else "run", tidy_ort(j["message"]))
        ck = checked[path]
        chk_ok = ck.get("ok", False)
        chk_msg = ck.get("message") or ("checker crashed: " + ck["crash"] if "crash" in ck else "")
        if not ort_ok and chk["flagged"]:
            verdict = "caught"
        elif ort_ok and not chk["flagged"]:
            verdict = "clean"
        elif not ort_ok:
            verdict = "missed"
        else:
            verdict = "false alarm"
        rows.append(dict(id=fid, family=family, intent=intent, what=c["what"], ort_ok=ort_ok, ort_msg=ort_msg,
                         check=chk, verdict=verdict, checker_ok=chk_ok, checker_msg=chk_msg))

    if a.verbose:
        for r in rows:
            checker = "ok" if r["checker_ok"] else "refuses: " + short(r["checker_msg"], 70)
            print("%-48s %-11s ORT %-7s check %s %-28s checker %s" % (
                r["id"], r["verdict"], "valid" if r["ort_ok"] else "INVALID", r["check"]["rc"],
                ",".join(r["check"]["codes"]) or "-", checker))
            if not r["ort_ok"]:
                print("%48s ORT: %s" % ("", r["ort_msg"]))
            if r["check"]["message"]:
                print("%48s check: %s" % ("", short(r["check"]["message"], 150)))
        print()
    families = []
    for r in rows:
        if r["family"] not in families:
            families.append(r["family"])
    hdr = ("family", "models", "ORT-invalid", "agree", "missed", "false-alarms", "checker-caught", "checker-false")
    print("validity battery: %d cases, %d models; judge ONNX Runtime (%s)" % (len(cases), len(rows), a.ort_dir))
    print("%-11s %7s %12s %6s %7s %13s %15s %14s" % hdr)
    tot = [0] * 7
    for fam in families:
        rs = [r for r in rows if r["family"] == fam]
        bad = [r for r in rs if not r["ort_ok"]]
        v = [len(rs), len(bad), sum(r["verdict"] in ("caught", "clean") for r in rs),
             sum(r["verdict"] == "missed" for r in rs), sum(r["verdict"] == "false alarm" for r in rs),
             sum(not r["checker_ok"] for r in bad), sum(not r["checker_ok"] for r in rs if r["ort_ok"])]
        tot = [x + y for x, y in zip(tot, v)]
        print("%-11s %7d %12d %6d %7d %13d %15d %14d" % ((fam,) + tuple(v)))
    print("%-11s %7d %12d %6d %7d %13d %15d %14d" % (("all",) + tuple(tot)))
    print("(agree: ORT-invalid and flagged, or ORT-valid and clean; checker: onnx.checker full_check, "
          "caught = refuses an ORT-invalid model, false = refuses an ORT-valid one)")

    failures = []
    crashes = [r for r in rows if "crash" in r["check"]]
    if crashes:
        print("\nonnxshape CRASHED on:")
        for r in crashes:
            print("  %s: %s" % (r["id"], r["check"]["crash"]))
            failures.append(r["id"] + " (crash)")

    misses = [r for r in rows if r["verdict"] == "missed"]
    if misses:
        print("\nmissed (ORT rejects, check is clean):")
        for r in misses:
            tag = "known" if r["id"] in known_miss else "NEW"
            if tag == "NEW":
                failures.append(r["id"] + " (miss)")
            print("  [%s] %s: %s" % (tag, r["id"], r["what"]))
            print("        ORT %s" % r["ort_msg"])
            if r["id"] in known_miss:
                print("        listed: %s" % short(known_miss[r["id"]]))
    fas = [r for r in rows if r["verdict"] == "false alarm"]
    if fas:
        print("\nfalse alarms (ORT loads and runs it, check flags it):")
        for r in fas:
            tag = "known" if r["id"] in known_fa else "NEW"
            if tag == "NEW":
                failures.append(r["id"] + " (false alarm)")
            kind = " (intent invalid: a spec violation ORT tolerates)" if r["intent"] == "invalid" else ""
            print("  [%s] %s%s: %s" % (tag, r["id"], kind, r["what"]))
            print("        check exit %s %s: %s" % (r["check"]["rc"], ",".join(r["check"]["codes"]),
                                                    short(r["check"]["message"])))
    accepted = [r for r in rows if r["intent"] == "invalid" and r["ort_ok"]]
    if accepted:
        print("\nintent invalid, ORT accepts (classified as valid):")
        for r in accepted:
            print("  %s: %s; check %s, onnx.checker %s" % (
                r["id"], r["what"], "flags it" if r["check"]["flagged"] else "clean",
                "refuses it" if not r["checker_ok"] else "accepts it"))
    rejected = [r for r in rows if r["intent"] == "valid" and not r["ort_ok"]]
    if rejected:
        print("\nintent valid, ORT rejects (classified as invalid):")
        for r in rejected:
            print("  %s: %s; ORT %s" % (r["id"], r["what"], r["ort_msg"]))

    ids = {r["id"] for r in rows}
    now_miss = {r["id"] for r in misses}
    now_fa = {r["id"] for r in fas}
    gone = sorted(k for k in known_miss if k not in now_miss)
    gone_fa = sorted(k for k in known_fa if k not in now_fa)
    if gone or gone_fa:
        print("\nlisted but no longer happening (remove from the lists):")
        for k in gone:
            print("  known_misses.txt: %s%s" % (k, "" if k in ids else " (no such case)"))
        for k in gone_fa:
            print("  known_false_alarms.txt: %s%s" % (k, "" if k in ids else " (no such case)"))

    agree = sum(r["verdict"] in ("caught", "clean") for r in rows)
    print()
    print("agree %d/%d; missed %d; false alarms %d" % (agree, len(rows), len(misses), len(fas)))
    print("(listed: %d known misses, %d known false alarms; %.1f s)" % (
        len(now_miss & set(known_miss)), len(now_fa & set(known_fa)), time.time() - t0))
    if failures:
        print("FAIL: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
