//! The text assembler and disassembler (spirv-as / spirv-dis syntax).

pub mod asm;
pub mod dis;

pub use asm::{AsmOptions, assemble};
pub use dis::{DisOptions, disassemble};
