//! The structured shape of one function: its control flow rebuilt as a tree
//! of WGSL statements (`if`, `switch`, `loop` with `continuing` and
//! `break if`, `break`, `continue`, `return`) over the function's blocks.
//!
//! This is the interface between the two halves of the WGSL writer:
//! * [`structure`] builds a [`Shape`] from the control-flow analysis (the
//!   construct tree and structural dominance of [`crate::cfg`]) for every
//!   valid structured CFG, with guard variables where WGSL has no direct form
//!   (switch fallthrough, a break or continue that leaves several
//!   constructs);
//! * the emitter walks the tree and writes each [`Stmt::Block`]'s
//!   instructions, the OpPhi copies of each [`Stmt::Phis`] edge and the
//!   conditions, with the module's names and types.
//!
//! Blocks are indices into [`crate::cfg::FunctionCfg::blocks`]; values (conditions,
//! selectors, returned values) are SPIR-V result ids, which the emitter
//! names. The tree never refers to WGSL text, so it can be checked on its own:
//! walking it along an interpreter trace must visit the trace's blocks in the
//! trace's order.
//!
//! # The algorithm
//!
//! It follows the constructs of SPIR-V 1.6r2 section 2.11 as Klimis et al.
//! ("Taking Back Control in an Intermediate Representation for GPU
//! Computing", POPL 2023) define them with structural dominance (their
//! section 4.2: branch, merge and continue edges, structural (post-)
//! dominance, back edges; the selection, continue and loop constructs) and
//! the exit rules of their section 3.6 (a construct is left only by its
//! merge block, the nearest loop's merge block or continue target, or the
//! nearest switch's merge block). In a valid function the constructs nest,
//! so the function is a tree of **regions**: the function body, and each
//! selection, loop, continue and case construct. A header is a single node
//! of its enclosing region, collapsed: its whole construct becomes one
//! statement, followed by its merge block. With the back edges left out
//! (they go to a region's entry), each region's graph is acyclic.
//!
//! Each region is written from its entry along the structural dominator
//! tree (as Ramsey's "Beyond Relooper", ICFP 2022, writes a reducible CFG):
//! a node's code is its block, then its terminator:
//! * a target whose only predecessor in the region is the node is written
//!   in place (the arms of an `if`, the merge block after a construct's
//!   statement), iteratively along chains, so depth grows only with nesting;
//! * a target with several predecessors (a *join*) is written once after
//!   the code of its immediate dominator, under `if var0 == join + 1`; the
//!   branches to it set `var0` and fall off the end of the code around them,
//!   where every following statement is such a check. A join that every
//!   path from its dominator reaches, unless it leaves by `break`,
//!   `continue` or `return`, needs no check (the variable is not set);
//! * a branch out of the region is a structured exit: to the merge block of
//!   a selection or case (falling off the end of the `if` or case), to a
//!   loop's merge block (`break`), to its continue target (`continue`), to
//!   a switch's merge block (`break`). Where WGSL's `break` would stop at an
//!   inner `switch` or generated loop, the branch sets `var0 = target + 1`
//!   and breaks out of that statement, and a check right after it goes on
//!   (`if var0 == t + 1 { var0 = 0; break; }`), level by level.
//!
//! Selections become `if` (an empty arm is left out or the condition
//! negated; `OpBranchConditional` with one target twice is no `if` at all).
//! A switch becomes a `switch` with one case clause per distinct target
//! (`default` with the literals sharing its target); when a case construct
//! falls through to the next, the `switch` on the selector only stores the
//! target in `var0`, and `loop { switch var0 { .. } break; }` runs the cases,
//! a fallthrough setting the next one's value and `continue`-ing.
//! A loop becomes `loop { body continuing { .. break if .. } }` when its
//! continue construct is WGSL's `continuing` (no exit instruction, only the
//! back-edge block leaves it, by the back edge or the `break if`); otherwise
//! (a loop header that is its own continue target, a back-edge block that
//! is also a header) the body goes into a one-pass `loop { ..; break; }`
//! whose `break` means "continue", followed by the continue construct as
//! plain statements ending in `continue` or `break`. OpPhi copies are a
//! [`Stmt::Phis`] on each edge taken into a block with OpPhis, placed
//! before the jump (so also before a `break if`, under an `if` on the same
//! condition when the header or the merge block has OpPhis).
//!
//! A function whose statements would nest deeper than
//! [`flatten::DEPTH_TARGET`] braces (WGSL allows 127) has its chains of
//! nested `if`s rewritten as guarded sequences ([`flatten`]): guard flags
//! ([`Stmt::SetFlag`]) say which arm reached the point where the rest goes
//! on, and only nests of loops and switches deeper than the limit remain.
//!
//! One dispatch variable serves everything: it holds 0 except on the way
//! from a branch to the check that consumes it (which resets it), so stale
//! values never select a check. The work is linear in the blocks, plus the
//! bounded search that frees joins from their checks.



use alloc::vec::Vec;

/// The structured form of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// The function's body.
    pub body: Vec<Stmt>,
    /// How many guard variables of type `bool` the body uses ([`Stmt::SetFlag`],
    /// [`Cond::Flag`]); the emitter declares them at the top of the function,
    /// initialised to `false`.
    pub flags: u32,
    /// How many dispatch variables of type `u32` the body uses
    /// ([`Stmt::SetVar`], [`Cond::VarIs`], [`Selector::Var`]); declared at the
    /// top of the function, initialised to `0`.
    pub vars: u32,
}

/// One statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// The instructions of block `b` that are not control flow: everything
    /// but its OpLabel, OpPhi, merge instruction and terminator.
    Block(u32),
    /// The OpPhi assignments of block `to` for the edge that comes from block
    /// `from`: every OpPhi of `to` takes its value for `from` (a parallel
    /// copy: all values are read before any variable is written).
    Phis { from: u32, to: u32 },
    /// `if cond { then } else { els }`.
    If { cond: Cond, then: Vec<Stmt>, els: Vec<Stmt> },
    /// `switch selector { case v1, v2: { .. } default: { .. } }`.
    Switch { selector: Selector, cases: Vec<Case> },
    /// `loop { body continuing { continuing  break if cond; } }`. `break_if`
    /// is only present when `continuing` is (WGSL puts `break if` last in the
    /// continuing block).
    Loop { body: Vec<Stmt>, continuing: Vec<Stmt>, break_if: Option<Cond> },
    /// `break`: leaves the innermost enclosing `loop` or `switch`.
    Break,
    /// `continue`: goes to the `continuing` of the innermost enclosing `loop`.
    Continue,
    /// `return` or `return value` (a SPIR-V id).
    Return(Option<u32>),
    /// OpKill, OpTerminateInvocation: `discard` (fragment stage).
    Discard,
    /// OpUnreachable: control never gets here.
    Unreachable,
    /// Guard variable `flag` = `value`.
    SetFlag { flag: u32, value: bool },
    /// Dispatch variable `var` = `value`.
    SetVar { var: u32, value: u32 },
}

/// One case group of a [`Stmt::Switch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseValues {
    /// The case selectors: the OpSwitch literals (their low 32 bits, as the
    /// selector is at most 32 bits wide in WGSL), or dispatch values.
    Values(Vec<u32>),
    /// `default`, possibly with literals of the same group.
    Default(Vec<u32>),
}

/// A `case` clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub values: CaseValues,
    pub body: Vec<Stmt>,
}

/// What a switch dispatches on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selector {
    /// The OpSwitch selector (a SPIR-V id).
    Id(u32),
    /// A dispatch variable.
    Var(u32),
}

/// A boolean condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// A SPIR-V boolean id (an OpBranchConditional condition).
    Id(u32),
    /// The negation of a condition.
    Not(alloc::boxed::Box<Cond>),
    /// A guard variable.
    Flag(u32),
    /// Dispatch variable `var` == `value`.
    VarIs { var: u32, value: u32 },
    /// Always true (`true`).
    True,
}

/// Why a function has no shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The block it was found at (index into the function's blocks).
    pub block: u32,
    /// What is wrong, for a person.
    pub message: alloc::string::String,
}


mod build;
pub mod flatten;
#[cfg(test)]
mod tests;

pub use build::{structure, structure_within};

impl core::fmt::Display for Cond {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Cond::Id(id) => write!(f, "%{id}"),
            Cond::Not(c) => write!(f, "!({c})"),
            Cond::Flag(i) => write!(f, "flag{i}"),
            Cond::VarIs { var, value } => write!(f, "var{var} == {value}"),
            Cond::True => write!(f, "true"),
        }
    }
}

fn write_stmts(f: &mut core::fmt::Formatter<'_>, stmts: &[Stmt], depth: usize) -> core::fmt::Result {
    let pad = |f: &mut core::fmt::Formatter<'_>, d: usize| write!(f, "{:1$}", "", 2 * d);
    for s in stmts {
        pad(f, depth)?;
        match s {
            Stmt::Block(b) => writeln!(f, "block {b};")?,
            Stmt::Phis { from, to } => writeln!(f, "phis {from} -> {to};")?,
            Stmt::If { cond, then, els } => {
                writeln!(f, "if {cond} {{")?;
                write_stmts(f, then, depth + 1)?;
                if !els.is_empty() {
                    pad(f, depth)?;
                    writeln!(f, "}} else {{")?;
                    write_stmts(f, els, depth + 1)?;
                }
                pad(f, depth)?;
                writeln!(f, "}}")?;
            }
            Stmt::Switch { selector, cases } => {
                match selector {
                    Selector::Id(id) => writeln!(f, "switch %{id} {{")?,
                    Selector::Var(v) => writeln!(f, "switch var{v} {{")?,
                }
                for c in cases {
                    pad(f, depth + 1)?;
                    let (lits, default) = match &c.values {
                        CaseValues::Values(v) => (v, false),
                        CaseValues::Default(v) => (v, true),
                    };
                    let mut parts: Vec<alloc::string::String> = lits.iter().map(|v| alloc::format!("{v}")).collect();
                    if default {
                        parts.push("default".into());
                    }
                    writeln!(f, "case {}: {{", parts.join(", "))?;
                    write_stmts(f, &c.body, depth + 2)?;
                    pad(f, depth + 1)?;
                    writeln!(f, "}}")?;
                }
                pad(f, depth)?;
                writeln!(f, "}}")?;
            }
            Stmt::Loop { body, continuing, break_if } => {
                writeln!(f, "loop {{")?;
                write_stmts(f, body, depth + 1)?;
                if !continuing.is_empty() || break_if.is_some() {
                    pad(f, depth + 1)?;
                    writeln!(f, "continuing {{")?;
                    write_stmts(f, continuing, depth + 2)?;
                    if let Some(c) = break_if {
                        pad(f, depth + 2)?;
                        writeln!(f, "break if {c};")?;
                    }
                    pad(f, depth + 1)?;
                    writeln!(f, "}}")?;
                }
                pad(f, depth)?;
                writeln!(f, "}}")?;
            }
            Stmt::Break => writeln!(f, "break;")?,
            Stmt::Continue => writeln!(f, "continue;")?,
            Stmt::Return(None) => writeln!(f, "return;")?,
            Stmt::Return(Some(v)) => writeln!(f, "return %{v};")?,
            Stmt::Discard => writeln!(f, "discard;")?,
            Stmt::Unreachable => writeln!(f, "unreachable;")?,
            Stmt::SetFlag { flag, value } => writeln!(f, "flag{flag} = {value};")?,
            Stmt::SetVar { var, value } => writeln!(f, "var{var} = {value};")?,
        }
    }
    Ok(())
}

/// WGSL-like pseudo-code with block indices (`block 3;`), for reading
/// failures: guard variables are `flagN`, dispatch variables `varN`.
impl core::fmt::Display for Shape {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write_stmts(f, &self.body, 0)
    }
}
