//! Why a run did not finish, as data ([`RunErrorKind`]), and its rendering
//! into text ([`RunErrorKind::render`], which [`super::RunError`] uses).

use crate::grammar;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// A buffer, as errors name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum BufferRef {
    /// The buffer at (set, binding).
    Binding { set: u32, binding: u32 },
    /// The memory of a Block-decorated Workgroup variable.
    Workgroup,
    PushConstants,
}

impl fmt::Display for BufferRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferRef::Binding { set, binding } => write!(f, "the buffer at set {set}, binding {binding}"),
            BufferRef::Workgroup => f.write_str("the workgroup memory"),
            BufferRef::PushConstants => f.write_str("the push constants"),
        }
    }
}

/// Where a data race happened.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum RaceSite {
    /// A Workgroup variable (its id and OpName), at `path` (indices into it).
    Variable { id: u32, name: Option<String>, path: Vec<u32> },
    /// A byte of a buffer.
    Buffer { buffer: BufferRef, byte: u64 },
}

/// One of the two accesses of a data race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct RaceAccess {
    /// The global invocation id of the invocation that made it.
    pub invocation: [u32; 3],
    /// The index of its instruction.
    pub inst: u32,
    pub wrote: bool,
    pub atomic: bool,
}

/// What went wrong in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "camelCase"))]
pub enum RunErrorKind {
    /// No GLCompute or Kernel entry point (named `name`, when one was asked
    /// for).
    NoEntryPoint { name: Option<String> },
    /// An invocation ran out of its step budget (`steps` instructions) in
    /// the block with label `block` (its OpName `block_name`, if any).
    NoTermination { steps: u64, block: u32, block_name: Option<String> },
    /// An instruction the interpreter does not run.
    NotSupported { opcode: u16 },
    /// Something else the interpreter does not do: "not supported: {what}".
    NotSupportedFeature { what: String },
    /// The run needs more than `limit` values of memory at once.
    TooMuchMemory { limit: u64 },
    /// Two invocations of a workgroup accessed the same memory, one of them
    /// writing, with no barrier between them.
    DataRace { site: RaceSite, first: RaceAccess, second: RaceAccess },
    /// Invocation `waiting` waits at a barrier that invocation `other`
    /// returned without reaching (`other_returned`), or waits at another.
    DivergentBarrier { waiting: [u32; 3], other: [u32; 3], other_returned: bool },
    /// `bytes` bytes at byte `offset` of `buffer` are outside it.
    OutOfBounds { buffer: BufferRef, offset: u64, bytes: u64 },
    /// An undefined value is stored to `buffer` at byte `byte`.
    UndefinedStore { buffer: BufferRef, byte: u64 },
    /// No buffer (or no push constants) is given for `buffer`.
    NoBuffer { buffer: BufferRef },
    /// A kernel's scalar parameter `param` has no bytes (binding (0, param))
    /// or fewer than it `needs` (`has`).
    KernelScalar { param: u32, needs: u64, has: Option<u64> },
    /// OpKill or OpTerminateInvocation was executed.
    Killed,
    /// OpGroupNonUniformBroadcast from the inactive invocation `id` of the
    /// subgroup.
    InactiveBroadcast { id: u32 },
    /// Any other fault (undefined behaviour, a module the interpreter
    /// cannot read, a limit inside one operation), its message complete.
    Other { message: String },
}

impl From<String> for RunErrorKind {
    fn from(message: String) -> RunErrorKind {
        RunErrorKind::Other { message }
    }
}

impl RunErrorKind {
    /// Whether the message names the invocation at fault itself (so a front
    /// end need not add it).
    pub fn names_invocation(&self) -> bool {
        matches!(
            self,
            RunErrorKind::NoTermination { .. }
                | RunErrorKind::DataRace { .. }
                | RunErrorKind::DivergentBarrier { .. }
                | RunErrorKind::Killed
                | RunErrorKind::TooMuchMemory { .. }
                | RunErrorKind::InactiveBroadcast { .. }
        )
    }
}

/// `(x,y,z)`.
pub(crate) fn show(g: [u32; 3]) -> String {
    format!("({},{},{})", g[0], g[1], g[2])
}

/// The name of opcode `op`, for messages.
pub(crate) fn op_name(op: u16) -> String {
    match grammar::instruction(op) {
        Some(d) => String::from(d.name),
        None => format!("opcode {op}"),
    }
}

impl RunErrorKind {
    /// The message, the invocation at fault being `invocation`, with
    /// instructions named as `inst` gives them (else "instruction N") and
    /// blocks as `block` gives them (else `%` and their OpName or id).
    pub fn render(
        &self,
        invocation: Option<[u32; 3]>,
        inst: impl Fn(u32) -> Option<String>,
        block: impl Fn(u32) -> Option<String>,
    ) -> String {
        let inst_name = |i: u32| inst(i).unwrap_or_else(|| format!("instruction {i}"));
        let mut m = String::new();
        let _ = match self {
            RunErrorKind::NoEntryPoint { name: Some(name) } => {
                write!(m, "no GLCompute or Kernel entry point named \"{name}\"")
            }
            RunErrorKind::NoEntryPoint { name: None } => {
                write!(m, "the module has no GLCompute or Kernel entry point")
            }
            RunErrorKind::NoTermination { steps, block: label, block_name } => {
                let inv = invocation.map(show).unwrap_or_default();
                let name = block(*label).unwrap_or_else(|| match block_name {
                    Some(n) => format!("%{n}"),
                    None => format!("%{label}"),
                });
                write!(m, "did not terminate after {steps} steps; invocation {inv} was in block {name}")
            }
            RunErrorKind::NotSupported { opcode } => write!(m, "not supported: {}", op_name(*opcode)),
            RunErrorKind::NotSupportedFeature { what } => write!(m, "not supported: {what}"),
            RunErrorKind::TooMuchMemory { limit } => write!(
                m,
                "not supported: the run needs more than {limit} values of memory at once (Private, Function and Workgroup variables of all the workgroup's invocations)"
            ),
            RunErrorKind::DataRace { site, first, second } => {
                let _ = match site {
                    RaceSite::Variable { id, name, path } => {
                        let _ = match name {
                            Some(n) => write!(m, "data race on %{n}"),
                            None => write!(m, "data race on %{id}"),
                        };
                        for k in path {
                            let _ = write!(m, "[{k}]");
                        }
                        Ok(())
                    }
                    RaceSite::Buffer { buffer, byte } => write!(m, "data race on {buffer} at byte {byte}"),
                };
                let verb = |a: &RaceAccess| {
                    format!("{}{}", if a.wrote { "wrote" } else { "read" }, if a.atomic { " atomically" } else { "" })
                };
                write!(
                    m,
                    ": invocation {} {} at {}, invocation {} {} at {} (with no OpControlBarrier between them in one workgroup)",
                    show(first.invocation),
                    verb(first),
                    inst_name(first.inst),
                    show(second.invocation),
                    verb(second),
                    inst_name(second.inst),
                )
            }
            RunErrorKind::DivergentBarrier { waiting, other, other_returned: true } => write!(
                m,
                "invocation {} waits at an OpControlBarrier that invocation {} returned without reaching (a barrier in non-uniform control flow)",
                show(*waiting),
                show(*other)
            ),
            RunErrorKind::DivergentBarrier { waiting, other, other_returned: false } => write!(
                m,
                "invocations {} and {} wait at different OpControlBarriers (a barrier in non-uniform control flow)",
                show(*waiting),
                show(*other)
            ),
            RunErrorKind::OutOfBounds { buffer, offset, bytes } => {
                write!(m, "out-of-bounds access: {bytes} bytes at offset {offset} of {buffer}")
            }
            RunErrorKind::UndefinedStore { buffer, byte } => write!(
                m,
                "an undefined value is stored to {buffer} at byte {byte} (from OpUndef, or memory never written: a variable without initializer or Workgroup memory)"
            ),
            RunErrorKind::NoBuffer { buffer: BufferRef::Binding { set, binding } } => {
                write!(m, "no buffer is bound at set {set}, binding {binding}")
            }
            RunErrorKind::NoBuffer { .. } => write!(m, "no push constants were given"),
            RunErrorKind::KernelScalar { param: k, has: None, .. } => {
                write!(m, "kernel parameter {k} is a scalar: give its value as the bytes of binding (0, {k})")
            }
            RunErrorKind::KernelScalar { param: k, needs, has: Some(has) } => {
                write!(m, "kernel parameter {k} needs {needs} bytes at binding (0, {k}); it has {has}")
            }
            RunErrorKind::Killed => write!(m, "the invocation was killed (OpKill)"),
            RunErrorKind::InactiveBroadcast { id } => {
                write!(m, "OpGroupNonUniformBroadcast from invocation {id}, which is not active")
            }
            RunErrorKind::Other { message } => write!(m, "{message}"),
        };
        m
    }
}
