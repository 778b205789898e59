// Names in the browser: the graph, the function menu and the listing go by
// the text's names; three mistakes that are easy to misread give one
// Problems entry each, at the right place, with a suggestion that fits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { servePage, openPage, setText, screenshot } from "./lib.mjs";

const env = servePage();

/** A counted loop without a single OpName: every name is the text's. */
const NO_OPNAME = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%bool = OpTypeBool
%zero = OpConstant %int 0
%ten = OpConstant %int 10
%one = OpConstant %int 1
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %header
%header = OpLabel
%iv = OpPhi %int %zero %entry %next %cont
OpLoopMerge %merge %cont None
OpBranch %check
%check = OpLabel
%more = OpSLessThan %bool %iv %ten
OpBranchConditional %more %body %merge
%body = OpLabel
OpBranch %cont
%cont = OpLabel
%next = OpIAdd %int %iv %one
OpBranch %header
%merge = OpLabel
OpReturn
OpFunctionEnd
`;

async function drawn(page) {
  await page.waitForSelector("#panel-cfg[data-state='ready']");
}

const nodeTexts = (page) => page.locator("#panel-cfg svg.cfg-svg g.node text").allTextContents();

test("without OpName, the graph's nodes, the function menu and the listing use the text's names", async () => {
  const errors = [];
  const { page, context } = await openPage(env.browser, env.url, { errors });
  await setText(page, NO_OPNAME);
  await page.locator("#tab-cfg").click();
  await drawn(page);
  const names = (await nodeTexts(page)).join("\n");
  for (const n of ["%entry", "%header", "%check", "%body", "%cont", "%merge"]) assert.ok(names.includes(n), `${n} on the graph: ${names}`);
  assert.ok(!/%\d+\b/.test(names), `no numbered block: ${names}`);
  const menu = await page.locator("#panel-cfg select.cfg-function option").allTextContents();
  assert.ok(menu[0].startsWith("main "), `the function menu: ${menu}`);
  // The listing shows the instructions as the text names their ids.
  await page.locator("#panel-cfg label.cfg-toggle", { hasText: "listing" }).locator("input").check();
  await drawn(page);
  await page.waitForFunction(() => [...document.querySelectorAll("#panel-cfg g.node text")].some((t) => t.textContent.includes("OpPhi")));
  const listing = (await nodeTexts(page)).join("\n");
  assert.ok(listing.includes("%iv = OpPhi %int %zero %entry %next %cont"), listing);
  assert.ok(listing.includes("OpLoopMerge %merge %cont None"), listing);
  await screenshot(page, "names-listing.png");
  await context.close();
  assert.deepEqual(errors, []);
});

/** The Problems entries: [{line, col, code, msg}]. */
async function problems(page) {
  await page.locator("#tab-problems").click();
  return page.locator("button.problem").evaluateAll((bs) =>
    bs.map((b) => ({ line: Number(b.dataset.line), col: Number(b.dataset.col), code: b.querySelector(".code").textContent, msg: b.querySelector(".msg").textContent })),
  );
}

test("three mistakes each give one entry, at the right place, with a fitting suggestion", async () => {
  const errors = [];
  const { page, context } = await openPage(env.browser, env.url, { errors });
  const lines = NO_OPNAME.split("\n");

  // A string with no closing quote: one entry at the opening quote, naming its line.
  const quote = [...lines.slice(0, 4), 'OpName %main "main', ...lines.slice(4)].join("\n");
  await setText(page, quote);
  let p = await problems(page);
  assert.equal(p.length, 1, JSON.stringify(p));
  assert.deepEqual([p[0].line, p[0].col], [5, 14]);
  assert.match(p[0].msg, /closing/);
  assert.match(p[0].msg, /line 5/);
  assert.ok(p[0].msg.length < 120, `the message does not swallow the text: ${p[0].msg}`);

  // A Function-storage variable at module scope: outside any function.
  const ptr = "%ptr = OpTypePointer Function %int";
  const stray = NO_OPNAME.replace("%one = OpConstant %int 1\n", `%one = OpConstant %int 1\n${ptr}\n%v = OpVariable %ptr Function\n`);
  await setText(page, stray);
  p = await problems(page);
  assert.equal(p.length, 1, JSON.stringify(p));
  assert.equal(p[0].line, stray.split("\n").indexOf("%v = OpVariable %ptr Function") + 1);
  assert.match(p[0].msg, /outside any function/);
  assert.doesNotMatch(p[0].msg, /entry block/);

  // OpBranch %cnt, a typo of %cont: one entry at the token, suggesting the label.
  const typo = NO_OPNAME.replace("%body = OpLabel\nOpBranch %cont", "%body = OpLabel\nOpBranch %cnt");
  await setText(page, typo);
  p = await problems(page);
  assert.equal(p.length, 1, JSON.stringify(p));
  const row = typo.split("\n").indexOf("OpBranch %cnt") + 1;
  assert.deepEqual([p[0].line, p[0].col], [row, 10]);
  await page.locator("button.problem").first().click();
  const help = await page.locator("#problem-detail p.help").allTextContents();
  assert.ok(help.some((h) => h.includes("%cont")), `suggests %cont: ${help}`);
  assert.ok(!help.some((h) => h.includes("%int")), `no type suggested for a branch target: ${help}`);
  await screenshot(page, "names-typo-suggestion.png");
  await context.close();
  assert.deepEqual(errors, []);
});
