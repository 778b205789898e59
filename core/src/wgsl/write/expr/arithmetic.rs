//! Arithmetic: float, integer and matrix operators (integers computed in
//! the signedness the instruction says, cast back to the result's), bit
//! operations, derivatives, and extended multiplications (`emulate`).

use super::{Instruction, XYZW};
use crate::grammar::op;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num, cast, cat};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl ModuleWriter<'_> {
    /// Arithmetic: float, integer and matrix operators, bit operations, derivatives and extended multiplications.
    pub(in crate::wgsl::write) fn arithmetic(&mut self, f: &mut FunctionContext, inst: &Instruction) -> Result<Option<String>, Refusal> {
        let Instruction { index: i, opcode: o, words, result_type: rt, .. } = *inst;
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        let rnum = self.num(rt);
        let e: String = match o {
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
            op::OpIAdd => self.int_bin(f, words, "+", None)?,
            op::OpISub => self.int_bin(f, words, "-", None)?,
            op::OpIMul => self.int_bin(f, words, "*", None)?,
            op::OpSDiv => self.int_bin(f, words, "/", Some(Kind::I32))?,
            op::OpUDiv => self.int_bin(f, words, "/", Some(Kind::U32))?,
            op::OpSRem => self.int_bin(f, words, "%", Some(Kind::I32))?,
            op::OpUMod => self.int_bin(f, words, "%", Some(Kind::U32))?,
            op::OpSMod => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "OpSMod of this type"))?;
                let s = n.with(Kind::I32);
                let a = self.val_as(f, arg(2), s)?;
                let b = self.val_as(f, arg(3), s)?;
                let z = if n.n == 1 { String::from("0i") } else { format!("{}()", s.text()) };
                let r = format!("({a} % {b})");
                cast(format!("select({r}, {r} + {b}, ({r} != {z}) & (({r} < {z}) != ({b} < {z})))"), s, n)
            }
            op::OpBitwiseAnd => self.int_bin(f, words, "&", None)?,
            op::OpBitwiseOr => self.int_bin(f, words, "|", None)?,
            op::OpBitwiseXor => self.int_bin(f, words, "^", None)?,
            op::OpShiftLeftLogical => self.shift(f, words, "<<", None)?,
            op::OpShiftRightLogical => self.shift(f, words, ">>", Some(Kind::U32))?,
            op::OpShiftRightArithmetic => self.shift(f, words, ">>", Some(Kind::I32))?,
            op::OpNot => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "OpNot of this type"))?;
                format!("~{}", self.val_as(f, arg(2), n)?)
            }
            op::OpSNegate => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "OpSNegate of this type"))?;
                let s = n.with(Kind::I32);
                cast(format!("-{}", self.val_as(f, arg(2), s)?), s, n)
            }
            op::OpQuantizeToF16 => format!("quantizeToF16({})", self.val(f, arg(2))?),
            op::OpBitCount => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "OpBitCount of this type"))?;
                let x = self.val(f, arg(2))?;
                let have = self.num_of(arg(2)).unwrap_or(n);
                cast(format!("countOneBits({x})"), have, n)
            }
            op::OpBitReverse => format!("reverseBits({})", self.val(f, arg(2))?),
            op::OpBitFieldInsert => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "OpBitFieldInsert of this type"))?;
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
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "a bit field extract of this type"))?;
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
            op::OpUMulExtended | op::OpSMulExtended => self.mul_extended(f, i, words)?,
            op::OpIAddCarry | op::OpISubBorrow => self.carry_borrow(f, i, words)?,
            _ => return Err(inst.unsupported(self.ir)),
        };
        Ok(Some(e))
    }

    /// An integer binary operation computed in `sign` (or the result's
    /// signedness), cast back to the result type.
    pub(in crate::wgsl::write) fn int_bin(&mut self, f: &mut FunctionContext, words: &[u32], op: &str, sign: Option<Kind>) -> Result<String, Refusal> {
        let Some(r) = self.num(words[0]) else {
            return Err(Refusal::new(RefusalCode::Type, "integer arithmetic on a type WGSL lacks", None));
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
        self.push_bin(f, words, op, c, &mut s)?;
        if c != r {
            s.push(')');
        }
        Ok(s)
    }

    pub(in crate::wgsl::write) fn shift(&mut self, f: &mut FunctionContext, words: &[u32], op: &str, sign: Option<Kind>) -> Result<String, Refusal> {
        let Some(r) = self.num(words[0]) else {
            return Err(Refusal::new(RefusalCode::Type, "a shift on a type WGSL lacks", None));
        };
        let c = r.with(sign.unwrap_or(r.kind));
        let a = self.val_as(f, words[2], c)?;
        // A constant shift by the width or more: undefined in SPIR-V, an
        // error in WGSL unless the amount is a run-time value.
        if self.ir.const_u64(words[3]).is_some_and(|k| k >= 32) {
            f.opaque = true;
        }
        let b = self.val_as(f, words[3], r.with(Kind::U32))?;
        f.opaque = false;
        Ok(cast(cat(&["(", &a, " ", op, " ", &b, ")"]), c, r))
    }
}
