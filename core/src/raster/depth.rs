//! The depth test and depth write ("Depth Test"), with the depth formats'
//! conversions: D16_UNORM and the depth of D24_UNORM_S8_UINT are UNORM
//! (clamp, scale by `2^b - 1`, round to nearest); D32_SFLOAT keeps the
//! `f32`, clamped to [0, 1] (without VK_EXT_depth_range_unrestricted the
//! depth written is in [0, 1]). The incoming `z_f` is converted to the
//! format before it is compared, as the spec says.

use alloc::vec;
use alloc::vec::Vec;

use super::format::{float_to_unorm, unorm_to_float};
use super::DepthSlope;

/// `VkCompareOp`: `passes(reference, stored)` with the incoming depth as
/// the reference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CompareOp {
    Never,
    #[default]
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

impl CompareOp {
    /// The op named as in Vulkan and Amber (`LESS_OR_EQUAL`, with or
    /// without `VK_COMPARE_OP_`).
    pub fn from_name(name: &str) -> Option<CompareOp> {
        Some(match name.strip_prefix("VK_COMPARE_OP_").unwrap_or(name) {
            "NEVER" => CompareOp::Never,
            "LESS" => CompareOp::Less,
            "EQUAL" => CompareOp::Equal,
            "LESS_OR_EQUAL" => CompareOp::LessOrEqual,
            "GREATER" => CompareOp::Greater,
            "NOT_EQUAL" => CompareOp::NotEqual,
            "GREATER_OR_EQUAL" => CompareOp::GreaterOrEqual,
            "ALWAYS" => CompareOp::Always,
            _ => return None,
        })
    }

    /// Whether `reference OP stored` holds.
    pub fn passes<T: PartialOrd>(self, reference: T, stored: T) -> bool {
        match self {
            CompareOp::Never => false,
            CompareOp::Less => reference < stored,
            CompareOp::Equal => reference == stored,
            CompareOp::LessOrEqual => reference <= stored,
            CompareOp::Greater => reference > stored,
            CompareOp::NotEqual => reference != stored,
            CompareOp::GreaterOrEqual => reference >= stored,
            CompareOp::Always => true,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthFormat {
    D16Unorm,
    D24UnormS8Uint,
    D32Sfloat,
}

impl DepthFormat {
    pub fn from_name(name: &str) -> Option<DepthFormat> {
        Some(match name.strip_prefix("VK_FORMAT_").unwrap_or(name) {
            "D16_UNORM" => DepthFormat::D16Unorm,
            "D24_UNORM_S8_UINT" => DepthFormat::D24UnormS8Uint,
            "D32_SFLOAT" => DepthFormat::D32Sfloat,
            _ => return None,
        })
    }

    /// Bytes of a texel's depth as read back (D24's is the low 24 bits of
    /// a 32-bit word).
    pub fn texel_bytes(self) -> usize {
        match self {
            DepthFormat::D16Unorm => 2,
            DepthFormat::D24UnormS8Uint | DepthFormat::D32Sfloat => 4,
        }
    }

    /// `z` in the format: UNORM bits, or the `f32`'s bits.
    pub fn encode(self, z: f32) -> u32 {
        match self {
            DepthFormat::D16Unorm => float_to_unorm(z, 16),
            DepthFormat::D24UnormS8Uint => float_to_unorm(z, 24),
            DepthFormat::D32Sfloat => {
                let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
                z.to_bits()
            }
        }
    }

    /// A stored value back to depth.
    pub fn decode(self, bits: u32) -> f32 {
        match self {
            DepthFormat::D16Unorm => unorm_to_float(bits & 0xffff, 16),
            DepthFormat::D24UnormS8Uint => unorm_to_float(bits & 0xff_ffff, 24),
            DepthFormat::D32Sfloat => f32::from_bits(bits),
        }
    }

    /// Whether incoming depth `z` passes `op` against the stored `bits`:
    /// UNORM formats compare the converted integers, D32 the floats.
    pub fn passes(self, op: CompareOp, z: f32, stored: u32) -> bool {
        let incoming = self.encode(z);
        match self {
            DepthFormat::D32Sfloat => op.passes(f32::from_bits(incoming), f32::from_bits(stored)),
            _ => op.passes(incoming, stored),
        }
    }
}

/// A depth attachment, one stored value a pixel (in [`DepthFormat::encode`]
/// form), row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthBuffer {
    pub format: DepthFormat,
    pub width: u32,
    pub height: u32,
    pub values: Vec<u32>,
}

/// `VkPipelineRasterizationStateCreateInfo`'s depth bias (Amber's `BIAS
/// constant C clamp L slope S`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DepthBias {
    pub constant: f32,
    pub clamp: f32,
    pub slope: f32,
}

impl DepthBias {
    /// The offset `o = m * slope + r * constant` added to a polygon's
    /// fragments' depth, clamped by `clamp` (an upper bound when positive, a
    /// lower one when negative, none when 0). `r` is the format's minimum
    /// resolvable difference: `1 / (2^n - 1)` for an n-bit UNORM depth (the
    /// spec allows up to `2 * 2^-n`; this is lavapipe's value), and
    /// `2^(e - 23)` for D32_SFLOAT with `e` the exponent of the primitive's
    /// largest depth.
    pub fn offset(&self, format: DepthFormat, polygon: DepthSlope) -> f32 {
        let r = match format {
            DepthFormat::D16Unorm => 1.0 / 65535.0,
            DepthFormat::D24UnormS8Uint => 1.0 / 16_777_215.0,
            DepthFormat::D32Sfloat => {
                let (_, e) = libm::frexpf(polygon.max_depth);
                // frexp's mantissa is in [0.5, 1): the exponent of z is e - 1.
                libm::ldexpf(1.0, e - 1 - 23)
            }
        };
        let o = polygon.max_slope * self.slope + r * self.constant;
        if self.clamp > 0.0 {
            o.min(self.clamp)
        } else if self.clamp < 0.0 {
            o.max(self.clamp)
        } else {
            o
        }
    }
}

/// `VkPipelineDepthStencilStateCreateInfo`'s depth part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthState {
    pub test: bool,
    pub write: bool,
    pub op: CompareOp,
}

impl DepthBuffer {
    /// Cleared to `clear` (Amber's default depth clear is 1.0).
    /// `None` when its size does not fit a `usize`.
    pub fn new(format: DepthFormat, width: u32, height: u32, clear: f32) -> Option<DepthBuffer> {
        let n = (width as usize).checked_mul(height as usize)?;
        n.checked_mul(4)?;
        Some(DepthBuffer { format, width, height, values: vec![format.encode(clear); n] })
    }

    pub fn clear(&mut self, z: f32) {
        let v = self.format.encode(z);
        self.values.fill(v);
    }

    fn index(&self, x: u32, y: u32) -> Option<usize> {
        (x < self.width && y < self.height).then(|| y as usize * self.width as usize + x as usize)
    }

    /// The stored depth at `(x, y)`.
    pub fn read(&self, x: u32, y: u32) -> Option<f32> {
        self.index(x, y).map(|i| self.format.decode(self.values[i]))
    }

    /// The depth test for a fragment at `(x, y)` with depth `z`, and the
    /// write when it passes and writes are on. A disabled test passes and
    /// writes nothing (the spec: depth writes happen only with the test
    /// enabled). A pixel outside the buffer fails.
    pub fn test(&mut self, state: DepthState, x: u32, y: u32, z: f32) -> bool {
        if !state.test {
            return true;
        }
        let Some(i) = self.index(x, y) else {
            return false;
        };
        let pass = self.format.passes(state.op, z, self.values[i]);
        if pass && state.write {
            self.values[i] = self.format.encode(z);
        }
        pass
    }

    /// The depth as Vulkan copies it to a buffer: D16 2 bytes, D24 the low
    /// 24 bits of a little-endian word (the rest 0), D32 the `f32`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let size = self.format.texel_bytes();
        let mut out = Vec::with_capacity(self.values.len() * size);
        for &v in &self.values {
            out.extend_from_slice(&v.to_le_bytes()[..size]);
        }
        out
    }
}
