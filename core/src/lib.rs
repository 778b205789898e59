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
//!    [`ir`]: the typed IR, built once from the words and indexed by id (types
//!    with their layout, constants evaluated, decorations, entry points,
//!    globals, functions and blocks, operands resolved);
//! 4. [`cfg`]: control flow: dominance, structural dominance, constructs;
//! 5. [`valid`]: the validator (reads the IR); [`reflect`]: resources, workgroup
//!    size and built-ins of each entry point, from the IR; [`raster`]: the
//!    fixed function of the graphics pipeline (primitive assembly, clipping,
//!    rasterisation into quads, depth test, blending, attachment formats),
//!    data in and data out, for the interpreter to call;
//! 6. [`interp`]: the reference interpreter (runs compute entry points);
//!    [`wgsl`]: the WGSL writer (SPIR-V lowered to WGSL for WebGPU);
//! 7. [`analysis`]: one analysis of a module and its views (the page's report,
//!    the DOT drawing, rendered diagnostics);
//! 8. [`share`]: share links; [`amber`]: AmberScript (compute subset) and its
//!    runner on the interpreter; [`plan`]: the run plan (an analysis and a
//!    user's inputs to what a backend runs); [`flesh`]: random structured
//!    CFGs and programs that record their path (the paper's section 6).
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod amber;
pub mod analysis;
pub mod binary;
pub mod cfg;
pub mod diag;
pub mod env;
pub mod flesh;
pub mod grammar;
pub mod interp;
pub mod ir;
pub mod module;
pub mod plan;
pub mod raster;
pub mod reflect;
#[cfg(feature = "serde")]
pub mod share;
pub mod text;
pub mod valid;
pub mod wgsl;

pub use diag::{Diagnostic, Severity, Span};
pub use env::TargetEnv;
pub use module::{Header, Instruction, Module, Operands};
