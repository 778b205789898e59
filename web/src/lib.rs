//! The wasm-bindgen facade of spvlab for the page.
//!
//! Thin on purpose: every function converts its arguments, calls spvlab-core
//! and serialises the answer (with serde-wasm-bindgen) for JavaScript. The
//! conversions are plain Rust functions ([`assemble_report`],
//! [`disassemble_report`]) so that they are tested natively; the
//! `#[wasm_bindgen]` wrappers only move values across the boundary.
//!
//! JavaScript sees:
//!
//! * `assemble(text, targetEnv)` → `{ ok, words: number[], diagnostics: Diag[] }`
//! * `disassemble(bytes: Uint8Array, options?)` → `{ ok, text, diagnostics: Diag[] }`
//!   with `options = { rawId?, header?, indent? }`
//! * `targetEnvs()` → `string[]`, `version()` → `string`
//!
//! where a `Diag` carries the core [`Diagnostic`] plus 1-based `line`/`col`
//! (and `endLine`/`endCol`) for text spans, and `rendered`, the rustc-style
//! excerpt. Bad arguments (an unknown target environment, options of the
//! wrong shape) throw a JavaScript `Error` built from [`WebError`].

use serde::{Deserialize, Serialize};
use spvlab_core::diag::{self, Diagnostic, Severity, SpanUnit};
use spvlab_core::env::{TARGET_ENVS, TargetEnv};
use spvlab_core::text::{AsmOptions, DisOptions};
use wasm_bindgen::prelude::*;

/// The one error type of the facade: arguments JavaScript got wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebError {
    /// The target environment is not one SPIRV-Tools knows.
    UnknownTargetEnv(String),
    /// An options object that does not deserialise.
    BadOptions(String),
}

impl core::fmt::Display for WebError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            WebError::UnknownTargetEnv(e) => write!(f, "unknown target environment `{e}`"),
            WebError::BadOptions(why) => write!(f, "bad options: {why}"),
        }
    }
}

impl From<WebError> for JsValue {
    fn from(e: WebError) -> JsValue {
        js_sys_error(&e.to_string())
    }
}

fn js_sys_error(msg: &str) -> JsValue {
    JsError::new(msg).into()
}

/// A span with its position in the text, for JavaScript.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct WebSpan {
    /// Byte offsets in the text, or word offsets in the binary (see `unit`).
    pub start: u32,
    pub end: u32,
    /// 1-based line and column (in chars) of `start` and `end`; 0 for binary spans.
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

/// A related span with its label.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct WebRelated {
    pub span: WebSpan,
    pub label: String,
}

/// A diagnostic for JavaScript.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct WebDiagnostic {
    pub code: &'static str,
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    pub message: String,
    /// `text` (byte offsets) or `binary` (word offsets).
    pub unit: &'static str,
    pub span: WebSpan,
    pub label: String,
    pub related: Vec<WebRelated>,
    pub help: Option<String>,
    /// The rustc-style rendering (with the caret excerpt for text spans).
    pub rendered: String,
}

/// What `assemble` answers.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct AsmReport {
    pub ok: bool,
    /// The module, one number per word (empty on failure).
    pub words: Vec<u32>,
    pub diagnostics: Vec<WebDiagnostic>,
}

/// What `disassemble` answers.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct DisReport {
    pub ok: bool,
    pub text: String,
    pub diagnostics: Vec<WebDiagnostic>,
}

/// Options of `disassemble`, as JavaScript passes them (every field optional).
#[derive(Deserialize, Debug, Clone, Copy, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct WebDisOptions {
    pub raw_id: Option<bool>,
    pub header: Option<bool>,
    pub indent: Option<bool>,
}

impl WebDisOptions {
    fn to_core(self) -> DisOptions {
        let d = DisOptions::default();
        DisOptions {
            raw_id: self.raw_id.unwrap_or(d.raw_id),
            header: self.header.unwrap_or(d.header),
            indent: self.indent.unwrap_or(d.indent),
        }
    }
}

fn web_span(span: spvlab_core::Span, unit: SpanUnit, src: &str) -> WebSpan {
    let (mut line, mut col, mut end_line, mut end_col) = (0, 0, 0, 0);
    if unit == SpanUnit::TextBytes {
        (line, col) = diag::line_col(src, span.start);
        (end_line, end_col) = diag::line_col(src, span.end.max(span.start));
    }
    WebSpan { start: span.start, end: span.end, line, col, end_line, end_col }
}

/// Convert a core diagnostic, locating it in `src` (the text, or "" for a binary).
pub fn web_diagnostic(d: &Diagnostic, src: &str, file: &str) -> WebDiagnostic {
    WebDiagnostic {
        code: d.code,
        severity: match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        },
        message: d.message.clone(),
        unit: match d.unit {
            SpanUnit::TextBytes => "text",
            SpanUnit::BinaryWords => "binary",
        },
        span: web_span(d.span, d.unit, src),
        label: d.label.clone(),
        related: d
            .related
            .iter()
            .map(|r| WebRelated { span: web_span(r.span, d.unit, src), label: r.label.clone() })
            .collect(),
        help: d.help.clone(),
        rendered: diag::render(d, src, file),
    }
}

/// Parse a target environment name (as `--target-env` spells it).
pub fn parse_env(name: &str) -> Result<TargetEnv, WebError> {
    TargetEnv::parse(name).ok_or_else(|| WebError::UnknownTargetEnv(name.into()))
}

/// Assemble `text` for `target_env`.
pub fn assemble_report(text: &str, target_env: &str) -> Result<AsmReport, WebError> {
    let opts = AsmOptions { env: parse_env(target_env)?, ..AsmOptions::default() };
    Ok(match spvlab_core::text::assemble(text, &opts) {
        Ok(words) => AsmReport { ok: true, words, diagnostics: Vec::new() },
        Err(diags) => AsmReport {
            ok: false,
            words: Vec::new(),
            diagnostics: diags.iter().map(|d| web_diagnostic(d, text, "input.spvasm")).collect(),
        },
    })
}

/// Bytes to words: little-endian unless the magic number reads big-endian.
///
/// Fails (with a located diagnostic) when the length is not a multiple of 4.
#[allow(clippy::result_large_err)] // the core API returns Diagnostic too
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, Diagnostic> {
    if !bytes.len().is_multiple_of(4) {
        let words = u32::try_from(bytes.len() / 4).unwrap_or(u32::MAX);
        return Err(Diagnostic::error(
            "bin.not-whole-words",
            spvlab_core::Span::new(words, words.saturating_add(1)),
            "the binary is not a whole number of 32-bit words",
        )
        .in_binary());
    }
    let big = bytes.get(..4) == Some(&0x0723_0203u32.to_be_bytes()[..]);
    Ok(bytes
        .chunks_exact(4)
        .map(|c| {
            let b = [c[0], c[1], c[2], c[3]];
            if big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) }
        })
        .collect())
}

/// Disassemble `bytes` (a binary module, either endianness).
#[allow(clippy::result_large_err)]
pub fn disassemble_report(bytes: &[u8], opts: WebDisOptions) -> DisReport {
    let result = words_from_bytes(bytes)
        .and_then(|words| spvlab_core::text::disassemble(&words, &opts.to_core()));
    match result {
        Ok(text) => DisReport { ok: true, text, diagnostics: Vec::new() },
        Err(d) => DisReport {
            ok: false,
            text: String::new(),
            diagnostics: vec![web_diagnostic(&d, "", "input.spv")],
        },
    }
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let ser = serde_wasm_bindgen::Serializer::new().serialize_missing_as_null(true);
    value.serialize(&ser).map_err(Into::into)
}

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// `assemble(text, targetEnv)` → `{ ok, words, diagnostics }`.
#[wasm_bindgen(js_name = assemble)]
pub fn js_assemble(text: &str, target_env: &str) -> Result<JsValue, JsValue> {
    to_js(&assemble_report(text, target_env)?)
}

/// `disassemble(bytes, options?)` → `{ ok, text, diagnostics }`.
#[wasm_bindgen(js_name = disassemble)]
pub fn js_disassemble(bytes: &[u8], options: JsValue) -> Result<JsValue, JsValue> {
    let opts: WebDisOptions = if options.is_undefined() || options.is_null() {
        WebDisOptions::default()
    } else {
        serde_wasm_bindgen::from_value(options)
            .map_err(|e| WebError::BadOptions(e.to_string()))?
    };
    to_js(&disassemble_report(bytes, opts))
}

/// The target environment names, as `--target-env` spells them.
#[wasm_bindgen(js_name = targetEnvs)]
pub fn js_target_envs() -> Vec<String> {
    TARGET_ENVS.iter().map(|(n, _)| String::from(*n)).collect()
}

/// The default target environment.
#[wasm_bindgen(js_name = defaultTargetEnv)]
pub fn js_default_target_env() -> String {
    TargetEnv::default().name().into()
}

/// The version of spvlab.
#[wasm_bindgen(js_name = version)]
pub fn js_version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spvlab_core::Span;

    #[test]
    fn unknown_env_is_an_error() {
        assert_eq!(
            assemble_report("", "spv9.9"),
            Err(WebError::UnknownTargetEnv("spv9.9".into()))
        );
    }

    #[test]
    fn text_diagnostics_get_line_and_column() {
        let src = "OpCapability Shader\n  %x = OpFMd\n";
        let d = Diagnostic::error("asm.unknown-opcode", Span::new(27, 31), "unknown opcode")
            .with_related(Span::new(0, 12), "here")
            .with_help("did you mean `OpFMod`?");
        let w = web_diagnostic(&d, src, "a.spvasm");
        assert_eq!((w.span.line, w.span.col, w.span.end_line, w.span.end_col), (2, 8, 2, 12));
        assert_eq!((w.related[0].span.line, w.related[0].span.col), (1, 1));
        assert_eq!(w.severity, "error");
        assert_eq!(w.unit, "text");
        assert!(w.rendered.contains("a.spvasm:2:8"), "{}", w.rendered);
    }

    #[test]
    fn binary_diagnostics_have_no_line() {
        let d = Diagnostic::error("bin.x", Span::new(5, 6), "bad").in_binary();
        let w = web_diagnostic(&d, "", "a.spv");
        assert_eq!((w.span.start, w.span.line, w.span.col), (5, 0, 0));
        assert_eq!(w.unit, "binary");
    }

    #[test]
    fn bytes_of_either_endianness() {
        let le = [0x03, 0x02, 0x23, 0x07, 0x00, 0x06, 0x01, 0x00];
        let be = [0x07, 0x23, 0x02, 0x03, 0x00, 0x01, 0x06, 0x00];
        assert_eq!(words_from_bytes(&le).unwrap(), vec![0x0723_0203, 0x0001_0600]);
        assert_eq!(words_from_bytes(&be).unwrap(), vec![0x0723_0203, 0x0001_0600]);
        assert_eq!(words_from_bytes(&[]).unwrap(), Vec::<u32>::new());
        let e = words_from_bytes(&le[..7]).unwrap_err();
        assert_eq!((e.code, e.span, e.unit), ("bin.not-whole-words", Span::new(1, 2), SpanUnit::BinaryWords));
    }

    #[test]
    fn truncated_binary_reports_a_diagnostic() {
        let r = disassemble_report(&[1, 2, 3], WebDisOptions::default());
        assert!(!r.ok);
        assert_eq!(r.diagnostics[0].code, "bin.not-whole-words");
    }

    #[test]
    fn dis_options_default_to_core_defaults() {
        let o = WebDisOptions { raw_id: Some(true), ..Default::default() }.to_core();
        assert_eq!(o, DisOptions { raw_id: true, ..DisOptions::default() });
    }
}
