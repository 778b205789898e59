use super::*;
use crate::text::asm::{AsmOptions, assemble};
use alloc::vec;

/// `out[i] = in[i] + pc.k * SPEC(3)` for i = GlobalInvocationId.x, with a
/// push constant `k` and an i32 spec constant (SpecId 3, default 1).
const SHADER: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 2 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk BufferBlock
OpMemberDecorate %pcs 0 Offset 0
OpDecorate %pcs Block
OpDecorate %in DescriptorSet 0
OpDecorate %in Binding 0
OpDecorate %out DescriptorSet 1
OpDecorate %out Binding 2
OpDecorate %sc SpecId 3
%void = OpTypeVoid
%fn = OpTypeFunction %void
%i32 = OpTypeInt 32 1
%u32 = OpTypeInt 32 0
%c0 = OpConstant %u32 0
%c2 = OpConstant %u32 2
%sc = OpSpecConstant %i32 1
%arr = OpTypeArray %i32 %c2
%blk = OpTypeStruct %arr
%pblk = OpTypePointer Uniform %blk
%in = OpVariable %pblk Uniform
%out = OpVariable %pblk Uniform
%pcs = OpTypeStruct %i32
%ppcs = OpTypePointer PushConstant %pcs
%pc = OpVariable %ppcs PushConstant
%ppi = OpTypePointer PushConstant %i32
%v3 = OpTypeVector %u32 3
%pv3 = OpTypePointer Input %v3
%gid = OpVariable %pv3 Input
%pin = OpTypePointer Input %u32
%pu = OpTypePointer Uniform %i32
%main = OpFunction %void None %fn
%l = OpLabel
%px = OpAccessChain %pin %gid %c0
%x = OpLoad %u32 %px
%pa = OpAccessChain %pu %in %c0 %x
%a = OpLoad %i32 %pa
%pk = OpAccessChain %ppi %pc %c0
%k = OpLoad %i32 %pk
%m = OpIMul %i32 %k %sc
%b = OpIAdd %i32 %a %m
%pb = OpAccessChain %pu %out %c0 %x
OpStore %pb %b
OpReturn
OpFunctionEnd
";

fn script(shader: &str, format: &str) -> String {
    format!(
        "#!amber\nSHADER compute s {format}\n{shader}END\n\
BUFFER a DATA_TYPE int32 DATA 10 -20 END\n\
BUFFER b DATA_TYPE int32 SIZE 2 FILL 0\n\
BUFFER k DATA_TYPE int32 DATA 5 END\n\
PIPELINE compute p\n  ATTACH s SPECIALIZE 3 AS int32 -2\n\
  BIND BUFFER a AS storage DESCRIPTOR_SET 0 BINDING 0\n\
  BIND BUFFER b AS storage DESCRIPTOR_SET 1 BINDING 2\n\
  BIND BUFFER k AS push_constant\nEND\n\
RUN p 1 1 1\nEXPECT b IDX 0 EQ 0 -30\nEXPECT b IDX 0 EQ 1\n"
    )
}

#[test]
fn loads_the_run_tab_inputs() {
    let src = script(SHADER, "SPIRV-ASM");
    // The runner agrees with the first EXPECT (the file's own oracle).
    let out = super::super::run(&super::super::parse(&src).unwrap(), 10_000).unwrap();
    assert_eq!(out.failures.len(), 1, "{out:?}");
    let l = load(&src).unwrap();
    assert!(!l.disassembled);
    assert_eq!(l.text, SHADER);
    assert_eq!(l.workgroups, [1, 1, 1]);
    assert_eq!(l.spec, vec![(3, String::from("-2"))]);
    let keys: Vec<(&str, &str)> = l.inputs.iter().map(|i| (i.key.as_str(), i.spec.as_str())).collect();
    assert_eq!(keys, [("0.0", "i32: 10 -20"), ("1.2", "i32: 0 0"), ("push", "i32: 5")]);
    let n = src.lines().count() as u32;
    assert_eq!(l.expects.iter().map(|e| e.line).collect::<Vec<_>>(), [n - 1, n]);
    assert_eq!(l.expects[1].text, "EXPECT b IDX 0 EQ 1");
}

#[test]
fn checks_expectations_against_given_buffers() {
    let src = script(SHADER, "SPIRV-ASM");
    let mut outputs = Buffers::new();
    outputs.insert((0, 0), [10i32, -20].iter().flat_map(|v| v.to_le_bytes()).collect());
    outputs.insert((1, 2), [0i32, -30].iter().flat_map(|v| v.to_le_bytes()).collect());
    let c = check(&src, &outputs, None).unwrap();
    assert_eq!(c.error, None);
    assert_eq!(c.expects.iter().map(|e| e.pass).collect::<Vec<_>>(), [true, false]);
    assert!(c.expects[1].failures[0].contains("expected 1, got 0"), "{:?}", c.expects[1]);
    // Other values: the first line fails with the value it got.
    outputs.insert((1, 2), [0i32, 7].iter().flat_map(|v| v.to_le_bytes()).collect());
    let c = check(&src, &outputs, None).unwrap();
    assert!(!c.expects[0].pass && c.expects[0].failures[0].contains("expected -30, got 7"), "{:?}", c.expects[0]);
    // A run without the buffer: the script's error, no line passes.
    outputs.remove(&(1, 2));
    let c = check(&src, &outputs, None).unwrap();
    assert!(c.error.is_some() && c.expects.iter().all(|e| !e.pass));
}

/// A buffer bigger than its binding's block: the input is the block's bytes
/// (what the shader sees), and the EXPECT lines check the run's bytes with
/// the rest of the buffer as the file left it. A buffer bound where the
/// shader uses nothing has no input and keeps the file's bytes.
#[test]
fn a_buffer_bigger_than_its_block() {
    let src = script(SHADER, "SPIRV-ASM")
        .replace("BUFFER a DATA_TYPE int32 DATA 10 -20 END", "BUFFER a DATA_TYPE int32 DATA 10 -20 30 40 END")
        .replace("EXPECT b IDX 0 EQ 1\n", "EXPECT a IDX 0 EQ 10 -20 30 40\nEXPECT u IDX 0 EQ 9\n")
        .replace("BUFFER k DATA_TYPE", "BUFFER u DATA_TYPE uint32 DATA 9 END\nBUFFER k DATA_TYPE")
        .replace("  BIND BUFFER k AS", "  BIND BUFFER u AS storage DESCRIPTOR_SET 3 BINDING 0\n  BIND BUFFER k AS");
    let out = super::super::run(&super::super::parse(&src).unwrap(), 10_000).unwrap();
    assert!(out.passed(), "{out:?}");
    let l = load(&src).unwrap();
    assert_eq!(l.inputs[0].spec, "i32: 10 -20");
    // The buffer the shader does not use has no input.
    assert_eq!(l.inputs.iter().map(|i| i.key.as_str()).collect::<Vec<_>>(), ["0.0", "1.2", "push"]);
    let mut outputs = Buffers::new();
    outputs.insert((0, 0), [10i32, -20].iter().flat_map(|v| v.to_le_bytes()).collect());
    outputs.insert((1, 2), [0i32, -30].iter().flat_map(|v| v.to_le_bytes()).collect());
    let c = check(&src, &outputs, None).unwrap();
    assert!(c.error.is_none() && c.expects.iter().all(|e| e.pass), "{c:?}");
}

#[test]
fn spirv_hex_is_disassembled() {
    let words = assemble(SHADER, &AsmOptions::default()).unwrap();
    let hex: String = words_bytes(&words).iter().map(|b| format!("{b:02x} ")).collect();
    let src = script(&format!("{hex}\n"), "SPIRV-HEX");
    let l = load(&src).unwrap();
    assert!(l.disassembled);
    assert!(l.text.contains("OpEntryPoint GLCompute"), "{}", l.text);
    // The disassembly assembles back to the same words.
    assert_eq!(assemble(&l.text, &AsmOptions::default()).unwrap(), words);
}

#[test]
fn refuses_what_the_run_tab_cannot_hold() {
    let src = script(SHADER, "SPIRV-ASM");
    let two = format!("{src}RUN p 2 1 1\n");
    let e = load(&two).unwrap_err();
    assert_eq!(e.line, src.lines().count() as u32 + 1);
    assert!(e.message.contains("second RUN"), "{e}");
    let copy = src.replace("RUN p 1 1 1", "COPY a TO b\nRUN p 1 1 1");
    assert!(load(&copy).unwrap_err().message.contains("COPY"));
    let glsl = "#!amber\nSHADER compute s GLSL\nvoid main() {}\nEND\nPIPELINE compute p\n ATTACH s\nEND\nRUN p 1 1 1\n";
    let e = load(glsl).unwrap_err();
    assert!(e.message.contains("GLSL") && e.line == 2, "{e}");
    // Geometry is recognised, not run.
    let e = load("#!amber\nSHADER geometry g SPIRV-ASM\nEND\n").unwrap_err();
    assert!(e.is_graphics(), "{e}");
}

#[test]
fn input_specs_read_back_exactly() {
    let f32t = DataType { scalar: Scalar::Float { width: 32 }, rows: 1, cols: 1 };
    let b: Vec<u8> = [0.1f32, -3.5, 1e-30].iter().flat_map(|v| v.to_le_bytes()).collect();
    let s = input_spec(&b, f32t);
    assert_eq!(s, "f32: 0.1 -3.5 0.000000000000000000000000000001");
    assert_eq!(crate::interp::values::buffer_bytes(&s, None, None).unwrap(), b);
    // A NaN's bits are kept as hex.
    let nan = 0x7fc0_0001u32.to_le_bytes();
    assert_eq!(input_spec(&nan, f32t), "hex: 01 00 c0 7f");
    let u8t = DataType { scalar: Scalar::Int { width: 16, signed: false }, rows: 1, cols: 1 };
    assert_eq!(input_spec(&[1, 2, 3], u8t), "hex: 01 02 03");
}

/// A fragment shader writing the `vec4` of the uniform buffer at (0, 0) to
/// Location 0.
const FRAGMENT: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %color
OpExecutionMode %main OriginUpperLeft
OpDecorate %color Location 0
OpMemberDecorate %blk 0 Offset 0
OpDecorate %blk Block
OpDecorate %u DescriptorSet 0
OpDecorate %u Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%f32 = OpTypeFloat 32
%v4 = OpTypeVector %f32 4
%i32 = OpTypeInt 32 1
%c0 = OpConstant %i32 0
%blk = OpTypeStruct %v4
%pblk = OpTypePointer Uniform %blk
%u = OpVariable %pblk Uniform
%pv4 = OpTypePointer Uniform %v4
%pout = OpTypePointer Output %v4
%color = OpVariable %pout Output
%main = OpFunction %void None %fn
%l = OpLabel
%p = OpAccessChain %pv4 %u %c0
%v = OpLoad %v4 %p
OpStore %color %v
OpReturn
OpFunctionEnd
";

/// A GraphicsFuzz-shaped script: the passthrough vertex shader, FRAGMENT
/// drawing the uniform's red over an 8x4 framebuffer cleared to opaque
/// black, and its EXPECT lines (the whole image red; one pixel red, without
/// alpha; and one that fails: green).
fn graphics_script() -> String {
    format!(
        "#!amber\nSHADER vertex v PASSTHROUGH\nSHADER fragment f SPIRV-ASM\n{FRAGMENT}END\n\
BUFFER colour DATA_TYPE vec4<float> DATA 1 0 0 1 END\n\
BUFFER fb FORMAT B8G8R8A8_UNORM\n\
PIPELINE graphics p\n  ATTACH v\n  ATTACH f\n  FRAMEBUFFER_SIZE 8 4\n  BIND BUFFER fb AS color LOCATION 0\n  \
BIND BUFFER colour AS uniform DESCRIPTOR_SET 0 BINDING 0\nEND\n\
CLEAR_COLOR p 0 0 0 255\nCLEAR p\n\
RUN p DRAW_RECT POS 0 0 SIZE 8 4\n\
EXPECT fb IDX 0 0 SIZE 8 4 EQ_RGBA 255 0 0 255\n\
EXPECT fb IDX 7 3 SIZE 1 1 EQ_RGB 255 0 0\n\
EXPECT fb IDX 2 1 SIZE 1 1 EQ_RGBA 0 255 0 255\n"
    )
}

/// The line of `src` that starts with `what` (trimmed), 1-based.
fn line_of(src: &str, what: &str) -> u32 {
    src.lines().position(|l| l.trim_start().starts_with(what)).unwrap_or_else(|| panic!("no line {what}")) as u32 + 1
}

#[test]
fn loads_a_graphics_script_as_a_draw() {
    let src = graphics_script();
    let l = load(&src).unwrap();
    assert_eq!(l.text, FRAGMENT);
    assert!(!l.disassembled);
    assert_eq!(l.entry, None);
    assert_eq!(
        l.draw,
        Some(LoadedDraw { size: (8, 4), shape: DrawShape::Rect, format: ColorFormat::B8G8R8A8Unorm, clear: [0.0, 0.0, 0.0, 1.0] })
    );
    let keys: Vec<(&str, &str)> = l.inputs.iter().map(|i| (i.key.as_str(), i.spec.as_str())).collect();
    assert_eq!(keys, [("0.0", "f32: 1 0 0 1")]);
    let want: Vec<u32> = ["EXPECT fb IDX 0", "EXPECT fb IDX 7", "EXPECT fb IDX 2"].iter().map(|e| line_of(&src, e)).collect();
    assert_eq!(l.expects.iter().map(|e| e.line).collect::<Vec<_>>(), want);
    // A grid over the whole framebuffer, no CLEAR (the attachment starts as
    // zeros), and a float attachment.
    let grid = src
        .replace("DRAW_RECT POS 0 0 SIZE 8 4", "DRAW_GRID POS 0 0 SIZE 8 4 CELLS 2 3")
        .replace("CLEAR p\n", "")
        .replace("FORMAT B8G8R8A8_UNORM", "FORMAT R32G32B32A32_SFLOAT");
    let d = load(&grid).unwrap().draw.unwrap();
    assert_eq!((d.shape, d.format, d.clear), (DrawShape::Grid { columns: 2, rows: 3 }, ColorFormat::R32G32B32A32Sfloat, [0.0; 4]));
    // The CLEAR takes the clear colour set before it.
    let late = src.replace("CLEAR_COLOR p 0 0 0 255\nCLEAR p\n", "CLEAR p\nCLEAR_COLOR p 0 0 0 255\n");
    assert_eq!(load(&late).unwrap().draw.unwrap().clear, [0.0; 4]);
}

/// The page's draw of a loaded script: core's plan of its Fragment entry
/// point with the loaded draw and inputs, on the interpreter.
fn page_draw(l: &Loaded) -> (ColorAttachment, Buffers) {
    let a = Analysis::of_text(&l.text, &crate::valid::Options { env: l.env.unwrap_or(TargetEnv::Spv1_0), ..Default::default() });
    assert!(a.is_valid(), "{:?}", a.diagnostics().first());
    let d = l.draw.as_ref().unwrap();
    let inputs = crate::plan::Inputs {
        entry: l.entry.clone(),
        buffers: l.inputs.iter().map(|i| (crate::plan::Slot::Binding(0, 0), i.spec.clone())).collect(),
        draw: Some(crate::plan::DrawInputs { size: d.size, shape: d.shape, format: d.format, clear: d.clear, vertex: None }),
        ..Default::default()
    };
    let plan = crate::plan::Plan::new(&a, &inputs).unwrap();
    let drawn = plan.draw_interp(&plan.options).unwrap().unwrap();
    (drawn.image().unwrap().clone(), drawn.buffers)
}

#[test]
fn checks_a_draw_against_the_image_given() {
    let src = graphics_script();
    // The file's own oracle: `spvlab amber` fails only the green line.
    let out = super::super::run(&super::super::parse(&src).unwrap(), 10_000).unwrap();
    assert_eq!(out.failures.iter().map(|f| f.line).collect::<Vec<_>>(), [line_of(&src, "EXPECT fb IDX 2")], "{out:?}");
    let l = load(&src).unwrap();
    let (img, bufs) = page_draw(&l);
    let c = check(&src, &bufs, Some(&img)).unwrap();
    assert_eq!(c.error, None);
    assert_eq!(c.expects.iter().map(|e| e.pass).collect::<Vec<_>>(), [true, true, false]);
    assert!(c.expects[2].failures[0].contains("texel (2,1): expected RGBA 0 255 0 255, got 255 0 0 255"), "{:?}", c.expects[2]);
    // A wrong image: pixel (7, 3) blue fails the first two lines, with
    // the values.
    let mut wrong = img.clone();
    wrong.write(7, 3, [0.0, 0.0, 1.0, 1.0]);
    let c = check(&src, &bufs, Some(&wrong)).unwrap();
    assert_eq!(c.expects.iter().map(|e| e.pass).collect::<Vec<_>>(), [false, false, false]);
    let f = &c.expects[1].failures[0];
    assert!(f.contains("texel (7,3): expected RGB 255 0 0, got 0 0 255"), "{f}");
    assert!(c.expects[0].failures[0].contains("1 of 32 texels differ"), "{:?}", c.expects[0]);
    // No image, or one of another size: the script's error at the RUN, no
    // line passes.
    for given in [None, Some(ColorAttachment::new(ColorFormat::B8G8R8A8Unorm, 4, 4, [1.0, 0.0, 0.0, 1.0]).unwrap())] {
        let c = check(&src, &bufs, given.as_ref()).unwrap();
        let e = c.error.as_ref().expect("an error");
        assert_eq!(e.line, line_of(&src, "RUN p"), "{e}");
        assert!(e.message.contains("8x4 B8G8R8A8_UNORM"), "{e}");
        assert!(c.expects.iter().all(|e| !e.pass));
    }
}

/// Each thing the page's draw cannot hold is refused at its line.
#[test]
fn refuses_a_draw_the_page_cannot_hold_at_its_line() {
    let src = graphics_script();
    let fragment_line = line_of(&src, "SHADER fragment");
    let cases: Vec<(String, &str, &str)> = vec![
        (src.replace("SHADER vertex v PASSTHROUGH", &format!("SHADER vertex v SPIRV-ASM\n{}END", crate::raster::draws::PASSTHROUGH_VERTEX)), "ATTACH v", "PASSTHROUGH"),
        (src.replace("  ATTACH f\n", "  ATTACH f\n  VIEWPORT 0 0 SIZE 4 4\n"), "VIEWPORT", "VIEWPORT"),
        (src.replace("  ATTACH f\n", "  ATTACH f\n  CULL_MODE back\n"), "CULL_MODE", "CULL_MODE"),
        (src.replace("  ATTACH f\n", "  ATTACH f\n  POLYGON_MODE line\n"), "POLYGON_MODE", "POLYGON_MODE"),
        (src.replace("  ATTACH f\n", "  ATTACH f\n  BLEND\n    SRC_COLOR_FACTOR one\n  END\n"), "BLEND", "BLEND"),
        (
            src.replace("BUFFER fb FORMAT", "BUFFER d FORMAT D32_SFLOAT\nBUFFER fb FORMAT").replace("  BIND BUFFER fb", "  BIND BUFFER d AS depth_stencil\n  BIND BUFFER fb"),
            "BIND BUFFER d",
            "depth",
        ),
        (
            src.replace("BUFFER fb FORMAT", "BUFFER fb2 FORMAT B8G8R8A8_UNORM\nBUFFER fb FORMAT").replace("  BIND BUFFER colour", "  BIND BUFFER fb2 AS color LOCATION 1\n  BIND BUFFER colour"),
            "BIND BUFFER fb2",
            "second colour attachment",
        ),
        (src.replace("AS color LOCATION 0", "AS color LOCATION 1"), "BIND BUFFER fb", "LOCATION 1"),
        (src.replace("FORMAT B8G8R8A8_UNORM", "FORMAT R32_UINT"), "BIND BUFFER fb", "R32_UINT"),
        (src.replace("DRAW_RECT POS 0 0 SIZE 8 4", "DRAW_RECT POS 0 0 SIZE 4 4"), "RUN p", "whole framebuffer"),
        (
            src.replace("BUFFER fb FORMAT", "BUFFER pos DATA_TYPE vec2<float> DATA 0 0 1 1 0 1 END\nBUFFER fb FORMAT")
                .replace("  ATTACH f\n", "  ATTACH f\n  VERTEX_DATA pos LOCATION 0\n")
                .replace("DRAW_RECT POS 0 0 SIZE 8 4", "DRAW_ARRAY AS TRIANGLE_LIST"),
            "RUN p",
            "DRAW_ARRAY",
        ),
        (format!("{src}RUN p DRAW_RECT POS 0 0 SIZE 8 4\n"), "RUN p DRAW_RECT POS 0 0 SIZE 8 4\n", "second RUN"),
        (format!("{src}CLEAR p\n"), "CLEAR p\n", "CLEAR after the RUN"),
        (src.replace("FRAMEBUFFER_SIZE 8 4", "FRAMEBUFFER_SIZE 8000 4").replace("SIZE 8 4", "SIZE 8000 4"), "FRAMEBUFFER_SIZE", "FRAMEBUFFER_SIZE 8000 4"),
        (src.replace("CLEAR p\n", "").replace("BUFFER fb FORMAT B8G8R8A8_UNORM", "BUFFER fb FORMAT B8G8R8A8_UNORM SIZE 32 FILL 7"), "BUFFER fb", "starts with data"),
    ];
    for (text, at, words) in &cases {
        let e = load(text).err().unwrap_or_else(|| panic!("{at}: loaded"));
        // The last line holding `at` (a repeated RUN or CLEAR is the later one).
        let want = text.lines().enumerate().filter(|(_, l)| l.trim_start().starts_with(at.trim_end())).last().map(|(i, _)| i as u32 + 1);
        assert_eq!(Some(e.line), want, "{at}: {e}");
        assert!(e.message.contains(words), "{at}: {e}");
        assert!(!e.is_graphics(), "{e}");
    }
    // A GLSL fragment shader: the page needs the compiled module.
    let glsl = src.replace(&format!("SHADER fragment f SPIRV-ASM\n{FRAGMENT}END"), "SHADER fragment f GLSL\n#version 450\nvoid main() {}\nEND");
    let e = load(&glsl).unwrap_err();
    assert!(e.line == fragment_line && e.message.contains("GLSL") && e.message.contains("compile"), "{e}");
    // A fragment module with a Vertex entry point: the page would draw it
    // with that one.
    let both = src.replace(
        "OpEntryPoint Fragment %main \"main\" %color\n",
        "OpEntryPoint Fragment %main \"main\" %color\nOpEntryPoint Vertex %main \"vmain\"\n",
    );
    let e = load(&both).unwrap_err();
    assert!(e.line == fragment_line && e.message.contains("Vertex entry point"), "{e}");
}
