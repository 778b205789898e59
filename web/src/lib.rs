//! The wasm-bindgen facade of spvlab for the page.
//!
//! Thin on purpose: every function converts its arguments, calls spvlab-core
//! and serialises the answer (with serde-wasm-bindgen) for JavaScript. The
//! conversions are plain Rust functions so that they are tested natively; the
//! `#[wasm_bindgen]` wrappers only move values across the boundary.
//!
//! JavaScript sees (every diagnostic has one shape, core's own `Diagnostic`
//! located for the page: `Diagnostic` of www/src/api.ts,
//! `analysis::report::LocatedDiagnostic`):
//!
//! * `new Session()`: holds the last analysis, the way Ruff's playground keeps
//!   its workspace. `session.analyze({ text, targetEnv })` → `AnalyzeReport`,
//!   and `session.analyzeJson(...)` → the same report as JSON text (what the
//!   page's worker uses: cheaper than thousands of objects for a big module);
//!   `session.cfgDot(functionId?, options?)` → the DOT of that function of the
//!   last analysis (no second analysis: a CFG toggle only redraws);
//!   `session.reflect()` → its resources, workgroup size and built-ins;
//!   `session.run(request)` → `RunResult`, the interpreter's run of the last
//!   analysis, and `session.runGpu(request)` → `Promise<RunResult>`, the
//!   same on WebGPU through our WGSL (see [`run`]; guarded by the
//!   interpreter's step budget; without the `gpu` feature or without
//!   WebGPU it resolves to the error `noDevice`). A Fragment entry point is
//!   drawn (the request's `draw`: framebuffer, rect or grid, format; with
//!   the `draw` feature): the result's `image` has the attachment's 8-bit
//!   RGBA rows as a `Uint8Array` (`rgba`, and a float format's texels as
//!   `data`), `draw` the counts, `trace` the paths of the pixels asked for
//!   (`paths: [[x, y, 0]]`), and an error its `site` (the pixel or vertex); `session.wgsl()` →
//!   `WgslView`, the last analysis lowered to WGSL with its source map, or
//!   the refusal (see [`wgsl`]); `session.flesh(request)` → a function of
//!   the last analysis fleshed (see [`flesh`], with `generateCfg` and
//!   `quizQuestion`);
//! * `assemble(text, targetEnv)` → `{ ok, words: number[], diagnostics }`
//! * `disassemble(bytes: Uint8Array, options?)` → `{ ok, text, diagnostics }`
//!   with `options = { rawId?, header?, indent? }`
//! * `validate(textOrBytes: string | Uint8Array, targetEnv, args?: string[])` →
//!   `{ valid, assembled, diagnostics }`, `args` being spirv-val's options as its
//!   command line spells them (`["--relax-block-layout", "--max-struct-depth", "10"]`);
//!   text is assembled for the same target environment and its problems located
//! * `encodeShare(state)` → `"v1/..."`, `decodeShare(fragment)` →
//!   `{ state?, error?, code? }`
//! * `targetEnvs()`, `defaultTargetEnv()`, `grammarWords()`, `version()`
//!
//! Bad arguments (an unknown target environment, options of the wrong shape)
//! throw a JavaScript `Error` built from [`WebError`].

pub mod amber;
pub mod flesh;
pub mod run;
pub mod teach;
pub mod wgsl;

use serde::{Deserialize, Serialize};
use spvlab_core::analysis::Analysis;
use spvlab_core::analysis::dot::DotOptions;
use spvlab_core::analysis::report::{AnalyzeReport, LocatedDiagnostic};
use spvlab_core::analysis::{BINARY_FILE, TEXT_FILE};
use spvlab_core::env::{TARGET_ENVS, TargetEnv};
use spvlab_core::share::{self, ShareState};
use spvlab_core::text::{AsmOptions, DisOptions};
use spvlab_core::valid::Options;
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
        JsError::new(&e.to_string()).into()
    }
}

/// What `assemble` answers.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct AsmReport {
    pub ok: bool,
    /// The module, one number per word (empty on failure).
    pub words: Vec<u32>,
    pub diagnostics: Vec<LocatedDiagnostic>,
}

/// What `disassemble` answers.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct DisReport {
    pub ok: bool,
    pub text: String,
    pub diagnostics: Vec<LocatedDiagnostic>,
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
            diagnostics: LocatedDiagnostic::list(&diags, text, None, TEXT_FILE),
        },
    })
}

/// Disassemble `bytes` (a binary module, either byte order): the page's
/// dropped `.spv` files and the `disassemble` export.
pub fn disassemble_report(bytes: &[u8], opts: WebDisOptions) -> DisReport {
    let analysis = Analysis::read_bytes(bytes);
    match analysis.disassemble(&opts.to_core()) {
        Some(text) => DisReport { ok: true, text, diagnostics: Vec::new() },
        None => DisReport {
            ok: false,
            text: String::new(),
            diagnostics: LocatedDiagnostic::list(analysis.diagnostics(), "", None, BINARY_FILE),
        },
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
    pub diagnostics: Vec<LocatedDiagnostic>,
}

/// The validator's options: a target environment and spirv-val's arguments.
pub fn val_options(target_env: &str, args: &[String]) -> Result<Options, WebError> {
    let mut opts = Options { env: parse_env(target_env)?, ..Options::default() };
    opts.apply_args(args.iter().map(String::as_str)).map_err(|e| WebError::BadOptions(e.to_string()))?;
    Ok(opts)
}

/// Validate assembly text (assembled for `target_env` first) or a binary, with
/// spirv-val's options given as its arguments (`["--max-struct-depth", "10"]`).
pub fn validate_report(input: ValInput<'_>, target_env: &str, args: &[String]) -> Result<ValReport, WebError> {
    let opts = val_options(target_env, args)?;
    let a = match input {
        ValInput::Text(text) => Analysis::of_text(text, &opts),
        ValInput::Bytes(bytes) => Analysis::of_bytes(bytes, &opts),
    };
    Ok(ValReport { valid: a.is_valid(), assembled: a.assembled(), diagnostics: LocatedDiagnostic::all(&a) })
}

/// What `Session.analyze` is given (`AnalyzeRequest`).
#[derive(Deserialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct AnalyzeRequest {
    pub text: String,
    #[serde(default)]
    pub target_env: Option<String>,
}

/// The page's session: the last analysis, which every view reads.
#[wasm_bindgen]
#[derive(Default)]
pub struct Session {
    analysis: Option<Analysis>,
}

impl Session {
    /// Analyse a text (replacing the last analysis) and give the page's report.
    pub fn analyze_text(&mut self, text: &str, target_env: &str) -> Result<AnalyzeReport, WebError> {
        let a = Analysis::of_text(text, &Options { env: parse_env(target_env)?, ..Options::default() });
        let r = AnalyzeReport::of(&a);
        self.analysis = Some(a);
        Ok(r)
    }

    /// [`Session::analyze_text`] for a request from JavaScript (`{ text, targetEnv? }`).
    fn analyze_request(&mut self, request: JsValue) -> Result<AnalyzeReport, WebError> {
        let req: AnalyzeRequest =
            serde_wasm_bindgen::from_value(request).map_err(|e| WebError::BadOptions(e.to_string()))?;
        let env = req.target_env.unwrap_or_else(|| TargetEnv::default().name().into());
        self.analyze_text(&req.text, &env)
    }

    /// The DOT of function `function` (its result id; `None`: the first with
    /// blocks) of the last analysis; empty when there is none, no such function,
    /// or the text did not assemble.
    pub fn dot(&self, function: Option<u32>, opts: &DotOptions) -> String {
        self.analysis.as_ref().and_then(|a| a.dot(function, opts)).unwrap_or_default()
    }
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session::default()
    }

    /// `session.analyze({ text, targetEnv })` → `AnalyzeReport`.
    #[wasm_bindgen(js_name = analyze)]
    pub fn js_analyze(&mut self, request: JsValue) -> Result<JsValue, JsValue> {
        to_js(&self.analyze_request(request)?)
    }

    /// `session.analyzeJson({ text, targetEnv })` → the `AnalyzeReport` as JSON
    /// text. The page's worker uses this one: a report has thousands of small
    /// objects (ranges, blocks, ids), which cost less as one string that the
    /// page parses than built one by one across the boundary and then copied
    /// between threads.
    #[wasm_bindgen(js_name = analyzeJson)]
    pub fn js_analyze_json(&mut self, request: JsValue) -> Result<String, JsValue> {
        let report = self.analyze_request(request)?;
        serde_json::to_string(&report).map_err(|e| JsValue::from_str(&e.to_string()))
    }

    /// `session.reflect()` → the last analysis's `Reflection` (resources,
    /// workgroup size and built-ins per entry point), or `null` without a module.
    #[wasm_bindgen(js_name = reflect)]
    pub fn js_reflect(&self) -> Result<JsValue, JsValue> {
        to_js(&self.analysis.as_ref().and_then(Analysis::reflect))
    }

    /// `session.cfgDot(functionId?, options?)` → DOT text of the last analysis.
    #[wasm_bindgen(js_name = cfgDot)]
    pub fn js_cfg_dot(&self, function_id: Option<u32>, options: JsValue) -> Result<String, JsValue> {
        Ok(self.dot(function_id, &from_js_or_default(options)?))
    }
}

impl Session {
    /// The request of `run`/`runGpu`, and the last analysis.
    fn run_request(&self, request: JsValue) -> Result<(&Analysis, run::RunRequest), run::RunResult> {
        let req: run::RunRequest = from_js_or_default(request).map_err(|e| run::no_module("interp", run::RunFailure::new("input", e.to_string())))?;
        let a = self.analysis.as_ref().ok_or_else(|| run::no_module("interp", run::RunFailure::new("module", "nothing analysed yet")))?;
        Ok((a, req))
    }
}

#[wasm_bindgen]
impl Session {
    /// `session.run(request?)` → `RunResult`: the last analysis's module on
    /// the interpreter (errors are in the result, never thrown).
    #[wasm_bindgen(js_name = run)]
    pub fn js_run(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let r = match self.run_request(request) {
            Ok((a, req)) => run::run_interp(a, &req),
            Err(r) => r,
        };
        run_to_js(&r)
    }

    /// `session.runGpu(request?)` → `Promise<RunResult>`: the same run on
    /// WebGPU (the browser's adapter, our WGSL). The interpreter runs first
    /// as the guard: a module that does not terminate there is not
    /// dispatched (`stepBudget`) unless `request.force`; a module our
    /// lowering refuses answers `refused` with the reason code. The promise
    /// never rejects: every failure is the result's typed `error`.
    #[wasm_bindgen(js_name = runGpu)]
    pub fn js_run_gpu(&self, request: JsValue) -> js_sys::Promise {
        let first = match self.run_request(request) {
            Ok((a, req)) => web_gpu::start(a, &req),
            Err(r) => Err(r),
        };
        match first {
            Err(r) => js_sys::Promise::resolve(&run_to_js(&r).unwrap_or(JsValue::NULL)),
            #[allow(unreachable_patterns)]
            Ok(job) => web_gpu::promise(job),
        }
    }
}

/// `loseGpuDevice()`: a test hook (the Run panel's device-loss test): the
/// next WebGPU dispatch destroys its device while its results are read back,
/// as a real loss would; the run after it makes a new device. `false` in a
/// build without the GPU runner.
#[wasm_bindgen(js_name = loseGpuDevice)]
pub fn lose_gpu_device() -> bool {
    web_gpu::lose_next()
}

/// The GPU side of `runGpu`, by target and feature.
mod web_gpu {
    use super::*;

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    pub type Job = run::GpuRun;
    #[cfg(not(all(feature = "gpu", target_arch = "wasm32")))]
    pub type Job = core::convert::Infallible;

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    pub fn start(a: &Analysis, req: &run::RunRequest) -> Result<Job, run::RunResult> {
        run::gpu_guard(a, req)
    }

    /// Without WebGPU in this build (natively the CLI drives the GPU).
    #[cfg(not(all(feature = "gpu", target_arch = "wasm32")))]
    pub fn start(_: &Analysis, _: &run::RunRequest) -> Result<Job, run::RunResult> {
        Err(run::no_module("wgpu", run::RunFailure::new("noDevice", "this build of the engine has no GPU runner (the `gpu` feature, in wasm)")))
    }

    #[cfg(not(all(feature = "gpu", target_arch = "wasm32")))]
    pub fn promise(job: Job) -> js_sys::Promise {
        match job {}
    }

    #[cfg(not(all(feature = "gpu", target_arch = "wasm32")))]
    pub fn lose_next() -> bool {
        false
    }

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    thread_local! {
        /// Set by [`lose_next`]: the next dispatch destroys its device.
        static LOSE: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
    }

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    pub fn lose_next() -> bool {
        LOSE.with(|l| l.set(true));
        true
    }

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    thread_local! {
        /// The device and the adapter in words, kept from one run to the
        /// next (made again once lost).
        static GPU: core::cell::RefCell<Option<(std::rc::Rc<spvlab_gpu::Gpu>, String)>> = const { core::cell::RefCell::new(None) };
    }

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    fn get(v: &JsValue, key: &str) -> JsValue {
        js_sys::Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
    }

    /// `navigator.gpu` of this page (or worker), if it has one.
    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    fn navigator_gpu() -> Option<JsValue> {
        let nav = get(&js_sys::global(), "navigator");
        Some(get(&nav, "gpu")).filter(|g| !g.is_undefined() && !g.is_null())
    }

    /// The adapter in words from the browser's `GPUAdapterInfo` (wgpu's
    /// name is its `description`, which Chromium leaves empty): "google
    /// swiftshader (WebGPU, fallback adapter)".
    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    async fn adapter_words(gpu: &JsValue) -> Option<String> {
        use wasm_bindgen::JsCast;
        let request: js_sys::Function = get(gpu, "requestAdapter").dyn_into().ok()?;
        let p: js_sys::Promise = request.call0(gpu).ok()?.dyn_into().ok()?;
        let adapter = wasm_bindgen_futures::JsFuture::from(p).await.ok().filter(|a| !a.is_null() && !a.is_undefined())?;
        let info = get(&adapter, "info");
        let words: Vec<String> = ["vendor", "architecture", "device", "description"]
            .iter()
            .filter_map(|k| get(&info, k).as_string().filter(|s| !s.is_empty()))
            .collect();
        let fallback = get(&info, "isFallbackAdapter").as_bool().unwrap_or(false);
        Some(format!("{} (WebGPU{})", if words.is_empty() { "unnamed adapter".into() } else { words.join(" ") }, if fallback { ", fallback adapter" } else { "" }))
    }

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    async fn device() -> Result<(std::rc::Rc<spvlab_gpu::Gpu>, String), String> {
        if let Some(g) = GPU.with(|g| g.borrow().clone()).filter(|g| !g.0.is_lost()) {
            return Ok(g);
        }
        let Some(nav_gpu) = navigator_gpu() else {
            return Err("this browser has no WebGPU (navigator.gpu is missing; Chromium needs a GPU or --enable-unsafe-webgpu)".into());
        };
        let g = std::rc::Rc::new(spvlab_gpu::Gpu::new().await?);
        let name = adapter_words(&nav_gpu).await.unwrap_or_else(|| g.info().to_string());
        GPU.with(|c| *c.borrow_mut() = Some((g.clone(), name.clone())));
        Ok((g, name))
    }

    #[cfg(all(feature = "gpu", target_arch = "wasm32"))]
    pub fn promise(job: Job) -> js_sys::Promise {
        wasm_bindgen_futures::future_to_promise(async move {
            // In the browser `wait` does nothing, except for the test hook.
            let wait = |d: &spvlab_gpu::wgpu::Device| {
                if LOSE.with(|l| l.replace(false)) {
                    d.destroy();
                }
                Ok(())
            };
            let mut r = match device().await {
                Ok((gpu, name)) => run::RunResult { adapter: Some(name), ..job.run(&gpu, &wait).await },
                Err(m) => run::failed(&job.plan, "wgpu", run::RunFailure::new("noDevice", m)),
            };
            // A lost device is dropped here: the next run makes a new one
            // (no reload).
            if let Some(e) = r.error.as_mut().filter(|e| e.kind == "deviceLost") {
                GPU.with(|c| *c.borrow_mut() = None);
                e.message.push_str(" (the next run makes a new device)");
            }
            run_to_js(&r)
        })
    }
}

/// A run's result for JavaScript: its JSON, and a draw's image bytes set
/// on its `image` as `Uint8Array`s (`rgba`, and `data` for a float
/// format): one copy each, where a JSON array of numbers would cost a
/// number per byte.
fn run_to_js(r: &run::RunResult) -> Result<JsValue, JsValue> {
    let v = to_js_json(r)?;
    if let Some(img) = &r.image {
        let o = js_sys::Reflect::get(&v, &JsValue::from_str("image"))?;
        js_sys::Reflect::set(&o, &JsValue::from_str("rgba"), &js_sys::Uint8Array::from(&img.rgba[..]))?;
        if !img.data.is_empty() {
            js_sys::Reflect::set(&o, &JsValue::from_str("data"), &js_sys::Uint8Array::from(&img.data[..]))?;
        }
    }
    Ok(v)
}

/// A value as JavaScript gets it through JSON (64-bit integers and NaNs
/// that serde-wasm-bindgen cannot carry as numbers come out as JSON does).
fn to_js_json<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value).map_err(|e| JsValue::from_str(&e.to_string()))?;
    js_sys::JSON::parse(&text)
}

/// Options from JavaScript: `undefined` or `null` give the defaults.
fn from_js_or_default<T: Default + serde::de::DeserializeOwned>(v: JsValue) -> Result<T, WebError> {
    if v.is_undefined() || v.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(v).map_err(|e| WebError::BadOptions(e.to_string()))
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
    to_js(&disassemble_report(bytes, from_js_or_default(options)?))
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
        assert_eq!(d.diagnostic.code, "asm.unknown-opcode");
        let at = d.range.as_ref().map(|t| (t.line, t.column));
        assert_eq!(at, Some((2, 8)), "{d:?}");
        assert_eq!((d.diagnostic.severity.name(), d.word_offset), ("error", None));
        assert!(d.rendered.contains("input.spvasm:2:8"), "{}", d.rendered);
        assert!(d.diagnostic.help.as_deref().unwrap_or("").contains("OpFMod"), "{d:?}");
    }

    #[test]
    fn bytes_of_either_endianness() {
        let le = [0x03, 0x02, 0x23, 0x07, 0x00, 0x06, 0x01, 0x00, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0];
        let be = [0x07, 0x23, 0x02, 0x03, 0x00, 0x01, 0x06, 0x00, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0];
        for bytes in [&le, &be] {
            let dis = disassemble_report(bytes, WebDisOptions::default());
            assert!(dis.ok && dis.text.contains("; Bound: 5"), "{dis:?}");
        }
        let bad = disassemble_report(&le[..7], WebDisOptions::default());
        assert!(!bad.ok && bad.text.is_empty());
        assert_eq!(bad.diagnostics[0].diagnostic.code, "bin.byte-length");
        assert_eq!(bad.diagnostics[0].word_offset, Some(1));
        let empty = disassemble_report(&[], WebDisOptions::default());
        assert_eq!(empty.diagnostics[0].diagnostic.code, "bin.truncated-header");
    }

    #[test]
    fn the_session_draws_its_last_analysis() {
        let mut s = Session::new();
        assert_eq!(s.dot(None, &DotOptions::default()), "", "nothing analysed yet");
        let r = s.analyze_text(VALID, "vulkan1.0").unwrap();
        assert!(r.assembled && r.valid, "{:?}", r.diagnostics);
        assert_eq!(r.functions.len(), 1);
        assert!(s.analyze_text(VALID, "nope").is_err());
        // The failed call kept the last analysis.
        let dot = s.dot(None, &DotOptions::default());
        assert!(dot.starts_with("digraph"), "{dot}");
        assert_eq!(s.dot(Some(r.functions[0].id), &DotOptions::default()), dot);
        assert_eq!(s.dot(Some(999), &DotOptions::default()), "");
        // A text that does not assemble: nothing to draw.
        let refl = s.analysis.as_ref().and_then(Analysis::reflect).unwrap();
        assert_eq!(refl.entry_points[0].name, "main");
        assert!(!s.analyze_text("OpFoo\n", "spv1.6").unwrap().assembled);
        assert_eq!(s.dot(None, &DotOptions::default()), "");
    }

    #[test]
    fn share_links_round_trip() {
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
        assert_eq!(r.diagnostics[0].diagnostic.code, "bin.byte-length");
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
