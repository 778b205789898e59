//! The natural C (OpenCL) layout, which a Kernel module takes where it has
//! no explicit layout decorations: a scalar's size and alignment are its
//! width in bytes (a boolean 1), a vector of n components has the size and
//! alignment of n (3 taken as 4) components, an array is its elements one
//! after another, a struct's members are aligned to their alignment and its
//! size rounded up to its largest alignment; a pointer is 8 bytes under
//! Physical64, else 4.

use super::{Ir, Type, addressing};
use crate::grammar;

/// Whether the module has a Kernel entry point (its memory without explicit
/// layout takes the natural C layout).
pub(crate) fn is_kernel_module(ir: &Ir) -> bool {
    ir.entry_points
        .iter()
        .any(|e| e.model == grammar::execution_model::Kernel)
}

/// The byte size of a pointer: 8 under Physical64, else 4.
fn pointer_bytes(ir: &Ir) -> u64 {
    if addressing(ir) == Some(grammar::addressing_model::Physical64) { 8 } else { 4 }
}

/// The natural C (OpenCL) layout of type `ty`: (size, alignment) in bytes.
pub(crate) fn natural(ir: &Ir, ty: u32) -> Option<(u64, u64)> {
    natural_at(ir, ty, 0)
}

fn natural_at(ir: &Ir, ty: u32, depth: u32) -> Option<(u64, u64)> {
    if depth > 64 {
        return None;
    }
    let t = ir.ty(ty)?;
    Some(match &t.ty {
        Type::Bool => (1, 1),
        Type::Int { width, .. } | Type::Float { width, .. } => {
            let b = (*width as u64 / 8).max(1);
            (b, b)
        }
        Type::Vector { component, count } => {
            let (c, _) = natural_at(ir, *component, depth + 1)?;
            let n = if *count == 3 { 4 } else { *count as u64 };
            (c * n, c * n)
        }
        Type::Matrix { column, columns } => {
            let (c, a) = natural_at(ir, *column, depth + 1)?;
            (c.checked_mul(*columns as u64)?, a)
        }
        Type::Array { element, len, .. } => {
            let (e, a) = natural_at(ir, *element, depth + 1)?;
            let stride = t.array_stride.map_or(e, |s| s as u64);
            (stride.checked_mul((*len)?)?, a)
        }
        Type::Struct { members } => {
            let (mut size, mut align) = (0u64, 1u64);
            for m in members {
                let (s, a) = natural_at(ir, m.ty, depth + 1)?;
                let at = match m.offset {
                    Some(o) => o as u64,
                    None => size.div_ceil(a) * a,
                };
                size = size.max(at.checked_add(s)?);
                align = align.max(a);
            }
            (size.div_ceil(align) * align, align)
        }
        Type::Pointer { .. } => {
            let p = pointer_bytes(ir);
            (p, p)
        }
        _ => return None,
    })
}

/// The ArrayStride of array type `ty`: its decoration, else in a kernel
/// module its element's natural size.
pub(crate) fn array_stride(ir: &Ir, ty: u32) -> Option<u32> {
    let t = ir.ty(ty)?;
    if let Some(s) = t.array_stride {
        return Some(s);
    }
    if !is_kernel_module(ir) {
        return None;
    }
    match &t.ty {
        Type::Array { element, .. } | Type::RuntimeArray { element } => {
            natural(ir, *element).and_then(|(s, _)| u32::try_from(s).ok())
        }
        _ => None,
    }
}

/// The Offset of member `k` of struct `ty`: its decoration, else in a
/// kernel module its natural offset.
pub(crate) fn member_offset(ir: &Ir, ty: u32, k: usize) -> Option<u32> {
    let Type::Struct { members } = &ir.ty(ty)?.ty else {
        return None;
    };
    if let Some(o) = members.get(k)?.offset {
        return Some(o);
    }
    if !is_kernel_module(ir) {
        return None;
    }
    natural_part(ir, ty, k).and_then(|(_, at)| u32::try_from(at).ok())
}

/// Part `k` of a composite of type `ty` in the natural layout (with the
/// module's ArrayStride and Offset where it gives them): its type and byte
/// offset.
pub(crate) fn natural_part(ir: &Ir, ty: u32, k: usize) -> Option<(u32, u64)> {
    let t = ir.ty(ty)?;
    match &t.ty {
        Type::Vector { component, .. } => Some((*component, natural(ir, *component)?.0 * k as u64)),
        Type::Matrix { column, .. } => Some((*column, natural(ir, *column)?.0 * k as u64)),
        Type::Array { element, .. } => {
            let s = t.array_stride.map(|s| s as u64).or(natural(ir, *element).map(|n| n.0))?;
            Some((*element, s * k as u64))
        }
        Type::Struct { members } => {
            let m = members.get(k)?;
            let mut at = 0u64;
            for (j, x) in members.iter().enumerate() {
                let (s, a) = natural(ir, x.ty)?;
                let here = x.offset.map_or(at.div_ceil(a) * a, |o| o as u64);
                if j == k {
                    return Some((m.ty, here));
                }
                at = here + s;
            }
            None
        }
        _ => None,
    }
}
