//! The disassembler: a binary module to spirv-dis text.

use crate::{Diagnostic, Span};
use alloc::string::String;

/// Disassembler options, named after spirv-dis's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DisOptions {
    /// `--raw-id`: print `%12` rather than friendly names.
    pub raw_id: bool,
    /// The header comments (off with `--no-header`).
    pub header: bool,
    /// Align result ids (off with `--no-indent`).
    pub indent: bool,
}

impl Default for DisOptions {
    fn default() -> Self {
        DisOptions { raw_id: false, header: true, indent: true }
    }
}

/// Disassemble a binary given as words (host order).
pub fn disassemble(_words: &[u32], _opts: &DisOptions) -> Result<String, Diagnostic> {
    // Placeholder until the disassembler lands.
    Err(Diagnostic::error("dis.unimplemented", Span::default(), "the disassembler is not written yet"))
}
