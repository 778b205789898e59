//! The instruction rules of the validator (arithmetic, bitwise, conversions,
//! logical and relational): for every rule a valid and an invalid module.
//!
//! Each module is assembled with the source map, validated, and its
//! diagnostics located in the text at their operands' tokens; the tests check
//! the code, the token the diagnostic points at (line and column of the wrong
//! operand) and the names and types in the message. Where the reference
//! SPIRV-Tools are installed, each invalid module is checked to be rejected by
//! spirv-val and each valid one accepted, so that the verdicts come from the
//! oracle, not from our own output.

use spvlab_core::Diagnostic;
use spvlab_core::diag::line_col;
use spvlab_tests::{assert_invalid_module, assert_one_error, assert_valid_module};

const HEAD: &str = "OpCapability Shader
OpCapability Linkage
OpMemoryModel Logical GLSL450
OpName %a \"a\"
OpName %b \"b\"
OpName %x \"x\"
OpName %y \"y\"
%void = OpTypeVoid
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v2bool = OpTypeVector %bool 2
%v2uint = OpTypeVector %uint 2
%v2float = OpTypeVector %float 2
%v3float = OpTypeVector %float 3
%m2 = OpTypeMatrix %v2float 2
%carry = OpTypeStruct %uint %uint
%ptr = OpTypePointer Function %uint
%fn = OpTypeFunction %void
%u1 = OpConstant %uint 1
%u2 = OpConstant %uint 2
%a = OpConstant %int 3
%b = OpConstant %int 4
%x = OpConstant %float 1
%y = OpConstant %float 2
%t = OpConstantTrue %bool
%vx = OpConstantComposite %v2float %x %y
%vu = OpConstantComposite %v2uint %u1 %u2
%vb = OpConstantComposite %v2bool %t %t
%mx = OpConstantComposite %m2 %vx %vx
";

/// The module with `body` in a function.
fn module(body: &str) -> String {
    format!("{HEAD}%f = OpFunction %void None %fn\n%entry = OpLabel\n{body}\nOpReturn\nOpFunctionEnd\n")
}

#[track_caller]
fn valid(name: &str, body: &str) {
    assert_valid_module(&format!("val_inst_{name}"), &module(body), "spv1.3")
}

/// An invalid module: spirv-val rejects it; our errors, each with the text it
/// points at.
#[track_caller]
fn invalid(name: &str, body: &str) -> (String, Vec<(Diagnostic, String)>) {
    let src = module(body);
    let with_text = assert_invalid_module(&format!("val_inst_{name}"), &src, "spv1.3")
        .into_iter()
        .map(|d| {
            let t = src[d.span.start as usize..d.span.end as usize].to_owned();
            (d, t)
        })
        .collect();
    (src, with_text)
}

/// The one error of an invalid module: its code, the token it points at (found
/// on the line `line`), and words the message must contain.
#[track_caller]
fn one_error(name: &str, body: &str, code: &str, line: &str, token: &str, says: &[&str]) {
    assert_one_error(&format!("val_inst_{name}"), &module(body), "spv1.3", code, line, token, says)
}

// Arithmetic.

#[test]
fn arithmetic_valid() {
    valid(
        "arith",
        "%1 = OpIAdd %int %a %b
%2 = OpISub %uint %a %u1
%3 = OpFAdd %float %x %y
%4 = OpFNegate %v2float %vx
%5 = OpUDiv %uint %u1 %u2
%6 = OpSNegate %int %a
%7 = OpDot %float %vx %vx
%8 = OpVectorTimesScalar %v2float %vx %x
%9 = OpMatrixTimesScalar %m2 %mx %x
%10 = OpMatrixTimesVector %v2float %mx %vx
%11 = OpVectorTimesMatrix %v2float %vx %mx
%12 = OpMatrixTimesMatrix %m2 %mx %mx
%13 = OpOuterProduct %m2 %vx %vx
%14 = OpIAddCarry %carry %u1 %u2
%15 = OpFMod %float %x %y",
    );
}

#[test]
fn arithmetic_result_type() {
    one_error(
        "iadd_float",
        "%s = OpIAdd %float %a %b",
        "inst.arith.result-type",
        "%s = OpIAdd",
        "%float",
        &["OpIAdd", "%float", "32-bit float", "int scalar or vector"],
    );
    one_error(
        "udiv_signed",
        "%s = OpUDiv %int %a %b",
        "inst.arith.result-type",
        "%s = OpUDiv",
        "%int",
        &["unsigned"],
    );
    one_error(
        "dot_vector",
        "%s = OpDot %v2float %vx %vx",
        "inst.arith.result-type",
        "%s = OpDot",
        "%v2float",
        &["float scalar"],
    );
    one_error(
        "carry_not_struct",
        "%s = OpIAddCarry %uint %u1 %u2",
        "inst.arith.result-type",
        "%s = OpIAddCarry",
        "%uint",
        &["struct of two members"],
    );
    one_error(
        "vts_scalar",
        "%s = OpVectorTimesScalar %float %vx %x",
        "inst.arith.result-type",
        "%s = OpVector",
        "%float",
        &[],
    );
}

#[test]
fn arithmetic_operand_type() {
    one_error(
        "fadd_int",
        "%s = OpFAdd %float %x %a",
        "inst.arith.operand-type",
        "%s = OpFAdd",
        "%a",
        &["%a", "%int", "32-bit signed int", "Result Type %float"],
    );
    one_error(
        "iadd_width",
        "%s = OpIAdd %v2uint %vu %a",
        "inst.arith.operand-type",
        "%s = OpIAdd",
        "%a",
        &["vector of 2 32-bit ints"],
    );
    one_error(
        "dot_int",
        "%s = OpDot %float %vx %vu",
        "inst.arith.operand-type",
        "%s = OpDot",
        "%vu",
        &["float vector"],
    );
    one_error(
        "vts_scalar_operand",
        "%s = OpVectorTimesScalar %v2float %vx %a",
        "inst.arith.operand-type",
        "%s = OpVector",
        "%a",
        &["%float"],
    );
    one_error(
        "mtv_vector",
        "%s = OpMatrixTimesVector %v2float %mx %x",
        "inst.arith.operand-type",
        "%s = OpMatrix",
        "%x",
        &[],
    );
    one_error(
        "carry_operand",
        "%s = OpIAddCarry %carry %u1 %a",
        "inst.arith.operand-type",
        "%s = OpIAddCarry",
        "%a",
        &["%uint"],
    );
}

#[test]
fn two_wrong_operands_are_two_diagnostics_at_two_columns() {
    let (src, d) = invalid("fadd_two", "%s = OpFAdd %float %a %b");
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].1, "%a");
    assert_eq!(d[1].1, "%b");
    let (l0, c0) = line_col(&src, d[0].0.span.start);
    let (l1, c1) = line_col(&src, d[1].0.span.start);
    assert_eq!(l0, l1);
    assert!(c0 < c1, "{c0} {c1}");
    assert!(d.iter().all(|(d, _)| d.code == "inst.arith.operand-type"));
}

// Bitwise.

#[test]
fn bitwise_valid() {
    valid(
        "bitwise",
        "%1 = OpShiftLeftLogical %uint %u1 %a
%2 = OpShiftRightArithmetic %v2uint %vu %vu
%3 = OpBitwiseAnd %int %a %u1
%4 = OpNot %v2uint %vu
%5 = OpBitFieldInsert %uint %u1 %u2 %a %u1
%6 = OpBitFieldUExtract %int %a %u1 %u1
%7 = OpBitReverse %int %a
%8 = OpBitCount %int %u1",
    );
}

#[test]
fn bitwise_result_type() {
    one_error(
        "and_bool",
        "%s = OpBitwiseAnd %bool %t %t",
        "inst.bitwise.result-type",
        "%s = OpBitwise",
        "%bool",
        &["int scalar or vector"],
    );
    one_error(
        "shift_float",
        "%s = OpShiftLeftLogical %float %a %a",
        "inst.bitwise.result-type",
        "%s = OpShift",
        "%float",
        &[],
    );
}

#[test]
fn bitwise_operand_type() {
    one_error(
        "shift_base",
        "%s = OpShiftLeftLogical %uint %x %a",
        "inst.bitwise.operand-type",
        "%s = OpShift",
        "%x",
        &["Base", "%x"],
    );
    one_error(
        "shift_count",
        "%s = OpShiftLeftLogical %v2uint %vu %a",
        "inst.bitwise.operand-type",
        "%s = OpShift",
        "%a",
        &["Shift"],
    );
    one_error(
        "not_vector",
        "%s = OpNot %uint %vu",
        "inst.bitwise.operand-type",
        "%s = OpNot",
        "%vu",
        &[],
    );
    one_error(
        "extract_base",
        "%s = OpBitFieldSExtract %int %u1 %u1 %u1",
        "inst.bitwise.operand-type",
        "%s = OpBitField",
        "%u1",
        &["%int"],
    );
    one_error(
        "insert_offset",
        "%s = OpBitFieldInsert %uint %u1 %u2 %vu %u1",
        "inst.bitwise.operand-type",
        "%s = OpBitField",
        "%vu",
        &["Offset"],
    );
    one_error(
        "reverse",
        "%s = OpBitReverse %uint %a",
        "inst.bitwise.operand-type",
        "%s = OpBitReverse",
        "%a",
        &["%uint"],
    );
}

// Conversions.

#[test]
fn conversion_valid() {
    valid(
        "conversion",
        "%1 = OpConvertFToU %uint %x
%2 = OpConvertFToS %v2uint %vx
%3 = OpConvertSToF %float %a
%4 = OpConvertUToF %v2float %vu
%5 = OpQuantizeToF16 %float %x
%6 = OpBitcast %v2float %vu
%7 = OpBitcast %int %x",
    );
}

#[test]
fn conversion_result_type() {
    one_error(
        "ftou_signed",
        "%s = OpConvertFToU %int %x",
        "inst.conversion.result-type",
        "%s = OpConvert",
        "%int",
        &["unsigned"],
    );
    one_error(
        "stof_int",
        "%s = OpConvertSToF %int %a",
        "inst.conversion.result-type",
        "%s = OpConvert",
        "%int",
        &["float"],
    );
    one_error(
        "quantize",
        "%s = OpQuantizeToF16 %int %x",
        "inst.conversion.result-type",
        "%s = OpQuantize",
        "%int",
        &["32-bit float"],
    );
    one_error(
        "bitcast_bool",
        "%s = OpBitcast %bool %a",
        "inst.conversion.result-type",
        "%s = OpBitcast",
        "%bool",
        &[],
    );
}

#[test]
fn conversion_operand_type() {
    one_error(
        "stof_float",
        "%s = OpConvertSToF %float %x",
        "inst.conversion.operand-type",
        "%s = OpConvert",
        "%x",
        &["int scalar or vector"],
    );
    one_error(
        "ftos_size",
        "%s = OpConvertFToS %int %vx",
        "inst.conversion.operand-type",
        "%s = OpConvert",
        "%vx",
        &["scalar"],
    );
    one_error(
        "uconvert_width",
        "%s = OpUConvert %uint %a",
        "inst.conversion.operand-type",
        "%s = OpUConvert",
        "%a",
        &["width"],
    );
    one_error(
        "bitcast_bits",
        "%s = OpBitcast %v2float %a",
        "inst.conversion.operand-type",
        "%s = OpBitcast",
        "%a",
        &["64 bits"],
    );
    one_error(
        "bitcast_to_ptr",
        "%s = OpBitcast %ptr %x",
        "inst.conversion.operand-type",
        "%s = OpBitcast",
        "%x",
        &["or an int scalar"],
    );
    one_error(
        "bitcast_from_ptr",
        "%v = OpVariable %ptr Function\n%s = OpBitcast %float %v",
        "inst.conversion.result-type",
        "%s = OpBitcast",
        "%float",
        &["the operand is a pointer"],
    );
}

// Logical and relational.

#[test]
fn logical_valid() {
    valid(
        "logical",
        "%1 = OpIEqual %bool %a %u1
%2 = OpSLessThan %v2bool %vu %vu
%3 = OpFOrdLessThan %bool %x %y
%4 = OpIsNan %v2bool %vx
%5 = OpLogicalAnd %bool %t %t
%6 = OpLogicalNot %v2bool %vb
%7 = OpAny %bool %vb
%8 = OpSelect %v2float %vb %vx %vx
%9 = OpSelect %int %t %a %b",
    );
}

#[test]
fn logical_result_type() {
    one_error(
        "iequal_int",
        "%s = OpIEqual %int %a %b",
        "inst.logical.result-type",
        "%s = OpIEqual",
        "%int",
        &["bool scalar or vector"],
    );
    one_error(
        "any_vector",
        "%s = OpAny %v2bool %vb",
        "inst.logical.result-type",
        "%s = OpAny",
        "%v2bool",
        &["bool scalar"],
    );
    one_error(
        "select_struct",
        "%s = OpSelect %m2 %t %mx %mx",
        "inst.logical.result-type",
        "%s = OpSelect",
        "%m2",
        &["1.4"],
    );
    one_error(
        "select_pointer",
        "%v = OpVariable %ptr Function\n%w = OpVariable %ptr Function\n%s = OpSelect %ptr %t %v %w",
        "inst.logical.result-type",
        "%s = OpSelect",
        "%ptr",
        &["VariablePointers"],
    );
}

#[test]
fn logical_operand_type() {
    one_error(
        "flt_int",
        "%s = OpFOrdLessThan %bool %x %a",
        "inst.logical.operand-type",
        "%s = OpFOrd",
        "%a",
        &["%float"],
    );
    one_error(
        "slt_float",
        "%s = OpSLessThan %bool %a %x",
        "inst.logical.operand-type",
        "%s = OpSLess",
        "%x",
        &["int"],
    );
    one_error(
        "ieq_size",
        "%s = OpIEqual %bool %a %vu",
        "inst.logical.operand-type",
        "%s = OpIEqual",
        "%vu",
        &["scalar"],
    );
    one_error(
        "and_int",
        "%s = OpLogicalAnd %bool %t %a",
        "inst.logical.operand-type",
        "%s = OpLogicalAnd",
        "%a",
        &["%bool"],
    );
    one_error(
        "any_scalar",
        "%s = OpAny %bool %t",
        "inst.logical.operand-type",
        "%s = OpAny",
        "%t",
        &["bool vector"],
    );
    one_error(
        "isnan_int",
        "%s = OpIsNan %bool %a",
        "inst.logical.operand-type",
        "%s = OpIsNan",
        "%a",
        &["float"],
    );
    one_error(
        "select_object",
        "%s = OpSelect %int %t %a %u1",
        "inst.logical.operand-type",
        "%s = OpSelect",
        "%u1",
        &["%int"],
    );
    one_error(
        "select_cond",
        "%s = OpSelect %v2float %t %vx %vx",
        "inst.logical.operand-type",
        "%s = OpSelect",
        "%t",
        &["2 components"],
    );
}

#[test]
fn branch_condition_is_a_bool() {
    let branch = |c: &str| format!("OpSelectionMerge %m None\nOpBranchConditional {c} %m %m\n%m = OpLabel");
    valid("branch_bool", &branch("%t"));
    one_error(
        "branch_uint",
        &branch("%u1"),
        "inst.logical.operand-type",
        "OpBranchConditional",
        "%u1",
        &["Condition", "%uint", "bool scalar"],
    );
}
