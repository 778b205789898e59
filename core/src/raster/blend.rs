//! Blending ("Blending", "Blend Factors", "Blend Operations"): the factors
//! and the five basic ops that Amber's `BLEND` block sets, per colour
//! attachment. For a UNORM attachment the source, destination and constant
//! are clamped to [0, 1] first, as the spec says of fixed-point attachments.

use super::format::ColorFormat;

/// `VkBlendFactor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlendFactor {
    Zero,
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    ConstantColor,
    OneMinusConstantColor,
    ConstantAlpha,
    OneMinusConstantAlpha,
    SrcAlphaSaturate,
    Src1Color,
    OneMinusSrc1Color,
    Src1Alpha,
    OneMinusSrc1Alpha,
}

/// `VkBlendOp`, the basic five.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlendOp {
    #[default]
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

impl BlendFactor {
    /// The factor named as in Vulkan and Amber (`ONE_MINUS_SRC_ALPHA`, with
    /// or without `VK_BLEND_FACTOR_`).
    pub fn from_name(name: &str) -> Option<BlendFactor> {
        use BlendFactor::*;
        Some(
            match name.strip_prefix("VK_BLEND_FACTOR_").unwrap_or(name) {
                "ZERO" => Zero,
                "ONE" => One,
                "SRC_COLOR" => SrcColor,
                "ONE_MINUS_SRC_COLOR" => OneMinusSrcColor,
                "DST_COLOR" => DstColor,
                "ONE_MINUS_DST_COLOR" => OneMinusDstColor,
                "SRC_ALPHA" => SrcAlpha,
                "ONE_MINUS_SRC_ALPHA" => OneMinusSrcAlpha,
                "DST_ALPHA" => DstAlpha,
                "ONE_MINUS_DST_ALPHA" => OneMinusDstAlpha,
                "CONSTANT_COLOR" => ConstantColor,
                "ONE_MINUS_CONSTANT_COLOR" => OneMinusConstantColor,
                "CONSTANT_ALPHA" => ConstantAlpha,
                "ONE_MINUS_CONSTANT_ALPHA" => OneMinusConstantAlpha,
                "SRC_ALPHA_SATURATE" => SrcAlphaSaturate,
                "SRC1_COLOR" => Src1Color,
                "ONE_MINUS_SRC1_COLOR" => OneMinusSrc1Color,
                "SRC1_ALPHA" => Src1Alpha,
                "ONE_MINUS_SRC1_ALPHA" => OneMinusSrc1Alpha,
                _ => return None,
            },
        )
    }

    /// The factor for component `c` (0..3 colour, 3 alpha).
    fn value(self, c: usize, inputs: &BlendInputs) -> f32 {
        let BlendInputs {
            src,
            src1,
            dst,
            constant,
        } = inputs;
        use BlendFactor::*;
        match self {
            Zero => 0.0,
            One => 1.0,
            SrcColor => src[c],
            OneMinusSrcColor => 1.0 - src[c],
            DstColor => dst[c],
            OneMinusDstColor => 1.0 - dst[c],
            SrcAlpha => src[3],
            OneMinusSrcAlpha => 1.0 - src[3],
            DstAlpha => dst[3],
            OneMinusDstAlpha => 1.0 - dst[3],
            ConstantColor => constant[c],
            OneMinusConstantColor => 1.0 - constant[c],
            ConstantAlpha => constant[3],
            OneMinusConstantAlpha => 1.0 - constant[3],
            SrcAlphaSaturate if c == 3 => 1.0,
            SrcAlphaSaturate => src[3].min(1.0 - dst[3]),
            Src1Color => src1[c],
            OneMinusSrc1Color => 1.0 - src1[c],
            Src1Alpha => src1[3],
            OneMinusSrc1Alpha => 1.0 - src1[3],
        }
    }
}

impl BlendOp {
    pub fn from_name(name: &str) -> Option<BlendOp> {
        Some(match name.strip_prefix("VK_BLEND_OP_").unwrap_or(name) {
            "ADD" => BlendOp::Add,
            "SUBTRACT" => BlendOp::Subtract,
            "REVERSE_SUBTRACT" => BlendOp::ReverseSubtract,
            "MIN" => BlendOp::Min,
            "MAX" => BlendOp::Max,
            _ => return None,
        })
    }

    /// `s` and `d` are source and destination, `sf` and `df` their factors
    /// (min and max ignore the factors).
    fn apply(self, s: f32, sf: f32, d: f32, df: f32) -> f32 {
        match self {
            BlendOp::Add => s * sf + d * df,
            BlendOp::Subtract => s * sf - d * df,
            BlendOp::ReverseSubtract => d * df - s * sf,
            BlendOp::Min => s.min(d),
            BlendOp::Max => s.max(d),
        }
    }
}

struct BlendInputs {
    src: [f32; 4],
    src1: [f32; 4],
    dst: [f32; 4],
    constant: [f32; 4],
}

/// `VkPipelineColorBlendAttachmentState` (Amber's defaults: blending off,
/// ONE/ZERO/ADD, every component written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendState {
    pub enable: bool,
    pub src_color: BlendFactor,
    pub dst_color: BlendFactor,
    pub color_op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub alpha_op: BlendOp,
    /// Bit `c` set: component `c` (R, G, B, A) is written.
    pub write_mask: u8,
}

impl Default for BlendState {
    fn default() -> BlendState {
        BlendState {
            enable: false,
            src_color: BlendFactor::One,
            dst_color: BlendFactor::Zero,
            color_op: BlendOp::Add,
            src_alpha: BlendFactor::One,
            dst_alpha: BlendFactor::Zero,
            alpha_op: BlendOp::Add,
            write_mask: 0b1111,
        }
    }
}

impl BlendState {
    /// The colour to store for a fragment's output `src` (and its second
    /// output `src1` for the dual-source factors) over `dst`, the
    /// attachment's value, with blend constants `constant`; components the
    /// write mask leaves out keep `dst`'s.
    pub fn blend(
        &self,
        format: ColorFormat,
        src: [f32; 4],
        src1: [f32; 4],
        dst: [f32; 4],
        constant: [f32; 4],
    ) -> [f32; 4] {
        let fix = |v: [f32; 4]| {
            if format.is_unorm() {
                v.map(|c| if c.is_nan() { 0.0 } else { c.clamp(0.0, 1.0) })
            } else {
                v
            }
        };
        let inputs = BlendInputs {
            src: fix(src),
            src1: fix(src1),
            dst: fix(dst),
            constant: fix(constant),
        };
        let mut out = [0.0; 4];
        for c in 0..4 {
            out[c] = if self.write_mask >> c & 1 == 0 {
                dst[c]
            } else if !self.enable || format.is_integer() {
                // Blending does not apply to integer attachments.
                src[c]
            } else {
                let (sf, df, op) = if c < 3 {
                    (self.src_color, self.dst_color, self.color_op)
                } else {
                    (self.src_alpha, self.dst_alpha, self.alpha_op)
                };
                op.apply(
                    inputs.src[c],
                    sf.value(c, &inputs),
                    inputs.dst[c],
                    df.value(c, &inputs),
                )
            };
        }
        out
    }
}
