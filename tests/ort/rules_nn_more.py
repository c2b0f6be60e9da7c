#!/usr/bin/env python3
"""Inferred shapes of the layer rules of ops_nn.def (recurrent layers, losses, NMS,
Attention, RotaryEmbedding, TensorScatter, DeformConv, Swish, CumProd, BitCast) against
ONNX Runtime. The training operators have no ONNX Runtime CPU kernels; the corpus
covers them.

Each case is a one-node model with concrete input shapes. The model is inferred with
`onnxshape infer --ignore-declared` and run on ONNX Runtime (run_shapes.js, all in one process, with every
input filled with one value); each output's inferred shape is compared with the real
one. A case fails when a known dim is wrong, a rank is wrong, or an output meant to be
exact (all but the data-dependent NonMaxSuppression count) is not.
ONNX Runtime's CPU recurrent kernels refuse layout=1 and an LSTM without hidden_size:
those cases are in tests/unit/test_rules_rnn.c instead.

usage: rules_nn_more.py ONNXSHAPE ORT_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, D, I64, I32, B = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64, TensorProto.INT32, TensorProto.BOOL
JS_TYPE = {F: "float32", D: "float64", I64: "int64", I32: "int32", B: "bool"}


def case(name, op, opset, inputs, outputs, exact=True, **attrs):
    """inputs: (name, type, dims, fill); "" for an omitted input. outputs: names, "" omitted."""
    return dict(name=name, op=op, opset=opset, inputs=inputs, outputs=outputs, exact=exact, attrs=attrs)


def x(n, dims, t=F, fill=0.5):
    return (n, t, dims, fill)


CASES = [
    case("rnn_forward", "RNN", 14, [x("x", [5, 3, 4]), x("w", [1, 6, 4]), x("r", [1, 6, 6])], ["y", "yh"],
         hidden_size=6),
    case("rnn_bidirectional", "RNN", 14, [x("x", [3, 5, 4]), x("w", [2, 6, 4]), x("r", [2, 6, 6])],
         ["y", "yh"], hidden_size=6, direction="bidirectional"),
    case("rnn_seq_lens_initial_h", "RNN", 7,
         [x("x", [5, 3, 4]), x("w", [1, 6, 4]), x("r", [1, 6, 6]), x("b", [1, 12]), x("sl", [3], I32, 5),
          x("h0", [1, 3, 6])], ["y", "yh"], hidden_size=6),
    case("gru_reverse", "GRU", 7, [x("x", [7, 2, 4]), x("w", [1, 15, 4]), x("r", [1, 15, 5])], ["y", "yh"],
         hidden_size=5, direction="reverse"),
    case("gru_bidirectional_only_yh", "GRU", 14,
         [x("x", [2, 7, 4]), x("w", [2, 15, 4]), x("r", [2, 15, 5]), x("b", [2, 30])], ["", "yh"],
         hidden_size=5, direction="bidirectional", linear_before_reset=1),
    case("lstm_forward", "LSTM", 7, [x("x", [7, 2, 4]), x("w", [1, 20, 4]), x("r", [1, 20, 5])],
         ["y", "yh", "yc"], hidden_size=5),
    case("lstm_bidirectional_peepholes", "LSTM", 14,
         [x("x", [7, 3, 4]), x("w", [2, 20, 4]), x("r", [2, 20, 5]), x("b", [2, 40]), ("", 0, None, 0),
          x("h0", [2, 3, 5]), x("c0", [2, 3, 5]), x("p", [2, 15])], ["y", "yh", "yc"],
         hidden_size=5, direction="bidirectional"),
    case("nll_none_k2", "NegativeLogLikelihoodLoss", 13, [x("x", [2, 3, 4, 5]), x("t", [2, 4, 5], I64, 1)],
         ["l"], reduction="none"),
    case("nll_mean_weight_ii", "NegativeLogLikelihoodLoss", 13,
         [x("x", [2, 3, 4]), x("t", [2, 4], I64, 1), x("w", [3])], ["l"], ignore_index=-1),
    case("nll_sum_nc", "NegativeLogLikelihoodLoss", 22, [x("x", [6, 3]), x("t", [6], I64, 2)], ["l"],
         reduction="sum"),
    case("sce_none_log_prob", "SoftmaxCrossEntropyLoss", 13, [x("x", [2, 3, 4, 2]), x("t", [2, 4, 2], I64, 1)],
         ["l", "lp"], reduction="none"),
    case("sce_mean_nc_int32", "SoftmaxCrossEntropyLoss", 13, [x("x", [5, 3]), x("t", [5], I32, 0)],
         ["l", "lp"]),
    case("nms", "NonMaxSuppression", 11,
         [x("boxes", [1, 6, 4]), x("scores", [1, 2, 6]), x("max", [1], I64, 3)], ["sel"], exact=False),
    case("nms_no_max", "NonMaxSuppression", 11, [x("boxes", [1, 6, 4]), x("scores", [1, 2, 6])], ["sel"]),
    case("attention_4d_past", "Attention", 23,
         [x("q", [2, 3, 4, 8]), x("k", [2, 3, 6, 8]), x("v", [2, 3, 6, 10]), ("", 0, None, 0),
          x("pk", [2, 3, 5, 8]), x("pv", [2, 3, 5, 10])], ["y", "pko", "pvo", "qk"]),
    case("attention_4d_gqa_mask", "Attention", 23,
         [x("q", [2, 6, 4, 8]), x("k", [2, 3, 6, 8]), x("v", [2, 3, 6, 8]), x("m", [4, 6], B, 1)], ["y", "", "", "qk"]),
    case("attention_3d", "Attention", 23, [x("q", [2, 4, 24]), x("k", [2, 6, 24]), x("v", [2, 6, 30])], ["y"],
         q_num_heads=3, kv_num_heads=3),
    case("attention_3d_gqa_past", "Attention", 23,
         [x("q", [2, 4, 72]), x("k", [2, 6, 24]), x("v", [2, 6, 30]), ("", 0, None, 0),
          x("pk", [2, 3, 5, 8]), x("pv", [2, 3, 5, 10])], ["y", "pko", "pvo", "qk"], q_num_heads=9,
         kv_num_heads=3),
    case("rotary_4d", "RotaryEmbedding", 23,
         [x("x", [2, 4, 3, 8]), x("c", [2, 3, 4]), x("s", [2, 3, 4])], ["y"]),
    case("rotary_3d_position_ids", "RotaryEmbedding", 23,
         [x("x", [2, 3, 16]), x("c", [10, 4]), x("s", [10, 4]), x("p", [2, 3], I64, 1)], ["y"], num_heads=2),
    case("deform_conv", "DeformConv", 19, [x("x", [1, 1, 3, 3]), x("w", [1, 1, 2, 2]), x("o", [1, 8, 2, 2])],
         ["y"]),
    case("deform_conv_strides_pads_mask", "DeformConv", 22,
         [x("x", [2, 4, 10, 8]), x("w", [6, 4, 3, 3]), x("o", [2, 18, 5, 4]), x("b", [6]),
          x("m", [2, 9, 5, 4])], ["y"], strides=[2, 1], pads=[1, 0, 1, 0], dilations=[1, 2]),
    case("tensor_scatter", "TensorScatter", 24, [x("p", [2, 4, 10, 8]), x("u", [2, 4, 3, 8]), x("w", [2], I64, 1)],
         ["y"]),
    case("tensor_scatter_axis1_circular", "TensorScatter", 24, [x("p", [2, 16, 4]), x("u", [2, 1, 4])], ["y"],
         axis=1, mode="circular"),
    case("swish", "Swish", 24, [x("x", [2, 3, 5])], ["y"], alpha=0.5),
    case("cumprod", "CumProd", 26, [x("x", [2, 3]), x("a", [], I64, 1)], ["y"], exclusive=1),
    case("bitcast", "BitCast", 26, [x("x", [3, 4])], ["y"], to=TensorProto.INT32),
]


def build(c, path):
    present = [i for i in c["inputs"] if i[0]]
    node = helper.make_node(c["op"], [i[0] for i in c["inputs"]], c["outputs"], **c["attrs"])
    g = helper.make_graph([node], c["name"], [helper.make_tensor_value_info(n, t, d) for n, t, d, _ in present],
                          [onnx.ValueInfoProto(name=o) for o in c["outputs"] if o])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", c["opset"])])
    m.ir_version = 10 if c["opset"] >= 21 else 8
    onnx.save(m, path)
    return {n: {"type": JS_TYPE[t], "dims": d, "data": [f] * count(d)} for n, t, d, f in present}


def count(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def dims_of(vi):
    t = vi.type.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


def main():
    tool, ort_dir, work = sys.argv[1:4]
    ort_dir = os.path.abspath(ort_dir)
    os.makedirs(work, exist_ok=True)
    failures = 0
    jobs, inferred = [], {}
    for c in CASES:
        model = os.path.join(work, c["name"] + ".onnx")
        out = os.path.join(work, c["name"] + ".inferred.onnx")
        jobs.append({"model": model, "feeds": build(c, model)})
        r = subprocess.run([tool, "infer", "--ignore-declared", model, "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL %s: onnxshape infer: %s" % (c["name"], r.stderr.strip()))
            failures += 1
            continue
        inferred[c["name"]] = {o.name: dims_of(o) for o in onnx.load(out).graph.output}
    # One ONNX Runtime process for every model (run_shapes.js).
    cases_json = os.path.join(work, "cases.json")
    with open(cases_json, "w") as f:
        json.dump(jobs, f)
    r = subprocess.run(["node", os.path.join(HERE, "run_shapes.js"), ort_dir, cases_json],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: run_shapes.js: %s" % r.stderr.strip()[-500:])
        return 1
    results = json.loads(r.stdout)
    for c, job in zip(CASES, jobs):
        if c["name"] not in inferred:
            continue
        res = results.get(job["model"], {"error": "no result"})
        if "error" in res:
            print("FAIL %s: ONNX Runtime: %s" % (c["name"], res["error"]))
            failures += 1
            continue
        real = res["outputs"]
        for name in (o for o in c["outputs"] if o):
            got, want = inferred[c["name"]].get(name), real[name]
            ok = got is not None and len(got) == len(want) and all(g is None or g == w for g, w in zip(got, want))
            if ok and c["exact"] and None in got:
                ok = False
            print("%s %s %s: inferred %s, ONNX Runtime %s" % ("ok  " if ok else "FAIL", c["name"], name, got, want))
            failures += not ok
    print("%d cases, %d failures" % (len(CASES), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
