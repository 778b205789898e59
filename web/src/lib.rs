//! The wasm-bindgen facade of spvlab for the page.
//!
//! Thin on purpose: every function converts its arguments, calls spvlab-core
//! and serialises the answer (with serde-wasm-bindgen) for JavaScript. The
//! conversions are plain Rust functions ([`assemble_report`],
//! [`disassemble_report`]) so that they are tested natively; the
//! `#[wasm_bindgen]` wrappers only move values across the boundary.
//!
//! JavaScript sees (every diagnostic has one shape: `Diagnostic` of
//! www/src/api.ts, core's `report::Diagnostic`):
//!
//! * `analyze({ text, targetEnv })` → `AnalyzeReport`, `cfgDot(text, targetEnv,
//!   functionId?, options?)` → DOT, `disassembleBinary(bytes)` → `{ text?,
//!   diagnostics }`, `encodeShare(state)` → `"v1/..."`, `decodeShare(fragment)` →
//!   `{ state?, error?, code? }`: the page's contract, www/src/api.ts (all logic
//!   in core: `report`, `cfg::dot`, `share`)
//! * `assemble(text, targetEnv)` → `{ ok, words: number[], diagnostics }`
//! * `disassemble(bytes: Uint8Array, options?)` → `{ ok, text, diagnostics }`
//!   with `options = { rawId?, header?, indent? }`
//! * `validate(textOrBytes: string | Uint8Array, targetEnv, args?: string[])` →
//!   `{ valid, assembled, diagnostics }`, `args` being spirv-val's options as its
//!   command line spells them (`["--relax-block-layout", "--max-struct-depth", "10"]`);
//!   text is assembled for the same target environment and its problems located
//! * `targetEnvs()`, `defaultTargetEnv()`, `grammarWords()`, `version()`
//!
//! Bad arguments (an unknown target environment, options of the wrong shape)
//! throw a JavaScript `Error` built from [`WebError`].

use serde::{Deserialize, Serialize};
use spvlab_core::diag::{Diagnostic, Severity};
use spvlab_core::env::{TARGET_ENVS, TargetEnv};
use spvlab_core::text::{AsmOptions, DisOptions};
use spvlab_core::cfg::dot::{DotOptions, to_dot};
use spvlab_core::report::{self, AnalyzeReport};
use spvlab_core::share::{self, ShareState};
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

/// What `assemble` answers.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct AsmReport {
    pub ok: bool,
    /// The module, one number per word (empty on failure).
    pub words: Vec<u32>,
    pub diagnostics: Vec<report::Diagnostic>,
}

/// What `disassemble` answers.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct DisReport {
    pub ok: bool,
    pub text: String,
    pub diagnostics: Vec<report::Diagnostic>,
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
            diagnostics: {
                let lines = report::LineIndex::new(text);
                diags.iter().map(|d| report::convert_diagnostic(d, text, &lines, None, "input.spvasm")).collect()
            },
        },
    })
}

/// Bytes to words (either byte order), by core's reader: fails with a located
/// diagnostic (`bin.byte-length`, `bin.truncated-header`, `bin.bad-magic`).
#[allow(clippy::result_large_err)] // the core API returns Diagnostic too
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, Diagnostic> {
    spvlab_core::binary::words_from_bytes(bytes).map_err(|e| e.to_diagnostic())
}

/// The page's analysis (`AnalyzeReport` of www/src/api.ts).
pub fn analyze_report(text: &str, target_env: &str) -> Result<AnalyzeReport, WebError> {
    Ok(report::analyze(text, parse_env(target_env)?))
}

/// The DOT of function `function` (its result id; `None`: the first with blocks),
/// empty when there is no such function or the text does not assemble.
pub fn cfg_dot(text: &str, target_env: &str, function: Option<u32>, opts: &DotOptions) -> Result<String, WebError> {
    let r = analyze_report(text, target_env)?;
    Ok(r.function(function).map(|f| to_dot(f, opts)).unwrap_or_default())
}

/// `disassembleBinary`'s answer: the text (absent on failure) and diagnostics.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BinaryText {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    pub diagnostics: Vec<report::Diagnostic>,
}

/// Disassemble a `.spv` (either byte order) into editor text, with friendly names.
pub fn disassemble_binary(bytes: &[u8]) -> BinaryText {
    let result = words_from_bytes(bytes)
        .and_then(|words| spvlab_core::text::disassemble(&words, &DisOptions::default()).map(|t| (t, words)));
    match result {
        Ok((text, _)) => BinaryText { text: Some(text), diagnostics: Vec::new() },
        Err(d) => BinaryText { text: None, diagnostics: vec![binary_diagnostic(&d, None)] },
    }
}

/// `decodeShare`'s answer: the state, or an error message.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DecodedShare {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<ShareState>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
}

pub fn decode_share(fragment: &str) -> DecodedShare {
    match share::decode(fragment) {
        Ok(state) => DecodedShare { state: Some(state), error: None, code: None },
        Err(e) => DecodedShare { state: None, error: Some(e.to_string()), code: Some(e.code()) },
    }
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
            diagnostics: vec![binary_diagnostic(&d, None)],
        },
    }
}

/// A diagnostic about a binary (word offsets, no text).
fn binary_diagnostic(d: &Diagnostic, words: Option<&[u32]>) -> report::Diagnostic {
    report::convert_diagnostic(d, "", &report::LineIndex::new(""), words, "input.spv")
}

/// What `validate` is given: assembly text or a binary.
#[derive(Debug, Clone, Copy)]
pub enum ValInput<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

/// What `validate` answers.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ValReport {
    /// No errors (warnings allowed).
    pub valid: bool,
    /// False when the text did not assemble (the diagnostics are then the assembler's).
    pub assembled: bool,
    pub diagnostics: Vec<report::Diagnostic>,
}

/// Validate assembly text (assembled for `target_env` first) or a binary, with
/// spirv-val's options given as its arguments (`["--max-struct-depth", "10"]`).
pub fn validate_report(input: ValInput<'_>, target_env: &str, args: &[String]) -> Result<ValReport, WebError> {
    use spvlab_core::valid::{self, Options};
    let mut opts = Options { env: parse_env(target_env)?, ..Options::default() };
    opts.apply_args(args.iter().map(String::as_str)).map_err(|e| WebError::BadOptions(e.to_string()))?;
    Ok(match input {
        ValInput::Text(text) => {
            let r = report::analyze_with(text, &opts);
            ValReport { valid: r.valid, assembled: r.assembled, diagnostics: r.diagnostics }
        }
        ValInput::Bytes(bytes) => {
            let (words, diags) = match words_from_bytes(bytes) {
                Ok(w) => {
                    let d = valid::validate_words(&w, &opts);
                    (w, d)
                }
                Err(d) => (Vec::new(), vec![d]),
            };
            ValReport {
                valid: !diags.iter().any(|d| d.severity == Severity::Error),
                assembled: true,
                diagnostics: diags.iter().map(|d| binary_diagnostic(d, Some(&words))).collect(),
            }
        }
    })
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let ser = serde_wasm_bindgen::Serializer::new().serialize_missing_as_null(true).serialize_maps_as_objects(true);
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

/// `validate(textOrBytes, targetEnv, args?)` → `{ valid, assembled, diagnostics }`,
/// where `args` are spirv-val's options as its command line spells them.
#[wasm_bindgen(js_name = validate)]
pub fn js_validate(input: JsValue, target_env: &str, args: Option<Vec<String>>) -> Result<JsValue, JsValue> {
    let opts = args.unwrap_or_default();
    let report = if let Some(text) = input.as_string() {
        validate_report(ValInput::Text(&text), target_env, &opts)?
    } else if input.is_instance_of::<js_sys::Uint8Array>() {
        let bytes = js_sys::Uint8Array::new(&input).to_vec();
        validate_report(ValInput::Bytes(&bytes), target_env, &opts)?
    } else {
        return Err(WebError::BadOptions("validate wants a string or a Uint8Array".into()).into());
    };
    to_js(&report)
}

/// What `analyze` is given (`AnalyzeRequest`).
#[derive(Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct AnalyzeRequest {
    pub text: String,
    #[serde(default)]
    pub target_env: Option<String>,
}

fn now_ms() -> Option<f64> {
    let g = js_sys::global();
    let perf = js_sys::Reflect::get(&g, &JsValue::from_str("performance")).ok()?;
    let now = js_sys::Reflect::get(&perf, &JsValue::from_str("now")).ok()?;
    let f: js_sys::Function = now.dyn_into().ok()?;
    f.call0(&perf).ok()?.as_f64()
}

/// `analyze({ text, targetEnv })` → `AnalyzeReport`.
#[wasm_bindgen(js_name = analyze)]
pub fn js_analyze(request: JsValue) -> Result<JsValue, JsValue> {
    let t0 = now_ms();
    let req: AnalyzeRequest =
        serde_wasm_bindgen::from_value(request).map_err(|e| WebError::BadOptions(e.to_string()))?;
    let env = req.target_env.unwrap_or_else(|| TargetEnv::default().name().into());
    let mut r = analyze_report(&req.text, &env)?;
    if let (Some(a), Some(b)) = (t0, now_ms()) {
        r.elapsed_ms = Some(b - a);
    }
    to_js(&r)
}

/// `cfgDot(text, targetEnv, functionId?, options?)` → DOT text ("" when there
/// is no such function or the text does not assemble).
#[wasm_bindgen(js_name = cfgDot)]
pub fn js_cfg_dot(text: &str, target_env: &str, function_id: Option<u32>, options: JsValue) -> Result<String, JsValue> {
    let opts: DotOptions = if options.is_undefined() || options.is_null() {
        DotOptions::default()
    } else {
        serde_wasm_bindgen::from_value(options).map_err(|e| WebError::BadOptions(e.to_string()))?
    };
    Ok(cfg_dot(text, target_env, function_id, &opts)?)
}

/// `disassembleBinary(bytes)` → `{ text?, diagnostics }`.
#[wasm_bindgen(js_name = disassembleBinary)]
pub fn js_disassemble_binary(bytes: &[u8]) -> Result<JsValue, JsValue> {
    to_js(&disassemble_binary(bytes))
}

/// `encodeShare(state)` → `"v1/..."`.
#[wasm_bindgen(js_name = encodeShare)]
pub fn js_encode_share(state: JsValue) -> Result<String, JsValue> {
    let s: ShareState = serde_wasm_bindgen::from_value(state).map_err(|e| WebError::BadOptions(e.to_string()))?;
    Ok(share::encode(&s))
}

/// `decodeShare(fragment)` → `{ state?, error?, code? }` (never throws on bad links).
#[wasm_bindgen(js_name = decodeShare)]
pub fn js_decode_share(fragment: &str) -> Result<JsValue, JsValue> {
    to_js(&decode_share(fragment))
}

/// The target environment names, as `--target-env` spells them.
#[wasm_bindgen(js_name = targetEnvs)]
pub fn js_target_envs() -> Vec<String> {
    TARGET_ENVS.iter().map(|(n, _)| String::from(*n)).collect()
}

/// Opcode and enumerant names, for the editor's completion.
#[wasm_bindgen(js_name = grammarWords)]
pub fn js_grammar_words() -> Vec<String> {
    spvlab_core::grammar::completion_words().into_iter().map(String::from).collect()
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

    #[test]
    fn unknown_env_is_an_error() {
        assert_eq!(
            assemble_report("", "spv9.9"),
            Err(WebError::UnknownTargetEnv("spv9.9".into()))
        );
    }

    #[test]
    fn assembler_diagnostics_are_located_in_the_text() {
        let r = assemble_report("OpCapability Shader\n  %x = OpFMd\n", "spv1.6").unwrap();
        assert!(!r.ok && r.words.is_empty());
        let d = &r.diagnostics[0];
        assert_eq!(d.code, "asm.unknown-opcode");
        let at = d.range.as_ref().map(|t| (t.line, t.column));
        assert_eq!(at, Some((2, 8)), "{d:?}");
        assert_eq!((d.severity, d.word_offset), ("error", None));
        assert!(d.rendered.contains("input.spvasm:2:8"), "{}", d.rendered);
        assert!(d.help.as_deref().unwrap_or("").contains("OpFMod"), "{d:?}");
    }

    #[test]
    fn bytes_of_either_endianness() {
        let le = [0x03, 0x02, 0x23, 0x07, 0x00, 0x06, 0x01, 0x00, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0];
        let be = [0x07, 0x23, 0x02, 0x03, 0x00, 0x01, 0x06, 0x00, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0];
        assert_eq!(words_from_bytes(&le).unwrap(), vec![0x0723_0203, 0x0001_0600, 0, 5, 0]);
        assert_eq!(words_from_bytes(&be).unwrap(), vec![0x0723_0203, 0x0001_0600, 0, 5, 0]);
        assert_eq!(words_from_bytes(&[]).unwrap_err().code, "bin.truncated-header");
        let e = words_from_bytes(&le[..7]).unwrap_err();
        assert_eq!((e.code, e.unit), ("bin.byte-length", spvlab_core::diag::SpanUnit::BinaryWords));
        let dis = disassemble_binary(&be);
        assert!(dis.text.unwrap().contains("; Bound: 5"));
        let bad = disassemble_binary(&le[..7]);
        assert!(bad.text.is_none());
        assert_eq!(bad.diagnostics[0].code, "bin.byte-length");
        assert_eq!(bad.diagnostics[0].word_offset, Some(1));
    }

    #[test]
    fn analyze_dot_and_share() {
        let r = analyze_report(VALID, "vulkan1.0").unwrap();
        assert!(r.assembled && r.valid, "{:?}", r.diagnostics);
        assert_eq!(r.functions.len(), 1);
        assert!(analyze_report(VALID, "nope").is_err());
        let dot = cfg_dot(VALID, "spv1.6", None, &DotOptions::default()).unwrap();
        assert!(dot.starts_with("digraph"), "{dot}");
        assert_eq!(cfg_dot(VALID, "spv1.6", Some(999), &DotOptions::default()).unwrap(), "");
        let st = ShareState { text: VALID.into(), target_env: "spv1.3".into(), ..Default::default() };
        let d = decode_share(&share::encode(&st));
        assert_eq!(d.state, Some(st));
        let bad = decode_share("v1/%%%");
        assert!(bad.state.is_none() && bad.error.is_some());
        assert_eq!(bad.code, Some("share.bad-base64"));
    }

    #[test]
    fn truncated_binary_reports_a_diagnostic() {
        let r = disassemble_report(&[1, 2, 3], WebDisOptions::default());
        assert!(!r.ok);
        assert_eq!(r.diagnostics[0].code, "bin.byte-length");
    }

    #[test]
    fn dis_options_default_to_core_defaults() {
        let o = WebDisOptions { raw_id: Some(true), ..Default::default() }.to_core();
        assert_eq!(o, DisOptions { raw_id: true, ..DisOptions::default() });
    }

    const VALID: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n";

    #[test]
    fn validate_text_and_binary() {
        let none: Vec<String> = Vec::new();
        let r = validate_report(ValInput::Text(VALID), "vulkan1.0", &none).unwrap();
        assert!(r.valid && r.assembled && r.diagnostics.is_empty(), "{r:?}");
        let words = spvlab_core::text::assemble(VALID, &AsmOptions::default()).unwrap();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let r = validate_report(ValInput::Bytes(&bytes), "spv1.6", &none).unwrap();
        assert!(r.valid, "{r:?}");
        // An id past the bound: the binary's own error, at its words.
        let mut bad = words.clone();
        bad[3] = 3;
        let bytes: Vec<u8> = bad.iter().flat_map(|w| w.to_le_bytes()).collect();
        let r = validate_report(ValInput::Bytes(&bytes), "spv1.6", &none).unwrap();
        assert!(!r.valid && r.assembled);
        let d = &r.diagnostics[0];
        assert!(d.range.is_none() && d.word_offset.is_some(), "{d:?}");
        assert!(d.rendered.contains("(instruction "), "{}", d.rendered);
    }

    #[test]
    fn validate_locates_problems_in_the_text() {
        // Raw words: an OpTypeInt whose result id is past the bound, on line 4.
        let src = "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%int = OpTypeInt 32 0\n  !0x00040015 !1000 !32 !0\n";
        let none: Vec<String> = Vec::new();
        let r = validate_report(ValInput::Text(src), "spv1.6", &none).unwrap();
        assert!(!r.valid && r.assembled, "{r:?}");
        let at = r.diagnostics[0].range.as_ref().map(|t| (t.line, t.column));
        assert_eq!(at, Some((4, 3)), "{:?}", r.diagnostics[0]);
        // Text that does not assemble: the assembler's diagnostics.
        let r = validate_report(ValInput::Text("OpFoo\n"), "spv1.6", &none).unwrap();
        assert!(!r.valid && !r.assembled && !r.diagnostics.is_empty());
        assert_eq!(r.diagnostics[0].range.as_ref().map(|t| t.line), Some(1));
    }

    #[test]
    fn validate_takes_spirv_val_arguments() {
        let args = |a: &[&str]| a.iter().map(|s| String::from(*s)).collect::<Vec<_>>();
        let bad = args(&["--max-struct_depth", "x"]);
        assert!(matches!(validate_report(ValInput::Text(VALID), "spv1.6", &bad), Err(WebError::BadOptions(_))));
        let ok = args(&["--max-struct_depth", "3", "--relax-block-layout"]);
        assert!(validate_report(ValInput::Text(VALID), "spv1.6", &ok).unwrap().valid);
        assert!(matches!(
            validate_report(ValInput::Text(VALID), "spv9", &ok),
            Err(WebError::UnknownTargetEnv(_))
        ));
    }
}
