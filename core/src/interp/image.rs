//! Images, texel buffers, samplers and arrays of descriptors.
//!
//! An image (or texel buffer) is bytes in [`Buffers`](super::Buffers), as
//! any buffer, described by an [`Image`] in [`Options::images`]: its Vulkan
//! format, its size and its sample count. Texels lie x fastest, then y, then
//! z (or the array layer), then the sample: texel (x, y, z) of sample s is at
//! `((s * depth + z) * height + y) * width + x` times the texel's size, so
//! sample 0 is the image as Amber lays out a single-sample image. One mip
//! level.
//!
//! Reads convert each component by the Vulkan rules (UNORM c / (2^b - 1),
//! SNORM max(c / (2^(b-1) - 1), -1), the unsigned 10- and 11-bit floats, IEEE
//! floats, integers sign- or zero-extended) and fill the missing ones with
//! (0, 0, 0, 1); writes convert back (floats to UNORM and SNORM clamped and
//! rounded to nearest even, negative values to 0 in an unsigned float,
//! integers truncated to the component's width).
//!
//! Out-of-range coordinates and sample indices: the Vulkan specification's
//! "Texel Output Validation" says that a write to a texel that fails
//! integer texel coordinate validation (a coordinate outside the image, a
//! sample index not below the sample count) has no effect, so a write there
//! is dropped, as the corpus's `invalidsampleindex` tests expect. A read of
//! such a texel returns an undefined value unless the device has robust image
//! access, and an atomic on one is undefined too: both are errors here, never
//! a made-up value.
//!
//! A variable whose type is an array of Block structs, of images or of
//! samplers is an array of descriptors: [`Options::descriptor_arrays`] names
//! the buffer of each element (element 0 defaults to the (set, binding)
//! itself).

use super::mem::BufKey;
use super::num::{f64_to_half, half_to_f64};
use super::mem::Loc;
use super::num::{mask, sext};
use super::Options;
use crate::grammar::{self, OperandKind};
use crate::ir::{Ir, Type};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// How a format's components hold numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumKind {
    Unorm,
    Snorm,
    Uint,
    Sint,
    Sfloat,
    Ufloat,
}

/// A Vulkan texel format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    pub kind: NumKind,
    /// The components from the texel's lowest bit up: (channel: 0 R, 1 G,
    /// 2 B, 3 A; width in bits).
    pub comps: Vec<(u8, u8)>,
}

impl Format {
    /// A Vulkan format by name: `R8G8B8A8_UNORM`, `R32_SINT`,
    /// `B10G11R11_UFLOAT_PACK32`, ... (R, G, B and A components; UNORM,
    /// SNORM, UINT, SINT, SFLOAT and UFLOAT).
    pub fn parse(name: &str) -> Option<Format> {
        let (chans, rest) = name.split_once('_')?;
        let (kind, packed) = match rest.split_once('_') {
            Some((k, p)) if p.starts_with("PACK") => (k, true),
            Some(_) => return None,
            None => (rest, false),
        };
        let kind = match kind {
            "UNORM" => NumKind::Unorm,
            "SNORM" => NumKind::Snorm,
            "UINT" => NumKind::Uint,
            "SINT" => NumKind::Sint,
            "SFLOAT" => NumKind::Sfloat,
            "UFLOAT" => NumKind::Ufloat,
            _ => return None,
        };
        let mut comps = Vec::new();
        let mut s = chans;
        while let Some(c) = s.chars().next() {
            let ch = "RGBA".find(c)? as u8;
            s = &s[1..];
            let n = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            let bits: u8 = s[..n].parse().ok()?;
            if bits == 0 || bits > 64 {
                return None;
            }
            s = &s[n..];
            comps.push((ch, bits));
        }
        if comps.is_empty() {
            return None;
        }
        // A packed format names its components from the most significant
        // bit down; the others lie in memory in the name's order.
        if packed {
            comps.reverse();
        } else if comps.iter().any(|c| c.1 % 8 != 0) {
            return None;
        }
        let f = Format { kind, comps };
        let ok = f.comps.iter().all(|&(_, b)| match kind {
            NumKind::Sfloat => matches!(b, 16 | 32 | 64),
            NumKind::Ufloat => matches!(b, 10 | 11),
            _ => true,
        });
        (ok && f.bits().is_multiple_of(8)).then_some(f)
    }

    /// The format an OpTypeImage's Image Format operand names, or `None`
    /// (Unknown, or one the interpreter does not know).
    pub fn from_spirv(f: u32) -> Option<Format> {
        let e = OperandKind::ImageFormat.enumerant(f)?.name;
        let name = match e {
            "R11fG11fB10f" => String::from("B10G11R11_UFLOAT_PACK32"),
            "Rgb10A2" => String::from("A2B10G10R10_UNORM_PACK32"),
            "Rgb10a2ui" => String::from("A2B10G10R10_UINT_PACK32"),
            _ => {
                let lower = e.to_ascii_lowercase();
                let chans = ["rgba", "rg", "r"]
                    .into_iter()
                    .find(|c| lower.starts_with(c))?;
                let rest = &lower[chans.len()..];
                let n = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                let bits = &rest[..n];
                let kind = match &rest[n..] {
                    "f" => "SFLOAT",
                    "i" => "SINT",
                    "ui" => "UINT",
                    "" => "UNORM",
                    "snorm" => "SNORM",
                    _ => return None,
                };
                let mut s = String::new();
                for c in chans.chars() {
                    s.push(c.to_ascii_uppercase());
                    s.push_str(bits);
                }
                format!("{s}_{kind}")
            }
        };
        Format::parse(&name)
    }

    fn bits(&self) -> u32 {
        self.comps.iter().map(|c| c.1 as u32).sum()
    }

    /// The size of a texel in bytes.
    pub fn texel_bytes(&self) -> usize {
        self.bits() as usize / 8
    }

    fn is_int(&self) -> bool {
        matches!(self.kind, NumKind::Uint | NumKind::Sint)
    }
}

/// An image bound to a descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub format: Format,
    /// Width, height and depth (or array layers); for a texel buffer, 0 as
    /// the width: as many texels as its bytes hold.
    pub size: [u32; 3],
    pub samples: u32,
}

/// How a sampler wraps a coordinate outside the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Address {
    ClampToEdge,
    Repeat,
    MirroredRepeat,
    /// Anything else (clamp to border, mirror clamp to edge): not supported.
    Other,
}

/// A sampler's state, as far as the interpreter samples: nearest filtering
/// only (`linear` is "not supported" when sampled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampler {
    pub linear: bool,
    pub address: [Address; 3],
    pub normalized: bool,
}

/// A component as the shader sees it: a float, or an integer's bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Comp {
    F(f64),
    I(u64),
}

fn get_bits(bytes: &[u8], off: u32, n: u32) -> u64 {
    // Whole bytes (every format but the packed ones): byte by byte.
    if off % 8 == 0 && n % 8 == 0 && n <= 64 {
        let first = (off / 8) as usize;
        let mut v = 0u64;
        for (k, b) in bytes[first..first + (n / 8) as usize].iter().enumerate() {
            v |= (*b as u64) << (8 * k);
        }
        return v;
    }
    let mut v: u128 = 0;
    let first = (off / 8) as usize;
    let last = ((off + n).div_ceil(8)) as usize;
    for (k, b) in bytes[first..last].iter().enumerate() {
        v |= (*b as u128) << (8 * k);
    }
    (v >> (off % 8)) as u64 & mask(u64::MAX, n)
}

fn put_bits(bytes: &mut [u8], off: u32, n: u32, x: u64) {
    // Whole bytes: byte by byte (the same bits as the loop below).
    if off % 8 == 0 && n % 8 == 0 && n <= 64 {
        let first = (off / 8) as usize;
        for (k, b) in bytes[first..first + (n / 8) as usize].iter_mut().enumerate() {
            *b = (x >> (8 * k)) as u8;
        }
        return;
    }
    // The bytes the bits lie in (at most nine) as one number: the bits
    // replaced, the others kept.
    let first = (off / 8) as usize;
    let last = ((off + n).div_ceil(8)) as usize;
    let mut v: u128 = 0;
    for (k, b) in bytes[first..last].iter().enumerate() {
        v |= (*b as u128) << (8 * k);
    }
    let m = (mask(u64::MAX, n) as u128) << (off % 8);
    v = (v & !m) | (((x as u128) << (off % 8)) & m);
    for (k, b) in bytes[first..last].iter_mut().enumerate() {
        *b = (v >> (8 * k)) as u8;
    }
}

/// An unsigned float of `bits` (10 or 11: 5 exponent bits, bias 15) to f64.
pub(crate) fn ufloat_get(v: u64, bits: u32) -> f64 {
    let m_bits = bits - 5;
    let (e, m) = ((v >> m_bits) as i32, (v & ((1 << m_bits) - 1)) as f64);
    let scale = (1u64 << m_bits) as f64;
    match e {
        0 => m / scale * libm::exp2(-14.0),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / scale) * libm::exp2((e - 15) as f64),
    }
}

/// An f64 to an unsigned float of `bits`, rounded to nearest even; negative
/// values (and -0) become 0, NaN a NaN, values past the largest finite one
/// infinity.
pub(crate) fn ufloat_put(x: f64, bits: u32) -> u64 {
    let m_bits = bits - 5;
    let inf = 31u64 << m_bits;
    if x.is_nan() {
        return inf | 1;
    }
    if x <= 0.0 {
        return 0;
    }
    if x.is_infinite() {
        return inf;
    }
    let (_, k) = libm::frexp(x);
    let e = k - 1; // x = 1.f * 2^e
    let v = if e < -14 {
        rint(x * libm::exp2((14 + m_bits as i32) as f64)) as u64
    } else {
        let m = rint((x / libm::exp2(e as f64) - 1.0) * (1u64 << m_bits) as f64) as u64;
        (((e + 15) as u64) << m_bits) + m
    };
    v.min(inf)
}

/// `x` rounded to an integer, ties to even, as `libm::rint` but only where
/// the result is then converted to an integer (a zero's sign may differ):
/// below 2^52 in magnitude, adding and subtracting 2^52 rounds by the
/// current (nearest even) mode; from 2^52 up every float is an integer.
#[inline]
fn rint(x: f64) -> f64 {
    const TWO52: f64 = 4503599627370496.0;
    if x.abs() < TWO52 {
        if x >= 0.0 {
            (x + TWO52) - TWO52
        } else {
            (x - TWO52) + TWO52
        }
    } else {
        x
    }
}

/// Component `bits` of kind `kind` to the shader's value.
#[inline]
pub(crate) fn decode(kind: NumKind, v: u64, bits: u32) -> Comp {
    let b = bits;
    match kind {
        NumKind::Unorm => Comp::F(v as f64 / (mask(u64::MAX, b) as f64)),
        NumKind::Snorm => Comp::F((sext(v, b) as f64 / mask(u64::MAX, b - 1) as f64).max(-1.0)),
        NumKind::Uint => Comp::I(v),
        NumKind::Sint => Comp::I(sext(v, b) as u64),
        NumKind::Sfloat => Comp::F(match b {
            16 => half_to_f64(v as u16),
            32 => f32::from_bits(v as u32) as f64,
            _ => f64::from_bits(v),
        }),
        NumKind::Ufloat => Comp::F(ufloat_get(v, b)),
    }
}

/// The shader's value to component bits of kind `kind`.
#[inline]
pub(crate) fn encode(kind: NumKind, c: Comp, bits: u32) -> u64 {
    let b = bits;
    let f = match c {
        Comp::F(f) => f,
        Comp::I(i) => return mask(i, b),
    };
    match kind {
        NumKind::Unorm => crate::raster::format::unorm_of(f, b),
        NumKind::Snorm => {
            let f = if f.is_nan() { 0.0 } else { f.clamp(-1.0, 1.0) };
            mask(rint(f * mask(u64::MAX, b - 1) as f64) as i64 as u64, b)
        }
        NumKind::Sfloat => match b {
            16 => f64_to_half(f) as u64,
            32 => (f as f32).to_bits() as u64,
            _ => f.to_bits(),
        },
        NumKind::Ufloat => ufloat_put(f, b),
        NumKind::Uint | NumKind::Sint => mask(f as i64 as u64, b),
    }
}

/// The four channels (R, G, B, A) of the texel at the start of `bytes`.
pub(crate) fn read_texel(f: &Format, bytes: &[u8]) -> [Comp; 4] {
    let (zero, one) = if f.is_int() {
        (Comp::I(0), Comp::I(1))
    } else {
        (Comp::F(0.0), Comp::F(1.0))
    };
    let mut out = [zero, zero, zero, one];
    let mut off = 0;
    for &(ch, b) in &f.comps {
        out[ch as usize] = decode(f.kind, get_bits(bytes, off, b as u32), b as u32);
        off += b as u32;
    }
    out
}

/// Write the channels `c` to the texel at the start of `bytes`.
pub(crate) fn write_texel(f: &Format, bytes: &mut [u8], c: &[Comp; 4]) {
    let mut off = 0;
    for &(ch, b) in &f.comps {
        put_bits(
            bytes,
            off,
            b as u32,
            encode(f.kind, c[ch as usize], b as u32),
        );
        off += b as u32;
    }
}

/// An image's description with what each access needs worked out once:
/// the texel's size, the sample count, and the components' layout (at most
/// four of them; a format with more is walked by [`read_texel`] and
/// [`write_texel`]).
#[derive(Clone, Debug)]
pub(super) struct Desc {
    pub img: Image,
    /// The texel's size in bytes.
    pub(crate) tb: usize,
    /// The sample count (at least 1).
    pub(crate) samples: u64,
    /// The components from the lowest bit up: channel and width in bits
    /// (the first `n`), or `n` 0 when there are more than four.
    pub(crate) ch: [u8; 4],
    pub(crate) bits: [u8; 4],
    pub(crate) n: usize,
    /// Every component a whole number of bytes.
    pub(crate) whole: bool,
    pub(crate) int: bool,
    /// A UNORM (SNORM) component's largest value, 2^b - 1 (2^(b-1) - 1).
    pub(crate) scale: [f64; 4],
    /// Every component an 8-bit UNORM (R8G8B8A8_UNORM and the like).
    unorm8: bool,
    /// A combined image sampler's sampler state (the binding's, in
    /// [`Options::samplers`]).
    pub(crate) sampler: Option<Sampler>,
}

impl Desc {
    pub(super) fn new(img: Image) -> Desc {
        let f = &img.format;
        let mut ch = [0u8; 4];
        let mut bits = [0u8; 4];
        let n = if f.comps.len() <= 4 { f.comps.len() } else { 0 };
        let mut scale = [0.0; 4];
        for (k, &(c, b)) in f.comps.iter().take(n).enumerate() {
            ch[k] = c;
            bits[k] = b;
            scale[k] = match f.kind {
                NumKind::Snorm => mask(u64::MAX, b as u32 - 1) as f64,
                _ => mask(u64::MAX, b as u32) as f64,
            };
        }
        Desc {
            tb: f.texel_bytes(),
            samples: img.samples.max(1) as u64,
            whole: f.comps.iter().all(|c| c.1 % 8 == 0),
            int: f.is_int(),
            unorm8: n > 0 && f.kind == NumKind::Unorm && f.comps.iter().all(|c| c.1 == 8),
            ch,
            bits,
            n,
            scale,
            img,
            sampler: None,
        }
    }

    /// [`read_texel`] of the image's format.
    #[inline]
    pub(crate) fn read(&self, bytes: &[u8]) -> [Comp; 4] {
        if self.n == 0 {
            return read_texel(&self.img.format, bytes);
        }
        let kind = self.img.format.kind;
        if self.unorm8 {
            // `decode`'s c / 255 for each byte.
            let mut out = [Comp::F(0.0), Comp::F(0.0), Comp::F(0.0), Comp::F(1.0)];
            for (k, b) in bytes.iter().take(self.n).enumerate() {
                out[self.ch[k] as usize & 3] = Comp::F(*b as f64 / 255.0);
            }
            return out;
        }
        let mut out = if self.int {
            [Comp::I(0), Comp::I(0), Comp::I(0), Comp::I(1)]
        } else {
            [Comp::F(0.0), Comp::F(0.0), Comp::F(0.0), Comp::F(1.0)]
        };
        let mut off = 0u32;
        for k in 0..self.n {
            let b = self.bits[k] as u32;
            let v = if self.whole {
                let at = (off / 8) as usize;
                match b {
                    8 => bytes[at] as u64,
                    16 => u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u64,
                    32 => u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4])) as u64,
                    _ => get_bits(bytes, off, b),
                }
            } else {
                get_bits(bytes, off, b)
            };
            out[self.ch[k] as usize & 3] = match kind {
                // `decode`'s division, by the scale worked out once.
                NumKind::Unorm => Comp::F(v as f64 / self.scale[k]),
                NumKind::Snorm => Comp::F((sext(v, b) as f64 / self.scale[k]).max(-1.0)),
                _ => decode(kind, v, b),
            };
            off += b;
        }
        out
    }

    /// [`write_texel`] of the image's format.
    #[inline]
    pub(crate) fn write(&self, bytes: &mut [u8], c: &[Comp; 4]) {
        if self.n == 0 {
            return write_texel(&self.img.format, bytes, c);
        }
        let kind = self.img.format.kind;
        if self.unorm8 {
            // `encode`'s rounding (an integer's low byte as it is).
            for (k, d) in bytes.iter_mut().take(self.n).enumerate() {
                *d = match c[self.ch[k] as usize & 3] {
                    Comp::F(f) => crate::raster::format::unorm_of(f, 8) as u8,
                    Comp::I(i) => i as u8,
                };
            }
            return;
        }
        let mut off = 0u32;
        for k in 0..self.n {
            let b = self.bits[k] as u32;
            let v = match (kind, c[self.ch[k] as usize & 3]) {
                (NumKind::Unorm, Comp::F(f)) => crate::raster::format::unorm_of(f, b),
                // `encode`'s rounding, by the scale worked out once.
                (NumKind::Snorm, Comp::F(f)) => {
                    let f = if f.is_nan() { 0.0 } else { f.clamp(-1.0, 1.0) };
                    mask(rint(f * self.scale[k]) as i64 as u64, b)
                }
                (kind, x) => encode(kind, x, b),
            };
            let at = (off / 8) as usize;
            match b {
                8 if self.whole => bytes[at] = v as u8,
                32 if self.whole => bytes[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes()),
                _ => put_bits(bytes, off, b, v),
            }
            off += b;
        }
    }
}

/// An array of descriptors, an image or a sampler: the location of variable
/// (`pointee`, `set`, `binding`), or `None` when it is none of these.
pub(super) fn descriptor_loc(
    ir: &Ir,
    opts: &Options,
    pointee: u32,
    key: (u32, u32),
    bufs: &mut Vec<BufKey>,
    images: &mut Vec<Option<Desc>>,
    samplers: &mut Vec<Option<Sampler>>,
) -> Option<Loc> {
    let t = &ir.ty(pointee)?.ty;
    let elem = match t {
        Type::Array { element, .. } | Type::RuntimeArray { element } => Some(*element),
        _ => None,
    };
    let is_desc = |ty: u32| match ir.ty(ty) {
        Some(d) => {
            matches!(
                d.ty,
                Type::Image { .. } | Type::SampledImage { .. } | Type::Sampler
            ) || d.block.is_some()
        }
        None => false,
    };
    let mut one = |ty: u32, key: (u32, u32)| -> Loc {
        let k = BufKey::Binding(key.0, key.1);
        let buf = match bufs.iter().position(|b| *b == k) {
            Some(i) => i,
            None => {
                bufs.push(k);
                bufs.len() - 1
            }
        } as u32;
        let combined = matches!(ir.ty(ty).map(|d| &d.ty), Some(Type::SampledImage { .. }));
        let image_ty = match ir.ty(ty).map(|d| &d.ty) {
            Some(Type::SampledImage { image }) => Some(*image),
            Some(Type::Image { .. }) => Some(ty),
            Some(Type::Sampler) => {
                samplers.push(opts.samplers.get(&key).copied());
                return Loc::Sampler {
                    smp: samplers.len() as u32 - 1,
                };
            }
            _ => None,
        };
        match image_ty {
            None => Loc::Buf {
                buf,
                off: 0,
                vstride: 0,
                mat: None,
            },
            Some(it) => {
                let desc = opts.images.get(&key).cloned().or_else(|| {
                    // No description: the shader's format; a texel buffer's
                    // size from its bytes.
                    match ir.ty(it).map(|d| &d.ty) {
                        Some(Type::Image { dim, format, .. }) if *dim == grammar::dim::Buffer => {
                            Format::from_spirv(*format).map(|format| Image {
                                format,
                                size: [0, 1, 1],
                                samples: 1,
                            })
                        }
                        _ => None,
                    }
                });
                images.push(desc.map(|d| Desc { sampler: if combined { opts.samplers.get(&key).copied() } else { None }, ..Desc::new(d) }));
                Loc::Image {
                    buf,
                    img: images.len() as u32 - 1,
                }
            }
        }
    };
    match elem {
        Some(e) if is_desc(e) => {
            let keys = match opts.descriptor_arrays.get(&key) {
                Some(ks) => ks.clone(),
                None => vec![key],
            };
            Some(Loc::Descs(keys.into_iter().map(|k| one(e, k)).collect()))
        }
        None if matches!(
            t,
            Type::Image { .. } | Type::SampledImage { .. } | Type::Sampler
        ) =>
        {
            let k = opts.aliases.get(&key).copied().unwrap_or(key);
            Some(one(pointee, k))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! Expected values worked out by hand from the Vulkan conversion rules
    //! (Fixed-Point Data Conversion, Unsigned 11- and 10-bit floats) and the
    //! SPIR-V image instructions' definitions.
    use super::*;
    use crate::grammar::op;
    use crate::interp::{Buffers, Options, run};
    use crate::ir::Ir;
    use crate::text::asm::{AsmOptions, assemble};
    use alloc::collections::BTreeMap;

    #[test]
    fn formats_parse() {
        let f = Format::parse("R8G8B8A8_UNORM").unwrap();
        assert_eq!(f.kind, NumKind::Unorm);
        assert_eq!(f.comps, vec![(0, 8), (1, 8), (2, 8), (3, 8)]);
        assert_eq!(f.texel_bytes(), 4);
        // Packed: named from the top bit down, so R is at the bottom.
        let f = Format::parse("B10G11R11_UFLOAT_PACK32").unwrap();
        assert_eq!(f.comps, vec![(0, 11), (1, 11), (2, 10)]);
        assert_eq!(Format::parse("R64_SINT").unwrap().texel_bytes(), 8);
        assert_eq!(Format::parse("R8G8B8A8_SRGB"), None);
        assert_eq!(Format::parse("R12_UINT"), None);
        use crate::grammar::image_format as f;
        assert_eq!(
            Format::from_spirv(f::Rgba8),
            Format::parse("R8G8B8A8_UNORM")
        );
        assert_eq!(
            Format::from_spirv(f::R11fG11fB10f),
            Format::parse("B10G11R11_UFLOAT_PACK32")
        );
        assert_eq!(Format::from_spirv(f::R64i), Format::parse("R64_SINT"));
        assert_eq!(
            Format::from_spirv(f::Rgba32ui),
            Format::parse("R32G32B32A32_UINT")
        );
        assert_eq!(Format::from_spirv(f::Unknown), None);
    }

    #[test]
    fn normalized_conversions() {
        // UNORM: c / (2^b - 1); back: round(f * (2^b - 1)), clamped to [0, 1].
        assert_eq!(decode(NumKind::Unorm, 255, 8), Comp::F(1.0));
        assert_eq!(decode(NumKind::Unorm, 51, 8), Comp::F(0.2));
        assert_eq!(encode(NumKind::Unorm, Comp::F(0.2), 8), 51);
        assert_eq!(encode(NumKind::Unorm, Comp::F(0.5), 8), 128); // 127.5, to even
        assert_eq!(encode(NumKind::Unorm, Comp::F(1.5), 8), 255);
        assert_eq!(encode(NumKind::Unorm, Comp::F(-0.2), 8), 0);
        // SNORM: max(c / (2^(b-1) - 1), -1).
        assert_eq!(decode(NumKind::Snorm, 0x81, 8), Comp::F(-1.0));
        assert_eq!(decode(NumKind::Snorm, 0x80, 8), Comp::F(-1.0));
        assert_eq!(decode(NumKind::Snorm, 127, 8), Comp::F(1.0));
        assert_eq!(encode(NumKind::Snorm, Comp::F(-1.0), 8), 0x81);
        assert_eq!(encode(NumKind::Snorm, Comp::F(0.5), 8), 64); // 63.5, to even
        assert_eq!(encode(NumKind::Snorm, Comp::F(-3.0), 16), 0x8001);
        // Integers: sign-extended on read, truncated on write.
        assert_eq!(decode(NumKind::Sint, 0xff, 8), Comp::I(u64::MAX));
        assert_eq!(encode(NumKind::Sint, Comp::I(u64::MAX), 8), 0xff);
    }

    #[test]
    fn unsigned_float_conversions() {
        // 11 bits: 5 exponent bits (bias 15), 6 mantissa bits.
        assert_eq!(ufloat_put(1.0, 11), 15 << 6);
        assert_eq!(ufloat_get(15 << 6, 11), 1.0);
        // 49 = 1.53125 * 2^5: exponent 20, mantissa 0.53125 * 64 = 34.
        assert_eq!(ufloat_put(49.0, 11), (20 << 6) + 34);
        // 10 bits: 5 mantissa bits, 0.53125 * 32 = 17.
        assert_eq!(ufloat_put(49.0, 10), (20 << 5) + 17);
        assert_eq!(ufloat_get((20 << 5) + 17, 10), 49.0);
        // Negative values become 0.
        assert_eq!(ufloat_put(-3.0, 11), 0);
        assert_eq!(ufloat_put(-0.0, 10), 0);
        // The smallest denormal: 2^-14 * 1/64.
        assert_eq!(ufloat_get(1, 11), libm::exp2(-20.0));
        assert_eq!(ufloat_put(libm::exp2(-20.0), 11), 1);
        assert_eq!(ufloat_put(f64::INFINITY, 11), 31 << 6);
        assert!(ufloat_get(ufloat_put(f64::NAN, 10), 10).is_nan());
        // A texel: R = 1.0 (0x3c0 at bit 0), G = 2.0 (exponent 16:
        // 0x400 at bit 11), B = 0.
        let f = Format::parse("B10G11R11_UFLOAT_PACK32").unwrap();
        let mut t = [0u8; 4];
        write_texel(
            &f,
            &mut t,
            &[Comp::F(1.0), Comp::F(2.0), Comp::F(-1.0), Comp::F(1.0)],
        );
        assert_eq!(u32::from_le_bytes(t), 0x3c0 | 0x400 << 11);
        assert_eq!(
            read_texel(&f, &t),
            [Comp::F(1.0), Comp::F(2.0), Comp::F(0.0), Comp::F(1.0)]
        );
        // Missing channels read as (0, 0, 1).
        let r = Format::parse("R32_SINT").unwrap();
        assert_eq!(
            read_texel(&r, &(-5i32).to_le_bytes()),
            [Comp::I(-5i64 as u64), Comp::I(0), Comp::I(0), Comp::I(1)]
        );
    }

    #[test]
    fn bits_are_put_where_get_bits_reads_them() {
        // Each bit written to its place (bit k of x at bit off + k), the
        // others kept.
        for off in 0..24u32 {
            for n in [1u32, 2, 5, 10, 11, 32, 50] {
                let mut b = [0xa5u8; 12];
                let x = 0x1234_5678_9abc_def1u64 & mask(u64::MAX, n);
                put_bits(&mut b, off, n, x);
                assert_eq!(get_bits(&b, off, n), x, "{off} {n}");
                for bit in (0..off).chain(off + n..96) {
                    let want = (0xa5u8 >> (bit % 8)) & 1;
                    assert_eq!(
                        (b[(bit / 8) as usize] >> (bit % 8)) & 1,
                        want,
                        "{off} {n} {bit}"
                    );
                }
            }
        }
    }

    #[test]
    fn rint_rounds_half_to_even_as_libm() {
        let mut xs = vec![
            0.5,
            1.5,
            2.5,
            -0.5,
            -1.5,
            -2.5,
            127.5,
            128.5,
            254.5,
            0.49999999999999994,
            4503599627370495.5,
            -4503599627370495.5,
            1e17,
            -1e17,
            1.8e19,
        ];
        xs.extend((0..2000).map(|k| (k as f64 - 1000.0) * 0.37));
        for x in xs {
            assert_eq!(rint(x) as i64, libm::rint(x) as i64, "{x}");
            assert_eq!(rint(x) as u64, libm::rint(x) as u64, "{x}");
        }
        assert!(rint(f64::NAN).is_nan());
        assert_eq!(rint(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn the_descriptors_layout_converts_as_the_format() {
        // Desc::read and Desc::write (the layout worked out once) give the
        // bits and values read_texel and write_texel give, whose conversions
        // the tests above check by hand.
        let vals = [
            0.0,
            -0.0,
            0.2,
            0.5,
            1.0 / 255.0,
            0.999,
            1.0,
            1.5,
            -0.5,
            -1.0,
            -3.0,
            1e30,
            f64::NAN,
        ];
        for name in [
            "R8G8B8A8_UNORM",
            "R8G8B8A8_SNORM",
            "B8G8R8A8_UNORM",
            "R16G16_UNORM",
            "R16_SNORM",
            "R32G32B32A32_SFLOAT",
            "R16G16B16A16_SFLOAT",
            "B10G11R11_UFLOAT_PACK32",
            "A2B10G10R10_UNORM_PACK32",
            "R32_SINT",
            "R8G8_UINT",
            "R64_UINT",
        ] {
            let f = Format::parse(name).unwrap();
            let d = Desc::new(Image {
                format: f.clone(),
                size: [1, 1, 1],
                samples: 1,
            });
            let tb = f.texel_bytes();
            for (k, v) in vals.iter().enumerate() {
                let c = if f.is_int() {
                    [
                        Comp::I(k as u64 * 77),
                        Comp::I(u64::MAX - k as u64),
                        Comp::I(3),
                        Comp::I(1 << 40),
                    ]
                } else {
                    [
                        Comp::F(*v),
                        Comp::F(vals[(k + 3) % vals.len()]),
                        Comp::F(-*v),
                        Comp::F(0.25),
                    ]
                };
                let (mut a, mut b) = (vec![0x5au8; tb], vec![0x5au8; tb]);
                write_texel(&f, &mut a, &c);
                d.write(&mut b, &c);
                assert_eq!(a, b, "{name} {c:?}");
                let (x, y) = (read_texel(&f, &a), d.read(&a));
                assert_eq!(alloc::format!("{x:?}"), alloc::format!("{y:?}"), "{name}");
            }
        }
    }

    /// A 2D multisample R32_SINT storage image (4 x 2, 2 samples) at binding
    /// 0 and an rgba8 storage image (4 x 2) at binding 1; `body` runs in one
    /// invocation.
    fn image_module(body: &str) -> Ir {
        let text = alloc::format!(
            r#"
               OpCapability Shader
               OpCapability StorageImageMultisample
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %ms DescriptorSet 0
               OpDecorate %ms Binding 0
               OpDecorate %rgba DescriptorSet 0
               OpDecorate %rgba Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %v2int = OpTypeVector %int 2
      %v4int = OpTypeVector %int 4
    %v4float = OpTypeVector %float 4
     %ms_ty = OpTypeImage %int 2D 0 0 1 2 R32i
   %rgba_ty = OpTypeImage %float 2D 0 0 0 2 Rgba8
      %p_ms = OpTypePointer UniformConstant %ms_ty
    %p_rgba = OpTypePointer UniformConstant %rgba_ty
     %p_tex = OpTypePointer Image %int
        %ms = OpVariable %p_ms UniformConstant
      %rgba = OpVariable %p_rgba UniformConstant
         %i0 = OpConstant %int 0
         %i1 = OpConstant %int 1
         %i2 = OpConstant %int 2
         %i3 = OpConstant %int 3
         %i5 = OpConstant %int 5
        %i40 = OpConstant %int 40
        %f0 = OpConstant %float 0
      %f_half = OpConstant %float 0.5
        %f1 = OpConstant %float 1
        %c31 = OpConstantComposite %v2int %i3 %i1
        %c02 = OpConstantComposite %v2int %i0 %i2
        %c01 = OpConstantComposite %v2int %i0 %i1
    %texel = OpConstantComposite %v4int %i40 %i5 %i5 %i5
    %color = OpConstantComposite %v4float %f_half %f0 %f1 %f1
       %main = OpFunction %void None %fn
      %entry = OpLabel
{body}
               OpReturn
               OpFunctionEnd
"#
        );
        let w = assemble(&text, &AsmOptions::default()).expect("assembles");
        Ir::build(crate::binary::read_words(&w).expect("reads"))
    }

    fn opts() -> Options {
        let mut images = BTreeMap::new();
        images.insert(
            (0, 0),
            Image {
                format: Format::parse("R32_SINT").unwrap(),
                size: [4, 2, 1],
                samples: 2,
            },
        );
        images.insert(
            (0, 1),
            Image {
                format: Format::parse("R8G8B8A8_UNORM").unwrap(),
                size: [4, 2, 1],
                samples: 1,
            },
        );
        Options {
            images,
            ..Options::default()
        }
    }

    fn bufs() -> Buffers {
        let mut b = Buffers::new();
        b.insert((0, 0), vec![0u8; 4 * 2 * 4 * 2]);
        b.insert((0, 1), vec![0u8; 4 * 2 * 4]);
        b
    }

    fn i32_at(b: &[u8], texel: usize) -> i32 {
        i32::from_le_bytes(b[4 * texel..4 * texel + 4].try_into().unwrap())
    }

    #[test]
    fn write_read_atomics_and_queries() {
        let ir = image_module(
            r#"
         %im = OpLoad %ms_ty %ms
               OpImageWrite %im %c31 %texel Sample %i1
         %rd = OpImageRead %v4int %im %c31 Sample %i1
         %r0 = OpCompositeExtract %int %rd 0
         %tp = OpImageTexelPointer %p_tex %ms %c31 %i1
        %old = OpAtomicIAdd %int %tp %i1 %i0 %r0
         %sz = OpImageQuerySize %v2int %im
         %sx = OpCompositeExtract %int %sz 0
         %ns = OpImageQuerySamples %int %im
        %tp0 = OpImageTexelPointer %p_tex %ms %c01 %i0
         %xx = OpAtomicIAdd %int %tp0 %i1 %i0 %sx
         %yy = OpAtomicIAdd %int %tp0 %i1 %i0 %ns
        %tp1 = OpImageTexelPointer %p_tex %ms %c01 %i1
         %zz = OpAtomicExchange %int %tp1 %i1 %i0 %old
         %cl = OpLoad %rgba_ty %rgba
               OpImageWrite %cl %c31 %color
"#,
        );
        let mut b = bufs();
        run(&ir, &opts(), &mut b).expect("runs");
        let ms = &b[&(0, 0)];
        // Texel (3, 1) of sample 1: ((1 * 2 + 1) * 4 + 3) = texel 15. The
        // write stores 40 (R only); the atomic adds the 40 it read back.
        assert_eq!(i32_at(ms, 15), 80);
        // (0, 1) of sample 0 is texel 4: the width 4 and then the sample
        // count 2 added.
        assert_eq!(i32_at(ms, 4), 6);
        // (0, 1) of sample 1 is texel 12: exchanged for the 40 read before the add.
        assert_eq!(i32_at(ms, 12), 40);
        // Texel (3, 1) of the rgba8 image (texel 7): 0.5 -> 128, 0, 1 -> 255, 255.
        assert_eq!(&b[&(0, 1)][28..32], &[128, 0, 255, 255]);
    }

    #[test]
    fn out_of_range_writes_are_dropped_and_reads_are_errors() {
        // y = 2 and sample 2 are outside the image: the writes have no effect.
        let ir = image_module(
            r#"
         %im = OpLoad %ms_ty %ms
               OpImageWrite %im %c02 %texel Sample %i0
               OpImageWrite %im %c31 %texel Sample %i2
"#,
        );
        let mut b = bufs();
        run(&ir, &opts(), &mut b).expect("runs");
        assert!(b[&(0, 0)].iter().all(|x| *x == 0));
        for bad in ["%c02 Sample %i0", "%c31 Sample %i2"] {
            let ir = image_module(&alloc::format!(
                "         %im = OpLoad %ms_ty %ms\n         %rd = OpImageRead %v4int %im {bad}\n"
            ));
            let e = run(&ir, &opts(), &mut bufs()).expect_err("an invalid texel");
            assert!(e.message().contains("outside the image"), "{}", e.message());
            // Located at the read (the fast path leaves the error to `exec`).
            let read = (0..ir.len()).find(|&i| ir.opcode(i) == op::OpImageRead);
            assert_eq!(e.inst, read.map(|i| i as u32));
            assert_eq!(e.invocation, Some([0, 0, 0]));
        }
        let ir = image_module("        %tp = OpImageTexelPointer %p_tex %ms %c02 %i0\n");
        let e = run(&ir, &opts(), &mut bufs()).expect_err("an invalid texel");
        assert!(e.message().contains("outside the image"), "{}", e.message());
        let tp = (0..ir.len()).find(|&i| ir.opcode(i) == op::OpImageTexelPointer);
        assert_eq!(e.inst, tp.map(|i| i as u32));
    }

    /// Nearest sampling of a 4 x 2 R32_SINT image whose texel k holds k, at
    /// (u, 0.3) for u = 0.9, 1.2 and -0.1, with `mode` in u: the three
    /// results go to texels 0..3 of a 4 x 1 R32_SINT storage image.
    fn sampled(mode: Address) -> Vec<i32> {
        let text = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %tex DescriptorSet 0
               OpDecorate %tex Binding 0
               OpDecorate %smp DescriptorSet 0
               OpDecorate %smp Binding 1
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 2
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %v2int = OpTypeVector %int 2
      %v4int = OpTypeVector %int 4
    %v2float = OpTypeVector %float 2
     %tex_ty = OpTypeImage %int 2D 0 0 0 1 Unknown
     %smp_ty = OpTypeSampler
      %si_ty = OpTypeSampledImage %tex_ty
     %out_ty = OpTypeImage %int 2D 0 0 0 2 R32i
      %p_tex = OpTypePointer UniformConstant %tex_ty
      %p_smp = OpTypePointer UniformConstant %smp_ty
      %p_out = OpTypePointer UniformConstant %out_ty
        %tex = OpVariable %p_tex UniformConstant
        %smp = OpVariable %p_smp UniformConstant
        %out = OpVariable %p_out UniformConstant
         %i0 = OpConstant %int 0
         %i1 = OpConstant %int 1
         %i2 = OpConstant %int 2
         %f0 = OpConstant %float 0
       %f0_3 = OpConstant %float 0.3
       %f0_9 = OpConstant %float 0.9
       %f1_2 = OpConstant %float 1.2
      %fm0_1 = OpConstant %float -0.1
         %ca = OpConstantComposite %v2float %f0_9 %f0_3
         %cb = OpConstantComposite %v2float %f1_2 %f0_3
         %cc = OpConstantComposite %v2float %fm0_1 %f0_3
         %x0 = OpConstantComposite %v2int %i0 %i0
         %x1 = OpConstantComposite %v2int %i1 %i0
         %x2 = OpConstantComposite %v2int %i2 %i0
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %t = OpLoad %tex_ty %tex
          %s = OpLoad %smp_ty %smp
         %si = OpSampledImage %si_ty %t %s
         %ra = OpImageSampleExplicitLod %v4int %si %ca Lod %f0
         %rb = OpImageSampleExplicitLod %v4int %si %cb Lod %f0
         %rc = OpImageSampleExplicitLod %v4int %si %cc Lod %f0
          %o = OpLoad %out_ty %out
               OpImageWrite %o %x0 %ra
               OpImageWrite %o %x1 %rb
               OpImageWrite %o %x2 %rc
               OpReturn
               OpFunctionEnd
"#;
        let w = assemble(text, &AsmOptions::default()).expect("assembles");
        let ir = Ir::build(crate::binary::read_words(&w).expect("reads"));
        let r32 = || Format::parse("R32_SINT").unwrap();
        let mut o = Options::default();
        o.images.insert(
            (0, 0),
            Image {
                format: r32(),
                size: [4, 2, 1],
                samples: 1,
            },
        );
        o.images.insert(
            (0, 2),
            Image {
                format: r32(),
                size: [4, 1, 1],
                samples: 1,
            },
        );
        o.samplers.insert(
            (0, 1),
            Sampler {
                linear: false,
                address: [mode, Address::ClampToEdge, Address::Repeat],
                normalized: true,
            },
        );
        let mut b = Buffers::new();
        b.insert((0, 0), (0..8i32).flat_map(|k| k.to_le_bytes()).collect());
        b.insert((0, 2), vec![0xffu8; 16]);
        run(&ir, &o, &mut b).expect("runs");
        (0..3).map(|k| i32_at(&b[&(0, 2)], k)).collect()
    }

    #[test]
    fn nearest_sampling_wraps_by_the_address_mode() {
        // v = 0.3 * 2 = 0.6: row 0. u = 0.9 * 4 = 3.6: column 3 in every
        // mode. u = 1.2 * 4 = 4.8: column 4, clamped to 3, repeated to 0,
        // mirrored to 2 * 4 - 1 - 4 = 3. u = -0.1 * 4 = -0.4: column -1,
        // clamped to 0, repeated to 3, mirrored (-1 mod 8 = 7) to 0.
        assert_eq!(sampled(Address::ClampToEdge), vec![3, 3, 0]);
        assert_eq!(sampled(Address::Repeat), vec![3, 0, 3]);
        assert_eq!(sampled(Address::MirroredRepeat), vec![3, 3, 0]);
    }
}
