//! Built-in variables in Vulkan: the type each BuiltIn needs, the storage
//! class it may live in, the execution models whose entry points may use it,
//! and the DepthReplacing mode FragDepth needs (Vulkan spec 15.9 "Built-In
//! Variables" and its VUIDs; SPIR-V spec 3.21 BuiltIn; spirv-val's
//! validate_builtins, v2025.5).
//!
//! As spirv-val does, a built-in is checked where it is declared (its type, and
//! the storage class of the variable or pointer type carrying it) and where it
//! is referenced: every instruction that names the decorated id, or an id built
//! from it at global scope (the pointer type to a struct with built-in members,
//! the variable of that pointer type), is checked; inside a function, against
//! the execution models (and modes) of every entry point that can reach the
//! function through calls. Only the Vulkan environments are checked; built-ins
//! whose rules depend on the stage and direction in more detail (Position,
//! PointSize, Clip/CullDistance, Layer, ViewportIndex, PrimitiveId, the
//! tessellation levels) are checked for their storage class only.

use super::Context;
use super::operand::describe;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{
    OperandKind, built_in as bi, decoration as dec, execution_mode as mode,
    execution_model as em, op, storage_class as sc,
};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.builtin.type",
        summary: "In Vulkan, a BuiltIn variable must have the type the built-in is defined with.",
        explanation: "Vulkan spec 15.9 \"Built-In Variables\": each built-in has one type, e.g. \
                      FragCoord a 4-component vector of 32-bit floats (VUID-FragCoord-FragCoord-04212), \
                      FragDepth a 32-bit float scalar (04215), FrontFacing and HelperInvocation a bool, \
                      VertexIndex, InstanceIndex, SampleId, SubgroupSize and the other indices a 32-bit \
                      int scalar, GlobalInvocationId, LocalInvocationId, WorkgroupId and NumWorkgroups a \
                      3-component vector of 32-bit ints, SampleMask an array of 32-bit ints, the subgroup \
                      masks a 4-component vector of 32-bit ints. Fix: declare the variable (or struct \
                      member) with that type.",
    },
    Rule {
        code: "inst.builtin.storage-class",
        summary: "In Vulkan, a BuiltIn variable must be in the storage class the built-in is defined for.",
        explanation: "Vulkan spec 15.9: the built-ins a stage reads (FragCoord, FrontFacing, VertexIndex, \
                      GlobalInvocationId, SubgroupSize...) are Input variables; FragDepth is an Output \
                      variable; Position, PointSize, ClipDistance, CullDistance, Layer, ViewportIndex, \
                      PrimitiveId, SampleMask and the tessellation levels are Input or Output. A pointer \
                      type or variable of another storage class (Function, Private...) that carries the \
                      built-in is invalid (e.g. VUID-SubgroupSize-SubgroupSize-04382). SubgroupSize, \
                      SubgroupLocalInvocationId and the subgroup masks cannot decorate a struct member. \
                      Fix: declare the variable in the Input (or Output) storage class.",
    },
    Rule {
        code: "inst.builtin.execution-model",
        summary: "In Vulkan, a built-in may only be used by entry points of the stages that have it.",
        explanation: "Vulkan spec 15.9: FragCoord, FragDepth, FrontFacing, HelperInvocation, PointCoord, \
                      SampleId, SampleMask and SamplePosition exist in fragment shaders; VertexIndex, \
                      InstanceIndex, BaseVertex and BaseInstance in vertex shaders; InvocationId in \
                      tessellation control and geometry shaders; TessCoord in tessellation evaluation \
                      shaders; GlobalInvocationId, LocalInvocationId(Index), WorkgroupId, NumWorkgroups, \
                      SubgroupId and NumSubgroups in compute, task and mesh shaders. A function that \
                      uses the built-in, called from an entry point of another model, is invalid. Fix: \
                      use the built-in only from the stage that has it.",
    },
    Rule {
        code: "inst.builtin.depth-replacing",
        summary: "In Vulkan, an entry point that uses FragDepth must declare the DepthReplacing mode.",
        explanation: "Vulkan spec 15.9 FragDepth (VUID-FragDepth-FragDepth-04216): if a fragment entry \
                      point writes or otherwise uses the FragDepth built-in, it must declare \
                      `OpExecutionMode %main DepthReplacing`. Fix: add that execution mode.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

const TYPE: &str = "inst.builtin.type";
const CLASS: &str = "inst.builtin.storage-class";
const MODEL: &str = "inst.builtin.execution-model";
const DEPTH: &str = "inst.builtin.depth-replacing";

/// The type a built-in must have.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Not checked here.
    Any,
    Bool,
    I32,
    F32,
    /// A vector of this many 32-bit ints.
    I32Vec(u32),
    /// A vector of this many 32-bit floats.
    F32Vec(u32),
    /// An OpTypeArray of 32-bit ints.
    I32Arr,
    /// An OpTypeArray of this many 32-bit floats (0: any length).
    F32Arr(u32),
}

/// The storage classes a built-in may be used in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Any,
    In,
    Out,
    InOut,
}

/// Which execution models may use a built-in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Models {
    Any,
    Only(&'static [u32]),
    Not(&'static [u32]),
}

/// What Vulkan requires of one built-in: its type, storage class, models,
/// whether it is checked only where declared (spirv-val's "input" built-ins
/// SubgroupSize and co., which may not decorate a struct member) and the
/// VUIDs of its model, storage class and type rules (0: none).
struct Spec {
    want: Want,
    class: Class,
    models: Models,
    definition_only: bool,
    vuid: [u32; 3],
    /// The type checked where a function uses it, by the entry point's model:
    /// exactly in the models listed (and on a struct member), else with an
    /// optional outer array level (the per-vertex arrays of the other stages).
    by_model: Option<(Want, &'static [u32])>,
    /// The models that cannot use an Input, and an Output, variable of it.
    not_input: &'static [u32],
    not_output: &'static [u32],
    /// Whether the decoration needs the Patch decoration (the tessellation levels).
    patch: bool,
    /// Whether it must decorate a constant (WorkgroupSize).
    constant: bool,
}

const FRAGMENT: &[u32] = &[em::Fragment];
const VERTEX: &[u32] = &[em::Vertex];
const COMPUTE: &[u32] = &[em::GLCompute, em::TaskNV, em::MeshNV, em::TaskEXT, em::MeshEXT];

const fn spec(want: Want, class: Class, models: Models, vuid: [u32; 3]) -> Spec {
    Spec {
        want,
        class,
        models,
        definition_only: false,
        vuid,
        by_model: None,
        not_input: &[],
        not_output: &[],
        patch: false,
        constant: false,
    }
}

const VERTEX_TO_MESH: &[u32] = &[
    em::Vertex,
    em::TessellationControl,
    em::TessellationEvaluation,
    em::Geometry,
    em::MeshNV,
    em::MeshEXT,
];
const FRAGMENT_TO_MESH: &[u32] = &[
    em::Fragment,
    em::Vertex,
    em::TessellationControl,
    em::TessellationEvaluation,
    em::Geometry,
    em::MeshNV,
    em::MeshEXT,
];
const VERTEX_OR_MESH: &[u32] = &[em::Vertex, em::MeshNV, em::MeshEXT];

fn spec_of(b: u32) -> Option<Spec> {
    use Class::*;
    use Want::*;
    let s = match b {
        bi::FragCoord => spec(F32Vec(4), In, Models::Only(FRAGMENT), [4210, 4211, 4212]),
        bi::FragDepth => spec(F32, Out, Models::Only(FRAGMENT), [4213, 4214, 4215]),
        bi::FrontFacing => spec(Bool, In, Models::Only(FRAGMENT), [4229, 4230, 4231]),
        bi::HelperInvocation => spec(Bool, In, Models::Only(FRAGMENT), [4239, 4240, 4241]),
        bi::InvocationId => spec(
            I32,
            In,
            Models::Only(&[em::TessellationControl, em::Geometry]),
            [4257, 4258, 4259],
        ),
        bi::InstanceIndex => spec(I32, In, Models::Only(VERTEX), [4263, 4264, 4265]),
        bi::VertexIndex => spec(I32, In, Models::Only(VERTEX), [4398, 4399, 4400]),
        bi::PatchVertices => spec(
            I32,
            In,
            Models::Only(&[em::TessellationControl, em::TessellationEvaluation]),
            [4308, 4309, 4310],
        ),
        bi::PointCoord => spec(F32Vec(2), In, Models::Only(FRAGMENT), [4311, 4312, 4313]),
        bi::SampleId => spec(I32, In, Models::Only(FRAGMENT), [4354, 4355, 4356]),
        bi::SampleMask => spec(I32Arr, InOut, Models::Only(FRAGMENT), [4357, 4358, 4359]),
        bi::SamplePosition => spec(F32Vec(2), In, Models::Only(FRAGMENT), [4360, 4361, 4362]),
        bi::TessCoord => spec(
            F32Vec(3),
            In,
            Models::Only(&[em::TessellationEvaluation]),
            [4387, 4388, 4389],
        ),
        bi::LocalInvocationIndex => spec(I32, In, Models::Only(COMPUTE), [4284, 4285, 4286]),
        bi::GlobalInvocationId => spec(I32Vec(3), In, Models::Only(COMPUTE), [4236, 4237, 4238]),
        bi::LocalInvocationId => spec(I32Vec(3), In, Models::Only(COMPUTE), [4281, 4282, 4283]),
        bi::NumWorkgroups => spec(I32Vec(3), In, Models::Only(COMPUTE), [4296, 4297, 4298]),
        bi::WorkgroupId => spec(I32Vec(3), In, Models::Only(COMPUTE), [4422, 4423, 4424]),
        bi::NumSubgroups => spec(I32, In, Models::Only(COMPUTE), [4293, 4294, 4295]),
        bi::SubgroupId => spec(I32, In, Models::Only(COMPUTE), [4367, 4368, 4369]),
        bi::SubgroupSize
        | bi::SubgroupLocalInvocationId
        | bi::SubgroupEqMask
        | bi::SubgroupGeMask
        | bi::SubgroupGtMask
        | bi::SubgroupLeMask
        | bi::SubgroupLtMask => {
            let (want, vuid) = match b {
                bi::SubgroupSize => (I32, [0, 4382, 4383]),
                bi::SubgroupLocalInvocationId => (I32, [0, 4380, 4381]),
                bi::SubgroupEqMask => (I32Vec(4), [0, 4370, 4371]),
                bi::SubgroupGeMask => (I32Vec(4), [0, 4372, 4373]),
                bi::SubgroupGtMask => (I32Vec(4), [0, 4374, 4375]),
                bi::SubgroupLeMask => (I32Vec(4), [0, 4376, 4377]),
                _ => (I32Vec(4), [0, 4378, 4379]),
            };
            Spec { definition_only: true, ..spec(want, In, Models::Any, vuid) }
        }
        bi::BaseInstance => spec(I32, In, Models::Only(VERTEX), [4181, 4182, 4183]),
        bi::BaseVertex => spec(I32, In, Models::Only(VERTEX), [4184, 4185, 4186]),
        bi::DrawIndex => spec(
            I32,
            In,
            Models::Only(&[em::Vertex, em::MeshNV, em::TaskNV, em::MeshEXT, em::TaskEXT]),
            [4207, 4208, 4209],
        ),
        bi::ViewIndex => spec(I32, In, Models::Not(&[em::GLCompute]), [4401, 4402, 4403]),
        bi::DeviceIndex => spec(I32, In, Models::Any, [0, 4205, 4206]),
        bi::Position | bi::PointSize => {
            let (want, vuid) = if b == bi::Position {
                (F32Vec(4), [4318, 4320, 4321])
            } else {
                (F32, [4314, 4316, 4317])
            };
            Spec {
                by_model: Some((want, VERTEX)),
                not_input: VERTEX_OR_MESH,
                ..spec(Want::Any, InOut, Models::Only(VERTEX_TO_MESH), vuid)
            }
        }
        bi::ClipDistance | bi::CullDistance => Spec {
            by_model: Some((F32Arr(0), &[em::Fragment, em::Vertex])),
            not_input: VERTEX_OR_MESH,
            not_output: FRAGMENT,
            ..spec(Want::Any, InOut, Models::Only(FRAGMENT_TO_MESH), [0, 0, 0])
        },
        bi::TessLevelOuter | bi::TessLevelInner => {
            let (n, vuid) = if b == bi::TessLevelOuter {
                (4, [4390, 0, 4393])
            } else {
                (2, [4394, 0, 4397])
            };
            Spec {
                not_input: &[em::TessellationControl],
                not_output: &[em::TessellationEvaluation],
                patch: true,
                ..spec(
                    F32Arr(n),
                    InOut,
                    Models::Only(&[em::TessellationControl, em::TessellationEvaluation]),
                    vuid,
                )
            }
        }
        bi::WorkgroupSize => Spec {
            constant: true,
            ..spec(I32Vec(3), Class::Any, Models::Only(COMPUTE), [4425, 0, 4427])
        },
        bi::Layer | bi::ViewportIndex => {
            let model = if b == bi::Layer { 4272 } else { 4404 };
            Spec {
                not_input: &[em::Vertex, em::TessellationEvaluation, em::Geometry, em::MeshNV, em::MeshEXT],
                not_output: FRAGMENT,
                ..spec(
                    Want::Any,
                    InOut,
                    Models::Only(&[
                        em::Geometry,
                        em::Fragment,
                        em::MeshNV,
                        em::MeshEXT,
                        em::Vertex,
                        em::TessellationEvaluation,
                    ]),
                    [model, 0, 0],
                )
            }
        }
        bi::PrimitiveId => Spec {
            not_output: &[
                em::TessellationControl,
                em::TessellationEvaluation,
                em::Fragment,
                em::IntersectionKHR,
                em::AnyHitKHR,
                em::ClosestHitKHR,
            ],
            ..spec(
                Want::Any,
                InOut,
                Models::Only(&[
                    em::Fragment,
                    em::TessellationControl,
                    em::TessellationEvaluation,
                    em::Geometry,
                    em::MeshNV,
                    em::MeshEXT,
                    em::IntersectionKHR,
                    em::AnyHitKHR,
                    em::ClosestHitKHR,
                ]),
                [4330, 0, 0],
            )
        },
        _ => return None,
    };
    Some(s)
}

fn vuid(b: &str, n: u32) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("[VUID-{b}-{b}-{n:05}] ")
    }
}

fn builtin_name(b: u32) -> &'static str {
    OperandKind::BuiltIn.enumerant(b).map_or("?", |e| e.name)
}

fn class_name(c: u32) -> &'static str {
    OperandKind::StorageClass.enumerant(c).map_or("?", |e| e.name)
}

fn model_name(m: u32) -> &'static str {
    OperandKind::ExecutionModel.enumerant(m).map_or("?", |e| e.name)
}

/// The storage class an instruction gives what it declares, as spirv-val's
/// built-in rules read it (pointer types and variables), with the operand.
fn storage_of(cx: &Context<'_>, i: usize) -> Option<(u32, usize)> {
    let inst = &cx.insts()[i];
    let k = match inst.opcode {
        op::OpTypePointer | op::OpTypeUntypedPointerKHR | op::OpTypeForwardPointer => 1,
        op::OpVariable | op::OpUntypedVariableKHR => 2,
        _ => return None,
    };
    let w = cx.operand_words(i, k).first().copied()?;
    Some((w, k))
}

/// One BuiltIn decoration being checked.
struct Use {
    builtin: u32,
    /// The struct member it decorates, if any.
    member: Option<u32>,
    /// The decorated id.
    target: u32,
    spec: Spec,
    /// The rules already reported for it (one diagnostic each at most).
    reported: u8,
}

/// The pass.
pub(super) fn check(cx: &mut Context<'_>) {
    if !cx.opts.env.is_vulkan() {
        return;
    }
    let ir = cx.ir();
    let mut uses: Vec<Use> = Vec::new();
    for d in &ir.decorations {
        if d.decoration != dec::BuiltIn {
            continue;
        }
        let Some(b) = d.arg(ir) else { continue };
        let Some(spec) = spec_of(b) else { continue };
        let k = uses.len();
        uses.push(Use { builtin: b, member: d.member, target: d.target, spec, reported: 0 });
        definition(cx, &mut uses[k], d.inst as usize);
    }
    if uses.iter().all(|u| u.spec.definition_only) {
        return;
    }
    references(cx, &mut uses);
}

/// The type a built-in decorating `target` (member `member`) has: the struct
/// member's, a constant's type, or the variable's pointee; with the
/// instruction and operand to point at.
fn declared_type(cx: &Context<'_>, target: u32, member: Option<u32>) -> Option<(u32, usize, usize)> {
    let ir = cx.ir();
    let def = cx.def(target)?;
    match member {
        Some(m) => match ir.ty(target).map(|t| &t.ty) {
            Some(Type::Struct { members }) => members.get(m as usize).map(|mm| (mm.ty, def, 1 + m as usize)),
            _ => None,
        },
        None if cx.insts()[def].opcode == op::OpVariable => {
            let pt = ir.result_type(def)?;
            match ir.ty(pt).map(|t| &t.ty) {
                Some(Type::Pointer { pointee: Some(p), .. }) => Some((*p, def, 0)),
                _ => None,
            }
        }
        None if super::memory::is_constant_opcode(cx.insts()[def].opcode) => Some((ir.result_type(def)?, def, 0)),
        None => None,
    }
}

/// Report that the built-in's type is not `want`.
fn bad_type(cx: &mut Context<'_>, u: &mut Use, ty: u32, want: Want, at: (usize, usize), arrayed: bool) {
    let name = builtin_name(u.builtin);
    let what = match u.member {
        Some(m) => format!("member {m} of {}", cx.name(u.target)),
        None => cx.name(u.target),
    };
    let got = describe(cx, ty);
    let mut want_s = want_words(want);
    if arrayed {
        want_s.push_str(" (or an array of them)");
    }
    let v = vuid(name, u.spec.vuid[2]);
    let m = format!("{v}BuiltIn {name} must be {want_s}, but {what} has type {got}");
    cx.error_at(TYPE, at.0, at.1, m).label = format!("must be {}", want_words(want));
    u.reported |= 1;
}

/// The checks where the built-in is declared: its type, and the storage class
/// of the variable it decorates.
fn definition(cx: &mut Context<'_>, u: &mut Use, at: usize) {
    let Some(def) = cx.def(u.target) else { return };
    let name = builtin_name(u.builtin);
    if u.spec.definition_only && u.member.is_some() {
        let m = format!(
            "BuiltIn {name} cannot decorate a structure member: it decorates member {} of {}",
            u.member.unwrap_or(0),
            cx.name(u.target)
        );
        cx.error_at(CLASS, at, 0, m).label = String::from("not on a member");
        u.reported |= 2;
        return;
    }
    let declared = declared_type(cx, u.target, u.member);
    if let Some((ty, i, k)) = declared
        && !has_type(cx, ty, u.spec.want, false)
    {
        bad_type(cx, u, ty, u.spec.want, (i, k), false);
    }
    if u.spec.constant && !super::memory::is_constant_opcode(cx.insts()[def].opcode) {
        let target = cx.name(u.target);
        let m = format!("[VUID-WorkgroupSize-WorkgroupSize-04426] BuiltIn {name} must decorate a constant, but {target} is not a constant");
        cx.error_at(CLASS, at, 0, m).label = String::from("must decorate a constant");
        u.reported |= 2;
    }
    if u.spec.patch && !cx.ir().decorations_of(u.target).iter().any(|d| d.decoration == dec::Patch) {
        let target = cx.name(u.target);
        let m = format!("[VUID-{name}-{name}-10880] BuiltIn {name} must be decorated Patch, but {target} is not");
        cx.error_at(CLASS, at, 0, m).label = String::from("needs Patch");
        u.reported |= 2;
    }
    if u.member.is_none() {
        reference(cx, u, def, None, None);
    }
}

fn want_words(w: Want) -> String {
    match w {
        Want::Any => String::from("any type"),
        Want::Bool => String::from("a bool scalar"),
        Want::I32 => String::from("a 32-bit int scalar"),
        Want::F32 => String::from("a 32-bit float scalar"),
        Want::I32Vec(n) => format!("a {n}-component vector of 32-bit ints"),
        Want::F32Vec(n) => format!("a {n}-component vector of 32-bit floats"),
        Want::I32Arr => String::from("an array of 32-bit ints"),
        Want::F32Arr(0) => String::from("an array of 32-bit floats"),
        Want::F32Arr(n) => format!("an array of {n} 32-bit floats"),
    }
}

/// Whether `ty` is `want` (with `arrayed`, also an array of it, as spirv-val's
/// "optionally arrayed" types: for an array of floats, an array of them).
fn has_type(cx: &Context<'_>, ty: u32, want: Want, arrayed: bool) -> bool {
    let ir = cx.ir();
    let t = |id: u32| ir.ty(id).map(|t| &t.ty);
    let mut ty = ty;
    if arrayed
        && let Some(Type::Array { element, .. }) = t(ty)
        && (!matches!(want, Want::F32Arr(_)) || matches!(t(*element), Some(Type::Array { .. })))
    {
        ty = *element;
    }
    let int32 = |id: u32| matches!(t(id), Some(Type::Int { width: 32, .. }));
    let float32 = |id: u32| matches!(t(id), Some(Type::Float { width: 32, .. }));
    match want {
        Want::Any => true,
        Want::Bool => matches!(t(ty), Some(Type::Bool)),
        Want::I32 => int32(ty),
        Want::F32 => float32(ty),
        Want::I32Vec(n) => {
            matches!(t(ty), Some(Type::Vector { component, count }) if *count == n && int32(*component))
        }
        Want::F32Vec(n) => {
            matches!(t(ty), Some(Type::Vector { component, count }) if *count == n && float32(*component))
        }
        Want::I32Arr => matches!(t(ty), Some(Type::Array { element, .. }) if int32(*element)),
        Want::F32Arr(n) => matches!(t(ty), Some(Type::Array { element, len, .. })
            if float32(*element) && (n == 0 || *len == Some(u64::from(n)))),
    }
}

/// The checks of instruction `i` referencing a built-in (operand `k`, none at
/// its declaration), from a function that entry points `eps` reach (none at
/// global scope).
fn reference(cx: &mut Context<'_>, u: &mut Use, i: usize, k: Option<usize>, eps: Option<&[usize]>) {
    let name = builtin_name(u.builtin);
    if u.reported & 2 == 0
        && u.spec.class != Class::Any
        && let Some((class, ck)) = storage_of(cx, i)
    {
        let ok = match u.spec.class {
            Class::Any => true,
            Class::In => class == sc::Input,
            Class::Out => class == sc::Output,
            Class::InOut => class == sc::Input || class == sc::Output,
        };
        if !ok {
            let want = match u.spec.class {
                Class::Any => "any",
                Class::In => "Input",
                Class::Out => "Output",
                Class::InOut => "Input or Output",
            };
            let v = vuid(name, u.spec.vuid[1]);
            let what = cx.name(cx.ir().result_id(i).unwrap_or(0));
            let through = if cx.ir().result_id(i) == Some(u.target) {
                String::new()
            } else {
                format!(" (it carries {}, decorated BuiltIn {name})", cx.name(u.target))
            };
            let m = format!(
                "{v}BuiltIn {name} is only for variables in the {want} storage class, but {what}{through} is in the {} storage class",
                class_name(class)
            );
            cx.error_at(CLASS, i, ck, m).label = format!("must be {want}");
            u.reported |= 2;
        }
    }
    let Some(eps) = eps else { return };
    let ir = cx.ir();
    // The storage class of the variable referenced (for the Input/Output rules).
    let referenced_class = k
        .and_then(|k| cx.operand_words(i, k).first().copied())
        .and_then(|id| cx.def(id))
        .and_then(|d| storage_of(cx, d))
        .map(|(c, _)| c);
    for &e in eps {
        let ep = &ir.entry_points[e];
        let mut allowed = match u.spec.models {
            Models::Any => true,
            Models::Only(ms) => ms.contains(&ep.model),
            Models::Not(ms) => !ms.contains(&ep.model),
        };
        let mut direction = "";
        if referenced_class == Some(sc::Input) && u.spec.not_input.contains(&ep.model) {
            allowed = false;
            direction = " as an Input";
        }
        if referenced_class == Some(sc::Output) && u.spec.not_output.contains(&ep.model) {
            allowed = false;
            direction = " as an Output";
        }
        if !allowed && u.reported & 4 == 0 {
            let v = vuid(name, u.spec.vuid[0]);
            let target = cx.name(u.target);
            let f = ir.function_at(i).map_or(0, |f| f.id);
            let fname = cx.name(f);
            let m = format!(
                "{v}BuiltIn {name} ({target}) is used{direction} in function {fname}, which the {} entry point \"{}\" calls: {name}{direction} is not available to that execution model",
                model_name(ep.model),
                ep.name
            );
            cx.error_at(MODEL, i, k.unwrap_or(0), m).label =
                format!("{name} used from a {} entry point", model_name(ep.model));
            u.reported |= 4;
        }
        if allowed
            && u.reported & 1 == 0
            && let Some((want, exact)) = u.spec.by_model
            && let Some((ty, _, _)) = declared_type(cx, u.target, u.member)
        {
            let arrayed = u.member.is_none() && !exact.contains(&ep.model);
            if !has_type(cx, ty, want, arrayed) {
                bad_type(cx, u, ty, want, (i, k.unwrap_or(0)), arrayed);
            }
        }
        if u.builtin == bi::FragDepth
            && u.reported & 8 == 0
            && !ep.modes.iter().any(|m| m.mode == mode::DepthReplacing)
        {
            let target = cx.name(u.target);
            let m = format!(
                "[VUID-FragDepth-FragDepth-04216] the entry point \"{}\" uses BuiltIn FragDepth ({target}) but does not declare the DepthReplacing execution mode",
                ep.name
            );
            let d = cx.error_at(DEPTH, i, k.unwrap_or(0), m);
            d.label = String::from("FragDepth used without DepthReplacing");
            d.help = Some(String::from("add `OpExecutionMode %main DepthReplacing` for the entry point"));
            u.reported |= 8;
        }
    }
}

/// The entry points (indices in `entry_points`) that reach each function
/// (by index in `functions`) through calls.
fn entry_points_of_functions(cx: &Context<'_>) -> Vec<Vec<usize>> {
    let ir = cx.ir();
    let index = |id: u32| ir.functions.iter().position(|f| f.id == id);
    let callees: Vec<Vec<usize>> = ir
        .functions
        .iter()
        .map(|f| {
            let mut out = Vec::new();
            for i in f.inst as usize..=(f.end as usize).min(cx.insts().len().saturating_sub(1)) {
                let inst = &cx.insts()[i];
                if inst.opcode == op::OpFunctionCall
                    && let Some(c) = inst.operands.get(2).and_then(|&id| index(id))
                    && !out.contains(&c)
                {
                    out.push(c);
                }
            }
            out
        })
        .collect();
    let mut eps = vec![Vec::new(); ir.functions.len()];
    for (e, ep) in ir.entry_points.iter().enumerate() {
        let Some(start) = index(ep.function) else { continue };
        let mut seen = vec![false; ir.functions.len()];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(f) = stack.pop() {
            eps[f].push(e);
            for &c in &callees[f] {
                if !seen[c] {
                    seen[c] = true;
                    stack.push(c);
                }
            }
        }
    }
    eps
}

/// Every instruction that names a built-in's id (or an id built from it at
/// global scope), in module order, as spirv-val walks them.
fn references(cx: &mut Context<'_>, uses: &mut [Use]) {
    let bound = cx.id_bound() as usize;
    // marks[id]: 1 + the index in `sets` of the uses that id carries.
    let mut marks: Vec<u32> = vec![0; bound];
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for (n, u) in uses.iter().enumerate() {
        if u.spec.definition_only {
            continue;
        }
        let Some(slot) = marks.get_mut(u.target as usize) else { continue };
        if *slot == 0 {
            sets.push(vec![n]);
            *slot = sets.len() as u32;
        } else if !sets[*slot as usize - 1].contains(&n) {
            sets[*slot as usize - 1].push(n);
        }
    }
    let eps_of = entry_points_of_functions(cx);
    let ir = cx.ir();
    let mut function: Option<usize> = None;
    let mut next_function = 0usize;
    let mut seen_ids: Vec<u32> = Vec::new();
    let mut hits: Vec<(usize, u32)> = Vec::new();
    for i in 0..cx.insts().len() {
        let opcode = cx.insts()[i].opcode;
        if opcode == op::OpFunction {
            function = ir.functions.get(next_function).filter(|f| f.inst as usize == i).map(|_| next_function);
            next_function += 1;
        }
        let result = ir.result_id(i);
        seen_ids.clear();
        hits.clear();
        for (k, o) in cx.operands(i).iter().enumerate() {
            if !matches!(
                o.kind,
                OperandKind::IdRef
                    | OperandKind::IdResultType
                    | OperandKind::IdScope
                    | OperandKind::IdMemorySemantics
            ) {
                continue;
            }
            let Some(&id) = cx.insts()[i].operands.get(o.start as usize) else { continue };
            if Some(id) == result || seen_ids.contains(&id) {
                continue;
            }
            seen_ids.push(id);
            if let Some(&mark) = marks.get(id as usize)
                && mark != 0
            {
                hits.push((k, mark));
            }
        }
        if hits.is_empty() {
            if opcode == op::OpFunctionEnd {
                function = None;
            }
            continue;
        }
        let mut carried: Vec<usize> = Vec::new();
        for &(k, mark) in &hits {
            let set = sets[mark as usize - 1].clone();
            let eps = function.and_then(|f| eps_of.get(f)).map(|v| v.as_slice());
            for &n in &set {
                reference(cx, &mut uses[n], i, Some(k), eps);
                if function.is_none() && !carried.contains(&n) {
                    carried.push(n);
                }
            }
        }
        if !carried.is_empty()
            && let Some(r) = result
            && let Some(slot) = marks.get_mut(r as usize)
        {
            if *slot == 0 {
                sets.push(carried);
                *slot = sets.len() as u32;
            } else {
                let s = &mut sets[*slot as usize - 1];
                for n in carried {
                    if !s.contains(&n) {
                        s.push(n);
                    }
                }
            }
        }
        if opcode == op::OpFunctionEnd {
            function = None;
        }
    }
}
