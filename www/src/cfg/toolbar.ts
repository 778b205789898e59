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

/** A swatch: a small SVG with one element of the given kind and classes. */
function swatch(kind: "line" | "shape", cls: string, points = "1,1 21,1 21,13 1,13"): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("width", "24");
  svg.setAttribute("height", "14");
  svg.setAttribute("aria-hidden", "true");
  let e: SVGElement;
  if (kind === "line") {
    e = document.createElementNS(SVG_NS, "line");
    e.setAttribute("x1", "1");
    e.setAttribute("y1", "7");
    e.setAttribute("x2", "23");
    e.setAttribute("y2", "7");
  } else {
    e = document.createElementNS(SVG_NS, "polygon");
    e.setAttribute("points", points);
  }
  e.setAttribute("class", cls);
  svg.append(e);
  return svg;
}

/** Every style of the drawing, each with `data-style` naming the SVG classes
 *  it explains, `element.class` (the browser test checks that every class
 *  drawn has its entry). */
const LEGEND: { group: string; items: [caption: string, style: string, kind: "line" | "shape", cls: string, points?: string][] }[] = [
  {
    group: "edges",
    items: [
      ["branch", "edge.branch", "line", "lg-branch"],
      ["merge", "edge.merge", "line", "lg-merge"],
      ["continue", "edge.continue", "line", "lg-continue"],
      ["back edge", "edge.back", "line", "lg-back"],
      ["dominator tree", "dom", "line", "lg-dom"],
    ],
  },
  {
    group: "blocks",
    items: [
      ["entry", "block.entry", "shape", "lg-block", "1,6 11,1 21,6 21,13 1,13"],
      ["exit", "block.exit", "shape", "lg-block", "1,1 21,1 21,8 11,13 1,8"],
      ["block", "block", "shape", "lg-block"],
      ["unreachable", "block.unreachable", "shape", "lg-unreachable"],
      ["under the cursor", "cfg-highlight", "shape", "lg-highlight"],
      ["selected", "block.selected cfg-selected", "shape", "lg-selected"],
      ["problem", "cfg-diag", "shape", "lg-diag"],
    ],
  },
  {
    group: "constructs",
    items: [
      ["selection", "construct.selection", "shape", "lg-construct lg-selection"],
      ["loop", "construct.loop", "shape", "lg-construct lg-loop"],
      ["continue", "construct.continue", "shape", "lg-construct lg-continue-c"],
      ["switch", "construct.switch", "shape", "lg-construct lg-switch"],
      ["case", "construct.case", "shape", "lg-construct lg-case"],
      ["containing the selection", "construct.selected cfg-containing", "shape", "lg-construct lg-containing"],
    ],
  },
];

function legend(): HTMLElement {
  const details = el("details", { className: "cfg-legend" });
  details.append(el("summary", { text: "legend" }));
  for (const g of LEGEND) {
    const row = el("div", { className: "cfg-legend-group" }, el("span", { className: "cfg-legend-head", text: g.group }));
    for (const [caption, style, kind, cls, points] of g.items) {
      const item = el("span", { className: "cfg-legend-item" }, swatch(kind, cls, points), document.createTextNode(caption));
      item.dataset.style = style;
      row.append(item);
    }
    details.append(row);
  }
  // Open where there is room for it; on a phone it is one tap away.
  details.open = !matchMedia("(max-width: 700px)").matches;
  return details;
}
