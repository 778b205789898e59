//! Structured control-flow constructs (SPIR-V 1.6r2 section 2.11), defined
//! with structural dominance (SDom) and structural post-dominance (SPDom):
//!
//! * selection construct of a selection header H with merge M: SDom(H) − SDom(M);
//! * switch construct of a switch header S (an `OpSelectionMerge` block ended
//!   by `OpSwitch`) with merge M: SDom(S) − SDom(M);
//! * case construct of each distinct `OpSwitch` Target or Default T that is
//!   not M: SDom(T) − SDom(M);
//! * continue construct of a loop with continue target C and back-edge block
//!   B: SDom(C) ∩ (SPDom(B) ∪ ¬SDom(B));
//! * loop construct of a loop header L with merge M: SDom(L) − SDom(C) − SDom(M).
//!
//! The last two are the spec's "SDom(C) ∩ SPDom(B)" and "SDom(L) − continue
//! construct − SDom(M)" written as spirv-val v2025.5 evaluates them
//! (`Construct::blocks`); they are the same sets whenever B structurally
//! post-dominates C and no block of SDom(B) − SPDom(B) lies outside SDom(M),
//! which the structured rules require of a valid module. On invalid modules
//! the spirv-val form decides which error is reported, so it is the one kept.
//!
//! A construct exists when its entry block is structurally reachable, as
//! spirv-val checks exactly those: selection, switch and loop constructs (and
//! the case constructs of a switch) of structurally reachable headers, and a
//! continue construct when its continue target is (which adds, to the
//! constructs of reachable headers, the continue constructs of unreachable
//! loop headers whose continue target is reached otherwise, always an error).
//!
//! The back-edge block B of a loop is the last one the back-edge search finds
//! ([`FunctionCfg::back_edge_pairs`]), as spirv-val sets it; a valid loop has
//! exactly one. When a loop has none (an invalid module) its continue
//! construct is drawn as SDom(C) − SDom(M).
//!
//! Every set is `SDom(entry)` — a preorder interval of the structural
//! dominator tree — minus subtrees, intersected with a post-dominator subtree
//! for continue constructs, so membership is O(1) and a set is only
//! materialised on demand ([`FunctionCfg::construct_blocks`]).

use crate::grammar::op;
use super::{FunctionCfg, MergeKind, NONE};
use crate::cfg::Csr;
use alloc::vec;
use alloc::vec::Vec;

/// The kind of a structured construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum ConstructKind {
    Selection,
    Switch,
    Loop,
    Continue,
    Case,
}

impl ConstructKind {
    /// `selection`, `switch`, `loop`, `continue` or `case`, as drawn and serialised.
    pub fn name(self) -> &'static str {
        match self {
            ConstructKind::Selection => "selection",
            ConstructKind::Switch => "switch",
            ConstructKind::Loop => "loop",
            ConstructKind::Continue => "continue",
            ConstructKind::Case => "case",
        }
    }
}

/// One construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Construct {
    pub kind: ConstructKind,
    /// The block the set is rooted at: the header, the continue target, or the case target.
    pub entry: u32,
    /// The header block whose merge instruction declares it (the loop header
    /// of a continue construct, the switch header of a case construct).
    pub header: u32,
    /// The merge block (of the header) if it is a block of the function.
    pub merge: Option<u32>,
    /// Loop and continue constructs: the continue target, if a block.
    pub continue_target: Option<u32>,
    /// Loop and continue constructs: the back-edge block used by the definition
    /// (the last one the back-edge search finds).
    pub back_edge_block: Option<u32>,
    /// The smallest enclosing construct (index into [`FunctionCfg::constructs`]).
    pub parent: Option<u32>,
    /// 1 for an outermost construct.
    pub depth: u32,
}

impl Construct {
    /// The block where the construct ends (spirv-val's exit block): the
    /// merge block, or for a continue construct its back-edge block.
    pub fn exit(&self) -> Option<u32> {
        match self.kind {
            ConstructKind::Continue => self.back_edge_block,
            _ => self.merge,
        }
    }
}

/// Rank of a construct among those sharing an entry block, outermost first.
fn rank(kind: ConstructKind) -> u32 {
    match kind {
        ConstructKind::Case => 0,
        ConstructKind::Continue => 1,
        _ => 2,
    }
}

impl FunctionCfg {
    /// The constructs, grouped by header in block order.
    pub fn constructs(&self) -> &[Construct] {
        &self.constructs
    }

    /// The innermost construct containing a block.
    pub fn innermost_construct(&self, b: u32) -> Option<u32> {
        self.innermost
            .get(b as usize)
            .copied()
            .filter(|&c| c != NONE)
    }

    /// The construct of a header's merge instruction (selection, switch or loop).
    pub fn header_construct(&self, header: u32) -> Option<u32> {
        self.rooted_at(header).iter().copied().find(|&c| {
            let k = &self.constructs[c as usize];
            k.header == header
                && matches!(
                    k.kind,
                    ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Loop
                )
        })
    }

    /// The constructs whose entry is `b`, outermost first.
    pub fn rooted_at(&self, b: u32) -> &[u32] {
        self.rooted.of(b)
    }

    /// Whether block `x` belongs to construct `c`. O(1).
    pub fn construct_contains(&self, c: u32, x: u32) -> bool {
        let Some(k) = self.constructs.get(c as usize) else {
            return false;
        };
        if !self.sdom.in_subtree(k.entry, x) {
            return false;
        }
        let under = |b: Option<u32>| b.is_some_and(|b| self.sdom.in_subtree(b, x));
        match k.kind {
            ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Case => {
                !under(k.merge)
            }
            ConstructKind::Continue => match k.back_edge_block {
                Some(b) => self.spdom.dominates(b, x) || !self.sdom.dominates(b, x),
                None => !under(k.merge),
            },
            ConstructKind::Loop => !under(k.merge) && !under(k.continue_target),
        }
    }

    /// The next block outwards from `b` when looking for the constructs that
    /// enclose it: the first header (in block order) that declares `b` as its
    /// merge block and structurally dominates it, else `b`'s immediate
    /// structural dominator.
    fn next_outward(&self, b: u32) -> Option<u32> {
        for &h in self.merge_headers(b) {
            if h != b && self.structurally_dominates(h, b) {
                return Some(h);
            }
        }
        self.sdom.idom(b)
    }

    /// Whether a branch to `dest` that leaves construct `c` is a structured
    /// exit (SPIR-V 1.6r2 section 2.11, as spirv-val v2025.5 checks it in
    /// `Construct::IsStructuredExit`):
    ///
    /// * loop construct: to its merge block or its continue target;
    /// * continue construct: to its loop header or the loop's merge block;
    /// * selection construct: to its merge block, or, walking outwards from the
    ///   header (see below), to the merge block or continue target of the
    ///   nearest enclosing loop, or to the merge block of the nearest
    ///   enclosing switch (no switch merge past a switch already passed);
    /// * switch construct (and its case constructs): to its merge block, or to
    ///   the merge block or continue target of the nearest enclosing loop
    ///   (enclosing switches do not count).
    ///
    /// The walk outwards goes from a block to the header that declares it as
    /// merge block, else to its immediate structural dominator, and reads
    /// only merge instructions that immediately precede their block's
    /// terminator ([`FunctionCfg::adjacent_merge`]); headers whose merge block
    /// structurally dominates the construct's header are passed over.
    pub fn is_structured_exit(&self, c: u32, dest: u32) -> bool {
        let Some(k) = self.constructs.get(c as usize) else {
            return false;
        };
        match k.kind {
            ConstructKind::Loop => Some(dest) == k.merge || Some(dest) == k.continue_target,
            ConstructKind::Continue => dest == k.header || Some(dest) == k.merge,
            ConstructKind::Selection | ConstructKind::Switch | ConstructKind::Case => {
                if Some(dest) == k.merge {
                    return true;
                }
                let header_is_switch = k.kind != ConstructKind::Selection;
                let mut seen_switch = false;
                let mut block = self.next_outward(k.header);
                while let Some(b) = block {
                    let term = self.blocks[b as usize].terminator_opcode;
                    if let Some(m) = self.adjacent_merge(b)
                        && (m.kind == MergeKind::Loop
                            || (!header_is_switch && term == Some(op::OpSwitch)))
                    {
                        if m.merge_block.is_some_and(|mb| self.structurally_dominates(mb, k.header)) {
                            block = self.next_outward(b);
                            continue;
                        }
                        let is_loop = m.kind == MergeKind::Loop;
                        let to_merge = (!seen_switch || is_loop) && m.merge_block == Some(dest);
                        let to_continue = is_loop && m.continue_block == Some(dest);
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
                    block = self.next_outward(b);
                }
                false
            }
        }
    }

    /// The blocks of a construct, in block (module) order.
    pub fn construct_blocks(&self, c: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let Some(k) = self.constructs.get(c as usize) else {
            return out;
        };
        let Some((lo, hi)) = self.sdom.range(k.entry) else {
            return out;
        };
        // The merge block's subtree is excluded from every kind but the
        // continue construct; skip it wholesale when it lies inside.
        let skip = match k.kind {
            ConstructKind::Continue => None,
            _ => k
                .merge
                .and_then(|m| self.sdom.range(m))
                .filter(|&(a, _)| a > lo && a <= hi),
        };
        let order = self.sdom.preorder();
        let mut p = lo;
        while p <= hi {
            if let Some((a, b)) = skip
                && p == a
            {
                p = b + 1;
                continue;
            }
            let x = order[p as usize];
            if self.construct_contains(c, x) {
                out.push(x);
            }
            p += 1;
        }
        out.sort_unstable();
        out
    }

    /// The parent of a construct in the construct tree.
    pub fn construct_parent(&self, c: u32) -> Option<u32> {
        self.constructs.get(c as usize)?.parent
    }

    /// The innermost construct containing `x` among those not rooted at `x`.
    fn enclosing(&self, x: u32) -> Option<u32> {
        let p = self.sdom.idom(x)?;
        for &c in self.rooted_at(p).iter().rev() {
            if self.construct_contains(c, x) {
                return Some(c);
            }
        }
        let mut c = self.innermost_construct(p);
        while let Some(cc) = c {
            if self.construct_contains(cc, x) {
                return Some(cc);
            }
            c = self.constructs[cc as usize].parent;
        }
        None
    }
}

/// Create the constructs, their tree, and every block's innermost construct.
pub(super) fn build(cfg: &mut FunctionCfg) {
    let n = cfg.blocks.len();
    let mut constructs: Vec<Construct> = Vec::new();
    // The back-edge block of each loop header: the last found (no room
    // taken without back edges).
    let mut last_back = Vec::new();
    if !cfg.back_edge_pairs().is_empty() {
        last_back.resize(n, NONE);
    }
    for &(from, to) in cfg.back_edge_pairs() {
        last_back[to as usize] = from;
    }
    for h in 0..n as u32 {
        let b = &cfg.blocks[h as usize];
        let Some(m) = b.merge else { continue };
        let reachable = cfg.sdom.contains(h);
        let base = Construct {
            kind: ConstructKind::Selection,
            entry: h,
            header: h,
            merge: m.merge_block,
            continue_target: None,
            back_edge_block: None,
            parent: None,
            depth: 0,
        };
        match m.kind {
            MergeKind::Loop => {
                let ct = m.continue_block;
                let back = last_back.get(h as usize).copied().filter(|&s| s != NONE);
                let lp = Construct {
                    kind: ConstructKind::Loop,
                    continue_target: ct,
                    back_edge_block: back,
                    ..base
                };
                if reachable {
                    constructs.push(lp);
                }
                if let Some(c) = ct.filter(|&c| cfg.sdom.contains(c)) {
                    constructs.push(Construct {
                        kind: ConstructKind::Continue,
                        entry: c,
                        ..lp
                    });
                }
            }
            _ if !reachable => {}
            MergeKind::Selection if b.terminator_opcode == Some(op::OpSwitch) => {
                constructs.push(Construct {
                    kind: ConstructKind::Switch,
                    ..base
                });
                let mut seen: Vec<u32> = Vec::new();
                for t in cfg.successors(h) {
                    if Some(t) == m.merge_block || seen.contains(&t) {
                        continue;
                    }
                    seen.push(t);
                    constructs.push(Construct {
                        kind: ConstructKind::Case,
                        entry: t,
                        ..base
                    });
                }
            }
            MergeKind::Selection => constructs.push(base),
        }
    }
    // Group by entry, outermost first.
    let mut keyed: Vec<(u32, u32, u32)> = constructs
        .iter()
        .enumerate()
        .map(|(i, k)| (k.entry, rank(k.kind), i as u32))
        .collect();
    keyed.sort_unstable();
    cfg.rooted = Csr::from_sorted(n, keyed.iter().map(|&(e, _, i)| (e, i)));
    cfg.constructs = constructs;
    cfg.innermost = vec![NONE; n];

    // Walk the structural dominator tree top-down: a construct's parent and a
    // block's innermost construct only depend on constructs rooted at its
    // structural dominators.
    // (By index: the loop writes the constructs it reads.)
    for p in 0..cfg.sdom.preorder().len() {
        let x = cfg.sdom.preorder()[p];
        let outer = cfg.enclosing(x);
        let rooted = cfg.rooted_at(x).len();
        for j in 0..rooted {
            let c = cfg.rooted_at(x)[j];
            let k = cfg.constructs[c as usize];
            let mut parent = outer;
            for jo in (0..j).rev() {
                let o = cfg.rooted_at(x)[jo];
                let ko = &cfg.constructs[o as usize];
                // A loop is not inside its own continue construct (they share an
                // entry when the header is its own continue target).
                let own_continue = k.kind == ConstructKind::Loop
                    && ko.kind == ConstructKind::Continue
                    && ko.header == k.header;
                if !own_continue && cfg.construct_contains(o, x) {
                    parent = Some(o);
                    break;
                }
            }
            let depth = parent.map_or(1, |p| cfg.constructs[p as usize].depth + 1);
            let kc = &mut cfg.constructs[c as usize];
            kc.parent = parent;
            kc.depth = depth;
        }
        let mut inner = outer;
        for &c in cfg.rooted_at(x).iter().rev() {
            if cfg.construct_contains(c, x) {
                inner = Some(c);
                break;
            }
        }
        cfg.innermost[x as usize] = inner.unwrap_or(NONE);
    }
}
