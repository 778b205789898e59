//! The leaves of a binding: where each integer and float lies in its bytes,
//! by the reflection's walk of the type tree ([`crate::reflect::walk`],
//! which [`crate::interp::values::show`] reads too). The layout itself is the
//! IR's (`ir::layout`), carried by the type tree.

use crate::reflect::walk::{self, Group, Step, Visit};
use crate::reflect::{TypeNode, TypeShape};
use core::fmt::Write;
use alloc::string::String;
use alloc::vec::Vec;

/// How a leaf's bits read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub enum LeafKind {
    Int,
    Uint,
    Float,
}

/// One scalar of a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(rename_all = "camelCase"))]
pub struct Leaf {
    /// Its path from the binding (`data[3]`, `m.x[1]`; `(value)` for a
    /// scalar binding), as [`crate::interp::values::Shown::lines`] names it.
    pub path: String,
    /// Its first byte.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u32,
    pub kind: LeafKind,
}

/// The leaves of `ty` over `len` bytes.
pub(super) fn of(ty: &TypeNode, len: usize) -> Vec<Leaf> {
    let mut leaves = Leaves { path: String::new(), marks: Vec::new(), out: Vec::new() };
    walk::walk(ty, len as u64, &mut leaves);
    leaves.out
}

/// The walk's visitor: the path so far, where each open part's path began,
/// and the leaves found.
struct Leaves {
    path: String,
    marks: Vec<usize>,
    out: Vec<Leaf>,
}

impl Leaves {
    /// Append `step` to the path.
    fn step(&mut self, step: Step<'_>) {
        match step {
            Step::Root => {}
            Step::Index(i) => {
                let _ = write!(self.path, "[{i}]");
            }
            Step::Member { index, member } => {
                if !self.path.is_empty() {
                    self.path.push('.');
                }
                match &member.name {
                    Some(name) => self.path.push_str(name),
                    None => {
                        let _ = write!(self.path, "{index}");
                    }
                }
            }
        }
    }
}

impl<'t> Visit<'t> for Leaves {
    fn scalar(&mut self, step: Step<'t>, node: &'t TypeNode, offset: u64, size: u32) {
        let kind = match node.shape {
            TypeShape::Float { .. } => LeafKind::Float,
            TypeShape::Int { signed: true, .. } => LeafKind::Int,
            TypeShape::Int { signed: false, .. } => LeafKind::Uint,
            _ => return,
        };
        let keep = self.path.len();
        self.step(step);
        let path = if self.path.is_empty() { String::from("(value)") } else { self.path.clone() };
        self.out.push(Leaf { path, offset, size, kind });
        self.path.truncate(keep);
    }

    fn opaque(&mut self, _: Step<'t>, _: &'t TypeNode) {}

    fn begin(&mut self, step: Step<'t>, _: Group) {
        self.marks.push(self.path.len());
        self.step(step);
    }

    fn end(&mut self, _: bool) {
        if let Some(keep) = self.marks.pop() {
            self.path.truncate(keep);
        }
    }
}
