//! Types and explicit layouts: SPIR-V types as WGSL type text, struct
//! declarations with `@size`/`@align` checked against Offset, ArrayStride and
//! MatrixStride.

use super::W;
use super::refuse::Refusal;
use crate::ir::{Type, layout::Member};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

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

/// Cast `e` of type `from` to `to` (bit pattern kept for integers).
/// What [`Num::text`] gives, without a String.
impl core::fmt::Display for Num {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.n == 1 { f.write_str(self.kind.name()) } else { write!(f, "vec{}<{}>", self.n, self.kind.name()) }
    }
}

pub fn cast(e: String, from: Num, to: Num) -> String {
    if from == to {
        e
    } else {
        super::cat(&["bitcast<", &to.text(), ">(", &e, ")"])
    }
}

/// Round `x` up to a multiple of `a`.
fn round_up(a: u64, x: u64) -> u64 {
    if a == 0 { x } else { x.div_ceil(a) * a }
}

impl W<'_> {
    /// The numeric shape of type `ty`.
    pub fn num(&self, ty: u32) -> Option<Num> {
        match &self.ir.ty(ty)?.ty {
            Type::Bool => Some(Num { kind: Kind::Bool, n: 1 }),
            Type::Int { width: 32, signed } => Some(Num { kind: if *signed { Kind::I32 } else { Kind::U32 }, n: 1 }),
            Type::Float { width: 32, encoding: None } => Some(Num { kind: Kind::F32, n: 1 }),
            Type::Float { width: 16, encoding: None } => Some(Num { kind: Kind::F16, n: 1 }),
            Type::Vector { component, count } => Some(Num { kind: self.num(*component)?.kind, n: *count }),
            _ => None,
        }
    }

    /// The numeric shape of value `id`.
    pub fn num_of(&self, id: u32) -> Option<Num> {
        self.num(self.ir.type_of(id)?)
    }

    /// The text of a bool, 32-bit integer or f32 type (what [`W::ty`]
    /// gives for it, with nothing to record): no String for the usual value.
    pub fn scalar_name(&self, ty: u32) -> Option<&'static str> {
        Some(match self.ir.ty(ty)?.ty {
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

    /// Type `ty` as WGSL text (structs by name, declared later).
    pub fn ty(&mut self, ty: u32, at: u32) -> Result<String, Refusal> {
        self.ty_atomic(ty, at, false)
    }

    /// Type `ty`, as `atomic<T>` when `atomic` (an integer scalar).
    pub fn ty_atomic(&mut self, ty: u32, at: u32, atomic: bool) -> Result<String, Refusal> {
        let ir = self.ir;
        let Some(t) = ir.ty(ty) else {
            return Err(Refusal::new("wgsl.invalid", format!("%{ty} is not a type"), Some(at)));
        };
        let inst = Some(t.inst);
        let s = match t.ty {
            Type::Bool => String::from("bool"),
            Type::Int { width: 32, signed } => String::from(if signed { "i32" } else { "u32" }),
            Type::Int { width: 64, .. } => return Err(Refusal::new("wgsl.int64", "a 64-bit integer type", inst)),
            Type::Int { width, .. } => {
                return Err(Refusal::new("wgsl.small-int", format!("a {width}-bit integer type"), inst));
            }
            Type::Float { width: 32, encoding: None } => String::from("f32"),
            Type::Float { width: 16, encoding: None } => {
                self.f16 = true;
                String::from("f16")
            }
            Type::Float { width: 64, .. } => return Err(Refusal::new("wgsl.float64", "a 64-bit float type", inst)),
            Type::Float { .. } => return Err(Refusal::new("wgsl.type", "a float type of another width or encoding", inst)),
            Type::Vector { component, count } => {
                let c = self.ty(component, at)?;
                if !(2..=4).contains(&count) {
                    return Err(Refusal::new("wgsl.type", format!("a vector of {count} components"), inst));
                }
                let mut s = String::with_capacity(6 + c.len());
                s.push_str("vec");
                super::names::push_u32(&mut s, count);
                s.push('<');
                s.push_str(&c);
                s.push('>');
                s
            }
            Type::Matrix { column, columns } => {
                let Some(Num { kind, n: rows }) = self.num(column) else {
                    return Err(Refusal::new("wgsl.type", "a matrix of non-float columns", inst));
                };
                if !kind.is_float() {
                    return Err(Refusal::new("wgsl.type", "a matrix of non-float columns", inst));
                }
                if kind == Kind::F16 {
                    self.f16 = true;
                }
                format!("mat{columns}x{rows}<{}>", kind.name())
            }
            Type::Array { element, len, length } => {
                let e = self.element(ty, element, at)?;
                let n = len.or_else(|| self.ir.const_u64(length));
                match n {
                    Some(n) if n > 0 && n < (1 << 31) => {
                        let mut s = String::with_capacity(e.len() + 16);
                        s.push_str("array<");
                        s.push_str(&e);
                        s.push_str(", ");
                        super::names::push_u32(&mut s, n as u32);
                        s.push('>');
                        s
                    }
                    _ => return Err(Refusal::new("wgsl.type", "an array whose length has no value", inst)),
                }
            }
            Type::RuntimeArray { element } => {
                let e = self.element(ty, element, at)?;
                super::cat(&["array<", &e, ">"])
            }
            Type::Struct { .. } => {
                if !self.structs.contains(&ty) {
                    self.structs.push(ty);
                }
                self.type_name(ty)
            }
            Type::Pointer { storage, pointee: Some(p) } => {
                let space = self.space(storage, at)?;
                let inner = self.ty(p, at)?;
                format!("ptr<{space}, {inner}>")
            }
            Type::Pointer { pointee: None, .. } => {
                return Err(Refusal::new("wgsl.physical-pointer", "an untyped pointer", inst));
            }
            Type::Image { .. } => self.image_ty(ty, at)?,
            Type::Sampler => String::from("sampler"),
            Type::SampledImage { .. } => {
                return Err(Refusal::new("wgsl.image", "a combined image sampler (WGSL has separate textures and samplers)", inst));
            }
            _ => return Err(Refusal::new("wgsl.type", "a type with no WGSL counterpart", inst)),
        };
        if atomic {
            return match s.as_str() {
                "u32" | "i32" => Ok(format!("atomic<{s}>")),
                _ => Err(Refusal::new("wgsl.atomic", "an atomic on a type other than i32 or u32", Some(at))),
            };
        }
        Ok(s)
    }

    /// The element type text of array `arr`: the element itself, or a
    /// struct wrapping it with `@size(ArrayStride)` where WGSL's own stride
    /// differs (or the uniform address space needs a multiple of 16).
    fn element(&mut self, arr: u32, element: u32, at: u32) -> Result<String, Refusal> {
        let e = self.ty_atomic(element, at, self.atomic_elems.contains(&arr))?;
        let Some(st) = self.wrap_stride(arr) else { return Ok(e) };
        if let Some(n) = self.wrappers.get(&arr) {
            return Ok(n.clone());
        }
        let n = self.globals_scope.fresh(None, &format!("Stride{st}_{arr}"));
        self.wrappers.insert(arr, n.clone());
        let inst = self.ir.ty(arr).map_or(at, |t| t.inst);
        self.wrapper_decls.push((inst, format!("struct {n} {{\n  @size({st}) v: {e},\n}}\n")));
        Ok(n)
    }

    /// The ArrayStride of `arr` when its elements need a wrapper struct.
    pub fn wrap_stride(&self, arr: u32) -> Option<u32> {
        let t = self.ir.ty(arr)?;
        let (Type::Array { element, .. } | Type::RuntimeArray { element }) = t.ty else { return None };
        let st = t.array_stride?;
        let (a, s) = self.layout(element, false)?;
        let natural = round_up(a, s);
        let uniform = self.uniform_structs.contains(&arr);
        (st as u64 != natural || (uniform && !natural.is_multiple_of(16))).then_some(st)
    }

    /// The name of struct type `ty`.
    pub fn type_name(&mut self, ty: u32) -> String {
        if let Some(n) = self.type_names.get(&ty) {
            return n.clone();
        }
        let n = self.globals_scope.fresh_numbered(None, self.ir.name(ty), "S", ty);
        self.type_names.insert(ty, n.clone());
        n
    }

    /// The WGSL address space of a storage class (function-local and
    /// module-scope memory; stage IO is private behind the entry wrapper).
    pub fn space(&self, storage: u32, at: u32) -> Result<&'static str, Refusal> {
        use crate::grammar::storage_class as sc;
        Ok(match storage {
            sc::Function => "function",
            sc::Private | sc::Input | sc::Output => "private",
            sc::Workgroup => "workgroup",
            sc::StorageBuffer => "storage, read_write",
            sc::Uniform => "uniform",
            sc::PushConstant => self.push_space,
            sc::PhysicalStorageBuffer => {
                return Err(Refusal::new("wgsl.physical-pointer", "a PhysicalStorageBuffer pointer", Some(at)));
            }
            _ => return Err(Refusal::new("wgsl.storage-class", "a storage class WGSL lacks", Some(at))),
        })
    }

    /// WGSL's (align, size) of type `ty`, as laid out by our declarations
    /// (structs with their Offsets); `uniform`: the uniform address space's rules.
    pub fn layout(&self, ty: u32, uniform: bool) -> Option<(u64, u64)> {
        let t = self.ir.ty(ty)?;
        match &t.ty {
            Type::Bool => Some((4, 4)),
            Type::Int { width: 32, .. } | Type::Float { width: 32, .. } => Some((4, 4)),
            Type::Float { width: 16, .. } => Some((2, 2)),
            Type::Vector { component, count } => {
                let (a, s) = self.layout(*component, uniform)?;
                let _ = a;
                Some((if *count == 2 { 2 * s } else { 4 * s }, *count as u64 * s))
            }
            Type::Matrix { column, columns } => {
                let (a, s) = self.layout(*column, uniform)?;
                Some((a, *columns as u64 * round_up(a, s)))
            }
            Type::Array { element, len, .. } => {
                let (a, s) = self.layout(*element, uniform)?;
                let a = if uniform { round_up(16, a) } else { a };
                let stride = t.array_stride.map_or(round_up(a, s), |x| x as u64);
                Some((a, len.unwrap_or(1) * stride))
            }
            Type::RuntimeArray { element } => {
                let (a, s) = self.layout(*element, uniform)?;
                Some((a, round_up(a, s)))
            }
            Type::Struct { members } => {
                let mut align = 1;
                let mut end = 0u64;
                for m in members {
                    let (a, s) = self.layout(m.ty, uniform)?;
                    align = align.max(a);
                    let off = match m.offset {
                        Some(o) => o as u64,
                        None => round_up(a, end),
                    };
                    end = off + s;
                }
                let align = if uniform { round_up(16, align) } else { align };
                Some((align, round_up(align, end)))
            }
            _ => None,
        }
    }

    /// Check the explicit layout of type `ty` (in memory of the given kind)
    /// against WGSL's: array and matrix strides, row-major matrices, bools.
    pub fn check_layout(&self, ty: u32, uniform: bool) -> Result<(), Refusal> {
        let Some(t) = self.ir.ty(ty) else { return Ok(()) };
        let inst = Some(t.inst);
        match &t.ty {
            Type::Bool => Err(Refusal::new("wgsl.layout", "a bool in host-shareable memory", inst)),
            Type::Array { element, .. } | Type::RuntimeArray { element } => {
                self.check_layout(*element, uniform)?;
                let (a, s) = self.layout(*element, uniform).unwrap_or((4, 4));
                let a = if uniform { round_up(16, a) } else { a };
                // A stride other than WGSL's is had with a wrapper struct
                // (`@size(stride)`), if the stride keeps the alignment.
                match t.array_stride {
                    Some(st) if !(st as u64).is_multiple_of(a) || (st as u64) < s => Err(Refusal::new(
                        "wgsl.layout",
                        format!("ArrayStride {st}, which WGSL cannot give an element of size {s} and alignment {a}"),
                        inst,
                    )),
                    _ => Ok(()),
                }
            }
            Type::Struct { members } => {
                let (salign, _) = self.layout(ty, uniform).unwrap_or((4, 4));
                let _ = salign;
                let mut prev_end: Option<u64> = None;
                for (k, m) in members.iter().enumerate() {
                    self.check_member(ty, k, m, uniform)?;
                    let (a, s) = self.layout(m.ty, uniform).unwrap_or((4, 4));
                    if let Some(o) = m.offset {
                        let o = o as u64;
                        if !o.is_multiple_of(a) {
                            return Err(Refusal::new(
                                "wgsl.layout",
                                format!("member {k} at Offset {o}, not a multiple of its WGSL alignment {a}"),
                                inst,
                            ));
                        }
                        if let Some(e) = prev_end
                            && o < e
                        {
                            return Err(Refusal::new(
                                "wgsl.layout",
                                format!("member {k} at Offset {o} overlaps the member before it"),
                                inst,
                            ));
                        }
                        prev_end = Some(o + s);
                    } else if k > 0 && prev_end.is_some() {
                        return Err(Refusal::new("wgsl.layout", format!("member {k} has no Offset"), inst));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn check_member(&self, st: u32, k: usize, m: &Member, uniform: bool) -> Result<(), Refusal> {
        let inst = self.ir.ty(st).map(|t| t.inst);
        if let Some(Type::Matrix { column, .. }) = self.ir.ty(m.ty).map(|t| &t.ty) {
            if m.row_major == Some(true) {
                return Err(Refusal::new("wgsl.layout", format!("member {k} is a row-major matrix"), inst));
            }
            let (a, s) = self.layout(*column, uniform).unwrap_or((4, 4));
            let want = round_up(a, s);
            if let Some(ms) = m.matrix_stride
                && ms as u64 != want
            {
                return Err(Refusal::new(
                    "wgsl.layout",
                    format!("member {k} has MatrixStride {ms} where WGSL's column stride is {want}"),
                    inst,
                ));
            }
        }
        self.check_layout(m.ty, uniform)
    }

    /// The declaration of struct `ty`, with `@size` where the next member's
    /// Offset is past WGSL's own placement.
    pub fn struct_decl(&mut self, ty: u32) -> Result<String, Refusal> {
        let members: Vec<Member> = self.ir.ty(ty).map(|t| t.members().to_vec()).unwrap_or_default();
        let inst = self.ir.ty(ty).map_or(0, |t| t.inst);
        let name = self.type_name(ty);
        let uniform = self.uniform_structs.contains(&ty);
        let mut out = format!("struct {name} {{\n");
        let mut scope = super::names::Scope::default();
        for (k, m) in members.iter().enumerate() {
            let atomic = self.atomic_members.contains(&(ty, k as u32));
            let t = self.ty_atomic(m.ty, inst, atomic)?;
            let mname = self.member_name(ty, k as u32, &mut scope);
            let mut attrs = String::new();
            // `@size` where WGSL would place the next member before its Offset.
            if let (Some(o), Some(n)) = (m.offset, members.get(k + 1))
                && let Some(next) = n.offset
            {
                let (_, s) = self.layout(m.ty, uniform).unwrap_or((4, 4));
                let (na, _) = self.layout(n.ty, uniform).unwrap_or((4, 4));
                let gap = (next as u64).saturating_sub(o as u64);
                if round_up(na, o as u64 + s) != next as u64 && gap > s {
                    attrs = format!("@size({gap}) ");
                }
            }
            if k == 0 && m.offset.is_some_and(|o| o != 0) {
                return Err(Refusal::new("wgsl.layout", "the first member is not at Offset 0", Some(inst)));
            }
            out.push_str(&format!("  {attrs}{mname}: {t},\n"));
        }
        if members.is_empty() {
            return Err(Refusal::new("wgsl.type", "an empty struct", Some(inst)));
        }
        out.push_str("}\n");
        Ok(out)
    }

    /// The name of member `k` of struct `ty`.
    pub fn member_name(&mut self, ty: u32, k: u32, scope: &mut super::names::Scope) -> String {
        if let Some(n) = self.member_names.get(&(ty, k)) {
            return n.clone();
        }
        let n = scope.fresh_numbered(None, self.ir.member_name(ty, k), "m", k);
        self.member_names.insert((ty, k), n.clone());
        n
    }

    /// The member name used in expressions (assigned in order on first use).
    pub fn member(&mut self, ty: u32, k: u32) -> String {
        let mut s = String::new();
        self.push_member(&mut s, ty, k);
        s
    }

    /// Append [`W::member`] to `out`.
    pub fn push_member(&mut self, out: &mut String, ty: u32, k: u32) {
        if !self.member_names.contains_key(&(ty, k)) {
            let mut scope = super::names::Scope::default();
            let n = self.ir.ty(ty).map_or(0, |t| t.members().len() as u32);
            for j in 0..n {
                // Named in place (no String returned to drop).
                if !self.member_names.contains_key(&(ty, j)) {
                    let m = scope.fresh_numbered(None, self.ir.member_name(ty, j), "m", j);
                    self.member_names.insert((ty, j), m);
                }
            }
        }
        match self.member_names.get(&(ty, k)) {
            Some(m) => out.push_str(m),
            // Writing into a String cannot fail.
            None => drop(core::fmt::Write::write_fmt(out, format_args!("m{k}"))),
        }
    }
}
