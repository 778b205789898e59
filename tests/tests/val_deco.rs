//! The decoration rules of the validator (targets, member indices, repeated
//! decorations, Vulkan resource decorations, explicit layout and the entry
//! point interface): for every rule a valid and an invalid module.
//!
//! Each module is assembled with the source map and validated at its target
//! environment; the tests check the code, the token the diagnostic points at
//! (line and column) and the names in the message. Where the reference
//! SPIRV-Tools are installed, spirv-val must reject each invalid module and
//! accept each valid one: the verdicts come from the oracle.

use spvlab_tests::{assert_one_error, assert_valid_module};

/// A Vulkan compute shader; `{deco}` and `{types}` are spliced in.
fn compute(deco: &str, types: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
{deco}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%uint = OpTypeInt 32 0
%v4float = OpTypeVector %float 4
%S = OpTypeStruct %float %v4float
%ptr_S = OpTypePointer StorageBuffer %S
%ptr_priv = OpTypePointer Private %float
{types}
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

#[track_caller]
fn valid(name: &str, src: &str, env: &str) {
    assert_valid_module(&format!("val_deco_{name}"), src, env)
}

/// The one error of an invalid module: its code, the token it points at (the
/// first `token` on the line containing `line`), and words of the message.
#[track_caller]
fn one_error(name: &str, src: &str, env: &str, code: &str, line: &str, token: &str, says: &[&str]) {
    assert_one_error(&format!("val_deco_{name}"), src, env, code, line, token, says)
}

const SSBO: &str = "OpDecorate %S Block
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 1 Offset 16
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0";
const SSBO_VAR: &str = "%buf = OpVariable %ptr_S StorageBuffer";

#[test]
fn decoration_targets() {
    valid("deco_valid", &compute(SSBO, SSBO_VAR), "vulkan1.1");
    one_error(
        "binding_on_type",
        &compute(&format!("{SSBO}\nOpDecorate %float Binding 1"), SSBO_VAR),
        "vulkan1.1",
        "inst.decoration.target",
        "OpDecorate %float Binding",
        "%float",
        &[
            "Binding decoration on target %float",
            "OpTypeFloat",
            "must be a variable",
        ],
    );
    one_error(
        "block_on_pointer",
        &compute(&format!("{SSBO}\nOpDecorate %ptr_priv Block"), SSBO_VAR),
        "vulkan1.1",
        "inst.decoration.target",
        "OpDecorate %ptr_priv Block",
        "%ptr_priv",
        &["Block decoration on target %ptr_priv", "a structure type"],
    );
    one_error(
        "flat_on_constant",
        &compute(SSBO, &format!("{SSBO_VAR}\n%one = OpConstant %float 1")).replace(
            "OpDecorate %S Block",
            "OpDecorate %S Block\nOpDecorate %one Flat",
        ),
        "vulkan1.1",
        "inst.decoration.target",
        "OpDecorate %one Flat",
        "%one",
        &["Flat", "memory object declaration"],
    );
    one_error(
        "row_major_on_id",
        &compute(&format!("{SSBO}\nOpDecorate %S RowMajor"), SSBO_VAR),
        "vulkan1.1",
        "inst.decoration.target",
        "OpDecorate %S RowMajor",
        "RowMajor",
        &["RowMajor can only be applied to structure members"],
    );
}

#[test]
fn decoration_storage_class_in_vulkan() {
    let src = compute(
        &format!("{SSBO}\nOpDecorate %p DescriptorSet 1"),
        &format!("{SSBO_VAR}\n%p = OpVariable %ptr_priv Private"),
    );
    // Outside Vulkan, DescriptorSet on a Private variable is allowed.
    valid("set_on_private_universal", &src, "spv1.3");
    one_error(
        "set_on_private",
        &src,
        "vulkan1.1",
        "inst.decoration.storage-class",
        "OpDecorate %p DescriptorSet",
        "%p",
        &[
            "DescriptorSet decoration on target %p",
            "Private storage class",
            "StorageBuffer, Uniform or UniformConstant",
        ],
    );
    let loc = compute(
        &format!("{SSBO}\nOpDecorate %p Location 0"),
        &format!("{SSBO_VAR}\n%p = OpVariable %ptr_priv Private"),
    );
    one_error(
        "location_on_private",
        &loc,
        "vulkan1.1",
        "inst.decoration.storage-class",
        "OpDecorate %p Location",
        "%p",
        &["Location", "Private", "Input, Output"],
    );
}

#[test]
fn member_decorations_and_names() {
    valid(
        "member_name_valid",
        &compute(&format!("OpMemberName %S 1 \"v\"\n{SSBO}"), SSBO_VAR),
        "vulkan1.1",
    );
    one_error(
        "member_index_out_of_range",
        &compute(
            &format!("{SSBO}\nOpMemberDecorate %S 2 Offset 32"),
            SSBO_VAR,
        ),
        "vulkan1.1",
        "inst.decoration.member",
        "OpMemberDecorate %S 2 Offset 32",
        "2",
        &["member index 2 is out of bounds", "%S has 2 members"],
    );
    one_error(
        "member_decorate_not_struct",
        &compute(
            &format!("{SSBO}\nOpMemberDecorate %v4float 0 Offset 0"),
            SSBO_VAR,
        ),
        "vulkan1.1",
        "inst.decoration.member",
        "OpMemberDecorate %v4float",
        "%v4float",
        &[
            "Structure type %v4float",
            "OpTypeVector",
            "not a struct type",
        ],
    );
    one_error(
        "member_name_out_of_range",
        &compute(&format!("OpMemberName %S 5 \"v\"\n{SSBO}"), SSBO_VAR),
        "vulkan1.1",
        "inst.decoration.member",
        "OpMemberName %S 5",
        "5",
        &["OpMemberName member index 5", "%S has 2 members"],
    );
    one_error(
        "binding_on_member",
        &compute(
            &format!("{SSBO}\nOpMemberDecorate %S 0 Binding 3"),
            SSBO_VAR,
        ),
        "vulkan1.1",
        "inst.decoration.member",
        "OpMemberDecorate %S 0 Binding",
        "Binding",
        &["Binding cannot be applied to structure members"],
    );
}

#[test]
fn repeated_decorations() {
    one_error(
        "binding_twice",
        &compute(&format!("{SSBO}\nOpDecorate %buf Binding 1"), SSBO_VAR),
        "vulkan1.1",
        "inst.decoration.repeated",
        "OpDecorate %buf Binding 1",
        "Binding",
        &["%buf is decorated with Binding more than once"],
    );
    one_error(
        "block_and_buffer_block",
        &compute(
            &SSBO.replace(
                "OpDecorate %S Block",
                "OpDecorate %S Block\nOpDecorate %S BufferBlock",
            ),
            SSBO_VAR,
        ),
        "spv1.3",
        "inst.decoration.repeated",
        "OpDecorate %S BufferBlock",
        "BufferBlock",
        &["%S is decorated with both Block and BufferBlock"],
    );
    one_error(
        "relaxed_precision_on_type",
        &compute(
            &format!("{SSBO}\nOpDecorate %float RelaxedPrecision"),
            SSBO_VAR,
        ),
        "vulkan1.1",
        "inst.decoration.target",
        "OpDecorate %float RelaxedPrecision",
        "%float",
        &["RelaxedPrecision", "%float, a type"],
    );
}

#[test]
fn vulkan_resource_decorations() {
    let no_binding = compute(&SSBO.replace("OpDecorate %buf Binding 0", ""), SSBO_VAR);
    valid("no_binding_universal", &no_binding, "spv1.3");
    one_error(
        "no_binding",
        &no_binding,
        "vulkan1.1",
        "inst.decoration.vulkan-resource",
        SSBO_VAR,
        SSBO_VAR,
        &["StorageBuffer variable %buf is missing a Binding decoration"],
    );
    one_error(
        "no_block",
        &compute(&SSBO.replace("OpDecorate %S Block", ""), SSBO_VAR),
        "vulkan1.1",
        "inst.decoration.vulkan-resource",
        SSBO_VAR,
        SSBO_VAR,
        &[
            "the data type %S of StorageBuffer variable %buf",
            "decorated Block",
        ],
    );
}

#[test]
fn explicit_layout_of_buffer_blocks() {
    let arr = "%uint_4 = OpConstant %uint 4\n%arr = OpTypeArray %float %uint_4\n%mat = OpTypeMatrix %v4float 4\n\
               %B = OpTypeStruct %arr %mat\n%ptr_B = OpTypePointer StorageBuffer %B\n%bb = OpVariable %ptr_B StorageBuffer";
    let laid = "OpDecorate %B Block\nOpDecorate %bb DescriptorSet 0\nOpDecorate %bb Binding 1\n\
                OpDecorate %arr ArrayStride 4\nOpMemberDecorate %B 0 Offset 0\nOpMemberDecorate %B 1 Offset 16\n\
                OpMemberDecorate %B 1 ColMajor\nOpMemberDecorate %B 1 MatrixStride 16";
    let deco = format!("{SSBO}\n{laid}");
    valid(
        "layout_valid",
        &compute(&deco, &format!("{SSBO_VAR}\n{arr}")),
        "vulkan1.1",
    );
    one_error(
        "layout_no_offset",
        &compute(
            &deco.replace("OpMemberDecorate %B 1 Offset 16\n", ""),
            &format!("{SSBO_VAR}\n{arr}"),
        ),
        "vulkan1.1",
        "inst.explicit-layout.missing",
        "%B = OpTypeStruct",
        "%mat",
        &[
            "member 1 of %B needs an Offset",
            "StorageBuffer variable %bb",
        ],
    );
    one_error(
        "layout_no_array_stride",
        &compute(
            &deco.replace("OpDecorate %arr ArrayStride 4\n", ""),
            &format!("{SSBO_VAR}\n{arr}"),
        ),
        "spv1.3",
        "inst.explicit-layout.missing",
        "%B = OpTypeStruct",
        "%arr",
        &["member 0 of %B needs an ArrayStride decoration on its array type %arr"],
    );
    one_error(
        "layout_no_matrix_stride",
        &compute(
            &deco.replace("OpMemberDecorate %B 1 MatrixStride 16", ""),
            &format!("{SSBO_VAR}\n{arr}"),
        ),
        "vulkan1.1",
        "inst.explicit-layout.missing",
        "%B = OpTypeStruct",
        "%mat",
        &["member 1 of %B needs a MatrixStride"],
    );
}

/// A Vulkan fragment shader with an input `%in` and an output `%out`.
fn fragment(deco: &str, interface: &str) -> String {
    format!(
        "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main \"main\" {interface}
OpExecutionMode %main OriginUpperLeft
{deco}
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%ptr_in = OpTypePointer Input %v4float
%ptr_out = OpTypePointer Output %v4float
%ptr_priv = OpTypePointer Private %float
%in = OpVariable %ptr_in Input
%out = OpVariable %ptr_out Output
%p = OpVariable %ptr_priv Private
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

#[test]
fn entry_point_interface() {
    let locs = "OpDecorate %in Location 0\nOpDecorate %out Location 0";
    valid("interface_valid", &fragment(locs, "%in %out"), "vulkan1.1");
    one_error(
        "interface_type",
        &fragment(locs, "%in %out %float"),
        "vulkan1.1",
        "inst.interface.not-variable",
        "OpEntryPoint",
        "%float",
        &[
            "interface %float is defined by OpTypeFloat",
            "must be variables",
        ],
    );
    one_error(
        "interface_private_1_3",
        &fragment(locs, "%in %out %p"),
        "vulkan1.1",
        "inst.interface.not-variable",
        "OpEntryPoint",
        "%p",
        &["%p is in the Private storage class", "up to SPIR-V 1.3"],
    );
    // From SPIR-V 1.4 on, a Private variable may be listed, but only once.
    valid(
        "interface_private_1_4",
        &fragment(locs, "%in %out %p"),
        "vulkan1.2",
    );
    one_error(
        "interface_twice_1_4",
        &fragment(locs, "%in %out %p %p"),
        "vulkan1.2",
        "inst.interface.not-variable",
        "%p\nOpExecutionMode",
        "%p",
        &["%p is listed more than once"],
    );
}

#[test]
fn vulkan_locations() {
    let src = fragment("OpDecorate %in Location 0", "%in %out");
    valid("no_location_universal", &src, "spv1.3");
    one_error(
        "no_location",
        &src,
        "vulkan1.1",
        "inst.interface.location",
        "OpEntryPoint",
        "%out",
        &["output variable %out has no Location"],
    );
}

#[test]
fn vulkan_block_layout_rules() {
    let src = compute(
        &SSBO.replace(
            "OpMemberDecorate %S 1 Offset 16",
            "OpMemberDecorate %S 1 Offset 4",
        ),
        SSBO_VAR,
    );
    // Layout rules are Vulkan's: in the universal environment only the Offsets must be there.
    valid("layout_rules_universal", &src, "spv1.3");
    one_error(
        "vector_straddles",
        &src,
        "vulkan1.1",
        "inst.explicit-layout.rules",
        "%S = OpTypeStruct",
        "%v4float",
        &[
            "member 1 of %S",
            "straddles a 16-byte boundary",
            "relaxed storage buffer layout rules",
        ],
    );
    // SPIR-V 1.0 needs the extension for the StorageBuffer storage class.
    let src_1_0 = src.replacen(
        "OpCapability Shader\n",
        "OpCapability Shader\nOpExtension \"SPV_KHR_storage_buffer_storage_class\"\n",
        1,
    );
    one_error(
        "vector_misaligned_1_0",
        &src_1_0,
        "vulkan1.0",
        "inst.explicit-layout.rules",
        "%S = OpTypeStruct",
        "%v4float",
        &[
            "member 1 of %S at offset 4 is not aligned to 16",
            "standard storage buffer layout rules",
        ],
    );
    let arr = "%uint_4 = OpConstant %uint 4\n%arr = OpTypeArray %float %uint_4\n\
               %B = OpTypeStruct %arr\n%ptr_B = OpTypePointer Uniform %B\n%ub = OpVariable %ptr_B Uniform";
    let deco = |stride: u32| {
        format!(
            "{SSBO}\nOpDecorate %B Block\nOpDecorate %ub DescriptorSet 0\nOpDecorate %ub Binding 1\n\
             OpDecorate %arr ArrayStride {stride}\nOpMemberDecorate %B 0 Offset 0"
        )
    };
    valid(
        "uniform_array_stride_16",
        &compute(&deco(16), &format!("{SSBO_VAR}\n{arr}")),
        "vulkan1.1",
    );
    one_error(
        "uniform_array_stride_4",
        &compute(&deco(4), &format!("{SSBO_VAR}\n{arr}")),
        "vulkan1.1",
        "inst.explicit-layout.rules",
        "%B = OpTypeStruct",
        "%arr",
        &[
            "member 0 of %B holds an array with ArrayStride 4, not a multiple of its alignment 16",
            "uniform buffer",
        ],
    );
}
