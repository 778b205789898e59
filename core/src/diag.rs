//! Located diagnostics: a stable code, a message, a primary span and related spans.

use alloc::string::String;
use alloc::vec::Vec;

/// A byte range in a source text (`start..end`), or a word range in a binary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    pub fn len(&self) -> u32 {
        self.end.saturating_sub(self.start)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// What a span points into.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SpanUnit {
    /// Byte offsets into the assembly text.
    #[default]
    TextBytes,
    /// Word offsets into the binary (the header is words 0 to 4).
    BinaryWords,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`, as rendered and serialised.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A span with a short label, shown beside the primary one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Related {
    pub span: Span,
    pub label: String,
}

/// One located problem.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Diagnostic {
    /// A stable code, e.g. `asm.unknown-opcode`.
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    pub unit: SpanUnit,
    /// A label for the primary span (what is wrong right there), may be empty.
    pub label: String,
    pub related: Vec<Related>,
    /// A suggested fix, e.g. "did you mean `OpFMod`?".
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            unit: SpanUnit::TextBytes,
            label: String::new(),
            related: Vec::new(),
            help: None,
        }
    }

    pub fn in_binary(mut self) -> Diagnostic {
        self.unit = SpanUnit::BinaryWords;
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Add a related span with its label, in place (for diagnostics already reported).
    pub fn relate(&mut self, span: Span, label: impl Into<String>) -> &mut Diagnostic {
        self.related.push(Related { span, label: label.into() });
        self
    }

    pub fn with_related(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.related.push(Related { span, label: label.into() });
        self
    }
}

/// Line and column (both 1-based, column counted in chars) of byte offset `at`.
pub fn line_col(src: &str, at: u32) -> (u32, u32) {
    let at = (at as usize).min(src.len());
    let before = &src.as_bytes()[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let col = src.get(line_start..at).map_or(at - line_start, |s| s.chars().count()) as u32 + 1;
    (line, col)
}

/// Render a diagnostic on a text in the style of rustc:
///
/// ```text
/// error[asm.unknown-opcode]: unknown opcode `OpFMd`
///  --> shader.spvasm:3:8
///   |
/// 3 | %x = OpFMd %float %a %b
///   |      ^^^^^ not an opcode
///   = help: did you mean `OpFMod`?
/// ```
pub fn render(d: &Diagnostic, src: &str, file: &str) -> String {
    use core::fmt::Write;
    let mut out = String::new();
    let sev = d.severity.name();
    let _ = writeln!(out, "{sev}[{}]: {}", d.code, d.message);
    if d.unit == SpanUnit::BinaryWords {
        let _ = writeln!(out, " --> {file}: word {}", d.span.start);
        if let Some(h) = &d.help {
            let _ = writeln!(out, "  = help: {h}");
        }
        return out;
    }
    let (line, col) = line_col(src, d.span.start);
    let _ = writeln!(out, " --> {file}:{line}:{col}");
    excerpt(&mut out, src, d.span, &d.label, '^');
    for r in &d.related {
        excerpt(&mut out, src, r.span, &r.label, '-');
    }
    if let Some(h) = &d.help {
        let _ = writeln!(out, "  = help: {h}");
    }
    out
}

fn excerpt(out: &mut String, src: &str, span: Span, label: &str, mark: char) {
    use core::fmt::Write;
    let start = (span.start as usize).min(src.len());
    let line_start = src[..start].rfind('\n').map_or(0, |p| p + 1);
    let line_end = src[start..].find('\n').map_or(src.len(), |p| start + p);
    let text = src[line_start..line_end].trim_end_matches('\r');
    let (line, col) = line_col(src, span.start);
    let num = alloc::format!("{line}");
    let pad: String = core::iter::repeat_n(' ', num.len()).collect();
    let end = (span.end as usize).clamp(start, line_end);
    let width = src[start..end].chars().count().max(1);
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{num} | {text}");
    let marks: String = core::iter::repeat_n(mark, width).collect();
    let lead: String = core::iter::repeat_n(' ', col as usize - 1).collect();
    if label.is_empty() {
        let _ = writeln!(out, "{pad} | {lead}{marks}");
    } else {
        let _ = writeln!(out, "{pad} | {lead}{marks} {label}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let s = "ab\ncd\n\u{e9}f";
        assert_eq!(line_col(s, 0), (1, 1));
        assert_eq!(line_col(s, 4), (2, 2));
        assert_eq!(line_col(s, 8), (3, 2));
    }

    #[test]
    fn renders_caret_under_span() {
        let src = "OpCapability Shader\n%x = OpFMd %f %a %b\n";
        let d = Diagnostic::error("asm.unknown-opcode", Span::new(25, 30), "unknown opcode `OpFMd`")
            .with_label("not an opcode")
            .with_help("did you mean `OpFMod`?");
        let r = render(&d, src, "a.spvasm");
        assert!(r.contains(" --> a.spvasm:2:6"), "{r}");
        assert!(r.contains("2 | %x = OpFMd %f %a %b"), "{r}");
        assert!(r.contains("  |      ^^^^^ not an opcode"), "{r}");
        assert!(r.contains("= help: did you mean `OpFMod`?"), "{r}");
    }
}

/// Where word `at` of a binary lies, for people: `word 12 (instruction 3, OpTypeInt)`
/// (instructions counted from 1 after the 5-word header; either byte order).
/// Falls back to `word 12` (or `word 2 (header)`) when `at` is not inside an
/// instruction that the framing reaches.
pub fn word_location(words: &[u32], at: u32) -> String {
    let swap = words.first().is_some_and(|w| w.swap_bytes() == crate::grammar::MAGIC_NUMBER);
    let at = at as usize;
    if at < 5 {
        return alloc::format!("word {at} (header)");
    }
    let (mut off, mut k) = (5usize, 1usize);
    while let Some(&w) = words.get(off) {
        let w = if swap { w.swap_bytes() } else { w };
        let count = (w >> 16) as usize;
        if count == 0 {
            break;
        }
        if at < off + count {
            let opcode = (w & 0xffff) as u16;
            return match crate::grammar::instruction(opcode) {
                Some(d) => alloc::format!("word {at} (instruction {k}, {})", d.name),
                None => alloc::format!("word {at} (instruction {k}, opcode {opcode})"),
            };
        }
        off += count;
        k += 1;
    }
    alloc::format!("word {at}")
}

/// [`render`] with more context: for a diagnostic located in a binary, `words`
/// (when given) turns word offsets into `word N (instruction K, OpX)` and the
/// related spans are listed with their labels; `note` (e.g. the rule's
/// explanation) is printed as a `= note:` line, before the help.
pub fn render_full(
    d: &Diagnostic,
    src: &str,
    words: Option<&[u32]>,
    file: &str,
    note: Option<&str>,
) -> String {
    use core::fmt::Write;
    let mut out;
    if d.unit == SpanUnit::BinaryWords {
        let sev = d.severity.name();
        let at = |s: Span| match words {
            Some(w) => word_location(w, s.start),
            None => alloc::format!("word {}", s.start),
        };
        out = String::new();
        let _ = writeln!(out, "{sev}[{}]: {}", d.code, d.message);
        let _ = writeln!(out, " --> {file}: {}", at(d.span));
        if !d.label.is_empty() {
            let _ = writeln!(out, "  | {}", d.label);
        }
        for r in &d.related {
            if r.label.is_empty() {
                let _ = writeln!(out, "  - {}", at(r.span));
            } else {
                let _ = writeln!(out, "  - {}: {}", at(r.span), r.label);
            }
        }
    } else {
        let plain = Diagnostic { help: None, ..d.clone() };
        out = render(&plain, src, file);
    }
    if let Some(n) = note {
        let _ = writeln!(out, "  = note: {}", wrap(n, 90, "          "));
    }
    if let Some(h) = &d.help {
        let _ = writeln!(out, "  = help: {h}");
    }
    out
}

/// Fill `text` into lines of at most about `width` chars, continuation lines
/// starting with `indent`.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut col = 0;
    for word in text.split_whitespace() {
        let n = word.chars().count();
        if col > 0 && col + 1 + n > width {
            out.push('\n');
            out.push_str(indent);
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += n;
    }
    out
}

#[cfg(test)]
mod render_full_tests {
    use super::*;

    #[test]
    fn binary_locations_name_the_instruction() {
        // Header, then OpCapability Shader (2 words), OpMemoryModel (3 words).
        let words = [0x0723_0203, 0x0001_0000, 0, 10, 0, (2 << 16) | 17, 1, (3 << 16) | 14, 0, 1];
        assert_eq!(word_location(&words, 2), "word 2 (header)");
        assert_eq!(word_location(&words, 6), "word 6 (instruction 1, OpCapability)");
        assert_eq!(word_location(&words, 7), "word 7 (instruction 2, OpMemoryModel)");
        assert_eq!(word_location(&words, 99), "word 99");
        let swapped: alloc::vec::Vec<u32> = words.iter().map(|w| w.swap_bytes()).collect();
        assert_eq!(word_location(&swapped, 7), "word 7 (instruction 2, OpMemoryModel)");
        let d = Diagnostic::error("val.x", Span::new(7, 10), "bad")
            .in_binary()
            .with_related(Span::new(5, 7), "declared here")
            .with_help("fix it");
        let r = render_full(&d, "", Some(&words), "a.spv", Some("The rule."));
        assert!(r.contains(" --> a.spv: word 7 (instruction 2, OpMemoryModel)"), "{r}");
        assert!(r.contains("  - word 5 (instruction 1, OpCapability): declared here"), "{r}");
        let note = r.find("= note: The rule.").expect("note");
        assert!(note < r.find("= help: fix it").expect("help"), "{r}");
    }

    #[test]
    fn text_rendering_gets_the_note_before_the_help() {
        let src = "OpCapability Shader\n%x = OpFMd %f\n";
        let d = Diagnostic::error("val.x", Span::new(20, 22), "bad")
            .with_related(Span::new(0, 12), "this one")
            .with_help("h");
        let r = render_full(&d, src, None, "a.spvasm", Some("why"));
        assert!(r.contains(" --> a.spvasm:2:1"), "{r}");
        assert!(r.contains("| ------------ this one"), "{r}");
        assert!(r.find("= note: why").unwrap() < r.find("= help: h").unwrap(), "{r}");
    }
}
