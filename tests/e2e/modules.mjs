// Small modules that the GPU tests (gpu.test.mjs, run.test.mjs) share.

/** A module with one storage buffer `%buf` (`buf`, its member `data`) of two
 *  `elem`s (`%c0`, `%c2` and `%pu`, a pointer to an element, defined) whose
 *  entry block is `body`. */
export function bufferModule(elem, stride, types, body, caps = "") {
  return `OpCapability Shader
${caps}OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %buf
OpExecutionMode %main LocalSize 1 1 1
OpName %buf "buf"
OpMemberName %S 0 "data"
OpDecorate %arr ArrayStride ${stride}
OpMemberDecorate %S 0 Offset 0
OpDecorate %S Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%c0 = OpConstant %u32 0
%c2 = OpConstant %u32 2
${types}%arr = OpTypeArray ${elem} %c2
%S = OpTypeStruct %arr
%pS = OpTypePointer StorageBuffer %S
%buf = OpVariable %pS StorageBuffer
%pu = OpTypePointer StorageBuffer ${elem}
%main = OpFunction %void None %fn
%e = OpLabel
${body}OpFunctionEnd
`;
}

// 64-bit integers: WGSL has none (refused, `wgsl.int64`); the interpreter runs it.
export const INT64 = bufferModule("%u64", 8, "%u64 = OpTypeInt 64 0\n%k = OpConstant %u64 0x100000001\n", `%p = OpAccessChain %pu %buf %c0 %c0
%v = OpLoad %u64 %p
%w = OpIAdd %u64 %v %k
OpStore %p %w
OpReturn
`, "OpCapability Int64\n");

// A loop that never ends.
export const ENDLESS = bufferModule("%u32", 4, "", `OpBranch %h
%h = OpLabel
OpLoopMerge %m %c None
OpBranch %c
%c = OpLabel
%p = OpAccessChain %pu %buf %c0 %c0
%v = OpLoad %u32 %p
%w = OpIAdd %u32 %v %c2
OpStore %p %w
OpBranch %h
%m = OpLabel
OpReturn
`);

// A spec constant `k` (SpecId 3, default 7): data[0] = k, data[1] = k + k
// (an OpSpecConstantOp).
export const SPEC = bufferModule("%u32", 4, "%c1 = OpConstant %u32 1\n%k = OpSpecConstant %u32 7\n%kk = OpSpecConstantOp %u32 IAdd %k %k\n", `%p0 = OpAccessChain %pu %buf %c0 %c0
OpStore %p0 %k
%p1 = OpAccessChain %pu %buf %c0 %c1
OpStore %p1 %kk
OpReturn
`).replace('OpName %buf "buf"\n', 'OpName %buf "buf"\nOpName %k "k"\n').replace("OpDecorate %S Block\n", "OpDecorate %S Block\nOpDecorate %k SpecId 3\n");

// data[i] = sin(data[i]) over 4 invocations (f32): with large arguments the
// interpreter's sin (correctly rounded libm) and a GPU's differ.
export const SIN = `OpCapability Shader
%std = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %gid %buf
OpExecutionMode %main LocalSize 4 1 1
OpName %buf "buf"
OpMemberName %S 0 "data"
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %S 0 Offset 0
OpDecorate %S Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%f32 = OpTypeFloat 32
%c0 = OpConstant %u32 0
%c4 = OpConstant %u32 4
%arr = OpTypeArray %f32 %c4
%S = OpTypeStruct %arr
%pS = OpTypePointer StorageBuffer %S
%buf = OpVariable %pS StorageBuffer
%v3 = OpTypeVector %u32 3
%pv3 = OpTypePointer Input %v3
%gid = OpVariable %pv3 Input
%pf = OpTypePointer StorageBuffer %f32
%main = OpFunction %void None %fn
%e = OpLabel
%g = OpLoad %v3 %gid
%x = OpCompositeExtract %u32 %g 0
%p = OpAccessChain %pf %buf %c0 %x
%v = OpLoad %f32 %p
%s = OpExtInst %f32 %std Sin %v
OpStore %p %s
OpReturn
OpFunctionEnd
`;

// A struct of a u32 (Offset 0), a vec2<f32> (Offset 8) and a column-major
// mat2x2<f32> (Offset 16, MatrixStride 8, WGSL's: 32 bytes); the shader
// stores `a` back, so the buffer comes out as it went in.
export const LAYOUT = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %buf
OpExecutionMode %main LocalSize 1 1 1
OpName %S "S"
OpMemberName %S 0 "a"
OpMemberName %S 1 "v"
OpMemberName %S 2 "m"
OpName %buf "buf"
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 1 Offset 8
OpMemberDecorate %S 2 Offset 16
OpMemberDecorate %S 2 ColMajor
OpMemberDecorate %S 2 MatrixStride 8
OpDecorate %S Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%f32 = OpTypeFloat 32
%v2 = OpTypeVector %f32 2
%m2 = OpTypeMatrix %v2 2
%S = OpTypeStruct %u32 %v2 %m2
%pS = OpTypePointer StorageBuffer %S
%buf = OpVariable %pS StorageBuffer
%pu = OpTypePointer StorageBuffer %u32
%c0 = OpConstant %u32 0
%main = OpFunction %void None %fn
%e = OpLabel
%p = OpAccessChain %pu %buf %c0
%x = OpLoad %u32 %p
OpStore %p %x
OpReturn
OpFunctionEnd
`;

// A block with padding and arrays, and no OpName: the text calls the buffer
// `%buf`. Offsets by the decorations: a 0; v (vec3<u32>) 16; e (array<E, 2>,
// stride 16; E = { x 0, y 8 }) 32; arr (array<u32, 3>, stride 8) 64; b (f32)
// 88; 92 bytes. The shader stores `a` back: the buffer comes out as it went in.
export const PADDED = `OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %buf
OpExecutionMode %main LocalSize 1 1 1
OpMemberName %S 0 "a"
OpMemberName %S 1 "v"
OpMemberName %S 2 "e"
OpMemberName %S 3 "arr"
OpMemberName %S 4 "b"
OpMemberName %E 0 "x"
OpMemberName %E 1 "y"
OpMemberDecorate %E 0 Offset 0
OpMemberDecorate %E 1 Offset 8
OpDecorate %arrE ArrayStride 16
OpDecorate %arr3 ArrayStride 8
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 1 Offset 16
OpMemberDecorate %S 2 Offset 32
OpMemberDecorate %S 3 Offset 64
OpMemberDecorate %S 4 Offset 88
OpDecorate %S Block
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u32 = OpTypeInt 32 0
%f32 = OpTypeFloat 32
%v3 = OpTypeVector %u32 3
%c0 = OpConstant %u32 0
%c2 = OpConstant %u32 2
%c3 = OpConstant %u32 3
%E = OpTypeStruct %u32 %u32
%arrE = OpTypeArray %E %c2
%arr3 = OpTypeArray %u32 %c3
%S = OpTypeStruct %u32 %v3 %arrE %arr3 %f32
%pS = OpTypePointer StorageBuffer %S
%buf = OpVariable %pS StorageBuffer
%pu = OpTypePointer StorageBuffer %u32
%main = OpFunction %void None %fn
%entry = OpLabel
%p = OpAccessChain %pu %buf %c0
%x = OpLoad %u32 %p
OpStore %p %x
OpReturn
OpFunctionEnd
`;
