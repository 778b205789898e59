//! The invocations of a graphics stage: a vertex on its own, a fragment
//! quad's four lanes together. The lanes take turns as a workgroup's
//! invocations do (each until it returns or waits); the instructions a
//! lane waits at ([`crate::interp::ops::group::waits`]) run for the lanes
//! waiting at the same one: the derivatives from their neighbours' values,
//! the group instructions with the quad as the subgroup, demotion to a
//! helper lane. OpKill and OpTerminateInvocation end a lane (it writes
//! nothing). The invocations' memory and frames are set up again in place
//! for each vertex and quad: nothing is allocated for them once the first
//! has run.

use super::{Invocation, State, Status, get, put, setup, turn, written_bufs};
use crate::grammar::{built_in as bi, op};
use crate::interp::error::RunErrorKind;
use crate::interp::io::Slot;
use crate::interp::mem::{Val, at_mut};
use crate::interp::num::{fget, fput};
use crate::interp::ops::group::{Member, is_group_op};
use crate::interp::program::Program;
use crate::interp::race::Races;
use crate::interp::trace::Rec;
use crate::interp::{Options, RunError};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// A stage's invocations (1 for a vertex, 4 for a quad) and the memory
/// they share.
pub(in crate::interp) struct Lanes<'p, 'b> {
    prog: &'p Program<'p>,
    opts: &'p Options,
    st: State<'b>,
    invs: Vec<Invocation>,
    /// Per lane: a helper lane (not covered, or demoted).
    pub helper: [bool; 4],
    /// Per lane: ended by OpKill or OpTerminateInvocation.
    pub killed: [bool; 4],
    /// Instructions run, all lanes of all runs together.
    pub steps: u64,
}

impl<'p, 'b> Lanes<'p, 'b> {
    /// `n` lanes (1 to 4) of `prog` over the buffers `bufs` (by
    /// `prog.bufs`).
    pub fn new(prog: &'p Program<'p>, opts: &'p Options, bufs: &'b mut [Option<Vec<u8>>], n: usize) -> Self {
        let st = State {
            mem: Vec::new(),
            shared: Vec::new(),
            races: Races::new(bufs.len()),
            // Fragments and vertices run in no order the API gives: their
            // accesses are not checked for races.
            watch: false,
            written: written_bufs(prog),
            bufs,
            used: 0,
            groups: [1, 1, 1],
            local_size: [1, 1, 1],
            pool: Vec::new(),
            helper: false,
        };
        let invs = (0..n.clamp(1, 4))
            .map(|_| Invocation {
                lin: 0,
                gid: [0; 3],
                frames: Vec::new(),
                mem: Vec::new(),
                steps: 0,
                status: Status::Done,
                rec: None,
            })
            .collect();
        Lanes { prog, opts, st, invs, helper: [false; 4], killed: [false; 4], steps: 0 }
    }

    /// Set lane `k` up to run from the start as the invocation `id` (a
    /// vertex's `[vertex, instance, 0]`, a fragment's `[x, y, 0]`, which
    /// errors and traces name). Its memory holds the initial values; the
    /// caller writes the inputs ([`Lanes::mem`]).
    pub fn start(&mut self, k: usize, id: [u32; 3], helper: bool) -> Result<(), RunError> {
        if k == 0 {
            self.st.used = 0;
        }
        let inv = &mut self.invs[k];
        setup(self.prog, self.opts, inv, [0; 3], [0; 3], id, k as u32)?;
        self.helper[k] = helper;
        self.killed[k] = false;
        Ok(())
    }

    /// Lane `k`'s per-invocation memory (its Input and Output variables are
    /// there, see `Program::inputs`).
    pub fn mem(&mut self, k: usize) -> &mut [Val] {
        &mut self.invs[k].mem
    }

    /// What lane `k` recorded of its path (tracing on).
    pub fn take_rec(&mut self, k: usize) -> Option<Box<Rec>> {
        self.invs[k].rec.take()
    }

    /// Run the lanes set up until every one has returned or ended.
    pub fn run(&mut self) -> Result<(), RunError> {
        let max = self.opts.max_steps;
        loop {
            for k in 0..self.invs.len() {
                let inv = &mut self.invs[k];
                self.st.helper = self.helper[k];
                while inv.status == Status::Running {
                    match turn(self.prog, self.opts, &mut self.st, inv, max) {
                        Ok(()) => {}
                        Err(e) if e.kind == RunErrorKind::Killed => {
                            inv.status = Status::Done;
                            self.killed[k] = true;
                        }
                        Err(e) => return Err(e),
                    }
                    // A barrier means nothing here (no workgroup).
                    if let Status::Barrier(_) = inv.status {
                        inv.status = Status::Running;
                    }
                }
            }
            // The instruction earliest in the module among those waited at.
            let Some(idx) = self
                .invs
                .iter()
                .filter_map(|i| match i.status {
                    Status::Group(idx) => Some(idx),
                    _ => None,
                })
                .min()
            else {
                break;
            };
            self.together(idx)?;
        }
        for inv in &self.invs {
            self.steps += inv.steps;
        }
        Ok(())
    }

    /// Run the instruction `idx` for the lanes waiting at it.
    fn together(&mut self, idx: u32) -> Result<(), RunError> {
        let prog = self.prog;
        let n = self.invs.len();
        let mut at = [false; 4];
        for (k, i) in self.invs.iter().enumerate() {
            at[k] = i.status == Status::Group(idx);
        }
        let Some(first) = (0..n).find(|&k| at[k]) else { return Ok(()) };
        let Some(fr) = self.invs[first].frames.last() else { return Ok(()) };
        let func = &prog.funcs[fr.f as usize];
        let Some(inst) = func.insts.get(fr.pc as usize) else { return Ok(()) };
        let o = inst.op;
        let located = |kind: RunErrorKind, gid: [u32; 3]| {
            let mut e = RunError::of(Some(inst.idx), kind);
            e.invocation = Some(gid);
            e
        };
        let mut results: [Option<Val>; 4] = [None, None, None, None];
        if is_group_op(o) {
            let empty: &[Val] = &[];
            let mut members: [Member; 4] = core::array::from_fn(|_| Member { id: 0, regs: empty });
            let mut m = 0;
            for k in (0..n).filter(|&k| at[k]) {
                members[m] = Member { id: k as u32, regs: self.invs[k].frames.last().map_or(empty, |f| &f.regs[..]) };
                m += 1;
            }
            let out = crate::interp::ops::group::run(prog, func, inst, &members[..m]).map_err(|kind| located(kind, self.invs[first].gid))?;
            for (k, v) in (0..n).filter(|&k| at[k]).zip(out) {
                results[k] = Some(v);
            }
        } else if o == op::OpDemoteToHelperInvocation {
            for k in (0..n).filter(|&k| at[k]) {
                self.helper[k] = true;
                // HelperInvocation reads the demotion from here on, as a
                // Volatile load of it must (SPV_EXT_demote_to_helper_invocation).
                for leaf in prog.inputs.iter().filter(|l| matches!(l.slot, Slot::BuiltIn(b, _) if b == bi::HelperInvocation)) {
                    if let Some(v) = self.invs[k].mem.get_mut(leaf.var as usize).and_then(|v| at_mut(v, &leaf.path)) {
                        *v = Val::Scalar(1);
                    }
                }
            }
        } else if o == op::OpIsHelperInvocationEXT {
            for k in (0..n).filter(|&k| at[k]) {
                results[k] = Some(Val::Scalar(self.helper[k] as u64));
            }
        } else if (op::OpDPdx..=op::OpFwidthCoarse).contains(&o) {
            let arg = func.args.get(inst.a as usize).copied();
            let Some(arg) = arg else {
                return Err(located(RunErrorKind::MissingOperand, self.invs[first].gid));
            };
            let w = inst.sk.w;
            let vals: [Option<&Val>; 4] = core::array::from_fn(|k| {
                (k < n && at[k]).then(|| self.invs[k].frames.last().map(|f| get(prog, &f.regs, arg))).flatten()
            });
            for k in (0..n).filter(|&k| at[k]) {
                results[k] = Some(derivative(o, &vals, k, w));
            }
        } else {
            return Err(located(RunErrorKind::NotSupported { opcode: o }, self.invs[first].gid));
        }
        let res = inst.res;
        for k in (0..n).filter(|&k| at[k]) {
            let inv = &mut self.invs[k];
            inv.steps += 1;
            if let Some(fr) = inv.frames.last_mut() {
                if let (Some(v), Some(slot)) = (results[k].take(), fr.regs.get_mut(res as usize)) {
                    put(slot, v);
                }
                fr.pc += 1;
            }
            inv.status = Status::Running;
        }
        Ok(())
    }
}

/// `b - a` component by component (floats of width `w`).
fn diff(a: &Val, b: &Val, w: u32) -> Val {
    match (a, b) {
        (Val::Scalar(x), Val::Scalar(y)) => Val::Scalar(fput(fget(*y, w) - fget(*x, w), w)),
        (Val::Composite(xs), Val::Composite(ys)) if xs.len() == ys.len() => {
            Val::Composite(xs.iter().zip(ys).map(|(x, y)| diff(x, y, w)).collect())
        }
        _ => Val::Undef,
    }
}

/// `|a| + |b|` component by component.
fn abs_sum(a: &Val, b: &Val, w: u32) -> Val {
    match (a, b) {
        (Val::Scalar(x), Val::Scalar(y)) => Val::Scalar(fput(fget(*x, w).abs() + fget(*y, w).abs(), w)),
        (Val::Composite(xs), Val::Composite(ys)) if xs.len() == ys.len() => {
            Val::Composite(xs.iter().zip(ys).map(|(x, y)| abs_sum(x, y, w)).collect())
        }
        _ => Val::Undef,
    }
}

/// A derivative for lane `k` of a quad whose lanes hold `vals` (lane `i`
/// at `x + i % 2, y + i / 2`; `None`: not at the instruction, when its
/// neighbour's value stands in). Fine and the plain forms: the difference
/// across the lane's own row (x) or column (y); coarse: across lane 0's
/// row and column, the same for the whole quad ("Derivative Operations").
fn derivative(o: u16, vals: &[Option<&Val>; 4], k: usize, w: u32) -> Val {
    let pick = |i: usize, other: usize| -> &Val {
        vals[i].or(vals[other]).or(vals[k]).unwrap_or(&Val::Undef)
    };
    let dx = |row: usize| diff(pick(row, row + 1), pick(row + 1, row), w);
    let dy = |col: usize| diff(pick(col, col + 2), pick(col + 2, col), w);
    let (fine_row, fine_col) = (k & 2, k & 1);
    match o {
        op::OpDPdx | op::OpDPdxFine => dx(fine_row),
        op::OpDPdy | op::OpDPdyFine => dy(fine_col),
        op::OpDPdxCoarse => dx(0),
        op::OpDPdyCoarse => dy(0),
        op::OpFwidth | op::OpFwidthFine => abs_sum(&dx(fine_row), &dy(fine_col), w),
        _ => abs_sum(&dx(0), &dy(0), w),
    }
}
