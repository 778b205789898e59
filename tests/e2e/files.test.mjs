// Files: a .spv dropped on the page, or opened with the file picker, fills the
// editor with its disassembly (the reference spirv-dis's text); a .spvasm text
// file dropped or opened fills it with its text, once; the current
// module downloads as .spv (the reference spirv-as's words); the page works
// offline after the first load (service worker).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFile, writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { serveDist, launch, openPage, screenshot, setText, editorText, referenceTools, MODULE } from "./lib.mjs";

let server, url, browser, tmp;
const bin = referenceTools();

const NAMED = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main"
OpExecutionMode %main LocalSize 8 1 1
OpName %main "main"
OpName %x "x"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%int = OpTypeInt 32 1
%c = OpConstant %int 42
%ptr = OpTypePointer Function %int
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpVariable %ptr Function
OpStore %x %c
OpReturn
OpFunctionEnd
`;

before(async () => {
  ({ server, url } = await serveDist());
  browser = await launch();
  tmp = await mkdtemp(path.join(tmpdir(), "spvlab-e2e-"));
});

after(async () => {
  await browser?.close();
  server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function spirvAs(text) {
  const file = path.join(tmp, "ref.spv");
  execFileSync(path.join(bin, "spirv-as"), ["-", "-o", file, "--target-env", "spv1.6"], { input: text });
  return file;
}

test("dropping a .spv fills the editor with its disassembly", async (t) => {
  if (!bin) {
    console.log("SKIPPED dropping a .spv: no reference SPIRV-Tools (SPVLAB_SPIRV_TOOLS or .tools/venv)");
    return;
  }
  const file = spirvAs(NAMED);
  const expected = execFileSync(path.join(bin, "spirv-dis"), [file]).toString();
  const bytes = [...(await readFile(file))];
  const { page, context } = await openPage(browser, url);
  await setText(page, MODULE);
  const before = Number(await page.evaluate(() => document.body.dataset.analyzed));
  await page.evaluate((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], "dropped.spv", { type: "application/octet-stream" }));
    const target = document.querySelector(".cm-content");
    target.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, bytes);
  await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
  assert.equal(await editorText(page), expected);
  assert.ok(await page.locator("#drop-overlay").isHidden());
  await screenshot(page, "file-dropped.png");

  // The file picker does the same.
  await setText(page, MODULE);
  await page.locator("#open-file").setInputFiles(file);
  await page.waitForFunction((t) => window.spvlab.editor.text() === t, expected);

  // A file that is not SPIR-V: a message, the text stays.
  const junk = path.join(tmp, "junk.spv");
  await writeFile(junk, "not a module");
  await page.locator("#open-file").setInputFiles(junk);
  await page.locator("#banner").waitFor();
  assert.match(await page.locator("#banner-text").textContent(), /junk\.spv is not a SPIR-V binary/);
  assert.equal(await editorText(page), expected);
  await context.close();
});

test("dropping a .spvasm text file opens it (once, wherever it falls)", async () => {
  const errors = [];
  const { page, context } = await openPage(browser, url, { errors });
  await setText(page, MODULE);
  const drop = (name, text, selector) =>
    page.evaluate(
      ([name, text, selector]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], name, { type: "" }));
        const target = document.querySelector(selector);
        target.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true, clientX: 200, clientY: 200 }));
      },
      [name, text, selector],
    );
  for (const [selector, where] of [[".cm-content", "on the editor"], ["#side", "on the panels"]]) {
    const before = Number(await page.evaluate(() => document.body.dataset.analyzed));
    await drop("shader.spvasm", NAMED, selector);
    await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
    // Let any other reader of the drop finish: the text must stay the file's.
    await page.waitForTimeout(300);
    assert.equal(await editorText(page), NAMED, `dropped ${where}`);
    assert.match(await page.locator("#status").textContent(), /valid|shader\.spvasm/);
    assert.ok(await page.locator("#drop-overlay").isHidden());
    await setText(page, MODULE);
  }
  // The file picker takes .spvasm too.
  const file = path.join(tmp, "picked.spvasm");
  await writeFile(file, NAMED + "; picked\n");
  await page.locator("#open-file").setInputFiles(file);
  await page.waitForFunction((t) => window.spvlab.editor.text() === t, NAMED + "; picked\n");
  // A binary file that is not SPIR-V and not text: a message, the text stays.
  await drop("noise.bin", new Uint8Array([0xff, 0xfe, 0x00, 0xd8, 0x00, 0xdc, 0xc3]), ".cm-content");
  await page.locator("#banner").waitFor();
  assert.match(await page.locator("#banner-text").textContent(), /noise\.bin is neither a SPIR-V binary nor UTF-8 text/);
  assert.equal(await editorText(page), NAMED + "; picked\n");
  await screenshot(page, "file-dropped-spvasm.png");
  await context.close();
  assert.deepEqual(errors, []);
});

test("Download .spv saves the reference spirv-as's words", async () => {
  const { page, context } = await openPage(browser, url);
  await setText(page, NAMED);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download-btn").click()]);
  assert.equal(download.suggestedFilename(), "module.spv");
  const got = await readFile(await download.path());
  assert.equal(got.readUInt32LE(0), 0x07230203);
  if (bin) assert.deepEqual(got, await readFile(spirvAs(NAMED)));
  else console.log("SKIPPED download vs spirv-as: no reference tools");
  // Text that does not assemble: the button is disabled.
  await setText(page, "OpFrob\n");
  assert.ok(await page.locator("#download-btn").isDisabled());
  await context.close();
});

test("the page works offline after the first load", async () => {
  const { page, context } = await openPage(browser, url);
  await page.evaluate(() => navigator.serviceWorker.ready);
  // Wait until the worker controls the page (clients.claim).
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await context.setOffline(true);
  await page.reload();
  await page.waitForSelector("body[data-ready='true']");
  await setText(page, MODULE.replace("OpReturn", "OpFrob"));
  await page.locator("#tab-problems").click();
  await page.waitForSelector("button.problem[data-line='9']");
  await screenshot(page, "offline.png");
  await context.close();
});
