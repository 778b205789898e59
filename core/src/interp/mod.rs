//! The reference interpreter: runs a GLCompute or (OpenCL) Kernel entry
//! point of a module's typed IR over a dispatch grid. Kernels, constant data
//! and the natural layout are in `kernel`; the other extension instructions
//! (VLAs, untyped pointers, pointer access chains) in `exec::ext`.
//!
//! Workgroups run one after another (z, y, x), and the
//! invocations of a workgroup take turns in order (local z, y, x): each runs
//! until it returns or reaches an OpControlBarrier, and they go on together
//! once all wait at the same barrier (one that only some reach is an error).
//! Memory: Function and Private variables per invocation and Workgroup
//! variables per workgroup (zeroed), held as values; StorageBuffer, Uniform and
//! PushConstant blocks as bytes, read and written by the module's explicit
//! layout (Offset, ArrayStride, MatrixStride, RowMajor). Buffers come in as a
//! map (set, binding) -> bytes and go back the same way.
//!
//! Scalars: booleans, integers of 8 to 64 bits, f16, f32 and f64 (float
//! arithmetic in f64, rounded to the operands' width: correctly rounded).
//!
//! Each function is decoded once ([`decode`]): per instruction its opcode, its
//! result slot, and its operands resolved to value slots (function-local or
//! global), block indices and function indices, so the loop never looks an id
//! up. Anything the interpreter does not do is an error, "not supported: OpX",
//! located by the instruction's index; never a wrong answer.

mod decode;
mod draw;
mod error;
mod exec;
mod io;
mod kernel;
pub mod image;
mod mem;
mod program;
mod num;
mod ops;
mod race;
#[cfg(test)]
mod tests;
pub mod trace;
#[cfg(test)]
mod tests_ext;
#[cfg(test)]
mod tests_draw;
pub mod values;

pub use error::{BufferRef, DrawSite, Feature, ImageProblem, Indexed, Malformed, RaceAccess, RaceSite, RunErrorKind, Shapes, TypeProblem};
pub use num::{f64_to_half, half_to_f64};
pub use kernel::{KernelParam, kernel_params, natural_tree};
pub use draw::{DrawStats, Stages, draw};
pub use trace::{Trace, TraceReport};

use crate::grammar::{self, op};
use crate::ir::Ir;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// The buffers of a run: (descriptor set, binding) -> bytes.
pub type Buffers = BTreeMap<(u32, u32), Vec<u8>>;

/// What to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The entry point's name; `None`: the first GLCompute or Kernel entry
    /// point.
    pub entry: Option<String>,
    /// The number of workgroups in x, y and z.
    pub workgroups: [u32; 3],
    /// The most instructions one invocation may execute.
    pub max_steps: u64,
    /// The push constant bytes, if the module has a push constant block.
    pub push_constants: Option<Vec<u8>>,
    /// The number of invocations in a subgroup; `None`: the whole workgroup
    /// (at most 128, the most a ballot holds).
    pub subgroup_size: Option<u32>,
    /// Bindings that share the memory of another: (set, binding) -> the
    /// (set, binding) whose buffer in [`Buffers`] they read and write.
    pub aliases: BTreeMap<(u32, u32), (u32, u32)>,
    /// What path traces to record ([`trace`]; off by default).
    pub trace: Trace,
    /// Run as spirv-opt's `--graphics-robust-access` pass leaves a module:
    /// each index of an access chain into an array, vector or matrix is
    /// clamped into range (a signed index to 0 ..= n - 1, an unsigned one to
    /// at most n - 1; a runtime array's n from its buffer's size), so an
    /// access out of range reaches the first or last element instead of
    /// being an error.
    pub robust_access: bool,
    /// The images and texel buffers: the key of their bytes in [`Buffers`]
    /// -> format, size and samples (see [`image`]). A texel buffer without
    /// one takes its format from the shader and its size from its bytes.
    pub images: BTreeMap<(u32, u32), image::Image>,
    /// Arrays of descriptors (a variable whose type is an array of Block
    /// structs, images or samplers): (set, binding) -> the key in
    /// [`Buffers`] of each element's bytes. Without an entry, the array has
    /// one element, the buffer at (set, binding).
    pub descriptor_arrays: BTreeMap<(u32, u32), Vec<(u32, u32)>>,
    /// The samplers' states, by (set, binding) (or the key of an element of
    /// an array of samplers).
    pub samplers: BTreeMap<(u32, u32), image::Sampler>,
    /// The order in which the invocations of a workgroup take turns. `None`:
    /// each runs until it returns or waits (at a barrier or a group
    /// instruction), in order of its local index. `Some(s)`: a deterministic
    /// pseudo-random order chosen by `s` (and the workgroup): a running
    /// invocation picked at random runs a few instructions (1 to 8, also
    /// picked at random), then another, so each seed gives another
    /// interleaving of memory accesses. A module without data races gives
    /// the same buffers under every seed.
    pub seed: Option<u64>,
    /// Run the specialised handlers (for the hottest instructions on scalar
    /// operands, see `exec::fast`) where they apply; off, every instruction
    /// goes through the general handler. Both give the same buffers and
    /// errors (on by default; off for testing that).
    pub specialize: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            entry: None,
            workgroups: [1, 1, 1],
            max_steps: 1_000_000,
            push_constants: None,
            subgroup_size: None,
            aliases: BTreeMap::new(),
            trace: Trace::Off,
            robust_access: false,
            images: BTreeMap::new(),
            descriptor_arrays: BTreeMap::new(),
            samplers: BTreeMap::new(),
            seed: None,
            specialize: true,
        }
    }
}

/// A run that did not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunError {
    pub kind: RunErrorKind,
    /// The index of the instruction at fault (in the module's instructions).
    pub inst: Option<u32>,
    /// The global invocation id of the invocation at fault.
    pub invocation: Option<[u32; 3]>,
    /// The label of the block the invocation was in, for the step budget
    /// (the message names it by OpName; a front end may name it otherwise).
    pub block: Option<u32>,
    /// The instructions the message names ("instruction N", for a data
    /// race the two accesses), which a front end may name by their place in
    /// its text instead ([`RunError::message_with`]).
    pub related: Vec<u32>,
    /// The paths recorded up to the error, when [`Options::trace`]
    /// asked for them (so a front end can show where an endless loop went
    /// round).
    pub trace: Option<alloc::boxed::Box<TraceReport>>,
    /// In a draw ([`draw()`]): the vertex or fragment at fault (the message
    /// ends with it, "at fragment (12, 40) of primitive 0").
    pub site: Option<DrawSite>,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())?;
        if let Some(i) = self.inst {
            write!(f, " (instruction {i})")?;
        }
        Ok(())
    }
}

impl RunError {
    pub(crate) fn of(inst: Option<u32>, kind: RunErrorKind) -> RunError {
        RunError {
            kind,
            inst,
            invocation: None,
            block: None,
            related: Vec::new(),
            trace: None,
            site: None,
        }
    }

    /// "not supported: {feature}".
    pub(crate) fn unsupported(inst: Option<u32>, feature: Feature) -> RunError {
        RunError::of(inst, RunErrorKind::NotSupportedFeature { feature })
    }

    /// The message (without the instruction's index).
    pub fn message(&self) -> String {
        self.message_named(|_| None, |_| None)
    }

    /// The message with each instruction in `related` ("instruction N")
    /// named as `name` gives it (e.g. "12:5", its line and column), where
    /// it gives a name.
    pub fn message_with(&self, name: impl Fn(u32) -> Option<String>) -> String {
        self.message_named(name, |_| None)
    }

    /// The message with instructions named as `inst` gives them (else
    /// "instruction N") and blocks as `block` gives them (else `%` and
    /// their OpName or id).
    pub fn message_named(
        &self,
        inst: impl Fn(u32) -> Option<String>,
        block: impl Fn(u32) -> Option<String>,
    ) -> String {
        let m = self.kind.render(self.invocation, inst, block);
        match self.site {
            Some(site) => alloc::format!("{m} {site}"),
            None => m,
        }
    }
}

/// What a finished run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub invocations: u64,
    /// Instructions executed, all invocations together.
    pub steps: u64,
    /// The paths and edge counts asked for by [`Options::trace`] (`None`
    /// when it is off).
    pub trace: Option<TraceReport>,
}

/// Specialize a module (its words): each OpSpecConstant, OpSpecConstantTrue
/// or OpSpecConstantFalse whose SpecId is in `values` takes that value (the
/// low word, or two words for a 64-bit type; non-zero for a boolean). The
/// constants built from them are evaluated when the IR is built from the
/// words.
pub fn specialize(words: &mut [u32], values: &[(u32, u64)]) {
    if values.is_empty() || words.len() < 5 {
        return;
    }
    let insts = |words: &[u32]| -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 5;
        while at < words.len() {
            let n = (words[at] >> 16) as usize;
            if n == 0 || at + n > words.len() {
                break;
            }
            out.push((at, n));
            at += n;
        }
        out
    };
    let list = insts(words);
    // SpecId decorations: target id -> value.
    let mut by_id: BTreeMap<u32, u64> = BTreeMap::new();
    for &(at, n) in &list {
        if words[at] & 0xffff == op::OpDecorate as u32
            && n == 4
            && words[at + 2] == grammar::decoration::SpecId
            && let Some(&(_, v)) = values.iter().find(|(id, _)| *id == words[at + 3])
        {
            by_id.insert(words[at + 1], v);
        }
    }
    for &(at, n) in &list {
        let o = (words[at] & 0xffff) as u16;
        let Some(&v) = words.get(at + 2).and_then(|id| by_id.get(id)) else {
            continue;
        };
        if o == op::OpSpecConstant && n >= 4 {
            words[at + 3] = v as u32;
            if n >= 5 {
                words[at + 4] = (v >> 32) as u32;
            }
        } else if o == op::OpSpecConstantTrue || o == op::OpSpecConstantFalse {
            let t = if v != 0 {
                op::OpSpecConstantTrue
            } else {
                op::OpSpecConstantFalse
            };
            words[at] = (words[at] & 0xffff_0000) | t as u32;
        }
    }
}

/// Run the entry point over the grid. On return (success or error) `buffers`
/// holds the buffers as the run left them.
pub fn run(ir: &Ir, opts: &Options, buffers: &mut Buffers) -> Result<RunStats, RunError> {
    let mut prog = program::Program::new(ir, opts)?;
    prog.entry_args = kernel::bind(ir, &prog.params, buffers)?;
    exec::run(&prog, opts, buffers)
}
