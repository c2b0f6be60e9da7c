// run_ort.js: runs models on ONNX Runtime for opset_proof.py.
//
// usage: node run_ort.js NODE_MODULES_DIR JOBS.json
// JOBS.json is a list of {model, feeds: [{name, dtype, dims, file}], out}: every feed
// file holds the tensor's raw little-endian bytes. Every output is written to
// out + "." + index (raw bytes) with its {name, dtype, dims} listed in out + ".json".
// Prints "RESULT <index> ok" or "RESULT <index> error <message>" per job; exit status 0
// unless the runtime itself cannot be loaded.
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
	const bytes = new Uint8Array(buf.length);
	bytes.set(buf);
	const data = new Type(bytes.buffer, 0, buf.length / Type.BYTES_PER_ELEMENT);
	return new ort.Tensor(feed.dtype, data, feed.dims);
}

async function main() {
	const jobs = JSON.parse(fs.readFileSync(jobsFile, 'utf8'));
	const opts = { logSeverityLevel: 3, graphOptimizationLevel: 'disabled' };
	for (let i = 0; i < jobs.length; i++) {
		const job = jobs[i];
		try {
			const session = await ort.InferenceSession.create(job.model, opts);
			const feeds = {};
			for (const f of job.feeds) feeds[f.name] = readTensor(f);
			const results = await session.run(feeds);
			const meta = [];
			let k = 0;
			for (const name of session.outputNames) {
				const t = results[name];
				const data = t.data;
				if (t.type === 'string') {
					fs.writeFileSync(job.out + '.' + k, JSON.stringify(Array.from(data)));
				} else {
					fs.writeFileSync(job.out + '.' + k, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
				}
				meta.push({ name, dtype: t.type, dims: t.dims });
				k++;
			}
			fs.writeFileSync(job.out + '.json', JSON.stringify(meta));
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
