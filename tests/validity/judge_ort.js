// judge_ort.js: ONNX Runtime's verdict on models, for the validity battery
// (run_battery.py): a model is valid when ONNX Runtime (CPU) loads it and runs it once.
//
// usage: node judge_ort.js ORT_DIR DIR_OR_LIST...
//        node judge_ort.js ORT_DIR -
// ORT_DIR holds node_modules/onnxruntime-node (tests/ort/setup.sh). Each DIR_OR_LIST is
// a directory (searched recursively for *.onnx, in sorted order), a .onnx file, or a
// text file naming one model per line. With '-' it serves: it reads one model path a
// line from stdin and answers each as it comes, until stdin ends (tests/validity/diff
// judges thousands of mutants in one process that way).
//
// Prints one JSON line per model, in order, as soon as it is judged:
//   {"file": path, "load": "ok"|"error", "run": "ok"|"error"|"skipped", "message": text}
// "skipped" only when the load failed. The inputs are ones of the types and shapes the
// session reports (symbolic dims are 1; a model without inputs runs with {}). An input
// whose declared element count no tensor can have (over 2^24 here) makes the run an
// error: nobody can feed that model. Exit status 0 unless the runtime itself cannot be
// loaded (2).
'use strict';
const fs = require('fs');
const path = require('path');

const [ortDir, ...sources] = process.argv.slice(2);
if (!ortDir || sources.length === 0) {
	console.error('usage: node judge_ort.js ORT_DIR DIR_OR_LIST...');
	process.exit(2);
}
let ort;
try {
	ort = require(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-node'));
} catch (e) {
	console.error('judge_ort.js: cannot load onnxruntime-node from ' + ortDir + ': ' + e.message);
	process.exit(2);
}

const MAX_FEED = 1 << 24;

function walk(dir, out) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) walk(p, out);
		else if (e.name.endsWith('.onnx')) out.push(p);
	}
}

function models() {
	const out = [];
	for (const s of sources) {
		if (fs.statSync(s).isDirectory()) walk(s, out);
		else if (s.endsWith('.onnx')) out.push(s);
		else out.push(...fs.readFileSync(s, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l));
	}
	return out;
}

const ARRAYS = {
	float32: Float32Array, float64: Float64Array, int8: Int8Array, uint8: Uint8Array, int16: Int16Array,
	uint16: Uint16Array, int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
	bool: Uint8Array,
};
const ONE_F16 = 0x3c00;

function ones(meta) {
	if (!meta.isTensor) throw new Error('input ' + meta.name + ' is not a tensor: the judge feeds tensors only');
	const dims = meta.shape.map((d) => (typeof d === 'number' ? d : 1));
	let n = 1;
	for (const d of dims) {
		n *= d;
		if (n > MAX_FEED) throw new Error('input ' + meta.name + ' declares ' + JSON.stringify(meta.shape) +
			': too many elements to feed');
	}
	if (meta.type === 'string') return new ort.Tensor('string', new Array(n).fill('a'), dims);
	const Type = ARRAYS[meta.type];
	if (meta.type === 'float16') return new ort.Tensor('float16', new Uint16Array(n).fill(ONE_F16), dims);
	if (!Type) throw new Error('input ' + meta.name + ' has type ' + meta.type + ', which the judge cannot feed');
	const data = new Type(n);
	data.fill(Type === BigInt64Array || Type === BigUint64Array ? 1n : 1);
	return new ort.Tensor(meta.type, data, dims);
}

function firstLine(e) {
	return String(e && e.message ? e.message : e).split('\n')[0].trim();
}

async function judge(file) {
	const r = { file, load: 'ok', run: 'skipped', message: '' };
	let session;
	try {
		session = await ort.InferenceSession.create(file, { logSeverityLevel: 4 });
	} catch (e) {
		r.load = 'error';
		r.message = firstLine(e);
		return r;
	}
	try {
		const feeds = {};
		const metas = session.inputMetadata || session.inputNames.map((name) => ({ name, isTensor: false }));
		for (const m of metas) feeds[m.name] = ones(m);
		await session.run(feeds);
		r.run = 'ok';
	} catch (e) {
		r.run = 'error';
		r.message = firstLine(e);
	}
	try {
		if (session.release) await session.release();
	} catch (e) {
		// a release failure says nothing about the model
	}
	return r;
}

async function serve() {
	const rl = require('readline').createInterface({ input: process.stdin, crlfDelay: Infinity });
	for await (const line of rl) {
		const file = line.trim();
		if (file) process.stdout.write(JSON.stringify(await judge(file)) + '\n');
	}
}

(async () => {
	if (sources.length === 1 && sources[0] === '-') return serve();
	for (const file of models()) process.stdout.write(JSON.stringify(await judge(file)) + '\n');
})().catch((e) => {
	console.error('judge_ort.js: ' + firstLine(e));
	process.exit(2);
});
