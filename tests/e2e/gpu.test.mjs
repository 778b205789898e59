// The GPU runner in the browser: the page's engine (pkg/, the wasm
// that www/dist bundles, built by ./x build with wgpu's WebGPU backend) runs
// modules on WebGPU in headless Chromium (--enable-unsafe-webgpu: SwiftShader's
// adapter), through our WGSL. In one page:
// * every gallery compute example runs on the interpreter (session.run) and
//   on WebGPU (session.runGpu) with the same buffers, byte for byte; the
//   other valid examples with a GLCompute entry point (the paper's figures,
//   the extensions) do the same, or are refused with a code, or (endless
//   loops) are not dispatched;
// * a module our lowering refuses answers the refusal code, and the
//   interpreter still runs it;
// * an endless loop is not dispatched: the step-budget error, no adapter;
// * in a Chromium without WebGPU, runGpu answers `noDevice` and the
//   interpreter still runs.
// Without WebGPU in this Chromium the first test fails and says so.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { root } from "./lib.mjs";
import { ENDLESS, INT64 } from "./modules.mjs";

const pkg = path.join(root, "pkg");
const gallery = path.join(root, "www/src/gallery");

/** The gallery's entries (id, category, targetEnv, valid) from its index, in
 *  the order tests/tests/gallery.rs reads them, with their texts. */
async function examples() {
  const index = await readFile(path.join(gallery, "index.ts"), "utf8");
  const list = [];
  const re = /id: "([^"]+)",[\s\S]*?category: "([^"]+)",[\s\S]*?targetEnv: "([^"]+)",\s*valid: (true|false)/g;
  for (const m of index.matchAll(re)) {
    const text = await readFile(path.join(gallery, "examples", `${m[1]}.spvasm`), "utf8");
    list.push({ id: m[1], category: m[2], targetEnv: m[3], valid: m[4] === "true", text });
  }
  return list;
}

// Requests that take each compute example through its interesting paths.
const INPUTS = {
  "compute-break-continue": [
    { buffers: { "0.0": "u32: 3 0 5 7 0 9 11 0 13 4294967295 17 19 23 29 31 37 0 0 0 0" } },
    { buffers: { "0.0": "seq:1,1,20" } },
  ],
  "compute-parallel-sum": [{ buffers: { "0.0": "seq:1,3,64", "0.1": "zeros:4" } }],
  // buf[0] % 4 picks the case: every case, and the default.
  "compute-switch-fallthrough": [0, 1, 2, 3, 6, 7].map((x) => ({ buffers: { "0.0": `u32: ${x}` } })),
};

// compute-switch-fallthrough by hand: case 0 falls into case 1 (1 + 10),
// case 2 into case 3 (100 + 1000); buf[0] % 4 == 1 and 3 add 10 and 1000.
const FALLTHROUGH = { 0: 11, 1: 10, 2: 1100, 3: 1000, 6: 1100, 7: 1000 };

let server, url, browser, page;

function launchChromium(webgpu) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync",
      ...(webgpu ? ["--enable-unsafe-webgpu"] : ["--disable-gpu"]),
    ],
  });
}

/** A page of `b` with the engine loaded (`globalThis.engine`). */
async function enginePage(b) {
  const p = await b.newPage();
  p.on("pageerror", (e) => console.log("page error:", String(e)));
  await p.goto(url);
  await p.evaluate(async () => {
    const m = await import("/pkg/spvlab_web.js");
    await m.default();
    globalThis.engine = m;
  });
  return p;
}

before(async () => {
  assert.ok(existsSync(path.join(pkg, "spvlab_web.js")), "pkg/ is missing: run ./x build first");
  server = createServer(async (req, res) => {
    const u = new URL(req.url, "http://127.0.0.1");
    if (u.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>spvlab gpu</title>");
      return;
    }
    const file = path.normalize(path.join(root, decodeURIComponent(u.pathname)));
    if (!file.startsWith(pkg + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      const type = file.endsWith(".wasm") ? "application/wasm" : "text/javascript";
      res.writeHead(200, { "content-type": type }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${server.address().port}/`;
  browser = await launchChromium(true);
  page = await enginePage(browser);
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Analyse `text` in the page and run it on the interpreter and on WebGPU;
 *  the WebGPU run's time from call to result, in ms. */
function both(text, targetEnv, request, on = page) {
  return on.evaluate(async ({ text, targetEnv, request }) => {
    const s = new globalThis.engine.Session();
    const report = s.analyze({ text, targetEnv });
    const interp = s.run(request);
    const t0 = performance.now();
    const gpu = await s.runGpu(request);
    const ms = performance.now() - t0;
    s.free();
    return { valid: report.valid, interp, gpu, ms };
  }, { text, targetEnv, request });
}

test("this Chromium has WebGPU (SwiftShader's adapter)", async () => {
  const info = await page.evaluate(async () => {
    if (!navigator.gpu) return null;
    const a = await navigator.gpu.requestAdapter();
    return a ? { ok: true, arch: a.info?.architecture ?? "", vendor: a.info?.vendor ?? "" } : null;
  });
  assert.ok(
    info,
    "WebGPU is missing in this Chromium: navigator.gpu.requestAdapter() gave no adapter. " +
      "The GPU tests need Chromium with --enable-unsafe-webgpu and its SwiftShader Vulkan (Debian's chromium ships it).",
  );
  console.log(`# WebGPU adapter: ${info.vendor} ${info.arch}`);
});

test("every gallery compute example gives the interpreter's buffers on WebGPU", async () => {
  const list = (await examples()).filter((e) => e.valid && /OpEntryPoint\s+GLCompute/.test(e.text));
  assert.ok(list.filter((e) => e.category === "compute").length >= 3, "the gallery's compute examples");
  let ran = 0;
  for (const e of list) {
    for (const request of INPUTS[e.id] ?? [{}]) {
      const r = await both(e.text, e.targetEnv, request);
      assert.ok(r.valid, `${e.id}: valid`);
      if (e.category !== "compute" && r.interp.error?.kind === "stepBudget") {
        // The paper's figures are shapes, not programs: some loop forever.
        // Then the GPU is not asked either.
        assert.equal(r.gpu.error?.kind, "stepBudget", `${e.id}: ${JSON.stringify(r.gpu.error)}`);
        assert.equal(r.gpu.adapter, undefined, `${e.id}: not dispatched`);
        console.log(`# ${e.id}: endless in the interpreter, not dispatched`);
        continue;
      }
      assert.ok(r.interp.ok, `${e.id}: the interpreter: ${JSON.stringify(r.interp.error)}`);
      if (r.gpu.error?.kind === "refused" && e.category !== "compute") {
        // Not a compute example: our lowering may refuse it, with a code.
        assert.match(r.gpu.error.code, /^wgsl\./, `${e.id}: ${r.gpu.error.message}`);
        console.log(`# ${e.id}: refused (${r.gpu.error.code})`);
        continue;
      }
      assert.ok(r.gpu.ok, `${e.id}: WebGPU: ${JSON.stringify(r.gpu.error)}`);
      assert.ok(r.gpu.adapter, `${e.id}: the adapter is named`);
      assert.equal(r.gpu.buffers.length, r.interp.buffers.length, e.id);
      for (const [i, b] of r.interp.buffers.entries()) {
        const g = r.gpu.buffers[i];
        assert.deepEqual([g.set, g.binding], [b.set, b.binding], e.id);
        assert.deepEqual(g.bytes, b.bytes, `${e.id}: buffer ${b.set}.${b.binding} (${b.name})`);
        assert.deepEqual(g.value, b.value, `${e.id}: typed output of ${b.set}.${b.binding}`);
      }
      if (e.id === "compute-switch-fallthrough") {
        const x = Number(request.buffers["0.0"].split(" ")[1]);
        assert.equal(r.gpu.buffers[0].bytes[0] | (r.gpu.buffers[0].bytes[1] << 8), FALLTHROUGH[x], `buf[0] = ${x}`);
      }
      ran++;
      console.log(`# ${e.id}: WebGPU = interpreter (${r.gpu.adapter}), ${r.ms.toFixed(1)} ms from runGpu to result`);
    }
  }
  assert.ok(ran >= 3, `ran ${ran}`);
});

test("the parallel sum's total is the sum of its inputs", async () => {
  const e = (await examples()).find((x) => x.id === "compute-parallel-sum");
  const r = await both(e.text, e.targetEnv, INPUTS[e.id][0]);
  assert.ok(r.gpu.ok, JSON.stringify(r.gpu.error));
  // seq:1,3,64: 1 + 4 + ... + 190 = 64 * (1 + 190) / 2.
  const words = (b) => Array.from({ length: b.length / 4 }, (_, i) => b[4 * i] | (b[4 * i + 1] << 8) | (b[4 * i + 2] << 16) | (b[4 * i + 3] << 24));
  const all = r.gpu.buffers.flatMap((b) => words(b.bytes));
  assert.ok(all.includes(64 * 191 / 2), `the total 6112 in ${all}`);
  // The time from runGpu to its result, the device kept: median of 9
  // (reported, not checked: the machine's load decides it).
  const ms = [];
  for (let i = 0; i < 9; i++) ms.push((await both(e.text, e.targetEnv, INPUTS[e.id][0])).ms);
  ms.sort((a, b) => a - b);
  console.log(`# compute-parallel-sum on WebGPU, runGpu to result: median ${ms[4].toFixed(1)} ms, min ${ms[0].toFixed(1)}, max ${ms[8].toFixed(1)} (of 9, device kept)`);
});

test("runGpu works in a Web Worker too (where the page's engine runs)", async () => {
  const e = (await examples()).find((x) => x.id === "compute-break-continue");
  const r = await page.evaluate(async ({ text, targetEnv, request }) => {
    const src = `const ready = import("${location.origin}/pkg/spvlab_web.js").then(async (m) => { await m.default(); return m; });
self.onmessage = async (ev) => {
  const m = await ready;
  const s = new m.Session();
  s.analyze({ text: ev.data.text, targetEnv: ev.data.targetEnv });
  const interp = s.run(ev.data.request);
  const gpu = await s.runGpu(ev.data.request);
  self.postMessage({ interp, gpu });
};`;
    const w = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })), { type: "module" });
    const answer = new Promise((resolve, reject) => {
      w.onmessage = (ev) => resolve(ev.data);
      w.onerror = (ev) => reject(new Error(ev.message));
    });
    w.postMessage({ text, targetEnv, request });
    const a = await answer;
    w.terminate();
    return a;
  }, { text: e.text, targetEnv: e.targetEnv, request: INPUTS[e.id][0] });
  assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
  assert.ok(r.gpu.ok, JSON.stringify(r.gpu.error));
  assert.deepEqual(r.gpu.buffers.map((b) => b.bytes), r.interp.buffers.map((b) => b.bytes));
});

test("a module the lowering refuses answers its code, and the interpreter still runs it", async () => {
  const r = await both(INT64, "vulkan1.3", { buffers: { "0.0": "u64: 5 7" } });
  assert.ok(r.valid);
  assert.equal(r.gpu.ok, false);
  assert.equal(r.gpu.error.kind, "refused", JSON.stringify(r.gpu.error));
  assert.equal(r.gpu.error.code, "wgsl.int64", r.gpu.error.message);
  assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
  const b = r.interp.buffers[0].bytes;
  assert.deepEqual(b.slice(0, 8), [6, 0, 0, 0, 1, 0, 0, 0], "5 + 0x100000001");
});

test("an endless loop is not dispatched: the step budget", async () => {
  const r = await both(ENDLESS, "vulkan1.3", { maxSteps: 20000 });
  assert.ok(r.valid);
  assert.equal(r.interp.error?.kind, "stepBudget", JSON.stringify(r.interp.error));
  assert.equal(r.gpu.ok, false);
  assert.equal(r.gpu.error.kind, "stepBudget", JSON.stringify(r.gpu.error));
  assert.match(r.gpu.error.message, /^not dispatched/);
  assert.equal(r.gpu.adapter, undefined, "no GPU was asked");
  assert.ok(r.gpu.error.line > 0, "located in the text");
});

test("without WebGPU, runGpu answers noDevice and the interpreter still runs", async () => {
  const b = await launchChromium(false);
  try {
    const p = await enginePage(b);
    const e = (await examples()).find((x) => x.id === "compute-parallel-sum");
    const r = await both(e.text, e.targetEnv, INPUTS[e.id][0], p);
    assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
    assert.equal(r.gpu.ok, false);
    assert.equal(r.gpu.error.kind, "noDevice", JSON.stringify(r.gpu.error));
    console.log(`# without WebGPU: ${r.gpu.error.message}`);
  } finally {
    await b.close();
  }
});
