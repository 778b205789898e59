//! The interface of entry points: what OpEntryPoint may list, by SPIR-V
//! version, and (Vulkan) the Location of user-defined inputs and outputs
//! (SPIR-V spec 3.42.6 OpEntryPoint, 2.16.1; Vulkan spec 15.1 "Shader Input
//! and Output Interfaces"; spirv-val's validate_interfaces and
//! CheckDecorationsOfEntryPoints in validate_decorations, v2025.5).

use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{
    OperandKind, op, storage_class as sc,
};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.interface.not-variable",
        summary: "OpEntryPoint's interface lists variables, of the storage classes its version allows.",
        explanation: "SPIR-V spec 3.42.6: the Interface operands of OpEntryPoint are the ids of \
                      global OpVariables. Up to SPIR-V 1.3 they are the Input and Output variables \
                      the entry point uses; from 1.4 on, every global variable it statically uses \
                      (any storage class but Function), each listed once. Fix: list the variable, \
                      not its type, pointer type or a value.",
    },
    Rule {
        code: "inst.interface.location",
        summary: "In Vulkan, a user-defined input or output variable needs a Location.",
        explanation: "Vulkan 15.1.3 (VUID-StandaloneSpirv-Location-04916, 04917): the Input and \
                      Output variables of vertex, tessellation, geometry and fragment shaders that \
                      are not built-ins must be decorated with Location, unless their type is a \
                      struct decorated Block whose members carry the locations. Index only applies \
                      to fragment shader outputs. Fix: add `OpDecorate %var Location 0`.",
    },
    Rule {
        code: "inst.interface.builtin-variables",
        summary: "An entry point has one variable per built-in and direction, and at most one built-in block per direction.",
        explanation: "SPIR-V spec 2.16.2 (validation rules for shader capabilities): there must be at most \
                      one object per storage class that contains a structure with BuiltIn members, per \
                      entry point. Vulkan (VUID-StandaloneSpirv-OpEntryPoint-09658, 09659): an entry \
                      point may not list two Input (or two Output) variables with the same BuiltIn. \
                      Fix: keep one gl_PerVertex block and one variable per built-in.",
    },
    Rule {
        code: "inst.interface.interpolation",
        summary: "In Vulkan, interpolation decorations fit the stage, and integer fragment inputs are Flat.",
        explanation: "Vulkan spec 15.1.6 \"Interpolation Decorations\": Flat, NoPerspective, Sample and \
                      Centroid must not be used on vertex shader inputs (VUID-StandaloneSpirv-Flat-06202) \
                      or fragment shader outputs (06201); a fragment shader input of integer (or 64-bit \
                      float) type must be decorated Flat (VUID-StandaloneSpirv-Flat-04744). Fix: add \
                      `OpDecorate %var Flat`, or remove the decoration.",
    },
    Rule {
        code: "inst.interface.runtime-array",
        summary: "In Vulkan, a runtime array is only the last member of a Block or BufferBlock struct (or a descriptor array).",
        explanation: "Vulkan spec, VUID-StandaloneSpirv-OpTypeRuntimeArray-04680: an OpTypeRuntimeArray \
                      may be the element of no array; in a struct it must be the last member, and the \
                      struct must be decorated Block or BufferBlock; a struct variable holding one must \
                      be in the StorageBuffer (decorated Block), PhysicalStorageBuffer or Uniform \
                      storage class; a variable may be a runtime array itself only with the \
                      RuntimeDescriptorArray capability, in the StorageBuffer, Uniform or \
                      UniformConstant storage class. Fix: wrap the runtime array as the last member \
                      of a Block struct in a StorageBuffer variable.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

const NOT_VARIABLE: &str = "inst.interface.not-variable";
const RTA: &str = "inst.interface.runtime-array";
const BUILTIN_VARS: &str = "inst.interface.builtin-variables";
const INTERPOLATION: &str = "inst.interface.interpolation";



/// The pass.
pub(super) fn check(cx: &mut Context<'_>) {
    let ir = cx.ir();
    let v14 = cx.version >= (1, 4);
    for ep in &ir.entry_points {
        let i = ep.inst as usize;
        let mut seen: Vec<u32> = Vec::new();
        // (variable, operand) of the Input/Output variables, once each.
        let mut io: Vec<(u32, usize, u32)> = Vec::new();
        for (n, &id) in ep.interface.iter().enumerate() {
            let k = 3 + n;
            let Some(def) = cx.def(id) else { continue };
            let inst = &cx.insts()[def];
            if inst.opcode != op::OpVariable && inst.opcode != op::OpUntypedVariableKHR {
                let name = cx.name(id);
                let m = format!(
                    "OpEntryPoint interface {name} is defined by {}: interfaces must be variables",
                    super::operand::opname(cx, def)
                );
                cx.error_at(NOT_VARIABLE, i, k, m).label = String::from("must be a variable");
                continue;
            }
            let Some(&class) = inst.operands.get(2) else {
                continue;
            };
            let cn = OperandKind::StorageClass
                .enumerant(class)
                .map_or("?", |e| e.name);
            let repeated = seen.contains(&id);
            seen.push(id);
            if v14 && class == sc::Function {
                let name = cx.name(id);
                let m = format!(
                    "OpEntryPoint interface {name} is a Function variable: from SPIR-V 1.4 on the interface lists only global variables"
                );
                cx.error_at(NOT_VARIABLE, i, k, m).label =
                    String::from("must be a global variable");
            } else if v14 && repeated {
                let name = cx.name(id);
                let m = format!(
                    "OpEntryPoint interface {name} is listed more than once: from SPIR-V 1.4 on each variable is listed once"
                );
                cx.error_at(NOT_VARIABLE, i, k, m).label = String::from("listed again");
            } else if !v14 && class != sc::Input && class != sc::Output {
                let name = cx.name(id);
                let m = format!(
                    "OpEntryPoint interface {name} is in the {cn} storage class: up to SPIR-V 1.3 the interface lists only Input and Output variables"
                );
                cx.error_at(NOT_VARIABLE, i, k, m).label =
                    String::from("must be an Input or Output variable");
            }
            if (class == sc::Input || class == sc::Output)
                && !repeated
                && inst.opcode == op::OpVariable
            {
                io.push((id, k, class));
            }
        }
        entry_decorations(cx, ep);
        if cx.opts.env.is_vulkan() {
            super::location::check_entry(cx, i, ep.model, &io);
        }
    }
    if cx.opts.env.is_vulkan() {
        runtime_arrays(cx);
    }
}

/// The decorations of an entry point's interface variables (spirv-val's
/// CheckDecorationsOfEntryPoints): built-ins once per direction, one built-in
/// block per direction; in Vulkan, the interpolation decorations.
fn entry_decorations(cx: &mut Context<'_>, ep: &crate::ir::EntryPoint) {
    use crate::grammar::{decoration as dec, execution_model as em};
    let ir = cx.ir();
    let i = ep.inst as usize;
    let vulkan = cx.opts.env.is_vulkan();
    // The models of every entry point of this function.
    let mut models: Vec<u32> = Vec::new();
    for e in &ir.entry_points {
        if e.function == ep.function && !models.contains(&e.model) {
            models.push(e.model);
        }
    }
    let has_frag = models.contains(&em::Fragment);
    let has_vert = models.contains(&em::Vertex);
    let (mut inputs, mut outputs): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
    let (mut block_in, mut block_out) = (0u32, 0u32);
    for (n, &var) in ep.interface.iter().enumerate() {
        let k = 3 + n;
        let Some(def) = cx.def(var) else { continue };
        if cx.insts()[def].opcode != op::OpVariable {
            continue;
        }
        let Some(&class) = cx.insts()[def].operands.get(2) else { continue };
        let Some(value) = ir.result_type(def).and_then(|pt| match ir.ty(pt).map(|t| &t.ty) {
            Some(Type::Pointer { pointee: Some(p), .. }) => Some(*p),
            _ => None,
        }) else {
            continue;
        };
        let is_struct = matches!(ir.ty(value).map(|t| &t.ty), Some(Type::Struct { .. }));
        let mut has_builtin = false;
        for d in ir.decorations_of(if is_struct { value } else { var }) {
            if d.decoration != dec::BuiltIn {
                continue;
            }
            has_builtin = true;
            if !vulkan {
                continue;
            }
            let Some(b) = d.arg(ir) else { continue };
            let (list, dir, vuid) = match class {
                sc::Input => (&mut inputs, "input", "09658"),
                sc::Output => (&mut outputs, "output", "09659"),
                _ => continue,
            };
            if list.contains(&b) {
                let bn = OperandKind::BuiltIn.enumerant(b).map_or("?", |e| e.name);
                let name = cx.name(var);
                let m = format!(
                    "[VUID-StandaloneSpirv-OpEntryPoint-{vuid}] the entry point \"{}\" lists two {dir} variables with BuiltIn {bn}: {name} is the second",
                    ep.name
                );
                cx.error_at(BUILTIN_VARS, i, k, m).label = format!("a second {dir} {bn}");
                return;
            }
            list.push(b);
        }
        if has_builtin && is_struct && ir.ty(value).is_some_and(|t| t.is_block()) {
            if class == sc::Input {
                block_in += 1;
            }
            if class == sc::Output {
                block_out += 1;
            }
            if block_in > 1 || block_out > 1 {
                let name = cx.name(var);
                let m = format!(
                    "the entry point \"{}\" has more than one {} variable of a struct with BuiltIn members: {name} is the second",
                    ep.name,
                    if block_in > 1 { "Input" } else { "Output" }
                );
                cx.error_at(BUILTIN_VARS, i, k, m).label = String::from("a second built-in block");
                return;
            }
        }
        if !vulkan {
            continue;
        }
        for d in ir.decorations_of(var) {
            if d.member.is_some()
                || !matches!(d.decoration, dec::Flat | dec::NoPerspective | dec::Sample | dec::Centroid)
            {
                continue;
            }
            let dn = OperandKind::Decoration.enumerant(d.decoration).map_or("?", |e| e.name);
            let bad = if class == sc::Input && (models.len() > 1 || has_vert) {
                Some(("06202", "a vertex shader Input"))
            } else if class == sc::Output && (models.len() > 1 || has_frag) {
                Some(("06201", "a fragment shader Output"))
            } else {
                None
            };
            if let Some((vuid, what)) = bad {
                let name = cx.name(var);
                let m = format!("[VUID-StandaloneSpirv-Flat-{vuid}] {name} is decorated {dn}, which must not be used on {what}");
                cx.error_at(INTERPOLATION, i, k, m).label = format!("{dn} on {what}");
                return;
            }
        }
        let flat = ir.decorations_of(var).iter().any(|d| d.decoration == dec::Flat);
        let needs_flat = match ir.ty(value).map(|t| &t.ty) {
            Some(Type::Float { width: 64, .. } | Type::Int { .. }) => true,
            Some(Type::Vector { component, .. }) => {
                matches!(ir.ty(*component).map(|t| &t.ty), Some(Type::Int { .. }))
            }
            _ => false,
        };
        if has_frag && class == sc::Input && !flat && needs_flat {
            let name = cx.name(var);
            let ty = super::operand::describe(cx, value);
            let m = format!(
                "[VUID-StandaloneSpirv-Flat-04744] the fragment shader input {name} has type {ty}, so it must be decorated Flat"
            );
            let d = cx.error_at(INTERPOLATION, i, k, m);
            d.label = String::from("needs Flat");
            d.help = Some(format!("add `OpDecorate {name} Flat`"));
            return;
        }
    }
}

fn is_rta(cx: &Context<'_>, ty: u32) -> bool {
    matches!(cx.ir().ty(ty).map(|t| &t.ty), Some(Type::RuntimeArray { .. }))
}

/// Vulkan: where runtime arrays may be (VUID-StandaloneSpirv-OpTypeRuntimeArray-04680).
fn runtime_arrays(cx: &mut Context<'_>) {
    let ir = cx.ir();
    for t in &ir.types {
        let i = t.inst as usize;
        match &t.ty {
            Type::Array { element, .. } | Type::RuntimeArray { element } if is_rta(cx, *element) => {
                let (name, e) = (cx.name(t.id), cx.name(*element));
                let m = format!(
                    "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] the element type of {name} is {e}, a runtime array: in Vulkan a runtime array cannot be an array element"
                );
                cx.error_at(RTA, i, 1, m).label = String::from("a runtime array as element");
            }
            Type::Struct { members } => {
                let n = members.len();
                let Some(k) = members.iter().position(|m| is_rta(cx, m.ty)) else { continue };
                let name = cx.name(t.id);
                if k + 1 != n {
                    let m = format!(
                        "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] member {k} of {name} is a runtime array but not the last member: in Vulkan a runtime array is only the last member of a struct"
                    );
                    cx.error_at(RTA, i, 1 + k, m).label = String::from("a runtime array before the last member");
                } else if !t.is_block() && !t.is_buffer_block() {
                    let m = format!(
                        "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] {name} ends in a runtime array but is decorated neither Block nor BufferBlock"
                    );
                    let d = cx.error_at(RTA, i, 0, m);
                    d.label = String::from("needs Block or BufferBlock");
                    d.help = Some(format!("add `OpDecorate {name} Block` (a StorageBuffer variable) or BufferBlock (Uniform)"));
                }
            }
            _ => {}
        }
    }
    let descriptor_arrays = cx.declared().has_cap(crate::grammar::capability::RuntimeDescriptorArray);
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        if inst.opcode != op::OpVariable {
            continue;
        }
        let (Some(&pt), Some(&var), Some(&class)) = (inst.operands.first(), inst.operands.get(1), inst.operands.get(2)) else {
            continue;
        };
        let Some(Type::Pointer { pointee: Some(value), .. }) = ir.ty(pt).map(|t| &t.ty) else { continue };
        let value = *value;
        let Some(vt) = ir.ty(value) else { continue };
        let cn = OperandKind::StorageClass.enumerant(class).map_or("?", |e| e.name);
        match &vt.ty {
            Type::RuntimeArray { .. } => {
                let bad = if !descriptor_arrays {
                    Some(String::from("without the RuntimeDescriptorArray capability a variable cannot be a runtime array"))
                } else if !matches!(class, sc::StorageBuffer | sc::Uniform | sc::UniformConstant) {
                    Some(format!("a runtime array variable must be in the StorageBuffer, Uniform or UniformConstant storage class, not {cn}"))
                } else {
                    None
                };
                if let Some(why) = bad {
                    let name = cx.name(var);
                    let m = format!("[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] {name} is a runtime array: {why}");
                    cx.error_at(RTA, i, 0, m).label = String::from("a runtime array variable");
                }
            }
            Type::Struct { members } if members.iter().any(|m| is_rta(cx, m.ty)) => {
                let why = match class {
                    sc::StorageBuffer | sc::PhysicalStorageBuffer if !vt.is_block() => Some(format!(
                        "in the {cn} storage class it must be decorated Block"
                    )),
                    sc::StorageBuffer | sc::PhysicalStorageBuffer | sc::Uniform => None,
                    _ => Some(format!(
                        "it must be in the StorageBuffer, PhysicalStorageBuffer or Uniform storage class, not {cn}"
                    )),
                };
                if let Some(why) = why {
                    let (name, st) = (cx.name(var), cx.name(value));
                    let m = format!(
                        "[VUID-StandaloneSpirv-OpTypeRuntimeArray-04680] {name}'s struct type {st} holds a runtime array: {why}"
                    );
                    cx.error_at(RTA, i, 2, m).label = String::from("a struct with a runtime array");
                }
            }
            _ => {}
        }
    }
}
