//! The rule table of the control-flow family.

use crate::valid::rules::Rule;

macro_rules! rules {
    ($( $code:literal => $summary:literal, $expl:literal; )*) => {
        pub(in crate::valid) static RULES: &[Rule] = &[
            $( Rule { code: $code, summary: $summary, explanation: $expl }, )*
        ];
    };
}

rules! {
    "cfg.target-not-label" => "Branch and merge targets must be OpLabel ids.",
    "Every target of OpBranch, OpBranchConditional and OpSwitch, and the Merge Block and \
     Continue Target of OpSelectionMerge / OpLoopMerge, names a block by the result id of its \
     OpLabel (SPIR-V 1.6r2, 3.52.17). Control can only move to the start of a block, so a \
     target that is a value, a type or a function makes no sense.";
    "cfg.label-in-other-function" => "Blocks named by a function must be defined in that function.",
    "A function's control flow stays inside it (SPIR-V 2.2.5: the CFG of a function is made \
     of its own blocks). Branching to, merging at or continuing to a block of another \
     function would leave the function without a call or return.";
    "cfg.switch-selector-not-int" => "The selector of OpSwitch must be an integer scalar.",
    "OpSwitch compares its Selector with literal case values, which are integers of the \
     selector's width (3.52.17); the Selector's type must be OpTypeInt.";
    "cfg.switch-too-many-branches" => "OpSwitch has more (literal, label) pairs than the limit.",
    "SPIR-V's universal limits (section 2.17) bound the number of OpSwitch targets; spirv-val \
     checks it against --max-switch-branches (16383 by default).";
    "cfg.nesting-too-deep" => "Structured control flow is nested deeper than the limit.",
    "With structured control flow (the Shader capability), constructs nest; the nesting depth \
     of a block is the number of headers enclosing it. spirv-val bounds it with \
     --max-control-flow-nesting-depth (1023 by default), following the universal limits.";
    "cfg.entry-block-targeted" => "The first block of a function must not be a branch target.",
    "The entry block is where a call starts; SPIR-V 2.16.1 requires that it is not the target \
     of any branch, so that it has no predecessors and dominates every block. A loop must \
     therefore start in a later block (the entry block cannot be a loop header with a back edge).";
    "cfg.merge-block-reused" => "A block may be the merge block of only one header.",
    "Each header declares its own merge block, where its construct ends (2.11). Two headers \
     sharing a merge block would make the two constructs end at the same point, so the \
     nesting of constructs would no longer be a tree.";
    "cfg.loop-merge-is-header" => "A loop's Merge Block cannot be the loop header itself.",
    "The merge block of a loop is where control goes after the loop; it must be strictly \
     structurally dominated by the header (2.11), so it cannot be the header block.";
    "cfg.merge-equals-continue" => "Merge Block and Continue Target must differ.",
    "OpLoopMerge names two different blocks: where the loop exits (Merge Block) and where an \
     iteration continues (Continue Target). One block cannot play both roles (3.52.17).";
    "cfg.loop-control-conflict" => "Loop controls contradict each other.",
    "Unroll and DontUnroll are opposite hints, and PeelCount or PartialCount ask for partial \
     unrolling, which DontUnroll forbids (3.23 Loop Control).";
    "cfg.iteration-multiple-zero" => "IterationMultiple must be greater than zero.",
    "IterationMultiple says the iteration count is a multiple of its operand; 3.23 requires \
     the operand to be greater than 0.";
    "cfg.same-true-false-labels" => "From SPIR-V 1.6, True Label and False Label must differ.",
    "SPIR-V 1.6 requires the two targets of OpBranchConditional to be different labels \
     (3.52.17); a conditional branch to one block is an unconditional branch in disguise and \
     confuses the structured rules that count successors.";
    "cfg.merge-placement" => "A merge instruction must be the second-to-last instruction of its block.",
    "OpSelectionMerge must immediately precede OpBranchConditional or OpSwitch, and OpLoopMerge \
     must immediately precede OpBranch or OpBranchConditional (3.52.17): the merge instruction \
     declares the header of the construct that the block's own branch opens.";
    "cfg.selection-unstructured" => "A conditional branch that diverges must be a selection or loop header.",
    "In structured control flow (Shader), a conditional branch to two blocks that were not \
     already declared as merge or continue targets opens a new divergent region; it must be \
     preceded by OpSelectionMerge (2.11: every divergence has a merge point). A loop header's \
     OpLoopMerge does not count as the merge of such a branch (SPIRV-Tools #5069).";
    "cfg.switch-without-merge" => "OpSwitch must be preceded by OpSelectionMerge.",
    "With the Shader capability every OpSwitch heads a switch construct, so its block must \
     declare where the construct merges with OpSelectionMerge (2.11).";
    "cfg.block-before-dominator" => "A block must not appear before its dominator.",
    "SPIR-V 2.16.1: the order of blocks in a function must satisfy the rule that blocks appear \
     before all blocks they dominate. A reader can then process blocks in order and has seen \
     every definition that dominates a use.";
    "cfg.back-edge-not-to-loop-header" => "Back edges may only target loop headers.",
    "In structured control flow (2.11), the only way to go back is a loop: every back edge \
     (a branch to a block still on the depth-first search stack) must target a block that \
     declares OpLoopMerge. Since SPIR-V 1.6r2 the search follows merge and continue edges as \
     well as branches, so it also walks blocks that no branch reaches, and a branch there can \
     be a back edge (Klimis et al., POPL 2023, figures 5 and 7).";
    "cfg.back-edge-count" => "A loop header must be targeted by exactly one back-edge block.",
    "2.11: a loop header's back edges must all come from one block, the back-edge block, which \
     ends the continue construct. With no back edge the loop never loops; with several, the \
     continue construct has no single end.";
    "cfg.merge-not-structurally-dominated" => "A header must structurally dominate its merge block.",
    "2.11: the construct of a selection or loop header is the set of blocks structurally \
     dominated by the header but not by its merge block; for that to be a region with one \
     entry and one exit, every path to the merge block (following branch, merge and continue \
     edges) must pass through the header.";
    "cfg.merge-is-header" => "A selection's merge block must differ from its header.",
    "The merge block must be strictly structurally dominated by its header (2.11).";
    "cfg.back-edge-block-not-dominated" => "The continue target must structurally dominate the back-edge block.",
    "2.11: the continue construct runs from the continue target to the back-edge block; the \
     continue target must structurally dominate the back-edge block.";
    "cfg.continue-not-post-dominated" => "The back-edge block must structurally post-dominate the continue target.",
    "2.11: the continue construct is the set of blocks structurally dominated by the continue \
     target and structurally post-dominated by the back-edge block; every path out of the \
     continue target must reach the back-edge block, so that each iteration ends by \
     branching back to the header (Klimis et al., POPL 2023, figure 9).";
    "cfg.continue-without-back-edge" => "A continue construct needs a back-edge block.",
    "The continue construct ends at the loop's back-edge block; a continue target whose loop \
     header is never branched back to has no such block.";
    "cfg.unstructured-exit" => "A construct may only be left through a structured exit.",
    "2.11: control leaves a selection only by its merge block, or by breaking to the nearest \
     enclosing loop's merge or continue target, or to the enclosing switch's merge; a loop by \
     its merge block or continue target; a continue construct by branching back to the loop \
     header or to the loop's merge block.";
    "cfg.construct-entered-mid" => "A construct may only be entered through its header.",
    "2.11: every block of a construct other than its header has all its predecessors inside the \
     construct. Branching into the middle of a construct bypasses the header, so the header \
     no longer dominates the region it is responsible for.";
    "cfg.header-merge-escapes" => "A nested header's merge block must be inside the enclosing construct.",
    "Constructs nest (2.11): when a header lies inside a construct, its own construct, up to \
     and including its merge block, must lie inside too.";
    "cfg.continue-from-outside-loop" => "Only blocks of the loop may branch to its continue target.",
    "2.11: a continue target is entered from within its loop (or by its own back edge); \
     branching to it from outside the loop construct continues a loop that is not running.";
    "cfg.case-not-dominated" => "A switch header must structurally dominate its case constructs.",
    "2.11: each case construct is entered only from its OpSwitch (or by fall through), so the \
     switch header structurally dominates every Target and the Default.";
    "cfg.case-invalid-exit" => "A case construct may only branch to its switch's targets or structured exits.",
    "2.11: a case construct is left by branching to the switch's merge block, to another case \
     construct (fall through), or by a structured exit of the enclosing constructs (loop merge \
     or continue target).";
    "cfg.case-multiple-fallthrough" => "A case construct may fall through to at most one other case.",
    "2.11: a case construct branches to at most one other case construct, so fall through forms \
     a chain.";
    "cfg.case-fallthrough-order" => "A case that falls through must immediately precede its target.",
    "2.11: if Target T1 branches to Target T2 (or to the Default, which branches to T2), T1 must \
     immediately precede T2 in the OpSwitch's list of targets: fall through follows the order \
     of the cases.";
    "cfg.case-fallthrough-shared" => "A case construct may be the fall-through target of only one case.",
    "2.11: each case construct is branched to by at most one other case construct.";
    "cfg.maximal-reconvergence" => "MaximallyReconvergesKHR entry points need simpler control flow.",
    "SPV_KHR_maximal_reconvergence: in functions reachable from an entry point with the \
     MaximallyReconvergesKHR execution mode, OpBranchConditional targets must differ and only \
     merge blocks, continue targets, loop headers and switch targets may have several \
     predecessors, so that every reconvergence point is explicit.";
    "cfg.loop-control-intel" => "OpLoopControlINTEL must be in the header of an unstructured loop.",
    "SPV_INTEL_unstructured_loop_controls: OpLoopControlINTEL must be in a block that is the \
     target of a back edge and dominates the back-edge block, must immediately precede OpBranch \
     or OpBranchConditional (second-to-last instruction), and cannot share its block with \
     OpLoopMerge.";
}
