//! Constants and spec constants, with their (default) values evaluated.

use super::{Ir, Type};
use crate::grammar::class::{self, Num, OpClass};
use crate::grammar::op;
use alloc::vec::Vec;

/// The value of a constant (for a spec constant, its default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConstValue {
    Bool(bool),
    /// A scalar number's bits, zero-extended (its width is its type's).
    Scalar(u64),
    /// The constituent ids of a composite.
    Composite(Vec<u32>),
    /// `OpConstantNull`.
    Null,
    /// Not evaluated: an `OpSpecConstantOp` we do not fold, or bad operands.
    NotEvaluated,
}

/// A constant or spec constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constant {
    pub id: u32,
    pub ty: u32,
    pub inst: u32,
    /// Whether it is a specialization constant (its value is the default).
    pub spec: bool,
    pub value: ConstValue,
}

pub(super) fn sign_extend(bits: u64, width: u32) -> i64 {
    if width == 0 || width >= 64 {
        return bits as i64;
    }
    let s = 64 - width;
    ((bits << s) as i64) >> s
}

fn mask(bits: u64, width: u32) -> u64 {
    if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    }
}

/// Whether `opcode` declares a constant.
pub(super) fn is_constant(opcode: u16) -> bool {
    matches!(
        opcode,
        op::OpConstantTrue
            | op::OpConstantFalse
            | op::OpConstant
            | op::OpConstantComposite
            | op::OpConstantNull
            | op::OpSpecConstantTrue
            | op::OpSpecConstantFalse
            | op::OpSpecConstant
            | op::OpSpecConstantComposite
            | op::OpSpecConstantOp
    )
}

impl Ir {
    /// Evaluate constant `k` (earlier constants are already evaluated).
    pub(super) fn eval_constant(&self, k: usize) -> ConstValue {
        let c = &self.constants[k];
        let i = c.inst as usize;
        let w = self.words(i);
        match self.opcode(i) {
            op::OpConstantTrue | op::OpSpecConstantTrue => ConstValue::Bool(true),
            op::OpConstantFalse | op::OpSpecConstantFalse => ConstValue::Bool(false),
            op::OpConstant | op::OpSpecConstant => {
                let lo = w.get(2).copied().unwrap_or(0) as u64;
                let hi = w.get(3).copied().unwrap_or(0) as u64;
                ConstValue::Scalar(lo | hi << 32)
            }
            op::OpConstantComposite | op::OpSpecConstantComposite => {
                ConstValue::Composite(w.get(2..).unwrap_or(&[]).to_vec())
            }
            op::OpConstantNull => ConstValue::Null,
            op::OpSpecConstantOp => self
                .eval_spec_op(c.ty, w)
                .unwrap_or(ConstValue::NotEvaluated),
            _ => ConstValue::NotEvaluated,
        }
    }

    /// An integer or boolean operand: (bits, width, signed); booleans have width 1.
    fn scalar_operand(&self, id: u32) -> Option<(u64, u32, bool)> {
        let ty = self.ty(self.type_of(id)?)?;
        let b = self.const_bits(id)?;
        match ty.ty {
            Type::Int { width, signed } => Some((b, width, signed)),
            Type::Bool => Some((b, 1, false)),
            _ => None,
        }
    }

    fn eval_spec_op(&self, ty: u32, w: &[u32]) -> Option<ConstValue> {
        let opcode = u16::try_from(*w.get(2)?).ok()?;
        let args = w.get(3..)?;
        let rt = self.ty(ty)?;
        let (rw, is_bool) = match rt.ty {
            Type::Int { width, .. } => (width, false),
            Type::Bool => (1, true),
            _ => {
                if opcode == op::OpCompositeExtract {
                    return self.eval_extract(args);
                }
                return None;
            }
        };
        let a = |k: usize| args.get(k).and_then(|&id| self.scalar_operand(id));
        let sx = |(b, w, _): (u64, u32, bool)| sign_extend(b, w);
        let out = |v: u64| {
            if is_bool {
                ConstValue::Bool(v & 1 != 0)
            } else {
                ConstValue::Scalar(mask(v, rw))
            }
        };
        let bin = |f: &dyn Fn(u64, u64) -> Option<u64>| -> Option<ConstValue> {
            let (x, y) = (a(0)?, a(1)?);
            f(x.0, y.0).map(out)
        };
        let sbin = |f: &dyn Fn(i64, i64) -> Option<i64>| -> Option<ConstValue> {
            let (x, y) = (a(0)?, a(1)?);
            f(sx(x), sx(y)).map(|v| out(v as u64))
        };
        // The comparisons and logical operators, by the grammar's class.
        match class::of(opcode) {
            OpClass::Compare { num, relation: Some(rel), .. } if num.is_int() => {
                let (x, y) = (a(0)?, a(1)?);
                let holds = if num == Num::Signed { rel.holds(sx(x), sx(y)) } else { rel.holds(x.0, y.0) };
                return Some(ConstValue::Bool(holds));
            }
            OpClass::Logical { unary: true } => return a(0).map(|x| ConstValue::Bool(x.0 == 0)),
            OpClass::Logical { unary: false } => {
                let (x, y) = (a(0)?.0 != 0, a(1)?.0 != 0);
                return Some(ConstValue::Bool(match opcode {
                    op::OpLogicalOr => x || y,
                    op::OpLogicalAnd => x && y,
                    op::OpLogicalEqual => x == y,
                    _ => x != y,
                }));
            }
            _ => {}
        }
        match opcode {
            op::OpSConvert => a(0).map(|x| out(sx(x) as u64)),
            op::OpUConvert => a(0).map(|x| out(x.0)),
            op::OpSNegate => a(0).map(|x| out(sx(x).wrapping_neg() as u64)),
            op::OpNot => a(0).map(|x| out(!x.0)),
            op::OpIAdd => bin(&|x, y| Some(x.wrapping_add(y))),
            op::OpISub => bin(&|x, y| Some(x.wrapping_sub(y))),
            op::OpIMul => bin(&|x, y| Some(x.wrapping_mul(y))),
            op::OpUDiv => bin(&|x, y| x.checked_div(y)),
            op::OpUMod => bin(&|x, y| x.checked_rem(y)),
            op::OpSDiv => sbin(&|x, y| {
                if y == 0 {
                    None
                } else {
                    Some(x.wrapping_div(y))
                }
            }),
            op::OpSRem => sbin(&|x, y| {
                if y == 0 {
                    None
                } else {
                    Some(x.wrapping_rem(y))
                }
            }),
            op::OpSMod => sbin(&|x, y| {
                if y == 0 {
                    return None;
                }
                let r = x.wrapping_rem(y);
                Some(if r != 0 && (r < 0) != (y < 0) {
                    r + y
                } else {
                    r
                })
            }),
            op::OpShiftLeftLogical => bin(&|x, y| (y < rw as u64).then(|| x << y)),
            op::OpShiftRightLogical => {
                let x = a(0)?;
                let y = a(1)?.0;
                (y < x.1 as u64).then(|| out(mask(x.0, x.1) >> y))
            }
            op::OpShiftRightArithmetic => {
                let x = a(0)?;
                let y = a(1)?.0;
                (y < x.1 as u64).then(|| out((sx(x) >> y) as u64))
            }
            op::OpBitwiseOr => bin(&|x, y| Some(x | y)),
            op::OpBitwiseXor => bin(&|x, y| Some(x ^ y)),
            op::OpBitwiseAnd => bin(&|x, y| Some(x & y)),
            op::OpSelect => {
                let c = a(0)?.0;
                let v = if c != 0 { a(1)? } else { a(2)? };
                Some(out(v.0))
            }
            op::OpCompositeExtract => self.eval_extract(args),
            _ => None,
        }
    }

    /// `OpCompositeExtract` on a constant composite: the extracted value.
    fn eval_extract(&self, args: &[u32]) -> Option<ConstValue> {
        let (&base, path) = args.split_first()?;
        let mut id = base;
        for &k in path {
            match &self.constant(id)?.value {
                ConstValue::Composite(parts) => id = *parts.get(k as usize)?,
                _ => return None,
            }
        }
        let v = self.constant(id)?.value.clone();
        (v != ConstValue::NotEvaluated).then_some(v)
    }
}
