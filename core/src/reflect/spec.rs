//! The module's specialization constants that a user can set: each
//! `OpSpecConstant`, `OpSpecConstantTrue` or `OpSpecConstantFalse` with a
//! SpecId (a composite or an OpSpecConstantOp follows from them).

use super::type_tree;
use crate::grammar::op;
use crate::ir::{ConstValue, Ir, Type};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One settable specialization constant.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct SpecConstant {
    pub spec_id: u32,
    /// The constant's result id.
    pub id: u32,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub name: Option<String>,
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub ty: super::TypeNode,
    /// The default value as the interpreter's input language writes it
    /// (`64`, `-2`, `0.5`, `true`); `None` for a value it cannot write.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub default: Option<String>,
}

/// The settable specialization constants, in SpecId order.
pub fn spec_constants(ir: &Ir) -> Vec<SpecConstant> {
    let mut out: Vec<SpecConstant> = ir
        .constants
        .iter()
        .filter(|c| c.spec && matches!(ir.opcode(c.inst as usize), op::OpSpecConstant | op::OpSpecConstantTrue | op::OpSpecConstantFalse))
        .filter_map(|c| {
            let spec_id = ir.spec_id(c.id)?;
            Some(SpecConstant { spec_id, id: c.id, name: ir.name(c.id).map(String::from), ty: type_tree(ir, c.ty, 0), default: default_text(ir, c.ty, &c.value) })
        })
        .collect();
    out.sort_by_key(|s| (s.spec_id, s.id));
    out
}

fn default_text(ir: &Ir, ty: u32, v: &ConstValue) -> Option<String> {
    match (ir.ty(ty).map(|t| &t.ty), v) {
        (_, ConstValue::Bool(b)) => Some(String::from(if *b { "true" } else { "false" })),
        (Some(&Type::Int { width, signed }), ConstValue::Scalar(bits)) if (1..=64).contains(&width) => Some(if signed {
            let s = 64 - width;
            (((*bits << s) as i64) >> s).to_string()
        } else {
            (if width == 64 { *bits } else { *bits & ((1u64 << width) - 1) }).to_string()
        }),
        (Some(&Type::Float { width: 32, .. }), ConstValue::Scalar(bits)) => Some(format!("{:?}", f32::from_bits(*bits as u32))),
        (Some(&Type::Float { width: 64, .. }), ConstValue::Scalar(bits)) => Some(format!("{:?}", f64::from_bits(*bits))),
        _ => None,
    }
}
