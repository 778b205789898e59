//! spvlab-core: the SPIR-V language engine of spvlab.
//!
//! `#![no_std]` + `alloc`: no I/O, no threads, no clock, so it builds natively
//! and for `wasm32-unknown-unknown` alike. The parts:
//!
//! * [`grammar`]: tables generated from the SPIR-V JSON grammars;
//! * [`binary`]: the binary reader and writer;
//! * [`text`]: the assembler and disassembler (spirv-as / spirv-dis syntax);
//! * [`module`]: the module IR;
//! * [`diag`]: located diagnostics shared by every part;
//! * [`env`]: target environments.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod binary;
pub mod cfg;
pub mod diag;
pub mod env;
pub mod grammar;
pub mod ir;
pub mod module;
pub mod reflect;
pub mod report;
#[cfg(feature = "serde")]
pub mod share;
pub mod text;
pub mod valid;

pub use diag::{Diagnostic, Severity, Span};
pub use env::TargetEnv;
pub use module::{Header, Instruction, Module};
