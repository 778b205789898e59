// The page's layout on a phone (390x844) and on a laptop (1366x800): on a
// phone the editor stacks above the panels, nothing scrolls sideways, every
// tab and the dialogs are on screen, the Problems list stays readable. And
// screenshots (tests/artifacts/layout-*.png): the gallery's Fig. 2 in the
// CFG, the Problems list with an error selected, the help panel, at both sizes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { servePage, openPage, screenshot, setText, MODULE } from "./lib.mjs";

const env = servePage();

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 800 };

// A module with several validation errors whose rule codes are long.
const INVALID = MODULE.replace("%entry = OpLabel", "%entry = OpLabel\n%x = OpIAdd %fn %fn %fn\n%y = OpFAdd %void %x %x")
  .replace("OpReturn\nOpFunctionEnd", "OpReturn\n%late = OpLabel\nOpBranch %nowhere\nOpFunctionEnd");

/** Nothing scrolls sideways: the document is no wider than the window. */
async function noSideways(page, what) {
  const [sw, w] = await page.evaluate(() => [document.scrollingElement.scrollWidth, innerWidth]);
  assert.ok(sw <= w, `${what}: the page scrolls sideways (${sw} > ${w})`);
}

/** The element's box lies inside the window. */
async function onScreen(locator, vp, what) {
  const b = await locator.boundingBox();
  assert.ok(b, `${what}: shown`);
  assert.ok(b.x >= -0.5 && b.y >= -0.5 && b.x + b.width <= vp.width + 0.5 && b.y + b.height <= vp.height + 0.5, `${what} off screen: ${JSON.stringify(b)}`);
}

test("on a phone: the editor above the panels, no sideways scrolling, every tab reachable", async () => {
  const errors = [];
  const { page, context } = await openPage(env.browser, env.url, { viewport: PHONE, errors });
  await noSideways(page, "the page as it opens");
  const ed = await page.locator("#editor-pane").boundingBox();
  const side = await page.locator("#side").boundingBox();
  assert.ok(ed.y + ed.height <= side.y + 1, `the editor (${JSON.stringify(ed)}) is above the panels (${JSON.stringify(side)})`);
  for (const [b, what] of [[ed, "editor"], [side, "panels"]]) {
    assert.ok(b.x >= 0 && b.x + b.width <= PHONE.width + 0.5 && b.width >= PHONE.width - 2, `the ${what} takes the width: ${JSON.stringify(b)}`);
  }
  assert.ok(ed.height >= 150, `room to type: ${ed.height}`);
  for (const id of ["examples-btn", "open-btn", "share-btn", "theme-btn", "help-btn", "target-env"]) await onScreen(page.locator(`#${id}`), PHONE, id);

  // Every tab is on screen, opens its panel, and nothing scrolls sideways.
  await setText(page, INVALID);
  for (const id of ["problems", "cfg", "disassembly", "binary"]) {
    const tab = page.locator(`#tab-${id}`);
    await onScreen(tab, PHONE, `tab ${id}`);
    await tab.click();
    assert.equal(await tab.getAttribute("aria-selected"), "true");
    assert.ok(await page.locator(`#panel-${id}`).isVisible(), `panel ${id}`);
    await onScreen(page.locator(`#panel-${id}`), PHONE, `panel ${id}`);
    await noSideways(page, `panel ${id}`);
  }
  await page.locator("#tab-cfg").click();
  await page.waitForSelector("#panel-cfg[data-state='ready']");
  await noSideways(page, "the CFG drawn");
  for (const b of await page.locator("#panel-cfg .cfg-toolbar :is(button, select, input)").all()) await onScreen(b, PHONE, "a CFG control");
  assert.deepEqual(errors, []);
  await context.close();
});

test("on a phone: the Problems list is readable (rule codes are not cut into letters)", async () => {
  const { page, context } = await openPage(env.browser, env.url, { viewport: PHONE });
  await setText(page, INVALID);
  await page.locator("#tab-problems").click();
  const entries = page.locator("button.problem");
  assert.ok((await entries.count()) >= 2, "problems listed");
  const lines = await page.locator("button.problem").evaluateAll((list) =>
    list.map((b) => {
      // How many lines each part takes, and how wide its text is.
      const part = (cls) => {
        const e = b.querySelector(`.${cls}`);
        const r = document.createRange();
        r.selectNodeContents(e);
        const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)));
        return { text: e.textContent, lines: tops.size, width: e.getBoundingClientRect().width };
      };
      return { code: part("code"), msg: part("msg"), loc: part("loc") };
    }),
  );
  for (const l of lines) {
    assert.ok(l.code.text.length >= 8, JSON.stringify(l));
    // A code fits a phone's line: it takes one, at most two (split at a
    // hyphen) lines, never one per letter.
    assert.ok(l.code.lines <= 2, `rule code ${l.code.text} on ${l.code.lines} lines`);
    assert.ok(l.code.width >= 200, `rule code ${l.code.text} has room: ${l.code.width}px`);
    assert.equal(l.loc.lines, 1, `location ${l.loc.text}`);
    // The message wraps like prose: about 40 characters a line or more.
    assert.ok(l.msg.lines <= Math.ceil(l.msg.text.length / 35) + 1, `message on ${l.msg.lines} lines: ${l.msg.text}`);
  }
  await entries.first().click();
  await onScreen(page.locator("#problem-detail h3"), PHONE, "the explanation's title");
  await noSideways(page, "a problem selected");
  await context.close();
});

test("on a phone: the Examples and help dialogs are on screen", async () => {
  const { page, context } = await openPage(env.browser, env.url, { viewport: PHONE });
  await page.locator("#examples-btn").click();
  const dialog = page.locator("#examples");
  await dialog.waitFor();
  await onScreen(dialog, PHONE, "the Examples dialog");
  await noSideways(page, "Examples open");
  const first = page.locator("button.example").first();
  await onScreen(first, PHONE, "the first example");
  const before = Number(await page.evaluate(() => document.body.dataset.analyzed));
  await first.click();
  await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
  assert.ok(await dialog.isHidden());

  await page.locator("#help-btn").click();
  const help = page.locator("#help");
  await help.waitFor();
  await onScreen(help, PHONE, "the help dialog");
  await noSideways(page, "help open");
  await page.keyboard.press("Escape");
  await context.close();
});

for (const [name, vp] of [["1366x800", LAPTOP], ["390x844", PHONE]]) {
  test(`screenshots at ${name}: Fig. 2 in the CFG, a problem selected, the help panel`, async () => {
    const errors = [];
    const { page, context } = await openPage(env.browser, env.url, { viewport: vp, errors });
    await page.locator("#examples-btn").click();
    const before = Number(await page.evaluate(() => document.body.dataset.analyzed));
    await page.locator('button.example[data-example="paper-fig2"]').click();
    await page.waitForFunction((n) => Number(document.body.dataset.analyzed) > n, before);
    await page.locator("#tab-cfg").click();
    await page.waitForSelector("#panel-cfg[data-state='ready']");
    await page.waitForFunction(() => document.querySelectorAll("#panel-cfg g.node").length === 8);
    await noSideways(page, "Fig. 2");
    await screenshot(page, `layout-fig2-cfg-${name}.png`);

    await setText(page, INVALID);
    await page.locator("#tab-problems").click();
    await page.locator("button.problem").first().click();
    await page.locator("#problem-detail h3").waitFor();
    assert.ok(await page.locator("button.problem.selected").isVisible());
    await noSideways(page, "a problem selected");
    await screenshot(page, `layout-problem-selected-${name}.png`);

    await page.locator("#help-btn").click();
    await page.locator("#help").waitFor();
    await screenshot(page, `layout-help-${name}.png`);
    await page.keyboard.press("Escape");
    await context.close();
    assert.deepEqual(errors, []);
  });
}
