//! Each expected value here is worked out by hand from the Vulkan spec's
//! formulas (noted beside it), not read from this module's output.

use alloc::vec;
use alloc::vec::Vec;

use super::assemble::{Indices, Primitive, Topology, assemble};
use super::attr::{Interpolation, interpolate};
use super::blend::{BlendFactor, BlendOp, BlendState};
use super::depth::{CompareOp, DepthBias, DepthBuffer, DepthFormat, DepthState};
use super::draw::{PrimitiveInfo, State, draw};
use super::draws::{Rect, draw_grid, draw_rect};
use super::format::{ColorAttachment, ColorFormat, float_to_unorm};
use super::quad::{Lane, Quad};
use super::viewport::Viewport;
use super::{CullMode, FrontFace, PolygonMode};

/// The clip-space position (w = 1) that lands on framebuffer `(x, y)` of a
/// `width` x `height` framebuffer with the full viewport: `x_d = 2 x / width
/// - 1`.
fn at(x: f32, y: f32, width: u32, height: u32) -> [f32; 4] {
    [
        2.0 * x / width as f32 - 1.0,
        2.0 * y / height as f32 - 1.0,
        0.0,
        1.0,
    ]
}

/// Every quad of a draw.
fn quads(state: &State, prims: &[Primitive], pos: &[[f32; 4]]) -> Vec<(PrimitiveInfo, Quad)> {
    quads_sized(state, prims, pos, &[])
}

fn quads_sized(state: &State, prims: &[Primitive], pos: &[[f32; 4]], sizes: &[f32]) -> Vec<(PrimitiveInfo, Quad)> {
    let mut out = Vec::new();
    draw(state, prims, pos, sizes, |p, q| out.push((*p, *q)));
    out
}

/// How often each pixel is covered, row by row.
fn coverage(state: &State, prims: &[Primitive], pos: &[[f32; 4]]) -> Vec<u32> {
    coverage_sized(state, prims, pos, &[])
}

fn coverage_sized(state: &State, prims: &[Primitive], pos: &[[f32; 4]], sizes: &[f32]) -> Vec<u32> {
    let (w, h) = state.framebuffer;
    let mut count = vec![0u32; (w * h) as usize];
    for (_, q) in quads_sized(state, prims, pos, sizes) {
        assert!(
            q.x % 2 == 0 && q.y % 2 == 0,
            "quad origin ({}, {}) not even",
            q.x,
            q.y
        );
        for i in 0..4 {
            if q.is_covered(i) {
                let (x, y) = q.pixel(i);
                count[(y * w + x) as usize] += 1;
            }
        }
    }
    count
}

/// The covered pixels as (x, y), sorted.
fn covered(state: &State, prims: &[Primitive], pos: &[[f32; 4]]) -> Vec<(u32, u32)> {
    covered_sized(state, prims, pos, &[])
}

fn covered_sized(state: &State, prims: &[Primitive], pos: &[[f32; 4]], sizes: &[f32]) -> Vec<(u32, u32)> {
    let w = state.framebuffer.0;
    let mut out = Vec::new();
    for (i, &c) in coverage_sized(state, prims, pos, sizes).iter().enumerate() {
        assert!(c <= 1, "pixel {} covered {c} times", i);
        if c == 1 {
            out.push((i as u32 % w, i as u32 / w));
        }
    }
    out.sort_by_key(|&(x, y)| (y, x));
    out
}

fn seq(n: u32) -> Indices<'static> {
    Indices::Sequential { first: 0, count: n }
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5
}

#[test]
fn a_full_screen_rect_covers_every_pixel_once() {
    for (w, h) in [(250, 250), (7, 5), (256, 256)] {
        let (topology, v) = draw_rect(
            Rect {
                x: 0.0,
                y: 0.0,
                width: w as f32,
                height: h as f32,
            },
            (w, h),
        );
        assert_eq!(topology, Topology::TriangleStrip);
        let pos: Vec<[f32; 4]> = v.iter().map(|p| [p[0], p[1], 0.0, 1.0]).collect();
        let prims = assemble(topology, seq(4));
        assert_eq!(prims.len(), 2);
        let state = State::for_framebuffer(w, h);
        assert!(
            coverage(&state, &prims, &pos).iter().all(|&c| c == 1),
            "{w}x{h}"
        );
    }
}

#[test]
fn a_grid_covers_every_pixel_once() {
    let (topology, v) = draw_grid(
        Rect {
            x: 0.0,
            y: 0.0,
            width: 250.0,
            height: 250.0,
        },
        3,
        7,
        (250, 250),
    );
    assert_eq!(v.len(), 3 * 7 * 6);
    let pos: Vec<[f32; 4]> = v.iter().map(|p| [p[0], p[1], 0.0, 1.0]).collect();
    let prims = assemble(topology, seq(v.len() as u32));
    let state = State::for_framebuffer(250, 250);
    assert!(coverage(&state, &prims, &pos).iter().all(|&c| c == 1));
}

#[test]
fn a_half_rect_covers_the_right_half() {
    // DRAW_RECT POS 4 0 SIZE 4 8 over 8x8: pixel centres 4.5..7.5.
    let (topology, v) = draw_rect(
        Rect {
            x: 4.0,
            y: 0.0,
            width: 4.0,
            height: 8.0,
        },
        (8, 8),
    );
    let pos: Vec<[f32; 4]> = v.iter().map(|p| [p[0], p[1], 0.0, 1.0]).collect();
    let got = covered(
        &State::for_framebuffer(8, 8),
        &assemble(topology, seq(4)),
        &pos,
    );
    let want: Vec<(u32, u32)> = (0..8).flat_map(|y| (4..8).map(move |x| (x, y))).collect();
    assert_eq!(got, want);
}

#[test]
fn centres_on_top_and_left_edges_are_covered_on_bottom_and_right_not() {
    let state = State::for_framebuffer(8, 8);
    // A square from (2.5, 2.5) to (5.5, 5.5): centres 2.5 lie on its top
    // and left edges (covered), 5.5 on its bottom and right (not).
    let c = [(2.5, 2.5), (5.5, 2.5), (2.5, 5.5), (5.5, 5.5)];
    let want: Vec<(u32, u32)> = (2..5).flat_map(|y| (2..5).map(move |x| (x, y))).collect();
    for order in [[0, 1, 2, 3], [0, 2, 1, 3]] {
        let pos: Vec<[f32; 4]> = order.iter().map(|&k| at(c[k].0, c[k].1, 8, 8)).collect();
        assert_eq!(
            covered(&state, &assemble(Topology::TriangleStrip, seq(4)), &pos),
            want
        );
    }
    // One triangle (2.5, 2.5), (6.5, 2.5), (2.5, 6.5): its top and left
    // edges hold centres (covered); its hypotenuse x + y = 9 holds the
    // centres of pixels with x + y = 8, on neither a top nor a left edge.
    let want: Vec<(u32, u32)> = (2..8)
        .flat_map(|y| (2..8).map(move |x| (x, y)))
        .filter(|&(x, y)| x + y <= 7)
        .collect();
    assert_eq!(want.len(), 10);
    for tri in [
        [(2.5, 2.5), (6.5, 2.5), (2.5, 6.5)],
        [(2.5, 2.5), (2.5, 6.5), (6.5, 2.5)],
    ] {
        let pos: Vec<[f32; 4]> = tri.iter().map(|&(x, y)| at(x, y, 8, 8)).collect();
        assert_eq!(
            covered(&state, &assemble(Topology::TriangleList, seq(3)), &pos),
            want
        );
    }
}

#[test]
fn strips_and_fans_assemble_as_the_spec_says() {
    // Strip: triangle i is {v_i, v_{i+1+i%2}, v_{i+2-i%2}}.
    let strip = assemble(Topology::TriangleStrip, seq(5));
    let tri = |a, b, c| Primitive {
        vertices: [a, b, c],
        len: 3,
    };
    assert_eq!(strip, [tri(0, 1, 2), tri(1, 3, 2), tri(2, 3, 4)]);
    // Fan: triangle i is {v_{i+1}, v_{i+2}, v_0}.
    assert_eq!(
        assemble(Topology::TriangleFan, seq(5)),
        [tri(1, 2, 0), tri(2, 3, 0), tri(3, 4, 0)]
    );
    assert_eq!(
        assemble(Topology::TriangleList, seq(7)),
        [tri(0, 1, 2), tri(3, 4, 5)]
    );
    let line = |a, b| Primitive {
        vertices: [a, b, 0],
        len: 2,
    };
    assert_eq!(
        assemble(Topology::LineStrip, seq(3)),
        [line(0, 1), line(1, 2)]
    );
    assert_eq!(
        assemble(Topology::LineList, seq(5)),
        [line(0, 1), line(2, 3)]
    );
    assert_eq!(assemble(Topology::PointList, seq(2)).len(), 2);
    let r = u32::MAX;
    let idx = [5, 6, 7, r, 8, 9, 10, 11];
    let restarted = assemble(
        Topology::TriangleStrip,
        Indices::List {
            indices: &idx,
            restart: Some(r),
        },
    );
    assert_eq!(restarted, [tri(5, 6, 7), tri(8, 9, 10), tri(9, 11, 10)]);
    assert_eq!(
        assemble(
            Topology::TriangleStrip,
            Indices::List {
                indices: &idx[..3],
                restart: None
            }
        ),
        [tri(5, 6, 7)]
    );
    assert_eq!(
        Topology::from_name("TRIANGLE_FAN"),
        Some(Topology::TriangleFan)
    );
}

#[test]
fn every_triangle_of_a_strip_and_a_fan_faces_the_same_way() {
    // v0 (0,0), v1 (0,4), v2 (4,0): a = -1/2 Σ (x_i y_{i+1} - x_{i+1} y_i)
    // = -1/2 (0 - 0 + 0 - 16 + 0 - 0) = 8 > 0: counter-clockwise.
    let fbv = [
        (0.0, 0.0),
        (0.0, 4.0),
        (4.0, 0.0),
        (4.0, 4.0),
        (8.0, 0.0),
        (8.0, 4.0),
    ];
    let pos: Vec<[f32; 4]> = fbv.iter().map(|&(x, y)| at(x, y, 8, 8)).collect();
    for (face, want) in [
        (FrontFace::CounterClockwise, true),
        (FrontFace::Clockwise, false),
    ] {
        let state = State {
            front_face: face,
            ..State::for_framebuffer(8, 8)
        };
        let got = quads(&state, &assemble(Topology::TriangleStrip, seq(6)), &pos);
        let mut seen = [false; 4];
        for (p, _) in &got {
            assert_eq!(p.front_facing, want);
            seen[p.index] = true;
        }
        assert_eq!(seen, [true; 4]);
    }
    // A fan around (4, 4): (4,4) (8,4) (8,8): a = -1/2 (32-32 + 64-32 + 16-32) < 0: clockwise.
    let fan = [(4.0, 4.0), (8.0, 4.0), (8.0, 8.0), (4.0, 8.0)];
    let pos: Vec<[f32; 4]> = fan.iter().map(|&(x, y)| at(x, y, 8, 8)).collect();
    let got = quads(
        &State::for_framebuffer(8, 8),
        &assemble(Topology::TriangleFan, seq(4)),
        &pos,
    );
    assert!(!got.is_empty() && got.iter().all(|(p, _)| !p.front_facing));
}

#[test]
fn culling_discards_by_facing() {
    // (0,0) (0,8) (8,0): a = -1/2 (0 - 0 + 0 - 64 + 0 - 0) = 32 > 0, counter-clockwise.
    let pos = [at(0.0, 0.0, 8, 8), at(0.0, 8.0, 8, 8), at(8.0, 0.0, 8, 8)];
    let prims = assemble(Topology::TriangleList, seq(3));
    let cases = [
        (CullMode::None, FrontFace::CounterClockwise, true),
        (CullMode::Back, FrontFace::CounterClockwise, true),
        (CullMode::Front, FrontFace::CounterClockwise, false),
        (CullMode::FrontAndBack, FrontFace::CounterClockwise, false),
        (CullMode::Back, FrontFace::Clockwise, false),
        (CullMode::Front, FrontFace::Clockwise, true),
    ];
    for (cull, front_face, drawn) in cases {
        let state = State {
            cull,
            front_face,
            ..State::for_framebuffer(8, 8)
        };
        assert_eq!(
            !quads(&state, &prims, &pos).is_empty(),
            drawn,
            "{cull:?} {front_face:?}"
        );
    }
}

#[test]
fn a_triangle_behind_the_camera_is_clipped() {
    // Divided by w = -1 these would cover the middle of the screen.
    let pos = [
        [0.5, 0.5, 0.5, -1.0],
        [-0.5, 0.5, 0.5, -1.0],
        [0.0, -0.5, 0.5, -1.0],
    ];
    let state = State::for_framebuffer(8, 8);
    assert!(quads(&state, &assemble(Topology::TriangleList, seq(3)), &pos).is_empty());
    // Not finite, or naming a vertex that is not there: dropped.
    let bad = [
        [f32::NAN, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
    ];
    assert!(quads(&state, &assemble(Topology::TriangleList, seq(3)), &bad).is_empty());
    assert!(quads(&state, &assemble(Topology::TriangleList, seq(3)), &bad[1..]).is_empty());
}

#[test]
fn a_triangle_crossing_z_0_is_clipped_with_interpolated_attributes() {
    // z = x_d over the whole triangle (z is affine: -1 at x -1, 3 at x 3),
    // covering the screen. Clipping to z >= 0 keeps x_d >= 0: pixel centres
    // x + 0.5 >= 4 of 8, columns 4..8. An attribute equal to x_d at each
    // vertex interpolates to the centre's x_d; so does z_f (viewport 0..1).
    let pos = [
        [-1.0, -1.0, -1.0, 1.0],
        [3.0, -1.0, 3.0, 1.0],
        [-1.0, 3.0, -1.0, 1.0],
    ];
    let attr = [-1.0, 3.0, -1.0];
    let state = State::for_framebuffer(8, 8);
    let prims = assemble(Topology::TriangleList, seq(3));
    let want: Vec<(u32, u32)> = (0..8).flat_map(|y| (4..8).map(move |x| (x, y))).collect();
    assert_eq!(covered(&state, &prims, &pos), want);
    for (_, q) in quads(&state, &prims, &pos) {
        for i in (0..4).filter(|&i| q.is_covered(i)) {
            let x_d = (q.pixel(i).0 as f32 + 0.5) / 4.0 - 1.0;
            let lane = &q.lanes[i];
            assert!(
                close(interpolate(Interpolation::Smooth, lane, attr), x_d),
                "{lane:?}"
            );
            assert!(close(
                interpolate(Interpolation::NoPerspective, lane, attr),
                x_d
            ));
            assert!(close(lane.depth, x_d));
        }
    }
    // Past the far plane (z > w) likewise: z = x_d + 1 keeps x_d <= 0.
    let far = pos.map(|p| [p[0], p[1], p[2] + 1.0, p[3]]);
    let want: Vec<(u32, u32)> = (0..8).flat_map(|y| (0..4).map(move |x| (x, y))).collect();
    assert_eq!(covered(&state, &prims, &far), want);
}

/// The lane of pixel `(x, y)` in a draw.
fn lane_at(state: &State, prims: &[Primitive], pos: &[[f32; 4]], x: u32, y: u32) -> (Quad, Lane) {
    for (_, q) in quads(state, prims, pos) {
        for i in 0..4 {
            if q.pixel(i) == (x, y) {
                return (q, q.lanes[i]);
            }
        }
    }
    panic!("no quad holds ({x}, {y})")
}

#[test]
fn perspective_correct_and_linear_interpolation_differ_as_the_spec_says() {
    // Framebuffer (0,0), (8,0), (0,8) with w 1, 2, 4. At pixel (1, 1),
    // centre (1.5, 1.5): screen barycentrics a = 5/8, b = c = 3/16.
    // Linear: f = b f_b = 0.1875 for f = (0, 1, 0). Perspective:
    // (b/w_b) / (a/w_a + b/w_b + c/w_c) = 0.09375 / 0.765625.
    let w = [1.0, 2.0, 4.0];
    let fbv = [(0.0, 0.0), (8.0, 0.0), (0.0, 8.0)];
    let pos: Vec<[f32; 4]> = (0..3)
        .map(|k| {
            let p = at(fbv[k].0, fbv[k].1, 8, 8);
            [p[0] * w[k], p[1] * w[k], 0.0, w[k]]
        })
        .collect();
    let state = State::for_framebuffer(8, 8);
    let (_, lane) = lane_at(
        &state,
        &assemble(Topology::TriangleList, seq(3)),
        &pos,
        1,
        1,
    );
    let f = [0.0, 1.0, 0.0];
    assert!(close(
        interpolate(Interpolation::NoPerspective, &lane, f),
        0.1875
    ));
    assert!(close(
        interpolate(Interpolation::Smooth, &lane, f),
        0.09375 / 0.765625
    ));
    assert!(close(lane.inv_w, 0.765625));
    assert!(close(lane.linear[0], 0.625) && close(lane.linear[2], 0.1875));
}

#[test]
fn flat_takes_the_provoking_vertex() {
    let lane = Lane {
        bary: [0.2, 0.3, 0.5],
        linear: [0.2, 0.3, 0.5],
        depth: 0.0,
        inv_w: 1.0,
    };
    assert_eq!(
        interpolate(Interpolation::Flat, &lane, [7.0, 8.0, 9.0]),
        7.0
    );
    // The provoking vertex is the first of each primitive: v1 for a
    // strip's triangle 1, v_{i+1} for a fan's triangle i.
    assert_eq!(assemble(Topology::TriangleStrip, seq(4))[1].vertices[0], 1);
    assert_eq!(assemble(Topology::TriangleFan, seq(4))[1].vertices[0], 2);
}

#[test]
fn each_compare_op() {
    use CompareOp::*;
    // (op, 0.25 OP 0.5, 0.5 OP 0.5, 0.75 OP 0.5) from VkCompareOp's definitions.
    let table = [
        (Never, [false, false, false]),
        (Less, [true, false, false]),
        (Equal, [false, true, false]),
        (LessOrEqual, [true, true, false]),
        (Greater, [false, false, true]),
        (NotEqual, [true, false, true]),
        (GreaterOrEqual, [false, true, true]),
        (Always, [true, true, true]),
    ];
    for format in [
        DepthFormat::D16Unorm,
        DepthFormat::D24UnormS8Uint,
        DepthFormat::D32Sfloat,
    ] {
        let stored = format.encode(0.5);
        for (op, want) in table {
            for (z, w) in [0.25, 0.5, 0.75].into_iter().zip(want) {
                assert_eq!(format.passes(op, z, stored), w, "{format:?} {op:?} {z}");
            }
        }
    }
    assert_eq!(CompareOp::from_name("LESS_OR_EQUAL"), Some(LessOrEqual));
    // Compared after conversion: 0.5 and 0.500001 are the same D16 value
    // (round(0.5 * 65535) = round(0.500001 * 65535) = 32768).
    assert!(DepthFormat::D16Unorm.passes(Equal, 0.500001, DepthFormat::D16Unorm.encode(0.5)));
    assert!(!DepthFormat::D32Sfloat.passes(Equal, 0.500001, DepthFormat::D32Sfloat.encode(0.5)));
}

#[test]
fn depth_conversions_and_the_depth_buffer() {
    // round(z (2^b - 1)), clamped.
    assert_eq!(DepthFormat::D16Unorm.encode(0.5), 32768);
    assert_eq!(DepthFormat::D16Unorm.encode(1.0), 65535);
    assert_eq!(DepthFormat::D16Unorm.encode(-0.5), 0);
    assert_eq!(DepthFormat::D16Unorm.encode(2.0), 65535);
    assert_eq!(DepthFormat::D24UnormS8Uint.encode(0.5), 8_388_608);
    assert_eq!(DepthFormat::D24UnormS8Uint.encode(1.0), 16_777_215);
    assert_eq!(DepthFormat::D24UnormS8Uint.encode(0.25), 4_194_304);
    assert_eq!(DepthFormat::D32Sfloat.encode(0.3), 0.3f32.to_bits());
    assert_eq!(DepthFormat::D16Unorm.decode(32768), 32768.0 / 65535.0);
    let mut d = DepthBuffer::new(DepthFormat::D16Unorm, 2, 1, 1.0).unwrap();
    let state = DepthState {
        test: true,
        write: true,
        op: CompareOp::Less,
    };
    assert!(d.test(state, 0, 0, 0.5));
    assert!(!d.test(state, 0, 0, 0.7));
    assert!(!d.test(state, 5, 0, 0.1));
    assert!(d.test(
        DepthState {
            write: false,
            ..state
        },
        1,
        0,
        0.25
    ));
    assert_eq!(d.to_bytes(), [0x00, 0x80, 0xff, 0xff]);
    d.clear(0.0);
    assert_eq!(d.read(1, 0), Some(0.0));
    let d24 = DepthBuffer::new(DepthFormat::D24UnormS8Uint, 1, 1, 1.0).unwrap();
    assert_eq!(d24.to_bytes(), [0xff, 0xff, 0xff, 0x00]);
}

#[test]
fn unorm_conversion_rounds_to_nearest_and_clamps() {
    // round(c * 255): 0.5 -> 127.5 -> 128; 0.2 -> 51; clamped to [0, 1].
    assert_eq!(float_to_unorm(0.5, 8), 128);
    assert_eq!(float_to_unorm(0.2, 8), 51);
    assert_eq!(float_to_unorm(1.0, 8), 255);
    assert_eq!(float_to_unorm(1.5, 8), 255);
    assert_eq!(float_to_unorm(-0.5, 8), 0);
    assert_eq!(float_to_unorm(f32::NAN, 8), 0);
    assert_eq!(float_to_unorm(0.498 / 255.0, 8), 0);
    // Exact ties go to even: 0.5 * 1 = 0.5 -> 0, 0.5 * 3 = 1.5 -> 2, and
    // 24 bits (depth) round the same way.
    assert_eq!(float_to_unorm(0.5, 1), 0);
    assert_eq!(float_to_unorm(0.5, 2), 2);
    assert_eq!(float_to_unorm(0.5, 24), 1 << 23);
    let mut t = [0u8; 4];
    ColorFormat::B8G8R8A8Unorm.encode([1.0, 0.5, 0.0, 1.0], &mut t);
    assert_eq!(t, [0, 128, 255, 255]);
    ColorFormat::R8G8B8A8Unorm.encode([1.0, 0.5, 0.0, 1.0], &mut t);
    assert_eq!(t, [255, 128, 0, 255]);
    assert_eq!(
        ColorFormat::B8G8R8A8Unorm.decode(&[0, 0, 255, 51]),
        [1.0, 0.0, 0.0, 0.2]
    );
    // Float formats keep the value; R32 reads back G = B = 0, A = 1.
    let mut a = ColorAttachment::new(ColorFormat::R32Sfloat, 2, 2, [0.0; 4]).unwrap();
    a.write(1, 1, [2.5, 9.0, 9.0, 9.0]);
    assert_eq!(a.read(1, 1), Some([2.5, 0.0, 0.0, 1.0]));
    // As 8-bit RGBA, R first: 2.5 clamps to 255, and the missing G and B
    // are 0, alpha 255; a B8G8R8A8 texel's bytes are put in RGBA order.
    assert_eq!(a.rgba8()[12..], [255, 0, 0, 255]);
    assert_eq!(a.rgba8()[..4], [0, 0, 0, 255]);
    let mut b = ColorAttachment::new(ColorFormat::B8G8R8A8Unorm, 1, 1, [0.0; 4]).unwrap();
    b.write(0, 0, [1.0, 0.5, 0.2, 1.0]);
    assert_eq!(b.data, [51, 128, 255, 255]);
    assert_eq!(b.rgba8(), [255, 128, 51, 255]);
    assert_eq!(ColorFormat::from_name(ColorFormat::R32G32B32A32Sfloat.name()), Some(ColorFormat::R32G32B32A32Sfloat));
    assert_eq!(&a.data[12..], &2.5f32.to_le_bytes());
    assert_eq!(a.read(2, 0), None);
    let f = ColorAttachment::new(
        ColorFormat::R32G32B32A32Sfloat,
        1,
        1,
        [-1.0, 2.0, 0.25, 7.0],
    ).unwrap();
    assert_eq!(f.read(0, 0), Some([-1.0, 2.0, 0.25, 7.0]));
    assert_eq!(
        ColorFormat::from_name("VK_FORMAT_R8G8B8A8_UNORM"),
        Some(ColorFormat::R8G8B8A8Unorm)
    );
}

#[test]
fn blending_src_alpha_one_minus_src_alpha() {
    let state = BlendState {
        enable: true,
        src_color: BlendFactor::SrcAlpha,
        dst_color: BlendFactor::OneMinusSrcAlpha,
        color_op: BlendOp::Add,
        src_alpha: BlendFactor::SrcAlpha,
        dst_alpha: BlendFactor::OneMinusSrcAlpha,
        alpha_op: BlendOp::Add,
        write_mask: 0b1111,
    };
    // RGB = 0.25 src + 0.75 dst; A = 0.25 * 0.25 + 0.75 * 1 = 0.8125.
    let (src, dst) = ([1.0, 0.0, 0.0, 0.25], [0.0, 0.0, 1.0, 1.0]);
    let out = state.blend(ColorFormat::B8G8R8A8Unorm, src, [0.0; 4], dst, [0.0; 4]);
    assert_eq!(out, [0.25, 0.0, 0.75, 0.8125]);
    // Stored: round(63.75) = 64, round(191.25) = 191, round(207.1875) = 207.
    let mut a = ColorAttachment::new(ColorFormat::R8G8B8A8Unorm, 1, 1, dst).unwrap();
    a.write(0, 0, out);
    assert_eq!(a.data, [64, 0, 191, 207]);
    // A UNORM attachment clamps the source first: 2.0 blends as 1.0; a
    // float one does not.
    let bright = [2.0, 0.0, 0.0, 0.5];
    for (format, want) in [(ColorFormat::R8G8B8A8Unorm, 0.5), (ColorFormat::R32G32B32A32Sfloat, 1.0)] {
        assert_eq!(state.blend(format, bright, [0.0; 4], [0.0; 4], [0.0; 4])[0], want);
    }
    // Disabled: the source passes; the write mask keeps masked components.
    let off = BlendState {
        write_mask: 0b0111,
        ..BlendState::default()
    };
    assert_eq!(
        off.blend(
            ColorFormat::R32G32B32A32Sfloat,
            [1.0, 2.0, 3.0, 4.0],
            [0.0; 4],
            [5.0; 4],
            [0.0; 4]
        ),
        [1.0, 2.0, 3.0, 5.0]
    );
    let sub = BlendState {
        color_op: BlendOp::ReverseSubtract,
        alpha_op: BlendOp::Max,
        ..state
    };
    // RGB = 0.75 dst - 0.25 src; A = max(0.25, 1).
    assert_eq!(
        sub.blend(
            ColorFormat::R32G32B32A32Sfloat,
            src,
            [0.0; 4],
            dst,
            [0.0; 4]
        ),
        [-0.25, 0.0, 0.75, 1.0]
    );
    assert_eq!(
        BlendFactor::from_name("ONE_MINUS_SRC_ALPHA"),
        Some(BlendFactor::OneMinusSrcAlpha)
    );
}

#[test]
fn quads_along_an_edge_hold_helper_lanes() {
    // (0,0) (8,0) (0,8): covered where x + y <= 6 (the hypotenuse holds the
    // centres with x + y = 7 and is neither top nor left).
    let pos = [at(0.0, 0.0, 8, 8), at(8.0, 0.0, 8, 8), at(0.0, 8.0, 8, 8)];
    let state = State::for_framebuffer(8, 8);
    let prims = assemble(Topology::TriangleList, seq(3));
    let got = quads(&state, &prims, &pos);
    let mut origins: Vec<(u32, u32, u8)> = got.iter().map(|(_, q)| (q.x, q.y, q.covered)).collect();
    origins.sort();
    let want = [
        (0, 0, 0b1111),
        (0, 2, 0b1111),
        (0, 4, 0b1111),
        (0, 6, 0b0001),
        (2, 0, 0b1111),
        (2, 2, 0b1111),
        (2, 4, 0b0001),
        (4, 0, 0b1111),
        (4, 2, 0b0001),
        (6, 0, 0b0001),
    ];
    assert_eq!(origins, want);
    // The helper at (1, 6), centre (1.5, 6.5), has extrapolated
    // barycentrics: b = 1.5 / 8, c = 6.5 / 8, a = 0.
    let (q, lane) = lane_at(&state, &prims, &pos, 1, 6);
    assert!(q.is_helper(1));
    assert!(
        close(lane.linear[0], 0.0)
            && close(lane.linear[1], 1.5 / 8.0)
            && close(lane.linear[2], 6.5 / 8.0)
    );
}

#[test]
fn points_are_squares_and_lines_rectangles() {
    let state = State::for_framebuffer(8, 8);
    let prims = assemble(Topology::PointList, seq(1));
    // Size 3 at (4, 4): [2.5, 5.5]², centres 2.5 in, 5.5 out.
    let mut count = 0;
    draw(&state, &prims, &[at(4.0, 4.0, 8, 8)], &[3.0], |_, q| {
        for i in (0..4).filter(|&i| q.is_covered(i)) {
            let (x, y) = q.pixel(i);
            assert!((2..5).contains(&x) && (2..5).contains(&y));
            count += 1;
        }
    });
    assert_eq!(count, 9);
    // Size 1 (PointSize not written) at (4.5, 4.5): pixel (4, 4).
    assert_eq!(covered(&state, &prims, &[at(4.5, 4.5, 8, 8)]), [(4, 4)]);
    // Outside the depth range: dropped.
    assert!(covered(&state, &prims, &[[0.0, 0.0, 2.0, 1.0]]).is_empty());
    // Centred beside the viewport at (-1, 4), size 4: lavapipe draws the
    // part inside, [-3, 1] x [2, 6]: column 0, rows 2..6.
    let beside = covered_sized(&state, &prims, &[at(-1.0, 4.0, 8, 8)], &[4.0]);
    assert_eq!(beside, [(0, 2), (0, 3), (0, 4), (0, 5)]);
    // A line from (1, 4) to (7, 4), 1 wide: y in [3.5, 4.5], row 3's centres
    // on the top edge (in), row 4's on the bottom (out); x in [1, 7].
    let line = [at(1.0, 4.0, 8, 8), at(7.0, 4.0, 8, 8)];
    let lines = assemble(Topology::LineList, seq(2));
    assert_eq!(
        covered(&state, &lines, &line),
        (1..7).map(|x| (x, 3)).collect::<Vec<_>>()
    );
    // t at (1, 3)'s centre: (1.5 - 1) / 6.
    let (_, lane) = lane_at(&state, &lines, &line, 1, 3);
    assert!(close(lane.linear[1], 0.5 / 6.0) && close(lane.linear[0], 5.5 / 6.0));
}

#[test]
fn polygon_modes_draw_edges_or_vertices() {
    // The square (2,2)-(6,6) as two triangles (strip (2,2) (2,6) (6,2)
    // (6,6)), drawn as lines 1 wide: each edge a rectangle 1 wide centred
    // on it. The top edge y = 2 covers rows with centres in [1.5, 2.5):
    // centre 1.5 on its top side is in, 2.5 on its bottom side out: row 1.
    let c = [(2.0, 2.0), (2.0, 6.0), (6.0, 2.0), (6.0, 6.0)];
    let pos: Vec<[f32; 4]> = c.iter().map(|&(x, y)| at(x, y, 8, 8)).collect();
    let prims = assemble(Topology::TriangleStrip, seq(4));
    let state = State { polygon_mode: PolygonMode::Line, ..State::for_framebuffer(8, 8) };
    let cov = coverage(&state, &prims, &pos);
    let at_px = |x: u32, y: u32| cov[(y * 8 + x) as usize];
    // The outline's top edge (2,2)-(6,2): x in [2, 6], row 1: pixels 2..6.
    assert!((2..6).all(|x| at_px(x, 1) >= 1));
    assert_eq!(at_px(1, 1) + at_px(6, 1), 0);
    // Inside the square, away from the diagonal x = y... x + y = 8 and the
    // outline, nothing: (3, 3) is centre (3.5, 3.5), 1.5 from every edge
    // and from the diagonal (2,6)-(6,2) by |3.5 + 3.5 - 8| / sqrt 2 > 0.5.
    assert_eq!(at_px(3, 3), 0);
    // The shared diagonal is drawn once per triangle.
    assert_eq!(at_px(3, 4), 2);
    // Culled by facing as a filled triangle would be: the strip's
    // triangles are (2,2) (2,6) (6,2), a = -1/2 (12 - 4 + 4 - 36 + 12 - 12)
    // = 12 > 0, counter-clockwise, front-facing.
    let culled = State { cull: CullMode::Front, ..state };
    assert!(quads(&culled, &prims, &pos).is_empty());
    // Point mode: each triangle's three vertices, size 1 at integer
    // coordinates: the square [x - 0.5, x + 0.5] holds centre x - 0.5 (left
    // side, in): pixel (x - 1, y - 1).
    let points = State { polygon_mode: PolygonMode::Point, ..State::for_framebuffer(8, 8) };
    let got = covered_or_more(&points, &prims, &pos);
    assert_eq!(got, [(1, 1), (5, 1), (1, 5), (5, 5)]);
}

/// The pixels covered at least once, sorted.
fn covered_or_more(state: &State, prims: &[Primitive], pos: &[[f32; 4]]) -> Vec<(u32, u32)> {
    let w = state.framebuffer.0;
    let mut out: Vec<(u32, u32)> = coverage(state, prims, pos)
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(i, _)| (i as u32 % w, i as u32 / w))
        .collect();
    out.sort_by_key(|&(x, y)| (y, x));
    out
}

#[test]
fn bad_input_draws_nothing_or_what_fits_and_never_panics() {
    assert!(DepthBuffer::new(DepthFormat::D32Sfloat, u32::MAX, u32::MAX, 1.0).is_none());
    assert!(ColorAttachment::new(ColorFormat::R32G32B32A32Sfloat, u32::MAX, u32::MAX, [0.0; 4]).is_none());
    assert!(draw_grid(Rect { x: 0.0, y: 0.0, width: 8.0, height: 8.0 }, 0, 5, (8, 8)).1.is_empty());
    let tri = assemble(Topology::TriangleList, seq(3));
    // Vertices beyond the guard band: clipped to it, the screen is covered
    // once (the triangle contains the whole view volume).
    let far = [[1e4, 0.0, 0.5, 1.0], [-1e4, 1e4, 0.5, 1.0], [0.0, -1e4, 0.5, 1.0]];
    let state = State::for_framebuffer(8, 8);
    assert!(coverage(&state, &tri, &far).iter().all(|&c| c == 1));
    // So far that f32 clipping loses the shape: whatever it covers, no panic.
    let huge = far.map(|p| p.map(|c| if c.abs() > 1.0 { c * 1e26 } else { c }));
    let _ = quads(&state, &tri, &huge);
    let tiny_w = [[0.0, 0.0, 0.0, 1e-30], [1.0, 0.0, 0.0, 1e-30], [0.0, 1.0, 0.0, 0.0]];
    let _ = quads(&state, &tri, &tiny_w);
    let nan_viewport = State { viewport: Viewport { x: f32::NAN, ..Viewport::full(8, 8) }, ..state };
    let _ = quads(&nan_viewport, &tri, &huge);
    assert!(quads(&State::for_framebuffer(0, 0), &tri, &huge).is_empty());
    let wide = State { line_width: f32::NAN, ..state };
    assert!(quads(&wide, &assemble(Topology::LineList, seq(2)), &huge[..2]).is_empty());
    let point = [at(4.0, 4.0, 8, 8)];
    let points = assemble(Topology::PointList, seq(1));
    assert!(quads_sized(&state, &points, &point, &[f32::NAN]).is_empty());
    assert!(quads_sized(&state, &points, &point, &[-1.0]).is_empty());
    // A huge point is clamped to 255 pixels: it covers the framebuffer once.
    assert!(coverage_sized(&state, &points, &point, &[1e9]).iter().all(|&c| c == 1));
}

#[test]
fn depth_bias_follows_the_spec() {
    // (0,0) z 0, (8,0) z 0.5, (0,8) z 0: ∂z/∂x = 0.5 / 8, ∂z/∂y = 0, so
    // m = 0.0625; the largest depth is 0.5.
    let mut pos = vec![at(0.0, 0.0, 8, 8), at(8.0, 0.0, 8, 8), at(0.0, 8.0, 8, 8)];
    pos[1][2] = 0.5;
    let got = quads(&State::for_framebuffer(8, 8), &assemble(Topology::TriangleList, seq(3)), &pos);
    let slope = got[0].0.depth_slope;
    assert!(close(slope.max_slope, 0.0625) && slope.max_depth == 0.5);
    // o = m * slope + r * constant, clamped.
    let bias = |constant, clamp, slope_factor| DepthBias { constant, clamp, slope: slope_factor };
    assert!(close(bias(0.0, 0.0, 2.0).offset(DepthFormat::D16Unorm, slope), 0.125));
    assert!(close(bias(0.0, 0.1, 2.0).offset(DepthFormat::D16Unorm, slope), 0.1));
    assert!(close(bias(0.0, -0.1, -2.0).offset(DepthFormat::D16Unorm, slope), -0.1));
    // r: 1 / (2^16 - 1), 1 / (2^24 - 1); for D32 2^(e - 23) with 0.5 = 2^-1.
    assert_eq!(bias(1.0, 0.0, 0.0).offset(DepthFormat::D16Unorm, slope), 1.0 / 65535.0);
    assert_eq!(bias(-700.0, 0.0, 0.0).offset(DepthFormat::D24UnormS8Uint, slope), -700.0 / 16_777_215.0);
    assert_eq!(bias(4.0, 0.0, 0.0).offset(DepthFormat::D32Sfloat, slope), 4.0 * (2.0f32).powi(-24));
}

#[test]
fn vertex_formats_read_as_vulkan_converts_them() {
    use super::pipeline::{AttrKind, AttrValue, VertexFormat};
    let f = VertexFormat::from_name("R32G32_SFLOAT").unwrap();
    assert_eq!((f.kind, f.width, f.components, f.bytes()), (AttrKind::Float, 32, 2, 8));
    let mut b = Vec::new();
    b.extend_from_slice(&1.5f32.to_le_bytes());
    b.extend_from_slice(&(-2.0f32).to_le_bytes());
    assert_eq!(f.read(&b, 0), AttrValue::F(1.5));
    assert_eq!(f.read(&b, 1), AttrValue::F(-2.0));
    // Missing components: (0, 0, 1) for z and w.
    assert_eq!(f.read(&b, 2), AttrValue::F(0.0));
    assert_eq!(f.read(&b, 3), AttrValue::F(1.0));
    let s = VertexFormat::from_name("R8G8B8A8_SNORM").unwrap();
    // -128 clamps to -1, 127 is 1, -64 is -64/127.
    let bytes = [0x80u8, 0x7f, 0xc0, 0];
    assert_eq!(s.read(&bytes, 0), AttrValue::F(-1.0));
    assert_eq!(s.read(&bytes, 1), AttrValue::F(1.0));
    assert_eq!(s.read(&bytes, 2), AttrValue::F(-64.0 / 127.0));
    let u = VertexFormat::from_name("R8G8B8A8_UNORM").unwrap();
    assert_eq!(u.read(&[255, 0, 51, 0], 2), AttrValue::F(0.2));
    let i = VertexFormat::from_name("R16_SINT").unwrap();
    assert_eq!(i.read(&0xfffeu16.to_le_bytes(), 0), AttrValue::I(-2));
    assert_eq!(i.read(&[], 3), AttrValue::I(1));
    let n = VertexFormat::from_name("R8_UINT").unwrap();
    assert_eq!(n.read(&[200], 0), AttrValue::U(200));
    for bad in ["B8G8R8A8_UNORM", "R16_SFLOAT", "R8G16_UINT", "R8G8B8A8", "D16_UNORM", "R5G6B5_UNORM_PACK16"] {
        assert_eq!(VertexFormat::from_name(bad), None, "{bad}");
    }
}

#[test]
fn a_vertex_buffer_past_its_end_gives_what_it_has() {
    use super::pipeline::{VertexBuffer, VertexFormat};
    let b = VertexBuffer {
        location: 0,
        format: VertexFormat::from_name("R32G32_SFLOAT").unwrap(),
        stride: 8,
        offset: 0,
        data: vec![0; 20],
    };
    assert_eq!(b.vertex(1).len(), 8);
    assert_eq!(b.vertex(2).len(), 4);
    assert_eq!(b.vertex(3).len(), 0);
    assert_eq!(b.vertex(u32::MAX).len(), 0);
}

#[test]
fn a_primitive_of_one_depth_has_that_depth_at_every_pixel() {
    // The spec's z = a za + b zb + c zc with za = zb = zc = 0.5 is 0.5 for
    // any a + b + c = 1; as a three-term float sum it can round to
    // 0.49999997, which D16 stores as 32767, not the 32768 of 0.5, and
    // fails an EQUAL test against a buffer cleared to 0.5.
    let (w, h) = (250, 250);
    let (topology, v) = draw_rect(Rect { x: 0.0, y: 0.0, width: w as f32, height: h as f32 }, (w, h));
    let pos: Vec<[f32; 4]> = v.iter().map(|p| [p[0], p[1], 0.5, 1.0]).collect();
    let state = State::for_framebuffer(w, h);
    let stored = DepthFormat::D16Unorm.encode(0.5);
    assert_eq!(stored, 32768);
    let mut n = 0;
    for (_, q) in quads(&state, &assemble(topology, seq(4)), &pos) {
        for i in 0..4 {
            if q.is_covered(i) {
                assert_eq!(q.lanes[i].depth, 0.5, "pixel {:?}", q.pixel(i));
                assert!(DepthFormat::D16Unorm.passes(CompareOp::Equal, q.lanes[i].depth, stored));
                n += 1;
            }
        }
    }
    assert_eq!(n, w * h);
}
