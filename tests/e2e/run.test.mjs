// The Run panel (issue 12, first slice), in headless Chromium with WebGPU
// (--enable-unsafe-webgpu: SwiftShader's adapter), on the built page:
// * every gallery compute example runs with one click (the panel's default
//   inputs) on the interpreter and on WebGPU, with identical buffers that
//   hold the values its caption states (worked out by hand from the shader);
// * an endless loop shows the step-budget error, located (the jump moves the
//   editor's cursor to the line), and is not dispatched until the user says so;
// * a module our lowering refuses shows the reason code, and the
//   interpreter's result.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { chromium } from "playwright-core";
import { root, serveDist, openPage, setText, screenshot, launch } from "./lib.mjs";
import { ENDLESS, INT64 } from "./modules.mjs";

const gallery = path.join(root, "www/src/gallery");

/** The gallery's compute examples with the values their captions expect:
 *  `NAME.PATH = N` after "Expected with the Run panel's defaults". */
async function computeExamples() {
  const index = await readFile(path.join(gallery, "index.ts"), "utf8");
  const list = [];
  const re = /id: "([^"]+)",\s*title: [^\n]*\n\s*category: "compute",\s*caption:([\s\S]*?)targetEnv: "([^"]+)"/g;
  for (const m of index.matchAll(re)) {
    const caption = m[2];
    const at = caption.indexOf("Expected with the Run panel's defaults");
    assert.ok(at >= 0, `${m[1]}: its caption states the expected values`);
    const expected = [...caption.slice(at).matchAll(/(\w+)\.(\w+(?:\[\d+\])+) = (-?\d+)/g)].map((x) => ({
      buffer: x[1],
      path: x[2],
      value: x[3],
    }));
    assert.ok(expected.length >= 1, `${m[1]}: at least one expected value`);
    const text = await readFile(path.join(gallery, "examples", `${m[1]}.spvasm`), "utf8");
    list.push({ id: m[1], targetEnv: m[3], text, expected });
  }
  return list;
}


let server, url, browser, page, context;
const errors = [];

before(async () => {
  const s = await serveDist();
  server = s.server;
  url = s.url;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--enable-unsafe-webgpu",
    ],
  });
  ({ page, context } = await openPage(browser, url, { errors, viewport: { width: 1500, height: 900 } }));
  await page.locator("#tab-run").click();
});

after(async () => {
  await context?.close();
  await browser?.close();
  server?.close();
});

/** Put `text` in the editor for `env`, wait for the panel's reflection of it. */
async function load(text, env) {
  if ((await page.locator("#target-env").inputValue()) !== env) {
    const before = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
    await page.selectOption("#target-env", env);
    await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
  }
  await setText(page, text);
  await page.waitForFunction(() => {
    const s = window.spvlab.store.get();
    return s.docVersion === s.reportVersion && document.getElementById("panel-run").dataset.reflected === String(s.reportVersion);
  });
}

/** Press Run and wait for both backends' answers. */
async function runOnce() {
  const before = Number((await page.locator("#panel-run").getAttribute("data-runs")) ?? 0);
  await page.locator("#run-btn").click();
  await page.waitForFunction((n) => Number(document.getElementById("panel-run").dataset.runs ?? 0) > n, before, { timeout: 120_000 });
  return page.evaluate(() => window.spvlab.run.last());
}

const cell = (key, p, backend) =>
  page.locator(`section.run-buffer[data-key="${key}"] tr[data-path="${p}"] td.cell[data-backend="${backend}"]`).textContent();

test("every gallery compute example runs with one click on both backends, giving its caption's values", async () => {
  const list = await computeExamples();
  assert.ok(list.length >= 3, "the gallery's compute examples");
  for (const e of list) {
    await load(e.text, e.targetEnv);
    assert.ok((await page.locator("#run-inputs tr[data-key]").count()) >= 1, `${e.id}: one input row per binding`);
    const r = await runOnce();
    assert.ok(r.interp?.ok, `${e.id}: interpreter: ${JSON.stringify(r.interp?.error)}`);
    assert.ok(r.gpu?.ok, `${e.id}: WebGPU: ${JSON.stringify(r.gpu?.error)}`);
    assert.ok(r.gpu.adapter, `${e.id}: the adapter is named`);
    assert.ok((await page.locator('.run-backend[data-backend="wgpu"] .run-adapter').textContent()).length > 0);
    assert.equal(r.interp.buffers.length, r.gpu.buffers.length);
    for (let i = 0; i < r.interp.buffers.length; i++)
      assert.deepEqual(r.gpu.buffers[i].bytes, r.interp.buffers[i].bytes, `${e.id}: buffer ${r.interp.buffers[i].name}, byte for byte`);
    assert.equal(await page.locator("tr.differ").count(), 0, `${e.id}: nothing marked as differing`);
    for (const x of e.expected) {
      const b = r.interp.buffers.find((b) => b.name === x.buffer);
      assert.ok(b, `${e.id}: a buffer named ${x.buffer}`);
      const key = `${b.set}.${b.binding}`;
      assert.equal(await cell(key, x.path, "interp"), x.value, `${e.id}: ${x.buffer}.${x.path} on the interpreter`);
      assert.equal(await cell(key, x.path, "wgpu"), x.value, `${e.id}: ${x.buffer}.${x.path} on WebGPU`);
    }
    const times = await page.locator(".run-time").count();
    assert.equal(times, 2, `${e.id}: a time per backend`);
    console.log(`# ${e.id}: interpreter ${r.interpMs.toFixed(1)} ms, WebGPU ${r.gpuMs.toFixed(1)} ms (${r.gpu.adapter})`);
  }
  await screenshot(page, "run-panel.png");
});

test("an input typed in the panel reaches both backends; a differing cell is marked", async () => {
  const list = await computeExamples();
  const e = list.find((x) => x.id === "compute-switch-fallthrough");
  await load(e.text, e.targetEnv);
  await page.fill('input.run-input[data-key="0.0"]', "u32: 2 5");
  const r = await runOnce();
  assert.ok(r.gpu.ok && r.interp.ok);
  // buf[0] = 2: case 2 adds 100 and falls into case 3, which adds 1000.
  assert.equal(await cell("0.0", "data[0]", "interp"), "1100");
  assert.equal(await cell("0.0", "data[0]", "wgpu"), "1100");
  assert.equal(await cell("0.0", "data[1]", "wgpu"), "5");
  assert.equal(await page.locator("tr.differ").count(), 0);
  // The same results with WebGPU's data[1] changed: that row, and only it, is marked.
  await page.evaluate(() => {
    const o = structuredClone(window.spvlab.run.last());
    o.gpu.buffers[0].value.data[1] = 6;
    window.spvlab.run.show(o);
  });
  assert.equal(await page.locator("tr.differ").count(), 1);
  assert.equal(await page.locator("tr.differ").getAttribute("data-path"), "data[1]");
  assert.match(await page.locator(".run-summary").textContent(), /differ between the interpreter and WebGPU: 1 /);
  await screenshot(page, "run-panel-diff.png");
});

test("an endless loop shows the step-budget error, located, and is not dispatched", async () => {
  await load(ENDLESS, "vulkan1.3");
  const r = await runOnce();
  assert.equal(r.interp.error?.kind, "stepBudget", JSON.stringify(r.interp));
  assert.equal(r.gpu.error?.kind, "stepBudget", JSON.stringify(r.gpu));
  assert.match(r.gpu.error.message, /^not dispatched/);
  assert.equal(r.gpu.adapter, undefined, "no GPU was asked");
  const wgpu = page.locator('.run-backend[data-backend="wgpu"]');
  assert.equal(await wgpu.locator('.run-error[data-kind="stepBudget"]').count(), 1);
  assert.equal(await wgpu.locator(".run-adapter").count(), 0);
  assert.equal(await wgpu.locator("button.run-force").count(), 1, "dispatching needs the user's say");
  // The interpreter's error names a line: the jump puts the cursor there.
  const interp = page.locator('.run-backend[data-backend="interp"]');
  assert.equal(await interp.locator('.run-error[data-kind="stepBudget"]').count(), 1);
  assert.ok(r.interp.error.line >= 1, "located");
  await interp.locator("button.run-jump").click();
  const line = await page.evaluate(() => {
    const v = window.spvlab.editor.view;
    return v.state.doc.lineAt(v.state.selection.main.head).number;
  });
  assert.equal(line, r.interp.error.line);
  assert.match(ENDLESS.split("\n")[line - 1], /^(OpBranch|OpLoopMerge|%|OpStore)/, "an instruction of the loop");
});

test("a module the lowering refuses shows the reason code and the interpreter's result", async () => {
  await load(INT64, "vulkan1.3");
  await page.fill('input.run-input[data-key="0.0"]', "u64: 5 7");
  const r = await runOnce();
  assert.equal(r.gpu.error?.kind, "refused");
  assert.equal(r.gpu.error?.code, "wgsl.int64");
  const wgpu = page.locator('.run-backend[data-backend="wgpu"]');
  assert.equal(await wgpu.locator('.run-error[data-kind="refused"]').getAttribute("data-code"), "wgsl.int64");
  assert.match(await wgpu.textContent(), /wgsl\.int64/);
  assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
  // data[0] = 5 + 0x100000001 = 4294967302; data[1] stays 7.
  assert.equal(await cell("0.0", "data[0]", "interp"), "4294967302");
  assert.equal(await cell("0.0", "data[1]", "interp"), "7");
  assert.equal(await cell("0.0", "data[0]", "wgpu"), "", "no WebGPU value");
});

test("an input error is shown and its field marked", async () => {
  const list = await computeExamples();
  const e = list.find((x) => x.id === "compute-parallel-sum");
  await load(e.text, e.targetEnv);
  // Typed inputs stay while their binding does; Defaults puts the defaults back.
  await page.fill('input.run-input[data-key="0.0"]', "u32: 9");
  await page.locator("#run-defaults").click();
  assert.equal(await page.locator('input.run-input[data-key="0.0"]').inputValue(), "seq:0,1");
  await page.fill('input.run-input[data-key="0.1"]', "u32: 1 x");
  const r = await runOnce();
  assert.equal(r.interp.error?.kind, "input");
  assert.equal(await page.locator('input.run-input[data-key="0.1"]').getAttribute("aria-invalid"), "true");
  assert.equal(await page.locator('input.run-input[data-key="0.0"]').getAttribute("aria-invalid"), null);
  assert.match(await page.locator('.run-backend[data-backend="interp"] .run-error').textContent(), /0\.1/);
  await page.fill('input.run-input[data-key="0.1"]', "zeros");
  const ok = await runOnce();
  assert.ok(ok.interp.ok && ok.gpu.ok, JSON.stringify([ok.interp.error, ok.gpu.error]));
  assert.equal(await cell("0.1", "data[0]", "wgpu"), "2016");
  assert.equal(await page.locator('input.run-input[data-key="0.1"]').getAttribute("aria-invalid"), null);
});

test("without WebGPU the page says so, with the reason, and shows the interpreter's result", async () => {
  const plain = await launch(); // --disable-gpu, no --enable-unsafe-webgpu
  try {
    const errs = [];
    const o = await openPage(plain, url, { errors: errs });
    const p = o.page;
    const list = await computeExamples();
    const e = list.find((x) => x.id === "compute-switch-fallthrough");
    await p.locator("#tab-run").click();
    await p.selectOption("#target-env", e.targetEnv);
    await setText(p, e.text);
    await p.waitForFunction(() => {
      const s = window.spvlab.store.get();
      return s.docVersion === s.reportVersion && document.getElementById("panel-run").dataset.reflected === String(s.reportVersion);
    });
    await p.locator("#run-btn").click();
    await p.waitForFunction(() => Number(document.getElementById("panel-run").dataset.runs ?? 0) > 0, null, { timeout: 60_000 });
    const wgpu = p.locator('.run-backend[data-backend="wgpu"]');
    assert.equal(await wgpu.locator(".run-error").getAttribute("data-kind"), "noDevice");
    assert.match(await wgpu.textContent(), /no WebGPU/);
    assert.equal(await p.locator('section.run-buffer[data-key="0.0"] tr[data-path="data[0]"] td.cell[data-backend="interp"]').textContent(), "11");
    await o.context.close();
    assert.deepEqual(errs, []);
  } finally {
    await plain.close();
  }
});

test("the page had no errors", () => {
  assert.deepEqual(errors, []);
});
