//! The interface of entry points: what OpEntryPoint may list, by SPIR-V
//! version, and (Vulkan) the Location of user-defined inputs and outputs
//! (SPIR-V spec 3.42.6 OpEntryPoint, 2.16.1; Vulkan spec 15.1 "Shader Input
//! and Output Interfaces"; spirv-val's validate_interfaces and
//! CheckDecorationsOfEntryPoints in validate_decorations, v2025.5).

use super::Context;
use super::rules::Rule;
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

const NOT_VARIABLE: &str = "inst.interface.not-variable";
const RTA: &str = "inst.interface.runtime-array";



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
        if cx.opts.env.is_vulkan() {
            super::location::check_entry(cx, i, ep.model, &io);
        }
    }
    if cx.opts.env.is_vulkan() {
        runtime_arrays(cx);
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
