//! The assembler proper: reads tokens, encodes instructions, records what spirv-as
//! records (types, value types, extended instruction sets), reports every error.

// Diagnostics are big, and errors are the cold path.
#![allow(clippy::result_large_err)]

use super::errors as code;
use super::idmap::{IdTable, NameMap};
use super::lexer::{Tok, TokKind, tokenize};
use super::numbers::{FloatFormat, NumError, parse_float, parse_int, parse_u32_base0};
use super::suggest;
use super::{AsmOptions, AsmOutput, InstSpan};
use crate::grammar::{
    op,
    self, Category, ExtInstSetDesc, InstructionDesc, OperandDesc, OperandKind, Quantifier,
};
use crate::{Diagnostic, Severity, Span};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The generator word spirv-as writes: Khronos' assembler (7), version 0.
pub const GENERATOR_WORD: u32 = 7 << 16;

/// The opcodes OpSpecConstantOp accepts (as spirv-as v2025.5 does), without `Op`.
const SPEC_CONSTANT_OPS: &[&str] = &[
    "SConvert", "FConvert", "ConvertFToS", "ConvertSToF", "ConvertFToU", "ConvertUToF",
    "UConvert", "ConvertPtrToU", "ConvertUToPtr", "GenericCastToPtr", "PtrCastToGeneric",
    "Bitcast", "QuantizeToF16", "SNegate", "Not", "IAdd", "ISub", "IMul", "UDiv", "SDiv",
    "UMod", "SRem", "SMod", "ShiftRightLogical", "ShiftRightArithmetic", "ShiftLeftLogical",
    "BitwiseOr", "BitwiseAnd", "BitwiseXor", "FNegate", "FAdd", "FSub", "FMul", "FDiv", "FRem",
    "FMod", "VectorShuffle", "CompositeExtract", "CompositeInsert", "LogicalOr", "LogicalAnd",
    "LogicalNot", "LogicalEqual", "LogicalNotEqual", "Select", "IEqual", "INotEqual",
    "ULessThan", "SLessThan", "UGreaterThan", "SGreaterThan", "ULessThanEqual",
    "SLessThanEqual", "UGreaterThanEqual", "SGreaterThanEqual", "AccessChain",
    "InBoundsAccessChain", "PtrAccessChain", "InBoundsPtrAccessChain",
    "CooperativeMatrixLengthNV", "CooperativeMatrixLengthKHR",
];


#[derive(Clone, Copy, Debug)]
enum TypeInfo {
    Int { width: u32, signed: bool },
    Float { width: u32, encoding: Option<u32> },
    Other,
}

#[derive(Clone, Copy)]
enum ExtSet {
    Known { set: &'static ExtInstSetDesc, non_semantic: bool },
    UnknownNonSemantic,
}

/// One expected operand.
#[derive(Clone, Copy, Debug)]
enum Exp {
    Op { kind: OperandKind, q: Quantifier, name: &'static str },
    /// After `!<integer>`: a context-independent value (number, string or id), optional.
    Civ,
    /// The result id, kept in place after `!<integer>`.
    ResultId,
}

#[derive(Clone, Copy)]
struct IdInfo {
    id: u32,
    defined: bool,
    first_use: u32,
    /// The opcode of its definition (when defined).
    def_opcode: u16,
    /// What its uses need it to be (the first use that says), for suggestions.
    need: Option<grammar::IdKind>,
}

type Res<T> = Result<T, Diagnostic>;

struct Asm<'a> {
    src: &'a str,
    toks: Vec<Tok>,
    pos: usize,
    words: Vec<u32>,
    map: Vec<InstSpan>,
    /// With a source map: the text span and resolved id of every id token.
    id_refs: Vec<(Span, u32)>,
    /// With a source map: the first word and text span of every operand.
    operand_toks: Vec<(u32, Span)>,
    want_map: bool,
    errors: Vec<Diagnostic>,
    names: NameMap<'a, IdInfo>,
    /// Opcode names and aliases to their index in `grammar::INSTRUCTIONS`
    /// (a hash lookup per instruction instead of a binary search over names).
    opcodes: NameMap<'a, u16>,
    preserve: bool,
    preserved: Vec<u32>,
    next_id: u32,
    bound: u32,
    types: IdTable<TypeInfo>,
    value_types: IdTable<u32>,
    ext_sets: IdTable<ExtSet>,
    expect: Vec<Exp>,
    // Per instruction.
    ws: usize,
    opcode: u16,
    /// The index of the operand being read (result type and result id
    /// included, as [`grammar::id_need`] counts), and its kind.
    k: usize,
    use_kind: OperandKind,
    result_type: u32,
    ext_set: Option<ExtSet>,
}

pub fn run(src: &str, opts: &AsmOptions, want_warnings: bool) -> Result<AsmOutput, Vec<Diagnostic>> {
    // spirv-as reads the text as a C string: it ends at the first NUL.
    let src = match src.as_bytes().iter().position(|&b| b == 0) {
        Some(p) => src.get(..p).unwrap_or(""),
        None => src,
    };
    if src.is_empty() {
        return Err(alloc::vec![Diagnostic::error(code::EMPTY_TEXT, Span::new(0, 0), "the assembly text is empty")
            .with_help("spirv-as refuses an empty file; write at least one instruction or comment")]);
    }
    let toks = tokenize(src.as_bytes());
    let mut a = Asm {
        src,
        toks,
        pos: 0,
        words: Vec::with_capacity(src.len() / 4 + 5),
        map: Vec::new(),
        id_refs: Vec::new(),
        operand_toks: Vec::new(),
        want_map: want_warnings,
        errors: Vec::new(),
        names: NameMap::new(),
        opcodes: {
            let mut m = NameMap::new();
            for &(name, i) in grammar::INSTRUCTIONS_BY_NAME {
                m.insert(name, i);
            }
            m
        },
        preserve: opts.preserve_numeric_ids,
        preserved: Vec::new(),
        next_id: 1,
        bound: 1,
        types: IdTable::new(),
        value_types: IdTable::new(),
        ext_sets: IdTable::new(),
        expect: Vec::with_capacity(16),
        ws: 0,
        opcode: 0,
        k: 0,
        use_kind: OperandKind::IdRef,
        result_type: 0,
        ext_set: None,
    };
    if a.preserve {
        a.collect_numeric_ids();
    }
    a.words.extend_from_slice(&[grammar::MAGIC_NUMBER, opts.env.version_word(), GENERATOR_WORD, 0, 0]);
    while a.pos < a.toks.len() {
        let first = a.pos;
        a.ws = a.words.len();
        match a.instruction() {
            Ok(()) => {
                let last = a.pos.saturating_sub(1).max(first);
                let span = Span::new(a.toks[first].start, a.toks.get(last).map_or(a.toks[first].end, |t| t.end));
                a.map.push(InstSpan {
                    word_offset: a.ws as u32,
                    word_count: (a.words.len() - a.ws) as u32,
                    span,
                });
            }
            Err(d) => {
                a.errors.push(d);
                a.words.truncate(a.ws);
                while a.operand_toks.last().is_some_and(|t| t.0 >= a.ws as u32) {
                    a.operand_toks.pop();
                }
                a.pos = a.pos.max(first + 1);
                while a.pos < a.toks.len() && !a.recovery_point(a.pos) {
                    a.pos += 1;
                }
            }
        }
    }
    if !a.errors.is_empty() {
        return Err(a.errors);
    }
    if let Some(w) = a.words.get_mut(3) {
        *w = a.bound;
    }
    let warnings = if want_warnings { a.undefined_id_warnings() } else { Vec::new() };
    Ok(AsmOutput { words: a.words, map: a.map, warnings, id_refs: a.id_refs, operands: a.operand_toks })
}

fn is_valid_id_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

fn article(s: &str) -> &'static str {
    match s.as_bytes().first() {
        Some(b'A' | b'E' | b'I' | b'O' | b'U' | b'a' | b'e' | b'i' | b'o' | b'u') => "an",
        _ => "a",
    }
}

fn describe(e: Exp) -> String {
    match e {
        Exp::Civ => String::from("a number, string or id"),
        Exp::ResultId => String::from("a result id"),
        Exp::Op { kind, name, .. } => {
            let what = match kind {
                OperandKind::IdResultType => String::from("a result type id"),
                OperandKind::IdResult => String::from("a result id"),
                OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics => String::from("an id"),
                OperandKind::LiteralInteger => String::from("a literal integer"),
                OperandKind::LiteralString => String::from("a string"),
                OperandKind::LiteralFloat => String::from("a literal float"),
                OperandKind::LiteralContextDependentNumber => String::from("a literal number"),
                OperandKind::LiteralExtInstInteger => String::from("an extended instruction name"),
                OperandKind::LiteralSpecConstantOpInteger => String::from("an opcode name"),
                k => {
                    let n = k.name();
                    format!("{} {n}", article(n))
                }
            };
            if name.is_empty() { what } else { format!("{what} ({name})") }
        }
    }
}

impl<'a> Asm<'a> {
    fn text(&self, i: usize) -> &'a str {
        let src: &'a str = self.src;
        self.toks.get(i).and_then(|t| src.get(t.start as usize..t.end as usize)).unwrap_or("")
    }

    fn span(&self, i: usize) -> Span {
        self.toks.get(i).map_or(Span::new(self.src.len() as u32, self.src.len() as u32), |t| Span::new(t.start, t.end))
    }

    fn is_word(&self, i: usize) -> bool {
        self.toks.get(i).is_some_and(|t| t.kind == TokKind::Word)
    }

    fn starts_with_op(&self, i: usize) -> bool {
        let b = self.text(i).as_bytes();
        b.len() >= 3 && b[0] == b'O' && b[1] == b'p' && b[2].is_ascii_uppercase()
    }

    /// spirv-as's "start of a new instruction": `Op[A-Z]...` or `%id =`.
    fn is_inst_start(&self, i: usize) -> bool {
        if !self.is_word(i) {
            return false;
        }
        if self.starts_with_op(i) {
            return true;
        }
        self.text(i).starts_with('%') && self.is_word(i + 1) && self.text(i + 1) == "="
    }

    /// Where to resume after an error: the first token of a line that starts an
    /// instruction (`OpX`, `%id =` or `!<integer>`).
    fn recovery_point(&self, i: usize) -> bool {
        if !(self.is_inst_start(i) || (self.is_word(i) && self.text(i).starts_with('!'))) {
            return false;
        }
        let start = self.toks[i].start as usize;
        let before = self.src.as_bytes().get(..start).unwrap_or(&[]);
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        // Only blanks before it on its line (a comment would have ended the line).
        before[line_start..].iter().all(|&b| b == b' ' || b == b'\t' || b == b'\r')
    }

    /// A string whose closing `"` is missing: the tokenizer (like spirv-as)
    /// lets it run to the end of the text, so it is the last token. The
    /// diagnostic points at its opening quote, up to the end of that line,
    /// rather than quoting or underlining the rest of the text.
    fn unclosed_string(&self, i: usize) -> Option<Diagnostic> {
        if i + 1 != self.toks.len() {
            return None;
        }
        let t = self.toks.get(i)?;
        let b = self.src.as_bytes();
        // Where the quote left open at the end of the token was opened.
        let (mut open, mut escaping) = (None, false);
        let from = t.start as usize;
        for (k, &c) in b.iter().enumerate().take(t.end as usize).skip(from) {
            if c == b'\\' {
                escaping = !escaping;
                continue;
            }
            if c == b'"' && !escaping {
                open = if open.is_some() { None } else { Some(k) };
            }
            escaping = false;
        }
        let start = open?;
        let line_end = b[start..].iter().position(|&c| c == b'\n' || c == b'\r').map_or(b.len(), |p| start + p);
        let line = 1 + b[..start].iter().filter(|&&c| c == b'\n').count();
        let more = b[line_end..].iter().any(|c| !c.is_ascii_whitespace());
        let d = Diagnostic::error(
            code::BAD_STRING,
            Span::new(start as u32, line_end as u32),
            format!("missing closing `\"`: the string opened on line {line} is never closed"),
        )
        .with_label("this string has no closing `\"`")
        .with_help(if more {
            "close it with `\"`: a string runs to the next `\"`, across lines, so this one takes in the rest of the text"
        } else {
            "close it with `\"`"
        });
        Some(d)
    }

    /// An empty span just after token `i` (for "found end of text").
    fn after(&self, i: usize) -> Span {
        let e = self.toks.get(i).map_or(self.src.len() as u32, |t| t.end);
        Span::new(e, e)
    }

    fn found(&self, i: usize) -> String {
        if i >= self.toks.len() {
            String::from("end of text")
        } else {
            format!("`{}`", self.text(i))
        }
    }

    fn punct_error(&self, i: usize) -> Diagnostic {
        Diagnostic::error(code::UNEXPECTED_PUNCT, self.span(i), format!("unexpected `{}`", self.text(i)))
            .with_label("not allowed here")
            .with_help("operands are separated by spaces only; `,`, `(` and `)` are not part of the syntax")
    }

    fn collect_numeric_ids(&mut self) {
        for i in 0..self.toks.len() {
            let t = self.text(i);
            if let Some(name) = t.strip_prefix('%')
                && is_valid_id_name(name)
                    && let Some(n) = parse_u32_base0(name) {
                        self.preserved.push(n);
                    }
        }
        self.preserved.sort_unstable();
        self.preserved.dedup();
    }

    fn is_preserved(&self, id: u32) -> bool {
        self.preserved.binary_search(&id).is_ok()
    }

    fn note_id(&mut self, id: u32) {
        if id >= self.bound {
            self.bound = id.saturating_add(1);
        }
    }

    /// The id a name stands for, assigning one on first sight as spirv-as does.
    fn id_of(&mut self, name: &'a str, tok: usize, define: bool) -> u32 {
        let need = if define { None } else { grammar::id_need(self.opcode, self.k, self.use_kind) };
        let opcode = self.opcode;
        if let Some(info) = self.names.get_mut(name) {
            if define {
                info.defined = true;
                info.def_opcode = opcode;
            } else if info.need.is_none() {
                info.need = need;
            }
            return info.id;
        }
        let id = match parse_u32_base0(name).filter(|n| self.preserve && self.is_preserved(*n)) {
            Some(n) => n,
            None => {
                let mut id = self.next_id;
                self.next_id = self.next_id.wrapping_add(1);
                if self.preserve {
                    while self.is_preserved(id) {
                        id = self.next_id;
                        self.next_id = self.next_id.wrapping_add(1);
                    }
                }
                id
            }
        };
        self.note_id(id);
        let def_opcode = if define { opcode } else { 0 };
        self.names.insert(name, IdInfo { id, defined: define, first_use: tok as u32, def_opcode, need });
        id
    }

    fn id_token(&mut self, i: usize, define: bool) -> Res<u32> {
        if !self.is_word(i) {
            return Err(self.punct_error(i));
        }
        let t = self.text(i);
        let Some(name) = t.strip_prefix('%') else {
            return Err(Diagnostic::error(code::EXPECTED_ID, self.span(i), format!("expected an id, found `{t}`"))
                .with_label("not an id")
                .with_help("ids are written `%name` or `%123`"));
        };
        if !is_valid_id_name(name) {
            return Err(Diagnostic::error(code::INVALID_ID, self.span(i), format!("invalid id `{t}`"))
                .with_label("bad id name")
                .with_help("an id is `%` followed by one or more ASCII letters, digits or `_`"));
        }
        let id = self.id_of(name, i, define);
        if self.want_map {
            let sp = self.span(i);
            self.id_refs.push((sp, id));
        }
        Ok(id)
    }

    fn instruction(&mut self) -> Res<()> {
        let first = self.pos;
        if !self.is_word(first) {
            return Err(self.punct_error(first));
        }
        if self.text(first).starts_with('!') {
            return self.raw_instruction();
        }
        let mut result_tok = None;
        let op_tok;
        if self.starts_with_op(first) {
            op_tok = first;
            self.pos += 1;
        } else {
            let t = self.text(first);
            if !t.starts_with('%') {
                return Err(Diagnostic::error(
                    code::EXPECTED_OPCODE,
                    self.span(first),
                    format!("expected an opcode or `%result =` at the start of an instruction, found `{t}`"),
                )
                .with_label("expected an instruction here"));
            }
            result_tok = Some(first);
            let eq = first + 1;
            if eq >= self.toks.len() || self.text(eq) != "=" {
                return Err(Diagnostic::error(
                    code::EXPECTED_EQUALS,
                    if eq >= self.toks.len() { self.after(first) } else { self.span(eq) },
                    format!("expected `=` after result id `{t}`, found {}", self.found(eq)),
                )
                .with_related(self.span(first), "result id"));
            }
            op_tok = eq + 1;
            self.pos = eq + 1;
            if op_tok >= self.toks.len() || !self.starts_with_op(op_tok) {
                return Err(Diagnostic::error(
                    code::EXPECTED_OPCODE,
                    if op_tok >= self.toks.len() { self.after(eq) } else { self.span(op_tok) },
                    format!("expected an opcode after `=`, found {}", self.found(op_tok)),
                )
                .with_label("expected an opcode `OpXxx`"));
            }
            self.pos += 1;
        }
        let op_name = self.text(op_tok);
        let Some(desc) = self.opcodes.get(op_name).and_then(|i| grammar::INSTRUCTIONS.get(i as usize)) else {
            let mut d = Diagnostic::error(code::UNKNOWN_OPCODE, self.span(op_tok), format!("unknown opcode `{op_name}`"))
                .with_label("not an opcode");
            if let Some(s) = suggest::best(op_name, grammar::INSTRUCTIONS_BY_NAME.iter().map(|(n, _)| *n)) {
                d = d.with_help(format!("did you mean `{s}`?"));
            }
            return Err(d);
        };
        if desc.has_result() && result_tok.is_none() {
            return Err(Diagnostic::error(
                code::MISSING_RESULT_ID,
                self.span(op_tok),
                format!("`{}` produces a result id, but the instruction has no `%result =`", desc.name),
            )
            .with_label("needs a result id")
            .with_help(format!("write it as `%name = {} ...`", desc.name)));
        }
        if let (false, Some(r)) = (desc.has_result(), result_tok) {
            return Err(Diagnostic::error(
                code::UNEXPECTED_RESULT_ID,
                self.span(r),
                format!("`{}` does not produce a result id, found `{}`", desc.name, self.text(r)),
            )
            .with_label("no result to name")
            .with_help(format!("remove `{} =`", self.text(r))));
        }
        self.encode_operands(desc, op_tok, result_tok)?;
        self.finish_instruction(desc, first)
    }

    /// With a source map, note that the operand about to be written (at the
    /// next word) is tokens `first..=last`.
    fn note_operand(&mut self, first: usize, last: usize) {
        self.words_from(self.words.len(), first, last);
    }

    fn words_from(&mut self, word: usize, first: usize, last: usize) {
        if self.want_map {
            let end = self.toks.get(last).map_or(self.toks[first].end, |t| t.end);
            self.operand_toks.push((word as u32, Span::new(self.toks[first].start, end)));
        }
    }

    fn push_operands(&mut self, ops: &'static [OperandDesc]) {
        for o in ops.iter().rev() {
            self.expect.push(Exp::Op { kind: o.kind, q: o.quantifier, name: o.name });
        }
    }

    fn encode_operands(&mut self, desc: &'static InstructionDesc, op_tok: usize, result_tok: Option<usize>) -> Res<()> {
        self.opcode = desc.opcode;
        self.result_type = 0;
        self.ext_set = None;
        self.words.push(0);
        self.expect.clear();
        self.k = 0;
        self.push_operands(desc.operands);
        while let Some(e) = self.expect.pop() {
            // Expand variadic operands and pairs lazily.
            if let Exp::Op { kind, q, name } = e {
                let pair = match kind {
                    OperandKind::PairLiteralIntegerIdRef => Some((OperandKind::LiteralContextDependentNumber, OperandKind::IdRef)),
                    OperandKind::PairIdRefLiteralInteger => Some((OperandKind::IdRef, OperandKind::LiteralInteger)),
                    OperandKind::PairIdRefIdRef => Some((OperandKind::IdRef, OperandKind::IdRef)),
                    _ => None,
                };
                if q == Quantifier::Variadic {
                    self.expect.push(e);
                    match pair {
                        Some((a, b)) => {
                            self.expect.push(Exp::Op { kind: b, q: Quantifier::One, name });
                            self.expect.push(Exp::Op { kind: a, q: Quantifier::Optional, name });
                        }
                        None => self.expect.push(Exp::Op { kind, q: Quantifier::Optional, name }),
                    }
                    continue;
                }
                if let Some((a, b)) = pair {
                    self.expect.push(Exp::Op { kind: b, q: Quantifier::One, name });
                    self.expect.push(Exp::Op { kind: a, q, name });
                    continue;
                }
                if kind == OperandKind::IdResult
                    && let Some(r) = result_tok {
                        let id = self.id_token(r, true)?;
                        self.note_operand(r, r);
                        self.words.push(id);
                        self.k += 1;
                        continue;
                    }
            }
            if let (Exp::ResultId, Some(r)) = (e, result_tok) {
                let id = self.id_token(r, true)?;
                self.note_operand(r, r);
                self.words.push(id);
                self.k += 1;
                continue;
            }
            let optional = matches!(e, Exp::Civ | Exp::Op { q: Quantifier::Optional, .. });
            let i = self.pos;
            if i >= self.toks.len() || self.is_inst_start(i) {
                if optional {
                    break;
                }
                let what = if i >= self.toks.len() { "end of text" } else { "the next instruction" };
                let span = self.after(i.saturating_sub(1));
                return Err(Diagnostic::error(
                    code::MISSING_OPERAND,
                    span,
                    format!("expected {} for `{}`, found {what}", describe(e), self.text(op_tok)),
                )
                .with_label("operand missing here")
                .with_related(self.span(op_tok), "instruction"));
            }
            if !self.is_word(i) {
                return Err(self.punct_error(i));
            }
            if let Some(d) = self.unclosed_string(i) {
                return Err(d);
            }
            if self.text(i).starts_with('!') {
                self.immediate(i)?;
                self.pos += 1;
                self.alternate_pattern();
                continue;
            }
            let at = self.words.len();
            self.operand(e, i)?;
            if self.words.len() > at {
                self.words_from(at, i, self.pos);
            }
            self.pos += 1;
            self.k += 1;
        }
        let _ = op_tok;
        Ok(())
    }

    /// After `!<integer>` the remaining operands are context-independent values,
    /// with the result id kept where it was.
    fn alternate_pattern(&mut self) {
        let pos = self.expect.iter().rposition(|e| matches!(e, Exp::ResultId | Exp::Op { kind: OperandKind::IdResult, .. }));
        match pos {
            Some(p) => {
                let before = self.expect.len() - 1 - p;
                self.expect.clear();
                self.expect.push(Exp::Civ);
                self.expect.push(Exp::ResultId);
                for _ in 0..before {
                    self.expect.push(Exp::Civ);
                }
            }
            None => {
                self.expect.clear();
                self.expect.push(Exp::Civ);
            }
        }
    }

    fn immediate(&mut self, i: usize) -> Res<()> {
        let t = self.text(i);
        match parse_u32_base0(&t[1..]) {
            Some(v) => {
                self.words.push(v);
                Ok(())
            }
            None => Err(Diagnostic::error(code::BAD_IMMEDIATE, self.span(i), format!("invalid immediate integer `{t}`"))
                .with_label("not a 32-bit unsigned integer")
                .with_help("`!` must be followed by a number from 0 to 0xffffffff")),
        }
    }

    fn raw_instruction(&mut self) -> Res<()> {
        let first = self.pos;
        self.immediate(first)?;
        self.pos += 1;
        while self.pos < self.toks.len() && !self.is_inst_start(self.pos) {
            let i = self.pos;
            if !self.is_word(i) {
                return Err(self.punct_error(i));
            }
            if let Some(d) = self.unclosed_string(i) {
                return Err(d);
            }
            if self.text(i) == "=" {
                return Err(Diagnostic::error(
                    code::BAD_RAW_OPERAND,
                    self.span(i),
                    format!("`{}` cannot be followed by `=`", self.text(first)),
                )
                .with_label("a raw word cannot name a result"));
            }
            if self.text(i).starts_with('!') {
                self.immediate(i)?;
            } else {
                self.civ(i)?;
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// A context-independent value: a 32-bit number, a string, or an id.
    fn civ(&mut self, i: usize) -> Res<()> {
        let t = self.text(i);
        let num = if t.contains('.') {
            parse_float(t, FloatFormat::F32).ok()
        } else if t.starts_with('-') {
            parse_int(t, 32, true).ok()
        } else {
            parse_int(t, 32, false).ok()
        };
        if let Some(v) = num {
            self.words.push(v as u32);
            return Ok(());
        }
        if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
            self.string(i);
            return Ok(());
        }
        if t.starts_with('%') {
            // Ids in raw words may well be definitions: never flag them as undefined.
            let id = self.id_token(i, true)?;
            self.words.push(id);
            return Ok(());
        }
        Err(Diagnostic::error(
            code::BAD_RAW_OPERAND,
            self.span(i),
            format!("expected a number, a string or an id after `!<integer>`, found `{t}`"),
        )
        .with_label("not a number, string or id"))
    }

    /// Encode the quoted string token `i` (checked by the caller); returns the text.
    fn string(&mut self, i: usize) -> Vec<u8> {
        let t = self.text(i).as_bytes();
        let inner = &t[1..t.len() - 1];
        let mut bytes = Vec::with_capacity(inner.len() + 1);
        let mut escaping = false;
        for &b in inner {
            if b == b'\\' && !escaping {
                escaping = true;
            } else {
                bytes.push(b);
                escaping = false;
            }
        }
        for chunk in bytes.chunks(4) {
            let mut w = [0u8; 4];
            w[..chunk.len()].copy_from_slice(chunk);
            self.words.push(u32::from_le_bytes(w));
        }
        if bytes.len() % 4 == 0 {
            self.words.push(0);
        }
        bytes
    }

    fn literal_error(&self, i: usize, e: NumError, what: &str) -> Diagnostic {
        let t = self.text(i);
        let (c, msg) = match e {
            NumError::Invalid => (code::BAD_LITERAL, format!("expected {what}, found `{t}`")),
            NumError::Negative => (code::BAD_LITERAL, format!("expected {what}, found negative number `{t}`")),
            NumError::Range => (code::BAD_LITERAL, format!("`{t}` does not fit in {what}")),
            NumError::Unsupported => (code::UNSUPPORTED_LITERAL, format!("cannot encode `{t}`: {what} literals are not supported")),
        };
        Diagnostic::error(c, self.span(i), msg).with_label("bad literal")
    }

    fn float_format(width: u32, encoding: Option<u32>) -> Option<FloatFormat> {
        let enc_name = encoding.and_then(|e| OperandKind::FPEncoding.enumerant(e)).map(|e| e.name);
        match (width, enc_name) {
            (16, Some("BFloat16KHR")) => Some(FloatFormat::BF16),
            (16, _) => Some(FloatFormat::F16),
            (32, _) => Some(FloatFormat::F32),
            (64, _) => Some(FloatFormat::F64),
            (8, Some("Float8E4M3EXT")) => Some(FloatFormat::E4M3),
            (8, Some("Float8E5M2EXT")) => Some(FloatFormat::E5M2),
            _ => None,
        }
    }

    fn typed_number(&mut self, i: usize, ty: TypeInfo) -> Res<()> {
        match ty {
            TypeInfo::Int { width, signed } => {
                // What was expected, written only for an error (a switch
                // with thousands of literals assembles without a format each).
                let v = parse_int(self.text(i), width, signed).map_err(|e| {
                    let what = format!("{} {width}-bit {} integer", if width == 8 { "an" } else { "a" }, if signed { "signed" } else { "unsigned" });
                    self.literal_error(i, e, &what)
                })?;
                self.words.push(v as u32);
                if width > 32 {
                    self.words.push((v >> 32) as u32);
                }
            }
            TypeInfo::Float { width, encoding } => {
                let Some(fmt) = Self::float_format(width, encoding) else {
                    return Err(self.literal_error(i, NumError::Unsupported, &format!("{width}-bit float")));
                };
                let v = parse_float(self.text(i), fmt).map_err(|e| self.literal_error(i, e, &format!("a {}", fmt.name())))?;
                self.words.push(v as u32);
                if fmt == FloatFormat::F64 {
                    self.words.push((v >> 32) as u32);
                }
            }
            TypeInfo::Other => {
                let t = self.text(i);
                let ty = if t.contains('.') {
                    TypeInfo::Float { width: 32, encoding: None }
                } else {
                    TypeInfo::Int { width: 32, signed: t.starts_with('-') }
                };
                return self.typed_number(i, ty);
            }
        }
        Ok(())
    }

    fn value_type(&self, value: u32) -> Option<TypeInfo> {
        self.value_types.get(value).and_then(|t| self.types.get(t))
    }

    fn operand(&mut self, e: Exp, i: usize) -> Res<()> {
        let kind = match e {
            Exp::Civ => return self.civ(i),
            Exp::ResultId => {
                let id = self.id_token(i, true)?;
                self.words.push(id);
                return Ok(());
            }
            Exp::Op { kind, .. } => kind,
        };
        match kind {
            OperandKind::IdResultType => {
                self.use_kind = kind;
                let id = self.id_token(i, false)?;
                self.result_type = id;
                self.words.push(id);
            }
            OperandKind::IdResult => {
                let id = self.id_token(i, true)?;
                self.words.push(id);
            }
            OperandKind::IdRef | OperandKind::IdScope | OperandKind::IdMemorySemantics => {
                self.use_kind = kind;
                let id = self.id_token(i, false)?;
                self.words.push(id);
                let is_ext = self.opcode == op::OpExtInst
                    || grammar::instruction(self.opcode).is_some_and(|d| d.name == "OpExtInstWithForwardRefsKHR");
                if is_ext && self.words.len() - self.ws == 4 {
                    match self.ext_sets.get(id) {
                        Some(s) => self.ext_set = Some(s),
                        None => {
                            return Err(Diagnostic::error(
                                code::NOT_EXT_INST_SET,
                                self.span(i),
                                format!("`{}` is not an extended instruction set imported by OpExtInstImport (before this use)", self.text(i)),
                            )
                            .with_label("not an OpExtInstImport result"));
                        }
                    }
                }
            }
            OperandKind::LiteralInteger => {
                let v = parse_int(self.text(i), 32, false)
                    .map_err(|e| self.literal_error(i, e, "a 32-bit unsigned integer"))?;
                self.words.push(v as u32);
            }
            OperandKind::LiteralFloat => {
                let v = parse_float(self.text(i), FloatFormat::F32).map_err(|e| self.literal_error(i, e, "a 32-bit float"))?;
                self.words.push(v as u32);
            }
            OperandKind::LiteralContextDependentNumber => {
                let ty = if self.opcode == op::OpConstant || self.opcode == op::OpSpecConstant {
                    match self.types.get(self.result_type) {
                        Some(t @ (TypeInfo::Int { .. } | TypeInfo::Float { .. })) => t,
                        _ => {
                            let name = grammar::instruction(self.opcode).map_or("OpConstant", |d| d.name);
                            let ty_tok = self.ws_token_of_result_type();
                            let mut d = Diagnostic::error(
                                code::BAD_CONSTANT_TYPE,
                                self.span(i),
                                format!("the result type of `{name}` must be a scalar integer or float type declared before it"),
                            )
                            .with_label("cannot tell how to encode this number");
                            if let Some(t) = ty_tok {
                                d = d.with_related(self.span(t), "this type");
                            }
                            return Err(d);
                        }
                    }
                } else if self.opcode == op::OpSwitch {
                    let sel = self.words.get(self.ws + 1).copied().unwrap_or(0);
                    match self.value_type(sel) {
                        Some(t @ TypeInfo::Int { .. }) => t,
                        _ => {
                            return Err(Diagnostic::error(
                                code::BAD_SWITCH_SELECTOR,
                                self.span(i),
                                "the selector of `OpSwitch` must be a value of an integer scalar type defined before it",
                            )
                            .with_label("cannot tell how to encode this case literal"));
                        }
                    }
                } else {
                    TypeInfo::Other
                };
                self.typed_number(i, ty)?;
            }
            OperandKind::LiteralString => {
                let t = self.text(i);
                if !(t.len() >= 2 && t.starts_with('"') && t.ends_with('"')) {
                    let numeric = !t.is_empty() && t.bytes().enumerate().all(|(k, b)| b.is_ascii_digit() || b == b'.' || (b == b'-' && k == 0));
                    let msg = if numeric {
                        format!("expected a string, found number `{t}`")
                    } else {
                        format!("expected a quoted string, found `{t}`")
                    };
                    return Err(Diagnostic::error(code::BAD_STRING, self.span(i), msg)
                        .with_label("not a string")
                        .with_help("strings are written in double quotes, e.g. \"main\""));
                }
                let bytes = self.string(i);
                if self.opcode == op::OpExtInstImport {
                    let name = core::str::from_utf8(&bytes).unwrap_or("");
                    let set = match grammar::ext_inst_set(name) {
                        Some(set) => Some(ExtSet::Known { set, non_semantic: name.starts_with("NonSemantic.") }),
                        None if name.starts_with("NonSemantic.") => Some(ExtSet::UnknownNonSemantic),
                        None => None,
                    };
                    let Some(set) = set else {
                        let mut d = Diagnostic::error(
                            code::UNKNOWN_EXT_INST_SET,
                            self.span(i),
                            format!("unknown extended instruction set `{name}`"),
                        )
                        .with_label("not a known set");
                        if let Some(s) = suggest::best(name, grammar::EXT_INST_SETS.iter().map(|s| s.name)) {
                            d = d.with_help(format!("did you mean `{s}`?"));
                        }
                        return Err(d);
                    };
                    if let Some(&r) = self.words.get(self.ws + 1) {
                        self.ext_sets.insert(r, set);
                    }
                }
            }
            OperandKind::LiteralExtInstInteger => self.ext_inst_name(i)?,
            OperandKind::LiteralSpecConstantOpInteger => {
                let t = self.text(i);
                let desc = SPEC_CONSTANT_OPS
                    .iter()
                    .find(|&&n| n == t)
                    .and_then(|n| grammar::instruction_by_name(&format!("Op{n}")));
                let Some(desc) = desc else {
                    let mut d = Diagnostic::error(
                        code::BAD_SPEC_CONSTANT_OP,
                        self.span(i),
                        format!("`{t}` is not an opcode OpSpecConstantOp accepts"),
                    )
                    .with_label("not allowed here");
                    let stripped = t.strip_prefix("Op").unwrap_or(t);
                    if SPEC_CONSTANT_OPS.contains(&stripped) {
                        d = d.with_help(format!("write the opcode without `Op`: `{stripped}`"));
                    } else if let Some(s) = suggest::best(t, SPEC_CONSTANT_OPS.iter().copied()) {
                        d = d.with_help(format!("did you mean `{s}`?"));
                    }
                    return Err(d);
                };
                self.words.push(desc.opcode as u32);
                self.push_operands(desc.operands.get(2..).unwrap_or(&[]));
            }
            k => match k.category() {
                Category::ValueEnum => {
                    let t = self.text(i);
                    let Some(en) = k.enumerant_by_name(t) else {
                        return Err(self.enumerant_error(k, t, i));
                    };
                    self.words.push(en.value);
                    self.push_operands(en.parameters);
                }
                Category::BitEnum => {
                    let t = self.text(i);
                    let mut value = 0u32;
                    for part in t.split('|') {
                        let Some(en) = k.enumerant_by_name(part) else {
                            return Err(self.enumerant_error(k, part, i));
                        };
                        value |= en.value;
                    }
                    self.words.push(value);
                    let mut params: Vec<OperandDesc> = Vec::new();
                    for bit in 0..32 {
                        if value & (1 << bit) != 0
                            && let Some(en) = k.enumerant(1 << bit) {
                                params.extend_from_slice(en.parameters);
                            }
                    }
                    for o in params.iter().rev() {
                        self.expect.push(Exp::Op { kind: o.kind, q: o.quantifier, name: o.name });
                    }
                }
                _ => {
                    return Err(Diagnostic::error(
                        code::BAD_LITERAL,
                        self.span(i),
                        format!("cannot encode an operand of kind {}", k.name()),
                    ));
                }
            },
        }
        Ok(())
    }

    /// The token of the result type of the current instruction, for messages.
    fn ws_token_of_result_type(&self) -> Option<usize> {
        // The result type is the first operand token after the opcode.
        let mut i = self.pos;
        while i > 0 {
            i -= 1;
            if self.starts_with_op(i) {
                return Some(i + 1);
            }
        }
        None
    }

    fn enumerant_error(&self, k: OperandKind, part: &str, i: usize) -> Diagnostic {
        let kname = k.name();
        let mut d = Diagnostic::error(
            code::UNKNOWN_ENUMERANT,
            self.span(i),
            if part.is_empty() {
                format!("expected {} {kname} name, found `{}`", article(kname), self.text(i))
            } else {
                format!("unknown {kname} `{part}`")
            },
        )
        .with_label(format!("not {} {kname}", article(kname)));
        let cands = k.desc().enumerants.iter().flat_map(|e| core::iter::once(e.name).chain(e.aliases.iter().copied()));
        if let Some(s) = suggest::best(part, cands) {
            d = d.with_help(format!("did you mean `{s}`?"));
        } else if part.bytes().all(|b| b.is_ascii_digit()) && !part.is_empty() {
            d = d.with_help(format!("{kname} operands are written by name, not by number (or use `!{part}`)"));
        }
        d
    }

    fn ext_inst_name(&mut self, i: usize) -> Res<()> {
        let t = self.text(i);
        let set = self.ext_set;
        let (known, non_semantic) = match set {
            Some(ExtSet::Known { set, non_semantic }) => (Some(set), non_semantic),
            Some(ExtSet::UnknownNonSemantic) => (None, true),
            None => (None, false),
        };
        if let Some(d) = known.and_then(|s| s.by_name(t)) {
            self.words.push(d.opcode);
            self.push_operands(d.operands);
            return Ok(());
        }
        if non_semantic {
            // Unknown instructions of non-semantic sets: a decimal number, then ids.
            let v = if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) { t.parse::<u32>().ok() } else { None };
            if let Some(v) = v {
                self.words.push(v);
                self.expect.push(Exp::Op { kind: OperandKind::IdRef, q: Quantifier::Variadic, name: "" });
                return Ok(());
            }
        }
        let set_name = known.map_or("the imported set", |s| s.name);
        let mut d = Diagnostic::error(
            code::UNKNOWN_EXT_INST,
            self.span(i),
            format!("unknown extended instruction `{t}` in {set_name}"),
        )
        .with_label("not an instruction of this set");
        if let Some(s) = known {
            if let Some(b) = suggest::best(t, s.instructions.iter().map(|d| d.name)) {
                d = d.with_help(format!("did you mean `{b}`?"));
            } else if t.bytes().all(|b| b.is_ascii_digit()) {
                d = d.with_help(format!("instructions of {} are written by name", s.name));
            }
        }
        Err(d)
    }

    fn finish_instruction(&mut self, desc: &'static InstructionDesc, first: usize) -> Res<()> {
        let ws = self.ws;
        let n = self.words.len() - ws;
        let is_type = desc.name.starts_with("OpType") && desc.has_result() && !desc.has_result_type();
        if is_type {
            let result = self.words.get(ws + 1).copied().unwrap_or(0);
            if self.types.get(result).is_some() {
                let r = if self.text(first).starts_with('%') { first } else { first + 1 };
                return Err(Diagnostic::error(
                    code::DUPLICATE_TYPE,
                    self.span(r),
                    format!("`{}` already names a type", self.text(r)),
                )
                .with_label("second type definition")
                .with_help("each type needs its own result id"));
            }
            let info = match desc.opcode {
                op::OpTypeInt => {
                    if n != 4 {
                        return Err(Diagnostic::error(code::BAD_TYPE_INSTRUCTION, self.span(first), "OpTypeInt must have exactly a width and a signedness"));
                    }
                    TypeInfo::Int { width: self.words[ws + 2], signed: self.words[ws + 3] != 0 }
                }
                op::OpTypeFloat => {
                    if n != 3 && n != 4 {
                        return Err(Diagnostic::error(code::BAD_TYPE_INSTRUCTION, self.span(first), "OpTypeFloat must have a width and at most an encoding"));
                    }
                    TypeInfo::Float { width: self.words[ws + 2], encoding: self.words.get(ws + 3).copied().filter(|_| n == 4) }
                }
                _ => TypeInfo::Other,
            };
            self.types.insert(result, info);
        } else if desc.has_result_type() && n >= 3 {
            let (ty, v) = (self.words[ws + 1], self.words[ws + 2]);
            if self.value_types.get(v).is_none() {
                self.value_types.insert(v, ty);
            }
        }
        if n > 0xffff {
            return Err(Diagnostic::error(
                code::INSTRUCTION_TOO_LONG,
                self.span(first),
                format!("instruction too long: {n} words, but the limit is 65535"),
            ));
        }
        self.words[ws] = (n as u32) << 16 | desc.opcode as u32;
        Ok(())
    }

    fn undefined_id_warnings(&self) -> Vec<Diagnostic> {
        let mut undefined: Vec<(&str, IdInfo)> = self.names.iter().filter(|(_, i)| !i.defined).collect();
        if undefined.is_empty() {
            return Vec::new();
        }
        undefined.sort_by_key(|(_, i)| i.first_use);
        let defined: Vec<(&str, u16)> = self.names.iter().filter(|(_, i)| i.defined).map(|(n, i)| (n, i.def_opcode)).collect();
        undefined
            .into_iter()
            .enumerate()
            .map(|(k, (name, info))| {
                let mut d = Diagnostic::error(code::UNDEFINED_ID, self.span(info.first_use as usize), format!("undefined id `%{name}`"))
                    .with_label("never defined by any instruction");
                d.severity = Severity::Warning;
                // Suggestions cost a scan of every name: only for the first
                // few, among the names that fit the use (a label for a branch
                // target...), and not for numbers (`%12` for `%13` is noise).
                let fits = |&&(_, def): &&(&str, u16)| info.need.is_none_or(|n| grammar::id_kind(def) == n);
                if k < 32
                    && !name.bytes().all(|b| b.is_ascii_digit())
                    && let Some(s) = suggest::best(name, defined.iter().filter(fits).map(|&(n, _)| n)) {
                        d = d.with_help(format!("did you mean `%{s}`?"));
                    }
                d
            })
            .collect()
    }
}
