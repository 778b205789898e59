// Browser tests of the Flesh tab (www/src/panels/flesh.ts) and its quiz
// (www/src/teach/quiz.ts) on the built page, in headless Chromium with
// WebGPU (--enable-unsafe-webgpu: SwiftShader's adapter):
// * "Generate random CFG" puts a valid structured CFG in the editor as one
//   edit (undo gives the user's text back); "Flesh and run" in each mode
//   runs the program on the interpreter and on WebGPU, and both pass. The
//   expected path is checked against the CFG itself (the report's blocks and
//   branch edges: it starts at the entry, follows edges, ends at an exit),
//   and a pass means the backend's output buffer holds exactly that path.
//   The path plays on the CFG panel; the program opens as a module (one
//   edit), in a share link, and as an Amber test;
// * an invalid module is refused with its diagnostics (the validator's,
//   as the Problems panel lists them), a function with no way out with the
//   located reason;
// * a quiz question answered right and one answered wrong, the key read
//   from the engine's question (the validator's verdict and the block its
//   first error points at), each with the explanation shown.
//
// Screenshots: tests/artifacts/flesh-pass.png, flesh-quiz.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { root, serveDist, launch, openPage, setText, editorText, screenshot } from "./lib.mjs";

let server, browser, page, context;
const errors = [];

before(async () => {
  const s = await serveDist();
  server = s.server;
  browser = await launch({ webgpu: true });
  ({ page, context } = await openPage(browser, s.url, { errors, viewport: { width: 1500, height: 900 } }));
  await page.locator("#tab-flesh").click();
});

after(async () => {
  await context?.close();
  await browser?.close();
  server?.close();
});

const flesh = () => page.evaluate(() => window.spvlab.store.get().flesh);

/** Press "Flesh and run" and wait until every backend answered. */
async function fleshAndRun(mode, seed) {
  await page.locator("#flesh-mode").selectOption(mode);
  await page.locator("#flesh-seed").fill(String(seed));
  const before = Number((await page.locator("#panel-flesh").getAttribute("data-done")) ?? 0);
  await page.locator("#flesh-go").click();
  await page.waitForFunction((n) => Number(document.getElementById("panel-flesh").dataset.done ?? 0) > n, before, { timeout: 120_000 });
  return flesh();
}

/** Undo in the editor (Ctrl+Z) and wait for the analysis of the result. */
async function undo() {
  const before = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
  await page.locator("#editor .cm-content").click();
  await page.keyboard.press("Control+z");
  await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
}

/** Whether every loop of the analysed function can be left: its merge block
 *  is reachable. A loop nothing leaves is "obviously infinite" to WGSL's
 *  behaviour analysis, which Tint (Chromium's WebGPU) refuses: the lowering
 *  must give it a way out, so the test picks a CFG with such a loop. */
function loopsExit(f) {
  const reachable = new Set(f.blocks.filter((b) => b.reachable).map((b) => b.id));
  const headers = new Set(f.blocks.filter((b) => b.roles.includes("loop-header")).map((b) => b.id));
  return f.edges.filter((e) => e.kind === "merge" && headers.has(e.from)).every((e) => reachable.has(e.to));
}

test("generate a random CFG, flesh it in each mode, and see pass on the interpreter and on WebGPU", { timeout: 300_000 }, async () => {
  // The first seed whose CFG of about 14 blocks has a loop nothing leaves.
  let seed = 1;
  for (; seed < 50; seed++) {
    const { generated } = await page.evaluate((seed) => window.spvlab.engine.send({ kind: "generateCfg", request: { seed, blocks: 14, depth: 4 } }), seed);
    await setText(page, generated.text);
    const f = (await page.evaluate(() => window.spvlab.store.get().report)).functions[0];
    if (!loopsExit(f) && f.blocks.length >= 8) break;
  }
  assert.ok(seed < 50, "no generated CFG with a loop nothing leaves");
  const mine = "; the user's own text\n" + (await editorText(page));
  await setText(page, mine);
  await page.locator("#gen-blocks").fill("14");
  await page.locator("#gen-depth").fill("4");
  await page.locator("#gen-seed").fill(String(seed));
  const before = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
  await page.locator("#gen-go").click();
  await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
  const generated = await editorText(page);
  assert.notEqual(generated, mine);
  const report = await page.evaluate(() => window.spvlab.store.get().report);
  assert.ok(report.valid, JSON.stringify(report.diagnostics.slice(0, 2)));
  assert.equal(report.functions.length, 1);
  const f = report.functions[0];
  assert.ok(f.blocks.length >= 8, `${f.blocks.length} blocks`);
  // The generation was one edit: undo gives the user's text back, and redo the CFG.
  await undo();
  assert.equal(await editorText(page), mine);
  const redoFrom = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
  await page.keyboard.press("Control+y");
  await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, redoFrom);
  assert.equal(await editorText(page), generated);

  const branch = new Set(f.edges.filter((e) => e.kind === "branch").map((e) => `${e.from}-${e.to}`));
  const entry = f.blocks.find((b) => b.entry).id;
  const exits = new Set(f.blocks.filter((b) => b.exit).map((b) => b.id));
  for (const [mode, seed] of [["basic", 5], ["phi", 6], ["multi", 7]]) {
    const s = await fleshAndRun(mode, seed);
    const p = s.outcome.program;
    assert.ok(p, JSON.stringify(s.outcome.failure));
    assert.equal(p.function, f.id);
    assert.equal(p.paths.length, mode === "multi" ? 4 : 1);
    // Each path is a path of the CFG the page analysed, entry to exit.
    for (const path of p.paths) {
      const ids = path.blocks.map((b) => b.id);
      assert.equal(ids[0], entry, mode);
      assert.ok(exits.has(ids.at(-1)), `${mode}: ends at ${ids.at(-1)}`);
      for (let i = 1; i < ids.length; i++) assert.ok(branch.has(`${ids[i - 1]}-${ids[i]}`), `${mode}: ${ids[i - 1]} -> ${ids[i]} is no branch edge`);
      for (const b of path.blocks) assert.equal(b.name, `%${f.blocks.find((x) => x.id === b.id).name}`);
    }
    // The interpreter and WebGPU each wrote exactly the expected words.
    for (const [key, r] of [["interp", s.interp], ["wgpu", s.gpu]]) {
      assert.ok(r.ok, `${mode} ${key}: ${JSON.stringify(r.error)}`);
      const out = r.buffers.find((b) => `${b.set}.${b.binding}` === p.output);
      const words = [];
      for (let i = 0; i < out.bytes.length; i += 4) words.push(out.bytes[i] | (out.bytes[i + 1] << 8) | (out.bytes[i + 2] << 16) | (out.bytes[i + 3] * 2 ** 24));
      assert.deepEqual(words, p.expected, `${mode} ${key}`);
      assert.equal(await page.locator(`#flesh-backends tr[data-backend="${key}"]`).getAttribute("data-verdict"), "pass", `${mode} ${key}`);
    }
    assert.match(s.gpu.adapter ?? "", /WebGPU/);
    for (let i = 0; i < p.paths.length; i++) {
      const labels = p.expected.slice(i * p.outputStride, (i + 1) * p.outputStride).filter((w) => w !== 0);
      assert.deepEqual(labels, p.paths[i].blocks.map((b) => b.id));
    }
  }
  await screenshot(page, "flesh-pass.png");
  const p = (await flesh()).outcome.program;

  // The first path, played on the CFG panel.
  await page.locator("#flesh-show-path").click();
  const cfg = page.locator("#panel-cfg");
  await page.waitForFunction((want) => document.getElementById("panel-cfg").dataset.path === want, p.paths[0].blocks.map((b) => b.id).join(","));
  assert.equal(await cfg.getAttribute("data-path-mode"), "path");
  await page.waitForFunction((n) => document.getElementById("panel-cfg").dataset.pathStep === String(n - 1), p.paths[0].blocks.length, { timeout: 60_000 });
  assert.equal(await cfg.getAttribute("data-path-playing"), null);
  await page.locator("#tab-flesh").click();

  // A share link holds the program with its directions.
  await page.locator("#flesh-share").click();
  await page.waitForFunction(() => document.getElementById("flesh-link").value !== "");
  const link = await page.locator("#flesh-link").inputValue();
  const fragment = link.split("#")[1];
  assert.match(fragment, /^v1\//);
  const shared = await page.evaluate((f) => window.spvlab.engine.send({ kind: "decodeShare", fragment: f }), fragment);
  assert.equal(shared.state.text, p.text);
  assert.equal(shared.state.run.buffers["0.0"], p.buffers["0.0"]);

  // Download Amber: the program's test, its EXPECT line the path.
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#flesh-amber").click()]);
  const amber = await readFile(await download.path(), "utf8");
  assert.match(amber, /EXPECT output IDX 0 EQ/);
  assert.ok(amber.includes(p.expected.slice(0, 3).join(" ")), amber);

  // Open as module: one edit; undo gives the generated CFG back.
  const opened = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
  await page.locator("#flesh-open").click();
  await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, opened);
  assert.equal(await editorText(page), p.text);
  assert.ok(await page.evaluate(() => window.spvlab.store.get().report.valid));
  await undo();
  assert.equal(await editorText(page), generated);
  assert.deepEqual(errors, []);
});

test("a module fleshing cannot use is refused with its diagnostics or the located reason", { timeout: 120_000 }, async () => {
  // Fig. 7 of the paper: invalid (cyclic merges).
  const fig7 = await readFile(path.join(root, "www/src/gallery/examples/paper-fig7.spvasm"), "utf8");
  await setText(page, fig7);
  const report = await page.evaluate(() => window.spvlab.store.get().report);
  assert.equal(report.valid, false);
  await page.locator("#tab-flesh").click();
  let s = await fleshAndRun("basic", 1);
  assert.equal(s.outcome.program, undefined);
  assert.equal(s.outcome.failure.stage, "skeleton");
  assert.equal(await page.locator("#flesh-failure").getAttribute("data-error"), "notValid");
  const codes = await page.locator("#flesh-failure .flesh-diag").evaluateAll((ls) => ls.map((l) => l.dataset.code));
  assert.deepEqual(codes, report.diagnostics.map((d) => d.code));
  assert.equal(await page.locator("#flesh-backends").count(), 0);

  // A loop nothing leaves: no path to a return, located at the entry block.
  await setText(
    page,
    'OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main "main"\nOpExecutionMode %main LocalSize 1 1 1\n' +
      "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n%start = OpLabel\nOpBranch %head\n" +
      "%head = OpLabel\nOpLoopMerge %merge %head None\nOpBranch %head\n%merge = OpLabel\nOpReturn\nOpFunctionEnd\n",
  );
  assert.ok(await page.evaluate(() => window.spvlab.store.get().report.valid));
  s = await fleshAndRun("basic", 1);
  const failure = s.outcome.failure;
  assert.equal(failure.stage, "flesh");
  assert.equal(failure.error.error, "noExit");
  const start = (await page.evaluate(() => window.spvlab.store.get().report)).functions[0].blocks.find((b) => b.entry);
  assert.deepEqual(failure.block, { id: start.id, name: "%start" });
  assert.equal(await page.locator("#flesh-failure").getAttribute("data-block"), String(start.id));
  assert.match(await page.locator("#flesh-failure").textContent(), /%start/);
});

/** The codes rules-data.ts explains (the quiz shows that entry). */
async function taughtCodes() {
  const text = await readFile(path.join(root, "www/src/teach/rules-data.ts"), "utf8");
  return new Set([...text.matchAll(/^ {2}"([a-z0-9.-]+)": \{/gm)].map((m) => m[1]));
}

test("a quiz question answered right and one answered wrong, each explained", { timeout: 120_000 }, async () => {
  const taught = await taughtCodes();
  // The engine's questions, keyed by the validator: one invalid with a block
  // at fault and a rule to teach, and one valid.
  const questions = await page.evaluate(async () => {
    const out = [];
    for (let seed = 1; seed <= 60; seed++) out.push((await window.spvlab.engine.send({ kind: "quiz", seed, blocks: 8 })).question);
    return out;
  });
  const invalid = questions.find((q) => !q.valid && q.fault && taught.has(q.diagnostic.code));
  const valid = questions.find((q) => q.valid);
  assert.ok(invalid && valid, "the first 60 questions have both kinds");
  const share = questions.filter((q) => q.valid).length / questions.length;
  assert.ok(share > 0.25 && share < 0.75, `${share} of the questions are valid`);
  // The key is the validator's: the question's text, analysed by the page,
  // gives the same verdict and the same first error.
  for (const q of [invalid, valid]) {
    await setText(page, q.text);
    const r = await page.evaluate(() => window.spvlab.store.get().report);
    assert.equal(r.valid, q.valid);
    if (!q.valid) assert.equal(r.diagnostics.find((d) => d.severity === "error").code, q.diagnostic.code);
  }
  await page.locator("#tab-flesh").click();
  const quiz = page.locator("#flesh-quiz");
  async function ask(seed) {
    const n = Number((await quiz.getAttribute("data-asked")) ?? 0);
    await page.locator("#quiz-seed").fill(String(seed));
    await page.locator("#quiz-new").click();
    await page.waitForFunction((n) => Number(document.getElementById("flesh-quiz").dataset.asked) > n, n);
    await page.waitForSelector("#quiz-graph[data-state='ready'] svg g.node");
  }

  // Right: "invalid", then a click on the block the validator points at.
  await ask(invalid.seed);
  await page.locator("#quiz-invalid").click();
  assert.equal(await quiz.getAttribute("data-picking"), "true");
  await page.locator(`#quiz-graph g.node[id="block-${invalid.fault.id}"]`).click();
  const answer = page.locator("#quiz-answer");
  assert.equal(await answer.getAttribute("data-right"), "true");
  const shown = await answer.textContent();
  assert.match(shown, /^Right\./);
  assert.ok(shown.includes(invalid.diagnostic.message), shown);
  assert.ok(shown.includes(invalid.fault.name), shown);
  const teaching = answer.locator(`.rule-teaching[data-code="${invalid.diagnostic.code}"]`);
  assert.equal(await teaching.count(), 1);
  assert.equal(await teaching.locator("button.example-link").count(), 1, "the paper's figure the rule names");
  assert.equal(await page.locator(`#quiz-graph g.node.cfg-diag`).getAttribute("id"), `block-${invalid.fault.id}`);
  await screenshot(page, "flesh-quiz.png");

  // Wrong: the same question said valid.
  await ask(invalid.seed);
  await page.locator("#quiz-valid").click();
  assert.equal(await answer.getAttribute("data-right"), "false");
  const wrong = await answer.textContent();
  assert.match(wrong, /^Wrong\./);
  assert.ok(wrong.includes(invalid.diagnostic.message), wrong);
  assert.equal(await answer.locator(".rule-teaching").count(), 1);

  // Wrong: a valid question said invalid, with a block picked from the list
  // (the keyboard's way).
  await ask(valid.seed);
  await page.locator("#quiz-invalid").click();
  await page.locator("#quiz-block").selectOption(String(valid.blocks[0].id));
  await page.locator("#quiz-pick").click();
  assert.equal(await answer.getAttribute("data-right"), "false");
  assert.match(await answer.textContent(), /^Wrong\.The validator accepts this module/);

  // Next question: the following seed.
  const n = Number(await quiz.getAttribute("data-asked"));
  await page.locator("#quiz-next").click();
  await page.waitForFunction((n) => Number(document.getElementById("flesh-quiz").dataset.asked) > n, n);
  assert.equal((await flesh()).quiz.question.seed, valid.seed + 1);
  assert.deepEqual(errors, []);
});
