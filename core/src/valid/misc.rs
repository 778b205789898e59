//! Miscellaneous instructions whose operand and result types spirv-val checks
//! in its validate_misc: OpIsHelperInvocationEXT, OpAssumeTrueKHR,
//! OpExpectKHR (SPV_EXT_demote_to_helper_invocation, SPV_KHR_expect_assume;
//! OpReadClockKHR's are in `types.rs`).

use super::Context;
use super::operand::{bad_operand, bad_result, operand_type, shape};
use super::rules::Rule;
use super::walk::{Lookups, ModelLimit};
use super::family::{Check, Family, Instructions};
use crate::grammar::op;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.misc.result-type",
        summary: "OpIsHelperInvocationEXT and OpExpectKHR must have the Result Type their extension gives.",
        explanation: "SPV_EXT_demote_to_helper_invocation: OpIsHelperInvocationEXT's Result Type \
                      is a bool scalar. SPV_KHR_expect_assume: OpExpectKHR's Result Type is a bool \
                      or int scalar or vector. Fix: use the type the extension gives.",
    },
    Rule {
        code: "inst.misc.operand-type",
        summary: "OpAssumeTrueKHR's Condition must be a bool scalar; OpExpectKHR's operands must have its Result Type.",
        explanation: "SPV_KHR_expect_assume: OpAssumeTrueKHR's Condition is a bool scalar; \
                      OpExpectKHR's Value and ExpectedValue have the instruction's Result Type. \
                      Fix: compare to make a bool, or pass values of the Result Type.",
    },
    Rule {
        code: "inst.misc.execution-model",
        summary: "Helper invocations and fragment shader interlock are for fragment shaders.",
        explanation: "SPV_EXT_demote_to_helper_invocation and SPV_EXT_fragment_shader_interlock: \
                      OpDemoteToHelperInvocation, OpIsHelperInvocationEXT, \
                      OpBeginInvocationInterlockEXT and OpEndInvocationInterlockEXT are valid \
                      only in the Fragment execution model; the rule applies to every function \
                      an entry point of another execution model calls.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Any(run), finish: None },
};

const RT: &str = "inst.misc.result-type";
const OT: &str = "inst.misc.operand-type";

/// Whether the pass has anything to check in instruction `opcode`.
pub(super) const fn applies(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpIsHelperInvocationEXT
            | op::OpAssumeTrueKHR
            | op::OpExpectKHR
            | op::OpDemoteToHelperInvocation
            | op::OpBeginInvocationInterlockEXT
            | op::OpEndInvocationInterlockEXT
    )
}

/// Check instruction `i` (see [`applies`]).
#[inline(never)]
fn run(cx: &mut Context<'_>, i: usize, opcode: u16, lookups: &mut Lookups) {
    if matches!(
        opcode,
        op::OpIsHelperInvocationEXT
            | op::OpDemoteToHelperInvocation
            | op::OpBeginInvocationInterlockEXT
            | op::OpEndInvocationInterlockEXT
    ) {
        lookups.limited.push((i, ModelLimit::FragmentOnly("inst.misc.execution-model")));
        if opcode != op::OpIsHelperInvocationEXT {
            return;
        }
    }
    if opcode == op::OpAssumeTrueKHR {
        let ok = operand_type(cx, i, 0).and_then(|t| shape(cx, t)).is_some_and(|s| s.is_bool() && !s.vector);
        if !ok {
            bad_operand(cx, OT, i, 0, "a bool scalar");
        }
        return;
    }
    let Some(rt) = cx.ir().result_type(i) else { return };
    let r = shape(cx, rt);
    match opcode {
        op::OpIsHelperInvocationEXT if !r.is_some_and(|s| s.is_bool() && !s.vector) => {
            bad_result(cx, RT, i, "a bool scalar");
        }
        op::OpExpectKHR => {
            if !r.is_some_and(|s| s.is_bool() || s.is_int()) {
                return bad_result(cx, RT, i, "a bool or int scalar or vector");
            }
            for k in 2..cx.operands(i).len().min(4) {
                if operand_type(cx, i, k) != Some(rt) {
                    let want = alloc::format!("of the Result Type {}", cx.name(rt));
                    bad_operand(cx, OT, i, k, &want);
                }
            }
        }
        _ => {}
    }
}
