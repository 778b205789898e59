// The spvlab page shell: the editor, the panels, the worker, share links and
// persistence. Engine strings (messages, names, disassembly) are untrusted:
// they only ever go into textContent.
import type { AnalyzeReport, Diagnostic, ShareState, TextRange } from "./api";
import { Engine } from "./engine";
import { SpirvEditor } from "./ui/editor";
import { mountCfgPanel, type CfgPanel } from "./cfg";
import { EXAMPLES } from "./gallery";
import { SAMPLE } from "./sample";

const PANELS = ["problems", "cfg", "disassembly", "binary", "run"] as const;
type Panel = (typeof PANELS)[number];
const AUTOSAVE_KEY = "spvlab.autosave.v1";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const envSelect = $<HTMLSelectElement>("target-env");
const statusEl = $("status");

let engine: Engine;
let editor: SpirvEditor;
let cfg: CfgPanel;
let report: AnalyzeReport | null = null;
let panel: Panel = "problems";
let userEdited = false;
let docVersion = 0;
let latestAnalyze = 0;
/** One analysis at a time: while one is in the worker, edits only mark the
 *  text as needing another, which starts as soon as the first answers. There is
 *  no debounce: an edit is analysed at once when the engine is idle (a
 *  1,000-line module takes a few ms), and a burst of keystrokes costs one
 *  analysis per answer, not one per key. */
let analyzing = false;
let analyzeAgain = false;
let saveTimer: ReturnType<typeof setTimeout> | undefined;
let selectedProblem: Diagnostic | null = null;
let grammarWords: string[] | null = null;
let cursorPos = 0;
let lastCursorBlocks = "";
const dirty = { disassembly: true, binary: true };
let analyses = 0;
/** The fragment this page put in the URL (Share), as opposed to one pasted in. */
let ownHash = "";

function say(msg: string, cls = "") {
  statusEl.textContent = msg;
  statusEl.className = cls;
}

function banner(msg: string | null) {
  const b = $("banner");
  b.hidden = msg === null;
  $("banner-text").textContent = msg ?? "";
}

// ---------------------------------------------------------------- analysis --

function scheduleAnalyze() {
  if (analyzing) analyzeAgain = true;
  else void runAnalyze();
}

async function runAnalyze() {
  analyzing = true;
  analyzeAgain = false;
  try {
    await analyzeOnce();
  } finally {
    analyzing = false;
    if (analyzeAgain) void runAnalyze();
  }
}

async function analyzeOnce() {
  const version = docVersion;
  const id = engine.peekId();
  latestAnalyze = id;
  const text = editor.text();
  try {
    const resp = await engine.send({ kind: "analyze", request: { text, targetEnv: envSelect.value } });
    // Drop stale answers: a newer request was sent, or the text changed since.
    if (id !== latestAnalyze || version !== docVersion) return;
    applyReport(resp.report);
  } catch (e) {
    if (id === latestAnalyze) say(`engine error: ${e instanceof Error ? e.message : e}`, "error");
  }
}

function applyReport(r: AnalyzeReport) {
  report = r;
  editor.setReport(r);
  renderProblems(r);
  try {
    cfg.update(r);
  } catch (e) {
    console.warn("cfg panel", e);
  }
  dirty.disassembly = dirty.binary = true;
  renderVisiblePanel();
  const errors = r.diagnostics.filter((d) => d.severity === "error").length;
  if (!r.assembled) say(`does not assemble: ${errors} error${errors === 1 ? "" : "s"}`, "bad");
  else if (errors) say(`assembled, ${errors} validation error${errors === 1 ? "" : "s"}`, "bad");
  else say(`valid · ${r.words.length} words`, "good");
  $<HTMLButtonElement>("download-btn").disabled = !r.assembled;
  analyses++;
  (window as unknown as { spvlab?: { lastElapsed?: number } }).spvlab!.lastElapsed = r.elapsedMs;
  document.body.dataset.analyzed = String(analyses);
  if (!document.body.dataset.ready) document.body.dataset.readyMs = performance.now().toFixed(1);
  document.body.dataset.ready = "true";
  onCursor(cursorPos);
  document.dispatchEvent(new CustomEvent("spvlab:report"));
}

// ---------------------------------------------------------------- problems --

function loc(d: Diagnostic): string {
  if (d.range) return `${d.range.line}:${d.range.column}`;
  if (d.wordOffset !== undefined) return `word ${d.wordOffset}`;
  return "";
}

function renderProblems(r: AnalyzeReport) {
  const list = $("problems");
  const keep = selectedProblem;
  selectedProblem = null;
  const items = r.diagnostics.map((d, i) => {
    const li = el("li");
    const b = el("button", `problem ${d.severity}`);
    b.type = "button";
    b.dataset.index = String(i);
    if (d.range) {
      b.dataset.line = String(d.range.line);
      b.dataset.col = String(d.range.column);
    }
    b.append(el("span", "loc", loc(d)), el("span", "sev", d.severity), el("span", "code", d.code), el("span", "msg", d.message));
    b.addEventListener("click", () => selectProblem(d, b, true));
    li.append(b);
    if (keep && keep.code === d.code && keep.message === d.message) selectedProblem = d;
    return li;
  });
  if (items.length === 0) {
    const li = el("li", "none", r.assembled ? "No problems: the module is valid." : "No problems.");
    items.push(li);
  }
  list.replaceChildren(...items);
  const n = r.diagnostics.length;
  $("problem-count").textContent = n ? String(n) : "";
  if (selectedProblem) {
    const i = r.diagnostics.indexOf(selectedProblem);
    selectProblem(selectedProblem, list.querySelector<HTMLButtonElement>(`button[data-index="${i}"]`), false);
  } else {
    $("problem-detail").replaceChildren();
    try {
      cfg.showDiagnostic(null);
    } catch {}
  }
}

function selectProblem(d: Diagnostic, button: HTMLButtonElement | null, jump: boolean) {
  selectedProblem = d;
  for (const b of $("problems").querySelectorAll("button.selected")) b.classList.remove("selected");
  button?.classList.add("selected");
  const detail = $("problem-detail");
  const parts: HTMLElement[] = [el("h3", "", d.summary ?? d.code)];
  parts.push(el("p", "detail-msg", `${d.severity}[${d.code}]: ${d.message}` + (d.label ? ` (${d.label})` : "")));
  if (d.explanation) parts.push(el("p", "explanation", d.explanation));
  if (d.help) parts.push(el("p", "help", `help: ${d.help}`));
  if (d.rendered) parts.push(el("pre", "rendered", d.rendered));
  detail.replaceChildren(...parts);
  try {
    cfg.showDiagnostic(d);
  } catch {}
  if (jump && d.range) editor.reveal(d.range);
}

// ----------------------------------------------------- disassembly, binary --

function renderVisiblePanel() {
  if (!report) return;
  if (panel === "disassembly" && dirty.disassembly) {
    dirty.disassembly = false;
    $("disassembly").textContent = report.disassembly || (report.assembled ? "" : "(the text does not assemble)");
  }
  if (panel === "binary" && dirty.binary) {
    dirty.binary = false;
    renderBinary(report);
    highlightBinary(cursorPos);
  }
}

const hex8 = (w: number) => (w >>> 0).toString(16).padStart(8, "0");

function renderBinary(r: AnalyzeReport) {
  const pre = $("hex");
  $("binary-summary").textContent = r.assembled
    ? `${r.words.length} words (${r.words.length * 4} bytes), ${r.sourceMap.length} instructions`
    : "The text does not assemble.";
  const frag = document.createDocumentFragment();
  if (r.words.length >= 5) {
    frag.append(el("span", "hdr", `${"0".padStart(6)}: ${r.words.slice(0, 5).map(hex8).join(" ")}  ; header\n`));
  }
  r.sourceMap.forEach((m, i) => {
    const s = el("span", "inst", `${String(m.wordOffset).padStart(6)}: ${r.words.slice(m.wordOffset, m.wordOffset + m.wordCount).map(hex8).join(" ")}\n`);
    s.dataset.i = String(i);
    frag.append(s);
  });
  pre.replaceChildren(frag);
}

/** The sourceMap index of the instruction at a text position. */
function instructionAt(pos: number): number {
  const map = report?.sourceMap ?? [];
  let lo = 0;
  let hi = map.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (map[mid].range.from <= pos) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best >= 0 && pos <= map[best].range.to ? best : -1;
}

function highlightBinary(pos: number) {
  const pre = $("hex");
  pre.querySelector(".inst.cur")?.classList.remove("cur");
  const i = instructionAt(pos);
  if (i < 0) return;
  const span = pre.querySelector<HTMLElement>(`.inst[data-i="${i}"]`);
  if (span) {
    span.classList.add("cur");
    span.scrollIntoView({ block: "nearest" });
  }
}

function blockRange(id: number | null): TextRange | null {
  if (id === null || !report) return null;
  for (const f of report.functions) for (const b of f.blocks) if (b.id === id) return b.range ?? null;
  return null;
}

function onCursor(pos: number) {
  cursorPos = pos;
  if (!report) return;
  if (panel === "binary") highlightBinary(pos);
  const blocks: number[] = [];
  for (const f of report.functions)
    for (const b of f.blocks) if (b.range && b.range.from <= pos && pos <= b.range.to) blocks.push(b.id);
  const key = blocks.join(",");
  if (key !== lastCursorBlocks) {
    lastCursorBlocks = key;
    try {
      cfg.highlightBlocks(blocks);
    } catch {}
  }
}

// ------------------------------------------------------------------ panels --

function showPanel(p: Panel, focusTab = false) {
  panel = p;
  for (const name of PANELS) {
    const tab = $(`tab-${name}`);
    const on = name === p;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`panel-${name}`).hidden = !on;
  }
  if (focusTab) $(`tab-${p}`).focus();
  renderVisiblePanel();
  if (p === "binary") highlightBinary(cursorPos);
}

function setupTabs() {
  const tabs = $("tabs");
  tabs.addEventListener("click", (ev) => {
    const t = (ev.target as HTMLElement).closest<HTMLElement>("[data-panel]");
    if (t) showPanel(t.dataset.panel as Panel);
  });
  tabs.addEventListener("keydown", (ev) => {
    const i = PANELS.indexOf(panel);
    let j = -1;
    if (ev.key === "ArrowRight") j = (i + 1) % PANELS.length;
    else if (ev.key === "ArrowLeft") j = (i + PANELS.length - 1) % PANELS.length;
    else if (ev.key === "Home") j = 0;
    else if (ev.key === "End") j = PANELS.length - 1;
    if (j >= 0) {
      ev.preventDefault();
      showPanel(PANELS[j], true);
    }
  });
  document.addEventListener("keydown", (ev) => {
    if (!ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const n = /^Digit([0-5])$/.exec(ev.code)?.[1];
    if (n === undefined) return;
    ev.preventDefault();
    if (n === "0") editor.view.focus();
    else showPanel(PANELS[Number(n) - 1], true);
  });
}

function setupSplitter() {
  const layout = $("layout");
  const split = $("splitter");
  const set = (pct: number) => {
    pct = Math.min(80, Math.max(20, pct));
    layout.style.setProperty("--left", `${pct}%`);
    split.setAttribute("aria-valuenow", String(Math.round(pct)));
    localStorage.setItem("spvlab.split", String(pct));
  };
  const saved = Number(localStorage.getItem("spvlab.split"));
  if (saved) set(saved);
  split.addEventListener("pointerdown", (ev) => {
    split.setPointerCapture(ev.pointerId);
    const move = (e: PointerEvent) => {
      const r = layout.getBoundingClientRect();
      set(((e.clientX - r.left) / r.width) * 100);
    };
    const up = () => {
      split.removeEventListener("pointermove", move);
      split.removeEventListener("pointerup", up);
    };
    split.addEventListener("pointermove", move);
    split.addEventListener("pointerup", up);
  });
  split.addEventListener("keydown", (ev) => {
    const now = Number(split.getAttribute("aria-valuenow"));
    if (ev.key === "ArrowLeft") set(now - 5);
    else if (ev.key === "ArrowRight") set(now + 5);
    else return;
    ev.preventDefault();
  });
}

function setupTheme() {
  const root = document.documentElement;
  const saved = localStorage.getItem("spvlab.theme");
  if (saved === "light" || saved === "dark") root.dataset.theme = saved;
  $("theme-btn").addEventListener("click", () => {
    const dark = root.dataset.theme
      ? root.dataset.theme === "dark"
      : matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.theme = dark ? "light" : "dark";
    localStorage.setItem("spvlab.theme", root.dataset.theme);
  });
}

// -------------------------------------------------------- files, examples --

async function loadSpv(file: File) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const r = await engine.send({ kind: "disassembleBinary", bytes });
  if (r.text === undefined) {
    banner(`${file.name} is not a SPIR-V binary: ${r.diagnostics.map((d) => d.message).join("; ") || "unknown error"}`);
    return;
  }
  banner(null);
  editor.setText(r.text);
  say(`opened ${file.name}`);
}

function setupFiles() {
  const input = $<HTMLInputElement>("open-file");
  $("open-btn").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const f = input.files?.[0];
    if (f) void loadSpv(f);
    input.value = "";
  });
  const overlay = $("drop-overlay");
  document.addEventListener("dragover", (ev) => {
    if (!ev.dataTransfer?.types.includes("Files")) return;
    ev.preventDefault();
    overlay.hidden = false;
  });
  document.addEventListener("dragleave", (ev) => {
    if (ev.relatedTarget === null) overlay.hidden = true;
  });
  document.addEventListener("drop", (ev) => {
    overlay.hidden = true;
    const f = ev.dataTransfer?.files[0];
    if (!f) return;
    ev.preventDefault();
    void loadSpv(f);
  });
  $("download-btn").addEventListener("click", () => {
    if (!report?.assembled) return;
    const bytes = new Uint8Array(report.words.length * 4);
    const view = new DataView(bytes.buffer);
    report.words.forEach((w, i) => view.setUint32(i * 4, w >>> 0, true));
    const a = el("a");
    a.href = URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
    a.download = "module.spv";
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
}

function setupExamples() {
  const dialog = $<HTMLDialogElement>("examples");
  const list = $("examples-list");
  if (EXAMPLES.length === 0) list.append(el("p", "placeholder", "No examples yet."));
  for (const ex of EXAMPLES) {
    const b = el("button", "example");
    b.type = "button";
    b.dataset.example = ex.id;
    b.append(
      el("span", "ex-title", ex.title),
      el("span", "ex-meta", `${ex.category} · ${ex.targetEnv} · ${ex.valid ? "valid" : "invalid"}`),
      el("span", "ex-caption", ex.caption),
    );
    b.addEventListener("click", () => {
      if ([...envSelect.options].some((o) => o.value === ex.targetEnv)) envSelect.value = ex.targetEnv;
      editor.setText(ex.text);
      dialog.close();
      editor.view.focus();
      say(`example: ${ex.title}`);
    });
    list.append(b);
  }
  $("examples-btn").addEventListener("click", () => dialog.showModal());
}

// ------------------------------------------------------ share, autosave --

function validShare(s: unknown, envs: string[]): ShareState {
  const o = s as Record<string, unknown> | null;
  if (!o || typeof o !== "object") throw new Error("the link holds no state");
  if (typeof o.text !== "string") throw new Error("the link holds no text");
  if (typeof o.targetEnv !== "string" || !envs.includes(o.targetEnv)) throw new Error("the link names an unknown target environment");
  if (o.function !== undefined && o.function !== null && !Number.isInteger(o.function)) throw new Error("the link's function is not an id");
  if (o.panel !== undefined && o.panel !== null && !PANELS.includes(o.panel as Panel)) throw new Error("the link names an unknown panel");
  return {
    text: o.text,
    targetEnv: o.targetEnv,
    function: (o.function as number | null) ?? undefined,
    panel: (o.panel as string | null) ?? undefined,
    run: o.run,
  };
}

function setupShare() {
  const box = $("share-box");
  const input = $<HTMLInputElement>("share-link");
  $("share-close").addEventListener("click", () => (box.hidden = true));
  $("banner-close").addEventListener("click", () => banner(null));
  $("share-btn").addEventListener("click", async () => {
    const state: ShareState = { text: editor.text(), targetEnv: envSelect.value, panel };
    const f = cfg.currentFunction();
    if (f !== undefined) state.function = f;
    try {
      const r = await engine.send({ kind: "encodeShare", state });
      const url = `${location.href.split("#")[0]}#${r.fragment}`;
      ownHash = `#${r.fragment}`;
      history.replaceState(null, "", url);
      input.value = url;
      box.hidden = false;
      let copied = false;
      try {
        await navigator.clipboard.writeText(url);
        copied = true;
      } catch {}
      $("share-msg").textContent = copied ? "Link copied:" : "Copy this link:";
      input.focus();
      input.select();
    } catch (e) {
      banner(`could not make a link: ${e instanceof Error ? e.message : e}`);
    }
  });
}

function loadAutosave(): { text: string; targetEnv?: string } | null {
  try {
    const o = JSON.parse(localStorage.getItem(AUTOSAVE_KEY) ?? "null");
    if (o && typeof o.text === "string") return { text: o.text, targetEnv: typeof o.targetEnv === "string" ? o.targetEnv : undefined };
  } catch {}
  return null;
}

function autosave() {
  clearTimeout(saveTimer);
  if (!userEdited) return;
  try {
    localStorage.setItem(AUTOSAVE_KEY, JSON.stringify({ text: editor.text(), targetEnv: envSelect.value }));
  } catch {}
}

// -------------------------------------------------------------------- main --

async function main() {
  engine = new Engine();
  setupTheme();
  const info = await engine.send({ kind: "init" });
  grammarWords = info.grammarWords ?? null;
  for (const name of info.targetEnvs) envSelect.add(new Option(name, name, false, name === info.defaultTargetEnv));

  let initial = { text: SAMPLE, targetEnv: info.defaultTargetEnv, function: undefined as number | undefined, panel: "problems" as Panel };
  const saved = loadAutosave();
  if (saved) {
    initial.text = saved.text;
    if (saved.targetEnv && info.targetEnvs.includes(saved.targetEnv)) initial.targetEnv = saved.targetEnv;
  }
  const hash = location.hash.slice(1);
  if (hash) {
    try {
      if (!hash.startsWith("v1/")) throw new Error("it is not a spvlab v1 link");
      const r = await engine.send({ kind: "decodeShare", fragment: hash });
      if (r.error !== undefined || !r.state) throw new Error(r.error ?? "it holds nothing");
      const s = validShare(r.state, info.targetEnvs);
      initial = { text: s.text, targetEnv: s.targetEnv, function: s.function, panel: (s.panel as Panel) ?? "problems" };
    } catch (e) {
      banner(`This share link could not be opened (${e instanceof Error ? e.message : e}). Showing your ${saved ? "autosaved" : "default"} text instead.`);
    }
  }
  envSelect.value = initial.targetEnv;

  editor = new SpirvEditor($("editor"), initial.text, {
    onChange: () => {
      userEdited = true;
      docVersion++;
      scheduleAnalyze();
      clearTimeout(saveTimer);
      saveTimer = setTimeout(autosave, 300);
    },
    onCursor,
    grammarWords: () => grammarWords,
    say: (m) => say(m),
  });
  cfg = mountCfgPanel($("panel-cfg"), {
    requestDot: async (fn, options) =>
      (await engine.send({ kind: "dot", function: fn, options })).dot,
    onHoverBlock: (id) => editor.setHoverBlock(blockRange(id)),
    onSelectBlock: (id) => editor.setSelectedBlock(blockRange(id)),
    onFunctionChange: () => {},
  });
  if (initial.function !== undefined) cfg.setFunction(initial.function);
  envSelect.addEventListener("change", () => {
    userEdited = true;
    docVersion++;
    autosave();
    scheduleAnalyze();
  });
  // A link pasted into this tab's address bar only changes the hash: load it.
  addEventListener("hashchange", () => {
    if (location.hash !== ownHash && location.hash.startsWith("#v1/")) {
      autosave();
      location.reload();
    }
  });
  addEventListener("beforeunload", autosave);
  addEventListener("pagehide", autosave);
  setupTabs();
  setupSplitter();
  setupFiles();
  setupExamples();
  setupShare();
  showPanel(initial.panel);
  (window as unknown as { spvlab: unknown }).spvlab = { editor, engine, version: info.version };
  await runAnalyze();
  say(statusEl.textContent + ` · spvlab ${info.version}`, statusEl.className);

  if ("serviceWorker" in navigator && import.meta.env.PROD && location.protocol.startsWith("http")) {
    navigator.serviceWorker.register("./sw.js").catch((e) => console.warn("service worker", e));
  }
}

main().catch((e) => {
  say(`failed to load: ${e instanceof Error ? e.message : e}`, "error");
  console.error(e);
});
