//! Instructions as WGSL expressions and statements, GLSL.std.450 included.

use super::{W, cat};
use super::func::F;
use super::refuse::Refusal;
use super::types::{Kind, Num, cast};
use crate::grammar::ext_inst::glsl_std_450 as g;
use crate::grammar::{op, storage_class as sc};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

const XYZW: [&str; 4] = ["x", "y", "z", "w"];

/// The index of one access step ([`W::step`]).
enum Index<'x, 'c> {
    /// A literal: a struct member's number, or a composite's index.
    Lit(u32),
    /// The last element `n` of an array or vector, for a constant index past
    /// its end (`{n}u`).
    Last(u64),
    /// An index value, read in function `F`.
    Val(&'x mut F<'c>, u32),
}

fn unsupported(i: usize, what: &str) -> Refusal {
    Refusal::new("wgsl.instruction", format!("{what} has no WGSL counterpart"), Some(i as u32))
}

impl W<'_> {
    /// The expression of value `id`.
    pub fn val(&mut self, f: &mut F, id: u32) -> Result<String, Refusal> {
        if let Some(n) = f.name(id) {
            return Ok(String::from(n));
        }
        if let Some(r) = f.ref_of(id) {
            return Ok(String::from(r));
        }
        if self.ir.constant(id).is_some() {
            let c = self.const_expr(id)?;
            if f.opaque && !self.global_names.contains_key(&id) && self.num_of(id).is_some() {
                let o = match &self.opaque {
                    Some(o) => o.clone(),
                    None => {
                        let o = self.globals_scope.fresh(Some("run_time"), "run_time");
                        self.wrapper_decls.push((0, format!("var<private> {o}: bool;\n")));
                        self.opaque = Some(o.clone());
                        o
                    }
                };
                // One run-time operand makes the whole expression run-time.
                f.opaque = false;
                return Ok(format!("select({c}, {c}, {o})"));
            }
            return Ok(c);
        }
        if let Some(n) = self.global_names.get(&id) {
            return Ok(n.clone());
        }
        if self.ir.def_opcode(id) == Some(op::OpUndef) {
            let t = self.ir.type_of(id).unwrap_or(0);
            let at = self.ir.def(id).unwrap_or(0) as u32;
            return Ok(format!("{}()", self.ty(t, at)?));
        }
        Err(Refusal::new("wgsl.invalid", format!("%{id} is used before it is defined"), None))
    }

    /// The reference expression of pointer `id`.
    fn reference(&mut self, f: &mut F, id: u32) -> Result<String, Refusal> {
        if let Some(r) = f.ref_of(id) {
            return Ok(String::from(r));
        }
        if let Some(n) = self.global_names.get(&id) {
            return Ok(n.clone());
        }
        Err(Refusal::new("wgsl.variable-pointer", format!("%{id} is not a pointer WGSL can name"), None))
    }

    /// `val(id)` cast to `want` (integers of another signedness).
    pub(super) fn val_as(&mut self, f: &mut F, id: u32, want: Num) -> Result<String, Refusal> {
        let e = self.val(f, id)?;
        Ok(match self.num_of(id) {
            Some(have) if have.kind.is_int() && want.kind.is_int() && have.n == want.n => cast(e, have, want),
            _ => e,
        })
    }

    /// What [`W::val`] gives a 32-bit integer scalar constant (not opaque,
    /// not named), appended to `out` without a String of its own; false,
    /// with `out` unchanged, for any other value.
    fn push_int_literal(&self, f: &F, id: u32, out: &mut String) -> bool {
        let ir = self.ir;
        let Some(c) = ir.constant(id) else { return false };
        let crate::ir::ConstValue::Scalar(bits) = c.value else { return false };
        if f.refs.get(&id).is_some()
            || self.global_names.contains_key(&id)
            || matches!(ir.opcode(c.inst as usize), op::OpConstantDataKHR | op::OpSpecConstantDataKHR)
        {
            return false;
        }
        self.num(c.ty).is_some_and(|n| super::globals::push_int32_literal(n.kind, bits, out))
    }

    /// `val_as(id, want)` appended to `out` (a named value without a String of its own).
    fn push_val_as(&mut self, f: &mut F, id: u32, want: Num, out: &mut String) -> Result<(), Refusal> {
        let to = match self.num_of(id) {
            Some(have) if have.kind.is_int() && want.kind.is_int() && have.n == want.n && have != want => Some(want),
            _ => None,
        };
        if let Some(t) = to {
            out.push_str("bitcast<");
            t.push_text(out);
            out.push_str(">(");
        }
        self.push_val(f, id, out)?;
        if to.is_some() {
            out.push(')');
        }
        Ok(())
    }

    /// `val(id)` appended to `out` (a named value or an integer literal
    /// without a String of its own).
    fn push_val(&mut self, f: &mut F, id: u32, out: &mut String) -> Result<(), Refusal> {
        match f.name(id) {
            Some(n) => out.push_str(n),
            None if !f.opaque && self.push_int_literal(f, id, out) => {}
            None => {
                let v = self.val(f, id)?;
                out.push_str(&v);
            }
        }
        Ok(())
    }

    /// `(a op b)` of operands `w[2]` and `w[3]` as `c`, into `s`.
    fn push_bin(&mut self, f: &mut F, w: &[u32], op: &str, c: Num, s: &mut String) -> Result<(), Refusal> {
        s.push('(');
        self.push_val_as(f, w[2], c, s)?;
        s.push(' ');
        s.push_str(op);
        s.push(' ');
        self.push_val_as(f, w[3], c, s)?;
        s.push(')');
        Ok(())
    }

    /// An empty String to build an expression in: [`W::spare`], or a new one.
    fn expr_buffer(&mut self) -> String {
        let mut s = core::mem::take(&mut self.spare);
        s.clear();
        s.reserve(48);
        s
    }

    /// Bind the value of instruction `i` (result `id` of type `ty`) to `e`.
    fn bind(&mut self, f: &mut F, i: usize, id: u32, ty: u32, e: String) -> Result<(), Refusal> {
        let at = Some(i as u32);
        if f.hoisted.contains(&id) {
            let n = f.name(id).unwrap_or("");
            self.out.line_parts(f.indent, &[n, " = ", &e, ";"], at);
        } else {
            let owned;
            let t = match self.scalar_name(ty) {
                Some(s) => s,
                None => {
                    owned = self.ty(ty, i as u32)?;
                    owned.as_str()
                }
            };
            let n = f.scope.fresh_name(Some(&self.globals_scope), self.ir.name(id), "x", id);
            self.out.line_parts(f.indent, &["let ", f.scope.text_of(n), ": ", t, " = ", &e, ";"], at);
            f.names.insert(id, n);
        }
        // Its buffer serves the next expression.
        if e.capacity() > self.spare.capacity() {
            self.spare = e;
        }
        Ok(())
    }

    /// A statement of instruction `i`.
    fn stmt_line(&mut self, f: &F, i: usize, s: String) {
        self.out.line(f.indent, &s, Some(i as u32));
    }

    /// Write instruction `i` of a block. An operation on constants only is
    /// given them as run-time values: WGSL evaluates constant expressions when
    /// the shader is created and rejects what overflows, divides by zero,
    /// shifts too far or indexes out of bounds, where SPIR-V only leaves the
    /// result undefined (and the code may never run).
    pub fn inst(&mut self, f: &mut F, i: usize) -> Result<(), Refusal> {
        let data = matches!(
            self.ir.opcode(i),
            op::OpCompositeConstruct
                | op::OpCompositeExtract
                | op::OpCompositeInsert
                | op::OpCopyObject
                | op::OpVectorShuffle
                | op::OpStore
                | op::OpLoad
                | op::OpAccessChain
                | op::OpInBoundsAccessChain
                | op::OpFunctionCall
                | op::OpSelect
                | op::OpUndef
        );
        let ext = if self.ir.opcode(i) == op::OpExtInst { self.ir.words(i).get(2).copied() } else { None };
        let mut ids = self
            .ir
            .operands(i)
            .filter(|o| o.kind == crate::grammar::OperandKind::IdRef)
            .filter_map(|o| o.id())
            .filter(|&x| Some(x) != ext)
            .peekable();
        f.opaque = !data && ids.peek().is_some() && ids.all(|x| self.ir.constant(x).is_some());
        let r = self.inst_inner(f, i);
        f.opaque = false;
        r
    }

    fn inst_inner(&mut self, f: &mut F, i: usize) -> Result<(), Refusal> {
        let ir = self.ir;
        let o = ir.opcode(i);
        let w: &[u32] = ir.words(i);
        let has_result = ir.desc(i).is_some_and(|d| d.has_result_type());
        let (rt, id) = if has_result { (w[0], w[1]) } else { (0, 0) };
        let rnum = if has_result { self.num(rt) } else { None };
        let arg = |k: usize| w.get(k).copied().unwrap_or(0);
        let e: String = match o {
            // A load through a pointer named in this function, of a scalar,
            // bound where it is defined: `bind` with the reference read in
            // place (no copy of it).
            op::OpLoad
                if f.ref_of(arg(2)).is_some()
                    && !f.hoisted.contains(&id)
                    && !self.is_handle(rt)
                    && !self.is_atomic_ptr(arg(2))
                    && self.scalar_name(rt).is_some() =>
            {
                let t = self.scalar_name(rt).unwrap_or("");
                let n = f.scope.fresh_name(Some(&self.globals_scope), ir.name(id), "x", id);
                let p = f.ref_of(arg(2)).unwrap_or("");
                self.out.line_parts(f.indent, &["let ", f.scope.text_of(n), ": ", t, " = ", p, ";"], Some(i as u32));
                f.names.insert(id, n);
                return Ok(());
            }
            op::OpLoad => {
                let p = self.reference(f, arg(2))?;
                // An image or sampler is named by its variable (image.rs).
                if self.is_handle(rt) {
                    f.name_by(id, &p);
                    return Ok(());
                }
                if self.is_atomic_ptr(arg(2)) { format!("atomicLoad(&{p})") } else { p }
            }
            // A plain store through a named pointer: written in place, the
            // value in the spare buffer (what the general case below writes).
            op::OpStore if f.ref_of(arg(0)).is_some() && !self.is_atomic_ptr(arg(0)) => {
                let mut v = core::mem::take(&mut self.spare);
                v.clear();
                let r = self.push_val(f, arg(1), &mut v);
                if r.is_ok() {
                    let p = f.ref_of(arg(0)).unwrap_or("");
                    self.out.line_parts(f.indent, &[p, " = ", &v, ";"], Some(i as u32));
                }
                self.spare = v;
                return r;
            }
            op::OpStore => {
                let p = self.reference(f, arg(0))?;
                let v = self.val(f, arg(1))?;
                if self.is_atomic_ptr(arg(0)) {
                    self.out.line_fmt(f.indent, format_args!("atomicStore(&{p}, {v});"), Some(i as u32));
                } else {
                    self.out.line_fmt(f.indent, format_args!("{p} = {v};"), Some(i as u32));
                }
                return Ok(());
            }
            op::OpCopyMemory => {
                let t = self.reference(f, arg(0))?;
                let s = self.reference(f, arg(1))?;
                self.out.line_fmt(f.indent, format_args!("{t} = {s};"), Some(i as u32));
                return Ok(());
            }
            op::OpAccessChain | op::OpInBoundsAccessChain => {
                // Built in the spare buffer, kept in `f`'s reference text.
                let mut chain = core::mem::take(&mut self.spare);
                chain.clear();
                let r = self.access_chain(f, w, &mut chain);
                if r.is_ok() {
                    f.set_ref(id, &chain);
                }
                self.spare = chain;
                return r;
            }
            op::OpCopyObject if self.is_pointer(rt) => {
                let r = self.reference(f, arg(2))?;
                f.set_ref(id, &r);
                return Ok(());
            }
            op::OpCopyObject => self.val(f, arg(2))?,
            op::OpPtrAccessChain | op::OpInBoundsPtrAccessChain | op::OpConvertPtrToU | op::OpConvertUToPtr => {
                return Err(Refusal::new("wgsl.physical-pointer", "pointer arithmetic or conversion", Some(i as u32)));
            }
            op::OpVariableLengthArrayINTEL | op::OpSaveMemoryINTEL | op::OpRestoreMemoryINTEL => {
                return Err(Refusal::new("wgsl.vla", "a variable-length array", Some(i as u32)));
            }
            op::OpArrayLength => {
                let p = self.reference(f, arg(2))?;
                let st = self.pointee(arg(2));
                let m = self.member(st, arg(3));
                format!("arrayLength(&{p}.{m})")
            }
            op::OpFunctionCall => {
                let callee = self.global_names.get(&arg(2)).cloned().unwrap_or_default();
                let mut args = Vec::new();
                for &a in &w[3..] {
                    if ir.type_of(a).is_some_and(|t| self.is_pointer(t)) {
                        let whole = matches!(ir.def_opcode(a), Some(op::OpVariable | op::OpFunctionParameter));
                        if !whole {
                            return Err(Refusal::new(
                                "wgsl.pointer-parameter",
                                "a pointer argument into part of a variable (WGSL passes whole variables)",
                                Some(i as u32),
                            ));
                        }
                        args.push(format!("&{}", self.reference(f, a)?));
                    } else {
                        args.push(self.val(f, a)?);
                    }
                }
                let call = format!("{callee}({})", args.join(", "));
                if matches!(ir.ty(rt).map(|t| &t.ty), Some(Type::Void)) {
                    self.out.line_fmt(f.indent, format_args!("{call};"), Some(i as u32));
                    return Ok(());
                }
                call
            }
            op::OpUndef => format!("{}()", self.ty(rt, i as u32)?),
            op::OpSelect => {
                if self.is_pointer(rt) {
                    return Err(Refusal::new("wgsl.variable-pointer", "an OpSelect of pointers", Some(i as u32)));
                }
                if rnum.is_none() {
                    return Err(unsupported(i, "OpSelect of a composite"));
                }
                let c = self.val(f, arg(2))?;
                let a = self.val(f, arg(3))?;
                let b = self.val(f, arg(4))?;
                format!("select({b}, {a}, {c})")
            }
            op::OpCompositeExtract => {
                let mut e = self.val(f, arg(2))?;
                let mut t = ir.type_of(arg(2)).unwrap_or(0);
                for &k in &w[3..] {
                    t = self.step(&mut e, t, Index::Lit(k))?;
                }
                e
            }
            op::OpCompositeInsert | op::OpVectorInsertDynamic => {
                let (obj, comp) = if o == op::OpCompositeInsert { (arg(2), arg(3)) } else { (arg(3), arg(2)) };
                let c = self.val(f, comp)?;
                let v = self.val(f, obj)?;
                let mut path = String::new();
                if o == op::OpCompositeInsert {
                    let mut t = rt;
                    for &k in &w[4..] {
                        t = self.step(&mut path, t, Index::Lit(k))?;
                    }
                } else {
                    path = format!("[{}]", self.val(f, arg(4))?);
                }
                let n = if f.hoisted.contains(&id) {
                    let n = f.names.get(&id).copied().unwrap_or_default();
                    self.out.line_fmt(f.indent, format_args!("{} = {c};", f.text_of(n)), Some(i as u32));
                    n
                } else {
                    let t = self.ty(rt, i as u32)?;
                    let n = f.scope.fresh_name(Some(&self.globals_scope), ir.name(id), "x", id);
                    self.out.line_fmt(f.indent, format_args!("var {}: {t} = {c};", f.scope.text_of(n)), Some(i as u32));
                    f.names.insert(id, n);
                    n
                };
                self.out.line_fmt(f.indent, format_args!("{}{path} = {v};", f.text_of(n)), Some(i as u32));
                return Ok(());
            }
            op::OpCompositeConstruct => {
                let t = self.ty(rt, i as u32)?;
                let wrap = self.wrappers.get(&rt).cloned();
                let mut args = Vec::new();
                for &a in &w[2..] {
                    let e = self.val(f, a)?;
                    args.push(match &wrap {
                        Some(w) => format!("{w}({e})"),
                        None => e,
                    });
                }
                format!("{t}({})", args.join(", "))
            }
            op::OpVectorShuffle => {
                let t = self.ty(rt, i as u32)?;
                let a = self.val(f, arg(2))?;
                let b = self.val(f, arg(3))?;
                let na = self.num_of(arg(2)).map_or(0, |n| n.n);
                let mut args = Vec::new();
                for &c in &w[4..] {
                    let s = if c == u32::MAX {
                        format!("{a}.x")
                    } else if c < na {
                        format!("{a}.{}", XYZW[(c & 3) as usize])
                    } else {
                        format!("{b}.{}", XYZW[((c - na) & 3) as usize])
                    };
                    args.push(s);
                }
                format!("{t}({})", args.join(", "))
            }
            op::OpVectorExtractDynamic => {
                // WGSL rejects a constant index past the end, which SPIR-V
                // leaves undefined: clamp it (WGSL clamps at run time anyway).
                let v = self.val(f, arg(2))?;
                let n = self.num_of(arg(2)).map_or(1, |n| n.n);
                let u = Num { kind: Kind::U32, n: 1 };
                let k = self.val_as(f, arg(3), u)?;
                format!("{v}[min({k}, {}u)]", n - 1)
            }
            op::OpTranspose => format!("transpose({})", self.val(f, arg(2))?),
            op::OpDot => format!("dot({}, {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpVectorTimesScalar
            | op::OpMatrixTimesScalar
            | op::OpVectorTimesMatrix
            | op::OpMatrixTimesVector
            | op::OpMatrixTimesMatrix
            | op::OpFMul => format!("({} * {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpOuterProduct => {
                let t = self.ty(rt, i as u32)?;
                let a = self.val(f, arg(2))?;
                let b = self.val(f, arg(3))?;
                let n = self.num_of(arg(3)).map_or(0, |n| n.n);
                let cols: Vec<String> = (0..n as usize).map(|k| format!("{a} * {b}.{}", XYZW[k & 3])).collect();
                format!("{t}({})", cols.join(", "))
            }
            op::OpFAdd => format!("({} + {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpFSub => format!("({} - {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpFDiv => format!("({} / {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpFRem => format!("({} % {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpFMod => {
                let a = self.val(f, arg(2))?;
                let b = self.val(f, arg(3))?;
                format!("({a} - {b} * floor({a} / {b}))")
            }
            op::OpFNegate => format!("-({})", self.val(f, arg(2))?),
            op::OpIAdd => self.int_bin(f, w, "+", None)?,
            op::OpISub => self.int_bin(f, w, "-", None)?,
            op::OpIMul => self.int_bin(f, w, "*", None)?,
            op::OpSDiv => self.int_bin(f, w, "/", Some(Kind::I32))?,
            op::OpUDiv => self.int_bin(f, w, "/", Some(Kind::U32))?,
            op::OpSRem => self.int_bin(f, w, "%", Some(Kind::I32))?,
            op::OpUMod => self.int_bin(f, w, "%", Some(Kind::U32))?,
            op::OpSMod => {
                let n = rnum.ok_or_else(|| unsupported(i, "OpSMod of this type"))?;
                let s = n.with(Kind::I32);
                let a = self.val_as(f, arg(2), s)?;
                let b = self.val_as(f, arg(3), s)?;
                let z = if n.n == 1 { String::from("0i") } else { format!("{}()", s.text()) };
                let r = format!("({a} % {b})");
                cast(format!("select({r}, {r} + {b}, ({r} != {z}) & (({r} < {z}) != ({b} < {z})))"), s, n)
            }
            op::OpBitwiseAnd => self.int_bin(f, w, "&", None)?,
            op::OpBitwiseOr => self.int_bin(f, w, "|", None)?,
            op::OpBitwiseXor => self.int_bin(f, w, "^", None)?,
            op::OpShiftLeftLogical => self.shift(f, w, "<<", None)?,
            op::OpShiftRightLogical => self.shift(f, w, ">>", Some(Kind::U32))?,
            op::OpShiftRightArithmetic => self.shift(f, w, ">>", Some(Kind::I32))?,
            op::OpNot => {
                let n = rnum.ok_or_else(|| unsupported(i, "OpNot of this type"))?;
                format!("~{}", self.val_as(f, arg(2), n)?)
            }
            op::OpSNegate => {
                let n = rnum.ok_or_else(|| unsupported(i, "OpSNegate of this type"))?;
                let s = n.with(Kind::I32);
                cast(format!("-{}", self.val_as(f, arg(2), s)?), s, n)
            }
            op::OpIEqual => self.cmp(f, w, "==", None)?,
            op::OpINotEqual => self.cmp(f, w, "!=", None)?,
            op::OpSLessThan => self.cmp(f, w, "<", Some(Kind::I32))?,
            op::OpSLessThanEqual => self.cmp(f, w, "<=", Some(Kind::I32))?,
            op::OpSGreaterThan => self.cmp(f, w, ">", Some(Kind::I32))?,
            op::OpSGreaterThanEqual => self.cmp(f, w, ">=", Some(Kind::I32))?,
            op::OpULessThan => self.cmp(f, w, "<", Some(Kind::U32))?,
            op::OpULessThanEqual => self.cmp(f, w, "<=", Some(Kind::U32))?,
            op::OpUGreaterThan => self.cmp(f, w, ">", Some(Kind::U32))?,
            op::OpUGreaterThanEqual => self.cmp(f, w, ">=", Some(Kind::U32))?,
            op::OpFOrdEqual => self.fcmp(f, w, "==", false)?,
            op::OpFOrdNotEqual => self.fcmp(f, w, "!=", false)?,
            op::OpFOrdLessThan => self.fcmp(f, w, "<", false)?,
            op::OpFOrdLessThanEqual => self.fcmp(f, w, "<=", false)?,
            op::OpFOrdGreaterThan => self.fcmp(f, w, ">", false)?,
            op::OpFOrdGreaterThanEqual => self.fcmp(f, w, ">=", false)?,
            op::OpFUnordEqual => self.fcmp(f, w, "!=", true)?,
            op::OpFUnordNotEqual => self.fcmp(f, w, "==", true)?,
            op::OpFUnordLessThan => self.fcmp(f, w, ">=", true)?,
            op::OpFUnordLessThanEqual => self.fcmp(f, w, ">", true)?,
            op::OpFUnordGreaterThan => self.fcmp(f, w, "<=", true)?,
            op::OpFUnordGreaterThanEqual => self.fcmp(f, w, "<", true)?,
            op::OpLogicalAnd => format!("({} & {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpLogicalOr => format!("({} | {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpLogicalEqual => format!("({} == {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpLogicalNotEqual => {
                format!("({} != {})", self.val(f, arg(2))?, self.val(f, arg(3))?)
            }
            op::OpLogicalNot => format!("!({})", self.val(f, arg(2))?),
            op::OpAny => format!("any({})", self.val(f, arg(2))?),
            op::OpAll => format!("all({})", self.val(f, arg(2))?),
            op::OpIsNan => {
                let x = self.val(f, arg(2))?;
                match self.num_of(arg(2)) {
                    // `x != x` on f16 comes out false for a NaN on lavapipe
                    // (tests/gpu-repros/ours-f16-isnan.amber): test the bits
                    // of the f32 it converts to (a NaN stays a NaN).
                    Some(Num { kind: Kind::F16, n: 1 }) => format!("((bitcast<u32>(f32({x})) & 0x7fffffffu) > 0x7f800000u)"),
                    _ => format!("({x} != {x})"),
                }
            }
            op::OpIsInf => {
                let x = self.val(f, arg(2))?;
                let n = self.num_of(arg(2)).unwrap_or(Num { kind: Kind::F32, n: 1 });
                let big = if n.kind == Kind::F16 { "65504.0h" } else { "3.4028235e38f" };
                let big = if n.n == 1 { String::from(big) } else { format!("{}({big})", n.text()) };
                format!("(abs({x}) > {big})")
            }
            op::OpConvertFToS | op::OpConvertFToU => {
                let n = rnum.ok_or_else(|| unsupported(i, "this conversion"))?;
                let k = if o == op::OpConvertFToS { Kind::I32 } else { Kind::U32 };
                let x = self.val(f, arg(2))?;
                cast(format!("{}({x})", n.with(k).text()), n.with(k), n)
            }
            op::OpConvertSToF | op::OpConvertUToF => {
                let n = rnum.ok_or_else(|| unsupported(i, "this conversion"))?;
                let k = if o == op::OpConvertSToF { Kind::I32 } else { Kind::U32 };
                let x = self.val_as(f, arg(2), n.with(k))?;
                format!("{}({x})", n.text())
            }
            op::OpFConvert => {
                let n = rnum.ok_or_else(|| unsupported(i, "this conversion"))?;
                format!("{}({})", n.text(), self.val(f, arg(2))?)
            }
            op::OpUConvert | op::OpSConvert => {
                let n = rnum.ok_or_else(|| unsupported(i, "this conversion"))?;
                let k = if o == op::OpSConvert { Kind::I32 } else { Kind::U32 };
                cast(self.val_as(f, arg(2), n.with(k))?, n.with(k), n)
            }
            op::OpBitcast => {
                if self.is_pointer(rt) || ir.type_of(arg(2)).is_some_and(|t| self.is_pointer(t)) {
                    return Err(Refusal::new("wgsl.physical-pointer", "a bitcast of a pointer", Some(i as u32)));
                }
                let t = self.ty(rt, i as u32)?;
                let x = self.val(f, arg(2))?;
                let from = self.num_of(arg(2));
                let h2 = Num { kind: Kind::F16, n: 2 };
                // Two halves and a 32-bit scalar: by the packing built-ins
                // (naga 30 mistypes bitcasts of f16 vectors).
                if from == Some(h2) && rnum.is_some_and(|n| n.n == 1) {
                    let u = Num { kind: Kind::U32, n: 1 };
                    cast(format!("pack2x16float(vec2<f32>({x}))"), u, rnum.unwrap_or(u))
                } else if rnum == Some(h2) && from.is_some_and(|n| n.n == 1) {
                    let u = Num { kind: Kind::U32, n: 1 };
                    let x = cast(x, from.unwrap_or(u), u);
                    format!("vec2<f16>(unpack2x16float({x}))")
                } else if ir.type_of(arg(2)) == Some(rt) {
                    x
                } else {
                    format!("bitcast<{t}>({x})")
                }
            }
            op::OpQuantizeToF16 => format!("quantizeToF16({})", self.val(f, arg(2))?),
            op::OpBitCount => {
                let n = rnum.ok_or_else(|| unsupported(i, "OpBitCount of this type"))?;
                let x = self.val(f, arg(2))?;
                let have = self.num_of(arg(2)).unwrap_or(n);
                cast(format!("countOneBits({x})"), have, n)
            }
            op::OpBitReverse => format!("reverseBits({})", self.val(f, arg(2))?),
            op::OpBitFieldInsert => {
                let n = rnum.ok_or_else(|| unsupported(i, "OpBitFieldInsert of this type"))?;
                let u = Num { kind: Kind::U32, n: 1 };
                format!(
                    "insertBits({}, {}, {}, {})",
                    self.val_as(f, arg(2), n)?,
                    self.val_as(f, arg(3), n)?,
                    self.val_as(f, arg(4), u)?,
                    self.val_as(f, arg(5), u)?
                )
            }
            op::OpBitFieldSExtract | op::OpBitFieldUExtract => {
                let n = rnum.ok_or_else(|| unsupported(i, "a bit field extract of this type"))?;
                let k = if o == op::OpBitFieldSExtract { Kind::I32 } else { Kind::U32 };
                let u = Num { kind: Kind::U32, n: 1 };
                let e = format!(
                    "extractBits({}, {}, {})",
                    self.val_as(f, arg(2), n.with(k))?,
                    self.val_as(f, arg(3), u)?,
                    self.val_as(f, arg(4), u)?
                );
                cast(e, n.with(k), n)
            }
            op::OpDPdx => format!("dpdx({})", self.val(f, arg(2))?),
            op::OpDPdy => format!("dpdy({})", self.val(f, arg(2))?),
            op::OpFwidth => format!("fwidth({})", self.val(f, arg(2))?),
            op::OpDPdxFine => format!("dpdxFine({})", self.val(f, arg(2))?),
            op::OpDPdyFine => format!("dpdyFine({})", self.val(f, arg(2))?),
            op::OpFwidthFine => format!("fwidthFine({})", self.val(f, arg(2))?),
            op::OpDPdxCoarse => format!("dpdxCoarse({})", self.val(f, arg(2))?),
            op::OpDPdyCoarse => format!("dpdyCoarse({})", self.val(f, arg(2))?),
            op::OpFwidthCoarse => format!("fwidthCoarse({})", self.val(f, arg(2))?),
            op::OpControlBarrier => {
                let exec = ir.const_u64(arg(0)).unwrap_or(0);
                let sem = ir.const_u64(arg(2)).unwrap_or(0);
                if exec != crate::grammar::scope::Workgroup as u64 {
                    return Err(Refusal::new("wgsl.barrier", "a control barrier of a scope other than Workgroup", Some(i as u32)));
                }
                use crate::grammar::memory_semantics as ms;
                if sem & (ms::UniformMemory | ms::ImageMemory) as u64 != 0 {
                    self.stmt_line(f, i, String::from("storageBarrier();"));
                }
                self.stmt_line(f, i, String::from("workgroupBarrier();"));
                return Ok(());
            }
            op::OpMemoryBarrier => {
                // Kept only where a control barrier follows, which carries it.
                let mut j = i + 1;
                while matches!(ir.opcode(j), op::OpLine | op::OpNoLine | op::OpNop | op::OpMemoryBarrier) {
                    j += 1;
                }
                if ir.opcode(j) == op::OpControlBarrier {
                    return Ok(());
                }
                return Err(Refusal::new("wgsl.barrier", "a memory barrier without a control barrier", Some(i as u32)));
            }
            op::OpUMulExtended | op::OpSMulExtended => self.mul_extended(f, i, w)?,
            x if super::globals::is_atomic(x) => return self.atomic(f, i, w),
            op::OpGroupNonUniformElect..=op::OpGroupNonUniformQuadSwap => self.subgroup(f, i, w)?,
            op::OpExtInst => {
                let set = ir.ext_import(arg(2)).unwrap_or("");
                if set.starts_with("NonSemantic.") {
                    return Ok(());
                }
                if set != "GLSL.std.450" {
                    return Err(unsupported(i, "an extended instruction outside GLSL.std.450"));
                }
                match self.glsl(f, i, w)? {
                    Some(e) => e,
                    None => return Ok(()),
                }
            }
            op::OpImageSampleImplicitLod..=op::OpImageWrite
            | op::OpSampledImage
            | op::OpImage
            | op::OpImageQuerySizeLod
            | op::OpImageQuerySize
            | op::OpImageQueryLevels
            | op::OpImageQuerySamples => match self.image_inst(f, i, w)? {
                Some(e) => e,
                None => return Ok(()),
            },
            _ => {
                let name = ir.desc(i).map_or("this instruction", |d| d.name);
                return Err(unsupported(i, name));
            }
        };
        if !has_result {
            return Ok(());
        }
        self.bind(f, i, id, rt, e)
    }

    /// The pointee type of pointer value `p`.
    fn pointee(&self, p: u32) -> u32 {
        match self.ir.type_of(p).and_then(|t| self.ir.ty(t)).map(|t| &t.ty) {
            Some(Type::Pointer { pointee: Some(x), .. }) => *x,
            _ => 0,
        }
    }

    /// Append to `e` the access of one step by `index` into type `t` (a
    /// struct member by its literal number); the type reached.
    fn step(&mut self, e: &mut String, t: u32, index: Index) -> Result<u32, Refusal> {
        let k = match index {
            Index::Lit(k) => k,
            _ => 0,
        };
        // What the step needs of the type, without copying it: 0 a struct
        // member, 1 an array element, 2 a vector or matrix component.
        let (what, next) = match self.ir.ty(t) {
            None => return Err(Refusal::new("wgsl.invalid", "an access into a non-type", None)),
            Some(td) => match &td.ty {
                Type::Struct { members } => (0, members.get(k as usize).map_or(0, |m| m.ty)),
                Type::Array { element, .. } | Type::RuntimeArray { element } => (1, *element),
                Type::Vector { component, .. } => (2, *component),
                Type::Matrix { column, .. } => (2, *column),
                _ => return Err(Refusal::new("wgsl.invalid", "an access into a scalar", Some(td.inst))),
            },
        };
        if what == 0 {
            e.push('.');
            self.push_member(e, t, k);
            return Ok(next);
        }
        e.push('[');
        match index {
            Index::Lit(k) => super::names::push_u32(e, k),
            Index::Last(n) => {
                crate::text::dis::num::push_u64(e, n);
                e.push('u');
            }
            Index::Val(f, x) => self.push_val(f, x, e)?,
        }
        e.push(']');
        if what == 1 && self.wrap_stride(t).is_some() {
            e.push_str(".v");
        }
        Ok(next)
    }

    /// The reference expression of access chain `w` (its operand words),
    /// appended to `e`.
    fn access_chain(&mut self, f: &mut F, w: &[u32], e: &mut String) -> Result<(), Refusal> {
        let base = w.get(2).copied().unwrap_or(0);
        match f.ref_of(base).or_else(|| self.global_names.get(&base).map(String::as_str)) {
            Some(r) => e.push_str(r),
            None => e.push_str(&self.reference(f, base)?),
        }
        let mut t = self.pointee(base);
        for &x in w.get(3..).unwrap_or(&[]) {
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

    /// An integer binary operation computed in `sign` (or the result's
    /// signedness), cast back to the result type.
    fn int_bin(&mut self, f: &mut F, w: &[u32], op: &str, sign: Option<Kind>) -> Result<String, Refusal> {
        let Some(r) = self.num(w[0]) else {
            return Err(Refusal::new("wgsl.type", "integer arithmetic on a type WGSL lacks", None));
        };
        let k = sign.unwrap_or(r.kind);
        let c = r.with(k);
        let mut s = self.expr_buffer();
        if c != r {
            // cast(.., c, r)
            s.push_str("bitcast<");
            r.push_text(&mut s);
            s.push_str(">(");
        }
        self.push_bin(f, w, op, c, &mut s)?;
        if c != r {
            s.push(')');
        }
        Ok(s)
    }

    fn shift(&mut self, f: &mut F, w: &[u32], op: &str, sign: Option<Kind>) -> Result<String, Refusal> {
        let Some(r) = self.num(w[0]) else {
            return Err(Refusal::new("wgsl.type", "a shift on a type WGSL lacks", None));
        };
        let c = r.with(sign.unwrap_or(r.kind));
        let a = self.val_as(f, w[2], c)?;
        // A constant shift by the width or more: undefined in SPIR-V, an
        // error in WGSL unless the amount is a run-time value.
        if self.ir.const_u64(w[3]).is_some_and(|k| k >= 32) {
            f.opaque = true;
        }
        let b = self.val_as(f, w[3], r.with(Kind::U32))?;
        f.opaque = false;
        Ok(cast(cat(&["(", &a, " ", op, " ", &b, ")"]), c, r))
    }

    fn cmp(&mut self, f: &mut F, w: &[u32], op: &str, sign: Option<Kind>) -> Result<String, Refusal> {
        let Some(a0) = self.num_of(w[2]) else {
            return Err(Refusal::new("wgsl.type", "a comparison on a type WGSL lacks", None));
        };
        let c = a0.with(sign.unwrap_or(a0.kind));
        let mut s = self.expr_buffer();
        self.push_bin(f, w, op, c, &mut s)?;
        Ok(s)
    }

    /// A float comparison; `negate`: the unordered form, as the negation of
    /// the opposite ordered one.
    fn fcmp(&mut self, f: &mut F, w: &[u32], op: &str, negate: bool) -> Result<String, Refusal> {
        let a = self.val(f, w[2])?;
        let b = self.val(f, w[3])?;
        Ok(cat(&[if negate { "!(" } else { "(" }, &a, " ", op, " ", &b, ")"]))
    }

    fn atomic(&mut self, f: &mut F, i: usize, w: &[u32]) -> Result<(), Refusal> {
        let o = self.ir.opcode(i);
        let at = Some(i as u32);
        let ptr = if o == op::OpAtomicStore { w[0] } else { w[2] };
        let storage = match self.ir.type_of(ptr).and_then(|t| self.ir.ty(t)).map(|t| &t.ty) {
            Some(Type::Pointer { storage, .. }) => *storage,
            _ => 0,
        };
        if !matches!(storage, sc::StorageBuffer | sc::Workgroup | sc::Uniform) {
            return Err(Refusal::new("wgsl.atomic", "an atomic outside storage and workgroup memory", at));
        }
        let Some(k) = self.num(self.pointee(ptr)).filter(|n| n.kind.is_int() && n.n == 1) else {
            return Err(Refusal::new("wgsl.atomic", "an atomic on a type other than i32 or u32", at));
        };
        let p = self.reference(f, ptr)?;
        if o == op::OpAtomicStore {
            let v = self.val_as(f, w[3], k)?;
            self.out.line_fmt(f.indent, format_args!("atomicStore(&{p}, {v});"), Some(i as u32));
            return Ok(());
        }
        let (rt, id) = (w[0], w[1]);
        let r = self.num(rt).unwrap_or(k);
        let one = if k.kind == Kind::I32 { "1i" } else { "1u" };
        let e = match o {
            op::OpAtomicLoad => format!("atomicLoad(&{p})"),
            op::OpAtomicIIncrement => format!("atomicAdd(&{p}, {one})"),
            op::OpAtomicIDecrement => format!("atomicSub(&{p}, {one})"),
            op::OpAtomicCompareExchange | op::OpAtomicCompareExchangeWeak => {
                let v = self.val_as(f, w[6], k)?;
                let c = self.val_as(f, w[7], k)?;
                let tmp = f.scope.fresh_under(Some(&self.globals_scope), None, format_args!("cmpxchg{id}"));
                let n = f.indent;
                self.out.line(n, &format!("var {tmp}: {};", k.text()), at);
                self.out.line(n, "loop {", at);
                self.out.line_fmt(n + 1, format_args!("let r = atomicCompareExchangeWeak(&{p}, {c}, {v});"), at);
                self.out.line_fmt(n + 1, format_args!("if r.exchanged || r.old_value != {c} {{ {tmp} = r.old_value; break; }}"), at);
                self.out.line(n, "}", at);
                tmp
            }
            _ => {
                let (name, sign) = match o {
                    op::OpAtomicExchange => ("atomicExchange", None),
                    op::OpAtomicIAdd => ("atomicAdd", None),
                    op::OpAtomicISub => ("atomicSub", None),
                    op::OpAtomicSMin => ("atomicMin", Some(Kind::I32)),
                    op::OpAtomicUMin => ("atomicMin", Some(Kind::U32)),
                    op::OpAtomicSMax => ("atomicMax", Some(Kind::I32)),
                    op::OpAtomicUMax => ("atomicMax", Some(Kind::U32)),
                    op::OpAtomicAnd => ("atomicAnd", None),
                    op::OpAtomicOr => ("atomicOr", None),
                    _ => ("atomicXor", None),
                };
                if let Some(s) = sign.filter(|&s| s != k.kind) {
                    // A signed min/max on an unsigned atomic, or the reverse
                    // (WGSL's follows the atomic's type): a compare-exchange
                    // loop computing it in the instruction's signedness.
                    let sn = k.with(s);
                    let v = self.val_as(f, w[5], sn)?;
                    let tmp = f.scope.fresh_under(Some(&self.globals_scope), None, format_args!("atomic{id}"));
                    let n = f.indent;
                    self.out.line(n, &format!("var {tmp}: {} = atomicLoad(&{p});", k.text()), at);
                    self.out.line(n, "loop {", at);
                    let mm = if name == "atomicMin" { "min" } else { "max" };
                    let m = cast(format!("{mm}({}, {v})", cast(tmp.clone(), k, sn)), sn, k);
                    self.out.line_fmt(n + 1, format_args!("let r = atomicCompareExchangeWeak(&{p}, {tmp}, {m});"), at);
                    self.out.line(n + 1, "if r.exchanged { break; }", at);
                    self.out.line_fmt(n + 1, format_args!("{tmp} = r.old_value;"), at);
                    self.out.line(n, "}", at);
                    return self.bind(f, i, id, rt, cast(tmp, k, r));
                }
                let v = self.val_as(f, w[5], k)?;
                format!("{name}(&{p}, {v})")
            }
        };
        self.bind(f, i, id, rt, cast(e, k, r))
    }

    /// A subgroup operation (WGSL's `subgroups` extension).
    fn subgroup(&mut self, f: &mut F, i: usize, w: &[u32]) -> Result<String, Refusal> {
        let o = self.ir.opcode(i);
        let at = Some(i as u32);
        if self.ir.const_u64(w[2]) != Some(crate::grammar::scope::Subgroup as u64) {
            return Err(Refusal::new("wgsl.instruction", "a group operation of a scope other than Subgroup", at));
        }
        self.subgroups = true;
        let r = self.num(w[0]);
        let arg = |k: usize| w.get(k).copied().unwrap_or(0);
        Ok(match o {
            op::OpGroupNonUniformElect => {
                let lane = match &self.lane {
                    Some(l) => l.clone(),
                    None => {
                        let l = self.globals_scope.fresh(Some("subgroup_lane"), "lane");
                        self.wrapper_decls.push((i as u32, format!("var<private> {l}: u32;\n")));
                        self.lane = Some(l.clone());
                        l
                    }
                };
                // The first active invocation is the one whose id is broadcast first.
                format!("({lane} == subgroupBroadcastFirst({lane}))")
            }
            op::OpGroupNonUniformAll => format!("subgroupAll({})", self.val(f, arg(3))?),
            op::OpGroupNonUniformAny => format!("subgroupAny({})", self.val(f, arg(3))?),
            op::OpGroupNonUniformAllEqual => {
                let n = self.num_of(arg(3)).ok_or_else(|| unsupported(i, "OpGroupNonUniformAllEqual of a composite"))?;
                let mut x = self.val(f, arg(3))?;
                if n.kind == Kind::Bool {
                    x = format!("{}({x})", n.with(Kind::U32).text());
                }
                let eq = format!("{x} == subgroupBroadcastFirst({x})");
                if n.n == 1 { format!("subgroupAll({eq})") } else { format!("subgroupAll(all({eq}))") }
            }
            op::OpGroupNonUniformBroadcastFirst => {
                format!("subgroupBroadcastFirst({})", self.val(f, arg(3))?)
            }
            op::OpGroupNonUniformBroadcast | op::OpGroupNonUniformQuadBroadcast => {
                let name = if o == op::OpGroupNonUniformBroadcast { "subgroupBroadcast" } else { "quadBroadcast" };
                let Some(id) = self.ir.const_u64(arg(4)) else {
                    return Err(unsupported(i, "a broadcast from a non-constant invocation"));
                };
                format!("{name}({}, {}u)", self.val(f, arg(3))?, id as u32)
            }
            op::OpGroupNonUniformBallot => format!("subgroupBallot({})", self.val(f, arg(3))?),
            op::OpGroupNonUniformShuffle
            | op::OpGroupNonUniformShuffleXor
            | op::OpGroupNonUniformShuffleUp
            | op::OpGroupNonUniformShuffleDown => {
                let name = match o {
                    op::OpGroupNonUniformShuffle => "subgroupShuffle",
                    op::OpGroupNonUniformShuffleXor => "subgroupShuffleXor",
                    op::OpGroupNonUniformShuffleUp => "subgroupShuffleUp",
                    _ => "subgroupShuffleDown",
                };
                let u = Num { kind: Kind::U32, n: 1 };
                format!("{name}({}, {})", self.val(f, arg(3))?, self.val_as(f, arg(4), u)?)
            }
            op::OpGroupNonUniformIAdd..=op::OpGroupNonUniformBitwiseXor => {
                let (base, sign) = match o {
                    op::OpGroupNonUniformIAdd | op::OpGroupNonUniformFAdd => ("Add", None),
                    op::OpGroupNonUniformIMul | op::OpGroupNonUniformFMul => ("Mul", None),
                    op::OpGroupNonUniformSMin => ("Min", Some(Kind::I32)),
                    op::OpGroupNonUniformUMin => ("Min", Some(Kind::U32)),
                    op::OpGroupNonUniformFMin => ("Min", None),
                    op::OpGroupNonUniformSMax => ("Max", Some(Kind::I32)),
                    op::OpGroupNonUniformUMax => ("Max", Some(Kind::U32)),
                    op::OpGroupNonUniformFMax => ("Max", None),
                    op::OpGroupNonUniformBitwiseAnd => ("And", None),
                    op::OpGroupNonUniformBitwiseOr => ("Or", None),
                    _ => ("Xor", None),
                };
                let name = match (arg(3), base) {
                    (crate::grammar::group_operation::Reduce, _) => format!("subgroup{base}"),
                    (crate::grammar::group_operation::InclusiveScan, "Add" | "Mul") => format!("subgroupInclusive{base}"),
                    (crate::grammar::group_operation::ExclusiveScan, "Add" | "Mul") => format!("subgroupExclusive{base}"),
                    _ => return Err(unsupported(i, "this group operation (WGSL scans only add and multiply)")),
                };
                let n = r.ok_or_else(|| unsupported(i, "a group operation on a composite"))?;
                let c = n.with(sign.unwrap_or(n.kind));
                cast(format!("{name}({})", self.val_as(f, arg(4), c)?), c, n)
            }
            _ => {
                let name = self.ir.desc(i).map_or("this group operation", |d| d.name);
                return Err(unsupported(i, name));
            }
        })
    }

    /// A GLSL.std.450 instruction: its value, or `None` when it was written
    /// as statements with no value left.
    fn glsl(&mut self, f: &mut F, i: usize, w: &[u32]) -> Result<Option<String>, Refusal> {
        let rt = w[0];
        let r = self.num(rt);
        let inst = w[3];
        let args = &w[4..];
        let a = |k: usize| args.get(k).copied().unwrap_or(0);
        let plain = |name: &str| -> Option<&'static str> {
            let _ = name;
            None
        };
        let _ = plain;
        let simple: Option<&str> = match inst {
            g::Round | g::RoundEven => Some("round"),
            g::Trunc => Some("trunc"),
            g::FAbs => Some("abs"),
            g::FSign => Some("sign"),
            g::Floor => Some("floor"),
            g::Ceil => Some("ceil"),
            g::Fract => Some("fract"),
            g::Radians => Some("radians"),
            g::Degrees => Some("degrees"),
            g::Sin => Some("sin"),
            g::Cos => Some("cos"),
            g::Tan => Some("tan"),
            g::Asin => Some("asin"),
            g::Acos => Some("acos"),
            g::Atan => Some("atan"),
            g::Sinh => Some("sinh"),
            g::Cosh => Some("cosh"),
            g::Tanh => Some("tanh"),
            g::Asinh => Some("asinh"),
            g::Acosh => Some("acosh"),
            g::Atanh => Some("atanh"),
            g::Atan2 => Some("atan2"),
            g::Pow => Some("pow"),
            g::Exp => Some("exp"),
            g::Log => Some("log"),
            g::Exp2 => Some("exp2"),
            g::Log2 => Some("log2"),
            g::Sqrt => Some("sqrt"),
            g::InverseSqrt => Some("inverseSqrt"),
            g::Determinant => Some("determinant"),
            g::FMin | g::NMin => Some("min"),
            g::FMax | g::NMax => Some("max"),
            g::FClamp | g::NClamp => Some("clamp"),
            g::FMix => Some("mix"),
            g::Step => Some("step"),
            g::SmoothStep => Some("smoothstep"),
            g::Fma => Some("fma"),
            g::Length => Some("length"),
            g::Distance => Some("distance"),
            g::Cross => Some("cross"),
            g::Normalize => Some("normalize"),
            g::FaceForward => Some("faceForward"),
            g::Reflect => Some("reflect"),
            g::Refract => Some("refract"),
            g::PackSnorm4x8 => Some("pack4x8snorm"),
            g::PackUnorm4x8 => Some("pack4x8unorm"),
            g::PackSnorm2x16 => Some("pack2x16snorm"),
            g::PackUnorm2x16 => Some("pack2x16unorm"),
            g::PackHalf2x16 => Some("pack2x16float"),
            g::UnpackSnorm4x8 => Some("unpack4x8snorm"),
            g::UnpackUnorm4x8 => Some("unpack4x8unorm"),
            g::UnpackSnorm2x16 => Some("unpack2x16snorm"),
            g::UnpackUnorm2x16 => Some("unpack2x16unorm"),
            g::UnpackHalf2x16 => Some("unpack2x16float"),
            _ => None,
        };
        let scalar = r.is_some_and(|n| n.n == 1);
        if scalar && matches!(inst, g::Normalize | g::Reflect | g::Refract | g::FaceForward) {
            let mut xs = Vec::new();
            for &x in args {
                xs.push(self.val(f, x)?);
            }
            let x = |k: usize| xs.get(k).cloned().unwrap_or_default();
            let t = r.map(|n| n.text()).unwrap_or_default();
            return Ok(Some(match inst {
                g::Normalize => format!("sign({})", x(0)),
                g::Reflect => format!("({i} - 2.0 * {n} * {n} * {i})", i = x(0), n = x(1)),
                g::FaceForward => format!("select(-{n}, {n}, {r} * {i} < {t}(0))", n = x(0), i = x(1), r = x(2)),
                _ => {
                    let (i, n, e) = (x(0), x(1), x(2));
                    let k = format!("(1.0 - {e} * {e} * (1.0 - {n} * {i} * {n} * {i}))");
                    format!("select({e} * {i} - ({e} * {n} * {i} + sqrt({k})) * {n}, {t}(0), {k} < {t}(0))")
                }
            }));
        }
        if let Some(name) = simple {
            let mut xs = Vec::new();
            for &x in args {
                xs.push(self.val(f, x)?);
            }
            // The packing built-ins take and give u32.
            let e = format!("{name}({})", xs.join(", "));
            return Ok(Some(match (r, inst) {
                (Some(rn), g::PackSnorm4x8 | g::PackUnorm4x8 | g::PackSnorm2x16 | g::PackUnorm2x16 | g::PackHalf2x16) => {
                    cast(e, Num { kind: Kind::U32, n: 1 }, rn)
                }
                _ => e,
            }));
        }
        // Integer built-ins: computed in their signedness.
        let int: Option<(&str, Kind)> = match inst {
            g::SAbs => Some(("abs", Kind::I32)),
            g::SSign => Some(("sign", Kind::I32)),
            g::SMin => Some(("min", Kind::I32)),
            g::UMin => Some(("min", Kind::U32)),
            g::SMax => Some(("max", Kind::I32)),
            g::UMax => Some(("max", Kind::U32)),
            g::SClamp => Some(("clamp", Kind::I32)),
            g::UClamp => Some(("clamp", Kind::U32)),
            g::FindSMsb => Some(("firstLeadingBit", Kind::I32)),
            g::FindUMsb => Some(("firstLeadingBit", Kind::U32)),
            g::FindILsb => Some(("firstTrailingBit", Kind::U32)),
            _ => None,
        };
        if let Some((name, k)) = int {
            let Some(rn) = r else { return Err(unsupported(i, "this GLSL.std.450 instruction on this type")) };
            let an = self.num_of(a(0)).unwrap_or(rn).with(k);
            let mut xs = Vec::new();
            for &x in args {
                xs.push(self.val_as(f, x, an)?);
            }
            return Ok(Some(cast(format!("{name}({})", xs.join(", ")), an, rn)));
        }
        match inst {
            g::Ldexp => {
                let x = self.val(f, a(0))?;
                let n = self.num_of(a(1)).map_or(Num { kind: Kind::I32, n: 1 }, |n| n.with(Kind::I32));
                let e = self.val_as(f, a(1), n)?;
                Ok(Some(format!("ldexp({x}, {e})")))
            }
            g::ModfStruct | g::FrexpStruct => {
                let t = self.ty(rt, i as u32)?;
                let x = self.val(f, a(0))?;
                let (fun, second) = if inst == g::ModfStruct { ("modf", "whole") } else { ("frexp", "exp") };
                let mut s = format!("{fun}({x}).{second}");
                if inst == g::FrexpStruct {
                    let members: Vec<u32> = self.ir.ty(rt).map(|t| t.members().iter().map(|m| m.ty).collect()).unwrap_or_default();
                    if let Some(en) = members.get(1).and_then(|&m| self.num(m)) {
                        s = cast(s, en.with(Kind::I32), en);
                    }
                }
                Ok(Some(format!("{t}({fun}({x}).fract, {s})")))
            }
            g::Modf | g::Frexp => {
                let x = self.val(f, a(0))?;
                let p = self.reference(f, a(1))?;
                let (fun, second) = if inst == g::Modf { ("modf", "whole") } else { ("frexp", "exp") };
                let mut s = format!("{fun}({x}).{second}");
                if inst == g::Frexp
                    && let Some(en) = self.num(self.pointee(a(1)))
                {
                    s = cast(s, en.with(Kind::I32), en);
                }
                self.out.line_fmt(f.indent, format_args!("{p} = {s};"), Some(i as u32));
                Ok(Some(format!("{fun}({x}).fract")))
            }
            g::MatrixInverse => Ok(Some(self.matrix_inverse(f, i, w)?)),
            _ => Err(unsupported(i, "this GLSL.std.450 instruction")),
        }
    }
}
