//! `spvlab wgsl`: a module lowered to WGSL for WebGPU, or the refusals that
//! say what WGSL cannot express and where.

use std::ffi::OsString;

use spvlab_core::analysis::locate_all;
use spvlab_core::text::asm::InstSpan;
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
  --map                    Print the source map instead of the WGSL: one line
                           `wgsl-line: spirv-line:col` per mapped WGSL line (a
                           binary input gives `wgsl-line: #instruction-index`).
  --target-env <env>       Assemble a text for <env>. Default: spv1.6.
  -o <file>                Write to <file> (default: standard output).
  -h, --help               Print this help.

Exit status: 0 success, 1 bad input or a refusal, 2 bad usage.
";

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut entry: Option<String> = None;
    let mut map = false;
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| match name.as_str() {
        "--entry" => {
            entry = Some(p.text_value("--entry", inline)?);
            Ok(())
        }
        "--map" => {
            map = true;
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
        Ok(w) if map => output.write(source_map(&w, ir, a.text(), a.source_map()).as_bytes()),
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

/// `wgsl-line: spirv-line:col` (1-based) for each WGSL line with a source
/// instruction; `wgsl-line: #index` when there is no text.
fn source_map(w: &wgsl::Wgsl, ir: &spvlab_core::ir::Ir, text: Option<&str>, spans: &[InstSpan]) -> String {
    use std::fmt::Write;
    // Each instruction's word offset (after the 5-word header).
    let mut offsets = Vec::with_capacity(ir.module.instructions.len());
    let mut at = 5u32;
    for inst in &ir.module.instructions {
        offsets.push(at);
        at += inst.word_count() as u32;
    }
    let mut out = String::new();
    for (k, m) in w.lines.iter().enumerate() {
        let Some(i) = *m else { continue };
        let pos = text.and_then(|src| {
            let off = *offsets.get(i as usize)?;
            let s = spans.get(spans.binary_search_by_key(&off, |s| s.word_offset).ok()?)?;
            Some(spvlab_core::diag::line_col(src, s.span.start))
        });
        let _ = match pos {
            Some((l, c)) => writeln!(out, "{}: {l}:{c}", k + 1),
            None => writeln!(out, "{}: #{i}", k + 1),
        };
    }
    out
}
