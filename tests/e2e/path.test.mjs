// The path on the CFG, in headless Chromium on the
// built page. On the paper's figures 2, 3 and 4 fleshed as runnable modules
// (www/src/gallery/examples/paper-fig{2,3,4}-run.spvasm, section 6 of the
// paper: each block appends its number to `out`, each conditional branch
// reads its direction from `dirs`), with the directions their captions give:
// * the path drawn on the CFG, read block by block with the step control,
//   equals the interpreter's trace, the block sequence worked out by hand from
//   the figure (stated in the caption and here), and the path the module
//   recorded in its output buffer;
// * the step control (buttons and keys) moves the editor's block highlight;
// * leaving a construct shows the merge edge structured control flow implies;
// * the heat view and the pick by a buffer cell indexed by GlobalInvocationId.x.
// Writes tests/artifacts/run-path-fig2.png (and run-heat-fig2.png).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { root, serveDist, openPage, screenshot, launch, loadForRun, runOnce } from "./lib.mjs";

const examples = path.join(root, "www/src/gallery/examples");

/** Directions and the expected path, worked out by hand from the figures. */
const FIGS = [
  { fig: 2, dirs: "u32: 1 1 1 0 0", expected: "b1 b2 b3 b4 b6 b7 b2 b3 b5 b6 b7 b2 b8" },
  { fig: 3, dirs: "u32: 1 1 0", expected: "b1 b2 b3 b4 b5 b6 b2 b3 b7" },
  { fig: 4, dirs: "u32: 1 1 1 0 0", expected: "b1 b2 b3 b5 b2 b3 b4 b5 b2 b6" },
];

/** out[x] = x * 2 over 8 invocations, and an if on x < 3 (`%small` or
 *  `%big`): `out` is indexed by GlobalInvocationId.x. */
const BY_GID = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid %out
OpExecutionMode %main LocalSize 8 1 1
OpMemberName %S 0 "data"
OpName %entry "entry"
OpName %small "small"
OpName %big "big"
OpName %done "done"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %S 0 Offset 0
OpDecorate %S Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%uint_2 = OpConstant %uint 2
%uint_3 = OpConstant %uint 3
%uint_8 = OpConstant %uint 8
%arr = OpTypeArray %uint %uint_8
%S = OpTypeStruct %arr
%pS = OpTypePointer StorageBuffer %S
%out = OpVariable %pS StorageBuffer
%v3 = OpTypeVector %uint 3
%pv3 = OpTypePointer Input %v3
%gid = OpVariable %pv3 Input
%pu = OpTypePointer StorageBuffer %uint
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3 %gid
%x = OpCompositeExtract %uint %g 0
%p = OpAccessChain %pu %out %uint_0 %x
%d = OpIMul %uint %x %uint_2
OpStore %p %d
%lt = OpULessThan %bool %x %uint_3
OpSelectionMerge %done None
OpBranchConditional %lt %small %big
%small = OpLabel
OpBranch %done
%big = OpLabel
OpBranch %done
%done = OpLabel
OpReturn
OpFunctionEnd
`;

/** main calls %f between its blocks %entry and %done; %f has two blocks. */
const CALL = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpName %f "f"
OpName %entry "entry"
OpName %done "done"
OpName %fentry "fentry"
OpName %fend "fend"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
%r = OpFunctionCall %void %f
OpBranch %done
%done = OpLabel
OpReturn
OpFunctionEnd
%f = OpFunction %void None %fn
%fentry = OpLabel
OpBranch %fend
%fend = OpLabel
OpReturn
OpFunctionEnd
`;

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

/** Put `text` in the editor, open the Run tab and wait for its reflection. */
async function load(text, env) {
  await page.locator("#tab-run").click();
  await loadForRun(page, text, env);
}


/** Click a cell of the Run tab's results and wait for the path drawn. */
async function clickCell(key, cellPath, { redrawn = true } = {}) {
  const [n, renders] = await page.evaluate(() => {
    const p = document.getElementById("panel-cfg");
    return [Number(p.dataset.pathTraces ?? 0), Number(p.dataset.renders ?? 0)];
  });
  const t0 = performance.now();
  await page.locator(`section.run-buffer[data-key="${key}"] tr[data-path="${cellPath}"] td.cell[data-backend="interp"]`).click();
  // A new module is drawn anew (the panel was hidden while it changed).
  await page.waitForFunction(
    ([n, renders, redrawn]) => {
      const p = document.getElementById("panel-cfg");
      return Number(p.dataset.pathTraces ?? 0) > n && (!redrawn || Number(p.dataset.renders ?? 0) > renders) && p.dataset.state === "ready" && p.querySelector(".cfg-svg.path-on g.node.path-current");
    },
    [n, renders, redrawn],
    { polling: 5 },
  );
  return performance.now() - t0;
}

/** The interpreter's trace of invocation `inv` with the last run's inputs,
 *  asked of the engine directly, as block names. */
async function interpreterTrace(inv) {
  return page.evaluate(async (inv) => {
    const { engine, store, run } = window.spvlab;
    const r = await engine.send({ kind: "run", request: { ...run.last().request, paths: [inv], edges: true } });
    const names = new Map();
    for (const f of store.get().report.functions) for (const b of f.blocks) names.set(b.id, b.name);
    const p = r.result.trace.paths.find((p) => p.invocation.join() === inv.join());
    const out = [];
    for (const s of p.segments) for (let i = 0; i < s.count; i++) for (const b of s.blocks) out.push(names.get(b.label));
    return { blocks: out, edges: r.result.trace.edges };
  }, inv);
}

/** What the panel shows now: the current block, the editor's highlighted
 *  block's first line, the step text. */
async function current() {
  return page.evaluate(() => {
    const p = document.getElementById("panel-cfg");
    const g = p.querySelector(".cfg-svg g.node.path-current");
    const names = new Map();
    for (const f of window.spvlab.store.get().report.functions) for (const b of f.blocks) names.set(`block-${b.id}`, b.name);
    const line = document.querySelector("#editor .cm-block-selected");
    return { block: g ? names.get(g.id) : null, editor: line ? line.textContent.trim() : null, step: p.dataset.pathStep };
  });
}

/** Walk the path with the step control from its first block to its last. */
async function walk() {
  await page.locator("#path-first").click();
  const seen = [];
  for (let i = 0; i < 200; i++) {
    await page.waitForFunction((i) => document.getElementById("panel-cfg").dataset.pathStep === String(i), i);
    const c = await current();
    seen.push(c);
    if (await page.locator("#path-next").isDisabled()) break;
    const before = c.step;
    await page.locator("#path-next").click();
    const after = await page.evaluate(() => document.getElementById("panel-cfg").dataset.pathStep);
    if (after === before) break;
  }
  return seen;
}

for (const { fig, dirs, expected } of FIGS) {
  test(`fig. ${fig} fleshed: the drawn path is the interpreter's trace, the hand-worked sequence and the recorded one`, async () => {
    const text = await readFile(path.join(examples, `paper-fig${fig}-run.spvasm`), "utf8");
    // The caption (in the gallery's index) states the same directions and path.
    const index = await readFile(path.join(root, "www/src/gallery/index.ts"), "utf8");
    const entry = index.slice(index.indexOf(`id: "paper-fig${fig}-run"`));
    const caption = entry.slice(0, entry.indexOf("targetEnv"));
    assert.ok(caption.includes(`Chosen directions: ${dirs}`), `fig. ${fig}: the caption's directions`);
    assert.ok(caption.includes(`worked out by hand: ${expected},`), `fig. ${fig}: the caption's path`);
    assert.ok(text.includes(`Directions ${dirs.replace("u32: ", "")} give the path`) && text.includes(`;   ${expected}`), `fig. ${fig}: the module's comment`);

    await load(text, "spv1.6");
    await page.locator('input.run-input[data-key="0.0"]').fill(dirs);
    const r = await runOnce(page);
    assert.ok(r.interp?.ok, `fig. ${fig}: ${JSON.stringify(r.interp?.error)}`);
    const want = expected.split(" ");
    // The path the module recorded: out.block[i] = N for block bN, then zeros.
    const out = r.interp.buffers.find((b) => b.name === "%out");
    const recorded = out.value.block.filter((n) => n !== 0).map((n) => `b${n}`);
    assert.deepEqual(recorded, want, `fig. ${fig}: the output buffer's recorded path`);
    // WebGPU (SwiftShader) records the same path: the fleshing's own oracle.
    if (r.gpu?.ok) assert.deepEqual(r.gpu.buffers.find((b) => b.name === "%out").bytes, out.bytes, `fig. ${fig}: WebGPU's recorded path`);
    else console.log(`# fig. ${fig}: WebGPU not compared (${r.gpu?.error?.kind}: ${r.gpu?.error?.message})`);

    // A cell of `out` (not indexed by the invocation's id: the path bar's 0,0,0).
    const ms = await clickCell(out.set + "." + out.binding, "block[0]");
    console.log(`# fig. ${fig}: from the click on a cell to the path drawn (trace, tab switch, layout): ${ms.toFixed(0)} ms`);
    assert.equal(await page.locator("#tab-cfg").getAttribute("aria-selected"), "true", "the CFG panel comes forward");
    const panel = page.locator("#panel-cfg");
    assert.equal(await panel.getAttribute("data-path-invocation"), "0,0,0");
    const trace = await interpreterTrace([0, 0, 0]);
    assert.deepEqual(trace.blocks, want, `fig. ${fig}: the interpreter's trace`);

    // Drawn: every visited block marked, the others not; the taken edges with
    // this invocation's counts.
    const drawn = await page.evaluate(() => {
      const svg = document.querySelector("#panel-cfg .cfg-svg");
      const names = new Map();
      for (const f of window.spvlab.store.get().report.functions) for (const b of f.blocks) names.set(b.id, b.name);
      const visited = [...svg.querySelectorAll("g.node.path-visited")].map((g) => names.get(Number(g.id.slice(6)))).sort();
      const edges = [...svg.querySelectorAll("g.edge.path-taken")].map((g) => {
        const [, a, b] = /^edge-(\d+)-(\d+)-/.exec(g.id);
        return `${names.get(Number(a))}>${names.get(Number(b))}=${g.dataset.count}`;
      });
      return { visited, edges: edges.sort(), dimmed: svg.querySelectorAll("g.node:not(.path-visited)").length };
    });
    assert.deepEqual(drawn.visited, [...new Set(want)].sort(), `fig. ${fig}: the visited blocks drawn`);
    const counts = new Map();
    for (let i = 1; i < want.length; i++) counts.set(`${want[i - 1]}>${want[i]}`, (counts.get(`${want[i - 1]}>${want[i]}`) ?? 0) + 1);
    assert.deepEqual(drawn.edges, [...counts].map(([k, n]) => `${k}=${n}`).sort(), `fig. ${fig}: the edges drawn, with their counts`);

    // The step control walks the drawn path: it is the expected sequence, and
    // the editor's block highlight follows (the block's OpLabel line first).
    const seen = await walk();
    assert.deepEqual(seen.map((s) => s.block), want, `fig. ${fig}: the path stepped on the graph`);
    for (const s of seen) assert.match(s.editor ?? "", new RegExp(`^%${s.block} = OpLabel`), `fig. ${fig}: the editor highlights ${s.block}`);
    // Keys, with the graph focused: Home, then "." and ",".
    await page.locator("#panel-cfg .cfg-view").focus();
    await page.keyboard.press("Home");
    assert.equal((await current()).block, want[0]);
    await page.keyboard.press(".");
    await page.keyboard.press(".");
    assert.equal((await current()).block, want[2]);
    assert.match((await current()).editor, new RegExp(`^%${want[2]} = OpLabel`));
    await page.keyboard.press(",");
    assert.equal((await current()).block, want[1]);
    await page.keyboard.press("End");
    assert.equal((await current()).block, want.at(-1));

    if (fig === 3) {
      // Step 8 is b3 -> b7: it leaves the selection headed by b3 (merge b5)
      // and the loop headed by b2 (merge b7), a break.
      for (let i = 0; i < 8; i++) await page.keyboard.press(i === 0 ? "Home" : ".");
      await page.keyboard.press(".");
      assert.equal((await current()).block, "b7");
      const note = await page.locator("#path-note").textContent();
      assert.match(note, /selection construct headed by %b3: structured control flow implies its merge edge %b3 → %b5; the branch taken is %b3 → %b7 \(a break to the merge of the loop headed by %b2\)/);
      assert.match(note, /loop construct headed by %b2: structured control flow implies its merge edge %b2 → %b7; the branch taken is %b3 → %b7 \(to the merge itself\)/);
      assert.ok((await page.locator("#panel-cfg g.edge.path-implied").count()) >= 1, "the implied merge edge is marked");
    }
    if (fig === 4) {
      // Step 3 is b3 -> b5: a continue out of the selection headed by b3.
      await page.keyboard.press("Home");
      for (let i = 0; i < 3; i++) await page.keyboard.press(".");
      assert.equal((await current()).block, "b5");
      assert.match(await page.locator("#path-note").textContent(), /merge edge %b3 → %b4; the branch taken is %b3 → %b5 \(a continue to the continue target of the loop headed by %b2\)/);
    }
    if (fig === 2) {
      await page.keyboard.press("Home");
      for (let i = 0; i < 8; i++) await page.keyboard.press(".");
      assert.equal((await current()).block, "b5");
      await screenshot(page, "run-path-fig2.png");
      // The heat view: visits over all invocations (one here), with a legend.
      await page.selectOption("#path-mode", "heat");
      assert.ok(await page.locator("#path-legend").isVisible(), "the heat legend");
      const visits = await page.evaluate(() => {
        const names = new Map();
        for (const f of window.spvlab.store.get().report.functions) for (const b of f.blocks) names.set(b.id, b.name);
        return Object.fromEntries([...document.querySelectorAll("#panel-cfg .cfg-svg.heat-on g.node.path-visited")].map((g) => [names.get(Number(g.id.slice(6))), Number(g.dataset.visits)]));
      });
      const times = {};
      for (const b of want) times[b] = (times[b] ?? 0) + 1;
      assert.deepEqual(visits, times, "the heat view's visit counts");
      await screenshot(page, "run-heat-fig2.png");
      await page.selectOption("#path-mode", "path");
      // A new run with other directions: the path shown follows it.
      await page.locator("#tab-run").click();
      await page.locator('input.run-input[data-key="0.0"]').fill("u32: 1 0 0");
      const n = Number(await panel.getAttribute("data-path-traces"));
      await runOnce(page);
      await page.waitForFunction((n) => Number(document.getElementById("panel-cfg").dataset.pathTraces) > n, n);
      const names = await page.evaluate(() => {
        const m = new Map();
        for (const f of window.spvlab.store.get().report.functions) for (const b of f.blocks) m.set(String(b.id), b.name);
        return document.getElementById("panel-cfg").dataset.path.split(",").map((id) => m.get(id));
      });
      assert.deepEqual(names, ["b1", "b2", "b3", "b5", "b6", "b7", "b2", "b8"], "the path of the new run");
    }
  });
}

test("a path through a call: the step control shows the callee's blocks in its own graph", async () => {
  await load(CALL, "vulkan1.3");
  await runOnce(page);
  await page.locator("#tab-cfg").click();
  const ids = await page.evaluate(() => Object.fromEntries(window.spvlab.store.get().report.functions.map((f) => [f.name, f.id])));
  const before = Number(await page.evaluate(() => document.getElementById("panel-cfg").dataset.pathTraces ?? 0));
  await page.locator("#path-trace").click();
  await page.waitForFunction((n) => Number(document.getElementById("panel-cfg").dataset.pathTraces ?? 0) > n, before);
  const trace = await interpreterTrace([0, 0, 0]);
  assert.deepEqual(trace.blocks, ["entry", "fentry", "fend", "done"]);
  const panel = page.locator("#panel-cfg");
  const shown = [];
  await page.locator("#path-first").click();
  for (let i = 0; i < 4; i++) {
    if (i > 0) await page.locator("#path-next").click();
    await page.waitForFunction(() => {
      const p = document.getElementById("panel-cfg");
      return p.dataset.state === "ready" && p.querySelector(".cfg-svg.path-on g.node.path-current");
    });
    shown.push([await panel.getAttribute("data-function"), (await current()).block]);
  }
  const m = String(ids.main);
  const f = String(ids.f);
  assert.deepEqual(shown, [[m, "entry"], [f, "fentry"], [f, "fend"], [m, "done"]]);
  // main's edge entry -> done is drawn taken once (the call is not an edge).
  await page.locator("#path-last").click();
  const taken = await page.$$eval("#panel-cfg .cfg-svg g.edge.path-taken", (l) => l.map((g) => g.dataset.count));
  assert.deepEqual(taken, ["1"]);
});

test("a cell of a buffer indexed by GlobalInvocationId.x picks the invocation that wrote it", async () => {
  await load(BY_GID, "vulkan1.3");
  const r = await runOnce(page);
  assert.ok(r.interp?.ok, JSON.stringify(r.interp?.error));
  await clickCell("0.0", "data[5]");
  const panel = page.locator("#panel-cfg");
  assert.equal(await panel.getAttribute("data-path-invocation"), "5,0,0");
  const seen = await walk();
  assert.deepEqual(seen.map((s) => s.block), ["entry", "big", "done"]);
  await page.locator("#tab-run").click();
  await clickCell("0.0", "data[1]", { redrawn: false });
  assert.equal(await panel.getAttribute("data-path-invocation"), "1,0,0");
  assert.deepEqual((await walk()).map((s) => s.block), ["entry", "small", "done"]);
  // Heat: over the 8 invocations, 3 took %small and 5 %big.
  await page.selectOption("#path-mode", "heat");
  const counts = await page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll("#panel-cfg .cfg-svg.heat-on g.edge.path-taken")].map((g) => [g.id.replace(/-branch.*$/, ""), Number(g.dataset.count)])),
  );
  assert.deepEqual(Object.values(counts).sort((a, b) => a - b), [3, 3, 5, 5]);
  await page.selectOption("#path-mode", "path");
  // An id outside the dispatch: said so, nothing drawn as its path.
  await page.locator("#path-x").fill("20");
  await page.locator("#path-trace").click();
  await page.waitForFunction(() => document.getElementById("panel-cfg").dataset.pathState === "error");
  assert.match(await page.locator("#path-pos").textContent(), /invocation \(20,0,0\) did not run: the dispatch has 8 invocations/);
  assert.equal(await page.locator("#panel-cfg .cfg-svg g.node.path-visited").count(), 0);
  assert.deepEqual(errors, [], "no page errors");
});
