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
    let c = check(&src, &outputs).unwrap();
    assert_eq!(c.error, None);
    assert_eq!(c.expects.iter().map(|e| e.pass).collect::<Vec<_>>(), [true, false]);
    assert!(c.expects[1].failures[0].contains("expected 1, got 0"), "{:?}", c.expects[1]);
    // Other values: the first line fails with the value it got.
    outputs.insert((1, 2), [0i32, 7].iter().flat_map(|v| v.to_le_bytes()).collect());
    let c = check(&src, &outputs).unwrap();
    assert!(!c.expects[0].pass && c.expects[0].failures[0].contains("expected -30, got 7"), "{:?}", c.expects[0]);
    // A run without the buffer: the script's error, no line passes.
    outputs.remove(&(1, 2));
    let c = check(&src, &outputs).unwrap();
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
    let c = check(&src, &outputs).unwrap();
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
    let e = load("#!amber\nSHADER vertex v PASSTHROUGH\n").unwrap_err();
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
