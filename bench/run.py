#!/usr/bin/python3
"""run.py: onnxshape against onnx's Python tools, speed and peak memory.

usage: run.py ONNXSHAPE BUILD_DIR
environment:
  BENCH_QUICK=1        1k-node models and 3 runs: under a minute
  BENCH_SIZES=1k,10k   node counts (default 1k,10k,100k,1m)
  BENCH_FAMILIES=...   transformer,cnn (default both)
  BENCH_BIG=SPEC,...   extra models in gen_models.py's FAMILY:NODES:WIDTH form (default
                       transformer:1k:d1024, 1.3 GB of weights; none when quick; "" none)
  BENCH_ZOO=NAME,...   classic networks rebuilt by gen_zoo.py (default resnet50,densenet121,
                       inception_v1; none when quick; "" none)
  BENCH_RUNS=N         runs per onnxshape tool and model (default 9; 5 at 1M nodes)
  BENCH_PY_RUNS=N      runs per Python tool (default 5; 3 at 100k nodes, 1 at 1M nodes, where
                       each takes up to a minute)
  BENCH_PY_MAX=N       skip onnx's Python tools on models of more than N nodes
                       (default 1000000: all)
  BENCH_LEGACY=1k,...  sizes of gen_legacy.py's models, which rewrite has something to
                       rewrite in (default 1k,10k,100k; 1k when quick; "" none)
  BENCH_FOLD=1k,...    sizes of the inline transformer models `rewrite --fold-shapes` is
                       timed on beside `infer` (default 100k; 1k when quick; "" none)
  BENCH_CORPUS=0       skip the ONNX backend node-test corpus
  BENCH_KEEP=0         delete the generated models (some GB) at the end

Models are generated (bench/gen_models.py and bench/gen_zoo.py, seeded) into
BUILD_DIR/bench/models and kept there for the next run. For each model, inline weights and external data, the
tools run in rounds, BENCH_RUNS times, each round in a seeded shuffled order: the
figures are medians. The output
files are deleted before each run and the input (with its external data) is made
resident in the page cache (warm), both outside the timing. Each tool is its own process;
wall time is measured around it, CPU time is its user + system time (os.wait4), and
peak RSS comes from one more run under /usr/bin/time (see run_once). The Python side
is `onnx.load + infer_shapes + onnx.save` and
`onnx.load + checker.check_model(full_check=True)` (bench/py_tools.py); its wall time
includes starting Python and importing onnx, which its "op" column leaves out.

Prints one table: per model and tool the median wall time and peak RSS, the ratios
Python / onnxshape, onnxshape's time per node and RSS / file size; then the scaling
(time per node across sizes) and the corpus.
"""
import atexit
import mmap
import os
import random
import select
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # the Python with onnx (not the pyenv one on PATH)


RSS_FILE = os.path.join(tempfile.gettempdir(), "osh-bench-rss-%d" % os.getpid())


def remove_rss_file():
    if os.path.exists(RSS_FILE):
        os.unlink(RSS_FILE)


atexit.register(remove_rss_file)


def read_both(p):
    """p's stdout and stderr to their ends, read as they come: a tool that fills one
    pipe while the other is read to its end waits forever (`infer` of a legacy model
    prints a note per node to stderr). Not communicate(): it reaps the process, whose
    resource usage wait4 then could not get."""
    fds = {p.stdout.fileno(): [], p.stderr.fileno(): []}
    live = list(fds)
    while live:
        for fd in select.select(live, [], [])[0]:
            chunk = os.read(fd, 1 << 16)
            if chunk:
                fds[fd].append(chunk)
            else:
                live.remove(fd)
    return b"".join(fds[p.stdout.fileno()]), b"".join(fds[p.stderr.fileno()])


def run_once(argv, with_rss, cwd=None):
    """(wall seconds, peak RSS bytes or None, exit status, stdout, cpu seconds) of one
    process: the tool itself, or, with_rss, the tool under /usr/bin/time.

    Peak RSS comes from /usr/bin/time (%M), which runs the tool as its own child: the
    ru_maxrss of a child of this Python process would count the Python image it was
    forked from (the kernel carries the high-water mark across exec). But starting
    /usr/bin/time costs about 2 ms of wall and CPU time (measured: /bin/true alone
    0.9 ms, under /usr/bin/time 2.3 ms), two thirds of a 1k-node check: so the timed
    runs start the tool directly, and the peak RSS comes from a run of its own. CPU
    time is the child's user + system time from wait4."""
    t0 = time.perf_counter()
    p = subprocess.Popen((["/usr/bin/time", "-f", "%M", "-o", RSS_FILE] if with_rss else []) + argv, cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = read_both(p)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):
        sys.stderr.write("  %s: exit %d: %s\n" % (" ".join(argv), p.returncode, err.decode()[-400:]))
    rss = None
    if with_rss:
        with open(RSS_FILE) as f:
            rss = int(f.read().split()[-1]) * 1024
    return wall, rss, p.returncode, out.decode() + err.decode(), ru.ru_utime + ru.ru_stime


# madvise(MADV_POPULATE_READ), Linux 5.14; Python's mmap module does not name it.
MADV_POPULATE_READ = 22


def warm(paths):
    """Makes every page of each file resident in the page cache, outside the timing.

    This machine runs DAMON with a pageout scheme (kdamond: file pages not accessed for
    6 s are reclaimed, up to 128 MB a second), and a model left alone while another
    tool runs is partly read back from disk by the next one: transformer-100k lost
    3 MB of its 133 MB within 20 s, cnn-1m had 464 MB of its 1.4 GB resident, and the
    first infer of transformer-1m after a pause spent 1.26 s in its first pass over
    the file instead of 0.17 s. Each run, onnxshape's and onnx's alike, starts with
    its input (and external data) in memory. Mapping and populating touches no data,
    so the CPU caches are left as another process would find them."""
    for path in paths:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                continue
            with mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ) as m:
                try:
                    m.madvise(MADV_POPULATE_READ)
                except OSError:  # an older kernel: read a byte of every page instead
                    for off in range(0, size, mmap.PAGESIZE):
                        m[off]


def op_seconds(out):
    """The time inside the tool's own work: py_tools.py's "op_seconds S" line, or the
    "T ms in all" of onnxshape's --timings line (from loading until the tool is done
    with the model, which it leaves to the process's exit; without starting and ending
    the process)."""
    for line in out.splitlines():
        if line.startswith("op_seconds"):
            return float(line.split()[1])
        if line.startswith("onnxshape: timings: ") and " ms in all" in line:
            return float(line.split(" ms in all")[0].rsplit("; ", 1)[1]) / 1e3
    return None


def measure(tools, runs, py_runs=None, outputs=(), inputs=()):
    """tools: list of (name, argv). Round-robin, `runs` times (the "py" tools only the
    first `py_runs` rounds), each round in a shuffled order; medians per tool. `outputs` are deleted before each
    process, outside the timing: every tool writes a new file instead of first freeing
    the blocks of the one the last run left (a second's noise at 1M nodes). `inputs`
    are made resident before each process (warm)."""
    py_runs = runs if py_runs is None else py_runs

    def clear_outputs():
        for f in outputs:
            if os.path.exists(f):
                os.unlink(f)

    samples = {name: [] for name, _ in tools}
    rss = {}
    for i in range(runs):
        # Each round in its own order (seeded): the tool that runs right after onnx's
        # (which write and free hundreds of MB) measured slower than run alone, and
        # rotating a fixed order left the same tool there every round.
        order = list(tools)
        random.Random(i).shuffle(order)
        for name, argv in order:
            if name.startswith("py") and i >= py_runs:
                continue
            # A tool that runs once (onnx's at 1M nodes: up to a minute) is timed
            # under /usr/bin/time too: 2 ms of it are nothing there.
            once = name.startswith("py") and py_runs == 1
            clear_outputs()
            warm(inputs)
            samples[name].append(run_once(argv, once))
            if once:
                rss[name] = samples[name][-1][1]
    status = {}
    for name, argv in tools:
        if name not in rss:
            clear_outputs()
            warm(inputs)
            x = run_once(argv, True)
            rss[name], status[name] = x[1], x[2]
    res = {}
    for name, s in samples.items():
        ops = [op_seconds(x[3]) for x in s]
        res[name] = {
            "wall": statistics.median(x[0] for x in s),
            "cpu": statistics.median(x[4] for x in s),
            "rss": rss[name],
            "status": max([x[2] for x in s] + [status.get(name, 0)]),
            "op": statistics.median(ops) if all(o is not None for o in ops) else None,
        }
    return res


def weights_of(path):
    """The external data file beside the model (gen_models.py), or None."""
    w = os.path.join(os.path.dirname(path), "weights.bin")
    return w if os.path.exists(w) else None


def file_bytes(path):
    """The model and, beside it, its external data file."""
    w = weights_of(path)
    return os.path.getsize(path), (os.path.getsize(w) if w else 0)


def fmt_t(s):
    if s is None:
        return "-"
    return "%.0fms" % (s * 1e3) if s < 10 else "%.1fs" % s


def fmt_mb(b):
    return "%.0fM" % (b / 2**20) if b >= 10 * 2**20 else "%.1fM" % (b / 2**20)


def ratio(a, b):
    if b <= 0:
        return "-"
    return "%.0fx" % (a / b) if a / b >= 10 else "%.1fx" % (a / b)


def nodes_of(path, osh):
    """The node count onnxshape reports for the model."""
    out = subprocess.run([osh, "check", "-j", "1", path], capture_output=True, text=True).stdout
    tail = out.strip().splitlines()[-1] if out.strip() else ""
    if "(" in tail and "nodes" in tail:
        return int(tail.split("(")[1].split()[0])
    return 0


def bench_model(osh, path, nodes, runs, py_runs, with_py):
    d = os.path.dirname(path)
    osh_out = os.path.join(d, "osh-out.onnx")
    py_out = os.path.join(d, "py-out.onnx")
    # --timings: the tool's own time ("op"), beside the process's wall time.
    tools = [
        ("osh check", [osh, "check", "--timings", "-j", "1", path]),
        ("osh infer", [osh, "infer", "--timings", path, "-o", osh_out]),
        ("osh rewrite", [osh, "rewrite", "--timings", path, "-o", osh_out]),
    ]
    if with_py:
        tools += [
            ("py check", [PY, os.path.join(HERE, "py_tools.py"), "check", path]),
            ("py infer", [PY, os.path.join(HERE, "py_tools.py"), "infer", path, py_out]),
        ]
    weights = weights_of(path)
    inputs = [path] + ([weights] if weights else [])
    r = measure(tools, runs, py_runs, (osh_out, py_out), inputs)
    for f in (osh_out, py_out):
        if os.path.exists(f):
            os.unlink(f)
    return r


def print_row(name, nodes, size, wsize, r):
    o_c, o_i, o_r = r["osh check"], r["osh infer"], r["osh rewrite"]
    p_c, p_i = r.get("py check"), r.get("py infer")
    cells = [name, "%d" % nodes, fmt_mb(size) + ("+" + fmt_mb(wsize) if wsize else "")]
    for x in (o_c, o_i, o_r):
        cells += [fmt_t(x["wall"]), fmt_t(x["cpu"]), fmt_mb(x["rss"])]
    for x in (p_c, p_i):
        cells += [fmt_t(x["wall"]), fmt_t(x["cpu"]), fmt_t(x["op"]), fmt_mb(x["rss"])] if x else ["skipped", "-", "-", "-"]
    cells += [ratio(p_c["wall"], o_c["wall"]) if p_c else "-", ratio(p_c["cpu"], o_c["cpu"]) if p_c else "-",
              ratio(p_i["wall"], o_i["wall"]) if p_i else "-", ratio(p_i["cpu"], o_i["cpu"]) if p_i else "-"]
    cells += ["%.2f" % (o_c["wall"] / nodes * 1e6), "%.2f" % (o_c["cpu"] / nodes * 1e6),
              "%.2f" % (o_i["wall"] / nodes * 1e6),
              "%.2f" % (max(o_c["rss"], o_i["rss"], o_r["rss"]) / size) if not wsize else "n/a"]
    bad = [k for k, v in r.items() if v["status"] not in (0,)]
    if bad:
        cells.append("FAILED: " + ",".join(bad))
    print(" | ".join(cells), flush=True)


HEADER = ("model | nodes | file(+ext) | osh check wall | cpu | rss | osh infer wall | cpu | rss | "
          "osh rewrite wall | cpu | rss | py check wall | cpu | op | rss | py infer wall | cpu | op | rss | "
          "check py/osh wall | cpu | infer py/osh wall | cpu | "
          "osh check us/node wall | cpu | osh infer us/node wall | osh rss/file")


def corpus(osh, build, runs):
    """The backend node-test corpus as a whole: every model, one onnxshape process for
    check (it takes many files), one per model for infer; one Python process for each."""
    root = os.path.join(build, "corpus")
    gen = os.path.join(HERE, "..", "tests", "corpus", "gen_corpus.py")
    subprocess.run([PY, gen, root], check=True, capture_output=True)
    paths = []
    for dirpath, _, files in os.walk(root):
        paths += [os.path.join(dirpath, f) for f in files if f.endswith(".onnx")]
    paths.sort()
    real = sorted(os.listdir(os.path.join(root, "real"))) if os.path.isdir(os.path.join(root, "real")) else []
    stubs = [r for r in real if not any(f.endswith(".onnx") for f in os.listdir(os.path.join(root, "real", r)))]
    tmp = tempfile.mkdtemp(prefix="osh-bench-")
    lst = os.path.join(tmp, "models.txt")
    with open(lst, "w") as f:
        f.write("\n".join(paths))
    # onnxshape infer takes one model: a shell loop, as a CI script would run it.
    loop = os.path.join(tmp, "infer-all.sh")
    with open(loop, "w") as f:
        f.write("i=0\nwhile read -r m; do i=$((i+1)); \"%s\" infer \"$m\" -o \"%s/o-$i.onnx\" "
                ">/dev/null 2>&1; done < \"%s\"\n" % (osh, tmp, lst))
    tools = [
        ("osh check", [osh, "check", "-j", "1"] + paths),
        ("osh infer", ["/bin/sh", loop]),
        ("py check", [PY, os.path.join(HERE, "py_tools.py"), "check-list", lst]),
        ("py infer", [PY, os.path.join(HERE, "py_tools.py"), "infer-list", lst, tmp]),
    ]
    r = measure(tools, runs)
    size = sum(os.path.getsize(p) for p in paths)
    print("\nONNX backend test corpus (onnx %s): %d models, %s; medians of %d runs" %
          (onnx_version(), len(paths), fmt_mb(size), runs))
    for name, how in (("osh check", "-j1, one process, all files"), ("osh infer", "one process per model, sh loop"),
                      ("py check", "one process"), ("py infer", "one process")):
        x = r[name]
        print("  %-9s (%s): wall %s, cpu %s%s, rss %s" % (name, how, fmt_t(x["wall"]), fmt_t(x["cpu"]),
                                                        ", op %s" % fmt_t(x["op"]) if x["op"] else "", fmt_mb(x["rss"])))
    print("  ratios py/osh: check wall %s cpu %s; infer wall %s cpu %s" % (
        ratio(r["py check"]["wall"], r["osh check"]["wall"]), ratio(r["py check"]["cpu"], r["osh check"]["cpu"]),
        ratio(r["py infer"]["wall"], r["osh infer"]["wall"]), ratio(r["py infer"]["cpu"], r["osh infer"]["cpu"])))
    if stubs:
        print("  model zoo (corpus real/): %s are download stubs (data.json with a URL), not models; "
              "resnet50, densenet121 and inception_v1 are rebuilt by gen_zoo.py (rows above)"
              % ", ".join(s.replace("test_", "") for s in stubs))
    subprocess.run(["rm", "-rf", tmp])


def legacy_section(osh, modeldir, sizes, runs):
    """`rewrite` with something to rewrite: the other families have no candidate, so
    their rewrite column times the pass finding none. gen_legacy.py's models have
    three candidates in every four nodes; onnx has no such tool, so onnxshape alone,
    its three commands, and rewrite's time per node across sizes."""
    subprocess.run([PY, os.path.join(HERE, "gen_legacy.py"), modeldir] + sizes, check=True)
    print("\nrewrite with candidates (gen_legacy.py: opset 6 broadcast=1 axis=1 Add and Mul, Paddle "
          "elementwise_sub; x%d each):" % runs)
    print("model | nodes | file | osh check wall | rss | osh infer wall | rss | osh rewrite wall | rss | "
          "rewrite us/node wall | in the tool | rewrite rss/file")
    per_wall, per_tool = [], []
    for size in sizes:
        path = os.path.join(modeldir, "legacy-%s.onnx" % size)
        nodes = nodes_of(path, osh)
        r = bench_model(osh, path, nodes, runs, runs, False)
        size_b = os.path.getsize(path)
        rw = r["osh rewrite"]
        if rw["status"] != 0:
            print("  legacy-%s: rewrite exited %d" % (size, rw["status"]))
        per_wall.append(rw["wall"] / nodes * 1e6)
        per_tool.append(rw["op"] / nodes * 1e6 if rw["op"] else float("nan"))
        print("legacy-%s | %d | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.1f" % (
            size, nodes, fmt_mb(size_b), fmt_t(r["osh check"]["wall"]), fmt_mb(r["osh check"]["rss"]),
            fmt_t(r["osh infer"]["wall"]), fmt_mb(r["osh infer"]["rss"]), fmt_t(rw["wall"]), fmt_mb(rw["rss"]),
            per_wall[-1], per_tool[-1], rw["rss"] / size_b))
    print("  legacy osh rewrite wall: %s  (max/min %.2f)" % (" ".join("%.2f" % v for v in per_wall),
                                                              max(per_wall) / min(per_wall)))
    print("  legacy osh rewrite in the tool: %s  (max/min %.2f)" % (" ".join("%.2f" % v for v in per_tool),
                                                                     max(per_tool) / min(per_tool)))


def fold_section(osh, modeldir, sizes, runs):
    """`rewrite --fold-shapes` beside `infer` on gen_models.py's inline transformers
    (every Reshape target computed from Shape: a constant form each), and the ratio
    of the two, which should stay under 2."""
    subprocess.run([PY, os.path.join(HERE, "gen_models.py"), "--inline-only", modeldir] +
                   ["transformer:%s" % x for x in sizes], check=True, stdout=subprocess.DEVNULL)
    print("\nrewrite --fold-shapes beside infer (gen_models.py transformer, inline weights; x%d each):" % runs)
    print("model | nodes | osh infer wall | cpu | rss | osh fold wall | cpu | rss | fold/infer wall | cpu")
    for size in sizes:
        path = os.path.join(modeldir, "transformer-%s.onnx" % size)
        out = os.path.join(modeldir, "fold-out.onnx")
        nodes = nodes_of(path, osh)
        r = measure([("osh infer", [osh, "infer", path, "-o", out]),
                     ("osh fold", [osh, "rewrite", "--fold-shapes", path, "-o", out])], runs, runs, (out,), [path])
        i, f = r["osh infer"], r["osh fold"]
        if f["status"] != 0:
            print("  transformer-%s: rewrite --fold-shapes exited %d" % (size, f["status"]))
        print("transformer-%s | %d | %s | %s | %s | %s | %s | %s | %.2f | %.2f" % (
            size, nodes, fmt_t(i["wall"]), fmt_t(i["cpu"]), fmt_mb(i["rss"]), fmt_t(f["wall"]), fmt_t(f["cpu"]),
            fmt_mb(f["rss"]), f["wall"] / i["wall"], f["cpu"] / i["cpu"]))
        if os.path.exists(out):
            os.unlink(out)


def onnx_version():
    return subprocess.run([PY, "-c", "import onnx; print(onnx.__version__)"], capture_output=True,
                          text=True).stdout.strip()


def main():
    osh, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    quick = os.environ.get("BENCH_QUICK") == "1"
    sizes = os.environ.get("BENCH_SIZES", "1k" if quick else "1k,10k,100k,1m").split(",")
    families = os.environ.get("BENCH_FAMILIES", "transformer,cnn").split(",")
    py_max = int(os.environ.get("BENCH_PY_MAX", "1000000"))
    modeldir = os.path.join(build, "bench", "models")
    specs = ["%s:%s" % (f, s) for s in sizes for f in families]
    big = os.environ.get("BENCH_BIG", "" if quick else "transformer:1k:d1024")
    specs += [b for b in big.split(",") if b]
    zoo = [z for z in os.environ.get("BENCH_ZOO", "" if quick else "resnet50,densenet121,inception_v1").split(",")
           if z]
    t0 = time.perf_counter()
    subprocess.run([PY, os.path.join(HERE, "gen_models.py"), modeldir] + specs, check=True)
    if zoo:
        subprocess.run([PY, os.path.join(HERE, "gen_zoo.py"), modeldir] + zoo, check=True)
    print("models ready in %.1f s\n" % (time.perf_counter() - t0))
    print("onnxshape vs onnx %s (Python %s); wall = median of N runs in shuffled rounds; cpu = user + sys;"
          % (onnx_version(), sys.version.split()[0]))
    print("rss = peak RSS; py 'op' = time inside onnx calls (no interpreter start, no import)")
    print("load average at start: %.1f %.1f %.1f on %d cores\n" % (os.getloadavg() + (os.cpu_count(),)))
    print(HEADER)
    rows = []
    for spec in specs:
        parts = spec.split(":")
        fam, size = parts[0], parts[1] + ("-" + parts[2] if len(parts) > 2 else "")
        for path in (os.path.join(modeldir, "%s-%s.onnx" % (fam, size)),
                     os.path.join(modeldir, "%s-%s-ext" % (fam, size), "model.onnx")):
            nodes = nodes_of(path, osh)
            # onnxshape 9 times up to 100k nodes and 5 at 1M: with 3, one run slowed
            # by the machine (a 100k-node check measured 54 to 112 ms in 18 runs of
            # the same binary) was the median when a second was, and a run of 50 ms
            # can be slowed whole where one of seconds is slowed in part. onnx's
            # tools, a few seconds a run from 100k nodes, fewer times.
            runs = int(os.environ.get("BENCH_RUNS", "3" if quick else "5" if nodes > 500000 else "9"))
            py_default = "1" if nodes > 500000 else "3" if nodes > 50000 else str(min(runs, 5))
            py_runs = int(os.environ.get("BENCH_PY_RUNS", str(runs) if quick else py_default))
            r = bench_model(osh, path, nodes, runs, min(py_runs, runs), nodes <= py_max)
            m, w = file_bytes(path)
            name = "%s-%s%s (x%d%s)" % (fam, size, "-ext" if w else "", runs,
                                         "" if py_runs >= runs else ", py x%d" % py_runs)
            print_row(name, nodes, m, w, r)
            rows.append((fam, "-ext" if w else "", size, nodes, r))
    # The zoo's networks: real architectures, a few hundred nodes and 28 to 103 MB of
    # weights each; not part of the scaling (other families).
    for z in zoo:
        for path in (os.path.join(modeldir, z + ".onnx"), os.path.join(modeldir, z + "-ext", "model.onnx")):
            nodes = nodes_of(path, osh)
            runs = int(os.environ.get("BENCH_RUNS", "9"))
            py_runs = min(int(os.environ.get("BENCH_PY_RUNS", str(min(runs, 5)))), runs)
            r = bench_model(osh, path, nodes, runs, py_runs, nodes <= py_max)
            m, w = file_bytes(path)
            print_row("%s%s (x%d%s)" % (z, "-ext" if w else "", runs, "" if py_runs >= runs else ", py x%d" % py_runs),
                      nodes, m, w, r)
    # What any process costs to start and end, measured as the tools are: the part of
    # a small model's time per node that is not onnxshape's work.
    start = measure([("start", ["/bin/true"])], 21)["start"]
    print("\nscaling: onnxshape time per node (us), wall then cpu, smallest to largest model")
    print("  (a process that does nothing, /bin/true, takes %.2f ms wall, %.2f ms cpu here; 'above start' "
          "subtracts it;\n   'in the tool' is --timings' figure: from loading to the model done with, inside the process)"
          % (start["wall"] * 1e3, start["cpu"] * 1e3))
    for fam in families:
        for ext in ("", "-ext"):
            sel = [x for x in rows if x[0] == fam and x[1] == ext and x[2] in sizes]
            if not sel:
                continue
            for tool in ("osh check", "osh infer", "osh rewrite"):
                for what in ("wall", "cpu"):
                    per = [x[4][tool][what] / x[3] * 1e6 for x in sel]
                    print("  %s%s %s %s: %s  (max/min %.2f)" % (fam, ext, tool, what, " ".join("%.2f" % v for v in per),
                                                              max(per) / min(per)))
                above = [(x[4][tool]["wall"] - start["wall"]) / x[3] * 1e6 for x in sel]
                print("  %s%s %s wall above start: %s  (max/min %.2f)" % (
                    fam, ext, tool, " ".join("%.2f" % v for v in above), max(above) / min(above)))
                inside = [x[4][tool]["op"] / x[3] * 1e6 for x in sel if x[4][tool]["op"] is not None]
                if len(inside) == len(sel):
                    print("  %s%s %s in the tool: %s  (max/min %.2f)" % (
                        fam, ext, tool, " ".join("%.2f" % v for v in inside), max(inside) / min(inside)))
    legacy = [x for x in os.environ.get("BENCH_LEGACY", "1k" if quick else "1k,10k,100k").split(",") if x]
    if legacy:
        legacy_section(osh, modeldir, legacy, 3 if quick else int(os.environ.get("BENCH_RUNS", "9")))
    fold = [x for x in os.environ.get("BENCH_FOLD", "1k" if quick else "100k").split(",") if x]
    if fold:
        fold_section(osh, modeldir, fold, 3 if quick else int(os.environ.get("BENCH_RUNS", "9")))
    print("\nload average at end: %.1f %.1f %.1f" % os.getloadavg())
    if os.environ.get("BENCH_CORPUS", "1") != "0":
        corpus(osh, build, 3 if quick else int(os.environ.get("BENCH_RUNS", "3")))
    if os.environ.get("BENCH_KEEP", "1") == "0":
        subprocess.run(["rm", "-rf", modeldir])


if __name__ == "__main__":
    main()
