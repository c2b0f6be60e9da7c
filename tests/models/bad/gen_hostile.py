#!/usr/bin/python3
"""gen_hostile.py: writes the regression fixtures for hostile input.

Re-run (needs python3-onnx; the fixtures are committed beside this script):

    /usr/bin/python3 tests/models/bad/gen_hostile.py

Each file in tests/models/bad/hostile/ is one of the problems measured on protobuf-c
1.4.1 alone, or one of the semantic limits the loader enforces. The wire-level ones
are written byte by byte with the small encoder below, because the point is bytes
that no well-behaved encoder would produce (python-protobuf itself refuses to nest
messages 4,400 deep). The expectations (status, message with byte offset and field
path, time and memory bounds) live in tests/unit/test_load_limits.c; keep the names in
step with its table.

  deep_nesting.onnx       4,400 TypeProtos nested through sequence_type.elem_type
                          (29 KB): protobuf-c's recursive unpack overflows the stack.
  million_nodes.onnx      1,000,000 empty NodeProtos (2 MB): protobuf-c allocates
                          about 93 times the file's size for them.
  repeated_graph.onnx     ModelProto.graph given 160,000 times, each with one node:
                          protobuf-c merges every occurrence into the previous ones,
                          which is quadratic.
  nul_in_string.onnx      a node name with a NUL byte: protobuf-c cuts the C string
                          there, so writing the model back would silently lose data.
  enum_attr_type.onnx     AttributeProto.type 99 (no such AttributeType).
  enum_data_location.onnx TensorProto.data_location 7 (no such DataLocation).
  dtype_huge.onnx         TensorProto.data_type 2147483647 on an attribute tensor.
  func_self.onnx          a model-local function that calls itself.
  func_mutual.onnx        two functions calling each other.
  func_if.onnx            a function calling itself from inside an If branch.
  func_depth.onnx         a chain of 40 functions, each calling the next.
  func_depth_32.onnx      the same with 32 functions: the deepest chain accepted.

The output is deterministic (no random data, deterministic serialization).
"""
import os

from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "hostile")

F = TensorProto.FLOAT


# ---- a minimal protobuf wire encoder --------------------------------------------

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


def vfield(num, value):
    """A varint field."""
    return varint(num << 3) + varint(value)


def lfield(num, payload):
    """A length-delimited field (string, bytes or message)."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


# ModelProto: ir_version 8, opset_import { domain "" version 13 }.
HEADER = vfield(1, 8) + lfield(8, lfield(1, b"") + vfield(2, 13))


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def save(model, name):
    write(name, model.SerializeToString(deterministic=True))


# ---- wire-level fixtures --------------------------------------------------------

def deep_nesting(levels=4400):
    # TypeProto { tensor_type { elem_type FLOAT } }, then each level wraps it in
    # TypeProto { sequence_type (4) { elem_type (1) = inner } }.
    tp = lfield(1, vfield(1, F))
    for _ in range(levels - 1):
        tp = lfield(4, lfield(1, tp))
    value_info = lfield(1, b"x") + lfield(2, tp)
    graph = lfield(2, b"g") + lfield(11, value_info)
    return HEADER + lfield(7, graph)


def million_nodes(count=1000000):
    graph = lfield(1, b"") * count
    return HEADER + lfield(7, graph)


def repeated_graph(count=160000):
    # ModelProto.graph (7) is a singular message field: every occurrence after the
    # first is merged into it (its node list grows by one each time).
    return HEADER + lfield(7, lfield(1, b"")) * count


# ---- semantic fixtures, through onnx.helper --------------------------------------

def model(nodes, inputs, outputs, inits=(), functions=(), opsets=None):
    graph = helper.make_graph(list(nodes), "g", list(inputs), list(outputs), initializer=list(inits))
    m = helper.make_model(graph, opset_imports=opsets or [helper.make_opsetid("", 13)],
                          functions=list(functions))
    m.ir_version = 8
    return m


def tin(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


LOCAL = [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)]


def function(name, nodes, opsets=None):
    return helper.make_function("local", name, ["a"], ["b"], nodes,
                                opsets or [helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])


def calling(functions, entry="F"):
    """y = local.<entry>(x), with the given functions."""
    return model([helper.make_node(entry, ["x"], ["y"], name="call", domain="local")],
                 [tin("x", [2])], [tin("y", [2])], functions=functions, opsets=LOCAL)


def call(name, i="a", o="b"):
    return helper.make_node(name, [i], [o], domain="local")


def raw_enum(msg, num, value):
    """Sets enum field `num` of msg to a value outside its enum: python-protobuf refuses
    that through the attribute, but keeps it as an unknown field when parsed, and
    writes it back."""
    msg.MergeFromString(vfield(num, value))


def main():
    os.makedirs(OUT, exist_ok=True)
    write("deep_nesting.onnx", deep_nesting())
    write("million_nodes.onnx", million_nodes())
    write("repeated_graph.onnx", repeated_graph())

    relu = helper.make_node("Relu", ["x"], ["y"], name="relu\x00hidden")
    save(model([relu], [tin("x", [2])], [tin("y", [2])]), "nul_in_string.onnx")

    leaky = helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky", alpha=0.1)
    leaky.attribute[0].ClearField("type")
    raw_enum(leaky.attribute[0], 20, 99)  # AttributeProto.type
    save(model([leaky], [tin("x", [2])], [tin("y", [2])]), "enum_attr_type.onnx")

    w = TensorProto(name="w", data_type=F, dims=[2])
    w.float_data.extend([1.0, 2.0])
    raw_enum(w, 14, 7)  # TensorProto.data_location
    add = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    save(model([add], [tin("x", [2])], [tin("y", [2])], inits=[w]), "enum_data_location.onnx")

    c = TensorProto(name="c", data_type=F, dims=[1])
    c.float_data.append(1.0)
    c.data_type = 2147483647
    const = helper.make_node("Constant", [], ["y"], name="const", value=c)
    save(model([const], [], [tin("y", [1])]), "dtype_huge.onnx")

    save(calling([function("F", [call("F")])]), "func_self.onnx")
    save(calling([function("F", [call("G")]), function("G", [call("F")])]), "func_mutual.onnx")

    then_g = helper.make_graph([call("F", "a", "t")], "then", [], [tin("t", [2])])
    else_g = helper.make_graph([helper.make_node("Identity", ["a"], ["e"])], "else", [], [tin("e", [2])])
    branch = helper.make_node("If", ["cond"], ["b"], then_branch=then_g, else_branch=else_g)
    cond = helper.make_node("Constant", [], ["cond"],
                            value=helper.make_tensor("v", TensorProto.BOOL, [], [True]))
    save(calling([function("F", [cond, branch])]), "func_if.onnx")

    for n, name in ((40, "func_depth.onnx"), (32, "func_depth_32.onnx")):
        chain = [function("F%d" % i, [call("F%d" % (i + 1))]) for i in range(n - 1)]
        chain.append(function("F%d" % (n - 1), [helper.make_node("Relu", ["a"], ["b"])]))
        save(calling(chain, entry="F0"), name)


if __name__ == "__main__":
    main()
