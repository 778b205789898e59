//! Types, with their explicit layout (from decorations) and byte sizes; the
//! one home of byte layout: the module's own decorations resolved here, the
//! rule sets that say what they should be in [`explicit`] (Vulkan's block
//! layouts, WGSL's), and the natural C layout of OpenCL kernels in
//! [`natural`].

mod explicit;
mod natural;

pub use explicit::{Explicit, MatrixLayout, Rules, round_up};
pub(crate) use natural::{array_stride, is_kernel_module, member_offset, natural, natural_part};

use super::{Ir, dec};
use crate::grammar::op;
use alloc::string::String;
use alloc::vec::Vec;

/// `Block` or `BufferBlock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Block,
    BufferBlock,
}

/// A struct member, with its layout decorations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    pub ty: u32,
    pub offset: Option<u32>,
    pub matrix_stride: Option<u32>,
    /// `Some(true)` for RowMajor, `Some(false)` for ColMajor.
    pub row_major: Option<bool>,
    /// The BuiltIn decoration on the member.
    pub builtin: Option<u32>,
}

/// A type, by its declaring instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Void,
    Bool,
    Int {
        width: u32,
        signed: bool,
    },
    /// `encoding`: the optional FP encoding operand.
    Float {
        width: u32,
        encoding: Option<u32>,
    },
    Vector {
        component: u32,
        count: u32,
    },
    Matrix {
        column: u32,
        columns: u32,
    },
    /// `len`: the length constant's value, when it evaluates.
    Array {
        element: u32,
        length: u32,
        len: Option<u64>,
    },
    RuntimeArray {
        element: u32,
    },
    Struct {
        members: Vec<Member>,
    },
    /// `pointee` is `None` for an untyped pointer (SPV_KHR_untyped_pointers).
    Pointer {
        storage: u32,
        pointee: Option<u32>,
    },
    Function {
        ret: u32,
        params: Vec<u32>,
    },
    Image {
        sampled_type: u32,
        dim: u32,
        depth: u32,
        arrayed: u32,
        ms: u32,
        sampled: u32,
        format: u32,
        access: Option<u32>,
    },
    Sampler,
    SampledImage {
        image: u32,
    },
    Opaque {
        name: String,
    },
    /// Any other type declaration (its operands are on the instruction).
    Other {
        opcode: u16,
    },
}

/// A type declaration with its layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeDef {
    pub id: u32,
    pub inst: u32,
    pub ty: Type,
    pub array_stride: Option<u32>,
    pub block: Option<BlockKind>,
    /// The size in bytes, where the type has one: scalars and vectors their
    /// own; matrices columns × column size; arrays length × ArrayStride; structs
    /// max(Offset + member size) (every member needs an Offset); pointers into
    /// PhysicalStorageBuffer 8. Runtime arrays and opaque types have none.
    pub size: Option<u64>,
}

impl TypeDef {
    pub fn is_block(&self) -> bool {
        self.block == Some(BlockKind::Block)
    }

    pub fn is_buffer_block(&self) -> bool {
        self.block == Some(BlockKind::BufferBlock)
    }

    /// The members, for a struct.
    pub fn members(&self) -> &[Member] {
        match &self.ty {
            Type::Struct { members } => members,
            _ => &[],
        }
    }
}

impl Ir {
    /// The size of type `id` (see [`TypeDef::size`]).
    pub fn size_of(&self, id: u32) -> Option<u64> {
        self.ty(id)?.size
    }

    /// The size of member `k` of struct `id`: a matrix member with a
    /// MatrixStride counts columns (or rows, row-major) × stride.
    pub fn member_size(&self, id: u32, k: usize) -> Option<u64> {
        let m = *self.ty(id)?.members().get(k)?;
        self.sized_member(&m)
    }

    pub(crate) fn sized_member(&self, m: &Member) -> Option<u64> {
        if let (Some(stride), Some(t)) = (m.matrix_stride, self.ty(m.ty))
            && let Type::Matrix { column, columns } = t.ty
        {
            let n = if m.row_major == Some(true) {
                match self.ty(column)?.ty {
                    Type::Vector { count, .. } => count,
                    _ => return None,
                }
            } else {
                columns
            };
            return Some(n as u64 * stride as u64);
        }
        self.size_of(m.ty)
    }

    /// For a struct whose last member is a runtime array: the offset of that
    /// member (the fixed part's size) and the array's stride.
    pub fn runtime_tail(&self, id: u32) -> Option<(u64, Option<u32>)> {
        let t = self.ty(id)?;
        let last = t.members().last()?;
        let lt = self.ty(last.ty)?;
        match lt.ty {
            Type::RuntimeArray { .. } => Some((last.offset? as u64, lt.array_stride)),
            _ => None,
        }
    }

    /// Fill in layouts and sizes (types are in binary order: a type only uses
    /// earlier ones in a valid module; a later one has no size yet and gives none).
    pub(super) fn resolve_layouts(&mut self) {
        for k in 0..self.types.len() {
            let id = self.types[k].id;
            let mut block = None;
            let mut stride = None;
            for d in self.decorations_of(id) {
                if d.member.is_some() {
                    continue;
                }
                match d.decoration {
                    dec::BLOCK => block = Some(BlockKind::Block),
                    dec::BUFFER_BLOCK => block = Some(BlockKind::BufferBlock),
                    dec::ARRAY_STRIDE => stride = d.arg(self),
                    _ => {}
                }
            }
            let mut ty = core::mem::replace(&mut self.types[k].ty, Type::Void);
            match &mut ty {
                Type::Struct { members } => {
                    for d in self.decorations_of(id) {
                        let Some(m) = d.member.and_then(|m| members.get_mut(m as usize)) else {
                            continue;
                        };
                        match d.decoration {
                            dec::OFFSET => m.offset = d.arg(self),
                            dec::MATRIX_STRIDE => m.matrix_stride = d.arg(self),
                            dec::ROW_MAJOR => m.row_major = Some(true),
                            dec::COL_MAJOR => m.row_major = Some(false),
                            dec::BUILTIN => m.builtin = d.arg(self),
                            _ => {}
                        }
                    }
                }
                Type::Array { length, len, .. } => *len = self.const_u64(*length),
                _ => {}
            }
            let t = &mut self.types[k];
            t.ty = ty;
            t.block = block;
            t.array_stride = stride;
            let size = self.compute_size(k);
            self.types[k].size = size;
        }
    }

    fn compute_size(&self, k: usize) -> Option<u64> {
        let t = &self.types[k];
        let before = |id: u32| self.ty(id).filter(|x| x.inst < t.inst);
        match &t.ty {
            Type::Bool => None,
            Type::Int { width, .. } | Type::Float { width, .. } => {
                (width % 8 == 0 && *width > 0).then_some(*width as u64 / 8)
            }
            Type::Vector { component, count } => {
                before(*component)?.size.map(|s| s * *count as u64)
            }
            Type::Matrix { column, columns } => before(*column)?.size.map(|s| s * *columns as u64),
            Type::Array { len, element, .. } => {
                before(*element)?;
                Some((*len)?.checked_mul(t.array_stride? as u64)?)
            }
            Type::Struct { members } => {
                let mut size = 0u64;
                for m in members {
                    before(m.ty)?;
                    let end = (m.offset? as u64).checked_add(self.sized_member(m)?)?;
                    size = size.max(end);
                }
                Some(size)
            }
            Type::Pointer { storage, .. } => {
                (*storage == super::sc::PHYSICAL_STORAGE_BUFFER).then_some(8)
            }
            _ => None,
        }
    }
}

/// The first OpMemoryModel's addressing model.
pub(crate) fn addressing(ir: &Ir) -> Option<u32> {
    (0..ir.len().min(64))
        .find(|&i| ir.opcode(i) == op::OpMemoryModel)
        .and_then(|i| ir.words(i).first().copied())
}
