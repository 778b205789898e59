//! The subcommands, one module each.

use std::ffi::OsString;

use crate::error::CliError;

pub mod assemble;
pub mod cfg;
pub mod disassemble;
pub mod reflect;
pub mod validate;

/// A subcommand: its name, one-line summary, full help and entry point.
pub struct Command {
    pub name: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
    pub run: fn(Vec<OsString>) -> Result<(), CliError>,
}

/// Every subcommand, in the order `spvlab --help` lists them.
pub const COMMANDS: &[Command] = &[assemble::COMMAND, disassemble::COMMAND, validate::COMMAND, cfg::COMMAND, reflect::COMMAND];

pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}
