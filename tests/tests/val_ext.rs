//! The rules of the mission extensions, each with a valid and an invalid module
//! written from the extension's text (SPV_INTEL_variable_length_array,
//! SPV_KHR_constant_data, SPV_KHR_untyped_pointers), assembled with our
//! assembler. Where spirv-val v2025.5 knows the extension (untyped pointers,
//! variable-length arrays: it accepts them without rules of its own), the
//! verdicts are compared with it too when it is installed; SPV_KHR_constant_data
//! is unknown to it, so those tests are ours alone.

use spvlab_core::text::{AsmOptions, assemble};
use spvlab_core::valid::{Options, validate_words};
use spvlab_core::{Severity, TargetEnv};
use spvlab_tests::{reference_bin, run_tool, scratch};

fn codes(src: &str, env: TargetEnv) -> Vec<&'static str> {
    let words = assemble(src, &AsmOptions { env, preserve_numeric_ids: false })
        .unwrap_or_else(|e| panic!("assembly failed: {:?}\n{src}", e.first().map(|d| &d.message)));
    let opts = Options { env, ..Options::default() };
    validate_words(&words, &opts).iter().filter(|d| d.severity == Severity::Error).map(|d| d.code).collect()
}

/// spirv-val's verdict (true: valid), when the tools are installed.
fn reference_valid(test: &str, src: &str, env: &str) -> Option<bool> {
    let bin = reference_bin()?;
    let dir = scratch(test);
    let asm = dir.join("t.spvasm");
    let spv = dir.join("t.spv");
    std::fs::write(&asm, src).unwrap();
    let (ok, _, err) = run_tool(&bin, "spirv-as", &["--target-env", env, asm.to_str()?, "-o", spv.to_str()?]);
    assert!(ok, "spirv-as: {err}");
    let (ok, _, _) = run_tool(&bin, "spirv-val", &["--target-env", env, spv.to_str()?]);
    Some(ok)
}

fn assert_valid(src: &str, env: TargetEnv) {
    let c = codes(src, env);
    assert!(c.is_empty(), "expected valid, got {c:?}\n{src}");
}

fn assert_invalid(src: &str, env: TargetEnv, code: &str) {
    let c = codes(src, env);
    assert!(c.contains(&code), "expected {code}, got {c:?}\n{src}");
}

// ---------------------------------------------------------------------------
// SPV_INTEL_variable_length_array

const VLA_HEAD: &str = "OpCapability Addresses
OpCapability Kernel
OpCapability Linkage
OpCapability Int64
OpCapability Int8
OpCapability VariableLengthArrayINTEL
OpExtension \"SPV_INTEL_variable_length_array\"
OpMemoryModel Physical64 OpenCL
%void = OpTypeVoid
%bool = OpTypeBool
%true = OpConstantTrue %bool
%char = OpTypeInt 8 0
%ulong = OpTypeInt 64 0
%float = OpTypeFloat 32
%n = OpConstant %ulong 16
%x = OpConstant %float 1
%pchar = OpTypePointer Function %char
%pcw = OpTypePointer CrossWorkgroup %char
%fn = OpTypeFunction %void
%f = OpFunction %void None %fn
%e = OpLabel
";

fn vla(body: &str) -> String {
    format!("{VLA_HEAD}{body}OpReturn\nOpFunctionEnd\n")
}

#[test]
fn vla_dominated_by_save() {
    // Saved in the same block, before the allocation.
    let ok = vla("%s = OpSaveMemoryINTEL %pchar\n%a = OpVariableLengthArrayINTEL %pchar %n\nOpRestoreMemoryINTEL %s\n");
    assert_valid(&ok, TargetEnv::Spv1_0);
    if let Some(r) = reference_valid("vla_dominated_by_save", &ok, "spv1.0") {
        assert!(r, "spirv-val rejects the valid VLA module");
    }
    // Saved in a dominating block.
    let ok2 = vla("%s = OpSaveMemoryINTEL %pchar\nOpBranch %b\n%b = OpLabel\n%a = OpVariableLengthArrayINTEL %pchar %n\nOpRestoreMemoryINTEL %s\n");
    assert_valid(&ok2, TargetEnv::Spv1_0);
    // The save comes after the allocation in the block.
    let bad = vla("%a = OpVariableLengthArrayINTEL %pchar %n\n%s = OpSaveMemoryINTEL %pchar\nOpRestoreMemoryINTEL %s\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.vla-not-dominated-by-save");
    // The save is on one branch only: it does not dominate the merge.
    let bad2 = vla(
        "OpSelectionMerge %m None\nOpBranchConditional %true %t %m\n%t = OpLabel\n%s = OpSaveMemoryINTEL %pchar\nOpBranch %m\n%m = OpLabel\n%a = OpVariableLengthArrayINTEL %pchar %n\n",
    );
    assert_invalid(&bad2, TargetEnv::Spv1_0, "ext.vla-not-dominated-by-save");
    // No save at all.
    let bad3 = vla("%a = OpVariableLengthArrayINTEL %pchar %n\n");
    assert_invalid(&bad3, TargetEnv::Spv1_0, "ext.vla-not-dominated-by-save");
}

#[test]
fn vla_types() {
    // Result type: a pointer to Function storage.
    let bad = vla("%s = OpSaveMemoryINTEL %pchar\n%a = OpVariableLengthArrayINTEL %pcw %n\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.vla-result-type");
    // Length: a scalar integer.
    let bad = vla("%s = OpSaveMemoryINTEL %pchar\n%a = OpVariableLengthArrayINTEL %pchar %x\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.vla-length-type");
    let ok = vla("%s = OpSaveMemoryINTEL %pchar\n%a = OpVariableLengthArrayINTEL %pchar %n\n");
    assert_valid(&ok, TargetEnv::Spv1_0);
    // Save and restore: pointers to Function storage.
    let bad = vla("%s = OpSaveMemoryINTEL %pcw\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.save-memory-type");
    let bad = vla("OpRestoreMemoryINTEL %n\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.save-memory-type");
}

#[test]
fn untyped_vla() {
    let head = VLA_HEAD
        .replace("OpCapability VariableLengthArrayINTEL", "OpCapability UntypedVariableLengthArrayINTEL")
        .replace("OpExtension \"SPV_INTEL_variable_length_array\"", "OpExtension \"SPV_INTEL_variable_length_array\"\nOpExtension \"SPV_KHR_untyped_pointers\"")
        .replace("%fn = OpTypeFunction", "%up = OpTypeUntypedPointerKHR Function\n%upw = OpTypeUntypedPointerKHR Workgroup\n%fn = OpTypeFunction");
    let m = |body: &str| format!("{head}{body}OpReturn\nOpFunctionEnd\n");
    let ok = m("%s = OpSaveMemoryINTEL %pchar\n%a = OpUntypedVariableLengthArrayINTEL %up %char %n\nOpRestoreMemoryINTEL %s\n");
    assert_valid(&ok, TargetEnv::Spv1_0);
    // A documented disagreement: the extension defines the second operand as the
    // Element Type, but spirv-val v2025.5 says "Operand '%uchar' cannot be a type".
    if let Some(reference) = reference_valid("untyped_vla", &ok, "spv1.0") {
        assert!(!reference, "spirv-val now accepts the Element Type operand: remove this note");
    }
    let bad = m("%a = OpUntypedVariableLengthArrayINTEL %up %char %n\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.vla-not-dominated-by-save");
    let bad = m("%s = OpSaveMemoryINTEL %pchar\n%a = OpUntypedVariableLengthArrayINTEL %upw %char %n\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.vla-result-type");
    let bad = m("%s = OpSaveMemoryINTEL %pchar\n%a = OpUntypedVariableLengthArrayINTEL %up %void %n\n");
    assert_invalid(&bad, TargetEnv::Spv1_0, "ext.vla-result-type");
}

// ---------------------------------------------------------------------------
// SPV_KHR_constant_data

fn cdata(decorations: &str, types: &str) -> String {
    format!(
        "OpCapability Shader
OpCapability Linkage
OpCapability Int8
OpCapability Int16
OpCapability ConstantDataKHR
OpExtension \"SPV_KHR_constant_data\"
OpMemoryModel Logical GLSL450
{decorations}%uint = OpTypeInt 32 0
%uchar = OpTypeInt 8 0
%ushort = OpTypeInt 16 0
%float = OpTypeFloat 32
%c1 = OpConstant %uint 1
%c3 = OpConstant %uint 3
%c4 = OpConstant %uint 4
%c5 = OpConstant %uint 5
%arr = OpTypeArray %uint %c4
%str = OpTypeArray %uchar %c5
%sh3 = OpTypeArray %ushort %c3
%farr = OpTypeArray %float %c4
%st = OpTypeStruct %uint
{types}"
    )
}

#[test]
fn constant_data_result_type() {
    assert_valid(&cdata("", "%cd = OpConstantDataKHR %arr 1 2 3 4\n"), TargetEnv::Spv1_6);
    assert_valid(&cdata("", "%cd = OpSpecConstantDataKHR %arr 1 2 3 4\n"), TargetEnv::Spv1_6);
    assert_invalid(&cdata("", "%cd = OpConstantDataKHR %farr 1 2 3 4\n"), TargetEnv::Spv1_6, "ext.constant-data-type");
    assert_invalid(&cdata("", "%cd = OpConstantDataKHR %st 1\n"), TargetEnv::Spv1_6, "ext.constant-data-type");
}

#[test]
fn constant_data_array_stride() {
    assert_invalid(
        &cdata("OpDecorate %arr ArrayStride 4\n", "%cd = OpConstantDataKHR %arr 1 2 3 4\n"),
        TargetEnv::Spv1_6,
        "ext.constant-data-array-stride",
    );
    assert_valid(&cdata("OpDecorate %farr ArrayStride 4\n", "%cd = OpConstantDataKHR %arr 1 2 3 4\n"), TargetEnv::Spv1_6);
}

#[test]
fn constant_data_word_count() {
    // 5 bytes: 2 words; 3 shorts: 2 words; 4 uints: 4 words.
    assert_valid(&cdata("", "%s = OpConstantDataKHR %str 0x6c6c6568 0x6f\n%h = OpConstantDataKHR %sh3 0x00020001 3\n"), TargetEnv::Spv1_6);
    assert_invalid(&cdata("", "%s = OpConstantDataKHR %str 0x6c6c6568\n"), TargetEnv::Spv1_6, "ext.constant-data-length");
    assert_invalid(&cdata("", "%s = OpConstantDataKHR %str 1 2 3\n"), TargetEnv::Spv1_6, "ext.constant-data-length");
    assert_invalid(&cdata("", "%cd = OpSpecConstantDataKHR %arr 1 2 3\n"), TargetEnv::Spv1_6, "ext.constant-data-length");
}

#[test]
fn utf_encoded_decorates_byte_arrays() {
    assert_valid(&cdata("OpDecorate %str UTFEncodedKHR\n", "%s = OpConstantDataKHR %str 0x6c6c6568 0x6f\n"), TargetEnv::Spv1_6);
    assert_invalid(&cdata("OpDecorate %arr UTFEncodedKHR\n", ""), TargetEnv::Spv1_6, "ext.utf-encoded-type");
    assert_invalid(&cdata("OpDecorate %uchar UTFEncodedKHR\n", ""), TargetEnv::Spv1_6, "ext.utf-encoded-type");
}

// ---------------------------------------------------------------------------
// SPV_KHR_untyped_pointers

fn untyped(body: &str) -> String {
    format!(
        "OpCapability Shader
OpCapability UntypedPointersKHR
OpCapability Linkage
OpExtension \"SPV_KHR_untyped_pointers\"
OpMemoryModel Logical GLSL450
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpMemberDecorate %blk 1 Offset 4
OpDecorate %rta ArrayStride 4
OpDecorate %nb_rta ArrayStride 4
OpMemberDecorate %nb 0 Offset 0
OpMemberDecorate %nb 1 Offset 4
OpDecorate %sb DescriptorSet 0
OpDecorate %sb Binding 0
%void = OpTypeVoid
%int = OpTypeInt 32 0
%float = OpTypeFloat 32
%c0 = OpConstant %int 0
%c1 = OpConstant %int 1
%rta = OpTypeRuntimeArray %int
%nb_rta = OpTypeRuntimeArray %int
%blk = OpTypeStruct %int %rta
%nb = OpTypeStruct %int %nb_rta
%ptr = OpTypeUntypedPointerKHR Function
%wptr = OpTypeUntypedPointerKHR Workgroup
%sbptr = OpTypeUntypedPointerKHR StorageBuffer
%tptr = OpTypePointer Function %int
%sb = OpUntypedVariableKHR %sbptr StorageBuffer %blk
%fn = OpTypeFunction %void
%f = OpFunction %void None %fn
%e = OpLabel
{body}OpReturn
OpFunctionEnd
"
    )
}

/// Our verdict and spirv-val's (where installed) on an untyped-pointer module.
fn untyped_case(test: &str, body: &str, code: Option<&str>, reference_agrees: bool) {
    let src = untyped(body);
    match code {
        None => assert_valid(&src, TargetEnv::Spv1_4),
        Some(c) => assert_invalid(&src, TargetEnv::Spv1_4, c),
    }
    if let Some(r) = reference_valid(test, &src, "spv1.4") {
        assert_eq!(r == code.is_none(), reference_agrees, "{test}: spirv-val says valid={r}\n{src}");
    }
}

#[test]
fn untyped_variable_storage_class_and_data_type() {
    untyped_case("uv_ok", "%v = OpUntypedVariableKHR %ptr Function %int\n", None, true);
    untyped_case("uv_sc", "%v = OpUntypedVariableKHR %ptr Private %int\n", Some("ext.untyped-storage-class"), true);
    untyped_case("uv_no_data", "%v = OpUntypedVariableKHR %ptr Function\n", Some("ext.untyped-data-type"), true);
    untyped_case("uv_init", "%v = OpUntypedVariableKHR %ptr Function %int %c1\n", None, true);
}

#[test]
fn untyped_access_chains() {
    untyped_case(
        "uac_ok",
        "%v = OpUntypedVariableKHR %ptr Function %int\n%a = OpUntypedAccessChainKHR %ptr %int %v\n",
        None,
        true,
    );
    untyped_case(
        "uac_ptr_base_type",
        "%v = OpUntypedVariableKHR %ptr Function %int\n%a = OpUntypedAccessChainKHR %ptr %tptr %v\n",
        Some("ext.untyped-base-type"),
        true,
    );
    untyped_case(
        "uac_sc",
        "%v = OpUntypedVariableKHR %ptr Function %int\n%a = OpUntypedAccessChainKHR %wptr %int %v\n",
        Some("ext.untyped-storage-class"),
        true,
    );
}

#[test]
fn untyped_array_length() {
    untyped_case("ual_ok", "%l = OpUntypedArrayLengthKHR %int %blk %sb 1\n", None, true);
    untyped_case("ual_member", "%l = OpUntypedArrayLengthKHR %int %blk %sb 0\n", Some("ext.untyped-array-length"), true);
    // The extension requires a Block-decorated structure; spirv-val v2025.5 does
    // not check the decoration (it accepts this module): we follow the text.
    untyped_case("ual_not_block", "%l = OpUntypedArrayLengthKHR %int %nb %sb 1\n", Some("ext.untyped-array-length"), false);
    untyped_case("ual_result", "%l = OpUntypedArrayLengthKHR %float %blk %sb 1\n", Some("ext.untyped-array-length"), true);
}

#[test]
fn untyped_load_store_atomics_bitcast() {
    // Through an untyped pointer, OpLoad/OpStore may reinterpret the memory.
    untyped_case(
        "ul_reinterpret",
        "%v = OpUntypedVariableKHR %ptr Function %int\n%x = OpLoad %float %v\nOpStore %v %c1\n",
        None,
        true,
    );
    untyped_case(
        "ua_float",
        "%v = OpUntypedVariableKHR %wptr Workgroup %int\n%x = OpAtomicIAdd %float %v %c1 %c0 %c1\n",
        Some("ext.untyped-access-type"),
        true,
    );
    untyped_case(
        "ub_logical",
        "%v = OpUntypedVariableKHR %ptr Function %int\n%x = OpBitcast %int %v\n",
        Some("ext.untyped-bitcast"),
        true,
    );
}

#[test]
fn corpus_probes_are_valid() {
    let Some(corpus) = spvlab_tests::corpus_or_skip("corpus_probes_are_valid") else { return };
    for (name, env) in [("vla", TargetEnv::Spv1_6), ("untyped", TargetEnv::Spv1_6), ("constdata", TargetEnv::Spv1_6)] {
        let src = std::fs::read_to_string(corpus.join("ext-probes").join(format!("{name}.spvasm"))).unwrap();
        assert_valid(&src, env);
    }
}
