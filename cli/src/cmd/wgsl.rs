//! `spvlab wgsl`: a module lowered to WGSL for WebGPU, or the refusals that
//! say what WGSL cannot express and where.

use std::ffi::OsString;

use spvlab_core::analysis::locate_all;
use spvlab_core::valid::Options;
use spvlab_core::wgsl;

use crate::args::{self, Common, Parser};
use crate::error::CliError;
use crate::io::Output;

pub const HELP: &str = "\
spvlab wgsl: lower a module to WGSL for WebGPU

Usage: spvlab wgsl [options] [<file.spv | file.spvasm>]

The module is read from the file, or from standard input when it is `-` or
missing; a text is assembled first. It must be valid. Every compute, vertex
and fragment entry point is lowered (or only the one --entry names), with
the functions it calls, its resources, built-ins and stage inputs and
outputs. What WGSL cannot express (64-bit types, physical pointers, texel
buffers, ...) is refused with a reason, located at the instruction.

Options:
  --entry <name>           Lower only the entry point <name>.
  --target-env <env>       Assemble a text for <env>. Default: spv1.6.
  -o <file>                Write to <file> (default: standard output).
  -h, --help               Print this help.

Exit status: 0 success, 1 bad input or a refusal, 2 bad usage.
";

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut entry: Option<String> = None;
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| match name.as_str() {
        "--entry" => {
            entry = Some(p.text_value("--entry", inline)?);
            Ok(())
        }
        _ => Err(CliError::UnknownFlag(name)),
    };
    let Some(Common { input, output, env }) = args::parse(args, HELP, Some(Output::Stdout), true, flag)? else {
        return Ok(());
    };
    let (name, a) = crate::io::analyze_input(input, &Options { env, ..Options::default() })?;
    let Some(ir) = a.ir().filter(|_| a.is_valid()) else {
        return Err(crate::io::no_module(&a, name));
    };
    match wgsl::lower(ir, a.cfg(), &wgsl::Options { entry }) {
        Ok(w) => output.write(w.text.as_bytes()),
        Err(refusals) => {
            let mut diags: Vec<_> = refusals.iter().map(|r| r.diagnostic(ir)).collect();
            if a.text().is_some() {
                locate_all(a.source_map(), &mut diags);
            }
            for d in &diags {
                eprint!("{}", a.render(d, &name));
            }
            Err(CliError::Failed { path: name, count: diags.len() })
        }
    }
}
