// The sections of the SPIR-V specification that the rules' explanations
// cite, linked into the unified specification (the help panel lists them;
// a problem's explanation links those it names).
import { el } from "./dom";

export const SPEC_URL = "https://registry.khronos.org/SPIR-V/specs/unified1/SPIRV.html";

export interface SpecSection {
  /** The number the explanations cite ("2.11"), or "" for a chapter 3 table. */
  number: string;
  title: string;
  anchor: string;
  /** What it is about, for the help panel. */
  about: string;
}

export const SPEC_SECTIONS: SpecSection[] = [
  { number: "2.2.5", title: "Control Flow", anchor: "_control_flow", about: "blocks, edges, dominance, back edges" },
  { number: "2.4", title: "Logical Layout of a Module", anchor: "_logical_layout_of_a_module", about: "the order of the sections" },
  { number: "2.11", title: "Structured Control Flow", anchor: "StructuredControlFlow", about: "headers, merges, constructs, structural dominance" },
  { number: "2.16.1", title: "Universal Validation Rules", anchor: "_universal_validation_rules", about: "SSA, block order, addressing" },
  { number: "2.17", title: "Universal Limits", anchor: "_universal_limits", about: "the most ids, members, operands" },
  { number: "", title: "Capability", anchor: "Capability", about: "what each capability enables" },
  { number: "", title: "Control-Flow Instructions", anchor: "_control_flow_instructions", about: "OpLoopMerge, OpSelectionMerge, OpBranch, OpSwitch…" },
];

/** A link to a section (its number and title). */
export function specLink(sec: SpecSection): HTMLAnchorElement {
  const a = el("a", "", `${sec.number ? `§${sec.number}` : "§3"} ${sec.title}`);
  a.href = `${SPEC_URL}#${sec.anchor}`;
  a.target = "_blank";
  a.rel = "noopener";
  return a;
}

/** The sections a text cites by number ("2.11", "section 2.4"), in the
 *  order of the specification. */
export function citedSections(text: string): SpecSection[] {
  return SPEC_SECTIONS.filter((s) => s.number && new RegExp(`(^|[^\\d.])${s.number.replace(/\./g, "\\.")}(?![\\d]|\\.\\d)`).test(text));
}
