#!/usr/bin/python3
"""summarize.py: the disagreement classes of one or more runs of run_diff.py, as a
Markdown table (for the list of findings the validator's fixes work from).

    /usr/bin/python3 tests/validity/diff/summarize.py WORK_DIR... [--out FILE]
        [--examples DIR] [--known FILE]

Reads each WORK_DIR's summary.json and disagreements.jsonl; per class key: the
count over all runs, the pattern of the known-differences file that lists it, one
example (copied into --examples when given), ORT's message and check's verdict on
it; then the counts by the file's class ids.
"""
import argparse
import fnmatch
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_diff import check_text, read_known  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--examples")
    ap.add_argument("--known", default=os.path.join(os.path.dirname(HERE), "known_diff_ort.txt"))
    a = ap.parse_args()
    known = read_known(a.known)
    judged = agree = 0
    seeds = []
    classes = {}
    for w in a.work:
        s = json.load(open(os.path.join(w, "summary.json")))
        judged += s["judged"]
        agree += s["agree"]
        seeds.append("%d (%d judged)" % (s["seed"], s["judged"]))
        for line in open(os.path.join(w, "disagreements.jsonl")):
            r = json.loads(line)
            classes.setdefault(r["key"], []).append(r)
    if a.examples:
        os.makedirs(a.examples, exist_ok=True)
    runtime = sum(len(v) for k, v in classes.items() if k.startswith("runtime/"))
    out = []
    out.append("Runs (seed): %s. Mutants judged: %d; agree %d (%.1f%%); disagreements %d, of which %d are "
               "the runtime's own limits (runtime/*); agreement without those: %.1f%%.\n" % (
                   ", ".join(seeds), judged, agree, 100.0 * agree / max(1, judged), judged - agree, runtime,
                   100.0 * agree / max(1, judged - runtime)))
    out.append("| class (KIND/DIRECTION/DETAIL) | count | listed | example | ORT | check |")
    out.append("|---|---|---|---|---|---|")
    for key in sorted(classes, key=lambda k: (k.startswith("runtime/"), -len(classes[k]), k)):
        rs = classes[key]
        r = rs[0]
        pat = next((p for p, _ in known if fnmatch.fnmatchcase(key, p)), None)
        ex = r["kept"]
        if a.examples and os.path.exists(ex):
            dst = os.path.join(a.examples, os.path.basename(ex))
            shutil.copyfile(ex, dst)
            ex = dst
        ort = "runs it" if r["ort"].get("ok") else r["ort"]["message"]
        cell = lambda t: str(t).replace("|", "\\|")  # noqa: E731
        out.append("| `%s` | %d | %s | `%s` (from `%s`) | %s | %s |" % (
            key, len(rs), pat or "no", ex, r["seed_model"], cell(ort), cell(check_text(r["check"]))))
    # The same disagreements by the known-differences file's class ids (the reason's
    # first word), in the file's order: what a fix makes go away.
    ids = {}
    for key, rs in classes.items():
        why = next((w for p, w in known if fnmatch.fnmatchcase(key, p)), None)
        cid = why.split(":")[0] if why else "unlisted"
        ids.setdefault(cid, [0, why or key])[0] += len(rs)
    out.append("\n| id | count | reason |")
    out.append("|---|---|---|")
    order = [w.split(":")[0] for _, w in known]
    for cid in sorted(ids, key=lambda c: order.index(c) if c in order else len(order)):
        out.append("| %s | %d | %s |" % (cid, ids[cid][0], ids[cid][1].replace("|", "\\|")))
    text = "\n".join(out) + "\n"
    if a.out:
        open(a.out, "w").write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
