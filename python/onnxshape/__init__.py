"""onnxshape: check ONNX models' shapes, infer them, rewrite broadcasting, from Python.

A thin layer over libonnxshape (include/onnxshape.h) through ctypes: nothing to
compile at install, and the GIL is released during every call into the library, so
models checked from several threads are checked in parallel.

    >>> import onnxshape
    >>> report = onnxshape.check("model.onnx", assume={"batch": 1})
    >>> for d in report.errors: print(d)
    >>> onnxshape.shapes("model.onnx")["logits"]
    Shape(elem_type='FLOAT', dims=('batch', 1000))

A model is a path (str or os.PathLike), the bytes of a serialized ModelProto, or an
object with SerializeToString() (an onnx.ModelProto: onnx itself is not needed).
Findings about a model are diagnostics (check returns them in a Report); infer,
shapes and rewrite raise ModelErrors when the model has errors. A file that cannot be
read raises UnreadableModel, a model the loader refuses MalformedModel, an option the
library refuses (an unknown input name, diagnostic code or opset) InvalidOptions: all
are OnnxshapeError.
"""
from __future__ import annotations

import os
from ctypes import POINTER, byref, c_char_p, c_size_t, c_uint8, string_at
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Protocol, Sequence, Tuple, Union

from . import _lib

__all__ = [
    "Diagnostic",
    "InvalidOptions",
    "MalformedModel",
    "ModelErrors",
    "OnnxshapeError",
    "Report",
    "RewriteChange",
    "RewriteResult",
    "SerializableModel",
    "Shape",
    "UnreadableModel",
    "__version__",
    "check",
    "infer",
    "library_version",
    "rewrite",
    "rules",
    "shapes",
]

__version__ = "0.1.0"

Dim = Union[int, str, None]
"""A size: a number, a symbol or an expression over symbols ('batch*seq'), or None
when unknown."""

class SerializableModel(Protocol):
    """What is asked of an onnx.ModelProto (onnx itself is not imported)."""

    def SerializeToString(self) -> bytes: ...


ModelSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, SerializableModel]
"""A path, serialized bytes, or an object with SerializeToString() (onnx.ModelProto)."""

_SEVERITIES = {"note": _lib.NOTE, "warning": _lib.WARNING, "error": _lib.ERROR}


def _s(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b else ""


def library_version() -> str:
    """OSH_VERSION of the libonnxshape actually loaded."""
    return _s(_lib.lib.osh_version())


# ---- errors ---------------------------------------------------------------------


class OnnxshapeError(Exception):
    """Base of every error this package raises. `message` is the library's one line
    (naming the model); `status` its osh_status name ("decode", "io", "invalid"...)."""

    def __init__(self, message: str, status: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class UnreadableModel(OnnxshapeError, OSError):
    """The file could not be opened or read (osh_status OSH_ERR_IO)."""


class MalformedModel(OnnxshapeError):
    """A model the loader refuses: not a ModelProto (truncated, corrupt), over a
    limit, or malformed (an input nothing produces, a cycle...: see the README's
    "What the loader refuses"). `diagnostics` are the loader's findings, empty when
    the bytes could not be decoded at all."""

    def __init__(self, message: str, status: str = "", diagnostics: Sequence["Diagnostic"] = ()) -> None:
        super().__init__(message, status)
        self.diagnostics: List[Diagnostic] = list(diagnostics)


class InvalidOptions(OnnxshapeError, ValueError):
    """An option the library refuses: an input_shapes name the model does not have,
    an unknown diagnostic code, a target_opset out of range..."""


class ModelErrors(OnnxshapeError):
    """The model has errors (diagnostics of severity "error"); `report` holds them
    with the rest of the findings."""

    def __init__(self, report: "Report") -> None:
        errors = report.errors
        first = str(errors[0]) if errors else report.path
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(first + more, "findings")
        self.report = report


def _raise(err: _lib.Error, default: str = "") -> None:
    status = err.status
    message = _s(err.message) or default or _lib.STATUS_NAMES.get(status, str(status))
    name = _lib.STATUS_NAMES.get(status, str(status))
    if status == _lib.ERR_IO:
        raise UnreadableModel(message, name)
    if status in (_lib.ERR_DECODE, _lib.ERR_LIMIT):
        raise MalformedModel(message, name)
    if status == _lib.ERR_NOMEM:
        raise MemoryError(message)
    if status == _lib.ERR_INVALID:
        raise InvalidOptions(message, name)
    raise OnnxshapeError(message, name)


# ---- results --------------------------------------------------------------------


@dataclass(frozen=True)
class Diagnostic:
    """One finding, as `onnxshape check` prints it (str() gives that line).

    severity: "error", "warning" or "note"; code: the rule ("broadcast-mismatch"...,
    see rules()); path: the model (its file, or "<bytes>"); graph: "" for the main
    graph, else a subgraph's path ("If_3/then_branch"); node: the node's name ("" when
    unnamed), None when the finding is about no node; node_index: its index in its
    graph's node list, or None; op_type: the node's operator, or None; value: the
    value concerned, or None; message: one line."""

    severity: str
    code: str
    message: str
    path: str
    graph: str = ""
    node: Optional[str] = None
    node_index: Optional[int] = None
    op_type: Optional[str] = None
    value: Optional[str] = None

    def __str__(self) -> str:
        where = self.path + ":"
        if self.graph:
            where += f" graph '{self.graph}':"
        if self.node_index is not None:
            where += f" node {self.node_index}"
            if self.node:
                where += f" '{self.node}'"
            where += f" ({self.op_type}):"
        return f"{where} {self.severity}: {self.message} [{self.code}]"


@dataclass
class Report:
    """What check found in one model: its diagnostics in graph order. True when
    there is no error (warnings and notes do not count)."""

    path: str
    diagnostics: List[Diagnostic] = field(default_factory=list)
    nodes: int = 0
    """Nodes in the model, every subgraph and function body included."""

    def _of(self, severity: str) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == severity]

    @property
    def errors(self) -> List[Diagnostic]:
        return self._of("error")

    @property
    def warnings(self) -> List[Diagnostic]:
        return self._of("warning")

    @property
    def notes(self) -> List[Diagnostic]:
        return self._of("note")

    def __bool__(self) -> bool:
        return not any(d.severity == "error" for d in self.diagnostics)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.diagnostics)

    def __len__(self) -> int:
        return len(self.diagnostics)

    def raise_for_errors(self) -> None:
        """Raises ModelErrors (carrying this report) when there is an error."""
        if not self:
            raise ModelErrors(self)

    def summary(self) -> str:
        """`onnxshape check`'s last line for this model."""
        ne, nw, nn = len(self.errors), len(self.warnings), len(self.notes)
        plural = lambda n, w: f"{n} {w}" + ("" if n == 1 else "s")  # noqa: E731
        return f"{plural(ne, 'error')}, {plural(nw, 'warning')}, {plural(nn, 'note')} ({plural(self.nodes, 'node')})"

    def __str__(self) -> str:
        return "\n".join([str(d) for d in self.diagnostics] + [self.summary()])


@dataclass(frozen=True)
class Shape:
    """A value's type: elem_type is the element type's name ("FLOAT", "INT64"...;
    None when unknown), dims its sizes (ints, symbols or expressions such as
    'batch*seq', None for an unknown size), or None when the rank is unknown. kind is
    "tensor", or "sequence", "optional", "sparse_tensor", "map" (elem_type and dims
    are then the innermost tensor's), or "" when nothing is known."""

    elem_type: Optional[str]
    dims: Optional[Tuple[Dim, ...]]
    kind: str = "tensor"

    def __repr__(self) -> str:
        kind = "" if self.kind == "tensor" else f", kind={self.kind!r}"
        return f"Shape(elem_type={self.elem_type!r}, dims={self.dims!r}{kind})"

    def __str__(self) -> str:
        if not self.kind:
            return "(no type)"
        head = ("" if self.kind == "tensor" else self.kind + " ") + (self.elem_type or "?")
        if self.dims is None:
            return head + " (rank unknown)"
        inner = ", ".join("?" if d is None else str(d) for d in self.dims)
        return f"{head} ({inner}{',' if len(self.dims) == 1 else ''})"


@dataclass(frozen=True)
class RewriteChange:
    """One node rewrite changes (or, dry_run, would change), as loaded. kind is
    "paddle", "legacy", "stray" or "opset" (adapted to the new opset); what is the
    line `onnxshape rewrite --dry-run` prints."""

    graph: str
    node_index: int
    node: str
    op_type: str
    kind: str
    what: str


@dataclass
class RewriteResult:
    """What rewrite did. model is the rewritten model (an onnx.ModelProto when onnx
    is importable, else bytes; when nothing changed, the model as loaded), None for
    a dry run. report holds the rewritten model's remaining findings (warnings, notes).
    The counts are osh_rewrite_report's: nodes rewritten by kind, nodes inserted by
    operator, Expand nodes added or removed."""

    model: Any
    changed: bool
    changes: List[RewriteChange]
    report: Report
    opset_before: Optional[int]
    opset_after: Optional[int]
    paddle: int = 0
    legacy: int = 0
    stray: int = 0
    adapted: int = 0
    reshape: int = 0
    unsqueeze: int = 0
    squeeze: int = 0
    other_inserted: int = 0
    explicit: int = 0
    expand: int = 0
    target_nodes: int = 0
    lowered: int = 0
    removed: int = 0
    dead_removed: int = 0


def rules() -> Dict[str, Tuple[str, str]]:
    """Every diagnostic code: code -> (default severity, one-sentence summary)."""
    n = c_size_t()
    table = _lib.lib.osh_rules(byref(n))
    return {_s(table[i].code): (_lib.SEVERITY_NAMES[table[i].severity], _s(table[i].summary)) for i in range(n.value)}


# ---- the model, loaded ------------------------------------------------------------


class _Model:
    """An osh_model, freed on leaving the with block."""

    def __init__(self, source: ModelSource) -> None:
        self.ptr = _lib.Model()
        err = _lib.Error()
        if isinstance(source, (str, os.PathLike)):
            self.path = os.fsdecode(source)
            status = _lib.lib.osh_model_load(byref(self.ptr), _path_arg(source), None, byref(err))
        else:
            if isinstance(source, (bytes, bytearray, memoryview)):
                data, self.path = bytes(source), "<bytes>"
            elif callable(getattr(source, "SerializeToString", None)):
                data, self.path = source.SerializeToString(), "<ModelProto>"
            else:
                raise TypeError(
                    "model: expected a path, bytes or an onnx.ModelProto, not " + type(source).__name__
                )
            status = _lib.lib.osh_model_load_buffer(
                byref(self.ptr), data, len(data), self.path.encode(), None, byref(err)
            )
        if status != _lib.OK:
            _raise(err)
        if _lib.lib.osh_model_is_malformed(self.ptr):
            diags = self.diagnostics()
            self.close()
            found = [d for d in diags if d.code == "malformed-model"] or diags
            message = str(found[0]) if found else f"{self.path}: malformed model"
            raise MalformedModel(message, "invalid", diags)

    def close(self) -> None:
        if self.ptr:
            _lib.lib.osh_model_free(self.ptr)
            self.ptr = _lib.Model()

    def __enter__(self) -> "_Model":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def diagnostics(self) -> List[Diagnostic]:
        lib, m, out = _lib.lib, self.ptr, []
        for i in range(lib.osh_model_diag_count(m)):
            d = lib.osh_model_diag_at(m, i).contents
            has_node = d.node_index >= 0
            out.append(
                Diagnostic(
                    severity=_lib.SEVERITY_NAMES[d.severity],
                    code=_s(d.code),
                    message=_s(d.message),
                    path=self.path,
                    graph=_s(d.graph),
                    node=_s(d.node_name) if has_node else None,
                    node_index=d.node_index if has_node else None,
                    op_type=_s(d.op_type) if has_node else None,
                    value=_s(d.value) or None,
                )
            )
        return out

    def report(self) -> Report:
        return Report(self.path, self.diagnostics(), _lib.lib.osh_model_node_count(self.ptr))

    def infer(self, options: "_Options") -> None:
        err = _lib.Error()
        if _lib.lib.osh_infer(self.ptr, byref(options.infer), byref(err)) != _lib.OK:
            _raise(err)
        self.override(options)

    def override(self, options: "_Options") -> None:
        if not options.n_overrides:
            return
        err = _lib.Error()
        if (
            _lib.lib.osh_model_override_severities(self.ptr, options.overrides, options.n_overrides, byref(err))
            != _lib.OK
        ):
            _raise(err)

    def raise_for_errors(self) -> None:
        if _lib.lib.osh_model_has_errors(self.ptr):
            raise ModelErrors(self.report())

    def pack(self) -> bytes:
        data = POINTER(c_uint8)()
        size = c_size_t()
        err = _lib.Error()
        if _lib.lib.osh_model_pack(self.ptr, byref(data), byref(size), byref(err)) != _lib.OK:
            _raise(err)
        try:
            return string_at(data, size.value)
        finally:
            _lib.free(data)

    def shapes(self) -> Dict[str, Shape]:
        lib, m = _lib.lib, self.ptr
        out: Dict[str, Shape] = {}
        v = _lib.ValueInfo()
        for g in range(lib.osh_model_graph_count(m)):
            graph = _s(lib.osh_graph_path(m, g))
            if graph.startswith("function "):
                continue  # a function's body is typed per call, not once
            prefix = graph + "/" if graph else ""
            for i in range(lib.osh_graph_value_count(m, g)):
                if not lib.osh_graph_value_at(m, g, i, byref(v)):
                    raise MemoryError(f"{self.path}: out of memory listing the values")
                if v.origin in (_lib.VALUE_UNDEFINED, _lib.VALUE_OUTER):
                    continue
                out[prefix + _s(v.name)] = _shape(v.type)
        return out


def _shape(t: _lib.Type) -> Shape:
    kind = _s(t.kind)
    name = _lib.lib.osh_elem_type_name(t.elem_type) if t.elem_type else None
    elem = _s(name) if name else None
    if t.rank < 0:
        return Shape(elem, None, kind)
    dims: List[Dim] = []
    for k in range(t.rank):
        d = t.dims[k]
        dims.append(d.value if d.kind == _lib.DIM_VALUE else _s(d.symbol) if d.kind == _lib.DIM_SYMBOL else None)
    return Shape(elem, tuple(dims), kind)


class _Options:
    """The inference options and severity overrides as C structures, kept alive (the
    arrays the structures point into are held here)."""

    def __init__(
        self,
        assume: Optional[Mapping[str, int]],
        input_shapes: Optional[Mapping[str, Sequence[Dim]]],
        static: bool,
        severity: Optional[Mapping[str, str]],
        runtime: Optional[str] = None,
        custom_ops: Sequence[str] = (),
    ) -> None:
        self.infer = _lib.InferOptions(require_static=bool(static))
        self._keep: List[Any] = []
        if runtime is not None:
            self.infer.runtime = _str_arg("runtime", runtime)
        if isinstance(custom_ops, (str, bytes)):
            raise TypeError("custom_ops: expected a list of 'DOMAIN' or 'DOMAIN::OP', not a string")
        if custom_ops:
            ops = (c_char_p * len(custom_ops))(*[_str_arg("custom_ops", o) for o in custom_ops])
            self.infer.n_custom_ops, self.infer.custom_ops = len(custom_ops), ops
            self._keep.append(ops)
        if assume:
            arr = (_lib.Assumption * len(assume))()
            for i, (sym, size) in enumerate(assume.items()):
                arr[i] = _lib.Assumption(_str_arg("assume", sym), _size("assume", sym, size))
            self.infer.n_assumptions, self.infer.assumptions = len(assume), arr
            self._keep.append(arr)
        if input_shapes:
            arr = (_lib.InputShape * len(input_shapes))()
            for i, (name, dims) in enumerate(input_shapes.items()):
                if isinstance(dims, (str, bytes)) or not isinstance(dims, Sequence):
                    raise TypeError(f"input_shapes[{name!r}]: expected a list of sizes, not {type(dims).__name__}")
                darr = (_lib.Dim * max(len(dims), 1))()
                for k, d in enumerate(dims):
                    darr[k] = _dim(name, d)
                self._keep.append(darr)
                arr[i] = _lib.InputShape(_str_arg("input_shapes", name), len(dims), darr)
            self.infer.n_input_shapes, self.infer.input_shapes = len(input_shapes), arr
            self._keep.append(arr)
        self.n_overrides = len(severity) if severity else 0
        self.overrides = (_lib.SeverityOverride * max(self.n_overrides, 1))()
        for i, (code, sev) in enumerate((severity or {}).items()):
            if sev == "ignore":
                self.overrides[i] = _lib.SeverityOverride(_str_arg("severity", code), True, _lib.NOTE)
            elif sev in _SEVERITIES:
                self.overrides[i] = _lib.SeverityOverride(_str_arg("severity", code), False, _SEVERITIES[sev])
            else:
                raise ValueError(f"severity[{code!r}]: {sev!r} is not 'error', 'warning', 'note' or 'ignore'")


# The library's sizes and opsets are int64_t: ctypes would keep the low 64 bits of
# a bigger int (2**64 + 3 became 3) where open() raises OverflowError.
_INT64_MAX = 2**63 - 1


def _no_nul(what: str, b: bytes) -> bytes:
    # A C string ends at its first NUL: "a\0b" would reach the library as "a", and a
    # path cut there names another file. open() refuses it so.
    if b"\0" in b:
        raise ValueError(f"{what}: embedded null byte")
    return b


def _path_arg(p: "Union[str, os.PathLike[str]]") -> bytes:
    return _no_nul("model path", os.fsencode(p))


def _str_arg(what: str, s: object) -> bytes:
    if not isinstance(s, str) or not s:
        raise TypeError(f"{what}: names must be non-empty strings, not {s!r}")
    return _no_nul(what, s.encode())


def _size(what: str, key: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{what}[{key!r}]: a size is an int >= 0, not {v!r}")
    if v > _INT64_MAX:
        raise OverflowError(f"{what}[{key!r}]: {v} is over the largest size, 2**63 - 1")
    return v


def _dim(name: str, d: Dim) -> _lib.Dim:
    if d is None or d == "?":
        return _lib.Dim(_lib.DIM_UNKNOWN, 0, None)
    if isinstance(d, str):
        return _lib.Dim(_lib.DIM_SYMBOL, 0, _str_arg(f"input_shapes[{name!r}]", d))
    return _lib.Dim(_lib.DIM_VALUE, _size(f"input_shapes[{name!r}]", name, d), None)


_onnx: Any = None


def _as_model(data: bytes) -> Any:
    """An onnx.ModelProto parsed from data when onnx is importable, else data."""
    global _onnx
    if _onnx is None:
        try:
            import onnx  # noqa: PLC0415  (optional, and slow to import)

            _onnx = onnx
        except ImportError:
            _onnx = False
    if not _onnx:
        return data
    proto = _onnx.ModelProto()
    proto.ParseFromString(data)
    return proto


# ---- the API ----------------------------------------------------------------------


def check(
    model: ModelSource,
    *,
    assume: Optional[Mapping[str, int]] = None,
    input_shapes: Optional[Mapping[str, Sequence[Dim]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
    runtime: str = "ort-cpu",
    custom_ops: Sequence[str] = (),
) -> Report:
    """Loads the model, infers every shape and lints it: `onnxshape check`.

    assume binds symbols everywhere ({"batch": 1}); input_shapes overrides graph
    inputs' shapes ({"x": [1, "seq", None]}: a size, a symbol, or None/"?" for
    unknown); static reports every value whose shape is not fully known as an error
    (dynamic-shape); severity changes codes' severities ({"outer-broadcast":
    "error", "unknown-op": "ignore"}); runtime is what a clean report promises,
    "ort-cpu" (ONNX Runtime's CPU provider runs it: no-kernel, runtime-version) or
    "spec" (the ONNX specification only), and custom_ops the custom-op domains or
    operators the deployment registers (["com.example", "ai.other::Op"]).

    Returns the Report, whatever it holds. Raises UnreadableModel, MalformedModel (a
    model the loader refuses), InvalidOptions (a name the model does not have, an
    unknown code), TypeError/ValueError for arguments of the wrong kind (ValueError
    for a path or a name with an embedded NUL, OverflowError for a size over
    2**63 - 1, as open() and os functions raise them)."""
    options = _Options(assume, input_shapes, static, severity, runtime, custom_ops)
    with _Model(model) as m:
        m.infer(options)
        return m.report()


def infer(
    model: ModelSource,
    *,
    assume: Optional[Mapping[str, int]] = None,
    input_shapes: Optional[Mapping[str, Sequence[Dim]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
) -> Any:
    """The model with every value's inferred type written into it (value_info, and the
    graph outputs' types): `onnxshape infer`. An input given in input_shapes is
    declared with its new shape. Returns an onnx.ModelProto when onnx is importable,
    else the serialized bytes. Options and errors as for check(); raises ModelErrors
    when the model has errors."""
    options = _Options(assume, input_shapes, static, severity)
    with _Model(model) as m:
        m.infer(options)
        m.raise_for_errors()
        err = _lib.Error()
        if _lib.lib.osh_annotate(m.ptr, byref(err)) != _lib.OK:
            _raise(err)
        data = m.pack()
    return _as_model(data)


def shapes(
    model: ModelSource,
    *,
    assume: Optional[Mapping[str, int]] = None,
    input_shapes: Optional[Mapping[str, Sequence[Dim]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
) -> Dict[str, Shape]:
    """Every value's inferred type, by name: graph inputs, initializers and node
    outputs of the main graph, then those of each subgraph keyed by the subgraph's
    path and the name ("If_0/then_branch/t"). `onnxshape shapes`. Options and errors
    as for check(); raises ModelErrors when the model has errors."""
    options = _Options(assume, input_shapes, static, severity)
    with _Model(model) as m:
        m.infer(options)
        m.raise_for_errors()
        return m.shapes()


def rewrite(
    model: ModelSource,
    *,
    explicit_broadcast: bool = False,
    target_opset: Optional[int] = None,
    dry_run: bool = False,
    assume: Optional[Mapping[str, int]] = None,
    input_shapes: Optional[Mapping[str, Sequence[Dim]]] = None,
    severity: Optional[Mapping[str, str]] = None,
) -> RewriteResult:
    """Rewrites Paddle-style and legacy axis broadcasting into standard ONNX, and
    with explicit_broadcast makes every implicit broadcast an Expand: `onnxshape
    rewrite`. target_opset converts the ai.onnx opset, up or down (1 to 26; default the lowest the
    rewrite needs); dry_run lists the changes and builds no model.

    Raises ModelErrors when the model has errors or a rewrite is blocked (the
    report says why), InvalidOptions for a target_opset the rewrite cannot reach,
    OverflowError for one outside int64; other errors as for check()."""
    if target_opset is not None and (isinstance(target_opset, bool) or not isinstance(target_opset, int)):
        raise TypeError(f"target_opset: expected an int, not {target_opset!r}")
    if target_opset is not None and not -_INT64_MAX - 1 <= target_opset <= _INT64_MAX:
        raise OverflowError(f"target_opset: {target_opset} is out of int64's range")
    options = _Options(assume, input_shapes, False, severity)
    ro = _lib.RewriteOptions(target_opset=target_opset or 0, dry_run=dry_run, explicit_broadcast=explicit_broadcast)
    rep = _lib.RewriteReport()
    with _Model(model) as m:
        m.infer(options)
        err = _lib.Error()
        if _lib.lib.osh_rewrite(m.ptr, byref(ro), byref(rep), byref(err)) != _lib.OK:
            _raise(err)
        if rep.changed and not dry_run:
            m.override(options)  # a changed model's diagnostics were made anew
        m.raise_for_errors()
        changes = [
            RewriteChange(_s(c.graph), c.node_index, _s(c.node_name), _s(c.op_type), _s(c.kind), _s(c.what))
            for c in rep.changes[: rep.n_changes]
        ]
        data = None if dry_run else m.pack()
        report = m.report()
    return RewriteResult(
        model=None if data is None else _as_model(data),
        changed=bool(rep.changed),
        changes=changes,
        report=report,
        opset_before=rep.opset_before if rep.opset_before >= 0 else None,
        opset_after=rep.opset_after if rep.opset_after >= 0 else None,
        paddle=rep.n_paddle,
        legacy=rep.n_legacy,
        stray=rep.n_stray,
        adapted=rep.n_adapted,
        reshape=rep.n_reshape,
        unsqueeze=rep.n_unsqueeze,
        squeeze=rep.n_squeeze,
        other_inserted=rep.n_other_inserted,
        explicit=rep.n_explicit,
        expand=rep.n_expand,
        target_nodes=rep.n_target_nodes,
        lowered=rep.n_lowered,
        removed=rep.n_removed,
        dead_removed=rep.n_dead_removed,
    )
