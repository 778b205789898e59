// The CFG panel's drawing: Graphviz's SVG parsed as XML (never HTML), its
// labels kept inside their boxes, self-loops made visible, and the marks
// (highlight, selection, containing constructs, the selected problem) as
// classes on its elements.
//
// Conventions of the engine's DOT (core/src/analysis/dot.rs), which Graphviz
// copies into the SVG:
//   nodes     id="block-<label id>"            class="block ..."
//   edges     id="edge-<from>-<to>-<kind>"     class="edge branch|merge|continue [back]"
//   clusters  id="construct-<index>"           class="construct <kind>"
//   dominator id="dom-<from>-<to>"             class="dom regular|structural"
// (<index> is the construct's index in FunctionCfg.constructs.)

export const SVG_NS = "http://www.w3.org/2000/svg";

/** Parse Graphviz's SVG as XML (never HTML) and adopt its root element. */
export function parseSvg(text: string): SVGSVGElement | undefined {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const top = doc.documentElement;
  if (top.namespaceURI !== SVG_NS || top.localName !== "svg" || doc.querySelector("parsererror")) return undefined;
  // Adopt (move) rather than import (copy): the parsed tree is not used again.
  return document.adoptNode(top) as unknown as SVGSVGElement;
}

/** The drawing's size in its own units (Graphviz's points), if it has one. */
export function svgSize(svg: SVGSVGElement): { w: number; h: number } | undefined {
  const vb = svg.viewBox.baseVal;
  return vb && vb.width > 0 && vb.height > 0 ? { w: vb.width, h: vb.height } : undefined;
}

/** Space kept between a label and its box's border (SVG units). */
const LABEL_PAD = 2;

/** Whether the browser draws the drawing's text at most as wide as Graphviz
 *  measured it: Courier's 0.6 em per character (layout.ts), for ASCII text.
 *  One text element tells, as the font is the same for all; it is measured
 *  in a canvas with its computed font, which costs no layout of the SVG
 *  (measuring it in place would lay the whole drawing out at once). */
export function fontMatchesLayout(svg: SVGSVGElement, dot: string): boolean {
  // Graphviz's tables and the browser's fallback fonts differ most outside ASCII.
  if (/[^\x00-\x7f]/.test(dot)) return false;
  const t = svg.querySelector<SVGTextElement>("g.node > text");
  const text = t?.textContent ?? "";
  const size = Number(t?.getAttribute("font-size"));
  if (!t || text.length === 0 || !(size > 0)) return true;
  const ctx = document.createElement("canvas").getContext("2d");
  if (!ctx) return false;
  const css = getComputedStyle(t);
  ctx.font = `${css.fontStyle} ${css.fontWeight} ${size}px ${css.fontFamily}`;
  ctx.letterSpacing = css.letterSpacing === "normal" ? "0px" : css.letterSpacing;
  return ctx.measureText(text).width <= text.length * size * 0.6 * 1.002 + 0.5;
}

/**
 * Keep every label of a node or cluster inside its box. Graphviz measured the
 * text with its own font tables (Courier: layout.ts); where the browser's font
 * is still wider, the text is condensed to the width the box has
 * (`textLength`, glyphs and spacing), so no text crosses a border whatever the
 * fonts. Returns how many labels needed it. Call with the SVG in the document.
 */
export function fitLabels(svg: SVGSVGElement): number {
  let fitted = 0;
  for (const g of svg.querySelectorAll<SVGGElement>("g.node, g.cluster")) {
    const shape = g.querySelector<SVGGraphicsElement>(":scope > polygon, :scope > path, :scope > ellipse");
    const texts = g.querySelectorAll<SVGTextElement>(":scope > text");
    if (!shape || texts.length === 0) continue;
    const box = shape.getBBox();
    const left = box.x + LABEL_PAD;
    const right = box.x + box.width - LABEL_PAD;
    if (right <= left) continue;
    for (const t of texts) {
      const b = t.getBBox();
      if (b.x >= left - 0.5 && b.x + b.width <= right + 0.5) continue;
      const x = Number(t.getAttribute("x"));
      const anchor = t.getAttribute("text-anchor") ?? "start";
      // The width the label may take from its anchor point, inside the box.
      let width: number;
      if (anchor === "middle") width = 2 * Math.min(x - left, right - x);
      else if (anchor === "end") width = x - left;
      else width = right - x;
      if (!(width > 0)) continue;
      t.setAttribute("textLength", width.toFixed(2));
      t.setAttribute("lengthAdjust", "spacingAndGlyphs");
      fitted++;
    }
  }
  return fitted;
}

/** Mark self-loop edges (a block that is its own target, as the continue
 *  edge of a header that is its own continue target, Fig. 9 left): the
 *  stylesheet draws them thicker, with their arrowhead, so they are seen. */
export function markSelfLoops(svg: SVGSVGElement) {
  for (const g of svg.querySelectorAll<SVGGElement>("g.edge")) {
    const m = /^(?:edge|dom)-(\d+)-(\d+)-/.exec(g.id);
    if (m && m[1] === m[2]) g.classList.add("self-loop");
  }
}

/** What the marks show. */
export interface Marks {
  highlighted: readonly number[];
  selected: number | undefined;
  /** Construct indices holding the selected block (when asked for). */
  containing: readonly number[];
  /** The selected problem's blocks and edges (label ids), if it concerns the
   *  function drawn. */
  problemBlocks: readonly number[];
  problemEdges: readonly (readonly [number, number])[];
}

function blockEls(svg: SVGSVGElement, id: number): Element[] {
  const e = svg.querySelector(`[id="block-${id}"]`);
  return e ? [e] : [];
}

function clearClass(svg: SVGSVGElement, cls: string) {
  svg.querySelectorAll(`.${cls}`).forEach((e) => e.classList.remove(cls));
}

/** Put the marks on the drawing (classes only; the ids are numbers). */
export function applyMarks(svg: SVGSVGElement, m: Marks) {
  clearClass(svg, "cfg-highlight");
  for (const id of m.highlighted) blockEls(svg, id).forEach((e) => e.classList.add("cfg-highlight"));
  clearClass(svg, "cfg-selected");
  if (m.selected !== undefined) blockEls(svg, m.selected).forEach((e) => e.classList.add("cfg-selected"));
  clearClass(svg, "cfg-containing");
  for (const i of m.containing) svg.querySelector(`[id="construct-${i}"]`)?.classList.add("cfg-containing");
  clearClass(svg, "cfg-diag");
  for (const b of m.problemBlocks) blockEls(svg, b).forEach((e) => e.classList.add("cfg-diag"));
  for (const [from, to] of m.problemEdges) {
    svg.querySelectorAll(`[id^="edge-${from}-${to}-"]`).forEach((e) => e.classList.add("cfg-diag"));
  }
}
