// The editor and its panels: live diagnostics (squiggle + Problems entry),
// id hover, go to definition, references, completion, keyboard navigation
// between panels, disassembly and binary views, themes, and hostile names.
// Run by `./x test` (after ./x build) or `node --test` in this folder.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { serveDist, launch, openPage, screenshot, setText, editorText, referenceTools, MODULE } from "./lib.mjs";

let server, url, browser, page, context;
const errors = [];

before(async () => {
  ({ server, url } = await serveDist());
  browser = await launch();
  ({ page, context } = await openPage(browser, url, { errors }));
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** Click at the start of a 1-based editor line. */
async function gotoLine(n) {
  await page.evaluate((n) => {
    const v = window.spvlab.editor.view;
    v.dispatch({ selection: { anchor: v.state.doc.line(n).from } });
    v.focus();
  }, n);
}

async function cursor() {
  return page.evaluate(() => {
    const v = window.spvlab.editor.view;
    const head = v.state.selection.main.head;
    const line = v.state.doc.lineAt(head);
    return { line: line.number, col: head - line.from + 1 };
  });
}

test("typing an invalid module shows the located diagnostic within 1 s; fixing it clears it", async () => {
  await setText(page, MODULE);
  assert.equal(await page.locator("button.problem").count(), 0, "the module starts valid");
  // The page opened on the CFG (the module is valid); Problems is one click away.
  assert.equal(await page.locator("#tab-cfg").getAttribute("aria-selected"), "true");
  await page.locator("#tab-problems").click();
  await gotoLine(9); // OpReturn
  await page.keyboard.press("Shift+End");
  await page.keyboard.type("OpFrob", { delay: 20 });
  const t0 = Date.now();
  await page.waitForSelector("button.problem[data-line='9'][data-col='1']");
  await page.waitForSelector(".cm-lintRange-error");
  const latency = Date.now() - t0;
  console.log(`keystroke to diagnostic: ${latency} ms`);
  assert.ok(latency < 1000, `diagnostic shown ${latency} ms after the last keystroke`);
  const entry = page.locator("button.problem").first();
  assert.equal(await entry.locator(".loc").textContent(), "9:1");
  assert.match(await entry.locator(".msg").textContent(), /OpFrob/);
  // The squiggle covers the bad opcode on line 9.
  const squiggle = await page.locator(".cm-lintRange-error").first().textContent();
  assert.equal(squiggle, "OpFrob");
  await screenshot(page, "editor-diagnostic.png");

  // Clicking the entry moves the cursor to the problem and explains it.
  await gotoLine(1);
  await entry.click();
  assert.equal((await cursor()).line, 9);
  assert.match(await page.locator("#problem-detail").textContent(), /asm\.unknown-opcode|OpFrob/);

  // Fixing it clears the problem and the squiggle.
  await page.keyboard.press("End");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.type("OpReturn");
  await page.waitForSelector("#problems li.none");
  assert.equal(await page.locator(".cm-lintRange-error").count(), 0);
  // The count is always shown: 0 now.
  assert.equal(await page.locator("#problem-count").textContent(), "0");
});

test("a validation problem is located, explained, and jumped to", async () => {
  // %int is used before any type defines it... a result type that is not a type.
  const bad = MODULE.replace("%entry = OpLabel", "%entry = OpLabel\n%x = OpIAdd %fn %fn %fn");
  await setText(page, bad);
  const entry = page.locator("button.problem").first();
  await entry.waitFor();
  const line = Number(await entry.getAttribute("data-line"));
  assert.equal(line, 9, "the OpIAdd line");
  await entry.click();
  assert.equal((await cursor()).line, 9);
  const detail = await page.locator("#problem-detail").textContent();
  assert.ok(detail.length > 20, detail);
  await screenshot(page, "editor-problem-selected.png");
  await setText(page, MODULE);
});

test("hovering an id shows its definition; F12 goes there; Shift+F12 marks its references", async () => {
  await setText(page, MODULE);
  // Hover %fn on line 7 (`%main = OpFunction %void None %fn`).
  const line7 = page.locator(".cm-line").nth(6);
  const fn = line7.locator("span", { hasText: /^%fn$/ });
  await fn.hover();
  const tip = page.locator(".cm-id-hover");
  await tip.waitFor();
  assert.match(await tip.textContent(), /OpTypeFunction/);
  await screenshot(page, "editor-hover.png");
  await page.mouse.move(5, 5);

  // F12 on %fn jumps to line 6.
  await page.evaluate(() => {
    const v = window.spvlab.editor.view;
    const l = v.state.doc.line(7);
    v.dispatch({ selection: { anchor: l.from + l.text.lastIndexOf("%fn") + 1 } });
    v.focus();
  });
  await page.keyboard.press("F12");
  assert.deepEqual(await cursor(), { line: 6, col: 1 });

  // Shift+F12 on %void (line 5): its definition and its two uses.
  await gotoLine(5);
  await page.keyboard.press("Shift+F12");
  const refs = await page.locator(".cm-ref").allTextContents();
  assert.deepEqual(refs, ["%void", "%void", "%void"]);
  assert.match(await page.locator("#status").textContent(), /2 references/);
  await page.keyboard.press("Escape");
  assert.equal(await page.locator(".cm-ref").count(), 0);

  // Ctrl-click on %void in line 7 goes to line 5.
  await gotoLine(1);
  await page.locator(".cm-line").nth(6).locator("span", { hasText: /^%void$/ }).click({ modifiers: ["Control"] });
  assert.equal((await cursor()).line, 5);
});

test("completion offers opcodes", async () => {
  await setText(page, MODULE);
  await gotoLine(11);
  await page.keyboard.type("%t = OpTypeV");
  await page.keyboard.press("Control+Space");
  const list = page.locator(".cm-tooltip-autocomplete");
  await list.waitFor();
  assert.match(await list.textContent(), /OpTypeVoid/);
  await screenshot(page, "editor-completion.png");
  await page.keyboard.press("Escape");
  await setText(page, MODULE);
});

test("panels by keyboard: disassembly, binary with the instruction under the cursor", async () => {
  await setText(page, MODULE);
  await gotoLine(1);
  await page.keyboard.press("Alt+3");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-disassembly");
  assert.ok(await page.locator("#panel-disassembly").isVisible());
  const dis = await page.locator("#disassembly").textContent();
  assert.match(dis, /OpCapability Shader/);
  assert.match(dis, /OpFunctionEnd/);
  await screenshot(page, "panel-disassembly.png");

  // Arrow keys move between tabs.
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-binary");
  assert.ok(await page.locator("#panel-binary").isVisible());
  await gotoLine(6); // %fn = OpTypeFunction %void: 3 words, opcode 33
  const cur = page.locator("#hex .inst.cur");
  await cur.waitFor();
  const words = (await cur.textContent()).split(":")[1].trim().split(/\s+/);
  assert.deepEqual(words.length, 3);
  assert.equal(parseInt(words[0], 16), (3 << 16) | 33, "OpTypeFunction, 3 words");

  // The words are the reference spirv-as's.
  const bin = referenceTools();
  if (bin) {
    const out = execFileSync(path.join(bin, "spirv-as"), ["-", "-o", "-", "--target-env", "spv1.6"], { input: MODULE });
    const ref = [];
    for (let i = 0; i + 4 <= out.length; i += 4) ref.push(out.readUInt32LE(i));
    const shown = (await page.locator("#hex").textContent())
      .split("\n").filter((l) => l.includes(":"))
      .flatMap((l) => l.split(":")[1].replace(/;.*/, "").trim().split(/\s+/)).filter(Boolean)
      .map((h) => parseInt(h, 16));
    assert.deepEqual(shown, ref);
  } else console.log("SKIPPED binary words vs spirv-as: no reference tools");
  await screenshot(page, "panel-binary.png");

  for (const [key, id] of [["Alt+1", "problems"], ["Alt+2", "cfg"]]) {
    await page.keyboard.press(key);
    assert.equal(await page.evaluate(() => document.activeElement.id), `tab-${id}`);
    assert.ok(await page.locator(`#panel-${id}`).isVisible());
  }
  // Seven tabs: Alt+5 opens the Run panel (tests/e2e/run.test.mjs runs it),
  // Alt+6 the WGSL tab (tests/e2e/wgsl.test.mjs), Alt+7 the Flesh tab
  // (tests/e2e/flesh.test.mjs).
  assert.deepEqual(await page.locator("#tabs [role=tab]").evaluateAll((l) => l.map((t) => t.id)), [
    "tab-problems", "tab-cfg", "tab-disassembly", "tab-binary", "tab-run", "tab-wgsl", "tab-flesh",
  ]);
  assert.ok(!(await page.locator("body").textContent()).includes("coming with the run issue"));
  await page.keyboard.press("Alt+7");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-flesh");
  assert.ok(await page.locator("#panel-flesh").isVisible());
  await page.keyboard.press("Alt+5");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-run");
  assert.ok(await page.locator("#panel-run").isVisible());
  await page.keyboard.press("Alt+2");
  await screenshot(page, "panel-cfg.png");
  await page.keyboard.press("Alt+0");
  assert.ok(await page.evaluate(() => document.activeElement.classList.contains("cm-content")));
  await page.keyboard.press("Alt+1");
});

test("light and dark themes; the splitter resizes", async () => {
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const light = await bg();
  await page.locator("#theme-btn").click();
  const dark = await bg();
  assert.notEqual(light, dark);
  await screenshot(page, "theme-dark.png");
  await page.locator("#theme-btn").click();
  assert.equal(await bg(), light);

  const width = () => page.locator("#editor-pane").evaluate((e) => e.getBoundingClientRect().width);
  const w0 = await width();
  await page.locator("#splitter").focus();
  await page.keyboard.press("ArrowLeft");
  assert.ok((await width()) < w0 - 20);
  await page.keyboard.press("ArrowRight");
});

test("the Examples dialog lists the gallery and loads an example", async () => {
  await page.locator("#examples-btn").click();
  const dialog = page.locator("#examples");
  await dialog.waitFor();
  const n = await page.locator("button.example").count();
  await screenshot(page, "examples.png");
  if (n === 0) {
    assert.match(await page.locator("#examples-list").textContent(), /No examples yet/);
    await page.keyboard.press("Escape");
  } else {
    const first = page.locator("button.example").first();
    assert.ok((await first.locator(".ex-caption").textContent()).length > 20, "a caption");
    const before = Number(await page.evaluate(() => document.body.dataset.analyzed));
    await first.click();
    await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
    assert.notEqual(await editorText(page), MODULE);
  }
  assert.ok(await dialog.isHidden());
  await setText(page, MODULE);
});

const HOSTILE = [`<script>alert(1)</script>`, `</text>`, `"quoted"`, `back\\slash`, `"]; a -> b [`];
// A string literal holding every hostile name (escaped for the assembler).
const lit = (s) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
const HOSTILE_MODULE = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%s = OpString ${lit(HOSTILE.join(" "))}
OpName %main ${lit(HOSTILE[0])}
OpName %missing ${lit(HOSTILE.join(" "))}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
`;

/** No element of `selector` is a script/SVG text element, and no attribute carries the names. */
async function noMarkup(selector) {
  return page.evaluate((sel) => {
    const bad = [];
    for (const rootEl of document.querySelectorAll(sel)) {
      for (const e of [rootEl, ...rootEl.querySelectorAll("*")]) {
        if (["SCRIPT", "TEXT", "text"].includes(e.tagName)) bad.push(`<${e.tagName}>`);
        for (const a of e.attributes) {
          if (/[<>"\\]|a -> b/.test(a.name) || /<script|<\/text|a -> b/.test(a.value)) bad.push(`${a.name}=${a.value}`);
        }
      }
    }
    return bad;
  }, selector);
}

test("hostile names stay text in the Problems list, the hover and the disassembly", async () => {
  const scripts = await page.evaluate(() => document.scripts.length);
  await setText(page, HOSTILE_MODULE);
  // Problems: %missing is named but never defined; the excerpt shows the names.
  await page.keyboard.press("Alt+1");
  const entry = page.locator("button.problem").first();
  await entry.waitFor();
  await entry.click();
  const detail = await page.locator("#panel-problems").textContent();
  for (const h of ["<script>alert(1)</script>", "</text>", '"]; a -> b ['])
    assert.ok(detail.includes(h) || detail.includes(h.replace(/"/g, '\\"')), `problems show ${h}: ${detail}`);
  assert.deepEqual(await noMarkup("#panel-problems"), []);
  await screenshot(page, "hostile-problems.png");

  // Hover %s: its definition, with the names as text.
  await page.locator(".cm-line").nth(4).locator("span", { hasText: /^%s$/ }).hover();
  const tip = page.locator(".cm-id-hover");
  await tip.waitFor();
  const tipText = await tip.textContent();
  assert.ok(tipText.includes("<script>alert(1)</script>"), tipText);
  assert.ok(tipText.includes('\\"]; a -> b ['), tipText);
  assert.deepEqual(await noMarkup(".cm-tooltip"), []);
  await screenshot(page, "hostile-hover.png");
  await page.mouse.move(5, 5);

  // Disassembly: the OpString and OpName lines, as text.
  await page.keyboard.press("Alt+3");
  const dis = await page.locator("#disassembly").textContent();
  assert.ok(dis.includes(`OpString ${lit(HOSTILE.join(" "))}`), dis);
  assert.ok(dis.includes(lit(HOSTILE[0])), dis);
  assert.deepEqual(await noMarkup("#panel-disassembly"), []);
  await screenshot(page, "hostile-disassembly.png");
  assert.equal(await page.evaluate(() => document.scripts.length), scripts, "no script element added");
  assert.equal(await page.evaluate(() => window.__xss ?? null), null);
  await page.keyboard.press("Alt+1");
  await setText(page, MODULE);
  assert.deepEqual(errors, [], "no errors in the page");
  assert.equal(await editorText(page), MODULE);
});
