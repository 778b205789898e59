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
//! Blocks are indices into [`FunctionCfg::blocks`]; values (conditions,
//! selectors, returned values) are SPIR-V result ids, which the emitter
//! names. The tree never refers to WGSL text, so it can be checked on its own:
//! walking it along an interpreter trace must visit the trace's blocks in the
//! trace's order.

use crate::Module;
use crate::cfg::FunctionCfg;
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

/// The structured shape of `f`, a function of `module`, a valid module (its
/// terminators' operands are read from `module`).
///
/// Stand-in until the structuring lands: only a chain of blocks without merge
/// instructions (straight-line code, OpPhi, return, kill, unreachable).
pub fn structure(module: &Module, f: &FunctionCfg) -> Result<Shape, ShapeError> {
    use crate::grammar::op;
    let mut body = Vec::new();
    let mut b = 0u32;
    let mut seen = alloc::vec![false; f.blocks.len()];
    loop {
        let Some(blk) = f.blocks.get(b as usize) else {
            return Err(ShapeError { block: b, message: "no such block".into() });
        };
        if core::mem::replace(&mut seen[b as usize], true) || blk.merge.is_some() {
            return Err(ShapeError { block: b, message: "structured control flow is not lowered yet".into() });
        }
        body.push(Stmt::Block(b));
        let term = blk.terminator.and_then(|t| module.instructions.get(t as usize));
        match term.map(|t| t.opcode) {
            Some(op::OpBranch) => {
                let Some(to) = f.successors(b).next() else {
                    return Err(ShapeError { block: b, message: "branch without a target".into() });
                };
                body.push(Stmt::Phis { from: b, to });
                b = to;
            }
            Some(op::OpReturn) => {
                body.push(Stmt::Return(None));
                break;
            }
            Some(op::OpReturnValue) => {
                body.push(Stmt::Return(term.and_then(|t| t.operands.first().copied())));
                break;
            }
            Some(op::OpKill | op::OpTerminateInvocation) => {
                body.push(Stmt::Discard);
                break;
            }
            Some(op::OpUnreachable) => {
                body.push(Stmt::Unreachable);
                break;
            }
            _ => return Err(ShapeError { block: b, message: "structured control flow is not lowered yet".into() }),
        }
    }
    Ok(Shape { body, flags: 0, vars: 0 })
}
