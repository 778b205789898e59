//! The composite instructions: OpCompositeConstruct, OpCompositeExtract and
//! Insert, OpVectorShuffle, OpVectorExtractDynamic and InsertDynamic,
//! OpCopyObject, OpTranspose and OpCopyLogical (SPIR-V 3.49.12 "Composite
//! Instructions"; SPIRV-Tools validate_composites).
//!
//! Types the typed IR does not model (cooperative matrices, OpTypeVectorIdEXT)
//! are left unchecked.

use super::Context;
use super::memory::{describe, describe_value, op_name};
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::op;
use crate::ir::Type;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.composite.construct",
        summary: "OpCompositeConstruct's constituents must match the Result Type's components, in number and type.",
        explanation: "SPIR-V 3.49.12 OpCompositeConstruct: \"Constituents become members of a \
                      structure, elements of an array, columns of a matrix, or components of a \
                      vector. ... There must be exactly one Constituent for each top-level \
                      member/element/column of the result, with one exception: when constructing \
                      a vector, Constituents may also be vectors with the same component type as \
                      the Result Type component type; the total number of components must then \
                      be the Result Type's.\" Each constituent's type must be the member's type.",
    },
    Rule {
        code: "inst.composite.index",
        summary: "A composite's literal indexes must stay inside it.",
        explanation: "SPIR-V 3.49.12 OpCompositeExtract/OpCompositeInsert: \"Indexes walk the type \
                      hierarchy to the desired depth, potentially down to component granularity\"; \
                      each index must select an existing member, element, column or component, \
                      and no index may remain once a non-composite type is reached. There must \
                      be at least one index.",
    },
    Rule {
        code: "inst.composite.result-type",
        summary: "The Result Type of an extract, insert, copy or shuffle must be the type it produces.",
        explanation: "OpCompositeExtract's Result Type must be the type the indexes reach; \
                      OpCompositeInsert's and OpVectorInsertDynamic's must be the Composite's \
                      (Vector's) type; OpCopyObject's must be its Operand's; OpVectorShuffle's a \
                      vector with one component per literal; OpVectorExtractDynamic's the \
                      vector's component type (SPIR-V 3.49.12).",
    },
    Rule {
        code: "inst.composite.operand-type",
        summary: "The operands of a composite instruction must have the types its definition requires.",
        explanation: "OpCompositeInsert's Object must have the type the indexes reach; \
                      OpVectorShuffle's vectors must be vectors of the Result Type's component \
                      type, and each component literal below their total size (or 0xFFFFFFFF); \
                      the dynamic vector instructions take a vector, a component of its type and \
                      an integer scalar Index; OpTranspose's Matrix must have the transposed shape \
                      and the same component type (SPIR-V 3.49.12).",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

/// The type `id` as the IR models it.
fn ty<'a>(cx: &Context<'a>, id: u32) -> Option<&'a Type> {
    cx.ir().ty(id).map(|t| &t.ty)
}

/// The type of value `id`, if it is a value.
fn vty(cx: &Context<'_>, id: u32) -> Option<u32> {
    cx.type_of(id)
}

fn is_modelled(t: &Type) -> bool {
    !matches!(t, Type::Other { .. } | Type::Opaque { .. })
}

pub(super) fn check(cx: &mut Context<'_>) {
    let insts = cx.insts();
    let long_vectors = insts.iter().any(|x| {
        x.opcode == op::OpCapability
            && x.operands.first().is_some_and(|&c| {
                crate::grammar::OperandKind::Capability.enumerant(c).is_some_and(|e| e.name == "LongVectorEXT")
            })
    });
    for (i, inst) in insts.iter().enumerate() {
        let w = inst.operands.as_slice();
        match inst.opcode {
            op::OpCompositeConstruct => construct(cx, i, w, long_vectors),
            op::OpCompositeExtract => extract(cx, i, w),
            op::OpCompositeInsert => insert(cx, i, w),
            op::OpVectorShuffle => shuffle(cx, i, w),
            op::OpVectorExtractDynamic => extract_dynamic(cx, i, w),
            op::OpVectorInsertDynamic => insert_dynamic(cx, i, w),
            op::OpCopyObject => copy_object(cx, i, w),
            op::OpTranspose => transpose(cx, i, w),
            op::OpCopyLogical => copy_logical(cx, i, w),
            _ => {}
        }
    }
}

fn wrong_type(cx: &mut Context<'_>, code: &'static str, i: usize, k: usize, what: &str, id: u32, want: u32) {
    let v = describe_value(cx, id);
    let t = describe(cx, want);
    let short = cx.name(want);
    let d = cx.error_at(code, i, k, format!("{what} is {v}, but {t} was expected"));
    d.label = format!("expected {short}");
}

fn construct(cx: &mut Context<'_>, i: usize, w: &[u32], long_vectors: bool) {
    let [rt, _id, parts @ ..] = w else { return };
    let Some(t) = ty(cx, *rt) else { return };
    let first_k = 2;
    let expected: Vec<u32> = match t {
        Type::Vector { component, count } => {
            let (component, count) = (*component, *count);
            if parts.len() < 2 && !long_vectors {
                let r = describe(cx, *rt);
                let d = cx.error_at(
                    "inst.composite.construct",
                    i,
                    0,
                    format!("OpCompositeConstruct of the vector {r} needs at least 2 constituents, {} given", parts.len()),
                );
                d.label = String::from("at least 2 constituents");
                return;
            }
            let mut total = 0u64;
            let mut bad = false;
            for (n, &p) in parts.iter().enumerate() {
                let pt = vty(cx, p);
                if pt == Some(component) {
                    total += 1;
                    continue;
                }
                match pt.and_then(|x| ty(cx, x)) {
                    Some(&Type::Vector { component: c, count: m }) if c == component => total += m as u64,
                    _ => {
                        bad = true;
                        let v = describe_value(cx, p);
                        let c = describe(cx, component);
                        let short = cx.name(component);
                        let d = cx.error_at(
                            "inst.composite.construct",
                            i,
                            first_k + n,
                            format!("constituent {v} must be a {c} or a vector of them"),
                        );
                        d.label = format!("expected {short} or a vector of {short}");
                    }
                }
            }
            if !bad && total != count as u64 {
                let r = describe(cx, *rt);
                let d = cx.error_at(
                    "inst.composite.construct",
                    i,
                    0,
                    format!("the constituents of OpCompositeConstruct give {total} components, but {r} has {count}"),
                );
                d.label = format!("expected {count} components");
            }
            return;
        }
        // A bad column count (the type rules report it) is not allocated.
        Type::Matrix { column, columns } if *columns <= 1 << 20 => alloc::vec![*column; *columns as usize],
        Type::Matrix { .. } => return,
        Type::Array { element, length, len } => {
            let spec = cx.def_opcode(*length).is_some_and(|o| {
                matches!(o, op::OpSpecConstant | op::OpSpecConstantOp | op::OpSpecConstantTrue | op::OpSpecConstantFalse | op::OpSpecConstantComposite)
            });
            match (spec, len) {
                (false, Some(n)) if *n <= 1 << 20 => alloc::vec![*element; *n as usize],
                // A spec-constant length cannot be checked (nor, like spirv-val, the types).
                _ => return,
            }
        }
        Type::Struct { members } => members.iter().map(|m| m.ty).collect(),
        t if !is_modelled(t) => return,
        _ => {
            let r = describe(cx, *rt);
            let d = cx.error_at(
                "inst.composite.construct",
                i,
                0,
                format!("OpCompositeConstruct's Result Type must be a composite type, but it is {r}"),
            );
            d.label = String::from("expected a vector, matrix, array or struct");
            return;
        }
    };
    if expected.len() != parts.len() {
        let r = describe(cx, *rt);
        let d = cx.error_at(
            "inst.composite.construct",
            i,
            0,
            format!("OpCompositeConstruct has {} constituents, but {r} has {}", parts.len(), expected.len()),
        );
        d.label = format!("expected {} constituents", expected.len());
        return;
    }
    for (n, (&p, &e)) in parts.iter().zip(&expected).enumerate() {
        if vty(cx, p) != Some(e) {
            wrong_type(cx, "inst.composite.construct", i, first_k + n, "constituent", p, e);
        }
    }
}

/// Walk `indexes` (literals at operands `first_k..`) from type `start`;
/// reports a bad index and returns None.
fn walk(cx: &mut Context<'_>, i: usize, start: u32, indexes: &[u32], first_k: usize) -> Option<u32> {
    let opname = op_name(cx.insts()[i].opcode);
    if indexes.is_empty() {
        cx.error_at("inst.composite.index", i, first_k - 1, format!("{opname} needs at least one index"));
        return None;
    }
    let mut cur = start;
    for (n, &idx) in indexes.iter().enumerate() {
        let k = first_k + n;
        let (next, size): (u32, Option<u64>) = match ty(cx, cur)? {
            Type::Vector { component, count } => (*component, Some(*count as u64)),
            Type::Matrix { column, columns } => (*column, Some(*columns as u64)),
            Type::Array { element, length, len } => {
                let spec = cx.def_opcode(*length).is_some_and(|o| o == op::OpSpecConstant || o == op::OpSpecConstantOp);
                (*element, if spec { None } else { *len })
            }
            Type::RuntimeArray { element } => (*element, None),
            Type::Struct { members } => {
                if (idx as usize) >= members.len() {
                    let (s, m) = (cx.name(cur), members.len());
                    let d = cx.error_at(
                        "inst.composite.index",
                        i,
                        k,
                        format!("{opname}'s index {idx} is out of range: the structure {s} has {m} members"),
                    );
                    d.label = String::from("no such member");
                    return None;
                }
                (members[idx as usize].ty, None)
            }
            t if !is_modelled(t) => return None,
            _ => {
                let t = describe(cx, cur);
                let d = cx.error_at(
                    "inst.composite.index",
                    i,
                    k,
                    format!("{opname} has reached {t}, which is not a composite, while indexes remain"),
                );
                d.label = String::from("one index too many");
                return None;
            }
        };
        if let Some(size) = size
            && idx as u64 >= size {
                let t = describe(cx, cur);
                let d = cx.error_at(
                    "inst.composite.index",
                    i,
                    k,
                    format!("{opname}'s index {idx} is out of range for {t}, which has {size}"),
                );
                d.label = format!("expected an index below {size}");
                return None;
            }
        cur = next;
    }
    Some(cur)
}

fn not_composite_value(cx: &mut Context<'_>, i: usize, k: usize, id: u32) {
    let opname = op_name(cx.insts()[i].opcode);
    let v = describe_value(cx, id);
    let d = cx.error_at("inst.composite.operand-type", i, k, format!("{opname}'s Composite must be a composite value, but it is {v}"));
    d.label = String::from("expected a composite");
}

fn extract(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, comp, idx @ ..] = w else { return };
    let Some(ct) = vty(cx, *comp) else {
        not_composite_value(cx, i, 2, *comp);
        return;
    };
    let Some(member) = walk(cx, i, ct, idx, 3) else { return };
    if member != *rt {
        let (r, m) = (describe(cx, *rt), describe(cx, member));
        let short = cx.name(member);
        let d = cx.error_at(
            "inst.composite.result-type",
            i,
            0,
            format!("OpCompositeExtract's Result Type is {r}, but the indexes reach {m}"),
        );
        d.label = format!("expected {short}");
    }
}

fn insert(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, obj, comp, idx @ ..] = w else { return };
    let Some(ct) = vty(cx, *comp) else {
        not_composite_value(cx, i, 3, *comp);
        return;
    };
    if ct != *rt {
        let (r, c) = (describe(cx, *rt), describe(cx, ct));
        let short = cx.name(ct);
        let d = cx.error_at(
            "inst.composite.result-type",
            i,
            0,
            format!("OpCompositeInsert's Result Type is {r}, but its Composite has type {c}"),
        );
        d.label = format!("expected {short}");
    }
    let Some(member) = walk(cx, i, ct, idx, 4) else { return };
    if vty(cx, *obj) != Some(member) {
        wrong_type(cx, "inst.composite.operand-type", i, 2, "OpCompositeInsert's Object", *obj, member);
    }
}

fn vector_of(cx: &Context<'_>, t: Option<u32>) -> Option<(u32, u32)> {
    match ty(cx, t?)? {
        Type::Vector { component, count } => Some((*component, *count)),
        _ => None,
    }
}

fn shuffle(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, v1, v2, lits @ ..] = w else { return };
    let Some(rtt) = ty(cx, *rt) else { return };
    if !is_modelled(rtt) {
        return;
    }
    let Some((rc, rn)) = vector_of(cx, Some(*rt)) else {
        let r = describe(cx, *rt);
        let d = cx.error_at("inst.composite.result-type", i, 0, format!("OpVectorShuffle's Result Type must be a vector, but it is {r}"));
        d.label = String::from("expected a vector type");
        return;
    };
    if lits.len() != rn as usize {
        let r = describe(cx, *rt);
        let d = cx.error_at(
            "inst.composite.result-type",
            i,
            0,
            format!("OpVectorShuffle has {} component literals, but its Result Type {r} has {rn} components", lits.len()),
        );
        d.label = format!("expected {} components", lits.len());
    }
    let mut total = Some(0u32);
    for (k, v) in [(2usize, *v1), (3, *v2)] {
        let what = if k == 2 { "OpVectorShuffle's Vector 1" } else { "OpVectorShuffle's Vector 2" };
        let vt = vty(cx, v);
        if vt.and_then(|t| ty(cx, t)).is_some_and(|t| !is_modelled(t)) {
            return;
        }
        match vector_of(cx, vt) {
            Some((c, n)) if c == rc => total = total.map(|t| t + n),
            Some(_) => {
                total = None;
                let val = describe_value(cx, v);
                let c = cx.name(rc);
                let d = cx.error_at(
                    "inst.composite.operand-type",
                    i,
                    k,
                    format!("{what} is {val}, but its components must be {c}, the Result Type's"),
                );
                d.label = format!("expected a vector of {c}");
            }
            None => {
                total = None;
                let val = describe_value(cx, v);
                let d = cx.error_at("inst.composite.operand-type", i, k, format!("{what} must be a vector, but it is {val}"));
                d.label = String::from("expected a vector");
            }
        }
    }
    let Some(n) = total else { return };
    for (m, &l) in lits.iter().enumerate() {
        if l != 0xFFFF_FFFF && l >= n {
            let d = cx.error_at(
                "inst.composite.operand-type",
                i,
                4 + m,
                format!("OpVectorShuffle's component {l} is out of range: the two vectors have {n} components"),
            );
            d.label = format!("expected below {n}, or 0xFFFFFFFF");
        }
    }
}

fn int_scalar(cx: &Context<'_>, id: u32) -> bool {
    matches!(vty(cx, id).and_then(|t| ty(cx, t)), Some(Type::Int { .. }))
}

fn bad_index(cx: &mut Context<'_>, i: usize, k: usize, id: u32) {
    let v = describe_value(cx, id);
    let d = cx.error_at("inst.composite.operand-type", i, k, format!("the Index must be an integer scalar, but it is {v}"));
    d.label = String::from("expected an integer scalar");
}

fn extract_dynamic(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, v, index] = w else { return };
    let Some(rtt) = ty(cx, *rt) else { return };
    if !is_modelled(rtt) {
        return;
    }
    if !matches!(rtt, Type::Bool | Type::Int { .. } | Type::Float { .. }) {
        let r = describe(cx, *rt);
        let d = cx.error_at("inst.composite.result-type", i, 0, format!("OpVectorExtractDynamic's Result Type must be a scalar, but it is {r}"));
        d.label = String::from("expected a scalar type");
        return;
    }
    let vt = vty(cx, *v);
    if vt.and_then(|t| ty(cx, t)).is_some_and(|t| !is_modelled(t)) {
        return;
    }
    match vector_of(cx, vt) {
        None => {
            let val = describe_value(cx, *v);
            let d = cx.error_at("inst.composite.operand-type", i, 2, format!("OpVectorExtractDynamic's Vector must be a vector, but it is {val}"));
            d.label = String::from("expected a vector");
            return;
        }
        Some((c, _)) if c != *rt => {
            let (r, cd) = (describe(cx, *rt), describe(cx, c));
            let short = cx.name(c);
            let d = cx.error_at(
                "inst.composite.result-type",
                i,
                0,
                format!("OpVectorExtractDynamic's Result Type is {r}, but the Vector's components are {cd}"),
            );
            d.label = format!("expected {short}");
            return;
        }
        _ => {}
    }
    if !int_scalar(cx, *index) {
        bad_index(cx, i, 3, *index);
    }
}

fn insert_dynamic(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, v, comp, index] = w else { return };
    let Some(rtt) = ty(cx, *rt) else { return };
    if !is_modelled(rtt) {
        return;
    }
    let Some((rc, _)) = vector_of(cx, Some(*rt)) else {
        let r = describe(cx, *rt);
        let d = cx.error_at("inst.composite.result-type", i, 0, format!("OpVectorInsertDynamic's Result Type must be a vector, but it is {r}"));
        d.label = String::from("expected a vector type");
        return;
    };
    if vty(cx, *v) != Some(*rt) {
        wrong_type(cx, "inst.composite.operand-type", i, 2, "OpVectorInsertDynamic's Vector", *v, *rt);
    }
    if vty(cx, *comp) != Some(rc) {
        wrong_type(cx, "inst.composite.operand-type", i, 3, "OpVectorInsertDynamic's Component", *comp, rc);
    }
    if !int_scalar(cx, *index) {
        bad_index(cx, i, 4, *index);
    }
}

fn copy_object(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, operand] = w else { return };
    if vty(cx, *operand) != Some(*rt) {
        let (v, r) = (describe_value(cx, *operand), describe(cx, *rt));
        let d = cx.error_at(
            "inst.composite.result-type",
            i,
            0,
            format!("OpCopyObject's Result Type {r} must be the type of its Operand, {v}"),
        );
        d.label = String::from("expected the Operand's type");
        return;
    }
    if matches!(ty(cx, *rt), Some(Type::Void)) {
        cx.error_at("inst.composite.result-type", i, 0, String::from("OpCopyObject cannot have void Result Type"));
    }
}

/// (columns, rows, component) of a matrix type.
fn matrix_of(cx: &Context<'_>, t: Option<u32>) -> Option<(u32, u32, u32)> {
    match ty(cx, t?)? {
        Type::Matrix { column, columns } => {
            let (c, rows) = vector_of(cx, Some(*column))?;
            Some((*columns, rows, c))
        }
        _ => None,
    }
}

fn transpose(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, m] = w else { return };
    let Some((rcols, rrows, rc)) = matrix_of(cx, Some(*rt)) else {
        let r = describe(cx, *rt);
        let d = cx.error_at("inst.composite.result-type", i, 0, format!("OpTranspose's Result Type must be a matrix, but it is {r}"));
        d.label = String::from("expected a matrix type");
        return;
    };
    let Some((mcols, mrows, mc)) = matrix_of(cx, vty(cx, *m)) else {
        let v = describe_value(cx, *m);
        let d = cx.error_at("inst.composite.operand-type", i, 2, format!("OpTranspose's Matrix must be a matrix, but it is {v}"));
        d.label = String::from("expected a matrix");
        return;
    };
    if rc != mc || rcols != mrows || rrows != mcols {
        let (v, r) = (describe_value(cx, *m), describe(cx, *rt));
        let d = cx.error_at(
            "inst.composite.operand-type",
            i,
            2,
            format!(
                "OpTranspose's Matrix is {v} ({mcols} columns of {mrows}), but the Result Type {r} ({rcols} columns of {rrows}) needs {rrows} columns of {rcols} with the same component type"
            ),
        );
        d.label = String::from("expected the transposed shape");
    }
}

fn copy_logical(cx: &mut Context<'_>, i: usize, w: &[u32]) {
    let [rt, _id, operand] = w else { return };
    if vty(cx, *operand) == Some(*rt) {
        let r = describe(cx, *rt);
        let d = cx.error_at(
            "inst.composite.result-type",
            i,
            0,
            format!("OpCopyLogical's Result Type {r} must not be its Operand's type (use OpCopyObject)"),
        );
        d.label = String::from("same type as the Operand");
    }
}
