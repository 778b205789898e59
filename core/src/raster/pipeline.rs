//! A graphics pipeline, its attachments and one draw, as data. The
//! interpreter's draw (`interp::draw`) and the GPU runner take the same
//! description, so a draw made from an Amber script, from `spvlab run` on a
//! fragment shader or from the page runs the same way on every backend.
//!
//! What it holds is Vulkan's: the vertex buffers bound per vertex (one
//! attribute a buffer, at a Location, tightly packed unless a stride is
//! given), the rasterisation state ([`State`]), the depth state and bias,
//! each colour attachment's blend state, and the draw's topology and vertex
//! numbers. Shaders and descriptors are not here: the caller hands them in
//! beside it (the interpreter's `Options` and `Buffers`).

use alloc::vec::Vec;

use super::assemble::{Indices, Topology};
use super::blend::BlendState;
use super::depth::{DepthBias, DepthBuffer, DepthState};
use super::draw::State;
use super::format::ColorAttachment;

/// The numeric kind of a vertex attribute's components, as its Vulkan
/// format says (`R32G32_SFLOAT` is `Float` of 32 bits, `R8G8B8A8_SNORM`
/// `Snorm` of 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    Float,
    Unorm,
    Snorm,
    Uint,
    Sint,
}

/// One vertex attribute's format: `components` (1 to 4) of `kind`, each
/// `width` bits (8, 16, 32 or 64; floats of 32 or 64), packed from the
/// lowest address up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VertexFormat {
    pub kind: AttrKind,
    pub width: u8,
    pub components: u8,
}

/// One component of a fetched attribute: what the vertex shader's input
/// variable receives, before it is converted to the variable's type (a
/// `Float` input reads `F`, an integer input `I` or `U`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttrValue {
    F(f64),
    I(i64),
    U(u64),
}

impl VertexFormat {
    /// The format named as in Vulkan (`R32G32B32A32_SFLOAT`, `R8_UINT`,
    /// `R8G8B8A8_SNORM`...): R, G, B and A components of one width, in that
    /// order; `None` for any other (packed, BGR, mixed widths).
    pub fn from_name(name: &str) -> Option<VertexFormat> {
        let name = name.strip_prefix("VK_FORMAT_").unwrap_or(name);
        let (chans, kind) = name.split_once('_')?;
        let kind = match kind {
            "SFLOAT" => AttrKind::Float,
            "UNORM" => AttrKind::Unorm,
            "SNORM" => AttrKind::Snorm,
            "UINT" => AttrKind::Uint,
            "SINT" => AttrKind::Sint,
            _ => return None,
        };
        let mut width = None;
        let mut components = 0u8;
        let mut s = chans;
        for want in ['R', 'G', 'B', 'A'] {
            let Some(rest) = s.strip_prefix(want) else { break };
            let n = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            let bits: u8 = rest[..n].parse().ok()?;
            if *width.get_or_insert(bits) != bits {
                return None;
            }
            components += 1;
            s = &rest[n..];
        }
        let width = width?;
        if !s.is_empty() || !matches!(width, 8 | 16 | 32 | 64) {
            return None;
        }
        if kind == AttrKind::Float && width < 32 {
            return None;
        }
        Some(VertexFormat { kind, width, components })
    }

    /// Bytes one attribute takes.
    pub fn bytes(self) -> usize {
        self.width as usize / 8 * self.components as usize
    }

    /// Component `c` of the attribute whose bytes start `bytes` (at least
    /// [`VertexFormat::bytes`] of them), converted as Vulkan's "Conversion
    /// to Floating-Point" says for a normalized format (UNORM `v / (2^n -
    /// 1)`, SNORM `max(v / (2^(n-1) - 1), -1)`). A component the format
    /// lacks reads as Vulkan's default, 0 for G and B and 1 for A
    /// ("Vertex Input Extraction").
    pub fn read(self, bytes: &[u8], c: usize) -> AttrValue {
        let float = matches!(self.kind, AttrKind::Float | AttrKind::Unorm | AttrKind::Snorm);
        if c >= self.components as usize {
            let one = c == 3;
            return match (float, self.kind) {
                (true, _) => AttrValue::F(if one { 1.0 } else { 0.0 }),
                (false, AttrKind::Sint) => AttrValue::I(one as i64),
                _ => AttrValue::U(one as u64),
            };
        }
        let n = self.width as usize / 8;
        let mut raw = [0u8; 8];
        if let Some(src) = bytes.get(c * n..c * n + n) {
            raw[..n].copy_from_slice(src);
        }
        let bits = u64::from_le_bytes(raw);
        let w = self.width as u32;
        let sign_extend = |b: u64| -> i64 {
            let shift = 64 - w;
            ((b << shift) as i64) >> shift
        };
        match self.kind {
            AttrKind::Float if w == 32 => AttrValue::F(f32::from_bits(bits as u32) as f64),
            AttrKind::Float => AttrValue::F(f64::from_bits(bits)),
            AttrKind::Unorm => AttrValue::F(bits as f64 / ((1u128 << w) - 1) as f64),
            AttrKind::Snorm => {
                let max = ((1u128 << (w - 1)) - 1) as f64;
                AttrValue::F((sign_extend(bits) as f64 / max).max(-1.0))
            }
            AttrKind::Uint => AttrValue::U(bits),
            AttrKind::Sint => AttrValue::I(sign_extend(bits)),
        }
    }
}

/// A vertex buffer bound for one attribute at `location`: vertex `v`'s
/// attribute starts at byte `offset + v * stride` of `data`. Amber's
/// `VERTEX_DATA buffer LOCATION n` is one of these with the stride of the
/// buffer's element and offset 0. An attribute past the end of `data` reads
/// as zeros (robust buffer access's allowed result).
#[derive(Clone, Debug, PartialEq)]
pub struct VertexBuffer {
    pub location: u32,
    pub format: VertexFormat,
    pub stride: u32,
    pub offset: u32,
    pub data: Vec<u8>,
}

impl VertexBuffer {
    /// The bytes of vertex `v`'s attribute (shorter, or empty, past the end).
    pub fn vertex(&self, v: u32) -> &[u8] {
        let at = self.offset as u64 + v as u64 * self.stride as u64;
        let n = self.format.bytes() as u64;
        let len = self.data.len() as u64;
        let start = at.min(len) as usize;
        let end = at.saturating_add(n).min(len) as usize;
        &self.data[start..end]
    }
}

/// The vertex numbers of a draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DrawIndices {
    /// `vkCmdDraw`: vertices `first .. first + count`.
    Sequential { first: u32, count: u32 },
    /// `vkCmdDrawIndexed`: the index buffer's values in order (already
    /// widened to u32); `restart` as [`Indices::List`] takes it.
    Indexed { indices: Vec<u32>, restart: Option<u32> },
}

/// One draw command: its topology, vertices and instances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawCmd {
    pub topology: Topology,
    pub indices: DrawIndices,
    pub first_instance: u32,
    pub instances: u32,
}

impl DrawCmd {
    /// The draw's vertex numbers as primitive assembly reads them.
    pub fn assembly(&self) -> Indices<'_> {
        match &self.indices {
            DrawIndices::Sequential { first, count } => Indices::Sequential { first: *first, count: *count },
            DrawIndices::Indexed { indices, restart } => Indices::List { indices, restart: *restart },
        }
    }
}

/// The depth attachment, the pipeline's depth state and bias.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthTarget {
    pub buffer: DepthBuffer,
    pub state: DepthState,
    /// `None`: depth bias disabled.
    pub bias: Option<DepthBias>,
    /// `depthClampEnable`: fragment depths clamped to the viewport's depth
    /// range instead of clipping on z.
    pub clamp: bool,
}

/// A colour attachment at a fragment output Location, with its blend
/// state.
#[derive(Clone, Debug, PartialEq)]
pub struct ColorTarget {
    pub location: u32,
    pub attachment: ColorAttachment,
    pub blend: BlendState,
}

/// What a draw writes: the colour attachments and the depth attachment.
/// A draw changes them in place, so draws one after another accumulate, as
/// in one render pass.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Framebuffer {
    pub colors: Vec<ColorTarget>,
    pub depth: Option<DepthTarget>,
}

impl Framebuffer {
    /// Width and height: the first attachment's (all have the same size).
    pub fn size(&self) -> Option<(u32, u32)> {
        self.colors
            .first()
            .map(|c| (c.attachment.width, c.attachment.height))
            .or(self.depth.as_ref().map(|d| (d.buffer.width, d.buffer.height)))
    }
}

/// The pipeline's fixed function state and vertex input.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// Viewport, scissor, culling, front face, polygon mode, line width.
    pub state: State,
    pub vertex_buffers: Vec<VertexBuffer>,
    /// `blendConstants`.
    pub blend_constant: [f32; 4],
}

impl Pipeline {
    /// Amber's defaults for a framebuffer of this size: its whole viewport,
    /// no vertex buffers, blend constants 0.
    pub fn for_framebuffer(width: u32, height: u32) -> Pipeline {
        Pipeline {
            state: State::for_framebuffer(width, height),
            vertex_buffers: Vec::new(),
            blend_constant: [0.0; 4],
        }
    }

    /// The vertex buffer feeding `location`.
    pub fn input(&self, location: u32) -> Option<&VertexBuffer> {
        self.vertex_buffers.iter().find(|b| b.location == location)
    }
}
