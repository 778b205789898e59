//! Conversion instructions: what each converts from and to (SPIR-V spec
//! 3.52.11 "Conversion Instructions"; spirv-val's validate_conversion).
//! Cooperative matrix and vector conversions are left to their own rules.

use super::Context;
use super::operand::{Shape, bad_operand, bad_result, known, operand_type, shape};
use super::rules::Rule;
use super::walk::Lookups;
use super::family::{Check, Family, Instructions};
use crate::grammar::class::{self, OpClass};
use crate::grammar::op;
use crate::ir::Type;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.conversion.result-type",
        summary: "A conversion's Result Type must be of the kind it converts to.",
        explanation: "SPIR-V spec 3.52.11: OpConvertFToU and OpUConvert give unsigned integer \
                      scalars or vectors; OpConvertFToS and OpSConvert integer scalars or vectors; \
                      OpConvertSToF, OpConvertUToF and OpFConvert floating-point scalars or \
                      vectors; OpQuantizeToF16 a 32-bit float scalar or vector; OpBitcast a \
                      pointer or a numerical scalar or vector; OpConvertPtrToU an unsigned integer \
                      scalar. Fix: give the result the type the conversion produces, or use the \
                      conversion that produces the type you want.",
    },
    Rule {
        code: "inst.conversion.operand-type",
        summary: "A conversion's operand must be of the kind it converts from, with the Result Type's component count.",
        explanation: "SPIR-V spec 3.52.11: OpConvertFToU, OpConvertFToS and OpFConvert convert \
                      from floating point, OpConvertSToF, OpConvertUToF, OpUConvert and OpSConvert \
                      from integers; the operand has as many components as the Result Type; \
                      OpUConvert, OpSConvert and OpFConvert change the component width (the same \
                      width is not a conversion); OpQuantizeToF16's operand has the Result Type; \
                      OpBitcast keeps the total number of bits. Fix: convert from the operand's \
                      actual kind (OpConvertUToF for an unsigned integer) or use OpCopyObject when \
                      nothing changes.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Typed(run), finish: None },
};

const RT: &str = "inst.conversion.result-type";
const OT: &str = "inst.conversion.operand-type";

#[derive(Clone, Copy, PartialEq)]
enum From {
    Float,
    Int,
}

/// Check instruction `i` (a conversion, see [`applies`]).
fn run(cx: &mut Context<'_>, i: usize, opcode: u16, rt: u32, l: &mut Lookups) {
    // An operand of an unknown kind (a cooperative matrix) is left alone too.
    if operand_type(cx, i, 2).is_none_or(|t| known(cx, t)) {
        inst(cx, i, opcode, rt, &mut l.psb);
    }
}

/// Whether this family checks `opcode`: the numeric conversions and OpBitcast
/// (by their class in the grammar's table) and OpQuantizeToF16.
pub(super) const fn applies(opcode: u16) -> bool {
    opcode == op::OpQuantizeToF16 || matches!(class::of(opcode), OpClass::Convert { .. } | OpClass::Bitcast)
}

fn comps(s: &Shape) -> u32 {
    if s.vector { s.count } else { 1 }
}

fn inst(cx: &mut Context<'_>, i: usize, opcode: u16, rt: u32, psb: &mut Option<bool>) {
    let r = shape(cx, rt);
    let input = operand_type(cx, i, 2).and_then(|t| shape(cx, t));
    let (to_ok, to, from, width_changes) = match opcode {
        op::OpConvertFToU => (
            r.is_some_and(|s| s.is_uint()),
            "an unsigned int scalar or vector",
            From::Float,
            false,
        ),
        op::OpConvertFToS => (
            r.is_some_and(|s| s.is_int()),
            "an int scalar or vector",
            From::Float,
            false,
        ),
        op::OpConvertSToF | op::OpConvertUToF => (
            r.is_some_and(|s| s.is_float()),
            "a float scalar or vector",
            From::Int,
            false,
        ),
        op::OpUConvert => (
            r.is_some_and(|s| s.is_uint()),
            "an unsigned int scalar or vector",
            From::Int,
            true,
        ),
        op::OpSConvert => (
            r.is_some_and(|s| s.is_int()),
            "an int scalar or vector",
            From::Int,
            true,
        ),
        op::OpFConvert => (
            r.is_some_and(|s| s.is_float()),
            "a float scalar or vector",
            From::Float,
            true,
        ),
        op::OpQuantizeToF16 => {
            if !r.is_some_and(|s| s.is_float() && s.width() == 32) {
                return bad_result(cx, RT, i, "a 32-bit float scalar or vector");
            }
            if operand_type(cx, i, 2) != Some(rt) {
                let want = format!("of the Result Type {}", cx.name(rt));
                bad_operand(cx, OT, i, 2, &want);
            }
            return;
        }
        _ => return bitcast(cx, i, rt, psb),
    };
    if !to_ok {
        return bad_result(cx, RT, i, to);
    }
    let r = r.unwrap_or_else(|| unreachable!());
    let from_ok = input.is_some_and(|s| match from {
        From::Float => s.is_float(),
        From::Int => s.is_int(),
    });
    let Some(s) = input.filter(|_| from_ok) else {
        let want = if from == From::Float {
            "a float scalar or vector"
        } else {
            "an int scalar or vector"
        };
        return bad_operand(cx, OT, i, 2, want);
    };
    if comps(&s) != comps(&r) {
        let want = if r.vector {
            format!("a vector of {} components, like the Result Type", r.count)
        } else {
            String::from("a scalar, like the Result Type")
        };
        return bad_operand(cx, OT, i, 2, &want);
    }
    if width_changes {
        let same = if opcode == op::OpFConvert {
            s.component == r.component
        } else {
            s.width() == r.width()
        };
        if same {
            let want = format!("of another component width than the Result Type's {} bits", r.width());
            bad_operand(cx, OT, i, 2, &want);
        }
    }
}

/// The total bits of a numerical scalar or vector.
fn bits(s: &Shape) -> u32 {
    s.width() * comps(s)
}

/// `psb`: whether SPV_KHR_physical_storage_buffer is declared (looked up on
/// first use).
fn bitcast(cx: &mut Context<'_>, i: usize, rt: u32, psb: &mut Option<bool>) {
    let is_ptr = |cx: &Context<'_>, t: u32| matches!(cx.ir().ty(t).map(|d| &d.ty), Some(Type::Pointer { .. }));
    let numeric = |s: Option<Shape>| s.filter(|s| s.is_int() || s.is_float());
    let r = numeric(shape(cx, rt));
    let r_ptr = is_ptr(cx, rt);
    if r.is_none() && !r_ptr {
        return bad_result(cx, RT, i, "a pointer or an int or float scalar or vector");
    }
    let Some(it) = operand_type(cx, i, 2) else {
        return bad_operand(cx, OT, i, 2, "a pointer or an int or float scalar or vector");
    };
    let s = numeric(shape(cx, it));
    let s_ptr = is_ptr(cx, it);
    if s.is_none() && !s_ptr {
        return bad_operand(cx, OT, i, 2, "a pointer or an int or float scalar or vector");
    }
    // Pointers convert to and from pointers and int scalars; from SPIR-V 1.5
    // (or with SPV_KHR_physical_storage_buffer) also 32-bit int vectors.
    let int_scalar = |s: &Option<Shape>| s.is_some_and(|s| s.is_int() && !s.vector);
    let int32_vector = |s: &Option<Shape>| s.is_some_and(|s| s.is_int() && s.vector && s.width() == 32);
    let wide = cx.version >= (1, 5)
        || *psb.get_or_insert_with(|| cx.declared().has_ext("SPV_KHR_physical_storage_buffer"));
    let fits = |x: &Option<Shape>| int_scalar(x) || (wide && int32_vector(x));
    let also = if wide {
        ", an int scalar or a 32-bit int vector"
    } else {
        " or an int scalar"
    };
    if r_ptr && !s_ptr && !fits(&s) {
        return bad_operand(cx, OT, i, 2, &format!("a pointer{also} (the Result Type is a pointer)"));
    }
    if s_ptr && !r_ptr && !fits(&r) {
        return bad_result(cx, RT, i, &format!("a pointer{also} (the operand is a pointer)"));
    }
    if let (Some(r), Some(s)) = (r, s)
        && bits(&r) != bits(&s)
    {
        let want = format!("of {} bits in all, like the Result Type", bits(&r));
        bad_operand(cx, OT, i, 2, &want);
    }
}
