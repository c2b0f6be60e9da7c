// run_ort.js: runs models on ONNX Runtime, one process for a whole list, for the
// proofs that compare a rewritten or converted model with its original
// (tests/rewrite/run_rewrite_proof.py, tests/opset/opset_proof.py, tests/explicit/*,
// tests/python/test_ir3_ort.py).
//
// usage: node run_ort.js NODE_MODULES_DIR JOBS.json
// JOBS.json is a list of {model, feeds: [{name, dtype, dims, file}], ...}: every feed
// file holds the tensor's raw little-endian bytes. The outputs are written one of two
// ways, as the job asks:
//   outputs: [{name, file}]  each named output to its file (raw bytes), with a JSON
//                            beside it (file + ".json": {dtype, dims});
//   out: PATH                every output of the session, in order, to PATH + "." +
//                            index (raw bytes; a string tensor as a JSON list), with
//                            their {name, dtype, dims} listed in PATH + ".json".
// Prints "RESULT <index> ok" or "RESULT <index> error <message>" per job, and the
// others still run. Exit status 0 unless the runtime itself cannot be loaded.
'use strict';
const fs = require('fs');
const path = require('path');

const [modulesDir, jobsFile] = process.argv.slice(2);
let ort;
try {
	ort = require(path.join(path.resolve(modulesDir), 'onnxruntime-node'));
} catch (e) {
	console.error('run_ort.js: cannot load onnxruntime-node from ' + modulesDir + ': ' + e.message);
	process.exit(2);
}

const ARRAYS = {
	float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array, uint8: Uint8Array,
	int16: Int16Array, uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array,
	uint64: BigUint64Array, bool: Uint8Array,
};

function readTensor(feed) {
	const buf = fs.readFileSync(feed.file);
	const Type = ARRAYS[feed.dtype];
	// Copy into an aligned buffer: typed arrays need their element alignment.
	const bytes = new Uint8Array(buf.length);
	bytes.set(buf);
	const data = new Type(bytes.buffer, 0, buf.length / Type.BYTES_PER_ELEMENT);
	return new ort.Tensor(feed.dtype, data, feed.dims);
}

function rawBytes(data) {
	return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

// The named outputs, each to its own file.
function writeNamed(job, results) {
	for (const o of job.outputs) {
		const t = results[o.name];
		if (!t) throw new Error('no output ' + o.name);
		fs.writeFileSync(o.file, rawBytes(t.data));
		fs.writeFileSync(o.file + '.json', JSON.stringify({ dtype: t.type, dims: t.dims }));
	}
}

// Every output of the session, by index.
function writeAll(job, session, results) {
	const meta = [];
	let k = 0;
	for (const name of session.outputNames) {
		const t = results[name];
		const data = t.data;
		if (t.type === 'string') fs.writeFileSync(job.out + '.' + k, JSON.stringify(Array.from(data)));
		else fs.writeFileSync(job.out + '.' + k, rawBytes(data));
		meta.push({ name, dtype: t.type, dims: t.dims });
		k++;
	}
	fs.writeFileSync(job.out + '.json', JSON.stringify(meta));
}

async function main() {
	const jobs = JSON.parse(fs.readFileSync(jobsFile, 'utf8'));
	// Quiet: ONNX Runtime's warnings (old opsets, unused initializers) are not results.
	const opts = { logSeverityLevel: 3, graphOptimizationLevel: 'disabled' };
	for (let i = 0; i < jobs.length; i++) {
		const job = jobs[i];
		try {
			const session = await ort.InferenceSession.create(job.model, opts);
			const feeds = {};
			for (const f of job.feeds) feeds[f.name] = readTensor(f);
			const results = await session.run(feeds);
			if (job.outputs) writeNamed(job, results);
			else writeAll(job, session, results);
			if (session.release) await session.release();
			console.log('RESULT ' + i + ' ok');
		} catch (e) {
			console.log('RESULT ' + i + ' error ' + String(e.message).split('\n')[0]);
		}
	}
}

main().catch((e) => {
	console.error('run_ort.js: ' + e.message);
	process.exit(2);
});
