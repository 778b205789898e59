//! Interpolating a vertex output for a fragment ("Barycentric
//! Interpolation", "Flat" and "NoPerspective" decorations).

use super::quad::Lane;

/// How a fragment input is interpolated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interpolation {
    /// Perspective-correct (no decoration).
    #[default]
    Smooth,
    /// `NoPerspective`: linear in framebuffer space.
    NoPerspective,
    /// `Flat`: the provoking vertex's value (vertex 0 of the primitive).
    Flat,
}

/// One component: `values[k]` is vertex `k`'s (in the primitive's order;
/// unused vertices of a line or point are ignored by their zero weight).
pub fn interpolate(kind: Interpolation, lane: &Lane, values: [f32; 3]) -> f32 {
    let w = match kind {
        Interpolation::Smooth => lane.bary,
        Interpolation::NoPerspective => lane.linear,
        Interpolation::Flat => return values[0],
    };
    let mut sum = 0.0;
    for k in 0..3 {
        if w[k] != 0.0 {
            sum += w[k] * values[k];
        }
    }
    sum
}

/// Every component of a vector output: `out[c]` from `vertices[k][c]`.
pub fn interpolate_into(kind: Interpolation, lane: &Lane, vertices: [&[f32]; 3], out: &mut [f32]) {
    for (c, o) in out.iter_mut().enumerate() {
        let at = |k: usize| vertices[k].get(c).copied().unwrap_or(0.0);
        *o = interpolate(kind, lane, [at(0), at(1), at(2)]);
    }
}
