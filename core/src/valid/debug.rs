//! Debug instructions: OpLine's File must be an OpString (SPIR-V spec 3.52.2
//! "Debug Instructions"; spirv-val's validate_debug). OpName and OpMemberName
//! targets are checked with the decorations (`decoration.rs`).

use super::Context;
use super::rules::Rule;
use super::walk::Lookups;
use super::family::{Check, Family, Instructions};
use crate::grammar::op;
use alloc::format;
use alloc::string::String;

pub(super) static RULES: &[Rule] = &[Rule {
    code: "inst.debug.line-file",
    summary: "OpLine's File must be an OpString.",
    explanation: "SPIR-V spec 3.52.2, OpLine: \"File must be an OpString instruction and is the \
                  name of the source file\". Fix: declare the file name with \
                  %file = OpString \"name\" and use %file.",
}];

pub(super) const FAMILY: Family = Family {
    rules: RULES,
    passes: &[],
    instructions: Instructions::Walk { takes: applies, check: Check::Any(run), finish: None },
};

/// Whether the pass has anything to check in instruction `opcode`.
pub(super) const fn applies(opcode: u16) -> bool {
    opcode == op::OpLine
}

/// Check instruction `i` (an OpLine).
#[inline(never)]
fn run(cx: &mut Context<'_>, i: usize, _opcode: u16, _: &mut Lookups) {
    let Some(&file) = cx.insts()[i].operands.first() else { return };
    if cx.def_opcode(file) == Some(op::OpString) {
        return;
    }
    let what = match cx.def_opcode(file).and_then(crate::grammar::instruction) {
        Some(d) => format!("an {}", d.name),
        None => String::from("not defined"),
    };
    let name = cx.name(file);
    let m = format!("OpLine File {name} is {what}, must be an OpString");
    cx.error_at("inst.debug.line-file", i, 0, m).label = String::from("must be an OpString");
}
