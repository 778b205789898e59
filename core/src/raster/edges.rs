//! Edge functions on snapped coordinates and the walk over 2x2 quads that
//! every rasteriser (triangles, lines, points) shares.

use super::quad::{Lane, Quad};
use super::{PixelRect, SUBPIXEL_BITS, SUBPIXEL_ONE};

/// Largest framebuffer coordinate (in pixels, either sign) that snaps: it
/// keeps every edge function's products inside `i64`.
pub const MAX_COORD: f32 = (1 << 20) as f32;

/// A coordinate in snapped units (round to nearest, ties to even, as
/// lavapipe's `lrintf`), or `None` when not finite or beyond [`MAX_COORD`].
pub fn snap(v: f32) -> Option<i64> {
    if v.is_nan() || v.abs() >= MAX_COORD {
        return None;
    }
    Some(libm::rint(v as f64 * SUBPIXEL_ONE as f64) as i64)
}

/// `E(p) = (q - p0) x (p - p0)`, the edge from `p0` to `q`, positive on
/// the interior's side, evaluated at pixel centres; `bias` is 1 on a top or
/// left edge, so a sample with `E + bias > 0` is covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edge {
    /// `E` at the centre of pixel (0, 0).
    pub at_origin: i64,
    /// `E`'s change from one pixel to the next in x, and in y.
    pub step_x: i64,
    pub step_y: i64,
    pub bias: i64,
}

impl Edge {
    /// The edge from `p` to `q` (snapped units, framebuffer coordinates with
    /// y down); the interior is where `(q - p) x (s - p) > 0`.
    pub fn new(p: (i64, i64), q: (i64, i64)) -> Edge {
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let half = SUBPIXEL_ONE / 2;
        // Top: horizontal with the interior below (y grows downwards);
        // left: the interior to the right.
        let top_left = (dy == 0 && dx > 0) || dy < 0;
        Edge {
            at_origin: dx * (half - p.1) - dy * (half - p.0),
            step_x: -dy << SUBPIXEL_BITS,
            step_y: dx << SUBPIXEL_BITS,
            bias: top_left as i64,
        }
    }

    /// `E` at the centre of pixel `(x, y)`.
    pub fn at(&self, x: i32, y: i32) -> i64 {
        self.at_origin + self.step_x * x as i64 + self.step_y * y as i64
    }

    pub fn covers(&self, x: i32, y: i32) -> bool {
        self.at(x, y) + self.bias > 0
    }
}

/// Calls `f(x, y, covered)` for each 2x2 quad (origin at even `x`, `y`)
/// over `bounds` that has at least one covered lane; bit `i` of `covered`
/// is lane `i` (at `x + i % 2, y + i / 2`), covered when inside every edge
/// and inside `bounds`. `bounds` must lie in `0..=i32::MAX - 2`.
pub fn walk(edges: &[Edge], bounds: PixelRect, mut f: impl FnMut(u32, u32, u8)) {
    if bounds.is_empty() || bounds.x0 < 0 || bounds.y0 < 0 {
        return;
    }
    let (qx0, qy0) = (bounds.x0 & !1, bounds.y0 & !1);
    let mut qy = qy0;
    while qy < bounds.y1 {
        // Lanes of this row of quads that lie inside the bounds in y.
        let rows =
            (bounds.contains_y(qy) as u8 * 0b0011) | (bounds.contains_y(qy + 1) as u8 * 0b1100);
        let mut row = [0i64; 4];
        for (k, e) in edges.iter().enumerate() {
            row[k] = e.at(qx0, qy) + e.bias;
        }
        let mut qx = qx0;
        while qx < bounds.x1 {
            let mut covered = 0b1111u8 & rows;
            if qx < bounds.x0 {
                covered &= 0b1010;
            }
            if qx + 1 >= bounds.x1 {
                covered &= 0b0101;
            }
            for (k, e) in edges.iter().enumerate() {
                let v = row[k];
                let lanes = (v > 0) as u8
                    | ((v + e.step_x > 0) as u8) << 1
                    | ((v + e.step_y > 0) as u8) << 2
                    | ((v + e.step_x + e.step_y > 0) as u8) << 3;
                covered &= lanes;
                row[k] = v + 2 * e.step_x;
            }
            if covered != 0 {
                f(qx as u32, qy as u32, covered);
            }
            qx += 2;
        }
        qy += 2;
    }
}

/// The pixels whose centres may lie in the box spanned by snapped points.
pub fn bounding_box(points: &[(i64, i64)]) -> PixelRect {
    let (mut x0, mut y0, mut x1, mut y1) = (i64::MAX, i64::MAX, i64::MIN, i64::MIN);
    for &(x, y) in points {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    // Pixel p's centre is p * ONE + ONE / 2: the first at or after a, the
    // last at or before b (then + 1 for the excluded end).
    let half = SUBPIXEL_ONE / 2;
    let first = |a: i64| (a - half + SUBPIXEL_ONE - 1).div_euclid(SUBPIXEL_ONE);
    let last = |b: i64| (b - half).div_euclid(SUBPIXEL_ONE);
    let clamp = |v: i64| v.clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32;
    PixelRect {
        x0: clamp(first(x0)),
        y0: clamp(first(y0)),
        x1: clamp(last(x1) + 1),
        y1: clamp(last(y1) + 1),
    }
}

/// [`walk`], filling one reused [`Quad`] with `lane(x, y)` for each of its
/// four pixels, helpers included, and handing it to `f`.
pub fn quads(
    edges: &[Edge],
    bounds: PixelRect,
    lane: impl Fn(i32, i32) -> Lane,
    mut f: impl FnMut(&Quad),
) {
    let mut quad = Quad::default();
    walk(edges, bounds, |x, y, covered| {
        quad.x = x;
        quad.y = y;
        quad.covered = covered;
        for (i, l) in quad.lanes.iter_mut().enumerate() {
            *l = lane((x + (i as u32 & 1)) as i32, (y + (i as u32 >> 1)) as i32);
        }
        f(&quad);
    });
}
