//! AmberScript reader and runner tests. The shader doubles each element of a
//! buffer in place (out[i] = 2 * in[i], one invocation per element), so the
//! expected values are the DATA doubled, by hand.

use super::*;
use alloc::vec;

const SCRIPT: &str = r#"#!amber
# doubles buf in place
SHADER compute doubler SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 2 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk BufferBlock
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 3
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
        %rta = OpTypeRuntimeArray %int
        %blk = OpTypeStruct %rta
      %p_blk = OpTypePointer Uniform %blk
      %p_int = OpTypePointer Uniform %int
       %p_in = OpTypePointer Input %v3uint
        %buf = OpVariable %p_blk Uniform
        %gid = OpVariable %p_in Input
         %u0 = OpConstant %uint 0
         %i2 = OpConstant %int 2
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g3 0
          %p = OpAccessChain %p_int %buf %u0 %x
          %v = OpLoad %int %p
          %d = OpIMul %int %v %i2
               OpStore %p %d
               OpReturn
               OpFunctionEnd
END

BUFFER data DATA_TYPE int32 STD430 DATA 1 -2
  3 40 END
BUFFER spare DATA_TYPE uint32 STD430 SIZE 3 FILL 7

PIPELINE compute pipe
  ATTACH doubler
  BIND BUFFER data AS storage DESCRIPTOR_SET 0 BINDING 3
END

RUN pipe 2 1 1
EXPECT data IDX 0 EQ 2 -4 6 80
EXPECT data IDX 8 EQ 6
EXPECT spare IDX 4 EQ 7 7
"#;

#[test]
fn parses_the_subset() {
    let s = parse(SCRIPT).expect("parses");
    assert_eq!(s.shaders.len(), 1);
    assert_eq!(s.shaders[0].line, 3);
    // DATA spans two lines: 1 -2 3 40 as little-endian int32.
    let data: Vec<u8> = [1i32, -2, 3, 40]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(s.buffers[0].data, data);
    assert_eq!(
        s.buffers[1].data,
        [7u32, 7, 7]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        s.pipelines[0].binds,
        vec![Bind {
            buffer: "data".into(),
            kind: BindKind::Descriptor {
                set: 0,
                binding: 3,
                offset: 0,
                range: None
            },
            line: 46,
            index: 0,
            array: false,
            image: false,
        }]
    );
    assert_eq!(s.commands.len(), 4);
}

#[test]
fn runs_and_meets_the_expectations() {
    let s = parse(SCRIPT).expect("parses");
    let o = run(&s, 10_000).expect("runs");
    assert!(o.passed(), "{:?}", o.failures);
}

#[test]
fn a_wrong_expectation_fails_at_its_line() {
    let text = SCRIPT.replace("EXPECT data IDX 8 EQ 6", "EXPECT data IDX 8 EQ 5");
    let o = run(&parse(&text).expect("parses"), 10_000).expect("runs");
    assert_eq!(
        o.failures,
        vec![AmberError {
            graphics: false,
            line: 51,
            col: 1,
            message: "data at byte 8: expected 5, got 6".into()
        }]
    );
}

#[test]
fn errors_are_located() {
    let e = parse(&SCRIPT.replace("RUN pipe 2 1 1", "RUN pipe 2 1")).expect_err("RUN z is missing");
    assert_eq!(
        e,
        AmberError {
            graphics: false,
            line: 49,
            col: 13,
            message: "RUN z is missing".into()
        }
    );
    let e = parse(&SCRIPT.replace("BUFFER spare", "BUFFR spare")).expect_err("unknown command");
    assert_eq!(e.line, 42);
    assert_eq!(e.message, "not supported: BUFFR");
    // A run error (out of bounds: 8 invocations on 4 elements) is at the
    // instruction in the shader's text (script line 33, `%v = OpLoad %int
    // %p`, its first token at column 11), and names the RUN line.
    let e = run(
        &parse(&SCRIPT.replace("RUN pipe 2 1 1", "RUN pipe 4 1 1")).expect("parses"),
        10_000,
    )
    .expect_err("out of bounds");
    assert_eq!((e.line, e.col), (33, 11));
    assert!(
        e.message.ends_with("(in the RUN at line 49)"),
        "{}",
        e.message
    );
    assert!(
        e.message.starts_with(
            "out-of-bounds access: 4 bytes at offset 16 of the buffer at set 0, binding 3"
        ),
        "{}",
        e.message
    );
}

#[test]
fn descriptor_offsets_and_ranges() {
    // OFFSET 4 + DESCRIPTOR_OFFSET 4: the shader's buffer starts at byte 8
    // of `data` (1 -2 3 40), so one workgroup of two doubles 3 and 40 and
    // leaves 1 and -2.
    let text = SCRIPT
        .replace(
            "AS storage DESCRIPTOR_SET 0 BINDING 3",
            "AS storage DESCRIPTOR_SET 0 BINDING 3 OFFSET 4 DESCRIPTOR_OFFSET 4",
        )
        .replace("RUN pipe 2 1 1", "RUN pipe 1 1 1")
        .replace(
            "EXPECT data IDX 0 EQ 2 -4 6 80",
            "EXPECT data IDX 0 EQ 1 -2 6 80",
        )
        .replace("EXPECT data IDX 8 EQ 6\n", "");
    let o = run(&parse(&text).expect("parses"), 10_000).expect("runs");
    assert!(o.passed(), "{:?}", o.failures);
    // DESCRIPTOR_RANGE 4: one element is in range, the second invocation's
    // is out of bounds (4 bytes at offset 4 of a 4-byte buffer).
    let ranged = text.replace(
        "DESCRIPTOR_OFFSET 4",
        "DESCRIPTOR_OFFSET 4 DESCRIPTOR_RANGE 4",
    );
    let e = run(&parse(&ranged).expect("parses"), 10_000).expect_err("out of bounds");
    assert!(
        e.message.starts_with(
            "out-of-bounds access: 4 bytes at offset 4 of the buffer at set 0, binding 3"
        ),
        "{}",
        e.message
    );
}

/// The script with its `data` buffer read from a file named `name`.
fn with_file_buffer(kind: &str) -> String {
    SCRIPT.replace(
        "BUFFER data DATA_TYPE int32 STD430 DATA 1 -2\n  3 40 END",
        &alloc::format!("BUFFER data DATA_TYPE int32 STD430 SIZE 4 FILE {kind} in.dat"),
    )
}

#[test]
fn buffer_data_from_a_file() {
    // TEXT: the values as DATA writes them, over lines, with a comment.
    let mut text = |name: &str| match name {
        "in.dat" => Ok(b"1 -2 # first two\n3 40\n".to_vec()),
        _ => Err(String::from("no such file")),
    };
    let s = parse_with(&with_file_buffer("TEXT"), &mut text).expect("parses");
    let data = s.buffers.iter().find(|b| b.name == "data").expect("data");
    assert_eq!(data.data, [1i32, -2, 3, 40].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>());
    assert!(run(&s, 1000).expect("runs").passed());
    // BINARY: the bytes themselves (little-endian int32 1, -2, 3, 40).
    let bytes: Vec<u8> = [1i32, -2, 3, 40].iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut binary = |_: &str| Ok(bytes.clone());
    let s = parse_with(&with_file_buffer("BINARY"), &mut binary).expect("parses");
    assert!(run(&s, 1000).expect("runs").passed());
    // A file that cannot be read, a bad value in a text file, a PNG, and no
    // file system at all: located errors.
    let mut none = |_: &str| Err(String::from("no such file"));
    let e = parse_with(&with_file_buffer("TEXT"), &mut none).unwrap_err();
    assert!(e.message.contains("cannot read `in.dat`: no such file"), "{e}");
    assert_eq!((e.line, e.col), (40, 53)); // at the file name
    let mut bad = |_: &str| Ok(b"1 2\n3 x4\n".to_vec());
    let e = parse_with(&with_file_buffer("TEXT"), &mut bad).unwrap_err();
    assert!(e.message.starts_with("in.dat:2:3: `x4` is not a value"), "{e}");
    let e = parse_with(&with_file_buffer("PNG"), &mut text).unwrap_err();
    assert!(e.message.contains("PNG"), "{e}");
    assert!(parse(&with_file_buffer("TEXT")).unwrap_err().message.contains("cannot read"));
}

/// An array of two storage buffers (the second a window of a bigger buffer,
/// by DESCRIPTOR_OFFSET) and a 2 x 1 rgba8 storage image: the shader writes
/// 7 to element 0 of each buffer and (1, 0.5, 0, 1) to texel (1, 0).
const IMAGES: &str = r#"#!amber
SHADER compute s SPIRV-ASM
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk Block
               OpDecorate %bufs DescriptorSet 0
               OpDecorate %bufs Binding 0
               OpDecorate %img DescriptorSet 0
               OpDecorate %img Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %v2int = OpTypeVector %int 2
    %v4float = OpTypeVector %float 4
        %rta = OpTypeRuntimeArray %uint
        %blk = OpTypeStruct %rta
         %u2 = OpConstant %uint 2
        %arr = OpTypeArray %blk %u2
      %p_arr = OpTypePointer StorageBuffer %arr
     %p_uint = OpTypePointer StorageBuffer %uint
     %img_ty = OpTypeImage %float 2D 0 0 0 2 Rgba8
      %p_img = OpTypePointer UniformConstant %img_ty
       %bufs = OpVariable %p_arr StorageBuffer
        %img = OpVariable %p_img UniformConstant
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u7 = OpConstant %uint 7
         %i0 = OpConstant %int 0
         %i1 = OpConstant %int 1
         %f0 = OpConstant %float 0
      %fhalf = OpConstant %float 0.5
         %f1 = OpConstant %float 1
      %coord = OpConstantComposite %v2int %i1 %i0
      %color = OpConstantComposite %v4float %f1 %fhalf %f0 %f1
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %e0 = OpAccessChain %p_uint %bufs %u0 %u0 %u0
               OpStore %e0 %u7
         %e1 = OpAccessChain %p_uint %bufs %u1 %u0 %u0
               OpStore %e1 %u7
          %i = OpLoad %img_ty %img
               OpImageWrite %i %coord %color
               OpReturn
               OpFunctionEnd
END

BUFFER a DATA_TYPE uint32 SIZE 4 FILL 1
BUFFER b DATA_TYPE uint32 SIZE 4 FILL 1
IMAGE picture FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 2 HEIGHT 1 FILL 0

PIPELINE compute p
  ATTACH s
  BIND BUFFER_ARRAY a b AS storage DESCRIPTOR_SET 0 BINDING 0 DESCRIPTOR_OFFSET 0 8 DESCRIPTOR_RANGE 16 8
  BIND BUFFER picture AS storage_image DESCRIPTOR_SET 0 BINDING 1
END

RUN p 1 1 1
EXPECT a IDX 0 EQ 7 1 1 1
EXPECT b IDX 0 EQ 1 1 7 1
EXPECT picture IDX 0 0 SIZE 1 1 EQ_RGBA 0 0 0 0
EXPECT picture IDX 1 0 SIZE 1 1 EQ_RGBA 255 128 0 255
"#;

#[test]
fn runs_buffer_arrays_and_images() {
    let s = parse(IMAGES).expect("parses");
    let o = run(&s, 10_000).expect("runs");
    assert!(o.passed(), "{:?}", o.failures);
    assert_eq!(o.checked, 4);
    // A texel that differs fails.
    let wrong = IMAGES.replace("EQ_RGBA 0 0 0 0", "EQ_RGBA 0 0 0 255");
    let o = run(&parse(&wrong).expect("parses"), 10_000).expect("runs");
    assert_eq!(o.failures.len(), 1, "{:?}", o.failures);
    assert!(o.failures[0].message.contains("texel (0,0)"), "{:?}", o.failures);
}

#[test]
fn shader_optimization_emulates_only_robust_access() {
    let with = |passes: &str| {
        SCRIPT.replace(
            "  ATTACH doubler\n",
            &alloc::format!("  ATTACH doubler\n  SHADER_OPTIMIZATION doubler\n{passes}  END\n"),
        )
    };
    let s = parse(&with("    --graphics-robust-access\n")).expect("parses");
    assert!(s.pipelines[0].robust_access);
    assert!(run(&s, 10_000).expect("runs").passed());
    // Another pass: located at its line and column.
    let e = parse(&with("    --graphics-robust-access\n    --inline-entry-points-exhaustive\n")).unwrap_err();
    assert!(e.message.contains("`--inline-entry-points-exhaustive`"), "{e}");
    let line = with("").lines().position(|l| l.contains("SHADER_OPTIMIZATION")).unwrap() as u32 + 3;
    assert_eq!((e.line, e.col), (line, 5));
}
