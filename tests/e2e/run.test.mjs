// The Run panel, in headless Chromium with WebGPU
// (--enable-unsafe-webgpu: SwiftShader's adapter), on the built page:
// * every gallery compute example runs with one click (the panel's default
//   inputs) on the interpreter and on WebGPU, with identical buffers that
//   hold the values its caption states (worked out by hand from the shader);
// * an endless loop shows the step-budget error, located (the jump moves the
//   editor's cursor to the line), and is not dispatched until the user says so;
// * a module our lowering refuses shows the reason code, and the
//   interpreter's result;
// * a binding is named as the text spells it, and each value is read where
//   the layout rules put it (offsets worked out by hand).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { root, serveDist, openPage, setText, screenshot, launch, loadForRun, runOnce } from "./lib.mjs";
import { ENDLESS, INT64, LAYOUT, PADDED, SIN, SPEC } from "./modules.mjs";

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
  browser = await launch({ webgpu: true });
  ({ page, context } = await openPage(browser, url, { errors, viewport: { width: 1500, height: 900 } }));
  await page.locator("#tab-run").click();
});

after(async () => {
  await context?.close();
  await browser?.close();
  server?.close();
});

/** Put `text` in the editor for `env`, wait for the panel's reflection of it. */
const load = (text, env) => loadForRun(page, text, env);


const cell = (key, p, backend) =>
  page.locator(`section.run-buffer[data-key="${key}"] tr[data-path="${p}"] td.cell[data-backend="${backend}"]`).textContent();

test("every gallery compute example runs with one click on both backends, giving its caption's values", async () => {
  const list = await computeExamples();
  assert.ok(list.length >= 3, "the gallery's compute examples");
  for (const e of list) {
    await load(e.text, e.targetEnv);
    assert.ok((await page.locator("#run-inputs tr[data-key]").count()) >= 1, `${e.id}: one input row per binding`);
    const r = await runOnce(page);
    assert.ok(r.interp?.ok, `${e.id}: interpreter: ${JSON.stringify(r.interp?.error)}`);
    assert.ok(r.gpu?.ok, `${e.id}: WebGPU: ${JSON.stringify(r.gpu?.error)}`);
    assert.ok(r.gpu.adapter, `${e.id}: the adapter is named`);
    assert.ok((await page.locator('.run-backend[data-backend="wgpu"] .run-adapter').textContent()).length > 0);
    assert.equal(r.interp.buffers.length, r.gpu.buffers.length);
    for (let i = 0; i < r.interp.buffers.length; i++)
      assert.deepEqual(r.gpu.buffers[i].bytes, r.interp.buffers[i].bytes, `${e.id}: buffer ${r.interp.buffers[i].name}, byte for byte`);
    assert.equal(await page.locator("tr.differ").count(), 0, `${e.id}: nothing marked as differing`);
    for (const x of e.expected) {
      // The caption's `buf` is the binding the text calls `%buf`.
      const b = r.interp.buffers.find((b) => b.name === `%${x.buffer}`);
      assert.ok(b, `${e.id}: a buffer named %${x.buffer}`);
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
  const r = await runOnce(page);
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
    o.gpu.buffers[0].bytes.splice(4, 4, 6, 0, 0, 0);
    window.spvlab.run.show(o);
  });
  assert.equal(await page.locator("tr.differ").count(), 1);
  assert.equal(await page.locator("tr.differ").getAttribute("data-path"), "data[1]");
  assert.match(await page.locator(".run-summary").textContent(), /differ between the interpreter and WebGPU: 1 /);
  await screenshot(page, "run-panel-diff.png");
});

test("an endless loop shows the step-budget error, located, and is not dispatched", async () => {
  await load(ENDLESS, "vulkan1.3");
  const r = await runOnce(page);
  assert.equal(r.interp.error?.kind, "stepBudget", JSON.stringify(r.interp));
  assert.equal(r.interp.error.run?.kind, "noTermination", "the interpreter's error, as data");
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
  const r = await runOnce(page);
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
  const r = await runOnce(page);
  assert.equal(r.interp.error?.kind, "input");
  assert.equal(await page.locator('input.run-input[data-key="0.1"]').getAttribute("aria-invalid"), "true");
  assert.equal(await page.locator('input.run-input[data-key="0.0"]').getAttribute("aria-invalid"), null);
  assert.match(await page.locator('.run-backend[data-backend="interp"] .run-error').textContent(), /0\.1/);
  // The field marked is the one the plan's error names, whatever its message says.
  await page.evaluate(() => {
    const o = structuredClone(window.spvlab.run.last());
    o.interp.error = { kind: "input", message: "buffer 0.1: spec 3=1", plan: { error: "badInput", slot: "0.0", input: "seq:0,1", column: 1, reason: "r" } };
    window.spvlab.run.show(o);
  });
  assert.equal(await page.locator('input.run-input[data-key="0.0"]').getAttribute("aria-invalid"), "true");
  assert.equal(await page.locator('input.run-input[data-key="0.1"]').getAttribute("aria-invalid"), null);
  await page.fill('input.run-input[data-key="0.1"]', "zeros");
  const ok = await runOnce(page);
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

/** The f32 value of 4 little-endian bytes, and its shortest text. */
const f32Of = (bytes, at) => new DataView(Uint8Array.from(bytes.slice(at, at + 4)).buffer).getFloat32(0, true);

test("spec constants: one field each (SpecId, name, type, default), reaching both backends; a bad value is marked in its field", async () => {
  await load(SPEC, "vulkan1.3");
  const rows = page.locator("#run-specs tr[data-spec-id]");
  assert.equal(await rows.count(), 1, "one settable spec constant (the OpSpecConstantOp is not one)");
  const cells = await rows.first().locator("td").allTextContents();
  assert.deepEqual(cells.slice(0, 4), ["3", "k", "u32", "7"]);
  // The default: k = 7, k + k = 14, on both.
  let r = await runOnce(page);
  assert.ok(r.interp.ok && r.gpu.ok, JSON.stringify([r.interp.error, r.gpu.error]));
  for (const b of ["interp", "wgpu"]) {
    assert.equal(await cell("0.0", "data[0]", b), "7", b);
    assert.equal(await cell("0.0", "data[1]", b), "14", b);
  }
  // An override reaches the interpreter and the WGSL's `override`.
  await page.fill('input.run-spec[data-spec-id="3"]', "40");
  r = await runOnce(page);
  assert.deepEqual(r.request.spec, { 3: "40" });
  assert.ok(r.interp.ok && r.gpu.ok, JSON.stringify([r.interp.error, r.gpu.error]));
  for (const b of ["interp", "wgpu"]) {
    assert.equal(await cell("0.0", "data[0]", b), "40", b);
    assert.equal(await cell("0.0", "data[1]", b), "80", b);
  }
  // The views: 0x3f800000 is 1.0 as an f32.
  await page.fill('input.run-spec[data-spec-id="3"]', "1065353216");
  r = await runOnce(page);
  assert.ok(r.interp.ok && r.gpu.ok);
  const sec = page.locator('section.run-buffer[data-key="0.0"]');
  await sec.locator('button.run-view[data-view="hex"]').click();
  assert.equal(await cell("0.0", "data[0]", "interp"), "0x3f800000");
  assert.equal(await cell("0.0", "data[0]", "wgpu"), "0x3f800000");
  assert.equal(await cell("0.0", "data[1]", "wgpu"), "0x7f000000");
  await page.locator('section.run-buffer[data-key="0.0"] button.run-view[data-view="float"]').click();
  assert.equal(await cell("0.0", "data[0]", "interp"), "1");
  // 0x7f000000 = 2^127 = 1.70141183e38: its shortest f32 text.
  assert.equal(await cell("0.0", "data[1]", "wgpu"), "1.7014118e+38");
  await page.locator('section.run-buffer[data-key="0.0"] button.run-view[data-view="typed"]').click();
  assert.equal(await cell("0.0", "data[0]", "interp"), "1065353216");
  // A value the type cannot hold: an input error, in the spec field.
  await page.fill('input.run-spec[data-spec-id="3"]', "-1");
  r = await runOnce(page);
  assert.equal(r.interp.error?.kind, "input", JSON.stringify(r.interp));
  assert.equal(await page.locator('input.run-spec[data-spec-id="3"]').getAttribute("aria-invalid"), "true");
  assert.match(await page.locator('input.run-spec[data-spec-id="3"]').getAttribute("title"), /SpecId 3/);
  assert.deepEqual(r.interp.error.plan, { error: "badSpec", id: 3, value: "-1", reason: r.interp.error.plan?.reason });
  // A message that names a buffer does not mark it: the plan's error says what.
  await page.evaluate(() => {
    const o = structuredClone(window.spvlab.run.last());
    o.interp.error.message = "buffer 0.0 `x`: push";
    window.spvlab.run.show(o);
  });
  assert.equal(await page.locator('input.run-spec[data-spec-id="3"]').getAttribute("aria-invalid"), "true");
  assert.equal(await page.locator('input.run-input[data-key="0.0"]').getAttribute("aria-invalid"), null);
  await page.fill('input.run-spec[data-spec-id="3"]', "");
  r = await runOnce(page);
  assert.ok(r.interp.ok && r.gpu.ok);
  assert.equal(await page.locator('input.run-spec[data-spec-id="3"]').getAttribute("aria-invalid"), null);
  // Defaults puts the module's defaults back.
  await page.fill('input.run-spec[data-spec-id="3"]', "5");
  await page.locator("#run-defaults").click();
  assert.equal(await page.locator('input.run-spec[data-spec-id="3"]').inputValue(), "");
  assert.equal(await page.locator('input.run-spec[data-spec-id="3"]').getAttribute("placeholder"), "7");
});

test("the hex view reads each value at its place: struct members by name, a vector, a column-major matrix", async () => {
  await load(LAYOUT, "vulkan1.3");
  // Byte i holds i: a value's hex is its 4 bytes from its offset, backwards.
  const bytes = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, "0"));
  await page.fill('input.run-input[data-key="0.0"]', `hex: ${bytes.join(" ")}`);
  const r = await runOnce(page);
  assert.ok(r.interp.ok && r.gpu.ok, JSON.stringify([r.interp.error, r.gpu.error]));
  await page.locator('section.run-buffer[data-key="0.0"] button.run-view[data-view="hex"]').click();
  const at = (o) => `0x${[3, 2, 1, 0].map((k) => (o + k).toString(16).padStart(2, "0")).join("")}`;
  // Offsets from the decorations: a 0, v 8, m 16 with columns 8 apart.
  const want = { a: 0, "v[0]": 8, "v[1]": 12, "m[0][0]": 16, "m[0][1]": 20, "m[1][0]": 24, "m[1][1]": 28 };
  const paths = await page.locator('section.run-buffer[data-key="0.0"] tr[data-path]').evaluateAll((rs) => rs.map((x) => x.dataset.path));
  assert.deepEqual(paths, Object.keys(want));
  for (const [p, o] of Object.entries(want))
    for (const b of ["interp", "wgpu"]) assert.equal(await cell("0.0", p, b), at(o), `${p} on ${b}`);
  assert.equal(await page.locator("tr.differ").count(), 0);
  // The float view of v[0]: the bits 0x0b0a0908 as an f32.
  await page.locator('section.run-buffer[data-key="0.0"] button.run-view[data-view="float"]').click();
  const f = new DataView(Uint8Array.from([8, 9, 10, 11]).buffer).getFloat32(0, true);
  const shortest = [...Array(9).keys()].map((p) => Number(f.toPrecision(p + 1))).find((x) => Math.fround(x) === f);
  assert.equal(await cell("0.0", "v[0]", "interp"), String(shortest));
  await page.locator('section.run-buffer[data-key="0.0"] button.run-view[data-view="typed"]').click();
  assert.equal(await cell("0.0", "a", "interp"), String(0x03020100));
  await page.locator("#run-defaults").click();
});

test("a binding the text names with no OpName is named as the text spells it, never by number", async () => {
  await load(PADDED, "vulkan1.3");
  assert.equal(await page.locator('#run-inputs tr[data-key="0.0"] td.run-name').textContent(), "%buf");
  const r = await runOnce(page);
  assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
  assert.match(await page.locator('section.run-buffer[data-key="0.0"] h3').textContent(), /^0\.0 %buf \(/);
  for (const n of await page.locator("#panel-run td.run-name, #panel-run section.run-buffer h3").allTextContents())
    assert.doesNotMatch(n, /%\d+\b/, `a binding named by number: ${n}`);
});

/** The shortest text of the f32 whose little-endian bytes are `b`. */
function f32Text(b) {
  const f = new DataView(Uint8Array.from(b).buffer).getFloat32(0, true);
  return String([...Array(9).keys()].map((p) => Number(f.toPrecision(p + 1))).find((x) => Math.fround(x) === f));
}

test("a block with padding and arrays shows each value read at the offset the layout rules give", async () => {
  await load(PADDED, "vulkan1.3");
  // Byte i holds i, padding included.
  const bytes = Array.from({ length: 92 }, (_, i) => i);
  await page.fill('input.run-input[data-key="0.0"]', `hex: ${bytes.map((b) => b.toString(16).padStart(2, "0")).join(" ")}`);
  const r = await runOnce(page);
  assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
  // Offsets worked out by hand from the Offset and ArrayStride decorations
  // (modules.mjs): padding after a (4..15), after v (28..31), after each
  // E's x (4 bytes) and y (4 bytes), after each element of arr (4 bytes).
  const want = { a: 0, "v[0]": 16, "v[1]": 20, "v[2]": 24, "e[0].x": 32, "e[0].y": 40, "e[1].x": 48, "e[1].y": 56, "arr[0]": 64, "arr[1]": 72, "arr[2]": 80, b: 88 };
  const sec = page.locator('section.run-buffer[data-key="0.0"]');
  assert.deepEqual(await sec.locator("tr[data-path]").evaluateAll((rs) => rs.map((x) => x.dataset.path)), Object.keys(want));
  const backends = r.gpu.ok ? ["interp", "wgpu"] : ["interp"];
  console.log(`# padded block: WebGPU ${r.gpu.ok ? "ran it too" : `did not run it (${r.gpu.error?.kind}: ${r.gpu.error?.message})`}`);
  const u32 = (o) => bytes[o] + bytes[o + 1] * 2 ** 8 + bytes[o + 2] * 2 ** 16 + bytes[o + 3] * 2 ** 24;
  for (const [p, o] of Object.entries(want))
    for (const b of backends) assert.equal(await cell("0.0", p, b), p === "b" ? f32Text(bytes.slice(o, o + 4)) : String(u32(o)), `${p} on ${b}`);
  await sec.locator('button.run-view[data-view="hex"]').click();
  const hex = (o) => `0x${[3, 2, 1, 0].map((k) => bytes[o + k].toString(16).padStart(2, "0")).join("")}`;
  for (const [p, o] of Object.entries(want)) for (const b of backends) assert.equal(await cell("0.0", p, b), hex(o), `${p} on ${b}, hex`);
  await sec.locator('button.run-view[data-view="typed"]').click();
  await page.locator("#run-defaults").click();
});

test("a lost WebGPU device is reported, located like an error, and the next Run works without a reload", async () => {
  const list = await computeExamples();
  const e = list.find((x) => x.id === "compute-parallel-sum");
  await load(e.text, e.targetEnv);
  let r = await runOnce(page);
  assert.ok(r.gpu.ok, JSON.stringify(r.gpu.error));
  const loads = await page.evaluate(() => performance.getEntriesByType("navigation").length);
  // The page's hook: the next dispatch destroys its device while it reads back.
  await page.evaluate(() => window.spvlab.engine.send({ kind: "loseDevice" }));
  r = await runOnce(page);
  assert.equal(r.gpu.error?.kind, "deviceLost", JSON.stringify(r.gpu));
  assert.ok(r.interp.ok, "the interpreter's result stands");
  const wgpu = page.locator('.run-backend[data-backend="wgpu"]');
  assert.equal(await wgpu.getAttribute("data-state"), "failed");
  assert.equal(await wgpu.locator('.run-error[data-kind="deviceLost"] .run-error-kind').textContent(), "device lost");
  assert.match(await wgpu.locator(".run-error-message").textContent(), /next run makes a new device/);
  // No reload: the same document; the runner makes a new device.
  r = await runOnce(page);
  assert.ok(r.gpu.ok, JSON.stringify(r.gpu.error));
  for (let i = 0; i < r.interp.buffers.length; i++) assert.deepEqual(r.gpu.buffers[i].bytes, r.interp.buffers[i].bytes);
  assert.equal(await page.evaluate(() => performance.getEntriesByType("navigation").length), loads);
  assert.equal(await wgpu.locator(".run-error").count(), 0);
});

test("a real difference (sin of large f32 arguments, interpreter against SwiftShader) is highlighted, exactly where the bytes differ", async () => {
  await load(SIN, "vulkan1.3");
  // sin(0) = 0 exactly on both; the others differ in their last bits or more.
  await page.fill('input.run-input[data-key="0.0"]', "f32: 0 100000 12345678 1e30");
  const r = await runOnce(page);
  assert.ok(r.interp.ok && r.gpu.ok, JSON.stringify([r.interp.error, r.gpu.error]));
  const a = r.interp.buffers[0].bytes;
  const b = r.gpu.buffers[0].bytes;
  const differ = [0, 1, 2, 3].filter((i) => a.slice(4 * i, 4 * i + 4).join() !== b.slice(4 * i, 4 * i + 4).join()).map((i) => `data[${i}]`);
  console.log(`# sin: interpreter ${[0, 1, 2, 3].map((i) => f32Of(a, 4 * i)).join(" ")}; WebGPU ${[0, 1, 2, 3].map((i) => f32Of(b, 4 * i)).join(" ")}`);
  assert.ok(differ.length >= 1, "the backends differ somewhere");
  assert.ok(!differ.includes("data[0]"), "sin(0) = 0 on both: that row is not marked");
  const marked = await page.locator('section.run-buffer[data-key="0.0"] tr.differ').evaluateAll((rs) => rs.map((x) => x.dataset.path));
  assert.deepEqual(marked, differ);
  assert.equal(await page.locator("#run-results").getAttribute("data-differ"), String(differ.length));
  // The hex view shows the bits that differ.
  await page.locator('section.run-buffer[data-key="0.0"] button.run-view[data-view="hex"]').click();
  const hex = (bytes, i) => `0x${[3, 2, 1, 0].map((k) => bytes[4 * i + k].toString(16).padStart(2, "0")).join("")}`;
  const i = Number(differ[0].slice(5, -1));
  assert.equal(await cell("0.0", differ[0], "interp"), hex(a, i));
  assert.equal(await cell("0.0", differ[0], "wgpu"), hex(b, i));
  await page.locator('section.run-buffer[data-key="0.0"] button.run-view[data-view="typed"]').click();
  await page.locator('section.run-buffer[data-key="0.0"]').scrollIntoViewIfNeeded();
  await screenshot(page, "run-diff.png");
});

test("the page had no errors", () => {
  assert.deepEqual(errors, []);
});
