#!/usr/bin/python3
"""coverage.py: every operator version has a shape rule, or docs/ARCHITECTURE.md says why not.

usage: coverage.py SOURCE_DIR ONNX_DOCS_DIR

The operator versions are those of the installed onnx package
(onnx.defs.get_all_schemas_with_history(), domains ai.onnx, ai.onnx.ml and
ai.onnx.preview.training) and those the ONNX documentation shipped beside the project
defines up to opset 28, ai.onnx.preview's included (Changelog.md and Changelog-ml.md in
ONNX_DOCS_DIR, unpacked from tests/data/onnx-docs.tar.xz: the installed onnx may be older). The rules are the rows of
src/passes/rules/ops*.def (OP(...) and, for the schema domains, ONNX(...), ONNX_ML(...)...). An operator without a rule must be listed in docs/ARCHITECTURE.md's table
"Operators without a rule" (a row "| `Name` | reason |", with domain if not ai.onnx).
Prints the counts and every version that is neither; exits 1 if there is one.
"""
import glob
import os
import re
import sys

import onnx.defs

MAX_OPSET = 28
DOMAINS = {
    "": "",
    "ai.onnx": "",
    "ai.onnx.ml": "ai.onnx.ml",
    "ai.onnx.preview": "ai.onnx.preview",
    "ai.onnx.preview.training": "ai.onnx.preview.training",
}

# ops.def's rows of the schema domains name their domain by macro.
SCHEMA_ROW_DOMAINS = {
    "ONNX": "",
    "ONNX_ML": "ai.onnx.ml",
    "ONNX_PREVIEW": "ai.onnx.preview",
    "ONNX_TRAINING": "ai.onnx.preview.training",
}


def rule_rows(src):
    rows = set()
    for f in glob.glob(os.path.join(src, "src", "passes", "rules", "ops*.def")):
        text = open(f).read()
        # Strip comments so an example in a comment is not a row.
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        for m in re.finditer(r'\bOP\(\s*"([^"]*)"\s*,\s*"(\w+)"\s*,\s*(\d+)', text):
            rows.add((DOMAINS.get(m.group(1), m.group(1)), m.group(2), int(m.group(3))))
        for m in re.finditer(r'\b(ONNX|ONNX_ML|ONNX_PREVIEW|ONNX_TRAINING)\(\s*(\w+)\s*,\s*(\d+)', text):
            rows.add((SCHEMA_ROW_DOMAINS[m.group(1)], m.group(2), int(m.group(3))))
    return rows


def wanted_versions(ref):
    want = set()
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in DOMAINS:
            want.add((DOMAINS[s.domain], s.name, s.since_version))
    for fn, dom in (("Changelog.md", ""), ("Changelog-ml.md", "ai.onnx.ml")):
        path = os.path.join(ref, fn)
        for m in re.finditer(r'<a name="([\w.]+)-(\d+)"', open(path).read()):
            name, v = m.group(1), int(m.group(2))
            d = dom
            if name.startswith("ai.onnx.ml."):
                d, name = "ai.onnx.ml", name[len("ai.onnx.ml."):]
            elif name.startswith("ai.onnx.preview.") and "." not in name[len("ai.onnx.preview."):]:
                d, name = "ai.onnx.preview", name[len("ai.onnx.preview."):]
            elif "." in name:
                continue
            if d == "" and v > MAX_OPSET:
                continue
            want.add((d, name, v))
    return want


def readme_exempt(src):
    text = open(os.path.join(src, "docs", "ARCHITECTURE.md")).read()
    m = re.search(r"## Operators without a rule\n(.*?)(\n#|\Z)", text, re.S)
    exempt = set()
    if m:
        for row in re.finditer(r"^\| `([\w.]+)` \|", m.group(1), re.M):
            name = row.group(1)
            dom = ""
            for d in ("ai.onnx.preview.training", "ai.onnx.preview", "ai.onnx.ml"):
                if name.startswith(d + "."):
                    dom, name = d, name[len(d) + 1:]
            exempt.add((dom, name))
    return exempt


def main():
    src, ref = sys.argv[1], sys.argv[2]
    rows, want, exempt = rule_rows(src), wanted_versions(ref), readme_exempt(src)
    # A row holds from its version until the operator's next row (ops.def).
    first = {}
    for d, n, v in rows:
        first[(d, n)] = min(v, first.get((d, n), v))
    covered = {w for w in want if (w[0], w[1]) in first and first[(w[0], w[1])] <= w[2]}
    missing = sorted(w for w in want if w not in covered and (w[0], w[1]) not in exempt)
    exempted = sorted(w for w in want if w not in covered and (w[0], w[1]) in exempt)
    ops = {(d, n) for d, n, _ in want}
    print(f"operator coverage: {len(ops)} operators, {len(want)} versions; "
          f"{len(want) - len(missing) - len(exempted)} with a rule, {len(exempted)} listed in docs/ARCHITECTURE.md "
          f"without one, {len(missing)} missing")
    for d, n, v in missing:
        print(f"  missing: {d or 'ai.onnx'} {n} {v}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
