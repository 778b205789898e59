//! Switch constructs and their case constructs (2.11): the header dominates
//! each case, a case leaves only to the merge, another case, or a structured
//! exit, and fall through is a chain that follows the order of the targets.

use super::{bname, label_at, report, term_at};
use crate::cfg::{ConstructKind, EdgeKind, FunctionCfg};
use crate::valid::Context;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// `broken`: per construct of `f`, whether the structured rules found it
/// malformed (such switches are not checked here).
pub(super) fn check(cx: &mut Context<'_>, f: &FunctionCfg, broken: &[bool]) {
    let reach = |b: u32| f.is_structurally_reachable(b);
    let sdom = |a: u32, b: u32| f.structurally_dominates(a, b);
    let exits = CaseExits::compute(f, broken);
    let mut stamp = vec![0u32; f.blocks.len()];
    let mut round = 0u32;
    for (ci, c) in f.constructs().iter().enumerate().filter(|&(ci, c)| c.kind == ConstructKind::Switch && !broken[ci]) {
        let h = c.header;
        let Some(m) = c.merge else { continue };
        let Some(t) = f.blocks[h as usize].terminator else { continue };
        let ts: Vec<u32> = f
            .out_edges(h)
            .iter()
            .filter(|e| e.kind == EdgeKind::Branch && e.instruction == t)
            .map(|e| e.to)
            .collect();
        let Some(&default) = ts.first() else { continue };
        let mut sorted = ts.clone();
        sorted.sort_unstable();
        let is_case = |b: u32| b != m && sorted.binary_search(&b).is_ok();
        let default_multi = ts[1..].contains(&default);
        let mut shared: BTreeMap<u32, u32> = BTreeMap::new();
        let mut seen: BTreeMap<u32, Option<u32>> = BTreeMap::new();
        let mut default_ft: Option<u32> = None;
        let hn = bname(cx, f, h);
        let sw = t as usize;
        'cases: for k in 0..ts.len() {
            let target = ts[k];
            if target == m {
                continue;
            }
            let mut ft = match seen.get(&target) {
                Some(&s) => s,
                None => {
                    if reach(h) && reach(target) && !sdom(h, target) {
                        let tn = bname(cx, f, target);
                        report(
                            cx,
                            "cfg.case-not-dominated",
                            sw,
                            format!("the switch header {hn} does not structurally dominate its case construct {tn}: {tn} is reached without passing through {hn}"),
                            "switch",
                            &[(label_at(f, target), format!("case target {tn}"))],
                        );
                        break 'cases;
                    }
                    // The case construct's exits, computed once for all
                    // switches; on an error, the walk below finds the same
                    // error in the same order as before and reports it.
                    let fast = exits.get(ci, target).and_then(|bnd| {
                        let mut ft: Option<u32> = None;
                        for &y in bnd {
                            if y == m || y == target {
                                continue;
                            }
                            if !is_case(y) {
                                if f.is_structured_exit(ci as u32, y) {
                                    continue;
                                }
                                return None;
                            }
                            match ft {
                                None => ft = Some(y),
                                Some(o) if o != y => return None,
                                _ => {}
                            }
                        }
                        Some(ft)
                    });
                    if let Some(ft) = fast {
                        if let Some(x) = ft {
                            *shared.entry(x).or_insert(0) += 1;
                        }
                        seen.insert(target, ft);
                        ft
                    } else {
                        // Follow the case construct to where it leaves.
                        round += 1;
                        let mut ft: Option<u32> = None;
                        let reach_t = reach(target);
                        let mut stack: Vec<(u32, usize)> = vec![(target, sw)];
                        while let Some((b, via)) = stack.pop() {
                            if b == m || stamp[b as usize] == round {
                                continue;
                            }
                            stamp[b as usize] = round;
                            if reach_t && reach(b) && sdom(target, b) {
                                let term = term_at(f, b);
                                for s in f.successors(b) {
                                    stack.push((s, term));
                                }
                                continue;
                            }
                            let (tn, bn) = (bname(cx, f, target), bname(cx, f, b));
                            if !is_case(b) {
                                if f.is_structured_exit(ci as u32, b) {
                                    continue;
                                }
                                report(
                                    cx,
                                    "cfg.case-invalid-exit",
                                    via,
                                    format!("the case construct that targets {tn} branches to {bn}, which is not another case construct, the switch's merge block, or an enclosing loop's merge block or continue target"),
                                    "invalid branch out of the case",
                                    &[(label_at(f, target), format!("case construct {tn}")), (label_at(f, b), bn.clone()), (sw, format!("switch header {hn}"))],
                                );
                                break 'cases;
                            }
                            match ft {
                                None if target != b => ft = Some(b),
                                None => {}
                                Some(o) if o != b => {
                                    let on = bname(cx, f, o);
                                    report(
                                        cx,
                                        "cfg.case-multiple-fallthrough",
                                        via,
                                        format!("the case construct that targets {tn} branches to two other case constructs, {on} and {bn}; a case may fall through to at most one"),
                                        "second fall through",
                                        &[(label_at(f, target), format!("case construct {tn}")), (label_at(f, o), format!("case {on}")), (label_at(f, b), format!("case {bn}"))],
                                    );
                                    break 'cases;
                                }
                                _ => {}
                            }
                        }
                        if let Some(x) = ft {
                            *shared.entry(x).or_insert(0) += 1;
                        }
                        seen.insert(target, ft);
                        ft
                    }
                }
            };
            if ft == Some(default) && !default_multi {
                ft = default_ft;
            }
            let Some(x) = ft else { continue };
            if k == 0 {
                default_ft = ft;
                continue;
            }
            let mut j = k;
            while j + 1 < ts.len() && ts[j + 1] == target {
                j += 1;
            }
            if ts.get(j + 1) != Some(&x) {
                let (tn, xn) = (bname(cx, f, target), bname(cx, f, x));
                report(
                    cx,
                    "cfg.case-fallthrough-order",
                    sw,
                    format!("the case construct that targets {tn} falls through to the case construct that targets {xn}, but does not immediately precede it in the OpSwitch's target list"),
                    "targets out of order",
                    &[(label_at(f, target), format!("case {tn}")), (label_at(f, x), format!("case {xn}"))],
                );
                break 'cases;
            }
        }
        for (&x, &count) in &shared {
            if count > 1 {
                let xn = bname(cx, f, x);
                report(
                    cx,
                    "cfg.case-fallthrough-shared",
                    label_at(f, x),
                    format!("{count} case constructs fall through to the case construct that targets {xn}; at most one may"),
                    "fall-through target",
                    &[(sw, format!("switch header {hn}"))],
                );
                break;
            }
        }
    }
}

/// The exits of every case construct, each computed once: per (switch, case
/// target) pair, the blocks where the walk from the target over branch edges
/// through blocks the target structurally dominates stops (the blocks outside
/// the case construct it branches to, and the switch's merge block if it is
/// reached). Pairs are walked innermost first (targets in reverse preorder of
/// the structural dominator tree); a walk that reaches an inner case target
/// continues from that target's exits instead of walking its case construct
/// again: a block is entered from outside an inner target's dominator subtree
/// only through that target, so what the walk would do inside is what the
/// inner walk did, minus the inner merge block, which the inner exits hold.
/// Each block and edge is walked once per innermost enclosing case, plus the
/// inner exits handed outwards.
struct CaseExits {
    /// (switch construct index, case target) -> pair index.
    index: BTreeMap<(u32, u32), u32>,
    /// Per pair: the range of its exits in `exits`.
    range: Vec<(u32, u32)>,
    exits: Vec<u32>,
}

impl CaseExits {
    fn compute(f: &FunctionCfg, broken: &[bool]) -> CaseExits {
        const NONE: u32 = u32::MAX;
        const MULTI: u32 = u32::MAX - 1;
        let reach = |b: u32| f.is_structurally_reachable(b);
        let sdom = |a: u32, b: u32| f.structurally_dominates(a, b);
        let n = f.blocks.len();
        // (switch, target, merge)
        let mut pairs: Vec<(u32, u32, u32)> = Vec::new();
        let mut index: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        for (ci, c) in f.constructs().iter().enumerate() {
            if c.kind != ConstructKind::Switch || broken[ci] {
                continue;
            }
            let Some(m) = c.merge else { continue };
            let Some(t) = f.blocks.get(c.header as usize).and_then(|b| b.terminator) else { continue };
            for e in f.out_edges(c.header) {
                if e.kind != EdgeKind::Branch || e.instruction != t || e.to == m || (e.to as usize) >= n {
                    continue;
                }
                let key = (ci as u32, e.to);
                if let alloc::collections::btree_map::Entry::Vacant(slot) = index.entry(key) {
                    slot.insert(pairs.len() as u32);
                    pairs.push((ci as u32, e.to, m));
                }
            }
        }
        // Which pair a block is the target of (reused only when unique).
        let mut owner = vec![NONE; n];
        for (p, &(_, t, _)) in pairs.iter().enumerate() {
            let o = &mut owner[t as usize];
            *o = if *o == NONE { p as u32 } else { MULTI };
        }
        let pre = |b: u32| f.sdom.range(b).map_or(u32::MAX, |r| r.0);
        let mut order: Vec<u32> = (0..pairs.len() as u32).collect();
        order.sort_by_key(|&p| core::cmp::Reverse(pre(pairs[p as usize].1)));

        let mut range = vec![(0u32, 0u32); pairs.len()];
        let mut done = vec![false; pairs.len()];
        let mut exits: Vec<u32> = Vec::new();
        let mut stamp = vec![0u32; n];
        let mut round = 0u32;
        let mut stack: Vec<u32> = Vec::new();
        for p in order {
            let (_, t, m) = pairs[p as usize];
            round += 1;
            let start = exits.len() as u32;
            if !reach(t) {
                exits.push(t);
            } else {
                stack.clear();
                stack.push(t);
                while let Some(b) = stack.pop() {
                    let bi = b as usize;
                    if stamp[bi] == round {
                        continue;
                    }
                    stamp[bi] = round;
                    if b == m || !reach(b) || !sdom(t, b) {
                        exits.push(b);
                        continue;
                    }
                    let q = owner[bi];
                    if b != t && q < MULTI && done[q as usize] && !sdom(b, m) {
                        let (s, e) = range[q as usize];
                        stack.extend_from_slice(&exits[s as usize..e as usize]);
                        continue;
                    }
                    stack.extend(f.successors(b));
                }
            }
            range[p as usize] = (start, exits.len() as u32);
            done[p as usize] = true;
        }
        CaseExits { index, range, exits }
    }

    /// The exits of the case construct of switch `ci` that targets `t`.
    fn get(&self, ci: usize, t: u32) -> Option<&[u32]> {
        let p = *self.index.get(&(ci as u32, t))?;
        let (s, e) = *self.range.get(p as usize)?;
        self.exits.get(s as usize..e as usize)
    }
}
