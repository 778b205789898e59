// Times the interpreter compiled to wasm32 (bench/wasm's `interp_bench` export)
// under Node on the kernel of bench/interp-kernel.spvasm, and prints the wasm/native
// ratio against the native figure given (M instructions/s, from interp-bench).
//
//   node bench/wasm/interp.mjs WASM N GROUPS [NATIVE_MIPS] [LABEL]
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [wasmPath, n, groups, native, label = 'wasm'] = process.argv.slice(2);
if (!wasmPath || !n || !groups) {
  console.error('usage: node interp.mjs WASM N GROUPS [NATIVE_MIPS] [LABEL]');
  process.exit(2);
}
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
let best = Infinity;
let steps = 0n;
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  steps = instance.exports.interp_bench(Number(n), Number(groups));
  best = Math.min(best, performance.now() - t);
  if (steps === 0n) {
    console.error('interp_bench failed: the run erred or a sum was wrong');
    process.exit(1);
  }
}
const mips = Number(steps) / best / 1e3;
const ratio = native ? `, ${(Number(native) / mips).toFixed(2)}x the native time` : '';
console.log(`${label}: ${steps} instructions in ${best.toFixed(1)} ms (best of 5): ${mips.toFixed(1)} M instructions/s${ratio}`);
