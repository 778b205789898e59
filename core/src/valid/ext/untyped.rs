//! SPV_KHR_untyped_pointers: untyped variables, access chains and array
//! lengths, and the rules of OpLoad, OpStore, atomics and OpBitcast with untyped
//! pointers.

use crate::grammar::{addressing_model, decoration, op, storage_class};
use super::{has_decoration, pointer_storage, scalar_int};
use crate::grammar::OperandKind;
use crate::valid::Context;
use crate::valid::rules::Rule;
use crate::valid::family::{Family, Instructions, Stage};
use alloc::format;
use alloc::string::String;

pub(in crate::valid) static RULES: &[Rule] = &[
    Rule {
        code: "ext.untyped-storage-class",
        summary: "An untyped pointer result has the storage class of its variable or base.",
        explanation: "SPV_KHR_untyped_pointers: OpUntypedVariableKHR's Result Type must be an \
                      OpTypeUntypedPointerKHR whose Storage Class is the variable's Storage Class \
                      (which must not be Generic); the untyped access chains' Result Type must be \
                      an OpTypeUntypedPointerKHR with the Storage Class of Base.",
    },
    Rule {
        code: "ext.untyped-data-type",
        summary: "Untyped variables in Function, Private and Workgroup storage need a Data Type.",
        explanation: "SPV_KHR_untyped_pointers: OpUntypedVariableKHR's Data Type must be \
                      specified if Storage Class is Function, Private or Workgroup; an \
                      Initializer must have the type Data Type.",
    },
    Rule {
        code: "ext.untyped-base-type",
        summary: "An untyped access chain's Base Type is a non-pointer type, and Base is a pointer.",
        explanation: "SPV_KHR_untyped_pointers: the Base Type operand of OpUntyped*AccessChainKHR \
                      must be a non-pointer type-declaration instruction (it says how the memory \
                      at Base is interpreted); Base must be a pointer.",
    },
    Rule {
        code: "ext.untyped-array-length",
        summary: "OpUntypedArrayLengthKHR applies to the last, runtime-array member of a Block struct.",
        explanation: "SPV_KHR_untyped_pointers: Result Type must be a 32-bit unsigned integer; \
                      Structure must be a Block-decorated OpTypeStruct whose last member is a \
                      run-time array; Array member must be the index of that last member; \
                      Pointer must be a pointer.",
    },
    Rule {
        code: "ext.untyped-access-type",
        summary: "Memory accessed through an untyped pointer is read and written with a concrete type.",
        explanation: "SPV_KHR_untyped_pointers: through an untyped pointer, OpLoad interprets memory \
                      with its Result Type and OpStore with the type of Object, so these must be \
                      concrete (not void); atomics interpret it with their Result Type (or the \
                      Value's type), which must be an integer scalar (or floating-point scalar \
                      for the float atomics).",
    },
    Rule {
        code: "ext.untyped-bitcast",
        summary: "OpBitcast of untyped pointers needs physical addressing and a pointer or integer on the other side.",
        explanation: "OpBitcast: if either Result Type or Operand is a pointer, the other must be a \
                      pointer or an integer scalar (from SPIR-V 1.5, also an integer vector). \
                      Logical pointers (untyped ones in a Logical addressing model included) \
                      cannot be bitcast at all.",
    },
];

pub(in crate::valid) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

pub(in crate::valid) fn check(cx: &mut Context<'_>) {
    let insts = cx.insts();
    if !insts.iter().any(|i| i.opcode == op::OpTypeUntypedPointerKHR) {
        return;
    }
    let logical = insts.iter().find(|i| i.opcode == op::OpMemoryModel).and_then(|i| i.operands.first()) == Some(&addressing_model::Logical);
    for i in 0..insts.len() {
        let inst = &insts[i];
        let ops = &inst.operands;
        match inst.opcode {
            op::OpUntypedVariableKHR => variable(cx, i),
            op::OpUntypedAccessChainKHR
            | op::OpUntypedInBoundsAccessChainKHR
            | op::OpUntypedPtrAccessChainKHR
            | op::OpUntypedInBoundsPtrAccessChainKHR => access_chain(cx, i),
            op::OpUntypedArrayLengthKHR => array_length(cx, i),
            op::OpLoad => {
                let (Some(&rt), Some(&p)) = (ops.first(), ops.get(2)) else { continue };
                if is_untyped_value(cx, p) && !is_data_type(cx, rt) {
                    let n = cx.name(rt);
                    let d = cx.error("ext.untyped-access-type", i, format!("OpLoad through an untyped pointer cannot have Result Type {n}"));
                    d.label = format!("{n} is not a type memory can hold");
                }
            }
            op::OpStore => {
                let (Some(&p), Some(&o)) = (ops.first(), ops.get(1)) else { continue };
                if is_untyped_value(cx, p) && !cx.type_of(o).is_some_and(|t| is_data_type(cx, t)) {
                    let n = cx.name(o);
                    let d = cx.error("ext.untyped-access-type", i, format!("OpStore through an untyped pointer cannot store {n}"));
                    d.label = format!("{n} does not have a type memory can hold");
                }
            }
            op::OpBitcast => {
                let (Some(&rt), Some(&v)) = (ops.first(), ops.get(2)) else { continue };
                let Some(vt) = cx.type_of(v) else { continue };
                let ru = cx.def_opcode(rt) == Some(op::OpTypeUntypedPointerKHR);
                let vu = cx.def_opcode(vt) == Some(op::OpTypeUntypedPointerKHR);
                if !ru && !vu {
                    continue;
                }
                let msg = if logical {
                    Some(String::from("OpBitcast cannot convert a logical untyped pointer: the addressing model is Logical"))
                } else {
                    let other = if ru { vt } else { rt };
                    let ok = matches!(cx.def_opcode(other), Some(op::OpTypePointer | op::OpTypeUntypedPointerKHR))
                        || scalar_int(cx, other).is_some()
                        || (cx.version >= (1, 5)
                            && cx.def_inst(other).is_some_and(|t| t.opcode == op::OpTypeVector && t.operands.get(1).is_some_and(|&c| scalar_int(cx, c).is_some())));
                    (!ok).then(|| String::from("OpBitcast of an untyped pointer needs a pointer or integer on the other side"))
                };
                if let Some(m) = msg {
                    let d = cx.error("ext.untyped-bitcast", i, m);
                    d.label = String::from("bitcast involving an untyped pointer");
                }
            }
            _ => atomic(cx, i),
        }
    }
}

/// Whether `ty` is a type memory can hold (not void, not a function or label type).
fn is_data_type(cx: &Context<'_>, ty: u32) -> bool {
    matches!(cx.def_opcode(ty), Some(
            op::OpTypeBool..=op::OpTypePointer
                | op::OpTypeUntypedPointerKHR
                | op::OpTypeCooperativeMatrixKHR
                | op::OpTypeAccelerationStructureKHR
                | op::OpTypeRayQueryKHR
        ))
}

fn is_untyped_value(cx: &Context<'_>, v: u32) -> bool {
    cx.type_of(v).and_then(|t| cx.def_opcode(t)) == Some(op::OpTypeUntypedPointerKHR)
}

fn atomic(cx: &mut Context<'_>, i: usize) {
    let inst = &cx.insts()[i];
    // Integer-only atomics with a result: (opcode, pointer operand index).
    let int_only = matches!(inst.opcode, op::OpAtomicCompareExchange..=op::OpAtomicXor);
    let any_scalar = matches!(
        inst.opcode,
        op::OpAtomicLoad | op::OpAtomicExchange | op::OpAtomicFAddEXT | op::OpAtomicFMinEXT | op::OpAtomicFMaxEXT
    );
    if !int_only && !any_scalar {
        return;
    }
    let (Some(&rt), Some(&p)) = (inst.operands.first(), inst.operands.get(2)) else { return };
    if !is_untyped_value(cx, p) {
        return;
    }
    let is_float = cx.def_opcode(rt) == Some(op::OpTypeFloat);
    let ok = scalar_int(cx, rt).is_some() || (any_scalar && is_float);
    if !ok {
        let name = cx.desc(i).map_or("atomic", |d| d.name);
        let n = cx.name(rt);
        let what = if int_only { "an integer scalar" } else { "an integer or floating-point scalar" };
        let d = cx.error(
            "ext.untyped-access-type",
            i,
            format!("{name} through an untyped pointer: expected Result Type {n} to be {what} type"),
        );
        d.label = String::from("an untyped pointer's memory is interpreted with this Result Type");
    }
}

fn variable(cx: &mut Context<'_>, i: usize) {
    let inst = &cx.insts()[i];
    let ops = &inst.operands;
    let (Some(&rt), Some(&sc)) = (ops.first(), ops.get(2)) else { return };
    let data = ops.get(3).copied();
    let init = ops.get(4).copied();
    let scn = OperandKind::StorageClass.enumerant(sc).map_or("?", |e| e.name);
    let rt_sc = (cx.def_opcode(rt) == Some(op::OpTypeUntypedPointerKHR)).then(|| pointer_storage(cx, rt)).flatten();
    if rt_sc != Some(sc) {
        let n = cx.name(rt);
        let msg = match rt_sc {
            None => format!("OpUntypedVariableKHR's Result Type {n} must be an OpTypeUntypedPointerKHR"),
            Some(other) => format!(
                "OpUntypedVariableKHR's Storage Class {scn} does not match the storage class {} of its Result Type {n}",
                OperandKind::StorageClass.enumerant(other).map_or("?", |e| e.name)
            ),
        };
        let d = cx.error_related("ext.untyped-storage-class", i, msg, cx.def(rt).map(|d| (d, format!("{n} is declared here"))));
        d.label = String::from("storage class disagreement");
    }
    if sc == storage_class::Generic {
        let d = cx.error("ext.untyped-storage-class", i, String::from("OpUntypedVariableKHR's Storage Class must not be Generic"));
        d.label = String::from("Generic is not a storage class variables can be allocated in");
    }
    if data.is_none() && matches!(sc, storage_class::Function | storage_class::Private | storage_class::Workgroup) {
        let d = cx.error(
            "ext.untyped-data-type",
            i,
            format!("Data type must be specified for Function, Private, and Workgroup storage classes: this {scn} variable has none"),
        );
        d.label = String::from("no Data Type");
        d.help = Some(String::from("add the type of the object in memory after the storage class"));
    }
    if let (Some(dt), Some(iv)) = (data, init)
        && cx.type_of(iv).is_some_and(|t| t != dt) {
            let (dn, iname) = (cx.name(dt), cx.name(iv));
            let d = cx.error("ext.untyped-data-type", i, format!("Initializer {iname} must have the Data Type {dn}"));
            d.label = String::from("initializer type differs from the Data Type");
        }
}

fn access_chain(cx: &mut Context<'_>, i: usize) {
    let inst = &cx.insts()[i];
    let ops = &inst.operands;
    let (Some(&rt), Some(&bt), Some(&base)) = (ops.first(), ops.get(2), ops.get(3)) else { return };
    let opname = cx.desc(i).map_or("OpUntypedAccessChainKHR", |d| d.name);
    if matches!(cx.def_opcode(bt), Some(op::OpTypePointer | op::OpTypeUntypedPointerKHR)) || !is_data_type(cx, bt) {
        let n = cx.name(bt);
        let d = cx.error("ext.untyped-base-type", i, format!("{opname}: Base type {n} must be a non-pointer type"));
        d.label = format!("{n} is a pointer type or not a type");
    }
    let base_sc = cx.type_of(base).and_then(|t| pointer_storage(cx, t));
    let Some(base_sc) = base_sc else {
        let n = cx.name(base);
        let d = cx.error("ext.untyped-base-type", i, format!("{opname}: Base {n} must be a pointer"));
        d.label = format!("{n} is not a pointer");
        return;
    };
    let rt_sc = (cx.def_opcode(rt) == Some(op::OpTypeUntypedPointerKHR)).then(|| pointer_storage(cx, rt)).flatten();
    if rt_sc != Some(base_sc) {
        let n = cx.name(rt);
        let d = cx.error(
            "ext.untyped-storage-class",
            i,
            format!("The result pointer storage class and base pointer storage class in {opname} do not match: Result Type {n} must be an OpTypeUntypedPointerKHR in the storage class of Base"),
        );
        d.label = String::from("storage class disagreement");
    }
}

fn array_length(cx: &mut Context<'_>, i: usize) {
    let inst = &cx.insts()[i];
    let ops = &inst.operands;
    let (Some(&rt), Some(&st), Some(&p), Some(&member)) = (ops.first(), ops.get(2), ops.get(3), ops.get(4)) else { return };
    if scalar_int(cx, rt) != Some((32, 0)) {
        let n = cx.name(rt);
        let d = cx.error("ext.untyped-array-length", i, format!("OpUntypedArrayLengthKHR's Result Type {n} must be a 32-bit unsigned integer"));
        d.label = String::from("not a 32-bit unsigned integer");
    }
    if cx.type_of(p).and_then(|t| pointer_storage(cx, t)).is_none() {
        let n = cx.name(p);
        let d = cx.error("ext.untyped-array-length", i, format!("OpUntypedArrayLengthKHR's Pointer {n} must be a pointer"));
        d.label = String::from("not a pointer");
    }
    let sname = cx.name(st);
    let Some(s) = cx.def_inst(st).filter(|s| s.opcode == op::OpTypeStruct) else {
        let d = cx.error("ext.untyped-array-length", i, format!("OpUntypedArrayLengthKHR's Structure {sname} must be an OpTypeStruct"));
        d.label = String::from("not a structure type");
        return;
    };
    let n = s.operands.len().saturating_sub(1) as u32;
    let sdef = cx.def(st);
    if has_decoration(cx, st, decoration::Block).is_none() {
        let msg = format!("OpUntypedArrayLengthKHR's Structure {sname} must be decorated Block");
        let d = cx.error_related("ext.untyped-array-length", i, msg, sdef.map(|d| (d, format!("{sname} is declared here"))));
        d.label = String::from("the structure is not a Block");
        d.help = Some(format!("add `OpDecorate {sname} Block`"));
    }
    let last_rta = s.operands.last().filter(|_| n > 0).is_some_and(|&m| cx.def_opcode(m) == Some(op::OpTypeRuntimeArray));
    if !last_rta {
        let msg = format!("The last member of {sname} must be a runtime array");
        let d = cx.error_related("ext.untyped-array-length", i, msg, sdef.map(|d| (d, format!("{sname} is declared here"))));
        d.label = String::from("OpUntypedArrayLengthKHR needs a runtime-array last member");
    } else if member + 1 != n {
        let d = cx.error(
            "ext.untyped-array-length",
            i,
            format!("The array member in OpUntypedArrayLengthKHR must be the last member of the struct: {sname} has {n} members, not {member}"),
        );
        d.label = format!("member {member} is not the last member {}", n - 1);
    }
}
