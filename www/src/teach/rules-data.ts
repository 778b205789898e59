// Plain data: a short explanation of each structured-control-flow rule the
// validator reports (its diagnostic code), and the gallery example
// (www/src/gallery) that shows it. The Problems panel links each such
// diagnostic to both. A new rule needs a new entry, no code.

export interface RuleTeaching {
  /** Two or three sentences, for a learner. */
  text: string;
  /** The gallery example that shows the rule (its id). */
  example: string;
}

export const RULE_TEACHING: Record<string, RuleTeaching> = {
  "cfg.back-edge-not-to-loop-header": {
    text:
      "A back edge is an edge to a block that the structural depth-first search (from the entry, over branch, merge and continue edges) is still visiting. " +
      "Going back is only allowed to a loop header, through its single back-edge block. In Fig. 7 the merge edges make the search reach %b5 before %b8, so %b8 -> %b5 is a back edge to a selection header.",
    example: "paper-fig7",
  },
  "cfg.back-edge-count": {
    text:
      "Every loop header is the target of exactly one back edge, from its back-edge block (the block that ends each iteration). " +
      "A second branch back to the header, or none at all, breaks the loop's shape. Fig. 5 shows that even a loop that runs once (its continue target unreachable) has its back edge.",
    example: "paper-fig5",
  },
  "cfg.merge-not-structurally-dominated": {
    text:
      "A header must strictly structurally dominate its merge block: every path from the entry to the merge, over branch, merge and continue edges, passes the header. " +
      "Regular dominance (1.6r1) ignored merge and continue edges; Fig. 7's cyclic merges are the paper's example of what structural dominance rejects.",
    example: "paper-fig7",
  },
  "cfg.merge-is-header": {
    text: "A selection's merge block is where the selection ends; it cannot be the header itself.",
    example: "paper-fig2",
  },
  "cfg.back-edge-block-not-dominated": {
    text: "The continue target must structurally dominate the back-edge block: the continue construct runs from the continue target to the back edge.",
    example: "paper-fig9-right",
  },
  "cfg.continue-not-post-dominated": {
    text:
      "The back-edge block must structurally post-dominate the continue target: every path from the continue target to an exit, merge edges included, goes through it. " +
      "In Fig. 9 (left) the header is its own continue target, and its merge edge escapes the back-edge block; a separate continue block (Fig. 9 right) fixes it.",
    example: "paper-fig9-left",
  },
  "cfg.continue-without-back-edge": {
    text: "A continue construct ends at the loop's back-edge block; a loop whose continue target never branches back to the header has none.",
    example: "paper-fig5",
  },
  "cfg.unstructured-exit": {
    text:
      "A construct may be left only through its structured exits: its merge block, a break to the innermost loop's merge, a continue to its continue target, a return, " +
      "or (for a case) a fallthrough to the next case. The construct explorer (click a header in the CFG) draws the exits a construct allows.",
    example: "compute-break-continue",
  },
  "cfg.construct-entered-mid": {
    text: "A construct is entered only through its header (or its entry block); a branch into its middle from outside bypasses the header.",
    example: "paper-fig2",
  },
  "cfg.header-merge-escapes": {
    text: "Constructs nest: a header inside a construct must have its merge block inside that construct too (or be its merge).",
    example: "paper-fig3",
  },
  "cfg.continue-from-outside-loop": {
    text: "Only blocks of the loop construct may branch to the loop's continue target (a `continue`), as in Fig. 4's early continue.",
    example: "paper-fig4",
  },
  "cfg.case-not-dominated": {
    text: "A switch header must structurally dominate each case construct: a case is entered only from the switch.",
    example: "compute-switch-fallthrough",
  },
  "cfg.case-invalid-exit": {
    text: "A case construct may branch only to its switch's merge, the next case (fallthrough), or a structured exit of an enclosing loop.",
    example: "compute-switch-fallthrough",
  },
  "cfg.case-multiple-fallthrough": {
    text: "A case may fall through to at most one other case.",
    example: "compute-switch-fallthrough",
  },
  "cfg.case-fallthrough-order": {
    text: "A case that falls through must come immediately before its target in the OpSwitch's target list.",
    example: "compute-switch-fallthrough",
  },
  "cfg.case-fallthrough-shared": {
    text: "A case may be the fallthrough target of only one other case.",
    example: "compute-switch-fallthrough",
  },
  "cfg.merge-block-reused": {
    text: "Each header has its own merge block; two headers sharing one would make their constructs end together, and constructs would no longer nest.",
    example: "paper-fig3",
  },
  "cfg.loop-merge-is-header": {
    text: "A loop's merge block is where the loop ends; it cannot be the loop header.",
    example: "paper-fig2",
  },
  "cfg.merge-equals-continue": {
    text: "A loop's merge block (where it exits) and continue target (where an iteration continues) are two different blocks.",
    example: "paper-fig2",
  },
  "cfg.selection-unstructured": {
    text: "In a shader, a conditional branch whose targets differ must be in a selection or loop header, so that the paths meet again at its merge.",
    example: "paper-fig2",
  },
  "cfg.switch-without-merge": {
    text: "OpSwitch heads a switch construct: it must be preceded by OpSelectionMerge.",
    example: "compute-switch-fallthrough",
  },
  "cfg.block-before-dominator": {
    text: "Blocks are written in an order where each block comes after its dominator.",
    example: "paper-fig2",
  },
};

/** The teaching entry of a diagnostic code, if it is a structured-control-flow rule. */
export function ruleTeaching(code: string): RuleTeaching | undefined {
  return Object.prototype.hasOwnProperty.call(RULE_TEACHING, code) ? RULE_TEACHING[code] : undefined;
}
