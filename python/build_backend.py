"""build_backend.py: the in-tree PEP 517 build backend of pyproject.toml.

The package is ctypes over libonnxshape.so.0, so a wheel is the Python files plus the
C library and the command-line tool, both compiled here by CMake: nothing to fetch and
no build requirement, hence a backend of the standard library alone (pip's and
build's --no-build-isolation work offline, and so does an isolated build). The wheel
is tagged py3-none-PLATFORM: any Python 3 can load it, but only on the platform the
library was compiled for.

Where CMake builds: $ONNXSHAPE_BUILD_DIR (or the config setting build-dir) when set,
an existing build directory whose configuration is kept as it is (the tests reuse
theirs); else build-wheel/ in the source tree, configured for a release build without
the tests. $CMAKE_BUILD_PARALLEL_LEVEL sets the jobs, as for cmake itself.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from typing import Any, Dict, List, Optional, Tuple

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(SRC, "python", "onnxshape")
SONAME = "libonnxshape.so.0"
TAG = "py3-none-" + re.sub(r"[^A-Za-z0-9]", "_", sysconfig.get_platform())


def _project() -> Dict[str, Any]:
    with open(os.path.join(SRC, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _version() -> str:
    """The version CMake's project() declares: the library, the tool and the package
    are one release."""
    with open(os.path.join(SRC, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*onnxshape\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("onnxshape build: no project(onnxshape VERSION ...) in CMakeLists.txt")
    return m.group(1)


def _metadata() -> str:
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {_version()}",
        f"Summary: {p['description']}",
        f"Requires-Python: {p['requires-python']}",
    ]
    lines += [f"Classifier: {c}" for c in p.get("classifiers", [])]
    lines += [f"Provides-Extra: {e}" for e in p.get("optional-dependencies", {})]
    for extra, reqs in p.get("optional-dependencies", {}).items():
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in reqs]
    readme = p.get("readme")
    body = ""
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(SRC, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _entry_points() -> str:
    scripts = _project().get("scripts", {})
    return "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())


def _log(msg: str) -> None:
    print(f"onnxshape build: {msg}", file=sys.stderr, flush=True)


def _cmake(config: Optional[Dict[str, Any]]) -> Tuple[str, str]:
    """Builds the library and the tool; returns their paths."""
    build = (config or {}).get("build-dir") or os.environ.get("ONNXSHAPE_BUILD_DIR")
    if build:
        build = os.path.abspath(build)
    else:
        build = os.path.join(SRC, "build-wheel")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        cmd = ["cmake", "-S", SRC, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DONNXSHAPE_TESTS=OFF"]
        _log(" ".join(cmd))
        subprocess.run(cmd, check=True, stdout=sys.stderr)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
    cmd = ["cmake", "--build", build, "--target", "onnxshape_shared", "onnxshape_cli", "-j", jobs]
    _log(" ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    lib, cli = os.path.join(build, SONAME), os.path.join(build, "onnxshape")
    for f in (lib, cli):
        if not os.path.isfile(f):
            raise RuntimeError(f"onnxshape build: {f} was not built")
    return os.path.realpath(lib), cli


def _package_files() -> List[Tuple[str, str]]:
    """(path in the wheel, path here) of the Python package's files. _location.py is
    CMake's, for make install's layout only."""
    out = []
    for name in sorted(os.listdir(PACKAGE)):
        if (name.endswith(".py") or name == "py.typed") and name != "_location.py":
            out.append((f"onnxshape/{name}", os.path.join(PACKAGE, name)))
    return out


class _Wheel:
    def __init__(self, path: str) -> None:
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record: List[str] = []

    def add(self, arcname: str, data: bytes, mode: int = 0o644) -> None:
        # A fixed date: the same sources give the same wheel.
        info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append(f"{arcname},sha256={digest},{len(data)}")

    def add_file(self, arcname: str, path: str) -> None:
        with open(path, "rb") as f:
            data = f.read()
        self.add(arcname, data, 0o755 if os.access(path, os.X_OK) else 0o644)

    def close(self, dist_info: str) -> None:
        record = f"{dist_info}/RECORD"
        info = zipfile.ZipInfo(record, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, "\n".join(self.record + [f"{record},,"]) + "\n")
        self.zip.close()


def _dist_info_files() -> List[Tuple[str, str]]:
    wheel = f"Wheel-Version: 1.0\nGenerator: onnxshape build_backend\nRoot-Is-Purelib: false\nTag: {TAG}\n"
    return [("METADATA", _metadata()), ("WHEEL", wheel), ("entry_points.txt", _entry_points()), ("top_level.txt", "onnxshape\n")]


def _dist_info() -> str:
    return f"onnxshape-{_version()}.dist-info"


# ---- PEP 517 hooks ---------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    # Metadata without compiling: pip asks for it before it builds.
    d = os.path.join(metadata_directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    for name, text in _dist_info_files():
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    return _dist_info()


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    lib, cli = _cmake(config_settings)
    name = f"onnxshape-{_version()}-{TAG}.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    w = _Wheel(os.path.join(wheel_directory, name))
    for arcname, path in _package_files():
        w.add_file(arcname, path)
    # Under the soname the package loads (python/onnxshape/_lib.py tries it first).
    w.add_file(f"onnxshape/{SONAME}", lib)
    w.add_file("onnxshape/bin/onnxshape", cli)
    dist_info = _dist_info()
    for n, text in _dist_info_files():
        w.add(f"{dist_info}/{n}", text.encode())
    w.close(dist_info)
    _log(f"wrote {name}")
    return name


def _sdist_files() -> List[str]:
    """The source tree's tracked files (git), or, outside a checkout, every file but
    build outputs."""
    try:
        out = subprocess.run(["git", "-C", SRC, "ls-files", "-z"], check=True, capture_output=True).stdout
        return sorted(f for f in out.decode().split("\0") if f and os.path.isfile(os.path.join(SRC, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for root, dirs, names in os.walk(SRC):
        rel = os.path.relpath(root, SRC)
        dirs[:] = [d for d in dirs if not (rel == "." and (d.startswith("build") or d in (".git", "dist")))
                   and d not in ("__pycache__", "node_modules")]
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return sorted(files)


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    base = f"onnxshape-{_version()}"
    os.makedirs(sdist_directory, exist_ok=True)
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for f in _sdist_files():
            tar.add(os.path.join(SRC, f), arcname=f"{base}/{f}", recursive=False)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return base + ".tar.gz"
