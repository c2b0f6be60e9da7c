"""test_api.py: the Python package (python/onnxshape) against the fixtures (ctest python/api).

Run by ctest with PYTHONPATH=python and, in the environment: ONNXSHAPE_LIBRARY (the
built libonnxshape), OSH_MODELS (tests/models), OSH_BIG_MODEL (a 100k-node model from
bench/gen_models.py), OSH_INCLUDE (include/), CC and OSH_WORK (a scratch folder).

The lint fixtures' findings are read from tests/models/lint/expected.txt, the file the
CLI's tests compare against: check() must find the same lines, str(Diagnostic)
printing them as `onnxshape check` does.
"""
import ctypes
import dataclasses
import errno
import os
import pathlib
import subprocess
import sys
import threading
import time
import unittest

import onnxshape
from onnxshape import _lib

MODELS = os.environ["OSH_MODELS"]
LINT = os.path.join(MODELS, "lint")
EXAMPLES = os.path.join(MODELS, "examples")
WORK = os.environ["OSH_WORK"]


def lint(name):
    return os.path.join(LINT, name)


def expected_blocks():
    """expected.txt as {command: [output lines]} (the lines of each `$ onnxshape ...`)."""
    blocks, cur = {}, None
    with open(os.path.join(LINT, "expected.txt"), encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("$ "):
                cur = blocks.setdefault(line[2:], [])
            elif cur is not None and line and not line.startswith("(exit status"):
                cur.append(line)
    return blocks


def shown(report):
    """The report's lines with the model named by its file name, as `check .` shows."""
    return [str(dataclasses.replace(d, path=os.path.basename(d.path))) for d in report]


class Check(unittest.TestCase):
    def test_runtime_default(self):
        # ONNX Runtime refuses a node of an undeclared custom domain ("not a registered
        # function/op"): an error by default, the shape warning once it is declared.
        codes = [d.code for d in onnxshape.check(lint("unknown_op.onnx")).diagnostics]
        self.assertEqual(codes, ["no-kernel"])
        for ops in (["com.example"], ["com.example::Frobnicate"]):
            codes = [d.code for d in onnxshape.check(lint("unknown_op.onnx"), custom_ops=ops).diagnostics]
            self.assertEqual(codes, ["unknown-op"])
        with self.assertRaises(onnxshape.InvalidOptions):
            onnxshape.check(lint("unknown_op.onnx"), runtime="tpu")

    def test_lint_fixtures_as_expected(self):
        lines = expected_blocks()["onnxshape check ."]
        files = sorted(f for f in os.listdir(LINT) if f.endswith(".onnx"))
        self.assertGreater(len(files), 10)
        for f in files:
            want = [line for line in lines if line.startswith(f + ":")]
            if f == "malformed_model.onnx":
                with self.assertRaises(onnxshape.MalformedModel) as cm:
                    onnxshape.check(lint(f))
                self.assertEqual([str(dataclasses.replace(d, path=f)) for d in cm.exception.diagnostics], want)
                continue
            with self.subTest(model=f):
                # The golden report holds the spec-level findings (check --runtime spec):
                # the Paddle, legacy and custom-domain fixtures are models ONNX Runtime
                # cannot load, which test_runtime_default checks.
                report = onnxshape.check(lint(f), runtime="spec")
                self.assertEqual(shown(report), want)
                self.assertEqual(bool(report), not report.errors)
                self.assertEqual(len(report.errors), sum(": error: " in line for line in want))

    def test_static_and_assume(self):
        blocks = expected_blocks()
        report = onnxshape.check(lint("dynamic_shape.onnx"), static=True)
        self.assertEqual(shown(report), blocks["onnxshape check --static dynamic_shape.onnx"][:-1])
        self.assertFalse(report)
        self.assertEqual({d.code for d in report.errors}, {"dynamic-shape"})
        self.assertTrue(onnxshape.check(lint("dynamic_shape.onnx"), static=True, assume={"N": 2}))
        self.assertTrue(onnxshape.check(lint("dynamic_shape.onnx"), static=True, input_shapes={"x": [2, 3]}))

    def test_diagnostic_fields(self):
        report = onnxshape.check(lint("broadcast_mismatch.onnx"))
        (d,) = report.diagnostics
        self.assertEqual((d.severity, d.code, d.node, d.node_index, d.op_type, d.graph),
                         ("error", "broadcast-mismatch", "mul", 3, "Mul", ""))
        self.assertEqual(d.path, lint("broadcast_mismatch.onnx"))
        self.assertIn("do not broadcast", d.message)
        self.assertEqual(report.errors, [d])
        self.assertEqual(report.warnings, [])
        self.assertEqual(report.nodes, 4)
        self.assertTrue(str(report).endswith("1 error, 0 warnings, 0 notes (4 nodes)"))
        # A finding about no node.
        (g, *_) = onnxshape.check(lint("dynamic_shape.onnx"), static=True).diagnostics
        self.assertEqual((g.node, g.node_index, g.op_type, g.value), (None, None, None, "x"))

    def test_raise_for_errors(self):
        report = onnxshape.check(lint("broadcast_mismatch.onnx"))
        with self.assertRaises(onnxshape.ModelErrors) as cm:
            report.raise_for_errors()
        self.assertIs(cm.exception.report, report)
        self.assertIsInstance(cm.exception, onnxshape.OnnxshapeError)
        self.assertIn("broadcast-mismatch", str(cm.exception))
        onnxshape.check(lint("outer_broadcast.onnx")).raise_for_errors()  # a warning only

    def test_severity_overrides(self):
        strict = onnxshape.check(lint("outer_broadcast.onnx"), severity={"outer-broadcast": "error"})
        self.assertFalse(strict)
        self.assertEqual([d.code for d in strict.errors], ["outer-broadcast"])
        self.assertEqual(len(onnxshape.check(lint("outer_broadcast.onnx"), severity={"outer-broadcast": "ignore"})), 0)
        relaxed = onnxshape.check(lint("broadcast_mismatch.onnx"), severity={"broadcast-mismatch": "note"})
        self.assertTrue(relaxed)
        self.assertEqual([d.severity for d in relaxed], ["note"])

    def test_rules(self):
        rules = onnxshape.rules()
        self.assertEqual(rules["broadcast-mismatch"][0], "error")
        self.assertEqual(rules["outer-broadcast"][0], "warning")
        self.assertIn("malformed-model", rules)


class Inputs(unittest.TestCase):
    def test_bytes_and_modelproto(self):
        import onnx

        path = lint("broadcast_mismatch.onnx")
        want = [dataclasses.replace(d, path="") for d in onnxshape.check(path)]
        with open(path, "rb") as f:
            data = f.read()
        proto = onnx.load(path)

        class Duck:  # what check() asks of a ModelProto
            def SerializeToString(self):
                return data

        for model, name in ((data, "<bytes>"), (bytearray(data), "<bytes>"), (memoryview(data), "<bytes>"),
                            (proto, "<ModelProto>"), (Duck(), "<ModelProto>")):
            with self.subTest(kind=type(model).__name__):
                report = onnxshape.check(model)
                self.assertEqual(report.path, name)
                self.assertEqual([dataclasses.replace(d, path="") for d in report], want)

    def test_pathlike(self):
        import pathlib

        self.assertEqual(len(onnxshape.check(pathlib.Path(lint("broadcast_mismatch.onnx"))).errors), 1)

    def test_wrong_kinds(self):
        with self.assertRaises(TypeError):
            onnxshape.check(42)
        with self.assertRaises(TypeError):
            onnxshape.check(lint("clean.onnx"), input_shapes={"x": "2,3"})
        with self.assertRaises(ValueError):
            onnxshape.check(lint("clean.onnx"), assume={"N": -1})
        with self.assertRaises(ValueError):
            onnxshape.check(lint("clean.onnx"), severity={"outer-broadcast": "fatal"})


def _varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    """A length-delimited protobuf field."""
    payload = payload.encode() if isinstance(payload, str) else payload
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _concat_model(uses):
    """y = Concat(input_0 x uses, axis 0), input_0 FLOAT (n): y's size is a sum of
    `uses` terms (a ModelProto written field by field: onnx is not needed)."""
    node = _field(1, "input_0") * uses + _field(2, "y") + _field(4, "Concat")
    node += _field(5, _field(1, "axis") + b"\x18\x00" + b"\xa0\x01\x02")  # i: 0, type: INT
    tensor = b"\x08\x01" + _field(2, _field(1, _field(2, "n")))  # FLOAT, shape (n)
    graph = _field(1, node) + _field(2, "g") + _field(11, _field(1, "input_0") + _field(2, _field(1, tensor)))
    graph += _field(12, _field(1, "y"))
    return b"\x08\x08" + _field(8, _field(1, "") + b"\x10\x0d") + _field(7, graph)  # ir 8, opset 13


class Arguments(unittest.TestCase):
    """What C would cut or wrap is refused as open() refuses it."""

    def test_embedded_nul_in_path(self):
        import pathlib

        p = lint("clean.onnx")
        for bad in (p + "\0/../x", pathlib.Path(p + "\0x")):
            with self.subTest(path=bad), self.assertRaises(ValueError) as cm:
                onnxshape.check(bad)
            self.assertIn("embedded null byte", str(cm.exception))
            self.assertNotIsInstance(cm.exception, onnxshape.OnnxshapeError)

    def test_embedded_nul_in_names(self):
        cases = [
            dict(assume={"N\0x": 2}),
            dict(input_shapes={"x\0y": [2, 3]}),
            dict(input_shapes={"x": ["N\0M", 3]}),
            dict(severity={"unknown-op\0": "error"}),
        ]
        for kw in cases:
            with self.subTest(**kw), self.assertRaises(ValueError) as cm:
                onnxshape.check(lint("dynamic_shape.onnx"), **kw)
            self.assertIn("embedded null byte", str(cm.exception))

    def test_sizes_over_int64(self):
        for size in (2**64 + 3, 10**30, 2**63):
            for kw in (dict(assume={"N": size}), dict(input_shapes={"x": [size, 3]})):
                with self.subTest(size=size, **{k: "..." for k in kw}), self.assertRaises(OverflowError):
                    onnxshape.check(lint("dynamic_shape.onnx"), **kw)
        # The largest int64 is a size, and reaches the library as itself.
        s = onnxshape.shapes(lint("dynamic_shape.onnx"), input_shapes={"x": [2**63 - 1, 3]})
        self.assertEqual(s["x"].dims, (2**63 - 1, 3))

    def test_target_opset_over_int64(self):
        legacy = os.path.join(EXAMPLES, "legacy_add_broadcast.onnx")
        for opset in (2**64 + 13, -(2**63) - 1):
            with self.subTest(opset=opset), self.assertRaises(OverflowError):
                onnxshape.rewrite(legacy, target_opset=opset)
        self.assertEqual(onnxshape.rewrite(legacy, target_opset=13).opset_after, 13)

    def test_fold_shapes(self):
        """x.view(x.size(0), -1) as an exporter writes it: Shape, Gather, Unsqueeze,
        Concat into Reshape, then an Identity to the output. Folded, the Reshape's
        target is a constant [0, -1] (0 copies the input's dim, by the Reshape spec),
        nothing computes it any more, and the input keeps its symbolic dim."""
        from onnx import TensorProto, helper

        nodes = [
            helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Constant", [], ["zero"], value=helper.make_tensor("z", TensorProto.INT64, [], [0])),
            helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
            helper.make_node("Constant", [], ["axes"], value=helper.make_tensor("a", TensorProto.INT64, [1], [0])),
            helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
            helper.make_node("Constant", [], ["rest"], value=helper.make_tensor("r", TensorProto.INT64, [1], [-1])),
            helper.make_node("Concat", ["n1", "rest"], ["target"], axis=0),
            helper.make_node("Reshape", ["x", "target"], ["flat"]),
            helper.make_node("Identity", ["flat"], ["y"]),
        ]
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 12])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        r = onnxshape.rewrite(model.SerializeToString(), fold_shapes=True)
        self.assertTrue(r.changed)
        ops = [n.op_type for n in r.model.graph.node]
        self.assertEqual(ops, ["Reshape"])
        self.assertEqual(r.fold["nodes_before"], 9)
        self.assertEqual(r.fold["nodes_after"], 1)
        self.assertEqual(r.fold["forms"], 1)
        reshape = r.model.graph.node[0]
        self.assertEqual(list(reshape.output), ["y"])
        inits = {t.name: list(onnx_numpy(t)) for t in r.model.graph.initializer}
        self.assertEqual(inits[reshape.input[1]], [0, -1])
        self.assertEqual(r.model.graph.input[0].type.tensor_type.shape.dim[0].dim_param, "N")
        dry = onnxshape.rewrite(model.SerializeToString(), fold_shapes=True, dry_run=True)
        self.assertTrue(all(c.kind == "fold" for c in dry.changes))
        self.assertIsNone(dry.model)

    def test_fold_absorbs(self):
        """A Transpose, a Mul by a [4] weight and the inverse Transpose: the pair goes
        and the weight is relaid as [4, 1] for the input's layout; a Not feeding a
        Where's condition goes and the branches swap. Both count as absorbed."""
        from onnx import TensorProto, helper

        nodes = [
            helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
            helper.make_node("Mul", ["t", "w"], ["m"]),
            helper.make_node("Transpose", ["m"], ["u"], perm=[0, 2, 1]),
            helper.make_node("Less", ["u", "w1"], ["c"]),
            helper.make_node("Not", ["c"], ["nc"]),
            helper.make_node("Where", ["nc", "u", "x"], ["y"]),
        ]
        w = helper.make_tensor("w", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
        w1 = helper.make_tensor("w1", TensorProto.FLOAT, [], [1.0])
        graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 5])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 5])], [w, w1])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        r = onnxshape.rewrite(model.SerializeToString(), fold_shapes=True)
        self.assertEqual([n.op_type for n in r.model.graph.node], ["Mul", "Less", "Where"])
        self.assertEqual(r.fold["absorbed"], 3)
        self.assertEqual((r.fold["nodes_before"], r.fold["nodes_after"]), (6, 3))
        mul, _, where = r.model.graph.node
        self.assertEqual(mul.input[0], "x")
        relaid = {t.name: t for t in r.model.graph.initializer}[mul.input[1]]
        self.assertEqual(list(relaid.dims), [1, 4, 1])
        self.assertEqual(list(where.input), ["c", "x", "m"])


def onnx_numpy(t):
    from onnx import numpy_helper

    return numpy_helper.to_array(t).reshape(-1).tolist()


class Errors(unittest.TestCase):
    def test_unreadable(self):
        with self.assertRaises(onnxshape.UnreadableModel) as cm:
            onnxshape.check(os.path.join(WORK, "no-such-model.onnx"))
        self.assertIsInstance(cm.exception, OSError)
        self.assertIsInstance(cm.exception, onnxshape.OnnxshapeError)
        self.assertIn("no-such-model.onnx", cm.exception.message)

    def test_not_a_model(self):
        for data in (b"\xff\xff\xff", b""):
            with self.subTest(data=data), self.assertRaises(onnxshape.MalformedModel) as cm:
                onnxshape.check(data)
            self.assertTrue(cm.exception.message.startswith("<bytes>: "))
            self.assertEqual(cm.exception.diagnostics, [])

    def test_malformed(self):
        for f in (onnxshape.check, onnxshape.infer, onnxshape.shapes, onnxshape.rewrite):
            with self.subTest(f=f.__name__), self.assertRaises(onnxshape.MalformedModel) as cm:
                f(lint("malformed_model.onnx"))
            self.assertIn("'ghost'", str(cm.exception))
            self.assertEqual([d.code for d in cm.exception.diagnostics], ["malformed-model"])

    def test_invalid_options(self):
        cases = [
            dict(input_shapes={"nope": [1, 3]}),
            dict(severity={"no-such-code": "error"}),
            dict(severity={"malformed-model": "warning"}),
        ]
        for kw in cases:
            with self.subTest(**kw), self.assertRaises(onnxshape.InvalidOptions) as cm:
                onnxshape.check(lint("dynamic_shape.onnx"), **kw)
            self.assertIsInstance(cm.exception, ValueError)
            self.assertTrue(cm.exception.message)
        with self.assertRaises(onnxshape.InvalidOptions):
            onnxshape.rewrite(os.path.join(EXAMPLES, "legacy_add_broadcast.onnx"), target_opset=99)

    def test_over_the_memory_budget(self):
        """Writing the value_info of a Concat of 300k uses of one symbolic input is
        over the default budget: the budget's refusal, not a MemoryError."""
        model = _concat_model(300000)
        self.assertTrue(onnxshape.check(model))
        with self.assertRaises(onnxshape.OnnxshapeError) as cm:
            onnxshape.infer(model)
        self.assertNotIsInstance(cm.exception, MemoryError)
        self.assertEqual(cm.exception.status, "limit")
        self.assertIn("needs more than the memory budget of", cm.exception.message)
        self.assertIn("(raise it with memory_budget=)", cm.exception.message)

    def test_model_errors(self):
        for f in (onnxshape.infer, onnxshape.shapes, onnxshape.rewrite):
            with self.subTest(f=f.__name__), self.assertRaises(onnxshape.ModelErrors) as cm:
                f(lint("broadcast_mismatch.onnx"))
            self.assertEqual([d.code for d in cm.exception.report.errors], ["broadcast-mismatch"])


class Shapes(unittest.TestCase):
    block = os.path.join(EXAMPLES, "transformer_block.onnx")

    def test_transformer_block(self):
        s = onnxshape.shapes(self.block)
        self.assertEqual(s["Y"], onnxshape.Shape("FLOAT", ("batch", "8*seq")))
        self.assertEqual(s["X"], onnxshape.Shape("FLOAT", ("batch", "seq", 8)))
        self.assertEqual(s["Wq"], onnxshape.Shape("FLOAT", (8, 8)))  # initializers too
        self.assertEqual(str(s["Y"]), "FLOAT (batch, 8*seq)")
        self.assertEqual(repr(s["Y"]), "Shape(elem_type='FLOAT', dims=('batch', '8*seq'))")
        self.assertEqual(onnxshape.shapes(self.block, assume={"batch": 2, "seq": 3})["Y"].dims, (2, 24))
        self.assertEqual(onnxshape.shapes(self.block, input_shapes={"X": [1, "s", 8]})["Y"].dims, (1, "8*s"))
        self.assertEqual(onnxshape.shapes(self.block, input_shapes={"X": [1, None, 8]})["X"].dims, (1, None, 8))

    def test_subgraphs(self):
        s = onnxshape.shapes(os.path.join(MODELS, "good", "if_outer.onnx"))
        self.assertEqual(s["y"], onnxshape.Shape("FLOAT", (2,)))
        self.assertEqual(s["If_0/then_branch/t"], onnxshape.Shape("FLOAT", (2,)))
        self.assertEqual(s["If_0/else_branch/e"], onnxshape.Shape("FLOAT", (2,)))
        self.assertNotIn("If_0/then_branch/x", s)  # an outer name belongs to its own graph

    def test_unknown_rank(self):
        s = onnxshape.shapes(lint("unknown_op.onnx"))  # y comes out of an operator without a rule
        self.assertEqual(s, {"x": onnxshape.Shape("FLOAT", (2, 3)), "y": onnxshape.Shape("FLOAT", None)})
        self.assertEqual(str(s["y"]), "FLOAT (rank unknown)")


class Infer(unittest.TestCase):
    def test_modelproto(self):
        import onnx

        m = onnxshape.infer(os.path.join(EXAMPLES, "transformer_block.onnx"))
        self.assertIsInstance(m, onnx.ModelProto)
        onnx.checker.check_model(m)
        vi = {v.name: v for v in list(m.graph.value_info) + list(m.graph.output)}
        dims = [d.dim_param or d.dim_value for d in vi["Y"].type.tensor_type.shape.dim]
        self.assertEqual(dims, ["batch", "8*seq"])
        self.assertIn("attn", vi)

    def test_input_shapes_declared(self):
        m = onnxshape.infer(lint("dynamic_shape.onnx"), input_shapes={"x": [4, 3]})
        (x,) = m.graph.input
        self.assertEqual([d.dim_value for d in x.type.tensor_type.shape.dim], [4, 3])

    def test_round_trip(self):
        m = onnxshape.infer(os.path.join(EXAMPLES, "transformer_block.onnx"))
        self.assertEqual(onnxshape.shapes(m)["Y"].dims, ("batch", "8*seq"))

    def test_severity_lets_it_through(self):
        m = onnxshape.infer(lint("broadcast_mismatch.onnx"), severity={"broadcast-mismatch": "warning"})
        self.assertTrue(m.graph.value_info)

    def test_without_onnx(self):
        """Without onnx importable, infer raises OnnxMissing rather than return bytes
        in place of a ModelProto; as_bytes=True, output= and RewriteResult.data work,
        and RewriteResult.model raises the same."""
        out_path = os.path.join(WORK, "without_onnx.onnx")
        code = (
            "import sys; sys.modules['onnx'] = None\n"
            "import onnxshape\n"
            f"src = {os.path.join(EXAMPLES, 'transformer_block.onnx')!r}\n"
            "try:\n"
            "    onnxshape.infer(src)\n"
            "except onnxshape.OnnxMissing as e:\n"
            "    assert isinstance(e, ImportError) and isinstance(e, onnxshape.OnnxshapeError)\n"
            "    assert 'as_bytes=True' in str(e), str(e)\n"
            "else:\n"
            "    raise AssertionError('no OnnxMissing')\n"
            "m = onnxshape.infer(src, as_bytes=True)\n"
            "assert isinstance(m, bytes), type(m)\n"
            "assert onnxshape.shapes(m)['Y'].dims == ('batch', '8*seq')\n"
            f"assert onnxshape.infer(src, output={out_path!r}) is None\n"
            f"assert onnxshape.shapes({out_path!r})['Y'].dims == ('batch', '8*seq')\n"
            f"r = onnxshape.rewrite({os.path.join(MODELS, 'rewrite', 'paddle_block.onnx')!r})\n"
            "assert isinstance(r.data, bytes) and r.changed\n"
            "try:\n"
            "    r.model\n"
            "except onnxshape.OnnxMissing:\n"
            "    pass\n"
            "else:\n"
            "    raise AssertionError('no OnnxMissing')\n"
            "print('ok')\n"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout, "ok\n")

    def test_output_path(self):
        import onnx

        out = os.path.join(WORK, "infer_output.onnx")
        self.assertIsNone(onnxshape.infer(os.path.join(EXAMPLES, "transformer_block.onnx"), output=out))
        self.assertEqual(onnxshape.infer(out, as_bytes=True), onnxshape.infer(out).SerializeToString())
        vi = {v.name: v for v in onnx.load(out).graph.value_info}
        self.assertIn("attn", vi)
        # The model's own file is refused unless in_place, as the tool refuses it.
        with self.assertRaises(onnxshape.InvalidOptions):
            onnxshape.infer(out, output=out)
        onnxshape.infer(out, output=out, in_place=True, durable=True)
        with self.assertRaises(onnxshape.ModelErrors):
            onnxshape.infer(lint("broadcast_mismatch.onnx"), output=os.path.join(WORK, "never.onnx"))
        self.assertFalse(os.path.exists(os.path.join(WORK, "never.onnx")))
        nowhere = os.path.join(WORK, "no-such-folder", "out.onnx")
        with self.assertRaises(onnxshape.UnwritableModel) as cm:
            onnxshape.infer(out, output=nowhere)
        self.assertIsInstance(cm.exception, OSError)
        self.assertEqual(cm.exception.filename, nowhere)
        self.assertIn("no-such-folder", str(cm.exception))


class Arithmetic(unittest.TestCase):
    """tests/models/arith: sizes at the edges of int64 division and of float-to-integer
    conversion (INT64_MIN / -1 in Reshape's -1 and in a dim_param, scales of 1e30 and
    inf) end each call with a result or an OnnxshapeError, never a signal: run in a
    child, whose death by SIGFPE this process would otherwise share."""

    def test_no_signal(self):
        arith = os.path.join(MODELS, "arith")
        code = (
            "import os, sys\n"
            "import onnxshape\n"
            "arith = sys.argv[1]\n"
            "n = 0\n"
            "for f in sorted(os.listdir(arith)):\n"
            "    if not f.endswith('.onnx'):\n"
            "        continue\n"
            "    p = os.path.join(arith, f)\n"
            "    with open(p, 'rb') as fh:\n"
            "        data = fh.read()\n"
            "    for call in (lambda: onnxshape.check(p), lambda: onnxshape.shapes(p), lambda: onnxshape.infer(p),\n"
            "                 lambda: onnxshape.shapes(data), lambda: onnxshape.rewrite(p),\n"
            "                 lambda: onnxshape.rewrite(p, target_opset=11),\n"
            "                 lambda: onnxshape.rewrite(p, explicit_broadcast=True)):\n"
            "        try:\n"
            "            call()\n"
            "        except onnxshape.OnnxshapeError:\n"
            "            pass\n"
            "    n += 1\n"
            "print(n)\n"
        )
        out = subprocess.run([sys.executable, "-c", code, arith], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, "the child ended with %d\n%s" % (out.returncode, out.stderr))
        self.assertGreaterEqual(int(out.stdout), 10)


class Rewrite(unittest.TestCase):
    paddle = os.path.join(MODELS, "rewrite", "paddle_block.onnx")

    def test_dry_run(self):
        r = onnxshape.rewrite(self.paddle, dry_run=True)
        self.assertIsNone(r.model)
        self.assertTrue(r.changed)
        self.assertEqual([c.op_type for c in r.changes],
                         ["elementwise_mul", "elementwise_add", "elementwise_max", "elementwise_floordiv"])
        self.assertEqual((r.paddle, r.reshape, r.other_inserted, r.opset_before, r.opset_after), (4, 3, 1, 13, 13))
        self.assertEqual(r.changes[0].what,
                         "elementwise_mul -> Mul; paddle rule, axis 1: Reshape 'bn_scale' (3,) to (3, 1, 1); "
                         "attributes removed")

    def test_paddle(self):
        import onnx

        r = onnxshape.rewrite(self.paddle)
        onnx.checker.check_model(r.model, full_check=True)
        ops = sorted(n.op_type for n in r.model.graph.node)
        self.assertEqual(ops, ["Add", "Div", "Floor", "Max", "Mul", "Relu", "Reshape", "Reshape", "Reshape"])
        self.assertEqual([(o.domain, o.version) for o in r.model.opset_import], [("", 13)])

    def test_legacy_target_opset(self):
        r = onnxshape.rewrite(os.path.join(EXAMPLES, "legacy_add_broadcast.onnx"), target_opset=13)
        self.assertEqual((r.legacy, r.opset_before, r.opset_after), (1, 6, 13))
        self.assertEqual([o.version for o in r.model.opset_import if o.domain in ("", "ai.onnx")], [13])

    def test_explicit_broadcast(self):
        r = onnxshape.rewrite(os.path.join(EXAMPLES, "broadcast_bug.onnx"), explicit_broadcast=True)
        self.assertEqual((r.explicit, r.expand), (1, 2))
        self.assertEqual(sorted(n.op_type for n in r.model.graph.node), ["Add", "Expand", "Expand"])
        self.assertEqual(onnxshape.shapes(r.model)["pred"].dims, (4, 1))

    def test_nothing_to_do(self):
        r = onnxshape.rewrite(os.path.join(EXAMPLES, "transformer_block.onnx"))
        self.assertFalse(r.changed)
        self.assertEqual(r.changes, [])
        self.assertEqual(onnxshape.shapes(r.model)["Y"].dims, ("batch", "8*seq"))


class Threads(unittest.TestCase):
    def test_threads_agree_with_one(self):
        files = sorted(lint(f) for f in os.listdir(LINT) if f.endswith(".onnx") and f != "malformed_model.onnx")
        want = {f: [str(d) for d in onnxshape.check(f)] for f in files}
        got, failures = {}, []

        def work(k):
            try:
                for _ in range(5):
                    for f in files[k:] + files[:k]:
                        lines = [str(d) for d in onnxshape.check(f)]
                        if got.setdefault(f, lines) != lines:
                            failures.append(f)
            except Exception as e:  # noqa: BLE001  (reported below)
                failures.append(repr(e))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        self.assertEqual(got, want)

    def test_gil_released(self):
        """Every call into the library releases the GIL: the library is a ctypes.CDLL
        and none of its functions is flagged to keep the GIL (as PyDLL's are). Then,
        as seen: while a thread loads a 100k-node model (one call, osh_model_load, of
        30 ms or more), a Python loop in this one runs in the middle half of that
        call, which a call holding the GIL would not let it do (the loop could run
        only before the call starts and after it returns, within the switch
        interval, 1 ms here). The time of two threads' checks against one is printed."""
        self.assertIs(type(_lib.lib), ctypes.CDLL)
        for name in _lib.DECLARED:
            self.assertFalse(getattr(_lib.lib, name)._flags_ & ctypes._FUNCFLAG_PYTHONAPI, name)
        big = os.environ["OSH_BIG_MODEL"]
        onnxshape.check(big)  # the file in the page cache
        switch = sys.getswitchinterval()
        sys.setswitchinterval(0.001)
        seen = []
        try:
            for _attempt in range(5):
                done, window = threading.Event(), []

                def run():
                    m, err = _lib.Model(), _lib.Error()
                    t0 = time.perf_counter()
                    status = _lib.lib.osh_model_load(ctypes.byref(m), os.fsencode(big), None, ctypes.byref(err))
                    window.extend((t0, time.perf_counter(), status))
                    _lib.lib.osh_model_free(m)
                    done.set()

                th = threading.Thread(target=run)
                stamps = [time.perf_counter()]
                th.start()
                while not done.is_set():
                    now = time.perf_counter()
                    if now - stamps[-1] > 0.0002:
                        stamps.append(now)
                th.join()
                t0, t1, status = window
                self.assertEqual(status, _lib.OK)
                self.assertGreater(t1 - t0, 0.008, "the load is too short to tell")
                quarter = (t1 - t0) / 4
                seen.append((t1 - t0, sum(t0 + quarter < t < t1 - quarter for t in stamps)))
                if seen[-1][1]:
                    break
        finally:
            sys.setswitchinterval(switch)
        print("\nloads of the model and the Python loop's turns in the middle half of each: "
              + ", ".join(f"{d * 1e3:.1f} ms {n}" for d, n in seen), file=sys.stderr)
        self.assertTrue(any(n for _, n in seen))

        def timed(n):
            threads = [threading.Thread(target=onnxshape.check, args=(big,)) for _ in range(n)]
            t0 = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            return time.perf_counter() - t0

        one = sorted(timed(1) for _ in range(5))[2]
        two = sorted(timed(2) for _ in range(5))[2]
        print(f"one thread {one * 1e3:.1f} ms, two threads each checking it {two * 1e3:.1f} ms "
              f"({two / one:.2f}x; {os.cpu_count()} CPUs)", file=sys.stderr)


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
TOOL = os.environ["OSH_TOOL"]


def fixture(name):
    return os.path.join(FIXTURES, name)


def dims_of(vi):
    """A ValueInfoProto's dims as ints and names, None without a shape."""
    tt = vi.type.tensor_type
    if not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else d.dim_param or None for d in tt.shape.dim]


def reshape_model(ir_version=7):
    """Reshape(x (2, 6), shape): the target a graph input the caller feeds."""
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        "reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = ir_version
    return m


class NumpyIntegers(unittest.TestCase):
    """Sizes may be numpy's integers wherever the API takes a size or an int."""

    def test_sizes(self):
        import numpy as np

        for t in (np.int64, np.int32, np.uint8, np.intp):
            with self.subTest(type=t.__name__):
                got = onnxshape.shapes(lint("dynamic_shape.onnx"), input_shapes={"x": [t(4), t(3)]})
                self.assertEqual(got["x"].dims, (4, 3))
                self.assertEqual(got["x"].dims, onnxshape.shapes(lint("dynamic_shape.onnx"),
                                                                 assume={"N": t(4)})["x"].dims)
                self.assertTrue(onnxshape.check(lint("dynamic_shape.onnx"), memory_budget=t(100) * 1024 * 1024))
        r = onnxshape.rewrite(os.path.join(EXAMPLES, "legacy_add_broadcast.onnx"), target_opset=np.int64(13))
        self.assertEqual(r.opset_after, 13)
        self.assertEqual(onnxshape.shapes(lint("dynamic_shape.onnx"), input_shapes={"x": np.array([5, 3])})["x"].dims,
                         (5, 3))

    def test_not_sizes(self):
        import numpy as np

        for bad in (np.float64(4.0), 4.0, True, np.bool_(True), "4"):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                onnxshape.check(lint("dynamic_shape.onnx"), assume={"N": bad})
        with self.assertRaises(ValueError):
            onnxshape.check(lint("dynamic_shape.onnx"), input_shapes={"x": [np.int64(-1), 3]})
        with self.assertRaises(TypeError):
            onnxshape.rewrite(os.path.join(EXAMPLES, "legacy_add_broadcast.onnx"), target_opset=np.float32(13))


class MissingFiles(unittest.TestCase):
    def test_file_not_found(self):
        path = os.path.join(WORK, "no-such-model.onnx")
        for f in (onnxshape.check, onnxshape.infer, onnxshape.shapes, onnxshape.rewrite):
            with self.subTest(f=f.__name__), self.assertRaises(FileNotFoundError) as cm:
                f(path)
            e = cm.exception
            self.assertIsInstance(e, onnxshape.ModelNotFound)
            self.assertIsInstance(e, onnxshape.UnreadableModel)
            self.assertIsInstance(e, onnxshape.OnnxshapeError)
            self.assertEqual(e.errno, errno.ENOENT)
            self.assertEqual(e.filename, path)
            self.assertEqual(e.strerror, os.strerror(errno.ENOENT))
            self.assertEqual(str(e), e.message)
            self.assertIn("no-such-model.onnx", str(e))

    def test_directory(self):
        with self.assertRaises(IsADirectoryError) as cm:
            onnxshape.check(WORK)
        self.assertIsInstance(cm.exception, onnxshape.UnreadableModel)
        self.assertEqual((cm.exception.errno, cm.exception.filename), (errno.EISDIR, WORK))

    def test_input_value_file(self):
        with self.assertRaises(FileNotFoundError) as cm:
            onnxshape.check(reshape_model(), input_values={"shape": os.path.join(WORK, "no-such.pb")})
        self.assertIsInstance(cm.exception, onnxshape.OnnxshapeError)


class ExternalData(unittest.TestCase):
    def test_base_dir(self):
        """A ModelProto loaded without its external data names a file relative to
        the model's folder: base_dir says which folder that is."""
        import onnx

        folder = os.path.join(WORK, "external")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "model.onnx")
        onnx.save(onnx.load(os.path.join(EXAMPLES, "cnn_residual.onnx")), path, save_as_external_data=True,
                  all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
        proto = onnx.load(path, load_external_data=False)
        self.assertTrue(any(t.data_location == onnx.TensorProto.EXTERNAL for t in proto.graph.initializer))
        with self.assertRaises(onnxshape.MalformedModel) as cm:
            onnxshape.check(proto)
        self.assertIn("weights.bin", str(cm.exception))
        want = onnxshape.shapes(path)
        for base in (folder, pathlib.Path(folder)):
            with self.subTest(base=type(base).__name__):
                self.assertEqual(onnxshape.shapes(proto, base_dir=base), want)
                self.assertTrue(onnxshape.check(proto, base_dir=base, runtime="spec"))
                self.assertEqual(onnxshape.shapes(proto.SerializeToString(), base_dir=base), want)
        with self.assertRaises(TypeError):
            onnxshape.check(path, base_dir=folder)


class Options(unittest.TestCase):
    """Each option of the command line through its parameter, against what the tool
    does with the option."""

    def tool(self, *args):
        return subprocess.run([TOOL, *args], capture_output=True, text=True)

    def test_ignore_declared(self):
        # static_batch.onnx's custom operator has no shape rule: its declared (1, 3)
        # fills in, unless the declarations are ignored.
        self.assertEqual(onnxshape.shapes(fixture("static_batch.onnx"))["z"].dims, (1, 3))
        self.assertIsNone(onnxshape.shapes(fixture("static_batch.onnx"), ignore_declared=True)["z"].dims)
        m = onnxshape.infer(fixture("static_batch.onnx"), ignore_declared=True)
        out = os.path.join(WORK, "ignore_declared.onnx")
        r = self.tool("infer", "--ignore-declared", fixture("static_batch.onnx"), "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(m.SerializeToString(), f.read())

    def test_input_values(self):
        import numpy as np
        from onnx import numpy_helper

        tensor = numpy_helper.from_array(np.array([3, 4], dtype=np.int64), "shape")
        pb = os.path.join(WORK, "shape.pb")
        with open(pb, "wb") as f:
            f.write(tensor.SerializeToString())
        self.assertEqual([str(d)[:5] for d in onnxshape.shapes(reshape_model())["y"].dims], ["unk__"] * 2)
        for value in (np.array([3, 4]), tensor, tensor.SerializeToString(), pb, pathlib.Path(pb)):
            with self.subTest(value=type(value).__name__):
                self.assertEqual(onnxshape.shapes(reshape_model(), input_values={"shape": value})["y"].dims, (3, 4))
        folder = os.path.join(WORK, "input_data")
        os.makedirs(folder, exist_ok=True)
        for i, a in enumerate((np.zeros((2, 6), np.float32), np.array([4, 3], np.int64))):
            with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a).SerializeToString())
        self.assertEqual(onnxshape.shapes(reshape_model(), input_data=folder)["y"].dims, (4, 3))
        model = os.path.join(WORK, "reshape.onnx")
        with open(model, "wb") as f:
            f.write(reshape_model().SerializeToString())
        out = os.path.join(WORK, "reshape.inferred.onnx")
        r = self.tool("infer", "--input-data", folder, model, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(onnxshape.infer(model, input_data=folder, as_bytes=True), f.read())
        with self.assertRaises(TypeError):
            onnxshape.check(reshape_model(), input_values={"shape": 3.5})
        with self.assertRaises(onnxshape.InvalidOptions):
            onnxshape.check(reshape_model(), input_values={"nope": tensor})

    def test_require_explicit_and_werror(self):
        model = os.path.join(EXAMPLES, "broadcast_bug.onnx")
        codes = [d.code for d in onnxshape.check(model, require_explicit=True, runtime="spec")]
        self.assertEqual(codes, ["same-size-broadcast", "implicit-broadcast"])
        self.assertNotIn("implicit-broadcast", [d.code for d in onnxshape.check(model, runtime="spec")])
        self.assertTrue(onnxshape.check(model, runtime="spec"))
        report = onnxshape.check(model, runtime="spec", werror=True)
        self.assertFalse(report)
        with self.assertRaises(onnxshape.ModelErrors):
            report.raise_for_errors()
        self.assertEqual(self.tool("check", "--runtime", "spec", "--werror", model).returncode, 1)

    def test_rewrite_domains_and_implicit(self):
        paddle = lint("axis_broadcast_paddle_other_domain.onnx")
        self.assertEqual(onnxshape.rewrite(paddle).paddle, 1)
        r = onnxshape.rewrite(paddle, paddle_domain="no.such.domain")
        self.assertEqual((r.paddle, r.changed), (0, False))
        b3 = os.path.join(MODELS, "explicit", "b3_custom_domain.onnx")
        self.assertEqual(onnxshape.rewrite(b3).lowered, 1)
        self.assertEqual(onnxshape.rewrite(b3, broadcast_domain="com.example.ov").lowered, 1)
        self.assertEqual(onnxshape.rewrite(b3, broadcast_domain="org.other").lowered, 0)
        import onnx

        src = os.path.join(MODELS, "explicit", "converter_expand.onnx")
        r = onnxshape.rewrite(src, implicit_broadcast=True)
        self.assertEqual(r.removed, 2)
        before = [n.op_type for n in onnx.load(src).graph.node]
        after = [n.op_type for n in r.model.graph.node]
        self.assertEqual(len(before) - len(after), 2)
        with self.assertRaises(onnxshape.InvalidOptions):
            onnxshape.rewrite(b3, implicit_broadcast=True, explicit_broadcast=True)

    def test_rewrite_output(self):
        out = os.path.join(WORK, "rewrite_output.onnx")
        src = os.path.join(MODELS, "rewrite", "paddle_block.onnx")
        r = onnxshape.rewrite(src, output=out)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), r.data)
        tool_out = os.path.join(WORK, "rewrite_output.tool.onnx")
        self.assertEqual(self.tool("rewrite", src, "-o", tool_out).returncode, 0)
        with open(tool_out, "rb") as f:
            self.assertEqual(f.read(), r.data)
        self.assertIsNone(onnxshape.rewrite(src, dry_run=True, output=os.path.join(WORK, "dry.onnx")).data)
        self.assertFalse(os.path.exists(os.path.join(WORK, "dry.onnx")))

    def test_memory_budget(self):
        # Over the default budget (test_over_the_memory_budget), within 4 GiB.
        model = _concat_model(300000)
        for budget in ("4GiB", 4 << 30):
            with self.subTest(budget=budget):
                self.assertTrue(onnxshape.infer(model, as_bytes=True, memory_budget=budget))
        for bad in ("lots", "", 0, -5, "4X"):
            with self.subTest(bad=bad), self.assertRaises(ValueError):
                onnxshape.check(model, memory_budget=bad)
        with self.assertRaises(onnxshape.OnnxshapeError) as cm:
            onnxshape.check(lint("clean.onnx"), memory_budget=64)
        self.assertEqual(cm.exception.status, "limit")

    def test_shapes_initializers(self):
        with_inits = onnxshape.shapes(os.path.join(EXAMPLES, "cnn_residual.onnx"))
        without = onnxshape.shapes(os.path.join(EXAMPLES, "cnn_residual.onnx"), initializers=False)
        self.assertLess(set(without), set(with_inits))
        self.assertTrue(all(with_inits[k] == v for k, v in without.items()))


class Rederive(unittest.TestCase):
    """--input-shape on a model declared for batch 1: what the file declares after
    the input describes the old shape and is inferred anew (the fixture's comment)."""

    def test_shapes(self):
        got = onnxshape.shapes(fixture("static_batch.onnx"), input_shapes={"x": ["N", 3]})
        self.assertEqual((got["x"].dims, got["t"].dims, got["y"].dims), (("N", 3), ("N", 3), ("N", 3)))
        self.assertEqual(got["z"], onnxshape.Shape("FLOAT", None))
        got = onnxshape.shapes(fixture("static_batch.onnx"), input_shapes={"x": [None, 3]})
        self.assertEqual((got["t"].dims, got["y"].dims), ((None, 3), (None, 3)))

    def test_infer(self):
        m = onnxshape.infer(fixture("static_batch.onnx"), input_shapes={"x": ["N", 3]})
        declared = {v.name: dims_of(v) for v in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output)}
        self.assertEqual(declared, {"x": ["N", 3], "t": ["N", 3], "y": ["N", 3], "z": None})
        (z,) = [o for o in m.graph.output if o.name == "z"]
        self.assertEqual(z.type.tensor_type.elem_type, 1)  # FLOAT stays: no size decides it

    def test_cli_note(self):
        out = os.path.join(WORK, "rederived.onnx")
        r = subprocess.run([TOOL, "infer", "--input-shape", "x:N,3", fixture("static_batch.onnx"), "-o", out],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("note: graph input 'x' rewritten: FLOAT (1, 3) \u2192 FLOAT (N, 3); the shapes declared "
                      "downstream of it are inferred anew", r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), onnxshape.infer(fixture("static_batch.onnx"), input_shapes={"x": ["N", 3]},
                                                       as_bytes=True))


class InitializerInputs(unittest.TestCase):
    """shuffle_ir3.onnx: IR 3, every initializer a graph input (gen_fixtures.py)."""

    model = fixture("shuffle_ir3.onnx")

    def test_defaults_a_caller_may_replace(self):
        got = onnxshape.shapes(self.model)
        # Sizes nothing decides: fresh symbols, one per dimension.
        self.assertEqual([str(d)[:5] for d in got["shuffled"].dims], ["unk__"] * 4)
        report = onnxshape.check(self.model)
        notes = [d for d in report if d.code == "symbol-constraint"]
        self.assertEqual(len(notes), 4)
        (why,) = [d for d in notes if d.node_index is None]
        self.assertEqual(why.value, "groups_shape")
        for words in ("'groups_shape', 'flat_shape'", "IR 3", "--constant-initializers",
                      "--drop-initializer-inputs"):
            self.assertIn(words, why.message)

    def test_constant_initializers(self):
        got = onnxshape.shapes(self.model, constant_initializers=True)
        self.assertEqual(got["grouped"].dims, (1, 2, 4, 6, 6))
        self.assertEqual(got["swapped"].dims, (1, 4, 2, 6, 6))
        self.assertEqual(got["shuffled"].dims, (1, 8, 6, 6))
        self.assertEqual(got["y"].dims, (1, 8, 6, 6))
        self.assertEqual(list(onnxshape.check(self.model, constant_initializers=True)), [])
        r = subprocess.run([TOOL, "check", "--constant-initializers", self.model], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stdout), (0, "0 errors, 0 warnings, 0 notes in 1 file (6 nodes)\n"))
        r = subprocess.run([TOOL, "shapes", "--constant-initializers", self.model], capture_output=True, text=True)
        self.assertIn("FLOAT (1, 8, 6, 6)  (output)", r.stdout)
        m = onnxshape.infer(self.model, constant_initializers=True)
        self.assertEqual({v.name: dims_of(v) for v in m.graph.value_info}["shuffled"], [1, 8, 6, 6])

    def test_drop_initializer_inputs(self):
        dry = onnxshape.rewrite(self.model, drop_initializer_inputs=True, dry_run=True)
        self.assertEqual((dry.changed, dry.initializer_inputs_dropped, dry.ir_version_before, dry.ir_version_after),
                         (True, 4, 3, 4))
        r = onnxshape.rewrite(self.model, drop_initializer_inputs=True)
        self.assertEqual((r.initializer_inputs_dropped, r.ir_version_before, r.ir_version_after), (4, 3, 4))
        self.assertEqual(r.model.ir_version, 4)
        self.assertEqual([i.name for i in r.model.graph.input], ["x"])
        self.assertEqual(len(r.model.graph.initializer), 4)
        self.assertEqual(onnxshape.shapes(r.model)["shuffled"].dims, (1, 8, 6, 6))
        self.assertEqual(list(onnxshape.check(r.model)), [])
        out = os.path.join(WORK, "dropped.onnx")
        t = subprocess.run([TOOL, "rewrite", "--drop-initializer-inputs", self.model, "-o", out],
                           capture_output=True, text=True)
        self.assertEqual(t.returncode, 0, t.stderr)
        self.assertEqual(t.stderr, "dropped 4 initializers from the graph inputs; IR version 3 \u2192 4 "
                                   "(initializers need not be inputs from IR 4)\n")
        with open(out, "rb") as f:
            self.assertEqual(f.read(), r.data)
        # Without the option nothing changes.
        self.assertFalse(onnxshape.rewrite(self.model).changed)


class Library(unittest.TestCase):
    def test_version(self):
        self.assertEqual(onnxshape.library_version(), onnxshape.__version__)

    def test_found_by_env(self):
        self.assertEqual(_lib.candidates(), [os.environ["ONNXSHAPE_LIBRARY"]])
        env = dict(os.environ, ONNXSHAPE_LIBRARY=os.path.join(WORK, "missing.so"))
        out = subprocess.run([sys.executable, "-c", "import onnxshape"], env=env, capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("cannot load libonnxshape.so.0; tried: " + env["ONNXSHAPE_LIBRARY"] + " (not found)",
                      out.stderr)

    def test_abi(self):
        """Every ctypes structure has the size and field offsets the C compiler gives
        the header's: a probe generated from _lib.STRUCTS, compiled and run."""
        src = os.path.join(WORK, "abi_probe.c")
        with open(src, "w", encoding="utf-8") as f:
            f.write("#include <onnxshape.h>\n#include <stddef.h>\n#include <stdio.h>\nint main(void)\n{\n")
            for name, cls in _lib.STRUCTS.items():
                f.write(f'\tprintf("{name} %zu", sizeof({name}));\n')
                for field_name, _ in cls._fields_:
                    f.write(f'\tprintf(" %zu", offsetof({name}, {field_name}));\n')
                f.write('\tputs("");\n')
            f.write("\treturn 0;\n}\n")
        exe = os.path.join(WORK, "abi_probe")
        cc = os.environ.get("CC", "cc")
        subprocess.run([cc, "-std=c11", "-I", os.environ["OSH_INCLUDE"], src, "-o", exe], check=True)
        got = subprocess.run([exe], check=True, capture_output=True, text=True).stdout.splitlines()
        want = [
            " ".join([name, str(ctypes.sizeof(cls))] + [str(getattr(cls, fn).offset) for fn, _ in cls._fields_])
            for name, cls in _lib.STRUCTS.items()
        ]
        self.assertEqual(got, want)


if __name__ == "__main__":
    unittest.main()
