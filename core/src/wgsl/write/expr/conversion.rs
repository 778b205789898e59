//! Conversions between numeric types, bitcasts (two halves and a 32-bit
//! scalar by the packing built-ins) and f16 quantization.

use super::Instruction;
use crate::grammar::op;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num, cast};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;

impl ModuleWriter<'_> {
    /// Conversions between numeric types, bitcasts and f16 quantization.
    pub(in crate::wgsl::write) fn conversion(&mut self, f: &mut FunctionContext, inst: &Instruction) -> Result<Option<String>, Refusal> {
        let Instruction { index: i, opcode: o, words, result_type: rt, .. } = *inst;
        let ir = self.ir;
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        let rnum = self.num(rt);
        let e: String = match o {
            op::OpConvertFToS | op::OpConvertFToU => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "this conversion"))?;
                let k = if o == op::OpConvertFToS { Kind::I32 } else { Kind::U32 };
                let x = self.val(f, arg(2))?;
                cast(format!("{}({x})", n.with(k).text()), n.with(k), n)
            }
            op::OpConvertSToF | op::OpConvertUToF => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "this conversion"))?;
                let k = if o == op::OpConvertSToF { Kind::I32 } else { Kind::U32 };
                let x = self.val_as(f, arg(2), n.with(k))?;
                format!("{}({x})", n.text())
            }
            op::OpFConvert => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "this conversion"))?;
                format!("{}({})", n.text(), self.val(f, arg(2))?)
            }
            op::OpUConvert | op::OpSConvert => {
                let n = rnum.ok_or_else(|| Refusal::unsupported(i, "this conversion"))?;
                let k = if o == op::OpSConvert { Kind::I32 } else { Kind::U32 };
                cast(self.val_as(f, arg(2), n.with(k))?, n.with(k), n)
            }
            op::OpBitcast => {
                if self.is_pointer(rt) || ir.type_of(arg(2)).is_some_and(|t| self.is_pointer(t)) {
                    return Err(Refusal::new(RefusalCode::PhysicalPointer, "a bitcast of a pointer", Some(i as u32)));
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
            _ => return Err(inst.unsupported(self.ir)),
        };
        Ok(Some(e))
    }
}
