//! The structured rules (Shader): back edges, constructs and their exits.
//!
//! They judge the one analysis in `crate::cfg`: its back edges
//! ([`FunctionCfg::back_edge_pairs`]), its constructs and their membership
//! ([`FunctionCfg::constructs`], [`FunctionCfg::construct_contains`]) and its
//! structured-exit rule ([`FunctionCfg::is_structured_exit`]), the same the
//! page draws. What is kept here is only the rules and their messages.

use crate::grammar::op;
use super::{bname, label_at, report, term_at};
use crate::cfg::{Construct, ConstructKind, EdgeKind, FunctionCfg, MergeKind, NONE};
use crate::valid::Context;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// How a construct's kind is named in messages.
fn word(k: ConstructKind) -> &'static str {
    match k {
        ConstructKind::Selection => "selection",
        ConstructKind::Switch => "switch",
        ConstructKind::Loop => "loop",
        ConstructKind::Continue => "continue",
        ConstructKind::Case => "case",
    }
}

/// How a construct's entry block is named in messages.
fn header_word(k: ConstructKind) -> &'static str {
    match k {
        ConstructKind::Selection => "selection header",
        ConstructKind::Switch => "switch header",
        ConstructKind::Loop => "loop header",
        ConstructKind::Continue => "continue target",
        ConstructKind::Case => "case target",
    }
}

/// The merge instruction that declares a construct (its header's).
pub(super) fn merge_inst(f: &FunctionCfg, c: &Construct) -> usize {
    f.blocks[c.header as usize].merge.map_or(label_at(f, c.header), |m| m.instruction as usize)
}

/// Jump pointers: per block, the nearest structural dominator (itself
/// included) with a non-empty list in `lists`.
fn nearest(f: &FunctionCfg, lists: &[Vec<u32>]) -> Vec<u32> {
    let mut out = vec![NONE; lists.len()];
    for &x in f.sdom.preorder() {
        let xi = x as usize;
        if xi >= out.len() {
            continue;
        }
        out[xi] = if !lists[xi].is_empty() {
            x
        } else {
            f.sdom.idom(x).map_or(NONE, |d| out[d as usize])
        };
    }
    out
}

pub(super) fn check(cx: &mut Context<'_>, f: &FunctionCfg) {
    let n = f.blocks.len();
    let mut bad = false;

    // Back edges target loop headers; one back-edge block per loop header.
    let back = f.back_edge_pairs();
    let is_loop_header =
        |b: u32| f.blocks[b as usize].merge.is_some_and(|m| m.kind == MergeKind::Loop);
    // The notes replay the search (O(function) each): the first few only.
    let mut notes_left = 16u32;
    let mut r1_back: Option<Vec<(u32, u32)>> = None;
    for &(from, to) in back {
        if !is_loop_header(to) {
            bad = true;
            let (a, b) = (bname(cx, f, from), bname(cx, f, to));
            report(
                cx,
                "cfg.back-edge-not-to-loop-header",
                term_at(f, from),
                format!("the back edge {a} -> {b} does not target a loop header: {b} has no OpLoopMerge, and back edges can only be formed between a block and a loop header"),
                "back edge",
                &[(label_at(f, to), format!("{b} is not a loop header"))],
            );
            let note = if notes_left > 0 {
                notes_left -= 1;
                let r1 = r1_back.get_or_insert_with(|| f.r1_back_edges());
                back_edge_note(cx, f, from, to, r1)
            } else {
                None
            };
            if let (Some(d), Some(note)) = (cx.diags.last_mut(), note) {
                d.help = Some(note);
            }
        }
    }
    let mut latches: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(from, to) in back {
        if !latches[to as usize].contains(&from) {
            latches[to as usize].push(from);
        }
    }
    for h in 0..n as u32 {
        if !is_loop_header(h) || !f.is_structurally_reachable(h) {
            continue;
        }
        let k = latches[h as usize].len();
        if k != 1 {
            bad = true;
            let hn = bname(cx, f, h);
            let mi = f.blocks[h as usize].merge.map_or(label_at(f, h), |m| m.instruction as usize);
            let mut rel = vec![(label_at(f, h), format!("loop header {hn}"))];
            for &l in &latches[h as usize] {
                let ln = bname(cx, f, l);
                rel.push((term_at(f, l), format!("back edge from {ln}")));
            }
            let msg = if k == 0 {
                format!("the loop header {hn} is targeted by no back-edge block; the standard requires exactly one (the loop never branches back to its header)")
            } else {
                format!("the loop header {hn} is targeted by {k} back-edge blocks, but the standard requires exactly one")
            };
            report(cx, "cfg.back-edge-count", mi, msg, "loop declared here", &rel);
        }
    }

    if bad {
        // The construct rules read back edges, but a header's structural
        // dominance of its merge block does not: report it too, as the root
        // cause it often is (Fig. 7 of Klimis et al.: the cyclic merges make
        // 8 -> 5 a back edge, and header 10 does not structurally dominate its
        // merge block 5).
        for c in f.constructs() {
            let header_kind = matches!(c.kind, ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Loop);
            if let Some(m) = c.merge
                && header_kind
                && f.is_structurally_reachable(c.entry)
                && !f.structurally_dominates(c.entry, m)
            {
                merge_not_dominated(cx, f, c, m);
            }
        }
    } else {
        // Constructs of the structured rules: every construct of the
        // function but the case constructs (the switch rules walk those).
        // Constructs with an error found below are marked broken and skipped
        // by the rules that read membership.
        let mut broken: Vec<bool> =
            f.constructs().iter().map(|c| c.kind == ConstructKind::Case).collect();
        constructs(cx, f, &mut broken, &latches);
        super::switch::check(cx, f, &broken);
    }
    selections(cx, f);
}

fn constructs(cx: &mut Context<'_>, f: &FunctionCfg, broken: &mut [bool], latches: &[Vec<u32>]) {
    let n = f.blocks.len();
    let cons = f.constructs();
    let reach = |b: u32| f.is_structurally_reachable(b);
    let sdom = |a: u32, b: u32| f.structurally_dominates(a, b);
    // Dominance and post-dominance of each construct's ends.
    for (ci, c) in cons.iter().enumerate() {
        if broken[ci] {
            continue;
        }
        if !reach(c.entry) {
            broken[ci] = true;
            continue;
        }
        let mi = merge_inst(f, c);
        let en = bname(cx, f, c.entry);
        let hn = bname(cx, f, c.header);
        let Some(exit) = c.exit() else {
            broken[ci] = true;
            report(
                cx,
                "cfg.continue-without-back-edge",
                label_at(f, c.entry),
                format!("the continue construct with continue target {en} (of the loop headed by {hn}) does not have a back-edge block"),
                "continue target",
                &[(mi, format!("loop header {hn}"))],
            );
            continue;
        };
        let xn = bname(cx, f, exit);
        let fail = |cx: &mut Context<'_>, code: &'static str, msg: String, at: usize, rel: Vec<(usize, String)>| {
            report(cx, code, at, msg, "", &rel);
        };
        if !sdom(c.entry, exit) {
            broken[ci] = true;
            if c.kind == ConstructKind::Continue {
                fail(
                    cx,
                    "cfg.back-edge-block-not-dominated",
                    format!("the continue construct with continue target {en} does not structurally dominate its back-edge block {xn}"),
                    term_at(f, exit),
                    vec![(label_at(f, c.entry), format!("continue target {en}")), (mi, format!("declared by the loop header {hn}"))],
                );
            } else {
                merge_not_dominated(cx, f, c, exit);
            }
            continue;
        }
        if c.kind != ConstructKind::Continue && c.entry == exit {
            broken[ci] = true;
            fail(
                cx,
                "cfg.merge-is-header",
                format!("the {} construct headed by {hn} names {hn} itself as its merge block; the header must strictly structurally dominate its merge block", word(c.kind)),
                mi,
                vec![],
            );
            continue;
        }
        if c.kind == ConstructKind::Continue && !f.structurally_post_dominates(exit, c.entry) {
            broken[ci] = true;
            fail(
                cx,
                "cfg.continue-not-post-dominated",
                format!("the continue construct with continue target {en} is not structurally post-dominated by the back-edge block {xn}: a path from {en} leaves without reaching {xn}"),
                label_at(f, c.entry),
                vec![(term_at(f, exit), format!("back-edge block {xn}")), (mi, format!("declared by the loop header {hn}"))],
            );
        }
    }

    // Per block: constructs rooted there, and constructs whose merge block,
    // continue target or back-edge block it is (where membership ends).
    let mut roots: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut ends: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (ci, c) in cons.iter().enumerate() {
        if broken[ci] {
            continue;
        }
        roots[c.entry as usize].push(ci as u32);
        let mut add = |b: Option<u32>| {
            if let Some(b) = b
                && !ends[b as usize].contains(&(ci as u32))
            {
                ends[b as usize].push(ci as u32);
            }
        };
        add(c.exit());
        if c.kind == ConstructKind::Loop {
            add(c.continue_target);
        }
    }
    // Back-edge blocks of continue constructs: a header they dominate and
    // post-dominate lies in the continue construct.
    let mut bends: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (ci, c) in cons.iter().enumerate() {
        if !broken[ci] && c.kind == ConstructKind::Continue && let Some(b) = c.exit() {
            bends[b as usize].push(ci as u32);
        }
    }
    let near_bend = nearest(f, &bends);
    let near_root = nearest(f, &roots);
    let near_end = nearest(f, &ends);
    let up = |near: &[u32], b: u32| f.sdom.idom(b).map_or(NONE, |d| near[d as usize]);
    let mut done_exit = vec![false; cons.len()];
    let mut done_entry = vec![false; cons.len()];
    let mut done_header = vec![false; cons.len()];

    for x in 0..n as u32 {
        if !reach(x) {
            continue;
        }
        let edges = f.out_edges(x);
        for (k, e) in edges.iter().enumerate() {
            if e.kind != EdgeKind::Branch || edges[..k].iter().any(|p| p.kind == EdgeKind::Branch && p.to == e.to) {
                continue;
            }
            let y = e.to;
            // Exits: constructs rooted at dominators of x that do not dominate y.
            let mut r = near_root[x as usize];
            while r != NONE && !sdom(r, y) {
                for &ci in &roots[r as usize] {
                    if !done_exit[ci as usize] && f.construct_contains(ci, x) && !f.is_structured_exit(ci, y) {
                        done_exit[ci as usize] = true;
                        unstructured_exit(cx, f, ci, x, y, e.instruction as usize);
                    }
                }
                r = up(&near_root, r);
            }
            // Entries: constructs that end at dominators of x not dominating y.
            let mut a = near_end[x as usize];
            while a != NONE && !sdom(a, y) {
                for &ci in &ends[a as usize] {
                    let c = &cons[ci as usize];
                    if !done_entry[ci as usize] && c.entry != y && f.construct_contains(ci, y) && !f.construct_contains(ci, x) {
                        done_entry[ci as usize] = true;
                        let (xn, yn, hn) = (bname(cx, f, x), bname(cx, f, y), bname(cx, f, c.entry));
                        report(
                            cx,
                            "cfg.construct-entered-mid",
                            e.instruction as usize,
                            format!("{xn} branches to {yn} in the {} construct headed by {hn}, but not to its {} {hn}", word(c.kind), header_word(c.kind)),
                            "enters the construct from outside",
                            &[(label_at(f, c.entry), format!("{} {hn}", header_word(c.kind))), (label_at(f, y), format!("{yn}, inside the construct"))],
                        );
                    }
                }
                a = up(&near_end, a);
            }
        }
    }
    // A continue construct is also left by edges from its back-edge block to
    // blocks that the back-edge block dominates but does not post-dominate.
    for (ci, c) in cons.iter().enumerate() {
        if broken[ci] || c.kind != ConstructKind::Continue || done_exit[ci] {
            continue;
        }
        let ci = ci as u32;
        let Some(b) = c.exit() else { continue };
        if !f.construct_contains(ci, b) {
            continue;
        }
        for e in f.out_edges(b).iter().filter(|e| e.kind == EdgeKind::Branch) {
            let y = e.to;
            if y != b && sdom(b, y) && !f.construct_contains(ci, y) && !f.is_structured_exit(ci, y) {
                unstructured_exit(cx, f, ci, b, y, e.instruction as usize);
                break;
            }
        }
    }
    // Headers inside a construct have their merge blocks inside too.
    for h in 0..n as u32 {
        let Some(m) = f.adjacent_merge(h) else { continue };
        let mi = m.instruction as usize;
        let Some(mb) = m.merge_block else { continue };
        if !reach(h) || !reach(mb) || !sdom(h, mb) {
            continue;
        }
        let mut cands: Vec<u32> = Vec::new();
        let mut a = near_end[mb as usize];
        while a != NONE && a != h && sdom(h, a) {
            cands.extend_from_slice(&ends[a as usize]);
            a = up(&near_end, a);
        }
        let mut a = near_bend[h as usize];
        while a != NONE {
            cands.extend_from_slice(&bends[a as usize]);
            a = up(&near_bend, a);
        }
        {
            for &ci in &cands {
                let c = &cons[ci as usize];
                if !done_header[ci as usize] && c.entry != h && f.construct_contains(ci, h) && !f.construct_contains(ci, mb) {
                    done_header[ci as usize] = true;
                    let (hn, mn, en) = (bname(cx, f, h), bname(cx, f, mb), bname(cx, f, c.entry));
                    report(
                        cx,
                        "cfg.header-merge-escapes",
                        mi,
                        format!("the header {hn} is contained in the {} construct headed by {en}, but its merge block {mn} is not", word(c.kind)),
                        "merge block outside the enclosing construct",
                        &[(label_at(f, c.entry), format!("the enclosing {} construct starts at {en}", word(c.kind))), (label_at(f, mb), format!("merge block {mn}"))],
                    );
                }
            }
        }
    }
    // Only the loop branches to its continue target.
    let mut preds: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    for e in f.edges.iter().filter(|e| e.kind == EdgeKind::Branch) {
        if !preds[e.to as usize].iter().any(|p| p.0 == e.from) {
            preds[e.to as usize].push((e.from, e.instruction));
        }
    }
    for (ci, c) in cons.iter().enumerate() {
        if broken[ci] || c.kind != ConstructKind::Loop {
            continue;
        }
        let Some(ct) = c.continue_target else { continue };
        if ct == c.header {
            continue;
        }
        for &(p, inst) in &preds[ct as usize] {
            if !reach(p) || f.construct_contains(ci as u32, p) || latches[ct as usize].contains(&p) {
                continue;
            }
            let (pn, cn, hn) = (bname(cx, f, p), bname(cx, f, ct), bname(cx, f, c.header));
            report(
                cx,
                "cfg.continue-from-outside-loop",
                inst as usize,
                format!("{pn} branches to the continue target {cn} of the loop headed by {hn}, but is not contained in that loop construct"),
                "continue from outside the loop",
                &[(merge_inst(f, c), format!("loop header {hn} declares {cn} as its continue target")), (label_at(f, ct), format!("continue target {cn}"))],
            );
            break;
        }
    }
}

/// "The header %h does not structurally dominate its merge block %m".
fn merge_not_dominated(cx: &mut Context<'_>, f: &FunctionCfg, c: &Construct, merge: u32) {
    let mi = merge_inst(f, c);
    let (hn, xn) = (bname(cx, f, c.header), bname(cx, f, merge));
    let path = bypass_path(cx, f, c.entry, merge);
    report(
        cx,
        "cfg.merge-not-structurally-dominated",
        mi,
        format!("the {} header {hn} does not structurally dominate its merge block {xn}{path}", word(c.kind)),
        "",
        &[(label_at(f, merge), format!("merge block {xn}")), (label_at(f, c.header), format!("header {hn}"))],
    );
}

/// Why `from -> to` is a back edge: the path of the structural depth-first
/// search that has `to` on its stack when it meets the branch, and whether
/// the branch-only search of SPIR-V 1.6r1 would find it.
fn back_edge_note(cx: &mut Context<'_>, f: &FunctionCfg, from: u32, to: u32, r1_back: &[(u32, u32)]) -> Option<String> {
    let path = f.back_edge_search_path(from, to)?;
    let first = path.first()?.block;
    let mut walk = bname(cx, f, first);
    // A long walk keeps its start and the part from `to` on.
    let at = path.iter().position(|s| s.block == to).unwrap_or(0);
    let skip = if at > 6 { 3..at - 2 } else { 0..0 };
    for (i, s) in path.iter().enumerate().skip(1) {
        if skip.contains(&i) {
            if i == skip.start {
                walk.push_str(" ...");
            }
            continue;
        }
        let arrow = match s.via {
            Some(EdgeKind::Merge) => " -merge-> ",
            Some(EdgeKind::Continue) => " -continue-> ",
            _ => " -> ",
        };
        walk.push_str(arrow);
        walk.push_str(&bname(cx, f, s.block));
    }
    let (a, b) = (bname(cx, f, from), bname(cx, f, to));
    let start = if first == 0 {
        String::from("from the entry block")
    } else {
        format!("from {}, which no structured path from the entry block reaches", bname(cx, f, first))
    };
    let r1 = if r1_back.contains(&(from, to)) {
        String::from("the search over branch edges alone (SPIR-V 1.6r1) finds it too")
    } else if !f.is_reachable(from) {
        format!("over branch edges alone (SPIR-V 1.6r1's search) no path from the entry block reaches {a}, so there it is no back edge")
    } else {
        String::from("the search over branch edges alone (SPIR-V 1.6r1) does not find it")
    };
    Some(format!(
        "{a} -> {b} is a back edge because the depth-first search over structured edges (branch, merge and continue edges, SPIR-V 1.6r2 section 2.2.5), {start}, walks {walk} and meets the branch to {b} while {b} is still on its stack; {r1}"
    ))
}

fn unstructured_exit(cx: &mut Context<'_>, f: &FunctionCfg, ci: u32, x: u32, y: u32, inst: usize) {
    let c = &f.constructs()[ci as usize];
    let (xn, yn, hn) = (bname(cx, f, x), bname(cx, f, y), bname(cx, f, c.entry));
    let allowed = match c.kind {
        ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Case => "its merge block, or a break or continue of an enclosing loop or switch",
        ConstructKind::Loop => "its merge block or continue target",
        ConstructKind::Continue => "the loop header or the loop's merge block",
    };
    let mut rel = vec![(label_at(f, c.entry), format!("the {} construct starts at {hn}", word(c.kind)))];
    if let Some(m) = c.merge {
        let mn = bname(cx, f, m);
        rel.push((label_at(f, m), format!("merge block {mn}")));
    }
    rel.push((label_at(f, y), format!("{yn} is outside the construct")));
    report(
        cx,
        "cfg.unstructured-exit",
        inst,
        format!("{xn} exits the {} construct headed by {hn} by branching to {yn}, which is not a structured exit ({allowed})", word(c.kind)),
        "leaves the construct",
        &rel,
    );
}

/// For a merge block not dominated by its header: name an edge that reaches
/// the merge block while bypassing the header, if a short search finds one.
fn bypass_path(cx: &mut Context<'_>, f: &FunctionCfg, h: u32, m: u32) -> String {
    // A structural predecessor of the merge block that the header does not dominate.
    for e in &f.edges {
        if e.to == m && e.from != h && f.is_structurally_reachable(e.from) && !f.structurally_dominates(h, e.from) {
            let (a, b) = (bname(cx, f, e.from), bname(cx, f, m));
            return format!(": the edge {a} -> {b} bypasses the header");
        }
    }
    String::new()
}

/// "Selection must be structured" and "OpSwitch must be preceded by an
/// OpSelectionMerge": in reverse post-order of a structural depth-first
/// search, a conditional branch to two blocks not seen before (as targets, or
/// as merge blocks and continue targets) must be a selection header.
fn selections(cx: &mut Context<'_>, f: &FunctionCfg) {
    let n = f.blocks.len();
    let mut post = Vec::with_capacity(n);
    let mut state = vec![false; n];
    let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
    state[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, i) = *top;
        if let Some(e) = f.out_edges(b).get(i) {
            top.1 += 1;
            if !state[e.to as usize] {
                state[e.to as usize] = true;
                stack.push((e.to, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    let mut seen = vec![false; n];
    let mark = |b: Option<u32>, seen: &mut Vec<bool>| -> bool {
        match b {
            Some(b) => !core::mem::replace(&mut seen[b as usize], true),
            None => false,
        }
    };
    for &b in post.iter().rev() {
        let blk = &f.blocks[b as usize];
        let merge = f.adjacent_merge(b);
        if let Some(m) = merge {
            mark(m.merge_block, &mut seen);
            if m.kind == MergeKind::Loop {
                mark(m.continue_block, &mut seen);
            }
        }
        let targets: Vec<u32> = f.successors(b).collect();
        match blk.terminator_opcode {
            Some(op::OpBranchConditional) => {
                let t = mark(targets.first().copied(), &mut seen);
                let e = mark(targets.get(1).copied(), &mut seen);
                let loop_or_none = merge.is_none_or(|m| m.kind == MergeKind::Loop);
                if loop_or_none && t && e {
                    let bn = bname(cx, f, b);
                    let why = if merge.is_some() {
                        "its OpLoopMerge declares the loop, not a selection; a loop header whose conditional branch opens two new paths needs its body to start with a selection"
                    } else {
                        "it is not preceded by OpSelectionMerge"
                    };
                    let rel: Vec<(usize, String)> =
                        targets.iter().take(2).map(|&t| (label_at(f, t), "target not seen before".into())).collect();
                    report(
                        cx,
                        "cfg.selection-unstructured",
                        term_at(f, b),
                        format!("the conditional branch in {bn} diverges to two new blocks, so the selection must be structured, but {why}"),
                        "unstructured selection",
                        &rel,
                    );
                }
            }
            Some(op::OpSwitch) => {
                if merge.is_none() {
                    let bn = bname(cx, f, b);
                    report(
                        cx,
                        "cfg.switch-without-merge",
                        term_at(f, b),
                        format!("the OpSwitch in {bn} must be preceded by an OpSelectionMerge instruction"),
                        "switch without a merge",
                        &[(label_at(f, b), format!("block {bn}"))],
                    );
                }
                for t in targets {
                    mark(Some(t), &mut seen);
                }
            }
            _ => {}
        }
    }
}
