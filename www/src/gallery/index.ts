// The examples gallery: the paper's figures 2 to 9, one module per mission
// extension, a few compute shaders and two fragment shaders (the Run tab
// draws them). Owned by the CFG panel work.
//
// Each example's text is examples/<id>.spvasm (imported as text by Vite).
// tests/tests/gallery.rs reads this file: keep one `id: "..."`,
// `targetEnv: "..."` and `valid: ...` line per entry, in that order, and name
// each example's file after its id. The `valid` flags are spirv-val's
// verdicts at `targetEnv` (checked there, with our validator too).
import fig2 from "./examples/paper-fig2.spvasm?raw";
import fig3 from "./examples/paper-fig3.spvasm?raw";
import fig4 from "./examples/paper-fig4.spvasm?raw";
import fig2Run from "./examples/paper-fig2-run.spvasm?raw";
import fig3Run from "./examples/paper-fig3-run.spvasm?raw";
import fig4Run from "./examples/paper-fig4-run.spvasm?raw";
import fig5 from "./examples/paper-fig5.spvasm?raw";
import fig6 from "./examples/paper-fig6.spvasm?raw";
import fig7 from "./examples/paper-fig7.spvasm?raw";
import fig8 from "./examples/paper-fig8.spvasm?raw";
import fig9Left from "./examples/paper-fig9-left.spvasm?raw";
import fig9Right from "./examples/paper-fig9-right.spvasm?raw";
import constantData from "./examples/ext-constant-data.spvasm?raw";
import untypedPointers from "./examples/ext-untyped-pointers.spvasm?raw";
import vla from "./examples/ext-variable-length-array.spvasm?raw";
import loopControls from "./examples/ext-unstructured-loop-controls.spvasm?raw";
import parallelSum from "./examples/compute-parallel-sum.spvasm?raw";
import breakContinue from "./examples/compute-break-continue.spvasm?raw";
import switchFallthrough from "./examples/compute-switch-fallthrough.spvasm?raw";
import graphicsfuzzDoWhile from "./examples/graphics-graphicsfuzz-do-while.spvasm?raw";
import gradient from "./examples/graphics-gradient.spvasm?raw";

export interface Example {
  /** Stable id, used in tests and URLs, e.g. `paper-fig3`. */
  id: string;
  title: string;
  /** "paper" | "extension" | "compute" | "graphics" */
  category: string;
  /** One paragraph: what it teaches and why it is valid or invalid. */
  caption: string;
  targetEnv: string;
  /** Whether spirv-val (and so our validator) accepts it at targetEnv. */
  valid: boolean;
  text: string;
  /** Set when the reference spirv-val cannot judge the example (it does not
   *  know the extension): `valid` is then our validator's verdict alone, and
   *  this says why. */
  referenceNote?: string;
}

export const EXAMPLES: Example[] = [
  {
    id: "paper-fig2",
    title: "Fig. 2: a while loop around an if/else",
    category: "paper",
    caption:
      "The basic shapes. Block b2 heads a loop (merge b8, dashed; continue target b7, dotted) and b3 heads an if/else whose merge is b6. " +
      "The loop construct is what b2 structurally dominates minus the continue construct {b7} and the merge; the selection construct is {b3, b4, b5}. " +
      "Here regular and structural dominance agree, every header strictly dominates its merge, and the only back edge b7 -> b2 comes from the continue construct: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig2,
  },
  {
    id: "paper-fig3",
    title: "Fig. 3: a do-while loop with an early break",
    category: "paper",
    caption:
      "The if headed by b3 breaks straight to the loop's merge b7. Under regular dominance b3 dominates b7, which would put the loop's merge inside the selection. " +
      "Structural dominance also follows merge and continue edges, and the path b1 -> b2 -> b7 over the loop's merge edge avoids b3, so b7 is not in the selection construct, which is just {b3, b4}. " +
      "Breaking from a selection to the innermost loop's merge is allowed: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig3,
  },
  {
    id: "paper-fig4",
    title: "Fig. 4: a loop with an early continue",
    category: "paper",
    caption:
      "The if headed by b3 jumps to the continue target b5. With regular dominance the selection construct would be {b3, b5} (b3 dominates b5); " +
      "with structural dominance the continue edge b2 -> b5 is a path around b3, so only the loop header structurally dominates the continue target and the selection construct is {b3}. " +
      "A branch from a selection to the innermost loop's continue target is a legal continue: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig4,
  },
  {
    id: "paper-fig2-run",
    title: "Fig. 2 fleshed: the while loop, runnable, with its path",
    category: "paper",
    caption:
      "Fig. 2's blocks b1..b8, fleshed as in the paper's section 6: each block appends its number to out.block (binding 0.1), and each conditional branch reads its next direction from dirs.dir (binding 0.0; non-zero takes the true target). " +
      "Chosen directions: u32: 1 1 1 0 0 (b2 enters the loop, b3 takes b4; b2 enters again, b3 takes b5; b2 leaves to b8). " +
      "Expected path, worked out by hand: b1 b2 b3 b4 b6 b7 b2 b3 b5 b6 b7 b2 b8, so out.block = 1 2 3 4 6 7 2 3 5 6 7 2 8. " +
      "Run it, then pick invocation 0,0,0 in the CFG panel's path bar (or click a cell of out) and step through the path.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig2Run,
  },
  {
    id: "paper-fig3-run",
    title: "Fig. 3 fleshed: the do-while loop with a break, runnable",
    category: "paper",
    caption:
      "Fig. 3's blocks b1..b7, fleshed as in the paper's section 6 (out.block records each block, dirs.dir gives each conditional branch its direction). " +
      "Chosen directions: u32: 1 1 0 (b3 takes b4, b6 loops back to b2, then b3 breaks to the loop's merge b7). " +
      "Expected path, worked out by hand: b1 b2 b3 b4 b5 b6 b2 b3 b7, so out.block = 1 2 3 4 5 6 2 3 7. " +
      "Stepping from b3 to b7 leaves the selection headed by b3 (whose merge is b5) and the loop headed by b2 (whose merge edge is b2 -> b7): the path view says so.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig3Run,
  },
  {
    id: "paper-fig4-run",
    title: "Fig. 4 fleshed: the loop with an early continue, runnable",
    category: "paper",
    caption:
      "Fig. 4's blocks b1..b6, fleshed as in the paper's section 6 (out.block records each block, dirs.dir gives each conditional branch its direction). " +
      "Chosen directions: u32: 1 1 1 0 0 (b2 enters the loop, b3 continues to b5; b2 enters again, b3 goes on to b4; b2 leaves to b6). " +
      "Expected path, worked out by hand: b1 b2 b3 b5 b2 b3 b4 b5 b2 b6, so out.block = 1 2 3 5 2 3 4 5 2 6.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig4Run,
  },
  {
    id: "paper-fig5",
    title: "Fig. 5: do { } while (false)",
    category: "paper",
    caption:
      "The body b2 leaves straight for the merge b4, so the continue target b3 is unreachable over branch edges. It is still structurally reachable over the continue edge b2 -> b3, " +
      "so the rules apply to it: b3 -> b2 is a back edge, b3 is the loop's single back-edge block and it lies in the continue construct {b3}. " +
      "This is how compilers emit a loop that runs once: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig5,
  },
  {
    id: "paper-fig6",
    title: "Fig. 6: a selection after two returns",
    category: "paper",
    caption:
      "Both arms of the first if return, so its merge b4 and the second if (b4 to b7) cannot run. Regular dominance says nothing useful about unreachable blocks (anything dominates them), " +
      "but the merge edge b1 -> b4 makes them structurally reachable: b4 structurally dominates {b4, b5, b6, b7}, so the second selection construct is {b4, b5, b6}, not empty, and is checked like any other: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig6,
  },
  {
    id: "paper-fig7",
    title: "Fig. 7: two headers, each the other's merge (invalid)",
    category: "paper",
    caption:
      "Headers b5 and b10 name each other as merge block, in a part of the CFG reached only through the merge edge of the returning if b1. " +
      "A header must strictly structurally dominate its merge; b5 strictly structurally dominates b10, so b10 cannot structurally dominate b5. " +
      "The branch b8 -> b5 is then a back edge to a block that is not a loop header, which is how spirv-val reports it: invalid.",
    targetEnv: "spv1.6",
    valid: false,
    text: fig7,
  },
  {
    id: "paper-fig8",
    title: "Fig. 8: a syntactically infinite loop around a loop",
    category: "paper",
    caption:
      "The outer loop b2 never exits, so its merge b7 is unreachable and no block inside reaches an exit over branch edges: regular post-dominance is vacuous there. " +
      "The old definition made the inner loop's continue construct everything dominated by b4, {b4, b5, b6}, swallowing the outer loop's body; " +
      "with structural post-dominance (which follows the merge edges to an exit) the continue construct of b3 is just {b4}, which is its back-edge block: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig8,
  },
  {
    id: "paper-fig9-left",
    title: "Fig. 9 (left): a header that is its own continue target (invalid)",
    category: "paper",
    caption:
      "b2 is both loop header and continue target, and b3 is the back-edge block. The continue construct is what b2 structurally dominates and b3 structurally post-dominates. " +
      "b3 post-dominates b2 over branch edges, but the merge edge b2 -> b4 reaches the exit without passing b3, so b3 does not structurally post-dominate b2: " +
      "the back-edge block must structurally post-dominate the continue target, and here it does not: invalid.",
    targetEnv: "spv1.6",
    valid: false,
    text: fig9Left,
  },
  {
    id: "paper-fig9-right",
    title: "Fig. 9 (right): the same loop with its own continue target",
    category: "paper",
    caption:
      "The fix for the left-hand figure: an empty block b5 becomes the continue target. Now every path from b5 to an exit, merge edges included, goes through the back-edge block b3, " +
      "so b3 structurally post-dominates b5 and the continue construct is {b5, b3}; the body b10, b11 is in the loop construct: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: fig9Right,
  },
  {
    id: "ext-constant-data",
    title: "SPV_KHR_constant_data: a lookup table",
    category: "extension",
    caption:
      "A table of sixteen Fibonacci numbers given as one OpConstantDataKHR (its bytes as literal words) initialises a Function variable that each invocation indexes. " +
      "The CFG is a single block that is both entry and exit, so structural and regular dominance are trivial; the rules checked are the extension's: " +
      "the capability and extension are declared and the data's size matches the array type, so the module is valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: constantData,
    referenceNote:
      "spirv-val v2025.5 does not know SPV_KHR_constant_data (its assembler rejects the ConstantDataKHR capability), so `valid` is spvlab's verdict only.",
  },
  {
    id: "ext-untyped-pointers",
    title: "SPV_KHR_untyped_pointers: type punning through one pointer",
    category: "extension",
    caption:
      "One untyped Function variable holds a struct; OpUntypedAccessChainKHR names the base type at each access, and the same memory is stored as a float and read back as a uint. " +
      "The function is one block, entry and exit at once (no constructs): the point is that pointers no longer carry the pointee type, and each access says how to interpret memory. " +
      "The extension and UntypedPointersKHR capability are declared: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: untypedPointers,
  },
  {
    id: "ext-variable-length-array",
    title: "SPV_INTEL_variable_length_array: a stack array per loop trip",
    category: "extension",
    caption:
      "An OpenCL kernel loops n times; each trip saves the Function memory state, allocates a runtime-sized array, uses it and restores the state before the back edge, so memory does not grow with the trip count. " +
      "Kernels have no merge instructions: the loop is unstructured, there are no constructs, and structural dominance is plain dominance. " +
      "The save dominates its restore in the same block, as the extension expects: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: vla,
  },
  {
    id: "ext-unstructured-loop-controls",
    title: "SPV_INTEL_unstructured_loop_controls: hints on a Kernel loop",
    category: "extension",
    caption:
      "OpenCL kernels cannot use OpLoopMerge, so their loops carry no merge or continue edges and the CFG has no constructs. OpLoopControlINTEL (here Unroll) passes the hints anyway: " +
      "it must sit just before the branch of a block that is the target of a back edge (body -> header) and that dominates the back-edge block. Both hold: valid.",
    targetEnv: "spv1.6",
    valid: true,
    text: loopControls,
  },
  {
    id: "compute-parallel-sum",
    title: "Compute: a parallel sum (workgroup reduction)",
    category: "compute",
    caption:
      "64 invocations load one element each into shared memory; a loop halves the stride each trip, the active half adds pairs inside a selection, and a barrier ends each trip. " +
      "The selection (header body, merge sync) nests in the loop construct; the continue construct is the block that halves the stride; after the loop, a second selection lets invocation 0 write the total. " +
      "Every header strictly structurally dominates its merge and the only back edge leaves the continue construct: valid for Vulkan. " +
      "Expected with the Run panel's defaults (one workgroup; input 0, 1, …, 63; output zeros): output.data[0] = 2016 (0 + 1 + … + 63 = 63 × 64 / 2), output.data[1] = 0.",
    targetEnv: "vulkan1.3",
    valid: true,
    text: parallelSum,
  },
  {
    id: "compute-break-continue",
    title: "Compute: a loop with break and continue",
    category: "compute",
    caption:
      "A loop that sums a buffer, breaking at a sentinel and skipping zeros. The break is a branch from a selection header straight to the loop's merge, the continue one from a nested selection to the continue target: " +
      "both leave their selection constructs for the innermost loop's merge or continue target, which the rules allow, and neither target is structurally dominated by the selection headers. Valid for Vulkan. " +
      "Expected with the Run panel's defaults (buf = 0, 1, …, 63: no sentinel, one zero skipped): buf.data[0] = 120 (1 + 2 + … + 15), buf.data[1] = 1 (untouched).",
    targetEnv: "vulkan1.3",
    valid: true,
    text: breakContinue,
  },
  {
    id: "compute-switch-fallthrough",
    title: "Compute: a switch with fallthrough",
    category: "compute",
    caption:
      "Case 0 falls through into case 1 and case 2 into case 3. Each case target heads a case construct (the blocks it structurally dominates inside the switch); " +
      "a case may branch to one other case target only, and that target must come right after it in the OpSwitch, as here. Valid for Vulkan. " +
      "Expected with the Run panel's defaults (buf = 0, 1, …, 63: 0 % 4 = 0 picks case 0): buf.data[0] = 11 (1, then 10 falling through), buf.data[1] = 1 (untouched).",
    targetEnv: "vulkan1.3",
    valid: true,
    text: switchFallthrough,
  },
  {
    id: "graphics-graphicsfuzz-do-while",
    title: "Graphics: a GraphicsFuzz test's fragment shader (do-while in a conditional nest)",
    category: "graphics",
    caption:
      "A fragment shader from the Vulkan CTS's GraphicsFuzz tests (graphicsfuzz_do_while_loop_in_conditionals.amber). It stores red, then enters a do-while loop only when gl_FragCoord.x < 0, which no pixel has. " +
      "In the Run tab it draws over 256x256 with Amber's passthrough vertex shader, on the interpreter and on WebGPU; the test expects every pixel to be (255, 0, 0, 255). " +
      "Click a pixel to see its path on the CFG: %5, %15, %26, %16, the loop never entered.",
    targetEnv: "spv1.0",
    valid: true,
    text: graphicsfuzzDoWhile,
  },
  {
    id: "graphics-gradient",
    title: "Graphics: a gradient from the pixel's position",
    category: "graphics",
    caption:
      "A small fragment shader: red is FragCoord.x / 256 and green FragCoord.y / 256, so a 256x256 draw goes from black at the top left to yellow at the bottom right; a branch makes the left half bluer (0.75) than the right (0.25). " +
      "Pixel (x, y) is drawn at its centre (x + 0.5, y + 0.5): pixel (200, 3) is round(200.5 / 256 * 255) = 200, round(3.5 / 256 * 255) = 3, round(0.25 * 255) = 64. " +
      "Click pixels on either side of the middle to see the two paths on the CFG.",
    targetEnv: "vulkan1.0",
    valid: true,
    text: gradient,
  },
];
