#!/bin/sh
# wheel_test.sh: the package built and installed the way Python users do (ctest python/wheel).
#
# usage: tests/python/wheel_test.sh BUILD_DIR WORK_DIR PYTHON VERSION
#
# Offline, with PYTHON's pip, venv and build (python3-pip, python3-venv, python3-build),
# the backend compiling in BUILD_DIR (ONNXSHAPE_BUILD_DIR, up to date after make: no
# recompile):
#  - `pip wheel --no-build-isolation` and `python3 -m build --no-isolation --wheel` each
#    make onnxshape-VERSION-py3-none-PLATFORM.whl holding the package, the library and
#    the tool;
#  - in a fresh venv (--system-site-packages, for onnx), `pip install
#    --no-build-isolation SRC` then `pip uninstall`, then the wheel installed: the
#    package loads its bundled library, importlib.metadata gives VERSION, check/shapes/
#    infer on fixtures, and `python -m onnxshape check` and the `onnxshape` script give
#    the tool's own output and exit status.
set -eu
build=$(cd "$1" && pwd)
work=$2
python=$3
version=$4
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
models=$src/tests/models/examples
fail() { echo "python wheel_test: $*" >&2; exit 1; }
unset ONNXSHAPE_LIBRARY PYTHONPATH
export ONNXSHAPE_BUILD_DIR="$build" PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

rm -rf "$work"
mkdir -p "$work"
cd "$work"
plat=$("$python" -c "import sysconfig, re; print(re.sub(r'[^A-Za-z0-9]', '_', sysconfig.get_platform()))")
wheel=onnxshape-$version-py3-none-$plat.whl

"$python" -m pip wheel --no-build-isolation --no-deps -w "$work/pipwheel" "$src" >"$work/pipwheel.log" 2>&1 ||
	{ cat "$work/pipwheel.log"; fail "pip wheel failed"; }
[ -f "$work/pipwheel/$wheel" ] || fail "pip wheel made $(ls "$work/pipwheel"), not $wheel"
"$python" -m build --no-isolation --wheel --outdir "$work/dist" "$src" >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log"; fail "python3 -m build failed"; }
[ -f "$work/dist/$wheel" ] || fail "python3 -m build made $(ls "$work/dist"), not $wheel"

# The wheel's contents: the tool executable, the platform tag, a RECORD pip can verify.
"$python" - "$work/dist/$wheel" "$version" <<'PY' || fail "the wheel's contents are wrong"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
di = f"onnxshape-{sys.argv[2]}.dist-info"
need = {"onnxshape/__init__.py", "onnxshape/_lib.py", "onnxshape/__main__.py", "onnxshape/py.typed",
        "onnxshape/libonnxshape.so.0", "onnxshape/bin/onnxshape",
        f"{di}/METADATA", f"{di}/WHEEL", f"{di}/RECORD", f"{di}/entry_points.txt"}
missing = need - names
assert not missing, f"missing: {sorted(missing)}"
assert "onnxshape/_location.py" not in names, "make install's _location.py is in the wheel"
assert (z.getinfo("onnxshape/bin/onnxshape").external_attr >> 16) & 0o111, "the tool is not executable"
wheel = z.read(f"{di}/WHEEL").decode()
assert "Root-Is-Purelib: false" in wheel and "Tag: py3-none-linux_" in wheel, wheel
assert z.read("onnxshape/libonnxshape.so.0")[:4] == b"\x7fELF"
PY

"$python" -m venv --system-site-packages "$work/venv" || fail "python3 -m venv failed"
vpy=$work/venv/bin/python
"$vpy" -m pip install --no-build-isolation --no-deps "$src" >"$work/pipinstall.log" 2>&1 ||
	{ cat "$work/pipinstall.log"; fail "pip install --no-build-isolation $src failed"; }
"$vpy" -c "import importlib.metadata as m; assert m.version('onnxshape') == '$version'" ||
	fail "after pip install SRC: no onnxshape $version in importlib.metadata"
"$vpy" -m pip uninstall -y onnxshape >"$work/uninstall.log" 2>&1 || { cat "$work/uninstall.log"; fail "pip uninstall failed"; }
if "$vpy" -c "import onnxshape" 2>/dev/null; then fail "onnxshape still imports after pip uninstall"; fi
"$vpy" -m pip install --no-deps "$work/dist/$wheel" >"$work/wheelinstall.log" 2>&1 ||
	{ cat "$work/wheelinstall.log"; fail "pip install $wheel failed"; }

site=$("$vpy" -c "import sysconfig; print(sysconfig.get_path('platlib'))")
"$vpy" - "$models" "$site" "$version" <<'PY' || fail "the API in the venv failed"
import importlib.metadata, os, sys
models, site, version = sys.argv[1:]
os.chdir(models)
import onnxshape, onnxshape._lib as lib
assert os.path.samefile(lib.path, os.path.join(site, "onnxshape", "libonnxshape.so.0")), lib.path
assert importlib.metadata.version("onnxshape") == version == onnxshape.__version__ == onnxshape.library_version()
print("ok: bundled library", lib.path, "version", version)
# The expected values are tests/models/examples/gen_examples.py's (see docs/python.md).
assert str(onnxshape.shapes("transformer_block.onnx")["Y"]) == "FLOAT (batch, 8*seq)"
report = onnxshape.check("unet_skip.onnx", assume={"H": 225, "W": 224})
assert not report and [d.code for d in report.errors] == ["broadcast-mismatch"], report.errors
assert onnxshape.check("cnn_residual.onnx")
import onnx
model = onnxshape.infer("transformer_block.onnx")
assert isinstance(model, onnx.ModelProto)
assert [d.dim_param or d.dim_value for d in model.graph.value_info[0].type.tensor_type.shape.dim] == ["batch", "seq", 8]
print("ok: check, shapes and infer in the venv")
PY

# python -m onnxshape and the installed script run the bundled tool: its output and
# exit status are the build's tool's on the same models: clean, with an error, malformed.
cd "$models"
codes=
for m in cnn_residual.onnx legacy_add_broadcast.onnx ../bad/cycle.onnx; do
	set +e
	"$build/onnxshape" check "$m" >"$work/want.txt" 2>&1
	want=$?
	"$vpy" -m onnxshape check "$m" >"$work/got.txt" 2>&1
	got=$?
	"$work/venv/bin/onnxshape" check "$m" >"$work/script.txt" 2>&1
	script=$?
	set -e
	[ "$got" = "$want" ] && [ "$script" = "$want" ] || fail "check $m: exit $got (python -m) and $script (script), the tool's $want"
	cmp -s "$work/want.txt" "$work/got.txt" || { diff "$work/want.txt" "$work/got.txt"; fail "python -m onnxshape check $m differs from the tool"; }
	cmp -s "$work/want.txt" "$work/script.txt" || fail "the onnxshape script's check $m differs from the tool"
	echo "ok: python -m onnxshape check $m: exit $got"
	codes="$codes $got"
done
[ "$codes" = " 0 1 2" ] || fail "the models' exit statuses are$codes, not 0 1 2: the fixtures changed"
echo "python wheel_test: all passed"
