//! `spvlab reflect`, run as a process: text and binary input (the binary from
//! the reference spirv-as), human and JSON output, exit codes (0 ok, 1 bad
//! input, 2 bad usage). Expected sets, bindings, offsets and sizes are the ones
//! the module declares (DescriptorSet, Binding, Offset, ArrayStride), summed by
//! hand.

use std::process::Output;

use serde_json::Value;
use spvlab_tests::{assert_exit, reference_or_skip, root, run_spvlab, run_tool, scratch};

const MODULE: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 8 4 2
               OpName %data "data"
               OpName %params "params"
               OpMemberName %Data 0 "count"
               OpMemberName %Data 1 "values"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 8
               OpMemberDecorate %Data 0 Offset 0
               OpMemberDecorate %Data 1 Offset 16
               OpDecorate %Data BufferBlock
               OpDecorate %data DescriptorSet 1
               OpDecorate %data Binding 2
               OpDecorate %arr ArrayStride 16
               OpMemberDecorate %Params 0 Offset 0
               OpMemberDecorate %Params 1 Offset 64
               OpDecorate %Params Block
               OpDecorate %params DescriptorSet 0
               OpDecorate %params Binding 5
       %uint = OpTypeInt 32 0
      %uvec2 = OpTypeVector %uint 2
      %uvec3 = OpTypeVector %uint 3
         %c4 = OpConstant %uint 4
         %c0 = OpConstant %uint 0
        %rta = OpTypeRuntimeArray %uvec2
       %Data = OpTypeStruct %uint %rta
     %p_data = OpTypePointer Uniform %Data
       %data = OpVariable %p_data Uniform
        %arr = OpTypeArray %uint %c4
     %Params = OpTypeStruct %arr %uint
   %p_params = OpTypePointer Uniform %Params
     %params = OpVariable %p_params Uniform
      %p_gid = OpTypePointer Input %uvec3
        %gid = OpVariable %p_gid Input
     %p_uint = OpTypePointer Uniform %uint
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %a = OpAccessChain %p_uint %params %c0 %c0
          %v = OpLoad %uint %a
          %b = OpAccessChain %p_uint %data %c0
               OpStore %b %v
               OpReturn
               OpFunctionEnd
"#;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn reflect_prints_bindings_sizes_and_workgroup_size() {
    let o = run_spvlab(&root(), &["reflect", "-"], MODULE.as_bytes());
    assert_exit(&o, 0);
    let out = stdout(&o);
    for line in [
        "entry point \"main\" (GLCompute, %",
        "  workgroup size: 8 x 4 x 2 (LocalSize)",
        // The fixed part is the runtime array's Offset, the stride its ArrayStride.
        "    set 0 binding 5, Uniform params (%",
        "uniform buffer, Block, 68 bytes",
        "    set 1 binding 2, Uniform data (%",
        "storage buffer, BufferBlock, 16 bytes + 8 per element",
        "offset   16: values: array<vec2<uint32>>, array stride 8",
        "  built-ins: GlobalInvocationId (Input)",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

#[test]
fn reflect_json_and_binary_input() {
    let o = run_spvlab(&root(), &["reflect", "--json", "-"], MODULE.as_bytes());
    assert_exit(&o, 0);
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let e = &v["entryPoints"][0];
    assert_eq!(e["workgroupSize"]["x"], 8);
    let res = e["resources"].as_array().expect("resources");
    assert_eq!(res.len(), 2);
    assert_eq!((res[0]["set"].as_u64(), res[0]["binding"].as_u64()), (Some(0), Some(5)));
    assert_eq!(res[0]["kind"], "uniformBuffer");
    assert_eq!(res[0]["size"], 68); // uint[4] stride 16 at 0, uint at 64
    assert_eq!(res[0]["type"]["members"][0]["type"]["arrayStride"], 16);
    assert_eq!(res[1]["kind"], "storageBuffer");
    assert_eq!(res[1]["storageClass"], "Uniform");
    assert_eq!(res[1]["block"], "BufferBlock");
    assert_eq!(res[1]["runtimeArray"]["fixedSize"], 16);
    assert_eq!(res[1]["runtimeArray"]["stride"], 8);
    assert_eq!(e["builtins"][0]["builtin"], "GlobalInvocationId");

    // The same module as a binary (assembled by the reference spirv-as).
    let Some(bin) = reference_or_skip("reflect_json_and_binary_input") else { return };
    let dir = scratch("cli-reflect-binary");
    std::fs::write(dir.join("m.spvasm"), MODULE).unwrap();
    let (ok, _, err) = run_tool(
        &bin,
        "spirv-as",
        &[dir.join("m.spvasm").to_str().unwrap(), "-o", dir.join("m.spv").to_str().unwrap()],
    );
    assert!(ok, "spirv-as: {err}");
    let b = run_spvlab(&dir, &["reflect", "--json", "m.spv"], b"");
    assert_exit(&b, 0);
    assert_eq!(b.stdout, o.stdout, "a binary reflects as its text does");
}

#[test]
fn reflect_exit_codes() {
    let o = run_spvlab(&root(), &["reflect", "-"], b"OpCapability NoSuchCapability\n");
    assert_exit(&o, 1);
    assert!(String::from_utf8_lossy(&o.stderr).contains("error"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run_spvlab(&root(), &["reflect", "-"], &[0x03, 0x02, 0x23, 0x07, 1, 2]);
    assert_exit(&o, 1);
    let o = run_spvlab(&root(), &["reflect", "--no-such-flag", "-"], MODULE.as_bytes());
    assert_exit(&o, 2);
    let o = run_spvlab(&root(), &["reflect", "--json=1", "-"], MODULE.as_bytes());
    assert_exit(&o, 2);
    let o = run_spvlab(&root(), &["reflect", "a.spv", "b.spv"], b"");
    assert_exit(&o, 2);
    let o = run_spvlab(&root(), &["--help"], b"");
    assert_exit(&o, 0);
    assert!(stdout(&o).contains("reflect"), "{}", stdout(&o));
}
