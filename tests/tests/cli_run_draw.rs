//! `spvlab run` on a fragment shader: it draws over a framebuffer with the
//! passthrough vertex shader and writes a PNG, which these tests decode with
//! the png crate and compare with the Amber test's own EXPECT line.

use spvlab_tests::{assert_exit, corpus_or_skip, run_spvlab, scratch};

/// The SPIRV-ASM text of the script's fragment shader and its one
/// `EQ_RGBA` expectation over the whole framebuffer: (size, rgba).
fn fragment_and_expectation(script: &str) -> (String, (u32, u32), [u8; 4]) {
    let mut lines = script.lines();
    let mut text = String::new();
    for l in lines.by_ref() {
        if l.starts_with("SHADER fragment") && l.contains("SPIRV-ASM") {
            break;
        }
    }
    for l in lines.by_ref() {
        if l.trim() == "END" {
            break;
        }
        text.push_str(l);
        text.push('\n');
    }
    let expect = script.lines().find(|l| l.starts_with("EXPECT") && l.contains("EQ_RGBA")).expect("an EQ_RGBA line");
    let w: Vec<&str> = expect.split_whitespace().collect();
    let at = |k: &str| w.iter().position(|x| *x == k).unwrap();
    let size = (w[at("SIZE") + 1].parse().unwrap(), w[at("SIZE") + 2].parse().unwrap());
    let e = at("EQ_RGBA");
    let rgba = [0, 1, 2, 3].map(|i| w[e + 1 + i].parse::<u8>().unwrap());
    (text, size, rgba)
}

fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn a_graphicsfuzz_fragment_shader_draws_its_expected_image_as_png() {
    let Some(corpus) = corpus_or_skip("cli_run_draw") else { return };
    let dir = scratch("cli_run_draw");
    for name in ["graphicsfuzz_access_new_vector_inside_if_condition", "graphicsfuzz_color_write_in_loop"] {
        let script = std::fs::read_to_string(corpus.join(format!("amber/vk-gl-cts/{name}.amber"))).unwrap();
        let (text, (w, h), rgba) = fragment_and_expectation(&script);
        let frag = dir.join(format!("{name}.spvasm"));
        std::fs::write(&frag, text).unwrap();
        let png_path = dir.join(format!("{name}.png"));
        let size = format!("{w}x{h}");
        let o = run_spvlab(&dir, &["run", frag.to_str().unwrap(), "--target-env", "spv1.0", "--size", &size, "-o", png_path.to_str().unwrap()], b"");
        assert_exit(&o, 0);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(&format!("drew {w}x{h}")), "{out}");
        let (pw, ph, pixels) = decode(&std::fs::read(&png_path).unwrap());
        assert_eq!((pw, ph), (w, h));
        let wrong = pixels.chunks_exact(4).filter(|p| *p != rgba).count();
        assert_eq!(wrong, 0, "{name}: {wrong} pixels differ from the Amber expectation {rgba:?}");
    }
}

/// `--amber FILE` on a draw writes an Amber file whose EXPECT lines hold the
/// image: for a GraphicsFuzz shader, one rectangle over the framebuffer in
/// the colour of the test's own EXPECT line; `spvlab amber` runs the file
/// and passes.
#[test]
fn a_draw_exports_as_an_amber_file_that_expects_its_image() {
    let Some(corpus) = corpus_or_skip("cli_run_draw") else { return };
    let dir = scratch("cli_run_draw_amber");
    for name in ["graphicsfuzz_access_new_vector_inside_if_condition", "graphicsfuzz_color_write_in_loop"] {
        let script = std::fs::read_to_string(corpus.join(format!("amber/vk-gl-cts/{name}.amber"))).unwrap();
        let (text, (w, h), rgba) = fragment_and_expectation(&script);
        let frag = dir.join(format!("{name}.spvasm"));
        std::fs::write(&frag, text).unwrap();
        let amber = dir.join(format!("{name}.amber"));
        let size = format!("{w}x{h}");
        let o = run_spvlab(&dir, &["run", frag.to_str().unwrap(), "--target-env", "spv1.0", "--size", &size, "--amber", amber.to_str().unwrap()], b"");
        assert_exit(&o, 0);
        let file = std::fs::read_to_string(&amber).unwrap();
        let want = format!("EXPECT framebuffer IDX 0 0 SIZE {w} {h} EQ_RGBA {} {} {} {}", rgba[0], rgba[1], rgba[2], rgba[3]);
        assert!(file.lines().any(|l| l == want), "{name}: no `{want}` in\n{file}");
        assert!(file.contains("SHADER vertex vertex_shader PASSTHROUGH") && file.contains("RUN pipeline DRAW_RECT POS 0 0 SIZE"), "{file}");
        let o = run_spvlab(&dir, &["amber", amber.to_str().unwrap()], b"");
        assert_exit(&o, 0);
    }
}

const LOOPS_FOREVER: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %color
OpExecutionMode %main OriginUpperLeft
OpDecorate %color Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%f32 = OpTypeFloat 32
%v4 = OpTypeVector %f32 4
%out = OpTypePointer Output %v4
%color = OpVariable %out Output
%bool = OpTypeBool
%true = OpConstantTrue %bool
%main = OpFunction %void None %fn
%entry = OpLabel
OpBranch %loop
%loop = OpLabel
OpLoopMerge %exit %loop None
OpBranchConditional %true %loop %exit
%exit = OpLabel
OpReturn
OpFunctionEnd
";

/// A fragment shader that never ends stops at the step budget with an
/// error that names its pixel; a draw past the size limit is refused
/// naming the limit.
#[test]
fn a_draw_that_never_ends_or_is_too_large_is_a_located_error() {
    let dir = scratch("cli_run_draw_errors");
    let frag = dir.join("loop.spvasm");
    std::fs::write(&frag, LOOPS_FOREVER).unwrap();
    let o = run_spvlab(&dir, &["run", frag.to_str().unwrap(), "--size", "4x4", "--max-steps", "1000"], b"");
    assert_exit(&o, 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("at fragment (0, 0)"), "{err}");
    assert!(err.contains("loop.spvasm:"), "{err}");
    let o = run_spvlab(&dir, &["run", frag.to_str().unwrap(), "--size", "5000x4"], b"");
    assert_exit(&o, 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("framebuffer width is 5000: the limit is 4096"), "{err}");
}
