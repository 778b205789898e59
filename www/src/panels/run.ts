// The Run panel (issue 12, first slice): the inputs come from core's
// reflection of the last analysis (one row per bound buffer, the push
// constants, the dispatch size); Run sends the module to the interpreter
// (`session.run`) and to WebGPU (`session.runGpu`), both in the engine's
// worker, so the editor never waits. The results are shown side by side, per
// binding, one row per typed value, with the cells where the backends differ
// marked. Errors are located (a button jumps to the line); a module the
// interpreter does not finish is not dispatched unless the user says so.
// Engine strings are untrusted: textContent only.
import type { ReflectedEntry, ReflectedResource, ReflectedSpecConstant, RunFailure, RunRequest, RunResult } from "../api";
import { byId, el } from "../dom";
import type { Engine } from "../engine";
import type { AppStore } from "../state";
import { DEFAULT_LENGTH, defaultInput, inputsOf, keyOf, leafBits, leaves, sameBits, sizeText, typeName, viewText, withLength } from "./run-values";
import type { View } from "./run-values";

/** Rows shown per binding (a big buffer says how many were left out). */
const MAX_ROWS = 1024;

/** What the page's tests read: the last results and their times. */
export interface RunOutcome {
  request: RunRequest;
  interp?: RunResult;
  gpu?: RunResult;
  interpMs?: number;
  gpuMs?: number;
}

export interface RunPanel {
  /** The last run (null before the first). */
  last(): RunOutcome | null;
  /** Show these results (what a run shows; the tests feed it results that
   *  differ). */
  show(o: RunOutcome): void;
  /** Amber files and share links (run-amber.ts): the inputs as a run would
   *  send them, and setting them (the fields follow the next reflection). */
  inputs(): RunRequest;
  setInputs(req: RunRequest): void;
}

/** One input row's fields. */
interface Row {
  resource: ReflectedResource;
  input: HTMLInputElement;
  length?: HTMLInputElement;
}

export function mountRun(store: AppStore, engine: Engine, jump: (line: number, column: number) => void): RunPanel {
  const root = byId("panel-run");
  root.dataset.state = "empty";
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
  head.append(entryLabel, entrySelect, groupsLabel, ...dims, localSize, runBtn, resetBtn);
  const note = el("p", "run-note");
  const inputs = el("table", "run-inputs");
  inputs.id = "run-inputs";
  const specs = el("table", "run-specs");
  specs.id = "run-specs";
  const results = el("div", "run-results");
  results.id = "run-results";
  results.setAttribute("aria-live", "polite");
  root.append(head, note, inputs, specs, results);

  let entries: ReflectedEntry[] = [];
  let rows: Row[] = [];
  /** The module's settable spec constants and their fields. */
  let specConsts: ReflectedSpecConstant[] = [];
  let specRows: { sc: ReflectedSpecConstant; input: HTMLInputElement }[] = [];
  /** The user's spec values by SpecId (kept while the SpecId stays). */
  const specTyped = new Map<number, string>();
  /** Each result table's view (typed, hex, float bits), by binding key. */
  const views = new Map<string, View>();
  /** The outcome on show (a view toggle draws it again). */
  let shown: RunOutcome | null = null;
  /** The user's inputs by binding key (kept while the binding stays). */
  const typed = new Map<string, string>();
  const lengths = new Map<string, string>();
  let last: RunOutcome | null = null;
  /** The last finished run (a forced dispatch keeps its interpreter result). */
  let previous: RunOutcome | null = null;
  let reflected = -1;
  let runId = 0;
  /** Set by setInputs: the entry point to pick (spec values go to specTyped). */
  let wantEntry: string | undefined;

  const entry = () => entries.find((e) => e.name === entrySelect.value) ?? entries[0];

  function renderInputs() {
    const e = entry();
    inputs.replaceChildren();
    rows = [];
    runBtn.disabled = !e;
    if (!e) {
      root.dataset.state = "empty";
      note.textContent = store.get().report?.valid
        ? "This module has no GLCompute entry point: only compute shaders run here."
        : "Nothing to run: the module is not valid (see Problems).";
      localSize.textContent = "";
      return;
    }
    root.dataset.state = root.dataset.state === "empty" ? "ready" : root.dataset.state;
    note.textContent = "Inputs in the interpreter's input language: zeros, seq:START,STEP, random:SEED, hex: BYTES, or a typed list such as u32: 1 2 3.";
    const ws = e.workgroupSize;
    localSize.textContent = ws ? `× local size ${ws.x ?? "?"}×${ws.y ?? "?"}×${ws.z ?? "?"}` : "";
    const hr = el("tr");
    for (const h of ["binding", "name", "type", "bytes", "input", "N"]) hr.append(el("th", undefined, h));
    inputs.append(hr);
    inputsOf(e.resources).forEach((r, i) => {
      const key = keyOf(r);
      const tr = el("tr");
      tr.dataset.key = key;
      const input = el("input");
      input.className = "run-input";
      input.dataset.key = key;
      input.spellcheck = false;
      input.value = typed.get(key) ?? defaultInput(r, i);
      input.setAttribute("aria-label", `input of ${key}`);
      input.addEventListener("input", () => typed.set(key, input.value));
      const row: Row = { resource: r, input };
      const lenCell = el("td");
      if (r.runtimeArray) {
        const len = el("input");
        len.type = "number";
        len.min = "0";
        len.className = "run-length";
        len.dataset.key = key;
        len.value = lengths.get(key) ?? String(DEFAULT_LENGTH);
        len.setAttribute("aria-label", `runtime array length of ${key}`);
        len.title = "the runtime array's element count (used by zeros, seq and random without a count)";
        len.addEventListener("input", () => lengths.set(key, len.value));
        lenCell.append(len);
        row.length = len;
      }
      const inCell = el("td");
      inCell.append(input);
      tr.append(
        el("td", "run-key", r.kind === "pushConstant" ? "push" : key),
        el("td", "run-name", r.name || `%${r.variable}`),
        el("td", "run-type", `${r.kind === "uniformBuffer" ? "uniform " : r.kind === "pushConstant" ? "push " : ""}${typeName(r.type)}`),
        el("td", "run-size", sizeText(r)),
        inCell,
        lenCell,
      );
      inputs.append(tr);
      rows.push(row);
    });
    renderSpecs();
  }

  /** One field per settable spec constant: SpecId, name, type, default (an
   *  empty field keeps the default). */
  function renderSpecs() {
    specs.replaceChildren();
    specRows = [];
    specs.hidden = specConsts.length === 0;
    if (!specConsts.length) return;
    const hr = el("tr");
    for (const h of ["SpecId", "name", "type", "default", "value"]) hr.append(el("th", undefined, h));
    specs.append(hr);
    for (const sc of specConsts) {
      const tr = el("tr");
      tr.dataset.specId = String(sc.specId);
      const input = el("input");
      input.className = "run-spec";
      input.dataset.specId = String(sc.specId);
      input.spellcheck = false;
      input.placeholder = sc.default ?? "";
      input.value = specTyped.get(sc.specId) ?? "";
      input.setAttribute("aria-label", `value of spec constant ${sc.specId}`);
      input.title = "empty: the module's default";
      input.addEventListener("input", () => specTyped.set(sc.specId, input.value));
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
      specRows.push({ sc, input });
    }
  }

  function setEntries(list: ReflectedEntry[]) {
    entries = list.filter((e) => e.executionModel === "GLCompute");
    const keep = wantEntry ?? entrySelect.value;
    // A wanted entry point waits for the module that has it.
    if (entries.some((e) => e.name === wantEntry)) wantEntry = undefined;
    entrySelect.replaceChildren(...entries.map((e) => new Option(e.name, e.name)));
    if (entries.some((e) => e.name === keep)) entrySelect.value = keep;
    entrySelect.hidden = entryLabel.hidden = entries.length < 2;
    renderInputs();
  }

  async function refresh() {
    const version = store.get().reportVersion;
    if (version === reflected) return;
    reflected = version;
    try {
      const r = await engine.send({ kind: "reflect" });
      specConsts = r.reflection?.specConstants ?? [];
      setEntries(r.reflection?.entryPoints ?? []);
      root.dataset.reflected = String(version);
    } catch (e) {
      note.textContent = `reflection failed: ${String(e)}`;
    }
  }

  function request(force: boolean): RunRequest {
    const buffers: Record<string, string> = {};
    for (const r of rows) {
      const n = Number(r.length?.value);
      const spec = r.length && Number.isInteger(n) && n >= 0 ? withLength(r.input.value, n) : r.input.value;
      buffers[keyOf(r.resource)] = spec;
    }
    const workgroups = dims.map((d) => Math.max(1, Math.floor(Number(d.value)) || 1)) as [number, number, number];
    const spec: Record<string, string> = {};
    for (const r of specRows) if (r.input.value.trim() !== "") spec[String(r.sc.specId)] = r.input.value.trim();
    return { entry: entry()?.name, workgroups, buffers, ...(Object.keys(spec).length ? { spec } : {}), ...(force ? { force: true } : {}) };
  }

  async function run(force = false) {
    const id = ++runId;
    const req = request(force);
    const outcome: RunOutcome = { request: req };
    last = outcome;
    root.dataset.state = "running";
    results.replaceChildren(el("p", "run-note", force ? "Dispatching on WebGPU…" : "Running…"));
    for (const r of rows) {
      r.input.removeAttribute("aria-invalid");
      r.input.title = "";
    }
    for (const r of specRows) {
      r.input.removeAttribute("aria-invalid");
      r.input.title = "empty: the module's default";
    }
    const shown = () => {
      if (id !== runId) return;
      render(outcome, () => void run(true));
      markInput(outcome.interp?.error ?? outcome.gpu?.error);
    };
    const interp = force
      ? Promise.resolve()
      : engine.send({ kind: "run", request: req }).then((r) => {
          outcome.interp = r.result;
          outcome.interpMs = r.elapsedMs;
          shown();
        });
    const gpu = engine.send({ kind: "runGpu", request: req }).then((r) => {
      outcome.gpu = r.result;
      outcome.gpuMs = r.elapsedMs;
    });
    if (force && previous) {
      outcome.interp = previous.interp;
      outcome.interpMs = previous.interpMs;
    }
    try {
      await Promise.all([interp, gpu]);
    } catch (e) {
      if (id === runId) results.append(el("p", "run-error", `the engine failed: ${String(e)}`));
    }
    if (id !== runId) return;
    shown();
    previous = outcome;
    root.dataset.state = "done";
    root.dataset.runs = String(Number(root.dataset.runs ?? 0) + 1);
    document.dispatchEvent(new CustomEvent("spvlab:run"));
  }
  /** An input error names its buffer (`buffer 0.1 ...`, `push ...`): that
   *  field is marked, with the message as its title. */
  function markInput(f: RunFailure | undefined) {
    if (f?.kind !== "input") return;
    // A spec value's error: `spec 3=x: ...` or `spec `x`: ...`.
    const sid = /^spec (\d+)=/.exec(f.message)?.[1] ?? /^spec `([^`]*)`/.exec(f.message)?.[1];
    const spec = specRows.find((r) => String(r.sc.specId) === sid?.trim());
    if (spec) {
      spec.input.setAttribute("aria-invalid", "true");
      spec.input.title = f.message;
      return;
    }
    const key = /^buffer (\d+\.\d+)\b/.exec(f.message)?.[1] ?? (/^push\b/.test(f.message) ? "push" : undefined);
    const row = rows.find((r) => keyOf(r.resource) === key);
    if (!row) return;
    row.input.setAttribute("aria-invalid", "true");
    row.input.title = f.message;
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
    box.append(el("div", "run-error-message", f.message));
    return box;
  }

  function column(title: string, r: RunResult | undefined, ms: number | undefined, onForce: () => void): HTMLElement {
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
    if (r.steps !== undefined) h.append(el("span", "run-meta", `${r.invocations} invocations, ${r.steps} steps`));
    if (r.adapter) h.append(el("span", "run-adapter", r.adapter));
    c.append(h);
    if (r.error) {
      c.append(failure(r.error));
      if (r.error.kind === "stepBudget" && c.dataset.backend === "wgpu") {
        const go = el("button", "run-force", "Dispatch anyway");
        go.title = "send the module to the GPU although the interpreter did not finish it (it may hang the GPU until the browser gives up)";
        go.addEventListener("click", onForce);
        c.append(go);
      }
      if (c.dataset.backend === "wgpu" && (r.error.kind === "refused" || r.error.kind === "noDevice"))
        c.append(el("p", "run-note", "Not run on WebGPU; the interpreter's result stands alone."));
    }
    return c;
  }

  function render(o: RunOutcome, onForce: () => void) {
    shown = o;
    const cols = el("div", "run-columns");
    cols.append(column("Interpreter", o.interp, o.interpMs, onForce), column("WebGPU", o.gpu, o.gpuMs, onForce));
    const tables = el("div", "run-tables");
    const a = o.interp?.ok ? o.interp : undefined;
    const b = o.gpu?.ok ? o.gpu : undefined;
    const list = a ?? b;
    let differing = 0;
    for (const buf of list?.buffers ?? []) {
      const key = `${buf.set}.${buf.binding}`;
      const ba = a?.buffers.find((x) => x.set === buf.set && x.binding === buf.binding);
      const bb = b?.buffers.find((x) => x.set === buf.set && x.binding === buf.binding);
      const la = ba ? leaves(ba.value) : [];
      const lb = bb ? leaves(bb.value) : [];
      const n = Math.max(la.length, lb.length);
      // Each leaf's bits, from the binding's reflected type.
      const ty = entry()?.resources.find((r) => r.kind !== "pushConstant" && r.set === buf.set && r.binding === buf.binding)?.type;
      const bits = ty ? leafBits(ty, buf.bytes.length) : new Map();
      const view = views.get(key) ?? "typed";
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
      for (const [v, words] of [["typed", "typed"], ["hex", "hex"], ["float", "float bits"]] as [View, string][]) {
        const btn = el("button", "run-view", words);
        btn.dataset.view = v;
        btn.setAttribute("aria-pressed", String(v === view));
        btn.addEventListener("click", () => {
          views.set(key, v);
          if (shown) render(shown, onForce);
        });
        toggle.append(btn);
      }
      h.append(toggle);
      sec.append(h);
      const t = el("table", "run-values");
      const hr = el("tr");
      hr.append(el("th", undefined, "value"), el("th", undefined, "interpreter"), el("th", undefined, "WebGPU"));
      t.append(hr);
      for (let i = 0; i < Math.min(n, MAX_ROWS); i++) {
        const path = (la[i] ?? lb[i]).path;
        const at = bits.get(path);
        const tr = el("tr");
        tr.dataset.path = path;
        const text = (leaf: { text: string } | undefined, bytes: number[] | undefined) =>
          leaf ? ((bytes && viewText(bytes, at, view)) ?? leaf.text) : "";
        const ca = el("td", "cell", text(la[i], ba?.bytes));
        ca.dataset.backend = "interp";
        const cb = el("td", "cell", text(lb[i], bb?.bytes));
        cb.dataset.backend = "wgpu";
        // Differ: the leaf's bytes where its place is known, else its text.
        const differ = ba && bb && (at ? !sameBits(ba.bytes, bb.bytes, at) : la[i]?.text !== lb[i]?.text);
        if (differ) {
          tr.classList.add("differ");
          differing++;
        }
        tr.append(el("td", "run-path", path), ca, cb);
        t.append(tr);
      }
      sec.append(t);
      if (n > MAX_ROWS) sec.append(el("p", "run-note", `${n - MAX_ROWS} more values not shown.`));
      tables.append(sec);
    }
    results.dataset.differ = String(differing);
    const summary =
      a && b
        ? el("p", differing ? "run-summary bad" : "run-summary good", differing ? `Values that differ between the interpreter and WebGPU: ${differing} (marked).` : "The interpreter and WebGPU agree.")
        : el("p", "run-summary", "");
    results.replaceChildren(cols, summary, tables);
  }

  runBtn.addEventListener("click", () => void run());
  resetBtn.addEventListener("click", () => {
    typed.clear();
    lengths.clear();
    specTyped.clear();
    for (const d of dims) d.value = "1";
    renderInputs();
  });
  entrySelect.addEventListener("change", renderInputs);
  root.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.target as HTMLElement).matches("input.run-input, input.run-length, input.run-dim")) {
      ev.preventDefault();
      void run();
    }
  });
  // The reflection follows the analysis while the panel is open.
  store.watch(
    (s) => [s.report, s.panel],
    (s) => {
      if (s.panel === "run" && s.report) void refresh();
    },
  );
  return {
    last: () => last,
    show: (o) => render(o, () => void run(true)),
    inputs: () => request(false),
    setInputs: (req) => setInputs(req),
  };

  function setInputs(req: RunRequest) {
    typed.clear();
    lengths.clear();
    for (const [k, v] of Object.entries(req.buffers ?? {})) typed.set(k, v);
    (req.workgroups ?? [1, 1, 1]).forEach((n, i) => (dims[i].value = String(n)));
    specTyped.clear();
    for (const [k, v] of Object.entries(req.spec ?? {})) specTyped.set(Number(k), v);
    wantEntry = req.entry;
    if (req.entry && entries.some((e) => e.name === req.entry)) entrySelect.value = req.entry;
    reflected = -1;
    renderInputs();
  }
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
