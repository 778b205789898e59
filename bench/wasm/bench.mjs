// Times spvlab's assembler and disassembler compiled to wasm32 (bench/wasm) under Node,
// on the same files as the native library bench, and prints the wasm/native ratio.
//
//   node bench/wasm/bench.mjs WASM TEXT BINARY [NATIVE_JSON] [LABEL]
//
// TEXT is the big module's assembly, BINARY the reference spirv-as output for it;
// NATIVE_JSON is what `cargo bench -p spvlab-fuzz --bench codec` wrote
// (target/bench/native.json). BENCH_RUNS sets N (best of N, default 10).
import { readFileSync, existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [wasmPath, textPath, binPath, nativePath, label = 'wasm'] = process.argv.slice(2);
if (!wasmPath || !textPath || !binPath) {
  console.error('usage: node bench.mjs WASM TEXT BINARY [NATIVE_JSON] [LABEL]');
  process.exit(2);
}
const runs = Number(process.env.BENCH_RUNS || 10);
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const e = instance.exports;

function put(bytes) {
  const p = e.alloc(bytes.length);
  new Uint8Array(e.memory.buffer, p, bytes.length).set(bytes);
  return p;
}
function result() {
  // Copy out: memory may grow (and detach views) on the next call.
  return new Uint8Array(e.memory.buffer, e.result_ptr(), e.result_len()).slice();
}
function fnv64(bytes) {
  let h = 0xcbf29ce484222325n;
  const p = 0x100000001b3n, m = 0xffffffffffffffffn;
  for (const b of bytes) { h ^= BigInt(b); h = (h * p) & m; }
  return h.toString(16).padStart(16, '0');
}
function bestOf(f) {
  let best = Infinity, status = -1;
  for (let i = 0; i < Math.max(1, runs); i++) {
    const t = performance.now();
    status = f();
    best = Math.min(best, performance.now() - t);
  }
  return { ms: best, status };
}

const text = readFileSync(textPath);
const bin = readFileSync(binPath);
const tp = put(text), bp = put(bin);
// spv1.6 is index 6 in the TARGET_ENVS table (the default, as in the native bench).
const asm = bestOf(() => e.assemble(tp, text.length, 6));
const asmOut = result();
const dis = bestOf(() => e.disassemble(bp, bin.length));
const disOut = result();
e.dealloc(tp, text.length);
e.dealloc(bp, bin.length);

const native = nativePath && existsSync(nativePath) ? JSON.parse(readFileSync(nativePath, 'utf8')) : null;
const dec = new TextDecoder();
console.log(`spvlab ${label} timings (Node ${process.version}), best of ${runs}:`);
for (const [name, r, out, nms, nok, nfnv] of [
  ['assemble', asm, asmOut, native?.assemble_ms, native?.assemble_ok, native?.assemble_fnv],
  ['disassemble', dis, disOut, native?.disassemble_ms, native?.disassemble_ok, native?.disassemble_fnv],
]) {
  if (r.status !== 0) {
    console.log(`  ${name.padEnd(11)} ${r.ms.toFixed(2).padStart(9)} ms  FAILED ${dec.decode(out)} (spvlab numbers pending)`);
    continue;
  }
  let line = `  ${name.padEnd(11)} ${r.ms.toFixed(2).padStart(9)} ms`;
  if (native && nok) {
    const same = fnv64(out) === nfnv ? 'same output as native' : 'OUTPUT DIFFERS FROM NATIVE';
    line += `  native ${nms.toFixed(2)} ms  ratio wasm/native ${(r.ms / nms).toFixed(2)}x (target <= 2x; ${same})`;
  } else {
    line += '  (no native timing to compare)';
  }
  console.log(line);
}
