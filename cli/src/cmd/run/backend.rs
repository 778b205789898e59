//! `--backend` of `run` and `amber`: the reference interpreter, or a GPU
//! backend of the web crate's runner (built with the CLI's `gpu` feature).

use spvlab_core::amber::{Executor, Interpreter};

use crate::args::{Parser, no_value};
use crate::error::CliError;

#[cfg(feature = "gpu")]
pub use spvlab_gpu as gpu;

/// What runs a dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Interp,
    #[cfg(feature = "gpu")]
    Gpu(gpu::Backend),
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Interp => "interp",
            #[cfg(feature = "gpu")]
            Backend::Gpu(b) => b.name(),
        }
    }

    /// Every backend, for `all`.
    pub fn all() -> Vec<Backend> {
        #[allow(unused_mut)]
        let mut v = vec![Backend::Interp];
        #[cfg(feature = "gpu")]
        v.extend(gpu::Backend::ALL.map(Backend::Gpu));
        v
    }

    /// `interp`, `wgpu`, `wgpu-naga`, `wgpu-passthrough` or `all`.
    pub fn parse_list(s: &str) -> Result<Vec<Backend>, CliError> {
        if s == "all" {
            return Ok(Backend::all());
        }
        if s == "interp" {
            return Ok(vec![Backend::Interp]);
        }
        #[cfg(feature = "gpu")]
        if let Some(b) = gpu::Backend::parse(s) {
            return Ok(vec![Backend::Gpu(b)]);
        }
        #[cfg(not(feature = "gpu"))]
        if ["wgpu", "wgpu-naga", "wgpu-passthrough"].contains(&s) {
            return Err(CliError::Usage(format!(
                "--backend {s}: this spvlab was built without the GPU backends (cargo feature `gpu`)"
            )));
        }
        Err(CliError::Usage(format!(
            "--backend: `{s}` is none of interp, wgpu, wgpu-naga, wgpu-passthrough, all"
        )))
    }

    /// An Amber executor for this backend.
    pub fn executor(self, force: bool, flags: &GpuFlags) -> Exec {
        let _ = (force, flags);
        match self {
            Backend::Interp => Exec::Interp(Interpreter),
            #[cfg(feature = "gpu")]
            Backend::Gpu(b) => {
                let mut e = gpu::GpuExecutor::new(b);
                e.no_guard = force;
                e.force = force;
                e.timeout = flags.timeout;
                if !flags.in_process {
                    e.runner = Some(Box::new(super::child::GpuProcess::new()));
                }
                Exec::Gpu(Box::new(e))
            }
        }
    }
}

/// `--in-process` and `--gpu-timeout` of `run` and `amber`.
#[derive(Clone, Debug)]
pub struct GpuFlags {
    /// Run the GPU jobs in this process, not in a child (a driver crash then
    /// takes `spvlab` down with it).
    pub in_process: bool,
    /// How long one dispatch may take on the GPU.
    pub timeout: std::time::Duration,
}

impl Default for GpuFlags {
    fn default() -> GpuFlags {
        GpuFlags { in_process: false, timeout: std::time::Duration::from_secs(10) }
    }
}

impl GpuFlags {
    /// Takes `--in-process` or `--gpu-timeout S`.
    pub fn parse(&mut self, p: &mut Parser, name: &str, inline: Option<std::ffi::OsString>) -> Result<(), CliError> {
        if name == "--in-process" {
            no_value("--in-process", &inline)?;
            self.in_process = true;
            return Ok(());
        }
        let v = p.text_value("--gpu-timeout", inline)?;
        let s: f64 = v
            .parse()
            .ok()
            .filter(|s: &f64| *s > 0.0 && *s < 1e6)
            .ok_or_else(|| CliError::Usage(format!("--gpu-timeout: `{v}` is not a positive number of seconds")))?;
        self.timeout = std::time::Duration::from_secs_f64(s);
        Ok(())
    }
}

/// An executor of either kind.
pub enum Exec {
    Interp(Interpreter),
    #[cfg(feature = "gpu")]
    Gpu(Box<gpu::GpuExecutor>),
}

impl Exec {
    pub fn as_dyn(&mut self) -> &mut dyn Executor {
        match self {
            Exec::Interp(i) => i,
            #[cfg(feature = "gpu")]
            Exec::Gpu(g) => g.as_mut(),
        }
    }

    /// Every difference from the interpreter seen so far, in words.
    pub fn differences(&self) -> Vec<String> {
        match self {
            Exec::Interp(_) => Vec::new(),
            #[cfg(feature = "gpu")]
            Exec::Gpu(g) => g.differences.iter().map(|d| d.to_string()).collect(),
        }
    }

    /// The dispatches compared with the interpreter.
    pub fn compared(&self) -> usize {
        match self {
            Exec::Interp(_) => 0,
            #[cfg(feature = "gpu")]
            Exec::Gpu(g) => g.compared,
        }
    }
}

/// Why a backend of `run --backend` gave no buffers.
#[derive(Debug)]
pub enum Failure {
    /// The interpreter's error, located in the module (rendered);
    /// `unsupported`: an instruction it does not run; `error` the error as
    /// data (for `--json`).
    Interp { text: String, unsupported: bool, error: serde_json::Value },
    /// The module does not terminate in the interpreter: not sent to the
    /// GPU backend. `message`: the interpreter's.
    NotSent { backend: &'static str, message: String },
    /// No device for the backend, in this process.
    NoDevice { backend: &'static str, message: String },
    #[cfg(feature = "gpu")]
    Gpu(gpu::GpuError),
}

impl Failure {
    /// A refusal ("not supported": our lowering, or beyond the runner),
    /// which is no failure of a run of several backends.
    pub fn is_refusal(&self) -> bool {
        if let Failure::Interp { unsupported, .. } = self {
            return *unsupported;
        }
        #[cfg(feature = "gpu")]
        if let Failure::Gpu(e) = self {
            return e.kind.is_refusal();
        }
        false
    }

    /// The failure's kind as data names it: `interp`, `notSent`, `noDevice`,
    /// or the GPU error's kind.
    pub fn class(&self) -> &'static str {
        match self {
            Failure::Interp { .. } => "interp",
            Failure::NotSent { .. } => "notSent",
            Failure::NoDevice { .. } => "noDevice",
            #[cfg(feature = "gpu")]
            Failure::Gpu(e) => e.kind.name(),
        }
    }

    /// The failure as data, for `--json`: `failure` names its kind
    /// (`interp`, `notSent`, `noDevice`, or the GPU error's kind), `message`
    /// is the rendered text, and the interpreter's error (`run`) or our
    /// lowering's refusal (`refusal`: code, instruction, more) ride along.
    pub fn data(&self) -> serde_json::Value {
        use serde_json::json;
        let message = self.to_string();
        let mut v = json!({ "failure": self.class(), "message": message });
        match self {
            Failure::Interp { error, .. } => v["run"] = error.clone(),
            Failure::NotSent { .. } | Failure::NoDevice { .. } => {}
            #[cfg(feature = "gpu")]
            Failure::Gpu(e) => {
                if let Some(r) = &e.refused {
                    v["refusal"] = json!({
                        "code": r.code(),
                        "instruction": r.first.as_ref().and_then(|f| f.instruction),
                        "more": r.more,
                    });
                }
            }
        }
        v
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Interp { text, .. } => f.write_str(text),
            Failure::NotSent { backend, message } => {
                write!(f, "{backend}: not sent to the GPU: it does not terminate in the interpreter ({message}); --force sends it anyway")
            }
            Failure::NoDevice { backend, message } => write!(f, "{backend}: {message}"),
            #[cfg(feature = "gpu")]
            Failure::Gpu(e) => e.fmt(f),
        }
    }
}

/// One dispatch of `plan` on a GPU backend, blocking (`flags.timeout` at
/// most; in the child process `process` unless `flags.in_process`): the
/// buffers as the GPU left them.
#[cfg(feature = "gpu")]
pub fn run_gpu(
    flags: &GpuFlags,
    b: gpu::Backend,
    plan: &spvlab_core::plan::Plan,
    name: &str,
    process: &mut super::child::GpuProcess,
) -> Result<spvlab_core::interp::Buffers, Failure> {
    let wgsl = match b {
        gpu::Backend::Wgsl => Some(gpu::wgsl_of(&plan.ir, &plan.entry.name).map_err(|r| Failure::Gpu(gpu::GpuError::refused(b, name, r)))?),
        _ => None,
    };
    let job = gpu::Job::of_plan(plan, b, wgsl.as_ref(), name);
    let out = if flags.in_process {
        let g = gpu::Gpu::new_blocking().map_err(|message| Failure::NoDevice { backend: b.name(), message })?;
        g.run_blocking(&job, flags.timeout)
    } else {
        use gpu::Runner as _;
        process.run(&job, flags.timeout)
    }
    .map_err(Failure::Gpu)?;
    let mut all = plan.buffers.clone();
    all.extend(out);
    Ok(all)
}
