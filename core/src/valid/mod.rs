//! The validator: tells whether a module is valid for a target environment, and
//! why not, with located, explained diagnostics.
//!
//! Layout: [`Context`] (in `context.rs`) holds what every check needs (parsed
//! operands, definitions, the CFG, friendly names); each family of rules lives in
//! its own file and is one or more passes in [`PASSES`]. Every diagnostic code has
//! an entry in a family's `RULES` table (see [`rules`]) with its explanation.
//!
//! Verdicts follow spirv-val (SPIRV-Tools v2025.5); unlike spirv-val, every error
//! of a module is reported, not only the first. Passes are grouped in stages: when
//! a stage finds errors, later stages (which assume its guarantees, e.g. that every
//! id is defined once) are skipped, so no cascade of follow-on noise is reported.

mod context;
pub mod rules;

pub use context::Context;

use crate::text::asm::InstSpan;
use crate::{Diagnostic, Module, Span, TargetEnv, binary};
use alloc::vec::Vec;

/// Validator options, named after spirv-val's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Options {
    /// `--target-env`.
    pub env: TargetEnv,
    /// `--before-hlsl-legalization`.
    pub before_hlsl_legalization: bool,
    /// `--relax-logical-pointer`.
    pub relax_logical_pointer: bool,
    /// `--relax-block-layout`.
    pub relax_block_layout: bool,
    /// `--uniform-buffer-standard-layout`.
    pub uniform_buffer_standard_layout: bool,
    /// `--scalar-block-layout`.
    pub scalar_block_layout: bool,
    /// `--workgroup-scalar-block-layout`.
    pub workgroup_scalar_block_layout: bool,
    /// `--skip-block-layout`.
    pub skip_block_layout: bool,
    /// `--relax-struct-store`.
    pub relax_struct_store: bool,
    /// `--allow-localsizeid`.
    pub allow_localsizeid: bool,
    /// The `--max-*` limits.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            env: TargetEnv::default(),
            before_hlsl_legalization: false,
            relax_logical_pointer: false,
            relax_block_layout: false,
            uniform_buffer_standard_layout: false,
            scalar_block_layout: false,
            workgroup_scalar_block_layout: false,
            skip_block_layout: false,
            relax_struct_store: false,
            allow_localsizeid: false,
            limits: Limits::default(),
        }
    }
}

/// The universal limits, with spirv-val's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Limits {
    pub max_struct_members: u32,
    pub max_struct_depth: u32,
    pub max_local_variables: u32,
    pub max_global_variables: u32,
    pub max_switch_branches: u32,
    pub max_function_args: u32,
    pub max_control_flow_nesting_depth: u32,
    pub max_access_chain_indexes: u32,
    pub max_id_bound: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_struct_members: 16383,
            max_struct_depth: 255,
            max_local_variables: 524287,
            max_global_variables: 65535,
            max_switch_branches: 16383,
            max_function_args: 255,
            max_control_flow_nesting_depth: 1023,
            max_access_chain_indexes: 255,
            max_id_bound: 0x3FFFFF,
        }
    }
}

impl Limits {
    /// Set a limit by its spirv-val option name without the leading `--`
    /// (`max-struct-members`, and spirv-val's own spelling `max-struct_depth`).
    /// Returns false for an unknown name.
    pub fn set(&mut self, option: &str, value: u32) -> bool {
        let slot = match option {
            "max-struct-members" => &mut self.max_struct_members,
            "max-struct-depth" | "max-struct_depth" => &mut self.max_struct_depth,
            "max-local-variables" => &mut self.max_local_variables,
            "max-global-variables" => &mut self.max_global_variables,
            "max-switch-branches" => &mut self.max_switch_branches,
            "max-function-args" => &mut self.max_function_args,
            "max-control-flow-nesting-depth" => &mut self.max_control_flow_nesting_depth,
            "max-access-chain-indexes" => &mut self.max_access_chain_indexes,
            "max-id-bound" => &mut self.max_id_bound,
            _ => return false,
        };
        *slot = value;
        true
    }
}

/// One validation pass.
pub type Pass = fn(&mut Context<'_>);

/// The passes, by stage. A stage runs whole; when it reports errors, the later
/// stages are skipped. Add a family's passes to the stage whose guarantees they
/// need (stage 0 establishes that operands parse and ids are defined once; stage 1
/// that the module's layout and function/block structure are sound).
pub static PASSES: &[&[(&str, Pass)]] = &[
    // Stage 0: the binary itself.
    &[],
    // Stage 1: layout, ids, function and block structure.
    &[],
    // Stage 2: everything that needs a sound structure.
    &[],
];

/// Validate a binary given as words (either byte order is accepted by the reader).
pub fn validate_words(words: &[u32], opts: &Options) -> Vec<Diagnostic> {
    match binary::read_words_framing(words) {
        Ok(m) => validate(&m, opts),
        Err(e) => alloc::vec![e.to_diagnostic()],
    }
}

/// Validate a module.
pub fn validate(module: &Module, opts: &Options) -> Vec<Diagnostic> {
    let mut cx = Context::new(module, opts);
    if cx.diags.is_empty() {
        for stage in PASSES {
            for (_, pass) in *stage {
                pass(&mut cx);
            }
            if cx.has_errors() {
                break;
            }
        }
    }
    cx.finish()
}

/// Turn the word spans of diagnostics into text spans, with the assembler's
/// source map (diagnostics that are already in text are left alone).
pub fn locate(diags: &mut [Diagnostic], map: &[InstSpan]) {
    use crate::diag::SpanUnit;
    let find = |s: Span| -> Option<Span> {
        let i = map.partition_point(|m| m.word_offset + m.word_count <= s.start);
        map.get(i).filter(|m| m.word_offset <= s.start).map(|m| m.span)
    };
    for d in diags.iter_mut() {
        if d.unit != SpanUnit::BinaryWords {
            continue;
        }
        let Some(span) = find(d.span) else { continue };
        d.span = span;
        d.unit = SpanUnit::TextBytes;
        for r in &mut d.related {
            if let Some(s) = find(r.span) {
                r.span = s;
            }
        }
    }
}
