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
    pub operands: Operands,
}

/// How many operand words an instruction holds in place, without a heap
/// allocation (most instructions have fewer).
const INLINE: usize = 7;

/// An instruction's operand words: a `[u32]` (through `Deref`), held in place
/// up to [`INLINE`] words and on the heap beyond, so that reading a module does
/// not allocate once per instruction.
#[derive(Clone)]
pub struct Operands(Repr);

#[derive(Clone)]
enum Repr {
    Inline(u8, [u32; INLINE]),
    Heap(Vec<u32>),
}

impl Operands {
    /// No words.
    pub const fn new() -> Operands {
        Operands(Repr::Inline(0, [0; INLINE]))
    }

    /// A copy of `words`.
    #[inline]
    pub fn from_slice(words: &[u32]) -> Operands {
        if words.len() <= INLINE {
            let mut a = [0u32; INLINE];
            a[..words.len()].copy_from_slice(words);
            Operands(Repr::Inline(words.len() as u8, a))
        } else {
            Operands(Repr::Heap(words.to_vec()))
        }
    }

    /// A copy of the first `len` words of `words`: when both `len` and
    /// [`INLINE`] words fit, a fixed-size copy (the words past `len` are
    /// held but never read), cheaper than one of variable length.
    #[inline]
    pub(crate) fn from_front(words: &[u32], len: usize) -> Operands {
        match words.first_chunk::<INLINE>() {
            Some(a) if len <= INLINE => Operands(Repr::Inline(len as u8, *a)),
            _ => Operands::from_slice(&words[..len]),
        }
    }

    /// The words.
    #[inline]
    pub fn as_slice(&self) -> &[u32] {
        self
    }

    /// Append one word.
    pub fn push(&mut self, w: u32) {
        match &mut self.0 {
            Repr::Inline(n, a) if (*n as usize) < INLINE => {
                a[*n as usize] = w;
                *n += 1;
            }
            Repr::Inline(n, a) => {
                let mut v = Vec::with_capacity(INLINE * 2);
                v.extend_from_slice(&a[..*n as usize]);
                v.push(w);
                self.0 = Repr::Heap(v);
            }
            Repr::Heap(v) => v.push(w),
        }
    }

    /// Remove every word.
    pub fn clear(&mut self) {
        self.0 = Repr::Inline(0, [0; INLINE]);
    }
}

impl Default for Operands {
    fn default() -> Operands {
        Operands::new()
    }
}

impl core::ops::Deref for Operands {
    type Target = [u32];
    #[inline]
    fn deref(&self) -> &[u32] {
        match &self.0 {
            Repr::Inline(n, a) => &a[..*n as usize],
            Repr::Heap(v) => v,
        }
    }
}

impl core::ops::DerefMut for Operands {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u32] {
        match &mut self.0 {
            Repr::Inline(n, a) => &mut a[..*n as usize],
            Repr::Heap(v) => v,
        }
    }
}

impl core::fmt::Debug for Operands {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Operands {
    fn eq(&self, other: &Operands) -> bool {
        **self == **other
    }
}

impl Eq for Operands {}

impl PartialEq<Vec<u32>> for Operands {
    fn eq(&self, other: &Vec<u32>) -> bool {
        **self == other[..]
    }
}

impl PartialEq<[u32]> for Operands {
    fn eq(&self, other: &[u32]) -> bool {
        **self == *other
    }
}

impl From<Vec<u32>> for Operands {
    fn from(v: Vec<u32>) -> Operands {
        if v.len() <= INLINE { Operands::from_slice(&v) } else { Operands(Repr::Heap(v)) }
    }
}

impl From<&[u32]> for Operands {
    fn from(v: &[u32]) -> Operands {
        Operands::from_slice(v)
    }
}

impl<'a> IntoIterator for &'a Operands {
    type Item = &'a u32;
    type IntoIter = core::slice::Iter<'a, u32>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl FromIterator<u32> for Operands {
    fn from_iter<I: IntoIterator<Item = u32>>(it: I) -> Operands {
        let mut o = Operands::new();
        for w in it {
            o.push(w);
        }
        o
    }
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
