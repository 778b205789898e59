//! `spvlab val`: validate a module (like spirv-val), with located and explained
//! diagnostics, for people (rustc style) or for tools (`--json`).

use std::ffi::OsString;

use serde_json::{Value, json};
use spvlab_core::Span;
use spvlab_core::analysis::Analysis;
use spvlab_core::diag::{self, Severity, SpanUnit};
use spvlab_core::valid::{self, OptionError, Options, rules};

use crate::args::{self, Common, Parser, no_value, set};
use crate::error::CliError;
use crate::io::Input;

pub const HELP: &str = "\
spvlab val: validate a SPIR-V module (like spirv-val)

Usage: spvlab val [options] [<file.spv>|<file.spvasm>]

The module is read from the file, or from standard input when it is `-` or
missing. A binary (`.spv`, or any input starting with the magic number, either
byte order) is validated as it is; anything else is assembly text, assembled
for the same target environment first, and the problems are then shown at their
line and column in the text. Every problem is reported (not only the first),
with the rule it breaks explained.

Options:
  --target-env <env>       Validate for <env>: spv1.0 .. spv1.6, vulkan1.0 ..
                           vulkan1.4, vulkan1.1spv1.4, opencl1.2 ..
                           opencl2.2[embedded], opengl4.0 .. opengl4.5.
                           Default: spv1.6.
  --json                   Print a JSON document on standard output instead:
                           {valid, file, target_env, diagnostics: [{code,
                           severity, message, label, line, column, end_line,
                           end_column, word_offset, word_end, related: [{label,
                           line, column, end_line, end_column, word_offset}],
                           help, summary, explanation}]}; line and column are
                           1-based (null for a binary), word offsets count the
                           header's 5 words (null for text that did not assemble).
  -h, --help               Print this help.

spirv-val's options, with its meaning:
  --before-hlsl-legalization  --relax-logical-pointer  --relax-block-layout
  --uniform-buffer-standard-layout  --scalar-block-layout
  --workgroup-scalar-block-layout  --skip-block-layout  --relax-struct-store
  --allow-localsizeid
  --max-struct-members <n>  --max-struct-depth <n> (or --max-struct_depth)
  --max-local-variables <n>  --max-global-variables <n>
  --max-switch-branches <n>  --max-function-args <n>
  --max-control-flow-nesting-depth <n>  --max-access-chain-indexes <n>
  --max-id-bound <n>

Exit status: 0 valid, 1 invalid, 2 unreadable input or bad usage.
";

/// A usage problem or an unreadable input: reported, then exit status 2 (the
/// shared [`CliError`] gives read failures status 1, as `as` and `dis` want).
fn exit_2(msg: &str, usage: bool) -> ! {
    eprintln!("error: {msg}");
    if usage {
        eprintln!("Try `spvlab val --help`.");
    }
    std::process::exit(2)
}

pub fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut opts = Options::default();
    let mut json = false;
    let mut val_args: Vec<String> = Vec::new();
    let flag = |p: &mut Parser, name: String, inline: Option<OsString>| {
        let n = name.as_str();
        if n == "--json" {
            set("--json", &inline, &mut json, true)?;
        } else if let Some(&(flag, _)) = valid::FLAGS.iter().find(|(f, _)| *f == n) {
            no_value(flag, &inline)?;
            val_args.push(flag.into());
        } else if let Some(&(limit, _)) = valid::LIMITS.iter().find(|(f, _)| *f == n) {
            let v = p.text_value(limit, inline)?;
            val_args.push(limit.into());
            val_args.push(v);
        } else {
            return Err(CliError::UnknownFlag(name));
        }
        Ok(())
    };
    let Some(Common { input, env, .. }) = args::parse(args, HELP, None, true, flag)? else {
        return Ok(());
    };
    opts.env = env;
    if let Err(e) = opts.apply_args(val_args.iter().map(String::as_str)) {
        match e {
            OptionError::Unknown(f) => return Err(CliError::UnknownFlag(f)),
            e => exit_2(&e.to_string(), true),
        }
    }
    let input = input.unwrap_or(Input::Stdin);
    let name = input.display_name();
    let bytes = match input.read() {
        Ok(b) => b,
        Err(e) => exit_2(&e.to_string(), false),
    };
    let a = crate::io::analyze(&input, bytes, &opts)?;
    let errors = a.diagnostics().iter().filter(|d| d.severity == Severity::Error).count();
    if json {
        let mut s = serde_json::to_string_pretty(&json_doc(&a, &name)).unwrap_or_default();
        s.push('\n');
        crate::io::print_stdout(&s)?;
    } else {
        let mut out = String::new();
        for d in a.diagnostics() {
            out.push_str(&a.render(d, &name));
            out.push('\n');
        }
        eprint!("{out}");
    }
    if errors > 0 { Err(CliError::Invalid { path: name, count: errors }) } else { Ok(()) }
}

/// The `--json` document.
fn json_doc(a: &Analysis, file: &str) -> Value {
    let text = a.text().filter(|t| !t.is_empty());
    let at = |unit: SpanUnit, s: Span| -> [Value; 4] {
        match text {
            Some(t) if unit == SpanUnit::TextBytes => {
                let (l, c) = diag::line_col(t, s.start);
                let (el, ec) = diag::line_col(t, s.end.max(s.start));
                [json!(l), json!(c), json!(el), json!(ec)]
            }
            _ => [Value::Null, Value::Null, Value::Null, Value::Null],
        }
    };
    let diags: Vec<Value> = a
        .diagnostics()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let [line, column, end_line, end_column] = at(d.unit, d.span);
            let origin = a.origin(i);
            let ws = origin.and_then(|o| o.words);
            let related: Vec<Value> = d
                .related
                .iter()
                .enumerate()
                .map(|(k, r)| {
                    let rw = origin.and_then(|o| o.related_words.get(k)).copied().flatten();
                    let [line, column, end_line, end_column] = at(d.unit, r.span);
                    json!({
                        "label": r.label,
                        "line": line, "column": column,
                        "end_line": end_line, "end_column": end_column,
                        "word_offset": rw.map(|s| s.start),
                    })
                })
                .collect();
            let rule = rules::rule(d.code);
            json!({
                "code": d.code,
                "severity": d.severity.name(),
                "message": d.message,
                "label": d.label,
                "line": line, "column": column,
                "end_line": end_line, "end_column": end_column,
                "word_offset": ws.map(|s| s.start),
                "word_end": ws.map(|s| s.end),
                "related": related,
                "help": d.help,
                "summary": rule.map(|r| r.summary),
                "explanation": rule.map(|r| r.explanation),
            })
        })
        .collect();
    json!({
        "valid": a.is_valid(),
        "file": file,
        "target_env": a.options().env.name(),
        "diagnostics": diags,
    })
}
