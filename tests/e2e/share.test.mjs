// Share links and persistence: a link round-trips the exact text and settings
// in a fresh browser context; a truncated, garbled or hostile link shows an
// error and the page stays usable; autosave restores what was typed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serveDist, launch, openPage, screenshot, setText, editorText, MODULE } from "./lib.mjs";

let server, url, browser;

before(async () => {
  ({ server, url } = await serveDist());
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.close();
});

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
  const a = await openPage(browser, url, { errors });
  await setText(a.page, TEXT);
  // The editor keeps lines, not line-break styles: CRLF becomes LF.
  const held = await editorText(a.page);
  assert.equal(held, TEXT.replace(/\r\n/g, "\n"));
  await a.page.locator("#target-env").selectOption("vulkan1.2");
  await a.page.keyboard.press("Alt+4");
  const link = await share(a.page);
  await screenshot(a.page, "share-link.png");
  await a.context.close();

  const b = await openPage(browser, link, { errors });
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
  const a = await openPage(browser, url);
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
  await a.page.goto(url);
  await a.page.waitForSelector("body[data-ready='true']");
  assert.equal(await editorText(a.page), mine);
  assert.equal(await a.page.locator("#target-env").inputValue(), "spv1.3");
  await a.context.close();
});

test("corrupted and hostile links show a message and the page stays usable", async () => {
  const a = await openPage(browser, url);
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
    await a.page.goto(`${url}#${f}`);
    await a.page.waitForSelector("body[data-ready='true']");
    const banner = a.page.locator("#banner");
    assert.ok(await banner.isVisible(), `${what}: a message`);
    assert.match(await banner.textContent(), /share link could not be opened/, what);
    assert.equal(await editorText(a.page), saved, `${what}: the autosaved text`);
    assert.equal(await a.page.evaluate(() => window.__xss ?? null), null, what);
    if (first) await screenshot(a.page, "share-bad-link.png");
    first = false;
    // Still usable: an edit is analysed.
    await setText(a.page, saved + "OpFrob\n");
    await a.page.waitForSelector("button.problem");
    await setText(a.page, saved);
    assert.deepEqual(errors, [], what);
  }
  await a.page.locator("#banner-close").click();
  assert.ok(await a.page.locator("#banner").isHidden());
  await a.context.close();
});

test("autosave: nothing typed is lost on reload", async () => {
  const a = await openPage(browser, url);
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
