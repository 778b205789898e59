//! Arithmetic: the integer, float, logical and comparison operators on
//! scalars (the bits of one component). The run loop applies them to
//! vectors component by component, and its specialised handler for scalar
//! operands calls the same functions.

use crate::interp::error::Feature;
use crate::grammar::class::{self, Num, OpClass, Order};
use crate::grammar::op;
use crate::interp::mem::{Val, has_undef, map1, map2, or_zero, scalar, undefined};
use crate::interp::num::{ScalarClass, ScalarType, fget, fput, mask, sext};
use crate::interp::program::Inst;
use crate::interp::error::{RunErrorKind, Shapes};
use crate::ir::{Ir, Type};
use alloc::vec;
use alloc::vec::Vec;

pub(crate) fn check_float(k: ScalarType) -> Result<(), RunErrorKind> {
    if k.k != ScalarClass::Float {
        return Err(RunErrorKind::NotFloat);
    }
    if k.w != 16 && k.w != 32 && k.w != 64 {
        return Err(RunErrorKind::NotSupportedFeature { feature: Feature::FloatWidth { bits: k.w } });
    }
    Ok(())
}

/// An integer arithmetic or bit operator on two scalars of width `w`.
#[inline(always)]
pub(crate) fn int_bin(o: u16, a: u64, b: u64, w: u32) -> Result<u64, RunErrorKind> {
    let (sa, sb) = (sext(a, w), sext(b, w));
    let shift = |b: u64| -> Result<u32, RunErrorKind> {
        if b >= w as u64 {
            Err(RunErrorKind::ShiftTooFar { shift: b, width: w })
        } else {
            Ok(b as u32)
        }
    };
    let zero = || Err(RunErrorKind::DivisionByZero);
    let r = match o {
        op::OpIAdd => a.wrapping_add(b),
        op::OpISub => a.wrapping_sub(b),
        op::OpIMul => a.wrapping_mul(b),
        op::OpUDiv => {
            if b == 0 {
                return zero();
            }
            a / b
        }
        op::OpUMod => {
            if b == 0 {
                return zero();
            }
            a % b
        }
        op::OpSDiv => {
            if sb == 0 {
                return zero();
            }
            sa.wrapping_div(sb) as u64
        }
        op::OpSRem => {
            if sb == 0 {
                return zero();
            }
            sa.wrapping_rem(sb) as u64
        }
        op::OpSMod => {
            if sb == 0 {
                return zero();
            }
            let r = sa.wrapping_rem(sb);
            (if r != 0 && (r < 0) != (sb < 0) {
                r.wrapping_add(sb)
            } else {
                r
            }) as u64
        }
        op::OpShiftLeftLogical => a << shift(b)?,
        op::OpShiftRightLogical => a >> shift(b)?,
        op::OpShiftRightArithmetic => (sa >> shift(b)?) as u64,
        op::OpBitwiseAnd => a & b,
        op::OpBitwiseOr => a | b,
        op::OpBitwiseXor => a ^ b,
        _ => return Err(RunErrorKind::NotSupported { opcode: o }),
    };
    Ok(mask(r, w))
}

pub(crate) fn float_bin(o: u16, a: f64, b: f64) -> Result<f64, RunErrorKind> {
    Ok(match o {
        op::OpFAdd => a + b,
        op::OpFSub => a - b,
        op::OpFMul => a * b,
        op::OpFDiv => a / b,
        op::OpFRem => a % b,
        op::OpFMod => {
            let r = a % b;
            if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r + b
            } else {
                r
            }
        }
        _ => return Err(RunErrorKind::NotSupported { opcode: o }),
    })
}

/// A comparison (grammar class [`OpClass::Compare`] with a relation) of
/// two scalars of kind `k`: integers compared by the class's signedness,
/// floats by its order (an ordered comparison is false on NaN, an unordered
/// one true).
#[inline(always)]
pub(crate) fn compare(o: u16, a: u64, b: u64, k: ScalarType) -> Result<bool, RunErrorKind> {
    compare_as(class::of(o), o, a, b, k)
}

/// [`compare`] with the opcode's class given (a constant where the opcode is).
#[inline(always)]
fn compare_as(c: OpClass, o: u16, a: u64, b: u64, k: ScalarType) -> Result<bool, RunErrorKind> {
    let OpClass::Compare { num, order, relation: Some(rel) } = c else { return Err(RunErrorKind::NotSupported { opcode: o }) };
    Ok(match num {
        Num::Float => {
            let (fa, fb) = (fget(a, k.w), fget(b, k.w));
            let nan = fa.is_nan() || fb.is_nan();
            match order {
                Order::Unordered => nan || rel.holds(fa, fb),
                _ => !nan && rel.holds(fa, fb),
            }
        }
        Num::Signed => rel.holds(sext(a, k.w), sext(b, k.w)),
        Num::Int | Num::Unsigned | Num::Bool => rel.holds(a, b),
    })
}

/// The logical operators (grammar class [`OpClass::Logical`]) on booleans
/// (0 or 1): OpLogicalAnd, OpLogicalOr, OpLogicalEqual, OpLogicalNotEqual,
/// and OpLogicalNot of `a` (`b` not read).
#[inline(always)]
pub(crate) fn logical(o: u16, a: u64, b: u64) -> u64 {
    match o {
        op::OpLogicalAnd => a & b,
        op::OpLogicalOr => a | b,
        op::OpLogicalEqual => (a == b) as u64,
        op::OpLogicalNotEqual => (a != b) as u64,
        _ => a ^ 1,
    }
}

/// OpSelect on one component: `a` where the condition `c` holds, else `b`.
#[inline(always)]
pub(crate) fn select<T>(c: u64, a: T, b: T) -> T {
    if c != 0 { a } else { b }
}

/// The width of an OpBitcast from `from` to `to` that maps each component to
/// one component ([`bitcast_bits`]): scalars of one width, a whole number of
/// bytes; `None` for any other (its bytes regrouped).
#[inline(always)]
pub(crate) fn bitcast_width(from: ScalarType, to: ScalarType) -> Option<u32> {
    let numbers = |k: ScalarType| k.k != ScalarClass::Other;
    (numbers(from) && numbers(to) && from.w == to.w && from.w % 8 == 0 && from.w > 0).then_some(to.w)
}

/// One component of an OpBitcast of [`bitcast_width`] `w`: its bits.
#[inline(always)]
pub(crate) fn bitcast_bits(x: u64, w: u32) -> u64 {
    mask(x, w)
}

/// The operators with a scalar form ([`scalar_binary`], [`scalar_unary`]),
/// listed once: `$then!` is called with the integer binary operators, the
/// logical ones, the comparisons and the unary ones.
macro_rules! scalar_ops {
    ($then:ident) => {
        $then!(
            OpIAdd, OpISub, OpIMul, OpBitwiseAnd, OpBitwiseOr, OpBitwiseXor;
            OpLogicalAnd, OpLogicalOr, OpLogicalEqual, OpLogicalNotEqual;
            OpIEqual, OpINotEqual, OpUGreaterThan, OpSGreaterThan, OpUGreaterThanEqual, OpSGreaterThanEqual,
            OpULessThan, OpSLessThan, OpULessThanEqual, OpSLessThanEqual;
            OpLogicalNot, OpNot, OpSNegate
        )
    };
}

/// An integer, logical or comparison binary operator on one component of each
/// operand: `sk` the result's scalar kind, `ak` the operands'. Each arm
/// calls the operator's one definition with its opcode a constant, so that
/// the inlined call keeps only that operator's code.
#[inline(always)]
pub(crate) fn scalar_binary(o: u16, a: u64, b: u64, sk: ScalarType, ak: ScalarType) -> Result<u64, RunErrorKind> {
    macro_rules! each {
        ($($int:ident),* ; $($logic:ident),* ; $($cmp:ident),* ; $($unary:ident),*) => {
            match o {
                $(op::$int => int_bin(op::$int, a, b, sk.w),)*
                $(op::$logic => Ok(logical(op::$logic, a, b)),)*
                $(op::$cmp => {
                    const CLASS: OpClass = class::of(op::$cmp);
                    compare_as(CLASS, op::$cmp, a, b, ak).map(u64::from)
                })*
                _ => Err(RunErrorKind::NotSupported { opcode: o }),
            }
        };
    }
    scalar_ops!(each)
}

/// A unary integer or logical operator on one component (OpLogicalNot,
/// OpNot, OpSNegate): `sk` the result's scalar kind.
#[inline(always)]
pub(crate) fn scalar_unary(o: u16, a: u64, sk: ScalarType) -> Result<u64, RunErrorKind> {
    Ok(match o {
        op::OpLogicalNot => logical(op::OpLogicalNot, a, 0),
        op::OpNot => mask(!a, sk.w),
        op::OpSNegate => mask(a.wrapping_neg(), sk.w),
        _ => return Err(RunErrorKind::NotSupported { opcode: o }),
    })
}

/// Whether [`scalar_binary`] takes opcode `o`.
pub(crate) const fn has_scalar_binary(o: u16) -> bool {
    macro_rules! each {
        ($($int:ident),* ; $($logic:ident),* ; $($cmp:ident),* ; $($unary:ident),*) => {
            matches!(o, $(op::$int)|* | $(op::$logic)|* | $(op::$cmp)|*)
        };
    }
    scalar_ops!(each)
}

/// Whether [`scalar_unary`] takes opcode `o`.
pub(crate) const fn has_scalar_unary(o: u16) -> bool {
    macro_rules! each {
        ($($int:ident),* ; $($logic:ident),* ; $($cmp:ident),* ; $($unary:ident),*) => {
            matches!(o, $(op::$unary)|*)
        };
    }
    scalar_ops!(each)
}

/// The operators on values: integer, float, logical, comparison, select,
/// conversion and bitcast instructions, `inst` with opcode `o`, its operands
/// read by `operand(k)`; `None` for another opcode.
pub(crate) fn value<'v>(
    o: u16,
    inst: &Inst,
    ir: &Ir,
    operand: &impl Fn(usize) -> Result<&'v Val, RunErrorKind>,
) -> Option<Result<Val, RunErrorKind>> {
    value_of(o, inst, ir, operand).transpose()
}

fn value_of<'v>(
    o: u16,
    inst: &Inst,
    ir: &Ir,
    operand: &impl Fn(usize) -> Result<&'v Val, RunErrorKind>,
) -> Result<Option<Val>, RunErrorKind> {
    Ok(Some(match o {
        // Integer arithmetic and bit operations.
        op::OpIAdd
        | op::OpISub
        | op::OpIMul
        | op::OpUDiv
        | op::OpSDiv
        | op::OpUMod
        | op::OpSRem
        | op::OpSMod
        | op::OpShiftLeftLogical
        | op::OpShiftRightLogical
        | op::OpShiftRightArithmetic
        | op::OpBitwiseAnd
        | op::OpBitwiseOr
        | op::OpBitwiseXor => {
            let w = inst.sk.w;
            match (operand(0)?, operand(1)?) {
                // Scalars, the common case, without map2's walk.
                (Val::Scalar(a), Val::Scalar(b)) => or_zero(int_bin(o, *a, *b, w))?,
                (a, b) => map2(a, b, &mut |a, b| int_bin(o, a, b, w))?,
            }
        }
        op::OpSNegate | op::OpNot | op::OpLogicalNot => map1(operand(0)?, &mut |a| scalar_unary(o, a, inst.sk))?,
        op::OpBitCount => {
            let w = inst.sk.w;
            map1(operand(0)?, &mut |a| {
                Ok(mask(mask(a, inst.ak.w).count_ones() as u64, w))
            })
            ?
        }
        op::OpBitReverse => {
            let w = inst.sk.w;
            map1(operand(0)?, &mut |a| {
                Ok(a.reverse_bits() >> (64 - w.clamp(1, 64)))
            })
            ?
        }
        op::OpBitFieldInsert | op::OpBitFieldSExtract | op::OpBitFieldUExtract => {
            let w = inst.sk.w;
            let (ok, ck) = if o == op::OpBitFieldInsert {
                (2, 3)
            } else {
                (1, 2)
            };
            let off = scalar(operand(ok)?)?;
            let cnt = scalar(operand(ck)?)?;
            if off.saturating_add(cnt) > w as u64 {
                // Undefined: 0, component by component (see `or_zero`).
                return map1(operand(0)?, &mut |_| Err(RunErrorKind::BitFieldTooWide { offset: off, count: cnt, width: w })).map(Some);
            }
            let fm = if cnt == 0 {
                0
            } else {
                mask(u64::MAX, cnt as u32) << off
            };
            if o == op::OpBitFieldInsert {
                map2(operand(0)?, operand(1)?, &mut |b, i| {
                    Ok(mask((b & !fm) | ((i << off) & fm), w))
                })
                ?
            } else {
                let signed = o == op::OpBitFieldSExtract;
                map1(operand(0)?, &mut |b| {
                    if cnt == 0 {
                        return Ok(0);
                    }
                    let f = (b & fm) >> off;
                    Ok(if signed {
                        mask(sext(f, cnt as u32) as u64, w)
                    } else {
                        f
                    })
                })
                ?
            }
        }
        // Float arithmetic.
        op::OpFAdd | op::OpFSub | op::OpFMul | op::OpFDiv | op::OpFRem | op::OpFMod => {
            check_float(inst.sk)?;
            let w = inst.sk.w;
            map2(operand(0)?, operand(1)?, &mut |a, b| {
                Ok(fput(float_bin(o, fget(a, w), fget(b, w))?, w))
            })
            ?
        }
        op::OpFNegate => {
            check_float(inst.sk)?;
            let w = inst.sk.w;
            map1(operand(0)?, &mut |a| Ok(a ^ (1u64 << (w - 1))))?
        }
        op::OpIsNan | op::OpIsInf => {
            check_float(inst.ak)?;
            let w = inst.ak.w;
            map1(operand(0)?, &mut |a| {
                let f = fget(a, w);
                Ok((if o == op::OpIsNan {
                    f.is_nan()
                } else {
                    f.is_infinite()
                }) as u64)
            })
            ?
        }
        // Comparisons (the grammar's class: those with a relation in their name).
        _ if matches!(class::of(o), OpClass::Compare { relation: Some(_), .. }) => {
            let k = inst.ak;
            if matches!(class::of(o), OpClass::Compare { num: Num::Float, .. }) {
                check_float(k)?;
            }
            match (operand(0)?, operand(1)?) {
                (Val::Scalar(a), Val::Scalar(b)) => Val::Scalar(compare(o, *a, *b, k)? as u64),
                (a, b) => map2(a, b, &mut |a, b| Ok(compare(o, a, b, k)? as u64))?,
            }
        }
        op::OpLogicalAnd | op::OpLogicalOr | op::OpLogicalEqual | op::OpLogicalNotEqual => {
            map2(operand(0)?, operand(1)?, &mut |a, b| Ok(logical(o, a, b)))?
        }
        op::OpAny | op::OpAll => {
            let cs = comps(operand(0)?);
            let mut bits = cs.iter().map(scalar);
            let r = if o == op::OpAny {
                bits.try_fold(false, |acc, b| b.map(|b| acc | (b != 0)))
            } else {
                bits.try_fold(true, |acc, b| b.map(|b| acc & (b != 0)))
            };
            Val::Scalar(r? as u64)
        }
        op::OpSelect => {
            let c = operand(0)?;
            let (a, b) = (operand(1)?, operand(2)?);
            match c {
                Val::Undef => undefined(a),
                Val::Scalar(x) => select(*x, a, b).clone(),
                Val::Composite(cs) => match (a, b) {
                    (Val::Composite(xs), Val::Composite(ys)) if xs.len() == cs.len() && ys.len() == cs.len() => {
                        Val::Composite(
                            cs.iter()
                                .zip(xs.iter().zip(ys))
                                .map(|(c, (x, y))| {
                                    match c {
                                        Val::Undef => undefined(x),
                                        Val::Scalar(c) => select(*c, x, y).clone(),
                                        _ => x.clone(),
                                    }
                                })
                                .collect(),
                        )
                    }
                    _ => {
                        return Err(RunErrorKind::ShapeMismatch { of: Shapes::Select });
                    }
                },
                Val::Pointer(_) => return Err(RunErrorKind::SelectOnPointer),
            }
        }
        // Conversions.
        op::OpConvertFToU | op::OpConvertFToS => {
            check_float(inst.ak)?;
            let (fw, w) = (inst.ak.w, inst.sk.w);
            map1(operand(0)?, &mut |a| {
                let f = fget(a, fw);
                Ok(mask(
                    if o == op::OpConvertFToU {
                        f as u64
                    } else {
                        f as i64 as u64
                    },
                    w,
                ))
            })
            ?
        }
        op::OpConvertSToF | op::OpConvertUToF => {
            check_float(inst.sk)?;
            let (iw, w) = (inst.ak.w, inst.sk.w);
            map1(operand(0)?, &mut |a| {
                let f = if o == op::OpConvertSToF {
                    sext(a, iw) as f64
                } else {
                    a as f64
                };
                // An i64/u64 above 2^53 rounds twice through f64; exact for f64 results.
                if w == 32 && iw == 64 {
                    let f32v = if o == op::OpConvertSToF {
                        sext(a, iw) as f32
                    } else {
                        a as f32
                    };
                    return Ok(f32v.to_bits() as u64);
                }
                Ok(fput(f, w))
            })
            ?
        }
        op::OpUConvert => {
            let w = inst.sk.w;
            map1(operand(0)?, &mut |a| Ok(mask(a, w)))?
        }
        op::OpSConvert => {
            let (iw, w) = (inst.ak.w, inst.sk.w);
            map1(operand(0)?, &mut |a| Ok(mask(sext(a, iw) as u64, w)))?
        }
        op::OpFConvert => {
            check_float(inst.ak)?;
            check_float(inst.sk)?;
            let (fw, w) = (inst.ak.w, inst.sk.w);
            map1(operand(0)?, &mut |a| Ok(fput(fget(a, fw), w)))?
        }
        op::OpBitcast => {
            if inst.sk.k == ScalarClass::Other || inst.ak.k == ScalarClass::Other {
                return Err(RunErrorKind::NotSupportedFeature { feature: Feature::PointerBitcast });
            }
            let count = match ir.ty(inst.ty).map(|t| &t.ty) {
                Some(Type::Vector { count, .. }) => Some(*count as usize),
                _ => None,
            };
            let v = match (bitcast_width(inst.ak, inst.sk), operand(0)?) {
                // Component to component: each one's bits.
                (Some(w), Val::Scalar(x)) if count.is_none() => Val::Scalar(bitcast_bits(*x, w)),
                (Some(w), Val::Composite(xs)) if count == Some(xs.len()) => {
                    Val::Composite(xs.iter().map(|x| scalar(x).map(|x| Val::Scalar(bitcast_bits(x, w)))).collect::<Result<_, _>>()?)
                }
                (_, a) => bitcast(a, inst.ak, inst.sk, count)?,
            };
            if has_undef(operand(0)?) { undefined(&v) } else { v }
        }
        _ => return Ok(None),
    }))
}

/// The scalar components of `v`, or `v` itself.
pub(crate) fn comps(v: &Val) -> Vec<Val> {
    match v {
        Val::Composite(xs) => xs.clone(),
        x => vec![x.clone()],
    }
}

fn bitcast(v: &Val, from: ScalarType, to: ScalarType, to_count: Option<usize>) -> Result<Val, RunErrorKind> {
    let mut bytes = Vec::new();
    for c in comps(v) {
        let x = scalar(&c)?;
        for k in 0..from.w / 8 {
            bytes.push((x >> (8 * k)) as u8);
        }
    }
    let cb = (to.w / 8) as usize;
    if cb == 0 || bytes.len() % cb != 0 {
        return Err(RunErrorKind::BitcastSizes);
    }
    let out: Vec<Val> = bytes
        .chunks(cb)
        .map(|ch| {
            Val::Scalar(
                ch.iter()
                    .enumerate()
                    .fold(0u64, |acc, (k, b)| acc | (*b as u64) << (8 * k)),
            )
        })
        .collect();
    match to_count {
        Some(n) if n == out.len() => Ok(Val::Composite(out)),
        None if out.len() == 1 => Ok(out.into_iter().next().unwrap_or(Val::Scalar(0))),
        _ => Err(RunErrorKind::BitcastSizes),
    }
}
