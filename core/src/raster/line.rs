//! Line rasterisation as rectangles ("Basic Line Segment Rasterization",
//! the rectangular lines that lavapipe draws by default): the rectangle of
//! the line width centred on the segment, ends not extended, its coverage
//! by edge functions with the top-left rule. A fragment's parameter `t` is
//! its pixel centre projected on the segment (`t = (p_r - p_a)·(p_b - p_a) /
//! |p_b - p_a|²`), then corrected for perspective as the spec's line
//! interpolation says.

use super::PixelRect;
use super::edges::{Edge, bounding_box, quads, snap};
use super::quad::{Lane, Quad};
use super::triangle::SetupVertex;

/// A line segment ready to rasterise.
#[derive(Clone, Copy, Debug)]
pub struct LineSetup {
    ends: [SetupVertex; 2],
    corners: [(i64, i64); 4],
    edges: [Edge; 4],
    /// `p_b - p_a` and its squared length, in pixels.
    dir: [f32; 2],
    len2: f32,
}

impl LineSetup {
    /// `None` for a segment of zero length or one that does not snap.
    pub fn new(a: SetupVertex, b: SetupVertex, width: f32) -> Option<LineSetup> {
        let dir = [b.screen.x - a.screen.x, b.screen.y - a.screen.y];
        let len2 = dir[0] * dir[0] + dir[1] * dir[1];
        if len2.is_nan() || len2 <= 0.0 || width.is_nan() || width <= 0.0 {
            return None;
        }
        let scale = width / 2.0 / libm::sqrtf(len2);
        let n = [-dir[1] * scale, dir[0] * scale];
        let c = [
            (a.screen.x + n[0], a.screen.y + n[1]),
            (b.screen.x + n[0], b.screen.y + n[1]),
            (b.screen.x - n[0], b.screen.y - n[1]),
            (a.screen.x - n[0], a.screen.y - n[1]),
        ];
        let mut corners = [(0, 0); 4];
        for (s, p) in corners.iter_mut().zip(c) {
            *s = (snap(p.0)?, snap(p.1)?);
        }
        let cross = (corners[1].0 - corners[0].0) * (corners[2].1 - corners[0].1)
            - (corners[2].0 - corners[0].0) * (corners[1].1 - corners[0].1);
        if cross == 0 {
            return None;
        }
        if cross < 0 {
            corners.reverse();
        }
        let edges = [0, 1, 2, 3].map(|k| Edge::new(corners[k], corners[(k + 1) % 4]));
        Some(LineSetup {
            ends: [a, b],
            corners,
            edges,
            dir,
            len2,
        })
    }

    /// The lane at pixel `(x, y)`.
    pub fn lane(&self, x: i32, y: i32) -> Lane {
        let [a, b] = &self.ends;
        let (px, py) = (x as f32 + 0.5 - a.screen.x, y as f32 + 0.5 - a.screen.y);
        let t = ((px * self.dir[0] + py * self.dir[1]) / self.len2).clamp(0.0, 1.0);
        let inv_w = (1.0 - t) * a.screen.inv_w + t * b.screen.inv_w;
        let s = if inv_w != 0.0 && inv_w.is_finite() {
            t * b.screen.inv_w / inv_w
        } else {
            t
        };
        let mix = |u: [f32; 3], v: [f32; 3], f: f32| [0, 1, 2].map(|j| (1.0 - f) * u[j] + f * v[j]);
        Lane {
            bary: mix(a.bary, b.bary, s),
            linear: mix(a.linear, b.linear, t),
            depth: a.screen.z + t * (b.screen.z - a.screen.z),
            inv_w,
        }
    }

    pub fn rasterize(&self, bounds: PixelRect, f: impl FnMut(&Quad)) {
        quads(
            &self.edges,
            bounds.intersect(bounding_box(&self.corners)),
            |x, y| self.lane(x, y),
            f,
        );
    }
}
