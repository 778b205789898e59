//! `spvlab wgsl`, run as a process: text and binary input, `-o`, `--entry`,
//! refusals located at line:col with exit 1, bad usage with exit 2. The
//! module is SPIR-V 1.0 (a BufferBlock: a storage buffer in Uniform storage).

use spvlab_core::TargetEnv;
use spvlab_core::text::{AsmOptions, assemble};
use spvlab_tests::{assert_exit, run_spvlab, scratch};

const MODULE: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 8 1 1
OpName %out \"out\"
OpName %gid \"gid\"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %rt ArrayStride 4
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf BufferBlock
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 3
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%v3uint = OpTypeVector %uint 3
%ptr_in = OpTypePointer Input %v3uint
%gid = OpVariable %ptr_in Input
%rt = OpTypeRuntimeArray %uint
%buf = OpTypeStruct %rt
%ptr_buf = OpTypePointer Uniform %buf
%ptr_u = OpTypePointer Uniform %uint
%out = OpVariable %ptr_buf Uniform
%u0 = OpConstant %uint 0
%main = OpFunction %void None %fn
%e = OpLabel
%id = OpLoad %v3uint %gid
%x = OpCompositeExtract %uint %id 0
%p = OpAccessChain %ptr_u %out %u0 %x
OpStore %p %x
OpReturn
OpFunctionEnd
";

fn naga_accepts(text: &str) {
    let m = naga::front::wgsl::parse_str(text).unwrap_or_else(|e| panic!("{}", e.emit_to_string(text)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
        .validate(&m)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(text)));
}

#[test]
fn text_and_binary_input_give_the_same_wgsl() {
    let dir = scratch("wgsl_cli_io");
    std::fs::write(dir.join("m.spvasm"), MODULE).unwrap();
    let words = assemble(MODULE, &AsmOptions { env: TargetEnv::parse("spv1.0").unwrap(), preserve_numeric_ids: false }).unwrap();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join("m.spv"), bytes).unwrap();
    let o = run_spvlab(&dir, &["wgsl", "--target-env", "spv1.0", "m.spvasm", "-o", "out.wgsl"], b"");
    assert_exit(&o, 0);
    let text = std::fs::read_to_string(dir.join("out.wgsl")).unwrap();
    naga_accepts(&text);
    // A BufferBlock in Uniform storage is a storage buffer.
    assert!(text.contains("@group(0) @binding(3) var<storage, read_write> out:"), "{text}");
    assert!(text.contains("@compute @workgroup_size(8, 1, 1)\nfn main("), "{text}");
    let o = run_spvlab(&dir, &["wgsl", "m.spv"], b"");
    assert_exit(&o, 0);
    assert_eq!(String::from_utf8_lossy(&o.stdout), text);
    let o = run_spvlab(&dir, &["wgsl", "--target-env", "spv1.0", "--entry", "main"], MODULE.as_bytes());
    assert_exit(&o, 0);
    assert_eq!(String::from_utf8_lossy(&o.stdout), text);
}

#[test]
fn refusals_and_bad_usage() {
    let dir = scratch("wgsl_cli_refusals");
    std::fs::write(dir.join("m.spvasm"), MODULE).unwrap();
    let o = run_spvlab(&dir, &["wgsl", "--target-env", "spv1.0", "--entry", "nope", "m.spvasm"], b"");
    assert_exit(&o, 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("error[wgsl.entry-point]") && err.contains("no entry point named \"nope\""), "{err}");
    let f64 = MODULE.replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability Float64\n");
    std::fs::write(dir.join("f64.spvasm"), f64).unwrap();
    let o = run_spvlab(&dir, &["wgsl", "--target-env", "spv1.0", "f64.spvasm"], b"");
    assert_exit(&o, 1);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("error[wgsl.float64]") && err.contains("f64.spvasm:2:1"), "{err}");
    assert!(err.contains("WGSL has no 64-bit floating point type"), "{err}");
    assert!(o.stdout.is_empty());
    let o = run_spvlab(&dir, &["wgsl", "--bogus", "m.spvasm"], b"");
    assert_exit(&o, 2);
}
