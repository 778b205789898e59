//! Deep nesting: WGSL allows at most 127 nested brace-enclosed statements in
//! a function (WGSL section 2.4, "Limits"; naga's WGSL front end enforces
//! exactly that), and a chain of nested selections in SPIR-V has no such
//! limit. [`limit_depth`] rewrites the statements that nest deeper than a
//! target into guarded sequences at a shallow depth.
//!
//! The rewrite works on a statement list at depth `d`, with an optional
//! guard flag `g` (the list stands for `if g { list }`). A statement that
//! fits stays as it is (consecutive ones share one `if g`). An `if` that
//! does not fit is split where its arms first hold a statement that does not
//! fit either:
//!
//! ```text
//! if c { P; X; R } else { Q; Y; S }
//! ```
//! becomes
//! ```text
//! ft = false; fe = false;
//! if g { if c { P; ft = true; } else { Q; fe = true; } }
//! [X; R] under guard ft, at depth d
//! [Y; S] under guard fe, at depth d
//! ```
//! `ft` is set exactly when control reaches the end of `P` normally, so
//! `X; R` runs exactly when it would have (it is under `if c`, inside `if g`,
//! since `ft` is reset at the depth of `g` and set only inside it). The rewrite
//! adds only `if`s: every `break`, `continue` and `return` still leaves the
//! same `loop` or `switch`, so nothing else changes, and the statements run
//! in the same order. Applied again to `X` (under `ft`), a chain of nested
//! selections becomes a flat sequence at most two levels deep. A `loop` or
//! `switch` cannot be opened this way (a `break` in it would change meaning):
//! its bodies are rewritten on their own, so only nests of loops and switches
//! deeper than the limit are left for the writer to refuse.
//!
//! Uniformity: a flag is set under the same conditions the original code ran
//! under, so a barrier behind `if ft` is in uniform control flow exactly when
//! the original was (WGSL's analysis gives the variable the control
//! dependence of its assignment).

use super::{Cond, Stmt};
use alloc::vec::Vec;

/// The depth in braces that [`super::structure`] keeps functions within
/// (the function body's own braces count 1): below WGSL's 127, with room
/// for implementations that count deeper than braces.
pub const DEPTH_TARGET: usize = 64;

/// How many braces `s` opens around its deepest statement.
fn height(s: &Stmt) -> usize {
    match s {
        Stmt::If { then, els, .. } => 1 + list_height(then).max(list_height(els)),
        Stmt::Loop { body, continuing, break_if } => {
            if continuing.is_empty() && break_if.is_none() {
                1 + list_height(body)
            } else {
                (1 + list_height(body)).max(2 + list_height(continuing))
            }
        }
        Stmt::Switch { cases, .. } => 2 + cases.iter().map(|c| list_height(&c.body)).max().unwrap_or(0),
        // Several OpPhi copies are written in a `{ .. }` block of their own.
        Stmt::Phis { .. } => 1,
        _ => 0,
    }
}

fn list_height(v: &[Stmt]) -> usize {
    v.iter().map(height).max().unwrap_or(0)
}

/// Whether `height(s) <= budget`, looking no deeper than `budget` braces
/// (a statement that does not fit is split, and its parts are looked at
/// again: a whole height each time would be quadratic in the nesting).
fn height_within(s: &Stmt, budget: usize) -> bool {
    let list = |v: &[Stmt], b: usize| v.iter().all(|s| height_within(s, b));
    match s {
        Stmt::If { then, els, .. } => budget >= 1 && list(then, budget - 1) && list(els, budget - 1),
        Stmt::Loop { body, continuing, break_if } => {
            budget >= 1
                && list(body, budget - 1)
                && ((continuing.is_empty() && break_if.is_none()) || (budget >= 2 && list(continuing, budget - 2)))
        }
        Stmt::Switch { cases, .. } => budget >= 2 && cases.iter().all(|c| list(&c.body, budget - 2)),
        Stmt::Phis { .. } => budget >= 1,
        _ => true,
    }
}

/// The depth of `body` (a function's statements) in braces, counting the
/// function body's own.
pub fn depth(body: &[Stmt]) -> usize {
    1 + list_height(body)
}

/// Rewrite `body` (a function's statements, with `flags` guard flags in use)
/// so that its `if`s nest at most `target` braces deep where that is
/// possible (see the module's documentation); new guard flags are numbered
/// from `*flags` on, which is updated. A body that fits is left as it is.
pub fn limit_depth(body: &mut Vec<Stmt>, flags: &mut u32, target: usize) {
    // `depth(body) <= target`, looking no deeper than `target`.
    if target >= 1 && body.iter().all(|s| height_within(s, target - 1)) {
        return;
    }
    let old = core::mem::take(body);
    *body = Flat { target, flags }.list(old, None, 1);
}

struct Flat<'a> {
    target: usize,
    flags: &'a mut u32,
}

/// `stmts` under guard `g`, or as they are without one.
fn guarded(g: Option<u32>, stmts: Vec<Stmt>, out: &mut Vec<Stmt>) {
    if stmts.is_empty() {
        return;
    }
    match g {
        Some(flag) => out.push(Stmt::If { cond: Cond::Flag(flag), then: stmts, els: Vec::new() }),
        None => out.extend(stmts),
    }
}

impl Flat<'_> {
    fn fits(&self, s: &Stmt, depth: usize) -> bool {
        depth <= self.target && height_within(s, self.target - depth)
    }

    /// `list` (standing for `if g { list }` when `g` is set) as statements at
    /// depth `d`.
    fn list(&mut self, list: Vec<Stmt>, g: Option<u32>, d: usize) -> Vec<Stmt> {
        let inner = d + g.is_some() as usize;
        let mut out = Vec::new();
        let mut pending = Vec::new();
        for s in list {
            if self.fits(&s, inner) {
                pending.push(s);
                continue;
            }
            guarded(g, core::mem::take(&mut pending), &mut out);
            match s {
                Stmt::If { cond, then, els } => {
                    let (mut th, tt) = self.split(then, inner + 1);
                    let (mut eh, et) = self.split(els, inner + 1);
                    let ft = self.flag_for(&tt, &mut th, &mut out);
                    let fe = self.flag_for(&et, &mut eh, &mut out);
                    guarded(g, alloc::vec![Stmt::If { cond, then: th, els: eh }], &mut out);
                    if let Some(ft) = ft {
                        let v = self.list(tt, Some(ft), d);
                        out.extend(v);
                    }
                    if let Some(fe) = fe {
                        let v = self.list(et, Some(fe), d);
                        out.extend(v);
                    }
                }
                Stmt::Loop { body, continuing, break_if } => {
                    let body = self.list(body, None, inner + 1);
                    let continuing = self.list(continuing, None, inner + 2);
                    guarded(g, alloc::vec![Stmt::Loop { body, continuing, break_if }], &mut out);
                }
                Stmt::Switch { selector, cases } => {
                    let cases = cases
                        .into_iter()
                        .map(|mut c| {
                            c.body = self.list(core::mem::take(&mut c.body), None, inner + 2);
                            c
                        })
                        .collect();
                    guarded(g, alloc::vec![Stmt::Switch { selector, cases }], &mut out);
                }
                s => pending.push(s),
            }
        }
        guarded(g, pending, &mut out);
        out
    }

    /// `list` cut before its first statement that does not fit at `depth`.
    fn split(&self, mut list: Vec<Stmt>, depth: usize) -> (Vec<Stmt>, Vec<Stmt>) {
        match list.iter().position(|s| !self.fits(s, depth)) {
            Some(k) => {
                let tail = list.split_off(k);
                (list, tail)
            }
            None => (list, Vec::new()),
        }
    }

    /// A fresh flag, reset in `out` and set at the end of `head`, when `tail`
    /// has statements.
    fn flag_for(&mut self, tail: &[Stmt], head: &mut Vec<Stmt>, out: &mut Vec<Stmt>) -> Option<u32> {
        if tail.is_empty() {
            return None;
        }
        let f = *self.flags;
        *self.flags += 1;
        out.push(Stmt::SetFlag { flag: f, value: false });
        head.push(Stmt::SetFlag { flag: f, value: true });
        Some(f)
    }
}
