#!/bin/sh
# install_test.sh: the installed library as its users get it (ctest install/library).
#
# usage: tests/install/install_test.sh BUILD_DIR WORK_DIR [CFLAGS]
#
# Installs BUILD_DIR into a fresh prefix under WORK_DIR as a user does, with
# `make install PREFIX=... BUILD=BUILD_DIR` (the build is there already: make only
# checks the packages and installs), then:
#  - builds walk.c through pkg-config, against the shared library and, unless CFLAGS
#    are given (a sanitizer build, which cannot link statically), fully static
#    against the archive; and through find_package(onnxshape) (consumer/), against
#    both targets; every build prints what walk.expected says for the fixtures.
#    walk.c has its own arena_new and onnx__model_proto__unpack, named as the
#    library's internals: each build links, and its output says the library never
#    called them;
#  - checks that the shared library exports, and the archive defines globally,
#    exactly the functions the header declares OSH_API, and the soname.
# CFLAGS (e.g. the sanitizers' flags) are passed to every compile and link.
set -eu
build=$1
work=$2
cflags=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
models="$src/tests/models/examples/transformer_block.onnx $src/tests/models/good/if_outer.onnx"
fail() { echo "install_test: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
make -C "$src" install PREFIX="$prefix" BUILD="$build" JOBS=1 >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "make install failed"; }
pc=$(find "$prefix" -name onnxshape.pc)
[ -n "$pc" ] || fail "no onnxshape.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --variable=libdir onnxshape)" -ef "$libdir" ] || fail "onnxshape.pc's libdir is not $libdir"

# Runs a walk program on the fixtures and compares with walk.expected.
check_walk() {
	for m in $models; do "$@" "$m" || fail "$* $m: exit status $?"; done >"$work/walk.out"
	diff -u "$here/walk.expected" "$work/walk.out" || fail "$1: unexpected output"
	echo "ok: $1"
}

cc=${CC:-cc}
# shellcheck disable=SC2046,SC2086 # word splitting of the flags is meant
$cc -std=c11 $cflags "$here/walk.c" -o "$work/walk_pc_shared" $(pkg-config --cflags --libs onnxshape)
readelf -d "$work/walk_pc_shared" | grep -q 'NEEDED.*libonnxshape\.so\.0' || fail "walk_pc_shared does not use libonnxshape.so.0"
LD_LIBRARY_PATH=$libdir check_walk "$work/walk_pc_shared"
if [ -z "$cflags" ]; then
	# shellcheck disable=SC2046
	$cc -std=c11 -static "$here/walk.c" -o "$work/walk_pc_static" $(pkg-config --static --cflags --libs onnxshape)
	readelf -d "$work/walk_pc_static" | grep -q NEEDED && fail "walk_pc_static is not static"
	check_walk "$work/walk_pc_static"
fi

cmake -S "$here/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
	-DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >"$work/consumer.log" 2>&1 ||
	{ cat "$work/consumer.log"; fail "find_package(onnxshape) failed"; }
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer build failed"; }
readelf -d "$work/consumer/walk_static" | grep -q 'NEEDED.*libonnxshape' && fail "walk_static uses the shared library"
check_walk "$work/consumer/walk_shared"
check_walk "$work/consumer/walk_static"

# Exported symbols: exactly the header's OSH_API functions.
so=$libdir/libonnxshape.so
ar=$libdir/libonnxshape.a
readelf -d "$so" | grep -q 'SONAME.*\[libonnxshape\.so\.0\]' || fail "$so: soname is not libonnxshape.so.0"
sed -n 's/^OSH_API .*[ *]\(osh_[a-z0-9_]*\)(.*/\1/p' "$src/include/onnxshape.h" | sort -u >"$work/api.txt"
[ -s "$work/api.txt" ] || fail "no OSH_API function found in the header"
nm -D --defined-only "$so" | awk '{print $NF}' | sort -u >"$work/so.txt"
nm -g --defined-only "$ar" | awk 'NF == 3 {print $3}' | sort -u >"$work/a.txt"
for f in so a; do
	if ! cmp -s "$work/api.txt" "$work/$f.txt"; then
		diff "$work/api.txt" "$work/$f.txt" | sed -n 's/^> /defined but not in the API: /p; s/^< /in the API but not defined: /p' | head -n 20
		fail "lib$f: the global symbols are not the header's OSH_API functions"
	fi
done
echo "ok: libonnxshape.so and libonnxshape.a define $(wc -l <"$work/api.txt") global symbols, all osh_*"

echo "install_test: all passed"
