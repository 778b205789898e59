// Amber files in the Run tab: an opened or dropped `.amber` file
// puts its compute shader in the editor and its buffers, bindings, spec
// constants and dispatch in the Run tab's inputs (web/src/amber.rs, on
// core's amber::page); a graphics file its fragment shader, bindings and
// draw settings (framebuffer, rect or grid, format, clear colour), and it
// is drawn once its module is reflected. After each run its EXPECT lines
// are checked against each backend's buffers (and a draw's image) and
// listed, pass or fail (with the values). "Export
// Amber" writes the current module, inputs and the interpreter's results as
// an Amber file that `spvlab amber` runs. The share link's run part is read
// and written here too. Engine strings are untrusted: textContent only.
import type { AmberCheck, AmberFailure, RunResult, ShareRun } from "../api";
import { byId, el } from "../dom";
import type { Engine } from "../engine";
import { errorText, type AmberState, type AppState, type AppStore, type LoadedAmber } from "../state";
import type { RunPanel } from "./run";
import { INVOCATION_EVENT } from "../cfg/path";

export interface AmberApi {
  /** Open an Amber file's text: true when it loaded. */
  open(source: string, name: string): Promise<boolean>;
  /** The Amber file of the current module, inputs and interpreter results. */
  exportText(): Promise<string>;
  /** The loaded file and its checks (null: none). */
  loaded(): LoadedAmber | null;
  /** The run part of a share link (the inputs and the invocation). */
  shareRun(): ShareRun | undefined;
  /** Put a share link's run part in the Run tab. */
  applyShared(r: ShareRun): void;
}

const BACKENDS = [
  ["interp", "interpreter"],
  ["wgpu", "WebGPU"],
] as const;

export function mountAmber(store: AppStore, engine: Engine, run: RunPanel, setText: (text: string, targetEnv: string) => void): AmberApi {
  const root = byId("panel-run");
  const box = el("section", "run-amber");
  box.id = "run-amber";
  const bar = el("div", "run-amber-bar");
  const exportBtn = el("button", "run-amber-export", "Export Amber");
  exportBtn.id = "amber-export";
  exportBtn.title = "save the module, the inputs and the interpreter's results as an Amber file (`spvlab amber FILE` runs it)";
  const closeBtn = el("button", "run-amber-close", "Forget file");
  closeBtn.id = "amber-close";
  closeBtn.hidden = true;
  const title = el("span", "run-amber-title");
  bar.append(exportBtn, title, closeBtn);
  const body = el("div", "run-amber-body");
  body.id = "amber-file";
  box.append(bar, body);
  const results = document.getElementById("run-results");
  root.insertBefore(box, results);

  const setAmber = (patch: Partial<AmberState>) => store.update({ amber: { ...store.get().amber, ...patch } });

  function located(e: AmberFailure, name: string): HTMLElement {
    const d = el("div", "run-error amber-error");
    d.dataset.line = String(e.line);
    d.dataset.column = String(e.column);
    d.append(el("span", "run-error-kind", e.graphics ? "graphics stage: not run" : "Amber file"), el("code", "amber-at", `${name}:${e.line}:${e.column}`), el("div", "run-error-message", e.message));
    return d;
  }

  function render(s: AppState) {
    const { loaded, failed } = s.amber;
    body.replaceChildren();
    closeBtn.hidden = !loaded;
    if (!loaded) {
      title.textContent = "";
      box.dataset.state = "none";
      if (failed) {
        body.append(located(failed.error, failed.name));
        box.dataset.state = failed.error.graphics ? "graphics" : "error";
      }
      return;
    }
    const { script, checks } = loaded;
    title.textContent = `${loaded.name}${script.disassembled ? " (SPIRV-HEX, disassembled)" : ""}`;
    const spec = Object.entries(script.spec);
    if (spec.length) body.append(el("p", "run-note", `Spec constants from the file: ${spec.map(([k, v]) => `${k} = ${v}`).join(", ")}.`));
    const list = el("ol", "amber-expects");
    let pass = 0;
    let fail = 0;
    for (const x of script.expects) {
      const li = el("li", "amber-expect");
      li.dataset.line = String(x.line);
      li.append(el("code", "amber-line", `${x.line}: ${x.text}`));
      for (const [k, words] of BACKENDS) {
        const c = checks[k];
        const v = c?.expects.find((e) => e.line === x.line);
        const st = !c ? "pending" : c.error ? "error" : v?.pass ? "pass" : "fail";
        li.dataset[k] = st;
        if (st === "pass") pass++;
        if (st === "fail") fail++;
        const badge = el("span", `amber-verdict ${st}`, `${words}: ${st}`);
        badge.dataset.backend = k;
        li.append(badge);
        for (const f of v && !v.pass ? v.failures : []) li.append(el("div", "amber-failure", `${words}: ${f}`));
      }
      list.append(li);
    }
    for (const [k, words] of BACKENDS) {
      const e = checks[k]?.error;
      if (e) body.append(el("p", "run-error amber-check-error", `${words}: ${e.line}:${e.column}: ${e.message}`));
    }
    body.append(list);
    box.dataset.pass = String(pass);
    box.dataset.fail = String(fail);
    box.dataset.state = checks.interp || checks.wgpu ? "checked" : "loaded";
  }

  async function open(source: string, name: string): Promise<boolean> {
    const r = await engine.send({ kind: "amberLoad", source });
    if (!r.script) {
      const e = r.error ?? { line: 1, column: 1, message: "the file could not be read", graphics: false };
      setAmber({ loaded: null, failed: { name, error: e } });
      const what = e.graphics ? "has a graphics stage that the page does not run" : "could not be loaded";
      store.update({ banner: `${name} ${what}: ${name}:${e.line}:${e.column}: ${e.message}`, panel: "run", panelChosen: true });
      return false;
    }
    const s = r.script;
    setAmber({ loaded: { name, source, script: s, checks: {} }, failed: null });
    store.update({ banner: null });
    setText(s.text, s.targetEnv);
    // A graphics file draws as soon as its module is reflected.
    run.setInputs({ entry: s.entry, workgroups: s.workgroups, buffers: Object.fromEntries(s.inputs.map((i) => [i.key, i.spec])), spec: s.spec, draw: s.draw }, s.draw !== undefined);
    const what = s.draw ? `a ${s.draw.width}x${s.draw.height} draw, ` : "";
    store.update({ panel: "run", panelChosen: true, status: { text: `opened ${name}: ${what}${s.expects.length} EXPECT lines, checked after each run`, tone: "" } });
    return true;
  }

  /** Check the loaded file's EXPECT lines against each backend's buffers. */
  async function check() {
    const o = run.last();
    const mine = store.get().amber.loaded;
    if (!mine || !o) return;
    const one = async (r: RunResult | undefined): Promise<AmberCheck | undefined> => {
      if (!r) return undefined;
      if (!r.ok) return { expects: [], error: { line: 1, column: 1, message: `not run: ${r.error?.message ?? "no result"}`, graphics: false } };
      return (await engine.send({ kind: "amberCheck", source: mine.source, buffers: r.buffers, image: r.image })).check;
    };
    const [interp, wgpu] = await Promise.all([one(o.interp), one(o.gpu)]);
    if (store.get().amber.loaded !== mine) return;
    setAmber({ loaded: { ...mine, checks: { interp, wgpu } } });
    document.dispatchEvent(new CustomEvent("spvlab:amber-checked"));
  }
  document.addEventListener("spvlab:run", () => void check().catch((e: unknown) => store.update({ banner: `the EXPECT lines could not be checked: ${errorText(e)}` })));

  async function exportText(): Promise<string> {
    const r = await engine.send({ kind: "amberExport", request: run.inputs() });
    if (r.text === undefined) throw new Error(r.error?.message ?? "nothing to export");
    return r.text;
  }

  exportBtn.addEventListener("click", async () => {
    try {
      const text = await exportText();
      const a = el("a");
      a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
      const loaded = store.get().amber.loaded;
      a.download = loaded ? loaded.name.replace(/(\.amber)?$/i, "-spvlab.amber") : "module.amber";
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      store.update({ status: { text: `exported ${a.download}`, tone: "" } });
    } catch (e) {
      store.update({ banner: `could not export Amber: ${errorText(e)}` });
    }
  });
  closeBtn.addEventListener("click", () => setAmber({ loaded: null, failed: null }));

  // The invocation picked (by the path view, or a link): kept for links.
  document.addEventListener(INVOCATION_EVENT, (ev) => {
    const d = (ev as CustomEvent<unknown>).detail;
    if (Array.isArray(d) && d.length === 3 && d.every((n) => Number.isInteger(n) && n >= 0)) setAmber({ invocation: d as [number, number, number] });
  });
  // A changed input: the address no longer shows a shared state.
  root.addEventListener("input", (ev) => {
    if ((ev.target as HTMLElement).matches("input")) store.update({ linkEdits: store.get().linkEdits + 1 });
  });

  store.watch((s) => [s.amber.loaded, s.amber.failed], render);
  return {
    open,
    exportText,
    loaded: () => store.get().amber.loaded,
    shareRun() {
      const r = run.inputs();
      const invocation = store.get().amber.invocation;
      if (!r.entry) return invocation ? { invocation } : undefined;
      const out: ShareRun = { entry: r.entry, workgroups: r.workgroups, buffers: r.buffers };
      if (r.spec && Object.keys(r.spec).length) out.spec = r.spec;
      if (r.draw) out.draw = r.draw;
      if (invocation) out.invocation = invocation;
      return out;
    },
    applyShared(r: ShareRun) {
      // A link with draw settings reopens its image (the draw runs once its
      // module is reflected).
      run.setInputs({ entry: r.entry, workgroups: r.workgroups, buffers: r.buffers, spec: r.spec, draw: r.draw }, r.draw !== undefined);
      if (r.invocation) document.dispatchEvent(new CustomEvent(INVOCATION_EVENT, { detail: r.invocation }));
    },
  };
}
