//! Type declarations: the operands of OpTypeInt, OpTypeFloat, OpTypeVector,
//! OpTypeMatrix, the arrays, structures, pointers and function types, the
//! uniqueness of non-aggregate types (SPIR-V spec 2.8 "Types and Variables", 3.52.6 "Type-Declaration
//! Instructions"; spirv-val's validate_type). The capabilities that 8-, 16- and
//! 64-bit scalars need are `types.rs`'s.
//!
//! Separate from `types.rs`, which checks the types of common operands, so that
//! each file stays one family.

use super::Context;
use super::declared::Declared;
use super::ids::generates_type;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::grammar::{capability, op};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "inst.typedecl.int-width",
        summary: "OpTypeInt's Width must be 8, 16, 32 or 64.",
        explanation: "SPIR-V spec 3.52.6, OpTypeInt: Width is the number of bits; the core \
                      capabilities allow 8 (Int8), 16 (Int16), 32 and 64 (Int64) only. Other \
                      widths need SPV_INTEL_arbitrary_precision_integers (4 bits also \
                      Int4TypeINTEL). Fix: use 32 (or a width a capability enables).",
    },
    Rule {
        code: "inst.typedecl.int-signedness",
        summary: "OpTypeInt's Signedness must be 0 or 1 (and 0 with the Kernel capability).",
        explanation: "SPIR-V spec 3.52.6, OpTypeInt: Signedness is 0 (unsigned, or no \
                      signedness semantics) or 1 (signed); 2.16.3: with the Kernel capability \
                      it must always be 0. Fix: write 0 or 1.",
    },
    Rule {
        code: "inst.typedecl.float-width",
        summary: "OpTypeFloat's Width must be 16, 32 or 64 (or a width its encoding defines).",
        explanation: "SPIR-V spec 3.52.6, OpTypeFloat: without a Floating Point Encoding, Width \
                      is 16, 32 or 64 (IEEE 754 binary16, binary32, binary64); 8-, 6- and 4-bit \
                      floats exist only with an encoding. Fix: use 32 (or add the encoding).",
    },
    Rule {
        code: "inst.typedecl.vector-component",
        summary: "OpTypeVector's Component Type must be a scalar type.",
        explanation: "SPIR-V spec 3.52.6, OpTypeVector: Component Type must be a scalar type \
                      (a boolean, integer or floating-point type), not a vector, a composite or \
                      a pointer. Fix: name the scalar type, e.g. `OpTypeVector %float 4`.",
    },
    Rule {
        code: "inst.typedecl.vector-count",
        summary: "A vector has 2, 3 or 4 components (8 or 16 with Vector16).",
        explanation: "SPIR-V spec 3.52.6, OpTypeVector: Component Count must be at least 2; 2.16.1: \
                      vectors of more than 4 components need the Vector16 capability (8 or 16 \
                      components) or LongVectorEXT (any count). Fix: use 2, 3 or 4, or declare \
                      the capability.",
    },
    Rule {
        code: "inst.typedecl.matrix-column",
        summary: "A matrix's Column Type must be a vector of floats, and it has 2, 3 or 4 columns.",
        explanation: "SPIR-V spec 3.52.6, OpTypeMatrix: Column Type is the type of each column, \
                      which must be a vector type of floating-point components; Column Count \
                      must be at least 2, and 2.16.1 allows at most 4. Fix: e.g. \
                      `OpTypeMatrix %v4float 4`.",
    },
    Rule {
        code: "inst.typedecl.element-type",
        summary: "An array's Element Type, a structure's members, a pointer's Type and a function type's operands must be types.",
        explanation: "SPIR-V spec 3.52.6: OpTypeArray and OpTypeRuntimeArray's Element Type, each \
                      OpTypeStruct member, OpTypePointer's Type and OpTypeFunction's Return Type \
                      and parameter types are ids of type declarations; an array element, a \
                      structure member or a parameter cannot be OpTypeVoid. Fix: name a type \
                      (not a constant or another value).",
    },
    Rule {
        code: "inst.typedecl.array-length",
        summary: "OpTypeArray's Length must be an integer constant of at least 1.",
        explanation: "SPIR-V spec 3.52.6, OpTypeArray: Length must be an OpConstant (or a \
                      specialization constant) of scalar integer type, with a value of at \
                      least 1. Fix: declare `%n = OpConstant %uint 4` and use it.",
    },
    Rule {
        code: "inst.typedecl.duplicate",
        summary: "A non-aggregate type may be declared only once.",
        explanation: "SPIR-V spec 2.8: two declarations of the same non-aggregate type (a scalar, \
                      vector, matrix, image, sampler, function type...) are not allowed; the \
                      declarations of arrays, structures and pointers may repeat (they can \
                      differ in decorations). Fix: remove the second declaration and use the \
                      first one's id.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check)],
    instructions: Instructions::None,
};

const WIDTH: &str = "inst.typedecl.int-width";
const ELEMENT: &str = "inst.typedecl.element-type";

/// Check every type declaration, and the uses of function types.
pub(super) fn check(cx: &mut Context<'_>) {
    let declared = cx.declared();
    let unique = !declared.has_ext("SPV_VALIDATOR_ignore_type_decl_unique");
    let mut seen: BTreeMap<(u16, &[u32]), usize> = BTreeMap::new();
    for i in 0..cx.insts().len() {
        let inst = &cx.insts()[i];
        let opcode = inst.opcode;
        if opcode == op::OpFunction {
            break; // types are declared before the functions (the layout pass checked)
        }
        if !generates_type(opcode) {
            continue;
        }
        let ops = inst.operands.as_slice();
        declaration(cx, &declared, i, opcode, ops);
        let aggregate = matches!(
            opcode,
            op::OpTypeArray
                | op::OpTypeRuntimeArray
                | op::OpTypeNodePayloadArrayAMDX
                | op::OpTypeStruct
                | op::OpTypePointer
                | op::OpTypeUntypedPointerKHR
        );
        if unique && !aggregate && !ops.is_empty() {
            if let Some(&first) = seen.get(&(opcode, &ops[1..])) {
                let name = cx.name(ops[0]);
                let earlier = cx.name(cx.insts()[first].operands[0]);
                let op_name = cx.desc(i).map_or("", |d| d.name);
                let m = format!("{op_name} {name} declares the same type as {earlier}: duplicate non-aggregate type declarations are not allowed");
                cx.error_related("inst.typedecl.duplicate", i, m, [(first, String::from("declared first here"))])
                    .label = format!("the same type as {earlier}");
            } else {
                seen.insert((opcode, &ops[1..]), i);
            }
        }
    }
}

/// The opcode defining `id`, if it declares a type.
fn type_opcode(cx: &Context<'_>, id: u32) -> Option<u16> {
    cx.def_opcode(id).filter(|&o| generates_type(o))
}

/// Report that operand `k` of instruction `i` (an id) is not `expected`.
fn bad(cx: &mut Context<'_>, code: &'static str, i: usize, k: usize, what: &str, expected: &str) {
    let op_name = cx.desc(i).map_or("", |d| d.name);
    let id = cx.insts()[i].operands.get(k).copied().unwrap_or(0);
    let name = cx.name(id);
    let is = match cx.def_opcode(id) {
        Some(o) => {
            let n = crate::grammar::instruction(o).map_or("", |d| d.name);
            format!("{name} (defined by {n})")
        }
        None => name,
    };
    let m = format!("{op_name} {what} {is} must be {expected}");
    cx.error_at(code, i, k, m).label = format!("must be {expected}");
}

fn declaration(cx: &mut Context<'_>, declared: &Declared, i: usize, opcode: u16, ops: &[u32]) {
    let arbitrary = declared.has_cap(capability::ArbitraryPrecisionIntegersINTEL);
    match opcode {
        op::OpTypeInt => {
            let (Some(&w), Some(&s)) = (ops.get(1), ops.get(2)) else { return };
            match w {
                8 | 16 | 64 => {}
                4 if declared.has_cap(capability::Int4TypeINTEL) || arbitrary => {}
                32 => {
                    if s > 1 {
                        let m = format!("OpTypeInt Signedness {s} must be 0 or 1");
                        cx.error_at("inst.typedecl.int-signedness", i, 2, m).label = "must be 0 or 1".into();
                    } else if s == 1 && declared.has_cap(capability::Kernel) {
                        let m = String::from("OpTypeInt Signedness must be 0 when the Kernel capability is declared");
                        cx.error_at("inst.typedecl.int-signedness", i, 2, m).label = "must be 0 with Kernel".into();
                    }
                }
                0 if arbitrary => {
                    let m = String::from("OpTypeInt Width 0 is not allowed, even with ArbitraryPrecisionIntegersINTEL");
                    cx.error_at(WIDTH, i, 1, m).label = "must be at least 1".into();
                }
                _ if arbitrary => {}
                _ => {
                    let m = format!("OpTypeInt Width {w} is not a valid integer width: must be 8, 16, 32 or 64");
                    cx.error_at(WIDTH, i, 1, m).label = "must be 8, 16, 32 or 64".into();
                }
            }
        }
        op::OpTypeFloat => {
            let Some(&w) = ops.get(1) else { return };
            let ok = if ops.len() > 2 { matches!(w, 4 | 6 | 8 | 16) } else { matches!(w, 16 | 32 | 64) };
            if !ok {
                let m = if ops.len() > 2 {
                    format!("OpTypeFloat Width {w} is not a width a floating-point encoding defines")
                } else {
                    format!("OpTypeFloat Width {w} is not a valid floating-point width: must be 16, 32 or 64")
                };
                cx.error_at("inst.typedecl.float-width", i, 1, m).label = "must be 16, 32 or 64".into();
            }
        }
        op::OpTypeVector => {
            let (Some(&c), Some(&n)) = (ops.get(1), ops.get(2)) else { return };
            let co = cx.def_opcode(c);
            let scalar = matches!(co, Some(op::OpTypeInt | op::OpTypeFloat | op::OpTypeBool));
            let gather = declared.has_cap(capability::MaskedGatherScatterINTEL);
            if !scalar && !(gather && co == Some(op::OpTypePointer)) {
                return bad(cx, "inst.typedecl.vector-component", i, 1, "Component Type", "a scalar type");
            }
            let ok = matches!(n, 2..=4)
                || (n > 0 && declared.has_cap(capability::LongVectorEXT))
                || (matches!(n, 8 | 16) && declared.has_cap(capability::Vector16));
            if !ok {
                let (m, label) = if matches!(n, 8 | 16) {
                    (format!("OpTypeVector Component Count {n} needs the Vector16 or LongVectorEXT capability"), "needs Vector16")
                } else {
                    (format!("OpTypeVector Component Count {n} must be 2, 3 or 4"), "must be 2, 3 or 4")
                };
                cx.error_at("inst.typedecl.vector-count", i, 2, m).label = label.into();
            }
        }
        op::OpTypeMatrix => {
            let (Some(&c), Some(&n)) = (ops.get(1), ops.get(2)) else { return };
            let float_vector = cx.def_inst(c).is_some_and(|d| {
                d.opcode == op::OpTypeVector
                    && d.operands.get(1).and_then(|&e| cx.def_opcode(e)) == Some(op::OpTypeFloat)
            });
            if !float_vector {
                return bad(cx, "inst.typedecl.matrix-column", i, 1, "Column Type", "a vector of floats");
            }
            if !matches!(n, 2..=4) {
                let m = format!("OpTypeMatrix Column Count {n} must be 2, 3 or 4");
                cx.error_at("inst.typedecl.matrix-column", i, 2, m).label = "must be 2, 3 or 4".into();
            }
        }
        op::OpTypeArray | op::OpTypeRuntimeArray => {
            let Some(&e) = ops.get(1) else { return };
            match type_opcode(cx, e) {
                None => return bad(cx, ELEMENT, i, 1, "Element Type", "a type"),
                Some(op::OpTypeVoid) => return bad(cx, ELEMENT, i, 1, "Element Type", "a type other than void"),
                _ => {}
            }
            if opcode == op::OpTypeArray {
                array_length(cx, i, ops);
            }
        }
        op::OpTypeStruct => {
            for k in 1..ops.len() {
                match type_opcode(cx, ops[k]) {
                    None => return bad(cx, ELEMENT, i, k, "Member Type", "a type"),
                    Some(op::OpTypeVoid) => return bad(cx, ELEMENT, i, k, "Member Type", "a type other than void"),
                    _ => {}
                }
            }
        }
        op::OpTypePointer => {
            if let Some(&t) = ops.get(2)
                && type_opcode(cx, t).is_none()
            {
                bad(cx, ELEMENT, i, 2, "Type", "a type");
            }
        }
        op::OpTypeFunction => {
            if let Some(&r) = ops.get(1)
                && type_opcode(cx, r).is_none()
            {
                return bad(cx, ELEMENT, i, 1, "Return Type", "a type");
            }
            for k in 2..ops.len() {
                match type_opcode(cx, ops[k]) {
                    None => return bad(cx, ELEMENT, i, k, "Parameter Type", "a type"),
                    Some(op::OpTypeVoid) => return bad(cx, ELEMENT, i, k, "Parameter Type", "a type other than void"),
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// OpTypeArray's Length: an integer constant, at least 1 when its value is known.
fn array_length(cx: &mut Context<'_>, i: usize, ops: &[u32]) {
    const LENGTH: &str = "inst.typedecl.array-length";
    let Some(&l) = ops.get(2) else { return };
    let Some(d) = cx.def_inst(l) else { return };
    let constant = crate::grammar::instruction(d.opcode).is_some_and(|g| g.class == "Constant-Creation");
    if !constant {
        return bad(cx, LENGTH, i, 2, "Length", "an integer constant");
    }
    let ty = d.operands.first().and_then(|&t| cx.def_inst(t));
    let Some(ty) = ty.filter(|t| t.opcode == op::OpTypeInt) else {
        return bad(cx, LENGTH, i, 2, "Length", "a constant of integer type");
    };
    if d.opcode != op::OpConstant {
        return;
    }
    let width = ty.operands.get(1).copied().unwrap_or(32);
    let signed = ty.operands.get(2).is_some_and(|&s| s != 0);
    let value: i64 = match (width, d.operands.get(2..)) {
        (w, Some([lo, hi, ..])) if w > 32 => ((*hi as u64) << 32 | *lo as u64) as i64,
        (w, Some([lo, ..])) => {
            if signed && w < 32 && w > 0 {
                // Sign-extend from the type's width.
                let shift = 32 - w;
                i64::from(((*lo << shift) as i32) >> shift)
            } else if signed {
                i64::from(*lo as i32)
            } else {
                i64::from(*lo)
            }
        }
        _ => return,
    };
    if value == 0 || (value < 0 && signed) {
        let name = cx.name(l);
        let m = format!("OpTypeArray Length {name} must be at least 1: its value is {value}");
        cx.error_at(LENGTH, i, 2, m).label = "must be at least 1".into();
    }
}
