//! The vertices Amber's Vulkan engine builds for `DRAW_RECT` and
//! `DRAW_GRID` (its `EngineVulkan::DoDrawRect` and `DoDrawGrid`): positions
//! in normalized device coordinates (an `R32G32_SFLOAT` vertex buffer read by
//! the passthrough vertex shader), computed in `f32` as Amber does, drawn
//! over the viewport `(0, 0, width, height, 0, 1)`.

use alloc::vec::Vec;

use super::assemble::Topology;

/// A framebuffer rectangle (`POS x y SIZE w h`) in normalized device
/// coordinates: `2 x / size - 1`.
fn to_ndc(r: Rect, framebuffer: (u32, u32)) -> [f32; 4] {
    let (fw, fh) = (framebuffer.0 as f32, framebuffer.1 as f32);
    [
        ((r.x / fw) * 2.0) - 1.0,
        ((r.y / fh) * 2.0) - 1.0,
        (r.width / fw) * 2.0,
        (r.height / fh) * 2.0,
    ]
}

/// A rectangle of the framebuffer, in pixels (`POS x y SIZE width height`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

/// `DRAW_RECT`: four vertices drawn as a [`Topology::TriangleStrip`]:
/// bottom left, top left, bottom right, top right ("bottom" being `y +
/// height`). `framebuffer` is (width, height).
pub fn draw_rect(rect: Rect, framebuffer: (u32, u32)) -> (Topology, [[f32; 2]; 4]) {
    let [x, y, w, h] = to_ndc(rect, framebuffer);
    (
        Topology::TriangleStrip,
        [[x, y + h], [x, y], [x + w, y + h], [x + w, y]],
    )
}

/// `DRAW_GRID ... CELLS columns rows`: six vertices a cell, row by row,
/// drawn as a [`Topology::TriangleList`]: (bottom right, bottom left, top
/// left) and (bottom right, top left, top right).
pub fn draw_grid(
    rect: Rect,
    columns: u32,
    rows: u32,
    framebuffer: (u32, u32),
) -> (Topology, Vec<[f32; 2]>) {
    let [x, y, w, h] = to_ndc(rect, framebuffer);
    let (cw, ch) = (w / columns as f32, h / rows as f32);
    // The caller bounds the cells; the reservation is bounded regardless.
    let cells = (columns as usize).saturating_mul(rows as usize);
    let mut out = Vec::with_capacity(cells.min(1 << 16) * 6);
    for i in 0..rows {
        for j in 0..columns {
            let (x0, y0) = (x + cw * j as f32, y + ch * i as f32);
            let (x1, y1) = (x + cw * (j + 1) as f32, y + ch * (i + 1) as f32);
            out.extend_from_slice(&[[x1, y1], [x0, y1], [x0, y0], [x1, y1], [x0, y0], [x1, y0]]);
        }
    }
    (Topology::TriangleList, out)
}

/// Amber's `PASSTHROUGH` vertex shader, as SPIR-V assembly: the `vec4` at
/// Location 0 is the clip-space position (a `DRAW_RECT` or `DRAW_GRID`
/// vertex is two floats; vertex input fills z with 0 and w with 1).
pub const PASSTHROUGH_VERTEX: &str = "\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main \"main\" %position %gl_Position
               OpName %main \"main\"
               OpName %position \"position\"
               OpName %gl_Position \"gl_Position\"
               OpDecorate %position Location 0
               OpDecorate %gl_Position BuiltIn Position
       %void = OpTypeVoid
     %fn_void = OpTypeFunction %void
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
  %ptr_in_v4 = OpTypePointer Input %vec4
 %ptr_out_v4 = OpTypePointer Output %vec4
   %position = OpVariable %ptr_in_v4 Input
%gl_Position = OpVariable %ptr_out_v4 Output
       %main = OpFunction %void None %fn_void
      %entry = OpLabel
          %p = OpLoad %vec4 %position
               OpStore %gl_Position %p
               OpReturn
               OpFunctionEnd
";
