// The CFG panel's path view: pick an
// invocation (by id in the path bar, by clicking a cell of an output buffer
// in the Run tab, or a pixel of a draw's image there: the fragment [x, y, 0]),
// and the interpreter's trace of it is drawn on the graph:
// the blocks and edges it visited (edges weighted by count, the rest dimmed).
// A step control walks the path block by block (the panel highlights the
// block on the graph and its lines in the editor); a heat view shows the edge
// counts over all invocations. When a step leaves a construct, a note says
// which merge or continue edge structured control flow implies for it, beside
// the branch that was taken.
//
// The trace is core's (interp::TraceReport, through `session.run` with the
// request's `paths` and `edges`): nothing here re-derives a path. Names are
// untrusted: textContent only.
import type { AnalyzeReport, CfgConstruct, FunctionCfg, RunRequest, RunResult, TraceBlock } from "../api";

/** The document event that carries a chosen invocation `[x, y, z]`. */
export const INVOCATION_EVENT = "spvlab:invocation";
/** The document event that asks for an invocation's path on the CFG (a
 *  pixel of the Run tab's draw: `[x, y, 0]`). */
export const TRACE_EVENT = "spvlab:trace";

export type PathMode = "off" | "path" | "heat";
export type Invocation = [number, number, number];

/** What the path view needs from the page. */
export interface PathHost {
  /** The request the Run tab ran last (its inputs and dispatch), if any. */
  runRequest(): RunRequest | undefined;
  /** The interpreter's run of the last analysis. */
  run(request: RunRequest): Promise<RunResult>;
  report(): AnalyzeReport | undefined;
  /** The disassembly of the engine's latest analysis, the module a run runs:
   *  the drawing's report() can lag behind it (the graph waits while the
   *  user types, and a new text's layout takes a moment). */
  module(): string | undefined;
  /** Show this step's block: its function drawn, the block selected (on the
   *  graph and in the editor). */
  showBlock(b: TraceBlock): void;
  /** Put the marks on the drawing again. */
  redraw(): void;
  /** Bring the CFG panel forward (a cell of the Run tab was clicked). */
  reveal(): void;
}

/** The longest path expanded for stepping (a longer one is cut, and says so). */
const MAX_STEPS = 100_000;

/** A trace as the view keeps it. */
interface Traced {
  invocation: Invocation;
  /** The path's blocks in order (expanded, at most MAX_STEPS). */
  blocks: TraceBlock[];
  /** The whole path's length (before any cut). */
  length: number;
  /** Edge counts of this invocation: "fn:from:to" -> count. */
  mine: Map<string, number>;
  /** Edge counts over all invocations: "fn:from:to" -> count. */
  all: Map<string, number>;
  invocations: number;
  /** Where the run's inputs came from, in words. */
  inputs: string;
  error?: string;
}

const edgeKey = (f: number, a: number, b: number) => `${f}:${a}:${b}`;

function button(text: string, id: string, title: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.id = id;
  b.title = title;
  return b;
}

function numberInput(id: string, label: string): HTMLInputElement {
  const i = document.createElement("input");
  i.type = "number";
  i.min = "0";
  i.value = "0";
  i.id = id;
  i.className = "path-id";
  i.setAttribute("aria-label", label);
  return i;
}

/** The heat colour of a fraction in [0, 1] (pale yellow to red). */
export function heatColor(t: number): string {
  const x = Math.max(0, Math.min(1, t));
  return `hsl(${Math.round(55 - 55 * x)}, 95%, ${Math.round(82 - 32 * x)}%)`;
}

/**
 * Which invocation wrote the cell at `cellPath` ("block[5]", "data[3].x") of
 * buffer `bufKey` ("0.1"): when the module indexes that buffer by
 * GlobalInvocationId.x (an access chain on the buffer's variable with the x
 * of a load of the built-in as an index), element i was written by
 * invocation (i, 0, 0). Otherwise null (the path bar's id stands). Read from
 * the report's canonical disassembly.
 */
export function invocationOfCell(report: AnalyzeReport | undefined, bufKey: string, cellPath: string): Invocation | null {
  const m = /\[(\d+)\]/.exec(cellPath);
  if (!report || !m) return null;
  const [set, binding] = bufKey.split(".").map(Number);
  const lines = report.disassembly.split("\n").map((l) => l.trim());
  const vars = new Set<string>();
  const sets = new Map<string, number>();
  const bindings = new Map<string, number>();
  for (const l of lines) {
    let d = /^OpDecorate (%\S+) BuiltIn GlobalInvocationId$/.exec(l);
    if (d) vars.add(d[1]);
    d = /^OpDecorate (%\S+) DescriptorSet (\d+)$/.exec(l);
    if (d) sets.set(d[1], Number(d[2]));
    d = /^OpDecorate (%\S+) Binding (\d+)$/.exec(l);
    if (d) bindings.set(d[1], Number(d[2]));
  }
  const buffer = [...sets.keys()].find((v) => sets.get(v) === set && bindings.get(v) === binding);
  if (!buffer || vars.size === 0) return null;
  // Loads of the built-in (or of its x through an access chain), then x.
  const loads = new Set<string>();
  const xs = new Set<string>();
  for (const l of lines) {
    const ld = /^(%\S+) = OpLoad %\S+ (%\S+)/.exec(l);
    if (ld && vars.has(ld[2])) loads.add(ld[1]);
    const ac = /^(%\S+) = OpAccessChain %\S+ (%\S+) (%\S+)$/.exec(l);
    if (ac && vars.has(ac[2]) && /^%(uint|int)_0$/.test(ac[3])) vars.add(`x:${ac[1]}`);
  }
  for (const l of lines) {
    const ex = /^(%\S+) = OpCompositeExtract %\S+ (%\S+) 0$/.exec(l);
    if (ex && loads.has(ex[2])) xs.add(ex[1]);
    const ld = /^(%\S+) = OpLoad %\S+ (%\S+)/.exec(l);
    if (ld && vars.has(`x:${ld[2]}`)) xs.add(ld[1]);
  }
  for (const l of lines) {
    const ac = /^%\S+ = OpAccessChain %\S+ (%\S+)((?: %\S+)+)$/.exec(l);
    if (ac && ac[1] === buffer && ac[2].trim().split(" ").some((i) => xs.has(i))) return [Number(m[1]), 0, 0];
  }
  return null;
}

/** The note for a step from `a` to `b` in function `f`: each construct it
 *  leaves, with the merge or continue edge structured control flow implies
 *  for it, beside the branch taken. Also the implied edges, to mark. */
export function leavingNote(f: FunctionCfg, a: number, b: number): { lines: string[]; implied: [number, number, string][] } {
  const name = (id: number) => `%${f.blocks.find((x) => x.id === id)?.name ?? id}`;
  const edgeFrom = (h: number, kind: string) => f.edges.find((e) => e.from === h && e.kind === kind)?.to;
  const lines: string[] = [];
  const implied: [number, number, string][] = [];
  const left = f.constructs
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.blocks.includes(a) && !c.blocks.includes(b))
    .sort((x, y) => x.c.blocks.length - y.c.blocks.length);
  const taken = `${name(a)} → ${name(b)}`;
  const loopOf = (c: CfgConstruct) => f.edges.find((e) => e.kind === "continue" && e.to === c.header)?.from;
  for (const { c } of left) {
    const h = c.header;
    if (c.kind === "continue") {
      const loop = loopOf(c);
      if (loop === undefined) continue;
      const merge = edgeFrom(loop, "merge");
      if (b === loop) {
        lines.push(`Leaves the continue construct of ${name(h)} by the back edge ${taken} to the loop header (the continue edge ${name(loop)} → ${name(h)} is what made it the continue target).`);
        implied.push([loop, h, "continue"]);
      } else {
        lines.push(`Leaves the continue construct of ${name(h)} without the back edge to ${name(loop)}: taken ${taken}${merge !== undefined ? `; the loop's merge edge ${name(loop)} → ${name(merge)} is the way out structured control flow implies` : ""}.`);
        if (merge !== undefined) implied.push([loop, merge, "merge"]);
      }
      continue;
    }
    if (c.kind === "case") {
      const sw = c.parent !== undefined ? f.constructs[c.parent] : undefined;
      const merge = sw ? edgeFrom(sw.header, "merge") : undefined;
      if (sw && merge !== undefined) {
        lines.push(`Leaves the case construct of ${name(h)}: the switch headed by ${name(sw.header)} implies its merge edge ${name(sw.header)} → ${name(merge)}; taken ${taken}${b === merge ? " (to the merge itself)" : ""}.`);
        implied.push([sw.header, merge, "merge"]);
      }
      continue;
    }
    const merge = edgeFrom(h, "merge");
    if (merge === undefined) continue;
    let why = "";
    if (b === merge) why = " (to the merge itself)";
    else {
      // A break or a continue past the construct, to an enclosing loop.
      for (const o of f.constructs) {
        if (o.kind !== "loop" || !o.blocks.includes(a)) continue;
        if (edgeFrom(o.header, "merge") === b) why = ` (a break to the merge of the loop headed by ${name(o.header)})`;
        if (edgeFrom(o.header, "continue") === b) why = ` (a continue to the continue target of the loop headed by ${name(o.header)})`;
      }
    }
    lines.push(`Leaves the ${c.kind} construct headed by ${name(h)}: structured control flow implies its merge edge ${name(h)} → ${name(merge)}; the branch taken is ${taken}${why}.`);
    implied.push([h, merge, "merge"]);
  }
  return { lines, implied };
}

export interface PathView {
  /** The bar (invocation, mode, step control) and the note. */
  element: HTMLElement;
  legend: HTMLElement;
  /** Put the view's marks on a drawing of function `fn`. */
  apply(svg: SVGSVGElement, fn: number | undefined): void;
  /** Trace this invocation (the Run tab's last inputs) and draw its path. */
  pick(inv: Invocation): Promise<void>;
  /** A new analysis: a trace of another module is dropped. */
  update(report: AnalyzeReport): void;
  /** Draw a path known without a run (a fleshed program's: the blocks its
   *  output records), `inputs` saying where it comes from; `play` steps
   *  through it block by block until its end (a step key or button, or
   *  another pick, stops it). */
  show(blocks: TraceBlock[], inputs: string, play: boolean): void;
}

/** How long a played path stays on each block (ms). */
const PLAY_MS = 450;

export function mountPathView(root: HTMLElement, host: PathHost): PathView {
  const bar = document.createElement("div");
  bar.className = "path-bar";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "path of an invocation");
  const label = document.createElement("span");
  label.className = "path-label";
  label.textContent = "Path of invocation";
  const ids = ["x", "y", "z"].map((a) => numberInput(`path-${a}`, `invocation ${a}`));
  const go = button("Trace", "path-trace", "run the interpreter with the Run tab's inputs and record this invocation's path");
  const mode = document.createElement("select");
  mode.id = "path-mode";
  mode.setAttribute("aria-label", "what to draw");
  mode.append(new Option("no path", "off"), new Option("path", "path"), new Option("heat (all invocations)", "heat"));
  mode.value = "off";
  const first = button("«", "path-first", "first block (Home)");
  const prev = button("‹", "path-prev", "previous block (, or [)");
  const next = button("›", "path-next", "next block (. or ])");
  const last = button("»", "path-last", "last block (End)");
  const pos = document.createElement("span");
  pos.id = "path-pos";
  pos.className = "path-pos";
  pos.setAttribute("aria-live", "polite");
  bar.append(label, ...ids, go, mode, first, prev, next, last, pos);
  const note = document.createElement("div");
  note.id = "path-note";
  note.className = "path-note";
  note.hidden = true;
  const element = document.createElement("div");
  element.className = "path-view";
  element.append(bar, note);
  const legend = document.createElement("div");
  legend.id = "path-legend";
  legend.className = "path-legend";
  legend.hidden = true;

  let traced: Traced | undefined;
  let step = 0;
  let implied: [number, number, string][] = [];
  let disasm: string | undefined;
  let token = 0;
  let playing: ReturnType<typeof setInterval> | undefined;

  function stop() {
    if (playing !== undefined) clearInterval(playing);
    playing = undefined;
    delete root.dataset.pathPlaying;
  }

  const fnCfg = (id: number) => host.report()?.functions.find((f) => f.id === id);
  const blockName = (b: TraceBlock) => fnCfg(b.function)?.blocks.find((x) => x.id === b.label)?.name ?? String(b.label);

  function setMode(m: PathMode) {
    mode.value = m;
    root.dataset.pathMode = m;
    refresh();
  }

  /** The bar, the note and the panel's data attributes, from the state. */
  function refresh() {
    const m = mode.value as PathMode;
    const t = traced;
    const stepping = m === "path" && !!t && t.blocks.length > 0;
    for (const b of [first, prev, next, last]) b.disabled = !stepping;
    root.dataset.pathMode = m;
    root.dataset.pathStep = stepping ? String(step) : "";
    root.dataset.path = t ? t.blocks.map((b) => b.label).join(",") : "";
    implied = [];
    note.hidden = true;
    if (t?.error) pos.textContent = t.error;
    else if (!t) pos.textContent = m === "off" ? "" : "pick an invocation (or click a cell in the Run tab), then Trace";
    else if (m === "heat") pos.textContent = `heat: branch edges over ${t.invocations === 1 ? "the one invocation" : `all ${t.invocations} invocations`}`;
    else if (m === "path" && t.blocks.length > 0) {
      const cut = t.length > t.blocks.length ? ` (first ${t.blocks.length} of ${t.length})` : "";
      pos.textContent = `(${t.invocation.join(",")}) block ${step + 1} of ${t.length}${cut}: %${blockName(t.blocks[step])}`;
      pos.title = `traced with ${t.inputs}`;
      const a = t.blocks[step - 1];
      const b = t.blocks[step];
      const f = a && a.function === b.function ? fnCfg(b.function) : undefined;
      if (f) {
        const n = leavingNote(f, a.label, b.label);
        implied = n.implied;
        if (n.lines.length > 0) {
          note.replaceChildren(...n.lines.map((l) => Object.assign(document.createElement("p"), { textContent: l })));
          note.hidden = false;
        }
      }
    } else if (m === "path") pos.textContent = `(${t.invocation.join(",")}) visited no block`;
    else pos.textContent = "";
    host.redraw();
  }

  function goTo(i: number) {
    const t = traced;
    if (!t || t.blocks.length === 0 || mode.value !== "path") return;
    step = Math.max(0, Math.min(t.blocks.length - 1, i));
    host.showBlock(t.blocks[step]);
    refresh();
  }

  // The chosen invocation is shared with links (panels/run-amber.ts): a pick
  // announces it, and a link that carries one fills the bar.
  document.addEventListener(INVOCATION_EVENT, (ev) => {
    const d = (ev as CustomEvent<unknown>).detail;
    if (Array.isArray(d) && d.length === 3 && d.every((n) => Number.isInteger(n) && n >= 0)) ids.forEach((e, i) => (e.value = String(d[i])));
  });

  async function pick(inv: Invocation) {
    stop();
    ids.forEach((e, i) => (e.value = String(inv[i])));
    document.dispatchEvent(new CustomEvent(INVOCATION_EVENT, { detail: inv }));
    const mine = ++token;
    const asked = host.runRequest();
    const { force: _force, ...base } = asked ?? {};
    const req: RunRequest = { ...base, paths: [inv], edges: true };
    root.dataset.pathState = "tracing";
    pos.textContent = "tracing…";
    let r: RunResult;
    try {
      r = await host.run(req);
    } catch (e) {
      if (mine !== token) return;
      root.dataset.pathState = "error";
      pos.textContent = `the trace failed: ${String(e)}`;
      return;
    }
    if (mine !== token) return;
    disasm = host.module();
    const tr = r.trace;
    const path = tr?.paths.find((p) => p.invocation.every((v, i) => v === inv[i]));
    const all = new Map<string, number>();
    for (const e of tr?.edges ?? []) all.set(edgeKey(e.function, e.from, e.to), e.count);
    const blocks: TraceBlock[] = [];
    let length = 0;
    for (const s of path?.segments ?? []) {
      length += s.blocks.length * s.count;
      for (let n = 0; n < s.count && blocks.length < MAX_STEPS; n++)
        for (const b of s.blocks) if (blocks.length < MAX_STEPS) blocks.push(b);
    }
    // This invocation's edges: consecutive blocks of one function that the
    // run took as a branch (a callee's blocks come between a caller's).
    const mine2 = new Map<string, number>();
    const lastIn = new Map<number, number>();
    for (const b of blocks) {
      const p = lastIn.get(b.function);
      if (p !== undefined && all.has(edgeKey(b.function, p, b.label))) {
        const k = edgeKey(b.function, p, b.label);
        mine2.set(k, (mine2.get(k) ?? 0) + 1);
      }
      lastIn.set(b.function, b.label);
    }
    let error: string | undefined;
    if (!r.ok && r.error) error = `the run stopped (${r.error.kind}): ${r.error.message}`;
    if (r.ok && !path)
      error = r.draw
        ? `no fragment ran at pixel (${inv[0]}, ${inv[1]}): the draw ran ${r.draw.fragments} fragments`
        : `invocation (${inv.join(",")}) did not run: the dispatch has ${r.invocations ?? 0} invocations`;
    const inputs = asked ? "the Run tab's last inputs" : "every buffer zeros (nothing run in the Run tab yet)";
    traced = { invocation: inv, blocks, length, mine: mine2, all, invocations: r.invocations ?? 0, inputs, error: blocks.length > 0 ? undefined : error };
    root.dataset.pathState = error && blocks.length === 0 ? "error" : "ready";
    root.dataset.pathInvocation = inv.join(",");
    root.dataset.pathTraces = String(Number(root.dataset.pathTraces ?? 0) + 1);
    step = 0;
    if (mode.value === "off") mode.value = "path";
    if (mode.value === "path" && blocks.length > 0) host.showBlock(blocks[0]);
    refresh();
    if (error && blocks.length > 0) pos.textContent += ` — ${error}`;
  }

  function apply(svg: SVGSVGElement, fn: number | undefined) {
    svg.classList.remove("path-on", "heat-on");
    svg.querySelectorAll(".path-count").forEach((e) => e.remove());
    for (const c of ["path-visited", "path-taken", "path-current", "path-implied"])
      svg.querySelectorAll(`.${c}`).forEach((e) => e.classList.remove(c));
    svg.querySelectorAll<SVGElement>("[data-heat]").forEach((e) => {
      e.style.removeProperty("fill");
      e.style.removeProperty("stroke");
      e.style.removeProperty("stroke-width");
      e.removeAttribute("data-heat");
    });
    legend.hidden = true;
    const m = mode.value as PathMode;
    const t = traced;
    if (m === "off" || !t || fn === undefined) return;
    const counts = m === "path" ? t.mine : t.all;
    let max = 1;
    const edges: [number, number, number][] = [];
    for (const [k, n] of counts) {
      const [f, a, b] = k.split(":").map(Number);
      if (f !== fn) continue;
      edges.push([a, b, n]);
      max = Math.max(max, n);
    }
    svg.classList.add(m === "path" ? "path-on" : "heat-on");
    const visits = new Map<number, number>();
    if (m === "path") {
      for (const b of t.blocks) if (b.function === fn) visits.set(b.label, (visits.get(b.label) ?? 0) + 1);
    } else {
      for (const [a, b, n] of edges) {
        visits.set(b, (visits.get(b) ?? 0) + n);
        if (!edges.some((e) => e[1] === a)) visits.set(a, Math.max(visits.get(a) ?? 0, edges.filter((e) => e[0] === a).reduce((s, e) => s + e[2], 0)));
      }
      // A function of one block: every invocation that entered it.
      const f = fnCfg(fn);
      const entry = f?.blocks.find((b) => b.entry)?.id;
      if (entry !== undefined && !visits.has(entry) && edges.length === 0 && t.invocations > 0) visits.set(entry, t.invocations);
    }
    const vmax = Math.max(1, ...visits.values());
    for (const [id, n] of visits) {
      const g = svg.querySelector(`[id="block-${id}"]`);
      if (!g) continue;
      g.classList.add("path-visited");
      g.setAttribute("data-visits", String(n));
      if (m === "heat") {
        const shape = g.querySelector<SVGElement>(":scope > polygon, :scope > path, :scope > ellipse");
        if (shape) {
          shape.dataset.heat = "1";
          shape.style.fill = heatColor(n / vmax);
        }
      }
    }
    for (const [a, b, n] of edges) {
      for (const g of svg.querySelectorAll<SVGGElement>(`[id^="edge-${a}-${b}-branch"]`)) {
        g.classList.add("path-taken");
        g.setAttribute("data-count", String(n));
        const line = g.querySelector<SVGPathElement>(":scope > path");
        const width = (1.5 + 4.5 * (n / max)).toFixed(2);
        for (const s of g.querySelectorAll<SVGElement>(":scope > path, :scope > polygon")) {
          s.dataset.heat = "1";
          s.style.strokeWidth = s.localName === "path" ? width : "1";
          if (m === "heat") s.style.stroke = heatColor(n / max);
          if (m === "heat" && s.localName === "polygon") s.style.fill = heatColor(n / max);
        }
        if (line && typeof line.getTotalLength === "function") {
          const len = line.getTotalLength();
          const p = line.getPointAtLength(len / 2);
          const text = document.createElementNS("http://www.w3.org/2000/svg", "text");
          text.setAttribute("class", "path-count");
          text.setAttribute("x", (p.x + 4).toFixed(1));
          text.setAttribute("y", (p.y - 3).toFixed(1));
          text.textContent = `×${n}`;
          g.append(text);
        }
      }
    }
    if (m === "path") {
      const cur = t.blocks[step];
      if (cur && cur.function === fn) svg.querySelector(`[id="block-${cur.label}"]`)?.classList.add("path-current");
      for (const [a, b, kind] of implied) svg.querySelectorAll(`[id^="edge-${a}-${b}-${kind}"]`).forEach((e) => e.classList.add("path-implied"));
    }
    if (m === "heat") {
      legend.replaceChildren();
      const title = document.createElement("span");
      title.textContent = "visits (all invocations):";
      const lo = document.createElement("span");
      lo.textContent = "1";
      const ramp = document.createElement("span");
      ramp.className = "path-ramp";
      ramp.style.background = `linear-gradient(to right, ${heatColor(0)}, ${heatColor(0.5)}, ${heatColor(1)})`;
      const hi = document.createElement("span");
      hi.textContent = String(Math.max(vmax, max));
      const w = document.createElement("span");
      w.textContent = "· edge width and ×N: times taken";
      legend.append(title, lo, ramp, hi, w);
      legend.hidden = false;
    }
  }

  /** The step keys (Home , . End, [ ]): true when used. */
  function onKey(k: string): boolean {
    if (mode.value !== "path" || !traced) return false;
    stop();
    switch (k) {
      case "Home":
        goTo(0);
        return true;
      case "End":
        goTo(Number.MAX_SAFE_INTEGER);
        return true;
      case ".":
      case "]":
        goTo(step + 1);
        return true;
      case ",":
      case "[":
        goTo(step - 1);
        return true;
      default:
        return false;
    }
  }

  const readIds = (): Invocation => ids.map((e) => Math.max(0, Math.floor(Number(e.value)) || 0)) as Invocation;
  go.addEventListener("click", () => void pick(readIds()));
  for (const e of ids)
    e.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        void pick(readIds());
      }
    });
  mode.addEventListener("change", () => {
    stop();
    if (mode.value !== "off" && !traced) void pick(readIds());
    else setMode(mode.value as PathMode);
  });
  first.addEventListener("click", () => (stop(), goTo(0)));
  prev.addEventListener("click", () => (stop(), goTo(step - 1)));
  next.addEventListener("click", () => (stop(), goTo(step + 1)));
  last.addEventListener("click", () => (stop(), goTo(Number.MAX_SAFE_INTEGER)));

  // A click on a value cell of the Run tab's results picks the invocation
  // that wrote it (when the buffer is indexed by GlobalInvocationId.x), else
  // the one in the path bar, and shows its path here.
  document.addEventListener("click", (ev) => {
    const cell = ev.target instanceof Element ? ev.target.closest("#run-results td.cell") : null;
    if (!cell) return;
    const row = cell.closest("tr");
    const sec = cell.closest("section.run-buffer") as HTMLElement | null;
    const inv = invocationOfCell(host.report(), sec?.dataset.key ?? "", row?.dataset.path ?? "") ?? readIds();
    host.reveal();
    void pick(inv);
  });

  // A pixel of the Run tab's draw: its fragment's path here.
  document.addEventListener(TRACE_EVENT, (ev) => {
    const d = (ev as CustomEvent<unknown>).detail;
    if (!Array.isArray(d) || d.length !== 3 || !d.every((n) => Number.isInteger(n) && n >= 0)) return;
    host.reveal();
    void pick(d as Invocation);
  });

  root.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || (e.target as Element).closest("input, select, textarea")) return;
    if (onKey(e.key)) e.preventDefault();
  });
  // A new run in the Run tab (new inputs): the path shown follows it.
  document.addEventListener("spvlab:run", () => {
    if (traced && mode.value !== "off" && host.module() === disasm) void pick(traced.invocation);
  });

  refresh();
  return {
    element,
    legend,
    apply,
    pick,
    show(blocks, inputs, play) {
      stop();
      token++;
      const edges = new Map<string, number>();
      for (let i = 1; i < blocks.length; i++) {
        const [a, b] = [blocks[i - 1], blocks[i]];
        if (a.function !== b.function) continue;
        const k = edgeKey(b.function, a.label, b.label);
        edges.set(k, (edges.get(k) ?? 0) + 1);
      }
      const steps = blocks.slice(0, MAX_STEPS);
      traced = { invocation: [0, 0, 0], blocks: steps, length: blocks.length, mine: edges, all: edges, invocations: 1, inputs };
      disasm = host.module();
      step = 0;
      root.dataset.pathState = "ready";
      root.dataset.pathTraces = String(Number(root.dataset.pathTraces ?? 0) + 1);
      mode.value = "path";
      if (steps.length > 0) host.showBlock(steps[0]);
      refresh();
      if (!play || steps.length < 2) return;
      root.dataset.pathPlaying = "true";
      playing = setInterval(() => {
        if (!traced || traced.blocks !== steps || step >= steps.length - 1) return stop();
        goTo(step + 1);
        if (step >= steps.length - 1) stop();
      }, PLAY_MS);
    },
    update(r) {
      if (traced && disasm !== undefined && r.disassembly !== disasm) {
        stop();
        traced = undefined;
        step = 0;
        refresh();
      }
    },
  };
}
