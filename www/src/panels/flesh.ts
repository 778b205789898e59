// The Flesh tab (the paper's section 6 as a view of core's `flesh`, the same
// calls as `spvlab gen-cfg` and `spvlab flesh`): "Flesh and run" turns the
// function the CFG panel shows (else the first) into a program forced along
// a random path that records it (web/src/flesh.rs, `session.flesh`), runs it
// on the interpreter and on WebGPU through the Run tab's own calls (the
// worker's `run` / `runGpu`, on the fleshed program's session), and says
// pass or fail per backend: pass when the output buffer holds exactly the
// expected path. The path can be played on the CFG (the CFG panel's path
// view), opened as a module, shared, or downloaded as an Amber test.
// "Generate random CFG" puts a new structured CFG in the editor. The quiz
// (teach/quiz.ts) sits below. Everything the panel holds is
// `AppState.flesh`; engine strings go into textContent only.
import type { FleshFailure, FleshMode, FleshProgram, FleshRequest, RunRequest, RunResult } from "../api";
import type { CfgPanel } from "../cfg";
import { button, byId, downloadText, el } from "../dom";
import type { Engine } from "../engine";
import { plainUrl } from "../share";
import { errorText, type AppStore, type FleshState } from "../state";
import { mountQuiz } from "../teach/quiz";

/** What the panel needs from the page. */
export interface FleshHost {
  cfg: CfgPanel;
  /** Put a module in the editor (one undoable edit), in this environment. */
  load(text: string, targetEnv?: string): void;
}

/** A backend's verdict on a fleshed program's run. */
export interface Verdict {
  verdict: "pass" | "fail" | "error" | "unavailable" | "waiting";
  /** What to show under it: the failure, or each differing invocation's
   *  expected and actual paths. */
  lines: string[];
}

/** The u32 words of the run's buffer at `slot` ("SET.BINDING"). */
function wordsAt(r: RunResult, slot: string): number[] | undefined {
  const b = r.buffers.find((x) => `${x.set}.${x.binding}` === slot);
  if (!b) return undefined;
  const out: number[] = [];
  for (let i = 0; i + 4 <= b.bytes.length; i += 4) out.push((b.bytes[i] | (b.bytes[i + 1] << 8) | (b.bytes[i + 2] << 16) | (b.bytes[i + 3] << 24)) >>> 0);
  return out;
}

/** Pass when the output buffer equals the expected path, word for word. */
export function verdictOf(p: FleshProgram, r: RunResult | null): Verdict {
  if (!r) return { verdict: "waiting", lines: [] };
  if (!r.ok) {
    const e = r.error;
    return { verdict: e?.kind === "noDevice" ? "unavailable" : "error", lines: [`${e?.kind ?? "error"}: ${e?.message ?? "the run failed"}`] };
  }
  const got = wordsAt(r, p.output);
  if (!got) return { verdict: "error", lines: [`the run has no buffer ${p.output}`] };
  const names = new Map(p.names.map((b) => [b.id, b.name]));
  const path = (ws: number[]) => {
    const end = ws.indexOf(0);
    return (end < 0 ? ws : ws.slice(0, end)).map((w) => names.get(w) ?? String(w)).join(" ") || "(nothing)";
  };
  const lines: string[] = [];
  const stride = Math.max(1, p.outputStride);
  for (let i = 0; i < p.paths.length; i++) {
    const want = p.expected.slice(i * stride, (i + 1) * stride);
    const have = got.slice(i * stride, (i + 1) * stride);
    if (want.length === have.length && want.every((w, k) => w === have[k])) continue;
    const who = p.paths.length > 1 ? `invocation ${i}: ` : "";
    lines.push(`${who}expected ${path(want)}`, `${who}actual   ${path(have)}`);
  }
  if (got.length !== p.expected.length && lines.length === 0) lines.push(`the output has ${got.length} words, ${p.expected.length} expected`);
  return { verdict: lines.length === 0 ? "pass" : "fail", lines };
}

function labelled(text: string, input: HTMLElement): HTMLLabelElement {
  const l = el("label", "flesh-field", text);
  l.append(input);
  return l;
}

function numberField(id: string, value: number, min: number, max: number): HTMLInputElement {
  const i = el("input");
  i.type = "number";
  i.id = id;
  i.min = String(min);
  i.max = String(max);
  i.value = String(value);
  i.className = "flesh-number";
  return i;
}


/** A field's whole number within [min, max], else `fallback`. */
function wholeNumber(i: HTMLInputElement, fallback: number): number {
  const n = Math.floor(Number(i.value));
  return Number.isFinite(n) ? Math.max(Number(i.min), Math.min(Number(i.max), n)) : fallback;
}

/** The failure, in the panel: core's reason, its block, and an invalid
 *  module's diagnostics. */
function failureView(f: FleshFailure): HTMLElement {
  const box = el("div", "flesh-failure");
  box.id = "flesh-failure";
  box.dataset.stage = f.stage;
  if (f.stage !== "noModule") box.dataset.error = f.error.error;
  box.append(el("p", "flesh-failure-message", f.message));
  if (f.stage !== "noModule" && f.block) box.dataset.block = String(f.block.id);
  if (f.stage === "skeleton" && f.diagnostics.length > 0) {
    const list = el("ul", "flesh-diagnostics");
    for (const d of f.diagnostics) {
      const li = el("li", `flesh-diag ${d.severity}`);
      li.dataset.code = d.code;
      const at = d.range ? `${d.range.line}:${d.range.column} ` : "";
      li.append(el("span", "loc", at), el("span", "code", d.code), document.createTextNode(" "), el("span", "msg", d.message));
      list.append(li);
    }
    box.append(el("p", "flesh-note", "Only a valid module's control flow is fleshed; the validator says:"), list);
  }
  return box;
}

export function mountFlesh(store: AppStore, engine: Engine, host: FleshHost) {
  const root = byId("panel-flesh");

  // ---- Flesh this module
  const mode = el("select");
  mode.id = "flesh-mode";
  for (const [v, t] of [
    ["basic", "basic (variables)"],
    ["phi", "phi (OpPhi indices)"],
    ["multi", "multi (4 invocations, 4 paths)"],
  ])
    mode.add(new Option(t, v));
  const seed = numberField("flesh-seed", 1, 0, 2 ** 32 - 1);
  const go = button("flesh-go", "Flesh and run", "flesh the function the CFG panel shows (else the first) and run it on every backend");
  const target = el("span", "flesh-target");
  target.id = "flesh-function";
  const head = el("div", "flesh-head");
  head.append(go, labelled("mode", mode), labelled("seed", seed), target);
  const status = el("div", "flesh-status");
  status.id = "flesh-status";
  status.setAttribute("role", "status");
  const result = el("div", "flesh-result");
  result.id = "flesh-result";
  const show = button("flesh-show-path", "Play path on the CFG", "open the CFG and step through the chosen path");
  const open = button("flesh-open", "Open as module", "put the fleshed program in the editor (one edit: undo brings your text back)");
  const share = button("flesh-share", "Share link", "a link to the fleshed program with its inputs in the Run tab");
  const amber = button("flesh-amber", "Download Amber", "the program as an AmberScript test (its EXPECT line is the path)");
  const actions = el("div", "flesh-actions");
  actions.append(show, open, share, amber);
  const link = el("input", "flesh-link");
  link.id = "flesh-link";
  link.readOnly = true;
  link.setAttribute("aria-label", "share link of the fleshed program");
  const fleshSection = el("section", "flesh-section");
  fleshSection.setAttribute("aria-label", "flesh this module");
  fleshSection.append(el("h3", "", "Flesh this module"), head, status, actions, link, result);

  // ---- Generate random CFG
  const blocks = numberField("gen-blocks", 14, 2, 200);
  const depth = numberField("gen-depth", 4, 0, 10);
  const genSeed = numberField("gen-seed", 1, 0, 2 ** 32 - 1);
  const gen = button("gen-go", "Generate random CFG", "put a new random structured CFG in the editor (undo brings your text back)");
  const genHead = el("div", "flesh-head");
  genHead.append(gen, labelled("blocks", blocks), labelled("depth", depth), labelled("seed", genSeed));
  const genSection = el("section", "flesh-section");
  genSection.setAttribute("aria-label", "generate a random CFG");
  genSection.append(el("h3", "", "Generate random CFG"), genHead);

  const quizSection = el("section", "flesh-section");
  quizSection.id = "flesh-quiz";
  quizSection.setAttribute("aria-label", "quiz");
  root.append(fleshSection, genSection, quizSection);
  mountQuiz(quizSection, store, engine);

  const flesh = (patch: Partial<FleshState>) => store.update({ flesh: { ...store.get().flesh, ...patch } });
  let token = 0;

  /** The function to flesh: the CFG panel's, when the report has it. */
  function functionId(): number | undefined {
    const s = store.get();
    const fn = host.cfg.currentFunction() ?? s.cfgFunction;
    return s.report?.functions.some((f) => f.id === fn) ? fn : undefined;
  }

  async function fleshAndRun() {
    const mine = ++token;
    const request: FleshRequest = { function: functionId(), seed: wholeNumber(seed, 1), mode: mode.value as FleshMode };
    flesh({ request, outcome: null, interp: null, gpu: null, busy: true, share: null, error: null });
    try {
      const { outcome } = await engine.send({ kind: "flesh", request });
      if (mine !== token) return;
      flesh({ outcome });
      const p = outcome.program;
      if (!p) return;
      const run: RunRequest = { workgroups: p.workgroups, buffers: p.buffers };
      const interp = engine.send({ kind: "run", request: run, program: "flesh" }).then((r) => mine === token && flesh({ interp: r.result }));
      const gpu = engine.send({ kind: "runGpu", request: run, program: "flesh" }).then((r) => mine === token && flesh({ gpu: r.result }));
      await Promise.all([interp, gpu]);
    } catch (e) {
      if (mine === token) flesh({ error: errorText(e) });
      else console.warn("spvlab: a fleshing a newer one replaced failed", e);
    } finally {
      if (mine === token) flesh({ busy: false, done: store.get().flesh.done + 1 });
    }
  }

  const program = () => store.get().flesh.outcome?.program;
  go.addEventListener("click", () => void fleshAndRun());
  for (const i of [seed, mode])
    i.addEventListener("keydown", (ev) => {
      if ((ev as KeyboardEvent).key === "Enter") void fleshAndRun();
    });
  show.addEventListener("click", () => {
    const p = program();
    if (!p) return;
    store.update({ panel: "cfg" });
    host.cfg.showPath(p.function, p.paths[0]?.blocks.map((b) => b.id) ?? [], `the fleshed program's directions (seed ${store.get().flesh.request?.seed ?? 1})`, true);
  });
  open.addEventListener("click", () => {
    const p = program();
    if (p) host.load(p.text, p.targetEnv);
  });
  amber.addEventListener("click", () => {
    const p = program();
    if (p) downloadText(`fleshed-${p.mode}-${store.get().flesh.request?.seed ?? 1}.amber`, "text/plain", p.amber);
  });
  share.addEventListener("click", async () => {
    const p = program();
    if (!p) return;
    try {
      const r = await engine.send({ kind: "encodeShare", state: p.share });
      flesh({ share: `${plainUrl()}#${r.fragment}` });
      link.focus();
      link.select();
    } catch (e) {
      flesh({ error: `could not make a link: ${errorText(e)}` });
    }
  });
  async function generate() {
    const request = { seed: wholeNumber(genSeed, 1), blocks: wholeNumber(blocks, 14), depth: wholeNumber(depth, 4) };
    try {
      const { generated } = await engine.send({ kind: "generateCfg", request });
      host.load(generated.text);
      store.update({ status: { text: `generated a random CFG: ${generated.blocks} blocks, seed ${generated.seed}`, tone: "" } });
    } catch (e) {
      store.update({ status: { text: `engine error: ${errorText(e)}`, tone: "error" } });
    }
  }
  gen.addEventListener("click", () => void generate());
  for (const i of [blocks, depth, genSeed])
    i.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") void generate();
    });

  // ---- renders from the state
  store.watch(
    (s) => [s.report, s.cfgFunction],
    (s) => {
      const fn = functionId();
      const f = s.report?.functions.find((x) => x.id === fn) ?? s.report?.functions.find((x) => x.blocks.length > 0);
      target.textContent = f ? `function %${f.name}` : "no function yet";
    },
  );
  store.watch(
    (s) => [s.flesh.outcome, s.flesh.interp, s.flesh.gpu, s.flesh.busy, s.flesh.error, s.flesh.share],
    (s) => render(s.flesh),
  );

  function render(f: FleshState) {
    const p = f.outcome?.program;
    for (const b of [show, open, share, amber]) b.disabled = !p;
    link.hidden = f.share === null;
    link.value = f.share ?? "";
    root.dataset.busy = String(f.busy);
    root.dataset.done = String(f.done);
    result.replaceChildren();
    if (f.error) status.textContent = `engine error: ${f.error}`;
    else if (f.busy && !f.outcome) status.textContent = "fleshing…";
    else if (f.outcome?.failure) status.textContent = "not fleshed:";
    else if (p) {
      const steps = p.paths.map((x) => x.blocks.length);
      status.textContent = `${p.mode}: ${p.paths.length === 1 ? `a path of ${steps[0]} blocks` : `${p.paths.length} paths of ${steps.join(", ")} blocks`}${f.busy ? " · running…" : ""}`;
    } else status.textContent = "";
    if (f.outcome?.failure) {
      result.append(failureView(f.outcome.failure));
      return;
    }
    if (!p) return;
    const path = el("p", "flesh-path");
    path.id = "flesh-path";
    path.textContent = `path: ${p.paths[0]?.blocks.map((b) => b.name).join(" → ") ?? ""}`;
    const table = el("table", "flesh-backends");
    table.id = "flesh-backends";
    const headRow = el("tr");
    headRow.append(el("th", "", "backend"), el("th", "", "verdict"), el("th", "", "details"));
    table.append(headRow);
    for (const [key, label, r] of [
      ["interp", "interpreter", f.interp],
      ["wgpu", "WebGPU (our WGSL)", f.gpu],
    ] as const) {
      const v = verdictOf(p, r);
      const tr = el("tr", `flesh-backend ${v.verdict}`);
      tr.dataset.backend = key;
      tr.dataset.verdict = v.verdict;
      const words = { pass: "pass", fail: "FAIL", error: "error", unavailable: "not available", waiting: "running…" }[v.verdict];
      const details = el("td", "flesh-details");
      if (v.verdict === "unavailable") details.append(el("div", "", "This browser has no WebGPU, so only the interpreter ran."));
      for (const l of v.lines) details.append(el("div", "flesh-line", l));
      if (r?.adapter) details.append(el("div", "flesh-adapter", r.adapter));
      tr.append(el("td", "", label), el("td", "flesh-verdict", words), details);
      table.append(tr);
    }
    result.append(path, table);
  }
}
