#!/usr/bin/python3
"""make_corpus.py: writes the fuzzers' seed corpus and dictionary (both committed).

    /usr/bin/python3 tests/fuzz/make_corpus.py [NODE_CORPUS_DIR]

NODE_CORPUS_DIR is the ONNX backend node-test corpus the build generates for the
corpus tests (BUILD/corpus/node, made by tests/corpus/gen_corpus.py); default
build/corpus/node. Needs python3-onnx.

  tests/fuzz/corpus/   seeds, named by the SHA-1 of their bytes (as libFuzzer names
                       the inputs it keeps): every loader fixture of tests/models
                       (bad, hostile under 64 KiB, good), and from the node corpus
                       the smallest model of every operator, so each operator's
                       rule is reachable from a seed; and models made here whose
                       attributes and shapes sit at the edges of int64 (INT64_MAX
                       dims, INT64_MIN axes and steps, zero strides, deltas and
                       block sizes, NaN scales), for the shape rules' checked
                       arithmetic.
  tests/fuzz/onnx.dict libFuzzer dictionary: the key byte(s) of every field of every
                       message of onnx-ml.proto (read from the schema, for each wire
                       type the field takes), every operator name of the onnx
                       package's schemas, attribute names those schemas use, and
                       domain names; and the numbers at int64's edges (INT64_MIN,
                       INT64_MAX, 2^63, -1, 0) as text (a dim_param), as varints
                       (int64 fields), as little-endian 8 bytes (raw_data, fixed64),
                       and floats and doubles past int64 (1e30, 3e38, inf, NaN) as
                       little-endian bytes.
  tests/fuzz/corpus-dimexpr/  seeds of fuzz_dimexpr: dim_params in the forms dimexpr.c
                       reads and prints (sympy's), some at int64's edges, with facts.
  tests/fuzz/dimexpr.dict  its dictionary: the syntax, function names, fact lines and
                       the edge numbers as text.

Deterministic: the same inputs give the same files. Old seeds are removed first.
"""
import hashlib
import os
import struct
import sys

import onnx
from onnx import TensorProto as T
from onnx import defs, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(ROOT, "tests", "models")
CORPUS = os.path.join(HERE, "corpus")
DICT = os.path.join(HERE, "onnx.dict")
DX_CORPUS = os.path.join(HERE, "corpus-dimexpr")
DX_DICT = os.path.join(HERE, "dimexpr.dict")
MAX_SEED = 64 * 1024


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def files_under(d):
    for dirpath, _, names in sorted(os.walk(d)):
        for n in sorted(names):
            if n.endswith(".onnx"):
                yield os.path.join(dirpath, n)


def seeds(node_corpus):
    picked = []
    for path in files_under(MODELS):
        if os.path.getsize(path) <= MAX_SEED:
            picked.append(path)
    if not os.path.isdir(node_corpus):
        print("make_corpus: %s not found: no node-test seeds (build and run the corpus tests first)"
              % node_corpus, file=sys.stderr)
        return picked
    by_op = {}
    for path in files_under(node_corpus):
        size = os.path.getsize(path)
        if size > MAX_SEED:
            continue
        m = onnx.load(path)
        for op in {(n.domain, n.op_type) for n in m.graph.node}:
            if op not in by_op or size < os.path.getsize(by_op[op]):
                by_op[op] = path
    return picked + sorted(set(by_op.values()))


BIG = 2**63 - 1
NEG = -2**63


def arith_seeds():
    """Nodes whose attributes and shapes sit at the edges of int64 arithmetic."""
    def tin(n, shape, e=T.FLOAT):
        return helper.make_tensor_value_info(n, e, shape)

    def i64(name, vals, dims=None):
        return helper.make_tensor(name, T.INT64, [len(vals)] if dims is None else dims, vals)

    def model(nodes, inputs, outputs, inits=()):
        g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        return m.SerializeToString(deterministic=True)

    node = helper.make_node
    y = [tin("y", None)]
    return [
        model([node("Conv", ["x", "w"], ["y"], strides=[0, 0])], [tin("x", [BIG, 3, 5, 5]), tin("w", [4, 3, 3, 3])], y),
        model([node("Conv", ["x", "w"], ["y"], dilations=[BIG, BIG], pads=[BIG] * 4)],
              [tin("x", [1, 3, 5, 5]), tin("w", [4, 3, 3, 3])], y),
        model([node("ConvTranspose", ["x", "w"], ["y"], strides=[BIG, BIG], output_padding=[BIG, BIG])],
              [tin("x", [1, 3, BIG, 5]), tin("w", [3, 4, 3, 3])], y),
        model([node("MaxPool", ["x"], ["y"], kernel_shape=[BIG, 1], strides=[0, 1], pads=[NEG, 0, 0, 0])],
              [tin("x", [1, 3, 5, 5])], y),
        model([node("AveragePool", ["x"], ["y"], kernel_shape=[1, 1], strides=[BIG, BIG], ceil_mode=1)],
              [tin("x", [1, 3, BIG, BIG])], y),
        model([node("Reshape", ["x", "s"], ["y"])], [tin("x", [BIG, 2])], y, [i64("s", [BIG, -1])]),
        model([node("Reshape", ["x", "s"], ["y"])], [tin("x", [0, 2])], y, [i64("s", [0, -1])]),
        model([node("Slice", ["x", "a", "b", "c", "d"], ["y"])], [tin("x", [BIG])], y,
              [i64("a", [NEG]), i64("b", [BIG]), i64("c", [0]), i64("d", [NEG])]),
        model([node("Slice", ["x", "a", "b", "c", "d"], ["y"])], [tin("x", [10])], y,
              [i64("a", [0]), i64("b", [10]), i64("c", [0]), i64("d", [0])]),
        model([node("Range", ["a", "b", "c"], ["y"])], [], [tin("y", None, T.INT64)],
              [i64("a", [NEG], []), i64("b", [BIG], []), i64("c", [1], [])]),
        model([node("Range", ["a", "b", "c"], ["y"])], [], [tin("y", None, T.INT64)],
              [i64("a", [0], []), i64("b", [5], []), i64("c", [0], [])]),
        model([node("Expand", ["x", "s"], ["y"])], [tin("x", [1, 1])], y, [i64("s", [BIG, BIG])]),
        model([node("Concat", ["x", "x"], ["y"], axis=0)], [tin("x", [BIG])], y),
        model([node("Pad", ["x", "p"], ["y"])], [tin("x", [BIG])], y, [i64("p", [BIG, BIG])]),
        model([node("Tile", ["x", "r"], ["y"])], [tin("x", [BIG])], y, [i64("r", [BIG])]),
        model([node("DepthToSpace", ["x"], ["y"], blocksize=BIG)], [tin("x", [1, BIG, 2, 2])], y),
        model([node("SpaceToDepth", ["x"], ["y"], blocksize=0)], [tin("x", [1, 4, 2, 2])], y),
        model([node("Resize", ["x", "", "s"], ["y"])], [tin("x", [1, 1, BIG, BIG])], y,
              [helper.make_tensor("s", T.FLOAT, [4], [1, 1, 1e30, 1e30])]),
        model([node("Resize", ["x", "", "s"], ["y"])], [tin("x", [1, 1, 4, 4])], y,
              [helper.make_tensor("s", T.FLOAT, [4], [1, 1, float("nan"), -1])]),
        model([node("Gather", ["x", "i"], ["y"], axis=NEG)], [tin("x", [3, 4])], y, [i64("i", [0])]),
        model([node("Transpose", ["x"], ["y"], perm=[BIG, NEG])], [tin("x", [3, 4])], y),
        model([node("Split", ["x", "s"], ["y", "z"], axis=0)], [tin("x", [BIG])], y + [tin("z", None)],
              [i64("s", [BIG, BIG])]),
        model([node("MatMul", ["a", "b"], ["y"])], [tin("a", [BIG, BIG, 3]), tin("b", [3, BIG])], y),
        model([node("Flatten", ["x"], ["y"], axis=2)], [tin("x", [BIG, BIG, BIG])], y),
        model([node("Unsqueeze", ["x", "a"], ["y"])], [tin("x", [2])], y, [i64("a", [NEG, BIG])]),
        model([node("OneHot", ["i", "d", "v"], ["y"])], [tin("i", [BIG], T.INT64)], y,
              [i64("d", [BIG], []), helper.make_tensor("v", T.FLOAT, [2], [0, 1])]),
        model([node("Shape", ["x"], ["s"], start=NEG, end=BIG), node("ConstantOfShape", ["s"], ["y"])],
              [tin("x", [BIG, BIG])], y),
        model([node("TopK", ["x", "k"], ["v", "i"])], [tin("x", [3])], [tin("v", None), tin("i", None, T.INT64)],
              [i64("k", [NEG])]),
        model([node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik")], [tin("a", [BIG, 3]), tin("b", [3, BIG])], y),
        # INT64_MIN / -1: Reshape's -1 over Shape * INT64_MIN, and integer Div and Mod.
        model([node("Shape", ["x"], ["s"]), node("Mul", ["s", "m"], ["sm"]), node("ConstantOfShape", ["sm"], ["z"]),
               node("Mul", ["s", "n"], ["sn"]), node("Concat", ["sn", "n"], ["t"], axis=0),
               node("Reshape", ["z", "t"], ["y"])],
              [tin("x", ["N"])], y, [i64("m", [NEG]), i64("n", [-1])]),
        model([node("Div", ["a", "b"], ["q"]), node("Mod", ["a", "b"], ["y"]), node("ConstantOfShape", ["q"], ["z"])],
              [], [tin("y", None, T.INT64), tin("z", None)], [i64("a", [NEG]), i64("b", [-1])]),
        model([node("Identity", ["x"], ["y"])], [tin("x", ["(-9223372036854775807 - 1)/-1", "Mod(N, -1)"])], y),
        model([node("Resize", ["x", "", "s"], ["y"])], [tin("x", [1, 1, "H", 4])], y,
              [helper.make_tensor("s", T.FLOAT, [4], [1, 1, float("inf"), 3e38])]),
    ]


def dimexpr_seeds():
    """Texts for fuzz_dimexpr: one dim_param a line, "?I=J" and "?I:V" facts."""
    lines = [
        "batch*seq", "2*seq + 1", "floor((H + 31)/32)", "floor(H/32 + 31/32)", "ceiling(N/2)",
        "Max(a, b)", "Min(seq, 512)", "Mod(N, 3)", "FloorDiv(N, 4)", "CeilDiv(N, 4)", "N**2", "-N",
        "past + seq", "batch-size", "(batch*seq*768)/768", "floor((floor((H - 1)/2) + 1)/2)",
        "9223372036854775807*N", "(-9223372036854775807 - 1)/-1", "(-9223372036854775807 - 1)*N/(-N)",
        "Mod(-9223372036854775807 - 1, -1)", "floor(N/0)", "4294967296*N*M",
    ]
    seeds = [(l + "\n").encode() for l in lines]
    seeds += [
        b"2*N + 1\nN\n?0:7\n",
        b"N\nM\n?0=1\nN*M\n",
        b"-N\n?0:-9223372036854775808\n",
        b"Max(N, M)\nMin(N, M)\n?0=1\n",
        b"floor((H + 31)/32)\nH\n?1:9223372036854775807\n",
        b"N - M\nN\nM\n?1=2\n?0:0\n",
    ]
    return seeds


def write_seeds(d, blobs):
    os.makedirs(d, exist_ok=True)
    for n in os.listdir(d):
        if not n.startswith("."):
            os.unlink(os.path.join(d, n))
    for data in blobs:
        with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
    return len(blobs)


def dimexpr_dictionary():
    words = ["floor(", "ceiling(", "ceil(", "Max(", "Min(", "max(", "min(", "Mod(", "FloorDiv(", "CeilDiv(",
             "**", " + ", " - ", "*", "/", "(", ")", ", ", "-", "\n", "?0=1", "?1=0", "?0:", "?1:",
             "N", "batch", "seq", "unk__0"]
    words += [str(v) for v in EDGES]
    return ['dx_%d="%s"' % (i, escape(w.encode())) for i, w in enumerate(words)]


def write_corpus(paths, extra):
    os.makedirs(CORPUS, exist_ok=True)
    for n in os.listdir(CORPUS):
        if not n.startswith("."):
            os.unlink(os.path.join(CORPUS, n))
    names = set()
    blobs = []
    for path in paths:
        with open(path, "rb") as f:
            blobs.append(f.read())
    for data in blobs + extra:
        if not data:
            continue  # libFuzzer always tries the empty input
        name = hashlib.sha1(data).hexdigest()
        if name in names:
            continue
        names.add(name)
        with open(os.path.join(CORPUS, name), "wb") as f:
            f.write(data)
    return len(names)


def escape(b):
    return "".join(chr(c) if 0x20 <= c < 0x7F and chr(c) not in '"\\' else "\\x%02x" % c for c in b)


WIRE = {  # FieldDescriptor.TYPE_* -> wire types it is read with (packed: 2 as well)
    1: 1, 2: 5, 3: 0, 4: 0, 5: 0, 6: 1, 7: 5, 8: 0, 9: 2, 11: 2, 12: 2, 13: 0, 14: 0,
    15: 5, 16: 1, 17: 0, 18: 0,
}


EDGES = [NEG, BIG, 2**63, -1, 0, 1, 2**32, -2**31 - 1]
FLOATS = [1e30, 3e38, -3e38, float("inf"), float("-inf"), float("nan"), 2.0**63, -2.0**63]


def int64_varint(v):
    """An int64 as protobuf writes it in a varint field (two's complement, 10 bytes
    for a negative value)."""
    return varint(v & (2**64 - 1))


def dictionary():
    entries = []
    seen = set()

    def add(name, value):
        if value and value not in seen:
            seen.add(value)
            entries.append('%s="%s"' % (name, escape(value)))

    pending = list(onnx.onnx_ml_pb2.DESCRIPTOR.message_types_by_name.values())
    while pending:
        msg = pending.pop(0)
        pending.extend(msg.nested_types)
        for f in msg.fields:
            wts = {WIRE[f.type]}
            if f.label == f.LABEL_REPEATED:
                wts.add(2)
            for wt in sorted(wts):
                add("key_%s_%s_%d" % (msg.name, f.name, wt), varint(f.number << 3 | wt))
    ops, attrs, domains = set(), set(), set()
    for s in defs.get_all_schemas_with_history():
        ops.add(s.name)
        attrs.update(s.attributes)
        domains.add(s.domain)
    for op in sorted(ops):
        add("op_" + op, op.encode())
    for a in sorted(attrs):
        add("attr_" + a, a.encode())
    for d in sorted(domains | {"ai.onnx", "local", "com.example"}):
        add("domain_" + (d or "default").replace(".", "_"), d.encode())
    for v in EDGES:
        tag = ("m" if v < 0 else "") + str(abs(v))
        add("int_text_" + tag, str(v).encode())
        add("int_varint_" + tag, int64_varint(v))
        add("int_le8_" + tag, (v & (2**64 - 1)).to_bytes(8, "little"))
    add("int_text_min_expr", b"(-9223372036854775807 - 1)")
    for i, f in enumerate(FLOATS):
        add("float_le4_%d" % i, struct.pack("<f", f))
        add("double_le8_%d" % i, struct.pack("<d", f))
        add("float_text_%d" % i, repr(f).encode())
    return entries


def main():
    node_corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "corpus", "node")
    n = write_corpus(seeds(node_corpus), arith_seeds())
    entries = dictionary()
    with open(DICT, "w") as f:
        f.write("# onnx.dict: libFuzzer dictionary for onnxshape, written by make_corpus.py.\n")
        f.write("# Field keys of onnx-ml.proto, operator, attribute and domain names; int64's edges\n")
        f.write("# as text, varints and little-endian bytes; floats past int64 as bytes.\n")
        f.write("\n".join(entries) + "\n")
    print("make_corpus: %d seeds in %s, %d dictionary entries in %s" % (n, CORPUS, len(entries), DICT))
    n = write_seeds(DX_CORPUS, dimexpr_seeds())
    entries = dimexpr_dictionary()
    with open(DX_DICT, "w") as f:
        f.write("# dimexpr.dict: libFuzzer dictionary for fuzz_dimexpr, written by make_corpus.py.\n")
        f.write("# The dim_param syntax, its function names, fact lines and int64's edges as text.\n")
        f.write("\n".join(entries) + "\n")
    print("make_corpus: %d seeds in %s, %d dictionary entries in %s" % (n, DX_CORPUS, len(entries), DX_DICT))


if __name__ == "__main__":
    main()
