//! A CFG skeleton: a function's blocks with their merge instructions and
//! terminators and nothing else, the input of fleshing. It comes from the
//! generator ([`super::generate`]) or from any function of a valid module
//! ([`Skeleton::of_function`]). Written out it is the paper's skeletal
//! program: labels, merges and branches, with constant conditions.

use crate::analysis::Analysis;
use crate::cfg::{EdgeKind, MergeKind};
use crate::grammar::op;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// A block's label id.
pub type Label = u32;

/// A merge instruction.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "camelCase"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// `OpSelectionMerge` of the merge block.
    Selection(Label),
    /// `OpLoopMerge` of the merge block and the continue target.
    Loop(Label, Label),
}

impl Merge {
    /// The merge block.
    pub fn block(self) -> Label {
        match self {
            Merge::Selection(m) | Merge::Loop(m, _) => m,
        }
    }
}

/// A block's terminator.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "camelCase"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Branch(Label),
    /// The skeleton's constant condition, the true target, the false target.
    Cond(bool, Label, Label),
    /// The skeleton's selector (0..4), the default, the (literal, target) cases
    /// in operand order.
    Switch(u32, Label, Vec<(u32, Label)>),
    /// Any instruction that leaves the function (`OpReturn`, `OpKill`...).
    Return,
    Unreachable,
}

impl Term {
    /// The branch targets in operand order (duplicates kept).
    pub fn targets(&self) -> Vec<Label> {
        match self {
            Term::Branch(t) => alloc::vec![*t],
            Term::Cond(_, a, b) => alloc::vec![*a, *b],
            Term::Switch(_, d, cases) => core::iter::once(*d).chain(cases.iter().map(|c| c.1)).collect(),
            Term::Return | Term::Unreachable => Vec::new(),
        }
    }

    pub(crate) fn targets_mut(&mut self) -> Vec<&mut Label> {
        match self {
            Term::Branch(t) => alloc::vec![t],
            Term::Cond(_, a, b) => alloc::vec![a, b],
            Term::Switch(_, d, cases) => core::iter::once(d).chain(cases.iter_mut().map(|c| &mut c.1)).collect(),
            Term::Return | Term::Unreachable => Vec::new(),
        }
    }
}

/// One block.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "camelCase"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub label: Label,
    pub merge: Option<Merge>,
    pub term: Term,
}

/// A function's blocks in layout order; the first is the entry.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "camelCase"))]
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Skeleton {
    pub blocks: Vec<Block>,
    /// The blocks' names where they have one (a module's own function: as
    /// its text or OpName spells them), by label.
    pub names: BTreeMap<Label, String>,
}

/// Why a function has no skeleton.
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(tag = "error", rename_all = "camelCase"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkeletonError {
    /// The module did not assemble or is not valid.
    NotValid,
    /// No function with that index, or it has no blocks.
    NoFunction,
    /// A block without a terminator.
    NoTerminator { block: Label },
}

impl SkeletonError {
    /// The block the error is about, where it is about one.
    pub fn block(&self) -> Option<Label> {
        match self {
            SkeletonError::NoTerminator { block } => Some(*block),
            SkeletonError::NotValid | SkeletonError::NoFunction => None,
        }
    }
}

impl fmt::Display for SkeletonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkeletonError::NotValid => f.write_str("the module is not valid, so its control flow cannot be fleshed"),
            SkeletonError::NoFunction => f.write_str("no function with blocks to flesh"),
            SkeletonError::NoTerminator { block } => write!(f, "block %{block} has no terminator"),
        }
    }
}

impl Skeleton {
    /// The skeleton of function `function` (an index into the analysis's
    /// CFG functions) of a valid module: its labels, merges and branches.
    /// Switch literals keep their order (their values do not matter to the
    /// control flow); every instruction that leaves the function is a return.
    pub fn of_function(a: &Analysis, function: usize) -> Result<Skeleton, SkeletonError> {
        if !a.is_valid() {
            return Err(SkeletonError::NotValid);
        }
        let f = a.cfg().functions.get(function).filter(|f| !f.blocks.is_empty()).ok_or(SkeletonError::NoFunction)?;
        let label = |b: u32| f.blocks[b as usize].label;
        let mut blocks = Vec::with_capacity(f.blocks.len());
        for (i, b) in f.blocks.iter().enumerate() {
            let merge = b.merge.map(|m| match (m.kind, m.continue_id) {
                (MergeKind::Loop, Some(c)) => Merge::Loop(m.merge_id, c),
                _ => Merge::Selection(m.merge_id),
            });
            let targets: Vec<Label> =
                f.out_edges(i as u32).iter().filter(|e| e.kind == EdgeKind::Branch).map(|e| label(e.to)).collect();
            let opcode = b.terminator_opcode.ok_or(SkeletonError::NoTerminator { block: b.label })?;
            let term = match (opcode, targets.as_slice()) {
                (op::OpBranch, [t]) => Term::Branch(*t),
                (op::OpBranchConditional, [t, e]) => Term::Cond(true, *t, *e),
                (op::OpSwitch, [d, cases @ ..]) => {
                    Term::Switch(0, *d, cases.iter().enumerate().map(|(k, &t)| (k as u32, t)).collect())
                }
                (op::OpUnreachable, _) => Term::Unreachable,
                _ if b.is_exit() => Term::Return,
                _ => return Err(SkeletonError::NoTerminator { block: b.label }),
            };
            blocks.push(Block { label: b.label, merge, term });
        }
        let names = f
            .blocks
            .iter()
            .map(|b| (b.label, a.display_name(b.label)))
            .filter(|(l, n)| n.parse::<u32>().ok() != Some(*l))
            .collect();
        Ok(Skeleton { blocks, names })
    }

    /// The name of the block labelled `l` as a person reads it: `%name`,
    /// else `%label`.
    pub fn name(&self, l: Label) -> String {
        match self.names.get(&l) {
            Some(n) => alloc::format!("%{n}"),
            None => alloc::format!("%{l}"),
        }
    }

    /// The position of the block labelled `l`.
    pub fn position(&self, l: Label) -> Option<usize> {
        self.blocks.iter().position(|b| b.label == l)
    }

    /// The whole skeletal module, as assembly text: a GLCompute entry point
    /// whose blocks are `%b<label>`, conditions the constants `%true` and
    /// `%false`, switch selectors the constants `%sel0`..`%sel3`.
    pub fn module_text(&self) -> String {
        let mut s = String::from(
            "; a structured control-flow skeleton\n\
             OpCapability Shader\n\
             OpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\n\
             OpExecutionMode %main LocalSize 1 1 1\n\
             %void = OpTypeVoid\n\
             %bool = OpTypeBool\n\
             %int = OpTypeInt 32 1\n\
             %fn = OpTypeFunction %void\n\
             %true = OpConstantTrue %bool\n\
             %false = OpConstantFalse %bool\n\
             %sel0 = OpConstant %int 0\n\
             %sel1 = OpConstant %int 1\n\
             %sel2 = OpConstant %int 2\n\
             %sel3 = OpConstant %int 3\n\
             %main = OpFunction %void None %fn\n",
        );
        self.write_blocks(&mut s);
        s.push_str("OpFunctionEnd\n");
        s
    }

    /// The blocks, as assembly text (see [`Skeleton::module_text`]).
    pub fn write_blocks(&self, s: &mut String) {
        for b in &self.blocks {
            let _ = writeln!(s, "%b{} = OpLabel", b.label);
            write_merge(s, "", b.merge);
            let _ = match &b.term {
                Term::Branch(t) => writeln!(s, "OpBranch %b{t}"),
                Term::Cond(c, t, f) => writeln!(s, "OpBranchConditional %{c} %b{t} %b{f}"),
                Term::Switch(v, d, cases) => {
                    let _ = write!(s, "OpSwitch %sel{v} %b{d}");
                    write_cases(s, "", cases.iter().copied());
                    writeln!(s)
                }
                Term::Return => writeln!(s, "OpReturn"),
                Term::Unreachable => writeln!(s, "OpUnreachable"),
            };
        }
    }
}

/// A block's merge instruction, if it has one.
pub(crate) fn write_merge(s: &mut String, prefix: &str, merge: Option<Merge>) {
    let p = prefix;
    let _ = match merge {
        Some(Merge::Selection(m)) => writeln!(s, "OpSelectionMerge %{p}b{m} None"),
        Some(Merge::Loop(m, c)) => writeln!(s, "OpLoopMerge %{p}b{m} %{p}b{c} None"),
        None => Ok(()),
    };
}

/// ` literal %b<target>` for each case.
pub(crate) fn write_cases(s: &mut String, prefix: &str, cases: impl Iterator<Item = (u32, Label)>) {
    for (l, t) in cases {
        let _ = write!(s, " {l} %{prefix}b{t}");
    }
}
