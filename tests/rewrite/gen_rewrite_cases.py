#!/usr/bin/python3
"""gen_rewrite_cases.py: the models the rewrite proof runs (run_rewrite_proof.py).

Two modes, both deterministic (the same arguments give the same bytes):

    /usr/bin/python3 tests/rewrite/gen_rewrite_cases.py fixtures [DIR]
        The committed fixtures, into tests/models/rewrite/ (or DIR), with their
        manifest cases.json: every example of the spec's pdpd and paddle tables
        (as legacy, stray and Paddle nodes), every converted operator with float
        (float, double) and integer (int32, int64) types, symbolic and unknown dims
        (Unsqueeze and Squeeze, attribute and input forms), empty dims, Gemm's C
        (legacy and stray), stray attributes, whole legacy graphs whose other nodes
        need adapting to the new opset, a Paddle block, Paddle nodes in an If's
        branches, names the rewrite would derive already taken, and a model with
        nothing to rewrite.
    /usr/bin/python3 tests/rewrite/gen_rewrite_cases.py verify [DIR]
        Checks that the committed fixtures are what `fixtures` makes (ctest
        rewrite/fixtures).
    /usr/bin/python3 tests/rewrite/gen_rewrite_cases.py random --seed S --count N [--chains M] DIR
        N random shape/axis cases into DIR (the build tree, at test time), valid and
        invalid, from the seed; and M random graphs chaining several rewrites.

Each case in a manifest says how to run `onnxshape rewrite` on its model, whether the
rule accepts the shapes (decided by ref_broadcast.py, independently of onnxshape),
how to make its inputs, and which reference computes its outputs.
"""
import json
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ref_broadcast as ref  # noqa: E402

DTYPES = {
    "float32": TensorProto.FLOAT,
    "int32": TensorProto.INT32,
    "int64": TensorProto.INT64,
    "bool": TensorProto.BOOL,
    "float64": TensorProto.DOUBLE,
}
FLOATS = ("float32", "float64")

PADDLE_OPS = ["add", "sub", "mul", "div", "pow", "max", "min", "mod", "floordiv"]
ONNX_NAME = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow", "and": "And", "or": "Or",
             "xor": "Xor", "equal": "Equal", "greater": "Greater", "less": "Less"}
LEGACY_OPS = list(ONNX_NAME)
BOOL_OUT = {"and", "or", "xor", "equal", "greater", "less"}

# The lowest ai.onnx opset each Paddle operator needs after the rewrite, for floats
# and for integers (the ONNX schemas: Max/Min and integer Pow from 12, Less on
# integers from 9, Mod from 10). Only used to pick valid --target-opset values.
PADDLE_NEED = {"add": (7, 7), "sub": (7, 7), "mul": (7, 7), "div": (7, 7), "pow": (7, 12), "max": (8, 12),
               "min": (8, 12), "mod": (10, 10), "floordiv": (7, 9)}
IR_FOR_OPSET = {1: 3, 6: 3, 7: 3, 8: 3, 9: 4, 10: 5, 11: 6, 12: 7, 13: 7, 14: 7, 15: 8, 16: 8, 17: 8}


def legacy_types(op, opset):
    """Element types the ONNX operator accepts at this opset (and ORT runs)."""
    if op in ("and", "or", "xor"):
        return ["bool"]
    if op == "equal":
        return ["int32", "int64", "bool"] + (["float32"] if opset >= 11 else [])
    if op in ("greater", "less"):
        return ["float32"] + (["int32", "int64"] if opset >= 9 else [])
    if op == "pow":
        return ["float32"] + (["int32", "int64"] if opset >= 12 else [])
    return ["float32", "int32", "int64"]


def gen_kind(op, dtype, role):
    """How the runner draws an input: positive bases and small exponents for pow, no
    zero divisor, small dyadic floats so sums and products are exact."""
    if dtype == "bool":
        return "bool"
    f = dtype in FLOATS
    if op == "pow":
        return ("float_base" if f else "int_base") if role == "a" else ("float_exp" if f else "int_exp")
    if op in ("div", "mod", "floordiv") and role == "b":
        return "float_nonzero" if f else "int_nonzero"
    return "float" if f else "int"


def draw(kind, dtype, shape, rng):
    """An array of this numpy dtype name ("float32", "float64", "int32"...)."""
    v = _draw(kind, dtype, tuple(shape), rng)
    return v.astype(dtype) if dtype in FLOATS else v


def _draw(kind, dtype, shape, rng):
    if kind == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if kind in ("true", "false"):
        return np.full(shape, kind == "true")
    if kind == "float":
        return (rng.integers(-64, 65, size=shape) / 8).astype(np.float32)
    if kind == "float_nonzero":
        v = rng.integers(1, 33, size=shape) / 8 * rng.choice([-1, 1], size=shape)
        return v.astype(np.float32)
    if kind == "float_base":
        return rng.uniform(0.5, 2.0, size=shape).astype(np.float32)
    if kind == "float_exp":
        return rng.uniform(-2.0, 2.0, size=shape).astype(np.float32)
    if kind == "distinct":
        n = int(np.prod(shape)) if shape else 1
        return (rng.permutation(n) / 4 - n / 8).astype(np.float32).reshape(shape)
    if kind == "unit":
        return (rng.integers(-32, 33, size=shape) / 32).astype(np.float32)
    if kind == "tiny":  # small offsets that keep "distinct" values distinct
        return (rng.integers(-6, 7, size=shape) / 64).astype(np.float32)
    if kind == "int":
        return rng.integers(-20, 21, size=shape).astype(dtype)
    if kind == "int_nonzero":
        return (rng.integers(1, 7, size=shape) * rng.choice([-1, 1], size=shape)).astype(dtype)
    if kind == "int_base":
        return rng.integers(-3, 4, size=shape).astype(dtype)
    if kind == "int_exp":
        return rng.integers(0, 4, size=shape).astype(dtype)
    raise ValueError(kind)


def save(model, path):
    with open(path, "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


def inits_as_inputs(m):
    """Before IR 4 every initializer is also a graph input."""
    if m.ir_version < 4:
        have = {i.name for i in m.graph.input}
        for t in m.graph.initializer:
            if t.name not in have:
                m.graph.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))


def value_info(name, dtype, shape):
    return helper.make_tensor_value_info(name, DTYPES[dtype], shape)


class Case:
    """One model and what the proof expects of it."""

    def __init__(self, name, rule, op, dtype, a, b, axis, kind, opset, a_decl=None, b_decl=None, b_init=False,
                 args=(), domain="paddle", seed=0):
        self.name, self.rule, self.op, self.dtype = name, rule, op, dtype
        self.a, self.b, self.axis, self.kind, self.opset = list(a), list(b), axis, kind, opset
        self.a_decl = a_decl if a_decl is not None else list(a)
        self.b_decl = b_decl if b_decl is not None else list(b)
        self.b_init, self.args, self.domain, self.seed = b_init, list(args), domain, seed
        self.valid = ref.valid(rule, self.a, self.b, axis)

    def names(self):
        return ("X", "Y", "Out") if self.kind == "paddle" else ("A", "B", "C")

    def model(self):
        an, bn, out = self.names()
        attrs = {}
        if self.kind == "paddle":
            node = helper.make_node("elementwise_" + self.op, [an, bn], [out], name=self.name, domain=self.domain,
                                    **({"axis": self.axis} if self.axis != -1 else {}))
            opsets = [helper.make_opsetid("", self.opset), helper.make_opsetid(self.domain, 1)]
        else:
            if self.rule == "pdpd":
                attrs["broadcast"] = 1
            if self.axis != -1 or self.kind == "stray":
                attrs["axis"] = self.axis
            if self.opset < 6 and self.op in ("add", "sub", "mul", "div"):
                attrs["consumed_inputs"] = [0, 0]  # Add-1...Div-1 only: Pow-1, Equal-1... never had it
            node = helper.make_node(ONNX_NAME[self.op], [an, bn], [out], name=self.name, **attrs)
            opsets = [helper.make_opsetid("", self.opset)]
        inputs = [value_info(an, self.dtype, self.a_decl)]
        inits = []
        if self.b_init:
            rng = np.random.default_rng(self.seed)
            inits.append(numpy_helper.from_array(draw(gen_kind(self.op, self.dtype, "b"), self.dtype, self.b, rng),
                                                 bn))
        else:
            inputs.append(value_info(bn, self.dtype, self.b_decl))
        out_dtype = "bool" if self.op in BOOL_OUT else self.dtype
        # The result's shape is declared where the rule gives one and no symbol is
        # involved: inference after the rewrite must agree with it.
        # (onnx.checker wants a shape on graph outputs: symbolic results get their
        # rank with open dims.)
        out_shape = None
        if self.valid:
            out_shape = self.a if self.rule == "pdpd" else ref.paddle(self.a, self.b, self.axis)[2]
            if self.a_decl != self.a or self.b_decl != self.b:
                out_shape = [None] * len(out_shape)
        graph = helper.make_graph([node], self.name, inputs, [value_info(out, out_dtype, out_shape)],
                                  initializer=inits)
        m = helper.make_model(graph, opset_imports=opsets, producer_name="onnxshape-rewrite-cases")
        m.ir_version = IR_FOR_OPSET.get(self.opset, 3)
        inits_as_inputs(m)
        return m

    def placement(self):
        """What the rewrite must insert to place the operand, from the issue and the
        spec's rewriting paragraph: nothing where numpy's right alignment of the operand
        as declared already gives the placement (axis -1, the operand already of its
        placed shape, or all its dims 1); else a Reshape when the operand's declared
        dims are all known, an Unsqueeze when 1s must be appended to symbolic or
        unknown dims, a Squeeze when trailing 1s must go. A symbol stays unknown even
        where it meets a size k in the other operand: both rules accept it being 1
        there too (spec section 8), so no constant shape would be right."""
        if not self.valid or self.axis == -1:
            return "none"
        b_decl = list(self.b) if self.b_init else self.b_decl
        if self.rule == "pdpd" or len(self.a) >= len(self.b):
            big, small, sdecl = self.a, self.b, b_decl
        else:
            big, small, sdecl = self.b, self.a, self.a_decl
        t = ref.trim(small)
        target = t + [1] * (len(big) - self.axis - len(t))
        if target == list(small) or all(d == 1 for d in small):
            return "none"
        if all(isinstance(d, int) for d in sdecl):
            return "Reshape"
        return "Unsqueeze" if len(target) > len(small) else "Squeeze"

    def expect(self):
        """The summary line's numbers: nodes by kind, inserted nodes, ai.onnx opsets."""
        if self.kind == "paddle":
            need = PADDLE_NEED[self.op][0 if self.dtype in FLOATS else 1]
        else:
            need = 7 if self.kind == "legacy" else 0
        after = int(self.args[self.args.index("--target-opset") + 1]) if "--target-opset" in self.args else \
            max(self.opset, need)
        e = {"paddle": 0, "legacy": 0, "stray": 0, "Reshape": 0, "Unsqueeze": 0, "Squeeze": 0,
             "opset": [self.opset, after]}
        e[self.kind] = 1
        how = self.placement()
        if how != "none":
            e[how] = 1
        return e

    def manifest(self, file):
        an, bn, out = self.names()
        feeds = [{"name": an, "dtype": self.dtype, "shape": self.a, "gen": gen_kind(self.op, self.dtype, "a")}]
        if not self.b_init:
            feeds.append({"name": bn, "dtype": self.dtype, "shape": self.b, "gen": gen_kind(self.op, self.dtype, "b")})
        return {"name": self.name, "model": file, "args": self.args, "valid": self.valid, "feeds": feeds,
                "kind": self.kind, "expect": self.expect() if self.valid else None,
                "ref": {"type": "elementwise", "rule": self.rule, "op": self.op, "a": an, "b": bn,
                        "axis": self.axis, "out": out}}


# ---- the committed fixtures -------------------------------------------------------------

PDPD_TABLE = [  # (A, B, axis), spec section 4, in its order
    ((2, 3, 4, 5), (3, 4), 1), ((2, 3, 4, 5), (3, 1), 1), ((2, 3, 4, 5), (4, 5), -1), ((2, 3, 4, 5), (4, 5), 2),
    ((2, 3, 4, 5), (1, 3), 0), ((2, 3, 4, 5), (), -1), ((2, 3, 4, 5), (5,), -1), ((2, 3, 4, 5), (5,), 3),
    ((2, 3, 4, 5), (3,), 1),
    ((2, 1, 4), (3, 1), 1), ((2, 3, 4, 5), (5, 1), -1), ((2, 3, 4, 5), (4, 5), 1), ((8, 1, 6, 1), (7, 1, 5), 1),
    ((2, 3, 4), (3,), 3), ((2, 3, 4), (3,), -2),
]
PADDLE_TABLE = [  # (X, Y, axis), spec section 4b
    ((2, 1, 4), (3, 1), 1), ((2, 3, 4, 5), (4, 5), 1), ((2, 3, 4, 5), (3,), 1), ((2, 3, 4), (2, 3, 4), -1),
    ((3,), (2, 3, 4), 1),
]


def spec_cases():
    cases = []
    for i, (a, b, axis) in enumerate(PDPD_TABLE):
        cases.append(Case("pdpd%02d_legacy" % i, "pdpd", "add", "float32", a, b, axis, "legacy", 6))
        cases.append(Case("pdpd%02d_stray" % i, "pdpd", "add", "float32", a, b, axis, "stray", 13))
        cases.append(Case("pdpd%02d_paddle" % i, "paddle", "add", "float32", a, b, axis, "paddle", 13))
    for i, (x, y, axis) in enumerate(PADDLE_TABLE):
        cases.append(Case("paddle%02d" % i, "paddle", "add", "float32", x, y, axis, "paddle", 13))
    return cases


def operator_cases():
    cases = []
    for op in PADDLE_OPS:
        for dt in ("float32", "int32", "int64"):
            # An opset the rewrite needs to raise for some of them (mod: 10).
            cases.append(Case("paddle_%s_%s" % (op, dt), "paddle", op, dt, (2, 3, 4), (3,), 1, "paddle", 9))
        # the lower-rank operand is X: X is the one reshaped
        cases.append(Case("paddle_%s_xlow" % op, "paddle", op, "float32", (3, 1), (2, 3, 4), 1, "paddle", 13))
    for op in LEGACY_OPS:
        for dt in legacy_types(op, 6)[:2]:
            cases.append(Case("legacy_%s_%s" % (op, dt), "pdpd", op, dt, (2, 3, 4), (3,), 1, "legacy", 6))
        for dt in legacy_types(op, 13)[:2]:
            cases.append(Case("stray_%s_%s" % (op, dt), "pdpd", op, dt, (2, 3, 4), (3, 1), 1, "stray", 13))
    # Doubles, for every Paddle operator and a legacy one.
    for op in PADDLE_OPS:
        cases.append(Case("paddle_%s_float64" % op, "paddle", op, "float64", (2, 3, 4), (3,), 1, "paddle", 13))
    cases.append(Case("legacy_div_float64", "pdpd", "div", "float64", (2, 3, 4), (3, 4), 1, "legacy", 6))
    # Empty tensors: a 0 is a size like any other (spec section 2, rule 6).
    cases.append(Case("paddle_zero_dim", "paddle", "mul", "float32", (2, 0, 4), (0,), 1, "paddle", 13))
    cases.append(Case("legacy_zero_dim", "pdpd", "add", "int64", (0, 3, 4), (3,), 1, "legacy", 6))
    # Opset 1 spelling (consumed_inputs) and initializer operands.
    cases.append(Case("legacy_add_opset1", "pdpd", "add", "float32", (2, 3, 4), (3,), 1, "legacy", 1))
    cases.append(Case("legacy_mul_init", "pdpd", "mul", "float32", (2, 3, 4), (3, 4), 1, "legacy", 6, b_init=True,
                      seed=7))
    cases.append(Case("paddle_div_init", "paddle", "div", "int64", (2, 3, 4), (3,), 1, "paddle", 13, b_init=True,
                      seed=8))
    # Target opsets, and another domain name.
    cases.append(Case("legacy_sub_to13", "pdpd", "sub", "float32", (2, 3, 4), (3,), 1, "legacy", 6,
                      args=["--target-opset", "13"]))
    cases.append(Case("paddle_mod_custom_domain", "paddle", "mod", "int32", (2, 3, 4), (3,), 1, "paddle", 13,
                      domain="com.example.paddle"))
    return cases


def symbolic_cases():
    cases = []
    # The placed operand has a symbolic dim: Unsqueeze, axes an attribute before 13.
    for opset in (11, 13):
        cases.append(Case("sym_paddle_unsqueeze_op%d" % opset, "paddle", "add", "float32", (2, 3, 4), (3,), 1,
                          "paddle", opset, a_decl=["N", "C", 4], b_decl=["C"]))
    cases.append(Case("sym_legacy_unsqueeze", "pdpd", "mul", "float32", (2, 3, 4, 5), (3, 4), 1, "legacy", 6,
                      a_decl=["N", "C", "H", 5], b_decl=["C", "H"]))
    cases.append(Case("sym_legacy_unsqueeze_to13", "pdpd", "mul", "float32", (2, 3, 4, 5), (3, 4), 1, "legacy", 6,
                      a_decl=["N", "C", "H", 5], b_decl=["C", "H"], args=["--target-opset", "13"]))
    # Trailing 1s past the placement: Squeeze.
    cases.append(Case("sym_legacy_squeeze", "pdpd", "add", "float32", (2, 3, 4), (3, 4, 1), 1, "legacy", 6,
                      a_decl=[2, "C", 4], b_decl=["C", 4, 1]))
    cases.append(Case("sym_stray_squeeze", "pdpd", "add", "float32", (2, 3, 4), (3, 4, 1), 1, "stray", 13,
                      a_decl=[2, "C", 4], b_decl=["C", 4, 1]))
    # Only the other operand is symbolic: the placed one is known, a Reshape.
    cases.append(Case("sym_paddle_reshape", "paddle", "sub", "int64", (2, 3, 4), (3,), 1, "paddle", 13,
                      a_decl=["batch", 3, 4]))
    cases.append(Case("sym_paddle_floordiv_int", "paddle", "floordiv", "int32", (2, 3, 4), (3,), 1, "paddle", 13,
                      a_decl=["N", "C", 4], b_decl=["C"]))
    cases.append(Case("sym_paddle_mod_float", "paddle", "mod", "float32", (2, 3, 4), (3,), 1, "paddle", 13,
                      a_decl=["N", "C", 4], b_decl=["C"]))
    # Unknown dims (neither a size nor a name): Unsqueeze and Squeeze too.
    cases.append(Case("unknown_paddle_unsqueeze", "paddle", "mul", "float32", (2, 3, 4), (3,), 1, "paddle", 13,
                      a_decl=[None, None, 4], b_decl=[None]))
    cases.append(Case("unknown_legacy_unsqueeze", "pdpd", "sub", "int32", (2, 3, 4, 5), (3, 4), 1, "legacy", 6,
                      a_decl=[None, None, None, 5], b_decl=[None, None]))
    cases.append(Case("unknown_legacy_squeeze", "pdpd", "add", "float32", (2, 3, 4), (3, 4, 1), 1, "legacy", 6,
                      a_decl=[2, None, 4], b_decl=[None, 4, 1]))
    # The placed operand's symbol meets a size 3 in the other one: it may be 3 or 1
    # (spec section 8), so no constant shape fits: Unsqueeze.
    cases.append(Case("sym_meets_size_unsqueeze", "paddle", "add", "float32", (2, 3, 4), (3,), 1, "paddle", 13,
                      b_decl=["C"]))
    return cases


def expect(kind, opset, after, **inserted):
    e = {"paddle": 0, "legacy": 0, "stray": 0, "Reshape": 0, "Unsqueeze": 0, "Squeeze": 0, "opset": [opset, after]}
    e[kind] = 1
    e.update(inserted)
    return e


def gemm_cases():
    """Gemm with broadcast=1, legacy (opset 6) or stray (opset 13): C right-aligned into
    (M, N), unidirectionally; nothing to insert."""
    out = []
    for name, cshape, ok, opset in (("gemm_c_row", (5,), True, 6), ("gemm_c_col", (3, 1), True, 6),
                                    ("gemm_c_scalar", (1,), True, 6), ("gemm_c_bad", (3,), False, 6),
                                    ("gemm_stray_c_row", (5,), True, 13), ("gemm_stray_c_bad", (5, 1), False, 13)):
        node = helper.make_node("Gemm", ["A", "B", "C"], ["Y"], name=name, broadcast=1, alpha=2.0, beta=0.5,
                                transB=1)
        graph = helper.make_graph([node], name, [value_info("A", "float32", [3, 4]),
                                                 value_info("B", "float32", [5, 4]),
                                                 value_info("C", "float32", list(cshape))],
                                  [value_info("Y", "float32", [3, 5] if ok else None)])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = IR_FOR_OPSET[opset]
        feeds = [{"name": "A", "dtype": "float32", "shape": [3, 4], "gen": "float"},
                 {"name": "B", "dtype": "float32", "shape": [5, 4], "gen": "float"},
                 {"name": "C", "dtype": "float32", "shape": list(cshape), "gen": "float"}]
        kind = "legacy" if opset < 7 else "stray"
        out.append((m, {"name": name, "args": [], "valid": ok, "feeds": feeds, "kind": kind,
                        "expect": expect(kind, opset, max(opset, 7)) if ok else None,
                        "ref": {"type": "gemm", "rule": "pdpd", "alpha": 2.0, "beta": 0.5, "transA": 0, "transB": 1, "out": "Y"}}))
    return out


def stray_axis_only():
    """axis without broadcast on opset 13: the attribute goes, numpy is unchanged."""
    node = helper.make_node("Add", ["A", "B"], ["C"], name="stray_axis_only", axis=1)
    graph = helper.make_graph([node], "stray_axis_only", [value_info("A", "float32", [2, 3]),
                                                          value_info("B", "float32", [2, 3])],
                              [value_info("C", "float32", [2, 3])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    feeds = [{"name": "A", "dtype": "float32", "shape": [2, 3], "gen": "float"},
             {"name": "B", "dtype": "float32", "shape": [2, 3], "gen": "float"}]
    return m, {"name": "stray_axis_only", "args": [], "valid": True, "feeds": feeds, "expect": expect("stray", 13, 13),
               "ref": {"type": "elementwise", "rule": "pdpd", "op": "add", "a": "A", "b": "B", "axis": -1,
                       "out": "C"}}


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def legacy_mixed6():
    """An opset 6 network: legacy bias Add, BatchNormalization (is_test, spatial),
    Dropout (is_test, a mask nobody reads), MaxPool, AveragePool, Softmax on 4-D at axis
    1 and on 2-D, Reshape, a legacy Mul with the default axis."""
    f = np.float32
    nodes = [
        helper.make_node("Add", ["X", "bias"], ["t1"], name="bias_add", broadcast=1, axis=1),
        helper.make_node("Relu", ["t1"], ["t2"], name="relu"),
        helper.make_node("BatchNormalization", ["t2", "scale", "shift", "mean", "var"], ["t3"], name="bn",
                         epsilon=1e-5, is_test=1, spatial=1),
        helper.make_node("Dropout", ["t3"], ["t4", "t4_mask"], name="drop", is_test=1, ratio=0.3),
        helper.make_node("MaxPool", ["t4"], ["t5"], name="maxpool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("AveragePool", ["t2"], ["t6"], name="avgpool", kernel_shape=[2, 2], strides=[2, 2],
                         pads=[0, 0, 0, 0]),
        helper.make_node("Add", ["t5", "t6"], ["t7"], name="merge"),
        helper.make_node("Softmax", ["t7"], ["t8"], name="softmax4d", axis=1),
        helper.make_node("Reshape", ["t8", "shape"], ["t9"], name="flat"),
        helper.make_node("Softmax", ["t9"], ["Y"], name="softmax2d"),
        helper.make_node("Mul", ["t9", "gain"], ["Z"], name="gain_mul", broadcast=1),
    ]
    inits = [const("scale", f([1.0, 0.5, 0.75])), const("shift", f([0.25, -0.5, 0.0])),
             const("mean", f([0.5, 0.0, -0.25])), const("var", f([1.0, 4.0, 2.25])),
             const("shape", np.array([2, 12], dtype=np.int64)),
             const("gain", (np.arange(12, dtype=f) / 4 - 1).astype(f))]
    graph = helper.make_graph(nodes, "legacy_mixed6", [value_info("X", "float32", [2, 3, 4, 4]),
                                                       value_info("bias", "float32", [3])],
                              [value_info("Y", "float32", [2, 12]), value_info("Z", "float32", [2, 12])],
                              initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    m.ir_version = 3
    inits_as_inputs(m)
    # Inputs near 1 and a mild batch norm keep the softmax outputs away from tiny
    # values, where float32 exp loses relative precision on any runtime (ORT's
    # pre-13 kernels differ from a float64 reference by more than 1e-6 there).
    feeds = [{"name": "X", "dtype": "float32", "shape": [2, 3, 4, 4], "gen": "unit"},
             {"name": "bias", "dtype": "float32", "shape": [3], "gen": "unit"}]
    return m, feeds


def legacy_v1():
    """An opset 1 graph of the operators whose attributes became inputs later:
    Add-1 (consumed_inputs, broadcast), Reshape-1, Concat-1 without axis, Slice-1,
    Unsqueeze/Squeeze-1, Pad-1 (paddings, value), Clip-1, ReduceSum-1, TopK-1, Cast-1
    (a type name), Split-1 with a split attribute."""
    nodes = [
        helper.make_node("Add", ["X", "b"], ["a1"], name="add1", broadcast=1, axis=1, consumed_inputs=[0, 0]),
        helper.make_node("Reshape", ["a1"], ["r1"], name="reshape1", shape=[2, 12]),
        helper.make_node("Concat", ["r1", "r1"], ["c1"], name="concat1"),
        helper.make_node("Slice", ["c1"], ["s1"], name="slice1", starts=[0, 2], ends=[2, 10], axes=[0, 1]),
        helper.make_node("Unsqueeze", ["s1"], ["u1"], name="unsq1", axes=[0]),
        helper.make_node("Squeeze", ["u1"], ["q1"], name="sq1", axes=[0]),
        helper.make_node("Pad", ["q1"], ["p1"], name="pad1", paddings=[0, 1, 0, 1], value=1.5, mode="constant"),
        helper.make_node("Clip", ["p1"], ["cl"], name="clip1", min=-1.0, max=2.0),
        helper.make_node("ReduceSum", ["cl"], ["RS"], name="rsum1", axes=[1], keepdims=1),
        helper.make_node("TopK", ["s1"], ["TV", "ti"], name="topk1", k=3, axis=1),
        helper.make_node("Cast", ["ti"], ["TI"], name="cast1", to="FLOAT"),
        helper.make_node("Split", ["cl"], ["SP0", "SP1"], name="split1", axis=1, split=[4, 6]),
    ]
    graph = helper.make_graph(nodes, "legacy_v1", [value_info("X", "float32", [2, 3, 4]),
                                                   value_info("b", "float32", [3])],
                              [value_info("RS", "float32", [2, 1]), value_info("TV", "float32", [2, 3]),
                               value_info("TI", "float32", [2, 3]), value_info("SP0", "float32", [2, 4]),
                               value_info("SP1", "float32", [2, 6])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 1)])
    m.ir_version = 3
    feeds = [{"name": "X", "dtype": "float32", "shape": [2, 3, 4], "gen": "distinct"},
             {"name": "b", "dtype": "float32", "shape": [3], "gen": "tiny"}]
    return m, feeds


def legacy_prelu(symbolic):
    """PRelu at opset 6 beside a legacy bias Add: its 1-D slope is per channel, which
    PRelu-7's numpy broadcasting reads only once the slope is (C, 1, 1). With a
    symbolic channel count the slope is an input of shape (C,): an Unsqueeze."""
    c = "C" if symbolic else 3
    nodes = [
        helper.make_node("Add", ["X", "bias"], ["t"], name="bias_add", broadcast=1, axis=1),
        helper.make_node("PRelu", ["t", "slope"], ["Y"], name="prelu"),
    ]
    inputs = [value_info("X", "float32", ["N", c, 4, 3]), value_info("bias", "float32", [c])]
    inits = []
    if symbolic:
        inputs.append(value_info("slope", "float32", [c]))
    else:
        inits.append(const("slope", np.float32([0.25, -0.5, 2.0])))
    graph = helper.make_graph(nodes, "legacy_prelu", inputs, [value_info("Y", "float32", ["N", c, 4, 3])],
                              initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    m.ir_version = 3
    inits_as_inputs(m)
    feeds = [{"name": "X", "dtype": "float32", "shape": [2, 3, 4, 3], "gen": "float"},
             {"name": "bias", "dtype": "float32", "shape": [3], "gen": "float"}]
    if symbolic:
        feeds.append({"name": "slope", "dtype": "float32", "shape": [3], "gen": "float"})
    return m, feeds


def legacy_upsample():
    """Upsample-1 (height_scale, width_scale) beside a legacy bias Add: scales become
    an attribute over every axis at 7, an input at 9 (and Upsample is gone at 10)."""
    nodes = [helper.make_node("Add", ["X", "bias"], ["t"], name="bias_add", broadcast=1, axis=1),
             helper.make_node("Upsample", ["t"], ["Y"], name="upsample", height_scale=2.0, width_scale=3.0,
                              mode="nearest")]
    graph = helper.make_graph(nodes, "legacy_upsample", [value_info("X", "float32", [2, 3, 2, 2]),
                                                         value_info("bias", "float32", [3])],
                              [value_info("Y", "float32", [2, 3, 4, 6])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    m.ir_version = 3
    feeds = [{"name": "X", "dtype": "float32", "shape": [2, 3, 2, 2], "gen": "float"},
             {"name": "bias", "dtype": "float32", "shape": [3], "gen": "float"}]
    return m, feeds


def legacy_prelu_known():
    return legacy_prelu(False)


def legacy_prelu_symbolic():
    return legacy_prelu(True)


def paddle_block():
    """What a Paddle exporter leaves: a batch norm folded into elementwise_mul and
    elementwise_add at axis 1 on a batch of symbolic size, a Relu, an unnamed
    elementwise_max at the default axis (nothing to insert) and a per-channel
    elementwise_floordiv at axis 1. The README's before/after example."""
    f = np.float32
    nodes = [
        helper.make_node("elementwise_mul", ["image", "bn_scale"], ["scaled"], name="bn_mul", domain="paddle", axis=1),
        helper.make_node("elementwise_add", ["scaled", "bn_bias"], ["shifted"], name="bn_add", domain="paddle",
                         axis=1),
        helper.make_node("Relu", ["shifted"], ["act"], name="relu"),
        helper.make_node("elementwise_max", ["act", "floor"], ["clamped"], domain="paddle", axis=-1),
        helper.make_node("elementwise_floordiv", ["clamped", "step"], ["out"], name="quantize", domain="paddle",
                         axis=1),
    ]
    inits = [const("bn_scale", f([0.5, -1.0, 2.0])), const("bn_bias", f([0.25, 0.0, -0.5])),
             const("floor", f([0.0, 0.125, 0.25, 0.5])), const("step", f([0.25, 0.5, 0.125]))]
    graph = helper.make_graph(nodes, "paddle_block", [value_info("image", "float32", ["N", 3, 2, 4])],
                              [value_info("out", "float32", ["N", 3, 2, 4])], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("paddle", 1)],
                          producer_name="onnxshape-rewrite-cases")
    m.ir_version = 7
    feeds = [{"name": "image", "dtype": "float32", "shape": [2, 3, 2, 4], "gen": "float"}]
    return m, feeds, expect("paddle", 13, 13, paddle=4, Reshape=3)


def name_clash():
    """Names the rewrite would derive are taken: a node and its output named
    'n/Y_reshaped', an initializer 'n/Y_shape', and for the unnamed node 2 (named
    'elementwise_mul_2' in new names) a graph input 'elementwise_mul_2/Y_reshaped' and
    an initializer 'elementwise_mul_2/Y_shape'. New names must avoid them all."""
    f = np.float32
    nodes = [
        helper.make_node("elementwise_add", ["X", "b"], ["t"], name="n", domain="paddle", axis=1),
        helper.make_node("Relu", ["t"], ["n/Y_reshaped"], name="n/Y_reshaped"),
        helper.make_node("elementwise_mul", ["n/Y_reshaped", "elementwise_mul_2/Y_reshaped"], ["u"],
                         domain="paddle", axis=1),
        helper.make_node("elementwise_sub", ["u", "n/Y_shape"], ["v"], domain="paddle", axis=1),
        helper.make_node("Add", ["v", "elementwise_mul_2/Y_shape"], ["Out"], name="n/Y_shape"),
    ]
    inits = [const("b", f([1.0, -2.0, 0.5])), const("n/Y_shape", f([0.25, 0.5, 0.75])),
             const("elementwise_mul_2/Y_shape", f([3.0]))]
    graph = helper.make_graph(nodes, "name_clash", [value_info("X", "float32", ["N", 3, 4]),
                                                    value_info("elementwise_mul_2/Y_reshaped", "float32", [3])],
                              [value_info("Out", "float32", ["N", 3, 4])], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("paddle", 1)],
                          producer_name="onnxshape-rewrite-cases")
    m.ir_version = 7
    feeds = [{"name": "X", "dtype": "float32", "shape": [2, 3, 4], "gen": "float"},
             {"name": "elementwise_mul_2/Y_reshaped", "dtype": "float32", "shape": [3], "gen": "float"}]
    return m, feeds, expect("paddle", 13, 13, paddle=3, Reshape=3)


def paddle_in_if():
    """Paddle nodes inside an If's branches, reading X and Y from the outer graph:
    rewritten in their own graphs (the Reshapes go into the branches)."""
    def branch(op, name):
        node = helper.make_node("elementwise_" + op, ["X", "Y"], [name + "_out"], name=name, domain="paddle",
                                axis=1)
        return helper.make_graph([node], name, [], [value_info(name + "_out", "float32", [2, 3, 4])])
    node = helper.make_node("If", ["cond"], ["Out"], name="choose", then_branch=branch("add", "then_add"),
                            else_branch=branch("mul", "else_mul"))
    graph = helper.make_graph([node], "paddle_in_if", [value_info("cond", "bool", []),
                                                       value_info("X", "float32", [2, 3, 4]),
                                                       value_info("Y", "float32", [3])],
                              [value_info("Out", "float32", [2, 3, 4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("paddle", 1)],
                          producer_name="onnxshape-rewrite-cases")
    m.ir_version = 7
    feeds = [{"name": "cond", "dtype": "bool", "shape": [], "gen": "true"},
             {"name": "X", "dtype": "float32", "shape": [2, 3, 4], "gen": "float"},
             {"name": "Y", "dtype": "float32", "shape": [3], "gen": "float"}]
    return m, feeds, expect("paddle", 13, 13, paddle=2, Reshape=2)


def name_clash_scopes():
    """The names the rewrite would derive for node 'p' are taken inside an If's
    branches: a new name in the main graph must not shadow them (or be shadowed)."""
    then = helper.make_graph([helper.make_node("Relu", ["X"], ["p/Y_reshaped"], name="p/Y_reshaped")], "then", [],
                             [value_info("p/Y_reshaped", "float32", [2, 3, 4])])
    other = helper.make_graph([helper.make_node("Neg", ["X"], ["p/Y_shape"], name="p/Y_shape")], "else", [],
                              [value_info("p/Y_shape", "float32", [2, 3, 4])])
    nodes = [helper.make_node("If", ["cond"], ["t"], name="choose", then_branch=then, else_branch=other),
             helper.make_node("elementwise_add", ["t", "Y"], ["Out"], name="p", domain="paddle", axis=1)]
    graph = helper.make_graph(nodes, "name_clash_scopes", [value_info("cond", "bool", []),
                                                           value_info("X", "float32", [2, 3, 4]),
                                                           value_info("Y", "float32", [3])],
                              [value_info("Out", "float32", [2, 3, 4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("paddle", 1)],
                          producer_name="onnxshape-rewrite-cases")
    m.ir_version = 7
    feeds = [{"name": "cond", "dtype": "bool", "shape": [], "gen": "true"},
             {"name": "X", "dtype": "float32", "shape": [2, 3, 4], "gen": "float"},
             {"name": "Y", "dtype": "float32", "shape": [3], "gen": "float"}]
    return m, feeds, expect("paddle", 13, 13, Reshape=1)


def unchanged():
    """Nothing to rewrite: written back byte for byte."""
    node = helper.make_node("Add", ["A", "B"], ["C"], name="plain_add")
    graph = helper.make_graph([node], "unchanged", [value_info("A", "float32", ["N", 3]),
                                                    value_info("B", "float32", [3])],
                              [value_info("C", "float32", ["N", 3])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m


def fixtures(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    manifest = []
    for c in spec_cases() + operator_cases() + symbolic_cases():
        file = c.name + ".onnx"
        save(c.model(), os.path.join(out_dir, file))
        manifest.append(c.manifest(file))
    for m, entry in gemm_cases() + [stray_axis_only()]:
        file = entry["name"] + ".onnx"
        save(m, os.path.join(out_dir, file))
        entry["model"] = file
        manifest.append(entry)
    # Whole graphs: (builder, runs as (arguments, expected summary numbers)).
    graphs = (
        # Every target opset: each adapter step on the way is taken by some run.
        (legacy_mixed6, tuple(([] if t == 7 else ["--target-opset", str(t)], expect("legacy", 6, t, legacy=2, Reshape=1))
                              for t in range(7, 18))),
        (legacy_v1, tuple(([] if t == 7 else ["--target-opset", str(t)], expect("legacy", 1, t, Reshape=1))
                          for t in range(7, 18))),
        (legacy_upsample, tuple(([] if t == 7 else ["--target-opset", str(t)],
                                 expect("legacy", 6, t, Reshape=1)) for t in (7, 8, 9))),
        (legacy_prelu_known, tuple(([] if t == 7 else ["--target-opset", str(t)],
                                    expect("legacy", 6, t, Reshape=1)) for t in (7, 13))),
        (legacy_prelu_symbolic, tuple(([] if t == 7 else ["--target-opset", str(t)],
                                       expect("legacy", 6, t, Unsqueeze=1)) for t in (7, 13))),
        (paddle_block, (([], None),)),
        (name_clash, (([], None),)),
        (name_clash_scopes, (([], None),)),
    )
    for fn, runs in graphs:
        m, feeds, *own = fn()
        file = fn.__name__ + ".onnx"
        save(m, os.path.join(out_dir, file))
        for args, exp in runs:
            suffix = "" if not args else "_to" + args[-1]
            manifest.append({"name": fn.__name__ + suffix, "model": file, "args": args, "valid": True,
                             "feeds": feeds, "expect": exp or own[0], "ref": {"type": "graph", "fn": fn.__name__}})
    # Both branches of the If run: cond true, then false.
    m, feeds, exp = paddle_in_if()
    save(m, os.path.join(out_dir, "paddle_in_if.onnx"))
    for cond in ("true", "false"):
        manifest.append({"name": "paddle_in_if_" + cond, "model": "paddle_in_if.onnx", "args": [], "valid": True,
                         "feeds": [dict(feeds[0], gen=cond)] + feeds[1:], "expect": exp,
                         "ref": {"type": "graph", "fn": "paddle_in_if"}})
    save(unchanged(), os.path.join(out_dir, "unchanged.onnx"))
    manifest.append({"name": "unchanged", "model": "unchanged.onnx", "args": [], "valid": True, "feeds": [],
                     "ref": {"type": "identical"}})
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    return manifest


# ---- random cases ----------------------------------------------------------------------

def random_case(rng, i):
    kind = str(rng.choice(["paddle", "legacy", "stray"], p=[0.45, 0.35, 0.2]))
    rule = "paddle" if kind == "paddle" else "pdpd"
    if kind == "paddle":
        op = str(rng.choice(PADDLE_OPS))
        dtype = str(rng.choice(["float32", "float64", "int32", "int64"], p=[0.4, 0.1, 0.25, 0.25]))
        nf, ni = PADDLE_NEED[op]
        opset = int(rng.integers(7, 18))
    else:
        op = str(rng.choice(LEGACY_OPS))
        opset = (6 if rng.random() < 0.8 else 1) if kind == "legacy" else int(rng.integers(7, 18))
        dtype = str(rng.choice(legacy_types(op, opset if kind == "stray" else 7)))
    # A random placement, then perturbations, valid or not: the reference decides.
    # Mostly ranks 2 to 4 and a placement away from the right end, where the rewrite
    # has something to insert; sometimes an empty (0) dim.
    n = int(rng.choice(6, p=[0.04, 0.12, 0.24, 0.26, 0.22, 0.12]))
    big = [int(d) for d in rng.integers(1, 6, size=n)]
    if big and rng.random() < 0.05:
        big[int(rng.integers(0, n))] = 0
    rs = int(rng.integers(1, n)) if n >= 2 and rng.random() < 0.7 else int(rng.integers(0, n + 1))
    if rng.random() < 0.2:
        axis = -1
        small = big[n - rs:]
    else:
        axis = int(rng.integers(0, n - rs)) if rs < n and rng.random() < 0.75 else int(rng.integers(0, n - rs + 1))
        small = big[axis:axis + rs]
    small = [d if rng.random() < 0.85 else 1 for d in small]
    if rng.random() < 0.2:
        small = small + [1] * int(rng.integers(1, 3))
    if kind == "paddle" and rng.random() < 0.3 and big:
        # Paddle lets the higher-rank operand grow where the other has a size.
        k = int(rng.integers(0, len(big)))
        big[k] = 1
    roll = rng.random()
    if roll < 0.12 and small:
        k = int(rng.integers(0, len(small)))
        small[k] = int(rng.integers(2, 6))
    elif roll < 0.17:
        axis = len(big) - len(ref.trim(small)) + 1
    elif roll < 0.20:
        axis = -2
    elif roll < 0.24 and kind != "paddle":
        small, big = big + [2], small
    a, b = (big, small)
    if kind == "paddle" and rng.random() < 0.3:
        a, b = b, a  # X of the lower rank: X is the placed one
    c = Case("rand%04d_%s_%s_%s" % (i, kind, op, dtype), rule, op, dtype, a, b, axis, kind, opset)
    # Symbolic dims, for valid cases: the placed operand's sizes become symbols, shared
    # with the other operand where it has the same size at that place.
    if c.valid and rng.random() < 0.25:
        placed_is_b = rule == "pdpd" or len(a) >= len(b)
        p, o = (c.b, c.a) if placed_is_b else (c.a, c.b)
        decl = list(p)
        syms = {}
        for k, d in enumerate(p):
            if d > 1 and rng.random() < 0.7:
                decl[k] = None if rng.random() < 0.25 else syms.setdefault(d, "S%d" % d)
        odecl = [syms.get(d, d) if d > 1 and rng.random() < 0.5 else d for d in o]
        if placed_is_b:
            c.b_decl, c.a_decl = decl, odecl
        else:
            c.a_decl, c.b_decl = decl, odecl
    c.b_init = rng.random() < 0.15
    c.seed = int(rng.integers(0, 2 ** 31))
    c.domain = str(rng.choice(["paddle", "paddle", "custom", "pd", "com.example"]))
    # Some runs pick the opset themselves.
    if rng.random() < 0.25:
        floor = max(opset, 7)
        if kind == "paddle":
            floor = max(floor, nf if dtype == "float32" else ni)
        c.args = ["--target-opset", str(int(rng.integers(floor, 18)))]
    return c


CHAIN_OPS = {"paddle": ["add", "sub", "mul", "div", "max", "min", "mod", "floordiv"], "legacy": ["add", "sub", "mul"]}


def random_chain(rng, i):
    """A graph of 2 to 5 nodes, each combining the running tensor X (its shape fixed)
    with an operand of its own placed at a random axis: several rewrites in one
    model, some nodes unnamed, some operands shared or initializers. Always valid."""
    kind = str(rng.choice(["paddle", "legacy"], p=[0.7, 0.3]))
    rule = "paddle" if kind == "paddle" else "pdpd"
    dtype = str(rng.choice(["float32", "int32", "int64"]))
    n = int(rng.integers(2, 6))
    shape = [int(d) for d in rng.integers(1, 5, size=n)]
    opset = int(rng.integers(7, 18)) if kind == "paddle" else 6
    name = "chain%03d_%s_%s" % (i, kind, dtype)
    nodes, inputs, inits, feeds, steps = [], [value_info("X", dtype, shape)], [], [], []
    feeds.append({"name": "X", "dtype": dtype, "shape": shape, "gen": gen_kind("add", dtype, "a")})
    exp = {"paddle": 0, "legacy": 0, "stray": 0, "Reshape": 0, "Unsqueeze": 0, "Squeeze": 0}
    need, operands, t = 7 if kind == "legacy" else 0, [], "X"
    for k in range(int(rng.integers(2, 6))):
        op = str(rng.choice(CHAIN_OPS[kind]))
        if operands and rng.random() < 0.25:
            yn, ys, axis = operands[int(rng.integers(0, len(operands)))]  # shared with an earlier node
        else:
            rs = int(rng.integers(1, n))
            axis = int(rng.integers(0, n - rs + 1)) if rng.random() < 0.85 else -1
            start = n - rs if axis == -1 else axis
            ys = [d if rng.random() < 0.85 else 1 for d in shape[start:start + rs]]
            yn = "%s_operand%d" % (name, k)
            operands.append((yn, ys, axis))
            if rng.random() < 0.3:
                arr = draw("int_nonzero" if dtype != "float32" else "float_nonzero", dtype, ys, rng)
                inits.append(numpy_helper.from_array(arr, yn))
            else:
                inputs.append(value_info(yn, dtype, ys))
                feeds.append({"name": yn, "dtype": dtype, "shape": ys, "gen": gen_kind("div", dtype, "b")})
        out = "%s_t%d" % (name, k)
        node_name = "" if rng.random() < 0.3 else "%s_node%d" % (name, k)
        if kind == "paddle":
            node = helper.make_node("elementwise_" + op, [t, yn], [out], name=node_name, domain="paddle",
                                    **({"axis": axis} if axis != -1 else {}))
            need = max(need, PADDLE_NEED[op][0 if dtype in FLOATS else 1])
        else:
            node = helper.make_node(ONNX_NAME[op], [t, yn], [out], name=node_name, broadcast=1,
                                    **({"axis": axis} if axis != -1 else {}))
        nodes.append(node)
        c = Case(name, rule, op, dtype, shape, ys, axis, kind, opset)
        assert c.valid
        exp[kind] += 1
        how = c.placement()
        if how != "none":
            exp[how] += 1
        steps.append([op, yn, axis])
        t = out
    nodes[-1].output[0] = "Out"
    if kind == "paddle":
        opsets = [helper.make_opsetid("", opset), helper.make_opsetid("paddle", 1)]
    else:
        opsets = [helper.make_opsetid("", opset)]
    graph = helper.make_graph(nodes, name, inputs, [value_info("Out", dtype, shape)], initializer=inits)
    m = helper.make_model(graph, opset_imports=opsets, producer_name="onnxshape-rewrite-cases")
    m.ir_version = IR_FOR_OPSET.get(opset, 3)
    inits_as_inputs(m)
    exp["opset"] = [opset, max(opset, need)]
    return m, {"name": name, "args": [], "valid": True, "feeds": feeds, "kind": kind, "expect": exp,
               "ref": {"type": "chain", "rule": rule, "x": "X", "steps": steps, "out": "Out"}}


def random_cases(out_dir, seed, count, chains=0):
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    manifest = []
    for i in range(count):
        c = random_case(rng, i)
        file = c.name + ".onnx"
        save(c.model(), os.path.join(out_dir, file))
        manifest.append(c.manifest(file))
    for i in range(chains):
        m, entry = random_chain(rng, i)
        entry["model"] = entry["name"] + ".onnx"
        save(m, os.path.join(out_dir, entry["model"]))
        manifest.append(entry)
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    return manifest


def main(argv):
    if len(argv) >= 2 and argv[1] == "fixtures":
        out = argv[2] if len(argv) > 2 else os.path.join(HERE, "..", "models", "rewrite")
        man = fixtures(out)
    elif len(argv) >= 2 and argv[1] == "verify":
        # The committed fixtures are what this generator makes, byte for byte.
        import filecmp
        import tempfile
        committed = argv[2] if len(argv) > 2 else os.path.join(HERE, "..", "models", "rewrite")
        with tempfile.TemporaryDirectory() as tmp:
            fixtures(tmp)
            made, have = sorted(os.listdir(tmp)), sorted(os.listdir(committed))
            _, differ, _ = filecmp.cmpfiles(tmp, committed, made, shallow=False)
            stale = differ + sorted(set(made) ^ set(have))
        for f in stale:
            print("stale: %s (run gen_rewrite_cases.py fixtures)" % f)
        print("%d fixtures, %d stale" % (len(made), len(stale)))
        return 1 if stale else 0
    elif len(argv) >= 3 and argv[1] == "random":
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--seed", type=int, default=6)
        p.add_argument("--count", type=int, default=320)
        p.add_argument("--chains", type=int, default=0, help="and this many random multi-node graphs")
        p.add_argument("out")
        a = p.parse_args(argv[2:])
        man = random_cases(a.out, a.seed, a.count, a.chains)
    else:
        sys.stderr.write(__doc__)
        return 2
    print("%d cases (%d valid, %d invalid)" % (len(man), sum(c["valid"] for c in man),
                                               sum(not c["valid"] for c in man)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
