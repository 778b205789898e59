//! Perspective divide and the viewport transform ("Controlling the
//! Viewport").

use super::PixelRect;

/// `VkViewport`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

impl Viewport {
    /// The whole framebuffer, depth 0 to 1 (what Amber sets).
    pub fn full(width: u32, height: u32) -> Viewport {
        Viewport {
            x: 0.0,
            y: 0.0,
            width: width as f32,
            height: height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }

    /// A clip-space position to framebuffer coordinates: `x_f = o_x + p_x/2
    /// x_d` with `o_x = x + width/2`, `p_x = width` (y likewise), `z_f =
    /// minDepth + (maxDepth - minDepth) z_d`; with `1 / w_c`.
    pub fn transform(&self, clip: [f32; 4]) -> ScreenVertex {
        let inv_w = 1.0 / clip[3];
        let (xd, yd, zd) = (clip[0] * inv_w, clip[1] * inv_w, clip[2] * inv_w);
        ScreenVertex {
            x: self.x + self.width / 2.0 + self.width / 2.0 * xd,
            y: self.y + self.height / 2.0 + self.height / 2.0 * yd,
            z: self.min_depth + (self.max_depth - self.min_depth) * zd,
            inv_w,
        }
    }

    /// The pixels whose centres lie in the viewport's rectangle (a negative
    /// height flips it); the far ends are excluded, so abutting viewports
    /// share no pixel.
    pub fn pixels(&self) -> PixelRect {
        let (x0, x1) = min_max(self.x, self.x + self.width);
        let (y0, y1) = min_max(self.y, self.y + self.height);
        // Pixel p's centre p + 0.5 lies in [a, b) when ceil(a - 0.5) <= p < ceil(b - 0.5).
        let first = |a: f32| libm::ceilf(a - 0.5).clamp(i32::MIN as f32, i32::MAX as f32) as i32;
        PixelRect {
            x0: first(x0),
            y0: first(y0),
            x1: first(x1),
            y1: first(y1),
        }
    }
}

fn min_max(a: f32, b: f32) -> (f32, f32) {
    if a <= b { (a, b) } else { (b, a) }
}

/// A vertex in framebuffer coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenVertex {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub inv_w: f32,
}
