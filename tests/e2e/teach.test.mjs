// Browser tests of teaching structured control flow (www/src/teach)
// on the whole page: the CFG panel's "1.6r1 | 1.6r2 | compare" control, the
// construct explorer, a guided lesson, and the Problems panel's rule links.
//
// Expected values come from Klimis et al., "Taking Back Control in an
// Intermediate Representation for GPU Computing" (POPL 2023), not from our
// program:
// * Fig. 6 (sections 3.4 and 4.3): the selection construct of b4 is empty
//   under 1.6r1 ("every unreachable block vacuously dominates every
//   unreachable block") and {b4, b5, b6} under 1.6r2: compare marks b4, b5, b6.
// * Fig. 8 (sections 3.5 and 4.3): both revisions give the continue
//   construct of b3's loop as {b4}, but under 1.6r1 b4 post-dominates b5 and
//   b6 only vacuously and the merge-block clause is what takes them out;
//   structurally b4 does not post-dominate them: compare marks b5 and b6 as
//   masked, each with the post-dominance fact.
// * Fig. 2 (section 2.2), by hand from the figure: b2 structurally dominates
//   b2..b8; its merge b8 dominates {b8}; the continue construct is {b7}; the
//   loop construct is {b2..b6}; the loop may exit to its merge b8, continue to
//   b7, or return, and it does so by b2 -> b8 and b6 -> b7.
// * Fig. 9 (section 4.4): giving the left loop a separate continue block
//   makes it the right one, valid, with b3 in the continue construct of b5.
//
// Screenshots: tests/artifacts/teach-compare-fig6.png,
// teach-explorer-fig2.png, teach-lesson.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";

import { root, servePage, openPage, setText, editorText, screenshot } from "./lib.mjs";

const env = servePage();
const example = (id) => readFile(path.join(root, "www/src/gallery/examples", `${id}.spvasm`), "utf8");

/** Block names (as the page shows them) of the nodes matching `sel` in the CFG. */
async function namesOf(page, sel) {
  return page.evaluate((sel) => {
    const f = window.spvlab.store.get().report.functions[0];
    const name = (id) => f.blocks.find((b) => b.id === id)?.name;
    return [...document.querySelectorAll(`#panel-cfg svg.cfg-svg ${sel}`)]
      .map((g) => name(Number(g.id.replace(/^block-/, ""))))
      .sort();
  }, sel);
}

/** Load a text and wait for its drawing and (unless `teach` is false: the
 *  1.6r2 mode with nothing clicked asks for none) its teaching view. */
async function load(page, text, { teach = true } = {}) {
  const views = Number((await page.locator("#panel-cfg").getAttribute("data-teach-views")) ?? 0);
  const renders = Number((await page.locator("#panel-cfg").getAttribute("data-renders")) ?? 0);
  await setText(page, text);
  await page.waitForFunction(
    ([v, r, teach]) => {
      const p = document.querySelector("#panel-cfg");
      return (!teach || Number(p.dataset.teachViews ?? 0) > v) && Number(p.dataset.renders ?? 0) > r && p.dataset.state === "ready";
    },
    [views, renders, teach],
  );
}

async function cfgPage() {
  const errors = [];
  const { context, page } = await openPage(env.browser, env.url, { viewport: { width: 1400, height: 900 }, errors });
  await page.locator("#tab-cfg").click();
  await page.waitForSelector("#panel-cfg[data-state='ready']");
  return { context, page, errors };
}

test("compare mode marks the blocks whose construct membership differs (Fig. 6) and the masked ones (Fig. 8)", async () => {
  const { context, page, errors } = await cfgPage();
  await load(page, await example("paper-fig6"), { teach: false });
  await page.locator("#panel-cfg .teach-mode[data-mode='compare']").click();
  await page.waitForSelector("#panel-cfg svg g.node.teach-diff");
  assert.deepEqual(await namesOf(page, "g.node.teach-diff"), ["b4", "b5", "b6"]);
  assert.deepEqual(await namesOf(page, "g.node.teach-masked"), []);
  // Each note names the fact: b7 dominates the block vacuously, not structurally.
  const notes = await page.locator("#panel-cfg .teach-notes li.differs").allTextContents();
  for (const b of ["b4", "b5", "b6"]) {
    const n = notes.find((t) => t.includes(`%${b} is in the selection construct of %b4 under 1.6r2 only`));
    assert.ok(n, `a note for ${b}: ${notes.join(" | ")}`);
    assert.match(n, new RegExp(`%b7 dominates %${b} under 1\\.6r1 vacuously .*but not structurally`));
  }
  // Both revisions call Fig. 6 valid (sections 3.4 and 4.3).
  assert.deepEqual(await page.locator("#panel-cfg .teach-verdict-item").allTextContents(), ["1.6r1: valid", "1.6r2: valid"]);
  await screenshot(page, "teach-compare-fig6.png");

  await load(page, await example("paper-fig8"));
  await page.waitForSelector("#panel-cfg svg g.node.teach-masked");
  assert.deepEqual(await namesOf(page, "g.node.teach-masked"), ["b5", "b6"]);
  const masked = await page.locator("#panel-cfg .teach-notes li.masked").allTextContents();
  for (const b of ["b5", "b6"]) {
    const n = masked.find((t) => t.includes(`%${b} is outside the continue construct %b4 of loop %b3 under both revisions`));
    assert.ok(n, `a masked note for ${b}: ${masked.join(" | ")}`);
    assert.match(n, new RegExp(`%b4 post-dominates %${b} under 1\\.6r1 vacuously`));
  }
  // No block of the continue construct of b3's loop differs: both are {b4}.
  const differing = await page.locator("#panel-cfg .teach-notes li.differs").allTextContents();
  assert.ok(!differing.some((t) => t.includes("continue construct %b4")), differing.join(" | "));

  // 1.6r1 mode: no 1.6r2 regions drawn, 1.6r1's back edges marked.
  await page.locator("#panel-cfg .teach-mode[data-mode='1.6r1']").click();
  await page.waitForFunction(() => document.querySelectorAll("#panel-cfg svg g.cluster").length === 0);
  await page.waitForSelector("#panel-cfg svg g.edge.teach-r1-back");
  assert.ok(await page.locator("#panel-cfg .teach-revision[data-revision='1.6r1']").isVisible());
  assert.deepEqual(errors, []);
  await context.close();
});

test("the explorer shows a loop header's two regions and its allowed exits (Fig. 2)", async () => {
  const { context, page, errors } = await cfgPage();
  await load(page, await example("paper-fig2"), { teach: false });
  const b2 = await page.evaluate(() => window.spvlab.store.get().report.functions[0].blocks.find((b) => b.name === "b2").id);
  await page.locator(`#panel-cfg svg [id="block-${b2}"]`).click();
  await page.waitForSelector("#panel-cfg .teach-explorer");
  assert.deepEqual(await namesOf(page, "g.node.teach-dominated"), ["b2", "b3", "b4", "b5", "b6", "b7", "b8"]);
  assert.deepEqual(await namesOf(page, "g.node.teach-excluded"), ["b7", "b8"]);
  assert.deepEqual(await namesOf(page, "g.node.teach-in"), ["b2", "b3", "b4", "b5", "b6"]);
  const def = await page.locator("#panel-cfg .teach-definition").textContent();
  assert.equal(
    def,
    "blocks structurally dominated by %b2: {%b2, %b3, %b4, %b5, %b6, %b7, %b8}, minus those structurally dominated by %b8: {%b8}, " +
      "minus the continue construct of %b7: {%b7} = {%b2, %b3, %b4, %b5, %b6}",
  );
  // The allowed exits, drawn: continue to b7, merge b8; and a return.
  const drawn = await page.evaluate(() => {
    const f = window.spvlab.store.get().report.functions[0];
    return [...document.querySelectorAll("#panel-cfg svg .teach-overlay g.teach-allowed")]
      .map((g) => `${g.dataset.kind}:${f.blocks.find((b) => b.id === Number(g.id.replace("teach-allowed-", ""))).name}`)
      .sort();
  });
  assert.deepEqual(drawn, ["continue:b7", "merge:b8"]);
  assert.equal(await page.locator("#panel-cfg .teach-allowed-exits").textContent(), "Allowed exits: continue to %b7, merge to %b8, return");
  // Its actual exits, b2 -> b8 (to the merge) and b6 -> b7 (to the continue
  // construct), are allowed; nothing is flagged.
  assert.deepEqual(await page.locator("#panel-cfg .teach-exits li").allTextContents(), ["✓ %b2 -> %b8: merge", "✓ %b6 -> %b7: continue"]);
  assert.equal(await page.locator("#panel-cfg svg .teach-exit-bad").count(), 0);
  // Clicking b2 also lists its constructs: just the loop.
  assert.match(await page.locator("#panel-cfg .teach-containing").textContent(), /loop construct of %b2: %b2 structurally dominates %b2/);
  await screenshot(page, "teach-explorer-fig2.png");

  // Clicking a construct's cluster (its label) explores that construct: the
  // selection of b3 is what b3 structurally dominates, {b3, b4, b5, b6} (b7
  // is also reached by the continue edge b2 -> b7), minus what its merge b6
  // dominates, {b6}.
  await page.locator("#panel-cfg svg g.cluster.selection > text").click();
  await page.waitForSelector("#panel-cfg .teach-explorer h4:has-text('selection construct of %b3')");
  assert.deepEqual(await namesOf(page, "g.node.teach-in"), ["b3", "b4", "b5"]);
  assert.deepEqual(await namesOf(page, "g.node.teach-excluded"), ["b6"]);

  // A bad exit is flagged: b4 -> b2 leaves the selection of b3 for no structured exit.
  const b3 = await page.evaluate(() => window.spvlab.store.get().report.functions[0].blocks.find((b) => b.name === "b3").id);
  const bad = (await example("paper-fig2")).replace(/(%b4 = OpLabel\s+OpBranch) %b6/, "$1 %b2");
  await load(page, bad, { teach: false });
  await page.locator(`#panel-cfg svg [id="block-${b3}"]`).click();
  await page.waitForSelector("#panel-cfg .teach-explorer .teach-exits li.bad");
  assert.deepEqual(await page.locator("#panel-cfg .teach-exits li.bad").allTextContents(), ["✗ %b4 -> %b2: not allowed (breaks the exit rules)"]);
  assert.equal(await page.locator("#panel-cfg svg g.edge.teach-exit-bad").count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a lesson notices the fixing edit (Fig. 9: a separate continue block), and the problems link to their rule", async () => {
  const { context, page, errors } = await cfgPage();
  await page.locator("#panel-cfg select.teach-lesson-select").selectOption("fig9-left");
  const left = await example("paper-fig9-left");
  await page.waitForFunction((t) => window.spvlab.editor.text() === t, left);
  await page.waitForSelector("#panel-cfg[data-lesson-state='start']");
  assert.equal(await page.locator("#panel-cfg").getAttribute("data-teach-mode"), "compare");
  // Half the edit: the new block, not yet the continue target: not there yet.
  const half = left.replace(/(\s+%b3 = OpLabel)/, "\n%b5 = OpLabel\nOpBranch %b3$1");
  await setText(page, half);
  await page.waitForSelector("#panel-cfg[data-lesson-state='editing']");
  assert.match(await page.locator("#panel-cfg .teach-lesson-status").textContent(), /Not there yet/);
  await screenshot(page, "teach-lesson.png");
  // The whole edit: it becomes Fig. 9 (right).
  const fixed = half.replace("OpLoopMerge %b4 %b2 None", "OpLoopMerge %b4 %b5 None").replace(/(%b11 = OpLabel\s+OpBranch) %b3/, "$1 %b5");
  await setText(page, fixed);
  await page.waitForSelector("#panel-cfg[data-lesson-state='done']");
  assert.match(await page.locator("#panel-cfg .teach-lesson-status").textContent(), /^Done!/);
  assert.equal(await page.evaluate(() => window.spvlab.store.get().report.valid), true);

  // Fig. 7: its diagnostics link to their rule and to the example showing it.
  await setText(page, await example("paper-fig7"));
  await page.locator("#tab-problems").click();
  const item = page.locator("#problems li", { hasText: "cfg.merge-not-structurally-dominated" });
  await item.locator("button.rule-link").click();
  await page.waitForSelector("#problem-detail .rule-teaching[data-code='cfg.merge-not-structurally-dominated']");
  const fig7link = page.locator("#problems li", { hasText: "cfg.back-edge-not-to-loop-header" }).first().locator("button.example-link");
  assert.equal(await fig7link.getAttribute("data-example"), "paper-fig7");
  // A rule shown by another example opens it: back-edge-count is Fig. 5's.
  await setText(page, (await example("paper-fig2")).replace(/(%b5 = OpLabel\s+OpBranch) %b6/, "$1 %b2"));
  await page.locator("#problems li", { hasText: "cfg.back-edge-count" }).locator("button.example-link").click();
  await page.waitForFunction(() => window.spvlab.editor.text().includes("Figure 5"));
  assert.equal(await editorText(page), await example("paper-fig5"));
  assert.deepEqual(errors, []);
  await context.close();
});

// Each lesson's edit, as the learner would make it (the edits its text
// describes); the expected verdicts were checked with the reference
// spirv-val by hand.
const EDITS = {
  fig2: (t) => t.replace(/(%b5 = OpLabel\s+OpBranch) %b6/, "$1 %b2"),
  fig3: (t) => t.replace("OpSelectionMerge %b5 None", "OpSelectionMerge %b7 None"),
  fig4: (t) => t.replace("OpSelectionMerge %b4 None", "OpSelectionMerge %b5 None"),
  fig5: (t) => t.replace("OpBranchConditional %false %b2 %b4", "OpBranch %b4"),
  fig6: (t) => t.replace(/(%b5 = OpLabel\s+OpBranch) %b7/, "$1 %b4"),
  fig7: (t) =>
    t
      .replace("OpSelectionMerge %b5 None", "OpSelectionMerge %b11 None")
      .replace(/(%b8 = OpLabel\s+OpBranch) %b5/, "$1 %b11")
      .replace(/(%b9 = OpLabel\s+OpBranch) %b5/, "$1 %b11")
      .replace("OpFunctionEnd", "%b11 = OpLabel\nOpReturn\nOpFunctionEnd"),
  fig8: (t) => t.replace(/(%b6 = OpLabel\s+OpBranch) %b2/, "$1 %b3"),
  "fig9-left": (t) =>
    t
      .replace("OpLoopMerge %b4 %b2 None", "OpLoopMerge %b4 %b5 None")
      .replace(/(%b11 = OpLabel\s+OpBranch) %b3/, "$1 %b5")
      .replace(/(\s+%b3 = OpLabel)/, "\n%b5 = OpLabel\nOpBranch %b3$1"),
  "fig9-right": (t) => t.replace("OpLoopMerge %b4 %b5 None", "OpLoopMerge %b4 %b2 None").replace(/(%b11 = OpLabel\s+OpBranch) %b5/, "$1 %b3"),
};

test("every lesson: its example does not meet the goal, its edit does", async () => {
  const { context, page, errors } = await cfgPage();
  const ids = await page.locator("#panel-cfg select.teach-lesson-select option").evaluateAll((os) => os.map((o) => o.value).filter(Boolean));
  assert.deepEqual(ids.sort(), Object.keys(EDITS).sort());
  for (const id of ids) {
    await page.locator("#panel-cfg select.teach-lesson-select").selectOption(id);
    await page.waitForSelector(`#panel-cfg[data-lesson='${id}'][data-lesson-state='start']`);
    assert.equal(await page.locator("#panel-cfg").getAttribute("data-lesson-goal"), "false", `${id}: the example itself meets the goal`);
    const edited = EDITS[id](await editorText(page));
    assert.notEqual(edited, await editorText(page), `${id}: the edit changes the text`);
    await setText(page, edited);
    await page.waitForSelector("#panel-cfg[data-lesson-state='done']", { timeout: 10000 });
  }
  assert.deepEqual(errors, []);
  await context.close();
});
