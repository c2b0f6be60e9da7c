#!/usr/bin/python3
"""check_includes.py: the include graph of src/ goes one way, and every folder says
what it is.

usage: check_includes.py SRC_DIR

Each folder of src/ is a stage, ranked from the bottom: core (with core/schema), io
(the input and output devices), loader, emit, passes, api (the public functions), cli. A file may include files of its own folder and of folders
below it; an include of a folder above is an error, and so is a circle of includes.
A rule (passes/rules) sees the passes through its rule API alone: of passes/ it may
include rule_api/rule_api.h and bcast/, and nothing of the pass (passes/infer).
The passes' order is written out in passes/pipeline.c alone: no other file of the
stages (core, io, loader, emit, passes) calls its entry points (pipeline_infer...), which
would run a pipeline inside a stage; and no file of the stages calls an osh_*
function: the public API is defined in api/ for its clients.
Every folder has a README.md whose first line is "# FOLDER: what it is", and no file
of src/, include/, tests/ or bench/ cites an issue number, and the library reads the environment in core/tuning.c
alone. Prints the
graph's size and every violation; exits 1 on any.
"""
import os
import re
import sys

RANK = {"core": 0, "io": 1, "loader": 2, "emit": 3, "passes": 4, "api": 5, "cli": 6}
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')
ISSUE = re.compile(r"\b[Ii]ssues? #?\d")
RUNS_PASSES = re.compile(r"\b(pipeline_infer|pipeline_lint|pipeline_rewrite|pipeline_annotate)\s*\(")
API_CALL = re.compile(r"\bosh_[a-z_]+\s*\(")
# Headers the build writes, counted as files of the folder they are named in (an
# include of one is held to the folders' order like any other): the rule prototypes
# of passes/rules/gen_rule_protos.cmake, which include rule_api.h alone.
GENERATED = {"passes/rules/rule_protos.h"}
# Comments, string and character literals: a name in them is no call.
NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def stage(src, path):
    rel = os.path.relpath(path, src).split(os.sep)
    return rel[0]


def main():
    src = sys.argv[1]
    edges, problems = {}, []
    for folder, dirs, files in os.walk(src):
        rel = os.path.relpath(folder, src)
        if rel != ".":
            readme = os.path.join(folder, "README.md")
            name = rel.replace(os.sep, "/")
            first = open(readme).readline().strip() if os.path.exists(readme) else ""
            if not first.startswith("# %s: " % name):
                problems.append("%s: no README.md opening with '# %s: ...'" % (name, name))
        for f in files:
            if not f.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(folder, f)
            targets = set()
            for line in open(path, errors="replace"):
                m = INCLUDE.match(line)
                if not m:
                    continue
                for base in (src, folder):
                    cand = os.path.normpath(os.path.join(base, m.group(1)))
                    if os.path.exists(cand):
                        targets.add(cand)
                        break
                else:
                    if m.group(1) in GENERATED:
                        targets.add(os.path.normpath(os.path.join(src, m.group(1))))
            edges[os.path.normpath(path)] = targets
    for a, targets in sorted(edges.items()):
        for b in sorted(targets):
            sa, sb = stage(src, a), stage(src, b)
            if sa in RANK and sb in RANK and RANK[sb] > RANK[sa]:
                problems.append("%s includes %s: %s is above %s" % (os.path.relpath(a, src), os.path.relpath(b, src),
                                                                    sb, sa))
    rules = os.path.normpath(os.path.join(src, "passes", "rules"))
    rule_api = os.path.normpath(os.path.join(src, "passes", "rule_api"))
    for a, targets in sorted(edges.items()):
        if os.path.dirname(a) != rules:
            continue
        for b in sorted(targets):
            d = os.path.dirname(b)
            if d.startswith(os.path.normpath(os.path.join(src, "passes"))) and d not in (
                    rules, rule_api, os.path.normpath(os.path.join(src, "passes", "bcast"))):
                problems.append("%s includes %s: a rule sees the passes through rule_api/ and bcast/ only" %
                                (os.path.relpath(a, src), os.path.relpath(b, src)))
            elif d == rule_api and os.path.basename(b) != "rule_api.h":
                problems.append("%s includes %s: a rule sees rule_api/ through rule_api.h only" %
                                (os.path.relpath(a, src), os.path.relpath(b, src)))
    pipeline = os.path.normpath(os.path.join(src, "passes", "pipeline.c"))
    header = os.path.join(os.path.dirname(os.path.normpath(src)), "include", "onnxshape.h")
    api = set(re.findall(r"OSH_API[^;(]*?\b(osh_[a-z_]+)\s*\(", open(header).read()))
    for a in sorted(edges):
        if stage(src, a) not in ("core", "io", "loader", "emit", "passes"):
            continue
        code = NOT_CODE.sub(lambda m: "\n" * m.group(0).count("\n"), open(a, errors="replace").read())
        for m in RUNS_PASSES.finditer(code):
            if a == pipeline or a.endswith("pipeline.h"):
                continue
            line = code.count("\n", 0, m.start()) + 1
            problems.append("%s:%d calls %s: only passes/pipeline.c runs passes" % (os.path.relpath(a, src), line,
                                                                                 m.group(1)))
        if not a.endswith(".c"):
            continue
        for m in API_CALL.finditer(code):
            if m.group(0).rstrip("( ") not in api:
                continue
            line = code.count("\n", 0, m.start()) + 1
            problems.append("%s:%d names %s: the public API is defined in api/ and called by its clients, "
                            "never by a stage" % (os.path.relpath(a, src), line, m.group(0).rstrip("( ")))
    # The library reads the environment in one place (core/tuning.c, documented in
    # tuning.h); the command line reads its own.
    tuning = os.path.normpath(os.path.join(src, "core", "tuning.c"))
    for a in sorted(edges):
        if stage(src, a) == "cli" or a == tuning:
            continue
        code = NOT_CODE.sub(lambda m: "\n" * m.group(0).count("\n"), open(a, errors="replace").read())
        for m in re.finditer(r"\b(secure_)?getenv\s*\(", code):
            problems.append("%s:%d reads the environment: only core/tuning.c does" %
                            (os.path.relpath(a, src), code.count("\n", 0, m.start()) + 1))
    # The tree has no issue tracker: a comment that cites one tells a reader nothing.
    root = os.path.dirname(os.path.normpath(src))
    for top in ("src", "include", "tests", "bench"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith((".c", ".h", ".def", ".py", ".sh", ".js")):
                    continue
                path = os.path.join(folder, f)
                for k, line in enumerate(open(path, errors="replace"), 1):
                    if ISSUE.search(line):
                        problems.append("%s:%d cites an issue number: say why instead" %
                                        (os.path.relpath(path, root), k))
    # Circles: a depth-first search over the graph.
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(edges.get(u, ())):
            if state.get(v) == 1:
                circle = stack[stack.index(v):] + [v]
                problems.append("circle: " + " -> ".join(os.path.relpath(x, src) for x in circle))
            elif not state.get(v):
                visit(v)
        stack.pop()
        state[u] = 2

    sys.setrecursionlimit(100000)
    for u in sorted(edges):
        if not state.get(u):
            visit(u)
    nedges = sum(len(t) for t in edges.values())
    print("%d files, %d includes; stages from the bottom: %s" % (len(edges), nedges, ", ".join(sorted(RANK, key=RANK.get))))
    for p in problems:
        print("FAIL:", p)
    print("ok" if not problems else "%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
