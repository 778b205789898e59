// The WGSL tab, in headless Chromium on the built page:
// * Alt+6 opens it; for the gallery's compute example "a loop with break and
//   continue" it shows the same WGSL as the CLI (`spvlab wgsl`) on the same text;
// * the source map, WGSL to SPIR-V: hovering the WGSL `loop {` line marks the
//   loop's OpLoopMerge in the editor, and hovering its first `if` the loop
//   header's OpBranchConditional (the example's lines 47 and 48, read off the
//   example by hand);
// * SPIR-V to WGSL: the cursor on the OpBranchConditional that skips zeros
//   (line 58) marks the `if` on that condition with its `continue;` and `}`;
//   the cursor on `OpStore %acc %a2` (line 62) marks the WGSL store to `acc`;
//   the cursor on the entry block's OpLabel (line 40, no WGSL of its own)
//   marks the WGSL of its block: the two variables `i` and `acc`;
// * a module our lowering refuses shows the reason code and the located
//   message, whose jump moves the editor's cursor to the instruction.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { root, serveDist, openPage, setText, screenshot, launch } from "./lib.mjs";
import { INT64 } from "./modules.mjs";

const EXAMPLE = path.join(root, "www/src/gallery/examples/compute-break-continue.spvasm");

/** The CLI that ./x build makes (release), else a debug one. */
function cli() {
  for (const p of ["target/release/spvlab", "target/debug/spvlab"]) if (existsSync(path.join(root, p))) return path.join(root, p);
  assert.fail("no spvlab CLI: run ./x build first");
}

let server, url, browser, page, context;
const errors = [];

before(async () => {
  const s = await serveDist();
  server = s.server;
  url = s.url;
  browser = await launch();
  ({ page, context } = await openPage(browser, url, { errors, viewport: { width: 1500, height: 1000 } }));
});

after(async () => {
  await context?.close();
  await browser?.close();
  server?.close();
});

/** Put `text` in the editor (for `env`) and wait until the WGSL tab shows
 *  the lowering of its analysis. */
async function load(text, env = "vulkan1.3") {
  if ((await page.locator("#target-env").inputValue()) !== env) {
    const before = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
    await page.selectOption("#target-env", env);
    await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
  }
  await setText(page, text);
  await page.waitForFunction(() => {
    const s = window.spvlab.store.get();
    return s.docVersion === s.reportVersion && document.getElementById("panel-wgsl").dataset.wgslFor === String(s.reportVersion);
  });
}

const wgslLines = () => page.evaluate(() => window.spvlab.wgsl.view.state.doc.toString().split("\n"));
const marked = () => page.evaluate(() => window.spvlab.wgsl.marked());

/** Hover WGSL line `k` (1-based) and wait for the editor's mark. */
async function hoverWgsl(k) {
  await page.evaluate((k) => {
    const v = window.spvlab.wgsl.view;
    v.dispatch({ effects: v.constructor.scrollIntoView(v.state.doc.line(k).from, { y: "center" }) });
  }, k);
  await page.waitForTimeout(50);
  const box = await page.evaluate((k) => {
    const v = window.spvlab.wgsl.view;
    const c = v.coordsAtPos(v.state.doc.line(k).from);
    return c && { x: c.left + 4, y: (c.top + c.bottom) / 2 };
  }, k);
  assert.ok(box, `WGSL line ${k} is drawn`);
  // Off the view first (its marks clear), then onto the line.
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => window.spvlab.wgsl.marked().spirv.length === 0);
  await page.mouse.move(box.x, box.y);
  await page.waitForFunction(() => window.spvlab.wgsl.marked().spirv.length > 0);
  return (await marked()).spirv;
}

/** Put the editor's cursor at the start of SPIR-V line `l` (1-based). */
async function cursorAt(l) {
  await page.evaluate((l) => {
    const v = window.spvlab.editor.view;
    v.dispatch({ selection: { anchor: v.state.doc.line(l).from + 4 } });
  }, l);
  await page.waitForFunction(() => window.spvlab.store.get().cursor >= 0);
  return (await marked()).wgsl;
}

test("Alt+6 opens the WGSL tab; it shows the CLI's WGSL of the gallery example", async () => {
  await page.locator("#editor .cm-content").click();
  await page.keyboard.press("Alt+6");
  assert.equal(await page.locator("#tab-wgsl").getAttribute("aria-selected"), "true");
  assert.equal(await page.locator("#panel-wgsl").isVisible(), true);
  const text = await readFile(EXAMPLE, "utf8");
  await load(text);
  const want = execFileSync(cli(), ["wgsl", "--target-env", "vulkan1.3", EXAMPLE], { encoding: "utf8" });
  const got = await page.evaluate(() => window.spvlab.wgsl.view.state.doc.toString());
  assert.equal(got, want);
  assert.match(await page.locator("#wgsl-status").textContent(), /our WGSL · \d+ lines/);
  assert.equal(await page.locator("#wgsl-refusal").isHidden(), true);
  // Highlighted: keywords in the read-only view.
  assert.ok((await page.locator("#wgsl-code .cm-line span").count()) > 10, "highlighted tokens");
});

test("hovering a WGSL line marks the SPIR-V instruction it came from", async () => {
  const lines = await wgslLines();
  const loop = lines.findIndex((l) => l.trim() === "loop {") + 1;
  assert.ok(loop > 0, "a loop");
  assert.deepEqual(await hoverWgsl(loop), [47], "loop { <- OpLoopMerge %merge %continue None");
  const marks = page.locator("#editor .cm-line.cm-wgsl-src");
  await page.waitForFunction(() => document.querySelectorAll("#editor .cm-line.cm-wgsl-src").length === 1);
  assert.match(await marks.first().textContent(), /OpLoopMerge %merge %continue None/);
  // The first `if` after the loop: the header's conditional branch.
  const firstIf = lines.findIndex((l, k) => k >= loop && /^\s*if /.test(l)) + 1;
  assert.deepEqual(await hoverWgsl(firstIf), [48], "if <- OpBranchConditional %more %body %merge");
  await page.waitForFunction(() => /OpBranchConditional %more/.test(document.querySelector("#editor .cm-line.cm-wgsl-src")?.textContent ?? ""));
  // The `continuing {` of the loop: its OpLoopMerge too.
  const cont = lines.findIndex((l) => l.trim() === "continuing {") + 1;
  assert.deepEqual(await hoverWgsl(cont), [47]);
  await screenshot(page, "wgsl-tab.png");
  // Leaving the view clears the mark.
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => window.spvlab.wgsl.marked().spirv.length === 0);
});

test("the SPIR-V cursor marks the WGSL of its instruction, or of its block", async () => {
  const lines = await wgslLines();
  // Line 58 `OpBranchConditional %skip %continue %add`: the `if` whose body
  // is the continue, with its `continue;` and its `}`.
  const ifCont = lines.findIndex((l, k) => /^\s*if \w+ \{$/.test(l) && lines[k + 1].trim() === "continue;") + 1;
  assert.ok(ifCont > 0);
  assert.deepEqual(await cursorAt(58), [ifCont, ifCont + 1, ifCont + 2]);
  // Line 62 `OpStore %acc %a2`: the store to acc.
  const store = await cursorAt(62);
  assert.equal(store.length, 1);
  assert.match(lines[store[0] - 1], /^\s*acc = \w+;$/);
  // Line 40 `%entry = OpLabel` (no WGSL of its own): its block's variables.
  const entry = await cursorAt(40);
  assert.deepEqual(entry.map((k) => lines[k - 1].trim()), ["var i: u32 = 0u;", "var acc: u32 = 0u;"]);
  await page.waitForFunction(() => document.querySelectorAll("#wgsl-code .cm-line.cm-wgsl-map").length === 2);
});

test("a refused module shows the reason code and jumps to the instruction", async () => {
  await load(INT64);
  await page.waitForSelector("#wgsl-refusal:not([hidden])");
  assert.equal(await page.locator("#wgsl-refusal-code").textContent(), "wgsl.int64");
  const text = await page.locator("#wgsl-refusal").textContent();
  assert.match(text, /capability Int64 \(line 2:1\)/);
  assert.match(text, /32-bit integers/);
  assert.equal(await page.evaluate(() => window.spvlab.wgsl.view.state.doc.length), 0);
  await page.locator("#wgsl-refusal .jump").click();
  const line = await page.evaluate(() => {
    const v = window.spvlab.editor.view;
    return v.state.doc.lineAt(v.state.selection.main.head).number;
  });
  assert.equal(line, 2);
  await screenshot(page, "wgsl-refused.png");
  assert.deepEqual(errors, []);
});
