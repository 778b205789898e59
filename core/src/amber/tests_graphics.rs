//! The graphics subset: parsing each construct and its near misses, and
//! the runner on an executor that paints its colour attachments and records
//! what it was given.

use super::*;
use crate::raster::{self, Framebuffer};
use alloc::vec;

const FRAG: &str = "               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main \"main\" %color
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %color Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
         %v4 = OpTypeVector %float 4
        %ptr = OpTypePointer Output %v4
      %color = OpVariable %ptr Output
        %one = OpConstant %float 1
       %zero = OpConstant %float 0
      %green = OpConstantComposite %v4 %zero %one %zero %one
       %main = OpFunction %void None %fn
          %l = OpLabel
               OpStore %color %green
               OpReturn
               OpFunctionEnd
";

/// A script around `pipeline` (the lines inside PIPELINE graphics p) and
/// `commands`.
fn script(pipeline: &str, commands: &str) -> String {
    format!(
        "#!amber\nSHADER vertex vs PASSTHROUGH\nSHADER fragment fs SPIRV-ASM\n{FRAG}END\n\
         BUFFER fb FORMAT B8G8R8A8_UNORM\nBUFFER ffb FORMAT R32G32B32A32_SFLOAT\nBUFFER depth FORMAT D24_UNORM_S8_UINT\n\
         BUFFER verts DATA_TYPE vec2<float> DATA -1 -1 1 -1 -1 1 END\nBUFFER idx DATA_TYPE uint16 DATA 2 1 0 END\n\
         BUFFER u DATA_TYPE int32[] STD140 DATA 7 8 END\n\
         PIPELINE graphics p\n  ATTACH vs\n  ATTACH fs\n{pipeline}END\n{commands}"
    )
}

const FULL: &str = "  FRAMEBUFFER_SIZE 8 4\n  VIEWPORT 1 1 SIZE 4 2 MIN_DEPTH 0.25\n  BIND BUFFER fb AS color LOCATION 0\n  BIND BUFFER depth AS depth_stencil\n  BIND BUFFER u AS uniform DESCRIPTOR_SET 0 BINDING 1\n  VERTEX_DATA verts LOCATION 0\n  INDEX_DATA idx\n  CULL_MODE back\n  FRONT_FACE clockwise\n  POLYGON_MODE line\n  LINE_WIDTH 2\n  DEPTH\n    TEST on\n    WRITE on\n    COMPARE_OP less_or_equal\n    CLAMP off\n    BOUNDS min 0.0 max 1.0\n    BIAS constant 1.0 clamp 0.0 slope 2.0\n  END\n  BLEND\n    SRC_COLOR_FACTOR src_alpha\n    DST_COLOR_FACTOR one_minus_src_alpha\n    COLOR_OP reverse_substract\n  END\n";

#[test]
fn parses_a_graphics_pipeline() {
    let src = script(FULL, "CLEAR_COLOR p 255 0 0 255\nCLEAR_DEPTH p 0.5\nCLEAR p\nRUN p DRAW_RECT POS 0 0 SIZE 8 4\nRUN p DRAW_GRID POS 0 0 SIZE 8 4 CELLS 2 1\nRUN p DRAW_ARRAY AS TRIANGLE_LIST INDEXED START_IDX 1 COUNT 2 INSTANCE_COUNT 3\nEXPECT fb IDX 0 0 SIZE 8 4 EQ_RGBA 0 255 0 255 TOLERANCE 1 2 3 4%\nEXPECT fb IDX 0 0 SIZE 1 1 EQ_RGB 0 255 0\nEXPECT fb EQ_HISTOGRAM_EMD_BUFFER fb TOLERANCE 0.005\n");
    let s = parse(&src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.shaders[0].stage, ShaderStage::Vertex);
    assert!(s.shaders[0].passthrough && s.shaders[0].text == graphics::PASSTHROUGH);
    assert_eq!(s.shaders[1].stage, ShaderStage::Fragment);
    let g = s.pipelines[0].graphics.as_deref().expect("a graphics pipeline");
    assert_eq!(g.attach.iter().map(|a| (a.shader.as_str(), a.stage)).collect::<Vec<_>>(), [("vs", ShaderStage::Vertex), ("fs", ShaderStage::Fragment)]);
    assert_eq!(g.framebuffer, (8, 4));
    let v = g.viewport.expect("a viewport");
    assert_eq!((v.x, v.y, v.width, v.height, v.min_depth, v.max_depth), (1.0, 1.0, 4.0, 2.0, 0.25, 1.0));
    assert_eq!(g.colors.len(), 1);
    assert_eq!((g.colors[0].location, g.colors[0].format), (0, raster::ColorFormat::B8G8R8A8Unorm));
    assert_eq!(g.depth.as_ref().map(|d| d.1), Some(raster::DepthFormat::D24UnormS8Uint));
    assert_eq!(g.vertex_data[0].format, raster::VertexFormat { kind: raster::AttrKind::Float, width: 32, components: 2 });
    assert_eq!(g.vertex_data[0].stride, 8);
    assert_eq!(g.index_data.as_ref().map(|i| i.0.as_str()), Some("idx"));
    assert_eq!(g.depth_state, raster::DepthState { test: true, write: true, op: raster::CompareOp::LessOrEqual });
    assert_eq!(g.depth_bias, Some(raster::DepthBias { constant: 1.0, clamp: 0.0, slope: 2.0 }));
    assert!(g.blend.enable && g.blend.src_color == raster::BlendFactor::SrcAlpha && g.blend.dst_color == raster::BlendFactor::OneMinusSrcAlpha && g.blend.color_op == raster::BlendOp::ReverseSubtract);
    assert_eq!((g.cull, g.front_face, g.polygon_mode, g.line_width), (raster::CullMode::Back, raster::FrontFace::Clockwise, raster::PolygonMode::Line, 2.0));
    // The attachments take the framebuffer's size; `int32[] STD140` pads
    // each element to 16 bytes.
    let fb = s.buffers.iter().find(|b| b.name == "fb").expect("fb");
    assert_eq!((fb.data.len(), fb.image), (8 * 4 * 4, Some(([8, 4, 1], 1))));
    assert_eq!(s.buffers.iter().find(|b| b.name == "u").map(|b| b.data.len()), Some(32));
    assert!(matches!(&s.commands[0], Command::ClearColor { rgba, .. } if *rgba == [1.0, 0.0, 0.0, 1.0]));
    assert!(matches!(&s.commands[1], Command::ClearDepth { depth, .. } if *depth == 0.5));
    assert!(matches!(&s.commands[2], Command::Clear { .. }));
    assert!(matches!(&s.commands[3], Command::Draw { draw: Draw::Rect { rect }, .. } if rect.width == 8.0));
    assert!(matches!(&s.commands[4], Command::Draw { draw: Draw::Grid { columns: 2, rows: 1, .. }, .. }));
    assert!(matches!(&s.commands[5], Command::Draw { draw: Draw::Array { topology: raster::Topology::TriangleList, indexed: true, start: 1, count: Some(2), first_instance: 0, instances: 3 }, .. }));
    match &s.commands[6] {
        Command::ExpectRgba { rgba, alpha, tolerance, .. } => {
            assert_eq!((*rgba, *alpha, tolerance.len()), ([0, 255, 0, 255], true, 4));
            assert!(tolerance[3].percent && !tolerance[0].percent);
        }
        c => panic!("{c:?}"),
    }
    assert!(matches!(&s.commands[7], Command::ExpectRgba { alpha: false, .. }));
    assert!(matches!(&s.commands[8], Command::ExpectBuffer { cmp: BufferCmp::HistogramEmd(t), .. } if *t == 0.005));
}

#[test]
fn near_misses_are_located_errors() {
    let bad = |pipeline: &str, commands: &str, line_has: &str| {
        let src = script(pipeline, commands);
        let e = parse(&src).expect_err("an error");
        assert!(!e.is_graphics(), "{e}");
        let want = src.lines().position(|l| l.contains(line_has)).expect("the line") as u32 + 1;
        assert_eq!(e.line, want, "{e}");
        e
    };
    let color = "  BIND BUFFER fb AS color LOCATION 0\n";
    let e = bad("  BIND BUFFER fb AS color LOCATION x\n", "", "LOCATION x");
    assert!(e.message.contains("LOCATION") && e.col > 1, "{e}");
    bad("  BIND BUFFER fb AS color LOCATION 9\n", "", "LOCATION 9");
    bad(&format!("{color}  BIND BUFFER ffb AS color LOCATION 0\n"), "", "ffb AS color");
    // A format no colour attachment has.
    let e = bad("  BIND BUFFER verts AS color LOCATION 0\n", "", "verts AS color");
    assert!(e.message.contains("R32G32_SFLOAT"), "{e}");
    bad("  BIND BUFFER fb AS depth_stencil\n", "", "fb AS depth_stencil");
    bad(&format!("{color}  FRAMEBUFFER_SIZE 0 4\n"), "", "FRAMEBUFFER_SIZE");
    bad(&format!("{color}  VIEWPORT 0 0 4 4\n"), "", "VIEWPORT");
    bad(&format!("{color}  VERTEX_DATA nothing LOCATION 0\n"), "", "VERTEX_DATA");
    bad(&format!("{color}  CULL_MODE sideways\n"), "", "CULL_MODE");
    bad(&format!("{color}  DEPTH\n    COMPARE_OP sometimes\n  END\n"), "", "COMPARE_OP");
    // A missing framebuffer: at the pipeline's END.
    let src = script("", "");
    let e = parse(&src).expect_err("no framebuffer");
    assert!(e.message.contains("framebuffer"), "{e}");
    // Draws: on a compute pipeline, with bad numbers, without vertex data.
    let compute = "PIPELINE compute c\n  ATTACH fs\nEND\nRUN c DRAW_RECT POS 0 0 SIZE 1 1\n";
    let e = bad(color, compute, "RUN c");
    assert!(e.message.contains("compute pipeline"), "{e}");
    bad(color, "RUN p DRAW_RECT POS 0 0 SIZE x 1\n", "RUN p");
    bad(color, "RUN p 1 1 1\n", "RUN p");
    bad(color, "RUN p DRAW_ARRAY AS TRIANGLE_LIST\n", "RUN p");
    bad(color, "CLEAR_COLOR p 256 0 0 0\n", "CLEAR_COLOR");
    bad(color, "CLEAR q\n", "CLEAR q");
    bad(color, "EXPECT fb IDX 0 0 SIZE 1 1 EQ_RGB 0 0 0 TOLERANCE 1 1 1 1\n", "EXPECT");
}

#[test]
fn geometry_and_tessellation_are_not_run() {
    let color = "  BIND BUFFER fb AS color LOCATION 0\n  VERTEX_DATA verts LOCATION 0\n";
    for (pipeline, commands) in [
        ("  PATCH_CONTROL_POINTS 3\n", ""),
        (color, "RUN p DRAW_ARRAY AS PATCH_LIST\n"),
        (color, "RUN p DRAW_ARRAY AS TRIANGLE_LIST_WITH_ADJACENCY\n"),
    ] {
        let e = parse(&script(pipeline, commands)).expect_err("not run");
        assert!(e.is_graphics(), "{e}");
    }
    let e = parse("#!amber\nSHADER geometry g GLSL\nvoid main() {}\nEND\n").expect_err("not run");
    assert!(e.is_graphics() && e.message.starts_with(GRAPHICS), "{e}");
}

/// Paints its colour attachments one colour and records each draw.
struct Painter {
    paint: [f32; 4],
    jobs: Vec<(raster::Pipeline, raster::DrawCmd, String, String)>,
    /// Per draw: the first colour attachment's texel (0, 0) before it
    /// painted, and each attachment's size.
    seen: Vec<([f32; 4], Vec<(u32, u32)>)>,
    depth: Vec<Option<f32>>,
}

impl Executor for Painter {
    fn dispatch(&mut self, _: &Dispatch, _: &mut Buffers) -> Result<(), ExecError> {
        Ok(())
    }

    fn draw(&mut self, job: &DrawJob, fb: &mut Framebuffer, buffers: &mut Buffers) -> Result<(), ExecError> {
        self.jobs.push((job.pipeline.clone(), job.draw.clone(), job.vertex.entry.into(), job.fragment.shader.into()));
        let first = fb.colors[0].attachment.read(0, 0).unwrap_or_default();
        self.seen.push((first, fb.colors.iter().map(|c| (c.attachment.width, c.attachment.height)).collect()));
        self.depth.push(fb.depth.as_ref().and_then(|d| d.buffer.read(0, 0)));
        for c in &mut fb.colors {
            c.attachment.clear(self.paint);
        }
        // A uniform bound at (0, 1) comes in as a binding's bytes.
        if let Some(u) = buffers.get_mut(&(0, 1)) {
            u[0] = 9;
        }
        Ok(())
    }
}

fn painter() -> Painter {
    Painter { paint: [0.0, 1.0, 0.0, 1.0], jobs: Vec::new(), seen: Vec::new(), depth: Vec::new() }
}

#[test]
fn the_runner_draws_through_the_executor() {
    let pipeline = "  FRAMEBUFFER_SIZE 8 4\n  BIND BUFFER fb AS color LOCATION 0\n  BIND BUFFER ffb AS color LOCATION 1\n  BIND BUFFER depth AS depth_stencil\n  BIND BUFFER u AS uniform DESCRIPTOR_SET 0 BINDING 1\n  VERTEX_DATA verts LOCATION 0\n  INDEX_DATA idx\n";
    let commands = "CLEAR_COLOR p 255 0 0 255\nCLEAR_DEPTH p 0.5\nCLEAR p\n\
        EXPECT fb IDX 0 0 SIZE 8 4 EQ_RGBA 255 0 0 255\n\
        RUN p DRAW_RECT POS 0 0 SIZE 8 4\n\
        EXPECT fb IDX 0 0 SIZE 8 4 EQ_RGBA 0 255 0 255\n\
        EXPECT fb IDX 0 0 SIZE 8 4 EQ_RGB 0 254 0\n\
        EXPECT fb IDX 0 0 SIZE 8 4 EQ_RGB 0 250 0 TOLERANCE 0.02\n\
        EXPECT ffb IDX 7 3 SIZE 1 1 EQ_RGBA 0 255 0 255\n\
        EXPECT ffb IDX 0 0 SIZE 8 4 EQ_RGBA 0 254 0 255\n\
        EXPECT fb IDX 0 0 SIZE 9 4 EQ_RGBA 0 255 0 255\n\
        EXPECT u IDX 0 EQ 9\n\
        RUN p DRAW_ARRAY AS TRIANGLE_LIST INDEXED START_IDX 1\n\
        RUN p DRAW_GRID POS 0 0 SIZE 4 4 CELLS 2 2\n";
    let s = parse(&script(pipeline, commands)).unwrap_or_else(|e| panic!("{e}"));
    let mut e = painter();
    let out = run_on(&s, &RunOptions::default(), &mut e).unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<u32> = out.failures.iter().map(|f| f.line).collect();
    let at = |needle: &str| {
        script(pipeline, commands).lines().position(|l| l.contains(needle)).expect("the line") as u32 + 1
    };
    // 0 254 0 is one 255th off (over 0.002); a float attachment holds 254/255
    // exactly but not 1.0; the rectangle past the image fails.
    assert_eq!(lines, [at("EQ_RGB 0 254 0"), at("EQ_RGBA 0 254 0 255"), at("SIZE 9 4")], "{:?}", out.failures);
    assert_eq!(out.checked, 8);
    assert_eq!(e.jobs.len(), 3);
    // The first draw: DRAW_RECT's strip over the whole framebuffer, the
    // clear colour in the attachments, their size the framebuffer's.
    let (p, d, entry, frag) = &e.jobs[0];
    assert_eq!((entry.as_str(), frag.as_str()), ("main", "fs"));
    assert_eq!(p.state.framebuffer, (8, 4));
    assert_eq!(p.state.viewport, raster::Viewport::full(8, 4));
    assert_eq!(d.topology, raster::Topology::TriangleStrip);
    assert_eq!(d.indices, raster::DrawIndices::Sequential { first: 0, count: 4 });
    let vb = p.input(0).expect("positions at Location 0");
    let pos: Vec<f32> = vb.data.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    assert_eq!(pos, [-1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0]);
    assert_eq!(e.seen[0], ([1.0, 0.0, 0.0, 1.0], vec![(8, 4), (8, 4)]));
    // The depth cleared to 0.5 as D24 (the stencil bytes at the end).
    assert!((e.depth[0].expect("a depth") - 0.5).abs() < 1e-6);
    // DRAW_ARRAY INDEXED from index 1: the indices 1 and 0, the VERTEX_DATA.
    let (p, d, _, _) = &e.jobs[1];
    assert_eq!(d.indices, raster::DrawIndices::Indexed { indices: vec![1, 0], restart: None });
    assert_eq!(p.input(0).map(|b| b.data.len()), Some(24));
    assert_eq!(e.seen[1].0, [0.0, 1.0, 0.0, 1.0], "draws accumulate");
    let (_, d, _, _) = &e.jobs[2];
    assert_eq!(d.indices, raster::DrawIndices::Sequential { first: 0, count: 24 });
}

#[test]
fn a_backend_that_does_not_draw_is_not_run() {
    let s = parse(&script("  BIND BUFFER fb AS color LOCATION 0\n", "RUN p DRAW_RECT POS 0 0 SIZE 1 1\n")).expect("parses");
    struct ComputeOnly;
    impl Executor for ComputeOnly {
        fn dispatch(&mut self, _: &Dispatch, _: &mut Buffers) -> Result<(), ExecError> {
            Ok(())
        }
    }
    let e = run_on(&s, &RunOptions::default(), &mut ComputeOnly).expect_err("a compute-only backend does not draw");
    assert!(e.is_graphics(), "{e}");
    // The interpreter draws it.
    assert!(run(&s, 1000).is_ok());
}

#[test]
fn depth_attachments_as_amber_lays_them_out() {
    let pipeline = "  FRAMEBUFFER_SIZE 2 2\n  BIND BUFFER fb AS color LOCATION 0\n  BIND BUFFER depth AS depth_stencil\n";
    let s = parse(&script(pipeline, "CLEAR_DEPTH p 1.0\nCLEAR p\nEXPECT depth IDX 0 EQ 16777215\nEXPECT depth IDX 8 EQ 16777215 0\n")).expect("parses");
    let out = run_on(&s, &RunOptions::default(), &mut painter()).expect("runs");
    assert!(out.passed(), "{:?}", out.failures);
}

#[test]
fn histogram_emd_and_rmse_by_hand() {
    // One texel black against one white: every channel's earth moves 255
    // bins.
    assert_eq!(probe::histogram_emd(&[0; 4], &[255; 4]), 255.0 / 256.0);
    // Two texels; half of one channel's earth moves one bin.
    let e = probe::histogram_emd(&[0, 0, 0, 0, 0, 0, 0, 0], &[0, 0, 0, 0, 1, 0, 0, 0]);
    assert!((e - 0.5 / 256.0).abs() < 1e-12, "{e}");
    assert_eq!(probe::histogram_emd(&[1, 2, 3, 4, 5, 6, 7, 8], &[5, 6, 7, 8, 1, 2, 3, 4]), 0.0);
    assert_eq!(probe::rmse([3.0, 4.0].into_iter()), libm::sqrt(12.5));
    assert_eq!(probe::rmse(core::iter::empty()), 0.0);
    // Through EXPECT: the painted framebuffer against a cleared one.
    let pipeline = "  FRAMEBUFFER_SIZE 2 1\n  BIND BUFFER fb AS color LOCATION 0\n";
    let src = format!(
        "{}BUFFER ref FORMAT B8G8R8A8_UNORM\nPIPELINE graphics q\n  ATTACH vs\n  ATTACH fs\n  FRAMEBUFFER_SIZE 2 1\n  BIND BUFFER ref AS color LOCATION 0\nEND\n\
         CLEAR q\nRUN p DRAW_RECT POS 0 0 SIZE 2 1\nEXPECT fb EQ_HISTOGRAM_EMD_BUFFER ref TOLERANCE 0.5\nEXPECT fb EQ_HISTOGRAM_EMD_BUFFER ref TOLERANCE 0.9\nEXPECT fb RMSE_BUFFER ref TOLERANCE 200\nEXPECT fb RMSE_BUFFER ref TOLERANCE 100\n",
        script(pipeline, "")
    );
    let s = parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let out = run_on(&s, &RunOptions::default(), &mut painter()).expect("runs");
    // Green and alpha moved 255 bins: 255/256 is over 0.5 and 0.9. The
    // difference is 255 in two of four values: the RMSE is 255/sqrt(2),
    // under 200 and over 100.
    let msgs: Vec<&str> = out.failures.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(out.failures.len(), 3, "{msgs:?}");
    assert!(msgs[2].contains("root mean square"), "{msgs:?}");
}

/// Fails each draw with the interpreter's error at instruction 16 (of the
/// stage assembled from the script: the fragment shader's OpStore).
struct Failing;

impl Executor for Failing {
    fn dispatch(&mut self, _: &Dispatch, _: &mut Buffers) -> Result<(), ExecError> {
        Ok(())
    }

    fn draw(&mut self, _: &DrawJob, _: &mut Framebuffer, _: &mut Buffers) -> Result<(), ExecError> {
        Err(ExecError::Interp(interp::RunError {
            kind: interp::RunErrorKind::NoEntryPoint { name: None },
            inst: Some(16),
            invocation: None,
            block: None,
            related: Vec::new(),
            trace: None,
            site: None,
        }))
    }
}

#[test]
fn a_draw_error_is_located_in_the_shader_text() {
    let src = script("  BIND BUFFER fb AS color LOCATION 0\n", "RUN p DRAW_RECT POS 0 0 SIZE 1 1\n");
    let s = parse(&src).expect("parses");
    let e = run_on(&s, &RunOptions::default(), &mut Failing).expect_err("the draw fails");
    let store = src.lines().position(|l| l.contains("OpStore")).expect("the store") as u32 + 1;
    assert_eq!((e.line, e.col), (store, 16), "{e}");
    assert!(!e.is_graphics() && e.message.contains("in the RUN at line"), "{e}");
}

#[test]
fn derived_pipelines_and_precompiled_graphics_shaders() {
    let commands = "DERIVE_PIPELINE q FROM p\n  FRAMEBUFFER_SIZE 2 2\n  BIND BUFFER ffb AS color LOCATION 1\nEND\nRUN q DRAW_RECT POS 0 0 SIZE 2 2\n";
    let src = script("  FRAMEBUFFER_SIZE 4 4\n", commands).replace("PIPELINE graphics p\n", "SHADER fragment g GLSL\nvoid main() {}\nEND\nPIPELINE graphics p\n").replace("  ATTACH fs\n", "  ATTACH g\n");
    let src = src.replace("  FRAMEBUFFER_SIZE 4 4\n", "  FRAMEBUFFER_SIZE 4 4\n  BIND BUFFER fb AS color LOCATION 0\n");
    let s = parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let q = s.pipelines.iter().find(|p| p.name == "q").and_then(|p| p.graphics.as_deref()).expect("q");
    assert_eq!(q.framebuffer, (2, 2));
    assert_eq!(q.colors.iter().map(|c| c.buffer.as_str()).collect::<Vec<_>>(), ["fb", "ffb"]);
    let p = s.pipelines.iter().find(|p| p.name == "p").and_then(|p| p.graphics.as_deref()).expect("p");
    assert_eq!((p.framebuffer, p.colors.len()), ((4, 4), 1), "the base is unchanged");
    let e = run_on(&s, &RunOptions::default(), &mut painter()).expect_err("the GLSL shader has no module");
    assert!(e.message.contains("precompiled"), "{e}");
    let words = crate::text::asm::assemble(FRAG, &crate::text::asm::AsmOptions::default()).expect("assembles");
    let opts = RunOptions { shaders: BTreeMap::from([(String::from("g"), words)]), ..RunOptions::default() };
    let mut p = painter();
    run_on(&s, &opts, &mut p).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.seen[0].1, [(2, 2), (2, 2)]);
    assert_eq!(p.jobs[0].3, "g");
}
