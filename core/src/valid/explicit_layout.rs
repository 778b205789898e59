//! Explicit layout of buffer blocks: the structs of Uniform, StorageBuffer and
//! PushConstant variables must give every member an Offset, every array an
//! ArrayStride, and every matrix a MatrixStride and RowMajor or ColMajor
//! (SPIR-V spec 2.16.2 "Validation Rules for Shader Capabilities", 2.18.2
//! "Offset and Stride Assignment"; spirv-val's validate_decorations,
//! v2025.5). Not the module's section order, which is `layout.rs`.

use super::Context;
use super::rules::Rule;
use crate::grammar::{decoration as dec, storage_class as sc};
use crate::ir::Type;
use alloc::format;
use alloc::vec::Vec;

pub(super) static RULES: &[Rule] = &[Rule {
    code: "inst.explicit-layout.missing",
    summary: "A buffer block's members, arrays and matrices must be explicitly laid out.",
    explanation: "SPIR-V spec 2.16.2: a struct decorated Block or BufferBlock that is the type \
                  of a Uniform, StorageBuffer or PushConstant variable (and every struct nested \
                  in it) must give each member an Offset; each array type in it an ArrayStride; \
                  each matrix member (or array of matrices) a MatrixStride and RowMajor or \
                  ColMajor. These decorations are the memory layout the host shares with the \
                  shader. Fix: add `OpMemberDecorate %struct N Offset B`, `OpDecorate %array \
                  ArrayStride S`, `OpMemberDecorate %struct N MatrixStride 16` and `ColMajor`.",
}];

const MISSING: &str = "inst.explicit-layout.missing";

/// The pass.
pub(super) fn check(cx: &mut Context<'_>) {
    let ir = cx.ir();
    // (struct, member, what) already reported.
    let mut reported: Vec<(u32, u32, u8)> = Vec::new();
    for v in &ir.globals {
        if !matches!(v.storage, sc::Uniform | sc::StorageBuffer | sc::PushConstant) {
            continue;
        }
        let Some(mut data) = v.pointee else { continue };
        if let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) = ir.ty(data).map(|t| &t.ty) {
            data = *element;
        }
        if !matches!(ir.ty(data).map(|t| &t.ty), Some(Type::Struct { .. })) {
            continue;
        }
        let block = ir.has_decoration(data, dec::Block);
        let buffer_block = ir.has_decoration(data, dec::BufferBlock);
        let deco = match v.storage {
            sc::Uniform if block => "Block",
            sc::Uniform if buffer_block => "BufferBlock",
            sc::StorageBuffer | sc::PushConstant if block => "Block",
            _ => continue,
        };
        let var = Var { id: v.id, storage: v.storage, deco };
        offsets(cx, data, &var, &mut reported);
        strides(cx, data, &var, &mut reported);
    }
}

/// The variable whose type requires the layout.
struct Var {
    id: u32,
    storage: u32,
    deco: &'static str,
}

fn members(cx: &Context<'_>, st: u32) -> Vec<u32> {
    match cx.ir().ty(st).map(|t| &t.ty) {
        Some(Type::Struct { members }) => members.iter().map(|m| m.ty).collect(),
        _ => Vec::new(),
    }
}

fn report(cx: &mut Context<'_>, st: u32, m: u32, what: &str, var: &Var, reported: &mut Vec<(u32, u32, u8)>, kind: u8) {
    if reported.contains(&(st, m, kind)) {
        return;
    }
    reported.push((st, m, kind));
    let Some(i) = cx.def(st) else { return };
    let sname = cx.name(st);
    let vname = cx.name(var.id);
    let class = crate::grammar::OperandKind::StorageClass
        .enumerant(var.storage)
        .map_or("?", |e| e.name);
    let msg = format!(
        "member {m} of {sname} needs {what}: the struct is laid out explicitly because {class} variable {vname} uses it (decorated {})",
        var.deco
    );
    cx.error_at(MISSING, i, m as usize + 1, msg).label = format!("needs {what}");
}

/// Every member of `st` and of the structs nested in it (through arrays) has an Offset.
fn offsets(cx: &mut Context<'_>, st: u32, var: &Var, reported: &mut Vec<(u32, u32, u8)>) {
    let ir = cx.ir();
    let mut stack = alloc::vec![st];
    let mut seen: Vec<u32> = Vec::new();
    while let Some(t) = stack.pop() {
        if seen.contains(&t) || seen.len() > 4096 {
            continue;
        }
        seen.push(t);
        let ms = members(cx, t);
        for (k, &m) in ms.iter().enumerate() {
            let k = k as u32;
            let has = ir
                .member_decoration(t, k, dec::Offset)
                .is_some_and(|d| d.arg(ir) != Some(u32::MAX));
            if !has {
                report(cx, t, k, "an Offset decoration", var, reported, 0);
            }
            // Nested structs, also as array elements.
            let mut e = m;
            while let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) = ir.ty(e).map(|t| &t.ty) {
                e = *element;
            }
            if matches!(ir.ty(e).map(|t| &t.ty), Some(Type::Struct { .. })) {
                stack.push(e);
            }
        }
    }
}

/// Array members need an ArrayStride; matrix members (or arrays of matrices)
/// a MatrixStride and RowMajor or ColMajor; in `st` and its struct members
/// (spirv-val does not look into arrays of structs for these).
fn strides(cx: &mut Context<'_>, st: u32, var: &Var, reported: &mut Vec<(u32, u32, u8)>) {
    let ir = cx.ir();
    let mut stack = alloc::vec![st];
    let mut seen: Vec<u32> = Vec::new();
    while let Some(t) = stack.pop() {
        if seen.contains(&t) || seen.len() > 4096 {
            continue;
        }
        seen.push(t);
        for (k, &m) in members(cx, t).iter().enumerate() {
            let k = k as u32;
            let on = |d: u32, ty: u32| ir.has_decoration(ty, d) || ir.member_decoration(t, k, d).is_some();
            match ir.ty(m).map(|t| &t.ty) {
                Some(Type::Array { .. }) if !on(dec::ArrayStride, m) => {
                    let what = format!("an ArrayStride decoration on its array type {}", cx.name(m));
                    report(cx, t, k, &what, var, reported, 1);
                }
                Some(Type::Struct { .. }) => stack.push(m),
                _ => {}
            }
            let mut e = m;
            while let Some(Type::Array { element, .. } | Type::RuntimeArray { element }) = ir.ty(e).map(|t| &t.ty) {
                e = *element;
            }
            if matches!(ir.ty(e).map(|t| &t.ty), Some(Type::Matrix { .. })) {
                if !on(dec::MatrixStride, e) {
                    report(cx, t, k, "a MatrixStride decoration (it holds a matrix)", var, reported, 2);
                }
                if !on(dec::RowMajor, e) && !on(dec::ColMajor, e) {
                    report(cx, t, k, "a RowMajor or ColMajor decoration (it holds a matrix)", var, reported, 3);
                }
            }
        }
    }
}
