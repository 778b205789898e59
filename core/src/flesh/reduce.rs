//! Reducing a finding: a fleshed program on which a backend goes wrong is
//! made smaller while the backend still goes wrong in the same way (the
//! caller's test says so). Each step tries, in order:
//!
//! 1. dropping invocations' paths (multi mode), half of them first;
//! 2. cutting a path short (its first half, then shorter prefixes), the rest
//!    the shortest route to a return;
//! 3. turning a conditional branch or switch into a branch to one of its
//!    targets (a selection header loses its merge), and removing what it no
//!    longer reaches;
//!    A header may branch straight to its merge block instead (the whole
//!    construct dropped), a header whose targets are all its merge block
//!    loses its merge, a loop is undone (its back edges go to its merge
//!    block), a switch loses a case or sends it to its merge block or to
//!    the default's target;
//! 4. removing the blocks that nothing reachable needs any more;
//! 5. merging a block into the only block that branches to it.
//!
//! A candidate is kept only when its skeleton is valid (the validator's
//! verdict on its module) and the test holds on its program; the paths
//! follow the old ones where they still can. Reduction ends when no
//! candidate is kept, or after `max_tries` tests.

use super::path::{self, Path};
use super::program::{Fleshed, Options, flesh_paths};
use super::skeleton::{Label, Merge, Skeleton, Term};
use crate::analysis::Analysis;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;

/// A skeleton and the paths its program is forced along.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub skeleton: Skeleton,
    pub paths: Vec<Path>,
}

impl Case {
    /// What reduction makes smaller: blocks, merge instructions, branch
    /// targets and path lengths.
    pub fn size(&self) -> usize {
        let blocks: usize =
            self.skeleton.blocks.iter().map(|b| 1 + usize::from(b.merge.is_some()) + b.term.targets().len()).sum();
        blocks + self.paths.iter().map(|p| p.blocks.len()).sum::<usize>()
    }
}

/// What reduction did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reduced {
    pub case: Case,
    pub program: Fleshed,
    /// Candidates tested, and kept.
    pub tried: u32,
    pub kept: u32,
}

/// Reduce `case` (its program fleshed with `opts`) while `still_fails`
/// holds on the program; at most `max_tries` calls of it.
pub fn reduce(case: Case, opts: &Options, max_tries: u32, mut still_fails: impl FnMut(&Fleshed) -> bool) -> Reduced {
    let mut best = case;
    let (mut tried, mut kept) = (0u32, 0u32);
    'outer: loop {
        for cand in candidates(&best) {
            if tried >= max_tries {
                break 'outer;
            }
            if cand.size() >= best.size() {
                continue;
            }
            if !valid(&cand.skeleton) {
                continue;
            }
            tried += 1;
            if still_fails(&flesh_paths(&cand.skeleton, opts, cand.paths.clone())) {
                best = cand;
                kept += 1;
                continue 'outer;
            }
        }
        break;
    }
    let program = flesh_paths(&best.skeleton, opts, best.paths.clone());
    Reduced { case: best, program, tried, kept }
}

fn valid(s: &Skeleton) -> bool {
    Analysis::of_text(&s.module_text(), &crate::valid::Options::default()).is_valid()
}

/// `s`, less what nothing reachable needs, with `c`'s paths followed on it
/// (`None` when one has no way out).
fn pruned(c: &Case, s: Skeleton) -> Option<Case> {
    let s = prune(&s).unwrap_or(s);
    refollow(&s, &c.paths).map(|paths| Case { skeleton: s, paths })
}

/// The paths of `old` followed on `s` (`None` when one has no way out).
fn refollow(s: &Skeleton, old: &[Path]) -> Option<Vec<Path>> {
    old.iter().map(|p| path::follow(s, &p.blocks)).collect()
}

/// The smaller cases to try, most promising first.
fn candidates(c: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    // 1. Fewer invocations: half of them dropped, then a quarter, and so on
    //    down to one (a finding of 256 paths needs a few runs, not 256).
    let n = c.paths.len();
    let mut chunk = n / 2;
    while chunk >= 1 && n > 1 {
        for start in (0..n).step_by(chunk) {
            let mut paths = c.paths.clone();
            paths.drain(start..(start + chunk).min(n));
            if !paths.is_empty() {
                out.push(Case { skeleton: c.skeleton.clone(), paths });
            }
        }
        chunk /= 2;
    }
    // 2. Shorter paths.
    for (k, p) in c.paths.iter().enumerate() {
        let mut cut = p.blocks.len() / 2;
        while cut >= 1 {
            if let Some(short) = path::follow(&c.skeleton, &p.blocks[..cut])
                && short.blocks.len() < p.blocks.len()
            {
                let mut paths = c.paths.clone();
                paths[k] = short;
                out.push(Case { skeleton: c.skeleton.clone(), paths });
            }
            cut /= 2;
        }
    }
    // 3. A decision made fixed.
    for (i, b) in c.skeleton.blocks.iter().enumerate() {
        let mut targets = b.term.targets();
        if !matches!(b.term, Term::Cond(..) | Term::Switch(..)) {
            continue;
        }
        targets.dedup();
        let mut seen = BTreeSet::new();
        for t in targets {
            if !seen.insert(t) {
                continue;
            }
            let mut s = c.skeleton.clone();
            s.blocks[i].term = Term::Branch(t);
            if let Some(Merge::Selection(_)) = s.blocks[i].merge {
                s.blocks[i].merge = None;
            }
            // What the decision no longer reaches goes with it.
            out.extend(pruned(c, s));
        }
    }
    // A loop skipped: its header branches straight to its merge block, and
    // a header whose every target is its merge block loses the merge.
    for (i, b) in c.skeleton.blocks.iter().enumerate() {
        let Some(m) = b.merge else { continue };
        let mut s = c.skeleton.clone();
        if b.term.targets().iter().all(|&t| t == m.block()) {
            s.blocks[i].merge = None;
        } else if matches!(m, Merge::Loop(..)) {
            s.blocks[i].term = Term::Branch(m.block());
        } else if b.term.targets().contains(&m.block()) {
            // A decision made fixed (above) already sends it to the merge.
            continue;
        } else {
            // A selection or switch dropped whole: the header goes straight
            // to its merge block.
            s.blocks[i].merge = None;
            s.blocks[i].term = Term::Branch(m.block());
        }
        out.extend(pruned(c, s));
    }
    // A loop undone: its header loses the loop merge and the branches back
    // to it go to its merge block.
    for (i, b) in c.skeleton.blocks.iter().enumerate() {
        let Some(Merge::Loop(m, _)) = b.merge else { continue };
        let mut s = c.skeleton.clone();
        s.blocks[i].merge = None;
        let h = b.label;
        // The header's own way out to the merge goes: the loop's exit is
        // now its back edge.
        if let Term::Cond(_, x, y) = b.term
            && (x == m) != (y == m)
        {
            s.blocks[i].term = Term::Branch(if x == m { y } else { x });
        }
        for later in &mut s.blocks[i..] {
            for t in later.term.targets_mut() {
                if *t == h {
                    *t = m;
                }
            }
            // A back-edge block that chose between the header and the
            // merge now has one way.
            if let Term::Cond(_, x, y) = later.term
                && x == y
            {
                later.term = Term::Branch(x);
            }
        }
        out.extend(pruned(c, s));
    }
    // A switch case dropped, or sent to the merge block or the default's
    // target instead (the case's own blocks go, the case stays).
    for (i, b) in c.skeleton.blocks.iter().enumerate() {
        let Term::Switch(_, default, cases) = &b.term else { continue };
        let merge = b.merge.map(Merge::block);
        for k in 0..cases.len() {
            let mut changed = alloc::vec![None];
            for to in merge.into_iter().chain([*default]) {
                if cases[k].1 != to && !changed.contains(&Some(to)) {
                    changed.push(Some(to));
                }
            }
            for to in changed {
                let mut s = c.skeleton.clone();
                if let Term::Switch(_, _, cases) = &mut s.blocks[i].term {
                    match to {
                        None => {
                            cases.remove(k);
                        }
                        Some(t) => cases[k].1 = t,
                    }
                }
                out.extend(pruned(c, s));
            }
        }
    }
    // 4. Blocks nothing reachable needs.
    if let Some(s) = prune(&c.skeleton)
        && let Some(paths) = refollow(&s, &c.paths)
    {
        out.push(Case { skeleton: s, paths });
    }
    // 5. A block merged into its only predecessor.
    for s in merges(&c.skeleton) {
        if let Some(paths) = refollow(&s, &c.paths) {
            out.push(Case { skeleton: s, paths });
        }
    }
    out
}

/// `s` without the blocks that are not reachable and not named by a
/// reachable header (`None` when there are none); the unreachable merge
/// blocks and continue targets that stay are written as the generator
/// writes them (`OpUnreachable`; a branch back to the loop header).
fn prune(s: &Skeleton) -> Option<Skeleton> {
    let pos: BTreeMap<Label, usize> = s.blocks.iter().enumerate().map(|(i, b)| (b.label, i)).collect();
    let mut reach = alloc::vec![false; s.blocks.len()];
    let mut stack = alloc::vec![0usize];
    while let Some(i) = stack.pop() {
        if core::mem::replace(&mut reach[i], true) {
            continue;
        }
        stack.extend(s.blocks[i].term.targets().iter().filter_map(|t| pos.get(t).copied()));
    }
    let mut keep = reach.clone();
    let mut continue_of: BTreeMap<Label, Label> = BTreeMap::new();
    for (i, b) in s.blocks.iter().enumerate() {
        if !reach[i] {
            continue;
        }
        if let Some(m) = b.merge {
            // A skeleton read from a file may name a block it lacks.
            if let Some(&j) = pos.get(&m.block()) {
                keep[j] = true;
            }
            if let Merge::Loop(_, c) = m {
                if let Some(&j) = pos.get(&c) {
                    keep[j] = true;
                }
                continue_of.insert(c, b.label);
            }
        }
    }
    if keep.iter().all(|&k| k) && (0..s.blocks.len()).all(|i| reach[i] || s.blocks[i].merge.is_none()) {
        return None;
    }
    let mut blocks = Vec::new();
    for (i, b) in s.blocks.iter().enumerate() {
        if !keep[i] {
            continue;
        }
        let mut b = b.clone();
        if !reach[i] {
            b.merge = None;
            b.term = match continue_of.get(&b.label) {
                Some(&h) => Term::Branch(h),
                None => Term::Unreachable,
            };
        }
        blocks.push(b);
    }
    let names = s.names.iter().filter(|(l, _)| blocks.iter().any(|b| b.label == **l)).map(|(l, n)| (*l, n.clone())).collect();
    Some(Skeleton { blocks, names })
}

/// Each skeleton made by merging a block B into A, where A (without a merge
/// instruction) branches only to B and nothing else branches to B, and B is
/// neither a merge block nor a continue target.
fn merges(s: &Skeleton) -> Vec<Skeleton> {
    let mut preds: BTreeMap<Label, usize> = BTreeMap::new();
    let mut named = BTreeSet::new();
    for b in &s.blocks {
        for t in b.term.targets() {
            *preds.entry(t).or_default() += 1;
        }
        if let Some(m) = b.merge {
            named.insert(m.block());
            if let Merge::Loop(_, c) = m {
                named.insert(c);
            }
        }
    }
    let mut out = Vec::new();
    for (i, a) in s.blocks.iter().enumerate() {
        let Term::Branch(t) = a.term else { continue };
        if a.merge.is_some() || t == a.label || named.contains(&t) || preds.get(&t) != Some(&1) {
            continue;
        }
        let Some(j) = s.position(t) else { continue };
        if j == 0 {
            continue;
        }
        let mut m = s.clone();
        let b = m.blocks.remove(j);
        let i = if j < i { i - 1 } else { i };
        m.blocks[i].merge = b.merge;
        m.blocks[i].term = b.term;
        m.names.remove(&b.label);
        out.push(m);
    }
    out
}
