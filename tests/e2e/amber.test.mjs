// Amber files in the Run tab, in headless Chromium
// with WebGPU (--enable-unsafe-webgpu: SwiftShader), on the built page:
// * 10 compute Amber files of the corpus (../shared/corpus, SPIRV-ASM, of
//   varied shapes: spec constants, push constants, a uniform buffer, a
//   non-default entry point, floats with a tolerance, 16-bit integers,
//   EQ_BUFFER, a switch, a buffer bigger than its block) opened through the page's Open button load their shader,
//   inputs and dispatch, run, and every EXPECT line shows as passing on the
//   interpreter (and on WebGPU wherever WebGPU ran the module);
// * Export Amber writes a file that `spvlab amber` passes, and opening it
//   again gives the same inputs and results, its EXPECT lines passing;
// * a share link carries the run inputs and the chosen invocation; a link
//   of the format before (no run inputs) still opens; a link with hostile
//   run inputs says so and the page stays usable;
// * a GraphicsFuzz graphics file of the corpus (a uniform buffer, the
//   passthrough vertex shader, a fragment shader expected to draw red) opens
//   as a draw: its fragment shader in the editor, the Run tab's draw fields
//   set from the file, drawn on both backends, and its EXPECT line passes on
//   the interpreter and on WebGPU; a graphics file the page's draw cannot
//   hold (a second RUN) is refused at that line;
// * a bad file's error is located (file:line:column), and a file with a
//   geometry stage is said to be not run.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { deflateRawSync } from "node:zlib";
import { root, serveDist, openPage, screenshot, launch } from "./lib.mjs";

const corpus = path.resolve(root, "../shared/corpus/amber");
const FILES = [
  "google-amber/shader_specialization.amber",
  "google-amber/non_default_entry_point.amber",
  "vk-gl-cts/spirv_assembly_instruction_compute_switch_switch_case_to_merge_block.amber",
  "vk-gl-cts/compute_webgl_spirv_loop.amber",
  "vk-gl-cts/ldexp_ldexp_f32vec2_i32vec2.amber",
  "vk-gl-cts/graphicsfuzz_loops_breaks_returns.amber",
  "vk-gl-cts/spirv_assembly_instruction_compute_mul_extended_signed_16bit.amber",
  "vk-gl-cts/compute_vec2_nclamp_nan_component.amber",
  "google-amber/compute_workgroup_init.amber",
  "vk-gl-cts/spirv_assembly_instruction_compute_undef_undefined_spec_constant_composite.amber",
];
// A graphics file the page draws, and one it refuses (its second RUN).
const GRAPHICS = "vk-gl-cts/graphicsfuzz_cov_fold_bitwise_and_zero.amber";
const REFUSED = "vk-gl-cts/graphicsfuzz_cov_fragcoord_bitwise_and_loop_reduce_value_index_array.amber";

let server, url, browser, page, context;
const errors = [];

before(async () => {
  const s = await serveDist();
  server = s.server;
  url = s.url;
  browser = await launch({ webgpu: true });
  ({ page, context } = await openPage(browser, url, { errors, viewport: { width: 1500, height: 900 } }));
});

after(async () => {
  await context?.close();
  await browser?.close();
  server?.close();
});

/** Open a file through the Open button; wait until its module is analysed
 *  and the Run tab shows the file's inputs. */
async function openFile(p, file) {
  await p.locator("#open-file").setInputFiles(file);
  const name = typeof file === "string" ? path.basename(file) : file.name;
  await p.waitForFunction((n) => window.spvlab.amber.loaded()?.name === n, name);
  await p.waitForFunction(() => {
    const s = window.spvlab.store.get();
    const l = window.spvlab.amber.loaded();
    if (!l || s.docVersion !== s.reportVersion || document.getElementById("panel-run").dataset.reflected !== String(s.reportVersion)) return false;
    return l.script.inputs.every((i) => document.querySelector(`input.run-input[data-key="${i.key}"]`)?.value === i.spec);
  });
  return p.evaluate(() => window.spvlab.amber.loaded().script);
}

/** Run, and wait for the EXPECT lines to be checked against both backends. */
async function runChecked(p) {
  const before = Number(await p.evaluate(() => document.getElementById("panel-run").dataset.runs ?? 0));
  const checked = p.evaluate(() => new Promise((r) => document.addEventListener("spvlab:amber-checked", () => r(), { once: true })));
  await p.locator("#run-btn").click();
  await p.waitForFunction((n) => Number(document.getElementById("panel-run").dataset.runs ?? 0) > n, before, { timeout: 120_000 });
  await checked;
  return p.evaluate(() => {
    const o = window.spvlab.run.last();
    const rows = [...document.querySelectorAll("#run-amber li.amber-expect")].map((li) => ({ line: Number(li.dataset.line), interp: li.dataset.interp, wgpu: li.dataset.wgpu, text: li.textContent }));
    return { outcome: o, rows };
  });
}

/** The CLI, when it is built (`spvlab amber FILE`). */
function cli() {
  for (const p of ["target/release/spvlab", "target/debug/spvlab"]) if (existsSync(path.join(root, p))) return path.join(root, p);
  return null;
}

const exported = [];

test("10 compute Amber files of the corpus load, run, and pass their EXPECT lines", async () => {
  assert.ok(existsSync(corpus), `the corpus is at ${corpus}`);
  let gpuRan = 0;
  for (const f of FILES) {
    const file = path.join(corpus, f);
    const source = await readFile(file, "utf8");
    const script = await openFile(page, file);
    assert.ok(script.expects.length > 0, `${f}: has EXPECT lines`);
    // The file's dispatch and entry point are the Run tab's.
    const dims = await page.evaluate(() => ["x", "y", "z"].map((a) => Number(document.getElementById(`run-groups-${a}`).value)));
    assert.deepEqual(dims, script.workgroups, f);
    if (script.entry) assert.equal(await page.locator("#run-entry").inputValue(), script.entry, f);
    // The module in the editor is the file's shader.
    const m = /^SHADER compute \S+ SPIRV-ASM[^\n]*\n([\s\S]*?)^END/m.exec(source);
    assert.equal(await page.evaluate(() => window.spvlab.editor.text()), m[1], `${f}: the shader's text`);
    const { outcome, rows } = await runChecked(page);
    assert.ok(outcome.interp?.ok, `${f}: ${JSON.stringify(outcome.interp?.error)}`);
    assert.deepEqual(rows.map((r) => r.line), script.expects.map((e) => e.line), f);
    for (const r of rows) assert.equal(r.interp, "pass", `${f}: ${r.text}`);
    if (outcome.gpu?.ok) {
      gpuRan++;
      for (const r of rows) assert.equal(r.wgpu, "pass", `${f} on WebGPU: ${r.text}`);
    } else {
      for (const r of rows) assert.equal(r.wgpu, "error", `${f}: WebGPU did not run (${outcome.gpu?.error?.kind}), no verdict`);
    }
    if (f === FILES[0]) await screenshot(page, "amber-checked.png");
    // Export: the module, the inputs and the interpreter's results.
    const text = await page.evaluate(() => window.spvlab.amber.exportText());
    exported.push({ f, text, outcome, script });
  }
  console.log(`amber: ${FILES.length} files pass on the interpreter; WebGPU ran ${gpuRan} of them, all passing`);
});

test("an exported file passes `spvlab amber`, and opening it again round-trips", async (t) => {
  assert.equal(exported.length, FILES.length);
  const bin = cli();
  const dir = await mkdtemp(path.join(tmpdir(), "spvlab-amber-"));
  for (const { f, text, outcome, script } of exported) {
    const name = path.basename(f).replace(/\.amber$/, "-spvlab.amber");
    const file = path.join(dir, name);
    await writeFile(file, text);
    if (bin) execFileSync(bin, ["amber", file], { stdio: "pipe" }); // throws on a failing EXPECT
    const again = await openFile(page, file);
    assert.deepEqual(again.workgroups, script.workgroups, f);
    assert.deepEqual(again.inputs.map((i) => i.key).sort(), script.inputs.map((i) => i.key).sort(), f);
    assert.deepEqual(again.spec, Object.fromEntries(Object.entries(script.spec)), f);
    const { outcome: o2, rows } = await runChecked(page);
    assert.ok(o2.interp?.ok, f);
    // Same inputs: the same run gives the same buffers.
    const bytes = (o) => o.interp.buffers.map((b) => `${b.set}.${b.binding}:${b.bytes.join(",")}`);
    assert.deepEqual(bytes(o2), bytes(outcome), `${f}: the same results`);
    assert.ok(rows.length > 0 && rows.every((r) => r.interp === "pass"), `${f}: ${JSON.stringify(rows)}`);
  }
  if (!bin) t.diagnostic("no CLI built: the exported files were checked on the page only");
  // The button saves the same text as a download.
  const [dl] = await Promise.all([page.waitForEvent("download"), page.locator("#amber-export").click()]);
  const saved = await readFile(await dl.path(), "utf8");
  assert.match(saved, /^#!amber\n/);
  assert.match(saved, /\nRUN pipeline \d+ \d+ \d+\n/);
});

test("a share link carries the run inputs and the chosen invocation", async () => {
  const script = await openFile(page, path.join(corpus, FILES[0]));
  // Change the inputs from the file's, and pick an invocation.
  const key = script.inputs[0].key;
  await page.fill(`input.run-input[data-key="${key}"]`, "u32: 7 7 7");
  await page.fill("#run-groups-x", "2");
  await page.evaluate(() => document.dispatchEvent(new CustomEvent("spvlab:invocation", { detail: [1, 0, 0] })));
  const want = await page.evaluate(() => window.spvlab.run.inputs());
  await page.locator("#share-btn").click();
  // The link is made in the engine's worker: wait for it.
  await page.waitForFunction(() => /#v1\//.test(document.querySelector("#share-link")?.value ?? ""));
  const link = await page.locator("#share-link").inputValue();
  assert.match(link, /#v1\/[A-Za-z0-9_-]+$/);

  const b = await browser.newContext({ viewport: { width: 1500, height: 900 } });
  const p = await b.newPage();
  p.on("pageerror", (e) => errors.push(String(e)));
  await p.addInitScript(() => document.addEventListener("spvlab:invocation", (ev) => (window.__invocation = ev.detail)));
  await p.goto(link);
  await p.waitForSelector("body[data-ready='true']");
  assert.equal(await p.locator("#tab-run").getAttribute("aria-selected"), "true", "the Run tab");
  await p.waitForFunction((k) => document.querySelector(`input.run-input[data-key="${k}"]`)?.value === "u32: 7 7 7", key);
  const got = await p.evaluate(() => window.spvlab.run.inputs());
  assert.deepEqual(got, want);
  assert.deepEqual(await p.evaluate(() => window.__invocation), [1, 0, 0]);
  await b.close();
});

/** Wait for the EXPECT lines of the loaded file to be checked against both
 *  backends of a run that is under way (or done), and read them. */
async function checkedRows(p, runsBefore) {
  await p.waitForFunction((n) => Number(document.getElementById("panel-run").dataset.runs ?? 0) > n, runsBefore, { timeout: 180_000 });
  await p.waitForFunction(() => document.getElementById("run-amber").dataset.state === "checked" && ![...document.querySelectorAll("#run-amber li.amber-expect")].some((li) => li.dataset.interp === "pending" || li.dataset.wgpu === "pending"), null, { timeout: 60_000 });
  return p.evaluate(() => {
    const o = window.spvlab.run.last();
    const rows = [...document.querySelectorAll("#run-amber li.amber-expect")].map((li) => ({ line: Number(li.dataset.line), interp: li.dataset.interp, wgpu: li.dataset.wgpu, text: li.textContent }));
    return { outcome: o, rows };
  });
}

test("a GraphicsFuzz file opens as a draw and its EXPECT passes on both backends", async () => {
  const file = path.join(corpus, GRAPHICS);
  const source = await readFile(file, "utf8");
  const runsBefore = Number(await page.evaluate(() => document.getElementById("panel-run").dataset.runs ?? 0));
  const script = await openFile(page, file);
  // The file's fragment shader is in the editor.
  const m = /^SHADER fragment \S+ SPIRV-ASM[^\n]*\n([\s\S]*?)^END/m.exec(source);
  assert.equal(await page.evaluate(() => window.spvlab.editor.text()), m[1], "the fragment shader's text");
  // The draw fields are the file's: FRAMEBUFFER_SIZE, DRAW_RECT, the
  // attachment's FORMAT, CLEAR_COLOR over 255.
  const [, fw, fh] = /FRAMEBUFFER_SIZE (\d+) (\d+)/.exec(source);
  const format = /^BUFFER \S+ FORMAT (\S+)/m.exec(source)[1];
  const clear = /^CLEAR_COLOR \S+ (\d+) (\d+) (\d+) (\d+)/m.exec(source).slice(1).map((v) => Number(v) / 255);
  const fields = await page.evaluate(() => ["width", "height", "shape", "format", "clear"].map((k) => document.getElementById(`run-draw-${k}`).value));
  assert.deepEqual(fields.slice(0, 4), [fw, fh, "rect", format]);
  fields[4].split(" ").map(Number).forEach((v, i) => assert.ok(Math.abs(v - clear[i]) < 1e-6, `clear ${fields[4]} vs ${clear}`));
  // The uniform buffer's input is the file's.
  const [, one] = /^BUFFER variant_one DATA_TYPE int32 DATA\s+(-?\d+)\s+END/m.exec(source);
  assert.deepEqual(script.inputs.map((i) => i.spec), [`i32: ${one}`]);
  // It draws on opening; each EXPECT line passes on both backends.
  const { outcome, rows } = await checkedRows(page, runsBefore);
  assert.ok(outcome.interp?.ok, JSON.stringify(outcome.interp?.error));
  assert.ok(outcome.gpu?.ok, `WebGPU drew: ${JSON.stringify(outcome.gpu?.error)}`);
  assert.equal(outcome.interp.image.width, Number(fw));
  const expects = source.split("\n").flatMap((l, i) => (l.startsWith("EXPECT ") ? [i + 1] : []));
  assert.deepEqual(rows.map((r) => r.line), expects);
  for (const r of rows) assert.deepEqual([r.interp, r.wgpu], ["pass", "pass"], r.text);
  await screenshot(page, "amber-graphics-checked.png");
  // Export Amber writes the draw: its EXPECT lines hold the image, the
  // file's own EQ_RGBA line among them, and `spvlab amber` passes it.
  const [dl] = await Promise.all([page.waitForEvent("download"), page.locator("#amber-export").click()]);
  const saved = await readFile(await dl.path(), "utf8");
  assert.match(saved, /\nRUN pipeline DRAW_RECT POS 0 0 SIZE \d+ \d+\n/);
  const theirs = /^EXPECT \S+ IDX 0 0 SIZE (\d+ \d+) EQ_RGBA ([\d ]+?)\s*$/m.exec(source);
  assert.ok(saved.includes(`EXPECT framebuffer IDX 0 0 SIZE ${theirs[1]} EQ_RGBA ${theirs[2]}\n`), saved);
  const bin = cli();
  if (bin) {
    const dir = await mkdtemp(path.join(tmpdir(), "spvlab-amber-draw-"));
    const out = path.join(dir, "draw.amber");
    await writeFile(out, saved);
    execFileSync(bin, ["amber", out], { stdio: "pipe" }); // throws on a failing EXPECT
  }
});

test("a graphics file the page's draw cannot hold is refused at its line", async () => {
  const file = path.join(corpus, REFUSED);
  const source = await readFile(file, "utf8");
  await page.locator("#open-file").setInputFiles(file);
  await page.waitForSelector("#run-amber[data-state='error'] .amber-error");
  const second = source.split("\n").flatMap((l, i) => (l.startsWith("RUN ") ? [i + 1] : []))[1];
  const at = await page.locator("#run-amber .amber-error .amber-at").textContent();
  assert.equal(at, `${path.basename(REFUSED)}:${second}:1`);
  assert.match(await page.locator("#run-amber .amber-error").textContent(), /second RUN/);
  assert.match(await page.locator("#banner").textContent(), new RegExp(`${path.basename(REFUSED)}:${second}:1`));
});

const pack = (json) => "v1/" + deflateRawSync(Buffer.from(JSON.stringify(json))).toString("base64url");

test("old links open; hostile run inputs say so and the page stays usable", async () => {
  // Written by the format before run inputs (core/src/share.rs keeps it too).
  const old = "v1/TYyxCsMwDER_JWgOhUAnZ-4ndOuiOHJi6p6LLYdCyL9XmdrldLzT3U4qHyVHYzdJyEW60vAA9aRcFtEbNgu3lp6M4TIYDw1eYwa5a09vhiR78GGx6FS3U4pVI8wGTlUMZ1QtzWslZ9fInF8RrLkYIWSIldc4yx1F2K88JflvK0f8Bo_jCw";
  const a = await openPage(browser, `${url}#${old}`);
  assert.equal(await a.page.evaluate(() => window.spvlab.editor.text()), "; before run\n");
  assert.equal(await a.page.locator("#target-env").inputValue(), "vulkan1.1");
  assert.ok(await a.page.locator("#banner").isHidden());
  await a.context.close();
  for (const run of [{ workgroups: [1, 2] }, { buffers: { "0.0": 5 } }, { invocation: "x" }, [1], { entry: 3 }]) {
    const b = await openPage(browser, `${url}#${pack({ text: "; hostile\n", targetEnv: "spv1.0", panel: "run", run })}`);
    assert.match(await b.page.locator("#banner").textContent(), /share link could not be opened/, JSON.stringify(run));
    // Still usable: the Run tab opens.
    await b.page.locator("#tab-run").click();
    assert.ok(await b.page.locator("#panel-run").isVisible());
    await b.context.close();
  }
});

test("a bad Amber file shows a located error; a geometry stage is not run", async () => {
  const bad = "#!amber\nSHADER compute s SPIRV-ASM\nOpCapability Shader\nEND\nBUFFER b DATA_TYPE uint32 DATA 1 two END\n";
  await page.locator("#open-file").setInputFiles({ name: "bad.amber", mimeType: "text/plain", buffer: Buffer.from(bad) });
  await page.waitForSelector("#run-amber[data-state='error'] .amber-error");
  const at = await page.locator("#run-amber .amber-error .amber-at").textContent();
  assert.match(at, /^bad\.amber:5:\d+$/);
  assert.match(await page.locator("#banner").textContent(), /bad\.amber:5:\d+/);
  const gfx = "#!amber\nSHADER vertex v PASSTHROUGH\nSHADER geometry g GLSL\nvoid main() {}\nEND\n";
  await page.locator("#open-file").setInputFiles({ name: "gfx.amber", mimeType: "text/plain", buffer: Buffer.from(gfx) });
  await page.waitForSelector("#run-amber[data-state='graphics']");
  assert.match(await page.locator("#banner").textContent(), /graphics stage/);
  const glsl = "#!amber\nSHADER compute s GLSL\n#version 450\nvoid main() {}\nEND\nPIPELINE compute p\n  ATTACH s\nEND\nRUN p 1 1 1\n";
  await page.locator("#open-file").setInputFiles({ name: "glsl.amber", mimeType: "text/plain", buffer: Buffer.from(glsl) });
  await page.waitForSelector("#run-amber[data-state='error']");
  assert.match(await page.locator("#run-amber .amber-error").textContent(), /glsl\.amber:2:1.*GLSL.*compile/s);
});

test("the page had no errors", () => {
  assert.deepEqual(errors, []);
});
