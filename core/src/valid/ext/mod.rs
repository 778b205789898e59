//! The rules of SPIR-V extensions: SPV_INTEL_variable_length_array,
//! SPV_KHR_constant_data and SPV_KHR_untyped_pointers.

use crate::grammar::op;
use crate::valid::Context;

pub(super) mod constant_data;
pub(super) mod untyped;
pub(super) mod vla;

/// Whether `ty` is a pointer type (typed, or untyped when `untyped`) with this storage class.
fn is_pointer_to(cx: &Context<'_>, ty: u32, untyped: bool, sc: u32) -> bool {
    let op = if untyped { op::OpTypeUntypedPointerKHR } else { op::OpTypePointer };
    cx.def_inst(ty).is_some_and(|t| t.opcode == op && t.operands.get(1) == Some(&sc))
}

/// The storage class of a pointer type (typed or untyped).
fn pointer_storage(cx: &Context<'_>, ty: u32) -> Option<u32> {
    let t = cx.def_inst(ty)?;
    matches!(t.opcode, op::OpTypePointer | op::OpTypeUntypedPointerKHR).then(|| t.operands.get(1).copied())?
}

/// The type of `value` if it is a pointer type.
fn pointer_type_of(cx: &Context<'_>, value: u32) -> Option<u32> {
    let t = cx.type_of(value)?;
    pointer_storage(cx, t).map(|_| t)
}

/// Width and signedness of a scalar integer type.
fn scalar_int(cx: &Context<'_>, ty: u32) -> Option<(u32, u32)> {
    let t = cx.def_inst(ty)?;
    if t.opcode != op::OpTypeInt {
        return None;
    }
    Some((*t.operands.get(1)?, *t.operands.get(2)?))
}

/// Whether `id` is decorated with `dec` (on the id itself, not a member).
fn has_decoration(cx: &Context<'_>, id: u32, dec: u32) -> Option<usize> {
    cx.insts().iter().position(|i| i.opcode == op::OpDecorate && i.operands.first() == Some(&id) && i.operands.get(1) == Some(&dec))
}
