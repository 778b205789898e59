// Browser smoke test of the spvlab page: the built page (www/dist) is served
// on 127.0.0.1 on a free port and driven in Debian's chromium by
// playwright-core. Run by `./x test` (which builds the page first), or by
// `node --test` in this folder after `./x build`.
//
// Environment: CHROMIUM (default /usr/bin/chromium), SPVLAB_SPIRV_TOOLS (the
// reference spirv-as, to compare the words with; optional).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile, mkdir, writeFile, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const dist = path.join(root, "www/dist");
const artifacts = path.join(root, "tests/artifacts");

const MODULE = `OpCapability Shader
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

// Line 3 has an unknown opcode.
const GARBAGE = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpFrobnicate %x %y
`;

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
};

let server;
let browser;
let page;
let baseUrl;
const pageErrors = [];

function serveDist() {
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
    s.listen(0, "127.0.0.1", () => resolve(s));
  });
}

/** The reference spirv-as words of `text`, or null when the tools are missing. */
function referenceWords(text) {
  const bin = process.env.SPVLAB_SPIRV_TOOLS;
  if (!bin || !existsSync(path.join(bin, "spirv-as"))) return null;
  const out = execFileSync(path.join(bin, "spirv-as"), ["-", "-o", "-"], { input: text });
  const words = [];
  for (let i = 0; i + 4 <= out.length; i += 4) words.push(out.readUInt32LE(i));
  return words;
}

/** The words shown in the hex dump (`    0: 07230203 00010600 ...`). */
async function shownWords() {
  const dump = await page.locator("#hex").textContent();
  return dump
    .split("\n")
    .filter((l) => l.includes(":"))
    .flatMap((l) => l.split(":")[1].trim().split(/\s+/))
    .filter(Boolean)
    .map((h) => parseInt(h, 16));
}

async function screenshot(name) {
  await mkdir(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, name), fullPage: true });
}

before(async () => {
  assert.ok(existsSync(path.join(dist, "index.html")), "www/dist is missing: run ./x build first");
  server = await serveDist();
  baseUrl = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(m.text());
  });
  await page.goto(baseUrl);
  // The page sets data-ready once the wasm is loaded, or shows an error.
  await page.waitForSelector("body[data-ready='true'], #status.error");
});

after(async () => {
  await browser?.close();
  server?.close();
});

test("the page loads the wasm", async () => {
  const status = await page.locator("#status").textContent();
  assert.match(status, /^spvlab \d+\.\d+\.\d+ ready$/, `status: ${status}`);
  const envs = await page.locator("#target-env option").allTextContents();
  assert.ok(envs.includes("vulkan1.1spv1.4") && envs.includes("opencl2.2embedded"), envs.join(","));
  assert.equal(await page.locator("#target-env").inputValue(), "spv1.6");
  assert.match(await page.locator("#source").inputValue(), /OpCapability Shader/);
  await screenshot("page-loaded.png");
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("typing a module shows its words and disassembly", async () => {
  await page.locator("#source").fill(MODULE);
  await screenshot("page-module.png");
  const summary = await page.locator("#summary").textContent();
  const diags = await page.locator("#diagnostics li").allTextContents();
  assert.deepEqual(diags, [], "no diagnostics for a valid module");
  const words = await shownWords();
  assert.match(summary, new RegExp(`^${words.length} words \\(${words.length * 4} bytes\\)$`));
  assert.equal(words[0], 0x07230203, "the magic number");
  assert.equal(words[1], 0x00010600, "SPIR-V 1.6 for spv1.6");
  const reference = referenceWords(MODULE);
  if (reference) assert.deepEqual(words, reference, "the words of the reference spirv-as");
  const dis = await page.locator("#disassembly").textContent();
  assert.match(dis, /OpCapability Shader/);
  assert.match(dis, /OpFunctionEnd/);

  // The target environment sets the version word.
  await page.locator("#target-env").selectOption("vulkan1.0");
  assert.equal((await shownWords())[1], 0x00010000, "SPIR-V 1.0 for vulkan1.0");
  await page.locator("#target-env").selectOption("spv1.6");
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});

test("typing garbage shows a located diagnostic", async () => {
  await page.locator("#source").fill(GARBAGE);
  await screenshot("page-diagnostic.png");
  const diags = await page.locator("#diagnostics li").allTextContents();
  assert.ok(diags.length >= 1, "at least one diagnostic");
  assert.match(diags[0], /^3:1: error\[[a-z0-9.-]+\]: /, `located on line 3: ${diags[0]}`);
  assert.match(await page.locator("#summary").textContent(), /^\d+ errors?$/);
  assert.equal(await page.locator("#hex").textContent(), "");
  assert.deepEqual(pageErrors.splice(0), [], "no errors in the page");
});
