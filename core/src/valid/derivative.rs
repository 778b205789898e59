//! Derivative instructions: OpDPdx, OpDPdy, OpFwidth and their Fine and Coarse
//! forms take and give the same 32-bit float scalar or vector (SPIR-V spec
//! 3.52.16 "Derivative Instructions"; spirv-val's validate_derivatives). The
//! execution models they need (Fragment, or compute-like with a derivative
//! group mode) are checked with the image rules' (`image::execution_models`).

use super::Context;
use super::operand::{bad_operand, bad_result, operand_type, shape};
use super::rules::Rule;
use super::walk::{Lookups, ModelLimit};
use super::family::{Check, Family, Instructions};
use crate::grammar::class;
use alloc::format;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.derivative.result-type",
        summary: "A derivative instruction's Result Type must be a 32-bit float scalar or vector.",
        explanation: "SPIR-V spec 3.52.16: OpDPdx, OpDPdy, OpFwidth and their Fine and Coarse forms \
                      compute a floating-point scalar or vector; its components are 32-bit (spirv-val \
                      v2025.5). Fix: declare the result \
                      as the float type of the value differentiated.",
    },
    Rule {
        code: "inst.derivative.execution-model",
        summary: "Derivatives are for Fragment shaders and compute-like ones with a derivative group.",
        explanation: "SPIR-V spec 3.52.16 and the client APIs: derivatives are computed across a \
                      group of invocations, so the derivative instructions are for the Fragment, \
                      GLCompute, MeshEXT and TaskEXT execution models, the last three with the DerivativeGroupQuadsKHR or \
                      DerivativeGroupLinearKHR execution mode. The rule applies to every function \
                      an entry point calls. Fix: compute the difference explicitly in other stages.",
    },
    Rule {
        code: "inst.derivative.operand-type",
        summary: "A derivative instruction's P must have its Result Type.",
        explanation: "SPIR-V spec 3.52.16: the type of P must be the same as Result Type. Fix: \
                      differentiate a value of the result's type, converting it first if needed.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Any(run), finish: None },
};

pub(super) const fn applies(o: u16) -> bool {
    matches!(class::family(o), class::Family::Derivative)
}

/// Check derivative instruction `i`.
fn run(cx: &mut Context<'_>, i: usize, _opcode: u16, lookups: &mut Lookups) {
    lookups.limited.push((i, ModelLimit::Derivative));
    let Some(rt) = cx.ir().result_type(i) else { return };
    let Some(s) = shape(cx, rt).filter(|s| s.is_float()) else {
        return bad_result(cx, "inst.derivative.result-type", i, "a float scalar or vector");
    };
    if s.width() != 32 {
        return bad_result(cx, "inst.derivative.result-type", i, "a float scalar or vector of 32-bit components");
    }
    if operand_type(cx, i, 2) != Some(rt) {
        let want = format!("of the Result Type {}", cx.name(rt));
        bad_operand(cx, "inst.derivative.operand-type", i, 2, &want);
    }
}
