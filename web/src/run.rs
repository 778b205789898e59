//! Running the session's module for the Run panel: on the interpreter
//! ([`run_interp`], `session.run`) and on the GPU (`gpu_guard` and
//! `GpuRun::run`, `session.runGpu`: WebGPU in the browser, Vulkan natively,
//! by the one async path of the `spvlab-gpu` crate).
//!
//! Both take the same [`RunRequest`] (inputs in the interpreter's input
//! language, by binding), make core's run plan of it ([`prepare`]) and
//! answer the same [`RunResult`]: each bound buffer's bytes, its contents
//! read by core's typed output ([`values::show`]) and the plan's leaves, or
//! a typed [`RunFailure`] (with the plan's `PlanError` where the plan
//! failed). The GPU is guarded by the
//! interpreter's step budget: a module that does not terminate there is not
//! dispatched (kind `stepBudget`) unless the request says `force`; a module
//! our WGSL lowering refuses comes back as kind `refused` with the
//! refusal's code.

use serde::{Deserialize, Serialize};
use spvlab_core::analysis::Analysis;
use spvlab_core::interp::{self, Buffers, DrawSite, RunError, RunErrorKind, values};
use spvlab_core::plan::{DrawInputs, DrawShape, Inputs, Leaf, Plan, PlanError, Slot};
use spvlab_core::raster::{ColorAttachment, ColorFormat};
use std::collections::BTreeMap;

/// What `session.run` and `session.runGpu` are given (every field optional).
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct RunRequest {
    /// The entry point; none: the first GLCompute one.
    pub entry: Option<String>,
    /// Workgroups in x, y, z (default 1, 1, 1).
    pub workgroups: Option<[u32; 3]>,
    /// Each buffer's input in the interpreter's input language, keyed
    /// `"SET.BINDING"` (or `"push"` for the push constants); a binding not
    /// given is zeros.
    pub buffers: BTreeMap<String, String>,
    /// Spec constant values by SpecId (`{ "3": "64" }`).
    pub spec: BTreeMap<String, String>,
    /// The interpreter's step budget (default 1,000,000).
    pub max_steps: Option<u64>,
    /// Dispatch on the GPU even when the interpreter ran out of steps.
    pub force: bool,
    /// The interpreter's path trace (the CFG panel's path view): the global
    /// ids whose paths to record (each block visited, in order, compressed),
    /// and with `edges` the branch edges taken over all invocations. Neither
    /// given: nothing recorded (the default). The GPU ignores both.
    pub paths: Vec<[u32; 3]>,
    pub edges: bool,
    /// How a Fragment entry point is drawn (absent: 256x256, one rectangle,
    /// B8G8R8A8_UNORM cleared to 0). A compute entry point ignores it.
    pub draw: Option<DrawRequest>,
}

/// The draw part of a request: the framebuffer and what covers it. For a
/// draw, `paths` name pixels (`[x, y, 0]`).
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct DrawRequest {
    /// The framebuffer's size (default 256 each).
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// `{ "kind": "rect" }` (default) or `{ "kind": "grid", "columns": C,
    /// "rows": R }` (core's `plan::DrawShape`).
    pub shape: Option<DrawShape>,
    /// The colour attachment's format by its Vulkan name (default
    /// `B8G8R8A8_UNORM`; also `R8G8B8A8_UNORM`, `R32G32B32A32_SFLOAT`,
    /// `R32_SFLOAT`).
    pub format: Option<String>,
    /// The colour the attachment is cleared to before the draw, RGBA from 0
    /// to 1 (default 0, 0, 0, 0; Amber's CLEAR_COLOR over 255).
    pub clear: Option<[f32; 4]>,
}

impl DrawRequest {
    /// Core's draw inputs, or the input error of an unknown format.
    fn inputs(&self) -> Result<DrawInputs, RunFailure> {
        let d = DrawInputs::default();
        let format = match &self.format {
            None => d.format,
            // The page shows UNORM and float attachments.
            Some(n) => ColorFormat::from_name(n).filter(|f| !f.is_integer()).ok_or_else(|| {
                RunFailure::new("input", format!("draw format `{n}`: the formats are B8G8R8A8_UNORM, R8G8B8A8_UNORM, R32G32B32A32_SFLOAT and R32_SFLOAT"))
            })?,
        };
        Ok(DrawInputs {
            size: (self.width.unwrap_or(d.size.0), self.height.unwrap_or(d.size.1)),
            shape: self.shape.unwrap_or(d.shape),
            format,
            clear: self.clear.unwrap_or(d.clear),
            ..d
        })
    }
}

/// What a run answers.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// `interp`, or the GPU backend's name (`wgpu`: our WGSL).
    pub backend: String,
    /// No error: `buffers` hold the run's output.
    pub ok: bool,
    pub entry_point: String,
    pub workgroups: [u32; 3],
    pub buffers: Vec<BufferValue>,
    /// The interpreter's invocations and instructions executed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invocations: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
    /// The GPU adapter, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunFailure>,
    /// What the request's `paths` and `edges` asked the interpreter to record
    /// (core's `TraceReport`: `paths[].segments[].{blocks[].{function,label},
    /// count}`, `edges[].{function,from,to,count}`); also after an error, up
    /// to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<interp::TraceReport>,
    /// A draw's colour attachment (a Fragment entry point, after the draw).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<Image>,
    /// What the interpreter's draw did (a Fragment entry point).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawCounts>,
}

/// A draw's colour attachment. Its bytes are not in the JSON: the wasm
/// wrapper hands them to JavaScript as `Uint8Array`s (`rgba`, and `data`
/// for a float format), set on this object after it is built.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    pub width: u32,
    pub height: u32,
    /// The attachment's format, by its Vulkan name (`B8G8R8A8_UNORM`).
    pub format: &'static str,
    /// 8-bit RGBA rows, R first (a float format clamped to [0, 1]).
    #[serde(skip)]
    pub rgba: Vec<u8>,
    /// A float format's texels as stored (little-endian `f32`s, 4 or 16
    /// bytes a texel), for the values a canvas cannot show; empty for UNORM
    /// formats, whose `rgba` are their values.
    #[serde(skip)]
    pub data: Vec<u8>,
}

impl Image {
    pub fn of(a: &ColorAttachment) -> Image {
        let data = if a.format.is_unorm() { Vec::new() } else { a.data.clone() };
        Image { width: a.width, height: a.height, format: a.format.name(), rgba: a.rgba8(), data }
    }

    /// The attachment an image was made of ([`Image::of`] read back): a
    /// UNORM format's texels from `rgba`, a float format's from `data`;
    /// `None` when the format is not one the page draws or the bytes are not
    /// `width * height` texels.
    pub fn attachment(width: u32, height: u32, format: &str, rgba: &[u8], data: &[u8]) -> Option<ColorAttachment> {
        let format = ColorFormat::from_name(format).filter(|f| !f.is_integer())?;
        let texels = (width as usize).checked_mul(height as usize)?;
        let mut a = ColorAttachment::new(format, width, height, [0.0; 4])?;
        if format.is_unorm() {
            if rgba.len() != texels.checked_mul(4)? {
                return None;
            }
            let size = format.texel_bytes();
            for (t, px) in a.data.chunks_exact_mut(size).zip(rgba.chunks_exact(4)) {
                format.encode([0, 1, 2, 3].map(|c| px[c] as f32 / 255.0), t);
            }
        } else {
            if data.len() != a.data.len() {
                return None;
            }
            a.data.copy_from_slice(data);
        }
        Some(a)
    }
}

/// The interpreter's counts of a draw (core's `interp::DrawStats`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DrawCounts {
    pub vertices: u64,
    /// Fragment shader invocations for covered pixels, and the helper lanes
    /// run beside them.
    pub fragments: u64,
    pub helpers: u64,
    pub steps: u64,
}

/// The vertex or fragment of a draw an error is about (core's
/// `interp::DrawSite`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(tag = "stage", rename_all = "camelCase")]
pub enum Site {
    Vertex { vertex: u32, instance: u32 },
    Fragment { x: u32, y: u32, primitive: u32 },
}

impl Site {
    fn of(s: DrawSite) -> Site {
        match s {
            DrawSite::Vertex { vertex, instance } => Site::Vertex { vertex, instance },
            DrawSite::Fragment { x, y, primitive } => Site::Fragment { x, y, primitive },
        }
    }
}

/// What `paths` and `edges` of a request ask the interpreter to record.
fn trace_of(req: &RunRequest) -> interp::Trace {
    match (req.paths.is_empty(), req.edges) {
        (true, false) => interp::Trace::Off,
        (true, true) => interp::Trace::Edges,
        // A path comes with the edge counts (core records both).
        (false, _) => interp::Trace::Invocations(req.paths.clone()),
    }
}

/// One bound buffer after the run.
#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct BufferValue {
    pub set: u32,
    pub binding: u32,
    /// Its name as the text spells it (`%buf`).
    pub name: String,
    /// `storage buffer` or `uniform buffer`.
    pub kind: &'static str,
    pub bytes: Vec<u8>,
    /// The bytes read by the binding's type tree (core's typed output).
    pub value: values::Shown,
    /// Where each scalar of `bytes` lies (the plan's leaves: path, offset,
    /// size, kind), in the order of `value`'s leaves.
    pub leaves: Vec<Leaf>,
}

/// Why a run gave no output.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RunFailure {
    /// `input` (the request), `module` (nothing to run), `interp` (the
    /// interpreter stopped), `stepBudget` (the interpreter ran out of
    /// steps: not dispatched), `refused` (our WGSL lowering), and the GPU's
    /// own: `noDevice`, `unsupported`, `validation`, `deviceLost`,
    /// `timeout`, `panic`.
    pub kind: &'static str,
    /// The refusal's reason code (`wgsl.int64`), for `refused`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
    /// Where, in the text (1-based), when the error names an instruction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// For `input` and `module` from the plan: what is wrong, as data
    /// (core's `plan::PlanError`, tagged by `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanError>,
    /// For `interp` and `stepBudget`: the interpreter's error as data (core's
    /// `interp::RunErrorKind`, tagged by `kind`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunErrorKind>,
    /// For a draw's interpreter error: the vertex or the fragment (pixel) it
    /// happened at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<Site>,
}

impl RunFailure {
    pub fn new(kind: &'static str, message: impl Into<String>) -> RunFailure {
        RunFailure { kind, code: None, message: message.into(), line: None, column: None, plan: None, run: None, site: None }
    }
}

/// A plan's error in the page's words.
/// A plan error in core's words (the command line's, less its `--`); the
/// page's diagnostics say why a module is not valid.
pub fn plan_message(e: &PlanError) -> String {
    match e {
        PlanError::NoModule => format!("{e} (see the diagnostics)"),
        e => e.to_string(),
    }
}

fn plan_failure(e: PlanError) -> RunFailure {
    let kind = if e.is_input() { "input" } else { "module" };
    RunFailure { plan: Some(e.clone()), ..RunFailure::new(kind, plan_message(&e)) }
}

/// The plan of a request on the analysed module (GLCompute entry points,
/// and Fragment ones drawn as the request's `draw` says).
pub fn prepare(a: &Analysis, req: &RunRequest) -> Result<Plan, RunFailure> {
    let mut spec = Vec::new();
    for (id, v) in &req.spec {
        let Ok(n) = id.trim().parse::<u32>() else {
            return Err(RunFailure::new("input", format!("spec `{id}`: a SpecId is a number")));
        };
        spec.push((n, v.clone()));
    }
    let mut buffers = Vec::new();
    for (k, v) in &req.buffers {
        let slot = match k.split_once('.') {
            None if k == "push" => Some(Slot::Push),
            Some((s, b)) => s.parse().ok().zip(b.parse().ok()).map(|(s, b)| Slot::Binding(s, b)),
            None => None,
        };
        let Some(slot) = slot else {
            return Err(RunFailure::new("input", format!("buffer `{k}`: a buffer is SET.BINDING or push")));
        };
        buffers.push((slot, v.clone()));
    }
    let draw = req.draw.clone().unwrap_or_default().inputs()?;
    let inputs = Inputs {
        entry: req.entry.clone(),
        // Without the `draw` feature a Fragment entry point is not planned
        // (the page sends draws to the engine that has it).
        draw: cfg!(feature = "draw").then_some(draw),
        spec,
        buffers,
        workgroups: req.workgroups.unwrap_or([1, 1, 1]),
        max_steps: req.max_steps.unwrap_or(1_000_000),
        trace: trace_of(req),
        ..Inputs::default()
    };
    Plan::new(a, &inputs).map_err(plan_failure)
}

/// The result of a run of `plan` that wrote `buffers`.
pub fn result(plan: &Plan, backend: &str, buffers: &Buffers) -> RunResult {
    let list = plan
        .outputs()
        .filter_map(|b| {
            let Slot::Binding(set, binding) = b.slot else { return None };
            let bytes = buffers.get(&(set, binding)).cloned().unwrap_or_default();
            Some(BufferValue { set, binding, name: b.name.clone(), kind: b.kind.name(), value: values::show(&b.ty, &bytes), leaves: b.leaves(bytes.len()), bytes })
        })
        .collect();
    RunResult {
        backend: backend.into(),
        ok: true,
        entry_point: plan.entry.name.clone(),
        workgroups: plan.options.workgroups,
        buffers: list,
        invocations: None,
        steps: None,
        adapter: None,
        error: None,
        trace: None,
        image: None,
        draw: None,
    }
}

/// A result with no output.
pub fn failed(plan: &Plan, backend: &str, error: RunFailure) -> RunResult {
    RunResult { ok: false, buffers: Vec::new(), error: Some(error), ..result(plan, backend, &Buffers::new()) }
}

/// The interpreter's run of `plan` (on a copy of the inputs): a dispatch,
/// or for a Fragment entry point its draw (the request's `paths` then name
/// pixels, `invocations` counts the fragments run).
pub fn interp(plan: &Plan, a: &Analysis) -> RunResult {
    if let Some(r) = interp_draw(plan, a) {
        return r;
    }
    let mut bufs = plan.buffers.clone();
    match interp::run(&plan.ir, &plan.options, &mut bufs) {
        Ok(stats) => RunResult { invocations: Some(stats.invocations), steps: Some(stats.steps), trace: stats.trace, ..result(plan, "interp", &bufs) },
        Err(e) => RunResult { trace: e.trace.clone().map(|t| *t), ..failed(plan, "interp", interp_failure(a, &e)) },
    }
}

/// Without the `draw` feature nothing is planned as a draw (see [`prepare`]).
#[cfg(not(feature = "draw"))]
fn interp_draw(_: &Plan, _: &Analysis) -> Option<RunResult> {
    None
}

/// The interpreter's draw of a draw plan; `None` for a dispatch.
#[cfg(feature = "draw")]
fn interp_draw(plan: &Plan, a: &Analysis) -> Option<RunResult> {
    let drawn = plan.draw_interp(&plan.options)?;
    Some(match drawn {
        Ok(d) => {
            let s = &d.stats;
            RunResult {
                invocations: Some(s.fragments),
                steps: Some(s.steps),
                image: d.image().map(Image::of),
                draw: Some(DrawCounts { vertices: s.vertices, fragments: s.fragments, helpers: s.helpers, steps: s.steps }),
                trace: d.stats.fragment_trace.clone(),
                ..result(plan, "interp", &d.buffers)
            }
        }
        Err(e) => RunResult { trace: e.trace.clone().map(|t| *t), ..failed(plan, "interp", interp_failure(a, &e)) },
    })
}

/// An interpreter error, located in the text.
fn interp_failure(a: &Analysis, e: &RunError) -> RunFailure {
    let message = a.run_error_message(e);
    let kind = if matches!(e.kind, RunErrorKind::NoTermination { .. }) { "stepBudget" } else { "interp" };
    let (line, column) = e.inst.and_then(|i| a.inst_line_col(i)).map_or((None, None), |(l, c)| (Some(l), Some(c)));
    RunFailure { line, column, run: Some(e.kind.clone()), site: e.site.map(Site::of), ..RunFailure::new(kind, message) }
}

/// `session.run(request)`: the interpreter.
pub fn run_interp(a: &Analysis, req: &RunRequest) -> RunResult {
    match prepare(a, req) {
        Ok(p) => interp(&p, a),
        Err(f) => no_module("interp", f),
    }
}

/// A result for a request that did not get as far as a module.
pub fn no_module(backend: &str, error: RunFailure) -> RunResult {
    RunResult {
        backend: backend.into(),
        ok: false,
        entry_point: String::new(),
        workgroups: [0; 3],
        buffers: Vec::new(),
        invocations: None,
        steps: None,
        adapter: None,
        error: Some(error),
        trace: None,
        image: None,
        draw: None,
    }
}

/// A dispatch or a draw ready for the GPU: the plan and its WGSL (a draw's
/// fragment stage), owned (the browser's run outlives the call that starts
/// it); a draw has its vertex stage's WGSL too.
#[cfg(feature = "gpu")]
pub struct GpuRun {
    pub plan: Plan,
    pub wgsl: spvlab_core::wgsl::Wgsl,
    pub vertex_wgsl: Option<spvlab_core::wgsl::Wgsl>,
}

/// Everything [`GpuRun::run`] needs checked before the GPU: the request,
/// the interpreter's step budget (the guard: a draw is drawn by the
/// interpreter first), our lowering (a draw's two stages; a refusal of the
/// vertex stage says so). `Err` is the answer (nothing to dispatch).
#[cfg(feature = "gpu")]
pub fn gpu_guard(a: &Analysis, req: &RunRequest) -> Result<GpuRun, RunResult> {
    use spvlab_core::reflect::ExecutionModel;
    use spvlab_gpu::{self as gpu, Backend};
    let backend = Backend::Wgsl.name();
    let mut p = prepare(a, req).map_err(|f| no_module(backend, f))?;
    // The guard's run records nothing (a trace is the interpreter's answer).
    p.options.trace = spvlab_core::interp::Trace::Off;
    if !req.force {
        let r = interp(&p, a);
        if let Some(e) = r.error.filter(|e| e.kind == "stepBudget") {
            let message = format!("not dispatched: the module does not terminate in the interpreter ({}); `force` sends it anyway", e.message);
            return Err(failed(&p, backend, RunFailure { message, ..e }));
        }
    }
    let refused = |p: &Plan, r: spvlab_gpu::Refused, stage: &str| {
        let code = r.code().map(str::to_string);
        failed(p, backend, RunFailure { code, ..RunFailure::new("refused", format!("{stage}{r}")) })
    };
    let Some(d) = &p.draw else {
        return match gpu::wgsl_of(&p.ir, &p.entry.name) {
            Ok(wgsl) => Ok(GpuRun { plan: p, wgsl, vertex_wgsl: None }),
            Err(r) => Err(refused(&p, r, "")),
        };
    };
    let vertex = match gpu::stage_wgsl(&d.vertex_words, &d.vertex_ir, &d.vertex_entry, ExecutionModel::Vertex) {
        Ok(w) => w,
        Err(r) => return Err(refused(&p, r, "the vertex stage: ")),
    };
    match gpu::stage_wgsl(&p.words, &p.ir, &p.entry.name, ExecutionModel::Fragment) {
        Ok(wgsl) => Ok(GpuRun { plan: p, wgsl, vertex_wgsl: Some(vertex) }),
        Err(r) => Err(refused(&p, r, "")),
    }
}

/// The kind of a GPU error, as [`RunFailure::kind`] names it.
#[cfg(feature = "gpu")]
pub fn gpu_failure(e: &spvlab_gpu::GpuError) -> RunFailure {
    let kind = e.kind.name();
    let code = e.refused.as_ref().and_then(|r| r.code()).map(str::to_string);
    RunFailure { code, ..RunFailure::new(kind, e.to_string()) }
}

#[cfg(feature = "gpu")]
impl GpuRun {
    /// Dispatch or draw on `gpu` (the one async path; natively the caller
    /// blocks on it, in the browser it is a Promise).
    pub async fn run(&self, gpu: &spvlab_gpu::Gpu, wait: &dyn Fn(&spvlab_gpu::wgpu::Device) -> Result<(), String>) -> RunResult {
        use spvlab_gpu::{Backend, DrawJob, DrawStage, Job};
        let p = &self.plan;
        let name = Backend::Wgsl.name();
        let r = match (&p.draw, &self.vertex_wgsl) {
            (Some(d), Some(vw)) => {
                let module = format!("{} + {}", d.vertex_entry, p.entry.name);
                let job = DrawJob {
                    backend: Backend::Wgsl,
                    vertex: DrawStage { words: &d.vertex_words, ir: &d.vertex_ir, wgsl: Some(vw), entry: &d.vertex_entry },
                    fragment: DrawStage { words: &p.words, ir: &p.ir, wgsl: Some(&self.wgsl), entry: &p.entry.name },
                    pipeline: &d.pipeline,
                    draw: &d.cmd,
                    buffers: &p.buffers,
                    aliases: &p.options.aliases,
                    push_constants: p.options.push_constants.as_deref(),
                    resources: Some(&p.options),
                    module_name: &module,
                };
                let mut fb = d.framebuffer.clone();
                match gpu.draw(&job, &mut fb, wait).await {
                    Ok(out) => {
                        let image = fb.colors.iter().find(|c| c.location == 0).map(|c| Image::of(&c.attachment));
                        RunResult { image, ..result(p, name, &out) }
                    }
                    Err(e) => failed(p, name, gpu_failure(&e)),
                }
            }
            _ => {
                let job = Job::of_plan(p, Backend::Wgsl, Some(&self.wgsl), &p.entry.name);
                match gpu.run(&job, wait).await {
                    Ok(out) => result(p, name, &out),
                    Err(e) => failed(p, name, gpu_failure(&e)),
                }
            }
        };
        RunResult { adapter: Some(gpu.info().to_string()), ..r }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spvlab_core::valid::Options;

    /// out[i] = in[i] * 2 over 4 invocations; and an endless loop.
    const DOUBLE: &str = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\" %gid %buf\nOpExecutionMode %main LocalSize 4 1 1\nOpDecorate %gid BuiltIn GlobalInvocationId\nOpDecorate %arr ArrayStride 4\nOpMemberDecorate %S 0 Offset 0\nOpDecorate %S Block\nOpDecorate %buf DescriptorSet 0\nOpDecorate %buf Binding 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%u32 = OpTypeInt 32 0\n%c2 = OpConstant %u32 2\n%c0 = OpConstant %u32 0\n%c4 = OpConstant %u32 4\n%arr = OpTypeArray %u32 %c4\n%S = OpTypeStruct %arr\n%pS = OpTypePointer StorageBuffer %S\n%buf = OpVariable %pS StorageBuffer\n%v3 = OpTypeVector %u32 3\n%pv3 = OpTypePointer Input %v3\n%gid = OpVariable %pv3 Input\n%pu = OpTypePointer StorageBuffer %u32\n%main = OpFunction %void None %fn\n%e = OpLabel\n%g = OpLoad %v3 %gid\n%x = OpCompositeExtract %u32 %g 0\n%p = OpAccessChain %pu %buf %c0 %x\n%v = OpLoad %u32 %p\n%d = OpIMul %u32 %v %c2\nOpStore %p %d\nOpReturn\nOpFunctionEnd\n";

    fn analysis(text: &str) -> Analysis {
        Analysis::of_text(text, &Options { env: spvlab_core::TargetEnv::parse("vulkan1.3").unwrap(), ..Options::default() })
    }

    fn req(buffers: &[(&str, &str)]) -> RunRequest {
        RunRequest { buffers: buffers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(), ..RunRequest::default() }
    }

    #[test]
    fn the_interpreter_runs_a_request() {
        let a = analysis(DOUBLE);
        assert!(a.is_valid());
        let r = run_interp(&a, &req(&[("0.0", "u32: 1 2 3 40")]));
        assert!(r.ok, "{r:?}");
        assert_eq!(r.invocations, Some(4));
        let b = &r.buffers[0];
        assert_eq!((b.set, b.binding, b.kind, b.name.as_str()), (0, 0, "storage buffer", "%buf"));
        assert_eq!(b.bytes, [2u32, 4, 6, 80].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>());
        // The plan's leaves: the member without a name by its index.
        let leaves: Vec<(&str, u64)> = b.leaves.iter().map(|l| (l.path.as_str(), l.offset)).collect();
        assert_eq!(leaves, [("0[0]", 0), ("0[1]", 4), ("0[2]", 8), ("0[3]", 12)]);
        let json = serde_json::to_string(&r).expect("json");
        assert!(json.contains(r#""leaves":[{"path":"0[0]","offset":0,"size":4,"kind":"uint"}"#), "{json}");
    }

    #[test]
    fn bad_requests_are_input_errors() {
        let a = analysis(DOUBLE);
        let r = run_interp(&a, &req(&[("0.1", "zeros")]));
        assert_eq!(r.error.as_ref().map(|e| e.kind), Some("input"), "{r:?}");
        let e = r.error.unwrap();
        assert!(e.message.contains("0.0"));
        let json = serde_json::to_string(&e).expect("json");
        assert!(json.contains(r#""plan":{"error":"unknownBuffer","slot":"0.1","entry":"main","available":["0.0"]}"#), "{json}");
        let r = run_interp(&a, &req(&[("0.0", "u32: x")]));
        assert_eq!(r.error.map(|e| e.kind), Some("input"));
        let r = run_interp(&analysis("OpFoo\n"), &RunRequest::default());
        assert_eq!(r.error.map(|e| e.kind), Some("module"));
    }

    /// The browser's path (`GpuRun::run`), natively on Vulkan (lavapipe),
    /// blocked on: the interpreter's bytes; a refusal has its code.
    #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
    #[test]
    fn the_gpu_path_gives_the_interpreters_buffers() {
        let a = analysis(DOUBLE);
        let req = req(&[("0.0", "u32: 1 2 3 40")]);
        let want = run_interp(&a, &req);
        let job = gpu_guard(&a, &req).unwrap_or_else(|r| panic!("{r:?}"));
        let i64 = DOUBLE.replace("OpCapability Shader\n", "OpCapability Shader\nOpCapability Int64\n").replace("%c2 = OpConstant %u32 2\n", "%c2 = OpConstant %u32 2\n%u64 = OpTypeInt 64 0\n%big = OpConstant %u64 1\n");
        let a = analysis(&i64);
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let e = gpu_guard(&a, &req).err().and_then(|r| r.error).expect("refused");
        assert_eq!((e.kind, e.code.as_deref()), ("refused", Some("wgsl.int64")), "{e:?}");
        // Without a Vulkan adapter this part is skipped, unless
        // SPVLAB_REQUIRE_GPU=1 (`./x test`, CI), as in tests/tests/gpu_*.rs.
        let gpu = match spvlab_gpu::Gpu::new_blocking() {
            Ok(g) => g,
            Err(e) if std::env::var("SPVLAB_REQUIRE_GPU").as_deref() == Ok("1") => panic!("SPVLAB_REQUIRE_GPU=1 and no Vulkan adapter: {e}"),
            Err(e) => {
                eprintln!("skipped: no Vulkan adapter ({e})");
                return;
            }
        };
        let wait = |d: &spvlab_gpu::wgpu::Device| d.poll(spvlab_gpu::wgpu::PollType::wait_indefinitely()).map(|_| ()).map_err(|e| e.to_string());
        let got = spvlab_gpu::block_on(job.run(&gpu, &wait));
        assert!(got.ok, "{got:?}");
        assert_eq!(got.buffers, want.buffers);
        assert!(got.adapter.is_some());
    }

    /// DOUBLE with an if on x == 0 (`%t` / `%f`, merge `%m`): the paths asked
    /// for, the edges over the four invocations, and their JSON's shape.
    #[test]
    fn the_trace_fields_record_paths_and_edges() {
        let text = DOUBLE
            .replace("OpDecorate %gid", "OpName %e \"e\"\nOpName %t \"t\"\nOpName %f \"f\"\nOpName %m \"m\"\nOpDecorate %gid")
            .replace("%main = OpFunction", "%bool = OpTypeBool\n%main = OpFunction")
            .replace(
                "OpStore %p %d\n",
                "OpStore %p %d\n%z = OpIEqual %bool %x %c0\nOpSelectionMerge %m None\nOpBranchConditional %z %t %f\n%t = OpLabel\nOpBranch %m\n%f = OpLabel\nOpBranch %m\n%m = OpLabel\n",
            );
        let a = analysis(&text);
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let ir = a.ir().expect("an ir");
        let id = |n: &str| (1..200).find(|&i| ir.name(i) == Some(n)).expect(n);
        let (e, t, f, m) = (id("e"), id("t"), id("f"), id("m"));
        let r = run_interp(&a, &RunRequest { paths: vec![[0, 0, 0], [2, 0, 0]], ..req(&[("0.0", "u32: 1 2 3 40")]) });
        assert!(r.ok, "{r:?}");
        let tr = r.trace.as_ref().expect("a trace");
        let labels = |g: [u32; 3]| tr.path(g).map(|p| p.blocks().map(|b| b.label).collect::<Vec<_>>());
        assert_eq!(labels([0, 0, 0]), Some(vec![e, t, m]));
        assert_eq!(labels([2, 0, 0]), Some(vec![e, f, m]));
        assert_eq!(labels([1, 0, 0]), None);
        let mut edges: Vec<(u32, u32, u64)> = tr.edges.iter().map(|x| (x.from, x.to, x.count)).collect();
        edges.sort();
        let mut want = vec![(e, t, 1), (e, f, 3), (t, m, 1), (f, m, 3)];
        want.sort();
        assert_eq!(edges, want);
        let json = serde_json::to_string(&r).expect("json");
        assert!(json.contains(&format!("\"segments\":[{{\"blocks\":[{{\"function\":")), "{json}");
        assert!(json.contains(&format!("{{\"function\":{},\"from\":{e},\"to\":{f},\"count\":3}}", tr.edges[0].function)), "{json}");
        // Edges only: no paths; nothing asked: no trace.
        let r = run_interp(&a, &RunRequest { edges: true, ..RunRequest::default() });
        assert_eq!(r.trace.as_ref().map(|t| (t.paths.len(), t.edges.len())), Some((0, 4)));
        assert_eq!(run_interp(&a, &RunRequest::default()).trace, None);
    }

    /// A spec value (SpecId 3, default 7) reaches the interpreter and, as
    /// the default of its WGSL `override`, the GPU; a value its type cannot
    /// hold is an input error that names the SpecId.
    #[test]
    fn spec_values_reach_both_backends() {
        let text = DOUBLE
            .replace("OpDecorate %buf Binding 0\n", "OpDecorate %buf Binding 0\nOpDecorate %k SpecId 3\n")
            .replace("%c2 = OpConstant %u32 2\n", "%c2 = OpConstant %u32 2\n%k = OpSpecConstant %u32 7\n")
            .replace("%d = OpIMul %u32 %v %c2\n", "%d = OpIMul %u32 %v %k\n");
        let a = analysis(&text);
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let words = |r: &RunResult| r.buffers[0].bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
        let plain = req(&[("0.0", "u32: 1 2 3 4")]);
        assert_eq!(words(&run_interp(&a, &plain)), [7, 14, 21, 28]);
        let forty = RunRequest { spec: [("3".to_string(), "40".to_string())].into(), ..plain.clone() };
        assert_eq!(words(&run_interp(&a, &forty)), [40, 80, 120, 160]);
        let bad = RunRequest { spec: [("3".to_string(), "-1".to_string())].into(), ..plain.clone() };
        let e = run_interp(&a, &bad).error.expect("an input error");
        assert_eq!(e.kind, "input");
        assert!(e.message.starts_with("spec 3=-1: "), "{}", e.message);
        #[cfg(feature = "gpu")]
        {
            let job = gpu_guard(&a, &forty).unwrap_or_else(|r| panic!("{r:?}"));
            assert!(job.wgsl.text.contains("@id(3) override") && job.wgsl.text.contains("= 40u;"), "{}", job.wgsl.text);
        }
    }

    #[test]
    fn an_endless_loop_is_the_step_budget() {
        let text = DOUBLE.replace(
            "%e = OpLabel\n",
            "%e = OpLabel\nOpBranch %h\n%h = OpLabel\nOpLoopMerge %m %c None\nOpBranch %c\n%c = OpLabel\nOpBranch %h\n%m = OpLabel\n",
        );
        let a = analysis(&text);
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let r = run_interp(&a, &RunRequest { max_steps: Some(10_000), ..RunRequest::default() });
        let e = r.error.expect("out of steps");
        assert_eq!(e.kind, "stepBudget", "{e:?}");
        #[cfg(feature = "gpu")]
        {
            let g = gpu_guard(&a, &RunRequest { max_steps: Some(10_000), ..RunRequest::default() });
            let e = g.err().and_then(|r| r.error).expect("not dispatched");
            assert_eq!(e.kind, "stepBudget");
            assert!(e.message.starts_with("not dispatched"), "{}", e.message);
        }
    }

    /// The gallery's gradient (www/src/gallery/examples/graphics-gradient.spvasm),
    /// drawn over 8x4: red and green from FragCoord over the framebuffer's
    /// side, blue 0.75 left of the middle and 0.25 right of it.
    fn gradient(side: &str, half: &str) -> String {
        include_str!("../../www/src/gallery/examples/graphics-gradient.spvasm")
            .replace("OpConstant %float 256", &format!("OpConstant %float {side}"))
            .replace("OpConstant %float 128", &format!("OpConstant %float {half}"))
    }

    fn draw_req(json: &str) -> RunRequest {
        serde_json::from_str(json).expect("a request")
    }

    /// A Fragment entry point draws: the image's size, format and RGBA8
    /// bytes, the counts, and the JSON without the bytes (the wasm wrapper
    /// sets them as a Uint8Array).
    #[test]
    fn a_fragment_entry_point_draws() {
        let a = analysis(&gradient("8", "4"));
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let r = run_interp(&a, &draw_req(r#"{"draw":{"width":8,"height":4}}"#));
        assert!(r.ok, "{r:?}");
        let img = r.image.as_ref().expect("an image");
        assert_eq!((img.width, img.height, img.format), (8, 4, "B8G8R8A8_UNORM"));
        assert_eq!(img.rgba.len(), 8 * 4 * 4);
        assert!(img.data.is_empty());
        // Pixel (1, 2): FragCoord (1.5, 2.5): R = 1.5 / 8 * 255 = 47.8 -> 48,
        // G = 2.5 / 8 * 255 = 79.7 -> 80, B = 0.75 * 255 = 191.25 -> 191.
        let px = |x: usize, y: usize| &img.rgba[(y * 8 + x) * 4..][..4];
        assert_eq!(px(1, 2), [48, 80, 191, 255]);
        // Pixel (6, 0): R = 6.5 / 8 * 255 = 207.2 -> 207, G = 0.5 / 8 * 255 =
        // 15.9 -> 16, B = 0.25 * 255 = 63.75 -> 64.
        assert_eq!(px(6, 0), [207, 16, 64, 255]);
        assert_eq!(r.draw.map(|d| (d.vertices, d.fragments)), Some((4, 32)));
        assert_eq!(r.invocations, Some(32));
        let json = serde_json::to_string(&r).expect("json");
        assert!(json.contains(r#""image":{"width":8,"height":4,"format":"B8G8R8A8_UNORM"}"#), "{json}");
        assert!(json.contains(r#""draw":{"vertices":4,"fragments":32,"#), "{json}");
        // A float format keeps the values beside the RGBA8 view of them.
        let r = run_interp(&a, &draw_req(r#"{"draw":{"width":8,"height":4,"format":"R32G32B32A32_SFLOAT"}}"#));
        let img = r.image.expect("an image");
        assert_eq!((img.format, img.data.len()), ("R32G32B32A32_SFLOAT", 8 * 4 * 16));
        let at = (2 * 8 + 1) * 16;
        let red = f32::from_le_bytes(img.data[at..at + 4].try_into().unwrap());
        assert_eq!(red, 1.5 / 8.0);
    }

    /// A grid draw, and the paths of the pixels asked for (keyed [x, y, 0]):
    /// left of the middle through `%left_half`, right of it through
    /// `%right_half`; a pixel the draw does not cover has none.
    #[test]
    fn a_draw_traces_the_pixels_asked_for() {
        let a = analysis(&gradient("8", "4"));
        let r = run_interp(&a, &draw_req(r#"{"draw":{"width":8,"height":4,"shape":{"kind":"grid","columns":2,"rows":2}},"paths":[[1,2,0],[6,0,0],[9,9,0]],"edges":true}"#));
        assert!(r.ok, "{r:?}");
        assert_eq!(r.draw.map(|d| d.vertices), Some(24));
        let name = |l: u32| Some(a.display_name(l));
        let tr = r.trace.as_ref().expect("a trace");
        let labels = |p: [u32; 3]| tr.path(p).map(|p| p.blocks().map(|b| name(b.label)).collect::<Vec<_>>());
        let named = |v: &[&str]| Some(v.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>());
        assert_eq!(labels([1, 2, 0]), named(&["entry", "left_half", "merge"]));
        assert_eq!(labels([6, 0, 0]), named(&["entry", "right_half", "merge"]));
        assert_eq!(labels([9, 9, 0]), None);
        // The edge counts over all 32 fragments: half on each side.
        let counts: Vec<u64> = tr.edges.iter().map(|e| e.count).collect();
        assert_eq!(counts, [16, 16, 16, 16]);
    }

    /// Core's limits are input errors naming the limit; an unknown format
    /// and a request of the wrong shape are input errors too.
    #[test]
    fn a_draw_past_its_limits_is_an_input_error() {
        let a = analysis(&gradient("8", "4"));
        let e = run_interp(&a, &draw_req(r#"{"draw":{"width":5000,"height":4}}"#)).error.expect("too large");
        assert_eq!(e.kind, "input");
        assert_eq!(e.message, "the draw's framebuffer width is 5000: the limit is 4096");
        assert_eq!(e.plan, Some(PlanError::TooLarge { what: "framebuffer width".into(), value: 5000, limit: 4096 }));
        let e = run_interp(&a, &draw_req(r#"{"draw":{"shape":{"kind":"grid","columns":1000,"rows":1000}}}"#)).error.expect("too many cells");
        assert!(e.message.starts_with("the draw's grid cells is 1000000: the limit is 65536"), "{}", e.message);
        let e = run_interp(&a, &draw_req(r#"{"draw":{"format":"D32_SFLOAT"}}"#)).error.expect("no such format");
        assert_eq!(e.kind, "input");
        assert!(e.message.starts_with("draw format `D32_SFLOAT`"), "{}", e.message);
        assert!(serde_json::from_str::<RunRequest>(r#"{"draw":{"shape":{"kind":"circle"}}}"#).is_err());
    }

    /// A fragment shader that never ends stops at the step budget, and the
    /// error names the pixel (its site, and in the message).
    #[test]
    fn an_endless_fragment_shader_names_its_pixel() {
        let text = gradient("8", "4").replace(
            "%entry = OpLabel\n",
            "%entry = OpLabel\nOpBranch %h\n%h = OpLabel\nOpLoopMerge %m %k None\nOpBranch %k\n%k = OpLabel\nOpBranch %h\n%m = OpLabel\n",
        );
        let a = analysis(&text);
        assert!(a.is_valid(), "{:?}", a.diagnostics());
        let r = run_interp(&a, &draw_req(r#"{"draw":{"width":8,"height":4},"maxSteps":5000}"#));
        let e = r.error.expect("out of steps");
        assert_eq!(e.kind, "stepBudget", "{e:?}");
        let Some(Site::Fragment { x, y, .. }) = e.site else { panic!("no pixel: {e:?}") };
        assert!(x < 8 && y < 4);
        assert!(e.message.contains(&format!("at fragment ({x}, {y})")), "{}", e.message);
        let json = serde_json::to_string(&e).expect("json");
        assert!(json.contains(&format!(r#""site":{{"stage":"fragment","x":{x},"y":{y},"#)), "{json}");
        assert!(r.image.is_none());
        #[cfg(feature = "gpu")]
        {
            let g = gpu_guard(&a, &draw_req(r#"{"draw":{"width":8,"height":4},"maxSteps":5000}"#));
            let e = g.err().and_then(|r| r.error).expect("not drawn");
            assert_eq!(e.kind, "stepBudget");
        }
    }

    /// The GPU's draw (`GpuRun::run`), natively on Vulkan (lavapipe) where
    /// there is one: the interpreter's image, byte for byte or within one
    /// step of 255 per channel.
    #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
    #[test]
    fn the_gpu_draws_the_interpreters_image() {
        let a = analysis(&gradient("8", "4"));
        let req = draw_req(r#"{"draw":{"width":8,"height":4}}"#);
        let want = run_interp(&a, &req).image.expect("drawn");
        let job = gpu_guard(&a, &req).unwrap_or_else(|r| panic!("{r:?}"));
        assert!(job.vertex_wgsl.is_some());
        let gpu = match spvlab_gpu::Gpu::new_blocking() {
            Ok(g) => g,
            Err(e) if std::env::var("SPVLAB_REQUIRE_GPU").as_deref() == Ok("1") => panic!("SPVLAB_REQUIRE_GPU=1 and no Vulkan adapter: {e}"),
            Err(e) => {
                eprintln!("skipped: no Vulkan adapter ({e})");
                return;
            }
        };
        let wait = |d: &spvlab_gpu::wgpu::Device| d.poll(spvlab_gpu::wgpu::PollType::wait_indefinitely()).map(|_| ()).map_err(|e| e.to_string());
        let got = spvlab_gpu::block_on(job.run(&gpu, &wait));
        assert!(got.ok, "{got:?}");
        let img = got.image.expect("an image");
        assert_eq!((img.width, img.height), (8, 4));
        assert!(img.rgba.iter().zip(&want.rgba).all(|(a, b)| a.abs_diff(*b) <= 1), "{:?} vs {:?}", img.rgba, want.rgba);
    }
}
