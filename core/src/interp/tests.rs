//! Interpreter unit tests on small hand-written modules. Every expected value
//! is worked out by hand from the SPIR-V specification's definition of the
//! instruction (see the comments), not taken from a run.

use super::*;
use crate::grammar::op;
use crate::text::asm::{AsmOptions, assemble};
use alloc::vec;

/// The common head of the test modules: one storage buffer `%out` at set 0,
/// binding 0 (a block holding a runtime array of uint, stride 4), the
/// GlobalInvocationId input `%gid`, and the usual types and constants.
const HEAD: &str = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize LSX 1 1
               OpName %loop "loop"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %blk 0 Offset 0
               OpDecorate %blk Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
      %v3uint = OpTypeVector %uint 3
      %v2uint = OpTypeVector %uint 2
        %rta = OpTypeRuntimeArray %uint
        %blk = OpTypeStruct %rta
      %p_blk = OpTypePointer StorageBuffer %blk
     %p_uint = OpTypePointer StorageBuffer %uint
     %f_uint = OpTypePointer Function %uint
       %p_in = OpTypePointer Input %v3uint
        %out = OpVariable %p_blk StorageBuffer
        %gid = OpVariable %p_in Input
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u3 = OpConstant %uint 3
         %u4 = OpConstant %uint 4
         %u7 = OpConstant %uint 7
         %u8 = OpConstant %uint 8
        %u10 = OpConstant %uint 10
       %umax = OpConstant %uint 0xffffffff
       %uhi  = OpConstant %uint 0x80000000
     %uabcd  = OpConstant %uint 0xabcd
     %uf0f0  = OpConstant %uint 0xf0f0
         %i2 = OpConstant %int 2
        %im2 = OpConstant %int -2
        %im7 = OpConstant %int -7
         %i7 = OpConstant %int 7
      %f_1_5 = OpConstant %float 1.5
        %f_2 = OpConstant %float 2
    %f_m2_75 = OpConstant %float -2.75
       %main = OpFunction %void None %fn
"#;

fn module(local_x: u32, body: &str) -> Ir {
    let text = alloc::format!(
        "{}{}",
        HEAD.replace("LSX", &alloc::format!("{local_x}")),
        body
    );
    let words = assemble(&text, &AsmOptions::default()).expect("the test module assembles");
    Ir::build(crate::binary::read_words(&words).expect("the test module reads back"))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Run with an output buffer of `n` zeroed words at (0, 0).
fn run_out(
    ir: &Ir,
    groups: u32,
    n: usize,
    max_steps: u64,
) -> (Result<RunStats, RunError>, Vec<u32>) {
    let mut b = Buffers::new();
    b.insert((0, 0), vec![0u8; 4 * n]);
    let opts = Options {
        workgroups: [groups, 1, 1],
        max_steps,
        ..Options::default()
    };
    let r = run(ir, &opts, &mut b);
    (r, words(&b[&(0, 0)]))
}

/// The index of the first instruction with opcode `o`.
fn index_of(ir: &Ir, o: u16) -> u32 {
    (0..ir.len())
        .find(|&i| ir.opcode(i) == o)
        .expect("the opcode is in the module") as u32
}

/// The constants `%k0`..`%k{n-1}` (uint).
fn index_constants(n: usize) -> String {
    let mut s = String::new();
    for k in 0..n {
        s.push_str(&alloc::format!("%k{k} = OpConstant %uint {k}\n"));
    }
    s
}

#[test]
fn arithmetic() {
    // The store indices are constants, declared before %main.
    let consts = index_constants(16);
    let head_end = "%main = OpFunction %void None %fn";
    let mut text = HEAD.replace("LSX", "1");
    text = text.replace(head_end, &alloc::format!("{consts}{head_end}"));
    let mut body = String::from(
        r#"
      %entry = OpLabel
         %v0 = OpIAdd %uint %umax %u2              ; 2^32-1 + 2 wraps to 1
         %s1 = OpSDiv %int %im7 %i2                ; -7 / 2 = -3 (rounds toward 0)
         %v1 = OpBitcast %uint %s1
         %s2 = OpSRem %int %im7 %i2                ; sign of operand 1: -1
         %v2 = OpBitcast %uint %s2
         %s3 = OpSMod %int %im7 %i2                ; sign of operand 2: 1
         %v3 = OpBitcast %uint %s3
         %s4 = OpSMod %int %i7 %im2                ; sign of operand 2: -1
         %v4 = OpBitcast %uint %s4
         %v5 = OpUMod %uint %u7 %u3                ; 1
         %v6 = OpShiftRightArithmetic %uint %uhi %u4   ; 0xf8000000
         %v7 = OpShiftRightLogical %uint %uhi %u4      ; 0x08000000
         %s8 = OpConvertFToS %int %f_m2_75         ; -2 (toward 0)
         %v8 = OpBitcast %uint %s8
        %f9  = OpFMul %float %f_1_5 %f_2           ; 3.0 = 0x40400000
         %v9 = OpBitcast %uint %f9
        %v10 = OpBitFieldUExtract %uint %uabcd %u4 %u8 ; bits 4..11 of 0xabcd: 0xbc
        %v11 = OpBitFieldSExtract %uint %uabcd %u4 %u8 ; 0xbc, bit 7 set: 0xffffffbc
        %v12 = OpBitCount %uint %uf0f0             ; 8
        %v13 = OpBitReverse %uint %u1              ; 0x80000000
        %vec = OpCompositeConstruct %v2uint %u7 %u10
        %shu = OpVectorShuffle %v2uint %vec %vec 1 2   ; (10, 7)
        %v14 = OpCompositeExtract %uint %shu 0     ; 10
        %cmp = OpULessThan %bool %u3 %u2           ; false
        %v15 = OpSelect %uint %cmp %u1 %u8         ; 8
"#,
    );
    for k in 0..16 {
        body.push_str(&alloc::format!(
            "%p{k} = OpAccessChain %p_uint %out %u0 %k{k}\nOpStore %p{k} %v{k}\n"
        ));
    }
    body.push_str("OpReturn\nOpFunctionEnd\n");
    let words_ = assemble(&(text + &body), &AsmOptions::default()).expect("assembles");
    let ir = Ir::build(crate::binary::read_words(&words_).expect("reads"));
    let (r, out) = run_out(&ir, 1, 16, 10_000);
    r.expect("runs");
    assert_eq!(
        out,
        vec![
            1,
            (-3i32) as u32,
            (-1i32) as u32,
            1,
            (-1i32) as u32,
            1,
            0xf800_0000,
            0x0800_0000,
            (-2i32) as u32,
            0x4040_0000,
            0xbc,
            0xffff_ffbc,
            8,
            0x8000_0000,
            10,
            8
        ]
    );
}

#[test]
fn loop_with_phis() {
    // sum = 0; for (i = 1; i <= 10; i++) sum += i;  => 55, i ends at 11.
    let ir = module(
        1,
        r#"
      %entry = OpLabel
               OpBranch %loop
       %loop = OpLabel
          %i = OpPhi %uint %u1 %entry %inext %cont
        %sum = OpPhi %uint %u0 %entry %snext %cont
         %le = OpULessThanEqual %bool %i %u10
               OpLoopMerge %merge %cont None
               OpBranchConditional %le %body %merge
       %body = OpLabel
      %snext = OpIAdd %uint %sum %i
               OpBranch %cont
       %cont = OpLabel
      %inext = OpIAdd %uint %i %u1
               OpBranch %loop
      %merge = OpLabel
         %p0 = OpAccessChain %p_uint %out %u0 %u0
               OpStore %p0 %sum
         %p1 = OpAccessChain %p_uint %out %u0 %u1
               OpStore %p1 %i
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 2, 10_000);
    r.expect("runs");
    assert_eq!(out, vec![55, 11]);
}

#[test]
fn switch_with_fallthrough_over_a_grid() {
    // sel = gid.x & 3; case 0 adds 1 and falls through to case 1, which adds
    // 10; case 2 adds 100; default adds 1000. out[gid.x] = acc.
    // Two workgroups of 4: gid.x = 0..7, sel = 0,1,2,3,0,1,2,3.
    let text = HEAD.replace("LSX", "4").replace(
        "%main = OpFunction",
        "%u100 = OpConstant %uint 100\n%main = OpFunction",
    );
    let body = r#"
      %entry = OpLabel
        %acc = OpVariable %f_uint Function %u0
         %g3 = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g3 0
        %sel = OpBitwiseAnd %uint %x %u3
               OpSelectionMerge %merge None
               OpSwitch %sel %def 0 %c0 1 %c1 2 %c2
         %c0 = OpLabel
         %a0 = OpLoad %uint %acc
         %b0 = OpIAdd %uint %a0 %u1
               OpStore %acc %b0
               OpBranch %c1
         %c1 = OpLabel
         %a1 = OpLoad %uint %acc
         %b1 = OpIAdd %uint %a1 %u10
               OpStore %acc %b1
               OpBranch %merge
         %c2 = OpLabel
               OpStore %acc %u100
               OpBranch %merge
        %def = OpLabel
      %c1000 = OpIMul %uint %u100 %u10
               OpStore %acc %c1000
               OpBranch %merge
      %merge = OpLabel
          %r = OpLoad %uint %acc
          %p = OpAccessChain %p_uint %out %u0 %x
               OpStore %p %r
               OpReturn
               OpFunctionEnd
"#;
    let w = assemble(&(text + body), &AsmOptions::default()).expect("assembles");
    let ir = Ir::build(crate::binary::read_words(&w).expect("reads"));
    let (r, out) = run_out(&ir, 2, 8, 10_000);
    let stats = r.expect("runs");
    assert_eq!(stats.invocations, 8);
    assert_eq!(out, vec![11, 10, 100, 1000, 11, 10, 100, 1000]);
}

const ENDLESS: &str = r#"
      %entry = OpLabel
               OpBranch %loop
       %loop = OpLabel
               OpLoopMerge %merge %loop None
               OpBranchConditional %true %loop %merge
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn step_budget() {
    let text = HEAD.replace("LSX", "1").replace(
        "%main = OpFunction",
        "%true = OpConstantTrue %bool\n%main = OpFunction",
    );
    let w = assemble(&(text + ENDLESS), &AsmOptions::default()).expect("assembles");
    let ir = Ir::build(crate::binary::read_words(&w).expect("reads"));
    let (r, _) = run_out(&ir, 1, 1, 1000);
    let e = r.expect_err("the loop does not end");
    assert_eq!(
        e.message(),
        "did not terminate after 1000 steps; invocation (0,0,0) was in block %loop"
    );
    assert_eq!(e.invocation, Some([0, 0, 0]));
    let label = e.block.expect("the block");
    assert_eq!(
        e.kind,
        super::RunErrorKind::NoTermination { steps: 1000, block: label, block_name: Some(alloc::string::String::from("loop")) }
    );
    assert_eq!(e.message_named(|_| None, |b| Some(alloc::format!("@{b}"))).rsplit(' ').next(), Some(&*alloc::format!("@{label}")));
    // The loop's only executed instruction is its conditional branch.
    assert_eq!(e.inst, Some(index_of(&ir, op::OpBranchConditional)));
}

#[test]
fn out_of_bounds_store() {
    // out has 4 words (16 bytes); out[4] is bytes 16..20.
    let ir = module(
        1,
        r#"
      %entry = OpLabel
          %p = OpAccessChain %p_uint %out %u0 %u4
               OpStore %p %u7
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 4, 1000);
    let e = r.expect_err("out of bounds");
    assert_eq!(
        e.message(),
        "out-of-bounds access: 4 bytes at offset 16 of the buffer at set 0, binding 0"
    );
    assert_eq!(e.inst, Some(index_of(&ir, op::OpStore)));
    assert_eq!(e.invocation, Some([0, 0, 0]));
    assert_eq!(out, vec![0, 0, 0, 0], "the buffer comes back untouched");
}

#[test]
fn division_by_zero() {
    // out[0] is 0, loaded and used as a divisor.
    let ir = module(
        1,
        r#"
      %entry = OpLabel
          %p = OpAccessChain %p_uint %out %u0 %u0
          %z = OpLoad %uint %p
          %q = OpUDiv %uint %u7 %z
               OpStore %p %q
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, _) = run_out(&ir, 1, 1, 1000);
    let e = r.expect_err("division by zero");
    assert_eq!(e.message(), "integer division by zero");
    assert_eq!(e.inst, Some(index_of(&ir, op::OpUDiv)));
    assert_eq!(e.kind, RunErrorKind::DivisionByZero);
}

/// The head with a Workgroup array `%sh` of 4 uints, a bool `%true`, and
/// LocalSize 4 (one workgroup: gid.x is the local id).
fn shared_module(body: &str) -> Ir {
    let text = HEAD.replace("LSX", "4").replace(
        "%main = OpFunction",
        "%arr4 = OpTypeArray %uint %u4\n%p_wg = OpTypePointer Workgroup %arr4\n%w_uint = OpTypePointer Workgroup %uint\n%sh = OpVariable %p_wg Workgroup\n%main = OpFunction",
    );
    let w = assemble(&(text + body), &AsmOptions::default()).expect("assembles");
    Ir::build(crate::binary::read_words(&w).expect("reads"))
}

/// The shared module with %sh zero-initialised (a null initializer), so
/// that reading it before a write reads zeros, not undefined values.
fn shared_module_zeroed(body: &str) -> Ir {
    let text = HEAD.replace("LSX", "4").replace(
        "%main = OpFunction",
        "%arr4 = OpTypeArray %uint %u4\n%p_wg = OpTypePointer Workgroup %arr4\n%w_uint = OpTypePointer Workgroup %uint\n%z4 = OpConstantNull %arr4\n%sh = OpVariable %p_wg Workgroup %z4\n%main = OpFunction",
    );
    let w = assemble(&(text + body), &AsmOptions::default()).expect("assembles");
    Ir::build(crate::binary::read_words(&w).expect("reads"))
}

/// Each invocation i writes sh[i] = i + 1, waits at the barrier, then reads
/// its neighbour sh[(i + 1) & 3] into out[i].
const BARRIER: &str = r#"
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
         %i1 = OpIAdd %uint %i %u1
         %pw = OpAccessChain %w_uint %sh %i
               OpStore %pw %i1
               OpControlBarrier %u2 %u2 %u0
          %n = OpBitwiseAnd %uint %i1 %u3
         %pr = OpAccessChain %w_uint %sh %n
          %v = OpLoad %uint %pr
          %p = OpAccessChain %p_uint %out %u0 %i
               OpStore %p %v
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn barrier_orders_workgroup_memory() {
    // Each invocation i writes sh[i] = i + 1, waits at the barrier, then reads
    // its neighbour sh[(i + 1) & 3]. The barrier makes every write happen
    // before any read: out = [2, 3, 4, 1]. (Run one after another without the
    // barrier, invocation 0 would read sh[1] before invocation 1 wrote it.)
    let ir = shared_module(BARRIER);
    let (r, out) = run_out(&ir, 1, 4, 1000);
    r.expect("runs");
    assert_eq!(out, vec![2, 3, 4, 1]);
}

#[test]
fn barrier_in_divergent_control_flow() {
    // Only invocation 0 reaches the barrier; invocation 1 returns without it.
    let ir = shared_module(
        r#"
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
          %z = OpIEqual %bool %i %u0
               OpSelectionMerge %merge None
               OpBranchConditional %z %then %merge
       %then = OpLabel
               OpControlBarrier %u2 %u2 %u0
               OpBranch %merge
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, _) = run_out(&ir, 1, 4, 1000);
    let e = r.expect_err("a barrier in divergent control flow");
    assert_eq!(
        e.message(),
        "invocation (0,0,0) waits at an OpControlBarrier that invocation (1,0,0) returned without reaching (a barrier in non-uniform control flow)"
    );
    assert_eq!(e.inst, Some(index_of(&ir, op::OpControlBarrier)));
    assert_eq!(e.invocation, Some([0, 0, 0]));
}

/// A feature the interpreter does not implement is named as data
/// (`Feature`), rendered into words only by the message.
#[test]
fn an_unsupported_feature_is_data() {
    let ir = module_with(
        1,
        "%plain = OpVariable %p_in Input",
        r#"
      %entry = OpLabel
          %v = OpLoad %v3uint %plain
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, _) = run_out(&ir, 1, 1, 1000);
    let e = r.expect_err("not supported");
    assert_eq!(e.kind, RunErrorKind::NotSupportedFeature { feature: Feature::InputWithoutBuiltIn });
    assert_eq!(e.message(), "not supported: an Input variable without BuiltIn");
    let f = Feature::KernelParameter { index: 2, pointer: false };
    assert_eq!(alloc::format!("{f}"), "kernel parameter 2 (not a pointer or a scalar)");
    let f = Feature::ImageWithoutFormat { binding: Some((0, 3)) };
    assert_eq!(alloc::format!("{f}"), "an image at set 0, binding 3 without a format and size (give them in the run's options)");
}

#[test]
fn unsupported_instruction() {
    // Sparse residency is not run: a located error, not a guess.
    let ir = module_with(
        1,
        "",
        r#"
      %entry = OpLabel
          %a = OpImageSparseTexelsResident %bool %u1
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, _) = run_out(&ir, 1, 1, 1000);
    let e = r.expect_err("not supported");
    assert_eq!(e.message(), "not supported: OpImageSparseTexelsResident");
    assert_eq!(e.inst, Some(index_of(&ir, op::OpImageSparseTexelsResident)));
}

#[test]
fn function_call_and_private_variable() {
    // f(a) = a * 3, called twice on a Private counter starting at 2:
    // 2 -> 6 -> 18.
    let text = HEAD
        .replace("LSX", "1")
        .replace(
            "%main = OpFunction",
            "%p_priv = OpTypePointer Private %uint\n%ctr = OpVariable %p_priv Private %u2\n%fn1 = OpTypeFunction %uint %uint\n%main = OpFunction",
        );
    let body = r#"
      %entry = OpLabel
         %c0 = OpLoad %uint %ctr
         %c1 = OpFunctionCall %uint %times3 %c0
               OpStore %ctr %c1
         %c2 = OpLoad %uint %ctr
         %c3 = OpFunctionCall %uint %times3 %c2
          %p = OpAccessChain %p_uint %out %u0 %u0
               OpStore %p %c3
               OpReturn
               OpFunctionEnd
     %times3 = OpFunction %uint None %fn1
          %a = OpFunctionParameter %uint
         %fe = OpLabel
          %m = OpIMul %uint %a %u3
               OpReturnValue %m
               OpFunctionEnd
"#;
    let w = assemble(&(text + body), &AsmOptions::default()).expect("assembles");
    let ir = Ir::build(crate::binary::read_words(&w).expect("reads"));
    let (r, out) = run_out(&ir, 1, 1, 1000);
    r.expect("runs");
    assert_eq!(out, vec![18]);
}

#[test]
fn half_floats_round_to_nearest_even() {
    // f16 has 10 fraction bits: at 1.0 one ulp is 2^-10.
    // 1 + 2^-11 is half an ulp above 1: a tie, to even: 1.0 (f32 0x3f800000).
    // 1 + 3 * 2^-11 is 1.5 ulps: a tie between 1 and 2 ulps, to even: 1 + 2^-9
    //   (f32: 0x3f800000 + 2^14 = 0x3f804000).
    // 2^-24 (the least subnormal) * 0.5 = 2^-25: a tie between 0 and 2^-24: 0.
    // 2^-24 * 1.5: a tie between 1 and 2 units, to even: 2^-23 (f32 exponent
    //   127 - 23 = 104: 104 << 23 = 0x34000000).
    // Each result is widened to f32 (exact) and stored as its bits.
    let text = HEAD.replace("LSX", "1").replace(
        "%main = OpFunction",
        r#"%half = OpTypeFloat 16
        %h1 = OpConstant %half 1
        %h2m11 = OpConstant %half 0.00048828125
        %h3m11 = OpConstant %half 0.00146484375
        %h2m24 = OpConstant %half 0.000000059604644775390625
        %hhalf = OpConstant %half 0.5
        %h1_5 = OpConstant %half 1.5
        %main = OpFunction"#,
    );
    let mut body = String::from(
        r#"
      %entry = OpLabel
         %a0 = OpFAdd %half %h1 %h2m11
         %a1 = OpFAdd %half %h1 %h3m11
         %a2 = OpFMul %half %h2m24 %hhalf
         %a3 = OpFMul %half %h2m24 %h1_5
"#,
    );
    for k in 0..4 {
        body.push_str(&alloc::format!(
            "%w{k} = OpFConvert %float %a{k}\n%b{k} = OpBitcast %uint %w{k}\n%p{k} = OpAccessChain %p_uint %out %u0 %k{k}\nOpStore %p{k} %b{k}\n"
        ));
    }
    body.push_str("OpReturn\nOpFunctionEnd\n");
    let text = text.replace(
        "%half = OpTypeFloat 16",
        &alloc::format!("{}%half = OpTypeFloat 16", index_constants(4)),
    );
    let w = assemble(&(text + &body), &AsmOptions::default()).expect("assembles");
    let ir = Ir::build(crate::binary::read_words(&w).expect("reads"));
    let (r, out) = run_out(&ir, 1, 4, 1000);
    r.expect("runs");
    assert_eq!(out, vec![0x3f80_0000, 0x3f80_4000, 0, 0x3400_0000]);
}

/// A module of HEAD with `decls` (types, constants, variables) before the
/// function and GLSL.std.450 imported as `%glsl`.
fn module_with(local_x: u32, decls: &str, body: &str) -> Ir {
    let text = alloc::format!(
        "{}{}",
        HEAD.replace("LSX", &alloc::format!("{local_x}"))
            .replace(
                "OpMemoryModel",
                "%glsl = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel"
            )
            .replace(
                "%main = OpFunction %void None %fn",
                &alloc::format!("{decls}\n%main = OpFunction %void None %fn")
            ),
        body
    );
    let words = assemble(&text, &AsmOptions::default()).expect("the test module assembles");
    Ir::build(crate::binary::read_words(&words).expect("the test module reads back"))
}

#[test]
fn atomics_on_storage_and_workgroup_memory() {
    // Four invocations (gid 0..3), in turn:
    // * out[0] += gid + 1 (OpAtomicIAdd): 1 + 2 + 3 + 4 = 10; the old values
    //   each sees, in order 0, 1, 3, 6, go to out[1 + gid];
    // * out[5] = max(out[5], gid) (OpAtomicUMax): 3;
    // * out[6]: compare-exchange, if out[6] == gid then gid + 1: each finds
    //   its own gid, so 4 at the end;
    // * a Workgroup counter incremented by each (OpAtomicIIncrement), then a
    //   barrier, then each reads it (OpAtomicLoad) into out[7 + gid]: 4, 4, 4, 4;
    // * out[11] -= 1 by each (OpAtomicISub from 0): 0xfffffffc.
    let ir = module_with(
        4,
        r#"
      %p_wg = OpTypePointer Workgroup %uint
     %count = OpVariable %p_wg Workgroup
      %u11 = OpConstant %uint 11
      %u264 = OpConstant %uint 264
"#,
        r#"
      %entry = OpLabel
          %g3 = OpLoad %v3uint %gid
           %x = OpCompositeExtract %uint %g3 0
          %x1 = OpIAdd %uint %x %u1
          %p0 = OpAccessChain %p_uint %out %u0 %u0
         %old = OpAtomicIAdd %uint %p0 %u1 %u0 %x1
          %po = OpAccessChain %p_uint %out %u0 %x1
                OpStore %po %old
          %p5 = OpAccessChain %p_uint %out %u0 %u4
          %i5 = OpIAdd %uint %u4 %u1
          %q5 = OpAccessChain %p_uint %out %u0 %i5
          %m5 = OpAtomicUMax %uint %q5 %u1 %u0 %x
          %i6 = OpIAdd %uint %i5 %u1
          %q6 = OpAccessChain %p_uint %out %u0 %i6
          %c6 = OpAtomicCompareExchange %uint %q6 %u1 %u0 %u0 %x1 %x
          %n1 = OpAtomicIIncrement %uint %count %u2 %u0
                OpControlBarrier %u2 %u2 %u264
          %cv = OpAtomicLoad %uint %count %u2 %u0
          %j7 = OpIAdd %uint %u7 %x
          %q7 = OpAccessChain %p_uint %out %u0 %j7
                OpStore %q7 %cv
         %q11 = OpAccessChain %p_uint %out %u0 %u11
          %s1 = OpAtomicISub %uint %q11 %u1 %u0 %u1
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 12, 10_000);
    r.expect("runs");
    assert_eq!(out, vec![10, 0, 1, 3, 6, 3, 4, 4, 4, 4, 4, 0xffff_fffc]);
}

#[test]
fn glsl_std_450() {
    // Each result, worked out from the GLSL.std.450 specification:
    // out[0] FindUMsb(40 = 0b101000) = 5; out[1] FindILsb(40) = 3;
    // out[2] FindSMsb(-1) = -1; out[3] SClamp(-7, -2, 2) = -2;
    // out[4] UMax(7, 10) = 10; out[5] Sqrt(16.0) = 4.0 (0x40800000);
    // out[6] Ldexp(0.75, 3) = 6.0, converted to 6; out[7] Fma(1.5, 2, -2.75)
    // = 0.25 (0x3e800000); out[8] Floor(-2.75) = -3.0, converted to -3;
    // out[9] Length((3, 4)) = 5.0, converted to 5; out[10] FMix(2, 10, 0.25)
    // = 4.0 (0x40800000); out[11] PackHalf2x16((1.5, -2)) = -2 (0xc000) << 16
    // | 1.5 (0x3e00) = 0xc0003e00; out[12] Determinant([[1.5, 2], [-2.75,
    // 2]]) = 1.5 * 2 - (-2.75) * 2 = 8.5 (0x41080000).
    let ir = module_with(
        1,
        r#"
        %u40 = OpConstant %uint 40
        %u5 = OpConstant %uint 5
        %u6 = OpConstant %uint 6
        %u9 = OpConstant %uint 9
        %u11 = OpConstant %uint 11
        %u12 = OpConstant %uint 12
        %im1 = OpConstant %int -1
        %i3 = OpConstant %int 3
        %f16 = OpConstant %float 16
        %f075 = OpConstant %float 0.75
        %f3 = OpConstant %float 3
        %f4 = OpConstant %float 4
        %f10 = OpConstant %float 10
        %f025 = OpConstant %float 0.25
        %v2float = OpTypeVector %float 2
        %mat2 = OpTypeMatrix %v2float 2
"#,
        r#"
      %entry = OpLabel
         %r0 = OpExtInst %uint %glsl FindUMsb %u40
         %r1 = OpExtInst %uint %glsl FindILsb %u40
         %r2 = OpExtInst %int %glsl FindSMsb %im1
         %r3 = OpExtInst %int %glsl SClamp %im7 %im2 %i2
         %r4 = OpExtInst %uint %glsl UMax %u7 %u10
         %r5 = OpExtInst %float %glsl Sqrt %f16
         %r6 = OpExtInst %float %glsl Ldexp %f075 %i3
         %r7 = OpExtInst %float %glsl Fma %f_1_5 %f_2 %f_m2_75
         %r8 = OpExtInst %float %glsl Floor %f_m2_75
         %v34 = OpCompositeConstruct %v2float %f3 %f4
         %r9 = OpExtInst %float %glsl Length %v34
        %r10 = OpExtInst %float %glsl FMix %f_2 %f10 %f025
         %vp = OpCompositeConstruct %v2float %f_1_5 %f_2
        %vm2 = OpFNegate %float %f_2
         %vq = OpCompositeConstruct %v2float %f_1_5 %vm2
        %r11 = OpExtInst %uint %glsl PackHalf2x16 %vq
         %c1 = OpCompositeConstruct %v2float %f_m2_75 %f_2
          %m = OpCompositeConstruct %mat2 %vp %c1
        %r12 = OpExtInst %float %glsl Determinant %m
         %b2 = OpBitcast %uint %r2
         %b3 = OpBitcast %uint %r3
         %b5 = OpBitcast %uint %r5
         %b6 = OpConvertFToU %uint %r6
         %b7 = OpBitcast %uint %r7
         %b8 = OpConvertFToS %int %r8
         %c8 = OpBitcast %uint %b8
         %b9 = OpConvertFToU %uint %r9
        %b10 = OpBitcast %uint %r10
        %b12 = OpBitcast %uint %r12
         %p0 = OpAccessChain %p_uint %out %u0 %u0
               OpStore %p0 %r0
         %p1 = OpAccessChain %p_uint %out %u0 %u1
               OpStore %p1 %r1
         %p2 = OpAccessChain %p_uint %out %u0 %u2
               OpStore %p2 %b2
         %p3 = OpAccessChain %p_uint %out %u0 %u3
               OpStore %p3 %b3
         %p4 = OpAccessChain %p_uint %out %u0 %u4
               OpStore %p4 %r4
         %p5 = OpAccessChain %p_uint %out %u0 %u5
               OpStore %p5 %b5
         %p6 = OpAccessChain %p_uint %out %u0 %u6
               OpStore %p6 %b6
         %p7 = OpAccessChain %p_uint %out %u0 %u7
               OpStore %p7 %b7
         %p8 = OpAccessChain %p_uint %out %u0 %u8
               OpStore %p8 %c8
         %p9 = OpAccessChain %p_uint %out %u0 %u9
               OpStore %p9 %b9
        %p10 = OpAccessChain %p_uint %out %u0 %u10
               OpStore %p10 %b10
        %p11 = OpAccessChain %p_uint %out %u0 %u11
               OpStore %p11 %r11
        %p12 = OpAccessChain %p_uint %out %u0 %u12
               OpStore %p12 %b12
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 13, 10_000);
    r.expect("runs");
    assert_eq!(
        out,
        vec![
            5,
            3,
            0xffff_ffff,
            (-2i32) as u32,
            10,
            0x4080_0000,
            6,
            0x3e80_0000,
            (-3i32) as u32,
            5,
            0x4080_0000,
            0xc000_3e00,
            0x4108_0000
        ]
    );
}

#[test]
fn mul_extended_and_matrix_times_vector() {
    // OpUMulExtended(0xffffffff, 0xffffffff) = 0xfffffffe00000001: low
    // 0x00000001, high 0xfffffffe. OpSMulExtended(-2, 7) = -14: low
    // 0xfffffff2, high 0xffffffff. A 2x2 matrix with columns (1.5, 2) and
    // (-2.75, 2) times (2, 2) = (1.5*2 - 2.75*2, 2*2 + 2*2) = (-2.5, 8)
    // (0xc0200000, 0x41000000).
    let ir = module_with(
        1,
        r#"
        %u5 = OpConstant %uint 5
        %sU = OpTypeStruct %uint %uint
        %sI = OpTypeStruct %int %int
        %v2float = OpTypeVector %float 2
        %mat2 = OpTypeMatrix %v2float 2
"#,
        r#"
      %entry = OpLabel
          %a = OpUMulExtended %sU %umax %umax
         %lo = OpCompositeExtract %uint %a 0
         %hi = OpCompositeExtract %uint %a 1
          %b = OpSMulExtended %sI %im2 %i7
        %slo = OpCompositeExtract %int %b 0
        %shi = OpCompositeExtract %int %b 1
        %blo = OpBitcast %uint %slo
        %bhi = OpBitcast %uint %shi
         %c0 = OpCompositeConstruct %v2float %f_1_5 %f_2
         %c1 = OpCompositeConstruct %v2float %f_m2_75 %f_2
          %m = OpCompositeConstruct %mat2 %c0 %c1
          %v = OpCompositeConstruct %v2float %f_2 %f_2
         %mv = OpMatrixTimesVector %v2float %m %v
         %x0 = OpCompositeExtract %float %mv 0
         %x1 = OpCompositeExtract %float %mv 1
         %y0 = OpBitcast %uint %x0
         %y1 = OpBitcast %uint %x1
         %p0 = OpAccessChain %p_uint %out %u0 %u0
               OpStore %p0 %lo
         %p1 = OpAccessChain %p_uint %out %u0 %u1
               OpStore %p1 %hi
         %p2 = OpAccessChain %p_uint %out %u0 %u2
               OpStore %p2 %blo
         %p3 = OpAccessChain %p_uint %out %u0 %u3
               OpStore %p3 %bhi
         %p4 = OpAccessChain %p_uint %out %u0 %u4
               OpStore %p4 %y0
         %p5 = OpAccessChain %p_uint %out %u0 %u5
               OpStore %p5 %y1
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 6, 10_000);
    r.expect("runs");
    assert_eq!(
        out,
        vec![
            1,
            0xffff_fffe,
            0xffff_fff2,
            0xffff_ffff,
            0xc020_0000,
            0x4100_0000
        ]
    );
}

#[test]
fn add_carry_and_sub_borrow() {
    // OpIAddCarry(0xffffffff, 2) = 0x1_00000001: sum 1, carry 1;
    // OpIAddCarry(2, 3): 5, carry 0; OpISubBorrow(1, 2): 0xffffffff, borrow
    // 1; OpISubBorrow(5, 3): 2, borrow 0.
    let ir = module_with(
        1,
        r#"
        %sU = OpTypeStruct %uint %uint
        %u5 = OpConstant %uint 5
        %u6 = OpConstant %uint 6
"#,
        r#"
      %entry = OpLabel
          %a = OpIAddCarry %sU %umax %u2
          %b = OpIAddCarry %sU %u2 %u3
          %c = OpISubBorrow %sU %u1 %u2
          %d = OpISubBorrow %sU %u5 %u3
         %a0 = OpCompositeExtract %uint %a 0
         %a1 = OpCompositeExtract %uint %a 1
         %b0 = OpCompositeExtract %uint %b 0
         %b1 = OpCompositeExtract %uint %b 1
         %c0 = OpCompositeExtract %uint %c 0
         %c1 = OpCompositeExtract %uint %c 1
         %d0 = OpCompositeExtract %uint %d 0
         %d1 = OpCompositeExtract %uint %d 1
         %p0 = OpAccessChain %p_uint %out %u0 %u0
               OpStore %p0 %a0
         %p1 = OpAccessChain %p_uint %out %u0 %u1
               OpStore %p1 %a1
         %p2 = OpAccessChain %p_uint %out %u0 %u2
               OpStore %p2 %b0
         %p3 = OpAccessChain %p_uint %out %u0 %u3
               OpStore %p3 %b1
         %p4 = OpAccessChain %p_uint %out %u0 %u4
               OpStore %p4 %c0
         %p5 = OpAccessChain %p_uint %out %u0 %u5
               OpStore %p5 %c1
         %p6 = OpAccessChain %p_uint %out %u0 %u6
               OpStore %p6 %d0
         %p7 = OpAccessChain %p_uint %out %u0 %u7
               OpStore %p7 %d1
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 8, 10_000);
    r.expect("runs");
    assert_eq!(out, vec![1, 1, 5, 0, 0xffff_ffff, 1, 2, 0]);
}

/// Eight invocations: in `if (x >= 3)` each stores Elect() to out[x] (the
/// others 7); after the merge, out[8 + x] = subgroupAdd(x), out[16 + x] =
/// subgroupExclusiveAdd(x), out[24 + x] = subgroupShuffle(x, 7 - x) and
/// out[32 + x] = the first word of subgroupBallot(x is odd) (each its own
/// word: all storing to one would be a data race).
const GROUPS: &str = r#"
      %entry = OpLabel
          %g3 = OpLoad %v3uint %gid
           %x = OpCompositeExtract %uint %g3 0
           %c = OpUGreaterThanEqual %bool %x %u3
                OpSelectionMerge %merge None
                OpBranchConditional %c %then %else
       %then = OpLabel
           %e = OpGroupNonUniformElect %bool %u3
          %e1 = OpSelect %uint %e %u1 %u0
          %pe = OpAccessChain %p_uint %out %u0 %x
                OpStore %pe %e1
                OpBranch %merge
       %else = OpLabel
          %pf = OpAccessChain %p_uint %out %u0 %x
                OpStore %pf %u7
                OpBranch %merge
      %merge = OpLabel
           %r = OpGroupNonUniformIAdd %uint %u3 Reduce %x
          %i8 = OpIAdd %uint %x %u8
          %pr = OpAccessChain %p_uint %out %u0 %i8
                OpStore %pr %r
           %s = OpGroupNonUniformIAdd %uint %u3 ExclusiveScan %x
         %i16 = OpIAdd %uint %i8 %u8
          %ps = OpAccessChain %p_uint %out %u0 %i16
                OpStore %ps %s
          %sx = OpISub %uint %u7 %x
          %sh = OpGroupNonUniformShuffle %uint %u3 %x %sx
         %i24 = OpIAdd %uint %i16 %u8
         %psh = OpAccessChain %p_uint %out %u0 %i24
                OpStore %psh %sh
          %lo = OpBitwiseAnd %uint %x %u1
         %odd = OpIEqual %bool %lo %u1
           %b = OpGroupNonUniformBallot %v4uint %u3 %odd
          %b0 = OpCompositeExtract %uint %b 0
         %i32 = OpIAdd %uint %i24 %u8
         %p32 = OpAccessChain %p_uint %out %u0 %i32
                OpStore %p32 %b0
                OpReturn
                OpFunctionEnd
"#;

fn run_groups_with(subgroup_size: Option<u32>) -> Vec<u32> {
    let ir = module_with(
        8,
        "%v4uint = OpTypeVector %uint 4\n%u32 = OpConstant %uint 32",
        GROUPS,
    );
    let mut b = Buffers::new();
    b.insert((0, 0), vec![0u8; 4 * 40]);
    let opts = Options {
        max_steps: 10_000,
        subgroup_size,
        ..Options::default()
    };
    run(&ir, &opts, &mut b).expect("runs");
    words(&b[&(0, 0)])
}

#[test]
fn subgroup_operations_act_on_the_active_invocations() {
    // One subgroup of 8: in the branch only 3..7 are active, so Elect picks
    // 3; after the merge all 8 are: the sum is 0 + 1 + ... + 7 = 28, the
    // exclusive sums 0, 0, 1, 3, 6, 10, 15, 21, the shuffle 7 - x, and the
    // odd invocations' bits 1, 3, 5, 7 make 0b10101010 = 0xaa.
    let out = run_groups_with(None);
    assert_eq!(&out[0..8], &[7, 7, 7, 1, 0, 0, 0, 0]);
    assert_eq!(&out[8..16], &[28; 8]);
    assert_eq!(&out[16..24], &[0, 0, 1, 3, 6, 10, 15, 21]);
    assert_eq!(&out[24..32], &[7, 6, 5, 4, 3, 2, 1, 0]);
    assert_eq!(&out[32..40], &[0xaa; 8]);
    // Two subgroups of 4: in the branch, 3 is the only active one of the
    // first (Elect: 1) and 4..7 all of the second (Elect picks 4). Sums 0 +
    // 1 + 2 + 3 = 6 and 4 + 5 + 6 + 7 = 22; exclusive sums within each (0,
    // 0, 1, 3 and 0, 4, 4 + 5, 4 + 5 + 6). The shuffle's ids (7 - x) are
    // past a subgroup of 4, so it is not checked here. Ballot bits are per
    // subgroup (ids 1 and 3 in each): 0b1010 = 0xa.
    let out = run_groups_with(Some(4));
    assert_eq!(&out[0..8], &[7, 7, 7, 1, 1, 0, 0, 0]);
    assert_eq!(&out[8..16], &[6, 6, 6, 6, 22, 22, 22, 22]);
    assert_eq!(&out[16..24], &[0, 0, 1, 3, 0, 4, 9, 15]);
    assert_eq!(&out[32..40], &[0xa; 8]);
}

#[test]
fn spec_constants_take_the_values_given() {
    // out[0] = sc + sc where sc has SpecId 7 and default 1: 2 unspecialized,
    // 2 * 20 = 40 with SpecId 7 = 20; an id the module does not have
    // changes nothing.
    let text = HEAD
        .replace("LSX", "1")
        .replace(
            "OpDecorate %gid BuiltIn GlobalInvocationId",
            "OpDecorate %gid BuiltIn GlobalInvocationId\nOpDecorate %sc SpecId 7",
        )
        .replace(
            "%main = OpFunction %void None %fn",
            "%sc = OpSpecConstant %uint 1\n%main = OpFunction %void None %fn",
        )
        + r#"
      %entry = OpLabel
          %s = OpIAdd %uint %sc %sc
          %p = OpAccessChain %p_uint %out %u0 %u0
               OpStore %p %s
               OpReturn
               OpFunctionEnd
"#;
    let words = assemble(&text, &AsmOptions::default()).expect("assembles");
    let out = |values: &[(u32, u64)]| {
        let mut w = words.clone();
        specialize(&mut w, values);
        let ir = Ir::build(crate::binary::read_words(&w).expect("reads back"));
        let (r, out) = run_out(&ir, 1, 1, 1000);
        r.expect("runs");
        out[0]
    };
    assert_eq!(out(&[]), 2);
    assert_eq!(out(&[(7, 20)]), 40);
    assert_eq!(out(&[(8, 20)]), 2);
}

#[test]
fn aliased_bindings_share_memory() {
    // %out2 (binding 1) aliases %out (binding 0): 5 stored through %out2[0]
    // is read back through %out[0], and out[1] = 5 + 1 = 6. Without the
    // alias binding 1 is a buffer of its own, so out[0] stays 0 and out[1] =
    // 0 + 1 = 1.
    let text = HEAD
        .replace("LSX", "1")
        .replace(
            "OpDecorate %out Binding 0",
            "OpDecorate %out Binding 0\nOpDecorate %out2 DescriptorSet 0\nOpDecorate %out2 Binding 1",
        )
        .replace(
            "%main = OpFunction %void None %fn",
            "%u5 = OpConstant %uint 5\n%out2 = OpVariable %p_blk StorageBuffer\n%main = OpFunction %void None %fn",
        )
        + r#"
      %entry = OpLabel
         %q0 = OpAccessChain %p_uint %out2 %u0 %u0
               OpStore %q0 %u5
         %p0 = OpAccessChain %p_uint %out %u0 %u0
          %v = OpLoad %uint %p0
         %v1 = OpIAdd %uint %v %u1
         %p1 = OpAccessChain %p_uint %out %u0 %u1
               OpStore %p1 %v1
               OpReturn
               OpFunctionEnd
"#;
    let module_words = assemble(&text, &AsmOptions::default()).expect("assembles");
    let ir = Ir::build(crate::binary::read_words(&module_words).expect("reads back"));
    let go = |alias: bool| {
        let mut b = Buffers::new();
        b.insert((0, 0), vec![0u8; 8]);
        let mut opts = Options::default();
        if alias {
            opts.aliases.insert((0, 1), (0, 0));
        } else {
            b.insert((0, 1), vec![0u8; 8]);
        }
        run(&ir, &opts, &mut b).expect("runs");
        words(&b[&(0, 0)])
    };
    assert_eq!(go(true), vec![5, 6]);
    assert_eq!(go(false), vec![0, 1]);
}

/// A Private variable too big to hold (2^30 ints) is a run error when used,
/// not an allocation that aborts the process.
#[test]
fn a_variable_too_big_to_hold_is_an_error() {
    let ir = module_with(
        1,
        r#"
        %big = OpConstant %uint 1073741824
        %arr = OpTypeArray %uint %big
       %parr = OpTypePointer Private %arr
         %pu = OpTypePointer Private %uint
          %v = OpVariable %parr Private
"#,
        r#"
      %entry = OpLabel
          %p = OpAccessChain %pu %v %u0
               OpStore %p %u0
               OpReturn
               OpFunctionEnd
"#,
    );
    let e = run_out(&ir, 1, 4, 1_000_000).0.unwrap_err();
    assert!(e.message().contains("1073741824 components"), "{}", e.message());
    assert_eq!(e.kind, RunErrorKind::ValueTooBig { components: 1 << 30, limit: 1 << 22 });
}

/// A function with a big Function variable, called again and again: each call
/// holds its variable, and past the run's memory budget the run stops with an
/// error instead of taking the machine's memory.
#[test]
fn memory_held_by_calls_is_bounded() {
    let ir = module_with(
        1,
        r#"
          %n = OpConstant %uint 1048576
    %hundred = OpConstant %uint 100
        %arr = OpTypeArray %uint %n
       %parr = OpTypePointer Function %arr
          %f = OpFunction %void None %fn
         %fe = OpLabel
          %v = OpVariable %parr Function
               OpReturn
               OpFunctionEnd
"#,
        r#"
      %entry = OpLabel
               OpBranch %head
       %head = OpLabel
          %i = OpPhi %uint %u0 %entry %i1 %cont
               OpLoopMerge %exit %cont None
       %more = OpULessThan %bool %i %hundred
               OpBranchConditional %more %body %exit
       %body = OpLabel
          %r = OpFunctionCall %void %f
               OpBranch %cont
       %cont = OpLabel
         %i1 = OpIAdd %uint %i %u1
               OpBranch %head
       %exit = OpLabel
               OpReturn
               OpFunctionEnd
"#,
    );
    let e = run_out(&ir, 1, 4, 1_000_000).0.unwrap_err();
    // 2^20 components a call: the ninth call would pass 2^23.
    assert!(e.message().contains("values of memory at once"), "{}", e.message());
}

#[test]
fn a_constant_composite_may_hold_an_undef() {
    // %pair = {undef, 7}: its second member is 7 whatever the undef is, and
    // reading it is defined (the CTS undef tests do this).
    let ir = module_with(
        1,
        r#"
     %v2u = OpTypeVector %uint 2
   %undef = OpUndef %uint
    %pair = OpConstantComposite %v2u %undef %u7
"#,
        r#"
      %entry = OpLabel
          %y = OpCompositeExtract %uint %pair 1
          %p = OpAccessChain %p_uint %out %u0 %u0
               OpStore %p %y
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 1, 100);
    r.expect("the run finishes");
    assert_eq!(out, [7]);
}

#[test]
fn robust_access_clamps_indices() {
    // As spirv-opt's --graphics-robust-access leaves a module: out has 4
    // elements (a runtime array of 16 bytes); out[7] (unsigned 7) is clamped
    // to out[3], out[-2] (signed) to out[0]; a vector's component 9 of
    // (10, 20, 30) to component 2 (30), which goes to out[1].
    let ir = module_with(
        1,
        r#"
     %v3u = OpTypeVector %uint 3
     %fv3 = OpTypePointer Function %v3u
    %u20 = OpConstant %uint 20
    %u30 = OpConstant %uint 30
    %u9 = OpConstant %uint 9
    %vec = OpConstantComposite %v3u %u10 %u20 %u30
    %f_u = OpTypePointer Function %uint
"#,
        r#"
      %entry = OpLabel
          %v = OpVariable %fv3 Function %vec
          %a = OpAccessChain %p_uint %out %u0 %u7
               OpStore %a %u1
          %b = OpAccessChain %p_uint %out %u0 %im2
               OpStore %b %u2
          %c = OpAccessChain %f_u %v %u9
         %cv = OpLoad %uint %c
          %d = OpAccessChain %p_uint %out %u0 %u1
               OpStore %d %cv
               OpReturn
               OpFunctionEnd
"#,
    );
    let mut b = Buffers::new();
    b.insert((0, 0), vec![0u8; 16]);
    let opts = Options { robust_access: true, ..Options::default() };
    run(&ir, &opts, &mut b).expect("the run finishes");
    assert_eq!(words(&b[&(0, 0)]), [2, 30, 0, 1]);
    // Without it, out[7] is out of bounds.
    let (r, _) = run_out(&ir, 1, 4, 100);
    assert!(r.unwrap_err().message().contains("out-of-bounds"));
}

#[test]
fn explicitly_laid_out_workgroup_variables_alias() {
    // SPV_KHR_workgroup_memory_explicit_layout: Block-decorated Workgroup
    // variables share one memory, each starting at its byte 0, laid out by
    // Offset and ArrayStride. %wa is { uint[4] } (stride 4, offset 0); %wb is
    // { uint, uint } at offsets 4 and 12, so %wb's members are %wa's elements
    // 1 and 3. Storing 7 and 10 through %wb, then 2 through %wa[0], and
    // reading %wa's array: [2, 7, 0, 10] (element 2 from %wa's null
    // initializer).
    let ir = module_with(
        1,
        r#"
               OpDecorate %arr4 ArrayStride 4
               OpMemberDecorate %sa 0 Offset 0
               OpMemberDecorate %sb 0 Offset 4
               OpMemberDecorate %sb 1 Offset 12
               OpDecorate %sa Block
               OpDecorate %sb Block
      %arr4 = OpTypeArray %uint %u4
        %sa = OpTypeStruct %arr4
        %sb = OpTypeStruct %uint %uint
      %p_sa = OpTypePointer Workgroup %sa
      %p_sb = OpTypePointer Workgroup %sb
     %w_arr = OpTypePointer Workgroup %arr4
    %w_uint = OpTypePointer Workgroup %uint
      %n_sa = OpConstantNull %sa
        %wa = OpVariable %p_sa Workgroup %n_sa
        %wb = OpVariable %p_sb Workgroup
"#,
        r#"
      %entry = OpLabel
         %b0 = OpAccessChain %w_uint %wb %u0
               OpStore %b0 %u7
         %b1 = OpAccessChain %w_uint %wb %u1
               OpStore %b1 %u10
         %a0 = OpAccessChain %w_uint %wa %u0 %u0
               OpStore %a0 %u2
      %a_all = OpAccessChain %w_arr %wa %u0
          %v = OpLoad %arr4 %a_all
         %o0 = OpCompositeExtract %uint %v 0
         %o1 = OpCompositeExtract %uint %v 1
         %o2 = OpCompositeExtract %uint %v 2
         %o3 = OpCompositeExtract %uint %v 3
         %q0 = OpAccessChain %p_uint %out %u0 %u0
               OpStore %q0 %o0
         %q1 = OpAccessChain %p_uint %out %u0 %u1
               OpStore %q1 %o1
         %q2 = OpAccessChain %p_uint %out %u0 %u2
               OpStore %q2 %o2
         %q3 = OpAccessChain %p_uint %out %u0 %u3
               OpStore %q3 %o3
               OpReturn
               OpFunctionEnd
"#,
    );
    let (r, out) = run_out(&ir, 1, 4, 1000);
    r.expect("runs");
    assert_eq!(out, vec![2, 7, 0, 10]);
}

/// Run `ir` over one workgroup with `n` output words under `seed`.
fn run_seeded(ir: &Ir, n: usize, seed: Option<u64>) -> (Result<RunStats, RunError>, Vec<u32>) {
    let mut b = Buffers::new();
    b.insert((0, 0), vec![0u8; 4 * n]);
    let opts = Options {
        max_steps: 10_000,
        seed,
        ..Options::default()
    };
    let r = run(ir, &opts, &mut b);
    (r, words(&b[&(0, 0)]))
}

/// An order-dependent but race-free module: each of 8 invocations takes a
/// ticket from a Workgroup counter (OpAtomicIIncrement returns the old
/// value) and stores it at out[gid]. The tickets are 0..8 in the order the
/// invocations reach the atomic: in local order without a seed.
fn ticket_module() -> Ir {
    module_with(
        8,
        r#"
      %p_wg = OpTypePointer Workgroup %uint
     %count = OpVariable %p_wg Workgroup
"#,
        r#"
      %entry = OpLabel
          %g3 = OpLoad %v3uint %gid
           %x = OpCompositeExtract %uint %g3 0
           %y = OpIAdd %uint %x %u0
           %z = OpIAdd %uint %y %u0
           %t = OpAtomicIIncrement %uint %count %u2 %u0
           %p = OpAccessChain %p_uint %out %u0 %z
                OpStore %p %t
                OpReturn
                OpFunctionEnd
"#,
    )
}

#[test]
fn a_seed_changes_the_order_deterministically() {
    let ir = ticket_module();
    let (r, unseeded) = run_seeded(&ir, 8, None);
    r.expect("runs");
    assert_eq!(unseeded, vec![0, 1, 2, 3, 4, 5, 6, 7]);
    let mut differs = false;
    for seed in 0..16 {
        let (r, out) = run_seeded(&ir, 8, Some(seed));
        r.expect("runs");
        // Every order hands out each ticket once.
        let mut sorted = out.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3, 4, 5, 6, 7], "seed {seed}");
        // The same seed gives the same order.
        assert_eq!(run_seeded(&ir, 8, Some(seed)).1, out, "seed {seed}");
        differs |= out != unseeded;
    }
    assert!(differs, "no seed of 16 changed the order");
}

#[test]
fn race_free_modules_give_the_same_buffers_under_every_seed() {
    // The barrier test's module: out = [2, 3, 4, 1] in every order (the
    // barrier orders the writes before the reads).
    let barrier = shared_module(BARRIER);
    // Order-independent atomics: out[0] += gid + 1 (10 in all), out[1] =
    // max(out[1], gid) (3), a Workgroup counter incremented by each, then a
    // barrier, then each stores the count (4) at out[2 + gid].
    let atomics = module_with(
        4,
        r#"
      %p_wg = OpTypePointer Workgroup %uint
     %count = OpVariable %p_wg Workgroup
"#,
        r#"
      %entry = OpLabel
          %g3 = OpLoad %v3uint %gid
           %x = OpCompositeExtract %uint %g3 0
          %x1 = OpIAdd %uint %x %u1
          %p0 = OpAccessChain %p_uint %out %u0 %u0
          %a0 = OpAtomicIAdd %uint %p0 %u1 %u0 %x1
          %p1 = OpAccessChain %p_uint %out %u0 %u1
          %a1 = OpAtomicUMax %uint %p1 %u1 %u0 %x
          %n1 = OpAtomicIIncrement %uint %count %u2 %u0
                OpControlBarrier %u2 %u2 %u0
          %cv = OpAtomicLoad %uint %count %u2 %u0
          %j2 = OpIAdd %uint %u2 %x
          %q2 = OpAccessChain %p_uint %out %u0 %j2
                OpStore %q2 %cv
               OpReturn
               OpFunctionEnd
"#,
    );
    for seed in [None, Some(0), Some(1), Some(7), Some(0xdead_beef)] {
        let (r, out) = run_seeded(&barrier, 4, seed);
        r.expect("runs");
        assert_eq!(out, vec![2, 3, 4, 1], "seed {seed:?}");
        let (r, out) = run_seeded(&atomics, 6, seed);
        r.expect("runs");
        assert_eq!(out, vec![10, 3, 4, 4, 4, 4], "seed {seed:?}");
    }
}

/// Four invocations (one workgroup unless `groups` > 1) over the shared
/// module's Workgroup array %sh and the output buffer.
fn race_run(body: &str, groups: u32) -> (Ir, Result<RunStats, RunError>) {
    let ir = shared_module_zeroed(body);
    let (r, _) = run_out(&ir, groups, 8, 10_000);
    (ir, r)
}

/// The index of the `n`-th instruction with opcode `o`.
fn nth_index_of(ir: &Ir, o: u16, n: usize) -> u32 {
    (0..ir.len()).filter(|&i| ir.opcode(i) == o).nth(n).expect("the opcode is in the module") as u32
}

#[test]
fn a_data_race_on_workgroup_memory_is_an_error() {
    // Each invocation i writes sh[i] = i + 1 and then, with no barrier,
    // reads its neighbour sh[(i + 1) & 3]. Invocations take turns in order:
    // invocation 0 reads sh[1] (not yet written), then invocation 1 writes
    // sh[1]: a write after another invocation's read with no barrier
    // between, the first race.
    let body = r#"
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
         %i1 = OpIAdd %uint %i %u1
         %pw = OpAccessChain %w_uint %sh %i
               OpStore %pw %i1
          %n = OpBitwiseAnd %uint %i1 %u3
         %pr = OpAccessChain %w_uint %sh %n
          %v = OpLoad %uint %pr
          %p = OpAccessChain %p_uint %out %u0 %i
               OpStore %p %v
               OpReturn
               OpFunctionEnd
"#;
    let (ir, r) = race_run(body, 1);
    let e = r.expect_err("a data race");
    let (write, read) = (nth_index_of(&ir, op::OpStore, 0), nth_index_of(&ir, op::OpLoad, 1));
    // %sh has no OpName: the message names it by its id.
    let sh = ir.globals.iter().find(|g| g.storage == crate::grammar::storage_class::Workgroup).expect("%sh").id;
    assert_eq!(
        e.message(),
        alloc::format!(
            "data race on %{sh}[1]: invocation (0,0,0) read at instruction {read}, invocation (1,0,0) wrote at instruction {write} (with no OpControlBarrier between them in one workgroup)"
        )
    );
    assert_eq!(e.inst, Some(write));
    assert_eq!(e.invocation, Some([1, 0, 0]));
    assert_eq!(e.related, vec![read, write]);
    let super::RunErrorKind::DataRace { site, first, second } = &e.kind else { panic!("{:?}", e.kind) };
    assert_eq!(*site, super::RaceSite::Variable { id: sh, name: None, path: vec![1] });
    assert_eq!((first.inst, first.wrote, first.invocation), (read, false, [0, 0, 0]));
    assert_eq!((second.inst, second.wrote, second.invocation), (write, true, [1, 0, 0]));
    // A front end names the two instructions its own way.
    assert!(e.message_with(|i| Some(alloc::format!("L{i}"))).contains(&alloc::format!("read at L{read}, invocation (1,0,0) wrote at L{write} (")));
}

#[test]
fn a_data_race_on_a_storage_buffer_across_workgroups_is_an_error() {
    // Every invocation of two workgroups of 4 adds 1 to out[0] with a plain
    // load and store: invocation 1 reads out[0] after invocation 0 wrote it,
    // in the same workgroup and barrier interval.
    let body = r#"
      %entry = OpLabel
          %p = OpAccessChain %p_uint %out %u0 %u0
          %v = OpLoad %uint %p
         %v1 = OpIAdd %uint %v %u1
               OpStore %p %v1
               OpReturn
               OpFunctionEnd
"#;
    let (ir, r) = race_run(body, 1);
    let e = r.expect_err("a data race");
    let (load, store) = (nth_index_of(&ir, op::OpLoad, 0), nth_index_of(&ir, op::OpStore, 0));
    assert_eq!(
        e.message(),
        alloc::format!(
            "data race on the buffer at set 0, binding 0 at byte 0: invocation (0,0,0) wrote at instruction {store}, invocation (1,0,0) read at instruction {load} (with no OpControlBarrier between them in one workgroup)"
        )
    );
    // A barrier does not order two workgroups: with a barrier between the
    // read and the write of invocation 0 only (x == 0 in each workgroup of 1
    // ... here: workgroups of 4 where only local 0 touches out[0]) the
    // second workgroup's invocation (4,0,0) still races with (0,0,0).
    let body = r#"
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g3 0
         %lx = OpBitwiseAnd %uint %x %u3
          %z = OpIEqual %bool %lx %u0
               OpSelectionMerge %m None
               OpBranchConditional %z %t %m
          %t = OpLabel
          %p = OpAccessChain %p_uint %out %u0 %u0
          %v = OpLoad %uint %p
         %v1 = OpIAdd %uint %v %u1
               OpStore %p %v1
               OpBranch %m
          %m = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    let (_, r) = race_run(body, 2);
    let e = r.expect_err("a data race across workgroups");
    assert!(e.message().starts_with("data race on the buffer at set 0, binding 0 at byte 0: invocation (0,0,0) wrote at instruction"), "{}", e.message());
    assert_eq!(e.invocation, Some([4, 0, 0]));
}

#[test]
fn an_atomic_after_a_plain_store_races_at_its_read() {
    // Invocation 0 stores out[0] plainly (its value changes), then every
    // other adds to it atomically: invocation 1's atomic add meets the plain
    // write at its read, before anything is written (out[0] stays 5).
    let body = r#"
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
          %p = OpAccessChain %p_uint %out %u0 %u0
          %z = OpIEqual %bool %i %u0
               OpSelectionMerge %m None
               OpBranchConditional %z %t %f
          %t = OpLabel
         %u5 = OpIAdd %uint %u2 %u3
               OpStore %p %u5
               OpBranch %m
          %f = OpLabel
          %a = OpAtomicIAdd %uint %p %u1 %u0 %u1
               OpBranch %m
          %m = OpLabel
               OpReturn
               OpFunctionEnd
"#;
    let ir = shared_module_zeroed(body);
    let (r, out) = run_out(&ir, 1, 8, 10_000);
    let e = r.expect_err("a data race");
    let (store, add) = (nth_index_of(&ir, op::OpStore, 0), nth_index_of(&ir, op::OpAtomicIAdd, 0));
    assert_eq!(
        e.message(),
        alloc::format!(
            "data race on the buffer at set 0, binding 0 at byte 0: invocation (0,0,0) wrote at instruction {store}, invocation (1,0,0) read atomically at instruction {add} (with no OpControlBarrier between them in one workgroup)"
        )
    );
    assert_eq!(out[0], 5);
}

#[test]
fn near_misses_are_not_races() {
    // The barrier test: writes, a barrier, then reads of others' words.
    let barrier = BARRIER;
    // Atomics only, on one word of each memory, from two workgroups.
    let atomics = r#"
      %entry = OpLabel
          %p = OpAccessChain %p_uint %out %u0 %u0
          %a = OpAtomicIAdd %uint %p %u1 %u0 %u1
         %pw = OpAccessChain %w_uint %sh %u0
          %b = OpAtomicIAdd %uint %pw %u2 %u0 %u1
          %c = OpAtomicLoad %uint %p %u1 %u0
               OpReturn
               OpFunctionEnd
"#;
    // Disjoint bytes: each invocation writes and reads back its own word
    // of both memories, and all read the same word (reads never race).
    let disjoint = r#"
      %entry = OpLabel
         %g3 = OpLoad %v3uint %gid
          %i = OpCompositeExtract %uint %g3 0
         %li = OpBitwiseAnd %uint %i %u3
         %pw = OpAccessChain %w_uint %sh %li
               OpStore %pw %i
          %w = OpLoad %uint %pw
          %j = OpIAdd %uint %i %u1
          %p = OpAccessChain %p_uint %out %u0 %j
               OpStore %p %w
          %q = OpAccessChain %p_uint %out %u0 %u0
          %r = OpLoad %uint %q
               OpReturn
               OpFunctionEnd
"#;
    for seed in [None, Some(3), Some(11)] {
        for (name, body, groups) in [("barrier", barrier, 1), ("atomics", atomics, 2), ("disjoint", disjoint, 2)] {
            let ir = shared_module_zeroed(body);
            let mut b = Buffers::new();
            b.insert((0, 0), vec![0u8; 4 * 9]);
            let opts = Options { workgroups: [groups, 1, 1], max_steps: 10_000, seed, ..Options::default() };
            run(&ir, &opts, &mut b).unwrap_or_else(|e| panic!("{name} (seed {seed:?}): {e}"));
            if name == "atomics" {
                // 8 invocations each added 1.
                assert_eq!(words(&b[&(0, 0)])[0], 8);
            }
        }
    }
}

/// Run a one-invocation module of `decls` and `body` with 4 output words.
fn undef_run(decls: &str, body: &str) -> (Ir, Result<RunStats, RunError>) {
    let ir = module_with(1, decls, &alloc::format!("%entry = OpLabel\n%q = OpAccessChain %p_uint %out %u0 %u0\n{body}\nOpReturn\nOpFunctionEnd\n"));
    let (r, _) = run_out(&ir, 1, 4, 1000);
    (ir, r)
}

#[test]
fn undefined_values_reaching_a_buffer_are_errors() {
    let decls = r#"
       %und = OpUndef %uint
      %p_pr = OpTypePointer Private %uint
      %priv = OpVariable %p_pr Private
     %priv0 = OpVariable %p_pr Private %u7
      %p_wg = OpTypePointer Workgroup %uint
        %wg = OpVariable %p_wg Workgroup
       %nul = OpConstantNull %uint
       %wg0 = OpVariable %p_wg Workgroup %nul
"#;
    let stored = |ir: &Ir, r: Result<RunStats, RunError>, what: &str| {
        let e = r.expect_err(what);
        assert_eq!(
            e.message(),
            "an undefined value is stored to the buffer at set 0, binding 0 at byte 0 (from OpUndef, or memory never written: a variable without initializer or Workgroup memory)",
            "{what}"
        );
        assert_eq!(e.inst, Some(index_of(ir, op::OpStore)), "{what}");
    };
    // Each source of an undefined value, stored to the output (invalid),
    // then the same made defined (valid).
    let (ir, r) = undef_run(decls, "OpStore %q %und");
    stored(&ir, r, "OpUndef");
    // Arithmetic on an undefined value is undefined.
    let (ir, r) = undef_run(decls, "%s = OpIAdd %uint %und %u1\nOpStore %q %s");
    stored(&ir, r, "OpUndef + 1");
    let (ir, r) = undef_run(decls, "%f = OpVariable %f_uint Function\n%v = OpLoad %uint %f\nOpStore %q %v");
    stored(&ir, r, "a Function variable without initializer");
    let (ir, r) = undef_run(decls, "%v = OpLoad %uint %priv\nOpStore %q %v");
    stored(&ir, r, "a Private variable without initializer");
    let (ir, r) = undef_run(decls, "%v = OpLoad %uint %wg\nOpStore %q %v");
    stored(&ir, r, "Workgroup memory without initializer");
    // Valid: written first, or initialised (a null initializer zeroes
    // Workgroup memory).
    for (what, body) in [
        ("a Function variable written first", "%f = OpVariable %f_uint Function\nOpStore %f %u3\n%v = OpLoad %uint %f\nOpStore %q %v"),
        ("a Function variable with initializer", "%f = OpVariable %f_uint Function %u3\n%v = OpLoad %uint %f\nOpStore %q %v"),
        ("a Private variable with initializer", "%v = OpLoad %uint %priv0\nOpStore %q %v"),
        ("a Private variable written first", "OpStore %priv %u3\n%v = OpLoad %uint %priv\nOpStore %q %v"),
        ("Workgroup memory with a null initializer", "%v = OpLoad %uint %wg0\nOpStore %q %v"),
        ("an undefined value never stored", "%s = OpIAdd %uint %und %u1\n%f = OpVariable %f_uint Function\nOpStore %f %s"),
    ] {
        let (_, r) = undef_run(decls, body);
        r.unwrap_or_else(|e| panic!("{what}: {e}"));
    }
}

#[test]
fn a_branch_on_an_undefined_value_takes_the_zero_way() {
    // OpUndef yields an arbitrary value, so a branch on it is not undefined
    // behaviour: the interpreter reads it as 0, so OpBranchConditional goes to
    // its false label (out[0] = 2) and OpSwitch to case 0 (out[0] = 4).
    let decls = "%ub = OpUndef %bool\n%uu = OpUndef %uint";
    for (cond, want) in [
        ("OpBranchConditional %ub %t %f", 2),
        ("OpSwitch %uu %t 0 %z 1 %f", 4),
    ] {
        let body = alloc::format!(
            "OpSelectionMerge %m None\n{cond}\n%t = OpLabel\nOpStore %q %u1\nOpBranch %m\n\
             %f = OpLabel\nOpStore %q %u2\nOpBranch %m\n%z = OpLabel\nOpStore %q %u4\nOpBranch %m\n%m = OpLabel"
        );
        let body = if cond.starts_with("OpBranchConditional") {
            body.replace("%z = OpLabel\nOpStore %q %u4\nOpBranch %m\n", "")
        } else {
            body
        };
        let ir = module_with(
            1,
            decls,
            &alloc::format!("%entry = OpLabel\n%q = OpAccessChain %p_uint %out %u0 %u0\n{body}\nOpReturn\nOpFunctionEnd\n"),
        );
        let (r, out) = run_out(&ir, 1, 1, 1000);
        r.unwrap_or_else(|e| panic!("{cond}: {e}"));
        assert_eq!(out, [want], "{cond}");
    }
}

/// Whether each function of the module needs no reset of its registers
/// (`Func::defined`), in order.
fn defined_flags(ir: &Ir) -> Vec<bool> {
    let opts = Options::default();
    let prog = program::Program::new(ir, &opts).expect("decodes");
    prog.funcs.iter().map(|f| f.defined).collect()
}

#[test]
fn a_register_read_before_it_is_written_reads_nothing_of_another_invocation() {
    // An invalid module: %v is written only where gid.x == 0, and read after
    // the merge. Invocation 1 must not read what invocation 0 wrote: its
    // frame is set up again with registers reset (a register not written
    // reads 0), as a fresh frame is, whether the two are in one workgroup or
    // two.
    let body = r#"
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
          %c = OpIEqual %bool %x %u0
               OpSelectionMerge %m None
               OpBranchConditional %c %def %m
        %def = OpLabel
          %v = OpIAdd %uint %x %u7
               OpBranch %m
          %m = OpLabel
          %p = OpAccessChain %p_uint %out %u0 %x
               OpStore %p %v
               OpReturn
               OpFunctionEnd
"#;
    for (local, groups) in [(2, 1), (1, 2)] {
        let ir = module(local, body);
        assert_eq!(defined_flags(&ir), vec![false]);
        let (r, out) = run_out(&ir, groups, 2, 10_000);
        r.expect("runs");
        assert_eq!(out, vec![7, 0], "local size {local}, {groups} workgroups");
    }
}

#[test]
fn registers_written_before_read_are_kept_between_invocations() {
    // A valid module (every read dominated by its write; a phi's operand
    // written in its parent block; a parameter written by the call): the
    // frames are set up again without a reset and give what fresh ones do.
    // Invocation x: v = (x, x + 1); then a loop i = 0..2 adds twice(v.y)
    // (2x + 2) to s, so s = 4x + 4; out[x] = s + v.x = 5x + 4.
    let ir = module_with(
        4,
        "%fn_uint = OpTypeFunction %uint %uint",
        r#"
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
         %x1 = OpIAdd %uint %x %u1
          %v = OpCompositeConstruct %v2uint %x %x1
               OpBranch %loop
       %loop = OpLabel
          %i = OpPhi %uint %u0 %entry %inext %body
          %s = OpPhi %uint %u0 %entry %snext %body
         %lt = OpULessThan %bool %i %u2
               OpLoopMerge %merge %body None
               OpBranchConditional %lt %body %merge
       %body = OpLabel
         %vy = OpCompositeExtract %uint %v 1
         %tw = OpFunctionCall %uint %twice %vy
      %snext = OpIAdd %uint %s %tw
      %inext = OpIAdd %uint %i %u1
               OpBranch %loop
      %merge = OpLabel
         %vx = OpCompositeExtract %uint %v 0
          %r = OpIAdd %uint %s %vx
          %p = OpAccessChain %p_uint %out %u0 %x
               OpStore %p %r
               OpReturn
               OpFunctionEnd
      %twice = OpFunction %uint None %fn_uint
          %a = OpFunctionParameter %uint
         %tb = OpLabel
         %a2 = OpIAdd %uint %a %a
               OpReturnValue %a2
               OpFunctionEnd
"#,
    );
    assert_eq!(defined_flags(&ir), vec![true, true]);
    for groups in [1, 3] {
        let (r, out) = run_out(&ir, groups, 4 * groups as usize, 100_000);
        r.expect("runs");
        let want: Vec<u32> = (0..4 * groups).map(|x| 5 * x + 4).collect();
        assert_eq!(out, want, "{groups} workgroups");
    }
}

#[test]
fn vector_integer_operators_and_bitcasts() {
    // Two invocations, x = gid.x: a = (0xffffffff, x), b = (2, 7), both
    // uint2, their sum, difference and product (mod 2^32), a and b as int2
    // compared signed (-1 < 2, x < 7) and as uint2 unsigned (0xffffffff < 2
    // false, x < 7 true), and int -7 as uint (0xfffffff9); out[10x + k].
    // Registers reused by the second invocation hold the first's vectors.
    let mut body = String::from(
        r#"
      %entry = OpLabel
          %g = OpLoad %v3uint %gid
          %x = OpCompositeExtract %uint %g 0
       %base = OpIMul %uint %x %u10
          %a = OpCompositeConstruct %v2uint %umax %x
          %b = OpCompositeConstruct %v2uint %u2 %u7
          %s = OpIAdd %v2uint %a %b
          %d = OpISub %v2uint %a %b
          %m = OpIMul %v2uint %a %b
         %ai = OpBitcast %v2int %a
         %bi = OpBitcast %v2int %b
         %lt = OpSLessThan %v2bool %ai %bi
        %ult = OpULessThan %v2bool %a %b
         %c7 = OpBitcast %uint %im7
        %s0 = OpCompositeExtract %uint %s 0
        %s1 = OpCompositeExtract %uint %s 1
        %d0 = OpCompositeExtract %uint %d 0
        %d1 = OpCompositeExtract %uint %d 1
        %m0 = OpCompositeExtract %uint %m 0
        %m1 = OpCompositeExtract %uint %m 1
        %l0b = OpCompositeExtract %bool %lt 0
        %l1b = OpCompositeExtract %bool %lt 1
        %u0b = OpCompositeExtract %bool %ult 0
        %u1b = OpCompositeExtract %bool %ult 1
        %l0 = OpSelect %uint %l0b %u1 %u0
        %l1 = OpSelect %uint %l1b %u1 %u0
        %v0 = OpSelect %uint %u0b %u1 %u0
        %v1 = OpSelect %uint %u1b %u1 %u0
"#,
    );
    for (k, v) in ["s0", "s1", "d0", "d1", "m0", "m1", "l0", "l1", "v0", "c7"].iter().enumerate() {
        body.push_str(&alloc::format!(
            "%ix{k} = OpIAdd %uint %base %k{k}\n%px{k} = OpAccessChain %p_uint %out %u0 %ix{k}\nOpStore %px{k} %{v}\n"
        ));
    }
    body.push_str("OpReturn\nOpFunctionEnd\n");
    let decls = alloc::format!(
        "%v2int = OpTypeVector %int 2\n%v2bool = OpTypeVector %bool 2\n{}",
        index_constants(10)
    );
    let ir = module_with(2, &decls, &body);
    let (r, out) = run_out(&ir, 1, 20, 10_000);
    r.expect("runs");
    let want = |x: u32| {
        vec![
            1,
            x + 7,
            0xffff_fffd,
            x.wrapping_sub(7),
            0xffff_fffe,
            7 * x,
            1,
            1,
            0,
            0xffff_fff9,
        ]
    };
    let mut all = want(0);
    all.extend(want(1));
    assert_eq!(out, all);
}

/// An access chain into a buffer from its variable with indices read when
/// running takes its plan ([`program::Handler::BufChain`]): into an array
/// of vectors (stride 16 from Offset 16, each component 4 bytes) and a
/// row-major 2x2 float matrix (MatrixStride 8 from Offset 64: column `c`,
/// row `r` at 64 + 8r + 4c). Invocation x stores 2.0 at column x & 1, row
/// 1, then x + 1 at `arr[x][x]` (16 + 16x + 4x); the array has 3 elements,
/// so with 4 invocations the last index is out of bounds, an error. The
/// general handler (`specialize: false`) leaves the same bytes and error.
#[test]
fn buffer_access_chains_by_their_plan() {
    let text = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize LSX 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %arr ArrayStride 16
               OpMemberDecorate %blk 0 Offset 0
               OpMemberDecorate %blk 1 Offset 16
               OpMemberDecorate %blk 2 Offset 64
               OpMemberDecorate %blk 2 RowMajor
               OpMemberDecorate %blk 2 MatrixStride 8
               OpDecorate %blk Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %v4uint = OpTypeVector %uint 4
     %v3uint = OpTypeVector %uint 3
    %v2float = OpTypeVector %float 2
     %mat2f  = OpTypeMatrix %v2float 2
         %u0 = OpConstant %uint 0
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
         %u3 = OpConstant %uint 3
        %f_2 = OpConstant %float 2
        %arr = OpTypeArray %v4uint %u3
        %blk = OpTypeStruct %uint %arr %mat2f
      %p_blk = OpTypePointer StorageBuffer %blk
     %p_uint = OpTypePointer StorageBuffer %uint
    %p_float = OpTypePointer StorageBuffer %float
       %p_in = OpTypePointer Input %v3uint
      %p_inx = OpTypePointer Input %uint
        %buf = OpVariable %p_blk StorageBuffer
        %gid = OpVariable %p_in Input
       %main = OpFunction %void None %fn
          %l = OpLabel
        %pgx = OpAccessChain %p_inx %gid %u0
          %x = OpLoad %uint %pgx
          %c = OpBitwiseAnd %uint %x %u1
         %pm = OpAccessChain %p_float %buf %u2 %c %u1
               OpStore %pm %f_2
         %pa = OpInBoundsAccessChain %p_uint %buf %u1 %x %x
         %x1 = OpIAdd %uint %x %u1
               OpStore %pa %x1
               OpReturn
               OpFunctionEnd
"#;
    let build = |lsx: u32| {
        let words = assemble(&text.replace("LSX", &alloc::format!("{lsx}")), &AsmOptions::default()).expect("assembles");
        Ir::build(crate::binary::read_words(&words).expect("reads back"))
    };
    let go = |ir: &Ir, specialize: bool| {
        let mut b = Buffers::new();
        b.insert((0, 0), vec![0u8; 96]);
        let r = run(ir, &Options { specialize, ..Options::default() }, &mut b);
        (r.err().map(|e| (e.kind, e.inst)), words(&b[&(0, 0)]))
    };
    let ir = build(3);
    let prog = program::Program::new(&ir, &Options::default()).expect("decodes");
    let planned = prog.funcs.iter().flat_map(|f| &f.insts).filter(|i| i.handler == program::Handler::BufChain).count();
    assert_eq!(planned, 2, "both buffer access chains have a plan");
    let mut want = vec![0u32; 24];
    want[4] = 1;
    want[9] = 2;
    want[14] = 3;
    want[18] = 2f32.to_bits();
    want[19] = 2f32.to_bits();
    assert_eq!(go(&ir, true), (None, want.clone()));
    assert_eq!(go(&ir, false), (None, want));
    let ir = build(4);
    let (err, bytes) = go(&ir, true);
    let (kind, inst) = err.expect("index 3 of 3 is out of bounds");
    assert_eq!(kind, RunErrorKind::IndexOutOfBounds { into: Indexed::Composite, index: Some(3), len: Some(3) });
    assert_eq!(inst, Some(index_of(&ir, op::OpInBoundsAccessChain)));
    assert_eq!(go(&ir, false), (Some((kind, inst)), bytes));
}
