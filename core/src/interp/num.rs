//! Numbers: integer widths (masking, sign extension) and floats (f16, f32
//! and f64 held as bits, computed in f64). The bottom layer of the
//! interpreter: it uses no other file of it.

use crate::ir::{Ir, Type};

pub(crate) fn mask(x: u64, w: u32) -> u64 {
    if w >= 64 { x } else { x & ((1u64 << w) - 1) }
}

pub(crate) fn sext(x: u64, w: u32) -> i64 {
    if w == 0 || w >= 64 {
        return x as i64;
    }
    let s = 64 - w;
    ((x << s) as i64) >> s
}

/// A float's value (f16, f32 and f64 are exact in f64).
pub(crate) fn fget(x: u64, w: u32) -> f64 {
    match w {
        64 => f64::from_bits(x),
        16 => half_to_f64(x as u16),
        _ => f32::from_bits(x as u32) as f64,
    }
}

/// `x` rounded to the nearest float of width `w` (ties to even). An
/// operation on f16 or f32 operands done in f64 and then rounded gives the
/// correctly rounded result: f64 has more than twice their precision plus two
/// bits, so the double rounding is harmless for +, -, *, /.
pub(crate) fn fput(x: f64, w: u32) -> u64 {
    match w {
        64 => x.to_bits(),
        16 => f64_to_half(x) as u64,
        _ => (x as f32).to_bits() as u64,
    }
}

/// An f16's bits as an f64 (exact).
pub fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as u64;
    let mant = (h & 0x3ff) as u64;
    let v = match exp {
        // Subnormal: mant * 2^-24.
        0 => mant as f64 * f64::from_bits((1023 - 24) << 52),
        31 if mant == 0 => f64::INFINITY,
        31 => f64::NAN,
        _ => f64::from_bits((exp + 1023 - 15) << 52 | mant << 42),
    };
    sign * v
}

/// An f64 rounded to f16 bits (to nearest even, with subnormals).
pub fn f64_to_half(x: f64) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 63) as u16) << 15;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    if x.is_infinite() {
        return sign | 0x7c00;
    }
    if x == 0.0 {
        return sign;
    }
    let raw_exp = ((bits >> 52) & 0x7ff) as i32;
    // f64 subnormals are far below the smallest f16 subnormal.
    if raw_exp == 0 {
        return sign;
    }
    let e = raw_exp - 1023;
    let full = (1u64 << 52) | (bits & ((1u64 << 52) - 1));
    // Round `full >> shift` to nearest, ties to even.
    let round = |shift: u32| -> u64 {
        if shift >= 64 {
            return 0;
        }
        let q = full >> shift;
        let rem = full & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    if e < -14 {
        // Subnormal (or rounds up to the smallest normal): units of 2^-24.
        let q = round((28 - e) as u32);
        return sign | q as u16;
    }
    let mut q = round(42);
    let mut e = e;
    if q == 2048 {
        q = 1024;
        e += 1;
    }
    if e > 15 {
        return sign | 0x7c00;
    }
    sign | (((e + 15) as u16) << 10) | (q as u16 & 0x3ff)
}

/// The kind of a scalar (or of a vector's components).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ScalarClass {
    Bool,
    Uint,
    Sint,
    Float,
    /// Not a scalar or vector of scalars.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ScalarType {
    pub k: ScalarClass,
    pub w: u32,
}

pub(super) const OTHER: ScalarType = ScalarType { k: ScalarClass::Other, w: 0 };

/// The scalar kind of type `ty` (of its components, for a vector).
pub(super) fn scalar_kind(ir: &Ir, ty: u32) -> ScalarType {
    let Some(t) = ir.ty(ty) else { return OTHER };
    match t.ty {
        Type::Bool => ScalarType { k: ScalarClass::Bool, w: 1 },
        Type::Int { width, signed } => ScalarType {
            k: if signed { ScalarClass::Sint } else { ScalarClass::Uint },
            w: width,
        },
        Type::Float {
            width,
            encoding: None,
        } => ScalarType { k: ScalarClass::Float, w: width },
        Type::Vector { component, .. } => match ir.ty(component).map(|c| &c.ty) {
            Some(Type::Vector { .. }) | None => OTHER,
            Some(_) => scalar_kind(ir, component),
        },
        // A matrix's: its columns' (the matrix instructions check it).
        Type::Matrix { column, .. } => match ir.ty(column).map(|c| &c.ty) {
            Some(Type::Vector { .. }) => scalar_kind(ir, column),
            _ => OTHER,
        },
        _ => OTHER,
    }
}
