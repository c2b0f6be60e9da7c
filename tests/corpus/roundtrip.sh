#!/usr/bin/env bash
# Corpus round trip: every model of the ONNX backend node-test corpus must
#  - pass `onnxshape check --runtime spec` (exit 0: the corpus models are valid ONNX;
#    which of them ONNX Runtime runs is corpus/check's question),
#  - come back byte-identical from `onnxshape rewrite IN -o OUT`,
#  - and byte-identical when forced through protobuf-c's packer (--repack), which
#    proves the loader and writer lose nothing.
# usage: roundtrip.sh ONNXSHAPE CORPUS_DIR WORK_DIR
set -u
tool=$1 corpus=$2 work=$3
mkdir -p "$work"
out="$work/out.onnx"
n=0 fail=0
while IFS= read -r -d '' model; do
  n=$((n + 1))
  if ! "$tool" check --runtime spec "$model" > "$work/check.txt" 2>&1; then
    echo "FAIL check: $model"; cat "$work/check.txt"; fail=$((fail + 1)); continue
  fi
  for mode in copy repack; do
    rm -f "$out"
    flag=(); [ $mode = repack ] && flag=(--repack)
    if ! "$tool" rewrite "${flag[@]}" "$model" -o "$out"; then
      echo "FAIL rewrite ($mode): $model"; fail=$((fail + 1)); continue
    fi
    if ! cmp -s "$model" "$out"; then
      echo "FAIL not byte-identical ($mode): $model"; fail=$((fail + 1))
    fi
  done
done < <(find "$corpus" -name model.onnx -print0 | sort -z)
echo "corpus round trip: $n models, $fail failures"
[ "$n" -gt 900 ] || { echo "FAIL: expected the whole corpus (over 900 models), found $n"; exit 1; }
[ "$fail" -eq 0 ]
