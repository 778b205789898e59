//! Bit instructions: shifts, bitwise operators, bit fields and counts (SPIR-V
//! spec 3.52.14 "Bit Instructions"; spirv-val's validate_bitwise).

use super::Context;
use super::operand::{Shape, bad_operand, bad_result, operand_type, shape};
use super::rules::Rule;
use super::walk::Lookups;
use super::family::{Check, Family, Instructions};
use crate::grammar::class::{self, OpClass};
use crate::grammar::op;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.bitwise.result-type",
        summary: "A bit instruction's Result Type must be an integer scalar or vector.",
        explanation: "SPIR-V spec 3.52.14: the shifts, OpBitwiseOr, OpBitwiseXor, OpBitwiseAnd, \
                      OpNot, OpBitFieldInsert, OpBitFieldSExtract, OpBitFieldUExtract, \
                      OpBitReverse and OpBitCount all produce integer scalars or vectors. Fix: \
                      operate on integers (OpBitcast a float first) or use OpLogical* for \
                      Booleans.",
    },
    Rule {
        code: "inst.bitwise.operand-type",
        summary: "A bit instruction's operands must be integers shaped like its Result Type.",
        explanation: "SPIR-V spec 3.52.14: Base and the operands of the bitwise operators are \
                      integer scalars or vectors with as many components as the Result Type and \
                      (for the shifts and bitwise operators) the same component width; a Shift has \
                      as many components; OpBitFieldInsert's Base and Insert and the extracts' \
                      Base have the Result Type, and Offset and Count are integer scalars. Fix: \
                      convert the operand or use the Result Type the operands have.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Typed(run), finish: None },
};

const RT: &str = "inst.bitwise.result-type";
const OT: &str = "inst.bitwise.operand-type";

/// Check instruction `i` (a bit instruction, see [`applies`]).
fn run(cx: &mut Context<'_>, i: usize, opcode: u16, rt: u32, _: &mut Lookups) {
    inst(cx, i, opcode, rt)
}

/// Whether this family checks `opcode`: the shifts, bitwise operators and
/// bit-field and bit-count instructions, by their class in the grammar's table.
pub(super) const fn applies(opcode: u16) -> bool {
    matches!(
        class::of(opcode),
        OpClass::Shift(_) | OpClass::Bitwise { .. } | OpClass::BitField(_) | OpClass::BitScan
    )
}

fn comps(s: &Shape) -> u32 {
    if s.vector { s.count } else { 1 }
}

fn like(r: &Shape, width: bool) -> String {
    let w = if width {
        format!("{}-bit ", r.width())
    } else {
        String::new()
    };
    if r.vector {
        format!("a vector of {} {w}ints, like the Result Type", r.count)
    } else {
        format!("a {w}int scalar, like the Result Type")
    }
}

fn inst(cx: &mut Context<'_>, i: usize, opcode: u16, rt: u32) {
    let Some(r) = shape(cx, rt).filter(|s| s.is_int()) else {
        return bad_result(cx, RT, i, "an int scalar or vector");
    };
    let n = cx.operands(i).len();
    let int = |cx: &Context<'_>, k: usize| operand_type(cx, i, k).and_then(|t| shape(cx, t)).filter(|s| s.is_int());
    let same_type = |cx: &mut Context<'_>, k: usize| {
        if operand_type(cx, i, k) != Some(rt) {
            let want = format!("of the Result Type {}", cx.name(rt));
            bad_operand(cx, OT, i, k, &want);
        }
    };
    let int_scalar = |cx: &mut Context<'_>, k: usize| {
        if int(cx, k).is_none_or(|s| s.vector) {
            bad_operand(cx, OT, i, k, "an int scalar");
        }
    };
    match opcode {
        op::OpShiftRightLogical | op::OpShiftRightArithmetic | op::OpShiftLeftLogical => {
            if !int(cx, 2).is_some_and(|s| comps(&s) == comps(&r) && s.width() == r.width()) {
                bad_operand(cx, OT, i, 2, &like(&r, true));
            }
            if int(cx, 3).is_none_or(|s| comps(&s) != comps(&r)) {
                bad_operand(cx, OT, i, 3, &like(&r, false));
            }
        }
        op::OpBitwiseOr | op::OpBitwiseXor | op::OpBitwiseAnd | op::OpNot => {
            for k in 2..n {
                if !int(cx, k).is_some_and(|s| comps(&s) == comps(&r) && s.width() == r.width()) {
                    bad_operand(cx, OT, i, k, &like(&r, true));
                }
            }
        }
        op::OpBitFieldInsert => {
            same_type(cx, 2);
            same_type(cx, 3);
            int_scalar(cx, 4);
            int_scalar(cx, 5);
        }
        op::OpBitFieldSExtract | op::OpBitFieldUExtract => {
            same_type(cx, 2);
            int_scalar(cx, 3);
            int_scalar(cx, 4);
        }
        op::OpBitReverse => same_type(cx, 2),
        op::OpBitCount
            if int(cx, 2).is_none_or(|s| comps(&s) != comps(&r)) => {
                bad_operand(cx, OT, i, 2, &like(&r, false));
            }
        _ => {}
    }
}
