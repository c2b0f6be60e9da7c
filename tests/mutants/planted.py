#!/usr/bin/python3
"""planted.py: bugs planted one at a time into a copy of the tree; the suite must
catch each.

    python3 tests/mutants/planted.py [WORK_DIR] [--ctest REGEX] [--data-from BUILD]
    (make mutants; ctest mutants/planted in make test)

Each mutant below is a small edit of one source file that breaks a rule the tests
are meant to hold, of the kind a refactor or a hurried fix makes: a check removed, a
default changed, two arguments swapped, a stage skipped. The tree's tracked and new
files are copied into WORK_DIR/tree (default: build/mutants), built once in
WORK_DIR/build (only the targets the mutants' tests run: a unit test's own binary,
the tool for the others), then for each mutant the edit is made, those targets
rebuilt and ctest run over the tests that own that code; a mutant the suite passes
is a hole in the tests. The test data and the ONNX Runtime oracle come from the
build given by --data-from (default: build), linked, not copied. The edit is undone before the next. Prints one line per mutant
(caught by which test, or SURVIVED); exits 1 if any survives or an edit no longer
applies (the code it plants into has changed: update the mutant).
"""
import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (name, file, text, replacement, tests that should catch it)
MUTANTS = [
    ("SwiGLU's rank check removed", "src/passes/rules/rules_elementwise.c",
     "if (a && b && a->rank != b->rank) {", "if (0) {", "unit/test_rules_elementwise"),
    ("Clip-11's min and max swapped", "src/passes/rules/rules_elementwise.c",
     'static const char *const names[] = {NULL, "min", "max"};',
     'static const char *const names[] = {NULL, "max", "min"};', "unit/test_rules_elementwise"),
    ("Concat-4's required axis defaulted", "src/passes/rules/rules_tensor_index.c",
     'if (!attr_has(c, "axis")) {', "if (0) {", "unit/test_rules_tensor_index"),
    ("Concat-1's default axis changed", "src/passes/rules/rules_tensor_index.c",
     'concat_rule(c, attr_i(c, "axis", 1));', 'concat_rule(c, attr_i(c, "axis", 0));',
     "unit/test_rules_tensor_index"),
    ("BiasSplitGelu's even-width check removed", "src/passes/rules/rules_ms_fused.c",
     "if (d[2].kind == DIM_KNOWN && d[2].v % 2 != 0) {", "if (0) {", "unit/test_rules_ms_fused"),
    ("A second explicit round after the first's re-inference", "src/passes/pipeline.c",
     '\t{"explicit", stage_explicit, false, true},\n',
     '\t{"explicit", stage_explicit, false, true},\n\t{"reindex", stage_reindex, true, false},\n'
     '\t{"infer", stage_infer, true, false},\n\t{"lint", stage_lint, true, false},\n'
     '\t{"describe", stage_describe, true, false},\n\t{"value-info", stage_value_info, true, false},\n'
     '\t{"explicit", stage_explicit, true, true},\n', "explicit/ort-proof"),
]


def run(cmd, cwd, quiet=True):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE if quiet else None,
                          stderr=subprocess.STDOUT if quiet else None, text=True)


def copy_tree(dst):
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, stdout=subprocess.PIPE,
                           text=True, check=True).stdout.split("\n")
    for f in files:
        if not f or not os.path.isfile(os.path.join(ROOT, f)):
            continue
        out = os.path.join(dst, f)
        src = os.path.join(ROOT, f)
        if os.path.exists(out) and open(out, "rb").read() == open(src, "rb").read():
            continue
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copy2(src, out)


def targets_of(tests):
    """The build targets ctest needs to run these tests: a unit test's binary is
    named after it; every other test runs the tool."""
    out = set()
    for t in tests.split("|"):
        out.add(t.split("/", 1)[1] if t.startswith("unit/test_") else "onnxshape_cli")
    return sorted(out)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("work", nargs="?", default=os.path.join(ROOT, "build", "mutants"))
    ap.add_argument("--ctest", help="run these tests for every mutant instead of each mutant's own")
    ap.add_argument("--data-from", default=os.path.join(ROOT, "build"))
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args(argv[1:])
    targets = targets_of("|".join(args.ctest or t for _, _, _, _, t in MUTANTS))
    tree, build = os.path.join(args.work, "tree"), os.path.join(args.work, "build")
    copy_tree(tree)
    # The test data and the oracle the main build has unpacked and installed.
    for d in ("ort", "corpus", "corpus123", "onnx-docs", "real"):
        src, dst = os.path.join(os.path.abspath(args.data_from), d), os.path.join(build, d)
        if os.path.isdir(src) and not os.path.exists(dst):
            os.makedirs(build, exist_ok=True)
            os.symlink(src, dst)
    if run(["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DONNXSHAPE_TESTS=ON"],
           ROOT).returncode:
        print("planted.py: cmake failed")
        return 2
    make = ["cmake", "--build", build, "-j%d" % args.j, "--target"] + targets
    if run(make, ROOT).returncode:
        print("planted.py: the unmutated tree does not build")
        return 2
    bad = 0
    for name, path, text, repl, tests in MUTANTS:
        f = os.path.join(tree, path)
        orig = open(f).read()
        if orig.count(text) != 1:
            print("STALE     %s: the text to plant into is not once in %s" % (name, path))
            bad += 1
            continue
        open(f, "w").write(orig.replace(text, repl))
        try:
            b = run(make, ROOT)
            if b.returncode:
                print("STALE     %s: the mutant does not build" % name)
                bad += 1
                continue
            res = run(["ctest", "--test-dir", build, "-j%d" % args.j, "-R", args.ctest or tests], ROOT)
            failed = [line.split("-", 1)[1].strip() for line in res.stdout.splitlines()
                      if line.strip()[:1].isdigit() and " - " in line and "(" in line]
            if res.returncode and "No tests were found" not in res.stdout:
                print("caught    %s: by %s" % (name, ", ".join(failed) or "ctest"))
            else:
                print("SURVIVED  %s (ran %s)" % (name, args.ctest or tests))
                bad += 1
        finally:
            open(f, "w").write(orig)
            os.utime(f)
    run(make, ROOT)
    print("%d mutants, %d survived or stale" % (len(MUTANTS), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
