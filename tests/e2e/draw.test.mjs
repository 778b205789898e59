// The Run tab's draws (a Fragment entry point), in headless Chromium with
// WebGPU (--enable-unsafe-webgpu: SwiftShader's adapter), on the built page:
// * the gallery's GraphicsFuzz example draws, on the interpreter and on
//   WebGPU, the image its Amber test expects (the EXPECT line of the corpus
//   file, read here, not our output), read back from the page's canvases;
// * hovering a pixel shows its value, clicking it draws that fragment's
//   path on the CFG (the path view), and the heat view counts every pixel;
// * a share link keeps the draw settings and reopens the same image;
// * on a 390 px phone the images, zoomed 8x, scroll in their own box and
//   never the page;
// * a fragment shader that never ends stops at the step budget with an
//   error naming its pixel (and is not sent to WebGPU); a framebuffer past
//   core's limit is an error that marks the field and names the limit;
// * in a Chromium without WebGPU the interpreter's image stands, and
//   WebGPU's place says why it has none, naming the backend.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { root, serveDist, openPage, screenshot, launch, loadForRun, runOnce } from "./lib.mjs";

const gallery = path.join(root, "www/src/gallery/examples");
const corpus = process.env.SPVLAB_CORPUS || path.join(root, "../shared/corpus");
const FUZZ = "graphicsfuzz_do_while_loop_in_conditionals.amber";

let server, url, browser, page, context;
const errors = [];

before(async () => {
  const s = await serveDist();
  server = s.server;
  url = s.url;
  browser = await launch({ webgpu: true });
  ({ page, context } = await openPage(browser, url, { errors, viewport: { width: 1500, height: 900 } }));
  await page.locator("#tab-run").click();
});

after(async () => {
  await context?.close();
  await browser?.close();
  server?.close();
});

/** Open the Run tab, put `text` in the editor, wait for its reflection. */
async function load(p, text, env) {
  await p.locator("#tab-run").click();
  await loadForRun(p, text, env);
}

const example = (id) => readFile(path.join(gallery, `${id}.spvasm`), "utf8");

/** The pixels of the draw view's canvas for `backend` (interp, wgpu, diff)
 *  as { width, height, rgba: number[] }, read back from the canvas. */
const canvasPixels = (p, backend) =>
  p.evaluate((b) => {
    const c = document.querySelector(`#run-draw canvas.run-canvas[data-backend="${b}"]`);
    if (!c) return null;
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height);
    return { width: c.width, height: c.height, rgba: Array.from(d.data) };
  }, backend);

/** A page point inside pixel (x, y) of a backend's canvas, in whole CSS
 *  pixels (the mouse's own resolution), measured now: the first whole
 *  coordinate at or past the pixel's edge (the images are drawn at 1x or
 *  more, so it lies inside the pixel), moved to its middle when zoomed. */
async function pixelPoint(p, backend, x, y) {
  const c = p.locator(`#run-draw canvas.run-canvas[data-backend="${backend}"]`);
  await c.scrollIntoViewIfNeeded();
  const box = await c.boundingBox();
  const [w, h] = await c.evaluate((e) => [e.width, e.height]);
  const at = (start, size, n, i) => {
    const scale = size / n;
    return Math.ceil(start + i * scale) + (scale >= 2 ? Math.floor(scale / 2) - 1 : 0);
  };
  return [at(box.x, box.width, w, x), at(box.y, box.height, h, y)];
}

/** Point at pixel (x, y) of a backend's canvas, then click it. */
async function clickPixel(p, backend, x, y) {
  await p.mouse.move(...(await pixelPoint(p, backend, x, y)));
  await p.mouse.click(...(await pixelPoint(p, backend, x, y)));
}

/** The EXPECT line of an Amber file: its buffer's rectangle and RGBA. */
function expectRgba(amber) {
  const m = /^EXPECT \S+ IDX (\d+) (\d+) SIZE (\d+) (\d+) EQ_RGBA (\d+) (\d+) (\d+) (\d+)\s*$/m.exec(amber);
  assert.ok(m, "the Amber file has an EXPECT ... EQ_RGBA line");
  const [x, y, w, h, ...rgba] = m.slice(1).map(Number);
  const size = /FRAMEBUFFER_SIZE (\d+) (\d+)/.exec(amber).slice(1).map(Number);
  return { x, y, w, h, rgba, size };
}

test("the GraphicsFuzz example draws the image its Amber test expects, on both backends", async (t) => {
  const file = path.join(corpus, "amber/vk-gl-cts", FUZZ);
  if (!existsSync(file)) {
    console.log(`SKIPPED the GraphicsFuzz draw: no ${file}`);
    return t.skip("no corpus");
  }
  const want = expectRgba(await readFile(file, "utf8"));
  await load(page, await example("graphics-graphicsfuzz-do-while"), "spv1.0");
  // The draw's fields replace the workgroups; the test's framebuffer is the
  // Run tab's default.
  assert.ok(await page.locator("#run-draw-width").isVisible());
  assert.ok(!(await page.locator("#run-groups-x").isVisible()));
  assert.equal(await page.locator("#run-draw-width").inputValue(), String(want.size[0]));
  assert.equal(await page.locator("#run-draw-height").inputValue(), String(want.size[1]));
  const r = await runOnce(page);
  assert.ok(r.interp?.ok, `interpreter: ${JSON.stringify(r.interp?.error)}`);
  assert.ok(r.gpu?.ok, `WebGPU: ${JSON.stringify(r.gpu?.error)}`);
  assert.ok(r.interp.image.rgba instanceof Uint8Array, "the image crosses as a Uint8Array");
  assert.equal(r.interp.draw.fragments, want.size[0] * want.size[1]);
  for (const backend of ["interp", "wgpu"]) {
    const img = await canvasPixels(page, backend);
    assert.deepEqual([img.width, img.height], want.size, `${backend}: the framebuffer's size`);
    let wrong = 0;
    for (let y = want.y; y < want.y + want.h; y++)
      for (let x = want.x; x < want.x + want.w; x++) {
        const at = (y * img.width + x) * 4;
        if (want.rgba.some((v, c) => Math.abs(img.rgba[at + c] - v) > 1)) wrong++;
      }
    assert.equal(wrong, 0, `${backend}: every pixel is (${want.rgba.join(", ")})`);
  }
  assert.equal(await page.locator("#run-draw").getAttribute("data-differ"), "0");
  assert.match(await page.locator("#run-draw-summary").textContent(), /agree on all 65536 pixels/);
  await screenshot(page, "run-draw-graphicsfuzz.png");
});

test("a pixel's value shows under the pointer, and a click draws its path on the CFG", async () => {
  await load(page, await example("graphics-gradient"), "vulkan1.0");
  const r = await runOnce(page);
  assert.ok(r.interp.ok && r.gpu.ok, JSON.stringify([r.interp.error, r.gpu.error]));
  // Pixel (200, 3), drawn at its centre: R = round(200.5 / 256 * 255) = 200,
  // G = round(3.5 / 256 * 255) = 3, B = round(0.25 * 255) = 64 (right half).
  await page.mouse.move(...(await pixelPoint(page, "interp", 200, 3)));
  await page.waitForFunction(() => document.getElementById("run-pixel").textContent.startsWith("pixel (200, 3)"));
  const line = await page.locator("#run-pixel").textContent();
  assert.match(line, /interpreter: B8G8R8A8_UNORM RGBA bytes 200 3 64 255 = \(0\.784, 0\.012, 0\.251, 1\.000\)/, line);
  assert.match(line, /WebGPU: B8G8R8A8_UNORM RGBA bytes 200 3 64 255/, line);
  const names = () =>
    page.evaluate(() => {
      const m = new Map();
      for (const f of window.spvlab.store.get().report.functions) for (const b of f.blocks) m.set(String(b.id), b.name);
      return document.getElementById("panel-cfg").dataset.path.split(",").map((id) => m.get(id));
    });
  const traced = async (x, y) => {
    const n = await page.evaluate(() => Number(document.getElementById("panel-cfg").dataset.pathTraces ?? 0));
    await clickPixel(page, "interp", x, y);
    await page.waitForFunction(
      ([n, inv]) => {
        const p = document.getElementById("panel-cfg");
        return Number(p.dataset.pathTraces ?? 0) > n && p.dataset.pathInvocation === inv && p.querySelector(".cfg-svg.path-on g.node.path-current");
      },
      [n, `${x},${y},0`],
    );
    assert.equal(await page.locator("#tab-cfg").getAttribute("aria-selected"), "true", "the CFG panel comes forward");
    return names();
  };
  assert.deepEqual(await traced(200, 3), ["entry", "right_half", "merge"]);
  assert.equal(await page.locator("#panel-cfg .cfg-svg g.node.path-visited").count(), 3);
  await screenshot(page, "run-draw-path.png");
  await page.locator("#tab-run").click();
  assert.deepEqual(await traced(10, 250), ["entry", "left_half", "merge"]);
  // The heat view: each half's edge taken by half the 65536 fragments.
  await page.selectOption("#path-mode", "heat");
  const counts = await page.$$eval("#panel-cfg .cfg-svg g.edge.path-taken", (l) => l.map((g) => g.dataset.count));
  assert.deepEqual(counts, ["32768", "32768", "32768", "32768"]);
  assert.match(await page.locator("#path-pos").textContent(), /all 65536 invocations/);
  await page.selectOption("#path-mode", "path");
  await page.locator("#tab-run").click();
});

test("a float attachment's pixels show as floats, and both backends agree on them", async () => {
  await load(page, await example("graphics-gradient"), "vulkan1.0");
  await page.selectOption("#run-draw-format", "R32G32B32A32_SFLOAT");
  const r = await runOnce(page);
  assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
  assert.ok(r.gpu.ok, JSON.stringify(r.gpu.error));
  assert.equal(r.interp.image.format, "R32G32B32A32_SFLOAT");
  assert.equal(r.interp.image.data.byteLength, 256 * 256 * 16);
  assert.equal(await page.locator("#run-draw").getAttribute("data-differ"), "0");
  // Pixel (200, 3): (200.5 / 256, 3.5 / 256, 0.25, 1), to six decimals.
  await page.mouse.move(...(await pixelPoint(page, "interp", 200, 3)));
  await page.waitForFunction(() => document.getElementById("run-pixel").textContent.startsWith("pixel (200, 3)"));
  const line = await page.locator("#run-pixel").textContent();
  assert.match(line, /interpreter: R32G32B32A32_SFLOAT \(0\.783203, 0\.013672, 0\.25, 1\)/, line);
  assert.match(line, /WebGPU: R32G32B32A32_SFLOAT \(0\.783203, 0\.013672, 0\.25, 1\)/, line);
  await page.locator("#run-defaults").click();
});

test("a share link keeps the draw settings and reopens the same image", async () => {
  await load(page, await example("graphics-gradient"), "vulkan1.0");
  await page.fill("#run-draw-width", "64");
  await page.fill("#run-draw-height", "32");
  await page.selectOption("#run-draw-shape", "grid");
  await page.fill("#run-draw-columns", "3");
  await page.fill("#run-draw-rows", "2");
  const r = await runOnce(page);
  assert.ok(r.interp.ok, JSON.stringify(r.interp.error));
  assert.equal(r.interp.draw.vertices, 36, "a 3x2 grid: six vertices a cell");
  const drawn = await canvasPixels(page, "interp");
  assert.deepEqual([drawn.width, drawn.height], [64, 32]);
  await page.locator("#share-btn").click();
  await page.locator("#share-link").waitFor();
  const link = await page.locator("#share-link").inputValue();
  assert.match(link, /#v1\/[A-Za-z0-9_-]+$/);
  const b = await openPage(browser, link, { errors });
  try {
    await b.page.waitForFunction(() => Number(document.getElementById("panel-run").dataset.runs ?? 0) >= 1, null, { timeout: 120_000 });
    const fields = {};
    for (const k of ["width", "height", "columns", "rows"]) fields[k] = await b.page.locator(`#run-draw-${k}`).inputValue();
    assert.deepEqual(fields, { width: "64", height: "32", columns: "3", rows: "2" });
    assert.equal(await b.page.locator("#run-draw-shape").inputValue(), "grid");
    const again = await canvasPixels(b.page, "interp");
    assert.deepEqual(again, drawn, "the same image");
  } finally {
    await b.context.close();
  }
  await page.selectOption("#run-draw-shape", "rect");
  await page.locator("#run-defaults").click();
});

test("at 390 px the images zoomed 8x scroll in their box, not the page", async () => {
  const phone = await openPage(browser, url, { errors, viewport: { width: 390, height: 844 } });
  try {
    const p = phone.page;
    await p.locator("#tab-run").click();
    await load(p, await example("graphics-gradient"), "vulkan1.0");
    const r = await runOnce(p);
    assert.ok(r.interp.ok);
    await p.selectOption("#run-zoom", "8");
    const [cw, sw, w] = await p.evaluate(() => [
      document.querySelector('#run-draw canvas.run-canvas[data-backend="interp"]').getBoundingClientRect().width,
      document.scrollingElement.scrollWidth,
      innerWidth,
    ]);
    assert.equal(cw, 256 * 8, "the canvas is drawn 8x");
    assert.ok(sw <= w, `the page scrolls sideways (${sw} > ${w})`);
    const box = await p.locator('#run-draw figure[data-backend="interp"] .run-canvas-box').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= w + 0.5, `the image's box stays in the window (${box.x}, ${box.width})`);
    await screenshot(p, "run-draw-390x844.png");
  } finally {
    await phone.context.close();
  }
});

test("an endless fragment shader stops at the step budget, naming its pixel; a framebuffer past the limit names it", async () => {
  const endless = (await example("graphics-gradient")).replace(
    "%entry = OpLabel\n",
    "%entry = OpLabel\n               OpBranch %h\n%h = OpLabel\n               OpLoopMerge %m %k None\n               OpBranch %k\n%k = OpLabel\n               OpBranch %h\n%m = OpLabel\n",
  );
  await load(page, endless, "vulkan1.0");
  const r = await runOnce(page);
  assert.equal(r.interp.error?.kind, "stepBudget", JSON.stringify(r.interp.error));
  const site = r.interp.error.site;
  assert.equal(site?.stage, "fragment");
  const err = page.locator('.run-backend[data-backend="interp"] .run-error-message');
  assert.match(await err.textContent(), new RegExp(`at fragment \\(${site.x}, ${site.y}\\)`));
  assert.equal(await page.locator('.run-backend[data-backend="interp"] .run-site').getAttribute("data-pixel"), `${site.x},${site.y}`);
  // Not sent to WebGPU: the guard's error, and no image.
  assert.equal(r.gpu.error?.kind, "stepBudget");
  assert.ok(!r.gpu.image);
  assert.match(await page.locator('#run-draw figure[data-backend="wgpu"] .run-draw-missing').textContent(), /^WebGPU drew no image \(step budget\)/);
  // A framebuffer wider than core's limit: the field is marked, the limit named.
  await load(page, await example("graphics-gradient"), "vulkan1.0");
  await page.fill("#run-draw-width", "5000");
  const big = await runOnce(page);
  assert.equal(big.interp.error?.kind, "input");
  assert.deepEqual(big.interp.error.plan, { error: "tooLarge", what: "framebuffer width", value: 5000, limit: 4096 });
  assert.equal(await page.locator("#run-draw-width").getAttribute("aria-invalid"), "true");
  assert.equal(await page.locator("#run-draw-height").getAttribute("aria-invalid"), null);
  assert.match(await page.locator('.run-backend[data-backend="interp"] .run-error-message').textContent(), /the limit is 4096/);
  await page.locator("#run-defaults").click();
  assert.deepEqual(errors, [], "no page errors");
});

test("without WebGPU the interpreter's image stands beside an error naming the backend", async () => {
  const plain = await launch({ webgpu: false });
  try {
    const { page: p, context: c } = await openPage(plain, url, { errors: [], viewport: { width: 1200, height: 800 } });
    await load(p, await example("graphics-gradient"), "vulkan1.0");
    const r = await runOnce(p);
    assert.ok(r.interp.ok && r.interp.image, JSON.stringify(r.interp.error));
    assert.equal(r.gpu.error?.kind, "noDevice", JSON.stringify(r.gpu.error));
    const img = await canvasPixels(p, "interp");
    assert.deepEqual([img.width, img.height], [256, 256]);
    assert.equal(await p.locator('#run-draw canvas.run-canvas[data-backend="wgpu"]').count(), 0);
    assert.match(await p.locator('#run-draw figure[data-backend="wgpu"] .run-draw-missing').textContent(), /^WebGPU drew no image \(no WebGPU\): /);
    await c.close();
  } finally {
    await plain.close();
  }
});
