//! A draw's primitives from clip-space positions to quads: clipping,
//! viewport transform, culling, rasterisation.

use super::assemble::Primitive;
use super::clip::{
    ClipVertex, between, clip_segment, clip_triangle, inside_view_volume, is_finite,
};
use super::line::LineSetup;
use super::point::PointSetup;
use super::quad::Quad;
use super::triangle::{Setup, SetupVertex};
use super::viewport::Viewport;
use super::{CullMode, FrontFace, PixelRect};

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
    pub line_width: f32,
}

impl State {
    /// What Amber sets up for a framebuffer: the full viewport, no scissor,
    /// no culling, counter-clockwise front faces, lines 1 wide.
    pub fn for_framebuffer(width: u32, height: u32) -> State {
        State {
            viewport: Viewport::full(width, height),
            scissor: None,
            framebuffer: (width, height),
            cull: CullMode::None,
            front_face: FrontFace::CounterClockwise,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrimitiveInfo {
    /// Its position in the draw's list of primitives (`PrimitiveId`).
    pub index: usize,
    pub primitive: Primitive,
    /// `FrontFacing` (lines and points are front-facing).
    pub front_facing: bool,
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
        let mut info = PrimitiveInfo {
            index,
            primitive: *prim,
            front_facing: true,
        };
        match len {
            3 => {
                let poly = clip_triangle(pos);
                let v = poly.as_slice();
                for i in 1..v.len().saturating_sub(1) {
                    let tri = [
                        setup_vertex(vp, &v[0]),
                        setup_vertex(vp, &v[i]),
                        setup_vertex(vp, &v[i + 1]),
                    ];
                    let Some(setup) = Setup::new(tri, state.front_face) else {
                        continue;
                    };
                    if state.cull.culls(setup.front_facing) {
                        continue;
                    }
                    info.front_facing = setup.front_facing;
                    setup.rasterize(bounds, |q| f(&info, q));
                }
            }
            2 => {
                let Some((t0, t1)) = clip_segment(pos[0], pos[1]) else {
                    continue;
                };
                let (a, b) = (unit(0, pos[0]), unit(1, pos[1]));
                let (a, b) = (between(&a, &b, t0), between(&a, &b, t1));
                if let Some(line) =
                    LineSetup::new(setup_vertex(vp, &a), setup_vertex(vp, &b), state.line_width)
                {
                    line.rasterize(bounds, |q| f(&info, q));
                }
            }
            1 => {
                if !inside_view_volume(pos[0]) {
                    continue;
                }
                let size = point_sizes
                    .get(prim.vertices[0] as usize)
                    .copied()
                    .unwrap_or(1.0);
                if let Some(point) = PointSetup::new(setup_vertex(vp, &unit(0, pos[0])), size) {
                    point.rasterize(bounds, |q| f(&info, q));
                }
            }
            _ => {}
        }
    }
}
