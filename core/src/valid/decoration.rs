//! Decorations: what each decoration may decorate, member indices in range,
//! and the decorations Vulkan requires of resource variables (SPIR-V spec 2.16
//! "Validation Rules" and 3.20 "Decoration"; Vulkan spec 15.6 "Shader Resource
//! Interface"; spirv-val's validate_annotation, validate_debug and
//! validate_decorations).

use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{OperandKind, decoration as dec, op, storage_class as sc};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.decoration.target",
        summary: "A decoration must decorate the kind of object it is defined for.",
        explanation: "SPIR-V spec 3.20 \"Decoration\": Binding, DescriptorSet, Location, Index, \
                      Invariant, Constant and InputAttachmentIndex apply to variables; Block, \
                      BufferBlock, GLSLShared, GLSLPacked and CPacked to structure types; \
                      ArrayStride to array and pointer types; SpecId to scalar specialization \
                      constants; BuiltIn to variables (or, for WorkgroupSize, a constant) and \
                      structure members; Flat, NoPerspective, Centroid, Sample, Patch, Restrict, \
                      Aliased, Volatile, Coherent, NonWritable, NonReadable, Component, XfbBuffer, \
                      XfbStride and Stream to memory object declarations (variables and function \
                      parameters of pointer type). RowMajor, ColMajor and MatrixStride only \
                      decorate structure members. Fix: decorate the variable (or the type) the \
                      decoration is meant for.",
    },
    Rule {
        code: "inst.decoration.storage-class",
        summary: "In Vulkan, some decorations need a variable of a given storage class.",
        explanation: "Vulkan: Location and Component apply to Input, Output and ray tracing \
                      interface variables (VUID-StandaloneSpirv-Location-06672); Binding and \
                      DescriptorSet to StorageBuffer, Uniform and UniformConstant variables \
                      (VUID-StandaloneSpirv-DescriptorSet-06491); Index to Output variables; \
                      InputAttachmentIndex to UniformConstant variables (06678); Flat, \
                      NoPerspective, Centroid and Sample to Input and Output variables \
                      (VUID-StandaloneSpirv-Flat-04670). Fix: remove the decoration or change \
                      the variable's storage class.",
    },
    Rule {
        code: "inst.decoration.member",
        summary: "A member decoration or member name must name a member of a structure type.",
        explanation: "SPIR-V spec 3.42.5: OpMemberDecorate, OpGroupMemberDecorate and \
                      OpMemberName take a structure type and the index of one of its members \
                      (0 up to the member count minus one). Decorations that only apply to whole \
                      objects (Block, BufferBlock, ArrayStride, SpecId, Binding, DescriptorSet, \
                      Aliased, Uniform, Alignment...) cannot decorate a member. Fix: name an \
                      existing member of a struct, or use OpDecorate.",
    },
    Rule {
        code: "inst.decoration.repeated",
        summary: "A decoration may be stated once per id or member, and some pairs exclude each other.",
        explanation: "SPIR-V spec 2.16.1: an id (or structure member) is decorated at most once \
                      with each decoration (UserSemantic and FuncParamAttr excepted). Block and \
                      BufferBlock, Restrict and Aliased, RestrictPointer and AliasedPointer \
                      exclude each other on one id; RowMajor and ColMajor, Offset and OffsetIdEXT \
                      on one member. Fix: remove the repeated or conflicting decoration.",
    },
    Rule {
        code: "inst.decoration.vulkan-resource",
        summary: "In Vulkan, a buffer or resource variable needs DescriptorSet, Binding and Block.",
        explanation: "Vulkan: every variable in the Uniform, UniformConstant and StorageBuffer \
                      storage classes must be decorated with DescriptorSet and Binding \
                      (VUID-StandaloneSpirv-UniformConstant-06677); the structure type of a \
                      PushConstant or StorageBuffer variable (through one level of array) must \
                      be decorated Block, of a Uniform variable Block or BufferBlock \
                      (VUID-StandaloneSpirv-PushConstant-06675, Uniform-06676), and BufferBlock \
                      is not allowed in the StorageBuffer storage class. Fix: add `OpDecorate \
                      %var DescriptorSet 0`, `OpDecorate %var Binding 0` or `OpDecorate %struct \
                      Block`.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

const TARGET: &str = "inst.decoration.target";
const STORAGE: &str = "inst.decoration.storage-class";
const MEMBER: &str = "inst.decoration.member";
const REPEATED: &str = "inst.decoration.repeated";
const RESOURCE: &str = "inst.decoration.vulkan-resource";

/// The pass: the annotation and debug instructions (which precede the types),
/// then, in Vulkan, the global variables.
pub(super) fn check(cx: &mut Context<'_>) {
    let end = cx
        .ir()
        .types
        .first()
        .map_or(cx.insts().len(), |t| t.inst as usize);
    for i in 0..end {
        match cx.insts()[i].opcode {
            op::OpDecorate => decorate(cx, i),
            op::OpMemberDecorate | op::OpMemberDecorateString => member(cx, i, 0, 1, Some(2)),
            op::OpMemberName => member(cx, i, 0, 1, None),
            op::OpGroupMemberDecorate => {
                let mut k = 1;
                while k + 1 < cx.operands(i).len() {
                    member(cx, i, k, k + 1, None);
                    k += 2;
                }
            }
            _ => {}
        }
    }
    repeated(cx, end);
    relaxed_precision(cx);
    if cx.opts.env.is_vulkan() {
        vulkan_resources(cx);
    }
}

/// A decoration stated twice by OpDecorate on one id (or by OpMemberDecorate
/// on one member), and the pairs that exclude each other: Block and
/// BufferBlock, Restrict and Aliased, RestrictPointer and AliasedPointer;
/// RowMajor and ColMajor, Offset and OffsetIdEXT on a member.
fn repeated(cx: &mut Context<'_>, end: usize) {
    // (target, member or MAX, decoration, instruction), in binary order.
    let mut seen: alloc::vec::Vec<(u32, u32, u32, usize)> = alloc::vec::Vec::new();
    for i in 0..end {
        let key = match cx.insts()[i].opcode {
            op::OpDecorate => (word(cx, i, 0), u32::MAX, word(cx, i, 1)),
            op::OpMemberDecorate | op::OpMemberDecorateIdEXT => {
                (word(cx, i, 0), word(cx, i, 1).unwrap_or(0), word(cx, i, 2))
            }
            _ => continue,
        };
        let (Some(t), m, Some(d)) = key else { continue };
        seen.push((t, m, d, i));
    }
    if seen.len() < 2 {
        return;
    }
    seen.sort_unstable();
    let exclusive = |m: u32, d: u32| -> Option<u32> {
        let pairs: &[(u32, u32)] = if m == u32::MAX {
            &[
                (dec::Block, dec::BufferBlock),
                (dec::Restrict, dec::Aliased),
                (dec::RestrictPointer, dec::AliasedPointer),
            ]
        } else {
            &[
                (dec::RowMajor, dec::ColMajor),
                (dec::Offset, dec::OffsetIdEXT),
            ]
        };
        pairs.iter().find_map(|&(a, b)| {
            if a == d {
                Some(b)
            } else if b == d {
                Some(a)
            } else {
                None
            }
        })
    };
    for k in 0..seen.len() {
        let (t, m, d, i) = seen[k];
        let once = if m == u32::MAX {
            d != dec::UserSemantic && d != dec::FuncParamAttr
        } else {
            d != dec::UserSemantic
        };
        let on = |cx: &mut Context<'_>| {
            let name = cx.name(t);
            if m == u32::MAX {
                name
            } else {
                format!("member {m} of {name}")
            }
        };
        if once && k > 0 && seen[k - 1].0 == t && seen[k - 1].1 == m && seen[k - 1].2 == d {
            let msg = format!(
                "{} is decorated with {} more than once",
                on(cx),
                dec_name(d)
            );
            let first = seen[k - 1].3;
            let span = cx.span(first);
            let e = cx.error_at(REPEATED, i, if m == u32::MAX { 1 } else { 2 }, msg);
            e.label = String::from("already stated");
            e.relate(span, String::from("first stated here"));
            continue;
        }
        // Report the exclusive pair once, at the later of the two.
        if let Some(x) = exclusive(m, d)
            && let Some(&(.., j)) = seen.iter().find(|s| s.0 == t && s.1 == m && s.2 == x)
            && j < i
        {
            let msg = format!(
                "{} is decorated with both {} and {}, which exclude each other",
                on(cx),
                dec_name(x),
                dec_name(d)
            );
            let span = cx.span(j);
            let e = cx.error_at(REPEATED, i, if m == u32::MAX { 1 } else { 2 }, msg);
            e.label = format!("excluded by {}", dec_name(x));
            e.relate(span, format!("{} here", dec_name(x)));
        }
    }
}

/// RelaxedPrecision cannot decorate a type (only a struct's members).
fn relaxed_precision(cx: &mut Context<'_>) {
    let ir = cx.ir();
    for d in &ir.decorations {
        if d.decoration != dec::RelaxedPrecision || d.member.is_some() || ir.ty(d.target).is_none()
        {
            continue;
        }
        let i = d.inst as usize;
        let name = cx.name(d.target);
        let msg = format!(
            "RelaxedPrecision decoration on target {name}, a type: it cannot be applied to a type"
        );
        let k = if ir.words(i).first() == Some(&d.target) {
            0
        } else {
            1
        };
        cx.error_at(TARGET, i, k, msg).label = String::from("a type cannot be RelaxedPrecision");
    }
}

fn dec_name(d: u32) -> &'static str {
    OperandKind::Decoration
        .enumerant(d)
        .map_or("the", |e| e.name)
}

/// The opcode name of instruction `i` (the shared helper, so that the
/// grammar lookup is not called from more places).
fn op_name(cx: &Context<'_>, i: usize) -> &'static str {
    super::operand::opname(cx, i)
}

fn word(cx: &Context<'_>, i: usize, k: usize) -> Option<u32> {
    cx.operand_words(i, k).first().copied()
}

/// Whether `opcode` declares a constant (any kind; a BuiltIn WorkgroupSize target).
fn is_constant(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpConstantTrue
            | op::OpConstantFalse
            | op::OpConstant
            | op::OpConstantComposite
            | op::OpConstantCompositeReplicateEXT
            | op::OpConstantSampler
            | op::OpConstantNull
            | op::OpConstantDataKHR
            | op::OpConstantSizeOfEXT
            | op::OpConstantFunctionPointerINTEL
            | op::OpConstantPipeStorage
            | op::OpConstantStringAMDX
            | op::OpSpecConstantTrue
            | op::OpSpecConstantFalse
            | op::OpSpecConstant
            | op::OpSpecConstantComposite
            | op::OpSpecConstantCompositeReplicateEXT
            | op::OpSpecConstantOp
            | op::OpSpecConstantDataKHR
            | op::OpSpecConstantStringAMDX
            | op::OpSpecConstantArchitectureINTEL
            | op::OpSpecConstantCapabilitiesINTEL
            | op::OpSpecConstantTargetINTEL
    )
}

fn is_variable(opcode: u16) -> bool {
    opcode == op::OpVariable || opcode == op::OpUntypedVariableKHR
}

/// What a target must be, for decorations with a rule on their target.
fn expected_target(
    cx: &Context<'_>,
    d: u32,
    builtin: Option<u32>,
    target: u16,
    ty: Option<u32>,
) -> Option<&'static str> {
    let is_ptr = |t: Option<u32>| {
        t.and_then(|t| cx.ir().ty(t)).is_some_and(|t| {
            matches!(t.ty, Type::Pointer { .. })
                || cx.insts()[t.inst as usize].opcode == op::OpTypeUntypedPointerKHR
        })
    };
    match d {
        dec::SpecId => (!matches!(
            target,
            op::OpSpecConstantTrue | op::OpSpecConstantFalse | op::OpSpecConstant | op::OpSpecConstantDataKHR
        ))
        .then_some("a scalar specialization constant (OpSpecConstant, OpSpecConstantTrue or OpSpecConstantFalse)"),
        dec::Block | dec::BufferBlock | dec::GLSLShared | dec::GLSLPacked | dec::CPacked => {
            (target != op::OpTypeStruct).then_some("a structure type")
        }
        dec::ArrayStride => (!matches!(
            target,
            op::OpTypeArray | op::OpTypeRuntimeArray | op::OpTypePointer | op::OpTypeUntypedPointerKHR
        ))
        .then_some("an array or pointer type"),
        dec::BuiltIn => {
            // (Declared capabilities are collected only for this rare case.)
            let workgroup_size = builtin == Some(crate::grammar::built_in::WorkgroupSize)
                && cx.declared().has_cap(crate::grammar::capability::Shader);
            if workgroup_size {
                (!is_constant(target)).then_some("a constant, for WorkgroupSize")
            } else {
                (!is_variable(target)).then_some("a variable (or a structure member)")
            }
        }
        dec::NoPerspective
        | dec::Flat
        | dec::Patch
        | dec::Centroid
        | dec::Sample
        | dec::Restrict
        | dec::Aliased
        | dec::Volatile
        | dec::Coherent
        | dec::NonWritable
        | dec::NonReadable
        | dec::XfbBuffer
        | dec::XfbStride
        | dec::Component
        | dec::Stream
        | dec::RestrictPointer
        | dec::AliasedPointer
        | dec::PerPrimitiveEXT => {
            if !(is_variable(target)
                || matches!(target, op::OpFunctionParameter | op::OpRawAccessChainNV | op::OpBufferPointerEXT))
            {
                Some("a memory object declaration (a variable or function parameter)")
            } else if !is_ptr(ty) {
                Some("of a pointer type")
            } else {
                None
            }
        }
        dec::Invariant
        | dec::Constant
        | dec::Location
        | dec::Index
        | dec::Binding
        | dec::DescriptorSet
        | dec::InputAttachmentIndex => (!is_variable(target)).then_some("a variable"),
        _ => None,
    }
}

/// `OpDecorate %target Decoration ...` (not on a decoration group).
fn decorate(cx: &mut Context<'_>, i: usize) {
    let (Some(target), Some(d)) = (word(cx, i, 0), word(cx, i, 1)) else {
        return;
    };
    let Some(def) = cx.def(target) else { return };
    let t_op = cx.insts()[def].opcode;
    if t_op == op::OpDecorationGroup {
        return;
    }
    let dn = dec_name(d);
    if matches!(d, dec::RowMajor | dec::ColMajor | dec::MatrixStride) {
        let m = format!("{dn} can only be applied to structure members (use OpMemberDecorate)");
        cx.error_at(TARGET, i, 1, m).label = String::from("a member-only decoration");
        return;
    }
    let ty = cx.ir().result_type(def);
    let builtin = word(cx, i, 2);
    if let Some(want) = expected_target(cx, d, builtin, t_op, ty) {
        let name = cx.name(target);
        let m = format!(
            "{dn} decoration on target {name} (an {}) must be {want}",
            op_name(cx, def)
        )
        .replace("(an Op", "(Op");
        cx.error_at(TARGET, i, 0, m).label = format!("must be {want}");
        return;
    }
    if !cx.opts.env.is_vulkan() {
        return;
    }
    // The storage class of the target's pointer type (Uniform when it has none).
    let class = ty
        .and_then(|t| cx.ir().ty(t))
        .and_then(|t| match t.ty {
            Type::Pointer { storage, .. } => Some(storage),
            _ => None,
        })
        .unwrap_or(sc::Uniform);
    let allowed: &[u32] = match d {
        dec::Location | dec::Component => &[
            sc::Input,
            sc::Output,
            sc::RayPayloadKHR,
            sc::IncomingRayPayloadKHR,
            sc::HitAttributeKHR,
            sc::CallableDataKHR,
            sc::IncomingCallableDataKHR,
            sc::ShaderRecordBufferKHR,
            sc::HitObjectAttributeNV,
            sc::HitObjectAttributeEXT,
            sc::TileImageEXT,
        ],
        dec::Index => &[sc::Output],
        dec::Binding | dec::DescriptorSet => &[
            sc::StorageBuffer,
            sc::Uniform,
            sc::UniformConstant,
            sc::TileAttachmentQCOM,
        ],
        dec::InputAttachmentIndex => &[sc::UniformConstant],
        dec::Flat | dec::NoPerspective | dec::Centroid | dec::Sample => &[sc::Input, sc::Output],
        dec::PerVertexKHR => &[sc::Input],
        _ => return,
    };
    if !allowed.contains(&class) {
        let name = cx.name(target);
        let cn = OperandKind::StorageClass
            .enumerant(class)
            .map_or("?", |e| e.name);
        let want = match d {
            dec::Location | dec::Component => "Input, Output or a ray tracing storage class",
            dec::Index => "Output",
            dec::Binding | dec::DescriptorSet => "StorageBuffer, Uniform or UniformConstant",
            dec::InputAttachmentIndex => "UniformConstant",
            dec::PerVertexKHR => "Input",
            _ => "Input or Output",
        };
        let m = format!(
            "{dn} decoration on target {name}, a variable in the {cn} storage class: in Vulkan the storage class must be {want}"
        );
        cx.error_at(STORAGE, i, 0, m).label = format!("storage class {cn}, must be {want}");
    }
}

/// A member operand pair: the struct at operand `s`, the index at `m`, and
/// (for OpMemberDecorate) the decoration at `d`.
fn member(cx: &mut Context<'_>, i: usize, s: usize, m: usize, d: Option<usize>) {
    let (Some(st), Some(idx)) = (word(cx, i, s), word(cx, i, m)) else {
        return;
    };
    let opname = op_name(cx, i);
    let Some(def) = cx.def(st) else { return };
    let t_op = cx.insts()[def].opcode;
    if t_op != op::OpTypeStruct {
        let name = cx.name(st);
        let msg = format!(
            "{opname} Structure type {name} (an {}) is not a struct type",
            op_name(cx, def)
        )
        .replace("(an Op", "(Op");
        cx.error_at(MEMBER, i, s, msg).label = String::from("must be a struct type");
        return;
    }
    let count = cx.insts()[def].operands.len().saturating_sub(1) as u32;
    if idx >= count {
        let name = cx.name(st);
        let msg = format!(
            "{opname} member index {idx} is out of bounds: the struct {name} has {count} member{}",
            if count == 1 { "" } else { "s" }
        );
        let label = match count {
            0 => String::from("the struct has no members"),
            n => format!("must be at most {}", n - 1),
        };
        cx.error_at(MEMBER, i, m, msg).label = label;
        return;
    }
    let Some(dk) = d else { return };
    let Some(dv) = word(cx, i, dk) else { return };
    if matches!(
        dv,
        dec::SpecId
            | dec::Block
            | dec::BufferBlock
            | dec::ArrayStride
            | dec::ArrayStrideIdEXT
            | dec::GLSLShared
            | dec::GLSLPacked
            | dec::CPacked
            | dec::Aliased
            | dec::Constant
            | dec::Uniform
            | dec::UniformId
            | dec::SaturatedConversion
            | dec::Index
            | dec::Binding
            | dec::DescriptorSet
            | dec::FuncParamAttr
            | dec::FPRoundingMode
            | dec::FPFastMathMode
            | dec::LinkageAttributes
            | dec::NoContraction
            | dec::InputAttachmentIndex
            | dec::Alignment
            | dec::MaxByteOffset
            | dec::AlignmentId
            | dec::MaxByteOffsetId
            | dec::NoSignedWrap
            | dec::NoUnsignedWrap
            | dec::NonUniform
            | dec::RestrictPointer
            | dec::AliasedPointer
            | dec::CounterBuffer
    ) {
        let msg = format!(
            "{} cannot be applied to structure members (use OpDecorate on the object)",
            dec_name(dv)
        );
        cx.error_at(MEMBER, i, dk, msg).label = String::from("not a member decoration");
    }
}

/// Vulkan: resource variables need DescriptorSet and Binding, and buffer
/// variables a Block (or, for Uniform, BufferBlock) structure.
fn vulkan_resources(cx: &mut Context<'_>) {
    let ir = cx.ir();
    for v in &ir.globals {
        let i = v.inst as usize;
        let resource = matches!(
            v.storage,
            sc::Uniform | sc::UniformConstant | sc::StorageBuffer
        );
        // Untyped variables without a data type (descriptor heaps) are left alone.
        if resource && v.pointee.is_some() && !cx.opts.before_hlsl_legalization {
            for d in [dec::DescriptorSet, dec::Binding] {
                if !ir.has_decoration(v.id, d) {
                    let name = cx.name(v.id);
                    let cn = OperandKind::StorageClass
                        .enumerant(v.storage)
                        .map_or("?", |e| e.name);
                    let dn = dec_name(d);
                    let m = format!(
                        "{cn} variable {name} is missing a {dn} decoration (Vulkan requires DescriptorSet and Binding)"
                    );
                    let dd = cx.error(RESOURCE, i, m);
                    dd.label = format!("no {dn}");
                    dd.help = Some(format!("add `OpDecorate {name} {dn} 0`"));
                    break;
                }
            }
        }
        if !matches!(
            v.storage,
            sc::Uniform | sc::StorageBuffer | sc::PushConstant
        ) {
            continue;
        }
        let Some(mut data) = v.pointee else { continue };
        if let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) =
            ir.ty(data).map(|t| &t.ty)
        {
            data = *element;
        }
        // spirv-val checks the struct requirement elsewhere (with the variable).
        if !matches!(ir.ty(data).map(|t| &t.ty), Some(Type::Struct { .. })) {
            continue;
        }
        let block = nested_decoration(cx, data, dec::Block);
        let buffer_block = nested_decoration(cx, data, dec::BufferBlock);
        let want = match v.storage {
            sc::StorageBuffer if buffer_block => Some(
                "decorated Block, not BufferBlock (BufferBlock is not allowed with StorageBuffer)",
            ),
            sc::Uniform if !block && !buffer_block => {
                Some("a structure decorated Block or BufferBlock")
            }
            sc::StorageBuffer | sc::PushConstant if !block => Some("a structure decorated Block"),
            _ => None,
        };
        if let Some(want) = want {
            let name = cx.name(v.id);
            let tn = cx.name(data);
            let cn = OperandKind::StorageClass
                .enumerant(v.storage)
                .map_or("?", |e| e.name);
            let m = format!("the data type {tn} of {cn} variable {name} must be {want}");
            cx.error(RESOURCE, i, m).label = format!("its type must be {want}");
        }
    }
}

/// Whether struct `id`, or a struct among its members (at any depth, not
/// through arrays), carries `d` (spirv-val's reading of "decorated Block").
fn nested_decoration(cx: &Context<'_>, id: u32, d: u32) -> bool {
    let ir = cx.ir();
    let mut stack = alloc::vec![id];
    let mut steps = 0;
    while let Some(t) = stack.pop() {
        steps += 1;
        if ir.has_decoration(t, d) {
            return true;
        }
        if steps > 4096 {
            break;
        }
        if let Some(Type::Struct { members }) = ir.ty(t).map(|t| &t.ty) {
            stack.extend(
                members
                    .iter()
                    .map(|m| m.ty)
                    .filter(|&m| matches!(ir.ty(m).map(|t| &t.ty), Some(Type::Struct { .. }))),
            );
        }
    }
    false
}
