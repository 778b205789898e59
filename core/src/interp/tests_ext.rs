//! The four extensions and OpenCL kernels: the
//! gallery's four extension modules, and one more case per extension
//! written from its specification (`tests/ext/*.spvasm`, each with its
//! expected values worked out by hand in its comments). The gallery modules
//! keep their results in Function memory; to observe them, a test adds a
//! storage buffer and one store (`observe`).

use super::*;
use crate::text::asm::{AsmOptions, assemble};
use alloc::string::ToString;
use alloc::vec;

const GALLERY_CONSTANT_DATA: &str =
    include_str!("../../../www/src/gallery/examples/ext-constant-data.spvasm");
const GALLERY_UNTYPED: &str =
    include_str!("../../../www/src/gallery/examples/ext-untyped-pointers.spvasm");
const GALLERY_VLA: &str =
    include_str!("../../../www/src/gallery/examples/ext-variable-length-array.spvasm");
const GALLERY_LOOP_CONTROLS: &str =
    include_str!("../../../www/src/gallery/examples/ext-unstructured-loop-controls.spvasm");
const VLA_SQUARES: &str = include_str!("../../../tests/ext/vla-squares.spvasm");
const CONSTANT_DATA_PACKING: &str = include_str!("../../../tests/ext/constant-data-packing.spvasm");
const UNTYPED_REINTERPRET: &str = include_str!("../../../tests/ext/untyped-reinterpret.spvasm");
const LOOP_CONTROLS_KERNEL: &str = include_str!("../../../tests/ext/loop-controls-kernel.spvasm");

fn ir(text: &str) -> Ir {
    let words = assemble(text, &AsmOptions::default()).expect("the module assembles");
    Ir::build(crate::binary::read_words(&words).expect("the module reads back"))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn le(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Run `text` with the buffers given; the run's result and the buffers after.
fn run_with(
    text: &str,
    bufs: &[((u32, u32), Vec<u8>)],
    opts: Options,
) -> (Result<RunStats, RunError>, Buffers) {
    let ir = ir(text);
    let mut b: Buffers = bufs.iter().cloned().collect();
    let r = run(&ir, &opts, &mut b);
    (r, b)
}

/// A shader module with a storage buffer `%obs_out` (set 7, binding 0, a
/// runtime array of uint) and `store` (instructions that store uint values
/// into it through `%obs_p`) put before the entry function's OpReturn.
fn observe(text: &str, store: &str) -> String {
    let decos = "OpDecorate %obs_rta ArrayStride 4\nOpMemberDecorate %obs_blk 0 Offset 0\nOpDecorate %obs_blk Block\nOpDecorate %obs_out DescriptorSet 7\nOpDecorate %obs_out Binding 0\n";
    let types = "%obs_u = OpTypeInt 32 0\n%obs_rta = OpTypeRuntimeArray %obs_u\n%obs_blk = OpTypeStruct %obs_rta\n%obs_pb = OpTypePointer StorageBuffer %obs_blk\n%obs_p = OpTypePointer StorageBuffer %obs_u\n%obs_out = OpVariable %obs_pb StorageBuffer\n%obs_0 = OpConstant %obs_u 0\n%obs_1 = OpConstant %obs_u 1\n";
    let mut s = text.to_string();
    // Declarations after the last OpName, types before the first function.
    let at = s
        .find("       %void = OpTypeVoid")
        .expect("the module declares void");
    s.insert_str(at, &alloc::format!("{decos}{types}"));
    let ret = s.rfind("OpReturn\n").expect("the module returns");
    s.insert_str(ret, &alloc::format!("{store}\n"));
    // The buffer is in the entry point's interface.
    let ep = s
        .find("OpEntryPoint GLCompute %main \"main\"")
        .expect("a GLCompute main");
    let eol = ep + s[ep..].find('\n').unwrap_or(0);
    s.insert_str(eol, " %obs_out");
    s
}

fn obs(n: usize) -> ((u32, u32), Vec<u8>) {
    ((7, 0), vec![0u8; 4 * n])
}

// ---- SPV_KHR_constant_data ----

#[test]
fn gallery_constant_data_runs() {
    let (r, _) = run_with(GALLERY_CONSTANT_DATA, &[], Options::default());
    assert_eq!(r.expect("the gallery module runs").invocations, 16);
}

#[test]
fn gallery_constant_data_table() {
    // Each invocation x reads lut[x % 16], the Function copy of %table,
    // whose elements are the literal words: 0 1 1 2 3 5 8 ... 610.
    let text = observe(
        GALLERY_CONSTANT_DATA,
        "%obs_a = OpAccessChain %obs_p %obs_out %obs_0 %x\nOpStore %obs_a %v",
    );
    let (r, b) = run_with(&text, &[obs(16)], Options::default());
    r.expect("runs");
    assert_eq!(
        words(&b[&(7, 0)]),
        [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610]
    );
}

#[test]
fn constant_data_packing() {
    // See tests/ext/constant-data-packing.spvasm for the values.
    let (r, b) = run_with(
        CONSTANT_DATA_PACKING,
        &[((0, 0), vec![0; 60])],
        Options::default(),
    );
    r.expect("runs");
    assert_eq!(
        words(&b[&(0, 0)]),
        [
            0x41,
            0x42,
            0x43,
            0x44,
            0x45,
            0x46,
            1,
            2,
            3,
            5,
            1,
            0xffff_ffff,
            0x45,
            9,
            10
        ]
    );
}

#[test]
fn constant_data_too_short_is_an_error() {
    // Six bytes need two words; one is given: not a value the run uses.
    let text = CONSTANT_DATA_PACKING.replace("0x44434241 0xffff4645", "0x44434241");
    let (r, _) = run_with(&text, &[((0, 0), vec![0; 60])], Options::default());
    let e = r.expect_err("too few words");
    assert!(e.message().starts_with("not supported"), "{}", e.message());
}

// ---- SPV_KHR_untyped_pointers ----

#[test]
fn gallery_untyped_pointers() {
    // pair.value = 1.0 is stored as a float and loaded back as a uint: its
    // bits, 0x3f800000 (IEEE 754 binary32: sign 0, exponent 127, fraction 0),
    // then stored to pair.bits; both members, read as uints, are those bits.
    let (r, _) = run_with(GALLERY_UNTYPED, &[], Options::default());
    r.expect("the gallery module runs");
    let text = observe(
        GALLERY_UNTYPED,
        "%obs_b = OpLoad %uint %pbits\n%obs_v = OpLoad %uint %pvalue\n\
         %obs_a = OpAccessChain %obs_p %obs_out %obs_0 %obs_0\nOpStore %obs_a %obs_b\n\
         %obs_c = OpAccessChain %obs_p %obs_out %obs_0 %obs_1\nOpStore %obs_c %obs_v",
    );
    let (r, b) = run_with(&text, &[obs(2)], Options::default());
    r.expect("runs");
    assert_eq!(words(&b[&(7, 0)]), [0x3f80_0000, 0x3f80_0000]);
}

#[test]
fn untyped_reinterpret() {
    // See tests/ext/untyped-reinterpret.spvasm for the values.
    let (r, b) = run_with(
        UNTYPED_REINTERPRET,
        &[((0, 0), vec![0; 24])],
        Options::default(),
    );
    r.expect("runs");
    assert_eq!(words(&b[&(0, 0)]), [0, 0x3fc0_0000, 0x3fc0_0000, 7, 2, 1]);
}

#[test]
fn untyped_access_past_the_buffer() {
    // Element 3 of a 12-byte buffer: bytes 12..16 are outside it.
    let (r, _) = run_with(
        UNTYPED_REINTERPRET,
        &[((0, 0), vec![0; 12])],
        Options::default(),
    );
    let e = r.expect_err("out of bounds");
    assert!(
        e.message().starts_with("out-of-bounds access"),
        "{}",
        e.message()
    );
}

// ---- SPV_INTEL_variable_length_array ----

fn u64s(v: u64) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

#[test]
fn gallery_vla_restore_frees() {
    // n = 2^20 bytes a trip, 20 trips: 20 * 2^20 values, more than the run
    // holds at once (2^23); with the restore before each back edge only one
    // array is held at a time.
    let bufs = [((0, 0), u64s(1 << 20)), ((0, 1), u64s(20))];
    let (r, _) = run_with(GALLERY_VLA, &bufs, Options::default());
    assert_eq!(r.expect("the gallery module runs").invocations, 1);
    // Without OpRestoreMemoryINTEL the arrays pile up: the budget error.
    let text = GALLERY_VLA.replace("               OpRestoreMemoryINTEL %state\n", "");
    let (r, _) = run_with(&text, &bufs, Options::default());
    let e = r.expect_err("the memory budget");
    assert!(
        e.message().contains("values of memory at once"),
        "{}",
        e.message()
    );
}

#[test]
fn vla_squares() {
    // See tests/ext/vla-squares.spvasm: n = 5 gives [30, 5].
    let bufs = [((0, 0), vec![0; 8]), ((0, 1), le(&[5]))];
    let (r, b) = run_with(VLA_SQUARES, &bufs, Options::default());
    r.expect("runs");
    assert_eq!(words(&b[&(0, 0)]), [30, 5]);
    // n = 0: an empty array, an empty sum.
    let bufs = [((0, 0), vec![0; 8]), ((0, 1), le(&[0]))];
    let (r, b) = run_with(VLA_SQUARES, &bufs, Options::default());
    r.expect("runs");
    assert_eq!(words(&b[&(0, 0)]), [0, 0]);
}

#[test]
fn vla_too_big_is_an_error() {
    // 2^31 elements: past what one variable may hold, an error, not an abort.
    let bufs = [((0, 0), vec![0; 8]), ((0, 1), le(&[1 << 31]))];
    let (r, _) = run_with(VLA_SQUARES, &bufs, Options::default());
    let e = r.expect_err("too big");
    assert!(e.message().contains("variable-length array"), "{}", e.message());
}

#[test]
fn vla_out_of_bounds() {
    // The fill loop runs to i <= n: a[n] is past the array.
    let text = VLA_SQUARES.replacen(
        "%c1 = OpULessThan %bool %i %n",
        "%c1 = OpULessThanEqual %bool %i %n",
        1,
    );
    let bufs = [((0, 0), vec![0; 8]), ((0, 1), le(&[3]))];
    let (r, _) = run_with(&text, &bufs, Options::default());
    let e = r.expect_err("out of bounds");
    assert!(
        e.message().starts_with("out-of-bounds access"),
        "{}",
        e.message()
    );
}

#[test]
fn kernel_scalar_parameter_needs_a_buffer() {
    let (r, _) = run_with(VLA_SQUARES, &[((0, 0), vec![0; 8])], Options::default());
    let e = r.expect_err("no n");
    assert!(e.message().contains("kernel parameter 1"), "{}", e.message());
}

// ---- SPV_INTEL_unstructured_loop_controls, and kernels ----

#[test]
fn gallery_loop_controls_sum() {
    // data = [1, 2, 3, 4, 5], count = 5: data[0] = 1 + 2 + 3 + 4 + 5 = 15;
    // the same without the hint.
    let bufs = [((0, 0), le(&[1, 2, 3, 4, 5])), ((0, 1), le(&[5]))];
    let (r, b) = run_with(GALLERY_LOOP_CONTROLS, &bufs, Options::default());
    let r = r.expect("the gallery module runs");
    assert_eq!(words(&b[&(0, 0)]), [15, 2, 3, 4, 5]);
    let text = GALLERY_LOOP_CONTROLS.replace("               OpLoopControlINTEL 1\n", "");
    assert_ne!(text, GALLERY_LOOP_CONTROLS);
    let (r2, b2) = run_with(&text, &bufs, Options::default());
    assert_eq!(
        r2.expect("runs without the hint").invocations,
        r.invocations
    );
    assert_eq!(b2, b);
}

#[test]
fn loop_controls_kernel() {
    // See tests/ext/loop-controls-kernel.spvasm: [1, 2, 4, 10], with and
    // without the hints.
    let bufs = [((0, 0), vec![0; 16])];
    let (r, b) = run_with(LOOP_CONTROLS_KERNEL, &bufs, Options::default());
    assert_eq!(r.expect("runs").invocations, 4);
    assert_eq!(words(&b[&(0, 0)]), [1, 2, 4, 10]);
    let text = LOOP_CONTROLS_KERNEL
        .replace("               OpLoopControlINTEL 2\n", "")
        .replace("               OpLoopControlINTEL 8 4\n", "");
    assert_eq!(text.matches("     OpLoopControlINTEL").count(), 0);
    let (_, b2) = run_with(&text, &bufs, Options::default());
    assert_eq!(b2, b);
}

#[test]
fn kernel_natural_layout() {
    // struct S { uchar a; uint b; ushort c; } in the natural C layout:
    // a at 0, b at 4 (aligned to 4), c at 8, size 12 (rounded to 4).
    // s[1].b = 0x11223344 lands at bytes 12 + 4 = 16..20 (little-endian),
    // s[1].c = 0x5566 at bytes 20..22.
    let text = r#"
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int8
               OpCapability Int16
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
       %void = OpTypeVoid
      %uchar = OpTypeInt 8 0
     %ushort = OpTypeInt 16 0
       %uint = OpTypeInt 32 0
          %S = OpTypeStruct %uchar %uint %ushort
        %p_S = OpTypePointer CrossWorkgroup %S
     %p_uint = OpTypePointer CrossWorkgroup %uint
   %p_ushort = OpTypePointer CrossWorkgroup %ushort
         %u1 = OpConstant %uint 1
         %u2 = OpConstant %uint 2
          %b = OpConstant %uint 0x11223344
          %c = OpConstant %ushort 0x5566
         %fn = OpTypeFunction %void %p_S
          %k = OpFunction %void None %fn
          %s = OpFunctionParameter %p_S
      %entry = OpLabel
         %pb = OpInBoundsPtrAccessChain %p_uint %s %u1 %u1
               OpStore %pb %b
         %pc = OpInBoundsPtrAccessChain %p_ushort %s %u1 %u2
               OpStore %pc %c
               OpReturn
               OpFunctionEnd
"#;
    let (r, b) = run_with(text, &[((0, 0), vec![0; 24])], Options::default());
    r.expect("runs");
    let mut want = vec![0u8; 24];
    want[16..20].copy_from_slice(&[0x44, 0x33, 0x22, 0x11]);
    want[20..22].copy_from_slice(&[0x66, 0x55]);
    assert_eq!(b[&(0, 0)], want);
}
