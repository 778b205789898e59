//! The interface of entry points: what OpEntryPoint may list, by SPIR-V
//! version, and (Vulkan) the Location of user-defined inputs and outputs
//! (SPIR-V spec 3.42.6 OpEntryPoint, 2.16.1; Vulkan spec 15.1 "Shader Input
//! and Output Interfaces"; spirv-val's validate_interfaces and
//! CheckDecorationsOfEntryPoints in validate_decorations, v2025.5).

use super::Context;
use super::rules::Rule;
use crate::grammar::{
    OperandKind, decoration as dec, execution_model as em, op, storage_class as sc,
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
];

const NOT_VARIABLE: &str = "inst.interface.not-variable";
const LOCATION: &str = "inst.interface.location";



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
            locations(cx, i, ep.model, &io);
        }
    }
}

/// Vulkan: the user-defined Input/Output variables of the stages with
/// locations need a Location (or a Block struct type).
fn locations(cx: &mut Context<'_>, i: usize, model: u32, io: &[(u32, usize, u32)]) {
    if !matches!(
        model,
        em::Vertex
            | em::TessellationControl
            | em::TessellationEvaluation
            | em::Geometry
            | em::Fragment
    ) {
        return;
    }
    let ir = cx.ir();
    for &(var, k, class) in io {
        let output = class == sc::Output;
        let decs = ir.decorations_of(var);
        let own = |d: u32| decs.iter().any(|x| x.member.is_none() && x.decoration == d);
        if own(dec::BuiltIn) {
            continue;
        }
        if own(dec::Index) && !(output && model == em::Fragment) {
            let name = cx.name(var);
            let m = format!(
                "{name} is decorated with Index: Index only applies to fragment shader outputs"
            );
            cx.error_at(LOCATION, i, k, m).label =
                String::from("Index on a variable that is not a fragment output");
            continue;
        }
        if own(dec::PerVertexKHR) {
            continue; // its own rules, not written here
        }
        let has_location = own(dec::Location);
        let patch = own(dec::Patch);
        let Some(mut ty) = ir.global(var).and_then(|v| v.pointee) else {
            continue;
        };
        let arrayed = match model {
            em::TessellationControl => !patch,
            em::TessellationEvaluation => !output && !patch,
            em::Geometry => !output,
            _ => false,
        };
        if arrayed
            && let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) =
                ir.ty(ty).map(|t| &t.ty)
        {
            ty = *element;
        }
        let Some(t) = ir.ty(ty) else { continue };
        let is_struct = matches!(t.ty, Type::Struct { .. });
        if is_struct
            && ir
                .decorations_of(ty)
                .iter()
                .any(|d| d.decoration == dec::BuiltIn)
        {
            continue;
        }
        let block = ir
            .decorations_of(ty)
            .iter()
            .any(|d| d.decoration == dec::Block);
        if !has_location && !block {
            let name = cx.name(var);
            let dir = if output { "output" } else { "input" };
            let vuid = if is_struct { "04917" } else { "04916" };
            let m = format!(
                "[VUID-StandaloneSpirv-Location-{vuid}] the {dir} variable {name} has no Location decoration (nor a Block struct type)"
            );
            let d = cx.error_at(LOCATION, i, k, m);
            d.label = String::from("needs a Location");
            d.help = Some(format!("add `OpDecorate {name} Location 0`"));
        }
    }
}
