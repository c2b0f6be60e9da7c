#!/usr/bin/env python3
"""kernel_battery.py: does a clean `onnxshape check` (its default, --runtime ort-cpu)
mean that ONNX Runtime's CPU provider loads and runs a model, and does a no-kernel
or runtime-version error mean that it does not? (ctest runtime/kernel-battery)

    python3 tests/ort/kernel_battery.py ONNXSHAPE ORT_DIR WORK_DIR

Writes one-node models into WORK_DIR: elementwise, comparison, reduction and
shape operators of several opsets over every element type the node binding of
onnxruntime-node can feed (bfloat16 through a Cast on each side), so that for most
operator versions some types have a CPU kernel and some do not; Cast between those
types; models whose opset or IR version is one past the runtime's, beside the
same at the runtime's newest; and com.microsoft operators over types with a CPU
kernel beside types their contrib schema takes but no CPU kernel runs. ONNX Runtime judges every model (tests/validity/
judge_ort.js: loaded and run once on inputs of ones) and is the truth; `onnxshape
check` must agree on every one: exit 0 where the runtime ran it, 1 where it did not.
Prints the counts (runs / refused) and each disagreement; fails on any. Deterministic.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_kernels as pk  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
JUDGE = os.path.join(HERE, "..", "validity", "judge_ort.js")

FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, BOOL, FLOAT16, DOUBLE, UINT32, UINT64, BF16 = (
    1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16)
FED = [FLOAT, DOUBLE, FLOAT16, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, BOOL]
NAME = {v: k for k, v in pk.gs.ELEM_TYPES.items()}
SHAPE = (2, 3)


def vi(name, elem, shape=SHAPE):
    dims = b"".join(pk.f_bytes(1, pk.f_int(1, d)) for d in shape)
    return pk.f_bytes(1, name) + pk.f_bytes(2, pk.f_bytes(1, pk.f_int(1, elem) + pk.f_bytes(2, dims)))


def one_node(op, opset, in_types, out_types, attrs=(), ir=8, opsets=None, out_shape=SHAPE):
    """op over graph inputs of in_types; a bfloat16 input or output is carried as
    float through a Cast (onnxruntime-node feeds no bfloat16)."""
    nodes, inputs, outputs, ins, outs = [], [], [], [], []
    for k, t in enumerate(in_types):
        if t == BF16:
            inputs.append(vi("x%d" % k, FLOAT))
            nodes.append(pk.node_proto("Cast", "", ["x%d" % k], ["c%d" % k], [pk.attr("to", "AT_INT", BF16)]))
            ins.append("c%d" % k)
        else:
            inputs.append(vi("x%d" % k, t))
            ins.append("x%d" % k)
    for k, t in enumerate(out_types):
        if t == BF16:
            outs.append("d%d" % k)
            nodes_after = pk.node_proto("Cast", "", ["d%d" % k], ["y%d" % k], [pk.attr("to", "AT_INT", FLOAT)])
            outputs.append((vi("y%d" % k, FLOAT, out_shape), nodes_after))
        else:
            outs.append("y%d" % k)
            outputs.append((vi("y%d" % k, t, out_shape), None))
    nodes.append(pk.node_proto(op, "", ins, outs, list(attrs)))
    nodes += [n for _, n in outputs if n is not None]
    graph = pk.graph_proto(nodes, inputs, [o for o, _ in outputs])
    return pk.model_proto(graph, opsets or [("", opset)], ir=ir)


UNARY = {  # op: opsets
    "Relu": (6, 13, 14), "Abs": (6, 13), "Neg": (6, 13), "Sigmoid": (13,), "Exp": (13,), "Sqrt": (13,),
    "Floor": (13,), "Ceil": (13,), "Sign": (13,), "Reciprocal": (13,), "Tanh": (13,), "Erf": (13,),
    "Identity": (16, 21), "Softmax": (13,), "LeakyRelu": (16,), "Elu": (6,), "HardSigmoid": (6,),
    "Round": (11,), "IsNaN": (13,), "Not": (1,), "BitwiseNot": (18,),
}
BINARY = {
    "Add": (7, 13, 14), "Sub": (13, 14), "Mul": (14,), "Div": (14,), "Max": (13,), "Min": (13,),
    "Mod": (13,), "Equal": (13, 19), "Less": (13,), "Greater": (13,), "LessOrEqual": (16,), "And": (7,),
    "BitShift": (11,), "BitwiseAnd": (18,), "PRelu": (16,), "Sum": (13,), "Mean": (13,),
}
BOOL_OUT = {"Equal", "Less", "Greater", "LessOrEqual", "IsNaN"}
REDUCE = {"ReduceSum": (13,), "ReduceMax": (18,), "ReduceMean": (18,), "ReduceProd": (18,)}


def ms_node(op, ins, outs, attrs=()):
    """A com.microsoft node over graph inputs ins, outputs outs: (element type, shape)
    each; a bfloat16 input is carried as float through a Cast."""
    nodes, inputs, names = [], [], []
    for k, (t, shape) in enumerate(ins):
        if t == BF16:
            inputs.append(vi("x%d" % k, FLOAT, shape))
            nodes.append(pk.node_proto("Cast", "", ["x%d" % k], ["c%d" % k], [pk.attr("to", "AT_INT", BF16)]))
            names.append("c%d" % k)
        else:
            inputs.append(vi("x%d" % k, t, shape))
            names.append("x%d" % k)
    outputs, outs_named = [], []
    for k, (t, shape) in enumerate(outs):
        if t == BF16:
            outs_named.append("d%d" % k)
            nodes_after = pk.node_proto("Cast", "", ["d%d" % k], ["y%d" % k], [pk.attr("to", "AT_INT", FLOAT)])
            outputs.append((vi("y%d" % k, FLOAT, shape), nodes_after))
        else:
            outs_named.append("y%d" % k)
            outputs.append((vi("y%d" % k, t, shape), None))
    nodes.append(pk.node_proto(op, "com.microsoft", names, outs_named, list(attrs)))
    nodes += [n for _, n in outputs if n is not None]
    graph = pk.graph_proto(nodes, inputs, [o for o, _ in outputs])
    return pk.model_proto(graph, [("", 17), ("com.microsoft", 1)], ir=8)


def ms_cases():
    """com.microsoft operators over types with a CPU kernel and types without one (the
    runtime's contrib schema taking them), each shape one the operator runs on."""
    out = []
    same = lambda t: ([(t, SHAPE)], [(t, SHAPE)])  # noqa: E731
    for op, types in (("Gelu", (FLOAT, FLOAT16, DOUBLE, BF16)), ("FastGelu", (FLOAT, BF16)),
                      ("QuickGelu", (FLOAT, BF16)), ("Trilu", (FLOAT, FLOAT16, INT64, INT32, INT8))):
        for t in types:
            out.append(("ms_%s_%s" % (op, NAME[t]), ms_node(op, *same(t))))
    for t in (FLOAT, FLOAT16, DOUBLE):
        out.append(("ms_BiasGelu_%s" % NAME[t], ms_node("BiasGelu", [(t, SHAPE), (t, (3,))], [(t, SHAPE)])))
    for op, types in (("TransposeMatMul", (FLOAT, DOUBLE)), ("FusedMatMul", (FLOAT, BF16)),
                      ("FusedGemm", (FLOAT, INT32, DOUBLE))):
        for t in types:
            # FusedGemm's kernel wants its fused activation named.
            attrs = [pk.attr("transB", "AT_INT", 1)] + (
                [pk.attr("activation", "AT_STRING", "Relu")] if op == "FusedGemm" else [])
            out.append(("ms_%s_%s" % (op, NAME[t]), ms_node(op, [(t, (2, 3)), (t, (2, 3))], [(t, (2, 2))], attrs)))
    for a, b in ((INT16, INT16), (UINT16, UINT16), (INT16, UINT16)):
        out.append(("ms_MatMulInteger16_%s_%s" % (NAME[a], NAME[b]),
                    ms_node("MatMulInteger16", [(a, (2, 3)), (b, (3, 2))], [(INT32, (2, 2))])))
    for t in (FLOAT, INT64, DOUBLE):
        out.append(("ms_Unique_%s" % NAME[t], ms_node("Unique", [(t, (6,))], [(t, (1,)), (INT64, (6,)),
                                                                             (INT64, (1,))])))
    for t in (FLOAT, DOUBLE):
        out.append(("ms_GridSample_%s" % NAME[t], ms_node("GridSample", [(t, (1, 1, 2, 2)), (t, (1, 2, 2, 2))],
                                                          [(t, (1, 1, 2, 2))])))
        out.append(("ms_Pad_%s" % NAME[t], ms_node("Pad", [(t, (2, 3)), (INT64, (4,))], [(t, (4, 5))])))
    for t in (FLOAT, INT64):
        out.append(("ms_TorchEmbedding_%s" % NAME[t], ms_node("TorchEmbedding", [(t, (3, 2)), (INT64, (2,))],
                                                              [(t, (2, 2))])))
    return out


def shaped_node(op, opset, ins, outs, attrs=(), ir=10):
    """op over float graph inputs of the given shapes (ins, outs: lists of shapes)."""
    names_in = ["x%d" % k for k in range(len(ins))]
    names_out = ["y%d" % k for k in range(len(outs))]
    graph = pk.graph_proto([pk.node_proto(op, "", names_in, names_out, list(attrs))],
                           [vi(n, FLOAT, sh) for n, sh in zip(names_in, ins)],
                           [vi(n, FLOAT, sh) for n, sh in zip(names_out, outs)])
    return pk.model_proto(graph, [("", opset)], ir=ir)


def attr_cases():
    """Twins on attributes the runtime refuses on a node it has kernels for: an
    attribute newer than its copy of the schema, a value its CPU kernel does not
    implement; beside each, the node without it."""
    out = []
    hidden, gates = 2, {"RNN": 1, "GRU": 3, "LSTM": 4}
    for op, g in gates.items():
        for opset in (14, 22):
            w, r = (1, g * hidden, 3), (1, g * hidden, hidden)
            for layout in (0, 1):
                x, y = ((2, 1, 3), (2, 1, 1, hidden)) if layout == 0 else ((1, 2, 3), (1, 2, 1, hidden))
                attrs = [pk.attr("hidden_size", "AT_INT", hidden), pk.attr("layout", "AT_INT", layout)]
                out.append(("%s-%d_layout%d" % (op, opset, layout), shaped_node(op, opset, [x, w, r], [y], attrs)))
    qkv = (1, 1, 2, 4)
    for window in (None, -1, 1):
        attrs = [] if window is None else [pk.attr("left_window_size", "AT_INT", window)]
        out.append(("Attention-25_left_window_%s" % window, shaped_node("Attention", 25, [qkv] * 3, [qkv], attrs)))
    for mode in (None, "DCR"):
        attrs = [pk.attr("blocksize", "AT_INT", 2)] + ([] if mode is None else [pk.attr("mode", "AT_STRING", mode)])
        out.append(("SpaceToDepth-13_mode_%s" % mode,
                    shaped_node("SpaceToDepth", 13, [(1, 1, 4, 4)], [(1, 4, 2, 2)], attrs)))
    return out


def cases():
    """(name, model bytes)."""
    out = []
    for op, opsets in sorted(UNARY.items()):
        for opset in opsets:
            for t in FED + [BF16]:
                ot = BOOL if op in BOOL_OUT else t
                out.append(("%s-%d_%s" % (op, opset, NAME[t]), one_node(op, opset, [t], [ot])))
    for op, opsets in sorted(BINARY.items()):
        for opset in opsets:
            for t in FED + [BF16]:
                ot = BOOL if op in BOOL_OUT else t
                attrs = [pk.attr("direction", "AT_STRING", "LEFT")] if op == "BitShift" else []
                if op == "Mod" and t in (FLOAT, DOUBLE, FLOAT16, BF16):
                    attrs = [pk.attr("fmod", "AT_INT", 1)]  # what the spec asks of floats
                out.append(("%s-%d_%s" % (op, opset, NAME[t]), one_node(op, opset, [t, t], [ot], attrs)))
    for op, opsets in sorted(REDUCE.items()):
        for opset in opsets:
            for t in FED:
                attrs = [pk.attr("keepdims", "AT_INT", 1)]
                out.append(("%s-%d_%s" % (op, opset, NAME[t]),
                            one_node(op, opset, [t], [t], attrs, out_shape=(1, 1))))
    for t in [FLOAT, INT32, INT64, DOUBLE]:
        for e in [FLOAT, INT32, INT64, UINT32, UINT64, DOUBLE, UINT8]:
            out.append(("Pow-15_%s_%s" % (NAME[t], NAME[e]), one_node("Pow", 15, [t, e], [t])))
    for src in FED:
        for dst in FED:
            out.append(("Cast-13_%s_to_%s" % (NAME[src], NAME[dst]),
                        one_node("Cast", 13, [src], [dst], [pk.attr("to", "AT_INT", dst)])))
    for opset in (26, 27):
        out.append(("opset_%d" % opset, one_node("Relu", opset, [FLOAT], [FLOAT], ir=10)))
    for ir in (13, 14):
        out.append(("ir_%d" % ir, one_node("Relu", 21, [FLOAT], [FLOAT], ir=ir)))
    for v in (5, 6):
        out.append(("ml_opset_%d" % v, one_node("Relu", 21, [FLOAT], [FLOAT], ir=10,
                                                opsets=[("", 21), ("ai.onnx.ml", v)])))
    return out + attr_cases() + ms_cases()


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: kernel_battery.py ONNXSHAPE ORT_DIR WORK_DIR\n")
        return 2
    tool, ort, work = argv[1:]
    os.makedirs(work, exist_ok=True)
    paths = []
    for name, data in cases():
        p = os.path.join(work, name + ".onnx")
        with open(p, "wb") as f:
            f.write(data)
        paths.append(p)
    listing = os.path.join(work, "models.txt")
    with open(listing, "w") as f:
        f.write("\n".join(paths) + "\n")
    judged = subprocess.run(["node", JUDGE, ort, listing], stdout=subprocess.PIPE, text=True, check=True).stdout
    ort_ok = {}
    for line in judged.splitlines():
        v = json.loads(line)
        ort_ok[v["file"]] = (v["load"] == "ok" and v["run"] == "ok", v.get("message", ""))
    report = subprocess.run([tool, "check", "--format", "json", listing.replace("models.txt", "")],
                            stdout=subprocess.PIPE, text=True)
    doc = json.loads(report.stdout)
    clean = {f["path"]: (f["status"] == "ok" or not any(d["severity"] == "error" for d in f["diagnostics"]),
                         [d["message"] for d in f["diagnostics"] if d["severity"] == "error"])
             for f in doc["files"]}
    runs = refused = 0
    bad = []
    for p in paths:
        ok, why = ort_ok[p]
        runs += ok
        refused += not ok
        c, msgs = clean.get(os.path.normpath(p), clean.get(p, (None, [])))
        if c is None:
            bad.append("%s: not in check's report" % p)
        elif c != ok:
            bad.append("%s: ONNX Runtime %s (%s), check %s %s" % (
                os.path.basename(p), "runs it" if ok else "refuses it", why[:150],
                "is clean" if c else "reports", "; ".join(msgs)[:200]))
    print("kernel battery: %d models: ONNX Runtime runs %d, refuses %d; check agrees on %d, disagrees on %d"
          % (len(paths), runs, refused, len(paths) - len(bad), len(bad)))
    for b in bad:
        print("  DISAGREE " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
