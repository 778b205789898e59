//! Relational and logical instructions: comparisons give bools with as many
//! components as their operands, logical operators take and give bools, and
//! OpSelect's objects have its Result Type (SPIR-V spec 3.52.15 "Relational
//! and Logical Instructions"; spirv-val's validate_logicals).

use super::Context;
use super::operand::{Shape, bad_operand, bad_result, known_result, operand_type, shape};
use super::rules::Rule;
use super::walk::Lookups;
use super::family::{Check, Family, Instructions};
use crate::grammar::{capability, op};
use crate::grammar::class::{self, Num, OpClass};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.logical.result-type",
        summary: "A comparison or logical instruction's Result Type must be a bool scalar or vector.",
        explanation: "SPIR-V spec 3.52.15: the comparisons (OpIEqual, OpSLessThan, OpFOrdEqual, \
                      OpFUnordLessThan...), the tests (OpIsNan, OpIsInf...) and the logical \
                      operators (OpLogicalAnd, OpLogicalNot...) produce a Boolean scalar or vector, \
                      OpAny and OpAll a Boolean scalar, and OpSelect (before SPIR-V 1.4) a scalar, \
                      vector or pointer (a pointer only with the VariablePointers or \
                      VariablePointersStorageBuffer capability). Fix: declare the result with OpTypeBool (or a vector of \
                      it) and convert afterwards with OpSelect if a number is needed.",
    },
    Rule {
        code: "inst.logical.operand-type",
        summary: "A comparison or logical instruction's operands must have the types its opcode compares.",
        explanation: "SPIR-V spec 3.52.15: the integer comparisons take integer scalars or \
                      vectors of the same component width, the floating-point ones two operands of \
                      the same float type, the logical operators Booleans of the Result Type; the \
                      operands have as many components as the Result Type. OpAny and OpAll take a \
                      Boolean vector; OpSelect's Condition is a Boolean scalar or a vector with the \
                      Result Type's component count, and both objects have the Result Type. Fix: \
                      use the comparison of the operands' kind (OpFOrdLessThan for floats) or \
                      convert an operand.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes, check: Check::Any(check), finish: None },
};

const RT: &str = "inst.logical.result-type";
const OT: &str = "inst.logical.operand-type";

/// Whether `opcode` is one this family checks: the relational and logical
/// instructions (see [`applies`]) and OpBranchConditional's Condition.
fn takes(opcode: u16) -> bool {
    opcode == op::OpBranchConditional || applies(opcode)
}

/// Check instruction `i` (see [`takes`]): a relational or logical one whose
/// Result Type the rules know, or an OpBranchConditional.
fn check(cx: &mut Context<'_>, i: usize, opcode: u16, l: &mut Lookups) {
    if opcode == op::OpBranchConditional {
        return branch_condition(cx, i);
    }
    if let Some(rt) = known_result(cx, i) {
        run(cx, i, opcode, rt, l);
    }
}

/// Check instruction `i` (a relational or logical one, see [`applies`]).
fn run(cx: &mut Context<'_>, i: usize, opcode: u16, rt: u32, l: &mut Lookups) {
    match kind(opcode) {
        Some(Kind::Select) => select(cx, i, rt, &mut l.variable_pointers),
        Some(k) => inst(cx, i, k, rt),
        None => {}
    }
}

/// OpBranchConditional's Condition must be a bool scalar (SPIR-V spec
/// 3.52.17, OpBranchConditional: "Condition must be a Boolean type scalar").
fn branch_condition(cx: &mut Context<'_>, i: usize) {
    // An id without a type (a label) is no condition either; a type is
    // reported as such by the id rules.
    if cx.has_error_in(i) {
        return;
    }
    let t = operand_type(cx, i, 0);
    if !matches!(t.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty), Some(Type::Bool)) {
        bad_operand(cx, "inst.logical.operand-type", i, 0, "a bool scalar");
    }
}

pub(super) const fn applies(opcode: u16) -> bool {
    kind(opcode).is_some()
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    AnyAll,
    FloatTest,
    FloatCompare,
    IntCompare,
    Logical,
    Not,
    Select,
}

/// The kind of instruction `o`, by its class in the grammar's table.
const fn kind(o: u16) -> Option<Kind> {
    Some(match class::of(o) {
        OpClass::BoolReduce => Kind::AnyAll,
        OpClass::FloatTest => Kind::FloatTest,
        OpClass::Compare { num: Num::Float, .. } => Kind::FloatCompare,
        OpClass::Compare { .. } => Kind::IntCompare,
        OpClass::Logical { unary: false } => Kind::Logical,
        OpClass::Logical { unary: true } => Kind::Not,
        OpClass::Select => Kind::Select,
        _ => return None,
    })
}

fn components(s: &Shape) -> u32 {
    if s.vector { s.count } else { 1 }
}

fn inst(cx: &mut Context<'_>, i: usize, kind: Kind, rt: u32) {
    let r = shape(cx, rt);
    let ty = |cx: &Context<'_>, k: usize| operand_type(cx, i, k).and_then(|t| shape(cx, t));
    if kind == Kind::AnyAll {
        if !r.is_some_and(|s| s.is_bool() && !s.vector) {
            return bad_result(cx, RT, i, "a bool scalar");
        }
        if !ty(cx, 2).is_some_and(|s| s.is_bool() && s.vector) {
            bad_operand(cx, OT, i, 2, "a bool vector");
        }
        return;
    }
    let Some(r) = r.filter(|s| s.is_bool()) else {
        return bad_result(cx, RT, i, "a bool scalar or vector");
    };
    let n = components(&r);
    let size = |n: u32| {
        if n == 1 {
            String::from("a scalar, like the Result Type")
        } else {
            format!("a vector of {n} components, like the Result Type")
        }
    };
    match kind {
        Kind::FloatTest | Kind::FloatCompare => {
            let left = ty(cx, 2);
            match left {
                Some(s) if s.is_float() => {
                    if components(&s) != n {
                        let want = format!("{} of floats", size(n));
                        bad_operand(cx, OT, i, 2, &want);
                    }
                }
                _ => bad_operand(cx, OT, i, 2, "a float scalar or vector"),
            }
            if kind == Kind::FloatCompare {
                let lt = operand_type(cx, i, 2);
                if left.is_some_and(|s| s.is_float()) && operand_type(cx, i, 3) != lt {
                    let want = format!(
                        "of the left operand's type {}",
                        lt.map_or(String::new(), |t| cx.name(t))
                    );
                    bad_operand(cx, OT, i, 3, &want);
                } else if !left.is_some_and(|s| s.is_float()) && !ty(cx, 3).is_some_and(|s| s.is_float()) {
                    bad_operand(cx, OT, i, 3, "a float scalar or vector");
                }
            }
        }
        Kind::IntCompare => {
            let mut widths = [0u32; 2];
            for (j, k) in [2usize, 3].into_iter().enumerate() {
                match ty(cx, k) {
                    Some(s) if s.is_int() => {
                        widths[j] = s.width();
                        if components(&s) != n {
                            let want = format!("{} of ints", size(n));
                            bad_operand(cx, OT, i, k, &want);
                        }
                    }
                    _ => bad_operand(cx, OT, i, k, "an int scalar or vector"),
                }
            }
            if widths[0] != 0 && widths[1] != 0 && widths[0] != widths[1] {
                let want = format!("{}-bit ints, like the left operand", widths[0]);
                bad_operand(cx, OT, i, 3, &want);
            }
        }
        Kind::Logical | Kind::Not => {
            let last = if kind == Kind::Not { 2 } else { 3 };
            for k in 2..=last {
                if operand_type(cx, i, k) != Some(rt) {
                    let want = format!("of the Result Type {}", cx.name(rt));
                    bad_operand(cx, OT, i, k, &want);
                }
            }
        }
        _ => {}
    }
}

/// `variable_pointers`: whether VariablePointers or
/// VariablePointersStorageBuffer is declared (looked up on first use).
fn select(cx: &mut Context<'_>, i: usize, rt: u32, variable_pointers: &mut Option<bool>) {
    let r = shape(cx, rt);
    let dims = match (r, cx.ir().ty(rt).map(|t| &t.ty)) {
        (Some(s), _) => Some(components(&s)),
        // Pointers need variable pointers; composites are allowed from SPIR-V 1.4 on.
        (None, Some(Type::Pointer { .. })) => {
            let vp = *variable_pointers.get_or_insert_with(|| {
                cx.declared()
                    .has_any_cap(&[capability::VariablePointers, capability::VariablePointersStorageBuffer])
            });
            if !vp {
                return bad_result(
                    cx,
                    RT,
                    i,
                    "a scalar or vector (selecting pointers needs the VariablePointers or VariablePointersStorageBuffer capability)",
                );
            }
            None
        }
        (None, _) if cx.version >= (1, 4) => None,
        (None, _) => return bad_result(cx, RT, i, "a scalar, vector or pointer (composites need SPIR-V 1.4)"),
    };
    let c = operand_type(cx, i, 2).and_then(|t| shape(cx, t));
    match c {
        Some(c) if c.is_bool() => {
            // A vector condition must match a vector result's size; a scalar
            // one selects whole objects.
            let ok = match dims {
                Some(d) => components(&c) == d,
                None => !c.vector,
            };
            if !ok {
                let want = match dims {
                    Some(d) if d > 1 => format!("a bool vector of {d} components, like the Result Type"),
                    _ => String::from("a bool scalar, like the Result Type"),
                };
                bad_operand(cx, OT, i, 2, &want);
            }
        }
        _ => bad_operand(cx, OT, i, 2, "a bool scalar or vector"),
    }
    for k in [3usize, 4] {
        if operand_type(cx, i, k) != Some(rt) {
            let want = format!("of the Result Type {}", cx.name(rt));
            bad_operand(cx, OT, i, k, &want);
        }
    }
}
