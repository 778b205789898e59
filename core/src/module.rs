//! The module IR: a header and a list of instructions, in binary order.

use alloc::vec::Vec;

/// The five header words of a SPIR-V module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The magic number, as read (always host order after reading).
    pub magic: u32,
    /// The version word: `0x00MMmm00`.
    pub version: u32,
    pub generator: u32,
    pub bound: u32,
    pub schema: u32,
}

impl Header {
    pub fn version(&self) -> (u8, u8) {
        ((self.version >> 16) as u8, (self.version >> 8) as u8)
    }
}

/// One instruction: its opcode and its operand words (the words after the first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    pub opcode: u16,
    pub operands: Vec<u32>,
}

impl Instruction {
    /// The instruction's word count, the first word included.
    pub fn word_count(&self) -> usize {
        self.operands.len() + 1
    }
}

/// A whole module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    pub header: Header,
    pub instructions: Vec<Instruction>,
}
