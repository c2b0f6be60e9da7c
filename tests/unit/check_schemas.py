#!/usr/bin/python3
"""check_schemas.py: the JSON reports validate against their schemas in docs/schemas.

    check_schemas.py TOOL

Runs TOOL (the built onnxshape) over the fixtures of tests/models (every kind: clean,
with findings, malformed, unreadable, subgraphs, functions, external data) and
validates what it prints against docs/schemas/check.json (check --format json),
shapes.json (shapes --format json, print --values --format json) and print.json
(print --format json), with python3-jsonschema (Draft 2020-12). A schema that
accepted anything would pass too: so each one must also refuse a document broken in
the ways that matter (no version, an unknown status or source, a key too many).

And SARIF: tool.driver.informationUri and each rule's helpUri are absolute URIs,
every helpUri names its rule's section of diagnostics.md (#CODE), and
docs/diagnostics.md has that section ("## `CODE`", the heading Markdown renderers
turn into the anchor CODE). Prints the first problem and exits 1.
"""
import copy
import json
import os
import subprocess
import sys
import urllib.parse

import jsonschema

try:  # jsonschema 4.18 and later resolve $ref through `referencing`
    from referencing import Registry, Resource
except ImportError:  # Debian 12's 4.10
    Registry = None

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MODELS = os.path.join(ROOT, "tests", "models")
SCHEMAS = os.path.join(ROOT, "docs", "schemas")


def fail(msg):
    print(f"check_schemas: {msg}")
    sys.exit(1)


def load_schemas():
    schemas = {}
    for name in sorted(os.listdir(SCHEMAS)):
        if name.endswith(".json"):
            with open(os.path.join(SCHEMAS, name)) as f:
                doc = json.load(f)
            jsonschema.Draft202012Validator.check_schema(doc)
            if doc.get("$id") != name:
                fail(f"{name}: $id is {doc.get('$id')!r}, not its file name")
            schemas[name] = doc
    if Registry is None:
        # The schemas' $ids are their file names: relative references resolve
        # against a base inside the folder.
        base = "file://" + SCHEMAS + "/"
        store = {base + n: s for n, s in schemas.items()}
        return {n: jsonschema.Draft202012Validator(s, resolver=jsonschema.RefResolver(base + n, s, store=store))
                for n, s in schemas.items()}
    registry = Registry().with_resources((n, Resource.from_contents(s)) for n, s in schemas.items())
    return {n: jsonschema.Draft202012Validator(s, registry=registry) for n, s in schemas.items()}


def run(tool, *args):
    """TOOL's standard output, parsed; the exit status must be one the tool has."""
    p = subprocess.run([tool, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=120)
    if p.returncode not in (0, 1, 2):
        fail(f"{' '.join(args)}: exit status {p.returncode}")
    try:
        return json.loads(p.stdout.decode("utf-8"))
    except ValueError as e:
        fail(f"{' '.join(args)}: not JSON: {e}")


def validate(v, doc, what):
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        fail(f"{what}: at {'/'.join(map(str, e.absolute_path)) or '(document)'}: {e.message}")


def refuses(v, doc, what, break_it):
    bad = copy.deepcopy(doc)
    break_it(bad)
    if v.is_valid(bad):
        fail(f"{what}: the schema accepts a broken document")


def check_sarif(tool):
    doc = run(tool, "check", "--format", "sarif", "tests/models/lint")
    drv = doc["runs"][0]["tool"]["driver"]
    with open(os.path.join(ROOT, "docs", "diagnostics.md")) as f:
        headings = {line[3:].strip().strip("`") for line in f if line.startswith("## `")}

    def absolute(uri, where):
        u = urllib.parse.urlparse(uri)
        if not u.scheme or not (u.netloc or u.scheme == "file" and u.path.startswith("/")):
            fail(f"{where}: {uri!r} is not an absolute URI")
        return u

    absolute(drv.get("informationUri", ""), "driver.informationUri")
    if not drv["rules"]:
        fail("SARIF: no rules")
    for r in drv["rules"]:
        u = absolute(r.get("helpUri", ""), f"rule {r['id']}: helpUri")
        if not u.path.endswith("/diagnostics.md") or u.fragment != r["id"]:
            fail(f"rule {r['id']}: helpUri {r['helpUri']!r} is not diagnostics.md#{r['id']}")
        if r["id"] not in headings:
            fail(f"rule {r['id']}: docs/diagnostics.md has no section '## `{r['id']}`' for its anchor")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    tool = sys.argv[1]
    v = load_schemas()
    for name in ("check.json", "shapes.json", "print.json", "common.json"):
        if name not in v:
            fail(f"docs/schemas/{name} is missing")

    # check: the whole fixture tree, and each folder alone (smaller documents, the
    # same shapes), and one malformed file named as it is.
    docs = [run(tool, "check", "--format", "json", "tests/models")]
    docs.append(run(tool, "check", "--format", "json", "tests/models/bad/cycle.onnx", "tests/models/bad/empty.onnx",
                    "/nonexistent/model.onnx", "tests/models/good"))
    for d in docs:
        validate(v["check.json"], d, "check --format json")
    full = docs[0]
    statuses = {f["status"] for f in full["files"]}
    if statuses != {"ok", "errors", "unreadable"}:
        fail(f"check: the fixtures should give every status, gave {sorted(statuses)}")
    if not any(d["inputs"] for f in full["files"] for d in f["diagnostics"]):
        fail("check: no diagnostic with inputs: the fixtures no longer exercise them")
    cj = v["check.json"]
    refuses(cj, full, "check.json", lambda d: d.pop("version"))
    refuses(cj, full, "check.json", lambda d: d["files"][0].update(status="fine"))
    refuses(cj, full, "check.json", lambda d: d["summary"].update(extra=1))
    refuses(cj, full, "check.json",
            lambda d: next(f for f in d["files"] if f["diagnostics"])["diagnostics"][0].update(severity="fatal"))

    # shapes, and print --values, which is shapes.
    for args in (["shapes", "--format", "json", "--initializers", "tests/models"],
                 ["print", "--values", "--format", "json", "tests/models/good", "tests/models/functions"]):
        d = run(tool, *args)
        validate(v["shapes.json"], d, " ".join(args))
        if not d["files"]:
            fail(f"{' '.join(args)}: no file listed")
    sj = v["shapes.json"]
    shapes = run(tool, "shapes", "--format", "json", "tests/models/good")
    sources = {x["source"] for f in shapes["files"] for x in f["values"]}
    if not {"input", "node"} <= sources:
        fail(f"shapes: sources {sorted(sources)}")
    refuses(sj, shapes, "shapes.json", lambda d: d.pop("version"))
    refuses(sj, shapes, "shapes.json", lambda d: d["files"][0]["values"][0].update(source="weights"))
    refuses(sj, shapes, "shapes.json",
            lambda d: next(x for f in d["files"] for x in f["values"] if x["source"] == "node").update(node_index=None))

    # print.
    pr = run(tool, "print", "--format", "json", "tests/models")
    validate(v["print.json"], pr, "print --format json")
    if not any(f["initializers"]["external"] for f in pr["files"]) or not any(f["subgraphs"] for f in pr["files"]):
        fail("print: the fixtures no longer have external data and subgraphs")
    pj = v["print.json"]
    refuses(pj, pr, "print.json", lambda d: d.pop("version"))
    refuses(pj, pr, "print.json", lambda d: d["files"][0]["opsets"].append({"domain": ""}))
    refuses(pj, pr, "print.json", lambda d: d["files"][0].pop("parameters"))

    check_sarif(tool)


if __name__ == "__main__":
    main()
