// The Run panel: the inputs come from core's reflection of the last analysis
// (one row per bound buffer, the push constants, the dispatch size; for a
// Fragment entry point the framebuffer's size, the draw's shape and the
// attachment's format instead of the dispatch); Run sends the module to the
// interpreter (`session.run`) and to WebGPU (`session.runGpu`), both in the
// engine's worker, so the editor never waits. The results are shown side by
// side, per binding, one row per typed value, with the cells where the
// backends differ marked; a draw's two images are shown side by side with a
// difference view (panels/run-draw.ts), a pixel's value under the pointer,
// and a click on a pixel traces that fragment on the CFG (the path view). Errors are located
// (a button jumps to the line); a module the interpreter does not finish is
// not dispatched unless the user says so. Everything the panel holds is
// `AppState.run` (state.ts): its handlers only call `store.update`, and each
// part renders from that state. Engine strings are untrusted: textContent
// only.
import type { DrawImage, DrawRequest, IdInfo, ReflectedEntry, ReflectedResource, RunBuffer, RunFailure, RunRequest, RunResult } from "../api";
import { TRACE_EVENT } from "../cfg/path";
import { byId, el } from "../dom";
import type { Engine } from "../engine";
import { DEFAULT_DRAW, errorText, type AppState, type AppStore, type DrawFields, type RunOutcome, type RunState, type ValueView } from "../state";
import { DRAW_FORMATS, ZOOMS, difference, differenceImage, paint, pixelAt, pixelText } from "./run-draw";
import { DEFAULT_LENGTH, defaultInput, inputsOf, keyOf, leaves, sameBits, sizeText, typeName, viewText, withLength } from "./run-values";

export type { RunOutcome } from "../state";

/** Rows shown per binding (a big buffer says how many were left out). */
const MAX_ROWS = 1024;

/** A spec field's title when it holds no error. */
const SPEC_TITLE = "empty: the module's default";

export interface RunPanel {
  /** The last run (null before the first). */
  last(): RunOutcome | null;
  /** Show these results (what a run shows; the tests feed it results that
   *  differ). */
  show(o: RunOutcome): void;
  /** Amber files and share links (run-amber.ts): the inputs as a run would
   *  send them, and setting them (the fields follow the next reflection). */
  inputs(): RunRequest;
  /** `draw`: run once the module is reflected, when its entry point draws
   *  (a link's draw settings reopen its image). */
  setInputs(req: RunRequest, draw?: boolean): void;
}

/** The entry points the tab runs: compute shaders dispatch, fragment
 *  shaders draw. */
const RUNS = ["GLCompute", "Fragment"];

const isDraw = (e: ReflectedEntry | undefined) => e?.executionModel === "Fragment";

/** A field as a count for the engine (it checks the limits): a whole
 *  number, 0 when it is not one. */
const count = (v: string) => Math.max(0, Math.min(0xffffffff, Math.floor(Number(v)) || 0));

/** A clear colour field as four numbers (a part that is not a number, or
 *  missing, is 0). */
function clearOf(v: string): [number, number, number, number] {
  const parts = v.trim().split(/[\s,]+/);
  return [0, 1, 2, 3].map((i) => {
    const n = Number(parts[i]);
    return Number.isFinite(n) ? n : 0;
  }) as [number, number, number, number];
}

/** The draw part of a request, from the fields. */
function drawRequestOf(d: DrawFields): DrawRequest {
  const shape = d.shape === "grid" ? { kind: "grid" as const, columns: count(d.columns), rows: count(d.rows) } : { kind: "rect" as const };
  return { width: count(d.width), height: count(d.height), shape, format: d.format, clear: clearOf(d.clear) };
}

/** The fields of a request's draw part (absent parts: the defaults). */
function drawFieldsOf(d: DrawRequest | undefined): DrawFields {
  const f = { ...DEFAULT_DRAW };
  if (!d) return f;
  if (d.width !== undefined) f.width = String(d.width);
  if (d.height !== undefined) f.height = String(d.height);
  if (d.shape?.kind === "grid") Object.assign(f, { shape: "grid", columns: String(d.shape.columns), rows: String(d.shape.rows) });
  if (d.format) f.format = d.format;
  if (d.clear) f.clear = d.clear.join(" ");
  return f;
}

/** The entry point chosen: by name, else the first. */
function entryOf(r: RunState): ReflectedEntry | undefined {
  return r.entries.find((e) => e.name === r.entry) ?? r.entries[0];
}

/** The request a run sends, from the fields in the state. */
function requestOf(r: RunState, force: boolean): RunRequest {
  const e = entryOf(r);
  const buffers: Record<string, string> = {};
  if (e)
    inputsOf(e.resources).forEach((res, i) => {
      const key = keyOf(res);
      const value = r.buffers[key] ?? defaultInput(res, i);
      const n = Number(r.lengths[key] ?? DEFAULT_LENGTH);
      buffers[key] = res.runtimeArray && Number.isInteger(n) && n >= 0 ? withLength(value, n) : value;
    });
  const workgroups = r.workgroups.map((d) => Math.max(1, Math.floor(Number(d)) || 1)) as [number, number, number];
  const spec: Record<string, string> = {};
  if (e)
    for (const sc of r.specConstants) {
      const v = (r.spec[String(sc.specId)] ?? "").trim();
      if (v !== "") spec[String(sc.specId)] = v;
    }
  const draw = isDraw(e) ? { draw: drawRequestOf(r.draw) } : {};
  return { entry: e?.name, workgroups, buffers, ...(Object.keys(spec).length ? { spec } : {}), ...(force ? { force: true } : {}), ...draw };
}

export function mountRun(store: AppStore, engine: Engine, jump: (line: number, column: number) => void): RunPanel {
  const root = byId("panel-run");
  const head = el("div", "run-head");
  const entrySelect = el("select");
  entrySelect.id = "run-entry";
  entrySelect.setAttribute("aria-label", "entry point");
  const dims = [0, 1, 2].map((i) => {
    const d = el("input");
    d.type = "number";
    d.min = "1";
    d.value = "1";
    d.className = "run-dim";
    d.id = `run-groups-${"xyz"[i]}`;
    d.setAttribute("aria-label", `workgroups in ${"xyz"[i]}`);
    return d;
  });
  const runBtn = el("button", "run-go", "Run");
  runBtn.id = "run-btn";
  const resetBtn = el("button", "run-reset", "Defaults");
  resetBtn.id = "run-defaults";
  resetBtn.title = "put back the default inputs (the first buffer counts up, the others are zeros, spec constants their defaults) and one workgroup";
  const groupsLabel = el("span", "run-label", "workgroups");
  const localSize = el("span", "run-local");
  const entryLabel = el("span", "run-label", "entry");
  // A draw's fields (shown for a Fragment entry point instead of the
  // workgroups): data-draw names the DrawFields key each one sets.
  const drawField = (key: keyof DrawFields, label: string) => {
    const i = el("input");
    i.type = "number";
    i.min = "1";
    i.className = "run-dim run-draw-field";
    i.id = `run-draw-${key}`;
    i.dataset.draw = key;
    i.setAttribute("aria-label", label);
    return i;
  };
  const drawWidth = drawField("width", "framebuffer width");
  const drawHeight = drawField("height", "framebuffer height");
  const drawColumns = drawField("columns", "grid columns");
  const drawRows = drawField("rows", "grid rows");
  const shapeSelect = el("select", "run-draw-field");
  shapeSelect.id = "run-draw-shape";
  shapeSelect.dataset.draw = "shape";
  shapeSelect.setAttribute("aria-label", "what is drawn");
  shapeSelect.title = "one rectangle over the framebuffer (Amber's DRAW_RECT), or a grid of cells of two triangles each (DRAW_GRID)";
  shapeSelect.append(new Option("rect", "rect"), new Option("grid", "grid"));
  const formatSelect = el("select", "run-draw-field");
  formatSelect.id = "run-draw-format";
  formatSelect.dataset.draw = "format";
  formatSelect.setAttribute("aria-label", "colour attachment format");
  formatSelect.append(...DRAW_FORMATS.map((f) => new Option(f, f)));
  const clearInput = el("input", "run-draw-field run-draw-clear");
  clearInput.id = "run-draw-clear";
  clearInput.dataset.draw = "clear";
  clearInput.size = 10;
  clearInput.setAttribute("aria-label", "clear colour");
  clearInput.title = "the colour the attachment is cleared to before the draw: R G B A from 0 to 1 (Amber's CLEAR_COLOR over 255)";
  const gridPart = el("span", "run-draw-grid");
  gridPart.append(drawColumns, el("span", "run-label", "×"), drawRows);
  const drawPart = el("span", "run-draw-inputs");
  drawPart.append(el("span", "run-label", "framebuffer"), drawWidth, el("span", "run-label", "×"), drawHeight, el("span", "run-label", "draw"), shapeSelect, gridPart, formatSelect, el("span", "run-label", "clear"), clearInput);
  const drawFields = [drawWidth, drawHeight, drawColumns, drawRows];
  head.append(entryLabel, entrySelect, groupsLabel, ...dims, localSize, drawPart, runBtn, resetBtn);
  // The draw view's own controls and readout, kept from one result to the
  // next (the results are drawn again for each answer).
  const zoomSelect = el("select");
  zoomSelect.id = "run-zoom";
  zoomSelect.setAttribute("aria-label", "zoom of the images");
  zoomSelect.append(...ZOOMS.map((z) => new Option(`${z}×`, String(z))));
  const pixelLine = el("div", "run-pixel");
  pixelLine.id = "run-pixel";
  pixelLine.setAttribute("aria-live", "polite");
  const note = el("p", "run-note");
  const inputs = el("table", "run-inputs");
  inputs.id = "run-inputs";
  const specs = el("table", "run-specs");
  specs.id = "run-specs";
  const results = el("div", "run-results");
  results.id = "run-results";
  results.setAttribute("aria-live", "polite");
  root.append(head, note, inputs, specs, results);

  const setRun = (patch: Partial<RunState>) => store.update({ run: { ...store.get().run, ...patch } });

  // ---------------------------------------------------------------- handlers

  async function refresh() {
    const version = store.get().reportVersion;
    if (version === store.get().run.reflectAsked) return;
    setRun({ reflectAsked: version });
    try {
      const r = await engine.send({ kind: "reflect" });
      const entries = (r.reflection?.entryPoints ?? []).filter((e) => RUNS.includes(e.executionModel));
      const report = store.get().report;
      const now = store.get().run;
      const keep = now.wantEntry ?? now.entry;
      setRun({
        reflectedVersion: version,
        reflectError: null,
        entries,
        specConstants: r.reflection?.specConstants ?? [],
        reflectedValid: report?.valid === true,
        bindingNames: namesOf(entries, report?.ids ?? []),
        entry: entries.some((e) => e.name === keep) ? keep : (entries[0]?.name ?? ""),
        // A wanted entry point waits for the module that has it.
        wantEntry: entries.some((e) => e.name === now.wantEntry) ? undefined : now.wantEntry,
      });
      // A link's draw: drawn as soon as its module's entry point is here.
      const after = store.get().run;
      if (after.drawWhenReflected && after.wantEntry === undefined) {
        setRun({ drawWhenReflected: false });
        if (isDraw(entryOf(after))) void run();
      }
    } catch (e) {
      setRun({ reflectError: `reflection failed: ${errorText(e)}` });
    }
  }

  async function run(force = false) {
    const before = store.get().run;
    const id = before.runId + 1;
    const request = requestOf(before, force);
    const kept = force && before.finished ? { interp: before.finished.interp, interpMs: before.finished.interpMs } : {};
    setRun({ runId: id, last: { request, ...kept }, shown: null, running: true, forced: force, engineError: null });
    /** An answer of this run (dropped when a newer run began), shown at
     *  once when `show`. */
    const answer = (patch: Partial<RunOutcome>, show: boolean) => {
      const r = store.get().run;
      if (r.runId !== id || !r.last) return;
      const o = { ...r.last, ...patch };
      setRun(show ? { last: o, shown: o } : { last: o });
    };
    const interp = force
      ? Promise.resolve()
      : engine.send({ kind: "run", request }).then((r) => answer({ interp: r.result, interpMs: r.elapsedMs }, true));
    const gpu = engine.send({ kind: "runGpu", request }).then((r) => answer({ gpu: r.result, gpuMs: r.elapsedMs }, false));
    let engineError: string | null = null;
    try {
      await Promise.all([interp, gpu]);
    } catch (e) {
      engineError = `the engine failed: ${errorText(e)}`;
    }
    const r = store.get().run;
    if (r.runId !== id) return;
    setRun({ shown: r.last, finished: r.last, running: false, runs: r.runs + 1, engineError });
    document.dispatchEvent(new CustomEvent("spvlab:run"));
  }

  function setInputs(req: RunRequest, draw = false) {
    const r = store.get().run;
    const entries = r.entries;
    setRun({
      draw: drawFieldsOf(req.draw),
      drawWhenReflected: draw,
      buffers: { ...req.buffers },
      lengths: {},
      spec: { ...req.spec },
      workgroups: (req.workgroups ?? [1, 1, 1]).map(String) as [string, string, string],
      wantEntry: req.entry,
      entry: req.entry && entries.some((e) => e.name === req.entry) ? req.entry : r.entry,
    });
  }

  runBtn.addEventListener("click", () => void run());
  resetBtn.addEventListener("click", () => setRun({ buffers: {}, lengths: {}, spec: {}, workgroups: ["1", "1", "1"], draw: DEFAULT_DRAW }));
  for (const f of [...drawFields, shapeSelect, formatSelect, clearInput])
    f.addEventListener("input", () => setRun({ draw: { ...store.get().run.draw, [f.dataset.draw ?? ""]: f.value } }));
  zoomSelect.addEventListener("change", () => setRun({ zoom: Number(zoomSelect.value) || 1 }));
  entrySelect.addEventListener("change", () => setRun({ entry: entrySelect.value }));
  dims.forEach((d, i) =>
    d.addEventListener("input", () => {
      const w = [...store.get().run.workgroups] as [string, string, string];
      w[i] = d.value;
      setRun({ workgroups: w });
    }),
  );
  // The fields of the tables (drawn again for each reflection): one listener.
  root.addEventListener("input", (ev) => {
    const t = ev.target as HTMLInputElement;
    const r = store.get().run;
    const key = t.dataset.key ?? "";
    if (t.matches("input.run-input")) setRun({ buffers: { ...r.buffers, [key]: t.value } });
    else if (t.matches("input.run-length")) setRun({ lengths: { ...r.lengths, [key]: t.value } });
    else if (t.matches("input.run-spec")) setRun({ spec: { ...r.spec, [t.dataset.specId ?? ""]: t.value } });
  });
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.target as HTMLElement).matches("input.run-input, input.run-length, input.run-dim, input.run-draw-field")) {
      ev.preventDefault();
      void run();
    }
  });
  results.addEventListener("click", (ev) => {
    const btn = (ev.target as HTMLElement).closest("button.run-view") as HTMLButtonElement | null;
    const key = btn?.closest("section.run-buffer")?.getAttribute("data-key");
    if (btn && key) setRun({ views: { ...store.get().run.views, [key]: btn.dataset.view as ValueView } });
  });
  // The draw view: the pixel under the pointer, and a click traces it.
  const canvasOf = (t: EventTarget | null) => (t instanceof HTMLCanvasElement && t.matches("canvas.run-canvas") ? t : null);
  results.addEventListener("pointermove", (ev) => {
    const c = canvasOf(ev.target);
    const p = c ? pixelAt(c, ev.clientX, ev.clientY) : null;
    const h = store.get().run.hover;
    if (p?.[0] !== h?.[0] || p?.[1] !== h?.[1]) setRun({ hover: p });
  });
  results.addEventListener("pointerleave", () => setRun({ hover: null }));
  results.addEventListener("click", (ev) => {
    const c = canvasOf(ev.target);
    const p = c ? pixelAt(c, ev.clientX, ev.clientY) : null;
    if (p) document.dispatchEvent(new CustomEvent(TRACE_EVENT, { detail: [p[0], p[1], 0] }));
  });

  // --------------------------------------------------------------- rendering

  /** The head, the note, one row per binding and one per spec constant. */
  function renderInputs(s: AppState) {
    const r = s.run;
    const e = entryOf(r);
    entrySelect.replaceChildren(...r.entries.map((x) => new Option(x.name, x.name)));
    if (e) entrySelect.value = e.name;
    entrySelect.hidden = entryLabel.hidden = r.entries.length < 2;
    const draws = isDraw(e);
    for (const x of [groupsLabel, ...dims, localSize]) x.hidden = draws;
    drawPart.hidden = !draws;
    inputs.replaceChildren();
    runBtn.disabled = !e;
    specs.replaceChildren();
    if (!e) {
      note.textContent =
        r.reflectError ??
        (r.reflectedValid
          ? "This module has no GLCompute or Fragment entry point: compute shaders run here, and fragment shaders draw."
          : "Nothing to run: the module is not valid (see Problems).");
      localSize.textContent = "";
      return;
    }
    const language = "Inputs in the interpreter's input language: zeros, seq:START,STEP, random:SEED, hex: BYTES, or a typed list such as u32: 1 2 3.";
    note.textContent =
      r.reflectError ??
      (draws
        ? `Draws the fragment shader over the framebuffer (cleared first to the clear colour) with the module's Vertex entry point, else Amber's passthrough vertex shader. ${language}`
        : language);
    const ws = e.workgroupSize;
    localSize.textContent = ws ? `× local size ${ws.x ?? "?"}×${ws.y ?? "?"}×${ws.z ?? "?"}` : "";
    const hr = el("tr");
    for (const h of ["binding", "name", "type", "bytes", "input", "N"]) hr.append(el("th", undefined, h));
    inputs.append(hr);
    for (const res of inputsOf(e.resources)) inputs.append(inputRow(res, r.bindingNames));
    renderSpecs(r);
  }

  function inputRow(res: ReflectedResource, names: RunState["bindingNames"]): HTMLElement {
    const key = keyOf(res);
    const tr = el("tr");
    tr.dataset.key = key;
    const input = el("input");
    input.className = "run-input";
    input.dataset.key = key;
    input.spellcheck = false;
    input.setAttribute("aria-label", `input of ${key}`);
    const lenCell = el("td");
    if (res.runtimeArray) {
      const len = el("input");
      len.type = "number";
      len.min = "0";
      len.className = "run-length";
      len.dataset.key = key;
      len.setAttribute("aria-label", `runtime array length of ${key}`);
      len.title = "the runtime array's element count (used by zeros, seq and random without a count)";
      lenCell.append(len);
    }
    const inCell = el("td");
    inCell.append(input);
    tr.append(
      el("td", "run-key", res.kind === "pushConstant" ? "push" : key),
      el("td", "run-name", names[res.variable] ?? `%${res.name || res.variable}`),
      el("td", "run-type", `${res.kind === "uniformBuffer" ? "uniform " : res.kind === "pushConstant" ? "push " : ""}${typeName(res.type)}`),
      el("td", "run-size", sizeText(res)),
      inCell,
      lenCell,
    );
    return tr;
  }

  /** One field per settable spec constant: SpecId, name, type, default (an
   *  empty field keeps the default). */
  function renderSpecs(r: RunState) {
    specs.hidden = r.specConstants.length === 0;
    if (!r.specConstants.length) return;
    const hr = el("tr");
    for (const h of ["SpecId", "name", "type", "default", "value"]) hr.append(el("th", undefined, h));
    specs.append(hr);
    for (const sc of r.specConstants) {
      const tr = el("tr");
      tr.dataset.specId = String(sc.specId);
      const input = el("input");
      input.className = "run-spec";
      input.dataset.specId = String(sc.specId);
      input.spellcheck = false;
      input.placeholder = sc.default ?? "";
      input.setAttribute("aria-label", `value of spec constant ${sc.specId}`);
      const cell = el("td");
      cell.append(input);
      tr.append(
        el("td", "run-key", String(sc.specId)),
        el("td", "run-name", sc.name || `%${sc.id}`),
        el("td", "run-type", typeName(sc.type)),
        el("td", "run-default", sc.default ?? "?"),
        cell,
      );
      specs.append(tr);
    }
  }

  /** Each field's value from the state (a field already showing it is left
   *  alone, so typing keeps its caret). */
  function renderValues(s: AppState) {
    const r = s.run;
    const set = (input: HTMLInputElement, value: string) => {
      if (input.value !== value) input.value = value;
    };
    dims.forEach((d, i) => set(d, r.workgroups[i]));
    for (const f of [...drawFields, shapeSelect, formatSelect, clearInput]) set(f as HTMLInputElement, r.draw[f.dataset.draw as keyof DrawFields]);
    gridPart.hidden = r.draw.shape !== "grid";
    set(zoomSelect as unknown as HTMLInputElement, String(r.zoom));
    const e = entryOf(r);
    if (!e) return;
    inputsOf(e.resources).forEach((res, i) => {
      const key = keyOf(res);
      const tr = inputs.querySelector<HTMLElement>(`tr[data-key="${CSS.escape(key)}"]`);
      const input = tr?.querySelector<HTMLInputElement>("input.run-input");
      if (input) set(input, r.buffers[key] ?? defaultInput(res, i));
      const len = tr?.querySelector<HTMLInputElement>("input.run-length");
      if (len) set(len, r.lengths[key] ?? String(DEFAULT_LENGTH));
    });
    for (const input of specs.querySelectorAll<HTMLInputElement>("input.run-spec")) set(input, r.spec[input.dataset.specId ?? ""] ?? "");
  }

  /** The field an input error names is marked, with the message as its
   *  title; the others are not. */
  function renderMarks(s: AppState) {
    const f = s.run.shown?.interp?.error ?? s.run.shown?.gpu?.error;
    const spec = specField(f);
    const key = spec === undefined ? bufferField(f) : undefined;
    for (const input of inputs.querySelectorAll<HTMLInputElement>("input.run-input")) {
      const bad = f !== undefined && key !== undefined && input.dataset.key === key;
      mark(input, bad ? f.message : undefined, "");
    }
    for (const input of specs.querySelectorAll<HTMLInputElement>("input.run-spec")) {
      const bad = f !== undefined && spec !== undefined && input.dataset.specId === spec;
      mark(input, bad ? f.message : undefined, SPEC_TITLE);
    }
    const limited = drawFieldsAt(f);
    for (const input of drawFields) mark(input, f && limited.includes(input.dataset.draw ?? "") ? f.message : undefined, "");
  }

  /** A failure, located like a diagnostic: kind, code, message, and a jump. */
  function failure(f: RunFailure): HTMLElement {
    const box = el("div", "run-error");
    box.dataset.kind = f.kind;
    if (f.code) box.dataset.code = f.code;
    box.append(el("span", "run-error-kind", KIND_WORDS[f.kind] ?? f.kind));
    if (f.code) box.append(el("code", "run-error-code", f.code));
    if (f.line !== undefined) {
      const at = el("button", "run-jump", `line ${f.line}:${f.column ?? 1}`);
      at.title = "show the instruction in the editor";
      at.addEventListener("click", () => jump(f.line ?? 1, f.column ?? 1));
      box.append(at);
    }
    if (f.site?.stage === "fragment") {
      const { x, y } = f.site;
      const px = el("button", "run-site", `trace pixel (${x}, ${y})`);
      px.dataset.pixel = `${x},${y}`;
      px.title = "draw this fragment's path on the CFG (up to the error)";
      px.addEventListener("click", () => document.dispatchEvent(new CustomEvent(TRACE_EVENT, { detail: [x, y, 0] })));
      box.append(px);
    }
    box.append(el("div", "run-error-message", f.message));
    return box;
  }

  function column(title: string, r: RunResult | undefined, ms: number | undefined): HTMLElement {
    const c = el("div", "run-backend");
    c.dataset.backend = title === "Interpreter" ? "interp" : "wgpu";
    const h = el("div", "run-backend-head");
    h.append(el("strong", undefined, title));
    if (!r) {
      c.dataset.state = "pending";
      h.append(el("span", "run-meta", "running…"));
      c.append(h);
      return c;
    }
    c.dataset.state = r.ok ? "ok" : "failed";
    if (ms !== undefined) h.append(el("span", "run-time", `${ms.toFixed(1)} ms`));
    if (r.draw) h.append(el("span", "run-meta", `${r.draw.vertices} vertices, ${r.draw.fragments} fragments (${r.draw.helpers} helper lanes), ${r.draw.steps} steps`));
    else if (r.steps !== undefined) h.append(el("span", "run-meta", `${r.invocations} invocations, ${r.steps} steps`));
    if (r.adapter) h.append(el("span", "run-adapter", r.adapter));
    c.append(h);
    if (r.error) {
      c.append(failure(r.error));
      if (r.error.kind === "stepBudget" && c.dataset.backend === "wgpu") {
        const go = el("button", "run-force", "Dispatch anyway");
        go.title = "send the module to the GPU although the interpreter did not finish it (it may hang the GPU until the browser gives up)";
        go.addEventListener("click", () => void run(true));
        c.append(go);
      }
      if (c.dataset.backend === "wgpu" && (r.error.kind === "refused" || r.error.kind === "noDevice"))
        c.append(el("p", "run-note", "Not run on WebGPU; the interpreter's result stands alone."));
    }
    return c;
  }

  /** The results: both backends' columns and one table per binding. */
  function renderResults(s: AppState) {
    const r = s.run;
    const o = r.shown;
    const engineError = r.engineError ? [el("p", "run-error", r.engineError)] : [];
    if (!o) {
      results.dataset.differ = "0";
      const waiting = r.running ? [el("p", "run-note", r.forced ? "Dispatching on WebGPU…" : "Running…")] : [];
      results.replaceChildren(...waiting, ...engineError);
      return;
    }
    const cols = el("div", "run-columns");
    cols.append(column("Interpreter", o.interp, o.interpMs), column("WebGPU", o.gpu, o.gpuMs));
    const tables = el("div", "run-tables");
    const a = o.interp?.ok ? o.interp : undefined;
    const b = o.gpu?.ok ? o.gpu : undefined;
    const list = a ?? b;
    let differing = 0;
    for (const buf of list?.buffers ?? []) {
      const key = `${buf.set}.${buf.binding}`;
      const ba = a?.buffers.find((x) => x.set === buf.set && x.binding === buf.binding);
      const bb = b?.buffers.find((x) => x.set === buf.set && x.binding === buf.binding);
      // One row per leaf of the run plan (where each value's bytes lie); the
      // typed text is core's typed output of the same path.
      const rows = buf.leaves;
      const ta = typedTexts(ba);
      const tb = typedTexts(bb);
      const n = rows.length;
      const view = r.views[key] ?? "typed";
      const sec = el("section", "run-buffer");
      sec.dataset.key = key;
      sec.dataset.view = view;
      const sameBytes = !(ba && bb) || ba.bytes.join() === bb.bytes.join();
      const h = el("h3", undefined, `${key} ${buf.name} (${buf.kind}, ${buf.bytes.length} bytes)${a && b ? (sameBytes ? " · same bytes" : " · the backends differ") : ""}`);
      // The table's view: typed values, each leaf's bytes in hex, or its
      // bits read as a float.
      const toggle = el("span", "run-views");
      toggle.setAttribute("role", "group");
      toggle.setAttribute("aria-label", `view of ${key}`);
      for (const [v, words] of [["typed", "typed"], ["hex", "hex"], ["float", "float bits"]] as [ValueView, string][]) {
        const btn = el("button", "run-view", words);
        btn.dataset.view = v;
        btn.setAttribute("aria-pressed", String(v === view));
        toggle.append(btn);
      }
      h.append(toggle);
      sec.append(h);
      const t = el("table", "run-values");
      const hr = el("tr");
      hr.append(el("th", undefined, "value"), el("th", undefined, "interpreter"), el("th", undefined, "WebGPU"));
      t.append(hr);
      for (const at of rows.slice(0, MAX_ROWS)) {
        const tr = el("tr");
        tr.dataset.path = at.path;
        const text = (typed: Map<string, string> | undefined, bytes: number[] | undefined) =>
          typed && bytes ? (viewText(bytes, at, view) ?? typed.get(at.path) ?? "") : "";
        const ca = el("td", "cell", text(ta, ba?.bytes));
        ca.dataset.backend = "interp";
        const cb = el("td", "cell", text(tb, bb?.bytes));
        cb.dataset.backend = "wgpu";
        // Differ: the leaf's bytes.
        if (ba && bb && !sameBits(ba.bytes, bb.bytes, at)) {
          tr.classList.add("differ");
          differing++;
        }
        tr.append(el("td", "run-path", at.path), ca, cb);
        t.append(tr);
      }
      sec.append(t);
      if (n > MAX_ROWS) sec.append(el("p", "run-note", `${n - MAX_ROWS} more values not shown.`));
      tables.append(sec);
    }
    results.dataset.differ = String(differing);
    const drawn = o.request.draw ? [drawView(o)] : [];
    // A draw without buffers has only its images to compare (their own line).
    const summary =
      a && b && (list?.buffers.length || !o.request.draw)
        ? el("p", differing ? "run-summary bad" : "run-summary good", differing ? `Values that differ between the interpreter and WebGPU: ${differing} (marked).` : "The interpreter and WebGPU agree.")
        : el("p", "run-summary", "");
    results.replaceChildren(cols, ...drawn, summary, tables, ...engineError);
  }

  /** A draw's images: the interpreter's, WebGPU's (or why there is none)
   *  and their difference, with the zoom, the pixel readout and a line
   *  saying how many pixels differ. */
  function drawView(o: RunOutcome): HTMLElement {
    const sec = el("section", "run-draw");
    sec.id = "run-draw";
    const a = o.interp?.image;
    const b = o.gpu?.image;
    const bar = el("div", "run-draw-bar");
    bar.append(el("span", "run-label", "zoom"), zoomSelect);
    const figures = el("div", "run-draw-images");
    const figure = (backend: string, title: string, img: { width: number; height: number; rgba: Uint8Array | Uint8ClampedArray } | undefined, missing: string) => {
      const fig = el("figure", "run-figure");
      fig.dataset.backend = backend;
      fig.append(el("figcaption", undefined, title));
      if (img) {
        const box = el("div", "run-canvas-box");
        const c = el("canvas", "run-canvas");
        c.dataset.backend = backend;
        paint(c, img.width, img.height, img.rgba);
        sizeCanvas(c, store.get().run.zoom);
        box.append(c);
        fig.append(box);
      } else fig.append(el("p", "run-draw-missing", missing));
      return fig;
    };
    const why = (r: RunResult | undefined, name: string) =>
      !r ? `${name}: drawing…` : r.error ? `${name} drew no image (${KIND_WORDS[r.error.kind] ?? r.error.kind}): ${r.error.message}` : `${name} drew no image.`;
    figures.append(figure("interp", "Interpreter", a, why(o.interp, "The interpreter")), figure("wgpu", "WebGPU", b, why(o.gpu, "WebGPU")));
    const d = a && b ? difference(a, b) : null;
    let line: HTMLElement;
    if (a && b && !d) line = el("p", "run-summary bad", `The images differ in size or format (${a.width}×${a.height} ${a.format}, ${b.width}×${b.height} ${b.format}).`);
    else if (a && b && d) {
      const total = a.width * a.height;
      line = el(
        "p",
        d.count ? "run-summary bad" : "run-summary good",
        d.count ? `Pixels that differ beyond 1/255 in a channel: ${d.count} of ${total} (marked in the difference view).` : `The interpreter and WebGPU agree on all ${total} pixels (within 1/255).`,
      );
      figures.append(figure("diff", "Difference", { width: a.width, height: a.height, rgba: differenceImage(a, d.mask) }, ""));
    } else line = el("p", "run-summary", "");
    line.id = "run-draw-summary";
    sec.dataset.differ = d ? String(d.count) : "";
    sec.append(bar, pixelLine, line, figures);
    renderPixel(store.get());
    return sec;
  }

  /** The pixel under the pointer: where, and its value in each image. */
  function renderPixel(s: AppState) {
    const h = s.run.hover;
    const o = s.run.shown;
    const a = o?.interp?.image;
    const b = o?.gpu?.image;
    // Three lines of one height whatever they say: a readout that grew
    // would move the images under the pointer.
    let lines: string[];
    if (!h || (!a && !b)) lines = [a || b ? "point at a pixel for its value; click it to trace its path on the CFG" : "", "", ""];
    else {
      const [x, y] = h;
      const part = (name: string, img: DrawImage | undefined) => (img ? `${name}: ${pixelText(img, x, y)}` : `${name}: no image`);
      lines = [`pixel (${x}, ${y})`, part("interpreter", a), part("WebGPU", b)];
    }
    pixelLine.replaceChildren(...lines.map((t) => Object.assign(el("span", "run-pixel-line", t), { title: t })));
  }

  /** What the tests wait on: the panel's state, the reflection shown, the
   *  runs finished. */
  function renderMarkers(s: AppState) {
    const r = s.run;
    root.dataset.state = !entryOf(r) ? "empty" : r.running ? "running" : r.runs > 0 ? "done" : "ready";
    if (r.reflectedVersion >= 0) root.dataset.reflected = String(r.reflectedVersion);
    if (r.runs > 0) root.dataset.runs = String(r.runs);
  }

  const layout = (s: AppState) => [s.run.entries, s.run.entry, s.run.specConstants, s.run.reflectedValid, s.run.bindingNames, s.run.reflectError];
  store.watch(layout, renderInputs);
  store.watch((s) => [...layout(s), s.run.buffers, s.run.lengths, s.run.spec, s.run.workgroups, s.run.draw, s.run.zoom], renderValues);
  store.watch((s) => [...layout(s), s.run.shown], renderMarks);
  store.watch((s) => [s.run.shown, s.run.running, s.run.forced, s.run.views, s.run.engineError], renderResults);
  store.watch((s) => [s.run.hover, s.run.shown], renderPixel);
  store.watch(
    (s) => [s.run.zoom],
    (s) => results.querySelectorAll<HTMLCanvasElement>("canvas.run-canvas").forEach((c) => sizeCanvas(c, s.run.zoom)),
  );
  store.watch((s) => [s.run.entries, s.run.entry, s.run.running, s.run.runs, s.run.reflectedVersion], renderMarkers);
  // The reflection follows the analysis while the panel is open.
  store.watch(
    (s) => [s.report, s.panel],
    (s) => {
      if (s.panel === "run" && s.report) void refresh();
    },
  );
  return {
    last: () => store.get().run.last,
    show: (o) => setRun({ shown: o }),
    inputs: () => requestOf(store.get().run, false),
    setInputs,
  };
}

/** Each bound variable's name as the analysis names it (the text's
 *  spelling, for a text input), by id. */
function namesOf(entries: ReflectedEntry[], ids: IdInfo[]): Record<number, string> {
  const out: Record<number, string> = {};
  const named = new Map(ids.map((i) => [i.id, i.name]));
  for (const e of entries)
    for (const res of e.resources) {
      const name = named.get(res.variable);
      if (name !== undefined) out[res.variable] = `%${name}`;
    }
  return out;
}

/** Core's typed text of each value of a buffer, by its path. */
function typedTexts(b: RunBuffer | undefined): Map<string, string> | undefined {
  return b && new Map(leaves(b.value).map((l) => [l.path, l.text]));
}

/** A canvas's CSS size at `zoom` (its pixels drawn as squares: the
 *  stylesheet sets image-rendering: pixelated). */
function sizeCanvas(c: HTMLCanvasElement, zoom: number) {
  c.style.width = `${c.width * zoom}px`;
  c.style.height = `${c.height * zoom}px`;
}

/** The draw fields a failure is about (DrawFields keys), from the plan's
 *  limit error: the side or the grid it names. */
function drawFieldsAt(f: RunFailure | undefined): string[] {
  if (f?.plan?.error !== "tooLarge") return [];
  const what = f.plan.what;
  if (what === "framebuffer width") return ["width"];
  if (what === "framebuffer height") return ["height"];
  if (what.startsWith("grid cells")) return ["columns", "rows"];
  return ["width", "height"];
}

/** Mark a field invalid with `message` as its title, or clear the mark. */
function mark(input: HTMLInputElement, message: string | undefined, title: string) {
  if (message === undefined) {
    input.removeAttribute("aria-invalid");
    input.title = title;
  } else {
    input.setAttribute("aria-invalid", "true");
    input.title = message;
  }
}

/** The spec field a failure is about (its SpecId), from the plan's error. */
function specField(f: RunFailure | undefined): string | undefined {
  return f?.plan?.error === "badSpec" ? String(f.plan.id) : undefined;
}

/** The buffer field a failure is about (its binding key, or "push"), from
 *  the plan's error. */
function bufferField(f: RunFailure | undefined): string | undefined {
  return f?.plan?.error === "badInput" ? f.plan.slot : undefined;
}

const KIND_WORDS: Record<string, string> = {
  input: "input error",
  module: "nothing to run",
  interp: "the interpreter stopped",
  stepBudget: "step budget",
  refused: "refused by our WGSL lowering",
  noDevice: "no WebGPU",
  unsupported: "beyond the GPU runner",
  validation: "WebGPU rejected the shader",
  deviceLost: "device lost",
  timeout: "timeout",
  panic: "engine panic",
};
