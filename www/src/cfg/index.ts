// The CFG panel: draws a function's structured CFG (DOT from the engine, laid
// out by Graphviz compiled to wasm in its own worker), with its merge and
// continue edges and its constructs. The page shell only calls this API; the
// DOT comes from the engine session's last analysis (core/src/analysis/dot.rs,
// `Session.cfgDot` in web/src/lib.rs), so a toggle never analyses again.
//
// Parts: layout.ts (Graphviz worker), drawing.ts (the SVG: parsing, labels,
// marks), interaction.ts (pan, zoom, hover, click), toolbar.ts (options,
// legend). This file keeps the panel's state in a store and draws from it.
//
// Names in a module are untrusted: the panel never uses innerHTML; every
// engine string goes through textContent, and the SVG is Graphviz's output
// (which escapes labels), made in a worker and parsed as XML, never as HTML.
import type { AnalyzeReport, CfgView, Diagnostic, DotOptions, FunctionCfg } from "../api";
import { downloadText as download } from "../dom";
import { Store } from "../store";
import { GraphvizLayout, type Layout } from "./layout";
import { applyMarks, fitLabels, fontMatchesLayout, markSelfLoops, parseSvg, svgSize } from "./drawing";
import { ViewControl } from "./interaction";
import { mountToolbar } from "./toolbar";
import { mountPathView, type PathHost } from "./path";
import { mountTeach, type TeachHost } from "../teach";
import "./cfg.css";

/** What the panel needs from the page. */
export interface CfgHost {
  /** DOT for one function of the last analysis (drawn in the engine's worker). */
  requestDot(functionId: number, options: DotOptions): Promise<string>;
  /** The user hovered a block (or left it): the page highlights its lines. */
  onHoverBlock(blockId: number | null): void;
  /** The user clicked a block: the page selects its lines. */
  onSelectBlock(blockId: number | null): void;
  /** The function shown changed: `byUser` when the user chose it (the menu,
   *  or a problem in another function), not when the panel took the first
   *  function of a module. */
  onFunctionChange(functionId: number, byUser: boolean): void;
  /** The user changed the drawing's options (for share links). */
  onViewChange?(view: CfgView): void;
  /** Whether the module changed since the last report (a newer one is on its
   *  way): the panel then skips laying out and drawing a graph that would be
   *  replaced at once, which keeps the main thread and the cores free while
   *  the user types. */
  stale?(): boolean;
  /** The path view's runs (path.ts): the Run tab's last request, the
   *  interpreter, and bringing the panel forward. */
  path?: Pick<PathHost, "runRequest" | "run" | "reveal" | "module">;
  /** The teaching view (www/src/teach): compare mode, explorer, lessons. */
  teach?: TeachHost;
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
  /** Use these options (from a share link). */
  setView(view: CfgView): void;
  view(): CfgView;
  /** Draw a path of function `fn` known without a run (the Flesh panel's:
   *  its blocks' label ids in order) with the path view, `play`ing it. */
  showPath(fn: number, labels: readonly number[], inputs: string, play: boolean): void;
}

/** The panel's state. */
interface PanelState {
  report: AnalyzeReport | undefined;
  /** The function drawn (its result id). */
  current: number | undefined;
  view: CfgView;
  /** The block clicked (label id). */
  selected: number | undefined;
  highlighted: readonly number[];
  diagnostic: Diagnostic | null;
}

const DEFAULT_VIEW: CfgView = { listing: false, constructs: true, dominators: "none", hideUnreachable: false, containing: false };

/** A file name made of safe characters only (function names are untrusted). */
function fileStem(name: string, id: number): string {
  const s = name.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^[._]+/, "").slice(0, 60);
  return s ? `cfg-${s}` : `cfg-${id}`;
}

/** The panel's status line and the pannable stage that holds the drawing. */
function makeStage(): { message: HTMLDivElement; stage: HTMLDivElement; viewEl: HTMLDivElement } {
  const message = document.createElement("div");
  message.className = "cfg-message";
  message.setAttribute("role", "status");
  const stage = document.createElement("div");
  stage.className = "cfg-stage";
  const viewEl = document.createElement("div");
  viewEl.className = "cfg-view";
  viewEl.append(stage);
  viewEl.tabIndex = 0;
  viewEl.setAttribute("role", "img");
  viewEl.setAttribute("aria-label", "control-flow graph (+ and - zoom, 0 fits, arrows pan)");
  return { message, stage, viewEl };
}

export function mountCfgPanel(root: HTMLElement, host: CfgHost): CfgPanel {
  const state = new Store<PanelState>({
    report: undefined,
    current: undefined,
    view: DEFAULT_VIEW,
    selected: undefined,
    highlighted: [],
    diagnostic: null,
  });
  const graphviz = new GraphvizLayout();

  // What is drawn now.
  const drawn: { svg?: SVGSVGElement; dot?: string; fn?: number; token: number; renders: number; pending: boolean } = {
    token: 0,
    renders: 0,
    pending: false,
  };

  // ---- DOM
  root.classList.add("cfg-panel");
  const toolbar = mountToolbar({
    onFunction: (id) => showFunction(id, true),
    onView: (view) => {
      state.update({ view });
      host.onViewChange?.(view);
    },
    onZoom: (f) => control.zoomBy(f),
    onFit: () => control.fit(),
    onActualSize: () => control.actualSize(),
    onDownloadSvg: downloadSvg,
    onDownloadDot: downloadDot,
  });
  const teach = mountTeach(root, host.teach, {
    redraw: () => redraw(),
    remark: () => marks(),
    refit: () => control.userMoved || control.fit(),
  });
  const { message, stage, viewEl } = makeStage();
  // The path view (path.ts); a step selects its block even when selected (a new text).
  const path = host.path && mountPathView(root, { ...host.path, report: () => state.get().report, redraw: () => marks(), showBlock: (b) => { showFunction(b.function, true); select(b.label, true); } });
  root.replaceChildren(toolbar.element, teach.bar, toolbar.legend, ...(path ? [path.element, path.legend] : []), message, viewEl, teach.pane);
  root.dataset.state = "empty";
  graphviz.preload();

  const control = new ViewControl(viewEl, stage, {
    onHover: (id) => host.onHoverBlock(id),
    onClick: (id, construct) => {
      select(id);
      teach.click(id, construct);
    },
    onTransform: (scale) => (root.dataset.scale = scale.toFixed(3)),
  });

  function setMessage(text: string, kind = "") {
    message.textContent = text;
    message.className = `cfg-message ${kind}`;
    message.hidden = text === "";
  }
  setMessage("No module yet.");

  function currentCfg(s: PanelState = state.get()): FunctionCfg | undefined {
    return s.report?.functions.find((f) => f.id === s.current);
  }

  function select(id: number | null, again = false) {
    const next = id ?? undefined;
    if (next === state.get().selected && !again) return;
    root.dataset.selected = next === undefined ? "" : String(next);
    state.update({ selected: next });
    host.onSelectBlock(id);
  }

  function showFunction(id: number, tell: boolean) {
    if (id === state.get().current) return;
    root.dataset.function = String(id);
    state.update({ current: id, selected: undefined });
    if (tell) host.onFunctionChange(id, true);
  }

  // ---- renders from the state
  state.watch((s) => [s.view], (s) => toolbar.showView(s.view));
  state.watch((s) => [s.report, s.current], (s) => toolbar.showFunctions(s.report?.functions ?? [], s.current));
  state.watch((s) => [s.report, s.current], (s) => teach.update(s.report, s.current));
  state.watch(
    (s) => [s.report, s.current, s.view.listing, s.view.constructs, s.view.dominators, s.view.hideUnreachable, s.view.containing && s.selected],
    () => redraw(),
  );
  state.watch((s) => [s.highlighted, s.selected, s.diagnostic, s.view.containing, s.current], () => marks());

  // A hidden panel (another tab is open) does not lay out: Graphviz runs in
  // its worker, but a layout per keystroke nobody sees would still take a core
  // from the engine's worker and slow typing. The drawing catches up when the
  // panel becomes visible.
  const visible = () => root.getClientRects().length > 0;
  new IntersectionObserver((entries) => {
    if (drawn.pending && entries.some((e) => e.isIntersecting)) {
      drawn.pending = false;
      redraw();
    }
  }).observe(root);

  function marks() {
    const s = state.get();
    if (!drawn.svg) return;
    const f = currentCfg(s);
    const d = s.diagnostic;
    const mine = d && (d.function === undefined || d.function === s.current);
    applyMarks(drawn.svg, {
      highlighted: s.highlighted,
      selected: s.selected,
      containing:
        s.view.containing && s.selected !== undefined && f
          ? f.constructs.flatMap((c, i) => (c.blocks.includes(s.selected!) ? [i] : []))
          : [],
      problemBlocks: mine ? d.blocks : [],
      problemEdges: mine ? d.edges : [],
    });
    if (path) path.apply(drawn.svg, s.current);
    teach.mark(drawn.svg);
  }

  /** Ask the engine for the DOT, and draw it if it changed. */
  function redraw() {
    const s = state.get();
    const r = s.report;
    if (!r) return;
    if (!r.assembled) {
      // Keep the last drawing; say why it is not current.
      root.dataset.state = drawn.svg ? "ready" : "empty";
      setMessage(drawn.svg ? "The module does not assemble: showing the last graph." : "The module does not assemble.", "stale");
      return;
    }
    if (r.functions.length === 0) {
      drawn.token++;
      drawn.svg = drawn.dot = undefined;
      control.setSize(undefined);
      stage.replaceChildren();
      root.dataset.state = "empty";
      setMessage("The module has no functions.");
      return;
    }
    if (!visible()) {
      drawn.pending = true;
      return;
    }
    const mine = ++drawn.token;
    const fn = s.current;
    if (fn === undefined || !r.functions.some((f) => f.id === fn)) return;
    const opts: DotOptions = {
      listing: s.view.listing,
      constructs: s.view.constructs,
      dominators: s.view.dominators,
      hideUnreachable: s.view.hideUnreachable,
    };
    teach.adjust(opts);
    if (s.view.containing && s.selected !== undefined) opts.selected = s.selected;
    root.dataset.state = "rendering";
    const asked = performance.now();
    host
      .requestDot(fn, opts)
      .then((dot) => {
        if (mine !== drawn.token) return;
        root.dataset.dotMs = (performance.now() - asked).toFixed(1);
        if (dot === drawn.dot && fn === drawn.fn && drawn.svg) {
          root.dataset.state = "ready";
          marks();
          return;
        }
        if (host.stale?.()) return;
        const sent = performance.now();
        return graphviz.layout(dot).then((l) => {
          if (mine !== drawn.token || !l || host.stale?.()) return;
          root.dataset.fastLayout = String(l.fast);
          root.dataset.workerMs = (performance.now() - sent).toFixed(1);
          draw(l, dot, fn, mine);
        });
      })
      .catch((e: unknown) => {
        if (mine !== drawn.token) {
          console.warn("spvlab: a drawing a newer one replaced failed", e);
          return;
        }
        root.dataset.state = "error";
        setMessage(`Cannot draw the graph: ${e instanceof Error ? e.message : String(e)}`, "error");
      });
  }

  /** Parse the SVG, then put it in the page in a task of its own, so that
   *  what waits meanwhile (an edit's diagnostics) is not held up by both. */
  function draw(l: Layout, dot: string, fn: number, mine: number) {
    const t0 = performance.now();
    const next = parseSvg(l.svg);
    const parseMs = performance.now() - t0;
    root.dataset.parseMs = parseMs.toFixed(1);
    if (!next) {
      root.dataset.state = "error";
      setMessage("Graphviz failed: its SVG does not parse.", "error");
      return;
    }
    setTimeout(() => {
      if (mine === drawn.token && !host.stale?.()) show(next, l, dot, fn, parseMs);
    }, 0);
  }

  function show(next: SVGSVGElement, l: Layout, dot: string, fn: number, parseMs: number) {
    const t1 = performance.now();
    const size = svgSize(next);
    if (size) {
      // Graphviz gives pt; draw 1 pt as 1 px (the view zooms).
      next.setAttribute("width", String(size.w));
      next.setAttribute("height", String(size.h));
    }
    next.classList.add("cfg-svg");
    next.setAttribute("focusable", "false");
    markSelfLoops(next);
    const refit = fn !== drawn.fn || !drawn.svg || !control.userMoved;
    const dims = refit ? { vw: viewEl.clientWidth, vh: viewEl.clientHeight } : undefined;
    stage.replaceChildren(next);
    drawn.svg = next;
    drawn.dot = dot;
    drawn.fn = fn;
    drawn.renders++;
    control.setSize(size);
    const t2 = performance.now();
    // Measuring every label costs a third of the drawing's time on a big
    // graph: only when the browser's font is wider than Graphviz's tables.
    root.dataset.fitted = fontMatchesLayout(next, dot) ? "0" : String(fitLabels(next));
    root.dataset.fitMs = (performance.now() - t2).toFixed(1);
    root.dataset.renders = String(drawn.renders);
    root.dataset.state = "ready";
    if (!state.get().report?.assembled) setMessage("The module does not assemble: showing the last graph.", "stale");
    else setMessage("");
    if (refit) control.fit(dims);
    marks();
    // Where the time goes (read by the benchmark): Graphviz (in the worker),
    // then parsing its SVG and the DOM (here, in two tasks).
    root.dataset.layoutMs = l.layoutMs.toFixed(1);
    root.dataset.domMs = (parseMs + performance.now() - t1).toFixed(1);
  }

  function downloadSvg() {
    if (!drawn.svg) return;
    const f = currentCfg();
    const copy = drawn.svg.cloneNode(true) as SVGSVGElement;
    copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    const text = new XMLSerializer().serializeToString(copy);
    download(`${fileStem(f?.name ?? "", state.get().current ?? 0)}.svg`, "image/svg+xml", text);
  }
  function downloadDot() {
    if (drawn.dot === undefined) return;
    const f = currentCfg();
    download(`${fileStem(f?.name ?? "", state.get().current ?? 0)}.dot`, "text/vnd.graphviz", drawn.dot);
  }

  return {
    update(r) {
      if (path) path.update(r);
      const s = state.get();
      if (r.assembled && r.functions.length > 0 && (s.current === undefined || !r.functions.some((f) => f.id === s.current))) {
        const first = r.functions[0].id;
        root.dataset.function = String(first);
        state.update({ report: r, current: first, selected: undefined });
        host.onFunctionChange(first, false);
        return;
      }
      state.update({ report: r });
    },
    highlightBlocks(ids) {
      state.update({ highlighted: ids.slice() });
    },
    showDiagnostic(d) {
      const s = state.get();
      if (d && d.function !== undefined && d.function !== s.current && s.report?.functions.some((f) => f.id === d.function)) {
        state.update({ diagnostic: d });
        showFunction(d.function, true);
        return;
      }
      state.update({ diagnostic: d });
    },
    setFunction(id) {
      const r = state.get().report;
      if (r && !r.functions.some((f) => f.id === id)) return;
      // Before the first analysis (a share link) it is taken as it is.
      showFunction(id, false);
    },
    currentFunction() {
      return state.get().current;
    },
    setView(view) {
      const now = state.get().view;
      if ((Object.keys(view) as (keyof CfgView)[]).every((k) => view[k] === now[k])) return;
      state.update({ view: { ...view } });
    },
    view() {
      return state.get().view;
    },
    showPath: (fn, labels, inputs, play) => path?.show(labels.map((label) => ({ function: fn, label })), inputs, play),
  };
}
