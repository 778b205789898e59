//! The leaves of a binding: where each scalar lies in its bytes, walked over
//! the type tree as [`crate::interp::values::show`] reads it (members at
//! their Offset, array elements at their ArrayStride, matrix columns or rows
//! at the member's MatrixStride; a runtime array as long as the bytes
//! allow). The layout itself is the IR's (`ir::layout`), carried by the
//! reflection's type tree.

use crate::reflect::{TypeNode, TypeShape};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// How a leaf's bits read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub enum LeafKind {
    Int,
    Uint,
    Float,
}

/// One scalar of a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub struct Leaf {
    /// Its path from the binding (`data[3]`, `m.x[1]`; `(value)` for a
    /// scalar binding), as [`crate::interp::values::Shown::lines`] names it.
    pub path: String,
    /// Its first byte.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u32,
    pub kind: LeafKind,
}

/// Deeper type trees are not walked (reflection stops there too).
const MAX_DEPTH: u32 = 32;

/// The leaves of `ty` over `len` bytes.
pub(super) fn of(ty: &TypeNode, len: usize) -> Vec<Leaf> {
    let mut out = Vec::new();
    walk(ty, 0, &mut String::new(), None, 0, len as u64, &mut out);
    out
}

fn scalar(n: &TypeNode) -> Option<(LeafKind, u32)> {
    match n.shape {
        TypeShape::Float { width } => Some((LeafKind::Float, width / 8)),
        TypeShape::Int { width, signed } => Some((if signed { LeafKind::Int } else { LeafKind::Uint }, width / 8)),
        _ => None,
    }
}

fn push(out: &mut Vec<Leaf>, path: &str, offset: u64, (kind, size): (LeafKind, u32)) {
    let path = if path.is_empty() { String::from("(value)") } else { String::from(path) };
    out.push(Leaf { path, offset, size, kind });
}

/// `mat`: the matrix stride and row-majorness of the member being walked.
fn walk(n: &TypeNode, at: u64, path: &mut String, mat: Option<(u32, bool)>, depth: u32, total: u64, out: &mut Vec<Leaf>) {
    if depth > MAX_DEPTH || (at >= total && !matches!(n.shape, TypeShape::Struct)) {
        return;
    }
    if let Some(s) = scalar(n) {
        if at + s.1 as u64 <= total {
            push(out, path, at, s);
        }
        return;
    }
    let keep = path.len();
    match &n.shape {
        TypeShape::Vector { count } => {
            let Some(s) = n.element.as_deref().and_then(scalar) else { return };
            for i in 0..*count as u64 {
                let off = at + i * s.1 as u64;
                if off + s.1 as u64 > total {
                    break;
                }
                path.push_str(&format!("[{i}]"));
                push(out, path, off, s);
                path.truncate(keep);
            }
        }
        TypeShape::Matrix { columns } => {
            let Some(col) = n.element.as_deref() else { return };
            let (TypeShape::Vector { count: rows }, Some(s)) = (&col.shape, col.element.as_deref().and_then(scalar)) else {
                return;
            };
            let size = s.1 as u64;
            let (stride, row_major) = mat.map_or((*rows as u64 * size, false), |(st, r)| (st as u64, r));
            for c in 0..*columns as u64 {
                let offs: Vec<u64> = (0..*rows as u64).map(|r| at + if row_major { r * stride + c * size } else { c * stride + r * size }).collect();
                // A column is shown whole or not at all.
                if offs.iter().any(|o| o + size > total) {
                    break;
                }
                for (r, off) in offs.into_iter().enumerate() {
                    path.push_str(&format!("[{c}][{r}]"));
                    push(out, path, off, s);
                    path.truncate(keep);
                }
            }
        }
        TypeShape::Array { .. } | TypeShape::RuntimeArray => {
            let Some(e) = n.element.as_deref() else { return };
            let Some(stride) = n.array_stride.map(u64::from).or(e.size) else { return };
            let len = match n.shape {
                TypeShape::Array { length: Some(k) } => k,
                TypeShape::Array { length: None } => return,
                _ if stride == 0 => 0,
                _ => (total - at) / stride,
            };
            let len = if stride == 0 { len.min(1) } else { len };
            for i in 0..len {
                let off = at.saturating_add(i.saturating_mul(stride));
                if off >= total && !matches!(e.shape, TypeShape::Struct) {
                    break;
                }
                path.push_str(&format!("[{i}]"));
                walk(e, off, path, mat, depth + 1, total, out);
                path.truncate(keep);
            }
        }
        TypeShape::Struct => {
            // A member without a name by its index among those laid out.
            for (i, m) in n.members.iter().filter(|m| m.offset.is_some()).enumerate() {
                let off = m.offset.unwrap_or(0);
                if !path.is_empty() {
                    path.push('.');
                }
                match &m.name {
                    Some(name) => path.push_str(name),
                    None => path.push_str(&format!("{i}")),
                }
                let mat = m.matrix_stride.map(|s| (s, m.row_major == Some(true)));
                walk(&m.ty, at.saturating_add(off as u64), path, mat, depth + 1, total, out);
                path.truncate(keep);
            }
        }
        _ => {}
    }
}
