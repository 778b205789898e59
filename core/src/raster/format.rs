//! Colour attachment formats and the spec's conversions ("Conversion from
//! Floating-Point to Normalized Fixed-Point" and back): UNORM clamps to
//! [0, 1] (NaN to 0), scales by `2^b - 1` and rounds to nearest; reading
//! back divides by `2^b - 1`. Float formats store the `f32` as it is.
//! Integer formats store the component's value, which the `f32` of an RGBA
//! holds exactly up to 2^24 (the shader's integer output converted, the
//! clear colour truncated); blending does not apply to them.

use alloc::vec;
use alloc::vec::Vec;

/// The colour attachment formats the corpus draws into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorFormat {
    B8G8R8A8Unorm,
    R8G8B8A8Unorm,
    R32G32B32A32Sfloat,
    R32Sfloat,
    R32G32B32A32Sint,
    R32G32B32A32Uint,
    R32Sint,
    R32Uint,
}

/// A float in [0, 1] (clamped; NaN is 0) to a `bits`-bit UNORM value (1
/// to 32 bits), rounded to nearest, ties to even: Vulkan's conversion to
/// normalized fixed point, the one that attachments, depth buffers and the
/// interpreter's image texels all use.
pub fn unorm_of(c: f64, bits: u32) -> u64 {
    let max = ((1u64 << bits) - 1) as f64;
    let c = if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) };
    libm::rint(c * max) as u64
}

/// [`unorm_of`] of an `f32`.
pub fn float_to_unorm(c: f32, bits: u32) -> u32 {
    unorm_of(c as f64, bits) as u32
}

/// A `bits`-bit UNORM value to `f32`.
pub fn unorm_to_float(v: u32, bits: u32) -> f32 {
    (v as f64 / ((1u64 << bits) - 1) as f64) as f32
}

impl ColorFormat {
    /// The format named as in Vulkan and Amber (`B8G8R8A8_UNORM`, with or
    /// without the `VK_FORMAT_` prefix).
    pub fn from_name(name: &str) -> Option<ColorFormat> {
        Some(match name.strip_prefix("VK_FORMAT_").unwrap_or(name) {
            "B8G8R8A8_UNORM" => ColorFormat::B8G8R8A8Unorm,
            "R8G8B8A8_UNORM" => ColorFormat::R8G8B8A8Unorm,
            "R32G32B32A32_SFLOAT" => ColorFormat::R32G32B32A32Sfloat,
            "R32_SFLOAT" => ColorFormat::R32Sfloat,
            "R32G32B32A32_SINT" => ColorFormat::R32G32B32A32Sint,
            "R32G32B32A32_UINT" => ColorFormat::R32G32B32A32Uint,
            "R32_SINT" => ColorFormat::R32Sint,
            "R32_UINT" => ColorFormat::R32Uint,
            _ => return None,
        })
    }

    /// The format's Vulkan name (`B8G8R8A8_UNORM`), as [`from_name`](Self::from_name) reads it.
    pub fn name(self) -> &'static str {
        match self {
            ColorFormat::B8G8R8A8Unorm => "B8G8R8A8_UNORM",
            ColorFormat::R8G8B8A8Unorm => "R8G8B8A8_UNORM",
            ColorFormat::R32G32B32A32Sfloat => "R32G32B32A32_SFLOAT",
            ColorFormat::R32Sfloat => "R32_SFLOAT",
            ColorFormat::R32G32B32A32Sint => "R32G32B32A32_SINT",
            ColorFormat::R32G32B32A32Uint => "R32G32B32A32_UINT",
            ColorFormat::R32Sint => "R32_SINT",
            ColorFormat::R32Uint => "R32_UINT",
        }
    }

    pub fn texel_bytes(self) -> usize {
        4 * match self {
            ColorFormat::B8G8R8A8Unorm | ColorFormat::R8G8B8A8Unorm => 1,
            _ => self.components(),
        }
    }

    /// Whether the format holds integers (signed or not).
    pub fn is_integer(self) -> bool {
        self.signed().is_some()
    }

    /// For an integer format, whether it is signed; `None` otherwise.
    pub fn signed(self) -> Option<bool> {
        match self {
            ColorFormat::R32G32B32A32Sint | ColorFormat::R32Sint => Some(true),
            ColorFormat::R32G32B32A32Uint | ColorFormat::R32Uint => Some(false),
            _ => None,
        }
    }

    /// Whether the format is normalized fixed point (blending clamps its
    /// inputs to [0, 1]).
    pub fn is_unorm(self) -> bool {
        matches!(
            self,
            ColorFormat::B8G8R8A8Unorm | ColorFormat::R8G8B8A8Unorm
        )
    }

    /// Components the format stores, in RGBA order of the shader's output.
    pub fn components(self) -> usize {
        match self {
            ColorFormat::R32Sfloat | ColorFormat::R32Sint | ColorFormat::R32Uint => 1,
            _ => 4,
        }
    }

    /// The RGBA component each byte of an 8-bit texel holds.
    fn byte_order(self) -> [usize; 4] {
        match self {
            ColorFormat::B8G8R8A8Unorm => [2, 1, 0, 3],
            _ => [0, 1, 2, 3],
        }
    }

    /// RGBA to a texel; `out` has [`texel_bytes`](Self::texel_bytes) bytes.
    pub fn encode(self, rgba: [f32; 4], out: &mut [u8]) {
        match self {
            ColorFormat::B8G8R8A8Unorm | ColorFormat::R8G8B8A8Unorm => {
                for (o, &c) in out.iter_mut().zip(&self.byte_order()) {
                    *o = float_to_unorm(rgba[c], 8) as u8;
                }
            }
            _ => {
                let signed = self.signed();
                for (o, &c) in out.chunks_exact_mut(4).zip(&rgba[..self.components()]) {
                    let word = match signed {
                        None => c.to_bits(),
                        Some(true) => c as i32 as u32,
                        Some(false) => c as u32,
                    };
                    o.copy_from_slice(&word.to_le_bytes());
                }
            }
        }
    }

    /// A texel to RGBA; components the format lacks read as 0, alpha as 1.
    pub fn decode(self, texel: &[u8]) -> [f32; 4] {
        let mut rgba = [0.0, 0.0, 0.0, 1.0];
        match self {
            ColorFormat::B8G8R8A8Unorm | ColorFormat::R8G8B8A8Unorm => {
                for (&b, &c) in texel.iter().zip(&self.byte_order()) {
                    rgba[c] = unorm_to_float(b as u32, 8);
                }
            }
            _ => {
                let signed = self.signed();
                for (c, b) in rgba
                    .iter_mut()
                    .zip(texel.chunks_exact(4))
                    .take(self.components())
                {
                    let word = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    *c = match signed {
                        None => f32::from_bits(word),
                        Some(true) => word as i32 as f32,
                        Some(false) => word as f32,
                    };
                }
            }
        }
        rgba
    }
}

/// A colour attachment: `width * height` texels, row by row, tightly packed
/// (the layout Amber reads back).
#[derive(Clone, Debug, PartialEq)]
pub struct ColorAttachment {
    pub format: ColorFormat,
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl ColorAttachment {
    /// Cleared to `clear` (Amber's default clear colour is 0, 0, 0, 0);
    /// `None` when its size in bytes does not fit a `usize` (callers bound
    /// framebuffer sizes well below that).
    pub fn new(format: ColorFormat, width: u32, height: u32, clear: [f32; 4]) -> Option<ColorAttachment> {
        let bytes = (width as usize).checked_mul(height as usize)?.checked_mul(format.texel_bytes())?;
        let mut a = ColorAttachment { format, width, height, data: vec![0; bytes] };
        a.clear(clear);
        Some(a)
    }

    pub fn clear(&mut self, rgba: [f32; 4]) {
        let size = self.format.texel_bytes();
        let mut texel = [0u8; 16];
        self.format.encode(rgba, &mut texel[..size]);
        for t in self.data.chunks_exact_mut(size) {
            t.copy_from_slice(&texel[..size]);
        }
    }

    fn range(&self, x: u32, y: u32) -> Option<core::ops::Range<usize>> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let size = self.format.texel_bytes();
        let at = (y as usize * self.width as usize + x as usize) * size;
        Some(at..at + size)
    }

    /// The texel at `(x, y)` as RGBA, or `None` outside.
    pub fn read(&self, x: u32, y: u32) -> Option<[f32; 4]> {
        self.range(x, y).map(|r| self.format.decode(&self.data[r]))
    }

    /// The attachment as 8-bit RGBA rows, R first (a float format clamped to
    /// [0, 1] and rounded, as a UNORM store would): what an image file or a
    /// canvas shows of it.
    pub fn rgba8(&self) -> Vec<u8> {
        let size = self.format.texel_bytes();
        let mut out = Vec::with_capacity(self.data.len() / size * 4);
        for t in self.data.chunks_exact(size) {
            out.extend(self.format.decode(t).map(|v| float_to_unorm(v, 8) as u8));
        }
        out
    }

    /// Writes RGBA at `(x, y)`; nothing outside.
    pub fn write(&mut self, x: u32, y: u32, rgba: [f32; 4]) {
        if let Some(r) = self.range(x, y) {
            self.format.encode(rgba, &mut self.data[r]);
        }
    }
}
