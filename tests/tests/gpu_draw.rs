//! Draws on a Vulkan GPU (lavapipe in CI) through the GPU runner's draw
//! path, on every backend: hand-written vertex and fragment modules (valid
//! for spirv-val at vulkan1.1), compared with core's rasteriser (`raster`):
//! a full-screen strip, a triangle's coverage pixel by pixel, the depth test
//! on D32, D16 and D24S8, blending, a uniform buffer, an indexed strip with
//! primitive restart, typed refusals, and the Amber executor's `draw`.
//!
//! Skipped, with a message, only when no Vulkan adapter exists
//! (`SPVLAB_REQUIRE_GPU=1`: a missing adapter fails).

use spvlab_core::amber::{self, Executor};
use spvlab_core::interp::{Buffers, Options};
use spvlab_core::ir::Ir;
use spvlab_core::raster::{
    self, BlendFactor, BlendState, ColorAttachment, ColorFormat, ColorTarget, CompareOp, DepthBuffer, DepthFormat, DepthState,
    DepthTarget, DrawCmd, DrawIndices, Framebuffer, Pipeline, Topology, VertexBuffer, VertexFormat,
};
use spvlab_core::reflect::ExecutionModel;
use spvlab_gpu::{Backend, DrawJob, DrawStage, Gpu, GpuError, GpuErrorKind};
use spvlab_tests::{assert_valid_module, gpu_or_skip};
use std::collections::BTreeMap;
use std::time::Duration;

/// Position (vec4) at Location 0 and colour (vec4) at Location 1; the
/// colour goes out at Location 0; the position through gl_PerVertex.
const VS: &str = "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main \"main\" %pos %col %out_col %pv
               OpDecorate %pos Location 0
               OpDecorate %col Location 1
               OpDecorate %out_col Location 0
               OpMemberDecorate %PerVertex 0 BuiltIn Position
               OpDecorate %PerVertex Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
         %v4 = OpTypeVector %float 4
  %PerVertex = OpTypeStruct %v4
     %ptr_pv = OpTypePointer Output %PerVertex
  %ptr_in_v4 = OpTypePointer Input %v4
 %ptr_out_v4 = OpTypePointer Output %v4
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
         %pv = OpVariable %ptr_pv Output
        %pos = OpVariable %ptr_in_v4 Input
        %col = OpVariable %ptr_in_v4 Input
    %out_col = OpVariable %ptr_out_v4 Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %p = OpLoad %v4 %pos
         %pp = OpAccessChain %ptr_out_v4 %pv %int_0
               OpStore %pp %p
          %c = OpLoad %v4 %col
               OpStore %out_col %c
               OpReturn
               OpFunctionEnd
";

/// The interpolated colour at Location 0 out at Location 0.
const FS_COLOR: &str = "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main \"main\" %in_col %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %in_col Location 0
               OpDecorate %out Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
         %v4 = OpTypeVector %float 4
  %ptr_in_v4 = OpTypePointer Input %v4
 %ptr_out_v4 = OpTypePointer Output %v4
     %in_col = OpVariable %ptr_in_v4 Input
        %out = OpVariable %ptr_out_v4 Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %c = OpLoad %v4 %in_col
               OpStore %out %c
               OpReturn
               OpFunctionEnd
";

/// Solid red.
const FS_RED: &str = "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main \"main\" %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %out Location 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
         %v4 = OpTypeVector %float 4
 %ptr_out_v4 = OpTypePointer Output %v4
    %float_0 = OpConstant %float 0
    %float_1 = OpConstant %float 1
        %red = OpConstantComposite %v4 %float_1 %float_0 %float_0 %float_1
        %out = OpVariable %ptr_out_v4 Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpStore %out %red
               OpReturn
               OpFunctionEnd
";

/// The colour of a uniform block at set 0, binding 0.
const FS_UNIFORM: &str = "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main \"main\" %out
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %out Location 0
               OpDecorate %U Block
               OpMemberDecorate %U 0 Offset 0
               OpDecorate %u DescriptorSet 0
               OpDecorate %u Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
         %v4 = OpTypeVector %float 4
          %U = OpTypeStruct %v4
      %ptr_U = OpTypePointer Uniform %U
  %ptr_u_v4 = OpTypePointer Uniform %v4
 %ptr_out_v4 = OpTypePointer Output %v4
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
          %u = OpVariable %ptr_U Uniform
        %out = OpVariable %ptr_out_v4 Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %pc = OpAccessChain %ptr_u_v4 %u %int_0
          %c = OpLoad %v4 %pc
               OpStore %out %c
               OpReturn
               OpFunctionEnd
";

struct Module {
    words: Vec<u32>,
    ir: Ir,
}

fn module(name: &str, src: &str) -> Module {
    // Tests run in parallel: each check in a scratch folder of its own.
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    assert_valid_module(&format!("gpu_draw_{name}_{n}"), src, "vulkan1.1");
    let env = spvlab_core::TargetEnv::parse("vulkan1.1").unwrap();
    let words = spvlab_core::text::asm::assemble(src, &spvlab_core::text::asm::AsmOptions { env, preserve_numeric_ids: false }).unwrap();
    let ir = Ir::build(spvlab_core::binary::read_words(&words).unwrap());
    Module { words, ir }
}

/// Vertex buffers at Locations 0 (positions) and 1 (colours).
fn vertex_buffers(pos: &[[f32; 4]], col: &[[f32; 4]]) -> Vec<VertexBuffer> {
    let f = VertexFormat::from_name("R32G32B32A32_SFLOAT").unwrap();
    let bytes = |v: &[[f32; 4]]| v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    vec![
        VertexBuffer { location: 0, format: f, stride: 16, offset: 0, data: bytes(pos) },
        VertexBuffer { location: 1, format: f, stride: 16, offset: 0, data: bytes(col) },
    ]
}

fn color_fb(format: ColorFormat, w: u32, h: u32, clear: [f32; 4]) -> Framebuffer {
    Framebuffer {
        colors: vec![ColorTarget { location: 0, attachment: ColorAttachment::new(format, w, h, clear).unwrap(), blend: BlendState::default() }],
        depth: None,
    }
}

fn sequential(topology: Topology, count: u32) -> DrawCmd {
    DrawCmd { topology, indices: DrawIndices::Sequential { first: 0, count }, first_instance: 0, instances: 1 }
}

/// Draw `vs` + `fs` on `backend` (lowering both stages for `wgpu`).
#[allow(clippy::too_many_arguments)]
fn draw(gpu: &Gpu, backend: Backend, vs: &Module, fs: &Module, p: &Pipeline, cmd: &DrawCmd, fb: &mut Framebuffer, buffers: &Buffers) -> Result<Buffers, GpuError> {
    let (wv, wf) = match backend {
        Backend::Wgsl => (
            Some(spvlab_gpu::stage_wgsl(&vs.words, &vs.ir, "main", ExecutionModel::Vertex).map_err(|r| GpuError::refused(backend, "vs", r))?),
            Some(spvlab_gpu::stage_wgsl(&fs.words, &fs.ir, "main", ExecutionModel::Fragment).map_err(|r| GpuError::refused(backend, "fs", r))?),
        ),
        _ => (None, None),
    };
    let aliases = BTreeMap::new();
    let job = DrawJob {
        backend,
        vertex: DrawStage { words: &vs.words, ir: &vs.ir, wgsl: wv.as_ref(), entry: "main" },
        fragment: DrawStage { words: &fs.words, ir: &fs.ir, wgsl: wf.as_ref(), entry: "main" },
        pipeline: p,
        draw: cmd,
        buffers,
        aliases: &aliases,
        push_constants: None,
        resources: None,
        module_name: "test draw",
    };
    gpu.draw_blocking(&job, fb, Duration::from_secs(60))
}

/// The pixels raster covers for this draw (positions from Location 0).
fn raster_coverage(p: &Pipeline, cmd: &DrawCmd, positions: &[[f32; 4]]) -> Vec<bool> {
    let (w, h) = p.state.framebuffer;
    let prims = raster::assemble(cmd.topology, cmd.assembly());
    let mut cov = vec![false; (w * h) as usize];
    raster::draw(&p.state, &prims, positions, &[], |_, q| {
        for i in 0..4 {
            if q.is_covered(i) {
                let (x, y) = q.pixel(i);
                cov[(y * w + x) as usize] = true;
            }
        }
    });
    cov
}

fn gpu() -> Option<Gpu> {
    if !gpu_or_skip("gpu_draw") {
        return None;
    }
    Some(Gpu::new_blocking().unwrap())
}

fn rect_vertices(x: f32, y: f32, w: f32, h: f32, fb: (u32, u32), z: f32) -> Vec<[f32; 4]> {
    let (_, v) = raster::draws::draw_rect(raster::draws::Rect { x, y, width: w, height: h }, fb);
    v.iter().map(|p| [p[0], p[1], z, 1.0]).collect()
}

#[test]
fn a_full_screen_strip_of_red_reads_back_red_on_every_backend() {
    let Some(gpu) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_red", FS_RED));
    let mut p = Pipeline::for_framebuffer(256, 256);
    let pos = rect_vertices(0.0, 0.0, 256.0, 256.0, (256, 256), 0.0);
    p.vertex_buffers = vertex_buffers(&pos, &[[0.0; 4]; 4]);
    let cmd = sequential(Topology::TriangleStrip, 4);
    for b in Backend::ALL {
        let mut fb = color_fb(ColorFormat::B8G8R8A8Unorm, 256, 256, [0.0; 4]);
        draw(&gpu, b, &vs, &fs, &p, &cmd, &mut fb, &Buffers::new()).unwrap_or_else(|e| panic!("{e}"));
        let data = &fb.colors[0].attachment.data;
        let wrong = data.chunks(4).filter(|t| *t != [0, 0, 255, 255]).count();
        eprintln!("{}: full-screen red: {wrong} of 65536 pixels not red", b.name());
        assert_eq!(wrong, 0, "{}", b.name());
    }
}

#[test]
fn a_triangle_covers_exactly_raster_coverage_with_interpolated_colours() {
    let Some(gpu) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_color", FS_COLOR));
    let (w, h) = (97, 61);
    let mut p = Pipeline::for_framebuffer(w, h);
    let pos = [[-0.9, -0.8, 0.0, 1.0], [0.7, -0.3, 0.0, 1.0], [-0.2, 0.85, 0.0, 1.0]];
    let col = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]];
    p.vertex_buffers = vertex_buffers(&pos, &col);
    let cmd = sequential(Topology::TriangleList, 3);
    let want = raster_coverage(&p, &cmd, &pos);
    // The colour raster interpolates at each covered pixel.
    let mut want_col = vec![[0.0f32; 4]; (w * h) as usize];
    let prims = raster::assemble(cmd.topology, cmd.assembly());
    raster::draw(&p.state, &prims, &pos, &[], |info, q| {
        for i in 0..4 {
            if q.is_covered(i) {
                let (x, y) = q.pixel(i);
                let b = q.lanes[i].bary;
                let v = info.primitive.vertices;
                let mut c = [0.0; 4];
                for (k, ck) in c.iter_mut().enumerate() {
                    *ck = (0..3).map(|j| b[j] * col[v[j] as usize][k]).sum();
                }
                want_col[(y * w + x) as usize] = c;
            }
        }
    });
    assert!(want.iter().filter(|c| **c).count() > 500);
    for b in Backend::ALL {
        let mut fb = color_fb(ColorFormat::R8G8B8A8Unorm, w, h, [0.0; 4]);
        draw(&gpu, b, &vs, &fs, &p, &cmd, &mut fb, &Buffers::new()).unwrap_or_else(|e| panic!("{e}"));
        let data = &fb.colors[0].attachment.data;
        let got: Vec<bool> = data.chunks(4).map(|t| t[3] != 0).collect();
        let extra = got.iter().zip(&want).filter(|(g, w)| **g && !**w).count();
        let missing = got.iter().zip(&want).filter(|(g, w)| !**g && **w).count();
        let mut worst = 0i32;
        for (i, t) in data.chunks(4).enumerate() {
            if want[i] && got[i] {
                for k in 0..4 {
                    let e = raster::format::float_to_unorm(want_col[i][k], 8) as i32;
                    worst = worst.max((t[k] as i32 - e).abs());
                }
            }
        }
        eprintln!(
            "{}: triangle: {} pixels covered by raster, {extra} more and {missing} fewer on the GPU; colours within {worst}/255",
            b.name(),
            want.iter().filter(|c| **c).count()
        );
        assert_eq!((extra, missing), (0, 0), "{}", b.name());
        assert!(worst <= 1, "{}: colour off by {worst}/255", b.name());
    }
}

#[test]
fn the_depth_test_less_over_draws_on_d32_d16_and_d24s8() {
    let Some(gpu) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_color", FS_COLOR));
    let (w, h) = (40, 30);
    let red = [[1.0, 0.0, 0.0, 1.0]; 4];
    let green = [[0.0, 1.0, 0.0, 1.0]; 4];
    let blue = [[0.0, 0.0, 1.0, 1.0]; 4];
    // Full at 0.5 (red), full at 0.75 (green: fails), left half at 0.25 (blue).
    let draws = [(rect_vertices(0.0, 0.0, 40.0, 30.0, (w, h), 0.5), red), (rect_vertices(0.0, 0.0, 40.0, 30.0, (w, h), 0.75), green), (rect_vertices(0.0, 0.0, 20.0, 30.0, (w, h), 0.25), blue)];
    for format in [DepthFormat::D32Sfloat, DepthFormat::D16Unorm, DepthFormat::D24UnormS8Uint] {
        for b in Backend::ALL {
            let mut fb = color_fb(ColorFormat::B8G8R8A8Unorm, w, h, [0.0; 4]);
            fb.depth = Some(DepthTarget {
                buffer: DepthBuffer::new(format, w, h, 1.0).unwrap(),
                state: DepthState { test: true, write: true, op: CompareOp::Less },
                bias: None,
                clamp: false,
            });
            for (pos, col) in &draws {
                let mut p = Pipeline::for_framebuffer(w, h);
                p.vertex_buffers = vertex_buffers(pos, col);
                draw(&gpu, b, &vs, &fs, &p, &sequential(Topology::TriangleStrip, 4), &mut fb, &Buffers::new()).unwrap_or_else(|e| panic!("{e}"));
            }
            let d = fb.depth.as_ref().unwrap();
            let mut wrong = 0;
            for y in 0..h {
                for x in 0..w {
                    let i = (y * w + x) as usize;
                    let (z, bgra) = if x < 20 { (0.25, [255, 0, 0, 255]) } else { (0.5, [0, 0, 255, 255]) };
                    let texel = &fb.colors[0].attachment.data[i * 4..i * 4 + 4];
                    if d.buffer.values[i] != format.encode(z) || texel != bgra {
                        wrong += 1;
                    }
                }
            }
            eprintln!("{}: depth {format:?}: {wrong} of {} pixels wrong (colour or depth)", b.name(), w * h);
            assert_eq!(wrong, 0, "{} {format:?}", b.name());
        }
    }
}

#[test]
fn blending_by_source_alpha_matches_raster() {
    let Some(gpu) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_color", FS_COLOR));
    let (w, h) = (16, 16);
    let mut p = Pipeline::for_framebuffer(w, h);
    let src = [0.8, 0.2, 0.4, 0.3];
    p.vertex_buffers = vertex_buffers(&rect_vertices(0.0, 0.0, 16.0, 16.0, (w, h), 0.0), &[src; 4]);
    let blend = BlendState {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        src_alpha: BlendFactor::One,
        dst_alpha: BlendFactor::Zero,
        ..BlendState::default()
    };
    let dst = [0.1, 0.5, 1.0, 1.0];
    let mut want = [0u8; 4];
    let f = ColorFormat::R8G8B8A8Unorm;
    // The destination as stored (8 bits), then blended.
    let stored = f.decode(&{
        let mut t = [0u8; 4];
        f.encode(dst, &mut t);
        t
    });
    f.encode(blend.blend(f, src, [0.0; 4], stored, [0.0; 4]), &mut want);
    for b in Backend::ALL {
        let mut fb = color_fb(f, w, h, dst);
        fb.colors[0].blend = blend;
        draw(&gpu, b, &vs, &fs, &p, &sequential(Topology::TriangleStrip, 4), &mut fb, &Buffers::new()).unwrap_or_else(|e| panic!("{e}"));
        let data = &fb.colors[0].attachment.data;
        let worst = data.chunks(4).flat_map(|t| t.iter().zip(&want).map(|(a, b)| (*a as i32 - *b as i32).abs())).max().unwrap();
        eprintln!("{}: blend: want {want:?}, got {:?}, worst {worst}/255", b.name(), &data[..4]);
        assert!(worst <= 1, "{}", b.name());
    }
}

#[test]
fn a_uniform_buffer_read_by_the_fragment_shader() {
    let Some(gpu) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_uniform", FS_UNIFORM));
    let (w, h) = (8, 8);
    let mut p = Pipeline::for_framebuffer(w, h);
    p.vertex_buffers = vertex_buffers(&rect_vertices(0.0, 0.0, 8.0, 8.0, (w, h), 0.0), &[[0.0; 4]; 4]);
    let c = [0.25f32, 0.5, 0.75, 1.0];
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), c.iter().flat_map(|x| x.to_le_bytes()).collect());
    for b in Backend::ALL {
        let mut fb = color_fb(ColorFormat::R32G32B32A32Sfloat, w, h, [0.0; 4]);
        let out = draw(&gpu, b, &vs, &fs, &p, &sequential(Topology::TriangleStrip, 4), &mut fb, &buffers).unwrap_or_else(|e| panic!("{e}"));
        let data = &fb.colors[0].attachment.data;
        let wrong = data.chunks(16).filter(|t| ColorFormat::R32G32B32A32Sfloat.decode(t) != c).count();
        eprintln!("{}: uniform: {wrong} of 64 pixels wrong", b.name());
        assert_eq!(wrong, 0, "{}", b.name());
        assert_eq!(out.get(&(0, 0)), buffers.get(&(0, 0)), "{}", b.name());
    }
}

#[test]
fn an_indexed_strip_with_primitive_restart_matches_raster() {
    let Some(gpu) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_red", FS_RED));
    let (w, h) = (64, 48);
    let mut pos = rect_vertices(3.0, 5.0, 20.0, 17.0, (w, h), 0.0);
    pos.extend(rect_vertices(30.5, 20.25, 25.0, 21.0, (w, h), 0.0));
    for (restart, name) in [(u32::MAX, "32-bit"), (0xffff, "16-bit")] {
        let mut p = Pipeline::for_framebuffer(w, h);
        p.vertex_buffers = vertex_buffers(&pos, &[[0.0; 4]; 8]);
        let cmd = DrawCmd {
            topology: Topology::TriangleStrip,
            indices: DrawIndices::Indexed { indices: vec![0, 1, 2, 3, restart, 4, 5, 6, 7], restart: Some(restart) },
            first_instance: 0,
            instances: 1,
        };
        let want = raster_coverage(&p, &cmd, &pos);
        for b in Backend::ALL {
            let mut fb = color_fb(ColorFormat::B8G8R8A8Unorm, w, h, [0.0; 4]);
            draw(&gpu, b, &vs, &fs, &p, &cmd, &mut fb, &Buffers::new()).unwrap_or_else(|e| panic!("{e}"));
            let got: Vec<bool> = fb.colors[0].attachment.data.chunks(4).map(|t| t == [0, 0, 255, 255]).collect();
            let diff = got.iter().zip(&want).filter(|(g, w)| g != w).count();
            eprintln!("{}: indexed strip, {name} restart: {} pixels by raster, {diff} differ", b.name(), want.iter().filter(|c| **c).count());
            assert_eq!(diff, 0, "{} {name}", b.name());
        }
    }
}

#[test]
fn bad_draws_are_typed_refusals_naming_the_backend() {
    let Some(gpu) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_red", FS_RED));
    let mut p = Pipeline::for_framebuffer(8, 8);
    p.vertex_buffers = vertex_buffers(&rect_vertices(0.0, 0.0, 8.0, 8.0, (8, 8), 0.0), &[[0.0; 4]; 4]);
    for b in Backend::ALL {
        // Attachments of two sizes.
        let mut fb = color_fb(ColorFormat::B8G8R8A8Unorm, 8, 8, [0.0; 4]);
        fb.colors.push(ColorTarget { location: 1, attachment: ColorAttachment::new(ColorFormat::R32Sfloat, 4, 4, [0.0; 4]).unwrap(), blend: BlendState::default() });
        let cases: Vec<(&str, Framebuffer, DrawCmd)> = vec![
            ("attachments of two sizes", fb, sequential(Topology::TriangleStrip, 4)),
            ("no attachment", Framebuffer::default(), sequential(Topology::TriangleStrip, 4)),
            ("a zero-size framebuffer", color_fb(ColorFormat::B8G8R8A8Unorm, 0, 0, [0.0; 4]), sequential(Topology::TriangleStrip, 4)),
            ("too many vertices", color_fb(ColorFormat::B8G8R8A8Unorm, 8, 8, [0.0; 4]), sequential(Topology::TriangleStrip, u32::MAX)),
            (
                "too many instances",
                color_fb(ColorFormat::B8G8R8A8Unorm, 8, 8, [0.0; 4]),
                DrawCmd { instances: u32::MAX, ..sequential(Topology::TriangleStrip, 4) },
            ),
            (
                "a restart index wgpu lacks",
                color_fb(ColorFormat::B8G8R8A8Unorm, 8, 8, [0.0; 4]),
                DrawCmd { indices: DrawIndices::Indexed { indices: vec![0, 1, 2, 7], restart: Some(7) }, ..sequential(Topology::TriangleStrip, 4) },
            ),
        ];
        for (what, mut fb, cmd) in cases {
            let e = draw(&gpu, b, &vs, &fs, &p, &cmd, &mut fb, &Buffers::new()).expect_err(what);
            eprintln!("{what}: {e}");
            assert_eq!(e.kind, GpuErrorKind::Unsupported, "{what}: {e}");
            assert!(e.to_string().starts_with(&format!("{} on ", b.name())), "{e}");
        }
        // A vertex buffer shorter than the draw reads zeros past its end
        // (core's contract): the fourth vertex at the origin.
        let mut short = p.clone();
        short.vertex_buffers[0].data.truncate(48);
        let mut fb = color_fb(ColorFormat::B8G8R8A8Unorm, 8, 8, [0.0; 4]);
        draw(&gpu, b, &vs, &fs, &short, &sequential(Topology::TriangleStrip, 4), &mut fb, &Buffers::new()).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(!gpu.is_lost());
}

#[test]
fn the_amber_executor_draws() {
    let Some(_) = gpu() else { return };
    let (vs, fs) = (module("vs", VS), module("fs_red", FS_RED));
    let mut p = Pipeline::for_framebuffer(32, 32);
    p.vertex_buffers = vertex_buffers(&rect_vertices(8.0, 8.0, 16.0, 16.0, (32, 32), 0.0), &[[0.0; 4]; 4]);
    let cmd = sequential(Topology::TriangleStrip, 4);
    let opts = Options::default();
    let want = raster_coverage(&p, &cmd, &rect_vertices(8.0, 8.0, 16.0, 16.0, (32, 32), 0.0));
    for b in Backend::ALL {
        let job = amber::DrawJob {
            vertex: amber::Stage { ir: &vs.ir, words: &vs.words, entry: "main", shader: "vert" },
            fragment: amber::Stage { ir: &fs.ir, words: &fs.words, entry: "main", shader: "frag" },
            pipeline: &p,
            draw: &cmd,
            opts: &opts,
        };
        let mut ex = spvlab_gpu::GpuExecutor::new(b);
        let mut fb = color_fb(ColorFormat::B8G8R8A8Unorm, 32, 32, [0.0; 4]);
        ex.draw(&job, &mut fb, &mut Buffers::new()).unwrap_or_else(|e| panic!("{e}"));
        let got: Vec<bool> = fb.colors[0].attachment.data.chunks(4).map(|t| t == [0, 0, 255, 255]).collect();
        assert_eq!(got, want, "{}", b.name());
        assert_eq!(got.iter().filter(|c| **c).count(), 256);
    }
}
