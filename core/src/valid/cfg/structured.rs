//! The structured rules (Shader): back edges, constructs and their exits.

use crate::grammar::op;
use super::{bname, label_at, report, term_at};
use crate::cfg::{EdgeKind, FunctionCfg, MergeKind, NONE};
use crate::valid::Context;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// The kind of a construct as spirv-val checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Selection,
    Switch,
    Loop,
    Continue,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Selection => "selection",
            Kind::Switch => "switch",
            Kind::Loop => "loop",
            Kind::Continue => "continue",
        }
    }
    fn header_word(self) -> &'static str {
        match self {
            Kind::Selection => "selection header",
            Kind::Switch => "switch header",
            Kind::Loop => "loop header",
            Kind::Continue => "continue target",
        }
    }
}

/// One construct: selection/switch/loop from a merge instruction, continue
/// from a loop's continue target.
#[derive(Clone, Copy, Debug)]
pub(super) struct Con {
    pub kind: Kind,
    /// The block holding the merge instruction.
    pub header: u32,
    /// Where the construct starts (the header, or the continue target).
    pub entry: u32,
    /// The merge block (the back-edge block for a continue construct).
    pub exit: Option<u32>,
    pub merge: Option<u32>,
    pub ct: Option<u32>,
    pub merge_inst: usize,
    pub broken: bool,
}

/// Dominance views of one function, as the structured rules use them.
pub(super) struct View<'f> {
    pub f: &'f FunctionCfg,
    pub cons: Vec<Con>,
    /// Per block: the header whose merge instruction names it as merge block.
    pub merge_decl: Vec<Vec<u32>>,
    /// Per block: the merge instruction immediately before its terminator.
    pub adj_merge: Vec<Option<(usize, u16)>>,
}

impl View<'_> {
    pub fn sdom(&self, a: u32, b: u32) -> bool {
        self.f.structurally_dominates(a, b)
    }
    fn spdom(&self, a: u32, b: u32) -> bool {
        self.f.structurally_post_dominates(a, b)
    }
    pub fn reach(&self, b: u32) -> bool {
        self.f.is_structurally_reachable(b)
    }

    /// Whether block `x` belongs to construct `c`.
    pub fn contains(&self, c: &Con, x: u32) -> bool {
        if !self.reach(x) || !self.sdom(c.entry, x) {
            return false;
        }
        let under = |b: Option<u32>| b.is_some_and(|b| self.sdom(b, x));
        match c.kind {
            Kind::Selection | Kind::Switch => !under(c.exit),
            Kind::Loop => !under(c.exit) && !under(c.ct),
            Kind::Continue => match c.exit {
                Some(b) => self.spdom(b, x) || !self.sdom(b, x),
                None => false,
            },
        }
    }

    /// The next block outwards when looking for enclosing constructs: the
    /// header that declares `b` as its merge block, or `b`'s immediate
    /// structural dominator.
    fn next_block(&self, b: u32) -> Option<u32> {
        if let Some(hs) = self.merge_decl.get(b as usize) {
            for &h in hs {
                if h != b && self.sdom(h, b) {
                    return Some(h);
                }
            }
        }
        self.f.sdom.idom(b)
    }

    /// Whether a branch to `dest` leaving construct `c` is a structured exit.
    pub fn is_structured_exit(&self, cx: &Context<'_>, c: &Con, dest: u32) -> bool {
        match c.kind {
            Kind::Loop => Some(dest) == c.merge || Some(dest) == c.ct,
            Kind::Continue => dest == c.header || Some(dest) == c.merge,
            Kind::Selection | Kind::Switch => {
                if Some(dest) == c.exit {
                    return true;
                }
                let header_is_switch = c.kind == Kind::Switch;
                let mut seen_switch = false;
                let mut block = self.next_block(c.header);
                while let Some(b) = block {
                    let blk = &self.f.blocks[b as usize];
                    let term = blk.terminator_opcode;
                    if let Some((mi, mop)) = self.adj_merge[b as usize]
                        && (mop == op::OpLoopMerge
                            || (!header_is_switch && mop == op::OpSelectionMerge && term == Some(op::OpSwitch)))
                    {
                        let ops = &cx.insts()[mi].operands;
                        let mb = ops.first().and_then(|&m| self.f.block_of(m));
                        if mb.is_some_and(|m| self.sdom(m, c.header)) {
                            block = self.next_block(b);
                            continue;
                        }
                        let is_loop = mop == op::OpLoopMerge;
                        let to_merge = (!seen_switch || is_loop) && mb == Some(dest);
                        let to_continue =
                            is_loop && ops.get(1).and_then(|&x| self.f.block_of(x)) == Some(dest);
                        if to_merge || to_continue {
                            return true;
                        }
                        if term == Some(op::OpSwitch) {
                            seen_switch = true;
                        }
                        if is_loop {
                            return false;
                        }
                    }
                    block = self.next_block(b);
                }
                false
            }
        }
    }
}

/// Back edges as spirv-val finds them: a depth-first search over structural
/// edges from a pseudo entry whose successors are the blocks without
/// structural predecessors and one block of each otherwise unreached cycle;
/// a branch edge to a block on the stack is a back edge. Deduplicated, in
/// discovery order.
fn back_edges(f: &FunctionCfg) -> Vec<(u32, u32)> {
    let n = f.blocks.len();
    let mut has_pred = vec![false; n];
    for e in &f.edges {
        has_pred[e.to as usize] = true;
    }
    let mut roots: Vec<u32> = (0..n as u32).filter(|&b| !has_pred[b as usize]).collect();
    // Blocks reached from no root: mark what the roots reach, then add the
    // first unreached block of each remaining part, in order.
    let mut mark = vec![false; n];
    let flood = |start: u32, mark: &mut Vec<bool>| {
        let mut st = vec![start];
        while let Some(v) = st.pop() {
            if mark[v as usize] {
                continue;
            }
            mark[v as usize] = true;
            st.extend(f.out_edges(v).iter().map(|e| e.to));
        }
    };
    for &r in &roots {
        flood(r, &mut mark);
    }
    for b in 0..n as u32 {
        if !mark[b as usize] {
            roots.push(b);
            flood(b, &mut mark);
        }
    }
    let mut out = Vec::new();
    let mut state = vec![0u8; n];
    for r in roots {
        if state[r as usize] != 0 {
            continue;
        }
        state[r as usize] = 1;
        // (block, next edge, index in `out` where its back edges start)
        let mut stack: Vec<(u32, usize, usize)> = vec![(r, 0, out.len())];
        while let Some(top) = stack.last_mut() {
            let (v, i, first) = *top;
            let edges = f.out_edges(v);
            if let Some(e) = edges.get(i) {
                top.1 += 1;
                match state[e.to as usize] {
                    0 => {
                        state[e.to as usize] = 1;
                        stack.push((e.to, 0, out.len()));
                    }
                    1 => {
                        if edges.iter().any(|x| x.kind == EdgeKind::Branch && x.to == e.to)
                            && !out[first..].contains(&(v, e.to))
                        {
                            out.push((v, e.to));
                        }
                    }
                    _ => {}
                }
            } else {
                state[v as usize] = 2;
                stack.pop();
            }
        }
    }
    out
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
    let insts = cx.insts();
    let mut bad = false;

    // Back edges target loop headers; one back-edge block per loop header.
    let back = back_edges(f);
    let is_loop_header =
        |b: u32| f.blocks[b as usize].merge.is_some_and(|m| m.kind == MergeKind::Loop);
    for &(from, to) in &back {
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
        }
    }
    let mut latches: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(from, to) in &back {
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

    // The spirv-val view of merge instructions.
    let mut adj_merge = vec![None; n];
    let mut merge_decl: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (b, blk) in f.blocks.iter().enumerate() {
        if let Some(t) = blk.terminator
            && t > blk.start + 1
        {
            let i = t as usize - 1;
            let o = insts[i].opcode;
            if o == op::OpSelectionMerge || o == op::OpLoopMerge {
                adj_merge[b] = Some((i, o));
            }
        }
        if let Some(m) = blk.merge
            && let Some(mb) = m.merge_block
        {
            merge_decl[mb as usize].push(b as u32);
        }
    }

    if !bad {
        let mut cons = Vec::new();
        for (h, blk) in f.blocks.iter().enumerate() {
            let Some(m) = blk.merge else { continue };
            let base = Con {
                kind: Kind::Selection,
                header: h as u32,
                entry: h as u32,
                exit: m.merge_block,
                merge: m.merge_block,
                ct: None,
                merge_inst: m.instruction as usize,
                broken: false,
            };
            match m.kind {
                MergeKind::Selection => cons.push(Con {
                    kind: if blk.terminator_opcode == Some(op::OpSwitch) {
                        Kind::Switch
                    } else {
                        Kind::Selection
                    },
                    ..base
                }),
                MergeKind::Loop => {
                    let ct = m.continue_block;
                    cons.push(Con { kind: Kind::Loop, ct, ..base });
                    if let Some(c) = ct {
                        let latch = latches[h].last().copied();
                        cons.push(Con { kind: Kind::Continue, entry: c, exit: latch, ct, ..base });
                    }
                }
            }
        }
        let mut v = View { f, cons, merge_decl, adj_merge };
        constructs(cx, &mut v, &latches);
        super::switch::check(cx, &v);
        selections(cx, f, &v.adj_merge);
    } else {
        selections(cx, f, &adj_merge);
    }
}

fn constructs(cx: &mut Context<'_>, v: &mut View<'_>, latches: &[Vec<u32>]) {
    let f = v.f;
    let n = f.blocks.len();
    // Dominance and post-dominance of each construct's ends.
    for ci in 0..v.cons.len() {
        let c = v.cons[ci];
        if !v.reach(c.entry) {
            v.cons[ci].broken = true;
            continue;
        }
        let en = bname(cx, f, c.entry);
        let hn = bname(cx, f, c.header);
        let Some(exit) = c.exit else {
            v.cons[ci].broken = true;
            report(
                cx,
                "cfg.continue-without-back-edge",
                label_at(f, c.entry),
                format!("the continue construct with continue target {en} (of the loop headed by {hn}) does not have a back-edge block"),
                "continue target",
                &[(c.merge_inst, format!("loop header {hn}"))],
            );
            continue;
        };
        let xn = bname(cx, f, exit);
        let fail = |cx: &mut Context<'_>, code: &'static str, msg: String, at: usize, rel: Vec<(usize, String)>| {
            report(cx, code, at, msg, "", &rel);
        };
        if !v.sdom(c.entry, exit) {
            v.cons[ci].broken = true;
            if c.kind == Kind::Continue {
                fail(
                    cx,
                    "cfg.back-edge-block-not-dominated",
                    format!("the continue construct with continue target {en} does not structurally dominate its back-edge block {xn}"),
                    term_at(f, exit),
                    vec![(label_at(f, c.entry), format!("continue target {en}")), (c.merge_inst, format!("declared by the loop header {hn}"))],
                );
            } else {
                let path = bypass_path(cx, v, c.entry, exit);
                fail(
                    cx,
                    "cfg.merge-not-structurally-dominated",
                    format!("the {} construct headed by {hn} does not structurally dominate its merge block {xn}{path}", c.kind.word()),
                    c.merge_inst,
                    vec![(label_at(f, exit), format!("merge block {xn}")), (label_at(f, c.header), format!("header {hn}"))],
                );
            }
            continue;
        }
        if c.kind != Kind::Continue && c.entry == exit {
            v.cons[ci].broken = true;
            fail(
                cx,
                "cfg.merge-is-header",
                format!("the {} construct headed by {hn} names {hn} itself as its merge block; the header must strictly structurally dominate its merge block", c.kind.word()),
                c.merge_inst,
                vec![],
            );
            continue;
        }
        if c.kind == Kind::Continue && !v.spdom(exit, c.entry) {
            v.cons[ci].broken = true;
            fail(
                cx,
                "cfg.continue-not-post-dominated",
                format!("the continue construct with continue target {en} is not structurally post-dominated by the back-edge block {xn}: a path from {en} leaves without reaching {xn}"),
                label_at(f, c.entry),
                vec![(term_at(f, exit), format!("back-edge block {xn}")), (c.merge_inst, format!("declared by the loop header {hn}"))],
            );
        }
    }

    // Per block: constructs rooted there, and constructs whose merge block,
    // continue target or back-edge block it is (where membership ends).
    let mut roots: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut ends: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (ci, c) in v.cons.iter().enumerate() {
        if c.broken {
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
        add(c.exit);
        if c.kind == Kind::Loop {
            add(c.ct);
        }
    }
    // Back-edge blocks of continue constructs: a header they dominate and
    // post-dominate lies in the continue construct.
    let mut bends: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (ci, c) in v.cons.iter().enumerate() {
        if !c.broken && c.kind == Kind::Continue && let Some(b) = c.exit {
            bends[b as usize].push(ci as u32);
        }
    }
    let near_bend = nearest(f, &bends);
    let near_root = nearest(f, &roots);
    let near_end = nearest(f, &ends);
    let up = |near: &[u32], b: u32| f.sdom.idom(b).map_or(NONE, |d| near[d as usize]);
    let mut done_exit = vec![false; v.cons.len()];
    let mut done_entry = vec![false; v.cons.len()];
    let mut done_header = vec![false; v.cons.len()];

    for x in 0..n as u32 {
        if !v.reach(x) {
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
            while r != NONE && !v.sdom(r, y) {
                for &ci in &roots[r as usize] {
                    let c = v.cons[ci as usize];
                    if !done_exit[ci as usize] && v.contains(&c, x) && !v.is_structured_exit(cx, &c, y) {
                        done_exit[ci as usize] = true;
                        unstructured_exit(cx, v, &c, x, y, e.instruction as usize);
                    }
                }
                r = up(&near_root, r);
            }
            // Entries: constructs that end at dominators of x not dominating y.
            let mut a = near_end[x as usize];
            while a != NONE && !v.sdom(a, y) {
                for &ci in &ends[a as usize] {
                    let c = v.cons[ci as usize];
                    if !done_entry[ci as usize] && c.entry != y && v.contains(&c, y) && !v.contains(&c, x) {
                        done_entry[ci as usize] = true;
                        let (xn, yn, hn) = (bname(cx, f, x), bname(cx, f, y), bname(cx, f, c.entry));
                        report(
                            cx,
                            "cfg.construct-entered-mid",
                            e.instruction as usize,
                            format!("{xn} branches to {yn} in the {} construct headed by {hn}, but not to its {} {hn}", c.kind.word(), c.kind.header_word()),
                            "enters the construct from outside",
                            &[(label_at(f, c.entry), format!("{} {hn}", c.kind.header_word())), (label_at(f, y), format!("{yn}, inside the construct"))],
                        );
                    }
                }
                a = up(&near_end, a);
            }
        }
    }
    // A continue construct is also left by edges from its back-edge block to
    // blocks that the back-edge block dominates but does not post-dominate.
    for ci in 0..v.cons.len() {
        let c = v.cons[ci];
        if c.broken || c.kind != Kind::Continue || done_exit[ci] {
            continue;
        }
        let Some(b) = c.exit else { continue };
        if !v.contains(&c, b) {
            continue;
        }
        for e in f.out_edges(b).iter().filter(|e| e.kind == EdgeKind::Branch) {
            let y = e.to;
            if y != b && v.sdom(b, y) && !v.contains(&c, y) && !v.is_structured_exit(cx, &c, y) {
                unstructured_exit(cx, v, &c, b, y, e.instruction as usize);
                break;
            }
        }
    }
    // Headers inside a construct have their merge blocks inside too.
    for h in 0..n as u32 {
        let Some((mi, _)) = v.adj_merge[h as usize] else { continue };
        let Some(mb) = cx.insts()[mi].operands.first().and_then(|&m| f.block_of(m)) else { continue };
        if !v.reach(h) || !v.reach(mb) || !v.sdom(h, mb) {
            continue;
        }
        let mut cands: Vec<u32> = Vec::new();
        let mut a = near_end[mb as usize];
        while a != NONE && a != h && v.sdom(h, a) {
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
                let c = v.cons[ci as usize];
                if !done_header[ci as usize] && c.entry != h && v.contains(&c, h) && !v.contains(&c, mb) {
                    done_header[ci as usize] = true;
                    let (hn, mn, en) = (bname(cx, f, h), bname(cx, f, mb), bname(cx, f, c.entry));
                    report(
                        cx,
                        "cfg.header-merge-escapes",
                        mi,
                        format!("the header {hn} is contained in the {} construct headed by {en}, but its merge block {mn} is not", c.kind.word()),
                        "merge block outside the enclosing construct",
                        &[(label_at(f, c.entry), format!("the enclosing {} construct starts at {en}", c.kind.word())), (label_at(f, mb), format!("merge block {mn}"))],
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
    for ci in 0..v.cons.len() {
        let c = v.cons[ci];
        if c.broken || c.kind != Kind::Loop {
            continue;
        }
        let Some(ct) = c.ct else { continue };
        if ct == c.header {
            continue;
        }
        for &(p, inst) in &preds[ct as usize] {
            if !v.reach(p) || v.contains(&c, p) || latches[ct as usize].contains(&p) {
                continue;
            }
            let (pn, cn, hn) = (bname(cx, f, p), bname(cx, f, ct), bname(cx, f, c.header));
            report(
                cx,
                "cfg.continue-from-outside-loop",
                inst as usize,
                format!("{pn} branches to the continue target {cn} of the loop headed by {hn}, but is not contained in that loop construct"),
                "continue from outside the loop",
                &[(c.merge_inst, format!("loop header {hn} declares {cn} as its continue target")), (label_at(f, ct), format!("continue target {cn}"))],
            );
            break;
        }
    }
}

fn unstructured_exit(cx: &mut Context<'_>, v: &View<'_>, c: &Con, x: u32, y: u32, inst: usize) {
    let f = v.f;
    let (xn, yn, hn) = (bname(cx, f, x), bname(cx, f, y), bname(cx, f, c.entry));
    let allowed = match c.kind {
        Kind::Selection | Kind::Switch => "its merge block, or a break or continue of an enclosing loop or switch",
        Kind::Loop => "its merge block or continue target",
        Kind::Continue => "the loop header or the loop's merge block",
    };
    let mut rel = vec![(label_at(f, c.entry), format!("the {} construct starts at {hn}", c.kind.word()))];
    if let Some(m) = c.merge {
        let mn = bname(cx, f, m);
        rel.push((label_at(f, m), format!("merge block {mn}")));
    }
    rel.push((label_at(f, y), format!("{yn} is outside the construct")));
    report(
        cx,
        "cfg.unstructured-exit",
        inst,
        format!("{xn} exits the {} construct headed by {hn} by branching to {yn}, which is not a structured exit ({allowed})", c.kind.word()),
        "leaves the construct",
        &rel,
    );
}

/// For a merge block not dominated by its header: name an edge that reaches
/// the merge block while bypassing the header, if a short search finds one.
fn bypass_path(cx: &mut Context<'_>, v: &View<'_>, h: u32, m: u32) -> String {
    let f = v.f;
    // A structural predecessor of the merge block that the header does not dominate.
    for e in &f.edges {
        if e.to == m && e.from != h && v.reach(e.from) && !v.sdom(h, e.from) {
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
fn selections(cx: &mut Context<'_>, f: &FunctionCfg, adj: &[Option<(usize, u16)>]) {
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
        let merge = adj[b as usize];
        if let Some(m) = blk.merge.filter(|m| merge.is_some_and(|(i, _)| i == m.instruction as usize)) {
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
                let loop_or_none = merge.is_none_or(|(_, o)| o == op::OpLoopMerge);
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
