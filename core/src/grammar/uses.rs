//! What an id operand must name, and what a definition gives: the basis of
//! "did you mean" suggestions for ids, so that a branch target is only ever
//! matched with a label, a result type with a type, and so on.
//!
//! Operands are counted as the binary lists them, the result type and result
//! id included, and a pair (`OpPhi`'s value and parent, `OpSwitch`'s literal
//! and label) as its two parts: operand `k` of `%x = OpPhi %t %v %p` is
//! `%t` (0), `%x` (1), `%v` (2), `%p` (3).

use super::{OperandKind, Quantifier, instruction, op};

/// What kind of definition an id names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdKind {
    /// `OpLabel`: a block.
    Label,
    /// A type declaration (`OpType...`).
    Type,
    /// `OpFunction`.
    Function,
    /// `OpExtInstImport`.
    ExtInstSet,
    /// A value: the result of an instruction with a result type.
    Value,
    /// Anything else (`OpString`, `OpDecorationGroup`...).
    Other,
}

/// What operand `k` of an `opcode` instruction must name (`None`: any id,
/// e.g. the target of OpName or a decoration, or where the grammar does not
/// tell).
pub fn id_need(opcode: u16, k: usize, kind: OperandKind) -> Option<IdKind> {
    use IdKind::*;
    match kind {
        OperandKind::IdResultType => return Some(Type),
        OperandKind::IdScope | OperandKind::IdMemorySemantics => return Some(Value),
        OperandKind::IdRef => {}
        _ => return None,
    }
    let need = match opcode {
        op::OpBranch | op::OpSelectionMerge => Label,
        op::OpLoopMerge => return (k < 2).then_some(Label),
        op::OpBranchConditional => if k == 0 { Value } else { Label },
        // Selector, default, then (literal, label) pairs.
        op::OpSwitch => if k == 0 { Value } else if k & 1 == 1 { Label } else { return None },
        // Result type, result, then (value, parent) pairs.
        op::OpPhi => if k & 1 == 0 { Value } else { Label },
        op::OpFunctionCall => if k == 2 { Function } else { Value },
        op::OpEntryPoint => if k == 1 { Function } else { Value },
        op::OpExecutionMode | op::OpExecutionModeId => return (k == 0).then_some(Function),
        op::OpExtInst | op::OpExtInstWithForwardRefsKHR => return (k == 2).then_some(ExtInstSet),
        op::OpFunction => Type,
        op::OpStore | op::OpReturnValue => Value,
        op::OpTypeStruct | op::OpTypeFunction => Type,
        op::OpTypePointer => return (k == 2).then_some(Type),
        _ => {
            let desc = instruction(opcode)?;
            // The grammar's name of operand `k`, where every operand before
            // it appears exactly once.
            let slot = desc.operands.get(k).filter(|_| desc.operands[..k].iter().all(|o| o.quantifier == Quantifier::One))?;
            let named_type = slot.name.contains("Type") || slot.name.contains("type");
            if desc.class == "Type-Declaration" {
                return named_type.then_some(Type);
            }
            if !desc.has_result_type() {
                return None;
            }
            if named_type { Type } else { Value }
        }
    };
    Some(need)
}

/// What a definition by `opcode` gives.
pub fn id_kind(opcode: u16) -> IdKind {
    match opcode {
        op::OpLabel => IdKind::Label,
        op::OpFunction => IdKind::Function,
        op::OpExtInstImport => IdKind::ExtInstSet,
        _ => match instruction(opcode) {
            Some(d) if d.class == "Type-Declaration" => IdKind::Type,
            Some(d) if d.has_result_type() => IdKind::Value,
            _ => IdKind::Other,
        },
    }
}

/// Whether an id defined by `def_opcode` fits operand `k` of `opcode`.
pub fn id_fits(opcode: u16, k: usize, kind: OperandKind, def_opcode: u16) -> bool {
    id_need(opcode, k, kind).is_none_or(|need| need == id_kind(def_opcode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_and_kinds() {
        use IdKind::*;
        let r = OperandKind::IdRef;
        assert_eq!(id_need(op::OpBranch, 0, r), Some(Label));
        assert_eq!(id_need(op::OpBranchConditional, 0, r), Some(Value));
        assert_eq!(id_need(op::OpBranchConditional, 2, r), Some(Label));
        assert_eq!(id_need(op::OpPhi, 2, r), Some(Value));
        assert_eq!(id_need(op::OpPhi, 3, r), Some(Label));
        assert_eq!(id_need(op::OpSwitch, 3, r), Some(Label));
        assert_eq!(id_need(op::OpIAdd, 0, OperandKind::IdResultType), Some(Type));
        assert_eq!(id_need(op::OpIAdd, 3, r), Some(Value));
        assert_eq!(id_need(op::OpTypeVector, 1, r), Some(Type));
        assert_eq!(id_need(op::OpTypeArray, 1, r), Some(Type));
        assert_eq!(id_need(op::OpTypeArray, 2, r), None);
        assert_eq!(id_need(op::OpFunction, 3, r), Some(Type));
        assert_eq!(id_need(op::OpFunctionCall, 2, r), Some(Function));
        assert_eq!(id_need(op::OpName, 0, r), None);
        assert_eq!(id_need(op::OpDecorate, 0, r), None);
        assert_eq!(id_kind(op::OpLabel), Label);
        assert_eq!(id_kind(op::OpTypeInt), Type);
        assert_eq!(id_kind(op::OpConstant), Value);
        assert_eq!(id_kind(op::OpString), Other);
        assert!(id_fits(op::OpBranch, 0, r, op::OpLabel));
        assert!(!id_fits(op::OpBranch, 0, r, op::OpTypeInt));
        assert!(id_fits(op::OpName, 0, r, op::OpTypeInt));
    }
}
