//! Image types as WGSL sees them, read from the IR alone: an OpTypeImage's
//! fields ([`ImageType`]) and WGSL's texel formats. The plan finds which
//! storage images are read and written; the writer declares them and writes
//! their instructions (`write::expr::image`).

use crate::ir::{Ir, Type};

/// WGSL's texel format of a SPIR-V ImageFormat, if it has one. Core
/// WebGPU has the rgba8, rgba16, r32, rg32 and rgba32 ones; the others need
/// the device feature `texture-formats-tier1` in a browser (naga and wgpu
/// natively take them all, where the adapter has the format).
pub fn texel_format(f: u32) -> Option<&'static str> {
    use crate::grammar::image_format as x;
    Some(match f {
        x::Rgba8 => "rgba8unorm",
        x::Rgba8Snorm => "rgba8snorm",
        x::Rgba8ui => "rgba8uint",
        x::Rgba8i => "rgba8sint",
        x::Rgba16ui => "rgba16uint",
        x::Rgba16i => "rgba16sint",
        x::Rgba16f => "rgba16float",
        x::R32ui => "r32uint",
        x::R32i => "r32sint",
        x::R32f => "r32float",
        x::Rg32ui => "rg32uint",
        x::Rg32i => "rg32sint",
        x::Rg32f => "rg32float",
        x::Rgba32ui => "rgba32uint",
        x::Rgba32i => "rgba32sint",
        x::Rgba32f => "rgba32float",
        // texture-formats-tier1.
        x::R8 => "r8unorm",
        x::R8Snorm => "r8snorm",
        x::R8ui => "r8uint",
        x::R8i => "r8sint",
        x::R16 => "r16unorm",
        x::R16Snorm => "r16snorm",
        x::R16ui => "r16uint",
        x::R16i => "r16sint",
        x::R16f => "r16float",
        x::Rg8 => "rg8unorm",
        x::Rg8Snorm => "rg8snorm",
        x::Rg8ui => "rg8uint",
        x::Rg8i => "rg8sint",
        x::Rg16 => "rg16unorm",
        x::Rg16Snorm => "rg16snorm",
        x::Rg16ui => "rg16uint",
        x::Rg16i => "rg16sint",
        x::Rg16f => "rg16float",
        x::Rgba16 => "rgba16unorm",
        x::Rgba16Snorm => "rgba16snorm",
        x::Rgb10A2 => "rgb10a2unorm",
        x::Rgb10a2ui => "rgb10a2uint",
        x::R11fG11fB10f => "rg11b10ufloat",
        _ => return None,
    })
}

/// An OpTypeImage's fields.
pub struct ImageType {
    pub sampled_type: u32,
    pub dim: u32,
    pub depth: u32,
    pub arrayed: bool,
    pub multisampled: bool,
    pub sampled: u32,
    pub format: u32,
}

impl ImageType {
    /// The fields of image type `ty`, if it is one.
    pub fn of(ir: &Ir, ty: u32) -> Option<ImageType> {
        match ir.ty(ty)?.ty {
            Type::Image { sampled_type, dim, depth, arrayed, ms, sampled, format, .. } => Some(ImageType {
                sampled_type,
                dim,
                depth,
                arrayed: arrayed != 0,
                multisampled: ms != 0,
                sampled,
                format,
            }),
            _ => None,
        }
    }
}

/// Whether values of type `ty` are handles (images, samplers), which WGSL
/// names only through their module-scope variable.
pub fn is_handle(ir: &Ir, ty: u32) -> bool {
    matches!(ir.ty(ty).map(|t| &t.ty), Some(Type::Image { .. } | Type::Sampler | Type::SampledImage { .. }))
}
