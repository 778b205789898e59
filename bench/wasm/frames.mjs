// The graphics benchmark's wasm side (bench/graphics.sh): each Amber script
// given run by the wasm build's `amber_run` export under Node (parse, assemble,
// draw, probes), timed; prints the median, as amber-frames does natively.
//
//   node bench/wasm/frames.mjs WASM LABEL FILE...
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [wasmPath, label, ...files] = process.argv.slice(2);
if (!wasmPath || files.length === 0) {
  console.error('usage: node frames.mjs WASM LABEL FILE...');
  process.exit(2);
}
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const { alloc, dealloc, amber_run, memory } = instance.exports;
const times = [];
let passed = 0;
for (const f of files) {
  const bytes = readFileSync(f);
  const ptr = alloc(bytes.length);
  new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
  const t = performance.now();
  const status = amber_run(ptr, bytes.length);
  times.push(performance.now() - t);
  dealloc(ptr, bytes.length);
  if (status === 0) passed++;
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const total = times.reduce((a, b) => a + b, 0);
console.log(`${label}: ${files.length} tests, ${passed} pass, median ${median.toFixed(1)} ms, total ${total.toFixed(0)} ms`);
