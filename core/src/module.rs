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

impl Instruction {
    /// The grammar's description of the opcode, if known.
    pub fn desc(&self) -> Option<&'static crate::grammar::InstructionDesc> {
        crate::grammar::instruction(self.opcode)
    }

    /// The result type id, for a known opcode that has one.
    pub fn result_type(&self) -> Option<u32> {
        let d = self.desc()?;
        if d.has_result_type() { self.operands.first().copied() } else { None }
    }

    /// The result id, for a known opcode that defines one.
    pub fn result_id(&self) -> Option<u32> {
        let d = self.desc()?;
        if !d.has_result() {
            return None;
        }
        let i = if d.has_result_type() { 1 } else { 0 };
        self.operands.get(i).copied()
    }
}

impl Module {
    /// The word offset of each instruction in the binary (the header is words 0 to 4).
    pub fn offsets(&self) -> Vec<usize> {
        let mut at = 5;
        self.instructions
            .iter()
            .map(|i| {
                let o = at;
                at += i.word_count();
                o
            })
            .collect()
    }

    /// The total number of words, header included.
    pub fn word_count(&self) -> usize {
        5 + self.instructions.iter().map(Instruction::word_count).sum::<usize>()
    }
}
