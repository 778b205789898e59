//! Ids used as values where they cannot be: a function type's id anywhere but
//! in OpFunction, a function's id anywhere but where the spec names a function
//! (SPIR-V spec 3.52.6 OpTypeFunction, 3.52.9 OpFunction; spirv-val's
//! validate_type and validate_function).

use super::Context;
use super::ids::{is_debug, is_decoration};
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{capability, op};
use alloc::format;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.uses.function-type",
        summary: "A function type's id may only be used by OpFunction (and names, decorations).",
        explanation: "SPIR-V spec 3.52.6, OpTypeFunction declares the type of a function, used \
                      as OpFunction's Function Type; it is not the type of any value, so no \
                      other instruction (OpVariable, OpUndef, OpTypePointer without \
                      FunctionPointersINTEL, an arithmetic instruction...) may use it. Fix: use \
                      the function's return type or the value's own type.",
    },
    Rule {
        code: "inst.uses.function",
        summary: "A function's id may only be used where a function is expected (OpFunctionCall, OpEntryPoint...).",
        explanation: "SPIR-V spec 3.52.9: a function's Result <id> names the function; only the \
                      instructions that take a function (OpFunctionCall's Function, \
                      OpEntryPoint, OpExecutionMode, names, decorations and the kernel \
                      enqueue queries) may use it. It is not a value: an operand of \
                      arithmetic, a store or a composite cannot be a function. Fix: call the \
                      function and use its result.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

/// Whether instruction `i` may use a function type's id.
fn may_use_function_type(cx: &Context<'_>, i: usize, opcode: u16, function_pointers: bool) -> bool {
    opcode == op::OpFunction
        || opcode == op::OpAsmINTEL
        || is_debug(opcode)
        || is_decoration(opcode)
        || (opcode == op::OpTypePointer && function_pointers)
        || cx.ext_kind(i).is_non_semantic()
}

/// Whether instruction `i` may use a function's id.
fn may_use_function(cx: &Context<'_>, i: usize, opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpGroupDecorate
            | op::OpDecorate
            | op::OpEnqueueKernel
            | op::OpEntryPoint
            | op::OpExecutionMode
            | op::OpExecutionModeId
            | op::OpFunctionCall
            | op::OpGetKernelNDrangeSubGroupCount
            | op::OpGetKernelNDrangeMaxSubGroupSize
            | op::OpGetKernelWorkGroupSize
            | op::OpGetKernelPreferredWorkGroupSizeMultiple
            | op::OpGetKernelLocalSizeForSubgroupCount
            | op::OpGetKernelMaxNumSubgroups
            | op::OpName
            | op::OpCooperativeMatrixPerElementOpEXT
            | op::OpCooperativeMatrixReduceEXT
            | op::OpCooperativeMatrixLoadTensorNV
            | op::OpConditionalEntryPointINTEL
            | op::OpConstantFunctionPointerINTEL
    ) || is_decoration(opcode)
        || cx.ext_kind(i).is_non_semantic()
        || cx.ext_kind(i).is_debug_info()
}

/// Check every id operand that names a function type or a function (the id
/// pass collects them, as it looks up every operand's definition).
pub(super) fn check(cx: &mut Context<'_>) {
    let function_pointers = cx.declares_capability(capability::FunctionPointersINTEL);
    let mut found: Vec<(usize, usize, u32, bool)> = Vec::new();
    for &(i, k, w) in &cx.function_uses {
        let opcode = cx.insts()[i].opcode;
        match cx.def_opcode(w) {
            Some(op::OpTypeFunction) if !may_use_function_type(cx, i, opcode, function_pointers) => {
                found.push((i, k, w, true));
            }
            Some(op::OpFunction) if !may_use_function(cx, i, opcode) => found.push((i, k, w, false)),
            _ => {}
        }
    }
    for (i, k, w, is_type) in found {
        let op_name = cx.desc(i).map_or("", |d| d.name);
        let name = cx.name(w);
        if is_type {
            let m = format!("{op_name} uses the function type {name}, which only OpFunction may use");
            cx.error_at("inst.uses.function-type", i, k, m).label = "a function type".into();
        } else {
            let m = format!("{op_name} uses the function {name} as a value: a function's id is not a value");
            cx.error_at("inst.uses.function", i, k, m).label = "a function, not a value".into();
        }
    }
}
