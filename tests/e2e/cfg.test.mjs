// Browser tests of the CFG panel (www/src/cfg) and the examples gallery
// (www/src/gallery), on the panel's fixture page www/cfg-test.html (built into
// www/dist by Vite): the panel alone, on the engine in the main thread.
//
// 1. A canned report with hand-written DOT (no engine needed): hostile names
//    stay text, hover/click/highlight/diagnostic marks, pan and zoom, the
//    toggles, the downloads, the function selector.
// 2. Every gallery example through the engine (analyze + cfgDot): the drawing
//    has as many block nodes, merge (dashed) edges and continue (dotted) edges
//    as the reference `spirv-cfg` DOT of the reference `spirv-as` binary, and
//    its construct regions. Skipped (with a message) while the wasm has no
//    analyze/cfgDot export, or without the reference tools.
// 3. A module whose OpNames are hostile, through the engine: text only.
//
// Screenshots go to tests/artifacts/cfg-*.png.
// Environment: CHROMIUM (default /usr/bin/chromium), SPVLAB_SPIRV_TOOLS.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, mkdir, writeFile, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";

import { dist, artifacts, serveDist, launch, referenceTools } from "./lib.mjs";

// OpNames that would be markup or script if inserted as HTML.
const HOSTILE = {
  script: "<script>alert(1)</script>",
  text: "</text><text>evil</text>",
  quotes: `say "hi" & 'bye'`,
  backslash: "back\\slash",
  dot: `"]; a -> b [`,
};

/** A DOT string literal (as the engine must write it). */
function dq(s) {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

// Function 1: a loop (header 2, merge 5, continue 4) in the engine's DOT
// conventions, with hostile labels. Function 9: one block.
const CANNED_DOT_1 = `digraph cfg {
  node [shape=box fontname="Courier"];
  "b1" [id="block-1" class="block entry" label=${dq(HOSTILE.text)} penwidth=2];
  subgraph cluster_0 {
    id="construct-0"; class="construct loop"; label=${dq("loop " + HOSTILE.dot)}; style=dashed;
    "b2" [id="block-2" class="block loop-header" label=${dq(HOSTILE.script)}];
    "b3" [id="block-3" class="block" label=${dq(HOSTILE.quotes)}];
    subgraph cluster_1 {
      id="construct-1"; class="construct continue"; label="continue"; style=dotted;
      "b4" [id="block-4" class="block continue-target back-edge-block" label=${dq(HOSTILE.backslash)}];
    }
  }
  "b5" [id="block-5" class="block merge exit" label="end" peripheries=2];
  "b1" -> "b2" [id="edge-1-2-branch" class="edge branch"];
  "b2" -> "b3" [id="edge-2-3-branch" class="edge branch"];
  "b3" -> "b4" [id="edge-3-4-branch" class="edge branch"];
  "b4" -> "b2" [id="edge-4-2-branch" class="edge branch back" penwidth=2 color="#c0392b"];
  "b2" -> "b5" [id="edge-2-5-branch" class="edge branch"];
  "b2" -> "b5" [id="edge-2-5-merge" class="edge merge" style=dashed];
  "b2" -> "b4" [id="edge-2-4-continue" class="edge continue" style=dotted];
}
`;
const CANNED_DOT_9 = `digraph cfg { "b9" [id="block-9" class="block entry exit" label="only" shape=box]; }
`;

function block(id, name, extra = {}) {
  return {
    id,
    name,
    listing: [],
    entry: false,
    exit: false,
    reachable: true,
    structurallyReachable: true,
    roles: [],
    ...extra,
  };
}

const CANNED_REPORT = {
  assembled: true,
  valid: true,
  words: [],
  diagnostics: [],
  disassembly: "",
  sourceMap: [],
  ids: [],
  functions: [
    {
      id: 1,
      name: HOSTILE.script,
      blocks: [
        block(1, HOSTILE.text, { entry: true }),
        block(2, HOSTILE.script, { roles: ["loop-header"] }),
        block(3, HOSTILE.quotes),
        block(4, HOSTILE.backslash, { roles: ["continue-target"] }),
        block(5, "end", { exit: true, roles: ["merge"] }),
      ],
      edges: [
        { from: 1, to: 2, kind: "branch", back: false },
        { from: 2, to: 3, kind: "branch", back: false },
        { from: 3, to: 4, kind: "branch", back: false },
        { from: 4, to: 2, kind: "branch", back: true },
        { from: 2, to: 5, kind: "branch", back: false },
        { from: 2, to: 5, kind: "merge", back: false },
        { from: 2, to: 4, kind: "continue", back: false },
      ],
      constructs: [
        { kind: "loop", header: 2, blocks: [2, 3] },
        { kind: "continue", header: 4, blocks: [4], parent: 0 },
      ],
    },
    {
      id: 9,
      name: HOSTILE.dot,
      blocks: [block(9, "only", { entry: true, exit: true })],
      edges: [],
      constructs: [],
    },
  ],
};

let server;
let browser;
let context;
let page;
let baseUrl;
let hasEngine = false;
const pageErrors = [];

/** Counts from the reference spirv-cfg DOT of the reference spirv-as binary:
 *  block nodes, merge (dashed) edges and continue (dotted) edges. Null when
 *  spirv-as does not assemble the text. */
async function oracle(bin, text, targetEnv) {
  const dir = await mkdtemp(path.join(tmpdir(), "spvlab-cfg-"));
  try {
    const asm = path.join(dir, "m.spvasm");
    const spv = path.join(dir, "m.spv");
    await writeFile(asm, text);
    try {
      execFileSync(path.join(bin, "spirv-as"), ["--target-env", targetEnv, asm, "-o", spv], { stdio: "pipe" });
    } catch {
      return null;
    }
    const dot = execFileSync(path.join(bin, "spirv-cfg"), [spv], { encoding: "utf8" });
    // spirv-cfg also draws a legend (legend_* nodes); block nodes are numbers.
    const nodes = new Set();
    let merges = 0;
    let continues = 0;
    for (const line of dot.split("\n")) {
      let m = line.match(/^(\d+) \[label=/);
      if (m) nodes.add(m[1]);
      m = line.match(/^(\d+) -> (\d+)(?: \[(.*)\])?;$/);
      if (m) {
        if (/style=dashed/.test(m[3] ?? "")) merges++;
        else if (/style=dotted/.test(m[3] ?? "")) continues++;
      }
    }
    return { nodes: nodes.size, merges, continues };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function screenshot(name) {
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, name) });
}

/** Wait until the panel has drawn (state ready) after a load. */
async function waitDrawn() {
  await page.waitForFunction(() => {
    const r = document.getElementById("cfg");
    return r.dataset.state === "ready" || r.dataset.state === "error";
  });
  const state = await page.locator("#cfg").getAttribute("data-state");
  const message = await page.locator("#cfg .cfg-message").textContent();
  assert.equal(state, "ready", `panel state (message: ${message})`);
}

/** What the drawing holds: block nodes, dashed and dotted edges, clusters,
 *  and the SVG's element and attribute names. */
function measure() {
  return page.evaluate(() => {
    const svg = document.querySelector("#cfg svg.cfg-svg");
    if (!svg) return null;
    const dash = (g) => g.querySelector("path")?.getAttribute("stroke-dasharray") ?? "";
    const edges = [...svg.querySelectorAll("g.edge")];
    const clusters = [...svg.querySelectorAll("g.cluster")];
    const elements = new Set();
    const attributes = new Set();
    for (const e of svg.querySelectorAll("*")) {
      elements.add(e.localName);
      for (const a of e.attributes) attributes.add(a.name);
    }
    return {
      nodes: svg.querySelectorAll('g.node[id^="block-"]').length,
      dashed: edges.filter((g) => dash(g) === "5,2").length,
      dotted: edges.filter((g) => dash(g) === "1,5").length,
      mergeClass: svg.querySelectorAll("g.edge.merge").length,
      continueClass: svg.querySelectorAll("g.edge.continue").length,
      clusters: clusters.filter((g) => /^construct-\d+$/.test(g.id)).length,
      clusterKinds: clusters.map((g) => [...g.classList].filter((c) => c !== "cluster" && c !== "construct").join(" ")),
      texts: [...svg.querySelectorAll("text")].map((t) => t.textContent),
      elements: [...elements],
      attributes: [...attributes],
      scripts: document.querySelectorAll("script").length,
    };
  });
}

const SVG_ELEMENTS = new Set(["svg", "g", "title", "text", "polygon", "path", "ellipse", "polyline", "a", "defs", "style", "tspan"]);

function assertTextOnly(m, what) {
  for (const e of m.elements) assert.ok(SVG_ELEMENTS.has(e), `${what}: unexpected element <${e}> in the SVG`);
  for (const a of m.attributes) {
    assert.ok(!/^on/i.test(a), `${what}: event attribute ${a}`);
    assert.match(a, /^[a-z:-]+$/i, `${what}: odd attribute name ${a}`);
  }
}

before(async () => {
  assert.ok(existsSync(path.join(dist, "cfg-test.html")), "www/dist/cfg-test.html is missing: run ./x build first");
  ({ server, url: baseUrl } = await serveDist());
  browser = await launch();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(m.text());
  });
  page.on("dialog", (d) => {
    pageErrors.push(`dialog: ${d.message()}`);
    d.dismiss();
  });
  await page.goto(baseUrl + "cfg-test.html");
  await page.waitForSelector("body[data-ready='true']");
  hasEngine = await page.evaluate(() => window.cfgFixture.hasEngine);
});

after(async () => {
  await browser?.close();
  server?.close();
});

test("the panel draws a canned report; hostile names stay text", async () => {
  await page.evaluate(([r, d1, d9]) => window.cfgFixture.loadCanned(r, { 1: d1, 9: d9 }), [CANNED_REPORT, CANNED_DOT_1, CANNED_DOT_9]);
  await waitDrawn();
  const m = await measure();
  assert.ok(m, "an SVG is drawn");
  assert.equal(m.nodes, 5);
  assert.equal(m.dashed, 1, "one dashed (merge) edge");
  assert.equal(m.dotted, 1, "one dotted (continue) edge");
  assert.equal(m.mergeClass, 1);
  assert.equal(m.continueClass, 1);
  assert.equal(m.clusters, 2);
  assert.deepEqual(m.clusterKinds.sort(), ["continue", "loop"]);
  // The names are the text of text nodes, exactly.
  for (const name of Object.values(HOSTILE)) {
    assert.ok(m.texts.some((t) => t.includes(name)), `${JSON.stringify(name)} in the SVG's text: ${JSON.stringify(m.texts)}`);
  }
  assertTextOnly(m, "canned");
  assert.equal(m.scripts, 1, "only the page's own module script");
  // The function selector shows the names as text.
  const options = await page.locator("#cfg select.cfg-function option").allTextContents();
  assert.equal(options.length, 2);
  assert.ok(options[0].startsWith(HOSTILE.script), options[0]);
  assert.ok(options[1].startsWith(HOSTILE.dot), options[1]);
  assert.equal(await page.locator("#cfg select.cfg-function option").first().evaluate((o) => o.children.length), 0);
  const events = await page.evaluate(() => window.cfgFixture.events.splice(0));
  assert.deepEqual(events, [{ kind: "function", id: 1 }], "the first function is chosen and reported");
  await screenshot("cfg-canned.png");
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("hover, click, highlight and diagnostic marks", async () => {
  await page.hover("#cfg #block-3");
  await page.mouse.move(5, 5);
  let events = await page.evaluate(() => window.cfgFixture.events.splice(0));
  assert.deepEqual(events.filter((e) => e.kind === "hover"), [{ kind: "hover", id: 3 }, { kind: "hover", id: null }]);

  await page.click("#cfg #block-4");
  events = await page.evaluate(() => window.cfgFixture.events.splice(0));
  assert.deepEqual(events.filter((e) => e.kind === "select"), [{ kind: "select", id: 4 }]);
  assert.ok(await page.locator("#cfg #block-4").evaluate((e) => e.classList.contains("cfg-selected")));

  await page.evaluate(() => window.cfgFixture.highlight([2, 5]));
  const hl = await page.$$eval("#cfg .cfg-highlight", (l) => l.map((e) => e.id).sort());
  assert.deepEqual(hl, ["block-2", "block-5"]);
  await page.evaluate(() => window.cfgFixture.highlight([]));
  assert.equal(await page.locator("#cfg .cfg-highlight").count(), 0);

  const diag = {
    code: "cfg.test",
    severity: "error",
    message: "m",
    label: "",
    related: [],
    rendered: "",
    function: 1,
    blocks: [3],
    edges: [[4, 2]],
  };
  await page.evaluate((d) => window.cfgFixture.showDiagnostic(d), diag);
  const marked = await page.$$eval("#cfg .cfg-diag", (l) => l.map((e) => e.id).sort());
  assert.deepEqual(marked, ["block-3", "edge-4-2-branch"]);
  await screenshot("cfg-marks.png");
  await page.evaluate(() => window.cfgFixture.showDiagnostic(null));
  assert.equal(await page.locator("#cfg .cfg-diag").count(), 0);

  // "constructs containing the selected block": block 4 is in the continue
  // construct only (the loop construct excludes it, as the report says).
  await page.locator("#cfg label", { hasText: "containing constructs" }).locator("input").check();
  await waitDrawn();
  let containing = await page.$$eval("#cfg .cfg-containing", (l) => l.map((e) => e.id).sort());
  assert.deepEqual(containing, ["construct-1"]);
  await page.click("#cfg #block-3");
  await waitDrawn();
  containing = await page.$$eval("#cfg .cfg-containing", (l) => l.map((e) => e.id).sort());
  assert.deepEqual(containing, ["construct-0"]);
  await screenshot("cfg-containing.png");
  const last = await page.evaluate(() => window.cfgFixture.dotRequests.at(-1));
  assert.equal(last.options.selected, 3, "the engine is asked to mark the selected block");
  await page.keyboard.press("Escape"); // the view is not focused: no effect
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("the toggles reach the engine's DOT options", async () => {
  const before = await page.evaluate(() => window.cfgFixture.dotRequests.length);
  await page.locator("#cfg label", { hasText: "listing" }).locator("input").check();
  await page.locator("#cfg label", { hasText: /^ ?constructs$/ }).locator("input").uncheck();
  await page.locator("#cfg select.cfg-dominators").selectOption("structural");
  await page.locator("#cfg label", { hasText: "hide unreachable" }).locator("input").check();
  await waitDrawn();
  const reqs = await page.evaluate((n) => window.cfgFixture.dotRequests.slice(n), before);
  assert.ok(reqs.length >= 4, `${reqs.length} requests`);
  const o = reqs.at(-1).options;
  assert.equal(o.listing, true);
  assert.equal(o.constructs, false);
  assert.equal(o.dominators, "structural");
  assert.equal(o.hideUnreachable, true);
  // Back to the defaults for the next tests.
  await page.locator("#cfg label", { hasText: "listing" }).locator("input").uncheck();
  await page.locator("#cfg label", { hasText: /^ ?constructs$/ }).locator("input").check();
  await page.locator("#cfg select.cfg-dominators").selectOption("none");
  await page.locator("#cfg label", { hasText: "hide unreachable" }).locator("input").uncheck();
  await page.locator("#cfg label", { hasText: "containing constructs" }).locator("input").uncheck();
  await waitDrawn();
});

test("pan and zoom: keys, buttons, wheel and drag", async () => {
  const scale = () => page.locator("#cfg").getAttribute("data-scale").then(Number);
  const transform = () => page.locator("#cfg .cfg-stage").evaluate((e) => e.style.transform);
  await page.evaluate(() => window.cfgFixture.events.splice(0));
  await page.locator("#cfg .cfg-view").focus();
  const s0 = await scale();
  await page.keyboard.press("+");
  const s1 = await scale();
  assert.ok(s1 > s0, `+ zooms in (${s0} -> ${s1})`);
  await page.keyboard.press("-");
  await page.keyboard.press("-");
  assert.ok((await scale()) < s1, "- zooms out");
  await page.keyboard.press("0");
  assert.ok(Math.abs((await scale()) - s0) < 1e-3, "0 fits again");
  await page.getByRole("button", { name: "Actual size" }).click();
  assert.equal(await scale(), 1);
  await page.getByRole("button", { name: /Fit the graph/ }).click();
  // The fitted graph lies inside the view.
  const inside = await page.evaluate(() => {
    const v = document.querySelector("#cfg .cfg-view").getBoundingClientRect();
    const g = document.querySelector("#cfg svg.cfg-svg").getBoundingClientRect();
    return g.left >= v.left - 1 && g.top >= v.top - 1 && g.right <= v.right + 1 && g.bottom <= v.bottom + 1;
  });
  assert.ok(inside, "fit puts the whole graph in the view");
  const box = await page.locator("#cfg .cfg-view").boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const w0 = await scale();
  await page.mouse.wheel(0, -300);
  await page.waitForFunction((w) => Number(document.getElementById("cfg").dataset.scale) > w, w0);
  const t0 = await transform();
  // Drag from an empty corner of the view.
  await page.mouse.move(box.x + 10, box.y + box.height - 10);
  await page.mouse.down();
  await page.mouse.move(box.x + 80, box.y + box.height - 60, { steps: 5 });
  await page.mouse.up();
  assert.notEqual(await transform(), t0, "dragging pans");
  const events = await page.evaluate(() => window.cfgFixture.events.splice(0));
  assert.deepEqual(events.filter((e) => e.kind === "select"), [], "a drag is not a click");
  await page.keyboard.press("0");
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("downloads: SVG and DOT", async () => {
  let [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /as SVG/ }).click()]);
  assert.match(dl.suggestedFilename(), /^cfg-[A-Za-z0-9_.-]+\.svg$/);
  const svgText = await readFile(await dl.path(), "utf8");
  assert.match(svgText, /^<svg[\s>]/);
  assert.ok(svgText.includes("&lt;script&gt;alert(1)&lt;/script&gt;"), "escaped in the SVG file");
  assert.ok(!svgText.includes("<script"), "no script element in the SVG file");
  [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /DOT source/ }).click()]);
  assert.match(dl.suggestedFilename(), /^cfg-[A-Za-z0-9_.-]+\.dot$/);
  assert.equal(await readFile(await dl.path(), "utf8"), CANNED_DOT_1);
});

test("the function selector switches the drawing", async () => {
  await page.locator("#cfg select.cfg-function").selectOption("9");
  await page.waitForSelector("#cfg #block-9");
  await waitDrawn();
  const events = await page.evaluate(() => window.cfgFixture.events.splice(0));
  assert.deepEqual(events, [{ kind: "function", id: 9 }]);
  assert.equal(await page.evaluate(() => window.cfgFixture.panel.currentFunction()), 9);
  await page.evaluate(() => window.cfgFixture.panel.setFunction(1));
  await page.waitForSelector("#cfg #block-4");
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("every gallery example renders its CFG like the reference spirv-cfg", async (t) => {
  if (!hasEngine) {
    const why = "the fixture page has no engine (the wasm in pkg/ did not load or has no Session: run ./x build)";
    console.log(`SKIPPED gallery CFG test: ${why}`);
    t.skip(why);
    return;
  }
  const bin = referenceTools();
  if (!bin) {
    console.log("SKIPPED gallery CFG test: reference SPIRV-Tools not found (set SPVLAB_SPIRV_TOOLS)");
    t.skip("no reference SPIRV-Tools");
    return;
  }
  const examples = await page.evaluate(() => window.cfgFixture.examples.map(({ id, targetEnv, valid, text }) => ({ id, targetEnv, valid, text })));
  assert.ok(examples.length >= 16, `${examples.length} examples`);
  let compared = 0;
  for (const ex of examples) {
    const r = await page.evaluate(([id]) => window.cfgFixture.loadExample(id), [ex.id]);
    assert.equal(r.assembled, true, `${ex.id} assembles`);
    assert.equal(r.valid, ex.valid, `${ex.id}: the engine's verdict is the gallery's`);
    await waitDrawn();
    const m = await measure();
    assert.ok(m, `${ex.id}: an SVG`);
    await screenshot(`cfg-${ex.id}.png`);
    assertTextOnly(m, ex.id);
    // The engine's conventions: dashed = merge, dotted = continue.
    assert.equal(m.mergeClass, m.dashed, `${ex.id}: merge edges are the dashed ones`);
    assert.equal(m.continueClass, m.dotted, `${ex.id}: continue edges are the dotted ones`);
    const constructs = r.functions.reduce((n, f) => n + f.constructs, 0);
    if (ex.valid) assert.equal(m.clusters, constructs, `${ex.id}: one region per construct`);
    else {
      // Invalid nesting (Fig. 7's cyclic merges) cannot all be drawn as
      // nested regions: the engine draws those its construct tree reaches.
      assert.ok(m.clusters >= 1 && m.clusters <= constructs, `${ex.id}: ${m.clusters} regions for ${constructs} constructs`);
    }
    const want = await oracle(bin, ex.text, ex.targetEnv);
    if (!want) {
      // OpConstantDataKHR: unknown to the reference tools (see the gallery).
      assert.equal(ex.id, "ext-constant-data", `${ex.id}: spirv-as refuses it`);
      assert.equal(m.nodes, r.functions.reduce((n, f) => n + f.blocks, 0));
      continue;
    }
    assert.equal(m.nodes, want.nodes, `${ex.id}: block nodes (spirv-cfg: ${want.nodes})`);
    assert.equal(m.dashed, want.merges, `${ex.id}: merge (dashed) edges (spirv-cfg: ${want.merges})`);
    assert.equal(m.dotted, want.continues, `${ex.id}: continue (dotted) edges (spirv-cfg: ${want.continues})`);
    if (!ex.valid) {
      compared++;
      continue;
    }
    // Every merge instruction heads a construct, and every loop has a
    // continue construct too.
    assert.ok(m.clusters >= want.merges + want.continues, `${ex.id}: ${m.clusters} regions for ${want.merges} headers and ${want.continues} loops`);
    const loops = m.clusterKinds.filter((k) => k.split(" ").includes("loop")).length;
    const conts = m.clusterKinds.filter((k) => k.split(" ").includes("continue")).length;
    assert.equal(loops, want.continues, `${ex.id}: loop regions`);
    assert.equal(conts, want.continues, `${ex.id}: continue regions`);
    compared++;
  }
  assert.ok(compared >= 15, `${compared} examples compared with spirv-cfg`);
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("hostile OpNames through the engine appear as text only", async (t) => {
  if (!hasEngine) {
    const why = "the fixture page has no engine (the wasm in pkg/ did not load or has no Session: run ./x build)";
    console.log(`SKIPPED hostile names through the engine: ${why}`);
    t.skip(why);
    return;
  }
  const esc = (s) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  const names = Object.values(HOSTILE);
  const text = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %main "${esc(HOSTILE.script)}"
${names.map((n, i) => `OpName %b${i} "${esc(n)}"`).join("\n")}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
%b0 = OpLabel
OpSelectionMerge %b4 None
OpBranchConditional %true %b1 %b2
%b1 = OpLabel
OpBranch %b3
%b2 = OpLabel
OpBranch %b3
%b3 = OpLabel
OpBranch %b4
%b4 = OpLabel
OpReturn
OpFunctionEnd
`;
  const r = await page.evaluate((src) => window.cfgFixture.load(src, "spv1.6"), text);
  assert.equal(r.assembled, true);
  await waitDrawn();
  const m = await measure();
  assertTextOnly(m, "hostile module");
  assert.equal(m.scripts, 1, "only the page's own module script");
  // Whatever name the engine gives a block (the OpName, or spirv-dis's
  // friendly form of it) is shown as the text of a text node.
  const all = m.texts.join("\n");
  const blockNames = r.functions[0].blockNames;
  assert.equal(blockNames.length, 5);
  for (const n of blockNames) assert.ok(all.includes(n), `${JSON.stringify(n)} shown as text: ${JSON.stringify(m.texts)}`);
  const options = await page.locator("#cfg select.cfg-function option").allTextContents();
  assert.ok(options[0].startsWith(r.functions[0].name), options.join(" | "));
  await screenshot("cfg-hostile.png");
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page (and no alert)");
});

/** How far each label of a node or cluster runs out of its box (its first
 *  polygon, path or ellipse), in SVG units, measured with the SVG text and
 *  shape bounding boxes: the labels that do, with by how much. */
function overflows() {
  return page.evaluate(() => {
    const out = [];
    for (const g of document.querySelectorAll("#cfg svg.cfg-svg :is(g.node, g.cluster)")) {
      const shape = g.querySelector(":scope > :is(polygon, path, ellipse)");
      if (!shape) continue;
      const s = shape.getBBox();
      for (const t of g.querySelectorAll(":scope > text")) {
        const b = t.getBBox();
        const over = Math.max(s.x - b.x, b.x + b.width - (s.x + s.width), s.y - b.y, b.y + b.height - (s.y + s.height));
        if (over > 0.5) out.push({ id: g.id, text: t.textContent, over: Number(over.toFixed(1)) });
      }
    }
    return out;
  });
}

async function setView(view) {
  await page.evaluate((v) => window.cfgFixture.panel.setView(v), view);
  await waitDrawn();
}

const NAMES_VIEW = { listing: false, constructs: true, dominators: "none", hideUnreachable: false, containing: false };
const LISTING_VIEW = { ...NAMES_VIEW, listing: true };

/** Long names (spirv-dis's friendly names keep ASCII letters only). */
function longNames() {
  // The graph shows the text's names, so the long names are the text's own
  // labels (ids take ASCII letters, digits, '_', '.', '-').
  const long = "a_very_long_block_name_that_a_compiler_might_emit_for_an_inlined_loop_body";
  const L = (suffix) => `%${long}_${suffix}`;
  return `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main_entry_point_with_a_long_name "main"
OpExecutionMode %main_entry_point_with_a_long_name LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
%main_entry_point_with_a_long_name = OpFunction %void None %fn
%entry = OpLabel
OpBranch ${L("header")}
${L("header")} = OpLabel
OpLoopMerge ${L("merge")} ${L("continue")} None
OpBranchConditional %true %wide_glyphs_wide_glyphs_wide_glyphs_wide_glyphs_body ${L("merge")}
%wide_glyphs_wide_glyphs_wide_glyphs_wide_glyphs_body = OpLabel
OpBranch ${L("continue")}
${L("continue")} = OpLabel
OpBranch ${L("header")}
${L("merge")} = OpLabel
OpReturn
OpFunctionEnd
`;
}

test("in listing mode (and with long names) no node text leaves its box", async (t) => {
  if (!hasEngine) {
    t.skip("no engine");
    return;
  }
  const examples = await page.evaluate(() => window.cfgFixture.examples.map((e) => e.id));
  let checked = 0;
  for (const id of examples) {
    await page.evaluate((i) => window.cfgFixture.loadExample(i), id);
    await waitDrawn();
    for (const view of [LISTING_VIEW, NAMES_VIEW]) {
      await setView(view);
      assert.deepEqual(await overflows(), [], `${id}, listing ${view.listing}`);
      checked++;
    }
    if (id === "paper-fig2") {
      await setView(LISTING_VIEW);
      await screenshot("cfg-listing-fig2.png");
      await setView(NAMES_VIEW);
    }
  }
  assert.ok(checked >= 32, `${checked} drawings checked`);
  const r = await page.evaluate((src) => window.cfgFixture.load(src, "spv1.6"), longNames());
  assert.equal(r.valid, true);
  for (const view of [NAMES_VIEW, LISTING_VIEW]) {
    await setView(view);
    const texts = await page.locator("#cfg svg.cfg-svg g.node text").allTextContents();
    assert.ok(texts.some((x) => x.includes("inlined_loop_body_continue")), `the long names are drawn whole: ${JSON.stringify(texts)}`);
    assert.deepEqual(await overflows(), [], `long names, listing ${view.listing}`);
  }
  await screenshot("cfg-long-names.png");
  // A browser whose monospace font is wider than Graphviz's tables (here a
  // serif font, spaced out): the labels are fitted into their boxes.
  await page.addStyleTag({ content: "#cfg svg.cfg-svg text { font-family: 'DejaVu Serif', serif !important; letter-spacing: 1px; }" });
  for (const view of [NAMES_VIEW, LISTING_VIEW]) {
    await setView({ ...view, constructs: false });
    await setView(view);
    assert.ok(Number(await page.locator("#cfg").getAttribute("data-fitted")) > 0, "labels were fitted");
    assert.deepEqual(await overflows(), [], `a wider font, listing ${view.listing}`);
  }
  await screenshot("cfg-long-names-wide-font.png");
  await page.evaluate(() => document.querySelectorAll("style").forEach((s) => s.textContent.includes("DejaVu Serif") && s.remove()));
  await setView(NAMES_VIEW);
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("the self-loop continue edge of Fig. 9 (left) is clearly visible", async (t) => {
  if (!hasEngine) {
    t.skip("no engine");
    return;
  }
  await page.evaluate(() => window.cfgFixture.loadExample("paper-fig9-left"));
  await waitDrawn();
  const loop = await page.evaluate(() => {
    const g = [...document.querySelectorAll("#cfg g.edge.continue")].find((e) => /^edge-(\d+)-\1-continue/.test(e.id));
    if (!g) return null;
    const node = document.getElementById(g.id.replace(/^edge-(\d+)-.*$/, "block-$1"));
    const path = g.querySelector("path");
    const p = path.getBoundingClientRect();
    const n = node.getBoundingClientRect();
    const scale = Number(document.getElementById("cfg").dataset.scale);
    return {
      classes: [...g.classList],
      stroke: parseFloat(getComputedStyle(path).strokeWidth) * scale,
      width: p.width,
      height: p.height,
      outside: p.right - n.right,
      arrow: g.querySelector("polygon") !== null,
    };
  });
  assert.ok(loop, "a continue edge from a block to itself");
  assert.ok(loop.classes.includes("self-loop"), JSON.stringify(loop));
  assert.ok(loop.stroke >= 2, `drawn at least 2 px wide on screen: ${JSON.stringify(loop)}`);
  assert.ok(loop.width >= 12 && loop.height >= 12, `a loop of some size on screen: ${JSON.stringify(loop)}`);
  assert.ok(loop.outside >= 12, `it stands out of its block: ${JSON.stringify(loop)}`);
  assert.ok(loop.arrow, "with its arrowhead");
  await screenshot("cfg-self-loop.png");
});

/** The styles drawn: one key per class the legend explains. */
function drawnStyles() {
  return page.evaluate(() => {
    const keys = new Set();
    const svg = document.querySelector("#cfg svg.cfg-svg");
    for (const g of svg.querySelectorAll("g.edge")) {
      const c = g.classList;
      if (c.contains("dom")) keys.add("dom");
      for (const k of ["branch", "merge", "continue", "back"]) if (c.contains(k)) keys.add(`edge.${k}`);
      if (c.contains("cfg-diag")) keys.add("cfg-diag");
    }
    for (const g of svg.querySelectorAll("g.node")) {
      keys.add("block");
      for (const k of ["entry", "exit", "unreachable", "selected"]) if (g.classList.contains(k)) keys.add(`block.${k}`);
      for (const k of ["cfg-highlight", "cfg-selected", "cfg-diag"]) if (g.classList.contains(k)) keys.add(k);
    }
    for (const g of svg.querySelectorAll("g.cluster")) {
      for (const k of ["selection", "loop", "continue", "switch", "case", "selected"]) if (g.classList.contains(k)) keys.add(`construct.${k}`);
      if (g.classList.contains("cfg-containing")) keys.add("cfg-containing");
    }
    return [...keys].sort();
  });
}

test("the legend shows every style on the graph", async (t) => {
  if (!hasEngine) {
    t.skip("no engine");
    return;
  }
  const legend = new Set(
    (await page.locator("#cfg .cfg-legend [data-style]").evaluateAll((l) => l.map((e) => e.dataset.style))).flatMap((s) => s.split(" ")),
  );
  for (const must of ["block.unreachable", "dom", "edge.back", "construct.case"]) assert.ok(legend.has(must), `the legend has ${must}`);
  // A switch with a case, a loop, a selection, an unreachable block, the
  // dominator tree, a selected block with its constructs, the cursor's block
  // and a problem's marks.
  const text = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
${["entry", "head", "body", "then", "join", "case", "after", "cont", "merge", "orphan"].map((n) => `OpName %${n} "${n}"`).join("\n")}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
%int = OpTypeInt 32 1
%zero = OpConstant %int 0
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %head
%head = OpLabel
OpLoopMerge %merge %cont None
OpBranch %body
%body = OpLabel
OpSelectionMerge %join None
OpBranchConditional %true %then %join
%then = OpLabel
OpBranch %join
%join = OpLabel
OpSelectionMerge %after None
OpSwitch %zero %after 1 %case
%case = OpLabel
OpBranch %after
%after = OpLabel
OpBranch %cont
%cont = OpLabel
OpBranchConditional %true %head %merge
%merge = OpLabel
OpReturn
%orphan = OpLabel
OpReturn
OpFunctionEnd
`;
  const r = await page.evaluate((src) => window.cfgFixture.load(src, "spv1.6"), text);
  assert.equal(r.valid, true);
  await setView({ ...NAMES_VIEW, dominators: "regular", containing: true });
  assert.equal(await page.locator("#cfg svg.cfg-svg g.node").count(), 10);
  const id = await page.evaluate(() => Object.fromEntries(window.cfgFixture.report().functions[0].blocks.map((b) => [b.name, b.id])));
  // Select the `then` block (in the selection, in the loop), mark the cursor
  // on the switch header and a problem on the case block and its edge.
  await page.click(`#cfg #block-${id.then}`);
  await waitDrawn();
  await page.evaluate((b) => window.cfgFixture.highlight([b]), id.join);
  await page.evaluate(
    ([a, b]) =>
      window.cfgFixture.showDiagnostic({ code: "x", severity: "error", message: "m", label: "", related: [], rendered: "", blocks: [a], edges: [[a, b]] }),
    [id.case, id.after],
  );
  const drawn = await drawnStyles();
  await screenshot("cfg-legend.png");
  for (const k of ["block.unreachable", "dom", "construct.switch", "construct.case", "construct.loop", "construct.selection", "construct.continue", "cfg-highlight", "cfg-diag", "cfg-selected", "cfg-containing", "edge.back"]) {
    assert.ok(drawn.includes(k), `the test module draws ${k}: ${drawn}`);
  }
  for (const k of drawn) assert.ok(legend.has(k), `the legend explains ${k}`);
  await page.evaluate(() => window.cfgFixture.showDiagnostic(null));
  await page.evaluate(() => window.cfgFixture.highlight([]));
  await page.keyboard.press("Escape");
  await setView(NAMES_VIEW);
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

/** A module of about `lines` lines: a chain of if-then selections (each
 *  merge block the next header), every block named; the text's labels carry
 *  `tag` too (the graph shows the text's names), so two tags draw differently. */
function bigModule(lines, tag) {
  const n = Math.max(1, Math.floor((lines - 12) / 7));
  const names = [];
  const body = [];
  for (let i = 0; i < n; i++) {
    names.push(`OpName %h${i}_${tag} "h${i}_${tag}"`, `OpName %t${i}_${tag} "t${i}"`);
    body.push(`%h${i}_${tag} = OpLabel`, `OpSelectionMerge %h${i + 1}_${tag} None`, `OpBranchConditional %true %t${i}_${tag} %h${i + 1}_${tag}`);
    body.push(`%t${i}_${tag} = OpLabel`, `OpBranch %h${i + 1}_${tag}`);
  }
  return `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
${names.join("\n")}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
${body.join("\n")}
%h${n}_${tag} = OpLabel
OpReturn
OpFunctionEnd
`;
}

test("timing: edit to redrawn graph on a 1,000-line module (printed, not asserted)", async (t) => {
  if (!hasEngine) {
    console.log("SKIPPED CFG timing: the fixture page has no engine");
    t.skip("no engine");
    return;
  }
  const a = bigModule(1000, "a");
  const b = bigModule(1000, "b");
  assert.ok(a.split("\n").length >= 990, `${a.split("\n").length} lines`);
  const first = await page.evaluate(([src]) => window.cfgFixture.timeLoad(src, "spv1.6"), [a]);
  assert.equal(first.state, "ready");
  const times = [];
  for (let i = 0; i < 5; i++) {
    const r = await page.evaluate(([src]) => window.cfgFixture.timeLoad(src, "spv1.6"), [i % 2 ? a : b]);
    assert.equal(r.state, "ready");
    times.push(r);
  }
  const total = times.map((r) => r.totalMs).sort((x, y) => x - y);
  const engine = times.map((r) => r.analyzeMs).sort((x, y) => x - y);
  const blocks = times[0].functions[0].blocks;
  const med = (k) => times.map((r) => r[k]).sort((x, y) => x - y)[2].toFixed(1);
  console.log(`CFG timing breakdown (medians): cfgDot ${med("dotMs")} ms, Graphviz layout ${med("layoutMs")} ms, DOM ${med("domMs")} ms`);
  console.log(
    `CFG timing (${a.split("\n").length} lines, ${blocks} blocks): edit to redrawn graph median ${total[2].toFixed(1)} ms ` +
      `(min ${total[0].toFixed(1)}, max ${total[4].toFixed(1)}); of which analyze ${engine[2].toFixed(1)} ms; first draw ${first.totalMs.toFixed(1)} ms`,
  );
  await screenshot("cfg-big.png");
});

// How long the main thread is blocked while the panel lays out a big graph
// (3,000+ blocks): the longest task seen by a 'longtask' PerformanceObserver,
// and the longest gap between 4 ms timers (what a keystroke would wait). The
// fixture runs analyze and cfgDot in the main thread (the page runs them in its
// worker), so their times are printed too. Printed, not asserted.
test("timing: main thread blocked while a 3,000-block graph lays out (printed, not asserted)", async (t) => {
  if (!hasEngine) {
    console.log("SKIPPED CFG blocking timing: the fixture page has no engine");
    t.skip("no engine");
    return;
  }
  const src = bigModule(10520, "big");
  const r = await page.evaluate(async ([text]) => {
    const tasks = [];
    const obs = new PerformanceObserver((list) => tasks.push(...list.getEntries().map((e) => e.duration)));
    obs.observe({ type: "longtask" });
    let maxGap = 0;
    let last = performance.now();
    let running = true;
    const tick = () => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      if (running) setTimeout(tick, 4);
    };
    setTimeout(tick, 4);
    await new Promise((res) => setTimeout(res, 20));
    const t = await window.cfgFixture.timeLoad(text, "spv1.6");
    running = false;
    await new Promise((res) => setTimeout(res, 100));
    obs.disconnect();
    return { ...t, tasks, maxGap, fast: document.getElementById("cfg").dataset.fastLayout };
  }, [src]);
  assert.equal(r.state, "ready");
  const blocks = r.functions[0].blocks;
  assert.ok(blocks >= 3000, `${blocks} blocks`);
  const longest = r.tasks.length ? Math.max(...r.tasks) : 0;
  console.log(
    `CFG blocking (${src.split("\n").length} lines, ${blocks} blocks, fast layout ${r.fast}): edit to redrawn graph ${r.totalMs.toFixed(0)} ms ` +
      `(analyze ${r.analyzeMs.toFixed(0)} ms, cfgDot ${r.dotMs.toFixed(0)} ms, Graphviz layout ${r.layoutMs.toFixed(0)} ms, DOM ${r.domMs.toFixed(0)} ms, of which parsing the SVG ${(r.parseMs ?? NaN).toFixed(0)} ms); ` +
      `main thread: longest task ${longest.toFixed(0)} ms (${r.tasks.length} long tasks, ${r.tasks.reduce((a, b) => a + b, 0).toFixed(0)} ms in all), ` +
      `longest gap between 4 ms timers ${r.maxGap.toFixed(0)} ms`,
  );
});
