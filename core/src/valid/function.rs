//! Functions: OpFunction against its function type, parameters against the
//! type's parameter list, OpFunctionCall against the callee (result type,
//! argument count and types), pointer arguments in the Logical addressing
//! model (storage classes and memory object declarations), pointer results in
//! the Logical addressing model, and OpReturn / OpReturnValue against the
//! function's return type.

use crate::grammar::{addressing_model, capability, decoration, op, storage_class};
use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "function.type-mismatch",
        summary: "OpFunction must match its function type.",
        explanation: "The Function Type operand of OpFunction must be an OpTypeFunction whose \
                      return type is the OpFunction's Result Type, and each OpFunctionParameter \
                      must have the type of the matching parameter of that OpTypeFunction.",
    },
    Rule {
        code: "function.call-callee",
        summary: "OpFunctionCall must call a function, with its return type.",
        explanation: "The Function operand of OpFunctionCall must be an OpFunction, and the \
                      call's Result Type must be that function's return type.",
    },
    Rule {
        code: "function.call-argument-count",
        summary: "OpFunctionCall must pass one argument per parameter.",
        explanation: "The number of arguments of OpFunctionCall must equal the number of \
                      parameters of the called function's type.",
    },
    Rule {
        code: "function.call-argument-type",
        summary: "Each argument must have the type of its parameter.",
        explanation: "The type of each OpFunctionCall argument must be the type of the matching \
                      parameter of the called function (before HLSL legalization, pointers to \
                      logically matching types are also accepted).",
    },
    Rule {
        code: "function.pointer-argument-storage-class",
        summary: "In Logical addressing, pointer arguments may only point into some storage classes.",
        explanation: "With the Logical addressing model, a pointer passed to a function must be \
                      in the UniformConstant, Function, Private, Workgroup or AtomicCounter \
                      storage class, or StorageBuffer when a variable pointers capability is \
                      declared (spec 2.16.1, Logical addressing rules).",
    },
    Rule {
        code: "function.pointer-argument-not-memory-object",
        summary: "In Logical addressing, pointer arguments must be memory object declarations.",
        explanation: "With the Logical addressing model a pointer argument must be an \
                      OpVariable or an OpFunctionParameter, not a pointer computed by \
                      OpAccessChain or similar, except for UniformConstant pointers, \
                      StorageBuffer pointers with variable pointers, and Workgroup pointers \
                      with the VariablePointers capability.",
    },
    Rule {
        code: "function.pointer-return",
        summary: "In Logical addressing, functions return pointers only with variable pointers.",
        explanation: "With the Logical addressing model a function may only return a pointer \
                      into StorageBuffer (with VariablePointersStorageBuffer or VariablePointers) \
                      or Workgroup (with VariablePointers).",
    },
    Rule {
        code: "function.return-type",
        summary: "OpReturn and OpReturnValue must agree with the function's return type.",
        explanation: "OpReturn only ends functions returning void; OpReturnValue only ends \
                      functions returning a value, and its value must have the return type.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check_functions)],
    instructions: Instructions::None,
};

fn has_variable_pointers(cx: &Context<'_>) -> (bool, bool) {
    let vp = cx.declares_capability(capability::VariablePointers);
    (
        vp,
        vp || cx.declares_capability(capability::VariablePointersStorageBuffer),
    )
}

pub(super) fn check_functions(cx: &mut Context<'_>) {
    let insts = cx.insts();
    let logical = cx.addressing_model() == addressing_model::Logical;
    let (vp, vpsb) = has_variable_pointers(cx);
    // The current function: (instruction, return type, function type, parameter index).
    let mut current: Option<(usize, u32, u32)> = None;
    let mut param_index = 0usize;
    for i in 0..insts.len() {
        let inst = &insts[i];
        match inst.opcode {
            op::OpFunction => {
                let ret = inst.operands.first().copied().unwrap_or(0);
                let fty = inst.operands.get(3).copied().unwrap_or(0);
                current = Some((i, ret, fty));
                param_index = 0;
                match cx.type_def(fty) {
                    Some((op::OpTypeFunction, ops)) => {
                        if ops.first() != Some(&ret) {
                            let (r, t) = (cx.name(ret), cx.name(ops.first().copied().unwrap_or(0)));
                            cx.error_related(
                                "function.type-mismatch",
                                i,
                                format!("the function returns {r}, but its function type returns {t}"),
                                cx.def(fty).map(|d| (d, String::from("the function type"))),
                            );
                        }
                    }
                    _ => {
                        let t = cx.name(fty);
                        cx.error(
                            "function.type-mismatch",
                            i,
                            format!("the function type {t} is not an OpTypeFunction"),
                        );
                    }
                }
                if logical
                    && !(cx.opts.relax_logical_pointer || cx.opts.before_hlsl_legalization)
                    && let Some(class) = cx.pointer_storage_class(ret)
                {
                    let problem = match class {
                        storage_class::StorageBuffer if !vpsb => Some(
                            "a StorageBuffer pointer needs the VariablePointersStorageBuffer capability",
                        ),
                        storage_class::Workgroup if !vp => {
                            Some("a Workgroup pointer needs the VariablePointers capability")
                        }
                        storage_class::StorageBuffer | storage_class::Workgroup => None,
                        _ => Some("only StorageBuffer and Workgroup pointers may be returned"),
                    };
                    if let Some(p) = problem {
                        let (f, r) = (
                            cx.name(inst.operands.get(1).copied().unwrap_or(0)),
                            cx.name(ret),
                        );
                        cx.error(
                                "function.pointer-return",
                                i,
                                format!("function {f} returns the pointer type {r} in Logical addressing: {p}"),
                            );
                    }
                }
            }
            op::OpFunctionParameter => {
                let Some((f, _, fty)) = current else { continue };
                let k = param_index;
                param_index += 1;
                let Some((op::OpTypeFunction, ops)) = cx.type_def(fty) else {
                    continue;
                };
                let ty = inst.operands.first().copied().unwrap_or(0);
                let fspan = cx.span(f);
                match ops.get(k + 1) {
                    None => {
                        let n = ops.len().saturating_sub(1);
                        cx.error(
                            "function.type-mismatch",
                            i,
                            format!("too many parameters: the function type has {n}"),
                        )
                        .relate(fspan, String::from("the function"));
                    }
                    Some(&pt) if pt != ty => {
                        let (a, b) = (cx.name(ty), cx.name(pt));
                        cx.error(
                            "function.type-mismatch",
                            i,
                            format!("parameter {k} has type {a}, but the function type says {b}"),
                        )
                        .relate(fspan, String::from("the function"));
                    }
                    _ => {}
                }
            }
            op::OpFunctionEnd => current = None,
            op::OpReturn | op::OpReturnValue => {
                let Some((f, ret, _)) = current else { continue };
                let void = cx.type_def(ret).map(|t| t.0) == Some(op::OpTypeVoid);
                let fspan = cx.span(f);
                let fname = cx.name(insts[f].operands.get(1).copied().unwrap_or(0));
                if inst.opcode == op::OpReturn && !void {
                    let r = cx.name(ret);
                    cx.error(
                        "function.return-type",
                        i,
                        format!("OpReturn in function {fname}, which returns {r}"),
                    )
                    .relate(fspan, format!("{fname} returns {r}"));
                } else if inst.opcode == op::OpReturnValue {
                    let v = inst.operands.first().copied().unwrap_or(0);
                    if void {
                        cx.error(
                            "function.return-type",
                            i,
                            format!("OpReturnValue in function {fname}, which returns void"),
                        )
                        .relate(fspan, format!("{fname} returns void"));
                    } else if let Some(vt) = cx.type_of(v)
                        && vt != ret
                    {
                        let (vn, tn, r) = (cx.name(v), cx.name(vt), cx.name(ret));
                        cx.error(
                            "function.return-type",
                            i,
                            format!("{vn} has type {tn}, but function {fname} returns {r}"),
                        )
                        .relate(fspan, format!("{fname} returns {r}"));
                    }
                }
            }
            op::OpFunctionCall => check_call(cx, i, logical, vp, vpsb),
            _ => {}
        }
    }
}

fn check_call(cx: &mut Context<'_>, i: usize, logical: bool, vp: bool, vpsb: bool) {
    let inst = &cx.insts()[i];
    let ty = inst.operands.first().copied().unwrap_or(0);
    let callee = inst.operands.get(2).copied().unwrap_or(0);
    let Some(fd) = cx
        .def(callee)
        .filter(|&d| cx.insts()[d].opcode == op::OpFunction)
    else {
        let c = cx.name(callee);
        cx.error("function.call-callee", i, format!("{c} is not a function"));
        return;
    };
    let fspan = cx.span(fd);
    let finst = &cx.insts()[fd];
    let ret = finst.operands.first().copied().unwrap_or(0);
    let cname = cx.name(callee);
    if ret != ty {
        let (t, r) = (cx.name(ty), cx.name(ret));
        cx.error(
            "function.call-callee",
            i,
            format!("the call's result type is {t}, but {cname} returns {r}"),
        )
        .relate(fspan, format!("{cname} is defined here"));
        return;
    }
    let fty = finst.operands.get(3).copied().unwrap_or(0);
    let Some((op::OpTypeFunction, fops)) = cx.type_def(fty) else {
        return;
    };
    let params = fops.get(1..).unwrap_or(&[]);
    let args = inst.operands.get(3..).unwrap_or(&[]);
    if params.len() != args.len() {
        cx.error(
            "function.call-argument-count",
            i,
            format!(
                "{cname} takes {} argument(s), but the call passes {}",
                params.len(),
                args.len()
            ),
        )
        .relate(fspan, format!("{cname} is defined here"));
        return;
    }
    for (k, (&arg, &pt)) in args.iter().zip(params).enumerate() {
        let Some(at) = cx.type_of(arg) else { continue };
        if at != pt && !(cx.opts.before_hlsl_legalization && logically_match(cx, at, pt, 0)) {
            let (a, t, p) = (cx.name(arg), cx.name(at), cx.name(pt));
            cx.error(
                "function.call-argument-type",
                i,
                format!(
                    "argument {k} ({a}) has type {t}, but parameter {k} of {cname} has type {p}"
                ),
            )
            .relate(fspan, format!("{cname} is defined here"));
            return;
        }
        if !logical || (cx.opts.relax_logical_pointer || cx.opts.before_hlsl_legalization) {
            continue;
        }
        let Some(class) = cx.pointer_storage_class(pt) else {
            continue;
        };
        let a = cx.name(arg);
        let class_name = crate::grammar::OperandKind::StorageClass
            .enumerant(class)
            .map_or_else(|| format!("{class}"), |e| String::from(e.name));
        match class {
            storage_class::UniformConstant
            | storage_class::Function
            | storage_class::Private
            | storage_class::Workgroup
            | storage_class::AtomicCounter => {}
            storage_class::StorageBuffer if vpsb => {}
            storage_class::StorageBuffer => {
                cx.error(
                    "function.pointer-argument-storage-class",
                    i,
                    format!("argument {a} is a StorageBuffer pointer, which needs a variable pointers capability"),
                )
                .help = Some(String::from("declare `OpCapability VariablePointersStorageBuffer`"));
                return;
            }
            _ => {
                cx.error(
                    "function.pointer-argument-storage-class",
                    i,
                    format!("argument {a} is a pointer into {class_name}, which cannot be passed to a function in Logical addressing"),
                );
                return;
            }
        }
        let aop = cx.def_opcode(arg);
        if !matches!(
            aop,
            Some(op::OpVariable | op::OpUntypedVariableKHR | op::OpFunctionParameter)
        ) {
            let ok = (vpsb && class == storage_class::StorageBuffer)
                || (vp && class == storage_class::Workgroup)
                || class == storage_class::UniformConstant;
            if !ok {
                cx.error_related(
                    "function.pointer-argument-not-memory-object",
                    i,
                    format!("argument {a} must be a memory object declaration (an OpVariable or OpFunctionParameter)"),
                    cx.def(arg).map(|d| (d, format!("{a} is computed here"))),
                );
                return;
            }
        }
    }
}

/// Whether two types match logically (before HLSL legalization): pointers to
/// logically matching types, structs and arrays of logically matching members.
fn logically_match(cx: &Context<'_>, a: u32, b: u32, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth > 64 {
        return false;
    }
    let (Some((oa, xa)), Some((ob, xb))) = (cx.type_def(a), cx.type_def(b)) else {
        return false;
    };
    if oa != ob {
        return false;
    }
    match oa {
        op::OpTypePointer if depth == 0 => {
            xa.len() == 2
                && xb.len() == 2
                && same_decorations(cx, a, b)
                && logically_match(cx, xa[1], xb[1], depth + 1)
        }
        op::OpTypeArray => {
            xa.len() == 2
                && xb.len() == 2
                && const_value(cx, xa[1]).is_some()
                && const_value(cx, xa[1]) == const_value(cx, xb[1])
                && logically_match(cx, xa[0], xb[0], depth + 1)
                && same_decorations(cx, a, b)
        }
        op::OpTypeStruct => {
            xa.len() == xb.len()
                && xa
                    .iter()
                    .zip(xb)
                    .all(|(&m, &n)| logically_match(cx, m, n, depth + 1))
                && same_decorations(cx, a, b)
        }
        _ => false,
    }
}

fn const_value(cx: &Context<'_>, id: u32) -> Option<u32> {
    let d = cx.def_inst(id)?;
    (d.opcode == op::OpConstant)
        .then(|| d.operands.get(2).copied())
        .flatten()
}

/// Whether the decorations of two logically matching types are compatible:
/// a decoration both carry has the same value on both, and the parameter's type
/// (`b`) has no decoration the argument's lacks, layout decorations aside.
fn same_decorations(cx: &Context<'_>, a: u32, b: u32) -> bool {
    // (member or u32::MAX, decoration, value words)
    let collect = |t: u32| {
        let mut v: alloc::vec::Vec<(u32, u32, &[u32])> = alloc::vec::Vec::new();
        for x in cx.insts() {
            if x.operands.first() != Some(&t) {
                continue;
            }
            match x.opcode {
                op::OpDecorate => {
                    if let Some(&d) = x.operands.get(1) {
                        v.push((u32::MAX, d, x.operands.get(2..).unwrap_or(&[])));
                    }
                }
                op::OpMemberDecorate => {
                    if let (Some(&m), Some(&d)) = (x.operands.get(1), x.operands.get(2)) {
                        v.push((m, d, x.operands.get(3..).unwrap_or(&[])));
                    }
                }
                _ => {}
            }
        }
        v
    };
    let (da, db) = (collect(a), collect(b));
    let layout = |d: u32| {
        matches!(
            d,
            decoration::Offset
                | decoration::ArrayStride
                | decoration::MatrixStride
                | decoration::RowMajor
                | decoration::ColMajor
        )
    };
    for &(m, d, val) in &db {
        match da.iter().find(|x| x.0 == m && x.1 == d) {
            Some(x) if x.2 != val => return false,
            Some(_) => {}
            None if !layout(d) => return false,
            None => {}
        }
    }
    for &(m, d, val) in &da {
        if db.iter().any(|x| x.0 == m && x.1 == d && x.2 != val) {
            return false;
        }
    }
    true
}
