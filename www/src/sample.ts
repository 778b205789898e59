/** The module the page starts with. */
export const SAMPLE = `; A compute shader that doubles every element of a buffer.
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %data
               OpExecutionMode %main LocalSize 64 1 1
               OpName %main "main"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %buf Block
               OpDecorate %data DescriptorSet 0
               OpDecorate %data Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
    %p_in_v3 = OpTypePointer Input %v3uint
        %gid = OpVariable %p_in_v3 Input
        %rta = OpTypeRuntimeArray %uint
        %buf = OpTypeStruct %rta
      %p_buf = OpTypePointer StorageBuffer %buf
       %data = OpVariable %p_buf StorageBuffer
     %p_uint = OpTypePointer StorageBuffer %uint
     %uint_0 = OpConstant %uint 0
     %uint_2 = OpConstant %uint 2
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %id3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %id3 0
          %p = OpAccessChain %p_uint %data %uint_0 %i
          %x = OpLoad %uint %p
          %y = OpIMul %uint %x %uint_2
               OpStore %p %y
               OpReturn
               OpFunctionEnd
`;
