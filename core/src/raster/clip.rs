//! Primitive clipping in homogeneous clip space ("Primitive Clipping"):
//! against `0 <= z <= w` and the guard band `-G w <= x, y <= G w` (module
//! doc of [`raster`](super)). Each vertex of the clipped polygon keeps its
//! weights over the primitive's original vertices: clip-space weights for
//! perspective-correct attributes, and framebuffer-space weights for
//! `NoPerspective` ones (the spec's adjusted `t`).

/// The guard band, in multiples of `w`: 8 viewports' width either way.
pub const GUARD_BAND: f32 = 8.0;

/// Most vertices a clipped triangle can have (3, plus one per plane).
pub const MAX_VERTICES: usize = 9;

/// A vertex of a clipped primitive.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClipVertex {
    pub pos: [f32; 4],
    /// Weights over the original vertices, in clip space.
    pub bary: [f32; 3],
    /// Weights over the original vertices, in framebuffer space.
    pub linear: [f32; 3],
}

/// A convex polygon of at most [`MAX_VERTICES`] vertices, on the stack.
#[derive(Clone, Copy, Debug)]
pub struct Polygon {
    pub vertices: [ClipVertex; MAX_VERTICES],
    pub len: usize,
}

impl Polygon {
    pub fn as_slice(&self) -> &[ClipVertex] {
        &self.vertices[..self.len]
    }
}

/// The signed distances of `p` to the six planes (inside when `>= 0`).
fn distances(p: [f32; 4]) -> [f32; 6] {
    let gw = GUARD_BAND * p[3];
    [
        p[2],
        p[3] - p[2],
        gw + p[0],
        gw - p[0],
        gw + p[1],
        gw - p[1],
    ]
}

/// Whether a position lies in the volume (all planes; false for NaN).
pub fn inside(p: [f32; 4]) -> bool {
    distances(p).iter().all(|&d| d >= 0.0)
}

/// Whether a position lies in the depth range, `0 <= z <= w` with `w > 0`.
/// A point is kept or dropped whole by this test alone: lavapipe clips
/// points as it clips triangles (its `point_tri_clip`), so a wide point
/// whose centre lies beside the viewport still draws its part inside,
/// where the spec's "Primitive Clipping" would drop it.
pub fn inside_depth_range(p: [f32; 4]) -> bool {
    p[3] > 0.0 && 0.0 <= p[2] && p[2] <= p[3]
}

pub fn is_finite(p: [f32; 4]) -> bool {
    p.iter().all(|c| c.is_finite())
}

fn lerp3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// The point at clip-space parameter `t` from `a` to `b`: position and
/// clip-space weights at `t`, framebuffer-space weights at the `t` that
/// varies linearly on screen (`t w_b / ((1-t) w_a + t w_b)`).
pub fn between(a: &ClipVertex, b: &ClipVertex, t: f32) -> ClipVertex {
    let pos = [
        a.pos[0] + (b.pos[0] - a.pos[0]) * t,
        a.pos[1] + (b.pos[1] - a.pos[1]) * t,
        a.pos[2] + (b.pos[2] - a.pos[2]) * t,
        a.pos[3] + (b.pos[3] - a.pos[3]) * t,
    ];
    let denom = (1.0 - t) * a.pos[3] + t * b.pos[3];
    let ts = if denom != 0.0 {
        t * b.pos[3] / denom
    } else {
        t
    };
    ClipVertex {
        pos,
        bary: lerp3(a.bary, b.bary, t),
        linear: lerp3(a.linear, b.linear, ts),
    }
}

/// Clips a triangle (Sutherland-Hodgman, plane by plane). The result has
/// fewer than 3 vertices when nothing is left. A triangle wholly inside
/// comes back as it is.
pub fn clip_triangle(pos: [[f32; 4]; 3]) -> Polygon {
    let unit = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut poly = Polygon {
        vertices: [ClipVertex::default(); MAX_VERTICES],
        len: 3,
    };
    for i in 0..3 {
        poly.vertices[i] = ClipVertex {
            pos: pos[i],
            bary: unit[i],
            linear: unit[i],
        };
    }
    if pos.iter().all(|&p| inside(p)) {
        return poly;
    }
    for plane in 0..6 {
        let mut out = Polygon {
            vertices: [ClipVertex::default(); MAX_VERTICES],
            len: 0,
        };
        let n = poly.len;
        for i in 0..n {
            let a = poly.vertices[i];
            let b = poly.vertices[(i + 1) % n];
            let (da, db) = (distances(a.pos)[plane], distances(b.pos)[plane]);
            let push = |out: &mut Polygon, v: ClipVertex| {
                if out.len < MAX_VERTICES {
                    out.vertices[out.len] = v;
                    out.len += 1;
                }
            };
            if da >= 0.0 {
                push(&mut out, a);
            }
            if (da >= 0.0) != (db >= 0.0) {
                push(&mut out, between(&a, &b, da / (da - db)));
            }
        }
        poly = out;
        if poly.len < 3 {
            poly.len = 0;
            return poly;
        }
    }
    poly
}

/// Clips a segment to the parameter range `[t0, t1]` of `a -> b` that lies
/// inside every plane, or `None`.
pub fn clip_segment(a: [f32; 4], b: [f32; 4]) -> Option<(f32, f32)> {
    let (da, db) = (distances(a), distances(b));
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for plane in 0..6 {
        let (p, q) = (da[plane], db[plane]);
        if p < 0.0 && q < 0.0 {
            return None;
        }
        if p < 0.0 {
            t0 = t0.max(p / (p - q));
        } else if q < 0.0 {
            t1 = t1.min(p / (p - q));
        }
    }
    (t0 <= t1).then_some((t0, t1))
}
