//! Reflection tests on small assembled modules. Expected offsets and sizes are
//! the ones the modules state (Offset / ArrayStride decorations), summed by hand.

use super::*;
use crate::text::asm::{AsmOptions, assemble};
use crate::{TargetEnv, binary};

fn reflect_src(src: &str, env: TargetEnv) -> Reflection {
    let words = assemble(
        src,
        &AsmOptions {
            env,
            ..AsmOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("assemble: {e:?}"));
    let m = binary::read_words(&words).unwrap_or_else(|e| panic!("read: {e:?}"));
    reflect(&Ir::build(m))
}

const SHADER: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpEntryPoint GLCompute %other "other"
               OpExecutionMode %main LocalSize 1 1 1
               OpName %Out "Out"
               OpMemberName %Out 0 "count"
               OpMemberName %Out 1 "data"
               OpName %out "out"
               OpName %params "params"
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Out 0 Offset 0
               OpMemberDecorate %Out 1 Offset 16
               OpDecorate %Out Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
               OpMemberDecorate %U 0 Offset 0
               OpMemberDecorate %U 1 Offset 16
               OpMemberDecorate %U 1 ColMajor
               OpMemberDecorate %U 1 MatrixStride 16
               OpDecorate %U Block
               OpDecorate %ubo DescriptorSet 2
               OpDecorate %ubo Binding 0
               OpDecorate %unused DescriptorSet 0
               OpDecorate %unused Binding 7
               OpMemberDecorate %P 0 Offset 0
               OpMemberDecorate %P 1 Offset 4
               OpDecorate %P Block
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgs BuiltIn WorkgroupSize
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
       %mat4 = OpTypeMatrix %vec4 4
      %uvec3 = OpTypeVector %uint 3
        %rta = OpTypeRuntimeArray %uint
        %Out = OpTypeStruct %uint %rta
    %ptr_out = OpTypePointer StorageBuffer %Out
        %out = OpVariable %ptr_out StorageBuffer
     %unused = OpVariable %ptr_out StorageBuffer
          %U = OpTypeStruct %vec4 %mat4
      %ptr_u = OpTypePointer Uniform %U
        %ubo = OpVariable %ptr_u Uniform
          %P = OpTypeStruct %uint %uint
      %ptr_p = OpTypePointer PushConstant %P
     %params = OpVariable %ptr_p PushConstant
     %ptr_in = OpTypePointer Input %uvec3
        %gid = OpVariable %ptr_in Input
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
    %uint_64 = OpSpecConstant %uint 64
        %wgs = OpSpecConstantComposite %uvec3 %uint_64 %uint_1 %uint_1
   %ptr_sb_u = OpTypePointer StorageBuffer %uint
   %ptr_pc_u = OpTypePointer PushConstant %uint
  %ptr_u_v4 = OpTypePointer Uniform %vec4
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
         %l1 = OpLabel
          %x = OpFunctionCall %void %helper
               OpReturn
               OpFunctionEnd
     %helper = OpFunction %void None %fn
         %l2 = OpLabel
          %p = OpAccessChain %ptr_sb_u %out %uint_0
          %q = OpAccessChain %ptr_pc_u %params %uint_1
          %v = OpLoad %uint %q
          %r = OpAccessChain %ptr_u_v4 %ubo %uint_0
               OpStore %p %v
               OpReturn
               OpFunctionEnd
      %other = OpFunction %void None %fn
         %l3 = OpLabel
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn buffers_push_constants_workgroup_size_and_builtins() {
    let r = reflect_src(SHADER, TargetEnv::Spv1_3);
    assert_eq!(r.entry_points.len(), 2);
    let e = &r.entry_points[0];
    assert_eq!(
        (e.name.as_str(), e.execution_model),
        ("main", super::ExecutionModel::GLCompute)
    );
    // The WorkgroupSize built-in wins over LocalSize 1 1 1.
    assert_eq!(
        e.workgroup_size,
        Some(WorkgroupSize {
            x: Some(64),
            y: Some(1),
            z: Some(1),
            source: WorkgroupSource::BuiltIn
        })
    );
    // Used through the helper function; %unused is not used.
    let names: Vec<_> = e.resources.iter().map(|r| r.name.as_deref()).collect();
    assert_eq!(names, [Some("out"), None, Some("params")]);
    let out = &e.resources[0];
    assert_eq!(
        (out.kind, out.set, out.binding),
        (ResourceKind::StorageBuffer, Some(0), Some(1))
    );
    assert_eq!(out.storage_class, "StorageBuffer");
    assert_eq!(out.block.as_deref(), Some("Block"));
    assert_eq!(out.size, None);
    assert_eq!(
        out.runtime_array,
        Some(RuntimeArrayShape {
            fixed_size: 16,
            stride: Some(4)
        })
    );
    assert_eq!(out.ty.members[1].name.as_deref(), Some("data"));
    assert_eq!(out.ty.members[1].ty.shape, TypeShape::RuntimeArray);
    let ubo = &e.resources[1];
    assert_eq!(
        (ubo.kind, ubo.set, ubo.binding),
        (ResourceKind::UniformBuffer, Some(2), Some(0))
    );
    // vec4 at 0 (16 bytes), mat4 at 16: 4 columns x stride 16 = 64, so 80.
    assert_eq!(ubo.size, Some(80));
    assert_eq!(ubo.ty.members[1].size, Some(64));
    let pc = &e.resources[2];
    assert_eq!(
        (pc.kind, pc.set, pc.size),
        (ResourceKind::PushConstant, None, Some(8))
    );
    assert_eq!(e.builtins.len(), 1);
    assert_eq!(e.builtins[0].builtin, "GlobalInvocationId");
    assert_eq!(e.builtins[0].storage_class, "Input");
    // The other entry point uses nothing; the built-in constant still sets its size.
    let o = &r.entry_points[1];
    assert!(o.resources.is_empty());
    assert_eq!(o.workgroup_size.map(|w| w.x), Some(Some(64)));
}

#[test]
fn uniform_buffer_block_is_a_storage_buffer_and_local_size_id_evaluates() {
    let src = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionModeId %main LocalSizeId %c8 %c2 %c1
               OpDecorate %arr ArrayStride 16
               OpMemberDecorate %B 0 Offset 0
               OpDecorate %B BufferBlock
               OpDecorate %b DescriptorSet 0
               OpDecorate %b Binding 0
       %uint = OpTypeInt 32 0
         %c1 = OpConstant %uint 1
         %c2 = OpConstant %uint 2
         %c4 = OpConstant %uint 4
         %c8 = OpSpecConstantOp %uint IMul %c4 %c2
        %arr = OpTypeArray %uint %c4
          %B = OpTypeStruct %arr
      %ptr_b = OpTypePointer Uniform %B
          %b = OpVariable %ptr_b Uniform
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
          %l = OpLabel
          %x = OpLoad %B %b
               OpReturn
               OpFunctionEnd
"#;
    let r = reflect_src(src, TargetEnv::Spv1_3);
    let e = &r.entry_points[0];
    assert_eq!(
        e.workgroup_size,
        Some(WorkgroupSize {
            x: Some(8),
            y: Some(2),
            z: Some(1),
            source: WorkgroupSource::LocalSizeId
        })
    );
    let b = &e.resources[0];
    assert_eq!(b.kind, ResourceKind::StorageBuffer);
    assert_eq!(b.block.as_deref(), Some("BufferBlock"));
    assert_eq!(b.size, Some(64)); // 4 x stride 16
    assert_eq!(b.ty.members[0].ty.describe(), "array<uint32, 4>");
}

/// The settable spec constants: those with a SpecId, by SpecId, with their
/// defaults as the module writes them; composites and OpSpecConstantOp are
/// not settable.
#[test]
fn spec_constants_with_their_defaults() {
    let src = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpName %k \"k\"\n\
               OpDecorate %k SpecId 7\nOpDecorate %f SpecId 2\nOpDecorate %b SpecId 3\nOpDecorate %n SpecId 4\n\
               %u = OpTypeInt 32 0\n%i = OpTypeInt 32 1\n%fl = OpTypeFloat 32\n%bool = OpTypeBool\n%v2 = OpTypeVector %u 2\n\
               %k = OpSpecConstant %u 64\n%f = OpSpecConstant %fl 0.5\n%b = OpSpecConstantFalse %bool\n%n = OpSpecConstant %i -3\n\
               %c = OpSpecConstantComposite %v2 %k %k\n%x = OpSpecConstantOp %u IAdd %k %k\n%free = OpSpecConstant %u 1\n";
    let r = reflect_src(src, TargetEnv::Spv1_3);
    let got: Vec<(u32, Option<&str>, Option<&str>)> = r.spec_constants.iter().map(|s| (s.spec_id, s.name.as_deref(), s.default.as_deref())).collect();
    assert_eq!(got, [(2, None, Some("0.5")), (3, None, Some("false")), (4, None, Some("-3")), (7, Some("k"), Some("64"))]);
    assert!(matches!(r.spec_constants[2].ty.shape, TypeShape::Int { width: 32, signed: true }));
}
