//! What WGSL makes of SPIR-V types, read from the IR alone: numeric
//! scalars and vectors ([`Num`]), and the module's explicit layout checked
//! against WGSL's (alignment and size by `ir::layout`'s [`Rules::Wgsl`]):
//! Offset, ArrayStride and MatrixStride. The plan and
//! the writer both read these; the type text is the writer's
//! (`write::type_text`).

use super::refuse::{Refusal, RefusalCode};
use crate::ir::layout::{Explicit, Member, Rules};
use crate::ir::{Ir, Type};
use alloc::format;
use alloc::string::String;

/// A numeric scalar or vector: its component kind and count (1: scalar).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Num {
    pub kind: Kind,
    pub n: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    I32,
    U32,
    F32,
    F16,
    Bool,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::I32 => "i32",
            Kind::U32 => "u32",
            Kind::F32 => "f32",
            Kind::F16 => "f16",
            Kind::Bool => "bool",
        }
    }
    pub fn is_int(self) -> bool {
        matches!(self, Kind::I32 | Kind::U32)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Kind::F32 | Kind::F16)
    }
}

impl Num {
    pub fn text(self) -> String {
        if self.n == 1 { String::from(self.kind.name()) } else { format!("vec{}<{}>", self.n, self.kind.name()) }
    }
    /// [`Num::text`] appended to `s`.
    pub fn push_text(self, s: &mut String) {
        if self.n == 1 {
            s.push_str(self.kind.name());
        } else {
            s.push_str("vec");
            super::names::push_u32(s, u32::from(self.n));
            s.push('<');
            s.push_str(self.kind.name());
            s.push('>');
        }
    }
    pub fn with(self, kind: Kind) -> Num {
        Num { kind, n: self.n }
    }
}

/// What [`Num::text`] gives, without a String.
impl core::fmt::Display for Num {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.n == 1 { f.write_str(self.kind.name()) } else { write!(f, "vec{}<{}>", self.n, self.kind.name()) }
    }
}

/// Cast `e` of type `from` to `to` (bit pattern kept for integers).
pub fn cast(e: String, from: Num, to: Num) -> String {
    if from == to {
        e
    } else {
        cat(&["bitcast<", &to.text(), ">(", &e, ")"])
    }
}

/// `parts` one after another, in a String of exactly their length (no
/// formatter, one allocation).
pub fn cat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

/// The numeric shape of type `ty`.
pub fn num(ir: &Ir, ty: u32) -> Option<Num> {
    match &ir.ty(ty)?.ty {
        Type::Bool => Some(Num { kind: Kind::Bool, n: 1 }),
        Type::Int { width: 32, signed } => Some(Num { kind: if *signed { Kind::I32 } else { Kind::U32 }, n: 1 }),
        Type::Float { width: 32, encoding: None } => Some(Num { kind: Kind::F32, n: 1 }),
        Type::Float { width: 16, encoding: None } => Some(Num { kind: Kind::F16, n: 1 }),
        Type::Vector { component, count } => Some(Num { kind: num(ir, *component)?.kind, n: *count }),
        _ => None,
    }
}

/// The numeric shape of value `id`.
pub fn num_of(ir: &Ir, id: u32) -> Option<Num> {
    num(ir, ir.type_of(id)?)
}

/// The text of a bool, 32-bit integer or f32 type (what the writer's type text
/// gives for it, with nothing to record): no String for the usual value.
pub fn scalar_name(ir: &Ir, ty: u32) -> Option<&'static str> {
    Some(match ir.ty(ty)?.ty {
        Type::Bool => "bool",
        Type::Int { width: 32, signed } => {
            if signed {
                "i32"
            } else {
                "u32"
            }
        }
        Type::Float { width: 32, encoding: None } => "f32",
        _ => return None,
    })
}

/// WGSL's (align, size) of type `ty`, as laid out by the module's
/// declarations (structs with their Offsets); `uniform`: the uniform address
/// space's rules.
pub fn layout(ir: &Ir, ty: u32, uniform: bool) -> Option<(u64, u64)> {
    Explicit::new(ir, Rules::Wgsl { uniform }).layout(ty)
}

/// WGSL's SizeOf of type `ty` as our declarations lay it out, a runtime-sized
/// array counted as one element: the least number of bytes a WebGPU binding
/// of it takes (a struct's size is rounded up to its alignment, so it may
/// exceed the SPIR-V data's).
pub fn wgsl_size(ir: &Ir, ty: u32) -> Option<u64> {
    layout(ir, ty, false).map(|(_, size)| size)
}

/// Check the explicit layout of type `ty` (in memory of the given kind)
/// against WGSL's: array and matrix strides, row-major matrices, bools.
pub fn check_layout(ir: &Ir, ty: u32, uniform: bool) -> Result<(), Refusal> {
    let Some(t) = ir.ty(ty) else { return Ok(()) };
    let inst = Some(t.inst);
    match &t.ty {
        Type::Bool => Err(Refusal::new(RefusalCode::Layout, "a bool in host-shareable memory", inst)),
        Type::Array { element, .. } | Type::RuntimeArray { element } => {
            check_layout(ir, *element, uniform)?;
            let (a, s) = layout(ir, *element, uniform).unwrap_or((4, 4));
            let a = Explicit::new(ir, Rules::Wgsl { uniform }).aggregate_align(a);
            // A stride other than WGSL's is had with a wrapper struct
            // (`@size(stride)`), if the stride keeps the alignment.
            match t.array_stride {
                Some(st) if !(st as u64).is_multiple_of(a) || (st as u64) < s => Err(Refusal::new(
                    RefusalCode::Layout,
                    format!("ArrayStride {st}, which WGSL cannot give an element of size {s} and alignment {a}"),
                    inst,
                )),
                _ => Ok(()),
            }
        }
        Type::Struct { members } => {
            let mut prev_end: Option<u64> = None;
            for (k, m) in members.iter().enumerate() {
                check_member(ir, ty, k, m, uniform)?;
                let (a, s) = layout(ir, m.ty, uniform).unwrap_or((4, 4));
                if let Some(o) = m.offset {
                    let o = o as u64;
                    if !o.is_multiple_of(a) {
                        return Err(Refusal::new(
                            RefusalCode::Layout,
                            format!("member {k} at Offset {o}, not a multiple of its WGSL alignment {a}"),
                            inst,
                        ));
                    }
                    if let Some(e) = prev_end
                        && o < e
                    {
                        return Err(Refusal::new(
                            RefusalCode::Layout,
                            format!("member {k} at Offset {o} overlaps the member before it"),
                            inst,
                        ));
                    }
                    prev_end = Some(o + s);
                } else if k > 0 && prev_end.is_some() {
                    return Err(Refusal::new(RefusalCode::Layout, format!("member {k} has no Offset"), inst));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn check_member(ir: &Ir, st: u32, k: usize, m: &Member, uniform: bool) -> Result<(), Refusal> {
    let inst = ir.ty(st).map(|t| t.inst);
    if let Some(Type::Matrix { column, .. }) = ir.ty(m.ty).map(|t| &t.ty) {
        if m.row_major == Some(true) {
            return Err(Refusal::new(RefusalCode::Layout, format!("member {k} is a row-major matrix"), inst));
        }
        let want = Explicit::new(ir, Rules::Wgsl { uniform }).stride(*column).unwrap_or(4);
        if let Some(ms) = m.matrix_stride
            && ms as u64 != want
        {
            return Err(Refusal::new(
                RefusalCode::Layout,
                format!("member {k} has MatrixStride {ms} where WGSL's column stride is {want}"),
                inst,
            ));
        }
    }
    check_layout(ir, m.ty, uniform)
}
