#!/usr/bin/python3
"""gen_models.py: seeded synthetic ONNX models for the benchmarks.

usage: gen_models.py [--seed S] [--d D] [--channels C] OUTDIR FAMILY:NODES[:WIDTH]...
  FAMILY  transformer | cnn
  NODES   the number of nodes wanted (1k, 10k, 100k, 1m or a plain number); the model
          has whole blocks, so the count is rounded to a multiple of the block size.
  WIDTH   dD (transformer hidden size) or cC (cnn channels) for this model only: e.g.
          transformer:1k:d1024 is 1k nodes with 1.3 GB of weights (few nodes, big
          weights, as in a large language model).

Each model is written twice into OUTDIR: FAMILY-NODES.onnx with its weights inline
(raw_data) and FAMILY-NODES[-WIDTH]-ext/model.onnx with the same weights as external data in
FAMILY-NODES-ext/weights.bin. A model that already exists (same parameters, stamp
file) is not generated again. Prints one line per model: path, nodes, bytes, seconds.

The models:
  transformer  pre-LayerNorm blocks (39 nodes each) on x [batch, seq, d]: Q/K/V MatMul
               + bias Add; heads split by Reshape to a shape computed with Shape ->
               Gather -> Concat from x, Transpose; scores MatMul, scale Mul, an
               attention mask [batch, 1, 1, seq] broadcast Add, Softmax, context
               MatMul, Transpose, Reshape back, output MatMul + bias, residual Add;
               LayerNorm, MLP MatMul (d -> 4d) + bias, GELU written as
               x * 0.5 * (1 + erf(x / sqrt 2)), MatMul (4d -> d) + bias, residual Add.
               batch and seq are symbolic. Weights per block: 12 d^2 + 13 d floats.
  cnn          residual blocks (7 nodes each) on x [batch, C, 32, 32]: Conv 3x3 pad 1
               + BatchNormalization + Relu, Conv + BatchNormalization, residual Add,
               Relu. batch is symbolic. Weights per block: 18 C^2 + 10 C floats.
With the defaults (d = 32, C = 11) both carry about 1.3 to 1.5 KB of weights per node,
so the 1M-node models hold 1.3 to 1.5 GB inline, within protobuf's 2 GiB.

Speed: a block's nodes are built once with onnx.helper, with fixed-width placeholder
names, serialized, and then copied per block with the placeholders replaced (same
width, so every length prefix stays right). Initializers and the outer messages are
encoded here directly (a few protobuf fields), and the weights are streamed to the
file block by block, so generating never holds the model in memory. Seeded with
numpy's default_rng: the same seed gives the same bytes. The graph's fields come in
field-number order (every node, then the initializers), as onnx.save writes them.
"""
import argparse
import os
import sys
import time

import numpy as np
from onnx import TensorProto, helper

OPSET = 17  # LayerNormalization is opset 17
WIDTH = 7  # digits of a block number in names
CUR = b"@" * WIDTH  # placeholder: this block's number
NXT = b"%" * WIDTH  # placeholder: the next block's number (its output)


# ---- protobuf wire encoding: just what the outer messages need --------------------
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def fld_bytes(field, payload):
    return key(field, 2) + varint(len(payload)) + payload


def fld_varint(field, n):
    return key(field, 0) + varint(n)


def ld_header(field, length):
    """The key and length prefix of a length-delimited field of `length` bytes."""
    return key(field, 2) + varint(length)


# TensorProto fields
T_DIMS, T_DTYPE, T_NAME, T_RAW, T_EXT, T_LOC = 1, 2, 8, 9, 13, 14
# GraphProto fields
G_NODE, G_NAME, G_INIT, G_INPUT, G_OUTPUT = 1, 2, 5, 11, 12
# ModelProto fields
M_IR, M_PRODUCER, M_GRAPH, M_OPSET = 1, 2, 7, 8


def tensor_header(name, dims, dtype):
    b = b"".join(fld_varint(T_DIMS, d) for d in dims)
    return b + fld_varint(T_DTYPE, dtype) + fld_bytes(T_NAME, name)


def tensor_inline(name, dims, dtype, raw):
    return tensor_header(name, dims, dtype) + fld_bytes(T_RAW, raw)


def tensor_external(name, dims, dtype, location, offset, length):
    b = tensor_header(name, dims, dtype)
    for k, v in ((b"location", location), (b"offset", str(offset).encode()), (b"length", str(length).encode())):
        b += fld_bytes(T_EXT, fld_bytes(1, k) + fld_bytes(2, v))
    return b + fld_varint(T_LOC, 1)


# ---- the block templates -----------------------------------------------------------
def p(name):
    """A per-block name: x<block>_name."""
    return "x" + "@" * WIDTH + "_" + name


def block_in():
    return "h" + "@" * WIDTH


def block_out():
    return "h" + "%" * WIDTH


class Family:
    """nodes: NodeProtos of one block (placeholder names); weights: (name, dims) of the
    block's float initializers; consts: shared initializers (name, dims, dtype, raw);
    inputs/outputs: ValueInfoProtos of the graph (built per model)."""


def transformer(d):
    heads = 4 if d % 4 == 0 else 1
    dh = d // heads
    n = []

    def node(op, ins, outs, **attrs):
        n.append(helper.make_node(op, ins, outs, name=p("%s_%d" % (op, len(n))), **attrs))

    x = block_in()
    node("LayerNormalization", [x, p("ln1_g"), p("ln1_b")], [p("ln1")], axis=-1, epsilon=1e-5)
    for w in "qkv":
        node("MatMul", [p("ln1"), p("W" + w)], [p(w + "_mm")])
        node("Add", [p(w + "_mm"), p("b" + w)], [p(w)])
    node("Shape", [x], [p("shape")])
    node("Gather", [p("shape"), "c_idx0"], [p("batch")], axis=0)
    node("Gather", [p("shape"), "c_idx1"], [p("seq")], axis=0)
    node("Concat", [p("batch"), p("seq"), "c_heads"], [p("split_shape")], axis=0)
    perms = {"q": [0, 2, 1, 3], "k": [0, 2, 3, 1], "v": [0, 2, 1, 3]}
    for w in "qkv":
        node("Reshape", [p(w), p("split_shape")], [p(w + "_split")])
        node("Transpose", [p(w + "_split")], [p(w + "_t")], perm=perms[w])
    node("MatMul", [p("q_t"), p("k_t")], [p("scores")])
    node("Mul", [p("scores"), "c_scale"], [p("scaled")])
    node("Add", [p("scaled"), "mask"], [p("masked")])
    node("Softmax", [p("masked")], [p("probs")], axis=-1)
    node("MatMul", [p("probs"), p("v_t")], [p("ctx")])
    node("Transpose", [p("ctx")], [p("ctx_t")], perm=[0, 2, 1, 3])
    node("Concat", [p("batch"), p("seq"), "c_d"], [p("merge_shape")], axis=0)
    node("Reshape", [p("ctx_t"), p("merge_shape")], [p("ctx_m")])
    node("MatMul", [p("ctx_m"), p("Wo")], [p("o_mm")])
    node("Add", [p("o_mm"), p("bo")], [p("o")])
    node("Add", [x, p("o")], [p("r1")])
    node("LayerNormalization", [p("r1"), p("ln2_g"), p("ln2_b")], [p("ln2")], axis=-1, epsilon=1e-5)
    node("MatMul", [p("ln2"), p("W1")], [p("f1_mm")])
    node("Add", [p("f1_mm"), p("b1")], [p("f1")])
    node("Div", [p("f1"), "c_sqrt2"], [p("g_div")])
    node("Erf", [p("g_div")], [p("g_erf")])
    node("Add", [p("g_erf"), "c_one"], [p("g_add")])
    node("Mul", [p("f1"), p("g_add")], [p("g_mul")])
    node("Mul", [p("g_mul"), "c_half"], [p("gelu")])
    node("MatMul", [p("gelu"), p("W2")], [p("f2_mm")])
    node("Add", [p("f2_mm"), p("b2")], [p("f2")])
    node("Add", [p("r1"), p("f2")], [block_out()])
    f = Family()
    f.nodes = n
    f.weights = [("ln1_g", [d]), ("ln1_b", [d]), ("Wq", [d, d]), ("bq", [d]), ("Wk", [d, d]), ("bk", [d]),
                 ("Wv", [d, d]), ("bv", [d]), ("Wo", [d, d]), ("bo", [d]), ("ln2_g", [d]), ("ln2_b", [d]),
                 ("W1", [d, 4 * d]), ("b1", [4 * d]), ("W2", [4 * d, d]), ("b2", [d])]
    i64 = lambda v: np.array(v, dtype=np.int64).tobytes()  # noqa: E731
    f32 = lambda v: np.array(v, dtype=np.float32).tobytes()  # noqa: E731
    f.consts = [("c_idx0", [1], TensorProto.INT64, i64([0])), ("c_idx1", [1], TensorProto.INT64, i64([1])),
                ("c_heads", [2], TensorProto.INT64, i64([heads, dh])), ("c_d", [1], TensorProto.INT64, i64([d])),
                ("c_scale", [], TensorProto.FLOAT, f32(1.0 / np.sqrt(dh))),
                ("c_sqrt2", [], TensorProto.FLOAT, f32(np.sqrt(2.0))),
                ("c_one", [], TensorProto.FLOAT, f32(1.0)), ("c_half", [], TensorProto.FLOAT, f32(0.5))]
    f.inputs = lambda: [helper.make_tensor_value_info("h" + "0" * WIDTH, TensorProto.FLOAT, ["batch", "seq", d]),
                        helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", 1, 1, "seq"])]
    f.output_shape = ["batch", "seq", d]
    return f


def cnn(c):
    n = []

    def node(op, ins, outs, **attrs):
        n.append(helper.make_node(op, ins, outs, name=p("%s_%d" % (op, len(n))), **attrs))

    x = block_in()
    conv = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1])
    node("Conv", [x, p("W1"), p("B1")], [p("c1")], **conv)
    node("BatchNormalization", [p("c1"), p("s1"), p("o1"), p("m1"), p("v1")], [p("n1")], epsilon=1e-5)
    node("Relu", [p("n1")], [p("r1")])
    node("Conv", [p("r1"), p("W2"), p("B2")], [p("c2")], **conv)
    node("BatchNormalization", [p("c2"), p("s2"), p("o2"), p("m2"), p("v2")], [p("n2")], epsilon=1e-5)
    node("Add", [p("n2"), x], [p("sum")])
    node("Relu", [p("sum")], [block_out()])
    f = Family()
    f.nodes = n
    f.weights = [("W1", [c, c, 3, 3]), ("B1", [c]), ("s1", [c]), ("o1", [c]), ("m1", [c]), ("v1", [c]),
                 ("W2", [c, c, 3, 3]), ("B2", [c]), ("s2", [c]), ("o2", [c]), ("m2", [c]), ("v2", [c])]
    f.consts = []
    f.inputs = lambda: [helper.make_tensor_value_info("h" + "0" * WIDTH, TensorProto.FLOAT, ["batch", c, 32, 32])]
    f.output_shape = ["batch", c, 32, 32]
    return f


def block_template(f):
    # The block's nodes as GraphProto field-1 entries and nothing else (a GraphProto
    # serialized whole would bring its name along, once per block).
    return b"".join(fld_bytes(G_NODE, n.SerializeToString()) for n in f.nodes)


def fill(tmpl, i):
    return tmpl.replace(CUR, b"%0*d" % (WIDTH, i)).replace(NXT, b"%0*d" % (WIDTH, i + 1))


# ---- one model ---------------------------------------------------------------------
def write_model(path, f, blocks, seed, ext_dir=None):
    """Writes the model with `blocks` blocks to path; weights inline, or (ext_dir) into
    ext_dir/weights.bin as external data. Streams: the graph's length is computed
    first from the pieces' lengths, then the pieces are written."""
    tmpl = block_template(f)
    sizes = [int(np.prod(dims)) * 4 for _, dims in f.weights]
    names = [(p(w).encode(), dims) for w, dims in f.weights]
    wfile = None
    offset = 0
    if ext_dir:
        wfile = open(os.path.join(ext_dir, "weights.bin"), "wb")

    # Fixed parts.
    consts = b"".join(fld_bytes(G_INIT, tensor_inline(n.encode(), dims, dt, raw)) for n, dims, dt, raw in f.consts)
    ins = b"".join(fld_bytes(G_INPUT, vi.SerializeToString()) for vi in f.inputs())
    last = "h%0*d" % (WIDTH, blocks)
    out_vi = helper.make_tensor_value_info(last, TensorProto.FLOAT, f.output_shape)
    outs = fld_bytes(G_OUTPUT, out_vi.SerializeToString())
    gname = fld_bytes(G_NAME, b"bench")

    # Initializer headers: inline ones have a fixed length per weight (the name is fixed
    # width); external ones depend on the offset string, so they are built up front
    # (small: a few hundred bytes per block).
    def inline_entry_len(name, dims, size):
        body = len(tensor_header(name, dims, TensorProto.FLOAT)) + len(ld_header(T_RAW, size)) + size
        return len(ld_header(G_INIT, body)) + body

    if ext_dir:
        ext_entries = []
        total = 0
        for i in range(blocks):
            num = b"%0*d" % (WIDTH, i)
            parts = []
            for (name, dims), size in zip(names, sizes):
                t = tensor_external(name.replace(CUR, num), dims, TensorProto.FLOAT, b"weights.bin", offset, size)
                parts.append(fld_bytes(G_INIT, t))
                offset += size
            e = b"".join(parts)
            ext_entries.append(e)
            total += len(e)
        graph_len = len(gname) + blocks * len(tmpl) + total + len(consts) + len(ins) + len(outs)
    else:
        per_block = sum(inline_entry_len(name, dims, size) for (name, dims), size in zip(names, sizes))
        graph_len = len(gname) + blocks * (len(tmpl) + per_block) + len(consts) + len(ins) + len(outs)

    rng = np.random.default_rng(seed)
    total_floats = sum(sizes) // 4
    with open(path, "wb") as out:
        out.write(fld_varint(M_IR, 8))
        out.write(fld_bytes(M_PRODUCER, b"onnxshape-bench"))
        out.write(ld_header(M_GRAPH, graph_len))
        start = out.tell()
        # The graph's fields in field-number order, as onnx.save writes them: every
        # node, the name, the initializers (weights streamed block by block), then
        # the inputs and outputs.
        buf = []
        for i in range(blocks):
            buf.append(fill(tmpl, i))
            if len(buf) > 4096:
                out.write(b"".join(buf))
                buf = []
        out.write(b"".join(buf))
        out.write(gname)
        out.write(consts)
        buf = []
        for i in range(blocks):
            data = (rng.standard_normal(total_floats, dtype=np.float32) * np.float32(0.02)).tobytes()
            if ext_dir:
                buf.append(ext_entries[i])
                wfile.write(data)
            else:
                num = b"%0*d" % (WIDTH, i)
                pos = 0
                for (name, dims), size in zip(names, sizes):
                    hdr = tensor_header(name.replace(CUR, num), dims, TensorProto.FLOAT) + ld_header(T_RAW, size)
                    buf.append(ld_header(G_INIT, len(hdr) + size))
                    buf.append(hdr)
                    buf.append(data[pos:pos + size])
                    pos += size
            if len(buf) > 4096:
                out.write(b"".join(buf))
                buf = []
        out.write(b"".join(buf))
        out.write(ins)
        out.write(outs)
        assert out.tell() - start == graph_len, (out.tell() - start, graph_len)
        # The model's fields in field-number order, as onnx.save writes them: the
        # opset imports (8) after the graph (7).
        out.write(fld_bytes(M_OPSET, fld_bytes(1, b"") + fld_varint(2, OPSET)))
    if wfile:
        wfile.close()
    return blocks * len(f.nodes)


def parse_nodes(s):
    s = s.lower()
    mult = {"k": 1000, "m": 1000000}.get(s[-1], 1)
    return int(s.rstrip("km")) * mult


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=9)
    ap.add_argument("--d", type=int, default=32, help="transformer hidden size")
    ap.add_argument("--channels", type=int, default=11, help="cnn channels")
    ap.add_argument("--inline-only", action="store_true")
    ap.add_argument("outdir")
    ap.add_argument("models", nargs="+", help="FAMILY:NODES, e.g. transformer:10k")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for spec in a.models:
        parts = spec.split(":")
        fam, size = parts[0], parts[1]
        d, c = a.d, a.channels
        width = parts[2] if len(parts) > 2 else ""
        if width.startswith("d"):
            d = int(width[1:])
        elif width.startswith("c"):
            c = int(width[1:])
        f = {"transformer": lambda: transformer(d), "cnn": lambda: cnn(c)}[fam]()
        blocks = max(1, round(parse_nodes(size) / len(f.nodes)))
        base = os.path.join(a.outdir, "%s-%s%s" % (fam, size.lower(), "-" + width if width else ""))
        params = "seed=%d d=%d c=%d blocks=%d v5\n" % (a.seed, d, c, blocks)
        variants = [(base + ".onnx", None)]
        if not a.inline_only:
            variants.append((os.path.join(base + "-ext", "model.onnx"), base + "-ext"))
        for path, ext_dir in variants:
            stamp = path + ".params"
            if os.path.exists(stamp) and os.path.exists(path) and open(stamp).read() == params:
                print("%s: up to date" % path, flush=True)
                continue
            if ext_dir:
                os.makedirs(ext_dir, exist_ok=True)
            t0 = time.perf_counter()
            nodes = write_model(path, f, blocks, a.seed, ext_dir)
            with open(stamp, "w") as s:
                s.write(params)
            print("%s: %d nodes, %d bytes, generated in %.1f s" % (path, nodes, os.path.getsize(path),
                                                                    time.perf_counter() - t0), flush=True)


if __name__ == "__main__":
    sys.exit(main())
