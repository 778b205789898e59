//! Explicit layout by a rule set: the alignment and size of a type under
//! Vulkan's block layouts (SPIR-V spec 2.18.2 "Offset and Stride
//! Assignment", Vulkan 15.6.4) and under WGSL's memory layout (WGSL 13.4
//! "Memory Layout"), with the module's own Offset, ArrayStride and
//! MatrixStride where the rules read them. The validator checks a module's
//! decorations against these numbers; the WGSL writer checks whether WGSL
//! lays a type out as the module does.
//!
//! One walk serves every rule set; where WGSL differs from Vulkan (a bool's
//! size, matrices not rounded up in uniform memory, a size that includes the
//! trailing padding) the arm says so by [`Rules`].

use super::{Ir, Member, Type, addressing};
use crate::grammar::{addressing_model, decoration as dec, op};

/// A rule set of explicit layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Vulkan's scalar block layout: a type aligns to its scalars' size.
    Scalar,
    /// Vulkan's standard layout (GLSL std430): a scalar aligns to its size, a
    /// vector of two to twice and of three or four to four times its
    /// component's; an array, a matrix and a struct to their parts' largest.
    Standard,
    /// Vulkan's extended layout (GLSL std140, uniform buffers): the standard
    /// rules with arrays, matrices and structs rounded up to 16.
    Extended,
    /// WGSL's layout; `uniform`: the uniform address space's, where arrays
    /// and structs round up to 16. A bool takes 4 bytes, a type is as large
    /// as its trailing padding makes it, and a runtime array counts one
    /// element.
    Wgsl { uniform: bool },
}

/// The matrix layout a struct member gives its matrices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatrixLayout {
    pub row_major: bool,
    /// Its MatrixStride (0 if none).
    pub stride: u32,
}

impl MatrixLayout {
    /// Member `m`'s RowMajor and MatrixStride.
    pub fn of(m: &Member) -> MatrixLayout {
        MatrixLayout {
            row_major: m.row_major == Some(true),
            stride: m.matrix_stride.unwrap_or(0),
        }
    }
}

/// Deeper type trees have no layout under Vulkan's rules (the validator
/// then says nothing about them).
const MAX_DEPTH: u32 = 64;

/// Under WGSL's: deeper than a valid module nests (spirv-val's default limit
/// on struct nesting is 255), only a bound on the walk.
const MAX_DEPTH_WGSL: u32 = 1024;

/// Round `x` up to a multiple of `a` (`x` itself for 0).
pub fn round_up(a: u64, x: u64) -> u64 {
    if a == 0 { x } else { x.div_ceil(a) * a }
}

/// The components a vector of `count` aligns as (Vulkan: three as four).
fn vector_factor(rules: Rules, count: u32) -> u32 {
    match rules {
        Rules::Wgsl { .. } => {
            if count == 2 {
                2
            } else {
                4
            }
        }
        _ if count == 3 => 4,
        _ => count,
    }
}

/// A module's types laid out by one rule set.
#[derive(Clone, Copy)]
pub struct Explicit<'a> {
    ir: &'a Ir,
    rules: Rules,
    /// The size and alignment of a pointer: 4 under Physical32, else 8.
    pointer: u32,
}

impl<'a> Explicit<'a> {
    pub fn new(ir: &'a Ir, rules: Rules) -> Explicit<'a> {
        let pointer = match rules {
            Rules::Wgsl { .. } => 0,
            _ if addressing(ir) == Some(addressing_model::Physical32) => 4,
            _ => 8,
        };
        Explicit { ir, rules, pointer }
    }

    fn wgsl(&self) -> bool {
        matches!(self.rules, Rules::Wgsl { .. })
    }

    fn too_deep(&self, depth: u32) -> bool {
        depth > if self.wgsl() { MAX_DEPTH_WGSL } else { MAX_DEPTH }
    }

    /// Round alignment `a` up to 16 where the rules round arrays, matrices
    /// and structs (the low 32 bits).
    fn up(&self, a: u32) -> u32 {
        self.aggregate_align(a as u64) as u32
    }

    /// Alignment `a` of an array's elements (or a struct's members) as the
    /// array's own: rounded up to 16 where the rules round arrays and
    /// structs (Vulkan's extended layout, WGSL's uniform address space).
    pub fn aggregate_align(&self, a: u64) -> u64 {
        match self.rules {
            Rules::Extended | Rules::Wgsl { uniform: true } => round_up(16, a),
            _ => a,
        }
    }

    /// The stride of an array of `ty` (or of a matrix's columns of type
    /// `ty`) that the module does not state: its size rounded up to its
    /// alignment.
    pub fn stride(&self, ty: u32) -> Option<u64> {
        let (a, s) = self.layout(ty)?;
        Some(round_up(a, s))
    }

    /// For a scalar (or a pointer): `Some` of its alignment and size, which
    /// is `None` where the rules do not lay it out; `None` for other types.
    fn scalar(&self, t: &Type) -> Option<Option<u32>> {
        Some(match *t {
            Type::Bool => self.wgsl().then_some(4),
            Type::Int { width, .. } | Type::Float { width, .. } if !self.wgsl() => Some(width / 8),
            Type::Int { width: 32, .. } | Type::Float { width: 32, .. } => Some(4),
            Type::Float { width: 16, .. } => Some(2),
            Type::Int { .. } | Type::Float { .. } => None,
            Type::Pointer { .. } => (!self.wgsl()).then_some(self.pointer),
            _ => return None,
        })
    }

    /// The alignment of type `ty` as a member with matrix layout `mx`
    /// (the scalar alignment under [`Rules::Scalar`]).
    pub fn align(&self, ty: u32, mx: MatrixLayout) -> Option<u32> {
        if self.rules == Rules::Scalar {
            self.scalar_align(ty)
        } else {
            self.align_at(ty, mx, 0)
        }
    }

    /// The alignment of type `ty`'s scalars (its own for a scalar).
    pub fn scalar_align(&self, ty: u32) -> Option<u32> {
        self.scalar_align_at(ty, 0)
    }

    fn scalar_align_at(&self, ty: u32, depth: u32) -> Option<u32> {
        if self.too_deep(depth) {
            return None;
        }
        let t = &self.ir.ty(ty)?.ty;
        if let Some(a) = self.scalar(t) {
            return a;
        }
        match t {
            Type::Vector { component: e, .. }
            | Type::Matrix { column: e, .. }
            | Type::Array { element: e, .. }
            | Type::RuntimeArray { element: e } => self.scalar_align_at(*e, depth + 1),
            Type::Struct { members } => {
                let mut a = 1;
                for m in members {
                    a = a.max(self.scalar_align_at(m.ty, depth + 1)?);
                }
                Some(a)
            }
            _ => None,
        }
    }

    /// The base alignment (the rules other than the scalar layout's).
    fn align_at(&self, ty: u32, mx: MatrixLayout, depth: u32) -> Option<u32> {
        if self.too_deep(depth) {
            return None;
        }
        let t = &self.ir.ty(ty)?.ty;
        if let Some(a) = self.scalar(t) {
            return a;
        }
        Some(match t {
            Type::Vector { component, count } => self
                .align_at(*component, mx, depth + 1)?
                .wrapping_mul(vector_factor(self.rules, *count)),
            // WGSL aligns a matrix as its column, in every address space.
            Type::Matrix { column, .. } if self.wgsl() => self.align_at(*column, mx, depth + 1)?,
            Type::Matrix { column, columns } => self.up(if mx.row_major {
                let Type::Vector { component, .. } = self.ir.ty(*column)?.ty else {
                    return None;
                };
                self.align_at(component, mx, depth + 1)?
                    .wrapping_mul(vector_factor(self.rules, *columns))
            } else {
                self.align_at(*column, mx, depth + 1)?
            }),
            Type::Array { element, .. } => self.up(self.align_at(*element, mx, depth + 1)?),
            Type::RuntimeArray { element } if self.wgsl() => self.align_at(*element, mx, depth + 1)?,
            Type::RuntimeArray { element } => self.up(self.align_at(*element, mx, depth + 1)?),
            Type::Struct { members } => {
                let mut a = 1;
                for m in members {
                    a = a.max(self.align_at(m.ty, MatrixLayout::of(m), depth + 1)?);
                }
                self.up(a)
            }
            _ => return None,
        })
    }

    /// The size of type `ty` as a member with matrix layout `mx`. Vulkan's
    /// rules measure to the last byte (no trailing padding; 0 for a runtime
    /// array or an array sized by a specialization constant), in 32-bit
    /// arithmetic that wraps (the caller keeps the low 32 bits); WGSL's
    /// include the padding up to the alignment.
    pub fn size(&self, ty: u32, mx: MatrixLayout) -> Option<u64> {
        self.size_at(ty, mx, 0)
    }

    /// The (alignment, size) of `ty` as an array element or a matrix column.
    fn align_size(&self, ty: u32, depth: u32) -> Option<(u64, u64)> {
        let mx = MatrixLayout::default();
        Some((self.align_at(ty, mx, depth)? as u64, self.size_at(ty, mx, depth)?))
    }

    fn size_at(&self, ty: u32, mx: MatrixLayout, depth: u32) -> Option<u64> {
        if self.too_deep(depth) {
            return None;
        }
        let ir = self.ir;
        let t = ir.ty(ty)?;
        if let Some(s) = self.scalar(&t.ty) {
            return s.map(u64::from);
        }
        Some(match &t.ty {
            Type::Vector { component, count } => self
                .size_at(*component, mx, depth + 1)?
                .wrapping_mul(*count as u64),
            Type::Matrix { column, columns } if self.wgsl() => {
                let (a, s) = self.align_size(*column, depth + 1)?;
                (*columns as u64).wrapping_mul(round_up(a, s))
            }
            Type::Matrix { column, columns } if mx.row_major => {
                let Type::Vector { component, count } = ir.ty(*column)?.ty else {
                    return None;
                };
                (count as u64)
                    .wrapping_sub(1)
                    .wrapping_mul(mx.stride as u64)
                    .wrapping_add((*columns as u64).wrapping_mul(self.size_at(component, mx, depth + 1)?))
            }
            Type::Matrix { columns, .. } => (*columns as u64).wrapping_mul(mx.stride as u64),
            Type::Array { element, len, .. } if self.wgsl() => {
                let (a, s) = self.align_size(*element, depth + 1)?;
                let a = self.up(a as u32) as u64;
                let stride = t.array_stride.map_or(round_up(a, s), u64::from);
                len.unwrap_or(1).wrapping_mul(stride)
            }
            Type::Array { element, length, .. } => {
                let def = ir.def(*length)?;
                if matches!(
                    ir.opcode(def),
                    op::OpSpecConstant
                        | op::OpSpecConstantOp
                        | op::OpSpecConstantTrue
                        | op::OpSpecConstantFalse
                        | op::OpSpecConstantComposite
                ) {
                    0
                } else {
                    let n = *ir.words(def).get(2)? as u64;
                    n.wrapping_sub(1)
                        .wrapping_mul(first_array_stride(ir, ty).unwrap_or(0) as u64)
                        .wrapping_add(self.size_at(*element, mx, depth + 1)?)
                }
            }
            // One element (its ArrayStride, which a wrapper struct gives it).
            Type::RuntimeArray { element } if self.wgsl() => {
                let (a, s) = self.align_size(*element, depth + 1)?;
                t.array_stride.map_or(round_up(a, s), u64::from)
            }
            Type::RuntimeArray { .. } => 0,
            Type::Struct { members } if self.wgsl() => {
                let mut align = 1;
                let mut end = 0u64;
                for m in members {
                    let (a, s) = self.align_size(m.ty, depth + 1)?;
                    align = align.max(a);
                    let off = m.offset.map_or(round_up(a, end), u64::from);
                    end = off.wrapping_add(s);
                }
                round_up(self.up(align as u32) as u64, end)
            }
            Type::Struct { members } => {
                let Some(last) = members.last() else { return Some(0) };
                (last.offset? as u64).wrapping_add(self.size_at(last.ty, MatrixLayout::of(last), depth + 1)?)
            }
            _ => return None,
        })
    }

    /// The (alignment, size) of type `ty` outside any member (a matrix
    /// column-major, without a MatrixStride).
    pub fn layout(&self, ty: u32) -> Option<(u64, u64)> {
        self.align_size(ty, 0)
    }
}

/// The first ArrayStride stated on type `ty` (a second one is the
/// decoration rules' error; the block layout rules size by the first).
fn first_array_stride(ir: &Ir, ty: u32) -> Option<u32> {
    ir.decorations_of(ty)
        .iter()
        .find(|d| d.member.is_none() && d.decoration == dec::ArrayStride)
        .and_then(|d| d.arg(ir))
}
