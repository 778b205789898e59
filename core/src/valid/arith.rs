//! Arithmetic instructions: the types of their results and operands (SPIR-V
//! spec 3.52.13 "Arithmetic Instructions"; spirv-val's validate_arithmetics).
//! Cooperative matrix and vector results are left to their own rules.

use super::Context;
use super::operand::{bad_operand, bad_result, count, operand_type, shape};
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
        code: "inst.arith.result-type",
        summary: "An arithmetic instruction's Result Type must be of the kind the opcode computes.",
        explanation: "SPIR-V spec 3.52.13: OpFAdd, OpFSub, OpFMul, OpFDiv, OpFRem, OpFMod and \
                      OpFNegate need a floating-point scalar or vector Result Type; OpIAdd, OpISub, \
                      OpIMul, OpSDiv, OpSRem, OpSMod and OpSNegate an integer scalar or vector; \
                      OpUDiv and OpUMod an unsigned integer scalar or vector; OpDot a float scalar; \
                      OpVectorTimesScalar, OpMatrixTimesVector and OpVectorTimesMatrix a float vector; \
                      OpMatrixTimesScalar, OpMatrixTimesMatrix and OpOuterProduct a float matrix; \
                      OpIAddCarry, OpISubBorrow, OpUMulExtended and OpSMulExtended a struct of two \
                      members of the same integer scalar or vector type. Fix: use the opcode that \
                      matches the type (OpFAdd for floats, OpIAdd for integers) or the right type.",
    },
    Rule {
        code: "inst.arith.operand-type",
        summary: "An arithmetic instruction's operands must have the type the opcode and Result Type require.",
        explanation: "SPIR-V spec 3.52.13: the operands of the floating-point instructions, of \
                      OpUDiv and OpUMod must have exactly the Result Type; those of the signed and \
                      sign-agnostic integer instructions (OpIAdd, OpSDiv...) must be integer \
                      scalars or vectors with as many components and the same component width as \
                      the Result Type (their signedness may differ); OpDot's operands are float \
                      vectors of the same size whose component type is the Result Type; the matrix \
                      and vector products need operands whose shapes fit the Result Type. Fix: \
                      convert the operand first (OpConvertSToF, OpBitcast...) or use the matching \
                      opcode.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Typed(run), finish: None },
};

const RT: &str = "inst.arith.result-type";
const OT: &str = "inst.arith.operand-type";

/// Check instruction `i` (an arithmetic one, see [`applies`]).
fn run(cx: &mut Context<'_>, i: usize, opcode: u16, rt: u32, _: &mut Lookups) {
    inst(cx, i, opcode, rt)
}

/// Whether this family checks `o`: the arithmetic instructions by their class
/// in the grammar's table (integer and float operators, extended arithmetic,
/// vector and matrix products).
pub(super) const fn applies(o: u16) -> bool {
    matches!(class::of(o), OpClass::Arith(_) | OpClass::ArithExtended(_) | OpClass::LinearAlgebra)
}

/// The float matrix `ty`: (column type, column count, rows, component type).
fn float_matrix(cx: &Context<'_>, ty: u32) -> Option<(u32, u32, u32, u32)> {
    match cx.ir().ty(ty)?.ty {
        Type::Matrix { column, columns } => {
            let s = shape(cx, column)?;
            (s.vector && s.is_float()).then_some((column, columns, s.count, s.component))
        }
        _ => None,
    }
}

fn inst(cx: &mut Context<'_>, i: usize, opcode: u16, rt: u32) {
    let n = count(cx, i);
    let r = shape(cx, rt);
    match opcode {
        op::OpFAdd | op::OpFSub | op::OpFMul | op::OpFDiv | op::OpFRem | op::OpFMod | op::OpFNegate => {
            if !r.is_some_and(|s| s.is_float()) {
                return bad_result(cx, RT, i, "a float scalar or vector");
            }
            same_as_result(cx, i, n, rt);
        }
        op::OpUDiv | op::OpUMod => {
            if !r.is_some_and(|s| s.is_uint()) {
                return bad_result(cx, RT, i, "an unsigned int scalar or vector");
            }
            same_as_result(cx, i, n, rt);
        }
        op::OpIAdd | op::OpISub | op::OpIMul | op::OpSDiv | op::OpSMod | op::OpSRem | op::OpSNegate => {
            let Some(r) = r.filter(|s| s.is_int()) else {
                return bad_result(cx, RT, i, "an int scalar or vector");
            };
            for k in 2..n {
                let ok = operand_type(cx, i, k).and_then(|t| shape(cx, t)).is_some_and(|s| {
                    s.is_int() && s.count == r.count && s.vector == r.vector && s.width() == r.width()
                });
                if !ok {
                    let want = if r.vector {
                        format!("a vector of {} {}-bit ints, like the Result Type", r.count, r.width())
                    } else {
                        format!("a {}-bit int scalar, like the Result Type", r.width())
                    };
                    bad_operand(cx, OT, i, k, &want);
                }
            }
        }
        op::OpDot => {
            if !r.is_some_and(|s| s.is_float() && !s.vector) {
                return bad_result(cx, RT, i, "a float scalar");
            }
            let mut first = None;
            for k in 2..n {
                let s = operand_type(cx, i, k).and_then(|t| shape(cx, t));
                match s {
                    Some(s) if s.vector && s.component == rt => {
                        if let Some(c) = first
                            && c != s.count
                        {
                            bad_operand(
                                cx,
                                OT,
                                i,
                                k,
                                &format!("a vector of {c} components, like the first operand"),
                            );
                        }
                        first.get_or_insert(s.count);
                    }
                    _ => {
                        let want = format!("a float vector whose components have the Result Type {}", cx.name(rt));
                        bad_operand(cx, OT, i, k, &want);
                    }
                }
            }
        }
        op::OpVectorTimesScalar => {
            let Some(r) = r.filter(|s| s.is_float() && s.vector) else {
                return bad_result(cx, RT, i, "a float vector");
            };
            if operand_type(cx, i, 2) != Some(rt) {
                let want = format!("of the Result Type {}", cx.name(rt));
                bad_operand(cx, OT, i, 2, &want);
            }
            if operand_type(cx, i, 3) != Some(r.component) {
                let want = format!("a scalar of the Result Type's component type {}", cx.name(r.component));
                bad_operand(cx, OT, i, 3, &want);
            }
        }
        op::OpMatrixTimesScalar => {
            let Some((_, _, _, comp)) = float_matrix(cx, rt) else {
                return bad_result(cx, RT, i, "a float matrix");
            };
            if operand_type(cx, i, 2) != Some(rt) {
                let want = format!("of the Result Type {}", cx.name(rt));
                bad_operand(cx, OT, i, 2, &want);
            }
            if operand_type(cx, i, 3) != Some(comp) {
                let want = format!("a scalar of the Result Type's component type {}", cx.name(comp));
                bad_operand(cx, OT, i, 3, &want);
            }
        }
        op::OpMatrixTimesVector => {
            let Some(r) = r.filter(|s| s.is_float() && s.vector) else {
                return bad_result(cx, RT, i, "a float vector");
            };
            let m = operand_type(cx, i, 2).and_then(|t| float_matrix(cx, t));
            match m {
                Some((col, cols, _, _)) if col == rt => {
                    let v = operand_type(cx, i, 3).and_then(|t| shape(cx, t));
                    if !v.is_some_and(|v| v.vector && v.component == r.component && v.count == cols) {
                        let want = format!("a vector of {cols} {}", cx.name(r.component));
                        bad_operand(cx, OT, i, 3, &want);
                    }
                }
                _ => {
                    let want = format!("a float matrix whose columns have the Result Type {}", cx.name(rt));
                    bad_operand(cx, OT, i, 2, &want);
                }
            }
        }
        op::OpVectorTimesMatrix => {
            let Some(r) = r.filter(|s| s.is_float() && s.vector) else {
                return bad_result(cx, RT, i, "a float vector");
            };
            let m = operand_type(cx, i, 3).and_then(|t| float_matrix(cx, t));
            match m {
                Some((_, cols, rows, comp)) if cols == r.count && comp == r.component => {
                    let v = operand_type(cx, i, 2).and_then(|t| shape(cx, t));
                    if !v.is_some_and(|v| v.vector && v.component == comp && v.count == rows) {
                        let want = format!("a vector of {rows} {}", cx.name(comp));
                        bad_operand(cx, OT, i, 2, &want);
                    }
                }
                _ => {
                    let want = format!("a float matrix of {} columns of {}", r.count, cx.name(r.component));
                    bad_operand(cx, OT, i, 3, &want);
                }
            }
        }
        op::OpMatrixTimesMatrix => {
            let Some((rcol, rcols, _, rcomp)) = float_matrix(cx, rt) else {
                return bad_result(cx, RT, i, "a float matrix");
            };
            let left = operand_type(cx, i, 2).and_then(|t| float_matrix(cx, t));
            let lcols = match left {
                Some((col, cols, _, _)) if col == rcol => Some(cols),
                _ => {
                    let want = format!("a float matrix whose columns have the type {}", cx.name(rcol));
                    bad_operand(cx, OT, i, 2, &want);
                    None
                }
            };
            let right = operand_type(cx, i, 3).and_then(|t| float_matrix(cx, t));
            let ok = right
                .is_some_and(|(_, cols, rows, comp)| cols == rcols && comp == rcomp && lcols.is_none_or(|l| l == rows));
            if !ok {
                let rows = lcols.map_or(String::from("as many rows as the left matrix has columns"), |l| {
                    format!("{l} rows")
                });
                let want = format!("a float matrix of {rcols} columns of {rows}");
                bad_operand(cx, OT, i, 3, &want);
            }
        }
        op::OpOuterProduct => {
            let Some((rcol, rcols, _, rcomp)) = float_matrix(cx, rt) else {
                return bad_result(cx, RT, i, "a float matrix");
            };
            if operand_type(cx, i, 2) != Some(rcol) {
                let want = format!("of the Result Type's column type {}", cx.name(rcol));
                bad_operand(cx, OT, i, 2, &want);
            }
            let v = operand_type(cx, i, 3).and_then(|t| shape(cx, t));
            if !v.is_some_and(|v| v.vector && v.component == rcomp && v.count == rcols) {
                let want = format!("a vector of {rcols} {}", cx.name(rcomp));
                bad_operand(cx, OT, i, 3, &want);
            }
        }
        op::OpIAddCarry | op::OpISubBorrow | op::OpUMulExtended | op::OpSMulExtended => {
            let unsigned = opcode != op::OpSMulExtended;
            let member = match cx.ir().ty(rt).map(|t| &t.ty) {
                Some(Type::Struct { members }) if members.len() == 2 && members[0].ty == members[1].ty => {
                    Some(members[0].ty)
                }
                _ => None,
            };
            let ok = member
                .and_then(|m| shape(cx, m))
                .filter(|s| if unsigned { s.is_uint() } else { s.is_int() });
            let Some(m) = member.filter(|_| ok.is_some()) else {
                let want = if unsigned {
                    "a struct of two members of the same unsigned int scalar or vector type"
                } else {
                    "a struct of two members of the same int scalar or vector type"
                };
                return bad_result(cx, RT, i, want);
            };
            for k in 2..n {
                if operand_type(cx, i, k) != Some(m) {
                    let want = format!("of the Result Type's member type {}", cx.name(m));
                    bad_operand(cx, OT, i, k, &want);
                }
            }
        }
        _ => {}
    }
}

/// Every operand of instruction `i` must have the Result Type `rt`.
fn same_as_result(cx: &mut Context<'_>, i: usize, n: usize, rt: u32) {
    for k in 2..n {
        if operand_type(cx, i, k) != Some(rt) {
            let want = format!("of the Result Type {}", cx.name(rt));
            bad_operand(cx, OT, i, k, &want);
        }
    }
}
