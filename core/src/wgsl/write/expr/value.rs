//! Operands and results: the expression of a value (a name, a reference,
//! a constant, made a run-time value where WGSL would evaluate it when the
//! shader is created), written in place where it can be, and the binding of
//! a result to a `let` or a hoisted `var`.

use crate::grammar::op;
use crate::wgsl::literal::push_int32_literal;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Num, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;

impl ModuleWriter<'_> {
    /// The expression of value `id`.
    pub(in crate::wgsl::write) fn val(&mut self, f: &mut FunctionContext, id: u32) -> Result<String, Refusal> {
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
                        self.extra_decls.push((0, format!("var<private> {o}: bool;\n")));
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
        Err(Refusal::new(RefusalCode::Invalid, format!("%{id} is used before it is defined"), None))
    }

    /// The reference expression of pointer `id`.
    pub(in crate::wgsl::write) fn reference(&mut self, f: &mut FunctionContext, id: u32) -> Result<String, Refusal> {
        if let Some(r) = f.ref_of(id) {
            return Ok(String::from(r));
        }
        if let Some(n) = self.global_names.get(&id) {
            return Ok(n.clone());
        }
        Err(Refusal::new(RefusalCode::VariablePointer, format!("%{id} is not a pointer WGSL can name"), None))
    }

    /// `val(id)` cast to `want` (integers of another signedness).
    pub(in crate::wgsl::write) fn val_as(&mut self, f: &mut FunctionContext, id: u32, want: Num) -> Result<String, Refusal> {
        let e = self.val(f, id)?;
        Ok(match self.num_of(id) {
            Some(have) if have.kind.is_int() && want.kind.is_int() && have.n == want.n => cast(e, have, want),
            _ => e,
        })
    }

    /// What [`ModuleWriter::val`] gives a 32-bit integer scalar constant (not opaque,
    /// not named), appended to `out` without a String of its own; false,
    /// with `out` unchanged, for any other value.
    pub(in crate::wgsl::write) fn push_int_literal(&self, f: &FunctionContext, id: u32, out: &mut String) -> bool {
        let ir = self.ir;
        let Some(c) = ir.constant(id) else { return false };
        let crate::ir::ConstValue::Scalar(bits) = c.value else { return false };
        if f.refs.get(&id).is_some()
            || self.global_names.contains_key(&id)
            || matches!(ir.opcode(c.inst as usize), op::OpConstantDataKHR | op::OpSpecConstantDataKHR)
        {
            return false;
        }
        self.num(c.ty).is_some_and(|n| push_int32_literal(n.kind, bits, out))
    }

    /// `val_as(id, want)` appended to `out` (a named value without a String of its own).
    pub(in crate::wgsl::write) fn push_val_as(&mut self, f: &mut FunctionContext, id: u32, want: Num, out: &mut String) -> Result<(), Refusal> {
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
    pub(in crate::wgsl::write) fn push_val(&mut self, f: &mut FunctionContext, id: u32, out: &mut String) -> Result<(), Refusal> {
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
    pub(in crate::wgsl::write) fn push_bin(&mut self, f: &mut FunctionContext, words: &[u32], op: &str, c: Num, s: &mut String) -> Result<(), Refusal> {
        s.push('(');
        self.push_val_as(f, words[2], c, s)?;
        s.push(' ');
        s.push_str(op);
        s.push(' ');
        self.push_val_as(f, words[3], c, s)?;
        s.push(')');
        Ok(())
    }

    /// An empty String to build an expression in: the writer's spare buffer, or a new one.
    pub(in crate::wgsl::write) fn expr_buffer(&mut self) -> String {
        let mut s = core::mem::take(&mut self.spare);
        s.clear();
        s.reserve(48);
        s
    }

    /// Bind the value of instruction `i` (result `id` of type `ty`) to `e`.
    pub(in crate::wgsl::write) fn bind(&mut self, f: &mut FunctionContext, i: usize, id: u32, ty: u32, e: String) -> Result<(), Refusal> {
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
                    &*owned
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
    pub(in crate::wgsl::write) fn stmt_line(&mut self, f: &FunctionContext, i: usize, s: String) {
        self.out.line(f.indent, &s, Some(i as u32));
    }
}
