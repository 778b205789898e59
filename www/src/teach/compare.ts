// The "1.6r1 | 1.6r2 | compare" control of the CFG panel, and what each
// mode shows: 1.6r1 draws the graph without 1.6r2's construct regions, marks
// 1.6r1's back edges and lists its constructs (hover one to shade it) and
// verdict; compare marks the blocks whose construct membership differs (and
// the masked ones, where it agrees for different reasons), each with a note
// naming the dominance fact that differs (core's compare_revisions()).
import type { TeachMode, TeachRevision, TeachView } from "./types";
import { el } from "../dom";

export const MODES: readonly TeachMode[] = ["1.6r1", "1.6r2", "compare"];

export interface ModeBar {
  element: HTMLElement;
  show(mode: TeachMode): void;
  /** The verdicts of the function drawn (none: unknown yet). */
  verdicts(view: TeachView | undefined): void;
}

export function modeBar(onMode: (m: TeachMode) => void): ModeBar {
  const group = el("span", "teach-modes");
  group.setAttribute("role", "radiogroup");
  group.setAttribute("aria-label", "SPIR-V 1.6 revision of the structured control flow rules");
  const buttons = MODES.map((m) => {
    const b = el("button", "teach-mode", m);
    b.type = "button";
    b.dataset.mode = m;
    b.setAttribute("role", "radio");
    b.title =
      m === "compare"
        ? "Mark the blocks whose construct membership differs between 1.6r1 and 1.6r2, and say why"
        : m === "1.6r1"
          ? "Constructs, back edges and verdict under SPIR-V 1.6 revision 1 (regular dominance)"
          : "Constructs, back edges and verdict under SPIR-V 1.6 revision 2 (structural dominance)";
    b.addEventListener("click", () => onMode(m));
    return b;
  });
  group.append(...buttons);
  const verdict = el("span", "teach-verdict");
  verdict.setAttribute("aria-live", "polite");
  const element = el("span", "teach-bar-modes");
  element.append(group, verdict);
  return {
    element,
    show(mode) {
      for (const b of buttons) b.setAttribute("aria-checked", String(b.dataset.mode === mode));
    },
    verdicts(view) {
      verdict.replaceChildren();
      if (!view) return;
      for (const r of [view.r1, view.r2]) {
        const s = el("span", `teach-verdict-item ${r.valid ? "valid" : "invalid"}`, `${r.revision}: ${r.valid ? "valid" : "invalid"}`);
        s.dataset.revision = r.revision;
        verdict.append(s);
      }
    },
  };
}

function verdictPane(r: TeachRevision): HTMLElement {
  const box = el("section", "teach-revision");
  box.dataset.revision = r.revision;
  box.append(el("h4", "", `Under ${r.revision}: ${r.valid ? "valid" : "invalid"} (the rules of section 2.11)`));
  if (r.violations.length) {
    const ul = el("ul", "teach-violations");
    for (const v of r.violations) ul.append(el("li", "", v));
    box.append(ul);
  }
  return box;
}

/** 1.6r1 mode: verdict, back edges, constructs (hovering one shades it). */
export function r1Pane(view: TeachView, name: (id: number) => string, onHover: (i: number | undefined) => void): HTMLElement {
  const box = verdictPane(view.r1);
  const be = view.r1.backEdges.map(([a, b]) => `%${name(a)} -> %${name(b)}`);
  box.append(el("p", "teach-backedges", `Back edges (depth-first search over branch edges only): ${be.length ? be.join(", ") : "none"}`));
  const ul = el("ul", "teach-constructs");
  view.r1.constructs.forEach((c, i) => {
    const li = el("li", "", `${c.title}: {${c.blocks.map((b) => "%" + name(b)).join(", ")}}`);
    li.dataset.index = String(i);
    li.tabIndex = 0;
    li.addEventListener("mouseenter", () => onHover(i));
    li.addEventListener("focus", () => onHover(i));
    li.addEventListener("mouseleave", () => onHover(undefined));
    li.addEventListener("blur", () => onHover(undefined));
    ul.append(li);
  });
  box.append(el("p", "", "Constructs (hover one to shade its blocks):"), ul);
  return box;
}

export function r2Pane(view: TeachView): HTMLElement {
  return verdictPane(view.r2);
}

/** Compare mode: one note per marked block. */
export function comparePane(view: TeachView): HTMLElement {
  const box = el("section", "teach-compare");
  const head = `${view.r1.revision}: ${view.r1.valid ? "valid" : "invalid"} · ${view.r2.revision}: ${view.r2.valid ? "valid" : "invalid"}`;
  box.append(el("h4", "", `Compare: ${head}`));
  if (view.differing.length + view.masked.length === 0) {
    box.append(el("p", "none", "Both revisions give every construct the same blocks, for the same reasons."));
    return box;
  }
  const ul = el("ul", "teach-notes");
  for (const [notes, cls] of [[view.differing, "differs"], [view.masked, "masked"]] as const) {
    for (const n of notes) {
      const li = el("li", cls);
      li.dataset.block = String(n.block);
      li.append(el("span", "teach-tag", cls === "differs" ? "differs" : "masked"), document.createTextNode(" " + n.note));
      ul.append(li);
    }
  }
  box.append(ul);
  return box;
}

const node = (svg: SVGSVGElement, id: number) => svg.querySelector<SVGGElement>(`[id="block-${id}"]`);

export function markCompare(svg: SVGSVGElement, view: TeachView) {
  const diff = new Set(view.differing.map((n) => n.block));
  for (const id of diff) node(svg, id)?.classList.add("teach-diff");
  for (const n of view.masked) if (!diff.has(n.block)) node(svg, n.block)?.classList.add("teach-masked");
}

export function markR1(svg: SVGSVGElement, view: TeachView, hovered: number | undefined) {
  for (const [a, b] of view.r1.backEdges) {
    svg.querySelectorAll(`[id="edge-${a}-${b}-branch"]`).forEach((e) => e.classList.add("teach-r1-back"));
  }
  const c = hovered === undefined ? undefined : view.r1.constructs[hovered];
  for (const id of c?.blocks ?? []) node(svg, id)?.classList.add("teach-member");
}
