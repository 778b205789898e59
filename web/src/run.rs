//! Running the session's module (issue 11, for the Run panel of issue 12):
//! on the interpreter ([`run_interp`], `session.run`) and on the GPU
//! ([`run_gpu`], `session.runGpu`: WebGPU in the browser, Vulkan natively,
//! by the one async path of [`crate::gpu`]).
//!
//! Both take the same [`RunRequest`] (inputs in the interpreter's input
//! language, by binding) and answer the same [`RunResult`]: each bound
//! buffer's bytes and its contents read by core's typed output
//! ([`values::show`]), or a typed [`RunFailure`]. The GPU is guarded by the
//! interpreter's step budget: a module that does not terminate there is not
//! dispatched (kind `stepBudget`) unless the request says `force`; a module
//! our WGSL lowering refuses comes back as kind `refused` with the
//! refusal's code.

use serde::{Deserialize, Serialize};
use spvlab_core::analysis::Analysis;
use spvlab_core::interp::{self, Buffers, RunError, values};
use spvlab_core::ir::Ir;
use spvlab_core::reflect::{self, EntryReflection, ResourceKind};
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
    pub name: String,
    /// `storage buffer` or `uniform buffer`.
    pub kind: &'static str,
    pub bytes: Vec<u8>,
    /// The bytes read by the binding's type tree (core's typed output).
    pub value: values::Shown,
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
}

impl RunFailure {
    pub fn new(kind: &'static str, message: impl Into<String>) -> RunFailure {
        RunFailure { kind, code: None, message: message.into(), line: None, column: None }
    }
}

/// A module made ready to run: specialized, its entry point reflected, its
/// buffers filled from the request.
pub struct Prepared {
    pub words: Vec<u32>,
    pub ir: Ir,
    pub entry: EntryReflection,
    pub opts: interp::Options,
    pub buffers: Buffers,
}

/// Specialize the analysed module, pick its entry point and fill its buffers.
pub fn prepare(a: &Analysis, req: &RunRequest) -> Result<Prepared, RunFailure> {
    let Some(ir0) = a.ir().filter(|_| a.is_valid()) else {
        return Err(RunFailure::new("module", "there is no valid module to run (see the diagnostics)"));
    };
    let mut values = Vec::new();
    for (id, v) in &req.spec {
        let Ok(n) = id.trim().parse::<u32>() else {
            return Err(RunFailure::new("input", format!("spec `{id}`: a SpecId is a number")));
        };
        let x = values::spec_value(ir0, n, v).map_err(|m| RunFailure::new("input", format!("spec {n}={v}: {m}")))?;
        values.push((n, x));
    }
    let mut words = a.words().to_vec();
    interp::specialize(&mut words, &values);
    let module = spvlab_core::binary::read_words(&words)
        .map_err(|e| RunFailure::new("module", format!("the specialized module does not read back: {}", e.message())))?;
    let ir = Ir::build(module);
    let refl = reflect::reflect(&ir);
    let computes: Vec<&EntryReflection> = refl.entry_points.iter().filter(|e| e.execution_model == "GLCompute").collect();
    let entry = match &req.entry {
        Some(n) => computes.iter().find(|e| &e.name == n).copied().ok_or_else(|| {
            let names: Vec<String> = computes.iter().map(|e| format!("`{}`", e.name)).collect();
            RunFailure::new("input", format!("no GLCompute entry point `{n}` (the module has: {})", if names.is_empty() { "none".into() } else { names.join(", ") }))
        })?,
        None => computes.first().copied().ok_or_else(|| RunFailure::new("module", "the module has no GLCompute entry point"))?,
    }
    .clone();
    let mut buffers = Buffers::new();
    for (s, b, r) in entry.bound_buffers() {
        let spec = req.buffers.get(&format!("{s}.{b}")).map_or("zeros", String::as_str);
        let bytes = values::buffer_bytes(spec, r.size, r.runtime_array).map_err(|m| RunFailure::new("input", format!("buffer {s}.{b} `{spec}`: {m}")))?;
        buffers.insert((s, b), bytes);
    }
    let push_res = entry.resources.iter().find(|r| r.kind == ResourceKind::PushConstant);
    let push = match push_res {
        Some(r) => {
            let spec = req.buffers.get("push").map_or("zeros", String::as_str);
            Some(values::buffer_bytes(spec, r.size, r.runtime_array).map_err(|m| RunFailure::new("input", format!("push `{spec}`: {m}")))?)
        }
        None => None,
    };
    for k in req.buffers.keys() {
        let known = if k == "push" { push_res.is_some() } else { entry.bound_buffers().any(|(s, b, _)| *k == format!("{s}.{b}")) };
        if !known {
            let list: Vec<String> = entry.bound_buffers().map(|(s, b, _)| format!("{s}.{b}")).collect();
            return Err(RunFailure::new("input", format!("buffer `{k}`: entry point `{}` binds no such buffer (its buffers: {})", entry.name, if list.is_empty() { "none".into() } else { list.join(", ") })));
        }
    }
    let opts = interp::Options {
        entry: Some(entry.name.clone()),
        workgroups: req.workgroups.unwrap_or([1, 1, 1]),
        max_steps: req.max_steps.unwrap_or(1_000_000),
        push_constants: push,
        trace: trace_of(req),
        ..interp::Options::default()
    };
    Ok(Prepared { words, ir, entry, opts, buffers })
}

impl Prepared {
    /// The result of a run that wrote `buffers`.
    pub fn result(&self, backend: &str, buffers: &Buffers) -> RunResult {
        let list = self.entry.bound_buffers()
            .map(|(set, binding, r)| {
                let bytes = buffers.get(&(set, binding)).cloned().unwrap_or_default();
                BufferValue { set, binding, name: r.display_name(), kind: r.kind.name(), value: values::show(&r.ty, &bytes), bytes }
            })
            .collect();
        RunResult {
            backend: backend.into(),
            ok: true,
            entry_point: self.entry.name.clone(),
            workgroups: self.opts.workgroups,
            buffers: list,
            invocations: None,
            steps: None,
            adapter: None,
            error: None,
            trace: None,
        }
    }

    /// A result with no output.
    pub fn failed(&self, backend: &str, error: RunFailure) -> RunResult {
        RunResult { ok: false, buffers: Vec::new(), error: Some(error), ..self.result(backend, &Buffers::new()) }
    }

    /// The interpreter's run (on a copy of the inputs).
    pub fn interp(&self, a: &Analysis) -> RunResult {
        let mut bufs = self.buffers.clone();
        match interp::run(&self.ir, &self.opts, &mut bufs) {
            Ok(stats) => RunResult { invocations: Some(stats.invocations), steps: Some(stats.steps), trace: stats.trace, ..self.result("interp", &bufs) },
            Err(e) => RunResult { trace: e.trace.clone().map(|t| *t), ..self.failed("interp", interp_failure(a, &e)) },
        }
    }
}

/// An interpreter error, located in the text.
fn interp_failure(a: &Analysis, e: &RunError) -> RunFailure {
    let message = a.run_error_message(e);
    let kind = if matches!(e.kind, interp::RunErrorKind::NoTermination { .. }) { "stepBudget" } else { "interp" };
    let (line, column) = e.inst.and_then(|i| a.inst_line_col(i)).map_or((None, None), |(l, c)| (Some(l), Some(c)));
    RunFailure { kind, code: None, message, line, column }
}

/// `session.run(request)`: the interpreter.
pub fn run_interp(a: &Analysis, req: &RunRequest) -> RunResult {
    match prepare(a, req) {
        Ok(p) => p.interp(a),
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
    }
}

/// A dispatch ready for the GPU: the module, its WGSL and its inputs,
/// owned (the browser's run outlives the call that starts it).
#[cfg(feature = "gpu")]
pub struct GpuRun {
    pub prepared: Prepared,
    pub wgsl: String,
}

/// Everything [`run_gpu`] checks before the GPU: the request, the
/// interpreter's step budget (the guard), our lowering. `Err` is the answer
/// (nothing to dispatch).
#[cfg(feature = "gpu")]
pub fn gpu_guard(a: &Analysis, req: &RunRequest) -> Result<GpuRun, RunResult> {
    use crate::gpu::{self, Backend};
    let backend = Backend::Wgsl.name();
    let mut p = prepare(a, req).map_err(|f| no_module(backend, f))?;
    // The guard's run records nothing (a trace is the interpreter's answer).
    p.opts.trace = spvlab_core::interp::Trace::Off;
    if !req.force {
        let r = p.interp(a);
        if let Some(e) = r.error.filter(|e| e.kind == "stepBudget") {
            let message = format!("not dispatched: the module does not terminate in the interpreter ({}); `force` sends it anyway", e.message);
            return Err(p.failed(backend, RunFailure { kind: "stepBudget", message, ..e }));
        }
    }
    match gpu::wgsl_of(&p.ir, &p.entry.name) {
        Ok(wgsl) => Ok(GpuRun { prepared: p, wgsl }),
        Err(m) => {
            let code = gpu::refusal_code(&m).map(str::to_string);
            Err(p.failed(backend, RunFailure { kind: "refused", code, message: m, line: None, column: None }))
        }
    }
}

/// The kind of a GPU error, as [`RunFailure::kind`] names it.
#[cfg(feature = "gpu")]
pub fn gpu_failure(e: &crate::gpu::GpuError) -> RunFailure {
    use crate::gpu::GpuErrorKind as K;
    let kind = match e.kind {
        K::NoDevice => "noDevice",
        K::Unsupported => "unsupported",
        K::Validation => "validation",
        K::DeviceLost => "deviceLost",
        K::Timeout => "timeout",
        K::Panic => "panic",
    };
    RunFailure::new(kind, e.to_string())
}

#[cfg(feature = "gpu")]
impl GpuRun {
    /// Dispatch on `gpu` (the one async path; natively the caller blocks on
    /// it, in the browser it is a Promise).
    pub async fn run(&self, gpu: &crate::gpu::Gpu, wait: &dyn Fn(&wgpu::Device) -> Result<(), String>) -> RunResult {
        use crate::gpu::{Backend, Job};
        let p = &self.prepared;
        let aliases = BTreeMap::new();
        let job = Job {
            backend: Backend::Wgsl,
            words: &p.words,
            ir: &p.ir,
            wgsl: Some(&self.wgsl),
            entry: Some(&p.entry.name),
            workgroups: p.opts.workgroups,
            buffers: &p.buffers,
            aliases: &aliases,
            push_constants: p.opts.push_constants.as_deref(),
            module_name: &p.entry.name,
            resources: Some(&p.opts),
        };
        let name = Backend::Wgsl.name();
        let r = match gpu.run(&job, wait).await {
            Ok(out) => p.result(name, &out),
            Err(e) => p.failed(name, gpu_failure(&e)),
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
        assert_eq!((b.set, b.binding, b.kind), (0, 0, "storage buffer"));
        assert_eq!(b.bytes, [2u32, 4, 6, 80].iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>());
    }

    #[test]
    fn bad_requests_are_input_errors() {
        let a = analysis(DOUBLE);
        let r = run_interp(&a, &req(&[("0.1", "zeros")]));
        assert_eq!(r.error.as_ref().map(|e| e.kind), Some("input"), "{r:?}");
        assert!(r.error.unwrap().message.contains("0.0"));
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
        let gpu = match crate::gpu::Gpu::new_blocking() {
            Ok(g) => g,
            Err(e) if std::env::var("SPVLAB_REQUIRE_GPU").as_deref() == Ok("1") => panic!("SPVLAB_REQUIRE_GPU=1 and no Vulkan adapter: {e}"),
            Err(e) => {
                eprintln!("skipped: no Vulkan adapter ({e})");
                return;
            }
        };
        let wait = |d: &wgpu::Device| d.poll(wgpu::PollType::wait_indefinitely()).map(|_| ()).map_err(|e| e.to_string());
        let got = crate::gpu::block_on(job.run(&gpu, &wait));
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
            assert!(job.wgsl.contains("@id(3) override") && job.wgsl.contains("= 40u;"), "{}", job.wgsl);
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
}
