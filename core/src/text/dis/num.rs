//! Number printing as spirv-dis does it: integers by width and signedness,
//! 32/64-bit floats as C++ streams print them (`%.9g` / `%.17g`) when normal or
//! zero, and hex floats (`0x1.8p+1`) for subnormals, infinities, NaNs and every
//! other float encoding (16-bit, bfloat16, 8-bit).

use crate::binary::parse::{FloatEnc, NumType};
use alloc::string::String;
use core::fmt::Write;

/// Append an unsigned integer in decimal.
pub fn push_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    for &b in &buf[i..] {
        out.push(b as char);
    }
}

/// Append a signed integer in decimal.
pub fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_u64(out, v.unsigned_abs());
}

/// Append a literal number made of `words` (low word first) read as `num`.
/// Returns false (and appends nothing) when it cannot be printed (more than
/// two words, as spirv-dis).
pub fn push_number(out: &mut String, words: &[u32], num: NumType) -> bool {
    let bits: u64 = match *words {
        [lo] => lo as u64,
        [lo, hi] => lo as u64 | (hi as u64) << 32,
        _ => return false,
    };
    match num {
        NumType::Int { signed: true, .. } => {
            if words.len() == 1 {
                push_i64(out, bits as u32 as i32 as i64);
            } else {
                push_i64(out, bits as i64);
            }
        }
        NumType::Int { signed: false, .. } | NumType::None => push_u64(out, bits),
        NumType::Float { width, enc } => push_float(out, bits, width, enc),
    }
    true
}

fn push_float(out: &mut String, bits: u64, width: u32, enc: FloatEnc) {
    match (enc, width) {
        (FloatEnc::Ieee, 32) => {
            let f = f32::from_bits(bits as u32);
            if f == 0.0 || f.is_normal() {
                push_g(out, f as f64, 9);
            } else {
                push_hex_float(out, bits, 8, 23);
            }
        }
        (FloatEnc::Ieee, 64) => {
            let f = f64::from_bits(bits);
            if f == 0.0 || f.is_normal() {
                push_g(out, f, 17);
            } else {
                push_hex_float(out, bits, 11, 52);
            }
        }
        (FloatEnc::Ieee, 16) => push_hex_float(out, bits & 0xffff, 5, 10),
        (FloatEnc::BFloat16, _) => push_hex_float(out, bits & 0xffff, 8, 7),
        (FloatEnc::Float8E4M3, _) => push_hex_float(out, bits & 0xff, 4, 3),
        (FloatEnc::Float8E5M2, _) => push_hex_float(out, bits & 0xff, 5, 2),
        _ => push_u64(out, bits),
    }
}

/// A float in hex-float form, `[-]0x1[.hhh]p±e`, as SPIRV-Tools' HexFloat prints.
pub fn push_hex_float(out: &mut String, bits: u64, exp_bits: u32, frac_bits: u32) {
    let sign = (bits >> (exp_bits + frac_bits)) & 1 != 0;
    let exp = (bits >> frac_bits) & ((1u64 << exp_bits) - 1);
    let mut nibbles = frac_bits.div_ceil(4);
    let overflow = nibbles * 4 - frac_bits;
    let mut frac = (bits & ((1u64 << frac_bits) - 1)) << overflow;
    let bias = (1i64 << (exp_bits - 1)) - 1;
    let is_zero = exp == 0 && frac == 0;
    let is_denorm = exp == 0 && !is_zero;
    let mut e = if is_zero { 0 } else { exp as i64 - bias };
    if is_denorm {
        let top = 1u64 << (nibbles * 4 - 1);
        while frac & top == 0 {
            frac <<= 1;
            e -= 1;
        }
        frac <<= 1;
        frac &= (1u64 << (nibbles * 4)) - 1;
    }
    while nibbles > 0 && frac & 0xf == 0 {
        frac >>= 4;
        nibbles -= 1;
    }
    if sign {
        out.push('-');
    }
    out.push_str(if is_zero { "0x0" } else { "0x1" });
    if nibbles > 0 {
        out.push('.');
        for k in (0..nibbles).rev() {
            let d = ((frac >> (4 * k)) & 0xf) as u8;
            out.push(char::from(if d < 10 { b'0' + d } else { b'a' + d - 10 }));
        }
    }
    out.push('p');
    if e >= 0 {
        out.push('+');
    }
    push_i64(out, e);
}

/// `printf("%.<prec>g", v)`.
pub fn push_g(out: &mut String, v: f64, prec: usize) {
    if v.is_sign_negative() {
        out.push('-');
    }
    let a = v.abs();
    if a == 0.0 {
        out.push('0');
        return;
    }
    let mut buf = String::with_capacity(32);
    let _ = write!(buf, "{:.*e}", prec - 1, a);
    let (mant, exp) = buf.split_once('e').unwrap_or((&buf, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    let mut digits = [0u8; 24];
    let mut nd = 0;
    for b in mant.bytes() {
        if b.is_ascii_digit() && nd < digits.len() {
            digits[nd] = b;
            nd += 1;
        }
    }
    // Significant digits with trailing zeros removed.
    while nd > 1 && digits[nd - 1] == b'0' {
        nd -= 1;
    }
    let d = &digits[..nd];
    if x < -4 || x >= prec as i32 {
        out.push(d[0] as char);
        if nd > 1 {
            out.push('.');
            for &c in &d[1..] {
                out.push(c as char);
            }
        }
        out.push('e');
        out.push(if x < 0 { '-' } else { '+' });
        let ax = x.unsigned_abs();
        if ax < 10 {
            out.push('0');
        }
        push_u64(out, ax as u64);
    } else if x < 0 {
        out.push_str("0.");
        for _ in 0..(-x - 1) {
            out.push('0');
        }
        for &c in d {
            out.push(c as char);
        }
    } else {
        let int_len = x as usize + 1;
        for k in 0..int_len {
            out.push(*d.get(k).unwrap_or(&b'0') as char);
        }
        if nd > int_len {
            out.push('.');
            for &c in &d[int_len..] {
                out.push(c as char);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(v: f64, p: usize) -> String {
        let mut s = String::new();
        push_g(&mut s, v, p);
        s
    }

    fn hf(bits: u64, e: u32, f: u32) -> String {
        let mut s = String::new();
        push_hex_float(&mut s, bits, e, f);
        s
    }

    #[test]
    fn percent_g() {
        assert_eq!(g(0.5, 9), "0.5");
        assert_eq!(g(-1.0, 9), "-1");
        assert_eq!(g(1e20f32 as f64, 9), "1.00000002e+20");
        assert_eq!(g(1e-5f32 as f64, 9), "9.99999975e-06");
        assert_eq!(g(123456789f32 as f64, 9), "123456792");
        assert_eq!(g(0.1f32 as f64, 9), "0.100000001");
        assert_eq!(g(0.1, 17), "0.10000000000000001");
        assert_eq!(g(1e300, 17), "1.0000000000000001e+300");
        assert_eq!(g(-0.0, 9), "-0");
        assert_eq!(g(100.0, 9), "100");
        assert_eq!(g(0.0001f32 as f64, 9), "9.99999975e-05");
    }

    #[test]
    fn hex_floats() {
        assert_eq!(hf(0x7f80_0000, 8, 23), "0x1p+128");
        assert_eq!(hf(0xffc0_0000, 8, 23), "-0x1.8p+128");
        assert_eq!(hf(1e-40f32.to_bits() as u64, 8, 23), "0x1.16c2p-133");
        assert_eq!(hf(0x3800, 5, 10), "0x1p-1");
        assert_eq!(hf(0x0001, 5, 10), "0x1p-24");
        assert_eq!(hf(0x0000, 5, 10), "0x0p+0");
        assert_eq!(hf(0x3fc0, 8, 7), "0x1.8p+0");
    }
}
