// The CFG panel's toolbar (function, drawing options, zoom, downloads) and its
// legend (every style the drawing uses). Names are untrusted: they only go
// into textContent and Option text.
import type { CfgView, FunctionCfg } from "../api";
import { SVG_NS } from "./drawing";

export interface ToolbarEvents {
  onFunction(id: number): void;
  onView(view: CfgView): void;
  onZoom(factor: number): void;
  onFit(): void;
  onActualSize(): void;
  onDownloadSvg(): void;
  onDownloadDot(): void;
}

export interface Toolbar {
  element: HTMLElement;
  legend: HTMLElement;
  /** Show these options (from the panel's state). */
  showView(view: CfgView): void;
  /** Fill the function menu. */
  showFunctions(functions: readonly FunctionCfg[], current: number | undefined): void;
}

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

/** The function menu's text for a function: its name and its size. */
export function functionLabel(f: FunctionCfg): string {
  const name = f.name || String(f.id);
  return `${name} (${f.blocks.length} block${f.blocks.length === 1 ? "" : "s"})`;
}

export function mountToolbar(events: ToolbarEvents): Toolbar {
  const fnSelect = el("select", { className: "cfg-function", title: "The function to draw" });
  fnSelect.setAttribute("aria-label", "function");
  const listing = checkbox("listing", "Show each block's full instruction listing");
  const constructs = checkbox("constructs", "Draw the constructs (selection, loop, continue, switch, case) as nested regions");
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
  const element = el(
    "div",
    { className: "cfg-toolbar" },
    el("label", { className: "cfg-toggle" }, document.createTextNode("function "), fnSelect),
    listing.wrap,
    constructs.wrap,
    domSelect,
    hide.wrap,
    containing.wrap,
    el("span", { className: "cfg-spacer" }),
    el(
      "span",
      { className: "cfg-buttons" },
      button("−", "Zoom out (-)", () => events.onZoom(1 / 1.25)),
      button("+", "Zoom in (+)", () => events.onZoom(1.25)),
      button("fit", "Fit the graph to the view (0)", () => events.onFit()),
      button("1:1", "Actual size", () => events.onActualSize()),
    ),
    el(
      "span",
      { className: "cfg-buttons" },
      button("SVG", "Download the drawing as SVG", () => events.onDownloadSvg()),
      button("DOT", "Download the DOT source", () => events.onDownloadDot()),
    ),
  );
  element.setAttribute("role", "toolbar");
  element.setAttribute("aria-label", "CFG view options");

  const read = (): CfgView => ({
    listing: listing.input.checked,
    constructs: constructs.input.checked,
    dominators: domSelect.value as CfgView["dominators"],
    hideUnreachable: hide.input.checked,
    containing: containing.input.checked,
  });
  for (const input of [listing.input, constructs.input, hide.input, containing.input, domSelect]) {
    input.addEventListener("change", () => events.onView(read()));
  }
  fnSelect.addEventListener("change", () => {
    const id = Number(fnSelect.value);
    if (Number.isFinite(id)) events.onFunction(id);
  });

  return {
    element,
    legend: legend(),
    showView(v) {
      listing.input.checked = v.listing;
      constructs.input.checked = v.constructs;
      domSelect.value = v.dominators;
      hide.input.checked = v.hideUnreachable;
      containing.input.checked = v.containing;
    },
    showFunctions(fns, current) {
      const same =
        fnSelect.options.length === fns.length &&
        fns.every((f, i) => fnSelect.options[i].value === String(f.id) && fnSelect.options[i].text === functionLabel(f));
      if (!same) fnSelect.replaceChildren(...fns.map((f) => new Option(functionLabel(f), String(f.id))));
      if (current !== undefined) fnSelect.value = String(current);
      fnSelect.disabled = fns.length <= 1;
    },
  };
}

// ------------------------------------------------------------------ legend --

/** A rectangle, and the entry (house) and exit (inverted house) shapes, in
 *  the swatches' 24x14 box. */
const BOX = "1,1 21,1 21,13 1,13";
const HOUSE = "1,6 11,1 21,6 21,13 1,13";
const INVHOUSE = "1,1 21,1 21,8 11,13 1,8";

/** A swatch: a short line (no points) or a polygon, drawn on white in the
 *  style given (the engine's DOT styles, core/src/analysis/dot.rs, and the
 *  marks of cfg.css). */
function swatch(style: string, points?: string): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("width", "24");
  svg.setAttribute("height", "14");
  svg.setAttribute("aria-hidden", "true");
  const e = document.createElementNS(SVG_NS, points ? "polygon" : "line");
  if (points) e.setAttribute("points", points);
  else for (const [k, v] of [["x1", "1"], ["y1", "7"], ["x2", "23"], ["y2", "7"]]) e.setAttribute(k, v);
  e.setAttribute("style", `fill: #ffffff; stroke: #000000; stroke-width: 1.2; ${style}`);
  svg.append(e);
  return svg;
}

/** One entry: its caption, the SVG classes it explains (`element.class`,
 *  space-separated: the browser test checks that every class drawn has its
 *  entry), its swatch's style and shape. */
type Entry = [caption: string, classes: string, style: string, points?: string];

const LEGEND: [group: string, entries: Entry[]][] = [
  [
    "edges",
    [
      ["branch", "edge.branch", ""],
      ["merge", "edge.merge", "stroke: #1f6fb2; stroke-dasharray: 5 2"],
      ["continue", "edge.continue", "stroke: #7a3fb0; stroke-dasharray: 1 3; stroke-width: 2"],
      ["back edge", "edge.back", "stroke: #c0392b; stroke-width: 2.5"],
      ["dominator tree", "dom", "stroke: #999999; stroke-dasharray: 5 2"],
    ],
  ],
  [
    "blocks",
    [["entry", "block.entry", "", HOUSE], ["exit", "block.exit", "", INVHOUSE], ["block", "block", "", BOX]],
  ],
  [
    "",
    [
      ["unreachable", "block.unreachable", "stroke: #888888; stroke-dasharray: 3 2", BOX],
      ["under the cursor", "cfg-highlight", "fill: #fff1b8; stroke: #b58900; stroke-width: 2", BOX],
      ["selected", "block.selected cfg-selected", "stroke: #0b62c4; stroke-width: 2.5", BOX],
      ["problem", "cfg-diag", "stroke: #d0312d; stroke-width: 2.5", BOX],
    ],
  ],
  [
    "constructs",
    [
      ["selection", "construct.selection", "fill: none; stroke: #1f6fb2", BOX],
      ["loop", "construct.loop", "fill: none; stroke: #2e8b57", BOX],
      ["continue", "construct.continue", "fill: none; stroke: #7a3fb0", BOX],
      ["switch", "construct.switch", "fill: none; stroke: #b8860b", BOX],
      ["case", "construct.case", "fill: none; stroke: #cd853f", BOX],
    ],
  ],
  ["", [["containing the selection", "construct.selected cfg-containing", "fill: #e3efff; stroke: #0b62c4; stroke-width: 2", BOX]]],
  // The teaching marks (www/src/teach/teach.css).
  [
    "teaching",
    [
      ["differs (compare)", "teach-diff", "fill: #fde0ec; stroke: #c2185b; stroke-width: 2.5", BOX],
      ["masked (compare)", "teach-masked", "fill: #fff3c4; stroke: #8d6e00; stroke-width: 2.5; stroke-dasharray: 4 2", BOX],
      ["dominated by the entry", "teach-dominated", "fill: #d8f0d8", BOX],
      ["taken away", "teach-excluded", "fill: #f6dcdc; stroke-dasharray: 4 2", BOX],
      ["allowed exit", "teach-allowed teach-exit-ok", "stroke: #2e7d32; stroke-width: 2; stroke-dasharray: 6 3"],
      ["exit breaking the rules", "teach-exit-bad", "stroke: #d0312d; stroke-width: 3"],
    ],
  ],
];

function legend(): HTMLElement {
  const details = el("details", { className: "cfg-legend" });
  details.append(el("summary", { text: "legend" }));
  for (const [group, entries] of LEGEND) {
    const row = el("div", { className: "cfg-legend-group" }, el("span", { className: "cfg-legend-head", text: group }));
    for (const [caption, classes, style, points] of entries) {
      const item = el("span", { className: "cfg-legend-item" }, swatch(style, points), document.createTextNode(caption));
      item.dataset.style = classes;
      row.append(item);
    }
    details.append(row);
  }
  // Open where there is room for it; on a phone it is one tap away.
  details.open = !matchMedia("(max-width: 700px)").matches;
  return details;
}
