#!/usr/bin/python3
"""gen_bad.py: writes the loader's test fixtures, one tiny model per malformed class.

Re-run (needs python3-onnx; the fixtures are committed beside this script, so the
build does not run it):

    /usr/bin/python3 tests/models/bad/gen_bad.py

It writes
  tests/models/bad/*.onnx      one file per thing the loader must refuse or report,
  tests/models/bad/ext/        external-data files for the bad external references,
                               including the symlink ext/escape.bin (git stores it),
  tests/models/good/*.onnx     models the loader must accept without a diagnostic.

Each bad fixture has exactly one thing wrong, so a test can expect exactly one error.
(Nodes out of topological order, a domain imported twice or not at all are not here:
ONNX Runtime runs such models, so they are warnings, or an opset-error the rest of
the model is checked past; tests/unit/test_validity_loader.c builds them.)
The output is deterministic: running the script twice gives identical bytes (no
random data, no timestamps, protobuf's deterministic serialization). The expected
diagnostics live in tests/unit/test_loader.c and tests/unit/test_cli.c: keep the
file names in step with their tables.
"""
import os
import struct

from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = HERE
EXT = os.path.join(HERE, "ext")
GOOD = os.path.join(os.path.dirname(HERE), "good")

F = TensorProto.FLOAT


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def save(model, name, where=BAD):
    """Serializes without any check: most of these models are wrong on purpose."""
    write(os.path.join(where, name), model.SerializeToString(deterministic=True))


def model(nodes, inputs, outputs, inits=(), opsets=None, ir_version=8, value_info=(), name="g"):
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(inits), value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=opsets or [helper.make_opsetid("", 13)])
    m.ir_version = ir_version
    return m


def tin(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def raw_float_tensor(name, dims, nbytes):
    """A FLOAT tensor whose raw_data has exactly nbytes bytes (right or wrong)."""
    t = TensorProto(name=name, data_type=F, dims=dims)
    t.raw_data = bytes(range(nbytes))
    return t


def external_tensor(name, dims, location, **keys):
    """A FLOAT tensor stored as external data; keys become offset/length strings."""
    t = TensorProto(name=name, data_type=F, dims=dims)
    t.data_location = TensorProto.EXTERNAL
    entries = [("location", location)] + [(k, str(v)) for k, v in sorted(keys.items())]
    for k, v in entries:
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


def add_with_weight(w, shape=(2, 3)):
    """y = x + w, w an initializer: the carrier for every tensor fixture."""
    return model([helper.make_node("Add", ["x", w.name], ["y"], name="add")],
                 [tin("x", list(shape))], [tin("y", list(shape))], inits=[w])


def base():
    """The smallest valid model: y = Relu(x)."""
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [tin("x", [2, 3])], [tin("y", [2, 3])])


def nested_ifs(levels):
    """`levels` If nodes, each in the then_branch of the one before; every branch reads
    the main graph's input x (outer scope) and the condition c.

    Each subgraph level is three messages deeper on the wire (node, attribute, graph),
    and protobuf (C++, and onnxshape's pre-scan) refuses messages nested more than
    100 deep: the graphs at level 32 (97 deep) declare their outputs without a shape
    (a shape's dims would be 102 deep), and graphs at level 33 (100 deep) hold no
    message at all."""
    def body(k, nodes, out):
        if k > 32:
            return helper.make_graph([], "level%d" % k, [], [])
        return helper.make_graph(nodes, "level%d" % k, [], [tin(out, [2] if k < 32 else None)])

    inner = body(levels, [helper.make_node("Relu", ["x"], ["r%d" % levels], name="leaf")], "r%d" % levels)
    for k in range(levels - 1, -1, -1):
        other = body(k + 1, [helper.make_node("Neg", ["x"], ["n%d" % k], name="neg%d" % k)], "n%d" % k)
        node = helper.make_node("If", ["c"], ["o%d" % k], name="If_%d" % k,
                                then_branch=inner, else_branch=other)
        if k == 0:
            return model([node], [tin("c", [], TensorProto.BOOL), tin("x", [2])], [tin("o0", [2])])
        inner = body(k, [node], "o%d" % k)


def gen_bad():
    os.makedirs(EXT, exist_ok=True)

    # 'ghost' is read by node 0 but nothing defines it.
    save(model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")],
               [tin("x", [2, 3])], [tin("y", [2, 3])]), "undefined_input.onnx")

    # 't' is an output of node 0 'r0' and again of node 1 'r1'.
    save(model([helper.make_node("Relu", ["x"], ["t"], name="r0"),
                helper.make_node("Neg", ["x"], ["t"], name="r1"),
                helper.make_node("Identity", ["t"], ["y"], name="id")],
               [tin("x", [2, 3])], [tin("y", [2, 3])]), "produced_twice.onnx")

    # Node 'A' reads 'b', which 'B' computes from A's own output 'a'.
    save(model([helper.make_node("Add", ["x", "b"], ["a"], name="A"),
                helper.make_node("Relu", ["a"], ["b"], name="B")],
               [tin("x", [2, 3])], [tin("a", [2, 3])]), "cycle.onnx")

    # IR version 8 without any opset_import (only IR < 3 may omit it).
    m = base()
    del m.opset_import[:]
    save(m, "no_opset_import.onnx")

    # Initializer 'w' of data type 99, which onnx.TensorProto.DataType does not have.
    w = TensorProto(name="w", data_type=99, dims=[2])
    w.raw_data = bytes(8)
    save(add_with_weight(w, (2,)), "init_unknown_dtype.onnx")

    # Graph input 'x' declared with element type 99.
    save(model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
               [tin("x", [2, 3], 99)], [tin("y", [2, 3])]), "input_unknown_elem_type.onnx")

    # value_info entry for the intermediate 't' with element type 99.
    save(model([helper.make_node("Relu", ["x"], ["t"], name="relu"),
                helper.make_node("Neg", ["t"], ["y"], name="neg")],
               [tin("x", [2, 3])], [tin("y", [2, 3])], value_info=[tin("t", [2, 3], 99)]),
         "value_info_unknown_elem_type.onnx")

    # Initializer 'w' with dims [-2, 3].
    save(add_with_weight(TensorProto(name="w", data_type=F, dims=[-2, 3])), "init_negative_dim.onnx")

    # Initializer 'w' with dims [2^32, 2^32]: 2^64 elements overflow int64.
    save(add_with_weight(TensorProto(name="w", data_type=F, dims=[1 << 32, 1 << 32])),
         "init_dims_overflow.onnx")

    # FLOAT [2, 3] needs 24 bytes of raw_data; it has 20.
    save(add_with_weight(raw_float_tensor("w", [2, 3], 20)), "raw_data_length.onnx")

    # FLOAT [2, 3] needs 6 float_data entries; it has 5.
    w = TensorProto(name="w", data_type=F, dims=[2, 3])
    w.float_data.extend([1.0, 2.0, 3.0, 4.0, 5.0])
    save(add_with_weight(w), "typed_count.onnx")

    # A valid model's bytes cut in half: the graph's length prefix runs past the end.
    good = base().SerializeToString(deterministic=True)
    write(os.path.join(BAD, "truncated.onnx"), good[: len(good) // 2])

    # ir_version 8, then a tag with wire type 7 (there is no such wire type), then junk.
    write(os.path.join(BAD, "corrupt.onnx"), b"\x08\x08\x0f\xde\xad\xbe\xef")

    # Zero bytes.
    write(os.path.join(BAD, "empty.onnx"), b"")

    # A valid model except that ir_version is absent.
    m = base()
    m.ClearField("ir_version")
    save(m, "no_ir_version.onnx")

    # ir_version and opset_import but no graph at all.
    m = base()
    m.ClearField("graph")
    save(m, "no_graph.onnx")

    # External data: 24 bytes, right for FLOAT [2, 3], used by the length/offset cases.
    write(os.path.join(EXT, "w24.bin"), struct.pack("<6f", 1, 2, 3, 4, 5, 6))

    # Location is an absolute path (to a file that exists on every Linux system).
    save(add_with_weight(external_tensor("w", [2, 3], "/etc/passwd")), "ext_absolute.onnx")

    # Location climbs out of the model's directory (to a file that exists and fits).
    save(add_with_weight(external_tensor("w", [2, 3], "../good/external_ok.bin")), "ext_dotdot.onnx")

    # Location with a Windows separator.
    save(add_with_weight(external_tensor("w", [2, 3], "ext\\w24.bin")), "ext_backslash.onnx")

    # Location is a symlink inside the model's directory that points outside it, at a
    # file that exists and has the right size: only the symlink itself is wrong.
    link = os.path.join(EXT, "escape.bin")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink("../../good/external_ok.bin", link)
    save(add_with_weight(external_tensor("w", [2, 3], "ext/escape.bin")), "ext_symlink.onnx")

    # Location names a file that does not exist.
    save(add_with_weight(external_tensor("w", [2, 3], "ext/missing.bin")), "ext_missing.onnx")

    # length 20, but FLOAT [2, 3] is 24 bytes.
    save(add_with_weight(external_tensor("w", [2, 3], "ext/w24.bin", length=20)), "ext_length.onnx")

    # offset 100 in a 24-byte file.
    save(add_with_weight(external_tensor("w", [2, 3], "ext/w24.bin", offset=100)), "ext_offset.onnx")

    # If_0's then_branch: node 0 'then_id' reads 'nope', defined nowhere (nor outside).
    then_g = helper.make_graph([helper.make_node("Identity", ["nope"], ["t"], name="then_id")],
                               "then", [], [tin("t", [2])])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"], name="else_id")],
                               "else", [], [tin("e", [2])])
    save(model([helper.make_node("If", ["c"], ["y"], name="If_0", then_branch=then_g, else_branch=else_g)],
               [tin("c", [], TensorProto.BOOL), tin("x", [2])], [tin("y", [2])]),
         "subgraph_undefined.onnx")

    # 33 If nodes nested through then_branch: If_32 sits in a graph at depth 32, one
    # level more than MAX_SUBGRAPH_DEPTH allows (good/nested_32.onnx is the limit).
    save(nested_ifs(33), "nested_33.onnx")


def gen_good():
    os.makedirs(GOOD, exist_ok=True)

    # Weights of FLOAT [2, 3] in external_ok.bin beside the model, with offset and length.
    write(os.path.join(GOOD, "external_ok.bin"), struct.pack("<6f", 1, 2, 3, 4, 5, 6))
    save(add_with_weight(external_tensor("w", [2, 3], "external_ok.bin", offset=0, length=24)),
         "external_ok.onnx", GOOD)

    # If whose branches read the main graph's input x (outer scope).
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="then_relu")],
                               "then", [], [tin("t", [2])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="else_neg")],
                               "else", [], [tin("e", [2])])
    save(model([helper.make_node("If", ["c"], ["y"], name="If_0", then_branch=then_g, else_branch=else_g)],
               [tin("c", [], TensorProto.BOOL), tin("x", [2])], [tin("y", [2])]),
         "if_outer.onnx", GOOD)

    # Fields our schema does not know: varint field 99 (value 42) in the node, then in
    # the ModelProto after everything else. Packing must keep both, byte for byte.
    m = base()
    node = m.graph.node[0]
    node.ParseFromString(node.SerializeToString(deterministic=True) + b"\x98\x06\x2a")
    data = m.SerializeToString(deterministic=True) + b"\x98\x06\x2a"
    write(os.path.join(GOOD, "unknown_field.onnx"), data)

    # A model-local function local.AddRelu(a, b) = Relu(a + b), called from the graph.
    fn = helper.make_function("local", "AddRelu", ["a", "b"], ["o"],
                              [helper.make_node("Add", ["a", "b"], ["s"], name="fadd"),
                               helper.make_node("Relu", ["s"], ["o"], name="frelu")],
                              [helper.make_opsetid("", 13)])
    m = model([helper.make_node("AddRelu", ["x", "z"], ["y"], name="call", domain="local")],
              [tin("x", [2, 3]), tin("z", [2, 3])], [tin("y", [2, 3])],
              opsets=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
    m.functions.append(fn)
    save(m, "local_function.onnx", GOOD)

    # 32 nested If levels: exactly the deepest the loader accepts.
    save(nested_ifs(32), "nested_32.onnx", GOOD)


if __name__ == "__main__":
    gen_bad()
    gen_good()
