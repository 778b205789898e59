//! A 2x2 quad of fragments: what the rasterisers give the fragment stage.

/// One lane of a quad: a pixel and what the fixed function computed for it.
/// Barycentrics are over the primitive's vertices in [`Primitive`] order
/// (`[1, 0, 0]` is the provoking vertex; a line uses two, a point one).
///
/// [`Primitive`]: super::Primitive
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lane {
    /// Perspective-correct barycentrics (smooth interpolation).
    pub bary: [f32; 3],
    /// Barycentrics linear in framebuffer space (`NoPerspective`).
    pub linear: [f32; 3],
    /// `z_f`, interpolated linearly in framebuffer space (FragCoord.z).
    pub depth: f32,
    /// `1 / w_c` interpolated linearly in framebuffer space (FragCoord.w).
    pub inv_w: f32,
}

/// Four lanes at `(x, y)`, `(x+1, y)`, `(x, y+1)`, `(x+1, y+1)` (lane `i`
/// at `x + i % 2, y + i / 2`), `x` and `y` even. Bit `i` of `covered` is set
/// when lane `i`'s pixel centre is covered (and inside the framebuffer,
/// scissor and viewport); the other lanes are helper lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Quad {
    pub x: u32,
    pub y: u32,
    pub covered: u8,
    pub lanes: [Lane; 4],
}

impl Quad {
    /// The pixel of lane `i` (0..4).
    pub fn pixel(&self, i: usize) -> (u32, u32) {
        (self.x + (i as u32 & 1), self.y + (i as u32 >> 1))
    }

    pub fn is_covered(&self, i: usize) -> bool {
        self.covered >> i & 1 == 1
    }

    /// A lane the fragment shader runs only to feed its neighbours'
    /// derivatives (`HelperInvocation`).
    pub fn is_helper(&self, i: usize) -> bool {
        !self.is_covered(i)
    }
}
