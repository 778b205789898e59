//! Atomic instructions: the types of their results, pointers, values and
//! comparators (SPIR-V spec 3.52.18 "Atomic Instructions"; spirv-val's
//! validate_atomics). Their Memory scope and Memory Semantics are checked
//! with the barriers' (`scope.rs`; the synchronization walk hands atomics to [`run`]);
//! untyped pointers are left to their extension's rules.

use super::Context;
use super::operand::{self, bad_operand, bad_result, opname, operand_type, shape};
use super::rules::Rule;
use super::family::{Family, Instructions};
use super::scope;
use super::walk::Sync;
use crate::grammar::class::{self, Atomic, Num, OpClass};
use crate::grammar::{OperandKind, capability, op, storage_class as sc};
use crate::ir::Type;
use alloc::format;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.atomics.result-type",
        summary: "An atomic instruction's Result Type must be the scalar type the opcode works on.",
        explanation: "SPIR-V spec 3.52.18: the integer atomics (OpAtomicIAdd, OpAtomicISub, the \
                      min/max, and/or/xor, increment/decrement and compare-exchange) return an \
                      integer scalar; OpAtomicFAddEXT, OpAtomicFMinEXT and OpAtomicFMaxEXT a float \
                      scalar; OpAtomicLoad and OpAtomicExchange an integer or float scalar; \
                      OpAtomicFlagTestAndSet a bool. Fix: use the scalar type the memory holds.",
    },
    Rule {
        code: "inst.atomics.pointer-type",
        summary: "An atomic instruction's Pointer must point to a value of its Result Type.",
        explanation: "SPIR-V spec 3.52.18: Pointer is a pointer whose pointee type is the Result \
                      Type (for OpAtomicStore an integer or float scalar; for the atomic flags a \
                      32-bit integer). Fix: pass a pointer to the scalar, e.g. an access chain \
                      to the member, not to the whole structure.",
    },
    Rule {
        code: "inst.atomics.value-type",
        summary: "An atomic instruction's Value and Comparator must have its Result Type.",
        explanation: "SPIR-V spec 3.52.18: Value (and OpAtomicCompareExchange's Comparator) must \
                      have the same type as Result Type; OpAtomicStore's Value the type Pointer \
                      points to. Fix: convert the value (OpBitcast, OpConvert*) first.",
    },
    Rule {
        code: "inst.atomics.storage-class",
        summary: "An atomic instruction's Pointer must point into a storage class that allows atomics.",
        explanation: "SPIR-V spec 2.16.1 (universal validation rules): atomics work on Uniform, \
                      StorageBuffer, Workgroup, CrossWorkgroup, Generic, AtomicCounter, Image, \
                      Function, PhysicalStorageBuffer or TaskPayloadWorkgroupEXT memory; with the \
                      Shader capability not on Function memory, and in Vulkan only on Uniform, \
                      StorageBuffer, Workgroup, Image, PhysicalStorageBuffer and \
                      TaskPayloadWorkgroupEXT memory (VUID-StandaloneSpirv-None-04686). The OpenCL \
                      environment allows Function, Workgroup, CrossWorkgroup and Generic (not \
                      Generic in OpenCL 1.2). Fix: put the value in a buffer or in Workgroup memory.",
    },
    Rule {
        code: "inst.atomics.capability",
        summary: "64-bit and floating-point atomics need the capability for their width.",
        explanation: "SPIR-V spec 3.52.18 and the extensions that add float atomics: atomics on \
                      64-bit integers need Int64Atomics; with the Shader capability, \
                      OpAtomicFAddEXT needs AtomicFloat16AddEXT, AtomicFloat32AddEXT or \
                      AtomicFloat64AddEXT for its width, OpAtomicFMinEXT and OpAtomicFMaxEXT \
                      AtomicFloat16MinMaxEXT, AtomicFloat32MinMaxEXT or AtomicFloat64MinMaxEXT, \
                      and vectors of 16-bit floats AtomicFloat16VectorNV. Fix: declare the \
                      capability (and its extension).",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Sync { takes: applies, check: run, finish: None },
};

const RT: &str = "inst.atomics.result-type";
const SC: &str = "inst.atomics.storage-class";
const CAP: &str = "inst.atomics.capability";
const PT: &str = "inst.atomics.pointer-type";
const VT: &str = "inst.atomics.value-type";

enum Want {
    Float,
    Int,
    IntOrFloat,
    Bool,
}

/// Whether `opcode` is an atomic instruction (spirv-val's spvOpcodeIsAtomicOp).
#[inline]
pub(super) const fn applies(opcode: u16) -> bool {
    class::of(opcode).is_atomic()
}

/// What atomic instruction `opcode` does (see [`applies`]).
fn what(opcode: u16) -> Option<Atomic> {
    match class::of(opcode) {
        OpClass::Atomic(a) => Some(a),
        _ => None,
    }
}

/// Check atomic instruction `i` (see [`applies`]): its scope and semantics
/// (`scope.rs`), then its types.
fn run(cx: &mut Context<'_>, s: &mut Sync, i: usize, opcode: u16) {
    let Some(atomic) = what(opcode) else { return };
    let want = match atomic {
        Atomic::Modify { num: Num::Float, .. } => Some(Want::Float),
        Atomic::Load | Atomic::Exchange => Some(Want::IntOrFloat),
        Atomic::FlagTestAndSet => Some(Want::Bool),
        Atomic::Store | Atomic::FlagClear => None,
        Atomic::CompareExchange | Atomic::Modify { .. } => Some(Want::Int),
    };
    // Pointer, Memory scope, Semantics (Equal, Unequal), after the result.
    let at = if want.is_some() { 2 } else { 0 };
    scope::memory(cx, s, i, at + 1);
    scope::semantics(cx, s, i, at + 2, at + 1);
    if atomic == Atomic::CompareExchange {
        scope::semantics(cx, s, i, at + 3, at + 1);
    }
    {
        let rt = cx.ir().result_type(i);
        if let (Some(want), Some(rt)) = (&want, rt) {
            let sh = shape(cx, rt).filter(|s| !s.vector);
            let ok = match want {
                Want::Float => sh.is_some_and(|s| s.is_float()),
                Want::Int => sh.is_some_and(|s| s.is_int()),
                Want::IntOrFloat => sh.is_some_and(|s| s.is_int() || s.is_float()),
                Want::Bool => sh.is_some_and(|s| matches!(s.num, operand::Num::Bool)),
            };
            if !ok {
                // Vectors of 16-bit floats are allowed with AtomicFloat16VectorNV.
                let vector = shape(cx, rt).is_some_and(|s| s.vector);
                if vector && s.f16_vectors {
                    return;
                }
                let expected = match want {
                    Want::Float => "a float scalar",
                    Want::Int => "an int scalar",
                    Want::IntOrFloat => "an int or float scalar",
                    Want::Bool => "a bool",
                };
                bad_result(cx, RT, i, expected);
                return;
            }
        }
        let p = if want.is_some() { 2 } else { 0 };
        let (pointee, storage) = match operand_type(cx, i, p).and_then(|t| cx.ir().ty(t)).map(|t| &t.ty) {
            Some(Type::Pointer { pointee: Some(e), storage }) => (*e, *storage),
            Some(Type::Pointer { pointee: None, .. }) => return,
            _ => {
                bad_operand(cx, PT, i, p, "a pointer");
                return;
            }
        };
        let ps = shape(cx, pointee).filter(|s| !s.vector);
        memory(cx, s, i, p, opcode, pointee, storage);
        match atomic {
            Atomic::FlagTestAndSet | Atomic::FlagClear => {
                if !ps.is_some_and(|s| s.is_int() && s.width() == 32) {
                    bad_operand(cx, PT, i, p, "a pointer to a 32-bit int");
                }
                return;
            }
            Atomic::Store => {
                if !ps.is_some_and(|s| s.is_int() || s.is_float()) {
                    bad_operand(cx, PT, i, p, "a pointer to an int or float scalar");
                } else if operand_type(cx, i, 3) != Some(pointee) {
                    let what = cx.name(pointee);
                    bad_operand(cx, VT, i, 3, &format!("of type {what}, the type Pointer points to"));
                }
                return;
            }
            _ => {}
        }
        let Some(rt) = rt else { return };
        if pointee != rt {
            let what = cx.name(rt);
            bad_operand(cx, PT, i, p, &format!("a pointer to {what}, the Result Type"));
            return;
        }
        let operands = match atomic {
            Atomic::Load | Atomic::Modify { value: false, .. } => &[][..],
            Atomic::CompareExchange => &[6, 7][..],
            _ => &[5][..],
        };
        for &k in operands {
            if k < cx.operands(i).len() && operand_type(cx, i, k) != Some(rt) {
                let what = cx.name(rt);
                bad_operand(cx, VT, i, k, &format!("of type {what}, the Result Type"));
            }
        }
    }
}

/// The memory an atomic works on: the capability its type needs and the
/// storage classes allowed (spirv-val's order: 64-bit, universal, Shader and
/// Vulkan, float widths, OpenCL).
fn memory(cx: &mut Context<'_>, s: &Sync, i: usize, p: usize, opcode: u16, pointee: u32, storage: u32) {
    let declared = cx.declared();
    let has = |c: u32| declared.caps.contains(&c);
    let data = shape(cx, pointee);
    if data.is_some_and(|d| d.is_int() && !d.vector && d.width() == 64) && !has(capability::Int64Atomics) {
        let opn = opname(cx, i);
        let m = format!("{opn} on a 64-bit integer needs the Int64Atomics capability");
        cx.error_at(CAP, i, p, m).label = "points to a 64-bit integer".into();
    }
    let universal = matches!(
        storage,
        sc::Uniform
            | sc::StorageBuffer
            | sc::Workgroup
            | sc::CrossWorkgroup
            | sc::Generic
            | sc::AtomicCounter
            | sc::Image
            | sc::Function
            | sc::PhysicalStorageBuffer
            | sc::TaskPayloadWorkgroupEXT
    );
    let env = cx.opts.env;
    let bad = if !universal {
        Some("atomics are not allowed on it by the universal validation rules")
    } else if s.shader_cap() && env.is_vulkan() {
        (!matches!(
            storage,
            sc::Uniform | sc::StorageBuffer | sc::Workgroup | sc::Image | sc::PhysicalStorageBuffer | sc::TaskPayloadWorkgroupEXT
        ))
        .then_some("[VUID-StandaloneSpirv-None-04686] in Vulkan, atomics are allowed only on Uniform, Workgroup, Image, StorageBuffer, PhysicalStorageBuffer and TaskPayloadWorkgroupEXT memory")
    } else if s.shader_cap() && storage == sc::Function {
        Some("atomics on Function memory are not allowed with the Shader capability")
    } else {
        None
    };
    let wrong_memory = |cx: &mut Context<'_>, why: &str| {
        let sc_name = OperandKind::StorageClass.enumerant(storage).map_or("?", |e| e.name);
        let opn = opname(cx, i);
        let m = format!("{opn} Pointer points into {sc_name} memory: {why}");
        cx.error_at(SC, i, p, m).label = format!("points into {sc_name} memory");
    };
    if let Some(why) = bad {
        wrong_memory(cx, why);
    }
    if s.shader_cap() && matches!(what(opcode), Some(Atomic::Modify { num: Num::Float, .. })) {
        let r = cx.ir().result_type(i).and_then(|t| shape(cx, t));
        let add = opcode == op::OpAtomicFAddEXT;
        let need = match r.map(|r| (r.width(), r.vector && r.is_float() && matches!(r.count, 2 | 4))) {
            Some((16, true)) => Some(capability::AtomicFloat16VectorNV),
            Some((16, false)) => Some(if add { capability::AtomicFloat16AddEXT } else { capability::AtomicFloat16MinMaxEXT }),
            Some((32, _)) => Some(if add { capability::AtomicFloat32AddEXT } else { capability::AtomicFloat32MinMaxEXT }),
            Some((64, _)) => Some(if add { capability::AtomicFloat64AddEXT } else { capability::AtomicFloat64MinMaxEXT }),
            _ => None,
        };
        if let Some(c) = need.filter(|&c| !has(c)) {
            let opn = opname(cx, i);
            let cname = OperandKind::Capability.enumerant(c).map_or("?", |e| e.name);
            let m = format!("{opn} on this type needs the {cname} capability");
            cx.error_at(CAP, i, 0, m).label = format!("needs {cname}");
        }
    }
    if env.is_opencl() {
        let why = if !matches!(storage, sc::Function | sc::Workgroup | sc::CrossWorkgroup | sc::Generic) {
            Some("in OpenCL, atomics are allowed only on Function, Workgroup, CrossWorkgroup and Generic memory")
        } else if env == crate::TargetEnv::OpenCl1_2 && storage == sc::Generic {
            Some("OpenCL 1.2 has no Generic storage class")
        } else {
            None
        };
        if let Some(why) = why {
            wrong_memory(cx, why);
        }
    }
}
