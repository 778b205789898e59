//! Helper functions emitted into the WGSL for instructions WGSL lacks:
//! OpUMulExtended and OpSMulExtended (the high word from 16-bit halves),
//! OpIAddCarry and OpISubBorrow (the carry and the borrow from an unsigned
//! comparison) and GLSL.std.450 MatrixInverse (the adjugate over the determinant). Each is
//! declared once per type, at module scope, under a fresh name.
//!
//! Semantics:
//! - the extended multiplications are exact: the four partial products of
//!   16-bit halves fit in 32 bits, and the sum that gives the high word
//!   cannot overflow (the full product is below 2^64); the signed high word
//!   is the unsigned one less `b` where `a < 0` and less `a` where `b < 0`
//!   (mod 2^32), and the low word is WGSL's wrapping `a * b`;
//! - the inverse is computed in the matrix's own precision (SPIR-V does not
//!   say how; the interpreter uses f64 and rounds once): each entry is a
//!   cofactor expanded by Laplace's formula and divided by WGSL's
//!   `determinant`, so it can differ from a correctly rounded inverse by a few
//!   ULPs, more for an ill-conditioned matrix. A singular matrix divides by
//!   zero (infinities or NaNs), where SPIR-V leaves the result undefined.

use crate::grammar::op;
use crate::ir::Type;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// The name of helper `key`, declared by `decl(name)` the first time.
    /// The name is unique among the globals and the current function's
    /// locals (later locals avoid the globals' names).
    pub(in crate::wgsl::write) fn helper(&mut self, f: &FunctionContext, key: String, base: &str, at: u32, decl: impl FnOnce(&mut Self, &str) -> String) -> String {
        if let Some(n) = self.helpers.get(&key) {
            return n.clone();
        }
        let n = self.globals_scope.fresh_under(Some(&f.scope), Some(base), format_args!("{base}"));
        let d = decl(self, &n);
        self.extra_decls.push((at, d));
        self.helpers.insert(key, n.clone());
        n
    }

    /// An instruction whose result is a struct of two integers (or integer
    /// vectors) computed from two operands: its result type, the operands
    /// and the members' type; else a refusal saying `lacks`.
    fn pair_operands(&self, i: usize, words: &[u32], lacks: &str) -> Result<(u32, u32, u32, Num), Refusal> {
        let (rt, a, b) = (words[0], words.get(2).copied().unwrap_or(0), words.get(3).copied().unwrap_or(0));
        let member = self.ir.ty(rt).and_then(|t| t.members().first().map(|m| m.ty));
        match member.and_then(|m| self.num(m)).filter(|n| n.kind.is_int()) {
            Some(m) => Ok((rt, a, b, m)),
            None => Err(Refusal::new(RefusalCode::Type, lacks, Some(i as u32))),
        }
    }

    /// OpUMulExtended / OpSMulExtended: `S(a * b, mul_hi(a, b))`.
    pub(in crate::wgsl::write) fn mul_extended(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<String, Refusal> {
        let at = i as u32;
        let signed = self.ir.opcode(i) == op::OpSMulExtended;
        let (rt, a, b, m) = self.pair_operands(i, words, "an extended multiplication of a type WGSL lacks")?;
        let u = m.with(Kind::U32);
        let t = u.text();
        let uhi = self.helper(f, format!("umul_hi {t}"), "umul_hi", at, |_, n| {
            format!(
                "fn {n}(a: {t}, b: {t}) -> {t} {{\n  let lo = {t}(0xffffu);\n  let sh = {t}(16u);\n  \
                 let al = a & lo;\n  let ah = a >> sh;\n  let bl = b & lo;\n  let bh = b >> sh;\n  \
                 let lh = al * bh;\n  let hl = ah * bl;\n  let mid = ((al * bl) >> sh) + (lh & lo) + (hl & lo);\n  \
                 return ah * bh + (lh >> sh) + (hl >> sh) + (mid >> sh);\n}}\n"
            )
        });
        let hi = if signed {
            let s = m.with(Kind::I32).text();
            self.helper(f, format!("smul_hi {t}"), "smul_hi", at, |_, n| {
                format!(
                    "fn {n}(a: {t}, b: {t}) -> {t} {{\n  let z = {t}(0u);\n  \
                     return {uhi}(a, b) - select(z, b, bitcast<{s}>(a) < {s}(0)) - select(z, a, bitcast<{s}>(b) < {s}(0));\n}}\n"
                )
            })
        } else {
            uhi
        };
        let x = self.val_as(f, a, u)?;
        let y = self.val_as(f, b, u)?;
        let st = self.ty(rt, at)?;
        let lo = cast(format!("({x} * {y})"), u, m);
        let hi = cast(format!("{hi}({x}, {y})"), u, m);
        Ok(format!("{st}({lo}, {hi})"))
    }

    /// OpIAddCarry / OpISubBorrow (unsigned): `S(a + b, select(0, 1, a + b < a))`
    /// and `S(a - b, select(0, 1, a < b))`, WGSL's arithmetic wrapping.
    pub(in crate::wgsl::write) fn carry_borrow(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<String, Refusal> {
        let at = i as u32;
        let add = self.ir.opcode(i) == op::OpIAddCarry;
        let (rt, a, b, m) = self.pair_operands(i, words, "a carry or borrow of a type WGSL lacks")?;
        let u = m.with(Kind::U32);
        let t = u.text();
        let x = self.val_as(f, a, u)?;
        let y = self.val_as(f, b, u)?;
        let st = self.ty(rt, at)?;
        let (value, out) = if add {
            (format!("({x} + {y})"), format!("({x} + {y}) < {x}"))
        } else {
            (format!("({x} - {y})"), format!("{x} < {y}"))
        };
        let flag = format!("select({t}(0u), {t}(1u), {out})");
        Ok(format!("{st}({}, {})", cast(value, u, m), cast(flag, u, m)))
    }

    /// GLSL.std.450 MatrixInverse of a square f32 or f16 matrix.
    pub(in crate::wgsl::write) fn matrix_inverse(&mut self, f: &mut FunctionContext, i: usize, words: &[u32]) -> Result<String, Refusal> {
        let at = i as u32;
        let rt = words[0];
        let x = words.get(4).copied().unwrap_or(0);
        let (col, n) = match self.ir.ty(rt).map(|t| &t.ty) {
            Some(Type::Matrix { column, columns }) => (*column, *columns),
            _ => (0, 0),
        };
        let c = self.num(col).filter(|c| matches!(c.kind, Kind::F32 | Kind::F16) && c.n == n && (2..=4).contains(&n));
        let Some(c) = c else {
            return Err(Refusal::new(RefusalCode::Instruction, "MatrixInverse of a matrix that is not square", Some(at)));
        };
        let t = self.ty(rt, at)?;
        let v = c.text();
        let name = self.helper(f, format!("inverse {t}"), "inverse", at, |_, name| {
            let all: Vec<usize> = (0..n as usize).collect();
            let mut cols = Vec::new();
            for cc in 0..n as usize {
                // inverse[cc][r] = cofactor(r, cc) / det: row r, column cc
                // struck out of m.
                let mut entries = Vec::new();
                for r in 0..n as usize {
                    let rows: Vec<usize> = all.iter().copied().filter(|&k| k != cc).collect();
                    let colsl: Vec<usize> = all.iter().copied().filter(|&k| k != r).collect();
                    let d = minor_det(&colsl, &rows);
                    entries.push(if (r + cc) % 2 == 0 { d } else { format!("-({d})") });
                }
                cols.push(format!("{v}({}) / d", entries.join(", ")));
            }
            format!("fn {name}(m: {t}) -> {t} {{\n  let d = determinant(m);\n  return {t}(\n    {},\n  );\n}}\n", cols.join(",\n    "))
        });
        Ok(format!("{name}({})", self.val(f, x)?))
    }
}

/// The determinant of the sub-matrix of `m` with columns `cols` and rows
/// `rows` (in order), as WGSL text: Laplace's expansion along its first
/// column. `m[c][r]` is column c, row r.
fn minor_det(cols: &[usize], rows: &[usize]) -> String {
    let c0 = cols[0];
    if cols.len() == 1 {
        return format!("m[{c0}][{}]", rows[0]);
    }
    let mut terms = String::new();
    for (k, &r) in rows.iter().enumerate() {
        let rest: Vec<usize> = rows.iter().copied().filter(|&x| x != r).collect();
        let sub = minor_det(&cols[1..], &rest);
        let term = if cols.len() == 2 { format!("m[{c0}][{r}] * {sub}") } else { format!("m[{c0}][{r}] * ({sub})") };
        if k == 0 {
            terms.push_str(&term);
        } else {
            terms.push_str(if k % 2 == 0 { " + " } else { " - " });
            terms.push_str(&term);
        }
    }
    terms
}
