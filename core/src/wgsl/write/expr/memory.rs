//! Memory: loads and stores (atomic memory through the atomic built-ins),
//! copies, access chains as reference expressions (a constant index past a
//! fixed size clamped to the last element), array lengths. Pointer
//! arithmetic and variable-length arrays are refused.

use super::Instruction;
use crate::grammar::op;
use crate::ir::Type;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;

/// The index of one access step ([`ModuleWriter::step`]).
pub(super) enum Index<'x, 'c> {
    /// A literal: a struct member's number, or a composite's index.
    Lit(u32),
    /// The last element `n` of an array or vector, for a constant index past
    /// its end (`{n}u`).
    Last(u64),
    /// An index value, read in a function.
    Val(&'x mut FunctionContext<'c>, u32),
}

impl ModuleWriter<'_> {
    /// Memory: loads, stores, copies, access chains, array lengths; pointer arithmetic and variable-length arrays refused.
    pub(in crate::wgsl::write) fn memory(&mut self, f: &mut FunctionContext, inst: &Instruction) -> Result<Option<String>, Refusal> {
        let Instruction { index: i, opcode: o, words, result_type: rt, result: id } = *inst;
        let ir = self.ir;
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        let e: String = match o {
            op::OpLoad
                if f.ref_of(arg(2)).is_some()
                    && !f.hoisted.contains(&id)
                    && !self.is_handle(rt)
                    && !self.plan.is_atomic_ptr(arg(2))
                    && self.scalar_name(rt).is_some() =>
            {
                let t = self.scalar_name(rt).unwrap_or("");
                let n = f.scope.fresh_name(Some(&self.globals_scope), ir.name(id), "x", id);
                let p = f.ref_of(arg(2)).unwrap_or("");
                self.out.line_parts(f.indent, &["let ", f.scope.text_of(n), ": ", t, " = ", p, ";"], Some(i as u32));
                f.names.insert(id, n);
                return Ok(None);
            }
            op::OpLoad => {
                let p = self.reference(f, arg(2))?;
                // An image or sampler is named by its variable (image.rs).
                if self.is_handle(rt) {
                    f.name_by(id, &p);
                    return Ok(None);
                }
                if self.plan.is_atomic_ptr(arg(2)) { format!("atomicLoad(&{p})") } else { p }
            }
            // A plain store through a named pointer: written in place, the
            // value in the spare buffer (what the general case below writes).
            op::OpStore if f.ref_of(arg(0)).is_some() && !self.plan.is_atomic_ptr(arg(0)) => {
                let mut v = core::mem::take(&mut self.spare);
                v.clear();
                let r = self.push_val(f, arg(1), &mut v);
                if r.is_ok() {
                    let p = f.ref_of(arg(0)).unwrap_or("");
                    self.out.line_parts(f.indent, &[p, " = ", &v, ";"], Some(i as u32));
                }
                self.spare = v;
                return r.map(|()| None);
            }
            op::OpStore => {
                let p = self.reference(f, arg(0))?;
                let v = self.val(f, arg(1))?;
                if self.plan.is_atomic_ptr(arg(0)) {
                    self.out.line_fmt(f.indent, format_args!("atomicStore(&{p}, {v});"), Some(i as u32));
                } else {
                    self.out.line_fmt(f.indent, format_args!("{p} = {v};"), Some(i as u32));
                }
                return Ok(None);
            }
            op::OpCopyMemory => {
                let t = self.reference(f, arg(0))?;
                let s = self.reference(f, arg(1))?;
                self.out.line_fmt(f.indent, format_args!("{t} = {s};"), Some(i as u32));
                return Ok(None);
            }
            op::OpAccessChain | op::OpInBoundsAccessChain => {
                // Built in the spare buffer, kept in `f`'s reference text.
                let mut chain = core::mem::take(&mut self.spare);
                chain.clear();
                let r = self.access_chain(f, words, &mut chain);
                if r.is_ok() {
                    f.set_ref(id, &chain);
                }
                self.spare = chain;
                return r.map(|()| None);
            }
            op::OpCopyObject if self.is_pointer(rt) => {
                let r = self.reference(f, arg(2))?;
                f.set_ref(id, &r);
                return Ok(None);
            }
            op::OpCopyObject => self.val(f, arg(2))?,
            op::OpPtrAccessChain | op::OpInBoundsPtrAccessChain | op::OpConvertPtrToU | op::OpConvertUToPtr => {
                return Err(Refusal::new(RefusalCode::PhysicalPointer, "pointer arithmetic or conversion", Some(i as u32)));
            }
            op::OpVariableLengthArrayINTEL | op::OpSaveMemoryINTEL | op::OpRestoreMemoryINTEL => {
                return Err(Refusal::new(RefusalCode::Vla, "a variable-length array", Some(i as u32)));
            }
            op::OpArrayLength => {
                let p = self.reference(f, arg(2))?;
                let st = self.pointee(arg(2));
                let m = self.member(st, arg(3));
                format!("arrayLength(&{p}.{m})")
            }
            _ => return Err(inst.unsupported(self.ir)),
        };
        Ok(Some(e))
    }

    /// The pointee type of pointer value `p`.
    pub(in crate::wgsl::write) fn pointee(&self, p: u32) -> u32 {
        match self.ir.type_of(p).and_then(|t| self.ir.ty(t)).map(|t| &t.ty) {
            Some(Type::Pointer { pointee: Some(x), .. }) => *x,
            _ => 0,
        }
    }

    /// Append to `e` the access of one step by `index` into type `t` (a
    /// struct member by its literal number); the type reached.
    pub(super) fn step(&mut self, e: &mut String, t: u32, index: Index) -> Result<u32, Refusal> {
        let k = match index {
            Index::Lit(k) => k,
            _ => 0,
        };
        // What the step needs of the type, without copying it: 0 a struct
        // member, 1 an array element, 2 a vector or matrix component.
        let (what, next) = match self.ir.ty(t) {
            None => return Err(Refusal::new(RefusalCode::Invalid, "an access into a non-type", None)),
            Some(td) => match &td.ty {
                Type::Struct { members } => (0, members.get(k as usize).map_or(0, |m| m.ty)),
                Type::Array { element, .. } | Type::RuntimeArray { element } => (1, *element),
                Type::Vector { component, .. } => (2, *component),
                Type::Matrix { column, .. } => (2, *column),
                _ => return Err(Refusal::new(RefusalCode::Invalid, "an access into a scalar", Some(td.inst))),
            },
        };
        if what == 0 {
            e.push('.');
            self.push_member(e, t, k);
            return Ok(next);
        }
        e.push('[');
        match index {
            Index::Lit(k) => crate::wgsl::names::push_u32(e, k),
            Index::Last(n) => {
                crate::text::dis::num::push_u64(e, n);
                e.push('u');
            }
            Index::Val(f, x) => self.push_val(f, x, e)?,
        }
        e.push(']');
        if what == 1 && self.plan.wrap_stride(t).is_some() {
            e.push_str(".v");
        }
        Ok(next)
    }

    /// The reference expression of access chain `w` (its operand words),
    /// appended to `e`.
    pub(in crate::wgsl::write) fn access_chain(&mut self, f: &mut FunctionContext, words: &[u32], e: &mut String) -> Result<(), Refusal> {
        let base = words.get(2).copied().unwrap_or(0);
        match f.ref_of(base).or_else(|| self.global_names.get(&base).map(String::as_str)) {
            Some(r) => e.push_str(r),
            None => e.push_str(&self.reference(f, base)?),
        }
        let mut t = self.pointee(base);
        for &x in words.get(3..).unwrap_or(&[]) {
            let is_struct = matches!(self.ir.ty(t).map(|t| &t.ty), Some(Type::Struct { .. }));
            t = if is_struct {
                let k = self.ir.const_u64(x).unwrap_or(0) as u32;
                self.step(e, t, Index::Lit(k))?
            } else {
                // A constant index past a fixed size: WGSL rejects it when
                // the shader is created, SPIR-V leaves it undefined.
                let len = match self.ir.ty(t).map(|t| &t.ty) {
                    Some(Type::Array { len, .. }) => *len,
                    Some(Type::Vector { count: n, .. } | Type::Matrix { columns: n, .. }) => Some(*n as u64),
                    _ => None,
                };
                match (len, self.ir.const_u64(x)) {
                    (Some(n), Some(k)) if k >= n && n > 0 => self.step(e, t, Index::Last(n - 1))?,
                    // The index value, written in place.
                    _ => self.step(e, t, Index::Val(&mut *f, x))?,
                }
            };
        }
        Ok(())
    }
}
