//! The analysis report of the playground page: one call ([`analyze`]) assembles,
//! validates, disassembles and analyses the control flow of a module given as
//! text, and returns everything the page shows, with text positions in UTF-16
//! code units and 1-based lines and columns (see `www/src/api.ts`).

use crate::cfg::{self, ConstructKind, EdgeKind, Roles};
use crate::diag::{self, SpanUnit};
use crate::text::asm::{AsmOptions, InstSpan, assemble_with_map};
use crate::text::dis::{DisOptions, Names, disassemble_module_indexed};
use crate::valid::{self, rules};
use crate::{Diagnostic as CoreDiagnostic, Module, Severity, Span, TargetEnv, binary};
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

/// A related span of a diagnostic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct RelatedSpan {
    pub label: String,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub from: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub to: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub line: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub column: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub end_line: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub end_column: Option<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub word_offset: Option<u32>,
}

impl RelatedSpan {
    fn text(label: &str, r: TextRange) -> RelatedSpan {
        RelatedSpan {
            label: label.into(),
            from: Some(r.from),
            to: Some(r.to),
            line: Some(r.line),
            column: Some(r.column),
            end_line: Some(r.end_line),
            end_column: Some(r.end_column),
            word_offset: None,
        }
    }
}

/// A diagnostic as the page shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Diagnostic {
    pub code: String,
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    pub message: String,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub range: Option<TextRange>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub word_offset: Option<u32>,
    pub label: String,
    pub related: Vec<RelatedSpan>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub help: Option<String>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub explanation: Option<String>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub summary: Option<String>,
    pub rendered: String,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub function: Option<u32>,
    pub blocks: Vec<u32>,
    pub edges: Vec<(u32, u32)>,
}

pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// Convert a core diagnostic: text spans through `lines`, binary spans as word offsets.
pub fn convert_diagnostic(
    d: &CoreDiagnostic,
    src: &str,
    lines: &LineIndex<'_>,
    words: Option<&[u32]>,
    file: &str,
) -> Diagnostic {
    let rule = rules::rule(d.code);
    let in_text = d.unit == SpanUnit::TextBytes;
    Diagnostic {
        code: d.code.to_string(),
        severity: severity_name(d.severity),
        message: d.message.clone(),
        range: in_text.then(|| lines.range(d.span)),
        word_offset: (!in_text).then_some(d.span.start),
        label: d.label.clone(),
        related: d
            .related
            .iter()
            .map(|r| {
                if in_text {
                    RelatedSpan::text(&r.label, lines.range(r.span))
                } else {
                    RelatedSpan { label: r.label.clone(), word_offset: Some(r.span.start), ..Default::default() }
                }
            })
            .collect(),
        help: d.help.clone(),
        explanation: rule.map(|r| r.explanation.to_string()),
        summary: rule.map(|r| r.summary.to_string()),
        rendered: diag::render_full(d, src, words, file, rule.map(|r| r.explanation)),
        function: None,
        blocks: Vec::new(),
        edges: Vec::new(),
    }
}

/// The kind of a CFG edge, as the page names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum CfgEdgeKind {
    Branch,
    Merge,
    Continue,
}

impl CfgEdgeKind {
    pub fn name(self) -> &'static str {
        match self {
            CfgEdgeKind::Branch => "branch",
            CfgEdgeKind::Merge => "merge",
            CfgEdgeKind::Continue => "continue",
        }
    }
}

/// The kind of a construct, as the page names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum CfgConstructKind {
    Selection,
    Loop,
    Continue,
    Switch,
    Case,
}

impl CfgConstructKind {
    pub fn name(self) -> &'static str {
        match self {
            CfgConstructKind::Selection => "selection",
            CfgConstructKind::Loop => "loop",
            CfgConstructKind::Continue => "continue",
            CfgConstructKind::Switch => "switch",
            CfgConstructKind::Case => "case",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct CfgBlock {
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
pub struct CfgEdge {
    pub from: u32,
    pub to: u32,
    pub kind: CfgEdgeKind,
    pub back: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct CfgConstruct {
    pub kind: CfgConstructKind,
    /// The header block's label id (for a case construct: the case target).
    pub header: u32,
    pub blocks: Vec<u32>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub parent: Option<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct FunctionCfg {
    pub id: u32,
    pub name: String,
    pub blocks: Vec<CfgBlock>,
    pub edges: Vec<CfgEdge>,
    pub constructs: Vec<CfgConstruct>,
}

impl FunctionCfg {
    /// The index of the block with label `id`.
    pub fn block_index(&self, id: u32) -> Option<usize> {
        self.blocks.iter().position(|b| b.id == id)
    }
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
    pub diagnostics: Vec<Diagnostic>,
    pub disassembly: String,
    pub source_map: Vec<SourceMapEntry>,
    pub functions: Vec<FunctionCfg>,
    pub ids: Vec<IdInfo>,
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub elapsed_ms: Option<f64>,
}

impl AnalyzeReport {
    /// The function with result id `id`, or (with `None`) the first with blocks.
    pub fn function(&self, id: Option<u32>) -> Option<&FunctionCfg> {
        match id {
            Some(id) => self.functions.iter().find(|f| f.id == id),
            None => self.functions.iter().find(|f| !f.blocks.is_empty()),
        }
    }

    /// The function whose result id is `id`, or whose friendly name is `name`.
    pub fn function_by_name(&self, name: &str) -> Option<&FunctionCfg> {
        let name = name.strip_prefix('%').unwrap_or(name);
        self.functions
            .iter()
            .find(|f| f.name == name)
            .or_else(|| name.parse::<u32>().ok().and_then(|id| self.functions.iter().find(|f| f.id == id)))
    }
}

/// The disassembled text of each instruction.
struct InstText<'a> {
    dis: &'a str,
    ranges: &'a [(u32, u32)],
}

impl<'a> InstText<'a> {
    fn get(&self, i: usize) -> &'a str {
        self.ranges.get(i).and_then(|&(a, b)| self.dis.get(a as usize..b as usize)).map_or("", |s| s.trim_start())
    }
}

/// The file name used in rendered diagnostics.
pub const FILE: &str = "input.spvasm";

/// Where each instruction lies: its function (index into the report's
/// functions) and block (index into that function's blocks).
struct Placement {
    func: Vec<u32>,
    block: Vec<u32>,
}

const NONE: u32 = u32::MAX;

fn role_names(r: Roles) -> Vec<&'static str> {
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

fn name_of(names: Option<&Names>, id: u32) -> String {
    match names.and_then(|n| n.get(id)) {
        Some(s) => s.to_string(),
        None => id.to_string(),
    }
}

/// Analyse a module given as text, for the target environment `env`.
pub fn analyze(text: &str, env: TargetEnv) -> AnalyzeReport {
    analyze_with(text, &valid::Options { env, ..Default::default() })
}

/// [`analyze`] with spirv-val's options (`opts.env` is the target env).
pub fn analyze_with(text: &str, opts: &valid::Options) -> AnalyzeReport {
    let env = opts.env;
    let lines = LineIndex::new(text);
    let asm = AsmOptions { env, preserve_numeric_ids: false };
    let out = match assemble_with_map(text, &asm) {
        Ok(o) => o,
        Err(diags) => {
            return AnalyzeReport {
                diagnostics: diags.iter().map(|d| convert_diagnostic(d, text, &lines, None, FILE)).collect(),
                ..Default::default()
            };
        }
    };
    let names = valid::TextNames::from_asm(text, &out);
    // Read the module once; the validator's CFG (when it built one) serves the report too.
    let module = binary::read_words_framing(&out.words);
    let (mut vdiags, valid_cfg) = match &module {
        Ok(m) => valid::validate_named(m, opts, &names),
        Err(e) => (alloc::vec![e.to_diagnostic()], None),
    };
    let module = module.ok();

    let mut report = AnalyzeReport {
        assembled: true,
        valid: !vdiags.iter().any(|d| d.severity == Severity::Error),
        source_map: out
            .map
            .iter()
            .map(|m| SourceMapEntry { word_offset: m.word_offset, word_count: m.word_count, range: lines.range(m.span) })
            .collect(),
        ..Default::default()
    };

    let mut place = Placement { func: Vec::new(), block: Vec::new() };
    let mut cfgs = cfg::ModuleCfg::default();
    if let Some(m) = &module {
        let (dis, ranges, names) = disassemble_module_indexed(m, &DisOptions::default());
        let inst_text = InstText { dis: &dis, ranges: &ranges };
        cfgs = valid_cfg.unwrap_or_else(|| cfg::analyze(m));
        place = Placement { func: vec![NONE; m.instructions.len()], block: vec![NONE; m.instructions.len()] };
        for (fi, f) in cfgs.functions.iter().enumerate() {
            let end = f.end_instruction.map_or(m.instructions.len(), |e| e as usize + 1);
            for i in f.instruction as usize..end.min(m.instructions.len()) {
                place.func[i] = fi as u32;
            }
            for (bi, b) in f.blocks.iter().enumerate() {
                for i in b.start as usize..(b.end as usize).min(m.instructions.len()) {
                    place.block[i] = bi as u32;
                }
            }
            report.functions.push(function_report(m, f, names.as_ref(), &out.map, &lines, &inst_text));
        }
        report.ids = id_report(m, names.as_ref(), &out.map, &out.id_refs, &lines, &inst_text);
        report.disassembly = dis;
    }

    // Graph marks, from the word spans (before they are located in the text).
    let marks: Vec<(Option<u32>, Vec<u32>, Vec<(u32, u32)>)> = vdiags
        .iter()
        .map(|d| graph_marks(d, &out.map, &place, &cfgs, module.as_ref()))
        .collect();
    valid::locate(&mut vdiags, &out.map);
    report.diagnostics = out
        .warnings
        .iter()
        .map(|d| convert_diagnostic(d, text, &lines, Some(&out.words), FILE))
        .collect();
    for (d, (func, blocks, edges)) in vdiags.iter().zip(marks) {
        let mut w = convert_diagnostic(d, text, &lines, Some(&out.words), FILE);
        w.function = func;
        w.blocks = blocks;
        w.edges = edges;
        report.diagnostics.push(w);
    }
    report.words = out.words;
    report
}

/// The instruction index holding word `w`.
fn inst_at(map: &[InstSpan], w: u32) -> Option<usize> {
    let i = map.partition_point(|m| m.word_offset + m.word_count <= w);
    map.get(i).filter(|m| m.word_offset <= w).map(|_| i)
}

fn graph_marks(
    d: &CoreDiagnostic,
    map: &[InstSpan],
    place: &Placement,
    cfgs: &cfg::ModuleCfg,
    module: Option<&Module>,
) -> (Option<u32>, Vec<u32>, Vec<(u32, u32)>) {
    let mut blocks: Vec<u32> = Vec::new();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    if d.unit != SpanUnit::BinaryWords {
        return (None, blocks, edges);
    }
    let primary = inst_at(map, d.span.start);
    let Some(fi) = primary.and_then(|i| place.func.get(i).copied()).filter(|&f| f != NONE) else {
        return (None, blocks, edges);
    };
    let Some(f) = cfgs.functions.get(fi as usize) else {
        return (None, blocks, edges);
    };
    // Instructions (primary first) and their blocks in this function.
    let mut insts: Vec<(usize, u32)> = Vec::new();
    for s in core::iter::once(d.span).chain(d.related.iter().map(|r| r.span)) {
        if let Some(i) = inst_at(map, s.start)
            && place.func.get(i) == Some(&fi)
            && let Some(&b) = place.block.get(i)
            && b != NONE
        {
            insts.push((i, b));
            if !blocks.contains(&b) {
                blocks.push(b);
            }
        }
    }
    // Edges: from a block whose branch or merge instruction is named, to
    // another named block that it targets.
    let is_branchy = |i: usize| {
        module.and_then(|m| m.instructions.get(i)).is_some_and(|inst| {
            cfg::is_branch_opcode(inst.opcode)
                || inst.opcode == crate::grammar::op::OpSelectionMerge
                || inst.opcode == crate::grammar::op::OpLoopMerge
        })
    };
    for &(i, b) in &insts {
        if !is_branchy(i) {
            continue;
        }
        for e in f.out_edges(b) {
            if e.instruction as usize == i && e.to != b && blocks.contains(&e.to) && !edges.contains(&(b, e.to)) {
                edges.push((b, e.to));
            }
        }
    }
    let label = |b: u32| f.blocks.get(b as usize).map_or(0, |x| x.label);
    (
        Some(f.id),
        blocks.iter().map(|&b| label(b)).collect(),
        edges.iter().map(|&(a, b)| (label(a), label(b))).collect(),
    )
}

fn function_report(
    m: &Module,
    f: &cfg::FunctionCfg,
    names: Option<&Names>,
    map: &[InstSpan],
    lines: &LineIndex<'_>,
    inst_text: &InstText<'_>,
) -> FunctionCfg {
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
            let roles = f.roles(bi);
            CfgBlock {
                id: b.label,
                name: name_of(names, b.label),
                range,
                listing: (start..end).map(|i| inst_text.get(i).to_string()).collect(),
                entry: bi == 0,
                exit: b.is_exit(),
                reachable: f.is_reachable(bi),
                structurally_reachable: f.is_structurally_reachable(bi),
                roles: role_names(roles),
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
        .map(|(k, e)| CfgEdge {
            from: label(e.from),
            to: label(e.to),
            kind: match e.kind {
                EdgeKind::Branch => CfgEdgeKind::Branch,
                EdgeKind::Merge => CfgEdgeKind::Merge,
                EdgeKind::Continue => CfgEdgeKind::Continue,
            },
            back: f.is_back_edge(k),
        })
        .collect();
    let constructs = f
        .constructs()
        .iter()
        .enumerate()
        .map(|(ci, c)| CfgConstruct {
            kind: match c.kind {
                ConstructKind::Selection => CfgConstructKind::Selection,
                ConstructKind::Switch => CfgConstructKind::Switch,
                ConstructKind::Loop => CfgConstructKind::Loop,
                ConstructKind::Continue => CfgConstructKind::Continue,
                ConstructKind::Case => CfgConstructKind::Case,
            },
            header: label(if c.kind == ConstructKind::Case { c.entry } else { c.header }),
            blocks: f.construct_blocks(ci as u32).into_iter().map(label).collect(),
            parent: c.parent,
        })
        .collect();
    FunctionCfg { id: f.id, name: name_of(names, f.id), blocks, edges, constructs }
}

fn id_report(
    m: &Module,
    names: Option<&Names>,
    map: &[InstSpan],
    id_refs: &[(Span, u32)],
    lines: &LineIndex<'_>,
    inst_text: &InstText<'_>,
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
            .map(|t| alloc::format!("%{}", name_of(names, t)));
        out.push(IdInfo {
            id,
            name: name_of(names, id),
            def: def.and_then(|i| map.get(i)).map(|s| lines.range(s.span)),
            def_text: def.map_or_else(String::new, |i| inst_text.get(i).to_string()),
            ty,
            // Uses only: the `%x` of the defining `%x = ...` is the definition.
            refs: {
                let def_at = def.and_then(|i| map.get(i)).map(|s| s.span.start);
                refs[k..j]
                    .iter()
                    .filter(|&&(_, s)| Some(s.start) != def_at)
                    .map(|&(_, s)| lines.range(s))
                    .collect()
            },
        });
        k = j;
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
