// The page's performance targets, measured in Chromium (not a test: run with
// `node tests/e2e/bench.mjs` after ./x build):
//  * edit to diagnostics on a 1,000-line module (keystroke to squiggle and
//    Problems entry painted: the worker's analysis, the report's transfer and
//    the page's rendering);
//  * first load to interactive from localhost (navigation start to the first
//    analysis shown), in fresh contexts (no cache, no service worker);
//  * transfer size: the gzip sizes of the files of www/dist, and of the wasm;
//  * Run to results (the Run panel) on a gallery compute example,
//    in a Chromium with WebGPU (--enable-unsafe-webgpu: SwiftShader): from
//    the click on Run to the interpreter's results painted, and to WebGPU's.
import { readFile } from "node:fs/promises";
import { chromium } from "playwright-core";
import path from "node:path";
import { serveDist, launch, root, distGzipSizes } from "./lib.mjs";

const RUNS = Number(process.env.RUNS ?? 20);
const TOGGLES = Number(process.env.TOGGLES ?? 10);
const RUN_RUNS = Number(process.env.RUN_RUNS ?? 15);
const RUN_EXAMPLE = process.env.RUN_EXAMPLE ?? "compute-parallel-sum";

/** Run to results on the gallery example `id`: a warm-up run (its WebGPU
 *  time includes making the device), then `RUN_RUNS` runs, each timed in the
 *  page from the click to the interpreter's column painted, and to the
 *  run's end (WebGPU's results painted). */
async function runBench(url, id) {
  const index = await readFile(path.join(root, "www/src/gallery/index.ts"), "utf8");
  const m = new RegExp(`id: "${id}",[\\s\\S]*?targetEnv: "([^"]+)"`).exec(index);
  if (!m) throw new Error(`no gallery example ${id}`);
  const text = await readFile(path.join(root, "www/src/gallery/examples", `${id}.spvasm`), "utf8");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--enable-unsafe-webgpu"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector("body[data-ready='true']");
    await page.locator("#tab-run").click();
    await page.selectOption("#target-env", m[1]);
    await page.evaluate((t) => window.spvlab.editor.setText(t), text);
    await page.waitForFunction(() => {
      const s = window.spvlab.store.get();
      return s.docVersion === s.reportVersion && document.getElementById("panel-run").dataset.reflected === String(s.reportVersion);
    });
    const one = () =>
      page.evaluate(async () => {
        const root = document.getElementById("panel-run");
        const runs = Number(root.dataset.runs ?? 0);
        const t0 = performance.now();
        let interp;
        const painted = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
        const done = new Promise((res) => {
          const check = () => {
            if (interp === undefined && root.querySelector('.run-backend[data-backend="interp"]:not([data-state="pending"])')) interp = performance.now() - t0;
            if (Number(root.dataset.runs ?? 0) > runs) {
              obs.disconnect();
              res(undefined);
            }
          };
          const obs = new MutationObserver(check);
          obs.observe(root, { subtree: true, childList: true, attributes: true });
        });
        document.getElementById("run-btn").click();
        await done;
        await painted();
        const all = performance.now() - t0;
        const o = window.spvlab.run.last();
        return { interp, gpu: all, ok: Boolean(o.interp?.ok && o.gpu?.ok), error: JSON.stringify([o.interp?.error, o.gpu?.error]), adapter: o.gpu?.adapter, interpMs: o.interpMs, gpuMs: o.gpuMs };
      });
    const first = await one();
    if (!first.ok) throw new Error(`${id}: the run failed: ${first.error}`);
    const rs = [];
    for (let i = 0; i < RUN_RUNS; i++) {
      const r = await one();
      if (!r.ok) throw new Error(`${id}: run ${i} failed: ${r.error}`);
      rs.push(r);
    }
    await context.close();
    return { first, rs };
  } finally {
    await browser.close();
  }
}

/** A structured function of about `lines` lines: a chain of if-then blocks with phis. */
export function bigModule(lines = 1000) {
  const head = [
    "OpCapability Shader",
    "OpMemoryModel Logical GLSL450",
    'OpEntryPoint GLCompute %main "main"',
    "OpExecutionMode %main LocalSize 1 1 1",
    "%void = OpTypeVoid",
    "%fn = OpTypeFunction %void",
    "%int = OpTypeInt 32 1",
    "%bool = OpTypeBool",
    "%one = OpConstant %int 1",
    "%n = OpConstant %int 100",
    "%main = OpFunction %void None %fn",
    "%b0 = OpLabel",
  ];
  const body = [];
  let block = "%b0";
  let v = "%one";
  for (let i = 1; head.length + body.length + 10 < lines; i++) {
    body.push(
      `%c${i} = OpSLessThan %bool ${v} %n`,
      `OpSelectionMerge %m${i} None`,
      `OpBranchConditional %c${i} %t${i} %m${i}`,
      `%t${i} = OpLabel`,
      `%a${i} = OpIAdd %int ${v} %one`,
      `OpBranch %m${i}`,
      `%m${i} = OpLabel`,
      `%v${i} = OpPhi %int %a${i} %t${i} ${v} ${block}`,
    );
    block = `%m${i}`;
    v = `%v${i}`;
  }
  return [...head, ...body, "OpReturn", "OpFunctionEnd", ""].join("\n");
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];

async function main() {
  // Transfer size.
  const { total, wasm } = await distGzipSizes();

  const { server, url } = await serveDist();
  const browser = await launch();

  // First load to interactive.
  const loads = [];
  for (let i = 0; i < 7; i++) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector("body[data-ready='true']");
    loads.push(Number(await page.evaluate(() => document.body.dataset.readyMs)));
    await context.close();
  }

  // Edit to diagnostics on a 1,000-line module.
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector("body[data-ready='true']");
  const text = bigModule(1000);
  const lineCount = text.split("\n").length - 1;
  await page.evaluate((t) => window.spvlab.editor.setText(t), text);
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("valid"));
  const edits = [];
  const engine = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await page.evaluate(async (bad) => {
      const v = window.spvlab.editor.view;
      let n = 500;
      while (!/OpIAdd %(int|bool)/.test(v.state.doc.line(n).text)) n++;
      const line = v.state.doc.line(n);
      const next = bad ? line.text.replace("OpIAdd %int", "OpIAdd %bool") : line.text.replace("OpIAdd %bool", "OpIAdd %int");
      const wait = new Promise((res) => document.addEventListener("spvlab:report", res, { once: true }));
      const t0 = performance.now();
      v.dispatch({ changes: { from: line.from, to: line.to, insert: next } });
      await wait;
      await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
      const dt = performance.now() - t0;
      const shown = document.querySelectorAll("button.problem").length;
      return { dt, shown, engine: window.spvlab.lastElapsed ?? null };
    }, i % 2 === 0);
    if ((i % 2 === 0) !== r.shown > 0) throw new Error(`edit ${i}: expected ${i % 2 === 0 ? "a problem" : "none"}, got ${r.shown}`);
    edits.push(r.dt);
    if (r.engine !== null) engine.push(r.engine);
  }
  // A CFG toggle redraws from the worker's last analysis: the time from the
  // click to the redrawn graph, and the analyses counted meanwhile (must be 0).
  await page.locator("#tab-cfg").click();
  await page.waitForSelector("#panel-cfg[data-state='ready']", { timeout: 60000 });
  const toggles = [];
  const dotMs = [];
  for (let i = 0; i < TOGGLES; i++) {
    const r = await page.evaluate(async () => {
      const root = document.querySelector("#panel-cfg");
      const box = [...root.querySelectorAll("label.cfg-toggle")].find((l) => l.textContent.trim() === "constructs").querySelector("input");
      const before = document.body.dataset.analyzed;
      const t0 = performance.now();
      box.click();
      while (root.dataset.state !== "ready") await new Promise((res) => requestAnimationFrame(res));
      return { dt: performance.now() - t0, dot: Number(root.dataset.dotMs), analyses: Number(document.body.dataset.analyzed) - Number(before) };
    });
    if (r.analyses !== 0) throw new Error(`toggle ${i}: ${r.analyses} analyses ran for a CFG toggle`);
    toggles.push(r.dt);
    dotMs.push(r.dot);
  }
  await browser.close();
  const run = await runBench(url, RUN_EXAMPLE);
  server.close();
  const runInterp = run.rs.map((r) => r.interp);
  const runGpu = run.rs.map((r) => r.gpu);
  if (process.env.VERBOSE) {
    console.log("run to interpreter (ms, in order):", runInterp.map((x) => x.toFixed(1)).join(" "));
    console.log("run to WebGPU (ms, in order):", runGpu.map((x) => x.toFixed(1)).join(" "));
    console.log("edits (ms, in order):", edits.map((x) => x.toFixed(1)).join(" "));
    console.log("engine (ms, in order):", engine.map((x) => x.toFixed(1)).join(" "));
  }

  const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
  const rows = [
    ["edit to diagnostics (1,000-line module), median", `${median(edits).toFixed(1)} ms`, "100 ms", median(edits) < 100],
    ["edit to diagnostics, p90", `${p90(edits).toFixed(1)} ms`, "100 ms", p90(edits) < 100],
    ["  of which engine (analyze in the worker), median", engine.length ? `${median(engine).toFixed(1)} ms` : "n/a", "", true],
    ["CFG toggle to redrawn graph (same module), median", `${median(toggles).toFixed(1)} ms`, "", true],
    ["  of which DOT from the session (no analysis), median", `${median(dotMs).toFixed(1)} ms`, "", true],
    ["first load to interactive (localhost), median", `${median(loads).toFixed(0)} ms`, "1.5 s", median(loads) < 1500],
    [`Run to interpreter results (${RUN_EXAMPLE}), median`, `${median(runInterp).toFixed(1)} ms`, "100 ms", median(runInterp) < 100],
    ["  of which the interpreter in the worker, median", `${median(run.rs.map((r) => r.interpMs)).toFixed(1)} ms`, "", true],
    [`Run to WebGPU results (${run.first.adapter}), median`, `${median(runGpu).toFixed(1)} ms`, "", true],
    ["  first run (making the device), to WebGPU results", `${run.first.gpu.toFixed(1)} ms`, "", true],
    ["page transfer size (gzip, all of www/dist)", kb(total), "1.5 MB", total < 1.5e6],
    ["core wasm (gzip)", kb(wasm), "400 KB", wasm < 400e3],
  ];
  console.log(`module: ${lineCount} lines; ${RUNS} edits (alternately breaking and fixing the OpIAdd at line ~500); first edit included; ${TOGGLES} toggles of "constructs", 0 analyses during them; ${RUN_RUNS} runs of ${RUN_EXAMPLE} after a warm-up run`);
  console.log("| measure | value | target | ok |\n| --- | --- | --- | --- |");
  for (const [m, v, t, ok] of rows) console.log(`| ${m} | ${v} | ${t} | ${t ? (ok ? "yes" : "NO") : ""} |`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
