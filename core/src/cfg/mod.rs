//! Control-flow analysis of each function of a module, following the SPIR-V
//! 1.6 revision 2 definitions (section 2.2.5 and 2.11; Klimis et al., "Taking
//! Back Control in an Intermediate Representation for GPU Computing", POPL 2023):
//!
//! * blocks, in module order, with their terminator and merge instruction;
//! * the three kinds of edge: **branch** edges (targets of `OpBranch`,
//!   `OpBranchConditional`, `OpSwitch`), **merge** edges (header → merge block)
//!   and **continue** edges (loop header → continue target);
//! * reachability over branch edges, *structural* reachability over all three;
//! * dominator and post-dominator trees, regular (branch edges) and structural
//!   (all edges), with O(1) queries;
//! * back edges: branch edges to a block on the stack of a depth-first search
//!   over structured edges that starts at the entry block and goes on from the
//!   blocks it did not reach (see [`FunctionCfg::back_edge_pairs`]), so that
//!   cycles of unreachable blocks have back edges too, as spirv-val finds them;
//! * the structured constructs (selection, switch, loop, continue, case) as block
//!   sets defined with structural (post-)dominance, the innermost construct of
//!   each block, the construct tree, and which branches leave a construct by a
//!   structured exit ([`FunctionCfg::is_structured_exit`]).
//!
//! This is the one definition of back edges, constructs and construct exits:
//! the page draws it and the validator's structured rules (`valid::cfg`) judge
//! it.
//!
//! Nothing here panics or recurses: malformed functions (a missing terminator,
//! a branch to an id that is not a label of the function, ...) are analysed as
//! far as they go; dangling edges and oddities are recorded for the validator.
//!
//! Post-dominance is computed over the reversed graph with a virtual exit
//! joined to every exit block (a block whose terminator is a termination
//! instruction, see [`is_exit_opcode`]). A block with no path to an exit block
//! is not in the post-dominator tree: it post-dominates itself and nothing else
//! and is post-dominated by nothing else (rather than vacuously by every block);
//! [`FunctionCfg::reaches_exit`] / [`FunctionCfg::structurally_reaches_exit`]
//! tell them apart. In a valid function every structurally reachable block has
//! a structured path to an exit (merge edges leave every loop), so the
//! structural post-dominator tree covers them all.
//!
//! Likewise blocks not reached from the entry are not in the dominator trees
//! (`dominates(a, b)` is then `a == b`); the spec places no requirement on
//! structurally unreachable blocks, and constructs only contain structurally
//! reachable blocks.

mod construct;
mod dom;
mod r1;
#[cfg(test)]
mod tests;

pub use construct::{Construct, ConstructKind};
pub use dom::{Csr, DomTree, immediate_dominators};
pub use r1::{
    Comparison, DomFact, Membership, PairedConstruct, Relation, RevConstruct, Revision, RevisionView,
    SearchStep, Violation,
};

use crate::grammar::op;
use crate::binary::OperandParser;
use crate::grammar::OperandKind;
use crate::ir::Ir;
use crate::module::Module;
use alloc::vec;
use alloc::vec::Vec;

/// "No index" in the compact arrays.
pub const NONE: u32 = u32::MAX;


/// Whether the opcode is a branch instruction (it has branch edges).
pub fn is_branch_opcode(opcode: u16) -> bool {
    matches!(opcode, op::OpBranch | op::OpBranchConditional | op::OpSwitch)
}

/// Whether the opcode ends the function's execution in this block (a
/// termination instruction other than a branch): `OpReturn`, `OpReturnValue`,
/// `OpKill`, `OpUnreachable`, `OpTerminateInvocation`, `OpTerminateRayKHR`,
/// `OpIgnoreIntersectionKHR`, `OpEmitMeshTasksEXT`, `OpAbortKHR`. (The NV ray
/// tracing `OpTerminateRayNV` / `OpIgnoreIntersectionNV` are not terminators.)
pub fn is_exit_opcode(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpKill
            | op::OpReturn
            | op::OpReturnValue
            | op::OpUnreachable
            | op::OpTerminateInvocation
            | op::OpIgnoreIntersectionKHR
            | op::OpTerminateRayKHR
            | op::OpAbortKHR
            | op::OpEmitMeshTasksEXT
    )
}

/// Whether the opcode ends a block.
pub fn is_terminator_opcode(opcode: u16) -> bool {
    is_branch_opcode(opcode) || is_exit_opcode(opcode)
}

/// The kind of an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum EdgeKind {
    /// A branch instruction's target.
    Branch,
    /// A merge instruction's Merge Block.
    Merge,
    /// An `OpLoopMerge`'s Continue Target.
    Continue,
}

impl EdgeKind {
    /// `branch`, `merge` or `continue`, as drawn and serialised.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Branch => "branch",
            EdgeKind::Merge => "merge",
            EdgeKind::Continue => "continue",
        }
    }
}

/// One edge between two blocks of a function (indices into [`FunctionCfg::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub kind: EdgeKind,
    /// The instruction (index into `Module::instructions`) naming the target.
    pub instruction: u32,
    /// The index of the target's word in that instruction's operands.
    pub operand: u32,
}

/// An edge whose target id is not a block of the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DanglingEdge {
    pub from: u32,
    /// The id named as the target.
    pub target: u32,
    pub kind: EdgeKind,
    pub instruction: u32,
    pub operand: u32,
}

/// The kind of a merge instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MergeKind {
    /// `OpSelectionMerge`.
    Selection,
    /// `OpLoopMerge`.
    Loop,
}

/// A block's merge instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct MergeInfo {
    pub kind: MergeKind,
    /// Index of the merge instruction in `Module::instructions`.
    pub instruction: u32,
    /// The Merge Block id, and its block index if it is a block of the function.
    pub merge_id: u32,
    pub merge_block: Option<u32>,
    /// For `OpLoopMerge`: the Continue Target id, and its block index.
    pub continue_id: Option<u32>,
    pub continue_block: Option<u32>,
}

/// One block.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Block {
    /// The `OpLabel` result id.
    pub label: u32,
    /// The block's instructions are `Module::instructions[start..end]`: from its
    /// `OpLabel` to its terminator (or, without one, to the next label or the end
    /// of the function).
    pub start: u32,
    pub end: u32,
    /// Index of the terminator instruction, if the block has one.
    pub terminator: Option<u32>,
    /// The terminator's opcode.
    pub terminator_opcode: Option<u16>,
    /// The (last) merge instruction before the terminator.
    pub merge: Option<MergeInfo>,
    /// An `OpLoopControlINTEL` in the block (unstructured loop control: no edges).
    pub loop_control_intel: Option<u32>,
}

impl Block {
    /// Whether the block's terminator is a termination instruction (not a branch).
    pub fn is_exit(&self) -> bool {
        self.terminator_opcode.is_some_and(is_exit_opcode)
    }
}

/// A small set of block roles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Roles(pub u16);

impl Roles {
    pub const ENTRY: Roles = Roles(1);
    pub const EXIT: Roles = Roles(1 << 1);
    /// Has an `OpSelectionMerge` and is not terminated by `OpSwitch`.
    pub const SELECTION_HEADER: Roles = Roles(1 << 2);
    /// Has an `OpSelectionMerge` and is terminated by `OpSwitch`.
    pub const SWITCH_HEADER: Roles = Roles(1 << 3);
    pub const LOOP_HEADER: Roles = Roles(1 << 4);
    /// The target of a merge edge.
    pub const MERGE_BLOCK: Roles = Roles(1 << 5);
    /// The target of a continue edge.
    pub const CONTINUE_TARGET: Roles = Roles(1 << 6);
    /// The source of a back edge.
    pub const BACK_EDGE_BLOCK: Roles = Roles(1 << 7);
    /// The target of a back edge.
    pub const BACK_EDGE_TARGET: Roles = Roles(1 << 8);
    /// A target of an `OpSwitch` in a switch header (default included).
    pub const CASE_TARGET: Roles = Roles(1 << 9);

    pub fn contains(self, r: Roles) -> bool {
        self.0 & r.0 == r.0
    }

    pub fn insert(&mut self, r: Roles) {
        self.0 |= r.0;
    }

    /// Any header (selection, switch or loop).
    pub fn is_header(self) -> bool {
        self.0 & (Self::SELECTION_HEADER.0 | Self::SWITCH_HEADER.0 | Self::LOOP_HEADER.0) != 0
    }
}

impl core::ops::BitOr for Roles {
    type Output = Roles;
    fn bitor(self, r: Roles) -> Roles {
        Roles(self.0 | r.0)
    }
}

/// Something odd about a function's shape that the analysis worked around.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CfgIssue {
    /// The block has no terminator before the next label or the function's end.
    MissingTerminator { block: u32 },
    /// Instructions follow the block's terminator before the next label.
    InstructionsAfterTerminator { block: u32, instruction: u32 },
    /// A block holds more than one merge instruction (the last one is used).
    MultipleMergeInstructions { block: u32, instruction: u32 },
    /// A branch or merge instruction lacks a target operand.
    MissingTarget { block: u32, instruction: u32 },
    /// An `OpSwitch` whose operands could not be parsed (its selector's type
    /// is unknown or not an integer): only its Default edge is recorded.
    UnparsedSwitch { block: u32, instruction: u32 },
    /// An `OpLabel` outside a function.
    LabelOutsideFunction { instruction: u32 },
    /// An `OpFunction` not closed by `OpFunctionEnd`.
    UnterminatedFunction { instruction: u32 },
}

/// The control-flow analysis of a whole module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ModuleCfg {
    /// One per `OpFunction`, in module order (declarations have no blocks).
    pub functions: Vec<FunctionCfg>,
    /// Issues outside any function.
    pub issues: Vec<CfgIssue>,
}

/// The control-flow analysis of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FunctionCfg {
    /// The function's result id.
    pub id: u32,
    /// Index of its `OpFunction` instruction.
    pub instruction: u32,
    /// Index of its `OpFunctionEnd`, if present.
    pub end_instruction: Option<u32>,
    /// The blocks in module order; block 0 is the entry block.
    pub blocks: Vec<Block>,
    /// Every edge, grouped by source block; for each block: its merge edge,
    /// its continue edge, then its branch edges in operand order (duplicates kept).
    pub edges: Vec<Edge>,
    edge_start: Vec<u32>,
    /// Edges to ids that are not blocks of this function.
    pub dangling: Vec<DanglingEdge>,
    pub issues: Vec<CfgIssue>,
    /// `(label id, block index)`, sorted.
    labels: Vec<(u32, u32)>,
    roles: Vec<Roles>,
    /// Per edge: whether it is a back edge.
    back_edge: Vec<bool>,
    /// The back edges as (source, target) blocks, deduplicated, in the order
    /// the search finds them.
    back_pairs: Vec<(u32, u32)>,
    /// Per block: the sources of the back edges to it.
    back_sources: Csr,
    /// Per block: the headers whose merge instruction names it as Merge Block,
    /// in block order.
    merge_headers: Csr,
    /// Dominators over branch edges.
    pub dom: DomTree,
    /// Dominators over structured edges (branch, merge, continue).
    pub sdom: DomTree,
    /// Post-dominators over branch edges (virtual exit root).
    pub pdom: DomTree,
    /// Post-dominators over structured edges (virtual exit root).
    pub spdom: DomTree,
    pub(crate) constructs: Vec<Construct>,
    /// Per block: its innermost construct ([`NONE`] if none).
    pub(crate) innermost: Vec<u32>,
    /// Per block: the constructs whose entry it is, outermost first.
    pub(crate) rooted: Csr,
}

/// Analyse every function of a module.
pub fn analyze(module: &Module) -> ModuleCfg {
    analyze_parts(module, true, SwitchTargets::new(module))
}

/// [`analyze`] of `ir`'s module without the post-dominator tree over branch
/// edges, which the WGSL lowering does not read: each function's `pdom` is
/// empty ([`FunctionCfg::reaches_exit`] and [`FunctionCfg::post_dominates`]
/// answer false). Everything else is what [`analyze`] gives; the `OpSwitch`
/// targets are read from the operands `Ir::build` parsed (the same parse, in
/// the same order, that [`analyze`] runs again).
pub fn analyze_for_lowering(ir: &Ir) -> ModuleCfg {
    analyze_parts(&ir.module, false, SwitchTargets { ir: Some(ir), ..SwitchTargets::new(&ir.module) })
}

/// Work buffers of the analysis, reused from function to function.
#[derive(Default)]
struct Scratch {
    /// The graphs the dominator trees are computed over.
    graphs: dom::Graphs,
    /// The work arrays of the dominator trees and of the back-edge search.
    work: Vec<u32>,
}

fn analyze_parts(module: &Module, pdom: bool, mut switches: SwitchTargets) -> ModuleCfg {
    let mut out = ModuleCfg::default();
    let mut scratch = Scratch::default();
    let insts = &module.instructions;
    let mut i = 0usize;
    while i < insts.len() {
        match insts[i].opcode {
            op::OpFunction => {
                let (f, next) = function_at(module, i, &mut switches, &mut scratch, pdom);
                out.functions.push(f);
                i = next;
            }
            op::OpLabel => {
                out.issues.push(CfgIssue::LabelOutsideFunction {
                    instruction: i as u32,
                });
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Resolves `OpSwitch` targets with the operand parser (the literal width
/// depends on the selector's type), running it lazily up to each switch, or
/// from the operands an [`Ir`] holds.
struct SwitchTargets<'m> {
    module: &'m Module,
    /// The module's IR, whose parsed operands give the targets.
    ir: Option<&'m Ir>,
    /// Made at the first switch (most modules have none).
    parser: Option<OperandParser>,
    next: usize,
    at: usize,
    out: Vec<crate::binary::ParsedOperand>,
}

impl<'m> SwitchTargets<'m> {
    fn new(module: &'m Module) -> Self {
        SwitchTargets {
            module,
            ir: None,
            parser: None,
            next: 0,
            at: 5,
            out: Vec::new(),
        }
    }

    fn step(&mut self) -> bool {
        let Some(inst) = self.module.instructions.get(self.next) else {
            return false;
        };
        let ok = crate::binary::parse::instruction_desc(inst.opcode).is_some()
            && self
                .parser
                .get_or_insert_with(|| {
                    let total = self.module.word_count();
                    OperandParser::new(self.module.header.bound.min(total as u32 + 1))
                })
                .parse(inst.opcode, &inst.operands, self.at, &mut self.out)
                .is_ok();
        self.at += inst.word_count();
        self.next += 1;
        ok
    }

    /// The target operands (operand word index, id) of the `OpSwitch` at `index`,
    /// Default first; `None` if it does not parse.
    fn targets(&mut self, index: usize) -> Option<Vec<(u32, u32)>> {
        if let Some(ir) = self.ir {
            // Empty where the switch did not parse.
            let parsed = ir.parsed(index);
            let words = ir.words(index);
            if parsed.is_empty() {
                return None;
            }
            let mut t = Vec::new();
            for o in parsed.iter().skip(1) {
                if o.kind == OperandKind::IdRef {
                    t.push((o.start, *words.get(o.start as usize)?));
                }
            }
            return Some(t);
        }
        if index < self.next {
            return None; // not expected: functions are visited in order
        }
        while self.next < index {
            self.step();
        }
        if !self.step() {
            return None;
        }
        let inst = self.module.instructions.get(index)?;
        let mut t = Vec::new();
        for o in self.out.iter().skip(1) {
            if o.kind == OperandKind::IdRef {
                t.push((o.start, *inst.operands.get(o.start as usize)?));
            }
        }
        Some(t)
    }
}

/// Scan the function starting at instruction `f`; returns it and the index after it.
fn function_at(
    module: &Module,
    f: usize,
    switches: &mut SwitchTargets,
    scratch: &mut Scratch,
    pdom: bool,
) -> (FunctionCfg, usize) {
    let insts = &module.instructions;
    let mut cfg = FunctionCfg {
        id: insts[f].operands.get(1).copied().unwrap_or(0),
        instruction: f as u32,
        ..FunctionCfg::default()
    };
    let mut blocks: Vec<Block> = Vec::new();
    // Whether the last block has ended (terminator seen) and reported trailing code.
    let mut closed = true;
    let mut trailing_reported = false;
    let mut i = f + 1;
    let end = loop {
        let Some(inst) = insts.get(i) else {
            cfg.issues.push(CfgIssue::UnterminatedFunction {
                instruction: f as u32,
            });
            break i;
        };
        let opcode = inst.opcode;
        if opcode == op::OpFunctionEnd || opcode == op::OpFunction {
            if opcode == op::OpFunctionEnd {
                cfg.end_instruction = Some(i as u32);
            } else {
                cfg.issues.push(CfgIssue::UnterminatedFunction {
                    instruction: f as u32,
                });
            }
            break i;
        }
        if opcode == op::OpLabel {
            if let Some(b) = blocks.last_mut().filter(|_| !closed) {
                b.end = i as u32;
                cfg.issues.push(CfgIssue::MissingTerminator {
                    block: blocks.len() as u32 - 1,
                });
            }
            blocks.push(Block {
                label: inst.operands.first().copied().unwrap_or(0),
                start: i as u32,
                end: i as u32 + 1,
                terminator: None,
                terminator_opcode: None,
                merge: None,
                loop_control_intel: None,
            });
            closed = false;
            trailing_reported = false;
        } else if !blocks.is_empty() {
            let bi = blocks.len() as u32 - 1;
            let b_ref = &mut blocks[bi as usize];
            if closed {
                if !trailing_reported {
                    cfg.issues.push(CfgIssue::InstructionsAfterTerminator {
                        block: bi,
                        instruction: i as u32,
                    });
                    trailing_reported = true;
                }
            } else if is_terminator_opcode(opcode) {
                b_ref.terminator = Some(i as u32);
                b_ref.terminator_opcode = Some(opcode);
                b_ref.end = i as u32 + 1;
                closed = true;
            } else {
                b_ref.end = i as u32 + 1;
                match opcode {
                    op::OpSelectionMerge | op::OpLoopMerge => {
                        if b_ref.merge.is_some() {
                            cfg.issues.push(CfgIssue::MultipleMergeInstructions {
                                block: bi,
                                instruction: i as u32,
                            });
                        }
                        let loop_ = opcode == op::OpLoopMerge;
                        match inst.operands.first() {
                            Some(&m) => {
                                b_ref.merge = Some(MergeInfo {
                                    kind: if loop_ {
                                        MergeKind::Loop
                                    } else {
                                        MergeKind::Selection
                                    },
                                    instruction: i as u32,
                                    merge_id: m,
                                    merge_block: None,
                                    continue_id: if loop_ {
                                        inst.operands.get(1).copied()
                                    } else {
                                        None
                                    },
                                    continue_block: None,
                                });
                                if loop_ && inst.operands.len() < 2 {
                                    cfg.issues.push(CfgIssue::MissingTarget {
                                        block: bi,
                                        instruction: i as u32,
                                    });
                                }
                            }
                            None => cfg.issues.push(CfgIssue::MissingTarget {
                                block: bi,
                                instruction: i as u32,
                            }),
                        }
                    }
                    op::OpLoopControlINTEL => b_ref.loop_control_intel = Some(i as u32),
                    _ => {}
                }
            }
        }
        i += 1;
    };
    if let Some(b) = blocks.last_mut().filter(|_| !closed) {
        b.end = end as u32;
        cfg.issues.push(CfgIssue::MissingTerminator {
            block: blocks.len() as u32 - 1,
        });
    }
    cfg.blocks = blocks;
    let next = if cfg.end_instruction.is_some() {
        end + 1
    } else {
        end
    };
    build_edges(&mut cfg, module, switches);
    cfg.analyse(pdom, scratch);
    (cfg, next)
}

fn build_edges(cfg: &mut FunctionCfg, module: &Module, switches: &mut SwitchTargets) {
    let n = cfg.blocks.len();
    let mut labels: Vec<(u32, u32)> = cfg
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.label, i as u32))
        .collect();
    labels.sort_unstable();
    cfg.labels = labels;
    cfg.edge_start = Vec::with_capacity(n + 1);
    let mut edges = Vec::with_capacity(n * 2);
    let mut dangling = Vec::new();
    let mut issues = Vec::new();
    for bi in 0..n {
        cfg.edge_start.push(edges.len() as u32);
        let from = bi as u32;
        let mut add =
            |kind: EdgeKind, id: u32, instruction: u32, operand: u32| match cfg.block_of(id) {
                Some(to) => edges.push(Edge {
                    from,
                    to,
                    kind,
                    instruction,
                    operand,
                }),
                None => dangling.push(DanglingEdge {
                    from,
                    target: id,
                    kind,
                    instruction,
                    operand,
                }),
            };
        let block = &cfg.blocks[bi];
        if let Some(m) = block.merge {
            add(EdgeKind::Merge, m.merge_id, m.instruction, 0);
            if let Some(c) = m.continue_id {
                add(EdgeKind::Continue, c, m.instruction, 1);
            }
        }
        if let (Some(t), Some(opcode)) = (block.terminator, block.terminator_opcode) {
            let inst = &module.instructions[t as usize];
            let ops = &inst.operands;
            let missing = || CfgIssue::MissingTarget {
                block: from,
                instruction: t,
            };
            match opcode {
                op::OpBranch => match ops.first() {
                    Some(&id) => add(EdgeKind::Branch, id, t, 0),
                    None => issues.push(missing()),
                },
                op::OpBranchConditional => {
                    for k in 1..3 {
                        match ops.get(k) {
                            Some(&id) => add(EdgeKind::Branch, id, t, k as u32),
                            None => {
                                issues.push(missing());
                                break;
                            }
                        }
                    }
                }
                op::OpSwitch => match switches.targets(t as usize) {
                    Some(targets) => {
                        for (k, id) in targets {
                            add(EdgeKind::Branch, id, t, k);
                        }
                    }
                    None => {
                        issues.push(CfgIssue::UnparsedSwitch {
                            block: from,
                            instruction: t,
                        });
                        if let Some(&id) = ops.get(1) {
                            add(EdgeKind::Branch, id, t, 1);
                        }
                    }
                },
                _ => {}
            }
        }
    }
    cfg.edge_start.push(edges.len() as u32);
    // Resolve the merge instructions' targets to block indices.
    for bi in 0..n {
        if let Some(m) = cfg.blocks[bi].merge {
            let mb = cfg.block_of(m.merge_id);
            let cb = m.continue_id.and_then(|c| cfg.block_of(c));
            if let Some(mm) = cfg.blocks[bi].merge.as_mut() {
                mm.merge_block = mb;
                mm.continue_block = cb;
            }
        }
    }
    cfg.edges = edges;
    cfg.dangling = dangling;
    cfg.issues.extend(issues);
}

impl FunctionCfg {
    /// The block whose label is `id`.
    pub fn block_of(&self, id: u32) -> Option<u32> {
        let i = self.labels.partition_point(|&(l, _)| l < id);
        self.labels
            .get(i)
            .filter(|&&(l, _)| l == id)
            .map(|&(_, b)| b)
    }

    /// The entry block (block 0), if the function has blocks.
    pub fn entry(&self) -> Option<u32> {
        (!self.blocks.is_empty()).then_some(0)
    }

    /// The edges leaving a block (merge, continue, then branch edges).
    pub fn out_edges(&self, b: u32) -> &[Edge] {
        let b = b as usize;
        match (self.edge_start.get(b), self.edge_start.get(b + 1)) {
            (Some(&s), Some(&e)) => &self.edges[s as usize..e as usize],
            _ => &[],
        }
    }

    /// The index range in [`FunctionCfg::edges`] of a block's out-edges.
    fn edge_range(&self, b: u32) -> core::ops::Range<usize> {
        let b = b as usize;
        match (self.edge_start.get(b), self.edge_start.get(b + 1)) {
            (Some(&s), Some(&e)) => s as usize..e as usize,
            _ => 0..0,
        }
    }

    /// The branch successors of a block, in operand order (duplicates kept).
    pub fn successors(&self, b: u32) -> impl Iterator<Item = u32> + '_ {
        self.out_edges(b)
            .iter()
            .filter(|e| e.kind == EdgeKind::Branch)
            .map(|e| e.to)
    }

    /// The roles of a block.
    pub fn roles(&self, b: u32) -> Roles {
        self.roles.get(b as usize).copied().unwrap_or_default()
    }

    /// Whether the block is reachable from the entry over branch edges.
    pub fn is_reachable(&self, b: u32) -> bool {
        self.dom.contains(b)
    }

    /// Whether the block is reachable from the entry over structured edges.
    pub fn is_structurally_reachable(&self, b: u32) -> bool {
        self.sdom.contains(b)
    }

    /// Whether an exit block is reachable from the block over branch edges.
    pub fn reaches_exit(&self, b: u32) -> bool {
        self.pdom.contains(b)
    }

    /// Whether an exit block is reachable from the block over structured edges.
    pub fn structurally_reaches_exit(&self, b: u32) -> bool {
        self.spdom.contains(b)
    }

    /// `a` dominates `b` (branch edges).
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        self.dom.dominates(a, b)
    }

    /// `a` structurally dominates `b`.
    pub fn structurally_dominates(&self, a: u32, b: u32) -> bool {
        self.sdom.dominates(a, b)
    }

    /// `a` post-dominates `b` (branch edges).
    pub fn post_dominates(&self, a: u32, b: u32) -> bool {
        self.pdom.dominates(a, b)
    }

    /// `a` structurally post-dominates `b`.
    pub fn structurally_post_dominates(&self, a: u32, b: u32) -> bool {
        self.spdom.dominates(a, b)
    }

    /// Whether the edge (index into [`FunctionCfg::edges`]) is a back edge.
    pub fn is_back_edge(&self, edge: usize) -> bool {
        self.back_edge.get(edge).copied().unwrap_or(false)
    }

    /// The back edges, in edge order.
    pub fn back_edges(&self) -> impl Iterator<Item = &Edge> + '_ {
        self.edges
            .iter()
            .zip(&self.back_edge)
            .filter(|(_, b)| **b)
            .map(|(e, _)| e)
    }

    /// The distinct blocks with a back edge to `header`, in block order (a
    /// block branching back twice, as `OpBranchConditional %c %h %h`, counts once).
    pub fn back_edge_blocks(&self, header: u32) -> &[u32] {
        self.back_sources.of(header)
    }

    /// The back edges as distinct (source block, target block) pairs, in the
    /// order the depth-first search finds them (the order spirv-val reports
    /// them in). An edge counts whether or not the entry block reaches it.
    pub fn back_edge_pairs(&self) -> &[(u32, u32)] {
        &self.back_pairs
    }

    /// The headers whose merge instruction names `b` as its Merge Block, in
    /// block order.
    pub fn merge_headers(&self, b: u32) -> &[u32] {
        self.merge_headers.of(b)
    }

    /// The block's merge instruction if it immediately precedes the
    /// terminator (where a merge instruction must be; spirv-val reads a
    /// block's merge instruction there and nowhere else).
    pub fn adjacent_merge(&self, b: u32) -> Option<MergeInfo> {
        let blk = self.blocks.get(b as usize)?;
        let t = blk.terminator?;
        blk.merge.filter(|m| t > blk.start + 1 && m.instruction + 1 == t)
    }

    /// Compute everything after the edges.
    /// `pdom`: whether to build the post-dominator tree over branch edges.
    fn analyse(&mut self, pdom: bool, scratch: &mut Scratch) {
        let n = self.blocks.len();
        self.roles = vec![Roles::default(); n];
        if n == 0 {
            return;
        }
        // The graphs, all in one buffer: over branch edges (b) and over
        // structured edges (s), forward (f) and reversed (r); for
        // post-dominance, the reversed graph with node n the virtual exit
        // joined to every exit block, and its reverse.
        let is_branch = |e: &&Edge| e.kind == EdgeKind::Branch;
        let all = self.edges.len();
        let branch = self.edges.iter().filter(is_branch).count();
        let exits = self.blocks.iter().filter(|b| b.is_exit()).count();
        let post_words = |m: usize| 2 * (n + 2 + m + exits);
        let g = &mut scratch.graphs;
        g.clear(
            2 * (n + 1 + branch)
                + 2 * (n + 1 + all)
                + post_words(all)
                + if pdom { post_words(branch) } else { 0 },
        );
        let fb = g.add(n, |v, buf| {
            buf.extend(self.out_edges(v).iter().filter(is_branch).map(|e| e.to))
        });
        let fs = g.add(n, |v, buf| {
            buf.extend(self.out_edges(v).iter().map(|e| e.to))
        });
        let rb = g.add_reversed(fb);
        let rs = g.add_reversed(fs);
        let blocks = &self.blocks;
        let mut post = |f: dom::GraphAt, r: dom::GraphAt| {
            let succ = g.add(n + 1, |v, buf| match blocks.get(v as usize) {
                Some(_) => dom::Graphs::copy_row(buf, r, v),
                None => buf.extend((0..n as u32).filter(|&b| blocks[b as usize].is_exit())),
            });
            let pred = g.add(n + 1, |v, buf| {
                if let Some(b) = blocks.get(v as usize) {
                    dom::Graphs::copy_row(buf, f, v);
                    if b.is_exit() {
                        buf.push(n as u32);
                    }
                }
            });
            (succ, pred)
        };
        let ps = post(fs, rs);
        let pb = pdom.then(|| post(fb, rb));
        let g = &scratch.graphs;
        let work = &mut scratch.work;
        // Room for the largest user (Lengauer-Tarjan's arrays).
        work.reserve(12 * (n + 2));
        self.dom = DomTree::build_in(n, 0, g.rows(fb), g.rows(rb), false, work);
        self.sdom = DomTree::build_in(n, 0, g.rows(fs), g.rows(rs), false, work);
        let virtual_exit = n as u32;
        if let Some((succ, pred)) = pb {
            self.pdom =
                DomTree::build_in(n + 1, virtual_exit, g.rows(succ), g.rows(pred), true, work);
        }
        self.spdom = DomTree::build_in(n + 1, virtual_exit, g.rows(ps.0), g.rows(ps.1), true, work);

        self.find_back_edges(work);
        let mut merges: Vec<(u32, u32)> = (0..n as u32)
            .filter_map(|h| Some((self.blocks[h as usize].merge?.merge_block?, h)))
            .collect();
        merges.sort_unstable();
        self.merge_headers = Csr::from_sorted(n, merges.into_iter());
        self.assign_roles();
        construct::build(self);
    }

    /// The roots of the back-edge search ([`FunctionCfg::back_edge_pairs`]),
    /// in the order it starts from them: the blocks without structural
    /// predecessors, in block order, then the first block (in block order) of
    /// each part of the graph they do not reach.
    pub(crate) fn search_roots(&self) -> Vec<u32> {
        let n = self.blocks.len();
        let mut has_pred = vec![false; n];
        for e in &self.edges {
            has_pred[e.to as usize] = true;
        }
        let mut roots: Vec<u32> = (0..n as u32).filter(|&b| !has_pred[b as usize]).collect();
        let mut mark = vec![false; n];
        let mut st: Vec<u32> = Vec::new();
        let mut flood = |start: u32, mark: &mut Vec<bool>, f: &FunctionCfg| {
            st.push(start);
            while let Some(v) = st.pop() {
                if !core::mem::replace(&mut mark[v as usize], true) {
                    st.extend(f.out_edges(v).iter().map(|e| e.to));
                }
            }
        };
        for &r in &roots {
            flood(r, &mut mark, self);
        }
        for b in 0..n as u32 {
            if !mark[b as usize] {
                roots.push(b);
                flood(b, &mut mark, self);
            }
        }
        roots
    }

    /// The back edges: a depth-first search over structured edges (merge,
    /// continue, then branch edges, in that order per block) from a pseudo
    /// entry whose successors are, in block order, the blocks without
    /// structural predecessors (the entry block first, in a well-formed
    /// function) and then one block of each part of the graph they do not
    /// reach (the first such block in block order). When a structured edge
    /// `v -> t` meets `t` on the stack, the branch edges `v -> t` are back
    /// edges. This is spirv-val's search (`ComputeAugmentedCFG` and the back-
    /// edge traversal of `PerformCfgChecks`): from the entry block it finds
    /// what a search from the entry alone finds, and it also finds the back
    /// edges of cycles that the entry block does not reach.
    ///
    /// The search starts from the roots of [`FunctionCfg::search_roots`]
    /// without listing them: a root of the second kind is the first block
    /// the search has not reached when the roots before it are done, and
    /// what the search has reached is what `search_roots` floods.
    /// `work`: scratch space (its contents do not matter).
    fn find_back_edges(&mut self, work: &mut Vec<u32>) {
        const NEW: u32 = 0;
        const ON_STACK: u32 = 1;
        const DONE: u32 = 2;
        /// Set (with NEW) on blocks with a structural predecessor, before the search.
        const HAS_PRED: u32 = 4;
        let n = self.blocks.len();
        self.back_edge = vec![false; self.edges.len()];
        self.back_pairs = Vec::new();
        // The state of each block, then the search stack (block, next edge).
        work.clear();
        work.resize(3 * n, NEW);
        let (state, stack) = work.split_at_mut(n);
        for e in &self.edges {
            state[e.to as usize] = HAS_PRED;
        }
        // Every edge that meets a block on the stack: (from, to, edge index);
        // edge indices grow in the order the search meets the edges.
        let mut hits: Vec<(u32, u32, u32)> = Vec::new();
        // The blocks without predecessors, then every block not reached yet.
        for pass in 0..2 {
            for r in 0..n as u32 {
                // After the first pass, a block not reached has a predecessor.
                if state[r as usize] != if pass == 0 { NEW } else { HAS_PRED } {
                    continue;
                }
                state[r as usize] = ON_STACK;
                stack[0] = r;
                stack[1] = self.edge_range(r).start as u32;
                let mut top = 1usize;
                while top > 0 {
                    let k = 2 * (top - 1);
                    let (v, i) = (stack[k], stack[k + 1] as usize);
                    if i < self.edge_range(v).end {
                        stack[k + 1] += 1;
                        let e = self.edges[i];
                        match state[e.to as usize] {
                            NEW | HAS_PRED => {
                                state[e.to as usize] = ON_STACK;
                                stack[2 * top] = e.to;
                                stack[2 * top + 1] = self.edge_range(e.to).start as u32;
                                top += 1;
                            }
                            ON_STACK => {
                                // `e.to` stays on the stack while `v`'s edges are
                                // searched, so every branch edge v -> e.to meets
                                // it there too.
                                if e.kind == EdgeKind::Branch {
                                    self.back_edge[i] = true;
                                }
                                hits.push((v, e.to, i as u32));
                            }
                            _ => {}
                        }
                    } else {
                        state[v as usize] = DONE;
                        top -= 1;
                    }
                }
            }
        }
        // The pairs, in the order of their first edge that meets the target
        // on the stack (a merge or continue edge counts, when a branch edge
        // joins the same blocks): `hits` is in search order.
        let mut order: Vec<u32> = (0..hits.len() as u32).collect();
        order.sort_unstable_by_key(|&h| (hits[h as usize].0, hits[h as usize].1, h));
        let mut first: Vec<u32> = Vec::new();
        let mut g = 0;
        while g < order.len() {
            let (v, t, _) = hits[order[g] as usize];
            let mut k = g;
            let mut branch = false;
            while k < order.len() && (hits[order[k] as usize].0, hits[order[k] as usize].1) == (v, t) {
                branch |= self.back_edge[hits[order[k] as usize].2 as usize];
                k += 1;
            }
            if branch {
                first.push(order[g]);
            }
            g = k;
        }
        first.sort_unstable();
        self.back_pairs = first.iter().map(|&h| (hits[h as usize].0, hits[h as usize].1)).collect();
        let mut pairs: Vec<(u32, u32)> = self.back_pairs.iter().map(|&(a, b)| (b, a)).collect();
        pairs.sort_unstable();
        pairs.dedup();
        self.back_sources = Csr::from_sorted(n, pairs.into_iter());
    }

    fn assign_roles(&mut self) {
        let roles = &mut self.roles;
        roles[0].insert(Roles::ENTRY);
        for (bi, b) in self.blocks.iter().enumerate() {
            if b.is_exit() {
                roles[bi].insert(Roles::EXIT);
            }
            if let Some(m) = b.merge {
                roles[bi].insert(match m.kind {
                    MergeKind::Loop => Roles::LOOP_HEADER,
                    MergeKind::Selection if b.terminator_opcode == Some(op::OpSwitch) => {
                        Roles::SWITCH_HEADER
                    }
                    MergeKind::Selection => Roles::SELECTION_HEADER,
                });
            }
        }
        for (i, e) in self.edges.iter().enumerate() {
            match e.kind {
                EdgeKind::Merge => roles[e.to as usize].insert(Roles::MERGE_BLOCK),
                EdgeKind::Continue => roles[e.to as usize].insert(Roles::CONTINUE_TARGET),
                EdgeKind::Branch => {
                    if self.back_edge[i] {
                        roles[e.from as usize].insert(Roles::BACK_EDGE_BLOCK);
                        roles[e.to as usize].insert(Roles::BACK_EDGE_TARGET);
                    }
                    if roles[e.from as usize].contains(Roles::SWITCH_HEADER) {
                        roles[e.to as usize].insert(Roles::CASE_TARGET);
                    }
                }
            }
        }
    }
}
