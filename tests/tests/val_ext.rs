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

// ---------------------------------------------------------------------------
// Extended instructions (GLSL.std.450, OpenCL.std, OpExtInstImport), debug
// instructions (OpLine) and the misc leftovers: for every rule a valid and an
// invalid module, the invalid ones checked against spirv-val (when installed)
// and located at the wrong operand's token.

mod extinst {
    use spvlab_core::diag::line_col;
    use spvlab_tests::{assert_invalid_module, assert_one_error, assert_valid_module};

    const HEAD: &str = "OpCapability Shader
OpCapability Linkage
OpCapability Float64
%glsl = OpExtInstImport \"GLSL.std.450\"
OpMemoryModel Logical GLSL450
OpName %a \"a\"
OpName %x \"x\"
%void = OpTypeVoid
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%double = OpTypeFloat 64
%v2int = OpTypeVector %int 2
%v2uint = OpTypeVector %uint 2
%v2float = OpTypeVector %float 2
%v3float = OpTypeVector %float 3
%v4float = OpTypeVector %float 4
%m2 = OpTypeMatrix %v2float 2
%modf = OpTypeStruct %float %float
%frexp = OpTypeStruct %float %int
%pf = OpTypePointer Function %float
%pi = OpTypePointer Function %int
%fn = OpTypeFunction %void
%a = OpConstant %int 3
%u = OpConstant %uint 3
%x = OpConstant %float 1
%y = OpConstant %float 2
%d = OpConstant %double 2
%t = OpConstantTrue %bool
%vx = OpConstantComposite %v2float %x %y
%v3 = OpConstantComposite %v3float %x %y %x
%v4 = OpConstantComposite %v4float %x %y %x %y
%vi = OpConstantComposite %v2int %a %a
%vu = OpConstantComposite %v2uint %u %u
%mx = OpConstantComposite %m2 %vx %vx
";

    fn module(body: &str) -> String {
        format!(
            "{HEAD}%f = OpFunction %void None %fn\n%entry = OpLabel\n%vf = OpVariable %pf Function\n%vint = OpVariable %pi Function\n{body}\nOpReturn\nOpFunctionEnd\n"
        )
    }

    #[track_caller]
    fn valid(name: &str, body: &str) {
        assert_valid_module(&format!("val_extinst_{name}"), &module(body), "spv1.3")
    }

    #[track_caller]
    fn one_error(name: &str, body: &str, code: &str, line: &str, token: &str, says: &[&str]) {
        assert_one_error(&format!("val_extinst_{name}"), &module(body), "spv1.3", code, line, token, says)
    }

    const RT: &str = "inst.extinst.result-type";
    const OT: &str = "inst.extinst.operand-type";

    #[test]
    fn glsl_valid() {
        valid(
            "all",
            "%r1 = OpExtInst %float %glsl FMix %x %y %x
%r2 = OpExtInst %v2float %glsl Sqrt %vx
%r3 = OpExtInst %int %glsl SClamp %a %a %a
%r4 = OpExtInst %v2uint %glsl UMin %vu %vi
%r5 = OpExtInst %float %glsl Pow %x %y
%r6 = OpExtInst %float %glsl Determinant %mx
%r7 = OpExtInst %m2 %glsl MatrixInverse %mx
%r8 = OpExtInst %float %glsl Modf %x %vf
%r9 = OpExtInst %modf %glsl ModfStruct %x
%r10 = OpExtInst %float %glsl Frexp %x %vint
%r11 = OpExtInst %float %glsl Ldexp %x %a
%r12 = OpExtInst %frexp %glsl FrexpStruct %x
%r13 = OpExtInst %uint %glsl PackUnorm4x8 %v4
%r14 = OpExtInst %uint %glsl PackHalf2x16 %vx
%r15 = OpExtInst %double %glsl PackDouble2x32 %vu
%r16 = OpExtInst %v4float %glsl UnpackSnorm4x8 %u
%r17 = OpExtInst %v2uint %glsl UnpackDouble2x32 %d
%r18 = OpExtInst %float %glsl Length %vx
%r19 = OpExtInst %float %glsl Distance %vx %vx
%r20 = OpExtInst %v3float %glsl Cross %v3 %v3
%r21 = OpExtInst %v2float %glsl Refract %vx %vx %x
%r22 = OpExtInst %int %glsl FindUMsb %a",
        );
    }

    #[test]
    fn glsl_result_type() {
        one_error("sqrt_int", "%r = OpExtInst %int %glsl Sqrt %a", RT, "%r = ", "%int", &["GLSL.std.450 Sqrt", "%int", "float scalar or vector"]);
        one_error("sabs_float", "%r = OpExtInst %float %glsl SAbs %x", RT, "%r = ", "%float", &["int scalar or vector"]);
        one_error("sin_double", "%r = OpExtInst %double %glsl Sin %d", RT, "%r = ", "%double", &["16- or 32-bit"]);
        one_error("length_vector", "%r = OpExtInst %v2float %glsl Length %vx", RT, "%r = ", "%v2float", &["float scalar"]);
        one_error("cross_2", "%r = OpExtInst %v2float %glsl Cross %vx %vx", RT, "%r = ", "%v2float", &["3 floats"]);
        one_error("inverse_vec", "%r = OpExtInst %v2float %glsl MatrixInverse %vx", RT, "%r = ", "%v2float", &["square matrix"]);
        one_error("modfstruct", "%r = OpExtInst %frexp %glsl ModfStruct %x", RT, "%r = ", "%frexp", &["two members"]);
        one_error("pack_float", "%r = OpExtInst %float %glsl PackUnorm4x8 %v4", RT, "%r = ", "%float", &["32-bit int scalar"]);
        one_error("unpack_v2", "%r = OpExtInst %v2float %glsl UnpackUnorm4x8 %u", RT, "%r = ", "%v2float", &["vector of 4 32-bit floats"]);
        one_error("findumsb_vec64", "%r = OpExtInst %v2float %glsl FindUMsb %a", RT, "%r = ", "%v2float", &["int scalar or vector"]);
    }

    #[test]
    fn glsl_operand_type() {
        one_error("fmix_int", "%r = OpExtInst %float %glsl FMix %x %a %x", OT, "FMix", "%a", &["operand y", "%a, of type %int", "Result Type %float"]);
        one_error("sclamp_width", "%r = OpExtInst %v2int %glsl SClamp %vi %vi %a", OT, "SClamp", "%a", &["maxVal", "vector of 2 32-bit ints"]);
        one_error("determinant_vec", "%r = OpExtInst %float %glsl Determinant %vx", OT, "Determinant", "%vx", &["square matrix"]);
        one_error("modf_not_pointer", "%r = OpExtInst %float %glsl Modf %x %y", OT, "Modf", "%y", &["pointer"]);
        one_error("frexp_float_pointer", "%r = OpExtInst %float %glsl Frexp %x %vf", OT, "Frexp", "%vf", &["32-bit int"]);
        one_error("ldexp_dims", "%r = OpExtInst %float %glsl Ldexp %x %vi", OT, "Ldexp", "%vi", &["1 components"]);
        one_error("length_int", "%r = OpExtInst %float %glsl Length %vi", OT, "Length", "%vi", &["float scalar or vector"]);
        one_error("distance_dims", "%r = OpExtInst %float %glsl Distance %vx %x", OT, "Distance", "%x", &["2 components"]);
        one_error("pack_v2", "%r = OpExtInst %uint %glsl PackUnorm4x8 %vx", OT, "PackUnorm4x8", "%vx", &["vector of 4 32-bit floats"]);
        one_error("refract_eta", "%r = OpExtInst %v2float %glsl Refract %vx %vx %a", OT, "Refract", "%a", &["operand eta is %a", "float scalar"]);
    }

    #[test]
    fn two_wrong_operands_are_two_diagnostics_at_two_columns() {
        let src = module("%r = OpExtInst %float %glsl FMin %a %u");
        let d = assert_invalid_module("val_extinst_two", &src, "spv1.3");
        assert_eq!(d.len(), 2, "{d:#?}");
        let tok = |d: &spvlab_core::Diagnostic| src[d.span.start as usize..d.span.end as usize].to_owned();
        assert_eq!((tok(&d[0]).as_str(), tok(&d[1]).as_str()), ("%a", "%u"));
        let (l0, c0) = line_col(&src, d[0].span.start);
        let (l1, c1) = line_col(&src, d[1].span.start);
        assert!(l0 == l1 && c0 < c1, "{c0} {c1}");
        assert!(d.iter().all(|d| d.code == OT));
    }

    #[test]
    fn imix_is_not_supported() {
        valid("fmix_instead", "%r = OpExtInst %float %glsl FMix %x %x %x");
        one_error("imix", "%r = OpExtInst %int %glsl IMix %a %a %a", "inst.extinst.unsupported", "IMix", "IMix", &["IMix", "not supported"]);
    }

    const BF16: &str = "OpCapability Shader
OpCapability Linkage
OpCapability BFloat16TypeKHR
OpCapability Float16
OpExtension \"SPV_KHR_bfloat16\"
%glsl = OpExtInstImport \"GLSL.std.450\"
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%bf = OpTypeFloat 16 BFloat16KHR
%half = OpTypeFloat 16
%fn = OpTypeFunction %void
%f = OpFunction %void None %fn
%entry = OpLabel
%b = OpUndef %bf
%h = OpUndef %half
";

    #[test]
    fn no_bfloat16() {
        let m = |body: &str| format!("{BF16}{body}\nOpReturn\nOpFunctionEnd\n");
        assert_valid_module("val_extinst_half", &m("%r = OpExtInst %half %glsl FAbs %h"), "spv1.6");
        assert_one_error(
            "val_extinst_bf16",
            &m("%r = OpExtInst %half %glsl FAbs %b"),
            "spv1.6",
            "inst.extinst.float-encoding",
            "FAbs",
            "%b",
            &["BFloat16"],
        );
    }

    const FRAG: &str = "OpCapability Shader
CAP%glsl = OpExtInstImport \"GLSL.std.450\"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %in
OpExecutionMode %main OriginUpperLeft
OpDecorate %in Location 0
%void = OpTypeVoid
%float = OpTypeFloat 32
%v2float = OpTypeVector %float 2
%int = OpTypeInt 32 1
%pin = OpTypePointer Input %float
%pfn = OpTypePointer Function %float
%in = OpVariable %pin Input
%s = OpConstant %int 1
%o = OpConstant %float 0.5
%off = OpConstantComposite %v2float %o %o
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
%local = OpVariable %pfn Function
BODY
OpReturn
OpFunctionEnd
";

    fn frag(cap: bool, body: &str) -> String {
        FRAG.replace("CAP", if cap { "OpCapability InterpolationFunction\n" } else { "" }).replace("BODY", body)
    }

    #[test]
    fn interpolation() {
        let ok = "%r1 = OpExtInst %float %glsl InterpolateAtCentroid %in
%r2 = OpExtInst %float %glsl InterpolateAtSample %in %s
%r3 = OpExtInst %float %glsl InterpolateAtOffset %in %off";
        assert_valid_module("val_extinst_interp", &frag(true, ok), "vulkan1.0");
        assert_one_error(
            "val_extinst_interp_cap",
            &frag(false, "%r = OpExtInst %float %glsl InterpolateAtCentroid %in"),
            "vulkan1.0",
            "inst.extinst.capability",
            "InterpolateAtCentroid",
            "InterpolateAtCentroid",
            &["InterpolationFunction"],
        );
        assert_one_error(
            "val_extinst_interp_function",
            &frag(true, "%r = OpExtInst %float %glsl InterpolateAtCentroid %local"),
            "vulkan1.0",
            OT,
            "InterpolateAtCentroid",
            "%local",
            &["Input storage class"],
        );
        assert_one_error(
            "val_extinst_interp_offset",
            &frag(true, "%r = OpExtInst %float %glsl InterpolateAtOffset %in %o"),
            "vulkan1.0",
            OT,
            "InterpolateAtOffset",
            "%o",
            &["vector of 2 32-bit floats"],
        );
    }

    const CL: &str = "OpCapability Addresses
OpCapability Kernel
OpCapability Linkage
OpCapability Vector16
%cl = OpExtInstImport \"OpenCL.std\"
OpMemoryModel Physical64 OpenCL
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v8float = OpTypeVector %float 8
%pf = OpTypePointer Function %float
%pu = OpTypePointer Function %uint
%fn = OpTypeFunction %void
%x = OpConstant %float 1
%u = OpConstant %uint 1
%f = OpFunction %void None %fn
%entry = OpLabel
%vf = OpVariable %pf Function
%vu = OpVariable %pu Function
%v8 = OpUndef %v8float
";

    fn cl(body: &str) -> String {
        format!("{CL}{body}\nOpReturn\nOpFunctionEnd\n")
    }

    #[test]
    fn opencl() {
        let ok = "%r1 = OpExtInst %float %cl fmax %x %x
%r2 = OpExtInst %v8float %cl sqrt %v8
%r3 = OpExtInst %uint %cl s_max %u %u
%r4 = OpExtInst %float %cl fract %x %vf
%r5 = OpExtInst %float %cl length %x
%r6 = OpExtInst %float %cl distance %x %x
%r7 = OpExtInst %float %cl normalize %x";
        assert_valid_module("val_extinst_cl", &cl(ok), "spv1.0");
        let one = |name: &str, body: &str, code: &str, token: &str, says: &[&str]| {
            assert_one_error(&format!("val_extinst_cl_{name}"), &cl(body), "spv1.0", code, "%r = ", token, says)
        };
        one("fmax_uint", "%r = OpExtInst %float %cl fmax %x %u", OT, "%u", &["OpenCL.std fmax", "Result Type %float"]);
        one("sqrt_uint", "%r = OpExtInst %uint %cl sqrt %u", RT, "%uint", &["float scalar or vector"]);
        one("s_max_float", "%r = OpExtInst %float %cl s_max %x %x", RT, "%float", &["int scalar or vector"]);
        one("length_int", "%r = OpExtInst %float %cl length %u", OT, "%u", &["float scalar or vector"]);
        one("distance_p1", "%r = OpExtInst %float %cl distance %x %u", OT, "%u", &["type of P0"]);
        one("normalize_v8", "%r = OpExtInst %v8float %cl normalize %v8", RT, "%v8float", &["at most 4 components"]);
        one("fract_pointer", "%r = OpExtInst %float %cl fract %x %vu", OT, "%vu", &["pointer to the Result Type"]);
    }

    #[test]
    fn non_semantic_import() {
        let m = |ext: &str| {
            format!(
                "OpCapability Shader\nOpCapability Linkage\n{ext}%ns = OpExtInstImport \"NonSemantic.Testing\"\nOpMemoryModel Logical GLSL450\n"
            )
        };
        assert_valid_module("val_extinst_ns", &m("OpExtension \"SPV_KHR_non_semantic_info\"\n"), "spv1.3");
        assert_valid_module("val_extinst_ns16", &m(""), "spv1.6");
        assert_one_error(
            "val_extinst_ns_noext",
            &m(""),
            "spv1.3",
            "inst.extinst.import",
            "OpExtInstImport",
            "\"NonSemantic.Testing\"",
            &["SPV_KHR_non_semantic_info"],
        );
    }

    #[test]
    fn line_file_is_a_string() {
        let m = |file: &str| {
            format!(
                "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n%file = OpString \"a.glsl\"\n%void = OpTypeVoid\nOpLine {file} 1 1\n%fn = OpTypeFunction %void\n"
            )
        };
        assert_valid_module("val_debug_line", &m("%file"), "spv1.3");
        assert_one_error(
            "val_debug_line_type",
            &m("%void"),
            "spv1.3",
            "inst.debug.line-file",
            "OpLine",
            "%void",
            &["%void", "OpTypeVoid", "OpString"],
        );
    }

    #[test]
    fn branch_condition_that_is_no_value() {
        let branch = |c: &str| format!("OpSelectionMerge %m None\nOpBranchConditional {c} %m %m\n%m = OpLabel");
        valid("branch_t", &branch("%t"));
        one_error(
            "branch_type",
            &branch("%entry"),
            "inst.logical.operand-type",
            "OpBranchConditional",
            "%entry",
            &["%entry", "not a value", "bool scalar"],
        );
    }

    const EXPECT: &str = "OpCapability Shader
OpCapability Linkage
OpCapability ExpectAssumeKHR
OpExtension \"SPV_KHR_expect_assume\"
OpMemoryModel Logical GLSL450
%void = OpTypeVoid
%bool = OpTypeBool
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%t = OpConstantTrue %bool
%a = OpConstant %int 1
%x = OpConstant %float 1
%fn = OpTypeFunction %void
%f = OpFunction %void None %fn
%entry = OpLabel
";

    #[test]
    fn expect_assume() {
        let m = |body: &str| format!("{EXPECT}{body}\nOpReturn\nOpFunctionEnd\n");
        assert_valid_module("val_misc_expect", &m("OpAssumeTrueKHR %t\n%e = OpExpectKHR %int %a %a"), "spv1.3");
        assert_one_error("val_misc_assume_int", &m("OpAssumeTrueKHR %a"), "spv1.3", "inst.misc.operand-type", "OpAssumeTrueKHR", "%a", &["%int", "bool scalar"]);
        assert_one_error("val_misc_expect_float", &m("%e = OpExpectKHR %float %x %x"), "spv1.3", "inst.misc.result-type", "OpExpectKHR", "%float", &["bool or int"]);
        assert_one_error("val_misc_expect_value", &m("%e = OpExpectKHR %int %a %t"), "spv1.3", "inst.misc.operand-type", "OpExpectKHR", "%t", &["%bool", "%int"]);
    }

    const HELPER: &str = "OpCapability Shader
OpCapability DemoteToHelperInvocationEXT
OpExtension \"SPV_EXT_demote_to_helper_invocation\"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\"
OpExecutionMode %main OriginUpperLeft
%void = OpTypeVoid
%bool = OpTypeBool
%int = OpTypeInt 32 1
%fn = OpTypeFunction %void
%main = OpFunction %void None %fn
%entry = OpLabel
";

    #[test]
    fn is_helper_invocation_is_a_bool() {
        let m = |ty: &str| format!("{HELPER}%h = OpIsHelperInvocationEXT {ty}\nOpReturn\nOpFunctionEnd\n");
        assert_valid_module("val_misc_helper", &m("%bool"), "spv1.3");
        assert_one_error("val_misc_helper_int", &m("%int"), "spv1.3", "inst.misc.result-type", "OpIsHelperInvocationEXT", "%int", &["bool scalar"]);
    }
}
