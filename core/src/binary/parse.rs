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

    pub fn get(&self, id: u32) -> T {
        match self.dense.get(id as usize) {
            Some(v) => *v,
            None => self.sparse.get(&id).copied().unwrap_or_default(),
        }
    }

    pub fn set(&mut self, id: u32, v: T) {
        match self.dense.get_mut(id as usize) {
            Some(slot) => *slot = v,
            None => {
                self.sparse.insert(id, v);
            }
        }
    }
}


/// The operand parser, carrying the context built from earlier instructions.
#[derive(Clone, Debug)]
pub struct OperandParser {
    /// Number types of scalar type ids.
    types: IdMap<NumType>,
    /// The result type of each value id.
    value_types: IdMap<u32>,
    /// Imported extended instruction sets.
    ext_sets: IdMap<ExtSet>,
    /// Ids defined so far.
    defined: IdMap<bool>,
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

/// Opcodes below this have their grammar entry found by [`DESC_INDEX`].
const DESC_DIRECT: usize = 1024;

/// Index + 1 in `grammar::INSTRUCTIONS` of each opcode below
/// [`DESC_DIRECT`] (0: none), computed at compile time.
static DESC_INDEX: [u16; DESC_DIRECT] = {
    let mut t = [0u16; DESC_DIRECT];
    let all = grammar::INSTRUCTIONS;
    let mut i = 0;
    while i < all.len() {
        let op = all[i].opcode as usize;
        if op < DESC_DIRECT && t[op] == 0 {
            t[op] = i as u16 + 1;
        }
        i += 1;
    }
    t
};

/// [`grammar::instruction`], by a table for the core opcodes (no bisection).
#[inline]
pub fn instruction_desc(opcode: u16) -> Option<&'static grammar::InstructionDesc> {
    match DESC_INDEX.get(opcode as usize) {
        Some(0) => None,
        Some(&k) => grammar::INSTRUCTIONS.get(k as usize - 1),
        None => grammar::instruction(opcode),
    }
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

/// Decode a literal string from words (bytes up to the first NUL, little-endian
/// within each word). Invalid UTF-8 is replaced.
pub fn decode_string(words: &[u32]) -> String {
    let bytes = string_bytes(words);
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The operands of an instruction whose words are all one-word ids or
/// literal integers, each in its place in the grammar's list (the last one
/// maybe repeated), with no operand the grammar requires missing: what
/// [`OperandParser::walk`] gives them, without its stack. False (and `out`
/// to be cleared) for any other instruction, which the walk then parses.
fn walk_simple(desc: &grammar::InstructionDesc, words: &[u32], out: &mut Vec<ParsedOperand>) -> bool {
    use OperandKind as K;
    let ops = desc.operands;
    let (n, k) = (words.len(), ops.len());
    match ops.last() {
        None => return n == 0,
        Some(last) if n > k && last.quantifier != Quantifier::Variadic => return false,
        _ => {}
    }
    if n < k && ops[n..].iter().any(|o| o.quantifier == Quantifier::One) {
        return false;
    }
    for i in 0..n {
        let kind = ops[i.min(k - 1)].kind;
        let num = match kind {
            K::IdRef | K::IdResult | K::IdResultType | K::IdScope | K::IdMemorySemantics => NumType::None,
            K::LiteralInteger => NumType::U32,
            _ => return false,
        };
        out.push(ParsedOperand { kind, start: i as u32, len: 1, num });
    }
    true
}

impl OperandParser {
    /// A parser for a module with this id bound.
    pub fn new(bound: u32) -> OperandParser {
        OperandParser {
            types: IdMap::new(bound),
            value_types: IdMap::new(bound),
            ext_sets: IdMap::new(bound.min(4096)),
            defined: IdMap::new(bound),
            stack: Vec::new(),
        }
    }

    /// The number type of a type id seen so far.
    pub fn num_type(&self, type_id: u32) -> NumType {
        self.types.get(type_id)
    }

    /// The result type of a value id seen so far (0 if none).
    pub fn type_of(&self, id: u32) -> u32 {
        self.value_types.get(id)
    }

    /// The set an OpExtInstImport id imported.
    pub fn ext_set(&self, id: u32) -> ExtSet {
        self.ext_sets.get(id)
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
        let desc =
            instruction_desc(opcode).ok_or(BinaryError::UnknownOpcode { offset, opcode })?;
        if !walk_simple(desc, words, out) {
            out.clear();
            let mut stack = core::mem::take(&mut self.stack);
            stack.clear();
            for o in desc.operands.iter().rev() {
                stack.push((o.kind, o.quantifier));
            }
            let r = self.walk(opcode, words, offset, out, &mut stack);
            let top = stack.last().copied();
            self.stack = stack;
            r?;
            if let Some((kind, Quantifier::One)) = top {
                return Err(BinaryError::MissingOperand {
                    offset,
                    opcode,
                    operand: offset + 1 + words.len(),
                    kind,
                });
            }
        }
        let result = if desc.has_result_type() {
            out.get(1)
        } else {
            out.first()
        };
        if let Some(r) = result.filter(|o| o.kind == OperandKind::IdResult) {
            let id = words[r.start as usize];
            let at = offset + 1 + r.start as usize;
            if id == 0 {
                return Err(BinaryError::ZeroResultId {
                    offset,
                    opcode,
                    operand: at,
                });
            }
            if self.defined.get(id) {
                return Err(BinaryError::IdRedefined {
                    offset,
                    opcode,
                    operand: at,
                    id,
                });
            }
            self.defined.set(id, true);
        }
        self.record(opcode, desc, words);
        Ok(())
    }

    fn record(&mut self, opcode: u16, desc: &grammar::InstructionDesc, words: &[u32]) {
        match opcode {
            op::OpTypeInt => {
                if let [id, width, signed, ..] = *words {
                    self.types.set(
                        id,
                        NumType::Int {
                            width,
                            signed: signed != 0,
                        },
                    );
                }
            }
            op::OpTypeFloat => {
                if let [id, width, ..] = *words {
                    let enc = words.get(2).map_or(FloatEnc::Ieee, |&e| float_enc(e));
                    self.types.set(id, NumType::Float { width, enc });
                }
            }
            op::OpExtInstImport => {
                if let [id, ref name @ ..] = *words {
                    let n = decode_string(name);
                    self.ext_sets.set(id, ext_set_for_import(&n));
                }
            }
            _ => {}
        }
        if desc.has_result_type()
            && desc.has_result()
            && let [ty, id, ..] = *words
        {
            self.value_types.set(id, ty);
        }
    }

    fn walk(
        &mut self,
        opcode: u16,
        words: &[u32],
        offset: usize,
        out: &mut Vec<ParsedOperand>,
        stack: &mut Vec<(OperandKind, Quantifier)>,
    ) -> Result<(), BinaryError> {
        use OperandKind as K;
        let n = words.len();
        let mut i = 0usize;
        while i < n {
            let at = offset + 1 + i;
            let Some((kind, q)) = stack.pop() else {
                return Err(BinaryError::ExtraWords {
                    offset,
                    opcode,
                    operand: at,
                    word_count: n + 1,
                });
            };
            if q == Quantifier::Variadic {
                stack.push((kind, Quantifier::Variadic));
            }
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
                        op::OpSwitch => self.value_types.get(words[0]),
                        _ => 0,
                    };
                    num = if type_id == 0
                        && opcode != op::OpConstant
                        && opcode != op::OpSpecConstant
                        && opcode != op::OpSwitch
                    {
                        NumType::U32
                    } else {
                        self.types.get(type_id)
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
                    match self.ext_sets.get(set_id) {
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
                        Category::ValueEnum => match kind.enumerant(w) {
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
        Ok(())
    }
}
