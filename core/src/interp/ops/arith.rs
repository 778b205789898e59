//! Arithmetic: the integer, float, logical and comparison operators on
//! scalars (the bits of one component). The run loop applies them to
//! vectors component by component, and its specialised handler for scalar
//! operands calls the same functions.

use crate::grammar::op;
use crate::interp::num::{K, Sk, fget, mask, sext};
use crate::interp::unsupported;
use alloc::format;
use alloc::string::String;

pub(crate) fn check_float(k: Sk) -> Result<(), String> {
    if k.k != K::F {
        return Err(String::from(
            "a float operation on a type that is not a float",
        ));
    }
    if k.w != 16 && k.w != 32 && k.w != 64 {
        return Err(format!("not supported: {}-bit floats", k.w));
    }
    Ok(())
}

/// An integer arithmetic or bit operator on two scalars of width `w`.
#[inline(always)]
pub(crate) fn int_bin(o: u16, a: u64, b: u64, w: u32) -> Result<u64, String> {
    let (sa, sb) = (sext(a, w), sext(b, w));
    let shift = |b: u64| -> Result<u32, String> {
        if b >= w as u64 {
            Err(format!("shift by {b}, not less than the width {w}"))
        } else {
            Ok(b as u32)
        }
    };
    let zero = || Err(String::from("integer division by zero"));
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
        _ => return Err(unsupported(o)),
    };
    Ok(mask(r, w))
}

pub(crate) fn float_bin(o: u16, a: f64, b: f64) -> Result<f64, String> {
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
        _ => return Err(unsupported(o)),
    })
}

/// A comparison of two scalars of kind `k` (integers, booleans or floats).
#[inline(always)]
pub(crate) fn compare(o: u16, a: u64, b: u64, k: Sk) -> Result<bool, String> {
    if (op::OpFOrdEqual..=op::OpFUnordGreaterThanEqual).contains(&o) {
        return float_compare(o, fget(a, k.w), fget(b, k.w));
    }
    let (sa, sb) = (sext(a, k.w), sext(b, k.w));
    Ok(match o {
        op::OpIEqual | op::OpLogicalEqual => a == b,
        op::OpINotEqual | op::OpLogicalNotEqual => a != b,
        op::OpUGreaterThan => a > b,
        op::OpUGreaterThanEqual => a >= b,
        op::OpULessThan => a < b,
        op::OpULessThanEqual => a <= b,
        op::OpSGreaterThan => sa > sb,
        op::OpSGreaterThanEqual => sa >= sb,
        op::OpSLessThan => sa < sb,
        op::OpSLessThanEqual => sa <= sb,
        _ => return Err(unsupported(o)),
    })
}

fn float_compare(o: u16, fa: f64, fb: f64) -> Result<bool, String> {
    let nan = fa.is_nan() || fb.is_nan();
    Ok(match o {
        op::OpFOrdEqual => fa == fb,
        op::OpFUnordEqual => nan || fa == fb,
        op::OpFOrdNotEqual => !nan && fa != fb,
        op::OpFUnordNotEqual => fa != fb,
        op::OpFOrdLessThan => fa < fb,
        op::OpFUnordLessThan => nan || fa < fb,
        op::OpFOrdGreaterThan => fa > fb,
        op::OpFUnordGreaterThan => nan || fa > fb,
        op::OpFOrdLessThanEqual => fa <= fb,
        op::OpFUnordLessThanEqual => nan || fa <= fb,
        op::OpFOrdGreaterThanEqual => fa >= fb,
        op::OpFUnordGreaterThanEqual => nan || fa >= fb,
        _ => return Err(unsupported(o)),
    })
}

/// OpLogicalAnd or OpLogicalOr on two booleans.
#[inline(always)]
pub(crate) fn logical(o: u16, a: u64, b: u64) -> u64 {
    if o == op::OpLogicalAnd { a & b } else { a | b }
}

/// The binary operators that [`scalar_binary`] runs.
pub(crate) fn is_scalar_binary(o: u16) -> bool {
    matches!(
        o,
        op::OpIAdd
            | op::OpISub
            | op::OpIMul
            | op::OpBitwiseAnd
            | op::OpBitwiseOr
            | op::OpBitwiseXor
            | op::OpLogicalAnd
            | op::OpLogicalOr
            | op::OpLogicalEqual
            | op::OpLogicalNotEqual
            | op::OpIEqual
            | op::OpINotEqual
            | op::OpUGreaterThan
            | op::OpSGreaterThan
            | op::OpUGreaterThanEqual
            | op::OpSGreaterThanEqual
            | op::OpULessThan
            | op::OpSLessThan
            | op::OpULessThanEqual
            | op::OpSLessThanEqual
    )
}

/// A binary operator of [`is_scalar_binary`] on one component of each
/// operand: `sk` the result's scalar kind, `ak` the operands'.
#[inline(always)]
pub(crate) fn scalar_binary(o: u16, a: u64, b: u64, sk: Sk, ak: Sk) -> Result<u64, String> {
    match o {
        op::OpLogicalAnd | op::OpLogicalOr => Ok(logical(o, a, b)),
        op::OpIAdd | op::OpISub | op::OpIMul | op::OpBitwiseAnd | op::OpBitwiseOr | op::OpBitwiseXor => {
            int_bin(o, a, b, sk.w)
        }
        _ => compare(o, a, b, ak).map(u64::from),
    }
}
