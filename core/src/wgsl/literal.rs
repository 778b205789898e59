//! WGSL literals of SPIR-V scalar constants.

use super::names::push_u32;
use super::refuse::{Refusal, RefusalCode};
use super::types::{Kind, Num};
use alloc::format;
use alloc::string::String;

/// A literal of scalar `num` with `bits`.
pub fn literal(num: Num, bits: u64, at: u32) -> Result<String, Refusal> {
    Ok(match num.kind {
        Kind::Bool => String::from(if bits != 0 { "true" } else { "false" }),
        Kind::U32 | Kind::I32 => {
            let mut s = String::with_capacity(12);
            if push_int32_literal(num.kind, bits, &mut s) {
                s
            } else {
                String::from("i32(-2147483647 - 1)")
            }
        }
        Kind::F32 => {
            let f = f32::from_bits(bits as u32);
            if !f.is_finite() {
                return Err(Refusal::new(RefusalCode::Constant, "a non-finite float constant", Some(at)));
            }
            format!("{f:?}f")
        }
        Kind::F16 => {
            let f = f16_to_f32(bits as u16);
            if !f.is_finite() {
                return Err(Refusal::new(RefusalCode::Constant, "a non-finite half constant", Some(at)));
            }
            format!("{f:?}h")
        }
    })
}


/// An IEEE half's value.
pub fn f16_to_f32(h: u16) -> f32 {
    let s = (h >> 15) as u32;
    let e = ((h >> 10) & 0x1f) as u32;
    let m = (h & 0x3ff) as u32;
    let bits = match (e, m) {
        (0, 0) => s << 31,
        (0, _) => {
            // Subnormal: m * 2^-24.
            let v = m as f32 / 16_777_216.0;
            return if s == 1 { -v } else { v };
        }
        (31, 0) => (s << 31) | 0x7f80_0000,
        (31, _) => (s << 31) | 0x7fc0_0000,
        _ => (s << 31) | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// A 32-bit integer literal of kind `kind` with `bits`, as [`literal`]
/// writes it (`{n}u`, `{v}i`, `-{-v}i`), appended to `out` without the
/// formatter; false, with `out` unchanged, for any other kind and for
/// i32::MIN (which `literal` writes as an expression).
pub fn push_int32_literal(kind: Kind, bits: u64, out: &mut String) -> bool {
    match kind {
        Kind::U32 => {
            push_u32(out, bits as u32);
            out.push('u');
        }
        Kind::I32 if bits as u32 as i32 != i32::MIN => {
            let v = bits as u32 as i32;
            if v < 0 {
                out.push('-');
            }
            push_u32(out, v.unsigned_abs());
            out.push('i');
        }
        _ => return false,
    }
    true
}
