// Plain data: one guided lesson per paper example (figures 2 to 9 of Klimis
// et al., POPL 2023; www/src/gallery). Each says what to look at, offers one
// edit to try, and states the outcome that edit gives: the page checks the
// outcome on each analysis (lessons.ts) and says when the learner got there.
// A new lesson needs a new entry here, no code.
//
// Every edit below was checked by hand with spvlab and the reference
// spirv-val (both give the verdict `expect.valid`).
import type { ConstructKind } from "../api";

/** What the module must look like once the edit is made. Every field given
 *  must hold; the lesson's own example must not satisfy it. */
export interface Expectation {
  /** The validator's verdict. */
  valid?: boolean;
  /** A diagnostic code that must be reported. */
  code?: string;
  /** A diagnostic code that must not be reported. */
  noCode?: string;
  /** A construct's membership (1.6r2, as drawn): the construct of `kind`
   *  whose header (a case construct: its case target) is the block named
   *  `at` (without `%`) holds `block` or not. */
  member?: { kind: ConstructKind; at: string; block: string; holds: boolean };
}

export interface Lesson {
  id: string;
  /** The gallery example it starts from. */
  example: string;
  title: string;
  /** What to look at (the CFG panel's mode to use, the blocks to click). */
  look: string;
  /** The mode the lesson starts the CFG panel in. */
  mode: "1.6r1" | "1.6r2" | "compare";
  /** The edit to try, in words. */
  edit: string;
  expect: Expectation;
  /** What the learner sees once the edit is made, and why. */
  outcome: string;
}

export const LESSONS: Lesson[] = [
  {
    id: "fig2",
    example: "paper-fig2",
    title: "Fig. 2: constructs are dominance regions",
    look:
      "Click the loop header %b2: the explorer shades what %b2 structurally dominates, the part its merge %b8 takes away, and draws the exits the loop allows (its merge %b8, its continue target %b7, a return).",
    mode: "1.6r2",
    edit: "Make %b5 branch back to the loop header (OpBranch %b2 instead of OpBranch %b6).",
    expect: { valid: false, code: "cfg.back-edge-count" },
    outcome: "%b2 now has two back edges (%b5 -> %b2 and %b7 -> %b2): a loop header has exactly one back-edge block.",
  },
  {
    id: "fig3",
    example: "paper-fig3",
    title: "Fig. 3: a break is not part of the selection",
    look:
      "Switch to compare: under 1.6r1 %b3 regularly dominates the loop's merge %b7, so %b7 would be in the selection; the merge edge %b2 -> %b7 is a path around %b3, so structurally it is not.",
    mode: "compare",
    edit: "Make the selection end at the loop's merge: OpSelectionMerge %b7 instead of %b5 in %b3.",
    expect: { valid: false, code: "cfg.merge-not-structurally-dominated" },
    outcome: "%b3 dominates %b7 over branch edges only; the merge edge %b2 -> %b7 bypasses it, so %b3 does not structurally dominate its new merge (and %b7 is now the merge of two headers).",
  },
  {
    id: "fig4",
    example: "paper-fig4",
    title: "Fig. 4: a continue is not part of the selection",
    look:
      "In compare mode %b5 is marked: under 1.6r1 it is in the selection of %b3 (%b3 dominates it), under 1.6r2 it is not (the continue edge %b2 -> %b5 goes around %b3).",
    mode: "compare",
    edit: "Make the selection end at the continue target: OpSelectionMerge %b5 instead of %b4 in %b3.",
    expect: { valid: false, code: "cfg.merge-not-structurally-dominated" },
    outcome: "The continue edge %b2 -> %b5 is a path to %b5 that avoids %b3: %b3 does not structurally dominate its merge %b5.",
  },
  {
    id: "fig5",
    example: "paper-fig5",
    title: "Fig. 5: the back edge of a loop that runs once",
    look:
      "Switch to 1.6r1: %b3 cannot be reached over branch edges, so the depth-first search of 1.6r1 finds no back edge and the loop has none. Under 1.6r2 the continue edge reaches %b3 and %b3 -> %b2 is the back edge.",
    mode: "1.6r1",
    edit: "Remove the back edge: make %b3 end with OpBranch %b4.",
    expect: { valid: false, code: "cfg.back-edge-count" },
    outcome: "Now the loop header %b2 has no back edge at all, under either revision: a loop needs exactly one.",
  },
  {
    id: "fig6",
    example: "paper-fig6",
    title: "Fig. 6: unreachable code is still checked",
    look:
      "Compare mode marks %b4, %b5 and %b6: under 1.6r1 the selection of %b4 is empty (the unreachable merge %b7 vacuously dominates everything unreachable); under 1.6r2 it is {%b4, %b5, %b6}.",
    mode: "compare",
    edit: "Make %b5 branch back to %b4 (OpBranch %b4 instead of OpBranch %b7).",
    expect: { valid: false, code: "cfg.back-edge-not-to-loop-header" },
    outcome: "%b4 is structurally reachable (merge edge %b1 -> %b4), so the rules apply: %b5 -> %b4 is a back edge to a block that is not a loop header.",
  },
  {
    id: "fig7",
    example: "paper-fig7",
    title: "Fig. 7: cyclic merges, and their root cause",
    look:
      "Open Problems: besides the back-edge messages, the root cause is that %b10 does not structurally dominate its merge block %b5. In 1.6r1 mode the verdict is valid: both headers vacuously dominate each other's merge.",
    mode: "1.6r2",
    edit: "Give %b10 a merge of its own: add a block `%b11 = OpLabel` / `OpReturn` at the end, merge %b10 at %b11, and make %b8 and %b9 branch to %b11.",
    expect: { valid: true, noCode: "cfg.merge-not-structurally-dominated" },
    outcome: "Now %b10 strictly structurally dominates its merge %b11, and nothing branches back to %b5: valid.",
  },
  {
    id: "fig8",
    example: "paper-fig8",
    title: "Fig. 8: the continue construct of an inner loop",
    look:
      "Compare mode marks %b5 and %b6 as masked: both revisions leave them out of the continue construct of %b4, but for different reasons (under 1.6r1 %b4 post-dominates them vacuously, and only the merge-block clause takes them out).",
    mode: "compare",
    edit: "Make the outer loop's back edge go to the inner loop: OpBranch %b3 instead of OpBranch %b2 in %b6.",
    expect: { valid: false, code: "cfg.back-edge-count" },
    outcome: "%b6 -> %b3 is a second back edge into %b3 and the outer header %b2 has none.",
  },
  {
    id: "fig9-left",
    example: "paper-fig9-left",
    title: "Fig. 9: a header that is its own continue target",
    look:
      "Under 1.6r1 this loop is valid (%b3 post-dominates %b2 over branch edges); under 1.6r2 the merge edge %b2 -> %b4 escapes %b3, so %b3 does not structurally post-dominate the continue target %b2.",
    mode: "compare",
    edit:
      "Give the loop a separate continue block: add `%b5 = OpLabel` / `OpBranch %b3` before %b3, make %b5 the continue target (OpLoopMerge %b4 %b5 None) and make %b11 branch to %b5.",
    expect: { valid: true, member: { kind: "loop", at: "b2", block: "b10", holds: true } },
    outcome:
      "This is Fig. 9 (right): every path from %b5 to an exit goes through %b3, so the continue construct is {%b5, %b3}, and the body %b10, %b11 moves from the continue construct into the loop construct.",
  },
  {
    id: "fig9-right",
    example: "paper-fig9-right",
    title: "Fig. 9 (right): why the continue block matters",
    look: "Click %b5: the continue construct is what %b5 structurally dominates and %b3 structurally post-dominates, {%b5, %b3}.",
    mode: "1.6r2",
    edit: "Undo the fix: make %b2 its own continue target (OpLoopMerge %b4 %b2 None) and make %b11 branch to %b3.",
    expect: { valid: false, code: "cfg.continue-not-post-dominated" },
    outcome: "Back to Fig. 9 (left): the merge edge %b2 -> %b4 reaches an exit without passing %b3.",
  },
];
