//! The WGSL lowering: a SPIR-V module lowered to WGSL for WebGPU, with the
//! structured control flow rebuilt from the construct tree ([`shape`]).
//!
//! [`lower`] reads the typed IR ([`crate::ir`]) and the control-flow analysis
//! ([`crate::cfg`]) in two steps, as naga's back ends read the `ModuleInfo`
//! its validator made:
//! 1. [`plan`]: everything decided about the module before writing (the
//!    entry points and their call tree, the memory atomics touch, each
//!    storage image's access, uniform layouts, the push-constant block,
//!    overrides, the names taken first) and the module-wide refusals;
//! 2. `write`: the writer, which reads the plan and never changes it, and
//!    writes every module-scope declaration (structs with their explicit
//!    layout, overrides, resources, private and workgroup variables), each
//!    function of the call tree (walking its [`shape::Shape`]), and one
//!    wrapper per entry point that turns WGSL's stage inputs and outputs
//!    into the module-scope variables SPIR-V reads and writes.
//!
//! What WGSL cannot express is a [`Refusal`] (typed: a [`RefusalCode`], a
//! message and the instruction), never wrong WGSL. [`Wgsl::lines`] maps each
//! WGSL line to the SPIR-V instruction it came from.

mod image_types;
mod literal;
pub mod names;
pub mod plan;
pub mod refuse;
pub mod shape;
pub mod split;
#[cfg(test)]
mod tests;
mod types;
mod write;

use crate::Module;
use crate::cfg::{FunctionCfg, ModuleCfg};
use crate::ir::Ir;
use alloc::string::String;
use alloc::vec::Vec;

pub use plan::{Binding, BindingResource, Combined, Introduced, IntroducedKind, StorageAccess};
pub use refuse::{Limit, NotLowered, Refusal, RefusalCode};
pub use split::{Split, split_combined_samplers};

/// What to lower.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only this entry point (by name); all of them when `None`.
    pub entry: Option<String>,
}

/// A module lowered to WGSL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wgsl {
    pub text: String,
    /// Per WGSL line (0-based): the index of the SPIR-V instruction it came
    /// from, if any (declarations of our own, such as entry wrappers' glue,
    /// map to the entry point's `OpEntryPoint`).
    pub lines: Vec<Option<u32>>,
    /// The bindings the lowering introduced, that the module does not
    /// declare (a push-constant block as a buffer): a runner fills them.
    pub introduced: Vec<Introduced>,
    /// Each resource the WGSL declares at a (group, binding), as a runner
    /// binds it: a buffer's address space, access and least size, a
    /// storage texture's access.
    pub bindings: Vec<Binding>,
    /// Each combined image sampler split into a texture and a sampler
    /// binding (both also in `bindings`, with the combined variable as
    /// their `variable`): a runner binds the descriptor's image view at
    /// `texture` and its sampler at `sampler`.
    pub combined: Vec<Combined>,
}

/// How a function's control flow is structured: [`shape::structure`], or
/// a hand-built [`shape::Shape`] in tests.
pub type Structurer<'a> = &'a dyn Fn(&Module, &FunctionCfg) -> Result<shape::Shape, shape::ShapeError>;

/// Lower `ir` (a valid module) to WGSL, with `cfg` its control-flow analysis.
pub fn lower(ir: &Ir, cfg: &ModuleCfg, opts: &Options) -> Result<Wgsl, Vec<Refusal>> {
    lower_with(ir, cfg, opts, &shape::structure)
}

/// [`lower`], with each function's shape from `structure` (tests give
/// hand-built shapes).
pub fn lower_with(ir: &Ir, cfg: &ModuleCfg, opts: &Options, structure: Structurer<'_>) -> Result<Wgsl, Vec<Refusal>> {
    let mut plan = plan::ModulePlan::build(ir, opts).map_err(|r| alloc::vec![r])?;
    // The writer goes on taking names where the plan stopped.
    let names = core::mem::take(&mut plan.names);
    write::write(ir, cfg, structure, &plan, names).map_err(|r| alloc::vec![r])
}
