//! `spvlab dis`: a binary module to SPIR-V assembly text (like spirv-dis).

use std::ffi::OsString;

use spvlab_core::analysis::Analysis;
use spvlab_core::diag::render;
use spvlab_core::text::DisOptions;

use crate::args::{self, Common, Parser, set};
use crate::error::CliError;
use crate::io::Output;

pub const HELP: &str = "\
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

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut opts = DisOptions::default();
    let flag = |_: &mut Parser, name: String, inline: Option<OsString>| match name.as_str() {
        "--raw-id" => set("--raw-id", &inline, &mut opts.raw_id, true),
        "--no-header" => set("--no-header", &inline, &mut opts.header, false),
        "--no-indent" => set("--no-indent", &inline, &mut opts.indent, false),
        _ => Err(CliError::UnknownFlag(name)),
    };
    let Some(Common { input, output, .. }) = args::parse(args, HELP, Some(Output::Stdout), false, flag)? else {
        return Ok(());
    };
    let (name, bytes) = crate::io::read_input(input)?;
    // Read only: the disassembly is a view of the analysis that needs no IR
    // and no validation.
    let analysis = Analysis::read_bytes(&bytes);
    match analysis.disassemble(&opts) {
        Some(text) => output.write(text.as_bytes()),
        None => {
            for d in analysis.diagnostics() {
                eprint!("{}", render(d, "", &name));
            }
            Err(CliError::Failed { path: name, count: analysis.diagnostics().len().max(1) })
        }
    }
}
