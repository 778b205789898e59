//! `spvlab cfg`: the control-flow graph of a function as Graphviz DOT (the same
//! DOT the page draws), or the whole analysis report as JSON, or with
//! `--rules` the constructs of a function under SPIR-V 1.6r1 or 1.6r2 as text
//! (`cfg_rules.rs`).

use std::ffi::OsString;

use spvlab_core::analysis::Analysis;
use spvlab_core::analysis::dot::{DotOptions, Dominators};
use spvlab_core::analysis::report::AnalyzeReport;
use spvlab_core::cfg::Revision;
use spvlab_core::valid::Options;

use crate::args::{self, Common, Parser, set};
use crate::error::CliError;
use crate::io::Output;

pub const HELP: &str = "\
spvlab cfg: the control-flow graph of a function as Graphviz DOT, or the analysis as JSON

Usage: spvlab cfg [options] [<file.spv | file.spvasm>]

The module is read from the file, or from standard input when it is `-` or
missing. A binary (a `.spv` file, or input starting with the magic number) is
analysed as it is; anything else is assembly text.

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
  --rules <1.6r1|1.6r2>    Print, as text, the function's constructs (and their
                           blocks), back edges and section 2.11 verdict under
                           the structured-control-flow rules of SPIR-V 1.6
                           revision 1 (regular dominance) or revision 2
                           (structural dominance, what the DOT draws).
  -o <file>                Write to <file> (default: standard output).
  -h, --help               Print this help.

Exit status: 0 success, 1 bad input, 2 bad usage.
";

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut json = false;
    let mut function: Option<String> = None;
    let mut opts = DotOptions::default();
    let mut rules: Option<Revision> = None;
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| {
        match name.as_str() {
            "--format" => match p.text_value("--format", inline)?.as_str() {
                "dot" => json = false,
                "json" => json = true,
                other => return Err(CliError::UnknownFlag(format!("--format {other}"))),
            },
            "--function" => function = Some(p.text_value("--function", inline)?),
            "--rules" => {
                let v = p.text_value("--rules", inline)?;
                rules = Some(Revision::parse(&v).ok_or_else(|| CliError::UnknownFlag(format!("--rules {v}")))?);
            }
            "--listing" => set("--listing", &inline, &mut opts.listing, true)?,
            "--no-constructs" => set("--no-constructs", &inline, &mut opts.constructs, false)?,
            "--hide-unreachable" => set("--hide-unreachable", &inline, &mut opts.hide_unreachable, true)?,
            "--dominators" => {
                opts.dominators = match p.text_value("--dominators", inline)?.as_str() {
                    "none" => Dominators::None,
                    "regular" => Dominators::Regular,
                    "structural" => Dominators::Structural,
                    other => return Err(CliError::UnknownFlag(format!("--dominators {other}"))),
                }
            }
            _ => return Err(CliError::UnknownFlag(name)),
        }
        Ok(())
    };
    let Some(Common { input, output, env }) = args::parse(args, HELP, Some(Output::Stdout), true, flag)? else {
        return Ok(());
    };
    if json && rules.is_some() {
        return Err(CliError::Usage("--rules prints text; it cannot be combined with --format json".into()));
    }
    let (name, a) = crate::io::analyze_input(input, &Options { env, ..Options::default() })?;
    if json {
        let mut s = serde_json::to_string_pretty(&AnalyzeReport::of(&a)).unwrap_or_default();
        s.push('\n');
        return output.write(s.as_bytes());
    }
    if a.module().is_none() {
        return Err(crate::io::no_module(&a, name));
    }
    let f = match &function {
        Some(f) => a.function_by_name(f),
        None => a.function_index(None),
    };
    if let (Some(r), Some(fi)) = (rules, f)
        && !a.cfg().functions[fi].blocks.is_empty()
    {
        let text = super::cfg_rules::listing(&a, fi, r);
        return output.write(text.as_bytes());
    }
    let Some(dot) = f.and_then(|f| a.dot(Some(a.cfg().functions[f].id), &opts)) else {
        match &function {
            Some(f) => eprintln!("spvlab cfg: {name}: no function `{f}` (functions: {})", list(&a)),
            None => eprintln!("spvlab cfg: {name}: the module has no function with blocks"),
        }
        return Err(CliError::Failed { path: name, count: 1 });
    };
    output.write(dot.as_bytes())
}

fn list(a: &Analysis) -> String {
    let v: Vec<String> = a.cfg().functions.iter().map(|f| format!("%{} ({})", a.display_name(f.id), f.id)).collect();
    if v.is_empty() { "none".into() } else { v.join(", ") }
}
