//! The typed IR: one pass over a [`Module`] that resolves every instruction's
//! operands (by the grammar) and indexes what the later parts need by id:
//! definitions, types with their explicit layout, constants with their values,
//! decorations and names, entry points with their execution modes, global
//! variables, and functions with their blocks.
//!
//! Built best effort: the module may be invalid. Nothing here panics on bad
//! input; what cannot be resolved is left out (`None`, [`ConstValue::NotEvaluated`])
//! and operand errors are kept in [`Ir::problems`].
//!
//! Layout: instructions stay in the module (`module.instructions[i]`); the IR
//! keeps one flat array of [`ParsedOperand`]s with a range per instruction, so
//! consumers never walk the grammar again. Everything is indexed by the
//! instruction index `i` (binary order) or by id.

mod build;
mod consts;
pub mod layout;
#[cfg(test)]
mod tests;

use crate::binary::BinaryError;
use crate::binary::parse::{IdMap, NumType, ParsedOperand, decode_string};
use crate::grammar::{Category, InstructionDesc, OperandKind};
use crate::{Instruction, Module};
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Range;

pub use consts::{ConstValue, Constant};
pub use layout::{BlockKind, Member, Type, TypeDef};

/// The decorations the IR reads, by the grammar's generated constants.
pub(crate) mod dec {
    pub use crate::grammar::decoration::{
        ArrayStride as ARRAY_STRIDE, Binding as BINDING, Block as BLOCK, BufferBlock as BUFFER_BLOCK,
        BuiltIn as BUILTIN, ColMajor as COL_MAJOR, DescriptorSet as DESCRIPTOR_SET, MatrixStride as MATRIX_STRIDE,
        Offset as OFFSET, RowMajor as ROW_MAJOR, SpecId as SPEC_ID,
    };
}

/// The storage classes the IR reads.
pub(crate) mod sc {
    pub use crate::grammar::storage_class::PhysicalStorageBuffer as PHYSICAL_STORAGE_BUFFER;
}

/// A problem found while building: an operand that does not parse (the
/// binary's own errors), or a result id at or past the id bound.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    Operands(BinaryError),
    /// Instruction `inst` defines `id`, which is not below the header's bound.
    IdOutOfBound {
        inst: u32,
        id: u32,
        bound: u32,
    },
}

/// One resolved operand: its kind (from the grammar), its words, and for
/// literal numbers how to read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand<'a> {
    pub kind: OperandKind,
    pub words: &'a [u32],
    pub num: NumType,
}

/// The value of an operand, by its kind's category.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandValue {
    /// An id (`IdRef`, `IdResult`, `IdResultType`, `IdScope`, `IdMemorySemantics`).
    Id(u32),
    /// A literal number: its bits (up to 64; zero-extended) and its type.
    Number { bits: u64, num: NumType },
    /// A literal string.
    String(String),
    /// A value or bit enumerant (the whole mask for bit enums).
    Enumerant(u32),
}

impl<'a> Operand<'a> {
    /// The id, for an id operand.
    pub fn id(&self) -> Option<u32> {
        if self.kind.is_id() {
            self.words.first().copied()
        } else {
            None
        }
    }

    /// The first word (any kind).
    pub fn word(&self) -> Option<u32> {
        self.words.first().copied()
    }

    /// The bits of a literal number (words little-endian, up to two).
    pub fn number(&self) -> Option<u64> {
        if self.kind.category() != Category::Literal || self.kind == OperandKind::LiteralString {
            return None;
        }
        let lo = *self.words.first()? as u64;
        let hi = self.words.get(1).copied().unwrap_or(0) as u64;
        Some(lo | hi << 32)
    }

    /// The text of a literal string.
    pub fn string(&self) -> Option<String> {
        (self.kind == OperandKind::LiteralString).then(|| decode_string(self.words))
    }

    /// The value of an enumerant operand (value or bit enum).
    pub fn enumerant(&self) -> Option<u32> {
        match self.kind.category() {
            Category::ValueEnum | Category::BitEnum => self.words.first().copied(),
            _ => None,
        }
    }

    /// The operand's value.
    pub fn value(&self) -> Option<OperandValue> {
        if let Some(id) = self.id() {
            return Some(OperandValue::Id(id));
        }
        if let Some(s) = self.string() {
            return Some(OperandValue::String(s));
        }
        if let Some(e) = self.enumerant() {
            return Some(OperandValue::Enumerant(e));
        }
        self.number().map(|bits| OperandValue::Number {
            bits,
            num: self.num,
        })
    }
}

/// A decoration on an id (or on a member of a struct type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoration {
    pub target: u32,
    /// The member index, for `OpMemberDecorate*`.
    pub member: Option<u32>,
    /// The decoration (grammar: Decoration).
    pub decoration: u32,
    /// The instruction that states it (for a group decoration, the
    /// `OpDecorate` on the group).
    pub inst: u32,
    /// The index of the decoration's first parameter in the instruction's operand words.
    pub param_word: u32,
}

impl Decoration {
    /// The decoration's parameter words (literals or ids, by the decoration).
    pub fn params<'a>(&self, ir: &'a Ir) -> &'a [u32] {
        let w = ir.words(self.inst as usize);
        w.get(self.param_word as usize..).unwrap_or(&[])
    }

    /// The first parameter word (Offset, Binding, ArrayStride, BuiltIn...).
    pub fn arg(&self, ir: &Ir) -> Option<u32> {
        self.params(ir).first().copied()
    }
}

/// An `OpName` or `OpMemberName`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub target: u32,
    pub member: Option<u32>,
    pub text: String,
}

/// An execution mode of an entry point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutionMode {
    /// The `OpExecutionMode` / `OpExecutionModeId` instruction.
    pub inst: u32,
    /// The mode (grammar: ExecutionMode).
    pub mode: u32,
    /// The mode's operand words (literals, or ids for `OpExecutionModeId`).
    pub operands: Vec<u32>,
    /// Whether the operands are ids (`OpExecutionModeId`).
    pub ids: bool,
}

/// An `OpEntryPoint` with its execution modes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    pub inst: u32,
    /// The execution model (grammar: ExecutionModel).
    pub model: u32,
    pub function: u32,
    pub name: String,
    pub interface: Vec<u32>,
    pub modes: Vec<ExecutionMode>,
}

/// A variable declared outside functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable {
    pub id: u32,
    pub inst: u32,
    /// The result type (a pointer type).
    pub ty: u32,
    /// The storage class (grammar: StorageClass).
    pub storage: u32,
    /// The type of the data: the pointee of a typed pointer, or the data type
    /// operand of `OpUntypedVariableKHR`.
    pub pointee: Option<u32>,
    pub initializer: Option<u32>,
    pub set: Option<u32>,
    pub binding: Option<u32>,
}

/// One basic block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub label: u32,
    /// The index of the `OpLabel`.
    pub start: u32,
    /// One past the block's last instruction.
    pub end: u32,
    /// The index of the terminator, if the block ends with one.
    pub terminator: Option<u32>,
}

impl Block {
    /// The instructions after the label, the terminator included.
    pub fn body(&self) -> Range<usize> {
        (self.start as usize + 1)..(self.end as usize)
    }
}

/// One function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub id: u32,
    pub result_type: u32,
    /// The function control mask.
    pub control: u32,
    pub fn_type: u32,
    /// The index of the `OpFunction`.
    pub inst: u32,
    /// The index of the `OpFunctionEnd` (or the number of instructions if missing).
    pub end: u32,
    /// The `OpFunctionParameter` result ids.
    pub params: Vec<u32>,
    /// The function's blocks, as a range of [`Ir::blocks`].
    pub blocks: Range<u32>,
}

/// Where instruction `i` is: in the binary, and in [`Ir::ops`].
#[derive(Clone, Copy, Debug)]
struct InstAt {
    offset: u32,
    first_op: u32,
}

/// What the IR indexes by id (each index + 1; 0: none).
#[derive(Clone, Copy, Debug, Default)]
struct IdIndex {
    /// The instruction that defines it.
    def: u32,
    /// Whether that instruction has a result type, and the type (what
    /// [`Ir::type_of`] gives, without looking at the instruction).
    typed: bool,
    value_type: u32,
    /// Its entry in [`Ir::types`].
    ty: u32,
    /// Its entry in [`Ir::constants`].
    constant: u32,
}

/// The typed IR of one module.
#[derive(Clone, Debug)]
pub struct Ir {
    /// The module, owned: the IR's indices are into its instructions.
    pub module: Module,
    /// Per instruction, then once past the last: its word offset in the
    /// binary and the index of its first operand in `ops`.
    at: Vec<InstAt>,
    /// Parsed operands of every instruction, flat; instruction `i` has
    /// `ops[at[i].first_op..at[i + 1].first_op]` (empty if it did not parse).
    ops: Vec<ParsedOperand>,
    /// By id: its definition and its entries in `types` / `constants`.
    ids: IdMap<IdIndex>,
    pub types: Vec<TypeDef>,
    pub constants: Vec<Constant>,
    /// Sorted by target (stable: in binary order per target).
    pub decorations: Vec<Decoration>,
    /// Sorted by (target, member).
    pub names: Vec<Name>,
    pub entry_points: Vec<EntryPoint>,
    /// Variables outside functions, in binary order.
    pub globals: Vec<Variable>,
    pub functions: Vec<Function>,
    pub blocks: Vec<Block>,
    /// Extended instruction set imports: (id, name).
    pub ext_imports: Vec<(u32, String)>,
    pub problems: Vec<Problem>,
}

impl Ir {
    /// Build the IR of `module` (best effort; see [`Ir::problems`]).
    pub fn build(module: Module) -> Ir {
        build::build(module)
    }

    /// The number of instructions.
    pub fn len(&self) -> usize {
        self.module.instructions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.module.instructions.is_empty()
    }

    /// The module's SPIR-V version `(major, minor)`.
    pub fn version(&self) -> (u8, u8) {
        self.module.header.version()
    }

    /// Instruction `i`.
    pub fn inst(&self, i: usize) -> &Instruction {
        &self.module.instructions[i]
    }

    /// The opcode of instruction `i` (0 if out of range).
    pub fn opcode(&self, i: usize) -> u16 {
        self.module.instructions.get(i).map_or(0, |x| x.opcode)
    }

    /// The operand words of instruction `i` (empty if out of range).
    pub fn words(&self, i: usize) -> &[u32] {
        self.module.instructions.get(i).map_or(&[], |x| &x.operands)
    }

    /// The grammar entry of instruction `i`.
    pub fn desc(&self, i: usize) -> Option<&'static InstructionDesc> {
        crate::binary::parse::instruction_desc(self.opcode(i))
    }

    /// The word offset of instruction `i` in the binary.
    pub fn offset(&self, i: usize) -> u32 {
        match self.at.get(i) {
            Some(a) if i < self.len() => a.offset,
            _ => 5,
        }
    }

    /// The parsed operands of instruction `i` (empty if it did not parse).
    pub fn parsed(&self, i: usize) -> &[ParsedOperand] {
        match (self.at.get(i), self.at.get(i + 1)) {
            (Some(a), Some(b)) => &self.ops[a.first_op as usize..b.first_op as usize],
            _ => &[],
        }
    }

    /// Whether instruction `i`'s operands parsed.
    pub fn parsed_ok(&self, i: usize) -> bool {
        !self.parsed(i).is_empty() || self.words(i).is_empty()
    }

    /// The words of operand `k` of instruction `i`.
    pub fn operand_words(&self, i: usize, k: usize) -> &[u32] {
        let w = self.words(i);
        match self.parsed(i).get(k) {
            Some(o) => {
                let s = (o.start as usize).min(w.len());
                let e = (s + o.len as usize).min(w.len());
                &w[s..e]
            }
            None => &[],
        }
    }

    /// Operand `k` of instruction `i`.
    pub fn operand(&self, i: usize, k: usize) -> Option<Operand<'_>> {
        let o = *self.parsed(i).get(k)?;
        Some(Operand {
            kind: o.kind,
            words: self.operand_words(i, k),
            num: o.num,
        })
    }

    /// The operands of instruction `i`.
    pub fn operands(&self, i: usize) -> impl Iterator<Item = Operand<'_>> + '_ {
        // The words and the parsed operands looked up once, not per operand.
        let w = self.words(i);
        self.parsed(i).iter().map(move |o| {
            let s = (o.start as usize).min(w.len());
            let e = (s + o.len as usize).min(w.len());
            Operand { kind: o.kind, words: &w[s..e], num: o.num }
        })
    }

    /// The result id of instruction `i`, if it defines one.
    pub fn result_id(&self, i: usize) -> Option<u32> {
        self.operands(i)
            .take(2)
            .find(|o| o.kind == OperandKind::IdResult)
            .and_then(|o| o.word())
    }

    /// The result type of instruction `i`, if it has one.
    pub fn result_type(&self, i: usize) -> Option<u32> {
        self.operand(i, 0)
            .filter(|o| o.kind == OperandKind::IdResultType)
            .and_then(|o| o.word())
    }

    /// The index of the instruction that defines `id`.
    pub fn def(&self, id: u32) -> Option<usize> {
        match self.ids.get(id).def {
            0 => None,
            i => Some(i as usize - 1),
        }
    }

    /// The opcode that defines `id`.
    pub fn def_opcode(&self, id: u32) -> Option<u16> {
        self.def(id).map(|i| self.opcode(i))
    }

    /// The result type of value `id`.
    pub fn type_of(&self, id: u32) -> Option<u32> {
        let x = self.ids.get(id);
        x.typed.then_some(x.value_type)
    }

    /// The type `id`, if it is one.
    pub fn ty(&self, id: u32) -> Option<&TypeDef> {
        match self.ids.get(id).ty {
            0 => None,
            k => self.types.get(k as usize - 1),
        }
    }

    /// The constant `id` (spec constants included), if it is one.
    pub fn constant(&self, id: u32) -> Option<&Constant> {
        match self.ids.get(id).constant {
            0 => None,
            k => self.constants.get(k as usize - 1),
        }
    }

    /// The decorations of `target` (its own and its members').
    pub fn decorations_of(&self, target: u32) -> &[Decoration] {
        let a = self.decorations.partition_point(|d| d.target < target);
        let b = self.decorations.partition_point(|d| d.target <= target);
        &self.decorations[a..b]
    }

    /// The decoration `decoration` on `target` itself (the first, if repeated).
    pub fn decoration(&self, target: u32, decoration: u32) -> Option<&Decoration> {
        self.decorations_of(target)
            .iter()
            .find(|d| d.member.is_none() && d.decoration == decoration)
    }

    /// The decoration `decoration` on member `member` of `target`.
    pub fn member_decoration(
        &self,
        target: u32,
        member: u32,
        decoration: u32,
    ) -> Option<&Decoration> {
        self.decorations_of(target)
            .iter()
            .find(|d| d.member == Some(member) && d.decoration == decoration)
    }

    /// Whether `target` carries `decoration`.
    pub fn has_decoration(&self, target: u32, decoration: u32) -> bool {
        self.decoration(target, decoration).is_some()
    }

    /// The first parameter of decoration `decoration` on `target`.
    pub fn decoration_arg(&self, target: u32, decoration: u32) -> Option<u32> {
        self.decoration(target, decoration)
            .and_then(|d| d.arg(self))
    }

    /// The `OpName` of `id`.
    pub fn name(&self, id: u32) -> Option<&str> {
        self.find_name(id, None)
    }

    /// The `OpMemberName` of member `member` of `id`.
    pub fn member_name(&self, id: u32, member: u32) -> Option<&str> {
        self.find_name(id, Some(member))
    }

    /// Whether any member of `id` has an `OpMemberName`.
    pub fn has_member_names(&self, id: u32) -> bool {
        let k = self.names.partition_point(|n| (n.target, n.member) < (id, Some(0)));
        self.names.get(k).is_some_and(|n| n.target == id)
    }

    fn find_name(&self, id: u32, member: Option<u32>) -> Option<&str> {
        let k = self
            .names
            .partition_point(|n| (n.target, n.member) < (id, member));
        self.names
            .get(k)
            .filter(|n| n.target == id && n.member == member)
            .map(|n| n.text.as_str())
    }

    /// The global variable `id`.
    pub fn global(&self, id: u32) -> Option<&Variable> {
        let i = self.def(id)? as u32;
        let k = self.globals.partition_point(|v| v.inst < i);
        self.globals.get(k).filter(|v| v.id == id)
    }

    /// The function `id`.
    pub fn function(&self, id: u32) -> Option<&Function> {
        let i = self.def(id)? as u32;
        let k = self.functions.partition_point(|f| f.inst < i);
        self.functions.get(k).filter(|f| f.id == id)
    }

    /// The function that contains instruction `i`.
    pub fn function_at(&self, i: usize) -> Option<&Function> {
        let k = self.functions.partition_point(|f| f.inst as usize <= i);
        self.functions
            .get(k.checked_sub(1)?)
            .filter(|f| i <= f.end as usize)
    }

    /// The blocks of function `f`.
    pub fn blocks_of(&self, f: &Function) -> &[Block] {
        self.blocks
            .get(f.blocks.start as usize..f.blocks.end as usize)
            .unwrap_or(&[])
    }

    /// The entry point named `name` (the first, if several models share it).
    pub fn entry_point(&self, name: &str) -> Option<&EntryPoint> {
        self.entry_points.iter().find(|e| e.name == name)
    }

    /// The name of the extended instruction set imported as `id`.
    pub fn ext_import(&self, id: u32) -> Option<&str> {
        self.ext_imports
            .iter()
            .find(|(x, _)| *x == id)
            .map(|(_, n)| n.as_str())
    }

    /// The scalar value of constant `id` (its bits, zero-extended; a null
    /// scalar is 0, a boolean 0 or 1).
    pub fn const_bits(&self, id: u32) -> Option<u64> {
        match self.constant(id)?.value {
            ConstValue::Scalar(b) => Some(b),
            ConstValue::Bool(b) => Some(b as u64),
            ConstValue::Null => match self.ty(self.type_of(id)?)?.ty {
                Type::Int { .. } | Type::Float { .. } | Type::Bool => Some(0),
                _ => None,
            },
            _ => None,
        }
    }

    /// The value of integer constant `id`, unsigned.
    pub fn const_u64(&self, id: u32) -> Option<u64> {
        let t = self.ty(self.type_of(id)?)?;
        match t.ty {
            Type::Int { .. } => self.const_bits(id),
            _ => None,
        }
    }

    /// The value of integer constant `id`, sign-extended when its type is signed.
    pub fn const_i64(&self, id: u32) -> Option<i64> {
        let t = self.ty(self.type_of(id)?)?;
        match t.ty {
            Type::Int { width, signed } => {
                let b = self.const_bits(id)?;
                Some(if signed {
                    consts::sign_extend(b, width)
                } else {
                    b as i64
                })
            }
            _ => None,
        }
    }

    /// The SpecId of spec constant `id`.
    pub fn spec_id(&self, id: u32) -> Option<u32> {
        self.decoration_arg(id, dec::SPEC_ID)
    }

    /// The value of boolean constant `id`.
    pub fn const_bool(&self, id: u32) -> Option<bool> {
        match self.constant(id)?.value {
            ConstValue::Bool(b) => Some(b),
            ConstValue::Null if matches!(self.ty(self.type_of(id)?)?.ty, Type::Bool) => Some(false),
            _ => None,
        }
    }
}
