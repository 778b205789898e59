//! Non-uniform group operations, OpGroupNonUniform* (SPIR-V spec 3.52.24
//! "Non-Uniform Instructions"; spirv-val's validate_non_uniform): their
//! result and operand types, the operands that must be constants, and the
//! group operation. The Execution scope is checked in `scope.rs`; the synchronization
//! walk hands these instructions to [`run`].

use super::Context;
use super::operand::{Shape, bad_operand, bad_result, opname, operand_id, operand_type, shape};
use super::rules::Rule;
use super::family::{Family, Instructions};
use super::scope::{self, is_constant_op};
use super::walk::Sync;
use crate::grammar::{group_operation as go, op};
use alloc::format;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.group.result-type",
        summary: "A non-uniform group operation's Result Type must be the type the opcode returns.",
        explanation: "SPIR-V spec 3.52.24: OpGroupNonUniformElect, Any, All, AllEqual, \
                      InverseBallot and BallotBitExtract return a bool scalar; Ballot a vector of \
                      4 unsigned ints; BallotBitCount and BallotFindLSB/MSB an unsigned int \
                      scalar; Broadcast, Shuffle, Quad and Rotate a scalar or vector of int, float \
                      or bool; the arithmetic operations a scalar or vector of the kind they \
                      work on (float for F*, unsigned int for UMin/UMax, bool for Logical*, int \
                      otherwise). Fix: use the type the opcode returns.",
    },
    Rule {
        code: "inst.group.operand-type",
        summary: "A non-uniform group operation's operands must have the types the opcode expects.",
        explanation: "SPIR-V spec 3.52.24: Value has the Result Type (for the operations that \
                      return it); Predicate is a bool scalar; a ballot Value a vector of 4 \
                      unsigned ints; Id, Index, Mask, Delta, Direction and ClusterSize unsigned \
                      int scalars; AllEqual's Value a scalar or vector of int, float or bool. Fix: \
                      convert the operand or pass the right one.",
    },
    Rule {
        code: "inst.group.constant",
        summary: "Some operands of the group operations must be constants.",
        explanation: "SPIR-V spec 3.52.24: ClusterSize must come from a constant instruction; so \
                      must QuadSwap's Direction and, before SPIR-V 1.5, the Id of \
                      OpGroupNonUniformBroadcast and the Index of OpGroupNonUniformQuadBroadcast. \
                      Fix: use an OpConstant.",
    },
    Rule {
        code: "inst.group.operation",
        summary: "The group operation must fit the instruction and its operands.",
        explanation: "SPIR-V spec 3.52.24 and 3.28 (Group Operation): ClusteredReduce needs the \
                      ClusterSize operand and the partitioned operations a Ballot operand (a \
                      vector of 4 ints); in Vulkan, OpGroupNonUniformBallotBitCount allows only \
                      Reduce, InclusiveScan and ExclusiveScan (VUID-RuntimeSpirv-None-04685). Fix: \
                      add the operand or use an allowed operation.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Sync { takes: applies, check: run, finish: None },
};

const RT: &str = "inst.group.result-type";
const OT: &str = "inst.group.operand-type";
const CONST: &str = "inst.group.constant";
const GOP: &str = "inst.group.operation";

/// Whether `opcode` is a non-uniform group operation this family checks.
#[inline]
pub(super) const fn applies(opcode: u16) -> bool {
    scope::is_non_uniform(opcode)
}

fn result_shape(cx: &Context<'_>, i: usize) -> Option<Shape> {
    shape(cx, cx.ir().result_type(i)?)
}

fn operand_shape(cx: &Context<'_>, i: usize, k: usize) -> Option<Shape> {
    shape(cx, operand_type(cx, i, k)?)
}

fn bool_scalar(s: Option<Shape>) -> bool {
    s.is_some_and(|s| s.is_bool() && !s.vector)
}

fn uint_scalar(s: Option<Shape>) -> bool {
    s.is_some_and(|s| s.is_uint() && !s.vector)
}

fn uvec4(s: Option<Shape>) -> bool {
    s.is_some_and(|s| s.is_uint() && s.vector && s.count == 4)
}

/// Whether instruction `i` has operand `k`.
fn has(cx: &Context<'_>, i: usize, k: usize) -> bool {
    k < cx.operands(i).len()
}

/// Operand `k` must have the Result Type.
fn same_as_result(cx: &mut Context<'_>, i: usize, k: usize) {
    let rt = cx.ir().result_type(i);
    if operand_type(cx, i, k) != rt {
        let what = rt.map_or_else(|| "the Result Type".into(), |t| format!("of type {}, the Result Type", cx.name(t)));
        bad_operand(cx, OT, i, k, &what);
    }
}

/// Check non-uniform group instruction `i` (see [`applies`]).
fn run(cx: &mut Context<'_>, s: &mut Sync, i: usize, opcode: u16) {
    scope::execution(cx, s, i, 2);
    let r = result_shape(cx, i);
    let any_value = r.is_some();
    match opcode {
        op::OpGroupNonUniformElect => {
            if !bool_scalar(r) {
                bad_result(cx, RT, i, "a bool scalar");
            }
        }
        op::OpGroupNonUniformAny | op::OpGroupNonUniformAll => {
            if !bool_scalar(r) {
                bad_result(cx, RT, i, "a bool scalar");
            }
            if !bool_scalar(operand_shape(cx, i, 3)) {
                bad_operand(cx, OT, i, 3, "a bool scalar");
            }
        }
        op::OpGroupNonUniformAllEqual => {
            if !bool_scalar(r) {
                bad_result(cx, RT, i, "a bool scalar");
            }
            if operand_shape(cx, i, 3).is_none() {
                bad_operand(cx, OT, i, 3, "a scalar or vector of int, float or bool");
            }
        }
        op::OpGroupNonUniformBroadcast
        | op::OpGroupNonUniformShuffle
        | op::OpGroupNonUniformShuffleXor
        | op::OpGroupNonUniformShuffleUp
        | op::OpGroupNonUniformShuffleDown
        | op::OpGroupNonUniformQuadBroadcast
        | op::OpGroupNonUniformQuadSwap => {
            if !any_value {
                bad_result(cx, RT, i, "a scalar or vector of int, float or bool");
                return;
            }
            same_as_result(cx, i, 3);
            if !uint_scalar(operand_shape(cx, i, 4)) {
                bad_operand(cx, OT, i, 4, "an unsigned int scalar");
            } else {
                let must_be_constant = opcode == op::OpGroupNonUniformQuadSwap
                    || (matches!(opcode, op::OpGroupNonUniformBroadcast | op::OpGroupNonUniformQuadBroadcast)
                        && cx.version < (1, 5));
                let def = operand_id(cx, i, 4).and_then(|id| cx.def_opcode(id));
                if must_be_constant && !is_constant_op(def) {
                    let by = def.and_then(crate::grammar::instruction).map_or("", |d| d.name);
                    let when = if opcode == op::OpGroupNonUniformQuadSwap { "" } else { " before SPIR-V 1.5" };
                    let opn = opname(cx, i);
                    let name = cx.name(operand_id(cx, i, 4).unwrap_or(0));
                    let m = format!("{opn} operand {name} is defined by {by}: it must be a constant{when}");
                    cx.error_at(CONST, i, 4, m).label = "must be a constant".into();
                }
            }
        }
        op::OpGroupNonUniformBroadcastFirst => {
            if !any_value {
                bad_result(cx, RT, i, "a scalar or vector of int, float or bool");
                return;
            }
            same_as_result(cx, i, 3);
        }
        op::OpGroupNonUniformBallot => {
            if !uvec4(r) {
                bad_result(cx, RT, i, "a vector of 4 unsigned ints");
            }
            if !bool_scalar(operand_shape(cx, i, 3)) {
                bad_operand(cx, OT, i, 3, "a bool scalar");
            }
        }
        op::OpGroupNonUniformInverseBallot | op::OpGroupNonUniformBallotBitExtract => {
            if !bool_scalar(r) {
                bad_result(cx, RT, i, "a bool scalar");
            }
            if !uvec4(operand_shape(cx, i, 3)) {
                bad_operand(cx, OT, i, 3, "a vector of 4 unsigned ints");
            } else if opcode == op::OpGroupNonUniformBallotBitExtract && !uint_scalar(operand_shape(cx, i, 4)) {
                bad_operand(cx, OT, i, 4, "an unsigned int scalar");
            }
        }
        op::OpGroupNonUniformBallotBitCount => {
            if !uint_scalar(r) {
                bad_result(cx, RT, i, "an unsigned int scalar");
            }
            if !uvec4(operand_shape(cx, i, 4)) {
                bad_operand(cx, OT, i, 4, "a vector of 4 unsigned ints");
            }
            let g = cx.operand_words(i, 3).first().copied();
            if cx.opts.env.is_vulkan() && !matches!(g, Some(go::Reduce | go::InclusiveScan | go::ExclusiveScan)) {
                let opn = opname(cx, i);
                let m = format!("[VUID-RuntimeSpirv-None-04685] in Vulkan, the group operation of {opn} must be Reduce, InclusiveScan or ExclusiveScan");
                cx.error_at(GOP, i, 3, m).label = "must be Reduce, InclusiveScan or ExclusiveScan".into();
            }
        }
        op::OpGroupNonUniformBallotFindLSB | op::OpGroupNonUniformBallotFindMSB => {
            if !uint_scalar(r) {
                bad_result(cx, RT, i, "an unsigned int scalar");
            }
            if !uvec4(operand_shape(cx, i, 3)) {
                bad_operand(cx, OT, i, 3, "a vector of 4 unsigned ints");
            }
        }
        op::OpGroupNonUniformRotateKHR => {
            if !any_value {
                bad_result(cx, RT, i, "a scalar or vector of int, float or bool");
                return;
            }
            same_as_result(cx, i, 3);
            if !uint_scalar(operand_shape(cx, i, 4)) {
                bad_operand(cx, OT, i, 4, "an unsigned int scalar");
            } else if has(cx, i, 5) {
                cluster_size(cx, i, 5);
            }
        }
        _ => arithmetic(cx, i, opcode, r),
    }
}

/// ClusterSize (operand `k`): an unsigned int scalar constant.
fn cluster_size(cx: &mut Context<'_>, i: usize, k: usize) {
    if !uint_scalar(operand_shape(cx, i, k)) {
        bad_operand(cx, OT, i, k, "an unsigned int scalar");
        return;
    }
    let def = operand_id(cx, i, k).and_then(|id| cx.def_opcode(id));
    if !is_constant_op(def) {
        let by = def.and_then(crate::grammar::instruction).map_or("", |d| d.name);
        let opn = opname(cx, i);
        let name = cx.name(operand_id(cx, i, k).unwrap_or(0));
        let m = format!("{opn} ClusterSize {name} is defined by {by}: it must be a constant");
        cx.error_at(CONST, i, k, m).label = "must be a constant".into();
    }
}

/// The arithmetic, bitwise and logical group operations.
fn arithmetic(cx: &mut Context<'_>, i: usize, opcode: u16, r: Option<Shape>) {
    let (ok, expected) = match opcode {
        op::OpGroupNonUniformFAdd | op::OpGroupNonUniformFMul | op::OpGroupNonUniformFMin | op::OpGroupNonUniformFMax => {
            (r.is_some_and(|s| s.is_float()), "a float scalar or vector")
        }
        op::OpGroupNonUniformLogicalAnd | op::OpGroupNonUniformLogicalOr | op::OpGroupNonUniformLogicalXor => {
            (r.is_some_and(|s| s.is_bool()), "a bool scalar or vector")
        }
        op::OpGroupNonUniformUMin | op::OpGroupNonUniformUMax => {
            (r.is_some_and(|s| s.is_uint()), "an unsigned int scalar or vector")
        }
        _ => (r.is_some_and(|s| s.is_int()), "an int scalar or vector"),
    };
    if !ok {
        bad_result(cx, RT, i, expected);
    } else {
        same_as_result(cx, i, 4);
    }
    let g = cx.operand_words(i, 3).first().copied();
    let clustered = g == Some(go::ClusteredReduce);
    let partitioned = matches!(
        g,
        Some(go::PartitionedReduceNV | go::PartitionedInclusiveScanNV | go::PartitionedExclusiveScanNV)
    );
    if !has(cx, i, 5) {
        if clustered || partitioned {
            let opn = opname(cx, i);
            let (what, op_name) = if clustered {
                ("ClusterSize", "ClusteredReduce")
            } else {
                ("Ballot", "a partitioned operation")
            };
            let m = format!("{opn} needs its {what} operand when the group operation is {op_name}");
            cx.error_at(GOP, i, 3, m).label = format!("needs {what}");
        }
        return;
    }
    if partitioned {
        if !operand_shape(cx, i, 5).is_some_and(|s| s.is_int() && s.count == 4 && s.vector) {
            bad_operand(cx, OT, i, 5, "a vector of 4 ints");
        }
    } else {
        cluster_size(cx, i, 5);
    }
}
