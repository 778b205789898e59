//! The constant instructions: the types of OpConstantTrue/False,
//! OpConstantComposite, OpConstantNull, OpSpecConstant and the operations
//! OpSpecConstantOp may use (SPIR-V 3.49.7 "Constant-Creation Instructions";
//! SPIRV-Tools validate_constants). OpConstant's literal is checked against its
//! type by the assembler and the binary reader.

use super::Context;
use super::memory::{describe, describe_value, op_name};
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{capability, op, storage_class};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.constant.bool-type",
        summary: "OpConstantTrue and OpConstantFalse (and their spec forms) must have a Boolean Result Type.",
        explanation: "SPIR-V 3.49.7 OpConstantTrue: \"Declare a true Boolean-type scalar constant. \
                      Result Type must be the scalar Boolean type.\" The same holds for \
                      OpConstantFalse, OpSpecConstantTrue and OpSpecConstantFalse.",
    },
    Rule {
        code: "inst.constant.composite",
        summary: "OpConstantComposite's constituents must match the Result Type's members, in number and type.",
        explanation: "SPIR-V 3.49.7 OpConstantComposite: \"Result Type must be a composite type, \
                      whose top-level members/elements/components/columns have the same type as \
                      the types of the Constituents. The ordering must be the same between the \
                      top-level types in Result Type and the Constituents.\" There is one \
                      constituent per member, element, column or component (a vector is not \
                      built from smaller vectors here, unlike OpCompositeConstruct).",
    },
    Rule {
        code: "inst.constant.null-type",
        summary: "OpConstantNull's Result Type must be a type that has a null value.",
        explanation: "SPIR-V 2.2.2 defines the null value of scalars, vectors, matrices, arrays, \
                      structures and pointers (and some OpenCL types); images, samplers, runtime \
                      arrays, void, functions and pointers into PhysicalStorageBuffer have none, \
                      and neither does a composite containing one.",
    },
    Rule {
        code: "inst.constant.spec-type",
        summary: "OpSpecConstant must have an integer or floating-point Result Type.",
        explanation: "SPIR-V 3.49.7 OpSpecConstant: \"Declare a new integer-type or \
                      floating-point-type scalar specialization constant. Result Type must be a \
                      scalar integer type or floating-point type.\" Boolean spec constants use \
                      OpSpecConstantTrue/False.",
    },
    Rule {
        code: "inst.constant.spec-op",
        summary: "Some OpSpecConstantOp operations need the Kernel (or Shader) capability.",
        explanation: "SPIR-V 3.49.7 OpSpecConstantOp lists the opcodes it allows; the conversions \
                      between floats and integers, the floating-point arithmetic, Bitcast of \
                      pointers and the access chains are allowed only with the Kernel capability, \
                      OpQuantizeToF16 only with Shader, and OpUConvert before SPIR-V 1.4 only \
                      with Kernel.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

fn ty<'a>(cx: &Context<'a>, id: u32) -> Option<&'a Type> {
    cx.ir().ty(id).map(|t| &t.ty)
}

pub(super) fn check(cx: &mut Context<'_>) {
    let insts = cx.insts();
    // Declared with the ones they imply, as spirv-val's HasCapability.
    let declared = cx.declared();
    let (kernel, shader) = (declared.has_cap(capability::Kernel), declared.has_cap(capability::Shader));
    let uconvert = cx.version >= (1, 4) || kernel
        || insts.iter().any(|x| {
            x.opcode == op::OpExtension
                && crate::binary::parse::decode_string(&x.operands) == "SPV_AMD_gpu_shader_int16"
        });
    for (i, inst) in insts.iter().enumerate() {
        let w = inst.operands.as_slice();
        match inst.opcode {
            op::OpConstantTrue | op::OpConstantFalse | op::OpSpecConstantTrue | op::OpSpecConstantFalse => {
                let Some(&rt) = w.first() else { continue };
                if !matches!(ty(cx, rt), Some(Type::Bool)) {
                    let r = describe(cx, rt);
                    let name = op_name(cx.insts()[i].opcode);
                    let d = cx.error_at("inst.constant.bool-type", i, 0, format!("{name}'s Result Type must be OpTypeBool, but it is {r}"));
                    d.label = String::from("expected a bool type");
                }
            }
            op::OpConstantComposite | op::OpSpecConstantComposite => composite(cx, i, w),
            op::OpConstantNull => {
                let Some(&rt) = w.first() else { continue };
                if !nullable(cx, rt, 0) {
                    let r = describe(cx, rt);
                    let d = cx.error_at("inst.constant.null-type", i, 0, format!("OpConstantNull's Result Type {r} has no null value"));
                    d.label = String::from("a type without a null value");
                }
            }
            op::OpSpecConstant => {
                let Some(&rt) = w.first() else { continue };
                if !matches!(ty(cx, rt), Some(Type::Int { .. } | Type::Float { .. })) {
                    let r = describe(cx, rt);
                    let d = cx.error_at("inst.constant.spec-type", i, 0, format!("OpSpecConstant's Result Type must be an integer or float scalar, but it is {r}"));
                    d.label = String::from("expected an int or float type");
                }
            }
            op::OpSpecConstantOp => {
                let Some(&opc) = w.get(2) else { continue };
                let opc = opc as u16;
                let need = match opc {
                    op::OpQuantizeToF16 if !shader => Some("Shader"),
                    op::OpUConvert if !uconvert => Some("Kernel (before SPIR-V 1.4)"),
                    op::OpConvertFToS
                    | op::OpConvertSToF
                    | op::OpConvertFToU
                    | op::OpConvertUToF
                    | op::OpConvertPtrToU
                    | op::OpConvertUToPtr
                    | op::OpGenericCastToPtr
                    | op::OpPtrCastToGeneric
                    | op::OpBitcast
                    | op::OpFNegate
                    | op::OpFAdd
                    | op::OpFSub
                    | op::OpFMul
                    | op::OpFDiv
                    | op::OpFRem
                    | op::OpFMod
                    | op::OpAccessChain
                    | op::OpInBoundsAccessChain
                    | op::OpPtrAccessChain
                    | op::OpInBoundsPtrAccessChain
                    | op::OpUntypedAccessChainKHR
                    | op::OpUntypedInBoundsAccessChainKHR
                    | op::OpUntypedPtrAccessChainKHR
                    | op::OpUntypedInBoundsPtrAccessChainKHR
                        if !kernel =>
                    {
                        Some("Kernel")
                    }
                    _ => None,
                };
                if let Some(cap) = need {
                    let name = op_name(opc);
                    let d = cx.error_at(
                        "inst.constant.spec-op",
                        i,
                        2,
                        format!("OpSpecConstantOp's operation {name} requires the {cap} capability"),
                    );
                    d.label = format!("needs {cap}");
                }
            }
            _ => {}
        }
    }
}

/// Whether type `id` has a null value (spirv-val's IsTypeNullable).
fn nullable(cx: &Context<'_>, id: u32, depth: u32) -> bool {
    if depth > 64 {
        return true;
    }
    let Some(inst) = cx.def_inst(id) else { return false };
    match inst.opcode {
        op::OpTypeBool | op::OpTypeInt | op::OpTypeFloat | op::OpTypeEvent | op::OpTypeDeviceEvent | op::OpTypeReserveId | op::OpTypeQueue => true,
        op::OpTypeArray
        | op::OpTypeMatrix
        | op::OpTypeCooperativeMatrixNV
        | op::OpTypeCooperativeMatrixKHR
        | op::OpTypeVectorIdEXT
        | op::OpTypeVector => inst.operands.get(1).is_some_and(|&e| nullable(cx, e, depth + 1)),
        op::OpTypeStruct => inst.operands[1..].iter().all(|&m| nullable(cx, m, depth + 1)),
        op::OpTypePointer | op::OpTypeUntypedPointerKHR => inst.operands.get(1) != Some(&storage_class::PhysicalStorageBuffer),
        op::OpTypeTensorARM => inst.operands.len() > 3 && inst.operands.get(1).is_some_and(|&e| nullable(cx, e, depth + 1)),
        _ => false,
    }
}

fn composite(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, parts @ ..] = w else { return };
    let name = op_name(cx.insts()[i].opcode);
    let Some(t) = ty(cx, *rt) else { return };
    // What each constituent must be: an exact type, or (matrix columns) a
    // vector of a component type and count.
    enum Want {
        Exact(u32),
        Column { component: u32, count: u32 },
    }
    // A count from the module (a bad one may be huge): compared with the
    // constituents before anything is built from it.
    let mismatch = |cx: &mut Context<'_>, n: u32| {
        let bad = n as usize != parts.len();
        if bad {
            count_mismatch(cx, i, name, *rt, parts.len(), n as usize);
        }
        bad
    };
    let wants: Vec<Want> = match t {
        Type::Vector { component, count } => {
            let (component, count) = (*component, *count);
            if mismatch(cx, count) {
                return;
            }
            (0..count).map(|_| Want::Exact(component)).collect()
        }
        Type::Matrix { column, columns } => {
            let columns = *columns;
            let Some(&Type::Vector { component, count }) = ty(cx, *column) else { return };
            if mismatch(cx, columns) {
                return;
            }
            (0..columns).map(|_| Want::Column { component, count }).collect()
        }
        Type::Array { element, length, .. } => {
            let e = *element;
            let n = cx.def_inst(*length).filter(|x| x.opcode == op::OpConstant).and_then(|x| {
                match ty(cx, x.operands[0]) {
                    Some(Type::Int { width: 32, .. }) => x.operands.get(2).copied(),
                    _ => None,
                }
            });
            match n {
                Some(n) if n as usize == parts.len() => (0..n).map(|_| Want::Exact(e)).collect(),
                Some(n) => {
                    count_mismatch(cx, i, name, *rt, parts.len(), n as usize);
                    return;
                }
                None => parts.iter().map(|_| Want::Exact(e)).collect(),
            }
        }
        Type::Struct { members } => members.iter().map(|m| Want::Exact(m.ty)).collect(),
        Type::Other { .. } | Type::Opaque { .. } => return,
        _ => {
            let r = describe(cx, *rt);
            let d = cx.error_at("inst.constant.composite", i, 0, format!("{name}'s Result Type must be a composite type, but it is {r}"));
            d.label = String::from("expected a vector, matrix, array or struct");
            return;
        }
    };
    if wants.len() != parts.len() {
        count_mismatch(cx, i, name, *rt, parts.len(), wants.len());
        return;
    }
    for (n, (&p, want)) in parts.iter().zip(&wants).enumerate() {
        let pt = cx.type_of(p);
        let (ok, expected) = match *want {
            Want::Exact(e) => (pt == Some(e), cx.name(e)),
            Want::Column { component, count } => {
                let ok = matches!(pt.and_then(|t| ty(cx, t)), Some(&Type::Vector { component: c, count: m }) if c == component && m == count);
                let c = cx.name(component);
                (ok, format!("a vector of {count} {c}"))
            }
        };
        if !ok {
            let v = describe_value(cx, p);
            let d = cx.error_at(
                "inst.constant.composite",
                i,
                2 + n,
                format!("{name}'s constituent {v} does not match the Result Type's member, {expected}"),
            );
            d.label = format!("expected {expected}");
        }
    }
}

fn count_mismatch(cx: &mut Context<'_>, i: usize, name: &str, rt: u32, given: usize, want: usize) {
    let r = describe(cx, rt);
    let d = cx.error_at(
        "inst.constant.composite",
        i,
        0,
        format!("{name} has {given} constituents, but its Result Type {r} has {want}"),
    );
    d.label = format!("expected {want} constituents");
}
