//! The assembler: spirv-as syntax to a binary module.

use crate::{Diagnostic, Span, TargetEnv};
use alloc::vec;
use alloc::vec::Vec;

/// Assembler options, named after spirv-as's flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsmOptions {
    /// `--target-env`: sets the version word.
    pub env: TargetEnv,
    /// `--preserve-numeric-ids`.
    pub preserve_numeric_ids: bool,
}

/// Assemble a module. On failure, every error of the text is returned.
pub fn assemble(_src: &str, _opts: &AsmOptions) -> Result<Vec<u32>, Vec<Diagnostic>> {
    // Placeholder until the assembler lands.
    Err(vec![Diagnostic::error("asm.unimplemented", Span::default(), "the assembler is not written yet")])
}
