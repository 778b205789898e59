// The spvlab page: wires the editor, the panels, the engine's worker, share
// links and persistence around one store (state.ts). Handlers update the
// store; each panel renders from it (panels/*.ts, cfg/). Engine strings
// (messages, names, disassembly) are untrusted: they only go into textContent.
import type { AnalyzeReport, RunRequest } from "./api";
import { Autosave, loadAutosave } from "./autosave";
import { mountCfgPanel, type CfgPanel } from "./cfg";
import { Debounce } from "./debounce";
import { byId } from "./dom";
import { Engine } from "./engine";
import { mountExamples } from "./examples";
import { EXAMPLES } from "./gallery";
import { OPEN_EXAMPLE, type TeachView } from "./teach";
import { mountFiles } from "./files";
import { mountHelp } from "./help";
import { mountBinary, mountDisassembly } from "./panels/code";
import { keepSelection, mountProblems } from "./panels/problems";
import { mountBanner, mountSplitter, mountStatus, mountTheme } from "./panels/shell";
import { mountFlesh } from "./panels/flesh";
import { mountRun } from "./panels/run";
import { mountAmber } from "./panels/run-amber";
import { mountTabs } from "./panels/tabs";
import { mountWgsl } from "./panels/wgsl";
import { SAMPLE } from "./sample";
import { mountShare, readLink, type SharedStart } from "./share";
import { createAppStore, errorText, type AppState, type AppStore, type Panel } from "./state";
import { SpirvEditor } from "./ui/editor";

/** Edits closer than this are typing (the CFG redraws when it pauses). */
const TYPING_MS = 200;

/** Analyses the editor's text in the engine's worker after each edit,
 *  dropping answers that a newer edit made stale. One analysis at a time:
 *  while one is in the worker, edits only mark the text as needing another,
 *  which starts as soon as the first answers. There is no debounce: an edit is
 *  analysed at once when the engine is idle (a 1,000-line module takes a few
 *  ms), and a burst of keystrokes costs one analysis per answer, not one per
 *  key. */
class Analyzer {
  private latest = 0;
  private busy = false;
  private again = false;

  constructor(
    private readonly store: AppStore,
    private readonly engine: Engine,
    private readonly text: () => string,
  ) {}

  schedule() {
    if (this.busy) this.again = true;
    else void this.run();
  }

  async run() {
    this.busy = true;
    this.again = false;
    try {
      await this.once();
    } finally {
      this.busy = false;
      if (this.again) void this.run();
    }
  }

  private async once() {
    const version = this.store.get().docVersion;
    const id = this.engine.peekId();
    this.latest = id;
    try {
      const resp = await this.engine.send({ kind: "analyze", request: { text: this.text(), targetEnv: this.store.get().targetEnv } });
      // Drop stale answers: a newer request was sent, or the text changed since.
      if (id !== this.latest || version !== this.store.get().docVersion) return;
      this.show(resp.report, version);
    } catch (e) {
      if (id === this.latest) this.store.update({ status: { text: `engine error: ${errorText(e)}`, tone: "error" } });
      else console.warn("spvlab: an analysis a newer edit replaced failed", e);
    }
  }

  private show(r: AnalyzeReport, version: number) {
    const s = this.store.get();
    const errors = r.diagnostics.filter((d) => d.severity === "error").length;
    const plural = errors === 1 ? "" : "s";
    const status = !r.assembled
      ? { text: `does not assemble: ${errors} error${plural}`, tone: "bad" as const }
      : errors
        ? { text: `assembled, ${errors} validation error${plural}`, tone: "bad" as const }
        : { text: `valid · ${r.words.length} words`, tone: "good" as const };
    // The page opens on the graph when the module is valid (what a learner
    // came for), on Problems when it is not; after that the user decides.
    const opening: { panel?: Panel; panelChosen?: boolean } = s.panelChosen ? {} : { panel: r.valid ? "cfg" : "problems", panelChosen: true };
    this.store.update({
      report: r,
      reportVersion: version,
      selectedProblem: keepSelection(s.report, s.selectedProblem, r),
      analyses: s.analyses + 1,
      status,
      ...opening,
    });
    const body = document.body.dataset;
    body.analyzed = String(this.store.get().analyses);
    if (!body.ready) body.readyMs = performance.now().toFixed(1);
    body.ready = "true";
    document.dispatchEvent(new CustomEvent("spvlab:report"));
  }
}

/** The CFG panel, fed from the store. */
function mountCfg(store: AppStore, engine: Engine, editor: SpirvEditor, start: SharedStart | null, runRequest: () => RunRequest | undefined): CfgPanel {
  const blockRange = (id: number | null) => {
    const r = store.get().report;
    if (id === null || !r) return null;
    for (const f of r.functions) for (const b of f.blocks) if (b.id === id) return b.range ?? null;
    return null;
  };
  const cfg = mountCfgPanel(byId("panel-cfg"), {
    requestDot: async (fn, options) => (await engine.send({ kind: "dot", function: fn, options })).dot,
    onHoverBlock: (id) => editor.setHoverBlock(blockRange(id)),
    onSelectBlock: (id) => editor.setSelectedBlock(blockRange(id)),
    onFunctionChange: (id, byUser) => {
      const s = store.get();
      store.update({ cfgFunction: id, linkEdits: s.linkEdits + (byUser ? 1 : 0) });
    },
    onViewChange: (view) => store.update({ cfgView: view, linkEdits: store.get().linkEdits + 1 }),
    stale: () => store.get().docVersion !== store.get().reportVersion,
    // The path view (cfg/path.ts) traces with the Run tab's last inputs.
    path: {
      runRequest,
      run: async (request) => (await engine.send({ kind: "run", request })).result,
      module: () => store.get().report?.disassembly,
      reveal: () => store.update({ panel: "cfg" }),
    },
    teach: {
      request: async (fn) => JSON.parse((await engine.send({ kind: "teach", function: fn })).json) as TeachView | null,
      text: () => editor.text(),
    },
  });
  if (start?.cfg) {
    cfg.setView(start.cfg);
    store.update({ cfgView: start.cfg });
  }
  if (start?.function !== undefined) {
    cfg.setFunction(start.function);
    store.update({ cfgFunction: start.function });
  }
  // While the user types (edits closer than TYPING_MS apart), the graph waits
  // until they pause: a layout per keystroke would only be replaced at once,
  // and it takes a core (Graphviz's worker) and the main thread (its SVG)
  // from the next edit's diagnostics. A single edit redraws at once.
  const redraw = new Debounce();
  store.watch(
    (s) => [s.report],
    (s) => {
      const r = s.report;
      if (!r) return;
      const wait = s.editGap < TYPING_MS ? s.editedAt + TYPING_MS - performance.now() : 0;
      redraw.run(wait, () => cfg.update(r));
    },
  );
  store.watch(
    (s) => [s.report, s.selectedProblem],
    (s) => cfg.showDiagnostic(s.selectedProblem === null ? null : (s.report?.diagnostics[s.selectedProblem] ?? null)),
  );
  // The blocks under the editor's cursor.
  let lastKey = "";
  store.watch(
    (s) => [s.report, s.cursor],
    (s) => {
      const blocks: number[] = [];
      for (const f of s.report?.functions ?? [])
        for (const b of f.blocks) if (b.range && b.range.from <= s.cursor && s.cursor <= b.range.to) blocks.push(b.id);
      const key = blocks.join(",");
      if (key === lastKey) return;
      lastKey = key;
      cfg.highlightBlocks(blocks);
    },
  );
  return cfg;
}

async function main(store: AppStore) {
  const engine = new Engine();
  mountTheme(store);
  mountStatus(store);
  mountBanner(store);
  const info = await engine.send({ kind: "init" });
  store.update({
    engine: { version: info.version, targetEnvs: info.targetEnvs, defaultTargetEnv: info.defaultTargetEnv, grammarWords: info.grammarWords ?? null },
    targetEnv: info.defaultTargetEnv,
  });
  const envSelect = byId<HTMLSelectElement>("target-env");
  for (const name of info.targetEnvs) envSelect.add(new Option(name, name, false, name === info.defaultTargetEnv));

  // What to start with: a share link, else the autosave, else the sample.
  let text = SAMPLE;
  const saved = loadAutosave();
  if (saved) {
    text = saved.text;
    if (saved.targetEnv && info.targetEnvs.includes(saved.targetEnv)) store.update({ targetEnv: saved.targetEnv });
  }
  let start: SharedStart | null = null;
  try {
    start = await readLink(engine, info.targetEnvs);
  } catch (e) {
    const instead = saved ? "autosaved" : "default";
    store.update({ banner: `This share link could not be opened (${errorText(e)}). Showing your ${instead} text instead.` });
  }
  if (location.hash) store.update({ sharedHash: location.hash });
  if (start) {
    text = start.text;
    store.update({ targetEnv: start.targetEnv });
    if (start.panel) store.update({ panel: start.panel, panelChosen: true });
  }

  const current = () => editor.text();
  const autosave = new Autosave(store, current);
  const analyzer = new Analyzer(store, engine, current);
  const edited = (patch: Partial<AppState> = {}) => {
    const s = store.get();
    const now = performance.now();
    store.update({
      ...patch,
      userEdited: true,
      docVersion: s.docVersion + 1,
      linkEdits: s.linkEdits + 1,
      editedAt: now,
      editGap: now - s.editedAt,
    });
  };
  const editor = new SpirvEditor(byId("editor"), text, {
    onChange: () => {
      edited();
      analyzer.schedule();
      autosave.soon();
    },
    onCursor: (pos) => store.update({ cursor: pos }),
    grammarWords: () => store.get().engine?.grammarWords ?? null,
    say: (m) => store.update({ status: { text: m, tone: "" } }),
  });
  store.watch(
    (s) => [s.report],
    (s) => s.report && editor.setReport(s.report),
  );

  envSelect.value = store.get().targetEnv;
  envSelect.addEventListener("change", () => {
    edited({ targetEnv: envSelect.value });
    autosave.now();
    analyzer.schedule();
  });
  store.watch(
    (s) => [s.targetEnv],
    (s) => (envSelect.value = s.targetEnv),
  );

  const cfg = mountCfg(store, engine, editor, start, () => run.last()?.request);
  mountProblems(store, (r) => editor.reveal(r));
  mountDisassembly(store);
  mountBinary(store);
  const run = mountRun(store, engine, (line, column) => {
    const doc = editor.view.state.doc;
    const l = doc.line(Math.min(Math.max(1, line), doc.lines));
    const from = Math.min(l.from + Math.max(0, column - 1), l.to);
    editor.reveal({ from, to: l.to, line, column, endLine: line, endColumn: l.to - l.from + 1 });
  });
  const wgsl = mountWgsl(store, engine, editor);
  mountTabs(store, () => editor.view.focus());
  mountSplitter();
  const amber = mountAmber(store, engine, run, (t, env) => {
    if (info.targetEnvs.includes(env)) store.update({ targetEnv: env });
    editor.setText(t);
  });
  if (start?.run) amber.applyShared(start.run);
  mountFiles(store, engine, (t) => editor.setText(t), (t, name) => amber.open(t, name));
  mountExamples(store, (t, env) => {
    if (info.targetEnvs.includes(env)) store.update({ targetEnv: env });
    editor.setText(t);
    editor.view.focus();
  });
  // A lesson or a problem's rule link opens a gallery example (www/src/teach).
  document.addEventListener(OPEN_EXAMPLE, (e) => {
    const ex = EXAMPLES.find((x) => x.id === (e as CustomEvent<{ id: string }>).detail?.id);
    if (!ex) return;
    if (info.targetEnvs.includes(ex.targetEnv)) store.update({ targetEnv: ex.targetEnv });
    editor.setText(ex.text);
  });
  mountFlesh(store, engine, {
    cfg,
    // One edit of the whole text: undo (and the autosave before it) keeps
    // the user's own.
    load: (t, env) => {
      if (env && info.targetEnvs.includes(env)) store.update({ targetEnv: env });
      editor.replaceText(t);
    },
  });
  mountShare(store, engine, current, () => autosave.now(), () => amber.shareRun());
  mountHelp(store);

  // For the tests and the benchmark.
  Object.assign(window, {
    spvlab: {
      editor,
      engine,
      store,
      run,
      wgsl,
      amber,
      version: info.version,
      get lastElapsed() {
        return store.get().report?.elapsedMs;
      },
    },
  });
  await analyzer.run();
  const st = store.get().status;
  store.update({ status: { text: `${st.text} · spvlab ${info.version}`, tone: st.tone } });

  if ("serviceWorker" in navigator && import.meta.env.PROD && location.protocol.startsWith("http")) {
    navigator.serviceWorker.register("./sw.js").catch((e) => console.warn("service worker", e));
  }
}

const store = createAppStore();
main(store).catch((e) => {
  store.update({ status: { text: `failed to load: ${errorText(e)}`, tone: "error" } });
  console.error(e);
});
