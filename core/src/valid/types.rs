//! Types of common operands: type declarations that need capabilities, and the
//! operand and result types of instructions as far as spirv-val checks them on
//! the corpus (OpReadClockKHR, OpUndef, scopes, interface structs, built-in
//! structure members, cooperative matrices and LocalSizeId).

use crate::grammar::{decoration, execution_mode, op, scope, storage_class};
use super::Context;
use super::declared::Declared;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::OperandKind;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "types.vulkan-storage-class",
        summary: "Vulkan has no CrossWorkgroup, Generic or AtomicCounter storage class.",
        explanation: "The Vulkan environment allows only the storage classes its memory model \
                      describes (VUID-StandaloneSpirv-None-04643); OpenCL's CrossWorkgroup and \
                      Generic, and AtomicCounter, cannot be used. Fix: use StorageBuffer, \
                      Workgroup or another Vulkan storage class.",
    },
    Rule {
        code: "types.int-width",
        summary: "Integer types other than 32-bit need a capability.",
        explanation: "OpTypeInt of width 8, 16 or 64 needs Int8, Int16 or Int64 (8- and 16-bit \
                      integers are also enabled, for limited use, by the 8/16-bit storage \
                      capabilities); other widths do not exist. Fix: add `OpCapability Int64` \
                      (or the one for the width).",
    },
    Rule {
        code: "types.float-width",
        summary: "Floating-point types other than 32-bit need a capability.",
        explanation: "OpTypeFloat of width 16 needs Float16 or Float16Buffer (or a 16-bit storage \
                      capability), width 64 needs Float64; other widths need an encoding. Fix: \
                      add `OpCapability Float64` (or the one for the width).",
    },
    Rule {
        code: "types.read-clock-result",
        summary: "OpReadClockKHR returns a 64-bit unsigned integer or a vector of two 32-bit unsigned integers.",
        explanation: "SPV_KHR_shader_clock: Result Type must be a 64-bit unsigned integer scalar \
                      or a vector of two components of 32-bit unsigned integer (low bits first).",
    },
    Rule {
        code: "types.read-clock-scope",
        summary: "OpReadClockKHR's scope must be one the client API allows.",
        explanation: "Vulkan allows only Subgroup or Device for OpReadClockKHR \
                      (VUID-StandaloneSpirv-OpReadClockKHR-04652); OpenCL allows Subgroup, \
                      Workgroup or Device.",
    },
    Rule {
        code: "types.invalid-scope",
        summary: "A scope operand must be a valid Scope value.",
        explanation: "Operands of kind Scope <id> are constants whose value is one of the Scope \
                      enumerants (CrossDevice 0 ... ShaderCallKHR 6).",
    },
    Rule {
        code: "types.undef-type",
        summary: "OpUndef cannot have void type, nor (with Shader) an 8- or 16-bit type of limited use.",
        explanation: "An undefined value of type void is meaningless. When the Shader capability \
                      is declared, 8- and 16-bit integers and 16-bit floats enabled only by the \
                      storage capabilities (not Int8/Int16/Float16) may only be loaded, stored \
                      and converted, so OpUndef cannot create them.",
    },
    Rule {
        code: "types.interface-struct-builtin",
        summary: "An interface struct with BuiltIn members must be decorated Block.",
        explanation: "A variable of the entry point interface whose type is a structure with \
                      built-in members must use a Block-decorated structure; otherwise every \
                      member would need a Location (Vulkan: VUID-StandaloneSpirv-Location-04919). \
                      Fix: add `OpDecorate %struct Block`.",
    },
    Rule {
        code: "types.builtin-members-mixed",
        summary: "If a structure member is BuiltIn, all members must be BuiltIn.",
        explanation: "Built-in variables and non-built-in variables cannot be mixed in one \
                      structure: when BuiltIn decorates one member of a structure type, every \
                      member of it must be decorated BuiltIn.",
    },
    Rule {
        code: "types.coopmat-local-size-id",
        summary: "A Workgroup-scope cooperative matrix type must follow the LocalSizeId constants.",
        explanation: "The size of a cooperative matrix with Workgroup scope depends on the \
                      workgroup size, so when the entry point uses LocalSizeId, its constants \
                      must be defined before the OpTypeCooperativeMatrixKHR.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

/// Decorations by target id: (member or u32::MAX, decoration, instruction index).
struct Decorations {
    by_target: BTreeMap<u32, Vec<(u32, u32, usize)>>,
}

impl Decorations {
    fn collect(cx: &Context<'_>) -> Decorations {
        let mut by_target: BTreeMap<u32, Vec<(u32, u32, usize)>> = BTreeMap::new();
        for (i, inst) in cx.insts().iter().enumerate() {
            match (inst.opcode, inst.operands.as_slice()) {
                (op::OpDecorate, [t, d, ..]) => by_target.entry(*t).or_default().push((u32::MAX, *d, i)),
                (op::OpMemberDecorate, [t, m, d, ..]) => by_target.entry(*t).or_default().push((*m, *d, i)),
                _ => {}
            }
        }
        Decorations { by_target }
    }

    fn has(&self, id: u32, dec: u32) -> bool {
        self.by_target.get(&id).is_some_and(|v| v.iter().any(|&(m, d, _)| m == u32::MAX && d == dec))
    }

    fn members_with(&self, id: u32, dec: u32) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.by_target
            .get(&id)
            .into_iter()
            .flat_map(move |v| v.iter().filter(move |&&(m, d, _)| m != u32::MAX && d == dec).map(|&(m, _, i)| (m, i)))
    }
}

pub(super) fn check(cx: &mut Context<'_>) {
    let declared = cx.declared();
    let decs = Decorations::collect(cx);
    type_declarations(cx, &declared);
    builtin_structs(cx, &decs);
    interface_structs(cx, &decs);
    read_clock(cx);
    scopes(cx);
    undef(cx, &declared);
    coopmat_local_size_id(cx);
    vulkan_storage_classes(cx);
}

/// Storage classes Vulkan does not have (VUID-StandaloneSpirv-None-04643).
fn vulkan_storage_classes(cx: &mut Context<'_>) {
    if !cx.opts.env.is_vulkan() {
        return;
    }
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode != op::OpTypePointer && inst.opcode != op::OpTypeUntypedPointerKHR {
            continue;
        }
        let Some(&sc) = inst.operands.get(1) else { continue };
        if matches!(
            sc,
            storage_class::CrossWorkgroup
                | storage_class::Generic
                | storage_class::AtomicCounter
                | storage_class::CodeSectionINTEL
                | storage_class::DeviceOnlyINTEL
                | storage_class::HostOnlyINTEL
        ) {
            let scname = OperandKind::StorageClass.enumerant(sc).map_or("?", |e| e.name);
            let env = cx.opts.env.name();
            let d = cx.error(
                "types.vulkan-storage-class",
                i,
                String::from("[VUID-StandaloneSpirv-None-04643] Invalid storage class for target environment"),
            );
            d.label = format!("storage class {scname} does not exist in {env}");
        }
    }
}

fn int_value(cx: &Context<'_>, id: u32) -> Option<u32> {
    let inst = cx.def_inst(id)?;
    if inst.opcode != op::OpConstant {
        return None;
    }
    let ty = cx.def_inst(*inst.operands.first()?)?;
    if ty.opcode != op::OpTypeInt {
        return None;
    }
    inst.operands.get(2).copied()
}

fn type_declarations(cx: &mut Context<'_>, declared: &Declared) {
    let any = |names: &[&str]| names.iter().any(|n| declared.has_cap_named(n));
    let int8 = any(&["Int8", "StorageBuffer8BitAccess", "UniformAndStorageBuffer8BitAccess", "StoragePushConstant8"]);
    let sixteen = ["StorageBuffer16BitAccess", "UniformAndStorageBuffer16BitAccess", "StoragePushConstant16", "StorageInputOutput16"];
    let int16 = declared.has_cap_named("Int16") || any(&sixteen) || declared.has_ext("SPV_AMD_gpu_shader_int16");
    let float16 = declared.has_cap_named("Float16")
        || declared.has_cap_named("Float16Buffer")
        || any(&sixteen)
        || declared.has_ext("SPV_AMD_gpu_shader_half_float");
    let int64 = declared.has_cap_named("Int64");
    let float64 = declared.has_cap_named("Float64");
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        match inst.opcode {
            op::OpTypeInt => {
                let Some(&w) = inst.operands.get(1) else { continue };
                let (ok, msg, cap) = match w {
                    32 => continue,
                    8 => (int8, String::from("Using an 8-bit integer type requires the Int8 capability, or an extension that explicitly enables 8-bit integers."), "Int8"),
                    16 => (int16, String::from("Using a 16-bit integer type requires the Int16 capability, or an extension that explicitly enables 16-bit integers."), "Int16"),
                    64 => (int64, String::from("Using a 64-bit integer type requires the Int64 capability."), "Int64"),
                    // Other widths come with their own capabilities (e.g. Int4); left to the grammar.
                    _ => continue,
                };
                if !ok {
                    let d = cx.error("types.int-width", i, msg);
                    d.label = format!("a {w}-bit integer type");
                    d.help = Some(format!("add `OpCapability {cap}`"));
                }
            }
            op::OpTypeFloat => {
                let Some(&w) = inst.operands.get(1) else { continue };
                if inst.operands.len() > 2 {
                    continue; // an explicit encoding: its capability is checked with the operand
                }
                let (ok, msg, cap) = match w {
                    32 => continue,
                    16 => (float16, "Using a 16-bit floating point type requires the Float16 or Float16Buffer capability, or an extension that explicitly enables 16-bit floating point.", "Float16"),
                    64 => (float64, "Using a 64-bit floating point type requires the Float64 capability.", "Float64"),
                    _ => continue,
                };
                if !ok {
                    let d = cx.error("types.float-width", i, String::from(msg));
                    d.label = format!("a {w}-bit floating-point type");
                    d.help = Some(format!("add `OpCapability {cap}`"));
                }
            }
            _ => {}
        }
    }
}

fn builtin_structs(cx: &mut Context<'_>, decs: &Decorations) {
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode != op::OpTypeStruct {
            continue;
        }
        let Some(&id) = inst.operands.first() else { continue };
        let n = inst.operands.len().saturating_sub(1) as u32;
        let mut members: Vec<u32> = decs.members_with(id, decoration::BuiltIn).map(|(m, _)| m).collect();
        if members.is_empty() {
            continue;
        }
        members.sort_unstable();
        members.dedup();
        let covered = members.iter().filter(|&&m| m < n).count() as u32;
        if covered < n {
            let name = cx.name(id);
            let first = decs.members_with(id, decoration::BuiltIn).map(|(_, at)| at).next();
            let missing = (0..n).find(|m| members.binary_search(m).is_err()).unwrap_or(0);
            let msg = format!(
                "When BuiltIn decoration is applied to a structure-type member, all members of that structure type must also be decorated with BuiltIn: member {missing} of {name} is not"
            );
            let related = first.map(|at| (at, String::from("a member is decorated BuiltIn here")));
            let d = cx.error_related("types.builtin-members-mixed", i, msg, related);
            d.label = format!("{name} mixes built-in and non-built-in members");
            d.help = Some(format!("decorate every member of {name} BuiltIn, or move the built-ins to their own structure"));
        }
    }
}

fn interface_structs(cx: &mut Context<'_>, decs: &Decorations) {
    let mut seen: Vec<u32> = Vec::new();
    for ep in 0..cx.insts().len() {
        if cx.insts()[ep].opcode != op::OpEntryPoint {
            continue;
        }
        let n = cx.operands(ep).len();
        for k in 3..n {
            for &var in cx.operand_words(ep, k) {
                let Some(vi) = cx.def(var) else { continue };
                let v = &cx.insts()[vi];
                if v.opcode != op::OpVariable {
                    continue;
                }
                let Some(ptr) = v.operands.first().and_then(|&t| cx.def_inst(t)) else { continue };
                if ptr.opcode != op::OpTypePointer {
                    continue;
                }
                let Some(&st) = ptr.operands.get(2) else { continue };
                let Some(si) = cx.def(st) else { continue };
                if cx.insts()[si].opcode != op::OpTypeStruct || decs.has(st, decoration::Block) || seen.contains(&st) {
                    continue;
                }
                if decs.members_with(st, decoration::BuiltIn).next().is_none() {
                    continue;
                }
                seen.push(st);
                let sname = cx.name(st);
                let vname = cx.name(var);
                let vuid = if cx.opts.env.is_vulkan() { "[VUID-StandaloneSpirv-Location-04919] " } else { "" };
                let msg = format!(
                    "{vuid}Interface struct has no Block decoration but has BuiltIn members. Location decorations must be used on each member of OpVariable with a structure type that is a block not decorated with Location."
                );
                let related = [(vi, format!("{vname} has this type")), (ep, format!("{vname} is in this entry point's interface"))];
                let d = cx.error_related("types.interface-struct-builtin", si, msg, related);
                d.label = format!("{sname} has BuiltIn members but is not decorated Block");
                d.help = Some(format!("add `OpDecorate {sname} Block`"));
            }
        }
    }
}

fn read_clock(cx: &mut Context<'_>) {
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode != op::OpReadClockKHR {
            continue;
        }
        let (Some(&rt), Some(&scope)) = (inst.operands.first(), inst.operands.get(2)) else { continue };
        let ok = match cx.def_inst(rt) {
            Some(t) if t.opcode == op::OpTypeInt => t.operands.get(1..3) == Some(&[64, 0]),
            Some(t) if t.opcode == op::OpTypeVector => {
                t.operands.get(2) == Some(&2)
                    && t.operands.get(1).and_then(|&c| cx.def_inst(c)).is_some_and(|c| {
                        c.opcode == op::OpTypeInt && c.operands.get(1..3) == Some(&[32, 0])
                    })
            }
            _ => false,
        };
        if !ok {
            let tname = cx.name(rt);
            let d = cx.error(
                "types.read-clock-result",
                i,
                String::from("Expected Value to be a vector of two components of unsigned integer or 64bit unsigned integer"),
            );
            d.label = format!("the result type {tname} is neither a 64-bit unsigned integer nor a vector of two 32-bit unsigned integers");
            continue;
        }
        let Some(v) = int_value(cx, scope) else { continue };
        let env = cx.opts.env;
        let bad = if env.is_vulkan() {
            (v != scope::Device && v != scope::Subgroup).then_some("[VUID-StandaloneSpirv-OpReadClockKHR-04652] Scope must be Subgroup or Device")
        } else if env.is_opencl() {
            (!(scope::Device..=scope::Subgroup).contains(&v)).then_some("Scope must be Subgroup, Workgroup, or Device")
        } else {
            None
        };
        if let Some(msg) = bad {
            if OperandKind::Scope.enumerant(v).is_none() {
                continue; // reported as an invalid scope
            }
            let sname = OperandKind::Scope.enumerant(v).map_or("?", |e| e.name);
            let d = cx.error("types.read-clock-scope", i, String::from(msg));
            d.label = format!("the scope is {sname}, which {} does not allow here", env.name());
        }
    }
}

fn scopes(cx: &mut Context<'_>) {
    for i in 0..cx.insts().len() {
        let n = cx.operands(i).len();
        for k in 0..n {
            if cx.operands(i)[k].kind != OperandKind::IdScope {
                continue;
            }
            let Some(&id) = cx.operand_words(i, k).first() else { continue };
            let Some(v) = int_value(cx, id) else { continue };
            if OperandKind::Scope.enumerant(v).is_none() {
                let cname = cx.name(id);
                let d = cx.error("types.invalid-scope", i, format!("Invalid scope value: {cname} is {v}"));
                d.label = format!("{cname} = {v} is not a Scope");
                d.help = Some(String::from("use one of the Scope values: CrossDevice 0, Device 1, Workgroup 2, Subgroup 3, Invocation 4, QueueFamily 5, ShaderCallKHR 6"));
            }
        }
    }
}

/// Whether `ty` is or contains a scalar of this opcode and width.
fn contains_sized(cx: &Context<'_>, ty: u32, opcode: u16, width: u32, depth: u32) -> bool {
    if depth > 64 {
        return false;
    }
    let Some(t) = cx.def_inst(ty) else { return false };
    match t.opcode {
        o if o == opcode => t.operands.get(1) == Some(&width),
        op::OpTypeVector | op::OpTypeMatrix | op::OpTypeArray | op::OpTypeRuntimeArray | op::OpTypeCooperativeMatrixKHR => {
            t.operands.get(1).is_some_and(|&e| contains_sized(cx, e, opcode, width, depth + 1))
        }
        op::OpTypeStruct => t.operands.iter().skip(1).any(|&m| contains_sized(cx, m, opcode, width, depth + 1)),
        _ => false,
    }
}

fn undef(cx: &mut Context<'_>, declared: &Declared) {
    let shader = declared.has_cap_named("Shader");
    let (int16, int8, float16) =
        (declared.has_cap_named("Int16"), declared.has_cap_named("Int8"), declared.has_cap_named("Float16"));
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode != op::OpUndef {
            continue;
        }
        let Some(&ty) = inst.operands.first() else { continue };
        let Some(t) = cx.def_inst(ty) else { continue };
        if t.opcode == op::OpTypeVoid {
            let d = cx.error("types.undef-type", i, String::from("Cannot create undefined values with void type"));
            d.label = String::from("OpUndef of type void");
            continue;
        }
        if !shader || t.opcode == op::OpTypePointer {
            continue;
        }
        let limited = (!int16 && contains_sized(cx, ty, op::OpTypeInt, 16, 0))
            || (!int8 && contains_sized(cx, ty, op::OpTypeInt, 8, 0))
            || (!float16 && contains_sized(cx, ty, op::OpTypeFloat, 16, 0));
        if limited {
            let tname = cx.name(ty);
            let d = cx.error(
                "types.undef-type",
                i,
                format!("cannot create an undefined value of {tname}: 8- and 16-bit types without the Int8, Int16 or Float16 capability are for storage only"),
            );
            d.label = format!("{tname} is (or contains) an 8- or 16-bit type enabled only for storage");
            d.help = Some(String::from("declare Int8, Int16 or Float16 to use such types as values, or avoid OpUndef here"));
        }
    }
}

fn coopmat_local_size_id(cx: &mut Context<'_>) {
    // The ids of LocalSizeId operands.
    let mut ids: Vec<(u32, usize)> = Vec::new();
    for (i, inst) in cx.insts().iter().enumerate() {
        if inst.opcode == op::OpExecutionModeId && inst.operands.get(1) == Some(&execution_mode::LocalSizeId) {
            ids.extend(inst.operands.iter().skip(2).map(|&id| (id, i)));
        }
    }
    if ids.is_empty() {
        return;
    }
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode != op::OpTypeCooperativeMatrixKHR {
            continue;
        }
        let Some(&scope) = inst.operands.get(2) else { continue };
        if int_value(cx, scope) != Some(scope::Workgroup) {
            continue;
        }
        for &(id, em) in &ids {
            let Some(def) = cx.def(id) else { continue };
            if def > i {
                let cname = cx.name(id);
                let tname = cx.name(inst.operands.first().copied().unwrap_or(0));
                let msg = format!(
                    "OpTypeCooperativeMatrixKHR with ScopeWorkgroup used before LocalSizeId constant value {cname} is defined."
                );
                let related = [(def, format!("{cname} is defined only here")), (em, String::from("the workgroup size is set here"))];
                let d = cx.error_related("types.coopmat-local-size-id", i, msg, related);
                d.label = format!("{tname} has Workgroup scope, so its size depends on the workgroup size");
                d.help = Some(format!("move the definition of {cname} before {tname}"));
                break;
            }
        }
    }
}
