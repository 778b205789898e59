//! The GPU runner: one compute dispatch of a SPIR-V module on
//! wgpu 30, natively on Vulkan (lavapipe here, any driver elsewhere) and in
//! the browser on WebGPU, by one async code path ([`Gpu::run`]); natively
//! [`Gpu::run_blocking`] drives it with wgpu's poll and a deadline.
//!
//! Three ways to hand the module to wgpu ([`Backend`]):
//! * `wgpu`: WGSL text (our lowering, `core::wgsl`: see [`wgsl_of`]); the
//!   only one a browser takes;
//! * `wgpu-naga`: the SPIR-V words through naga's SPIR-V front end (wgpu
//!   feature `spirv`);
//! * `wgpu-passthrough`: the raw words, untranslated
//!   (`Features::PASSTHROUGH_SHADERS`), with the pipeline layout built from
//!   core's reflection.
//!
//! Resources come from core's reflection of the entry point: each storage and
//! uniform buffer at its (set, binding), the push constants (wgpu's
//! "immediates"), the dispatch size; the buffers come in and go back as the
//! interpreter's [`Buffers`], so core's typed output prints them the same.
//! Storage and sampled images (2D, 2D arrays and 3D; not multisampled),
//! separate samplers and arrays of buffers are bound from the Amber runner's
//! resources ([`bind`]). A combined image sampler, which wgpu lacks, is bound
//! as an image and a sampler: the module is first split
//! (`core::wgsl::split_combined_samplers`, the pair our WGSL declares, so
//! that every backend has one layout). Texel buffers and multisampled images,
//! which wgpu lacks, are refused ("not supported"), never guessed.
//!
//! Failures are errors that name the backend and the module, never a stuck
//! or crashed process: a validation error (wgpu's uncaptured-error handler
//! collects them instead of panicking), a lost device (reported by its
//! callback; the device is then dropped and the next run makes a new one), a
//! panic inside wgpu (caught natively), and a GPU hang (natively, the poll has
//! a deadline; the hung device is abandoned, not waited on).

mod bind;
mod draw;
#[cfg(not(target_arch = "wasm32"))]
mod exec;

/// The wgpu this runner is built on (a caller's `wait` takes its device).
pub use wgpu;

#[cfg(not(target_arch = "wasm32"))]
pub use exec::{Difference, ExecFailure, GpuExecutor, Place, Runner, first_pixel_difference};
pub use draw::{DrawJob, DrawStage, flip_position_y, stage_wgsl, MAX_DRAW_VERTICES, MAX_INSTANCES};

use spvlab_core::interp::Buffers;
use spvlab_core::ir::Ir;
use spvlab_core::reflect::{self, ExecutionModel, ResourceKind};
use spvlab_core::wgsl::{Refusal, Wgsl};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

/// How the module reaches wgpu.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Backend {
    /// Our WGSL text.
    Wgsl,
    /// naga's SPIR-V front end.
    Naga,
    /// The raw SPIR-V (`Features::PASSTHROUGH_SHADERS`).
    Passthrough,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Wgsl, Backend::Naga, Backend::Passthrough];

    /// The name on the command line (`--backend`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Wgsl => "wgpu",
            Backend::Naga => "wgpu-naga",
            Backend::Passthrough => "wgpu-passthrough",
        }
    }

    pub fn parse(s: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.name() == s)
    }
}

/// Our WGSL lowering refused the module: its first refusal (core's
/// [`Refusal`], with its code and instruction) and how many more there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub first: Option<Refusal>,
    pub more: usize,
}

impl Refused {
    /// The first refusal's reason code (`wgsl.int64`).
    pub fn code(&self) -> Option<&'static str> {
        self.first.as_ref().map(|r| r.code.as_str())
    }
}

impl std::fmt::Display for Refused {
    /// `our WGSL lowering refuses (CODE): MESSAGE (and N more)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(first) = &self.first else {
            return f.write_str("our WGSL lowering refuses (no reason given)");
        };
        write!(f, "our WGSL lowering refuses ({}): {}", first.code, first.message)?;
        match self.more {
            0 => Ok(()),
            n => write!(f, " (and {n} more)"),
        }
    }
}

impl std::error::Error for Refused {}

/// The WGSL of a module's entry point (`entry`; empty: every entry point),
/// for [`Backend::Wgsl`], from `core::wgsl`.
pub fn wgsl_of(ir: &Ir, entry: &str) -> Result<Wgsl, Refused> {
    let opts = spvlab_core::wgsl::Options { entry: Some(entry).filter(|e| !e.is_empty()).map(str::to_string) };
    match spvlab_core::wgsl::lower(ir, &spvlab_core::cfg::analyze_for_lowering(ir), &opts) {
        Ok(w) => Ok(w),
        Err(rs) => Err(Refused { more: rs.len().saturating_sub(1), first: rs.into_iter().next() }),
    }
}

/// Natively the WGSL goes through naga's WGSL front end, which (naga 30)
/// rejects `enable subgroups;` though it takes the subgroup built-ins when
/// the device has `Features::SUBGROUP`: that line is blanked (the line count
/// stays, for the source map). A browser needs it, so there it stays.
fn native_wgsl(text: &str) -> Cow<'_, str> {
    if cfg!(target_arch = "wasm32") || !text.lines().any(|l| l.trim() == "enable subgroups;") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for l in text.split_inclusive('\n') {
        if l.trim() == "enable subgroups;" {
            out.push_str(if l.ends_with('\n') { "\n" } else { "" });
        } else {
            out.push_str(l);
        }
    }
    Cow::Owned(out)
}

/// One dispatch.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub backend: Backend,
    /// The module's words (specialized: spec constants hold their values).
    pub words: &'a [u32],
    /// Its IR (for the reflection).
    pub ir: &'a Ir,
    /// The lowered module (its text, and the bindings it declares), for
    /// [`Backend::Wgsl`].
    pub wgsl: Option<&'a Wgsl>,
    /// The entry point; `None`: the first GLCompute one.
    pub entry: Option<&'a str>,
    pub workgroups: [u32; 3],
    /// Each binding's bytes, by (set, binding).
    pub buffers: &'a Buffers,
    /// Bindings that share another's memory: (set, binding) -> the one
    /// whose bytes are in `buffers`.
    pub aliases: &'a BTreeMap<(u32, u32), (u32, u32)>,
    pub push_constants: Option<&'a [u8]>,
    /// The dispatch's images, samplers and arrays of descriptors (the
    /// interpreter's options: [`bind`]); `None`: buffers only.
    pub resources: Option<&'a spvlab_core::interp::Options>,
    /// What to call the module in errors (a file name, an Amber shader).
    pub module_name: &'a str,
}

impl<'a> Job<'a> {
    /// The dispatch of a run plan (its words, entry point, buffers, push
    /// constants and options) on `backend`.
    pub fn of_plan(plan: &'a spvlab_core::plan::Plan, backend: Backend, wgsl: Option<&'a Wgsl>, module_name: &'a str) -> Job<'a> {
        Job {
            backend,
            words: &plan.words,
            ir: &plan.ir,
            wgsl,
            entry: Some(&plan.entry.name),
            workgroups: plan.options.workgroups,
            buffers: &plan.buffers,
            aliases: &plan.options.aliases,
            push_constants: plan.options.push_constants.as_deref(),
            resources: Some(&plan.options),
            module_name,
        }
    }
}

/// A dispatch that did not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuError {
    pub backend: Backend,
    pub module: String,
    pub kind: GpuErrorKind,
    pub message: String,
    /// For [`GpuErrorKind::Refused`]: the lowering's refusal.
    pub refused: Option<Refused>,
    /// The process running the dispatch died (a driver crash), as
    /// [`GpuErrorKind::DeviceLost`].
    pub crashed: bool,
}

impl GpuError {
    /// Our lowering refused the module (nothing reached the GPU).
    pub fn refused(backend: Backend, module: &str, r: Refused) -> GpuError {
        GpuError { backend, module: module.to_string(), kind: GpuErrorKind::Refused, message: r.to_string(), refused: Some(r), crashed: false }
    }
}

/// What kind of failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GpuErrorKind {
    /// No adapter or device (no Vulkan driver, no WebGPU).
    NoDevice,
    /// The module or its resources are beyond this runner (or the adapter).
    Unsupported,
    /// wgpu refused the module or the pipeline (naga's front end included).
    Validation,
    /// The device was lost.
    DeviceLost,
    /// The dispatch did not finish before the deadline (a GPU hang).
    Timeout,
    /// A panic inside wgpu.
    Panic,
    /// Our WGSL lowering refused the module ([`GpuError::refused`]).
    Refused,
}

impl GpuErrorKind {
    /// A refusal ("not supported": beyond the runner, or our lowering's),
    /// which is no failure of a run on several backends.
    pub fn is_refusal(self) -> bool {
        matches!(self, GpuErrorKind::Unsupported | GpuErrorKind::Refused)
    }

    /// The kind as data names it (the page's `RunFailure.kind`, the CLI's
    /// `--json`): `noDevice`, `unsupported`, `validation`, `deviceLost`,
    /// `timeout`, `panic`, `refused`.
    pub fn name(self) -> &'static str {
        match self {
            GpuErrorKind::NoDevice => "noDevice",
            GpuErrorKind::Unsupported => "unsupported",
            GpuErrorKind::Validation => "validation",
            GpuErrorKind::DeviceLost => "deviceLost",
            GpuErrorKind::Timeout => "timeout",
            GpuErrorKind::Panic => "panic",
            GpuErrorKind::Refused => "refused",
        }
    }
}

impl std::fmt::Display for GpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let k = match self.kind {
            GpuErrorKind::NoDevice => "no device",
            GpuErrorKind::Unsupported | GpuErrorKind::Refused => "not supported",
            GpuErrorKind::Validation => "rejected",
            GpuErrorKind::DeviceLost => "device lost",
            GpuErrorKind::Timeout => "timeout",
            GpuErrorKind::Panic => "panic in wgpu",
        };
        write!(f, "{} on `{}`: {k}: {}", self.backend.name(), self.module, self.message)
    }
}

impl std::error::Error for GpuError {}

/// An adapter and its device, kept from one dispatch to the next.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: String,
    /// The adapter's subgroup size, when it has one size.
    subgroup_size: Option<u32>,
    features: wgpu::Features,
    limits: wgpu::Limits,
    /// Errors wgpu reported outside any scope (validation, out of memory,
    /// internal), collected instead of panicking.
    errors: Arc<Mutex<Vec<String>>>,
    /// Why the device was lost, once it is.
    lost: Arc<Mutex<Option<String>>>,
}

/// Round `n` up to a multiple of `m` (a power of two).
fn round_up(n: u64, m: u64) -> u64 {
    (n + m - 1) & !(m - 1)
}

impl Gpu {
    /// The first adapter (natively: Vulkan only) and a device with every
    /// feature and limit it has.
    pub async fn new() -> Result<Gpu, String> {
        let backends = if cfg!(target_arch = "wasm32") {
            wgpu::Backends::BROWSER_WEBGPU
        } else {
            wgpu::Backends::VULKAN
        };
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            flags: wgpu::InstanceFlags::empty(),
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await
            .map_err(|e| format!("no GPU adapter ({e})"))?;
        let ai = adapter.get_info();
        let features = adapter.features();
        let limits = adapter.limits();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("spvlab"),
                required_features: features,
                required_limits: limits.clone(),
                // Passthrough shaders are all this runner asks of them.
                experimental_features: unsafe { wgpu::ExperimentalFeatures::enabled() },
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no device on {} ({e})", ai.name))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let e2 = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = e2.lock() {
                v.push(e.to_string());
            }
        }));
        let lost = Arc::new(Mutex::new(None));
        let l2 = lost.clone();
        device.set_device_lost_callback(move |reason, m| {
            if let Ok(mut l) = l2.lock() {
                *l = Some(format!("{reason:?}: {m}"));
            }
        });
        Ok(Gpu {
            device,
            queue,
            info: format!("{} ({:?}, {:?})", ai.name, ai.backend, ai.device_type),
            subgroup_size: (ai.subgroup_min_size == ai.subgroup_max_size && ai.subgroup_min_size > 0).then_some(ai.subgroup_min_size),
            features: device_features(features),
            limits,
            errors,
            lost,
        })
    }

    /// The adapter, in words.
    pub fn info(&self) -> &str {
        &self.info
    }

    /// The number of invocations in a subgroup on this adapter, where it has
    /// one size (lavapipe: 8 with AVX2); `None` where it varies.
    pub fn subgroup_size(&self) -> Option<u32> {
        self.subgroup_size
    }

    /// Whether the device was lost (then make a new [`Gpu`]).
    pub fn is_lost(&self) -> bool {
        self.lost.lock().map_or(true, |l| l.is_some())
    }

    fn fail(&self, job: &Job, kind: GpuErrorKind, message: impl Into<String>) -> GpuError {
        GpuError {
            backend: job.backend,
            module: job.module_name.to_string(),
            kind,
            message: message.into(),
            refused: None,
            crashed: false,
        }
    }

    /// The errors reported since the last call, as one.
    fn take_errors(&self, job: &Job) -> Result<(), GpuError> {
        if let Some(l) = self.lost.lock().ok().and_then(|l| l.clone()) {
            return Err(self.fail(job, GpuErrorKind::DeviceLost, l));
        }
        let mut v = self.errors.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default();
        if v.is_empty() {
            return Ok(());
        }
        v.dedup();
        // wgpu's messages run over several indented lines: one line here.
        let one: Vec<String> = v.iter().map(|m| m.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        Err(self.fail(job, GpuErrorKind::Validation, one.join("; ")))
    }

    /// Run one dispatch; the bound buffers (those in `job.buffers`, aliases
    /// left out) come back with the dispatch's writes. `wait` is called
    /// while a readback is pending (natively: poll the device with a
    /// deadline; on the web: nothing, the browser's event loop maps).
    pub async fn run(&self, job: &Job<'_>, wait: &dyn Fn(&wgpu::Device) -> Result<(), String>) -> Result<Buffers, GpuError> {
        // In the browser errors come back asynchronously (the uncaptured-error
        // handler would see them after the run): a scope catches them.
        #[cfg(target_arch = "wasm32")]
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let r = self.run_in_scope(job, wait).await;
        #[cfg(target_arch = "wasm32")]
        if let Some(e) = scope.pop().await {
            // The first error is the cause; those after follow from it.
            let one = e.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
            return Err(self.fail(job, GpuErrorKind::Validation, one));
        }
        r
    }

    async fn run_in_scope(&self, job: &Job<'_>, wait: &dyn Fn(&wgpu::Device) -> Result<(), String>) -> Result<Buffers, GpuError> {
        let pipeline = self.pipeline(job)?;
        let Pipeline { pipeline, groups: bind_groups, buffers, push, textures } = pipeline;
        let [x, y, z] = job.workgroups;
        let most = self.limits.max_compute_workgroups_per_dimension;
        if x > most || y > most || z > most {
            return Err(self.fail(job, GpuErrorKind::Unsupported, format!("{x}x{y}x{z} workgroups: at most {most} in a dimension")));
        }
        // Each buffer read back through a staging copy.
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes: None });
            pass.set_pipeline(&pipeline);
            for (i, g) in bind_groups.iter().enumerate() {
                if let Some(g) = g {
                    pass.set_bind_group(i as u32, g, &[]);
                }
            }
            if let Some(p) = &push {
                pass.set_immediates(0, p);
            }
            pass.dispatch_workgroups(x, y, z);
        }
        let mut staging = Vec::new();
        for (key, (buf, len)) in &buffers {
            let size = round_up((*len as u64).max(4), 4);
            let s = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            enc.copy_buffer_to_buffer(buf, 0, &s, 0, size);
            staging.push((*key, s, *len));
        }
        let tex_staging = bind::copy_textures(&self.device, &mut enc, &textures);
        self.queue.submit([enc.finish()]);
        self.take_errors(job)?;
        // Map every staging buffer; wait until all are mapped.
        let pending = Arc::new(Mutex::new(Pending { left: staging.len() + tex_staging.len(), error: None, waker: None }));
        for s in staging.iter().map(|(_, s, _)| s).chain(&tex_staging) {
            let p = pending.clone();
            s.map_async(wgpu::MapMode::Read, .., move |r| {
                if let Ok(mut p) = p.lock() {
                    p.left -= 1;
                    if let Err(e) = r {
                        p.error = Some(e.to_string());
                    }
                    // The last one wakes the run (in the browser nothing else does).
                    if p.left == 0
                        && let Some(w) = p.waker.take()
                    {
                        w.wake();
                    }
                }
            });
        }
        Mapped { pending: pending.clone(), gpu: self, wait, job }.await?;
        if let Some(e) = pending.lock().ok().and_then(|p| p.error.clone()) {
            return Err(self.fail(job, GpuErrorKind::DeviceLost, format!("reading back: {e}")));
        }
        let mut out = Buffers::new();
        for (key, s, len) in staging {
            let bytes = s
                .get_mapped_range(..)
                .map_err(|e| self.fail(job, GpuErrorKind::Validation, format!("reading back: {e}")))?;
            out.insert(key, bytes[..len].to_vec());
        }
        for (t, s) in textures.iter().zip(&tex_staging) {
            let bytes = s
                .get_mapped_range(..)
                .map_err(|e| self.fail(job, GpuErrorKind::Validation, format!("reading back: {e}")))?;
            out.insert(t.key, bind::unpad(t, &bytes));
        }
        self.take_errors(job)?;
        Ok(out)
    }

    /// The module, its layout, its bind groups and its buffers.
    fn pipeline(&self, job: &Job) -> Result<Pipeline, GpuError> {
        let split = bind::split(self, job)?;
        let opts = split.as_ref().and_then(|s| bind::split_options(job.resources, &[s]));
        let split_job;
        let job = match &split {
            Some(s) => {
                split_job = Job { words: &s.words, ir: &s.ir, resources: opts.as_ref().or(job.resources), ..*job };
                &split_job
            }
            None => job,
        };
        let refl = reflect::reflect(job.ir);
        let entry = refl
            .entry_points
            .iter()
            .find(|e| match job.entry {
                Some(n) => e.name == n,
                None => e.execution_model == ExecutionModel::GLCompute,
            })
            .ok_or_else(|| self.fail(job, GpuErrorKind::Unsupported, match job.entry {
                Some(n) => format!("no entry point `{n}`"),
                None => "no GLCompute entry point".into(),
            }))?;
        if entry.execution_model != ExecutionModel::GLCompute {
            return Err(self.fail(job, GpuErrorKind::Unsupported, format!("`{}` is a {} entry point, not GLCompute", entry.name, entry.execution_model)));
        }
        let Bound { layout, groups, buffers, push, textures, mut words } = self.bind(&[(job, entry, wgpu::ShaderStages::COMPUTE)])?;
        let compacted = words.pop().flatten();
        let job = match &compacted {
            Some(w) => &Job { words: w, ..*job },
            None => job,
        };
        if job.backend == Backend::Passthrough {
            self.check_capabilities(job)?;
        }
        let module = self.module(job, &entry.name)?;
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: Some(&layout),
            module: &module,
            entry_point: Some(&entry.name),
            compilation_options: Default::default(),
            cache: None,
        });
        self.take_errors(job)?;
        Ok(Pipeline { pipeline, groups, buffers, push, textures })
    }

    /// The pipeline layout, bind groups and buffers of the resources of one
    /// or more stages (each stage's job, entry point and shader stage): one
    /// bind group per set, a binding visible to the stages that declare it.
    /// For [`Backend::Passthrough`] each stage's words with its bindings
    /// renumbered as wgpu lays out a bind group (`words`, in stage order).
    fn bind(&self, stages: &[(&Job, &reflect::EntryReflection, wgpu::ShaderStages)]) -> Result<Bound, GpuError> {
        let job = stages[0].0;
        // The layout: one bind group per set, from the reflection.
        let mut sets: BTreeMap<u32, Vec<(u32, ResourceKind, u64, wgpu::ShaderStages)>> = BTreeMap::new();
        let mut push_size = 0u64;
        let mut extra_res = Vec::new();
        // Our WGSL has the push constants in a buffer it introduced.
        let mut introduced: BTreeMap<(u32, u32), Vec<u8>> = BTreeMap::new();
        let mut read_only = Vec::new();
        let mut writable = Vec::new();
        for &(job, entry, stage) in stages {
            let mut stage_push = 0u64;
            for r in &entry.resources {
                match r.kind {
                    ResourceKind::Workgroup => {}
                    ResourceKind::PushConstant => stage_push = r.size.unwrap_or(0).max(r.runtime_array.map_or(0, |a| a.fixed_size)),
                    ResourceKind::StorageBuffer | ResourceKind::UniformBuffer if !r.descriptor_array => {
                        let (Some(s), Some(b)) = (r.set, r.binding) else {
                            return Err(self.fail(job, GpuErrorKind::Unsupported, format!("buffer %{} has no DescriptorSet and Binding", r.variable)));
                        };
                        let least = r.size.or(r.runtime_array.map(|a| a.fixed_size)).unwrap_or(0).max(bind::wgsl_min_size(job, s, b));
                        sets.entry(s).or_default().push((b, r.kind, least, stage));
                    }
                    _ if job.resources.is_some() && bind::handles(r) => extra_res.push((job, r, stage)),
                    k => {
                        let at = match (r.set, r.binding) {
                            (Some(s), Some(b)) => format!(" at {s}.{b}"),
                            _ => String::new(),
                        };
                        let what = if r.descriptor_array { format!("an array of {}s", k.name()) } else { format!("a {}", k.name()) };
                        return Err(self.fail(job, GpuErrorKind::Unsupported, format!("{what}{at} (the GPU runner binds buffers, arrays of buffers, push constants, storage and sampled images, samplers and combined image samplers)")));
                    }
                }
            }
            let ro = bind::read_only_buffers(job);
            for r in &entry.resources {
                if let (ResourceKind::StorageBuffer, Some(s), Some(b)) = (r.kind, r.set, r.binding)
                    && !ro.contains(&(s, b))
                {
                    writable.push((s, b));
                }
            }
            read_only.extend(ro);
            if stage_push > 0
                && let Some((g, b, uniform)) = bind::push_constant_buffer(job)
            {
                let mut bytes = job.push_constants.map(<[u8]>::to_vec).unwrap_or_default();
                bytes.resize(bytes.len().max(stage_push as usize), 0);
                let least = stage_push.max(bind::wgsl_min_size(job, g, b));
                sets.entry(g).or_default().push((b, bind::push_kind(uniform), least, stage));
                let e = introduced.entry((g, b)).or_default();
                if e.len() < bytes.len() {
                    *e = bytes;
                }
                if uniform {
                    writable.push((g, b));
                } else {
                    read_only.push((g, b));
                }
            } else if stage_push > 0 {
                push_size = push_size.max(stage_push);
            }
        }
        // A binding is read-only when every stage that declares it says so.
        read_only.retain(|k| !writable.contains(k));
        // One entry a binding (two variables or two stages may share one),
        // in order.
        for es in sets.values_mut() {
            es.sort_by_key(|e| e.0);
            let mut merged: Vec<(u32, ResourceKind, u64, wgpu::ShaderStages)> = Vec::with_capacity(es.len());
            for e in es.drain(..) {
                match merged.last_mut() {
                    Some(m) if m.0 == e.0 => {
                        m.2 = m.2.max(e.2);
                        m.3 |= e.3;
                    }
                    _ => merged.push(e),
                }
            }
            *es = merged;
        }
        // Images, samplers and arrays of buffers.
        let extra = bind::Extra::make(self, job, &extra_res)?;
        // wgpu's Vulkan backend numbers each set's bindings 0, 1, 2, ... in
        // order of binding (and rewrites the SPIR-V it makes with naga to
        // match); raw SPIR-V must be renumbered the same way.
        let words = stages
            .iter()
            .map(|(job, _, _)| {
                (job.backend == Backend::Passthrough).then(|| {
                    let mut all: BTreeMap<u32, Vec<(u32, ResourceKind, u64)>> =
                        sets.iter().map(|(s, es)| (*s, es.iter().map(|e| (e.0, e.1, e.2)).collect())).collect();
                    for (s, es) in &extra.entries {
                        all.entry(*s).or_default().extend(es.iter().map(|(l, _)| (l.binding, ResourceKind::Other, 0)));
                    }
                    compact_bindings(job.words, &all)
                })
            })
            .collect();
        // Buffers: one per binding given (an alias binds its target's).
        let mut gpu_bufs: BTreeMap<(u32, u32), (wgpu::Buffer, usize)> = BTreeMap::new();
        let mut layouts = Vec::new();
        let max_set = sets.keys().chain(extra.entries.keys()).max().copied();
        if max_set.is_some_and(|m| m >= self.limits.max_bind_groups) {
            return Err(self.fail(job, GpuErrorKind::Unsupported, format!("descriptor set {} (the adapter has {} bind groups)", max_set.unwrap_or(0), self.limits.max_bind_groups)));
        }
        let mut groups = Vec::new();
        for set in 0..max_set.map_or(0, |m| m + 1) {
            let none = Vec::new();
            let Some(entries) = sets.get(&set).or(extra.entries.contains_key(&set).then_some(&none)) else {
                layouts.push(None);
                groups.push(None);
                continue;
            };
            let mut le: Vec<wgpu::BindGroupLayoutEntry> = entries
                .iter()
                .map(|(b, k, _, stage)| wgpu::BindGroupLayoutEntry {
                    binding: *b,
                    visibility: *stage,
                    ty: wgpu::BindingType::Buffer {
                        ty: match k {
                            ResourceKind::UniformBuffer => wgpu::BufferBindingType::Uniform,
                            _ => wgpu::BufferBindingType::Storage { read_only: read_only.contains(&(set, *b)) },
                        },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                })
                .collect();
            le.extend(extra.layout_entries(set));
            let layout = self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: None, entries: &le });
            for (b, k, least, _) in entries {
                let key = *job.aliases.get(&(set, *b)).unwrap_or(&(set, *b));
                if gpu_bufs.contains_key(&key) {
                    continue;
                }
                let Some(data) = job.buffers.get(&key).or(introduced.get(&key)) else {
                    return Err(self.fail(job, GpuErrorKind::Unsupported, format!("the module binds a buffer at {set}.{b}, and none is given")));
                };
                gpu_bufs.insert(key, (bind::upload(self, data, *least, *k), data.len()));
            }
            let mut be: Vec<wgpu::BindGroupEntry> = entries
                .iter()
                .map(|(b, _, _, _)| {
                    let key = *job.aliases.get(&(set, *b)).unwrap_or(&(set, *b));
                    wgpu::BindGroupEntry { binding: *b, resource: gpu_bufs[&key].0.as_entire_binding() }
                })
                .collect();
            let arrays = extra.arrays(set);
            be.extend(extra.group_entries(set, &arrays));
            groups.push(Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &layout, entries: &be })));
            layouts.push(Some(layout));
        }
        // The introduced buffers are not read back (the bind groups hold them).
        for k in introduced.keys() {
            gpu_bufs.remove(k);
        }
        let bind::Extra { buffers: array_bufs, textures, .. } = extra;
        for (k, b) in array_bufs {
            gpu_bufs.entry(k).or_insert(b);
        }
        let push = match (push_size, job.push_constants) {
            (0, _) => None,
            (n, p) => {
                let mut bytes = p.map(<[u8]>::to_vec).unwrap_or_default();
                bytes.resize(round_up((bytes.len() as u64).max(n), 4) as usize, 0);
                if bytes.len() as u64 > self.limits.max_immediate_size as u64 {
                    return Err(self.fail(job, GpuErrorKind::Unsupported, format!("{} bytes of push constants (the adapter takes {})", bytes.len(), self.limits.max_immediate_size)));
                }
                Some(bytes)
            }
        };
        let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(|l| l.as_ref()).collect();
        let layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &layout_refs,
            immediate_size: push.as_ref().map_or(0, |p| p.len() as u32),
        });
        self.take_errors(job)?;
        Ok(Bound { layout, groups, buffers: gpu_bufs, push, textures, words })
    }

    /// Raw SPIR-V goes to the driver unchecked, and a driver may crash on a
    /// capability the device was not created with (lavapipe does, on 16-bit
    /// types): refuse a module that declares a capability whose wgpu feature
    /// the device lacks, or one wgpu never enables.
    fn check_capabilities(&self, job: &Job) -> Result<(), GpuError> {
        use spvlab_core::grammar::capability as c;
        let f = self.features;
        // OpCapability's operand, from the words.
        let mut caps = Vec::new();
        let mut at = 5;
        let w = job.words;
        while at < w.len() {
            let n = (w[at] >> 16) as usize;
            if n == 0 || at + n > w.len() {
                break;
            }
            if w[at] & 0xffff == spvlab_core::grammar::op::OpCapability as u32 && n == 2 {
                caps.push(w[at + 1]);
            }
            at += n;
        }
        for cap in &caps {
            // wgpu's Vulkan backend: SHADER_F16 enables shaderFloat16 (and,
            // with it, shaderInt8 where the device has it, which no wgpu
            // feature reports), SHADER_F16 or SHADER_I16 the 16-bit storage
            // of buffers; nothing enables 8-bit storage or 16-bit push
            // constants.
            let need = match *cap {
                c::Float16 => Some(wgpu::Features::SHADER_F16),
                c::Int16 => Some(wgpu::Features::SHADER_I16),
                c::Int64 => Some(wgpu::Features::SHADER_INT64),
                c::Float64 => Some(wgpu::Features::SHADER_F64),
                c::Int8 => Some(wgpu::Features::SHADER_F16),
                c::StorageBuffer16BitAccess | c::UniformAndStorageBuffer16BitAccess => {
                    if f.intersects(wgpu::Features::SHADER_F16 | wgpu::Features::SHADER_I16) {
                        continue;
                    }
                    None
                }
                c::StoragePushConstant16 | c::StorageInputOutput16 | c::StorageBuffer8BitAccess | c::UniformAndStorageBuffer8BitAccess | c::StoragePushConstant8 => None,
                _ => continue,
            };
            let ok = need.is_some_and(|n| f.contains(n));
            if !ok {
                let name = spvlab_core::grammar::OperandKind::Capability.enumerant(*cap).map_or_else(|| cap.to_string(), |e| e.name.to_string());
                return Err(self.fail(job, GpuErrorKind::Unsupported, format!("capability {name}: the device was not created with it (raw SPIR-V would reach the driver unchecked)")));
            }
        }
        Ok(())
    }

    fn module(&self, job: &Job, entry: &str) -> Result<wgpu::ShaderModule, GpuError> {
        let m = match job.backend {
            Backend::Wgsl => {
                let wgsl = job.wgsl.ok_or_else(|| self.fail(job, GpuErrorKind::Unsupported, "no WGSL given"))?;
                self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: None,
                    source: wgpu::ShaderSource::Wgsl(native_wgsl(&wgsl.text)),
                })
            }
            #[cfg(not(target_arch = "wasm32"))]
            Backend::Naga => self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::SpirV(Cow::Borrowed(job.words)),
            }),
            #[cfg(target_arch = "wasm32")]
            Backend::Naga => return Err(self.fail(job, GpuErrorKind::Unsupported, "SPIR-V needs a native build (the page takes WGSL)")),
            Backend::Passthrough => {
                if !self.features.contains(wgpu::Features::PASSTHROUGH_SHADERS) {
                    return Err(self.fail(job, GpuErrorKind::Unsupported, "the adapter has no passthrough shaders"));
                }
                // SAFETY: the words are the caller's module, which the
                // callers (the CLI, the Amber executor) validate or take from
                // a test; the driver may still reject or crash on a bad one,
                // which is what this backend is for.
                unsafe {
                    self.device.create_shader_module_passthrough(wgpu::ShaderModuleDescriptorPassthrough {
                        label: None,
                        entry_points: Cow::Owned(vec![wgpu::PassthroughShaderEntryPoint { name: Cow::Borrowed(entry), workgroup_size: (1, 1, 1) }]),
                        spirv: Some(Cow::Borrowed(job.words)),
                        ..Default::default()
                    })
                }
            }
        };
        self.take_errors(job)?;
        Ok(m)
    }
}

/// The words with each buffer's `Binding` replaced by its rank among its
/// set's bindings (as wgpu's Vulkan backend lays out a bind group).
fn compact_bindings(words: &[u32], sets: &BTreeMap<u32, Vec<(u32, ResourceKind, u64)>>) -> Vec<u32> {
    use spvlab_core::grammar::decoration::{Binding, DescriptorSet};
    use spvlab_core::grammar::op::OpDecorate;
    let mut out = words.to_vec();
    let insts = |w: &[u32]| {
        let mut v = Vec::new();
        let mut at = 5;
        while at < w.len() {
            let n = (w[at] >> 16) as usize;
            if n == 0 || at + n > w.len() {
                break;
            }
            v.push((at, n));
            at += n;
        }
        v
    };
    let list = insts(words);
    let decorate = |at: usize, n: usize, d: u32| words[at] & 0xffff == OpDecorate as u32 && n == 4 && words[at + 2] == d;
    let mut set_of = BTreeMap::new();
    for &(at, n) in &list {
        if decorate(at, n, DescriptorSet) {
            set_of.insert(words[at + 1], words[at + 3]);
        }
    }
    for &(at, n) in &list {
        if decorate(at, n, Binding)
            && let Some(set) = set_of.get(&words[at + 1])
            && let Some(es) = sets.get(set)
        {
            let mut bs: Vec<u32> = es.iter().map(|e| e.0).collect();
            bs.sort_unstable();
            bs.dedup();
            if let Ok(rank) = bs.binary_search(&words[at + 3]) {
                out[at + 3] = rank as u32;
            }
        }
    }
    out
}

/// The features this runner asked for that the device has.
fn device_features(f: wgpu::Features) -> wgpu::Features {
    f
}

/// What [`Gpu::bind`] makes.
struct Bound {
    layout: wgpu::PipelineLayout,
    groups: Vec<Option<wgpu::BindGroup>>,
    buffers: BTreeMap<(u32, u32), (wgpu::Buffer, usize)>,
    push: Option<Vec<u8>>,
    textures: Vec<bind::TexBack>,
    /// Per stage, for [`Backend::Passthrough`]: the words renumbered.
    words: Vec<Option<Vec<u32>>>,
}

struct Pipeline {
    pipeline: wgpu::ComputePipeline,
    groups: Vec<Option<wgpu::BindGroup>>,
    buffers: BTreeMap<(u32, u32), (wgpu::Buffer, usize)>,
    push: Option<Vec<u8>>,
    /// Storage images, read back after the dispatch.
    textures: Vec<bind::TexBack>,
}

/// The staging buffers not yet mapped, the first mapping error, and the
/// waker of the run waiting on them.
struct Pending {
    left: usize,
    error: Option<String>,
    waker: Option<std::task::Waker>,
}

/// Ready once every staging buffer is mapped (or the wait fails).
struct Mapped<'a, 'j> {
    pending: Arc<Mutex<Pending>>,
    gpu: &'a Gpu,
    wait: &'a dyn Fn(&wgpu::Device) -> Result<(), String>,
    job: &'a Job<'j>,
}

impl Mapped<'_, '_> {
    /// Whether every buffer is mapped; if not, `cx`'s waker is kept for the
    /// last mapping's callback.
    fn done(&self, cx: &std::task::Context<'_>) -> bool {
        match self.pending.lock() {
            Ok(mut p) if p.left > 0 => {
                p.waker = Some(cx.waker().clone());
                false
            }
            _ => true,
        }
    }
}

impl Future for Mapped<'_, '_> {
    type Output = Result<(), GpuError>;
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        use std::task::Poll;
        if self.done(cx) {
            return Poll::Ready(Ok(()));
        }
        if let Err(e) = self.gpu.take_errors(self.job) {
            return Poll::Ready(Err(e));
        }
        // Natively: poll the device (which runs the callbacks), then ask
        // again; in the browser `wait` does nothing and the last mapping's
        // callback wakes this task.
        if let Err(m) = (self.wait)(&self.gpu.device) {
            return Poll::Ready(Err(self.gpu.fail(self.job, GpuErrorKind::Timeout, m)));
        }
        if self.done(cx) {
            return Poll::Ready(Ok(()));
        }
        #[cfg(not(target_arch = "wasm32"))]
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Natively: run a future to its end on this thread (wgpu's native futures
/// are ready at once or driven by the device's poll, which `Mapped` calls).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Gpu {
    /// Natively: a new device, blocking.
    pub fn new_blocking() -> Result<Gpu, String> {
        match std::panic::catch_unwind(|| block_on(Gpu::new())) {
            Ok(r) => r,
            Err(p) => Err(format!("wgpu panicked creating the device: {}", panic_text(&p))),
        }
    }

    /// Natively: run one dispatch, blocking, for at most `timeout`. A panic
    /// in wgpu is caught and returned. After a timeout or a lost device the
    /// [`Gpu`] must not be used again ([`Gpu::is_lost`] says so; a caller
    /// makes a new one).
    pub fn run_blocking(&self, job: &Job<'_>, timeout: std::time::Duration) -> Result<Buffers, GpuError> {
        self.blocking(job, timeout, |wait| block_on(self.run(job, wait)))
    }

    /// Run `f` (a run or a draw, given the deadline's wait) on a thread of
    /// its own, for at most `timeout`; a timeout or a panic marks the device
    /// lost. `job` names the backend and module in errors.
    pub(crate) fn blocking<T: Send>(
        &self,
        job: &Job<'_>,
        timeout: std::time::Duration,
        f: impl FnOnce(&(dyn Fn(&wgpu::Device) -> Result<(), String> + Sync)) -> Result<T, GpuError> + Send,
    ) -> Result<T, GpuError> {
        let deadline = std::time::Instant::now() + timeout;
        let wait = move |d: &wgpu::Device| -> Result<(), String> {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(format!("the GPU did not finish in {timeout:?}"));
            }
            match d.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(left) }) {
                Ok(_) => Ok(()),
                Err(wgpu::PollError::Timeout) => Err(format!("the GPU did not finish in {timeout:?}")),
                Err(e) => Err(e.to_string()),
            }
        };
        // On a thread of its own with a large stack: naga's SPIR-V front end
        // recurses over the CFG (a deep one overflows a test thread's 2 MiB,
        // which aborts the process); a panic there comes back as an error.
        let r = std::thread::scope(|sc| {
            std::thread::Builder::new()
                .name("spvlab-gpu".into())
                .stack_size(256 << 20)
                .spawn_scoped(sc, || f(&wait))
                .map_err(|e| Box::new(format!("no thread for the GPU: {e}")) as Box<dyn std::any::Any + Send>)
                .and_then(|h| h.join())
        });
        match r {
            Ok(Err(e)) if e.kind == GpuErrorKind::Timeout => {
                // The device may still be running the work: mark it lost.
                if let Ok(mut l) = self.lost.lock() {
                    *l = Some(format!("abandoned after a timeout ({})", e.message));
                }
                Err(e)
            }
            Ok(r) => r,
            Err(p) => {
                if let Ok(mut l) = self.lost.lock() {
                    *l = Some("abandoned after a panic".into());
                }
                Err(self.fail(job, GpuErrorKind::Panic, panic_text(&p)))
            }
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}
