//! Refusals: what WGSL cannot express, as data. A [`Refusal`] has its
//! [`RefusalCode`] (a stable reason, with [`RefusalCode::why`] WGSL has no
//! equivalent), a message naming what was refused, and the instruction it
//! is about; callers read these fields, and render text only at their edge
//! ([`Refusal::diagnostic`]).

use crate::Diagnostic;
use crate::diag::Span;
use crate::ir::Ir;
use alloc::format;
use alloc::string::String;

/// Why a module (or one of its instructions) has no WGSL form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The reason, e.g. [`RefusalCode::Int64`] (`wgsl.int64`).
    pub code: RefusalCode,
    /// What was refused, for a person.
    pub message: String,
    /// The instruction (index into the module's instructions) it is about.
    pub instruction: Option<u32>,
    /// Whether WGSL lacks it, or WGSL could say it and this lowering does
    /// not yet.
    pub limit: Limit,
}

/// Whose limit a refusal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Limit {
    /// WGSL or WebGPU has no way to express it ([`RefusalCode::why`]).
    Wgsl,
    /// WGSL can express it; this lowering does not write it yet.
    NotLowered(NotLowered),
}

/// What WGSL can express and this lowering does not write yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NotLowered {
    /// An image write of fewer than 4 components: WGSL's textureStore
    /// takes a vec4, the rest filled in.
    NarrowTexelWrite,
    /// A stage input or output Block whose members have Locations: WGSL's
    /// entry point takes and returns them one by one.
    IoBlock,
}

macro_rules! refusal_codes {
    ($($variant:ident = $code:literal: $why:literal,)*) => {
        /// The reason WGSL refuses something: each has a stable code
        /// ([`RefusalCode::as_str`], e.g. `wgsl.int64`) and says why WGSL
        /// has no equivalent ([`RefusalCode::why`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum RefusalCode {
            $($variant,)*
        }

        impl RefusalCode {
            /// Every code.
            pub const ALL: &[RefusalCode] = &[$(RefusalCode::$variant,)*];

            /// The stable code, e.g. `wgsl.int64`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(RefusalCode::$variant => $code,)*
                }
            }

            /// Why WGSL has no equivalent.
            pub fn why(self) -> &'static str {
                match self {
                    $(RefusalCode::$variant => $why,)*
                }
            }
        }
    };
}

refusal_codes! {
    Int64 = "wgsl.int64": "WGSL has only 32-bit integers (i32, u32)",
    Float64 = "wgsl.float64": "WGSL has no 64-bit floating point type",
    SmallInt = "wgsl.small-int": "WGSL has no 8- or 16-bit integer types",
    PhysicalPointer = "wgsl.physical-pointer": "WGSL pointers are logical: no pointer arithmetic, no physical addresses, no pointers stored in memory",
    VariablePointer = "wgsl.variable-pointer": "a WGSL pointer value must name one memory location statically: no select or phi of pointers",
    PointerParameter = "wgsl.pointer-parameter": "WGSL function pointer parameters may only point into function or private memory",
    Capability = "wgsl.capability": "the capability has no counterpart in WGSL or WebGPU",
    Instruction = "wgsl.instruction": "the instruction has no counterpart in WGSL",
    Stage = "wgsl.stage": "WebGPU has only compute, vertex and fragment shaders",
    StorageClass = "wgsl.storage-class": "the storage class has no WGSL address space",
    Image = "wgsl.image": "WGSL's textures are storage textures of a few formats, sampled and depth textures, with separate samplers, and its sampling built-ins take fewer operands than SPIR-V's: no texel buffers or multisampled storage, no implicit level of detail outside fragment shaders, depth comparisons only at level 0",
    PushConstant = "wgsl.push-constant": "WebGPU has no push constants",
    Layout = "wgsl.layout": "WGSL's explicit layout rules cannot give these offsets or strides",
    Type = "wgsl.type": "the type has no WGSL counterpart",
    Vla = "wgsl.vla": "WGSL has no variable-length arrays outside a storage buffer's last member",
    Atomic = "wgsl.atomic": "WGSL atomics are atomic<i32> or atomic<u32> in storage or workgroup memory, accessed only by atomic built-ins",
    Barrier = "wgsl.barrier": "WGSL barriers are workgroup-scope control barriers in uniform control flow",
    Builtin = "wgsl.builtin": "the built-in variable has no WGSL counterpart in this stage",
    EarlyTests = "wgsl.early-fragment-tests": "WGSL cannot ask for the depth test before the fragment shader (EarlyFragmentTests)",
    Constant = "wgsl.constant": "the constant has no WGSL literal (non-finite floating point)",
    ControlFlow = "wgsl.control-flow": "the control flow could not be structured",
    Nesting = "wgsl.nesting": "WGSL allows at most 127 nested brace-enclosed statements in a function",
    EntryPoint = "wgsl.entry-point": "no entry point to lower",
    Invalid = "wgsl.invalid": "the module is not valid SPIR-V",
}

impl core::fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Refusal {
    pub fn new(code: RefusalCode, message: impl Into<String>, instruction: Option<u32>) -> Refusal {
        Refusal { code, message: message.into(), instruction, limit: Limit::Wgsl }
    }

    /// A refusal of something WGSL can express but this lowering does not
    /// write yet (`what`).
    pub fn not_lowered(code: RefusalCode, what: NotLowered, message: impl Into<String>, instruction: Option<u32>) -> Refusal {
        Refusal { code, message: message.into(), instruction, limit: Limit::NotLowered(what) }
    }

    /// Instruction `i`, `what`, has no WGSL counterpart.
    pub fn unsupported(i: usize, what: &str) -> Refusal {
        Refusal::new(RefusalCode::Instruction, format!("{what} has no WGSL counterpart"), Some(i as u32))
    }

    /// Why WGSL has no equivalent.
    pub fn why(&self) -> &'static str {
        self.code.why()
    }

    /// As a diagnostic located at its instruction's words in the binary
    /// (move it to the text with [`crate::analysis::locate_all`]).
    pub fn diagnostic(&self, ir: &Ir) -> Diagnostic {
        let span = match self.instruction {
            Some(i) if (i as usize) < ir.len() => {
                let at = ir.offset(i as usize);
                Span::new(at, at + ir.inst(i as usize).word_count() as u32)
            }
            _ => Span::new(0, 5),
        };
        Diagnostic::error(self.code.as_str(), span, format!("cannot lower to WGSL: {}", self.message))
            .in_binary()
            .with_help(String::from(self.why()))
    }
}
