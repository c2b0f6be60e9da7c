"""_lib.py: the ctypes declarations of libonnxshape's public API (include/onnxshape.h).

Private to the package. Every structure here mirrors one of the header's, field for
field and in the same order: the header is the contract, and tests/python/test_api.py
compares each one's size and field offsets with what the C compiler lays out (a
probe it writes from STRUCTS below). Only the functions the package calls are declared.

The library is a ctypes.CDLL: ctypes releases the GIL for the duration of every call
into it, so models checked from several Python threads are checked in parallel.

Where the library is found, first match wins:
  1. $ONNXSHAPE_LIBRARY, a path to libonnxshape.so.0 (nothing else is tried);
  2. the library a wheel bundles, libonnxshape.so.0 beside this file;
  3. make install's layout: _location.py, written by CMake and installed beside this
     file, names the library relative to the package's directory;
  4. the source tree: python/onnxshape/ imported with PYTHONPATH=python finds
     build/libonnxshape.so.0 (the Makefile's build directory);
  5. libonnxshape.so.0 through the dynamic loader's own search (LD_LIBRARY_PATH,
     ld.so.cache).
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (
    POINTER,
    Structure,
    c_bool,
    c_char,
    c_char_p,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_void_p,
)
from typing import Any, List, Optional, Sequence

SONAME = "libonnxshape.so.0"

# osh_status
OK = 0
ERR_IO = 1
ERR_DECODE = 2
ERR_LIMIT = 3
ERR_NOMEM = 4
ERR_INVALID = 5
ERR_SAME_FILE = 6
ERR_CHANGED = 7
ERR_FINDINGS = 8
STATUS_NAMES = {
    OK: "ok",
    ERR_IO: "io",
    ERR_DECODE: "decode",
    ERR_LIMIT: "limit",
    ERR_NOMEM: "nomem",
    ERR_INVALID: "invalid",
    ERR_SAME_FILE: "same-file",
    ERR_CHANGED: "changed",
    ERR_FINDINGS: "findings",
}

# osh_severity, osh_dim_kind, osh_value_origin
NOTE, WARNING, ERROR = 0, 1, 2
SEVERITY_NAMES = ("note", "warning", "error")
DIM_UNKNOWN, DIM_VALUE, DIM_SYMBOL = 0, 1, 2
VALUE_UNDEFINED, VALUE_INPUT, VALUE_INITIALIZER, VALUE_NODE, VALUE_OUTER = 0, 1, 2, 3, 4


class Error(Structure):
    _fields_ = [("status", c_int), ("message", c_char * 1024)]


class _Options(Structure):
    """An options struct of onnxshape.h: its first field is the version of its layout,
    which the library checks; each subclass sets it to the one it mirrors."""

    VERSION = 0

    def __init__(self, *args: Any, **kw: Any) -> None:
        kw.setdefault("version", self.VERSION)
        super().__init__(*args, **kw)


# OSH_LOAD_OPTIONS_VERSION and the others: the layouts mirrored below.
LOAD_OPTIONS_VERSION = 1
INFER_OPTIONS_VERSION = 1
REWRITE_OPTIONS_VERSION = 1
WRITE_OPTIONS_VERSION = 1


class LoadOptions(_Options):
    VERSION = LOAD_OPTIONS_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("memory_budget", ctypes.c_uint64),
        ("io", c_int),  # osh_io: the package leaves it to the build and the environment
        ("write_to", c_char_p),
    ]


class WriteOptions(_Options):
    VERSION = WRITE_OPTIONS_VERSION
    _fields_ = [("version", ctypes.c_uint), ("in_place", c_bool), ("durable", c_bool), ("force_pack", c_bool)]


class Dim(Structure):
    _fields_ = [("kind", c_int), ("value", c_int64), ("symbol", c_char_p)]


class Type(Structure):
    _fields_ = [("kind", c_char_p), ("elem_type", c_int32), ("rank", c_int32), ("dims", POINTER(Dim))]


class ValueSummary(Structure):
    _fields_ = [("name", c_char_p), ("type", Type)]


class Diag(Structure):
    _fields_ = [
        ("severity", c_int),
        ("code", c_char_p),
        ("graph", c_char_p),
        ("node_index", c_int64),
        ("node_name", c_char_p),
        ("op_type", c_char_p),
        ("value", c_char_p),
        ("message", c_char_p),
        ("n_inputs", c_size_t),
        ("inputs", POINTER(ValueSummary)),
    ]


class InputShape(Structure):
    _fields_ = [("name", c_char_p), ("rank", c_int32), ("dims", POINTER(Dim))]


class Assumption(Structure):
    _fields_ = [("symbol", c_char_p), ("value", c_int64)]


class InferOptions(_Options):
    VERSION = INFER_OPTIONS_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("n_input_shapes", c_size_t),
        ("input_shapes", POINTER(InputShape)),
        ("n_assumptions", c_size_t),
        ("assumptions", POINTER(Assumption)),
        ("ignore_declared", c_bool),
        ("require_static", c_bool),
        ("require_explicit", c_bool),
        ("dump_after", c_char_p),
        ("dump_to", c_void_p),  # FILE *: the package never dumps
        ("runtime", c_char_p),
        ("n_custom_ops", c_size_t),
        ("custom_ops", POINTER(c_char_p)),
        ("constant_initializers", c_bool),
    ]


class ValueInfo(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("origin", c_int),
        ("type", Type),
        ("producer", c_int64),
        ("producer_output", c_int32),
        ("is_graph_output", c_bool),
    ]


class NodeInfo(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("op_type", c_char_p),
        ("domain", c_char_p),
        ("n_inputs", c_size_t),
        ("inputs", POINTER(c_char_p)),
        ("n_outputs", c_size_t),
        ("outputs", POINTER(c_char_p)),
        ("n_subgraphs", c_size_t),
        ("subgraphs", POINTER(c_size_t)),
    ]


class SeverityOverride(Structure):
    _fields_ = [("code", c_char_p), ("ignore", c_bool), ("severity", c_int)]


class RewriteOptions(_Options):
    VERSION = REWRITE_OPTIONS_VERSION
    _fields_ = [
        ("version", ctypes.c_uint),
        ("paddle_domain", c_char_p),
        ("target_opset", c_int64),
        ("dry_run", c_bool),
        ("explicit_broadcast", c_bool),
        ("implicit_broadcast", c_bool),
        ("broadcast_domain", c_char_p),
        ("fold_shapes", c_bool),
        ("dump_after", c_char_p),
        ("dump_to", c_void_p),  # FILE *: the package never dumps
        ("drop_initializer_inputs", c_bool),
    ]


class RewriteChange(Structure):
    _fields_ = [
        ("graph", c_char_p),
        ("node_index", c_int64),
        ("node_name", c_char_p),
        ("op_type", c_char_p),
        ("kind", c_char_p),
        ("what", c_char_p),
    ]


class RewriteReport(Structure):
    _fields_ = [
        ("n_paddle", c_size_t),
        ("n_legacy", c_size_t),
        ("n_stray", c_size_t),
        ("n_adapted", c_size_t),
        ("n_reshape", c_size_t),
        ("n_unsqueeze", c_size_t),
        ("n_squeeze", c_size_t),
        ("n_other_inserted", c_size_t),
        ("opset_before", c_int64),
        ("opset_after", c_int64),
        ("n_errors", c_size_t),
        ("changed", c_bool),
        ("n_changes", c_size_t),
        ("changes", POINTER(RewriteChange)),
        ("n_explicit", c_size_t),
        ("n_expand", c_size_t),
        ("n_target_nodes", c_size_t),
        ("n_lowered", c_size_t),
        ("n_removed", c_size_t),
        ("n_dead_removed", c_size_t),
        ("n_initializer_inputs_dropped", c_size_t),
        ("ir_version_before", c_int64),
        ("ir_version_after", c_int64),
        ("n_fold_values", c_size_t),
        ("n_fold_constants", c_size_t),
        ("n_fold_identity", c_size_t),
        ("n_fold_forms", c_size_t),
        ("n_fold_noops", c_size_t),
        ("n_fold_shared", c_size_t),
        ("n_fold_absorbed", c_size_t),
        ("n_fold_dead", c_size_t),
        ("n_fold_inits", c_size_t),
        ("n_fold_inits_dropped", c_size_t),
        ("fold_nodes_before", c_size_t),
        ("fold_nodes_after", c_size_t),
    ]


class Rule(Structure):
    _fields_ = [
        ("code", c_char_p),
        ("severity", c_int),
        ("summary", c_char_p),
        ("description", c_char_p),
        ("example", c_char_p),
    ]


# The structures test_api.py checks against the C compiler's layout, by header name.
STRUCTS = {
    "osh_error": Error,
    "osh_load_options": LoadOptions,
    "osh_write_options": WriteOptions,
    "osh_dim": Dim,
    "osh_type": Type,
    "osh_value_summary": ValueSummary,
    "osh_diag": Diag,
    "osh_input_shape": InputShape,
    "osh_assumption": Assumption,
    "osh_infer_options": InferOptions,
    "osh_value_info": ValueInfo,
    "osh_node_info": NodeInfo,
    "osh_severity_override": SeverityOverride,
    "osh_rewrite_options": RewriteOptions,
    "osh_rewrite_change": RewriteChange,
    "osh_rewrite_report": RewriteReport,
    "osh_rule": Rule,
}

Model = c_void_p  # osh_model *, opaque


def candidates() -> List[str]:
    """The paths tried, in order (see the module's docstring)."""
    explicit = os.environ.get("ONNXSHAPE_LIBRARY")
    if explicit:
        return [explicit]
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    bundled = os.path.join(here, SONAME)
    if os.path.exists(bundled):
        found.append(bundled)
    try:
        from . import _location  # type: ignore[attr-defined]  # only in an installed package

        found.append(os.path.normpath(os.path.join(here, _location.LIBRARY)))
    except ImportError:
        pass
    found.append(os.path.join(os.path.dirname(os.path.dirname(here)), "build", SONAME))
    found.append(SONAME)
    return found


def _open() -> ctypes.CDLL:
    tried = []
    for path in candidates():
        # A bare soname goes to the dynamic loader's search; a path must exist.
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} (not found)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({e})")
    raise ImportError(
        "onnxshape: cannot load libonnxshape.so.0; tried: " + "; ".join(tried)
        + " (set ONNXSHAPE_LIBRARY to the library's path)"
    )


lib = _open()
path: Optional[str] = getattr(lib, "_name", None)


DECLARED: List[str] = []


def _declare(name: str, restype: Any, argtypes: Sequence[Any]) -> None:
    DECLARED.append(name)
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = argtypes


_declare("osh_version", c_char_p, [])
_declare("osh_model_load", c_int, [POINTER(Model), c_char_p, POINTER(LoadOptions), POINTER(Error)])
_declare(
    "osh_model_load_buffer",
    c_int,
    [POINTER(Model), c_char_p, c_size_t, c_char_p, POINTER(LoadOptions), POINTER(Error)],
)
_declare("osh_model_set_input_value", c_int, [Model, c_char_p, c_int, c_char_p, c_size_t, POINTER(Error)])
_declare("osh_model_write", c_int, [Model, c_char_p, POINTER(WriteOptions), POINTER(Error)])
_declare("osh_model_free", None, [Model])
_declare("osh_model_diag_count", c_size_t, [Model])
_declare("osh_model_diag_at", POINTER(Diag), [Model, c_size_t])
_declare("osh_model_has_errors", c_bool, [Model])
_declare("osh_model_is_malformed", c_bool, [Model])
_declare("osh_model_node_count", c_size_t, [Model])
_declare("osh_elem_type_name", c_char_p, [c_int32])
_declare("osh_infer", c_int, [Model, POINTER(InferOptions), POINTER(Error)])
_declare("osh_annotate", c_int, [Model, POINTER(Error)])
_declare("osh_model_graph_count", c_size_t, [Model])
_declare("osh_graph_path", c_char_p, [Model, c_size_t])
_declare("osh_graph_value_count", c_size_t, [Model, c_size_t])
_declare("osh_graph_node_count", c_size_t, [Model, c_size_t])
_declare("osh_graph_value_at", c_bool, [Model, c_size_t, c_size_t, POINTER(ValueInfo)])
_declare("osh_graph_node_at", c_bool, [Model, c_size_t, c_size_t, POINTER(NodeInfo)])
_declare("osh_rules", POINTER(Rule), [POINTER(c_size_t)])
_declare("osh_model_override_severities", c_int, [Model, POINTER(SeverityOverride), c_size_t, POINTER(Error)])
_declare("osh_rewrite", c_int, [Model, POINTER(RewriteOptions), POINTER(RewriteReport), POINTER(Error)])
_declare("osh_model_pack", c_int, [Model, POINTER(POINTER(c_uint8)), POINTER(c_size_t), POINTER(Error)])

# osh_model_pack's buffer comes from the library's malloc: the process's C library.
_libc = ctypes.CDLL(None)
_libc.free.restype = None
_libc.free.argtypes = [c_void_p]
free = _libc.free
