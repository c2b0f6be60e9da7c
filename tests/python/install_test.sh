#!/bin/sh
# install_test.sh: the Python package as make install leaves it (ctest python/install).
#
# usage: tests/python/install_test.sh BUILD_DIR WORK_DIR PYTHON VERSION
#
# With ONNXSHAPE_LIBRARY and PYTHONPATH unset:
#  - installs BUILD_DIR as make install does for /usr/local, into ROOT/local, and runs
#    PYTHON told of ROOT only as Debian's site.py is of /usr (site.addsitepackages
#    with ROOT for prefix, -I -S so no other path is searched): the README's one-liner
#    prints Y's shape of transformer_block.onnx, FLOAT (batch, 8*seq), through the
#    installed _location.py in the prefix's libonnxshape.so.0; importlib.metadata
#    gives VERSION; `python3 -m onnxshape check` runs the prefix's tool. (A Python
#    whose scheme is not Debian's is told of ROOT/local itself.)
#  - moves the prefix elsewhere and does it again (relocatable);
#  - cmake --install --prefix VENV into a fresh venv: the venv's python imports it;
#  - copies python/onnxshape into a source-tree layout beside a build/ holding the
#    library, and imports it from there (the source-tree rule).
set -eu
build=$1
work=$2
python=$3
version=$4
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
model=$src/tests/models/examples/transformer_block.onnx
fail() { echo "python install_test: $*" >&2; exit 1; }
unset ONNXSHAPE_LIBRARY PYTHONPATH

rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/root/local" >"$work/install.log" || { cat "$work/install.log"; fail "install failed"; }

debian=$("$python" -c "import sysconfig; print(int(sysconfig.get_default_scheme() == 'posix_local'))")
# Runs PYTHON with the site directories of prefix $1 only (Debian: $1/local/lib/...).
site_python() {
	p=$1
	shift
	[ "$debian" = 1 ] || p=$p/local
	"$python" -I -S -c "import site; site.addsitepackages(set(), ['$p']); import sys; code = sys.argv[1]; sys.argv[1:] = sys.argv[2:]; exec(code)" "$@"
}
probe() { # $1: root; prints the library's path, Y's shape and the package's dist version
	(cd "$work" && site_python "$1" "
import importlib.metadata, onnxshape, onnxshape._lib as l
print(l.path); print(onnxshape.shapes('$model')['Y']); print(importlib.metadata.version('onnxshape'))")
}
expect() { # $1: root, $2: where the library must be
	out=$(probe "$1") || fail "import under $1 failed"
	lib=$(echo "$out" | sed -n 1p)
	[ "$lib" -ef "$2" ] || fail "under $1, the library loaded is $lib, not $2"
	[ "$(echo "$out" | sed -n 2p)" = "FLOAT (batch, 8*seq)" ] || fail "under $1: unexpected output: $out"
	[ "$(echo "$out" | sed -n 3p)" = "$version" ] || fail "under $1: importlib.metadata.version is not $version: $out"
	echo "ok: $1 -> $lib, version $version"
}

pkg=$(find "$work/root/local" -path '*-packages/onnxshape' -type d)
[ -n "$pkg" ] || fail "no */*-packages/onnxshape under $work/root/local"
echo "installed into $pkg"
for f in __init__.py __main__.py _lib.py _location.py py.typed; do
	[ -f "$pkg/$f" ] || fail "$pkg/$f was not installed"
done
[ ! -e "$pkg/__pycache__" ] || fail "__pycache__ was installed"
[ -f "$(dirname "$pkg")/onnxshape-$version.dist-info/METADATA" ] || fail "no onnxshape-$version.dist-info beside $pkg"
so=$(find "$work/root" -name libonnxshape.so.0)
[ -n "$so" ] || fail "no libonnxshape.so.0 under $work/root"
expect "$work/root" "$so"
# What the README shows, verbatim but for the site rule.
(cd "$(dirname "$model")" && site_python "$work/root" "import onnxshape; print(onnxshape.shapes('transformer_block.onnx'))") |
	grep -F "'Y': Shape(elem_type='FLOAT', dims=('batch', '8*seq'))" >/dev/null || fail "the README's example does not print Y's shape"
# python3 -m onnxshape runs the prefix's tool (named by _location.py).
(cd "$(dirname "$model")" && site_python "$work/root" "import runpy; runpy.run_module('onnxshape', run_name='__main__')" --version) >"$work/version.txt" 2>&1 ||
	{ cat "$work/version.txt"; fail "python3 -m onnxshape --version failed"; }
"$work/root/local/bin/onnxshape" --version | cmp -s - "$work/version.txt" || fail "python3 -m onnxshape --version is not the installed tool's"
echo "ok: python3 -m onnxshape runs $work/root/local/bin/onnxshape"

mv "$work/root" "$work/moved"
expect "$work/moved" "$work/moved/${so#"$work/root/"}"

"$python" -m venv --without-pip --system-site-packages "$work/venv" || fail "python3 -m venv failed"
cmake --install "$build" --prefix "$work/venv" >"$work/venv-install.log" || { cat "$work/venv-install.log"; fail "install into the venv failed"; }
(cd "$work" && "$work/venv/bin/python" -c "
import importlib.metadata, onnxshape, onnxshape._lib as l, sys
assert l.path.startswith(sys.prefix + '/'), l.path
assert importlib.metadata.version('onnxshape') == '$version'
print('ok: cmake --install --prefix VENV ->', l.path)") || fail "the venv does not import what cmake --install put in it"

mkdir -p "$work/tree/python" "$work/tree/build"
cp -R "$src/python/onnxshape" "$work/tree/python/"
rm -f "$work/tree/python/onnxshape/_location.py"
cp "$work/moved/${so#"$work/root/"}" "$work/tree/build/libonnxshape.so.0"
out=$(cd "$work" && PYTHONPATH=$work/tree/python "$python" -c "import onnxshape, onnxshape._lib as l; print(l.path)") || fail "source-tree import failed"
[ "$out" -ef "$work/tree/build/libonnxshape.so.0" ] || fail "from the source tree, the library loaded is $out"
echo "ok: source tree -> $out"

echo "python install_test: all passed"
