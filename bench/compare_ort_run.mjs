// The timing half of bench/compare_ort.py: loads an .onnx attention model in npm's
// onnxruntime-node, runs it on X, and prints one line of JSON (median ms); the output Z goes to a file.
//
//   node bench/compare_ort_run.mjs ORT_DIR MODEL.onnx X.bin N D_MODEL THREADS REPEATS Z.bin
//
// ORT_DIR is the folder where `npm install --ignore-scripts onnxruntime-node` was run. X.bin and
// Z.bin are raw little-endian float32, row-major [1, N, D_MODEL] (what numpy's tofile/fromfile use).
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [ortDir, modelPath, xPath, nText, dText, threadsText, repeatsText, zPath] = process.argv.slice(2);
if (!zPath) {
    console.error("usage: node compare_ort_run.mjs ORT_DIR MODEL.onnx X.bin N D_MODEL THREADS REPEATS Z.bin");
    process.exit(2);
}
const [n, d_model, threads, repeats] = [nText, dText, threadsText, repeatsText].map(Number);

// The package lives in a scratch folder, not beside this script: resolve it from there.
const require = createRequire(path.join(path.resolve(ortDir), "package.json"));
const ort = require("onnxruntime-node");

// A copy, so that the Float32Array starts on a 4-byte boundary whatever Node's Buffer pool did.
const bytes = fs.readFileSync(xPath);
const X = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
if (X.length !== n * d_model) {
    console.error(`${xPath} holds ${X.length} floats, not ${n} × ${d_model}`);
    process.exit(2);
}

// One intra-op pool of THREADS threads, as qkv --threads uses; no parallel operators besides it.
const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ["cpu"],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
});
const feeds = { X: new ort.Tensor("float32", X, [1, n, d_model]) };

let Z = (await session.run(feeds)).Z;  // warm-up: the first run also plans the memory
const times = [];
for (let k = 0; k < Math.max(1, repeats); k++) {
    const t0 = process.hrtime.bigint();
    Z = (await session.run(feeds)).Z;
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const mid = times.length >> 1;
const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;

fs.writeFileSync(zPath, Buffer.from(Z.data.buffer, Z.data.byteOffset, Z.data.byteLength));
const version = require("onnxruntime-node/package.json").version;
console.log(JSON.stringify({ ms: median, runs_ms: times, onnxruntime_node: version, dims: Z.dims }));
