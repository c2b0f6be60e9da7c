#!/usr/bin/python3
"""doc_test.py: the command blocks of README.md and docs/*.md, run and compared.

    doc_test.py --tool ONNXSHAPE --root REPO [--work DIR] [FILE.md...]

The convention, for whoever writes the docs:
  - A ```console block is a terminal session: each line that starts with "$ " is a
    command (run by sh, with the built onnxshape first on PATH, stdout and stderr
    together as a terminal shows them), and the lines up to the next command are
    what it prints. A line "..." (indented or not) stands for any number of lines the
    doc leaves out.
  - The block runs in a fresh copy of the directory of the fixture it names (a
    *.onnx file the repository holds under tests/), so that commands may write
    files and paths print as the doc shows them. A comment on the line before the
    fence says where when the block names no fixture or one several directories
    hold:  <!-- doc-test: cd tests/models/examples -->
  - A block that cannot run here says why, on the line before its fence:
    <!-- doc-test: skip: REASON -->
  - A ```console block that runs nothing and has no skip marker fails, as does an
    untagged block whose lines start with "$ onnxshape": tag it console.
Other blocks (sh, python, json, c, untagged output) are instructions or excerpts and
are not run.

Normalised before comparing, and nothing else: the copy's absolute path and the
repository's (shown as the relative path the doc uses), and times ("12.345 ms",
"0.491 us") shown as "N ms" on both sides. A difference fails with a unified diff
of the doc's text against the tool's, per block, with the file and line: fix the
doc, unless the tool is wrong.
"""
import argparse
import difflib
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MARKER = re.compile(r"^<!--\s*doc-test:\s*(cd\s+(?P<cd>\S+)|skip:\s*(?P<skip>.+?))\s*-->\s*$")
FENCE = re.compile(r"^```(?P<tag>\S*)\s*$")
FIXTURE = re.compile(r"[\w./-]+\.onnx\b")
TIME = re.compile(r"\b\d+(\.\d+)?\s?(ms|us|s)\b")
COMMAND_TIMEOUT = 60


class Block:
    def __init__(self, path, line, tag, lines, marker):
        self.path, self.line, self.tag, self.lines = path, line, tag, lines
        self.cd = marker.group("cd") if marker else None
        self.skip = marker.group("skip") if marker else None

    def where(self):
        return "%s:%d" % (self.path, self.line)

    def session(self):
        """[(command, [expected output lines])]."""
        out = []
        for l in self.lines:
            if l.startswith("$ "):
                out.append((l[2:], []))
            elif out:
                out[-1][1].append(l)
        return out


def blocks(root, path):
    lines = open(os.path.join(root, path), encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        marker = MARKER.match(lines[i - 1]) if i else None
        yield Block(path, i + 1, m.group("tag"), lines[i + 1:j], marker)
        i = j + 1


def fixture_dirs(root):
    """basename or relative path of every .onnx under tests/ -> the directories that
    hold it under that name."""
    index = {}
    for d, _, files in os.walk(os.path.join(root, "tests")):
        for f in files:
            if f.endswith(".onnx"):
                index.setdefault(f, set()).add(os.path.relpath(d, root))
    return index


def where_to_run(block, index):
    """(directory relative to root, None) or (None, why it cannot be told)."""
    if block.cd:
        return block.cd, None
    dirs = None
    for cmd, _ in block.session():
        for name in FIXTURE.findall(cmd):
            sub = os.path.dirname(os.path.normpath(name))
            # The directories where the name, as the command spells it, is a file
            # of the repository; a name the commands make (fixed.onnx) is none and
            # does not narrow the choice.
            holders = {os.path.normpath(d[:len(d) - len(sub)]) for d in index.get(os.path.basename(name), ())
                       if not sub or d == sub or d.endswith(os.sep + sub)}
            if holders:
                dirs = holders if dirs is None else dirs & holders
    if dirs is None:
        return None, "names no fixture of tests/ (add <!-- doc-test: cd DIR --> or <!-- doc-test: skip: why -->)"
    if len(dirs) != 1:
        return None, "its fixtures are in %s: say which with <!-- doc-test: cd DIR -->" % (sorted(dirs) or "no one directory")
    return dirs.pop(), None


def normalise(text, paths):
    for p, shown in paths:
        text = text.replace(p + "/", shown).replace(p, shown.rstrip("/") or ".")
    return TIME.sub(lambda m: "N " + m.group(2), text)


def matches(want, got):
    """Whether got fits want, where a line "..." in want stands for any lines."""
    if not want:
        return not got
    if want[0].strip() == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and want[0] == got[0] and matches(want[1:], got[1:])


def run_block(block, tool_dir, root, where, work):
    """The block's commands in a copy of where; [] or the lines of a failure."""
    copy = tempfile.mkdtemp(prefix="doc-", dir=work)
    shutil.rmtree(copy)
    shutil.copytree(os.path.join(root, where), copy, symlinks=True)
    env = dict(os.environ, PATH=tool_dir + os.pathsep + os.environ.get("PATH", ""))
    # Colours are for terminals; a doc shows none.
    env["NO_COLOR"] = "1"
    env.pop("CLICOLOR_FORCE", None)
    want_all, got_all = [], []
    ok = True
    paths = [(os.path.realpath(copy), ""), (copy, ""), (os.path.realpath(root), ""), (root, "")]
    for cmd, want in block.session():
        try:
            r = subprocess.run(["sh", "-c", "exec 2>&1\n" + cmd], cwd=copy, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, timeout=COMMAND_TIMEOUT)
            got = normalise(r.stdout.decode("utf-8", "replace"), paths).split("\n")
        except subprocess.TimeoutExpired:
            got = ["(timed out after %d s)" % COMMAND_TIMEOUT, ""]
        if got and got[-1] == "":
            got.pop()
        want_n = [normalise(l, paths) for l in want]
        ok = ok and matches(want_n, got)
        want_all += ["$ " + cmd] + want_n
        got_all += ["$ " + cmd] + got
    shutil.rmtree(copy, ignore_errors=True)
    if ok:
        return []
    diff = difflib.unified_diff(want_all, got_all, "%s (the doc)" % block.where(), "the tool, run in " + where,
                                lineterm="", n=2)
    return list(diff)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    tool = os.path.abspath(a.tool)
    # PATH must find it as "onnxshape", whatever the build named the file.
    bindir = tempfile.mkdtemp(prefix="doc-bin-")
    os.symlink(tool, os.path.join(bindir, "onnxshape"))
    work = a.work or tempfile.mkdtemp(prefix="doc-work-")
    os.makedirs(work, exist_ok=True)
    files = a.files or ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    index = fixture_dirs(root)
    failures, ran, skipped = [], 0, []
    try:
        for path in files:
            for b in blocks(root, path):
                has_cmd = any(l.startswith("$ ") for l in b.lines)
                if b.tag == "" and any(l.startswith("$ ") and "onnxshape" in l for l in b.lines):
                    failures.append((b, ["a terminal session in an untagged block: tag it ```console"]))
                    continue
                if b.tag != "console":
                    continue
                if b.skip:
                    skipped.append((b, b.skip))
                    continue
                if not has_cmd:
                    failures.append((b, ["a console block with no \"$ \" command"]))
                    continue
                where, why = where_to_run(b, index)
                if why:
                    failures.append((b, [why]))
                    continue
                if not os.path.isdir(os.path.join(root, where)):
                    failures.append((b, ["no directory %s" % where]))
                    continue
                ran += 1
                problem = run_block(b, bindir, root, where, work)
                if problem:
                    failures.append((b, problem))
    finally:
        shutil.rmtree(bindir, ignore_errors=True)
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    for b, why in skipped:
        print("skipped %s: %s" % (b.where(), why))
    for b, lines in failures:
        print("\nFAILED %s%s:" % (b.where(), " (- the doc, + the tool: fix the doc, unless the tool is wrong)"
                                   if lines and lines[0].startswith("---") else ""))
        for l in lines:
            print("    " + l)
    print("\n%d blocks run, %d skipped, %d failed" % (ran, len(skipped), len(failures)))
    if not ran:
        print("no block ran: the convention or the docs changed")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
