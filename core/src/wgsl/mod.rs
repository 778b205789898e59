//! The WGSL writer: a SPIR-V module lowered to WGSL for WebGPU, with the
//! structured control flow rebuilt from the construct tree ([`shape`]).

pub mod shape;
