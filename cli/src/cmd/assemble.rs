//! `spvlab as`: SPIR-V assembly text to a binary module (like spirv-as).

use std::ffi::OsString;

use spvlab_core::diag::render;
use spvlab_core::text::{AsmOptions, assemble};

use super::Command;
use crate::args::{Arg, Parser, no_value};
use crate::error::CliError;
use crate::io::{Input, Output};
use crate::words;

pub const COMMAND: Command = Command {
    name: "as",
    summary: "assemble SPIR-V assembly text into a binary module",
    help: HELP,
    run,
};

const HELP: &str = "\
spvlab as: assemble SPIR-V assembly text into a binary module (like spirv-as)

Usage: spvlab as [options] [<file.spvasm>]

The text is read from <file.spvasm>, or from standard input when it is `-` or
missing (`./-` is the file named `-`). The module is written to `out.spv`
unless -o is given.

Options:
  -o <file>                Write the module to <file> (`-`: standard output).
  --target-env <env>       Assemble for <env> (sets the version word); one of
                           spv1.0 .. spv1.6, vulkan1.0 .. vulkan1.4,
                           vulkan1.1spv1.4, opencl1.2 .. opencl2.2[embedded],
                           opengl4.0 .. opengl4.5. Default: spv1.6.
  --preserve-numeric-ids   Keep numeric ids (%12) as they are in the text.
  -h, --help               Print this help.

Exit status: 0 success, 1 bad input, 2 bad usage.
";

fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut opts = AsmOptions::default();
    let mut input: Option<Input> = None;
    let mut output = Output::File("out.spv".into());
    let mut p = Parser::new(args);
    while let Some(arg) = p.next_arg() {
        match arg {
            Arg::Flag { name, inline } => match name.as_str() {
                "-h" | "--help" => return crate::io::print_stdout(HELP),
                "-o" => output = Output::from_arg(&p.value("-o", inline)?),
                "--target-env" => {
                    opts.env = p.target_env(inline)?;
                }
                "--preserve-numeric-ids" => {
                    no_value("--preserve-numeric-ids", &inline)?;
                    opts.preserve_numeric_ids = true;
                }
                _ => return Err(CliError::UnknownFlag(name)),
            },
            Arg::Positional(a) if input.is_none() => input = Some(Input::from_arg(&a)),
            Arg::Positional(_) => return Err(CliError::TooManyInputs),
        }
    }
    let (name, bytes) = crate::io::read_input(input)?;
    let text = crate::io::utf8_text(bytes, &name)?;
    match assemble(&text, &opts) {
        Ok(module) => output.write(&words::to_bytes(&module)),
        Err(diags) => {
            for d in &diags {
                eprint!("{}", render(d, &text, &name));
            }
            Err(CliError::Failed { path: name, count: diags.len() })
        }
    }
}
