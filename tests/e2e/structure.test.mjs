// The front end's structure, read from www/src (no browser): no
// module-level mutable state outside the store, no empty `catch`, no
// pattern run over a message, the CFG panel in parts, and no Run tab left
// behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { root } from "./lib.mjs";

const src = path.join(root, "www/src");

async function sources(dir = src) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sources(p)));
    else if (/\.ts$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** The file's text with comments and string/template contents blanked (so
 *  that a pattern in a comment or a string does not count). */
function code(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1")
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (m) => `"${" ".repeat(Math.max(0, m.length - 2))}"`);
}

test("no module-level mutable state in www/src outside the store", async () => {
  const bad = [];
  for (const f of await sources()) {
    const rel = path.relative(src, f);
    const lines = code(await readFile(f, "utf8")).split("\n");
    lines.forEach((l, i) => {
      // Top level = no indentation (the sources are formatted).
      if (/^(export\s+)?(let|var)\s/.test(l)) bad.push(`${rel}:${i + 1}: ${l.trim()}`);
      if (/^(export\s+)?const\s+\w+(\s*:[^=]+)?=\s*(new\s+(Map|Set|WeakMap|WeakSet|Array)\b|\[\s*\]|\{\s*\})/.test(l)) bad.push(`${rel}:${i + 1}: ${l.trim()}`);
    });
  }
  assert.deepEqual(bad, [], "module-level mutable state");
  // The page's state is one typed object in one store.
  const main = await readFile(path.join(src, "main.ts"), "utf8");
  assert.match(main, /createAppStore\(\)/);
  assert.match(await readFile(path.join(src, "state.ts"), "utf8"), /export interface AppState \{/);
});

test("no empty catch in www/src: every error reaches the user or the console", async () => {
  const bad = [];
  for (const f of await sources()) {
    const text = code(await readFile(f, "utf8"));
    const rel = path.relative(src, f);
    for (const m of text.matchAll(/catch\s*(\([^)]*\))?\s*\{\s*\}/g)) bad.push(`${rel}: ${m[0]}`);
    for (const m of text.matchAll(/\.catch\(\s*(\(\s*\w*\s*\)|\w+)\s*=>\s*(\{\s*\}|undefined|null|void 0)\s*\)/g)) bad.push(`${rel}: ${m[0]}`);
  }
  assert.deepEqual(bad, []);
});

test("no matching on message text in www/src: the page reads fields", async () => {
  // A message is for the user: the page never runs a pattern, a prefix or a
  // substring test over one to learn what it says.
  const bad = [];
  const tests = /\.(exec|test|match|matchAll|search|startsWith|endsWith|includes|indexOf|split|replace)\([^()]*\bmessage\b/;
  const on = /\bmessage\s*\??\.\s*(match|matchAll|search|startsWith|endsWith|includes|indexOf|split|replace|slice|substring)\(/;
  for (const f of await sources()) {
    const rel = path.relative(src, f);
    code(await readFile(f, "utf8"))
      .split("\n")
      .forEach((l, i) => {
        if (tests.test(l) || on.test(l)) bad.push(`${rel}:${i + 1}: ${l.trim()}`);
      });
  }
  assert.deepEqual(bad, []);
});

test("the CFG panel is in parts: layout, drawing, interaction, toolbar", async () => {
  const dir = path.join(src, "cfg");
  const files = await readdir(dir);
  for (const f of ["index.ts", "layout.ts", "drawing.ts", "interaction.ts", "toolbar.ts"]) assert.ok(files.includes(f), `cfg/${f}`);
  const index = await readFile(path.join(dir, "index.ts"), "utf8");
  const lines = index.split("\n");
  const start = lines.findIndex((l) => l.startsWith("export function mountCfgPanel("));
  const end = lines.findIndex((l, i) => i > start && l === "}");
  assert.ok(start >= 0 && end > start);
  assert.ok(end - start < 300, `mountCfgPanel is ${end - start} lines (it was about 530)`);
  // Graphviz, pan/zoom and the toolbar live in their own files.
  assert.doesNotMatch(index, /new Worker\(/);
  assert.doesNotMatch(index, /addEventListener\("wheel"/);
  assert.doesNotMatch(index, /createElementNS/);
});

test("the Run tab is the fifth panel (the WGSL tab the sixth, the Flesh tab the seventh), each with its own module; no placeholder", async () => {
  const html = await readFile(path.join(root, "www/index.html"), "utf8");
  assert.match(html, /id="tab-run"/);
  assert.match(html, /id="panel-run"/);
  const state = await readFile(path.join(src, "state.ts"), "utf8");
  assert.match(state, /PANELS = \["problems", "cfg", "disassembly", "binary", "run", "wgsl", "flesh"\] as const/);
  assert.ok(existsSync(path.join(src, "panels/run.ts")));
  assert.match(html, /id="tab-wgsl"/);
  assert.ok(existsSync(path.join(src, "panels/wgsl.ts")));
  assert.match(html, /id="tab-flesh"/);
  assert.ok(existsSync(path.join(src, "panels/flesh.ts")));
  for (const f of await sources()) assert.doesNotMatch(await readFile(f, "utf8"), /coming with the run issue/i, f);
});
