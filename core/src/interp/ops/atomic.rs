//! Atomic read-modify-writes: the value each stores over the old one. The
//! run loop does the load and the store (invocations take turns, so an
//! atomic is a load, an operation and a store).

use crate::grammar::class::{self, Atomic, OpClass};
use crate::grammar::op;
use crate::interp::num::{ScalarType, fget, fput, mask, sext};
use crate::interp::ops::arith::check_float;
use crate::interp::error::RunErrorKind;

/// What atomic instruction `o` is (the grammar's class), or `None` for one
/// that is not atomic.
pub(crate) const fn class_of(o: u16) -> Option<Atomic> {
    match class::of(o) {
        OpClass::Atomic(a) => Some(a),
        _ => None,
    }
}

/// Whether `o` is an integer read-modify-write (OpAtomicExchange to
/// OpAtomicXor).
pub(crate) fn is_int_rmw(o: u16) -> bool {
    match class_of(o) {
        Some(Atomic::Exchange | Atomic::CompareExchange) => true,
        Some(Atomic::Modify { num, .. }) => num.is_int(),
        _ => false,
    }
}

/// Whether atomic `a` writes the memory its pointer (its first operand)
/// points to.
pub(crate) fn writes(a: Atomic) -> bool {
    a != Atomic::Load
}

/// The positions among the operands (the pointer first) of atomic `a`'s
/// memory semantics: after the pointer and the scope, and for a compare
/// exchange the Unequal semantics next.
pub(crate) fn semantics_operands(a: Atomic) -> &'static [usize] {
    match a {
        Atomic::CompareExchange => &[2, 3],
        _ => &[2],
    }
}

/// The value read-modify-write `o` stores over `old` (to be masked to the
/// width), of scalar kind `k`; `operand(k)` reads the instruction's operand
/// `k`.
#[inline(always)]
pub(crate) fn rmw(o: u16, old: u64, k: ScalarType, operand: &mut impl FnMut(usize) -> Result<u64, RunErrorKind>) -> Result<u64, RunErrorKind> {
    let w = k.w;
    Ok(match o {
        op::OpAtomicExchange => operand(3)?,
        op::OpAtomicCompareExchange | op::OpAtomicCompareExchangeWeak => {
            let (v, cmp) = (operand(4)?, operand(5)?);
            if mask(old, w) == mask(cmp, w) { v } else { old }
        }
        op::OpAtomicIIncrement => old.wrapping_add(1),
        op::OpAtomicIDecrement => old.wrapping_sub(1),
        op::OpAtomicIAdd => old.wrapping_add(operand(3)?),
        op::OpAtomicISub => old.wrapping_sub(operand(3)?),
        op::OpAtomicSMin => {
            let v = operand(3)?;
            if sext(v, w) < sext(old, w) { v } else { old }
        }
        op::OpAtomicSMax => {
            let v = operand(3)?;
            if sext(v, w) > sext(old, w) { v } else { old }
        }
        op::OpAtomicUMin => mask(old, w).min(mask(operand(3)?, w)),
        op::OpAtomicUMax => mask(old, w).max(mask(operand(3)?, w)),
        op::OpAtomicAnd => old & operand(3)?,
        op::OpAtomicOr => old | operand(3)?,
        op::OpAtomicXor => old ^ operand(3)?,
        _ => {
            check_float(k)?;
            let (a, b) = (fget(old, w), fget(operand(3)?, w));
            fput(
                match o {
                    op::OpAtomicFAddEXT => a + b,
                    op::OpAtomicFMinEXT => libm::fmin(a, b),
                    _ => libm::fmax(a, b),
                },
                w,
            )
        }
    })
}
