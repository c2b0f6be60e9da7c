#!/usr/bin/env bash
# demo.sh: what `make demo` shows: onnxshape run on the example models beside this
# script (made by gen_examples.py).
#
# usage: tests/models/examples/demo.sh path/to/onnxshape
#
# Some examples are wrong on purpose (a broadcast bug, Paddle and legacy broadcasting
# to rewrite), so `check` may exit non-zero: the demo prints its exit status instead of
# failing. The demo fails only when the tool cannot be run or a rewrite does not come
# back byte-identical.
set -u

if [ $# -ne 1 ]; then
  echo "usage: $0 path/to/onnxshape" >&2
  exit 2
fi
# The steps run inside the examples directory (short names in the output), so make
# the tool's path absolute first.
case $1 in
  */*) tool=$(cd "$(dirname "$1")" 2>/dev/null && pwd)/$(basename "$1") ;;
  *) tool=$(command -v "$1") ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$tool" ] || [ -d "$tool" ]; then
  echo "demo: $1 is not an executable (build first: make build)" >&2
  exit 2
fi

step() { printf '\n==> %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/onnxshape-demo.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

step "What a model holds: onnxshape print"
show "onnxshape print cnn_residual.onnx paddle_elementwise_add.onnx"
(cd "$here" && "$tool" print cnn_residual.onnx paddle_elementwise_add.onnx) || {
  echo "demo: print failed" >&2
  exit 1
}

step "Validate every example: onnxshape check (exit 0 clean, 1 findings, 2 malformed)"
show "onnxshape check ."
(cd "$here" && "$tool" check .)
echo "(check exit status: $?)"

step "Write a model back: onnxshape rewrite, then cmp with the input"
show "onnxshape rewrite cnn_residual.onnx -o $work/cnn_residual.onnx"
if ! "$tool" rewrite "$here/cnn_residual.onnx" -o "$work/cnn_residual.onnx"; then
  echo "demo: rewrite failed" >&2
  exit 1
fi
show "cmp cnn_residual.onnx $work/cnn_residual.onnx"
if cmp "$here/cnn_residual.onnx" "$work/cnn_residual.onnx"; then
  echo "byte-identical: a model with nothing to rewrite comes back unchanged"
else
  echo "demo: the rewritten model differs from the input" >&2
  exit 1
fi

step "Rewrite Paddle-style axis broadcasting into standard ONNX: onnxshape rewrite"
show "onnxshape rewrite --dry-run paddle_elementwise_add.onnx"
(cd "$here" && "$tool" rewrite --dry-run paddle_elementwise_add.onnx) || {
  echo "demo: rewrite --dry-run failed" >&2
  exit 1
}
show "onnxshape rewrite paddle_elementwise_add.onnx -o $work/fixed.onnx && onnxshape print $work/fixed.onnx"
if ! "$tool" rewrite "$here/paddle_elementwise_add.onnx" -o "$work/fixed.onnx" || ! "$tool" print "$work/fixed.onnx"; then
  echo "demo: rewrite failed" >&2
  exit 1
fi
show "onnxshape rewrite legacy_add_broadcast.onnx -o $work/legacy7.onnx   (opset 6 broadcast=1)"
"$tool" rewrite "$here/legacy_add_broadcast.onnx" -o "$work/legacy7.onnx" || {
  echo "demo: rewrite of the legacy model failed" >&2
  exit 1
}

step "Sizes computed from symbols: a U-Net skip connection that breaks for some image sizes"
show "onnxshape check unet_skip.onnx"
(cd "$here" && "$tool" check unet_skip.onnx)
show "onnxshape check --assume H=225 --assume W=224 unet_skip.onnx"
(cd "$here" && "$tool" check --assume H=225 --assume W=224 unet_skip.onnx)
echo "(check exit status: $?)"

step "Infer every shape and write it into the model: onnxshape infer"
show "onnxshape infer transformer_block.onnx -o $work/annotated.onnx && onnxshape print $work/annotated.onnx"
if ! "$tool" infer "$here/transformer_block.onnx" -o "$work/annotated.onnx" || ! "$tool" print "$work/annotated.onnx"; then
  echo "demo: infer failed" >&2
  exit 1
fi

step "Done"
