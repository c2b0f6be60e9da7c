#!/usr/bin/env python3
"""probe_kernels.py: writes src/core/schema/kernel_table.c, what ONNX Runtime's CPU
provider can run, by asking it.

    python3 tests/ort/probe_kernels.py DOCS ORT_DIR [--out src/core/schema/kernel_table.c]
    python3 tests/ort/probe_kernels.py DOCS ORT_DIR --check src/core/schema/kernel_table.c
        [--sample N]

DOCS holds the ONNX documentation gen_schema.py reads (Changelog.md, Changelog-ml.md:
tests/data/onnx-docs.tar.xz unpacked), ORT_DIR the onnxruntime-node install
(tests/ort/setup.sh). For every row of the schema table (gen_schema.py's rows, in its
order) and every binding of its type variables to the types the schema allows there
(the product over its variables), and for every com.microsoft operator the tool has a
rule for (MS_PROBES below: ONNX Runtime's contrib schemas are not in the tree, so each
has its type variables written out), it builds a one-node model and has
probe_kernels.js create a session on it, in one node process. Each probe's verdict:

  k  the session was created: the CPU provider has a kernel (a kernel that refused
     the probe's attributes in its constructor, its own source file named in the
     message, has one too)
  n  "Could not find an implementation for ...": no CPU kernel for that binding
  r  "... is not a registered function/op": the runtime does not know the operator
     at that version, whatever the types
  v  the runtime refuses the opset the row needs (newer than it runs)
  x  any other failure: the probe model was not one the runtime could judge (a type
     combination its schema refuses, a shape its inference rejects); never counted
     as a missing kernel

It also finds the newest opset of each domain and the newest IR version the runtime
loads. --out writes the table (stdout without it); --check probes every Nth binding
(N from --sample, default 20) and the versions again and fails, naming them, where
the runtime's verdict differs from the committed table's, or where the table does not
have the schema's rows and types. Deterministic: the same runtime gives the same table,
byte for byte. Standard library only (the models are encoded here).
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "src", "core", "schema"))
import gen_schema as gs  # noqa: E402

JS = os.path.join(HERE, "probe_kernels.js")

# ---- type codes: kind << 10 | key << 5 | elem, as kernels.h reads them ----------------
K_TENSOR, K_SPARSE, K_SEQ, K_OPT, K_OPT_SEQ, K_MAP, K_SEQ_MAP = range(7)
KIND_BY_FIELD = {"tensor": K_TENSOR, "sparse": K_SPARSE, "seq": K_SEQ, "opt_tensor": K_OPT,
                 "opt_seq": K_OPT_SEQ}
ELEM_NAME = {v: k for k, v in gs.ELEM_TYPES.items()}


def code(kind, elem, key=0):
    return kind << 10 | key << 5 | elem


def code_kind(c):
    return c >> 10


def code_elem(c):
    return c & 31


def code_key(c):
    return (c >> 5) & 31


def type_name(c):
    kind, elem, key = code_kind(c), ELEM_NAME[code_elem(c)], code_key(c)
    if kind == K_MAP:
        return "map(%s, %s)" % (ELEM_NAME[key], elem)
    if kind == K_SEQ_MAP:
        return "seq(map(%s, %s))" % (ELEM_NAME[key], elem)
    return ("%s", "sparse_tensor(%s)", "seq(tensor(%s))", "optional(tensor(%s))",
            "optional(seq(tensor(%s)))")[kind] % elem


# gen_schema keeps only "some map" of a map type: the probes need the key and value
# types, so the parser is taught to keep them too (nothing else of it changes).
class MapTypes(gs.Types):
    def __init__(self):
        super().__init__()
        self.maps = []  # codes

    def add(self, other):
        super().add(other)
        for c in getattr(other, "maps", []):
            if c not in self.maps:
                self.maps.append(c)


_parse_type = gs.parse_type


def parse_type(text, where):
    t = MapTypes()
    t.add(_parse_type(text, where))
    for kind, inner in ((K_MAP, gs.unwrap(text, "map")),
                        (K_SEQ_MAP, gs.unwrap(gs.unwrap(text, "seq") or "", "map"))):
        if inner is None:
            continue
        k, v = gs.split_top(inner, where)
        if v in gs.ELEM_TYPES:
            t.maps.append(code(kind, gs.ELEM_TYPES[v], gs.ELEM_TYPES[k]))
    return t


gs.Types = MapTypes
gs.parse_type = parse_type


def codes_of(types):
    """Every type of a set, in the table's order: by kind, then element type."""
    out = []
    for field in gs.Types.FIELDS:
        mask = types.masks[field]
        out += [code(KIND_BY_FIELD[field], e) for e in range(1, 32) if mask >> e & 1]
    return out + sorted(types.maps)


def schema_rows(docs):
    rows = gs.parse_file(os.path.join(docs, "Changelog.md")) + gs.parse_file(os.path.join(docs, "Changelog-ml.md"))
    gs.amend(rows)
    return gs.sort_rows(rows)


# ---- protobuf, as much of onnx.proto as a probe needs ---------------------------------

def varint(n):
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_int(field, n):
    return varint(field << 3) + varint(n)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(field << 3 | 2) + varint(len(b)) + b


def f_float(field, x):
    return varint(field << 3 | 5) + struct.pack("<f", x)


def type_proto(c):
    kind, elem, key = code_kind(c), code_elem(c), code_key(c)
    tensor = f_bytes(1, f_int(1, elem))
    if kind == K_TENSOR:
        return tensor
    if kind == K_SPARSE:
        return f_bytes(8, f_int(1, elem))
    if kind == K_SEQ:
        return f_bytes(4, f_bytes(1, tensor))
    if kind == K_OPT:
        return f_bytes(9, f_bytes(1, tensor))
    if kind == K_OPT_SEQ:
        return f_bytes(9, f_bytes(1, f_bytes(4, f_bytes(1, tensor))))
    mp = f_bytes(5, f_int(1, key) + f_bytes(2, tensor))
    return mp if kind == K_MAP else f_bytes(4, f_bytes(1, mp))


def value_info(name, c):
    return f_bytes(1, name) + (f_bytes(2, type_proto(c)) if c is not None else b"")


ELEM_SIZE = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8, 15: 16, 16: 2}


def tensor_proto(elem, name="", dims=(), ints=None):
    """A tensor of one element (or the given int64s), zeros."""
    t = b"".join(f_int(1, d) for d in dims) + f_int(2, elem)
    if name:
        t += f_bytes(8, name)
    if ints is not None:
        t += b"".join(f_int(7, v) for v in ints)
    elif elem == 8:
        t += f_bytes(6, b"a")
    else:
        t += f_bytes(9, bytes(ELEM_SIZE.get(elem, 1)))
    return t


AT = {"AT_FLOAT": 1, "AT_INT": 2, "AT_STRING": 3, "AT_TENSOR": 4, "AT_GRAPH": 5, "AT_FLOATS": 6, "AT_INTS": 7,
      "AT_STRINGS": 8, "AT_TENSORS": 9, "AT_GRAPHS": 10, "AT_SPARSE_TENSOR": 11, "AT_SPARSE_TENSORS": 12,
      "AT_TYPE_PROTO": 13, "AT_TYPE_PROTOS": 14}


def attr(name, kind, value):
    a = f_bytes(1, name) + f_int(20, AT[kind])
    if kind == "AT_FLOAT":
        a += f_float(2, value)
    elif kind == "AT_INT":
        a += f_int(3, value)
    elif kind == "AT_STRING":
        a += f_bytes(4, value)
    elif kind == "AT_TENSOR":
        a += f_bytes(5, value)
    elif kind == "AT_GRAPH":
        a += f_bytes(6, value)
    elif kind == "AT_FLOATS":
        a += b"".join(f_float(7, v) for v in value)
    elif kind == "AT_INTS":
        a += b"".join(f_int(8, v) for v in value)
    elif kind == "AT_STRINGS":
        a += b"".join(f_bytes(9, v) for v in value)
    else:
        raise ValueError(kind)
    return a


def node_proto(op, domain, inputs, outputs, attrs):
    return (b"".join(f_bytes(1, i) for i in inputs) + b"".join(f_bytes(2, o) for o in outputs) +
            f_bytes(4, op) + (f_bytes(7, domain) if domain else b"") + b"".join(f_bytes(5, a) for a in attrs))


def graph_proto(nodes, inputs, outputs, inits=(), name="g"):
    return (b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, name) + b"".join(f_bytes(5, t) for t in inits) +
            b"".join(f_bytes(11, i) for i in inputs) + b"".join(f_bytes(12, o) for o in outputs))


def model_proto(graph, opsets, ir=8):
    ops = b"".join(f_bytes(8, (f_bytes(1, d) if d else b"") + f_int(2, v)) for d, v in opsets)
    return f_int(1, ir) + ops + f_bytes(7, graph)


# ---- building a probe ----------------------------------------------------------------

# Attribute values the runtime's schemas or kernels want other than the generic ones.
ATTR_VALUES = {
    "mode": {"Pad": "constant", "Resize": "nearest", "Upsample": "nearest", "DepthToSpace": "DCR",
             "GridSample": "linear", "RoiAlign": "avg", "CenterCropPad": None},
    "direction": {"BitShift": "LEFT", "LSTM": "forward", "GRU": "forward", "RNN": "forward"},
    "auto_pad": None,
    "reduction": {"ScatterElements": "none", "ScatterND": "none", "TensorScatter": None},
    "equation": {"Einsum": "i->i"},
    "kernel_shape": [1],
    "num_scan_inputs": 1,
    "hidden_size": 1,
    "blocksize": 1,
    "nodes_modes": None,
    "post_transform": None,
    "to": None,
    "dtype": None,
}


def keys_of(c, suffix):
    """The keys_*/values_* attribute of LabelEncoder-1/2 for the element type of c."""
    return {8: ("AT_STRINGS", ["a"]), 7: ("AT_INTS", [1]), 1: ("AT_FLOATS", [1.0])}.get(code_elem(c), (None, None))


def ml_keys(var_name, kind):
    def make(var):
        c = var.get(var_name)
        if c is None:
            return None
        ty, val = keys_of(c, kind)
        want = {"strings": "AT_STRINGS", "int64s": "AT_INTS", "floats": "AT_FLOATS"}[kind]
        return (ty, val) if ty == want else None
    return make


# The ai.onnx.ml operators whose schema wants one of several optional attributes, chosen
# by the binding.
ML_ATTRS = {}
for _op, _kv in (("LabelEncoder", (("keys", "T1"), ("values", "T2"))),):
    for _prefix, _var in _kv:
        for _kind in ("strings", "int64s", "floats"):
            ML_ATTRS[(_op, "%s_%s" % (_prefix, _kind))] = ml_keys(_var, _kind)
for _op in ("TreeEnsembleClassifier",):
    ML_ATTRS[(_op, "classlabels_int64s")] = lambda var: ("AT_INTS", [0]) if code_elem(var["T2"]) == 7 else None
    ML_ATTRS[(_op, "classlabels_strings")] = lambda var: ("AT_STRINGS", ["a"]) if code_elem(var["T2"]) == 8 else None
ML_ATTRS[("LinearClassifier", "classlabels_ints")] = lambda var: ("AT_INTS", [0]) if code_elem(var["T2"]) == 7 else None
ML_ATTRS[("LinearClassifier", "classlabels_strings")] = lambda var: ("AT_STRINGS", ["a"]) if code_elem(var["T2"]) == 8 else None
ML_ATTRS[("SVMClassifier", "classlabels_ints")] = ML_ATTRS[("LinearClassifier", "classlabels_ints")]
ML_ATTRS[("SVMClassifier", "classlabels_strings")] = ML_ATTRS[("LinearClassifier", "classlabels_strings")]
ML_ATTRS[("OneHotEncoder", "cats_int64s")] = lambda var: None if code_elem(var["T"]) == 8 else ("AT_INTS", [1])
ML_ATTRS[("OneHotEncoder", "cats_strings")] = lambda var: ("AT_STRINGS", ["a"]) if code_elem(var["T"]) == 8 else None
ML_ATTRS[("CategoryMapper", "cats_int64s")] = lambda var: ("AT_INTS", [1])
ML_ATTRS[("CategoryMapper", "cats_strings")] = lambda var: ("AT_STRINGS", ["a"])
ML_ATTRS[("TreeEnsemble", "nodes_modes")] = lambda var: ("AT_TENSOR", tensor_proto(2, dims=(1,)))
ML_ATTRS[("RegexFullMatch", "pattern")] = lambda var: ("AT_STRING", "a")

GENERIC = {"AT_FLOAT": 1.0, "AT_INT": 1, "AT_STRING": "a", "AT_FLOATS": [1.0], "AT_INTS": [1],
           "AT_STRINGS": ["a"]}
TYPE_ATTRS = ("to", "dtype", "output_dtype", "output_datatype")


def attr_value(op, a):
    v = ATTR_VALUES.get(a["name"], GENERIC.get(a["type"]))
    if isinstance(v, dict):
        v = v.get(op, GENERIC.get(a["type"]))
    return v


def body_identity(ins, outs):
    """A graph whose outputs are Identity of its inputs: ins/outs are (name, code)."""
    nodes = [node_proto("Identity", "", [i[0]], [o[0]], []) for i, o in zip(ins, outs)]
    return graph_proto(nodes, [value_info(n, c) for n, c in ins], [value_info(n, c) for n, c in outs], name="body")


def bool_t():
    return code(K_TENSOR, 9)


def i64_t():
    return code(K_TENSOR, 7)


def control_flow(r, bind):
    """If, Loop, Scan, SequenceMap: their graphs must fit the binding. None for others."""
    op, var = r.op_type, {v: c for (v, _), c in zip(r.constraints, bind)}
    if op == "If":
        v = var.get("V")
        if code_kind(v) in (K_MAP, K_SEQ_MAP) or code_kind(v) == K_SPARSE:
            pass
        body = lambda: graph_proto([node_proto("Identity", "", ["x"], ["b_out"], [])], [],  # noqa: E731
                                   [value_info("b_out", v)], name="branch")
        ins = [("cond", bool_t()), ("x", v)]
        return dict(node_inputs=["cond"], graph_inputs=ins, outputs=[("y", v)],
                    attrs=[attr("then_branch", "AT_GRAPH", body()), attr("else_branch", "AT_GRAPH", body())])
    if op == "Loop":
        v, i, b = var.get("V"), var.get("I", i64_t()), var.get("B", bool_t())
        body = body_identity([("it", i64_t()), ("c_in", b), ("v_in", v)], [("c_out", b), ("v_out", v)])
        body = graph_proto([node_proto("Identity", "", ["c_in"], ["c_out"], []),
                            node_proto("Identity", "", ["v_in"], ["v_out"], [])],
                           [value_info("it", i64_t()), value_info("c_in", b), value_info("v_in", v)],
                           [value_info("c_out", b), value_info("v_out", v)], name="body")
        return dict(node_inputs=["m", "cond", "v"], graph_inputs=[("m", i), ("cond", b), ("v", v)],
                    outputs=[("y", v)], attrs=[attr("body", "AT_GRAPH", body)])
    if op == "Scan":
        v = var.get("V")
        body = graph_proto([node_proto("Identity", "", ["s_in"], ["s_out"], []),
                            node_proto("Identity", "", ["x_in"], ["x_out"], [])],
                           [value_info("s_in", v), value_info("x_in", v)],
                           [value_info("s_out", v), value_info("x_out", v)], name="body")
        attrs = [attr("body", "AT_GRAPH", body), attr("num_scan_inputs", "AT_INT", 1)]
        if r.since == 8:
            return dict(node_inputs=["", "s", "x"], graph_inputs=[("s", v), ("x", v)],
                        outputs=[("s_final", v), ("y", v)], attrs=attrs)
        return dict(node_inputs=["s", "x"], graph_inputs=[("s", v), ("x", v)], outputs=[("s_final", v), ("y", v)],
                    attrs=attrs)
    if op == "SequenceMap":
        s, v = var.get("S"), var.get("V")
        elem = code(K_TENSOR, code_elem(s))
        body = graph_proto([node_proto("Identity", "", ["e"], ["o"], [])], [value_info("e", elem)],
                           [value_info("o", v)], name="body")
        return dict(node_inputs=["s"], graph_inputs=[("s", s)], outputs=[("y", code(K_SEQ, code_elem(v)))],
                    attrs=[attr("body", "AT_GRAPH", body)])
    return None


def probe_model(r, bind, opset):
    """The one-node model of row r with its type variables bound to `bind` (codes in
    r.constraints' order), at the row's own opset."""
    var = {v: c for (v, _), c in zip(r.constraints, bind)}
    cf = control_flow(r, bind)
    if cf is not None:
        node_inputs, graph_inputs, outputs, attrs = cf["node_inputs"], cf["graph_inputs"], cf["outputs"], cf["attrs"]
    else:
        required_vars = {p["var"] for p in r.inputs if p["option"] != "SCH_OPTIONAL" and p["var"]}
        node_inputs, graph_inputs, outputs, attrs = [], [], [], []
        pending = []  # optional inputs left out so far: "" if a later one is present

        def literal(p):
            return codes_of(p["types"])[0]

        for k, p in enumerate(r.inputs):
            c = var[p["var"]] if p["var"] else literal(p)
            if p["option"] == "SCH_OPTIONAL" and (not p["var"] or p["var"] in required_vars):
                pending.append("")
                continue
            if p["option"] == "SCH_OPTIONAL":
                required_vars.add(p["var"])
            n = max(p["min_arity"], 1) if p["option"] == "SCH_VARIADIC" else 1
            node_inputs += pending
            pending = []
            for j in range(n):
                name = "i%d_%d" % (k, j)
                node_inputs.append(name)
                graph_inputs.append((name, c))
        for k, p in enumerate(r.outputs):
            c = var[p["var"]] if p["var"] else literal(p)
            if p["option"] == "SCH_OPTIONAL" and (not p["var"] or p["var"] in required_vars) and k > 0:
                continue
            n = max(p["min_arity"], 1) if p["option"] == "SCH_VARIADIC" else 1
            for j in range(n):
                outputs.append(("o%d_%d" % (k, j), c))
        out_var = {p["var"]: var[p["var"]] for p in r.outputs if p["var"]}
        for a in r.attrs:
            if a["name"] in TYPE_ATTRS and a["type"] in ("AT_INT", "AT_STRING"):
                only_out = [v for v in out_var if v not in required_vars]
                if only_out:
                    elem = code_elem(out_var[only_out[0]])
                    attrs.append(attr(a["name"], a["type"], elem if a["type"] == "AT_INT" else ELEM_NAME[elem].upper()))
                continue
            extra = ML_ATTRS.get((r.op_type, a["name"]))
            if extra is not None and not (r.op_type == "LabelEncoder" and r.since >= 4):
                made = extra(var)
                if made is not None:
                    attrs.append(attr(a["name"], *made))
                continue
            if r.op_type in ("Constant", "ConstantOfShape") and a["name"] == "value":
                out = out_var.get("T", out_var.get("T2"))
                attrs.append(attr("value", "AT_TENSOR", tensor_proto(code_elem(out), dims=(1,))))
                continue
            if r.op_type == "LabelEncoder" and a["name"] in ("keys_tensor", "values_tensor", "default_tensor"):
                elem = code_elem(var["T1" if a["name"] == "keys_tensor" else "T2"])
                attrs.append(attr(a["name"], "AT_TENSOR", tensor_proto(elem, dims=(1,))))
                continue
            if not a["required"]:
                continue
            v = attr_value(r.op_type, a)
            if v is None:
                continue
            if a["type"] == "AT_TENSOR":
                v = tensor_proto(1)
            elif a["type"] in ("AT_GRAPH", "AT_GRAPHS", "AT_TENSORS", "AT_SPARSE_TENSOR", "AT_SPARSE_TENSORS",
                               "AT_TYPE_PROTO", "AT_TYPE_PROTOS"):
                continue
            attrs.append(attr(a["name"], a["type"], v))
    node = node_proto(r.op_type, r.domain, node_inputs, [o[0] for o in outputs], attrs)
    graph = graph_proto([node], [value_info(n, c) for n, c in graph_inputs], [value_info(n, c) for n, c in outputs])
    opsets = [(r.domain, opset)]
    if r.domain:
        opsets.append(("", 21))
    return model_proto(graph, opsets, ir=10)


def default_value(a):
    """An attribute's documented default as the probe writes it, or None."""
    d, t = a["default"], a["type"]
    if d is None:
        return None
    try:
        if t == "AT_INT":
            return int(d)
        if t == "AT_FLOAT":
            return float(d)
        if t == "AT_STRING":
            return d.strip("\"'")
        if t in ("AT_INTS", "AT_FLOATS"):
            conv = int if t == "AT_INTS" else float
            return [conv(x) for x in d.strip("[]").split(",") if x.strip()]
    except ValueError:
        return None
    return None


# Attribute values the specification defines that a CPU kernel's constructor may not
# implement: each is probed on every row that has the attribute, and recorded only
# where the runtime refuses it naming the attribute.
VALUE_PROBES = {"layout": 1}
# Attributes optional in the schema that CPU kernels' constructors need (the RNN
# family's hidden_size): set on every attribute probe of a row that has them, so the
# constructor reaches the attribute probed.
CONSTRUCTOR_NEEDS = {"hidden_size": 1}


def attr_probes(rows, states_of):
    """[(row index, attribute name, model)]: each optional attribute of each row, set to
    its documented default (or a generic value) on a binding the runtime ran. An
    attribute ONNX added to a version after the runtime took its copy of the schema
    is one the runtime's checker does not recognise, whatever its value."""
    probes = []
    for ri, r in enumerate(rows):
        if r.deprecated or "k" not in states_of[ri]:
            continue
        b = bindings(r)[1][states_of[ri].index("k")]
        for a in r.attrs:
            if a["required"] or a["name"] in TYPE_ATTRS or a["type"] not in GENERIC:
                continue
            v = default_value(a)
            if v is None:
                v = attr_value(r.op_type, a)
            if v is None:
                continue
            values = [(a["name"], v)]
            if a["name"] in VALUE_PROBES and a["type"] == "AT_INT":
                values.append(("%s=%d" % (a["name"], VALUE_PROBES[a["name"]]), VALUE_PROBES[a["name"]]))
            needs = [(x, CONSTRUCTOR_NEEDS[x["name"]]) for x in r.attrs
                     if x["name"] in CONSTRUCTOR_NEEDS and x is not a and not x["required"]]
            for entry, v in values:
                probes.append((ri, entry, attr_probe(r, b, [(a, v)] + needs)))
    return probes


def attr_probe(r, b, given):
    """The probe of row r bound as b with each (attribute, value) of given set, made
    when asked: those attributes are required for the one call, with those values."""
    def make():
        saved = [(a, dict(a), a["name"] in ATTR_VALUES, ATTR_VALUES.get(a["name"])) for a, _ in given]
        for a, v in given:
            a["required"], ATTR_VALUES[a["name"]] = True, v
        try:
            return probe_model(r, b, r.since)
        finally:
            for a, was, had, old in saved:
                a.clear()
                a.update(was)
                if had:
                    ATTR_VALUES[a["name"]] = old
                else:
                    ATTR_VALUES.pop(a["name"], None)
    return make


def refused_attr(msg, entry):
    """Whether the runtime refused the probe for the attribute entry ("name": it does
    not know the attribute; "name=value": a kernel's constructor refuses the value)."""
    name = entry.split("=")[0]
    if "=" in entry:
        return "Exception during initialization" in msg and name in msg
    return "Unrecognized attribute: %s " % name in msg + " "


def bindings(r):
    """Every binding of r's type variables, in row-major order (the last variable
    fastest), with each variable's types."""
    lists = [codes_of(t) for _, t in r.constraints]
    out = [()]
    for lst in lists:
        out = [b + (c,) for b in out for c in lst]
    return lists, out


# ---- com.microsoft --------------------------------------------------------------------
# ONNX Runtime's contrib schemas are not in the tree: each operator the tool has a rule
# for (src/passes/rules/ops_ms*.def) is written out here as ONNX Runtime's
# docs/ContribOperators.md gives it: its type variables with the element types probed
# (the types its documentation allows and the common ones beside them: a type its
# schema refuses is an `s`, one it has no kernel for an `n`), its inputs and outputs
# as a variable or a fixed element type ("" an optional input left out), and the
# attributes a session needs. Tensors only; every operator at version 1.
F, U8, I8, U16, I16, I32, I64, STR, BOOL_, F16, F64, U32, U64, BF16, U4, I4 = (
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 21, 22)
WIDE = [F, U8, I8, I32, I64, F16, F64, BF16]
Q8 = [U8, I8]


def _ai(name, v):
    return (name, "AT_INT", v)


def _af(name, v):
    return (name, "AT_FLOAT", v)


def _ais(name, v):
    return (name, "AT_INTS", v)


MS = "com.microsoft"
NCHWC = "com.microsoft.nchwc"
_T = [("T", WIDE)]
MS_PROBES = [
    # (domain, operator, variables, inputs, outputs, attributes)
    (MS, "FastGelu", _T, ["T", "T"], ["T"], []),
    (MS, "BiasGelu", _T, ["T", "T"], ["T"], []),
    (MS, "QuickGelu", _T, ["T"], ["T"], [_af("alpha", 1.702)]),
    (MS, "Gelu", _T, ["T"], ["T"], []),
    (MS, "FusedMatMul", _T, ["T", "T"], ["T"], []),
    (MS, "FusedGemm", _T, ["T", "T", "T"], ["T"], []),
    (MS, "SkipLayerNormalization", _T, ["T", "T", "T"], ["T"], []),
    (MS, "SkipSimplifiedLayerNormalization", _T, ["T", "T", "T"], ["T"], []),
    (MS, "BiasAdd", _T, ["T", "T", "T"], ["T"], []),
    (MS, "BiasSoftmax", _T, ["T", "T"], ["T"], [_ai("is_inner_broadcast", 0)]),
    (MS, "BiasSplitGelu", _T, ["T", "T"], ["T"], []),
    (MS, "GemmFastGelu", _T, ["T", "T"], ["T"], []),
    (MS, "TransposeMatMul", _T, ["T", "T"], ["T"], []),
    (MS, "RotaryEmbedding", [("T", WIDE)], ["T", I64, "T", "T"], ["T"], []),
    (MS, "GroupNorm", [("T", WIDE), ("M", [F, F16])], ["T", "M", "M"], ["T"],
     [_ai("activation", 0), _af("epsilon", 1e-5), _ai("groups", 1)]),
    (MS, "SkipGroupNorm", [("T", WIDE), ("M", [F, F16])], ["T", "M", "M", "T"], ["T"],
     [_ai("activation", 0), _af("epsilon", 1e-5), _ai("groups", 1)]),
    (MS, "EmbedLayerNormalization", [("T1", [I32]), ("T", WIDE)], ["T1", "T1", "T", "T", "T", "T", "T"], ["T", I32],
     []),
    (MS, "Attention", [("T", WIDE)], ["T", "T", "T"], ["T"], [_ai("num_heads", 1)]),
    (MS, "MultiHeadAttention", [("T", WIDE)], ["T", "T", "T"], ["T"], [_ai("num_heads", 1)]),
    (MS, "MatMulNBits", [("T1", WIDE)], ["T1", U8, "T1"], ["T1"],
     [_ai("K", 16), _ai("N", 1), _ai("bits", 4), _ai("block_size", 16)]),
    (MS, "MatMulBnb4", [("T1", WIDE)], ["T1", U8, "T1"], ["T1"],
     [_ai("K", 16), _ai("N", 1), _ai("block_size", 16), _ai("quant_type", 1)]),
    (MS, "GroupQueryAttention", [("T", WIDE)], ["T", "T", "T", "T", "T", I32, I32], ["T", "T", "T"],
     [_ai("num_heads", 1), _ai("kv_num_heads", 1)]),
    (MS, "DecoderMaskedMultiHeadAttention", [("T", WIDE)], ["T", "T", "T"], ["T"], [_ai("num_heads", 1)]),
    (MS, "PackedAttention", [("T", WIDE)], ["T", "T", "T", I32, I32], ["T"], [_ai("num_heads", 1)]),
    (MS, "LongformerAttention", [("T", WIDE)], ["T", "T", "T", "T", "T", "T", I32], ["T"],
     [_ai("num_heads", 1), _ai("window", 1)]),
    (MS, "GatedRelativePositionBias", [("T", WIDE)], ["T", "T", "T", "T", "T", "T"], ["T"], [_ai("num_heads", 1)]),
    (MS, "PackedMultiHeadAttention", [("T", WIDE)], ["T", "T", "T", "T", I32, I32], ["T"], [_ai("num_heads", 1)]),
    (MS, "RelativePositionBias", [("T", WIDE)], ["T", I64, I64], ["T"],
     [_ai("max_distance", 1), _ai("is_bidirectional", 1)]),
    (MS, "RemovePadding", [("T", WIDE)], ["T", I32], ["T", I32, I32, I32], []),
    (MS, "RestorePadding", [("T", WIDE)], ["T", I32], ["T"], []),
    (MS, "WordConvEmbedding", [("T", [I32]), ("T1", WIDE)], ["T", "T1", "T1", "T1"], ["T1"], []),
    (MS, "MoE", [("T", WIDE)], ["T", "T", "T", "", "T"], ["T"], [_ai("k", 1)]),
    (MS, "MatMulIntegerToFloat", [("T1", Q8), ("T2", Q8), ("T3", [F, F16, F64])], ["T1", "T2", "T3", "T3"], ["T3"],
     []),
    (MS, "DynamicQuantizeMatMul", [("T1", [F, F16, F64]), ("T2", Q8)], ["T1", "T2", "T1"], ["T1"], []),
    (MS, "QuantizeLinear", [("T1", [F, F16, F64]), ("T2", [U8, I8, U16, I16, U4, I4])], ["T1", "T1", "T2"], ["T2"],
     []),
    (MS, "DequantizeLinear", [("T1", [U8, I8, U16, I16, I32, U4, I4]), ("T2", [F, F16, F64])], ["T1", "T2", "T1"],
     ["T2"], []),
    (MS, "QLinearAdd", [("T", WIDE)], ["T", F, "T", "T", F, "T", F, "T"], ["T"], []),
    (MS, "QLinearMul", [("T", WIDE)], ["T", F, "T", "T", F, "T", F, "T"], ["T"], []),
    (MS, "QLinearSigmoid", [("T", WIDE)], ["T", F, "T", F, "T"], ["T"], []),
    (MS, "QLinearLeakyRelu", [("T", WIDE)], ["T", F, "T", F, "T"], ["T"], []),
    (MS, "QLinearSoftmax", [("T", WIDE)], ["T", F, "T", F, "T"], ["T"], [_ai("opset", 13)]),
    (MS, "QLinearAveragePool", [("T", WIDE)], ["T", F, "T", F, "T"], ["T"], [_ais("kernel_shape", [1, 1])]),
    (MS, "QLinearGlobalAveragePool", [("T", WIDE)], ["T", F, "T", F, "T"], ["T"], []),
    (MS, "QLinearReduceMean", [("T", WIDE)], ["T", F, "T", F, "T"], ["T"], [_ais("axes", [0]), _ai("keepdims", 1)]),
    (MS, "QLinearWhere", [("T", WIDE)], [BOOL_, "T", F, "T", "T", F, "T", F, "T"], ["T"], []),
    (MS, "QLinearConcat", [("T", WIDE)], [F, "T", "T", F, "T"], ["T"], [_ai("axis", 0)]),
    (MS, "QLinearConv", [("T1", Q8), ("T2", Q8)], ["T1", F, "T1", "T2", F, "T2", F, "T1"], ["T1"], []),
    (MS, "QAttention", [("T1", Q8), ("T2", Q8), ("T3", [F, F16, F64])], ["T1", "T2", "T3", "T3", "T3"], ["T3"],
     [_ai("num_heads", 1)]),
    (MS, "QGemm", [("TA", Q8), ("TB", Q8)], ["TA", F, "TA", "TB", F, "TB"], [F], []),
    (MS, "MatMulInteger16", [("T1", [I16, U16]), ("T2", [I16, U16])], ["T1", "T2"], [I32], []),
    (MS, "GatherBlockQuantized", [("T1", [U8, I4, U4]), ("Tind", [I32, I64]), ("T2", [F, F16, BF16])],
     ["T1", "Tind", "T2"], ["T2"], [_ai("block_size", 16)]),
    (MS, "ExpandDims", _T, ["T", I32], ["T"], []),
    (MS, "Trilu", _T, ["T"], ["T"], []),
    (MS, "Range", [("T", [F, I16, I32, I64, F16, F64])], ["T", "T", "T"], ["T"], []),
    (MS, "Inverse", _T, ["T"], ["T"], []),
    (MS, "CDist", _T, ["T", "T"], ["T"], []),
    (MS, "Unique", _T, ["T"], ["T", I64, I64], []),
    (MS, "GridSample", [("T1", WIDE)], ["T1", "T1"], ["T1"], []),
    (MS, "Pad", _T, ["T", I64], ["T"], []),
    (MS, "Rfft", _T, ["T"], ["T"], [_ai("signal_ndim", 1)]),
    (MS, "Irfft", _T, ["T"], ["T"], [_ai("signal_ndim", 1)]),
    (MS, "ComplexMul", _T, ["T", "T"], ["T"], []),
    (MS, "ComplexMulConj", _T, ["T", "T"], ["T"], []),
    (MS, "TorchEmbedding", [("T", WIDE)], ["T", I64], ["T"], []),
    # The output's type follows the attribute (positive: uint32), not a variable.
    (MS, "MurmurHash3", [("T1", [I32, I64, U32, U64, F, F64, STR])], ["T1"], [U32], [_ai("positive", 1)]),
    (MS, "NhwcMaxPool", _T, ["T"], ["T"], [_ais("kernel_shape", [1, 1])]),
    (MS, "FusedConv", _T, ["T", "T"], ["T"], []),
    (MS, "NhwcConv", _T, ["T", "T"], ["T"], []),
    (NCHWC, "Conv", _T, ["T", "T"], ["T"], []),
    (NCHWC, "MaxPool", _T, ["T"], ["T"], [_ais("kernel_shape", [1, 1])]),
    (NCHWC, "AveragePool", _T, ["T"], ["T"], [_ais("kernel_shape", [1, 1])]),
    (NCHWC, "GlobalMaxPool", _T, ["T"], ["T"], []),
    (NCHWC, "GlobalAveragePool", _T, ["T"], ["T"], []),
    (NCHWC, "ReorderInput", _T, ["T"], ["T"], []),
    (NCHWC, "ReorderOutput", _T, ["T"], ["T"], [_ai("channels", 8)]),
    (NCHWC, "Upsample", _T, ["T"], ["T"], [_ais("scales", [1, 1, 2, 2])]),
]


def ms_ident(p):
    return "%s::%s" % (p[0], p[1])


def ms_bindings(p):
    lists = [[code(K_TENSOR, e) for e in sorted(types)] for _, types in p[2]]
    out = [()]
    for lst in lists:
        out = [b + (c,) for b in out for c in lst]
    return lists, out


def ms_var_index(p, x):
    """The variable an argument binds (its index), -1 for a fixed type or none."""
    names = [v for v, _ in p[2]]
    return names.index(x) if isinstance(x, str) and x in names else -1


def ms_model(p, bind):
    domain, op, variables, ins, outs, attrs = p
    var = {v: c for (v, _), c in zip(variables, bind)}

    def type_of(x):
        return var[x] if isinstance(x, str) else code(K_TENSOR, x)

    node_inputs, graph_inputs = [], []
    for k, x in enumerate(ins):
        if x == "":
            node_inputs.append("")
            continue
        node_inputs.append("i%d" % k)
        graph_inputs.append(("i%d" % k, type_of(x)))
    outputs = [("o%d" % k, type_of(x)) for k, x in enumerate(outs)]
    node = node_proto(op, domain, node_inputs, [o[0] for o in outputs], [attr(*a) for a in attrs])
    graph = graph_proto([node], [value_info(n, c) for n, c in graph_inputs], [value_info(n, c) for n, c in outputs])
    return model_proto(graph, [(domain, 1), ("", 21)], ir=10)


def ms_verdict(p, msg):
    """verdict(), but a schema refusing an input the probe gave a type of its own (no
    variable of MS_PROBES) says nothing of the variables: the probe got it wrong."""
    import re
    v = verdict(msg, p[1])
    if v == "s":
        m = re.search(r"of input parameter \(i(\d+)\)", msg)
        if not m or int(m.group(1)) >= len(p[3]) or ms_var_index(p, p[3][int(m.group(1))]) < 0:
            return "x"
    return v


def ms_probe_all():
    """[(probe index, binding index, model)] for every com.microsoft probe and binding."""
    return [(pi, bi, lambda p=p, b=b: ms_model(p, b))
            for pi, p in enumerate(MS_PROBES) for bi, b in enumerate(ms_bindings(p)[1])]


def write_ms_table(out, states):
    """The com.microsoft rows: kernels.h's kernel_ms_row, in MS_PROBES' order."""
    pool, names = [], {}

    def name(prefix, ctype, key, fmt):
        if (prefix, key) not in names:
            names[(prefix, key)] = "%s%d" % (prefix, sum(1 for p, _ in names if p == prefix))
            pool.append("static const %s %s[] = {%s};\n" % (ctype, names[(prefix, key)],
                                                            ", ".join(fmt % k for k in key)))
        return names[(prefix, key)]

    lines = []
    for pi, p in enumerate(MS_PROBES):
        lists = ms_bindings(p)[0]
        ty = name("mty", "uint16_t", tuple(c for lst in lists for c in lst), "0x%x")
        nt = name("mnt", "uint8_t", tuple(len(lst) for lst in lists), "%d")
        vn = name("mvn", "char *const", tuple(v for v, _ in p[2]), '"%s"')
        mi = name("mio", "int8_t", tuple(ms_var_index(p, x) for x in p[3]), "%d")
        mo = name("mio", "int8_t", tuple(ms_var_index(p, x) for x in p[4]), "%d")
        lines.append("\t{\"%s\", \"%s\", \"%s\", %s, %s, %s, %s, %s, %d, %d, %d},\n" % (
            p[0], p[1], states[pi], ty, nt, vn, mi, mo, len(lists), len(p[3]), len(p[4])))
    out.write("\n/* com.microsoft and com.microsoft.nchwc, at version 1: the operators the tool has\n"
              " * rules for, with the types MS_PROBES (probe_kernels.py) binds. */\n")
    out.write("".join(pool))
    out.write("\nstatic const kernel_ms_row ms_rows[] = {\n")
    out.write("".join(lines))
    out.write("};\n\n")
    out.write("const kernel_ms_row *kernel_ms_rows(int32_t *n)\n{\n"
              "\t*n = (int32_t)(sizeof ms_rows / sizeof ms_rows[0]);\n\treturn ms_rows;\n}\n")


# ---- the runtime's verdicts ----------------------------------------------------------

def verdict(msg, op):
    if msg == "ok":
        return "k"
    if "Could not find an implementation for" in msg or "Failed to find kernel for" in msg:
        return "n"
    # No float16 kernel, and the Cast the runtime inserts to run it as float does not
    # fit an operator set before Cast-6 (its 'to' was a string then).
    if "InsertedPrecisionFreeCast" in msg:
        return "n"
    # The runtime's own schema refuses a type the documentation allows (a row the
    # documentation widened later), or the function body it expands the operator
    # into does.
    if "Type Error: Type '" in msg and "of input parameter (i" in msg and "of operator (%s)" % op in msg:
        return "s"
    if "Type Error: Type '" in msg and "of input parameter (_inlfunc_" in msg:
        return "s"
    # Nothing of the runtime holds a value of that type (complex64, complex128).
    if "is not currently registered or supported" in msg and "MLDataType" in msg:
        return "t"
    # onnxruntime-node's own type table, read after the session was created
    # (bfloat16, float8...): the runtime found every kernel.
    if msg.startswith("E Unsupported data type:"):
        return "k"
    if "is not a registered function/op" in msg or "is deprecated in domain_version" in msg:
        return "r"
    if "ONNX Runtime only *guarantees* support" in msg or "is till opset" in msg:
        return "v"
    # A kernel's own constructor refused the probe: the kernel was found.
    if "/onnxruntime/core/providers/cpu/" in msg or "/onnxruntime/contrib_ops/cpu/" in msg:
        return "k"
    return "x"


def run_probes(ort_dir, models, node="node"):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probes.bin")
        with open(path, "wb") as f:
            for m in models:
                f.write(struct.pack("<I", len(m)) + m)
        res = subprocess.run([node, JS, ort_dir, path], stdout=subprocess.PIPE, check=True, text=True)
    lines = res.stdout.split("\n")[:len(models)]
    if len(lines) != len(models):
        raise SystemExit("probe_kernels.py: probe_kernels.js answered %d of %d probes" % (len(lines), len(models)))
    return lines


def ort_version(ort_dir):
    import json
    with open(os.path.join(ort_dir, "node_modules", "onnxruntime-node", "package.json")) as f:
        return json.load(f)["version"]


# The domains whose newest opset is probed, with the most versions tried.
VERSION_DOMAINS = [("", 40), ("ai.onnx.ml", 12), ("ai.onnx.preview", 6), ("ai.onnx.preview.training", 6),
                   ("com.microsoft", 6), ("com.microsoft.nchwc", 6)]
IR_TRIED = range(3, 21)


def version_probes():
    """(what, model): ("opset", domain, version) and ("ir", version)."""
    out = []
    ident = node_proto("Identity", "", ["x"], ["y"], [])
    graph = graph_proto([ident], [value_info("x", code(K_TENSOR, 1))], [value_info("y", code(K_TENSOR, 1))])
    for domain, most in VERSION_DOMAINS:
        for v in range(1, most + 1):
            opsets = [("", v)] if not domain else [("", 21), (domain, v)]
            out.append((("opset", domain, v), model_proto(graph, opsets, ir=10)))
    for ir in IR_TRIED:
        out.append((("ir", ir), model_proto(graph, [("", 13)], ir=ir)))
    return out


def newest_versions(probes, msgs, op="Identity"):
    """{domain: newest opset}, newest IR: the highest version loaded, every one below
    it loading too (the runtime reads a range from 1)."""
    ok = {}
    for (what, m) in zip(probes, msgs):
        ok[what] = verdict(m, op) == "k"
    domains = {}
    for domain, most in VERSION_DOMAINS:
        v = 0
        while v < most and ok[("opset", domain, v + 1)]:
            v += 1
        if v == most:
            raise SystemExit("probe_kernels.py: %s loads up to version %d, every one tried" % (domain or "ai.onnx", most))
        domains[domain] = v
    ir = 0
    for k in IR_TRIED:
        if ok[("ir", k)]:
            ir = k
    return domains, ir


# ---- the table ----------------------------------------------------------------------

HEADER = """\
/* kernel_table.c: GENERATED by tests/ort/probe_kernels.py from ONNX Runtime %(version)s; do not edit.
 *
 *   python3 tests/ort/probe_kernels.py DOCS ORT_DIR --out src/core/schema/kernel_table.c
 *
 * (DOCS: tests/data/onnx-docs.tar.xz unpacked, ORT_DIR: tests/ort/setup.sh's install.)
 * What ONNX Runtime's CPU provider did with a one-node model of every schema row, for
 * every binding of the row's type variables to the types its schema allows: one
 * verdict per binding, row-major over the variables (the last one fastest), each
 * variable's types in kernels.h's order. Verdicts (kernels.h): k a kernel ran it, n no
 * kernel, t no value of the type, s the runtime's schema refuses the type, r the
 * runtime does not know the operator at that version, v it does not run that opset,
 * x the probe told nothing. Beside them, per row, the attributes the runtime refuses
 * on a binding it runs: "name", one its copy of the schema does not know, whatever
 * the value; "name=value", a value its kernel's constructor refuses. The test
 * runtime/kernel-table re-probes a sample of the verdicts and every attribute.
 */
#include "core/schema/kernels.h"

#include <stddef.h>

#include "core/schema/schema_ids.h"

const char kernel_runtime[] = "onnxruntime %(version)s";
"""


def c_types_list(codes):
    return "{%s}" % ", ".join("0x%x" % c for c in codes)


def write_table(out, version, rows, lists_of, states_of, domains, ir, unknown):
    out.write(HEADER % {"version": version})
    pool, names = [], {}
    # Per row, what the runtime refuses of its attributes: "name", one its schema does
    # not know; "name=value", a value its kernel's constructor refuses.
    for ri in sorted(unknown):
        key = ("ua", tuple(unknown[ri]))
        if key not in names:
            names[key] = "ua%d" % sum(1 for k in names if k[0] == "ua")
            out.write("\nstatic const char *const %s[] = {%s, NULL};" % (
                names[key], ", ".join('"%s"' % a for a in unknown[ri])))
    if unknown:
        out.write("\n")
    for ri, r in enumerate(rows):
        flat = tuple(c for lst in lists_of[ri] for c in lst)
        counts = tuple(len(lst) for lst in lists_of[ri])
        for key, prefix in ((flat, "ty"), (counts, "nt")):
            if key and (prefix, key) not in names:
                names[(prefix, key)] = "%s%d" % (prefix, sum(1 for p, _ in names if p == prefix))
                pool.append((names[(prefix, key)], "uint16_t" if prefix == "ty" else "uint8_t", key))
    out.write("\n")
    for name, ctype, key in pool:
        out.write("static const %s %s[] = %s;\n" % (ctype, name, c_types_list(key) if ctype == "uint16_t"
                                                    else "{%s}" % ", ".join(str(k) for k in key)))
    out.write("\nstatic const kernel_row rows[SCH_NROWS] = {\n")
    for ri, r in enumerate(rows):
        flat = tuple(c for lst in lists_of[ri] for c in lst)
        counts = tuple(len(lst) for lst in lists_of[ri])
        out.write("\t[SCH_%s] = {\"%s\", %s, %s, %s, %d},\n" % (
            gs.ident(r), states_of[ri], names[("ty", flat)] if flat else "NULL",
            names[("nt", counts)] if counts else "NULL", names.get(("ua", tuple(unknown.get(ri, ()))), "NULL"),
            len(counts)))
    out.write("};\n\n")
    out.write("const kernel_row *kernel_rows(void) { return rows; }\n\n")
    out.write("static const kernel_domain domains[] = {\n")
    for domain, _ in VERSION_DOMAINS:
        out.write("\t{\"%s\", %d},\n" % (domain, domains[domain]))
    out.write("};\n\n")
    out.write("const kernel_domain *kernel_domains(int32_t *n)\n{\n"
              "\t*n = (int32_t)(sizeof domains / sizeof domains[0]);\n\treturn domains;\n}\n\n")
    out.write("const int32_t kernel_ir_newest = %d;\n" % ir)


def read_table(path):
    """{row ident: states}, {domain: newest}, ir, {"domain::op": states}: what a
    committed table says."""
    import re
    rows, domains, ir, ms = {}, {}, None, {}
    arrays, unknown = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'^static const char \*const (ua\d+)\[\] = \{(.*), NULL\};$', line)
            if m:
                arrays[m.group(1)] = re.findall(r'"([\w=-]+)"', m.group(2))
                continue
            m = re.match(r'^\t\[SCH_(\w+)\] = \{"[a-z]*", \w+, \w+, (ua\d+), ', line)
            if m:
                unknown[m.group(1)] = arrays[m.group(2)]
            m = re.match(r'^\t\[SCH_(\w+)\] = \{"([a-z]*)", ', line)
            if m:
                rows[m.group(1)] = m.group(2)
                continue
            m = re.match(r'^\t\{"(com\.microsoft[a-z.]*)", "(\w+)", "([a-z]*)", ', line)
            if m:
                ms["%s::%s" % (m.group(1), m.group(2))] = m.group(3)
                continue
            m = re.match(r'^\t\{"([a-z.]*)", (\d+)\},$', line)
            if m:
                domains[m.group(1)] = int(m.group(2))
                continue
            m = re.match(r"^const int32_t kernel_ir_newest = (\d+);$", line)
            if m:
                ir = int(m.group(1))
    return rows, domains, ir, ms, unknown


def probe_all(rows):
    """[(row index, binding index, model)] for every row and binding."""
    probes = []
    for ri, r in enumerate(rows):
        if r.deprecated:
            model = model_proto(graph_proto([node_proto(r.op_type, r.domain, ["x"], ["y"], [])],
                                            [value_info("x", code(K_TENSOR, 1))], [value_info("y", None)]),
                                [(r.domain, r.since)] + ([("", 21)] if r.domain else []), ir=10)
            probes.append((ri, 0, model))
            continue
        _, bs = bindings(r)
        for bi, b in enumerate(bs):
            probes.append((ri, bi, lambda r=r, b=b: probe_model(r, b, r.since)))
    return probes


def probe_unknown_attrs(args, rows, states_of):
    """{row index: [attribute names]}: the attributes the runtime does not recognise."""
    probes = attr_probes(rows, states_of)
    msgs = run_probes(args.ort_dir, [m() for _, _, m in probes], args.node)
    unknown = {}
    for (ri, name, _), m in zip(probes, msgs):
        if refused_attr(m, name):
            unknown.setdefault(ri, []).append(name)
    return unknown


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("docs")
    ap.add_argument("ort_dir")
    ap.add_argument("--out")
    ap.add_argument("--check")
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--node", default="node")
    ap.add_argument("--dump", help="write every probe's message to this file (for working on the probes)")
    args = ap.parse_args(argv[1:])
    rows = schema_rows(args.docs)
    probes = probe_all(rows)
    msprobes = ms_probe_all()
    committed = None
    if args.check:
        committed = read_table(args.check)
        # Every row, and the right number of bindings in each: a table of another
        # schema is stale whatever the runtime says.
        stale = []
        for ri, r in enumerate(rows):
            want = 1 if r.deprecated else len(bindings(r)[1])
            got = committed[0].get(gs.ident(r))
            if got is None or len(got) != want:
                stale.append("%s-%d: %s verdicts in the table, the schema has %d bindings"
                             % (r.op_type, r.since, "no" if got is None else len(got), want))
        if len(committed[0]) != len(rows):
            stale.append("the table has %d rows, the schema %d" % (len(committed[0]), len(rows)))
        for p in MS_PROBES:
            got = committed[3].get(ms_ident(p))
            if got is None or len(got) != len(ms_bindings(p)[1]):
                stale.append("%s: %s verdicts in the table, MS_PROBES has %d bindings"
                             % (ms_ident(p), "no" if got is None else len(got), len(ms_bindings(p)[1])))
        if len(committed[3]) != len(MS_PROBES):
            stale.append("the table has %d com.microsoft rows, MS_PROBES %d" % (len(committed[3]), len(MS_PROBES)))
        if stale:
            for s in stale[:20]:
                print("stale: " + s)
            print("%s is out of date: regenerate it (see its first lines)" % args.check)
            return 1
        # A deterministic sample: every Nth probe, from an offset that moves with N.
        probes = [p for k, p in enumerate(probes) if k % args.sample == args.sample // 2]
        msprobes = [p for k, p in enumerate(msprobes) if k % args.sample == args.sample // 2]
    models = [m() if callable(m) else m for _, _, m in probes]
    msmodels = [m() for _, _, m in msprobes]
    vprobes = version_probes()
    msgs = run_probes(args.ort_dir, models + msmodels + [m for _, m in vprobes], args.node)
    msgs, msmsgs, vmsgs = msgs[:len(models)], msgs[len(models):len(models) + len(msmodels)], msgs[len(models) + len(msmodels):]
    verdicts = [verdict(m, rows[ri].op_type) for (ri, _, _), m in zip(probes, msgs)]
    msverdicts = [ms_verdict(MS_PROBES[pi], m) for (pi, _, _), m in zip(msprobes, msmsgs)]
    domains, ir = newest_versions([w for w, _ in vprobes], vmsgs)
    if args.dump:
        with open(args.dump, "w") as f:
            for (ri, bi, _), v, m in zip(probes, verdicts, msgs):
                r = rows[ri]
                b = bindings(r)[1][bi] if not r.deprecated else ()
                f.write("%s %s-%d %s: %s\n" % (v, r.op_type, r.since, ",".join(type_name(c) for c in b) or "-", m))
            for (pi, bi, _), v, m in zip(msprobes, msverdicts, msmsgs):
                b = ms_bindings(MS_PROBES[pi])[1][bi]
                f.write("%s %s %s: %s\n" % (v, ms_ident(MS_PROBES[pi]), ",".join(type_name(c) for c in b), m))
    if committed is not None:
        table, cdomains, cir, cms, cunknown = committed
        diffs = []
        # Every attribute probe again (a few hundred), on the bindings the table says run.
        unknown = probe_unknown_attrs(args, rows, [table[gs.ident(r)] for r in rows])
        now = {gs.ident(rows[ri]): names for ri, names in unknown.items()}
        for ident in sorted(set(now) | set(cunknown)):
            if now.get(ident, []) != cunknown.get(ident, []):
                diffs.append("%s: the table says the runtime does not know attributes %s, the runtime %s"
                             % (ident, cunknown.get(ident, []), now.get(ident, [])))
        for (ri, bi, _), v, m in zip(probes, verdicts, msgs):
            r = rows[ri]
            was = table[gs.ident(r)][bi]
            if was != v:
                b = bindings(r)[1][bi] if not r.deprecated else ()
                diffs.append("%s-%d (%s): the table says %s, the runtime %s (%s)" % (
                    r.op_type, r.since, ", ".join(type_name(c) for c in b) or "-", was, v, m[:160]))
        for (pi, bi, _), v, m in zip(msprobes, msverdicts, msmsgs):
            p = MS_PROBES[pi]
            was = cms[ms_ident(p)][bi]
            if was != v:
                b = ms_bindings(p)[1][bi]
                diffs.append("%s (%s): the table says %s, the runtime %s (%s)" % (
                    ms_ident(p), ", ".join(type_name(c) for c in b), was, v, m[:160]))
        if cdomains != domains:
            diffs.append("newest opsets: the table says %s, the runtime %s" % (cdomains, domains))
        if cir != ir:
            diffs.append("newest IR version: the table says %s, the runtime %s" % (cir, ir))
        print("probed %d of the table's verdicts again (every %dth; %d of them com.microsoft) and the versions: "
              "%d differ" % (len(probes) + len(msprobes), args.sample, len(msprobes), len(diffs)))
        for d in diffs[:40]:
            print("  " + d)
        if diffs:
            print("%s is out of date: regenerate it (see its first lines)" % args.check)
            return 1
        return 0
    lists_of, states_of = [], []
    k = 0
    for ri, r in enumerate(rows):
        lists = [] if r.deprecated else bindings(r)[0]
        n = 1
        for lst in lists:
            n *= len(lst)
        lists_of.append(lists)
        states_of.append("".join(verdicts[k:k + n]))
        k += n
    assert k == len(verdicts)
    msstates, k = [], 0
    for p in MS_PROBES:
        n = len(ms_bindings(p)[1])
        msstates.append("".join(msverdicts[k:k + n]))
        k += n
    assert k == len(msverdicts)
    unknown = probe_unknown_attrs(args, rows, states_of)
    import io
    buf = io.StringIO()
    write_table(buf, ort_version(args.ort_dir), rows, lists_of, states_of, domains, ir, unknown)
    write_ms_table(buf, msstates)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(buf.getvalue())
    else:
        sys.stdout.write(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
