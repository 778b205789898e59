//! Refusals: what WGSL cannot express, with a code, a message naming the
//! instruction, and why WGSL has no equivalent.

use crate::Diagnostic;
use crate::diag::Span;
use crate::ir::Ir;
use alloc::format;
use alloc::string::String;

/// Why a module (or one of its instructions) has no WGSL form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// A stable code, e.g. `wgsl.int64` (see [`CODES`]).
    pub code: &'static str,
    /// What was refused, for a person.
    pub message: String,
    /// The instruction (index into the module's instructions) it is about.
    pub instruction: Option<u32>,
}

/// Every refusal code with the reason WGSL has no equivalent.
pub const CODES: &[(&str, &str)] = &[
    ("wgsl.int64", "WGSL has only 32-bit integers (i32, u32)"),
    ("wgsl.float64", "WGSL has no 64-bit floating point type"),
    ("wgsl.small-int", "WGSL has no 8- or 16-bit integer types"),
    ("wgsl.physical-pointer", "WGSL pointers are logical: no pointer arithmetic, no physical addresses, no pointers stored in memory"),
    ("wgsl.variable-pointer", "a WGSL pointer value must name one memory location statically: no select or phi of pointers"),
    ("wgsl.pointer-parameter", "WGSL function pointer parameters may only point into function or private memory"),
    ("wgsl.capability", "the capability has no counterpart in WGSL or WebGPU"),
    ("wgsl.instruction", "the instruction has no counterpart in WGSL"),
    ("wgsl.stage", "WebGPU has only compute, vertex and fragment shaders"),
    ("wgsl.storage-class", "the storage class has no WGSL address space"),
    ("wgsl.image", "WGSL's textures are storage textures of a few formats and sampled textures, with separate samplers: no texel buffers, combined image samplers or multisampled storage; sampling in compute is not lowered yet"),
    ("wgsl.push-constant", "WebGPU has no push constants"),
    ("wgsl.layout", "WGSL's explicit layout rules cannot give these offsets or strides"),
    ("wgsl.type", "the type has no WGSL counterpart"),
    ("wgsl.vla", "WGSL has no variable-length arrays outside a storage buffer's last member"),
    ("wgsl.atomic", "WGSL atomics are atomic<i32> or atomic<u32> in storage or workgroup memory, accessed only by atomic built-ins"),
    ("wgsl.barrier", "WGSL barriers are workgroup-scope control barriers in uniform control flow"),
    ("wgsl.builtin", "the built-in variable has no WGSL counterpart in this stage"),
    ("wgsl.constant", "the constant has no WGSL literal (non-finite floating point)"),
    ("wgsl.control-flow", "the control flow could not be structured"),
    ("wgsl.nesting", "WGSL allows at most 127 nested brace-enclosed statements in a function"),
    ("wgsl.entry-point", "no entry point to lower"),
    ("wgsl.invalid", "the module is not valid SPIR-V"),
];

/// The reason behind `code`.
pub fn why(code: &str) -> &'static str {
    CODES.iter().find(|(c, _)| *c == code).map_or("", |(_, w)| w)
}

impl Refusal {
    pub fn new(code: &'static str, message: impl Into<String>, instruction: Option<u32>) -> Refusal {
        Refusal { code, message: message.into(), instruction }
    }

    /// Why WGSL has no equivalent.
    pub fn why(&self) -> &'static str {
        why(self.code)
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
        Diagnostic::error(self.code, span, format!("cannot lower to WGSL: {}", self.message))
            .in_binary()
            .with_help(String::from(self.why()))
    }
}
