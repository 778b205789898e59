//! Resource reflection: for each entry point, the buffers, images and push
//! constants it binds (set, binding, storage class, layout, byte size), its
//! workgroup size and the built-ins it uses. Read from the [`Ir`] only.
//!
//! Which variables an entry point uses: those statically referenced by the
//! functions its call tree reaches (what drivers bind), plus its interface
//! variables for built-ins (before SPIR-V 1.4 the interface lists only
//! Input/Output variables, so it cannot be used for buffers).

#[cfg(test)]
mod tests;
mod spec;
pub mod walk;
pub use spec::{SpecConstant, spec_constants};

use crate::grammar::{OperandKind, op};
use crate::ir::{BlockKind, Ir, Type};
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The storage classes of resources, by the grammar's generated constants.
mod sc {
    pub use crate::grammar::storage_class::{
        PushConstant as PUSH_CONSTANT, StorageBuffer as STORAGE_BUFFER, Uniform as UNIFORM,
        UniformConstant as UNIFORM_CONSTANT, Workgroup as WORKGROUP,
    };
}
use crate::grammar::built_in::WorkgroupSize as BUILTIN_WORKGROUP_SIZE;
use crate::grammar::decoration::BuiltIn as DEC_BUILTIN;
use crate::grammar::dim::Buffer as DIM_BUFFER;
use crate::grammar::execution_mode::{LocalSize as EM_LOCAL_SIZE, LocalSizeId as EM_LOCAL_SIZE_ID};
/// Depth for stacking type trees of invalid modules.
const MAX_DEPTH: u32 = 32;

/// An entry point's execution model (the grammar's `ExecutionModel`); in
/// JSON its grammar name (`"GLCompute"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExecutionModel {
    Vertex,
    TessellationControl,
    TessellationEvaluation,
    Geometry,
    Fragment,
    GLCompute,
    Kernel,
    /// Any other (mesh, task, ray tracing), by its grammar value.
    Other(u32),
}

impl ExecutionModel {
    pub fn of(value: u32) -> ExecutionModel {
        use crate::grammar::execution_model as em;
        match value {
            em::Vertex => ExecutionModel::Vertex,
            em::TessellationControl => ExecutionModel::TessellationControl,
            em::TessellationEvaluation => ExecutionModel::TessellationEvaluation,
            em::Geometry => ExecutionModel::Geometry,
            em::Fragment => ExecutionModel::Fragment,
            em::GLCompute => ExecutionModel::GLCompute,
            em::Kernel => ExecutionModel::Kernel,
            v => ExecutionModel::Other(v),
        }
    }

    /// The grammar value.
    pub fn value(self) -> u32 {
        use crate::grammar::execution_model as em;
        match self {
            ExecutionModel::Vertex => em::Vertex,
            ExecutionModel::TessellationControl => em::TessellationControl,
            ExecutionModel::TessellationEvaluation => em::TessellationEvaluation,
            ExecutionModel::Geometry => em::Geometry,
            ExecutionModel::Fragment => em::Fragment,
            ExecutionModel::GLCompute => em::GLCompute,
            ExecutionModel::Kernel => em::Kernel,
            ExecutionModel::Other(v) => v,
        }
    }

    /// A compute model: GLCompute, or an OpenCL Kernel.
    pub fn is_compute(self) -> bool {
        matches!(self, ExecutionModel::GLCompute | ExecutionModel::Kernel)
    }
}

impl core::fmt::Display for ExecutionModel {
    /// The grammar's name (`GLCompute`), or the number of an unknown one.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match OperandKind::ExecutionModel.enumerant(self.value()) {
            Some(e) => f.write_str(e.name),
            None => write!(f, "{}", self.value()),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ExecutionModel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What a resource is, as a descriptor (or push constant) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub enum ResourceKind {
    /// `Uniform` + `Block`.
    UniformBuffer,
    /// `StorageBuffer` + `Block`, or `Uniform` + `BufferBlock`.
    StorageBuffer,
    PushConstant,
    /// A `Workgroup` variable (no descriptor).
    Workgroup,
    SampledImage,
    StorageImage,
    CombinedImageSampler,
    UniformTexelBuffer,
    StorageTexelBuffer,
    Sampler,
    AccelerationStructure,
    /// Any other `UniformConstant` variable.
    Other,
}

impl ResourceKind {
    pub fn is_buffer(self) -> bool {
        matches!(
            self,
            ResourceKind::UniformBuffer | ResourceKind::StorageBuffer | ResourceKind::PushConstant
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            ResourceKind::UniformBuffer => "uniform buffer",
            ResourceKind::StorageBuffer => "storage buffer",
            ResourceKind::PushConstant => "push constant",
            ResourceKind::Workgroup => "workgroup",
            ResourceKind::SampledImage => "sampled image",
            ResourceKind::StorageImage => "storage image",
            ResourceKind::CombinedImageSampler => "combined image sampler",
            ResourceKind::UniformTexelBuffer => "uniform texel buffer",
            ResourceKind::StorageTexelBuffer => "storage texel buffer",
            ResourceKind::Sampler => "sampler",
            ResourceKind::AccelerationStructure => "acceleration structure",
            ResourceKind::Other => "other",
        }
    }
}

/// The shape of a type in a type tree.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(
        tag = "kind",
        rename_all = "camelCase",
        rename_all_fields = "camelCase"
    )
)]
pub enum TypeShape {
    Void,
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
    Vector { count: u32 },
    Matrix { columns: u32 },
    Array { length: Option<u64> },
    RuntimeArray,
    Struct,
    Pointer { storage_class: String },
    Image { dim: u32, sampled: u32 },
    Sampler,
    SampledImage,
    Other { opcode: String },
}

/// A type tree: a type with its layout, and its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct TypeNode {
    pub id: u32,
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub shape: TypeShape,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub name: Option<String>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub size: Option<u64>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub array_stride: Option<u32>,
    /// The vector component, matrix column, array element or pointee.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub element: Option<Box<TypeNode>>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub members: Vec<MemberNode>,
}

/// A struct member in a type tree.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct MemberNode {
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub name: Option<String>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub offset: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub size: Option<u64>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub matrix_stride: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub row_major: Option<bool>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub builtin: Option<String>,
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub ty: TypeNode,
}

/// A struct ending in a runtime array: its fixed part and the array's stride.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct RuntimeArrayShape {
    /// The size of the fixed part (the runtime array's offset).
    pub fixed_size: u64,
    /// The runtime array's ArrayStride.
    pub stride: Option<u32>,
}

/// One resource an entry point binds.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct Resource {
    /// The variable's id.
    pub variable: u32,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub name: Option<String>,
    pub kind: ResourceKind,
    pub storage_class: String,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub set: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub binding: Option<u32>,
    /// `"Block"` or `"BufferBlock"`, for buffers.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub block: Option<String>,
    /// For an array of descriptors: its length (`None` for a runtime array of
    /// descriptors, see `descriptor_array`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub descriptor_count: Option<u64>,
    /// Whether the variable is an array of descriptors.
    pub descriptor_array: bool,
    /// The byte size of one descriptor's data (the block), where it has one.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub size: Option<u64>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub runtime_array: Option<RuntimeArrayShape>,
    /// The type of one descriptor's data.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub ty: TypeNode,
}

/// Where the workgroup size comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub enum WorkgroupSource {
    LocalSize,
    LocalSizeId,
    /// A constant decorated `BuiltIn WorkgroupSize` (wins over the modes).
    BuiltIn,
}

/// The workgroup size of a compute-like entry point; a dimension is `None`
/// when its constant does not evaluate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct WorkgroupSize {
    pub x: Option<u32>,
    pub y: Option<u32>,
    pub z: Option<u32>,
    pub source: WorkgroupSource,
}

/// A built-in an entry point uses.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct BuiltInUse {
    /// The BuiltIn's name (grammar).
    pub builtin: String,
    pub value: u32,
    pub storage_class: String,
    pub variable: u32,
    /// The struct member, when the built-in is a block member.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub member: Option<u32>,
}

/// What one entry point binds and uses.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct EntryReflection {
    pub name: String,
    pub execution_model: ExecutionModel,
    pub function: u32,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub workgroup_size: Option<WorkgroupSize>,
    /// Sorted by (set, binding), then push constants, then workgroup variables.
    pub resources: Vec<Resource>,
    pub builtins: Vec<BuiltInUse>,
}

/// The reflection of a module.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct Reflection {
    pub entry_points: Vec<EntryReflection>,
    /// The specialization constants a run can set (by SpecId).
    pub spec_constants: Vec<SpecConstant>,
}

fn enum_name(kind: OperandKind, value: u32) -> String {
    match kind.enumerant(value) {
        Some(e) => String::from(e.name),
        None => value.to_string(),
    }
}

/// Reflect every entry point of the module.
pub fn reflect(ir: &Ir) -> Reflection {
    Reflection {
        entry_points: ir
            .entry_points
            .iter()
            .map(|e| reflect_entry(ir, e))
            .collect(),
        spec_constants: spec_constants(ir),
    }
}

/// The global variables statically used by the call tree of `function`, in
/// binary order (deduplicated).
pub fn used_globals(ir: &Ir, function: u32) -> Vec<u32> {
    let mut seen_fn: Vec<u32> = Vec::new();
    let mut stack = alloc::vec![function];
    let mut used = alloc::vec![false; ir.globals.len()];
    while let Some(f) = stack.pop() {
        if seen_fn.contains(&f) {
            continue;
        }
        seen_fn.push(f);
        let Some(func) = ir.function(f) else { continue };
        for i in func.inst as usize..(func.end as usize).min(ir.len()) {
            let call = ir.opcode(i) == op::OpFunctionCall;
            for (k, o) in ir.operands(i).enumerate() {
                if o.kind != OperandKind::IdRef {
                    continue;
                }
                let Some(id) = o.id() else { continue };
                if call && k == 2 {
                    stack.push(id);
                    continue;
                }
                if let Some(g) = ir.global(id) {
                    let gi = ir.globals.partition_point(|v| v.inst < g.inst);
                    used[gi] = true;
                }
            }
        }
    }
    ir.globals
        .iter()
        .zip(used)
        .filter(|(_, u)| *u)
        .map(|(g, _)| g.id)
        .collect()
}

fn reflect_entry(ir: &Ir, e: &crate::ir::EntryPoint) -> EntryReflection {
    let mut resources = Vec::new();
    for id in used_globals(ir, e.function) {
        if let Some(r) = resource(ir, id) {
            resources.push(r);
        }
    }
    resources.sort_by_key(|r| {
        let order = match r.kind {
            ResourceKind::PushConstant => 1,
            ResourceKind::Workgroup => 2,
            _ => 0,
        };
        (
            order,
            r.set.unwrap_or(u32::MAX),
            r.binding.unwrap_or(u32::MAX),
            r.variable,
        )
    });
    EntryReflection {
        name: e.name.clone(),
        execution_model: ExecutionModel::of(e.model),
        function: e.function,
        workgroup_size: workgroup_size(ir, e),
        resources,
        builtins: builtins(ir, e),
    }
}

/// The workgroup size of entry point `e`: the `WorkgroupSize` built-in
/// constant, else `LocalSize` or `LocalSizeId`.
pub fn workgroup_size(ir: &Ir, e: &crate::ir::EntryPoint) -> Option<WorkgroupSize> {
    let small = |v: Option<u64>| v.and_then(|x| u32::try_from(x).ok());
    for c in &ir.constants {
        if ir.decoration_arg(c.id, DEC_BUILTIN) == Some(BUILTIN_WORKGROUP_SIZE)
            && let crate::ir::ConstValue::Composite(parts) = &c.value
        {
            let d = |k: usize| small(parts.get(k).and_then(|&p| ir.const_u64(p)));
            return Some(WorkgroupSize {
                x: d(0),
                y: d(1),
                z: d(2),
                source: WorkgroupSource::BuiltIn,
            });
        }
    }
    for m in &e.modes {
        match m.mode {
            EM_LOCAL_SIZE => {
                let d = |k: usize| m.operands.get(k).copied();
                return Some(WorkgroupSize {
                    x: d(0),
                    y: d(1),
                    z: d(2),
                    source: WorkgroupSource::LocalSize,
                });
            }
            EM_LOCAL_SIZE_ID => {
                let d = |k: usize| small(m.operands.get(k).and_then(|&id| ir.const_u64(id)));
                return Some(WorkgroupSize {
                    x: d(0),
                    y: d(1),
                    z: d(2),
                    source: WorkgroupSource::LocalSizeId,
                });
            }
            _ => {}
        }
    }
    None
}

fn builtins(ir: &Ir, e: &crate::ir::EntryPoint) -> Vec<BuiltInUse> {
    let mut out = Vec::new();
    for &id in &e.interface {
        let Some(v) = ir.global(id) else { continue };
        let storage_class = enum_name(OperandKind::StorageClass, v.storage);
        if let Some(b) = ir.decoration_arg(id, DEC_BUILTIN) {
            out.push(BuiltInUse {
                builtin: enum_name(OperandKind::BuiltIn, b),
                value: b,
                storage_class: storage_class.clone(),
                variable: id,
                member: None,
            });
        }
        // A block of built-ins (gl_PerVertex), possibly arrayed.
        let mut t = v.pointee;
        for _ in 0..2 {
            match t.and_then(|t| ir.ty(t)).map(|t| &t.ty) {
                Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                    t = Some(*element)
                }
                _ => break,
            }
        }
        if let Some(td) = t.and_then(|t| ir.ty(t)) {
            for (k, m) in td.members().iter().enumerate() {
                if let Some(b) = m.builtin {
                    out.push(BuiltInUse {
                        builtin: enum_name(OperandKind::BuiltIn, b),
                        value: b,
                        storage_class: storage_class.clone(),
                        variable: id,
                        member: Some(k as u32),
                    });
                }
            }
        }
    }
    out
}

/// The resource a global variable is, if it is one (a buffer, image, sampler,
/// push constant block or workgroup variable).
pub fn resource(ir: &Ir, id: u32) -> Option<Resource> {
    let v = *ir.global(id)?;
    if !matches!(
        v.storage,
        sc::UNIFORM_CONSTANT | sc::UNIFORM | sc::STORAGE_BUFFER | sc::PUSH_CONSTANT | sc::WORKGROUP
    ) {
        return None;
    }
    let data = v.pointee?;
    // Arrays of descriptors.
    let (mut elem, mut descriptor_array, mut descriptor_count) = (data, false, None);
    if v.storage != sc::WORKGROUP && v.storage != sc::PUSH_CONSTANT {
        match ir.ty(data).map(|t| &t.ty) {
            Some(Type::Array { element, len, .. }) => {
                elem = *element;
                descriptor_array = true;
                descriptor_count = *len;
            }
            Some(Type::RuntimeArray { element }) => {
                elem = *element;
                descriptor_array = true;
            }
            _ => {}
        }
    }
    let et = ir.ty(elem);
    let block = et.and_then(|t| t.block);
    let kind = match v.storage {
        sc::PUSH_CONSTANT => ResourceKind::PushConstant,
        sc::WORKGROUP => ResourceKind::Workgroup,
        sc::STORAGE_BUFFER => ResourceKind::StorageBuffer,
        sc::UNIFORM => match block {
            Some(BlockKind::BufferBlock) => ResourceKind::StorageBuffer,
            _ => ResourceKind::UniformBuffer,
        },
        _ => match et.map(|t| &t.ty) {
            Some(Type::Image { dim, sampled, .. }) => match (*dim == DIM_BUFFER, *sampled) {
                (true, 2) => ResourceKind::StorageTexelBuffer,
                (true, _) => ResourceKind::UniformTexelBuffer,
                (false, 2) => ResourceKind::StorageImage,
                (false, _) => ResourceKind::SampledImage,
            },
            Some(Type::Sampler) => ResourceKind::Sampler,
            // A sampled Buffer image (GLSL's samplerBuffer) is a uniform texel buffer.
            Some(Type::SampledImage { image }) => match ir.ty(*image).map(|t| &t.ty) {
                Some(Type::Image { dim: DIM_BUFFER, .. }) => ResourceKind::UniformTexelBuffer,
                _ => ResourceKind::CombinedImageSampler,
            },
            Some(Type::Other { opcode }) if *opcode == op::OpTypeAccelerationStructureKHR => {
                ResourceKind::AccelerationStructure
            }
            _ => ResourceKind::Other,
        },
    };
    let size = ir.size_of(elem);
    let runtime_array = ir
        .runtime_tail(elem)
        .map(|(fixed_size, stride)| RuntimeArrayShape { fixed_size, stride });
    Some(Resource {
        variable: id,
        name: ir.name(id).filter(|n| !n.is_empty()).map(String::from),
        kind,
        storage_class: enum_name(OperandKind::StorageClass, v.storage),
        set: v.set,
        binding: v.binding,
        block: block.map(|b| {
            String::from(match b {
                BlockKind::Block => "Block",
                BlockKind::BufferBlock => "BufferBlock",
            })
        }),
        descriptor_count,
        descriptor_array,
        size,
        runtime_array,
        ty: type_tree(ir, elem, 0),
    })
}

/// The type tree of type `id`.
pub fn type_tree(ir: &Ir, id: u32, depth: u32) -> TypeNode {
    let t = ir.ty(id);
    let mut node = TypeNode {
        id,
        shape: TypeShape::Other {
            opcode: String::from("?"),
        },
        name: ir.name(id).filter(|n| !n.is_empty()).map(String::from),
        size: t.and_then(|t| t.size),
        array_stride: t.and_then(|t| t.array_stride),
        element: None,
        members: Vec::new(),
    };
    let Some(t) = t else { return node };
    let deeper = depth < MAX_DEPTH;
    let sub = |e: u32| deeper.then(|| Box::new(type_tree(ir, e, depth + 1)));
    node.shape = match &t.ty {
        Type::Void => TypeShape::Void,
        Type::Bool => TypeShape::Bool,
        &Type::Int { width, signed } => TypeShape::Int { width, signed },
        &Type::Float { width, .. } => TypeShape::Float { width },
        &Type::Vector { component, count } => {
            node.element = sub(component);
            TypeShape::Vector { count }
        }
        &Type::Matrix { column, columns } => {
            node.element = sub(column);
            TypeShape::Matrix { columns }
        }
        &Type::Array { element, len, .. } => {
            node.element = sub(element);
            TypeShape::Array { length: len }
        }
        &Type::RuntimeArray { element } => {
            node.element = sub(element);
            TypeShape::RuntimeArray
        }
        Type::Struct { members } => {
            if deeper {
                node.members = members
                    .iter()
                    .enumerate()
                    .map(|(k, m)| MemberNode {
                        name: ir.member_name(id, k as u32).filter(|n| !n.is_empty()).map(String::from),
                        offset: m.offset,
                        size: ir.member_size(id, k),
                        matrix_stride: m.matrix_stride,
                        row_major: m.row_major,
                        builtin: m.builtin.map(|b| enum_name(OperandKind::BuiltIn, b)),
                        ty: type_tree(ir, m.ty, depth + 1),
                    })
                    .collect();
            }
            TypeShape::Struct
        }
        &Type::Pointer { storage, pointee } => {
            // Pointers are not followed (they may be recursive).
            let _ = pointee;
            TypeShape::Pointer {
                storage_class: enum_name(OperandKind::StorageClass, storage),
            }
        }
        &Type::Image { dim, sampled, .. } => TypeShape::Image { dim, sampled },
        Type::Sampler => TypeShape::Sampler,
        &Type::SampledImage { image } => {
            node.element = sub(image);
            TypeShape::SampledImage
        }
        Type::Opaque { .. } | Type::Function { .. } | Type::Other { .. } => TypeShape::Other {
            opcode: String::from(ir.desc(t.inst as usize).map_or("?", |d| d.name)),
        },
    };
    node
}

impl Resource {
    /// The name a person sees: its OpName, else `%ID`.
    pub fn display_name(&self) -> String {
        self.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| alloc::format!("%{}", self.variable))
    }
}

impl EntryReflection {
    /// The storage and uniform buffers a run binds one by one (those with a
    /// set and a binding, not arrays of descriptors): (set, binding, resource).
    pub fn bound_buffers(&self) -> impl Iterator<Item = (u32, u32, &Resource)> {
        self.resources.iter().filter_map(|r| match (r.kind, r.set, r.binding) {
            (ResourceKind::StorageBuffer | ResourceKind::UniformBuffer, Some(s), Some(b)) if !r.descriptor_array => {
                Some((s, b, r))
            }
            _ => None,
        })
    }
}

impl TypeNode {
    /// A short description: `uint`, `vec4<float>`, `array<uint, 4>`, `struct Name`.
    pub fn describe(&self) -> String {
        use alloc::format;
        let el = || {
            self.element
                .as_ref()
                .map_or(String::from("?"), |e| e.describe())
        };
        match &self.shape {
            TypeShape::Void => String::from("void"),
            TypeShape::Bool => String::from("bool"),
            TypeShape::Int { width, signed } => {
                format!("{}int{width}", if *signed { "" } else { "u" })
            }
            TypeShape::Float { width } => format!("float{width}"),
            TypeShape::Vector { count } => format!("vec{count}<{}>", el()),
            TypeShape::Matrix { columns } => format!("mat{columns}<{}>", el()),
            TypeShape::Array { length: Some(n) } => format!("array<{}, {n}>", el()),
            TypeShape::Array { length: None } => format!("array<{}, ?>", el()),
            TypeShape::RuntimeArray => format!("array<{}>", el()),
            TypeShape::Struct => match &self.name {
                Some(n) => format!("struct {n}"),
                None => format!("struct %{}", self.id),
            },
            TypeShape::Pointer { storage_class } => format!("ptr<{storage_class}>"),
            TypeShape::Image { dim, sampled } => format!("image(dim {dim}, sampled {sampled})"),
            TypeShape::Sampler => String::from("sampler"),
            TypeShape::SampledImage => format!("sampled_image<{}>", el()),
            TypeShape::Other { opcode } => opcode.clone(),
        }
    }
}
