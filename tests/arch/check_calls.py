#!/usr/bin/python3
"""check_calls.py: the calls between the files of src/ go one way, as the includes do.

usage: check_calls.py OBJECTS_LIST

OBJECTS_LIST names the library's and the CLI's object files, separated by ';' or
newlines (CMake writes it: $<TARGET_OBJECTS:...>). Each object's symbols, read with
`nm`, say which file defines a function or datum and which files use it: an edge
from user to definer. The include check (check_includes.py) cannot see a call
declared in a header of a lower folder and defined in a higher one; this does. It
fails on
  - a call from a stage to one above it (core, io, loader, emit, passes, api, cli from the
    bottom), and
  - a circle of calls between folders (passes/infer and passes/rules are two), and
  - a circle of files, across folders or inside one: the files of a folder call one
    way among themselves too, so that each can be read knowing only those it calls.
Prints the graph's size and each violation with the calls that make it; exits 1 on
any.
"""
import collections
import os
import re
import subprocess
import sys

RANK = {"core": 0, "io": 1, "loader": 2, "emit": 3, "passes": 4, "api": 5, "cli": 6}


def source_of(obj):
    """src/passes/infer/infer.c for .../onnxshape_objects.dir/src/passes/infer/infer.c.o."""
    m = re.search(r"\.dir/(?:__/)*(src/.*)\.o$", obj.replace(os.sep, "/"))
    return m.group(1) if m else None


def symbols(objects):
    defs, uses = {}, collections.defaultdict(set)
    for obj in objects:
        src = source_of(obj)
        if not src:
            continue
        out = subprocess.run(["nm", "-P", obj], stdout=subprocess.PIPE, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            name, kind = parts[0], parts[1]
            if kind in "TDBRVW":
                defs[name] = src
            elif kind == "U":
                uses[src].add(name)
    return defs, uses


def circles(adj):
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in sorted(adj):
        if root in index:
            continue
        work = [(root, iter(sorted(adj.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(adj.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    text = open(sys.argv[1]).read()
    objects = [o for o in re.split(r"[;\n]", text) if o.strip()]
    defs, uses = symbols(objects)
    calls = collections.defaultdict(set)  # (from file, to file) -> symbols
    for f, names in uses.items():
        for s in names:
            if s in defs and defs[s] != f:
                calls[(f, defs[s])].add(s)
    if not calls:
        print("FAIL: no calls found in %d objects" % len(objects))
        return 1
    folder = os.path.dirname
    stage = lambda f: f.split("/")[1]  # noqa: E731
    problems = []
    for (a, b), names in sorted(calls.items()):
        if RANK.get(stage(b), 0) > RANK.get(stage(a), 0):
            problems.append("%s calls %s (%s): %s is above %s" % (a, b, ", ".join(sorted(names)), stage(b), stage(a)))
    fadj = collections.defaultdict(set)
    for a, b in calls:
        if folder(a) != folder(b):
            fadj[folder(a)].add(folder(b))
    for comp in circles(fadj):
        lines = ["  %s -> %s: %s" % (a, b, ", ".join(sorted(n)[:4]))
                 for (a, b), n in sorted(calls.items()) if folder(a) in comp and folder(b) in comp and folder(a) != folder(b)]
        problems.append("a circle of calls between folders %s:\n%s" % (", ".join(comp), "\n".join(lines[:40])))
    adj = collections.defaultdict(set)
    for a, b in calls:
        adj[a].add(b)
    for comp in circles(adj):
        if len({folder(f) for f in comp}) > 1:
            problems.append("a circle of calls across folders: %s" % " ".join(comp))
        else:
            lines = ["  %s -> %s: %s" % (a, b, ", ".join(sorted(n)[:4]))
                     for (a, b), n in sorted(calls.items()) if a in comp and b in comp]
            problems.append("a circle of calls inside %s:\n%s" % (folder(comp[0]), "\n".join(lines)))
    nfiles = len({f for pair in calls for f in pair})
    print("%d files, %d caller-callee pairs of files, %d objects" % (nfiles, len(calls), len(objects)))
    for p in problems:
        print("FAIL:", p)
    print("ok" if not problems else "%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
