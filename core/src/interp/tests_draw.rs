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
