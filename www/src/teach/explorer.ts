// The construct explorer: a construct's definition worked out on the graph,
// its two dominance regions shaded, the exits it allows drawn (dashed arrows
// from its header), its actual exits marked (allowed, or flagged), and, for a
// clicked block, the constructs holding it with the rule for each.
import { SVG_NS } from "../cfg/drawing";
import { el } from "../dom";
import type { Containing, Explored, TeachView } from "./types";

/** The construct a click shows: the one rooted at the clicked block (its
 *  header's own construct first), or the cluster clicked. */
export function focusOf(view: TeachView, block: number | undefined, cluster: number | undefined): number | undefined {
  if (cluster !== undefined && view.constructs[cluster]) return cluster;
  if (block === undefined) return undefined;
  const own = view.constructs.findIndex((c) => c.header === block && c.entry === block && c.kind !== "continue" && c.kind !== "case");
  if (own >= 0) return own;
  const rooted = view.constructs.findIndex((c) => c.entry === block);
  return rooted >= 0 ? rooted : undefined;
}

/** The explorer's text for construct `c`. */
export function explorerPane(ex: Explored, index: number, name: (id: number) => string): HTMLElement {
  const box = el("section", "teach-explorer");
  box.dataset.construct = String(index);
  box.append(el("h4", "", `Explorer: ${ex.title}`));
  box.append(el("p", "teach-definition", ex.definition));
  const regions = el("p", "teach-regions");
  const sw = (cls: string, text: string) => {
    const s = el("span", `teach-swatch ${cls}`);
    s.setAttribute("aria-hidden", "true");
    return [s, document.createTextNode(text)];
  };
  regions.append(...sw("dominated", " structurally dominated by the entry  "), ...sw("excluded", " taken away"));
  box.append(regions);
  const allowed = el("p", "teach-allowed-exits");
  allowed.append(el("strong", "", "Allowed exits: "));
  allowed.append(
    document.createTextNode(ex.allowed.map((a) => (a.to === undefined ? a.kind : `${a.kind} to %${name(a.to)}`)).join(", ")),
  );
  box.append(allowed);
  const list = el("ul", "teach-exits");
  if (ex.exits.length === 0) list.append(el("li", "none", "No exits: control never leaves it."));
  for (const x of ex.exits) {
    const from = x.from === undefined ? "" : `%${name(x.from)}`;
    const text = x.to === undefined ? `${from}: return (leaves the function)` : `${from} -> %${name(x.to)}: ${x.kind}`;
    const li = el("li", x.allowed ? "ok" : "bad", (x.allowed ? "✓ " : "✗ ") + text + (x.allowed ? "" : " (breaks the exit rules)"));
    li.dataset.from = String(x.from ?? "");
    li.dataset.to = String(x.to ?? "");
    list.append(li);
  }
  box.append(el("p", "teach-exits-head", "Its exits:"), list);
  return box;
}

/** The constructs holding a block, innermost first, with the rule for each. */
export function containingPane(c: Containing | undefined, view: TeachView, name: (id: number) => string): HTMLElement {
  const box = el("section", "teach-containing");
  if (!c) return box;
  box.dataset.block = String(c.block);
  box.append(el("h4", "", `%${name(c.block)} is in`));
  const ol = el("ol", "");
  if (c.constructs.length === 0) ol.append(el("li", "none", "no construct (it is outside every construct)"));
  for (const [i, rule] of c.constructs) {
    const li = el("li", "");
    li.dataset.construct = String(i);
    li.append(el("strong", "", view.constructs[i]?.title ?? `construct ${i}`), document.createTextNode(`: ${rule}`));
    ol.append(li);
  }
  box.append(ol);
  return box;
}

const node = (svg: SVGSVGElement, id: number) => svg.querySelector<SVGGElement>(`[id="block-${id}"]`);

/** The centre of a node in the drawing's coordinates (its shape's box). */
function centre(g: SVGGElement): { x: number; y: number; h: number } | undefined {
  const shape = g.querySelector<SVGGraphicsElement>(":scope > polygon, :scope > path, :scope > ellipse");
  if (!shape) return undefined;
  const b = shape.getBBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2, h: b.height };
}

/** Shade the regions, mark the exits and draw the allowed ones. */
export function markExplorer(svg: SVGSVGElement, ex: Explored) {
  for (const id of ex.dominated) node(svg, id)?.classList.add("teach-dominated");
  for (const id of ex.excluded) node(svg, id)?.classList.add("teach-excluded");
  for (const id of ex.blocks) node(svg, id)?.classList.add("teach-in");
  for (const x of ex.exits) {
    if (x.from === undefined || x.to === undefined) continue;
    svg.querySelectorAll(`[id="edge-${x.from}-${x.to}-branch"]`).forEach((e) => e.classList.add(x.allowed ? "teach-exit-ok" : "teach-exit-bad"));
    if (!x.allowed) node(svg, x.from)?.classList.add("teach-exit-bad");
  }
  // The allowed exits: a dashed arrow from the header to each target.
  const graph = svg.querySelector<SVGGElement>("g.graph") ?? svg.querySelector<SVGGElement>("g");
  const head = node(svg, ex.header);
  const from = head && centre(head);
  if (!graph || !from) return;
  const layer = document.createElementNS(SVG_NS, "g");
  layer.setAttribute("class", "teach-overlay");
  for (const a of ex.allowed) {
    if (a.to === undefined) continue;
    const t = node(svg, a.to);
    const to = t && centre(t);
    if (!t || !to) continue;
    t.classList.add("teach-allowed-target");
    const g = document.createElementNS(SVG_NS, "g");
    g.setAttribute("class", "teach-allowed");
    g.setAttribute("id", `teach-allowed-${a.to}`);
    g.dataset.kind = a.kind;
    // A curve bowing to the right, so that it does not lie on the edges.
    const mx = Math.max(from.x, to.x) + 40 + Math.abs(to.y - from.y) * 0.15;
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", `M ${from.x} ${from.y} Q ${mx} ${(from.y + to.y) / 2} ${to.x} ${to.y - to.h / 2}`);
    const label = document.createElementNS(SVG_NS, "text");
    label.setAttribute("x", String(mx - 10));
    label.setAttribute("y", String((from.y + to.y) / 2));
    label.textContent = a.kind;
    g.append(path, label);
    layer.append(g);
  }
  graph.append(layer);
}
