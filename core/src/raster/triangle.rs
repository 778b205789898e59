//! Triangle setup and rasterisation ("Basic Polygon Rasterization",
//! "Barycentric Interpolation"): snapped vertices, facing, edge functions
//! with the top-left rule, and per-lane barycentrics.

use super::edges::{Edge, bounding_box, quads, snap};
use super::quad::{Lane, Quad};
use super::viewport::ScreenVertex;
use super::{DepthSlope, FrontFace, PixelRect};

/// A triangle vertex in framebuffer space with its weights over the
/// primitive's original vertices (unit vectors unless clipping made it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetupVertex {
    pub screen: ScreenVertex,
    pub bary: [f32; 3],
    pub linear: [f32; 3],
}

/// A triangle ready to rasterise.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    vertices: [SetupVertex; 3],
    /// Edge `k` lies opposite vertex `k`; its value over `area` is vertex
    /// `k`'s linear barycentric.
    edges: [Edge; 3],
    snapped: [(i64, i64); 3],
    inv_area: f64,
    /// `Some(j)` when vertex `k`'s weights are both the unit vector
    /// `j[k]` (nothing was clipped): the barycentrics then only move.
    unit: Option<[usize; 3]>,
    /// Whether the triangle is front-facing.
    pub front_facing: bool,
    /// Its depth slope and largest depth, for depth bias.
    pub depth_slope: DepthSlope,
}

/// The spec's signed area `a = -1/2 Σ (x_i y_{i+1} - x_{i+1} y_i)`, doubled
/// and negated: twice the area with positive meaning clockwise on a y-down
/// framebuffer.
fn doubled_area(v: &[(i64, i64); 3]) -> i64 {
    (v[1].0 - v[0].0) * (v[2].1 - v[0].1) - (v[2].0 - v[0].0) * (v[1].1 - v[0].1)
}

impl Setup {
    /// Snaps and orients a triangle; `None` when it has zero area after
    /// snapping (it produces no fragments) or a coordinate that does not
    /// snap.
    pub fn new(vertices: [SetupVertex; 3], front_face: FrontFace) -> Option<Setup> {
        let mut snapped = [(0, 0); 3];
        for (s, v) in snapped.iter_mut().zip(&vertices) {
            *s = (snap(v.screen.x)?, snap(v.screen.y)?);
        }
        let area = doubled_area(&snapped);
        if area == 0 {
            return None;
        }
        // The spec's a is -area / 2: positive a is counter-clockwise.
        let counter_clockwise = area < 0;
        let front_facing = counter_clockwise == (front_face == FrontFace::CounterClockwise);
        let mut vertices = vertices;
        if area < 0 {
            vertices.swap(1, 2);
            snapped.swap(1, 2);
        }
        let edges = [
            Edge::new(snapped[1], snapped[2]),
            Edge::new(snapped[2], snapped[0]),
            Edge::new(snapped[0], snapped[1]),
        ];
        let unit_of = |v: &SetupVertex| {
            let j = v.bary.iter().position(|&c| c == 1.0)?;
            let mut e = [0.0; 3];
            e[j] = 1.0;
            (v.bary == e && v.linear == e).then_some(j)
        };
        let unit = match vertices.each_ref().map(unit_of) {
            [Some(a), Some(b), Some(c)] => Some([a, b, c]),
            _ => None,
        };
        let inv_area = 1.0 / area.unsigned_abs() as f64;
        // z = Σ z_k E_k / area, so ∂z/∂x = Σ z_k step_x_k / area.
        let (mut dzdx, mut dzdy) = (0.0f64, 0.0f64);
        for (e, v) in edges.iter().zip(&vertices) {
            dzdx += e.step_x as f64 * v.screen.z as f64;
            dzdy += e.step_y as f64 * v.screen.z as f64;
        }
        let depth_slope = DepthSlope {
            max_slope: ((dzdx * inv_area).abs().max((dzdy * inv_area).abs())) as f32,
            max_depth: vertices.iter().map(|v| v.screen.z.abs()).fold(0.0, f32::max),
        };
        Some(Setup { vertices, edges, snapped, inv_area, unit, front_facing, depth_slope })
    }

    /// The lane at pixel `(x, y)`, covered or not.
    pub fn lane(&self, x: i32, y: i32) -> Lane {
        let l = [0, 1, 2].map(|k| (self.edges[k].at(x, y) as f64 * self.inv_area) as f32);
        let v = &self.vertices;
        let q = [0, 1, 2].map(|k| l[k] * v[k].screen.inv_w);
        let sum = q[0] + q[1] + q[2];
        let p = if sum != 0.0 && sum.is_finite() {
            let inv = 1.0 / sum;
            q.map(|c| c * inv)
        } else {
            l
        };
        let mut bary = [0.0f32; 3];
        let mut linear = [0.0f32; 3];
        match self.unit {
            Some(j) => {
                for k in 0..3 {
                    bary[j[k]] = p[k];
                    linear[j[k]] = l[k];
                }
            }
            None => {
                for k in 0..3 {
                    for j in 0..3 {
                        bary[j] += p[k] * v[k].bary[j];
                        linear[j] += l[k] * v[k].linear[j];
                    }
                }
            }
        }
        Lane {
            bary,
            linear,
            // The spec's a·za + b·zb + c·zc, as the plane through the
            // first vertex (a = 1 - b - c): a primitive of one depth gets
            // exactly that depth at every pixel, as GPUs give it, where the
            // three-term sum may round off it (and fail an EQUAL test).
            depth: v[0].screen.z + l[1] * (v[1].screen.z - v[0].screen.z) + l[2] * (v[2].screen.z - v[0].screen.z),
            inv_w: sum,
        }
    }

    /// Calls `f` with each quad that has a covered pixel inside `bounds`.
    pub fn rasterize(&self, bounds: PixelRect, f: impl FnMut(&Quad)) {
        quads(
            &self.edges,
            bounds.intersect(bounding_box(&self.snapped)),
            |x, y| self.lane(x, y),
            f,
        );
    }
}
