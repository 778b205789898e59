//! `spvlab val`: validate a module (like spirv-val), with located and explained
//! diagnostics, for people (rustc style) or for tools (`--json`).

use std::ffi::OsString;
use std::path::Path;

use serde_json::{Value, json};
use spvlab_core::diag::{self, Diagnostic, Severity, SpanUnit, render_full};
use spvlab_core::text::asm::{AsmOptions, assemble_with_map};
use spvlab_core::valid::{self, OptionError, Options, rules};
use spvlab_core::{Span, TargetEnv};

use super::Command;
use crate::args::{Arg, Parser, no_value};
use crate::error::CliError;
use crate::io::Input;
use crate::words;

pub const COMMAND: Command = Command {
    name: "val",
    summary: "validate a module (binary or assembly text), like spirv-val",
    help: HELP,
    run,
};

const HELP: &str = "\
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

/// spirv-val's flags that take no value.
const FLAGS: &[&str] = &[
    "--before-hlsl-legalization",
    "--relax-logical-pointer",
    "--relax-block-layout",
    "--uniform-buffer-standard-layout",
    "--scalar-block-layout",
    "--workgroup-scalar-block-layout",
    "--skip-block-layout",
    "--relax-struct-store",
    "--allow-localsizeid",
];

/// spirv-val's limits, which take a number.
const LIMITS: &[&str] = &[
    "--max-struct-members",
    "--max-struct-depth",
    "--max-struct_depth",
    "--max-local-variables",
    "--max-global-variables",
    "--max-switch-branches",
    "--max-function-args",
    "--max-control-flow-nesting-depth",
    "--max-access-chain-indexes",
    "--max-id-bound",
];

/// A usage problem or an unreadable input: reported, then exit status 2 (the
/// shared [`CliError`] gives read failures status 1, as `as` and `dis` want).
fn exit_2(msg: &str, usage: bool) -> ! {
    eprintln!("error: {msg}");
    if usage {
        eprintln!("Try `spvlab val --help`.");
    }
    std::process::exit(2)
}

fn run(args: Vec<OsString>) -> Result<(), CliError> {
    let mut opts = Options::default();
    let mut json = false;
    let mut val_args: Vec<String> = Vec::new();
    let mut input: Option<Input> = None;
    let mut p = Parser::new(args);
    while let Some(arg) = p.next_arg() {
        match arg {
            Arg::Flag { name, inline } => match name.as_str() {
                "-h" | "--help" => return crate::io::print_stdout(HELP),
                "--target-env" => {
                    opts.env = p.target_env(inline)?;
                }
                "--json" => {
                    no_value("--json", &inline)?;
                    json = true;
                }
                n => {
                    if let Some(&flag) = FLAGS.iter().find(|&&f| f == n) {
                        no_value(flag, &inline)?;
                        val_args.push(flag.into());
                    } else if let Some(&limit) = LIMITS.iter().find(|&&f| f == n) {
                        let v = p.text_value(limit, inline)?;
                        val_args.push(limit.into());
                        val_args.push(v);
                    } else {
                        return Err(CliError::UnknownFlag(name));
                    }
                }
            },
            Arg::Positional(a) if input.is_none() => input = Some(Input::from_arg(&a)),
            Arg::Positional(_) => return Err(CliError::TooManyInputs),
        }
    }
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
    let report = check(&bytes, is_binary(&input, &bytes), &opts)
        .map_err(|offset| CliError::NotUtf8 { path: name.clone(), offset })?;
    let errors = report.diags.iter().filter(|d| d.severity == Severity::Error).count();
    if json {
        let doc = report.json(&name, opts.env);
        let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
        s.push('\n');
        crate::io::print_stdout(&s)?;
    } else {
        let mut out = String::new();
        for d in &report.diags {
            out.push_str(&report.render(d, &name));
            out.push('\n');
        }
        eprint!("{out}");
    }
    if errors > 0 { Err(CliError::Invalid { path: name, count: errors }) } else { Ok(()) }
}

/// Whether the input is a binary: a `.spv` file, or bytes starting with the magic
/// number in either byte order.
fn is_binary(input: &Input, bytes: &[u8]) -> bool {
    let ext = match input {
        Input::File(p) => Path::new(p).extension().and_then(|e| e.to_str()).map(str::to_owned),
        Input::Stdin => None,
    };
    match ext.as_deref() {
        Some("spv") => true,
        Some("spvasm") => false,
        _ => {
            let m = words::MAGIC;
            bytes.get(..4).is_some_and(|b| b == m.to_le_bytes() || b == m.to_be_bytes())
        }
    }
}

/// What validation found, with what is needed to show it.
struct Report {
    /// The text (empty for a binary input).
    text: String,
    /// The binary (assembled from the text, for a text input; empty when the text
    /// did not assemble).
    words: Vec<u32>,
    diags: Vec<Diagnostic>,
    /// Each diagnostic's primary span in words, before it was located in the text.
    word_spans: Vec<Option<Span>>,
    /// And its related spans' word spans.
    related_words: Vec<Vec<Option<Span>>>,
}

/// Validate a binary, or a text (assembled first); `Err(offset)` for a text that
/// is not UTF-8.
fn check(bytes: &[u8], binary: bool, opts: &Options) -> Result<Report, usize> {
    if binary {
        let w = match spvlab_core::binary::words_from_bytes(bytes) {
            Ok(w) => w,
            Err(e) => return Ok(Report::of_words(Vec::new(), vec![e.to_diagnostic()])),
        };
        let diags = valid::validate_words(&w, opts);
        return Ok(Report::of_words(w, diags));
    }
    let text = String::from_utf8(bytes.to_vec()).map_err(|e| e.utf8_error().valid_up_to())?;
    let asm = AsmOptions { env: opts.env, preserve_numeric_ids: false };
    match assemble_with_map(&text, &asm) {
        Err(diags) => {
            let n = diags.len();
            Ok(Report {
                text,
                words: Vec::new(),
                word_spans: vec![None; n],
                related_words: diags.iter().map(|d| vec![None; d.related.len()]).collect(),
                diags,
            })
        }
        Ok(out) => {
            let names = valid::TextNames::from_asm(&text, &out);
            let mut diags = valid::validate_words_named(&out.words, opts, &names);
            let mut r = Report::of_words(out.words, Vec::new());
            r.word_spans = diags.iter().map(|d| word_span(d, d.span)).collect();
            // `locate` keeps only the related spans it can place in the text.
            r.related_words = diags
                .iter()
                .map(|d| {
                    d.related
                        .iter()
                        .filter(|x| valid::locate_span(&out.map, x.span).is_some())
                        .map(|x| word_span(d, x.span))
                        .collect()
                })
                .collect();
            valid::locate(&mut diags, &out.map);
            r.diags = diags;
            r.text = text;
            Ok(r)
        }
    }
}

fn word_span(d: &Diagnostic, s: Span) -> Option<Span> {
    (d.unit == SpanUnit::BinaryWords).then_some(s)
}

impl Report {
    fn of_words(words: Vec<u32>, diags: Vec<Diagnostic>) -> Report {
        Report {
            text: String::new(),
            words,
            word_spans: diags.iter().map(|d| word_span(d, d.span)).collect(),
            related_words: diags
                .iter()
                .map(|d| d.related.iter().map(|x| word_span(d, x.span)).collect())
                .collect(),
            diags,
        }
    }

    fn render(&self, d: &Diagnostic, file: &str) -> String {
        let note = rules::rule(d.code).map(|r| r.explanation);
        render_full(d, &self.text, Some(&self.words), file, note)
    }

    /// The `--json` document.
    fn json(&self, file: &str, env: TargetEnv) -> Value {
        let text = !self.text.is_empty();
        let at = |unit: SpanUnit, s: Span| -> [Value; 4] {
            if unit == SpanUnit::TextBytes && text {
                let (l, c) = diag::line_col(&self.text, s.start);
                let (el, ec) = diag::line_col(&self.text, s.end.max(s.start));
                [json!(l), json!(c), json!(el), json!(ec)]
            } else {
                [Value::Null, Value::Null, Value::Null, Value::Null]
            }
        };
        let diags: Vec<Value> = self
            .diags
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let [line, column, end_line, end_column] = at(d.unit, d.span);
                let ws = self.word_spans.get(i).copied().flatten();
                let related: Vec<Value> = d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(k, r)| {
                        let rw = self.related_words.get(i).and_then(|v| v.get(k)).copied().flatten();
                        let located = d.unit == SpanUnit::TextBytes;
                        let [line, column, end_line, end_column] = if located {
                            at(SpanUnit::TextBytes, r.span)
                        } else {
                            at(SpanUnit::BinaryWords, r.span)
                        };
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
                    "severity": match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                        Severity::Note => "note",
                    },
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
            "valid": !self.diags.iter().any(|d| d.severity == Severity::Error),
            "file": file,
            "target_env": env.name(),
            "diagnostics": diags,
        })
    }
}
