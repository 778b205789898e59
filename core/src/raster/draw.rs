//! A draw's primitives from clip-space positions to quads: clipping,
//! viewport transform, culling, rasterisation.

use super::assemble::Primitive;
use super::clip::{
    ClipVertex, between, clip_segment, clip_triangle, inside_depth_range, is_finite,
};
use super::line::LineSetup;
use super::point::PointSetup;
use super::quad::Quad;
use super::triangle::{Setup, SetupVertex};
use super::viewport::Viewport;
use super::{CullMode, DepthSlope, FrontFace, PixelRect, PolygonMode};

/// The fixed-function state of a graphics pipeline that rasterisation
/// reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    pub viewport: Viewport,
    /// The scissor rectangle; `None` is the whole framebuffer.
    pub scissor: Option<PixelRect>,
    pub framebuffer: (u32, u32),
    pub cull: CullMode,
    pub front_face: FrontFace,
    pub polygon_mode: PolygonMode,
    pub line_width: f32,
}

impl State {
    /// What Amber sets up for a framebuffer: the full viewport, no scissor,
    /// no culling, counter-clockwise front faces, filled polygons, lines 1
    /// wide.
    pub fn for_framebuffer(width: u32, height: u32) -> State {
        State {
            viewport: Viewport::full(width, height),
            scissor: None,
            framebuffer: (width, height),
            cull: CullMode::None,
            front_face: FrontFace::CounterClockwise,
            polygon_mode: PolygonMode::Fill,
            line_width: 1.0,
        }
    }

    /// The pixels a fragment may land on: framebuffer, scissor and the
    /// viewport's rectangle.
    pub fn bounds(&self) -> PixelRect {
        let fb = PixelRect::of_size(self.framebuffer.0, self.framebuffer.1);
        let fb = match self.scissor {
            Some(s) => fb.intersect(s),
            None => fb,
        };
        fb.intersect(self.viewport.pixels())
    }
}

/// The primitive a quad belongs to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrimitiveInfo {
    /// Its position in the draw's list of primitives (`PrimitiveId`).
    pub index: usize,
    pub primitive: Primitive,
    /// `FrontFacing` (lines and points are front-facing).
    pub front_facing: bool,
    /// The triangle's depth slope (zero for lines and points).
    pub depth_slope: DepthSlope,
}

fn setup_vertex(viewport: &Viewport, v: &ClipVertex) -> SetupVertex {
    SetupVertex {
        screen: viewport.transform(v.pos),
        bary: v.bary,
        linear: v.linear,
    }
}

fn unit(k: usize, pos: [f32; 4]) -> ClipVertex {
    let mut w = [0.0; 3];
    w[k] = 1.0;
    ClipVertex {
        pos,
        bary: w,
        linear: w,
    }
}

/// Rasterises `primitives`, whose vertex numbers index `positions` (the
/// vertex shader's `Position` per vertex) and `point_sizes` (its
/// `PointSize`, 1.0 where missing), calling `f` for each quad with a
/// covered pixel, primitive by primitive in order. A primitive naming a
/// vertex beyond `positions`, or with a position that is not finite, is
/// dropped. A triangle that clipping splits gives one triangle after another
/// of a fan, so a quad on their shared edges comes once per triangle with
/// the lanes that triangle covers.
pub fn draw(
    state: &State,
    primitives: &[Primitive],
    positions: &[[f32; 4]],
    point_sizes: &[f32],
    mut f: impl FnMut(&PrimitiveInfo, &Quad),
) {
    let bounds = state.bounds();
    if bounds.is_empty() {
        return;
    }
    let vp = &state.viewport;
    let size_of = |v: u32| point_sizes.get(v as usize).copied().unwrap_or(1.0);
    for (index, prim) in primitives.iter().enumerate() {
        let mut pos = [[0.0f32; 4]; 3];
        let len = (prim.len as usize).min(3);
        let mut ok = true;
        for (p, &v) in pos.iter_mut().zip(&prim.vertices[..len]) {
            match positions.get(v as usize) {
                Some(&q) if is_finite(q) => *p = q,
                _ => ok = false,
            }
        }
        if !ok {
            continue;
        }
        let mut info = PrimitiveInfo { index, primitive: *prim, front_facing: true, depth_slope: DepthSlope::default() };
        let corners = [0, 1, 2].map(|k| unit(k, pos[k]));
        match len {
            3 => {
                let poly = clip_triangle(pos);
                let v = poly.as_slice();
                let mut setups = (1..v.len().saturating_sub(1)).filter_map(|i| {
                    let tri = [setup_vertex(vp, &v[0]), setup_vertex(vp, &v[i]), setup_vertex(vp, &v[i + 1])];
                    Setup::new(tri, state.front_face)
                });
                if state.polygon_mode == PolygonMode::Fill {
                    for setup in setups {
                        if !state.cull.culls(setup.front_facing) {
                            info.front_facing = setup.front_facing;
                            info.depth_slope = setup.depth_slope;
                            setup.rasterize(bounds, |q| f(&info, q));
                        }
                    }
                    continue;
                }
                // Line and point modes: the triangle's facing and culling,
                // then its edges or vertices.
                let Some(first) = setups.next() else { continue };
                if state.cull.culls(first.front_facing) {
                    continue;
                }
                info.front_facing = first.front_facing;
                info.depth_slope = first.depth_slope;
                for k in 0..3 {
                    if state.polygon_mode == PolygonMode::Line {
                        draw_line(state, bounds, &corners[k], &corners[(k + 1) % 3], &info, &mut f);
                    } else {
                        draw_point(state, bounds, &corners[k], size_of(prim.vertices[k]), &info, &mut f);
                    }
                }
            }
            2 => draw_line(state, bounds, &corners[0], &corners[1], &info, &mut f),
            1 => draw_point(state, bounds, &corners[0], size_of(prim.vertices[0]), &info, &mut f),
            _ => {}
        }
    }
}

/// The segment `a -> b`, clipped, as a rectangle of the line width.
fn draw_line(
    state: &State,
    bounds: PixelRect,
    a: &ClipVertex,
    b: &ClipVertex,
    info: &PrimitiveInfo,
    f: &mut impl FnMut(&PrimitiveInfo, &Quad),
) {
    let Some((t0, t1)) = clip_segment(a.pos, b.pos) else { return };
    let (a, b) = (between(a, b, t0), between(a, b, t1));
    let vp = &state.viewport;
    if let Some(line) = LineSetup::new(setup_vertex(vp, &a), setup_vertex(vp, &b), state.line_width) {
        line.rasterize(bounds, |q| f(info, q));
    }
}

/// A point of side `size` at `v`, dropped when `v` is outside the depth
/// range or behind the eye.
fn draw_point(
    state: &State,
    bounds: PixelRect,
    v: &ClipVertex,
    size: f32,
    info: &PrimitiveInfo,
    f: &mut impl FnMut(&PrimitiveInfo, &Quad),
) {
    if !inside_depth_range(v.pos) {
        return;
    }
    if let Some(point) = PointSetup::new(setup_vertex(&state.viewport, v), size) {
        point.rasterize(bounds, |q| f(info, q));
    }
}
