//! The validator's type declaration and entry point rules (`typedecl.rs`,
//! `modes.rs`): for every rule a valid and an invalid module, each given
//! whole. The invalid module's one error must point at the wrong operand's
//! token and name it; where the reference SPIRV-Tools are installed, spirv-val
//! must reject each invalid module and accept each valid one (the verdicts come
//! from the oracle).

use spvlab_tests::{assert_invalid_module, assert_one_error, assert_valid_module};

const LIB: &str = "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n";

#[track_caller]
fn valid_in(name: &str, src: &str, env: &str) {
    assert_valid_module(&format!("val_decl_{name}"), src, env)
}

#[track_caller]
fn valid(name: &str, src: &str) {
    valid_in(name, src, "spv1.3")
}

/// The one error of an invalid module: its code, the token it points at (the
/// first `token` on the first line containing `line`), and words its message
/// must contain.
#[track_caller]
fn one_error_in(name: &str, src: &str, env: &str, code: &str, line: &str, token: &str, says: &[&str]) {
    assert_one_error(&format!("val_decl_{name}"), src, env, code, line, token, says)
}

#[track_caller]
fn one_error(name: &str, src: &str, code: &str, line: &str, token: &str, says: &[&str]) {
    one_error_in(name, src, "spv1.3", code, line, token, says)
}

fn lib(decls: &str) -> String {
    format!("{LIB}{decls}")
}

// Type declarations.

#[test]
fn type_declarations_valid() {
    valid(
        "types_ok",
        &lib(
            "%void = OpTypeVoid\n%bool = OpTypeBool\n%uint = OpTypeInt 32 0\n%int = OpTypeInt 32 1\n\
              %float = OpTypeFloat 32\n%v4float = OpTypeVector %float 4\n%v2bool = OpTypeVector %bool 2\n\
              %m4 = OpTypeMatrix %v4float 4\n%n = OpConstant %uint 3\n%arr = OpTypeArray %float %n\n\
              %arr2 = OpTypeArray %float %n\n%rta = OpTypeRuntimeArray %float\n%s = OpTypeStruct %float %arr\n\
              %p = OpTypePointer Function %s\n%p2 = OpTypePointer Function %s\n%fn = OpTypeFunction %void %p\n\
              %f = OpFunction %void None %fn\n%x = OpFunctionParameter %p\n%e = OpLabel\nOpReturn\nOpFunctionEnd\n",
        ),
    );
}

#[test]
fn int_width_and_signedness() {
    one_error(
        "int_width",
        &lib("%i = OpTypeInt 12 0\n"),
        "inst.typedecl.int-width",
        "%i = OpTypeInt",
        "12",
        &["12", "8, 16, 32 or 64"],
    );
    one_error(
        "int_signedness",
        &lib("%i = OpTypeInt 32 7\n"),
        "inst.typedecl.int-signedness",
        "%i = OpTypeInt",
        "7",
        &["Signedness 7", "0 or 1"],
    );
}

#[test]
fn float_width() {
    one_error(
        "float_width",
        &lib("%f = OpTypeFloat 24\n"),
        "inst.typedecl.float-width",
        "%f = OpTypeFloat",
        "24",
        &["24", "16, 32 or 64"],
    );
}

#[test]
fn vector_component_and_count() {
    one_error(
        "vector_of_vectors",
        &lib("%float = OpTypeFloat 32\n%v2 = OpTypeVector %float 2\n%vv = OpTypeVector %v2 2\n"),
        "inst.typedecl.vector-component",
        "%vv = OpTypeVector",
        "%v2",
        &["Component Type %v2", "OpTypeVector", "scalar type"],
    );
    one_error(
        "vector_count",
        &lib("%float = OpTypeFloat 32\n%vec = OpTypeVector %float 5\n"),
        "inst.typedecl.vector-count",
        "%vec = OpTypeVector",
        "5",
        &["Component Count 5", "2, 3 or 4"],
    );
    one_error(
        "vector_count_16",
        &lib("%float = OpTypeFloat 32\n%vec = OpTypeVector %float 16\n"),
        "inst.typedecl.vector-count",
        "%vec = OpTypeVector",
        "16",
        &["Vector16"],
    );
}

#[test]
fn matrix_columns() {
    one_error(
        "matrix_of_ints",
        &lib("%int = OpTypeInt 32 1\n%v2int = OpTypeVector %int 2\n%m = OpTypeMatrix %v2int 2\n"),
        "inst.typedecl.matrix-column",
        "%m = OpTypeMatrix",
        "%v2int",
        &["Column Type %v2int", "vector of floats"],
    );
    one_error(
        "matrix_5_columns",
        &lib("%float = OpTypeFloat 32\n%v2 = OpTypeVector %float 2\n%m = OpTypeMatrix %v2 5\n"),
        "inst.typedecl.matrix-column",
        "%m = OpTypeMatrix",
        "5",
        &["Column Count 5"],
    );
}

#[test]
fn operands_that_must_be_types() {
    one_error(
        "pointer_to_constant",
        &lib(
            "%uint = OpTypeInt 32 0\n%one = OpConstant %uint 1\n%p = OpTypePointer Function %one\n",
        ),
        "inst.typedecl.element-type",
        "%p = OpTypePointer",
        "%one",
        &["OpTypePointer Type %one", "OpConstant", "a type"],
    );
    one_error(
        "array_of_void",
        &lib(
            "%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%n = OpConstant %uint 2\n%a = OpTypeArray %void %n\n",
        ),
        "inst.typedecl.element-type",
        "%a = OpTypeArray",
        "%void",
        &["Element Type %void", "other than void"],
    );
    one_error(
        "struct_member_constant",
        &lib("%uint = OpTypeInt 32 0\n%n = OpConstant %uint 2\n%s = OpTypeStruct %uint %n\n"),
        "inst.typedecl.element-type",
        "%s = OpTypeStruct",
        "%n",
        &["Member Type %n"],
    );
    one_error(
        "function_param_void",
        &lib("%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%fn = OpTypeFunction %uint %void\n"),
        "inst.typedecl.element-type",
        "%fn = OpTypeFunction",
        "%void",
        &["Parameter Type %void"],
    );
}

#[test]
fn array_length() {
    one_error(
        "array_length_float",
        &lib("%float = OpTypeFloat 32\n%two = OpConstant %float 2\n%a = OpTypeArray %float %two\n"),
        "inst.typedecl.array-length",
        "%a = OpTypeArray",
        "%two",
        &["Length %two", "integer type"],
    );
    one_error(
        "array_length_zero",
        &lib("%uint = OpTypeInt 32 0\n%zero = OpConstant %uint 0\n%a = OpTypeArray %uint %zero\n"),
        "inst.typedecl.array-length",
        "%a = OpTypeArray",
        "%zero",
        &["at least 1", "0"],
    );
}

#[test]
fn duplicate_types() {
    one_error(
        "duplicate_int",
        &lib("%uint = OpTypeInt 32 0\n%uint2 = OpTypeInt 32 0\n"),
        "inst.typedecl.duplicate",
        "%uint2 = OpTypeInt",
        "%uint2 = OpTypeInt 32 0",
        &["%uint2", "%uint", "duplicate"],
    );
}

#[test]
fn function_type_used_as_a_value_type() {
    one_error(
        "function_type_variable",
        &lib(
            "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
              %f = OpFunction %void None %fn\n%e = OpLabel\n%u = OpUndef %fn\nOpReturn\nOpFunctionEnd\n",
        ),
        "inst.uses.function-type",
        "%u = OpUndef",
        "%fn",
        &["OpUndef", "function type %fn"],
    );
}

// Entry points and execution modes.

const SHADER: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n";
const MAIN: &str = "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                    %main = OpFunction %void None %fn\n%e = OpLabel\nOpReturn\nOpFunctionEnd\n";

fn shader(modes: &str) -> String {
    format!("{SHADER}{modes}{MAIN}")
}

#[test]
fn entry_points_valid() {
    valid(
        "fragment_ok",
        &shader("OpEntryPoint Fragment %main \"main\"\nOpExecutionMode %main OriginUpperLeft\n"),
    );
    valid_in(
        "compute_ok",
        &shader("OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 8 1 1\n"),
        "vulkan1.1",
    );
}

#[test]
fn no_entry_point() {
    one_error(
        "no_entry_point",
        &shader(""),
        "inst.modes.no-entry-point",
        "OpMemoryModel",
        "OpMemoryModel Logical GLSL450",
        &["Linkage"],
    );
}

#[test]
fn entry_point_must_be_a_void_function() {
    one_error(
        "entry_point_type",
        &format!(
            "{SHADER}OpEntryPoint GLCompute %one \"main\"\nOpExecutionMode %one LocalSize 1 1 1\n%uint = OpTypeInt 32 0\n%one = OpConstant %uint 1\n{MAIN}"
        ),
        "inst.modes.entry-point-function",
        "OpEntryPoint",
        "%one",
        &["Entry Point %one", "OpConstant", "OpFunction"],
    );
    one_error(
        "entry_point_params",
        &format!(
            "{SHADER}OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
             %void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%fn = OpTypeFunction %void %uint\n\
             %main = OpFunction %void None %fn\n%x = OpFunctionParameter %uint\n%e = OpLabel\nOpReturn\nOpFunctionEnd\n"
        ),
        "inst.modes.entry-point-function",
        "OpEntryPoint",
        "%main",
        &["no parameters"],
    );
}

#[test]
fn interfaces_must_be_variables() {
    let src = format!(
        "{SHADER}OpEntryPoint GLCompute %main \"main\" %one\nOpExecutionMode %main LocalSize 1 1 1\n\
         %uint = OpTypeInt 32 0\n%one = OpConstant %uint 1\n{MAIN}"
    );
    one_error(
        "interface_constant",
        &src,
        "inst.interface.not-variable",
        "OpEntryPoint",
        "%one",
        &["interface %one", "OpConstant", "variables"],
    );
}

#[test]
fn execution_mode_target() {
    one_error(
        "mode_target",
        &format!(
            "{SHADER}OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %one LocalSize 1 1 1\n%uint = OpTypeInt 32 0\n%one = OpConstant %uint 1\n{MAIN}"
        ),
        "inst.modes.mode-target",
        "OpExecutionMode",
        "%one",
        &["Entry Point %one", "OpEntryPoint"],
    );
}

#[test]
fn required_modes() {
    one_error(
        "fragment_origin",
        &shader("OpEntryPoint Fragment %main \"main\"\n"),
        "inst.modes.required-mode",
        "OpEntryPoint",
        "%main",
        &["%main", "OriginUpperLeft"],
    );
    one_error(
        "fragment_two_origins",
        &shader(
            "OpEntryPoint Fragment %main \"main\"\nOpExecutionMode %main OriginUpperLeft\nOpExecutionMode %main OriginLowerLeft\n",
        ),
        "inst.modes.required-mode",
        "OpEntryPoint",
        "%main",
        &["only one"],
    );
    one_error_in(
        "compute_local_size",
        &shader("OpEntryPoint GLCompute %main \"main\"\n"),
        "vulkan1.1",
        "inst.modes.required-mode",
        "OpEntryPoint",
        "%main",
        &["LocalSize"],
    );
}

#[test]
fn local_size_zero() {
    one_error(
        "local_size_zero",
        &shader("OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 4 0 1\n"),
        "inst.modes.local-size-zero",
        "OpExecutionMode",
        "0",
        &["4 0 1", "product of zero"],
    );
}

#[test]
fn function_used_as_a_value() {
    let src = lib("%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%fn = OpTypeFunction %void\n\
                   %g = OpFunction %void None %fn\n%ge = OpLabel\nOpReturn\nOpFunctionEnd\n\
                   %f = OpFunction %void None %fn\n%e = OpLabel\n%c = OpCopyObject %void %g\nOpReturn\nOpFunctionEnd\n");
    // Two mistakes: the function's id used as a value, and (the composite
    // rules) a copy of void. The first is at %g.
    let d = assert_invalid_module("val_decl_function_value", &src, "spv1.3");
    let u = d.iter().find(|d| d.code == "inst.uses.function").unwrap_or_else(|| panic!("{d:#?}"));
    assert_eq!(&src[u.span.start as usize..u.span.end as usize], "%g", "{u:#?}");
    assert!(u.message.contains("OpCopyObject") && u.message.contains("function %g"), "{u:#?}");
    assert_eq!(d.len(), 2, "{d:#?}");
    valid(
        "function_called",
        &lib("%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
              %g = OpFunction %void None %fn\n%ge = OpLabel\nOpReturn\nOpFunctionEnd\n\
              %f = OpFunction %void None %fn\n%e = OpLabel\n%c = OpFunctionCall %void %g\nOpReturn\nOpFunctionEnd\n"),
    );
}

// Atomics.

fn atomic(body: &str) -> String {
    lib(&format!(
        "%void = OpTypeVoid\n%uint = OpTypeInt 32 0\n%int = OpTypeInt 32 1\n%float = OpTypeFloat 32\n\
         %fn = OpTypeFunction %void\n%p = OpTypePointer Workgroup %uint\n%pf = OpTypePointer Workgroup %float\n\
         %v = OpVariable %p Workgroup\n%vf = OpVariable %pf Workgroup\n\
         %dev = OpConstant %uint 1\n%sem = OpConstant %uint 0\n%one = OpConstant %uint 1\n%ione = OpConstant %int 1\n\
         %f = OpFunction %void None %fn\n%e = OpLabel\n{body}\nOpReturn\nOpFunctionEnd\n"
    ))
}

#[test]
fn atomics_valid() {
    valid(
        "atomics_ok",
        &atomic("%a = OpAtomicIAdd %uint %v %dev %sem %one\n%b = OpAtomicLoad %float %vf %dev %sem\n\
                 OpAtomicStore %v %dev %sem %one\n%c = OpAtomicCompareExchange %uint %v %dev %sem %sem %one %one"),
    );
}

#[test]
fn atomics_result_type() {
    one_error(
        "atomic_iadd_float",
        &atomic("%a = OpAtomicIAdd %float %vf %dev %sem %one"),
        "inst.atomics.result-type",
        "%a = OpAtomicIAdd",
        "%float",
        &["OpAtomicIAdd", "%float", "int scalar"],
    );
}

#[test]
fn atomics_pointer_type() {
    one_error(
        "atomic_pointee",
        &atomic("%a = OpAtomicIAdd %int %v %dev %sem %ione"),
        "inst.atomics.pointer-type",
        "%a = OpAtomicIAdd",
        "%v",
        &["Pointer %v", "%int"],
    );
}

#[test]
fn atomics_value_type() {
    one_error(
        "atomic_value",
        &atomic("%a = OpAtomicIAdd %uint %v %dev %sem %ione"),
        "inst.atomics.value-type",
        "%a = OpAtomicIAdd",
        "%ione",
        &["%ione", "%uint"],
    );
    one_error(
        "atomic_store_value",
        &atomic("OpAtomicStore %v %dev %sem %ione"),
        "inst.atomics.value-type",
        "OpAtomicStore",
        "%ione",
        &["%ione", "%uint"],
    );
}

#[test]
fn workgroup_size_zero() {
    let module = |y: u32| {
        format!(
            "{SHADER}OpEntryPoint GLCompute %main \"main\"\nOpDecorate %wgs BuiltIn WorkgroupSize\n\
             %uint = OpTypeInt 32 0\n%v3uint = OpTypeVector %uint 3\n%u1 = OpConstant %uint 1\n%uy = OpConstant %uint {y}\n\
             %wgs = OpConstantComposite %v3uint %u1 %uy %u1\n{MAIN}"
        )
    };
    valid("workgroup_size_ok", &module(4));
    one_error(
        "workgroup_size_zero",
        &module(0),
        "inst.modes.local-size-zero",
        "OpDecorate",
        "%wgs",
        &["WorkgroupSize", "%wgs", "(1, 0, 1)", "product of zero"],
    );
}

#[test]
fn scopes_are_constants_in_shaders() {
    // A barrier whose execution scope is a spec constant: spirv-val rejects it
    // with the Shader capability; an OpConstant is fine.
    let module = |scope: &str| {
        format!(
            "{SHADER}OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n{scope}\n\
             %wg = OpConstant %uint 2\n%sem = OpConstant %uint 264\n\
             %main = OpFunction %void None %fn\n%e = OpLabel\nOpControlBarrier %s %wg %sem\nOpReturn\nOpFunctionEnd\n"
        )
    };
    valid("scope_constant", &module("%s = OpConstant %uint 2"));
    one_error(
        "scope_spec_constant",
        &module("%s = OpSpecConstant %uint 2"),
        "inst.scope.not-constant",
        "OpControlBarrier",
        "%s",
        &["OpControlBarrier", "Execution scope %s", "OpSpecConstant", "OpConstant"],
    );
}
