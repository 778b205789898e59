//! The run plan: from an [`Analysis`] and what a user asked for (an entry
//! point, spec values, each buffer's input in the input language of
//! [`values`], a dispatch size, the interpreter's options) to everything a
//! backend needs to run the module: the specialized words and their IR, the
//! entry point and its execution model, each binding with its byte layout
//! and its name as the text spells it, the filled buffers and push
//! constants, and [`interp::Options`]. The CLI (`spvlab run`), the web
//! facade and the GPU runner all start from a [`Plan`].
//!
//! GLCompute entry points bind their storage and uniform buffers by (set,
//! binding) and their push constants; an OpenCL Kernel (when
//! [`Inputs::kernels`] allows it) binds parameter k at (0, k): a pointer
//! parameter's buffer is an array of its pointee in the natural C layout and
//! must be given, a scalar parameter's value is its buffer's first bytes.
//! An untyped storage buffer variable without a data type
//! (SPV_KHR_untyped_pointers) is a buffer of u32 words.
//!
//! Failures are [`PlanError`]s with the data a front end needs to say what
//! is wrong in its own words (the CLI names its flags, the page its fields).

mod bindings;
pub mod draw;
mod leaves;
#[cfg(test)]
mod tests;

pub use draw::{DrawInputs, DrawPlan, DrawShape, Drawn, VertexSource};
pub use leaves::{Leaf, LeafKind};

use crate::analysis::Analysis;
use crate::interp::{self, Buffers, Trace, values};
use crate::ir::Ir;
use crate::reflect::{self, EntryReflection, ExecutionModel, RuntimeArrayShape, TypeNode};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Where a buffer input goes: a (set, binding), or the push constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    Binding(u32, u32),
    Push,
}

impl fmt::Display for Slot {
    /// `SET.BINDING` or `push`, as the inputs name it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Binding(s, b) => write!(f, "{s}.{b}"),
            Slot::Push => f.write_str("push"),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Slot {
    /// As it is written: `"0.1"`, `"push"`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What a user asks of a run.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The entry point; `None`: the first one that runs.
    pub entry: Option<String>,
    /// Spec constant values by SpecId, as written.
    pub spec: Vec<(u32, String)>,
    /// Each buffer's input in the input language; a binding not given is
    /// zeros.
    pub buffers: Vec<(Slot, String)>,
    /// Workgroups in x, y, z.
    pub workgroups: [u32; 3],
    /// Whether OpenCL Kernel entry points run (else GLCompute only).
    pub kernels: bool,
    /// The interpreter's step budget per invocation.
    pub max_steps: u64,
    /// Clamp access chain indices (spirv-opt's `--graphics-robust-access`).
    pub robust_access: bool,
    /// The interleaving of the invocations (`None`: one after another).
    pub seed: Option<u64>,
    /// The paths the interpreter records.
    pub trace: Trace,
    /// How a Fragment entry point is drawn; `None`: only compute (and
    /// Kernel) entry points run.
    pub draw: Option<DrawInputs>,
}

impl Default for Inputs {
    fn default() -> Inputs {
        Inputs {
            entry: None,
            spec: Vec::new(),
            buffers: Vec::new(),
            workgroups: [1, 1, 1],
            kernels: false,
            max_steps: 1_000_000,
            robust_access: false,
            seed: None,
            trace: Trace::Off,
            draw: None,
        }
    }
}

/// What a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub enum BindingKind {
    StorageBuffer,
    UniformBuffer,
    PushConstant,
    /// A Kernel's pointer parameter: a buffer of its pointee.
    KernelPointer,
    /// A Kernel's scalar parameter: its value is the buffer's first bytes.
    KernelValue,
}

impl BindingKind {
    /// In words: `storage buffer`, `uniform buffer`, `push constant`,
    /// `kernel parameter`.
    pub fn name(self) -> &'static str {
        match self {
            BindingKind::StorageBuffer => "storage buffer",
            BindingKind::UniformBuffer => "uniform buffer",
            BindingKind::PushConstant => "push constant",
            BindingKind::KernelPointer | BindingKind::KernelValue => "kernel parameter",
        }
    }
}

/// One buffer a run binds, with its layout.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub struct Binding {
    pub slot: Slot,
    pub kind: BindingKind,
    /// The variable (or the Kernel's parameter) it is.
    pub id: u32,
    /// Its name as the text spells it (`%buf`; [`Analysis::display_name`]).
    pub name: String,
    /// Its OpName, else `%ID` (a Kernel parameter: `paramK`).
    pub label: String,
    /// The type its bytes are read by, with its layout.
    #[cfg_attr(feature = "serde", serde(rename = "type"))]
    pub ty: TypeNode,
    /// Its byte size, where fixed.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub size: Option<u64>,
    /// Where it ends in a runtime array: the fixed part and the stride.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub runtime_array: Option<RuntimeArrayShape>,
}

impl Binding {
    /// Each scalar of `len` bytes of this binding: its offset, kind, size
    /// and path (`data[3]`, `m.x[1]`), in the order [`values::show`] reads
    /// them.
    pub fn leaves(&self, len: usize) -> Vec<Leaf> {
        leaves::of(&self.ty, len)
    }

    /// Whether a run prints this binding (a Kernel's scalar parameters are
    /// inputs only).
    pub fn is_output(&self) -> bool {
        self.kind != BindingKind::KernelValue && self.kind != BindingKind::PushConstant
    }
}

/// Why there is nothing to run.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(tag = "error", rename_all = "camelCase", rename_all_fields = "camelCase")
)]
pub enum PlanError {
    /// The module is not valid (its diagnostics say why).
    NoModule,
    /// A spec value its constant cannot take (or no constant has the SpecId).
    BadSpec { id: u32, value: String, reason: String },
    /// The specialized words do not read back.
    Unreadable { reason: String },
    /// No entry point of that name that runs.
    NoSuchEntry { name: String, available: Vec<String>, kernels: bool },
    /// No entry point that runs.
    NoEntry { kernels: bool },
    /// An input for a buffer the entry point does not bind.
    UnknownBuffer { slot: Slot, entry: String, available: Vec<Slot> },
    /// An input for a Kernel parameter that does not exist.
    UnknownParameter { slot: Slot, entry: String, parameters: Vec<(u32, String)> },
    /// A buffer input that does not parse or fit: `column` is 1-based, in
    /// characters of `input`.
    BadInput { slot: Slot, input: String, column: u32, reason: String },
    /// A Kernel's pointer parameter without its buffer.
    MissingPointer { index: u32, name: String },
    /// A draw past one of its limits (`what`: "framebuffer width", "grid
    /// cells"...), or below its least size.
    TooLarge { what: String, value: u64, limit: u64 },
    /// The vertex module given for a draw does not read back or has no
    /// Vertex entry point.
    BadVertexModule { reason: String },
}

impl PlanError {
    /// Whether the user's inputs are at fault (else the module is).
    pub fn is_input(&self) -> bool {
        !matches!(self, PlanError::NoModule | PlanError::Unreadable { .. } | PlanError::NoEntry { .. })
    }
}

impl fmt::Display for PlanError {
    /// The error in words, naming the input at fault as the inputs are
    /// written (`buffer 0.1=`u32: 1 x``, `spec 3=5`, `entry `main``), so
    /// that the command line (whose options are those words with `--`) and
    /// the page say the same.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::NoModule => f.write_str("there is no valid module to run"),
            PlanError::BadSpec { id, value, reason } => write!(f, "spec {id}={value}: {reason}"),
            PlanError::Unreadable { reason } => write!(f, "the specialized module does not read back: {reason}"),
            PlanError::NoSuchEntry { name, available, .. } => write!(
                f,
                "entry `{name}`: no GLCompute, Kernel or Fragment entry point of that name (the module has: {})",
                list_or_none(available.iter().map(|n| alloc::format!("`{n}`")))
            ),
            PlanError::NoEntry { .. } => f.write_str("the module has no GLCompute, Kernel or Fragment entry point"),
            PlanError::UnknownBuffer { slot, entry, available } => {
                let list = list_or_none(available.iter().map(|s| alloc::format!("{s}")));
                match slot {
                    Slot::Push => write!(f, "buffer push: entry point `{entry}` has no push constants (its buffers: {list})"),
                    Slot::Binding(..) => write!(f, "buffer {slot}: entry point `{entry}` binds no buffer at {slot} (its buffers: {list})"),
                }
            }
            PlanError::UnknownParameter { slot, entry, parameters } => write!(
                f,
                "buffer {slot}: kernel `{entry}` has no parameter there (its parameters: {})",
                list_or_none(parameters.iter().map(|(k, n)| alloc::format!("0.{k} {n}")))
            ),
            PlanError::BadInput { slot, input, column, reason } => write!(f, "buffer {slot}=`{input}`: column {column}: {reason}"),
            PlanError::MissingPointer { index, name } => {
                write!(f, "kernel parameter {index} (`{name}`) is a pointer: give its buffer at 0.{index}")
            }
            PlanError::TooLarge { what, value, limit } => write!(f, "the draw's {what} is {value}: the limit is {limit}"),
            PlanError::BadVertexModule { reason } => write!(f, "the vertex module cannot be used: {reason}"),
        }
    }
}

/// A list in words: `a, b`, or `none`.
pub fn list_or_none(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() { String::from("none") } else { v.join(", ") }
}

/// A module made ready to run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The entry point's reflection (with untyped buffers added).
    pub entry: EntryReflection,
    /// The module's words, specialized (spec constants hold their values).
    pub words: Vec<u32>,
    /// The IR of `words` (the same instructions as the analysis's).
    pub ir: Ir,
    /// The spec values given, by SpecId.
    pub spec: Vec<(u32, u64)>,
    /// The buffers it binds, by slot (push constants last); a Kernel's
    /// parameters in order.
    pub bindings: Vec<Binding>,
    /// Each bound buffer's input bytes, by (set, binding).
    pub buffers: Buffers,
    /// The interpreter's options (the push constants' bytes among them).
    pub options: interp::Options,
    /// For a Fragment entry point, what it draws over.
    pub draw: Option<DrawPlan>,
}

impl Plan {
    /// The plan of `inputs` on `a`'s module.
    pub fn new(a: &Analysis, inputs: &Inputs) -> Result<Plan, PlanError> {
        let Some(ir0) = a.ir().filter(|_| a.is_valid()) else {
            return Err(PlanError::NoModule);
        };
        let mut spec = Vec::new();
        for (id, v) in &inputs.spec {
            let x = values::spec_value(ir0, *id, v)
                .map_err(|reason| PlanError::BadSpec { id: *id, value: v.clone(), reason })?;
            spec.push((*id, x));
        }
        // Specialize, then build the IR of the specialized words (the same
        // instructions, so the source map still holds).
        let mut words = a.words().to_vec();
        interp::specialize(&mut words, &spec);
        let module = crate::binary::read_words(&words).map_err(|e| PlanError::Unreadable { reason: e.message() })?;
        let ir = Ir::build(module);
        // Compute (and Kernel) entry points run; a Fragment one draws. With
        // no name, the first compute one, else the first Fragment one.
        let computes = |m: ExecutionModel| m == ExecutionModel::GLCompute || (inputs.kernels && m == ExecutionModel::Kernel);
        let runs = |m: ExecutionModel| computes(m) || (inputs.draw.is_some() && m == ExecutionModel::Fragment);
        let refl = reflect::reflect(&ir);
        let all: Vec<EntryReflection> = refl.entry_points.into_iter().filter(|e| runs(e.execution_model)).collect();
        let mut entry = match &inputs.entry {
            Some(n) => {
                let names = all.iter().map(|e| e.name.clone()).collect();
                all.into_iter()
                    .find(|e| &e.name == n)
                    .ok_or(PlanError::NoSuchEntry { name: n.clone(), available: names, kernels: inputs.kernels })?
            }
            None => {
                let first = all.iter().position(|e| computes(e.execution_model)).or((!all.is_empty()).then_some(0));
                first.map(|k| all[k].clone()).ok_or(PlanError::NoEntry { kernels: inputs.kernels })?
            }
        };
        entry.resources.extend(bindings::untyped_buffers(&ir, &entry));
        let (bindings, buffers, push) = if entry.execution_model == ExecutionModel::Kernel {
            let (b, f) = bindings::kernel(a, &ir, &entry.name, &inputs.buffers)?;
            (b, f, None)
        } else {
            bindings::shader(a, &entry, &inputs.buffers)?
        };
        let options = interp::Options {
            entry: Some(entry.name.clone()),
            workgroups: inputs.workgroups,
            max_steps: inputs.max_steps,
            push_constants: push,
            trace: inputs.trace.clone(),
            robust_access: inputs.robust_access,
            seed: inputs.seed,
            ..interp::Options::default()
        };
        let draw = match (&inputs.draw, entry.execution_model) {
            (Some(d), ExecutionModel::Fragment) => Some(draw::plan(&ir, &words, d)?),
            _ => None,
        };
        Ok(Plan { entry, words, ir, spec, bindings, buffers, options, draw })
    }

    /// The execution model of the entry point.
    pub fn model(&self) -> ExecutionModel {
        self.entry.execution_model
    }

    /// The bindings a run prints, in order.
    pub fn outputs(&self) -> impl Iterator<Item = &Binding> {
        self.bindings.iter().filter(|b| b.is_output())
    }
}
