// The CFG panel's Graphviz worker: lays out the engine's DOT with @viz-js/viz
// (Graphviz in wasm) off the main thread, so that a big graph does not block
// typing. Answers each request with the SVG as a string (Graphviz escapes the
// labels); the panel parses it as XML (never as HTML).
import { instance } from "@viz-js/viz";
import type { VizRequest, VizResponse } from "./viz-protocol";

const viz = instance();

function post(msg: VizResponse) {
  (self as unknown as Worker).postMessage(msg);
}

self.addEventListener("message", (e: MessageEvent<VizRequest>) => {
  const { id, dot, graphAttributes } = e.data;
  viz.then(
    (v) => {
      const t0 = performance.now();
      let svg: string;
      try {
        svg = v.renderString(dot, { format: "svg", graphAttributes });
      } catch (err) {
        post({ id, error: err instanceof Error ? err.message : String(err) });
        return;
      }
      post({ id, svg, layoutMs: performance.now() - t0 });
    },
    (err: unknown) => post({ id, error: `Graphviz did not load: ${err instanceof Error ? err.message : String(err)}` }),
  );
});
