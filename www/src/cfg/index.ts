// The CFG panel: draws a function's structured CFG (DOT from the engine, laid
// out by Graphviz compiled to wasm in its own worker), with its merge and
// continue edges and its constructs. The page shell only calls this API; the
// DOT comes from the engine session's last analysis (core/src/analysis/dot.rs,
// `Session.cfgDot` in web/src/lib.rs), so a toggle never analyses again.
//
// Conventions of the engine's DOT, which the panel relies on to find the SVG
// elements Graphviz makes from it:
//   nodes     id="block-<label id>"            class="block ..."
//   edges     id="edge-<from>-<to>-<kind>"     class="edge branch|merge|continue [back]"
//   clusters  id="construct-<index>"           class="construct <kind>"
// (<index> is the construct's index in FunctionCfg.constructs.)
//
// Names in a module are untrusted: this file never uses innerHTML; every
// engine string goes through textContent, and the SVG is Graphviz's output
// (which escapes labels), made in a worker and parsed here as XML (DOMParser,
// "image/svg+xml"), never as HTML.
import type { AnalyzeReport, Diagnostic, DotOptions, FunctionCfg } from "../api";
import type { GraphAttributes, VizRequest, VizResponse } from "./viz-protocol";
import "./cfg.css";

/** What the panel needs from the page. */
export interface CfgHost {
  /** DOT for one function of the last analysis (drawn in the engine's worker). */
  requestDot(functionId: number, options: DotOptions): Promise<string>;
  /** The user hovered a block (or left it): the page highlights its lines. */
  onHoverBlock(blockId: number | null): void;
  /** The user clicked a block: the page selects its lines. */
  onSelectBlock(blockId: number | null): void;
  /** The function shown changed (for share links). */
  onFunctionChange(functionId: number): void;
}

/** What the page can ask of the panel. */
export interface CfgPanel {
  /** A new analysis is available (after each edit). */
  update(report: AnalyzeReport): void;
  /** Highlight blocks, e.g. the block under the editor's cursor. */
  highlightBlocks(blockIds: number[]): void;
  /** Mark the blocks and edges of the selected problem (or clear). */
  showDiagnostic(d: Diagnostic | null): void;
  /** Show this function (from a share link). */
  setFunction(functionId: number): void;
  currentFunction(): number | undefined;
}

// ---------------------------------------------------------------- Graphviz --

/** Above this many blocks, Graphviz spends less effort on crossing
 *  minimisation and network simplex (a quicker, slightly rougher layout), to
 *  keep the redraw after an edit fast. */
const BIG_GRAPH_BLOCKS = 120;
const FAST_LAYOUT: GraphAttributes = { mclimit: 0.1, nslimit: 1, nslimit1: 1, searchsize: 10 };

function blockCount(dot: string): number {
  let n = 0;
  for (let i = dot.indexOf('id="block-'); i >= 0; i = dot.indexOf('id="block-', i + 10)) n++;
  return n;
}

/** A finished layout: Graphviz's SVG (text) and its time in the worker. */
interface Layout {
  svg: string;
  layoutMs: number;
}

// Graphviz (@viz-js/viz, wasm) runs in a dedicated worker (viz.worker.ts),
// created on first use, so a big layout never blocks typing.
let vizWorker: Worker | undefined;
let nextRequest = 0;
const inFlight = new Map<number, { resolve: (l: Layout) => void; reject: (e: Error) => void }>();

function failAll(e: Error) {
  const waiting = [...inFlight.values()];
  inFlight.clear();
  for (const w of waiting) w.reject(e);
}

/** The Graphviz worker, started on first use (it loads Graphviz at once). */
function vizWorkerInstance(): Worker {
  if (!vizWorker) {
    const w = new Worker(new URL("./viz.worker.ts", import.meta.url), { type: "module", name: "graphviz" });
    w.addEventListener("message", (e: MessageEvent<VizResponse>) => {
      const m = e.data;
      const req = inFlight.get(m.id);
      if (!req) return;
      inFlight.delete(m.id);
      if (m.svg !== undefined) req.resolve({ svg: m.svg, layoutMs: m.layoutMs });
      else req.reject(new Error(`Graphviz failed: ${m.error}`));
    });
    // The worker could not load, or died: fail what it had; the next layout
    // starts a new one.
    w.addEventListener("error", (e) => {
      e.preventDefault();
      w.terminate();
      if (vizWorker === w) vizWorker = undefined;
      failAll(new Error(`the Graphviz worker failed${e.message ? `: ${e.message}` : ""}`));
    });
    vizWorker = w;
  }
  return vizWorker;
}

/** Lay out `dot` in the worker. */
function layoutInWorker(dot: string, graphAttributes?: GraphAttributes): Promise<Layout> {
  return new Promise((resolve, reject) => {
    let w: Worker;
    try {
      w = vizWorkerInstance();
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const id = ++nextRequest;
    inFlight.set(id, { resolve, reject });
    const msg: VizRequest = { id, dot, graphAttributes };
    w.postMessage(msg);
  });
}

/** Start the worker (and so the Graphviz download) once the page is idle, so
 *  the first draw is quick but first paint is not delayed. */
function preloadViz() {
  const start = () => {
    try {
      vizWorkerInstance();
    } catch {
      // Retried by the first layout, which reports the error.
    }
  };
  const idle = (window as { requestIdleCallback?: (cb: () => void, o?: { timeout: number }) => void })
    .requestIdleCallback;
  if (idle) idle(start, { timeout: 2000 });
  else setTimeout(start, 200);
}

// ------------------------------------------------------------------ helpers --

const SVG_NS = "http://www.w3.org/2000/svg";

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; title?: string } = {},
  ...children: Node[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (props.className) e.className = props.className;
  if (props.text !== undefined) e.textContent = props.text;
  if (props.title) e.title = props.title;
  e.append(...children);
  return e;
}

function checkbox(label: string, title: string): { wrap: HTMLLabelElement; input: HTMLInputElement } {
  const input = document.createElement("input");
  input.type = "checkbox";
  const wrap = el("label", { className: "cfg-toggle", title }, input, document.createTextNode(" " + label));
  return { wrap, input };
}

function button(text: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = el("button", { text, title });
  b.type = "button";
  b.setAttribute("aria-label", title);
  b.addEventListener("click", onClick);
  return b;
}

/** A legend entry: a short SVG line in the given style, then a caption. */
function legendItem(caption: string, cls: string): HTMLElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("width", "34");
  svg.setAttribute("height", "10");
  svg.setAttribute("aria-hidden", "true");
  const line = document.createElementNS(SVG_NS, "line");
  line.setAttribute("x1", "1");
  line.setAttribute("y1", "5");
  line.setAttribute("x2", "33");
  line.setAttribute("y2", "5");
  line.setAttribute("class", cls);
  svg.append(line);
  return el("span", { className: "cfg-legend-item" }, svg, document.createTextNode(caption));
}

/** A legend entry: a small shape (points of a polygon in a 16x12 box). */
function legendShape(caption: string, cls: string, points: string): HTMLElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("width", "18");
  svg.setAttribute("height", "14");
  svg.setAttribute("aria-hidden", "true");
  const poly = document.createElementNS(SVG_NS, "polygon");
  poly.setAttribute("points", points);
  poly.setAttribute("class", cls);
  svg.append(poly);
  return el("span", { className: "cfg-legend-item" }, svg, document.createTextNode(caption));
}

/** The label id in an element id `block-<n>`, or null. */
function blockIdOf(target: EventTarget | null): number | null {
  if (!(target instanceof Element)) return null;
  const g = target.closest("g.node");
  const m = g?.id.match(/^block-(\d+)$/);
  return m ? Number(m[1]) : null;
}

/** A file name made of safe characters only (function names are untrusted). */
function fileStem(name: string, id: number): string {
  const s = name.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^[._]+/, "").slice(0, 60);
  return s ? `cfg-${s}` : `cfg-${id}`;
}

function download(name: string, type: string, data: string) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// -------------------------------------------------------------------- panel --

export function mountCfgPanel(root: HTMLElement, host: CfgHost): CfgPanel {
  let report: AnalyzeReport | undefined;
  let current: number | undefined;
  let selected: number | undefined;
  let highlighted: number[] = [];
  let diagnostic: Diagnostic | null = null;
  const options: DotOptions = { listing: false, constructs: true, dominators: "none", hideUnreachable: false };
  let showContaining = false;

  let lastDot: string | undefined;
  let lastFunction: number | undefined;
  let svg: SVGSVGElement | undefined;
  let token = 0;
  let renders = 0;

  // One layout at a time in the worker: a drawing asked for while one is laid
  // out waits, and a newer one replaces it, so that after a burst of edits
  // only the last graph is laid out (a stale layout would only delay it).
  let laying = false;
  let queued: { dot: string; attrs?: GraphAttributes; done: (l: Layout | undefined, e?: Error) => void } | undefined;
  function layout(dot: string, attrs?: GraphAttributes): Promise<Layout | undefined> {
    return new Promise((resolve, reject) => {
      queued?.done(undefined); // superseded
      queued = { dot, attrs, done: (l, e) => (e ? reject(e) : resolve(l)) };
      pump();
    });
  }
  function pump() {
    if (laying || !queued) return;
    const job = queued;
    queued = undefined;
    laying = true;
    layoutInWorker(job.dot, job.attrs).then(
      (l) => {
        laying = false;
        job.done(l);
        pump();
      },
      (e: Error) => {
        laying = false;
        job.done(undefined, e);
        pump();
      },
    );
  }

  // View transform (pan and zoom).
  let scale = 1;
  let tx = 0;
  let ty = 0;
  // Whether the user moved the view since it was last fitted: if not, each
  // new drawing is fitted again; if so, the view stays where they put it
  // (until the function changes).
  let userMoved = false;

  // ---- DOM
  root.classList.add("cfg-panel");
  const fnSelect = el("select", { className: "cfg-function", title: "The function to draw" });
  fnSelect.setAttribute("aria-label", "function");
  const listing = checkbox("listing", "Show each block's full instruction listing");
  const constructs = checkbox("constructs", "Draw the constructs (selection, loop, continue, switch, case) as nested regions");
  constructs.input.checked = true;
  const hide = checkbox("hide unreachable", "Hide blocks that are not structurally reachable");
  const containing = checkbox("containing constructs", "Highlight the constructs that contain the selected block");
  const domSelect = el("select", { className: "cfg-dominators", title: "Overlay a dominator tree" });
  domSelect.setAttribute("aria-label", "dominator tree overlay");
  for (const [value, text] of [
    ["none", "no dominator tree"],
    ["regular", "regular dominator tree"],
    ["structural", "structural dominator tree"],
  ] as const) {
    domSelect.add(new Option(text, value));
  }
  const zoomOut = button("−", "Zoom out (-)", () => zoomBy(1 / 1.25));
  const zoomIn = button("+", "Zoom in (+)", () => zoomBy(1.25));
  const fitBtn = button("fit", "Fit the graph to the view (0)", () => fit());
  const realBtn = button("1:1", "Actual size", () => setScale(1));
  const svgBtn = button("SVG", "Download the drawing as SVG", () => downloadSvg());
  const dotBtn = button("DOT", "Download the DOT source", () => downloadDot());
  const toolbar = el(
    "div",
    { className: "cfg-toolbar" },
    el("label", { className: "cfg-toggle" }, document.createTextNode("function "), fnSelect),
    listing.wrap,
    constructs.wrap,
    domSelect,
    hide.wrap,
    containing.wrap,
    el("span", { className: "cfg-spacer" }),
    el("span", { className: "cfg-buttons" }, zoomOut, zoomIn, fitBtn, realBtn),
    el("span", { className: "cfg-buttons" }, svgBtn, dotBtn),
  );
  toolbar.setAttribute("role", "toolbar");
  toolbar.setAttribute("aria-label", "CFG view options");
  const legend = el(
    "div",
    { className: "cfg-legend" },
    legendItem("branch", "lg-branch"),
    legendItem("merge", "lg-merge"),
    legendItem("continue", "lg-continue"),
    legendItem("back edge", "lg-back"),
    legendShape("entry", "lg-entry", "1,6 9,1 17,6 17,13 1,13"),
    legendShape("exit", "lg-exit", "1,1 17,1 17,8 9,13 1,8"),
    legendShape("construct", "lg-construct", "1,1 17,1 17,13 1,13"),
  );
  const message = el("div", { className: "cfg-message" });
  message.setAttribute("role", "status");
  const stage = el("div", { className: "cfg-stage" });
  const view = el("div", { className: "cfg-view" }, stage);
  view.tabIndex = 0;
  view.setAttribute("role", "img");
  view.setAttribute("aria-label", "control-flow graph (+ and - zoom, 0 fits, arrows pan)");
  root.replaceChildren(toolbar, legend, message, view);
  root.dataset.state = "empty";
  preloadViz();

  // ---- toolbar events
  fnSelect.addEventListener("change", () => {
    const id = Number(fnSelect.value);
    if (Number.isFinite(id)) {
      showFunction(id);
      host.onFunctionChange(id);
    }
  });
  listing.input.addEventListener("change", () => {
    options.listing = listing.input.checked;
    redraw();
  });
  constructs.input.addEventListener("change", () => {
    options.constructs = constructs.input.checked;
    redraw();
  });
  hide.input.addEventListener("change", () => {
    options.hideUnreachable = hide.input.checked;
    redraw();
  });
  domSelect.addEventListener("change", () => {
    options.dominators = domSelect.value as DotOptions["dominators"];
    redraw();
  });
  containing.input.addEventListener("change", () => {
    showContaining = containing.input.checked;
    redraw();
  });

  // ---- graph events: hover, click, pan, zoom
  let hovered: number | null = null;
  view.addEventListener("mouseover", (e) => {
    const id = blockIdOf(e.target);
    if (id !== hovered) {
      hovered = id;
      host.onHoverBlock(id);
    }
  });
  view.addEventListener("mouseleave", () => {
    if (hovered !== null) {
      hovered = null;
      host.onHoverBlock(null);
    }
  });

  let drag: { x: number; y: number; tx: number; ty: number; moved: boolean; pointer: number } | undefined;
  view.addEventListener("pointerdown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, tx, ty, moved: false, pointer: e.pointerId };
  });
  view.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 3) {
      drag.moved = true;
      view.setPointerCapture(e.pointerId);
      view.classList.add("dragging");
    }
    if (drag.moved) {
      tx = drag.tx + dx;
      ty = drag.ty + dy;
      applyTransform();
    }
  });
  const endDrag = (e: PointerEvent) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    const wasClick = !drag.moved;
    if (view.hasPointerCapture(e.pointerId)) view.releasePointerCapture(e.pointerId);
    view.classList.remove("dragging");
    drag = undefined;
    if (wasClick && e.type === "pointerup") select(blockIdOf(e.target));
  };
  view.addEventListener("pointerup", endDrag);
  view.addEventListener("pointercancel", endDrag);
  view.addEventListener(
    "wheel",
    (e) => {
      if (!svg) return;
      e.preventDefault();
      const r = view.getBoundingClientRect();
      const factor = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
      zoomAt(factor, e.clientX - r.left, e.clientY - r.top);
    },
    { passive: false },
  );
  view.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const step = 40;
    let handled = true;
    switch (e.key) {
      case "+":
      case "=":
        zoomBy(1.25);
        break;
      case "-":
      case "_":
        zoomBy(1 / 1.25);
        break;
      case "0":
        fit();
        break;
      case "ArrowLeft":
        tx += step;
        applyTransform();
        break;
      case "ArrowRight":
        tx -= step;
        applyTransform();
        break;
      case "ArrowUp":
        ty += step;
        applyTransform();
        break;
      case "ArrowDown":
        ty -= step;
        applyTransform();
        break;
      case "Escape":
        select(null);
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  });

  // ---- view transform
  function applyTransform(byUser = true) {
    if (byUser) userMoved = true;
    stage.style.transform = `translate(${tx}px, ${ty}px) scale(${scale})`;
    root.dataset.scale = scale.toFixed(3);
  }
  function zoomAt(factor: number, cx: number, cy: number) {
    const next = Math.min(8, Math.max(0.05, scale * factor));
    const k = next / scale;
    tx = cx - (cx - tx) * k;
    ty = cy - (cy - ty) * k;
    scale = next;
    applyTransform();
  }
  function zoomBy(factor: number) {
    zoomAt(factor, view.clientWidth / 2, view.clientHeight / 2);
  }
  function setScale(s: number) {
    zoomAt(s / scale, view.clientWidth / 2, view.clientHeight / 2);
  }
  function graphSize(): { w: number; h: number } | undefined {
    if (!svg) return undefined;
    const vb = svg.viewBox.baseVal;
    if (vb && vb.width > 0 && vb.height > 0) return { w: vb.width, h: vb.height };
    return undefined;
  }
  /** Fit the drawing to the view. `dims`: the view's size, read before the new
   *  SVG went in (reading it after would force a style pass over the whole SVG). */
  function fit(dims?: { vw: number; vh: number }) {
    const size = graphSize();
    if (!size) return;
    const vw = Math.max(1, dims?.vw ?? view.clientWidth);
    const vh = Math.max(1, dims?.vh ?? view.clientHeight);
    scale = Math.max(0.05, Math.min(1.5, (vw - 16) / size.w, (vh - 16) / size.h));
    tx = (vw - size.w * scale) / 2;
    ty = Math.max(8, (vh - size.h * scale) / 2);
    applyTransform(false);
    userMoved = false;
  }

  // ---- marks on the SVG (classes only; the ids are numbers we build)
  function blockEls(id: number): Element[] {
    const e = svg?.querySelector(`[id="block-${id}"]`);
    return e ? [e] : [];
  }
  function edgeEls(from: number, to: number): Element[] {
    return svg ? Array.from(svg.querySelectorAll(`[id^="edge-${from}-${to}-"]`)) : [];
  }
  function clearClass(cls: string) {
    svg?.querySelectorAll(`.${cls}`).forEach((e) => e.classList.remove(cls));
  }
  function currentCfg(): FunctionCfg | undefined {
    return report?.functions.find((f) => f.id === current);
  }
  function applyMarks() {
    if (!svg) return;
    clearClass("cfg-highlight");
    for (const id of highlighted) blockEls(id).forEach((e) => e.classList.add("cfg-highlight"));
    clearClass("cfg-selected");
    if (selected !== undefined) blockEls(selected).forEach((e) => e.classList.add("cfg-selected"));
    clearClass("cfg-containing");
    const f = currentCfg();
    if (showContaining && selected !== undefined && f) {
      f.constructs.forEach((c, i) => {
        if (c.blocks.includes(selected!)) svg!.querySelector(`[id="construct-${i}"]`)?.classList.add("cfg-containing");
      });
    }
    clearClass("cfg-diag");
    const d = diagnostic;
    if (d && (d.function === undefined || d.function === current)) {
      for (const b of d.blocks) blockEls(b).forEach((e) => e.classList.add("cfg-diag"));
      for (const [from, to] of d.edges) edgeEls(from, to).forEach((e) => e.classList.add("cfg-diag"));
    }
  }

  function select(id: number | null) {
    const next = id ?? undefined;
    if (next === selected) return;
    selected = next;
    root.dataset.selected = selected === undefined ? "" : String(selected);
    host.onSelectBlock(id);
    applyMarks();
    // The engine draws the containing constructs itself when asked to.
    if (showContaining) redraw();
  }

  // ---- drawing
  function setMessage(text: string, kind = "") {
    message.textContent = text;
    message.className = `cfg-message ${kind}`;
    message.hidden = text === "";
  }
  setMessage("No module yet.");

  function fillFunctions() {
    const fns = report?.functions ?? [];
    const same =
      fnSelect.options.length === fns.length &&
      fns.every((f, i) => fnSelect.options[i].value === String(f.id) && fnSelect.options[i].text === labelOf(f));
    if (!same) {
      fnSelect.replaceChildren(...fns.map((f) => new Option(labelOf(f), String(f.id))));
    }
    if (current !== undefined) fnSelect.value = String(current);
    fnSelect.disabled = fns.length <= 1;
  }
  function labelOf(f: FunctionCfg): string {
    const name = f.name || String(f.id);
    return `${name} (${f.blocks.length} block${f.blocks.length === 1 ? "" : "s"})`;
  }

  function showFunction(id: number) {
    if (id === current) return;
    current = id;
    selected = undefined;
    root.dataset.function = String(id);
    fillFunctions();
    redraw();
  }

  /** Ask the engine for the DOT, and draw it in the next frame if it changed. */
  // A hidden panel (another tab is open) does not lay out: Graphviz runs in its
  // worker, but a layout per keystroke nobody sees would still take a core
  // from the engine's worker and slow typing. The drawing catches up when the
  // panel becomes visible.
  let pendingRedraw = false;
  const visible = () => root.getClientRects().length > 0;
  new IntersectionObserver((entries) => {
    if (pendingRedraw && entries.some((e) => e.isIntersecting)) {
      pendingRedraw = false;
      redraw();
    }
  }).observe(root);

  function redraw() {
    if (!visible()) {
      pendingRedraw = true;
      return;
    }
    const mine = ++token;
    if (!report || current === undefined || !report.functions.some((f) => f.id === current)) return;
    const fn = current;
    const opts: DotOptions = { ...options };
    if (showContaining && selected !== undefined) opts.selected = selected;
    root.dataset.state = "rendering";
    const asked = performance.now();
    host
      .requestDot(fn, opts)
      .then((dot) => {
        if (mine !== token) return;
        root.dataset.dotMs = (performance.now() - asked).toFixed(1);
        if (dot === lastDot && fn === lastFunction && svg) {
          root.dataset.state = "ready";
          applyMarks();
          return;
        }
        // Lay out in the worker, then draw at once (the browser paints right
        // after this task; waiting for a frame only adds latency).
        const big = blockCount(dot) > BIG_GRAPH_BLOCKS;
        const sent = performance.now();
        return layout(dot, big ? FAST_LAYOUT : undefined).then((l) => {
          if (mine !== token || !l) return;
          root.dataset.fastLayout = String(big);
          root.dataset.workerMs = (performance.now() - sent).toFixed(1);
          draw(l, dot, fn);
        });
      })
      .catch((e: unknown) => {
        if (mine !== token) return;
        root.dataset.state = "error";
        setMessage(`Cannot draw the graph: ${e instanceof Error ? e.message : String(e)}`, "error");
      });
  }

  /** Parse Graphviz's SVG as XML (never HTML) and adopt its root element. */
  function parseSvg(text: string): SVGSVGElement | undefined {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const top = doc.documentElement;
    if (top.namespaceURI !== SVG_NS || top.localName !== "svg" || doc.querySelector("parsererror")) return undefined;
    // Adopt (move) rather than import (copy): the parsed tree is not used again.
    return document.adoptNode(top) as unknown as SVGSVGElement;
  }

  function draw(l: Layout, dot: string, fn: number) {
    const t1 = performance.now();
    const next = parseSvg(l.svg);
    root.dataset.parseMs = (performance.now() - t1).toFixed(1);
    if (!next) {
      root.dataset.state = "error";
      setMessage("Graphviz failed: its SVG does not parse.", "error");
      return;
    }
    const size = ((): { w: number; h: number } | undefined => {
      const vb = next.viewBox.baseVal;
      return vb && vb.width > 0 ? { w: vb.width, h: vb.height } : undefined;
    })();
    if (size) {
      // Graphviz gives pt; draw 1 pt as 1 px (the view zooms).
      next.setAttribute("width", String(size.w));
      next.setAttribute("height", String(size.h));
    }
    next.classList.add("cfg-svg");
    next.setAttribute("focusable", "false");
    const refit = fn !== lastFunction || !svg || !userMoved;
    const dims = refit ? { vw: view.clientWidth, vh: view.clientHeight } : undefined;
    stage.replaceChildren(next);
    svg = next;
    lastDot = dot;
    lastFunction = fn;
    renders++;
    root.dataset.renders = String(renders);
    root.dataset.state = "ready";
    if (!report?.assembled) setMessage("The module does not assemble: showing the last graph.", "stale");
    else setMessage("");
    if (refit) fit(dims);
    applyMarks();
    // Where the time goes (read by the benchmark): Graphviz (in the worker),
    // then parsing its SVG and the DOM (here).
    const t2 = performance.now();
    root.dataset.layoutMs = l.layoutMs.toFixed(1);
    root.dataset.domMs = (t2 - t1).toFixed(1);
  }

  function downloadSvg() {
    if (!svg) return;
    const f = currentCfg();
    const copy = svg.cloneNode(true) as SVGSVGElement;
    copy.setAttribute("xmlns", SVG_NS);
    const text = new XMLSerializer().serializeToString(copy);
    download(`${fileStem(f?.name ?? "", current ?? 0)}.svg`, "image/svg+xml", text);
  }
  function downloadDot() {
    if (lastDot === undefined) return;
    const f = currentCfg();
    download(`${fileStem(f?.name ?? "", current ?? 0)}.dot`, "text/vnd.graphviz", lastDot);
  }

  return {
    update(r) {
      report = r;
      if (!r.assembled) {
        // Keep the last drawing; say why it is not current.
        root.dataset.state = svg ? "ready" : "empty";
        setMessage(svg ? "The module does not assemble: showing the last graph." : "The module does not assemble.", "stale");
        return;
      }
      if (r.functions.length === 0) {
        token++;
        svg = undefined;
        lastDot = undefined;
        stage.replaceChildren();
        fillFunctions();
        root.dataset.state = "empty";
        setMessage("The module has no functions.");
        return;
      }
      if (current === undefined || !r.functions.some((f) => f.id === current)) {
        current = r.functions[0].id;
        selected = undefined;
        root.dataset.function = String(current);
        host.onFunctionChange(current);
      }
      fillFunctions();
      redraw();
    },
    highlightBlocks(ids) {
      highlighted = ids.slice();
      applyMarks();
    },
    showDiagnostic(d) {
      diagnostic = d;
      if (d && d.function !== undefined && d.function !== current && report?.functions.some((f) => f.id === d.function)) {
        showFunction(d.function);
        host.onFunctionChange(d.function);
        return;
      }
      applyMarks();
    },
    setFunction(id) {
      if (report && !report.functions.some((f) => f.id === id)) {
        // Not known yet (e.g. from a share link before the first analysis).
        current = id;
        return;
      }
      showFunction(id);
    },
    currentFunction() {
      return current;
    },
  };
}
