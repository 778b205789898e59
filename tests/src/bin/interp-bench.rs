//! The interpreter's speed (issue 9): SPIR-V instructions executed per second
//! on a simple arithmetic loop kernel (natively; `bench/interp.sh` runs it).
//!
//! Usage: interp-bench [ITERATIONS] [INVOCATIONS]  (defaults 2,000,000 and 64)
//!
//! The kernel: each invocation loops ITERATIONS / INVOCATIONS times over an
//! integer multiply-add with a phi, then stores its sum; every sum is checked
//! against the closed form, so a wrong answer fails the benchmark.
use spvlab_core::interp::{self, Buffers, Options};
use spvlab_core::ir::Ir;
use spvlab_core::text::asm::{AsmOptions, assemble};
use std::time::Instant;

const KERNEL: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 64 1 1
OpDecorate %gid BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %buf 0 Offset 0
OpDecorate %buf Block
OpDecorate %out DescriptorSet 0
OpDecorate %out Binding 0
OpMemberDecorate %pc 0 Offset 0
OpDecorate %pc Block
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%v3 = OpTypeVector %uint 3
%pin = OpTypePointer Input %v3
%gid = OpVariable %pin Input
%arr = OpTypeRuntimeArray %uint
%buf = OpTypeStruct %arr
%pbuf = OpTypePointer StorageBuffer %buf
%out = OpVariable %pbuf StorageBuffer
%pelem = OpTypePointer StorageBuffer %uint
%pc = OpTypeStruct %uint
%ppc = OpTypePointer PushConstant %pc
%count = OpVariable %ppc PushConstant
%ppcu = OpTypePointer PushConstant %uint
%zero = OpConstant %uint 0
%one = OpConstant %uint 1
%three = OpConstant %uint 3
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3 %gid
%x = OpCompositeExtract %uint %g 0
%np = OpAccessChain %ppcu %count %zero
%n = OpLoad %uint %np
OpBranch %head
%head = OpLabel
%i = OpPhi %uint %zero %entry %i1 %cont
%s = OpPhi %uint %x %entry %s1 %cont
OpLoopMerge %exit %cont None
%more = OpULessThan %bool %i %n
OpBranchConditional %more %body %exit
%body = OpLabel
%t = OpIMul %uint %s %three
%s1 = OpIAdd %uint %t %i
OpBranch %cont
%cont = OpLabel
%i1 = OpIAdd %uint %i %one
OpBranch %head
%exit = OpLabel
%p = OpAccessChain %pelem %out %zero %x
OpStore %p %s
OpReturn
OpFunctionEnd
";

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.replace(['_', ','], "").parse().expect("a number")).collect();
    let iterations = args.first().copied().unwrap_or(2_000_000);
    let groups = (args.get(1).copied().unwrap_or(64) / 64).max(1) as u32;
    let invocations = groups as u64 * 64;
    let n = (iterations / invocations).max(1) as u32;
    let words = assemble(KERNEL, &AsmOptions::default()).expect("the kernel assembles");
    let module = spvlab_core::binary::read_words(&words).expect("the kernel reads");
    let ir = Ir::build(module);
    let opts = Options { workgroups: [groups, 1, 1], max_steps: u64::MAX, push_constants: Some(n.to_le_bytes().to_vec()), ..Options::default() };
    let mut best = f64::INFINITY;
    let mut steps = 0;
    for _ in 0..5 {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), vec![0u8; invocations as usize * 4]);
        let t0 = Instant::now();
        let stats = interp::run(&ir, &opts, &mut buffers).expect("the kernel runs");
        best = best.min(t0.elapsed().as_secs_f64());
        steps = stats.steps;
        // s(0) = x; s(k+1) = 3 s(k) + k (mod 2^32).
        let out = &buffers[&(0, 0)];
        for x in 0..invocations as u32 {
            let mut s = x;
            for k in 0..n {
                s = s.wrapping_mul(3).wrapping_add(k);
            }
            let got = u32::from_le_bytes(out[x as usize * 4..x as usize * 4 + 4].try_into().unwrap());
            assert_eq!(got, s, "invocation {x}");
        }
    }
    println!(
        "interp-bench: {invocations} invocations x {n} iterations, {steps} instructions in {:.1} ms (best of 5): {:.1} M instructions/s",
        best * 1e3,
        steps as f64 / best / 1e6
    );
}
