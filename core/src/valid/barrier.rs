//! Barrier instructions: OpControlBarrier, OpMemoryBarrier and the named
//! barriers (SPIR-V spec 3.52.20 "Barrier Instructions"; spirv-val's
//! validate_barriers). Their scopes and memory semantics are checked in
//! `scope.rs`; the synchronization walk hands barriers to [`run`].

use super::Context;
use super::operand::{bad_operand, bad_result, operand_type};
use super::rules::Rule;
use super::family::{Family, Instructions};
use super::scope;
use super::walk::{ScopeLimit, Sync};
use crate::grammar::op;
use crate::ir::Type;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.barrier.execution-model",
        summary: "Before SPIR-V 1.3, OpControlBarrier is for compute-like execution models only.",
        explanation: "SPIR-V spec 3.52.20 (OpControlBarrier): before version 1.3 it may be used \
                      only in the TessellationControl, GLCompute and Kernel execution models (and \
                      the MeshNV and TaskNV ones). The rule applies to every entry point whose call \
                      tree holds the barrier. Fix: raise the module's version to 1.3 or use the \
                      barrier in a compute-like stage only.",
    },
    Rule {
        code: "inst.barrier.named-barrier",
        summary: "The named barrier instructions need the OpTypeNamedBarrier type and a 32-bit Subgroup Count.",
        explanation: "SPIR-V spec 3.52.20: OpNamedBarrierInitialize's Result Type must be \
                      OpTypeNamedBarrier and its Subgroup Count a 32-bit integer scalar; \
                      OpMemoryNamedBarrier's Named Barrier must be of type OpTypeNamedBarrier. \
                      Fix: declare `%nb = OpTypeNamedBarrier` and use it.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Sync { takes: applies, check: run, finish: None },
};

const NB: &str = "inst.barrier.named-barrier";

/// Whether `opcode` is a barrier instruction this family checks.
#[inline]
pub(super) const fn applies(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpControlBarrier | op::OpMemoryBarrier | op::OpNamedBarrierInitialize | op::OpMemoryNamedBarrier
    )
}

fn is_named_barrier(cx: &Context<'_>, ty: Option<u32>) -> bool {
    ty.and_then(|t| cx.def_opcode(t)) == Some(op::OpTypeNamedBarrier)
}

/// Check barrier instruction `i` (see [`applies`]).
fn run(cx: &mut Context<'_>, s: &mut Sync, i: usize, opcode: u16) {
    match opcode {
        op::OpControlBarrier => {
            if cx.version < (1, 3) {
                s.limit(i, 0, ScopeLimit::OldControlBarrier);
            }
            scope::execution(cx, s, i, 0);
            scope::memory(cx, s, i, 1);
            scope::semantics(cx, s, i, 2, 1);
        }
        op::OpMemoryBarrier => {
            scope::memory(cx, s, i, 0);
            scope::semantics(cx, s, i, 1, 0);
        }
        op::OpNamedBarrierInitialize => {
            if !is_named_barrier(cx, cx.ir().result_type(i)) {
                bad_result(cx, NB, i, "OpTypeNamedBarrier");
            }
            let t = operand_type(cx, i, 2);
            if !matches!(t.and_then(|t| cx.ir().ty(t)).map(|t| &t.ty), Some(Type::Int { width: 32, .. })) {
                bad_operand(cx, NB, i, 2, "a 32-bit int scalar");
            }
        }
        _ => {
            if !is_named_barrier(cx, operand_type(cx, i, 0)) {
                bad_operand(cx, NB, i, 0, "of type OpTypeNamedBarrier");
            }
            scope::memory(cx, s, i, 1);
            scope::semantics(cx, s, i, 2, 1);
        }
    }
}
