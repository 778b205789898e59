// Shared helpers of the browser tests: serve www/dist on 127.0.0.1 on a free
// port, launch Debian's chromium headless with playwright-core, screenshots.
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { before, after } from "node:test";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../..");
export const dist = path.join(root, "www/dist");
export const artifacts = path.join(root, "tests/artifacts");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
};

/** Serve www/dist; resolves to { server, url }. */
export function serveDist() {
  assert.ok(existsSync(path.join(dist, "index.html")), "www/dist is missing: run ./x build first");
  return new Promise((resolve) => {
    const s = createServer(async (req, res) => {
      const url = new URL(req.url, "http://127.0.0.1");
      let file = path.normalize(path.join(dist, decodeURIComponent(url.pathname)));
      if (!file.startsWith(dist)) {
        res.writeHead(403).end();
        return;
      }
      if (url.pathname.endsWith("/")) file = path.join(file, "index.html");
      try {
        const body = await readFile(file);
        res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
        res.end(body);
      } catch {
        res.writeHead(404).end("not found");
      }
    });
    s.listen(0, "127.0.0.1", () => resolve({ server: s, url: `http://127.0.0.1:${s.address().port}/` }));
  });
}

/** For a test file: serve www/dist and launch Chromium before its tests, and
 *  stop both after them. The object returned has `url` and `browser` once
 *  the tests run. */
export function servePage() {
  const env = { url: "", browser: undefined, server: undefined };
  before(async () => {
    const s = await serveDist();
    env.server = s.server;
    env.url = s.url;
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    env.server?.close();
  });
  return env;
}

/** Headless Chromium; `webgpu`: with WebGPU (--enable-unsafe-webgpu: SwiftShader's adapter)
 *  instead of no GPU at all. */
export function launch({ webgpu = false } = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", webgpu ? "--enable-unsafe-webgpu" : "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
}

/** Put `text` in the editor for target env `env` and wait for the Run tab's
 *  reflection of it. */
export async function loadForRun(page, text, env) {
  if ((await page.locator("#target-env").inputValue()) !== env) {
    const before = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
    await page.selectOption("#target-env", env);
    await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
  }
  await setText(page, text);
  await page.waitForFunction(() => {
    const s = window.spvlab.store.get();
    return s.docVersion === s.reportVersion && document.getElementById("panel-run").dataset.reflected === String(s.reportVersion);
  });
}

/** Press Run and wait for both backends' answers; the Run tab's last outcome. */
export async function runOnce(page) {
  const before = Number((await page.locator("#panel-run").getAttribute("data-runs")) ?? 0);
  await page.locator("#run-btn").click();
  await page.waitForFunction((n) => Number(document.getElementById("panel-run").dataset.runs ?? 0) > n, before, { timeout: 120_000 });
  return page.evaluate(() => window.spvlab.run.last());
}

/** A fresh context and page at `url`, waiting until the first analysis is shown. */
export async function openPage(browser, url, { viewport = { width: 1366, height: 768 }, errors = [] } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(url);
  await page.waitForSelector("body[data-ready='true'], #status.error");
  return { context, page };
}

export async function screenshot(page, name) {
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, name) });
}

/** Decode a PNG (8-bit RGB or RGBA, not interlaced: what Chromium's
 *  screenshots are) into { width, height, channels, pixels }. */
export function decodePng(buf) {
  assert.equal(buf.readUInt32BE(0), 0x89504e47, "a PNG");
  let pos = 8;
  let width = 0, height = 0, channels = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString("latin1", pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, "8-bit PNG");
      assert.equal(data[12], 0, "not interlaced");
      channels = { 2: 3, 6: 4 }[data[9]];
      assert.ok(channels, `colour type ${data[9]}`);
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      let v = line[x];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      pixels[y * stride + x] = v & 255;
    }
  }
  return { width, height, channels, pixels };
}

/** The mean luminance (0 black to 1 white) of what an element shows on
 *  screen, from a screenshot of it. */
export async function luminance(locator) {
  const { width, height, channels, pixels } = decodePng(await locator.screenshot());
  let sum = 0;
  for (let i = 0; i < width * height; i++) {
    const [r, g, b] = [pixels[i * channels], pixels[i * channels + 1], pixels[i * channels + 2]];
    sum += (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  }
  return sum / (width * height);
}

/** Replace the editor's text (as one user edit) and wait for its analysis. */
export async function setText(page, text) {
  const before = Number(await page.evaluate(() => document.body.dataset.analyzed ?? 0));
  await page.evaluate((t) => window.spvlab.editor.setText(t), text);
  await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
}

export async function editorText(page) {
  return page.evaluate(() => window.spvlab.editor.text());
}

/** The reference tools' folder, or null (the test then prints SKIPPED). */
export function referenceTools() {
  let bin = process.env.SPVLAB_SPIRV_TOOLS;
  if (!bin) {
    const lib = path.join(root, ".tools/venv/lib");
    if (existsSync(lib)) {
      for (const py of execFileSync("ls", [lib]).toString().split("\n").filter(Boolean)) {
        const b = path.join(lib, py, "site-packages/cmeel.prefix/bin");
        if (existsSync(path.join(b, "spirv-as"))) bin = b;
      }
    }
  }
  return bin && existsSync(path.join(bin, "spirv-as")) ? bin : null;
}

export const MODULE = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
`;

/** The gzip size (level 9) of what the page ships (`www/dist`, built by
 *  ./x build), in all and of its wasm: what a first visit transfers at most
 *  (the Graphviz worker is counted although it loads after first paint). */
export async function distGzipSizes() {
  // The service worker and the files it caches at install, which are
  // everything the page loads for its default views (not the CFG panel's
  // test fixture page, which it never loads). The full engine (sw.js's
  // LAZY: the interpreter's draw and the GPU runner) is fetched on the first
  // draw or WebGPU run only; its size is given apart (`lazy`).
  const { readFile } = await import("node:fs/promises");
  const { gzipSync } = await import("node:zlib");
  const sw = await readFile(path.join(dist, "sw.js"), "utf8");
  const list = (name) => JSON.parse(new RegExp(`const ${name} = (\\[[^\\]]*\\]);`).exec(sw)[1]).filter((f) => f !== "./");
  const gz = async (f) => gzipSync(await readFile(path.join(dist, f)), { level: 9 }).length;
  let total = gzipSync(sw, { level: 9 }).length;
  let wasm = 0;
  for (const f of list("FILES")) {
    const n = await gz(f);
    total += n;
    if (f.endsWith(".wasm")) wasm += n;
  }
  let lazy = 0;
  for (const f of list("LAZY")) lazy += await gz(f);
  return { total, wasm, lazy, lazyFiles: list("LAZY") };
}
