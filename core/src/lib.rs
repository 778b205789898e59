//! spvlab-core: the SPIR-V language engine of spvlab.
//!
//! `#![no_std]` + `alloc`: no I/O, no threads, no clock, so it builds natively
//! and for `wasm32-unknown-unknown` alike. Its layers, bottom up; a module only
//! imports from layers below its own, never from one beside it (checked by
//! `tests/tests/layers.rs`):
//!
//! 1. [`grammar`]: tables generated from the SPIR-V JSON grammars;
//! 2. [`binary`] (reader and writer), [`module`] (header and instructions, in
//!    binary order), [`diag`] (located diagnostics shared by every part),
//!    [`env`] (target environments);
//! 3. [`text`]: the assembler and disassembler (spirv-as / spirv-dis syntax);
//! 4. [`cfg`]: control flow: dominance, structural dominance, constructs;
//! 5. [`valid`]: the validator;
//! 6. (the interpreter and the WGSL writer, to come);
//! 7. [`analysis`]: one analysis of a module and its views (the page's report,
//!    the DOT drawing, rendered diagnostics);
//! 8. [`share`]: share links.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod analysis;
pub mod binary;
pub mod cfg;
pub mod diag;
pub mod env;
pub mod grammar;
pub mod module;
#[cfg(feature = "serde")]
pub mod share;
pub mod text;
pub mod valid;

pub use diag::{Diagnostic, Severity, Span};
pub use env::TargetEnv;
pub use module::{Header, Instruction, Module};
