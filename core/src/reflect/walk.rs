//! One walk of a type tree over a buffer's bytes: where each scalar of a
//! binding lies (members at their Offset, array elements at their
//! ArrayStride, matrix columns or rows at the member's MatrixStride, a
//! runtime array as long as the bytes allow), the parts past the end left
//! out. The run plan's leaves (`plan::Binding::leaves`) and the shown values
//! (`interp::values::show`) both read it, so a value is named and placed
//! the same way in both.

use super::{MemberNode, TypeNode, TypeShape};

/// How a part is reached from the part that holds it.
#[derive(Clone, Copy, Debug)]
pub enum Step<'t> {
    /// The binding itself.
    Root,
    /// An array element, a vector component, a matrix column, or a
    /// column's (or row-major matrix's) component.
    Index(u64),
    /// A struct member; `index`: its place among the members laid out
    /// (those with an Offset).
    Member { index: usize, member: &'t MemberNode },
}

/// What a composite part is shown as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// A vector or a matrix column: its components.
    Vector,
    /// An array, or a matrix: its elements or columns.
    Array,
    /// A struct: its members laid out.
    Struct,
}

/// What the walk reports, in order: a composite's [`Visit::begin`], its
/// parts, its [`Visit::end`].
pub trait Visit<'t> {
    /// A scalar (an integer, a float, or a pointer: 8 bytes) whose `size`
    /// bytes at `at` lie within the buffer.
    fn scalar(&mut self, step: Step<'t>, node: &'t TypeNode, at: u64, size: u32);
    /// A part with no bytes to show (a bool, an image...).
    fn opaque(&mut self, step: Step<'t>, node: &'t TypeNode);
    fn begin(&mut self, step: Step<'t>, group: Group);
    /// The end of the composite begun last; `shown`: whether any of it lies
    /// within the buffer (a vector or matrix none of whose components do is
    /// not shown; an array or a struct always is).
    fn end(&mut self, shown: bool);
}

/// The byte size of a scalar (a pointer's 8), for one that the walk reads.
fn scalar_size(n: &TypeNode) -> Option<u32> {
    match n.shape {
        TypeShape::Int { width, .. } | TypeShape::Float { width } => Some(width / 8),
        TypeShape::Pointer { .. } => Some(8),
        _ => None,
    }
}

/// The byte size of a vector's component (an integer or a float).
fn component_size(n: &TypeNode) -> Option<u32> {
    match n.shape {
        TypeShape::Int { width, .. } | TypeShape::Float { width } => Some(width / 8),
        _ => None,
    }
}

/// Walk `ty` over a buffer of `len` bytes from byte 0; whether any of it is shown.
pub fn walk<'t>(ty: &'t TypeNode, len: u64, visit: &mut impl Visit<'t>) -> bool {
    let mut w = Walk { len, visit };
    w.node(ty, Step::Root, 0, None)
}

struct Walk<'v, V> {
    len: u64,
    visit: &'v mut V,
}

impl<'t, V: Visit<'t>> Walk<'_, V> {
    /// A scalar at `at`, if it fits.
    fn scalar(&mut self, step: Step<'t>, n: &'t TypeNode, at: u64, size: u32) -> bool {
        let fits = at.checked_add(size as u64).is_some_and(|end| end <= self.len);
        if fits {
            self.visit.scalar(step, n, at, size);
        }
        fits
    }

    /// Part `n` at byte `at`; `mat`: the matrix stride and row-majorness of
    /// the member it is in. Whether it is shown.
    fn node(&mut self, n: &'t TypeNode, step: Step<'t>, at: u64, mat: Option<(u32, bool)>) -> bool {
        if at >= self.len && !matches!(n.shape, TypeShape::Struct) {
            return false;
        }
        match &n.shape {
            TypeShape::Int { .. } | TypeShape::Float { .. } | TypeShape::Pointer { .. } => {
                let Some(size) = scalar_size(n) else { return false };
                self.scalar(step, n, at, size)
            }
            TypeShape::Vector { count } => {
                let Some((e, size)) = n.element.as_deref().and_then(|e| Some((e, component_size(e)?))) else {
                    return false;
                };
                self.visit.begin(step, Group::Vector);
                let mut shown = false;
                for i in 0..*count as u64 {
                    if !self.scalar(Step::Index(i), e, at.saturating_add(i * size as u64), size) {
                        break;
                    }
                    shown = true;
                }
                self.visit.end(shown);
                shown
            }
            TypeShape::Matrix { columns } => {
                let Some(col) = n.element.as_deref() else { return false };
                let (TypeShape::Vector { count: rows }, Some(e)) = (&col.shape, col.element.as_deref()) else {
                    return false;
                };
                let Some(size) = component_size(e) else { return false };
                let (rows, s) = (*rows as u64, size as u64);
                let (stride, row_major) = mat.map_or((rows * s, false), |(st, r)| (st as u64, r));
                let place = |c: u64, r: u64| {
                    at.saturating_add(if row_major {
                        r.saturating_mul(stride) + c * s
                    } else {
                        c.saturating_mul(stride) + r * s
                    })
                };
                self.visit.begin(step, Group::Array);
                let mut shown = false;
                for c in 0..*columns as u64 {
                    // A column is shown whole or not at all.
                    if (0..rows).any(|r| place(c, r).saturating_add(s) > self.len) {
                        break;
                    }
                    self.visit.begin(Step::Index(c), Group::Vector);
                    for r in 0..rows {
                        self.visit.scalar(Step::Index(r), e, place(c, r), size);
                    }
                    self.visit.end(true);
                    shown = true;
                }
                self.visit.end(shown);
                shown
            }
            TypeShape::Array { .. } | TypeShape::RuntimeArray => {
                let Some(e) = n.element.as_deref() else { return false };
                let Some(stride) = n.array_stride.map(u64::from).or(e.size) else { return false };
                let count = match n.shape {
                    TypeShape::Array { length: Some(k) } => k,
                    TypeShape::Array { length: None } => return false,
                    _ if stride == 0 => 0,
                    _ => (self.len - at) / stride,
                };
                let count = if stride == 0 { count.min(1) } else { count };
                self.visit.begin(step, Group::Array);
                for i in 0..count {
                    if !self.node(e, Step::Index(i), at.saturating_add(i.saturating_mul(stride)), mat) {
                        break;
                    }
                }
                self.visit.end(true);
                true
            }
            TypeShape::Struct => {
                self.visit.begin(step, Group::Struct);
                for (index, m) in n.members.iter().filter(|m| m.offset.is_some()).enumerate() {
                    let off = m.offset.unwrap_or(0) as u64;
                    let mat = m.matrix_stride.map(|s| (s, m.row_major == Some(true)));
                    self.node(&m.ty, Step::Member { index, member: m }, at.saturating_add(off), mat);
                }
                self.visit.end(true);
                true
            }
            _ => {
                self.visit.opaque(step, n);
                true
            }
        }
    }
}
