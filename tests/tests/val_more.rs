//! Instruction rules that the mutation oracle (val_mutants) asked for
//! (variables holding pointers in Logical addressing; the fragment-only
//! instructions along the call graph): for every rule a valid module and an
//! invalid one, each verdict checked against spirv-val v2025.5 when it is
//! installed (`spvlab_tests::assert_valid_module` / `assert_one_error`), and
//! each diagnostic at the wrong operand with the module's names.

use spvlab_tests::{assert_one_error, assert_valid_module};

/// A Logical GLSL450 compute module whose one function declares `vars` and
/// runs `body`; `caps` are extra capabilities, `globals` extra declarations.
fn logical(caps: &str, globals: &str, vars: &str, body: &str) -> String {
    format!(
        "OpCapability Shader
{caps}OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%sb_st = OpTypeStruct %float
%ptr_sb_st = OpTypePointer StorageBuffer %sb_st
%ptr_wg_float = OpTypePointer Workgroup %float
%ptr_pvt_float = OpTypePointer Private %float
%ptr_f_ptr_pvt = OpTypePointer Function %ptr_pvt_float
%ptr_f_ptr_sb = OpTypePointer Function %ptr_sb_st
%ptr_f_ptr_wg = OpTypePointer Function %ptr_wg_float
%ptr_pvt_ptr_wg = OpTypePointer Private %ptr_wg_float
%ptr_wg_ptr_wg = OpTypePointer Workgroup %ptr_wg_float
{globals}%main = OpFunction %void None %fn
%entry = OpLabel
{vars}{body}OpReturn
OpFunctionEnd
"
    )
}

const CODE_VP: &str = "inst.memory.variable-pointer";

#[test]
fn variable_pointer_valid() {
    // A Function variable of a Workgroup pointer with VariablePointers.
    let m = logical("OpCapability VariablePointers\n", "", "%v = OpVariable %ptr_f_ptr_wg Function\n", "");
    assert_valid_module("variable_pointer_valid_wg", &m, "vulkan1.1");
    // A Private one, of a StorageBuffer pointer with VariablePointersStorageBuffer.
    let m = logical(
        "OpCapability VariablePointersStorageBuffer\n",
        "%ptr_pvt_ptr_sb = OpTypePointer Private %ptr_sb_st\n%p = OpVariable %ptr_pvt_ptr_sb Private\n",
        "",
        "",
    );
    assert_valid_module("variable_pointer_valid_sb", &m, "vulkan1.1");
}

#[test]
fn variable_pointer_to_private() {
    let m = logical("OpCapability VariablePointers\n", "", "%v = OpVariable %ptr_f_ptr_pvt Function\n", "");
    assert_one_error(
        "variable_pointer_to_private",
        &m,
        "vulkan1.1",
        CODE_VP,
        "%v = OpVariable",
        "%ptr_f_ptr_pvt",
        &["%ptr_pvt_float", "Private", "StorageBuffer or Workgroup"],
    );
}

#[test]
fn variable_pointer_needs_capability() {
    let m = logical("", "", "%v = OpVariable %ptr_f_ptr_wg Function\n", "");
    assert_one_error(
        "variable_pointer_wg_no_cap",
        &m,
        "vulkan1.1",
        CODE_VP,
        "%v = OpVariable",
        "%ptr_f_ptr_wg",
        &["%ptr_wg_float", "VariablePointers capability"],
    );
    let m = logical("", "", "%v = OpVariable %ptr_f_ptr_sb Function\n", "");
    assert_one_error(
        "variable_pointer_sb_no_cap",
        &m,
        "vulkan1.1",
        CODE_VP,
        "%v = OpVariable",
        "%ptr_f_ptr_sb",
        &["%ptr_sb_st", "VariablePointersStorageBuffer"],
    );
}

#[test]
fn variable_pointer_storage_class() {
    let m = logical("OpCapability VariablePointers\n", "%w = OpVariable %ptr_wg_ptr_wg Workgroup\n", "", "");
    assert_one_error(
        "variable_pointer_in_workgroup",
        &m,
        "vulkan1.1",
        CODE_VP,
        "%w = OpVariable",
        "Workgroup",
        &["Function or Private", "Workgroup"],
    );
}

/// A module with a `model` entry point calling %helper, which runs `body`.
fn called(model: &str, caps: &str, exts: &str, body: &str) -> String {
    let mode = if model == "Fragment" { "OpExecutionMode %main OriginUpperLeft" } else { "OpExecutionMode %main LocalSize 1 1 1" };
    format!(
        "OpCapability Shader
{caps}{exts}OpMemoryModel Logical GLSL450
OpEntryPoint {model} %main \"main\" %in
{mode}
OpDecorate %in Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%float = OpTypeFloat 32
%ptr_in_float = OpTypePointer Input %float
%in = OpVariable %ptr_in_float Input
%main = OpFunction %void None %fn
%entry = OpLabel
%r = OpFunctionCall %void %helper
OpReturn
OpFunctionEnd
%helper = OpFunction %void None %fn
%hentry = OpLabel
{body}OpReturn
OpFunctionEnd
"
    )
}

const HELPER_CAPS: &str = "OpCapability DemoteToHelperInvocation\n";
const HELPER_EXT: &str = "OpExtension \"SPV_EXT_demote_to_helper_invocation\"\n";

#[test]
fn helper_invocation_models() {
    let body = "%h = OpIsHelperInvocationEXT %bool\n";
    let m = called("Fragment", HELPER_CAPS, HELPER_EXT, body);
    assert_valid_module("is_helper_fragment", &m, "vulkan1.1");
    let m = called("GLCompute", HELPER_CAPS, HELPER_EXT, body);
    assert_one_error(
        "is_helper_compute",
        &m,
        "vulkan1.1",
        "inst.misc.execution-model",
        "%h = OpIsHelperInvocationEXT",
        "%h = OpIsHelperInvocationEXT %bool",
        &["OpIsHelperInvocationEXT", "\"main\"", "Fragment"],
    );
    let body = "OpDemoteToHelperInvocation\n";
    let m = called("Fragment", HELPER_CAPS, HELPER_EXT, body);
    assert_valid_module("demote_fragment", &m, "vulkan1.1");
    let m = called("GLCompute", HELPER_CAPS, HELPER_EXT, body);
    assert_one_error(
        "demote_compute",
        &m,
        "vulkan1.1",
        "inst.misc.execution-model",
        "OpDemoteToHelperInvocation\n",
        "OpDemoteToHelperInvocation",
        &["OpDemoteToHelperInvocation", "Fragment"],
    );
}

#[test]
fn interpolation_models() {
    let caps = "OpCapability InterpolationFunction\n";
    let ext = "%glsl = OpExtInstImport \"GLSL.std.450\"\n";
    let body = "%c = OpExtInst %float %glsl InterpolateAtCentroid %in\n";
    let m = called("Fragment", caps, ext, body);
    assert_valid_module("interpolate_fragment", &m, "vulkan1.1");
    let m = called("GLCompute", caps, ext, body);
    assert_one_error(
        "interpolate_compute",
        &m,
        "vulkan1.1",
        "inst.extinst.execution-model",
        "%c = OpExtInst",
        "%c = OpExtInst %float %glsl InterpolateAtCentroid %in",
        &["OpExtInst", "\"main\"", "Fragment"],
    );
}
