// probe_kernels.js: asks ONNX Runtime's CPU provider which one-node models it can
// load, for probe_kernels.py (the generator of src/core/schema/kernel_table.c and
// the test that it is up to date).
//
// usage: node probe_kernels.js ORT_DIR MODELS.bin [CONCURRENCY]
// MODELS.bin: the models one after another, each a little-endian uint32 byte count
// then an onnx.ModelProto. Prints one line per model, in order: "ok" when a session
// was created, else "E " and the first line of the runtime's message. Sessions are
// only created, never run: a kernel is looked up (and constructed) at creation, and a
// probe's inputs are not meant to be run. One process for every probe, a few
// creations in flight at once: a creation waits on the runtime's own thread more than
// it computes. Exit status 0 unless the runtime cannot be loaded (2).
'use strict';
const fs = require('fs');
const path = require('path');

const [ortDir, file, conc] = process.argv.slice(2);
if (!ortDir || !file) {
	console.error('usage: node probe_kernels.js ORT_DIR MODELS.bin [CONCURRENCY]');
	process.exit(2);
}
let ort;
try {
	ort = require(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-node'));
} catch (e) {
	console.error('probe_kernels.js: cannot load onnxruntime-node from ' + ortDir + ': ' + e.message);
	process.exit(2);
}

const buf = fs.readFileSync(file);
const models = [];
for (let off = 0; off < buf.length;) {
	const n = buf.readUInt32LE(off);
	off += 4;
	models.push(buf.subarray(off, off + n));
	off += n;
}

// No optimizer: a fusion or constant folding would replace the node probed. One
// thread per session: the thread pools are most of a creation's cost.
const options = {
	logSeverityLevel: 4, graphOptimizationLevel: 'disabled', executionProviders: ['cpu'],
	intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', enableCpuMemArena: false,
};

(async () => {
	const out = new Array(models.length);
	let next = 0;
	async function worker() {
		while (next < models.length) {
			const i = next++;
			try {
				const s = await ort.InferenceSession.create(models[i], options);
				out[i] = 'ok';
				await s.release();
			} catch (e) {
				out[i] = 'E ' + String(e && e.message ? e.message : e).split('\n')[0];
			}
		}
	}
	await Promise.all(Array.from({ length: Math.max(1, Number(conc) || 4) }, worker));
	process.stdout.write(out.join('\n') + '\n');
})();
