//! `spvlab as`: SPIR-V assembly text to a binary module (like spirv-as).

use std::ffi::OsString;

use spvlab_core::diag::render;
use spvlab_core::text::{AsmOptions, assemble};

use crate::args::{self, Common, Parser, set};
use crate::error::CliError;
use crate::io::Output;
use crate::words;

pub const HELP: &str = "\
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

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut opts = AsmOptions::default();
    let flag = |_: &mut Parser, name: String, inline: Option<OsString>| match name.as_str() {
        "--preserve-numeric-ids" => set("--preserve-numeric-ids", &inline, &mut opts.preserve_numeric_ids, true),
        _ => Err(CliError::UnknownFlag(name)),
    };
    let Some(Common { input, output, env }) = args::parse(args, HELP, Some(Output::File("out.spv".into())), true, flag)? else {
        return Ok(());
    };
    opts.env = env;
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
