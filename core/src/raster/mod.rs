//! The fixed function of Vulkan's graphics pipeline, between the vertex and
//! fragment shaders and after the fragment shader, written from the Vulkan
//! specification's rasterization, fragment operations and format conversion
//! chapters. Data in, data out: the caller (the interpreter) runs the shaders
//! and hands in what they produced.
//!
//! The path of one draw:
//!
//! 1. [`assemble`](mod@assemble): a topology and a vertex count or an index list to
//!    [`Primitive`]s (triangle list, strip and fan; line list and strip; point
//!    list; primitive restart on an index value). The provoking vertex is the
//!    first vertex of each primitive (Vulkan's default): a fan's triangle `i`
//!    is vertices `i+1, i+2, 0`, a strip's is `i, i+1+i%2, i+2-i%2`.
//!    [`draws`] builds Amber's `DRAW_RECT` and `DRAW_GRID` vertices.
//! 2. [`clip`]: clip-space positions clipped in homogeneous space against
//!    `0 <= z <= w` (depth clamping off) and against a guard band
//!    `-8w <= x, y <= 8w`; pixels outside the viewport's rectangle are never
//!    produced, which gives the coverage of clipping to `-w <= x, y <= w`
//!    while leaving vertices that lie in the guard band unmoved (hardware,
//!    lavapipe included, does the same). The guard band keeps every snapped
//!    coordinate far inside the 64-bit edge functions. A primitive with a
//!    position that is not finite is dropped.
//! 3. [`viewport`]: perspective divide and the viewport transform
//!    (`x_f = o_x + p_x/2 * x_d`, `z_f = minDepth + (maxDepth-minDepth) z_d`).
//! 4. [`triangle`]: facing from the signed area (`a = -1/2 Σ x_i y_{i+1} -
//!    x_{i+1} y_i` in framebuffer coordinates, positive is counter-clockwise),
//!    culling, then coverage at pixel centres with edge functions on vertices
//!    snapped to [`SUBPIXEL_BITS`] = 8 fractional bits (lavapipe's
//!    `subPixelPrecisionBits`) and the top-left rule in framebuffer coordinates
//!    (y down): a sample exactly on an edge is covered only when the edge is a
//!    top edge (horizontal, interior below) or a left edge (interior to its
//!    right), so two triangles that share an edge cover each sample once.
//!    [`line`](mod@line): lines as rectangles of the line width centred on the segment
//!    (Vulkan's rectangular lines, lavapipe's default), coverage by the same
//!    edge functions and rule. [`point`]: squares of side `PointSize`
//!    centred on the vertex; a point whose vertex lies outside `0 <= z <=
//!    w` is dropped, one beside the viewport draws its part inside it (as
//!    lavapipe does). [`PolygonMode`] `LINE` and `POINT` draw a
//!    triangle's edges or vertices so.
//! 5. [`quad`]: covered pixels of one primitive grouped into 2x2 quads whose
//!    origin has even x and y; each lane carries perspective-correct and
//!    linear barycentrics over the primitive's own vertices (clipping
//!    accounted for), the depth `z_f` interpolated linearly in screen space
//!    and `1/w`. Lanes that are not covered are helper lanes, with the
//!    barycentrics extrapolated to their pixel centres (for derivatives).
//!    [`attr`] interpolates an output: smooth, `NoPerspective`, `Flat`.
//! 6. [`depth`]: the depth test and write with every `VkCompareOp` on
//!    D16_UNORM, D24_UNORM_S8_UINT (its depth) and D32_SFLOAT, and depth
//!    bias from each polygon's [`DepthSlope`]; [`blend`]:
//!    Vulkan's blend factors and the five basic blend ops; [`format`]: colour
//!    attachments (B8G8R8A8_UNORM, R8G8B8A8_UNORM, R32G32B32A32_SFLOAT,
//!    R32_SFLOAT) with the spec's conversions (UNORM: clamp to [0, 1], then
//!    round to nearest).
//!
//! [`draw()`] runs steps 2 to 5 over a list of primitives and calls back once
//! per quad; nothing is allocated per pixel or per quad.

pub mod assemble;
pub mod attr;
pub mod blend;
pub mod clip;
pub mod depth;
pub mod draw;
pub mod draws;
pub mod edges;
pub mod format;
pub mod line;
pub mod pipeline;
pub mod point;
pub mod quad;
pub mod triangle;
pub mod viewport;

#[cfg(test)]
mod tests;

pub use assemble::{Indices, Primitive, Topology, assemble};
pub use attr::{Interpolation, interpolate};
pub use blend::{BlendFactor, BlendOp, BlendState};
pub use depth::{CompareOp, DepthBias, DepthBuffer, DepthFormat, DepthState};
pub use draw::{PrimitiveInfo, State, draw};
pub use format::{ColorAttachment, ColorFormat};
pub use pipeline::{AttrKind, AttrValue, ColorTarget, DepthTarget, DrawCmd, DrawIndices, Framebuffer, Pipeline, VertexBuffer, VertexFormat};
pub use quad::{Lane, Quad};
pub use viewport::Viewport;

/// Fractional bits of a snapped framebuffer coordinate (lavapipe reports
/// `subPixelPrecisionBits = 8`).
pub const SUBPIXEL_BITS: u32 = 8;
/// One pixel in snapped units.
pub const SUBPIXEL_ONE: i64 = 1 << SUBPIXEL_BITS;

/// Which faces `VkCullModeFlags` discards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CullMode {
    #[default]
    None,
    Front,
    Back,
    FrontAndBack,
}

impl CullMode {
    /// Whether a primitive with this facing is discarded.
    pub fn culls(self, front_facing: bool) -> bool {
        match self {
            CullMode::None => false,
            CullMode::Front => front_facing,
            CullMode::Back => !front_facing,
            CullMode::FrontAndBack => true,
        }
    }
}

/// What depth bias reads of a polygon ("Depth Bias Computation"): its
/// maximum depth slope `m = max(|∂z_f/∂x_f|, |∂z_f/∂y_f|)` (the spec's
/// allowed approximation, and lavapipe's) and the largest `|z_f|` of its
/// vertices (for a floating-point attachment's `r`). Lines and points have
/// none (zero).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DepthSlope {
    pub max_slope: f32,
    pub max_depth: f32,
}

/// `VkPolygonMode`: a triangle is filled, or drawn as its three edges
/// (lines of the line width; edges made by clipping are not drawn) or its
/// three vertices (points), after its facing and culling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolygonMode {
    #[default]
    Fill,
    Line,
    Point,
}

/// `VkFrontFace`: which winding in framebuffer coordinates is front-facing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrontFace {
    #[default]
    CounterClockwise,
    Clockwise,
}

/// A rectangle of pixels, `x0..x1` by `y0..y1` (ends excluded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelRect {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
}

impl PixelRect {
    pub fn of_size(width: u32, height: u32) -> PixelRect {
        let clamp = |v: u32| v.min(i32::MAX as u32 - 2) as i32;
        PixelRect {
            x0: 0,
            y0: 0,
            x1: clamp(width),
            y1: clamp(height),
        }
    }

    pub fn intersect(self, other: PixelRect) -> PixelRect {
        PixelRect {
            x0: self.x0.max(other.x0),
            y0: self.y0.max(other.y0),
            x1: self.x1.min(other.x1),
            y1: self.y1.min(other.y1),
        }
    }

    pub fn is_empty(self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }

    pub fn contains(self, x: i32, y: i32) -> bool {
        x >= self.x0 && x < self.x1 && self.contains_y(y)
    }

    pub fn contains_y(self, y: i32) -> bool {
        y >= self.y0 && y < self.y1
    }
}
