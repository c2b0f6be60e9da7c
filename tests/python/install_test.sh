#!/bin/sh
# install_test.sh: the Python package as make install leaves it (ctest python/install).
#
# usage: tests/python/install_test.sh BUILD_DIR WORK_DIR PYTHON
#
# Installs BUILD_DIR into a fresh prefix (cmake --install --prefix), then, with
# ONNXSHAPE_LIBRARY unset:
#  - imports the package from PREFIX/lib/python3/dist-packages as the README says, and
#    prints the shapes of transformer_block.onnx: Y FLOAT (batch, 8*seq), found
#    through the installed _location.py in the prefix's libonnxshape.so.0;
#  - moves the prefix elsewhere and does it again (relocatable);
#  - copies python/onnxshape into a source-tree layout beside a build/ holding the
#    library, and imports it from there (the source-tree rule).
set -eu
build=$1
work=$2
python=$3
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
model=$src/tests/models/examples/transformer_block.onnx
fail() { echo "python install_test: $*" >&2; exit 1; }
unset ONNXSHAPE_LIBRARY

rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; fail "install failed"; }

# Prints the library's path and Y's shape, from a package under $1.
probe() {
	(cd "$work" && PYTHONPATH=$1 "$python" -c "import onnxshape, onnxshape._lib as l; print(l.path); print(onnxshape.shapes('$model')['Y'])")
}
expect() { # $1: package folder, $2: where the library must be
	out=$(probe "$1") || fail "import from $1 failed"
	lib=$(echo "$out" | sed -n 1p)
	[ "$lib" -ef "$2" ] || fail "from $1, the library loaded is $lib, not $2"
	[ "$(echo "$out" | sed -n 2p)" = "FLOAT (batch, 8*seq)" ] || fail "from $1: unexpected output: $out"
	echo "ok: $1 -> $lib"
}

pkg=$work/prefix/lib/python3/dist-packages
for f in __init__.py _lib.py _location.py py.typed; do
	[ -f "$pkg/onnxshape/$f" ] || fail "$pkg/onnxshape/$f was not installed"
done
[ ! -e "$pkg/onnxshape/__pycache__" ] || fail "__pycache__ was installed"
so=$(find "$work/prefix" -name libonnxshape.so.0)
[ -n "$so" ] || fail "no libonnxshape.so.0 under $work/prefix"
expect "$pkg" "$so"
# What the README shows, verbatim but for the paths.
(cd "$(dirname "$model")" && PYTHONPATH=$pkg "$python" -c "import onnxshape; print(onnxshape.shapes('transformer_block.onnx'))") |
	grep -F "'Y': Shape(elem_type='FLOAT', dims=('batch', '8*seq'))" >/dev/null || fail "the README's example does not print Y's shape"

mv "$work/prefix" "$work/moved"
expect "$work/moved/lib/python3/dist-packages" "$work/moved/${so#"$work/prefix/"}"

mkdir -p "$work/tree/python" "$work/tree/build"
cp -R "$src/python/onnxshape" "$work/tree/python/"
rm -f "$work/tree/python/onnxshape/_location.py"
cp "$work/moved/${so#"$work/prefix/"}" "$work/tree/build/libonnxshape.so.0"
expect "$work/tree/python" "$work/tree/build/libonnxshape.so.0"

echo "python install_test: all passed"
