//! The plan: everything decided about a module before any WGSL is written,
//! immutable while the writer ([`super::write`]) reads it, as naga's
//! validator gives its back ends a `ModuleInfo`. It holds the chosen entry
//! points with their WGSL names and stages, the call tree, the module-scope
//! variables the call tree uses, the memory atomics touch, the access of
//! each storage image, the structs laid out by uniform rules, the
//! push-constant block's address space, the overrides with their names and
//! values, each entry point's workgroup size, each resource binding as a
//! runner binds it ([`Binding`]: address space, access, minimum size), the
//! bindings the lowering introduces, and the module's names taken before
//! writing.
//!
//! The module-wide refusals are decided here ([`ModulePlan::build`] returns
//! the first): a capability, addressing model or 64-bit type WGSL lacks, no
//! entry point, an atomic whose memory cannot be traced, two push-constant
//! blocks or one no layout rules fit, a non-finite override. What depends on
//! one instruction or one declaration is refused where the writer meets it,
//! so that the first refusal reported is the first in the output's order.

use super::Options;
use super::literal::literal;
use super::names::Scope;
use super::refuse::{Refusal, RefusalCode};
use super::types::{Num, check_layout, num, wgsl_size};
use crate::ir::layout::{Explicit, Rules};
use crate::grammar::{built_in, decoration, execution_mode, execution_model, op, storage_class as sc};
use crate::ir::{ConstValue, Ir, Type};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

/// What the writer reads about a module (see the module's documentation).
pub struct ModulePlan<'a> {
    ir: &'a Ir,
    /// The chosen entry points, in the module's order.
    pub entries: Vec<EntryPlan>,
    /// The functions to write: the entry points' call trees, callees first.
    pub functions: Vec<u32>,
    /// The module-scope variables the functions refer to.
    pub used_globals: BTreeSet<u32>,
    atomics: Atomics,
    /// Per storage image type, and per variable an image is loaded from:
    /// [`READ`] and [`WRITE`] bits.
    image_access: BTreeMap<u32, u8>,
    /// Structs and arrays reachable from uniform buffers (uniform layout rules).
    uniform_structs: BTreeSet<u32>,
    push_space: PushConstantSpace,
    /// The overrides (scalar spec constants with a SpecId), in the module's order.
    pub overrides: Vec<Override>,
    /// Whether the call tree uses more than one Block-decorated Workgroup
    /// variable: they share one memory (SPV_KHR_workgroup_memory_explicit_layout),
    /// which WGSL's workgroup variables never do.
    pub aliased_workgroup_blocks: bool,
    /// The bindings the lowering introduces ([`super::Wgsl::introduced`]).
    pub introduced: Vec<Introduced>,
    /// The resources the WGSL declares at a (group, binding), in the
    /// module's order ([`super::Wgsl::bindings`]).
    pub bindings: Vec<Binding>,
    /// Each combined image sampler variable the call tree uses, split into
    /// a texture and a sampler binding ([`super::Wgsl::combined`]).
    pub combined: Vec<Combined>,
    /// Per sampler (or combined image sampler) variable: [`COMPARE`] when a
    /// depth comparison samples through it, [`PLAIN`] when another
    /// sampling or gather does.
    sampler_use: BTreeMap<u32, u8>,
    /// The image (or combined image sampler) variables a depth comparison
    /// samples: declared `texture_depth_*` whatever their Depth operand.
    compare_images: BTreeSet<u32>,
    /// The functions a vertex or compute entry point calls (implicit
    /// level-of-detail sampling needs a fragment shader).
    non_fragment: BTreeSet<u32>,
    /// The module-scope names taken before writing: the entry wrappers'
    /// parameters, the entry points and the overrides (handed to the writer,
    /// which goes on from them).
    pub names: Scope,
}

/// An image is read (OpImageRead).
pub const READ: u8 = 1;
/// An image is written (OpImageWrite).
pub const WRITE: u8 = 2;

/// A sampler is used by a depth comparison.
pub const COMPARE: u8 = 1;
/// A sampler is used by a sampling or gather without a depth comparison.
pub const PLAIN: u8 = 2;

/// A combined image sampler (an OpTypeSampledImage variable) as WGSL
/// declares it: a texture at the variable's own (group, binding), and a
/// sampler in the same group past every binding the module declares there
/// ([`combined_sampler_slot`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Combined {
    /// The SPIR-V variable.
    pub variable: u32,
    /// The texture's (group, binding): the variable's DescriptorSet and Binding.
    pub texture: (u32, u32),
    /// The sampler's (group, binding).
    pub sampler: (u32, u32),
}

/// An entry point to lower.
pub struct EntryPlan {
    /// Its index in the IR's entry points.
    pub index: usize,
    /// Its WGSL name (the SPIR-V one where it is free: a runner finds the
    /// entry point by it).
    pub name: String,
    /// Its WGSL stage, or why WebGPU has none (refused when its wrapper is
    /// written).
    pub stage: Result<Stage, Refusal>,
    /// A compute entry point's workgroup size (x, y, z), or the refusal of
    /// one without any (raised when its wrapper is written); `Ok(None)` for
    /// the other stages.
    pub workgroup_size: Result<Option<[SizeDim; 3]>, Refusal>,
}

/// One dimension of a workgroup size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeDim {
    /// A literal of the LocalSize mode.
    Literal(u32),
    /// A constant (LocalSizeId, or a part of the constant decorated BuiltIn
    /// WorkgroupSize), with its value where it has one.
    Constant {
        id: u32,
        value: Option<u32>,
        /// Whether it is one of the plan's overrides (written by name where
        /// WGSL allows).
        is_override: bool,
    },
}

/// A resource the WGSL declares at a (group, binding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub group: u32,
    pub binding: u32,
    /// The SPIR-V variable it stands for.
    pub variable: u32,
    pub resource: BindingResource,
}

/// What a [`Binding`] holds, as a runner binds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingResource {
    /// `var<uniform>`; `min_size`: WGSL's SizeOf of its type, the least
    /// number of bytes WebGPU binds.
    Uniform { min_size: u64 },
    /// `var<storage, read>` (`read_only`) or `var<storage, read_write>`;
    /// `min_size` as for [`BindingResource::Uniform`], with a runtime-sized
    /// array counted as one element.
    Storage { read_only: bool, min_size: u64 },
    /// `texture_storage_*<format, access>`.
    StorageTexture { access: StorageAccess },
    /// A sampled or multisampled texture of colour (`texture_2d<f32>`...).
    Texture,
    /// A sampler (`sampler`).
    Sampler,
    /// A depth texture (`texture_depth_*`): an image declared with Depth
    /// 1, or one a depth comparison samples. WebGPU binds it with sample
    /// type `depth`.
    DepthTexture,
    /// A comparison sampler (`sampler_comparison`), one a depth comparison
    /// samples through. WebGPU binds it with type `comparison`.
    ComparisonSampler,
}

/// The access of a storage texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageAccess {
    Read,
    Write,
    ReadWrite,
}

impl StorageAccess {
    /// The access as WGSL writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            StorageAccess::Read => "read",
            StorageAccess::Write => "write",
            StorageAccess::ReadWrite => "read_write",
        }
    }
}

/// A WebGPU shader stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Compute,
    Vertex,
    Fragment,
}

impl Stage {
    /// The stage's attribute name (`@compute`).
    pub fn attribute(self) -> &'static str {
        match self {
            Stage::Compute => "compute",
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

/// An override: a scalar spec constant with a SpecId below 65536.
pub struct Override {
    pub id: u32,
    /// Its instruction.
    pub inst: u32,
    pub spec_id: u32,
    pub name: String,
    pub ty: Num,
    /// Its default value, as a literal.
    pub value: String,
}

/// The address space of the push-constant block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushConstantSpace {
    /// Where WGSL's uniform layout rules give its Offsets and ArrayStrides.
    Uniform,
    /// Where only the storage address space's rules do.
    StorageRead,
}

impl PushConstantSpace {
    /// The address space as WGSL writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            PushConstantSpace::Uniform => "uniform",
            PushConstantSpace::StorageRead => "storage, read",
        }
    }
}

/// A binding the lowering introduced (see [`super::Wgsl::introduced`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Introduced {
    pub group: u32,
    pub binding: u32,
    pub kind: IntroducedKind,
    /// The SPIR-V variable it stands for.
    pub variable: u32,
}

/// What an introduced binding holds, and how it is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntroducedKind {
    /// The push-constant block as `var<uniform>`: the runner fills it with
    /// the push-constant bytes.
    PushConstantUniform,
    /// The push-constant block as `var<storage, read>` (its offsets or
    /// strides break the uniform address space's layout rules, not the
    /// storage address space's).
    PushConstantStorage,
}

/// The (group, binding) a push-constant block becomes: in the highest
/// descriptor set the module declares (0 when none), one past its highest
/// binding, so that no resource of the module has it and no bind group is
/// added beyond WebGPU's four.
/// The samplers split from combined image samplers come first
/// ([`combined_sampler_slot`]): the block goes past them.
pub fn push_constant_slot(ir: &Ir) -> (u32, u32) {
    let group = ir.globals.iter().filter_map(|v| v.set).max().unwrap_or(0);
    (group, past_bindings(ir, group) + combined_in(ir, group, u32::MAX))
}

/// One past the highest binding the module declares in `group` (0 when none).
fn past_bindings(ir: &Ir, group: u32) -> u32 {
    ir.globals
        .iter()
        .filter(|v| v.set.unwrap_or(0) == group && (v.set.is_some() || v.binding.is_some()))
        .filter_map(|v| v.binding)
        .max()
        .map_or(0, |b| b + 1)
}

/// Whether module-scope variable `v` is a combined image sampler.
pub(crate) fn is_combined(ir: &Ir, v: &crate::ir::Variable) -> bool {
    v.storage == sc::UniformConstant && v.pointee.is_some_and(|p| matches!(ir.ty(p).map(|t| &t.ty), Some(Type::SampledImage { .. })))
}

/// The number of combined image sampler variables in `group` declared
/// before variable `before` (all of them for `u32::MAX`).
fn combined_in(ir: &Ir, group: u32, before: u32) -> u32 {
    let mut n = 0;
    for v in &ir.globals {
        if v.id == before {
            break;
        }
        if is_combined(ir, v) && v.set.unwrap_or(0) == group {
            n += 1;
        }
    }
    n
}

/// The (group, binding) of the sampler split from combined image sampler
/// `v`: its own group, at one past the highest binding the module declares
/// there, plus the number of combined image samplers declared before it in
/// that group. Every variable of the module counts, used or not, so that
/// the numbering does not depend on the entry point lowered; the
/// push-constant block goes past these ([`push_constant_slot`]).
pub fn combined_sampler_slot(ir: &Ir, v: &crate::ir::Variable) -> (u32, u32) {
    let group = v.set.unwrap_or(0);
    (group, past_bindings(ir, group) + combined_in(ir, group, v.id))
}

/// The variable handle `id` (an image, a sampler or a combined image
/// sampler) is loaded from, through copies (and OpImage of a sampled image).
pub fn handle_variable(ir: &Ir, mut id: u32) -> Option<u32> {
    // A chain of copies is as long as the module; each step is one def.
    for _ in 0..ir.len() {
        let d = ir.def(id)?;
        match ir.opcode(d) {
            op::OpLoad => return ir.words(d).get(2).copied().filter(|&p| ir.def_opcode(p) == Some(op::OpVariable)),
            op::OpCopyObject => id = *ir.words(d).get(2)?,
            // The image of a sampled image.
            op::OpImage => return sampled_parts(ir, *ir.words(d).get(2)?).map(|(img, _)| img),
            _ => return None,
        }
    }
    None
}

/// The (image, sampler) variables sampled image `id` is made of: those of
/// its OpSampledImage, or the combined image sampler variable (twice) it
/// is loaded from.
pub fn sampled_parts(ir: &Ir, mut id: u32) -> Option<(u32, u32)> {
    for _ in 0..ir.len() {
        let d = ir.def(id)?;
        let words = ir.words(d);
        match ir.opcode(d) {
            op::OpSampledImage => return Some((handle_variable(ir, *words.get(2)?)?, handle_variable(ir, *words.get(3)?)?)),
            op::OpLoad => {
                let v = handle_variable(ir, id)?;
                return Some((v, v));
            }
            op::OpCopyObject => id = *words.get(2)?,
            _ => return None,
        }
    }
    None
}

/// Whether `opcode` is one of the atomics WGSL has.
pub fn is_atomic(opcode: u16) -> bool {
    (op::OpAtomicLoad..=op::OpAtomicXor).contains(&opcode)
}

/// The memory atomics touch.
#[derive(Default)]
struct Atomics {
    /// (struct, member) pairs.
    members: BTreeSet<(u32, u32)>,
    /// Array types whose elements they touch.
    elements: BTreeSet<u32>,
    /// Variables (scalars).
    variables: BTreeSet<u32>,
}

/// Where an atomic lives.
enum AtomicSite {
    Variable(u32),
    Member(u32, u32),
    Element(u32),
}

impl<'a> ModulePlan<'a> {
    /// The plan of lowering `ir` as `opts` asks; the first module-wide refusal.
    pub fn build(ir: &'a Ir, opts: &Options) -> Result<ModulePlan<'a>, Refusal> {
        check_module(ir)?;
        let chosen: Vec<usize> = (0..ir.entry_points.len())
            .filter(|&k| opts.entry.as_ref().is_none_or(|n| *n == ir.entry_points[k].name))
            .collect();
        if chosen.is_empty() {
            let msg = match &opts.entry {
                Some(n) => alloc::format!("no entry point named \"{n}\""),
                None => String::from("the module has no entry point"),
            };
            return Err(Refusal::new(RefusalCode::EntryPoint, msg, None));
        }
        let mut plan = ModulePlan {
            ir,
            entries: Vec::new(),
            functions: call_tree(ir, &chosen),
            used_globals: BTreeSet::new(),
            atomics: Atomics::default(),
            image_access: BTreeMap::new(),
            uniform_structs: BTreeSet::new(),
            push_space: PushConstantSpace::Uniform,
            overrides: Vec::new(),
            aliased_workgroup_blocks: false,
            introduced: Vec::new(),
            bindings: Vec::new(),
            combined: Vec::new(),
            sampler_use: BTreeMap::new(),
            compare_images: BTreeSet::new(),
            non_fragment: BTreeSet::new(),
            names: Scope::default(),
        };
        // The entry wrappers' parameter names: no global may shadow them.
        plan.names.take_numbered("p", 64);
        plan.names.take("flat_index");
        plan.names.take("flat_group");
        plan.find_atomics()?;
        plan.find_image_access();
        plan.find_sampling();
        let others: Vec<usize> = chosen.iter().copied().filter(|&e| ir.entry_points[e].model != execution_model::Fragment).collect();
        if !others.is_empty() {
            plan.non_fragment = call_tree(ir, &others).into_iter().collect();
        }
        // Entry names first: the runner finds them by their SPIR-V names.
        for &e in &chosen {
            let ep = &ir.entry_points[e];
            let name = plan.names.fresh(Some(&ep.name), "main");
            let stage = match ep.model {
                execution_model::GLCompute => Ok(Stage::Compute),
                execution_model::Vertex => Ok(Stage::Vertex),
                execution_model::Fragment => Ok(Stage::Fragment),
                _ => Err(Refusal::new(RefusalCode::Stage, "an entry point of a stage WebGPU lacks", Some(ep.inst))),
            };
            plan.entries.push(EntryPlan { index: e, name, stage, workgroup_size: Ok(None) });
        }
        plan.used_globals = plan.find_used_globals();
        // Uniform layout rules first: they decide how arrays are declared.
        plan.plan_push_constants()?;
        for v in &ir.globals {
            if !plan.used_globals.contains(&v.id) {
                continue;
            }
            let block = v.pointee.and_then(|p| ir.ty(p)).and_then(|t| t.block);
            let is_struct = v.pointee.is_some_and(|p| matches!(ir.ty(p).map(|t| &t.ty), Some(Type::Struct { .. })));
            // A Uniform block, and a Uniform struct that is no BufferBlock
            // (declared `var<uniform>`).
            let uniform = v.storage == sc::Uniform
                && (block == Some(crate::ir::BlockKind::Block) || (is_struct && block != Some(crate::ir::BlockKind::BufferBlock)));
            if uniform && let Some(p) = v.pointee {
                plan.mark_uniform(p);
            }
        }
        plan.plan_overrides()?;
        for k in 0..plan.entries.len() {
            let ep = &ir.entry_points[plan.entries[k].index];
            if ep.model == execution_model::GLCompute {
                plan.entries[k].workgroup_size = plan.workgroup_size(ep).map(Some);
            }
        }
        plan.bindings = plan.find_bindings();
        plan.combined = plan.find_combined();
        let workgroup_blocks = ir
            .globals
            .iter()
            .filter(|g| plan.used_globals.contains(&g.id) && g.storage == sc::Workgroup)
            .filter(|g| g.pointee.and_then(|p| ir.ty(p)).is_some_and(|t| t.block.is_some()))
            .count();
        plan.aliased_workgroup_blocks = workgroup_blocks > 1;
        Ok(plan)
    }

    /// Whether `id` is a module-scope variable the call tree uses.
    pub fn uses_global(&self, id: u32) -> bool {
        self.used_globals.contains(&id)
    }

    /// The address space of the push-constant block.
    pub fn push_space(&self) -> PushConstantSpace {
        self.push_space
    }

    /// Whether struct or array `ty` is laid out by uniform rules.
    pub fn is_uniform(&self, ty: u32) -> bool {
        self.uniform_structs.contains(&ty)
    }

    /// Whether atomics touch variable `v`.
    pub fn atomic_variable(&self, v: u32) -> bool {
        self.atomics.variables.contains(&v)
    }

    /// Whether atomics touch member `k` of struct `st`.
    pub fn atomic_member(&self, st: u32, k: u32) -> bool {
        self.atomics.members.contains(&(st, k))
    }

    /// Whether atomics touch the elements of array type `arr`.
    pub fn atomic_elements(&self, arr: u32) -> bool {
        self.atomics.elements.contains(&arr)
    }

    /// Whether a load or store through `ptr` touches atomic memory.
    pub fn is_atomic_ptr(&self, ptr: u32) -> bool {
        let a = &self.atomics;
        // Most modules have no atomics: nothing to look up.
        if a.variables.is_empty() && a.members.is_empty() && a.elements.is_empty() {
            return false;
        }
        match self.atomic_site(ptr) {
            Some(AtomicSite::Variable(v)) => a.variables.contains(&v),
            Some(AtomicSite::Member(s, k)) => a.members.contains(&(s, k)),
            Some(AtomicSite::Element(e)) => a.elements.contains(&e),
            None => false,
        }
    }

    /// The access of storage image `user` (a variable or an image type):
    /// read, write (also when neither is seen) or read-write.
    pub fn image_access(&self, user: u32) -> StorageAccess {
        match self.image_access.get(&user).copied().unwrap_or(WRITE) {
            READ => StorageAccess::Read,
            WRITE => StorageAccess::Write,
            // Beyond r32float/r32sint/r32uint, a browser needs the
            // device feature `texture-formats-tier2` for read_write.
            _ => StorageAccess::ReadWrite,
        }
    }

    /// The binding variable `v` is declared as, if it is one (the texture
    /// of a combined image sampler).
    pub fn binding_of(&self, v: u32) -> Option<&Binding> {
        self.bindings.iter().find(|b| b.variable == v)
    }

    /// How sampler (or combined image sampler) variable `v` is sampled
    /// through: [`COMPARE`] and [`PLAIN`] bits.
    pub fn sampler_use(&self, v: u32) -> u8 {
        self.sampler_use.get(&v).copied().unwrap_or(0)
    }

    /// Whether a depth comparison samples image (or combined image sampler)
    /// variable `v`.
    pub fn compared(&self, v: u32) -> bool {
        self.compare_images.contains(&v)
    }

    /// Whether a vertex or compute entry point calls function `f`.
    pub fn outside_fragment(&self, f: u32) -> bool {
        self.non_fragment.contains(&f)
    }

    /// The split of combined image sampler variable `v`, if it is one the
    /// call tree uses.
    pub fn combined_of(&self, v: u32) -> Option<&Combined> {
        self.combined.iter().find(|c| c.variable == v)
    }

    /// The workgroup size of compute entry point `ep`: a constant decorated
    /// BuiltIn WorkgroupSize wins over the modes.
    fn workgroup_size(&self, ep: &crate::ir::EntryPoint) -> Result<[SizeDim; 3], Refusal> {
        let ir = self.ir;
        let constant = |id: u32| SizeDim::Constant {
            id,
            value: ir.const_u64(id).map(|v| v as u32),
            is_override: self.overrides.iter().any(|o| o.id == id),
        };
        let three = |ids: &[u32]| -> Option<[SizeDim; 3]> {
            match ids {
                &[x, y, z] => Some([constant(x), constant(y), constant(z)]),
                _ => None,
            }
        };
        for &d in &ir.decorations {
            if d.decoration == decoration::BuiltIn
                && d.member.is_none()
                && d.arg(ir) == Some(built_in::WorkgroupSize)
                && let Some(c) = ir.constant(d.target)
                && let ConstValue::Composite(parts) = &c.value
                && let Some(dims) = three(parts)
            {
                return Ok(dims);
            }
        }
        for m in &ep.modes {
            let dims = match (m.mode, m.operands.as_slice()) {
                (execution_mode::LocalSize, &[x, y, z]) => Some([SizeDim::Literal(x), SizeDim::Literal(y), SizeDim::Literal(z)]),
                (execution_mode::LocalSizeId, ids) => three(ids),
                _ => None,
            };
            if let Some(dims) = dims {
                return Ok(dims);
            }
        }
        Err(Refusal::new(RefusalCode::EntryPoint, "a compute entry point without a workgroup size", Some(ep.inst)))
    }

    /// The resources the functions use, as the WGSL declares them.
    fn find_bindings(&self) -> Vec<Binding> {
        let ir = self.ir;
        let mut out = Vec::new();
        for v in &ir.globals {
            if !self.used_globals.contains(&v.id) {
                continue;
            }
            let Some(pointee) = v.pointee else { continue };
            let Some(t) = ir.ty(pointee) else { continue };
            let min_size = || wgsl_size(ir, pointee).unwrap_or(0);
            let (group, binding) = (v.set.unwrap_or(0), v.binding.unwrap_or(0));
            let (group, binding, resource) = match (v.storage, &t.ty) {
                (sc::StorageBuffer | sc::Uniform, Type::Struct { .. }) => {
                    let resource = if v.storage == sc::StorageBuffer || t.block == Some(crate::ir::BlockKind::BufferBlock) {
                        BindingResource::Storage { read_only: read_only(ir, v.id, pointee), min_size: min_size() }
                    } else {
                        BindingResource::Uniform { min_size: min_size() }
                    };
                    (group, binding, resource)
                }
                (sc::PushConstant, _) => {
                    let (g, b) = push_constant_slot(ir);
                    let resource = match self.push_space {
                        PushConstantSpace::Uniform => BindingResource::Uniform { min_size: min_size() },
                        PushConstantSpace::StorageRead => BindingResource::Storage { read_only: true, min_size: min_size() },
                    };
                    (g, b, resource)
                }
                (sc::UniformConstant, Type::Image { sampled: 2, .. }) => {
                    (group, binding, BindingResource::StorageTexture { access: self.image_access(v.id) })
                }
                (sc::UniformConstant, Type::Image { depth, .. }) => (group, binding, self.texture_resource(v.id, *depth)),
                (sc::UniformConstant, Type::Sampler) => (group, binding, self.sampler_resource(v.id)),
                (sc::UniformConstant, &Type::SampledImage { image }) => {
                    let depth = match ir.ty(image).map(|t| &t.ty) {
                        Some(Type::Image { depth, .. }) => *depth,
                        _ => 0,
                    };
                    out.push(Binding { group, binding, variable: v.id, resource: self.texture_resource(v.id, depth) });
                    let (g, b) = combined_sampler_slot(ir, v);
                    (g, b, self.sampler_resource(v.id))
                }
                _ => continue,
            };
            out.push(Binding { group, binding, variable: v.id, resource });
        }
        out
    }

    /// The binding of a sampled texture variable `v` whose image type has
    /// Depth `depth`.
    fn texture_resource(&self, v: u32, depth: u32) -> BindingResource {
        if depth == 1 || self.compared(v) { BindingResource::DepthTexture } else { BindingResource::Texture }
    }

    /// The binding of sampler (or combined image sampler) variable `v`.
    fn sampler_resource(&self, v: u32) -> BindingResource {
        if self.sampler_use(v) & COMPARE != 0 { BindingResource::ComparisonSampler } else { BindingResource::Sampler }
    }

    /// The combined image samplers the functions use, split.
    fn find_combined(&self) -> Vec<Combined> {
        let ir = self.ir;
        let mut out = Vec::new();
        for v in &ir.globals {
            if self.used_globals.contains(&v.id) && is_combined(ir, v) {
                let texture = (v.set.unwrap_or(0), v.binding.unwrap_or(0));
                out.push(Combined { variable: v.id, texture, sampler: combined_sampler_slot(ir, v) });
            }
        }
        out
    }

    /// Which samplers and images the sampling instructions use, and how.
    fn find_sampling(&mut self) {
        let ir = self.ir;
        for &fid in &self.functions {
            let Some(func) = ir.function(fid) else { continue };
            for i in func.inst as usize..func.end as usize {
                let bit = match ir.opcode(i) {
                    op::OpImageSampleDrefImplicitLod
                    | op::OpImageSampleDrefExplicitLod
                    | op::OpImageSampleProjDrefImplicitLod
                    | op::OpImageSampleProjDrefExplicitLod
                    | op::OpImageDrefGather => COMPARE,
                    op::OpImageSampleImplicitLod
                    | op::OpImageSampleExplicitLod
                    | op::OpImageSampleProjImplicitLod
                    | op::OpImageSampleProjExplicitLod
                    | op::OpImageGather => PLAIN,
                    _ => continue,
                };
                let Some(&si) = ir.words(i).get(2) else { continue };
                let Some((img, smp)) = sampled_parts(ir, si) else { continue };
                *self.sampler_use.entry(smp).or_default() |= bit;
                if bit == COMPARE {
                    self.compare_images.insert(img);
                }
            }
        }
    }

    /// The ArrayStride of `arr` when its elements need a wrapper struct
    /// (WGSL's own stride differs, or the uniform address space needs a
    /// multiple of 16).
    pub fn wrap_stride(&self, arr: u32) -> Option<u32> {
        let t = self.ir.ty(arr)?;
        let (Type::Array { element, .. } | Type::RuntimeArray { element }) = t.ty else { return None };
        let st = t.array_stride?;
        let natural = Explicit::new(self.ir, Rules::Wgsl { uniform: false }).stride(element)?;
        let uniform = self.uniform_structs.contains(&arr);
        (st as u64 != natural || (uniform && !natural.is_multiple_of(16))).then_some(st)
    }

    /// The atomic site `ptr` points at.
    fn atomic_site(&self, ptr: u32) -> Option<AtomicSite> {
        let ir = self.ir;
        let i = ir.def(ptr)?;
        match ir.opcode(i) {
            op::OpVariable => Some(AtomicSite::Variable(ptr)),
            op::OpAccessChain | op::OpInBoundsAccessChain => {
                let words = ir.words(i);
                let base = *words.get(2)?;
                let mut ty = match ir.ty(ir.type_of(base)?)?.ty {
                    Type::Pointer { pointee, .. } => pointee?,
                    _ => return None,
                };
                let indices = words.get(3..)?;
                let mut site = None;
                for &x in indices {
                    let t = ir.ty(ty)?;
                    match &t.ty {
                        Type::Struct { members } => {
                            let k = ir.const_u64(x)? as u32;
                            site = Some(AtomicSite::Member(ty, k));
                            ty = members.get(k as usize)?.ty;
                        }
                        Type::Array { element, .. } | Type::RuntimeArray { element } => {
                            site = Some(AtomicSite::Element(ty));
                            ty = *element;
                        }
                        Type::Vector { component, .. } => {
                            site = None;
                            ty = *component;
                        }
                        Type::Matrix { column, .. } => {
                            site = None;
                            ty = *column;
                        }
                        _ => return None,
                    }
                }
                match site {
                    None if indices.is_empty() => self.atomic_site(base),
                    s => s,
                }
            }
            op::OpCopyObject => self.atomic_site(*ir.words(i).get(2)?),
            _ => None,
        }
    }

    /// Mark the memory every atomic instruction touches.
    fn find_atomics(&mut self) -> Result<(), Refusal> {
        let ir = self.ir;
        for &f in &self.functions {
            let Some(func) = ir.function(f) else { continue };
            for i in func.inst as usize..func.end as usize {
                let o = ir.opcode(i);
                if !is_atomic(o) {
                    continue;
                }
                let words = ir.words(i);
                let ptr = if o == op::OpAtomicStore { words.first() } else { words.get(2) };
                let Some(&ptr) = ptr else { continue };
                match self.atomic_site(ptr) {
                    Some(AtomicSite::Variable(v)) => {
                        self.atomics.variables.insert(v);
                    }
                    Some(AtomicSite::Member(s, k)) => {
                        self.atomics.members.insert((s, k));
                    }
                    Some(AtomicSite::Element(a)) => {
                        self.atomics.elements.insert(a);
                    }
                    None => {
                        return Err(Refusal::new(
                            RefusalCode::Atomic,
                            "an atomic through a pointer whose memory cannot be traced to a variable",
                            Some(i as u32),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Which storage images are read and written: by image type, and by
    /// the variable an image is loaded from.
    fn find_image_access(&mut self) {
        let ir = self.ir;
        for &fid in &self.functions {
            let Some(func) = ir.function(fid) else { continue };
            for i in func.inst as usize..func.end as usize {
                let words = ir.words(i);
                let (img, bit) = match ir.opcode(i) {
                    op::OpImageRead => (words.get(2), READ),
                    op::OpImageWrite => (words.first(), WRITE),
                    _ => continue,
                };
                let Some(&img) = img else { continue };
                if let Some(t) = ir.type_of(img) {
                    *self.image_access.entry(t).or_default() |= bit;
                }
                // And by variable, where the image is loaded from one.
                if let Some(d) = ir.def(img)
                    && ir.opcode(d) == op::OpLoad
                    && let Some(&var) = ir.words(d).get(2)
                {
                    *self.image_access.entry(var).or_default() |= bit;
                }
            }
        }
    }

    /// The global variables the functions refer to.
    fn find_used_globals(&self) -> BTreeSet<u32> {
        let ir = self.ir;
        let mut used = BTreeSet::new();
        if ir.globals.is_empty() {
            return used;
        }
        // A global is an OpVariable before the first function: that test,
        // two loads, spares most operands the search of `Ir::global`.
        let first_function = ir.functions.first().map_or(usize::MAX, |f| f.inst as usize);
        let maybe_global = |id: u32| ir.def(id).is_some_and(|d| d < first_function && ir.opcode(d) == op::OpVariable);
        for &f in &self.functions {
            let Some(func) = ir.function(f) else { continue };
            for i in func.inst as usize..func.end as usize {
                for o in ir.operands(i) {
                    if o.kind == crate::grammar::OperandKind::IdRef
                        && let Some(id) = o.id()
                        && maybe_global(id)
                        && ir.global(id).is_some()
                    {
                        used.insert(id);
                    }
                }
            }
        }
        used
    }

    /// The push-constant block (at most one is used by an entry point's
    /// call tree): a uniform buffer where WGSL's uniform layout rules give
    /// its Offsets and ArrayStrides, else a read-only storage buffer; the
    /// layout refusal when neither does.
    fn plan_push_constants(&mut self) -> Result<(), Refusal> {
        let ir = self.ir;
        let blocks: Vec<(u32, u32, u32)> = ir
            .globals
            .iter()
            .filter(|v| self.used_globals.contains(&v.id) && v.storage == sc::PushConstant)
            .filter_map(|v| v.pointee.map(|p| (v.inst, p, v.id)))
            .collect();
        if blocks.len() > 1 {
            return Err(Refusal::new(RefusalCode::PushConstant, "two push constant blocks in one call tree", Some(blocks[1].0)));
        }
        let Some(&(at, p, variable)) = blocks.first() else { return Ok(()) };
        if !matches!(ir.ty(p).map(|t| &t.ty), Some(Type::Struct { .. })) {
            return Err(Refusal::new(RefusalCode::PushConstant, "a push constant that is not a block", Some(at)));
        }
        let kind = match check_layout(ir, p, true) {
            Ok(()) => {
                self.push_space = PushConstantSpace::Uniform;
                self.mark_uniform(p);
                IntroducedKind::PushConstantUniform
            }
            Err(uniform) => {
                if check_layout(ir, p, false).is_err() {
                    return Err(uniform);
                }
                self.push_space = PushConstantSpace::StorageRead;
                IntroducedKind::PushConstantStorage
            }
        };
        let (group, binding) = push_constant_slot(ir);
        self.introduced.push(Introduced { group, binding, kind, variable });
        Ok(())
    }

    /// Mark the structs reachable from `ty` as laid out by uniform rules.
    fn mark_uniform(&mut self, ty: u32) {
        let Some(t) = self.ir.ty(ty) else { return };
        match &t.ty {
            Type::Struct { members } => {
                if self.uniform_structs.insert(ty) {
                    for m in members {
                        self.mark_uniform(m.ty);
                    }
                }
            }
            Type::Array { element, .. } => {
                if self.uniform_structs.insert(ty) {
                    self.mark_uniform(*element);
                }
            }
            _ => {}
        }
    }

    /// Overrides: scalar spec constants with a SpecId, named and valued.
    fn plan_overrides(&mut self) -> Result<(), Refusal> {
        let ir = self.ir;
        for c in &ir.constants {
            let o = ir.opcode(c.inst as usize);
            if !matches!(o, op::OpSpecConstant | op::OpSpecConstantTrue | op::OpSpecConstantFalse) {
                continue;
            }
            let Some(spec_id) = ir.spec_id(c.id) else { continue };
            let Some(ty) = num(ir, c.ty).filter(|n| n.n == 1) else { continue };
            let value = match c.value {
                ConstValue::Bool(b) => String::from(if b { "true" } else { "false" }),
                ConstValue::Scalar(bits) => literal(ty, bits, c.inst)?,
                _ => continue,
            };
            if spec_id >= 65536 {
                continue;
            }
            let name = self.names.fresh_numbered(None, ir.name(c.id), "c", c.id);
            self.overrides.push(Override { id: c.id, inst: c.inst, spec_id, name, ty, value });
        }
        Ok(())
    }
}

/// Whether storage buffer `var` (of type `ty`) is never written: NonWritable
/// on the variable or on every member.
fn read_only(ir: &Ir, var: u32, ty: u32) -> bool {
    if ir.has_decoration(var, decoration::NonWritable) {
        return true;
    }
    let n = ir.ty(ty).map_or(0, |t| t.members().len());
    n > 0 && (0..n as u32).all(|k| ir.member_decoration(ty, k, decoration::NonWritable).is_some())
}

/// Refuse what the module declares that WGSL lacks.
fn check_module(ir: &Ir) -> Result<(), Refusal> {
    use crate::grammar::capability as cap;
    // What reading the operands found (`Ir::build` parses them once; a
    // caller that read the module with `binary::read_words_framing`
    // gets here the checks `binary::read_words` would have made).
    match ir.problems.first() {
        Some(crate::ir::Problem::Operands(e)) => {
            return Err(Refusal::new(RefusalCode::Invalid, alloc::format!("{e}"), None));
        }
        Some(&crate::ir::Problem::IdOutOfBound { inst, id, bound }) => {
            let msg = alloc::format!("%{id} is not below the id bound {bound}");
            return Err(Refusal::new(RefusalCode::Invalid, msg, Some(inst)));
        }
        None => {}
    }
    // Variable-length arrays first: they come with the physical model. One
    // pass, which keeps the first other refusal for after it.
    let mut first: Option<Refusal> = None;
    for i in 0..ir.len() {
        let o = ir.opcode(i);
        if matches!(o, op::OpVariableLengthArrayINTEL | op::OpSaveMemoryINTEL | op::OpRestoreMemoryINTEL) {
            return Err(Refusal::new(RefusalCode::Vla, "a variable-length array (SPV_INTEL_variable_length_array)", Some(i as u32)));
        }
        if first.is_some() {
            continue;
        }
        match o {
            op::OpCapability => {
                let c = ir.words(i).first().copied().unwrap_or(0);
                let refused = match c {
                    cap::Addresses => Some(("Addresses", RefusalCode::PhysicalPointer)),
                    cap::Linkage => Some(("Linkage", RefusalCode::Capability)),
                    cap::Kernel => Some(("Kernel", RefusalCode::Capability)),
                    cap::Float64 => Some(("Float64", RefusalCode::Float64)),
                    cap::Int64 => Some(("Int64", RefusalCode::Int64)),
                    _ => None,
                };
                if let Some((name, code)) = refused {
                    first = Some(Refusal::new(code, alloc::format!("capability {name}"), Some(i as u32)));
                }
            }
            op::OpMemoryModel if ir.words(i).first().copied() != Some(crate::grammar::addressing_model::Logical) => {
                first = Some(Refusal::new(RefusalCode::PhysicalPointer, "a physical addressing model", Some(i as u32)));
            }
            _ => {}
        }
    }
    if let Some(r) = first {
        return Err(r);
    }
    for t in &ir.types {
        match t.ty {
            Type::Int { width: 64, .. } => {
                return Err(Refusal::new(RefusalCode::Int64, "a 64-bit integer type", Some(t.inst)));
            }
            Type::Float { width: 64, .. } => {
                return Err(Refusal::new(RefusalCode::Float64, "a 64-bit float type", Some(t.inst)));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The functions called from entry points `entries`, callees first.
fn call_tree(ir: &Ir, entries: &[usize]) -> Vec<u32> {
    let mut functions = Vec::new();
    let mut stack: Vec<(u32, bool)> = entries.iter().map(|&e| (ir.entry_points[e].function, false)).collect();
    let mut seen = BTreeSet::new();
    while let Some((f, done)) = stack.pop() {
        if done {
            functions.push(f);
            continue;
        }
        if !seen.insert(f) {
            continue;
        }
        stack.push((f, true));
        let Some(func) = ir.function(f) else { continue };
        for i in func.inst as usize..func.end as usize {
            if ir.opcode(i) == op::OpFunctionCall
                && let Some(&callee) = ir.words(i).get(2)
                && !seen.contains(&callee)
            {
                stack.push((callee, false));
            }
        }
    }
    functions
}
