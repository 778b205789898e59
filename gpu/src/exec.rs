//! The GPU as an Amber executor ([`spvlab_core::amber::Executor`]): each
//! `RUN` of a script dispatched on wgpu, natively.
//!
//! The interpreter's step budget guards the GPU: before a dispatch or a
//! draw goes to the GPU it runs on the interpreter (on a copy of the
//! buffers and attachments); one that does not terminate there is not sent
//! (unless `force`). The interpreter's buffers and colour attachments,
//! where its run finished, are compared with the GPU's (pixels within the
//! format's precision): every difference is recorded
//! ([`GpuExecutor::differences`]).

use crate::{Backend, DrawJob, DrawStage, Gpu, GpuError, GpuErrorKind, Job};
use spvlab_core::amber::{self, Dispatch, ExecError, Executor, Failure};
use spvlab_core::raster::{ColorFormat, Framebuffer};
use spvlab_core::reflect::ExecutionModel;
use spvlab_core::interp::{self, Buffers};
use std::time::Duration;

/// A buffer or a colour attachment on which the interpreter and the GPU
/// disagree after one dispatch or draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// The shader (a draw's: `vertex + fragment`).
    pub shader: String,
    pub place: Place,
}

/// Where the first difference lies.
#[derive(Clone, Debug, PartialEq)]
pub enum Place {
    /// A buffer's first byte that differs, and the bytes of the word holding
    /// it (interpreter, GPU).
    Buffer { binding: (u32, u32), byte: usize, interp: Vec<u8>, gpu: Vec<u8> },
    /// A colour attachment's first pixel (in row order) that differs beyond
    /// the format's precision, its values (interpreter, GPU), and how many
    /// pixels differ.
    Pixel { location: u32, x: u32, y: u32, interp: [f32; 4], gpu: [f32; 4], pixels: usize },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.place {
            Place::Buffer { binding: (s, b), byte, interp, gpu } => {
                write!(f, "shader `{}`, binding {s}.{b}, byte {byte}: interpreter {interp:02x?}, GPU {gpu:02x?}", self.shader)
            }
            Place::Pixel { location, x, y, interp, gpu, pixels } => write!(
                f,
                "shaders `{}`, colour attachment {location}, pixel ({x}, {y}) (of {pixels} that differ): interpreter {interp:?}, GPU {gpu:?}",
                self.shader
            ),
        }
    }
}

/// Two values of a colour attachment's texel are the same within `format`'s
/// precision: one step of an 8-bit UNORM channel (rounding may go either
/// way), else a relative 1e-5 (a float attachment holds what the shader's
/// arithmetic gave, which Vulkan allows a few ULPs of error).
fn same_texel(format: ColorFormat, a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(&b).all(|(&a, &b)| {
        if format.is_unorm() {
            (a - b).abs() <= 1.0 / 255.0 + 1e-6
        } else {
            a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0)
        }
    })
}

/// The first pixel of the colour attachments where `want` (the
/// interpreter's) and `got` (the GPU's) differ, with the count.
pub fn first_pixel_difference(want: &Framebuffer, got: &Framebuffer) -> Option<Place> {
    for (w, g) in want.colors.iter().zip(&got.colors) {
        let (wa, ga) = (&w.attachment, &g.attachment);
        let mut first = None;
        let mut pixels = 0;
        for y in 0..wa.height {
            for x in 0..wa.width {
                let (Some(a), b) = (wa.read(x, y), ga.read(x, y)) else { continue };
                let b = b.unwrap_or([f32::NAN; 4]);
                if !same_texel(wa.format, a, b) {
                    pixels += 1;
                    first.get_or_insert((x, y, a, b));
                }
            }
        }
        if let Some((x, y, interp, gpu)) = first {
            return Some(Place::Pixel { location: w.location, x, y, interp, gpu, pixels });
        }
    }
    None
}

/// Where a dispatch runs when not on this process's own device: the CLI
/// runs each in a child process (a driver crash or a hang then kills the
/// child, never the caller).
pub trait Runner {
    /// The device's subgroup size, where it has one size.
    fn subgroup_size(&mut self) -> Option<u32>;
    fn run(&mut self, job: &Job<'_>, timeout: Duration) -> Result<Buffers, crate::GpuError>;
    /// One draw into `fb` (its attachments come back in it); the written
    /// buffers come back. A runner that does not draw says so.
    fn draw(&mut self, job: &DrawJob<'_>, fb: &mut Framebuffer, timeout: Duration) -> Result<Buffers, crate::GpuError> {
        let _ = (fb, timeout);
        Err(GpuError {
            backend: job.backend,
            module: job.module_name.to_string(),
            kind: GpuErrorKind::Unsupported,
            message: "this runner does not draw".into(),
            refused: None,
            crashed: false,
        })
    }
}

pub struct GpuExecutor {
    pub backend: Backend,
    gpu: Option<Gpu>,
    /// Runs the dispatches instead of this process's device, when set.
    pub runner: Option<Box<dyn Runner>>,
    /// Send modules that do not terminate in the interpreter anyway.
    pub force: bool,
    /// Skip the interpreter's run (no guard, no comparison).
    pub no_guard: bool,
    pub timeout: Duration,
    /// The differences seen so far.
    pub differences: Vec<Difference>,
    /// Dispatches and draws where both ran and were compared.
    pub compared: usize,
    /// The reason code of each refusal by our lowering so far (`wgpu`).
    pub refusals: Vec<&'static str>,
}

impl GpuExecutor {
    pub fn new(backend: Backend) -> GpuExecutor {
        GpuExecutor {
            backend,
            gpu: None,
            runner: None,
            force: false,
            no_guard: false,
            timeout: Duration::from_secs(10),
            differences: Vec::new(),
            compared: 0,
            refusals: Vec::new(),
        }
    }

    /// The device, made on first use (and again after a loss).
    pub fn gpu(&mut self) -> Result<&Gpu, String> {
        if self.gpu.as_ref().is_some_and(Gpu::is_lost) {
            // A lost or hung device is abandoned, not dropped: dropping
            // would wait for the work it may still be running.
            std::mem::forget(self.gpu.take());
        }
        if self.gpu.is_none() {
            self.gpu = Some(Gpu::new_blocking()?);
        }
        Ok(self.gpu.as_ref().expect("made above"))
    }
}

/// Why [`GpuExecutor`] did not run a dispatch (an [`ExecError::Backend`]).
#[derive(Debug)]
pub enum ExecFailure {
    /// The dispatch does not terminate in the interpreter (`error`, its
    /// step budget): not sent to the GPU (without `force`).
    NotTerminating { backend: Backend, shader: String, error: interp::RunError },
    /// The pipeline asks for spirv-opt's --graphics-robust-access, which
    /// the GPU runner does not apply.
    RobustAccess { backend: Backend, shader: String },
    /// No device could be made (the adapter's or driver's words).
    NoDevice { backend: Backend, message: String },
    /// The GPU runner's error, our lowering's refusal included.
    Gpu(GpuError),
}

impl std::fmt::Display for ExecFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecFailure::NotTerminating { backend, shader, error } => write!(
                f,
                "{}: `{shader}` not sent to the GPU: it does not terminate in the interpreter ({}); --force sends it anyway",
                backend.name(),
                error.message()
            ),
            ExecFailure::RobustAccess { backend, shader } => write!(
                f,
                "{} on `{shader}`: not supported: the pipeline asks for spirv-opt's --graphics-robust-access, which the GPU runner does not apply (without it the test's accesses out of bounds are undefined)",
                backend.name()
            ),
            ExecFailure::NoDevice { backend, message } => write!(f, "{}: {message}", backend.name()),
            ExecFailure::Gpu(e) => write!(f, "{e}"),
        }
    }
}

impl Failure for ExecFailure {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn failed(f: ExecFailure) -> ExecError {
    ExecError::Backend(Box::new(f))
}

impl Executor for GpuExecutor {
    fn dispatch(&mut self, d: &Dispatch, buffers: &mut Buffers) -> Result<(), ExecError> {
        // The guard: the interpreter first, with the device's subgroup size
        // (unless the test sets one), so that subgroup operations compare
        // like with like.
        let mut reference = None;
        if !self.no_guard {
            let size = match &mut self.runner {
                Some(r) => r.subgroup_size(),
                None => self.gpu().ok().and_then(Gpu::subgroup_size),
            };
            let opts;
            let opts = match size {
                Some(n) if d.opts.subgroup_size.is_none() => {
                    opts = interp::Options { subgroup_size: Some(n), ..d.opts.clone() };
                    &opts
                }
                _ => d.opts,
            };
            let mut copy = buffers.clone();
            match interp::run(d.ir, opts, &mut copy) {
                Ok(_) => reference = Some(copy),
                Err(e) if matches!(e.kind, interp::RunErrorKind::NoTermination { .. }) && !self.force => {
                    return Err(failed(ExecFailure::NotTerminating { backend: self.backend, shader: d.shader.to_string(), error: e }));
                }
                Err(_) => {}
            }
        }
        let wgsl = match self.backend {
            Backend::Wgsl => {
                let entry = d.opts.entry.clone().or_else(|| {
                    d.ir.entry_points.first().map(|e| e.name.clone())
                });
                match crate::wgsl_of(d.ir, entry.as_deref().unwrap_or("")) {
                    Ok(w) => Some(w),
                    Err(r) => {
                        self.refusals.push(r.code().unwrap_or(""));
                        return Err(failed(ExecFailure::Gpu(GpuError::refused(self.backend, d.shader, r))));
                    }
                }
            }
            _ => None,
        };
        if d.opts.robust_access {
            return Err(failed(ExecFailure::RobustAccess { backend: self.backend, shader: d.shader.to_string() }));
        }
        let job = Job {
            backend: self.backend,
            words: d.words,
            ir: d.ir,
            wgsl: wgsl.as_ref(),
            entry: d.opts.entry.as_deref(),
            workgroups: d.opts.workgroups,
            buffers,
            aliases: &d.opts.aliases,
            push_constants: d.opts.push_constants.as_deref(),
            resources: Some(d.opts),
            module_name: d.shader,
        };
        let timeout = self.timeout;
        let out = match &mut self.runner {
            Some(r) => r.run(&job, timeout),
            None => {
                let backend = self.backend;
                let gpu = self.gpu().map_err(|message| failed(ExecFailure::NoDevice { backend, message }))?;
                gpu.run_blocking(&job, timeout)
            }
        }
        .map_err(|e| failed(ExecFailure::Gpu(e)))?;
        for (k, v) in out {
            buffers.insert(k, v);
        }
        if let Some(r) = reference {
            self.compared += 1;
            for (k, want) in &r {
                let got = buffers.get(k).map_or(&[][..], |v| v);
                if let Some(byte) = want.iter().zip(got).position(|(a, b)| a != b).or((want.len() != got.len()).then(|| want.len().min(got.len()))) {
                    let w = byte / 4 * 4;
                    self.differences.push(Difference {
                        shader: d.shader.to_string(),
                        place: Place::Buffer {
                            binding: *k,
                            byte,
                            interp: want.get(w..(w + 4).min(want.len())).unwrap_or(&[]).to_vec(),
                            gpu: got.get(w..(w + 4).min(got.len())).unwrap_or(&[]).to_vec(),
                        },
                    });
                }
            }
        }
        Ok(())
    }

    /// A draw on the GPU: the interpreter's guard first (as for a
    /// dispatch), both stages lowered for `wgpu` (a refusal names its
    /// stage's shader), then drawn by the runner or this process's device,
    /// and the colour attachments compared with the interpreter's.
    fn draw(&mut self, job: &amber::DrawJob, framebuffer: &mut Framebuffer, buffers: &mut Buffers) -> Result<(), ExecError> {
        if job.opts.robust_access {
            return Err(failed(ExecFailure::RobustAccess { backend: self.backend, shader: job.fragment.shader.to_string() }));
        }
        let name = format!("{} + {}", job.vertex.shader, job.fragment.shader);
        let mut reference = None;
        if !self.no_guard {
            let (mut fb, mut bufs) = (framebuffer.clone(), buffers.clone());
            match amber::Interpreter.draw(job, &mut fb, &mut bufs) {
                Ok(()) => reference = Some(fb),
                Err(ExecError::Interp(e)) if matches!(e.kind, interp::RunErrorKind::NoTermination { .. }) && !self.force => {
                    return Err(failed(ExecFailure::NotTerminating { backend: self.backend, shader: name, error: e }));
                }
                Err(_) => {}
            }
        }
        let mut lowered = Vec::new();
        if self.backend == Backend::Wgsl {
            for (st, model) in [(&job.vertex, ExecutionModel::Vertex), (&job.fragment, ExecutionModel::Fragment)] {
                match crate::stage_wgsl(st.words, st.ir, st.entry, model) {
                    Ok(w) => lowered.push(w),
                    Err(r) => {
                        self.refusals.push(r.code().unwrap_or(""));
                        return Err(failed(ExecFailure::Gpu(GpuError::refused(self.backend, st.shader, r))));
                    }
                }
            }
        }
        let dj = DrawJob {
            backend: self.backend,
            vertex: DrawStage { words: job.vertex.words, ir: job.vertex.ir, wgsl: lowered.first(), entry: job.vertex.entry },
            fragment: DrawStage { words: job.fragment.words, ir: job.fragment.ir, wgsl: lowered.get(1), entry: job.fragment.entry },
            pipeline: job.pipeline,
            draw: job.draw,
            buffers,
            aliases: &job.opts.aliases,
            push_constants: job.opts.push_constants.as_deref(),
            resources: Some(job.opts),
            module_name: &name,
        };
        let timeout = self.timeout;
        let out = match &mut self.runner {
            Some(r) => r.draw(&dj, framebuffer, timeout),
            None => {
                let backend = self.backend;
                let gpu = self.gpu().map_err(|message| failed(ExecFailure::NoDevice { backend, message }))?;
                gpu.draw_blocking(&dj, framebuffer, timeout)
            }
        }
        .map_err(|e| failed(ExecFailure::Gpu(e)))?;
        for (k, v) in out {
            buffers.insert(k, v);
        }
        if let Some(want) = reference {
            self.compared += 1;
            if let Some(place) = first_pixel_difference(&want, framebuffer) {
                self.differences.push(Difference { shader: name, place });
            }
        }
        Ok(())
    }
}
