// The page as a new user finds it: it opens on the CFG when the
// module is valid (Problems one click away, always counted), the dark theme
// covers the graph too, the help panel (shortcuts, spec sections, versions),
// and the gallery names the paper its figures come from.
import { test } from "node:test";
import assert from "node:assert/strict";
import { servePage, openPage, setText, luminance, MODULE, distGzipSizes } from "./lib.mjs";

const env = servePage();

const selected = (page, id) => page.locator(`#tab-${id}`).getAttribute("aria-selected");

async function cfgReady(page) {
  await page.waitForSelector("#panel-cfg[data-state='ready']");
}

test("the page opens on the CFG when the module is valid, on Problems when it is not; the count is always shown", async () => {
  const errors = [];
  const { page, context } = await openPage(env.browser, env.url, { errors });
  // The sample module is valid: the graph is what shows.
  assert.equal(await selected(page, "cfg"), "true");
  assert.ok(await page.locator("#panel-cfg").isVisible());
  await cfgReady(page);
  assert.ok((await page.locator("#panel-cfg g.node").count()) >= 1, "the graph is drawn");
  // Problems is one click away, and counted: 0.
  const count = page.locator("#problem-count");
  assert.ok(await count.isVisible());
  assert.equal(await count.textContent(), "0");
  assert.equal(await page.locator("#tab-problems").getAttribute("aria-label"), "Problems: 0");

  // An invalid module: the count follows while the graph stays open.
  await setText(page, MODULE.replace("%entry = OpLabel", "%entry = OpLabel\n%x = OpIAdd %fn %fn %fn"));
  assert.equal(await selected(page, "cfg"), "true", "the panel the user has stays");
  assert.ok(Number(await count.textContent()) >= 1);
  assert.ok(await count.isVisible());
  await page.locator("#tab-problems").click();
  assert.ok(await page.locator("button.problem").first().isVisible());

  // Reopened with that (autosaved) invalid module: it opens on Problems.
  await page.waitForFunction(() => JSON.parse(localStorage.getItem("spvlab.autosave.v1") ?? "{}").text?.includes("OpIAdd"));
  await page.reload();
  await page.waitForSelector("body[data-ready='true']");
  assert.equal(await selected(page, "problems"), "true");
  assert.ok(await page.locator("button.problem").first().isVisible());
  await context.close();
  assert.deepEqual(errors, []);
});

test("the dark-theme button makes the graph dark too, and the light one light", async () => {
  for (const scheme of ["light", "dark"]) {
    const context = await env.browser.newContext({ viewport: { width: 1366, height: 800 }, colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(env.url);
    await page.waitForSelector("body[data-ready='true']");
    await page.locator("#tab-cfg").click();
    await cfgReady(page);
    const view = page.locator("#panel-cfg .cfg-view");
    const graph = page.locator("#panel-cfg svg.cfg-svg");
    const shown = async () => ({ view: await luminance(view), graph: await luminance(graph) });
    const system = await shown();
    if (scheme === "light") assert.ok(system.view > 0.8 && system.graph > 0.8, `light system: ${JSON.stringify(system)}`);
    else assert.ok(system.view < 0.25 && system.graph < 0.25, `dark system: ${JSON.stringify(system)}`);
    // The button flips the whole page, the graph included.
    await page.locator("#theme-btn").click();
    const flipped = await shown();
    if (scheme === "light") {
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
      assert.ok(flipped.view < 0.25, `the graph's background is dark: ${flipped.view}`);
      assert.ok(flipped.graph < 0.25, `the graph itself is dark: ${flipped.graph}`);
    } else {
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
      assert.ok(flipped.view > 0.8 && flipped.graph > 0.8, `light theme on a dark system: ${JSON.stringify(flipped)}`);
    }
    // The legend follows the graph.
    const legend = await page.locator("#panel-cfg .cfg-legend svg").first().evaluate((e) => getComputedStyle(e).filter);
    assert.equal(legend.includes("invert"), scheme === "light", `legend filter ${legend}`);
    await context.close();
  }
});

test("the help panel: shortcuts, the spec sections, the SPIRV-Tools and engine versions", async () => {
  const { page, context } = await openPage(env.browser, env.url);
  const dialog = page.locator("#help");
  assert.ok(await dialog.isHidden());
  await page.locator("#help-btn").click();
  await dialog.waitFor();
  const text = await dialog.textContent();
  for (const key of ["Alt", "F12", "Shift", "Ctrl", "Space", "F1"]) assert.ok(text.includes(key), `shortcut ${key}`);
  // Every section the explanations cite, linked into the unified spec.
  const links = await dialog.locator(".spec-links a").evaluateAll((l) => l.map((a) => [a.textContent, a.href]));
  for (const sec of ["§2.2.5", "§2.4", "§2.11", "§2.16.1", "§2.17"]) {
    const hit = links.find(([t]) => t.startsWith(sec + " "));
    assert.ok(hit, `a link for ${sec}: ${JSON.stringify(links)}`);
    assert.match(hit[1], /^https:\/\/registry\.khronos\.org\/SPIR-V\/specs\/unified1\/SPIRV\.html#\w+$/);
  }
  assert.match(await page.locator("#help-spirv-tools").textContent(), /^v2025\.5$/);
  const version = await page.evaluate(() => window.spvlab.version);
  assert.match(version, /^\d+\.\d+\.\d+/);
  assert.equal(await page.locator("#help-version").textContent(), version);
  // The dialog is on screen, and closes with Escape; F1 opens it again.
  const box = await dialog.boundingBox();
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1366 && box.y + box.height <= 768, JSON.stringify(box));
  await page.keyboard.press("Escape");
  assert.ok(await dialog.isHidden());
  await page.keyboard.press("F1");
  await dialog.waitFor();
  await page.keyboard.press("F1");
  assert.ok(await dialog.isHidden());
  await context.close();
});

test("a problem's explanation links the spec sections it cites", async () => {
  const { page, context } = await openPage(env.browser, env.url);
  // A conditional branch with no merge instruction in a shader (§2.11).
  await setText(
    page,
    MODULE.replace("%fn = OpTypeFunction %void", "%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%t = OpConstantTrue %bool")
      .replace("%entry = OpLabel\nOpReturn", "%entry = OpLabel\nOpBranchConditional %t %a %b\n%a = OpLabel\nOpReturn\n%b = OpLabel\nOpReturn"),
  );
  await page.locator("#tab-problems").click();
  const entry = page.locator("button.problem.error").first();
  await entry.click();
  const explanation = await page.locator("#problem-detail .explanation").textContent();
  assert.match(explanation, /\b2\.11\b/, "the explanation cites 2.11");
  const links = await page.locator("#problem-detail .spec-cited a").evaluateAll((l) => l.map((a) => [a.textContent, a.href]));
  const hit = links.find(([t]) => t.startsWith("§2.11 "));
  assert.ok(hit, JSON.stringify(links));
  assert.equal(hit[1], "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html#StructuredControlFlow");
  // Every section it links is one the explanation names.
  for (const [t] of links) assert.ok(explanation.includes(t.slice(1).split(" ")[0]), `${t} is cited in: ${explanation}`);
  await context.close();
});

test("the gallery names the paper (Klimis et al., POPL 2023) with a link", async () => {
  const { page, context } = await openPage(env.browser, env.url);
  await page.locator("#examples-btn").click();
  const intro = page.locator("#examples .ex-intro");
  await intro.waitFor();
  const text = await intro.textContent();
  assert.match(text, /Klimis et al\./);
  assert.match(text, /POPL 2023/);
  const a = intro.locator("a");
  assert.match(await a.textContent(), /Taking Back Control in an Intermediate Representation for GPU Computing/);
  assert.match(await a.getAttribute("href"), /^https:\/\/doi\.org\/10\.1145\//);
  await page.keyboard.press("Escape");
  await context.close();
});


// The page's transfer size stays under 1.5 MB gzip (counted as
// ./x page-bench counts it). A size, not a time: it does not depend on load.
// What is counted is what the page loads for its default views (editor, CFG,
// Problems, every tab but a run's second engine): the service worker and
// every file it caches at install. The full engine (the interpreter's draw
// and the GPU runner, sw.js's LAZY) is loaded on the first draw or WebGPU
// run; its size is printed, and the second test checks that a page that
// only opens and draws its CFG never asks for it.
test("the page ships under 1.5 MB gzip", async () => {
  const { total, wasm, lazy, lazyFiles } = await distGzipSizes();
  console.log(`# www/dist: ${total} B gzip at first load (wasm ${wasm}); the full engine, loaded on first use: ${lazy} B gzip`);
  assert.ok(lazyFiles.some((f) => f.endsWith(".wasm")) && lazyFiles.some((f) => f.endsWith(".js")), `the full engine's chunk and wasm: ${lazyFiles}`);
  assert.ok(total < 1.5e6, `www/dist is ${total} bytes gzip (the wasm ${wasm}): over 1.5 MB`);
});

test("the page's default views load nothing of the full engine", async () => {
  const { lazyFiles } = await distGzipSizes();
  const errors = [];
  const { page, context } = await openPage(env.browser, env.url, { errors });
  const asked = [];
  page.on("request", (r) => asked.push(new URL(r.url()).pathname));
  await cfgReady(page);
  await page.locator("#tab-problems").click();
  await page.locator("#tab-wgsl").click();
  await page.waitForSelector("#panel-wgsl[data-wgsl-for]");
  await page.locator("#tab-cfg").click();
  await page.waitForTimeout(500);
  const names = lazyFiles.map((f) => f.replace(/^\.\//, "/"));
  assert.deepEqual(asked.filter((p) => names.some((n) => p.endsWith(n))), [], "no request for the full engine");
  await context.close();
  assert.deepEqual(errors, []);
});
