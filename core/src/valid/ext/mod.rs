//! The rules of SPIR-V extensions: SPV_INTEL_variable_length_array,
//! SPV_KHR_constant_data and SPV_KHR_untyped_pointers.

pub(super) mod constant_data;
pub(super) mod untyped;
pub(super) mod vla;
