//! The operand parser: walks the grammar for each instruction, with the
//! context the binary form needs (as SPIRV-Tools' binary parser does):
//!
//! * the width of OpConstant / OpSpecConstant literals, from the result type;
//! * the width of OpSwitch literals, from the selector's type;
//! * OpExtInst operands, from the imported set;
//! * OpSpecConstantOp's nested opcode operands;
//! * enumerant parameters (value enums, and each set bit of a mask in bit order);
//! * optional and variadic operands.

use super::BinaryError;
use crate::grammar::{self, fp_encoding, op, Category, ExtInstSetDesc, OperandKind, Quantifier};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// A floating-point encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FloatEnc {
    #[default]
    Ieee,
    BFloat16,
    Float8E4M3,
    Float8E5M2,
}

/// The number type of a literal (or of a scalar type id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NumType {
    /// Not a number.
    #[default]
    None,
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
        enc: FloatEnc,
    },
}

impl NumType {
    pub const U32: NumType = NumType::Int {
        width: 32,
        signed: false,
    };
    pub const F32: NumType = NumType::Float {
        width: 32,
        enc: FloatEnc::Ieee,
    };

    pub fn width(self) -> u32 {
        match self {
            NumType::None => 0,
            NumType::Int { width, .. } | NumType::Float { width, .. } => width,
        }
    }
}

/// One operand of a parsed instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedOperand {
    pub kind: OperandKind,
    /// Index of the first word in the instruction's operand words.
    pub start: u32,
    /// Number of words.
    pub len: u32,
    /// For literal numbers: how to read them.
    pub num: NumType,
}

/// What an OpExtInstImport imported.
#[derive(Clone, Copy, Debug, Default)]
pub enum ExtSet {
    /// Not an import (or not seen yet).
    #[default]
    None,
    Known(&'static ExtInstSetDesc),
    /// A `NonSemantic.*` set we have no grammar for: operands are ids.
    NonSemanticUnknown,
    /// Any other unknown set (an error).
    Unknown,
}

/// Sets the grammar tables hold but SPIRV-Tools v2025.5 does not know
/// (we follow v2025.5: the NonSemantic ones print their operands as ids).
const NOT_IN_REFERENCE: &[&str] = &[
    "NonSemantic.DebugPrintf",
    "NonSemantic.DebugBreak",
    "NonSemantic.Graph.DebugInfo",
    "NonSemantic.Shader.DebugInfo",
    "Arm.ExperimentalMLOperations",
];

/// The extended instruction set for an import name.
pub fn ext_set_for_import(name: &str) -> ExtSet {
    if !NOT_IN_REFERENCE.contains(&name)
        && let Some(s) = grammar::ext_inst_set(name)
    {
        return ExtSet::Known(s);
    }
    if name.starts_with("NonSemantic.") {
        ExtSet::NonSemanticUnknown
    } else {
        ExtSet::Unknown
    }
}

const DENSE_CAP: usize = 1 << 22;

/// An id-indexed map: dense up to the bound (capped), sparse beyond.
#[derive(Clone, Debug, Default)]
pub struct IdMap<T: Copy + Default> {
    dense: Vec<T>,
    sparse: BTreeMap<u32, T>,
}

impl<T: Copy + Default> IdMap<T> {
    pub fn new(bound: u32) -> Self {
        let n = (bound as usize).min(DENSE_CAP);
        IdMap {
            dense: alloc::vec![T::default(); n],
            sparse: BTreeMap::new(),
        }
    }

    #[inline]
    pub fn get(&self, id: u32) -> T {
        match self.dense.get(id as usize) {
            Some(v) => *v,
            None => self.sparse.get(&id).copied().unwrap_or_default(),
        }
    }

    #[inline]
    pub fn set(&mut self, id: u32, v: T) {
        *self.slot(id) = v;
    }

    /// The entry of `id`, to read and write in one look-up (the default if unset).
    #[inline]
    pub fn slot(&mut self, id: u32) -> &mut T {
        match self.dense.get_mut(id as usize) {
            Some(slot) => slot,
            None => self.sparse.entry(id).or_default(),
        }
    }
}

/// What the parser knows of one id, from the instructions before.
#[derive(Clone, Copy, Debug, Default)]
struct IdInfo {
    defined: bool,
    /// For a scalar type id: its number type.
    num: NumType,
    /// For a value id: its result type (0: none).
    value_type: u32,
    /// For an OpExtInstImport id: index + 1 in `OperandParser::sets` (0: not one).
    set: u32,
}

/// The operand parser, carrying the context built from earlier instructions.
#[derive(Clone, Debug)]
pub struct OperandParser {
    /// By id: defined yet, number type, result type, imported set (one map,
    /// one look-up per result id).
    ids: IdMap<IdInfo>,
    /// Imported extended instruction sets (indexed from [`IdInfo::set`]).
    sets: Vec<ExtSet>,
    /// Operands still to read that an operand brought (enumerant parameters,
    /// pairs, an extended instruction's operands), the next one last.
    stack: Vec<(OperandKind, Quantifier)>,
}

fn has_zero_byte(w: u32) -> bool {
    w & 0xff == 0 || w & 0xff00 == 0 || w & 0xff_0000 == 0 || w & 0xff00_0000 == 0
}

fn float_enc(encoding: u32) -> FloatEnc {
    match encoding {
        fp_encoding::BFloat16KHR => FloatEnc::BFloat16,
        fp_encoding::Float8E4M3EXT => FloatEnc::Float8E4M3,
        fp_encoding::Float8E5M2EXT => FloatEnc::Float8E5M2,
        _ => FloatEnc::Ieee,
    }
}

/// Opcodes below this have their grammar entry and [`Shape`] found by [`SHAPES`].
const DESC_DIRECT: usize = 1024;

/// What the parser needs of an opcode's grammar entry beyond its operand
/// list, computed from the grammar at compile time.
#[derive(Clone, Copy)]
struct Shape {
    /// Index + 1 in `grammar::INSTRUCTIONS` (0: none; only in [`SHAPES`]).
    desc: u16,
    /// How many leading operands are one-word ids or literal integers.
    simple: u8,
    /// How many leading operands hold every `One` operand.
    required: u8,
    /// Whether the last operand is variadic.
    variadic: bool,
    /// The word of the result id (1 after a result type, else 0), for an
    /// instruction that defines one.
    result: Option<u8>,
    /// Whether the result type comes first.
    result_type: bool,
    /// A type declaration: class Type-Declaration, a result id, no result type.
    type_decl: bool,
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl Shape {
    const NONE: Shape = Shape {
        desc: 0,
        simple: 0,
        required: 0,
        variadic: false,
        result: None,
        result_type: false,
        type_decl: false,
    };

    const fn of(d: &grammar::InstructionDesc) -> Shape {
        use OperandKind as K;
        let ops = d.operands;
        let mut simple = 0;
        while simple < ops.len()
            && matches!(
                ops[simple].kind,
                K::IdRef
                    | K::IdResult
                    | K::IdResultType
                    | K::IdScope
                    | K::IdMemorySemantics
                    | K::LiteralInteger
            )
        {
            simple += 1;
        }
        let mut required = 0;
        let mut i = 0;
        while i < ops.len() {
            if matches!(ops[i].quantifier, Quantifier::One) {
                required = i + 1;
            }
            i += 1;
        }
        let result_type = !ops.is_empty() && matches!(ops[0].kind, K::IdResultType);
        let at = if result_type { 1 } else { 0 };
        let result = if at < ops.len() && matches!(ops[at].kind, K::IdResult) {
            Some(at as u8)
        } else {
            None
        };
        // The IR takes the first IdResult of the first two operands as the
        // result: the same one, for every instruction of the grammar.
        let mut k = 0;
        while k < 2 && k < ops.len() {
            if matches!(ops[k].kind, K::IdResult) && k != at {
                panic!("an IdResult not where the parser looks for it");
            }
            k += 1;
        }
        assert!(ops.len() < 256);
        Shape {
            desc: 0,
            simple: simple as u8,
            required: required as u8,
            variadic: !ops.is_empty()
                && matches!(ops[ops.len() - 1].quantifier, Quantifier::Variadic),
            result,
            result_type,
            type_decl: str_eq(d.class, "Type-Declaration") && result.is_some() && !result_type,
        }
    }

    /// Whether `n` operand words are all one-word ids or literal integers,
    /// each in its place in the grammar's `count` operands (the last one maybe
    /// repeated), with none the grammar requires missing: what the walk
    /// gives them, without its stack.
    #[inline]
    fn simple_fits(self, n: usize, count: usize) -> bool {
        n >= self.required as usize
            && (n <= count || self.variadic)
            && n.min(count) <= self.simple as usize
    }
}

/// The [`Shape`] of each opcode below [`DESC_DIRECT`], computed at compile time.
static SHAPES: [Shape; DESC_DIRECT] = {
    let mut t = [Shape::NONE; DESC_DIRECT];
    let all = grammar::INSTRUCTIONS;
    let mut i = 0;
    while i < all.len() {
        // Every entry's shape, so that the checks in `Shape::of` cover them all.
        let s = Shape::of(&all[i]);
        let op = all[i].opcode as usize;
        if op < DESC_DIRECT && t[op].desc == 0 {
            t[op] = Shape {
                desc: i as u16 + 1,
                ..s
            };
        }
        i += 1;
    }
    t
};

/// An opcode's grammar entry and shape.
#[inline(always)]
fn shape(opcode: u16) -> Option<(&'static grammar::InstructionDesc, Shape)> {
    match SHAPES.get(opcode as usize) {
        Some(s) => Some((
            grammar::INSTRUCTIONS.get((s.desc as usize).wrapping_sub(1))?,
            *s,
        )),
        None => grammar::instruction(opcode).map(|d| (d, Shape::of(d))),
    }
}

/// [`grammar::instruction`], by a table for the core opcodes (no bisection).
#[inline]
pub fn instruction_desc(opcode: u16) -> Option<&'static grammar::InstructionDesc> {
    match SHAPES.get(opcode as usize) {
        Some(s) => grammar::INSTRUCTIONS.get((s.desc as usize).wrapping_sub(1)),
        None => grammar::instruction(opcode),
    }
}

/// Whether `opcode` declares a type: grammar class Type-Declaration, with a
/// result id and no result type.
pub(crate) fn declares_type(opcode: u16) -> bool {
    shape(opcode).is_some_and(|(_, s)| s.type_decl)
}

/// The bytes of a literal string (up to the first NUL).
pub fn string_bytes(words: &[u32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(words.len() * 4);
    'outer: for &w in words {
        for b in w.to_le_bytes() {
            if b == 0 {
                break 'outer;
            }
            bytes.push(b);
        }
    }
    bytes
}

/// A literal string's words: its bytes little-endian within each word, then
/// a NUL (a whole word of them when the length is a multiple of 4).
pub fn encode_string(s: &str) -> Vec<u32> {
    let bytes = s.as_bytes();
    let mut words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    if bytes.len() % 4 == 0 {
        words.push(0);
    }
    words
}

/// Decode a literal string from words (bytes up to the first NUL, little-endian
/// within each word). Invalid UTF-8 is replaced.
pub fn decode_string(words: &[u32]) -> String {
    let bytes = string_bytes(words);
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The operands of `n` words that [`Shape::simple_fits`] the grammar's `ops`.
#[inline]
fn push_simple(ops: &[grammar::OperandDesc], n: usize, out: &mut Vec<ParsedOperand>) {
    let last = ops.len().wrapping_sub(1);
    out.extend((0..n).map(|i| {
        let kind = ops[i.min(last)].kind;
        let num = if kind == OperandKind::LiteralInteger {
            NumType::U32
        } else {
            NumType::None
        };
        ParsedOperand {
            kind,
            start: i as u32,
            len: 1,
            num,
        }
    }));
}

/// [`OperandKind::enumerant`], first trying the few enumerants at and just
/// below index `value` (most kinds number theirs from 0, with few gaps).
#[inline]
fn enumerant(kind: OperandKind, value: u32) -> Option<&'static grammar::EnumerantDesc> {
    let e = kind.desc().enumerants;
    let mut i = (value as usize).min(e.len().wrapping_sub(1));
    let mut steps = 0;
    while steps < 4 && i > 0 && e.get(i).is_some_and(|d| d.value > value) {
        i -= 1;
        steps += 1;
    }
    match e.get(i) {
        // Sorted by value: the first with this value when the one before is less.
        Some(d) if d.value == value && (i == 0 || e[i - 1].value < value) => Some(d),
        _ => kind.enumerant(value),
    }
}

impl OperandParser {
    /// A parser for a module with this id bound.
    pub fn new(bound: u32) -> OperandParser {
        OperandParser {
            ids: IdMap::new(bound),
            sets: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The number type of a type id seen so far.
    pub fn num_type(&self, type_id: u32) -> NumType {
        self.ids.get(type_id).num
    }

    /// The result type of a value id seen so far (0 if none).
    pub fn type_of(&self, id: u32) -> u32 {
        self.ids.get(id).value_type
    }

    /// The set an OpExtInstImport id imported.
    pub fn ext_set(&self, id: u32) -> ExtSet {
        match self.ids.get(id).set {
            0 => ExtSet::None,
            k => self.sets[k as usize - 1],
        }
    }

    /// Parse one instruction's operand words (`words` excludes the first word;
    /// `offset` is the instruction's word offset, for errors), filling `out`.
    /// The context is updated when the instruction parses.
    pub fn parse(
        &mut self,
        opcode: u16,
        words: &[u32],
        offset: usize,
        out: &mut Vec<ParsedOperand>,
    ) -> Result<(), BinaryError> {
        out.clear();
        self.parse_append(opcode, words, offset, out).map(|_| ())
    }

    /// [`parse`](Self::parse), appending the operands to `out` (on an error,
    /// part of them may be there); gives the result id, for an instruction
    /// that defines one.
    pub fn parse_append(
        &mut self,
        opcode: u16,
        words: &[u32],
        offset: usize,
        out: &mut Vec<ParsedOperand>,
    ) -> Result<Option<u32>, BinaryError> {
        let (desc, shape) = shape(opcode).ok_or(BinaryError::UnknownOpcode { offset, opcode })?;
        if shape.simple_fits(words.len(), desc.operands.len()) {
            push_simple(desc.operands, words.len(), out);
        } else if !self.walk_words(opcode, desc.operands, words, out) {
            self.walk_all(opcode, desc.operands, words, offset, out)?;
        }
        // What a type declaration or an import tells later instructions.
        let record = matches!(
            opcode,
            op::OpTypeInt | op::OpTypeFloat | op::OpExtInstImport
        );
        // Parsed: the result id is a word of its own at its place.
        let Some(at) = shape.result else {
            if record {
                self.record(opcode, words);
            }
            return Ok(None);
        };
        let id = words[at as usize];
        let operand = offset + 1 + at as usize;
        if id == 0 {
            return Err(BinaryError::ZeroResultId {
                offset,
                opcode,
                operand,
            });
        }
        let info = self.ids.slot(id);
        if info.defined {
            return Err(BinaryError::IdRedefined {
                offset,
                opcode,
                operand,
                id,
            });
        }
        info.defined = true;
        if shape.result_type {
            info.value_type = words[0];
        }
        if record {
            self.record(opcode, words);
        }
        Ok(Some(id))
    }

    /// What the walk gives operands of one word each, where they are all
    /// ids, literal integers, 32-bit constant values, and enumerants whose
    /// parameters are such words (`Offset 4`, `BuiltIn GlobalInvocationId`,
    /// `LocalSize 1 1 1`), and no required operand is missing: without the
    /// walk's stack. False, with `out` as it was, for anything else (a string,
    /// a pair, a wider number, an operand the walk would reject), which
    /// [`OperandParser::walk_all`] reads.
    #[inline]
    pub(super) fn walk_words(&self, opcode: u16, ops: &[grammar::OperandDesc], words: &[u32], out: &mut Vec<ParsedOperand>) -> bool {
        let start = out.len();
        let ok = self.walk_words_into(opcode, ops, words, out);
        if !ok {
            out.truncate(start);
        }
        ok
    }

    fn walk_words_into(&self, opcode: u16, ops: &[grammar::OperandDesc], words: &[u32], out: &mut Vec<ParsedOperand>) -> bool {
        let n = words.len();
        let mut i = 0usize;
        let mut next = 0usize;
        while i < n {
            let Some(d) = ops.get(next) else { return false };
            if d.quantifier != Quantifier::Variadic {
                next += 1;
            }
            let Some(params) = self.one_word(opcode, d.kind, words, i, out) else { return false };
            i += 1;
            // The enumerant's parameters, in order, each one word and no enumerant's
            // own parameters.
            for p in params {
                if p.quantifier != Quantifier::One || i >= n {
                    return false;
                }
                match self.one_word(opcode, p.kind, words, i, out) {
                    Some([]) => i += 1,
                    _ => return false,
                }
            }
        }
        // The walk's missing-operand test: the next operand of the grammar.
        !matches!(ops.get(next), Some(o) if o.quantifier == Quantifier::One)
    }

    /// Operand word `i` as `kind`, pushed to `out` as the walk does; the
    /// parameters its enumerant brings. `None` where the walk does more.
    #[inline]
    fn one_word(
        &self,
        opcode: u16,
        kind: OperandKind,
        words: &[u32],
        i: usize,
        out: &mut Vec<ParsedOperand>,
    ) -> Option<&'static [grammar::OperandDesc]> {
        use OperandKind as K;
        let w = words[i];
        let mut params: &'static [grammar::OperandDesc] = &[];
        let num = match kind {
            K::IdRef | K::IdResult | K::IdResultType | K::IdScope | K::IdMemorySemantics => NumType::None,
            K::LiteralInteger => NumType::U32,
            K::LiteralContextDependentNumber if matches!(opcode, op::OpConstant | op::OpSpecConstant) => {
                match self.num_type(words[0]) {
                    NumType::None => return None,
                    num if num.width() <= 32 => num,
                    _ => return None,
                }
            }
            _ => match kind.category() {
                Category::ValueEnum => {
                    params = enumerant(kind, w)?.parameters;
                    NumType::None
                }
                Category::BitEnum => {
                    let mut bits = w;
                    while bits != 0 {
                        let bit = bits & bits.wrapping_neg();
                        bits &= !bit;
                        if !kind.enumerant(bit)?.parameters.is_empty() {
                            return None;
                        }
                    }
                    NumType::None
                }
                _ => return None,
            },
        };
        out.push(ParsedOperand {
            kind,
            start: i as u32,
            len: 1,
            num,
        });
        Some(params)
    }

    /// The operands by the walk (the grammar's `ops`, with the operands they
    /// bring), all the words read and no required operand missing.
    #[inline(never)]
    pub(super) fn walk_all(
        &mut self,
        opcode: u16,
        ops: &[grammar::OperandDesc],
        words: &[u32],
        offset: usize,
        out: &mut Vec<ParsedOperand>,
    ) -> Result<(), BinaryError> {
        let mut stack = core::mem::take(&mut self.stack);
        stack.clear();
        let r = self.walk(opcode, ops, words, offset, out, &mut stack);
        self.stack = stack;
        match r? {
            Some((kind, Quantifier::One)) => Err(BinaryError::MissingOperand {
                offset,
                opcode,
                operand: offset + 1 + words.len(),
                kind,
            }),
            _ => Ok(()),
        }
    }

    /// What a type declaration or an import tells later instructions.
    #[inline(never)]
    fn record(&mut self, opcode: u16, words: &[u32]) {
        match opcode {
            op::OpTypeInt => {
                if let [id, width, signed, ..] = *words {
                    self.ids.slot(id).num = NumType::Int {
                        width,
                        signed: signed != 0,
                    };
                }
            }
            op::OpTypeFloat => {
                if let [id, width, ..] = *words {
                    let enc = words.get(2).map_or(FloatEnc::Ieee, |&e| float_enc(e));
                    self.ids.slot(id).num = NumType::Float { width, enc };
                }
            }
            op::OpExtInstImport => {
                if let [id, ref name @ ..] = *words {
                    let n = decode_string(name);
                    self.sets.push(ext_set_for_import(&n));
                    self.ids.slot(id).set = self.sets.len() as u32;
                }
            }
            _ => {}
        }
    }

    /// Walk the operands after `ops` (the grammar's list) and the operands
    /// they bring (on `stack`, which starts empty); gives the next operand
    /// left unread, if any.
    fn walk(
        &mut self,
        opcode: u16,
        ops: &[grammar::OperandDesc],
        words: &[u32],
        offset: usize,
        out: &mut Vec<ParsedOperand>,
        stack: &mut Vec<(OperandKind, Quantifier)>,
    ) -> Result<Option<(OperandKind, Quantifier)>, BinaryError> {
        use OperandKind as K;
        let n = words.len();
        let mut i = 0usize;
        // The grammar's operands not taken yet are `ops[next..]`, read after
        // `stack`; a variadic one stays (on the stack, or as `next`).
        let mut next = 0usize;
        while i < n {
            let at = offset + 1 + i;
            let kind = match stack.pop() {
                Some(top) => {
                    if top.1 == Quantifier::Variadic {
                        stack.push(top);
                    }
                    top.0
                }
                None => match ops.get(next) {
                    Some(o) => {
                        if o.quantifier != Quantifier::Variadic {
                            next += 1;
                        }
                        o.kind
                    }
                    None => {
                        return Err(BinaryError::ExtraWords {
                            offset,
                            opcode,
                            operand: at,
                            word_count: n + 1,
                        });
                    }
                },
            };
            match kind {
                K::PairLiteralIntegerIdRef => {
                    stack.push((K::IdRef, Quantifier::One));
                    let lit = if opcode == op::OpSwitch {
                        K::LiteralContextDependentNumber
                    } else {
                        K::LiteralInteger
                    };
                    stack.push((lit, Quantifier::One));
                    continue;
                }
                K::PairIdRefLiteralInteger => {
                    stack.push((K::LiteralInteger, Quantifier::One));
                    stack.push((K::IdRef, Quantifier::One));
                    continue;
                }
                K::PairIdRefIdRef => {
                    stack.push((K::IdRef, Quantifier::One));
                    stack.push((K::IdRef, Quantifier::One));
                    continue;
                }
                _ => {}
            }
            let w = words[i];
            let mut len = 1usize;
            let mut num = NumType::None;
            match kind {
                K::LiteralString => {
                    let mut j = i;
                    loop {
                        match words.get(j) {
                            None => {
                                return Err(BinaryError::UnterminatedString {
                                    offset,
                                    opcode,
                                    operand: at,
                                });
                            }
                            Some(&x) if has_zero_byte(x) => break,
                            Some(_) => j += 1,
                        }
                    }
                    len = j - i + 1;
                    if opcode == op::OpExtInstImport {
                        let name = decode_string(&words[i..=j]);
                        if let ExtSet::Unknown = ext_set_for_import(&name) {
                            return Err(BinaryError::UnknownExtInstImport {
                                offset,
                                operand: at,
                                name,
                            });
                        }
                    }
                }
                K::LiteralContextDependentNumber => {
                    let type_id = match opcode {
                        op::OpConstant | op::OpSpecConstant => words[0],
                        op::OpSwitch => self.type_of(words[0]),
                        _ => 0,
                    };
                    num = if type_id == 0
                        && opcode != op::OpConstant
                        && opcode != op::OpSpecConstant
                        && opcode != op::OpSwitch
                    {
                        NumType::U32
                    } else {
                        self.num_type(type_id)
                    };
                    if opcode == op::OpSwitch && !matches!(num, NumType::Int { .. }) {
                        num = NumType::None;
                    }
                    if num == NumType::None {
                        return Err(BinaryError::BadLiteralType {
                            offset,
                            opcode,
                            operand: at,
                            type_id,
                        });
                    }
                    len = (num.width().div_ceil(32) as usize).max(1);
                    if i + len > n {
                        return Err(BinaryError::MissingOperand {
                            offset,
                            opcode,
                            operand: at,
                            kind,
                        });
                    }
                }
                K::LiteralInteger => num = NumType::U32,
                K::LiteralFloat => num = NumType::F32,
                K::LiteralExtInstInteger => {
                    let set_id = if i > 0 { words[i - 1] } else { 0 };
                    match self.ext_set(set_id) {
                        ExtSet::Known(set) => match set.by_opcode(w) {
                            Some(d) => {
                                for o in d.operands.iter().rev() {
                                    stack.push((o.kind, o.quantifier));
                                }
                            }
                            None => {
                                if set.name.starts_with("NonSemantic.") {
                                    stack.push((K::IdRef, Quantifier::Variadic));
                                } else {
                                    return Err(BinaryError::BadExtInst {
                                        offset,
                                        opcode,
                                        operand: at,
                                        number: w,
                                    });
                                }
                            }
                        },
                        ExtSet::NonSemanticUnknown => stack.push((K::IdRef, Quantifier::Variadic)),
                        ExtSet::None | ExtSet::Unknown => {
                            return Err(BinaryError::BadExtInstSet {
                                offset,
                                opcode,
                                operand: at - 1,
                                set_id,
                            });
                        }
                    }
                }
                K::LiteralSpecConstantOpInteger => {
                    let nested = u16::try_from(w).ok().and_then(grammar::instruction);
                    match nested {
                        Some(d) if d.has_result_type() && d.has_result() => {
                            for o in d.operands.iter().skip(2).rev() {
                                stack.push((o.kind, o.quantifier));
                            }
                        }
                        _ => {
                            return Err(BinaryError::BadSpecConstantOp {
                                offset,
                                operand: at,
                                opcode: w,
                            });
                        }
                    }
                }
                _ => {
                    let bad_enumerant =
                        || BinaryError::BadEnumerant { offset, opcode, operand: at, kind, value: w };
                    match kind.category() {
                        Category::ValueEnum => match enumerant(kind, w) {
                            Some(e) => {
                                for o in e.parameters.iter().rev() {
                                    stack.push((o.kind, o.quantifier));
                                }
                            }
                            None => return Err(bad_enumerant()),
                        },
                        Category::BitEnum => {
                            // Validate every bit first, then push the parameters so
                            // that the lowest bit's come first.
                            let mut bits = w;
                            while bits != 0 {
                                let bit = bits & bits.wrapping_neg();
                                bits &= !bit;
                                if kind.enumerant(bit).is_none() {
                                    return Err(bad_enumerant());
                                }
                            }
                            // The set bits only, highest first.
                            let mut rest = w;
                            while rest != 0 {
                                let bit = 1u32 << (31 - rest.leading_zeros());
                                rest &= !bit;
                                if let Some(e) = kind.enumerant(bit) {
                                    for o in e.parameters.iter().rev() {
                                        stack.push((o.kind, o.quantifier));
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            out.push(ParsedOperand {
                kind,
                start: i as u32,
                len: len as u32,
                num,
            });
            i += len;
        }
        Ok(stack
            .last()
            .copied()
            .or_else(|| ops.get(next).map(|o| (o.kind, o.quantifier))))
    }
}
