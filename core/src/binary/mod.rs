//! The binary reader and writer.
//!
//! * [`read_bytes`] / [`read_words`]: header and instruction framing, then the
//!   grammar check of every known instruction's operands ([`parse::OperandParser`]).
//!   Unknown opcodes are kept as raw instructions.
//! * [`read_words_framing`]: framing only (what the disassembler needs: it prints
//!   operand-level problems as comments rather than failing).
//! * [`write_words`] / [`to_bytes`]: the module back to words / little-endian bytes.

pub mod parse;

use crate::diag::{Diagnostic, Span};
use crate::grammar::{MAGIC_NUMBER, OperandKind, VERSION_MAJOR, VERSION_MINOR};
use crate::module::{Header, Instruction, Module, Operands};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub use parse::{NumType, OperandParser, ParsedOperand};

/// Why a binary was rejected. Offsets are word offsets into the binary (the
/// header is words 0 to 4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinaryError {
    /// The byte length is not a multiple of 4.
    ByteLength { len: usize },
    /// Fewer than 5 words.
    TruncatedHeader { words: usize },
    /// The first word is not the SPIR-V magic number in either byte order.
    BadMagic { found: u32 },
    /// The version word is not `0x00MMmm00` for a SPIR-V version from 1.0 to
    /// the grammar's (1.6), as the reference requires.
    BadVersion { version: u32 },
    /// An instruction's word count is 0.
    ZeroWordCount { offset: usize, opcode: u16 },
    /// An instruction's word count runs past the end of the binary.
    TruncatedInstruction {
        offset: usize,
        opcode: u16,
        word_count: usize,
        available: usize,
    },
    /// An opcode the grammar does not know (only from the operand check;
    /// the reader keeps such instructions).
    UnknownOpcode { offset: usize, opcode: u16 },
    /// A literal string is not terminated within the instruction.
    UnterminatedString {
        offset: usize,
        opcode: u16,
        operand: usize,
    },
    /// A required operand is missing (the instruction ended too early).
    MissingOperand {
        offset: usize,
        opcode: u16,
        operand: usize,
        kind: OperandKind,
    },
    /// Words are left after the last operand the grammar allows.
    ExtraWords {
        offset: usize,
        opcode: u16,
        operand: usize,
        word_count: usize,
    },
    /// An enumerant value (or mask bit) not in the grammar.
    BadEnumerant {
        offset: usize,
        opcode: u16,
        operand: usize,
        kind: OperandKind,
        value: u32,
    },
    /// A context-dependent literal whose type is not a known scalar number type.
    BadLiteralType {
        offset: usize,
        opcode: u16,
        operand: usize,
        type_id: u32,
    },
    /// OpExtInst names an id that is not an imported set, or a set we do not know.
    BadExtInstSet {
        offset: usize,
        opcode: u16,
        operand: usize,
        set_id: u32,
    },
    /// An extended instruction number not in its (semantic) set.
    BadExtInst {
        offset: usize,
        opcode: u16,
        operand: usize,
        number: u32,
    },
    /// OpExtInstImport with a set name that is not known and not `NonSemantic.*`.
    UnknownExtInstImport {
        offset: usize,
        operand: usize,
        name: String,
    },
    /// OpSpecConstantOp with an opcode that has no result type and id.
    BadSpecConstantOp {
        offset: usize,
        operand: usize,
        opcode: u32,
    },
    /// A result id of 0.
    ZeroResultId {
        offset: usize,
        opcode: u16,
        operand: usize,
    },
    /// A result id defined a second time.
    IdRedefined {
        offset: usize,
        opcode: u16,
        operand: usize,
        id: u32,
    },
    /// An id not below the header's id bound.
    IdOutOfBound {
        offset: usize,
        opcode: u16,
        operand: usize,
        id: u32,
        bound: u32,
    },
}

fn op_name(opcode: u16) -> String {
    match crate::grammar::instruction(opcode) {
        Some(d) => String::from(d.name),
        None => format!("opcode {opcode}"),
    }
}

impl BinaryError {
    /// A stable code, e.g. `bin.bad-magic`.
    pub fn code(&self) -> &'static str {
        match self {
            BinaryError::ByteLength { .. } => "bin.byte-length",
            BinaryError::TruncatedHeader { .. } => "bin.truncated-header",
            BinaryError::BadMagic { .. } => "bin.bad-magic",
            BinaryError::BadVersion { .. } => "bin.bad-version",
            BinaryError::ZeroWordCount { .. } => "bin.zero-word-count",
            BinaryError::TruncatedInstruction { .. } => "bin.truncated-instruction",
            BinaryError::UnknownOpcode { .. } => "bin.unknown-opcode",
            BinaryError::UnterminatedString { .. } => "bin.unterminated-string",
            BinaryError::MissingOperand { .. } => "bin.missing-operand",
            BinaryError::ExtraWords { .. } => "bin.extra-words",
            BinaryError::BadEnumerant { .. } => "bin.bad-enumerant",
            BinaryError::BadLiteralType { .. } => "bin.bad-literal-type",
            BinaryError::BadExtInstSet { .. } => "bin.bad-ext-inst-set",
            BinaryError::BadExtInst { .. } => "bin.bad-ext-inst",
            BinaryError::UnknownExtInstImport { .. } => "bin.unknown-ext-inst-import",
            BinaryError::BadSpecConstantOp { .. } => "bin.bad-spec-constant-op",
            BinaryError::ZeroResultId { .. } => "bin.zero-result-id",
            BinaryError::IdRedefined { .. } => "bin.id-redefined",
            BinaryError::IdOutOfBound { .. } => "bin.id-out-of-bound",
        }
    }

    /// The word offset the error points at.
    pub fn offset(&self) -> usize {
        match *self {
            BinaryError::ByteLength { len } => len / 4,
            BinaryError::TruncatedHeader { .. } => 0,
            BinaryError::BadMagic { .. } => 0,
            BinaryError::BadVersion { .. } => 1,
            BinaryError::ZeroWordCount { offset, .. } => offset,
            BinaryError::TruncatedInstruction { offset, .. } => offset,
            BinaryError::UnknownOpcode { offset, .. } => offset,
            BinaryError::UnterminatedString { operand, .. } => operand,
            BinaryError::MissingOperand { operand, .. } => operand,
            BinaryError::ExtraWords { operand, .. } => operand,
            BinaryError::BadEnumerant { operand, .. } => operand,
            BinaryError::BadLiteralType { operand, .. } => operand,
            BinaryError::BadExtInstSet { operand, .. } => operand,
            BinaryError::BadExtInst { operand, .. } => operand,
            BinaryError::UnknownExtInstImport { operand, .. } => operand,
            BinaryError::BadSpecConstantOp { operand, .. } => operand,
            BinaryError::ZeroResultId { operand, .. } => operand,
            BinaryError::IdRedefined { operand, .. } => operand,
            BinaryError::IdOutOfBound { operand, .. } => operand,
        }
    }

    /// The word range the error covers.
    pub fn span(&self) -> Span {
        let o = self.offset() as u32;
        match *self {
            BinaryError::TruncatedHeader { words } => Span::new(0, words as u32),
            BinaryError::TruncatedInstruction {
                offset, available, ..
            } => Span::new(offset as u32, (offset + available) as u32),
            BinaryError::ExtraWords {
                offset,
                word_count,
                operand,
                ..
            } => Span::new(operand as u32, (offset + word_count).max(operand) as u32),
            _ => Span::new(o, o.saturating_add(1)),
        }
    }

    /// The message, without location.
    pub fn message(&self) -> String {
        match self {
            BinaryError::ByteLength { len } => {
                format!("the binary is {len} bytes long, not a multiple of 4")
            }
            BinaryError::TruncatedHeader { words } => {
                format!("the module header needs 5 words, found only {words}")
            }
            BinaryError::BadMagic { found } => {
                format!(
                    "invalid magic number 0x{found:08x} (expected 0x07230203 in either byte order)"
                )
            }
            BinaryError::BadVersion { version } => format!(
                "unsupported version word 0x{version:08x} (expected SPIR-V 1.0 to {VERSION_MAJOR}.{VERSION_MINOR})"
            ),
            BinaryError::ZeroWordCount { offset, opcode } => {
                format!(
                    "instruction at word {offset} ({}) has word count 0",
                    op_name(*opcode)
                )
            }
            BinaryError::TruncatedInstruction {
                offset,
                opcode,
                word_count,
                available,
            } => format!(
                "instruction {} at word {offset} has word count {word_count} but only {available} words are left",
                op_name(*opcode)
            ),
            BinaryError::UnknownOpcode { offset, opcode } => {
                format!("unknown opcode {opcode} at word {offset}")
            }
            BinaryError::UnterminatedString {
                offset,
                opcode,
                operand,
            } => format!(
                "{} at word {offset}: the string starting at word {operand} is not terminated within the instruction",
                op_name(*opcode)
            ),
            BinaryError::MissingOperand {
                offset,
                opcode,
                operand,
                kind,
            } => format!(
                "{} at word {offset}: missing operand {} at word {operand}",
                op_name(*opcode),
                kind.name()
            ),
            BinaryError::ExtraWords {
                offset,
                opcode,
                operand,
                word_count,
            } => format!(
                "{} at word {offset}: expected no more operands after word {operand}, but the word count is {word_count}",
                op_name(*opcode)
            ),
            BinaryError::BadEnumerant {
                offset,
                opcode,
                kind,
                value,
                ..
            } => format!(
                "{} at word {offset}: invalid {} operand {value}",
                op_name(*opcode),
                kind.name()
            ),
            BinaryError::BadLiteralType {
                offset,
                opcode,
                type_id,
                ..
            } => format!(
                "{} at word {offset}: type id {type_id} is not a scalar numeric type",
                op_name(*opcode)
            ),
            BinaryError::BadExtInstSet {
                offset,
                opcode,
                set_id,
                ..
            } => format!(
                "{} at word {offset}: id {set_id} is not an imported extended instruction set",
                op_name(*opcode)
            ),
            BinaryError::BadExtInst {
                offset,
                opcode,
                number,
                ..
            } => format!(
                "{} at word {offset}: invalid extended instruction number {number}",
                op_name(*opcode)
            ),
            BinaryError::UnknownExtInstImport { offset, name, .. } => {
                format!(
                    "OpExtInstImport at word {offset}: unknown extended instruction set \"{name}\""
                )
            }
            BinaryError::BadSpecConstantOp { offset, opcode, .. } => {
                format!("OpSpecConstantOp at word {offset}: invalid opcode {opcode}")
            }
            BinaryError::ZeroResultId { offset, opcode, .. } => {
                format!("{} at word {offset}: result id is 0", op_name(*opcode))
            }
            BinaryError::IdRedefined {
                offset, opcode, id, ..
            } => {
                format!(
                    "{} at word {offset}: id {id} is defined more than once",
                    op_name(*opcode)
                )
            }
            BinaryError::IdOutOfBound {
                offset,
                opcode,
                id,
                bound,
                ..
            } => format!(
                "{} at word {offset}: id {id} is not below the id bound {bound}",
                op_name(*opcode)
            ),
        }
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.code(), self.span(), self.message()).in_binary()
    }
}

impl From<BinaryError> for Diagnostic {
    fn from(e: BinaryError) -> Diagnostic {
        e.to_diagnostic()
    }
}

impl core::fmt::Display for BinaryError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message())
    }
}

/// Whether `bytes` start with the SPIR-V magic number, in either byte order:
/// how every front end (the CLI, the page) tells a binary from assembly text.
pub fn starts_with_magic(bytes: &[u8]) -> bool {
    bytes.get(..4).is_some_and(|b| b == MAGIC_NUMBER.to_le_bytes() || b == MAGIC_NUMBER.to_be_bytes())
}

/// Bytes to host-order words, the byte order chosen by the magic number.
pub fn words_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, BinaryError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(BinaryError::ByteLength { len: bytes.len() });
    }
    if bytes.len() < 20 {
        return Err(BinaryError::TruncatedHeader {
            words: bytes.len() / 4,
        });
    }
    let le = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    let big = if le == MAGIC_NUMBER {
        false
    } else if le.swap_bytes() == MAGIC_NUMBER {
        true
    } else {
        return Err(BinaryError::BadMagic { found: le });
    };
    Ok(bytes
        .chunks_exact(4)
        .map(|c| {
            let w = [c[0], c[1], c[2], c[3]];
            if big {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            }
        })
        .collect())
}

/// Read a module from bytes of either byte order, checking operands.
pub fn read_bytes(bytes: &[u8]) -> Result<Module, BinaryError> {
    read_words(&words_from_bytes(bytes)?)
}

/// Read a module from host-order words (a byte-swapped magic number is
/// accepted too), checking every known instruction's operands against the grammar.
pub fn read_words(words: &[u32]) -> Result<Module, BinaryError> {
    let m = read_words_framing(words)?;
    check_operands(&m)?;
    Ok(m)
}

/// Read the header and the instruction framing only.
pub fn read_words_framing(words: &[u32]) -> Result<Module, BinaryError> {
    if words.len() < 5 {
        return Err(BinaryError::TruncatedHeader { words: words.len() });
    }
    let swap = if words[0] == MAGIC_NUMBER {
        false
    } else if words[0].swap_bytes() == MAGIC_NUMBER {
        true
    } else {
        return Err(BinaryError::BadMagic { found: words[0] });
    };
    let w = |i: usize| {
        if swap {
            words[i].swap_bytes()
        } else {
            words[i]
        }
    };
    let header = Header {
        magic: MAGIC_NUMBER,
        version: w(1),
        generator: w(2),
        bound: w(3),
        schema: w(4),
    };
    let v = header.version;
    let (major, minor) = ((v >> 16) & 0xff, (v >> 8) & 0xff);
    if v & 0xff00_00ff != 0 || major != VERSION_MAJOR as u32 || minor > VERSION_MINOR as u32 {
        return Err(BinaryError::BadVersion { version: v });
    }
    let mut instructions = Vec::with_capacity(words.len() / 4);
    let mut at = 5usize;
    while at < words.len() {
        let first = w(at);
        let count = (first >> 16) as usize;
        let opcode = (first & 0xffff) as u16;
        if count == 0 {
            return Err(BinaryError::ZeroWordCount { offset: at, opcode });
        }
        let available = words.len() - at;
        if count > available {
            return Err(BinaryError::TruncatedInstruction {
                offset: at,
                opcode,
                word_count: count,
                available,
            });
        }
        // A copy per instruction, in place (no allocation) when short.
        let mut operands = Operands::from_front(&words[at + 1..], count - 1);
        if swap {
            operands.iter_mut().for_each(|x| *x = x.swap_bytes());
        }
        instructions.push(Instruction { opcode, operands });
        at += count;
    }
    Ok(Module {
        header,
        instructions,
    })
}

/// Check every known instruction's operands against the grammar (unknown
/// opcodes are skipped). Returns the first problem.
pub fn check_operands(m: &Module) -> Result<(), BinaryError> {
    let total: usize = m.instructions.iter().map(|i| i.word_count()).sum();
    let mut p = OperandParser::new(m.header.bound.min(total as u32 + 1));
    let mut out = Vec::new();
    let mut at = 5usize;
    for inst in &m.instructions {
        if crate::grammar::instruction(inst.opcode).is_some() {
            p.parse(inst.opcode, &inst.operands, at, &mut out)?;
        }
        at += inst.word_count();
    }
    Ok(())
}

/// The module as host-order words.
pub fn write_words(m: &Module) -> Vec<u32> {
    let n: usize = 5 + m.instructions.iter().map(|i| i.word_count()).sum::<usize>();
    let mut out = Vec::with_capacity(n);
    let h = &m.header;
    out.extend_from_slice(&[MAGIC_NUMBER, h.version, h.generator, h.bound, h.schema]);
    for i in &m.instructions {
        let count = (i.word_count() as u32).min(0xffff);
        out.push(count << 16 | i.opcode as u32);
        out.extend_from_slice(&i.operands);
    }
    out
}

/// The module as little-endian bytes.
pub fn to_bytes(m: &Module) -> Vec<u8> {
    let words = write_words(m);
    let mut out = Vec::with_capacity(words.len() * 4);
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

/// Words as big-endian bytes (for tests and tools that want the other order).
pub fn to_bytes_be(words: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(words.len() * 4);
    for w in words {
        out.extend_from_slice(&w.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests;
