//! The assembler: spirv-as syntax to a binary module.
//!
//! Byte-for-byte compatible with SPIRV-Tools' `spirv-as` (v2025.5): the same id
//! numbering (names get ids in order of first appearance; with
//! `preserve_numeric_ids`, numeric names keep their number and the others take the
//! free ones), the same literal encodings, the same accept/reject verdicts. Unlike
//! spirv-as it reports every error of the text, each with a stable code and span.
//!
//! * [`lexer`]: the tokenizer;
//! * [`numbers`]: integer and float literals;
//! * [`parser`]: instructions and operands;
//! * [`errors`]: the diagnostic codes;
//! * [`suggest`]: "did you mean" suggestions.

pub mod errors;
mod idmap;
pub mod lexer;
pub mod numbers;
mod parser;
pub mod suggest;

use crate::{Diagnostic, Span, TargetEnv};
use alloc::string::String;
use alloc::vec::Vec;

pub use parser::GENERATOR_WORD;

/// Assembler options, named after spirv-as's flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsmOptions {
    /// `--target-env`: sets the version word.
    pub env: TargetEnv,
    /// `--preserve-numeric-ids`.
    pub preserve_numeric_ids: bool,
}

/// Where one instruction landed: its first word in the module (the header is words
/// 0 to 4), its word count, and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstSpan {
    pub word_offset: u32,
    pub word_count: u32,
    /// From the first token of the instruction (`%x` or the opcode) to its last.
    pub span: Span,
}

/// A successful assembly: the words, the source map, and warnings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmOutput {
    /// The module, header included, in host order.
    pub words: Vec<u32>,
    /// One entry per instruction, in order.
    pub map: Vec<InstSpan>,
    /// Problems that do not stop assembly (spirv-as accepts them), e.g.
    /// `asm.undefined-id` for ids that are used but never defined.
    pub warnings: Vec<Diagnostic>,
    /// The text span and resolved id of every `%id` token (definitions and uses),
    /// in text order.
    pub id_refs: Vec<(Span, u32)>,
    /// The first word and the text span of every operand written from the text
    /// (the result id and the result type included), in word order: a
    /// diagnostic at one operand's words is shown at its token.
    pub operands: Vec<(u32, Span)>,
}

/// Assemble a module. On failure, every error of the text is returned.
pub fn assemble(src: &str, opts: &AsmOptions) -> Result<Vec<u32>, Vec<Diagnostic>> {
    parser::run(src, opts, false).map(|o| o.words)
}

/// Assemble a module and say where each instruction came from.
pub fn assemble_with_map(src: &str, opts: &AsmOptions) -> Result<AsmOutput, Vec<Diagnostic>> {
    parser::run(src, opts, true)
}

/// The index of the instruction holding word `w`, by a source map (in word order).
pub fn inst_at(map: &[InstSpan], w: u32) -> Option<usize> {
    let i = map.partition_point(|m| m.word_offset + m.word_count <= w);
    map.get(i).filter(|m| m.word_offset <= w).map(|_| i)
}

/// The names a text gives its ids (`%fn`), from the assembler's id tokens: in
/// messages about a text, ids go by the names the person typed.
#[derive(Clone, Debug, Default)]
pub struct TextNames(Vec<(u32, String)>);

impl TextNames {
    /// The first spelling of each id in `src`, as the assembler resolved it.
    pub fn from_asm(src: &str, out: &AsmOutput) -> TextNames {
        let mut v: Vec<(u32, String)> = Vec::with_capacity(out.id_refs.len() / 2);
        let mut refs: Vec<&(Span, u32)> = out.id_refs.iter().collect();
        refs.sort_by_key(|&&(s, id)| (id, s.start));
        for &&(s, id) in &refs {
            if v.last().is_some_and(|(last, _)| *last == id) {
                continue;
            }
            let token = src.get(s.start as usize..s.end as usize).unwrap_or("");
            let name = token.strip_prefix('%').unwrap_or(token);
            if !name.is_empty() {
                v.push((id, String::from(name)));
            }
        }
        TextNames(v)
    }

    /// The text's name of `id`, without `%`.
    pub fn get(&self, id: u32) -> Option<&str> {
        let i = self.0.binary_search_by_key(&id, |(x, _)| *x).ok()?;
        Some(self.0[i].1.as_str())
    }

    /// Every id the text names, with its name (without `%`), by id.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &str)> + '_ {
        self.0.iter().map(|(id, n)| (*id, n.as_str()))
    }
}

#[cfg(test)]
mod tests;
