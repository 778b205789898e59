//! The trace-walk oracle for `wgsl::shape`: a [`Shape`] is run along a block
//! path the interpreter recorded, deciding each `if` and `switch` on a SPIR-V
//! value by which successor the path takes next (read from the module's
//! terminators), and simulating guard flags and dispatch variables. The walk
//! must visit exactly the path's blocks in order, copy OpPhi values on every
//! edge into a block with OpPhis (from the block that branched), and end at a
//! `return` with the whole path consumed.

use spvlab_core::Module;
use spvlab_core::cfg::{EdgeKind, FunctionCfg};
use spvlab_core::grammar::op;
use spvlab_core::wgsl::shape::{CaseValues, Cond, Selector, Shape, Stmt};

enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

struct Walk<'a> {
    m: &'a Module,
    f: &'a FunctionCfg,
    path: &'a [u32],
    pos: usize,
    last: Option<u32>,
    /// The OpPhi copies done since the last block: (from, to).
    phis: Option<(u32, u32)>,
    flags: Vec<bool>,
    vars: Vec<u32>,
    steps: u64,
}

fn has_phi(m: &Module, f: &FunctionCfg, b: u32) -> bool {
    let blk = &f.blocks[b as usize];
    m.instructions[blk.start as usize + 1..blk.end as usize]
        .iter()
        .take_while(|i| matches!(i.opcode, op::OpPhi | op::OpLine | op::OpNoLine))
        .any(|i| i.opcode == op::OpPhi)
}

impl Walk<'_> {
    fn next(&self) -> Result<u32, String> {
        self.path.get(self.pos).copied().ok_or_else(|| format!("a decision after the end of the path (at {})", self.pos))
    }

    fn term(&self) -> Result<(u16, &[u32]), String> {
        let b = self.last.ok_or("a decision before any block")?;
        let t = self.f.blocks[b as usize].terminator.ok_or("no terminator")?;
        let i = &self.m.instructions[t as usize];
        Ok((i.opcode, &i.operands))
    }

    fn eval(&self, c: &Cond) -> Result<bool, String> {
        Ok(match c {
            Cond::Id(id) => {
                let (opc, ops) = self.term()?;
                if opc != op::OpBranchConditional || ops[0] != *id {
                    return Err(format!("condition %{id} is not the branch condition of block {:?}", self.last));
                }
                let t = self.f.block_of(ops[1]).ok_or("bad target")?;
                t == self.next()?
            }
            Cond::Not(c) => !self.eval(c)?,
            Cond::Flag(i) => *self.flags.get(*i as usize).ok_or("undeclared flag")?,
            Cond::VarIs { var, value } => *self.vars.get(*var as usize).ok_or("undeclared variable")? == *value,
            Cond::True => true,
        })
    }

    /// The literals (low words) whose OpSwitch target is the path's next block.
    fn switch_lits(&self, sel: u32) -> Result<(Vec<u32>, bool), String> {
        let (opc, ops) = self.term()?;
        if opc != op::OpSwitch || ops[0] != sel {
            return Err(format!("selector %{sel} is not the OpSwitch selector of block {:?}", self.last));
        }
        let b = self.last.unwrap();
        let lw = self
            .f
            .out_edges(b)
            .iter()
            .filter(|e| e.kind == EdgeKind::Branch && e.operand >= 2)
            .map(|e| e.operand as usize - 2)
            .min()
            .unwrap_or(1)
            .max(1);
        let next = self.next()?;
        let mut lits = Vec::new();
        for case in ops[2..].chunks(lw + 1) {
            if self.f.block_of(case[lw]) == Some(next) {
                lits.push(case[0]);
            }
        }
        // The default is taken when no literal leads to the next block.
        let default = lits.is_empty() && self.f.block_of(ops[1]) == Some(next);
        Ok((lits, default))
    }

    fn run(&mut self, stmts: &[Stmt]) -> Result<Flow, String> {
        for s in stmts {
            self.steps += 1;
            if self.steps > 50 * self.path.len() as u64 + 10_000 {
                return Err("the walk does not end".into());
            }
            match s {
                Stmt::Block(b) => {
                    let want = self.next().map_err(|_| format!("block {b} after the end of the path"))?;
                    if *b != want {
                        return Err(format!("block {b} where the path has block {want} (at {})", self.pos));
                    }
                    if let Some(prev) = self.last
                        && has_phi(self.m, self.f, *b)
                        && self.phis != Some((prev, *b))
                    {
                        return Err(format!("no OpPhi copies for the edge {prev} -> {b}"));
                    }
                    self.phis = None;
                    self.last = Some(*b);
                    self.pos += 1;
                }
                Stmt::Phis { from, to } => {
                    if self.last != Some(*from) || self.next().ok() != Some(*to) {
                        return Err(format!(
                            "OpPhi copies for {from} -> {to} on the edge {:?} -> {:?}",
                            self.last,
                            self.next().ok()
                        ));
                    }
                    self.phis = Some((*from, *to));
                }
                Stmt::If { cond, then, els } => {
                    let f = if self.eval(cond)? { self.run(then)? } else { self.run(els)? };
                    if !matches!(f, Flow::Normal) {
                        return Ok(f);
                    }
                }
                Stmt::Switch { selector, cases } => {
                    let pick = match selector {
                        Selector::Id(sel) => {
                            let (lits, default) = self.switch_lits(*sel)?;
                            cases.iter().position(|c| match &c.values {
                                CaseValues::Values(v) => v.iter().any(|x| lits.contains(x)),
                                CaseValues::Default(v) => default || v.iter().any(|x| lits.contains(x)),
                            })
                        }
                        Selector::Var(v) => {
                            let x = *self.vars.get(*v as usize).ok_or("undeclared variable")?;
                            cases
                                .iter()
                                .position(|c| matches!(&c.values, CaseValues::Values(v) | CaseValues::Default(v) if v.contains(&x)))
                                .or_else(|| cases.iter().position(|c| matches!(c.values, CaseValues::Default(_))))
                        }
                    };
                    let Some(i) = pick else { return Err("no case of the switch is taken".into()) };
                    match self.run(&cases[i].body)? {
                        Flow::Normal | Flow::Break => {}
                        f => return Ok(f),
                    }
                }
                Stmt::Loop { body, continuing, break_if } => loop {
                    let before = (self.pos, self.vars.clone());
                    match self.run(body)? {
                        Flow::Break => break,
                        Flow::Return => return Ok(Flow::Return),
                        Flow::Normal | Flow::Continue => {}
                    }
                    match self.run(continuing)? {
                        Flow::Normal => {}
                        _ => return Err("a jump out of a continuing block".into()),
                    }
                    if let Some(c) = break_if
                        && self.eval(c)?
                    {
                        break;
                    }
                    if (self.pos, self.vars.clone()) == before {
                        return Err("a loop iteration that visits no block".into());
                    }
                },
                Stmt::Break => return Ok(Flow::Break),
                Stmt::Continue => return Ok(Flow::Continue),
                Stmt::Return(_) | Stmt::Discard => return Ok(Flow::Return),
                Stmt::Unreachable => return Err("reached `unreachable`".into()),
                Stmt::SetFlag { flag, value } => {
                    *self.flags.get_mut(*flag as usize).ok_or("undeclared flag")? = *value;
                }
                Stmt::SetVar { var, value } => {
                    *self.vars.get_mut(*var as usize).ok_or("undeclared variable")? = *value;
                }
            }
        }
        Ok(Flow::Normal)
    }
}

/// Walk `shape` (of function `f` of `m`) along `path` (block indices).
pub fn walk(m: &Module, f: &FunctionCfg, shape: &Shape, path: &[u32]) -> Result<(), String> {
    let mut w = Walk {
        m,
        f,
        path,
        pos: 0,
        last: None,
        phis: None,
        flags: vec![false; shape.flags as usize],
        vars: vec![0; shape.vars as usize],
        steps: 0,
    };
    match w.run(&shape.body)? {
        Flow::Return if w.pos == path.len() => Ok(()),
        Flow::Return => Err(format!("returned after {} of the path's {} blocks", w.pos, path.len())),
        _ => Err(format!("the body ended without a return after {} of {} blocks", w.pos, path.len())),
    }
}
