// Shared helpers of the browser tests: serve www/dist on 127.0.0.1 on a free
// port, launch Debian's chromium headless with playwright-core, screenshots.
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
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

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
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
