// run_fold_ort.js: ONNX Runtime's side of run_fold_proof.py, in one process.
//
// usage: node run_fold_ort.js NODE_MODULES_DIR JOBS.json
// JOBS.json is a list of jobs of two kinds:
//   {model, feeds: [{name, dtype, dims, file}], outputs: [name, ...], out: DIR}: runs the
//     model with graph optimizations off; each output is written to DIR/<k>.bin (raw
//     little-endian bytes) with DIR/<k>.json ({dtype, dims}) beside it, k its index;
//   {optimize: model, to: path}: has ONNX Runtime's basic level (constant folding and
//     the other rewrites that keep dynamic shapes) write the model it would run to
//     `to` (optimizedModelFilePath).
// Each job says "RESULT <index> ok" or "RESULT <index> error <message>" on stdout;
// the others still run. Exit status 0 unless the runtime cannot be loaded.
'use strict';
const fs = require('fs');
const path = require('path');

const [modulesDir, jobsFile] = process.argv.slice(2);
let ort;
try {
	ort = require(path.join(path.resolve(modulesDir), 'onnxruntime-node'));
} catch (e) {
	console.error('run_fold_ort.js: cannot load onnxruntime-node from ' + modulesDir + ': ' + e.message);
	process.exit(2);
}

const ARRAYS = {
	float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array,
	int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
};

function readTensor(feed) {
	const buf = fs.readFileSync(feed.file);
	const Type = ARRAYS[feed.dtype];
	const bytes = new Uint8Array(buf.length);
	bytes.set(buf);
	const data = new Type(bytes.buffer, 0, buf.length / Type.BYTES_PER_ELEMENT);
	return new ort.Tensor(feed.dtype, data, feed.dims);
}

async function run(job) {
	const opts = { logSeverityLevel: 3, graphOptimizationLevel: 'disabled' };
	const session = await ort.InferenceSession.create(job.model, opts);
	const feeds = {};
	for (const f of job.feeds) feeds[f.name] = readTensor(f);
	const results = await session.run(feeds);
	fs.mkdirSync(job.out, { recursive: true });
	job.outputs.forEach((name, k) => {
		const t = results[name];
		if (!t) throw new Error('no output ' + name);
		const d = t.data;
		const bytes = typeof d === 'object' && d.buffer ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.alloc(0);
		fs.writeFileSync(path.join(job.out, k + '.bin'), bytes);
		fs.writeFileSync(path.join(job.out, k + '.json'), JSON.stringify({ dtype: t.type, dims: t.dims }));
	});
	if (session.release) await session.release();
}

async function optimize(job) {
	const opts = { logSeverityLevel: 3, graphOptimizationLevel: 'basic', optimizedModelFilePath: job.to };
	const session = await ort.InferenceSession.create(job.optimize, opts);
	if (session.release) await session.release();
}

async function main() {
	const jobs = JSON.parse(fs.readFileSync(jobsFile, 'utf8'));
	for (let i = 0; i < jobs.length; i++) {
		try {
			await (jobs[i].optimize ? optimize(jobs[i]) : run(jobs[i]));
			console.log('RESULT ' + i + ' ok');
		} catch (e) {
			console.log('RESULT ' + i + ' error ' + String(e.message).split('\n')[0]);
		}
	}
}

main().catch((e) => {
	console.error('run_fold_ort.js: ' + e.message);
	process.exit(2);
});
