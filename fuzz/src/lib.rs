//! spvlab-fuzz: a deterministic, seedable mutational fuzzer for spvlab's reader,
//! assembler and disassembler (cargo-fuzz needs nightly; this needs only std),
//! and the generator of the big benchmark module.
//!
//! * [`rng`]: splitmix64 + xorshift64*;
//! * [`input`]: text and binary inputs;
//! * [`mutate`]: binary (word/byte) and text (token/line) mutators;
//! * [`seeds`]: built-in seeds, corpus texts, reference binaries (cached);
//! * [`harness`]: the multi-threaded loop with `catch_unwind` and crash saving;
//! * [`target`]: the spvlab target;
//! * [`gen`]: the big-module generator for the benchmarks.

pub mod r#gen;
pub mod harness;
pub mod input;
pub mod mutate;
pub mod rng;
pub mod seeds;
pub mod target;

pub use harness::{Config, Crash, Report, Target, run};
pub use input::Input;
