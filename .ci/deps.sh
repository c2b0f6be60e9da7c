#!/usr/bin/env bash
# .ci/deps.sh: installs the Debian packages onnxshape needs, only those missing.
#
# usage: .ci/deps.sh [build|test]   (default: test, which includes build)
#
# build: cmake, a C compiler (gcc, libc6-dev), pkg-config, protobuf-c (runtime and
# protoc-c), and the ONNX schema (onnx-ml.proto), which comes with python3-onnx: what
# `make build` and `make install` need. test: also Criterion, python3-onnx and numpy as
# an oracle, node with npm to install ONNX Runtime (onnxruntime-node) as the other
# oracle, and chromium (driven headless over its DevTools protocol with
# python3-websocket, text in DejaVu Sans Mono) to render `check --format html`
# (tests/html), and pip, venv and build to make and install the wheel offline
# (tests/python/wheel_test.sh; setuptools and wheel too, their usual companions,
# though the in-tree backend needs neither), mypy to type-check the package
# (ctest python/mypy), and jsonschema to hold the JSON reports to docs/schemas
# (tests/unit/check_schemas.py).
set -euo pipefail

what=${1:-test}
case $what in
build | test) ;;
*) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac
packages=(cmake make gcc libc6-dev pkg-config libprotobuf-c-dev protobuf-c-compiler python3-onnx)
if [ "$what" = test ]; then
  packages+=(libcriterion-dev python3-numpy chromium python3-websocket fonts-dejavu-core
    python3-pip python3-venv python3-build python3-setuptools python3-wheel python3-mypy python3-jsonschema)
  # node and npm: from Debian unless the machine already has them (e.g. a newer node).
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "onnxshape: installing missing packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
