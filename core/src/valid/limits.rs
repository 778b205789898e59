//! The universal limits (spec section 2.17), with spirv-val's `--max-*`
//! options: struct members, struct nesting depth, function parameters,
//! global and local variables, access chain indexes, and the id bound.

use crate::grammar::{op, storage_class};
use super::Context;
use super::rules::Rule;
use super::family::{Family, Instructions, Stage};
use crate::binary::parse::IdMap;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[
    Rule {
        code: "val.id-bound",
        summary: "Result ids must be less than the header's id bound.",
        explanation: "The module header declares a bound: every <id> of the module is less than it.",
    },
    Rule {
        code: "limits.id-bound",
        summary: "The id bound must not exceed the maximum id bound.",
        explanation: "Section 2.17: the id bound of a module is limited (4,194,303 by default; \
                      `--max-id-bound` changes it).",
    },
    Rule {
        code: "limits.struct-members",
        summary: "A struct has a limited number of members.",
        explanation: "Section 2.17: an OpTypeStruct may have at most 16,383 members \
                      (`--max-struct-members` changes the limit).",
    },
    Rule {
        code: "limits.struct-depth",
        summary: "Structs may only nest so deep.",
        explanation: "Section 2.17: the nesting depth of structures is limited to 255 \
                      (`--max-struct-depth` changes it); a struct without struct members has depth 1.",
    },
    Rule {
        code: "limits.function-args",
        summary: "A function type has a limited number of parameters.",
        explanation: "Section 2.17: an OpTypeFunction may have at most 255 parameters \
                      (`--max-function-args` changes it).",
    },
    Rule {
        code: "limits.global-variables",
        summary: "A module has a limited number of global variables.",
        explanation: "Section 2.17: at most 65,535 variables with a storage class other than \
                      Function (`--max-global-variables` changes it).",
    },
    Rule {
        code: "limits.local-variables",
        summary: "A module has a limited number of function variables.",
        explanation: "Section 2.17: at most 524,287 variables in the Function storage class \
                      (`--max-local-variables` changes it).",
    },
    Rule {
        code: "limits.access-chain-indexes",
        summary: "An access chain has a limited number of indexes.",
        explanation: "Section 2.17: an access chain may have at most 255 indexes \
                      (`--max-access-chain-indexes` changes it).",
    },
];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[(Stage::Sound, check_limits)],
    instructions: Instructions::None,
};

pub(super) fn check_limits(cx: &mut Context<'_>) {
    let l = cx.opts.limits;
    let insts = cx.insts();
    if cx.module.header.bound > l.max_id_bound && !insts.is_empty() {
        cx.error(
            "limits.id-bound",
            0,
            format!(
                "the id bound {} is larger than the maximum id bound {}",
                cx.module.header.bound, l.max_id_bound
            ),
        );
    }
    let bound = cx.id_bound();
    let mut depth: IdMap<u32> = IdMap::new(bound);
    let (mut globals, mut locals) = (VarCount::default(), VarCount::default());
    for (i, inst) in insts.iter().enumerate() {
        match inst.opcode {
            op::OpTypeStruct => {
                let members = inst.operands.get(1..).unwrap_or(&[]);
                let id = inst.operands.first().copied().unwrap_or(0);
                if members.len() as u64 > l.max_struct_members as u64 {
                    let n = cx.name(id);
                    cx.error(
                        "limits.struct-members",
                        i,
                        format!(
                            "struct {n} has {} members, more than the limit of {}",
                            members.len(),
                            l.max_struct_members
                        ),
                    );
                }
                let inner = members.iter().map(|&m| depth.get(m)).max().unwrap_or(0);
                let d = inner.saturating_add(1);
                depth.set(id, d);
                if d > l.max_struct_depth {
                    let n = cx.name(id);
                    cx.error(
                        "limits.struct-depth",
                        i,
                        format!(
                            "struct {n} nests {d} levels deep, more than the limit of {}",
                            l.max_struct_depth
                        ),
                    );
                }
            }
            op::OpTypeFunction => {
                let params = inst.operands.len().saturating_sub(2);
                if params as u64 > l.max_function_args as u64 {
                    let n = cx.name(inst.operands.first().copied().unwrap_or(0));
                    cx.error(
                        "limits.function-args",
                        i,
                        format!(
                            "function type {n} has {params} parameters, more than the limit of {}",
                            l.max_function_args
                        ),
                    );
                }
            }
            op::OpVariable | op::OpUntypedVariableKHR => {
                let class = inst.operands.get(2).copied();
                if class == Some(storage_class::Function) {
                    locals.add(cx, i, l.max_local_variables, "limits.local-variables", "function variable");
                } else {
                    globals.add(cx, i, l.max_global_variables, "limits.global-variables", "global variable");
                }
            }
            op::OpAccessChain
            | op::OpInBoundsAccessChain
            | op::OpPtrAccessChain
            | op::OpInBoundsPtrAccessChain => {
                let skip = if matches!(
                    inst.opcode,
                    op::OpPtrAccessChain | op::OpInBoundsPtrAccessChain
                ) {
                    4
                } else {
                    3
                };
                let n = inst.operands.len().saturating_sub(skip);
                if n as u64 > l.max_access_chain_indexes as u64 {
                    cx.error(
                        "limits.access-chain-indexes",
                        i,
                        format!(
                            "this access chain has {n} indexes, more than the limit of {}",
                            l.max_access_chain_indexes
                        ),
                    )
                    .help = Some(String::from("split the access chain in two"));
                }
            }
            _ => {}
        }
    }
}

/// A running count of variables; the first one past the limit is reported.
#[derive(Default)]
struct VarCount {
    n: u64,
    reported: bool,
}

impl VarCount {
    fn add(&mut self, cx: &mut Context<'_>, i: usize, max: u32, code: &'static str, what: &str) {
        self.n += 1;
        if self.n > u64::from(max) && !self.reported {
            self.reported = true;
            cx.error(code, i, format!("this is {what} number {}, more than the limit of {max}", self.n));
        }
    }
}
