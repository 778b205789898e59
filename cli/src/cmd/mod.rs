//! The subcommands, one module each.

use std::ffi::OsString;

use crate::error::CliError;

pub mod amber;
pub mod assemble;
pub mod cfg;
mod cfg_rules;
pub mod disassemble;
pub mod flesh;
pub mod fuzz;
pub mod gen_cfg;
pub mod reduce;
pub mod reflect;
pub mod run;
pub mod validate;
pub mod wgsl;

/// A subcommand: its name, one-line summary, full help and entry point.
pub struct Command {
    pub name: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
    pub run: fn(Vec<OsString>) -> Result<(), CliError>,
}

/// Every subcommand, in the order `spvlab --help` lists them.
pub const COMMANDS: &[Command] = &[
    Command { name: "as", summary: "assemble SPIR-V assembly text into a binary module", help: assemble::HELP, run: assemble::run },
    Command { name: "dis", summary: "disassemble a binary module into SPIR-V assembly text", help: disassemble::HELP, run: disassemble::run },
    Command { name: "val", summary: "validate a module (binary or assembly text), like spirv-val", help: validate::HELP, run: validate::run },
    Command { name: "cfg", summary: "print a function's control-flow graph as DOT, or the analysis as JSON", help: cfg::HELP, run: cfg::run },
    Command { name: "reflect", summary: "list each entry point's resources, workgroup size and built-ins", help: reflect::HELP, run: reflect::run },
    Command { name: "run", summary: "run a compute entry point on the reference interpreter and print its buffers", help: run::HELP, run: run::run },
    Command { name: "wgsl", summary: "lower a module to WGSL for WebGPU, or say what WGSL cannot express", help: wgsl::HELP, run: wgsl::run },
    Command { name: "gen-cfg", summary: "write a random structured control-flow graph as a SPIR-V skeleton", help: gen_cfg::HELP, run: gen_cfg::run },
    Command { name: "flesh", summary: "flesh a function's control flow into a program that records its path", help: flesh::HELP, run: flesh::run },
    Command { name: "fuzz", summary: "run fleshed random CFGs on each backend and keep every finding", help: fuzz::HELP, run: fuzz::run },
    Command { name: "reduce", summary: "shrink a finding of fuzz into a small repro", help: reduce::HELP, run: reduce::run },
    Command { name: "amber", summary: "run AmberScript compute tests on the reference interpreter", help: amber::HELP, run: amber::run },
];

pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}
