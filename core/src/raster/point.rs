//! Point rasterisation ("Basic Point Rasterization"): the square of side
//! `PointSize` centred on the vertex's framebuffer position; a pixel centre
//! on the square's top or left side is covered, on its bottom or right side
//! not (the same top-left rule as triangles).

use super::PixelRect;
use super::edges::{Edge, bounding_box, quads, snap};
use super::quad::{Lane, Quad};
use super::triangle::SetupVertex;

/// Largest point size (lavapipe's `pointSizeRange` is 0 to 255).
pub const MAX_POINT_SIZE: f32 = 255.0;

#[derive(Clone, Copy, Debug)]
pub struct PointSetup {
    lane: Lane,
    corners: [(i64, i64); 4],
    edges: [Edge; 4],
}

impl PointSetup {
    /// `None` for a size that is not positive or a position that does not
    /// snap. The size is clamped to [`MAX_POINT_SIZE`].
    pub fn new(v: SetupVertex, size: f32) -> Option<PointSetup> {
        if size.is_nan() || size <= 0.0 {
            return None;
        }
        let half = size.min(MAX_POINT_SIZE) / 2.0;
        let (x0, y0) = (snap(v.screen.x - half)?, snap(v.screen.y - half)?);
        let (x1, y1) = (snap(v.screen.x + half)?, snap(v.screen.y + half)?);
        let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
        let edges = [0, 1, 2, 3].map(|k| Edge::new(corners[k], corners[(k + 1) % 4]));
        let lane = Lane {
            bary: v.bary,
            linear: v.linear,
            depth: v.screen.z,
            inv_w: v.screen.inv_w,
        };
        Some(PointSetup {
            lane,
            corners,
            edges,
        })
    }

    pub fn rasterize(&self, bounds: PixelRect, f: impl FnMut(&Quad)) {
        quads(
            &self.edges,
            bounds.intersect(bounding_box(&self.corners)),
            |_, _| self.lane,
            f,
        );
    }
}
