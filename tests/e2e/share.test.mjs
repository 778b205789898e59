// Share links and persistence: a link round-trips the exact text and settings
// (the CFG panel's options included) in a fresh browser context; after Share,
// the next edit takes the link out of the address bar, so a reload shows the
// edit; links of the older format still open; a truncated, garbled or hostile
// link shows an error and the page stays usable; autosave restores what was
// typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { servePage, openPage, screenshot, setText, editorText, MODULE } from "./lib.mjs";

const env = servePage();

// Text with what could go wrong in a link: unicode, tabs, CRLF, quotes, `#`, `%`.
const TEXT = MODULE.replace("%entry = OpLabel", "%entry = OpLabel ; ünïcødé ✓ \t# 100% \"q\" \\ end\r") + "; trailing\n\n";

async function share(page) {
  await page.locator("#share-btn").click();
  const input = page.locator("#share-link");
  await input.waitFor();
  const link = await input.inputValue();
  assert.match(link, /#v1\/[A-Za-z0-9_-]+$/);
  assert.equal(await page.evaluate(() => location.href), link, "the URL holds the link");
  return link;
}

test("a share link round-trips the exact text and settings in a fresh context", async () => {
  const errors = [];
  const a = await openPage(env.browser, env.url, { errors });
  await setText(a.page, TEXT);
  // The editor keeps lines, not line-break styles: CRLF becomes LF.
  const held = await editorText(a.page);
  assert.equal(held, TEXT.replace(/\r\n/g, "\n"));
  await a.page.locator("#target-env").selectOption("vulkan1.2");
  await a.page.keyboard.press("Alt+4");
  const link = await share(a.page);
  await screenshot(a.page, "share-link.png");
  await a.context.close();

  const b = await openPage(env.browser, link, { errors });
  assert.equal(await editorText(b.page), held);
  assert.equal(await b.page.locator("#target-env").inputValue(), "vulkan1.2");
  assert.equal(await b.page.locator("#tab-binary").getAttribute("aria-selected"), "true");
  assert.ok(await b.page.locator("#panel-binary").isVisible());
  assert.ok(await b.page.locator("#banner").isHidden());
  await screenshot(b.page, "share-restored.png");
  await b.context.close();
  assert.deepEqual(errors, []);
});

test("a share link wins over autosave, which stays until the user edits", async () => {
  const a = await openPage(env.browser, env.url);
  const mine = MODULE + "; my autosaved work\n";
  await setText(a.page, mine);
  await a.page.locator("#target-env").selectOption("spv1.3");
  const other = MODULE + "; shared by someone\n";
  await setText(a.page, other);
  const link = await share(a.page);
  await setText(a.page, mine);
  await a.page.waitForFunction((t) => JSON.parse(localStorage.getItem("spvlab.autosave.v1") ?? "{}").text === t, mine);

  // Same browser (same localStorage): the link shows the shared text...
  await a.page.goto("about:blank");
  await a.page.goto(link);
  await a.page.waitForSelector("body[data-ready='true']");
  assert.equal(await editorText(a.page), other);
  // ...and reloading without the link gives back the autosaved text.
  await a.page.goto(env.url);
  await a.page.waitForSelector("body[data-ready='true']");
  assert.equal(await editorText(a.page), mine);
  assert.equal(await a.page.locator("#target-env").inputValue(), "spv1.3");
  await a.context.close();
});

test("corrupted and hostile links show a message and the page stays usable", async () => {
  const a = await openPage(env.browser, env.url);
  await setText(a.page, MODULE);
  const link = await share(a.page);
  const saved = MODULE + "; autosaved\n";
  await setText(a.page, saved);
  await a.page.waitForFunction((t) => JSON.parse(localStorage.getItem("spvlab.autosave.v1") ?? "{}").text === t, saved);
  const frag = link.split("#")[1];
  const b64 = (s) => Buffer.from(s).toString("base64url");
  const bad = {
    truncated: frag.slice(0, Math.floor(frag.length / 2)),
    garbled: frag.slice(0, 10) + "!!**~~" + frag.slice(16),
    flipped: frag.slice(0, -6) + (frag.slice(-6, -5) === "A" ? "B" : "A") + frag.slice(-5),
    empty: "v1/",
    "not base64 deflate": "v1/" + b64('{"text":"<img src=x onerror=window.__xss=1>","targetEnv":"spv1.6"}'),
    "unknown version": "v9/abc",
    markup: "<script>window.__xss=1</script>",
  };
  let first = true;
  for (const [what, f] of Object.entries(bad)) {
    const errors = [];
    a.page.removeAllListeners("pageerror");
    a.page.on("pageerror", (e) => errors.push(String(e)));
    await a.page.goto("about:blank");
    await a.page.goto(`${env.url}#${f}`);
    await a.page.waitForSelector("body[data-ready='true']");
    const banner = a.page.locator("#banner");
    assert.ok(await banner.isVisible(), `${what}: a message`);
    assert.match(await banner.textContent(), /share link could not be opened/, what);
    assert.equal(await editorText(a.page), saved, `${what}: the autosaved text`);
    assert.equal(await a.page.evaluate(() => window.__xss ?? null), null, what);
    if (first) await screenshot(a.page, "share-bad-link.png");
    first = false;
    // Still usable: an edit is analysed (the valid module opened on the CFG).
    await setText(a.page, saved + "OpFrob\n");
    await a.page.locator("#tab-problems").click();
    await a.page.waitForSelector("button.problem");
    await setText(a.page, saved);
    assert.deepEqual(errors, [], what);
  }
  await a.page.locator("#banner-close").click();
  assert.ok(await a.page.locator("#banner").isHidden());
  await a.context.close();
});

test("autosave: nothing typed is lost on reload", async () => {
  const a = await openPage(env.browser, env.url);
  await a.page.evaluate(() => {
    const v = window.spvlab.editor.view;
    v.dispatch({ selection: { anchor: v.state.doc.length } });
    v.focus();
  });
  await a.page.keyboard.type("; typed just now");
  // Reload at once: the beforeunload/pagehide save keeps it.
  await a.page.reload();
  await a.page.waitForSelector("body[data-ready='true']");
  assert.match(await editorText(a.page), /; typed just now$/);
  await a.context.close();
});

test("share, edit, reload: the edit is what shows (also for a page opened from a link)", async () => {
  const a = await openPage(env.browser, env.url);
  await setText(a.page, MODULE);
  const link = await share(a.page);
  await a.page.evaluate(() => {
    const v = window.spvlab.editor.view;
    v.dispatch({ selection: { anchor: v.state.doc.length } });
    v.focus();
  });
  await a.page.keyboard.type("; edited after sharing");
  // The address no longer holds the shared state, and the link box is gone.
  await a.page.waitForFunction(() => location.hash === "");
  assert.equal(await a.page.evaluate(() => location.href), link.split("#")[0]);
  assert.ok(await a.page.locator("#share-box").isHidden());
  await a.page.reload();
  await a.page.waitForSelector("body[data-ready='true']");
  assert.equal(await editorText(a.page), MODULE + "; edited after sharing");
  await a.context.close();

  // Opened from the link, then edited: a reload shows the edit too.
  const b = await openPage(env.browser, link);
  assert.equal(await editorText(b.page), MODULE);
  assert.equal(await b.page.evaluate(() => location.href), link, "the link stays while nothing changed");
  await b.page.locator("#tab-disassembly").click();
  assert.equal(await b.page.evaluate(() => location.href), link, "opening a panel is not an edit");
  await setText(b.page, MODULE + "; edited after opening the link\n");
  await b.page.waitForFunction(() => location.hash === "");
  await b.page.reload();
  await b.page.waitForSelector("body[data-ready='true']");
  assert.equal(await editorText(b.page), MODULE + "; edited after opening the link\n");
  await b.context.close();
});

// Two functions, so that the link's function is not the one the panel takes
// by default (the first).
const TWO_FUNCTIONS = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
OpName %main "main"
OpName %helper "helper"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%true = OpConstantTrue %bool
%helper = OpFunction %void None %fn
%h0 = OpLabel
OpReturn
OpFunctionEnd
%main = OpFunction %void None %fn
%entry = OpLabel
OpSelectionMerge %merge None
OpBranchConditional %true %then %merge
%then = OpLabel
%r = OpFunctionCall %void %helper
OpBranch %merge
%merge = OpLabel
OpReturn
%orphan = OpLabel
OpReturn
OpFunctionEnd
`;

/** The CFG panel's controls as the user sees them. */
async function cfgControls(page) {
  const box = (name) => page.locator("#panel-cfg label.cfg-toggle", { hasText: name }).locator("input").isChecked();
  const fn = page.locator("#panel-cfg select.cfg-function");
  return {
    listing: await box("listing"),
    constructs: await box(/^ ?constructs$/),
    hideUnreachable: await box("hide unreachable"),
    containing: await box("containing constructs"),
    dominators: await page.locator("#panel-cfg select.cfg-dominators").inputValue(),
    function: await fn.locator("option:checked").textContent(),
  };
}

test("a share link restores the CFG panel's options and function", async () => {
  const errors = [];
  const a = await openPage(env.browser, env.url, { errors });
  await setText(a.page, TWO_FUNCTIONS);
  await a.page.locator("#tab-cfg").click();
  await a.page.waitForSelector("#panel-cfg[data-state='ready']");
  const fn = a.page.locator("#panel-cfg select.cfg-function");
  const mainId = await fn.locator("option", { hasText: /^main / }).getAttribute("value");
  await fn.selectOption(mainId);
  await a.page.locator("#panel-cfg label.cfg-toggle", { hasText: "listing" }).locator("input").check();
  await a.page.locator("#panel-cfg label.cfg-toggle", { hasText: /^ ?constructs$/ }).locator("input").uncheck();
  await a.page.locator("#panel-cfg select.cfg-dominators").selectOption("structural");
  await a.page.locator("#panel-cfg label.cfg-toggle", { hasText: "hide unreachable" }).locator("input").check();
  await a.page.locator("#panel-cfg label.cfg-toggle", { hasText: "containing constructs" }).locator("input").check();
  await a.page.waitForSelector("#panel-cfg[data-state='ready']");
  const want = await cfgControls(a.page);
  assert.deepEqual(
    { ...want, function: want.function.split(" ")[0] },
    { listing: true, constructs: false, hideUnreachable: true, containing: true, dominators: "structural", function: "main" },
  );
  const link = await share(a.page);
  await a.context.close();

  const b = await openPage(env.browser, link, { errors });
  assert.equal(await b.page.locator("#tab-cfg").getAttribute("aria-selected"), "true");
  await b.page.waitForSelector("#panel-cfg[data-state='ready']");
  assert.deepEqual(await cfgControls(b.page), want);
  assert.equal(await b.page.locator("#panel-cfg").getAttribute("data-function"), mainId);
  // The drawing is the one those options make: main's blocks with their
  // listings, a structural dominator tree, no construct regions, and the
  // orphan block (not structurally reachable) left out.
  const svg = b.page.locator("#panel-cfg svg.cfg-svg");
  assert.equal(await svg.locator("g.node").count(), 3);
  assert.ok((await svg.locator("g.dom.structural").count()) >= 2);
  assert.equal(await svg.locator("g.cluster").count(), 0);
  assert.match(await svg.textContent(), /OpSelectionMerge/);
  assert.ok(await b.page.locator("#banner").isHidden());
  await b.context.close();
  assert.deepEqual(errors, []);
});

test("links of the older format (with the Run tab's state) still open", async () => {
  // Made by a page of the older format (its Run tab open, a `run` object,
  // and no CFG options): text, target vulkan1.1, function 3, panel "run".
  const old =
    "v1/VZDLasMwEEV_RQxkZ0rdx8bQVXC7cepSl27qLhR7nIrKI6FKJm7Iv3fGpIEg0OPeM1cjHSDiPkIBtV9rr7fGmjir5kv3GFqq_QZHF-aN69Gqyu1Mp616qprq7v5a7JJimF-cocjq2o0-RVSrURtSLcjSwoLtsUvROJKgk185zmrML6pcRkuryZlePajav80e3_nA2kBn5TFRJxlqAdlbYsS9dNSzI75kIEZQ-luYSm_RSi-vGFMg2f2XlcRpkEHUYYexpIm_Y0r2W1N-lbM-nDgobjPwmtAyEJKUyFwcwBA__AeKjzy7-Twe_wA";
  const errors = [];
  const a = await openPage(env.browser, `${env.url}#${old}`, { errors });
  assert.ok(await a.page.locator("#banner").isHidden(), "no error");
  assert.equal(await editorText(a.page), MODULE);
  assert.equal(await a.page.locator("#target-env").inputValue(), "vulkan1.1");
  // No Run tab: the page opens where it opens for a valid module, the CFG,
  // with the default options.
  assert.equal(await a.page.locator("#tab-cfg").getAttribute("aria-selected"), "true");
  await a.page.waitForSelector("#panel-cfg[data-state='ready']");
  const c = await cfgControls(a.page);
  assert.deepEqual({ ...c, function: undefined }, { listing: false, constructs: true, hideUnreachable: false, containing: false, dominators: "none", function: undefined });
  await a.context.close();
  assert.deepEqual(errors, []);
});
