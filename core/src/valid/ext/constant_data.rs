//! SPV_KHR_constant_data: OpConstantDataKHR, OpSpecConstantDataKHR and the
//! UTFEncodedKHR decoration.

use crate::grammar::{decoration, op};
use super::{has_decoration, scalar_int};
use crate::valid::Context;
use crate::valid::rules::Rule;
use crate::valid::family::{Family, Instructions, Stage};
use alloc::format;
use alloc::string::String;

pub(in crate::valid) static RULES: &[Rule] = &[
    Rule {
        code: "ext.constant-data-type",
        summary: "Constant data is an array of scalar integers.",
        explanation: "SPV_KHR_constant_data: the Result Type of OpConstantDataKHR and \
                      OpSpecConstantDataKHR must be an array (OpTypeArray) whose elements are a \
                      scalar integer type. Fix: declare e.g. `%arr = OpTypeArray %uchar %len`.",
    },
    Rule {
        code: "ext.constant-data-array-stride",
        summary: "The array type of constant data must not be decorated ArrayStride.",
        explanation: "SPV_KHR_constant_data: Result Type must not be decorated with ArrayStride \
                      (data is packed with no padding; a stride would either be ignored or imply \
                      padding). Use OpCopyLogical to move the data to a strided type.",
    },
    Rule {
        code: "ext.constant-data-length",
        summary: "The number of data words matches the array's length and element width.",
        explanation: "SPV_KHR_constant_data: the number of words in Data must equal the number of \
                      words needed for all elements of the array, packed without padding, \
                      rounded up to a whole word: ceil(length * width / 32).",
    },
    Rule {
        code: "ext.utf-encoded-type",
        summary: "UTFEncodedKHR decorates only arrays of 8-bit integers.",
        explanation: "SPV_KHR_constant_data: UTFEncodedKHR decorates an array type with scalar \
                      integer elements, and the Width of each element must be 8.",
    },
];

pub(in crate::valid) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

pub(in crate::valid) fn check(cx: &mut Context<'_>) {
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        match inst.opcode {
            op::OpConstantDataKHR | op::OpSpecConstantDataKHR => data(cx, i),
            op::OpDecorate if inst.operands.get(1) == Some(&decoration::UTFEncodedKHR) => {
                let Some(&t) = inst.operands.first() else { continue };
                let ok = cx.def_inst(t).is_some_and(|a| {
                    matches!(a.opcode, op::OpTypeArray | op::OpTypeRuntimeArray)
                        && a.operands.get(1).and_then(|&e| scalar_int(cx, e)).is_some_and(|(w, _)| w == 8)
                });
                if !ok {
                    let n = cx.name(t);
                    let d = cx.error_related(
                        "ext.utf-encoded-type",
                        i,
                        format!("UTFEncodedKHR decorates {n}, which is not an array of 8-bit integers"),
                        cx.def(t).map(|di| (di, format!("{n} is declared here"))),
                    );
                    d.label = String::from("UTFEncodedKHR applies only to arrays of 8-bit integers");
                }
            }
            _ => {}
        }
    }
}

fn data(cx: &mut Context<'_>, i: usize) {
    let inst = &cx.insts()[i];
    let opname = if inst.opcode == op::OpConstantDataKHR { "OpConstantDataKHR" } else { "OpSpecConstantDataKHR" };
    let Some(&rt) = inst.operands.first() else { return };
    let words = inst.operands.len().saturating_sub(2) as u64;
    let tname = cx.name(rt);
    let tdef = cx.def(rt);
    let arr = cx.def_inst(rt).filter(|a| a.opcode == op::OpTypeArray);
    let elem = arr.and_then(|a| a.operands.get(1).copied());
    let width = elem.and_then(|e| scalar_int(cx, e)).map(|(w, _)| w);
    let (Some(arr), Some(width)) = (arr, width) else {
        let d = cx.error_related(
            "ext.constant-data-type",
            i,
            format!("{opname}'s Result Type {tname} must be an array of scalar integer type elements"),
            tdef.map(|d| (d, format!("{tname} is declared here"))),
        );
        d.label = format!("{tname} is not an OpTypeArray of integers");
        return;
    };
    if let Some(at) = has_decoration(cx, rt, decoration::ArrayStride) {
        let d = cx.error_related(
            "ext.constant-data-array-stride",
            i,
            format!("{opname}'s Result Type {tname} must not be decorated with ArrayStride"),
            [(at, format!("{tname} is decorated ArrayStride here"))],
        );
        d.label = String::from("constant data is packed without padding");
        d.help = Some(String::from("declare an array type without ArrayStride for the data, and OpCopyLogical it to a strided one if needed"));
    }
    // The length, when it is a (spec) constant with a known value.
    let Some(len_id) = arr.operands.get(2).copied() else { return };
    let Some(len_inst) = cx.def_inst(len_id) else { return };
    if !matches!(len_inst.opcode, op::OpConstant | op::OpSpecConstant) {
        return;
    }
    let Some(&lo) = len_inst.operands.get(2) else { return };
    let hi = len_inst.operands.get(3).copied().unwrap_or(0) as u64;
    let len = (hi << 32) | lo as u64;
    let bits = len.saturating_mul(width as u64);
    let need = bits.div_ceil(32);
    if need != words {
        let lname = cx.name(len_id);
        let d = cx.error_related(
            "ext.constant-data-length",
            i,
            format!(
                "{opname} has {words} data word(s), but its Result Type {tname} ({len} elements of {width} bits, {lname}) needs {need}"
            ),
            tdef.map(|d| (d, format!("{tname} is declared here"))),
        );
        d.label = format!("expected {need} data word(s)");
        d.help = Some(String::from("data is packed without padding, rounded up to a whole 32-bit word"));
    }
}
