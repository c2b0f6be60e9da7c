#!/usr/bin/python3
"""browser_test.py: `check --format html` rendered by a real browser.

    browser_test.py --tool ONNXSHAPE --lint tests/models/lint --work BUILD/html [--chromium PATH]

Renders reports in headless Chromium (Debian's chromium, installed by `make deps`
as a test oracle) driven over its DevTools protocol (python3-websocket), and checks
in the page:
  - no console error, uncaught exception or refused resource (a Content-Security-
    Policy violation is one: the page allows its inline style and script by hash
    only, so a wrong hash fails here; a tampered copy proves such an error is seen);
  - the findings are exactly those of `--format json` for the same files (path,
    severity, code, node, graph, message), each with its drawing: the same text,
    where the page shows a control or a bidirectional formatting character (which
    HTML cannot, or must not, show as it is) as the escape JSON writes for it
    (shown() below), and a byte that is not UTF-8 as U+FFFD, as JSON does;
  - no two boxes of a drawing overlap, no edge passes through a box, no edge label
    lies on a box, and each drawing has the highlighted dimensions it announces
    (broadcast-mismatch findings at least one);
  - the filter hides what it should;
  - the counts agree: the summary's with the entries listed and with the filter's
    total, what stopped a check (a file that cannot be read, an --input-shape that
    names no input) listed as the error it is counted as, with the `error` of
    --format json; each file headed with its counts ("1 warning", never "ok" over
    a finding); among several files, a clean one is a line;
  - a broadcast-mismatch drawing marks on each operand exactly the dimensions that
    cannot broadcast (aligned on the right, a 1 against any size is no conflict),
    as conflicts() derives them from the shapes (gen_nets.py's mismatch_* models).
Reports: one of each lint fixture, one of them all together, one of every model
under tests/models (subgraphs, functions, malformed files), one whose names hold
carriage returns, escape sequences, bidirectional overrides and bytes that are not
UTF-8 (checked for those escapes by name too), the 5,000-node network
with three planted mismatches and the 1,000-finding report of gen_nets.py, whose
size and opening time are printed (not asserted), and the report of 2,000 models
(gen_nets.py's zoo/), which must stay under ZOO_LIMIT, render cleanly and be captured. One screenshot per run is kept
as WORK/report.png.
"""
import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import websocket  # Debian python3-websocket
except ImportError:
    sys.exit("browser_test: python3-websocket is missing (make deps installs it)")

# Evaluated in each page: what the checks need, as one JSON-able object.
VERIFY = r"""
(() => {
  const inside = (p, r) => p.x > r.x + 1 && p.x < r.x + r.width - 1 && p.y > r.y + 1 && p.y < r.y + r.height - 1;
  const meets = (a, b) => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 &&
                          a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
  const out = {findings: [], stopped: [], problems: [], csp: null, script_ran: false, filter: null,
               files: [], summary: null, shown: null};
  // The summary's counts by their column heading.
  const sum = document.querySelector('#summary table');
  if (sum) {
    const heads = [...sum.rows[0].cells].map(c => c.textContent);
    out.summary = Object.fromEntries([...sum.rows[1].cells].map((c, i) => [heads[i], Number(c.textContent)]));
  }
  // Each file's heading, and its entries by severity; a clean file's line too.
  for (const el of document.querySelectorAll('section.file, p.file.clean')) {
    const by = {error: 0, warning: 0, note: 0};
    for (const li of el.querySelectorAll('li.finding')) by[li.dataset.severity]++;
    out.files.push({path: el.dataset.path, line: el.tagName === 'P', status: (el.querySelector('.status, h2 > span') || {textContent: null}).textContent,
                    by: by});
  }
  const meta = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
  out.csp = meta ? meta.content : null;
  const form = document.getElementById('filter');
  out.script_ran = !!form && !form.hidden;
  for (const sec of document.querySelectorAll('section.file')) {
    for (const li of sec.querySelectorAll('li.finding')) {
      if (li.dataset.stopped !== undefined) {
        out.stopped.push({path: sec.dataset.path, message: li.querySelector('.msg').textContent});
        continue;
      }
      const svg = li.querySelector('svg.hood');
      const f = {path: sec.dataset.path, severity: li.dataset.severity, code: li.dataset.code,
                 node: Number(li.dataset.node), graph: li.dataset.graph,
                 message: li.querySelector('.msg').textContent, drawn: !!svg, hl: 0, hl_said: 0, boxes: 0,
                 labels: []};
      out.findings.push(f);
      if (!svg) continue;
      const where = li.id;
      f.hl = svg.querySelectorAll('tspan.hl').length;
      f.hl_said = Number(svg.dataset.hl);
      // Each edge label's text and its highlighted [start, end) character ranges.
      for (const t of svg.querySelectorAll('text.label')) {
        const marks = [];
        let at = 0;
        for (const c of t.childNodes) {
          const len = c.textContent.length;
          if (c.nodeType === 1 && c.classList.contains('hl')) marks.push([at, at + len]);
          at += len;
        }
        f.labels.push([t.textContent, marks]);
      }
      const boxes = [...svg.querySelectorAll('g.box > rect')].map(r => r.getBBox());
      f.boxes = boxes.length;
      if (boxes.some(b => !(b.width > 0 && b.height > 0))) out.problems.push(where + ': a box was not laid out');
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++)
          if (meets(boxes[i], boxes[j])) out.problems.push(where + ': boxes ' + i + ' and ' + j + ' overlap');
      for (const p of svg.querySelectorAll('path.edge')) {
        const n = p.getTotalLength();
        for (let s = 0; s <= 40; s++) {
          const pt = p.getPointAtLength(n * s / 40);
          if (boxes.some(b => inside(pt, b))) { out.problems.push(where + ': an edge crosses a box'); break; }
        }
      }
      for (const t of svg.querySelectorAll('text.label')) {
        const b = t.getBBox();
        if (boxes.some(r => meets(b, r))) out.problems.push(where + ': label "' + t.textContent + '" on a box');
      }
    }
  }
  if (form) {
    const box = form.querySelector('input[name=severity][value=error]');
    const all = document.querySelectorAll('li.finding');
    const visible = () => [...all].filter(li => !li.hidden).length;
    box.click();
    const after = visible();
    box.click();
    out.shown = document.getElementById('shown').textContent;
    out.filter = {hidden_errors: after, not_errors: [...all].filter(li => li.dataset.severity !== 'error').length,
                  restored: visible(), all: all.length};
  }
  return out;
})()
"""


class Chromium:
    """One headless Chromium and its first page, over the DevTools protocol."""

    def __init__(self, binary, profile):
        self.profile = profile
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=" + profile,
             "--window-size=1280,900", "--hide-scrollbars", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromium did not start")
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port) as r:
            pages = [t for t in json.load(r) if t.get("type") == "page"]
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=120,
                                              suppress_origin=True)
        self.next_id = 0
        self.events = []
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")

    def call(self, method, **params):
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mine:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method):
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self.events.append(msg)

    def open(self, path):
        """Loads a file; returns (seconds to the load event, seconds to the first
        full layout, console errors)."""
        self.events = []
        start = time.monotonic()
        self.call("Page.navigate", url="file://" + os.path.abspath(path))
        self.wait_event("Page.loadEventFired")
        loaded = time.monotonic() - start
        self.evaluate("document.body.getBoundingClientRect().height")
        laid_out = time.monotonic() - start
        # Anything the page logs late (a refused script runs at parse time, so
        # nothing should): a short grace.
        self.evaluate("new Promise(r => setTimeout(r, 50))", await_promise=True)
        return loaded, laid_out, self.errors()

    def errors(self):
        errs = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                errs.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errs.append("console.%s: %s" % (p["type"], json.dumps(p.get("args"))[:300]))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                errs.append("log: " + p["entry"].get("text", "")[:300])
        return errs

    def evaluate(self, expr, await_promise=False):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=await_promise)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluation failed: %s" % json.dumps(r["exceptionDetails"])[:500])
        return r.get("result", {}).get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_tool(tool, fmt, models, out=None):
    """models: paths, and options before them (--static)."""
    r = subprocess.run([tool, "check", "-j", "2", "--format", fmt] + models, stdout=subprocess.PIPE)
    if r.returncode not in (0, 1, 2):
        sys.exit("browser_test: %s check --format %s failed (%d)" % (tool, fmt, r.returncode))
    if out:
        with open(out, "wb") as f:
            f.write(r.stdout)
    return r.stdout


# The characters the report shows as escapes: the controls, DEL, the C1 controls,
# the line and paragraph separators and the bidirectional formatting characters.
HIDDEN = set(range(0x20)) | {0x7F} | set(range(0x80, 0xA0)) | {0x61C, 0x200E, 0x200F} | \
    set(range(0x2028, 0x202F)) | set(range(0x2066, 0x206A))
SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def shown(text):
    """A string of --format json as the page shows it: each hidden character as the
    escape JSON writes for it."""
    return "".join(SHORT.get(c, "\\u%04x" % ord(c)) if ord(c) in HIDDEN else c for c in text)


def expected(tool, models):
    """The findings of --format json, as the page's tuples, and the document."""
    doc = json.loads(run_tool(tool, "json", models))
    got = []
    for f in doc["files"]:
        for d in f["diagnostics"]:
            node = d["node_index"] if d["node_index"] is not None else -1
            got.append((shown(f["path"]), d["severity"], d["code"], node, shown(d["graph"]), shown(d["message"])))
    return sorted(got), doc


def status_words(f):
    """A file's heading as --format json's counts say it: "unreadable", "ok", or
    "2 errors, 1 warning" (what stopped the check counts as one error)."""
    if f["status"] == "unreadable":
        return "unreadable"
    by = {"error": int(f["error"] is not None), "warning": 0, "note": 0}
    for d in f["diagnostics"]:
        by[d["severity"]] += 1
    words = ["%d %s%s" % (n, s, "" if n == 1 else "s") for s, n in by.items() if n]
    return ", ".join(words) or "ok"


def check_counts(res, doc):
    """The page's counts agree: the summary with the entries listed and the filter's
    total, each file's heading with its entries, what stopped a check with the
    `error` of --format json; a clean file among several is one line."""
    problems = []
    entries = len(res["findings"]) + len(res["stopped"])
    s = res["summary"] or {}
    said = sum(s.get(k, 0) for k in ("errors", "warnings", "notes"))
    if said != entries:
        problems.append("the summary counts %d findings, the page lists %d" % (said, entries))
    if res["shown"] is not None and not res["shown"].endswith(" of %d findings shown" % entries):
        problems.append("the filter says %r of %d entries" % (res["shown"], entries))
    stops = sorted((shown(f["path"]), shown(f["error"])) for f in doc["files"] if f["error"] is not None)
    got = sorted((x["path"], x["message"]) for x in res["stopped"])
    if stops != got:
        problems.append("what stopped the checks: page %s, json %s" % (got[:2], stops[:2]))
    pages = {f["path"]: f for f in res["files"]}
    for f in doc["files"]:
        page = pages.get(shown(f["path"]))
        if page is None:
            problems.append("%s: not on the page" % f["path"])
            continue
        want = status_words(f)
        if page["status"] != want:
            problems.append("%s: headed %r, its counts say %r" % (f["path"], page["status"], want))
        clean = want == "ok" and not f["diagnostics"]
        if page["line"] != (clean and len(doc["files"]) > 1):
            problems.append("%s: %s" % (f["path"], "a line, not a section" if page["line"] else
                                        "a section, not a line"))
    return problems


def conflicts(shapes):
    """Per operand, the dimensions where numpy broadcasting fails (broadcasting.md):
    aligned on the right, a result position conflicts where two operands' sizes
    other than 1 differ; each such operand's own index is marked."""
    rank = max(len(x) for x in shapes)
    marks = [set() for _ in shapes]
    for p in range(rank):
        at = [(i, x[p - (rank - len(x))]) for i, x in enumerate(shapes) if p - (rank - len(x)) >= 0]
        sizes = {v for _, v in at if v != 1}
        if len(sizes) > 1:
            for i, v in at:
                if v != 1:
                    marks[i].add(p - (rank - len(shapes[i])))
    return marks


def marked_dims(label, marks):
    """The dimension indices of "name (2, 4, 5)" that marks (character ranges) cover."""
    start = label.index("(") + 1
    dims = []
    for a, _ in marks:
        dims.append(label[start:a].count(","))
    return set(dims)


# Names that must not reach the page as they are, patched into the serialized model
# over placeholders of their length (protobuf's Python API refuses bytes that are not
# UTF-8): a carriage return, an escape sequence, a right-to-left override, bytes
# that are not UTF-8, CSI (U+009B), DEL, a newline and a tab; and a left-to-right
# isolate, the Arabic letter mark, a control and a line separator.
HOSTILE_NODE = b"a\r\x1b[31m\xe2\x80\xaeb\xff\xc2\x9b\nz\x7f\t!"
HOSTILE_INPUT = b"x\xe2\x81\xa6\xd8\x9c\xc3(\x01\xe2\x80\xa8"


def hostile_model(path):
    """Add of a (2, 3) and a (4, 5) input, node and input named with HOSTILE_*: a
    broadcast-mismatch naming both, drawn with both."""
    from onnx import TensorProto, helper
    node_ph, input_ph = "N" * len(HOSTILE_NODE), "I" * len(HOSTILE_INPUT)
    n = helper.make_node("Add", [input_ph, "b"], ["y"], name=node_ph)
    g = helper.make_graph([n], "g", [helper.make_tensor_value_info(input_ph, TensorProto.FLOAT, [2, 3]),
                                     helper.make_tensor_value_info("b", TensorProto.FLOAT, [4, 5])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    data = m.SerializeToString(deterministic=True)
    assert data.count(node_ph.encode()) == 1 and data.count(input_ph.encode()) == 2
    data = data.replace(node_ph.encode(), HOSTILE_NODE).replace(input_ph.encode(), HOSTILE_INPUT)
    with open(path, "wb") as f:
        f.write(data)


def check_hostile(browser, tool, work, failures):
    """The hostile names' report: the findings of --format json (check_report), and
    in the page's text, each hostile character as its JSON escape; no U+FFFD but
    for the bytes that are not UTF-8, and none of the characters themselves."""
    model = os.path.join(work, "hostile.onnx")
    hostile_model(model)
    res, _, _ = check_report(browser, tool, [model], os.path.join(work, "hostile.html"), failures,
                             "hostile names")
    text = browser.evaluate("document.body.innerText")
    messages = [f["message"] for f in res["findings"]]
    problems = []
    if "a\\r\\u001b[31m\\u202eb\ufffd\\u009b\\nz\\u007f\\t!" not in text:
        problems.append("the node's name is not shown with its escapes")
    if not any("x\\u2066\\u061c\ufffd(\\u0001\\u2028" in m for m in messages):
        problems.append("the message does not show the input's name with its escapes: %r" % messages[:1])
    # The names' two bytes that are not UTF-8 follow "b" and the Arabic letter mark.
    if re.search(r"(?<!b)(?<!\\u061c)\ufffd", text):
        problems.append("U+FFFD shown for something other than the bytes that are not UTF-8")
    raw = sorted({"U+%04X" % ord(c) for c in text if ord(c) in HIDDEN - {0x0A, 0x09}})
    if raw:
        problems.append("characters shown as they are: %s" % raw)
    for p in problems:
        print("    " + p)
    if problems:
        failures.append("hostile names")


def check_report(browser, tool, models, html, failures, label):
    run_tool(tool, "html", models, html)
    loaded, laid_out, errs = browser.open(html)
    res = browser.evaluate(VERIFY)
    problems = ["console: " + e for e in errs] + res["problems"]
    if not res["script_ran"]:
        problems.append("the filter script did not run (policy hash?)")
    if not res["csp"] or "'unsafe-inline'" in res["csp"] or "default-src 'none'" not in res["csp"]:
        problems.append("no strict Content-Security-Policy: %r" % res["csp"])
    page = sorted((f["path"], f["severity"], f["code"], f["node"], f["graph"], f["message"])
                  for f in res["findings"])
    want, doc = expected(tool, models)
    problems += check_counts(res, doc)
    if page != want:
        missing = [x for x in want if x not in page]
        extra = [x for x in page if x not in want]
        problems.append("findings differ from --format json: missing %s, extra %s" % (missing[:3], extra[:3]))
    for f in res["findings"]:
        where = "%s: %s at node %d" % (f["path"], f["code"], f["node"])
        if not f["drawn"] and (f["node"] >= 0 or f["code"] == "dynamic-shape"):
            problems.append(where + ": no drawing")
        if f["hl"] != f["hl_said"]:
            problems.append(where + ": %d highlighted dimensions drawn, %d announced" % (f["hl"], f["hl_said"]))
        if f["code"] == "broadcast-mismatch" and f["hl"] == 0:
            problems.append(where + ": the offending dimension is not highlighted")
    flt = res["filter"]
    if flt and (flt["hidden_errors"] != flt["not_errors"] or flt["restored"] != flt["all"]):
        problems.append("filter: %s" % flt)
    drawn = sum(f["drawn"] for f in res["findings"])
    print("%-34s %4d findings, %4d drawn, %2d stopped, %8.1f KB, load %.3f s, layout %.3f s%s" % (
        label, len(res["findings"]), drawn, len(res["stopped"]), os.path.getsize(html) / 1024, loaded, laid_out,
        "" if not problems else ": FAILED"))
    for p in problems[:20]:
        print("    " + p)
    if problems:
        failures.append(label)
    return res, loaded, laid_out


def tampered(browser, html, work, failures):
    """A copy whose script no longer matches its hash must log a refusal: proof
    that the console check sees policy violations."""
    text = open(html, encoding="utf-8").read()
    bad = os.path.join(work, "tampered.html")
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text.replace("'use strict';", "'use strict'; ", 1))
    _, _, errs = browser.open(bad)
    ran = browser.evaluate("!document.getElementById('filter').hidden")
    ok = errs and not ran
    print("%-34s %s" % ("tampered script", "refused and reported" if ok else "NOT REFUSED: FAILED"))
    if not ok:
        failures.append("tampered")


def check_mismatches(browser, tool, work, failures):
    """Each mismatch_* model: its broadcast-mismatch drawing marks on each operand's
    label exactly the dimensions conflicts() finds, the ones that cannot broadcast."""
    sys.path.insert(0, HERE)
    from gen_nets import MISMATCHES
    for name, (xs, ys) in sorted(MISMATCHES.items()):
        res, _, _ = check_report(browser, tool, [os.path.join(work, name + ".onnx")],
                                 os.path.join(work, name + ".html"), failures, name)
        want = conflicts([xs, ys])
        got = [None, None]
        for f in res["findings"]:
            if f["code"] != "broadcast-mismatch":
                continue
            for text, marks in f["labels"]:
                for i, operand in enumerate(("x (", "y (")):
                    if text.startswith(operand):
                        got[i] = marked_dims(text, marks)
        if got != want:
            print("    marked dimensions %s, conflicting %s" % (got, want))
            failures.append(name + " marks")


# A report of many models must stay small enough for a browser to open and capture.
ZOO_LIMIT = 10 * 1000 * 1000


def check_zoo(browser, tool, work, failures):
    """The report of 2,000 models (gen_nets.py's zoo/): under ZOO_LIMIT bytes, rendered
    cleanly (check_report lays out every drawing), and painted: a screenshot. Not
    of the whole page, which takes seconds alone and a minute on a loaded machine."""
    html = os.path.join(work, "zoo.html")
    zoo = [os.path.join(work, "zoo")]
    run_tool(tool, "html", zoo, html)
    size = os.path.getsize(html)
    print("2,000-model report: %.2f MB (limit %.0f MB)" % (size / 1e6, ZOO_LIMIT / 1e6))
    if size >= ZOO_LIMIT:
        failures.append("2,000 models: %d bytes" % size)
        return  # opening it would only take minutes more
    check_report(browser, tool, zoo, html, failures, "2,000 models")
    start = time.monotonic()
    try:
        browser.screenshot(os.path.join(work, "zoo.png"))
    except (RuntimeError, websocket.WebSocketException) as e:
        print("    not captured: %s" % e)
        failures.append("2,000 models: capture")
        return
    print("2,000-model report captured in %.2f s" % (time.monotonic() - start))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--lint", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    a = ap.parse_args()
    if not os.path.exists(a.chromium):
        sys.exit("browser_test: chromium is missing (make deps installs Debian's chromium)")
    os.makedirs(a.work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_nets.py"), a.work], check=True)
    fixtures = sorted(os.path.join(a.lint, n) for n in os.listdir(a.lint) if n.endswith(".onnx"))
    failures = []
    profile = tempfile.mkdtemp(prefix="osh-chromium-")
    browser = Chromium(a.chromium, profile)
    try:
        for m in fixtures:
            name = os.path.basename(m)[:-5]
            check_report(browser, a.tool, [m], os.path.join(a.work, name + ".html"), failures, name)
        # Findings about a value and no node (a graph input's), drawn around the value.
        check_report(browser, a.tool, ["--static", os.path.join(a.lint, "dynamic_shape.onnx")],
                     os.path.join(a.work, "dynamic_shape_static.html"), failures, "dynamic_shape --static")
        allin = os.path.join(a.work, "lint.html")
        check_report(browser, a.tool, fixtures, allin, failures, "all lint fixtures")
        browser.screenshot(os.path.join(a.work, "report.png"))
        tampered(browser, allin, a.work, failures)
        # Every fixture of the tests: subgraphs, functions, malformed and hostile
        # models, findings with no node.
        check_report(browser, a.tool, [os.path.dirname(os.path.abspath(a.lint))],
                     os.path.join(a.work, "models.html"), failures, "all of tests/models")
        check_hostile(browser, a.tool, a.work, failures)
        res, _, _ = check_report(browser, a.tool, [os.path.join(a.work, "big.onnx")],
                                 os.path.join(a.work, "big.html"), failures, "5,000 nodes, 3 planted")
        planted = [f for f in res["findings"] if f["code"] == "broadcast-mismatch"]
        if len(planted) != 3 or len(res["findings"]) != 3:
            print("    expected exactly the 3 planted mismatches, found %d findings" % len(res["findings"]))
            failures.append("planted")
        check_mismatches(browser, a.tool, a.work, failures)
        # What stopped a check (a name --input-shape does not find, a file that
        # cannot be read) is counted as an error and listed as one.
        check_report(browser, a.tool, ["--input-shape", "q:3", os.path.join(a.lint, "legacy_broadcast_attr.onnx"),
                                       os.path.join(a.lint, "same_size_broadcast.onnx"),
                                       os.path.join(os.path.dirname(os.path.abspath(a.lint)), "bad", "truncated.onnx")],
                     os.path.join(a.work, "stopped.html"), failures, "--input-shape refused")
        check_zoo(browser, a.tool, a.work, failures)
        many = os.path.join(a.work, "many.html")
        res, loaded, laid_out = check_report(browser, a.tool, [os.path.join(a.work, "many.onnx")], many,
                                             failures, "1,000 findings")
        print("1,000-finding report: %.2f MB, opened in %.3f s (load event), %.3f s (laid out)" % (
            os.path.getsize(many) / 1e6, loaded, laid_out))
        if len(res["findings"]) != 1000:
            failures.append("1,000 findings")
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    print("screenshot: " + os.path.join(a.work, "report.png"))
    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    print("all reports render cleanly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
