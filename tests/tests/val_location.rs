//! The interface location rules of the validator in Vulkan: no two
//! inputs (or outputs) of an entry point share a location and component, each
//! member of a Block interface without a variable location has one, a variable
//! with a location has a type that takes locations; and where runtime arrays
//! may be. For every rule, a valid module and an invalid one; where the
//! reference SPIRV-Tools are installed, every verdict is also spirv-val's.

use spvlab_tests::{assert_one_error, assert_valid_module};

/// A fragment shader with inputs `%a` (a vec4) and `%b` (a float) decorated
/// by `decos`.
fn fragment(decos: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %a %b %o
OpExecutionMode %main OriginUpperLeft
{decos}OpDecorate %o Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%pa = OpTypePointer Input %v4float
%pb = OpTypePointer Input %float
%po = OpTypePointer Output %v4float
%a = OpVariable %pa Input
%b = OpVariable %pb Input
%o = OpVariable %po Output
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn input_locations_conflict() {
    let ok = fragment("OpDecorate %a Location 0\nOpDecorate %b Location 1\n");
    assert_valid_module("loc_distinct", &ok, "vulkan1.1");
    let bad = fragment("OpDecorate %a Location 0\nOpDecorate %b Location 0\n");
    assert_valid_module("loc_conflict_universal", &bad, "spv1.3");
    assert_one_error(
        "loc_conflict",
        &bad,
        "vulkan1.1",
        "inst.location.conflict",
        "OpEntryPoint",
        "%b",
        &["input variable %b", "location 0, component 0", "08721"],
    );
    // A float beside a vec4 at the same location: component 3 is free only
    // with a Component decoration of 3 and a 3-component %a; a vec4 takes all four.
    let comp = fragment("OpDecorate %a Location 0\nOpDecorate %b Location 0\nOpDecorate %b Component 3\n");
    assert_one_error(
        "loc_conflict_component",
        &comp,
        "vulkan1.1",
        "inst.location.conflict",
        "OpEntryPoint",
        "%b",
        &["location 0, component 3"],
    );
}

/// A vertex shader whose output `%out` is a Block struct of a vec4 and a
/// float, decorated by `decos`.
fn block_output(decos: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main \"main\" %out
OpDecorate %Out Block
{decos}%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%Out = OpTypeStruct %v4float %float
%ptr = OpTypePointer Output %Out
%out = OpVariable %ptr Output
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn block_members_need_locations() {
    let ok = block_output("OpMemberDecorate %Out 0 Location 0\nOpMemberDecorate %Out 1 Location 1\n");
    assert_valid_module("loc_members", &ok, "vulkan1.1");
    assert_one_error(
        "loc_member_missing",
        &block_output("OpMemberDecorate %Out 0 Location 0\n"),
        "vulkan1.1",
        "inst.location.member",
        "OpEntryPoint",
        "%out",
        &["member 1 of %Out", "no Location", "04919"],
    );
    assert_one_error(
        "loc_member_conflict",
        &block_output("OpMemberDecorate %Out 0 Location 0\nOpMemberDecorate %Out 1 Location 0\n"),
        "vulkan1.1",
        "inst.location.conflict",
        "OpEntryPoint",
        "%out",
        &["member 1 of %Out", "location 0, component 0", "08722"],
    );
}

#[test]
fn variable_location_and_member_locations() {
    assert_valid_module("loc_on_variable", &block_output("OpDecorate %out Location 0\n"), "vulkan1.1");
    assert_one_error(
        "loc_both",
        &block_output("OpDecorate %out Location 0\nOpMemberDecorate %Out 0 Location 0\nOpMemberDecorate %Out 1 Location 1\n"),
        "vulkan1.1",
        "inst.location.type",
        "OpEntryPoint",
        "%out",
        &["%out is decorated with Location", "%Out", "04918"],
    );
}

/// A compute shader with a storage buffer of struct `%S` ending in a runtime
/// array, decorated by `decos`.
fn ssbo(decos: &str, class: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %rta ArrayStride 4
OpMemberDecorate %S 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
{decos}%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%rta = OpTypeRuntimeArray %uint
%S = OpTypeStruct %rta
%ptr = OpTypePointer {class} %S
%buf = OpVariable %ptr {class}
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn runtime_arrays_in_block_structs() {
    assert_valid_module("rta_block", &ssbo("OpDecorate %S BufferBlock\n", "Uniform"), "vulkan1.0");
    assert_valid_module("rta_no_block_universal", &ssbo("", "Uniform"), "spv1.0");
    // The struct alone (no variable): only the type rule.
    let unused = ssbo("", "Uniform")
        .replace("OpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n", "")
        .replace("%ptr = OpTypePointer Uniform %S\n%buf = OpVariable %ptr Uniform\n", "");
    assert_one_error(
        "rta_no_block",
        &unused,
        "vulkan1.0",
        "inst.interface.runtime-array",
        "%S = OpTypeStruct",
        "%S",
        &["%S ends in a runtime array", "neither Block nor BufferBlock"],
    );
    assert_one_error(
        "rta_private",
        &ssbo("OpDecorate %S BufferBlock\n", "Private").replace("OpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n", ""),
        "vulkan1.0",
        "inst.interface.runtime-array",
        "%buf = OpVariable",
        "Private",
        &["%buf", "%S", "StorageBuffer, PhysicalStorageBuffer or Uniform", "Private"],
    );
}

/// A fragment shader with an input `%i` of type `ty` decorated by `decos`.
fn fragment_input(ty: &str, decos: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %i %o
OpExecutionMode %main OriginUpperLeft
OpDecorate %i Location 0
OpDecorate %o Location 0
{decos}%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%v2int = OpTypeVector %int 2
%v4float = OpTypeVector %float 4
%pi = OpTypePointer Input {ty}
%po = OpTypePointer Output %v4float
%i = OpVariable %pi Input
%o = OpVariable %po Output
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn integer_fragment_inputs_are_flat() {
    assert_valid_module("flat_int", &fragment_input("%v2int", "OpDecorate %i Flat\n"), "vulkan1.1");
    assert_valid_module("float_smooth", &fragment_input("%float", ""), "vulkan1.1");
    assert_one_error(
        "no_flat_int",
        &fragment_input("%v2int", ""),
        "vulkan1.1",
        "inst.interface.interpolation",
        "OpEntryPoint",
        "%i",
        &["%i", "%v2int", "Flat", "04744"],
    );
    assert_one_error(
        "flat_output",
        &fragment_input("%float", "OpDecorate %o Flat\n"),
        "vulkan1.1",
        "inst.interface.interpolation",
        "OpEntryPoint",
        "%o",
        &["%o is decorated Flat", "fragment shader Output", "06201"],
    );
}

#[test]
fn one_variable_per_builtin() {
    let src = |second: &str| {
        format!(
            "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %a %b
OpExecutionMode %main OriginUpperLeft
OpDecorate %a BuiltIn FragCoord
OpDecorate %b BuiltIn {second}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%v2float = OpTypeVector %float 2
%p4 = OpTypePointer Input %v4float
%p2 = OpTypePointer Input %v2float
%a = OpVariable %p4 Input
%b = OpVariable %p{n} Input
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
",
            n = if second == "FragCoord" { 4 } else { 2 }
        )
    };
    assert_valid_module("builtins_distinct", &src("PointCoord"), "vulkan1.1");
    assert_one_error(
        "builtins_twice",
        &src("FragCoord"),
        "vulkan1.1",
        "inst.interface.builtin-variables",
        "OpEntryPoint",
        "%b",
        &["two input variables with BuiltIn FragCoord", "%b", "09658"],
    );
}
