// Messages between the CFG panel and its Graphviz worker (viz.worker.ts).

export type GraphAttributes = Record<string, string | number | boolean>;

/** Lay out `dot`; `id` pairs the answer with the request. */
export interface VizRequest {
  id: number;
  dot: string;
  graphAttributes?: GraphAttributes;
}

/** The SVG (a string, from Graphviz) and the layout's time, or an error. */
export type VizResponse =
  | { id: number; svg: string; layoutMs: number; error?: undefined }
  | { id: number; error: string; svg?: undefined };
