//! Draws: hand-written vertex and fragment shaders over the fixed function.

use super::*;
use crate::raster::{self, ColorAttachment, ColorFormat, ColorTarget, DrawCmd, DrawIndices, Framebuffer, Pipeline, VertexBuffer, VertexFormat, AttrKind, BlendState};
use crate::text::asm::{AsmOptions, assemble};
use alloc::vec;

fn ir(text: &str) -> Ir {
    let words = assemble(text, &AsmOptions::default()).expect("the test module assembles");
    Ir::build(crate::binary::read_words(&words).expect("the test module reads back"))
}

/// Location 0 vec4 in -> Position.
const PASSTHROUGH: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main "main" %pos %out
               OpDecorate %pos Location 0
               OpDecorate %out BuiltIn Position
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
     %in_ptr = OpTypePointer Input %vec4
    %out_ptr = OpTypePointer Output %vec4
        %pos = OpVariable %in_ptr Input
        %out = OpVariable %out_ptr Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %p = OpLoad %vec4 %pos
               OpStore %out %p
               OpReturn
               OpFunctionEnd
"#;

/// Colour = (dPdx(FragCoord.x), 0, 0, 1): red where the derivative is 1.
const DERIV_RED: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %coord %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %coord BuiltIn FragCoord
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
     %in_ptr = OpTypePointer Input %vec4
    %out_ptr = OpTypePointer Output %vec4
      %coord = OpVariable %in_ptr Input
      %color = OpVariable %out_ptr Output
       %zero = OpConstant %float 0
        %one = OpConstant %float 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %c = OpLoad %vec4 %coord
          %x = OpCompositeExtract %float %c 0
         %dx = OpDPdx %float %x
          %v = OpCompositeConstruct %vec4 %dx %zero %zero %one
               OpStore %color %v
               OpReturn
               OpFunctionEnd
"#;

fn rect_draw(w: u32, h: u32, rect: raster::draws::Rect) -> (Pipeline, DrawCmd, Framebuffer) {
    let (topology, corners) = raster::draws::draw_rect(rect, (w, h));
    let mut data = Vec::new();
    for c in corners {
        for f in [c[0], c[1], 0.0, 1.0] {
            data.extend_from_slice(&f32::to_le_bytes(f));
        }
    }
    let mut pipeline = Pipeline::for_framebuffer(w, h);
    pipeline.vertex_buffers.push(VertexBuffer {
        location: 0,
        format: VertexFormat { kind: AttrKind::Float, width: 32, components: 4 },
        stride: 16,
        offset: 0,
        data,
    });
    let cmd = DrawCmd { topology, indices: DrawIndices::Sequential { first: 0, count: 4 }, first_instance: 0, instances: 1 };
    let fb = Framebuffer {
        colors: vec![ColorTarget {
            location: 0,
            attachment: ColorAttachment::new(ColorFormat::R8G8B8A8Unorm, w, h, [0.0; 4]).expect("fits"),
            blend: BlendState::default(),
        }],
        depth: None,
    };
    (pipeline, cmd, fb)
}

#[test]
fn derivative_of_frag_coord_x_is_one_over_a_rect() {
    let (v, f) = (ir(PASSTHROUGH), ir(DERIV_RED));
    let stages = Stages { vertex: &v, vertex_entry: None, fragment: &f, fragment_entry: None };
    // Pixels 2..6 by 1..5 of an 8x8 framebuffer.
    let rect = raster::draws::Rect { x: 2.0, y: 1.0, width: 4.0, height: 4.0 };
    let (pipeline, cmd, mut fb) = rect_draw(8, 8, rect);
    let stats = draw(&stages, &pipeline, &cmd, &Options::default(), &mut fb, &mut Buffers::new()).expect("draws");
    assert_eq!(stats.vertices, 4);
    assert_eq!(stats.fragments, 16);
    for y in 0..8 {
        for x in 0..8 {
            let inside = (2..6).contains(&x) && (1..5).contains(&y);
            let want = if inside { [1.0, 0.0, 0.0, 1.0] } else { [0.0; 4] };
            assert_eq!(fb.colors[0].attachment.read(x, y), Some(want), "pixel ({x}, {y})");
        }
    }
}

/// A vertex stage that passes Location 0 to Position and writes, flat at
/// Location 1, `VertexIndex + 100 * InstanceIndex`.
const INDICES_VERTEX: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main "main" %pos %out %vi %ii %id
               OpDecorate %pos Location 0
               OpDecorate %out BuiltIn Position
               OpDecorate %vi BuiltIn VertexIndex
               OpDecorate %ii BuiltIn InstanceIndex
               OpDecorate %id Location 1
               OpDecorate %id Flat
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
       %vec4 = OpTypeVector %float 4
     %in_ptr = OpTypePointer Input %vec4
    %out_ptr = OpTypePointer Output %vec4
     %int_in = OpTypePointer Input %int
   %uint_out = OpTypePointer Output %uint
        %pos = OpVariable %in_ptr Input
        %out = OpVariable %out_ptr Output
         %vi = OpVariable %int_in Input
         %ii = OpVariable %int_in Input
         %id = OpVariable %uint_out Output
    %int_100 = OpConstant %int 100
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %p = OpLoad %vec4 %pos
               OpStore %out %p
          %v = OpLoad %int %vi
          %i = OpLoad %int %ii
         %i1 = OpIMul %int %i %int_100
          %s = OpIAdd %int %v %i1
          %u = OpBitcast %uint %s
               OpStore %id %u
               OpReturn
               OpFunctionEnd
"#;

/// Writes the flat Location 1 input to an integer attachment.
const INDICES_FRAGMENT: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %id %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %id Location 1
               OpDecorate %id Flat
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %in_ptr = OpTypePointer Input %uint
    %out_ptr = OpTypePointer Output %uint
         %id = OpVariable %in_ptr Input
      %color = OpVariable %out_ptr Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %v = OpLoad %uint %id
               OpStore %color %v
               OpReturn
               OpFunctionEnd
"#;

/// Vulkan numbers vertices from `firstVertex` and instances from
/// `firstInstance`, and a flat output takes the provoking vertex, the
/// first of a triangle of a list. Two triangles of a list, one instance
/// from `firstInstance` 5, over an 8x8 R32_UINT attachment: the top-left
/// one (vertices 0..3) gives 0 + 500, the bottom-right one (3..6) 3 + 500,
/// and a pixel neither covers keeps the clear value 0.
#[test]
fn vertex_and_instance_indices_reach_flat_outputs_from_the_provoking_vertex() {
    let (v, f) = (ir(INDICES_VERTEX), ir(INDICES_FRAGMENT));
    let stages = Stages { vertex: &v, vertex_entry: None, fragment: &f, fragment_entry: None };
    // Clip space (y down in framebuffer space): top-left and bottom-right corners.
    let tris: [[f32; 2]; 6] = [[-1.0, -1.0], [0.0, -1.0], [-1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]];
    let mut data = Vec::new();
    for c in tris {
        for x in [c[0], c[1], 0.0, 1.0] {
            data.extend_from_slice(&f32::to_le_bytes(x));
        }
    }
    let mut pipeline = Pipeline::for_framebuffer(8, 8);
    pipeline.vertex_buffers.push(VertexBuffer {
        location: 0,
        format: VertexFormat { kind: AttrKind::Float, width: 32, components: 4 },
        stride: 16,
        offset: 0,
        data,
    });
    let cmd = DrawCmd { topology: raster::Topology::TriangleList, indices: DrawIndices::Sequential { first: 0, count: 6 }, first_instance: 5, instances: 1 };
    let mut fb = Framebuffer {
        colors: vec![ColorTarget {
            location: 0,
            attachment: ColorAttachment::new(ColorFormat::R32Uint, 8, 8, [0.0; 4]).expect("fits"),
            blend: BlendState::default(),
        }],
        depth: None,
    };
    let stats = draw(&stages, &pipeline, &cmd, &Options::default(), &mut fb, &mut Buffers::new()).expect("draws");
    assert_eq!(stats.vertices, 6);
    let at = |x: usize, y: usize| {
        let d = &fb.colors[0].attachment.data;
        let k = 4 * (y * 8 + x);
        u32::from_le_bytes([d[k], d[k + 1], d[k + 2], d[k + 3]])
    };
    assert_eq!(at(0, 0), 500, "top-left: vertex 0, instance 5");
    assert_eq!(at(7, 7), 503, "bottom-right: vertex 3, instance 5");
    assert_eq!(at(4, 0), 0, "uncovered");
}

/// Colour = (dPdxFine(x y), dPdxCoarse(x y), dPdyFine(x y), 1) of
/// FragCoord's x and y, into a float attachment.
const FINE_COARSE: &str = r#"
               OpCapability Shader
               OpCapability DerivativeControl
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %coord %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %coord BuiltIn FragCoord
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
     %in_ptr = OpTypePointer Input %vec4
    %out_ptr = OpTypePointer Output %vec4
      %coord = OpVariable %in_ptr Input
      %color = OpVariable %out_ptr Output
        %one = OpConstant %float 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %c = OpLoad %vec4 %coord
          %x = OpCompositeExtract %float %c 0
          %y = OpCompositeExtract %float %c 1
         %xy = OpFMul %float %x %y
      %dfine = OpDPdxFine %float %xy
    %dcoarse = OpDPdxCoarse %float %xy
      %dyfin = OpDPdyFine %float %xy
          %v = OpCompositeConstruct %vec4 %dfine %dcoarse %dyfin %one
               OpStore %color %v
               OpReturn
               OpFunctionEnd
"#;

/// For f = x y at pixel centres (x + 0.5, y + 0.5): the fine x-derivative
/// of a quad's row is that row's y + 0.5 (the difference of its two
/// pixels), the fine y-derivative of a column its x + 0.5; the coarse one
/// is one value for the whole quad, the fine value of one of its rows (the
/// spec leaves which to the implementation).
#[test]
fn fine_and_coarse_derivatives_follow_their_quad() {
    let (v, f) = (ir(PASSTHROUGH), ir(FINE_COARSE));
    let stages = Stages { vertex: &v, vertex_entry: None, fragment: &f, fragment_entry: None };
    let rect = raster::draws::Rect { x: 0.0, y: 0.0, width: 8.0, height: 8.0 };
    let (pipeline, cmd, mut fb) = rect_draw(8, 8, rect);
    fb.colors[0].attachment = ColorAttachment::new(ColorFormat::R32G32B32A32Sfloat, 8, 8, [0.0; 4]).expect("fits");
    draw(&stages, &pipeline, &cmd, &Options::default(), &mut fb, &mut Buffers::new()).expect("draws");
    let px = |x: u32, y: u32| fb.colors[0].attachment.read(x, y).expect("inside");
    for qy in (0..8).step_by(2) {
        for qx in (0..8).step_by(2) {
            let coarse = px(qx, qy)[1];
            assert!(coarse == qy as f32 + 0.5 || coarse == qy as f32 + 1.5, "quad ({qx}, {qy}): coarse {coarse}");
            for (x, y) in [(qx, qy), (qx + 1, qy), (qx, qy + 1), (qx + 1, qy + 1)] {
                let [fine, c, fine_y, _] = px(x, y);
                assert_eq!(fine, y as f32 + 0.5, "dPdxFine at ({x}, {y})");
                assert_eq!(c, coarse, "dPdxCoarse at ({x}, {y}) is the quad's one value");
                assert_eq!(fine_y, x as f32 + 0.5, "dPdyFine at ({x}, {y})");
            }
        }
    }
}

/// A rectangle over columns 1..3 of a 4x2 framebuffer covers half of each
/// of its two quads, and helper lanes write nothing. Quads run per
/// triangle: DRAW_RECT's strip BL, TL, BR, TR gives (1,2), (1,0), (3,2) and
/// (1,0), (3,2), (3,0), split by the diagonal y = x - 1; the centres (1.5,
/// 0.5) and (2.5, 1.5) lie on it, a left edge of the second triangle (the
/// top-left rule gives them to it), so the first covers (1,1) alone (quad
/// 0..2) and the second (1,0) (quad 0..2) and (2,0), (2,1) (quad 2..4):
/// three quads of four lanes for four fragments, eight helpers.
#[test]
fn a_half_covered_quad_runs_helpers_that_write_nothing() {
    let (v, f) = (ir(PASSTHROUGH), ir(DERIV_RED));
    let stages = Stages { vertex: &v, vertex_entry: None, fragment: &f, fragment_entry: None };
    let rect = raster::draws::Rect { x: 1.0, y: 0.0, width: 2.0, height: 2.0 };
    let (pipeline, cmd, mut fb) = rect_draw(4, 2, rect);
    let stats = draw(&stages, &pipeline, &cmd, &Options::default(), &mut fb, &mut Buffers::new()).expect("draws");
    assert_eq!((stats.fragments, stats.helpers), (4, 8));
    for y in 0..2 {
        for x in 0..4 {
            let want = if (1..3).contains(&x) { [1.0, 0.0, 0.0, 1.0] } else { [0.0; 4] };
            assert_eq!(fb.colors[0].attachment.read(x, y), Some(want), "pixel ({x}, {y})");
        }
    }
}

/// Lanes of odd x demote themselves; each lane then writes red = its quad
/// neighbour across x's HelperInvocation (a horizontal quad swap, Direction
/// 0), green = its own.
const DEMOTE_THEN_READ: &str = r#"
               OpCapability Shader
               OpCapability DemoteToHelperInvocation
               OpCapability GroupNonUniformQuad
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %coord %helper %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %coord BuiltIn FragCoord
               OpDecorate %helper BuiltIn HelperInvocation
               OpDecorate %helper Volatile
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
       %vec4 = OpTypeVector %float 4
     %in_ptr = OpTypePointer Input %vec4
    %in_bool = OpTypePointer Input %bool
    %out_ptr = OpTypePointer Output %vec4
      %coord = OpVariable %in_ptr Input
     %helper = OpVariable %in_bool Input
      %color = OpVariable %out_ptr Output
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_3 = OpConstant %uint 3
       %zero = OpConstant %float 0
        %one = OpConstant %float 1
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %c = OpLoad %vec4 %coord
         %fx = OpCompositeExtract %float %c 0
          %x = OpConvertFToU %uint %fx
        %bit = OpBitwiseAnd %uint %x %uint_1
        %odd = OpIEqual %bool %bit %uint_1
               OpSelectionMerge %go None
               OpBranchConditional %odd %demote %go
     %demote = OpLabel
               OpDemoteToHelperInvocation
               OpBranch %go
         %go = OpLabel
          %h = OpLoad %bool %helper
         %hf = OpSelect %float %h %one %zero
         %nb = OpGroupNonUniformQuadSwap %float %uint_3 %hf %uint_0
          %v = OpCompositeConstruct %vec4 %nb %hf %zero %one
               OpStore %color %v
               OpReturn
               OpFunctionEnd
"#;

/// After OpDemoteToHelperInvocation a lane's (Volatile) HelperInvocation
/// is true: the even columns, which are not demoted, read false for
/// themselves and true for their odd neighbour across x (a quad swap); the
/// odd columns write nothing.
#[test]
fn helper_invocation_reads_a_demotion() {
    let (v, f) = (ir(PASSTHROUGH), ir(DEMOTE_THEN_READ));
    let stages = Stages { vertex: &v, vertex_entry: None, fragment: &f, fragment_entry: None };
    let rect = raster::draws::Rect { x: 0.0, y: 0.0, width: 4.0, height: 4.0 };
    let (pipeline, cmd, mut fb) = rect_draw(4, 4, rect);
    draw(&stages, &pipeline, &cmd, &Options::default(), &mut fb, &mut Buffers::new()).expect("draws");
    for y in 0..4 {
        for x in 0..4 {
            let want = if x % 2 == 0 { [1.0, 0.0, 0.0, 1.0] } else { [0.0; 4] };
            assert_eq!(fb.colors[0].attachment.read(x, y), Some(want), "pixel ({x}, {y})");
        }
    }
}
