// The CFG panel's layout: Graphviz (@viz-js/viz, wasm) in a dedicated worker
// (viz.worker.ts), started on first use so that a big layout never blocks
// typing, with one layout at a time (a newer drawing replaces one that waits).
import type { GraphAttributes, VizRequest, VizResponse } from "./viz-protocol";

/** Above this many blocks, Graphviz spends less effort on crossing
 *  minimisation and network simplex (a quicker, slightly rougher layout), to
 *  keep the redraw after an edit fast. */
const BIG_GRAPH_BLOCKS = 120;
const FAST_LAYOUT: GraphAttributes = { mclimit: 0.1, nslimit: 1, nslimit1: 1, searchsize: 10 };

/** A finished layout: Graphviz's SVG (text) and its time in the worker. */
export interface Layout {
  svg: string;
  layoutMs: number;
  /** Whether the quicker layout was used (a big graph). */
  fast: boolean;
}

function blockCount(dot: string): number {
  let n = 0;
  for (let i = dot.indexOf('id="block-'); i >= 0; i = dot.indexOf('id="block-', i + 10)) n++;
  return n;
}

interface Job {
  dot: string;
  done: (l: Layout | undefined, e?: Error) => void;
}

/** One Graphviz worker and its queue. */
export class GraphvizLayout {
  private worker: Worker | undefined;
  private nextRequest = 0;
  private readonly inFlight = new Map<number, { resolve: (l: Layout) => void; reject: (e: Error) => void; fast: boolean }>();
  private laying = false;
  private queued: Job | undefined;

  /** Lay out `dot`; resolves to undefined when a newer drawing replaced it
   *  before its turn. */
  layout(dot: string): Promise<Layout | undefined> {
    return new Promise((resolve, reject) => {
      this.queued?.done(undefined); // superseded
      this.queued = { dot, done: (l, e) => (e ? reject(e) : resolve(l)) };
      this.pump();
    });
  }

  /** Start the worker (and so the Graphviz download) once the page is idle,
   *  so that the first drawing is quick but first paint is not delayed. */
  preload() {
    const start = () => {
      try {
        this.instance();
      } catch (e) {
        // The first layout tries again and reports its own error.
        console.warn("spvlab: the Graphviz worker did not start", e);
      }
    };
    const idle = (window as { requestIdleCallback?: (cb: () => void, o?: { timeout: number }) => void }).requestIdleCallback;
    if (idle) idle(start, { timeout: 2000 });
    else setTimeout(start, 200);
  }

  private pump() {
    if (this.laying || !this.queued) return;
    const job = this.queued;
    this.queued = undefined;
    this.laying = true;
    this.send(job.dot).then(
      (l) => {
        this.laying = false;
        job.done(l);
        this.pump();
      },
      (e: Error) => {
        this.laying = false;
        job.done(undefined, e);
        this.pump();
      },
    );
  }

  private send(dot: string): Promise<Layout> {
    return new Promise((resolve, reject) => {
      let w: Worker;
      try {
        w = this.instance();
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      const fast = blockCount(dot) > BIG_GRAPH_BLOCKS;
      const id = ++this.nextRequest;
      this.inFlight.set(id, { resolve, reject, fast });
      const msg: VizRequest = { id, dot: forBrowserFonts(dot), graphAttributes: fast ? FAST_LAYOUT : undefined };
      w.postMessage(msg);
    });
  }

  private instance(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL("./viz.worker.ts", import.meta.url), { type: "module", name: "graphviz" });
    w.addEventListener("message", (e: MessageEvent<VizResponse>) => {
      const m = e.data;
      const req = this.inFlight.get(m.id);
      if (!req) return;
      this.inFlight.delete(m.id);
      if (m.svg !== undefined) req.resolve({ svg: m.svg, layoutMs: m.layoutMs, fast: req.fast });
      else req.reject(new Error(`Graphviz failed: ${m.error}`));
    });
    // The worker could not load, or died: fail what it had; the next layout
    // starts a new one.
    w.addEventListener("error", (e) => {
      e.preventDefault();
      w.terminate();
      if (this.worker === w) this.worker = undefined;
      const waiting = [...this.inFlight.values()];
      this.inFlight.clear();
      const err = new Error(`the Graphviz worker failed${e.message ? `: ${e.message}` : ""}`);
      for (const r of waiting) r.reject(err);
    });
    this.worker = w;
    return w;
  }
}

/** Graphviz in wasm has no fonts: it estimates text widths from built-in
 *  tables, and for a family it does not know ("monospace", which the engine's
 *  DOT asks for) it uses the Times table, much narrower than the monospace font
 *  the browser then draws, so labels ran out of their boxes. Courier is in its
 *  tables (every glyph 0.6 em), and the browser draws Courier with a font of
 *  the same widths (Courier New, Liberation Mono, Nimbus Mono). The cluster
 *  labels (the graph's font) get it too. The DOT itself (its download) keeps
 *  the engine's "monospace", which desktop Graphviz measures with real fonts. */
export function forBrowserFonts(dot: string): string {
  const open = dot.indexOf("{");
  if (open < 0) return dot;
  const body = dot.slice(open + 1).replace(/fontname="monospace"/g, 'fontname="Courier"');
  return `${dot.slice(0, open + 1)}\n  graph [fontname="Courier"];${body}`;
}
