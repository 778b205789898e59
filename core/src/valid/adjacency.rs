//! Adjacency rules inside blocks that are not control-flow rules: OpPhi
//! instructions come first in a non-entry block (OpLine / OpNoLine may be mixed
//! in), and a function's OpVariable instructions come first in its entry block.

use crate::grammar::{op, storage_class};
use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "adjacency.phi-not-first",
        summary: "OpPhi instructions must come first in a non-entry block.",
        explanation: "Section 2.4 / OpPhi: within a block, all OpPhi instructions come before \
                      every other instruction (only OpLine and OpNoLine may be mixed with them). \
                      The entry block has no predecessors, so it cannot hold an OpPhi at all.",
    },
    Rule {
        code: "adjacency.variable-not-first",
        summary: "A function's OpVariables must be the first instructions of its entry block.",
        explanation: "Section 2.4: all OpVariable instructions of a function with Function \
                      storage class must be in the first block, before any other instruction \
                      of that block (OpLine and OpNoLine aside). A variable with Function \
                      storage class outside every function (among the module's global \
                      declarations) is not allowed either.",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Structure, check_adjacency)],
    instructions: Instructions::None,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between OpFunction and the first label.
    NewFunction,
    /// In the entry block, before any instruction but OpVariable.
    EntryBlock,
    /// At the start of a non-entry block, OpPhis still allowed.
    PhiValid,
    /// Past the leading instructions: neither OpPhi nor OpVariable allowed.
    Invalid,
}

pub(super) fn check_adjacency(cx: &mut Context<'_>) {
    let insts = cx.insts();
    let mut state = State::Invalid;
    // Between OpFunction and OpFunctionEnd.
    let mut in_function = false;
    let mut block_start = 0usize;
    // The first instruction that ended the leading region of the block.
    let mut breaker: Option<usize> = None;
    for i in 0..insts.len() {
        let inst = &insts[i];
        match inst.opcode {
            op::OpFunction => in_function = true,
            op::OpFunctionEnd => in_function = false,
            _ => {}
        }
        match inst.opcode {
            op::OpFunction | op::OpFunctionParameter => state = State::NewFunction,
            op::OpLabel => {
                state = if state == State::NewFunction {
                    State::EntryBlock
                } else {
                    State::PhiValid
                };
                block_start = i;
                breaker = None;
            }
            op::OpLine | op::OpNoLine => {}
            op::OpPhi => {
                if state != State::PhiValid {
                    let block = cx.name(insts[block_start].operands.first().copied().unwrap_or(0));
                    let msg = if state == State::EntryBlock
                        || (state == State::Invalid && breaker.is_none())
                    {
                        format!("OpPhi in the entry block {block}, which has no predecessors")
                    } else {
                        format!("OpPhi in block {block} comes after a non-OpPhi instruction")
                    };
                    let d = cx.error("adjacency.phi-not-first", i, msg);
                    d.label = String::from("OpPhi must come first in its block");
                    if let Some(b) = breaker {
                        let span = cx.span(b);
                        if let Some(d) = cx.diags.last_mut() {
                            d.relate(span, String::from("this instruction comes before it"));
                        }
                    }
                }
            }
            op::OpVariable | op::OpUntypedVariableKHR => {
                let class = inst.operands.get(2).copied();
                if class == Some(storage_class::Function) && !in_function {
                    let d = cx.error(
                        "adjacency.variable-not-first",
                        i,
                        String::from("OpVariable with Function storage class outside any function"),
                    );
                    d.label = String::from("not inside a function");
                    d.help = Some(String::from(
                        "move it to the start of the first block of a function, or give a module-scope variable another storage class (Private, say)",
                    ));
                } else if class == Some(storage_class::Function)
                    && state != State::EntryBlock
                    && state != State::NewFunction
                {
                    let msg = if state == State::PhiValid {
                        String::from(
                            "OpVariable with Function storage class outside the entry block of its function",
                        )
                    } else {
                        String::from(
                            "OpVariable with Function storage class after other instructions of the entry block",
                        )
                    };
                    let d = cx.error("adjacency.variable-not-first", i, msg);
                    d.help = Some(String::from(
                        "declare all function variables at the start of the first block",
                    ));
                    if let Some(b) = breaker {
                        let span = cx.span(b);
                        if let Some(d) = cx.diags.last_mut() {
                            d.relate(span, String::from("this instruction comes before it"));
                        }
                    }
                }
                if state == State::PhiValid {
                    state = State::Invalid;
                    breaker.get_or_insert(i);
                }
            }
            _ => {
                if state != State::NewFunction {
                    state = State::Invalid;
                    breaker.get_or_insert(i);
                }
            }
        }
    }
}
