#!/usr/bin/env python3
"""gen_opset_steps.py: writes src/passes/rewrite/rewrite_opset_steps.h, the opset
conversion's step table.

    python3 src/core/schema/gen_opset_steps.py CHANGELOG.md [OUT.h]

One row per version of every ai.onnx operator (the same rows as schema_table.c, read
the same way by gen_schema.py's parser): OPSET_STEP(op, since, up, down), where `up`
takes a node from the version before to this one and `down` back. What a row needs
is decided from the difference between the two versions' schemas:

  - only the type constraints changed: nothing upward; downward the node's types are
    checked against the target's (rewrite_opset.c's schema fit, run on every node),
    so KEPT both ways;
  - anything else (attributes or inputs added, removed or moved, a default changed,
    or nothing at all in the signature, which means the meaning changed in words):
    the row must be listed in STEPS below, reviewed, with the adapter of each
    direction, KEPT (the schema fit check is enough: new attributes whose defaults
    are the old behaviour, new optional inputs) or NONE (refused, naming the node);
  - a changed row STEPS does not list is NONE both ways, and listed in the output's
    comment: an unreviewed change is refused, never guessed.

An operator's first row has no `up` (the node cannot be older); its `down` is what
replaces the operator where the target predates it (a decomposition or a rename),
NONE when nothing does. Standard library only.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_schema as gs  # noqa: E402

# "Op-since": "up down"; a name is an adapter of rewrite_opset*.c (up_NAME, dn_NAME),
# "-" KEPT, "x" NONE. Reasons are in the adapters' comments.
STEPS = {
    # consumed_inputs (an optimisation hint) left every operator at 6: filled below.
    "Selu-6": "selu6 x",
    "Clip-6": "drop_consumed -",
    # opset 7: numpy broadcasting replaced broadcast/axis; filled below for the family.
    "Gemm-6": "- x", "Gemm-7": "drop_broadcast x", "Gemm-11": "- -",
    "ArgMax-11": "- neg_axis", "ArgMin-11": "- neg_axis", "ArgMax-12": "- -", "ArgMin-12": "- -",
    "Attention-24": "- -", "Attention-25": "- -",
    "AveragePool-7": "- -", "AveragePool-10": "- -", "AveragePool-11": "- -", "AveragePool-19": "- -",
    "BatchNormalization-7": "batchnorm7 x", "BatchNormalization-9": "batchnorm9 -",
    "BatchNormalization-14": "batchnorm14 -", "BatchNormalization-15": "- -",
    "Cast-6": "cast6 x", "Cast-19": "- -", "Cast-24": "- -",
    "CastLike-19": "- -", "CastLike-24": "- -",
    "Clip-11": "clip11 clip11",
    "Compress-11": "- neg_axis",
    "Concat-4": "concat4 -", "Concat-11": "- neg_axis",
    "Constant-11": "- -", "Constant-12": "- -",
    "Conv-11": "- -", "ConvTranspose-11": "- -",
    "DFT-20": "x x",
    "DepthToSpace-11": "- -",
    "DequantizeLinear-13": "- x", "DequantizeLinear-19": "- -", "DequantizeLinear-21": "- -",
    "DequantizeLinear-23": "- -",
    "Dropout-7": "dropout7 x", "Dropout-10": "dropout10 x", "Dropout-12": "dropout12 dropout12",
    "Flatten-11": "- neg_axis",
    "GRU-3": "- x", "GRU-7": "rnn7 -", "GRU-14": "- -",
    "LSTM-7": "rnn7 -", "LSTM-14": "- -", "RNN-7": "rnn7 -", "RNN-14": "- -",
    "Gather-11": "- x", "GatherND-12": "- -",
    "GlobalLpPool-2": "lppool2 x", "LpPool-2": "lppool2 x", "LpPool-11": "- -", "LpPool-18": "- -",
    "GridSample-20": "gridsample20 gridsample20",
    "GroupNormalization-21": "x x",
    "Hardmax-11": "- neg_axis", "Hardmax-13": "softmax13 softmax13",
    "LogSoftmax-11": "- neg_axis", "LogSoftmax-13": "softmax13 softmax13",
    "Softmax-11": "- neg_axis", "Softmax-13": "softmax13 softmax13",
    "Identity-14": "- -", "If-11": "- x", "Loop-11": "- x",
    "Max-8": "- x", "Mean-8": "- x", "Min-8": "- x", "Sum-8": "- x",
    "MaxPool-8": "- -", "MaxPool-10": "- -", "MaxPool-11": "- -", "MaxUnpool-11": "- -",
    "NegativeLogLikelihoodLoss-13": "- -", "NonMaxSuppression-11": "- -",
    "OneHot-11": "- x", "OptionalHasElement-18": "- -",
    "PRelu-7": "prelu7 x",
    "Pad-2": "pad2 x", "Pad-11": "pad11 pad11", "Pad-18": "- pad18", "Pad-19": "- pad19",
    "Pow-12": "- -",
    "QLinearMatMul-21": "- -",
    "QuantizeLinear-13": "- x", "QuantizeLinear-19": "- -", "QuantizeLinear-21": "- -", "QuantizeLinear-23": "- -",
    "Range-27": "- -",
    "ReduceSum-13": "axes_input axes_input",
    "Reshape-5": "reshape5 x", "Reshape-14": "- -",
    "Resize-10": "x resize10", "Resize-11": "resize11 resize11", "Resize-13": "- resize13", "Resize-18": "- resize18",
    "Resize-19": "- resize19",
    "RoiAlign-16": "roialign16 roialign16",
    "Scan-9": "x x", "Scan-11": "- x",
    "Scatter-11": "scatter11 x", "ScatterElements-11": "- scatter_elements11",
    "ScatterElements-16": "- -", "ScatterElements-18": "- scatter18",
    "ScatterND-16": "- -", "ScatterND-18": "- scatter18",
    "Shape-15": "- shape15",
    "Slice-10": "slice10 slice10", "Slice-11": "- x",
    "Split-2": "split2 x", "Split-11": "- neg_axis", "Split-13": "split13 split13", "Split-18": "split18 split18",
    "Squeeze-11": "- neg_axis", "Squeeze-13": "axes_input axes_input",
    "Unsqueeze-11": "- neg_axis", "Unsqueeze-13": "axes_input axes_input",
    "Tile-6": "x x",
    "TopK-10": "topk10 topk10", "TopK-11": "- neg_axis",
    "Upsample-7": "upsample7 x", "Upsample-9": "upsample9 x", "Upsample-10": "upsample10 x",
    # Operators the target may predate, expressed by older ones where that is exact.
    "Gelu-20": "x gelu", "LayerNormalization-17": "x layernorm", "RMSNormalization-23": "x rmsnorm",
    "CastLike-15": "x castlike", "HardSwish-14": "x hardswish", "Mish-18": "x mish",
    "GreaterOrEqual-12": "x or_equal", "LessOrEqual-12": "x or_equal",
    "Trilu-14": "x trilu",
}
for _op in ("L1", "L2", "LogSum", "LogSumExp", "Max", "Mean", "Min", "Prod", "SumSquare"):
    STEPS["Reduce%s-18" % _op] = "axes_input axes_input"
for _op in ("L1", "L2", "LogSum", "LogSumExp", "Max", "Mean", "Min", "Prod", "Sum", "SumSquare"):
    STEPS["Reduce%s-11" % _op] = "- neg_axis"
for _op in ("Add", "And", "Div", "Equal", "Greater", "Less", "Mul", "Or", "Pow", "Sub", "Xor"):
    STEPS["%s-7" % _op] = "drop_broadcast x"


def changes(a, b):
    """What differs between two versions' schemas; [] when only types do."""
    if b.deprecated:
        return ["deprecated"]
    d = []
    ai = {x["name"]: x for x in a.attrs}
    bi = {x["name"]: x for x in b.attrs}
    d += ["-%s" % n for n in ai if n not in bi]
    for n, x in bi.items():
        if n not in ai:
            d.append("+%s" % n)
        elif (ai[n]["default"], ai[n]["type"], ai[n]["required"]) != (x["default"], x["type"], x["required"]):
            d.append("~%s" % n)

    def sig(ps):
        return [(p["name"], p["option"], p["var"]) for p in ps]
    if sig(a.inputs) != sig(b.inputs):
        d.append("inputs")
    if sig(a.outputs) != sig(b.outputs):
        d.append("outputs")
    if not d:
        types = [(v, t.masks, t.map, t.seq_map) for v, t in a.constraints]
        if types == [(v, t.masks, t.map, t.seq_map) for v, t in b.constraints]:
            d.append("the signature is the same")
    return d


def fn(name, prefix):
    return {"-": "KEPT", "x": "NONE"}.get(name, prefix + name)


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: gen_opset_steps.py Changelog.md [OUT.h]\n")
        return 2
    try:
        rows = [r for r in gs.parse_file(argv[1]) if r.domain == ""]
    except (gs.DocError, OSError) as e:
        sys.stderr.write("gen_opset_steps.py: %s\n" % e)
        return 1
    by_op = {}
    for r in rows:
        by_op.setdefault(r.op_type, []).append(r)
    used, lines, unreviewed = set(), [], []
    for op in sorted(by_op):
        vs = sorted(by_op[op], key=lambda r: r.since)
        for i, r in enumerate(vs):
            key = "%s-%d" % (op, r.since)
            if i == 0:
                up, down = "NONE", fn(STEPS[key].split()[1], "dn_") if key in STEPS else "NONE"
                used.add(key)
                lines.append('OPSET_STEP("%s", %d, %s, %s)' % (op, r.since, up, down))
                continue
            d = changes(vs[i - 1], r)
            if key in STEPS:
                up, down = (fn(STEPS[key].split()[0], "up_"), fn(STEPS[key].split()[1], "dn_"))
                used.add(key)
            elif d == ["-consumed_inputs"]:
                up, down = "up_drop_consumed", "KEPT"
            elif not d:
                up = down = "KEPT"
            else:
                up = down = "NONE"
                unreviewed.append("%s (%s)" % (key, ", ".join(d)))
            lines.append('OPSET_STEP("%s", %d, %s, %s)%s' % (op, r.since, up, down,
                                                           " /* %s */" % ", ".join(d) if d else ""))
    stale = sorted(set(STEPS) - used)
    if stale:
        sys.stderr.write("gen_opset_steps.py: STEPS names rows the documentation does not have: %s\n"
                         % ", ".join(stale))
        return 1
    out = []
    out.append("/* rewrite_opset_steps.h: GENERATED by src/core/schema/gen_opset_steps.py from the ONNX")
    out.append(" * documentation's Changelog.md; do not edit.")
    out.append(" *")
    out.append(" *   python3 src/core/schema/gen_opset_steps.py ../shared/reference/onnx/Changelog.md \\")
    out.append(" *       src/passes/rewrite/rewrite_opset_steps.h")
    out.append(" *")
    out.append(" * OPSET_STEP(op, since, up, down): every version of every ai.onnx operator, by")
    out.append(" * operator in strcmp order, versions ascending. up takes a node from the version")
    out.append(" * before to this one, down back; KEPT: the schema fit check is enough; NONE:")
    out.append(" * refused. The comment says what the schema changed at that version (none: types")
    out.append(" * only).")
    if unreviewed:
        out.append(" *")
        out.append(" * Changed and not reviewed (refused both ways): %s." % "; ".join(unreviewed))
    out.append(" */")
    out += lines
    text = "\n".join(out) + "\n"
    if len(argv) == 3:
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
