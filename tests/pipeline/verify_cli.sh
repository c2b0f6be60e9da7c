#!/bin/sh
# verify_cli.sh TOOL MODELS WORK: the onnxshape tool over every fixture under MODELS
# (check; infer; rewrite, also with --explicit-broadcast and --implicit-broadcast)
# with ONNXSHAPE_VERIFY_IR=1, which has the library check the IR after every stage
# of its pipeline (src/passes/verify.c). Fails on any "internal error": what the
# checker found, or a rewrite that made a malformed model. WORK holds the outputs.
set -u
tool=$1 models=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 2
ONNXSHAPE_VERIFY_IR=1
export ONNXSHAPE_VERIFY_IR
log=$work/stderr.log
"$tool" check -j2 "$models" >/dev/null 2>"$log"
find "$models" -name '*.onnx' | sort >"$work/models"
while IFS= read -r f; do
	"$tool" infer "$f" -o "$work/out.onnx" >/dev/null 2>>"$log"
	"$tool" rewrite "$f" -o "$work/out.onnx" >/dev/null 2>>"$log"
	"$tool" rewrite --explicit-broadcast "$f" -o "$work/out.onnx" >/dev/null 2>>"$log"
	"$tool" rewrite --implicit-broadcast "$f" -o "$work/out.onnx" >/dev/null 2>>"$log"
done <"$work/models"
if grep "internal error" "$log"; then
	echo "verify_cli: internal errors (above); all stderr in $log"
	exit 1
fi
echo "verify_cli: $(wc -l <"$work/models") models checked, inferred and rewritten three ways with the IR checked after every stage: no internal error"
