//! SPV_INTEL_variable_length_array: OpVariableLengthArrayINTEL,
//! OpUntypedVariableLengthArrayINTEL, OpSaveMemoryINTEL, OpRestoreMemoryINTEL.

use crate::grammar::{op, storage_class};
use super::{is_pointer_to, pointer_type_of, scalar_int};
use crate::valid::Context;
use crate::valid::rules::Rule;
use crate::valid::family::{Family, Instructions, Stage};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(in crate::valid) static RULES: &[Rule] = &[
    Rule {
        code: "ext.vla-not-dominated-by-save",
        summary: "Every variable-length array allocation is dominated by an OpSaveMemoryINTEL.",
        explanation: "SPV_INTEL_variable_length_array, Validation Rules: in the control-flow \
                      graph every OpVariableLengthArrayINTEL and OpUntypedVariableLengthArrayINTEL \
                      must be dominated by at least one OpSaveMemoryINTEL, so that the memory it \
                      allocates can be released by the matching OpRestoreMemoryINTEL. Fix: \
                      execute `%s = OpSaveMemoryINTEL %ptr` before the allocation, in the same \
                      block or in a block that dominates it.",
    },
    Rule {
        code: "ext.vla-result-type",
        summary: "A variable-length array's result is a pointer to Function storage.",
        explanation: "OpVariableLengthArrayINTEL: Result Type must be OpTypePointer with Function \
                      storage class, whose Type is the (concrete) element type. \
                      OpUntypedVariableLengthArrayINTEL: Result Type must be \
                      OpTypeUntypedPointerKHR with Function storage class, and Element Type must \
                      be a concrete type.",
    },
    Rule {
        code: "ext.vla-length-type",
        summary: "A variable-length array's Length is a scalar integer.",
        explanation: "Length is the number of elements of the array; it must have a scalar \
                      integer type (it is treated as unsigned).",
    },
    Rule {
        code: "ext.save-memory-type",
        summary: "OpSaveMemoryINTEL returns, and OpRestoreMemoryINTEL takes, a pointer to Function storage.",
        explanation: "OpSaveMemoryINTEL: Result Type must be a pointer type with Function storage \
                      class. OpRestoreMemoryINTEL: Ptr, the value returned by OpSaveMemoryINTEL, \
                      must be a pointer type with Function storage class.",
    },
];

pub(in crate::valid) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

/// Whether `ty` is a concrete type: a numerical, boolean, vector, matrix, array,
/// struct or pointer type (not void, not an opaque or function type).
fn is_concrete_type(cx: &Context<'_>, ty: u32) -> bool {
    matches!(cx.def_opcode(ty), Some(
            op::OpTypeBool
                | op::OpTypeInt
                | op::OpTypeFloat
                | op::OpTypeVector
                | op::OpTypeMatrix
                | op::OpTypeArray
                | op::OpTypeStruct
                | op::OpTypePointer
                | op::OpTypeUntypedPointerKHR
        ))
}

pub(in crate::valid) fn check(cx: &mut Context<'_>) {
    let insts = cx.insts();
    if !insts.iter().any(|i| matches!(i.opcode, op::OpVariableLengthArrayINTEL | op::OpSaveMemoryINTEL | op::OpRestoreMemoryINTEL | op::OpUntypedVariableLengthArrayINTEL)) {
        return;
    }
    types(cx);
    dominance(cx);
}

fn types(cx: &mut Context<'_>) {
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        let ops = &inst.operands;
        match inst.opcode {
            op::OpVariableLengthArrayINTEL => {
                let (Some(&rt), Some(&len)) = (ops.first(), ops.get(2)) else { continue };
                let ok = is_pointer_to(cx, rt, false, storage_class::Function)
                    && cx.def_inst(rt).and_then(|p| p.operands.get(2)).is_some_and(|&e| is_concrete_type(cx, e));
                if !ok {
                    bad_result_type(
                        cx,
                        i,
                        rt,
                        "OpVariableLengthArrayINTEL",
                        "an OpTypePointer to a concrete type with Function storage class",
                        "a Function-storage pointer to a concrete element type",
                        "%ptr = OpTypePointer Function %elem",
                    );
                }
                length(cx, i, len, "OpVariableLengthArrayINTEL");
            }
            op::OpUntypedVariableLengthArrayINTEL => {
                let (Some(&rt), Some(&et), Some(&len)) = (ops.first(), ops.get(2), ops.get(3)) else { continue };
                if !is_pointer_to(cx, rt, true, storage_class::Function) {
                    bad_result_type(
                        cx,
                        i,
                        rt,
                        "OpUntypedVariableLengthArrayINTEL",
                        "an OpTypeUntypedPointerKHR with Function storage class",
                        "an untyped Function-storage pointer",
                        "%ptr = OpTypeUntypedPointerKHR Function",
                    );
                }
                if !is_concrete_type(cx, et) {
                    let t = cx.name(et);
                    let d = cx.error(
                        "ext.vla-result-type",
                        i,
                        format!("OpUntypedVariableLengthArrayINTEL's Element Type {t} must be a concrete type"),
                    );
                    d.label = format!("{t} is not a concrete type (numerical, vector, matrix, array, struct or pointer)");
                }
                length(cx, i, len, "OpUntypedVariableLengthArrayINTEL");
            }
            op::OpSaveMemoryINTEL => {
                let Some(&rt) = ops.first() else { continue };
                if !is_pointer_to(cx, rt, false, storage_class::Function) && !is_pointer_to(cx, rt, true, storage_class::Function) {
                    let t = cx.name(rt);
                    let d = cx.error(
                        "ext.save-memory-type",
                        i,
                        format!("OpSaveMemoryINTEL's Result Type {t} must be a pointer type with Function storage class"),
                    );
                    d.label = String::from("not a Function-storage pointer type");
                }
            }
            op::OpRestoreMemoryINTEL => {
                let Some(&p) = ops.first() else { continue };
                let Some(pt) = pointer_type_of(cx, p) else {
                    let n = cx.name(p);
                    let d = cx.error(
                        "ext.save-memory-type",
                        i,
                        format!("OpRestoreMemoryINTEL's Ptr {n} must be a pointer with Function storage class"),
                    );
                    d.label = format!("{n} is not a pointer");
                    continue;
                };
                if !is_pointer_to(cx, pt, false, storage_class::Function) && !is_pointer_to(cx, pt, true, storage_class::Function) {
                    let n = cx.name(p);
                    let d = cx.error(
                        "ext.save-memory-type",
                        i,
                        format!("OpRestoreMemoryINTEL's Ptr {n} must be a pointer with Function storage class"),
                    );
                    d.label = format!("{n} does not point to Function storage");
                }
            }
            _ => {}
        }
    }
}

fn length(cx: &mut Context<'_>, i: usize, len: u32, op: &str) {
    let ok = cx.type_of(len).is_some_and(|t| scalar_int(cx, t).is_some());
    if !ok {
        let n = cx.name(len);
        let d = cx.error("ext.vla-length-type", i, format!("{op}'s Length {n} must have a scalar integer type"));
        d.label = format!("{n} is not a scalar integer");
    }
}

fn dominance(cx: &mut Context<'_>) {
    let insts = cx.insts();
    // (vla instruction, the function's OpFunction instruction)
    let mut bad: Vec<(usize, usize)> = Vec::new();
    {
        let cfg = cx.cfg();
        for f in &cfg.functions {
            // Per block: index of its first save, or none.
            let mut first_save: Vec<Option<u32>> = Vec::with_capacity(f.blocks.len());
            let mut any_vla = false;
            for b in &f.blocks {
                let mut s = None;
                for k in b.start..b.end {
                    match insts.get(k as usize).map(|x| x.opcode) {
                        Some(op::OpSaveMemoryINTEL) if s.is_none() => s = Some(k),
                        Some(op::OpVariableLengthArrayINTEL | op::OpUntypedVariableLengthArrayINTEL) => any_vla = true,
                        _ => {}
                    }
                }
                first_save.push(s);
            }
            if !any_vla {
                continue;
            }
            for (bi, b) in f.blocks.iter().enumerate() {
                for k in b.start..b.end {
                    if !matches!(insts.get(k as usize).map(|x| x.opcode), Some(op::OpVariableLengthArrayINTEL | op::OpUntypedVariableLengthArrayINTEL)) {
                        continue;
                    }
                    let bi = bi as u32;
                    if !f.dom.contains(bi) {
                        continue; // unreachable: dominance is vacuous
                    }
                    if first_save[bi as usize].is_some_and(|s| s < k) {
                        continue;
                    }
                    let mut ok = false;
                    let mut cur = bi;
                    while let Some(up) = f.dom.idom(cur) {
                        if up == cur {
                            break;
                        }
                        if first_save.get(up as usize).copied().flatten().is_some() {
                            ok = true;
                            break;
                        }
                        cur = up;
                    }
                    if !ok {
                        bad.push((k as usize, f.instruction as usize));
                    }
                }
            }
        }
    }
    for (k, func) in bad {
        let inst = &insts[k];
        let rid = inst.operands.get(1).copied().unwrap_or(0);
        let name = cx.name(rid);
        let fname = cx.name(insts[func].operands.get(1).copied().unwrap_or(0));
        let op = if inst.opcode == op::OpVariableLengthArrayINTEL { "OpVariableLengthArrayINTEL" } else { "OpUntypedVariableLengthArrayINTEL" };
        let d = cx.error_related(
            "ext.vla-not-dominated-by-save",
            k,
            format!("{op} {name} is not dominated by an OpSaveMemoryINTEL in {fname}"),
            [(func, format!("in function {fname}"))],
        );
        d.label = String::from("some path reaches this allocation without saving the memory state first");
        d.help = Some(String::from("execute `%state = OpSaveMemoryINTEL %ptr` before the allocation, on every path to it"));
    }
}

/// `ext.vla-result-type`: the Result Type `rt` of `opname` is not `must`
/// (`is_not` for the label; `example`, a declaration that is).
fn bad_result_type(cx: &mut Context<'_>, i: usize, rt: u32, opname: &str, must: &str, is_not: &str, example: &str) {
    let t = cx.name(rt);
    let d = cx.error("ext.vla-result-type", i, format!("{opname}'s Result Type {t} must be {must}"));
    d.label = format!("the result type is not {is_not}");
    d.help = Some(format!("use e.g. `{example}`"));
}
