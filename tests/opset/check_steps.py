#!/usr/bin/env python3
"""check_steps.py: every version of an ai.onnx operator whose schema changed has been
reviewed for the opset conversion.

    python3 tests/opset/check_steps.py Changelog.md src/passes/rewrite/opset_steps.def

The conversion (src/passes/rewrite/rewrite_opset.c) takes its list of versions from
the schema table and its adapters from opset_steps.def, which holds only the
versions that need an adapter or are refused; every other version is KEPT both ways
(or, where it only removed consumed_inputs, drops it upward). That default is right
for a version that changed only the types the operator takes. A version that changed
anything else (attributes or inputs added, removed or moved, a default changed, or
nothing at all in the signature, which means the meaning changed in words) must be
either a row of opset_steps.def or named in REVIEWED below, checked to need nothing
(new attributes whose defaults are the old behaviour, new optional inputs): this
check fails on one that is neither, so a schema regenerated from a newer ONNX never
converts an unreviewed change by guessing. It also fails on a row of
opset_steps.def the schema does not have, out of order or twice, or on a REVIEWED
name that is not a changed version. Standard library only.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "src", "core", "schema"))
import gen_schema as gs  # noqa: E402

# Changed versions reviewed as needing nothing either way: the schema fit check
# (new attributes at their defaults, inputs and outputs within the target's counts,
# the target's types) is enough.
REVIEWED = set("""
    ArgMax-12 ArgMin-12 Attention-25 AveragePool-7 AveragePool-10 AveragePool-11
    AveragePool-19 BatchNormalization-15 Cast-19 Cast-24 CastLike-19 CastLike-24 Constant-11
    Constant-12 Conv-11 ConvTranspose-11 DepthToSpace-11 DequantizeLinear-19 DequantizeLinear-21
    DequantizeLinear-23 GRU-14 GatherND-12 Gemm-11 Identity-14 LSTM-14 LpPool-11 LpPool-18 MaxPool-8
    MaxPool-10 MaxPool-11 MaxUnpool-11 NegativeLogLikelihoodLoss-13 NonMaxSuppression-11
    OptionalHasElement-18 Pow-12 QLinearMatMul-21 QuantizeLinear-19 QuantizeLinear-21
    QuantizeLinear-23 RNN-14 Range-27 Reshape-14 ScatterElements-16 ScatterND-16
""".split())

ROW = re.compile(r'^OPSET_STEP\("(\w+)", (\d+), (\w+), (\w+)\)')


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


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: check_steps.py Changelog.md opset_steps.def\n")
        return 2
    try:
        rows = [r for r in gs.parse_file(argv[1]) if r.domain == ""]
        lines = open(argv[2], encoding="utf-8").read().splitlines()
    except (gs.DocError, OSError) as e:
        sys.stderr.write("check_steps.py: %s\n" % e)
        return 2
    hand = []
    for line in lines:
        m = ROW.match(line)
        if m:
            hand.append((m.group(1), int(m.group(2))))
    problems = []
    if hand != sorted(set(hand), key=lambda k: (k[0].encode(), k[1])):
        problems.append("opset_steps.def: rows out of order (strcmp by operator, versions ascending) or twice")
    by_op = {}
    for r in rows:
        by_op.setdefault(r.op_type, []).append(r)
    versions = {(r.op_type, r.since) for r in rows}
    for op, since in hand:
        if (op, since) not in versions:
            problems.append("opset_steps.def: %s-%d is no version of the schema" % (op, since))
    listed = {"%s-%d" % k for k in hand}
    changed = set()
    for op in sorted(by_op):
        vs = sorted(by_op[op], key=lambda r: r.since)
        for i in range(1, len(vs)):
            key = "%s-%d" % (op, vs[i].since)
            d = changes(vs[i - 1], vs[i])
            if not d or d == ["-consumed_inputs"]:
                continue
            changed.add(key)
            if key not in listed and key not in REVIEWED:
                problems.append("%s changed (%s) and is not reviewed: give it a row of opset_steps.def "
                                "(an adapter, or NONE) or name it in REVIEWED" % (key, ", ".join(d)))
    for key in sorted(REVIEWED - changed):
        problems.append("REVIEWED names %s, which is no changed version" % key)
    for key in sorted(REVIEWED & listed):
        problems.append("%s is both REVIEWED and a row of opset_steps.def" % key)
    for p in problems:
        print(p)
    print("opset steps: %d versions, %d changed, %d rows of opset_steps.def, %d reviewed as kept: %s"
          % (len(rows), len(changed), len(hand), len(REVIEWED), "ok" if not problems else "%d problems" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
