//! The capabilities and extensions a module declares, collected once for the
//! families that read them.

use crate::Instruction;
use crate::binary::parse::decode_string;
use crate::grammar::{OperandKind, op};
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

/// The capabilities and extensions a module declares.
pub(super) struct Declared {
    /// Declared capabilities, with the ones they implicitly declare.
    pub caps: BTreeSet<u32>,
    /// Declared extension names.
    pub exts: Vec<String>,
    /// Index of the first and last OpCapability, OpExtension instructions.
    pub cap_section: Option<(usize, usize)>,
    pub ext_section: Option<(usize, usize)>,
}

impl Declared {
    pub fn collect(insts: &[Instruction]) -> Declared {
        let mut d = Declared { caps: BTreeSet::new(), exts: Vec::new(), cap_section: None, ext_section: None };
        let widen = |s: &mut Option<(usize, usize)>, i: usize| {
            *s = Some(match *s {
                None => (i, i),
                Some((a, _)) => (a, i),
            })
        };
        for (i, inst) in insts.iter().enumerate() {
            match inst.opcode {
                op::OpCapability => {
                    if let Some(&c) = inst.operands.first() {
                        d.add_cap(c);
                    }
                    widen(&mut d.cap_section, i);
                }
                op::OpExtension => {
                    d.exts.push(decode_string(&inst.operands));
                    widen(&mut d.ext_section, i);
                }
                _ => {}
            }
        }
        d
    }

    fn add_cap(&mut self, c: u32) {
        let mut stack = alloc::vec![c];
        while let Some(c) = stack.pop() {
            if self.caps.insert(c)
                && let Some(e) = OperandKind::Capability.enumerant(c) {
                    stack.extend_from_slice(e.capabilities);
                }
        }
    }

    pub fn has_cap(&self, c: u32) -> bool {
        self.caps.contains(&c)
    }

    pub fn has_cap_named(&self, name: &str) -> bool {
        OperandKind::Capability.enumerant_by_name(name).is_some_and(|e| self.has_cap(e.value))
    }

    pub fn has_any_cap(&self, caps: &[u32]) -> bool {
        caps.is_empty() || caps.iter().any(|c| self.caps.contains(c))
    }

    pub fn has_ext(&self, name: &str) -> bool {
        self.exts.iter().any(|e| e == name)
    }

    pub fn has_any_ext(&self, exts: &[&str]) -> bool {
        exts.iter().any(|e| self.has_ext(e))
    }
}
