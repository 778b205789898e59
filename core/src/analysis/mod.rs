//! One analysis of a module, from text or binary, and the views of it that the
//! page and the command line show.
//!
//! [`Analysis`] assembles (or reads) a module once, validates it once, keeps its
//! control-flow analysis (the validator's, when it built one), the source map
//! from instructions to text, the names of the text, and every diagnostic, both
//! as the validator reported it (word spans) and located in the text. The rest
//! are views of it:
//!
//! * [`report`]: what the page shows after an edit ([`report::AnalyzeReport`]);
//! * [`dot`]: one function's control-flow graph as Graphviz DOT;
//! * [`Analysis::render`]: rustc-style text for the command line;
//! * [`Analysis::disassembly`]: the spirv-dis text, with the text's names for
//!   a text input ([`Analysis::display_name`]).
//!
//! The page keeps one `Analysis` in its session (web crate), so that a CFG
//! toggle or a function switch redraws without analysing again.

pub mod dot;
pub mod report;
pub mod teach;

use crate::binary;
use crate::cfg::{self, ModuleCfg};
use crate::ir::Ir;
use crate::reflect::{self, Reflection};
use crate::diag::{self, SpanUnit};
use crate::text::asm::{AsmOptions, InstSpan, TextNames, assemble_with_map, inst_at};
use crate::text::dis::{DisOptions, Names, disassemble_module_indexed, disassemble_module_names};
use crate::valid::{self, rules};
use crate::{Diagnostic, Module, Severity, Span};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::OnceCell;

/// The file name used in rendered diagnostics about a text.
pub const TEXT_FILE: &str = "input.spvasm";
/// The file name used in rendered diagnostics about a binary.
pub const BINARY_FILE: &str = "input.spv";

/// Where a diagnostic was before it was located in the text: its primary span
/// and its related spans in words (`None`: not a word span, e.g. an assembler
/// diagnostic), and the marks it leaves on the graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    pub words: Option<Span>,
    /// One per related span kept in the located diagnostic.
    pub related_words: Vec<Option<Span>>,
    /// The function (result id) whose blocks the problem concerns.
    pub function: Option<u32>,
    /// Those blocks (label ids) and edges (label id pairs).
    pub blocks: Vec<u32>,
    pub edges: Vec<(u32, u32)>,
}

/// The canonical disassembly of the module (computed on first use).
pub struct Disassembly {
    pub text: String,
    /// Per instruction: its line's byte range in `text`.
    pub ranges: Vec<(u32, u32)>,
    /// The names it prints ([`Analysis::display_name`]).
    pub names: Names,
}

impl Disassembly {
    /// The name of `id` in this disassembly, without `%` (the number when it
    /// has none).
    pub fn name(&self, id: u32) -> String {
        match self.names.get(id) {
            Some(n) => String::from(n),
            None => alloc::format!("{id}"),
        }
    }

    /// The text of instruction `i`, without its indentation.
    pub fn inst(&self, i: usize) -> &str {
        self.ranges
            .get(i)
            .and_then(|&(a, b)| self.text.get(a as usize..b as usize))
            .map_or("", |s| s.trim_start())
    }
}

/// What an analysis holds of the module.
enum Body {
    /// Nothing: the text did not assemble, or the words are not a module.
    None,
    /// Read only ([`Analysis::read_bytes`]): the framing, no IR, no checks.
    Read(Module),
    /// Read, then its typed IR built (which owns the module) and validated.
    Checked(Box<Ir>),
}

/// One analysis of one module.
pub struct Analysis {
    opts: valid::Options,
    /// The assembly text (text input only).
    text: Option<String>,
    /// The binary (assembled, or as given); empty when the text did not assemble
    /// or the bytes were not a binary.
    words: Vec<u32>,
    /// The module read from the words, when reading its framing succeeded.
    body: Body,
    /// Per instruction: where it came from in the text (text input only).
    map: Vec<InstSpan>,
    /// Every `%id` token of the text and the id it resolved to.
    id_refs: Vec<(Span, u32)>,
    /// The first word and text span of every operand (text input only).
    operands: Vec<(u32, Span)>,
    text_names: TextNames,
    cfg: ModuleCfg,
    diagnostics: Vec<Diagnostic>,
    origins: Vec<Origin>,
    dis: OnceCell<Disassembly>,
}

impl Analysis {
    /// Assemble `text` for `opts.env`, then read, validate and analyse it.
    pub fn of_text(text: &str, opts: &valid::Options) -> Analysis {
        let mut a = Analysis::empty(opts);
        a.text = Some(String::from(text));
        let asm = AsmOptions { env: opts.env, preserve_numeric_ids: false };
        match assemble_with_map(text, &asm) {
            Ok(out) => {
                a.text_names = TextNames::from_asm(text, &out);
                a.diagnostics = out.warnings;
                a.origins = a.diagnostics.iter().map(|_| Origin::default()).collect();
                a.map = out.map;
                a.id_refs = out.id_refs;
                a.operands = out.operands;
                a.words = out.words;
                a.check();
            }
            Err(diags) => {
                a.origins = diags.iter().map(|_| Origin::default()).collect();
                a.diagnostics = diags;
            }
        }
        a
    }

    /// Read, validate and analyse a binary given as words (either byte order).
    pub fn of_words(words: Vec<u32>, opts: &valid::Options) -> Analysis {
        let mut a = Analysis::empty(opts);
        a.words = words;
        a.check();
        a
    }

    /// [`Analysis::of_words`] for bytes (either byte order); bytes that are not
    /// a whole binary give the reader's diagnostic and no module.
    pub fn of_bytes(bytes: &[u8], opts: &valid::Options) -> Analysis {
        match binary::words_from_bytes(bytes) {
            Ok(w) => Analysis::of_words(w, opts),
            Err(e) => {
                let mut a = Analysis::empty(opts);
                a.push_unlocated(e.to_diagnostic());
                a
            }
        }
    }

    /// Read a binary given as bytes (either byte order) without building its
    /// IR or validating it: what the disassembler needs, at the disassembler's
    /// cost. [`Analysis::ir`] is `None` and the diagnostics are the reader's only.
    pub fn read_bytes(bytes: &[u8]) -> Analysis {
        let mut a = Analysis::empty(&valid::Options::default());
        match binary::words_from_bytes(bytes).and_then(|w| {
            let m = binary::read_words_framing(&w)?;
            Ok((w, m))
        }) {
            Ok((w, m)) => {
                a.words = w;
                a.body = Body::Read(m);
            }
            Err(e) => a.push_unlocated(e.to_diagnostic()),
        }
        a
    }

    fn empty(opts: &valid::Options) -> Analysis {
        Analysis {
            opts: *opts,
            text: None,
            words: Vec::new(),
            body: Body::None,
            map: Vec::new(),
            id_refs: Vec::new(),
            operands: Vec::new(),
            text_names: TextNames::default(),
            cfg: ModuleCfg::default(),
            diagnostics: Vec::new(),
            origins: Vec::new(),
            dis: OnceCell::new(),
        }
    }

    fn push_unlocated(&mut self, d: Diagnostic) {
        let words = (d.unit == SpanUnit::BinaryWords).then_some(d.span);
        let related_words = d.related.iter().map(|r| words.map(|_| r.span)).collect();
        self.origins.push(Origin { words, related_words, ..Origin::default() });
        self.diagnostics.push(d);
    }

    /// Read the words, validate, keep the CFG, then locate the validator's
    /// diagnostics in the text (when there is one).
    fn check(&mut self) {
        let ir = match binary::read_words_framing(&self.words) {
            Ok(m) => Ir::build(m),
            Err(e) => {
                self.push_unlocated(e.to_diagnostic());
                return;
            }
        };
        let names = self.text.is_some().then_some(&self.text_names);
        let (diags, cfg) = valid::validate_named(&ir, &self.opts, names);
        let module = &ir.module;
        self.cfg = cfg.unwrap_or_else(|| cfg::analyze(module));
        if !diags.is_empty() {
            let framing;
            let map: &[InstSpan] = if self.text.is_some() {
                &self.map
            } else {
                framing = framing_map(module);
                &framing
            };
            let place = Placement::new(module, &self.cfg);
            for mut d in diags {
                let mut origin = Origin::default();
                if d.unit == SpanUnit::BinaryWords {
                    origin.words = Some(d.span);
                    graph_marks(&d, map, &place, &self.cfg, module, &mut origin);
                    if self.text.is_some() {
                        locate(&self.map, &self.operands, &mut d, &mut origin);
                    } else {
                        origin.related_words = d.related.iter().map(|r| Some(r.span)).collect();
                    }
                }
                self.origins.push(origin);
                self.diagnostics.push(d);
            }
            self.merge_undefined_ids();
        }
        self.body = Body::Checked(Box::new(ir));
    }

    /// One mistake, one entry: an id that is used but never defined gets the
    /// assembler's warning (at the `%id` token) and the validator's error (at
    /// its instruction). The error is kept, moved to the token, with the
    /// warning's label and a suggestion (the validator's, else the
    /// assembler's); the warning goes. Both name the id as the text spells
    /// it, which pairs them.
    fn merge_undefined_ids(&mut self) {
        let Some(text) = self.text.as_deref() else { return };
        let diags = &mut self.diagnostics;
        // The validator's undefined-id errors, by where they start (the
        // instructions of a text do not overlap).
        let mut errors: Vec<usize> = (0..diags.len())
            .filter(|&i| {
                matches!(diags[i].code, "ids.undefined" | "ids.undefined-forward-reference")
                    && diags[i].unit == SpanUnit::TextBytes
            })
            .collect();
        if errors.is_empty() {
            return;
        }
        errors.sort_by_key(|&i| diags[i].span.start);
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for w in 0..diags.len() {
            if diags[w].code != crate::text::asm::errors::UNDEFINED_ID || diags[w].unit != SpanUnit::TextBytes {
                continue;
            }
            let span = diags[w].span;
            let token = text.get(span.start as usize..span.end as usize).unwrap_or("");
            let upto = errors.partition_point(|&i| diags[i].span.start <= span.start);
            let paired = errors[..upto].iter().rev().take_while(|&&i| span.end <= diags[i].span.end).find(|&&i| {
                diags[i].message.strip_prefix(token).is_some_and(|rest| rest.starts_with(' '))
            });
            if let Some(&e) = paired {
                pairs.push((w, e));
            }
        }
        let mut gone = alloc::vec![false; diags.len()];
        for (w, e) in pairs {
            let (span, label, help) = (diags[w].span, diags[w].label.clone(), diags[w].help.clone());
            let d = &mut diags[e];
            d.span = span;
            d.label = label;
            if d.help.is_none() {
                d.help = help;
            }
            gone[w] = true;
        }
        let mut k = 0;
        self.origins.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
        let mut k = 0;
        diags.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
    }

    /// The validator's options (the target environment among them).
    pub fn options(&self) -> &valid::Options {
        &self.opts
    }

    /// The assembly text, for a text input.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Whether the text assembled (always true for a binary input).
    pub fn assembled(&self) -> bool {
        self.text.is_none() || !self.words.is_empty()
    }

    /// No error: the module is valid (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.assembled() && !self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn words(&self) -> &[u32] {
        &self.words
    }

    pub fn module(&self) -> Option<&Module> {
        match &self.body {
            Body::None => None,
            Body::Read(m) => Some(m),
            Body::Checked(ir) => Some(&ir.module),
        }
    }

    pub fn cfg(&self) -> &ModuleCfg {
        &self.cfg
    }

    /// The source map (empty for a binary input).
    pub fn source_map(&self) -> &[InstSpan] {
        &self.map
    }

    /// Every `%id` token of the text with its id (empty for a binary input).
    pub fn id_refs(&self) -> &[(Span, u32)] {
        &self.id_refs
    }

    /// The diagnostics: assembler warnings, then the validator's in module
    /// order; located in the text for a text input.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Where diagnostic `i` was in words, and its graph marks.
    pub fn origin(&self, i: usize) -> Option<&Origin> {
        self.origins.get(i)
    }

    /// The block diagnostic `i` points at, as (function result id, label
    /// id): the block holding the instruction of its primary span, else the
    /// first block its graph marks name; `None` for a diagnostic about no
    /// block (a type, a decoration, the header).
    pub fn diagnostic_block(&self, i: usize) -> Option<(u32, u32)> {
        let d = self.diagnostics.get(i)?;
        let origin = self.origin(i);
        let word = match d.unit {
            SpanUnit::BinaryWords => Some(d.span.start),
            SpanUnit::TextBytes => origin.and_then(|o| o.words).map(|w| w.start),
        };
        let inst = word.and_then(|w| self.instruction_at_word(w));
        let holding = inst.and_then(|at| {
            self.cfg.functions.iter().find_map(|f| {
                f.blocks.iter().find(|b| b.start <= at && at < b.end).map(|b| (f.id, b.label))
            })
        });
        holding.or_else(|| {
            let o = origin?;
            Some((o.function?, *o.blocks.first()?))
        })
    }

    /// The index of the module's instruction holding word `w` (counted from
    /// the start of the module, the header's five words first).
    fn instruction_at_word(&self, w: u32) -> Option<u32> {
        // The header is words 0 to 4.
        let mut at = 5u32;
        for (i, inst) in self.module()?.instructions.iter().enumerate() {
            let next = at + inst.word_count() as u32;
            if w < at {
                return None;
            }
            if w < next {
                return Some(i as u32);
            }
            at = next;
        }
        None
    }

    /// The disassembly (computed on first use), with the names every view
    /// shows ([`Analysis::display_name`]): for a text input the ids go by the
    /// text's names, for a binary by spirv-dis's friendly names.
    pub fn disassembly(&self) -> Option<&Disassembly> {
        let m = self.module()?;
        Some(self.dis.get_or_init(|| {
            let names = Names::build_with(m, self.text_names.iter());
            let (text, ranges, names) = disassemble_module_names(m, &DisOptions::default(), Some(names));
            Disassembly { text, ranges, names: names.unwrap_or_else(|| Names::build(m)) }
        }))
    }

    /// The module disassembled with `opts` (spirv-dis's flags and names); for
    /// a binary with the default options, the cached [`Analysis::disassembly`].
    pub fn disassemble(&self, opts: &DisOptions) -> Option<String> {
        if *opts == DisOptions::default() && self.text.is_none() {
            return self.disassembly().map(|d| d.text.clone());
        }
        Some(disassemble_module_indexed(self.module()?, opts).0)
    }

    /// The name of `id` as every view shows it, without `%`: the text's own
    /// name (as typed, `%entry` or `%12`), else OpName, else the friendly name
    /// spirv-dis prints (OpName comes first there too), else the number.
    pub fn display_name(&self, id: u32) -> String {
        match self.disassembly() {
            Some(d) => d.name(id),
            None => self.text_names.get(id).map_or_else(|| alloc::format!("{id}"), String::from),
        }
    }

    /// The line and column (1-based) where instruction `i` (its index in the
    /// module) starts in the text; `None` for a binary input.
    pub fn inst_line_col(&self, i: u32) -> Option<(u32, u32)> {
        let span = self.map.get(i as usize)?.span;
        Some(diag::line_col(self.text()?, span.start))
    }

    /// A run error's message in the module's own terms: the instructions it
    /// names (a data race's two accesses) by their line:col, the step
    /// budget's block by its name as every view shows it, and the invocation
    /// appended when the message does not name one.
    pub fn run_error_message(&self, e: &crate::interp::RunError) -> String {
        use core::fmt::Write;
        let mut msg = e.message_named(
            |i| self.inst_line_col(i).map(|(l, c)| alloc::format!("{l}:{c}")),
            |label| Some(alloc::format!("%{}", self.display_name(label))),
        );
        if let Some([x, y, z]) = e.invocation.filter(|_| !e.kind.names_invocation()) {
            let _ = write!(msg, " [invocation ({x},{y},{z})]");
        }
        msg
    }

    /// The index (into [`ModuleCfg::functions`]) of the function with result id
    /// `id`, or with `None` of the first function with blocks.
    pub fn function_index(&self, id: Option<u32>) -> Option<usize> {
        let fs = &self.cfg.functions;
        match id {
            Some(id) => fs.iter().position(|f| f.id == id),
            None => fs.iter().position(|f| !f.blocks.is_empty()),
        }
    }

    /// The function whose name ([`Analysis::display_name`], with or without `%`)
    /// or result id is `name`.
    pub fn function_by_name(&self, name: &str) -> Option<usize> {
        let name = name.strip_prefix('%').unwrap_or(name);
        let fs = &self.cfg.functions;
        fs.iter()
            .position(|f| self.display_name(f.id) == name)
            .or_else(|| name.parse::<u32>().ok().and_then(|id| fs.iter().position(|f| f.id == id)))
    }

    /// The typed IR of the module (the one the validator read).
    pub fn ir(&self) -> Option<&Ir> {
        match &self.body {
            Body::Checked(ir) => Some(ir),
            _ => None,
        }
    }

    /// The resources, workgroup size and built-ins of each entry point.
    pub fn reflect(&self) -> Option<Reflection> {
        self.ir().map(reflect::reflect)
    }

    /// The DOT drawing of the function with result id `function` (`None`: the
    /// first with blocks); `None` when there is no such function or no module.
    pub fn dot(&self, function: Option<u32>, opts: &dot::DotOptions) -> Option<String> {
        let f = self.cfg.functions.get(self.function_index(function)?)?;
        Some(dot::to_dot(f, self.disassembly()?, opts))
    }

    /// The file name rendered diagnostics use.
    pub fn file_name(&self) -> &'static str {
        if self.text.is_some() { TEXT_FILE } else { BINARY_FILE }
    }

    /// Diagnostic `d` (one of this analysis) rendered rustc-style, with the
    /// rule's explanation as a note; binary locations name their instruction.
    pub fn render(&self, d: &Diagnostic, file: &str) -> String {
        let words = (!self.words.is_empty()).then_some(self.words.as_slice());
        render(d, self.text.as_deref().unwrap_or(""), words, file)
    }
}

/// A diagnostic rendered rustc-style in `src` (or at the words of `words`),
/// with its rule's explanation as a note.
pub fn render(d: &Diagnostic, src: &str, words: Option<&[u32]>, file: &str) -> String {
    diag::render_full(d, src, words, file, rules::rule(d.code).map(|r| r.explanation))
}

/// A source map of a binary: each instruction's words (no text).
fn framing_map(module: &Module) -> Vec<InstSpan> {
    let mut at = 5u32;
    module
        .instructions
        .iter()
        .map(|i| {
            let s = InstSpan { word_offset: at, word_count: i.word_count() as u32, span: Span::default() };
            at += s.word_count;
            s
        })
        .collect()
}

/// Move a diagnostic's word spans to the text spans of their instructions,
/// or of their operands' tokens when a span covers whole operands and not the
/// whole instruction (`operands`: the first word and text span of each operand,
/// in word order, as [`crate::text::asm::AsmOutput::operands`]).
/// A related span outside the map (the header, say) cannot be shown in the
/// text: it is dropped rather than have its word numbers read as bytes.
fn locate(map: &[InstSpan], operands: &[(u32, Span)], d: &mut Diagnostic, origin: &mut Origin) {
    let find = |s: Span| {
        let m = map[inst_at(map, s.start)?];
        Some(operand_text(m, operands, s).unwrap_or(m.span))
    };
    let Some(span) = find(d.span) else {
        origin.related_words = d.related.iter().map(|r| Some(r.span)).collect();
        return;
    };
    d.span = span;
    d.unit = SpanUnit::TextBytes;
    origin.related_words.clear();
    d.related.retain_mut(|r| match find(r.span) {
        Some(s) => {
            origin.related_words.push(Some(r.span));
            r.span = s;
            true
        }
        None => false,
    });
}

/// The text of the operands whose words are exactly `s`, inside instruction
/// `m` but not the whole of it.
fn operand_text(m: InstSpan, operands: &[(u32, Span)], s: Span) -> Option<Span> {
    let end = m.word_offset + m.word_count;
    if s.start <= m.word_offset || s.end > end || s.end <= s.start {
        return None;
    }
    let a = operands.partition_point(|t| t.0 < s.start);
    let b = operands.partition_point(|t| t.0 < s.end);
    let (first, last) = (operands.get(a)?, operands.get(b.checked_sub(1)?)?);
    // The span must start at an operand and end where one ends.
    let next = operands.get(b).map_or(end, |t| t.0.min(end));
    (first.0 == s.start && b > a && next == s.end).then(|| Span::new(first.1.start, last.1.end))
}

/// Locate diagnostics reported in words in the text, by an assembler's source
/// map (those already in the text are left alone), at their instructions.
pub fn locate_all(map: &[InstSpan], diags: &mut [Diagnostic]) {
    locate_all_operands(map, &[], diags)
}

/// Locate diagnostics reported in words in the text like [`locate_all`], a
/// diagnostic at one operand's words at that operand's token (`operands`:
/// [`crate::text::asm::AsmOutput::operands`]).
pub fn locate_all_operands(map: &[InstSpan], operands: &[(u32, Span)], diags: &mut [Diagnostic]) {
    for d in diags.iter_mut().filter(|d| d.unit == SpanUnit::BinaryWords) {
        locate(map, operands, d, &mut Origin::default());
    }
}

/// Where each instruction lies: its function (index into the CFG's functions)
/// and block (index into that function's blocks).
struct Placement {
    func: Vec<u32>,
    block: Vec<u32>,
}

impl Placement {
    fn new(m: &Module, cfgs: &ModuleCfg) -> Placement {
        let n = m.instructions.len();
        let mut p = Placement { func: alloc::vec![cfg::NONE; n], block: alloc::vec![cfg::NONE; n] };
        for (fi, f) in cfgs.functions.iter().enumerate() {
            let end = f.end_instruction.map_or(n, |e| e as usize + 1);
            for i in f.instruction as usize..end.min(n) {
                p.func[i] = fi as u32;
            }
            for (bi, b) in f.blocks.iter().enumerate() {
                for i in b.start as usize..(b.end as usize).min(n) {
                    p.block[i] = bi as u32;
                }
            }
        }
        p
    }
}

/// The function, blocks and edges a validator diagnostic (in word spans) names.
fn graph_marks(
    d: &Diagnostic,
    map: &[InstSpan],
    place: &Placement,
    cfgs: &ModuleCfg,
    module: &Module,
    origin: &mut Origin,
) {
    let Some(fi) = inst_at(map, d.span.start).and_then(|i| place.func.get(i).copied()).filter(|&f| f != cfg::NONE)
    else {
        return;
    };
    let Some(f) = cfgs.functions.get(fi as usize) else { return };
    // Instructions (primary first) and their blocks in this function.
    let mut insts: Vec<(usize, u32)> = Vec::new();
    let mut blocks: Vec<u32> = Vec::new();
    for s in core::iter::once(d.span).chain(d.related.iter().map(|r| r.span)) {
        if let Some(i) = inst_at(map, s.start)
            && place.func.get(i) == Some(&fi)
            && let Some(&b) = place.block.get(i)
            && b != cfg::NONE
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
        module.instructions.get(i).is_some_and(|inst| {
            cfg::is_branch_opcode(inst.opcode)
                || inst.opcode == crate::grammar::op::OpSelectionMerge
                || inst.opcode == crate::grammar::op::OpLoopMerge
        })
    };
    let mut edges: Vec<(u32, u32)> = Vec::new();
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
    origin.function = Some(f.id);
    origin.blocks = blocks.iter().map(|&b| label(b)).collect();
    origin.edges = edges.iter().map(|&(a, b)| (label(a), label(b))).collect();
}

#[cfg(test)]
mod tests;
