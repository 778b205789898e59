//! Atomic instructions: the types of their results, pointers, values and
//! comparators (SPIR-V spec 3.52.18 "Atomic Instructions"; spirv-val's
//! validate_atomics). Scopes are checked with the common operands
//! (`types.rs`); untyped pointers are left to their extension's rules.

use super::Context;
use super::operand::{Num, bad_operand, bad_result, operand_type, shape};
use super::rules::Rule;
use crate::grammar::{capability, op};
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
        code: "inst.atomics.scope",
        summary: "With the Shader capability, a Scope operand must be an OpConstant.",
        explanation: "SPIR-V spec 2.16.1 (universal validation rules, for shaders): the Scope <id> \
                      of atomics and barriers must come from an OpConstant (or OpConstantNull); \
                      a spec constant, an OpUndef or a computed value cannot be a scope. Fix: use \
                      a constant such as `%device = OpConstant %uint 1`.",
    },
];

const RT: &str = "inst.atomics.result-type";
const PT: &str = "inst.atomics.pointer-type";
const VT: &str = "inst.atomics.value-type";

enum Want {
    Float,
    Int,
    IntOrFloat,
    Bool,
}

/// Check every atomic instruction.
/// The Scope operands of atomics and barriers: with the Shader capability
/// (and not CooperativeMatrixNV, as spirv-val) each 32-bit int scope must be
/// an OpConstant or OpConstantNull.
fn scopes(cx: &mut Context<'_>, i: usize, opcode: u16, shader: bool) {
    if !shader {
        return;
    }
    let ks: &[usize] = match opcode {
        op::OpControlBarrier => &[0, 1],
        op::OpMemoryBarrier => &[0],
        // The memory scope follows Pointer.
        _ if cx.ir().result_type(i).is_some() => &[3],
        _ => &[1],
    };
    for &k in ks {
        let Some(&id) = cx.operand_words(i, k).first() else { continue };
        let Some(t) = operand_type(cx, i, k) else { continue };
        if !matches!(cx.ir().ty(t).map(|t| &t.ty), Some(Type::Int { width: 32, .. })) {
            continue;
        }
        let def = cx.def_opcode(id);
        if matches!(def, Some(op::OpConstant | op::OpConstantNull) | None) {
            continue;
        }
        let what = def.and_then(crate::grammar::instruction).map_or("", |d| d.name);
        let name = cx.name(id);
        let opn = crate::grammar::instruction(opcode).map_or("", |d| d.name);
        let m = format!("{opn} Scope {name} is defined by {what}: with the Shader capability a scope must be an OpConstant");
        cx.error_at("inst.atomics.scope", i, k, m).label = "must be an OpConstant".into();
    }
}

pub(super) fn check(cx: &mut Context<'_>) {
    let mut f16_vectors: Option<bool> = None;
    // Declared capabilities with the ones they imply (as spirv-val's HasCapability).
    let declared = cx.declared();
    let shader = declared.caps.contains(&capability::Shader) && !declared.caps.contains(&capability::CooperativeMatrixNV);
    for i in 0..cx.insts().len() {
        let opcode = cx.insts()[i].opcode;
        if matches!(opcode, op::OpControlBarrier | op::OpMemoryBarrier) {
            scopes(cx, i, opcode, shader);
            continue;
        }
        let want = match opcode {
            op::OpAtomicFAddEXT | op::OpAtomicFMinEXT | op::OpAtomicFMaxEXT => Some(Want::Float),
            op::OpAtomicCompareExchange
            | op::OpAtomicCompareExchangeWeak
            | op::OpAtomicIIncrement
            | op::OpAtomicIDecrement
            | op::OpAtomicIAdd
            | op::OpAtomicISub
            | op::OpAtomicSMin
            | op::OpAtomicUMin
            | op::OpAtomicSMax
            | op::OpAtomicUMax
            | op::OpAtomicAnd
            | op::OpAtomicOr
            | op::OpAtomicXor => Some(Want::Int),
            op::OpAtomicLoad | op::OpAtomicExchange => Some(Want::IntOrFloat),
            op::OpAtomicFlagTestAndSet => Some(Want::Bool),
            op::OpAtomicStore | op::OpAtomicFlagClear => None,
            _ => continue,
        };
        scopes(cx, i, opcode, shader);
        let rt = cx.ir().result_type(i);
        if let (Some(want), Some(rt)) = (&want, rt) {
            let s = shape(cx, rt).filter(|s| !s.vector);
            let ok = match want {
                Want::Float => s.is_some_and(|s| s.is_float()),
                Want::Int => s.is_some_and(|s| s.is_int()),
                Want::IntOrFloat => s.is_some_and(|s| s.is_int() || s.is_float()),
                Want::Bool => s.is_some_and(|s| matches!(s.num, Num::Bool)),
            };
            if !ok {
                // Vectors of 16-bit floats are allowed with AtomicFloat16VectorNV.
                let vector = shape(cx, rt).is_some_and(|s| s.vector);
                let f16 = *f16_vectors.get_or_insert_with(|| cx.declares_capability(capability::AtomicFloat16VectorNV));
                if vector && f16 {
                    continue;
                }
                let expected = match want {
                    Want::Float => "a float scalar",
                    Want::Int => "an int scalar",
                    Want::IntOrFloat => "an int or float scalar",
                    Want::Bool => "a bool",
                };
                bad_result(cx, RT, i, expected);
                continue;
            }
        }
        let p = if want.is_some() { 2 } else { 0 };
        let pointee = match operand_type(cx, i, p).and_then(|t| cx.ir().ty(t)).map(|t| &t.ty) {
            Some(Type::Pointer { pointee: Some(e), .. }) => *e,
            Some(Type::Pointer { pointee: None, .. }) => continue,
            _ => {
                bad_operand(cx, PT, i, p, "a pointer");
                continue;
            }
        };
        let ps = shape(cx, pointee).filter(|s| !s.vector);
        match opcode {
            op::OpAtomicFlagTestAndSet | op::OpAtomicFlagClear => {
                if !ps.is_some_and(|s| s.is_int() && s.width() == 32) {
                    bad_operand(cx, PT, i, p, "a pointer to a 32-bit int");
                }
                continue;
            }
            op::OpAtomicStore => {
                if !ps.is_some_and(|s| s.is_int() || s.is_float()) {
                    bad_operand(cx, PT, i, p, "a pointer to an int or float scalar");
                } else if operand_type(cx, i, 3) != Some(pointee) {
                    let what = cx.name(pointee);
                    bad_operand(cx, VT, i, 3, &format!("of type {what}, the type Pointer points to"));
                }
                continue;
            }
            _ => {}
        }
        let Some(rt) = rt else { continue };
        if pointee != rt {
            let what = cx.name(rt);
            bad_operand(cx, PT, i, p, &format!("a pointer to {what}, the Result Type"));
            continue;
        }
        let operands = match opcode {
            op::OpAtomicLoad | op::OpAtomicIIncrement | op::OpAtomicIDecrement => &[][..],
            op::OpAtomicCompareExchange | op::OpAtomicCompareExchangeWeak => &[6, 7][..],
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
