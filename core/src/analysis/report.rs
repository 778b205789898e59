//! The page's view of an [`Analysis`]: everything the page shows after an
//! edit, with text positions in UTF-16 code units and 1-based lines and
//! columns (see `www/src/api.ts`).

use super::{Analysis, Disassembly, Origin};
use crate::cfg::{self, ConstructKind, EdgeKind, Roles};
use crate::diag::SpanUnit;
use crate::text::asm::InstSpan;
use crate::valid::{self, rules};
use crate::{Diagnostic, Module, Span, TargetEnv};
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// A range of text: UTF-16 offsets and 1-based line/column (column in UTF-16 units).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct TextRange {
    pub from: u32,
    pub to: u32,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// Byte offsets to UTF-16 offsets and lines/columns, in O(log lines + line length).
pub struct LineIndex<'a> {
    src: &'a str,
    /// Byte offset of each line's start.
    starts: Vec<u32>,
    /// UTF-16 offset of each line's start.
    starts16: Vec<u32>,
    ascii: bool,
}

impl<'a> LineIndex<'a> {
    pub fn new(src: &'a str) -> LineIndex<'a> {
        let ascii = src.is_ascii();
        let mut starts = vec![0u32];
        let mut starts16 = vec![0u32];
        if ascii {
            for (i, b) in src.bytes().enumerate() {
                if b == b'\n' {
                    starts.push(i as u32 + 1);
                    starts16.push(i as u32 + 1);
                }
            }
        } else {
            let mut u16pos = 0u32;
            for (i, c) in src.char_indices() {
                u16pos += c.len_utf16() as u32;
                if c == '\n' {
                    starts.push(i as u32 + 1);
                    starts16.push(u16pos);
                }
            }
        }
        LineIndex { src, starts, starts16, ascii }
    }

    /// `(utf16 offset, line, column)` of byte offset `at` (clamped to the text and
    /// moved back to a char boundary).
    pub fn position(&self, at: u32) -> (u32, u32, u32) {
        let mut at = (at as usize).min(self.src.len());
        while !self.src.is_char_boundary(at) {
            at -= 1;
        }
        let at32 = at as u32;
        let line = self.starts.partition_point(|&s| s <= at32).max(1) - 1;
        let ls = self.starts.get(line).copied().unwrap_or(0);
        let ls16 = self.starts16.get(line).copied().unwrap_or(0);
        let col16 = if self.ascii {
            at32 - ls
        } else {
            self.src.get(ls as usize..at).map_or(0, |s| s.encode_utf16().count() as u32)
        };
        (ls16 + col16, line as u32 + 1, col16 + 1)
    }

    /// The range of a byte span.
    pub fn range(&self, span: Span) -> TextRange {
        let (from, line, column) = self.position(span.start);
        let (to, end_line, end_column) = self.position(span.end.max(span.start));
        TextRange { from, to, line, column, end_line, end_column }
    }
}

/// A diagnostic as the page shows it: core's own [`Diagnostic`] (flattened
/// into the same object), and where it lies for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct LocatedDiagnostic {
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub diagnostic: Diagnostic,
    /// The primary span in the text (text input).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub range: Option<TextRange>,
    /// The related spans in the text, one per related span (text input).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub related_ranges: Vec<TextRange>,
    /// The first word of the instruction (binary input).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub word_offset: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub explanation: Option<&'static str>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub summary: Option<&'static str>,
    /// rustc-style rendering.
    pub rendered: String,
    /// Graph marks: the function, and its blocks and edges the problem names.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub function: Option<u32>,
    pub blocks: Vec<u32>,
    pub edges: Vec<(u32, u32)>,
}

impl LocatedDiagnostic {
    /// Locate `d` for the page: text spans in `src` through `lines`, binary
    /// spans as word offsets (`words`, the binary when known, names their
    /// instruction in the rendering); `origin` gives the graph marks.
    pub fn new(
        d: &Diagnostic,
        src: &str,
        lines: &LineIndex<'_>,
        words: Option<&[u32]>,
        file: &str,
        origin: Option<&Origin>,
    ) -> LocatedDiagnostic {
        let rule = rules::rule(d.code);
        let in_text = d.unit == SpanUnit::TextBytes;
        let o = origin.cloned().unwrap_or_default();
        LocatedDiagnostic {
            diagnostic: d.clone(),
            range: in_text.then(|| lines.range(d.span)),
            related_ranges: if in_text { d.related.iter().map(|r| lines.range(r.span)).collect() } else { Vec::new() },
            word_offset: (!in_text).then_some(d.span.start),
            explanation: rule.map(|r| r.explanation),
            summary: rule.map(|r| r.summary),
            rendered: super::render(d, src, words, file),
            function: o.function,
            blocks: o.blocks,
            edges: o.edges,
        }
    }

    /// Diagnostics that no analysis holds (an assembler's, a reader's), located
    /// in `src` (empty for a binary).
    pub fn list(diags: &[Diagnostic], src: &str, words: Option<&[u32]>, file: &str) -> Vec<LocatedDiagnostic> {
        let lines = LineIndex::new(src);
        diags.iter().map(|d| LocatedDiagnostic::new(d, src, &lines, words, file, None)).collect()
    }

    /// Every diagnostic of `a`, located for the page.
    pub fn all(a: &Analysis) -> Vec<LocatedDiagnostic> {
        LocatedDiagnostic::all_with(a, &LineIndex::new(a.text().unwrap_or("")))
    }

    /// Diagnostic `i` of `a`, located for the page.
    pub fn of(a: &Analysis, i: usize) -> Option<LocatedDiagnostic> {
        let d = a.diagnostics().get(i)?;
        let src = a.text().unwrap_or("");
        let words = (!a.words().is_empty()).then_some(a.words());
        Some(LocatedDiagnostic::new(d, src, &LineIndex::new(src), words, a.file_name(), a.origin(i)))
    }

    /// [`LocatedDiagnostic::all`] with the line index of `a`'s text.
    fn all_with(a: &Analysis, lines: &LineIndex<'_>) -> Vec<LocatedDiagnostic> {
        let src = a.text().unwrap_or("");
        let words = (!a.words().is_empty()).then_some(a.words());
        a.diagnostics()
            .iter()
            .enumerate()
            .map(|(i, d)| LocatedDiagnostic::new(d, src, lines, words, a.file_name(), a.origin(i)))
            .collect()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct BlockView {
    pub id: u32,
    pub name: String,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub range: Option<TextRange>,
    pub listing: Vec<String>,
    pub entry: bool,
    pub exit: bool,
    pub reachable: bool,
    pub structurally_reachable: bool,
    pub roles: Vec<&'static str>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub idom: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub structural_idom: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub innermost: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct EdgeView {
    pub from: u32,
    pub to: u32,
    pub kind: EdgeKind,
    pub back: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct ConstructView {
    pub kind: ConstructKind,
    /// The header block's label id (for a case construct: the case target).
    pub header: u32,
    pub blocks: Vec<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub parent: Option<u32>,
}

/// One function's control flow as the page shows it (`FunctionCfg` of api.ts):
/// the view of a [`cfg::FunctionCfg`] with names, text ranges and listings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct FunctionView {
    pub id: u32,
    pub name: String,
    pub blocks: Vec<BlockView>,
    pub edges: Vec<EdgeView>,
    pub constructs: Vec<ConstructView>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct IdInfo {
    pub id: u32,
    pub name: String,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub def: Option<TextRange>,
    pub def_text: String,
    #[cfg_attr(feature = "serde", serde(rename = "type", skip_serializing_if = "Option::is_none"))]
    pub ty: Option<String>,
    pub refs: Vec<TextRange>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct SourceMapEntry {
    pub word_offset: u32,
    pub word_count: u32,
    pub range: TextRange,
}

/// Everything the page shows after an edit.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct AnalyzeReport {
    pub assembled: bool,
    pub valid: bool,
    pub words: Vec<u32>,
    pub diagnostics: Vec<LocatedDiagnostic>,
    pub disassembly: String,
    pub source_map: Vec<SourceMapEntry>,
    pub functions: Vec<FunctionView>,
    pub ids: Vec<IdInfo>,
}

impl AnalyzeReport {
    /// The page's view of an analysis.
    pub fn of(a: &Analysis) -> AnalyzeReport {
        let src = a.text().unwrap_or("");
        let lines = LineIndex::new(src);
        let mut report = AnalyzeReport {
            assembled: a.assembled(),
            valid: a.is_valid(),
            source_map: a
                .source_map()
                .iter()
                .map(|m| SourceMapEntry { word_offset: m.word_offset, word_count: m.word_count, range: lines.range(m.span) })
                .collect(),
            diagnostics: LocatedDiagnostic::all_with(a, &lines),
            ..Default::default()
        };
        if let (Some(m), Some(dis)) = (a.module(), a.disassembly()) {
            let map = a.source_map();
            report.functions = a.cfg().functions.iter().map(|f| function_view(m, f, dis, map, &lines)).collect();
            report.ids = id_report(m, dis, map, a.id_refs(), &lines);
            report.disassembly = dis.text.clone();
        }
        report.words = a.words().to_vec();
        report
    }
}

/// Analyse a module given as text, for the target environment `env`, and give
/// the page's view of it.
pub fn analyze(text: &str, env: TargetEnv) -> AnalyzeReport {
    AnalyzeReport::of(&Analysis::of_text(text, &valid::Options { env, ..Default::default() }))
}

/// The names of a block's roles, as the page spells them.
pub fn role_names(r: Roles) -> Vec<&'static str> {
    let table: [(Roles, &'static str); 7] = [
        (Roles::SELECTION_HEADER, "selection-header"),
        (Roles::LOOP_HEADER, "loop-header"),
        (Roles::SWITCH_HEADER, "switch-header"),
        (Roles::MERGE_BLOCK, "merge"),
        (Roles::CONTINUE_TARGET, "continue-target"),
        (Roles::BACK_EDGE_BLOCK, "back-edge-block"),
        (Roles::CASE_TARGET, "case-target"),
    ];
    table.iter().filter(|(f, _)| r.contains(*f)).map(|(_, n)| *n).collect()
}

/// The label id of the block a construct is drawn at: its header (for a case
/// construct, the case target).
pub fn construct_label(f: &cfg::FunctionCfg, c: &cfg::Construct) -> u32 {
    let b = if c.kind == ConstructKind::Case { c.entry } else { c.header };
    f.blocks.get(b as usize).map_or(0, |x| x.label)
}

fn function_view(
    m: &Module,
    f: &cfg::FunctionCfg,
    dis: &Disassembly,
    map: &[InstSpan],
    lines: &LineIndex<'_>,
) -> FunctionView {
    let label = |b: u32| f.blocks.get(b as usize).map_or(0, |x| x.label);
    let blocks = f
        .blocks
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            let bi = bi as u32;
            let end = (b.end as usize).min(m.instructions.len());
            let start = (b.start as usize).min(end);
            let range = match (map.get(start), end.checked_sub(1).and_then(|e| map.get(e))) {
                (Some(a), Some(z)) if end > start => Some(lines.range(Span::new(a.span.start, z.span.end))),
                _ => None,
            };
            BlockView {
                id: b.label,
                name: dis.name(b.label),
                range,
                listing: (start..end).map(|i| dis.inst(i).to_string()).collect(),
                entry: bi == 0,
                exit: b.is_exit(),
                reachable: f.is_reachable(bi),
                structurally_reachable: f.is_structurally_reachable(bi),
                roles: role_names(f.roles(bi)),
                idom: f.dom.idom(bi).map(label),
                structural_idom: f.sdom.idom(bi).map(label),
                innermost: f.innermost_construct(bi),
            }
        })
        .collect();
    let edges = f
        .edges
        .iter()
        .enumerate()
        .map(|(k, e)| EdgeView { from: label(e.from), to: label(e.to), kind: e.kind, back: f.is_back_edge(k) })
        .collect();
    let constructs = f
        .constructs()
        .iter()
        .enumerate()
        .map(|(ci, c)| ConstructView {
            kind: c.kind,
            header: construct_label(f, c),
            blocks: f.construct_blocks(ci as u32).into_iter().map(label).collect(),
            parent: c.parent,
        })
        .collect();
    FunctionView { id: f.id, name: dis.name(f.id), blocks, edges, constructs }
}

fn id_report(
    m: &Module,
    dis: &Disassembly,
    map: &[InstSpan],
    id_refs: &[(Span, u32)],
    lines: &LineIndex<'_>,
) -> Vec<IdInfo> {
    // Sort the references by id, keeping text order within an id.
    let mut refs: Vec<(u32, Span)> = id_refs.iter().map(|&(s, id)| (id, s)).collect();
    refs.sort_by_key(|&(id, s)| (id, s.start));
    // Definitions: id -> instruction index.
    let mut defs: Vec<(u32, usize)> =
        m.instructions.iter().enumerate().filter_map(|(i, inst)| inst.result_id().map(|id| (id, i))).collect();
    defs.sort_unstable();
    let mut out: Vec<IdInfo> = Vec::new();
    let mut k = 0;
    while k < refs.len() {
        let id = refs[k].0;
        let mut j = k;
        while j < refs.len() && refs[j].0 == id {
            j += 1;
        }
        let def = defs.binary_search_by_key(&id, |&(d, _)| d).ok().and_then(|p| defs.get(p)).map(|&(_, i)| i);
        let ty = def
            .and_then(|i| m.instructions.get(i))
            .and_then(|inst| inst.result_type())
            .map(|t| alloc::format!("%{}", dis.name(t)));
        let def_at = def.and_then(|i| map.get(i)).map(|s| s.span.start);
        out.push(IdInfo {
            id,
            name: dis.name(id),
            def: def.and_then(|i| map.get(i)).map(|s| lines.range(s.span)),
            def_text: def.map_or_else(String::new, |i| dis.inst(i).to_string()),
            ty,
            // Uses only: the `%x` of the defining `%x = ...` is the definition.
            refs: refs[k..j].iter().filter(|&&(_, s)| Some(s.start) != def_at).map(|&(_, s)| lines.range(s)).collect(),
        });
        k = j;
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
