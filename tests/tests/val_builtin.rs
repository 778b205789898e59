//! The built-in rules of the validator in Vulkan: the type, storage
//! class and execution model of each BuiltIn, and DepthReplacing for
//! FragDepth. For every rule, a valid module and an invalid one; where the
//! reference SPIRV-Tools are installed, every verdict is also spirv-val's.

use spvlab_tests::{assert_invalid_module, assert_one_error, assert_valid_module};

/// A fragment shader writing FragDepth (`%depth`) from `%main`, with `modes`.
fn frag_depth(modes: &str, depth_class: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" %depth
OpExecutionMode %main OriginUpperLeft
{modes}OpDecorate %depth BuiltIn FragDepth
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%float_1 = OpConstant %float 1
%ptr = OpTypePointer {depth_class} %float
%depth = OpVariable %ptr {depth_class}
%main = OpFunction %void None %fn
%entry = OpLabel
OpStore %depth %float_1
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn frag_depth_needs_depth_replacing() {
    assert_valid_module(
        "bi_depth_ok",
        &frag_depth("OpExecutionMode %main DepthReplacing\n", "Output"),
        "vulkan1.1",
    );
    assert_one_error(
        "bi_depth_no_mode",
        &frag_depth("", "Output"),
        "vulkan1.1",
        "inst.builtin.depth-replacing",
        "OpStore",
        "%depth",
        &["\"main\"", "DepthReplacing", "FragDepth"],
    );
    // Not a Vulkan rule elsewhere.
    assert_valid_module("bi_depth_universal", &frag_depth("", "Output"), "spv1.3");
}

#[test]
fn frag_depth_is_an_output() {
    let src = frag_depth("OpExecutionMode %main DepthReplacing\n", "Input").replace("OpStore %depth %float_1\n", "");
    assert_one_error(
        "bi_depth_input",
        &src,
        "vulkan1.1",
        "inst.builtin.storage-class",
        "%depth = OpVariable",
        "Input",
        &["BuiltIn FragDepth", "Output storage class", "%depth", "Input storage class"],
    );
}

/// A compute shader reading `%gid`, declared as `decl` (a pointer type and
/// the variable), decorated BuiltIn `builtin`.
fn compute(builtin: &str, ptr: &str, class: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %gid
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %gid BuiltIn {builtin}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%float = OpTypeFloat 32
%v3uint = OpTypeVector %uint 3
%v3float = OpTypeVector %float 3
%ptr = OpTypePointer {class} {ptr}
%gid = OpVariable %ptr {class}
%main = OpFunction %void None %fn
%entry = OpLabel
%x = OpLoad {ptr} %gid
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn builtin_types() {
    assert_valid_module("bi_gid_ok", &compute("GlobalInvocationId", "%v3uint", "Input"), "vulkan1.1");
    assert_one_error(
        "bi_gid_float",
        &compute("GlobalInvocationId", "%v3float", "Input"),
        "vulkan1.1",
        "inst.builtin.type",
        "%gid = OpVariable",
        "%ptr",
        &["GlobalInvocationId", "3-component vector of 32-bit ints", "%v3float"],
    );
    assert_valid_module("bi_gid_float_universal", &compute("GlobalInvocationId", "%v3float", "Input"), "spv1.3");
    assert_one_error(
        "bi_subgroup_id_vector",
        &compute("SubgroupId", "%v3uint", "Input")
            .replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability GroupNonUniform\n"),
        "vulkan1.1",
        "inst.builtin.type",
        "%gid = OpVariable",
        "%ptr",
        &["SubgroupId", "32-bit int scalar"],
    );
}

#[test]
fn builtin_storage_classes() {
    assert_one_error(
        "bi_gid_private",
        &compute("GlobalInvocationId", "%v3uint", "Private"),
        "vulkan1.2",
        "inst.builtin.storage-class",
        "%gid = OpVariable",
        "Private",
        &["GlobalInvocationId", "Input storage class", "Private"],
    );
    // SubgroupSize: checked where declared.
    let src = compute("SubgroupSize", "%uint", "Input")
        .replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability GroupNonUniform\n");
    assert_valid_module("bi_subgroup_size_ok", &src, "vulkan1.1");
    assert_one_error(
        "bi_subgroup_size_private",
        &src.replace("Input", "Private"),
        "vulkan1.2",
        "inst.builtin.storage-class",
        "%gid = OpVariable",
        "Private",
        &["SubgroupSize", "Input storage class"],
    );
}

#[test]
fn builtin_execution_models() {
    // FragCoord read by a compute shader.
    let src = compute("FragCoord", "%v4float", "Input").replace(
        "%v3float = OpTypeVector %float 3\n",
        "%v3float = OpTypeVector %float 3\n%v4float = OpTypeVector %float 4\n",
    );
    assert_one_error(
        "bi_fragcoord_compute",
        &src,
        "vulkan1.1",
        "inst.builtin.execution-model",
        "%x = OpLoad",
        "%gid",
        &["FragCoord", "GLCompute", "\"main\""],
    );
    let ok = src
        .replace("GLCompute %main", "Fragment %main")
        .replace("OpExecutionMode %main LocalSize 1 1 1", "OpExecutionMode %main OriginUpperLeft");
    assert_valid_module("bi_fragcoord_fragment", &ok, "vulkan1.1");
}

/// A vertex shader writing gl_PerVertex's Position (member 0) and PointSize
/// (member 1), with the member types given.
fn per_vertex(position: &str, point_size: &str, model: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint {model} %main \"main\" %out
{mode}OpMemberDecorate %PerVertex 0 BuiltIn Position
OpMemberDecorate %PerVertex 1 BuiltIn PointSize
OpDecorate %PerVertex Block
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%v4float = OpTypeVector %float 4
%PerVertex = OpTypeStruct {position} {point_size}
%ptr = OpTypePointer Output %PerVertex
%out = OpVariable %ptr Output
%int_1 = OpConstant %int 1
%pf = OpTypePointer Output {point_size}
%main = OpFunction %void None %fn
%entry = OpLabel
%ps = OpAccessChain %pf %out %int_1
OpReturn
OpFunctionEnd
",
        mode = if model == "Fragment" { "OpExecutionMode %main OriginUpperLeft\n" } else { "" }
    )
}

#[test]
fn position_and_point_size() {
    assert_valid_module("bi_per_vertex_ok", &per_vertex("%v4float", "%float", "Vertex"), "vulkan1.1");
    assert_one_error(
        "bi_point_size_int",
        &per_vertex("%v4float", "%int", "Vertex"),
        "vulkan1.1",
        "inst.builtin.type",
        "%ps = OpAccessChain",
        "%out",
        &["PointSize", "32-bit float scalar", "member 1 of %PerVertex"],
    );
    // Both members are used from a fragment shader: one error for each built-in.
    let d = assert_invalid_module("bi_position_fragment", &per_vertex("%v4float", "%float", "Fragment"), "vulkan1.1");
    assert_eq!(d.len(), 2, "{d:#?}");
    for (d, b) in d.iter().zip(["Position", "PointSize"]) {
        assert_eq!(d.code, "inst.builtin.execution-model", "{d:#?}");
        assert!(d.message.contains(b) && d.message.contains("Fragment"), "{d:#?}");
    }
}

#[test]
fn tess_levels_need_patch() {
    let src = |deco: &str| {
        format!(
            "OpCapability Shader
OpCapability Tessellation
OpMemoryModel Logical GLSL450
OpEntryPoint TessellationControl %main \"main\" %outer
OpExecutionMode %main OutputVertices 3
OpDecorate %outer BuiltIn TessLevelOuter
{deco}%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%uint_4 = OpConstant %uint 4
%arr = OpTypeArray %float %uint_4
%ptr = OpTypePointer Output %arr
%outer = OpVariable %ptr Output
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
        )
    };
    assert_valid_module("bi_tess_patch", &src("OpDecorate %outer Patch\n"), "vulkan1.1");
    assert_one_error(
        "bi_tess_no_patch",
        &src(""),
        "vulkan1.1",
        "inst.builtin.storage-class",
        "OpDecorate %outer BuiltIn",
        "%outer",
        &["TessLevelOuter", "Patch"],
    );
}
