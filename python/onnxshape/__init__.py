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
object with SerializeToString() (an onnx.ModelProto: onnx itself is not needed to
check one). infer() and RewriteResult.model give an onnx.ModelProto, which needs
onnx; infer(as_bytes=True) and RewriteResult.data give the serialized bytes without
it, and output= writes the model to a file. Findings about a model are diagnostics
(check returns them in a Report); infer, shapes and rewrite raise ModelErrors when
the model has errors. A file that cannot be read raises UnreadableModel (with errno
and filename; ModelNotFound, a FileNotFoundError, when there is no such file), a
model the loader refuses MalformedModel, an option the library refuses (an unknown
input name, diagnostic code or opset) InvalidOptions, an output that cannot be
written UnwritableModel, a ModelProto asked for without onnx OnnxMissing: all are
OnnxshapeError.

Every option of the command line's check, infer, shapes and rewrite has its
parameter of the same name (--input-shape is input_shapes, --assume assume, --error/
--warn/--ignore severity, -o output, --fsync durable); what only formats a report
(--format, --color, --timings, --dump-after, --jobs, --exclude) has none. Sizes may
be any integers, numpy's included.
"""
from __future__ import annotations

import errno as _errno
import operator
import os
from ctypes import POINTER, byref, c_char_p, c_size_t, c_uint8, string_at
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Iterator,
    List,
    Literal,
    Mapping,
    NoReturn,
    Optional,
    Protocol,
    Sequence,
    SupportsIndex,
    Tuple,
    Union,
    overload,
)

from . import _lib

if TYPE_CHECKING:
    import onnx

__all__ = [
    "Diagnostic",
    "InvalidOptions",
    "MalformedModel",
    "ModelErrors",
    "ModelIsADirectory",
    "ModelNotFound",
    "ModelPermissionError",
    "OnnxMissing",
    "OnnxshapeError",
    "Report",
    "RewriteChange",
    "RewriteResult",
    "SerializableModel",
    "Shape",
    "UnreadableModel",
    "UnwritableModel",
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

DimArg = Union[SupportsIndex, str, None]
"""A size given to input_shapes: an integer (numpy's too), a symbol, or None/"?" for
one not known."""

Size = Union[SupportsIndex, str]
"""A memory budget: bytes as an integer, or a string with a suffix K, M, G or T
(powers of 1024: "512M", "4G"), as --memory-budget takes it."""

PathArg = Union[str, "os.PathLike[str]"]

class SerializableModel(Protocol):
    """What is asked of an onnx.ModelProto (onnx itself is not imported)."""

    def SerializeToString(self) -> bytes: ...


ModelSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, SerializableModel]
"""A path, serialized bytes, or an object with SerializeToString() (onnx.ModelProto)."""

TensorSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, SerializableModel, Any]
"""A value for input_values: a TensorProto file's path (as --input-value NAME=FILE.pb),
its bytes, an onnx.TensorProto, or a numpy array (made a TensorProto with onnx)."""

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
    """The file could not be opened or read (osh_status OSH_ERR_IO). errno and
    filename are set as OSError's are (errno None when the cause is no system
    error, e.g. a FIFO: "not a regular file"); str() is the library's message."""

    def __init__(
        self, message: str, status: str = "", errno: Optional[int] = None, filename: Optional[str] = None
    ) -> None:
        super().__init__(message, status)
        self.errno = errno  # type: ignore[assignment]  # OSError's, typed int by typeshed
        self.strerror = os.strerror(errno) if errno is not None else None  # type: ignore[assignment]
        self.filename = filename

    def __str__(self) -> str:
        return self.message


class ModelNotFound(UnreadableModel, FileNotFoundError):
    """There is no such file (ENOENT)."""


class ModelPermissionError(UnreadableModel, PermissionError):
    """The file may not be read (EACCES, EPERM)."""


class ModelIsADirectory(UnreadableModel, IsADirectoryError):
    """The path is a directory (the command line walks one; the API takes a file)."""


class UnwritableModel(OnnxshapeError, OSError):
    """The model could not be written to output (osh_status OSH_ERR_IO at the write:
    no such folder, no space left...; or OSH_ERR_CHANGED, status "changed": the
    model's file changed since it was loaded); filename is the output, nothing is
    left there."""

    def __init__(self, message: str, status: str = "", filename: Optional[str] = None) -> None:
        super().__init__(message, status)
        self.filename = filename

    def __str__(self) -> str:
        return self.message


class OnnxMissing(OnnxshapeError, ImportError):
    """An onnx.ModelProto was asked for and the onnx package is not importable."""


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


def _io_error(message: str, name: str, path: Optional[str]) -> UnreadableModel:
    """The UnreadableModel for a path the library could not read: the library says why
    in words only, so the errno is what opening the path says now."""
    if path is None:
        return UnreadableModel(message, name)
    code: Optional[int] = None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        code = e.errno
    else:
        try:
            if os.path.isdir(path):
                code = _errno.EISDIR
        finally:
            os.close(fd)
    cls = {
        _errno.ENOENT: ModelNotFound,
        _errno.EACCES: ModelPermissionError,
        _errno.EPERM: ModelPermissionError,
        _errno.EISDIR: ModelIsADirectory,
    }.get(code if code is not None else -1, UnreadableModel)
    return cls(message, name, code, path)


def _in_python_terms(message: str) -> str:
    """The library's message naming the option as this package takes it (the load's
    memory_budget is the memory_budget= argument)."""
    return message.replace("osh_load_options.memory_budget", "memory_budget=")


def _raise(err: _lib.Error, default: str = "", path: Optional[str] = None) -> NoReturn:
    status = err.status
    message = _in_python_terms(_s(err.message)) or default or _lib.STATUS_NAMES.get(status, str(status))
    name = _lib.STATUS_NAMES.get(status, str(status))
    if status == _lib.ERR_IO:
        raise _io_error(message, name, path)
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
    there is no error (warnings and notes do not count, unless werror: check's
    --werror)."""

    path: str
    diagnostics: List[Diagnostic] = field(default_factory=list)
    nodes: int = 0
    """Nodes in the model, every subgraph and function body included."""
    werror: bool = False
    """Warnings fail the report too (bool(), raise_for_errors)."""

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
        failing = ("error", "warning") if self.werror else ("error",)
        return not any(d.severity in failing for d in self.diagnostics)

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

        def plural(n: int, w: str) -> str:
            return f"{n} {w}" + ("" if n == 1 else "s")

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
    """What rewrite did. data is the rewritten model serialized (when nothing
    changed, the model as loaded, byte for byte), None for a dry run; model is the
    same as an onnx.ModelProto (parsed on first use; OnnxMissing without onnx).
    report holds the rewritten model's remaining findings (warnings, notes). The
    counts are osh_rewrite_report's: nodes rewritten by kind, nodes inserted by
    operator, Expand nodes added or removed, initializers dropped from the graph
    inputs (with the IR version before and after: 0 when the file has none)."""

    data: Optional[bytes]
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
    initializer_inputs_dropped: int = 0
    ir_version_before: int = 0
    ir_version_after: int = 0
    # fold_shapes: what was folded, by kind (osh_rewrite_report's n_fold_*), and the
    # node count of every graph before and after.
    fold: Dict[str, int] = field(default_factory=dict)
    _model: "Optional[onnx.ModelProto]" = field(default=None, init=False, repr=False, compare=False)

    @property
    def model(self) -> "Optional[onnx.ModelProto]":
        """The rewritten model as an onnx.ModelProto, None for a dry run. Raises
        OnnxMissing when onnx cannot be imported (data has the bytes)."""
        if self.data is None:
            return None
        if self._model is None:
            self._model = _as_model(self.data, "RewriteResult.model")
        return self._model


def rules() -> Dict[str, Tuple[str, str]]:
    """Every diagnostic code: code -> (default severity, one-sentence summary)."""
    n = c_size_t()
    table = _lib.lib.osh_rules(byref(n))
    return {_s(table[i].code): (_lib.SEVERITY_NAMES[table[i].severity], _s(table[i].summary)) for i in range(n.value)}


# ---- the model, loaded ------------------------------------------------------------


class _Model:
    """An osh_model, freed on leaving the with block."""

    def __init__(self, source: ModelSource, memory_budget: Optional[Size] = None, base_dir: Optional[PathArg] = None) -> None:
        self.ptr = _lib.Model()
        err = _lib.Error()
        lo = _lib.LoadOptions(memory_budget=_budget(memory_budget))
        self.file: Optional[str] = None
        if isinstance(source, (str, os.PathLike)):
            if base_dir is not None:
                raise TypeError("base_dir: only for a model given as bytes or a ModelProto (a file's is its directory)")
            self.path = self.file = os.fsdecode(source)
            status = _lib.lib.osh_model_load(byref(self.ptr), _path_arg(source), byref(lo), byref(err))
        else:
            if isinstance(source, (bytes, bytearray, memoryview)):
                data, self.path = bytes(source), "<bytes>"
            elif callable(getattr(source, "SerializeToString", None)):
                data, self.path = source.SerializeToString(), "<ModelProto>"
            else:
                raise TypeError(
                    "model: expected a path, bytes or an onnx.ModelProto, not " + type(source).__name__
                )
            # The library finds external data beside the name it is given.
            if base_dir is not None:
                self.path = os.path.join(os.fsdecode(base_dir), self.path)
            status = _lib.lib.osh_model_load_buffer(
                byref(self.ptr), data, len(data), _no_nul("base_dir", self.path.encode()), byref(lo), byref(err)
            )
        if status != _lib.OK:
            _raise(err, path=self.file)
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
        lib, m = _lib.lib, self.ptr
        out: List[Diagnostic] = []
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

    def report(self, werror: bool = False) -> Report:
        return Report(self.path, self.diagnostics(), _lib.lib.osh_model_node_count(self.ptr), werror)

    def give(self, options: "_Options") -> None:
        """The input values, before inference (osh_model_set_input_value)."""
        for name, index, data in options.values:
            err = _lib.Error()
            if _lib.lib.osh_model_set_input_value(self.ptr, name, index, data, len(data), byref(err)) != _lib.OK:
                _raise(err)

    def infer(self, options: "_Options") -> None:
        self.give(options)
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

    def write(self, output: PathArg, in_place: bool, durable: bool) -> None:
        """osh_model_write: atomic, refusing the input's own file unless in_place."""
        wo = _lib.WriteOptions(in_place=bool(in_place), durable=bool(durable))
        err = _lib.Error()
        target = os.fsdecode(output)
        if _lib.lib.osh_model_write(self.ptr, _path_arg(output), byref(wo), byref(err)) != _lib.OK:
            if err.status == _lib.ERR_SAME_FILE:
                raise InvalidOptions(_s(err.message), "same-file")
            if err.status in (_lib.ERR_IO, _lib.ERR_CHANGED):
                raise UnwritableModel(_s(err.message), _lib.STATUS_NAMES[err.status], target)
            _raise(err)

    def shapes(self, initializers: bool = True) -> Dict[str, Shape]:
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
                if v.origin == _lib.VALUE_INITIALIZER and not initializers:
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
    arrays the structures point into are held here), and the input values read."""

    def __init__(
        self,
        assume: Optional[Mapping[str, SupportsIndex]],
        input_shapes: Optional[Mapping[str, Sequence[DimArg]]],
        static: bool,
        severity: Optional[Mapping[str, str]],
        runtime: Optional[str] = None,
        custom_ops: Sequence[str] = (),
        ignore_declared: bool = False,
        require_explicit: bool = False,
        constant_initializers: bool = False,
        input_values: Optional[Mapping[str, TensorSource]] = None,
        input_data: Optional[PathArg] = None,
    ) -> None:
        self.infer = _lib.InferOptions(
            require_static=bool(static),
            ignore_declared=bool(ignore_declared),
            require_explicit=bool(require_explicit),
            constant_initializers=bool(constant_initializers),
        )
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
            assumptions = (_lib.Assumption * len(assume))()
            for i, (sym, size) in enumerate(assume.items()):
                assumptions[i] = _lib.Assumption(_str_arg("assume", sym), _size("assume", sym, size))
            self.infer.n_assumptions, self.infer.assumptions = len(assume), assumptions
            self._keep.append(assumptions)
        if input_shapes:
            shapes = (_lib.InputShape * len(input_shapes))()
            for i, (name, given) in enumerate(input_shapes.items()):
                # Any sequence of sizes, a numpy array's too; not a string.
                if isinstance(given, (str, bytes, Mapping)) or not hasattr(given, "__iter__"):
                    raise TypeError(f"input_shapes[{name!r}]: expected a list of sizes, not {type(given).__name__}")
                dims = list(given)
                darr = (_lib.Dim * max(len(dims), 1))()
                for k, d in enumerate(dims):
                    darr[k] = _dim(name, d)
                self._keep.append(darr)
                shapes[i] = _lib.InputShape(_str_arg("input_shapes", name), len(dims), darr)
            self.infer.n_input_shapes, self.infer.input_shapes = len(input_shapes), shapes
            self._keep.append(shapes)
        # (name or None, index, TensorProto bytes), as --input-data and --input-value.
        self.values: List[Tuple[Optional[bytes], int, bytes]] = []
        if input_data is not None:
            folder = os.fsdecode(input_data)
            if not os.path.isdir(folder):
                raise _io_error(f"{folder}: input_data: cannot read the directory", "io", folder)
            i = 0
            while os.path.exists(os.path.join(folder, f"input_{i}.pb")):
                self.values.append((None, i, _tensor_bytes(f"input_data {folder!r}", os.path.join(folder, f"input_{i}.pb"))))
                i += 1
        if isinstance(input_values, (str, bytes)) or (input_values is not None and not isinstance(input_values, Mapping)):
            raise TypeError("input_values: expected a mapping of input names to tensors")
        for name, tensor in (input_values or {}).items():
            self.values.append((_str_arg("input_values", name), -1, _tensor_bytes(f"input_values[{name!r}]", tensor)))
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
_UINT64_MAX = 2**64 - 1


def _no_nul(what: str, b: bytes) -> bytes:
    # A C string ends at its first NUL: "a\0b" would reach the library as "a", and a
    # path cut there names another file. open() refuses it so.
    if b"\0" in b:
        raise ValueError(f"{what}: embedded null byte")
    return b


def _path_arg(p: PathArg) -> bytes:
    return _no_nul("model path", os.fsencode(p))


def _str_arg(what: str, s: object) -> bytes:
    if not isinstance(s, str) or not s:
        raise TypeError(f"{what}: names must be non-empty strings, not {s!r}")
    return _no_nul(what, s.encode())


def _integer(what: str, v: object) -> int:
    """v as an int: Python's or anything with __index__ (numpy's integers), never a
    bool (True is no size) nor a float (3.0 is no index either)."""
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        raise TypeError(f"{what}: expected an integer, not {v!r}")
    try:
        return operator.index(v)  # type: ignore[arg-type]  # refuses what has no __index__
    except TypeError:
        raise TypeError(f"{what}: expected an integer, not {v!r}") from None


def _size(what: str, key: str, v: object) -> int:
    try:
        n = _integer(f"{what}[{key!r}]", v)
    except TypeError:
        raise ValueError(f"{what}[{key!r}]: a size is an int >= 0, not {v!r}") from None
    if n < 0:
        raise ValueError(f"{what}[{key!r}]: a size is an int >= 0, not {v!r}")
    if n > _INT64_MAX:
        raise OverflowError(f"{what}[{key!r}]: {n} is over the largest size, 2**63 - 1")
    return n


_SUFFIXES = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}


def _budget(v: Optional[Size]) -> int:
    """memory_budget in bytes (0: the library's default), as --memory-budget reads it:
    bytes, or a number with K, M, G or T ("512M", "4GiB", "4GB" alike)."""
    if v is None:
        return 0
    if isinstance(v, str):
        text = v.strip().upper()
        for tail in ("IB", "B"):
            if len(text) > 1 and text.endswith(tail) and text[-len(tail) - 1] in "KMGT":
                text = text[: -len(tail)]
                break
        unit = text[-1:] if text[-1:] in "KMGT" else ""
        digits = text[: len(text) - len(unit)]
        if not digits.isdigit():
            raise ValueError(f"memory_budget: {v!r} is not bytes, nor a size such as '512M' or '4G'")
        n = int(digits) << _SUFFIXES[unit]
    else:
        n = _integer("memory_budget", v)
    if n <= 0:
        raise ValueError(f"memory_budget: {v!r}: a budget is more than 0 bytes")
    if n > _UINT64_MAX:
        raise OverflowError(f"memory_budget: {v!r} is over 2**64 - 1 bytes")
    return n


def _dim(name: str, d: DimArg) -> _lib.Dim:
    if d is None or d == "?":
        return _lib.Dim(_lib.DIM_UNKNOWN, 0, None)
    if isinstance(d, str):
        return _lib.Dim(_lib.DIM_SYMBOL, 0, _str_arg(f"input_shapes[{name!r}]", d))
    return _lib.Dim(_lib.DIM_VALUE, _size(f"input_shapes[{name!r}]", name, d), None)


def _tensor_bytes(what: str, t: TensorSource) -> bytes:
    """A serialized TensorProto from what input_values takes."""
    if isinstance(t, (str, os.PathLike)):
        path = os.fsdecode(t)
        try:
            with open(path, "rb") as f:
                return f.read()
        except OSError as e:
            raise _io_error(f"{path}: {what}: cannot read: {e.strerror}", "io", path) from None
    if isinstance(t, (bytes, bytearray, memoryview)):
        return bytes(t)
    if callable(getattr(t, "SerializeToString", None)):
        data = t.SerializeToString()
        if isinstance(data, bytes):
            return data
    if hasattr(t, "__array__") and hasattr(t, "dtype"):
        from_array = _onnx_module(what + ": a numpy array").numpy_helper.from_array
        data = from_array(t).SerializeToString()
        if isinstance(data, bytes):
            return data
    raise TypeError(
        f"{what}: expected a TensorProto file's path, its bytes, an onnx.TensorProto or a numpy array, "
        f"not {type(t).__name__}"
    )


_onnx: Any = None


def _onnx_module(what: str) -> Any:
    """The onnx package, imported once; OnnxMissing naming what needed it."""
    global _onnx
    if _onnx is None:
        try:
            import onnx as module  # noqa: PLC0415  (optional, and slow to import)
            import onnx.numpy_helper  # noqa: F401, PLC0415

            _onnx = module
        except ImportError:
            _onnx = False
    if not _onnx:
        raise OnnxMissing(
            f"{what} needs the onnx package, which cannot be imported (pip install onnx, or Debian's "
            "python3-onnx); infer(as_bytes=True) and RewriteResult.data give the serialized model without it",
            "onnx",
        )
    return _onnx


def _as_model(data: bytes, what: str) -> "onnx.ModelProto":
    """An onnx.ModelProto parsed from data; OnnxMissing without onnx."""
    proto = _onnx_module(what).ModelProto()
    proto.ParseFromString(data)
    return proto


# ---- the API ----------------------------------------------------------------------


def check(
    model: ModelSource,
    *,
    assume: Optional[Mapping[str, SupportsIndex]] = None,
    input_shapes: Optional[Mapping[str, Sequence[DimArg]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
    runtime: str = "ort-cpu",
    custom_ops: Sequence[str] = (),
    ignore_declared: bool = False,
    require_explicit: bool = False,
    constant_initializers: bool = False,
    input_values: Optional[Mapping[str, TensorSource]] = None,
    input_data: Optional[PathArg] = None,
    werror: bool = False,
    memory_budget: Optional[Size] = None,
    base_dir: Optional[PathArg] = None,
) -> Report:
    """Loads the model, infers every shape and lints it: `onnxshape check`.

    assume binds symbols everywhere ({"batch": 1}); input_shapes overrides graph
    inputs' shapes ({"x": [1, "seq", None]}: a size, a symbol, or None/"?" for
    unknown; what the file declares downstream of an input given so is inferred
    anew); static reports every value whose shape is not fully known as an error
    (dynamic-shape); severity changes codes' severities ({"outer-broadcast":
    "error", "unknown-op": "ignore"}); runtime is what a clean report promises,
    "ort-cpu" (ONNX Runtime's CPU provider runs it: no-kernel, runtime-version) or
    "spec" (the ONNX specification only), and custom_ops the custom-op domains or
    operators the deployment registers (["com.example", "ai.other::Op"]).

    ignore_declared infers every value from the graph inputs alone (the file's
    value_info and output shapes set aside); require_explicit notes every node that
    still broadcasts implicitly (implicit-broadcast); constant_initializers takes
    initializers that are also graph inputs (as IR 3 lists them all) as the constants
    they hold, not as defaults a caller may replace; input_values treats inputs as
    known constants ({"shape": "shape.pb"}: a TensorProto file, its bytes, an
    onnx.TensorProto or a numpy array), input_data the same for a folder of
    input_0.pb, input_1.pb... (the ONNX test-data layout); werror makes warnings
    fail the report (bool(report)) as errors do; memory_budget is the most memory
    the model may take (bytes, or "512M", "4G"; default: from its size); base_dir is
    where the external data of a model given as bytes or a ModelProto lies (a
    file's is its own directory).

    Returns the Report, whatever it holds. Raises UnreadableModel (ModelNotFound for
    a missing file), MalformedModel (a model the loader refuses), InvalidOptions (a
    name the model does not have, an unknown code), TypeError/ValueError for
    arguments of the wrong kind (ValueError for a path or a name with an embedded
    NUL, OverflowError for a size over 2**63 - 1, as open() and os functions raise
    them)."""
    options = _Options(
        assume, input_shapes, static, severity, runtime, custom_ops, ignore_declared, require_explicit,
        constant_initializers, input_values, input_data,
    )
    with _Model(model, memory_budget, base_dir) as m:
        m.infer(options)
        return m.report(werror)


@overload
def infer(
    model: ModelSource,
    *,
    output: None = None,
    as_bytes: Literal[False] = False,
    in_place: bool = False,
    durable: bool = False,
    assume: Optional[Mapping[str, SupportsIndex]] = None,
    input_shapes: Optional[Mapping[str, Sequence[DimArg]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
    ignore_declared: bool = False,
    constant_initializers: bool = False,
    input_values: Optional[Mapping[str, TensorSource]] = None,
    input_data: Optional[PathArg] = None,
    memory_budget: Optional[Size] = None,
    base_dir: Optional[PathArg] = None,
) -> "onnx.ModelProto": ...


@overload
def infer(
    model: ModelSource,
    *,
    output: None = None,
    as_bytes: Literal[True],
    in_place: bool = False,
    durable: bool = False,
    assume: Optional[Mapping[str, SupportsIndex]] = None,
    input_shapes: Optional[Mapping[str, Sequence[DimArg]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
    ignore_declared: bool = False,
    constant_initializers: bool = False,
    input_values: Optional[Mapping[str, TensorSource]] = None,
    input_data: Optional[PathArg] = None,
    memory_budget: Optional[Size] = None,
    base_dir: Optional[PathArg] = None,
) -> bytes: ...


@overload
def infer(
    model: ModelSource,
    *,
    output: PathArg,
    as_bytes: bool = False,
    in_place: bool = False,
    durable: bool = False,
    assume: Optional[Mapping[str, SupportsIndex]] = None,
    input_shapes: Optional[Mapping[str, Sequence[DimArg]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
    ignore_declared: bool = False,
    constant_initializers: bool = False,
    input_values: Optional[Mapping[str, TensorSource]] = None,
    input_data: Optional[PathArg] = None,
    memory_budget: Optional[Size] = None,
    base_dir: Optional[PathArg] = None,
) -> None: ...


def infer(
    model: ModelSource,
    *,
    output: Optional[PathArg] = None,
    as_bytes: bool = False,
    in_place: bool = False,
    durable: bool = False,
    assume: Optional[Mapping[str, SupportsIndex]] = None,
    input_shapes: Optional[Mapping[str, Sequence[DimArg]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
    ignore_declared: bool = False,
    constant_initializers: bool = False,
    input_values: Optional[Mapping[str, TensorSource]] = None,
    input_data: Optional[PathArg] = None,
    memory_budget: Optional[Size] = None,
    base_dir: Optional[PathArg] = None,
) -> "Union[onnx.ModelProto, bytes, None]":
    """The model with every value's inferred type written into it (value_info, and the
    graph outputs' types): `onnxshape infer`. An input given in input_shapes is
    declared with its new shape, and what the file declares downstream of it is
    inferred anew.

    Returns an onnx.ModelProto (OnnxMissing when onnx cannot be imported); with
    as_bytes=True the serialized bytes (no onnx needed); with output, writes the
    model to that path instead, atomically (in_place allows the model's own file;
    durable fsyncs the file and its directory), and returns None. Options and errors
    as for check(); raises ModelErrors when the model has errors, and writes nothing
    then."""
    if output is None and not as_bytes:
        _onnx_module("infer() returning an onnx.ModelProto")  # before the work, not after
    options = _Options(
        assume, input_shapes, static, severity, None, (), ignore_declared, False, constant_initializers,
        input_values, input_data,
    )
    with _Model(model, memory_budget, base_dir) as m:
        m.infer(options)
        m.raise_for_errors()
        err = _lib.Error()
        if _lib.lib.osh_annotate(m.ptr, byref(err)) != _lib.OK:
            _raise(err)
        if output is not None:
            m.write(output, in_place, durable)
            return None
        data = m.pack()
    return data if as_bytes else _as_model(data, "infer() returning an onnx.ModelProto")


def shapes(
    model: ModelSource,
    *,
    assume: Optional[Mapping[str, SupportsIndex]] = None,
    input_shapes: Optional[Mapping[str, Sequence[DimArg]]] = None,
    static: bool = False,
    severity: Optional[Mapping[str, str]] = None,
    initializers: bool = True,
    ignore_declared: bool = False,
    constant_initializers: bool = False,
    input_values: Optional[Mapping[str, TensorSource]] = None,
    input_data: Optional[PathArg] = None,
    memory_budget: Optional[Size] = None,
    base_dir: Optional[PathArg] = None,
) -> Dict[str, Shape]:
    """Every value's inferred type, by name: graph inputs, initializers (unless
    initializers=False, as `onnxshape shapes` without --initializers) and node
    outputs of the main graph, then those of each subgraph keyed by the subgraph's
    path and the name ("If_0/then_branch/t"). `onnxshape shapes`. Options and errors
    as for check(); raises ModelErrors when the model has errors."""
    options = _Options(
        assume, input_shapes, static, severity, None, (), ignore_declared, False, constant_initializers,
        input_values, input_data,
    )
    with _Model(model, memory_budget, base_dir) as m:
        m.infer(options)
        m.raise_for_errors()
        return m.shapes(initializers)


def rewrite(
    model: ModelSource,
    *,
    output: Optional[PathArg] = None,
    in_place: bool = False,
    durable: bool = False,
    explicit_broadcast: bool = False,
    implicit_broadcast: bool = False,
    paddle_domain: Optional[str] = None,
    broadcast_domain: Optional[str] = None,
    drop_initializer_inputs: bool = False,
    target_opset: Optional[SupportsIndex] = None,
    dry_run: bool = False,
    assume: Optional[Mapping[str, SupportsIndex]] = None,
    input_shapes: Optional[Mapping[str, Sequence[DimArg]]] = None,
    severity: Optional[Mapping[str, str]] = None,
    fold_shapes: bool = False,
    memory_budget: Optional[Size] = None,
    base_dir: Optional[PathArg] = None,
) -> RewriteResult:
    """Rewrites Paddle-style and legacy axis broadcasting into standard ONNX:
    `onnxshape rewrite`. explicit_broadcast then makes every implicit broadcast an
    Expand, implicit_broadcast instead removes the Expand and Tile nodes that
    implicit broadcasting makes redundant (they exclude each other); paddle_domain
    rewrites the Paddle operators of that domain only, broadcast_domain lowers the
    Broadcast-3 nodes of that domain only (default: any non-ONNX domain, for both);
    drop_initializer_inputs removes the initializers from the graph inputs (IR 3
    lists them all there), raising the IR version to 4 when lower; target_opset
    converts the ai.onnx opset, up or down (1 to 26; default the lowest
    the rewrite needs);
    dry_run lists the changes and builds no model. output writes the rewritten
    model there too (atomically; in_place allows the model's own file, durable
    fsyncs), unless dry_run. fold_shapes (`rewrite --fold-shapes`) then folds
    what inference knows (values into initializers, exact constant forms, no-ops,
    Identity and Constant nodes), keeping the inputs, outputs and their dynamic
    dims; result.fold counts it by kind.

    Raises ModelErrors when the model has errors or a rewrite is blocked (the
    report says why), InvalidOptions for a target_opset the rewrite cannot reach or
    both broadcast directions, OverflowError for one outside int64; other errors
    as for check()."""
    opset = 0
    if target_opset is not None:
        opset = _integer("target_opset", target_opset)
        if not -_INT64_MAX - 1 <= opset <= _INT64_MAX:
            raise OverflowError(f"target_opset: {opset} is out of int64's range")
    options = _Options(assume, input_shapes, False, severity)
    ro = _lib.RewriteOptions(
        target_opset=opset,
        dry_run=bool(dry_run),
        explicit_broadcast=bool(explicit_broadcast),
        implicit_broadcast=bool(implicit_broadcast),
        drop_initializer_inputs=bool(drop_initializer_inputs),
        fold_shapes=bool(fold_shapes),
    )
    if paddle_domain is not None:
        ro.paddle_domain = _no_nul("paddle_domain", _text("paddle_domain", paddle_domain))
    if broadcast_domain is not None:
        ro.broadcast_domain = _no_nul("broadcast_domain", _text("broadcast_domain", broadcast_domain))
    rep = _lib.RewriteReport()
    with _Model(model, memory_budget, base_dir) as m:
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
        if output is not None and not dry_run:
            m.write(output, in_place, durable)
        report = m.report()
    return RewriteResult(
        data=data,
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
        initializer_inputs_dropped=rep.n_initializer_inputs_dropped,
        ir_version_before=rep.ir_version_before,
        ir_version_after=rep.ir_version_after,
        fold=dict({k: getattr(rep, "n_fold_" + k) for k in
                   ("values", "constants", "identity", "forms", "noops", "shared", "absorbed", "dead", "inits",
                    "inits_dropped")},
                  nodes_before=rep.fold_nodes_before, nodes_after=rep.fold_nodes_after),
    )


def _text(what: str, s: object) -> bytes:
    if not isinstance(s, str):
        raise TypeError(f"{what}: expected a string, not {s!r}")
    return s.encode()
