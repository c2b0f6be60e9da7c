// record_truth.js: the shapes ONNX Runtime for node (onnxruntime-node 1.30) observes
// when it runs a model, for tests/real/gen_torch113.py (the truth of a real-network
// record). The model given is a probe: gen_torch113.py has made every value a node
// of the main graph produces a graph output, so one run yields all their shapes.
// Graph optimizations are off, so no value is folded away or fused before it is seen.
//
// usage: node record_truth.js ORT_DIR JOB.json OUT.json
// JOB.json: {"model": path, "runs": [{"feeds": [[name, kind, type, dims], ...]}, ...]}
//   kind "f": floats from a fixed-seed generator in [-1, 1); "i": token ids in
//   [0, 10); "m": all ones (a mask). type: an onnxruntime-node tensor type
//   ("float32", "int64", "int32", "bool", ...). dims: concrete sizes.
// OUT.json: {"runs": [{"shapes": {value: dims}} or {"error": message}, ...]}
// A value ONNX Runtime returns as something other than a tensor has no shape here.
'use strict';
const path = require('path');
const fs = require('fs');

const ort = require(path.join(path.resolve(process.argv[2]), 'node_modules', 'onnxruntime-node'));
const job = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));

// The same inputs on every regeneration, so a data-dependent size (a count of
// detections, of nonzero elements) is recorded the same way each time.
function generator(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const ARRAYS = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array,
  uint8: Uint8Array, int8: Int8Array, bool: Uint8Array,
};

function feed(spec, seed) {
  const [, kind, type, dims] = spec;
  const count = dims.reduce((a, b) => a * b, 1);
  const rand = generator(seed);
  const Arr = ARRAYS[type];
  if (!Arr) throw new Error(`input type ${type} is not supported`);
  const data = new Arr(count);
  const big = type === 'int64';
  for (let k = 0; k < count; k++) {
    let v;
    if (kind === 'm') v = 1;
    else if (kind === 'i') v = Math.floor(rand() * 10);
    else v = rand() * 2 - 1;
    data[k] = big ? BigInt(Math.trunc(v)) : v;
  }
  return new ort.Tensor(type, data, dims);
}

(async () => {
  const runs = [];
  let session;
  try {
    session = await ort.InferenceSession.create(job.model, {graphOptimizationLevel: 'disabled'});
  } catch (e) {
    const error = String(e && e.message ? e.message : e).split('\n')[0];
    fs.writeFileSync(process.argv[4], JSON.stringify({runs: job.runs.map(() => ({error}))}));
    return;
  }
  for (const run of job.runs) {
    try {
      const feeds = {};
      run.feeds.forEach((spec, k) => { feeds[spec[0]] = feed(spec, 12345 + 7919 * k); });
      const out = await session.run(feeds);
      const shapes = {};
      for (const [name, t] of Object.entries(out)) {
        if (t && t.dims !== undefined) shapes[name] = Array.from(t.dims, Number);
      }
      runs.push({shapes});
    } catch (e) {
      runs.push({error: String(e && e.message ? e.message : e).split('\n')[0]});
    }
  }
  fs.writeFileSync(process.argv[4], JSON.stringify({runs}));
})();
