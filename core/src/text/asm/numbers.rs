//! Numeric literals as spirv-as reads them: integers in decimal, hex (`0x`) or octal
//! (leading `0`) with an optional sign, sized and range-checked by their type; floats
//! in decimal (correctly rounded) or C hex-float form (`0x1.8p3`, truncated the way
//! SPIRV-Tools' HexFloat parser does, which is how `0x1.8p+128` yields a NaN), for
//! 16-bit (IEEE half and bfloat16), 32-bit, 64-bit and 8-bit (E4M3, E5M2) types.

/// Why a literal was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumError {
    /// Not a number of the expected kind at all.
    Invalid,
    /// A negative number where only unsigned ones fit.
    Negative,
    /// A number that does not fit the type.
    Range,
    /// A width the assembler cannot encode literals for.
    Unsupported,
}

/// The float formats literals can be encoded in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatFormat {
    F16,
    BF16,
    F32,
    F64,
    E4M3,
    E5M2,
}

impl FloatFormat {
    /// (total bits, exponent bits, fraction bits)
    fn layout(self) -> (u32, u32, u32) {
        match self {
            FloatFormat::F16 => (16, 5, 10),
            FloatFormat::BF16 => (16, 8, 7),
            FloatFormat::F32 => (32, 8, 23),
            FloatFormat::F64 => (64, 11, 52),
            FloatFormat::E4M3 => (8, 4, 3),
            FloatFormat::E5M2 => (8, 5, 2),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FloatFormat::F16 => "16-bit float",
            FloatFormat::BF16 => "bfloat16",
            FloatFormat::F32 => "32-bit float",
            FloatFormat::F64 => "64-bit float",
            FloatFormat::E4M3 => "E4M3 float",
            FloatFormat::E5M2 => "E5M2 float",
        }
    }
}

/// Parse an unsigned magnitude like `istream >> std::setbase(0)`: `0x` hex, leading-0
/// octal, else decimal. No sign here.
fn parse_base0(s: &[u8]) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let (digits, base) = if s.len() >= 2 && s[0] == b'0' && (s[1] == b'x' || s[1] == b'X') {
        (&s[2..], 16u64)
    } else if s[0] == b'0' {
        (s, 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u64,
            b'a'..=b'f' => (c - b'a' + 10) as u64,
            b'A'..=b'F' => (c - b'A' + 10) as u64,
            _ => return None,
        };
        if d >= base {
            return None;
        }
        v = v.checked_mul(base)?.checked_add(d)?;
    }
    Some(v)
}

/// Parse a whole token as an unsigned 32-bit number the way spirv-as parses ids and
/// `!<integer>` words (base 0, optional `+`).
pub fn parse_u32_base0(s: &str) -> Option<u32> {
    let b = s.as_bytes();
    let b = b.strip_prefix(b"+").unwrap_or(b);
    parse_base0(b).and_then(|v| u32::try_from(v).ok())
}

/// Parse an integer literal for an integer type of `width` bits and return its bits,
/// sign-extended to 64 bits for signed types.
pub fn parse_int(text: &str, width: u32, signed: bool) -> Result<u64, NumError> {
    if width > 64 || width == 0 {
        return Err(NumError::Unsupported);
    }
    let b = text.as_bytes();
    let negative = b.first() == Some(&b'-');
    if negative && !signed {
        return Err(NumError::Negative);
    }
    let is_hex = b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X');
    if negative {
        let mag = parse_base0(&b[1..]).ok_or(NumError::Invalid)?;
        if mag > 1u64 << 63 {
            return Err(NumError::Invalid);
        }
        let v = (mag as i64).wrapping_neg();
        if width < 64 && v < -(1i64 << (width - 1)) {
            return Err(NumError::Range);
        }
        Ok(v as u64)
    } else {
        let rest = b.strip_prefix(b"+").unwrap_or(b);
        let v = parse_base0(rest).ok_or(NumError::Invalid)?;
        if signed {
            if is_hex {
                if width < 64 {
                    if v >> width != 0 {
                        return Err(NumError::Range);
                    }
                    let shift = 64 - width;
                    return Ok((((v << shift) as i64) >> shift) as u64);
                }
                Ok(v)
            } else {
                let max = if width == 64 { i64::MAX as u64 } else { (1u64 << (width - 1)) - 1 };
                if v > max {
                    return Err(NumError::Range);
                }
                Ok(v)
            }
        } else {
            if width < 64 && v >> width != 0 {
                return Err(NumError::Range);
            }
            Ok(v)
        }
    }
}

/// Whether `s` is a decimal float as libstdc++'s `num_get` reads it (no sign):
/// digits with at most one `.`, at least one digit, optional exponent with digits.
fn is_decimal_float(s: &[u8]) -> bool {
    let mut i = 0;
    let mut digits = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return false;
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        i += 1;
        if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
            i += 1;
        }
        let start = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    i == s.len()
}

/// Truncate (round toward zero) a finite f32 into a smaller format. `None` when the
/// value overflows the format.
fn narrow_f32(x: f32, fmt: FloatFormat) -> Option<u64> {
    let (n, e_bits, m_bits) = fmt.layout();
    let bits = x.to_bits();
    let sign = ((bits >> 31) as u64) << (n - 1);
    let exp_field = (bits >> 23) & 0xff;
    let frac = bits & 0x7f_ffff;
    if exp_field == 0 && frac == 0 {
        return Some(sign);
    }
    // Normalise: significand with the implicit bit at position 23, unbiased exponent.
    let (mut e, mut sig) = if exp_field == 0 { (-126i32, frac) } else { (exp_field as i32 - 127, frac | 0x80_0000) };
    while sig & 0x80_0000 == 0 {
        sig <<= 1;
        e -= 1;
    }
    let bias = (1i32 << (e_bits - 1)) - 1;
    if fmt == FloatFormat::E4M3 {
        if x.abs() > 448.0 {
            return None;
        }
    } else if e > bias {
        return None;
    }
    let shift = 23 - m_bits as i32;
    if e >= 1 - bias {
        let f = ((sig & 0x7f_ffff) >> shift) as u64;
        Some(sign | ((e + bias) as u64) << m_bits | f)
    } else {
        let extra = (1 - bias) - e;
        let total = shift + extra;
        let f = if total >= 32 { 0 } else { (sig >> total) as u64 };
        Some(sign | f)
    }
}

/// SPIRV-Tools' hex-float reader for a format of `n` total bits: bits beyond the
/// format are dropped (truncation), an exponent one past the largest keeps its
/// fraction (so it can make a NaN), larger ones give infinity.
fn parse_hex_float(s: &[u8], negative: bool, fmt: FloatFormat) -> Option<u64> {
    let (n, e_bits, m_bits) = fmt.layout();
    let bias = (1i64 << (e_bits - 1)) - 1;
    let top = n - 1;
    let field_mask: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut i = 0;
    let peek = |i: usize| s.get(i).copied();
    let mut fraction: u64 = 0;
    let mut index: u32 = 0;
    let mut exponent: i64 = bias;
    let write = |fraction: &mut u64, index: &mut u32, bit: u64| {
        if *index <= top {
            *fraction |= bit << (top - *index);
        }
        *index += 1;
    };
    while peek(i) == Some(b'0') {
        i += 1;
    }
    let mut is_denorm = true;
    let mut bits_written = false;
    let mut seen_dot = false;
    let mut seen_p = false;
    while !seen_p && !seen_dot {
        match peek(i) {
            Some(b'.') => seen_dot = true,
            Some(b'p') => seen_p = true,
            Some(c) if c.is_ascii_hexdigit() => {
                is_denorm = false;
                let nib = (c as char).to_digit(16).unwrap_or(0) as u64;
                for k in (0..4).rev() {
                    let bit = (nib >> k) & 1;
                    if bits_written {
                        write(&mut fraction, &mut index, bit);
                        exponent += 1;
                    }
                    bits_written |= bit != 0;
                }
            }
            _ => return None,
        }
        i += 1;
    }
    bits_written = false;
    while seen_dot && !seen_p {
        match peek(i) {
            Some(b'p') => seen_p = true,
            Some(c) if c.is_ascii_hexdigit() => {
                let nib = (c as char).to_digit(16).unwrap_or(0) as u64;
                for k in (0..4).rev() {
                    let bit = (nib >> k) & 1;
                    bits_written |= bit != 0;
                    if is_denorm && !bits_written {
                        exponent -= 1;
                    } else {
                        write(&mut fraction, &mut index, bit);
                    }
                }
            }
            _ => return None,
        }
        i += 1;
    }
    // The exponent: optional sign, then decimal digits, to the end of the token.
    let mut exp_sign = 1i64;
    let mut seen_sign = false;
    let mut seen_digits = false;
    let mut written: i64 = 0;
    while let Some(c) = peek(i) {
        if !seen_digits && (c == b'-' || c == b'+') {
            if seen_sign {
                return None;
            }
            seen_sign = true;
            exp_sign = if c == b'-' { -1 } else { 1 };
        } else if c.is_ascii_digit() {
            seen_digits = true;
            written = written.saturating_mul(10).saturating_add((c - b'0') as i64).min(1 << 40);
        } else {
            return None;
        }
        i += 1;
    }
    if !seen_digits {
        return None;
    }
    exponent += written * exp_sign;
    let mut is_zero = is_denorm && fraction == 0;
    if is_denorm && !is_zero {
        fraction = (fraction << 1) & field_mask;
        exponent -= 1;
    } else if is_zero {
        exponent = 0;
    }
    if exponent <= 0 && !is_zero {
        fraction >>= 1;
        fraction |= 1u64 << top;
    }
    let frac_mask = (1u64 << m_bits) - 1;
    fraction = (fraction >> (n - m_bits)) & frac_mask;
    let max_exponent = (1i64 << e_bits) - 1;
    while exponent < 0 && !is_zero {
        fraction >>= 1;
        exponent += 1;
        fraction &= frac_mask;
        if fraction == 0 {
            is_zero = true;
            exponent = 0;
        }
    }
    if exponent > max_exponent {
        exponent = max_exponent;
        fraction = 0;
    }
    let sign = if negative { 1u64 << top } else { 0 };
    let exp_mask = ((1u64 << e_bits) - 1) << m_bits;
    Some(sign | fraction | (((exponent as u64) << m_bits) & exp_mask))
}

/// Parse a float literal into the bits of `fmt` (in the low bits of the result).
pub fn parse_float(text: &str, fmt: FloatFormat) -> Result<u64, NumError> {
    let b = text.as_bytes();
    let (negative, rest) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    if rest.len() >= 2 && rest[0] == b'0' && (rest[1] == b'x' || rest[1] == b'X') {
        return parse_hex_float(&rest[2..], negative, fmt).ok_or(NumError::Invalid);
    }
    // The decimal path: after a '-' no other sign; otherwise an optional '+'.
    let body = if negative { rest } else { rest.strip_prefix(b"+").unwrap_or(rest) };
    if !is_decimal_float(body) {
        return Err(NumError::Invalid);
    }
    let body = core::str::from_utf8(body).map_err(|_| NumError::Invalid)?;
    match fmt {
        FloatFormat::F64 => {
            let v: f64 = body.parse().map_err(|_| NumError::Invalid)?;
            if v.is_infinite() {
                return Err(NumError::Range);
            }
            let v = if negative { -v } else { v };
            Ok(v.to_bits())
        }
        _ => {
            let v: f32 = body.parse().map_err(|_| NumError::Invalid)?;
            if v.is_infinite() {
                return Err(NumError::Range);
            }
            let v = if negative { -v } else { v };
            if fmt == FloatFormat::F32 {
                Ok(v.to_bits() as u64)
            } else {
                narrow_f32(v, fmt).ok_or(NumError::Range)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values come from spirv-as v2025.5.
    #[test]
    fn integers() {
        assert_eq!(parse_int("127", 8, true), Ok(127));
        assert_eq!(parse_int("128", 8, true), Err(NumError::Range));
        assert_eq!(parse_int("-128", 8, true).map(|v| v as u32), Ok(0xffff_ff80));
        assert_eq!(parse_int("0xff", 8, true).map(|v| v as u32), Ok(0xffff_ffff));
        assert_eq!(parse_int("-0x81", 8, true), Err(NumError::Range));
        assert_eq!(parse_int("010", 8, true), Ok(8));
        assert_eq!(parse_int("08", 8, true), Err(NumError::Invalid));
        assert_eq!(parse_int("+5", 8, true), Ok(5));
        assert_eq!(parse_int("-1", 8, false), Err(NumError::Negative));
        assert_eq!(parse_int("0x", 32, false), Err(NumError::Invalid));
        assert_eq!(parse_int("0xffffffffffffffff", 64, true), Ok(u64::MAX));
        assert_eq!(parse_int("9223372036854775808", 64, true), Err(NumError::Range));
        assert_eq!(parse_int("18446744073709551616", 64, false), Err(NumError::Invalid));
        assert_eq!(parse_int("-9223372036854775808", 64, true), Ok(1 << 63));
    }

    #[test]
    fn floats() {
        let f = |s, fm| parse_float(s, fm);
        assert_eq!(f("1", FloatFormat::F32), Ok(0x3f80_0000));
        assert_eq!(f("-0", FloatFormat::F32), Ok(0x8000_0000));
        assert_eq!(f(".5", FloatFormat::F32), Ok(0x3f00_0000));
        assert_eq!(f("1.", FloatFormat::F32), Ok(0x3f80_0000));
        assert_eq!(f("1e", FloatFormat::F32), Err(NumError::Invalid));
        assert_eq!(f("0x1", FloatFormat::F32), Err(NumError::Invalid));
        assert_eq!(f("0x1P0", FloatFormat::F32), Err(NumError::Invalid));
        assert_eq!(f("0x1.8p3", FloatFormat::F32), Ok(0x4140_0000));
        assert_eq!(f("-0x1p+128", FloatFormat::F32), Ok(0xff80_0000));
        assert_eq!(f("0x1.8p+128", FloatFormat::F32), Ok(0x7fc0_0000));
        assert_eq!(f("0x1p+129", FloatFormat::F32), Ok(0x7f80_0000));
        assert_eq!(f("1e39", FloatFormat::F32), Err(NumError::Range));
        assert_eq!(f("1e-50", FloatFormat::F32), Ok(0));
        assert_eq!(f("inf", FloatFormat::F32), Err(NumError::Invalid));
        assert_eq!(f("0x1p-149", FloatFormat::F32), Ok(1));
        assert_eq!(f("0x1p-127", FloatFormat::F32), Ok(0x40_0000));
        assert_eq!(f("-+1", FloatFormat::F32), Err(NumError::Invalid));
        assert_eq!(f("+1", FloatFormat::F32), Ok(0x3f80_0000));
        assert_eq!(f("0x.8p1", FloatFormat::F32), Ok(0x3f80_0000));
        assert_eq!(f("0.1", FloatFormat::F16), Ok(0x2e66));
        assert_eq!(f("65520", FloatFormat::F16), Ok(0x7bff));
        assert_eq!(f("70000", FloatFormat::F16), Err(NumError::Range));
        assert_eq!(f("6e-8", FloatFormat::F16), Ok(1));
        assert_eq!(f("5.96e-8", FloatFormat::F16), Ok(0));
        assert_eq!(f("0x1.8p+16", FloatFormat::F16), Ok(0x7e00));
        assert_eq!(f("-0x1p+16", FloatFormat::F16), Ok(0xfc00));
        assert_eq!(f("0x1.004p0", FloatFormat::F16), Ok(0x3c01));
        assert_eq!(f("0x1.8p-24", FloatFormat::F16), Ok(1));
        assert_eq!(f("0.3333333", FloatFormat::F16), Ok(0x3555));
        assert_eq!(f("0.1", FloatFormat::F64), Ok(0x3fb9_9999_9999_999a));
        assert_eq!(f("0x1.8p+1024", FloatFormat::F64), Ok(0x7ff8_0000_0000_0000));
        assert_eq!(f("2.5e-324", FloatFormat::F64), Ok(1));
        assert_eq!(f("0.1", FloatFormat::BF16), Ok(0x3dcc));
        assert_eq!(f("1e-40", FloatFormat::BF16), Ok(1));
        assert_eq!(f("0x1.8p+128", FloatFormat::BF16), Ok(0x7fc0));
        assert_eq!(f("0.1", FloatFormat::E4M3), Ok(0x1c));
        assert_eq!(f("448", FloatFormat::E4M3), Ok(0x7e));
        assert_eq!(f("464", FloatFormat::E4M3), Err(NumError::Range));
        assert_eq!(f("0x1.8p+16", FloatFormat::E4M3), Ok(0x78));
        assert_eq!(f("0x1p-9", FloatFormat::E4M3), Ok(1));
        assert_eq!(f("61440", FloatFormat::E5M2), Ok(0x7b));
        assert_eq!(f("1e6", FloatFormat::E5M2), Err(NumError::Range));
        assert_eq!(f("0x1.8p+16", FloatFormat::E5M2), Ok(0x7e));
        assert_eq!(f("1e-3", FloatFormat::E5M2), Ok(0x14));
    }
}
