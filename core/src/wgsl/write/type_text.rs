//! Types as WGSL text: scalars, vectors, matrices, arrays (with a wrapper
//! struct where WGSL's stride is not the ArrayStride), structs by name
//! (declared with `@size` where an Offset asks), pointers, images; struct
//! and member names.

use super::ModuleWriter;
use crate::ir::{Type, layout::{Member, round_up}};
use crate::wgsl::names::{Scope, push_u32};
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{self, Kind, Num, cat, layout};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// The numeric shape of type `ty`.
    pub(super) fn num(&self, ty: u32) -> Option<Num> {
        types::num(self.ir, ty)
    }

    /// The numeric shape of value `id`.
    pub(super) fn num_of(&self, id: u32) -> Option<Num> {
        types::num_of(self.ir, id)
    }

    /// The text of a bool, 32-bit integer or f32 type (what
    /// [`ModuleWriter::ty`] gives for it, with nothing to record): no String
    /// for the usual value.
    pub(super) fn scalar_name(&self, ty: u32) -> Option<&'static str> {
        types::scalar_name(self.ir, ty)
    }

    /// Type `ty` as WGSL text (structs by name, declared later). Made once
    /// per type: what making it records (structs to declare, wrappers, `enable
    /// f16;`) is recorded the first time, and the text does not change after.
    pub(super) fn ty(&mut self, ty: u32, at: u32) -> Result<Rc<str>, Refusal> {
        if let Some(t) = self.type_text.get(&ty) {
            return Ok(t.clone());
        }
        let t: Rc<str> = Rc::from(self.make_ty(ty, at)?);
        self.type_text.insert(ty, t.clone());
        Ok(t)
    }

    /// Type `ty`, as `atomic<T>` when `atomic` (an integer scalar).
    pub(super) fn ty_atomic(&mut self, ty: u32, at: u32, atomic: bool) -> Result<Rc<str>, Refusal> {
        if !atomic {
            return self.ty(ty, at);
        }
        // Refused as [`ModuleWriter::ty`] refuses it first.
        let s = self.ty(ty, at)?;
        match &*s {
            "u32" | "i32" => Ok(Rc::from(cat(&["atomic<", &s, ">"]))),
            _ => Err(Refusal::new(RefusalCode::Atomic, "an atomic on a type other than i32 or u32", Some(at))),
        }
    }

    /// The text of type `ty` (see [`ModuleWriter::ty`]).
    fn make_ty(&mut self, ty: u32, at: u32) -> Result<String, Refusal> {
        let ir = self.ir;
        let Some(t) = ir.ty(ty) else {
            return Err(Refusal::new(RefusalCode::Invalid, format!("%{ty} is not a type"), Some(at)));
        };
        let inst = Some(t.inst);
        let s = match t.ty {
            Type::Bool => String::from("bool"),
            Type::Int { width: 32, signed } => String::from(if signed { "i32" } else { "u32" }),
            Type::Int { width: 64, .. } => return Err(Refusal::new(RefusalCode::Int64, "a 64-bit integer type", inst)),
            Type::Int { width, .. } => {
                return Err(Refusal::new(RefusalCode::SmallInt, format!("a {width}-bit integer type"), inst));
            }
            Type::Float { width: 32, encoding: None } => String::from("f32"),
            Type::Float { width: 16, encoding: None } => {
                self.f16 = true;
                String::from("f16")
            }
            Type::Float { width: 64, .. } => return Err(Refusal::new(RefusalCode::Float64, "a 64-bit float type", inst)),
            Type::Float { .. } => return Err(Refusal::new(RefusalCode::Type, "a float type of another width or encoding", inst)),
            Type::Vector { component, count } => {
                let c = self.ty(component, at)?;
                if !(2..=4).contains(&count) {
                    return Err(Refusal::new(RefusalCode::Type, format!("a vector of {count} components"), inst));
                }
                let mut s = String::with_capacity(6 + c.len());
                s.push_str("vec");
                push_u32(&mut s, count);
                s.push('<');
                s.push_str(&c);
                s.push('>');
                s
            }
            Type::Matrix { column, columns } => {
                let Some(Num { kind, n: rows }) = self.num(column) else {
                    return Err(Refusal::new(RefusalCode::Type, "a matrix of non-float columns", inst));
                };
                if !kind.is_float() {
                    return Err(Refusal::new(RefusalCode::Type, "a matrix of non-float columns", inst));
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
                        push_u32(&mut s, n as u32);
                        s.push('>');
                        s
                    }
                    _ => return Err(Refusal::new(RefusalCode::Type, "an array whose length has no value", inst)),
                }
            }
            Type::RuntimeArray { element } => {
                let e = self.element(ty, element, at)?;
                cat(&["array<", &e, ">"])
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
                return Err(Refusal::new(RefusalCode::PhysicalPointer, "an untyped pointer", inst));
            }
            Type::Image { .. } => self.image_ty(ty, at)?,
            Type::Sampler => String::from("sampler"),
            Type::SampledImage { .. } => {
                // A variable or a function parameter of one is split in two
                // (`expr::image`, `function`); no other WGSL value holds both.
                return Err(Refusal::new(
                    RefusalCode::Image,
                    "a combined image sampler value other than a variable or parameter (WGSL's textures and samplers are separate values)",
                    inst,
                ));
            }
            _ => return Err(Refusal::new(RefusalCode::Type, "a type with no WGSL counterpart", inst)),
        };
        Ok(s)
    }

    /// The element type text of array `arr`: the element itself, or a
    /// struct wrapping it with `@size(ArrayStride)` where WGSL's own stride
    /// differs (or the uniform address space needs a multiple of 16).
    fn element(&mut self, arr: u32, element: u32, at: u32) -> Result<Rc<str>, Refusal> {
        let e = self.ty_atomic(element, at, self.plan.atomic_elements(arr))?;
        let Some(st) = self.plan.wrap_stride(arr) else { return Ok(e) };
        if let Some(n) = self.wrappers.get(&arr) {
            return Ok(Rc::from(n.as_str()));
        }
        let n = self.globals_scope.fresh(None, &format!("Stride{st}_{arr}"));
        self.wrappers.insert(arr, n.clone());
        let inst = self.ir.ty(arr).map_or(at, |t| t.inst);
        self.extra_decls.push((inst, format!("struct {n} {{\n  @size({st}) v: {e},\n}}\n")));
        Ok(Rc::from(n))
    }

    /// The name of struct type `ty`.
    pub(super) fn type_name(&mut self, ty: u32) -> String {
        if let Some(n) = self.type_names.get(&ty) {
            return n.clone();
        }
        let n = self.globals_scope.fresh_numbered(None, self.ir.name(ty), "S", ty);
        self.type_names.insert(ty, n.clone());
        n
    }

    /// The WGSL address space of a storage class (function-local and
    /// module-scope memory; stage IO is private behind the entry wrapper).
    pub(super) fn space(&self, storage: u32, at: u32) -> Result<&'static str, Refusal> {
        use crate::grammar::storage_class as sc;
        Ok(match storage {
            sc::Function => "function",
            sc::Private | sc::Input | sc::Output => "private",
            sc::Workgroup => "workgroup",
            sc::StorageBuffer => "storage, read_write",
            sc::Uniform => "uniform",
            sc::PushConstant => self.plan.push_space().as_str(),
            sc::PhysicalStorageBuffer => {
                return Err(Refusal::new(RefusalCode::PhysicalPointer, "a PhysicalStorageBuffer pointer", Some(at)));
            }
            _ => return Err(Refusal::new(RefusalCode::StorageClass, "a storage class WGSL lacks", Some(at))),
        })
    }

    /// The declaration of struct `ty`, with `@size` on a member where the
    /// next member's Offset is past WGSL's own placement (written without
    /// the formatter).
    pub(super) fn struct_decl(&mut self, ty: u32) -> Result<String, Refusal> {
        let ir = self.ir;
        let members: &[Member] = ir.ty(ty).map_or(&[], |t| t.members());
        let inst = ir.ty(ty).map_or(0, |t| t.inst);
        let name = self.type_name(ty);
        let uniform = self.plan.is_uniform(ty);
        let mut out = String::with_capacity(name.len() + 12 + 24 * members.len());
        for part in ["struct ", &name, " {\n"] {
            out.push_str(part);
        }
        for (k, m) in members.iter().enumerate() {
            let atomic = self.plan.atomic_member(ty, k as u32);
            let t = self.ty_atomic(m.ty, inst, atomic)?;
            // `@size` where WGSL would place the next member before its Offset.
            let mut size = None;
            if let (Some(o), Some(n)) = (m.offset, members.get(k + 1))
                && let Some(next) = n.offset
            {
                let (_, s) = layout(self.ir, m.ty, uniform).unwrap_or((4, 4));
                let (na, _) = layout(self.ir, n.ty, uniform).unwrap_or((4, 4));
                let gap = (next as u64).saturating_sub(o as u64);
                if round_up(na, o as u64 + s) != next as u64 && gap > s {
                    size = Some(gap);
                }
            }
            if k == 0 && m.offset.is_some_and(|o| o != 0) {
                return Err(Refusal::new(RefusalCode::Layout, "the first member is not at Offset 0", Some(inst)));
            }
            out.push_str("  ");
            if let Some(gap) = size {
                // Writing into a String cannot fail.
                let _ = core::fmt::Write::write_fmt(&mut out, format_args!("@size({gap}) "));
            }
            self.push_member(&mut out, ty, k as u32);
            for part in [": ", &t, ",\n"] {
                out.push_str(part);
            }
        }
        if members.is_empty() {
            return Err(Refusal::new(RefusalCode::Type, "an empty struct", Some(inst)));
        }
        out.push_str("}\n");
        Ok(out)
    }

    /// The member name used in expressions (assigned in order on first use).
    pub(super) fn member(&mut self, ty: u32, k: u32) -> String {
        let mut s = String::new();
        self.push_member(&mut s, ty, k);
        s
    }

    /// Append [`ModuleWriter::member`] to `out`. A struct's members are
    /// named all at once, in order, in a scope of their own, on first use
    /// (`m<k>` where the struct names none).
    pub(super) fn push_member(&mut self, out: &mut String, ty: u32, k: u32) {
        if !self.member_names.contains_key(&ty) {
            // Members without names are `m<k>` (no reserved word, none the
            // same): nothing to keep.
            let names = if self.ir.has_member_names(ty) {
                let mut scope = Scope::default();
                let n = self.ir.ty(ty).map_or(0, |t| t.members().len() as u32);
                (0..n).map(|j| scope.fresh_numbered(None, self.ir.member_name(ty, j), "m", j)).collect()
            } else {
                Vec::new()
            };
            self.member_names.insert(ty, names);
        }
        match self.member_names.get(&ty).and_then(|m| m.get(k as usize)) {
            Some(m) => out.push_str(m),
            None => {
                out.push('m');
                push_u32(out, k);
            }
        }
    }
}
