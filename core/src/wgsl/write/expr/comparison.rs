//! Comparisons (integers in the signedness the instruction says; unordered
//! float comparisons as the negation of the opposite ordered one), logical
//! operators, NaN and infinity tests.

use super::Instruction;
use crate::grammar::class::{self, Num as OpNum, OpClass, Order, Relation};
use crate::grammar::op;
use crate::wgsl::refuse::{Refusal, RefusalCode};
use crate::wgsl::types::{Kind, Num, cat};
use crate::wgsl::write::ModuleWriter;
use crate::wgsl::write::function::FunctionContext;
use alloc::format;
use alloc::string::String;

impl ModuleWriter<'_> {
    /// Comparisons and logical operators, NaN and infinity tests.
    pub(in crate::wgsl::write) fn comparison(&mut self, f: &mut FunctionContext, inst: &Instruction) -> Result<Option<String>, Refusal> {
        let Instruction { opcode: o, words, .. } = *inst;
        let arg = |k: usize| words.get(k).copied().unwrap_or(0);
        if let OpClass::Compare { num, order, relation: Some(relation) } = class::of(o) {
            // An unordered comparison is the negation of the opposite
            // ordered one: true when an operand is NaN.
            let unordered = order == Order::Unordered;
            let symbol = relation_symbol(if unordered { negated(relation) } else { relation });
            let e = match num {
                OpNum::Float => self.fcmp(f, words, symbol, unordered)?,
                OpNum::Signed => self.cmp(f, words, symbol, Some(Kind::I32))?,
                OpNum::Unsigned => self.cmp(f, words, symbol, Some(Kind::U32))?,
                OpNum::Int | OpNum::Bool => self.cmp(f, words, symbol, None)?,
            };
            return Ok(Some(e));
        }
        let e: String = match o {
            op::OpLogicalAnd => format!("({} & {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpLogicalOr => format!("({} | {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpLogicalEqual => format!("({} == {})", self.val(f, arg(2))?, self.val(f, arg(3))?),
            op::OpLogicalNotEqual => {
                format!("({} != {})", self.val(f, arg(2))?, self.val(f, arg(3))?)
            }
            op::OpLogicalNot => format!("!({})", self.val(f, arg(2))?),
            op::OpAny => format!("any({})", self.val(f, arg(2))?),
            op::OpAll => format!("all({})", self.val(f, arg(2))?),
            op::OpIsNan => {
                let x = self.val(f, arg(2))?;
                match self.num_of(arg(2)) {
                    // `x != x` on f16 comes out false for a NaN on lavapipe
                    // (tests/gpu-repros/ours-f16-isnan.amber): test the bits
                    // of the f32 it converts to (a NaN stays a NaN).
                    Some(Num { kind: Kind::F16, n: 1 }) => format!("((bitcast<u32>(f32({x})) & 0x7fffffffu) > 0x7f800000u)"),
                    _ => format!("({x} != {x})"),
                }
            }
            op::OpIsInf => {
                let x = self.val(f, arg(2))?;
                let n = self.num_of(arg(2)).unwrap_or(Num { kind: Kind::F32, n: 1 });
                let big = if n.kind == Kind::F16 { "65504.0h" } else { "3.4028235e38f" };
                let big = if n.n == 1 { String::from(big) } else { format!("{}({big})", n.text()) };
                format!("(abs({x}) > {big})")
            }
            _ => return Err(inst.unsupported(self.ir)),
        };
        Ok(Some(e))
    }

    pub(in crate::wgsl::write) fn cmp(&mut self, f: &mut FunctionContext, words: &[u32], op: &str, sign: Option<Kind>) -> Result<String, Refusal> {
        let Some(a0) = self.num_of(words[2]) else {
            return Err(Refusal::new(RefusalCode::Type, "a comparison on a type WGSL lacks", None));
        };
        let c = a0.with(sign.unwrap_or(a0.kind));
        let mut s = self.expr_buffer();
        self.push_bin(f, words, op, c, &mut s)?;
        Ok(s)
    }

    /// A float comparison; `negate`: the unordered form, as the negation of
    /// the opposite ordered one.
    pub(in crate::wgsl::write) fn fcmp(&mut self, f: &mut FunctionContext, words: &[u32], op: &str, negate: bool) -> Result<String, Refusal> {
        let a = self.val(f, words[2])?;
        let b = self.val(f, words[3])?;
        Ok(cat(&[if negate { "!(" } else { "(" }, &a, " ", op, " ", &b, ")"]))
    }
}

/// WGSL's operator for a comparison's relation.
fn relation_symbol(r: Relation) -> &'static str {
    match r {
        Relation::Equal => "==",
        Relation::NotEqual => "!=",
        Relation::Less => "<",
        Relation::LessEqual => "<=",
        Relation::Greater => ">",
        Relation::GreaterEqual => ">=",
    }
}

/// The relation that holds exactly when `r` does not (for ordered operands).
fn negated(r: Relation) -> Relation {
    match r {
        Relation::Equal => Relation::NotEqual,
        Relation::NotEqual => Relation::Equal,
        Relation::Less => Relation::GreaterEqual,
        Relation::LessEqual => Relation::Greater,
        Relation::Greater => Relation::LessEqual,
        Relation::GreaterEqual => Relation::Less,
    }
}
