//! Switch constructs and their case constructs (2.11): the header dominates
//! each case, a case leaves only to the merge, another case, or a structured
//! exit, and fall through is a chain that follows the order of the targets.

use super::structured::{Kind, View};
use super::{bname, label_at, report, term_at};
use crate::cfg::EdgeKind;
use crate::valid::Context;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

pub(super) fn check(cx: &mut Context<'_>, v: &View<'_>) {
    let f = v.f;
    let mut stamp = vec![0u32; f.blocks.len()];
    let mut round = 0u32;
    for c in v.cons.iter().filter(|c| c.kind == Kind::Switch && !c.broken) {
        let h = c.header;
        let Some(m) = c.exit else { continue };
        let Some(t) = f.blocks[h as usize].terminator else { continue };
        let ts: Vec<u32> = f
            .out_edges(h)
            .iter()
            .filter(|e| e.kind == EdgeKind::Branch && e.instruction == t)
            .map(|e| e.to)
            .collect();
        let Some(&default) = ts.first() else { continue };
        let is_case = |b: u32| b != m && ts.contains(&b);
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
                    if v.reach(h) && v.reach(target) && !v.sdom(h, target) {
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
                    // Follow the case construct to where it leaves.
                    round += 1;
                    let mut ft: Option<u32> = None;
                    let reach_t = v.reach(target);
                    let mut stack: Vec<(u32, usize)> = vec![(target, sw)];
                    while let Some((b, via)) = stack.pop() {
                        if b == m || stamp[b as usize] == round {
                            continue;
                        }
                        stamp[b as usize] = round;
                        if reach_t && v.reach(b) && v.sdom(target, b) {
                            let term = term_at(f, b);
                            for s in f.successors(b) {
                                stack.push((s, term));
                            }
                            continue;
                        }
                        let (tn, bn) = (bname(cx, f, target), bname(cx, f, b));
                        if !is_case(b) {
                            if v.is_structured_exit(cx, c, b) {
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
                            None => {
                                if target != b {
                                    ft = Some(b);
                                }
                            }
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
