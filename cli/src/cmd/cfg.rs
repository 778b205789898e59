//! `spvlab cfg`: the control-flow graph of a function as Graphviz DOT (the same
//! DOT the page draws), or the whole analysis report as JSON.

use std::ffi::OsString;

use spvlab_core::TargetEnv;
use spvlab_core::cfg::dot::{DotOptions, Dominators, to_dot};
use spvlab_core::diag::render;
use spvlab_core::report::{AnalyzeReport, analyze};
use spvlab_core::text::{DisOptions, disassemble};

use super::Command;
use crate::args::{Arg, Parser, no_value};
use crate::error::CliError;
use crate::io::{Input, Output};

pub const COMMAND: Command = Command {
    name: "cfg",
    summary: "print a function's control-flow graph as DOT, or the analysis as JSON",
    help: HELP,
    run,
};

const HELP: &str = "\
spvlab cfg: the control-flow graph of a function as Graphviz DOT, or the analysis as JSON

Usage: spvlab cfg [options] [<file.spv | file.spvasm>]

The module is read from the file, or from standard input when it is `-` or
missing. A binary (recognised by its magic number) is disassembled first.

Options:
  --format <dot|json>      dot (default): the CFG of one function, with merge
                           edges dashed, continue edges dotted, back edges bold,
                           and the constructs as clusters. json: the analysis
                           (diagnostics, functions, ids, source map).
  --function <id|name>     The function to draw (result id, or its name with
                           or without `%`). Default: the first with blocks.
  --target-env <env>       Assemble and validate for <env>. Default: spv1.6.
  --listing                Label blocks with their instructions.
  --no-constructs          Do not draw construct clusters.
  --dominators <none|regular|structural>
                           Overlay a dominator tree.
  --hide-unreachable       Leave out structurally unreachable blocks.
  -o <file>                Write to <file> (default: standard output).
  -h, --help               Print this help.

Exit status: 0 success, 1 bad input, 2 bad usage.
";

fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut env = TargetEnv::default();
    let mut json = false;
    let mut function: Option<String> = None;
    let mut opts = DotOptions::default();
    let mut input: Option<Input> = None;
    let mut output = Output::Stdout;
    let mut p = Parser::new(args);
    while let Some(arg) = p.next_arg() {
        match arg {
            Arg::Flag { name, inline } => match name.as_str() {
                "-h" | "--help" => return crate::io::print_stdout(HELP),
                "-o" => output = Output::from_arg(&p.value("-o", inline)?),
                "--target-env" => {
                    env = p.target_env(inline)?;
                }
                "--format" => match p.text_value("--format", inline)?.as_str() {
                    "dot" => json = false,
                    "json" => json = true,
                    other => return Err(CliError::UnknownFlag(format!("--format {other}"))),
                },
                "--function" => function = Some(p.text_value("--function", inline)?),
                "--listing" => {
                    no_value("--listing", &inline)?;
                    opts.listing = true;
                }
                "--no-constructs" => {
                    no_value("--no-constructs", &inline)?;
                    opts.constructs = false;
                }
                "--hide-unreachable" => {
                    no_value("--hide-unreachable", &inline)?;
                    opts.hide_unreachable = true;
                }
                "--dominators" => {
                    opts.dominators = match p.text_value("--dominators", inline)?.as_str() {
                        "none" => Dominators::None,
                        "regular" => Dominators::Regular,
                        "structural" => Dominators::Structural,
                        other => return Err(CliError::UnknownFlag(format!("--dominators {other}"))),
                    }
                }
                _ => return Err(CliError::UnknownFlag(name)),
            },
            Arg::Positional(a) if input.is_none() => input = Some(Input::from_arg(&a)),
            Arg::Positional(_) => return Err(CliError::TooManyInputs),
        }
    }
    let (name, bytes) = crate::io::read_input(input)?;
    let text = if is_binary(&bytes) {
        let dis = spvlab_core::binary::words_from_bytes(&bytes)
            .map_err(|e| e.to_diagnostic())
            .and_then(|w| disassemble(&w, &DisOptions::default()));
        match dis {
            Ok(t) => t,
            Err(d) => {
                eprint!("{}", render(&d, "", &name));
                return Err(CliError::Failed { path: name, count: 1 });
            }
        }
    } else {
        crate::io::utf8_text(bytes, &name)?
    };
    let report = analyze(&text, env);
    if json {
        let mut s = serde_json::to_string_pretty(&report).unwrap_or_default();
        s.push('\n');
        return output.write(s.as_bytes());
    }
    if !report.assembled {
        for d in &report.diagnostics {
            eprint!("{}", d.rendered);
        }
        return Err(CliError::Failed { path: name, count: report.diagnostics.len() });
    }
    let f = match &function {
        Some(f) => report.function_by_name(f),
        None => report.function(None),
    };
    let Some(f) = f else {
        match &function {
            Some(f) => eprintln!("spvlab cfg: {name}: no function `{f}` (functions: {})", list(&report)),
            None => eprintln!("spvlab cfg: {name}: the module has no function with blocks"),
        }
        return Err(CliError::Failed { path: name, count: 1 });
    };
    output.write(to_dot(f, &opts).as_bytes())
}

fn list(r: &AnalyzeReport) -> String {
    let v: Vec<String> = r.functions.iter().map(|f| format!("%{} ({})", f.name, f.id)).collect();
    if v.is_empty() { "none".into() } else { v.join(", ") }
}

fn is_binary(bytes: &[u8]) -> bool {
    let m = 0x0723_0203u32;
    bytes.get(..4).is_some_and(|b| b == m.to_le_bytes() || b == m.to_be_bytes())
}
