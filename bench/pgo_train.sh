#!/bin/sh
# pgo_train.sh: the runs the profile-guided build is optimised for (CMakeLists.txt,
# ONNXSHAPE_PGO). Run by the build with the instrumented tool; every run writes its
# counts into the profile directory, whatever the run's exit status.
#
# usage: bench/pgo_train.sh TOOL SOURCE_DIR WORK_DIR
#
# What it runs: check, infer and rewrite (plain, --fold-shapes, --target-opset 13 and
# 21) on the test fixtures (every kind of model and diagnostic, all small), and,
# where Python's onnx is installed (make deps), on a transformer-like and a CNN-like
# model of 1k nodes (bench/gen_models.py, seeded), with weights inline (1.4 MB: the
# two-thread loader of big files) and external: the hot loops of real models.
# Without onnx the fixtures alone are the training.
set -u
tool=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
models=
for py in /usr/bin/python3 python3; do
	if "$py" -c "import onnx" >/dev/null 2>&1 &&
		"$py" "$src/bench/gen_models.py" "$work" transformer:1k cnn:1k >/dev/null 2>&1; then
		for f in transformer-1k cnn-1k; do
			models="$models $work/$f.onnx $work/$f-ext/model.onnx"
		done
		break
	fi
done
for f in $models "$src"/tests/models/*/*.onnx; do
	"$tool" check "$f"
	"$tool" infer "$f" -o "$work/out.onnx"
	"$tool" rewrite "$f" -o "$work/out.onnx"
	rm -f "$work/out.onnx"
done >/dev/null 2>&1
# The rewrites that edit: the fold, and the opset conversion both ways (the edit, the
# re-index and the inference after it). The 1k-node transformer has shape arithmetic
# to fold and LayerNormalization to decompose; the fixtures, the rest.
for f in $models "$src"/tests/models/*/*.onnx; do
	"$tool" rewrite --fold-shapes "$f" -o "$work/out.onnx"
	"$tool" rewrite --target-opset 13 "$f" -o "$work/out.onnx"
	"$tool" rewrite --target-opset 21 "$f" -o "$work/out.onnx"
	rm -f "$work/out.onnx"
done >/dev/null 2>&1
# Several files in one process, on two threads.
"$tool" check -j 2 "$src"/tests/models/good "$src"/tests/models/lint >/dev/null 2>&1
rm -rf "$work"
exit 0
