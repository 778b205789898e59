//! Extended instructions: OpExtInst of the GLSL.std.450 and OpenCL.std sets
//! (the types of their results and operands), and OpExtInstImport (SPIR-V spec
//! 3.52.1 "Extension Instructions"; the GLSL.std.450 and OpenCL.std extended
//! instruction set specifications; spirv-val's validate_extensions).
//! Instructions whose result or operand types belong to extensions whose rules
//! are not written here (cooperative vectors and matrices) are left alone.

use super::Context;
use super::operand::{describe, describe_operand, operand_id, operand_type};
use super::rules::Rule;
use super::walk::{Lookups, ModelLimit};
use super::family::{Check, Family, Instructions};
use crate::binary::parse::decode_string;
use crate::grammar::ext_inst::{glsl_std_450 as g, opencl_std as cl};
use crate::grammar::{capability, fp_encoding, op, storage_class};
use crate::ir::Type;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.extinst.result-type",
        summary: "An extended instruction's Result Type must be of the kind the instruction computes.",
        explanation: "The GLSL.std.450 specification (and the OpenCL.std one) gives each \
                      instruction its Result Type: the floating-point functions (Sqrt, FMix, \
                      Pow...) a float scalar or vector, the trigonometric and exponential ones a \
                      16- or 32-bit one, the integer ones (SAbs, UMin, FindILsb...) an int scalar \
                      or vector, Length and Distance a float scalar, Cross a vector of 3 floats, \
                      MatrixInverse a square matrix, ModfStruct and FrexpStruct a struct of two \
                      members, the Pack functions a 32-bit int (PackDouble2x32 a 64-bit float), \
                      the Unpack functions a vector of 2 or 4 32-bit floats (UnpackDouble2x32 a \
                      vector of 2 32-bit ints); OpenCL.std vectors have 2, 3, 4, 8 or 16 \
                      components. Fix: use the instruction that matches the type (FAbs for \
                      floats, SAbs for integers) or the right Result Type.",
    },
    Rule {
        code: "inst.extinst.operand-type",
        summary: "An extended instruction's operands must have the types the instruction requires.",
        explanation: "The GLSL.std.450 specification (and the OpenCL.std one): the operands of \
                      most functions have exactly the Result Type; those of the integer functions \
                      are int scalars or vectors with the Result Type's component count and \
                      width (their signedness may differ); Length, Distance and Determinant take \
                      operands whose component type is the Result Type; Modf, Frexp and the \
                      Interpolate functions take a pointer to the Result Type (for Interpolate, \
                      in the Input storage class); Ldexp's Exp is an int with the Result Type's \
                      component count; the Pack and Unpack functions take the vector or scalar \
                      they convert. Fix: convert the operand first, or pass the value of the \
                      right type.",
    },
    Rule {
        code: "inst.extinst.float-encoding",
        summary: "GLSL.std.450 and OpenCL.std instructions take no BFloat16 or 8-bit float types.",
        explanation: "GLSL.std.450 and OpenCL.std define their floating-point types as \
                      OpTypeFloat with the IEEE 754 encoding: a float declared with the BFloat16KHR, \
                      Float8E4M3EXT or Float8E5M2EXT encoding (SPV_KHR_bfloat16, SPV_EXT_float8) \
                      cannot be the Result Type nor an operand's type of their instructions. Fix: \
                      convert to a 16- or 32-bit IEEE float first.",
    },
    Rule {
        code: "inst.extinst.capability",
        summary: "InterpolateAtCentroid, InterpolateAtSample and InterpolateAtOffset need the InterpolationFunction capability.",
        explanation: "GLSL.std.450 specification: the interpolation functions require the \
                      InterpolationFunction capability. Fix: add OpCapability InterpolationFunction.",
    },
    Rule {
        code: "inst.extinst.execution-model",
        summary: "InterpolateAtCentroid, InterpolateAtSample and InterpolateAtOffset are for fragment shaders.",
        explanation: "GLSL.std.450 specification: the interpolation functions are \
                      \"only valid in the Fragment Execution Model\"; the rule applies to every \
                      function an entry point of another execution model calls. Fix: \
                      interpolate only in fragment shaders.",
    },
    Rule {
        code: "inst.extinst.unsupported",
        summary: "GLSL.std.450 IMix is not an instruction to use.",
        explanation: "GLSL.std.450 specification: IMix (number 47) was removed from the set; \
                      spirv-val refuses it. Fix: use OpSelect, or FMix for floats.",
    },
    Rule {
        code: "inst.extinst.import",
        summary: "A NonSemantic.* extended instruction set needs SPV_KHR_non_semantic_info before SPIR-V 1.6.",
        explanation: "SPV_KHR_non_semantic_info: an OpExtInstImport of a set whose name begins \
                      with \"NonSemantic.\" is allowed only when that extension is declared, or \
                      from SPIR-V 1.6, which includes it. Fix: add \
                      OpExtension \"SPV_KHR_non_semantic_info\".",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Any(run), finish: None },
};

const RT: &str = "inst.extinst.result-type";
const OT: &str = "inst.extinst.operand-type";

/// Whether the pass has anything to check in instruction `opcode`.
pub(super) const fn applies(opcode: u16) -> bool {
    opcode == op::OpExtInst || opcode == op::OpExtInstImport
}

/// Check instruction `i` (see [`applies`]).
#[inline(never)]
fn run(cx: &mut Context<'_>, i: usize, opcode: u16, lookups: &mut Lookups) {
    if opcode == op::OpExtInstImport {
        return import(cx, i);
    }
    let Some(&set) = cx.insts()[i].operands.get(2) else { return };
    let Some(imp) = cx.def_inst(set).filter(|d| d.opcode == op::OpExtInstImport) else { return };
    let name = imp.operands.get(1..).unwrap_or(&[]);
    let glsl = if is_string(name, "GLSL.std.450") {
        true
    } else if is_string(name, "OpenCL.std") {
        false
    } else {
        return;
    };
    let Some(rt) = cx.ir().result_type(i) else { return };
    let Some(&number) = cx.insts()[i].operands.get(3) else { return };
    if glsl && matches!(number, g::InterpolateAtCentroid | g::InterpolateAtSample | g::InterpolateAtOffset) {
        lookups.limited.push((i, ModelLimit::FragmentOnly("inst.extinst.execution-model")));
    }
    let n = cx.operands(i).len();
    // Leave types of other extensions (cooperative vectors...) to their rules.
    if !known(cx, rt) {
        return;
    }
    let mut encoded = bad_encoding(cx, rt);
    for k in 4..n {
        if let Some(t) = operand_type(cx, i, k).filter(|_| id_operand(cx, i, k)) {
            if !known(cx, t) {
                return;
            }
            encoded |= bad_encoding(cx, t);
        }
    }
    let set_name = if glsl { "GLSL.std.450" } else { "OpenCL.std" };
    let mut x = Ext { i, rt, n, set: set_name, number };
    if encoded {
        return encoding(cx, &x);
    }
    if glsl {
        x.glsl(cx);
    } else {
        x.opencl(cx);
    }
}

/// Whether the literal string in `words` (nul-terminated, little-endian
/// bytes) is `name`, without decoding it.
fn is_string(words: &[u32], name: &str) -> bool {
    let mut bytes = words.iter().flat_map(|w| w.to_le_bytes());
    name.bytes().all(|b| bytes.next() == Some(b)) && bytes.next() == Some(0)
}

/// Whether operand `k` of instruction `i` is an id (not a literal such as
/// OpenCL.std vloadn's component count).
fn id_operand(cx: &Context<'_>, i: usize, k: usize) -> bool {
    cx.operands(i).get(k).is_some_and(|o| o.kind.is_id())
}

/// Whether `ty` is a type these rules know (not an extension's opaque type).
fn known(cx: &Context<'_>, ty: u32) -> bool {
    cx.ir().ty(ty).is_some_and(|t| !matches!(t.ty, Type::Other { .. } | Type::Opaque { .. }))
}

fn ty<'a>(cx: &'a Context<'_>, id: u32) -> Option<&'a Type> {
    cx.ir().ty(id).map(|t| &t.ty)
}

/// spirv-val's GetComponentType: the type itself for a scalar, the component
/// of a vector (and of a matrix's columns), the element of an array.
fn component(cx: &Context<'_>, t: u32) -> Option<u32> {
    match ty(cx, t)? {
        Type::Int { .. } | Type::Float { .. } | Type::Bool | Type::Pointer { .. } => Some(t),
        Type::Vector { component, .. } => Some(*component),
        Type::Array { element, .. } | Type::RuntimeArray { element } => Some(*element),
        Type::Matrix { column, .. } => component(cx, *column),
        _ => None,
    }
}

/// spirv-val's GetDimension: 1 for a scalar, the components of a vector, the
/// columns of a matrix, 0 otherwise.
fn dimension(cx: &Context<'_>, t: u32) -> u32 {
    match ty(cx, t) {
        Some(Type::Int { .. } | Type::Float { .. } | Type::Bool) => 1,
        Some(Type::Vector { count, .. }) => *count,
        Some(Type::Matrix { columns, .. }) => *columns,
        _ => 0,
    }
}

/// The component width of a scalar, vector or matrix type (bool: 1, else 0).
fn width(cx: &Context<'_>, t: u32) -> u32 {
    match component(cx, t).and_then(|c| ty(cx, c)) {
        Some(Type::Int { width, .. } | Type::Float { width, .. }) => *width,
        Some(Type::Bool) => 1,
        _ => 0,
    }
}

fn is_float(cx: &Context<'_>, t: u32) -> bool {
    matches!(ty(cx, t), Some(Type::Float { .. }))
}

fn is_int(cx: &Context<'_>, t: u32) -> bool {
    matches!(ty(cx, t), Some(Type::Int { .. }))
}

fn is_vector_of(cx: &Context<'_>, t: u32, f: fn(&Context<'_>, u32) -> bool) -> bool {
    matches!(ty(cx, t), Some(Type::Vector { component, .. }) if f(cx, *component))
}

fn float_sv(cx: &Context<'_>, t: u32) -> bool {
    is_float(cx, t) || is_vector_of(cx, t, is_float)
}

fn int_sv(cx: &Context<'_>, t: u32) -> bool {
    is_int(cx, t) || is_vector_of(cx, t, is_int)
}

/// A float vector of `count` components of `bits` bits.
fn float_vec(cx: &Context<'_>, t: u32, count: u32, bits: u32) -> bool {
    is_vector_of(cx, t, is_float) && dimension(cx, t) == count && width(cx, t) == bits
}

/// An int vector of `count` components of `bits` bits.
fn int_vec(cx: &Context<'_>, t: u32, count: u32, bits: u32) -> bool {
    is_vector_of(cx, t, is_int) && dimension(cx, t) == count && width(cx, t) == bits
}

fn scalar_of(cx: &Context<'_>, t: u32, float: bool, bits: u32) -> bool {
    (if float { is_float(cx, t) } else { is_int(cx, t) }) && (bits == 0 || width(cx, t) == bits)
}

/// A pointer type's (storage class, pointee); the pointee is `None` for an
/// untyped pointer.
fn pointer(cx: &Context<'_>, t: Option<u32>) -> Option<(u32, Option<u32>)> {
    match ty(cx, t?)? {
        Type::Pointer { storage, pointee } => Some((*storage, *pointee)),
        _ => None,
    }
}

/// The (rows, columns, component) of a matrix type.
fn matrix(cx: &Context<'_>, t: Option<u32>) -> Option<(u32, u32, u32)> {
    match ty(cx, t?)? {
        Type::Matrix { column, columns } => match ty(cx, *column)? {
            Type::Vector { component, count } => Some((*count, *columns, *component)),
            _ => None,
        },
        _ => None,
    }
}

/// The two member types of a struct type of two members.
fn pair(cx: &Context<'_>, t: u32) -> Option<(u32, u32)> {
    match ty(cx, t)? {
        Type::Struct { members } if members.len() == 2 => Some((members[0].ty, members[1].ty)),
        _ => None,
    }
}

/// A float type (scalar or vector) with a non-IEEE encoding that spirv-val
/// refuses in these sets: BFloat16, or an 8-bit E4M3/E5M2 float.
fn bad_encoding(cx: &Context<'_>, t: u32) -> bool {
    let scalar = match ty(cx, t) {
        Some(Type::Vector { component, .. }) => *component,
        _ => t,
    };
    match ty(cx, scalar) {
        Some(Type::Float { width: 16, encoding: Some(e) }) => *e == fp_encoding::BFloat16KHR,
        Some(Type::Float { width: 8, encoding: Some(e) }) => {
            *e == fp_encoding::Float8E4M3EXT || *e == fp_encoding::Float8E5M2EXT
        }
        _ => false,
    }
}

/// Report BFloat16 and 8-bit floats in the result and the operands (the type
/// rules then keep quiet).
fn encoding(cx: &mut Context<'_>, x: &Ext) {
    if bad_encoding(cx, x.rt) {
        let got = describe(cx, x.rt);
        let m = format!("{} {}: Result Type {got} is a BFloat16 or 8-bit float type, which the set does not support", x.set, x.name());
        cx.error_at("inst.extinst.float-encoding", x.i, 0, m).label = String::from("not an IEEE 754 float");
    }
    for k in 4..x.n {
        if id_operand(cx, x.i, k) && operand_type(cx, x.i, k).is_some_and(|t| bad_encoding(cx, t)) {
            let got = describe_operand(cx, x.i, k);
            let m = format!("{} {}: operand {got} is a BFloat16 or 8-bit float, which the set does not support", x.set, x.name());
            cx.error_at("inst.extinst.float-encoding", x.i, k, m).label = String::from("not an IEEE 754 float");
        }
    }
}

/// The OpExtInstImport rule: NonSemantic sets need SPV_KHR_non_semantic_info
/// before SPIR-V 1.6.
fn import(cx: &mut Context<'_>, i: usize) {
    if cx.version >= (1, 6) {
        return;
    }
    let name = decode_string(cx.insts()[i].operands.get(1..).unwrap_or(&[]));
    if !name.starts_with("NonSemantic.") || cx.declared().has_ext("SPV_KHR_non_semantic_info") {
        return;
    }
    let m = format!(
        "OpExtInstImport \"{name}\": NonSemantic extended instruction sets cannot be declared without SPV_KHR_non_semantic_info before SPIR-V 1.6"
    );
    let d = cx.error_at("inst.extinst.import", i, 1, m);
    d.label = String::from("needs SPV_KHR_non_semantic_info");
    d.help = Some(String::from("add OpExtension \"SPV_KHR_non_semantic_info\""));
}

/// One extended instruction being checked.
struct Ext {
    i: usize,
    rt: u32,
    /// The number of operands, result type and id included.
    n: usize,
    set: &'static str,
    number: u32,
}

impl Ext {
    /// The type of operand `k` (result type and id counted).
    fn op(&self, cx: &Context<'_>, k: usize) -> Option<u32> {
        operand_type(cx, self.i, k)
    }

    /// The instruction's name in its set ("FMix"), for messages.
    fn name(&self) -> &'static str {
        crate::grammar::ext_inst_set(self.set)
            .and_then(|s| s.by_opcode(self.number))
            .map_or("instruction", |d| d.name)
    }

    /// The set's name of operand `k` ("x", "minVal").
    fn operand_name(&self, k: usize) -> &'static str {
        crate::grammar::ext_inst_set(self.set)
            .and_then(|s| s.by_opcode(self.number))
            .and_then(|d| d.operands.get(k.wrapping_sub(4)))
            .map_or("operand", |o| o.name.trim_matches('\''))
    }

    fn bad_result(&self, cx: &mut Context<'_>, expected: &str) {
        let got = describe(cx, self.rt);
        let m = format!("{} {}: Result Type {got} must be {expected}", self.set, self.name());
        cx.error_at(RT, self.i, 0, m).label = format!("must be {expected}");
    }

    fn bad_operand(&self, cx: &mut Context<'_>, k: usize, expected: &str) {
        let what = self.operand_name(k);
        let got = if operand_id(cx, self.i, k).is_some() {
            describe_operand(cx, self.i, k)
        } else {
            String::from("missing")
        };
        let m = format!("{} {}: operand {what} is {got}, must be {expected}", self.set, self.name());
        cx.error_at(OT, self.i, k, m).label = format!("must be {expected}");
    }

    /// Operand `k` must have the Result Type.
    fn same_as_result(&self, cx: &mut Context<'_>, k: usize) {
        if self.op(cx, k) != Some(self.rt) {
            let want = format!("of the Result Type {}", cx.name(self.rt));
            self.bad_operand(cx, k, &want);
        }
    }

    fn all_same_as_result(&self, cx: &mut Context<'_>) {
        for k in 4..self.n {
            self.same_as_result(cx, k);
        }
    }

    fn glsl(&mut self, cx: &mut Context<'_>) {
        let rt = self.rt;
        match self.number {
            g::Round | g::RoundEven | g::FAbs | g::Trunc | g::FSign | g::Floor | g::Ceil | g::Fract
            | g::Sqrt | g::InverseSqrt | g::FMin | g::FMax | g::FClamp | g::FMix | g::Step
            | g::SmoothStep | g::Fma | g::Normalize | g::FaceForward | g::Reflect | g::NMin | g::NMax
            | g::NClamp => {
                if !float_sv(cx, rt) {
                    return self.bad_result(cx, "a float scalar or vector");
                }
                self.all_same_as_result(cx);
            }
            g::SAbs | g::SSign | g::UMin | g::SMin | g::UMax | g::SMax | g::UClamp | g::SClamp
            | g::FindILsb | g::FindUMsb | g::FindSMsb => {
                if !int_sv(cx, rt) {
                    return self.bad_result(cx, "an int scalar or vector");
                }
                let (dim, bits) = (dimension(cx, rt), width(cx, rt));
                let msb = matches!(self.number, g::FindUMsb | g::FindSMsb);
                if msb && bits != 32 && self.n > 4 {
                    return self.bad_result(cx, "of 32-bit components (FindUMsb and FindSMsb are limited to them)");
                }
                for k in 4..self.n {
                    let ok = self.op(cx, k).is_some_and(|t| int_sv(cx, t) && dimension(cx, t) == dim && width(cx, t) == bits);
                    if !ok {
                        let want = if dim < 2 {
                            format!("a {bits}-bit int scalar, like the Result Type")
                        } else {
                            format!("a vector of {dim} {bits}-bit ints, like the Result Type")
                        };
                        self.bad_operand(cx, k, &want);
                    }
                }
            }
            g::Radians | g::Degrees | g::Sin | g::Cos | g::Tan | g::Asin | g::Acos | g::Atan | g::Sinh
            | g::Cosh | g::Tanh | g::Asinh | g::Acosh | g::Atanh | g::Exp | g::Exp2 | g::Log | g::Log2
            | g::Atan2 | g::Pow => {
                if !float_sv(cx, rt) || !matches!(width(cx, rt), 16 | 32) {
                    return self.bad_result(cx, "a 16- or 32-bit float scalar or vector");
                }
                self.all_same_as_result(cx);
            }
            g::Determinant => {
                match matrix(cx, self.op(cx, 4)) {
                    Some((r, c, _)) if r == c => {}
                    _ => return self.bad_operand(cx, 4, "a square matrix"),
                }
                let comp = matrix(cx, self.op(cx, 4)).map(|m| m.2);
                if comp != Some(rt) {
                    let want = format!("a matrix whose components have the Result Type {}", cx.name(rt));
                    self.bad_operand(cx, 4, &want);
                }
            }
            g::MatrixInverse => {
                match matrix(cx, Some(rt)) {
                    Some((r, c, _)) if r == c => {}
                    _ => return self.bad_result(cx, "a square matrix"),
                }
                self.same_as_result(cx, 4);
            }
            g::Modf => {
                if !float_sv(cx, rt) {
                    return self.bad_result(cx, "a float scalar or vector");
                }
                self.same_as_result(cx, 4);
                match pointer(cx, self.op(cx, 5)) {
                    None => self.bad_operand(cx, 5, "a pointer"),
                    Some((_, p)) if p != Some(rt) => {
                        let want = format!("a pointer to the Result Type {}", cx.name(rt));
                        self.bad_operand(cx, 5, &want);
                    }
                    _ => {}
                }
            }
            g::ModfStruct => {
                let Some((a, _)) = pair(cx, rt).filter(|&(a, b)| float_sv(cx, a) && a == b) else {
                    return self.bad_result(cx, "a struct of two members of the same float scalar or vector type");
                };
                if self.op(cx, 4) != Some(a) {
                    let want = format!("of the Result Type's member type {}", cx.name(a));
                    self.bad_operand(cx, 4, &want);
                }
            }
            g::Frexp => {
                if !float_sv(cx, rt) {
                    return self.bad_result(cx, "a float scalar or vector");
                }
                self.same_as_result(cx, 4);
                let int16 = cx.declared().has_ext("SPV_AMD_gpu_shader_int16");
                match pointer(cx, self.op(cx, 5)) {
                    None => self.bad_operand(cx, 5, "a pointer"),
                    Some((_, p)) => {
                        let ok = p.is_some_and(|p| int_sv(cx, p) && (width(cx, p) == 32 || (int16 && width(cx, p) == 16)));
                        if !ok {
                            let want = if int16 {
                                "a pointer to a 16- or 32-bit int scalar or vector"
                            } else {
                                "a pointer to a 32-bit int scalar or vector"
                            };
                            self.bad_operand(cx, 5, want);
                        } else if p.map(|p| dimension(cx, p)) != Some(dimension(cx, rt)) {
                            let want = format!("a pointer to ints with the Result Type's {} components", dimension(cx, rt));
                            self.bad_operand(cx, 5, &want);
                        }
                    }
                }
            }
            g::Ldexp => {
                if !float_sv(cx, rt) {
                    return self.bad_result(cx, "a float scalar or vector");
                }
                self.same_as_result(cx, 4);
                let e = self.op(cx, 5);
                if !e.is_some_and(|e| int_sv(cx, e)) {
                    self.bad_operand(cx, 5, "an int scalar or vector");
                } else if e.map(|e| dimension(cx, e)) != Some(dimension(cx, rt)) {
                    let want = format!("an int scalar or vector of the Result Type's {} components", dimension(cx, rt));
                    self.bad_operand(cx, 5, &want);
                }
            }
            g::FrexpStruct => {
                let int16 = cx.declared().has_ext("SPV_AMD_gpu_shader_int16");
                let ok = pair(cx, rt).filter(|&(a, b)| {
                    float_sv(cx, a)
                        && int_sv(cx, b)
                        && (width(cx, b) == 32 || (int16 && width(cx, b) == 16))
                        && dimension(cx, a) == dimension(cx, b)
                });
                let Some((a, _)) = ok else {
                    let want = if int16 {
                        "a struct of a float scalar or vector and a 16- or 32-bit int scalar or vector of as many components"
                    } else {
                        "a struct of a float scalar or vector and a 32-bit int scalar or vector of as many components"
                    };
                    return self.bad_result(cx, want);
                };
                if self.op(cx, 4) != Some(a) {
                    let want = format!("of the Result Type's first member type {}", cx.name(a));
                    self.bad_operand(cx, 4, &want);
                }
            }
            g::PackSnorm4x8 | g::PackUnorm4x8 | g::PackSnorm2x16 | g::PackUnorm2x16 | g::PackHalf2x16 => {
                if !scalar_of(cx, rt, false, 32) {
                    return self.bad_result(cx, "a 32-bit int scalar");
                }
                let size = if matches!(self.number, g::PackSnorm4x8 | g::PackUnorm4x8) { 4 } else { 2 };
                if !self.op(cx, 4).is_some_and(|t| float_vec(cx, t, size, 32)) {
                    self.bad_operand(cx, 4, &format!("a vector of {size} 32-bit floats"));
                }
            }
            g::PackDouble2x32 => {
                if !scalar_of(cx, rt, true, 64) {
                    return self.bad_result(cx, "a 64-bit float scalar");
                }
                if !self.op(cx, 4).is_some_and(|t| int_vec(cx, t, 2, 32)) {
                    self.bad_operand(cx, 4, "a vector of 2 32-bit ints");
                }
            }
            g::UnpackSnorm4x8 | g::UnpackUnorm4x8 | g::UnpackSnorm2x16 | g::UnpackUnorm2x16 | g::UnpackHalf2x16 => {
                let size = if matches!(self.number, g::UnpackSnorm4x8 | g::UnpackUnorm4x8) { 4 } else { 2 };
                if !float_vec(cx, rt, size, 32) {
                    return self.bad_result(cx, &format!("a vector of {size} 32-bit floats"));
                }
                if !self.op(cx, 4).is_some_and(|t| scalar_of(cx, t, false, 32)) {
                    self.bad_operand(cx, 4, "a 32-bit int scalar");
                }
            }
            g::UnpackDouble2x32 => {
                if !int_vec(cx, rt, 2, 32) {
                    return self.bad_result(cx, "a vector of 2 32-bit ints");
                }
                if !self.op(cx, 4).is_some_and(|t| scalar_of(cx, t, true, 64)) {
                    self.bad_operand(cx, 4, "a 64-bit float scalar");
                }
            }
            g::Length | g::Distance => {
                if !is_float(cx, rt) {
                    return self.bad_result(cx, "a float scalar");
                }
                let mut dims = [0u32; 2];
                for k in 4..self.n.min(6) {
                    let t = self.op(cx, k);
                    if !t.is_some_and(|t| float_sv(cx, t) && component(cx, t) == Some(rt)) {
                        let want = format!("a float scalar or vector whose components have the Result Type {}", cx.name(rt));
                        self.bad_operand(cx, k, &want);
                        return;
                    }
                    dims[k - 4] = t.map_or(0, |t| dimension(cx, t));
                }
                if self.number == g::Distance && self.n >= 6 && dims[0] != dims[1] {
                    self.bad_operand(cx, 5, &format!("of {} components, like P0", dims[0]));
                }
            }
            g::Cross => {
                if !is_vector_of(cx, rt, is_float) || dimension(cx, rt) != 3 {
                    return self.bad_result(cx, "a vector of 3 floats");
                }
                self.all_same_as_result(cx);
            }
            g::Refract => {
                if !float_sv(cx, rt) {
                    return self.bad_result(cx, "a float scalar or vector");
                }
                self.same_as_result(cx, 4);
                self.same_as_result(cx, 5);
                if !self.op(cx, 6).is_some_and(|t| is_float(cx, t)) {
                    self.bad_operand(cx, 6, "a float scalar");
                }
            }
            g::InterpolateAtCentroid | g::InterpolateAtSample | g::InterpolateAtOffset => self.interpolate(cx),
            g::IMix => {
                let m = format!("{} {}: this extended instruction is not supported", self.set, self.name());
                cx.error_at("inst.extinst.unsupported", self.i, 3, m).label = String::from("not supported");
            }
            _ => {}
        }
    }

    fn interpolate(&self, cx: &mut Context<'_>) {
        let rt = self.rt;
        let declared = cx.declared();
        if !declared.has_cap(capability::InterpolationFunction) {
            let m = format!("{} {} requires the InterpolationFunction capability", self.set, self.name());
            let d = cx.error_at("inst.extinst.capability", self.i, 3, m);
            d.label = String::from("needs InterpolationFunction");
            d.help = Some(String::from("add OpCapability InterpolationFunction"));
            return;
        }
        let half = declared.has_ext("SPV_AMD_gpu_shader_half_float");
        let bits = if half { "16- or 32-bit" } else { "32-bit" };
        let w = width(cx, rt);
        if !float_sv(cx, rt) || !(w == 32 || (half && w == 16)) {
            return self.bad_result(cx, &format!("a {bits} float scalar or vector"));
        }
        // Before HLSL legalization, an OpLoad's pointer stands for the interpolant.
        let mut interpolant = self.op(cx, 4);
        if cx.opts.before_hlsl_legalization
            && let Some(d) = operand_id(cx, self.i, 4).and_then(|id| cx.def(id))
            && cx.insts()[d].opcode == op::OpLoad
        {
            interpolant = operand_type(cx, d, 2);
        }
        match pointer(cx, interpolant) {
            None => return self.bad_operand(cx, 4, "a pointer"),
            Some((_, p)) if p != Some(rt) => {
                let want = format!("a pointer to the Result Type {}", cx.name(rt));
                return self.bad_operand(cx, 4, &want);
            }
            Some((sc, _)) if sc != storage_class::Input => {
                return self.bad_operand(cx, 4, "a pointer in the Input storage class");
            }
            _ => {}
        }
        if self.number == g::InterpolateAtSample && !self.op(cx, 5).is_some_and(|t| scalar_of(cx, t, false, 32)) {
            self.bad_operand(cx, 5, "a 32-bit int scalar");
        }
        if self.number == g::InterpolateAtOffset {
            let ok = self.op(cx, 5).is_some_and(|t| float_vec(cx, t, 2, 32) || (half && float_vec(cx, t, 2, 16)));
            if !ok {
                self.bad_operand(cx, 5, &format!("a vector of 2 {bits} floats"));
            }
        }
    }

    fn opencl(&mut self, cx: &mut Context<'_>) {
        let rt = self.rt;
        let float = match self.number {
            cl::acos | cl::acosh | cl::acospi | cl::asin | cl::asinh | cl::asinpi | cl::atan | cl::atan2
            | cl::atanh | cl::atanpi | cl::atan2pi | cl::cbrt | cl::ceil | cl::copysign | cl::cos | cl::cosh
            | cl::cospi | cl::erfc | cl::erf | cl::exp | cl::exp2 | cl::exp10 | cl::expm1 | cl::fabs
            | cl::fdim | cl::floor | cl::fma | cl::fmax | cl::fmin | cl::fmod | cl::hypot | cl::lgamma
            | cl::log | cl::log2 | cl::log10 | cl::log1p | cl::logb | cl::mad | cl::maxmag | cl::minmag
            | cl::nextafter | cl::pow | cl::powr | cl::remainder | cl::rint | cl::round | cl::rsqrt
            | cl::sin | cl::sinh | cl::sinpi | cl::sqrt | cl::tan | cl::tanh | cl::tanpi | cl::tgamma
            | cl::trunc | cl::half_cos | cl::half_divide | cl::half_exp | cl::half_exp2 | cl::half_exp10
            | cl::half_log | cl::half_log2 | cl::half_log10 | cl::half_powr | cl::half_recip
            | cl::half_rsqrt | cl::half_sin | cl::half_sqrt | cl::half_tan | cl::native_cos
            | cl::native_divide | cl::native_exp | cl::native_exp2 | cl::native_exp10 | cl::native_log
            | cl::native_log2 | cl::native_log10 | cl::native_powr | cl::native_recip | cl::native_rsqrt
            | cl::native_sin | cl::native_sqrt | cl::native_tan | cl::fclamp | cl::degrees
            | cl::fmax_common | cl::fmin_common | cl::mix | cl::radians | cl::step | cl::smoothstep
            | cl::sign => true,
            cl::s_abs | cl::s_abs_diff | cl::s_add_sat | cl::u_add_sat | cl::s_hadd | cl::u_hadd
            | cl::s_rhadd | cl::u_rhadd | cl::s_clamp | cl::u_clamp | cl::clz | cl::ctz | cl::s_mad_hi
            | cl::u_mad_sat | cl::s_mad_sat | cl::s_max | cl::u_max | cl::s_min | cl::u_min
            | cl::s_mul_hi | cl::rotate | cl::s_sub_sat | cl::u_sub_sat | cl::popcount | cl::u_abs
            | cl::u_abs_diff | cl::u_mul_hi | cl::u_mad_hi => false,
            cl::fract | cl::modf | cl::sincos => return self.opencl_pointer_out(cx),
            cl::cross => return self.opencl_geometric(cx),
            cl::distance | cl::fast_distance | cl::length | cl::fast_length => return self.opencl_geometric(cx),
            cl::normalize | cl::fast_normalize => return self.opencl_geometric(cx),
            _ => return,
        };
        let ok = if float { float_sv(cx, rt) } else { int_sv(cx, rt) };
        if !ok {
            return self.bad_result(cx, if float { "a float scalar or vector" } else { "an int scalar or vector" });
        }
        if !self.opencl_size(cx) {
            return;
        }
        self.all_same_as_result(cx);
    }

    /// cross, distance, length, normalize (and the fast_ ones): vectors of at
    /// most 4 components (cross: 3 or 4).
    fn opencl_geometric(&self, cx: &mut Context<'_>) {
        let rt = self.rt;
        match self.number {
            cl::cross => {
                if !is_vector_of(cx, rt, is_float) || !matches!(dimension(cx, rt), 3 | 4) {
                    return self.bad_result(cx, "a vector of 3 or 4 floats");
                }
                self.all_same_as_result(cx);
            }
            cl::normalize | cl::fast_normalize => {
                if !float_sv(cx, rt) || dimension(cx, rt) > 4 {
                    return self.bad_result(cx, "a float scalar or vector of at most 4 components");
                }
                self.all_same_as_result(cx);
            }
            _ => {
                if !is_float(cx, rt) {
                    return self.bad_result(cx, "a float scalar");
                }
                let p0 = self.op(cx, 4);
                if !p0.is_some_and(|t| float_sv(cx, t) && dimension(cx, t) <= 4 && component(cx, t) == Some(rt)) {
                    let want = format!("a float scalar or vector of at most 4 components of the Result Type {}", cx.name(rt));
                    return self.bad_operand(cx, 4, &want);
                }
                if matches!(self.number, cl::distance | cl::fast_distance) && self.op(cx, 5) != p0 {
                    let want = format!("of the type of P0, {}", p0.map_or(String::new(), |t| cx.name(t)));
                    self.bad_operand(cx, 5, &want);
                }
            }
        }
    }

    /// OpenCL.std vectors have 2, 3, 4, 8 or 16 components.
    fn opencl_size(&self, cx: &mut Context<'_>) -> bool {
        let d = dimension(cx, self.rt);
        if d > 4 && d != 8 && d != 16 {
            self.bad_result(cx, "a scalar or a vector of 2, 3, 4, 8 or 16 components");
            return false;
        }
        true
    }

    /// fract, modf, sincos: a float result, X of the Result Type, and a
    /// pointer to the Result Type in a storage class the kernel can write.
    fn opencl_pointer_out(&self, cx: &mut Context<'_>) {
        let rt = self.rt;
        if !float_sv(cx, rt) {
            return self.bad_result(cx, "a float scalar or vector");
        }
        if !self.opencl_size(cx) {
            return;
        }
        if self.op(cx, 4) != Some(rt) {
            return self.same_as_result(cx, 4);
        }
        match pointer(cx, self.op(cx, 5)) {
            None => self.bad_operand(cx, 5, "a pointer"),
            Some((sc, _))
                if !matches!(
                    sc,
                    storage_class::Generic | storage_class::CrossWorkgroup | storage_class::Workgroup | storage_class::Function
                ) =>
            {
                self.bad_operand(cx, 5, "a pointer in the Generic, CrossWorkgroup, Workgroup or Function storage class")
            }
            Some((_, Some(p))) if p != rt => {
                let want = format!("a pointer to the Result Type {}", cx.name(rt));
                self.bad_operand(cx, 5, &want);
            }
            _ => {}
        }
    }
}
