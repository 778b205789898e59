//! `spvlab dis`: a binary module to SPIR-V assembly text (like spirv-dis).

use std::ffi::OsString;

use spvlab_core::diag::render;
use spvlab_core::text::DisOptions;
use spvlab_core::text::dis::disassemble_bytes;

use super::Command;
use crate::args::{Arg, Parser, no_value};
use crate::error::CliError;
use crate::io::{Input, Output};

pub const COMMAND: Command = Command {
    name: "dis",
    summary: "disassemble a binary module into SPIR-V assembly text",
    help: HELP,
    run,
};

const HELP: &str = "\
spvlab dis: disassemble a binary module into SPIR-V assembly text (like spirv-dis)

Usage: spvlab dis [options] [<file.spv>]

The module is read from <file.spv>, or from standard input when it is `-` or
missing. Either byte order is accepted. The text goes to standard output
unless -o is given.

Options:
  -o <file>      Write the text to <file> (`-`: standard output).
  --raw-id       Show raw ids (%12) instead of friendly names.
  --no-header    Don't print the header as leading comments.
  --no-indent    Don't indent instructions.
  -h, --help     Print this help.

Exit status: 0 success, 1 bad input, 2 bad usage.
";

fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut opts = DisOptions::default();
    let mut input: Option<Input> = None;
    let mut output = Output::Stdout;
    let mut p = Parser::new(args);
    while let Some(arg) = p.next_arg() {
        match arg {
            Arg::Flag { name, inline } => match name.as_str() {
                "-h" | "--help" => return crate::io::print_stdout(HELP),
                "-o" => output = Output::from_arg(&p.value("-o", inline)?),
                "--raw-id" => {
                    no_value("--raw-id", &inline)?;
                    opts.raw_id = true;
                }
                "--no-header" => {
                    no_value("--no-header", &inline)?;
                    opts.header = false;
                }
                "--no-indent" => {
                    no_value("--no-indent", &inline)?;
                    opts.indent = false;
                }
                _ => return Err(CliError::UnknownFlag(name)),
            },
            Arg::Positional(a) if input.is_none() => input = Some(Input::from_arg(&a)),
            Arg::Positional(_) => return Err(CliError::TooManyInputs),
        }
    }
    let (name, bytes) = crate::io::read_input(input)?;
    match disassemble_bytes(&bytes, &opts) {
        Ok(text) => output.write(text.as_bytes()),
        Err(d) => {
            eprint!("{}", render(&d, "", &name));
            Err(CliError::Failed { path: name, count: 1 })
        }
    }
}
